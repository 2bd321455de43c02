/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the slow path: the NORMAL action's decisions and, bit by
 * bit, the megaflow masks it returns (too wide and too narrow both fail),
 * learning from traffic, revalidation after MAC moves, the generation
 * counter, port management and its errors, traces, MAC refresh and aging,
 * bonds (input from members, bond output, reflections, active-backup), and
 * translations on several RCU reader threads while ports come and go.
 */
#include <autoconf.h>
#include "ofproto/upcall.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"
#include "ofproto/ofproto-rules.h"
#include "ofproto/xlate.h"
#include "base/rcu.h"
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
        FIELD(arp_sha), FIELD(arp_tha), FIELD(pad13),
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
static const char *
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

static void
check_actions(const char *what, const struct xlate_out *out,
              const char *want)
{
    char got[512];

    format_actions(out, got, sizeof got);
    CHECK(!strcmp(got, want), "%s: actions \"%s\", expected \"%s\"",
          what, got, want);
}

static void
add_ports(struct ofproto *ofproto, const uint16_t *ports, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%"PRIu16, ports[i]);
        CHECK_INT(ofproto_port_add(ofproto, ports[i], name, NULL), 0);
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

/* Returns 'flow' with only the bits in 'mask', as a megaflow stores it. */
static struct flow
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

/* A cached flow, as a PMD keeps it for revalidation. */
struct cached_flow {
    struct flow masked;
    struct flow mask;
    struct dp_action actions[XLATE_MAX_ACTIONS];
    uint32_t n_actions;
};

static void
cache_flow(struct cached_flow *cf, const struct flow *flow,
           const struct xlate_out *out)
{
    cf->masked = flow_and_mask(flow, &out->mask);
    cf->mask = out->mask;
    memcpy(cf->actions, out->actions, out->n_actions * sizeof *out->actions);
    cf->n_actions = out->n_actions;
}

static bool
revalidate(struct ofproto *ofproto, const struct cached_flow *cf,
           long long now)
{
    return upcall_revalidate(ofproto, &cf->masked, &cf->mask, cf->actions,
                             cf->n_actions, now);
}

/* VLAN modes.  Every case runs on the same six ports:
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

/* ofproto_port_settings_init(): the modes, their defaults, what each
 * carries, and the inconsistent combinations. */
struct settings_case {
    const char *mode;           /* NULL: default. */
    int tag;
    int trunks[3];
    size_t n_trunks;

    int error;
    enum ofproto_vlan_mode want_mode;
    /* VLANs 0, 1, 10, 20, 4094, 4095 carried or not. */
    bool carries[6];
};

static const uint16_t settings_vlans[6] = { 0, 1, 10, 20, 4094, 4095 };

static const struct settings_case settings_cases[] = {
    { NULL, 0, { 0 }, 0, 0, OFPROTO_VLAN_TRUNK,
      { true, true, true, true, true, true } },
    { NULL, 10, { 0 }, 0, 0, OFPROTO_VLAN_ACCESS,
      { false, false, true, false, false, false } },
    { NULL, 0, { 10, 4094 }, 2, 0, OFPROTO_VLAN_TRUNK,
      { false, false, true, false, true, false } },
    { "trunk", 0, { 1 }, 1, 0, OFPROTO_VLAN_TRUNK,
      { false, true, false, false, false, false } },
    { "access", 4094, { 0 }, 0, 0, OFPROTO_VLAN_ACCESS,
      { false, false, false, false, true, false } },
    { "native-tagged", 10, { 0 }, 0, 0, OFPROTO_VLAN_NATIVE_TAGGED,
      { false, true, true, true, true, true } },
    { "native-untagged", 10, { 20 }, 1, 0, OFPROTO_VLAN_NATIVE_UNTAGGED,
      { false, false, true, true, false, false } },
    { "native-untagged", 10, { 10 }, 1, 0, OFPROTO_VLAN_NATIVE_UNTAGGED,
      { false, false, true, false, false, false } },

    /* Errors. */
    { "access", 0, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "access", 10, { 20 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { NULL, 10, { 20 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "trunk", 10, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "native-tagged", 0, { 10 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "native-untagged", 0, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK,
      { false } },
    { "trunk", 0, { 0, 10 }, 2, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "trunk", 0, { 4095 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "access", 4095, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "access", -1, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "hybrid", 10, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "Access", 10, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
};

static void
test_vlan_settings(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(settings_cases); i++) {
        const struct settings_case *c = &settings_cases[i];
        struct ofproto_port_settings s;
        int error;

        check_set_context("case %zu (%s, tag %d)", i,
                          c->mode ? c->mode : "default", c->tag);
        error = ofproto_port_settings_init(&s, c->mode, c->tag, c->trunks,
                                           c->n_trunks);
        CHECK_INT(error, c->error);
        CHECK_INT(s.vlan_mode, c->want_mode);
        for (size_t j = 0; j < ARRAY_SIZE(settings_vlans); j++) {
            CHECK(ofproto_port_settings_carries(&s, settings_vlans[j])
                  == c->carries[j], "%s: vlan %"PRIu16" carried is %d",
                  check_context(), settings_vlans[j], !c->carries[j]);
        }
        if (!c->error) {
            CHECK_STR(ofproto_vlan_mode_to_string(s.vlan_mode),
                      c->mode ? c->mode
                      : c->tag ? "access" : "trunk");
        }
    }
    check_set_context("%s", "");
}

/* ofproto_port_add() and ofproto_port_set() with settings: errors, the
 * port that carries nothing, and revalidation and MAC flushing when a
 * port's VLANs change. */
static void
test_vlan_port_set(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    static const struct ofproto_port_settings no_vlans;
    struct ofproto_port_settings s, bad, got;
    struct cached_flow_vlan {
        struct flow masked, mask;
        struct dp_action actions[XLATE_MAX_ACTIONS];
        uint32_t n_actions;
    } cf;
    struct xlate_out out;
    struct flow flow;
    uint64_t gen;

    add_vlan_ports(ofproto);

    /* Inconsistent settings are refused. */
    memset(&bad, 0, sizeof bad);
    bad.vlan_mode = OFPROTO_VLAN_ACCESS;
    CHECK_INT(ofproto_port_add(ofproto, 7, "p7", &bad), EINVAL);
    CHECK_INT(ofproto_port_set(ofproto, 1, &bad), EINVAL);
    bad.tag = 5000;
    CHECK_INT(ofproto_port_set(ofproto, 1, &bad), EINVAL);
    CHECK_INT(ofproto_port_set(ofproto, 9, &no_vlans), ENOENT);
    CHECK(!ofproto_port_get(ofproto, 9, &got), "port 9 has settings");
    CHECK(ofproto_port_get(ofproto, 1, &got), "port 1 has no settings");
    CHECK_INT(got.vlan_mode, OFPROTO_VLAN_ACCESS);
    CHECK_INT(got.tag, 10);

    /* A port that carries no VLAN accepts nothing and gets nothing. */
    CHECK_INT(ofproto_port_add(ofproto, 7, "p7", &no_vlans), 0);
    flow = make_flow(7, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("isolated port, untagged", &out, "");
    flow = make_flow(7, mac_a, mac_bcast, VLAN_CFI | 10);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("isolated port, tagged", &out, "");
    flow = make_flow(4, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, false, 0, &out);
    check_actions("vlan 0 flood skips the isolated port", &out, "");

    /* B on p2 (vlan 20); A on p1 (vlan 10) floods vlan 10. */
    flow = make_flow(2, mac_b, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 20, 0), 2);
    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("A to B across vlans floods vlan 10", &out,
                  "5,push:10,3,4,6");
    cf.masked = flow_and_mask(&flow, &out.mask);
    cf.mask = out.mask;
    memcpy(cf.actions, out.actions, out.n_actions * sizeof *out.actions);
    cf.n_actions = out.n_actions;
    CHECK(upcall_revalidate(ofproto, &cf.masked, &cf.mask, cf.actions,
                            cf.n_actions, 0), "flow invalid before change");

    /* Setting the same settings again changes nothing. */
    gen = ofproto_generation(ofproto);
    CHECK(ofproto_port_get(ofproto, 1, &s), "port 1 is gone");
    CHECK_INT(ofproto_port_set(ofproto, 1, &s), 0);
    CHECK(ofproto_generation(ofproto) == gen, "same settings changed the "
          "generation");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 10, 0), 1);

    /* p1 moves to vlan 20: the cached flow is stale, A is forgotten and
     * A now reaches B directly. */
    CHECK_INT(ofproto_port_settings_init(&s, "access", 20, NULL, 0), 0);
    CHECK_INT(ofproto_port_set(ofproto, 1, &s), 0);
    CHECK(ofproto_generation(ofproto) != gen, "generation unchanged");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 10, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 20, 0), 2);
    CHECK(!upcall_revalidate(ofproto, &cf.masked, &cf.mask, cf.actions,
                             cf.n_actions, 0), "flow still valid");
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("A to B in the same vlan", &out, "2");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 20, 0), 1);
    ofproto_destroy(ofproto);
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
test_revalidate(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    static const uint16_t ports[] = { 1, 2, 3 };
    struct cached_flow a_to_b, bcast, stray, wrong;
    struct xlate_out out;
    struct flow flow;
    uint64_t gen;

    add_ports(ofproto, ports, ARRAY_SIZE(ports));

    /* B on port 2; A->B is cached as output:2. */
    flow = make_flow(2, mac_b, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    cache_flow(&bcast, &flow, &out);
    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("A->B", &out, (uint16_t[]) { 2 }, 1);
    cache_flow(&a_to_b, &flow, &out);
    CHECK(revalidate(ofproto, &a_to_b, 0), "fresh flow fails revalidation");
    CHECK(revalidate(ofproto, &bcast, 0), "fresh flow fails revalidation");

    /* Other actions than the translation's fail revalidation. */
    wrong = bcast;
    wrong.n_actions = 1;
    CHECK(!revalidate(ofproto, &wrong, 0), "fewer actions revalidated");
    wrong = bcast;
    wrong.actions[wrong.n_actions++] = wrong.actions[0];
    CHECK(!revalidate(ofproto, &wrong, 0), "more actions revalidated");
    wrong = bcast;
    wrong.actions[0].port = 9;
    CHECK(!revalidate(ofproto, &wrong, 0), "wrong port revalidated");

    /* An unrelated change: C appears on port 3.  The generation moves, but
     * the cached flows are still right. */
    gen = ofproto_generation(ofproto);
    flow = make_flow(3, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK(ofproto_generation(ofproto) != gen, "learning kept the generation");
    CHECK(revalidate(ofproto, &a_to_b, 0),
          "unrelated change failed A->B revalidation");
    CHECK(revalidate(ofproto, &bcast, 0),
          "unrelated change failed broadcast revalidation");

    /* B moves to port 3: A->B must go, and so must the broadcast flow from
     * B's old port: its packets would otherwise never reach learning, so a
     * B still sending there would not be learned back. */
    gen = ofproto_generation(ofproto);
    flow = make_flow(3, mac_b, mac_a, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK(ofproto_generation(ofproto) != gen, "move kept the generation");
    CHECK(!revalidate(ofproto, &a_to_b, 0), "stale A->B revalidated");
    CHECK(!revalidate(ofproto, &bcast, 0),
          "broadcast flow from B's old port revalidated");
    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("A->B after move", &out, (uint16_t[]) { 3 }, 1);
    cache_flow(&a_to_b, &flow, &out);
    CHECK(revalidate(ofproto, &a_to_b, 0), "new A->B fails revalidation");

    /* Revalidation does not learn. */
    CHECK(!revalidate(ofproto, &bcast, 0), "broadcast revalidation");
    CHECK_INT(mac_learning_lookup(ofproto_mac_learning(ofproto), mac_b, 0, 0),
              3);

    /* B ages out: A->B floods now. */
    gen = ofproto_generation(ofproto);
    ofproto_run(ofproto, MAC_LEARNING_DEFAULT_AGING_SEC * 1000LL);
    CHECK(ofproto_generation(ofproto) != gen, "aging kept the generation");
    CHECK(!revalidate(ofproto, &a_to_b, MAC_LEARNING_DEFAULT_AGING_SEC
                      * 1000LL), "aged-out A->B revalidated");

    /* A drop flow for a stray port has an in_port-only mask, so its masked
     * key has dl_dst 00:00:00:00:00:00.  Once the port joins and that MAC
     * is learned on it, translating the masked key still drops, but other
     * packets the flow matches (a broadcast) would now flood: the flow
     * must go because NORMAL now consults bits outside its mask. */
    static const struct eth_addr mac_zero = { { 0 } };
    flow = make_flow(4, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(out.n_actions, 0);
    cache_flow(&stray, &flow, &out);
    CHECK(revalidate(ofproto, &stray, 0), "stray drop fails revalidation");
    CHECK_INT(ofproto_port_add(ofproto, 4, "p4", NULL), 0);
    mac_learning_learn(ofproto_mac_learning(ofproto), mac_zero, 0, 4, 0);
    CHECK_INT(upcall_xlate(ofproto, &stray.masked, false, 0, &out), 0);
    CHECK_INT(out.n_actions, 0);
    CHECK(!revalidate(ofproto, &stray, 0),
          "narrow-mask drop revalidated after its port joined");

    ofproto_destroy(ofproto);
}

static void
test_ports(void)
{
    struct ofproto *ofproto = ofproto_create("br-test", 30);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    struct mac_learning_stats stats;
    char name[OFPROTO_PORT_NAME_SIZE];
    char long_name[OFPROTO_PORT_NAME_SIZE + 1];
    struct xlate_out out;
    struct flow flow;
    uint64_t gen;

    CHECK(!strcmp(ofproto_name(ofproto), "br-test"), "wrong bridge name");
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.aging_sec, 30);

    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 1, "p1", NULL), 0);
    CHECK(ofproto_generation(ofproto) != gen, "port add kept generation");
    CHECK_INT(ofproto_port_add(ofproto, 2, "p2", NULL), 0);
    CHECK_INT(ofproto_port_add(ofproto, 3, "p3", NULL), 0);
    CHECK_INT(ofproto_n_ports(ofproto), 3);
    CHECK(ofproto_has_port(ofproto, 2), "port 2 missing");
    CHECK(!ofproto_has_port(ofproto, 4), "port 4 present");
    CHECK(ofproto_port_name(ofproto, 2, name) && !strcmp(name, "p2"),
          "port 2 name is \"%s\"", name);
    CHECK(!ofproto_port_name(ofproto, 4, name) && !name[0],
          "port 4 has a name");

    /* Errors change nothing, not even the generation. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 2, "again", NULL), EEXIST);
    CHECK_INT(ofproto_port_add(ofproto, 5, "", NULL), EINVAL);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK_INT(ofproto_port_add(ofproto, 5, long_name, NULL), EINVAL);
    CHECK_INT(ofproto_port_del(ofproto, 9), ENOENT);
    CHECK_INT(ofproto_generation(ofproto), gen);
    CHECK_INT(ofproto_n_ports(ofproto), 3);

    /* The longest name that fits. */
    long_name[sizeof long_name - 2] = '\0';
    CHECK_INT(ofproto_port_add(ofproto, 5, long_name, NULL), 0);
    CHECK(ofproto_port_name(ofproto, 5, name) && !strcmp(name, long_name),
          "port 5 name is \"%s\"", name);
    CHECK_INT(ofproto_port_del(ofproto, 5), 0);

    /* Learn A on port 2, B on port 3; deleting port 2 forgets A only. */
    flow = make_flow(2, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    flow = make_flow(3, mac_b, mac_bcast, VLAN_CFI | 5);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(mac_learning_count(ml), 2);
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_del(ofproto, 2), 0);
    CHECK(ofproto_generation(ofproto) != gen, "port del kept generation");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 0, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 5, 0), 3);
    CHECK_INT(ofproto_port_del(ofproto, 2), ENOENT);

    /* Floods skip the removed port; packets from it are dropped. */
    flow = make_flow(1, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("flood after del", &out, (uint16_t[]) { 3 }, 1);
    flow = make_flow(2, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(out.n_actions, 0);
    CHECK_INT(mac_learning_lookup(ml, mac_a, 0, 0), -1);

    /* A port added back floods again. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 2, "p2", NULL), 0);
    CHECK(ofproto_generation(ofproto) != gen, "re-add kept generation");
    flow = make_flow(1, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("flood after re-add", &out, (uint16_t[]) { 2, 3 }, 2);
    ofproto_destroy(ofproto);
    ofproto_destroy(NULL);
}

/* A full bridge: a flood fills 255 actions, and the port table is full. */
static void
test_max_ports(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct xlate_out out;
    struct flow flow;
    int n_bad = 0;

    for (unsigned int i = 0; i < OFPROTO_MAX_PORTS; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%u", i * 7);
        n_bad += ofproto_port_add(ofproto, i * 7, name, NULL) != 0;
    }
    CHECK_INT(n_bad, 0);
    CHECK_INT(ofproto_port_add(ofproto, 60000, "one-too-many", NULL), ENOSPC);
    CHECK_INT(ofproto_n_ports(ofproto), OFPROTO_MAX_PORTS);

    flow = make_flow(7, mac_a, mac_bcast, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, &out), 0);
    CHECK_INT(out.n_actions, OFPROTO_MAX_PORTS - 1);
    for (uint32_t i = 0, port = 0; i < out.n_actions; i++, port += 7) {
        port += port == 7 ? 7 : 0;
        n_bad += out.actions[i].port != port;
    }
    CHECK_INT(n_bad, 0);
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

/* Flows hit in the fast path keep their source alive through refreshes;
 * without them it ages out. */
static void
test_refresh(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 10);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    static const uint16_t ports[] = { 1, 2 };
    struct xlate_out out;
    struct flow flow;

    add_ports(ofproto, ports, ARRAY_SIZE(ports));
    flow = make_flow(1, mac_a, mac_b, VLAN_CFI | 10);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    flow = make_flow(2, mac_b, mac_a, VLAN_CFI | 10);
    upcall_xlate(ofproto, &flow, true, 0, &out);

    for (long long now = 5000; now <= 30000; now += 5000) {
        flow = make_flow(1, mac_a, mac_b, VLAN_CFI | 10);
        ofproto_mac_refresh(ofproto, &flow, now);
        /* A refresh from the wrong port or VLAN does nothing. */
        flow = make_flow(2, mac_b, mac_a, VLAN_CFI | 11);
        ofproto_mac_refresh(ofproto, &flow, now);
        ofproto_run(ofproto, now);
    }
    CHECK_INT(mac_learning_lookup(ml, mac_a, 10, 30000), 1);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 10, 30000), -1);
    CHECK_INT(mac_learning_count(ml), 1);

    /* The PMD might pass a flow key with a multicast source: ignored. */
    flow = make_flow(1, mac_bcast, mac_a, 0);
    ofproto_mac_refresh(ofproto, &flow, 30000);
    CHECK_INT(mac_learning_count(ml), 1);

    ofproto_run(ofproto, 40000);
    CHECK_INT(mac_learning_count(ml), 0);
    ofproto_destroy(ofproto);
}

/* Translations on RCU reader threads while the control thread adds and
 * removes a port.  Every decision must be sane, and once the port is gone
 * no MAC may be left on it. */
enum { STRESS_PORT = 5, STRESS_ITERATIONS = 2000 };

struct stress_arg {
    struct ofproto *ofproto;
    unsigned int id;
    bool done;                  /* Set by the worker (atomic). */
    int n_bad;
};

static void *
stress_main(void *arg_)
{
    struct stress_arg *arg = arg_;
    uint32_t seed = 12345 + arg->id;
    struct xlate_out out;

    rcu_register_thread();
    for (int iter = 0; iter < STRESS_ITERATIONS; iter++) {
        for (int i = 0; i < 16; i++) {
            struct eth_addr src = { { 0x02, 0, 0, arg->id, 0, 0 } };
            struct eth_addr dst = { { 0x02, 0, 0, 0, 0, 0 } };
            uint16_t in_port;
            struct flow flow;

            seed = seed * 1103515245 + 12345;
            in_port = 1 + (seed >> 16) % STRESS_PORT;
            src.ea[5] = seed >> 8;
            dst.ea[3] = 1 + (seed >> 24) % 3;
            dst.ea[5] = seed >> 12;
            flow = make_flow(in_port, src, dst, 0);
            if (upcall_xlate(arg->ofproto, &flow, true, 0, &out)) {
                arg->n_bad++;
                continue;
            }
            for (uint32_t j = 0; j < out.n_actions; j++) {
                uint16_t port = out.actions[j].port;

                arg->n_bad += port == in_port || port < 1
                              || port > STRESS_PORT;
            }
        }
        rcu_quiesce();
    }
    rcu_unregister();
    __atomic_store_n(&arg->done, true, __ATOMIC_RELEASE);
    return NULL;
}

static void
test_stress(void)
{
    enum { N_THREADS = 2 };
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mac_learning_row *rows;
    struct stress_arg args[N_THREADS];
    pthread_t threads[N_THREADS];
    bool running = true;
    int round;

    for (uint16_t p = 1; p < STRESS_PORT; p++) {
        char name[16];

        snprintf(name, sizeof name, "p%"PRIu16, p);
        ofproto_port_add(ofproto, p, name, NULL);
    }
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct stress_arg) { .ofproto = ofproto, .id = i + 1 };
        pthread_create(&threads[i], NULL, stress_main, &args[i]);
    }
    /* Flap the port for as long as the workers run, whatever the
     * scheduling. */
    for (round = 0; running; round++) {
        size_t n;

        CHECK_INT(ofproto_port_add(ofproto, STRESS_PORT, "flappy", NULL), 0);
        CHECK_INT(ofproto_port_del(ofproto, STRESS_PORT), 0);
        n = mac_learning_dump(ofproto_mac_learning(ofproto), 0, &rows);
        for (size_t i = 0; i < n; i++) {
            CHECK(rows[i].port != STRESS_PORT,
                  "round %d: MAC left on removed port", round);
        }
        free(rows);

        running = false;
        for (int i = 0; i < N_THREADS; i++) {
            running |= !__atomic_load_n(&args[i].done, __ATOMIC_ACQUIRE);
        }
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_INT(args[i].n_bad, 0);
    }
    if (getenv("TEST_UPCALL_VERBOSE")) {
        printf("stress: %d port flaps\n", round);
    }
    CHECK(mac_learning_count(ofproto_mac_learning(ofproto)) > 0,
          "nothing was learned");
    ofproto_destroy(ofproto);
}

/* Bonds.  Every case runs on bridge ports p1 and p2 (1, 2) and bond up0
 * (10) over members 11, 12 and 13, all trunks of every VLAN. */
#define BOND_NO 10

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

/* Makes bridge ports 1 and 2 and bond 10 in 'mode' over members 11, 12
 * and 13 with 'active' active. */
static struct ofproto *
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

/* Member and bond management, and its errors. */
static void
test_bond_ports(void)
{
    struct ofproto *ofproto = make_bond_bridge(BOND_MODE_BALANCE_TCP,
                                               BOND_PORT_NONE);
    uint16_t bundle;
    uint64_t gen;

    CHECK_INT(ofproto_member_add(ofproto, 14, "m4", 99), ENOENT);
    CHECK_INT(ofproto_member_add(ofproto, 14, "m4", 11), ENOENT);
    CHECK_INT(ofproto_member_add(ofproto, 14, "m4", 14), EINVAL);
    CHECK_INT(ofproto_member_add(ofproto, 11, "m1", BOND_NO), EEXIST);
    CHECK_INT(ofproto_member_add(ofproto, 14, "", BOND_NO), EINVAL);
    CHECK_INT(ofproto_port_set_bond(ofproto, 11, BOND_MODE_BALANCE_TCP,
                                    BOND_PORT_NONE), ENOENT);
    CHECK_INT(ofproto_port_set_bond(ofproto, 99, BOND_MODE_BALANCE_TCP,
                                    BOND_PORT_NONE), ENOENT);

    CHECK(ofproto_port_bundle(ofproto, 12, &bundle), "member 12");
    CHECK_INT(bundle, BOND_NO);
    CHECK(ofproto_port_bundle(ofproto, 1, &bundle), "port 1");
    CHECK_INT(bundle, 1);
    CHECK(ofproto_port_bundle(ofproto, BOND_NO, &bundle), "bond");
    CHECK_INT(bundle, BOND_NO);
    CHECK(!ofproto_port_bundle(ofproto, 50, &bundle), "port 50");
    CHECK_INT(bundle, 50);

    /* The same settings again change nothing; another mode does. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO, BOND_MODE_BALANCE_TCP,
                                    12), 0);
    CHECK(ofproto_generation(ofproto) == gen, "same bond settings changed "
          "the generation");
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO, BOND_MODE_BALANCE_SLB,
                                    BOND_PORT_NONE), 0);
    CHECK(ofproto_generation(ofproto) != gen, "generation unchanged");

    /* A removed member is no longer an input of the bond. */
    CHECK_INT(ofproto_port_del(ofproto, 13), 0);
    CHECK(!ofproto_port_bundle(ofproto, 13, &bundle), "member 13 gone");
    ofproto_destroy(ofproto);
}

/* Active-backup: a flow from the active member stops being valid when
 * another member becomes active; a flow from a member whose source is
 * learned on the bond revalidates. */
static void
test_bond_revalidate(void)
{
    struct ofproto *ofproto = make_bond_bridge(BOND_MODE_ACTIVE_BACKUP, 11);
    struct cached_flow cf, cf_backup;
    struct xlate_out out;
    struct flow flow;

    flow = make_flow(11, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, &out), 0);
    check_actions("A from active member", &out, "1,2");
    cache_flow(&cf, &flow, &out);
    CHECK(revalidate(ofproto, &cf, 1), "flow from the active member is "
          "valid");

    flow = make_flow(12, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 2, &out), 0);
    check_actions("A from backup member", &out, "");
    cache_flow(&cf_backup, &flow, &out);
    CHECK(revalidate(ofproto, &cf_backup, 3), "drop on the backup member "
          "is valid");

    /* Failover to 12. */
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO,
                                    BOND_MODE_ACTIVE_BACKUP, 12), 0);
    CHECK(!revalidate(ofproto, &cf, 4), "flow from the old active member "
          "still valid");
    CHECK(!revalidate(ofproto, &cf_backup, 5), "drop on the new active "
          "member still valid");
    flow = make_flow(12, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 6, &out), 0);
    check_actions("A from the new active member", &out, "1,2");
    ofproto_destroy(ofproto);
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

int
main(void)
{
    static const struct check_test tests[] = {
        { "xlate_table", test_xlate_table },
        { "vlan_table", test_vlan_table },
        { "vlan_settings", test_vlan_settings },
        { "vlan_port_set", test_vlan_port_set },
        { "learn_then_reply", test_learn_then_reply },
        { "revalidate", test_revalidate },
        { "ports", test_ports },
        { "max_ports", test_max_ports },
        { "trace", test_trace },
        { "refresh", test_refresh },
        { "bond_table", test_bond_table },
        { "bond_ports", test_bond_ports },
        { "bond_rules", test_bond_rules },
        { "bond_revalidate", test_bond_revalidate },
        { "bond_trace", test_bond_trace },
        { "stress", test_stress },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-upcall");
}
