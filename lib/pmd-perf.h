/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Per-PMD counters and their presentation.  Each PMD owns one
 * struct pmd_perf_stats and is the only writer of it; other threads read
 * the counters with relaxed loads (pmd_perf_read()) and may be a little
 * behind.  The text layout follows Open vSwitch's
 * dpif-netdev/pmd-stats-show so that habits and scripts carry over.
 */
#ifndef PMD_PERF_H
#define PMD_PERF_H 1

#include <stddef.h>
#include <stdint.h>
#include "compiler.h"

#define PMD_STATS(X)                                                      \
    X(RECV, "packets_received")          /* Packets polled from rxqs. */ \
    X(EMC_HIT, "emc_hits")                                               \
    X(SMC_HIT, "smc_hits")                                               \
    X(MASKED_HIT, "megaflow_hits")       /* dpcls hits. */               \
    X(MASKED_LOOKUP, "subtable_lookups") /* Subtables searched on hits. */\
    X(MISS, "miss_upcall_ok")            /* Upcall installed a flow. */  \
    X(LOST, "miss_upcall_failed")        /* Upcall failed: dropped. */   \
    X(DROP_FLOW_ACTION, "drop_flow_action") /* Flow said drop. */        \
    X(EXTRACT, "extract_calls")          /* miniflow_extract() calls. */ \
    X(RSS_SW, "rss_hash_computed")       /* Software RSS hashes. */      \
    X(RSS_KERNEL, "rss_hash_kernel")     /* Kernel-provided hashes. */   \
    X(SENT_PACKETS, "sent_packets")      /* Packets given to send(). */  \
    X(SENT_BATCHES, "sent_batches")      /* send() calls. */             \
    X(ITERATIONS, "iterations")                                          \
    X(BUSY_ITERATIONS, "busy_iterations")                                \
    X(CYCLES_IDLE, "idle_cycles")                                        \
    X(CYCLES_BUSY, "processing_cycles")                                  \
    X(REVALIDATIONS, "revalidations")    /* Flow-table revalidations. */ \
    X(FLOWS_EXPIRED, "flows_expired")                                    \
    X(FLOWS_INVALIDATED, "flows_invalidated")

enum pmd_stat_type {
#define PMD_STAT_ENUM__(NAME, STR) PMD_STAT_##NAME,
    PMD_STATS(PMD_STAT_ENUM__)
#undef PMD_STAT_ENUM__
    PMD_N_STATS
};

struct pmd_perf_stats {
    uint64_t counters[PMD_N_STATS];
} CACHE_ALIGNED;

/* Adds 'n' to counter 'type' (owning PMD only). */
static inline void
pmd_perf_add(struct pmd_perf_stats *s, enum pmd_stat_type type, uint64_t n)
{
    __atomic_store_n(&s->counters[type], s->counters[type] + n,
                     __ATOMIC_RELAXED);
}

/* Copies every counter into 'out' (any thread). */
void pmd_perf_read(const struct pmd_perf_stats *, uint64_t out[PMD_N_STATS]);

/* Name of counter 'type', as in the "stats:" log line. */
const char *pmd_perf_stat_name(enum pmd_stat_type type);

/* Formats 'c' the way Open vSwitch's pmd-stats-show does, as the block for
 * a PMD on 'core_id', into 'buf'.  Returns the length written. */
size_t pmd_perf_format_ovs(const uint64_t c[PMD_N_STATS], int core_id,
                           char *buf, size_t size);

/* Formats 'c' as space-separated name=value pairs. */
size_t pmd_perf_format_kv(const uint64_t c[PMD_N_STATS], char *buf,
                          size_t size);

#endif /* pmd-perf.h */
