/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The signature match cache (see smc.h for the design).  The low
 * SMC_BUCKET_SHIFT bits of the RSS hash pick a bucket; the high 16 bits are
 * the signature compared against the bucket's SMC_ENTRY_PER_BUCKET
 * entries.  An empty entry has signature 0xffff and index
 * SMC_INVALID_INDEX, so that a lookup needs no separate "valid" test: a
 * signature that lands on an empty entry reads back as a miss.
 *
 * Size.  SMC_BUCKET_SHIFT is 18: 2^18 buckets of 4 entries, 1M entries in
 * 6 MiB per PMD.  bench/micro-caches.c inserts N random hashes and counts
 * how many of them the cache still finds afterwards:
 *
 *     shift   memory     16k flows   64k     256k    1M
 *     16      1.5 MiB    100%        99.6%   81.4%   26.2%
 *     17      3 MiB      100%        100%    96.5%   51.4%
 *     18      6 MiB      100%        100%    99.6%   82.2%
 *     20      24 MiB     100%        100%    100%    99.6%
 *
 * A lookup reads one bucket whatever the size, and up to shift 18 costs
 * 7 to 16 TSC cycles at every flow count measured; at shift 20 the table
 * outgrows the cache and the TLB's reach, and lookups cost over 50 cycles
 * from 256k flows on.  Shift 18 keeps 99.6% of 256k flows, four times what
 * shift 16 keeps as well, for 6 MiB per PMD, which two PMDs fit in a 32 MiB
 * L3 with room to spare.
 *
 * The bucket index (bits 0-17) and the signature (bits 16-31) share two
 * bits, so signatures within a bucket differ in 14 bits: a key that is not
 * cached draws a false candidate about once in 4,000 lookups, which the
 * caller's check against the flow rejects.
 *
 * Default on.  Per packet that missed the EMC, in TSC cycles (median of
 * three best-of-15 runs of bench/micro-caches.c, 32-packet batches, with
 * pipeline.c's three-pass SMC stage):
 *
 *     flows  subtables  SMC hit  dpcls hit  SMC miss then dpcls hit
 *     20k    1          56       82         109
 *     20k    4          60       155        194
 *     20k    16         59       363        518
 *     200k   1          230      214        288
 *     200k   4          233      342        416
 *     200k   16         246      748        896
 *
 * An SMC hit beats the classifier everywhere but one subtable with 200k
 * flows, where it ties; a miss costs 25-40 cycles more, and once the
 * classifier has answered a flow the SMC holds it.  So smc-enable defaults
 * to true.  (Done one packet at a time, without the prefetch passes, an
 * SMC hit cost 125-165 cycles and lost to one subtable.)
 */
#include <autoconf.h>
#include "classifier/smc.h"

#include <stdlib.h>
#include <string.h>
#include "base/util.h"

static inline uint16_t
smc_sig__(uint32_t hash)
{
    return hash >> 16;
}

static inline struct smc_bucket *
smc_bucket__(const struct smc_cache *smc, uint32_t hash)
{
    return &smc->buckets[hash & SMC_BUCKET_MASK];
}

void
smc_init(struct smc_cache *smc)
{
    smc->buckets = xzalloc_cacheline(SMC_BUCKETS * sizeof *smc->buckets);
    smc_flush(smc);
}

void
smc_uninit(struct smc_cache *smc)
{
    free(smc->buckets);
    smc->buckets = NULL;
}

/* Returns the position of the first entry of 'b' whose signature is
 * 'sig', or -1.  Compares the four 16-bit signatures at once, as one 64-bit
 * word, so that a lookup takes one hard-to-predict branch (hit or miss)
 * instead of one per entry.  Once buckets fill up (256k and 1M flows at
 * shift 18) that took a lookup from 19 to 11 and from 32 to 15 cycles; it
 * costs about 3 cycles more while nearly every key sits in its bucket's
 * first entry, when lookups are cheap anyway. */
static inline int
smc_find_sig__(const struct smc_bucket *b, uint16_t sig)
{
    const uint64_t lows = UINT64_C(0x7fff7fff7fff7fff);
    uint64_t sigs, x, zero;

    BUILD_ASSERT(sizeof b->sig == sizeof sigs);
    memcpy(&sigs, b->sig, sizeof sigs);
    x = sigs ^ (sig * UINT64_C(0x0001000100010001));

    /* Top bit of each 16-bit lane set iff the lane of 'x' is zero.  Adding
     * to the low 15 bits only keeps carries inside their lane. */
    zero = ~(((x & lows) + lows) | x | lows);
    if (!zero) {
        return -1;
    }
#ifdef WORDS_BIGENDIAN
    return __builtin_clzll(zero) / 16;
#else
    return __builtin_ctzll(zero) / 16;
#endif
}

uint32_t
smc_lookup(const struct smc_cache *smc, uint32_t hash)
{
    const struct smc_bucket *b = smc_bucket__(smc, hash);
    int pos = smc_find_sig__(b, smc_sig__(hash));

    return pos < 0 ? SMC_INVALID_INDEX : b->flow_idx[pos];
}

void
smc_insert(struct smc_cache *smc, uint32_t hash, uint32_t flow_idx)
{
    struct smc_bucket *b = smc_bucket__(smc, hash);
    uint16_t sig = smc_sig__(hash);
    int victim;
    int pos;

    /* The first entry with this signature is the one smc_lookup() finds,
     * so it is the one to update. */
    pos = smc_find_sig__(b, sig);
    if (pos >= 0) {
        b->flow_idx[pos] = flow_idx;
        return;
    }
    for (int i = 0; i < SMC_ENTRY_PER_BUCKET; i++) {
        if (b->flow_idx[i] == SMC_INVALID_INDEX) {
            b->sig[i] = sig;
            b->flow_idx[i] = flow_idx;
            return;
        }
    }

    /* Full bucket.  The top two hash bits never take part in the bucket
     * index, so keys that share a bucket spread their evictions over all
     * of its entries instead of fighting over one. */
    BUILD_ASSERT(SMC_ENTRY_PER_BUCKET == 4 && SMC_BUCKET_SHIFT <= 30);
    victim = hash >> 30;
    b->sig[victim] = sig;
    b->flow_idx[victim] = flow_idx;
}

void
smc_flush(struct smc_cache *smc)
{
    /* All ones: signature 0xffff with index SMC_INVALID_INDEX. */
    BUILD_ASSERT(SMC_INVALID_INDEX == UINT32_MAX);
    memset(smc->buckets, 0xff, SMC_BUCKETS * sizeof *smc->buckets);
}
