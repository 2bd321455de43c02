/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <autoconf.h>
#include "dp/pmd-wake.h"

#include <string.h>
#include "base/util.h"

/* Least margin on each side of a window: a sender whose intervals barely
 * vary still varies by a few microseconds. */
#define PMD_WAKE_FLOOR_US 10

/* Order statistics of 16 samples: the window spans the 3rd smallest to
 * the 3rd largest interval (the middle 75%).  The timer's lateness allowed
 * for is its median: a wait that ends later than that still finds the
 * window's early margin. */
#define PMD_WAKE_LOW 2
#define PMD_WAKE_HIGH (PMD_WAKE_SAMPLES - 3)

void
pmd_wake_init(struct pmd_wake *w, uint64_t units_per_us)
{
    memset(w, 0, sizeof *w);
    w->floor = PMD_WAKE_FLOOR_US * units_per_us;
}

static void
ring_add(struct pmd_wake_ring *r, uint64_t sample)
{
    r->v[r->next] = sample;
    r->next = (r->next + 1) % PMD_WAKE_SAMPLES;
    r->n += r->n < PMD_WAKE_SAMPLES;
}

/* Copies the samples of 'r' into 'sorted', in increasing order.  Returns
 * how many there are.  Insertion sort: at most 16 samples, and it runs at
 * the first burst after every idle spell, which under a flood that the
 * sender cannot keep up is often (qsort() showed in profiles). */
static uint32_t
ring_sort(const struct pmd_wake_ring *r, uint64_t sorted[PMD_WAKE_SAMPLES])
{
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t v = r->v[i];
        uint32_t j = i;

        for (; j > 0 && sorted[j - 1] > v; j--) {
            sorted[j] = sorted[j - 1];
        }
        sorted[j] = v;
    }
    return r->n;
}

/* The sample of rank 'rank' out of PMD_WAKE_SAMPLES among the 'n' samples
 * of 'sorted', scaled to 'n'. */
static uint64_t
rank_of(const uint64_t *sorted, uint32_t n, int rank)
{
    return n ? sorted[rank * n / PMD_WAKE_SAMPLES] : 0;
}

static void
derive_window(struct pmd_wake *w)
{
    uint64_t sorted[PMD_WAKE_SAMPLES];
    uint32_t n = ring_sort(&w->intervals, sorted);

    w->period = rank_of(sorted, n, PMD_WAKE_SAMPLES / 2);
    w->before = w->period - rank_of(sorted, n, PMD_WAKE_LOW) + w->floor;
    w->after = rank_of(sorted, n, PMD_WAKE_HIGH) - w->period + w->floor;
}

/* Records that a burst of frames started at 'now' after a quiet spell;
 * 'after_wait' if the PMD saw it on waking from a wait. */
void
pmd_wake_burst(struct pmd_wake *w, uint64_t now, bool after_wait)
{
    uint64_t last = w->last_burst;
    uint64_t interval;

    if (after_wait && now - last > w->late) {
        now -= w->late;
    }
    if (!last || now <= last) {
        w->last_burst = now;
        return;
    }
    w->last_burst = now;
    interval = now - last;
    /* A burst that did not come (a lost ping, a skipped beat) makes one
     * interval a multiple of the period: learn the remainder. */
    if (w->intervals.n >= PMD_WAKE_MIN_SAMPLES
        && interval > w->period + w->period / 2) {
        uint64_t k = (interval + w->period / 2) / w->period;

        if (k <= PMD_WAKE_MAX_MISSED) {
            interval -= (k - 1) * w->period;
        }
    }
    ring_add(&w->intervals, interval);
    derive_window(w);
}

/* Records that a wait asked to last 'asked' ended by its timeout after
 * 'took'. */
void
pmd_wake_timed_out(struct pmd_wake *w, uint64_t asked, uint64_t took)
{
    uint64_t sorted[PMD_WAKE_SAMPLES];
    uint32_t n;

    ring_add(&w->lates, took > asked ? took - asked : 0);
    n = ring_sort(&w->lates, sorted);
    w->late = rank_of(sorted, n, PMD_WAKE_SAMPLES / 2);
}

/* True if the arrivals are regular enough that polling around the next
 * one costs at most 1 / PMD_WAKE_BUDGET of the period. */
bool
pmd_wake_trusted(const struct pmd_wake *w)
{
    return (w->intervals.n >= PMD_WAKE_MIN_SAMPLES
            && w->before + w->after + w->late
               <= w->period / PMD_WAKE_BUDGET);
}

/* How long the window stays open after the burst is due: at least up to
 * the high quantile of the intervals, and as far as the budget allows
 * beyond it, since late arrivals are the heavy tail (a sender's own timer
 * is only ever late) and each one missed costs a wake-up. */
static uint64_t
window_after(const struct pmd_wake *w)
{
    uint64_t budget = w->period / PMD_WAKE_BUDGET;
    uint64_t used = w->before + w->late;

    return MAX(w->after, budget > used ? budget - used : 0);
}

/* What an idle PMD should do at 'now': wait (at most 'max_wait') or poll
 * until the end of the window around the burst that is due. */
struct pmd_wake_plan
pmd_wake_plan(const struct pmd_wake *w, uint64_t now, uint64_t max_wait)
{
    struct pmd_wake_plan wait_max = { .wait = max_wait, .poll_until = 0 };
    uint64_t since, after, k, due, start;

    if (!pmd_wake_trusted(w) || now < w->last_burst) {
        return wait_max;
    }
    since = now - w->last_burst;
    after = window_after(w);
    /* The first burst due whose window has not closed. */
    k = since < after ? 1 : (since - after) / w->period + 1;
    if (k > PMD_WAKE_MAX_MISSED) {
        return wait_max;
    }
    due = w->last_burst + k * w->period;
    /* Begin early by the timer's lateness, so that the wait that ends
     * here ends at the window. */
    start = due - w->before - w->late;
    if (now >= start) {
        return (struct pmd_wake_plan) {
            .wait = 0, .poll_until = due + after,
        };
    }
    return (struct pmd_wake_plan) {
        .wait = start - now < max_wait ? start - now : max_wait,
        .poll_until = 0,
    };
}
