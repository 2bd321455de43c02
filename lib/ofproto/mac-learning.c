/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * MAC learning table: a chained hash table keyed by (VLAN, MAC), plus a
 * list of the same entries in least-recently-used order, plus one such list
 * per port.  The global list makes aging O(1) per entry removed (expired
 * entries collect at its head); a port's list gives the victim when the
 * table is full and that port holds the most entries.  See mac-learning.h
 * for the contract and the locking.
 */
#include <autoconf.h>
#include "ofproto/mac-learning.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "ofproto/change-log.h"
#include "packet/hash.h"
#include "base/util.h"

#define ML_MIN_BUCKETS 64

/* A doubly linked list node; a list is a sentinel node. */
struct ml_list {
    struct ml_list *prev;
    struct ml_list *next;
};

struct mac_entry {
    struct mac_entry *hash_next; /* In the bucket chain. */
    struct ml_list lru_node;     /* In 'ml->lru'. */
    struct ml_list port_node;    /* In its port's 'lru'. */
    uint64_t key;                /* VLAN in bits 48-59, MAC in bits 0-47. */
    long long used;              /* msec of the last learn or refresh. */
    uint16_t port;
};

/* What the table knows of one port. */
struct ml_port {
    struct ml_list lru;          /* The port's entries, oldest first. */
    size_t n_entries;
    size_t limit;                /* 0: none. */
    uint64_t credit;             /* Learn tokens, in thousandths. */
    long long credit_time;       /* msec of the last refill. */
    uint64_t n_over_limit;       /* ML_OVER_LIMIT results. */
    uint64_t n_rate_limited;     /* ML_RATE_LIMITED results. */
};

struct mac_learning {
    pthread_mutex_t mutex;

    /* Under 'mutex'. */
    struct mac_entry **buckets;  /* 'bucket_mask' + 1 chains. */
    size_t bucket_mask;
    size_t n_entries;
    size_t max_entries;
    long long aging_ms;
    struct ml_list lru;          /* Least recently used first. */
    uint32_t basis;              /* Random hash basis, against collisions
                                  * chosen by whoever sends the frames. */
    uint64_t n_learned;
    uint64_t n_moved;
    uint64_t n_expired;
    uint64_t n_evicted;
    uint64_t n_over_limit;
    uint64_t n_rate_limited;
    unsigned int learn_rate;     /* New or moved MACs per second and port;
                                  * 0: no limit. */
    struct ml_port **ports;      /* Indexed by port number, 'n_ports'
                                  * slots; NULL: nothing known yet. */
    size_t n_ports;

    /* Written under 'mutex' with release ordering, read lock-free with
     * acquire ordering (mac_learning_generation() and
     * mac_learning_table_generation()). */
    uint64_t generation;
    uint64_t table_generation;

    /* If nonnull, gets the key of every entry that changes; set before
     * use.  '*change_seq' (if nonnull) is also incremented (release)
     * after every change of 'table_generation': the datapath's counter
     * of slow-path changes. */
    struct change_log *log;
    uint64_t *change_seq;
};

static void
ml_list_init(struct ml_list *list)
{
    list->prev = list->next = list;
}

static void
ml_list_remove(struct ml_list *node)
{
    node->prev->next = node->next;
    node->next->prev = node->prev;
}

static void
ml_list_push_back(struct ml_list *list, struct ml_list *node)
{
    node->prev = list->prev;
    node->next = list;
    list->prev->next = node;
    list->prev = node;
}

static struct mac_entry *
ml_lru_oldest(const struct mac_learning *ml)
{
    return (ml->lru.next == &ml->lru
            ? NULL
            : CONTAINER_OF(ml->lru.next, struct mac_entry, lru_node));
}

static uint64_t
ml_key(struct eth_addr mac, uint16_t vlan)
{
    uint64_t key = (uint64_t) vlan << 48;

    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        key |= (uint64_t) mac.ea[i] << (8 * (ETH_ADDR_LEN - 1 - i));
    }
    return key;
}

static struct eth_addr
ml_key_mac(uint64_t key)
{
    struct eth_addr mac;

    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        mac.ea[i] = key >> (8 * (ETH_ADDR_LEN - 1 - i));
    }
    return mac;
}

static uint16_t
ml_key_vlan(uint64_t key)
{
    return key >> 48;
}

static uint32_t
ml_hash(const struct mac_learning *ml, uint64_t key)
{
    return hash_finish(hash_add64(ml->basis, key), 8);
}

static bool
ml_entry_is_live(const struct mac_learning *ml, const struct mac_entry *e,
                 long long now)
{
    return now < e->used + ml->aging_ms;
}

static void
ml_bump_generation(struct mac_learning *ml)
{
    /* Pairs with the acquire load in mac_learning_generation(). */
    __atomic_add_fetch(&ml->generation, 1, __ATOMIC_RELEASE);
}

/* Records that the entry for 'key' changed: learned, moved or removed. */
static void
ml_entry_changed(struct mac_learning *ml, uint64_t key)
{
    ml_bump_generation(ml);
    if (ml->log) {
        change_log_append(ml->log, key | ((uint64_t) CHANGE_KEY_MAC
                                          << CHANGE_KEY_TYPE_SHIFT));
    }
}

/* Records a change the log does not name (aging time, flush, trim). */
static void
ml_table_changed(struct mac_learning *ml)
{
    ml_bump_generation(ml);
    /* Pairs with the acquire load in mac_learning_table_generation(). */
    __atomic_add_fetch(&ml->table_generation, 1, __ATOMIC_RELEASE);
    if (ml->change_seq) {
        /* Pairs with the acquire load of the datapath's counter in
         * the PMDs: one that sees it change sees 'table_generation'. */
        __atomic_add_fetch(ml->change_seq, 1, __ATOMIC_RELEASE);
    }
}

void
mac_learning_set_change_log(struct mac_learning *ml, struct change_log *log,
                            uint64_t *change_seq)
{
    ml->log = log;
    ml->change_seq = change_seq;
}

/* The state of 'port', created if needed. */
static struct ml_port *
ml_port__(struct mac_learning *ml, uint16_t port)
{
    if (port >= ml->n_ports) {
        size_t n = MAX(port + 1, ml->n_ports * 2);

        ml->ports = xrealloc(ml->ports, n * sizeof *ml->ports);
        memset(&ml->ports[ml->n_ports], 0,
               (n - ml->n_ports) * sizeof *ml->ports);
        ml->n_ports = n;
    }
    if (!ml->ports[port]) {
        struct ml_port *p = xzalloc(sizeof *p);

        ml_list_init(&p->lru);
        p->credit = UINT64_MAX;     /* Full at the first refill. */
        ml->ports[port] = p;
    }
    return ml->ports[port];
}

static unsigned int
ml_aging_or_default(unsigned int aging_sec)
{
    if (!aging_sec) {
        return MAC_LEARNING_DEFAULT_AGING_SEC;
    }
    return MIN(aging_sec, MAC_LEARNING_MAX_AGING_SEC);
}

static uint32_t
ml_random_basis(void)
{
    uint32_t basis;

    if (getrandom(&basis, sizeof basis, GRND_NONBLOCK) != sizeof basis) {
        basis = (uint32_t) time_usec();
    }
    return basis;
}

struct mac_learning *
mac_learning_create(unsigned int aging_sec, size_t max_entries)
{
    struct mac_learning *ml = xzalloc(sizeof *ml);

    pthread_mutex_init(&ml->mutex, NULL);
    ml->bucket_mask = ML_MIN_BUCKETS - 1;
    ml->buckets = xcalloc(ML_MIN_BUCKETS, sizeof *ml->buckets);
    ml->max_entries = max_entries ? max_entries
                                  : MAC_LEARNING_DEFAULT_MAX_ENTRIES;
    ml->aging_ms = ml_aging_or_default(aging_sec) * 1000LL;
    ml_list_init(&ml->lru);
    ml->basis = ml_random_basis();
    ml->learn_rate = MAC_LEARNING_DEFAULT_LEARN_RATE;
    return ml;
}

void
mac_learning_destroy(struct mac_learning *ml)
{
    if (!ml) {
        return;
    }
    for (struct mac_entry *e = ml_lru_oldest(ml); e; e = ml_lru_oldest(ml)) {
        ml_list_remove(&e->lru_node);
        free(e);
    }
    for (size_t i = 0; i < ml->n_ports; i++) {
        free(ml->ports[i]);
    }
    free(ml->ports);
    free(ml->buckets);
    pthread_mutex_destroy(&ml->mutex);
    free(ml);
}

/* Returns the entry for 'key', live or expired, or NULL. */
static struct mac_entry *
ml_find__(const struct mac_learning *ml, uint64_t key)
{
    struct mac_entry *e = ml->buckets[ml_hash(ml, key) & ml->bucket_mask];

    while (e && e->key != key) {
        e = e->hash_next;
    }
    return e;
}

static void
ml_remove__(struct mac_learning *ml, struct mac_entry *e)
{
    struct mac_entry **prevp;

    prevp = &ml->buckets[ml_hash(ml, e->key) & ml->bucket_mask];
    while (*prevp != e) {
        prevp = &(*prevp)->hash_next;
    }
    *prevp = e->hash_next;
    ml_list_remove(&e->lru_node);
    ml_list_remove(&e->port_node);
    ml->ports[e->port]->n_entries--;
    ml->n_entries--;
    free(e);
}

/* Moves 'e' to 'port''s list. */
static void
ml_set_port__(struct mac_learning *ml, struct mac_entry *e, uint16_t port)
{
    struct ml_port *p = ml_port__(ml, port);

    ml_list_remove(&e->port_node);
    ml->ports[e->port]->n_entries--;
    e->port = port;
    ml_list_push_back(&p->lru, &e->port_node);
    p->n_entries++;
}

/* Doubles the bucket array, keeping the load factor at most 1. */
static void
ml_grow__(struct mac_learning *ml)
{
    size_t n_buckets = (ml->bucket_mask + 1) * 2;
    struct mac_entry **buckets = xcalloc(n_buckets, sizeof *buckets);

    for (size_t i = 0; i <= ml->bucket_mask; i++) {
        struct mac_entry *e, *next;

        for (e = ml->buckets[i]; e; e = next) {
            size_t idx = ml_hash(ml, e->key) & (n_buckets - 1);

            next = e->hash_next;
            e->hash_next = buckets[idx];
            buckets[idx] = e;
        }
    }
    free(ml->buckets);
    ml->buckets = buckets;
    ml->bucket_mask = n_buckets - 1;
}

/* The entry to evict to make room: the least recently used entry of the
 * port that has the most, so that a port that learns many MACs evicts its
 * own and not the hosts of other ports (Open vSwitch evicts the same
 * way).  Among ports with as many, the one whose oldest entry is oldest.
 * The table is not empty. */
static struct mac_entry *
ml_eviction_victim__(const struct mac_learning *ml)
{
    struct mac_entry *victim = NULL;
    size_t most = 0;

    for (size_t i = 0; i < ml->n_ports; i++) {
        const struct ml_port *p = ml->ports[i];
        struct mac_entry *oldest;

        if (!p || !p->n_entries || p->n_entries < most) {
            continue;
        }
        oldest = CONTAINER_OF(p->lru.next, struct mac_entry, port_node);
        if (p->n_entries > most || oldest->used < victim->used) {
            victim = oldest;
            most = p->n_entries;
        }
    }
    return victim;
}

/* Evicts entries until at most 'limit' remain, each time from the port
 * with the most (ml_eviction_victim__()), and reports each.  Returns the
 * number removed. */
static size_t
ml_trim__(struct mac_learning *ml, size_t limit)
{
    size_t n = 0;

    while (ml->n_entries > limit) {
        struct mac_entry *e = ml_eviction_victim__(ml);
        uint64_t key = e->key;

        ml_remove__(ml, e);
        ml_entry_changed(ml, key);
        n++;
    }
    return n;
}

/* Removes every entry, without reporting each. */
static void
ml_clear__(struct mac_learning *ml)
{
    struct mac_entry *e;

    while ((e = ml_lru_oldest(ml))) {
        ml_remove__(ml, e);
    }
}

static void
ml_insert__(struct mac_learning *ml, uint64_t key, uint16_t port,
            long long now)
{
    struct mac_entry *e = xmalloc(sizeof *e);
    size_t idx;

    struct ml_port *p = ml_port__(ml, port);

    e->key = key;
    e->port = port;
    e->used = now;
    if (ml->n_entries >= ml->bucket_mask + 1) {
        ml_grow__(ml);
    }
    idx = ml_hash(ml, key) & ml->bucket_mask;
    e->hash_next = ml->buckets[idx];
    ml->buckets[idx] = e;
    ml_list_push_back(&ml->lru, &e->lru_node);
    ml_list_push_back(&p->lru, &e->port_node);
    p->n_entries++;
    ml->n_entries++;
}

/* Marks 'e' used at 'now' and makes it the most recently used entry.  The
 * clocks of different callers may be a little apart; 'used' never goes
 * back. */
static void
ml_touch__(struct mac_learning *ml, struct mac_entry *e, long long now)
{
    e->used = MAX(e->used, now);
    ml_list_remove(&e->lru_node);
    ml_list_push_back(&ml->lru, &e->lru_node);
    ml_list_remove(&e->port_node);
    ml_list_push_back(&ml->ports[e->port]->lru, &e->port_node);
}

void
mac_learning_set_aging(struct mac_learning *ml, unsigned int aging_sec)
{
    long long aging_ms = ml_aging_or_default(aging_sec) * 1000LL;

    pthread_mutex_lock(&ml->mutex);
    if (aging_ms != ml->aging_ms) {
        ml->aging_ms = aging_ms;
        ml_table_changed(ml);
    }
    pthread_mutex_unlock(&ml->mutex);
}

void
mac_learning_set_max_entries(struct mac_learning *ml, size_t max_entries)
{
    size_t n_evicted;

    pthread_mutex_lock(&ml->mutex);
    ml->max_entries = max_entries ? max_entries
                                  : MAC_LEARNING_DEFAULT_MAX_ENTRIES;
    n_evicted = ml_trim__(ml, ml->max_entries);
    ml->n_evicted += n_evicted;
    pthread_mutex_unlock(&ml->mutex);
}

void
mac_learning_set_port_limit(struct mac_learning *ml, uint16_t port,
                            size_t limit)
{
    pthread_mutex_lock(&ml->mutex);
    ml_port__(ml, port)->limit = limit;
    pthread_mutex_unlock(&ml->mutex);
}

void
mac_learning_set_learn_rate(struct mac_learning *ml, unsigned int rate)
{
    pthread_mutex_lock(&ml->mutex);
    ml->learn_rate = rate;
    pthread_mutex_unlock(&ml->mutex);
}

/* Takes one learn token of 'p' at 'now', if it has one.  The bucket holds
 * a second's worth ('learn_rate' tokens) and refills continuously. */
static bool
ml_take_credit__(struct mac_learning *ml, struct ml_port *p, long long now)
{
    uint64_t cap = (uint64_t) ml->learn_rate * 1000;

    if (!ml->learn_rate) {
        return true;
    }
    if (now > p->credit_time || p->credit > cap) {
        uint64_t elapsed = now > p->credit_time ? now - p->credit_time : 0;

        /* 'rate' tokens a second is 'rate' thousandths a millisecond. */
        p->credit = (p->credit > cap ? cap
                     : MIN(cap, p->credit + elapsed * ml->learn_rate));
        p->credit_time = MAX(now, p->credit_time);
    }
    if (p->credit < 1000) {
        return false;
    }
    p->credit -= 1000;
    return true;
}

enum mac_learning_result
mac_learning_learn(struct mac_learning *ml, struct eth_addr mac,
                   uint16_t vlan, uint16_t port, long long now)
{
    enum mac_learning_result result;
    uint64_t key = ml_key(mac, vlan);
    struct mac_entry *e;
    struct ml_port *p;

    ovs_assert(vlan <= MAC_LEARNING_MAX_VLAN);
    if (eth_addr_is_multicast(mac)) {
        return ML_NOCHANGE;
    }

    pthread_mutex_lock(&ml->mutex);
    e = ml_find__(ml, key);
    p = ml_port__(ml, port);
    if (e && e->port == port && ml_entry_is_live(ml, e, now)) {
        ml_touch__(ml, e, now);
        result = ML_NOCHANGE;
    } else if (p->limit && p->n_entries >= p->limit
               && !(e && e->port == port)) {
        /* Counted, not learned: the frame is flooded, as for any unknown
         * source, and the port cannot push other hosts out. */
        p->n_over_limit++;
        ml->n_over_limit++;
        result = ML_OVER_LIMIT;
    } else if (!ml_take_credit__(ml, p, now)) {
        p->n_rate_limited++;
        ml->n_rate_limited++;
        result = ML_RATE_LIMITED;
    } else if (!e) {
        /* Make room first, so that the new entry is never the victim. */
        ml->n_evicted += ml_trim__(ml, ml->max_entries - 1);
        ml_insert__(ml, key, port, now);
        ml->n_learned++;
        result = ML_NEW;
    } else if (!ml_entry_is_live(ml, e, now)) {
        /* An expired entry that aging has not removed yet: lookups have
         * been missing it, so this is news even on the same port. */
        ml_set_port__(ml, e, port);
        ml_touch__(ml, e, now);
        ml->n_learned++;
        result = ML_NEW;
    } else {
        ml_set_port__(ml, e, port);
        ml_touch__(ml, e, now);
        ml->n_moved++;
        result = ML_MOVED;
    }
    if (result == ML_NEW || result == ML_MOVED) {
        ml_entry_changed(ml, key);
    }
    pthread_mutex_unlock(&ml->mutex);
    return result;
}

int
mac_learning_lookup(struct mac_learning *ml, struct eth_addr mac,
                    uint16_t vlan, long long now)
{
    const struct mac_entry *e;
    int port = -1;

    pthread_mutex_lock(&ml->mutex);
    e = ml_find__(ml, ml_key(mac, vlan));
    if (e && ml_entry_is_live(ml, e, now)) {
        port = e->port;
    }
    pthread_mutex_unlock(&ml->mutex);
    return port;
}

/* mac_learning_refresh() with the mutex held. */
static bool
ml_refresh__(struct mac_learning *ml, struct eth_addr mac, uint16_t vlan,
             uint16_t port, long long now)
{
    struct mac_entry *e = ml_find__(ml, ml_key(mac, vlan));

    if (e && e->port == port && ml_entry_is_live(ml, e, now)) {
        ml_touch__(ml, e, now);
        return true;
    }
    return false;
}

bool
mac_learning_refresh(struct mac_learning *ml, struct eth_addr mac,
                     uint16_t vlan, uint16_t port, long long now)
{
    bool refreshed;

    pthread_mutex_lock(&ml->mutex);
    refreshed = ml_refresh__(ml, mac, vlan, port, now);
    pthread_mutex_unlock(&ml->mutex);
    return refreshed;
}

size_t
mac_learning_refresh_batch(struct mac_learning *ml,
                           const struct mac_learning_refresh *refreshes,
                           size_t n, long long now)
{
    size_t n_refreshed = 0;

    pthread_mutex_lock(&ml->mutex);
    for (size_t i = 0; i < n; i++) {
        n_refreshed += ml_refresh__(ml, refreshes[i].mac, refreshes[i].vlan,
                                    refreshes[i].port, now);
    }
    pthread_mutex_unlock(&ml->mutex);
    return n_refreshed;
}

size_t
mac_learning_run(struct mac_learning *ml, long long now)
{
    struct mac_entry *e;
    size_t n = 0;

    pthread_mutex_lock(&ml->mutex);
    while ((e = ml_lru_oldest(ml)) && !ml_entry_is_live(ml, e, now)) {
        uint64_t key = e->key;

        ml_remove__(ml, e);
        ml_entry_changed(ml, key);
        n++;
    }
    ml->n_expired += n;
    pthread_mutex_unlock(&ml->mutex);
    return n;
}

void
mac_learning_flush(struct mac_learning *ml)
{
    pthread_mutex_lock(&ml->mutex);
    if (ml->n_entries) {
        ml_clear__(ml);
        ml_table_changed(ml);
    }
    pthread_mutex_unlock(&ml->mutex);
}

size_t
mac_learning_flush_port(struct mac_learning *ml, uint16_t port)
{
    size_t n = 0;

    pthread_mutex_lock(&ml->mutex);
    if (port < ml->n_ports && ml->ports[port]) {
        struct ml_port *p = ml->ports[port];

        while (p->lru.next != &p->lru) {
            struct mac_entry *e = CONTAINER_OF(p->lru.next, struct mac_entry,
                                               port_node);
            uint64_t key = e->key;

            ml_remove__(ml, e);
            ml_entry_changed(ml, key);
            n++;
        }
    }
    pthread_mutex_unlock(&ml->mutex);
    return n;
}

size_t
mac_learning_count(struct mac_learning *ml)
{
    size_t n;

    pthread_mutex_lock(&ml->mutex);
    n = ml->n_entries;
    pthread_mutex_unlock(&ml->mutex);
    return n;
}

uint64_t
mac_learning_generation(const struct mac_learning *ml)
{
    /* Pairs with the release increment in ml_bump_generation(). */
    return __atomic_load_n(&ml->generation, __ATOMIC_ACQUIRE);
}

uint64_t
mac_learning_table_generation(const struct mac_learning *ml)
{
    /* Pairs with the release increment in ml_table_changed(). */
    return __atomic_load_n(&ml->table_generation, __ATOMIC_ACQUIRE);
}

void
mac_learning_get_stats(struct mac_learning *ml,
                       struct mac_learning_stats *stats)
{
    pthread_mutex_lock(&ml->mutex);
    stats->n_entries = ml->n_entries;
    stats->max_entries = ml->max_entries;
    stats->aging_sec = ml->aging_ms / 1000;
    stats->n_learned = ml->n_learned;
    stats->n_moved = ml->n_moved;
    stats->n_expired = ml->n_expired;
    stats->n_evicted = ml->n_evicted;
    stats->n_over_limit = ml->n_over_limit;
    stats->n_rate_limited = ml->n_rate_limited;
    stats->learn_rate = ml->learn_rate;
    pthread_mutex_unlock(&ml->mutex);
}

size_t
mac_learning_dump_ports(struct mac_learning *ml,
                        struct mac_learning_port_row **rowsp)
{
    struct mac_learning_port_row *rows;
    size_t n = 0;

    pthread_mutex_lock(&ml->mutex);
    rows = xcalloc(ml->n_ports + 1, sizeof *rows);
    for (size_t i = 0; i < ml->n_ports; i++) {
        const struct ml_port *p = ml->ports[i];

        if (p && (p->n_entries || p->limit || p->n_over_limit
                  || p->n_rate_limited)) {
            struct mac_learning_port_row *row = &rows[n++];

            row->port = i;
            row->n_entries = p->n_entries;
            row->limit = p->limit;
            row->n_over_limit = p->n_over_limit;
            row->n_rate_limited = p->n_rate_limited;
        }
    }
    pthread_mutex_unlock(&ml->mutex);
    *rowsp = rows;
    return n;
}

static int
ml_row_compare(const void *a_, const void *b_)
{
    const struct mac_learning_row *a = a_;
    const struct mac_learning_row *b = b_;

    if (a->port != b->port) {
        return a->port < b->port ? -1 : 1;
    }
    if (a->vlan != b->vlan) {
        return a->vlan < b->vlan ? -1 : 1;
    }
    return memcmp(a->mac.ea, b->mac.ea, ETH_ADDR_LEN);
}

size_t
mac_learning_dump(struct mac_learning *ml, long long now,
                  struct mac_learning_row **rowsp)
{
    struct mac_learning_row *rows;
    const struct ml_list *node;
    size_t n = 0;

    pthread_mutex_lock(&ml->mutex);
    rows = xcalloc(ml->n_entries, sizeof *rows);
    for (node = ml->lru.next; node != &ml->lru; node = node->next) {
        const struct mac_entry *e;

        e = CONTAINER_OF(node, const struct mac_entry, lru_node);
        if (ml_entry_is_live(ml, e, now)) {
            struct mac_learning_row *row = &rows[n++];

            row->port = e->port;
            row->vlan = ml_key_vlan(e->key);
            row->mac = ml_key_mac(e->key);
            row->age = now > e->used ? (now - e->used) / 1000 : 0;
        }
    }
    pthread_mutex_unlock(&ml->mutex);

    qsort(rows, n, sizeof *rows, ml_row_compare);
    *rowsp = rows;
    return n;
}

char *
mac_learning_format_fdb(struct mac_learning *ml, long long now)
{
    static const char header[] = " port  VLAN  MAC                Age\n";
    enum { ROW_MAX = 64 };      /* Longest row is 43 bytes plus NUL. */
    struct mac_learning_row *rows;
    size_t n = mac_learning_dump(ml, now, &rows);
    size_t size = sizeof header + n * ROW_MAX;
    char *s = xmalloc(size);
    size_t len;

    memcpy(s, header, sizeof header);
    len = sizeof header - 1;
    for (size_t i = 0; i < n; i++) {
        const struct mac_learning_row *r = &rows[i];

        len += snprintf(s + len, size - len,
                        "%5u  %4u  "ETH_ADDR_FMT"  %3u\n",
                        r->port, r->vlan, ETH_ADDR_ARGS(r->mac), r->age);
    }
    free(rows);
    return s;
}
