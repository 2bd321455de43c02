/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Edits of a configuration's JSON document, the way ovs-vsctl edits the
 * Open vSwitch database: add and delete a bridge, add, delete and modify a
 * port.  The runtime port commands (control/bridge-appctl.c) edit a copy
 * of the running document here, then validate and apply the result as a
 * reload would, so that a command and a file edit meet the same checks.
 *
 * A port's settings come as "KEY=VALUE" words with the config file's key
 * names: "interface=veth-c7", "tag=10", "trunks=10,20", "create=true",
 * "members=eth0,eth1", and "options:KEY=VALUE" for a key of "options"
 * ("options:n_rxq=2", "options:peer=x1").  Integer and boolean keys get
 * JSON numbers and booleans, list keys take comma-separated values, and
 * every other key a string; an unknown key is passed through for the
 * schema to reject.  "KEY=" (no value) removes the key, so that it takes
 * its default.
 *
 * Nothing here validates beyond the shape of the words: the edited
 * document goes through config_parse_json().  Every function changes
 * 'root' only when it succeeds.  Any thread; no global state.
 */
#ifndef CONFIG_EDIT_H
#define CONFIG_EDIT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "base/compiler.h"

/* The bridge object named 'name' in 'root' ("bridges"), or NULL. */
json_t *config_edit_find_bridge(json_t *root, const char *name);

/* The port object named 'name' in any bridge of 'root', or NULL.  Stores
 * its bridge object in '*bridgep' if 'bridgep' is nonnull. */
json_t *config_edit_find_port(json_t *root, const char *name,
                              json_t **bridgep);

/* Adds bridge 'name' with no ports.  With 'may_exist', a bridge of that
 * name already there is not an error.  Returns NULL or an error to free. */
char *config_edit_add_bridge(json_t *root, const char *name,
                             bool may_exist) WARN_UNUSED_RESULT;

/* Deletes bridge 'name' with its ports and rules.  With 'if_exists', a
 * missing bridge is not an error. */
char *config_edit_del_bridge(json_t *root, const char *name,
                             bool if_exists) WARN_UNUSED_RESULT;

/* Adds port 'name' to bridge 'bridge' with the settings in the 'n' words
 * of 'words'.  With 'may_exist', a port of that name already on 'bridge'
 * with exactly these settings is not an error (nothing changes); on
 * another bridge, or with other settings, it still is. */
char *config_edit_add_port(json_t *root, const char *bridge,
                           const char *name, const char *const *words,
                           size_t n, bool may_exist) WARN_UNUSED_RESULT;

/* Deletes port 'name', which must be on 'bridge' if 'bridge' is nonnull.
 * With 'if_exists', a missing port is not an error (a port on another
 * bridge than 'bridge' still is). */
char *config_edit_del_port(json_t *root, const char *bridge,
                           const char *name,
                           bool if_exists) WARN_UNUSED_RESULT;

/* Changes the settings of port 'name' by the 'n' words in 'words': each
 * "KEY=VALUE" sets a key, each "KEY=" removes one. */
char *config_edit_set_port(json_t *root, const char *name,
                           const char *const *words,
                           size_t n) WARN_UNUSED_RESULT;

#endif /* config-edit.h */
