/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The datapath: one bridge's ports, the PMD threads that poll them, and
 * the slow path (ofproto) they call on a miss.  dp_create() opens every
 * port and starts the PMDs, or fails leaving nothing behind; dp_destroy()
 * stops the PMDs and closes the ports.  The control thread owns the dp;
 * PMDs reach the port table through 'ports', published with RCU.
 */
#ifndef DP_H
#define DP_H 1

#include <stdbool.h>
#include <stdint.h>
#include "config-other.h"
#include "netdev.h"
#include "pmd-perf.h"

struct pmd_config;
struct ofproto;
struct pmd;

#define DP_MAX_PORTS 256
#define DP_MAX_PMDS 64

struct dp_port {
    uint16_t port_no;           /* Index in dp->ports. */
    char *name;                 /* Port name from the config. */
    struct netdev *netdev;
};

/* Settings a PMD reads on every iteration; written by the control thread,
 * read relaxed. */
struct dp_settings {
    uint32_t emc_insert_inv_prob;
    bool smc_enable;
    uint32_t flow_idle_ms;
};

struct dp {
    char *name;                         /* Bridge name. */
    struct dp_port *ports[DP_MAX_PORTS]; /* RCU-published; NULL if free. */
    uint16_t n_ports;
    struct ofproto *ofproto;            /* NORMAL and, later, rules. */
    struct dp_settings settings;
    struct config_other other;          /* As configured (control thread). */
    struct pmd **pmds;
    int n_pmds;
    /* Counter values at the last pmd-stats-clear, per PMD (control
     * thread): PMD counters have one writer, so clearing subtracts. */
    uint64_t (*pmd_stats_base)[PMD_N_STATS];
};

/* Builds the datapath for the first bridge of 'cfg': opens each port with
 * the provider other_config selects, creates one PMD per core of
 * pmd-cpu-mask and assigns rx queues round-robin.  On failure returns
 * NULL and a message in '*errp' (to free), with every port closed again. */
struct dp *dp_create(const struct pmd_config *cfg, char **errp);
void dp_destroy(struct dp *);         /* Accepts NULL. */

/* Stops and joins every PMD thread (idempotent); the ports stay open. */
void dp_stop_pmds(struct dp *);

/* Periodic control-thread work: netdev_run(), MAC aging. */
void dp_run(struct dp *);

/* Registers the appctl commands that show the datapath: dpctl/show,
 * dpif-netdev/pmd-stats-show, dpif-netdev/pmd-stats-clear, fdb/show,
 * fdb/flush, other-config/list, other-config/get and memory/show.  'dp' must
 * outlive the unixctl server. */
void dp_register_commands(struct dp *);

/* Logs port and PMD counters as "stats:" lines and in Open vSwitch's
 * pmd-stats-show layout. */
void dp_log_stats(const struct dp *);

#endif /* dp.h */
