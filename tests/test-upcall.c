/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the slow path: the NORMAL action's decisions and, bit by
 * bit, the megaflow masks it returns (too wide and too narrow both fail),
 * learning from traffic, revalidation after MAC moves, the generation
 * counter, port management and its errors, traces, MAC refresh and aging,
 * and translations on several RCU reader threads while ports come and go.
 */
#include <autoconf.h>
#include "upcall.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-qsbr.h>
#include "check.h"
#include "mac-learning.h"
#include "util.h"

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

    /* Expected: output ports in order (none = drop), mask, and where the
     * source is known afterwards in its VLAN (-1: unknown). */
    uint16_t outputs[MAX_PORTS];
    size_t n_outputs;
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
        .name = "priority-tagged frame is in vlan 0",
        PORTS(1, 2, 3),
        .macs = { { MAC_B, 0, 2 } }, .n_macs = 1,
        .in_port = 3, .dl_src = MAC_A, .dl_dst = MAC_B,
        .tci = (3 << VLAN_PCP_SHIFT) | VLAN_CFI, .learn = true,
        OUTPUTS(2), .mask = MASK_NORMAL, .src_port_after = 3,
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

static void
add_ports(struct ofproto *ofproto, const uint16_t *ports, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%"PRIu16, ports[i]);
        CHECK_INT(ofproto_port_add(ofproto, ports[i], name), 0);
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
    check_outputs(c->name, &out, c->outputs, c->n_outputs);
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
    check_outputs(c->name, &out, c->outputs, c->n_outputs);
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
    struct dp_action actions[UPCALL_MAX_ACTIONS];
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
    CHECK_INT(ofproto_port_add(ofproto, 4, "p4"), 0);
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
    CHECK_INT(ofproto_port_add(ofproto, 1, "p1"), 0);
    CHECK(ofproto_generation(ofproto) != gen, "port add kept generation");
    CHECK_INT(ofproto_port_add(ofproto, 2, "p2"), 0);
    CHECK_INT(ofproto_port_add(ofproto, 3, "p3"), 0);
    CHECK_INT(ofproto_n_ports(ofproto), 3);
    CHECK(ofproto_has_port(ofproto, 2), "port 2 missing");
    CHECK(!ofproto_has_port(ofproto, 4), "port 4 present");
    CHECK(ofproto_port_name(ofproto, 2, name) && !strcmp(name, "p2"),
          "port 2 name is \"%s\"", name);
    CHECK(!ofproto_port_name(ofproto, 4, name) && !name[0],
          "port 4 has a name");

    /* Errors change nothing, not even the generation. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 2, "again"), EEXIST);
    CHECK_INT(ofproto_port_add(ofproto, 5, ""), EINVAL);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK_INT(ofproto_port_add(ofproto, 5, long_name), EINVAL);
    CHECK_INT(ofproto_port_del(ofproto, 9), ENOENT);
    CHECK_INT(ofproto_generation(ofproto), gen);
    CHECK_INT(ofproto_n_ports(ofproto), 3);

    /* The longest name that fits. */
    long_name[sizeof long_name - 2] = '\0';
    CHECK_INT(ofproto_port_add(ofproto, 5, long_name), 0);
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
    CHECK_INT(ofproto_port_add(ofproto, 2, "p2"), 0);
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
        n_bad += ofproto_port_add(ofproto, i * 7, name) != 0;
    }
    CHECK_INT(n_bad, 0);
    CHECK_INT(ofproto_port_add(ofproto, 60000, "one-too-many"), ENOSPC);
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
        rcu_quiescent_state();
    }
    rcu_unregister_thread();
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
        ofproto_port_add(ofproto, p, name);
    }
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct stress_arg) { .ofproto = ofproto, .id = i + 1 };
        pthread_create(&threads[i], NULL, stress_main, &args[i]);
    }
    /* Flap the port for as long as the workers run, whatever the
     * scheduling. */
    for (round = 0; running; round++) {
        size_t n;

        CHECK_INT(ofproto_port_add(ofproto, STRESS_PORT, "flappy"), 0);
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

int
main(void)
{
    static const struct check_test tests[] = {
        { "xlate_table", test_xlate_table },
        { "learn_then_reply", test_learn_then_reply },
        { "revalidate", test_revalidate },
        { "ports", test_ports },
        { "max_ports", test_max_ports },
        { "trace", test_trace },
        { "refresh", test_refresh },
        { "stress", test_stress },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-upcall");
}
