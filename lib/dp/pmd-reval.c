/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Revalidation on a PMD in bounded slices; see pmd-reval.h.
 */
#include <autoconf.h>
#include "dp/pmd-reval.h"

#include "classifier/dp-flow.h"
#include "dp/pmd.h"
#include "ofproto/change-log.h"
#include "ofproto/ofproto.h"
#include "ofproto/upcall.h"
#include "packet/miniflow.h"
#include "base/rcu.h"
#include "base/util.h"

/* Every bridge bit. */
#define PMD_REVAL_ALL_BRIDGES UINT64_MAX

static struct ofproto *
pmd_reval_bridge(const struct pmd *pmd, int b)
{
    return rcu_read(pmd->dp->bridges[b]);
}

/* The bridge whose slow path decides for packets received on 'port_no',
 * or NULL if the port is gone. */
static struct ofproto *
pmd_reval_port_bridge(const struct pmd *pmd, uint16_t port_no)
{
    const struct dp_port *port = rcu_read(pmd->dp->ports[port_no]);

    return port ? port->ofproto : NULL;
}

/* Translates 'flow' again and deletes it if the slow path now decides
 * otherwise.  Returns true if it deleted it. */
static bool
pmd_reval_flow(struct pmd *pmd, struct dp_flow *flow)
{
    struct ofproto *ofproto = pmd_reval_port_bridge(pmd, flow->in_port);
    struct flow masked, mask;

    pmd_perf_add(&pmd->perf, PMD_STAT_FLOWS_REVALIDATED, 1);
    miniflow_expand(&flow->cr.flow.mf, &masked);
    miniflow_expand(&flow->mask.mf, &mask);
    if (ofproto
        && upcall_revalidate_rule(ofproto, &masked, &mask, flow->actions,
                                  flow->n_actions, flow->rule_stats,
                                  pmd->now_ms)) {
        return false;
    }
    pmd_remove_flow(pmd, flow);
    pmd_perf_add(&pmd->perf, PMD_STAT_FLOWS_INVALIDATED, 1);
    return true;
}

void
pmd_reval_start(struct pmd *pmd)
{
    struct pmd_reval *r = &pmd->reval;

    /* Pairs with the release increments of the counter by the bridges. */
    r->seen_seq = __atomic_load_n(&pmd->dp->change_seq, __ATOMIC_ACQUIRE);
    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        struct ofproto *ofproto = pmd_reval_bridge(pmd, b);

        r->table_gens[b] = ofproto ? ofproto_table_generation(ofproto) : 0;
        r->log_pos[b] = (ofproto
                         ? change_log_head(ofproto_change_log(ofproto)) : 0);
    }
    r->log_behind = false;
    r->sweep_bridges = 0;
    r->sweep_pos = 0;
    /* Flows left from an earlier run of the thread missed what changed
     * meanwhile. */
    r->sweep_next = pmd->flows.n_flows ? PMD_REVAL_ALL_BRIDGES : 0;
    if (!r->sweep_next) {
        /* Pairs with the acquire load in dp_wait_revalidated(). */
        __atomic_store_n(&r->done_seq, r->seen_seq, __ATOMIC_RELEASE);
    }
}

bool
pmd_reval_pending(const struct pmd *pmd)
{
    const struct pmd_reval *r = &pmd->reval;

    return (__atomic_load_n(&pmd->dp->change_seq, __ATOMIC_RELAXED)
            != r->seen_seq
            || r->log_behind || r->sweep_bridges || r->sweep_next
            || pmd->flows.n_queued);
}

/* Notes what changed since the last look: bridges whose table generation
 * moved get swept, and their logs are to be read. */
static void
pmd_reval_look(struct pmd *pmd, uint64_t seq)
{
    struct pmd_reval *r = &pmd->reval;

    r->seen_seq = seq;
    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        struct ofproto *ofproto = pmd_reval_bridge(pmd, b);
        uint64_t gen = ofproto ? ofproto_table_generation(ofproto) : 0;

        if (gen != r->table_gens[b]) {
            r->table_gens[b] = gen;
            r->sweep_next |= UINT64_C(1) << b;
        }
    }
    r->log_behind = true;
    pmd_perf_add(&pmd->perf, PMD_STAT_REVALIDATIONS, 1);
}

/* Reads up to '*budget' keys of bridge 'b''s change log and queues the
 * flows that depend on them.  Returns true if the log is read up to its
 * head. */
static bool
pmd_reval_read_log(struct pmd *pmd, int b, uint32_t *budget)
{
    struct pmd_reval *r = &pmd->reval;
    struct ofproto *ofproto = pmd_reval_bridge(pmd, b);
    const struct change_log *log;
    uint64_t keys[64];
    uint64_t head;
    size_t n;

    if (!ofproto) {
        return true;
    }
    log = ofproto_change_log(ofproto);
    head = change_log_head(log);
    if (head == r->log_pos[b]) {
        return true;
    }
    n = (head < r->log_pos[b] ? SIZE_MAX
         : change_log_read(log, r->log_pos[b], head, keys,
                           MIN(*budget, ARRAY_SIZE(keys))));
    if (n == SIZE_MAX) {
        /* Lost keys (or a new bridge in the slot): check every flow. */
        pmd_perf_add(&pmd->perf, PMD_STAT_REVAL_LOG_LOST, 1);
        r->sweep_next |= UINT64_C(1) << b;
        r->log_pos[b] = head;
        return true;
    }
    if (dp_flow_table_has_wide(&pmd->flows, b)) {
        r->sweep_next |= UINT64_C(1) << b;
    }
    for (size_t i = 0; i < n; i++) {
        dp_flow_table_queue_dependents(&pmd->flows, b, keys[i]);
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_REVAL_KEYS, n);
    r->log_pos[b] += n;
    *budget -= n;
    return r->log_pos[b] == head;
}

/* Reads the change logs, within 'budget' keys in all.  Returns true if
 * every log is read up to its head. */
static bool
pmd_reval_read_logs(struct pmd *pmd)
{
    uint32_t budget = PMD_REVAL_KEYS;
    bool caught_up = true;

    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        if (!budget) {
            return false;
        }
        caught_up &= pmd_reval_read_log(pmd, b, &budget);
    }
    return caught_up;
}

/* Moves the sweep on by up to PMD_REVAL_SLOTS slots and '*budget' flows,
 * starting the next one if none is under way.  Returns the number of
 * flows deleted. */
static uint32_t
pmd_reval_sweep(struct pmd *pmd, uint32_t *budget)
{
    struct pmd_reval *r = &pmd->reval;
    const struct dp_flow_table *t = &pmd->flows;
    uint32_t n_slots = PMD_REVAL_SLOTS;
    uint32_t n_removed = 0;

    if (!r->sweep_bridges) {
        if (!r->sweep_next) {
            return 0;
        }
        r->sweep_bridges = r->sweep_next;
        r->sweep_next = 0;
        r->sweep_pos = 0;
        pmd_perf_add(&pmd->perf, PMD_STAT_REVAL_SWEEPS, 1);
    }
    for (; r->sweep_pos < t->n_slots && *budget && n_slots;
         r->sweep_pos++, n_slots--) {
        struct dp_flow *flow = t->flows[r->sweep_pos];

        if (flow && flow->bridges & r->sweep_bridges) {
            n_removed += pmd_reval_flow(pmd, flow);
            --*budget;
        }
    }
    if (r->sweep_pos >= t->n_slots) {
        r->sweep_bridges = 0;
    }
    return n_removed;
}

uint32_t
pmd_reval_run(struct pmd *pmd)
{
    struct pmd_reval *r = &pmd->reval;
    uint32_t budget = PMD_REVAL_FLOWS;
    uint32_t n_removed = 0;
    struct dp_flow *flow;
    uint64_t seq;

    /* Pairs with the release increments of the counter by the bridges
     * and logs: once it has moved, what moved it is visible. */
    seq = __atomic_load_n(&pmd->dp->change_seq, __ATOMIC_ACQUIRE);
    if (seq != r->seen_seq) {
        pmd_reval_look(pmd, seq);
    }
    if (r->log_behind) {
        r->log_behind = !pmd_reval_read_logs(pmd);
    }
    while (budget && (flow = dp_flow_table_dequeue(&pmd->flows))) {
        n_removed += pmd_reval_flow(pmd, flow);
        budget--;
    }
    if (budget) {
        n_removed += pmd_reval_sweep(pmd, &budget);
    }
    if (!r->log_behind && !pmd->flows.n_queued && !r->sweep_bridges
        && !r->sweep_next) {
        /* Pairs with the acquire load in dp_wait_revalidated(). */
        __atomic_store_n(&r->done_seq, r->seen_seq, __ATOMIC_RELEASE);
    }
    return n_removed;
}
