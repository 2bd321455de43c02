/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of the PMD pipeline without threads or sockets: a datapath with
 * three ports and a PMD that is driven by hand, fed crafted frames, and
 * checked through its transmit batches, counters and flow table.  A bond
 * datapath (two ports and a bond of two members) checks bond output: the
 * member the bond map gives each packet's hash, load accounting, failover
 * and the drop counter.  A datapath with the most ports checks a flood
 * with VLAN actions to all of them, and the drop of a packet whose
 * actions do not fit.
 */
#include <autoconf.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "ofproto/bond.h"
#include "check.h"
#include "dp-test.h"
#include "dp/dp.h"
#include "classifier/dpcls.h"
#include "classifier/dp-flow.h"
#include "packet/hash.h"
#include "ofproto/change-log.h"
#include "ofproto/mac-learning.h"
#include "packet/miniflow.h"
#include "dp/pipeline.h"
#include "dp/pmd.h"
#include "dp/pmd-reval.h"
#include "base/coverage.h"
#include "base/rcu.h"
#include "ofproto/ofproto.h"
#include "ofproto/ofproto-rules.h"
#include "base/util.h"

#define N_PORTS 3

static const struct eth_addr mac_a = { { 0x02, 0, 0, 0, 0, 0x0a } };
static const struct eth_addr mac_b = { { 0x02, 0, 0, 0, 0, 0x0b } };
static const struct eth_addr mac_bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff,
                                             0xff } };

/* A frame and its packet; frames live in 'buf' with headroom. */
struct test_frame {
    uint8_t buf[256];
    struct dp_packet packet;
};

/* Builds an Ethernet/IPv4/UDP frame from 'src' to 'dst' with UDP source
 * port 'sport' into 'f', arriving on 'in_port'. */
static struct dp_packet *
make_udp(struct test_frame *f, struct eth_addr src, struct eth_addr dst,
         uint16_t sport, uint16_t in_port)
{
    uint8_t *p = f->buf + DP_PACKET_HEADROOM;
    static const uint8_t ip_udp[] = {
        0x08, 0x00,                                     /* IPv4 */
        0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, /* 32 bytes, DF */
        0x40, 0x11, 0x00, 0x00,                         /* TTL 64, UDP */
        10, 1, 0, 1, 10, 1, 0, 2,                       /* src, dst */
    };
    uint16_t ports[4] = { htons(sport), htons(7), htons(12), 0 };

    memcpy(p, dst.ea, 6);
    memcpy(p + 6, src.ea, 6);
    memcpy(p + 12, ip_udp, sizeof ip_udp);
    memcpy(p + 12 + sizeof ip_udp, ports, sizeof ports);
    memset(p + 42, 0xab, 18);
    dp_packet_init(&f->packet, p, 60, in_port);
    return &f->packet;
}

static struct dp *
make_dp(void)
{
    return dp_test_create(N_PORTS);
}

static void
destroy_all(struct dp *dp, struct pmd *pmd)
{
    dp_test_destroy(dp, pmd);
}

/* Runs one packet through 'pmd' and returns the bitmap of ports it was
 * queued on, clearing the transmit batches. */
static uint32_t
run_one(struct pmd *pmd, struct dp_packet *p)
{
    struct dp_batch batch;
    uint32_t out = 0;

    dp_batch_init(&batch);
    dp_batch_add(&batch, p);
    pipeline_process(pmd, &batch, p->in_port);
    for (uint16_t i = 0; i < pmd->n_dirty_tx; i++) {
        uint16_t port = pmd->dirty_tx[i];

        if (pmd->tx[port].batch.count) {
            out |= 1u << port;
        }
        dp_batch_init(&pmd->tx[port].batch);
    }
    pmd->n_dirty_tx = 0;
    return out;
}

static uint64_t
stat(const struct pmd *pmd, enum pmd_stat_type type)
{
    return pmd->perf.counters[type];
}

static const struct dp_flow *
only_flow(const struct pmd *pmd)
{
    for (uint32_t i = 0; i < pmd->flows.n_slots; i++) {
        if (pmd->flows.flows[i]) {
            return pmd->flows.flows[i];
        }
    }
    return NULL;
}

/* Calls of hash_rss() from the datapath: the test links with
 * -Wl,--wrap=hash_rss, so that every call from another object file comes
 * here first (the library itself counts nothing on the hot path). */
static uint64_t n_hash_rss_calls;
uint32_t __real_hash_rss(const struct netdev_flow_key *key);
uint32_t __wrap_hash_rss(const struct netdev_flow_key *key);

uint32_t
__wrap_hash_rss(const struct netdev_flow_key *key)
{
    n_hash_rss_calls++;
    return __real_hash_rss(key);
}

static void
test_hash_once_and_flood(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f[4];
    struct dp_batch batch;
    uint64_t hashes_before = n_hash_rss_calls;
    uint32_t out;

    pmd->now_ms = 1000;
    /* A broadcast from port 0 floods to ports 1 and 2. */
    out = run_one(pmd, make_udp(&f[0], mac_a, mac_bcast, 1, 0));
    CHECK(out == 0x6, "flood went to 0x%x", out);
    CHECK(stat(pmd, PMD_STAT_MISS) == 1, "misses %"PRIu64,
          stat(pmd, PMD_STAT_MISS));

    /* A batch of three: two more of the same flow and one whose kernel
     * hash is already set. */
    dp_batch_init(&batch);
    dp_batch_add(&batch, make_udp(&f[1], mac_a, mac_bcast, 1, 0));
    dp_batch_add(&batch, make_udp(&f[2], mac_a, mac_bcast, 2, 0));
    dp_batch_add(&batch, make_udp(&f[3], mac_a, mac_bcast, 3, 0));
    dp_packet_set_rss_hash(&f[3].packet, 0x12345678);
    pipeline_process(pmd, &batch, 0);
    pmd->n_dirty_tx = 0;

    CHECK(stat(pmd, PMD_STAT_RECV) == 4, "received %"PRIu64,
          stat(pmd, PMD_STAT_RECV));
    CHECK(stat(pmd, PMD_STAT_EXTRACT) == stat(pmd, PMD_STAT_RECV),
          "extract calls %"PRIu64" != packets", stat(pmd, PMD_STAT_EXTRACT));
    CHECK(stat(pmd, PMD_STAT_RSS_KERNEL) == 1, "kernel hashes %"PRIu64,
          stat(pmd, PMD_STAT_RSS_KERNEL));
    CHECK(stat(pmd, PMD_STAT_RSS_SW) == 3, "software hashes %"PRIu64,
          stat(pmd, PMD_STAT_RSS_SW));
    CHECK(n_hash_rss_calls - hashes_before == 3,
          "hash_rss ran %"PRIu64" times", n_hash_rss_calls - hashes_before);
    CHECK(f[3].packet.rss_hash == 0x12345678, "kernel hash replaced");
    /* Different UDP ports, same megaflow: NORMAL does not look at L4. */
    CHECK(stat(pmd, PMD_STAT_MISS) == 1, "misses %"PRIu64,
          stat(pmd, PMD_STAT_MISS));
    CHECK(stat(pmd, PMD_STAT_EMC_HIT) + stat(pmd, PMD_STAT_SMC_HIT)
          + stat(pmd, PMD_STAT_MASKED_HIT) == 3, "cache hits wrong");
    CHECK(pmd->flows.n_flows == 1, "%"PRIu32" flows", pmd->flows.n_flows);

    destroy_all(dp, pmd);
}

/* Over flow-limit a miss is still forwarded as the slow path decides, but
 * installs nothing: the next packet of that flow is a miss again, and
 * lowering the limit below the table leaves the flows already there. */
static void
test_flow_limit(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;
    uint32_t out;

    pmd->now_ms = 1000;
    dp->settings.flow_limit = 1;
    out = run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    CHECK(out == 0x6, "first flood went to 0x%x", out);
    CHECK(pmd->flows.n_flows == 1, "%"PRIu32" flows", pmd->flows.n_flows);

    /* Another megaflow (other source MAC), twice: flooded both times,
     * each an upcall, neither installed. */
    for (int i = 0; i < 2; i++) {
        out = run_one(pmd, make_udp(&f, mac_b, mac_bcast, 2, 0));
        CHECK(out == 0x6, "flood over the limit went to 0x%x", out);
    }
    CHECK(pmd->flows.n_flows == 1, "%"PRIu32" flows", pmd->flows.n_flows);
    CHECK(stat(pmd, PMD_STAT_MISS) == 3, "misses %"PRIu64,
          stat(pmd, PMD_STAT_MISS));
    CHECK(stat(pmd, PMD_STAT_OVER_FLOW_LIMIT) == 2, "over limit %"PRIu64,
          stat(pmd, PMD_STAT_OVER_FLOW_LIMIT));
    CHECK(stat(pmd, PMD_STAT_LOST) == 0, "lost %"PRIu64,
          stat(pmd, PMD_STAT_LOST));

    /* The installed flow still hits; limit 0 installs nothing more. */
    dp->settings.flow_limit = 0;
    out = run_one(pmd, make_udp(&f, mac_a, mac_bcast, 3, 0));
    CHECK(out == 0x6, "installed flow went to 0x%x", out);
    CHECK(stat(pmd, PMD_STAT_MISS) == 3, "misses %"PRIu64,
          stat(pmd, PMD_STAT_MISS));

    /* Raised again, the next miss installs. */
    dp->settings.flow_limit = 2;
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 4, 0));
    CHECK(pmd->flows.n_flows == 2, "%"PRIu32" flows", pmd->flows.n_flows);
    CHECK(stat(pmd, PMD_STAT_OVER_FLOW_LIMIT) == 2, "over limit %"PRIu64,
          stat(pmd, PMD_STAT_OVER_FLOW_LIMIT));
    destroy_all(dp, pmd);
}

/* NORMAL's megaflow covers in_port, both MACs and the VLAN ID, and no
 * other bit: anything wider floods the caches, narrower forwards wrongly. */
static void
test_mask_minimal(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    const struct dp_flow *flow;
    struct test_frame f;
    struct flow mask, expected;

    pmd->now_ms = 1000;
    run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    flow = only_flow(pmd);
    CHECK(flow != NULL, "no flow installed");
    if (flow) {
        miniflow_expand(&flow->mask.mf, &mask);
        memset(&expected, 0, sizeof expected);
        memset(&expected.dl_dst, 0xff, sizeof expected.dl_dst);
        memset(&expected.dl_src, 0xff, sizeof expected.dl_src);
        expected.in_port = 0xffff;
        expected.vlans_tci[0] = htons(VLAN_VID_MASK | VLAN_CFI);
        CHECK(!memcmp(&mask, &expected, sizeof mask),
              "mask is not minimal");
        for (size_t i = 0; i < FLOW_U64S; i++) {
            uint64_t got = ((uint64_t *) &mask)[i];
            uint64_t want = ((uint64_t *) &expected)[i];

            CHECK(got == want, "mask word %zu is %016"PRIx64", want %016"
                  PRIx64, i, got, want);
        }
    }
    destroy_all(dp, pmd);
}

/* Runs the caches one stage at a time: with EMC insertion off every hit
 * is an SMC or megaflow hit. */
static void
test_cache_stages(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;

    dp->settings.emc_insert_inv_prob = 0;
    dp->settings.smc_enable = false;
    pmd->now_ms = 1000;
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    CHECK(stat(pmd, PMD_STAT_EMC_HIT) == 0, "emc hit with insertion off");
    CHECK(stat(pmd, PMD_STAT_MASKED_HIT) == 1, "megaflow hits %"PRIu64,
          stat(pmd, PMD_STAT_MASKED_HIT));
    CHECK(stat(pmd, PMD_STAT_MASKED_LOOKUP) >= 1, "no subtable lookups");

    dp->settings.smc_enable = true;
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));  /* fills SMC */
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    CHECK(stat(pmd, PMD_STAT_SMC_HIT) == 1, "smc hits %"PRIu64,
          stat(pmd, PMD_STAT_SMC_HIT));

    dp->settings.emc_insert_inv_prob = 1;
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));  /* fills EMC */
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    CHECK(stat(pmd, PMD_STAT_EMC_HIT) == 1, "emc hits %"PRIu64,
          stat(pmd, PMD_STAT_EMC_HIT));
    CHECK(stat(pmd, PMD_STAT_MISS) == 1, "misses %"PRIu64,
          stat(pmd, PMD_STAT_MISS));
    destroy_all(dp, pmd);
}

/* When B moves from port 1 to port 2, the flow that sent A's traffic to
 * port 1 goes at the next housekeeping pass, and traffic follows B. */
static void
test_mac_move(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;
    uint32_t out;

    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 1));  /* learn B on 1 */
    pmd_housekeeping(pmd);
    out = run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    CHECK(out == 0x2, "A->B went to 0x%x, want port 1", out);
    out = run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    CHECK(out == 0x2, "cached A->B went to 0x%x, want port 1", out);

    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 2));  /* B moves to 2 */
    pmd_housekeeping(pmd);
    CHECK(stat(pmd, PMD_STAT_FLOWS_INVALIDATED) >= 1,
          "no flow invalidated after the move");
    out = run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    CHECK(out == 0x4, "A->B after move went to 0x%x, want port 2", out);
    destroy_all(dp, pmd);
}

/* A flow idle for longer than the idle timeout is deleted; a busy one
 * stays. */
static void
test_idle_expiry(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;

    dp->settings.flow_idle_ms = 10000;
    dp->settings.flow_limit = 200000;
    pmd->now_ms = 1000;
    pmd->next_sweep_ms = 2000;
    dp_test_pmd_sync(pmd);
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    pmd_housekeeping(pmd);
    CHECK(pmd->flows.n_flows == 1, "flow missing");

    pmd->now_ms = 9000;
    pmd_housekeeping(pmd);
    CHECK(pmd->flows.n_flows == 1, "flow expired before its timeout");

    pmd->now_ms = 12000;
    pmd_housekeeping(pmd);
    CHECK(pmd->flows.n_flows == 0, "idle flow not expired");
    CHECK(stat(pmd, PMD_STAT_FLOWS_EXPIRED) == 1, "expired %"PRIu64,
          stat(pmd, PMD_STAT_FLOWS_EXPIRED));
    /* The next packet misses and installs it again. */
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));
    CHECK(stat(pmd, PMD_STAT_MISS) == 2, "misses %"PRIu64,
          stat(pmd, PMD_STAT_MISS));
    destroy_all(dp, pmd);
}

/* After the MAC table is flushed, a flow whose source is no longer
 * learned goes at the next housekeeping pass, so the source's next packet
 * reaches learning instead of riding the cached flow forever. */
static void
test_relearn_after_flush(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct mac_learning *ml = ofproto_mac_learning(dp->bridges[0]);
    struct test_frame f;

    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 1));
    pmd_housekeeping(pmd);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 0, pmd->now_ms), 1);

    mac_learning_flush(ml);
    pmd_housekeeping(pmd);
    CHECK(stat(pmd, PMD_STAT_FLOWS_INVALIDATED) >= 1,
          "flow kept although its source is no longer learned");
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 1));
    CHECK_INT(mac_learning_lookup(ml, mac_b, 0, pmd->now_ms), 1);
    destroy_all(dp, pmd);
}

/* A flow with rewrite actions, end to end: the received packet is changed
 * in place up to its first output, a clone carries the later changes, and
 * NORMAL's output-only flows keep the zero-copy path. */
static void
test_rewrite_flow(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct netdev_flow_key key, mask;
    struct dp_action actions[4];
    struct dp_packet *p0, *p2;
    struct flow wc;
    struct test_frame f, g;
    struct dp_flow *flow;
    struct dp_batch batch;

    pmd->now_ms = 1000;
    run_one(pmd, make_udp(&g, mac_a, mac_bcast, 1, 0));
    CHECK(only_flow(pmd) && only_flow(pmd)->outputs_only,
          "NORMAL's flood flow is not output-only");

    /* in_port=1 -> push_vlan(vid=10),0,set(ipv4(dst=10.9.9.9)),2 */
    memset(&wc, 0, sizeof wc);
    wc.in_port = UINT16_MAX;
    miniflow_from_flow(&mask.mf, &wc, UINT64_C(1) << FLOW_WORD(in_port));
    mask.len = miniflow_size(&mask.mf);
    mask.hash = 0;
    miniflow_extract(make_udp(&f, mac_b, mac_a, 5, 1), &key);
    key.hash = 0;
    dp_action_init(&actions[0], DP_ACTION_PUSH_VLAN);
    actions[0].vlan.tpid = htons(ETH_TYPE_VLAN_8021Q);
    actions[0].vlan.tci = htons(VLAN_CFI | 10);
    dp_action_init(&actions[1], DP_ACTION_OUTPUT);
    actions[1].port = 0;
    dp_action_init(&actions[2], DP_ACTION_SET_IPV4_DST);
    actions[2].ipv4 = htonl(0x0a090909);
    dp_action_init(&actions[3], DP_ACTION_OUTPUT);
    actions[3].port = 2;
    flow = dp_flow_table_add(&pmd->flows, &key, &mask, 1, actions, 4,
                          pmd->now_ms);
    dpcls_insert(pmd_get_dpcls(pmd, 1), &flow->cr, &key, &mask);
    CHECK(!flow->outputs_only, "rewrite flow marked output-only");

    dp_batch_init(&batch);
    dp_batch_add(&batch, make_udp(&f, mac_b, mac_a, 5, 1));
    pipeline_process(pmd, &batch, 1);
    p0 = pmd->tx[0].batch.count == 1 ? pmd->tx[0].batch.packets[0] : NULL;
    p2 = pmd->tx[2].batch.count == 1 ? pmd->tx[2].batch.packets[0] : NULL;
    CHECK(p0 == &f.packet && p0->size == 64
          && p0->data[16] == 0x08 && p0->data[17] == 0x00,
          "port 0 did not get the tagged received packet");
    CHECK(p0 && !memcmp(p0->data + 34, (uint8_t[]) { 10, 1, 0, 2 }, 4),
          "port 0 saw the later address change");
    CHECK(p2 && p2 != p0 && p2->size == 64
          && !memcmp(p2->data + 34, (uint8_t[]) { 10, 9, 9, 9 }, 4),
          "port 2 did not get the rewritten clone");
    CHECK(stat(pmd, PMD_STAT_ACTION_CLONES) == 1, "clones %"PRIu64,
          stat(pmd, PMD_STAT_ACTION_CLONES));
    CHECK(stat(pmd, PMD_STAT_DROP_ACTION_EXEC) == 0, "exec drops");
    CHECK(flow->n_packets == 1, "flow stats not updated");
    pmd_flush_tx(pmd);
    CHECK(pmd->clones.n_used == 0, "pool not recycled after flush");

    destroy_all(dp, pmd);
}

/* Port numbers of the bond datapath. */
enum {
    BP_A, BP_B,                 /* Bridge ports. */
    BP_BOND,                    /* Bond "up0". */
    BP_M1, BP_M2,               /* Its members. */
    BP_N
};

/* A datapath with ports BP_A and BP_B and bond BP_BOND in 'mode' over
 * BP_M1 and BP_M2, both enabled. */
static struct dp *
make_bond_dp(enum bond_mode mode)
{
    static const char *const names[BP_N] = { "a", "b", "up0", "m1", "m2" };
    struct dp *dp = dp_test_create(0);
    struct ofproto *br0 = dp->bridges[0];
    struct bond *bond;

    for (int i = 0; i < BP_N; i++) {
        struct dp_port *port = dp_test_add_port(dp, br0, i, names[i]);

        port->bond_port_no = i >= BP_M1 ? BP_BOND : DP_PORT_NONE;
        if (i < BP_M1) {
            CHECK_INT(ofproto_port_add(br0, i, names[i], NULL), 0);
        } else {
            CHECK_INT(ofproto_member_add(br0, i, names[i], BP_BOND), 0);
        }
    }
    bond = bond_create("up0", mode, 0);
    CHECK_INT(bond_member_add(bond, BP_M1, "m1", true), 0);
    CHECK_INT(bond_member_add(bond, BP_M2, "m2", true), 0);
    dp->ports[BP_BOND]->bond = bond;
    CHECK_INT(ofproto_port_set_bond(br0, BP_BOND, mode,
                                    bond_get_active_member(bond)), 0);
    return dp;
}

static void
destroy_bond_dp(struct dp *dp, struct pmd *pmd)
{
    dp_test_destroy(dp, pmd);
}

/* Bytes the PMD in 'pmd' accounted to 'bond' over all buckets. */
static uint64_t
bond_bytes(const struct bond *bond, const struct pmd *pmd)
{
    const struct bond_map *map = bond_map_get(bond);
    uint64_t sum = 0;

    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        sum += map->loads[pmd->bond_slot].tx_bytes[b];
    }
    return sum;
}

/* Sends 'n' UDP flows (source ports 1000 + i) from A to B, which is
 * learned on the bond, and counts in 'per_member' where each went.  Each
 * packet must leave on exactly one member: the one the map gives its
 * 'hash' (0: its RSS hash). */
static void
send_bond_flows(struct pmd *pmd, const struct bond *bond, int n,
                uint32_t hash, int per_member[BP_N])
{
    for (int i = 0; i < n; i++) {
        struct test_frame f;
        struct dp_packet *p = make_udp(&f, mac_a, mac_b, 1000 + i, BP_A);
        uint32_t out = run_one(pmd, p);
        uint16_t want = bond_map_port(bond_map_get(bond),
                                      hash ? hash : p->rss_hash);

        if (want == BOND_PORT_NONE) {
            CHECK(!out, "flow %d: no member enabled, went to 0x%x", i, out);
            continue;
        }
        CHECK(out == 1u << want, "flow %d: went to 0x%"PRIx32", expected "
              "member %"PRIu16, i, out, want);
        for (int port = 0; port < BP_N; port++) {
            per_member[port] += (out >> port) & 1;
        }
    }
}

/* balance-tcp: flows spread over both members by RSS hash, the hash is
 * computed once per packet, load is accounted, a disabled member gets
 * nothing and no member at all counts drops. */
static void
test_bond_output(void)
{
    struct dp *dp = make_bond_dp(BOND_MODE_BALANCE_TCP);
    struct bond *bond = dp->ports[BP_BOND]->bond;
    struct pmd *pmd = pmd_create(dp, 0);
    int per_member[BP_N] = { 0 };
    struct test_frame f;
    uint32_t out;

    pmd->bond_slot = 3;
    pmd->now_ms = 1000;
    /* B talks from behind the bond: flooded to A and B, never back. */
    out = run_one(pmd, make_udp(&f, mac_b, mac_bcast, 9, BP_M2));
    CHECK(out == (1u << BP_A | 1u << BP_B), "flood from m2 went to 0x%x",
          out);
    CHECK(mac_learning_lookup(ofproto_mac_learning(dp->bridges[0]), mac_b, 0,
                              1000) == BP_BOND, "B not learned on the bond");

    send_bond_flows(pmd, bond, 64, 0, per_member);
    CHECK(per_member[BP_M1] > 8 && per_member[BP_M2] > 8,
          "64 flows: %d on m1, %d on m2", per_member[BP_M1],
          per_member[BP_M2]);
    CHECK_INT(per_member[BP_M1] + per_member[BP_M2], 64);
    CHECK(stat(pmd, PMD_STAT_EXTRACT) == stat(pmd, PMD_STAT_RECV),
          "extract calls %"PRIu64" != packets %"PRIu64,
          stat(pmd, PMD_STAT_EXTRACT), stat(pmd, PMD_STAT_RECV));
    CHECK(stat(pmd, PMD_STAT_RSS_SW) == stat(pmd, PMD_STAT_RECV),
          "rss hashes %"PRIu64, stat(pmd, PMD_STAT_RSS_SW));
    /* One megaflow for A -> B whatever the L4 ports. */
    CHECK_INT(stat(pmd, PMD_STAT_MISS), 2);
    CHECK_INT(bond_bytes(bond, pmd), 64 * 60);

    /* m1 fails: everything goes to m2 at once, without an upcall. */
    CHECK_INT(bond_member_set_enabled(bond, BP_M1, false), 0);
    memset(per_member, 0, sizeof per_member);
    send_bond_flows(pmd, bond, 64, 0, per_member);
    CHECK_INT(per_member[BP_M2], 64);
    CHECK_INT(stat(pmd, PMD_STAT_MISS), 2);

    /* No member left: dropped and counted. */
    CHECK_INT(bond_member_set_enabled(bond, BP_M2, false), 0);
    memset(per_member, 0, sizeof per_member);
    send_bond_flows(pmd, bond, 16, 0, per_member);
    CHECK_INT(per_member[BP_M1] + per_member[BP_M2], 0);
    CHECK_INT(stat(pmd, PMD_STAT_DROP_BOND_OUTPUT), 16);
    CHECK_INT(bond_bytes(bond, pmd), 2 * 64 * 60);

    destroy_bond_dp(dp, pmd);
}

/* balance-slb: every flow of one source MAC takes the member of the SLB
 * hash that the slow path put in the action, whatever its RSS hash. */
static void
test_bond_output_slb(void)
{
    struct dp *dp = make_bond_dp(BOND_MODE_BALANCE_SLB);
    struct bond *bond = dp->ports[BP_BOND]->bond;
    struct pmd *pmd = pmd_create(dp, 0);
    int per_member[BP_N] = { 0 };
    uint32_t hash = bond_slb_hash(mac_a, 0);
    uint16_t member = bond_map_port(bond_map_get(bond), hash);
    struct test_frame f;

    pmd->now_ms = 1000;
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 9, BP_M1));
    send_bond_flows(pmd, bond, 32, hash, per_member);
    CHECK(member == BP_M1 || member == BP_M2, "SLB member %"PRIu16, member);
    CHECK_INT(per_member[member], 32);
    destroy_bond_dp(dp, pmd);
}

/* Port numbers of the patched datapath: br0 has p0 (access VLAN 10), p1
 * (a trunk) and patch x0 (access VLAN 10); br1 has p3 (a trunk) and patch
 * x1 (access VLAN 20), x0's peer. */
enum { TB_P0, TB_P1, TB_X0, TB_P3, TB_X1, TB_N };

static struct dp *
make_patched_dp(void)
{
    static const char *const names[TB_N] = { "p0", "p1", "x0", "p3", "x1" };
    static const int tags[TB_N] = { 10, 0, 10, 0, 20 };
    struct dp *dp = dp_test_create(0);
    struct ofproto *br1 = dp_test_add_bridge(dp, "br1");

    for (int i = 0; i < TB_N; i++) {
        struct ofproto *br = i < TB_P3 ? dp->bridges[0] : br1;
        struct ofproto_port_settings s;

        CHECK_INT(ofproto_port_settings_init(&s, NULL, tags[i], NULL, 0), 0);
        dp_test_add_port(dp, br, i, names[i]);
        CHECK_INT(ofproto_port_add(br, i, names[i], &s), 0);
    }
    CHECK_INT(ofproto_port_set_patch(dp->bridges[0], TB_X0, br1, TB_X1), 0);
    CHECK_INT(ofproto_port_set_patch(br1, TB_X1, dp->bridges[0], TB_X0), 0);
    return dp;
}

/* The VID of the outer 802.1Q tag of 'p', or -1 if untagged. */
static int
outer_vid(const struct dp_packet *p)
{
    if (p->size < 18 || p->data[12] != 0x81 || p->data[13] != 0x00) {
        return -1;
    }
    return ((p->data[14] << 8) | p->data[15]) & 0xfff;
}

/* A broadcast from p0 crosses the patch into br1 and leaves p3 tagged with
 * br1's VLAN 20, while p1 gets it from br0 with a single tag of VLAN 10:
 * what br1 does to the packet runs on a copy.  The crossing counts once
 * on x0, and the flow goes through both bridges. */
static void
test_patch_crossing(void)
{
    struct dp *dp = make_patched_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    const struct dp_packet *p1, *p3;
    struct dp_batch batch;
    struct test_frame f;

    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    dp_batch_init(&batch);
    dp_batch_add(&batch, make_udp(&f, mac_a, mac_bcast, 1, TB_P0));
    pipeline_process(pmd, &batch, TB_P0);
    p1 = pmd->tx[TB_P1].batch.count == 1 ? pmd->tx[TB_P1].batch.packets[0]
                                         : NULL;
    p3 = pmd->tx[TB_P3].batch.count == 1 ? pmd->tx[TB_P3].batch.packets[0]
                                         : NULL;
    CHECK(p3 && outer_vid(p3) == 20 && p3->size == 64,
          "p3 did not get the frame tagged 20 (vid %d)", p3 ? outer_vid(p3)
                                                           : -2);
    CHECK(p1 && outer_vid(p1) == 10 && p1->size == 64,
          "p1 did not get the frame with one tag of 10 (vid %d, %u bytes)",
          p1 ? outer_vid(p1) : -2, p1 ? p1->size : 0);
    CHECK(pmd->tx[TB_P0].batch.count == 0 && pmd->tx[TB_X0].batch.count == 0
          && pmd->tx[TB_X1].batch.count == 0,
          "a frame went out on the input or a patch port");
    CHECK_INT(pmd->patch[TB_X0].packets, 1);
    CHECK_INT(pmd->patch[TB_X0].bytes, 60);
    CHECK_INT(pmd->patch[TB_X1].packets, 0);
    CHECK(only_flow(pmd) && only_flow(pmd)->bridges == 0x3,
          "the flow's bridges are 0x%"PRIx64,
          only_flow(pmd) ? only_flow(pmd)->bridges : 0);
    CHECK(mac_learning_lookup(ofproto_mac_learning(dp->bridges[1]), mac_a,
                              20, pmd->now_ms) == TB_X1,
          "br1 did not learn the source on x1");
    pmd_flush_tx(pmd);
    destroy_all(dp, pmd);
}

/* A change in one bridge re-translates only the flows that went through
 * it: br1's MAC table flushed revalidates the flow that crossed into br1,
 * and a flow that stayed in br0 is not looked at. */
static void
test_revalidate_one_bridge(void)
{
    struct dp *dp = make_patched_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;
    uint64_t checked;

    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    /* B on p1 is learned in br0; then A -> B stays in br0. */
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, TB_P1));
    run_one(pmd, make_udp(&f, mac_a, mac_b, 1, TB_P0));
    pmd_housekeeping(pmd);
    CHECK_INT(pmd->flows.n_flows, 2);

    checked = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);
    mac_learning_flush(ofproto_mac_learning(dp->bridges[1]));
    pmd_housekeeping(pmd);
    CHECK_INT(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked, 1);

    checked = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);
    mac_learning_flush(ofproto_mac_learning(dp->bridges[0]));
    pmd_housekeeping(pmd);
    CHECK_INT(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked, 2);
    destroy_all(dp, pmd);
}

/* The unicast MAC 02:00:00:01:hi:lo. */
static struct eth_addr
mac_n(unsigned int n)
{
    struct eth_addr m = { { 0x02, 0, 0, 1, (n >> 8) & 0xff, n & 0xff } };
    return m;
}

/* Runs housekeeping until 'pmd' has caught up with the slow path, and
 * returns how many passes it took (at most 'max'). */
static int
reval_until_done(struct pmd *pmd, int max)
{
    int n = 0;

    while (n < max && pmd_reval_pending(pmd)) {
        pmd_housekeeping(pmd);
        n++;
    }
    return n;
}

/* A MAC change re-translates only the flows that depend on that MAC:
 * learning an unrelated host looks at its own flow alone, and a host that
 * moves re-translates the flows to and from it, not the others. */
static void
test_revalidate_by_mac(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;
    uint64_t checked, invalidated;
    uint32_t out;

    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 1));   /* B on p1 */
    run_one(pmd, make_udp(&f, mac_a, mac_bcast, 1, 0));   /* A on p0 */
    for (unsigned int i = 0; i < 20; i++) {               /* others on p2 */
        run_one(pmd, make_udp(&f, mac_n(i), mac_bcast, 1, 2));
    }
    run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));       /* A -> B */
    run_one(pmd, make_udp(&f, mac_n(0), mac_b, 1, 2));    /* n0 -> B */
    reval_until_done(pmd, 100);
    CHECK_INT(pmd->flows.n_flows, 24);

    /* A new host: its own flow depends on it, nothing else does. */
    checked = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);
    run_one(pmd, make_udp(&f, mac_n(100), mac_bcast, 1, 2));
    reval_until_done(pmd, 100);
    CHECK_INT(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked, 1);

    /* B moves to p2: B's broadcast flow and the two flows to B. */
    checked = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);
    invalidated = stat(pmd, PMD_STAT_FLOWS_INVALIDATED);
    mac_learning_learn(ofproto_mac_learning(dp->bridges[0]), mac_b, 0, 2,
                       pmd->now_ms);
    reval_until_done(pmd, 100);
    CHECK_INT(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked, 3);
    CHECK_INT(stat(pmd, PMD_STAT_FLOWS_INVALIDATED) - invalidated, 3);
    out = run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    CHECK(out == 0x4, "A->B after the move went to 0x%x, want p2", out);
    CHECK_INT(stat(pmd, PMD_STAT_REVAL_SWEEPS), 0);
    destroy_all(dp, pmd);
}

/* A change that concerns every flow is done a slice at a time: no
 * housekeeping pass re-translates more than PMD_REVAL_FLOWS flows, and
 * the PMD says it is done only once every flow has been looked at. */
static void
test_revalidate_in_slices(void)
{
    enum { N_FLOWS = 200 };
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct test_frame f;
    uint64_t checked, seq;
    int passes = 0;

    dp->settings.flow_limit = 200000;
    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    mac_learning_set_learn_rate(ofproto_mac_learning(dp->bridges[0]), 0);
    for (unsigned int i = 0; i < N_FLOWS; i++) {
        run_one(pmd, make_udp(&f, mac_n(i), mac_bcast, 1, i % N_PORTS));
    }
    reval_until_done(pmd, 1000);
    CHECK_INT(pmd->flows.n_flows, N_FLOWS);

    checked = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);
    mac_learning_set_aging(ofproto_mac_learning(dp->bridges[0]), 100);
    seq = dp->change_seq;
    while (pmd_reval_pending(pmd) && passes < 1000) {
        uint64_t before = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);

        CHECK(pmd->reval.done_seq < seq, "done before the sweep ended");
        pmd_housekeeping(pmd);
        CHECK(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - before
              <= PMD_REVAL_FLOWS, "one pass re-translated %"PRIu64" flows",
              stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - before);
        passes++;
    }
    CHECK_INT(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked, N_FLOWS);
    CHECK(passes >= N_FLOWS / PMD_REVAL_FLOWS, "%d passes", passes);
    CHECK_INT(pmd->reval.done_seq, seq);
    CHECK_INT(stat(pmd, PMD_STAT_REVAL_SWEEPS), 1);
    /* Nothing was decided differently. */
    CHECK_INT(pmd->flows.n_flows, N_FLOWS);
    destroy_all(dp, pmd);
}

/* A PMD that falls more than the change log's length behind sweeps the
 * bridge instead, and still deletes what changed. */
static void
test_revalidate_log_lost(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct ofproto *br0 = dp->bridges[0];
    struct test_frame f;
    uint32_t out;

    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 1));
    run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    reval_until_done(pmd, 100);
    for (int i = 0; i <= CHANGE_LOG_SIZE; i++) {
        ofproto_port_link_changed(br0, 2);
    }
    mac_learning_learn(ofproto_mac_learning(br0), mac_b, 0, 2, pmd->now_ms);
    reval_until_done(pmd, 100);
    CHECK_INT(stat(pmd, PMD_STAT_REVAL_LOG_LOST), 1);
    CHECK_INT(stat(pmd, PMD_STAT_REVAL_SWEEPS), 1);
    out = run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    CHECK(out == 0x4, "A->B after the move went to 0x%x, want p2", out);
    destroy_all(dp, pmd);
}

/* One port floods frames from thousands of new source MACs into a small
 * table: the other ports' hosts stay learned, their flows are never
 * re-translated, and the work per flooded MAC stays constant. */
static void
test_mac_flood_isolation(void)
{
    enum { N_FLOOD = 5000 };
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct mac_learning *ml = ofproto_mac_learning(dp->bridges[0]);
    struct mac_learning_stats stats;
    struct test_frame f;
    uint64_t checked;
    uint32_t out;

    dp->settings.flow_limit = 200000;
    mac_learning_set_max_entries(ml, 256);
    mac_learning_set_learn_rate(ml, 0);
    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    run_one(pmd, make_udp(&f, mac_b, mac_bcast, 1, 1));
    run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    run_one(pmd, make_udp(&f, mac_b, mac_a, 1, 1));
    reval_until_done(pmd, 100);

    checked = stat(pmd, PMD_STAT_FLOWS_REVALIDATED);
    for (unsigned int i = 0; i < N_FLOOD; i++) {
        run_one(pmd, make_udp(&f, mac_n(i), mac_bcast, 1, 2));
        pmd_housekeeping(pmd);
    }
    reval_until_done(pmd, 1000);
    /* Each flooded MAC: its own flow once when learned, once more when
     * evicted (then deleted: its source is no longer learned). */
    CHECK(stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked <= 2 * N_FLOOD,
          "%"PRIu64" flows re-translated for %d flooded MACs",
          stat(pmd, PMD_STAT_FLOWS_REVALIDATED) - checked, N_FLOOD);
    CHECK_INT(stat(pmd, PMD_STAT_REVAL_SWEEPS), 0);
    CHECK_INT(mac_learning_lookup(ml, mac_a, 0, pmd->now_ms), 0);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 0, pmd->now_ms), 1);
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_entries, 256);
    /* The hosts' unicast is still unicast, from the cache. */
    checked = stat(pmd, PMD_STAT_MISS);
    out = run_one(pmd, make_udp(&f, mac_a, mac_b, 1, 0));
    CHECK(out == 0x2, "A->B went to 0x%x, want p1", out);
    out = run_one(pmd, make_udp(&f, mac_b, mac_a, 1, 1));
    CHECK(out == 0x1, "B->A went to 0x%x, want p0", out);
    CHECK_INT(stat(pmd, PMD_STAT_MISS) - checked, 0);
    destroy_all(dp, pmd);
}

/* Three bridges joined in a ring by patch ports: a broadcast reaches each
 * bridge's host port exactly once and never comes back, because a packet
 * enters each bridge at most once. */
static void
test_patch_ring(void)
{
    /* Bridge b has host port h<b> = 3b and patches 3b+1 (to the next
     * bridge) and 3b+2 (to the previous one). */
    struct dp *dp = dp_test_create(0);
    struct ofproto *br[3] = { dp->bridges[0], dp_test_add_bridge(dp, "br1"),
                              dp_test_add_bridge(dp, "br2") };
    struct dp_batch batch;
    struct test_frame f;
    struct pmd *pmd;

    for (int b = 0; b < 3; b++) {
        for (int k = 0; k < 3; k++) {
            char name[8];

            snprintf(name, sizeof name, "%c%d", "hnp"[k], b);
            dp_test_add_port(dp, br[b], 3 * b + k, name);
            CHECK_INT(ofproto_port_add(br[b], 3 * b + k, name, NULL), 0);
        }
    }
    for (int b = 0; b < 3; b++) {
        int next = (b + 1) % 3;

        CHECK_INT(ofproto_port_set_patch(br[b], 3 * b + 1, br[next],
                                         3 * next + 2), 0);
        CHECK_INT(ofproto_port_set_patch(br[next], 3 * next + 2, br[b],
                                         3 * b + 1), 0);
    }
    pmd = pmd_create(dp, 0);
    pmd->now_ms = 1000;
    dp_test_pmd_sync(pmd);
    dp_batch_init(&batch);
    dp_batch_add(&batch, make_udp(&f, mac_a, mac_bcast, 1, 0));
    pipeline_process(pmd, &batch, 0);
    for (int b = 0; b < 3; b++) {
        CHECK_INT(pmd->tx[3 * b].batch.count, b ? 1 : 0);
        CHECK_INT(pmd->tx[3 * b + 1].batch.count, 0);
        CHECK_INT(pmd->tx[3 * b + 2].batch.count, 0);
    }
    /* br0 -> br1 through n0, br1 -> br2 through n1; every other crossing
     * would enter a bridge the packet was in. */
    for (int port = 0; port < 9; port++) {
        CHECK_INT(pmd->patch[port].packets, port == 1 || port == 4);
    }
    CHECK(only_flow(pmd) && only_flow(pmd)->bridges == 0x7,
          "the flow's bridges are 0x%"PRIx64,
          only_flow(pmd) ? only_flow(pmd)->bridges : 0);
    pmd_flush_tx(pmd);
    destroy_all(dp, pmd);
}

/* Makes the frame in 'f' carry an 802.1Q tag with TCI 'tci' (host
 * order) after its MAC addresses. */
static struct dp_packet *
add_vlan_tag(struct test_frame *f, uint16_t tci)
{
    uint8_t *p = f->packet.data;
    uint32_t size = f->packet.size;
    uint16_t in_port = f->packet.in_port;
    uint8_t tag[4] = { 0x81, 0x00, tci >> 8, tci & 0xff };

    memmove(p + 16, p + 12, size - 12);
    memcpy(p + 12, tag, sizeof tag);
    dp_packet_init(&f->packet, p, size + 4, in_port);
    return &f->packet;
}

/* The outer TCI of 'p' (host order), or -1 if it is untagged. */
static int
packet_tci(const struct dp_packet *p)
{
    const uint8_t *d = p->data;

    return (d[12] == 0x81 && d[13] == 0x00) ? (d[14] << 8) | d[15] : -1;
}

/* A datapath with DP_MAX_PORTS ports, all in vlan 10: by port number
 * modulo 4 access, trunk of 10 and 20, native-untagged and native-tagged
 * vlan 10. */
static struct dp *
make_max_dp(void)
{
    static const int trunks[] = { 10, 20 };
    struct dp *dp = dp_test_create(0);
    struct ofproto *br0 = dp->bridges[0];

    for (int i = 0; i < DP_MAX_PORTS; i++) {
        static const char *const modes[] = {
            "access", "trunk", "native-untagged", "native-tagged",
        };
        struct ofproto_port_settings s;
        char name[16];

        CHECK_INT(ofproto_port_settings_init(&s, modes[i % 4],
                                             i % 4 == 1 ? 0 : 10,
                                             i % 4 == 0 ? NULL : trunks,
                                             i % 4 == 0 ? 0 : 2), 0);
        snprintf(name, sizeof name, "p%d", i);
        dp_test_add_port(dp, br0, i, name);
        CHECK_INT(ofproto_port_add(br0, i, name, &s), 0);
    }
    return dp;
}

/* A flood to every port of a datapath with the most ports, with VLAN
 * actions, goes out once on each port but the input, tagged as each port
 * wants; a packet whose rules ask for more actions than a translation can
 * hold is dropped and counted (miss_upcall_failed, and the coverage
 * counter xlate_too_many_actions), and goes nowhere. */
static void
test_flood_max_ports(void)
{
    struct dp *dp = make_max_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct ofproto_rule *rule;
    uint64_t too_big;
    struct test_frame f;
    struct dp_batch batch;
    char *error;

    pmd->now_ms = 1000;
    dp_batch_init(&batch);
    make_udp(&f, mac_a, mac_bcast, 1, 0);
    dp_batch_add(&batch, add_vlan_tag(&f, (3 << 13) | 0));
    pipeline_process(pmd, &batch, 0);
    CHECK_INT(stat(pmd, PMD_STAT_MISS), 1);
    CHECK_INT(pmd->n_dirty_tx, DP_MAX_PORTS - 1);
    CHECK(!pmd->tx[0].batch.count, "flooded back to the input port");
    for (int i = 1; i < DP_MAX_PORTS; i++) {
        const struct dp_batch *b = &pmd->tx[i].batch;
        int want = i % 4 == 0 || i % 4 == 2 ? -1 : (3 << 13) | 10;

        CHECK(b->count == 1, "port %d: %zu packets", i, (size_t) b->count);
        if (b->count == 1) {
            CHECK(packet_tci(b->packets[0]) == want, "port %d: tci %#x, "
                  "expected %#x", i, packet_tci(b->packets[0]), want);
        }
    }
    pmd_flush_tx(pmd);

    error = ofproto_rule_create(100, 0, "in_port=0",
                                "mod_vlan_vid:20,flood,mod_vlan_vid:30,flood",
                                NULL, NULL, &rule);
    CHECK(!error, "%s", error ? error : "");
    free(error);
    ofproto_set_rules(dp->bridges[0], &rule, 1);
    /* Revalidation fails to translate the flood's flow too, and deletes
     * it. */
    pmd_housekeeping(pmd);
    CHECK_INT(pmd->flows.n_flows, 0);
    too_big = coverage_get("xlate_too_many_actions");
    dp_batch_init(&batch);
    dp_batch_add(&batch, make_udp(&f, mac_b, mac_bcast, 2, 0));
    pipeline_process(pmd, &batch, 0);
    CHECK_INT(stat(pmd, PMD_STAT_LOST), 1);
    CHECK_INT(pmd->n_dirty_tx, 0);
    CHECK_INT(coverage_get("xlate_too_many_actions") - too_big, 1);
    CHECK_INT(pmd->flows.n_flows, 0);

    destroy_all(dp, pmd);
}

int
main(void)
{
    rcu_register_thread();
    test_hash_once_and_flood();
    test_flow_limit();
    test_mask_minimal();
    test_cache_stages();
    test_mac_move();
    test_idle_expiry();
    test_relearn_after_flush();
    test_rewrite_flow();
    test_bond_output();
    test_bond_output_slb();
    test_patch_crossing();
    test_revalidate_one_bridge();
    test_patch_ring();
    test_revalidate_by_mac();
    test_revalidate_in_slices();
    test_revalidate_log_lost();
    test_mac_flood_isolation();
    test_flood_max_ports();
    rcu_unregister();
    return check_finish("test-pipeline");
}
