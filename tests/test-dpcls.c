/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the datapath classifier.  Every lookup result is checked
 * against a reference that expands keys and masks to struct flow and
 * compares them word by word: a returned rule must match the key (any
 * matching rule will do: megaflows have no priorities), and NULL is right
 * only if no rule matches.  On top of that: subtable creation and removal,
 * batches mixing hits and misses, the subtable lookup count, removal, table
 * growth to 100,000 rules, re-ranking by hits, and the specialised lookup
 * loops against the generic one on random masks of every size.
 */
#include <autoconf.h>
#include "classifier/dpcls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "packet/hash.h"
#include "base/util.h"

#define W(FIELD) (UINT64_C(1) << FLOW_WORD(FIELD))

/* A rule as a test keeps it: the classifier's rule plus what it was
 * inserted with, for the reference matcher. */
struct test_rule {
    struct dpcls_rule cr;
    struct netdev_flow_key key;
    struct netdev_flow_key mask;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void
key_from_flow(struct netdev_flow_key *key, const struct flow *flow,
              uint64_t map)
{
    memset(key, 0, sizeof *key);
    miniflow_from_flow(&key->mf, flow, map);
    key->len = miniflow_size(&key->mf);
    key->hash = 0;
}

/* An IPv4 packet key as miniflow_extract() would make it: Ethernet, IP and
 * transport words. */
static void
make_packet(struct netdev_flow_key *key, uint16_t in_port, uint32_t nw_src,
            uint32_t nw_dst, uint8_t proto, uint16_t tp_dst)
{
    struct flow f;

    memset(&f, 0, sizeof f);
    f.dl_dst.ea[5] = in_port;
    f.dl_type = htons(ETH_TYPE_IP);
    f.in_port = in_port;
    f.nw_src = htonl(nw_src);
    f.nw_dst = htonl(nw_dst);
    f.nw_ttl = 64;
    f.nw_proto = proto;
    f.tp_src = htons(1000);
    f.tp_dst = htons(tp_dst);
    key_from_flow(key, &f, W(dl_dst) | W(dl_type) | W(nw_src) | W(nw_proto)
                  | W(tp_src));
}

/* Masks used by the hand-written cases. */
enum test_mask {
    MASK_IN_PORT,               /* in_port. */
    MASK_DST24,                 /* in_port, dl_type, nw_dst/24. */
    MASK_DST32_TP,              /* in_port, dl_type, nw_dst, nw_proto,
                                 * tp_dst. */
    MASK_ALL_WILD,              /* Nothing: matches every packet. */
};

static void
make_mask(struct netdev_flow_key *mask, enum test_mask which)
{
    struct flow f;
    uint64_t map = 0;

    memset(&f, 0, sizeof f);
    switch (which) {
    case MASK_IN_PORT:
        f.in_port = 0xffff;
        map = W(in_port);
        break;
    case MASK_DST24:
        f.in_port = 0xffff;
        f.dl_type = 0xffff;
        f.nw_dst = htonl(0xffffff00);
        map = W(in_port) | W(nw_dst);
        break;
    case MASK_DST32_TP:
        f.in_port = 0xffff;
        f.dl_type = 0xffff;
        f.nw_dst = htonl(0xffffffff);
        f.nw_proto = 0xff;
        f.tp_dst = 0xffff;
        map = W(in_port) | W(nw_dst) | W(nw_proto) | W(tp_dst);
        break;
    case MASK_ALL_WILD:
        break;
    }
    key_from_flow(mask, &f, map);
}

/* The reference: does 'key' match 'r'? */
static bool
ref_matches(const struct test_rule *r, const struct netdev_flow_key *key)
{
    struct flow k, rk, m;
    const uint64_t *kw = (const uint64_t *) &k;
    const uint64_t *rw = (const uint64_t *) &rk;
    const uint64_t *mw = (const uint64_t *) &m;

    miniflow_expand(&key->mf, &k);
    miniflow_expand(&r->key.mf, &rk);
    miniflow_expand(&r->mask.mf, &m);
    for (size_t i = 0; i < FLOW_U64S; i++) {
        if ((kw[i] & mw[i]) != (rw[i] & mw[i])) {
            return false;
        }
    }
    return true;
}

static bool
ref_any_matches(const struct test_rule *rules, size_t n_rules,
                const struct netdev_flow_key *key)
{
    for (size_t i = 0; i < n_rules; i++) {
        if (rules[i].cr.subtable && ref_matches(&rules[i], key)) {
            return true;
        }
    }
    return false;
}

/* dpcls_rule_matches_key() must agree with the reference on every pair of
 * an inserted rule and a key, hit or miss.  Returns the number of pairs
 * that disagree. */
static size_t
check_matches_key(const struct test_rule *rules, size_t n_rules,
                  const struct netdev_flow_key *keys, size_t n_keys)
{
    size_t n_bad = 0;

    for (size_t r = 0; r < n_rules; r++) {
        if (!rules[r].cr.subtable) {
            continue;
        }
        for (size_t k = 0; k < n_keys; k++) {
            n_bad += (dpcls_rule_matches_key(&rules[r].cr, &keys[k])
                      != ref_matches(&rules[r], &keys[k]));
        }
    }
    return n_bad;
}

static void
insert_rule(struct dpcls *cls, struct test_rule *r)
{
    dpcls_insert(cls, &r->cr, &r->key, &r->mask);
}

/* Looks up 'n' keys in one batch and checks each answer against the
 * reference over 'rules'.  Returns the number of keys matched. */
static size_t
check_batch(struct dpcls *cls, const struct netdev_flow_key *keys,
            size_t n, const struct test_rule *rules, size_t n_rules,
            const char *what)
{
    const struct netdev_flow_key *kp[32];
    struct dpcls_rule *found[32];
    uint32_t n_lookups = 0;
    size_t n_matched = 0;
    bool all;

    for (size_t i = 0; i < n; i++) {
        kp[i] = &keys[i];
        found[i] = (struct dpcls_rule *) &found;   /* Must be overwritten. */
    }
    all = dpcls_lookup(cls, kp, found, n, &n_lookups);
    for (size_t i = 0; i < n; i++) {
        bool want = ref_any_matches(rules, n_rules, &keys[i]);

        if (found[i]) {
            const struct test_rule *r = CONTAINER_OF(found[i],
                                                     struct test_rule, cr);

            CHECK(ref_matches(r, &keys[i]), "%s: key %zu got a rule that "
                  "does not match it", what, i);
            CHECK(dpcls_rule_matches_key(found[i], &keys[i]),
                  "%s: key %zu: dpcls_rule_matches_key() disagrees with "
                  "lookup", what, i);
            n_matched++;
        }
        CHECK(!found[i] == !want, "%s: key %zu: %s, reference says %s",
              what, i, found[i] ? "hit" : "miss", want ? "hit" : "miss");
    }
    CHECK(all == (n_matched == n), "%s: returned %d with %zu of %zu matched",
          what, all, n_matched, n);
    CHECK(n_lookups >= n_matched
          && n_lookups <= n_matched * dpcls_n_subtables(cls),
          "%s: %u subtable lookups for %zu hits over %zu subtables", what,
          n_lookups, n_matched, dpcls_n_subtables(cls));
    return n_matched;
}

static void
test_empty(void)
{
    struct dpcls *cls = dpcls_create();
    struct netdev_flow_key key;
    const struct netdev_flow_key *kp = &key;
    struct dpcls_rule *found = (struct dpcls_rule *) &found;
    uint32_t n_lookups = 7;

    make_packet(&key, 1, 1, 2, 6, 80);
    CHECK(!dpcls_lookup(cls, &kp, &found, 1, &n_lookups),
          "empty classifier matched");
    CHECK(!found, "miss did not set the rule to NULL");
    CHECK(n_lookups == 7, "miss changed n_lookups to %u", n_lookups);
    CHECK(dpcls_lookup(cls, &kp, &found, 0, &n_lookups),
          "empty batch is not all-matched");
    CHECK(dpcls_n_subtables(cls) == 0 && dpcls_n_rules(cls) == 0,
          "new classifier not empty");
    dpcls_destroy(cls);
    dpcls_destroy(NULL);
}

/* Hand-written rules and packets. */
static void
test_masks_and_matches(void)
{
    static const struct {
        enum test_mask mask;
        uint16_t in_port;
        uint32_t nw_dst;
        uint16_t tp_dst;
    } rule_specs[] = {
        { MASK_IN_PORT, 9, 0, 0 },                      /* r0 */
        { MASK_DST24, 1, 0x0a000100, 0 },               /* r1 */
        { MASK_DST24, 1, 0x0a000200, 0 },               /* r2 */
        { MASK_DST24, 2, 0x0a000100, 0 },               /* r3 */
        { MASK_DST32_TP, 1, 0x0a000105, 80 },           /* r4 */
        { MASK_DST32_TP, 1, 0x0a000305, 443 },          /* r5 */
    };
    static const struct {
        const char *what;
        uint16_t in_port;
        uint32_t nw_dst;
        uint16_t tp_dst;
        int rule_a, rule_b;     /* Acceptable answers; -1: none. */
    } cases[] = {
        { "in_port only", 9, 0x01020304, 1, 0, -1 },
        { "dst/24, port 1", 1, 0x0a0001fe, 22, 1, -1 },
        { "dst/24, other net", 1, 0x0a000201, 22, 2, -1 },
        { "dst/24, port 2", 2, 0x0a000101, 22, 3, -1 },
        { "dst/24 and exact both match", 1, 0x0a000105, 80, 1, 4 },
        { "exact only", 1, 0x0a000305, 443, 5, -1 },
        { "exact, wrong port number", 1, 0x0a000305, 444, -1, -1 },
        { "no net matches", 1, 0x0b000101, 80, -1, -1 },
        { "in_port with no rule", 5, 0x0a000101, 80, -1, -1 },
        { "dst/24 net of port 2, on port 3", 3, 0x0a000101, 80, -1, -1 },
    };
    struct test_rule rules[ARRAY_SIZE(rule_specs)];
    struct netdev_flow_key keys[ARRAY_SIZE(cases)];
    struct dpcls *cls = dpcls_create();
    size_t n_subtables[] = { 1, 2, 2, 2, 3, 3 };

    memset(rules, 0, sizeof rules);
    for (size_t i = 0; i < ARRAY_SIZE(rule_specs); i++) {
        make_packet(&rules[i].key, rule_specs[i].in_port, 0x01010101,
                    rule_specs[i].nw_dst, 6, rule_specs[i].tp_dst);
        make_mask(&rules[i].mask, rule_specs[i].mask);
        insert_rule(cls, &rules[i]);
        CHECK(dpcls_n_subtables(cls) == n_subtables[i],
              "after rule %zu: %zu subtables, want %zu", i,
              dpcls_n_subtables(cls), n_subtables[i]);
        CHECK(dpcls_n_rules(cls) == i + 1, "after rule %zu: %zu rules", i,
              dpcls_n_rules(cls));
        CHECK(miniflow_equal(&dpcls_rule_mask(&rules[i].cr)->mf,
                             &rules[i].mask.mf),
              "rule %zu: dpcls_rule_mask() is not the inserted mask", i);
        CHECK(rules[i].cr.flow.hash
              == hash_masked_miniflow(&rules[i].key.mf, &rules[i].mask.mf),
              "rule %zu: hash is not the masked hash", i);
        CHECK(rules[i].cr.flow.mf.map == rules[i].mask.mf.map,
              "rule %zu: masked key map differs from mask map", i);
    }

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct netdev_flow_key *kp = &keys[i];
        struct dpcls_rule *found;
        uint32_t n_lookups = 0;
        int got;

        make_packet(&keys[i], cases[i].in_port, 0x02020202,
                    cases[i].nw_dst, 6, cases[i].tp_dst);
        dpcls_lookup(cls, &kp, &found, 1, &n_lookups);
        got = found ? CONTAINER_OF(found, struct test_rule, cr) - rules : -1;
        CHECK(got == cases[i].rule_a || (got >= 0 && got == cases[i].rule_b),
              "%s: got rule %d, want %d or %d", cases[i].what, got,
              cases[i].rule_a, cases[i].rule_b);
    }

    /* The same keys as one batch. */
    check_batch(cls, keys, ARRAY_SIZE(cases), rules, ARRAY_SIZE(rules),
                "hand batch");
    CHECK(!check_matches_key(rules, ARRAY_SIZE(rules), keys,
                             ARRAY_SIZE(cases)),
          "dpcls_rule_matches_key() disagrees with the reference");

    /* Removal: the key stops matching; the subtable goes with its last
     * rule. */
    dpcls_remove(cls, &rules[0].cr);
    CHECK(dpcls_n_subtables(cls) == 2, "removing the only in_port rule "
          "left %zu subtables", dpcls_n_subtables(cls));
    dpcls_remove(cls, &rules[5].cr);
    CHECK(dpcls_n_subtables(cls) == 2, "removing one of two exact rules "
          "left %zu subtables", dpcls_n_subtables(cls));
    CHECK(dpcls_n_rules(cls) == 4, "%zu rules after two removals",
          dpcls_n_rules(cls));
    check_batch(cls, keys, ARRAY_SIZE(cases), rules, ARRAY_SIZE(rules),
                "after removal");

    /* A rule that looks at nothing matches everything. */
    {
        struct test_rule wild;

        memset(&wild, 0, sizeof wild);
        make_packet(&wild.key, 1, 2, 3, 4, 5);
        make_mask(&wild.mask, MASK_ALL_WILD);
        insert_rule(cls, &wild);
        CHECK(dpcls_n_subtables(cls) == 3, "catch-all: %zu subtables",
              dpcls_n_subtables(cls));
        CHECK(check_batch(cls, keys, ARRAY_SIZE(cases), &wild, 1,
                          "catch-all") == ARRAY_SIZE(cases),
              "catch-all rule missed a key");
        dpcls_remove(cls, &wild.cr);
    }

    for (size_t i = 1; i < 5; i++) {
        dpcls_remove(cls, &rules[i].cr);
    }
    CHECK(dpcls_n_subtables(cls) == 0 && dpcls_n_rules(cls) == 0,
          "not empty after removing everything: %zu subtables, %zu rules",
          dpcls_n_subtables(cls), dpcls_n_rules(cls));
    dpcls_destroy(cls);
}

/* Three subtables; keys hit them in known numbers; checks the lookup
 * count before and after re-ranking. */
static void
test_ranking(void)
{
    static const enum test_mask masks[3] = {
        MASK_IN_PORT, MASK_DST24, MASK_DST32_TP
    };
    struct test_rule rules[3];
    struct netdev_flow_key keys[3];
    const struct netdev_flow_key *kp[32];
    struct dpcls_rule *found[32];
    struct dpcls *cls = dpcls_create();
    static const struct {
        const char *what;
        int hits[3];            /* Lookups of key i before the sort. */
        int want_rank[3];       /* 1-based rank of subtable i after. */
    } cases[] = {
        { "reverse", { 1, 5, 10 }, { 3, 2, 1 } },
        { "middle first", { 2, 7, 1 }, { 2, 1, 3 } },
        { "no hits keeps the order", { 0, 0, 0 }, { 2, 1, 3 } },
        { "ties keep the order", { 4, 4, 4 }, { 2, 1, 3 } },
        { "first again", { 9, 0, 1 }, { 1, 3, 2 } },
    };

    memset(rules, 0, sizeof rules);
    for (int i = 0; i < 3; i++) {
        /* Rule i matches key i only: distinct ports and addresses. */
        make_packet(&rules[i].key, 10 + i, 0, 0x0a000000 + (i << 8) + 1,
                    17, 53);
        make_mask(&rules[i].mask, masks[i]);
        insert_rule(cls, &rules[i]);
        make_packet(&keys[i], 10 + i, 5, 0x0a000000 + (i << 8) + 1, 17, 53);
    }

    /* New subtables rank in creation order. */
    for (int i = 0; i < 3; i++) {
        uint32_t n_lookups = 0;

        kp[0] = &keys[i];
        dpcls_lookup(cls, kp, found, 1, &n_lookups);
        CHECK(found[0] == &rules[i].cr && n_lookups == i + 1,
              "initial rank of subtable %d: %u lookups", i, n_lookups);
    }
    dpcls_sort_subtables(cls);  /* One hit each: order stays. */

    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        size_t n = 0;

        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < cases[c].hits[i]; j++) {
                kp[n++] = &keys[i];
            }
        }
        dpcls_lookup(cls, kp, found, n, NULL);
        dpcls_sort_subtables(cls);

        for (int i = 0; i < 3; i++) {
            uint32_t n_lookups = 0;

            kp[0] = &keys[i];
            dpcls_lookup(cls, kp, found, 1, &n_lookups);
            CHECK(n_lookups == cases[c].want_rank[i],
                  "%s: subtable %d ranks %u, want %d", cases[c].what, i,
                  n_lookups, cases[c].want_rank[i]);
        }
        /* Those three probes hit once each: a sort now would keep the
         * order, since equal counts keep their places. */
        dpcls_sort_subtables(cls);
    }

    /* The lookup count of a mixed batch: sum of ranks of the hits. */
    {
        uint32_t n_lookups = 0;

        kp[0] = &keys[0];       /* Rank 1. */
        kp[1] = &keys[1];       /* Rank 3. */
        kp[2] = &keys[2];       /* Rank 2. */
        kp[3] = &keys[0];
        dpcls_lookup(cls, kp, found, 4, &n_lookups);
        CHECK(n_lookups == 1 + 3 + 2 + 1, "batch lookup count %u, want 7",
              n_lookups);
    }

    for (int i = 0; i < 3; i++) {
        dpcls_remove(cls, &rules[i].cr);
    }
    dpcls_destroy(cls);
}

/* 32-key batches mixing hits and misses over rules in several masks. */
static void
test_batches(void)
{
    enum { N_RULES = 600 };
    static const enum test_mask masks[] = {
        MASK_IN_PORT, MASK_DST24, MASK_DST32_TP
    };
    struct test_rule *rules = xcalloc(N_RULES, sizeof *rules);
    struct dpcls *cls = dpcls_create();
    size_t n_hits = 0, n_keys = 0;

    for (size_t i = 0; i < N_RULES; i++) {
        enum test_mask m = masks[i % ARRAY_SIZE(masks)];

        make_packet(&rules[i].key, 100 + i % 7, 0, 0x0a000000 + (i << 8) + i,
                    6, 1000 + i);
        make_mask(&rules[i].mask, m);
        insert_rule(cls, &rules[i]);
    }
    CHECK(dpcls_n_subtables(cls) == 3, "%zu subtables",
          dpcls_n_subtables(cls));

    for (int b = 0; b < 200; b++) {
        struct netdev_flow_key keys[32];
        size_t n = b % 3 ? 32 : 1 + b % 32;

        for (size_t i = 0; i < n; i++) {
            size_t r = rng() % N_RULES;

            /* Half the keys come from a rule, the other half are noise
             * that mostly misses. */
            uint64_t r1 = rng(), r2 = rng(), r3 = rng();

            if (r1 & 1) {
                make_packet(&keys[i], 100 + r % 7, r2,
                            0x0a000000 + (r << 8) + r, 6, 1000 + r);
            } else {
                make_packet(&keys[i], 100 + (r1 >> 8) % 10, r2,
                            0x0a000000 + (r3 & 0xffffff), 6, r3 >> 32);
            }
        }
        n_hits += check_batch(cls, keys, n, rules, N_RULES, "batch");
        n_keys += n;
    }
    CHECK(n_hits > n_keys / 4 && n_hits < n_keys,
          "batches not mixed: %zu hits of %zu keys", n_hits, n_keys);

    for (size_t i = 0; i < N_RULES; i++) {
        dpcls_remove(cls, &rules[i].cr);
    }
    CHECK(dpcls_n_subtables(cls) == 0, "%zu subtables left",
          dpcls_n_subtables(cls));
    dpcls_destroy(cls);
    free(rules);
}

/* 100,000 rules in one subtable: growth by rehashing, then removal in a
 * scrambled order with shrinking, checking lookups all along. */
static void
test_growth(void)
{
    enum { N = 100000 };
    struct test_rule *rules = xcalloc(N, sizeof *rules);
    struct netdev_flow_key *keys = xcalloc(N, sizeof *keys);
    struct dpcls *cls = dpcls_create();
    size_t n_wrong = 0, n_missed = 0;
    uint32_t *order = xcalloc(N, sizeof *order);

    for (uint32_t i = 0; i < N; i++) {
        make_packet(&rules[i].key, 1, 0, 0x0a000000 + i, 6, 80);
        make_mask(&rules[i].mask, MASK_DST32_TP);
        insert_rule(cls, &rules[i]);
        make_packet(&keys[i], 1, rng(), 0x0a000000 + i, 6, 80);
    }
    CHECK(dpcls_n_subtables(cls) == 1 && dpcls_n_rules(cls) == N,
          "%zu subtables, %zu rules", dpcls_n_subtables(cls),
          dpcls_n_rules(cls));

    for (uint32_t i = 0; i < N; i += 32) {
        const struct netdev_flow_key *kp[32];
        struct dpcls_rule *found[32];
        size_t n = MIN(32, N - i);

        for (size_t j = 0; j < n; j++) {
            kp[j] = &keys[i + j];
        }
        dpcls_lookup(cls, kp, found, n, NULL);
        for (size_t j = 0; j < n; j++) {
            n_wrong += found[j] != &rules[i + j].cr;
        }
    }
    CHECK(!n_wrong, "%zu of %d keys did not find their own rule", n_wrong,
          N);

    /* Remove all but every 1000th rule, in a scrambled order. */
    for (uint32_t i = 0; i < N; i++) {
        order[i] = i;
    }
    for (uint32_t i = N - 1; i > 0; i--) {
        uint32_t j = rng() % (i + 1);
        uint32_t tmp = order[i];

        order[i] = order[j];
        order[j] = tmp;
    }
    for (uint32_t i = 0; i < N; i++) {
        if (order[i] % 1000) {
            dpcls_remove(cls, &rules[order[i]].cr);
        }
    }
    CHECK(dpcls_n_rules(cls) == N / 1000, "%zu rules left",
          dpcls_n_rules(cls));
    for (uint32_t i = 0; i < N; i++) {
        const struct netdev_flow_key *kp = &keys[i];
        struct dpcls_rule *found;

        dpcls_lookup(cls, &kp, &found, 1, NULL);
        if (i % 1000) {
            n_wrong += found != NULL;
        } else {
            n_missed += found != &rules[i].cr;
        }
    }
    CHECK(!n_wrong && !n_missed, "after removal: %zu removed rules found, "
          "%zu kept rules missed", n_wrong, n_missed);

    for (uint32_t i = 0; i < N; i += 1000) {
        dpcls_remove(cls, &rules[i].cr);
    }
    CHECK(dpcls_n_subtables(cls) == 0, "%zu subtables left",
          dpcls_n_subtables(cls));
    dpcls_destroy(cls);
    free(rules);
    free(keys);
    free(order);
}

/* A random word, an eighth of the time from a small set, so that random
 * keys agree with random rules on the masked bits now and then. */
static uint64_t
random_word(void)
{
    static const uint64_t values[] = {
        0, 1, 0xff00, UINT64_MAX, 0x0123456789abcdefULL, 0x8000000000000000ULL,
    };
    uint64_t r = rng();

    return r % 8 ? rng() : values[(r >> 8) % ARRAY_SIZE(values)];
}

static uint64_t
random_mask_word(void)
{
    static const uint64_t values[] = {
        UINT64_MAX, 0xff, 0xffff0000ffff0000ULL, 0xfff0, 0x00ffffffffffff00ULL,
        0,
    };

    return values[rng() % ARRAY_SIZE(values)];
}

/* A map of 'n' distinct random words. */
static uint64_t
random_map(int n)
{
    uint64_t map = 0;

    while (count_1bits(map) < n) {
        map |= UINT64_C(1) << (rng() % FLOW_U64S);
    }
    return map;
}

static void
random_key(struct netdev_flow_key *key)
{
    struct flow f;
    uint64_t *w = (uint64_t *) &f;

    for (size_t i = 0; i < FLOW_U64S; i++) {
        w[i] = random_word();
    }
    /* Mostly full maps: two absent words read as 0 and agree. */
    key_from_flow(key, &f, random_map(FLOW_U64S - rng() % 5));
}

/* Makes 'key' a copy of the key of 'r', half the time with one of the
 * words that 'r' looks at changed. */
static void
perturbed_key(struct netdev_flow_key *key, const struct test_rule *r)
{
    struct flow f;
    uint64_t *w = (uint64_t *) &f;
    uint64_t map = r->key.mf.map;
    uint64_t r1 = rng();

    miniflow_expand(&r->key.mf, &f);
    if (r1 & 1) {
        int n = count_1bits(r->mask.mf.map);
        uint64_t mask_map = r->mask.mf.map;
        int idx = 0;

        for (int skip = (r1 >> 8) % n; skip >= 0; skip--) {
            idx = rightmost_1bit_idx(mask_map);
            mask_map &= mask_map - 1;
        }
        w[idx] = rng();
        map |= UINT64_C(1) << idx;
    }
    key_from_flow(key, &f, map);
}

/* Random masks of every size, so that each specialised loop and the
 * generic one serve some subtables; two classifiers with the same rules,
 * one forced to the generic loop, must agree on every lookup. */
static void
test_specialised_vs_generic(void)
{
    enum { N_MASKS = 40, RULES_PER_MASK = 30, N_RULES = N_MASKS * 30 };
    static const int sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 14 };
    struct netdev_flow_key masks[N_MASKS];
    struct test_rule *rules_s = xcalloc(N_RULES, sizeof *rules_s);
    struct test_rule *rules_g = xcalloc(N_RULES, sizeof *rules_g);
    struct dpcls *spec = dpcls_create();
    struct dpcls *gen = dpcls_create();
    size_t n_diff = 0, n_hits = 0, n_keys = 0;

    dpcls_use_generic_lookup(gen, true);
    for (int m = 0; m < N_MASKS; m++) {
        uint64_t map = random_map(sizes[m % ARRAY_SIZE(sizes)]);
        struct flow f;
        uint64_t *w = (uint64_t *) &f;

        /* Some mask words are named but zero; at least one is not, or
         * the subtable would match every key. */
        memset(&f, 0, sizeof f);
        for (size_t i = 0; i < FLOW_U64S; i++) {
            w[i] = random_mask_word();
        }
        w[rightmost_1bit_idx(map)] = UINT64_MAX;
        key_from_flow(&masks[m], &f, map);
    }
    for (int i = 0; i < N_RULES; i++) {
        random_key(&rules_s[i].key);
        rules_s[i].mask = masks[i % N_MASKS];
        rules_g[i].key = rules_s[i].key;
        rules_g[i].mask = rules_s[i].mask;
        insert_rule(spec, &rules_s[i]);
        insert_rule(gen, &rules_g[i]);
    }
    CHECK(dpcls_n_subtables(spec) == dpcls_n_subtables(gen),
          "%zu vs %zu subtables", dpcls_n_subtables(spec),
          dpcls_n_subtables(gen));

    for (int b = 0; b < 300; b++) {
        struct netdev_flow_key keys[32];
        const struct netdev_flow_key *kp[32];
        struct dpcls_rule *found_s[32], *found_g[32];
        uint32_t lookups_s = 0, lookups_g = 0;
        bool all_s, all_g;

        for (int i = 0; i < 32; i++) {
            uint64_t r = rng();

            if (r & 1) {
                perturbed_key(&keys[i], &rules_s[(r >> 8) % N_RULES]);
            } else {
                random_key(&keys[i]);
            }
            kp[i] = &keys[i];
        }
        all_s = dpcls_lookup(spec, kp, found_s, 32, &lookups_s);
        all_g = dpcls_lookup(gen, kp, found_g, 32, &lookups_g);
        for (int i = 0; i < 32; i++) {
            ptrdiff_t is = (found_s[i]
                            ? CONTAINER_OF(found_s[i], struct test_rule, cr)
                              - rules_s : -1);
            ptrdiff_t ig = (found_g[i]
                            ? CONTAINER_OF(found_g[i], struct test_rule, cr)
                              - rules_g : -1);

            n_diff += is != ig;
            n_hits += is >= 0;
        }
        n_keys += 32;
        CHECK(all_s == all_g && lookups_s == lookups_g,
              "batch %d: specialised %d/%u, generic %d/%u", b, all_s,
              lookups_s, all_g, lookups_g);
        if (b % 10 == 0) {
            size_t n_bad;

            check_batch(spec, keys, 32, rules_s, N_RULES, "specialised");
            check_batch(gen, keys, 32, rules_g, N_RULES, "generic");
            n_bad = check_matches_key(rules_s, N_RULES, keys, 32);
            CHECK(!n_bad, "batch %d: dpcls_rule_matches_key() disagrees "
                  "with the reference on %zu pairs", b, n_bad);
        }
        if (b % 50 == 49) {
            dpcls_sort_subtables(spec);
            dpcls_sort_subtables(gen);
        }
    }
    CHECK(!n_diff, "%zu of %zu keys got different rules", n_diff, n_keys);
    CHECK(n_hits > n_keys / 4 && n_hits < n_keys,
          "random keys not mixed: %zu hits of %zu", n_hits, n_keys);

    for (int i = 0; i < N_RULES; i++) {
        dpcls_remove(spec, &rules_s[i].cr);
        dpcls_remove(gen, &rules_g[i].cr);
    }
    CHECK(!dpcls_n_subtables(spec) && !dpcls_n_subtables(gen),
          "subtables left after removing all rules");
    dpcls_destroy(spec);
    dpcls_destroy(gen);
    free(rules_s);
    free(rules_g);
}

int
main(void)
{
    test_empty();
    test_masks_and_matches();
    test_ranking();
    test_batches();
    test_growth();
    test_specialised_vs_generic();

    return check_finish("test-dpcls");
}
