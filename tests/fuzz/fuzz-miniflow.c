/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for miniflow_extract(): the input is one Ethernet frame.  It
 * is copied into a heap buffer of exactly its size, so that
 * AddressSanitizer reports any read past the frame, and parsed twice.  The
 * target aborts unless both parses give the same key and RSS hash and the
 * key keeps the invariants the caches rely on (see miniflow.h).
 */
#include <autoconf.h>
#include "fuzz.h"

#include <string.h>
#include "packet/dp-packet.h"
#include "packet/hash.h"
#include "packet/miniflow.h"

#define FUZZ_IN_PORT 7

/* Bit of the word that holds member 'FIELD' of struct flow. */
#define FUZZ_W(FIELD) (UINT64_C(1) << FLOW_WORD(FIELD))

static void
fuzz_check_key(const struct netdev_flow_key *key)
{
    uint64_t map = key->mf.map;
    struct miniflow again;
    struct flow flow;

    FUZZ_ASSERT(!(map >> FLOW_U64S));
    FUZZ_ASSERT(map & FUZZ_W(in_port));
    FUZZ_ASSERT(key->len == miniflow_size(&key->mf));
    FUZZ_ASSERT(key->len <= sizeof key->mf.values);
    FUZZ_ASSERT(!(map & ~FUZZ_W(in_port)) || (map & FUZZ_W(dl_dst)));
    FUZZ_ASSERT(!(map & FUZZ_W(tp_src)) || (map & FUZZ_W(nw_proto)));

    /* Expanding and compressing again with the same map is lossless. */
    miniflow_expand(&key->mf, &flow);
    FUZZ_ASSERT(flow.in_port == FUZZ_IN_PORT);
    FUZZ_ASSERT(flow.pad9 == 0 && flow.pad13 == 0);
    miniflow_from_flow(&again, &flow, map);
    FUZZ_ASSERT(miniflow_equal(&again, &key->mf));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct netdev_flow_key a, b;
    struct dp_packet packet;
    uint32_t hash_a, hash_b;
    uint8_t *frame;

    if (size > UINT16_MAX) {
        return 0;
    }
    /* malloc(0) may give NULL; one byte keeps the pointer valid while
     * 'size' still says the frame is empty. */
    frame = malloc(size ? size : 1);
    if (!frame) {
        abort();
    }
    if (size) {
        memcpy(frame, data, size);
    }
    dp_packet_init(&packet, frame, size, FUZZ_IN_PORT);
    packet.headroom = 0;

    /* Poison the keys so that a word left unwritten shows up as a
     * difference between the two parses. */
    memset(&a, 0xa5, sizeof a);
    memset(&b, 0x5a, sizeof b);
    miniflow_extract(&packet, &a);
    miniflow_extract(&packet, &b);
    hash_a = hash_rss(&a);
    hash_b = hash_rss(&b);

    fuzz_check_key(&a);
    FUZZ_ASSERT(a.mf.map == b.mf.map);
    FUZZ_ASSERT(a.len == b.len);
    FUZZ_ASSERT(!memcmp(a.mf.values, b.mf.values, a.len));
    FUZZ_ASSERT(miniflow_equal(&a.mf, &b.mf));
    FUZZ_ASSERT(hash_a == hash_b);
    FUZZ_ASSERT(hash_a != 0);

    /* The parser must not write the frame. */
    FUZZ_ASSERT(!size || !memcmp(frame, data, size));
    free(frame);
    return 0;
}
