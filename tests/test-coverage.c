/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for coverage counters: counting from one and several threads,
 * totals that include live and exited threads, sampled rates against an
 * explicit clock, and the coverage/show layout.
 */
#include <autoconf.h>
#include "coverage.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "util.h"

COVERAGE_DEFINE(test_alpha);
COVERAGE_DEFINE(test_beta);
COVERAGE_DEFINE(test_never);

#define N_THREADS 4
#define N_ADDS 100000

static pthread_barrier_t counted, checked;

/* Counts, then waits while the main thread reads the totals of live
 * threads, then exits. */
static void *
count_thread(void *arg)
{
    for (int i = 0; i < N_ADDS; i++) {
        COVERAGE_INC(test_alpha);
    }
    COVERAGE_ADD(test_beta, 3);
    pthread_barrier_wait(&counted);
    pthread_barrier_wait(&checked);
    return arg;
}

static void
test_counting(void)
{
    pthread_t threads[N_THREADS];

    CHECK_INT(coverage_get("test_alpha"), 0);
    CHECK_INT(coverage_get("no_such_counter"), 0);

    COVERAGE_INC(test_alpha);
    COVERAGE_ADD(test_beta, 10);
    COVERAGE_ADD(test_beta, 0);
    CHECK_INT(coverage_get("test_alpha"), 1);
    CHECK_INT(coverage_get("test_beta"), 10);
    CHECK_INT(coverage_read(&coverage_counter_test_beta), 10);

    pthread_barrier_init(&counted, NULL, N_THREADS + 1);
    pthread_barrier_init(&checked, NULL, N_THREADS + 1);
    for (int i = 0; i < N_THREADS; i++) {
        pthread_create(&threads[i], NULL, count_thread, NULL);
    }

    /* Live threads. */
    pthread_barrier_wait(&counted);
    CHECK_INT(coverage_get("test_alpha"), 1 + N_THREADS * N_ADDS);
    CHECK_INT(coverage_get("test_beta"), 10 + N_THREADS * 3);
    pthread_barrier_wait(&checked);

    /* Exited threads keep their counts. */
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(threads[i], NULL);
    }
    CHECK_INT(coverage_get("test_alpha"), 1 + N_THREADS * N_ADDS);
    CHECK_INT(coverage_get("test_beta"), 10 + N_THREADS * 3);
    CHECK_INT(coverage_get("test_never"), 0);
    pthread_barrier_destroy(&counted);
    pthread_barrier_destroy(&checked);
}

static const struct coverage_stat *
find_stat(const struct coverage_stat *stats, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(stats[i].name, name)) {
            return &stats[i];
        }
    }
    return NULL;
}

static void
test_rates(void)
{
    uint64_t alpha = coverage_get("test_alpha");
    const struct coverage_stat *s;
    struct coverage_stat *stats;
    char *text, *expected;
    size_t n;

    /* The first run sets the baseline; later runs sample every 5 s. */
    coverage_run_at(0);
    COVERAGE_ADD(test_alpha, 50);
    coverage_run_at(4999);
    n = coverage_snapshot(&stats);
    s = find_stat(stats, n, "test_alpha");
    CHECK(s && s->rate_5s == 0.0, "sampled too early");
    free(stats);

    coverage_run_at(5000);
    n = coverage_snapshot(&stats);
    CHECK_INT(n, 3);
    for (size_t i = 1; i < n; i++) {
        CHECK(strcmp(stats[i - 1].name, stats[i].name) < 0, "not sorted");
    }
    s = find_stat(stats, n, "test_alpha");
    CHECK(s != NULL, "test_alpha missing");
    if (s) {
        CHECK_INT(s->total, alpha + 50);
        CHECK(s->rate_5s == 10.0, "rate_5s %f", s->rate_5s);
        CHECK(s->rate_1m == 50 / 60.0, "rate_1m %f", s->rate_1m);
        CHECK(s->rate_1h == 0.0, "rate_1h %f", s->rate_1h);
    }
    free(stats);

    /* Once the sample with the 50 is more than a minute old, only the
     * hour average holds it. */
    for (long long t = 10000; t <= 65000; t += 5000) {
        coverage_run_at(t);
    }
    n = coverage_snapshot(&stats);
    s = find_stat(stats, n, "test_alpha");
    CHECK(s && s->rate_5s == 0.0 && s->rate_1m == 0.0
          && s->rate_1h == 50 / 3600.0, "rates after a minute: %f %f %f",
          s ? s->rate_5s : -1, s ? s->rate_1m : -1, s ? s->rate_1h : -1);
    free(stats);

    text = coverage_format();
    expected = xasprintf("Event coverage, avg rate over last: 5 seconds, "
                         "last minute, last hour:\n"
                         "test_alpha                 0.0/sec     0.000/sec"
                         "        0.0139/sec   total: %llu\n"
                         "test_beta                  0.0/sec     0.000/sec"
                         "        0.0000/sec   total: %llu\n"
                         "1 events never hit\n",
                         (unsigned long long) coverage_get("test_alpha"),
                         (unsigned long long) coverage_get("test_beta"));
    CHECK(!strcmp(text, expected), "coverage_format:\n%s\nexpected:\n%s",
          text, expected);
    free(expected);
    free(text);
}

int
main(void)
{
    test_counting();
    test_rates();

    return check_finish("test-coverage");
}
