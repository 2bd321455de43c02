/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The PMD's per-batch pipeline.  The stages keep a compacted array of the
 * indexes still missing, so each stage runs over its misses in bulk:
 *
 *   extract + hash -> EMC -> SMC -> dpcls -> upcall -> actions
 *
 * The RSS hash is set exactly once per packet, here or by the provider
 * from the kernel's rxhash, and every later stage reuses it.
 */
#include <autoconf.h>
#include "dp/pipeline.h"

#include <errno.h>

#include "dp/dp.h"
#include "dp/dp-capture.h"
#include "packet/dp-batch.h"
#include "classifier/dpcls.h"
#include "classifier/emc.h"
#include "classifier/dp-flow.h"
#include "packet/hash.h"
#include "packet/miniflow.h"
#include "dp/dp-actions-execute.h"
#include "dp/pmd.h"
#include "base/rcu.h"
#include "classifier/smc.h"
#include "ofproto/upcall.h"
#include "base/coverage.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(pipeline);

COVERAGE_DEFINE(upcall);            /* Misses sent to the slow path. */
COVERAGE_DEFINE(megaflow_installed); /* Megaflows they installed. */

/* The per-batch working set, on the PMD's stack. */
struct pipeline_ctx {
    struct pmd *pmd;
    struct dp_batch *batch;
    uint16_t in_port;
    const struct dp_capture *capture; /* NULL unless capturing. */
    struct netdev_flow_key keys[DP_BATCH_SIZE];
    struct dp_flow *flows[DP_BATCH_SIZE];
    uint8_t misses[DP_BATCH_SIZE];   /* Indexes without a flow yet. */
    uint32_t n_misses;
    struct dp_flow *transient[DP_BATCH_SIZE]; /* Decided by the slow path
                                               * over the flow limit; freed
                                               * after the batch. */
    uint32_t n_transient;
    uint32_t transient_heap;    /* Bit i: 'transient[i]' is malloc()ed,
                                 * not in the PMD's pool. */
};

/* Parses every packet and makes sure each has an RSS hash. */
static void
extract_batch(struct pipeline_ctx *ctx)
{
    struct dp_batch *batch = ctx->batch;
    uint32_t n = batch->count;
    uint32_t n_kernel = 0;

    for (uint32_t i = 0; i < n; i++) {
        struct dp_packet *p = batch->packets[i];
        struct netdev_flow_key *key = &ctx->keys[i];

        if (i + 1 < n) {
            PREFETCH(batch->packets[i + 1]->data);
        }
        miniflow_extract(p, key);
        if (dp_packet_rss_valid(p)) {
            n_kernel++;
        } else {
            dp_packet_set_rss_hash(p, hash_rss(key));
        }
        key->hash = p->rss_hash;
    }
    pmd_perf_add(&ctx->pmd->perf, PMD_STAT_EXTRACT, n);
    pmd_perf_add(&ctx->pmd->perf, PMD_STAT_RSS_KERNEL, n_kernel);
    pmd_perf_add(&ctx->pmd->perf, PMD_STAT_RSS_SW, n - n_kernel);
}

static void
emc_stage(struct pipeline_ctx *ctx)
{
    uint32_t n = ctx->batch->count;
    uint32_t n_misses = 0;

    for (uint32_t i = 0; i < n; i++) {
        struct dp_flow *flow = emc_lookup(ctx->pmd->emc, &ctx->keys[i]);

        ctx->flows[i] = flow;
        if (!flow) {
            ctx->misses[n_misses++] = i;
        }
    }
    pmd_perf_add(&ctx->pmd->perf, PMD_STAT_EMC_HIT, n - n_misses);
    ctx->n_misses = n_misses;
}

/* SMC lookups for the misses, in three passes so that each pass's memory
 * loads overlap: prefetch the buckets, read the candidates and prefetch
 * their flows, then verify each candidate against its flow's masked key (a
 * signature hit is only a hint).  Done one packet at a time, each hit
 * waited on three cache misses in a row and lost to a one-subtable dpcls
 * lookup (bench/micro-caches.c). */
static void
smc_stage(struct pipeline_ctx *ctx, uint32_t emc_inv_prob)
{
    struct dp_flow *candidates[DP_BATCH_SIZE];
    struct pmd *pmd = ctx->pmd;
    uint32_t n_left = 0;

    for (uint32_t m = 0; m < ctx->n_misses; m++) {
        smc_prefetch(&pmd->smc, ctx->keys[ctx->misses[m]].hash);
    }
    for (uint32_t m = 0; m < ctx->n_misses; m++) {
        uint32_t idx = smc_lookup(&pmd->smc, ctx->keys[ctx->misses[m]].hash);
        struct dp_flow *flow = (idx == SMC_INVALID_INDEX ? NULL
                                : dp_flow_table_get(&pmd->flows, idx));

        if (flow) {
            PREFETCH(flow);
            PREFETCH((char *) flow + CACHE_LINE_SIZE);
        }
        candidates[m] = flow;
    }
    for (uint32_t m = 0; m < ctx->n_misses; m++) {
        uint32_t i = ctx->misses[m];
        struct dp_flow *flow = candidates[m];

        if (flow && flow->in_port == ctx->in_port
            && dpcls_rule_matches_key(&flow->cr, &ctx->keys[i])) {
            ctx->flows[i] = flow;
            emc_probabilistic_insert(pmd->emc, &ctx->keys[i], flow,
                                     emc_inv_prob);
        } else {
            ctx->misses[n_left++] = i;
        }
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_SMC_HIT, ctx->n_misses - n_left);
    ctx->n_misses = n_left;
}

static void
dpcls_stage(struct pipeline_ctx *ctx, uint32_t emc_inv_prob, bool smc_enable)
{
    const struct netdev_flow_key *keys[DP_BATCH_SIZE];
    struct dpcls_rule *rules[DP_BATCH_SIZE];
    struct pmd *pmd = ctx->pmd;
    struct dpcls *cls = pmd->cls[ctx->in_port];
    uint32_t n_lookups = 0;
    uint32_t n_left = 0;
    uint32_t n_hits;

    if (!cls) {
        return;
    }
    for (uint32_t m = 0; m < ctx->n_misses; m++) {
        keys[m] = &ctx->keys[ctx->misses[m]];
    }
    dpcls_lookup(cls, keys, rules, ctx->n_misses, &n_lookups);
    for (uint32_t m = 0; m < ctx->n_misses; m++) {
        uint32_t i = ctx->misses[m];

        if (rules[m]) {
            struct dp_flow *flow = CONTAINER_OF(rules[m], struct dp_flow, cr);

            ctx->flows[i] = flow;
            emc_probabilistic_insert(pmd->emc, &ctx->keys[i], flow,
                                     emc_inv_prob);
            if (smc_enable) {
                smc_insert(&pmd->smc, ctx->keys[i].hash, flow->index);
            }
        } else {
            ctx->misses[n_left++] = i;
        }
    }
    n_hits = ctx->n_misses - n_left;
    pmd_perf_add(&pmd->perf, PMD_STAT_MASKED_HIT, n_hits);
    pmd_perf_add(&pmd->perf, PMD_STAT_MASKED_LOOKUP, n_lookups);
    ctx->n_misses = n_left;
}

/* Builds the megaflow mask from the words of 'wc' that have bits set. */
static void
mask_from_wildcards(struct netdev_flow_key *mask, const struct flow *wc)
{
    const uint64_t *words = (const uint64_t *) wc;
    uint64_t map = 0;

    for (size_t i = 0; i < FLOW_U64S; i++) {
        if (words[i]) {
            map |= UINT64_C(1) << i;
        }
    }
    miniflow_from_flow(&mask->mf, wc, map);
    mask->len = miniflow_size(&mask->mf);
    mask->hash = 0;
}

/* Records in 'flow' what the decision 'xout' depended on, so that a
 * change to one of those facts re-checks it (pmd-reval.h). */
static void
pipeline_index_deps(struct pmd *pmd, struct dp_flow *flow,
                    const struct xlate_out *xout)
{
    struct dp_flow_dep_key deps[XLATE_MAX_DEPS];

    BUILD_ASSERT(XLATE_MAX_DEPS == DP_FLOW_MAX_DEPS);
    for (uint8_t i = 0; i < xout->n_deps; i++) {
        deps[i].key = xout->deps[i].key;
        deps[i].bridge = xout->deps[i].bridge;
    }
    dp_flow_table_index(&pmd->flows, flow, deps, xout->n_deps, xout->wide);
}


/* Storage for the next transient flow of 'ctx' with 'n_actions' actions:
 * a slot of the PMD's pool, so that misses over the flow limit cost no
 * malloc(), or for a translation with more actions than a slot holds
 * (a flood over many ports) the heap. */
static struct dp_flow *
pipeline_transient_flow(struct pipeline_ctx *ctx, uint32_t n_actions)
{
    uint32_t i = ctx->n_transient;

    if (LIKELY(n_actions <= PMD_TRANSIENT_MAX_ACTIONS)) {
        return (struct dp_flow *) (ctx->pmd->transient_pool
                                   + i * PMD_TRANSIENT_FLOW_SIZE);
    }
    ctx->transient_heap |= 1u << i;
    return xmalloc(DP_FLOW_SIZE(n_actions));
}

/* Sends one missed packet to the slow path and installs the megaflow it
 * returns, unless the PMD already holds flow-limit megaflows: then the
 * flow only carries this packet's actions and goes on 'ctx->transient'.
 * Returns the flow, or NULL if the upcall failed. */
static struct dp_flow *
handle_miss(struct pipeline_ctx *ctx, const struct netdev_flow_key *key,
            bool smc_enable, uint32_t emc_inv_prob)
{
    /* One bucket per cause: frames a tenant can send at will. */
    static struct vlog_rate_limit too_big_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    struct pmd *pmd = ctx->pmd;
    uint16_t in_port = ctx->in_port;
    struct netdev_flow_key mask;
    const struct dp_port *port;
    struct xlate_out xout;
    struct dp_flow *flow;
    struct flow flow_key;
    int error;

    miniflow_expand(&key->mf, &flow_key);
    /* The port is polled, so it is there; its bridge decides. */
    port = rcu_read(pmd->dp->ports[in_port]);
    error = upcall_xlate(port->ofproto, &flow_key, true, pmd->now_ms, &xout);
    if (error == E2BIG) {
        /* Counted in coverage counter xlate_too_many_actions too. */
        VLOG_WARN_RL(&too_big_rl, "upcall on port %u failed: the "
                     "translation needs more than %d actions; dropped",
                     in_port, XLATE_MAX_ACTIONS);
        return NULL;
    } else if (error) {
        VLOG_WARN_RL(&rl, "upcall on port %u failed (error %d)",
                     in_port, error);
        return NULL;
    }
    mask_from_wildcards(&mask, &xout.mask);
    if (pmd->flows.n_flows >= __atomic_load_n(&pmd->dp->settings.flow_limit,
                                              __ATOMIC_RELAXED)) {
        flow = pipeline_transient_flow(ctx, xout.n_actions);
        dp_flow_init(flow, key, &mask, in_port, xout.actions,
                     xout.n_actions, pmd->now_ms);
        flow->rule_stats = xout.rule_stats;
        flow->bridges = xout.bridges;
        ctx->transient[ctx->n_transient++] = flow;
        pmd_perf_add(&pmd->perf, PMD_STAT_OVER_FLOW_LIMIT, 1);
        return flow;
    }
    flow = dp_flow_table_add(&pmd->flows, key, &mask, in_port, xout.actions,
                          xout.n_actions, pmd->now_ms);
    flow->rule_stats = xout.rule_stats;
    flow->bridges = xout.bridges;
    pipeline_index_deps(pmd, flow, &xout);
    dpcls_insert(pmd_get_dpcls(pmd, in_port), &flow->cr, key, &mask);
    emc_probabilistic_insert(pmd->emc, key, flow, emc_inv_prob);
    if (smc_enable) {
        smc_insert(&pmd->smc, key->hash, flow->index);
    }
    return flow;
}

/* Gives each remaining miss a flow: first from a megaflow that an earlier
 * miss in this batch installed, else from the slow path. */
static void
upcall_stage(struct pipeline_ctx *ctx, uint32_t emc_inv_prob, bool smc_enable)
{
    struct pmd *pmd = ctx->pmd;
    uint32_t n_installed = 0;
    uint32_t n_upcalls = 0;
    uint32_t n_lost = 0;

    for (uint32_t m = 0; m < ctx->n_misses; m++) {
        uint32_t i = ctx->misses[m];
        const struct netdev_flow_key *key = &ctx->keys[i];
        struct dp_flow *flow = NULL;

        if (n_installed) {
            struct dpcls_rule *rule;
            uint32_t n_lookups = 0;

            if (dpcls_lookup(pmd->cls[ctx->in_port], &key, &rule, 1,
                             &n_lookups)) {
                flow = CONTAINER_OF(rule, struct dp_flow, cr);
                pmd_perf_add(&pmd->perf, PMD_STAT_MASKED_HIT, 1);
                pmd_perf_add(&pmd->perf, PMD_STAT_MASKED_LOOKUP, n_lookups);
            }
        }
        if (!flow) {
            uint32_t n_transient = ctx->n_transient;

            flow = handle_miss(ctx, key, smc_enable, emc_inv_prob);
            n_upcalls++;
            if (flow) {
                n_installed += ctx->n_transient == n_transient;
                pmd_perf_add(&pmd->perf, PMD_STAT_MISS, 1);
            } else {
                n_lost++;
            }
        }
        ctx->flows[i] = flow;
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_LOST, n_lost);
    COVERAGE_ADD(upcall, n_upcalls);
    COVERAGE_ADD(megaflow_installed, n_installed);
}

/* TCP flags of 'key', network order (0 for non-TCP frames). */
static uint16_t
key_tcp_flags(const struct netdev_flow_key *key)
{
    uint64_t word = miniflow_get_word(&key->mf, FLOW_WORD(tcp_flags));
    size_t shift = (offsetof(struct flow, tcp_flags) % 8) * 8;

    return word >> shift;
}

/* Runs each packet's flow actions and updates flow stats.  A flow that
 * only outputs queues the received packet itself on each port; any other
 * goes through the copy-on-write executor. */
static void
execute_actions(struct pipeline_ctx *ctx)
{
    struct pmd *pmd = ctx->pmd;
    uint32_t n_dropped = 0;

    for (uint32_t i = 0; i < ctx->batch->count; i++) {
        struct dp_packet *p = ctx->batch->packets[i];
        struct dp_flow *flow = ctx->flows[i];

        if (!flow) {
            /* Counted as a failed upcall. */
            if (UNLIKELY(ctx->capture)) {
                dp_capture_drop(ctx->capture, pmd, p, DP_DROP_UPCALL_FAILED,
                                DP_PORT_NONE);
            }
            continue;
        }
        dp_flow_account(flow, 1, p->size, key_tcp_flags(&ctx->keys[i]),
                        pmd->now_ms);
        if (!flow->n_actions) {
            n_dropped++;
            if (UNLIKELY(ctx->capture)) {
                dp_capture_drop(ctx->capture, pmd, p, DP_DROP_FLOW_ACTION,
                                DP_PORT_NONE);
            }
        }
        if (LIKELY(flow->outputs_only)) {
            for (uint32_t a = 0; a < flow->n_actions; a++) {
                pmd_output(pmd, flow->actions[a].port, p);
            }
        } else {
            dp_actions_execute(pmd, p, flow->actions, flow->n_actions);
        }
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_DROP_FLOW_ACTION, n_dropped);
}

/* Credits the rules of the batch's transient flows and frees those the
 * pool could not hold.  The
 * rules are still alive: the slow path frees a rule only after every PMD
 * passed a quiescent state, and this one has not since the upcall. */
static void
free_transient_flows(struct pipeline_ctx *ctx)
{
    for (uint32_t i = 0; i < ctx->n_transient; i++) {
        struct dp_flow *flow = ctx->transient[i];

        if (flow->rule_stats) {
            rule_stats_credit(flow->rule_stats, flow->n_packets,
                              flow->n_bytes);
        }
        if (ctx->transient_heap & (1u << i)) {
            free(flow);
        }
    }
}

void
pipeline_process(struct pmd *pmd, struct dp_batch *batch, uint16_t in_port)
{
    const struct dp_settings *s = &pmd->dp->settings;
    uint32_t emc_inv_prob = __atomic_load_n(&s->emc_insert_inv_prob,
                                            __ATOMIC_RELAXED);
    bool smc_enable = __atomic_load_n(&s->smc_enable, __ATOMIC_RELAXED);
    struct pipeline_ctx ctx;

    ctx.pmd = pmd;
    ctx.batch = batch;
    ctx.in_port = in_port;
    ctx.n_transient = 0;
    ctx.transient_heap = 0;
    ctx.capture = rcu_read(pmd->dp->capture);
    pmd_perf_add(&pmd->perf, PMD_STAT_RECV, batch->count);
    if (UNLIKELY(ctx.capture)) {
        dp_capture_batch(ctx.capture, pmd, batch, in_port, false);
    }

    extract_batch(&ctx);
    emc_stage(&ctx);
    if (ctx.n_misses && smc_enable) {
        smc_stage(&ctx, emc_inv_prob);
    }
    if (ctx.n_misses) {
        dpcls_stage(&ctx, emc_inv_prob, smc_enable);
    }
    if (ctx.n_misses) {
        upcall_stage(&ctx, emc_inv_prob, smc_enable);
    }
    execute_actions(&ctx);
    if (UNLIKELY(ctx.n_transient)) {
        free_transient_flows(&ctx);
    }
}
