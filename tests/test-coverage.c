/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for coverage counters: counting from one and several threads,
 * totals that include live and exited threads, sampled rates against an
 * explicit clock, the coverage/show layout and its hash, and coverage/show
 * as text and as JSON through a real appctl server that runs in its own
 * thread on a socket in a temporary directory.
 */
#include <autoconf.h>
#include "control/appctl.h"
#include "base/coverage.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "control/unixctl.h"
#include "unixctl-test.h"
#include "base/util.h"

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

/* Returns the hash in the header of coverage_format()'s 'text', or 0 after
 * failing a check if the header is not "Event coverage, avg rate over
 * last: 5 seconds, last minute, last hour,  hash=XXXXXXXX:\n" with 8
 * lower-case hex digits. */
static uint32_t
format_hash(const char *text)
{
    static const char head[] = "Event coverage, avg rate over last: 5 "
                               "seconds, last minute, last hour,  hash=";
    const char *hex = text + strlen(head);
    bool ok = !strncmp(text, head, strlen(head))
              && strspn(hex, "0123456789abcdef") == 8
              && !strncmp(hex + 8, ":\n", 2);

    CHECK(ok, "bad header in:\n%s", text);
    return ok ? strtoul(hex, NULL, 16) : 0;
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

/* Returns how many of the 'n' counters in 'stats' this file defines. */
static size_t
count_test_counters(const struct coverage_stat *stats, size_t n)
{
    size_t count = 0;

    for (size_t i = 0; i < n; i++) {
        count += !strncmp(stats[i].name, "test_", 5);
    }
    return count;
}

static void
test_rates(void)
{
    uint64_t alpha = coverage_get("test_alpha");
    const struct coverage_stat *s;
    struct coverage_stat *stats;
    char *text, *expected;
    size_t n, n_never;

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
    /* The library's own counters come along: count only this file's. */
    CHECK_INT(count_test_counters(stats, n), 3);
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
    n_never = 0;
    for (size_t i = 0; i < n; i++) {
        n_never += !stats[i].total;
    }
    free(stats);

    text = coverage_format();
    expected = xasprintf("Event coverage, avg rate over last: 5 seconds, "
                         "last minute, last hour,  hash=%08"PRIx32":\n"
                         "test_alpha                 0.0/sec     0.000/sec"
                         "        0.0139/sec   total: %llu\n"
                         "test_beta                  0.0/sec     0.000/sec"
                         "        0.0000/sec   total: %llu\n"
                         "%zu events never hit\n",
                         format_hash(text),
                         (unsigned long long) coverage_get("test_alpha"),
                         (unsigned long long) coverage_get("test_beta"),
                         n_never);
    CHECK(!strcmp(text, expected), "coverage_format:\n%s\nexpected:\n%s",
          text, expected);
    free(expected);
    free(text);
}

/* Returns the hash that coverage_format() shows now. */
static uint32_t
current_hash(void)
{
    char *text = coverage_format();
    uint32_t hash = format_hash(text);

    free(text);
    return hash;
}

/* The hash follows which counters have counted and how their totals rank,
 * not the totals.  Leaves every counter counted. */
static void
test_hash(void)
{
    uint64_t alpha = coverage_get("test_alpha");
    uint32_t h0 = current_hash();
    uint32_t h1, h2, h3;

    CHECK_INT(current_hash(), h0);
    CHECK(alpha > coverage_get("test_beta") + 1, "alpha not ahead");

    /* Counting that keeps the order keeps the hash. */
    COVERAGE_ADD(test_alpha, 7);
    COVERAGE_INC(test_beta);
    CHECK_INT(current_hash(), h0);

    /* Beta catching up with alpha (equal totals), then overtaking it, or a
     * first count of the third counter, each change it. */
    COVERAGE_ADD(test_beta, coverage_get("test_alpha")
                            - coverage_get("test_beta"));
    h1 = current_hash();
    CHECK(h1 != h0, "hash %08"PRIx32" unchanged by a tie", h1);
    COVERAGE_INC(test_beta);
    h2 = current_hash();
    CHECK(h2 != h0 && h2 != h1, "hash %08"PRIx32" unchanged by overtaking",
          h2);
    COVERAGE_INC(test_never);
    h3 = current_hash();
    CHECK(h3 != h0 && h3 != h1 && h3 != h2,
          "hash %08"PRIx32" unchanged by a first count", h3);

    /* Ties with the same names in the same order but split differently:
     * alpha ahead of beta == never, then alpha == beta ahead of never. */
    COVERAGE_ADD(test_alpha, coverage_get("test_beta") + 10
                             - coverage_get("test_alpha"));
    COVERAGE_ADD(test_never, coverage_get("test_beta")
                             - coverage_get("test_never"));
    h1 = current_hash();
    COVERAGE_ADD(test_beta, coverage_get("test_alpha")
                            - coverage_get("test_beta"));
    h2 = current_hash();
    CHECK(h1 != h2, "hash %08"PRIx32" unchanged by moving a tie", h1);
}

/* Checks coverage/show's JSON 'c' for counter 'want'. */
static void
check_counter_json(const json_t *c, const struct coverage_stat *want)
{
    static const char *const rates[] = { "rate_5s", "rate_1m", "rate_1h" };
    const double values[] = { want->rate_5s, want->rate_1m, want->rate_1h };
    json_t *total = json_object_get(c, "total");

    CHECK(json_is_object(c) && json_object_size(c) == 4,
          "%s: not an object of 4 members", want->name);
    CHECK(json_is_integer(total)
          && (uint64_t) json_integer_value(total) == want->total,
          "%s: total", want->name);
    for (size_t i = 0; i < ARRAY_SIZE(rates); i++) {
        json_t *rate = json_object_get(c, rates[i]);

        double diff = json_number_value(rate) - values[i];

        CHECK(json_is_number(rate) && diff < 1e-9 && diff > -1e-9,
              "%s: %s %f, expected %f", want->name, rates[i],
              json_number_value(rate), values[i]);
    }
}

static void
test_appctl(void)
{
    struct unixctl_test_server as;
    struct coverage_stat *stats;
    char *result, *error, *text;
    json_t *json;
    size_t n;
    bool ok;
    int err;

    ok = unixctl_test_server_start(&as, NULL);
    CHECK(ok, "%s", as.error);
    if (!ok) {
        return;
    }
    coverage_register_commands();

    /* Text: coverage_format(). */
    err = unixctl_client_transact(as.path, "coverage/show", 0, NULL, false,
                                  10, &result, &error);
    CHECK(!err, "coverage/show: %s", strerror(err));
    text = coverage_format();
    CHECK_STR(result, text);
    CHECK_STR(error, NULL);
    free(text);
    free(result);
    free(error);

    /* JSON: every counter, counted or not, with its total and rates. */
    COVERAGE_ADD(test_alpha, 5);
    coverage_run_at(70000);
    err = unixctl_client_transact(as.path, "coverage/show", 0, NULL, true,
                                  10, &result, &error);
    CHECK(!err, "coverage/show: %s", strerror(err));
    CHECK_STR(error, NULL);
    json = result ? json_loads(result, 0, NULL) : NULL;
    n = coverage_snapshot(&stats);
    CHECK(json_is_object(json) && json_object_size(json) == n,
          "coverage/show JSON is not an object of %zu counters: %s", n,
          result);
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_object_get(json, stats[i].name);

        CHECK(c, "coverage/show JSON lacks %s", stats[i].name);
        check_counter_json(c, &stats[i]);
    }
    CHECK_INT(json_integer_value(json_object_get(
                  json_object_get(json, "test_never"), "total")), 0);
    CHECK(json_real_value(json_object_get(
              json_object_get(json, "test_alpha"), "rate_5s")) == 1.0,
          "test_alpha rate_5s");
    free(stats);
    json_decref(json);
    free(result);

    /* Misuse. */
    err = unixctl_client_transact(as.path, "coverage/show", 1,
                                  (const char *[]) { "x" }, true, 10,
                                  &result, &error);
    CHECK(!err, "coverage/show x: %s", strerror(err));
    CHECK_STR(result, NULL);
    CHECK_STR(error, "\"coverage/show\" command takes at most 0 arguments");
    free(result);
    free(error);

    unixctl_test_server_stop(&as);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_counting();
    test_rates();
    test_appctl();
    test_hash();

    return check_finish("test-coverage");
}
