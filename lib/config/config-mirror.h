/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "mirrors" of a bridge in the config file: Open vSwitch's Mirror
 * table (name, select_all, select_src_port, select_dst_port, select_vlan,
 * output_port) as a list of objects.  Parsing, the checks against the
 * bridge's ports, and comparison for the diff; no side effects.  The
 * schema (config-schema.c) calls the parser for the key and the check
 * once the whole bridge is read; applying is ofproto/mirror.h's.
 */
#ifndef CONFIG_MIRROR_H
#define CONFIG_MIRROR_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "base/compiler.h"
#include "config/json-pos.h"

struct config_bridge;

/* The most mirrors a bridge has (ofproto/mirror.h MIRROR_MAX). */
#define CONFIG_MIRROR_MAX 32

/* Longest mirror name, in characters. */
#define CONFIG_MIRROR_NAME_MAX_LEN 63

struct config_mirror {
    char *name;
    bool select_all;
    char **srcs;                /* "select_src_port": port names. */
    size_t n_srcs;
    char **dsts;                /* "select_dst_port". */
    size_t n_dsts;
    int *vlans;                 /* "select_vlan", 0..4095; none: all. */
    size_t n_vlans;
    char *output_port;          /* Required. */

    /* Where things were, for the checks against the ports (line 0 for a
     * document without text). */
    struct json_pos pos;        /* The object. */
    struct json_pos *src_pos, *dst_pos; /* One per name. */
    struct json_pos output_pos;
};

/* Parses 'v', the value of a bridge's "mirrors" at 'node', into
 * 'bridge->mirrors'; 'label' names the bridge in messages.  Returns NULL,
 * or an error message to free with its position in '*pos'. */
char *config_mirrors_parse(const json_t *v, const struct json_pos_node *node,
                           const char *label, struct config_bridge *bridge,
                           struct json_pos *pos) WARN_UNUSED_RESULT;

/* Checks the mirrors of 'bridge' against its ports: every port a mirror
 * names is a port of the bridge, and no mirror's output port is selected
 * by a mirror's select_src_port or select_dst_port.  Returns NULL, or an
 * error message to free with its position in '*pos'. */
char *config_mirrors_check(const struct config_bridge *bridge,
                           struct json_pos *pos) WARN_UNUSED_RESULT;

/* True if 'a' and 'b' have the same mirrors, in the same order. */
bool config_mirrors_equal(const struct config_bridge *a,
                          const struct config_bridge *b);

/* Frees the mirrors of 'bridge'. */
void config_mirrors_uninit(struct config_bridge *bridge);

#endif /* config-mirror.h */
