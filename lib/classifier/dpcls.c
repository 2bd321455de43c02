/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The datapath classifier (see dpcls.h): tuple-space search.
 *
 * Each distinct megaflow mask has a subtable, and each subtable a chained
 * hash table of rules keyed by the hash of the masked key (see struct
 * dpcls_bucket for how most probes avoid touching a rule).  A batch lookup
 * visits the subtables in rank order; each visit works on the keys still
 * unmatched (a bitmask), so a batch whose keys all hit the first subtable
 * never touches the others.
 *
 * Keys arrive as miniflows, whose words sit at positions that depend on
 * which other words are present.  The lookup expands each key once into a
 * plain array of FLOW_U64S words, so that every subtable reads word 'idx'
 * directly instead of counting map bits again for each mask word.
 *
 * The inner loop (masked hash, probe, compare) is one ALWAYS_INLINE body,
 * instantiated for the common mask sizes with the word count a constant so
 * that the compiler unrolls it, plus a generic instance for the rest.  Each
 * subtable carries a pointer to its instance: one indirect call per
 * subtable per batch.
 *
 * A dpcls is used by its PMD thread only: no locks.  Lookups do not
 * allocate; inserts and removes may (subtable creation, rehash).
 */
#include <autoconf.h>
#include "classifier/dpcls.h"

#include <stdlib.h>
#include <string.h>
#include "packet/hash.h"
#include "base/util.h"

#define DPCLS_MAX_KEYS 32               /* dpcls_lookup()'s limit on 'n'. */
#define DPCLS_MIN_BUCKETS 16            /* Power of 2. */
/* Buckets per rule, at least.  At a load of 1/2 a key that belongs to
 * another subtable finds an empty bucket or a lone rule of another hash
 * (rejected by the bucket's copy of the hash) 91% of the time; at a load
 * of 1, 74%.  Each chased chain costs a cache miss into a flow, and every
 * key visits (n + 1) / 2 subtables on average, so the memory (16 bytes per
 * bucket) pays: with 16 subtables and 20,000 flows a classifier hit took
 * 374-406 cycles instead of 444-465 (bench/micro-caches.c). */
#define DPCLS_BUCKETS_PER_RULE 2
#define DPCLS_FLOW_MAP ((UINT64_C(1) << FLOW_U64S) - 1)

/* A key expanded to one word per struct flow word, absent words zero. */
typedef uint64_t dpcls_flow_words[FLOW_U64S];

/* Matches the keys named by 'keys_map' against 'subtable'.  For each match
 * sets rules[i]; returns the bitmask of matched keys. */
typedef uint32_t dpcls_subtable_lookup_func(
    const struct dpcls_subtable *subtable, uint32_t keys_map,
    const dpcls_flow_words flows[], struct dpcls_rule **rules);

/* A hash table bucket: a chain of rules through their 'next' pointers.
 * The bucket keeps its first rule's hash and the chain's length, so that
 * a key that does not match the first rule's hash, in a bucket that holds
 * no other rule, which is what a subtable mostly sees when the key belongs
 * to another subtable, is rejected without touching any rule. */
struct dpcls_bucket {
    uint32_t hash;                       /* 'head->flow.hash'. */
    uint32_t n_rules;                    /* Length of the chain. */
    struct dpcls_rule *head;
};

struct dpcls_subtable {
    /* Read by every lookup. */
    dpcls_subtable_lookup_func *lookup;  /* Instance for 'n_words'. */
    struct dpcls_bucket *buckets;        /* 'bucket_mask' + 1 of them. */
    uint32_t bucket_mask;
    uint32_t n_words;                    /* Words in 'mask'. */
    uint8_t idx[FLOW_U64S];              /* Flow word index of each. */
    uint64_t hits;                       /* Matched keys since last sort. */

    /* Read on insert and remove. */
    uint32_t n_rules;
    struct netdev_flow_key mask;         /* 'mask.mf.values[w]' goes with
                                          * flow word 'idx[w]'. */
};

struct dpcls {
    struct dpcls_subtable **subtables;   /* In rank order, busiest first. */
    size_t n_subtables;
    size_t allocated;                    /* Capacity of 'subtables'. */
    size_t n_rules;
    bool generic_only;                   /* See dpcls_use_generic_lookup(). */
};

/* Masked hash of 'flow' for a subtable.  Must equal
 * hash_masked_miniflow() of the same key and mask: rules are hashed with
 * that on insert. */
static inline ALWAYS_INLINE uint32_t
dpcls_hash_masked__(const uint64_t *flow, const uint8_t *idx,
                    const uint64_t *maskv, uint32_t n_words)
{
    uint32_t hash = 0;

    for (uint32_t w = 0; w < n_words; w++) {
        hash = hash_add64(hash, flow[idx[w]] & maskv[w]);
    }
    return hash_finish(hash, n_words * 8);
}

static inline ALWAYS_INLINE bool
dpcls_masked_equal__(const uint64_t *rule_values, const uint64_t *flow,
                     const uint8_t *idx, const uint64_t *maskv,
                     uint32_t n_words)
{
    uint64_t diff = 0;

    /* No early exit: the hash already matched, so the words almost always
     * agree, and a branch per word would only cost mispredictions. */
    for (uint32_t w = 0; w < n_words; w++) {
        diff |= (flow[idx[w]] & maskv[w]) ^ rule_values[w];
    }
    return !diff;
}

static inline ALWAYS_INLINE uint32_t
dpcls_subtable_lookup__(const struct dpcls_subtable *subtable,
                        uint32_t keys_map, const dpcls_flow_words flows[],
                        struct dpcls_rule **rules, uint32_t n_words)
{
    const uint64_t *maskv = subtable->mask.mf.values;
    const uint8_t *idx = subtable->idx;
    uint32_t hashes[DPCLS_MAX_KEYS];
    uint32_t found = 0;
    int i;

    /* Hash every key and prefetch its bucket first, then probe, so that
     * the buckets' cache misses overlap.  The prefetch took one subtable
     * with 200,000 rules from 344 to 270 cycles per classifier hit and
     * gains a few percent with 20,000 (bench/micro-caches.c). */
    ULLONG_FOR_EACH_1 (i, keys_map) {
        hashes[i] = dpcls_hash_masked__(flows[i], idx, maskv, n_words);
        PREFETCH(&subtable->buckets[hashes[i] & subtable->bucket_mask]);
    }
    ULLONG_FOR_EACH_1 (i, keys_map) {
        uint32_t hash = hashes[i];
        const struct dpcls_bucket *b;
        struct dpcls_rule *rule;

        b = &subtable->buckets[hash & subtable->bucket_mask];
        if (b->hash == hash && b->n_rules
            && dpcls_masked_equal__(b->head->flow.mf.values, flows[i],
                                    idx, maskv, n_words)) {
            rules[i] = b->head;
            found |= UINT32_C(1) << i;
            continue;
        }
        if (LIKELY(b->n_rules <= 1)) {
            continue;
        }
        for (rule = b->head->next; rule; rule = rule->next) {
            if (rule->flow.hash == hash
                && dpcls_masked_equal__(rule->flow.mf.values, flows[i],
                                        idx, maskv, n_words)) {
                rules[i] = rule;
                found |= UINT32_C(1) << i;
                break;
            }
        }
    }
    return found;
}

static uint32_t
dpcls_subtable_lookup_generic(const struct dpcls_subtable *subtable,
                              uint32_t keys_map,
                              const dpcls_flow_words flows[],
                              struct dpcls_rule **rules)
{
    return dpcls_subtable_lookup__(subtable, keys_map, flows, rules,
                                   subtable->n_words);
}

/* The specialised instances.  The sizes are those of the usual megaflows:
 * L2 (2-3 words: MACs, ethertype, in_port, VLAN), IPv4 with or without L2
 * and L4 (2-5), ARP (6) and IPv6 5-tuple (8). */
#define DPCLS_SPECIALISE(N)                                             \
    static uint32_t                                                     \
    dpcls_subtable_lookup_##N(const struct dpcls_subtable *subtable,    \
                              uint32_t keys_map,                        \
                              const dpcls_flow_words flows[],           \
                              struct dpcls_rule **rules)                \
    {                                                                   \
        return dpcls_subtable_lookup__(subtable, keys_map, flows,       \
                                       rules, N);                       \
    }
DPCLS_SPECIALISE(1)
DPCLS_SPECIALISE(2)
DPCLS_SPECIALISE(3)
DPCLS_SPECIALISE(4)
DPCLS_SPECIALISE(5)
DPCLS_SPECIALISE(6)
DPCLS_SPECIALISE(8)

static dpcls_subtable_lookup_func *
dpcls_lookup_func__(uint32_t n_words, bool generic_only)
{
    if (generic_only) {
        return dpcls_subtable_lookup_generic;
    }
    switch (n_words) {
    case 1: return dpcls_subtable_lookup_1;
    case 2: return dpcls_subtable_lookup_2;
    case 3: return dpcls_subtable_lookup_3;
    case 4: return dpcls_subtable_lookup_4;
    case 5: return dpcls_subtable_lookup_5;
    case 6: return dpcls_subtable_lookup_6;
    case 8: return dpcls_subtable_lookup_8;
    default: return dpcls_subtable_lookup_generic;
    }
}

struct dpcls *
dpcls_create(void)
{
    /* Cache-line aligned, like the subtables: they are per-PMD data. */
    return xzalloc_cacheline(sizeof(struct dpcls));
}

static void
dpcls_subtable_destroy__(struct dpcls_subtable *subtable)
{
    free(subtable->buckets);
    free(subtable);
}

void
dpcls_destroy(struct dpcls *cls)
{
    if (!cls) {
        return;
    }
    for (size_t i = 0; i < cls->n_subtables; i++) {
        dpcls_subtable_destroy__(cls->subtables[i]);
    }
    free(cls->subtables);
    free(cls);
}

static bool
dpcls_mask_equal__(const struct netdev_flow_key *a,
                   const struct netdev_flow_key *b)
{
    return (a->mf.map == b->mf.map
            && !memcmp(a->mf.values, b->mf.values, miniflow_size(&a->mf)));
}

static struct dpcls_subtable *
dpcls_find_subtable__(const struct dpcls *cls,
                      const struct netdev_flow_key *mask)
{
    for (size_t i = 0; i < cls->n_subtables; i++) {
        if (dpcls_mask_equal__(&cls->subtables[i]->mask, mask)) {
            return cls->subtables[i];
        }
    }
    return NULL;
}

/* Creates a subtable for 'mask' and ranks it last: it has no hits yet. */
static struct dpcls_subtable *
dpcls_create_subtable__(struct dpcls *cls,
                        const struct netdev_flow_key *mask)
{
    struct dpcls_subtable *subtable = xzalloc_cacheline(sizeof *subtable);
    uint32_t n = 0;
    int idx;

    ULLONG_FOR_EACH_1 (idx, mask->mf.map) {
        subtable->idx[n++] = idx;
    }
    subtable->n_words = n;
    subtable->mask.mf.map = mask->mf.map;
    memcpy(subtable->mask.mf.values, mask->mf.values, n * 8);
    subtable->mask.len = n * 8;
    subtable->mask.hash = hash_masked_miniflow(&mask->mf, &mask->mf);
    subtable->lookup = dpcls_lookup_func__(n, cls->generic_only);
    subtable->buckets = xcalloc(DPCLS_MIN_BUCKETS, sizeof *subtable->buckets);
    subtable->bucket_mask = DPCLS_MIN_BUCKETS - 1;

    if (cls->n_subtables == cls->allocated) {
        cls->allocated = cls->allocated ? cls->allocated * 2 : 4;
        cls->subtables = xrealloc(cls->subtables,
                                  cls->allocated * sizeof *cls->subtables);
    }
    cls->subtables[cls->n_subtables++] = subtable;
    return subtable;
}

static void
dpcls_remove_subtable__(struct dpcls *cls, struct dpcls_subtable *subtable)
{
    for (size_t i = 0; i < cls->n_subtables; i++) {
        if (cls->subtables[i] == subtable) {
            memmove(&cls->subtables[i], &cls->subtables[i + 1],
                    (cls->n_subtables - i - 1) * sizeof *cls->subtables);
            cls->n_subtables--;
            dpcls_subtable_destroy__(subtable);
            return;
        }
    }
    ovs_assert(false);
}

static void
dpcls_bucket_push__(struct dpcls_bucket *b, struct dpcls_rule *rule)
{
    rule->next = b->head;
    b->head = rule;
    b->hash = rule->flow.hash;
    b->n_rules++;
}

/* Moves every rule of 'subtable' into a new table of 'n_buckets' chains. */
static void
dpcls_subtable_rehash__(struct dpcls_subtable *subtable, uint32_t n_buckets)
{
    struct dpcls_bucket *buckets = xcalloc(n_buckets, sizeof *buckets);
    uint32_t mask = n_buckets - 1;

    for (uint32_t b = 0; b <= subtable->bucket_mask; b++) {
        struct dpcls_rule *rule, *next;

        for (rule = subtable->buckets[b].head; rule; rule = next) {
            next = rule->next;
            dpcls_bucket_push__(&buckets[rule->flow.hash & mask], rule);
        }
    }
    free(subtable->buckets);
    subtable->buckets = buckets;
    subtable->bucket_mask = mask;
}

void
dpcls_insert(struct dpcls *cls, struct dpcls_rule *rule,
             const struct netdev_flow_key *key,
             const struct netdev_flow_key *mask)
{
    struct dpcls_subtable *subtable;

    ovs_assert(!(mask->mf.map & ~DPCLS_FLOW_MAP));
    subtable = dpcls_find_subtable__(cls, mask);
    if (!subtable) {
        subtable = dpcls_create_subtable__(cls, mask);
    }

    /* The masked key, in the mask's word order. */
    for (uint32_t w = 0; w < subtable->n_words; w++) {
        rule->flow.mf.values[w] = (miniflow_get_word(&key->mf,
                                                     subtable->idx[w])
                                   & subtable->mask.mf.values[w]);
    }
    rule->flow.mf.map = subtable->mask.mf.map;
    rule->flow.len = subtable->n_words * 8;
    rule->flow.hash = hash_masked_miniflow(&key->mf, &subtable->mask.mf);
    rule->subtable = subtable;

    if ((subtable->n_rules + 1) * DPCLS_BUCKETS_PER_RULE
        > subtable->bucket_mask + 1) {
        dpcls_subtable_rehash__(subtable, (subtable->bucket_mask + 1) * 2);
    }
    dpcls_bucket_push__(
        &subtable->buckets[rule->flow.hash & subtable->bucket_mask], rule);
    subtable->n_rules++;
    cls->n_rules++;
}

void
dpcls_remove(struct dpcls *cls, struct dpcls_rule *rule)
{
    struct dpcls_subtable *subtable = rule->subtable;
    struct dpcls_bucket *b;
    struct dpcls_rule **p;

    b = &subtable->buckets[rule->flow.hash & subtable->bucket_mask];
    p = &b->head;
    while (*p != rule) {
        ovs_assert(*p);
        p = &(*p)->next;
    }
    *p = rule->next;
    b->hash = b->head ? b->head->flow.hash : 0;
    b->n_rules--;
    rule->next = NULL;
    rule->subtable = NULL;
    cls->n_rules--;

    if (!--subtable->n_rules) {
        dpcls_remove_subtable__(cls, subtable);
    } else if (subtable->n_rules * DPCLS_BUCKETS_PER_RULE * 4
               <= subtable->bucket_mask + 1
               && subtable->bucket_mask + 1 > DPCLS_MIN_BUCKETS) {
        /* Give back memory once the table is mostly empty; the gap between
         * this and the growth threshold stops add/remove ping-pong. */
        dpcls_subtable_rehash__(subtable, (subtable->bucket_mask + 1) / 2);
    }
}

/* Expands 'mf' into 'flow', one word per struct flow word. */
static inline void
dpcls_expand__(const struct miniflow *mf, uint64_t *flow)
{
    const uint64_t *value = mf->values;
    int idx;

    memset(flow, 0, FLOW_U64S * sizeof *flow);
    ULLONG_FOR_EACH_1 (idx, mf->map & DPCLS_FLOW_MAP) {
        flow[idx] = *value++;
    }
}

bool
dpcls_lookup(struct dpcls *cls, const struct netdev_flow_key *keys[],
             struct dpcls_rule **rules, size_t n, uint32_t *n_lookups)
{
    dpcls_flow_words flows[DPCLS_MAX_KEYS];
    uint32_t keys_map;
    uint32_t lookups = 0;

    ovs_assert(n <= DPCLS_MAX_KEYS);
    for (size_t i = 0; i < n; i++) {
        rules[i] = NULL;
    }
    if (!n || !cls->n_subtables) {
        return !n;
    }

    for (size_t i = 0; i < n; i++) {
        dpcls_expand__(&keys[i]->mf, flows[i]);
    }
    keys_map = n == DPCLS_MAX_KEYS ? UINT32_MAX : (UINT32_C(1) << n) - 1;
    for (size_t s = 0; s < cls->n_subtables; s++) {
        struct dpcls_subtable *subtable = cls->subtables[s];
        uint32_t found, n_found;

        found = subtable->lookup(subtable, keys_map, flows, rules);
        n_found = count_1bits(found);
        subtable->hits += n_found;
        /* A key matched here was looked up in s + 1 subtables. */
        lookups += n_found * (s + 1);
        keys_map &= ~found;
        if (!keys_map) {
            break;
        }
    }
    if (n_lookups) {
        *n_lookups += lookups;
    }
    return !keys_map;
}

bool
dpcls_rule_matches_key(const struct dpcls_rule *rule,
                       const struct netdev_flow_key *key)
{
    const struct dpcls_subtable *subtable = rule->subtable;
    const uint64_t *maskv = subtable->mask.mf.values;
    const uint64_t *rule_values = rule->flow.mf.values;
    const uint64_t *kv = key->mf.values;
    uint64_t key_map = key->mf.map;
    uint64_t mask_map = subtable->mask.mf.map;
    uint64_t diff = 0;
    int idx;

    /* One pass over both maps with a cursor into each packed array: this
     * verifies every SMC hit, and counting map bits per word instead
     * would cost a popcount each. */
    ULLONG_FOR_EACH_1 (idx, key_map | mask_map) {
        uint64_t bit = UINT64_C(1) << idx;
        uint64_t word = key_map & bit ? *kv++ : 0;

        if (mask_map & bit) {
            diff |= (word & *maskv++) ^ *rule_values++;
        }
    }
    return !diff;
}

const struct netdev_flow_key *
dpcls_rule_mask(const struct dpcls_rule *rule)
{
    return &rule->subtable->mask;
}

void
dpcls_sort_subtables(struct dpcls *cls)
{
    /* Insertion sort: stable, so equally busy subtables keep their order,
     * and nearly free when the ranking did not change, which is the usual
     * case. */
    for (size_t i = 1; i < cls->n_subtables; i++) {
        struct dpcls_subtable *subtable = cls->subtables[i];
        size_t j = i;

        while (j > 0 && cls->subtables[j - 1]->hits < subtable->hits) {
            cls->subtables[j] = cls->subtables[j - 1];
            j--;
        }
        cls->subtables[j] = subtable;
    }
    for (size_t i = 0; i < cls->n_subtables; i++) {
        cls->subtables[i]->hits = 0;
    }
}

size_t
dpcls_n_subtables(const struct dpcls *cls)
{
    return cls->n_subtables;
}

size_t
dpcls_n_rules(const struct dpcls *cls)
{
    return cls->n_rules;
}

void
dpcls_use_generic_lookup(struct dpcls *cls, bool generic_only)
{
    cls->generic_only = generic_only;
    for (size_t i = 0; i < cls->n_subtables; i++) {
        struct dpcls_subtable *subtable = cls->subtables[i];

        subtable->lookup = dpcls_lookup_func__(subtable->n_words,
                                               generic_only);
    }
}
