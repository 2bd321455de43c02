/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for lib/pmd-perf: the rx batch-size histogram bucket of every
 * batch size, snapshots and their clamped subtraction, the exact
 * pmd-perf-show text for a hand-made snapshot, zero and degenerate inputs
 * (no NaN or infinity in text or JSON), truncation into short buffers,
 * the JSON members, the TSC rate, and that the pmd-stats-show and
 * key=value formats still work.  Expected figures are worked out by hand
 * in the comments beside them.
 */
#include <autoconf.h>
#include "dp/pmd-perf.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "packet/dp-batch.h"
#include "base/util.h"

/* Histogram buckets. */

static void
test_bucket_ranges(void)
{
    static const struct {
        uint32_t min, max;
    } ranges[PMD_PERF_N_BATCH_BUCKETS] = {
        { 1, 1 }, { 2, 3 }, { 4, 7 }, { 8, 15 }, { 16, 31 }, { 32, 32 },
    };

    for (unsigned int b = 0; b < PMD_PERF_N_BATCH_BUCKETS; b++) {
        uint32_t min, max;

        pmd_perf_rx_batch_bucket_range(b, &min, &max);
        CHECK(min == ranges[b].min && max == ranges[b].max,
              "bucket %u: %"PRIu32"-%"PRIu32", want %"PRIu32"-%"PRIu32,
              b, min, max, ranges[b].min, ranges[b].max);
    }
}

/* Counts one receive of 'n' packets into zeroed stats and checks that
 * bucket 'want' (or none, if 'want' is -1) holds 1 and everything else 0. */
static void
check_one_receive(uint32_t n, int want)
{
    struct pmd_perf_stats *s = xzalloc_cacheline(sizeof *s);

    pmd_perf_count_rx_batch(s, n);
    for (int b = 0; b < PMD_PERF_N_BATCH_BUCKETS; b++) {
        CHECK(s->rx_batch_hist[b] == (b == want),
              "n=%"PRIu32": bucket %d holds %"PRIu64", want bucket %d",
              n, b, s->rx_batch_hist[b], want);
    }
    for (int k = 0; k < PMD_N_STATS; k++) {
        CHECK(!s->counters[k], "n=%"PRIu32": counter %s changed", n,
              pmd_perf_stat_name(k));
    }
    free(s);
}

static void
test_bucket_of_each_size(void)
{
    /* Every batch size a receive can give, written out rather than
     * computed, so that a wrong formula cannot agree with itself. */
    static const int want[DP_BATCH_SIZE + 1] = {
        [1] = 0,
        [2] = 1, [3] = 1,
        [4] = 2, [5] = 2, [6] = 2, [7] = 2,
        [8] = 3, [9] = 3, [10] = 3, [11] = 3, [12] = 3, [13] = 3,
        [14] = 3, [15] = 3,
        [16] = 4, [17] = 4, [18] = 4, [19] = 4, [20] = 4, [21] = 4,
        [22] = 4, [23] = 4, [24] = 4, [25] = 4, [26] = 4, [27] = 4,
        [28] = 4, [29] = 4, [30] = 4, [31] = 4,
        [32] = 5,
    };
    /* Out of range: nothing for 0, the last bucket for more than a
     * batch. */
    static const struct {
        uint32_t n;
        int want;
    } edges[] = {
        { 0, -1 }, { 33, 5 }, { 64, 5 }, { 1000, 5 }, { UINT32_MAX, 5 },
    };
    struct pmd_perf_stats *all = xzalloc_cacheline(sizeof *all);

    for (uint32_t n = 1; n <= DP_BATCH_SIZE; n++) {
        uint32_t min, max;

        check_one_receive(n, want[n]);
        CHECK_INT(pmd_perf_rx_batch_bucket(n), want[n]);
        pmd_perf_rx_batch_bucket_range(want[n], &min, &max);
        CHECK(min <= n && n <= max, "n=%"PRIu32" outside its bucket "
              "%"PRIu32"-%"PRIu32, n, min, max);
        pmd_perf_count_rx_batch(all, n);
    }
    for (size_t i = 0; i < ARRAY_SIZE(edges); i++) {
        check_one_receive(edges[i].n, edges[i].want);
    }

    /* One receive of each size 1..32: the bucket widths. */
    static const uint64_t widths[PMD_PERF_N_BATCH_BUCKETS] = {
        1, 2, 4, 8, 16, 1,
    };
    for (int b = 0; b < PMD_PERF_N_BATCH_BUCKETS; b++) {
        CHECK_INT(all->rx_batch_hist[b], widths[b]);
    }
    free(all);
}

/* Snapshots. */

static void
test_snapshot(void)
{
    struct pmd_perf_stats *s = xzalloc_cacheline(sizeof *s);
    struct pmd_perf_snapshot snap, base, diff;
    uint64_t c[PMD_N_STATS];

    for (int k = 0; k < PMD_N_STATS; k++) {
        pmd_perf_add(s, k, 100 + k);
        pmd_perf_add(s, k, 1);
    }
    for (uint32_t n = 1; n <= 32; n *= 2) {
        for (uint32_t i = 0; i < n; i++) {
            pmd_perf_count_rx_batch(s, n);
        }
    }

    pmd_perf_snapshot_read(s, &snap);
    pmd_perf_read(s, c);
    for (int k = 0; k < PMD_N_STATS; k++) {
        CHECK_INT(snap.c[k], 101 + k);
        CHECK_INT(c[k], 101 + k);
    }
    for (int b = 0; b < PMD_PERF_N_BATCH_BUCKETS; b++) {
        CHECK_INT(snap.rx_batch_hist[b], 1 << b);
    }

    /* A smaller base subtracts. */
    memset(&base, 0, sizeof base);
    base.c[PMD_STAT_RECV] = 1;
    base.c[PMD_STAT_ITERATIONS] = 101 + PMD_STAT_ITERATIONS;
    base.rx_batch_hist[5] = 7;
    diff = snap;
    pmd_perf_snapshot_sub(&diff, &base);
    for (int k = 0; k < PMD_N_STATS; k++) {
        CHECK_INT(diff.c[k], snap.c[k] - base.c[k]);
    }
    CHECK_INT(diff.c[PMD_STAT_RECV], 100 + PMD_STAT_RECV);
    CHECK_INT(diff.c[PMD_STAT_ITERATIONS], 0);
    CHECK_INT(diff.rx_batch_hist[5], 32 - 7);
    CHECK_INT(diff.rx_batch_hist[0], 1);

    /* A larger base (the PMD restarted, or a torn read) clamps at 0
     * instead of wrapping; equal values give 0. */
    memset(&base, 0, sizeof base);
    base.c[PMD_STAT_EMC_HIT] = snap.c[PMD_STAT_EMC_HIT] + 1;
    base.c[PMD_STAT_SMC_HIT] = UINT64_MAX;
    base.c[PMD_STAT_MISS] = snap.c[PMD_STAT_MISS];
    base.rx_batch_hist[0] = 2;
    base.rx_batch_hist[4] = UINT64_MAX;
    diff = snap;
    pmd_perf_snapshot_sub(&diff, &base);
    CHECK_INT(diff.c[PMD_STAT_EMC_HIT], 0);
    CHECK_INT(diff.c[PMD_STAT_SMC_HIT], 0);
    CHECK_INT(diff.c[PMD_STAT_MISS], 0);
    CHECK_INT(diff.c[PMD_STAT_LOST], snap.c[PMD_STAT_LOST]);
    CHECK_INT(diff.rx_batch_hist[0], 0);
    CHECK_INT(diff.rx_batch_hist[4], 0);
    CHECK_INT(diff.rx_batch_hist[3], 8);

    /* Subtracting a snapshot from itself clears everything. */
    diff = snap;
    pmd_perf_snapshot_sub(&diff, &snap);
    for (int k = 0; k < PMD_N_STATS; k++) {
        CHECK_INT(diff.c[k], 0);
    }
    for (int b = 0; b < PMD_PERF_N_BATCH_BUCKETS; b++) {
        CHECK_INT(diff.rx_batch_hist[b], 0);
    }
    free(s);
}

/* pmd-perf-show text. */

#define TEST_TSC_HZ UINT64_C(2000000000)
#define TEST_DURATION 10.0

/* A PMD on a 2 GHz TSC over 10 s (2e10 cycles in all). */
static void
make_snapshot(struct pmd_perf_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->c[PMD_STAT_ITERATIONS] = 1000000;
    s->c[PMD_STAT_BUSY_ITERATIONS] = 250000;
    s->c[PMD_STAT_CYCLES_IDLE] = UINT64_C(6000000000);
    s->c[PMD_STAT_CYCLES_BUSY] = UINT64_C(4000000000);
    s->c[PMD_STAT_RECV] = 2000000;
    s->c[PMD_STAT_EMC_HIT] = 1500000;
    s->c[PMD_STAT_SMC_HIT] = 300000;
    s->c[PMD_STAT_MASKED_HIT] = 150000;
    s->c[PMD_STAT_MASKED_LOOKUP] = 300000;
    s->c[PMD_STAT_MISS] = 40000;
    s->c[PMD_STAT_LOST] = 10000;
    s->c[PMD_STAT_SENT_PACKETS] = 1800000;
    s->c[PMD_STAT_SENT_BATCHES] = 90000;
    s->c[PMD_STAT_REVALIDATIONS] = 12345;  /* Not shown. */
    s->rx_batch_hist[0] = 100;
    s->rx_batch_hist[1] = 50;
    s->rx_batch_hist[2] = 24;
    s->rx_batch_hist[3] = 0;
    s->rx_batch_hist[4] = 10;
    s->rx_batch_hist[5] = 216;
}

/* Used cycles 1e10 over 1e6 iterations at 2 GHz: 5 us/it, 50 % of 2e10.
 * Idle 6e9 of 1e10 cycles is 60 %.  2e6 packets in 10 s: 200 Kpps, 4e9
 * busy cycles / 2e6 = 2000 cycles/pkt.  Hits are shares of 2e6 passes.
 * 1.8e6 / 10 s = 180 Kpps; 1.8e6 / 90000 = 20 pkts/batch.  Cycles per
 * iteration: 1e10 / 1e6, 6e9 / 750000 idle, 4e9 / 250000 busy; 2e6 /
 * 250000 = 8 packets per busy iteration.  Histogram of 400 receives,
 * largest bucket 216 = 40 '#': 100 -> 18.5 -> 19, 50 -> 9.3 -> 9, 24 ->
 * 4.4 -> 4, 10 -> 1.9 -> 2. */
static const char expected_text[] =
    "pmd thread numa_id 0 core_id 5:\n"
    "\n"
    "  Iterations:           1000000  (5.00 us/it)\n"
    "  - Used TSC cycles: 10000000000  ( 50.0 % of total cycles)\n"
    "  - idle iterations:     750000  ( 60.0 % of used cycles)\n"
    "  - busy iterations:     250000  ( 40.0 % of used cycles)\n"
    "  Rx packets:           2000000  (200 Kpps, 2000 cycles/pkt)\n"
    "  Datapath passes:      2000000  (1.00 passes/pkt)\n"
    "  - EMC hits:           1500000  ( 75.0 %)\n"
    "  - SMC hits:            300000  ( 15.0 %)\n"
    "  - Megaflow hits:       150000  (  7.5 %, 2.00 subtbl lookups/hit)\n"
    "  - Upcalls:              40000  (  2.0 %)\n"
    "  - Lost upcalls:         10000  (  0.5 %)\n"
    "  Tx packets:           1800000  (180 Kpps)\n"
    "  Tx batches:             90000  (20.00 pkts/batch)\n"
    "  Cycles per iteration: 10000 (idle iterations: 8000, "
    "busy iterations: 16000)\n"
    "  Packets per busy iteration: 8.00\n"
    "  Rx batch sizes (packets per non-empty receive):\n"
    "        1  ###################                     "
    "        100  (25.0 %)\n"
    "      2-3  #########                               "
    "         50  (12.5 %)\n"
    "      4-7  ####                                    "
    "         24  ( 6.0 %)\n"
    "     8-15                                          "
    "          0  ( 0.0 %)\n"
    "    16-31  ##                                      "
    "         10  ( 2.5 %)\n"
    "       32  ########################################"
    "        216  (54.0 %)\n"
    "\n";

/* Returns true if 'text' contains "nan" or "inf" in any case. */
static bool
has_nan_or_inf(const char *text)
{
    for (const char *p = text; *p; p++) {
        if (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3)) {
            return true;
        }
    }
    return false;
}

static void
test_format_text(void)
{
    struct pmd_perf_snapshot s;
    char buf[4096];
    size_t len;

    make_snapshot(&s);
    len = pmd_perf_format_perf_show(&s, 5, TEST_DURATION, TEST_TSC_HZ, buf,
                                    sizeof buf);
    CHECK_STR(buf, expected_text);
    CHECK_INT(len, strlen(buf));
    CHECK(!has_nan_or_inf(buf), "NaN or infinity in:\n%s", buf);

    /* The same key lines with another TSC rate: 1e10 cycles over 1e6
     * iterations at 2.5 GHz is 4 us/it, and 40 % of 2.5e10 cycles. */
    pmd_perf_format_perf_show(&s, 5, TEST_DURATION, 2500000000ULL, buf,
                              sizeof buf);
    CHECK(strstr(buf, "\n  Iterations:           1000000  (4.00 us/it)\n"),
          "text:\n%s", buf);
    CHECK(strstr(buf, "\n  - Used TSC cycles: 10000000000  ( 40.0 % of "
                 "total cycles)\n"), "text:\n%s", buf);
    CHECK(!strstr(buf, "(5.00 us/it)"), "text:\n%s", buf);

    /* Over 20 s the rates halve; the ratios stay. */
    pmd_perf_format_perf_show(&s, 17, 20.0, TEST_TSC_HZ, buf, sizeof buf);
    CHECK(!strncmp(buf, "pmd thread numa_id 0 core_id 17:\n", 33),
          "text:\n%s", buf);
    CHECK(strstr(buf, "\n  Rx packets:           2000000  (100 Kpps, 2000 "
                 "cycles/pkt)\n"), "text:\n%s", buf);
    CHECK(strstr(buf, "\n  Tx packets:           1800000  (90 Kpps)\n"),
          "text:\n%s", buf);
    CHECK(strstr(buf, "( 25.0 % of total cycles)"), "text:\n%s", buf);
}

/* Snapshots with nothing to divide by, and degenerate durations and
 * rates. */
static void
test_format_zero(void)
{
    static const struct {
        bool zero_counters;
        double duration_s;
        uint64_t tsc_hz;
    } cases[] = {
        { true, TEST_DURATION, TEST_TSC_HZ },
        { true, 0.0, 0 },
        { false, 0.0, TEST_TSC_HZ },
        { false, TEST_DURATION, 0 },
        { false, -1.0, TEST_TSC_HZ },
        { false, NAN, TEST_TSC_HZ },
        { false, INFINITY, TEST_TSC_HZ },
        { false, 1e-300, TEST_TSC_HZ },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct pmd_perf_snapshot s;
        char buf[4096];
        json_t *json;
        char *dump;

        check_set_context("case %zu", i);
        if (cases[i].zero_counters) {
            memset(&s, 0, sizeof s);
        } else {
            make_snapshot(&s);
        }
        pmd_perf_format_perf_show(&s, 1, cases[i].duration_s,
                                  cases[i].tsc_hz, buf, sizeof buf);
        CHECK(!has_nan_or_inf(buf), "NaN or infinity in:\n%s", buf);
        CHECK(strstr(buf, "\n       32  "), "histogram missing:\n%s", buf);

        json = pmd_perf_perf_show_json(&s, 1, cases[i].duration_s,
                                       cases[i].tsc_hz);
        dump = json_dumps(json, JSON_SORT_KEYS);
        CHECK(dump && !has_nan_or_inf(dump), "JSON: %s", dump);
        /* json_real() refuses NaN, which would leave a member out. */
        CHECK_INT(json_object_size(json), 30);
        free(dump);
        json_decref(json);
    }
    check_set_context("%s", "");

    /* The all-zero block, line by line where it has figures. */
    struct pmd_perf_snapshot zero;
    char buf[4096];

    memset(&zero, 0, sizeof zero);
    pmd_perf_format_perf_show(&zero, 0, TEST_DURATION, TEST_TSC_HZ, buf,
                              sizeof buf);
    static const char *const lines[] = {
        "\n  Iterations:                 0  (0.00 us/it)\n",
        "\n  - Used TSC cycles:          0  (  0.0 % of total cycles)\n",
        "\n  Rx packets:                 0  (0 Kpps, 0 cycles/pkt)\n",
        "\n  - Megaflow hits:            0  (  0.0 %, 0.00 subtbl "
        "lookups/hit)\n",
        "\n  Tx batches:                 0  (0.00 pkts/batch)\n",
        "\n  Cycles per iteration: 0 (idle iterations: 0, busy iterations: "
        "0)\n",
        "\n  Packets per busy iteration: 0.00\n",
        "\n        1                                                    0  "
        "( 0.0 %)\n",
        "\n       32                                                    0  "
        "( 0.0 %)\n\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
        CHECK(strstr(buf, lines[i]), "no line \"%s\" in:\n%s", lines[i],
              buf);
    }
    CHECK(!strchr(buf, '#'), "bars in an empty histogram:\n%s", buf);
}

/* Short buffers: always NUL-terminated, never written past 'size', and a
 * prefix of the full text. */
static void
test_format_truncation(void)
{
    enum { GUARD = 64 };
    struct pmd_perf_snapshot s;
    size_t full_len = strlen(expected_text);
    const size_t sizes[] = {
        1, 2, 3, 10, 33, 34, 100, 500, full_len - 1, full_len,
        full_len + 1, full_len + 2,
    };

    make_snapshot(&s);
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        size_t size = sizes[i];
        char *buf = xmalloc(size + GUARD);
        size_t len;

        check_set_context("size %zu", size);
        memset(buf, 'Z', size + GUARD);
        len = pmd_perf_format_perf_show(&s, 5, TEST_DURATION, TEST_TSC_HZ,
                                        buf, size);
        CHECK(len < size, "returned %zu", len);
        CHECK(memchr(buf, '\0', size) != NULL, "not NUL-terminated");
        CHECK_INT(len, strnlen(buf, size));
        CHECK_INT(len, MIN(size - 1, full_len));
        CHECK(!strncmp(buf, expected_text, len), "not a prefix: \"%.*s\"",
              (int) MIN(len, 200), buf);
        for (size_t j = size; j < size + GUARD; j++) {
            if (buf[j] != 'Z') {
                CHECK(false, "byte %zu past the end written", j);
                break;
            }
        }
        free(buf);
    }
    check_set_context("%s", "");

    /* Nothing at all may be written to an empty buffer. */
    char byte = 'Z';

    CHECK_INT(pmd_perf_format_perf_show(&s, 5, TEST_DURATION, TEST_TSC_HZ,
                                        &byte, 0), 0);
    CHECK_INT(byte, 'Z');
    CHECK_INT(pmd_perf_format_perf_show(&s, 5, TEST_DURATION, TEST_TSC_HZ,
                                        NULL, 0), 0);
}

/* JSON. */

static void
check_json_int(const json_t *obj, const char *name, long long want)
{
    const json_t *v = json_object_get(obj, name);

    CHECK(json_is_integer(v) && json_integer_value(v) == want,
          "\"%s\" is %s%lld, want %lld", name,
          json_is_integer(v) ? "" : "not an integer: ",
          json_is_integer(v) ? (long long) json_integer_value(v) : 0LL,
          want);
}

static void
check_json_real(const json_t *obj, const char *name, double want)
{
    const json_t *v = json_object_get(obj, name);
    double diff = json_is_real(v) ? json_real_value(v) - want : 1.0;

    CHECK(diff > -1e-9 && diff < 1e-9,
          "\"%s\" is %s%g, want %g", name,
          json_is_real(v) ? "" : "not a real: ",
          json_is_real(v) ? json_real_value(v) : 0.0, want);
}

static void
test_json(void)
{
    static const struct {
        const char *name;
        long long value;
    } ints[] = {
        { "core_id", 5 },
        { "tsc_hz", 2000000000 },
        { "iterations", 1000000 },
        { "idle_iterations", 750000 },
        { "busy_iterations", 250000 },
        { "idle_cycles", 6000000000LL },
        { "busy_cycles", 4000000000LL },
        { "used_cycles", 10000000000LL },
        { "rx_packets", 2000000 },
        { "datapath_passes", 2000000 },
        { "emc_hits", 1500000 },
        { "smc_hits", 300000 },
        { "megaflow_hits", 150000 },
        { "upcalls", 40000 },
        { "lost_upcalls", 10000 },
        { "tx_packets", 1800000 },
        { "tx_batches", 90000 },
    };
    static const struct {
        const char *name;
        double value;
    } reals[] = {
        { "duration_s", 10.0 },
        { "used_cycles_pct", 50.0 },
        { "us_per_iteration", 5.0 },
        { "cycles_per_iteration", 10000.0 },
        { "cycles_per_idle_iteration", 8000.0 },
        { "cycles_per_busy_iteration", 16000.0 },
        { "rx_kpps", 200.0 },
        { "packets_per_busy_iteration", 8.0 },
        { "cycles_per_packet", 2000.0 },
        { "subtable_lookups_per_megaflow_hit", 2.0 },
        { "tx_kpps", 180.0 },
        { "packets_per_tx_batch", 20.0 },
    };
    static const struct {
        long long min, max, count;
    } buckets[PMD_PERF_N_BATCH_BUCKETS] = {
        { 1, 1, 100 }, { 2, 3, 50 }, { 4, 7, 24 }, { 8, 15, 0 },
        { 16, 31, 10 }, { 32, 32, 216 },
    };
    struct pmd_perf_snapshot s;
    const json_t *hist;
    json_t *json;

    make_snapshot(&s);
    json = pmd_perf_perf_show_json(&s, 5, TEST_DURATION, TEST_TSC_HZ);
    CHECK(json_is_object(json), "not an object");
    for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
        check_json_int(json, ints[i].name, ints[i].value);
    }
    for (size_t i = 0; i < ARRAY_SIZE(reals); i++) {
        check_json_real(json, reals[i].name, reals[i].value);
    }
    /* Every member is in one of the tables, plus the histogram. */
    CHECK_INT(json_object_size(json),
              ARRAY_SIZE(ints) + ARRAY_SIZE(reals) + 1);

    hist = json_object_get(json, "rx_batch_histogram");
    CHECK(json_is_array(hist)
          && json_array_size(hist) == PMD_PERF_N_BATCH_BUCKETS,
          "rx_batch_histogram is not an array of %d",
          PMD_PERF_N_BATCH_BUCKETS);
    for (size_t b = 0; b < json_array_size(hist); b++) {
        const json_t *bucket = json_array_get(hist, b);

        check_set_context("bucket %zu", b);
        CHECK_INT(json_object_size(bucket), 3);
        check_json_int(bucket, "min", buckets[b].min);
        check_json_int(bucket, "max", buckets[b].max);
        check_json_int(bucket, "count", buckets[b].count);
    }
    check_set_context("%s", "");
    json_decref(json);

    /* Counts beyond the largest JSON integer are capped, not negative. */
    s.c[PMD_STAT_RECV] = UINT64_MAX;
    json = pmd_perf_perf_show_json(&s, 5, TEST_DURATION, TEST_TSC_HZ);
    check_json_int(json, "rx_packets", INT64_MAX);
    json_decref(json);
}

/* TSC rate, and the formats that were there before. */

static void
test_tsc_hz(void)
{
    uint64_t hz = pmd_perf_tsc_hz();

#if defined(__x86_64__) || defined(__i386__)
    CHECK(hz > 100000000 && hz < 100000000000ULL, "TSC at %"PRIu64" Hz",
          hz);
#else
    CHECK_INT(hz, 1000000000);
#endif
    /* Measured once. */
    CHECK_INT(pmd_perf_tsc_hz(), hz);
}

static void
test_old_formats(void)
{
    static const char prefix[] = "pmd thread numa_id 0 core_id";
    struct pmd_perf_stats *s = xzalloc_cacheline(sizeof *s);
    uint64_t c[PMD_N_STATS];
    char buf[4096];
    size_t len;

    pmd_perf_add(s, PMD_STAT_RECV, 10);
    pmd_perf_add(s, PMD_STAT_EMC_HIT, 9);
    pmd_perf_count_rx_batch(s, 10);
    pmd_perf_read(s, c);

    len = pmd_perf_format_ovs(c, 3, buf, sizeof buf);
    CHECK(!strncmp(buf, prefix, strlen(prefix)), "ovs format:\n%s", buf);
    CHECK(strstr(buf, "core_id 3:\n  packets received: 10\n"),
          "ovs format:\n%s", buf);
    CHECK(strstr(buf, "\n  emc hits: 9\n"), "ovs format:\n%s", buf);
    CHECK_INT(len, strlen(buf));

    len = pmd_perf_format_kv(c, buf, sizeof buf);
    CHECK(!strncmp(buf, "packets_received=10 emc_hits=9 smc_hits=0", 41),
          "kv format: %s", buf);
    CHECK_INT(len, strlen(buf));
    free(s);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "bucket_ranges", test_bucket_ranges },
        { "bucket_of_each_size", test_bucket_of_each_size },
        { "snapshot", test_snapshot },
        { "format_text", test_format_text },
        { "format_zero", test_format_zero },
        { "format_truncation", test_format_truncation },
        { "json", test_json },
        { "tsc_hz", test_tsc_hz },
        { "old_formats", test_old_formats },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-pmd-perf");
}
