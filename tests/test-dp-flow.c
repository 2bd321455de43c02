/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the per-PMD flow table: adding fills every field and
 * hands out slots in order, lookup by slot finds live flows only, removal
 * marks the flow dead and frees its slot for reuse, the arrays grow, and
 * removed flows are freed after a grace period (a leak checker run shows
 * it).  The test thread is an RCU reader, as a PMD is.
 */
#include <autoconf.h>
#include "classifier/dp-flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "packet/hash.h"
#include "base/rcu.h"
#include "base/util.h"

/* An IPv4 key: words 1 (dl_type, in_port) and 3 (addresses). */
static void
make_key(struct netdev_flow_key *key, uint32_t src, uint32_t dst)
{
    struct flow flow;

    memset(&flow, 0, sizeof flow);
    memset(key, 0, sizeof *key);
    flow.dl_type = htons(ETH_TYPE_IP);
    flow.in_port = 3;
    flow.nw_src = htonl(src);
    flow.nw_dst = htonl(dst);
    miniflow_from_flow(&key->mf, &flow, (UINT64_C(1) << 1)
                       | (UINT64_C(1) << FLOW_WORD(nw_src)));
    key->len = miniflow_size(&key->mf);
    key->hash = src * 31 + dst;
}

/* Mask on nw_dst/24 only. */
static void
make_mask(struct netdev_flow_key *mask)
{
    struct flow flow;

    memset(&flow, 0, sizeof flow);
    memset(mask, 0, sizeof *mask);
    flow.nw_dst = htonl(0xffffff00);
    miniflow_from_flow(&mask->mf, &flow,
                       UINT64_C(1) << FLOW_WORD(nw_dst));
    mask->len = miniflow_size(&mask->mf);
}

static void
test_add_fields(void)
{
    static const struct dp_action actions[] = {
        { DP_ACTION_OUTPUT, 2 },
        { DP_ACTION_OUTPUT, 7 },
    };
    struct dp_flow_table t;
    struct netdev_flow_key key, mask;
    struct dp_flow *flow, *drop;
    struct flow expanded;

    dp_flow_table_init(&t);
    make_key(&key, 0x0a000001, 0x0a000205);
    make_mask(&mask);
    CHECK(!dp_flow_table_get(&t, 0), "empty table returned a flow");

    flow = dp_flow_table_add(&t, &key, &mask, 3, actions, ARRAY_SIZE(actions),
                          1234);
    CHECK(flow->index == 0, "first index %u", flow->index);
    CHECK(dp_flow_table_get(&t, 0) == flow, "get(0) did not find the flow");
    CHECK(t.n_flows == 1, "n_flows %u", t.n_flows);
    CHECK(flow->in_port == 3, "in_port %u", flow->in_port);
    CHECK(!flow->dead, "new flow is dead");
    CHECK(flow->created == 1234 && flow->used == 1234,
          "created %lld used %lld", flow->created, flow->used);
    CHECK(!flow->n_packets && !flow->n_bytes && !flow->tcp_flags,
          "stats not zero");
    CHECK(flow->n_actions == 2 && flow->actions[0].port == 2
          && flow->actions[1].port == 7
          && flow->actions[1].type == DP_ACTION_OUTPUT,
          "actions not copied");
    CHECK(miniflow_equal(&flow->mask.mf, &mask.mf), "mask not copied");

    /* The rule's key is the masked key, ready for the classifier. */
    miniflow_expand(&flow->cr.flow.mf, &expanded);
    CHECK(flow->cr.flow.mf.map == mask.mf.map
          && expanded.nw_dst == htonl(0x0a000200) && !expanded.nw_src,
          "rule key not masked: nw_dst %#x nw_src %#x",
          ntohl(expanded.nw_dst), ntohl(expanded.nw_src));
    CHECK(flow->cr.flow.hash == hash_masked_miniflow(&key.mf, &mask.mf),
          "rule key hash is not the masked hash");

    /* No actions means drop, and is allowed. */
    drop = dp_flow_table_add(&t, &key, &mask, 4, NULL, 0, 5);
    CHECK(drop->index == 1 && drop->n_actions == 0, "drop flow: index %u, "
          "%u actions", drop->index, drop->n_actions);

    CHECK(!dp_flow_table_get(&t, 2), "unused slot 2 returned a flow");
    CHECK(!dp_flow_table_get(&t, UINT32_MAX), "slot UINT32_MAX returned a flow");
    dp_flow_table_uninit(&t);
}

static void
test_remove_reuse(void)
{
    struct dp_flow_table t;
    struct netdev_flow_key key, mask;
    struct dp_flow *flows[4], *again;

    dp_flow_table_init(&t);
    make_key(&key, 1, 2);
    make_mask(&mask);
    for (int i = 0; i < 4; i++) {
        flows[i] = dp_flow_table_add(&t, &key, &mask, 1, NULL, 0, 0);
        CHECK(flows[i]->index == i, "flow %d got index %u", i,
              flows[i]->index);
    }

    dp_flow_table_remove(&t, flows[1]);
    /* Not freed before this thread's next quiescent state. */
    CHECK(flows[1]->dead, "removed flow not marked dead");
    CHECK(!dp_flow_table_get(&t, 1), "removed flow still in its slot");
    CHECK(dp_flow_table_get(&t, 2) == flows[2], "neighbour slot disturbed");
    CHECK(t.n_flows == 3, "n_flows %u after remove", t.n_flows);

    again = dp_flow_table_add(&t, &key, &mask, 1, NULL, 0, 0);
    CHECK(again->index == 1, "freed slot not reused: got %u", again->index);
    CHECK(dp_flow_table_get(&t, 1) == again, "reused slot not found");
    CHECK(t.n_flows == 4, "n_flows %u after re-add", t.n_flows);

    /* Last freed, first reused. */
    dp_flow_table_remove(&t, flows[0]);
    dp_flow_table_remove(&t, flows[3]);
    CHECK(dp_flow_table_add(&t, &key, &mask, 1, NULL, 0, 0)->index == 3,
          "free stack not last-in first-out");
    CHECK(dp_flow_table_add(&t, &key, &mask, 1, NULL, 0, 0)->index == 0,
          "second reuse did not take slot 0");
    CHECK(dp_flow_table_add(&t, &key, &mask, 1, NULL, 0, 0)->index == 4,
          "new slot after reuse is not 4");

    rcu_quiesce();
    dp_flow_table_uninit(&t);
    CHECK(t.n_flows == 0 && t.n_slots == 0 && !t.flows,
          "uninit left state behind");
}

static void
test_growth(void)
{
    enum { N = 5000 };
    struct dp_flow_table t;
    struct netdev_flow_key key, mask;
    struct dp_flow **flows = xcalloc(N, sizeof *flows);
    uint32_t n_bad = 0;

    dp_flow_table_init(&t);
    make_mask(&mask);
    for (uint32_t i = 0; i < N; i++) {
        make_key(&key, i, i * 7);
        flows[i] = dp_flow_table_add(&t, &key, &mask, 1, NULL, 0, i);
    }
    for (uint32_t i = 0; i < N; i++) {
        n_bad += flows[i]->index != i || dp_flow_table_get(&t, i) != flows[i];
    }
    CHECK(!n_bad, "%u flows not at their index after growth", n_bad);
    CHECK(t.n_flows == N && t.n_slots >= N, "n_flows %u n_slots %u",
          t.n_flows, t.n_slots);

    /* Remove every other flow, across several grace periods. */
    for (uint32_t i = 0; i < N; i += 2) {
        dp_flow_table_remove(&t, flows[i]);
        if (i % 1000 == 0) {
            rcu_quiesce();
        }
    }
    n_bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        struct dp_flow *want = i % 2 ? flows[i] : NULL;

        n_bad += dp_flow_table_get(&t, i) != want;
    }
    CHECK(!n_bad, "%u slots wrong after removing half", n_bad);
    CHECK(t.n_flows == N / 2, "n_flows %u", t.n_flows);

    rcu_quiesce();
    dp_flow_table_uninit(&t);
    free(flows);
}

int
main(void)
{
    rcu_register_thread();

    test_add_fields();
    test_remove_reuse();
    test_growth();

    /* Let the removed flows' callbacks run, so that a leak checker sees
     * them freed.  rcu_barrier() must not run while this thread is an
     * online reader. */
    rcu_offline();
    rcu_barrier();
    rcu_unregister();

    return check_finish("test-dp-flow");
}
