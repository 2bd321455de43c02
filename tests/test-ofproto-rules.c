/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the rule table: action parsing and formatting (with the
 * errors), flow-text splitting, lookup order and exact megaflow masks
 * (expected masks written out, then checked by brute force on variations
 * of the unmasked bits), translation of rule actions into datapath
 * actions, revalidation after rule changes, counters, config errors with
 * line:column, and a reader thread that behaves like a PMD to show that
 * once ofproto_set_rules() returns no flow of the old rules forwards.
 */
#include <autoconf.h>
#include "ofproto/ofproto-rules.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "config/config.h"
#include "config/config-check.h"
#include "ofproto/ofpact.h"
#include "base/rcu.h"
#include "ofproto/ofproto.h"
#include "ofproto/upcall.h"
#include "base/util.h"

/* Constant byte swaps, for network-order fields in static tables. */
#define BE16(X) ((ovs_be16) __builtin_bswap16(X))
#define BE32(X) ((ovs_be32) __builtin_bswap32(X))

#define MAC_A { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a } }
#define MAC_B { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b } }
#define MAC_FF { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } }

/* Ports "p1".."p9" are numbers 1..9. */
static bool
test_port_lookup(const char *name, uint16_t *port_no, void *aux OVS_UNUSED)
{
    if (name[0] == 'p' && name[1] >= '1' && name[1] <= '9' && !name[2]) {
        *port_no = name[1] - '0';
        return true;
    }
    return false;
}

static bool
test_port_name(uint16_t port_no, char *name, size_t size,
               void *aux OVS_UNUSED)
{
    if (port_no >= 1 && port_no <= 9) {
        snprintf(name, size, "p%u", (unsigned int) port_no);
        return true;
    }
    return false;
}

/* Creates a rule or fails the test. */
static struct ofproto_rule *
make_rule(int priority, uint64_t cookie, const char *match,
          const char *actions)
{
    struct ofproto_rule *rule;
    char *error = ofproto_rule_create(priority, cookie, match, actions,
                                      test_port_lookup, NULL, &rule);

    CHECK(!error, "rule \"%s\" / \"%s\": %s", match, actions, error);
    free(error);
    return rule;
}

/* Action parsing and formatting. */

struct ofpact_case {
    const char *match;
    const char *actions;
    const char *formatted;      /* Expected canonical text, or NULL. */
    const char *error;          /* Expected error substring, or NULL. */
};

static const struct ofpact_case ofpact_cases[] = {
    { "", "output:p2", "output:p2", NULL },
    { "", "output:7", "output:p7", NULL },
    { "", "output:12", "output:12", NULL },
    { "", "output:p0", NULL, "\"output:p0\": no port named \"p0\"" },
    { "", "output:", NULL, "no port named \"\"" },
    { "", "output:99999", NULL, "\"output:99999\": \"99999\" is not a port" },
    { "", "NORMAL", "NORMAL", NULL },
    { "", "normal", "NORMAL", NULL },
    { "", "flood", "FLOOD", NULL },
    { "", "drop", "drop", NULL },
    { "", " drop ", "drop", NULL },
    { "", "drop,output:p1", NULL, "\"drop\" must be the only action" },
    { "", "output:p1,drop", NULL, "\"drop\" must be the only action" },
    { "", "", NULL, "no actions" },
    { "", "output:p1,,output:p2", NULL, "empty action" },
    { "", "bogus", NULL, "unknown action \"bogus\"" },
    { "", "bogus:1", NULL, "unknown action \"bogus:1\"" },
    { "", "normal:1", NULL, "\"normal:1\": normal takes no argument" },
    { "", "push_vlan:0x8100", "push_vlan:0x8100", NULL },
    { "", "push_vlan:0x88a8", "push_vlan:0x88a8", NULL },
    { "", "push_vlan:0x0800", NULL, "\"push_vlan:0x0800\": the TPID" },
    { "", "pop_vlan", "pop_vlan", NULL },
    { "", "strip_vlan", "pop_vlan", NULL },
    { "", "mod_vlan_vid:4095", "mod_vlan_vid:4095", NULL },
    { "", "mod_vlan_vid:4096", NULL, "\"mod_vlan_vid:4096\": the VID" },
    { "", "mod_vlan_vid:012", NULL, "\"mod_vlan_vid:012\"" },
    { "", "mod_vlan_pcp:7", "mod_vlan_pcp:7", NULL },
    { "", "mod_vlan_pcp:8", NULL, "\"mod_vlan_pcp:8\": the PCP" },
    { "", "set_field:02:00:00:00:00:01->eth_src",
      "mod_dl_src:02:00:00:00:00:01", NULL },
    { "", "mod_dl_dst:02:00:00:00:00:02", "mod_dl_dst:02:00:00:00:00:02",
      NULL },
    { "", "mod_dl_dst:02:00:00:00:00", NULL, "is not an Ethernet address" },
    { "ip", "set_field:10.1.2.3->ip_src", "mod_nw_src:10.1.2.3", NULL },
    { "ip", "set_field:10.1.2.3->nw_dst", "mod_nw_dst:10.1.2.3", NULL },
    { "ip", "mod_nw_dst:10.1.2.300", NULL, "is not an IPv4 address" },
    { "", "set_field:10.1.2.3->ip_src", NULL,
      "\"set_field:10.1.2.3->ip_src\" requires an IPv4 match" },
    { "ipv6", "mod_nw_src:10.1.2.3", NULL,
      "\"mod_nw_src:10.1.2.3\" requires an IPv4 match" },
    { "tcp", "set_field:8080->tcp_dst", "mod_tp_dst:8080", NULL },
    { "tcp6", "set_field:8080->tcp_src", "mod_tp_src:8080", NULL },
    { "udp", "set_field:8080->tcp_dst", NULL,
      "\"set_field:8080->tcp_dst\" requires a TCP match" },
    { "udp", "set_field:53->udp_src", "mod_tp_src:53", NULL },
    { "ip", "set_field:53->udp_src", NULL, "requires a UDP match" },
    { "sctp", "mod_tp_src:9", "mod_tp_src:9", NULL },
    { "icmp", "mod_tp_src:9", NULL, "requires a TCP, UDP or SCTP match" },
    { "tcp", "mod_tp_src:65536", NULL, "is not a port number" },
    { "", "set_field:42->tun_id", "set_field:0x2a->tun_id", NULL },
    { "", "set_tunnel:0xffffff", "set_field:0xffffff->tun_id", NULL },
    { "", "set_field:16777216->tun_id", NULL,
      "is not a VNI (0 to 16777215: VXLAN carries 24 bits of tun_id)" },
    { "", "set_field:1->vlan_vid", NULL, "set_field cannot set \"vlan_vid\"" },
    { "", "set_field:10.0.0.1", NULL, "expected set_field:VALUE->FIELD" },
    { "in_port=p1,ip",
      "mod_vlan_vid:10,mod_vlan_pcp:3,mod_nw_src:1.2.3.4,output:p2,"
      "pop_vlan,output:3,normal",
      "mod_vlan_vid:10,mod_vlan_pcp:3,mod_nw_src:1.2.3.4,output:p2,"
      "pop_vlan,output:p3,NORMAL", NULL },
};

static void
test_ofpacts(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(ofpact_cases); i++) {
        const struct ofpact_case *c = &ofpact_cases[i];
        struct flow match, mask;
        struct ofpact *acts;
        size_t n;
        char *error;

        error = match_parse(c->match, test_port_lookup, NULL, &match, &mask);
        CHECK(!error, "match \"%s\": %s", c->match, error);
        free(error);
        error = ofpacts_parse(c->actions, &match, &mask, test_port_lookup,
                              NULL, &acts, &n);
        if (c->error) {
            CHECK(error && strstr(error, c->error),
                  "actions \"%s\": error \"%s\", expected \"%s\"",
                  c->actions, error ? error : "(none)", c->error);
            CHECK(!acts && !n, "actions \"%s\": outputs set on error",
                  c->actions);
        } else {
            char buf[512];

            CHECK(!error, "actions \"%s\": %s", c->actions, error);
            ofpacts_format(acts, n, test_port_name, NULL, buf, sizeof buf);
            CHECK_STR(buf, c->formatted);
        }
        free(error);
        free(acts);
    }
}

/* Splitting "priority=...,cookie=...,MATCH,actions=..." */

struct split_case {
    const char *text;
    int priority;
    uint64_t cookie;
    const char *match;
    const char *actions;        /* NULL: none. */
    const char *error;
};

static const struct split_case split_cases[] = {
    { "priority=100,cookie=0x5,in_port=p1,ip,nw_dst=10.0.0.0/8,"
      "actions=output:p2", 100, 5, "in_port=p1,ip,nw_dst=10.0.0.0/8",
      "output:p2", NULL },
    { "ip actions=drop", -1, 0, "ip", "drop", NULL },
    { "actions=mod_vlan_vid:3,output:p1", -1, 0, "",
      "mod_vlan_vid:3,output:p1", NULL },
    { "tcp,tp_dst=80", -1, 0, "tcp,tp_dst=80", NULL, NULL },
    { "", -1, 0, "", NULL, NULL },
    { "priority=65536,actions=drop", 0, 0, NULL, NULL,
      "\"priority=65536\": the priority must be 0 to 65535" },
    { "priority=-1,actions=drop", 0, 0, NULL, NULL, "the priority must" },
    { "cookie=zz,actions=drop", 0, 0, NULL, NULL,
      "\"cookie=zz\": the cookie must be a 64-bit number" },
};

static void
test_split(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(split_cases); i++) {
        const struct split_case *c = &split_cases[i];
        char *match, *actions;
        uint64_t cookie;
        int priority;
        char *error;

        error = ofproto_rule_split(c->text, &priority, &cookie, &match,
                                   &actions);
        check_set_context("split \"%s\"", c->text);
        if (c->error) {
            CHECK(error && strstr(error, c->error), "%s: error \"%s\"",
                  check_context(), error ? error : "(none)");
            CHECK(!match && !actions, "%s: outputs on error",
                  check_context());
        } else {
            CHECK(!error, "%s: %s", check_context(), error);
            CHECK_INT(priority, c->priority);
            CHECK_INT(cookie, c->cookie);
            CHECK_STR(match, c->match);
            CHECK_STR(actions, c->actions);
        }
        free(error);
        free(match);
        free(actions);
    }
    check_set_context("%s", "");
}

/* Lookup and megaflow masks. */

#define MAX_RULES 4

struct rule_spec {
    int priority;
    const char *match;
};

struct lookup_case {
    const char *name;
    struct rule_spec rules[MAX_RULES]; /* In insertion order. */
    size_t n_rules;
    struct flow packet;
    int winner;                 /* Index into 'rules', or -1. */
    struct flow mask;           /* Expected, exactly. */
};

/* An IPv4 packet from p1 to 'DL_DST' with every field the rules might
 * look at set; '...' adds fields (a VLAN tag). */
#define PKT_IP(DL_DST, PROTO, TP_SRC, TP_DST, FLAGS, ...)               \
    { .in_port = 1, .dl_src = MAC_A, .dl_dst = DL_DST,                  \
      .dl_type = BE16(0x0800), .nw_src = BE32(0x0a000001),              \
      .nw_dst = BE32(0x0a000102), .nw_proto = PROTO, .nw_ttl = 64,      \
      .nw_tos = 0x20, .tp_src = BE16(TP_SRC), .tp_dst = BE16(TP_DST),   \
      .tcp_flags = BE16(FLAGS), __VA_ARGS__ }
#define PKT_TCP(...) PKT_IP(MAC_B, 6, 12345, 80, 0x002, __VA_ARGS__)
#define PKT_TCP_BCAST() PKT_IP(MAC_FF, 6, 12345, 80, 0x002)
#define PKT_ICMP_REPLY() PKT_IP(MAC_B, 1, 0, 0, 0)

static const struct lookup_case lookup_cases[] = {
    {
        "matching rule alone: its whole mask",
        { { 100, "in_port=p1,ip,nw_dst=10.0.0.0/16" } }, 1,
        PKT_TCP(), 0,
        { .in_port = 0xffff, .dl_type = 0xffff, .nw_dst = BE32(0xffff0000) },
    },
    {
        "no rule matches: first differing field only",
        { { 100, "in_port=p2,ip,nw_dst=10.0.0.0/16" } }, 1,
        PKT_TCP(), -1,
        { .in_port = 0xffff },
    },
    {
        "mismatch on a prefix: only the prefix bits",
        { { 100, "ip,nw_dst=10.1.0.0/16" } }, 1,
        PKT_TCP(), -1,
        { .nw_dst = BE32(0xffff0000) },
    },
    {
        "prerequisite mismatch stops at dl_type",
        { { 100, "ipv6,ipv6_dst=2001:db8::/32" } }, 1,
        PKT_TCP(), -1,
        { .dl_type = 0xffff },
    },
    {
        "protocol mismatch: nw_proto alone proves it",
        { { 100, "udp,tp_dst=53" } }, 1,
        PKT_TCP(), -1,
        { .nw_proto = 0xff },
    },
    {
        "higher priority rule checked first, even if added later",
        { { 10, "ip" }, { 200, "tcp,tp_dst=0x50/0xfff0" } }, 2,
        PKT_TCP(), 1,
        { .dl_type = 0xffff, .nw_proto = 0xff, .tp_dst = BE16(0xfff0) },
    },
    {
        "miss on the high rule, hit on the low one",
        { { 10, "ip" }, { 200, "tcp,tp_dst=443" } }, 2,
        PKT_TCP(), 0,
        { .dl_type = 0xffff, .tp_dst = 0xffff },
    },
    {
        "ties go to the rule added first",
        { { 50, "tcp" }, { 50, "ip" } }, 2,
        PKT_TCP(), 0,
        { .dl_type = 0xffff, .nw_proto = 0xff },
    },
    {
        "ties go to the rule added first (other order)",
        { { 50, "ip" }, { 50, "tcp" } }, 2,
        PKT_TCP(), 0,
        { .dl_type = 0xffff },
    },
    {
        "dl_dst with a mask",
        { { 50, "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00" },
          { 40, "dl_src=02:00:00:00:00:0a" } }, 2,
        PKT_TCP(), 1,
        { .dl_dst = { { 0x01 } }, .dl_src = MAC_FF },
    },
    {
        "vlan_vid match against an untagged packet",
        { { 50, "dl_vlan=10" }, { 1, "" } }, 2,
        PKT_TCP(), 1,
        { .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "vlan_vid (OXM) with the present bit",
        { { 50, "vlan_vid=0x100b" }, { 40, "vlan_vid=0x100a" } }, 2,
        PKT_TCP(.vlans_tci = { BE16(0x100a) },
                .vlans_tpid = { BE16(0x8100) }), 1,
        { .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "vlan_vid=0 matches untagged packets",
        { { 50, "vlan_vid=0x1000/0x1000" }, { 40, "vlan_vid=0" } }, 2,
        PKT_TCP(), 1,
        { .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "tagged packet, vlan_pcp",
        { { 50, "dl_vlan_pcp=5" }, { 40, "dl_vlan=10" } }, 2,
        PKT_TCP(.vlans_tci = { BE16(0x100a) },
                .vlans_tpid = { BE16(0x8100) }), 1,
        { .vlans_tci[0] = BE16(0xffff) },
    },
    {
        "tcp_flags and ip_dscp",
        { { 50, "tcp,tcp_flags=+syn-ack,ip_dscp=8" } }, 1,
        PKT_TCP(), 0,
        { .dl_type = 0xffff, .nw_proto = 0xff, .nw_tos = 0xfc,
          .tcp_flags = BE16(0x012) },
    },
    {
        "icmp_type mismatch",
        { { 50, "icmp,icmp_type=8" }, { 40, "icmp,icmp_type=0,icmp_code=0" } },
        2,
        PKT_ICMP_REPLY(), 1,
        { .dl_type = 0xffff, .nw_proto = 0xff, .tp_src = 0xffff,
          .tp_dst = 0xffff },
    },
    {
        "nw_src prefix hits, tp_src mask",
        { { 50, "udp,nw_src=10.0.0.0/8" },
          { 40, "tcp,nw_src=10.0.0.0/8,tp_src=0x3000/0xf000" } }, 2,
        PKT_TCP(), 1,
        { .dl_type = 0xffff, .nw_proto = 0xff, .nw_src = BE32(0xff000000),
          .tp_src = BE16(0xf000) },
    },
};

/* Flips random bits of 'pkt' outside 'mask' (xorshift state 'seed'). */
static void
vary_outside(struct flow *pkt, const struct flow *mask, uint64_t *seed)
{
    uint64_t *w = (uint64_t *) pkt;
    const uint64_t *m = (const uint64_t *) mask;

    for (size_t i = 0; i < FLOW_U64S; i++) {
        uint64_t x = *seed;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *seed = x;
        w[i] ^= x & ~m[i];
    }
}

static void
check_mask_equal(const char *what, const struct flow *got,
                 const struct flow *want)
{
    const uint8_t *g = (const uint8_t *) got;
    const uint8_t *w = (const uint8_t *) want;

    for (size_t i = 0; i < sizeof *got; i++) {
        CHECK(g[i] == w[i], "%s: mask byte %zu is 0x%02x, expected 0x%02x "
              "(%s)", what, i, g[i], w[i],
              g[i] & ~w[i] ? "too wide" : "too narrow");
    }
}

static void
test_lookup(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ULL;

    for (size_t i = 0; i < ARRAY_SIZE(lookup_cases); i++) {
        const struct lookup_case *c = &lookup_cases[i];
        struct ofproto_rule *rules[MAX_RULES];
        struct ofproto_rule *winner;
        struct rule_table *table;
        struct flow wc;

        for (size_t r = 0; r < c->n_rules; r++) {
            rules[r] = make_rule(c->rules[r].priority, r,
                                 c->rules[r].match, "drop");
        }
        table = rule_table_create(rules, c->n_rules);
        memset(&wc, 0, sizeof wc);
        winner = rule_table_lookup(table, &c->packet, &wc);
        CHECK(winner == (c->winner < 0 ? NULL : rules[c->winner]),
              "%s: wrong rule %"PRId64, c->name,
              winner ? (int64_t) winner->cookie : -1);
        check_mask_equal(c->name, &wc, &c->mask);

        /* Not too wide: packets that agree on the mask get the same rule
         * and no wider mask. */
        for (int v = 0; v < 2000; v++) {
            struct flow pkt = c->packet, wc2;

            vary_outside(&pkt, &wc, &seed);
            memset(&wc2, 0, sizeof wc2);
            if (rule_table_lookup(table, &pkt, &wc2) != winner) {
                CHECK(false, "%s: variation %d decides differently",
                      c->name, v);
                break;
            }
        }
        free(table);
        for (size_t r = 0; r < c->n_rules; r++) {
            ofproto_rule_destroy(rules[r]);
        }
    }
}

/* Translation of rule actions. */

#define MAX_ACTIONS 6

struct xlate_rule_case {
    const char *name;
    const char *rules[3];       /* add-flow texts. */
    size_t n_rules;
    struct flow packet;
    struct dp_action actions[MAX_ACTIONS];
    size_t n_actions;
    bool by_rule;               /* A rule decided (rule_stats set). */
    struct flow mask;
};

#define OUT(P) { .type = DP_ACTION_OUTPUT, .port = P }

static const struct xlate_rule_case xlate_rule_cases[] = {
    {
        "output by name",
        { "in_port=p1,actions=output:p2" }, 1, PKT_TCP(),
        { OUT(2) }, 1, true, { .in_port = 0xffff },
    },
    {
        "output to the input port is skipped",
        { "actions=output:p1,output:p3" }, 1, PKT_TCP(),
        { OUT(3) }, 1, true, { .in_port = 0xffff },
    },
    {
        "output to a port not on the bridge is skipped",
        { "actions=output:p9" }, 1, PKT_TCP(),
        { { 0 } }, 0, true, { .in_port = 0xffff },
    },
    {
        "drop rule",
        { "ip,actions=drop" }, 1, PKT_TCP(),
        { { 0 } }, 0, true, { .dl_type = 0xffff },
    },
    {
        "table miss drops",
        { "udp,actions=output:p2" }, 1, PKT_TCP(),
        { { 0 } }, 0, false, { .nw_proto = 0xff },
    },
    {
        "flood skips the input port",
        { "actions=flood" }, 1, PKT_TCP(),
        { OUT(2), OUT(3) }, 2, true, { .in_port = 0xffff },
    },
    {
        "mod_vlan_vid pushes a tag on an untagged packet",
        { "actions=mod_vlan_vid:10,output:p2" }, 1, PKT_TCP(),
        { { .type = DP_ACTION_PUSH_VLAN,
            .vlan = { BE16(0x8100), BE16(0x100a), 0 } }, OUT(2) }, 2, true,
        { .in_port = 0xffff, .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "mod_vlan_vid rewrites a tag",
        { "actions=mod_vlan_vid:10,output:p2" }, 1,
        PKT_TCP(.vlans_tci = { BE16(0x1005) }, .vlans_tpid = { BE16(0x8100) }),
        { { .type = DP_ACTION_SET_VLAN_TCI,
            .vlan = { 0, BE16(0x000a), BE16(0x0fff) } }, OUT(2) }, 2, true,
        { .in_port = 0xffff, .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "mod_vlan_pcp rewrites the priority bits",
        { "actions=mod_vlan_pcp:5,output:p2" }, 1,
        PKT_TCP(.vlans_tci = { BE16(0x1005) }, .vlans_tpid = { BE16(0x8100) }),
        { { .type = DP_ACTION_SET_VLAN_TCI,
            .vlan = { 0, BE16(0xa000), BE16(0xe000) } }, OUT(2) }, 2, true,
        { .in_port = 0xffff, .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "pop_vlan on a tagged packet",
        { "dl_vlan=5,actions=strip_vlan,output:p3" }, 1,
        PKT_TCP(.vlans_tci = { BE16(0x1005) }, .vlans_tpid = { BE16(0x8100) }),
        { { .type = DP_ACTION_POP_VLAN }, OUT(3) }, 2, true,
        { .in_port = 0xffff, .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "pop_vlan on an untagged packet does nothing",
        { "actions=pop_vlan,output:p3" }, 1, PKT_TCP(),
        { OUT(3) }, 1, true,
        { .in_port = 0xffff, .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "push_vlan then mod_vlan_vid",
        { "actions=push_vlan:0x88a8,mod_vlan_vid:20,output:p2" }, 1,
        PKT_TCP(),
        { { .type = DP_ACTION_PUSH_VLAN,
            .vlan = { BE16(0x88a8), BE16(0x1000), 0 } },
          { .type = DP_ACTION_SET_VLAN_TCI,
            .vlan = { 0, BE16(20), BE16(0x0fff) } }, OUT(2) }, 3, true,
        { .in_port = 0xffff, .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "set fields in order",
        { "tcp,actions=mod_dl_src:02:00:00:00:00:0c,mod_nw_dst:10.9.9.9,"
          "set_field:8080->tcp_dst,output:p2" }, 1, PKT_TCP(),
        { { .type = DP_ACTION_SET_ETH_SRC,
            .mac = { { 0x02, 0, 0, 0, 0, 0x0c } } },
          { .type = DP_ACTION_SET_IPV4_DST, .ipv4 = BE32(0x0a090909) },
          { .type = DP_ACTION_SET_TP_DST, .tp_port = BE16(8080) }, OUT(2) },
        4, true,
        { .in_port = 0xffff, .dl_type = 0xffff, .nw_proto = 0xff },
    },
    {
        "normal after a rule: learning bridge on the modified packet",
        { "priority=10,actions=normal",
          "priority=20,dl_dst=02:00:00:00:00:0b,actions=drop" }, 2,
        PKT_TCP_BCAST(),
        { OUT(2), OUT(3) }, 2, true,
        { .in_port = 0xffff, .dl_src = MAC_FF, .dl_dst = MAC_FF,
          .vlans_tci[0] = BE16(0x1fff) },
    },
    {
        "no rules: NORMAL",
        { NULL }, 0, PKT_TCP_BCAST(),
        { OUT(2), OUT(3) }, 2, false,
        { .in_port = 0xffff, .dl_src = MAC_FF, .dl_dst = MAC_FF,
          .vlans_tci[0] = BE16(0x1fff) },
    },
};

/* Parses add-flow text 'text' into a rule, or fails the test. */
static struct ofproto_rule *
make_rule_text(const char *text, uint64_t *cookie_out)
{
    struct ofproto_rule *rule = NULL;
    char *match, *actions, *error;
    uint64_t cookie;
    int priority;

    error = ofproto_rule_split(text, &priority, &cookie, &match, &actions);
    CHECK(!error && actions, "\"%s\": %s", text, error);
    if (!error && actions) {
        rule = make_rule(priority < 0 ? OFPROTO_RULE_DEFAULT_PRIORITY
                         : priority, cookie, match, actions);
    }
    free(error);
    free(match);
    free(actions);
    if (cookie_out) {
        *cookie_out = cookie;
    }
    return rule;
}

static struct ofproto *
make_bridge(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);

    for (uint16_t p = 1; p <= 3; p++) {
        char name[8];

        snprintf(name, sizeof name, "p%u", (unsigned int) p);
        CHECK_INT(ofproto_port_add(ofproto, p, name, NULL), 0);
    }
    return ofproto;
}

/* Installs the 'n' add-flow texts in 'texts' on 'ofproto'. */
static void
set_rules_text(struct ofproto *ofproto, const char *const *texts, size_t n)
{
    struct ofproto_rule *rules[8];

    for (size_t i = 0; i < n; i++) {
        rules[i] = make_rule_text(texts[i], NULL);
    }
    ofproto_set_rules(ofproto, rules, n);
}

static void
test_xlate_rules(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(xlate_rule_cases); i++) {
        const struct xlate_rule_case *c = &xlate_rule_cases[i];
        struct ofproto *ofproto = make_bridge();
        struct xlate_out *out = xmalloc(sizeof *out);
        int error;

        set_rules_text(ofproto, c->rules, c->n_rules);
        error = upcall_xlate(ofproto, &c->packet, false, 0, out);
        CHECK(!error, "%s: error %d", c->name, error);
        CHECK(out->n_actions == c->n_actions, "%s: %"PRIu32" actions, "
              "expected %zu", c->name, out->n_actions, c->n_actions);
        for (size_t a = 0; a < c->n_actions && a < out->n_actions; a++) {
            struct dp_action want;

            dp_action_init(&want, c->actions[a].type);
            want.port = c->actions[a].port;
            memcpy(&want.vlan, &c->actions[a].vlan,
                   sizeof c->actions[a] - offsetof(struct dp_action, vlan));
            CHECK(!memcmp(&out->actions[a], &want, sizeof want),
                  "%s: action %zu differs (type %u, expected %u)", c->name,
                  a, out->actions[a].type, want.type);
        }
        CHECK((out->rule_stats != NULL) == c->by_rule,
              "%s: rule_stats %p", c->name, (void *) out->rule_stats);
        check_mask_equal(c->name, &out->mask, &c->mask);
        free(out);
        ofproto_destroy(ofproto);
    }
}

/* Rule changes: reuse of equal rules, revalidation, counters. */
static void
test_set_rules(void)
{
    static const char *const v1[] = {
        "priority=100,tcp,actions=output:p2",
        "priority=50,ip,actions=output:p2",
    };
    static const char *const v2_same[] = {
        "priority=100,tcp,actions=output:p2",
        "priority=50,ip,actions=output:p2",
    };
    static const char *const v3_del_high[] = {
        "priority=50,ip,actions=output:p2",
    };
    struct ofproto *ofproto = make_bridge();
    struct xlate_out *out = xmalloc(sizeof *out);
    const struct flow pkt = PKT_TCP();
    const struct rule_table *t;
    struct ofproto_rule *high;
    struct rule_stats *stats;
    uint64_t gen;

    set_rules_text(ofproto, v1, ARRAY_SIZE(v1));
    t = ofproto_get_rules(ofproto);
    CHECK_INT(t->n, 2);
    high = t->rules[0];
    CHECK_INT(high->priority, 100);
    CHECK_INT(upcall_xlate(ofproto, &pkt, false, 0, out), 0);
    stats = out->rule_stats;
    CHECK(stats == &high->stats, "the priority 100 rule decides");
    rule_stats_credit(stats, 3, 300);

    /* Installing equal rules changes nothing: same objects, counters kept,
     * same generation, flows still valid. */
    gen = ofproto_generation(ofproto);
    set_rules_text(ofproto, v2_same, ARRAY_SIZE(v2_same));
    CHECK(ofproto_get_rules(ofproto) == t, "equal rules keep the table");
    CHECK(ofproto_generation(ofproto) == gen, "generation unchanged");
    CHECK_INT(high->stats.n_packets, 3);
    CHECK_INT(high->stats.n_bytes, 300);
    CHECK(upcall_revalidate_rule(ofproto, &pkt, &out->mask, out->actions,
                                 out->n_actions, stats, 0),
          "flow still valid after an equal reload");

    /* Deleting the deciding rule invalidates the flow even though the
     * remaining rule has the same actions: the flow must not outlive the
     * rule it credits.  Without the rule check it would pass. */
    set_rules_text(ofproto, v3_del_high, ARRAY_SIZE(v3_del_high));
    CHECK(ofproto_generation(ofproto) != gen, "generation changed");
    CHECK(upcall_revalidate(ofproto, &pkt, &out->mask, out->actions,
                            out->n_actions, 0),
          "actions and mask alone still agree");
    CHECK(!upcall_revalidate_rule(ofproto, &pkt, &out->mask, out->actions,
                                  out->n_actions, stats, 0),
          "flow of a deleted rule is invalid");

    /* The remaining rule is the same object as before. */
    t = ofproto_get_rules(ofproto);
    CHECK_INT(t->n, 1);
    CHECK_INT(t->rules[0]->priority, 50);

    /* Back to no rules: NORMAL, nothing decided by a rule. */
    ofproto_set_rules(ofproto, NULL, 0);
    CHECK_INT(upcall_xlate(ofproto, &pkt, false, 0, out), 0);
    CHECK(!out->rule_stats, "no rules: NORMAL decides");
    free(out);
    ofproto_destroy(ofproto);
}

/* Non-strict deletion selects rules at least as specific as a match. */
static void
test_vlan_vid_errors(void)
{
    static const char *const bad[] = {
        "vlan_vid=0x2000", "vlan_vid=1/0x2000", "vlan_vid=x", "vlan_vid=",
    };

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        struct flow match, mask;
        char *error = ofproto_rule_match_parse(bad[i], NULL, NULL, &match,
                                               &mask);

        CHECK(error && strstr(error, "vlan_vid: "), "\"%s\": error \"%s\"",
              bad[i], error ? error : "(none)");
        free(error);
    }
}

static void
test_covered_by(void)
{
    static const struct {
        const char *rule;
        const char *match;
        bool covered;
    } cases[] = {
        { "ip,nw_dst=10.0.0.0/8", "", true },
        { "ip,nw_dst=10.0.0.0/8", "ip", true },
        { "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=10.0.0.0/8", true },
        { "ip,nw_dst=10.1.0.0/16", "ip,nw_dst=10.0.0.0/8", true },
        { "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=10.1.0.0/16", false },
        { "ip", "tcp", false },
        { "tcp", "udp", false },
        { "in_port=p1", "in_port=p2", false },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct ofproto_rule *rule = make_rule(1, 0, cases[i].rule, "drop");
        struct flow match, mask;
        char *error = match_parse(cases[i].match, test_port_lookup, NULL,
                                  &match, &mask);

        CHECK(!error, "%s", error);
        free(error);
        CHECK(ofproto_rule_is_covered_by(rule, &match, &mask)
              == cases[i].covered, "rule \"%s\" covered by \"%s\"",
              cases[i].rule, cases[i].match);
        ofproto_rule_destroy(rule);
    }
}

static void
test_format(void)
{
    struct ofproto_rule *rule = make_rule(100, 5, "in_port=p1,ip,"
                                          "nw_dst=10.0.0.0/8", "output:p2");
    char buf[1024];
    char *error;

    ofproto_rule_format(rule, test_port_name, NULL, buf, sizeof buf);
    CHECK_STR(buf, "priority=100,in_port=p1,ip,nw_dst=10.0.0.0/8 "
              "actions=output:p2");
    ofproto_rule_format(rule, NULL, NULL, buf, sizeof buf);
    CHECK_STR(buf, "priority=100,in_port=1,ip,nw_dst=10.0.0.0/8 "
              "actions=output:2");
    ofproto_rule_destroy(rule);

    rule = make_rule(7, 0, "tcp6,in_port=p2,tp_dst=80", "normal");
    ofproto_rule_format(rule, test_port_name, NULL, buf, sizeof buf);
    CHECK_STR(buf, "priority=7,in_port=p2,tcp6,tp_dst=80 actions=NORMAL");
    ofproto_rule_destroy(rule);

    rule = make_rule(7, 0, "dl_type=0x88cc", "flood");
    ofproto_rule_format(rule, test_port_name, NULL, buf, sizeof buf);
    CHECK_STR(buf, "priority=7,dl_type=0x88cc actions=FLOOD");
    ofproto_rule_destroy(rule);

    rule = make_rule(0, 0, "", "drop");
    ofproto_rule_format(rule, test_port_name, NULL, buf, sizeof buf);
    CHECK_STR(buf, "priority=0 actions=drop");
    ofproto_rule_destroy(rule);

    error = ofproto_rule_create(65536, 0, "", "drop", NULL, NULL, &rule);
    CHECK(error && !rule, "priority 65536 refused");
    free(error);
}

/* Config errors name FILE:LINE:COLUMN of the rule. */
static void
test_config_errors(void)
{
    static const struct {
        const char *match;
        const char *actions;
        const char *error;      /* NULL: accepted. */
    } cases[] = {
        { "in_port=p1,ip", "output:p2", NULL },
        { "in_port=p9", "output:p2", "t.json:5:9: rule match: " },
        { "ip", "output:nope", "t.json:5:9: rule actions: \"output:nope\": "
          "no port named \"nope\"" },
        { "tcp", "mod_nw_dst:1.2.3.4,output:p1", NULL },
        { "", "mod_nw_dst:1.2.3.4", "t.json:5:9: rule actions: "
          "\"mod_nw_dst:1.2.3.4\" requires an IPv4 match" },
        { "nw_src=1.2.3.4", "drop", "t.json:5:9: rule match: " },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct pmd_config *cfg;
        char *text, *error = NULL;

        text = xasprintf(
            "{\"bridges\": [{\"name\": \"br0\",\n"
            "  \"ports\": [{\"name\": \"p1\", \"interface\": \"a\"},\n"
            "             {\"name\": \"p2\", \"interface\": \"b\"}],\n"
            "  \"rules\": [\n"
            "        {\"match\": \"%s\", \"actions\": \"%s\"}]}]}\n",
            cases[i].match, cases[i].actions);
        cfg = config_parse_string(text, "t.json", &error);
        CHECK(cfg, "config %zu: %s", i, error);
        if (cfg) {
            error = config_check_rules(cfg, "t.json");
            if (cases[i].error) {
                CHECK(error && !strncmp(error, cases[i].error,
                                        strlen(cases[i].error)),
                      "config %zu: error \"%s\", expected \"%s...\"", i,
                      error ? error : "(none)", cases[i].error);
            } else {
                CHECK(!error, "config %zu: %s", i, error);
            }
        }
        free(error);
        config_destroy(cfg);
        free(text);
    }
}

/* A thread that behaves like a PMD: each iteration it forwards with its
 * cached flow (or translates one), then revalidates if the generation
 * changed, then announces a quiescent state, as pmd_main() does.  The
 * control thread replaces the rules again and again and, after each
 * ofproto_set_rules() returns, publishes the cookie of the rules it
 * installed.  A flow forwarding with rules older than the acknowledged
 * ones is a failure. */
struct pmd_sim {
    struct ofproto *ofproto;
    bool stop;                  /* Control writes, PMD reads. */
    uint64_t acked;             /* Cookie of the last acknowledged rules. */
    bool ready;                 /* PMD writes: registered with RCU. */
    uint64_t n_stale;           /* PMD writes: stale forwards seen. */
    uint64_t n_forwards;        /* PMD writes, control reads. */
};

static void *
pmd_sim_main(void *sim_)
{
    struct pmd_sim *sim = sim_;
    struct xlate_out *out = xmalloc(sizeof *out);
    const struct flow pkt = PKT_TCP();
    uint64_t gen, cookie = 0;
    bool have_flow = false;

    rcu_register_thread();
    __atomic_store_n(&sim->ready, true, __ATOMIC_RELEASE);
    gen = ofproto_generation(sim->ofproto);
    while (!__atomic_load_n(&sim->stop, __ATOMIC_ACQUIRE)) {
        /* Poll: receive (a system call in pmd_main()), then forward or
         * translate. */
        sched_yield();
        if (have_flow) {
            uint64_t acked = __atomic_load_n(&sim->acked, __ATOMIC_ACQUIRE);

            if (cookie < acked) {
                sim->n_stale++;
            }
            __atomic_store_n(&sim->n_forwards, sim->n_forwards + 1,
                             __ATOMIC_RELAXED);
        } else if (!upcall_xlate(sim->ofproto, &pkt, false, 0, out)
                   && out->rule_stats) {
            const struct ofproto_rule *rule;

            rule = CONTAINER_OF(out->rule_stats, struct ofproto_rule, stats);
            cookie = rule->cookie;
            have_flow = true;
        }
        /* Housekeeping: revalidate on a generation change. */
        if (ofproto_generation(sim->ofproto) != gen) {
            gen = ofproto_generation(sim->ofproto);
            if (have_flow
                && !upcall_revalidate_rule(sim->ofproto, &pkt, &out->mask,
                                           out->actions, out->n_actions,
                                           out->rule_stats, 0)) {
                have_flow = false;
            }
        }
        /* Requests and naps come here in pmd_main(): widen the window
         * between the generation check and the quiescent state. */
        sched_yield();
        rcu_quiesce();
    }
    rcu_unregister();
    free(out);
    return NULL;
}

static void
test_acknowledged_change(void)
{
    struct pmd_sim sim = { .ofproto = make_bridge() };
    pthread_t thread;

    pthread_create(&thread, NULL, pmd_sim_main, &sim);
    /* A grace period waits only for registered readers. */
    while (!__atomic_load_n(&sim.ready, __ATOMIC_ACQUIRE)) {
        sched_yield();
    }
    for (uint64_t k = 1; k <= 300; k++) {
        uint64_t n = __atomic_load_n(&sim.n_forwards, __ATOMIC_RELAXED);
        struct ofproto_rule *rule;

        rule = make_rule(100, k, "ip", k % 2 ? "output:p2" : "output:p3");
        ofproto_set_rules(sim.ofproto, &rule, 1);
        __atomic_store_n(&sim.acked, k, __ATOMIC_RELEASE);
        /* Let the PMD forward with the new flow now and then, so that
         * changes land at every point of its loop. */
        for (int spin = 0; k % 3 && spin < 100000
             && __atomic_load_n(&sim.n_forwards, __ATOMIC_RELAXED) == n;
             spin++) {
            sched_yield();
        }
    }
    __atomic_store_n(&sim.stop, true, __ATOMIC_RELEASE);
    pthread_join(thread, NULL);
    CHECK(sim.n_stale == 0, "%"PRIu64" forwards of %"PRIu64" used rules "
          "older than the acknowledged ones", sim.n_stale, sim.n_forwards);
    CHECK(sim.n_forwards > 0, "the simulated PMD never forwarded");
    ofproto_destroy(sim.ofproto);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "ofpacts", test_ofpacts },
        { "split", test_split },
        { "lookup", test_lookup },
        { "xlate_rules", test_xlate_rules },
        { "set_rules", test_set_rules },
        { "covered_by", test_covered_by },
        { "vlan_vid_errors", test_vlan_vid_errors },
        { "format", test_format },
        { "config_errors", test_config_errors },
        { "acknowledged_change", test_acknowledged_change },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-ofproto-rules");
}
