/*
 * Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
 *
 * The signature match cache (see smc.h for the design).  The low
 * SMC_BUCKET_SHIFT bits of the RSS hash pick a bucket; the high 16 bits are
 * the signature compared against the bucket's SMC_ENTRY_PER_BUCKET
 * entries.  An empty entry has signature 0xffff and index
 * SMC_INVALID_INDEX, so that a lookup needs no separate "valid" test: a
 * signature that lands on an empty entry reads back as a miss.
 *
 * SIZE_PLACEHOLDER
 */
#include <autoconf.h>
#include "smc.h"

#include <stdlib.h>
#include <string.h>
#include "util.h"

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
 * instead of one per entry. */
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
    int pos = smc_find_sig__(smc_bucket__(smc, hash), smc_sig__(hash));

    return pos < 0 ? SMC_INVALID_INDEX
                   : smc_bucket__(smc, hash)->flow_idx[pos];
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
