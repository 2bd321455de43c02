/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Microbenchmark of the PMD's flow caches, measured in TSC cycles.
 *
 * "smc-size" fills the SMC with 1k to 1M flows and reports, for the size
 * compiled in, how many of them it still finds and what a lookup costs.
 * Build it once per size to compare sizes:
 *
 *   for s in 12 14 16 17 18 20; do
 *       gcc -std=gnu11 -O2 -DSMC_BUCKET_SHIFT=$s -I. -Iinclude -Ilib \
 *           bench/micro-caches.c lib/classifier/emc.c \
 *           lib/classifier/smc.c lib/classifier/dpcls.c \
 *           lib/classifier/dp-flow.c lib/packet/hash.c \
 *           lib/packet/miniflow.c lib/base/util.c \
 *           $(pkg-config --cflags --libs liburcu-qsbr) -o micro-caches-$s
 *       ./micro-caches-$s smc-size
 *   done
 *
 * ("-I." names the directory holding the configured autoconf.h.)
 *
 * "paths" compares, per packet, an EMC miss answered by the SMC with an
 * EMC miss answered by the classifier with 1, 4 and 16 subtables, and the
 * SMC miss that precedes a classifier hit when the SMC is on but does not
 * know the flow.  Packets are IPv4/UDP keys with their real RSS hash, in
 * 32-packet batches, flows picked at random; the EMC is full of other
 * flows, as it is when there are more flows than it holds.  Megaflows have
 * the shape of an IPv4 forwarding rule (in_port, dl_type, nw_src prefix,
 * nw_dst, nw_proto), a different prefix per subtable, spread evenly, so a
 * hit visits (n + 1) / 2 subtables on average.
 *
 * Each figure is the lowest of several runs, to filter out interference;
 * the numbers are for comparison on one machine, not absolutes.
 */
#include <autoconf.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classifier/dpcls.h"
#include "classifier/emc.h"
#include "classifier/dp-flow.h"
#include "packet/hash.h"
#include "classifier/smc.h"
#include "base/util.h"

#define BATCH 32
#define N_RUNS 15

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t
rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#define W(FIELD) (UINT64_C(1) << FLOW_WORD(FIELD))
#define PACKET_MAP (W(dl_dst) | W(dl_type) | W(nw_src) | W(nw_proto) \
                    | W(tp_src))

/* Key of flow 'i' of 'n_sub' subtables' worth, arriving on 'in_port'. */
static void
make_key(struct netdev_flow_key *key, uint32_t i, uint32_t n_sub,
         uint16_t in_port)
{
    uint32_t sub = i % n_sub;
    uint32_t j = i / n_sub;
    struct flow f;

    memset(&f, 0, sizeof f);
    memset(key, 0, sizeof *key);
    f.dl_dst.ea[0] = 0x02;
    f.dl_dst.ea[5] = 1;
    f.dl_src.ea[0] = 0x02;
    f.dl_src.ea[5] = 2;
    f.dl_type = htons(ETH_TYPE_IP);
    f.in_port = in_port;
    f.nw_src = htonl((sub << 24) | 0x0a0001);
    f.nw_dst = htonl(0x0b000000 + j);
    f.nw_ttl = 64;
    f.nw_proto = IP_PROTO_UDP;
    f.tp_src = htons(1024 + (i & 0x7fff));
    f.tp_dst = htons(53);
    miniflow_from_flow(&key->mf, &f, PACKET_MAP);
    key->len = miniflow_size(&key->mf);
    key->hash = hash_rss(key);
}

/* The megaflow mask of subtable 'sub': a 32 - sub bit nw_src prefix. */
static void
make_mask(struct netdev_flow_key *mask, uint32_t sub)
{
    struct flow f;

    memset(&f, 0, sizeof f);
    memset(mask, 0, sizeof *mask);
    f.in_port = 0xffff;
    f.dl_type = 0xffff;
    f.nw_src = htonl(UINT32_MAX << sub);
    f.nw_dst = UINT32_MAX;
    f.nw_proto = 0xff;
    miniflow_from_flow(&mask->mf, &f, W(in_port) | W(nw_src) | W(nw_proto));
    mask->len = miniflow_size(&mask->mf);
}

/* A random order of 'n' packets over 'n_flows' flows. */
static uint32_t *
make_order(size_t n, uint32_t n_flows)
{
    uint32_t *order = xmalloc(n * sizeof *order);

    for (size_t i = 0; i < n; i++) {
        order[i] = rng() % n_flows;
    }
    return order;
}

/* SMC sizing. */

static void
bench_smc_size(void)
{
    static const uint32_t flow_counts[] = {
        1000, 4000, 16000, 64000, 256000, 1000000,
    };
    enum { N_LOOKUPS = 4000000 };
    uint32_t *hashes = xmalloc(1000000 * sizeof *hashes);
    struct smc_cache smc;

    printf("SMC_BUCKET_SHIFT=%d: %u buckets, %u entries, %zu KiB\n",
           SMC_BUCKET_SHIFT, SMC_BUCKETS, SMC_BUCKETS * SMC_ENTRY_PER_BUCKET,
           SMC_BUCKETS * sizeof(struct smc_bucket) / 1024);
    printf("%8s %8s %14s\n", "flows", "found%", "cycles/lookup");

    smc_init(&smc);
    for (size_t c = 0; c < ARRAY_SIZE(flow_counts); c++) {
        uint32_t n = flow_counts[c];
        uint32_t *seq = make_order(N_LOOKUPS, n);
        uint64_t best = UINT64_MAX;
        uint32_t n_found = 0;
        uint32_t sink = 0;

        /* RSS hashes are murmur-finished, so random words stand in. */
        for (uint32_t i = 0; i < n; i++) {
            hashes[i] = rng();
        }
        smc_flush(&smc);
        for (uint32_t i = 0; i < n; i++) {
            smc_insert(&smc, hashes[i], i);
        }
        for (uint32_t i = 0; i < n; i++) {
            n_found += smc_lookup(&smc, hashes[i]) == i;
        }
        /* Hashes in lookup order, read sequentially as packets come. */
        for (uint32_t i = 0; i < N_LOOKUPS; i++) {
            seq[i] = hashes[seq[i]];
        }
        for (int run = 0; run < N_RUNS; run++) {
            uint64_t start = cycles_now();
            uint64_t cycles;

            for (uint32_t i = 0; i < N_LOOKUPS; i++) {
                sink += smc_lookup(&smc, seq[i]);
            }
            cycles = cycles_now() - start;
            best = MIN(best, cycles);
        }
        printf("%8u %8.1f %14.1f%s\n", n, 100.0 * n_found / n,
               (double) best / N_LOOKUPS, sink == 1 ? " " : "");
        free(seq);
    }
    smc_uninit(&smc);
    free(hashes);
}

/* Per-packet path costs. */

struct paths_setup {
    uint32_t n_flows;
    uint32_t n_sub;
    struct netdev_flow_key *keys;
    struct dp_flow_table table;
    struct dpcls *cls;
    struct emc_cache *emc;
    struct smc_cache smc;
};

static void
paths_setup(struct paths_setup *s, uint32_t n_flows, uint32_t n_sub)
{
    struct netdev_flow_key mask, other;
    static const struct dp_action output = { DP_ACTION_OUTPUT, 2 };

    s->n_flows = n_flows;
    s->n_sub = n_sub;
    s->keys = xmalloc(n_flows * sizeof *s->keys);
    dp_flow_table_init(&s->table);
    s->cls = dpcls_create();
    s->emc = xmalloc(sizeof *s->emc);
    emc_init(s->emc);
    smc_init(&s->smc);

    for (uint32_t i = 0; i < n_flows; i++) {
        struct dp_flow *flow;

        make_key(&s->keys[i], i, n_sub, 1);
        make_mask(&mask, i % n_sub);
        flow = dp_flow_table_add(&s->table, &s->keys[i], &mask, 1, &output, 1,
                              0);
        dpcls_insert(s->cls, &flow->cr, &s->keys[i], &mask);
        smc_insert(&s->smc, s->keys[i].hash, flow->index);
    }

    /* Fill the EMC with flows from another port, so that every lookup of
     * ours reads a full slot and misses. */
    for (uint32_t i = 0; i < 4 * EMC_ENTRIES; i++) {
        struct dp_flow *flow = dp_flow_table_get(&s->table, i % n_flows);

        make_key(&other, (UINT32_C(1) << 23) + i, 1, 2);
        emc_insert(s->emc, &other, flow);
    }
}

static void
paths_teardown(struct paths_setup *s)
{
    smc_uninit(&s->smc);
    emc_uninit(s->emc);
    free(s->emc);
    for (uint32_t i = 0; i < s->table.n_slots; i++) {
        struct dp_flow *flow = dp_flow_table_get(&s->table, i);

        if (flow) {
            dpcls_remove(s->cls, &flow->cr);
        }
    }
    dpcls_destroy(s->cls);
    dp_flow_table_uninit(&s->table);
    free(s->keys);
}

enum path {
    PATH_EMC_HIT,               /* EMC hit (keys cached in the EMC). */
    PATH_SMC_HIT,               /* EMC miss, SMC hit. */
    PATH_DPCLS_HIT,             /* EMC miss, dpcls hit (SMC off). */
    PATH_SMC_MISS_DPCLS_HIT,    /* EMC miss, SMC miss, dpcls hit. */
    PATH_SMC_HIT_PREFETCH,      /* EMC miss, SMC hit, in three passes over
                                 * the batch with prefetches between. */
};

/* Verified SMC lookup of 'key', as pipeline.c does it. */
static struct dp_flow *
smc_lookup_verified(struct paths_setup *s, const struct netdev_flow_key *key)
{
    uint32_t idx = smc_lookup(&s->smc, key->hash);
    struct dp_flow *flow;

    if (idx == SMC_INVALID_INDEX) {
        return NULL;
    }
    flow = dp_flow_table_get(&s->table, idx);
    if (!flow || flow->in_port != 1
        || !dpcls_rule_matches_key(&flow->cr, key)) {
        return NULL;
    }
    return flow;
}

/* The SMC stage as three passes over the EMC misses, so that the cache
 * misses of different packets overlap: prefetch the SMC buckets, then look
 * up and prefetch the flows, then verify.  Moves the misses that remain to
 * the front of 'misses' and returns their number. */
static size_t
smc_stage_prefetch(struct paths_setup *s,
                   const struct netdev_flow_key *misses[], size_t n_misses,
                   uint64_t *hits)
{
    struct dp_flow *flows[BATCH];
    size_t n_left = 0;

    for (size_t m = 0; m < n_misses; m++) {
        PREFETCH(&s->smc.buckets[misses[m]->hash & SMC_BUCKET_MASK]);
    }
    for (size_t m = 0; m < n_misses; m++) {
        uint32_t idx = smc_lookup(&s->smc, misses[m]->hash);

        flows[m] = idx != SMC_INVALID_INDEX
                   ? dp_flow_table_get(&s->table, idx) : NULL;
        if (flows[m]) {
            PREFETCH(flows[m]);
            PREFETCH((char *) flows[m] + CACHE_LINE_SIZE);
        }
    }
    for (size_t m = 0; m < n_misses; m++) {
        struct dp_flow *flow = flows[m];

        if (flow && flow->in_port == 1
            && dpcls_rule_matches_key(&flow->cr, misses[m])) {
            (*hits)++;
        } else {
            misses[n_left++] = misses[m];
        }
    }
    return n_left;
}

/* Counts from running packets through a path. */
struct path_counts {
    uint64_t n_packets;
    uint64_t n_cache_hits;      /* Answered by the EMC or the SMC. */
    uint64_t n_cls_hits;        /* Answered by the classifier. */
    uint32_t n_lookups;         /* Subtables visited by classifier hits. */
};

/* Runs 'n' packets in the order 'order' through the stages of 'path', the
 * way pipeline.c does, adds to 'counts' and returns the cycles taken.
 * Each batch's keys are copied out first, outside the timed part: in the
 * datapath they are fresh from miniflow_extract(), in cache. */
static uint64_t
run_path(struct paths_setup *s, enum path path, const uint32_t *order,
         size_t n, struct path_counts *counts)
{
    struct netdev_flow_key batch[BATCH];
    uint64_t cycles = 0;

    for (size_t p = 0; p + BATCH <= n; p += BATCH) {
        const struct netdev_flow_key *misses[BATCH];
        struct dpcls_rule *rules[BATCH];
        size_t n_misses = 0;
        uint64_t start;

        for (size_t k = 0; k < BATCH; k++) {
            batch[k] = s->keys[order[p + k]];
        }
        start = cycles_now();
        for (size_t k = 0; k < BATCH; k++) {
            const struct netdev_flow_key *key = &batch[k];
            struct dp_flow *flow = emc_lookup(s->emc, key);

            if (!flow && (path == PATH_SMC_HIT
                          || path == PATH_SMC_MISS_DPCLS_HIT)) {
                flow = smc_lookup_verified(s, key);
            }
            if (flow) {
                counts->n_cache_hits++;
            } else {
                misses[n_misses++] = key;
            }
        }
        if (n_misses && path == PATH_SMC_HIT_PREFETCH) {
            n_misses = smc_stage_prefetch(s, misses, n_misses,
                                          &counts->n_cache_hits);
        }
        if (n_misses) {
            dpcls_lookup(s->cls, misses, rules, n_misses,
                         &counts->n_lookups);
            for (size_t k = 0; k < n_misses; k++) {
                counts->n_cls_hits += rules[k] != NULL;
            }
        }
        cycles += cycles_now() - start;
        counts->n_packets += BATCH;
    }
    return cycles;
}

/* Lowest cycles per packet over N_RUNS runs of 'path', after a warm-up
 * run.  Sets 'counts' from the timed runs. */
static double
measure_path(struct paths_setup *s, enum path path, const uint32_t *order,
             size_t n, struct path_counts *counts)
{
    uint64_t best = UINT64_MAX;

    memset(counts, 0, sizeof *counts);
    run_path(s, path, order, n, counts);
    memset(counts, 0, sizeof *counts);
    for (int run = 0; run < N_RUNS; run++) {
        uint64_t cycles = run_path(s, path, order, n, counts);

        best = MIN(best, cycles);
    }
    return (double) best / (n / BATCH * BATCH);
}

/* Aborts unless at least 'min_pct' percent of the packets in 'c' were
 * answered by the stage the measurement is about. */
static void
check_rate(const struct path_counts *c, bool by_cache, double min_pct)
{
    uint64_t n = by_cache ? c->n_cache_hits : c->n_cls_hits;

    if (100.0 * n < min_pct * c->n_packets) {
        ovs_fatal(0, "only %"PRIu64" of %"PRIu64" packets hit the %s",
                  n, c->n_packets, by_cache ? "cache" : "classifier");
    }
}

static void
bench_paths(void)
{
    static const uint32_t flow_counts[] = { 20000, 200000 };
    static const uint32_t subtable_counts[] = { 1, 4, 16 };
    enum { N_PACKETS = 500000 };

    printf("cycles per packet (TSC), %d-packet batches, lowest of %d runs\n",
           BATCH, N_RUNS);
    printf("%7s %4s %8s %8s %13s %10s %15s %9s\n", "flows", "subt",
           "emc-hit", "smc-hit", "smc-hit-pref", "dpcls-hit",
           "smc-miss+dpcls", "subt/hit");
    for (size_t f = 0; f < ARRAY_SIZE(flow_counts); f++) {
        for (size_t t = 0; t < ARRAY_SIZE(subtable_counts); t++) {
            struct paths_setup s;
            uint32_t *order;
            double smc_hit, smc_pref, dpcls_hit, smc_miss, emc_hit;
            struct path_counts c;
            double lookups;

            paths_setup(&s, flow_counts[f], subtable_counts[t]);
            order = make_order(N_PACKETS, s.n_flows);

            smc_hit = measure_path(&s, PATH_SMC_HIT, order, N_PACKETS, &c);
            check_rate(&c, true, 99.0);
            smc_pref = measure_path(&s, PATH_SMC_HIT_PREFETCH, order,
                                    N_PACKETS, &c);
            check_rate(&c, true, 99.0);
            dpcls_hit = measure_path(&s, PATH_DPCLS_HIT, order, N_PACKETS,
                                     &c);
            check_rate(&c, false, 100.0);
            lookups = (double) c.n_lookups / c.n_cls_hits;
            smc_flush(&s.smc);
            smc_miss = measure_path(&s, PATH_SMC_MISS_DPCLS_HIT, order,
                                    N_PACKETS, &c);
            check_rate(&c, false, 100.0);

            /* The EMC-hit reference: packets of the first EMC_ENTRIES / 2
             * flows, those of them that the EMC kept. */
            emc_flush(s.emc);
            for (uint32_t i = 0; i < EMC_ENTRIES / 2; i++) {
                emc_insert(s.emc, &s.keys[i],
                           dp_flow_table_get(&s.table, i));
            }
            free(order);
            order = make_order(N_PACKETS, EMC_ENTRIES / 2);
            for (size_t i = 0; i < N_PACKETS; i++) {
                while (!emc_lookup(s.emc, &s.keys[order[i]])) {
                    order[i] = (order[i] + 1) % (EMC_ENTRIES / 2);
                }
            }
            emc_hit = measure_path(&s, PATH_EMC_HIT, order, N_PACKETS, &c);
            check_rate(&c, true, 100.0);

            printf("%7u %4u %8.1f %8.1f %13.1f %10.1f %15.1f %9.2f\n",
                   s.n_flows, s.n_sub, emc_hit, smc_hit, smc_pref, dpcls_hit,
                   smc_miss, lookups);
            fflush(stdout);
            free(order);
            paths_teardown(&s);
        }
    }
}

int
main(int argc, char *argv[])
{
    const char *what = argc > 1 ? argv[1] : "all";

    rcu_register_thread();
    if (!strcmp(what, "smc-size") || !strcmp(what, "all")) {
        bench_smc_size();
    }
    if (!strcmp(what, "paths") || !strcmp(what, "all")) {
        bench_paths();
    }
    if (strcmp(what, "smc-size") && strcmp(what, "paths")
        && strcmp(what, "all")) {
        fprintf(stderr, "usage: %s [smc-size|paths|all]\n", argv[0]);
        return 1;
    }
    rcu_unregister_thread();
    return 0;
}
