/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The signature match cache: behind the EMC, much larger for the same
 * memory.  It maps a 16-bit signature of the RSS hash to the index of a
 * flow in the PMD's flow table (dp-flow.h); a hit is only a candidate, which
 * the caller verifies against the flow's masked key before use.
 *
 * Each PMD owns one SMC and is its only user.
 */
#ifndef SMC_H
#define SMC_H 1

#include <stdint.h>
#include <stdbool.h>

#define SMC_ENTRY_PER_BUCKET 4
#ifndef SMC_BUCKET_SHIFT             /* Overridden only by benchmarks. */
#define SMC_BUCKET_SHIFT 18         /* see smc.c for why this size */
#endif
#define SMC_BUCKETS (1u << SMC_BUCKET_SHIFT)
#define SMC_BUCKET_MASK (SMC_BUCKETS - 1)
#define SMC_INVALID_INDEX UINT32_MAX

struct smc_bucket {
    uint16_t sig[SMC_ENTRY_PER_BUCKET];
    uint32_t flow_idx[SMC_ENTRY_PER_BUCKET];
};

struct smc_cache {
    struct smc_bucket *buckets;     /* SMC_BUCKETS, cache-line aligned. */
};

void smc_init(struct smc_cache *);
void smc_uninit(struct smc_cache *);

/* Starts loading the bucket for 'hash' into the cache. */
static inline void
smc_prefetch(const struct smc_cache *smc, uint32_t hash)
{
    __builtin_prefetch(&smc->buckets[hash & SMC_BUCKET_MASK], 0, 3);
}

/* Returns the flow-table index cached for 'hash', or SMC_INVALID_INDEX. */
uint32_t smc_lookup(const struct smc_cache *, uint32_t hash);

/* Caches 'hash' -> 'flow_idx', replacing an entry for the same signature or
 * a victim in the bucket. */
void smc_insert(struct smc_cache *, uint32_t hash, uint32_t flow_idx);

void smc_flush(struct smc_cache *);

#endif /* smc.h */
