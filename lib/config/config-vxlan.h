/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The options of a port of type "vxlan": Open vSwitch's names and
 * meanings ("remote_ip", "key", "local_ip", "dst_port", "ttl", "tos"),
 * except that "remote_ip" may also be a list of addresses, for flooding
 * by head-end replication.  Parsing and comparison only, no side effects;
 * the schema (config-schema.c) hands each of these keys of "options" to
 * config_vxlan_parse_option() and checks the result once the port is read
 * (config_vxlan_check()).  The options are the provider's own struct
 * (netdev-vxlan.h); doc/vxlan.md has the design of the port.
 */
#ifndef CONFIG_VXLAN_H
#define CONFIG_VXLAN_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "netdev/netdev-vxlan.h"

/* Fills 'vx' with the defaults: no remote, key 0, any local address, port
 * 4789, TTL 64, TOS 0. */
void config_vxlan_init(struct netdev_vxlan_options *vx);

/* True if 'key' is one of the options this module parses. */
bool config_vxlan_is_option(const char *key);

/* Parses option 'key' (config_vxlan_is_option()) with value 'value' into
 * 'vx'.  Returns NULL, or an error message to free that names the key and
 * the value. */
char *config_vxlan_parse_option(struct netdev_vxlan_options *vx, const char *key,
                                const json_t *value);

/* Returns NULL if 'vx' is complete (it has a remote), or an error message
 * to free. */
char *config_vxlan_check(const struct netdev_vxlan_options *vx);

/* True if 'a' and 'b' (each may be NULL) configure the same tunnel. */
bool config_vxlan_equal(const struct netdev_vxlan_options *a,
                        const struct netdev_vxlan_options *b);

/* Writes 'vx''s remote addresses, comma-separated, into 'buf' of 'size'
 * bytes (truncated if it is too small). */
void config_vxlan_format_remotes(const struct netdev_vxlan_options *vx, char *buf,
                                 size_t size);

#endif /* config-vxlan.h */
