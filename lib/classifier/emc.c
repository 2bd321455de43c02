/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The exact match cache (see emc.h for the design).  A key may live in one
 * of EMC_WAYS slots: the one named by the low EMC_SHIFT bits of its RSS
 * hash and the one named by the next EMC_SHIFT bits.  A lookup compares the
 * stored hash first, which rejects almost every wrong slot with one load,
 * and then the whole key, so that two keys with the same hash never share
 * an answer.
 *
 * Replacement: a new key takes the slot that already holds the same key,
 * else an empty slot or one whose flow is dead, else the slot whose flow
 * was hit least recently ('used'), the one with fewer packets when both were
 * hit in the same millisecond, and the second way when even that ties.
 * Keeping the busier megaflow's entry protects the heavy flows, which are
 * the ones the EMC pays off for; with insertion at 1% probability a burst
 * of new flows cannot wash them out either.
 */
#include <autoconf.h>
#include "classifier/emc.h"

#include <string.h>
#include "classifier/dp-flow.h"

/* State of the calling thread's xorshift32 generator.  Seeded with a fixed
 * non-zero value so that runs are reproducible. */
static __thread uint32_t emc_random_state = 0x2545f491;

static inline uint32_t
emc_random__(void)
{
    uint32_t x = emc_random_state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    emc_random_state = x;
    return x;
}

static inline bool
emc_flow_is_live__(const struct dp_flow *flow)
{
    /* Pairs with the relaxed store in dp_flow_table_remove(), made by this
     * same thread; other threads never write 'dead'. */
    return flow && !__atomic_load_n(&flow->dead, __ATOMIC_RELAXED);
}

/* True if 'a' and 'b' are the same key.  'a' is a cached key. */
static inline bool
emc_key_equal__(const struct netdev_flow_key *a,
                const struct netdev_flow_key *b)
{
    uint32_t n_words = b->len / 8;

    if (a->hash != b->hash || a->len != b->len || a->mf.map != b->mf.map) {
        return false;
    }
    for (uint32_t i = 0; i < n_words; i++) {
        if (a->mf.values[i] != b->mf.values[i]) {
            return false;
        }
    }
    return true;
}

static inline struct emc_entry *
emc_way__(struct emc_cache *cache, uint32_t hash, int way)
{
    return &cache->entries[(hash >> (way * EMC_SHIFT)) & EMC_MASK];
}

void
emc_init(struct emc_cache *cache)
{
    memset(cache->entries, 0, sizeof cache->entries);
}

void
emc_uninit(struct emc_cache *cache)
{
    emc_flush(cache);
}

struct dp_flow *
emc_lookup(struct emc_cache *cache, const struct netdev_flow_key *key)
{
    for (int way = 0; way < EMC_WAYS; way++) {
        struct emc_entry *e = emc_way__(cache, key->hash, way);

        if (emc_key_equal__(&e->key, key) && emc_flow_is_live__(e->flow)) {
            return e->flow;
        }
    }
    return NULL;
}

/* True if the flow in 'a' is a better eviction victim than the one in 'b'.
 * Both hold live flows. */
static bool
emc_less_useful__(const struct emc_entry *a, const struct emc_entry *b)
{
    if (a->flow->used != b->flow->used) {
        return a->flow->used < b->flow->used;
    }
    return a->flow->n_packets < b->flow->n_packets;
}

/* Picks the slot that 'key' should go into. */
static struct emc_entry *
emc_pick_slot__(struct emc_cache *cache, const struct netdev_flow_key *key)
{
    struct emc_entry *ways[EMC_WAYS];
    struct emc_entry *victim;

    for (int way = 0; way < EMC_WAYS; way++) {
        ways[way] = emc_way__(cache, key->hash, way);
        if (ways[way]->flow && emc_key_equal__(&ways[way]->key, key)) {
            return ways[way];
        }
    }
    for (int way = 0; way < EMC_WAYS; way++) {
        if (!emc_flow_is_live__(ways[way]->flow)) {
            return ways[way];
        }
    }
    victim = ways[EMC_WAYS - 1];
    for (int way = EMC_WAYS - 2; way >= 0; way--) {
        if (emc_less_useful__(ways[way], victim)) {
            victim = ways[way];
        }
    }
    return victim;
}

void
emc_insert(struct emc_cache *cache, const struct netdev_flow_key *key,
           struct dp_flow *flow)
{
    struct emc_entry *e;

    ovs_assert(key->len <= sizeof key->mf.values);
    e = emc_pick_slot__(cache, key);
    e->flow = flow;
    e->key.hash = key->hash;
    e->key.len = key->len;
    e->key.mf.map = key->mf.map;
    memcpy(e->key.mf.values, key->mf.values, key->len);
}

void
emc_probabilistic_insert(struct emc_cache *cache,
                         const struct netdev_flow_key *key,
                         struct dp_flow *flow, uint32_t inv_prob)
{
    if (inv_prob && emc_random__() % inv_prob == 0) {
        emc_insert(cache, key, flow);
    }
}

static void
emc_clear_entry__(struct emc_entry *e)
{
    e->flow = NULL;
    e->key.hash = 0;
    e->key.len = 0;
    e->key.mf.map = 0;
}

void
emc_purge_dead(struct emc_cache *cache)
{
    for (size_t i = 0; i < EMC_ENTRIES; i++) {
        struct emc_entry *e = &cache->entries[i];

        if (e->flow && !emc_flow_is_live__(e->flow)) {
            emc_clear_entry__(e);
        }
    }
}

void
emc_flush(struct emc_cache *cache)
{
    for (size_t i = 0; i < EMC_ENTRIES; i++) {
        emc_clear_entry__(&cache->entries[i]);
    }
}

uint32_t
emc_count(const struct emc_cache *cache)
{
    uint32_t n = 0;

    for (size_t i = 0; i < EMC_ENTRIES; i++) {
        n += emc_flow_is_live__(cache->entries[i].flow);
    }
    return n;
}
