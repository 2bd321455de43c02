/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Building, changing and tearing down the datapath.  Everything here runs
 * on the control thread; what PMDs read is published with RCU (see dp.h).
 */
#include <autoconf.h>
#include "dp/dp.h"
#include "dp/dp-capture.h"
#include "dp/dp-private.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofproto/bond.h"
#include "config/config.h"
#include "config/config-check.h"
#include "ofproto/mac-learning.h"
#include "netdev/netdev.h"
#include "ofproto/ofproto-rules.h"
#include "dp/pmd.h"
#include "dp/pmd-perf.h"
#include "base/rcu.h"
#include "ofproto/ofproto.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(dp);

/* Fills 'cores' with the PMD cores of 'other': pmd-cpu-mask's, or the
 * highest-numbered online core this process may run on when it is unset.
 * A core must be online and in the process's CPU affinity: the count of
 * online cores alone may claim cores that a container or taskset leaves
 * out.  Returns how many, or 0 with '*errp'. */
static int
dp_pmd_cores(const struct config_other *other, int n_cpus, int cores[],
             char **errp)
{
    cpu_set_t allowed;
    int n = 0;

    if (sched_getaffinity(0, sizeof allowed, &allowed)) {
        CPU_ZERO(&allowed);
        for (int cpu = 0; cpu < n_cpus && cpu < CPU_SETSIZE; cpu++) {
            CPU_SET(cpu, &allowed);
        }
    }
    if (!other->set[CONFIG_OTHER_PMD_CPU_MASK] || !other->pmd_cpu_mask[0]) {
        cores[0] = n_cpus - 1;
        for (int cpu = MIN(n_cpus, CPU_SETSIZE) - 1; cpu >= 0; cpu--) {
            if (CPU_ISSET(cpu, &allowed)) {
                cores[0] = cpu;
                break;
            }
        }
        return 1;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &other->pmd_cpus)) {
            continue;
        }
        if (cpu >= n_cpus) {
            *errp = xasprintf("pmd-cpu-mask %s names core %d, but this "
                              "machine has cores 0 to %d",
                              other->pmd_cpu_mask, cpu, n_cpus - 1);
            return 0;
        }
        if (!CPU_ISSET(cpu, &allowed)) {
            *errp = xasprintf("pmd-cpu-mask %s names core %d, which is "
                              "not in pmdswitchd's CPU affinity (%d of "
                              "%d cores allowed)", other->pmd_cpu_mask, cpu,
                              CPU_COUNT(&allowed), n_cpus);
            return 0;
        }
        if (n >= DP_MAX_PMDS) {
            *errp = xasprintf("pmd-cpu-mask %s names more than %d cores",
                              other->pmd_cpu_mask, DP_MAX_PMDS);
            return 0;
        }
        cores[n++] = cpu;
    }
    if (!n) {
        *errp = xasprintf("pmd-cpu-mask %s names no core",
                          other->pmd_cpu_mask);
    }
    return n;
}

/* Fills 's' with the VLAN settings of config port 'cp'.  Returns 0 or
 * EINVAL (see ofproto_port_settings_init()). */
static int
dp_port_vlan_settings(const struct config_port *cp,
                      struct ofproto_port_settings *s)
{
    return ofproto_port_settings_init(s,
                                      config_vlan_mode_to_string(
                                          cp->vlan_mode),
                                      cp->tag, cp->trunks, cp->n_trunks);
}

char *
dp_check_config(const struct pmd_config *cfg)
{
    size_t n_ports = 0;
    char *error;

    if (cfg->n_bridges > DP_MAX_BRIDGES) {
        return xasprintf("at most %d bridges are supported, the config has "
                         "%zu", DP_MAX_BRIDGES, cfg->n_bridges);
    }
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_bridge *br = &cfg->bridges[b];

        /* Each bond member is a datapath port of its own. */
        n_ports += br->n_ports;
        for (size_t i = 0; i < br->n_ports; i++) {
            n_ports += br->ports[i].n_members;
        }
    }
    if (n_ports > DP_MAX_PORTS) {
        return xasprintf("at most %d ports are supported, counting each "
                         "bond member, the config has %zu", DP_MAX_PORTS,
                         n_ports);
    }
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_bridge *br = &cfg->bridges[b];

        for (size_t i = 0; i < br->n_ports; i++) {
            const struct config_port *p = &br->ports[i];
            struct ofproto_port_settings s;

            /* A member's datapath port is named after its interface. */
            for (size_t j = 0; j < p->n_members; j++) {
                for (size_t c = 0; c < cfg->n_bridges; c++) {
                    if (config_bridge_find_port(&cfg->bridges[c],
                                                p->members[j])) {
                        return xasprintf("port %s: member interface %s has "
                                         "the name of a port; rename that "
                                         "port", p->name, p->members[j]);
                    }
                }
            }
            /* config.c has checked these; this keeps a hand-built config
             * from getting a port that silently carries no VLAN. */
            if (dp_port_vlan_settings(p, &s)) {
                return xasprintf("port %s: inconsistent VLAN settings "
                                 "(\"vlan_mode\": \"%s\", \"tag\": %d, "
                                 "%zu \"trunks\")", p->name,
                                 config_vlan_mode_to_string(p->vlan_mode),
                                 p->tag, p->n_trunks);
            }
        }
    }
    /* The caller that knows the file name checks first, for a better
     * message; this catches the others. */
    error = config_check_rules(cfg, NULL);
    return error;
}

/* What dp_rule_port_lookup() resolves names against. */
struct dp_rule_ports__ {
    const struct dp *dp;
    const struct ofproto *bridge;
};

/* Resolves port 'name' of the bridge in 'aux_' for rule parsing. */
static bool
dp_rule_port_lookup(const char *name, uint16_t *port_no, void *aux_)
{
    const struct dp_rule_ports__ *aux = aux_;

    return dp_bridge_port_lookup(aux->dp, aux->bridge, name, port_no);
}

char *
dp_set_rules(struct dp *dp, const struct config_bridge *br)
{
    struct ofproto *bridge = dp_bridge_lookup(dp, br->name);
    struct dp_rule_ports__ aux = { dp, bridge };
    struct ofproto_rule **rules;
    long long now = time_msec();

    if (!bridge) {
        return xasprintf("no bridge named %s", br->name);
    }
    rules = xcalloc(br->n_rules + 1, sizeof *rules);
    for (size_t i = 0; i < br->n_rules; i++) {
        const struct config_rule *r = &br->rules[i];
        char *error = ofproto_rule_create(r->priority, r->cookie, r->match,
                                          r->actions, dp_rule_port_lookup,
                                          &aux, &rules[i]);

        if (error) {
            char *msg = xasprintf("%d:%d: rule %s", r->line, r->column,
                                  error);

            free(error);
            for (size_t j = 0; j < i; j++) {
                ofproto_rule_destroy(rules[j]);
            }
            free(rules);
            return msg;
        }
        rules[i]->created = now;
    }
    ofproto_set_rules(bridge, rules, br->n_rules);
    ofproto_set_rules_edited(bridge, false);
    free(rules);
    return NULL;
}

/* Bridges. */

struct ofproto *
dp_bridge_lookup(const struct dp *dp, const char *name)
{
    struct ofproto *bridge;

    DP_FOR_EACH_BRIDGE (bridge, dp) {
        if (!strcmp(ofproto_name(bridge), name)) {
            return bridge;
        }
    }
    return NULL;
}

bool
dp_bridge_port_lookup(const struct dp *dp, const struct ofproto *bridge,
                      const char *name, uint16_t *port_no)
{
    const struct dp_port *port = dp_port_lookup(dp, name);

    if (!port || port->ofproto != bridge) {
        return false;
    }
    *port_no = port->port_no;
    return true;
}

/* Gives 'bridge''s MAC table the sizes and rates of 'other'. */
static void
dp_bridge_apply_mac_settings(struct ofproto *bridge,
                             const struct config_other *other)
{
    struct mac_learning *ml = ofproto_mac_learning(bridge);

    mac_learning_set_max_entries(ml, other->mac_table_size);
    mac_learning_set_learn_rate(ml, other->mac_learn_rate);
}

void
dp_wait_revalidated(struct dp *dp)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 1);
    /* Pairs with the release increments by the bridges: every change
     * made before this call is counted at or below 'target'. */
    uint64_t target = __atomic_load_n(&dp->change_seq, __ATOMIC_ACQUIRE);
    long long start = time_msec();

    for (int i = 0; i < dp->n_pmds; i++) {
        struct pmd *pmd = dp->pmds[i];

        if (!pmd->started) {
            continue;
        }
        /* Pairs with the release store in pmd_reval_run().  A PMD takes
         * a change up on its next iteration and finishes it a slice per
         * iteration; a nap (pmd-sleep-max) delays it by the nap. */
        while (__atomic_load_n(&pmd->reval.done_seq, __ATOMIC_ACQUIRE)
               < target) {
            struct timespec ts = { 0, 20 * 1000 };

            if (time_msec() - start > 1000) {
                VLOG_WARN_RL(&rl, "pmd thread on core %d has not caught up "
                             "with the slow path after %lld ms",
                             pmd->core_id, time_msec() - start);
            }
            nanosleep(&ts, NULL);
        }
    }
    /* No translation that started before the change is still running:
     * whatever it decided has been revalidated or is not installed. */
    rcu_synchronize();
}

static void
dp_wait_revalidated_cb(void *dp)
{
    dp_wait_revalidated(dp);
}

struct ofproto *
dp_bridge_add(struct dp *dp, const char *name)
{
    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        if (!dp->bridges[b]) {
            struct ofproto *bridge = ofproto_create(name,
                                                    dp->other.mac_aging_time);

            dp_bridge_apply_mac_settings(bridge, &dp->other);
            ofproto_attach(bridge, b, &dp->ofproto_dp);
            rcu_publish(dp->bridges[b], bridge);
            dp->n_bridges++;
            VLOG_INFO("bridge %s: created", name);
            return bridge;
        }
    }
    return NULL;
}

void
dp_bridge_remove(struct dp *dp, struct ofproto *bridge)
{
    char *name = xstrdup(ofproto_name(bridge));

    /* Bonds take their members with them; patch peers are unlinked. */
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        if (port && port->ofproto == bridge
            && port->bond_port_no == DP_PORT_NONE) {
            dp_port_remove(dp, port);
        }
    }
    rcu_publish(dp->bridges[ofproto_index(bridge)], NULL);
    dp->n_bridges--;
    /* No PMD translates with it now (its ports are gone, and no patch
     * port leads into it); one that still holds the pointer from
     * pmd_changed_bridges() has let go after this. */
    rcu_synchronize();
    ofproto_destroy(bridge);
    VLOG_INFO("bridge %s: removed", name);
    free(name);
}

/* Rx queue assignment. */

/* Busy cycles 'q' used over the kept intervals. */
static uint64_t
dp_rxq_load(const struct pmd_rxq *q)
{
    uint64_t sum = 0;

    for (int i = 0; i < PMD_RXQ_N_INTERVALS; i++) {
        sum += q->intervals[i];
    }
    return sum;
}

/* Iterates 'Q' over every rx queue of every port of 'DP', with 'PORT' the
 * queue's port. */
#define DP_FOR_EACH_RXQ(Q, PORT, DP)                                      \
    for (int p__ = 0; p__ < DP_MAX_PORTS; p__++)                          \
        if (((PORT) = (DP)->ports[p__]) != NULL)                          \
            for (int q__ = 0; q__ < (PORT)->n_rxqs                        \
                              && ((Q) = (PORT)->rxqs[q__], true); q__++)

/* The index of the PMD with the least 'load' (then the fewest queues,
 * then the lowest core; 'pmds' are sorted by core). */
static int
dp_least_loaded(int n_pmds, const uint64_t load[], const int n_queues[])
{
    int best = 0;

    for (int i = 1; i < n_pmds; i++) {
        if (load[i] < load[best]
            || (load[i] == load[best] && n_queues[i] < n_queues[best])) {
            best = i;
        }
    }
    return best;
}

/* A queue's place in the assignment order, with its load computed once. */
struct dp_rxq_order {
    uint64_t load;
    int index;                  /* In the caller's array. */
};

/* Busiest first; equal loads in the caller's (port) order, so that the
 * result does not depend on the sort algorithm. */
static int
dp_compare_rxq_order(const void *a_, const void *b_)
{
    const struct dp_rxq_order *a = a_;
    const struct dp_rxq_order *b = b_;

    if (a->load != b->load) {
        return a->load < b->load ? 1 : -1;
    }
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Gives each rx queue in 'rxqs' (an array of 'n') a PMD in 'next' by
 * pmd-rxq-assign: round-robin in port order, or by cycles, busiest queue
 * first onto the least-loaded PMD.  'load' and 'n_queues' start with what
 * the PMDs carry already and are updated.  O(n log n + n * n_pmds). */
void
dp_assign(const struct dp *dp, struct pmd_rxq **rxqs, int n,
          struct pmd **next, uint64_t load[], int n_queues[])
{
    bool by_cycles = dp->other.pmd_rxq_assign == CONFIG_RXQ_ASSIGN_CYCLES;
    uint64_t no_load[DP_MAX_PMDS] = { 0 };
    struct dp_rxq_order *order = xcalloc(n + 1, sizeof *order);

    for (int i = 0; i < n; i++) {
        order[i].load = dp_rxq_load(rxqs[i]);
        order[i].index = i;
    }
    if (by_cycles) {
        qsort(order, n, sizeof *order, dp_compare_rxq_order);
    }
    for (int i = 0; i < n; i++) {
        int k = dp_least_loaded(dp->n_pmds, by_cycles ? load : no_load,
                                n_queues);

        next[order[i].index] = dp->pmds[k];
        load[k] += order[i].load;
        n_queues[k]++;
    }
    free(order);
}

/* An rx queue and its index in an array, sorted by address to find a
 * queue's index in O(log n). */
struct dp_rxq_index {
    const struct pmd_rxq *q;
    int index;
};

static int
dp_compare_rxq_index(const void *a_, const void *b_)
{
    uintptr_t a = (uintptr_t) ((const struct dp_rxq_index *) a_)->q;
    uintptr_t b = (uintptr_t) ((const struct dp_rxq_index *) b_)->q;

    return a < b ? -1 : a > b;
}

/* The index of 'q' in the array that 'sorted' (an array of 'n') was made
 * from, or -1. */
static int
dp_rxq_index_find(const struct dp_rxq_index *sorted, int n,
                  const struct pmd_rxq *q)
{
    struct dp_rxq_index key = { .q = q };
    const struct dp_rxq_index *found;

    found = bsearch(&key, sorted, n, sizeof *sorted, dp_compare_rxq_index);
    return found ? found->index : -1;
}

/* The index of 'pmd' in dp->pmds, or -1 for one that is not there (a PMD
 * on its way out). */
static int
dp_pmd_index(const struct dp *dp, const struct pmd *pmd)
{
    for (int k = 0; k < dp->n_pmds; k++) {
        if (dp->pmds[k] == pmd) {
            return k;
        }
    }
    return -1;
}

/* Every rx queue of the datapath, in port order, into a new array with
 * room for 'extra' more. */
static struct pmd_rxq **
dp_all_rxqs(const struct dp *dp, int extra, int *n)
{
    struct pmd_rxq **rxqs;
    struct dp_port *port;
    struct pmd_rxq *q;
    int n_all = 0;

    DP_FOR_EACH_RXQ (q, port, dp) {
        n_all++;
    }
    rxqs = xcalloc(n_all + extra + 1, sizeof *rxqs);
    *n = 0;
    DP_FOR_EACH_RXQ (q, port, dp) {
        rxqs[(*n)++] = q;
    }
    return rxqs;
}

/* Publishes poll lists so that each queue in 'rxqs' (an array of 'n';
 * they may belong to a port not attached yet) ends up polled by 'next[i]'
 * (NULL: by nobody), other queues staying where they are.  A queue that
 * moves is first taken off its old PMD and given to the new one only
 * after a grace period, so no queue is ever polled by two PMDs at once;
 * its frames wait in the kernel meanwhile.  Each poll list is in port
 * order, then the queues of ports not attached yet in 'rxqs' order.
 * O(N log N + N * n_pmds) for N queues in all. */
void
dp_move_rxqs(struct dp *dp, struct pmd_rxq **rxqs, int n, struct pmd **next)
{
    /* A port whose link a tenant flaps is placed again at each link up. */
    static struct vlog_rate_limit placed_rl = VLOG_RATE_LIMIT_INIT(1, 16);
    struct dp_rxq_index *sorted = xcalloc(n + 1, sizeof *sorted);
    bool *in_all = xcalloc(n + 1, sizeof *in_all);
    struct pmd_rxq **all, **list;
    int *where, *owner;
    int n_all;

    /* 'where[j]': the index in 'rxqs' of queue 'all[j]', or -1. */
    all = dp_all_rxqs(dp, n, &n_all);
    for (int i = 0; i < n; i++) {
        sorted[i].q = rxqs[i];
        sorted[i].index = i;
    }
    qsort(sorted, n, sizeof *sorted, dp_compare_rxq_index);
    where = xcalloc(n_all + n + 1, sizeof *where);
    for (int j = 0; j < n_all; j++) {
        where[j] = dp_rxq_index_find(sorted, n, all[j]);
        if (where[j] >= 0) {
            in_all[where[j]] = true;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!in_all[i]) {
            where[n_all] = i;
            all[n_all++] = rxqs[i];     /* Not in 'all' yet. */
        }
    }

    owner = xcalloc(n_all + 1, sizeof *owner);
    list = xcalloc(n_all + 1, sizeof *list);
    for (int step = 0; step < 2; step++) {
        struct pmd_poll_list **old = xcalloc(dp->n_pmds + 1, sizeof *old);
        int start[DP_MAX_PMDS + 1] = { 0 };
        int fill[DP_MAX_PMDS + 1];

        /* Which PMD polls each queue in this step, then the lists by
         * counting sort, which keeps the order of 'all' in each. */
        for (int j = 0; j < n_all; j++) {
            const struct pmd_rxq *q = all[j];
            struct pmd *target = q->pmd;

            if (where[j] >= 0) {
                struct pmd *to = next[where[j]];

                /* Step 0 takes a queue that moves off every PMD. */
                target = step || to == q->pmd ? to : NULL;
            }
            owner[j] = target ? dp_pmd_index(dp, target) : -1;
            if (owner[j] >= 0) {
                start[owner[j] + 1]++;
            }
        }
        for (int k = 0; k < dp->n_pmds; k++) {
            start[k + 1] += start[k];
        }
        memcpy(fill, start, sizeof fill);
        for (int j = 0; j < n_all; j++) {
            if (owner[j] >= 0) {
                list[fill[owner[j]]++] = all[j];
            }
        }
        for (int k = 0; k < dp->n_pmds; k++) {
            old[k] = pmd_set_poll_list(dp->pmds[k], list + start[k],
                                       start[k + 1] - start[k]);
        }
        /* After step 0 no PMD polls a queue that moves; after either
         * step no PMD reads a replaced list. */
        rcu_synchronize();
        for (int k = 0; k < dp->n_pmds; k++) {
            free(old[k]);
        }
        free(old);
    }
    for (int i = 0; i < n; i++) {
        if (next[i] && rxqs[i]->pmd != next[i]) {
            VLOG_INFO_RL(&placed_rl, "rx queue %d of port number %u: "
                         "polled by pmd on core %d", rxqs[i]->qid,
                         rxqs[i]->port_no, next[i]->core_id);
        }
        rxqs[i]->pmd = next[i];
    }
    free(owner);
    free(list);
    free(where);
    free(in_all);
    free(sorted);
    free(all);
}

void
dp_rxq_rebalance(struct dp *dp)
{
    uint64_t load[DP_MAX_PMDS] = { 0 };
    int n_queues[DP_MAX_PMDS] = { 0 };
    struct pmd **next;
    struct pmd_rxq **rxqs;
    int n;

    rxqs = dp_all_rxqs(dp, 0, &n);
    next = xcalloc(n + 1, sizeof *next);
    dp_assign(dp, rxqs, n, next, load, n_queues);
    dp_move_rxqs(dp, rxqs, n, next);
    free(next);
    free(rxqs);
}

/* Places the rx queues of 'port' (not polled yet) on the PMDs, next to
 * what they carry already. */
void
dp_place_port_rxqs(struct dp *dp, struct dp_port *port)
{
    uint64_t load[DP_MAX_PMDS] = { 0 };
    int n_queues[DP_MAX_PMDS] = { 0 };
    struct pmd **next = xcalloc(port->n_rxqs + 1, sizeof *next);
    struct dp_port *other;
    struct pmd_rxq *q;

    DP_FOR_EACH_RXQ (q, other, dp) {
        for (int k = 0; k < dp->n_pmds; k++) {
            if (q->pmd == dp->pmds[k]) {
                load[k] += dp_rxq_load(q);
                n_queues[k]++;
            }
        }
    }
    dp_assign(dp, port->rxqs, port->n_rxqs, next, load, n_queues);
    dp_move_rxqs(dp, port->rxqs, port->n_rxqs, next);
    free(next);
}

/* PMD threads. */

static bool
dp_pmd_in(const struct pmd *pmd, struct pmd *const *pmds, int n)
{
    for (int i = 0; i < n; i++) {
        if (pmds[i] == pmd) {
            return true;
        }
    }
    return false;
}

/* The lowest bond load slot (see bond.h) that no PMD of the new set uses:
 * the 'n' in 'pmds' so far and those of 'dp' on one of the 'n_cores' in
 * 'cores'.  A PMD that goes may share its slot with a new one: it stops
 * polling, and a grace period passes, before the new one gets rx queues,
 * so the slot still has one writer at a time.  The slot is also the PMD's
 * tx queue: being the lowest free one, it is below 'n_cores', and the
 * slots of the PMDs that stay are below dp->n_txq already. */
static unsigned int
dp_free_bond_slot(const struct dp *dp, const int cores[], int n_cores,
                  struct pmd *const *pmds, int n)
{
    uint64_t used = 0;

    BUILD_ASSERT(DP_MAX_PMDS <= BOND_MAX_PMDS && BOND_MAX_PMDS <= 64);
    for (int i = 0; i < dp->n_pmds; i++) {
        for (int j = 0; j < n_cores; j++) {
            if (dp->pmds[i]->core_id == cores[j]) {
                used |= UINT64_C(1) << dp->pmds[i]->bond_slot;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        used |= UINT64_C(1) << pmds[i]->bond_slot;
    }
    for (unsigned int slot = 0; slot < BOND_MAX_PMDS; slot++) {
        if (!(used & (UINT64_C(1) << slot))) {
            return slot;
        }
    }
    /* The new set has at most DP_MAX_PMDS PMDs. */
    ovs_abort_assert(__FILE__, __LINE__, "a free bond slot");
}

static struct pmd *
dp_find_pmd(const struct dp *dp, int core_id)
{
    for (int i = 0; i < dp->n_pmds; i++) {
        if (dp->pmds[i]->core_id == core_id) {
            return dp->pmds[i];
        }
    }
    return NULL;
}

/* Stops 'pmd', which no longer polls anything, and frees it. */
static void
dp_retire_pmd(struct pmd *pmd)
{
    pmd_stop(pmd);
    /* Flows it deleted are freed by call_rcu before its tables go. */
    rcu_barrier();
    VLOG_INFO("pmd thread on core %d stopped", pmd->core_id);
    pmd_destroy(pmd);
}

/* Makes the PMD set the one of 'cores' (an array of 'n', ascending): the
 * PMDs that go first stop polling, then the new ones start and every rx
 * queue is spread over the new set.  Returns NULL, or an error message (to
 * free) with nothing changed. */
static char *
dp_set_pmds(struct dp *dp, const int cores[], int n)
{
    struct pmd **pmds = xcalloc(n, sizeof *pmds);
    struct pmd **old = dp->pmds;
    int n_old = dp->n_pmds;
    struct dp_port *port;
    struct pmd_rxq *q;

    for (int i = 0; i < n; i++) {
        pmds[i] = dp_find_pmd(dp, cores[i]);
        if (!pmds[i]) {
            int error;

            unsigned int slot = dp_free_bond_slot(dp, cores, n, pmds, i);

            pmds[i] = pmd_create(dp, cores[i]);
            pmds[i]->bond_slot = slot;
            error = pmd_start(pmds[i]);
            if (error) {
                char *msg = xasprintf("cannot start pmd thread on core "
                                      "%d: %s", cores[i], strerror(error));

                for (int j = 0; j <= i; j++) {
                    if (!dp_find_pmd(dp, pmds[j]->core_id)) {
                        dp_retire_pmd(pmds[j]);
                    }
                }
                free(pmds);
                return msg;
            }
        }
    }

    /* The PMDs that go give up their queues first. */
    for (int i = 0; i < n_old; i++) {
        if (!dp_pmd_in(old[i], pmds, n)) {
            struct pmd_poll_list *list = pmd_set_poll_list(old[i], NULL, 0);

            rcu_synchronize();
            free(list);
        }
    }
    DP_FOR_EACH_RXQ (q, port, dp) {
        if (q->pmd && !dp_pmd_in(q->pmd, pmds, n)) {
            q->pmd = NULL;
        }
    }
    dp->pmds = pmds;
    dp->n_pmds = n;
    dp_rxq_rebalance(dp);
    for (int i = 0; i < n_old; i++) {
        if (!dp_pmd_in(old[i], pmds, n)) {
            dp_retire_pmd(old[i]);
        }
    }
    free(old);
    return NULL;
}

/* other_config. */

static void
dp_apply_settings(struct dp *dp, const struct config_other *other)
{
    struct dp_settings *s = &dp->settings;

    __atomic_store_n(&s->emc_insert_inv_prob, other->emc_insert_inv_prob,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&s->smc_enable, other->smc_enable, __ATOMIC_RELAXED);
    __atomic_store_n(&s->gro_enable, other->gro_enable, __ATOMIC_RELAXED);
    __atomic_store_n(&s->flow_idle_ms, other->flow_idle_timeout,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&s->sleep_max_us, other->pmd_sleep_max,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&s->sleep_predict, other->pmd_sleep_predict,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&s->tx_flush_us, other->tx_flush_interval,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&s->flow_limit, other->flow_limit, __ATOMIC_RELAXED);
}

/* Says which explicitly set other_config keys this version accepts but
 * does not act on yet, so that nobody relies on them unknowingly. */
static void
dp_warn_inert_settings(const struct config_other *other)
{
    static const enum config_other_key inert[] = {
        CONFIG_OTHER_BOND_REBALANCE_INTERVAL,
    };

    for (size_t i = 0; i < ARRAY_SIZE(inert); i++) {
        if (other->set[inert[i]]) {
            VLOG_WARN("other_config:%s is accepted but has no effect in "
                      "this version", config_other_key_name(inert[i]));
        }
    }
}

/* Reopens every port whose provider 'other' changes, or that has fewer tx
 * queues than dp->n_txq.  All new ports are opened before any is swapped,
 * so a failure changes nothing.  Missing ports pick the new provider and
 * queue count when they come back. */
static char *
dp_swap_providers(struct dp *dp, const struct config_other *other)
{
    struct dp_port *fresh[DP_MAX_PORTS] = { NULL };
    char *error = NULL;

    for (int i = 0; i < DP_MAX_PORTS && !error; i++) {
        struct dp_port *port = dp->ports[i];
        const char *type;

        if (!port || !port->netdev) {
            continue;
        }
        type = dp_port_provider(port, other);
        if (strcmp(netdev_get_type(port->netdev), type)
            || netdev_n_txq(port->netdev) < dp->n_txq) {
            fresh[i] = dp_port_new(port);
            if (dp_port_open_netdev(dp, fresh[i], type, false, port,
                                    &error)) {
                dp_port_close(fresh[i]);
                fresh[i] = NULL;
            }
        }
    }
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        if (fresh[i] && error) {
            dp_port_close(fresh[i]);
        } else if (fresh[i]) {
            dp_port_replace(dp, dp->ports[i], fresh[i]);
            dp_bond_member_set_enabled(dp, fresh[i],
                                       fresh[i]->state == DP_PORT_UP);
            VLOG_INFO("port %s: now on the %s provider, %d tx queue%s",
                      fresh[i]->name, netdev_get_type(fresh[i]->netdev),
                      dp->n_txq, dp->n_txq == 1 ? "" : "s");
        }
    }
    return error;
}

/* The ports with fewer tx queues than dp->n_txq. */
static int
dp_n_short_ports(const struct dp *dp)
{
    int n = 0;

    for (int i = 0; i < DP_MAX_PORTS; i++) {
        const struct dp_port *port = dp->ports[i];

        n += port && port->netdev && netdev_n_txq(port->netdev) < dp->n_txq;
    }
    return n;
}

/* Gives every port 'n_txq' tx queues before that many PMDs run: in place
 * where the provider can, otherwise dp_swap_providers() reopens the port.
 * Returns NULL, or an error with dp->n_txq as it was (ports that grew keep
 * their extra queues, unused). */
static char *
dp_grow_txqs(struct dp *dp, int n_txq)
{
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];
        char *error = NULL;
        int err;

        if (!port || !port->netdev) {
            continue;
        }
        err = netdev_set_n_txq(port->netdev, n_txq, &error);
        if (err && err != EOPNOTSUPP) {
            char *msg = xasprintf("port %s: %s", port->name,
                                  error ? error : strerror(err));

            free(error);
            return msg;
        }
    }
    dp->n_txq = n_txq;
    return NULL;
}

static char *
dp_set_other__(struct dp *dp, const struct config_other *other)
{
    int cores[DP_MAX_PMDS];
    char *error = NULL;
    bool swapped;
    int n_cores;

    n_cores = dp_pmd_cores(other, dp->n_cpus, cores, &error);
    if (!n_cores) {
        return error;
    }
    if (other->use_tpacket_v3 && !netdev_type_exists("tpacket")) {
        VLOG_WARN("use-tpacket-v3 is true but this build has no TPACKET_V3 "
                  "support; using recvmmsg/sendmmsg");
    }
    if (n_cores > dp->n_txq) {
        error = dp_grow_txqs(dp, n_cores);
        if (error) {
            return error;
        }
    }
    swapped = (other->use_tpacket_v3 != dp->other.use_tpacket_v3
               || dp_n_short_ports(dp));
    if (swapped) {
        error = dp_swap_providers(dp, other);
        if (error) {
            return error;
        }
    }
    if (strcmp(other->pmd_cpu_mask, dp->other.pmd_cpu_mask)
        || dp->n_pmds != n_cores) {
        error = dp_set_pmds(dp, cores, n_cores);
        if (error && swapped) {
            /* Nothing may change on error: the ports go back to the
             * provider in force. */
            char *undo = dp_swap_providers(dp, &dp->other);

            if (undo) {
                char *msg = xasprintf("%s; undoing the change failed, "
                                      "left behind: ports on the new "
                                      "provider (%s)", error, undo);

                free(undo);
                free(error);
                error = msg;
            }
        }
        if (error) {
            return error;
        }
    }
    if (other->mac_aging_time != dp->other.mac_aging_time
        || other->mac_table_size != dp->other.mac_table_size
        || other->mac_learn_rate != dp->other.mac_learn_rate) {
        struct ofproto *bridge;

        DP_FOR_EACH_BRIDGE (bridge, dp) {
            mac_learning_set_aging(ofproto_mac_learning(bridge),
                                   other->mac_aging_time);
            dp_bridge_apply_mac_settings(bridge, other);
        }
    }
    dp_apply_settings(dp, other);
    if (other->pmd_rxq_assign != dp->other.pmd_rxq_assign) {
        dp->other.pmd_rxq_assign = other->pmd_rxq_assign;
        dp_rxq_rebalance(dp);
    }
    dp->other = *other;
    return NULL;
}

char *
dp_set_other(struct dp *dp, const struct config_other *other)
{
    char *error;

    if (dp->other_hook) {
        error = dp->other_hook(other, dp->other_hook_aux);
        if (error) {
            return error;
        }
    }
    error = dp_set_other__(dp, other);
    if (error && dp->other_hook) {
        char *undo = dp->other_hook(&dp->other, dp->other_hook_aux);

        if (undo) {
            VLOG_ERR("undoing other_config: %s", undo);
            free(undo);
        }
    }
    return error;
}

void
dp_set_other_hook(struct dp *dp, dp_other_hook_func *hook, void *aux)
{
    dp->other_hook = hook;
    dp->other_hook_aux = aux;
}

/* Creation and destruction. */

void
dp_stop_pmds(struct dp *dp)
{
    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_stop(dp->pmds[i]);
    }
}

static int
dp_n_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n;
}

/* Set by dp_set_stop_flag(); NULL: none. */
static const volatile sig_atomic_t *dp_stop_flag;

void
dp_set_stop_flag(const volatile sig_atomic_t *flag)
{
    dp_stop_flag = flag;
}

/* The cores this process may run on (at most 'n_cpus' of them). */
static int
dp_n_allowed_cpus(int n_cpus)
{
    cpu_set_t allowed;

    if (sched_getaffinity(0, sizeof allowed, &allowed)) {
        return n_cpus;
    }
    return MIN(CPU_COUNT(&allowed), n_cpus);
}

/* Opens and attaches every port of 'cfg''s bridge 'br'. */
static char *
dp_add_bridge_ports(struct dp *dp, const struct pmd_config *cfg,
                    const struct config_bridge *br)
{
    struct ofproto *bridge = dp_bridge_lookup(dp, br->name);
    char *error = NULL;

    for (size_t i = 0; i < br->n_ports && !error; i++) {
        struct dp_port *port;

        if (dp_stop_flag && *dp_stop_flag) {
            return xstrdup("start-up interrupted");
        }
        port = dp_port_open(dp, &br->ports[i], &cfg->other, &error);

        if (port && dp_port_attach(dp, port, bridge)) {
            error = xasprintf("port %s: the port table is full",
                              br->ports[i].name);
        }
    }
    return error;
}

struct dp *
dp_create(const struct pmd_config *cfg, char **errp)
{
    int cores[DP_MAX_PMDS];
    int n_cores;
    struct dp *dp;

    *errp = dp_check_config(cfg);
    if (*errp) {
        return NULL;
    }
    n_cores = dp_pmd_cores(&cfg->other, dp_n_cpus(), cores, errp);
    if (!n_cores) {
        return NULL;
    }

    dp = xzalloc(sizeof *dp);
    dp->ofproto_dp = (struct ofproto_datapath) {
        .change_seq = &dp->change_seq,
        .wait_revalidated = dp_wait_revalidated_cb,
        .aux = dp,
    };
    dp->n_cpus = dp_n_cpus();
    dp->n_txq = n_cores;
    dp->max_txq = MAX(n_cores, dp_n_allowed_cpus(dp->n_cpus));
    dp->other = cfg->other;
    dp->stats_cleared_ms = time_msec();
    pmd_perf_tsc_hz();          /* Calibrates now, not in a PMD or reply. */
    dp->next_interval_ms = time_msec() + PMD_RXQ_INTERVAL_MS;
    dp_apply_settings(dp, &cfg->other);
    dp_warn_inert_settings(&cfg->other);
    if (cfg->other.use_tpacket_v3 && !netdev_type_exists("tpacket")) {
        VLOG_WARN("use-tpacket-v3 is true but this build has no TPACKET_V3 "
                  "support; using recvmmsg/sendmmsg");
    }
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        struct ofproto *bridge = dp_bridge_add(dp, cfg->bridges[b].name);

        /* No PMD runs yet, so nothing to wait for. */
        ofproto_set_forward_bpdu(bridge, cfg->bridges[b].forward_bpdu);
    }
    *errp = dp_set_pmds(dp, cores, n_cores);
    for (size_t b = 0; b < cfg->n_bridges && !*errp; b++) {
        *errp = dp_add_bridge_ports(dp, cfg, &cfg->bridges[b]);
    }
    for (size_t b = 0; b < cfg->n_bridges && !*errp; b++) {
        *errp = dp_set_rules(dp, &cfg->bridges[b]);
    }
    if (*errp) {
        dp_destroy(dp);
        return NULL;
    }
    return dp;
}

void
dp_destroy(struct dp *dp)
{
    if (!dp) {
        return;
    }
    dp_capture_stop_all(dp);
    dp_stop_pmds(dp);
    /* The PMDs are gone; flows they freed with call_rcu go now, before the
     * ports and the slow path they point at. */
    rcu_barrier();
    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_destroy(dp->pmds[i]);
    }
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        if (port) {
            ofproto_port_del(port->ofproto, i);
            dp->ports[i] = NULL;
            dp_port_destroy(port);
        }
    }
    for (int b = 0; b < DP_MAX_BRIDGES; b++) {
        ofproto_destroy(dp->bridges[b]);
    }
    free(dp->pmds);
    free(dp);
}

/* Ends a usage interval: what each PMD and each rx queue spent since the
 * last one goes into slot 'interval_idx'. */
static void
dp_sample_usage(struct dp *dp)
{
    int k = dp->interval_idx;
    struct dp_port *port;
    struct pmd_rxq *q;

    for (int i = 0; i < dp->n_pmds; i++) {
        struct pmd *pmd = dp->pmds[i];
        uint64_t c[PMD_N_STATS];
        uint64_t total;

        pmd_perf_read(&pmd->perf, c);
        total = c[PMD_STAT_CYCLES_IDLE] + c[PMD_STAT_CYCLES_BUSY];
        pmd->intervals[k] = total - pmd->last_total_cycles;
        pmd->last_total_cycles = total;
    }
    DP_FOR_EACH_RXQ (q, port, dp) {
        uint64_t cycles = __atomic_load_n(&q->cycles, __ATOMIC_RELAXED);

        q->intervals[k] = cycles - q->last_cycles;
        q->last_cycles = cycles;
    }
    dp->interval_idx = (k + 1) % PMD_RXQ_N_INTERVALS;
}

void
dp_run(struct dp *dp)
{
    long long now = time_msec();
    struct ofproto *bridge;

    netdev_run();
    DP_FOR_EACH_BRIDGE (bridge, dp) {
        ofproto_run(bridge, now);
    }
    dp_link_run(dp, now);
    dp_bond_run(dp, now);
    if (now >= dp->next_interval_ms) {
        dp->next_interval_ms = now + PMD_RXQ_INTERVAL_MS;
        dp_sample_usage(dp);
    }
    dp_capture_run(dp);
}

void
dp_pmd_stats(const struct pmd *pmd, struct pmd_perf_snapshot *s)
{
    pmd_perf_snapshot_read(&pmd->perf, s);
    pmd_perf_snapshot_sub(s, &pmd->stats_base);
}

void
dp_log_stats(const struct dp *dp)
{
    char buf[4096];

    for (int i = 0; i < DP_MAX_PORTS; i++) {
        const struct dp_port *port = dp->ports[i];
        struct netdev_stats s;

        if (!port) {
            continue;
        }
        dp_port_get_stats(dp, port, &s);
        VLOG_INFO("stats: port %s rx_packets=%"PRIu64" rx_bytes=%"PRIu64
                  " tx_packets=%"PRIu64" tx_bytes=%"PRIu64
                  " rx_ring_full=%"PRIu64" rx_truncated=%"PRIu64
                  " rx_errors=%"PRIu64" tx_queue_full=%"PRIu64
                  " tx_too_big=%"PRIu64" tx_port_down=%"PRIu64
                  " tx_errors=%"PRIu64, port->name, s.rx_packets,
                  s.rx_bytes, s.tx_packets, s.tx_bytes, s.rx_ring_full,
                  s.rx_truncated, s.rx_errors, s.tx_queue_full,
                  s.tx_too_big, s.tx_port_down, s.tx_errors);
        if (port->bond) {
            VLOG_INFO("status: port %s bond, %s", port->name,
                      bond_mode_to_string(bond_get_mode(port->bond)));
            continue;
        }
        buf[0] = '\0';
        if (port->netdev) {
            netdev_get_status(port->netdev, buf, sizeof buf);
        }
        VLOG_INFO("status: port %s %s, link %s, went down %"PRIu64" times",
                  port->name, buf, dp_port_state_to_string(port->state),
                  port->n_down);
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        uint64_t c[PMD_N_STATS];

        pmd_perf_read(&dp->pmds[i]->perf, c);
        pmd_perf_format_kv(c, buf, sizeof buf);
        VLOG_INFO("stats: pmd %d %s lost=%"PRIu64" drop_upcall_failed=%"
                  PRIu64, dp->pmds[i]->core_id, buf, c[PMD_STAT_LOST],
                  c[PMD_STAT_LOST]);
        pmd_perf_format_ovs(c, dp->pmds[i]->core_id, buf, sizeof buf);
        VLOG_INFO("pmd-stats-show:\n%s", buf);
    }
}
