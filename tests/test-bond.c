/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for bond: the balance-slb hash, mode names, bucket distribution
 * over 2 to 4 members, member errors, failover (only the failed member's
 * buckets move, least loaded first), restore plus rebalance for a table of
 * synthetic per-bucket loads, the rebalance interval (including 0),
 * active-backup selection and bond/set-active-member's errors, map
 * publication under a concurrent RCU reader, and bond/show's exact text
 * and JSON.
 *
 * Loads are injected the way PMDs count them, with bond_map_account() on
 * the published map, spread over several PMD slots.  Random numbers come
 * from a fixed-seed generator.
 */
#include <autoconf.h>
#include "ofproto/bond.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "base/rcu.h"
#include "base/util.h"
#include "base/vlog.h"

static uint32_t rand_state;

static uint32_t
rand_next(void)
{
    rand_state = rand_state * 1103515245 + 12345;
    return (rand_state >> 16) ^ (rand_state << 16);
}

/* Creates a bond in 'mode' at time 0 with 'n' enabled members "m1".."mN"
 * on ports 1..N. */
static struct bond *
make_bond(enum bond_mode mode, int n)
{
    struct bond *bond = bond_create("b0", mode, 0);

    for (int i = 1; i <= n; i++) {
        char name[16];

        snprintf(name, sizeof name, "m%d", i);
        CHECK_INT(bond_member_add(bond, i, name, true), 0);
    }
    return bond;
}

/* Counts, per port 1..n (index 0 for BOND_PORT_NONE), the buckets of the
 * published map. */
static void
count_buckets(const struct bond *bond, int n, int *counts)
{
    const struct bond_map *map = bond_map_get(bond);

    memset(counts, 0, (n + 1) * sizeof *counts);
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        uint16_t port = bond_map_port(map, b);

        if (port == BOND_PORT_NONE) {
            counts[0]++;
        } else if (port >= 1 && port <= n) {
            counts[port]++;
        } else {
            CHECK(false, "bucket %d maps to unexpected port %u", b, port);
        }
    }
}

static void
test_slb_hash(void)
{
    static const struct eth_addr base = { { 0x02, 0x00, 0x5e, 0, 0, 0 } };
    int buckets[BOND_N_BUCKETS] = { 0 };
    int min = INT_MAX, max = 0;
    struct eth_addr a = base;

    /* Deterministic, never 0 (0 means "RSS hash" in the action). */
    CHECK_INT(bond_slb_hash(base, 10), bond_slb_hash(base, 10));
    CHECK(bond_slb_hash(base, 10) != bond_slb_hash(base, 11),
          "VLAN does not change the hash");
    a.ea[5] = 1;
    CHECK(bond_slb_hash(base, 0) != bond_slb_hash(a, 0),
          "MAC does not change the hash");

    /* 64 MACs per bucket on average: every bucket used, none far off. */
    for (uint32_t i = 0; i < 64 * BOND_N_BUCKETS; i++) {
        uint32_t h;

        a.ea[3] = i >> 16;
        a.ea[4] = i >> 8;
        a.ea[5] = i;
        h = bond_slb_hash(a, i % 7);
        CHECK(h != 0, "hash of MAC %"PRIu32" is 0", i);
        buckets[h & BOND_MASK]++;
    }
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        min = MIN(min, buckets[b]);
        max = MAX(max, buckets[b]);
    }
    CHECK(min >= 32 && max <= 100, "bucket counts from %d to %d", min, max);
}

static void
test_mode_names(void)
{
    static const struct {
        const char *name;
        bool ok;
        enum bond_mode mode;
    } cases[] = {
        { "active-backup", true, BOND_MODE_ACTIVE_BACKUP },
        { "balance-slb", true, BOND_MODE_BALANCE_SLB },
        { "balance-tcp", true, BOND_MODE_BALANCE_TCP },
        { "balance-xor", false, 0 },
        { "", false, 0 },
        { "Balance-tcp", false, 0 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        enum bond_mode mode = BOND_MODE_ACTIVE_BACKUP;
        bool ok = bond_mode_from_string(cases[i].name, &mode);

        CHECK(ok == cases[i].ok, "\"%s\": parsed %d", cases[i].name, ok);
        if (ok && cases[i].ok) {
            CHECK_INT(mode, cases[i].mode);
            CHECK_STR(bond_mode_to_string(mode), cases[i].name);
        }
    }
}

static void
test_distribution(void)
{
    for (int n = 2; n <= 4; n++) {
        struct bond *bond = make_bond(BOND_MODE_BALANCE_TCP, n);
        const struct bond_map *map = bond_map_get(bond);
        int hits[5] = { 0 };
        int counts[5];
        int n_hashes = 40000;

        check_set_context("%d members", n);
        count_buckets(bond, n, counts);
        CHECK_INT(counts[0], 0);
        for (int p = 1; p <= n; p++) {
            /* Bucket counts within one of each other. */
            CHECK(counts[p] >= BOND_N_BUCKETS / n
                  && counts[p] <= BOND_N_BUCKETS / n + 1,
                  "port %d has %d buckets", p, counts[p]);
            CHECK_INT(bond_member_n_buckets(bond, p, NULL), counts[p]);
        }

        rand_state = 42;
        for (int i = 0; i < n_hashes; i++) {
            uint16_t port = bond_map_port(map, rand_next());

            CHECK(port >= 1 && port <= n, "hash to port %u", port);
            if (port >= 1 && port <= n) {
                hits[port]++;
            }
        }
        for (int p = 1; p <= n; p++) {
            int expected = n_hashes / n;

            CHECK(hits[p] > expected * 9 / 10 && hits[p] < expected * 11 / 10,
                  "port %d got %d of %d hashes", p, hits[p], n_hashes);
        }
        bond_destroy(bond);
    }
    check_set_context("%s", "");
}

static void
test_member_errors(void)
{
    struct bond *bond = make_bond(BOND_MODE_BALANCE_SLB, 2);
    int counts[3];

    CHECK_INT(bond_member_add(bond, 1, "other", true), EEXIST);
    CHECK_INT(bond_member_add(bond, 9, "m2", true), EEXIST);
    CHECK_INT(bond_member_add(bond, BOND_PORT_NONE, "x", true), EINVAL);
    CHECK_INT(bond_member_remove(bond, 9), ENOENT);
    CHECK_INT(bond_member_set_enabled(bond, 9, true), ENOENT);
    CHECK_INT(bond_member_set_admin(bond, "nope", true), ENOENT);
    CHECK_INT(bond_member_port(bond, "m2"), 2);
    CHECK_INT(bond_member_port(bond, "nope"), BOND_PORT_NONE);

    /* Removing a member hands all of its buckets to the other one. */
    CHECK_INT(bond_member_remove(bond, 1), 0);
    count_buckets(bond, 2, counts);
    CHECK_INT(counts[2], BOND_N_BUCKETS);
    CHECK_INT(bond_member_remove(bond, 2), 0);
    count_buckets(bond, 2, counts);
    CHECK_INT(counts[0], BOND_N_BUCKETS);

    /* A member added with its link down gets nothing until it is up. */
    CHECK_INT(bond_member_add(bond, 5, "m5", false), 0);
    CHECK(!bond_member_is_enabled(bond, 5), "m5 enabled while down");
    CHECK_INT(bond_map_port(bond_map_get(bond), 17), BOND_PORT_NONE);
    CHECK_INT(bond_member_set_enabled(bond, 5, true), 0);
    CHECK_INT(bond_map_port(bond_map_get(bond), 17), 5);

    /* Administrative disable wins over link up, and comes back. */
    CHECK_INT(bond_member_set_admin(bond, "m5", false), 0);
    CHECK(!bond_member_is_enabled(bond, 5), "m5 enabled while disabled");
    CHECK_INT(bond_map_port(bond_map_get(bond), 17), BOND_PORT_NONE);
    CHECK_INT(bond_member_set_admin(bond, "m5", true), 0);
    CHECK_INT(bond_map_port(bond_map_get(bond), 17), 5);
    bond_destroy(bond);
}

/* Adds 'bytes' to 'bucket' as PMD slot 'pmd' would. */
static void
account(struct bond *bond, unsigned int pmd, int bucket, uint64_t bytes)
{
    bond_map_account(bond_map_get(bond), pmd, bucket, bytes);
}

static void
test_failover(void)
{
    struct bond *bond = make_bond(BOND_MODE_BALANCE_TCP, 3);
    const struct bond_map *map = bond_map_get(bond);
    uint16_t before[BOND_N_BUCKETS];
    int n_failed = 0;
    int counts[4];

    /* Member 1 carries more than member 3 before the failure, so member
     * 3 must receive more of member 2's buckets. */
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        uint16_t port = bond_map_port(map, b);

        account(bond, b % 3, b, port == 1 ? 300000 : 100000);
    }
    memcpy(before, map->ports, sizeof before);

    CHECK_INT(bond_member_set_enabled(bond, 2, false), 0);
    map = bond_map_get(bond);
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        if (before[b] != 2) {
            CHECK_INT(map->ports[b], before[b]);
        } else {
            n_failed++;
            CHECK(map->ports[b] == 1 || map->ports[b] == 3,
                  "bucket %d went to port %u", b, map->ports[b]);
        }
    }
    CHECK(n_failed > 0, "member 2 had no buckets");

    /* Member 2's buckets all carry less than the gap between members 1
     * and 3, so the least loaded member 3 takes every one of them. */
    count_buckets(bond, 3, counts);
    CHECK_INT(counts[2], 0);
    CHECK_INT(counts[3], BOND_N_BUCKETS - counts[1]);
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        if (before[b] == 2) {
            CHECK_INT(map->ports[b], 3);
        }
    }

    /* All members down: every bucket maps to "none". */
    bond_member_set_enabled(bond, 1, false);
    bond_member_set_enabled(bond, 3, false);
    count_buckets(bond, 3, counts);
    CHECK_INT(counts[0], BOND_N_BUCKETS);
    bond_member_set_enabled(bond, 3, true);
    count_buckets(bond, 3, counts);
    CHECK_INT(counts[3], BOND_N_BUCKETS);
    bond_destroy(bond);
}

/* Per-bucket load patterns for test_rebalance(). */
enum load_pattern {
    LOAD_UNIFORM,               /* Every bucket alike. */
    LOAD_RANDOM,                /* Random, 0 to 2 MB. */
    LOAD_SKEWED,                /* Bucket b carries (b % 16 + 1)^2. */
    LOAD_ELEPHANT,              /* One bucket dwarfs all others. */
};

static uint64_t
pattern_load(enum load_pattern pattern, int b)
{
    switch (pattern) {
    case LOAD_UNIFORM:
        return 200000;
    case LOAD_RANDOM:
        return rand_next() % 2000000;
    case LOAD_SKEWED:
        return 10000 * (uint64_t) (b % 16 + 1) * (b % 16 + 1);
    case LOAD_ELEPHANT:
        return b == 77 ? 1000000000 : 50000;
    }
    return 0;
}

static void
test_rebalance(void)
{
    static const struct {
        const char *name;
        int n_members;
        enum load_pattern pattern;
        bool balanceable;       /* Tolerance reachable. */
    } cases[] = {
        { "uniform-2", 2, LOAD_UNIFORM, true },
        { "uniform-3", 3, LOAD_UNIFORM, true },
        { "random-2", 2, LOAD_RANDOM, true },
        { "random-4", 4, LOAD_RANDOM, true },
        { "skewed-3", 3, LOAD_SKEWED, true },
        { "random-3", 3, LOAD_RANDOM, true },
        { "elephant-2", 2, LOAD_ELEPHANT, false },
    };

    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        int n = cases[c].n_members;
        struct bond *bond = make_bond(BOND_MODE_BALANCE_TCP, n);
        uint64_t loads[BOND_N_BUCKETS];
        uint64_t member[5] = { 0 };
        const struct bond_map *map;
        uint64_t max = 0, min = UINT64_MAX;
        int n_moved;
        int counts[5];

        check_set_context("%s", cases[c].name);
        rand_state = 7 + c;

        /* Member 1 fails and comes back: it holds no loaded bucket. */
        bond_member_set_enabled(bond, 1, false);
        for (int b = 0; b < BOND_N_BUCKETS; b++) {
            loads[b] = pattern_load(cases[c].pattern, b);
            account(bond, b % 5, b, loads[b] / 2);
            account(bond, (b + 1) % 5, b, loads[b] - loads[b] / 2);
        }
        bond_member_set_enabled(bond, 1, true);
        count_buckets(bond, n, counts);
        CHECK_INT(counts[0], 0);

        /* Not due yet. */
        CHECK_INT(bond_rebalance(bond, BOND_REBALANCE_INTERVAL_DEFAULT - 1),
                  0);
        n_moved = bond_rebalance(bond, BOND_REBALANCE_INTERVAL_DEFAULT);
        CHECK_INT(bond_next_rebalance(bond),
                  2 * BOND_REBALANCE_INTERVAL_DEFAULT);

        map = bond_map_get(bond);
        for (int b = 0; b < BOND_N_BUCKETS; b++) {
            member[map->ports[b]] += loads[b];
        }
        for (int p = 1; p <= n; p++) {
            max = MAX(max, member[p]);
            min = MIN(min, member[p]);
        }
        if (cases[c].balanceable) {
            CHECK(n_moved > 0, "nothing moved");
            CHECK(max - min < 64 * 1024 || max - min <= max / 16,
                  "loads from %"PRIu64" to %"PRIu64" after %d moves",
                  min, max, n_moved);
            CHECK(member[1] > 0, "restored member got no load back");
        } else {
            /* The elephant stays where it is, and no move of another
             * bucket could narrow the gap. */
            CHECK(max - min > max / 16, "elephant balanced?");
        }
        /* With no new traffic, the next rebalance has nothing to do. */
        CHECK_INT(bond_rebalance(bond, 2 * BOND_REBALANCE_INTERVAL_DEFAULT),
                  0);
        bond_destroy(bond);
    }
    check_set_context("%s", "");
}

static void
test_rebalance_interval(void)
{
    struct bond *bond = make_bond(BOND_MODE_BALANCE_SLB, 2);
    const struct bond_map *map = bond_map_get(bond);
    char *text;

    /* All the load on member 1. */
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        if (bond_map_port(map, b) == 1) {
            account(bond, 0, b, 1000000);
        }
    }

    bond_set_rebalance_interval(bond, 0, 0);
    CHECK_INT(bond_next_rebalance(bond), LLONG_MAX);
    CHECK_INT(bond_rebalance(bond, 1000000), 0);
    CHECK(bond_map_get(bond) == map, "map republished with interval 0");
    text = bond_show(bond, 5);
    CHECK(!strstr(text, "next rebalance") && !strstr(text, "hash "),
          "interval 0 shows rebalance state:\n%s", text);
    free(text);

    bond_set_rebalance_interval(bond, 500, 1000);
    CHECK_INT(bond_next_rebalance(bond), 1500);
    CHECK_INT(bond_rebalance(bond, 1499), 0);
    CHECK(bond_rebalance(bond, 1500) > 0, "no rebalance at 1500");
    CHECK(bond_map_get(bond) != map, "no new map after rebalance");
    CHECK_INT(bond_next_rebalance(bond), 2000);
    bond_destroy(bond);

    /* Active-backup never rebalances. */
    bond = make_bond(BOND_MODE_ACTIVE_BACKUP, 2);
    account(bond, 0, 3, 1000000);
    CHECK_INT(bond_next_rebalance(bond), LLONG_MAX);
    CHECK_INT(bond_rebalance(bond, 1000000), 0);
    bond_destroy(bond);
}

static void
check_all_buckets(const struct bond *bond, uint16_t port)
{
    const struct bond_map *map = bond_map_get(bond);

    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        if (map->ports[b] != port) {
            CHECK(false, "bucket %d on port %u, expected %u", b,
                  map->ports[b], port);
            return;
        }
    }
    CHECK(true, "all buckets");
}

static void
test_active_backup(void)
{
    struct bond *bond = bond_create("ab", BOND_MODE_ACTIVE_BACKUP, 0);
    static const struct {
        const char *member;
        int error;
        const char *message;
        bool changed;
        uint16_t active;
    } cases[] = {
        { "nope", ENOENT, "no such member", false, 3 },
        { "c", EINVAL, "cannot make disabled member active", false, 3 },
        { "a", 0, NULL, false, 3 },
        { "b", 0, NULL, true, 7 },
        { "b", 0, NULL, false, 7 },
    };
    struct bond *tcp;
    const char *error;
    bool changed;

    CHECK_INT(bond_get_active_member(bond), BOND_PORT_NONE);
    check_all_buckets(bond, BOND_PORT_NONE);
    bond_member_add(bond, 7, "b", true);
    bond_member_add(bond, 3, "a", true);
    bond_member_add(bond, 5, "c", true);

    /* The first enabled member stays active while it is enabled. */
    CHECK_INT(bond_get_active_member(bond), 7);
    bond_member_set_enabled(bond, 7, false);
    CHECK_INT(bond_get_active_member(bond), 3);   /* Lowest port. */
    bond_member_set_enabled(bond, 7, true);
    CHECK_INT(bond_get_active_member(bond), 3);   /* No preemption. */
    check_all_buckets(bond, 3);

    /* A primary preempts whenever it is enabled. */
    bond_set_primary(bond, "c");
    CHECK_INT(bond_get_active_member(bond), 5);
    check_all_buckets(bond, 5);
    bond_member_set_enabled(bond, 5, false);
    CHECK_INT(bond_get_active_member(bond), 3);
    check_all_buckets(bond, 3);

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        int err = bond_set_active_member(bond, cases[i].member, &changed,
                                         &error);

        check_set_context("set-active-member %s", cases[i].member);
        CHECK_INT(err, cases[i].error);
        CHECK_STR(error, cases[i].message);
        CHECK_INT(changed, cases[i].changed);
        CHECK_INT(bond_get_active_member(bond), cases[i].active);
        check_all_buckets(bond, cases[i].active);
    }
    check_set_context("%s", "");

    bond_member_set_enabled(bond, 5, true);
    CHECK_INT(bond_get_active_member(bond), 5);   /* Primary is back. */
    bond_set_primary(bond, NULL);
    bond_member_set_enabled(bond, 3, false);
    bond_member_set_enabled(bond, 5, false);
    bond_member_set_enabled(bond, 7, false);
    CHECK_INT(bond_get_active_member(bond), BOND_PORT_NONE);
    check_all_buckets(bond, BOND_PORT_NONE);
    bond_destroy(bond);

    tcp = make_bond(BOND_MODE_BALANCE_TCP, 2);
    CHECK_INT(bond_set_active_member(tcp, "m1", &changed, &error),
              EOPNOTSUPP);
    CHECK_STR(error, "not an active-backup bond");
    CHECK_INT(bond_get_active_member(tcp), BOND_PORT_NONE);
    bond_destroy(tcp);
}

struct reader_arg {
    struct bond *bond;
    unsigned int slot;          /* PMD load slot this reader writes. */
    int stop;                   /* Set by the main thread. */
    long long n_reads;
    int n_bad;
};

/* Reads the map of an active-backup bond as fast as it can: every map must
 * send all buckets to one valid port, whatever the control thread does. */
static void *
reader_main(void *arg_)
{
    struct reader_arg *arg = arg_;

    rcu_register_thread();
    while (!__atomic_load_n(&arg->stop, __ATOMIC_ACQUIRE)) {
        const struct bond_map *map = bond_map_get(arg->bond);
        uint16_t first = bond_map_port(map, 0);

        if (first < 1 || first > 3) {
            arg->n_bad++;
        }
        for (uint32_t h = 1; h < BOND_N_BUCKETS; h++) {
            if (bond_map_port(map, h) != first) {
                arg->n_bad++;
                break;
            }
        }
        bond_map_account(map, arg->slot, arg->n_reads, 64);
        /* Pairs with the acquire load in test_rcu(). */
        __atomic_store_n(&arg->n_reads, arg->n_reads + 1, __ATOMIC_RELEASE);
        rcu_quiesce();
    }
    rcu_unregister();
    return NULL;
}

static void
test_rcu(void)
{
    struct reader_arg arg = { 0 };
    pthread_t threads[2];
    struct reader_arg arg2;
    const char *error;
    bool changed;

    arg.bond = bond_create("rcu", BOND_MODE_ACTIVE_BACKUP, 0);
    bond_member_add(arg.bond, 1, "a", true);
    bond_member_add(arg.bond, 2, "b", true);
    bond_member_add(arg.bond, 3, "c", true);
    arg2 = arg;
    arg2.slot = 1;
    pthread_create(&threads[0], NULL, reader_main, &arg);
    pthread_create(&threads[1], NULL, reader_main, &arg2);
    /* Publish only once both readers are registered and reading. */
    while (!__atomic_load_n(&arg.n_reads, __ATOMIC_ACQUIRE)
           || !__atomic_load_n(&arg2.n_reads, __ATOMIC_ACQUIRE)) {
        sched_yield();
    }
    for (int i = 0; i < 3000; i++) {
        static const char *const names[] = { "a", "b", "c" };

        bond_set_active_member(arg.bond, names[i % 3], &changed, &error);
        if (i % 100 == 50) {
            /* Failover publishes too. */
            bond_member_set_enabled(arg.bond, 2, false);
            bond_member_set_enabled(arg.bond, 2, true);
        }
    }
    __atomic_store_n(&arg.stop, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&arg2.stop, 1, __ATOMIC_RELEASE);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    CHECK_INT(arg.n_bad + arg2.n_bad, 0);
    CHECK(arg.n_reads > 0 && arg2.n_reads > 0, "readers never ran");
    CHECK(arg.bond->n_published >= 3000, "only %"PRIu64" maps published",
          arg.bond->n_published);
    bond_destroy(arg.bond);
}

static void
test_show(void)
{
    struct eth_addr mac3 = { { 0x02, 0, 0, 0, 0, 0x03 } };
    struct bond *bond = bond_create("up0", BOND_MODE_BALANCE_TCP, 1000);
    json_t *json, *members, *hashes;
    char *text;

    /* eth1 (port 1) gets all buckets, then eth0 (port 2) takes the upper
     * half. */
    bond_member_add(bond, 1, "eth1", true);
    bond_member_add(bond, 2, "eth0", true);
    account(bond, 0, 5, 2048);
    account(bond, 1, 5, 1024);
    account(bond, 0, 200, 1500);
    account(bond, 0, 7, 1000);          /* Under 1 kB: not shown. */
    text = bond_show(bond, 4000);
    CHECK_STR(text,
              "---- up0 ----\n"
              "bond_mode: balance-tcp\n"
              "updelay: 0 ms\n"
              "downdelay: 0 ms\n"
              "next rebalance: 7000 ms\n"
              "lacp_status: off\n"
              "active-backup primary: <none>\n"
              "\n"
              "member eth0: enabled\n"
              "  may_enable: true\n"
              "  hash 200: 1 kB load\n"
              "\n"
              "member eth1: enabled\n"
              "  may_enable: true\n"
              "  hash 5: 3 kB load\n"
              "\n");
    free(text);

    json = bond_show_json(bond, 4000);
    CHECK_STR(json_string_value(json_object_get(json, "mode")),
              "balance-tcp");
    CHECK_INT(json_integer_value(json_object_get(json, "next_rebalance_ms")),
              7000);
    members = json_object_get(json, "members");
    CHECK_INT(json_array_size(members), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(members, 1),
                                                "name")), "eth1");
    hashes = json_object_get(json_array_get(members, 1), "hashes");
    CHECK_INT(json_array_size(hashes), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(hashes, 0),
                                                 "load_kb")), 3);
    CHECK(json_is_true(json_object_get(json_array_get(members, 0),
                                       "enabled")), "eth0 not enabled");
    json_decref(json);
    bond_destroy(bond);

    bond = bond_create("ab0", BOND_MODE_ACTIVE_BACKUP, 0);
    bond_member_add(bond, 4, "m1", true);
    bond_member_add(bond, 3, "m2", true);
    bond_member_set_mac(bond, 3, mac3);
    bond_set_primary(bond, "m9");
    bond_member_set_enabled(bond, 4, false);
    text = bond_show(bond, 0);
    CHECK_STR(text,
              "---- ab0 ----\n"
              "bond_mode: active-backup\n"
              "updelay: 0 ms\n"
              "downdelay: 0 ms\n"
              "lacp_status: off\n"
              "active-backup primary: m9 (no such member)\n"
              "active member mac: 02:00:00:00:00:03(m2)\n"
              "\n"
              "member m1: disabled\n"
              "  may_enable: false\n"
              "\n"
              "member m2: enabled\n"
              "  active member\n"
              "  may_enable: true\n"
              "\n");
    free(text);

    json = bond_show_json(bond, 0);
    CHECK_STR(json_string_value(json_object_get(json, "active_member")),
              "m2");
    CHECK_STR(json_string_value(json_object_get(json, "primary")), "m9");
    CHECK(!json_object_get(json, "next_rebalance_ms"),
          "active-backup shows next rebalance");
    json_decref(json);

    /* No member enabled. */
    bond_member_set_enabled(bond, 3, false);
    text = bond_show(bond, 0);
    CHECK(strstr(text, "active member mac: 00:00:00:00:00:00(none)\n")
          != NULL, "%s", text);
    free(text);
    bond_destroy(bond);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "slb-hash", test_slb_hash },
        { "mode-names", test_mode_names },
        { "distribution", test_distribution },
        { "member-errors", test_member_errors },
        { "failover", test_failover },
        { "rebalance", test_rebalance },
        { "rebalance-interval", test_rebalance_interval },
        { "active-backup", test_active_backup },
        { "rcu", test_rcu },
        { "show", test_show },
    };

    char *error;

    /* Keep the failover messages out of the test's output. */
    error = vlog_set_levels_from_string("bond:console:warn");
    CHECK(!error, "vlog: %s", error);
    free(error);
    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-bond");
}
