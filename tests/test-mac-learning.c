/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the MAC learning table: learning, lookups, move
 * detection, aging with a fake clock, eviction when full, flushes,
 * refresh semantics, per-VLAN isolation, the fdb/show dump, the generation
 * counter, and learners on several threads at once; fairness (eviction
 * from the port that holds the most, per-port limits, learn rate) and the
 * change log the datapath revalidates from.
 */
#include <autoconf.h>
#include "ofproto/mac-learning.h"
#include "ofproto/change-log.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "base/util.h"

/* The unicast MAC 02:00:00:00:hi:lo. */
static struct eth_addr
mac(unsigned int n)
{
    struct eth_addr m = { { 0x02, 0, 0, 0, (n >> 8) & 0xff, n & 0xff } };
    return m;
}

static void
test_learn_lookup(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);
    struct mac_learning_stats stats;
    uint64_t gen = mac_learning_generation(ml);

    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 0), -1);
    CHECK_INT(mac_learning_learn(ml, mac(1), 0, 5, 0), ML_NEW);
    CHECK(mac_learning_generation(ml) > gen, "learning did not bump gen");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 1), 5);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 1), -1);
    CHECK_INT(mac_learning_count(ml), 1);

    /* Same port again: nothing changes. */
    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_learn(ml, mac(1), 0, 5, 100), ML_NOCHANGE);
    CHECK_INT(mac_learning_generation(ml), gen);
    CHECK_INT(mac_learning_count(ml), 1);

    /* Multicast and broadcast sources are never learned. */
    struct eth_addr mcast = { { 0x01, 0x00, 0x5e, 0, 0, 1 } };
    struct eth_addr bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
    CHECK_INT(mac_learning_learn(ml, mcast, 0, 1, 0), ML_NOCHANGE);
    CHECK_INT(mac_learning_learn(ml, bcast, 0, 1, 0), ML_NOCHANGE);
    CHECK_INT(mac_learning_lookup(ml, mcast, 0, 0), -1);
    CHECK_INT(mac_learning_count(ml), 1);
    CHECK_INT(mac_learning_generation(ml), gen);

    /* Highest VLAN and port numbers round-trip. */
    CHECK_INT(mac_learning_learn(ml, mac(3), 4095, 65535, 0), ML_NEW);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 4095, 0), 65535);

    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_entries, 2);
    CHECK_INT(stats.n_learned, 2);
    CHECK_INT(stats.n_moved, 0);
    CHECK_INT(stats.aging_sec, MAC_LEARNING_DEFAULT_AGING_SEC);
    CHECK_INT(stats.max_entries, MAC_LEARNING_DEFAULT_MAX_ENTRIES);
    mac_learning_destroy(ml);
    mac_learning_destroy(NULL);
}

static void
test_move(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);
    struct mac_learning_stats stats;
    uint64_t gen;

    mac_learning_learn(ml, mac(1), 7, 1, 0);
    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_learn(ml, mac(1), 7, 2, 10), ML_MOVED);
    CHECK(mac_learning_generation(ml) != gen, "move did not bump gen");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 7, 10), 2);
    CHECK_INT(mac_learning_count(ml), 1);

    /* Moving back is a move too. */
    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_learn(ml, mac(1), 7, 1, 20), ML_MOVED);
    CHECK(mac_learning_generation(ml) != gen, "move did not bump gen");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 7, 20), 1);

    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_moved, 2);
    CHECK_INT(stats.n_learned, 1);
    mac_learning_destroy(ml);
}

static void
test_aging(void)
{
    struct mac_learning *ml = mac_learning_create(10, 0);
    struct mac_learning_stats stats;
    uint64_t gen;

    mac_learning_learn(ml, mac(1), 0, 1, 1000);
    mac_learning_learn(ml, mac(2), 0, 2, 5000);

    /* Live until exactly 'aging' after the last learn. */
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 10999), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 11000), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 11000), 2);

    /* Lookups do not remove; aging does, and bumps the generation. */
    CHECK_INT(mac_learning_count(ml), 2);
    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_run(ml, 10999), 0);
    CHECK_INT(mac_learning_generation(ml), gen);
    CHECK_INT(mac_learning_run(ml, 11000), 1);
    CHECK(mac_learning_generation(ml) != gen, "aging did not bump gen");
    CHECK_INT(mac_learning_count(ml), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 11000), 2);

    /* Learning refreshes: mac(2) relearned at 14000 lives until 24000. */
    CHECK_INT(mac_learning_learn(ml, mac(2), 0, 2, 14000), ML_NOCHANGE);
    CHECK_INT(mac_learning_run(ml, 20000), 0);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 23999), 2);

    /* An expired entry not yet aged out is learned afresh, even on the
     * same port, because lookups have been missing it. */
    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_learn(ml, mac(2), 0, 2, 30000), ML_NEW);
    CHECK(mac_learning_generation(ml) != gen, "relearn did not bump gen");
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 30000), 2);
    CHECK_INT(mac_learning_count(ml), 1);

    /* Shorter aging applies to existing entries at once. */
    gen = mac_learning_generation(ml);
    mac_learning_set_aging(ml, 2);
    CHECK(mac_learning_generation(ml) != gen, "set_aging did not bump gen");
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 32000), -1);
    gen = mac_learning_generation(ml);
    mac_learning_set_aging(ml, 2);
    CHECK_INT(mac_learning_generation(ml), gen);
    CHECK_INT(mac_learning_run(ml, 32000), 1);

    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_expired, 2);
    CHECK_INT(stats.aging_sec, 2);

    /* 0 means the default; huge values are clamped. */
    mac_learning_set_aging(ml, 0);
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.aging_sec, MAC_LEARNING_DEFAULT_AGING_SEC);
    mac_learning_set_aging(ml, 4000000000U);
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.aging_sec, MAC_LEARNING_MAX_AGING_SEC);
    mac_learning_destroy(ml);
}

static void
test_eviction(void)
{
    struct mac_learning *ml = mac_learning_create(0, 4);
    struct mac_learning_stats stats;
    uint64_t gen;

    for (int i = 1; i <= 4; i++) {
        CHECK_INT(mac_learning_learn(ml, mac(i), 0, i, i * 10), ML_NEW);
    }
    /* Touch mac(1): now mac(2) is the least recently used. */
    CHECK_INT(mac_learning_learn(ml, mac(1), 0, 1, 50), ML_NOCHANGE);

    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_learn(ml, mac(5), 0, 5, 60), ML_NEW);
    CHECK(mac_learning_generation(ml) != gen, "eviction did not bump gen");
    CHECK_INT(mac_learning_count(ml), 4);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 60), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 60), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 0, 60), 3);
    CHECK_INT(mac_learning_lookup(ml, mac(5), 0, 60), 5);

    /* A refresh counts as use too: mac(3) survives, mac(4) goes. */
    CHECK(mac_learning_refresh(ml, mac(3), 0, 3, 70), "refresh failed");
    CHECK_INT(mac_learning_learn(ml, mac(6), 0, 6, 80), ML_NEW);
    CHECK_INT(mac_learning_lookup(ml, mac(4), 0, 80), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 0, 80), 3);

    /* Lowering the limit evicts the oldest: mac(1) and mac(5). */
    gen = mac_learning_generation(ml);
    mac_learning_set_max_entries(ml, 2);
    CHECK(mac_learning_generation(ml) != gen, "shrink did not bump gen");
    CHECK_INT(mac_learning_count(ml), 2);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 80), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(5), 0, 80), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 0, 80), 3);
    CHECK_INT(mac_learning_lookup(ml, mac(6), 0, 80), 6);

    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_evicted, 4);
    CHECK_INT(stats.max_entries, 2);

    /* A limit of one still learns the newest. */
    mac_learning_set_max_entries(ml, 1);
    CHECK_INT(mac_learning_learn(ml, mac(7), 0, 7, 90), ML_NEW);
    CHECK_INT(mac_learning_count(ml), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(7), 0, 90), 7);
    mac_learning_destroy(ml);
}

/* Many entries: exercises the table growing, and keeps every entry. */
static void
test_many(void)
{
    enum { N = 20000 };
    struct mac_learning *ml = mac_learning_create(0, N);
    int n_wrong = 0;

    for (int i = 0; i < N; i++) {
        mac_learning_learn(ml, mac(i), i % 4096, i % 256, 0);
    }
    CHECK_INT(mac_learning_count(ml), N);
    for (int i = 0; i < N; i++) {
        n_wrong += mac_learning_lookup(ml, mac(i), i % 4096, 0) != i % 256;
        n_wrong += mac_learning_lookup(ml, mac(i), (i + 1) % 4096, 0) != -1;
    }
    CHECK_INT(n_wrong, 0);
    CHECK_INT(mac_learning_flush_port(ml, 3), N / 256 + (N % 256 > 3));
    CHECK_INT(mac_learning_count(ml), N - (N / 256 + (N % 256 > 3)));
    mac_learning_destroy(ml);
}

static void
test_flush(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);
    uint64_t gen;

    mac_learning_learn(ml, mac(1), 0, 1, 0);
    mac_learning_learn(ml, mac(2), 0, 2, 0);
    mac_learning_learn(ml, mac(3), 5, 1, 0);

    gen = mac_learning_generation(ml);
    CHECK_INT(mac_learning_flush_port(ml, 9), 0);
    CHECK_INT(mac_learning_generation(ml), gen);

    CHECK_INT(mac_learning_flush_port(ml, 1), 2);
    CHECK(mac_learning_generation(ml) != gen, "flush_port did not bump gen");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 5, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 0), 2);
    CHECK_INT(mac_learning_count(ml), 1);

    gen = mac_learning_generation(ml);
    mac_learning_flush(ml);
    CHECK(mac_learning_generation(ml) != gen, "flush did not bump gen");
    CHECK_INT(mac_learning_count(ml), 0);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 0), -1);

    gen = mac_learning_generation(ml);
    mac_learning_flush(ml);
    CHECK_INT(mac_learning_generation(ml), gen);

    /* The table works after a flush. */
    CHECK_INT(mac_learning_learn(ml, mac(2), 0, 4, 0), ML_NEW);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 0), 4);
    mac_learning_destroy(ml);
}

static void
test_refresh(void)
{
    struct mac_learning *ml = mac_learning_create(10, 0);
    uint64_t gen;

    mac_learning_learn(ml, mac(1), 3, 1, 0);
    gen = mac_learning_generation(ml);

    /* Refreshing on the right port extends the life. */
    CHECK(mac_learning_refresh(ml, mac(1), 3, 1, 8000), "refresh failed");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 3, 17999), 1);
    CHECK_INT(mac_learning_run(ml, 17999), 0);

    /* Wrong port, wrong VLAN, unknown MAC: no effect. */
    CHECK(!mac_learning_refresh(ml, mac(1), 3, 2, 17000),
          "refresh from another port succeeded");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 3, 17000), 1);
    CHECK(!mac_learning_refresh(ml, mac(1), 4, 1, 17000),
          "refresh on another VLAN succeeded");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 4, 17000), -1);
    CHECK(!mac_learning_refresh(ml, mac(2), 3, 1, 17000),
          "refresh of an unknown MAC succeeded");
    CHECK_INT(mac_learning_count(ml), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 3, 18000), -1);

    /* An expired entry is not revived. */
    CHECK(!mac_learning_refresh(ml, mac(1), 3, 1, 18000),
          "refresh revived an expired entry");
    CHECK_INT(mac_learning_lookup(ml, mac(1), 3, 18000), -1);

    /* After a move, the old port cannot refresh it. */
    mac_learning_learn(ml, mac(5), 0, 1, 20000);
    mac_learning_learn(ml, mac(5), 0, 2, 21000);
    CHECK(!mac_learning_refresh(ml, mac(5), 0, 1, 29000),
          "old port refreshed a moved MAC");
    CHECK_INT(mac_learning_lookup(ml, mac(5), 0, 31000), -1);

    /* Refreshes never change the generation. */
    gen = mac_learning_generation(ml);
    mac_learning_learn(ml, mac(6), 0, 1, 40000);
    gen = mac_learning_generation(ml);
    CHECK(mac_learning_refresh(ml, mac(6), 0, 1, 41000), "refresh failed");
    CHECK_INT(mac_learning_generation(ml), gen);
    mac_learning_destroy(ml);
}

static void
test_vlan_isolation(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);

    CHECK_INT(mac_learning_learn(ml, mac(1), 10, 1, 0), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(1), 20, 2, 0), ML_NEW);
    CHECK_INT(mac_learning_count(ml), 2);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 10, 0), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 20, 0), 2);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 30, 0), -1);

    /* A move in one VLAN leaves the other alone. */
    CHECK_INT(mac_learning_learn(ml, mac(1), 10, 3, 1), ML_MOVED);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 20, 1), 2);

    CHECK_INT(mac_learning_flush_port(ml, 2), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 10, 1), 3);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 20, 1), -1);
    mac_learning_destroy(ml);
}

static void
test_dump(void)
{
    struct mac_learning *ml = mac_learning_create(60, 0);
    struct eth_addr a = { { 0x50, 0x54, 0x00, 0x00, 0x00, 0x01 } };
    struct eth_addr b = { { 0x50, 0x54, 0x00, 0x00, 0x00, 0x02 } };
    struct mac_learning_row *rows;
    size_t n;
    char *s;

    mac_learning_learn(ml, b, 10, 2, 0);
    mac_learning_learn(ml, a, 10, 2, 3000);
    mac_learning_learn(ml, a, 0, 1, 5500);
    mac_learning_learn(ml, mac(9), 0, 3, 0);

    /* b and mac(9), learned at 0, have expired at 60000: left out. */
    n = mac_learning_dump(ml, 61000, &rows);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(rows[0].port, 1);
        CHECK_INT(rows[0].vlan, 0);
        CHECK(eth_addr_equals(rows[0].mac, a), "row 0 has the wrong MAC");
        CHECK_INT(rows[0].age, 55);
        CHECK_INT(rows[1].port, 2);
        CHECK_INT(rows[1].vlan, 10);
        CHECK(eth_addr_equals(rows[1].mac, a), "row 1 has the wrong MAC");
        CHECK_INT(rows[1].age, 58);
    }
    free(rows);

    n = mac_learning_dump(ml, 5500, &rows);
    CHECK_INT(n, 4);
    if (n == 4) {
        /* Sorted by port, then VLAN, then MAC. */
        CHECK_INT(rows[0].port, 1);
        CHECK_INT(rows[1].port, 2);
        CHECK(eth_addr_equals(rows[1].mac, a), "row 1 has the wrong MAC");
        CHECK(eth_addr_equals(rows[2].mac, b), "row 2 has the wrong MAC");
        CHECK_INT(rows[3].port, 3);
    }
    free(rows);

    s = mac_learning_format_fdb(ml, 7000);
    static const char want[] =
        " port  VLAN  MAC                Age\n"
        "    1     0  50:54:00:00:00:01    1\n"
        "    2    10  50:54:00:00:00:01    4\n"
        "    2    10  50:54:00:00:00:02    7\n"
        "    3     0  02:00:00:00:00:09    7\n";
    CHECK(!strcmp(s, want), "fdb/show output:\n%swanted:\n%s", s, want);
    free(s);

    mac_learning_flush(ml);
    s = mac_learning_format_fdb(ml, 7000);
    CHECK(!strcmp(s, " port  VLAN  MAC                Age\n"),
          "empty fdb/show output: %s", s);
    free(s);
    mac_learning_destroy(ml);
}

/* A port that floods new source MACs into a full table evicts its own
 * entries, never another port's hosts. */
static void
test_fair_eviction(void)
{
    struct mac_learning *ml = mac_learning_create(0, 8);
    struct mac_learning_stats stats;

    mac_learning_set_learn_rate(ml, 0);
    CHECK_INT(mac_learning_learn(ml, mac(1), 0, 1, 0), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(2), 0, 1, 0), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(3), 0, 3, 0), ML_NEW);
    for (unsigned int i = 0; i < 100; i++) {
        CHECK_INT(mac_learning_learn(ml, mac(1000 + i), 0, 2, 10 + i),
                  ML_NEW);
    }
    CHECK_INT(mac_learning_count(ml), 8);
    /* The real hosts are older than every flooded MAC, yet stay. */
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 200), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 200), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 0, 200), 3);
    /* Port 2 keeps its newest five. */
    CHECK_INT(mac_learning_lookup(ml, mac(1094), 0, 200), -1);
    for (unsigned int i = 95; i < 100; i++) {
        CHECK_INT(mac_learning_lookup(ml, mac(1000 + i), 0, 200), 2);
    }
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_evicted, 95);

    /* Once port 2 is no bigger than port 1, the older of the two
     * ports' oldest entries goes: port 1's, learned at 0. */
    mac_learning_set_max_entries(ml, 4);
    CHECK_INT(mac_learning_count(ml), 4);
    CHECK_INT(mac_learning_lookup(ml, mac(3), 0, 200), 3);
    CHECK_INT(mac_learning_lookup(ml, mac(1), 0, 200), -1);
    CHECK_INT(mac_learning_lookup(ml, mac(2), 0, 200), 1);
    CHECK_INT(mac_learning_lookup(ml, mac(1099), 0, 200), 2);
    mac_learning_destroy(ml);
}

static void
test_port_limit(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);
    struct mac_learning_port_row *rows;
    struct mac_learning_stats stats;
    size_t n;

    mac_learning_set_port_limit(ml, 2, 3);
    for (unsigned int i = 0; i < 3; i++) {
        CHECK_INT(mac_learning_learn(ml, mac(10 + i), 0, 2, 0), ML_NEW);
    }
    CHECK_INT(mac_learning_learn(ml, mac(13), 0, 2, 0), ML_OVER_LIMIT);
    CHECK_INT(mac_learning_lookup(ml, mac(13), 0, 0), -1);
    /* What the port has stays usable, and refreshes are no learns. */
    CHECK_INT(mac_learning_learn(ml, mac(10), 0, 2, 5), ML_NOCHANGE);
    /* Moving a MAC onto the full port is refused too; it stays put. */
    CHECK_INT(mac_learning_learn(ml, mac(20), 0, 4, 0), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(20), 0, 2, 1), ML_OVER_LIMIT);
    CHECK_INT(mac_learning_lookup(ml, mac(20), 0, 1), 4);
    /* Other ports are not limited. */
    for (unsigned int i = 0; i < 10; i++) {
        CHECK_INT(mac_learning_learn(ml, mac(30 + i), 0, 5, 0), ML_NEW);
    }
    /* Room again once one ages out... */
    CHECK_INT(mac_learning_flush_port(ml, 2), 3);
    CHECK_INT(mac_learning_learn(ml, mac(13), 0, 2, 2), ML_NEW);

    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_over_limit, 2);
    n = mac_learning_dump_ports(ml, &rows);
    CHECK_INT(n, 3);
    CHECK_INT(rows[0].port, 2);
    CHECK_INT(rows[0].n_entries, 1);
    CHECK_INT(rows[0].limit, 3);
    CHECK_INT(rows[0].n_over_limit, 2);
    CHECK_INT(rows[1].port, 4);
    CHECK_INT(rows[2].port, 5);
    CHECK_INT(rows[2].n_entries, 10);
    CHECK_INT(rows[2].n_over_limit, 0);
    free(rows);
    mac_learning_destroy(ml);
}

static void
test_learn_rate(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);
    struct mac_learning_stats stats;
    unsigned int n = 0;

    mac_learning_set_learn_rate(ml, 10);
    /* A second's worth at once... */
    for (unsigned int i = 0; i < 10; i++) {
        CHECK_INT(mac_learning_learn(ml, mac(n++), 0, 1, 1000), ML_NEW);
    }
    CHECK_INT(mac_learning_learn(ml, mac(n++), 0, 1, 1000),
              ML_RATE_LIMITED);
    CHECK_INT(mac_learning_lookup(ml, mac(n - 1), 0, 1000), -1);
    /* ...then one per 100 ms. */
    CHECK_INT(mac_learning_learn(ml, mac(n++), 0, 1, 1099),
              ML_RATE_LIMITED);
    CHECK_INT(mac_learning_learn(ml, mac(n++), 0, 1, 1100), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(n++), 0, 1, 1100),
              ML_RATE_LIMITED);
    /* Moves count, refreshes do not. */
    CHECK_INT(mac_learning_learn(ml, mac(0), 0, 1, 1150), ML_NOCHANGE);
    CHECK_INT(mac_learning_learn(ml, mac(500), 0, 2, 1150), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(500), 0, 1, 1200), ML_MOVED);
    CHECK_INT(mac_learning_learn(ml, mac(501), 0, 1, 1200),
              ML_RATE_LIMITED);
    /* Another port has its own bucket. */
    CHECK_INT(mac_learning_learn(ml, mac(600), 0, 3, 1200), ML_NEW);
    /* The bucket never holds more than a second's worth. */
    for (unsigned int i = 0; i < 10; i++) {
        CHECK_INT(mac_learning_learn(ml, mac(700 + i), 0, 1, 100000),
                  ML_NEW);
    }
    CHECK_INT(mac_learning_learn(ml, mac(800), 0, 1, 100000),
              ML_RATE_LIMITED);
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.n_rate_limited, 5);
    CHECK_INT(stats.learn_rate, 10);
    mac_learning_destroy(ml);
}

/* Reads the whole of 'log' from '*pos' into 'keys' (room for 16). */
static size_t
read_log(const struct change_log *log, uint64_t *pos, uint64_t keys[16])
{
    uint64_t head = change_log_head(log);
    size_t n = change_log_read(log, *pos, head, keys, 16);

    if (n != SIZE_MAX) {
        *pos += n;
    }
    return n;
}

static void
test_change_log(void)
{
    struct mac_learning *ml = mac_learning_create(0, 0);
    struct change_log *log = xmalloc(sizeof *log);
    uint64_t change_seq = 0;
    uint64_t keys[16];
    uint64_t pos = 0;
    uint64_t table_gen;

    change_log_init(log);
    change_log_set_change_seq(log, &change_seq);
    mac_learning_set_change_log(ml, log, &change_seq);

    /* Learned, moved: each named once; a refresh is not a change. */
    CHECK_INT(mac_learning_learn(ml, mac(1), 7, 1, 0), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(1), 7, 1, 10), ML_NOCHANGE);
    CHECK_INT(mac_learning_learn(ml, mac(1), 7, 2, 20), ML_MOVED);
    CHECK_INT(read_log(log, &pos, keys), 2);
    CHECK(keys[0] == change_key_mac(mac(1), 7), "learn not logged");
    CHECK(keys[1] == change_key_mac(mac(1), 7), "move not logged");
    CHECK_INT(change_seq, 2);

    /* Aging, eviction and a port's flush name each entry removed. */
    table_gen = mac_learning_table_generation(ml);
    CHECK_INT(mac_learning_learn(ml, mac(2), 0, 3, 1000), ML_NEW);
    CHECK_INT(mac_learning_run(ml, 1000 + 300 * 1000 - 500), 1);
    CHECK_INT(read_log(log, &pos, keys), 2);
    CHECK(keys[1] == change_key_mac(mac(1), 7), "age-out not logged");
    mac_learning_set_max_entries(ml, 1);
    CHECK_INT(mac_learning_learn(ml, mac(3), 0, 3, 1000), ML_NEW);
    CHECK_INT(read_log(log, &pos, keys), 2);
    CHECK(keys[0] == change_key_mac(mac(2), 0), "eviction not logged");
    CHECK(keys[1] == change_key_mac(mac(3), 0), "learn not logged");
    CHECK_INT(mac_learning_flush_port(ml, 3), 1);
    CHECK_INT(read_log(log, &pos, keys), 1);
    CHECK(keys[0] == change_key_mac(mac(3), 0), "flush_port not logged");
    CHECK_INT(mac_learning_table_generation(ml), table_gen);

    /* Refused learns change nothing. */
    mac_learning_set_port_limit(ml, 4, 1);
    mac_learning_set_max_entries(ml, 0);
    CHECK_INT(mac_learning_learn(ml, mac(4), 0, 4, 1000), ML_NEW);
    CHECK_INT(mac_learning_learn(ml, mac(5), 0, 4, 1000), ML_OVER_LIMIT);
    CHECK_INT(read_log(log, &pos, keys), 1);

    /* What concerns the whole table moves the table generation and
     * the datapath's counter, not the log. */
    change_seq = 0;
    mac_learning_flush(ml);
    mac_learning_set_aging(ml, 60);
    CHECK_INT(read_log(log, &pos, keys), 0);
    CHECK_INT(mac_learning_table_generation(ml), table_gen + 2);
    CHECK_INT(change_seq, 2);

    /* A reader that fell more than the log's size behind is told. */
    for (int i = 0; i < CHANGE_LOG_SIZE; i++) {
        change_log_append(log, change_key_port(i % 100));
    }
    CHECK(read_log(log, &pos, keys) == SIZE_MAX, "lost keys not noticed");
    pos = change_log_head(log) - 3;
    CHECK_INT(read_log(log, &pos, keys), 3);
    CHECK(keys[2] == change_key_port((CHANGE_LOG_SIZE - 1) % 100),
          "wrong key at the head");

    mac_learning_destroy(ml);
    change_log_uninit(log);
    free(log);
}

/* Several threads learn, move and look up at once while another ages and
 * flushes: no entry may be lost or corrupted (run under a sanitizer). */
struct thread_arg {
    struct mac_learning *ml;
    unsigned int id;
    int n_wrong;
};

static void *
learner_main(void *arg_)
{
    struct thread_arg *arg = arg_;

    for (unsigned int round = 0; round < 200; round++) {
        for (unsigned int i = 0; i < 64; i++) {
            unsigned int n = arg->id * 1000 + i;
            uint16_t port = (round + i) % 4;

            mac_learning_learn(arg->ml, mac(n), arg->id, port, round);
            mac_learning_refresh(arg->ml, mac(n), arg->id, port, round);
            /* Nobody else touches this thread's VLAN, and the flushes
             * below touch only port 9, so the entry must be ours. */
            if (mac_learning_lookup(arg->ml, mac(n), arg->id, round)
                != port) {
                arg->n_wrong++;
            }
        }
    }
    return NULL;
}

static void
test_threads(void)
{
    enum { N_THREADS = 3 };
    struct mac_learning *ml = mac_learning_create(0, 0);
    struct thread_arg args[N_THREADS];
    pthread_t threads[N_THREADS];
    uint64_t gen = mac_learning_generation(ml);

    /* Every round moves every MAC, within the same fake millisecond. */
    mac_learning_set_learn_rate(ml, 0);
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct thread_arg) { .ml = ml, .id = i + 1 };
        pthread_create(&threads[i], NULL, learner_main, &args[i]);
    }
    for (int i = 0; i < 200; i++) {
        mac_learning_learn(ml, mac(50000 + i), 0, 9, 0);
        mac_learning_run(ml, 0);
        mac_learning_flush_port(ml, 9);
        (void) mac_learning_generation(ml);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_INT(args[i].n_wrong, 0);
    }
    CHECK_INT(mac_learning_count(ml), N_THREADS * 64);
    CHECK(mac_learning_generation(ml) > gen + N_THREADS * 64,
          "generation did not count the changes");
    mac_learning_destroy(ml);
}

/* Two threads append to a change log while a third reads it: every read
 * that reports no loss returns keys that were appended, in each writer's
 * order (run under a sanitizer). */
struct log_writer_arg {
    struct change_log *log;
    uint64_t id;
};

enum { LOG_WRITES = 20000 };

static void *
log_writer_main(void *arg_)
{
    struct log_writer_arg *arg = arg_;

    for (uint64_t i = 1; i <= LOG_WRITES; i++) {
        change_log_append(arg->log, (arg->id << 32) | i);
    }
    return NULL;
}

static void
test_change_log_threads(void)
{
    struct change_log *log = xmalloc(sizeof *log);
    struct log_writer_arg args[2];
    pthread_t threads[2];
    uint64_t last[2] = { 0, 0 };
    uint64_t pos = 0, n_read = 0, n_lost = 0;
    int n_wrong = 0;

    change_log_init(log);
    for (int i = 0; i < 2; i++) {
        args[i] = (struct log_writer_arg) { .log = log, .id = i };
        pthread_create(&threads[i], NULL, log_writer_main, &args[i]);
    }
    while (pos < 2 * LOG_WRITES) {
        uint64_t keys[64];
        uint64_t head = change_log_head(log);
        size_t n = change_log_read(log, pos, head, keys, ARRAY_SIZE(keys));

        if (n == SIZE_MAX) {
            /* Start again from what is surely still there. */
            n_lost++;
            pos = head;
            last[0] = last[1] = 0;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t id = keys[i] >> 32, seq = keys[i] & UINT32_MAX;

            if (id > 1 || seq <= last[id] || seq > LOG_WRITES) {
                n_wrong++;
            } else {
                last[id] = seq;
            }
        }
        pos += n;
        n_read += n;
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
    }
    CHECK(n_wrong == 0, "%d wrong keys in %"PRIu64" read (%"PRIu64" losses)",
          n_wrong, n_read, n_lost);
    CHECK_INT(change_log_head(log), 2 * LOG_WRITES);
    /* Once the writers are done, the newest keys are each writer's
     * last ones. */
    {
        uint64_t keys[64], head = change_log_head(log);
        size_t n = change_log_read(log, head - 64, head, keys, 64);
        bool seen_last[2] = { false, false };

        CHECK_INT(n, 64);
        for (size_t i = 0; i < 64 && n == 64; i++) {
            if ((keys[i] & UINT32_MAX) == LOG_WRITES && keys[i] >> 32 < 2) {
                seen_last[keys[i] >> 32] = true;
            }
        }
        CHECK(seen_last[0] || seen_last[1], "no writer's last key at the "
              "head");
    }
    change_log_uninit(log);
    free(log);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "learn_lookup", test_learn_lookup },
        { "move", test_move },
        { "aging", test_aging },
        { "eviction", test_eviction },
        { "many", test_many },
        { "flush", test_flush },
        { "refresh", test_refresh },
        { "vlan_isolation", test_vlan_isolation },
        { "dump", test_dump },
        { "threads", test_threads },
        { "fair_eviction", test_fair_eviction },
        { "port_limit", test_port_limit },
        { "learn_rate", test_learn_rate },
        { "change_log", test_change_log },
        { "change_log_threads", test_change_log_threads },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-mac-learning");
}
