/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The remote table of a vxlan port (netdev-vxlan-fdb.h).  An entry packs
 * the MAC in bits 0..47, the remote plus one in bits 48..55 (0: empty)
 * and the tick in bits 56..63.
 */
#include <autoconf.h>
#include "netdev/netdev-vxlan-fdb.h"

#include <string.h>

static inline uint64_t
mac_bits__(const uint8_t mac[6])
{
    return ((uint64_t) mac[0] << 40 | (uint64_t) mac[1] << 32
            | (uint64_t) mac[2] << 24 | (uint64_t) mac[3] << 16
            | (uint64_t) mac[4] << 8 | mac[5]);
}

static inline uint32_t
slot__(uint64_t mac)
{
    /* Fibonacci hashing: the top bits of the product mix every MAC bit. */
    return (mac * 0x9e3779b97f4a7c15ULL) >> (64 - VXLAN_FDB_BITS);
}

void
vxlan_fdb_learn(struct vxlan_fdb *fdb, const uint8_t mac[6],
                unsigned int remote, uint8_t tick)
{
    uint64_t bits = mac_bits__(mac);
    uint64_t *slot = &fdb->entries[slot__(bits)];
    uint64_t entry = bits | (uint64_t) (remote + 1) << 48
                     | (uint64_t) tick << 56;

    /* Most frames repeat what the table says: leave the cache line clean
     * for the PMDs that read it.  Relaxed: an entry is self-contained, and
     * a reader that sees the old one floods or sends as before. */
    if (*slot != entry) {
        __atomic_store_n(slot, entry, __ATOMIC_RELAXED);
    }
}

int
vxlan_fdb_lookup(const struct vxlan_fdb *fdb, const uint8_t mac[6],
                 uint8_t tick)
{
    uint64_t bits = mac_bits__(mac);
    uint64_t entry = __atomic_load_n(&fdb->entries[slot__(bits)],
                                     __ATOMIC_RELAXED);
    unsigned int remote = (entry >> 48) & 0xff;
    uint8_t age = tick - (uint8_t) (entry >> 56);

    if ((entry & 0xffffffffffffULL) != bits || !remote
        || age > VXLAN_FDB_MAX_AGE) {
        return -1;
    }
    return remote - 1;
}

uint32_t
vxlan_fdb_expire(struct vxlan_fdb *fdb, uint8_t tick, uint32_t pos,
                 uint32_t n)
{
    for (uint32_t i = 0; i < n; i++, pos = (pos + 1) % VXLAN_FDB_SIZE) {
        uint64_t entry = fdb->entries[pos];

        if (entry && (uint8_t) (tick - (uint8_t) (entry >> 56))
                     > VXLAN_FDB_MAX_AGE) {
            __atomic_store_n(&fdb->entries[pos], 0, __ATOMIC_RELAXED);
        }
    }
    return pos;
}

void
vxlan_fdb_flush(struct vxlan_fdb *fdb)
{
    for (uint32_t i = 0; i < VXLAN_FDB_SIZE; i++) {
        __atomic_store_n(&fdb->entries[i], 0, __ATOMIC_RELAXED);
    }
}
