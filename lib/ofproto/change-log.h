/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The change log of one bridge: a bounded ring of the slow-path facts that
 * changed, each named by a 64-bit change key (a MAC in a VLAN, a port's
 * link, the flood set).  A translation records the keys its decision
 * depended on (xlate_out 'deps'); a PMD that reads a key from the log
 * re-translates only the flows that depend on it, so a MAC learned or
 * aged out costs work in proportion to the flows that used that MAC, not
 * to the whole flow table.
 *
 * Changes that touch everything (new rules, a port added or removed, the
 * MAC table flushed) do not go through the log: they bump the bridge's
 * generation (ofproto_generation()) and each PMD sweeps the bridge's
 * flows.  A reader that falls more than CHANGE_LOG_SIZE keys behind has
 * lost keys and must sweep too; change_log_read() tells it.
 *
 * Threads: any thread may append (appends serialise on a mutex, held for
 * a store).  Readers take no lock: they read the head with acquire, then
 * the keys, then check that the keys were not overwritten meanwhile.
 */
#ifndef CHANGE_LOG_H
#define CHANGE_LOG_H 1

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "packet/packets.h"

/* Keys kept.  A reader that misses more sweeps the bridge: at 1,000 MAC
 * changes per second a PMD would have to stall for four seconds. */
#define CHANGE_LOG_SIZE 4096

/* The kinds of change key, in the top two bits. */
#define CHANGE_KEY_TYPE_SHIFT 62
enum change_key_type {
    CHANGE_KEY_MAC,             /* VLAN in bits 48-59, MAC in bits 0-47. */
    CHANGE_KEY_PORT,            /* A port's link: port number in 0-15. */
    CHANGE_KEY_FLOOD,           /* Which ports a flood reaches. */
};

static inline uint64_t
change_key_mac(struct eth_addr mac, uint16_t vlan)
{
    uint64_t key = (uint64_t) (vlan & 0xfff) << 48;

    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        key |= (uint64_t) mac.ea[i] << (8 * (ETH_ADDR_LEN - 1 - i));
    }
    return key | ((uint64_t) CHANGE_KEY_MAC << CHANGE_KEY_TYPE_SHIFT);
}

static inline uint64_t
change_key_port(uint16_t port_no)
{
    return port_no | ((uint64_t) CHANGE_KEY_PORT << CHANGE_KEY_TYPE_SHIFT);
}

static inline uint64_t
change_key_flood(void)
{
    return (uint64_t) CHANGE_KEY_FLOOD << CHANGE_KEY_TYPE_SHIFT;
}

struct change_log {
    pthread_mutex_t mutex;      /* Serialises appends. */
    uint64_t head;              /* Keys ever appended: written under
                                 * 'mutex' with release, read with
                                 * acquire. */
    uint64_t *change_seq;       /* Incremented (release) after each
                                 * append, if nonnull: the datapath's
                                 * counter that PMDs watch. */
    uint64_t keys[CHANGE_LOG_SIZE]; /* Key 'i' at 'i % CHANGE_LOG_SIZE';
                                     * stored with release, loaded with
                                     * acquire. */
};

void change_log_init(struct change_log *);
void change_log_uninit(struct change_log *);

/* Makes every append also increment '*change_seq' (NULL: none).  Control
 * thread, before the log is shared. */
void change_log_set_change_seq(struct change_log *, uint64_t *change_seq);

/* Appends 'key'.  Any thread. */
void change_log_append(struct change_log *, uint64_t key);

/* The number of keys ever appended; lock-free, with acquire ordering, so
 * that change_log_read() up to it sees them.  Any thread. */
uint64_t change_log_head(const struct change_log *);

/* Copies into 'keys' up to 'n_max' keys from position 'pos' on, stopping
 * at 'head' (a value change_log_head() returned).  Returns the number
 * copied, or SIZE_MAX if some of the keys from 'pos' on have been
 * overwritten already: the reader lost them.  Any thread, no lock. */
size_t change_log_read(const struct change_log *, uint64_t pos,
                       uint64_t head, uint64_t *keys, size_t n_max);

#endif /* change-log.h */
