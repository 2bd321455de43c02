/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Per-PMD counters and their presentation.  Each PMD owns one
 * struct pmd_perf_stats and is the only writer of it; other threads read
 * the counters with relaxed loads (pmd_perf_read(),
 * pmd_perf_snapshot_read()) and may be a little behind.  The text layouts
 * follow Open vSwitch's dpif-netdev/pmd-stats-show and
 * dpif-netdev/pmd-perf-show so that habits and scripts carry over.
 *
 * Besides the counters, each PMD keeps a histogram of its receive batch
 * sizes: one count per non-empty receive, in power-of-two buckets.
 */
#ifndef PMD_PERF_H
#define PMD_PERF_H 1

#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"

struct json_t;

#define PMD_STATS(X)                                                      \
    X(RECV, "packets_received")          /* Packets polled from rxqs. */ \
    X(EMC_HIT, "emc_hits")                                               \
    X(SMC_HIT, "smc_hits")                                               \
    X(MASKED_HIT, "megaflow_hits")       /* dpcls hits. */               \
    X(MASKED_LOOKUP, "subtable_lookups") /* Subtables searched on hits. */\
    X(MISS, "miss_upcall_ok")            /* Upcall decided the packet. */\
    X(LOST, "miss_upcall_failed")        /* Upcall failed: dropped. */   \
    X(OVER_FLOW_LIMIT, "miss_over_flow_limit") /* Of MISS: forwarded, no \
                                                * megaflow installed. */ \
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
    X(FLOWS_INVALIDATED, "flows_invalidated")                            \
    X(FLOWS_REVALIDATED, "flows_revalidated") /* Flows re-translated. */ \
    X(REVAL_KEYS, "reval_keys")          /* Change log keys read. */     \
    X(REVAL_SWEEPS, "reval_sweeps")      /* Sweeps over whole bridges. */\
    X(REVAL_LOG_LOST, "reval_log_lost")  /* Logs read too late: swept. */\
    X(DROP_PORT_GONE, "drop_port_gone")  /* Output port removed/missing. */\
    X(SLEEPS, "sleeps")                  /* pmd-sleep-max naps. */       \
    X(SLEEP_US, "sleep_us")              /* Time asleep, microseconds. */\
    X(WAKE_POLLS, "predicted_polls")     /* Poll windows around a burst \
                                          * due (pmd-sleep-predict). */  \
    X(WAKE_HITS, "predicted_hits")       /* Bursts that came in one. */  \
    X(ACTION_CLONES, "action_clones")    /* Copy-on-write packet copies. */\
    X(CLONE_POOL_DRY, "clone_pool_dry")  /* Early tx flushes: no clone. */\
    X(DROP_ACTION_EXEC, "drop_action_exec") /* Actions could not run. */  \
    X(DROP_BOND_OUTPUT, "drop_bond_output") /* Bond with no enabled member. */\
    X(DROP_PORT_DOWN, "drop_port_down")  /* Output port's link is down. */\
    X(GSO_FRAMES, "gso_frames")          /* GSO frames cut in software. */\
    X(GSO_SEGMENTS, "gso_segments")      /* Segments they made. */       \
    X(DROP_GSO, "drop_gso")              /* GSO frames that could not be \
                                          * segmented. */                \
    X(GRO_FRAMES, "gro_frames")          /* Frames merged from TCP       \
                                          * segments. */                 \
    X(GRO_SEGMENTS, "gro_segments")      /* Segments merged into them. */\
    X(TNL_DECAP, "tunnel_decap")         /* Frames received from tunnel  \
                                          * ports (decapsulated). */     \
    X(TNL_ENCAP, "tunnel_encap")         /* Frames given to tunnel ports \
                                          * (encapsulated). */

enum pmd_stat_type {
#define PMD_STAT_ENUM__(NAME, STR) PMD_STAT_##NAME,
    PMD_STATS(PMD_STAT_ENUM__)
#undef PMD_STAT_ENUM__
    PMD_N_STATS
};

/* Buckets of the rx batch-size histogram.  Bucket 'i' counts receives of
 * 2**i to 2**(i+1) - 1 packets, except the last, which counts full batches
 * of DP_BATCH_SIZE (32) packets: 1, 2-3, 4-7, 8-15, 16-31, 32. */
#define PMD_PERF_N_BATCH_BUCKETS 6

/* Written by the owning PMD only, with relaxed atomic stores; read by any
 * thread with relaxed atomic loads. */
struct pmd_perf_stats {
    uint64_t counters[PMD_N_STATS];     /* Indexed by enum pmd_stat_type. */
    uint64_t rx_batch_hist[PMD_PERF_N_BATCH_BUCKETS]; /* Non-empty receives
                                                       * per size bucket. */
} CACHE_ALIGNED;

/* Adds 'n' to counter 'type' (owning PMD only). */
static inline void
pmd_perf_add(struct pmd_perf_stats *s, enum pmd_stat_type type, uint64_t n)
{
    __atomic_store_n(&s->counters[type], s->counters[type] + n,
                     __ATOMIC_RELAXED);
}

/* Returns the rx batch-size histogram bucket for a receive of 'n_packets'
 * packets: floor(log2(n_packets)), at most PMD_PERF_N_BATCH_BUCKETS - 1.
 * 0 maps to bucket 0.  Any thread. */
static inline unsigned int
pmd_perf_rx_batch_bucket(uint32_t n_packets)
{
    unsigned int log2 = 31 - __builtin_clz(n_packets | 1);

    return (log2 < PMD_PERF_N_BATCH_BUCKETS - 1
            ? log2 : PMD_PERF_N_BATCH_BUCKETS - 1);
}

/* Counts one receive of 'n_packets' packets in the rx batch-size histogram
 * (owning PMD only, once per non-empty receive).  'n_packets' of 0 counts
 * nothing. */
static inline void
pmd_perf_count_rx_batch(struct pmd_perf_stats *s, uint32_t n_packets)
{
    uint64_t *slot = &s->rx_batch_hist[pmd_perf_rx_batch_bucket(n_packets)];

    /* Adding the comparison instead of testing it keeps the hot path free
     * of branches.  Pairs with the relaxed loads in
     * pmd_perf_snapshot_read(). */
    __atomic_store_n(slot, *slot + (n_packets != 0), __ATOMIC_RELAXED);
}

/* Stores in '*min' and '*max' the smallest and largest receive size that
 * rx batch-size histogram bucket 'bucket' (less than
 * PMD_PERF_N_BATCH_BUCKETS) counts.  Any thread. */
void pmd_perf_rx_batch_bucket_range(unsigned int bucket, uint32_t *min,
                                    uint32_t *max);

/* Copies every counter into 'out' (any thread). */
void pmd_perf_read(const struct pmd_perf_stats *, uint64_t out[PMD_N_STATS]);

/* Name of counter 'type', as in the "stats:" log line. */
const char *pmd_perf_stat_name(enum pmd_stat_type type);

/* Formats 'c' the way Open vSwitch's pmd-stats-show does, as the block for
 * a PMD on 'core_id' (or for the main thread if 'core_id' is negative),
 * into 'buf'.  Returns the length written. */
size_t pmd_perf_format_ovs(const uint64_t c[PMD_N_STATS], int core_id,
                           char *buf, size_t size);

/* Formats 'c' as space-separated name=value pairs. */
size_t pmd_perf_format_kv(const uint64_t c[PMD_N_STATS], char *buf,
                          size_t size);

/* A copy of a struct pmd_perf_stats as plain values, for the control
 * thread to keep, subtract and format. */
struct pmd_perf_snapshot {
    uint64_t c[PMD_N_STATS];            /* Indexed by enum pmd_stat_type. */
    uint64_t rx_batch_hist[PMD_PERF_N_BATCH_BUCKETS]; /* As in
                                                       * pmd_perf_stats. */
};

/* Copies every counter and histogram bucket of 's' into 'out'.  Any
 * thread; the copy is not atomic as a whole. */
void pmd_perf_snapshot_read(const struct pmd_perf_stats *s,
                            struct pmd_perf_snapshot *out);

/* Subtracts 'base' from 's', member by member, for figures since
 * 'base' was taken (pmd-stats-clear).  A member of 'base' larger than that
 * of 's' gives 0, never a wrapped value.  Any thread. */
void pmd_perf_snapshot_sub(struct pmd_perf_snapshot *s,
                           const struct pmd_perf_snapshot *base);

/* Returns how many cycles_now() ticks there are in a second: the TSC
 * frequency on x86, measured against CLOCK_MONOTONIC over about 15 ms by
 * the first call (which therefore sleeps), and 1000000000 where
 * cycles_now() counts nanoseconds.  Any thread. */
uint64_t pmd_perf_tsc_hz(void);

/* Formats 's', the figures of the PMD on 'core_id' over 'duration_s'
 * seconds, the way Open vSwitch's dpif-netdev/pmd-perf-show does, followed
 * by cycles and packets per iteration and the rx batch-size histogram.
 * 'tsc_hz' is the rate of the cycle counters (pmd_perf_tsc_hz()).  The
 * block starts with the "pmd thread numa_id 0 core_id N:" line and ends
 * with an empty line; the "Time:" and "Measurement duration:" lines are the
 * caller's.  A zero 'duration_s' or 'tsc_hz' gives zero rates.
 *
 * Writes at most 'size' bytes to 'buf', always NUL-terminated if 'size' is
 * nonzero (a short 'buf' gets a truncated block; 'buf' may be NULL if
 * 'size' is 0).  Returns the length of the string written.  Any thread. */
size_t pmd_perf_format_perf_show(const struct pmd_perf_snapshot *s,
                                 int core_id, double duration_s,
                                 uint64_t tsc_hz, char *buf, size_t size);

/* Returns the figures of pmd_perf_format_perf_show() for the same
 * arguments as a new JSON object, for the caller to json_decref(): the
 * counts as integers, the ratios as reals (0 where they would divide by
 * zero), and "rx_batch_histogram" as an array of {"min", "max", "count"}
 * objects, one per bucket.  Any thread. */
struct json_t *pmd_perf_perf_show_json(const struct pmd_perf_snapshot *s,
                                       int core_id, double duration_s,
                                       uint64_t tsc_hz);

#endif /* pmd-perf.h */
