/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The datapath classifier: a wildcard match over megaflows by tuple-space
 * search.  One subtable per distinct mask; each subtable is a hash table of
 * masked keys.  Subtables are kept in order of hits, re-ranked about once a
 * second by dpcls_sort_subtables(), so that lookups try the busiest first.
 *
 * A dpcls belongs to one PMD and one input port and is used only by that
 * PMD's thread: no locking.
 */
#ifndef DPCLS_H
#define DPCLS_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "packet/miniflow.h"

struct dpcls;
struct dpcls_subtable;

/* A rule, embedded in the owner's flow.  'flow' holds the masked key with
 * key.hash set by dpcls_insert(). */
struct dpcls_rule {
    struct dpcls_rule *next;         /* In the subtable's bucket chain. */
    struct dpcls_subtable *subtable; /* Set by dpcls_insert(). */
    struct netdev_flow_key flow;     /* Masked key. */
};

struct dpcls *dpcls_create(void);
void dpcls_destroy(struct dpcls *);   /* Accepts NULL; rules are not freed. */

/* Inserts 'rule' matching packets whose key, masked by 'mask', equals
 * 'key' masked by 'mask'.  Copies the masked 'key' into 'rule->flow'.  The
 * caller keeps 'rule' alive until dpcls_remove(). */
void dpcls_insert(struct dpcls *, struct dpcls_rule *rule,
                  const struct netdev_flow_key *key,
                  const struct netdev_flow_key *mask);
void dpcls_remove(struct dpcls *, struct dpcls_rule *rule);

/* Looks up 'n' keys ('n' <= 32).  Sets rules[i] to the matching rule or
 * NULL.  Returns true if every key matched.  Adds the number of subtables
 * searched to '*n_lookups' (for "avg. subtable lookups per megaflow hit"). */
bool dpcls_lookup(struct dpcls *, const struct netdev_flow_key *keys[],
                  struct dpcls_rule **rules, size_t n, uint32_t *n_lookups);

/* True if 'key' matches 'rule' (used to verify SMC hits). */
bool dpcls_rule_matches_key(const struct dpcls_rule *rule,
                            const struct netdev_flow_key *key);

/* The mask 'rule' was inserted with. */
const struct netdev_flow_key *dpcls_rule_mask(const struct dpcls_rule *rule);

/* Re-ranks subtables by hits since the last call and clears the counts.
 * Called by the owning PMD about once a second. */
void dpcls_sort_subtables(struct dpcls *);

size_t dpcls_n_subtables(const struct dpcls *);
size_t dpcls_n_rules(const struct dpcls *);

/* Makes every subtable of 'cls', present and future, use the generic
 * lookup loop ('generic_only') or the one specialised for its mask size
 * (the default).  Both give the same results; this exists so that tests
 * and benchmarks can compare them. */
void dpcls_use_generic_lookup(struct dpcls *, bool generic_only);

#endif /* dpcls.h */
