/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * When an idle PMD should be polling (pmd-sleep-predict).
 *
 * A PMD that waits in ppoll() pays a wake-up of the thread when a frame
 * arrives: tens of microseconds in a virtual machine, the whole gap
 * between a sleeping switch and a busy-polling one for request-response
 * traffic.  Much of that traffic is periodic (health checks, heartbeats,
 * ping, a steady request rate), so the PMD can learn when the next burst
 * is due, wait with a timeout that ends just before it, and poll from
 * then until just after.  The frame then finds the PMD polling, at the
 * CPU cost of that window only.  This is dynamic interrupt moderation's
 * idea, upside down: predict the arrival instead of delaying the
 * interrupt.
 *
 * Arrival times have heavy tails here (a delayed sender, a PMD that was
 * asleep and saw the burst late), so the model is made of order
 * statistics, not averages: the period is the median of the last
 * PMD_WAKE_SAMPLES intervals between burst starts, and the window spans
 * the middle of their spread, so a stray interval costs one wake-up and
 * moves nothing.  A burst that woke a waiting PMD is dated back by the
 * typical wake-up delay, so that the PMD learns even while it sleeps
 * through every burst.  The window opens early by the timer's own
 * lateness (the median of how late timed waits ended), and closes when its
 * budget is spent, since late arrivals are the long tail.  When the window
 * would cost more than 1 / PMD_WAKE_BUDGET of the period (irregular
 * traffic, or a host that wakes its guests slowly), or traffic stops, the
 * PMD simply waits for frames, as without prediction.
 *
 * Pure logic on times in one unit (the PMD uses TSC cycles); no clock
 * reads, so tests drive it with made-up times.  PMD only.
 */
#ifndef PMD_WAKE_H
#define PMD_WAKE_H 1

#include <stdbool.h>
#include <stdint.h>

/* A poll window may take a third of the period at most, so that with the
 * spin after each burst (PMD_SPIN_US in pmd.c) a PMD serving periodic
 * traffic stays under half a core. */
#define PMD_WAKE_BUDGET 3

/* Intervals (and timer lateness samples) remembered. */
#define PMD_WAKE_SAMPLES 16

/* Intervals seen before the period is trusted. */
#define PMD_WAKE_MIN_SAMPLES (PMD_WAKE_SAMPLES / 2)

/* Periods a prediction survives without a burst: past that, traffic is
 * taken to have stopped. */
#define PMD_WAKE_MAX_MISSED 4

struct pmd_wake_ring {
    uint64_t v[PMD_WAKE_SAMPLES];
    uint32_t n;                 /* Samples held, up to PMD_WAKE_SAMPLES. */
    uint32_t next;              /* Slot of the next sample. */
};

struct pmd_wake {
    uint64_t floor;             /* Least margin on each side of a window
                                 * (PMD_WAKE_FLOOR_US). */
    uint64_t last_burst;        /* Start of the latest burst; 0: none. */
    struct pmd_wake_ring intervals;  /* Between burst starts. */
    struct pmd_wake_ring lates;      /* How late timed waits ended. */

    /* Derived from the rings when they change. */
    uint64_t period;            /* Median interval. */
    uint64_t before, after;     /* Window edges around a burst due. */
    uint64_t late;              /* Median lateness of a timed wait: also
                                 * how long after a frame a waiting PMD
                                 * typically sees it. */
};

/* What an idle PMD should do now. */
struct pmd_wake_plan {
    uint64_t wait;              /* Wait at most this long; 0: poll. */
    uint64_t poll_until;        /* If 'wait' is 0: poll until then. */
};

void pmd_wake_init(struct pmd_wake *, uint64_t units_per_us);
void pmd_wake_burst(struct pmd_wake *, uint64_t now, bool after_wait);
void pmd_wake_timed_out(struct pmd_wake *, uint64_t asked, uint64_t took);
struct pmd_wake_plan pmd_wake_plan(const struct pmd_wake *, uint64_t now,
                                   uint64_t max_wait);
bool pmd_wake_trusted(const struct pmd_wake *);

#endif /* dp/pmd-wake.h */
