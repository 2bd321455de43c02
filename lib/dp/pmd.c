/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The poll-mode thread: its main loop, transmit batching and the flow
 * housekeeping it does between iterations.
 */
#include <autoconf.h>
#include "dp/pmd.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "ofproto/bond.h"
#include "dp/dp.h"
#include "dp/dp-capture.h"
#include "dp/tx-gro.h"
#include "dp/tx-gso.h"
#include "classifier/dpcls.h"
#include "packet/miniflow.h"
#include "netdev/netdev.h"
#include "dp/pipeline.h"
#include "dp/pmd-reval.h"
#include "base/rcu.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"
#include "ofproto/upcall.h"
#include "base/coverage.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(pmd);

COVERAGE_DEFINE(megaflow_expired);  /* Idle megaflows deleted. */

/* How often a PMD expires idle flows and re-ranks its subtables. */
#define PMD_SWEEP_INTERVAL_MS 1000

/* Idle iterations between clock reads (see pmd_main()). */
#define PMD_IDLE_CLOCK_INTERVAL 64

/* pmd-sleep-max: how long a PMD keeps polling after its last frame before
 * it waits.  A reply to what it just forwarded (ping, request-response,
 * TCP acknowledgements) usually comes back within this window, so such
 * traffic pays for one wake-up per exchange rather than two. */
#define PMD_SPIN_US 100

/* Timer slack of a PMD thread, so that short waits stay short. */
#define PMD_TIMER_SLACK_NS 1000

static struct pmd_poll_list *
pmd_poll_list_create(struct pmd_rxq *const *rxqs, int n)
{
    struct pmd_poll_list *list = xzalloc(sizeof *list
                                         + n * sizeof list->rxqs[0]);

    list->n = n;
    for (int i = 0; i < n; i++) {
        list->rxqs[i] = rxqs[i];
    }
    return list;
}

struct pmd *
pmd_create(struct dp *dp, int core_id)
{
    struct pmd *pmd = xzalloc_cacheline(sizeof *pmd);

    pmd->dp = dp;
    pmd->core_id = core_id;
    pmd->poll = pmd_poll_list_create(NULL, 0);
    pmd->emc = xzalloc_cacheline(sizeof *pmd->emc);
    emc_init(pmd->emc);
    smc_init(&pmd->smc);
    dp_flow_table_init(&pmd->flows);
    pmd->tx = xzalloc_cacheline(DP_MAX_PORTS * sizeof *pmd->tx);
    pmd->patch = xzalloc_cacheline(DP_MAX_PORTS * sizeof *pmd->patch);
    pmd->tx_down = xzalloc_cacheline(DP_MAX_PORTS * sizeof *pmd->tx_down);
    pmd->tx_offload = xzalloc_cacheline(DP_MAX_PORTS
                                        * sizeof *pmd->tx_offload);
    dp_actions_clone_pool_init(&pmd->clones, DP_ACTIONS_CLONE_POOL_SIZE,
                        DP_ACTIONS_CLONE_FRAME_MAX);
    pmd->transient_pool = xzalloc_cacheline(DP_BATCH_SIZE
                                            * PMD_TRANSIENT_FLOW_SIZE);
    tx_gso_init(&pmd->tx_gso);
    tx_gro_init(&pmd->tx_gro);
    return pmd;
}

/* Credits the counts of every flow 'pmd' still holds to the rule that
 * decided it, as deleting the flow would: a PMD retired by a pmd-cpu-mask
 * change takes its flows with it, and the rules' counters must keep what
 * those flows counted.  The rules are still alive: the slow path frees a
 * rule only after every running PMD revalidated its flows, and the
 * control thread, which does both, is here now.  Control thread, with the
 * PMD stopped. */
static void
pmd_credit_flows__(struct pmd *pmd)
{
    for (uint32_t i = 0; i < pmd->flows.n_slots; i++) {
        const struct dp_flow *flow = pmd->flows.flows[i];

        if (flow && flow->rule_stats) {
            rule_stats_credit(flow->rule_stats, flow->n_packets,
                              flow->n_bytes);
        }
    }
}

void
pmd_destroy(struct pmd *pmd)
{
    if (!pmd) {
        return;
    }
    pmd_stop(pmd);
    pmd_credit_flows__(pmd);
    for (size_t i = 0; i < ARRAY_SIZE(pmd->cls); i++) {
        dpcls_destroy(pmd->cls[i]);
    }
    dp_flow_table_uninit(&pmd->flows);
    smc_uninit(&pmd->smc);
    emc_uninit(pmd->emc);
    if (pmd->abandoned) {
        pmd_request_uninit(pmd->abandoned);
        free(pmd->abandoned);
    }
    free(pmd->poll);
    free(pmd->wait_fds);
    free(pmd->emc);
    free(pmd->tx);
    free(pmd->patch);
    free(pmd->tx_down);
    free(pmd->tx_offload);
    dp_actions_clone_pool_uninit(&pmd->clones);
    tx_gso_uninit(&pmd->tx_gso);
    tx_gro_uninit(&pmd->tx_gro);
    free(pmd->transient_pool);
    free(pmd);
}

struct pmd_poll_list *
pmd_set_poll_list(struct pmd *pmd, struct pmd_rxq *const *rxqs, int n)
{
    struct pmd_poll_list *old = pmd->poll;

    rcu_publish(pmd->poll, pmd_poll_list_create(rxqs, n));
    return old;
}

struct dpcls *
pmd_get_dpcls(struct pmd *pmd, uint16_t in_port)
{
    if (!pmd->cls[in_port]) {
        pmd->cls[in_port] = dpcls_create();
    }
    return pmd->cls[in_port];
}

/* Copies the frames of 'batch', dropped for 'reason' on their way to
 * 'port_no', if 'cap' captures drops. */
static void
pmd_capture_drops__(const struct dp_capture *cap, const struct pmd *pmd,
                    const struct dp_batch *batch, enum dp_drop_reason reason,
                    uint16_t port_no)
{
    for (uint32_t i = 0; cap && i < batch->count; i++) {
        dp_capture_drop(cap, pmd, batch->packets[i], reason, port_no);
    }
}

/* Sends 'batch' on 'port_no' and empties it.  A port removed since the
 * flow was made, or whose interface is missing, gets nothing; its frames
 * are counted as dropped.  So does a port whose link is down (the kernel
 * would take them and drop them unseen when the carrier is off). */
static void
pmd_send__(struct pmd *pmd, uint16_t port_no, struct dp_batch *batch)
{
    struct dp_port *port = rcu_read(pmd->dp->ports[port_no]);
    const struct dp_capture *cap = rcu_read(pmd->dp->capture);

    if (UNLIKELY(port && port->tunnel)) {
        /* A tunnel has no link to go down: all of them are encapsulated
         * (or dropped by the port, under its own counters). */
        pmd_perf_add(&pmd->perf, PMD_STAT_TNL_ENCAP, batch->count);
    }
    if (UNLIKELY(port && port->netdev
                 && __atomic_load_n(&port->tx_down, __ATOMIC_RELAXED))) {
        /* The link monitor's word, stored by dp_port_link_changed(). */
        pmd_perf_add(&pmd->perf, PMD_STAT_DROP_PORT_DOWN, batch->count);
        __atomic_store_n(&pmd->tx_down[port_no],
                         pmd->tx_down[port_no] + batch->count,
                         __ATOMIC_RELAXED);
        pmd_capture_drops__(cap, pmd, batch, DP_DROP_PORT_DOWN, port_no);
    } else if (UNLIKELY(port && port->netdev
                        && port->tx_gso != DP_PORT_GSO_ALL
                        && tx_gso_needed(port, batch))) {
        tx_gso_send(pmd, port, port_no, batch, cap);
    } else if (LIKELY(port && port->netdev)) {
        if ((port->tx_gso & DP_PORT_GSO_TCP) && batch->count > 1
            && __atomic_load_n(&pmd->dp->settings.gro_enable,
                               __ATOMIC_RELAXED)) {
            tx_gro_batch(pmd, port_no, batch);
        }
        pmd_perf_add(&pmd->perf, PMD_STAT_SENT_PACKETS, batch->count);
        pmd_perf_add(&pmd->perf, PMD_STAT_SENT_BATCHES, 1);
        if (UNLIKELY(cap)) {
            dp_capture_batch(cap, pmd, batch, port_no, true);
        }
        netdev_send(port->netdev, pmd->bond_slot, batch);
    } else {
        pmd_perf_add(&pmd->perf, PMD_STAT_DROP_PORT_GONE, batch->count);
        pmd_capture_drops__(cap, pmd, batch, DP_DROP_PORT_GONE, port_no);
    }
    dp_batch_init(batch);
}

void
pmd_output(struct pmd *pmd, uint16_t port_no, struct dp_packet *packet)
{
    struct dp_batch *batch = &pmd->tx[port_no].batch;

    if (UNLIKELY(dp_batch_is_full(batch))) {
        pmd_send__(pmd, port_no, batch);      /* Stays in 'dirty_tx'. */
    } else if (dp_batch_is_empty(batch)) {
        pmd->dirty_tx[pmd->n_dirty_tx++] = port_no;
    }
    dp_batch_add(batch, packet);
}

void
pmd_flush_tx(struct pmd *pmd)
{
    for (uint16_t i = 0; i < pmd->n_dirty_tx; i++) {
        uint16_t port_no = pmd->dirty_tx[i];

        pmd_send__(pmd, port_no, &pmd->tx[port_no].batch);
    }
    pmd->n_dirty_tx = 0;
    /* No transmit batch refers to a clone any more. */
    dp_actions_clone_pool_recycle(&pmd->clones, NULL, 0);
}

void
pmd_capture_drop(const struct pmd *pmd, const struct dp_packet *p,
                   enum dp_drop_reason reason, uint16_t out_port)
{
    const struct dp_capture *cap = rcu_read(pmd->dp->capture);

    if (UNLIKELY(cap)) {
        dp_capture_drop(cap, pmd, p, reason, out_port);
    }
}

void
pmd_output_bond(struct pmd *pmd, uint16_t port_no, uint32_t hash,
                struct dp_packet *packet)
{
    struct dp_port *port = rcu_read(pmd->dp->ports[port_no]);
    const struct bond_map *map;
    uint16_t member;

    if (UNLIKELY(!port || !port->bond)) {
        pmd_perf_add(&pmd->perf, PMD_STAT_DROP_BOND_OUTPUT, 1);
        pmd_capture_drop(pmd, packet, DP_DROP_BOND_OUTPUT, port_no);
        return;
    }
    /* The receive path set the RSS hash of every packet (see hash.h); an
     * action never recomputes it. */
    if (!hash) {
        hash = packet->rss_hash;
    }
    map = bond_map_get(port->bond);
    member = bond_map_port(map, hash);
    if (UNLIKELY(member == BOND_PORT_NONE)) {
        pmd_perf_add(&pmd->perf, PMD_STAT_DROP_BOND_OUTPUT, 1);
        pmd_capture_drop(pmd, packet, DP_DROP_BOND_OUTPUT, port_no);
        return;
    }
    bond_map_account(map, pmd->bond_slot, hash, packet->size);
    pmd_output(pmd, member, packet);
}

void
pmd_remove_flow(struct pmd *pmd, struct dp_flow *flow)
{
    dpcls_remove(pmd->cls[flow->in_port], &flow->cr);
    if (flow->rule_stats) {
        /* The rule outlives its flows: ofproto_set_rules() frees a rule
         * only after every PMD revalidated, which deletes them. */
        rule_stats_credit(flow->rule_stats, flow->n_packets, flow->n_bytes);
    }
    dp_flow_table_remove(&pmd->flows, flow);
}

/* The bridge whose slow path decides for packets received on 'port_no',
 * or NULL if the port is gone.  PMD thread (RCU reader). */
static struct ofproto *
pmd_port_bridge(const struct pmd *pmd, uint16_t port_no)
{
    const struct dp_port *port = rcu_read(pmd->dp->ports[port_no]);

    return port ? port->ofproto : NULL;
}

/* Busy flows whose MAC entries one hold of the table's mutex refreshes. */
#define PMD_REFRESH_BATCH 64

/* Refreshes the 'n' MAC entries 'refreshes' of 'bridge' (NULL if 'n' is
 * 0). */
static void
pmd_refresh_macs__(const struct pmd *pmd, struct ofproto *bridge,
                   const struct mac_learning_refresh *refreshes, uint32_t n)
{
    if (n) {
        mac_learning_refresh_batch(ofproto_mac_learning(bridge), refreshes,
                                   n, pmd->now_ms);
    }
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
    struct mac_learning_refresh refreshes[PMD_REFRESH_BATCH];
    struct ofproto *refresh_bridge = NULL;
    uint32_t n_refreshes = 0;
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
            struct ofproto *ofproto = pmd_port_bridge(pmd, flow->in_port);
            struct flow masked;

            if (!ofproto) {
                continue;
            }
            /* The MAC table's mutex once per batch of busy flows, not
             * once per flow. */
            if (ofproto != refresh_bridge
                || n_refreshes == PMD_REFRESH_BATCH) {
                pmd_refresh_macs__(pmd, refresh_bridge, refreshes,
                                   n_refreshes);
                refresh_bridge = ofproto;
                n_refreshes = 0;
            }
            miniflow_expand(&flow->cr.flow.mf, &masked);
            n_refreshes += ofproto_mac_refresh_entry(ofproto, &masked,
                                                     &refreshes[n_refreshes]);
        }
    }
    pmd_refresh_macs__(pmd, refresh_bridge, refreshes, n_refreshes);
    pmd_perf_add(&pmd->perf, PMD_STAT_FLOWS_EXPIRED, n_removed);
    COVERAGE_ADD(megaflow_expired, n_removed);
    return n_removed;
}

void
pmd_housekeeping(struct pmd *pmd)
{
    uint32_t n_removed = 0;

    if (pmd_reval_pending(pmd)) {
        n_removed += pmd_reval_run(pmd);
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

static void
pmd_dump_flows(struct pmd *pmd, struct pmd_request *req)
{
    req->flows = xcalloc(pmd->flows.n_flows + 1, sizeof *req->flows);
    for (uint32_t i = 0; i < pmd->flows.n_slots; i++) {
        const struct dp_flow *flow = pmd->flows.flows[i];
        struct pmd_flow_entry *e;

        if (!flow) {
            continue;
        }
        e = &req->flows[req->n_flows++];
        miniflow_expand(&flow->cr.flow.mf, &e->flow);
        miniflow_expand(&flow->mask.mf, &e->mask);
        e->in_port = flow->in_port;
        e->n_packets = flow->n_packets;
        e->n_bytes = flow->n_bytes;
        e->used = flow->used;
        e->created = flow->created;
        e->tcp_flags = flow->tcp_flags;
        e->rule_stats = flow->rule_stats;
        e->n_actions = flow->n_actions;
        e->actions = xmemdup(flow->actions,
                             flow->n_actions * sizeof *flow->actions);
    }
}

static void
pmd_del_flows(struct pmd *pmd, struct pmd_request *req)
{
    for (uint32_t i = 0; i < pmd->flows.n_slots; i++) {
        struct dp_flow *flow = pmd->flows.flows[i];

        if (flow) {
            pmd_remove_flow(pmd, flow);
            req->n_deleted++;
        }
    }
    if (req->n_deleted) {
        emc_purge_dead(pmd->emc);
    }
}

static void
pmd_serve_request(struct pmd *pmd, struct pmd_request *req)
{
    switch (req->type) {
    case PMD_REQUEST_DUMP_FLOWS:
        pmd_dump_flows(pmd, req);
        break;
    case PMD_REQUEST_DEL_FLOWS:
        pmd_del_flows(pmd, req);
        break;
    case PMD_REQUEST_TEST_STALL: {
        struct timespec ts = { req->stall_ms / 1000,
                               req->stall_ms % 1000 * 1000000L };

        while (nanosleep(&ts, &ts) && errno == EINTR) {
            continue;
        }
        break;
    }
    }
    /* Pairs with the acquire in pmd_request_run(). */
    __atomic_store_n(&req->done, true, __ATOMIC_RELEASE);
}

/* Serves 'req' for a PMD whose thread does not run.  Deleting flows uses
 * call_rcu(), which wants a registered, online thread. */
static void
pmd_serve_request_here(struct pmd *pmd, struct pmd_request *req)
{
    rcu_register_thread();
    pmd_serve_request(pmd, req);
    rcu_unregister();
}

int
pmd_request_run(struct pmd *pmd, struct pmd_request *req, int timeout_ms)
{
    long long deadline = time_msec() + timeout_ms;

    req->done = false;
    if (pmd->abandoned) {
        /* Pairs with the release in pmd_serve_request(): once 'done', the
         * PMD has let go of the request (it cleared 'pmd->request' before)
         * and a new one may take its place. */
        if (!__atomic_load_n(&pmd->abandoned->done, __ATOMIC_ACQUIRE)) {
            return EBUSY;       /* Still stuck on an earlier request. */
        }
        pmd_request_uninit(pmd->abandoned);
        free(pmd->abandoned);
        pmd->abandoned = NULL;
    }
    if (!pmd->started) {
        pmd_serve_request_here(pmd, req);
        return 0;
    }
    /* Pairs with the acquire in pmd_main(): 'req' is complete when the
     * PMD sees it. */
    __atomic_store_n(&pmd->request, req, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&req->done, __ATOMIC_ACQUIRE)) {
        if (time_msec() > deadline) {
            pmd->abandoned = req;
            return ETIMEDOUT;
        }
        usleep(50);
    }
    return 0;
}

long long
pmd_stalled_ms(struct pmd *pmd, long long now_ms)
{
    uint64_t c[PMD_N_STATS];

    pmd_perf_read(&pmd->perf, c);
    if (!pmd->started || c[PMD_STAT_ITERATIONS] != pmd->watch_iterations
        || !pmd->watch_since_ms) {
        pmd->watch_iterations = c[PMD_STAT_ITERATIONS];
        pmd->watch_since_ms = now_ms;
        return 0;
    }
    return now_ms - pmd->watch_since_ms;
}

void
pmd_request_uninit(struct pmd_request *req)
{
    for (size_t i = 0; i < req->n_flows; i++) {
        free(req->flows[i].actions);
    }
    free(req->flows);
    req->flows = NULL;
    req->n_flows = 0;
}

/* Polls each rxq of 'poll' once.  Returns the number of packets processed,
 * and the cycles spent processing them in '*busy'.
 *
 * Output batches go out after each rx batch, or, with tx-flush-interval
 * set, when the oldest frame in them has waited that long, and at the
 * latest at the end of the iteration: frames point into rx buffers that
 * the next receive on their queue reuses, and that a poll-list change may
 * close after this thread's next quiescent state. */
static uint32_t
pmd_poll_once(struct pmd *pmd, const struct pmd_poll_list *poll,
              uint64_t *busy)
{
    uint32_t flush_us = __atomic_load_n(&pmd->dp->settings.tx_flush_us,
                                        __ATOMIC_RELAXED);
    uint64_t flush_at = UINT64_MAX;
    uint32_t n_packets = 0;

    *busy = 0;
    for (int i = 0; i < poll->n; i++) {
        struct pmd_rxq *q = poll->rxqs[i];
        uint64_t start = cycles_now();
        struct dp_batch batch;
        uint64_t spent;

        if (start >= flush_at) {
            pmd_flush_tx(pmd);
            flush_at = UINT64_MAX;
        }
        dp_batch_init(&batch);
        if (netdev_rxq_recv(q->rxq, &batch, q->port_no)) {
            continue;
        }
        pmd_perf_count_rx_batch(&pmd->perf, batch.count);
        if (UNLIKELY(q->tunnel)) {
            pmd_perf_add(&pmd->perf, PMD_STAT_TNL_DECAP, batch.count);
        }
        pipeline_process(pmd, &batch, q->port_no);
        if (!flush_us) {
            pmd_flush_tx(pmd);
        } else if (flush_at == UINT64_MAX) {
            flush_at = start + flush_us * pmd->cycles_per_us;
        }
        n_packets += batch.count;
        spent = cycles_now() - start;
        __atomic_store_n(&q->cycles, q->cycles + spent, __ATOMIC_RELAXED);
        *busy += spent;
    }
    if (pmd->n_dirty_tx) {
        uint64_t start = cycles_now();

        pmd_flush_tx(pmd);
        *busy += cycles_now() - start;
    }
    return n_packets;
}

/* Fills 'pmd->wait_fds' with the receive descriptors of every queue in
 * 'poll'.  Returns how many, or -1 if some queue has none to wait on. */
static int
pmd_collect_wait_fds(struct pmd *pmd, const struct pmd_poll_list *poll)
{
    size_t need = (size_t) poll->n * NETDEV_RXQ_MAX_WAIT_FDS;
    int n = 0;

    if (need > pmd->n_wait_fds_allocated) {
        pmd->wait_fds = xrealloc(pmd->wait_fds,
                                 need * sizeof *pmd->wait_fds);
        pmd->n_wait_fds_allocated = need;
    }
    for (int i = 0; i < poll->n; i++) {
        int fds[NETDEV_RXQ_MAX_WAIT_FDS];
        int n_q = netdev_rxq_wait_fds(poll->rxqs[i]->rxq, fds);

        if (!n_q) {
            return -1;
        }
        for (int j = 0; j < n_q; j++) {
            pmd->wait_fds[n].fd = fds[j];
            pmd->wait_fds[n].events = POLLIN;
            n++;
        }
    }
    return n;
}

/* Notes frames received at the poll that began at 'polled': the start of
 * a burst, for the prediction, if the PMD had been quiet. */
static void
pmd_sleep_note_rx(struct pmd *pmd, uint64_t polled, uint64_t now,
                  bool predict)
{
    if (predict && now - pmd->last_rx_cycles >= PMD_SPIN_US
                                                * pmd->cycles_per_us) {
        pmd_perf_add(&pmd->perf, PMD_STAT_WAKE_HITS,
                     polled < pmd->poll_until);
        /* Dated when the poll began, not after the frames were forwarded:
         * that took a while (the receiving stack runs within the send). */
        pmd_wake_burst(&pmd->wake, polled, pmd->woken_by_frames);
    }
    pmd->last_rx_cycles = now;
    pmd->poll_until = 0;
    pmd->woken_by_frames = false;
}

/* Waits up to 'wait' cycles for frames on the queues of 'poll'. */
static void
pmd_sleep_wait(struct pmd *pmd, const struct pmd_poll_list *poll,
               uint64_t wait, bool predict)
{
    int n_fds = pmd_collect_wait_fds(pmd, poll);
    uint64_t wait_ns = wait * 1000 / pmd->cycles_per_us;
    struct timespec ts = {
        .tv_sec = wait_ns / 1000000000,
        .tv_nsec = wait_ns % 1000000000,
    };
    uint64_t start = cycles_now();
    uint64_t took;
    int n_ready;

    if (n_fds >= 0) {
        n_ready = ppoll(pmd->wait_fds, n_fds, &ts, NULL);
    } else {
        n_ready = nanosleep(&ts, NULL) ? -1 : 0;
    }
    took = cycles_now() - start;
    pmd->woken_by_frames = n_ready > 0;
    if (predict && !n_ready) {
        pmd_wake_timed_out(&pmd->wake, wait, took);
    }
    pmd->now_ms = time_msec();
    pmd_perf_add(&pmd->perf, PMD_STAT_SLEEPS, 1);
    pmd_perf_add(&pmd->perf, PMD_STAT_SLEEP_US, took / pmd->cycles_per_us);
}

/* Load-based sleep (pmd-sleep-max).  A PMD that has received nothing for
 * PMD_SPIN_US waits in ppoll() on the receive descriptors of its queues,
 * for at most pmd-sleep-max microseconds at a time, and wakes as soon as a
 * frame arrives on any of them: under load it never waits, and when idle
 * it wakes only for frames and for that timeout.  The timeout bounds how
 * late a waiting PMD sees a new poll list, a request or its flow sweep.
 * It stays RCU-online while it waits, so a grace period waits for it (at
 * most pmd-sleep-max): the descriptors belong to its poll list, whose
 * sockets the control thread closes only after a grace period (ppoll()
 * holding a closed socket would keep it receiving, and deleting a tap),
 * and dp.c relies on every PMD having checked the slow path's generation
 * two grace periods after a change.  A queue whose provider has no
 * descriptor to wait on turns the wait into a plain nap of that length.
 *
 * With pmd-sleep-predict, the wait ends early and the PMD polls around
 * the time periodic traffic is due (pmd-wake.h).  'polled' is when this
 * iteration's poll began. */
static void
pmd_sleep_maybe(struct pmd *pmd, const struct pmd_poll_list *poll,
                uint32_t n_packets, uint64_t polled)
{
    const struct dp_settings *s = &pmd->dp->settings;
    uint32_t max_us = __atomic_load_n(&s->sleep_max_us, __ATOMIC_RELAXED);
    bool predict = __atomic_load_n(&s->sleep_predict, __ATOMIC_RELAXED);
    uint64_t now = cycles_now();
    uint64_t wait = max_us * pmd->cycles_per_us;
    struct pmd_wake_plan plan;

    if (!max_us || n_packets) {
        pmd_sleep_note_rx(pmd, polled, now, predict && n_packets);
        return;
    }
    if (now - pmd->last_rx_cycles < PMD_SPIN_US * pmd->cycles_per_us
        || now < pmd->poll_until) {
        return;
    }
    if (predict) {
        plan = pmd_wake_plan(&pmd->wake, now, wait);
        if (!plan.wait) {
            pmd->poll_until = plan.poll_until;
            pmd_perf_add(&pmd->perf, PMD_STAT_WAKE_POLLS, 1);
            return;
        }
        wait = plan.wait;
    }
    pmd_sleep_wait(pmd, poll, wait, predict);
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
    /* Short naps (pmd-sleep-max) would otherwise round up to the default
     * 50 us timer slack. */
    prctl(PR_SET_TIMERSLACK, PMD_TIMER_SLACK_NS, 0, 0, 0);
    rcu_register_thread();
    pmd->now_ms = time_msec();
    pmd->next_sweep_ms = pmd->now_ms + PMD_SWEEP_INTERVAL_MS;
    pmd_reval_start(pmd);
    pmd->cycles_per_us = MAX(1, pmd_perf_tsc_hz() / 1000000);
    pmd_wake_init(&pmd->wake, pmd->cycles_per_us);
    VLOG_INFO("pmd thread on core %d started", pmd->core_id);

    for (uint32_t idle = 0;
         !__atomic_load_n(&pmd->exit, __ATOMIC_ACQUIRE); ) {
        const struct pmd_poll_list *poll = rcu_read(pmd->poll);
        uint64_t start = cycles_now();
        struct pmd_request *req;
        uint32_t n;
        uint64_t busy;

        n = pmd_poll_once(pmd, poll, &busy);
        pmd_perf_add(&pmd->perf, PMD_STAT_ITERATIONS, 1);
        if (n) {
            pmd_perf_add(&pmd->perf, PMD_STAT_BUSY_ITERATIONS, 1);
        }
        /* Reading the clock took a sixth of an idle iteration, so idle
         * iterations read it only now and then: flow timestamps need
         * milliseconds, and an idle iteration takes well under one us.
         * Revalidation is looked at on every iteration, so that a
         * change is taken up at once and done a slice per iteration
         * (dp_wait_revalidated() waits for it). */
        if (n || !(++idle % PMD_IDLE_CLOCK_INTERVAL)) {
            pmd->now_ms = time_msec();
            pmd_housekeeping(pmd);
        } else if (pmd_reval_pending(pmd)) {
            pmd_housekeeping(pmd);
        }
        /* Pairs with the release in pmd_request_run(). */
        req = __atomic_load_n(&pmd->request, __ATOMIC_ACQUIRE);
        if (UNLIKELY(req)) {
            /* Cleared before pmd_serve_request() sets 'done': once the
             * control thread sees 'done' it frees 'req', so this thread
             * must never load the pointer again. */
            __atomic_store_n(&pmd->request, NULL, __ATOMIC_RELAXED);
            pmd_serve_request(pmd, req);
        }
        /* Everything but processing received frames is idle time:
         * empty polls, housekeeping, requests.  Naps are not counted. */
        pmd_perf_add(&pmd->perf, PMD_STAT_CYCLES_BUSY, busy);
        pmd_perf_add(&pmd->perf, PMD_STAT_CYCLES_IDLE,
                     cycles_now() - start - busy);
        pmd_sleep_maybe(pmd, poll, n, start);
        rcu_quiesce();
    }
    rcu_unregister();
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
        /* A request that timed out is served now, so that its memory is
         * complete when freed. */
        if (pmd->abandoned && !pmd->abandoned->done) {
            pmd_serve_request_here(pmd, pmd->abandoned);
        }
    }
}
