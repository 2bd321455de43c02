/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The exact match cache: the first cache a packet meets.  EMC_ENTRIES
 * entries indexed by the packet's RSS hash, EMC_WAYS candidate slots per
 * hash; an entry holds a full key and the flow it maps to.  A hit needs a
 * full key compare, so a hash collision is a miss, never a wrong flow.
 *
 * Each PMD owns one EMC and is its only user.  Flows it points to are owned
 * by the same PMD's flow table; after deleting flows the PMD calls
 * emc_purge_dead() before its next quiescent state, so the cache never
 * holds a freed flow.
 */
#ifndef EMC_H
#define EMC_H 1

#include <stdint.h>
#include "packet/miniflow.h"

struct dp_flow;

#define EMC_SHIFT 13
#define EMC_ENTRIES (1u << EMC_SHIFT)  /* 8192 */
#define EMC_MASK (EMC_ENTRIES - 1)
#define EMC_WAYS 2                     /* Slots probed per lookup. */

struct emc_entry {
    struct dp_flow *flow;
    struct netdev_flow_key key;
};

struct emc_cache {
    struct emc_entry entries[EMC_ENTRIES];
};

void emc_init(struct emc_cache *);
void emc_uninit(struct emc_cache *);

/* Returns the live flow cached for 'key' (key->hash is the RSS hash), or
 * NULL. */
struct dp_flow *emc_lookup(struct emc_cache *,
                           const struct netdev_flow_key *key);

/* Caches 'key' -> 'flow', replacing a dead or the less useful entry. */
void emc_insert(struct emc_cache *, const struct netdev_flow_key *key,
                struct dp_flow *flow);

/* Calls emc_insert() with probability 1/'inv_prob' (0 disables insertion;
 * 1 always inserts), drawing from the PMD's own cheap random state. */
void emc_probabilistic_insert(struct emc_cache *,
                              const struct netdev_flow_key *key,
                              struct dp_flow *flow, uint32_t inv_prob);

/* Clears every entry whose flow is dead. */
void emc_purge_dead(struct emc_cache *);

/* Clears everything. */
void emc_flush(struct emc_cache *);

/* Number of entries in use. */
uint32_t emc_count(const struct emc_cache *);

#endif /* emc.h */
