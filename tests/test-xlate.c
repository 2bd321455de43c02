/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for translation (lib/ofproto/xlate.c): the NORMAL action's
 * decisions and, bit by bit, the megaflow masks it returns (too wide and
 * too narrow both fail), VLAN modes on input and output, learning from
 * traffic, traces, and bonds (input from members, bond output,
 * reflections, active-backup) under NORMAL and under rule actions, and a
 * bridge with the most ports: its floods fit, and a translation that
 * does not fails cleanly.  The
 * tests translate through upcall_xlate() and upcall_xlate_trace(), the
 * entry points the datapath uses.
 */
#include <autoconf.h>
#include "ofproto/xlate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ofproto-test.h"
#include "ofproto/bond.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"
#include "ofproto/ofproto-rules.h"
#include "ofproto/upcall.h"
#include "base/coverage.h"
#include "base/util.h"

/* Which expected mask a case has. */
enum mask_kind {
    MASK_NORMAL,        /* in_port, dl_src, dl_dst, outer VID + CFI. */
    MASK_IN_PORT,       /* in_port only: the port is not on the bridge. */
};

struct mac_state {
    struct eth_addr mac;
    uint16_t vlan;
    uint16_t port;
};

#define MAX_PORTS 6

struct xlate_case {
    const char *name;

    /* Bridge ports (added in this order) and MAC table before. */
    uint16_t ports[MAX_PORTS];
    size_t n_ports;
    struct mac_state macs[3];
    size_t n_macs;

    /* The packet. */
    uint16_t in_port;
    struct eth_addr dl_src;
    struct eth_addr dl_dst;
    uint16_t tci;               /* Host order, VLAN_CFI if tagged. */
    bool learn;

    /* Expected: output ports in order (none = drop), or if 'actions' is
     * nonnull the actions as format_actions() writes them; mask, and where
     * the source is known afterwards in its VLAN (-1: unknown). */
    uint16_t outputs[MAX_PORTS];
    size_t n_outputs;
    const char *actions;
    enum mask_kind mask;
    int src_port_after;
};

#define LIST_LEN(...) (sizeof (uint16_t[]) { __VA_ARGS__ } / sizeof (uint16_t))
#define PORTS(...) .ports = { __VA_ARGS__ }, .n_ports = LIST_LEN(__VA_ARGS__)
#define OUTPUTS(...) \
    .outputs = { __VA_ARGS__ }, .n_outputs = LIST_LEN(__VA_ARGS__)
#define DROP .n_outputs = 0

static const struct xlate_case xlate_cases[] = {
    {
        .name = "broadcast floods to all ports but in_port",
        PORTS(1, 2, 3), .in_port = 2, .dl_src = MAC_A, .dl_dst = MAC_BCAST,
        .learn = true, OUTPUTS(1, 3), .mask = MASK_NORMAL,
        .src_port_after = 2,
    },
    {
        .name = "IPv4 multicast floods",
        PORTS(1, 2, 3), .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_MCAST4,
        .learn = true, OUTPUTS(2, 3), .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "IPv6 multicast floods even if learned as a source",
        PORTS(1, 2, 3),
        .macs = { { MAC_MCAST6, 0, 3 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_MCAST6,
        .learn = true, OUTPUTS(2, 3), .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "unknown unicast floods",
        PORTS(1, 2, 3), .in_port = 3, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, OUTPUTS(1, 2), .mask = MASK_NORMAL,
        .src_port_after = 3,
    },
    {
        .name = "known unicast goes to the learned port",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 0, 3 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, OUTPUTS(3), .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "destination learned on the input port is dropped",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 0, 1 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, DROP, .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "destination learned on a non-bridge port is dropped",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 0, 7 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, DROP, .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "packet from a non-bridge port is dropped, not learned",
        PORTS(1, 2, 3), .in_port = 9, .dl_src = MAC_A, .dl_dst = MAC_BCAST,
        .learn = true, DROP, .mask = MASK_IN_PORT,
        .src_port_after = -1,
    },
    {
        .name = "packet on a bridge with no ports is dropped",
        .n_ports = 0, .in_port = 0, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, DROP, .mask = MASK_IN_PORT,
        .src_port_after = -1,
    },
    {
        .name = "flood on a one-port bridge is a drop",
        PORTS(4), .in_port = 4, .dl_src = MAC_A, .dl_dst = MAC_BCAST,
        .learn = true, DROP, .mask = MASK_NORMAL,
        .src_port_after = 4,
    },
    {
        .name = "flood goes in port number order",
        PORTS(5, 1, 4, 2), .in_port = 4, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, OUTPUTS(1, 2, 5), .mask = MASK_NORMAL,
        .src_port_after = 4,
    },
    {
        .name = "port numbers 0 and 65535 work",
        PORTS(65535, 0), .in_port = 65535, .dl_src = MAC_A,
        .dl_dst = MAC_BCAST, .learn = true, OUTPUTS(0), .mask = MASK_NORMAL,
        .src_port_after = 65535,
    },
    {
        .name = "MAC learned on vlan 10 is unknown on vlan 20",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 10, 3 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .tci = VLAN_CFI | 20, .learn = true, OUTPUTS(2, 3),
        .mask = MASK_NORMAL, .src_port_after = 1,
    },
    {
        .name = "MAC learned on vlan 10 is known on vlan 10",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 10, 3 }, { MAC_B, 20, 2 } }, .n_macs = 2,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .tci = VLAN_CFI | 10, .learn = true, OUTPUTS(3),
        .mask = MASK_NORMAL, .src_port_after = 1,
    },
    {
        .name = "MAC learned on vlan 10 is unknown untagged",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 10, 3 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, OUTPUTS(2, 3), .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "PCP bits do not change the VLAN or the mask",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 10, 2 } }, .n_macs = 1,
        .in_port = 3, .dl_src = MAC_A, .dl_dst = MAC_B,
        .tci = (5 << VLAN_PCP_SHIFT) | VLAN_CFI | 10, .learn = true,
        OUTPUTS(2), .mask = MASK_NORMAL, .src_port_after = 3,
    },
    {
        .name = "priority-tagged frame is in vlan 0 and leaves untagged",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 0, 2 } }, .n_macs = 1,
        .in_port = 3, .dl_src = MAC_A, .dl_dst = MAC_B,
        .tci = (3 << VLAN_PCP_SHIFT) | VLAN_CFI, .learn = true,
        .actions = "pop,2", .mask = MASK_NORMAL, .src_port_after = 3,
    },
    {
        .name = "vlan 4095 works",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 4095, 2 } }, .n_macs = 1,
        .in_port = 3, .dl_src = MAC_A, .dl_dst = MAC_B,
        .tci = VLAN_CFI | 4095, .learn = true, OUTPUTS(2),
        .mask = MASK_NORMAL, .src_port_after = 3,
    },
    {
        .name = "source is learned per VLAN",
        PORTS(1, 2, 3),
        .macs = { { MAC_A, 0, 2 } }, .n_macs = 1,
        .in_port = 3, .dl_src = MAC_A, .dl_dst = MAC_BCAST,
        .tci = VLAN_CFI | 30, .learn = true, OUTPUTS(1, 2),
        .mask = MASK_NORMAL, .src_port_after = 3,
    },
    {
        .name = "source that moved is relearned",
        PORTS(1, 2, 3),
        .macs = { { MAC_A, 0, 2 }, { MAC_B, 0, 2 } }, .n_macs = 2,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_B,
        .learn = true, OUTPUTS(2), .mask = MASK_NORMAL,
        .src_port_after = 1,
    },
    {
        .name = "without learning the source stays unknown",
        PORTS(1, 2, 3), .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_BCAST,
        .learn = false, OUTPUTS(2, 3), .mask = MASK_NORMAL,
        .src_port_after = -1,
    },
    {
        .name = "without learning a moved source stays put",
        PORTS(1, 2, 3),
        .macs = { { MAC_A, 0, 2 } }, .n_macs = 1,
        .in_port = 1, .dl_src = MAC_A, .dl_dst = MAC_BCAST,
        .learn = false, OUTPUTS(2, 3), .mask = MASK_NORMAL,
        .src_port_after = 2,
    },
    {
        .name = "multicast source is not learned; mask stays exact",
        PORTS(1, 2, 3), .in_port = 1, .dl_src = MAC_MCAST4, .dl_dst = MAC_B,
        .learn = true, OUTPUTS(2, 3), .mask = MASK_NORMAL,
        .src_port_after = -1,
    },
};

static struct flow
expected_mask(enum mask_kind kind)
{
    struct flow mask;

    memset(&mask, 0, sizeof mask);
    mask.in_port = UINT16_MAX;
    if (kind == MASK_NORMAL) {
        memset(&mask.dl_src, 0xff, sizeof mask.dl_src);
        memset(&mask.dl_dst, 0xff, sizeof mask.dl_dst);
        mask.vlans_tci[0] = htons(VLAN_VID_MASK | VLAN_CFI);
    }
    return mask;
}

/* Names the member of struct flow at byte 'ofs', for failure messages. */
static const char *
flow_field_name(size_t ofs)
{
    static const struct {
        const char *name;
        size_t ofs;
    } fields[] = {
#define FIELD(NAME) { #NAME, offsetof(struct flow, NAME) }
        FIELD(dl_dst), FIELD(dl_src), FIELD(dl_type), FIELD(in_port),
        FIELD(vlans_tci), FIELD(vlans_tpid), FIELD(nw_src), FIELD(nw_dst),
        FIELD(ipv6_src), FIELD(ipv6_dst), FIELD(ipv6_label), FIELD(nw_frag),
        FIELD(nw_tos), FIELD(nw_ttl), FIELD(nw_proto), FIELD(tp_src),
        FIELD(tp_dst), FIELD(tcp_flags), FIELD(pad9), FIELD(nd_target),
        FIELD(arp_sha), FIELD(arp_tha), FIELD(pad13), FIELD(tun_id),
        FIELD(pad14),
#undef FIELD
    };
    const char *name = "?";

    for (size_t i = 0; i < ARRAY_SIZE(fields) && fields[i].ofs <= ofs; i++) {
        name = fields[i].name;
    }
    return name;
}

/* Checks 'got' against 'want' byte by byte and reports each difference. */
static void
check_mask(const char *what, const struct flow *got, const struct flow *want)
{
    const uint8_t *g = (const uint8_t *) got;
    const uint8_t *w = (const uint8_t *) want;

    for (size_t i = 0; i < sizeof *got; i++) {
        CHECK(g[i] == w[i],
              "%s: mask byte %zu (%s) is 0x%02x, expected 0x%02x (%s)",
              what, i, flow_field_name(i), g[i], w[i],
              g[i] & ~w[i] ? "too wide" : "too narrow");
    }
}

static void
run_xlate_case(const struct xlate_case *c)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    struct flow flow, want_mask;
    struct xlate_out out;
    uint16_t vlan = c->tci & VLAN_VID_MASK;
    int error;

    add_ports(ofproto, c->ports, c->n_ports);
    for (size_t i = 0; i < c->n_macs; i++) {
        mac_learning_learn(ml, c->macs[i].mac, c->macs[i].vlan,
                           c->macs[i].port, 0);
    }

    flow = make_flow(c->in_port, c->dl_src, c->dl_dst, c->tci);
    error = upcall_xlate(ofproto, &flow, c->learn, 1000, &out);
    CHECK(!error, "%s: error %d", c->name, error);
    if (c->actions) {
        check_actions(c->name, &out, c->actions);
    } else {
        check_outputs(c->name, &out, c->outputs, c->n_outputs);
    }
    want_mask = expected_mask(c->mask);
    check_mask(c->name, &out.mask, &want_mask);
    CHECK(out.trace_len == 0 && !out.trace[0], "%s: untraced xlate traced",
          c->name);
    CHECK(mac_learning_lookup(ml, c->dl_src, vlan, 1000)
          == c->src_port_after, "%s: source is on port %d, expected %d",
          c->name, mac_learning_lookup(ml, c->dl_src, vlan, 1000),
          c->src_port_after);

    /* Tracing, and translating twice, decide the same. */
    error = upcall_xlate_trace(ofproto, &flow, false, 1000, &out);
    CHECK(!error, "%s: traced error %d", c->name, error);
    if (c->actions) {
        check_actions(c->name, &out, c->actions);
    } else {
        check_outputs(c->name, &out, c->outputs, c->n_outputs);
    }
    check_mask(c->name, &out.mask, &want_mask);
    CHECK(out.trace_len > 0 && out.trace_len == strlen(out.trace)
          && out.trace[out.trace_len - 1] == '\n',
          "%s: bad trace \"%s\"", c->name, out.trace);
    ofproto_destroy(ofproto);
}

static void
test_xlate_table(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(xlate_cases); i++) {
        run_xlate_case(&xlate_cases[i]);
    }
}

struct vlan_case {
    const char *name;

    struct mac_state macs[2];   /* MAC table before. */
    size_t n_macs;

    /* The packet: MAC_A to 'dl_dst' on 'in_port'. */
    uint16_t in_port;
    struct eth_addr dl_dst;
    uint16_t tci;               /* Host order, VLAN_CFI if tagged. */

    /* Expected: actions as format_actions() writes them ("" for a drop),
     * whether the port accepted the VLAN (else the mask is in_port and
     * the outer VID and CFI only), the VLAN MAC_A is learned on (on
     * 'in_port') if it did, and a line of the trace. */
    const char *actions;
    bool accepted;
    uint16_t vlan;
    const char *trace;
};

#define BCAST MAC_BCAST
#define PCP(N) ((N) << VLAN_PCP_SHIFT)

static const struct vlan_case vlan_cases[] = {
    /* Flooding stays in the VLAN: untagged outputs first when the frame
     * is untagged, tagged ones first when it is tagged. */
    { "access: untagged broadcast floods vlan 10",
      .in_port = 1, .dl_dst = BCAST, .tci = 0,
      .actions = "5,push:10,3,4,6", .accepted = true, .vlan = 10,
      .trace = "NORMAL: learned 02:00:00:00:00:0a on port 1 (p1) vlan 10" },
    { "access: untagged broadcast floods vlan 20",
      .in_port = 2, .dl_dst = BCAST, .tci = 0,
      .actions = "push:20,3,4,5,6", .accepted = true, .vlan = 20 },
    { "trunk: tagged broadcast floods vlan 10",
      .in_port = 3, .dl_dst = BCAST, .tci = VLAN_CFI | 10,
      .actions = "4,6,pop,1,5", .accepted = true, .vlan = 10 },
    { "trunk of all: tagged broadcast floods vlan 20",
      .in_port = 4, .dl_dst = BCAST, .tci = VLAN_CFI | 20,
      .actions = "3,5,6,pop,2", .accepted = true, .vlan = 20 },
    { "trunk of all: vlan 30 reaches only the other trunk of all",
      .in_port = 4, .dl_dst = BCAST, .tci = VLAN_CFI | 30,
      .actions = "6", .accepted = true, .vlan = 30 },
    { "trunk of all: untagged is vlan 0, which no other port carries",
      .in_port = 4, .dl_dst = BCAST, .tci = 0,
      .actions = "", .accepted = true, .vlan = 0 },
    { "trunk: priority is kept on tagged outputs",
      .in_port = 3, .dl_dst = BCAST, .tci = PCP(5) | VLAN_CFI | 20,
      .actions = "4,5,6,pop,2", .accepted = true, .vlan = 20 },

    /* Input VLAN rules and their drops. */
    { "access: tagged frame of its own vlan is dropped",
      .in_port = 1, .dl_dst = BCAST, .tci = VLAN_CFI | 10,
      .actions = "", .accepted = false,
      .trace = "NORMAL: port p1 (access vlan 10) does not accept tagged "
               "vlan 10, dropping" },
    { "access: tagged frame of another vlan is dropped",
      .in_port = 1, .dl_dst = MAC_B, .tci = VLAN_CFI | 20,
      .actions = "", .accepted = false,
      .trace = "NORMAL: port p1 (access vlan 10) does not accept tagged "
               "vlan 20, dropping" },
    { "access: priority-tagged frame is in the access vlan",
      .in_port = 1, .dl_dst = BCAST, .tci = PCP(3) | VLAN_CFI,
      .actions = "set_vid:10,3,4,6,pop,5", .accepted = true, .vlan = 10 },
    { "trunk: vlan not in trunks is dropped",
      .in_port = 3, .dl_dst = BCAST, .tci = VLAN_CFI | 30,
      .actions = "", .accepted = false,
      .trace = "NORMAL: port p3 (trunk) does not accept tagged vlan 30, "
               "dropping" },
    { "trunk with a list: untagged is dropped",
      .in_port = 3, .dl_dst = BCAST, .tci = 0,
      .actions = "", .accepted = false,
      .trace = "NORMAL: port p3 (trunk) does not accept untagged or "
               "priority-tagged frames, dropping" },
    { "trunk with a list: priority-tagged is dropped",
      .in_port = 3, .dl_dst = MAC_B, .tci = PCP(7) | VLAN_CFI,
      .actions = "", .accepted = false },
    { "native-untagged: untagged is the native vlan",
      .in_port = 5, .dl_dst = BCAST, .tci = 0,
      .actions = "1,push:10,3,4,6", .accepted = true, .vlan = 10 },
    { "native-untagged: priority-tagged is the native vlan",
      .in_port = 5, .dl_dst = BCAST, .tci = PCP(1) | VLAN_CFI,
      .actions = "set_vid:10,3,4,6,pop,1", .accepted = true, .vlan = 10 },
    { "native-untagged: native vlan tagged is accepted",
      .in_port = 5, .dl_dst = BCAST, .tci = VLAN_CFI | 10,
      .actions = "3,4,6,pop,1", .accepted = true, .vlan = 10 },
    { "native-untagged: trunked vlan",
      .in_port = 5, .dl_dst = BCAST, .tci = VLAN_CFI | 20,
      .actions = "3,4,6,pop,2", .accepted = true, .vlan = 20 },
    { "native-untagged: vlan neither native nor trunked is dropped",
      .in_port = 5, .dl_dst = BCAST, .tci = VLAN_CFI | 30,
      .actions = "", .accepted = false,
      .trace = "NORMAL: port p5 (native-untagged vlan 10) does not accept "
               "tagged vlan 30, dropping" },
    { "native-tagged: untagged is the native vlan",
      .in_port = 6, .dl_dst = BCAST, .tci = 0,
      .actions = "2,push:20,3,4,5", .accepted = true, .vlan = 20 },
    { "native-tagged: trunks all vlans",
      .in_port = 6, .dl_dst = BCAST, .tci = VLAN_CFI | 10,
      .actions = "3,4,pop,1,5", .accepted = true, .vlan = 10 },

    /* Learned forwarding, across modes. */
    { "access to trunk pushes",
      .macs = { { MAC_B, 10, 3 } }, .n_macs = 1,
      .in_port = 1, .dl_dst = MAC_B, .tci = 0,
      .actions = "push:10,3", .accepted = true, .vlan = 10,
      .trace = "NORMAL: forwarding to learned port 3 (p3)" },
    { "trunk to access pops",
      .macs = { { MAC_B, 10, 1 } }, .n_macs = 1,
      .in_port = 3, .dl_dst = MAC_B, .tci = PCP(2) | VLAN_CFI | 10,
      .actions = "pop,1", .accepted = true, .vlan = 10 },
    { "trunk to trunk keeps the tag",
      .macs = { { MAC_B, 20, 4 } }, .n_macs = 1,
      .in_port = 3, .dl_dst = MAC_B, .tci = VLAN_CFI | 20,
      .actions = "4", .accepted = true, .vlan = 20 },
    { "access to native-untagged, native vlan: untagged",
      .macs = { { MAC_B, 10, 5 } }, .n_macs = 1,
      .in_port = 1, .dl_dst = MAC_B, .tci = 0,
      .actions = "5", .accepted = true, .vlan = 10 },
    { "access to native-tagged, native vlan: tagged",
      .macs = { { MAC_B, 20, 6 } }, .n_macs = 1,
      .in_port = 2, .dl_dst = MAC_B, .tci = 0,
      .actions = "push:20,6", .accepted = true, .vlan = 20 },
    { "priority-tagged access to trunk: VID set, priority kept",
      .macs = { { MAC_B, 10, 4 } }, .n_macs = 1,
      .in_port = 1, .dl_dst = MAC_B, .tci = PCP(6) | VLAN_CFI,
      .actions = "set_vid:10,4", .accepted = true, .vlan = 10 },
    { "MAC known in another vlan is unknown in this one",
      .macs = { { MAC_B, 20, 2 } }, .n_macs = 1,
      .in_port = 1, .dl_dst = MAC_B, .tci = 0,
      .actions = "5,push:10,3,4,6", .accepted = true, .vlan = 10 },
    { "learned port that does not carry the vlan is dropped",
      .macs = { { MAC_B, 10, 2 } }, .n_macs = 1,
      .in_port = 1, .dl_dst = MAC_B, .tci = 0,
      .actions = "", .accepted = true, .vlan = 10,
      .trace = "NORMAL: learned port 2 (p2) does not carry vlan 10, "
               "dropping" },
};

static void
run_vlan_case(const struct vlan_case *c)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    struct flow flow, want_mask;
    struct xlate_out out;
    int error;

    add_vlan_ports(ofproto);
    for (size_t i = 0; i < c->n_macs; i++) {
        mac_learning_learn(ml, c->macs[i].mac, c->macs[i].vlan,
                           c->macs[i].port, 0);
    }

    flow = make_flow(c->in_port, mac_a, c->dl_dst, c->tci);
    error = upcall_xlate_trace(ofproto, &flow, true, 1000, &out);
    CHECK(!error, "%s: error %d", c->name, error);
    check_actions(c->name, &out, c->actions);
    if (c->accepted) {
        want_mask = expected_mask(MASK_NORMAL);
    } else {
        want_mask = expected_mask(MASK_IN_PORT);
        want_mask.vlans_tci[0] = htons(VLAN_VID_MASK | VLAN_CFI);
    }
    check_mask(c->name, &out.mask, &want_mask);
    if (c->trace) {
        CHECK(strstr(out.trace, c->trace) != NULL,
              "%s: trace lacks \"%s\": %s", c->name, c->trace, out.trace);
    }

    /* MAC_A is learned on its VLAN and on no other. */
    for (uint16_t vlan = 0; vlan <= 30; vlan += 10) {
        int want = c->accepted && vlan == c->vlan ? c->in_port : -1;
        int got = mac_learning_lookup(ml, mac_a, vlan, 1000);

        CHECK(got == want, "%s: source on port %d in vlan %"PRIu16", "
              "expected %d", c->name, got, vlan, want);
    }

    /* The untraced translation, now that the source is known, decides
     * the same. */
    error = upcall_xlate(ofproto, &flow, false, 1000, &out);
    CHECK(!error, "%s: error %d", c->name, error);
    check_actions(c->name, &out, c->actions);
    check_mask(c->name, &out.mask, &want_mask);
    ofproto_destroy(ofproto);
}

static void
test_vlan_table(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(vlan_cases); i++) {
        run_vlan_case(&vlan_cases[i]);
    }
}

/* A talks to B: the first packet floods and teaches A; the reply goes
 * straight to A and teaches B; after that both directions are unicast. */
static void
test_learn_then_reply(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    static const uint16_t ports[] = { 1, 2, 3 };
    struct xlate_out out;
    struct flow flow;

    add_ports(ofproto, ports, ARRAY_SIZE(ports));

    flow = make_flow(1, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, &out), 0);
    check_outputs("A->B first", &out, (uint16_t[]) { 2, 3 }, 2);

    flow = make_flow(2, mac_b, mac_a, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 1, &out), 0);
    check_outputs("B->A reply", &out, (uint16_t[]) { 1 }, 1);

    flow = make_flow(1, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 2, &out), 0);
    check_outputs("A->B again", &out, (uint16_t[]) { 2 }, 1);

    /* The same MACs on another VLAN are still unknown there. */
    flow = make_flow(1, mac_c, mac_b, VLAN_CFI | 7);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 3, &out), 0);
    check_outputs("C->B vlan 7", &out, (uint16_t[]) { 2, 3 }, 2);
    ofproto_destroy(ofproto);
}

static void
test_trace(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    static const uint16_t ports[] = { 1, 2 };
    struct xlate_out out;
    struct flow flow;

    add_ports(ofproto, ports, ARRAY_SIZE(ports));

    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate_trace(ofproto, &flow, true, 0, &out);
    CHECK(strstr(out.trace,
                 "NORMAL: learned 02:00:00:00:00:0a on port 1 (p1) vlan 0\n"),
          "trace lacks learning: %s", out.trace);
    CHECK(strstr(out.trace,
                 "NORMAL: no learned MAC for destination, flooding\n"),
          "trace lacks flooding: %s", out.trace);

    flow = make_flow(2, mac_b, mac_a, VLAN_CFI);
    upcall_xlate_trace(ofproto, &flow, true, 0, &out);
    CHECK(strstr(out.trace, "NORMAL: forwarding to learned port 1 (p1)\n"),
          "trace lacks forwarding: %s", out.trace);

    flow = make_flow(2, mac_a, mac_b, 0);
    upcall_xlate_trace(ofproto, &flow, true, 0, &out);
    CHECK(strstr(out.trace, "NORMAL: 02:00:00:00:00:0a moved to port 2 (p2) "
                 "vlan 0\n"), "trace lacks move: %s", out.trace);
    CHECK(strstr(out.trace, "NORMAL: learned port is input port, dropping\n"),
          "trace lacks input-port drop: %s", out.trace);

    flow = make_flow(8, mac_a, mac_bcast, 0);
    upcall_xlate_trace(ofproto, &flow, true, 0, &out);
    CHECK(!strcmp(out.trace, "NORMAL: in_port 8 is not a port of bridge br0, "
                  "dropping\n"), "trace for stray port: %s", out.trace);

    flow = make_flow(1, mac_c, mac_bcast, 0);
    upcall_xlate_trace(ofproto, &flow, false, 0, &out);
    CHECK(!strcmp(out.trace, "NORMAL: broadcast destination, flooding\n"),
          "trace without learning: %s", out.trace);
    ofproto_destroy(ofproto);
}

struct bond_case {
    const char *name;
    enum bond_mode mode;
    uint16_t active;            /* Active-backup's active member. */
    struct mac_state macs[2];   /* Learned before. */
    size_t n_macs;
    uint16_t in_port;
    struct eth_addr dl_src, dl_dst;
    uint16_t tci;

    const char *actions;        /* As format_actions() writes them. */
    int src_port_after;         /* Where the source is learned after. */
};

static const struct bond_case bond_cases[] = {
    { "tcp: flood from a port reaches the bond once, not its members",
      BOND_MODE_BALANCE_TCP, 0, { { { { 0 } }, 0, 0 } }, 0,
      1, MAC_A, MAC_B, 0, "2,bond:10", 1 },
    { "tcp: flood from a member never goes back to the bond",
      BOND_MODE_BALANCE_TCP, 0, { { { { 0 } }, 0, 0 } }, 0,
      11, MAC_B, MAC_A, 0, "1,2", BOND_NO },
    { "tcp: broadcast from a member floods the other ports",
      BOND_MODE_BALANCE_TCP, 0, { { { { 0 } }, 0, 0 } }, 0,
      13, MAC_B, MAC_BCAST, 0, "1,2", BOND_NO },
    { "tcp: learned on a port, from another member: unicast",
      BOND_MODE_BALANCE_TCP, 0, { { MAC_A, 0, 1 } }, 1,
      12, MAC_B, MAC_A, 0, "1", BOND_NO },
    { "tcp: destination on the bond: bond output by RSS hash",
      BOND_MODE_BALANCE_TCP, 0, { { MAC_A, 0, BOND_NO } }, 1,
      2, MAC_B, MAC_A, 0, "bond:10", 2 },
    { "tcp: tagged frame keeps its tag on the bond",
      BOND_MODE_BALANCE_TCP, 0, { { MAC_A, 7, BOND_NO } }, 1,
      2, MAC_B, MAC_A, VLAN_CFI | 7, "bond:10", 2 },
    { "slb: destination on the bond: bond output with the SLB hash",
      BOND_MODE_BALANCE_SLB, 0, { { MAC_A, 0, BOND_NO } }, 1,
      2, MAC_B, MAC_A, 0, "bond:10+hash", 2 },
    { "slb: flood carries the SLB hash",
      BOND_MODE_BALANCE_SLB, 0, { { { { 0 } }, 0, 0 } }, 0,
      1, MAC_C, MAC_BCAST, 0, "2,bond:10+hash", 1 },
    { "slb: source learned on another port is a reflection: drop",
      BOND_MODE_BALANCE_SLB, 0, { { MAC_A, 0, 1 } }, 1,
      11, MAC_A, MAC_BCAST, 0, "", 1 },
    { "tcp: source learned on another port is a reflection: drop",
      BOND_MODE_BALANCE_TCP, 0, { { MAC_A, 0, 2 } }, 1,
      12, MAC_A, MAC_B, 0, "", 2 },
    { "tcp: same MAC in another VLAN is no reflection",
      BOND_MODE_BALANCE_TCP, 0, { { MAC_A, 5, 2 } }, 1,
      12, MAC_A, MAC_BCAST, 0, "1,2", BOND_NO },
    { "slb: source already on the bond is no reflection",
      BOND_MODE_BALANCE_SLB, 0, { { MAC_A, 0, BOND_NO } }, 1,
      13, MAC_A, MAC_BCAST, 0, "1,2", BOND_NO },
    { "active-backup: frame on a backup member: drop",
      BOND_MODE_ACTIVE_BACKUP, 12, { { { { 0 } }, 0, 0 } }, 0,
      11, MAC_B, MAC_BCAST, 0, "", -1 },
    { "active-backup: frame on the active member is bridged",
      BOND_MODE_ACTIVE_BACKUP, 12, { { { { 0 } }, 0, 0 } }, 0,
      12, MAC_B, MAC_BCAST, 0, "1,2", BOND_NO },
    { "active-backup: no active member: drop",
      BOND_MODE_ACTIVE_BACKUP, BOND_PORT_NONE, { { { { 0 } }, 0, 0 } }, 0,
      12, MAC_B, MAC_BCAST, 0, "", -1 },
    { "active-backup: output has no hash",
      BOND_MODE_ACTIVE_BACKUP, 12, { { MAC_A, 0, BOND_NO } }, 1,
      1, MAC_B, MAC_A, 0, "bond:10", 1 },
    { "active-backup: destination learned on the bond itself: drop",
      BOND_MODE_ACTIVE_BACKUP, 11, { { MAC_A, 0, BOND_NO } }, 1,
      11, MAC_B, MAC_A, 0, "", BOND_NO },
};

static void
test_bond_table(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(bond_cases); i++) {
        const struct bond_case *c = &bond_cases[i];
        struct ofproto *ofproto = make_bond_bridge(c->mode, c->active);
        struct mac_learning *ml = ofproto_mac_learning(ofproto);
        uint16_t vlan = c->tci & VLAN_VID_MASK;
        struct flow flow, want_mask;
        struct xlate_out out;

        for (size_t j = 0; j < c->n_macs; j++) {
            mac_learning_learn(ml, c->macs[j].mac, c->macs[j].vlan,
                               c->macs[j].port, 0);
        }
        flow = make_flow(c->in_port, c->dl_src, c->dl_dst, c->tci);
        CHECK_INT(upcall_xlate(ofproto, &flow, true, 1000, &out), 0);
        check_actions(c->name, &out, c->actions);
        want_mask = expected_mask(MASK_NORMAL);
        check_mask(c->name, &out.mask, &want_mask);
        for (uint32_t j = 0; j < out.n_actions; j++) {
            const struct dp_action *a = &out.actions[j];

            if (a->type == DP_ACTION_BOND_OUTPUT && a->hash) {
                CHECK(a->hash == bond_slb_hash(c->dl_src, vlan),
                      "%s: hash %#"PRIx32" is not the SLB hash", c->name,
                      a->hash);
            }
        }
        CHECK(mac_learning_lookup(ml, c->dl_src, vlan, 1000)
              == c->src_port_after, "%s: source is on port %d, expected "
              "%d", c->name, mac_learning_lookup(ml, c->dl_src, vlan, 1000),
              c->src_port_after);
        ofproto_destroy(ofproto);
    }
}

/* Rule actions reach a bond through its members: output:BOND and flood
 * emit one bond output (flood skips the members themselves and the
 * input's bundle), and only balance-slb reads the VLAN for its hash. */
static void
test_bond_rules(void)
{
    static const struct {
        const char *name;
        enum bond_mode mode;
        const char *match;
        const char *actions;
        uint16_t in_port;
        const char *want;
        bool vlan_in_mask;
    } cases[] = {
        { "output to a bond", BOND_MODE_BALANCE_TCP, "in_port=1",
          "output:10", 1, "bond:10", false },
        { "flood from a port", BOND_MODE_BALANCE_TCP, "in_port=2", "flood",
          2, "1,bond:10", false },
        { "flood from a member skips its bond", BOND_MODE_BALANCE_TCP,
          "in_port=11", "flood", 11, "1,2", false },
        { "slb output reads the VLAN", BOND_MODE_BALANCE_SLB, "in_port=1",
          "output:10", 1, "bond:10+hash", true },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct ofproto *ofproto = make_bond_bridge(cases[i].mode, 0);
        struct ofproto_rule *rule;
        struct xlate_out out;
        struct flow flow;
        char *error;

        error = ofproto_rule_create(100, 0, cases[i].match, cases[i].actions,
                                    NULL, NULL, &rule);
        CHECK(!error, "%s: %s", cases[i].name, error ? error : "");
        free(error);
        ofproto_set_rules(ofproto, &rule, 1);
        flow = make_flow(cases[i].in_port, mac_a, mac_b, 0);
        CHECK_INT(upcall_xlate(ofproto, &flow, false, 1000, &out), 0);
        check_actions(cases[i].name, &out, cases[i].want);
        CHECK((out.mask.vlans_tci[0] != 0) == cases[i].vlan_in_mask,
              "%s: VLAN mask %#x", cases[i].name,
              ntohs(out.mask.vlans_tci[0]));
        ofproto_destroy(ofproto);
    }
}

/* The trace says which bond a member belongs to and why a frame drops. */
static void
test_bond_trace(void)
{
    struct ofproto *ofproto = make_bond_bridge(BOND_MODE_BALANCE_SLB,
                                               BOND_PORT_NONE);
    struct xlate_out out;
    struct flow flow;

    mac_learning_learn(ofproto_mac_learning(ofproto), mac_a, 0, 1, 0);
    flow = make_flow(12, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate_trace(ofproto, &flow, false, 1, &out), 0);
    CHECK(strstr(out.trace, "in_port 12 is a member of bond up0")
          && strstr(out.trace, "dropping a reflection"),
          "trace \"%s\"", out.trace);
    CHECK_INT(out.n_actions, 0);
    ofproto_destroy(ofproto);
}

/* Many ports.  Port i of a bridge of OFPROTO_MAX_PORTS takes part in
 * VLANs 10, 20 and 30 by i % 4: access vlan 10, a trunk of 10, 20 and 30,
 * native-untagged vlan 10 with trunks 20 and 30, native-tagged vlan 10
 * with trunks 20.  Every port carries vlan 10, so a flood of vlan 10
 * reaches every port but the input, which is the most a NORMAL flood
 * can output. */
static struct ofproto *
make_max_bridge(void)
{
    static const int trunks[] = { 10, 20, 30 };
    struct ofproto *ofproto = ofproto_create("br0", 0);

    for (int i = 0; i < OFPROTO_MAX_PORTS; i++) {
        struct ofproto_port_settings s;
        char name[16];
        int error;

        switch (i % 4) {
        case 0:
            error = ofproto_port_settings_init(&s, "access", 10, NULL, 0);
            break;
        case 1:
            error = ofproto_port_settings_init(&s, "trunk", 0, trunks, 3);
            break;
        case 2:
            error = ofproto_port_settings_init(&s, "native-untagged", 10,
                                               trunks + 1, 2);
            break;
        default:
            error = ofproto_port_settings_init(&s, "native-tagged", 10,
                                               trunks + 1, 1);
            break;
        }
        CHECK_INT(error, 0);
        snprintf(name, sizeof name, "p%d", i);
        CHECK_INT(ofproto_port_add(ofproto, i, name, &s), 0);
    }
    return ofproto;
}

/* Runs 'out''s actions on a frame whose outer TCI is 'tci' (host order, 0
 * if untagged) and records in 'tcis' (OFPROTO_MAX_PORTS, filled with
 * -1) the outer TCI each port receives the frame with; fails a check for a
 * port output twice or an action these tests do not make. */
static void
run_actions(const struct xlate_out *out, int tci, int *tcis)
{
    for (uint32_t i = 0; i < out->n_actions; i++) {
        const struct dp_action *a = &out->actions[i];

        switch (a->type) {
        case DP_ACTION_OUTPUT:
            CHECK(tcis[a->port] < 0, "port %"PRIu16" output twice",
                  a->port);
            tcis[a->port] = tci;
            break;
        case DP_ACTION_PUSH_VLAN:
            tci = ntohs(a->vlan.tci);
            break;
        case DP_ACTION_POP_VLAN:
            tci = 0;
            break;
        case DP_ACTION_SET_VLAN_TCI:
            tci = ((tci & ~ntohs(a->vlan.tci_mask))
                   | (ntohs(a->vlan.tci) & ntohs(a->vlan.tci_mask)));
            break;
        default:
            CHECK(false, "unexpected action type %"PRIu16, a->type);
            break;
        }
    }
}

/* A priority-tagged broadcast on an access port of a bridge with the most
 * ports floods vlan 10 to every other port: one output each, tagged (with
 * its priority kept) where the port wants vlan 10 tagged, untagged where
 * it does not, which takes a VLAN action for each group besides the 2047
 * outputs.  A tagged vlan 20 broadcast reaches the ports that carry 20
 * only. */
static void
test_flood_max_ports(void)
{
    struct ofproto *ofproto = make_max_bridge();
    int *tcis = xcalloc(OFPROTO_MAX_PORTS, sizeof *tcis);
    struct xlate_out *out = xzalloc(sizeof *out);
    struct flow flow;

    flow = make_flow(0, mac_a, mac_bcast, PCP(3) | VLAN_CFI);
    CHECK_INT(upcall_xlate(ofproto, &flow, false, 1000, out), 0);
    CHECK_INT(out->n_actions, OFPROTO_MAX_PORTS - 1 + 2);
    memset(tcis, 0xff, OFPROTO_MAX_PORTS * sizeof *tcis);
    run_actions(out, PCP(3) | VLAN_CFI, tcis);
    CHECK_INT(tcis[0], -1);
    for (int i = 1; i < OFPROTO_MAX_PORTS; i++) {
        int want = (i % 4 == 0 || i % 4 == 2 ? 0
                    : PCP(3) | VLAN_CFI | 10);

        CHECK(tcis[i] == want, "vlan 10 flood: port %d got tci %#x, "
              "expected %#x", i, tcis[i], want);
    }

    flow = make_flow(1, mac_a, mac_bcast, VLAN_CFI | 20);
    CHECK_INT(upcall_xlate(ofproto, &flow, false, 1000, out), 0);
    memset(tcis, 0xff, OFPROTO_MAX_PORTS * sizeof *tcis);
    run_actions(out, VLAN_CFI | 20, tcis);
    for (int i = 0; i < OFPROTO_MAX_PORTS; i++) {
        int want = i == 1 || i % 4 == 0 ? -1 : VLAN_CFI | 20;

        CHECK(tcis[i] == want, "vlan 20 flood: port %d got tci %#x, "
              "expected %#x", i, tcis[i], want);
    }

    free(out);
    free(tcis);
    ofproto_destroy(ofproto);
}

/* A rule that floods after each of two VLAN rewrites on that bridge asks
 * for about twice the ports in actions: the translation fails with E2BIG
 * and no actions (the datapath drops the packet), counted by name, and
 * nothing is written past the end of the actions. */
static void
test_too_many_actions(void)
{
    struct ofproto *ofproto = make_max_bridge();
    uint64_t before = coverage_get("xlate_too_many_actions");
    struct xlate_out *out = xmalloc(sizeof *out + sizeof(uint64_t));
    struct ofproto_rule *rule;
    uint64_t guard = UINT64_C(0x5a5a5a5a5a5a5a5a);
    struct flow flow;
    char *error;

    memcpy((char *) out + sizeof *out, &guard, sizeof guard);
    error = ofproto_rule_create(100, 0, "in_port=0",
                                "mod_vlan_vid:20,flood,mod_vlan_vid:30,flood",
                                NULL, NULL, &rule);
    CHECK(!error, "%s", error ? error : "");
    free(error);
    ofproto_set_rules(ofproto, &rule, 1);
    flow = make_flow(0, mac_a, mac_bcast, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, false, 1000, out), E2BIG);
    CHECK_INT(out->n_actions, 0);
    CHECK_INT(coverage_get("xlate_too_many_actions") - before, 1);
    CHECK(!memcmp((char *) out + sizeof *out, &guard, sizeof guard),
          "written past the end of struct xlate_out");

    /* One flood after one rewrite fits. */
    error = ofproto_rule_create(100, 0, "in_port=0",
                                "mod_vlan_vid:20,flood", NULL, NULL, &rule);
    CHECK(!error, "%s", error ? error : "");
    free(error);
    ofproto_set_rules(ofproto, &rule, 1);
    CHECK_INT(upcall_xlate(ofproto, &flow, false, 1000, out), 0);
    CHECK_INT(out->n_actions, 1 + OFPROTO_MAX_PORTS - 1);
    CHECK_INT(coverage_get("xlate_too_many_actions") - before, 1);

    free(out);
    ofproto_destroy(ofproto);
}

/* Reserved multicast (STP, LACP, LLDP, CDP, ...) is dropped before
 * learning unless forward-bpdu is true, then flooded like any multicast;
 * the addresses either side of the reserved ranges flood always.  A rule
 * sees the frames whatever the setting. */
static void
test_forward_bpdu(void)
{
    static const struct {
        struct eth_addr dst;
        bool reserved;
    } dsts[] = {
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 } }, true },   /* STP. */
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 } }, true },   /* PAUSE. */
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x02 } }, true },   /* LACP. */
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x03 } }, true },   /* 802.1X. */
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e } }, true },   /* LLDP. */
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0f } }, true },
        { { { 0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xcc } }, true },   /* CDP. */
        { { { 0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xcd } }, true },   /* PVST+. */
        { { { 0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xc7 } }, true },   /* CFM. */
        { { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x10 } }, false },
        { { { 0x01, 0x80, 0xc2, 0x00, 0x01, 0x00 } }, false },
        { { { 0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xce } }, false },
        { { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } }, false },
    };
    static const uint16_t ports[] = { 1, 2, 3 };

    for (int forward = 0; forward < 2; forward++) {
        for (size_t i = 0; i < ARRAY_SIZE(dsts); i++) {
            struct ofproto *ofproto = ofproto_create("br0", 0);
            uint64_t before = coverage_get("normal_drop_reserved_multicast");
            bool dropped = dsts[i].reserved && !forward;
            struct xlate_out out;
            struct flow flow;

            check_set_context("forward-bpdu %d, dst "ETH_ADDR_FMT, forward,
                              ETH_ADDR_ARGS(dsts[i].dst));
            add_ports(ofproto, ports, ARRAY_SIZE(ports));
            ofproto_set_forward_bpdu(ofproto, forward);
            CHECK_INT(ofproto_get_forward_bpdu(ofproto), forward);
            flow = make_flow(1, mac_a, dsts[i].dst, 0);
            CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, &out), 0);
            if (dropped) {
                check_outputs("reserved", &out, NULL, 0);
            } else {
                check_outputs("flooded", &out, (uint16_t[]) { 2, 3 }, 2);
            }
            CHECK_INT(coverage_get("normal_drop_reserved_multicast")
                      - before, dropped);
            CHECK_INT(mac_learning_lookup(ofproto_mac_learning(ofproto),
                                          mac_a, 0, 1),
                      dropped ? -1 : 1);
            CHECK(eth_addr_is_reserved(dsts[i].dst) == dsts[i].reserved,
                  "eth_addr_is_reserved");
            ofproto_destroy(ofproto);
        }
    }
    check_set_context("%s", "");
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "xlate_table", test_xlate_table },
        { "vlan_table", test_vlan_table },
        { "learn_then_reply", test_learn_then_reply },
        { "trace", test_trace },
        { "bond_table", test_bond_table },
        { "bond_rules", test_bond_rules },
        { "bond_trace", test_bond_trace },
        { "flood_max_ports", test_flood_max_ports },
        { "too_many_actions", test_too_many_actions },
        { "forward_bpdu", test_forward_bpdu },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-xlate");
}
