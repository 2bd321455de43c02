/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The poll-mode thread: its main loop, transmit batching and the flow
 * housekeeping it does between iterations.
 */
#include <autoconf.h>
#include "pmd.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <urcu-qsbr.h>

#include "dp.h"
#include "dpcls.h"
#include "miniflow.h"
#include "netdev.h"
#include "pipeline.h"
#include "upcall.h"
#include "util.h"
#include "vlog.h"

VLOG_DEFINE_THIS_MODULE(pmd);

/* How often a PMD expires idle flows and re-ranks its subtables. */
#define PMD_SWEEP_INTERVAL_MS 1000

/* Idle iterations between clock reads (see pmd_main()). */
#define PMD_IDLE_CLOCK_INTERVAL 64

struct pmd *
pmd_create(struct dp *dp, int core_id, int index)
{
    struct pmd *pmd = xzalloc_cacheline(sizeof *pmd);

    pmd->dp = dp;
    pmd->core_id = core_id;
    pmd->index = index;
    pmd->emc = xzalloc_cacheline(sizeof *pmd->emc);
    emc_init(pmd->emc);
    smc_init(&pmd->smc);
    flow_table_init(&pmd->flows);
    pmd->tx = xzalloc_cacheline(DP_MAX_PORTS * sizeof *pmd->tx);
    return pmd;
}

void
pmd_destroy(struct pmd *pmd)
{
    if (!pmd) {
        return;
    }
    for (size_t i = 0; i < ARRAY_SIZE(pmd->cls); i++) {
        dpcls_destroy(pmd->cls[i]);
    }
    flow_table_uninit(&pmd->flows);
    smc_uninit(&pmd->smc);
    emc_uninit(pmd->emc);
    free(pmd->emc);
    free(pmd->tx);
    free(pmd);
}

void
pmd_add_rxq(struct pmd *pmd, struct netdev_rxq *rxq, uint16_t port_no)
{
    ovs_assert(pmd->n_rxqs < PMD_MAX_RXQS);
    pmd->rxqs[pmd->n_rxqs].rxq = rxq;
    pmd->rxqs[pmd->n_rxqs].port_no = port_no;
    pmd->n_rxqs++;
}

struct dpcls *
pmd_get_dpcls(struct pmd *pmd, uint16_t in_port)
{
    if (!pmd->cls[in_port]) {
        pmd->cls[in_port] = dpcls_create();
    }
    return pmd->cls[in_port];
}

void
pmd_output(struct pmd *pmd, uint16_t port_no, struct dp_packet *packet)
{
    struct dp_batch *batch = &pmd->tx[port_no].batch;

    if (UNLIKELY(dp_batch_is_full(batch))) {
        struct dp_port *port = rcu_dereference(pmd->dp->ports[port_no]);

        pmd_perf_add(&pmd->perf, PMD_STAT_SENT_PACKETS, batch->count);
        pmd_perf_add(&pmd->perf, PMD_STAT_SENT_BATCHES, 1);
        netdev_send(port->netdev, pmd->index, batch);
        dp_batch_init(batch);
    }
    if (dp_batch_is_empty(batch)) {
        pmd->dirty_tx[pmd->n_dirty_tx++] = port_no;
    }
    dp_batch_add(batch, packet);
}

void
pmd_flush_tx(struct pmd *pmd)
{
    for (uint16_t i = 0; i < pmd->n_dirty_tx; i++) {
        uint16_t port_no = pmd->dirty_tx[i];
        struct dp_batch *batch = &pmd->tx[port_no].batch;
        struct dp_port *port = rcu_dereference(pmd->dp->ports[port_no]);

        pmd_perf_add(&pmd->perf, PMD_STAT_SENT_PACKETS, batch->count);
        pmd_perf_add(&pmd->perf, PMD_STAT_SENT_BATCHES, 1);
        netdev_send(port->netdev, pmd->index, batch);
        dp_batch_init(batch);
    }
    pmd->n_dirty_tx = 0;
}

static void
pmd_remove_flow(struct pmd *pmd, struct dp_flow *flow)
{
    dpcls_remove(pmd->cls[flow->in_port], &flow->cr);
    flow_table_remove(&pmd->flows, flow);
}

/* Re-translates every flow when the slow path changed (a MAC learned,
 * moved or aged, a port added or removed) and deletes the ones whose
 * decision differs, so they stop forwarding the old way at once. */
static uint32_t
pmd_revalidate(struct pmd *pmd, uint64_t gen)
{
    struct ofproto *ofproto = pmd->dp->ofproto;
    uint32_t n_removed = 0;

    pmd->ofproto_gen = gen;
    for (uint32_t i = 0; i < pmd->flows.n_slots; i++) {
        struct dp_flow *flow = pmd->flows.flows[i];
        struct flow masked, mask;

        if (!flow) {
            continue;
        }
        miniflow_expand(&flow->cr.flow.mf, &masked);
        miniflow_expand(&flow->mask.mf, &mask);
        if (!upcall_revalidate(ofproto, &masked, &mask, flow->actions,
                               flow->n_actions, pmd->now_ms)) {
            pmd_remove_flow(pmd, flow);
            n_removed++;
        }
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_REVALIDATIONS, 1);
    pmd_perf_add(&pmd->perf, PMD_STAT_FLOWS_INVALIDATED, n_removed);
    return n_removed;
}

/* Deletes flows idle for longer than the idle timeout, and keeps the MAC
 * entries of busy flows alive: packets that hit a cached flow never reach
 * the learning code. */
static uint32_t
pmd_expire_flows(struct pmd *pmd)
{
    uint32_t idle_ms = __atomic_load_n(&pmd->dp->settings.flow_idle_ms,
                                       __ATOMIC_RELAXED);
    long long last_sweep = pmd->next_sweep_ms - PMD_SWEEP_INTERVAL_MS;
    uint32_t n_removed = 0;

    for (uint32_t i = 0; i < pmd->flows.n_slots; i++) {
        struct dp_flow *flow = pmd->flows.flows[i];

        if (!flow) {
            continue;
        }
        if (pmd->now_ms - flow->used > idle_ms) {
            pmd_remove_flow(pmd, flow);
            n_removed++;
        } else if (flow->used >= last_sweep) {
            struct flow masked;

            miniflow_expand(&flow->cr.flow.mf, &masked);
            ofproto_mac_refresh(pmd->dp->ofproto, &masked, pmd->now_ms);
        }
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_FLOWS_EXPIRED, n_removed);
    return n_removed;
}

void
pmd_housekeeping(struct pmd *pmd)
{
    uint64_t gen = ofproto_generation(pmd->dp->ofproto);
    uint32_t n_removed = 0;

    if (gen != pmd->ofproto_gen) {
        n_removed += pmd_revalidate(pmd, gen);
    }
    if (pmd->now_ms >= pmd->next_sweep_ms) {
        pmd->next_sweep_ms = pmd->now_ms + PMD_SWEEP_INTERVAL_MS;
        n_removed += pmd_expire_flows(pmd);
        for (size_t i = 0; i < ARRAY_SIZE(pmd->cls); i++) {
            if (pmd->cls[i]) {
                dpcls_sort_subtables(pmd->cls[i]);
            }
        }
    }
    if (n_removed) {
        /* The EMC may point at the flows just deleted; they are freed only
         * after this thread's next quiescent state. */
        emc_purge_dead(pmd->emc);
    }
}

/* Polls each rxq once.  Returns the number of packets processed. */
static uint32_t
pmd_poll_once(struct pmd *pmd)
{
    uint32_t n_packets = 0;

    for (int i = 0; i < pmd->n_rxqs; i++) {
        struct pmd_rxq *q = &pmd->rxqs[i];
        uint64_t start = cycles_now();
        struct dp_batch batch;
        uint64_t spent;

        dp_batch_init(&batch);
        if (netdev_rxq_recv(q->rxq, &batch, q->port_no)) {
            pmd_perf_add(&pmd->perf, PMD_STAT_CYCLES_IDLE,
                         cycles_now() - start);
            continue;
        }
        pipeline_process(pmd, &batch, q->port_no);
        pmd_flush_tx(pmd);
        n_packets += batch.count;
        spent = cycles_now() - start;
        q->cycles += spent;
        pmd_perf_add(&pmd->perf, PMD_STAT_CYCLES_BUSY, spent);
    }
    return n_packets;
}

static void
pmd_pin_to_core(struct pmd *pmd)
{
    cpu_set_t set;
    int error;

    CPU_ZERO(&set);
    CPU_SET(pmd->core_id, &set);
    error = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (error) {
        VLOG_WARN("pmd on core %d: cannot pin thread (%s)",
                  pmd->core_id, strerror(error));
    }
}

static void *
pmd_main(void *pmd_)
{
    struct pmd *pmd = pmd_;
    char name[16];

    snprintf(name, sizeof name, "pmd-c%02d", pmd->core_id);
    pthread_setname_np(pthread_self(), name);
    pmd_pin_to_core(pmd);
    rcu_register_thread();
    pmd->now_ms = time_msec();
    pmd->next_sweep_ms = pmd->now_ms + PMD_SWEEP_INTERVAL_MS;
    pmd->ofproto_gen = ofproto_generation(pmd->dp->ofproto);
    VLOG_INFO("pmd thread on core %d polling %d rx queue(s)",
              pmd->core_id, pmd->n_rxqs);

    for (uint32_t idle = 0;
         !__atomic_load_n(&pmd->exit, __ATOMIC_ACQUIRE); ) {
        uint32_t n = pmd_poll_once(pmd);

        pmd_perf_add(&pmd->perf, PMD_STAT_ITERATIONS, 1);
        if (n) {
            pmd_perf_add(&pmd->perf, PMD_STAT_BUSY_ITERATIONS, 1);
        }
        /* Reading the clock took a sixth of an idle iteration, so idle
         * iterations read it only now and then: flow timestamps need
         * milliseconds, and an idle iteration takes well under one us. */
        if (n || !(++idle % PMD_IDLE_CLOCK_INTERVAL)) {
            pmd->now_ms = time_msec();
            pmd_housekeeping(pmd);
        }
        rcu_quiescent_state();
    }
    rcu_unregister_thread();
    return NULL;
}

int
pmd_start(struct pmd *pmd)
{
    int error = pthread_create(&pmd->thread, NULL, pmd_main, pmd);

    pmd->started = !error;
    return error;
}

void
pmd_stop(struct pmd *pmd)
{
    if (pmd->started) {
        __atomic_store_n(&pmd->exit, true, __ATOMIC_RELEASE);
        pthread_join(pmd->thread, NULL);
        pmd->started = false;
    }
}
