/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Flow keys.  'struct flow' is the expanded key, laid out as FLOW_U64S
 * 64-bit words.  A miniflow is the compact form the datapath works with: a
 * bitmap 'map' says which words are present and the present words follow in
 * index order; an absent word reads as zero.  miniflow_extract() parses a
 * frame straight into a miniflow and never reads past the frame, whatever
 * it holds.
 *
 * Megaflow masks are miniflows too: a mask's map names the words it looks
 * at, and its values are the bits within them.
 */
#ifndef MINIFLOW_H
#define MINIFLOW_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <netinet/in.h>
#include "flow-format.h"      /* flow_format(), for existing callers. */
#include "packets.h"
#include "util.h"

struct dp_packet;

/* The expanded flow key.  Field order fixes the word indexes below; every
 * padding byte is zero in a valid flow. */
struct flow {
    /* Word 0-1: Ethernet and input port. */
    struct eth_addr dl_dst;     /* Ethernet destination. */
    struct eth_addr dl_src;     /* Ethernet source. */
    ovs_be16 dl_type;           /* Ethertype after the VLAN tags. */
    uint16_t in_port;           /* Datapath port number (host order). */
    /* Word 2: VLAN tags, outer first.  TCI has VLAN_CFI set when present. */
    ovs_be16 vlans_tci[2];
    ovs_be16 vlans_tpid[2];
    /* Word 3: IPv4 addresses, or ARP SPA/TPA. */
    ovs_be32 nw_src;
    ovs_be32 nw_dst;
    /* Word 4-7: IPv6 addresses. */
    struct in6_addr ipv6_src;
    struct in6_addr ipv6_dst;
    /* Word 8: IP header bits.  nw_proto is the ARP opcode's low byte for
     * ARP, as OVS does. */
    ovs_be32 ipv6_label;        /* Low 20 bits. */
    uint8_t nw_frag;            /* FLOW_NW_FRAG_*. */
    uint8_t nw_tos;             /* DSCP and ECN. */
    uint8_t nw_ttl;             /* TTL or hop limit. */
    uint8_t nw_proto;           /* IP protocol or ARP opcode. */
    /* Word 9: transport.  ICMP type/code go in tp_src/tp_dst (as OVS). */
    ovs_be16 tp_src;
    ovs_be16 tp_dst;
    ovs_be16 tcp_flags;         /* Low 12 bits of the TCP flags. */
    uint16_t pad9;
    /* Word 10-11: ICMPv6 ND target. */
    struct in6_addr nd_target;
    /* Word 12-13: ARP SHA/THA, or ND source/target link-layer option. */
    struct eth_addr arp_sha;
    struct eth_addr arp_tha;
    uint32_t pad13;
} __attribute__((aligned(8)));   /* Read as 64-bit words. */

#define FLOW_U64S (sizeof(struct flow) / 8)
BUILD_ASSERT_DECL(sizeof(struct flow) % 8 == 0);
BUILD_ASSERT_DECL(FLOW_U64S <= 64);

/* Word index of member 'FIELD' of struct flow. */
#define FLOW_WORD(FIELD) (offsetof(struct flow, FIELD) / 8)

/* A compact key: 'map' plus count_1bits(map) words in 'values'. */
struct miniflow {
    uint64_t map;
    uint64_t values[FLOW_U64S];
};

/* A miniflow with its hash and length, as the caches store it. */
struct netdev_flow_key {
    uint32_t hash;              /* RSS hash for packets, or masked hash. */
    uint32_t len;               /* Bytes of 'mf.values' in use. */
    struct miniflow mf;
};

/* Parses 'packet' into 'key->mf' and sets 'key->len'.  It does not touch
 * 'key->hash'.  Fields the frame does not have (truncated or malformed
 * headers) are left out of the map; parsing stops at the first header that
 * does not fit in the frame.  Counts one extract call (see
 * miniflow_n_extracts()).  Any thread. */
void miniflow_extract(const struct dp_packet *packet,
                      struct netdev_flow_key *key);

/* Number of miniflow_extract() calls made by the calling thread. */
uint64_t miniflow_n_extracts(void);

/* Returns word 'idx' of 'mf', 0 if absent. */
static inline uint64_t
miniflow_get_word(const struct miniflow *mf, unsigned int idx)
{
    uint64_t bit = UINT64_C(1) << idx;

    if (!(mf->map & bit)) {
        return 0;
    }
    return mf->values[count_1bits(mf->map & (bit - 1))];
}

/* Converts between the two forms.  miniflow_from_flow() includes exactly
 * the words whose bit is set in 'map'. */
void miniflow_expand(const struct miniflow *mf, struct flow *flow);
void miniflow_from_flow(struct miniflow *mf, const struct flow *flow,
                        uint64_t map);

/* Byte length of the values of 'mf'. */
static inline uint32_t
miniflow_size(const struct miniflow *mf)
{
    return count_1bits(mf->map) * 8;
}

/* True if 'a' and 'b' hold the same words. */
bool miniflow_equal(const struct miniflow *a, const struct miniflow *b);

#endif /* miniflow.h */
