/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Hashing.  The RSS hash is computed once per packet on receive, from the
 * 5-tuple (or taken from the kernel's rxhash when the ring supplies it), and
 * stored in the packet; EMC, SMC and bond output reuse it.  Word hashing
 * serves the classifier's masked-key hash tables.
 */
#ifndef HASH_H
#define HASH_H 1

#include <stdint.h>
#include "packet/miniflow.h"

struct dp_packet;

/* Mixes 'data' into the running hash 'hash' (murmur3 step). */
static inline uint32_t
hash_add(uint32_t hash, uint32_t data)
{
    data *= 0xcc9e2d51;
    data = (data << 15) | (data >> 17);
    data *= 0x1b873593;
    hash ^= data;
    hash = (hash << 13) | (hash >> 19);
    return hash * 5 + 0xe6546b64;
}

static inline uint32_t
hash_add64(uint32_t hash, uint64_t data)
{
    return hash_add(hash_add(hash, (uint32_t) data), data >> 32);
}

/* Final avalanche.  'n' is the number of bytes hashed. */
static inline uint32_t
hash_finish(uint32_t hash, uint32_t n)
{
    hash ^= n;
    hash ^= hash >> 16;
    hash *= 0x85ebca6b;
    hash ^= hash >> 13;
    hash *= 0xc2b2ae35;
    hash ^= hash >> 16;
    return hash;
}

/* Software RSS hash of the 5-tuple in 'key' (addresses, protocol, ports)
 * plus dl_type, never 0.  It leaves out in_port, so that the same flow
 * hashes alike on every port (bond output relies on that).  Frames with no
 * IP header hash their MAC addresses and ethertype instead. */
uint32_t hash_rss(const struct netdev_flow_key *key);

/* Hash of the words of 'key' selected by 'mask', for classifier tables. */
uint32_t hash_masked_miniflow(const struct miniflow *key,
                              const struct miniflow *mask);

#endif /* hash.h */
