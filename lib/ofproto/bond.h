/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Bonds: one bridge port over several member interfaces, as in Open
 * vSwitch.  Each member is an ordinary datapath port with its own port
 * number; the slow path sees only the bond (MACs are learned on it) and
 * emits DP_ACTION_BOND_OUTPUT, and the PMD picks the member for each packet
 * from a map of BOND_N_BUCKETS hash buckets: bucket = hash & BOND_MASK.
 *
 * Hashes by mode:
 *
 *   - balance-tcp: the packet's RSS hash, computed once on receive from the
 *     5-tuple (hash_rss()); the action's 'hash' is 0.
 *   - balance-slb: bond_slb_hash() of the source MAC and VLAN, computed in
 *     the slow path and carried in the action's 'hash' (never 0).
 *   - active-backup: none; every bucket maps to the active member.
 *
 * When a member is disabled, its buckets move at once to the enabled
 * members, least loaded first.  bond_rebalance() moves loaded buckets from
 * the most to the least loaded member every rebalance interval.
 *
 * Threads.  A 'struct bond' belongs to the control thread: every function
 * below that takes a 'struct bond *' is control-thread only, and none of
 * them blocks except those that publish a new map (they wait for an RCU
 * grace period; see "publishes" in their comments).  PMD threads, which
 * must be registered with liburcu QSBR, use only the inline functions
 * bond_map_get(), bond_map_port() and bond_map_account(); a map they got
 * stays valid until their next quiescent state.
 */
#ifndef BOND_H
#define BOND_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "base/compiler.h"
#include "packet/packets.h"

#define BOND_N_BUCKETS 256
#define BOND_MASK (BOND_N_BUCKETS - 1)

/* bond_map_port() for a bucket when no member is enabled. */
#define BOND_PORT_NONE UINT16_MAX

/* PMD slots for load counters: one per PMD thread, numbered from 0. */
#define BOND_MAX_PMDS 64

/* Default of bond_set_rebalance_interval(), in ms. */
#define BOND_REBALANCE_INTERVAL_DEFAULT 10000

enum bond_mode {
    BOND_MODE_ACTIVE_BACKUP,    /* "active-backup". */
    BOND_MODE_BALANCE_SLB,      /* "balance-slb". */
    BOND_MODE_BALANCE_TCP,      /* "balance-tcp". */
};

/* Bytes transmitted per bucket by one PMD.  Each counter has a single
 * writer, that PMD, which adds with a relaxed load and store (no atomic
 * read-modify-write); the control thread reads them relaxed and keeps the
 * totals it last saw to take deltas.  Counters only grow. */
struct bond_pmd_load {
    uint64_t tx_bytes[BOND_N_BUCKETS];
} CACHE_ALIGNED;

/* The immutable bucket map the PMDs read.  A new map replaces it as a
 * whole; the old one is freed after an RCU grace period. */
struct bond_map {
    uint16_t ports[BOND_N_BUCKETS];     /* Member port per bucket, or
                                         * BOND_PORT_NONE. */
    struct bond_pmd_load *loads;        /* BOND_MAX_PMDS slots, owned by the
                                         * bond; outlive every map. */
};

struct bond_member;

/* A bond.  Fields are private to bond.c except 'map', which PMDs read
 * through bond_map_get(). */
struct bond {
    /* Written by the control thread with a release store; read by PMDs. */
    struct bond_map *map;

    /* Control thread only. */
    char *name;
    enum bond_mode mode;
    struct bond_member **members;       /* Sorted by name. */
    size_t n_members;
    struct bond_member *buckets[BOND_N_BUCKETS]; /* NULL: unassigned. */
    uint64_t bucket_load[BOND_N_BUCKETS];   /* Bytes, decayed by half at
                                             * each rebalance. */
    uint64_t bucket_seen[BOND_N_BUCKETS];   /* Sum of PMD counters at the
                                             * last collection. */
    struct bond_pmd_load *loads;        /* BOND_MAX_PMDS slots. */
    struct bond_member *active;         /* active-backup: active member. */
    char *primary;                      /* active-backup: preferred member
                                         * name, or NULL. */
    long long rebalance_interval;       /* ms; 0 disables rebalancing. */
    long long next_rebalance;           /* msec of the next rebalance. */
    uint64_t n_published;               /* Maps published so far. */
};

/* Returns the map 'bond' publishes now.  PMD-safe: the map stays valid
 * until the caller's next RCU quiescent state. */
static inline const struct bond_map *
bond_map_get(const struct bond *bond)
{
    /* Pairs with the release store in bond_publish__(). */
    return __atomic_load_n(&bond->map, __ATOMIC_ACQUIRE);
}

/* Returns the datapath port of the member that 'map' assigns to 'hash',
 * or BOND_PORT_NONE if no member is enabled (the caller then counts a
 * drop).  PMD-safe. */
static inline uint16_t
bond_map_port(const struct bond_map *map, uint32_t hash)
{
    return map->ports[hash & BOND_MASK];
}

/* Adds 'n_bytes' sent for 'hash' to the load counters of PMD slot 'pmd'
 * (< BOND_MAX_PMDS), for bond_rebalance().  Only the PMD that owns slot
 * 'pmd' may call it. */
static inline void
bond_map_account(const struct bond_map *map, unsigned int pmd,
                 uint32_t hash, uint32_t n_bytes)
{
    uint64_t *c = &map->loads[pmd].tx_bytes[hash & BOND_MASK];

    /* Single writer: a plain add, made of relaxed accesses so that the
     * control thread's relaxed load in bond_collect__() sees whole
     * values. */
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n_bytes,
                     __ATOMIC_RELAXED);
}

/* Returns the balance-slb hash of source MAC 'mac' on VLAN 'vlan' (0 for
 * untagged): a murmur3-style mix of the 6 bytes and the 12-bit VID with
 * every bit of the bucket depending on every input bit.  Never 0, so that
 * it can stand in DP_ACTION_BOND_OUTPUT's 'hash'.  Any thread. */
uint32_t bond_slb_hash(struct eth_addr mac, uint16_t vlan);

/* Returns the mode named 'name' ("active-backup", "balance-slb",
 * "balance-tcp") in '*mode' and true, or false for an unknown name. */
bool bond_mode_from_string(const char *name, enum bond_mode *mode);

/* Returns the name of 'mode', as bond/show prints it. */
const char *bond_mode_to_string(enum bond_mode mode);

/* Returns the mode of 'bond'. */
enum bond_mode bond_get_mode(const struct bond *bond);

/* Creates bond 'name' in 'mode' with no members (every bucket maps to
 * BOND_PORT_NONE), rebalance interval BOND_REBALANCE_INTERVAL_DEFAULT,
 * first rebalance due at 'now' plus that.  Destroy with bond_destroy(). */
struct bond *bond_create(const char *name, enum bond_mode mode,
                         long long now);

/* Frees 'bond' (NULL is allowed).  The caller must have made sure that no
 * PMD can still reach 'bond' (unpublished it and waited for a grace
 * period). */
void bond_destroy(struct bond *bond);

/* Adds member 'name' with datapath port 'port_no', its link up or not per
 * 'may_enable'.  An enabled member takes its share of the unloaded buckets
 * at once.  Publishes.  Returns 0, or EEXIST if a member already has
 * 'name' or 'port_no', or EINVAL if 'port_no' is BOND_PORT_NONE. */
int bond_member_add(struct bond *bond, uint16_t port_no, const char *name,
                    bool may_enable);

/* Removes the member with port 'port_no'; its buckets move as for a
 * disabled member.  Publishes.  Returns 0, or ENOENT. */
int bond_member_remove(struct bond *bond, uint16_t port_no);

/* Records the link state of the member with port 'port_no' (from the link
 * monitor): a member is enabled while its link is up and it is not
 * disabled administratively.  On disable its buckets move at once to the
 * enabled members, least loaded first; on enable it takes its share of the
 * unloaded buckets (loaded ones come back by bond_rebalance()); in
 * active-backup mode the active member is chosen again.  Publishes if
 * the map changes.  Returns 0, or ENOENT. */
int bond_member_set_enabled(struct bond *bond, uint16_t port_no, bool up);

/* Like bond_member_set_enabled(), for the administrative state
 * (bond/enable-member, bond/disable-member), by member 'name'. */
int bond_member_set_admin(struct bond *bond, const char *name, bool enable);

/* Returns whether the member with port 'port_no' is enabled (false if
 * there is none). */
bool bond_member_is_enabled(const struct bond *bond, uint16_t port_no);

/* Returns the port number of the member called 'name', or
 * BOND_PORT_NONE. */
uint16_t bond_member_port(const struct bond *bond, const char *name);

/* Sets the MAC address of member 'port_no', shown by bond/show as "active
 * member mac".  Returns 0, or ENOENT. */
int bond_member_set_mac(struct bond *bond, uint16_t port_no,
                        struct eth_addr mac);

/* Sets the active-backup primary to 'name' (NULL for none), which need not
 * name a member yet.  The primary is active whenever it is enabled.
 * Publishes if the active member changes. */
void bond_set_primary(struct bond *bond, const char *name);

/* bond/set-active-member: makes member 'name' the active member of an
 * active-backup bond.  Returns 0 and sets '*changed' (the reply is "done"
 * if true, else "no change"), or an errno with '*errorp' set to the
 * message for the reply: ENOENT "no such member", EINVAL "cannot make
 * disabled member active", EOPNOTSUPP "not an active-backup bond".
 * Publishes if the active member changes. */
int bond_set_active_member(struct bond *bond, const char *name,
                           bool *changed, const char **errorp);

/* Returns the port of the active member of an active-backup bond, or
 * BOND_PORT_NONE. */
uint16_t bond_get_active_member(const struct bond *bond);

/* Sets the rebalance interval to 'interval' ms (0 disables rebalancing)
 * and schedules the next rebalance at 'now' plus it. */
void bond_set_rebalance_interval(struct bond *bond, long long interval,
                                 long long now);

/* Returns the msec at which bond_rebalance() next has work, or LLONG_MAX
 * if never (active-backup, or interval 0), for the caller's timer. */
long long bond_next_rebalance(const struct bond *bond);

/* If a balance bond's rebalance is due at 'now', folds the PMDs' counters
 * into per-bucket loads, moves buckets from the most to the least loaded
 * enabled member while a move lowers the gap between them and the gap
 * exceeds the tolerance (1/16 of the larger load, and at least 64 kB),
 * halves all loads so older traffic counts less, and schedules the next
 * rebalance.  Publishes if a bucket moved.  Returns the number of buckets
 * moved (0 if not due or not a balance bond). */
int bond_rebalance(struct bond *bond, long long now);

/* Returns the number of buckets assigned to member 'port_no' (0 if there
 * is no such member) and, if 'load' is nonnull, their summed load in
 * '*load' as of the last collection. */
int bond_member_n_buckets(const struct bond *bond, uint16_t port_no,
                          uint64_t *load);

/* Returns bond/show's text for 'bond' at time 'now', in Open vSwitch's
 * layout (one "---- NAME ----" block ending in a blank line), for the
 * caller to free.  Folds the PMDs' counters into the loads first. */
char *bond_show(struct bond *bond, long long now);

/* Returns bond/show's JSON for 'bond' at 'now': an object with "name",
 * "mode", "next_rebalance_ms" (balance bonds only), "primary",
 * "active_member" (active-backup; null if none), and "members", an array
 * of objects with "name", "port", "enabled", "may_enable" and "hashes"
 * (array of {"hash", "load_kb"}, buckets with load only). */
json_t *bond_show_json(struct bond *bond, long long now);

#endif /* bond.h */
