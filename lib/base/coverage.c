/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Coverage counters: the registry of counters, the registry of per-thread
 * counter arrays, and the periodic samples behind the average rates.
 *
 * A counter's total is the sum of 'retired' (threads that have exited) and
 * every live thread's slot.  Thread arrays are unlinked and folded into
 * 'retired' under 'coverage_mutex' before they are freed, and readers only
 * look at them under the same mutex.
 */
#include <autoconf.h>
#include "base/coverage.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

/* Samples are taken every COVERAGE_SAMPLE_MSEC; the minute average uses the
 * last COVERAGE_MIN_SAMPLES of them, and the hour average the last
 * COVERAGE_HR_SAMPLES per-minute sums. */
#define COVERAGE_SAMPLE_MSEC 5000
#define COVERAGE_MIN_SAMPLES 12
#define COVERAGE_HR_SAMPLES 60

/* One thread's counters.  'counts' is written only by its thread. */
struct coverage_thread {
    uint64_t counts[COVERAGE_MAX_COUNTERS];
    struct coverage_thread *next;   /* Under 'coverage_mutex'. */
};

/* Sampling history of one counter.  Control thread, under
 * 'coverage_mutex'. */
struct coverage_history {
    uint64_t last_total;                         /* At the last sample. */
    uint64_t min_deltas[COVERAGE_MIN_SAMPLES];   /* Per sample. */
    uint64_t hr_deltas[COVERAGE_HR_SAMPLES];     /* Per minute. */
};

__thread uint64_t *coverage_thread_counts;

/* Guards everything below. */
static pthread_mutex_t coverage_mutex = PTHREAD_MUTEX_INITIALIZER;

static struct coverage_counter *counters[COVERAGE_MAX_COUNTERS];
static unsigned int n_counters;

static struct coverage_thread *threads;         /* Live threads. */
static uint64_t retired[COVERAGE_MAX_COUNTERS]; /* Exited threads' sums. */

static struct coverage_history history[COVERAGE_MAX_COUNTERS];
static bool sampling_started;
static long long next_sample_msec;
static unsigned int min_idx;    /* Next slot in 'min_deltas'. */
static unsigned int hr_idx;     /* Next slot in 'hr_deltas'. */

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

void
coverage_counter_register(struct coverage_counter *counter)
{
    pthread_mutex_lock(&coverage_mutex);
    if (n_counters >= COVERAGE_MAX_COUNTERS) {
        ovs_fatal(0, "more than %d coverage counters; raise "
                  "COVERAGE_MAX_COUNTERS", COVERAGE_MAX_COUNTERS);
    }
    counter->idx = n_counters;
    counters[n_counters++] = counter;
    pthread_mutex_unlock(&coverage_mutex);
}

/* Runs when a thread that counted something exits: keeps its counts. */
static void
thread_exit__(void *thread_)
{
    struct coverage_thread *thread = thread_;
    struct coverage_thread **p;

    pthread_mutex_lock(&coverage_mutex);
    for (unsigned int i = 0; i < n_counters; i++) {
        retired[i] += thread->counts[i];
    }
    for (p = &threads; *p; p = &(*p)->next) {
        if (*p == thread) {
            *p = thread->next;
            break;
        }
    }
    pthread_mutex_unlock(&coverage_mutex);

    coverage_thread_counts = NULL;
    free(thread);
}

static void
create_thread_key__(void)
{
    if (pthread_key_create(&thread_key, thread_exit__)) {
        ovs_fatal(0, "coverage: cannot create thread key");
    }
}

uint64_t *
coverage_thread_register(void)
{
    struct coverage_thread *thread;

    pthread_once(&thread_key_once, create_thread_key__);
    thread = xzalloc_cacheline(sizeof *thread);

    pthread_mutex_lock(&coverage_mutex);
    thread->next = threads;
    threads = thread;
    pthread_mutex_unlock(&coverage_mutex);

    pthread_setspecific(thread_key, thread);
    coverage_thread_counts = thread->counts;
    return thread->counts;
}

/* Returns the total of counter 'idx'.  Caller holds 'coverage_mutex'. */
static uint64_t
total__(unsigned int idx)
{
    uint64_t total = retired[idx];

    for (struct coverage_thread *t = threads; t; t = t->next) {
        /* Pairs with the relaxed store in coverage_add(). */
        total += __atomic_load_n(&t->counts[idx], __ATOMIC_RELAXED);
    }
    return total;
}

uint64_t
coverage_read(const struct coverage_counter *counter)
{
    uint64_t total;

    pthread_mutex_lock(&coverage_mutex);
    total = total__(counter->idx);
    pthread_mutex_unlock(&coverage_mutex);
    return total;
}

uint64_t
coverage_get(const char *name)
{
    uint64_t total = 0;

    pthread_mutex_lock(&coverage_mutex);
    for (unsigned int i = 0; i < n_counters; i++) {
        if (!strcmp(counters[i]->name, name)) {
            total = total__(i);
            break;
        }
    }
    pthread_mutex_unlock(&coverage_mutex);
    return total;
}

/* Records one sample interval.  Caller holds 'coverage_mutex'. */
static void
take_sample__(void)
{
    bool minute_done = min_idx == COVERAGE_MIN_SAMPLES - 1;

    for (unsigned int i = 0; i < n_counters; i++) {
        struct coverage_history *h = &history[i];
        uint64_t total = total__(i);

        h->min_deltas[min_idx] = total - h->last_total;
        h->last_total = total;
        if (minute_done) {
            uint64_t sum = 0;

            for (int j = 0; j < COVERAGE_MIN_SAMPLES; j++) {
                sum += h->min_deltas[j];
            }
            h->hr_deltas[hr_idx] = sum;
        }
    }
    min_idx = (min_idx + 1) % COVERAGE_MIN_SAMPLES;
    if (minute_done) {
        hr_idx = (hr_idx + 1) % COVERAGE_HR_SAMPLES;
    }
}

void
coverage_run_at(long long now)
{
    pthread_mutex_lock(&coverage_mutex);
    if (!sampling_started) {
        /* The first sample only sets the baseline. */
        for (unsigned int i = 0; i < n_counters; i++) {
            history[i].last_total = total__(i);
        }
        sampling_started = true;
        next_sample_msec = now + COVERAGE_SAMPLE_MSEC;
    } else if (now >= next_sample_msec) {
        /* Intervals the loop missed count as quiet, except the one that
         * takes everything since the last sample; past an hour of them,
         * the history is all quiet anyway. */
        long long missed = (now - next_sample_msec) / COVERAGE_SAMPLE_MSEC;
        long long n = MIN(missed, COVERAGE_MIN_SAMPLES * COVERAGE_HR_SAMPLES);

        for (long long i = 0; i <= n; i++) {
            take_sample__();
        }
        next_sample_msec += (missed + 1) * COVERAGE_SAMPLE_MSEC;
    }
    pthread_mutex_unlock(&coverage_mutex);
}

void
coverage_run(void)
{
    coverage_run_at(time_msec());
}

static int
compare_stats__(const void *a_, const void *b_)
{
    const struct coverage_stat *a = a_;
    const struct coverage_stat *b = b_;

    return strcmp(a->name, b->name);
}

size_t
coverage_snapshot(struct coverage_stat **statsp)
{
    struct coverage_stat *stats;
    size_t n;

    pthread_mutex_lock(&coverage_mutex);
    n = n_counters;
    stats = xcalloc(n, sizeof *stats);
    for (size_t i = 0; i < n; i++) {
        const struct coverage_history *h = &history[i];
        unsigned int last = ((min_idx + COVERAGE_MIN_SAMPLES - 1)
                             % COVERAGE_MIN_SAMPLES);
        uint64_t min_sum = 0, hr_sum = 0;

        for (int j = 0; j < COVERAGE_MIN_SAMPLES; j++) {
            min_sum += h->min_deltas[j];
        }
        for (int j = 0; j < COVERAGE_HR_SAMPLES; j++) {
            hr_sum += h->hr_deltas[j];
        }
        stats[i].name = counters[i]->name;
        stats[i].total = total__(i);
        stats[i].rate_5s = h->min_deltas[last]
                           / (COVERAGE_SAMPLE_MSEC / 1000.0);
        stats[i].rate_1m = min_sum / 60.0;
        stats[i].rate_1h = hr_sum / 3600.0;
    }
    pthread_mutex_unlock(&coverage_mutex);

    qsort(stats, n, sizeof *stats, compare_stats__);
    *statsp = stats;
    return n;
}

/* Mixes the 'n' bytes at 'p' into 'hash' (32-bit FNV-1a). */
static uint32_t
hash_bytes__(uint32_t hash, const void *p_, size_t n)
{
    const unsigned char *p = p_;

    for (size_t i = 0; i < n; i++) {
        hash = (hash ^ p[i]) * 16777619u;
    }
    return hash;
}

/* Orders by decreasing total, then by name. */
static int
compare_stats_by_total__(const void *a_, const void *b_)
{
    const struct coverage_stat *a = a_;
    const struct coverage_stat *b = b_;

    if (a->total != b->total) {
        return a->total > b->total ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

/* Returns the hash shown in coverage/show's header for the 'n' counters in
 * 'stats'.  As in Open vSwitch (though the values differ), it covers which
 * counters have counted anything and how their totals rank, not the
 * totals themselves: it stays the same while counting keeps that order,
 * and changes when a counter counts for the first time, ties with another
 * or overtakes it. */
static uint32_t
coverage_hash__(const struct coverage_stat *stats, size_t n)
{
    struct coverage_stat *sorted = xmemdup(stats, n * sizeof *stats);
    uint32_t hash = 2166136261u;
    uint32_t n_groups = 0;
    size_t i = 0;

    qsort(sorted, n, sizeof *sorted, compare_stats_by_total__);
    while (i < n && sorted[i].total) {
        uint32_t rank = i;
        size_t j;

        /* One group per distinct total, names in name order, hashed with
         * the rank where it starts: the same names split into different
         * ties hash differently. */
        n_groups++;
        hash = hash_bytes__(hash, &rank, sizeof rank);
        for (j = i; j < n && sorted[j].total == sorted[i].total; j++) {
            hash = hash_bytes__(hash, sorted[j].name,
                                strlen(sorted[j].name) + 1);
        }
        i = j;
    }
    free(sorted);
    return hash_bytes__(hash, &n_groups, sizeof n_groups);
}

char *
coverage_format(void)
{
    struct coverage_stat *stats;
    size_t n = coverage_snapshot(&stats);
    size_t n_unused = 0;
    char *buf = NULL;
    size_t size = 0;
    FILE *s;

    s = open_memstream(&buf, &size);
    if (!s) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    fprintf(s, "Event coverage, avg rate over last: 5 seconds, last minute, "
            "last hour,  hash=%08"PRIx32":\n", coverage_hash__(stats, n));
    for (size_t i = 0; i < n; i++) {
        if (!stats[i].total) {
            n_unused++;
            continue;
        }
        fprintf(s, "%-24s %5.1f/sec %9.3f/sec %13.4f/sec   total: %llu\n",
                stats[i].name, stats[i].rate_5s, stats[i].rate_1m,
                stats[i].rate_1h, (unsigned long long) stats[i].total);
    }
    fprintf(s, "%zu events never hit\n", n_unused);
    if (fclose(s)) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    free(stats);
    return buf;
}
