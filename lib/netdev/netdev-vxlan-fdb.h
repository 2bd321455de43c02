/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Which remote of a vxlan port each inner MAC lives behind: learned from
 * the source MAC of frames the port receives, consulted for the
 * destination MAC of frames it sends, so that unicast goes to one remote
 * and only broadcast, multicast and unknown MACs go to all of them.  The
 * bridge's MAC table says "behind port vx0"; this table says which host.
 *
 * The table is a fixed array of 64-bit entries indexed by a hash of the
 * MAC, each holding the MAC, the remote and a coarse time stamp, so that
 * one atomic store publishes an entry whole.  A collision overwrites the
 * older MAC, which then floods until it is heard again: at worst the cost
 * of a MAC the table never learned.  The writer retires old entries
 * (vxlan_fdb_expire()) before their tick wraps.  A MAC that moves to
 * another remote goes to the old one until it is heard from the new one,
 * as in any learning switch.
 *
 * Threads.  Only the PMD that polls the port's rx queue learns (one
 * writer); the PMDs that send on the port look up, without a lock.
 */
#ifndef NETDEV_VXLAN_FDB_H
#define NETDEV_VXLAN_FDB_H 1

#include <stdbool.h>
#include <stdint.h>

#define VXLAN_FDB_BITS 12
#define VXLAN_FDB_SIZE (1u << VXLAN_FDB_BITS)  /* Entries. */

/* An entry older than this many ticks is a miss: 37 ticks of 8.192 s are
 * about 300 s, the kernel's and Open vSwitch's MAC ageing time. */
#define VXLAN_FDB_TICK_MS 8192
#define VXLAN_FDB_MAX_AGE 37

struct vxlan_fdb {
    uint64_t entries[VXLAN_FDB_SIZE];
};

/* The tick of time 'now_ms' (any monotonic clock in ms). */
static inline uint8_t
vxlan_fdb_tick(long long now_ms)
{
    return (uint8_t) (now_ms / VXLAN_FDB_TICK_MS);
}

/* Records that 'mac' was heard from remote number 'remote' (< 255) at
 * 'tick'.  The single writer only. */
void vxlan_fdb_learn(struct vxlan_fdb *, const uint8_t mac[6],
                     unsigned int remote, uint8_t tick);

/* Returns the remote 'mac' was last heard from, if within
 * VXLAN_FDB_MAX_AGE ticks of 'tick', else -1.  Any thread. */
int vxlan_fdb_lookup(const struct vxlan_fdb *, const uint8_t mac[6],
                     uint8_t tick);

/* Clears the entries older than VXLAN_FDB_MAX_AGE ticks at 'tick' among
 * the 'n' slots from 'pos' on (wrapping), and returns where to go on.  The
 * single writer only: an entry not heard from for 256 ticks would
 * otherwise look fresh again. */
uint32_t vxlan_fdb_expire(struct vxlan_fdb *, uint8_t tick, uint32_t pos,
                          uint32_t n);

/* Forgets every entry (the single writer, or the control thread while no
 * PMD receives on the port). */
void vxlan_fdb_flush(struct vxlan_fdb *);

#endif /* netdev-vxlan-fdb.h */
