/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * PMD counters: reading, snapshots, the TSC rate and formatting.  The
 * pmd-perf-show figures are worked out once, in struct perf_figures__, so
 * that the text and the JSON forms cannot disagree.
 */
#include <autoconf.h>
#include "dp/pmd-perf.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "packet/dp-batch.h"
#include "base/ds.h"
#include "base/util.h"

/* The last histogram bucket holds exactly the full batches. */
BUILD_ASSERT_DECL(DP_BATCH_SIZE == 1 << (PMD_PERF_N_BATCH_BUCKETS - 1));

/* Width of the longest bar of the histogram in pmd-perf-show. */
#define PERF_SHOW_BAR_WIDTH 40

static const char *const stat_names[PMD_N_STATS] = {
#define PMD_STAT_NAME__(NAME, STR) STR,
    PMD_STATS(PMD_STAT_NAME__)
#undef PMD_STAT_NAME__
};

void
pmd_perf_read(const struct pmd_perf_stats *s, uint64_t out[PMD_N_STATS])
{
    for (int i = 0; i < PMD_N_STATS; i++) {
        out[i] = __atomic_load_n(&s->counters[i], __ATOMIC_RELAXED);
    }
}

const char *
pmd_perf_stat_name(enum pmd_stat_type type)
{
    return stat_names[type];
}

/* A short name for ds_put_bounded(), which every line below calls. */
#define append__ ds_put_bounded

static double
ratio__(uint64_t num, uint64_t den)
{
    return den ? (double) num / den : 0.0;
}

size_t
pmd_perf_format_ovs(const uint64_t c[PMD_N_STATS], int core_id,
                    char *buf, size_t size)
{
    uint64_t total_cycles = c[PMD_STAT_CYCLES_IDLE] + c[PMD_STAT_CYCLES_BUSY];
    uint64_t recv = c[PMD_STAT_RECV];
    size_t ofs = 0;

    buf[0] = '\0';
    if (core_id < 0) {
        append__(buf, size, &ofs, "main thread:\n");
    } else {
        append__(buf, size, &ofs, "pmd thread numa_id 0 core_id %d:\n",
                 core_id);
    }
    append__(buf, size, &ofs, "  packets received: %"PRIu64"\n", recv);
    append__(buf, size, &ofs, "  packet recirculations: 0\n");
    append__(buf, size, &ofs, "  avg. datapath passes per packet: %.02f\n",
             recv ? 1.0 : 0.0);
    append__(buf, size, &ofs, "  emc hits: %"PRIu64"\n", c[PMD_STAT_EMC_HIT]);
    append__(buf, size, &ofs, "  smc hits: %"PRIu64"\n", c[PMD_STAT_SMC_HIT]);
    append__(buf, size, &ofs, "  megaflow hits: %"PRIu64"\n",
             c[PMD_STAT_MASKED_HIT]);
    append__(buf, size, &ofs,
             "  avg. subtable lookups per megaflow hit: %.02f\n",
             ratio__(c[PMD_STAT_MASKED_LOOKUP], c[PMD_STAT_MASKED_HIT]));
    append__(buf, size, &ofs, "  miss with success upcall: %"PRIu64"\n",
             c[PMD_STAT_MISS]);
    append__(buf, size, &ofs, "  miss with failed upcall: %"PRIu64"\n",
             c[PMD_STAT_LOST]);
    append__(buf, size, &ofs, "  avg. packets per output batch: %.02f\n",
             ratio__(c[PMD_STAT_SENT_PACKETS], c[PMD_STAT_SENT_BATCHES]));
    append__(buf, size, &ofs, "  idle cycles: %"PRIu64" (%.02f%%)\n",
             c[PMD_STAT_CYCLES_IDLE],
             100.0 * ratio__(c[PMD_STAT_CYCLES_IDLE], total_cycles));
    append__(buf, size, &ofs, "  processing cycles: %"PRIu64" (%.02f%%)\n",
             c[PMD_STAT_CYCLES_BUSY],
             100.0 * ratio__(c[PMD_STAT_CYCLES_BUSY], total_cycles));
    append__(buf, size, &ofs, "  avg cycles per packet: %.02f (%"PRIu64"/%"
             PRIu64")\n", ratio__(total_cycles, recv), total_cycles, recv);
    append__(buf, size, &ofs,
             "  avg processing cycles per packet: %.02f (%"PRIu64"/%"
             PRIu64")\n", ratio__(c[PMD_STAT_CYCLES_BUSY], recv),
             c[PMD_STAT_CYCLES_BUSY], recv);
    append__(buf, size, &ofs, "  dropped by flow action: %"PRIu64"\n",
             c[PMD_STAT_DROP_FLOW_ACTION]);
    append__(buf, size, &ofs, "  dropped by action execution: %"PRIu64"\n",
             c[PMD_STAT_DROP_ACTION_EXEC]);
    append__(buf, size, &ofs, "  dropped by bond output: %"PRIu64"\n",
             c[PMD_STAT_DROP_BOND_OUTPUT]);
    append__(buf, size, &ofs, "  dropped by port down: %"PRIu64"\n",
             c[PMD_STAT_DROP_PORT_DOWN]);
    append__(buf, size, &ofs,
             "  upcalls over flow limit (no megaflow): %"PRIu64"\n",
             c[PMD_STAT_OVER_FLOW_LIMIT]);
    append__(buf, size, &ofs, "  GSO frames segmented: %"PRIu64" (into %"
             PRIu64" segments)\n", c[PMD_STAT_GSO_FRAMES],
             c[PMD_STAT_GSO_SEGMENTS]);
    append__(buf, size, &ofs, "  dropped, could not segment: %"PRIu64"\n",
             c[PMD_STAT_DROP_GSO]);
    append__(buf, size, &ofs, "  TCP segments merged: %"PRIu64" (into %"
             PRIu64" frames)\n", c[PMD_STAT_GRO_SEGMENTS],
             c[PMD_STAT_GRO_FRAMES]);
    if (c[PMD_STAT_TNL_DECAP] || c[PMD_STAT_TNL_ENCAP]) {
        append__(buf, size, &ofs, "  tunnel packets: decapsulated %"PRIu64
                 ", encapsulated %"PRIu64"\n", c[PMD_STAT_TNL_DECAP],
                 c[PMD_STAT_TNL_ENCAP]);
    }
    return ofs;
}

size_t
pmd_perf_format_kv(const uint64_t c[PMD_N_STATS], char *buf, size_t size)
{
    size_t ofs = 0;

    buf[0] = '\0';
    for (int i = 0; i < PMD_N_STATS; i++) {
        append__(buf, size, &ofs, "%s%s=%"PRIu64, i ? " " : "",
                 stat_names[i], c[i]);
    }
    return ofs;
}

void
pmd_perf_rx_batch_bucket_range(unsigned int bucket, uint32_t *min,
                               uint32_t *max)
{
    ovs_assert(bucket < PMD_PERF_N_BATCH_BUCKETS);
    *min = UINT32_C(1) << bucket;
    *max = (bucket == PMD_PERF_N_BATCH_BUCKETS - 1
            ? DP_BATCH_SIZE : (UINT32_C(2) << bucket) - 1);
}

void
pmd_perf_snapshot_read(const struct pmd_perf_stats *s,
                       struct pmd_perf_snapshot *out)
{
    /* Relaxed: each counter has one writer, and a reader only needs each
     * value to be one the writer stored. */
    pmd_perf_read(s, out->c);
    for (int i = 0; i < PMD_PERF_N_BATCH_BUCKETS; i++) {
        out->rx_batch_hist[i] = __atomic_load_n(&s->rx_batch_hist[i],
                                                __ATOMIC_RELAXED);
    }
}

static uint64_t
sub_clamp__(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

void
pmd_perf_snapshot_sub(struct pmd_perf_snapshot *s,
                      const struct pmd_perf_snapshot *base)
{
    for (int i = 0; i < PMD_N_STATS; i++) {
        s->c[i] = sub_clamp__(s->c[i], base->c[i]);
    }
    for (int i = 0; i < PMD_PERF_N_BATCH_BUCKETS; i++) {
        s->rx_batch_hist[i] = sub_clamp__(s->rx_batch_hist[i],
                                          base->rx_batch_hist[i]);
    }
}

/* TSC rate. */

static pthread_once_t tsc_hz_once = PTHREAD_ONCE_INIT;
static uint64_t tsc_hz_value;   /* Set once, under 'tsc_hz_once'. */

static uint64_t
monotonic_ns__(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
tsc_hz_init__(void)
{
    /* The same test as in cycles_now(): elsewhere it counts nanoseconds. */
#if defined(__x86_64__) || defined(__i386__)
    struct timespec left = { .tv_sec = 0, .tv_nsec = 15 * 1000 * 1000 };
    uint64_t ns0, ns1, c0, c1;

    ns0 = monotonic_ns__();
    c0 = cycles_now();
    while (nanosleep(&left, &left) && errno == EINTR) {
        continue;
    }
    c1 = cycles_now();
    ns1 = monotonic_ns__();
    tsc_hz_value = (ns1 > ns0 && c1 > c0
                    ? (uint64_t) ((double) (c1 - c0) * 1e9 / (ns1 - ns0)
                                  + 0.5)
                    : 1000000000);
#else
    tsc_hz_value = 1000000000;
#endif
}

uint64_t
pmd_perf_tsc_hz(void)
{
    pthread_once(&tsc_hz_once, tsc_hz_init__);
    return tsc_hz_value;
}

/* pmd-perf-show. */

/* Every figure of pmd-perf-show.  Ratios are 0 where their denominator
 * is. */
struct perf_figures__ {
    uint64_t iterations;
    uint64_t idle_iterations;
    uint64_t busy_iterations;
    uint64_t idle_cycles;
    uint64_t busy_cycles;
    uint64_t used_cycles;               /* idle + busy. */
    double us_per_iteration;
    double used_cycles_pct;             /* Of 'duration_s' * 'tsc_hz'. */
    double idle_cycles_pct;             /* Of 'used_cycles'. */
    double busy_cycles_pct;             /* Of 'used_cycles'. */

    uint64_t rx_packets;
    double rx_kpps;
    double cycles_per_packet;           /* Busy cycles per packet. */
    uint64_t passes;                    /* No recirculation: 'rx_packets'. */
    double passes_per_packet;
    uint64_t emc_hits, smc_hits, megaflow_hits, upcalls, lost_upcalls;
    double emc_hits_pct, smc_hits_pct, megaflow_hits_pct;  /* Of passes. */
    double upcalls_pct, lost_upcalls_pct;                  /* Of passes. */
    double lookups_per_megaflow_hit;

    uint64_t tx_packets;
    double tx_kpps;
    uint64_t tx_batches;
    double packets_per_tx_batch;

    double cycles_per_iteration;
    double cycles_per_idle_iteration;   /* Idle cycles per idle iteration. */
    double cycles_per_busy_iteration;   /* Busy cycles per busy iteration. */
    double packets_per_busy_iteration;

    uint64_t n_rx_batches;              /* Sum of the histogram. */
    uint64_t max_bucket;                /* Largest histogram count. */
};

/* Returns 'x', or 0 if 'x' is NaN or infinite. */
static double
finite__(double x)
{
    return isfinite(x) ? x : 0.0;
}

/* Returns 'x' per second over 'duration_s' seconds, in thousands. */
static double
kilo_rate__(uint64_t x, double duration_s)
{
    return duration_s > 0 ? finite__(x / duration_s / 1000.0) : 0.0;
}

static void
perf_figures__(const struct pmd_perf_snapshot *s, double duration_s,
               uint64_t hz, struct perf_figures__ *f)
{
    const uint64_t *c = s->c;
    double total_cycles = duration_s > 0 ? duration_s * hz : 0.0;

    f->iterations = c[PMD_STAT_ITERATIONS];
    /* A reader may see a busy iteration before the iteration itself. */
    f->busy_iterations = MIN(c[PMD_STAT_BUSY_ITERATIONS], f->iterations);
    f->idle_iterations = f->iterations - f->busy_iterations;
    f->idle_cycles = c[PMD_STAT_CYCLES_IDLE];
    f->busy_cycles = c[PMD_STAT_CYCLES_BUSY];
    f->used_cycles = f->idle_cycles + f->busy_cycles;
    f->us_per_iteration = (hz
                           ? 1e6 * ratio__(f->used_cycles, f->iterations) / hz
                           : 0.0);
    f->used_cycles_pct = (total_cycles > 0
                          ? finite__(100.0 * f->used_cycles / total_cycles)
                          : 0.0);
    f->idle_cycles_pct = 100.0 * ratio__(f->idle_cycles, f->used_cycles);
    f->busy_cycles_pct = 100.0 * ratio__(f->busy_cycles, f->used_cycles);

    f->rx_packets = c[PMD_STAT_RECV];
    f->rx_kpps = kilo_rate__(f->rx_packets, duration_s);
    f->cycles_per_packet = ratio__(f->busy_cycles, f->rx_packets);
    f->passes = f->rx_packets;
    f->passes_per_packet = ratio__(f->passes, f->rx_packets);
    f->emc_hits = c[PMD_STAT_EMC_HIT];
    f->smc_hits = c[PMD_STAT_SMC_HIT];
    f->megaflow_hits = c[PMD_STAT_MASKED_HIT];
    f->upcalls = c[PMD_STAT_MISS];
    f->lost_upcalls = c[PMD_STAT_LOST];
    f->emc_hits_pct = 100.0 * ratio__(f->emc_hits, f->passes);
    f->smc_hits_pct = 100.0 * ratio__(f->smc_hits, f->passes);
    f->megaflow_hits_pct = 100.0 * ratio__(f->megaflow_hits, f->passes);
    f->upcalls_pct = 100.0 * ratio__(f->upcalls, f->passes);
    f->lost_upcalls_pct = 100.0 * ratio__(f->lost_upcalls, f->passes);
    f->lookups_per_megaflow_hit = ratio__(c[PMD_STAT_MASKED_LOOKUP],
                                          f->megaflow_hits);

    f->tx_packets = c[PMD_STAT_SENT_PACKETS];
    f->tx_kpps = kilo_rate__(f->tx_packets, duration_s);
    f->tx_batches = c[PMD_STAT_SENT_BATCHES];
    f->packets_per_tx_batch = ratio__(f->tx_packets, f->tx_batches);

    f->cycles_per_iteration = ratio__(f->used_cycles, f->iterations);
    f->cycles_per_idle_iteration = ratio__(f->idle_cycles,
                                           f->idle_iterations);
    f->cycles_per_busy_iteration = ratio__(f->busy_cycles,
                                           f->busy_iterations);
    f->packets_per_busy_iteration = ratio__(f->rx_packets,
                                            f->busy_iterations);

    f->n_rx_batches = 0;
    f->max_bucket = 0;
    for (int i = 0; i < PMD_PERF_N_BATCH_BUCKETS; i++) {
        f->n_rx_batches += s->rx_batch_hist[i];
        f->max_bucket = MAX(f->max_bucket, s->rx_batch_hist[i]);
    }
}

/* Returns the length of the bar for a histogram bucket of 'count' when the
 * largest bucket holds 'max': at least 1 for a nonzero count. */
static int
bar_len__(uint64_t count, uint64_t max)
{
    int len;

    if (!count || !max) {
        return 0;
    }
    len = (int) ((double) count * PERF_SHOW_BAR_WIDTH / max + 0.5);
    return MAX(1, MIN(len, PERF_SHOW_BAR_WIDTH));
}

size_t
pmd_perf_format_perf_show(const struct pmd_perf_snapshot *s, int core_id,
                          double duration_s, uint64_t tsc_hz,
                          char *buf, size_t size)
{
    static const char bars[PERF_SHOW_BAR_WIDTH + 1] =
        "########################################";
    struct perf_figures__ f;
    size_t ofs = 0;

    if (!size) {
        return 0;
    }
    buf[0] = '\0';
    perf_figures__(s, duration_s, tsc_hz, &f);

    /* Labels take 19 columns and counts 10, as in Open vSwitch. */
    append__(buf, size, &ofs, "pmd thread numa_id 0 core_id %d:\n\n",
             core_id);
    append__(buf, size, &ofs,
             "  Iterations:        %10"PRIu64"  (%.2f us/it)\n",
             f.iterations, f.us_per_iteration);
    append__(buf, size, &ofs,
             "  - Used TSC cycles: %10"PRIu64"  (%5.1f %% of total "
             "cycles)\n", f.used_cycles, f.used_cycles_pct);
    append__(buf, size, &ofs,
             "  - idle iterations: %10"PRIu64"  (%5.1f %% of used "
             "cycles)\n", f.idle_iterations, f.idle_cycles_pct);
    append__(buf, size, &ofs,
             "  - busy iterations: %10"PRIu64"  (%5.1f %% of used "
             "cycles)\n", f.busy_iterations, f.busy_cycles_pct);
    append__(buf, size, &ofs,
             "  Rx packets:        %10"PRIu64"  (%.0f Kpps, %.0f "
             "cycles/pkt)\n", f.rx_packets, f.rx_kpps, f.cycles_per_packet);
    append__(buf, size, &ofs,
             "  Datapath passes:   %10"PRIu64"  (%.2f passes/pkt)\n",
             f.passes, f.passes_per_packet);
    append__(buf, size, &ofs, "  - EMC hits:        %10"PRIu64"  (%5.1f %%)\n",
             f.emc_hits, f.emc_hits_pct);
    append__(buf, size, &ofs, "  - SMC hits:        %10"PRIu64"  (%5.1f %%)\n",
             f.smc_hits, f.smc_hits_pct);
    append__(buf, size, &ofs,
             "  - Megaflow hits:   %10"PRIu64"  (%5.1f %%, %.2f subtbl "
             "lookups/hit)\n", f.megaflow_hits, f.megaflow_hits_pct,
             f.lookups_per_megaflow_hit);
    append__(buf, size, &ofs, "  - Upcalls:         %10"PRIu64"  (%5.1f %%)\n",
             f.upcalls, f.upcalls_pct);
    append__(buf, size, &ofs, "  - Lost upcalls:    %10"PRIu64"  (%5.1f %%)\n",
             f.lost_upcalls, f.lost_upcalls_pct);
    append__(buf, size, &ofs,
             "  Tx packets:        %10"PRIu64"  (%.0f Kpps)\n",
             f.tx_packets, f.tx_kpps);
    append__(buf, size, &ofs,
             "  Tx batches:        %10"PRIu64"  (%.2f pkts/batch)\n",
             f.tx_batches, f.packets_per_tx_batch);

    append__(buf, size, &ofs,
             "  Cycles per iteration: %.0f (idle iterations: %.0f, "
             "busy iterations: %.0f)\n", f.cycles_per_iteration,
             f.cycles_per_idle_iteration, f.cycles_per_busy_iteration);
    append__(buf, size, &ofs, "  Packets per busy iteration: %.2f\n",
             f.packets_per_busy_iteration);

    append__(buf, size, &ofs,
             "  Rx batch sizes (packets per non-empty receive):\n");
    for (unsigned int i = 0; i < PMD_PERF_N_BATCH_BUCKETS; i++) {
        uint64_t count = s->rx_batch_hist[i];
        uint32_t min, max;
        char label[24];

        pmd_perf_rx_batch_bucket_range(i, &min, &max);
        if (min == max) {
            snprintf(label, sizeof label, "%"PRIu32, min);
        } else {
            snprintf(label, sizeof label, "%"PRIu32"-%"PRIu32, min, max);
        }
        append__(buf, size, &ofs, "  %7s  %-*.*s %10"PRIu64"  (%4.1f %%)\n",
                 label, PERF_SHOW_BAR_WIDTH, bar_len__(count, f.max_bucket),
                 bars, count, 100.0 * ratio__(count, f.n_rx_batches));
    }
    append__(buf, size, &ofs, "\n");
    return ofs;
}

/* Sets member 'name' of 'obj' to 'x', capped at the largest JSON
 * integer. */
static void
json_set_u64__(json_t *obj, const char *name, uint64_t x)
{
    json_object_set_new(obj, name,
                        json_integer(MIN(x, (uint64_t) INT64_MAX)));
}

/* Sets member 'name' of 'obj' to 'x' (jansson rejects NaN and
 * infinities, which are 0 here). */
static void
json_set_real__(json_t *obj, const char *name, double x)
{
    json_object_set_new(obj, name, json_real(finite__(x)));
}

json_t *
pmd_perf_perf_show_json(const struct pmd_perf_snapshot *s, int core_id,
                        double duration_s, uint64_t tsc_hz)
{
    json_t *obj = json_object();
    json_t *hist = json_array();
    struct perf_figures__ f;

    perf_figures__(s, duration_s, tsc_hz, &f);
    json_object_set_new(obj, "core_id", json_integer(core_id));
    json_set_real__(obj, "duration_s", duration_s);
    json_set_u64__(obj, "tsc_hz", tsc_hz);
    json_set_u64__(obj, "iterations", f.iterations);
    json_set_u64__(obj, "idle_iterations", f.idle_iterations);
    json_set_u64__(obj, "busy_iterations", f.busy_iterations);
    json_set_u64__(obj, "idle_cycles", f.idle_cycles);
    json_set_u64__(obj, "busy_cycles", f.busy_cycles);
    json_set_u64__(obj, "used_cycles", f.used_cycles);
    json_set_real__(obj, "used_cycles_pct", f.used_cycles_pct);
    json_set_real__(obj, "us_per_iteration", f.us_per_iteration);
    json_set_real__(obj, "cycles_per_iteration", f.cycles_per_iteration);
    json_set_real__(obj, "cycles_per_idle_iteration",
                    f.cycles_per_idle_iteration);
    json_set_real__(obj, "cycles_per_busy_iteration",
                    f.cycles_per_busy_iteration);
    json_set_u64__(obj, "rx_packets", f.rx_packets);
    json_set_real__(obj, "rx_kpps", f.rx_kpps);
    json_set_real__(obj, "packets_per_busy_iteration",
                    f.packets_per_busy_iteration);
    json_set_real__(obj, "cycles_per_packet", f.cycles_per_packet);
    json_set_u64__(obj, "datapath_passes", f.passes);
    json_set_u64__(obj, "emc_hits", f.emc_hits);
    json_set_u64__(obj, "smc_hits", f.smc_hits);
    json_set_u64__(obj, "megaflow_hits", f.megaflow_hits);
    json_set_real__(obj, "subtable_lookups_per_megaflow_hit",
                    f.lookups_per_megaflow_hit);
    json_set_u64__(obj, "upcalls", f.upcalls);
    json_set_u64__(obj, "lost_upcalls", f.lost_upcalls);
    json_set_u64__(obj, "tx_packets", f.tx_packets);
    json_set_real__(obj, "tx_kpps", f.tx_kpps);
    json_set_u64__(obj, "tx_batches", f.tx_batches);
    json_set_real__(obj, "packets_per_tx_batch", f.packets_per_tx_batch);

    for (unsigned int i = 0; i < PMD_PERF_N_BATCH_BUCKETS; i++) {
        json_t *bucket = json_object();
        uint32_t min, max;

        pmd_perf_rx_batch_bucket_range(i, &min, &max);
        json_object_set_new(bucket, "min", json_integer(min));
        json_object_set_new(bucket, "max", json_integer(max));
        json_set_u64__(bucket, "count", s->rx_batch_hist[i]);
        json_array_append_new(hist, bucket);
    }
    json_object_set_new(obj, "rx_batch_histogram", hist);
    return obj;
}
