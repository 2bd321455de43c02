/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The schema of the configuration (config.h), walked key by key over a
 * parsed JSON tree and the tree of positions json-pos made from the same
 * text, so that every error points at its key or value.  Single values are
 * checked by config-check, "other_config" belongs to config-other; this
 * file holds the structure (bridges, ports, rules) and the checks that
 * span keys (duplicate names, interfaces used twice, bond or access or
 * trunk port).  One grammar, so one file.
 */
#include <autoconf.h>
#include "config/config-schema.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/config-check.h"
#include "config/config-mirror.h"
#include "config/config-vxlan.h"
#include "config/json-pos.h"
#include "base/util.h"

#define BRIDGE_NAME_MAX_LEN 15
#define PORT_NAME_MAX_LEN 63
#define BOND_MAX_MEMBERS 32

static const char *const port_type_names[] = {
    [CONFIG_PORT_SYSTEM] = "system",
    [CONFIG_PORT_TAP] = "tap",
    [CONFIG_PORT_BOND] = "bond",
    [CONFIG_PORT_AFXDP] = "afxdp",
    [CONFIG_PORT_DUMMY] = "dummy",
    [CONFIG_PORT_PATCH] = "patch",
    [CONFIG_PORT_INTERNAL] = "internal",
    [CONFIG_PORT_VXLAN] = "vxlan",
};

static const char *const vlan_mode_names[] = {
    [CONFIG_VLAN_TRUNK] = "trunk",
    [CONFIG_VLAN_ACCESS] = "access",
    [CONFIG_VLAN_NATIVE_TAGGED] = "native-tagged",
    [CONFIG_VLAN_NATIVE_UNTAGGED] = "native-untagged",
};

static const char *const bond_mode_names[] = {
    "active-backup", "balance-slb", "balance-tcp",
};

/* The values of "xdp-mode"; the first is the default. */
static const char *const xdp_mode_names[] = { "native", "generic" };

const char *
config_port_type_to_string(enum config_port_type type)
{
    return type < ARRAY_SIZE(port_type_names) ? port_type_names[type] : "?";
}

const char *
config_vlan_mode_to_string(enum config_vlan_mode mode)
{
    return mode < ARRAY_SIZE(vlan_mode_names) ? vlan_mode_names[mode] : "?";
}

/* ------------------------------------------------------------------------
 * Validation. */

struct cfg_ctx {
    const char *name;           /* Starts every error message. */
    char *error;                /* The first error, or NULL. */
    json_t *bridge_names;       /* Name -> [line, column]. */
    json_t *port_names;         /* Name -> [line, column]. */
    json_t *interfaces;         /* Interface -> [port, line, column]. */
    json_t *vxlan_sockets;      /* "LOCAL_IP:DST_PORT" of vxlan ports ->
                                 * [line, column]. */
};

/* Records error 'msg' (freed here) at 'pos'.  Returns false. */
static bool
fail(struct cfg_ctx *ctx, struct json_pos pos, char *msg)
{
    if (!ctx->error) {
        ctx->error = (pos.line > 0
                      ? xasprintf("%s:%d:%d: %s", ctx->name, pos.line,
                                  pos.column, msg)
                      : xasprintf("%s: %s", ctx->name, msg));
    }
    free(msg);
    return false;
}

static bool failf(struct cfg_ctx *ctx, struct json_pos pos, const char *format,
                  ...) PRINTF_FORMAT(3, 4);

static bool
failf(struct cfg_ctx *ctx, struct json_pos pos, const char *format, ...)
{
    va_list args;
    char *msg;

    va_start(args, format);
    if (vasprintf(&msg, format, args) < 0) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    va_end(args);
    return fail(ctx, pos, msg);
}

/* Records "LABEL must be WHAT, got V" at 'node'.  Returns false. */
static bool
fail_must_be(struct cfg_ctx *ctx, const struct json_pos_node *node,
             const char *label, const char *what, const json_t *v)
{
    return fail(ctx, json_pos_of(node), config_check_must_be(label, what, v));
}

/* Records the error 'msg' if nonnull.  Returns true if there was none. */
static bool
check(struct cfg_ctx *ctx, struct json_pos pos, char *msg)
{
    return msg ? fail(ctx, pos, msg) : true;
}

static bool
fail_unknown_key(struct cfg_ctx *ctx, struct json_pos pos, const char *key,
                 const char *where, const char *const *known, size_t n)
{
    char *names = config_check_join_names(known, n);
    char *q = config_check_quote(key);
    bool ok;

    ok = failf(ctx, pos, "unknown key %s in %s (known keys: %s)", q, where,
               names);
    free(names);
    free(q);
    return ok;
}

/* Records 'name' at 'pos' in the set 'names'.  If it is already there,
 * stores where in '*first' and returns false. */
static bool
claim_name(json_t *names, const char *name, struct json_pos pos,
           struct json_pos *first)
{
    json_t *prev = json_object_get(names, name);

    if (prev) {
        first->line = json_integer_value(json_array_get(prev, 0));
        first->column = json_integer_value(json_array_get(prev, 1));
        return false;
    }
    json_object_set_new(names, name, json_pack("[ii]", pos.line,
                                               pos.column));
    return true;
}

/* Records that port 'port' uses interface 'ifname', named at 'pos'. */
static bool
claim_interface(struct cfg_ctx *ctx, const char *ifname, const char *port,
                struct json_pos pos)
{
    json_t *prev = json_object_get(ctx->interfaces, ifname);

    if (prev) {
        char *q_if = config_check_quote(ifname);
        const char *prev_port = json_string_value(json_array_get(prev, 0));
        char *q_port = config_check_quote(prev_port);
        bool ok;

        ok = failf(ctx, pos, "interface %s is already used by port %s "
                   "(at %d:%d)", q_if, q_port,
                   (int) json_integer_value(json_array_get(prev, 1)),
                   (int) json_integer_value(json_array_get(prev, 2)));
        free(q_if);
        free(q_port);
        return ok;
    }
    json_object_set_new(ctx->interfaces, ifname,
                        json_pack("[sii]", port, pos.line, pos.column));
    return true;
}

/* Iterates over the members of object 'OBJ' in document order, with
 * 'KEY', 'VALUE', the key's position 'KEY_POS' and the value's position
 * node 'VNODE' (NULL if unknown), given the object's position node
 * 'NODE'. */
#define OBJECT_FOR_EACH(KEY, VALUE, KEY_POS, VNODE, OBJ, NODE)          \
    for (size_t idx__ = 0, done__ = 0; !done__; done__ = 1)             \
        for (void *it__ = json_object_iter((json_t *) (OBJ));           \
             it__ && ((KEY) = json_object_iter_key(it__),               \
                      (VALUE) = json_object_iter_value(it__),           \
                      (VNODE) = json_pos_member(NODE, KEY, strlen(KEY), \
                                                idx__++, &(KEY_POS)),   \
                      true);                                            \
             it__ = json_object_iter_next((json_t *) (OBJ), it__))

/* Where the keys of a port were, for the checks that span keys. */
struct port_keys {
    struct json_pos object;
    struct json_pos name_value;
    struct json_pos interface_key, interface_value;
    struct json_pos create_key;
    struct json_pos tag_key;
    struct json_pos trunks_key;
    struct json_pos vlan_mode_key;
    struct json_pos members_key;
    struct json_pos *member_values;     /* One per member. */
    struct json_pos bond_mode_key;
    struct json_pos peer_key;
    struct json_pos rebalance_key;
    struct json_pos xdp_mode_key;
    struct json_pos pcap_key;
    struct json_pos vxlan_key;          /* The first vxlan option. */
    bool has_vxlan;
    bool has_n_rxq;
    struct json_pos n_rxq_key;
    bool has_rebalance;
    bool has_pcap;
    bool has_xdp_mode;
    bool has_interface, has_tag, has_trunks, has_members, has_bond_mode;
    bool has_vlan_mode;
    bool has_peer;
};

static const char *const top_keys[] = { "bridges", "other_config" };
static const char *const bridge_keys[] = {
    "name", "ports", "rules", "other_config", "mirrors",
};
static const char *const bridge_other_keys[] = { "forward-bpdu" };
static const char *const port_keys[] = {
    "name", "interface", "type", "create", "vlan_mode", "tag", "trunks",
    "members", "options",
};
static const char *const options_keys[] = {
    "n_rxq", "bond_mode", "peer", "bond-rebalance-interval", "xdp-mode",
    "pcap", "mac-limit", "remote_ip", "key", "local_ip", "dst_port", "ttl",
    "tos",
};
static const char *const rule_keys[] = {
    "priority", "match", "actions", "cookie",
};

static bool
parse_trunks(struct cfg_ctx *ctx, const json_t *v,
             const struct json_pos_node *node, struct config_port *port)
{
    bool seen[4096] = { false };

    if (!json_is_array(v)) {
        return fail_must_be(ctx, node, "\"trunks\"", "an array of VLAN IDs",
                            v);
    }
    port->n_trunks = json_array_size(v);
    port->trunks = xcalloc(port->n_trunks, sizeof *port->trunks);
    for (size_t i = 0; i < port->n_trunks; i++) {
        struct json_pos pos = json_pos_of(json_pos_elem(node, i));
        long long vid = 0;

        if (!check(ctx, pos,
                   config_check_int(json_array_get(v, i),
                                    "each entry of \"trunks\"", 1, 4094,
                                    &vid))) {
            return false;
        }
        if (seen[vid]) {
            return failf(ctx, pos, "VLAN %lld appears twice in \"trunks\"",
                         vid);
        }
        seen[vid] = true;
        port->trunks[i] = vid;
    }
    return true;
}

static bool
parse_members(struct cfg_ctx *ctx, const json_t *v,
              const struct json_pos_node *node, struct config_port *port,
              struct port_keys *keys)
{
    size_t n;

    if (!json_is_array(v)) {
        return fail_must_be(ctx, node, "\"members\"",
                            "an array of interface names", v);
    }
    n = json_array_size(v);
    if (n < 1 || n > BOND_MAX_MEMBERS) {
        return failf(ctx, json_pos_of(node), "\"members\" must list 1 to %d "
                     "interfaces, got %zu", BOND_MAX_MEMBERS, n);
    }
    port->members = xcalloc(n, sizeof *port->members);
    keys->member_values = xcalloc(n, sizeof *keys->member_values);
    for (size_t i = 0; i < n; i++) {
        struct json_pos pos = json_pos_of(json_pos_elem(node, i));
        const char *ifname = NULL;

        if (!check(ctx, pos,
                   config_check_ifname(json_array_get(v, i),
                                       "each entry of \"members\"",
                                       &ifname))) {
            return false;
        }
        port->members[i] = xstrdup(ifname);
        port->n_members++;
        keys->member_values[i] = pos;
    }
    return true;
}

static bool
parse_port_options(struct cfg_ctx *ctx, const json_t *v,
                   const struct json_pos_node *node, const char *port_label,
                   struct config_port *port, struct port_keys *keys)
{
    const struct json_pos_node *vnode;
    struct json_pos key_pos;
    const char *key;
    json_t *value;

    if (!json_is_object(v)) {
        return fail_must_be(ctx, node, "\"options\"", "an object", v);
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        struct json_pos pos = json_pos_of(vnode);

        if (!strcmp(key, "n_rxq")) {
            long long n = 0;

            if (!check(ctx, pos, config_check_int(value, "\"n_rxq\"", 1, 64,
                                                  &n))) {
                return false;
            }
            port->n_rxq = n;
            keys->has_n_rxq = true;
            keys->n_rxq_key = key_pos;
        } else if (config_vxlan_is_option(key)) {
            if (!port->vxlan) {
                port->vxlan = xmalloc(sizeof *port->vxlan);
                config_vxlan_init(port->vxlan);
            }
            if (!keys->has_vxlan) {
                keys->has_vxlan = true;
                keys->vxlan_key = key_pos;
            }
            if (!check(ctx, pos,
                       config_vxlan_parse_option(port->vxlan, key, value))) {
                return false;
            }
        } else if (!strcmp(key, "mac-limit")) {
            long long n = 0;

            if (!check(ctx, pos, config_check_int(value, "\"mac-limit\"", 0,
                                                  1000000, &n))) {
                return false;
            }
            port->mac_limit = n;
        } else if (!strcmp(key, "bond-rebalance-interval")) {
            long long ms = 0;

            if (!check(ctx, pos,
                       config_check_int(value, "\"bond-rebalance-interval\"",
                                        0, 10000, &ms))) {
                return false;
            }
            port->bond_rebalance_interval = ms;
            keys->has_rebalance = true;
            keys->rebalance_key = key_pos;
        } else if (!strcmp(key, "bond_mode")) {
            int mode = 0;

            if (!check(ctx, pos,
                       config_check_enum(value, "\"bond_mode\"",
                                         bond_mode_names,
                                         ARRAY_SIZE(bond_mode_names),
                                         &mode))) {
                return false;
            }
            port->bond_mode = xstrdup(bond_mode_names[mode]);
            keys->has_bond_mode = true;
            keys->bond_mode_key = key_pos;
        } else if (!strcmp(key, "peer")) {
            const char *peer = NULL;

            /* A veth peer is an interface name, a patch peer a port
             * name: check_port() checks the first. */
            if (!check(ctx, pos, config_check_name(value, "\"peer\"",
                                                   PORT_NAME_MAX_LEN,
                                                   &peer))) {
                return false;
            }
            free(port->peer);
            port->peer = xstrdup(peer);
            keys->has_peer = true;
            keys->peer_key = key_pos;
        } else if (!strcmp(key, "xdp-mode")) {
            int mode = 0;

            if (!check(ctx, pos,
                       config_check_enum(value, "\"xdp-mode\"",
                                         xdp_mode_names,
                                         ARRAY_SIZE(xdp_mode_names),
                                         &mode))) {
                return false;
            }
            free(port->xdp_mode);
            port->xdp_mode = xstrdup(xdp_mode_names[mode]);
            keys->has_xdp_mode = true;
            keys->xdp_mode_key = key_pos;
        } else if (!strcmp(key, "pcap")) {
            const char *path = NULL;

            if (!check(ctx, pos, config_check_string(value, "\"pcap\"",
                                                     &path))) {
                return false;
            }
            if (!path[0]) {
                return failf(ctx, pos, "\"pcap\" must name a file");
            }
            free(port->pcap);
            port->pcap = xstrdup(path);
            keys->has_pcap = true;
            keys->pcap_key = key_pos;
        } else {
            char *where = xasprintf("options of %s", port_label);
            bool ok = fail_unknown_key(ctx, key_pos, key, where, options_keys,
                                       ARRAY_SIZE(options_keys));
            free(where);
            return ok;
        }
    }
    return true;
}

/* Parses the member 'key' of a port. */
static bool
parse_port_member(struct cfg_ctx *ctx, const char *key, const json_t *value,
                  struct json_pos key_pos, const struct json_pos_node *vnode,
                  const char *label, struct config_port *port,
                  struct port_keys *keys)
{
    struct json_pos pos = json_pos_of(vnode);
    const char *s = NULL;
    long long n = 0;
    int idx = 0;

    if (!strcmp(key, "name")) {
        keys->name_value = pos;
        if (!check(ctx, pos, config_check_name(value, "\"name\"",
                                               PORT_NAME_MAX_LEN, &s))) {
            return false;
        }
        port->name = xstrdup(s);
    } else if (!strcmp(key, "interface")) {
        keys->has_interface = true;
        keys->interface_key = key_pos;
        keys->interface_value = pos;
        if (!check(ctx, pos, config_check_ifname(value, "\"interface\"",
                                                 &s))) {
            return false;
        }
        port->interface = xstrdup(s);
    } else if (!strcmp(key, "type")) {
        if (!check(ctx, pos, config_check_enum(value, "\"type\"",
                                               port_type_names,
                                               ARRAY_SIZE(port_type_names),
                                               &idx))) {
            return false;
        }
        port->type = idx;
#ifndef HAVE_AFXDP
        if (port->type == CONFIG_PORT_AFXDP) {
            return failf(ctx, pos, "%s: type afxdp: this build has no "
                         "AF_XDP support (configure found no libxdp)",
                         label);
        }
#endif
    } else if (!strcmp(key, "create")) {
        keys->create_key = key_pos;
        return check(ctx, pos, config_check_bool(value, "\"create\"",
                                                 &port->create));
    } else if (!strcmp(key, "vlan_mode")) {
        keys->has_vlan_mode = true;
        keys->vlan_mode_key = key_pos;
        if (!check(ctx, pos, config_check_enum(value, "\"vlan_mode\"",
                                               vlan_mode_names,
                                               ARRAY_SIZE(vlan_mode_names),
                                               &idx))) {
            return false;
        }
        port->vlan_mode = idx;
    } else if (!strcmp(key, "tag")) {
        keys->has_tag = true;
        keys->tag_key = key_pos;
        if (!check(ctx, pos, config_check_int(value, "\"tag\"", 1, 4094,
                                              &n))) {
            return false;
        }
        port->tag = n;
    } else if (!strcmp(key, "trunks")) {
        keys->has_trunks = true;
        keys->trunks_key = key_pos;
        return parse_trunks(ctx, value, vnode, port);
    } else if (!strcmp(key, "members")) {
        keys->has_members = true;
        keys->members_key = key_pos;
        return parse_members(ctx, value, vnode, port, keys);
    } else if (!strcmp(key, "options")) {
        return parse_port_options(ctx, value, vnode, label, port, keys);
    } else {
        return fail_unknown_key(ctx, key_pos, key, label, port_keys,
                                ARRAY_SIZE(port_keys));
    }
    return true;
}

/* Checks "vlan_mode", "tag" and "trunks" together and resolves the default
 * VLAN mode. */
static bool
check_port_vlans(struct cfg_ctx *ctx, struct config_port *port,
                 const struct port_keys *keys)
{
    const char *mode;

    if (!keys->has_vlan_mode) {
        if (keys->has_tag && keys->has_trunks) {
            return failf(ctx, (json_pos_before(keys->tag_key,
                                               keys->trunks_key)
                               ? keys->trunks_key : keys->tag_key),
                         "\"tag\" and \"trunks\" cannot both be set "
                         "without \"vlan_mode\": set it to "
                         "\"native-tagged\" or \"native-untagged\" for a "
                         "trunk with a native VLAN");
        }
        port->vlan_mode = keys->has_tag ? CONFIG_VLAN_ACCESS
                                        : CONFIG_VLAN_TRUNK;
        return true;
    }

    mode = config_vlan_mode_to_string(port->vlan_mode);
    switch (port->vlan_mode) {
    case CONFIG_VLAN_ACCESS:
        if (!keys->has_tag) {
            return failf(ctx, keys->vlan_mode_key, "\"vlan_mode\": "
                         "\"access\" needs a \"tag\" (the VLAN of the "
                         "port)");
        }
        if (keys->has_trunks) {
            return failf(ctx, keys->trunks_key, "\"trunks\" is not "
                         "allowed with \"vlan_mode\": \"access\": an "
                         "access port carries only its \"tag\" VLAN");
        }
        break;
    case CONFIG_VLAN_TRUNK:
        if (keys->has_tag) {
            return failf(ctx, keys->tag_key, "\"tag\" is not allowed with "
                         "\"vlan_mode\": \"trunk\": a trunk has no VLAN of "
                         "its own; use \"native-tagged\" or "
                         "\"native-untagged\" to give it a native VLAN");
        }
        break;
    case CONFIG_VLAN_NATIVE_TAGGED:
    case CONFIG_VLAN_NATIVE_UNTAGGED:
        if (!keys->has_tag) {
            return failf(ctx, keys->vlan_mode_key, "\"vlan_mode\": "
                         "\"%s\" needs a \"tag\" (the native VLAN)",
                         mode);
        }
        break;
    }
    return true;
}

/* Checks the rules that involve a bond's keys together. */
static bool
check_bond_port(struct cfg_ctx *ctx, const char *label,
                struct config_port *port, const struct port_keys *keys)
{
    if (keys->has_interface) {
        return failf(ctx, keys->interface_key, "\"interface\" is not allowed "
                     "on ports of type \"bond\"; list the member interfaces "
                     "in \"members\"");
    }
    if (!keys->has_members) {
        return failf(ctx, keys->object, "%s is missing required key "
                     "\"members\" (ports of type \"bond\" need it)", label);
    }
    if (!port->bond_mode) {
        port->bond_mode = xstrdup(bond_mode_names[0]);
    }
    for (size_t i = 0; i < port->n_members; i++) {
        if (!claim_interface(ctx, port->members[i], port->name,
                             keys->member_values[i])) {
            return false;
        }
    }
    return true;
}

/* Checks a patch port's keys; its peer is checked once every bridge is
 * parsed (config_check_patch_ports()). */
static bool
check_patch_port(struct cfg_ctx *ctx, const char *label,
                 struct config_port *port, const struct port_keys *keys)
{
    if (keys->has_interface) {
        return failf(ctx, keys->interface_key, "\"interface\" is not allowed "
                     "on ports of type \"patch\"; a patch port has no kernel "
                     "interface");
    }
    if (keys->has_members || keys->has_bond_mode || keys->has_rebalance) {
        return failf(ctx, keys->object, "%s: bond settings are only allowed "
                     "on ports of type \"bond\"", label);
    }
    if (!keys->has_peer) {
        return failf(ctx, keys->object, "%s is missing \"peer\" in "
                     "\"options\" (ports of type \"patch\" need it: the "
                     "patch port on the other bridge)", label);
    }
    return true;
}

/* True if no vxlan port claimed yet receives on the address and port of
 * 'vx' through the any-address (or, for 'vx' on the any-address, through
 * any address): the kernel gives one socket each datagram.  Else stores
 * where that port is in '*first'. */
static bool
vxlan_socket_free(const struct cfg_ctx *ctx,
                  const struct netdev_vxlan_options *vx,
                  struct json_pos *first)
{
    char suffix[16];
    const char *key;
    json_t *value;

    snprintf(suffix, sizeof suffix, ":%d", vx->dst_port);
    json_object_foreach (ctx->vxlan_sockets, key, value) {
        size_t len = strlen(key), slen = strlen(suffix);

        if (len > slen && !strcmp(key + len - slen, suffix)
            && (vx->local_ip.s_addr == htonl(INADDR_ANY)
                || !strncmp(key, "0.0.0.0:", 8))) {
            first->line = json_integer_value(json_array_get(value, 0));
            first->column = json_integer_value(json_array_get(value, 1));
            return false;
        }
    }
    return true;
}

/* Checks a vxlan port's keys: it has no kernel interface of its own, and
 * no two vxlan ports share a local address and UDP port, since one socket
 * receives for the address and port. */
static bool
check_vxlan_port(struct cfg_ctx *ctx, const char *label,
                 struct config_port *port, const struct port_keys *keys)
{
    char sock[INET_ADDRSTRLEN + 8];
    char addr[INET_ADDRSTRLEN];
    struct json_pos first;

    if (keys->has_interface) {
        return failf(ctx, keys->interface_key, "\"interface\" is not allowed "
                     "on ports of type \"vxlan\"; a vxlan port has no kernel "
                     "interface (it sends through the kernel's UDP stack)");
    }
    if (keys->has_members || keys->has_bond_mode || keys->has_rebalance) {
        return failf(ctx, keys->object, "%s: bond settings are only allowed "
                     "on ports of type \"bond\"", label);
    }
    if (keys->has_n_rxq && port->n_rxq != 1) {
        return failf(ctx, keys->n_rxq_key, "\"n_rxq\" of a vxlan port must "
                     "be 1: one socket receives for the port");
    }
    if (!port->vxlan) {
        port->vxlan = xmalloc(sizeof *port->vxlan);
        config_vxlan_init(port->vxlan);
    }
    if (!check(ctx, keys->has_vxlan ? keys->vxlan_key : keys->object,
               config_vxlan_check(port->vxlan))) {
        return false;
    }
    inet_ntop(AF_INET, &port->vxlan->local_ip, addr, sizeof addr);
    snprintf(sock, sizeof sock, "%s:%d", addr, port->vxlan->dst_port);
    if (!vxlan_socket_free(ctx, port->vxlan, &first)
        || !claim_name(ctx->vxlan_sockets, sock, keys->object, &first)) {
        return failf(ctx, keys->object, "%s: another vxlan port (at %d:%d) "
                     "already receives on local_ip %s, dst_port %d; give "
                     "one of them another \"dst_port\" or \"local_ip\", "
                     "or use one port with \"key\": \"flow\"", label,
                     first.line, first.column, addr, port->vxlan->dst_port);
    }
    port->interface = xstrdup(port->name);
    return true;
}

/* Checks the rules that involve a non-bond port's keys together. */
static bool
check_plain_port(struct cfg_ctx *ctx, struct config_port *port,
                 const struct port_keys *keys)
{
    struct json_pos if_pos = keys->interface_value;

    if (keys->has_members) {
        return failf(ctx, keys->members_key, "\"members\" is only allowed on "
                     "ports of type \"bond\"");
    }
    if (keys->has_bond_mode) {
        return failf(ctx, keys->bond_mode_key, "\"bond_mode\" is only "
                     "allowed on ports of type \"bond\"");
    }
    if (keys->has_rebalance) {
        return failf(ctx, keys->rebalance_key, "\"bond-rebalance-interval\" "
                     "is only allowed on ports of type \"bond\"");
    }
    if (!port->interface) {
        if (!config_check_is_valid_ifname(port->name)) {
            char *q = config_check_quote(port->name);
            bool ok = failf(ctx, keys->name_value, "port name %s is not a "
                            "valid interface name; set \"interface\" to the "
                            "kernel interface", q);
            free(q);
            return ok;
        }
        port->interface = xstrdup(port->name);
        if_pos = keys->name_value;
    }
    return claim_interface(ctx, port->interface, port->name, if_pos);
}

static bool
check_port(struct cfg_ctx *ctx, const char *label, struct config_port *port,
           const struct port_keys *keys)
{
    struct json_pos first;

    if (!port->name) {
        return failf(ctx, keys->object, "%s is missing required key "
                     "\"name\"", label);
    }
    if (!claim_name(ctx->port_names, port->name, keys->name_value, &first)) {
        char *q = config_check_quote(port->name);
        bool ok = failf(ctx, keys->name_value, "duplicate port name %s "
                        "(first defined at %d:%d)", q, first.line,
                        first.column);
        free(q);
        return ok;
    }
    if (port->create && port->type == CONFIG_PORT_BOND) {
        return failf(ctx, keys->create_key, "\"create\": true is not "
                     "allowed on ports of type \"bond\"; create the "
                     "member interfaces instead");
    }
    if (port->create && port->type == CONFIG_PORT_AFXDP) {
        return failf(ctx, keys->create_key, "\"create\": true is not "
                     "allowed on ports of type \"afxdp\"; AF_XDP attaches "
                     "to an existing interface");
    }
    if (port->create && port->type == CONFIG_PORT_DUMMY) {
        return failf(ctx, keys->create_key, "\"create\": true is not "
                     "allowed on ports of type \"dummy\"; a dummy port has "
                     "no kernel interface");
    }
    if (keys->has_pcap && port->type != CONFIG_PORT_DUMMY) {
        return failf(ctx, keys->pcap_key, "\"pcap\" is only allowed on "
                     "ports of type \"dummy\"");
    }
    if (keys->has_xdp_mode && port->type != CONFIG_PORT_AFXDP) {
        return failf(ctx, keys->xdp_mode_key, "\"xdp-mode\" is only "
                     "allowed on ports of type \"afxdp\"");
    }
    if (port->type == CONFIG_PORT_AFXDP && !port->xdp_mode) {
        port->xdp_mode = xstrdup(xdp_mode_names[0]);
    }
    if (port->create && port->type == CONFIG_PORT_PATCH) {
        return failf(ctx, keys->create_key, "\"create\": true is not "
                     "allowed on ports of type \"patch\"; a patch port has "
                     "no kernel interface");
    }
    if (port->create && port->type == CONFIG_PORT_VXLAN) {
        return failf(ctx, keys->create_key, "\"create\" is not allowed on "
                     "ports of type \"vxlan\"; a vxlan port has no kernel "
                     "interface");
    }
    if (port->create && port->type == CONFIG_PORT_INTERNAL) {
        return failf(ctx, keys->create_key, "\"create\" is not allowed on "
                     "ports of type \"internal\"; pmdswitchd always creates "
                     "their interface");
    }
    if (keys->has_peer && port->type != CONFIG_PORT_PATCH
        && (!port->create || port->type != CONFIG_PORT_SYSTEM)) {
        return failf(ctx, keys->peer_key, "\"peer\" is only allowed on "
                     "ports of type \"patch\", and of type \"system\" with "
                     "\"create\": true");
    }
    if (keys->has_peer && port->type == CONFIG_PORT_SYSTEM
        && !config_check_is_valid_ifname(port->peer)) {
        return failf(ctx, keys->peer_key, "\"peer\" of a veth must be a "
                     "valid interface name (1 to 15 characters, no '/', "
                     "':' or spaces)");
    }
    if (!check_port_vlans(ctx, port, keys)) {
        return false;
    }
    if (port->type == CONFIG_PORT_BOND) {
        return check_bond_port(ctx, label, port, keys);
    }
    if (port->type == CONFIG_PORT_PATCH) {
        return check_patch_port(ctx, label, port, keys);
    }
    if (keys->has_vxlan && port->type != CONFIG_PORT_VXLAN) {
        return failf(ctx, keys->vxlan_key, "\"remote_ip\", \"key\", "
                     "\"local_ip\", \"dst_port\", \"ttl\" and \"tos\" are "
                     "only allowed on ports of type \"vxlan\"");
    }
    if (port->type == CONFIG_PORT_VXLAN) {
        return check_vxlan_port(ctx, label, port, keys);
    }
    if (!check_plain_port(ctx, port, keys)) {
        return false;
    }
    if (port->create && port->type == CONFIG_PORT_SYSTEM && !port->peer) {
        char *peer = config_port_peer(port);
        bool ok = true;

        if (!config_check_is_valid_ifname(peer)) {
            ok = failf(ctx, keys->create_key, "the default veth peer name "
                       "\"%s\" is too long; set \"peer\" in \"options\"",
                       peer);
        }
        free(peer);
        return ok;
    }
    return true;
}

/* Parses port number 'idx' of the bridge described by 'bridge_label'. */
static bool
parse_port(struct cfg_ctx *ctx, const json_t *v,
           const struct json_pos_node *node, size_t idx,
           const char *bridge_label, struct config_port *port)
{
    struct port_keys keys = { .object = json_pos_of(node) };
    const struct json_pos_node *vnode;
    const json_t *name, *value;
    struct json_pos key_pos;
    const char *key;
    char *label;
    bool ok = true;

    if (!json_is_object(v)) {
        return fail_must_be(ctx, node, "each entry of \"ports\"",
                            "an object", v);
    }
    port->n_rxq = 1;
    port->bond_rebalance_interval = -1;
    port->line = keys.object.line;
    port->column = keys.object.column;

    name = json_object_get(v, "name");
    if (json_is_string(name)) {
        char *q = config_check_quote(json_string_value(name));
        label = xasprintf("port %s", q);
        free(q);
    } else {
        label = xasprintf("port #%zu of %s", idx + 1, bridge_label);
    }

    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        ok = parse_port_member(ctx, key, value, key_pos, vnode, label, port,
                               &keys);
        if (!ok) {
            break;
        }
    }
    ok = ok && check_port(ctx, label, port, &keys);
    free(keys.member_values);
    free(label);
    return ok;
}

static bool
parse_ports(struct cfg_ctx *ctx, const json_t *v,
            const struct json_pos_node *node, const char *bridge_label,
            struct config_bridge *bridge)
{
    if (!json_is_array(v)) {
        return fail_must_be(ctx, node, "\"ports\"",
                            "an array of port objects", v);
    }
    bridge->n_ports = json_array_size(v);
    bridge->ports = xcalloc(bridge->n_ports, sizeof *bridge->ports);
    for (size_t i = 0; i < bridge->n_ports; i++) {
        if (!parse_port(ctx, json_array_get(v, i), json_pos_elem(node, i), i,
                        bridge_label, &bridge->ports[i])) {
            return false;
        }
    }
    return true;
}

static bool
parse_rule(struct cfg_ctx *ctx, const json_t *v,
           const struct json_pos_node *node, size_t idx,
           const char *bridge_label, struct config_rule *rule)
{
    const struct json_pos_node *vnode;
    struct json_pos key_pos;
    const json_t *value;
    const char *key;
    char *label;
    bool ok = true;

    if (!json_is_object(v)) {
        return fail_must_be(ctx, node, "each entry of \"rules\"",
                            "an object", v);
    }
    rule->priority = 32768;
    rule->line = json_pos_of(node).line;
    rule->column = json_pos_of(node).column;

    label = xasprintf("rule #%zu of %s", idx + 1, bridge_label);
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        struct json_pos pos = json_pos_of(vnode);
        const char *s = NULL;
        long long n = 0;

        if (!strcmp(key, "priority")) {
            ok = check(ctx, pos, config_check_int(value, "\"priority\"", 0,
                                                  65535, &n));
            rule->priority = n;
        } else if (!strcmp(key, "match")) {
            ok = check(ctx, pos, config_check_string(value, "\"match\"", &s));
            if (ok) {
                free(rule->match);
                rule->match = xstrdup(s);
            }
        } else if (!strcmp(key, "actions")) {
            ok = check(ctx, pos,
                       (json_is_string(value) && json_string_length(value)
                        ? config_check_string(value, "\"actions\"", &s)
                        : config_check_must_be("\"actions\"",
                                               "a non-empty string", value)));
            if (ok) {
                rule->actions = xstrdup(s);
            }
        } else if (!strcmp(key, "cookie")) {
            ok = check(ctx, pos, config_check_cookie(value, "\"cookie\"",
                                                     &rule->cookie));
        } else {
            ok = fail_unknown_key(ctx, key_pos, key, label, rule_keys,
                                  ARRAY_SIZE(rule_keys));
        }
        if (!ok) {
            break;
        }
    }
    if (ok && !rule->actions) {
        ok = failf(ctx, json_pos_of(node), "%s is missing required key "
                   "\"actions\"", label);
    }
    if (ok && !rule->match) {
        rule->match = xstrdup("");
    }
    free(label);
    return ok;
}

static bool
parse_rules(struct cfg_ctx *ctx, const json_t *v,
            const struct json_pos_node *node, const char *bridge_label,
            struct config_bridge *bridge)
{
    if (!json_is_array(v)) {
        return fail_must_be(ctx, node, "\"rules\"",
                            "an array of rule objects", v);
    }
    bridge->n_rules = json_array_size(v);
    bridge->rules = xcalloc(bridge->n_rules, sizeof *bridge->rules);
    for (size_t i = 0; i < bridge->n_rules; i++) {
        if (!parse_rule(ctx, json_array_get(v, i), json_pos_elem(node, i), i,
                        bridge_label, &bridge->rules[i])) {
            return false;
        }
    }
    return true;
}

/* Parses the member 'key' of a bridge. */
/* A bridge's "other_config": settings of that bridge alone, named as in
 * Open vSwitch's Bridge table. */
static bool
parse_bridge_other(struct cfg_ctx *ctx, const json_t *v,
                   const struct json_pos_node *node, const char *label,
                   struct config_bridge *bridge)
{
    const struct json_pos_node *vnode;
    struct json_pos key_pos;
    const json_t *value;
    const char *key;
    char *where;
    bool ok = true;

    if (!json_is_object(v)) {
        where = xasprintf("\"other_config\" of %s", label);
        ok = fail_must_be(ctx, node, where, "an object", v);
        free(where);
        return ok;
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        if (!strcmp(key, "forward-bpdu")) {
            ok = check(ctx, json_pos_of(vnode),
                       config_check_bool(value, "\"forward-bpdu\"",
                                         &bridge->forward_bpdu));
        } else {
            where = xasprintf("the other_config of %s", label);
            ok = fail_unknown_key(ctx, key_pos, key, where,
                                  bridge_other_keys,
                                  ARRAY_SIZE(bridge_other_keys));
            free(where);
        }
        if (!ok) {
            break;
        }
    }
    return ok;
}

static bool
parse_bridge_member(struct cfg_ctx *ctx, const char *key,
                    const json_t *value, struct json_pos key_pos,
                    const struct json_pos_node *vnode, const char *label,
                    struct config_bridge *bridge)
{
    struct json_pos pos = json_pos_of(vnode);
    struct json_pos first;
    const char *s = NULL;

    if (!strcmp(key, "name")) {
        if (!check(ctx, pos, config_check_name(value, "\"name\"",
                                               BRIDGE_NAME_MAX_LEN, &s))) {
            return false;
        }
        if (!claim_name(ctx->bridge_names, s, pos, &first)) {
            char *q = config_check_quote(s);
            bool ok = failf(ctx, pos, "duplicate bridge name %s (first "
                            "defined at %d:%d)", q, first.line,
                            first.column);
            free(q);
            return ok;
        }
        bridge->name = xstrdup(s);
        return true;
    } else if (!strcmp(key, "ports")) {
        return parse_ports(ctx, value, vnode, label, bridge);
    } else if (!strcmp(key, "rules")) {
        return parse_rules(ctx, value, vnode, label, bridge);
    } else if (!strcmp(key, "other_config")) {
        return parse_bridge_other(ctx, value, vnode, label, bridge);
    } else if (!strcmp(key, "mirrors")) {
        char *msg = config_mirrors_parse(value, vnode, label, bridge, &first);

        return msg ? fail(ctx, first, msg) : true;
    }
    return fail_unknown_key(ctx, key_pos, key, label, bridge_keys,
                            ARRAY_SIZE(bridge_keys));
}

static bool
parse_bridge(struct cfg_ctx *ctx, const json_t *v,
             const struct json_pos_node *node, size_t idx,
             struct config_bridge *bridge)
{
    const struct json_pos_node *vnode;
    const json_t *name, *value;
    struct json_pos key_pos;
    const char *key;
    char *label;
    bool ok = true;

    if (!json_is_object(v)) {
        return fail_must_be(ctx, node, "each entry of \"bridges\"",
                            "an object", v);
    }

    name = json_object_get(v, "name");
    if (json_is_string(name)) {
        char *q = config_check_quote(json_string_value(name));
        label = xasprintf("bridge %s", q);
        free(q);
    } else {
        label = xasprintf("bridge #%zu", idx + 1);
    }

    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        ok = parse_bridge_member(ctx, key, value, key_pos, vnode, label,
                                 bridge);
        if (!ok) {
            break;
        }
    }
    if (ok && !bridge->name) {
        ok = failf(ctx, json_pos_of(node), "%s is missing required key "
                   "\"name\"", label);
    }
    if (ok && bridge->n_mirrors) {
        struct json_pos pos;
        char *msg = config_mirrors_check(bridge, &pos);

        ok = msg ? fail(ctx, pos, msg) : true;
    }
    free(label);
    return ok;
}

static bool
parse_bridges(struct cfg_ctx *ctx, const json_t *v,
              const struct json_pos_node *node, struct pmd_config *config)
{
    if (!json_is_array(v)) {
        return fail_must_be(ctx, node, "\"bridges\"",
                            "an array of bridge objects", v);
    }
    config->n_bridges = json_array_size(v);
    config->bridges = xcalloc(config->n_bridges, sizeof *config->bridges);
    for (size_t i = 0; i < config->n_bridges; i++) {
        if (!parse_bridge(ctx, json_array_get(v, i), json_pos_elem(node, i),
                          i, &config->bridges[i])) {
            return false;
        }
    }
    return true;
}

static bool
parse_other(struct cfg_ctx *ctx, const json_t *v,
            const struct json_pos_node *node, struct config_other *other)
{
    const struct json_pos_node *vnode;
    struct json_pos key_pos;
    const json_t *value;
    const char *key;

    if (!json_is_object(v)) {
        return fail_must_be(ctx, node, "\"other_config\"", "an object", v);
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        enum config_other_key k = config_other_key_from_name(key);

        if (k == CONFIG_OTHER_N_KEYS) {
            char *known = config_other_known_keys();
            char *q = config_check_quote(key);
            bool ok = failf(ctx, key_pos, "unknown key %s in other_config "
                            "(known keys: %s)", q, known);
            free(q);
            free(known);
            return ok;
        }
        if (!check(ctx, json_pos_of(vnode),
                   config_other_set_json(other, k, value))) {
            return false;
        }
    }
    return true;
}

static bool
parse_top(struct cfg_ctx *ctx, const json_t *root,
          const struct json_pos_node *node, struct pmd_config *config)
{
    const struct json_pos_node *vnode;
    bool has_bridges = false;
    struct json_pos key_pos;
    const json_t *value;
    const char *key;

    if (!json_is_object(root)) {
        return fail_must_be(ctx, node, "the configuration", "a JSON object",
                            root);
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, root, node) {
        bool ok;

        if (!strcmp(key, "bridges")) {
            has_bridges = true;
            ok = parse_bridges(ctx, value, vnode, config);
        } else if (!strcmp(key, "other_config")) {
            ok = parse_other(ctx, value, vnode, &config->other);
        } else {
            ok = fail_unknown_key(ctx, key_pos, key, "the configuration",
                                  top_keys, ARRAY_SIZE(top_keys));
        }
        if (!ok) {
            return false;
        }
    }
    if (!has_bridges) {
        return failf(ctx, json_pos_of(node), "the configuration is missing "
                     "required key \"bridges\"");
    }
    return true;
}

struct pmd_config *
config_schema_parse(const json_t *root, const struct json_pos_node *root_pos,
                    const char *name, char **errp)
{
    struct cfg_ctx ctx = { .name = name };
    struct pmd_config *config;

    ctx.bridge_names = json_object();
    ctx.port_names = json_object();
    ctx.interfaces = json_object();
    ctx.vxlan_sockets = json_object();
    config = xzalloc(sizeof *config);
    config_other_init(&config->other);
    if (parse_top(&ctx, root, root_pos, config)) {
        const struct config_port *bad = NULL;
        char *msg = config_check_patch_ports(config, &bad);

        if (msg) {
            fail(&ctx, (struct json_pos) { bad->line, bad->column }, msg);
        }
    }
    if (ctx.error) {
        config_destroy(config);
        config = NULL;
    }
    json_decref(ctx.bridge_names);
    json_decref(ctx.port_names);
    json_decref(ctx.interfaces);
    json_decref(ctx.vxlan_sockets);
    *errp = ctx.error;
    return config;
}
