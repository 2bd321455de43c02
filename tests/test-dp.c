/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of the datapath's rx queue placement (dp_rxq_rebalance()): a
 * table of small cases with the placement written out by hand, for both
 * pmd-rxq-assign modes, and large random cases (thousands of queues)
 * checked against a model of the rules: queues in port order, or by
 * cycles busiest first (equal loads in port order); each onto the PMD
 * with the least load, then the fewest queues, then the lowest core; and
 * each PMD's poll list in port order.  The PMDs are not started: only
 * their poll lists are looked at.
 */
#include <autoconf.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dp/dp.h"
#include "dp/pmd.h"
#include "base/ds.h"
#include "base/util.h"

/* A datapath of 'n_pmds' PMDs on the cores in 'cores' (ascending) and
 * 'n_ports' bare ports p0, p1, ... with 'n_rxqs[i]' queues each, no
 * load yet. */
static struct dp *
make_dp(const int *cores, int n_pmds, const int *n_rxqs, int n_ports,
        enum config_rxq_assign assign)
{
    struct dp *dp = xzalloc(sizeof *dp);

    dp->other.pmd_rxq_assign = assign;
    dp->pmds = xcalloc(n_pmds, sizeof *dp->pmds);
    dp->n_pmds = n_pmds;
    for (int k = 0; k < n_pmds; k++) {
        dp->pmds[k] = pmd_create(dp, cores[k]);
    }
    for (int i = 0; i < n_ports; i++) {
        struct dp_port *port = xzalloc(sizeof *port);

        port->port_no = i;
        port->name = xasprintf("p%d", i);
        port->n_rxqs = n_rxqs[i];
        port->rxqs = xcalloc(n_rxqs[i], sizeof *port->rxqs);
        for (int q = 0; q < n_rxqs[i]; q++) {
            port->rxqs[q] = xzalloc(sizeof *port->rxqs[q]);
            port->rxqs[q]->port_no = i;
            port->rxqs[q]->qid = q;
        }
        dp->ports[i] = port;
    }
    return dp;
}

static void
destroy_dp(struct dp *dp)
{
    for (int k = 0; k < dp->n_pmds; k++) {
        pmd_destroy(dp->pmds[k]);
    }
    free(dp->pmds);
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        if (port) {
            for (int q = 0; q < port->n_rxqs; q++) {
                free(port->rxqs[q]);
            }
            free(port->rxqs);
            free(port->name);
            free(port);
        }
    }
    free(dp);
}

/* Gives queue 'q' of port 'port_no' a load of 'load' cycles. */
static void
set_load(struct dp *dp, int port_no, int q, uint64_t load)
{
    struct pmd_rxq *rxq = dp->ports[port_no]->rxqs[q];

    memset(rxq->intervals, 0, sizeof rxq->intervals);
    /* Spread over the intervals, as a minute of traffic would be. */
    rxq->intervals[0] = load / 2;
    rxq->intervals[PMD_RXQ_N_INTERVALS - 1] = load - load / 2;
}

/* The placement as "CORE:PORT/QUEUE ..." in the order of the PMDs and of
 * their poll lists, for the caller to free.  Checks that each queue's
 * 'pmd' agrees with the poll list it is in. */
static char *
placement(const struct dp *dp)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    for (int k = 0; k < dp->n_pmds; k++) {
        const struct pmd *pmd = dp->pmds[k];

        for (int i = 0; i < pmd->poll->n; i++) {
            const struct pmd_rxq *q = pmd->poll->rxqs[i];

            CHECK(q->pmd == pmd, "p%u/%d is on core %d's list but says "
                  "core %d", q->port_no, q->qid, pmd->core_id,
                  q->pmd ? q->pmd->core_id : -1);
            ds_put_format(&s, "%s%d:p%u/%d", s.length ? " " : "",
                          pmd->core_id, q->port_no, q->qid);
        }
    }
    return ds_steal_cstr(&s);
}

/* Hand-written cases.  'loads' follow the queues in port order. */
struct placement_case {
    const char *name;
    enum config_rxq_assign assign;
    int cores[4];
    int n_pmds;
    int n_rxqs[4];
    int n_ports;
    uint64_t loads[8];
    const char *expected;
};

static const struct placement_case cases[] = {
    { "round-robin alternates in port order",
      CONFIG_RXQ_ASSIGN_ROUNDROBIN, { 1, 3 }, 2, { 2, 1, 3 }, 3,
      { 100, 10, 50, 50, 0, 0 },
      "1:p0/0 1:p1/0 1:p2/1 3:p0/1 3:p2/0 3:p2/2" },
    { "round-robin over three",
      CONFIG_RXQ_ASSIGN_ROUNDROBIN, { 0, 1, 2 }, 3, { 4 }, 1, { 0 },
      "0:p0/0 0:p0/3 1:p0/1 2:p0/2" },
    { "cycles: busiest first onto the least loaded",
      CONFIG_RXQ_ASSIGN_CYCLES, { 1, 3 }, 2, { 2, 1, 3 }, 3,
      { 100, 10, 50, 50, 0, 0 },
      "1:p0/0 1:p0/1 3:p1/0 3:p2/0 3:p2/1 3:p2/2" },
    { "cycles: equal loads go in port order, fewest queues first",
      CONFIG_RXQ_ASSIGN_CYCLES, { 0, 1, 2 }, 3, { 2, 2 }, 2,
      { 7, 7, 7, 7 },
      "0:p0/0 0:p1/1 1:p0/1 2:p1/0" },
    { "cycles: idle queues spread like round-robin",
      CONFIG_RXQ_ASSIGN_CYCLES, { 2, 5 }, 2, { 1, 1, 1 }, 3, { 0 },
      "2:p0/0 2:p2/0 5:p1/0" },
    { "cycles: one heavy queue keeps a PMD to itself",
      CONFIG_RXQ_ASSIGN_CYCLES, { 0, 1 }, 2, { 4 }, 1,
      { 1000, 10, 20, 30 },
      "0:p0/0 1:p0/1 1:p0/2 1:p0/3" },
    { "one PMD polls everything",
      CONFIG_RXQ_ASSIGN_CYCLES, { 4 }, 1, { 1, 2 }, 2, { 5, 9, 1 },
      "4:p0/0 4:p1/0 4:p1/1" },
};

static void
test_cases(void)
{
    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        const struct placement_case *pc = &cases[c];
        struct dp *dp = make_dp(pc->cores, pc->n_pmds, pc->n_rxqs,
                                pc->n_ports, pc->assign);
        size_t n = 0;
        char *got;

        check_set_context("%s", pc->name);
        for (int p = 0; p < pc->n_ports; p++) {
            for (int q = 0; q < pc->n_rxqs[p]; q++) {
                set_load(dp, p, q, pc->loads[n++]);
            }
        }
        dp_rxq_rebalance(dp);
        got = placement(dp);
        CHECK_STR(got, pc->expected);
        free(got);

        /* Placing again without a change moves nothing. */
        dp_rxq_rebalance(dp);
        got = placement(dp);
        CHECK_STR(got, pc->expected);
        free(got);
        destroy_dp(dp);
    }
    check_set_context("%s", "");
}

/* The model: where each queue goes, by the rules in the file comment.
 * 'loads' and the result 'owner' (an index into the PMDs) follow the
 * queues in port order. */
static void
model_assign(const uint64_t *loads, int n, int n_pmds, bool by_cycles,
             int *owner)
{
    uint64_t pmd_load[DP_MAX_PMDS] = { 0 };
    int pmd_queues[DP_MAX_PMDS] = { 0 };
    bool *done = xcalloc(n, sizeof *done);

    for (int step = 0; step < n; step++) {
        int best = -1;
        int k = 0;

        /* The next queue: the first in port order, or the busiest (the
         * first in port order among equals).  Quadratic, as a model may
         * be. */
        for (int i = 0; i < n; i++) {
            if (!done[i]
                && (best < 0 || (by_cycles && loads[i] > loads[best]))) {
                best = i;
            }
        }
        done[best] = true;
        for (int j = 1; j < n_pmds; j++) {
            uint64_t lj = by_cycles ? pmd_load[j] : 0;
            uint64_t lk = by_cycles ? pmd_load[k] : 0;

            if (lj < lk || (lj == lk && pmd_queues[j] < pmd_queues[k])) {
                k = j;
            }
        }
        owner[best] = k;
        pmd_load[k] += loads[best];
        pmd_queues[k]++;
    }
    free(done);
}

/* 'n_ports' ports of 'per_port' queues on 'n_pmds' PMDs, loads drawn
 * from a fixed seed with many ties; the placement must be the model's. */
static void
test_large(int n_ports, int per_port, int n_pmds,
           enum config_rxq_assign assign)
{
    int *n_rxqs = xcalloc(n_ports, sizeof *n_rxqs);
    int n = n_ports * per_port;
    uint64_t *loads = xcalloc(n, sizeof *loads);
    int *owner = xcalloc(n, sizeof *owner);
    int cores[DP_MAX_PMDS];
    struct ds want = DS_EMPTY_INITIALIZER;
    unsigned int seed = 12345;
    struct dp *dp;
    char *got;

    for (int k = 0; k < n_pmds; k++) {
        cores[k] = 2 * k + 1;
    }
    for (int i = 0; i < n_ports; i++) {
        n_rxqs[i] = per_port;
    }
    dp = make_dp(cores, n_pmds, n_rxqs, n_ports, assign);
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245 + 12345;
        loads[i] = (seed >> 16) % 50 * 1000;      /* 50 values: ties. */
        set_load(dp, i / per_port, i % per_port, loads[i]);
    }

    dp_rxq_rebalance(dp);
    model_assign(loads, n, n_pmds, assign == CONFIG_RXQ_ASSIGN_CYCLES,
                 owner);
    for (int k = 0; k < n_pmds; k++) {
        for (int i = 0; i < n; i++) {
            if (owner[i] == k) {
                ds_put_format(&want, "%s%d:p%d/%d", want.length ? " " : "",
                              cores[k], i / per_port, i % per_port);
            }
        }
    }
    got = placement(dp);
    CHECK(!strcmp(got, ds_cstr(&want)), "%d queues on %d PMDs (%s): "
          "placement differs from the model", n, n_pmds,
          assign == CONFIG_RXQ_ASSIGN_CYCLES ? "cycles" : "roundrobin");
    free(got);

    ds_destroy(&want);
    destroy_dp(dp);
    free(loads);
    free(owner);
    free(n_rxqs);
}

int
main(void)
{
    test_cases();
    test_large(100, 3, 3, CONFIG_RXQ_ASSIGN_CYCLES);
    test_large(DP_MAX_PORTS, 2, 8, CONFIG_RXQ_ASSIGN_CYCLES);
    test_large(DP_MAX_PORTS, 2, 5, CONFIG_RXQ_ASSIGN_ROUNDROBIN);
    return check_finish("test-dp");
}
