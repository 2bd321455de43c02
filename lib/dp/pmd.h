/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Poll-mode threads.  A PMD is pinned to one core, polls the rx queues
 * assigned to it in turn, runs each received batch through the pipeline
 * and flushes its transmit batches after every batch.  It never blocks or
 * takes a lock on the packet path: shared state is read through RCU (QSBR;
 * the PMD announces a quiescent state once per loop iteration).
 *
 * Everything in struct pmd below "PMD only" is touched by the PMD thread
 * alone; the control thread creates and joins the thread and reads the
 * counters.
 */
#ifndef PMD_H
#define PMD_H 1

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "dp/dp.h"             /* DP_MAX_PORTS. */
#include "packet/dp-batch.h"
#include "classifier/emc.h"
#include "classifier/dp-flow.h"
#include "packet/miniflow.h"
#include "dp/dp-actions-execute.h"
#include "dp/pmd-perf.h"
#include "dp/tx-gro.h"
#include "dp/tx-gso.h"
#include "dp/pmd-reval.h"
#include "dp/pmd-wake.h"
#include "classifier/smc.h"

struct pollfd;

struct dp;
struct dpcls;
struct netdev;
struct netdev_rxq;

/* Usage history of an rx queue: PMD_RXQ_N_INTERVALS intervals of
 * PMD_RXQ_INTERVAL_MS each, so that pmd-rxq-show and cycle-based
 * assignment look at the last minute. */
#define PMD_RXQ_INTERVAL_MS 1000
#define PMD_RXQ_N_INTERVALS 60

/* An rx queue of a port, as the datapath schedules it.  The dp creates one
 * per netdev rx queue and hands pointers to PMDs through poll lists; at
 * any time at most one PMD polls it (see dp.c's two-step reassignment). */
struct pmd_rxq {
    struct netdev_rxq *rxq;     /* Set at creation. */
    uint16_t port_no;
    int qid;
    bool tunnel;                /* Of a tunnel port (counted as
                                 * decapsulated). */

    /* Written by the PMD that polls it, read relaxed by anyone. */
    uint64_t cycles;            /* Busy cycles spent on it. */

    /* Control thread only. */
    struct pmd *pmd;            /* Assigned PMD, or NULL. */
    uint64_t last_cycles;       /* 'cycles' at the last interval end. */
    uint64_t intervals[PMD_RXQ_N_INTERVALS]; /* Busy cycles per interval. */
};

/* The rx queues one PMD polls: RCU-published by the control thread,
 * replaced whole, never changed in place. */
struct pmd_poll_list {
    int n;
    struct pmd_rxq *rxqs[];
};

/* What crossed one patch port to its peer on one PMD
 * (DP_ACTION_PATCH): sent on the patch port, received on its peer. */
struct pmd_patch_stats {
    uint64_t packets;
    uint64_t bytes;
};

/* What a PMD merged and cut on the way out of one port (the tx_gro_* and
 * tx_gso_* of struct netdev_stats). */
struct pmd_tx_offload_stats {
    uint64_t gro_segments;
    uint64_t gro_frames;
    uint64_t gso_frames;
    uint64_t gso_segments;
};

/* Adds 'n' to the per-port counter '*c': its PMD is its only writer, the
 * control thread reads it relaxed (dp_port_get_stats()). */
static inline void
pmd_tx_offload_add(uint64_t *c, uint64_t n)
{
    __atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/* One output port's pending transmit batch. */
struct pmd_tx {
    struct dp_batch batch;
};

/* A megaflow as pmd_request_run() copies it out of a PMD's flow table. */
struct pmd_flow_entry {
    struct flow flow;           /* Masked match. */
    struct flow mask;
    uint16_t in_port;
    uint64_t n_packets;
    uint64_t n_bytes;
    long long used;             /* msec of last hit, 0 if never. */
    long long created;          /* msec. */
    uint16_t tcp_flags;
    const struct rule_stats *rule_stats; /* The rule that decided, or
                                          * NULL (see struct dp_flow). */
    uint32_t n_actions;
    struct dp_action *actions;  /* Owned by the entry. */
};

enum pmd_request_type {
    PMD_REQUEST_DUMP_FLOWS,     /* Copy every flow out. */
    PMD_REQUEST_DEL_FLOWS,      /* Delete every flow. */
    PMD_REQUEST_TEST_STALL,     /* Tests only: stop for 'stall_ms', as a
                                 * stuck PMD would. */
};

/* Work the control thread hands to a PMD, which does it between two
 * iterations: only the owner touches its flow table. */
struct pmd_request {
    enum pmd_request_type type;
    bool done;                  /* Set by the PMD (release) when done. */
    int stall_ms;               /* PMD_REQUEST_TEST_STALL. */
    /* Results, valid once 'done'. */
    struct pmd_flow_entry *flows;
    size_t n_flows;
    uint32_t n_deleted;
};

/* Transient flows (misses over the flow limit) that a PMD's pool holds:
 * up to this many actions each, cache-line sized slots. */
#define PMD_TRANSIENT_MAX_ACTIONS 64
#define PMD_TRANSIENT_FLOW_SIZE \
    ROUND_UP(DP_FLOW_SIZE(PMD_TRANSIENT_MAX_ACTIONS), CACHE_LINE_SIZE)

struct pmd {
    /* Set by the control thread before the thread starts. */
    struct dp *dp;
    int core_id;
    unsigned int bond_slot;     /* Its bond load counters, < BOND_MAX_PMDS,
                                 * and its tx queue on every port, <
                                 * dp->n_txq; unique among running PMDs. */
    pthread_t thread;
    bool started;               /* 'thread' runs (control thread). */
    bool exit;                  /* Control thread writes, PMD reads. */

    /* Control thread writes (RCU or release), PMD reads. */
    struct pmd_poll_list *poll; /* Rx queues to poll; never NULL. */
    struct pmd_request *request; /* Pending request, or NULL: set by the
                                  * control thread, cleared by the PMD when
                                  * it takes the request. */

    /* Counters: PMD writes, anyone reads. */
    struct pmd_perf_stats perf;
    struct pmd_patch_stats *patch; /* DP_MAX_PORTS, by patch port number;
                                    * the control thread zeroes a removed
                                    * port's once no PMD can cross it. */
    uint64_t *tx_down;          /* DP_MAX_PORTS, by port number: frames
                                 * not sent because the port's link was
                                 * down; zeroed like 'patch'. */
    struct pmd_tx_offload_stats *tx_offload; /* DP_MAX_PORTS, by port
                                 * number: merging and cutting on the way
                                 * out; zeroed like 'patch'. */

    /* Control thread only. */
    struct pmd_perf_snapshot stats_base; /* At the last pmd-stats-clear. */
    uint64_t last_total_cycles; /* Idle + busy at the last interval end. */
    uint64_t intervals[PMD_RXQ_N_INTERVALS]; /* Idle + busy per interval. */
    struct pmd_request *abandoned; /* A request that timed out, until the
                                    * next request after the PMD served
                                    * it. */
    uint64_t watch_iterations;  /* For pmd_stalled_ms(): the iteration */
    long long watch_since_ms;   /* count seen, and since when. */

    /* PMD only. */
    struct emc_cache *emc;
    struct smc_cache smc;
    struct dpcls *cls[DP_MAX_PORTS]; /* Per input port, made on demand. */
    struct dp_flow_table flows;
    struct pmd_tx *tx;          /* DP_MAX_PORTS pending batches. */
    uint16_t dirty_tx[DP_MAX_PORTS]; /* Ports with a non-empty tx batch. */
    uint16_t n_dirty_tx;
    uint8_t *transient_pool;    /* DP_BATCH_SIZE flows of at most
                                 * PMD_TRANSIENT_MAX_ACTIONS actions, for
                                 * misses over the flow limit
                                 * (pipeline.c). */
    struct tx_gso tx_gso;       /* Segment buffers (tx-gso.h). */
    struct tx_gro tx_gro;       /* Merge state and buffers (tx-gro.h). */
    struct dp_actions_clone_pool clones; /* Copy-on-write packets; all unused
                                   * again after pmd_flush_tx(). */
    struct pmd_reval reval;     /* How far the flows reflect the slow
                                 * path; its 'done_seq' is read by the
                                 * control thread. */
    long long next_sweep_ms;    /* Next idle-flow sweep and re-rank. */
    long long now_ms;           /* Time at the start of this iteration. */
    uint64_t last_rx_cycles;    /* cycles_now() of the last frame. */
    struct pmd_wake wake;       /* When the next burst is due. */
    uint64_t poll_until;        /* cycles_now() until which an idle PMD
                                 * polls for a burst due. */
    bool woken_by_frames;       /* The last wait ended with frames. */
    struct pollfd *wait_fds;    /* For pmd-sleep-max waits. */
    size_t n_wait_fds_allocated;
    uint64_t cycles_per_us;     /* cycles_now() ticks per microsecond. */
};

/* Creates (but does not start) a PMD for 'core_id', with an empty poll
 * list. */
struct pmd *pmd_create(struct dp *, int core_id);
void pmd_destroy(struct pmd *);        /* Accepts NULL.  Stopped first. */

/* Publishes 'rxqs' (an array of 'n') as the rx queues 'pmd' polls.  The
 * PMD switches at its next iteration.  Returns the old list, which the
 * caller frees with free() after synchronize_rcu(): the control thread is
 * no RCU reader, so it cannot use call_rcu().  Control thread. */
struct pmd_poll_list *pmd_set_poll_list(struct pmd *,
                                        struct pmd_rxq *const *rxqs, int n);

/* Copies 'p', dropped for 'reason' (on its way to 'out_port', or
 * DP_PORT_NONE), if drops are being captured (dp-capture.h).  PMD. */
enum dp_drop_reason;
void pmd_capture_drop(const struct pmd *, const struct dp_packet *p,
                        enum dp_drop_reason reason, uint16_t out_port);

/* Returns how long, in ms up to 'now_ms', 'pmd''s loop has not gone round
 * as far as calls of this function have seen: 0 if it went round since
 * the last call.  A running PMD goes round every few microseconds, asleep
 * at most pmd-sleep-max, so a long stall means a stuck thread.  0 for a
 * PMD whose thread does not run.  Control thread. */
long long pmd_stalled_ms(struct pmd *, long long now_ms);

/* Has 'pmd' carry out 'req' and waits for it, at most 'timeout_ms'.
 * Returns 0, ETIMEDOUT (then 'req' now belongs to the PMD: allocate it
 * with malloc; it is freed once the PMD has served it and a later request
 * comes, or with the PMD), or EBUSY if an earlier request timed out and
 * the PMD has not served it yet.  A PMD whose thread is not running is
 * served on the calling thread.  Control thread. */
int pmd_request_run(struct pmd *, struct pmd_request *req, int timeout_ms);

/* Frees the results of 'req' (not 'req' itself). */
void pmd_request_uninit(struct pmd_request *req);

/* Starts the thread; returns 0 or a positive errno. */
int pmd_start(struct pmd *);
/* Asks the thread to stop and joins it; no-op if it never started. */
void pmd_stop(struct pmd *);

/* Deletes 'flow' from the PMD's classifier and flow table, crediting its
 * counts to its rule.  The caller purges the EMC before the thread's next
 * quiescent state (emc_purge_dead()).  PMD thread. */
void pmd_remove_flow(struct pmd *, struct dp_flow *);

/* Queues 'packet' for output on 'port_no' (PMD thread). */
void pmd_output(struct pmd *, uint16_t port_no, struct dp_packet *packet);

/* Queues 'packet' for output on a member of bond port 'port_no', chosen
 * by 'hash' (or by the packet's RSS hash, computed once on receive, if
 * 'hash' is 0) through the bond's bucket map, and adds its size to the
 * bucket's load: the one place where DP_ACTION_BOND_OUTPUT reaches the
 * bond code.  If the bond has no enabled member (or is gone), counts the
 * packet in PMD_STAT_DROP_BOND_OUTPUT instead (PMD thread). */
void pmd_output_bond(struct pmd *, uint16_t port_no, uint32_t hash,
                     struct dp_packet *packet);

/* Sends every pending transmit batch, then makes every clone of the PMD's
 * clone pool unused again (PMD thread). */
void pmd_flush_tx(struct pmd *);

/* Looks up or creates the classifier for 'in_port' (PMD thread). */
struct dpcls *pmd_get_dpcls(struct pmd *, uint16_t in_port);

/* One pass of the PMD's housekeeping: expire idle flows, revalidate flows
 * when the slow path changed, re-rank subtables (PMD thread). */
void pmd_housekeeping(struct pmd *);

#endif /* pmd.h */
