/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for port mirrors in translation (lib/ofproto/mirror.c and
 * its hooks in xlate.c), table-driven: input, output and all-port
 * selection, VLAN selection, one copy per output however many mirrors
 * select a frame, the output port left out of floods and learning, a
 * frame received on the output port dropped, the tag of a copy as the
 * output port wants it and put back for what follows; then the counter
 * sets a mirrored flow credits, which stay the same object across
 * translations so that revalidation keeps the flow.
 */
#include <autoconf.h>
#include "ofproto/mirror.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "classifier/dp-flow.h"
#include "ofproto-test.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"
#include "ofproto/ofproto-rules.h"
#include "ofproto/upcall.h"
#include "base/util.h"

#define MAX_PORTS 6
#define MAX_MIRRORS 3

/* A port: trunk of every VLAN unless 'tag' (access). */
struct port_spec {
    uint16_t port_no;
    int tag;
};

struct mirror_spec {
    bool select_all;
    uint16_t srcs[2], dsts[2];
    size_t n_srcs, n_dsts;
    int vlans[2];
    size_t n_vlans;
    uint16_t out;
};

struct mirror_case {
    const char *name;
    struct port_spec ports[MAX_PORTS];
    size_t n_ports;
    struct mirror_spec mirrors[MAX_MIRRORS];
    size_t n_mirrors;
    uint16_t mac_b_port;        /* Where MAC B is learned (0: nowhere). */

    uint16_t in_port;
    struct eth_addr dl_dst;
    uint16_t tci;

    const char *actions;        /* As format_actions() writes them. */
    bool mirrored;              /* A mirror counts the flow. */
    bool src_learned;           /* MAC A learned afterwards. */
};

#define TRUNKS(...) .ports = { __VA_ARGS__ }, \
    .n_ports = sizeof (struct port_spec[]) { __VA_ARGS__ } \
               / sizeof (struct port_spec)
#define SRC(P) .srcs = { P }, .n_srcs = 1
#define DST(P) .dsts = { P }, .n_dsts = 1

static const struct mirror_case mirror_cases[] = {
    {
        .name = "src: copy as received, then the flood (without the output)",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { SRC(1), .out = 4 } }, .n_mirrors = 1,
        .in_port = 1, .dl_dst = MAC_BCAST,
        .actions = "4,2,3", .mirrored = true, .src_learned = true,
    },
    {
        .name = "src: a frame from another port is not copied",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { SRC(1), .out = 4 } }, .n_mirrors = 1,
        .in_port = 2, .dl_dst = MAC_BCAST,
        .actions = "1,3", .src_learned = true,
    },
    {
        .name = "dst: copy as sent, after the output",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { DST(2), .out = 4 } }, .n_mirrors = 1,
        .mac_b_port = 2, .in_port = 1, .dl_dst = MAC_B,
        .actions = "2,4", .mirrored = true, .src_learned = true,
    },
    {
        .name = "dst: output to another port is not copied",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { DST(3), .out = 4 } }, .n_mirrors = 1,
        .mac_b_port = 2, .in_port = 1, .dl_dst = MAC_B,
        .actions = "2", .src_learned = true,
    },
    {
        .name = "select_all: one copy, on input",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { .select_all = true, .out = 4 } }, .n_mirrors = 1,
        .mac_b_port = 2, .in_port = 1, .dl_dst = MAC_B,
        .actions = "4,2", .mirrored = true, .src_learned = true,
    },
    {
        .name = "dedup: two mirrors to one output copy once",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { SRC(1), .out = 4 }, { DST(2), .out = 4 } },
        .n_mirrors = 2,
        .mac_b_port = 2, .in_port = 1, .dl_dst = MAC_B,
        .actions = "4,2", .mirrored = true, .src_learned = true,
    },
    {
        .name = "two mirrors to two outputs copy to both",
        TRUNKS({1}, {2}, {3}, {4}, {5}),
        .mirrors = { { SRC(1), .out = 4 }, { SRC(1), .out = 5 } },
        .n_mirrors = 2,
        .in_port = 1, .dl_dst = MAC_BCAST,
        .actions = "4,5,2,3", .mirrored = true, .src_learned = true,
    },
    {
        .name = "a destination learned on the output port is dropped",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { DST(3), .out = 4 } }, .n_mirrors = 1,
        .mac_b_port = 4, .in_port = 1, .dl_dst = MAC_B,
        .actions = "", .src_learned = true,
    },
    {
        .name = "a frame received on the output port is dropped, unlearned",
        TRUNKS({1}, {2}, {3}, {4}),
        .mirrors = { { .select_all = true, .out = 4 } }, .n_mirrors = 1,
        .in_port = 4, .dl_dst = MAC_BCAST,
        .actions = "", .src_learned = false,
    },
    {
        .name = "select_vlan: a frame of a selected VLAN, tagged to a trunk",
        TRUNKS({1, 10}, {2, 20}, {3, 10}, {4}, {5, 20}),
        .mirrors = { { .select_all = true, .vlans = { 10 }, .n_vlans = 1,
                       .out = 4 } }, .n_mirrors = 1,
        .in_port = 1, .dl_dst = MAC_BCAST,
        .actions = "push:10,4,pop,3", .mirrored = true, .src_learned = true,
    },
    {
        .name = "select_vlan: a frame of another VLAN is not copied",
        TRUNKS({1, 10}, {2, 20}, {3, 10}, {4}, {5, 20}),
        .mirrors = { { .select_all = true, .vlans = { 10 }, .n_vlans = 1,
                       .out = 4 } }, .n_mirrors = 1,
        .in_port = 2, .dl_dst = MAC_BCAST,
        .actions = "5", .src_learned = true,
    },
    {
        .name = "an access output port gets the copy untagged, tag put back",
        TRUNKS({1}, {2}, {3}, {4, 10}),
        .mirrors = { { SRC(1), .out = 4 } }, .n_mirrors = 1,
        .in_port = 1, .dl_dst = MAC_BCAST, .tci = VLAN_CFI | 10,
        .actions = "pop,4,push:10,2,3", .mirrored = true,
        .src_learned = true,
    },
    {
        .name = "a copy last needs no tag put back",
        TRUNKS({1}, {2}, {3, 10}),
        .mirrors = { { DST(2), .out = 3 } }, .n_mirrors = 1,
        .mac_b_port = 2, .in_port = 1, .dl_dst = MAC_B,
        .tci = VLAN_CFI | 10,
        .actions = "2,pop,3", .mirrored = true, .src_learned = true,
    },
};

/* Makes the bridge of 'c' with its ports, MACs and mirrors. */
static struct ofproto *
mirror_case_bridge(const struct mirror_case *c)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mirror_settings s[MAX_MIRRORS];

    for (size_t i = 0; i < c->n_ports; i++) {
        struct ofproto_port_settings ps;
        char name[16];

        CHECK_INT(ofproto_port_settings_init(&ps, NULL, c->ports[i].tag,
                                             NULL, 0), 0);
        snprintf(name, sizeof name, "p%"PRIu16, c->ports[i].port_no);
        CHECK_INT(ofproto_port_add(ofproto, c->ports[i].port_no, name, &ps),
                  0);
    }
    if (c->mac_b_port) {
        int vlan = 0;

        for (size_t i = 0; i < c->n_ports; i++) {
            if (c->ports[i].port_no == c->in_port && c->ports[i].tag) {
                vlan = c->ports[i].tag;
            }
        }
        if (c->tci) {
            vlan = c->tci & VLAN_VID_MASK;
        }
        mac_learning_learn(ofproto_mac_learning(ofproto), mac_b, vlan,
                           c->mac_b_port, 0);
    }
    for (size_t i = 0; i < c->n_mirrors; i++) {
        const struct mirror_spec *m = &c->mirrors[i];
        static const char *const names[] = { "m0", "m1", "m2" };

        s[i] = (struct mirror_settings) {
            .name = names[i], .select_all = m->select_all,
            .srcs = m->srcs, .n_srcs = m->n_srcs,
            .dsts = m->dsts, .n_dsts = m->n_dsts,
            .vlans = m->vlans, .n_vlans = m->n_vlans,
            .out_port = m->out,
        };
    }
    CHECK_INT(ofproto_set_mirrors(ofproto, s, c->n_mirrors), 0);
    return ofproto;
}

static void
test_mirror_table(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(mirror_cases); i++) {
        const struct mirror_case *c = &mirror_cases[i];
        struct ofproto *ofproto = mirror_case_bridge(c);
        struct flow flow = make_flow(c->in_port, mac_a, c->dl_dst, c->tci);
        struct xlate_out *out = xzalloc(sizeof *out);
        struct xlate_out *again = xzalloc(sizeof *again);
        struct flow masked;
        int vlan = c->tci & VLAN_VID_MASK;

        check_set_context("%s", c->name);
        for (size_t p = 0; p < c->n_ports; p++) {
            if (c->ports[p].port_no == c->in_port && c->ports[p].tag) {
                vlan = c->ports[p].tag;
            }
        }
        CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, out), 0);
        check_actions(c->name, out, c->actions);
        CHECK(!out->rule_stats == !c->mirrored, "%s: counted %d",
              c->name, out->rule_stats != NULL);
        CHECK_INT(mac_learning_lookup(ofproto_mac_learning(ofproto), mac_a,
                                      vlan, 0),
                  c->src_learned ? c->in_port : -1);

        /* The megaflow holds as installed, counters included. */
        masked = flow_and_mask(&flow, &out->mask);
        CHECK(upcall_revalidate_rule(ofproto, &masked, &out->mask,
                                     out->actions, out->n_actions,
                                     out->rule_stats, 0),
              "%s: revalidation keeps the flow", c->name);
        CHECK_INT(upcall_xlate(ofproto, &flow, false, 0, again), 0);
        CHECK(again->rule_stats == out->rule_stats,
              "%s: the same counters twice", c->name);
        free(out);
        free(again);
        ofproto_destroy(ofproto);
    }
    check_set_context("%s", "");
}

/* A mirrored flow credits the mirror, and the rule that decided too. */
static void
test_mirror_credit(void)
{
    static const uint16_t srcs[] = { 1 };
    struct mirror_settings s = {
        .name = "m0", .srcs = srcs, .n_srcs = 1, .out_port = 3,
    };
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct ofproto_rule *rule;
    struct xlate_out *out = xzalloc(sizeof *out);
    struct flow flow = make_flow(1, mac_a, mac_b, 0);
    struct mirror_info *infos;
    size_t n;

    add_ports(ofproto, (uint16_t[]) { 1, 2, 3 }, 3);
    CHECK(!ofproto_rule_create(10, 0, "", "output:2", NULL, NULL, &rule),
          "rule");
    ofproto_set_rules(ofproto, &rule, 1);
    CHECK_INT(ofproto_set_mirrors(ofproto, &s, 1), 0);

    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, out), 0);
    check_actions("rule and mirror", out, "3,2");
    CHECK(out->rule_stats && out->rule_stats != &rule->stats,
          "a counter set");
    CHECK(rule_stats_covers(out->rule_stats, &rule->stats), "covers rule");
    rule_stats_credit(out->rule_stats, 2, 200);
    CHECK_INT(rule->stats.n_packets, 2);
    CHECK_INT(rule->stats.n_bytes, 200);

    n = ofproto_mirrors_get(ofproto, &infos);
    CHECK_INT(n, 1);
    CHECK(rule_stats_covers(out->rule_stats, infos[0].stats),
          "covers mirror");
    CHECK_INT(infos[0].tx_packets, 2);
    CHECK_INT(infos[0].tx_bytes, 200);
    mirror_infos_free(infos, n);

    /* The same name keeps its counters; no mirror, no counter set. */
    s.out_port = 2;
    s.srcs = NULL;
    s.n_srcs = 0;
    CHECK_INT(ofproto_set_mirrors(ofproto, &s, 1), 0);
    n = ofproto_mirrors_get(ofproto, &infos);
    CHECK_INT(infos[0].tx_packets, 2);
    mirror_infos_free(infos, n);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, out), 0);
    CHECK(out->rule_stats == &rule->stats, "the rule's own counters");

    /* Bad settings change nothing. */
    {
        struct mirror_settings two[2] = { s, s };

        CHECK_INT(ofproto_set_mirrors(ofproto, two, 2), EINVAL);
        n = ofproto_mirrors_get(ofproto, &infos);
        CHECK_INT(n, 1);
        mirror_infos_free(infos, n);
    }
    free(out);
    ofproto_destroy(ofproto);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "mirror_table", test_mirror_table },
        { "mirror_credit", test_mirror_credit },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-mirror");
}
