/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for netdev/netdev-vxlan-fdb.c, the table of which remote each MAC
 * of a vxlan port lives behind: a MAC learned is found on its remote, a
 * move to another remote replaces it, an entry older than the ageing time
 * is a miss (also across the wrap of the 8-bit tick), two MACs that share
 * a slot leave the newer one, never the wrong remote for the older one,
 * every remote number up to 254 round-trips, and a flush forgets all.
 */
#include <autoconf.h>
#include "netdev/netdev-vxlan-fdb.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"

static void
mac_of(uint32_t n, uint8_t mac[6])
{
    mac[0] = 0x02;
    mac[1] = 0x00;
    mac[2] = n >> 24;
    mac[3] = n >> 16;
    mac[4] = n >> 8;
    mac[5] = n;
}

static void
test_learn_and_move(void)
{
    struct vxlan_fdb *fdb = xzalloc(sizeof *fdb);
    uint8_t mac[6];

    mac_of(1, mac);
    CHECK_INT(vxlan_fdb_lookup(fdb, mac, 0), -1);
    vxlan_fdb_learn(fdb, mac, 3, 10);
    CHECK_INT(vxlan_fdb_lookup(fdb, mac, 10), 3);
    vxlan_fdb_learn(fdb, mac, 5, 11);
    CHECK_INT(vxlan_fdb_lookup(fdb, mac, 11), 5);
    mac_of(2, mac);
    CHECK_INT(vxlan_fdb_lookup(fdb, mac, 11), -1);
    free(fdb);
}

static void
test_ageing(void)
{
    struct vxlan_fdb *fdb = xzalloc(sizeof *fdb);
    uint8_t mac[6];

    mac_of(7, mac);
    /* Learned at tick 250: found for VXLAN_FDB_MAX_AGE ticks, across the
     * wrap to 0, then a miss. */
    vxlan_fdb_learn(fdb, mac, 0, 250);
    for (int age = 0; age <= VXLAN_FDB_MAX_AGE + 3; age++) {
        uint8_t tick = (uint8_t) (250 + age);

        CHECK_INT(vxlan_fdb_lookup(fdb, mac, tick),
                  age <= VXLAN_FDB_MAX_AGE ? 0 : -1);
    }
    /* Heard again: found again. */
    vxlan_fdb_learn(fdb, mac, 0, 40);
    CHECK_INT(vxlan_fdb_lookup(fdb, mac, 40), 0);
    CHECK_INT(vxlan_fdb_tick(0), 0);
    CHECK_INT(vxlan_fdb_tick(VXLAN_FDB_TICK_MS * 3 + 1), 3);
    /* About 300 s, the usual MAC ageing time. */
    CHECK(VXLAN_FDB_MAX_AGE * VXLAN_FDB_TICK_MS >= 300000
          && VXLAN_FDB_MAX_AGE * VXLAN_FDB_TICK_MS < 310000, "age %d ms",
          VXLAN_FDB_MAX_AGE * VXLAN_FDB_TICK_MS);
    free(fdb);
}

/* Many more MACs than slots, each on a remote of its own number: a lookup
 * finds its own remote or misses, never another MAC's remote. */
static void
test_collisions(void)
{
    struct vxlan_fdb *fdb = xzalloc(sizeof *fdb);
    uint32_t n = VXLAN_FDB_SIZE * 4;
    uint32_t found = 0;
    uint8_t mac[6];

    for (uint32_t i = 0; i < n; i++) {
        mac_of(i, mac);
        vxlan_fdb_learn(fdb, mac, i % 255, 1);
    }
    for (uint32_t i = 0; i < n; i++) {
        int remote;

        mac_of(i, mac);
        remote = vxlan_fdb_lookup(fdb, mac, 1);
        CHECK(remote == -1 || remote == (int) (i % 255),
              "MAC %u: remote %d", i, remote);
        found += remote >= 0;
    }
    /* The last writer of each slot stays: about 1 - 1/e of the slots hold
     * one of the last VXLAN_FDB_SIZE MACs, and all of them are found. */
    CHECK(found > VXLAN_FDB_SIZE / 2 && found <= VXLAN_FDB_SIZE,
          "found %u of %u", found, n);
    vxlan_fdb_flush(fdb);
    for (uint32_t i = 0; i < n; i++) {
        mac_of(i, mac);
        CHECK_INT(vxlan_fdb_lookup(fdb, mac, 1), -1);
    }
    free(fdb);
}

/* Expiry clears what is too old and only that, so that a wrapped tick
 * never revives an entry. */
static void
test_expire(void)
{
    struct vxlan_fdb *fdb = xzalloc(sizeof *fdb);
    uint8_t old[6], young[6];
    uint32_t pos = 0;

    mac_of(100, old);
    mac_of(200, young);
    vxlan_fdb_learn(fdb, old, 1, 0);
    vxlan_fdb_learn(fdb, young, 2, 30);
    for (int round = 0; round < VXLAN_FDB_SIZE / 16; round++) {
        pos = vxlan_fdb_expire(fdb, 40, pos, 16);
    }
    CHECK_INT(pos, 0);
    CHECK_INT(vxlan_fdb_lookup(fdb, young, 40), 2);
    /* 256 ticks on, the old entry would have looked fresh. */
    CHECK_INT(vxlan_fdb_lookup(fdb, old, 0), -1);
    free(fdb);
}

static void
test_remote_range(void)
{
    struct vxlan_fdb *fdb = xzalloc(sizeof *fdb);
    uint8_t mac[6];

    for (unsigned int r = 0; r < 255; r++) {
        mac_of(0x1000 + r, mac);
        vxlan_fdb_learn(fdb, mac, r, 9);
        CHECK_INT(vxlan_fdb_lookup(fdb, mac, 9), r);
    }
    free(fdb);
}

int
main(void)
{
    test_learn_and_move();
    test_ageing();
    test_collisions();
    test_expire();
    test_remote_range();
    return check_finish("test-vxlan-fdb");
}
