/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Microbenchmark of the PMD's per-packet stages, in TSC cycles per packet,
 * printed as one markdown table.  Each stage calls the library functions
 * the PMD calls (miniflow_extract(), hash_rss(), emc_lookup(), ...), never
 * copies of them:
 *
 *   extract   miniflow_extract() of IPv4/UDP, IPv4/TCP, IPv6/UDP and
 *             802.1Q-tagged IPv4/UDP frames of 64 and 1514 bytes, laid out
 *             one after the other as in a receive ring;
 *   hash      hash_rss(), the software RSS hash of the same frames' keys;
 *   emc       emc_lookup() hits;
 *   smc       an EMC miss answered by the SMC, in the three passes of
 *             pipeline.c's SMC stage (prefetch, lookup, verify);
 *   dpcls     dpcls_lookup() of 32-key batches, all hits, flows picked at
 *             random, with 1, 4 and 16 subtables;
 *   upcall    pipeline_process() of batches whose every packet is a new
 *             megaflow: extract, cache misses, upcall_xlate() through a
 *             4-port NORMAL bridge with 4 rules, megaflow installation;
 *             and upcall_xlate() alone;
 *   pipeline  pipeline_process() of batches that all hit the EMC, the SMC
 *             or the classifier, for the whole per-packet cost.
 *
 * The pipeline's stage loops are static in pipeline.c, so the "emc" and
 * "smc" rows run the same public calls in the same order; the "upcall" and
 * "pipeline" rows go through pipeline_process() itself.
 *
 * Where the library has a generic and a specialised implementation of a
 * stage, both are measured and the generic one is the reference.  Only
 * the classifier has such a pair (its subtable lookup, specialised by
 * mask size, and dpcls_use_generic_lookup() to force the generic loop);
 * the two are run alternately, so that both see the same interference.
 *
 * Every figure is over batches of 32 packets; the best and the median of
 * N runs are shown, after a warm-up run.  Seeds are fixed.  The numbers
 * compare implementations on one machine; they are not absolutes.
 */
#include <autoconf.h>

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "dp/dp.h"
#include "../tests/dp-test.h"
#include "packet/dp-batch.h"
#include "packet/dp-packet.h"
#include "classifier/dpcls.h"
#include "classifier/emc.h"
#include "classifier/dp-flow.h"
#include "packet/hash.h"
#include "packet/miniflow.h"
#include "ofproto/ofproto-rules.h"
#include "dp/pipeline.h"
#include "dp/pmd.h"
#include "base/rcu.h"
#include "classifier/smc.h"
#include "ofproto/ofproto.h"
#include "ofproto/upcall.h"
#include "base/util.h"

#define BATCH DP_BATCH_SIZE
#define MAX_RUNS 101

/* Command-line settings. */
static int n_runs = 15;
static bool quick;

/* Packets per timed run: 'n' normally, an eighth of it with --quick. */
static size_t
bench_n_packets(size_t n)
{
    return quick ? n / 8 : n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Results. */

/* One run function: processes its packets once and returns the cycles
 * the timed part took and, in '*n_packets', how many packets it timed. */
typedef uint64_t bench_run_func(void *aux, size_t *n_packets);

/* Switches the implementation under test: 'generic' selects the
 * reference. */
typedef void bench_variant_func(void *aux, bool generic);

struct bench_result {
    double best;                /* Lowest cycles per packet of the runs. */
    double median;              /* Median cycles per packet. */
};

static int
bench_cmp_double(const void *a_, const void *b_)
{
    const double *a = a_;
    const double *b = b_;

    return *a < *b ? -1 : *a > *b;
}

static void
bench_summarise(double *samples, int n, struct bench_result *r)
{
    qsort(samples, n, sizeof *samples, bench_cmp_double);
    r->best = samples[0];
    r->median = (n % 2 ? samples[n / 2]
                 : (samples[n / 2 - 1] + samples[n / 2]) / 2);
}

static double
bench_once(bench_run_func *run, void *aux)
{
    size_t n = 0;
    uint64_t cycles = run(aux, &n);

    if (!n) {
        ovs_fatal(0, "a benchmark run timed no packet");
    }
    return (double) cycles / n;
}

/* Runs 'run' once to warm up, then 'n_runs' times. */
static void
bench_measure(bench_run_func *run, void *aux, struct bench_result *r)
{
    double samples[MAX_RUNS];

    bench_once(run, aux);
    for (int i = 0; i < n_runs; i++) {
        samples[i] = bench_once(run, aux);
    }
    bench_summarise(samples, n_runs, r);
}

/* Measures the specialised ('r') and the generic ('ref') implementation,
 * alternating between them run by run. */
static void
bench_measure_pair(bench_run_func *run, bench_variant_func *variant,
                   void *aux, struct bench_result *r,
                   struct bench_result *ref)
{
    double samples[MAX_RUNS], ref_samples[MAX_RUNS];

    variant(aux, true);
    bench_once(run, aux);
    variant(aux, false);
    bench_once(run, aux);
    for (int i = 0; i < n_runs; i++) {
        variant(aux, false);
        samples[i] = bench_once(run, aux);
        variant(aux, true);
        ref_samples[i] = bench_once(run, aux);
    }
    variant(aux, false);
    bench_summarise(samples, n_runs, r);
    bench_summarise(ref_samples, n_runs, ref);
}

static void
bench_print_header(void)
{
    printf("| stage | variant | cycles/packet (best of %d) | median of %d "
           "| reference cycles | ratio |\n", n_runs, n_runs);
    printf("|---|---|---:|---:|---:|---:|\n");
    fflush(stdout);
}

/* Prints one row; 'ref' is NULL where no reference implementation
 * exists.  The ratio is reference / measured: above 1, the specialised
 * implementation is faster. */
static void
bench_print_row(const char *stage, const char *variant,
                const struct bench_result *r, const struct bench_result *ref)
{
    printf("| %s | %s | %.1f | %.1f |", stage, variant, r->best, r->median);
    if (ref) {
        printf(" %.1f | %.2f |\n", ref->best, ref->best / r->best);
    } else {
        printf(" - | - |\n");
    }
    fflush(stdout);
}

/* Frames. */

enum frame_type {
    FRAME_IPV4_UDP,
    FRAME_IPV4_TCP,
    FRAME_IPV6_UDP,
    FRAME_VLAN_IPV4_UDP,
};

struct frame_type_info {
    enum frame_type type;
    const char *name;
};

static const struct frame_type_info frame_types[] = {
    { FRAME_IPV4_UDP, "IPv4/UDP" },
    { FRAME_IPV4_TCP, "IPv4/TCP" },
    { FRAME_IPV6_UDP, "IPv6/UDP" },
    { FRAME_VLAN_IPV4_UDP, "VLAN IPv4/UDP" },
};

static const uint32_t frame_sizes[] = { 64, 1514 };

static uint8_t *
frame_put16(uint8_t *p, uint16_t x)
{
    p[0] = x >> 8;
    p[1] = x;
    return p + 2;
}

static uint8_t *
frame_put32(uint8_t *p, uint32_t x)
{
    p = frame_put16(p, x >> 16);
    return frame_put16(p, x);
}

static uint8_t *
frame_put_mac(uint8_t *p, uint32_t host)
{
    static const uint8_t oui[2] = { 0x02, 0x00 };

    memcpy(p, oui, sizeof oui);
    return frame_put32(p + 2, host);
}

/* The IPv4 header checksum of the 20 bytes at 'ip'. */
static uint16_t
frame_ipv4_csum(const uint8_t *ip)
{
    uint32_t sum = 0;

    for (int i = 0; i < 20; i += 2) {
        sum += (ip[i] << 8) | ip[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/* The addresses and ports of one frame. */
struct frame_spec {
    enum frame_type type;
    uint32_t size;              /* Bytes, FCS excluded. */
    uint32_t mac_src;           /* Host part of the MAC addresses. */
    uint32_t mac_dst;
    uint32_t ip_src;            /* IPv4, or the low word of IPv6. */
    uint32_t ip_dst;
    uint16_t tp_src;
    uint16_t tp_dst;
};

/* Writes the frame 's' into 'buf' ('s->size' bytes, zero payload). */
static void
frame_build(uint8_t *buf, const struct frame_spec *s)
{
    uint8_t *p = buf;
    uint8_t *ip;
    uint32_t l3_size;
    uint8_t proto = s->type == FRAME_IPV4_TCP ? IP_PROTO_TCP : IP_PROTO_UDP;

    memset(buf, 0, s->size);
    p = frame_put_mac(p, s->mac_dst);
    p = frame_put_mac(p, s->mac_src);
    if (s->type == FRAME_VLAN_IPV4_UDP) {
        p = frame_put16(p, ETH_TYPE_VLAN_8021Q);
        p = frame_put16(p, 10);                 /* VID 10, PCP 0. */
    }
    p = frame_put16(p, (s->type == FRAME_IPV6_UDP
                        ? ETH_TYPE_IPV6 : ETH_TYPE_IP));
    l3_size = s->size - (p - buf);
    ip = p;
    if (s->type == FRAME_IPV6_UDP) {
        p = frame_put32(p, 0x60000000);         /* Version 6. */
        p = frame_put16(p, l3_size - 40);       /* Payload length. */
        *p++ = proto;
        *p++ = 64;                              /* Hop limit. */
        p = frame_put32(p, 0x20010db8);
        p += 8;
        p = frame_put32(p, s->ip_src);
        p = frame_put32(p, 0x20010db8);
        p += 8;
        p = frame_put32(p, s->ip_dst);
    } else {
        *p++ = 0x45;
        *p++ = 0;
        p = frame_put16(p, l3_size);
        p = frame_put16(p, 0);                  /* ID. */
        p = frame_put16(p, 0x4000);             /* DF. */
        *p++ = 64;                              /* TTL. */
        *p++ = proto;
        p = frame_put16(p, 0);                  /* Checksum, below. */
        p = frame_put32(p, s->ip_src);
        p = frame_put32(p, s->ip_dst);
        frame_put16(ip + 10, frame_ipv4_csum(ip));
    }
    p = frame_put16(p, s->tp_src);
    p = frame_put16(p, s->tp_dst);
    if (proto == IP_PROTO_TCP) {
        p = frame_put32(p, 1);                  /* Sequence number. */
        p = frame_put32(p, 0);                  /* Acknowledgement. */
        *p++ = 5 << 4;                          /* Header length. */
        *p++ = 0x18;                            /* PSH, ACK. */
        frame_put16(p, 65535);                  /* Window. */
    } else {
        frame_put16(p, s->size - (p - 4 - buf)); /* UDP length. */
    }
}

/* A pool of frames one after the other, as a receive ring holds them. */
struct frame_pool {
    uint8_t *mem;
    struct dp_packet *packets;
    size_t n;
    size_t stride;
};

/* Creates 'n' frames of 'type' and 'size' with random addresses and
 * ports, arriving on port 1. */
static void
frame_pool_init(struct frame_pool *pool, enum frame_type type, uint32_t size,
                size_t n)
{
    pool->n = n;
    pool->stride = ROUND_UP(DP_PACKET_HEADROOM + size, CACHE_LINE_SIZE);
    pool->mem = xzalloc_cacheline(n * pool->stride);
    pool->packets = xmalloc(n * sizeof *pool->packets);
    for (size_t i = 0; i < n; i++) {
        uint8_t *frame = pool->mem + i * pool->stride + DP_PACKET_HEADROOM;
        struct frame_spec s = { .type = type, .size = size, .tp_dst = 53 };

        /* One statement per draw: the order is fixed, so are the
         * frames. */
        s.mac_src = rng() & 0xffff;
        s.mac_dst = rng() & 0xffff;
        s.ip_src = 0x0a000000 | (rng() & 0xffffff);
        s.ip_dst = 0x0b000000 | (rng() & 0xffffff);
        s.tp_src = 1024 + rng() % 60000;
        frame_build(frame, &s);
        dp_packet_init(&pool->packets[i], frame, size, 1);
    }
}

/* Aborts unless the frames of 'pool' parse down to the transport header
 * (and their VLAN tag, for 'type'): a figure for a parse that stopped
 * early would mean nothing. */
static void
frame_pool_check(const struct frame_pool *pool, enum frame_type type)
{
    uint64_t want = (UINT64_C(1) << FLOW_WORD(tp_src))
                    | (UINT64_C(1) << FLOW_WORD(nw_proto));

    if (type == FRAME_VLAN_IPV4_UDP) {
        want |= UINT64_C(1) << FLOW_WORD(vlans_tci);
    }
    for (size_t i = 0; i < pool->n; i++) {
        struct netdev_flow_key key;

        miniflow_extract(&pool->packets[i], &key);
        if ((key.mf.map & want) != want) {
            ovs_fatal(0, "frame %zu of type %d: map %#"PRIx64, i, type,
                      key.mf.map);
        }
    }
}

static void
frame_pool_uninit(struct frame_pool *pool)
{
    free(pool->mem);
    free(pool->packets);
}

/* Stage: miniflow extract. */

struct extract_aux {
    struct frame_pool *pool;
    size_t n_packets;
    uint64_t sink;
};

static uint64_t
extract_run(void *aux_, size_t *n_packets)
{
    struct extract_aux *aux = aux_;
    struct netdev_flow_key keys[BATCH];
    const struct frame_pool *pool = aux->pool;
    uint64_t start = cycles_now();
    size_t p = 0;

    for (size_t done = 0; done < aux->n_packets; done += BATCH) {
        for (size_t k = 0; k < BATCH; k++) {
            /* As pipeline.c's extract stage does. */
            if (k + 1 < BATCH) {
                PREFETCH(pool->packets[p + k + 1].data);
            }
            miniflow_extract(&pool->packets[p + k], &keys[k]);
        }
        aux->sink += keys[BATCH - 1].len;
        p = p + BATCH < pool->n ? p + BATCH : 0;
    }
    *n_packets = aux->n_packets;
    return cycles_now() - start;
}

/* Stage: RSS hash. */

struct hash_aux {
    struct netdev_flow_key *keys;
    size_t n_keys;
    size_t n_packets;
    uint64_t sink;
};

static uint64_t
hash_run(void *aux_, size_t *n_packets)
{
    struct hash_aux *aux = aux_;
    uint64_t start = cycles_now();
    uint32_t sum = 0;
    size_t p = 0;

    for (size_t done = 0; done < aux->n_packets; done += BATCH) {
        for (size_t k = 0; k < BATCH; k++) {
            sum += hash_rss(&aux->keys[p + k]);
        }
        p = p + BATCH < aux->n_keys ? p + BATCH : 0;
    }
    aux->sink += sum;
    *n_packets = aux->n_packets;
    return cycles_now() - start;
}

#define N_POOL_FRAMES 256

static void
bench_extract_and_hash(bool do_extract, bool do_hash)
{
    for (size_t s = 0; s < ARRAY_SIZE(frame_sizes); s++) {
        for (size_t t = 0; t < ARRAY_SIZE(frame_types); t++) {
            struct frame_pool pool;
            struct bench_result r;
            char variant[64];

            frame_pool_init(&pool, frame_types[t].type, frame_sizes[s],
                            N_POOL_FRAMES);
            frame_pool_check(&pool, frame_types[t].type);
            snprintf(variant, sizeof variant, "%s, %"PRIu32" B",
                     frame_types[t].name, frame_sizes[s]);
            if (do_extract) {
                struct extract_aux aux = {
                    .pool = &pool,
                    .n_packets = bench_n_packets(1 << 20),
                };

                bench_measure(extract_run, &aux, &r);
                bench_print_row("miniflow extract", variant, &r, NULL);
            }
            if (do_hash && frame_sizes[s] == frame_sizes[0]) {
                /* The hash reads the key only: frame size plays no
                 * part. */
                struct hash_aux aux = {
                    .n_keys = pool.n,
                    .n_packets = bench_n_packets(1 << 21),
                };

                aux.keys = xmalloc(pool.n * sizeof *aux.keys);
                for (size_t i = 0; i < pool.n; i++) {
                    miniflow_extract(&pool.packets[i], &aux.keys[i]);
                }
                bench_measure(hash_run, &aux, &r);
                snprintf(variant, sizeof variant, "hash_rss(), %s",
                         frame_types[t].name);
                bench_print_row("RSS hash", variant, &r, NULL);
                free(aux.keys);
            }
            frame_pool_uninit(&pool);
        }
    }
}

/* Stages: EMC, SMC, dpcls. */

#define W(FIELD) (UINT64_C(1) << FLOW_WORD(FIELD))

/* Flows for the cache stages: IPv4/UDP keys, extracted from frames, with
 * their RSS hash, and megaflows of the shape of an IPv4 forwarding rule
 * (in_port, dl_type, an nw_src prefix, nw_dst, nw_proto: three words, a
 * specialised classifier instance), a different prefix per subtable,
 * spread evenly, so that a hit visits (n + 1) / 2 subtables on average. */
struct cache_setup {
    uint32_t n_flows;
    uint32_t n_sub;
    struct netdev_flow_key *keys;
    struct dp_flow_table table;
    struct dpcls *cls;
    struct emc_cache *emc;
    struct smc_cache smc;
    uint32_t *order;            /* Flow of each timed packet. */
    size_t n_packets;
    uint64_t n_hits;            /* Hits in the last run. */
};

/* Extracts the key of flow 'i' of 'n_sub' subtables, on 'in_port'. */
static void
cache_make_key(struct netdev_flow_key *key, uint32_t i, uint32_t n_sub,
               uint16_t in_port)
{
    uint8_t frame[64];
    struct dp_packet packet;
    struct frame_spec s = {
        .type = FRAME_IPV4_UDP,
        .size = sizeof frame,
        .mac_src = 1,
        .mac_dst = 2,
        .ip_src = ((i % n_sub) << 24) | 0x0a0001,
        .ip_dst = 0x0b000000 + i / n_sub,
        .tp_src = 1024 + (i & 0x7fff),
        .tp_dst = 53,
    };

    frame_build(frame, &s);
    dp_packet_init(&packet, frame, sizeof frame, in_port);
    miniflow_extract(&packet, key);
    key->hash = hash_rss(key);
}

static void
cache_make_mask(struct netdev_flow_key *mask, uint32_t sub)
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

static void
cache_setup_init(struct cache_setup *s, uint32_t n_flows, uint32_t n_sub,
                 size_t n_packets)
{
    static const struct dp_action output = { DP_ACTION_OUTPUT, 2 };
    struct netdev_flow_key mask, other;

    memset(s, 0, sizeof *s);
    s->n_flows = n_flows;
    s->n_sub = n_sub;
    s->keys = xmalloc(n_flows * sizeof *s->keys);
    dp_flow_table_init(&s->table);
    s->cls = dpcls_create();
    s->emc = xzalloc_cacheline(sizeof *s->emc);
    emc_init(s->emc);
    smc_init(&s->smc);
    for (uint32_t i = 0; i < n_flows; i++) {
        struct dp_flow *flow;

        cache_make_key(&s->keys[i], i, n_sub, 1);
        cache_make_mask(&mask, i % n_sub);
        flow = dp_flow_table_add(&s->table, &s->keys[i], &mask, 1, &output, 1,
                              0);
        dpcls_insert(s->cls, &flow->cr, &s->keys[i], &mask);
        smc_insert(&s->smc, s->keys[i].hash, flow->index);
    }
    if (dpcls_n_subtables(s->cls) != n_sub) {
        ovs_fatal(0, "%zu subtables, not %"PRIu32,
                  dpcls_n_subtables(s->cls), n_sub);
    }

    /* The EMC full of flows of another port: every lookup of ours reads a
     * full slot and misses, as when there are more flows than it holds. */
    for (uint32_t i = 0; i < 4 * EMC_ENTRIES; i++) {
        cache_make_key(&other, (UINT32_C(1) << 23) + i, 1, 2);
        emc_insert(s->emc, &other, dp_flow_table_get(&s->table, i % n_flows));
    }

    s->n_packets = n_packets;
    s->order = xmalloc(n_packets * sizeof *s->order);
    for (size_t i = 0; i < n_packets; i++) {
        s->order[i] = rng() % n_flows;
    }
}

static void
cache_setup_uninit(struct cache_setup *s)
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
    free(s->order);
}

/* Fills 'batch' with the keys of packets 'p' to 'p + BATCH' of 's'.  The
 * copy is not timed: in the datapath the keys are fresh from
 * miniflow_extract(), in cache. */
static void
cache_load_batch(const struct cache_setup *s, size_t p,
                 struct netdev_flow_key batch[BATCH])
{
    for (size_t k = 0; k < BATCH; k++) {
        batch[k] = s->keys[s->order[p + k]];
    }
}

static uint64_t
emc_hit_run(void *aux, size_t *n_packets)
{
    struct cache_setup *s = aux;
    struct netdev_flow_key batch[BATCH];
    uint64_t cycles = 0;

    s->n_hits = 0;
    for (size_t p = 0; p + BATCH <= s->n_packets; p += BATCH) {
        uint64_t start;
        uint32_t n_hits = 0;

        cache_load_batch(s, p, batch);
        start = cycles_now();
        for (size_t k = 0; k < BATCH; k++) {
            n_hits += emc_lookup(s->emc, &batch[k]) != NULL;
        }
        cycles += cycles_now() - start;
        s->n_hits += n_hits;
    }
    *n_packets = s->n_packets / BATCH * BATCH;
    return cycles;
}

/* EMC lookups that miss, then pipeline.c's SMC stage on the misses:
 * prefetch every bucket, look up and prefetch every candidate flow, then
 * verify each candidate. */
static uint64_t
smc_hit_run(void *aux, size_t *n_packets)
{
    struct cache_setup *s = aux;
    struct netdev_flow_key batch[BATCH];
    uint64_t cycles = 0;

    s->n_hits = 0;
    for (size_t p = 0; p + BATCH <= s->n_packets; p += BATCH) {
        struct dp_flow *candidates[BATCH];
        uint8_t misses[BATCH];
        uint32_t n_misses = 0;
        uint32_t n_hits = 0;
        uint64_t start;

        cache_load_batch(s, p, batch);
        start = cycles_now();
        for (uint32_t k = 0; k < BATCH; k++) {
            if (!emc_lookup(s->emc, &batch[k])) {
                misses[n_misses++] = k;
            }
        }
        for (uint32_t m = 0; m < n_misses; m++) {
            smc_prefetch(&s->smc, batch[misses[m]].hash);
        }
        for (uint32_t m = 0; m < n_misses; m++) {
            uint32_t idx = smc_lookup(&s->smc, batch[misses[m]].hash);
            struct dp_flow *flow = (idx == SMC_INVALID_INDEX ? NULL
                                    : dp_flow_table_get(&s->table, idx));

            if (flow) {
                PREFETCH(flow);
                PREFETCH((char *) flow + CACHE_LINE_SIZE);
            }
            candidates[m] = flow;
        }
        for (uint32_t m = 0; m < n_misses; m++) {
            struct dp_flow *flow = candidates[m];

            n_hits += (flow && flow->in_port == 1
                       && dpcls_rule_matches_key(&flow->cr,
                                                 &batch[misses[m]]));
        }
        cycles += cycles_now() - start;
        s->n_hits += n_hits;
    }
    *n_packets = s->n_packets / BATCH * BATCH;
    return cycles;
}

/* dpcls_lookup() of whole batches, as pipeline.c's classifier stage calls
 * it. */
static uint64_t
dpcls_hit_run(void *aux, size_t *n_packets)
{
    struct cache_setup *s = aux;
    struct netdev_flow_key batch[BATCH];
    const struct netdev_flow_key *keys[BATCH];
    struct dpcls_rule *rules[BATCH];
    uint64_t cycles = 0;

    for (size_t k = 0; k < BATCH; k++) {
        keys[k] = &batch[k];
    }
    s->n_hits = 0;
    for (size_t p = 0; p + BATCH <= s->n_packets; p += BATCH) {
        uint32_t n_lookups = 0;
        uint64_t start;

        cache_load_batch(s, p, batch);
        start = cycles_now();
        dpcls_lookup(s->cls, keys, rules, BATCH, &n_lookups);
        cycles += cycles_now() - start;
        for (size_t k = 0; k < BATCH; k++) {
            s->n_hits += rules[k] != NULL;
        }
    }
    *n_packets = s->n_packets / BATCH * BATCH;
    return cycles;
}

static void
dpcls_variant(void *aux, bool generic)
{
    struct cache_setup *s = aux;

    dpcls_use_generic_lookup(s->cls, generic);
}

/* Aborts unless every packet of the last run of 's' was a hit: a figure
 * for a path the packets did not take would mean nothing. */
static void
cache_check_hits(const struct cache_setup *s, const char *what)
{
    uint64_t n = s->n_packets / BATCH * BATCH;

    if (s->n_hits != n) {
        ovs_fatal(0, "%s: %"PRIu64" hits of %"PRIu64" packets", what,
                  s->n_hits, n);
    }
}

#define CACHE_N_FLOWS 20000

static void
bench_emc_smc(bool do_emc, bool do_smc)
{
    struct cache_setup s;
    struct bench_result r;
    char variant[96];

    cache_setup_init(&s, CACHE_N_FLOWS, 1, bench_n_packets(1 << 19));
    if (do_smc) {
        bench_measure(smc_hit_run, &s, &r);
        cache_check_hits(&s, "SMC");
        snprintf(variant, sizeof variant, "EMC miss, SMC hit, %u flows",
                 CACHE_N_FLOWS);
        bench_print_row("SMC hit", variant, &r, NULL);
    }
    if (do_emc) {
        /* Packets of the first EMC_ENTRIES / 2 flows, those of them that
         * the EMC kept. */
        uint32_t n = EMC_ENTRIES / 2;

        emc_flush(s.emc);
        for (uint32_t i = 0; i < n; i++) {
            emc_insert(s.emc, &s.keys[i], dp_flow_table_get(&s.table, i));
        }
        for (size_t i = 0; i < s.n_packets; i++) {
            s.order[i] = rng() % n;
            while (!emc_lookup(s.emc, &s.keys[s.order[i]])) {
                s.order[i] = (s.order[i] + 1) % n;
            }
        }
        bench_measure(emc_hit_run, &s, &r);
        cache_check_hits(&s, "EMC");
        snprintf(variant, sizeof variant, "emc_lookup() hit, %"PRIu32
                 " flows", n);
        bench_print_row("EMC hit", variant, &r, NULL);
    }
    cache_setup_uninit(&s);
}

static void
bench_dpcls(void)
{
    static const uint32_t subtable_counts[] = { 1, 4, 16 };

    for (size_t t = 0; t < ARRAY_SIZE(subtable_counts); t++) {
        struct bench_result r, ref;
        struct cache_setup s;
        char variant[96];

        cache_setup_init(&s, CACHE_N_FLOWS, subtable_counts[t],
                         bench_n_packets(1 << 19));
        bench_measure_pair(dpcls_hit_run, dpcls_variant, &s, &r, &ref);
        cache_check_hits(&s, "dpcls");
        snprintf(variant, sizeof variant, "%"PRIu32" subtable%s, %u flows, "
                 "3-word mask: specialised vs generic", s.n_sub,
                 s.n_sub > 1 ? "s" : "", CACHE_N_FLOWS);
        bench_print_row("dpcls lookup", variant, &r, &ref);
        cache_setup_uninit(&s);
    }
}

/* Stages through pipeline_process(): upcalls and whole-pipeline hits. */

#define BR_N_PORTS 4
#define BR_HOSTS_PER_PORT 256
#define BR_N_HOSTS (BR_N_PORTS * BR_HOSTS_PER_PORT)
#define BR_NOW_MS 1000

/* The rules in front of NORMAL: ARP and most IPv4 go to NORMAL, discard
 * traffic and one prefix are dropped.  A packet of the benchmark meets
 * all four, so its megaflow also holds the bits that tell it apart from
 * the three above the one it matches. */
static const struct {
    int priority;
    const char *match;
    const char *actions;
} br_rules[] = {
    { 400, "arp", "normal" },
    { 300, "udp,tp_dst=9", "drop" },
    { 200, "ip,nw_dst=192.0.2.0/24", "drop" },
    { 100, "ip", "normal" },
};

/* A datapath with a NORMAL bridge of BR_N_PORTS ports (trunks of every
 * VLAN), 'br_rules', and BR_N_HOSTS hosts, BR_HOSTS_PER_PORT behind each
 * port, whose MACs it has learned.  Its ports have no netdev, so that
 * transmit batches are dropped (and counted) instead of sent. */
struct bridge_setup {
    struct dp *dp;
    size_t n_batches;
    uint8_t *frames;            /* BATCH frames of 64 bytes per batch. */
    struct dp_packet *packets;  /* BATCH per batch. */
    struct pmd *pmd;            /* PMD under test. */
    enum pmd_stat_type expect;  /* Counter each packet must add to. */
    uint64_t n_expected;        /* Increment of 'expect' in the last run. */
};

static uint32_t
br_host_port(uint32_t host)
{
    return host % BR_N_PORTS;
}

/* The frame of packet 'k' of batch 'b': a new pair of hosts for every
 * packet, on the batch's input port b % BR_N_PORTS, to a host behind the
 * next port. */
static void
br_frame_spec(struct frame_spec *s, size_t b, size_t k)
{
    uint32_t port = b % BR_N_PORTS;
    uint32_t j = (b / BR_N_PORTS) * BATCH + k;
    uint32_t src = (j % BR_HOSTS_PER_PORT) * BR_N_PORTS + port;
    uint32_t dst = (src + 1 + BR_N_PORTS * (j / BR_HOSTS_PER_PORT))
                   % BR_N_HOSTS;

    memset(s, 0, sizeof *s);
    s->type = FRAME_IPV4_UDP;
    s->size = 64;
    s->mac_src = src;
    s->mac_dst = dst;
    s->ip_src = 0x0a000000 | src;
    s->ip_dst = 0x0a000000 | dst;
    s->tp_src = 1024 + j;
    s->tp_dst = 53;
}

static void
bridge_setup_init(struct bridge_setup *s, size_t n_batches)
{
    struct ofproto_rule *rules[ARRAY_SIZE(br_rules)];
    struct dp *dp = dp_test_create(BR_N_PORTS);

    if (n_batches / BR_N_PORTS * BATCH
        > BR_HOSTS_PER_PORT * (BR_N_HOSTS / BR_N_PORTS - 1)) {
        ovs_fatal(0, "too many batches for distinct host pairs");
    }
    memset(s, 0, sizeof *s);
    s->dp = dp;
    for (size_t i = 0; i < ARRAY_SIZE(br_rules); i++) {
        char *error = ofproto_rule_create(br_rules[i].priority, 0,
                                          br_rules[i].match,
                                          br_rules[i].actions, NULL, NULL,
                                          &rules[i]);

        if (error) {
            ovs_fatal(0, "rule \"%s\": %s", br_rules[i].match, error);
        }
    }
    ofproto_set_rules(dp->bridges[0], rules, ARRAY_SIZE(rules));
    dp->settings.emc_insert_inv_prob = 1;
    dp->settings.smc_enable = true;
    dp->settings.flow_idle_ms = 10000;
    dp->settings.flow_limit = UINT32_MAX;

    /* Every host sends a broadcast, so that NORMAL knows them all. */
    for (uint32_t h = 0; h < BR_N_HOSTS; h++) {
        struct xlate_out *out = xmalloc(sizeof *out);
        struct flow flow;

        memset(&flow, 0, sizeof flow);
        flow.in_port = br_host_port(h);
        frame_put_mac(flow.dl_src.ea, h);
        memset(flow.dl_dst.ea, 0xff, sizeof flow.dl_dst.ea);
        flow.dl_type = htons(ETH_TYPE_ARP);
        if (upcall_xlate(dp->bridges[0], &flow, true, BR_NOW_MS, out)) {
            ovs_fatal(0, "learning host %"PRIu32" failed", h);
        }
        free(out);
    }

    s->n_batches = n_batches;
    s->frames = xzalloc_cacheline(n_batches * BATCH * 64);
    s->packets = xmalloc(n_batches * BATCH * sizeof *s->packets);
    for (size_t b = 0; b < n_batches; b++) {
        for (size_t k = 0; k < BATCH; k++) {
            struct frame_spec spec;

            br_frame_spec(&spec, b, k);
            frame_build(&s->frames[(b * BATCH + k) * 64], &spec);
        }
    }
}

static void
bridge_setup_uninit(struct bridge_setup *s)
{
    /* dp_test_destroy() also waits for the flows deleted meanwhile. */
    dp_test_destroy(s->dp, s->pmd);
    free(s->frames);
    free(s->packets);
}

/* Runs every batch of 's' once through its PMD and returns the cycles
 * pipeline_process() took.  Each batch's packets are reset first, as a
 * receive would leave them (no RSS hash), and its transmit batches
 * dropped afterwards, untimed. */
static uint64_t
bridge_run_batches(struct bridge_setup *s)
{
    struct pmd *pmd = s->pmd;
    uint64_t before = pmd->perf.counters[s->expect];
    uint64_t cycles = 0;

    pmd->now_ms = BR_NOW_MS;
    for (size_t b = 0; b < s->n_batches; b++) {
        uint16_t in_port = b % BR_N_PORTS;
        struct dp_batch batch;
        uint64_t start;

        dp_batch_init(&batch);
        for (size_t k = 0; k < BATCH; k++) {
            size_t i = b * BATCH + k;

            dp_packet_init(&s->packets[i], &s->frames[i * 64], 64, in_port);
            dp_batch_add(&batch, &s->packets[i]);
        }
        start = cycles_now();
        pipeline_process(pmd, &batch, in_port);
        cycles += cycles_now() - start;
        pmd_flush_tx(pmd);
    }
    s->n_expected = pmd->perf.counters[s->expect] - before;
    return cycles;
}

/* Runs the batches of 's' on a new PMD, with empty caches, counting the
 * packets that add to PMD counter 'expect'. */
static uint64_t
upcall_run__(struct bridge_setup *s, enum pmd_stat_type expect,
             size_t *n_packets)
{
    pmd_destroy(s->pmd);
    s->pmd = pmd_create(s->dp, 0);
    s->expect = expect;
    *n_packets = s->n_batches * BATCH;
    return bridge_run_batches(s);
}

/* Every packet is a miss, an upcall and a megaflow installation. */
static uint64_t
upcall_run(void *aux, size_t *n_packets)
{
    return upcall_run__(aux, PMD_STAT_MISS, n_packets);
}

/* The same with the flow limit at 0: every packet an upcall whose flow
 * is used for the packet alone and installed nowhere. */
static uint64_t
upcall_over_limit_run(void *aux, size_t *n_packets)
{
    return upcall_run__(aux, PMD_STAT_OVER_FLOW_LIMIT, n_packets);
}

static uint64_t
pipeline_hit_run(void *aux, size_t *n_packets)
{
    struct bridge_setup *s = aux;

    *n_packets = s->n_batches * BATCH;
    return bridge_run_batches(s);
}

/* upcall_xlate() alone, with learning, on the expanded keys of the
 * benchmark's packets. */
struct xlate_aux {
    struct ofproto *ofproto;
    struct flow *flows;
    size_t n_flows;
    struct xlate_out *out;
    uint64_t n_outputs;
};

static uint64_t
xlate_run(void *aux_, size_t *n_packets)
{
    struct xlate_aux *aux = aux_;
    uint64_t start = cycles_now();

    for (size_t i = 0; i < aux->n_flows; i++) {
        if (upcall_xlate(aux->ofproto, &aux->flows[i], true, BR_NOW_MS,
                         aux->out)) {
            ovs_fatal(0, "upcall_xlate() failed");
        }
        aux->n_outputs += aux->out->n_actions;
    }
    *n_packets = aux->n_flows;
    return cycles_now() - start;
}

/* Aborts unless at least 'min_pct' percent of the packets of the last run
 * of 's' took the path the measurement is about, and returns the
 * percentage. */
static double
bridge_check(const struct bridge_setup *s, const char *what, double min_pct)
{
    uint64_t n = s->n_batches * BATCH;
    double pct = 100.0 * s->n_expected / n;

    if (pct < min_pct) {
        ovs_fatal(0, "%s: %"PRIu64" of %"PRIu64" packets took that path",
                  what, s->n_expected, n);
    }
    return pct;
}

static void
bench_upcall(void)
{
    struct bridge_setup s;
    struct xlate_aux xaux;
    struct bench_result r;
    char variant[128];

    bridge_setup_init(&s, bench_n_packets(512));
    bench_measure(upcall_run, &s, &r);
    bridge_check(&s, "upcall", 100.0);
    if (dpcls_n_rules(pmd_get_dpcls(s.pmd, 0))
        != s.n_batches / BR_N_PORTS * BATCH) {
        ovs_fatal(0, "upcall: megaflows were not installed");
    }
    snprintf(variant, sizeof variant, "pipeline_process(), every packet a "
             "new megaflow, %zu per run (NORMAL, %d ports, %zu rules)",
             s.n_batches * BATCH, BR_N_PORTS, ARRAY_SIZE(br_rules));
    bench_print_row("upcall", variant, &r, NULL);

    /* Over the flow limit, where each packet's flow lives for its batch
     * only. */
    s.dp->settings.flow_limit = 0;
    bench_measure(upcall_over_limit_run, &s, &r);
    bridge_check(&s, "upcall over the flow limit", 100.0);
    bench_print_row("upcall", "pipeline_process() over the flow limit "
                    "(flow-limit 0): every packet an upcall, no megaflow",
                    &r, NULL);
    s.dp->settings.flow_limit = UINT32_MAX;

    /* The translation alone, on the same packets. */
    memset(&xaux, 0, sizeof xaux);
    xaux.ofproto = s.dp->bridges[0];
    xaux.n_flows = s.n_batches * BATCH;
    xaux.flows = xmalloc(xaux.n_flows * sizeof *xaux.flows);
    xaux.out = xmalloc(sizeof *xaux.out);
    for (size_t i = 0; i < xaux.n_flows; i++) {
        struct netdev_flow_key key;

        dp_packet_init(&s.packets[i], &s.frames[i * 64], 64,
                       (i / BATCH) % BR_N_PORTS);
        miniflow_extract(&s.packets[i], &key);
        miniflow_expand(&key.mf, &xaux.flows[i]);
    }
    bench_measure(xlate_run, &xaux, &r);
    if (xaux.n_outputs != (uint64_t) (n_runs + 1) * xaux.n_flows) {
        ovs_fatal(0, "upcall_xlate(): not one output per packet");
    }
    bench_print_row("upcall", "upcall_xlate() alone, same packets", &r,
                    NULL);
    free(xaux.flows);
    free(xaux.out);
    bridge_setup_uninit(&s);
}

static void
bench_pipeline(void)
{
    static const struct {
        const char *name;
        enum pmd_stat_type expect;
        bool emc;               /* EMC kept and inserted into. */
        bool smc;               /* SMC enabled. */
        double min_pct;         /* Least share of packets on that path. */
    } paths[] = {
        /* A few flows may collide in the EMC's two ways; those go on to
         * the SMC. */
        { "EMC hits", PMD_STAT_EMC_HIT, true, true, 98.0 },
        { "SMC hits (EMC empty)", PMD_STAT_SMC_HIT, false, true, 100.0 },
        { "dpcls hits, 1 subtable (EMC empty, SMC off)",
          PMD_STAT_MASKED_HIT, false, false, 100.0 },
    };
    struct bridge_setup s;

    /* As many flows as fit the EMC without collisions to speak of. */
    bridge_setup_init(&s, 32);
    s.pmd = pmd_create(s.dp, 0);
    s.expect = PMD_STAT_MISS;
    bridge_run_batches(&s);
    bridge_check(&s, "pipeline setup", 100.0);

    for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
        struct bench_result r;
        char variant[128];
        double pct;

        s.dp->settings.emc_insert_inv_prob = paths[i].emc ? 1 : 0;
        s.dp->settings.smc_enable = paths[i].smc;
        if (!paths[i].emc) {
            emc_flush(s.pmd->emc);
        }
        s.expect = paths[i].expect;
        bench_measure(pipeline_hit_run, &s, &r);
        pct = bridge_check(&s, paths[i].name, paths[i].min_pct);
        snprintf(variant, sizeof variant, "pipeline_process() of 64 B "
                 "IPv4/UDP, %s (%.1f%%), %zu flows", paths[i].name, pct,
                 s.n_batches * BATCH);
        bench_print_row("pipeline", variant, &r, NULL);
    }
    bridge_setup_uninit(&s);
}

/* Command line. */

enum {
    STAGE_EXTRACT = 1 << 0,
    STAGE_HASH = 1 << 1,
    STAGE_EMC = 1 << 2,
    STAGE_SMC = 1 << 3,
    STAGE_DPCLS = 1 << 4,
    STAGE_UPCALL = 1 << 5,
    STAGE_PIPELINE = 1 << 6,
};

static const struct {
    const char *name;
    unsigned int stages;
    const char *help;
} commands[] = {
    { "extract", STAGE_EXTRACT, "miniflow_extract() of 8 frame kinds" },
    { "hash", STAGE_HASH, "hash_rss() of 4 key kinds" },
    { "emc", STAGE_EMC, "EMC hit" },
    { "smc", STAGE_SMC, "EMC miss, SMC hit" },
    { "dpcls", STAGE_DPCLS, "dpcls_lookup(), 1/4/16 subtables, "
      "specialised vs generic" },
    { "upcall", STAGE_UPCALL, "new megaflows through pipeline_process(); "
      "upcall_xlate()" },
    { "pipeline", STAGE_PIPELINE, "pipeline_process(), EMC/SMC/dpcls hits" },
    { "all", UINT_MAX, "all of the above (the default)" },
};

static void
usage(FILE *stream, const char *prog)
{
    fprintf(stream, "usage: %s [--runs N] [--quick] [STAGE...]\n"
           "Prints TSC cycles per packet of the PMD's stages as a markdown "
           "table.\n\n"
           "  --runs N   timed runs per figure, 1..%d (default 15; "
           "5 with --quick)\n"
           "  --quick    an eighth of the packets per run\n\n"
           "stages:\n", prog, MAX_RUNS);
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        fprintf(stream, "  %-10s %s\n", commands[i].name,
                commands[i].help);
    }
}

int
main(int argc, char *argv[])
{
    unsigned int stages = 0;
    bool runs_set = false;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        size_t c;

        if (!strcmp(arg, "--quick")) {
            quick = true;
            continue;
        } else if (!strcmp(arg, "--runs") && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);

            if (*end || n < 1 || n > MAX_RUNS) {
                fprintf(stderr, "%s: --runs wants 1..%d\n", argv[0],
                        MAX_RUNS);
                return 1;
            }
            n_runs = n;
            runs_set = true;
            continue;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout, argv[0]);
            return 0;
        }
        for (c = 0; c < ARRAY_SIZE(commands); c++) {
            if (!strcmp(arg, commands[c].name)) {
                stages |= commands[c].stages;
                break;
            }
        }
        if (c == ARRAY_SIZE(commands)) {
            fprintf(stderr, "%s: unknown argument \"%s\"\n", argv[0], arg);
            usage(stderr, argv[0]);
            return 1;
        }
    }
    if (!stages) {
        stages = UINT_MAX;
    }
    if (quick && !runs_set) {
        n_runs = 5;
    }

    rcu_register_thread();
    bench_print_header();
    if (stages & STAGE_EXTRACT) {
        bench_extract_and_hash(true, false);
    }
    if (stages & STAGE_HASH) {
        bench_extract_and_hash(false, true);
    }
    if (stages & (STAGE_EMC | STAGE_SMC)) {
        bench_emc_smc(stages & STAGE_EMC, stages & STAGE_SMC);
    }
    if (stages & STAGE_DPCLS) {
        bench_dpcls();
    }
    if (stages & STAGE_UPCALL) {
        bench_upcall();
    }
    if (stages & STAGE_PIPELINE) {
        bench_pipeline();
    }
    printf("\nTSC cycles per packet in %d-packet batches; ratio = "
           "reference / cycles (above 1: the specialised code is faster); "
           "\"-\": the library has no generic/specialised pair there.\n",
           BATCH);
    rcu_unregister();
    return 0;
}
