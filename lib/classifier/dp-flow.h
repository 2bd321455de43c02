/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Datapath flows (megaflows) and the per-PMD flow table that owns them.
 *
 * A flow is created, looked up and deleted only by the PMD that owns its
 * table.  Other threads may read a flow (to dump it) inside an RCU read-side
 * section: the table frees deleted flows after a grace period.  Statistics
 * have a single writer, the owning PMD; readers load them relaxed.
 */
#ifndef DP_FLOW_H
#define DP_FLOW_H 1

#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <urcu-qsbr.h>
#include "classifier/dpcls.h"
#include "packet/miniflow.h"
#include "packet/dp-actions.h"
#include "packet/packets.h"

/* Counters of the rule that decided the actions of some flows.  A PMD
 * credits a flow's counts to them when it deletes the flow (rare), so
 * packets never touch shared cache lines.  Owned by the rule
 * (ofproto-rules.h). */
struct rule_stats {
    uint64_t n_packets;
    uint64_t n_bytes;
    /* NULL, or a NULL-terminated array of further counters credited with
     * the same counts, unchanged while a flow points here: a mirrored
     * flow's set (ofproto/mirror.h), the rule that decided and the
     * mirrors that copied its packets. */
    struct rule_stats *const *also;
};

/* Adds the counts of a deleted flow to 'stats' and to those it fans out
 * to.  Any thread. */
static inline void
rule_stats_credit(struct rule_stats *stats, uint64_t n_packets,
                  uint64_t n_bytes)
{
    /* Pairs with the relaxed loads of rule/dump: counters only. */
    __atomic_add_fetch(&stats->n_packets, n_packets, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats->n_bytes, n_bytes, __ATOMIC_RELAXED);
    for (struct rule_stats *const *p = stats->also; p && *p; p++) {
        __atomic_add_fetch(&(*p)->n_packets, n_packets, __ATOMIC_RELAXED);
        __atomic_add_fetch(&(*p)->n_bytes, n_bytes, __ATOMIC_RELAXED);
    }
}

/* True if a flow whose counters are 'stats' credits 'target'. */
static inline bool
rule_stats_covers(const struct rule_stats *stats,
                  const struct rule_stats *target)
{
    if (stats == target) {
        return true;
    }
    for (struct rule_stats *const *p = stats ? stats->also : NULL;
         p && *p; p++) {
        if (*p == target) {
            return true;
        }
    }
    return false;
}

/* The most facts a flow's decision depends on (xlate.h XLATE_MAX_DEPS).
 * A fact is a change key of one bridge (ofproto/change-log.h); the table
 * finds the flows that depend on a key without looking at the others. */
#define DP_FLOW_MAX_DEPS 6

struct dp_flow;

/* One fact of a flow, in its table's index.  Owning PMD only. */
struct dp_flow_dep {
    struct dp_flow_dep *next;   /* In the index bucket. */
    struct dp_flow_dep **pprev; /* What points to this node. */
    uint64_t key;
    struct dp_flow *flow;
    uint8_t bridge;
};

/* An empty action list means drop. */
struct dp_flow {
    struct dpcls_rule cr;       /* In the PMD's dpcls for 'in_port'. */
    struct netdev_flow_key mask;
    uint16_t in_port;
    bool dead;                  /* Deleted; caches treat it as a miss. */
    uint32_t index;             /* Slot in the flow table (SMC stores it). */
    long long created;          /* msec. */

    /* Written by the owning PMD only. */
    uint64_t n_packets;
    uint64_t n_bytes;
    long long used;             /* msec of last hit. */
    uint16_t tcp_flags;

    /* The rule that decided the actions, credited when the flow is
     * deleted; NULL when no rule did (NORMAL alone, or a table miss).
     * Set by the owning PMD before the flow is inserted. */
    struct rule_stats *rule_stats;

    /* The bridges the translation went through (xlate_out 'bridges'): a
     * change in one of them revalidates the flow.  Set like
     * 'rule_stats'. */
    uint64_t bridges;

    /* What the decision depended on (xlate_out 'deps' and 'wide'), in
     * the table's index: set by dp_flow_table_index().  Owning PMD. */
    uint8_t n_deps;
    struct dp_flow_dep deps[DP_FLOW_MAX_DEPS];
    uint64_t wide;

    /* In the table's queue of flows to re-check while 'queued'.  Owning
     * PMD only. */
    bool queued;
    struct dp_flow *queue_next;
    struct dp_flow **queue_pprev;

    struct rcu_head rcu;
    bool outputs_only;          /* Every action is DP_ACTION_OUTPUT, so
                                 * packets go out unchanged, zero-copy. */
    uint32_t n_actions;
    struct dp_action actions[];
};

/* Per-PMD table of flows, indexed so that the SMC can name a flow in 32
 * bits.  Slots of deleted flows are NULL until reused. */
struct dp_flow_table {
    struct dp_flow **flows;
    uint32_t n_slots;           /* Allocated slots. */
    uint32_t n_flows;           /* Live flows; others load it relaxed. */
    uint32_t *free_slots;       /* Stack of free slot indexes. */
    uint32_t n_free;

    /* The flows' facts by (bridge, key): 'dep_mask' + 1 chains. */
    struct dp_flow_dep **dep_buckets;
    uint32_t dep_mask;
    uint32_t n_deps;
    uint32_t n_wide[64];        /* Flows with bit 'b' in 'wide'. */

    /* Flows to re-check, oldest first (dp_flow_table_queue()). */
    struct dp_flow *queue_head;
    struct dp_flow **queue_tailp;
    uint32_t n_queued;
};

/* A fact a flow depends on: change key 'key' of bridge 'bridge'. */
struct dp_flow_dep_key {
    uint64_t key;
    uint8_t bridge;
};

void dp_flow_table_init(struct dp_flow_table *);
void dp_flow_table_uninit(struct dp_flow_table *);  /* Frees remaining flows. */

/* Bytes a flow with 'n_actions' actions takes. */
#define DP_FLOW_SIZE(N_ACTIONS) \
    (sizeof(struct dp_flow) + (N_ACTIONS) * sizeof(struct dp_action))

/* Fills the DP_FLOW_SIZE('n_actions') bytes at 'flow' as dp_flow_create()
 * does, for a flow the caller keeps in storage of its own. */
void dp_flow_init(struct dp_flow *flow, const struct netdev_flow_key *key,
                  const struct netdev_flow_key *mask, uint16_t in_port,
                  const struct dp_action *actions, uint32_t n_actions,
                  long long now);

/* Creates a flow with 'actions' that belongs to no table, for a packet
 * the slow path decided but that gets no megaflow (flow limit).  The
 * caller frees it with free() once the packet is processed. */
struct dp_flow *dp_flow_create(const struct netdev_flow_key *key,
                               const struct netdev_flow_key *mask,
                               uint16_t in_port,
                               const struct dp_action *actions,
                               uint32_t n_actions, long long now);

/* Creates a flow with 'actions', adds it to 'table' and returns it.  Does
 * not insert it into any classifier. */
struct dp_flow *dp_flow_table_add(struct dp_flow_table *,
                               const struct netdev_flow_key *key,
                               const struct netdev_flow_key *mask,
                               uint16_t in_port,
                               const struct dp_action *actions,
                               uint32_t n_actions, long long now);

/* Marks 'flow' dead, frees its slot and frees it after an RCU grace
 * period.  The caller has already removed it from the dpcls and must purge
 * its caches (emc_purge_dead()) before the thread's next quiescent state. */
void dp_flow_table_remove(struct dp_flow_table *, struct dp_flow *flow);

/* Records in 'flow' (in 't') that its decision depends on the 'n' facts
 * in 'deps' (at most DP_FLOW_MAX_DEPS) and, for the bridges in 'wide', on
 * everything, and indexes them.  Once per flow, after
 * dp_flow_table_add(). */
void dp_flow_table_index(struct dp_flow_table *t, struct dp_flow *flow,
                         const struct dp_flow_dep_key *deps, size_t n,
                         uint64_t wide);

/* Queues for re-checking every flow of 't' that depends on change key
 * 'key' of bridge 'bridge' and is not queued yet, and returns how many it
 * queued. */
uint32_t dp_flow_table_queue_dependents(struct dp_flow_table *t,
                                        uint8_t bridge, uint64_t key);

/* True if a flow of 't' depends on everything in 'bridge'. */
static inline bool
dp_flow_table_has_wide(const struct dp_flow_table *t, uint8_t bridge)
{
    return t->n_wide[bridge & 63] != 0;
}

/* Queues 'flow' (in 't') for re-checking, unless it is queued. */
void dp_flow_table_queue(struct dp_flow_table *t, struct dp_flow *flow);

/* Takes the oldest flow off the queue and returns it, or NULL if the queue
 * is empty. */
struct dp_flow *dp_flow_table_dequeue(struct dp_flow_table *t);

/* Returns the live flow in slot 'index', or NULL. */
static inline struct dp_flow *
dp_flow_table_get(const struct dp_flow_table *t, uint32_t index)
{
    return index < t->n_slots ? t->flows[index] : NULL;
}

static inline void
dp_flow_account(struct dp_flow *flow, uint32_t n_packets, uint64_t n_bytes,
                uint16_t tcp_flags, long long now)
{
    __atomic_store_n(&flow->n_packets, flow->n_packets + n_packets,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&flow->n_bytes, flow->n_bytes + n_bytes,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&flow->used, now, __ATOMIC_RELAXED);
    flow->tcp_flags |= tcp_flags;
}

#endif /* classifier/dp-flow.h */
