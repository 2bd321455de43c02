/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Datapath actions as text and JSON; see dp-actions-format.h.
 */
#include <autoconf.h>
#include "packet/dp-actions-format.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "base/ds.h"
#include "packet/packets.h"
#include "base/util.h"

uint8_t
dp_actions_nw_proto(const struct flow *flow)
{
    return (flow->dl_type == htons(ETH_TYPE_IP)
            || flow->dl_type == htons(ETH_TYPE_IPV6) ? flow->nw_proto : 0);
}

/* The header name of a port rewrite in a flow of protocol 'nw_proto'. */
static const char *
tp_name__(uint8_t nw_proto)
{
    switch (nw_proto) {
    case IP_PROTO_TCP:
        return "tcp";
    case IP_PROTO_UDP:
        return "udp";
    case IP_PROTO_SCTP:
        return "sctp";
    default:
        return "tp";
    }
}

/* The TCI fields, each set in a mask either whole or not at all. */
static const struct {
    const char *name;
    uint16_t mask;
    int shift;
} tci_fields[] = {
    { "vid", VLAN_VID_MASK, 0 },
    { "pcp", VLAN_PCP_MASK, VLAN_PCP_SHIFT },
    { "cfi", VLAN_CFI, 12 },
};

/* Returns true if 'mask' (host order) is a union of whole TCI fields. */
static bool
tci_mask_by_fields__(uint16_t mask)
{
    uint16_t covered = 0;

    for (size_t i = 0; i < ARRAY_SIZE(tci_fields); i++) {
        if (mask & tci_fields[i].mask) {
            covered |= tci_fields[i].mask;
        }
    }
    return mask && covered == mask;
}

static void
format_set_vlan__(struct ds *t, uint16_t tci, uint16_t mask)
{
    if (!tci_mask_by_fields__(mask)) {
        ds_put_format(t, "set(vlan(tci=0x%04x/0x%04x))", tci & mask, mask);
        return;
    }
    ds_put_format(t, "set(vlan(");
    for (size_t i = 0, n = 0; i < ARRAY_SIZE(tci_fields); i++) {
        if (mask & tci_fields[i].mask) {
            ds_put_format(t, "%s%s=%u", n++ ? "," : "", tci_fields[i].name,
                          (unsigned) (tci & tci_fields[i].mask)
                          >> tci_fields[i].shift);
        }
    }
    ds_put_format(t, "))");
}

/* Formats port 'port' by name if 'port_name' knows it, else by number. */
static void
format_port__(struct ds *t, uint16_t port,
              dp_actions_port_name_func *port_name, void *aux)
{
    const char *name = port_name ? port_name(port, aux) : NULL;

    if (name) {
        ds_put_format(t, "%s", name);
    } else {
        ds_put_format(t, "%u", port);
    }
}

static void
format_action__(struct ds *t, const struct dp_action *a,
                uint8_t nw_proto, dp_actions_port_name_func *port_name, void *aux)
{
    char ip[INET_ADDRSTRLEN];
    const char *name;
    uint16_t tci;

    switch ((enum dp_action_type) a->type) {
    case DP_ACTION_OUTPUT:
        name = port_name ? port_name(a->port, aux) : NULL;
        if (name) {
            ds_put_format(t, "%s", name);
        } else {
            ds_put_format(t, "%u", a->port);
        }
        return;
    case DP_ACTION_PUSH_VLAN:
        tci = ntohs(a->vlan.tci);
        ds_put_format(t, "push_vlan(");
        if (a->vlan.tpid != htons(ETH_TYPE_VLAN_8021Q)) {
            ds_put_format(t, "tpid=0x%04x,", ntohs(a->vlan.tpid));
        }
        ds_put_format(t, "vid=%u,pcp=%u%s)", tci & VLAN_VID_MASK,
                      tci >> VLAN_PCP_SHIFT, tci & VLAN_CFI ? "" : ",cfi=0");
        return;
    case DP_ACTION_POP_VLAN:
        ds_put_format(t, "pop_vlan");
        return;
    case DP_ACTION_SET_VLAN_TCI:
        format_set_vlan__(t, ntohs(a->vlan.tci), ntohs(a->vlan.tci_mask));
        return;
    case DP_ACTION_SET_ETH_SRC:
    case DP_ACTION_SET_ETH_DST:
        ds_put_format(t, "set(eth(%s="ETH_ADDR_FMT"))",
                      a->type == DP_ACTION_SET_ETH_SRC ? "src" : "dst",
                      ETH_ADDR_ARGS(a->mac));
        return;
    case DP_ACTION_SET_IPV4_SRC:
    case DP_ACTION_SET_IPV4_DST:
        inet_ntop(AF_INET, &a->ipv4, ip, sizeof ip);
        ds_put_format(t, "set(ipv4(%s=%s))",
                      a->type == DP_ACTION_SET_IPV4_SRC ? "src" : "dst", ip);
        return;
    case DP_ACTION_SET_TP_SRC:
    case DP_ACTION_SET_TP_DST:
        ds_put_format(t, "set(%s(%s=%u))", tp_name__(nw_proto),
                      a->type == DP_ACTION_SET_TP_SRC ? "src" : "dst",
                      ntohs(a->tp_port));
        return;
    case DP_ACTION_SET_TUN_ID:
        ds_put_format(t, "set(tunnel(tun_id=0x%"PRIx32"))", a->tun_id);
        return;
    case DP_ACTION_PATCH:
        ds_put_format(t, "patch(");
        format_port__(t, a->port, port_name, aux);
        ds_put_format(t, ",");
        format_port__(t, a->patch.peer, port_name, aux);
        ds_put_format(t, ")");
        return;
    case DP_ACTION_BOND_OUTPUT:
        if (a->hash) {
            ds_put_format(t, "lb_output(%u,hash=0x%08x)", a->port, a->hash);
        } else {
            ds_put_format(t, "lb_output(%u)", a->port);
        }
        return;
    }
    ds_put_format(t, "unknown(%u)", a->type);
}

/* Formats the 'n' actions of 'actions', a patch crossing that runs on a
 * copy as "clone(patch(X,Y),...)". */
static void
format_actions__(struct ds *t, const struct dp_action *actions, uint32_t n,
                 uint8_t nw_proto, dp_actions_port_name_func *port_name,
                 void *aux)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct dp_action *a = &actions[i];

        if (i) {
            ds_put_format(t, ",");
        }
        if (a->type == DP_ACTION_PATCH && a->patch.n_nested) {
            uint32_t n_nested = MIN(a->patch.n_nested, n - i - 1);

            ds_put_format(t, "clone(");
            format_action__(t, a, nw_proto, port_name, aux);
            ds_put_format(t, ",");
            format_actions__(t, a + 1, n_nested, nw_proto, port_name, aux);
            ds_put_format(t, ")");
            i += n_nested;
        } else {
            format_action__(t, a, nw_proto, port_name, aux);
        }
    }
}

char *
dp_actions_format(const struct dp_action *actions, uint32_t n_actions,
                   uint8_t nw_proto, dp_actions_port_name_func *port_name, void *aux)
{
    struct ds t = DS_EMPTY_INITIALIZER;

    if (!n_actions) {
        return xstrdup("drop");
    }
    format_actions__(&t, actions, n_actions, nw_proto, port_name, aux);
    return ds_steal_cstr(&t);
}

/* Returns {"set": {'key': {'field': 'value'}}}, taking ownership of
 * 'value'. */
static json_t *
json_set__(const char *key, const char *field, json_t *value)
{
    return json_pack("{s:{s:{s:o}}}", "set", key, field, value);
}

static json_t *
set_vlan_json__(uint16_t tci, uint16_t mask)
{
    json_t *fields = json_object();

    if (!tci_mask_by_fields__(mask)) {
        json_object_set_new(fields, "tci", json_integer(tci & mask));
        json_object_set_new(fields, "mask", json_integer(mask));
    } else {
        for (size_t i = 0; i < ARRAY_SIZE(tci_fields); i++) {
            if (mask & tci_fields[i].mask) {
                json_object_set_new(
                    fields, tci_fields[i].name,
                    json_integer((tci & tci_fields[i].mask)
                                 >> tci_fields[i].shift));
            }
        }
    }
    return json_pack("{s:{s:o}}", "set", "vlan", fields);
}

static json_t *
action_json__(const struct dp_action *a, uint8_t nw_proto)
{
    char ip[INET_ADDRSTRLEN];
    char mac[32];
    uint16_t tci;

    switch ((enum dp_action_type) a->type) {
    case DP_ACTION_OUTPUT:
        return json_pack("{s:i}", "output", a->port);
    case DP_ACTION_PUSH_VLAN:
        tci = ntohs(a->vlan.tci);
        if (tci & VLAN_CFI) {
            return json_pack("{s:{s:i, s:i, s:i}}", "push_vlan",
                             "vid", tci & VLAN_VID_MASK,
                             "pcp", tci >> VLAN_PCP_SHIFT,
                             "tpid", ntohs(a->vlan.tpid));
        }
        return json_pack("{s:{s:i, s:i, s:i, s:i}}", "push_vlan",
                         "vid", tci & VLAN_VID_MASK,
                         "pcp", tci >> VLAN_PCP_SHIFT,
                         "tpid", ntohs(a->vlan.tpid), "cfi", 0);
    case DP_ACTION_POP_VLAN:
        return json_pack("{s:{}}", "pop_vlan");
    case DP_ACTION_SET_VLAN_TCI:
        return set_vlan_json__(ntohs(a->vlan.tci), ntohs(a->vlan.tci_mask));
    case DP_ACTION_SET_ETH_SRC:
    case DP_ACTION_SET_ETH_DST:
        snprintf(mac, sizeof mac, ETH_ADDR_FMT, ETH_ADDR_ARGS(a->mac));
        return json_set__("eth",
                          a->type == DP_ACTION_SET_ETH_SRC ? "src" : "dst",
                          json_string(mac));
    case DP_ACTION_SET_IPV4_SRC:
    case DP_ACTION_SET_IPV4_DST:
        inet_ntop(AF_INET, &a->ipv4, ip, sizeof ip);
        return json_set__("ipv4",
                          a->type == DP_ACTION_SET_IPV4_SRC ? "src" : "dst",
                          json_string(ip));
    case DP_ACTION_SET_TP_SRC:
    case DP_ACTION_SET_TP_DST:
        return json_set__(tp_name__(nw_proto),
                          a->type == DP_ACTION_SET_TP_SRC ? "src" : "dst",
                          json_integer(ntohs(a->tp_port)));
    case DP_ACTION_SET_TUN_ID:
        return json_set__("tunnel", "tun_id", json_integer(a->tun_id));
    case DP_ACTION_BOND_OUTPUT:
        return json_pack("{s:{s:i, s:I}}", "lb_output", "port", a->port,
                         "hash", (json_int_t) a->hash);
    case DP_ACTION_PATCH:
        return json_pack("{s:{s:i, s:i}}", "patch", "port", a->port,
                         "peer", a->patch.peer);
    }
    return json_pack("{s:i}", "unknown", a->type);
}

/* The 'n' actions of 'actions' as a JSON array; a patch crossing that
 * runs on a copy is {"clone": [{"patch": ...}, ...]}. */
static json_t *
actions_json__(const struct dp_action *actions, uint32_t n,
               uint8_t nw_proto)
{
    json_t *array = json_array();

    for (uint32_t i = 0; i < n; i++) {
        const struct dp_action *a = &actions[i];

        if (a->type == DP_ACTION_PATCH && a->patch.n_nested) {
            uint32_t n_nested = MIN(a->patch.n_nested, n - i - 1);
            json_t *nested = actions_json__(a + 1, n_nested, nw_proto);

            json_array_insert_new(nested, 0, action_json__(a, nw_proto));
            json_array_append_new(array, json_pack("{s:o}", "clone",
                                                   nested));
            i += n_nested;
        } else {
            json_array_append_new(array, action_json__(a, nw_proto));
        }
    }
    return array;
}

json_t *
dp_actions_to_json(const struct dp_action *actions, uint32_t n_actions,
                    uint8_t nw_proto)
{
    bool outputs_only = true;
    json_t *array;

    for (uint32_t i = 0; i < n_actions; i++) {
        if (actions[i].type != DP_ACTION_OUTPUT) {
            outputs_only = false;
        }
    }
    if (!outputs_only) {
        return actions_json__(actions, n_actions, nw_proto);
    }
    array = json_array();
    for (uint32_t i = 0; i < n_actions; i++) {
        json_array_append_new(array, json_integer(actions[i].port));
    }
    return array;
}
