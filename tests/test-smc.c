/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the signature match cache: lookups find what was inserted
 * and nothing else, a signature is updated in place, a full bucket evicts
 * exactly one entry, and flush empties the cache.  Hashes are built from a
 * bucket number and a signature so that each case lands where it means to,
 * whatever SMC_BUCKET_SHIFT is.
 */
#include <autoconf.h>
#include "classifier/smc.h"

#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "base/util.h"

/* The tests vary signatures in hash bits 24-31 only, so that the bucket
 * index, which may reach up to bit 23, stays put. */
BUILD_ASSERT_DECL(SMC_BUCKET_SHIFT <= 24);

/* A hash for bucket 'low' (bits 0-15) with 'mid' in bits 16-23 and 'top' in
 * bits 24-31. */
static uint32_t
make_hash(uint16_t low, uint8_t mid, uint8_t top)
{
    return ((uint32_t) top << 24) | ((uint32_t) mid << 16) | low;
}

static uint32_t
bucket_of(uint32_t hash)
{
    return hash & SMC_BUCKET_MASK;
}

static void
test_empty(void)
{
    struct smc_cache smc;
    static const uint32_t hashes[] = { 0, 1, 0xffffffff, 0xffff0000,
                                       0x0000ffff, 0x12345678 };

    smc_init(&smc);
    CHECK((uintptr_t) smc.buckets % CACHE_LINE_SIZE == 0,
          "buckets not cache-line aligned");
    for (size_t i = 0; i < ARRAY_SIZE(hashes); i++) {
        CHECK(smc_lookup(&smc, hashes[i]) == SMC_INVALID_INDEX,
              "empty cache hit for hash %#x", hashes[i]);
    }
    smc_uninit(&smc);
}

static void
test_insert_lookup(void)
{
    struct smc_cache smc;
    uint32_t h = make_hash(77, 0x34, 0x12);
    static const struct {
        const char *what;
        uint32_t hash;
        uint32_t want;
    } cases[] = {
        { "same hash", 0x12340000 | 77, 5 },
        { "same bucket, other signature", 0x13340000 | 77,
          SMC_INVALID_INDEX },
        { "same signature, other bucket", 0x12340000 | 78,
          SMC_INVALID_INDEX },
        { "same signature, bucket 0", 0x12340000, SMC_INVALID_INDEX },
    };

    smc_init(&smc);
    smc_insert(&smc, h, 5);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        uint32_t got = smc_lookup(&smc, cases[i].hash);

        CHECK(got == cases[i].want, "%s: got %u, want %u", cases[i].what,
              got, cases[i].want);
    }

    /* Same signature again: updated in place, not a second entry. */
    smc_insert(&smc, h, 9);
    CHECK(smc_lookup(&smc, h) == 9, "update: got %u", smc_lookup(&smc, h));
    for (int i = 1; i < SMC_ENTRY_PER_BUCKET; i++) {
        CHECK(smc.buckets[bucket_of(h)].flow_idx[i] == SMC_INVALID_INDEX,
              "update used a second entry");
    }

    /* Index 0 is a flow like any other, and signatures 0xffff (the empty
     * entries' signature) and 0 are signatures like any other, also in a
     * bucket that holds other entries. */
    smc_insert(&smc, make_hash(100, 0xff, 0xff), 0);
    CHECK(smc_lookup(&smc, make_hash(100, 0xff, 0xff)) == 0,
          "index 0 / signature 0xffff not found");
    CHECK(smc_lookup(&smc, make_hash(100, 0xff, 0xfe)) == SMC_INVALID_INDEX,
          "signature 0xfeff hit a bucket holding only 0xffff");
    smc_insert(&smc, make_hash(200, 0xff, 0x12), 1);
    smc_insert(&smc, make_hash(200, 0xff, 0xff), 3);
    smc_insert(&smc, make_hash(200, 0xff, 0x00), 4);
    CHECK(smc_lookup(&smc, make_hash(200, 0xff, 0xff)) == 3,
          "signature 0xffff beside another entry not found");
    CHECK(smc_lookup(&smc, make_hash(200, 0xff, 0x12)) == 1,
          "older entry lost");
    CHECK(smc_lookup(&smc, make_hash(200, 0xff, 0x00)) == 4,
          "signature 0x00ff not found");
    smc_insert(&smc, make_hash(300, 0, 0), 6);
    CHECK(smc_lookup(&smc, make_hash(300, 0, 0)) == 6,
          "signature 0 not found");

    smc_flush(&smc);
    CHECK(smc_lookup(&smc, h) == SMC_INVALID_INDEX, "hit after flush");
    CHECK(smc_lookup(&smc, make_hash(100, 0xff, 0xff)) == SMC_INVALID_INDEX,
          "0xffff hit after flush");
    smc_uninit(&smc);
}

static void
test_full_bucket(void)
{
    /* Each case fills a bucket with four signatures, then adds a fifth
     * whose top two hash bits pick the victim. */
    for (uint32_t victim = 0; victim < SMC_ENTRY_PER_BUCKET; victim++) {
        struct smc_cache smc;
        uint32_t hashes[SMC_ENTRY_PER_BUCKET];
        uint32_t fifth = make_hash(500, 0, (victim << 6) | 0x3f);

        smc_init(&smc);
        for (int i = 0; i < SMC_ENTRY_PER_BUCKET; i++) {
            hashes[i] = make_hash(500, 0, (i << 6) | i);
            smc_insert(&smc, hashes[i], 10 + i);
        }
        for (int i = 0; i < SMC_ENTRY_PER_BUCKET; i++) {
            CHECK(smc_lookup(&smc, hashes[i]) == 10 + i,
                  "full bucket: entry %d lost", i);
        }
        smc_insert(&smc, fifth, 99);
        CHECK(smc_lookup(&smc, fifth) == 99, "fifth entry not found");
        for (int i = 0; i < SMC_ENTRY_PER_BUCKET; i++) {
            uint32_t want = i == victim ? SMC_INVALID_INDEX : 10 + i;

            CHECK(smc_lookup(&smc, hashes[i]) == want,
                  "victim %u: entry %d gives %u, want %u", victim, i,
                  smc_lookup(&smc, hashes[i]), want);
        }
        smc_uninit(&smc);
    }
}

/* Many keys, each in its own bucket: all found, none confused. */
static void
test_many(void)
{
    struct smc_cache smc;
    uint32_t n = MIN(SMC_BUCKETS, 50000);
    uint32_t n_found = 0;
    uint32_t seed = 12345;

    smc_init(&smc);
    for (uint32_t i = 0; i < n; i++) {
        seed = seed * 1103515245 + 12345;
        smc_insert(&smc, (seed & ~SMC_BUCKET_MASK) | i, i);
    }
    seed = 12345;
    for (uint32_t i = 0; i < n; i++) {
        seed = seed * 1103515245 + 12345;
        n_found += smc_lookup(&smc, (seed & ~SMC_BUCKET_MASK) | i) == i;
    }
    CHECK(n_found == n, "found %u of %u", n_found, n);
    smc_uninit(&smc);
}

int
main(void)
{
    test_empty();
    test_insert_lookup();
    test_full_bucket();
    test_many();

    return check_finish("test-smc");
}
