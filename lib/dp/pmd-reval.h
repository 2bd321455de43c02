/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Revalidation on a PMD: keeping its cached flows in step with the slow
 * path, a bounded slice at a time.
 *
 * A PMD watches one counter, the datapath's change_seq, which every
 * bridge increments after a change.  When it moves, the PMD looks at
 * what changed, bridge by bridge:
 *
 *   - a bridge's change log (ofproto/change-log.h) names MACs whose
 *     entries were learned, moved or removed, and ports whose link
 *     changed.  The flow table's index gives the flows that depend on
 *     each key, and only those are queued for re-translation;
 *   - a bridge's table generation (new rules, a port added or removed,
 *     the MAC table flushed, a log the PMD fell too far behind in) makes
 *     the PMD sweep every flow that went through that bridge.
 *
 * Each call to pmd_reval_run() does at most PMD_REVAL_FLOWS
 * re-translations and reads at most PMD_REVAL_KEYS keys, so forwarding is
 * never held up by more than a few tens of microseconds, whatever a
 * tenant does.  A flow whose decision changed is deleted; the next packet
 * takes the slow path.
 *
 * The guarantee users rely on: each PMD publishes 'done_seq', the value
 * of change_seq as of which it has nothing left to do.  A control thread
 * that changed something and waits (dp_wait_revalidated()) until every
 * PMD's 'done_seq' has reached the counter's value after its change
 * knows that no packet is forwarded any more by a flow the change
 * contradicts.
 */
#ifndef PMD_REVAL_H
#define PMD_REVAL_H 1

#include <stdbool.h>
#include <stdint.h>
#include "dp/dp.h"

struct pmd;

/* Most flows re-translated per slice.  A translation costs a few
 * microseconds. */
#define PMD_REVAL_FLOWS 32

/* Most change keys read per slice (cheap: one index lookup each). */
#define PMD_REVAL_KEYS 256

/* Most flow table slots a sweep looks at per slice. */
#define PMD_REVAL_SLOTS 1024

/* A PMD's revalidation state.  PMD only, but 'done_seq'. */
struct pmd_reval {
    uint64_t seen_seq;          /* dp->change_seq as of the last look. */
    uint64_t table_gens[DP_MAX_BRIDGES]; /* ofproto_table_generation(). */
    uint64_t log_pos[DP_MAX_BRIDGES];    /* Next change log key to read. */
    bool log_behind;            /* Some log not read up to its head. */
    uint64_t sweep_bridges;     /* Bridges the sweep under way covers. */
    uint64_t sweep_next;        /* Bridges for the next sweep. */
    uint32_t sweep_pos;         /* Next slot of the sweep under way. */

    /* Written by the PMD (release), read by the control thread: every
     * change counted in dp->change_seq up to this value is reflected in
     * the PMD's flows. */
    uint64_t done_seq;
};

/* Takes the slow path's state as it is now as the one the PMD's flows
 * reflect; a PMD that already holds flows sweeps them all once.  PMD
 * thread, when it starts. */
void pmd_reval_start(struct pmd *);

/* True if the slow path changed since the PMD last looked, or work is
 * left from an earlier slice.  Cheap (one relaxed load); PMD thread. */
bool pmd_reval_pending(const struct pmd *);

/* Does one slice of revalidation and returns the number of flows it
 * deleted; the caller purges the EMC of them.  PMD thread. */
uint32_t pmd_reval_run(struct pmd *);

#endif /* pmd-reval.h */
