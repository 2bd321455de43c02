/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The software RSS hash and the masked-key hash.
 *
 * hash_rss() runs once per received packet that has no kernel hash.  It
 * reads the key's words with a cursor instead of looking each one up, and
 * hashes the 5-tuple: IP addresses, protocol and, except for fragments, the
 * transport ports, plus dl_type.  Every fragment of a datagram therefore
 * hashes alike, which keeps fragments in order on bond output.  Frames with
 * no IP header hash their MAC addresses and dl_type.  The result depends on
 * host byte order; it never leaves the process.
 *
 * hash_masked_miniflow() serves the classifier: a packet key and a stored
 * masked key hash alike exactly when they agree on the bits of the mask.
 */
#include <autoconf.h>
#include "packet/hash.h"

#include <arpa/inet.h>
#include "packet/packets.h"
#include "base/util.h"

/* Words hash_rss() reads: Ethernet through transport. */
#define HASH_RSS_N_WORDS (FLOW_WORD(tp_src) + 1)
BUILD_ASSERT_DECL(HASH_RSS_N_WORDS == 10);  /* The unroll count below. */

union hash_word {
    uint64_t u64;
    uint8_t u8[8];
    uint16_t u16[4];
    uint32_t u32[2];
};

uint32_t
hash_rss(const struct netdev_flow_key *key)
{
    const uint64_t *v = key->mf.values;
    uint64_t map = key->mf.map;
    uint64_t w[HASH_RSS_N_WORDS];
    union hash_word eth1, ip, tp;
    uint32_t hash = 0;
    uint32_t n;
    size_t i;

    /* Words are packed in index order, so one pass unpacks them.  Fully
     * unrolled, the pass costs a few cycles; as a loop it costs more than
     * the hashing (measured with gcc -O2). */
    _Pragma("GCC unroll 10")
    for (i = 0; i < HASH_RSS_N_WORDS; i++) {
        w[i] = map & (UINT64_C(1) << i) ? *v++ : 0;
    }

    eth1.u64 = w[FLOW_WORD(dl_type)];
    eth1.u16[3] = 0;            /* in_port must not count. */

    if (eth1.u16[2] == htons(ETH_TYPE_IP)
        && map & (UINT64_C(1) << FLOW_WORD(nw_src))) {
        hash = hash_add64(hash, w[FLOW_WORD(nw_src)]);
        n = 8;
    } else if (eth1.u16[2] == htons(ETH_TYPE_IPV6)
               && map & (UINT64_C(1) << FLOW_WORD(ipv6_src))) {
        for (i = FLOW_WORD(ipv6_src); i < FLOW_WORD(ipv6_label); i++) {
            hash = hash_add64(hash, w[i]);
        }
        n = 32;
    } else {
        hash = hash_add64(hash, w[FLOW_WORD(dl_dst)]);
        hash = hash_add64(hash, eth1.u64);
        hash = hash_finish(hash, 2 * ETH_ADDR_LEN + 2);
        return hash ? hash : 1;
    }

    ip.u64 = w[FLOW_WORD(nw_proto)];
    hash = hash_add(hash, ((uint32_t) eth1.u16[2] << 16) | ip.u8[7]);
    n += 4;
    if (!(ip.u8[4] & FLOW_NW_FRAG_ANY)) {
        /* tp_src and tp_dst, or ICMP type and code. */
        tp.u64 = w[FLOW_WORD(tp_src)];
        hash = hash_add(hash, tp.u32[0]);
        n += 4;
    }
    hash = hash_finish(hash, n);
    return hash ? hash : 1;
}

uint32_t
hash_masked_miniflow(const struct miniflow *key, const struct miniflow *mask)
{
    const uint64_t *kv = key->values;
    const uint64_t *mv = mask->values;
    uint32_t hash = 0;
    int idx;

    /* Walk both maps together so that each packed array is read by a
     * cursor; a word absent from 'key' is zero. */
    ULLONG_FOR_EACH_1 (idx, key->map | mask->map) {
        uint64_t bit = UINT64_C(1) << idx;
        uint64_t word = key->map & bit ? *kv++ : 0;

        if (mask->map & bit) {
            hash = hash_add64(hash, word & *mv++);
        }
    }
    return hash_finish(hash, count_1bits(mask->map) * 8);
}
