/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Helpers shared by the unit tests of the bridge, translation and upcalls
 * (tests/test-ofproto.c, tests/test-xlate.c, tests/test-upcall.c): test
 * MACs, a packet's flow key, the action and output checks, and bridges
 * with plain ports, VLAN ports or a bond.  Header-only, like check.h, so
 * that the checks the helpers make count in the program that includes it;
 * include it once, after check.h.
 */
#ifndef TESTS_OFPROTO_TEST_H
#define TESTS_OFPROTO_TEST_H 1

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "ofproto/bond.h"
#include "ofproto/ofproto.h"
#include "ofproto/xlate.h"
#include "packet/dp-actions.h"
#include "packet/flow.h"
#include "packet/packets.h"
#include "base/util.h"

#define MAC_A { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a } }
#define MAC_B { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b } }
#define MAC_C { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0c } }
#define MAC_BCAST { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } }
#define MAC_MCAST4 { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb } }
#define MAC_MCAST6 { { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } }

static const struct eth_addr mac_a = MAC_A;
static const struct eth_addr mac_b = MAC_B;
static const struct eth_addr mac_c = MAC_C;
static const struct eth_addr mac_bcast = MAC_BCAST;

static inline struct flow
make_flow(uint16_t in_port, struct eth_addr dl_src, struct eth_addr dl_dst,
          uint16_t tci)
{
    struct flow flow;

    /* Fill the fields NORMAL must not look at, so that a mask covering
     * them cannot hide behind zeros. */
    memset(&flow, 0, sizeof flow);
    flow.in_port = in_port;
    flow.dl_src = dl_src;
    flow.dl_dst = dl_dst;
    flow.dl_type = htons(ETH_TYPE_IP);
    if (tci) {
        flow.vlans_tci[0] = htons(tci);
        flow.vlans_tpid[0] = htons(ETH_TYPE_VLAN_8021Q);
    }
    flow.nw_src = htonl(0x0a000001);
    flow.nw_dst = htonl(0x0a000002);
    flow.nw_proto = IP_PROTO_TCP;
    flow.nw_ttl = 64;
    flow.tp_src = htons(12345);
    flow.tp_dst = htons(80);
    return flow;
}

static inline void
check_outputs(const char *what, const struct xlate_out *out,
              const uint16_t *ports, size_t n_ports)
{
    CHECK(out->n_actions == n_ports, "%s: %"PRIu32" actions, expected %zu",
          what, out->n_actions, n_ports);
    for (size_t i = 0; i < MIN(out->n_actions, n_ports); i++) {
        CHECK(out->actions[i].type == DP_ACTION_OUTPUT
              && out->actions[i].port == ports[i],
              "%s: action %zu is type %"PRIu16" port %"PRIu16", expected "
              "output:%"PRIu16, what, i, out->actions[i].type,
              out->actions[i].port, ports[i]);
    }
}

/* Writes 'out''s actions into 'buf' as a comma-separated list: a port
 * number for an output, "bond:PORT" for a bond output ("bond:PORT+hash"
 * with a nonzero hash), "push:VID" for a push of an 802.1Q tag with
 * priority 0, "pop", "set_vid:VID" for a set of the VID bits alone, and
 * the raw fields of anything else. */
static inline const char *
format_actions(const struct xlate_out *out, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < out->n_actions && len < size; i++) {
        const struct dp_action *a = &out->actions[i];
        const char *sep = i ? "," : "";
        uint16_t tci = ntohs(a->vlan.tci);
        int n;

        if (a->type == DP_ACTION_OUTPUT) {
            n = snprintf(buf + len, size - len, "%s%"PRIu16, sep, a->port);
        } else if (a->type == DP_ACTION_PUSH_VLAN
                   && a->vlan.tpid == htons(ETH_TYPE_VLAN_8021Q)
                   && (tci & ~VLAN_VID_MASK) == VLAN_CFI) {
            n = snprintf(buf + len, size - len, "%spush:%"PRIu16, sep,
                         tci & VLAN_VID_MASK);
        } else if (a->type == DP_ACTION_BOND_OUTPUT) {
            n = snprintf(buf + len, size - len, "%sbond:%"PRIu16"%s", sep,
                         a->port, a->hash ? "+hash" : "");
        } else if (a->type == DP_ACTION_POP_VLAN) {
            n = snprintf(buf + len, size - len, "%spop", sep);
        } else if (a->type == DP_ACTION_SET_VLAN_TCI
                   && a->vlan.tci_mask == htons(VLAN_VID_MASK)) {
            n = snprintf(buf + len, size - len, "%sset_vid:%"PRIu16, sep,
                         tci);
        } else {
            n = snprintf(buf + len, size - len,
                         "%s?type=%"PRIu16",tpid=0x%04"PRIx16",tci=0x%04"
                         PRIx16",mask=0x%04"PRIx16, sep, a->type,
                         ntohs(a->vlan.tpid), tci, ntohs(a->vlan.tci_mask));
        }
        len += n < 0 ? 0 : (size_t) n;
    }
    return buf;
}

static inline void
check_actions(const char *what, const struct xlate_out *out,
              const char *want)
{
    char got[512];

    format_actions(out, got, sizeof got);
    CHECK(!strcmp(got, want), "%s: actions \"%s\", expected \"%s\"",
          what, got, want);
}

static inline void
add_ports(struct ofproto *ofproto, const uint16_t *ports, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%"PRIu16, ports[i]);
        CHECK_INT(ofproto_port_add(ofproto, ports[i], name, NULL), 0);
    }
}

/* Returns 'flow' with only the bits in 'mask', as a megaflow stores it. */
static inline struct flow
flow_and_mask(const struct flow *flow, const struct flow *mask)
{
    const uint8_t *f = (const uint8_t *) flow;
    const uint8_t *m = (const uint8_t *) mask;
    struct flow masked;
    uint8_t *r = (uint8_t *) &masked;

    for (size_t i = 0; i < sizeof masked; i++) {
        r[i] = f[i] & m[i];
    }
    return masked;
}

/* VLAN modes.  The VLAN tests run on the same six ports:
 *
 *   p1  access vlan 10                 p4  trunk of all VLANs
 *   p2  access vlan 20                 p5  native-untagged vlan 10,
 *   p3  trunk of vlans 10 and 20           trunks 20
 *                                      p6  native-tagged vlan 20, trunks
 *                                          all
 *
 * so that vlan 10 is carried by p1 and p5 untagged and by p3, p4 and p6
 * tagged; vlan 20 by p2 untagged and p3 to p6 tagged; vlan 30 by p4 and p6
 * tagged; vlan 0 (untagged frames of a trunk) by p4 alone. */
struct vlan_port {
    uint16_t port_no;
    const char *mode;
    int tag;
    int trunks[2];
    size_t n_trunks;
};

static const struct vlan_port vlan_ports[] = {
    { 1, "access", 10, { 0 }, 0 },
    { 2, "access", 20, { 0 }, 0 },
    { 3, "trunk", 0, { 10, 20 }, 2 },
    { 4, "trunk", 0, { 0 }, 0 },
    { 5, "native-untagged", 10, { 20 }, 1 },
    { 6, "native-tagged", 20, { 0 }, 0 },
};

static inline void
add_vlan_ports(struct ofproto *ofproto)
{
    for (size_t i = 0; i < ARRAY_SIZE(vlan_ports); i++) {
        const struct vlan_port *vp = &vlan_ports[i];
        struct ofproto_port_settings s;
        char name[16];

        snprintf(name, sizeof name, "p%"PRIu16, vp->port_no);
        CHECK_INT(ofproto_port_settings_init(&s, vp->mode, vp->tag,
                                             vp->trunks, vp->n_trunks), 0);
        CHECK_INT(ofproto_port_add(ofproto, vp->port_no, name, &s), 0);
    }
}

/* Bonds.  The bond tests run on bridge ports p1 and p2 (1, 2) and bond
 * up0 (10) over members 11, 12 and 13, all trunks of every VLAN. */
#define BOND_NO 10

/* Makes bridge ports 1 and 2 and bond 10 in 'mode' over members 11, 12
 * and 13 with 'active' active. */
static inline struct ofproto *
make_bond_bridge(enum bond_mode mode, uint16_t active)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    static const uint16_t ports[] = { 1, 2 };

    add_ports(ofproto, ports, ARRAY_SIZE(ports));
    CHECK_INT(ofproto_port_add(ofproto, BOND_NO, "up0", NULL), 0);
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO, mode, active), 0);
    CHECK_INT(ofproto_member_add(ofproto, 11, "m1", BOND_NO), 0);
    CHECK_INT(ofproto_member_add(ofproto, 12, "m2", BOND_NO), 0);
    CHECK_INT(ofproto_member_add(ofproto, 13, "m3", BOND_NO), 0);
    return ofproto;
}

#endif /* tests/ofproto-test.h */
