/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The MAC learning table of one bridge, used by the NORMAL action: it maps
 * (VLAN, MAC) to the port the MAC was last seen on.  Entries age out
 * 'aging' seconds after they were last learned or refreshed.  A MAC that
 * shows up on another port of the same VLAN moves there.
 *
 * One port cannot take the table from the others.  When the table is
 * full, learning a new MAC evicts the least recently used entry of the
 * port that holds the most entries (as Open vSwitch does), so a port
 * flooding new source MACs evicts its own.  A port may also have a limit
 * of its own (mac-limit): past it, a new MAC is not learned and the frame
 * is flooded as from any unknown source.  And a port learns at most
 * 'learn_rate' new or moved MACs a second; beyond that, the same.  Both
 * refusals are counted, per port and in total.
 *
 * Time is passed in by the caller as milliseconds of the monotonic clock
 * (time_msec()), so that tests can drive aging with a fake clock.
 *
 * Thread safety: every function may be called from any thread.  Learning,
 * lookups, refreshes and aging serialise on one mutex per table, held for a
 * hash lookup at most (a dump holds it for one pass over the table).  Only
 * slow paths take it: upcalls on PMD threads, periodic refreshes and aging
 * on the control thread.  The generation counter is read without the lock.
 *
 * The generation counter changes whenever a forwarding decision could
 * change: a MAC learned, moved, aged out, evicted or flushed.  A thread
 * that caches decisions reads mac_learning_generation() before it makes
 * them, and re-checks them when the value changes.  The datapath does
 * better: with a change log (mac_learning_set_change_log()), every entry
 * learned, moved or removed appends its key to the log, and only changes
 * that concern the whole table (a flush, a new aging time) move the
 * coarser mac_learning_table_generation().
 */
#ifndef MAC_LEARNING_H
#define MAC_LEARNING_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "packet/packets.h"

#define MAC_LEARNING_DEFAULT_AGING_SEC 300
#define MAC_LEARNING_MAX_AGING_SEC 86400     /* One day. */
#define MAC_LEARNING_DEFAULT_MAX_ENTRIES 2048  /* Open vSwitch's. */
#define MAC_LEARNING_DEFAULT_LEARN_RATE 1000   /* Per port and second. */
#define MAC_LEARNING_MAX_VLAN 4095

struct change_log;
struct mac_learning;

enum mac_learning_result {
    ML_NOCHANGE,                /* Already known on that port; refreshed. */
    ML_NEW,                     /* Not known before (or had expired). */
    ML_MOVED,                   /* Known on another port; moved. */
    ML_OVER_LIMIT,              /* Not learned: the port is at its
                                 * limit. */
    ML_RATE_LIMITED,            /* Not learned: the port learned
                                 * 'learn_rate' MACs in the last second. */
};

/* One row of mac_learning_dump(). */
struct mac_learning_row {
    uint16_t port;
    uint16_t vlan;
    struct eth_addr mac;
    unsigned int age;           /* Seconds since last learned or refreshed. */
};

/* Cumulative counters, as Open vSwitch's fdb/stats-show. */
struct mac_learning_stats {
    size_t n_entries;           /* Entries now in the table. */
    size_t max_entries;         /* Current limit. */
    unsigned int aging_sec;     /* Current aging time. */
    uint64_t n_learned;         /* ML_NEW results. */
    uint64_t n_moved;           /* ML_MOVED results. */
    uint64_t n_expired;         /* Removed by mac_learning_run(). */
    uint64_t n_evicted;         /* Removed to make room for a new MAC. */
    uint64_t n_over_limit;      /* ML_OVER_LIMIT results. */
    uint64_t n_rate_limited;    /* ML_RATE_LIMITED results. */
    unsigned int learn_rate;    /* Current rate limit; 0: none. */
};

/* One row of mac_learning_dump_ports(): what a port holds and was
 * refused. */
struct mac_learning_port_row {
    uint16_t port;
    size_t n_entries;
    size_t limit;               /* 0: none. */
    uint64_t n_over_limit;
    uint64_t n_rate_limited;
};

/* Creates an empty table.  'aging_sec' of 0 means
 * MAC_LEARNING_DEFAULT_AGING_SEC; larger than MAC_LEARNING_MAX_AGING_SEC is
 * clamped.  'max_entries' of 0 means MAC_LEARNING_DEFAULT_MAX_ENTRIES. */
struct mac_learning *mac_learning_create(unsigned int aging_sec,
                                         size_t max_entries);

/* Frees 'ml' and its entries.  Accepts NULL.  No other thread may be using
 * 'ml'. */
void mac_learning_destroy(struct mac_learning *ml);

/* Changes the aging time (same rules as mac_learning_create()); applies to
 * existing entries at once.  Bumps the generation if the value changed. */
void mac_learning_set_aging(struct mac_learning *ml, unsigned int aging_sec);

/* Changes the maximum number of entries (0 means the default), evicting
 * the entries that no longer fit, as learning does. */
void mac_learning_set_max_entries(struct mac_learning *ml,
                                  size_t max_entries);

/* Sets how many entries 'port' may hold (0: no limit but the table's).
 * Entries beyond a lowered limit stay until they age out or move. */
void mac_learning_set_port_limit(struct mac_learning *ml, uint16_t port,
                                 size_t limit);

/* Sets how many MACs a port may learn or move to it per second (0: no
 * limit).  MAC_LEARNING_DEFAULT_LEARN_RATE until changed. */
void mac_learning_set_learn_rate(struct mac_learning *ml,
                                 unsigned int rate);

/* Records that 'mac' was seen on 'port' in 'vlan' (at most
 * MAC_LEARNING_MAX_VLAN) at time 'now'.  Multicast MACs are never learned
 * (returns ML_NOCHANGE).  ML_NEW and ML_MOVED bump the generation and log
 * the key; so does an eviction to make room, for the evicted key.  Over
 * the port's limit or learn rate, nothing is learned and the result says
 * which. */
enum mac_learning_result mac_learning_learn(struct mac_learning *ml,
                                            struct eth_addr mac,
                                            uint16_t vlan, uint16_t port,
                                            long long now);

/* Returns the port 'mac' was learned on in 'vlan', or -1 if it is unknown
 * or its entry has expired by 'now'.  Does not refresh the entry. */
int mac_learning_lookup(struct mac_learning *ml, struct eth_addr mac,
                        uint16_t vlan, long long now);

/* Keeps the entry for ('mac', 'vlan') alive as of 'now', but only if it
 * exists, has not expired and still points to 'port': traffic that hits a
 * cached flow from a MAC's old port must not pin it there, and an entry
 * that is gone is re-learned only by an upcall.  Returns true if the entry
 * was refreshed.  Never changes the generation. */
bool mac_learning_refresh(struct mac_learning *ml, struct eth_addr mac,
                          uint16_t vlan, uint16_t port, long long now);

/* One entry for mac_learning_refresh_batch(). */
struct mac_learning_refresh {
    struct eth_addr mac;
    uint16_t vlan;
    uint16_t port;
};

/* mac_learning_refresh() for each of the 'n' entries 'refreshes', under
 * one hold of the table's mutex.  Returns how many were refreshed. */
size_t mac_learning_refresh_batch(struct mac_learning *ml,
                                  const struct mac_learning_refresh *,
                                  size_t n, long long now);

/* Removes the entries that have expired by 'now' and returns how many.
 * Bumps the generation if any.  Called periodically (about once a second)
 * by the control thread. */
size_t mac_learning_run(struct mac_learning *ml, long long now);

/* Makes every entry that is learned, moved or removed append its key
 * (change_key_mac()) to 'log', and every change of the table generation
 * increment '*change_seq' (release), the counter a datapath's PMDs watch
 * for any bridge.  Either may be NULL.  Control thread, before 'ml' is
 * used by another thread. */
void mac_learning_set_change_log(struct mac_learning *, struct change_log *,
                                 uint64_t *change_seq);

/* Removes every entry (bumps the table generation if there were any). */
void mac_learning_flush(struct mac_learning *ml);

/* Removes the entries on 'port' and returns how many (each is logged).
 * For a port leaving the bridge or losing its link. */
size_t mac_learning_flush_port(struct mac_learning *ml, uint16_t port);

/* Number of entries, including expired ones not yet removed by
 * mac_learning_run(). */
size_t mac_learning_count(struct mac_learning *ml);

/* The generation counter; any thread, lock-free, with acquire ordering so
 * that lookups made after reading it see every change it counts. */
uint64_t mac_learning_generation(const struct mac_learning *ml);

/* The part of the generation that the change log does not name: it moves
 * when the aging time changes or the table is flushed.  Same ordering as
 * mac_learning_generation(). */
uint64_t mac_learning_table_generation(const struct mac_learning *ml);

void mac_learning_get_stats(struct mac_learning *ml,
                            struct mac_learning_stats *stats);

/* Stores in '*rowsp' an array, to be freed by the caller, of the ports
 * that hold entries, have a limit or were refused a MAC, sorted by port
 * number, and returns its length. */
size_t mac_learning_dump_ports(struct mac_learning *ml,
                               struct mac_learning_port_row **rowsp);

/* Stores in '*rowsp' an array, to be freed by the caller, of the entries
 * that are live at 'now', sorted by port, VLAN and MAC, and returns its
 * length. */
size_t mac_learning_dump(struct mac_learning *ml, long long now,
                         struct mac_learning_row **rowsp);

/* Returns the table as Open vSwitch's fdb/show prints it, a header line
 * " port  VLAN  MAC                Age" then one line per live entry, as a
 * string to be freed by the caller. */
char *mac_learning_format_fdb(struct mac_learning *ml, long long now);

#endif /* mac-learning.h */
