/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The per-PMD flow table (see dp-flow.h).  Flows live in a slot array so that
 * the SMC can name a flow by a 32-bit index.  Every unused slot is NULL and
 * sits on a stack of free slots; the arrays double when the stack runs dry,
 * which keeps dp_flow_table_get() to one bounds check and one load.
 *
 * The table itself (its arrays and counters) is touched by the owning PMD
 * only.  A deleted flow is unlinked at once and freed after an RCU grace
 * period, so that a reader that found it before deletion may still use it.
 */
#include <autoconf.h>
#include "classifier/dp-flow.h"

#include <stdlib.h>
#include <string.h>
#include "packet/hash.h"
#include "base/rcu.h"
#include "base/util.h"

#define FLOW_TABLE_MIN_SLOTS 64

#define FLOW_DEP_MIN_BUCKETS 64

void
dp_flow_table_init(struct dp_flow_table *t)
{
    memset(t, 0, sizeof *t);
    t->queue_tailp = &t->queue_head;
}

void
dp_flow_table_uninit(struct dp_flow_table *t)
{
    for (uint32_t i = 0; i < t->n_slots; i++) {
        free(t->flows[i]);
    }
    free(t->flows);
    free(t->free_slots);
    free(t->dep_buckets);
    memset(t, 0, sizeof *t);
    t->queue_tailp = &t->queue_head;
}

/* Doubles the slot arrays and pushes the new slots on the free stack,
 * highest index first, so that slots are handed out in ascending order. */
static void
dp_flow_table_grow__(struct dp_flow_table *t)
{
    uint32_t old = t->n_slots;
    uint32_t new = old ? old * 2 : FLOW_TABLE_MIN_SLOTS;

    /* Doubling stops at 2**31 slots, so no index is ever UINT32_MAX, the
     * SMC's "no flow". */
    ovs_assert(new > old);
    t->flows = xrealloc(t->flows, new * sizeof *t->flows);
    memset(&t->flows[old], 0, (new - old) * sizeof *t->flows);
    t->free_slots = xrealloc(t->free_slots, new * sizeof *t->free_slots);
    for (uint32_t i = new; i > old; i--) {
        t->free_slots[t->n_free++] = i - 1;
    }
    t->n_slots = new;
}

/* Copies into 'dst' the words of 'key' selected by 'mask', masked. */
static void
flow_mask_key__(struct netdev_flow_key *dst, const struct netdev_flow_key *key,
                const struct netdev_flow_key *mask)
{
    int n = 0;
    int idx;

    ULLONG_FOR_EACH_1 (idx, mask->mf.map) {
        dst->mf.values[n] = (miniflow_get_word(&key->mf, idx)
                             & mask->mf.values[n]);
        n++;
    }
    dst->mf.map = mask->mf.map;
    dst->len = n * 8;
    dst->hash = hash_masked_miniflow(&key->mf, &mask->mf);
}

struct dp_flow *
dp_flow_create(const struct netdev_flow_key *key,
               const struct netdev_flow_key *mask, uint16_t in_port,
               const struct dp_action *actions, uint32_t n_actions,
               long long now)
{
    struct dp_flow *flow = xmalloc(DP_FLOW_SIZE(n_actions));

    dp_flow_init(flow, key, mask, in_port, actions, n_actions, now);
    return flow;
}

void
dp_flow_init(struct dp_flow *flow, const struct netdev_flow_key *key,
             const struct netdev_flow_key *mask, uint16_t in_port,
             const struct dp_action *actions, uint32_t n_actions,
             long long now)
{
    memset(flow, 0, DP_FLOW_SIZE(n_actions));

    /* The classifier rule gets the same masked key again from
     * dpcls_insert(); filling it here lets a flow that is not (yet) in a
     * classifier still say what it matches. */
    flow_mask_key__(&flow->cr.flow, key, mask);
    flow->mask = *mask;
    flow->in_port = in_port;
    flow->dead = false;
    flow->created = now;
    flow->used = now;
    flow->n_actions = n_actions;
    flow->outputs_only = true;
    for (uint32_t i = 0; i < n_actions; i++) {
        if (actions[i].type != DP_ACTION_OUTPUT) {
            flow->outputs_only = false;
        }
    }
    if (n_actions) {
        memcpy(flow->actions, actions, n_actions * sizeof *flow->actions);
    }
}

struct dp_flow *
dp_flow_table_add(struct dp_flow_table *t, const struct netdev_flow_key *key,
               const struct netdev_flow_key *mask, uint16_t in_port,
               const struct dp_action *actions, uint32_t n_actions,
               long long now)
{
    struct dp_flow *flow = dp_flow_create(key, mask, in_port, actions,
                                          n_actions, now);

    if (!t->n_free) {
        dp_flow_table_grow__(t);
    }
    flow->index = t->free_slots[--t->n_free];
    t->flows[flow->index] = flow;
    /* Other threads read the count (dpctl/show): a single writer, so a
     * relaxed store is enough. */
    __atomic_store_n(&t->n_flows, t->n_flows + 1, __ATOMIC_RELAXED);
    return flow;
}

static uint32_t
dp_flow_dep_hash__(uint8_t bridge, uint64_t key)
{
    return hash_finish(hash_add64(bridge, key), 9);
}

static void
dp_flow_dep_link__(struct dp_flow_table *t, struct dp_flow_dep *dep)
{
    struct dp_flow_dep **bucket;

    bucket = &t->dep_buckets[dp_flow_dep_hash__(dep->bridge, dep->key)
                             & t->dep_mask];
    dep->next = *bucket;
    if (dep->next) {
        dep->next->pprev = &dep->next;
    }
    dep->pprev = bucket;
    *bucket = dep;
}

static void
dp_flow_dep_unlink__(struct dp_flow_dep *dep)
{
    *dep->pprev = dep->next;
    if (dep->next) {
        dep->next->pprev = dep->pprev;
    }
}

/* Doubles the index's buckets (or makes the first ones), keeping its load
 * factor at most 1. */
static void
dp_flow_dep_grow__(struct dp_flow_table *t)
{
    uint32_t n_old = t->dep_buckets ? t->dep_mask + 1 : 0;
    struct dp_flow_dep **old = t->dep_buckets;
    uint32_t n_new = n_old ? n_old * 2 : FLOW_DEP_MIN_BUCKETS;

    t->dep_buckets = xcalloc(n_new, sizeof *t->dep_buckets);
    t->dep_mask = n_new - 1;
    for (uint32_t i = 0; i < n_old; i++) {
        struct dp_flow_dep *dep, *next;

        for (dep = old[i]; dep; dep = next) {
            next = dep->next;
            dp_flow_dep_link__(t, dep);
        }
    }
    free(old);
}

void
dp_flow_table_index(struct dp_flow_table *t, struct dp_flow *flow,
                    const struct dp_flow_dep_key *deps, size_t n,
                    uint64_t wide)
{
    ovs_assert(n <= DP_FLOW_MAX_DEPS && !flow->n_deps && !flow->wide);
    if (!t->dep_buckets || t->n_deps + n > t->dep_mask + 1) {
        dp_flow_dep_grow__(t);
    }
    for (size_t i = 0; i < n; i++) {
        struct dp_flow_dep *dep = &flow->deps[i];

        dep->key = deps[i].key;
        dep->bridge = deps[i].bridge;
        dep->flow = flow;
        dp_flow_dep_link__(t, dep);
    }
    flow->n_deps = n;
    t->n_deps += n;
    flow->wide = wide;
    for (int b = 0; b < 64; b++) {
        if (wide & (UINT64_C(1) << b)) {
            t->n_wide[b]++;
        }
    }
}

uint32_t
dp_flow_table_queue_dependents(struct dp_flow_table *t, uint8_t bridge,
                               uint64_t key)
{
    uint32_t n = 0;

    if (!t->dep_buckets) {
        return 0;
    }
    for (struct dp_flow_dep *dep = t->dep_buckets[
             dp_flow_dep_hash__(bridge, key) & t->dep_mask];
         dep; dep = dep->next) {
        if (dep->key == key && dep->bridge == bridge && !dep->flow->queued) {
            dp_flow_table_queue(t, dep->flow);
            n++;
        }
    }
    return n;
}

void
dp_flow_table_queue(struct dp_flow_table *t, struct dp_flow *flow)
{
    if (flow->queued) {
        return;
    }
    flow->queued = true;
    flow->queue_next = NULL;
    flow->queue_pprev = t->queue_tailp;
    *t->queue_tailp = flow;
    t->queue_tailp = &flow->queue_next;
    t->n_queued++;
}

/* Takes 'flow' off the queue. */
static void
dp_flow_table_unqueue__(struct dp_flow_table *t, struct dp_flow *flow)
{
    *flow->queue_pprev = flow->queue_next;
    if (flow->queue_next) {
        flow->queue_next->queue_pprev = flow->queue_pprev;
    } else {
        t->queue_tailp = flow->queue_pprev;
    }
    flow->queued = false;
    t->n_queued--;
}

struct dp_flow *
dp_flow_table_dequeue(struct dp_flow_table *t)
{
    struct dp_flow *flow = t->queue_head;

    if (flow) {
        dp_flow_table_unqueue__(t, flow);
    }
    return flow;
}

/* Takes 'flow''s facts out of the index. */
static void
dp_flow_table_unindex__(struct dp_flow_table *t, struct dp_flow *flow)
{
    for (uint8_t i = 0; i < flow->n_deps; i++) {
        dp_flow_dep_unlink__(&flow->deps[i]);
    }
    t->n_deps -= flow->n_deps;
    flow->n_deps = 0;
    for (int b = 0; b < 64; b++) {
        if (flow->wide & (UINT64_C(1) << b)) {
            t->n_wide[b]--;
        }
    }
    flow->wide = 0;
}

static void
flow_free_rcu__(struct rcu_head *head)
{
    rcu_callback_begin();
    free(CONTAINER_OF(head, struct dp_flow, rcu));
}

void
dp_flow_table_remove(struct dp_flow_table *t, struct dp_flow *flow)
{
    ovs_assert(flow->index < t->n_slots && t->flows[flow->index] == flow);

    /* Pairs with the relaxed loads in the caches (emc.c): a cache that
     * still points to 'flow' treats it as a miss from now on. */
    __atomic_store_n(&flow->dead, true, __ATOMIC_RELAXED);
    dp_flow_table_unindex__(t, flow);
    if (flow->queued) {
        dp_flow_table_unqueue__(t, flow);
    }
    t->flows[flow->index] = NULL;
    t->free_slots[t->n_free++] = flow->index;
    __atomic_store_n(&t->n_flows, t->n_flows - 1, __ATOMIC_RELAXED);
    call_rcu(&flow->rcu, flow_free_rcu__);
}
