/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the exact match cache: hits need the whole key, both ways
 * of a hash are used, eviction keeps the busier flow, dead flows are
 * misses, purge and flush empty what they should, and probabilistic
 * insertion inserts at the configured rate.  Keys are built by hand, with
 * hashes chosen to land on given slots.
 */
#include <autoconf.h>
#include "classifier/emc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "classifier/dp-flow.h"
#include "base/util.h"

/* A key with 'hash' holding the words 'w0' and 'w1' at flow words 0 and 3
 * (word 3 left out when 'w1' is 0). */
static struct netdev_flow_key
make_key(uint32_t hash, uint64_t w0, uint64_t w1)
{
    struct netdev_flow_key key;

    memset(&key, 0, sizeof key);
    key.hash = hash;
    key.mf.map = UINT64_C(1) << 0;
    key.mf.values[0] = w0;
    if (w1) {
        key.mf.map |= UINT64_C(1) << 3;
        key.mf.values[1] = w1;
    }
    key.len = miniflow_size(&key.mf);
    return key;
}

static struct dp_flow *
make_flow(long long used, uint64_t n_packets)
{
    struct dp_flow *flow = xzalloc(sizeof *flow);

    flow->used = used;
    flow->n_packets = n_packets;
    return flow;
}

/* Hash whose first way is slot 'way0' and second way slot 'way1'. */
static uint32_t
hash_for_slots(uint32_t way0, uint32_t way1, uint32_t top)
{
    return way0 | (way1 << EMC_SHIFT) | (top << (2 * EMC_SHIFT));
}

static struct emc_cache *
new_cache(void)
{
    struct emc_cache *cache = xmalloc(sizeof *cache);

    emc_init(cache);
    return cache;
}

static void
test_empty(void)
{
    struct emc_cache *cache = new_cache();
    struct netdev_flow_key zero;

    /* A zeroed key looks like an empty entry: it must still miss. */
    memset(&zero, 0, sizeof zero);
    CHECK(emc_count(cache) == 0, "new cache holds %u", emc_count(cache));
    CHECK(!emc_lookup(cache, &zero), "zero key hit an empty cache");
    emc_uninit(cache);
    free(cache);
}

static void
test_insert_lookup(void)
{
    struct emc_cache *cache = new_cache();
    struct dp_flow *f1 = make_flow(0, 0);
    struct dp_flow *f2 = make_flow(0, 0);
    struct netdev_flow_key k = make_key(0x12345678, 0xaaaa, 0xbbbb);
    static const struct {
        const char *what;
        uint32_t hash;
        uint64_t w0, w1;
        uint64_t extra_map;     /* Added to the map, keeping the values. */
        bool hit;
    } cases[] = {
        { "same key", 0x12345678, 0xaaaa, 0xbbbb, 0, true },
        { "same hash, other word 0", 0x12345678, 0xaaab, 0xbbbb, 0, false },
        { "same hash, other word 3", 0x12345678, 0xaaaa, 0xbbba, 0, false },
        { "same hash, fewer words", 0x12345678, 0xaaaa, 0, 0, false },
        { "same hash and values, other map", 0x12345678, 0xaaaa, 0xbbbb,
          UINT64_C(1) << 9, false },
        { "other hash, same values", 0x12345679, 0xaaaa, 0xbbbb, 0, false },
    };

    emc_insert(cache, &k, f1);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct netdev_flow_key q = make_key(cases[i].hash, cases[i].w0,
                                            cases[i].w1);
        struct dp_flow *got;

        if (cases[i].extra_map) {
            /* Same bytes, but one more word named in the map. */
            q.mf.map |= cases[i].extra_map;
            q.mf.values[2] = 0;
        }
        got = emc_lookup(cache, &q);
        CHECK(got == (cases[i].hit ? f1 : NULL), "%s: got %p, want %s",
              cases[i].what, (void *) got, cases[i].hit ? "f1" : "miss");
    }
    CHECK(emc_count(cache) == 1, "count %u after one insert",
          emc_count(cache));

    /* Inserting the same key again updates the entry in place. */
    emc_insert(cache, &k, f2);
    CHECK(emc_lookup(cache, &k) == f2, "re-insert did not update");
    CHECK(emc_count(cache) == 1, "re-insert made %u entries",
          emc_count(cache));

    emc_uninit(cache);
    free(cache);
    free(f1);
    free(f2);
}

/* Keys A, B and C: A and B share their first slot, C shares A's first
 * slot and B's second, so that inserting C must evict A or B. */
static void
test_ways_and_eviction(void)
{
    static const struct {
        const char *what;
        long long used_a, used_b;
        uint64_t packets_a, packets_b;
        char evicted;           /* 'A' or 'B'. */
    } cases[] = {
        { "A used longer ago", 10, 20, 100, 1, 'A' },
        { "B used longer ago", 30, 20, 1, 100, 'B' },
        { "same time, A fewer packets", 20, 20, 5, 50, 'A' },
        { "same time, B fewer packets", 20, 20, 50, 5, 'B' },
        { "full tie goes to the second way", 20, 20, 5, 5, 'B' },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct emc_cache *cache = new_cache();
        struct dp_flow *fa = make_flow(cases[i].used_a, cases[i].packets_a);
        struct dp_flow *fb = make_flow(cases[i].used_b, cases[i].packets_b);
        struct dp_flow *fc = make_flow(0, 0);
        struct netdev_flow_key a = make_key(hash_for_slots(7, 100, 1), 1, 0);
        struct netdev_flow_key b = make_key(hash_for_slots(7, 200, 2), 2, 0);
        struct netdev_flow_key c = make_key(hash_for_slots(7, 200, 3), 3, 0);
        struct dp_flow *got_a, *got_b;

        emc_insert(cache, &a, fa);
        emc_insert(cache, &b, fb);
        CHECK(emc_lookup(cache, &a) == fa, "%s: A missed", cases[i].what);
        CHECK(emc_lookup(cache, &b) == fb, "%s: B (second way) missed",
              cases[i].what);
        CHECK(cache->entries[7].flow == fa && cache->entries[200].flow == fb,
              "%s: A and B not in the expected slots", cases[i].what);

        emc_insert(cache, &c, fc);
        got_a = emc_lookup(cache, &a);
        got_b = emc_lookup(cache, &b);
        CHECK(emc_lookup(cache, &c) == fc, "%s: C missed", cases[i].what);
        CHECK(cases[i].evicted == 'A' ? !got_a && got_b == fb
                                      : got_a == fa && !got_b,
              "%s: expected %c evicted, A %s, B %s", cases[i].what,
              cases[i].evicted, got_a ? "kept" : "gone",
              got_b ? "kept" : "gone");
        CHECK(emc_count(cache) == 2, "%s: count %u", cases[i].what,
              emc_count(cache));

        emc_uninit(cache);
        free(cache);
        free(fa);
        free(fb);
        free(fc);
    }
}

static void
test_dead_flows(void)
{
    struct emc_cache *cache = new_cache();
    struct dp_flow *live = make_flow(100, 100);
    struct dp_flow *dead = make_flow(1000, 1000);
    struct dp_flow *fc = make_flow(0, 0);
    struct netdev_flow_key a = make_key(hash_for_slots(5, 300, 1), 1, 9);
    struct netdev_flow_key b = make_key(hash_for_slots(5, 301, 2), 2, 9);
    struct netdev_flow_key c = make_key(hash_for_slots(5, 301, 3), 3, 9);

    emc_insert(cache, &a, live);    /* Slot 5. */
    emc_insert(cache, &b, dead);    /* Slot 301. */
    dead->dead = true;
    CHECK(!emc_lookup(cache, &b), "dead flow was a hit");
    CHECK(emc_lookup(cache, &a) == live, "live flow missed");
    CHECK(emc_count(cache) == 1, "count %u with one live, one dead",
          emc_count(cache));

    /* C goes over A (live, less used) or B (dead, used later): a dead
     * entry is always the one to go. */
    emc_insert(cache, &c, fc);
    CHECK(emc_lookup(cache, &a) == live, "insert evicted a live flow "
          "instead of a dead one");
    CHECK(emc_lookup(cache, &c) == fc, "C missed");
    CHECK(cache->entries[301].flow == fc, "C not in the dead flow's slot");

    /* Purge clears dead entries for good, even if the flow came back. */
    live->dead = true;
    emc_purge_dead(cache);
    live->dead = false;
    CHECK(!emc_lookup(cache, &a), "purged entry still hits");
    CHECK(emc_lookup(cache, &c) == fc, "purge removed a live entry");
    CHECK(emc_count(cache) == 1, "count %u after purge", emc_count(cache));

    emc_flush(cache);
    CHECK(emc_count(cache) == 0, "count %u after flush", emc_count(cache));
    CHECK(!emc_lookup(cache, &c), "hit after flush");

    emc_uninit(cache);
    free(cache);
    free(live);
    free(dead);
    free(fc);
}

/* Fills the cache with distinct keys and checks that each is found or
 * was evicted by a later key that shares a slot. */
static void
test_many(void)
{
    struct emc_cache *cache = new_cache();
    struct dp_flow *flow = make_flow(0, 0);
    uint32_t n_found = 0;

    for (uint32_t i = 0; i < EMC_ENTRIES / 2; i++) {
        /* Distinct first slots: nothing is evicted. */
        struct netdev_flow_key k = make_key(i * 2 + (i << 20), i, i + 1);

        emc_insert(cache, &k, flow);
    }
    for (uint32_t i = 0; i < EMC_ENTRIES / 2; i++) {
        struct netdev_flow_key k = make_key(i * 2 + (i << 20), i, i + 1);

        n_found += emc_lookup(cache, &k) == flow;
    }
    CHECK(n_found == EMC_ENTRIES / 2, "found %u of %u", n_found,
          EMC_ENTRIES / 2);
    CHECK(emc_count(cache) == EMC_ENTRIES / 2, "count %u",
          emc_count(cache));
    emc_uninit(cache);
    free(cache);
    free(flow);
}

/* Number of times emc_probabilistic_insert() inserted, out of 'n'. */
static uint32_t
count_probabilistic_inserts(uint32_t inv_prob, uint32_t n)
{
    struct emc_cache *cache = new_cache();
    struct dp_flow *old = make_flow(0, 0);
    struct dp_flow *new = make_flow(0, 0);
    struct netdev_flow_key k = make_key(0xdeadbeef, 42, 43);
    uint32_t n_inserted = 0;

    emc_insert(cache, &k, old);
    for (uint32_t i = 0; i < n; i++) {
        emc_probabilistic_insert(cache, &k, new, inv_prob);
        if (emc_lookup(cache, &k) == new) {
            n_inserted++;
            emc_insert(cache, &k, old);
        }
    }
    emc_uninit(cache);
    free(cache);
    free(old);
    free(new);
    return n_inserted;
}

static void
test_probabilistic(void)
{
    static const struct {
        uint32_t inv_prob;
        uint32_t n;
        uint32_t min, max;
    } cases[] = {
        { 0, 100000, 0, 0 },
        { 1, 100000, 100000, 100000 },
        /* Binomial(100000, 1%): sd ~31; the bounds are over 6 sd out. */
        { 100, 100000, 800, 1200 },
        { 2, 100000, 49000, 51000 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        uint32_t got = count_probabilistic_inserts(cases[i].inv_prob,
                                                   cases[i].n);

        CHECK(got >= cases[i].min && got <= cases[i].max,
              "inv_prob %u: %u inserts of %u, want %u..%u",
              cases[i].inv_prob, got, cases[i].n, cases[i].min,
              cases[i].max);
    }
}

int
main(void)
{
    test_empty();
    test_insert_lookup();
    test_ways_and_eviction();
    test_dead_flows();
    test_many();
    test_probabilistic();

    return check_finish("test-emc");
}
