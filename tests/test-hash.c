/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the RSS hash and the masked-key hash.  Keys are built from
 * struct flow with explicit maps, as miniflow_extract() would lay them out,
 * so that each case names exactly the fields it varies.
 */
#include <autoconf.h>
#include "packet/hash.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "packet/miniflow.h"
#include "packet/packets.h"
#include "base/util.h"

#define W(FIELD) (UINT64_C(1) << FLOW_WORD(FIELD))
#define MAP_ETH (W(dl_dst) | W(in_port))
#define MAP_IPV4 (MAP_ETH | W(nw_src) | W(nw_proto) | W(tp_src))
#define MAP_IPV6 (MAP_ETH | (UINT64_C(0xf) << FLOW_WORD(ipv6_src))    \
                  | W(nw_proto) | W(tp_src))
static uint32_t
rss_of(const struct flow *flow, uint64_t map)
{
    struct netdev_flow_key key;

    memset(&key, 0, sizeof key);
    miniflow_from_flow(&key.mf, flow, map);
    key.len = miniflow_size(&key.mf);
    return hash_rss(&key);
}

static void
flow_eth(struct flow *flow, uint16_t dl_type)
{
    static const struct eth_addr dst = { { 0x02, 0, 0, 0, 0, 2 } };
    static const struct eth_addr src = { { 0x02, 0, 0, 0, 0, 1 } };

    memset(flow, 0, sizeof *flow);
    flow->dl_dst = dst;
    flow->dl_src = src;
    flow->dl_type = htons(dl_type);
    flow->in_port = 1;
}

static void
flow_tcp4(struct flow *flow, uint32_t src, uint32_t dst, uint16_t sport,
          uint16_t dport)
{
    flow_eth(flow, ETH_TYPE_IP);
    flow->nw_src = htonl(src);
    flow->nw_dst = htonl(dst);
    flow->nw_proto = IP_PROTO_TCP;
    flow->nw_ttl = 64;
    flow->tp_src = htons(sport);
    flow->tp_dst = htons(dport);
    flow->tcp_flags = htons(TCP_ACK);
}

static void
flow_udp6(struct flow *flow, uint8_t last_src, uint16_t sport)
{
    flow_eth(flow, ETH_TYPE_IPV6);
    flow->ipv6_src.s6_addr[0] = 0x20;
    flow->ipv6_src.s6_addr[15] = last_src;
    flow->ipv6_dst.s6_addr[0] = 0x20;
    flow->ipv6_dst.s6_addr[15] = 0x99;
    flow->nw_proto = IP_PROTO_UDP;
    flow->tp_src = htons(sport);
    flow->tp_dst = htons(53);
}

static void
test_rss_deterministic_nonzero(void)
{
    struct flow flow;
    uint32_t a, b;
    uint32_t i;
    int zeros = 0;

    flow_tcp4(&flow, 0x0a000001, 0x0a000002, 1000, 80);
    a = rss_of(&flow, MAP_IPV4);
    b = rss_of(&flow, MAP_IPV4);
    CHECK(a == b, "same key, different hashes %#"PRIx32" %#"PRIx32, a, b);

    for (i = 0; i < 200000; i++) {
        flow_tcp4(&flow, i * 2654435761u, ~i, i, i >> 16);
        zeros += !rss_of(&flow, MAP_IPV4);
        flow_udp6(&flow, i, i >> 8);
        zeros += !rss_of(&flow, MAP_IPV6);
        flow_eth(&flow, i);
        flow.dl_src.ea[5] = i >> 16;
        zeros += !rss_of(&flow, MAP_ETH);
    }
    CHECK(!zeros, "%d keys hashed to 0", zeros);

    /* A key with no words at all still hashes to non-zero. */
    memset(&flow, 0, sizeof flow);
    CHECK(rss_of(&flow, 0) != 0, "empty key hashed to 0");
}

/* Inverse of odd 'x' modulo 2**32, by Newton's iteration. */
static uint32_t
inverse32(uint32_t x)
{
    uint32_t inv = x;
    int i;

    for (i = 0; i < 5; i++) {
        inv *= 2 - x * inv;
    }
    return inv;
}

static uint32_t
rotr32(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* The data mixing step of hash_add(). */
static uint32_t
mix32(uint32_t data)
{
    data *= 0xcc9e2d51;
    data = (data << 15) | (data >> 17);
    return data * 0x1b873593;
}

/* Returns the state 's' ^ mix32(data) that hash_add() turns into
 * 'result'. */
static uint32_t
unstep32(uint32_t result)
{
    return rotr32((result - 0xe6546b64) * inverse32(5), 13);
}

/* Returns the 'data' for which hash_add('hash', 'data') == 'result'. */
static uint32_t
hash_add_preimage(uint32_t hash, uint32_t result)
{
    uint32_t mixed = unstep32(result) ^ hash;

    return rotr32(mixed * inverse32(0x1b873593), 15) * inverse32(0xcc9e2d51);
}

/* Builds a non-IP frame whose hash before the zero check is 0, by running
 * the hash backwards through the 32 bits of dl_src that word 1 holds, and
 * checks that hash_rss() returns 1 for it.  This follows the hash's
 * layout for non-IP frames (words 0 and 1 without in_port, then 14 bytes
 * counted), so it needs updating with it. */
static void
test_rss_zero_maps_to_one(void)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    struct flow flow;
    uint64_t *words = (uint64_t *) &flow;
    uint32_t h0, hi, mid, lo;

    flow_eth(&flow, 0x88b5);
    flow.in_port = 0;
    h0 = hash_add64(0, words[0]);
    hi = words[1] >> 32;        /* dl_type and in_port. */

    /* hash_finish(x, 14) is 0 only for x == 14. */
    mid = unstep32(14) ^ mix32(hi);
    lo = hash_add_preimage(h0, mid);
    words[1] = (words[1] & UINT64_C(0xffffffff00000000)) | lo;

    CHECK(hash_finish(hash_add64(h0, words[1]), 14) == 0,
          "preimage arithmetic");
    CHECK(rss_of(&flow, MAP_ETH) == 1, "hash 0 not mapped to 1: %#"PRIx32,
          rss_of(&flow, MAP_ETH));
    flow.in_port = 5;
    CHECK(rss_of(&flow, MAP_ETH) == 1, "in_port counted in the zero case");
#endif
}

static void
test_rss_fields(void)
{
    struct flow base, flow;
    uint32_t h;
    int i;

    flow_tcp4(&base, 0x0a000001, 0x0a000002, 1000, 80);
    h = rss_of(&base, MAP_IPV4);

    flow = base;
    flow.tp_src = htons(1001);
    CHECK(rss_of(&flow, MAP_IPV4) != h, "tp_src ignored");
    flow = base;
    flow.tp_dst = htons(81);
    CHECK(rss_of(&flow, MAP_IPV4) != h, "tp_dst ignored");
    flow = base;
    flow.nw_src = htonl(0x0a000003);
    CHECK(rss_of(&flow, MAP_IPV4) != h, "nw_src ignored");
    flow = base;
    flow.nw_dst = htonl(0x0b000002);
    CHECK(rss_of(&flow, MAP_IPV4) != h, "nw_dst ignored");
    flow = base;
    flow.nw_proto = IP_PROTO_UDP;
    CHECK(rss_of(&flow, MAP_IPV4) != h, "nw_proto ignored");

    /* Not part of the 5-tuple. */
    flow = base;
    flow.nw_ttl = 3;
    flow.nw_tos = 0x10;
    flow.tcp_flags = htons(TCP_SYN);
    flow.dl_src.ea[0] = 0x0a;
    CHECK(rss_of(&flow, MAP_IPV4) == h, "non-5-tuple field changed hash");

    /* Every byte of an IPv6 address counts. */
    flow_udp6(&base, 1, 5353);
    h = rss_of(&base, MAP_IPV6);
    for (i = 0; i < 16; i++) {
        flow = base;
        flow.ipv6_src.s6_addr[i] ^= 0x40;
        CHECK(rss_of(&flow, MAP_IPV6) != h, "ipv6_src byte %d ignored", i);
        flow = base;
        flow.ipv6_dst.s6_addr[i] ^= 0x01;
        CHECK(rss_of(&flow, MAP_IPV6) != h, "ipv6_dst byte %d ignored", i);
    }
    flow = base;
    flow.tp_src = htons(5354);
    CHECK(rss_of(&flow, MAP_IPV6) != h, "ipv6 tp_src ignored");
    flow = base;
    flow.ipv6_label = htonl(12345);
    CHECK(rss_of(&flow, MAP_IPV6) == h, "ipv6 label changed hash");

    /* Without IP: MAC addresses and ethertype. */
    flow_eth(&base, ETH_TYPE_ARP);
    base.nw_src = htonl(1);
    h = rss_of(&base, MAP_ETH);
    for (i = 0; i < ETH_ADDR_LEN; i++) {
        flow = base;
        flow.dl_src.ea[i] ^= 0x80;
        CHECK(rss_of(&flow, MAP_ETH) != h, "dl_src byte %d ignored", i);
        flow = base;
        flow.dl_dst.ea[i] ^= 0x01;
        CHECK(rss_of(&flow, MAP_ETH) != h, "dl_dst byte %d ignored", i);
    }
    flow = base;
    flow.dl_type = htons(0x88cc);
    CHECK(rss_of(&flow, MAP_ETH) != h, "dl_type ignored without IP");

    /* IPv4 whose header did not parse hashes like a non-IP frame. */
    flow_eth(&flow, ETH_TYPE_IP);
    flow_eth(&base, ETH_TYPE_IP);
    flow.nw_src = htonl(7);
    CHECK(rss_of(&flow, MAP_ETH) == rss_of(&base, MAP_ETH),
          "absent word 3 was hashed");
}

static void
test_rss_in_port(void)
{
    struct flow flow;
    uint32_t h4, h6, he;
    int port;

    flow_tcp4(&flow, 0xc0a80001, 0xc0a80002, 4000, 443);
    h4 = rss_of(&flow, MAP_IPV4);
    flow_udp6(&flow, 7, 9);
    h6 = rss_of(&flow, MAP_IPV6);
    flow_eth(&flow, 0x88cc);
    he = rss_of(&flow, MAP_ETH);
    for (port = 0; port < 65536; port += 257) {
        flow_tcp4(&flow, 0xc0a80001, 0xc0a80002, 4000, 443);
        flow.in_port = port;
        CHECK(rss_of(&flow, MAP_IPV4) == h4, "in_port %d changed ipv4", port);
        flow_udp6(&flow, 7, 9);
        flow.in_port = port;
        CHECK(rss_of(&flow, MAP_IPV6) == h6, "in_port %d changed ipv6", port);
        flow_eth(&flow, 0x88cc);
        flow.in_port = port;
        CHECK(rss_of(&flow, MAP_ETH) == he, "in_port %d changed l2", port);
    }
}

static void
test_rss_fragments(void)
{
    struct flow first, later;

    /* All fragments of one datagram hash alike, ports or not. */
    flow_tcp4(&first, 0x0a000001, 0x0a000002, 1111, 2222);
    first.nw_frag = FLOW_NW_FRAG_ANY;
    later = first;
    later.nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
    later.tp_src = later.tp_dst = later.tcp_flags = 0;
    CHECK(rss_of(&first, MAP_IPV4) == rss_of(&later, MAP_IPV4 & ~W(tp_src)),
          "fragments of a datagram hash apart");
}

static void
test_rss_spread(void)
{
    /* Bond output takes the low 8 bits: 25,600 flows differing only in
     * the source port must spread over all 256 buckets. */
    static int buckets[256];
    struct flow flow;
    int i, lo = 1 << 30, hi = 0;

    for (i = 0; i < 25600; i++) {
        flow_tcp4(&flow, 0x0a000001, 0x0a000002, 10000 + i, 80);
        buckets[rss_of(&flow, MAP_IPV4) & 255]++;
    }
    for (i = 0; i < 256; i++) {
        lo = MIN(lo, buckets[i]);
        hi = MAX(hi, buckets[i]);
    }
    CHECK(lo >= 50 && hi <= 150, "bucket spread %d..%d around 100", lo, hi);
}

static uint32_t
masked_of(const struct flow *flow, uint64_t map, const struct flow *mask,
          uint64_t mask_map)
{
    struct miniflow key, m;

    miniflow_from_flow(&key, flow, map);
    miniflow_from_flow(&m, mask, mask_map);
    return hash_masked_miniflow(&key, &m);
}

static void
test_masked(void)
{
    struct flow flow, other, mask, stored;
    uint64_t mask_map = W(in_port) | W(nw_src) | W(tp_src);
    uint32_t h, want;
    const uint64_t *fw = (const uint64_t *) &flow;
    const uint64_t *mw = (const uint64_t *) &mask;
    int i;

    flow_tcp4(&flow, 0x0a010203, 0x0a040506, 1234, 80);
    memset(&mask, 0, sizeof mask);
    mask.in_port = 0xffff;
    mask.dl_type = 0xffff;
    mask.nw_src = htonl(0xffffff00);
    mask.tp_dst = 0xffff;
    h = masked_of(&flow, MAP_IPV4, &mask, mask_map);

    /* The contract, spelled out. */
    want = 0;
    want = hash_add64(want, fw[FLOW_WORD(in_port)] & mw[FLOW_WORD(in_port)]);
    want = hash_add64(want, fw[FLOW_WORD(nw_src)] & mw[FLOW_WORD(nw_src)]);
    want = hash_add64(want, fw[FLOW_WORD(tp_src)] & mw[FLOW_WORD(tp_src)]);
    want = hash_finish(want, 24);
    CHECK(h == want, "masked hash %#"PRIx32", want %#"PRIx32, h, want);

    /* Changes outside the mask: other bits of masked words, unmasked
     * words, and words the key has but the mask does not name. */
    other = flow;
    other.nw_src = htonl(0x0a0102ff);
    other.nw_dst = htonl(0x01020304);
    other.tp_src = htons(9999);
    other.tcp_flags = htons(TCP_FIN);
    other.dl_src.ea[3] = 0x77;
    other.nw_ttl = 1;
    CHECK(masked_of(&other, MAP_IPV4, &mask, mask_map) == h,
          "bits outside the mask changed the hash");
    CHECK(masked_of(&flow, MAP_IPV4 | W(vlans_tci), &mask, mask_map) == h,
          "a word outside the mask map changed the hash");

    /* The stored form of a rule (masked values, mask's map) hashes like
     * every packet it matches. */
    for (i = 0; i < (int) FLOW_U64S; i++) {
        ((uint64_t *) &stored)[i] = fw[i] & mw[i];
    }
    CHECK(masked_of(&stored, mask_map, &mask, mask_map) == h,
          "stored rule key hashes differently");

    /* An absent key word reads as zero. */
    other = flow;
    other.tp_src = other.tp_dst = other.tcp_flags = 0;
    CHECK(masked_of(&other, MAP_IPV4 & ~W(tp_src), &mask, mask_map)
          == masked_of(&other, MAP_IPV4, &mask, mask_map),
          "absent word differs from a zero word");

    /* Changes inside the mask. */
    other = flow;
    other.nw_src = htonl(0x0a010303);
    CHECK(masked_of(&other, MAP_IPV4, &mask, mask_map) != h,
          "masked nw_src bit ignored");
    other = flow;
    other.tp_dst = htons(81);
    CHECK(masked_of(&other, MAP_IPV4, &mask, mask_map) != h,
          "masked tp_dst ignored");
    other = flow;
    other.in_port = 2;
    CHECK(masked_of(&other, MAP_IPV4, &mask, mask_map) != h,
          "masked in_port ignored");

    /* The mask's map counts even where the mask bits are zero: the byte
     * count differs. */
    CHECK(masked_of(&flow, MAP_IPV4, &mask, mask_map | W(nd_target)) != h,
          "extra mask word ignored");
}

int
main(void)
{
    test_rss_deterministic_nonzero();
    test_rss_zero_maps_to_one();
    test_rss_fields();
    test_rss_in_port();
    test_rss_fragments();
    test_rss_spread();
    test_masked();

    return check_finish("test-hash");
}
