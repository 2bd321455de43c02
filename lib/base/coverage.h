/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Named event counters ("coverage counters"), for events and drops that
 * have no better home, shown by coverage/show.
 *
 * Define a counter once, at file scope, and count with it in that file:
 *
 *     COVERAGE_DEFINE(upcall_failed);
 *     ...
 *     COVERAGE_INC(upcall_failed);
 *     COVERAGE_ADD(rx_malformed, n_bad);
 *
 * Counter names are global: defining the same name in two files is a link
 * error.
 *
 * Counting is cheap enough for the PMD hot path (once per batch, not per
 * packet): each thread adds to its own array of counters, one slot per
 * counter, with a plain load and store and no lock; the array is registered
 * on the thread's first count.  Readers sum every thread's slot under the
 * registry mutex, and a thread's counts are folded into a global total
 * when it exits, so nothing counted is lost.
 */
#ifndef COVERAGE_H
#define COVERAGE_H 1

#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"

/* Most counters the program may define. */
#define COVERAGE_MAX_COUNTERS 512

/* A counter.  Define with COVERAGE_DEFINE, never directly. */
struct coverage_counter {
    const char *name;           /* As given to COVERAGE_DEFINE. */
    unsigned int idx;           /* Slot in each thread's array; set at
                                 * registration, before main(). */
};

/* Defines counter 'NAME' (a C identifier) and registers it before main()
 * runs. */
#define COVERAGE_DEFINE(NAME)                                           \
    extern struct coverage_counter coverage_counter_##NAME;             \
    struct coverage_counter coverage_counter_##NAME = { #NAME, 0 };     \
    static void coverage_register_##NAME##__(void)                      \
        __attribute__((constructor));                                   \
    static void                                                         \
    coverage_register_##NAME##__(void)                                  \
    {                                                                   \
        coverage_counter_register(&coverage_counter_##NAME);            \
    }                                                                   \
    extern int coverage_counter_decl__

/* Adds 'N' (or 1) to counter 'NAME'.  Any thread. */
#define COVERAGE_ADD(NAME, N) coverage_add(&coverage_counter_##NAME, (N))
#define COVERAGE_INC(NAME) COVERAGE_ADD(NAME, 1)

/* Registers 'counter'.  Called by COVERAGE_DEFINE's constructor. */
void coverage_counter_register(struct coverage_counter *counter);

/* This thread's counter array, or NULL before its first count. */
extern __thread uint64_t *coverage_thread_counts;

/* Registers the calling thread's counter array and returns it. */
uint64_t *coverage_thread_register(void);

static inline void
coverage_add(const struct coverage_counter *counter, uint64_t n)
{
    uint64_t *counts = coverage_thread_counts;
    uint64_t *slot;

    if (UNLIKELY(!counts)) {
        counts = coverage_thread_register();
    }
    slot = &counts[counter->idx];

    /* This thread is the slot's only writer, so load plus store is enough;
     * the store pairs with the relaxed load in the readers. */
    __atomic_store_n(slot, __atomic_load_n(slot, __ATOMIC_RELAXED) + n,
                     __ATOMIC_RELAXED);
}

/* Returns the total of the counter named 'name' over all threads, past and
 * present; 0 for an unknown name.  Any thread. */
uint64_t coverage_get(const char *name);

/* Returns the total of 'counter' over all threads.  Any thread. */
uint64_t coverage_read(const struct coverage_counter *counter);

/* Takes a sample of every counter if the previous one is at least 5
 * seconds old, for the average rates shown by coverage_format().  Call
 * from the control thread's loop; coverage_run_at() takes the monotonic
 * time in msec explicitly (for tests). */
void coverage_run(void);
void coverage_run_at(long long now_msec);

/* One counter, as reported. */
struct coverage_stat {
    const char *name;
    uint64_t total;             /* Since the program started. */
    double rate_5s;             /* Events per second over the last sample
                                 * interval (5 s)... */
    double rate_1m;             /* ...the last minute... */
    double rate_1h;             /* ...and the last hour. */
};

/* Stores in '*statsp' an array of every counter, sorted by name, for the
 * caller to free, and returns its length. */
size_t coverage_snapshot(struct coverage_stat **statsp);

/* Returns the counters that have counted anything, sorted by name, with
 * their rates and totals, in the layout of Open vSwitch's coverage/show,
 * for the caller to free.  The header's "hash=" stays the same as long as
 * the same counters have counted and their totals rank the same. */
char *coverage_format(void);

#endif /* coverage.h */
