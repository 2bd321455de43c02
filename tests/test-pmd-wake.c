/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for dp/pmd-wake.c, the prediction of when an idle PMD should poll:
 * driven with made-up times in nanoseconds (1,000 units per microsecond),
 * as a PMD drives it with TSC cycles.
 */
#include <autoconf.h>
#include "dp/pmd-wake.h"

#include <stdlib.h>

#include "check.h"

#define US 1000ULL
#define MS (1000 * US)
#define MAX_WAIT (1 * MS)

/* Feeds 'n' bursts 'period' apart, each moved by up to +-'jitter', after
 * the latest one.  Returns the time of the last. */
static uint64_t
feed(struct pmd_wake *w, uint64_t start, int n, uint64_t period,
     uint64_t jitter, unsigned int *seed)
{
    uint64_t t = start;

    for (int i = 0; i < n; i++) {
        uint64_t j = jitter ? rand_r(seed) % (2 * jitter + 1) : 0;

        t += period;
        pmd_wake_burst(w, t + j - jitter, false);
    }
    return t;
}

static void
init(struct pmd_wake *w)
{
    pmd_wake_init(w, US);
}

static void
test_needs_samples(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    struct pmd_wake_plan p;

    init(&w);
    p = pmd_wake_plan(&w, 5 * MS, MAX_WAIT);
    CHECK(p.wait == MAX_WAIT, "nothing learned: wait the maximum");
    feed(&w, 0, PMD_WAKE_MIN_SAMPLES, MS, 0, &seed);
    CHECK(!pmd_wake_trusted(&w), "%d bursts are %d intervals: too few",
          PMD_WAKE_MIN_SAMPLES, PMD_WAKE_MIN_SAMPLES - 1);
    feed(&w, PMD_WAKE_MIN_SAMPLES * MS, 1, MS, 0, &seed);
    CHECK(pmd_wake_trusted(&w), "trusted after %d intervals",
          PMD_WAKE_MIN_SAMPLES);
}

/* Ping at 1,000 a second with a sender's jitter of +-5 us: the wait ends
 * before the next burst, the window holds it, and the window stays
 * within the budget. */
static void
test_periodic(void)
{
    struct pmd_wake w;
    unsigned int seed = 7;
    int in_window = 0;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 50, MS, 5 * US, &seed);
    CHECK(pmd_wake_trusted(&w), "periodic traffic is trusted");
    CHECK(w.period > MS - 5 * US && w.period < MS + 5 * US,
          "period %llu ns", (unsigned long long) w.period);

    for (int i = 0; i < 200; i++) {
        uint64_t last = w.last_burst;
        uint64_t next = t + MS + rand_r(&seed) % (10 * US + 1) - 5 * US;
        struct pmd_wake_plan p = pmd_wake_plan(&w, last + 200 * US,
                                               MAX_WAIT);
        uint64_t woke = last + 200 * US + p.wait;
        struct pmd_wake_plan q = pmd_wake_plan(&w, woke, MAX_WAIT);

        if (!p.wait || q.wait
            || q.poll_until - woke > w.period / PMD_WAKE_BUDGET) {
            CHECK(false, "burst %d: wait %llu, then wait %llu, window %llu",
                  i, (unsigned long long) p.wait,
                  (unsigned long long) q.wait,
                  (unsigned long long) (q.poll_until - woke));
            return;
        }
        in_window += next >= woke && next < q.poll_until;
        t += MS;
        pmd_wake_burst(&w, next, false);
    }
    CHECK_INT(in_window, 200);

    /* The unused budget goes after the due time: a burst 250 us late (the
     * sender's timer) still comes in the window. */
    {
        uint64_t due = w.last_burst + w.period;
        struct pmd_wake_plan q = pmd_wake_plan(&w, due - w.before - w.late,
                                               MAX_WAIT);

        CHECK(!q.wait && q.poll_until > due + 250 * US,
              "window ends %lld us after the due time",
              (long long) (q.poll_until - due) / (long long) US);
    }
}

/* Arrivals at random, 0 to 2 ms apart: no prediction, plain waits. */
static void
test_irregular(void)
{
    struct pmd_wake w;
    unsigned int seed = 3;
    uint64_t t = 0;

    init(&w);
    for (int i = 0; i < 500; i++) {
        t += 100 * US + rand_r(&seed) % (2 * MS);
        pmd_wake_burst(&w, t, false);
    }
    CHECK(!pmd_wake_trusted(&w), "irregular traffic is not trusted");
    CHECK(pmd_wake_plan(&w, t + 300 * US, MAX_WAIT).wait == MAX_WAIT,
          "and the PMD waits the maximum");
}

/* Bursts more often than the budget allows a window for. */
static void
test_too_fast(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;

    init(&w);
    feed(&w, 0, 50, 50 * US, 0, &seed);
    CHECK(!pmd_wake_trusted(&w), "a 50 us period leaves no room for a "
          "20 us window in its third");
}

static void
test_traffic_stops(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 20, MS, 0, &seed);
    CHECK(pmd_wake_plan(&w, t + (PMD_WAKE_MAX_MISSED - 1) * MS + 500 * US,
                        MAX_WAIT).wait < MAX_WAIT,
          "a few missed bursts: still predicting");
    CHECK(pmd_wake_plan(&w, t + (PMD_WAKE_MAX_MISSED + 1) * MS,
                        MAX_WAIT).wait == MAX_WAIT,
          "more than %d missed: traffic has stopped", PMD_WAKE_MAX_MISSED);
}

/* The window of a burst that did not come closes; the plan moves to the
 * next period. */
static void
test_missed_window(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    struct pmd_wake_plan p;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 20, MS, 0, &seed);
    p = pmd_wake_plan(&w, t + MS, MAX_WAIT);
    CHECK(!p.wait && p.poll_until > t + MS, "polls when the burst is due");
    p = pmd_wake_plan(&w, p.poll_until, MAX_WAIT);
    CHECK(p.wait > 0 && p.wait < MS, "then waits for the next one (%llu)",
          (unsigned long long) p.wait);
}

/* One lost ping does not bend the period. */
static void
test_lost_burst(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 20, MS, 0, &seed);
    pmd_wake_burst(&w, t + 2 * MS, false);
    CHECK(w.period == MS, "period %llu after a gap of two",
          (unsigned long long) w.period);
    CHECK(pmd_wake_trusted(&w), "still trusted");
}

/* From 1,000 a second to 100 a second. */
static void
test_rate_change(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 20, MS, 0, &seed);
    t = feed(&w, t, PMD_WAKE_SAMPLES / 2 + 1, 10 * MS, 0, &seed);
    CHECK(w.period == 10 * MS, "period %llu once most intervals are new",
          (unsigned long long) w.period);
    CHECK(!pmd_wake_trusted(&w), "not trusted while old ones remain");
    feed(&w, t, PMD_WAKE_SAMPLES / 2, 10 * MS, 0, &seed);
    CHECK(pmd_wake_trusted(&w), "trusted again with only new ones");
}

/* A timer that fires 30 us late: the wait is asked 30 us shorter. */
static void
test_late_timer(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    uint64_t t, on_time;

    init(&w);
    t = feed(&w, 0, 20, MS, 0, &seed);
    on_time = pmd_wake_plan(&w, t + 100 * US, MAX_WAIT).wait;
    for (int i = 0; i < 50; i++) {
        pmd_wake_timed_out(&w, 500 * US, 530 * US);
    }
    CHECK_INT(w.late, 30 * US);
    CHECK_INT(on_time - pmd_wake_plan(&w, t + 100 * US, MAX_WAIT).wait,
              w.late);
    for (int i = 0; i < PMD_WAKE_SAMPLES; i++) {
        pmd_wake_timed_out(&w, 500 * US, 400 * US);
    }
    CHECK_INT(w.late, 0);
}

/* Two intervals in 16 that are far off (a sender delayed, a burst seen
 * late) change neither the period nor the window much. */
static void
test_heavy_tail(void)
{
    struct pmd_wake w;
    unsigned int seed = 5;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 30, MS, 2 * US, &seed);
    for (int i = 0; i < 30; i++) {
        uint64_t off = i % 8 == 0 ? 600 * US : 0;

        t += MS;
        pmd_wake_burst(&w, t + off, false);
        t += off;
    }
    CHECK(w.period > MS - 5 * US && w.period < MS + 5 * US,
          "period %llu", (unsigned long long) w.period);
    CHECK(pmd_wake_trusted(&w), "still trusted (window %llu + %llu)",
          (unsigned long long) w.before, (unsigned long long) w.after);
}

/* A PMD that sleeps through every burst sees each some 40 to 60 us late,
 * its timer's usual delay: it dates them back and learns the period. */
static void
test_after_wait(void)
{
    struct pmd_wake w;
    unsigned int seed = 9;
    uint64_t t = 0;

    init(&w);
    for (int i = 0; i < PMD_WAKE_SAMPLES; i++) {
        pmd_wake_timed_out(&w, 500 * US, 540 * US + i * 20 * US / 16);
    }
    CHECK(w.late == 50 * US, "typical delay %llu",
          (unsigned long long) w.late);
    for (int i = 0; i < 40; i++) {
        t += MS;
        pmd_wake_burst(&w, t + 40 * US + rand_r(&seed) % (20 * US), true);
    }
    CHECK(w.last_burst >= t - 10 * US && w.last_burst <= t + 10 * US,
          "last burst dated back to %lld us from when it came",
          (long long) (w.last_burst - t) / (long long) US);
    CHECK(pmd_wake_trusted(&w), "trusted (window %llu + %llu, late %llu)",
          (unsigned long long) w.before, (unsigned long long) w.after,
          (unsigned long long) w.late);
}

static void
test_max_wait(void)
{
    struct pmd_wake w;
    unsigned int seed = 1;
    uint64_t t;

    init(&w);
    t = feed(&w, 0, 20, 10 * MS, 0, &seed);
    CHECK(pmd_wake_plan(&w, t + 200 * US, MAX_WAIT).wait == MAX_WAIT,
          "a burst 10 ms away: wait pmd-sleep-max");
}

int
main(void)
{
    test_needs_samples();
    test_periodic();
    test_irregular();
    test_too_fast();
    test_traffic_stops();
    test_missed_window();
    test_lost_burst();
    test_rate_change();
    test_late_timer();
    test_heavy_tail();
    test_after_wait();
    test_max_wait();
    return check_finish("test-pmd-wake");
}
