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
#include "dp-batch.h"
#include "emc.h"
#include "flow.h"
#include "pmd-perf.h"
#include "smc.h"

struct dp;
struct dpcls;
struct netdev;
struct netdev_rxq;

#define PMD_MAX_RXQS 64

struct pmd_rxq {
    struct netdev_rxq *rxq;
    uint16_t port_no;
    uint64_t cycles;            /* Busy cycles spent on it (PMD only). */
};

/* One output port's pending transmit batch. */
struct pmd_tx {
    struct dp_batch batch;
};

struct pmd {
    /* Set by the control thread before the thread starts. */
    struct dp *dp;
    int core_id;
    int index;                  /* 0..n_pmds-1: also the tx queue id. */
    struct pmd_rxq rxqs[PMD_MAX_RXQS];
    int n_rxqs;
    pthread_t thread;
    bool started;               /* 'thread' runs (control thread). */
    bool exit;                  /* Control thread writes, PMD reads. */

    /* Counters: PMD writes, anyone reads. */
    struct pmd_perf_stats perf;

    /* PMD only. */
    struct emc_cache *emc;
    struct smc_cache smc;
    struct dpcls *cls[256];     /* Per input port, created on demand. */
    struct flow_table flows;
    struct pmd_tx *tx;          /* DP_MAX_PORTS pending batches. */
    uint16_t dirty_tx[256];     /* Ports with a non-empty tx batch. */
    uint16_t n_dirty_tx;
    uint64_t ofproto_gen;       /* Slow-path generation flows reflect. */
    long long next_sweep_ms;    /* Next idle-flow sweep and re-rank. */
    long long now_ms;           /* Time at the start of this iteration. */
};

/* Creates (but does not start) a PMD for 'core_id'. */
struct pmd *pmd_create(struct dp *, int core_id, int index);
void pmd_destroy(struct pmd *);        /* Accepts NULL.  Stopped first. */

/* Assigns 'rxq' of port 'port_no' to 'pmd' (before pmd_start()). */
void pmd_add_rxq(struct pmd *, struct netdev_rxq *rxq, uint16_t port_no);

/* Starts the thread; returns 0 or a positive errno. */
int pmd_start(struct pmd *);
/* Asks the thread to stop and joins it; no-op if it never started. */
void pmd_stop(struct pmd *);

/* Queues 'packet' for output on 'port_no' (PMD thread). */
void pmd_output(struct pmd *, uint16_t port_no, struct dp_packet *packet);

/* Sends every pending transmit batch (PMD thread). */
void pmd_flush_tx(struct pmd *);

/* Looks up or creates the classifier for 'in_port' (PMD thread). */
struct dpcls *pmd_get_dpcls(struct pmd *, uint16_t in_port);

/* One pass of the PMD's housekeeping: expire idle flows, revalidate flows
 * when the slow path changed, re-rank subtables (PMD thread). */
void pmd_housekeeping(struct pmd *);

#endif /* pmd.h */
