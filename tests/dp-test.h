/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * A datapath built by hand for tests and benchmarks that drive a PMD
 * without the kernel (tests/test-pipeline.c, bench/micro-pipeline.c):
 * bridges and bare ports (no netdev, so what a PMD sends to them is
 * counted as drop_port_gone) in the slots a real datapath would use.
 * Header-only.
 */
#ifndef TESTS_DP_TEST_H
#define TESTS_DP_TEST_H 1

#include <stdio.h>
#include <stdlib.h>
#include "base/rcu.h"
#include "base/util.h"
#include "dp/dp.h"
#include "dp/pmd.h"
#include "ofproto/ofproto.h"

/* Adds bridge 'name' to 'dp' at the first free index and returns it. */
static inline struct ofproto *
dp_test_add_bridge(struct dp *dp, const char *name)
{
    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        if (!dp->bridges[b]) {
            dp->bridges[b] = ofproto_create(name, 300);
            ofproto_attach(dp->bridges[b], b, &dp->ofproto_dp);
            return dp->bridges[b];
        }
    }
    abort();
}

/* Adds a bare port 'name' numbered 'port_no' to 'dp' on 'bridge', without
 * telling the bridge (the caller adds it with ofproto_port_add() or
 * ofproto_member_add()). */
static inline struct dp_port *
dp_test_add_port(struct dp *dp, struct ofproto *bridge, uint16_t port_no,
                 const char *name)
{
    struct dp_port *port = xzalloc(sizeof *port);

    port->port_no = port_no;
    port->name = xstrdup(name);
    port->ofproto = bridge;
    port->bond_port_no = DP_PORT_NONE;
    dp->ports[port_no] = port;
    return port;
}

/* A datapath with bridge "br0" and 'n_ports' plain ports p0, p1, ...
 * numbered from 0, and settings for a test: every flow enters the EMC,
 * SMC on. */
static inline struct dp *
dp_test_create(int n_ports)
{
    struct dp *dp = xzalloc(sizeof *dp);
    struct ofproto *br0;

    /* No PMD thread runs: the tests drive them, so a bridge that waits
     * for revalidation waits for grace periods only. */
    dp->ofproto_dp.change_seq = &dp->change_seq;
    br0 = dp_test_add_bridge(dp, "br0");

    for (int i = 0; i < n_ports; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%d", i);
        dp_test_add_port(dp, br0, i, name);
        if (ofproto_port_add(br0, i, name, NULL)) {
            abort();
        }
    }
    dp->settings.emc_insert_inv_prob = 1;
    dp->settings.smc_enable = true;
    dp->settings.gro_enable = true;
    dp->settings.flow_idle_ms = 10000;
    dp->settings.flow_limit = 200000;
    return dp;
}

/* Makes 'pmd' take the slow path's state as it is now as the one its
 * flows reflect, as a starting PMD does. */
static inline void
dp_test_pmd_sync(struct pmd *pmd)
{
    pmd_reval_start(pmd);
}

/* Frees 'pmd' (may be NULL) and 'dp' with its bridges and ports (their
 * bonds too), and the flows deleted meanwhile: rcu_barrier() waits for
 * them only while this thread is offline. */
static inline void
dp_test_destroy(struct dp *dp, struct pmd *pmd)
{
    pmd_destroy(pmd);
    rcu_offline();
    rcu_barrier();
    rcu_online();
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        if (dp->ports[i]) {
            bond_destroy(dp->ports[i]->bond);
            free(dp->ports[i]->name);
            free(dp->ports[i]);
        }
    }
    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        ofproto_destroy(dp->bridges[b]);
    }
    free(dp);
}

#endif /* tests/dp-test.h */
