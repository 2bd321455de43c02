/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for miniflow extraction, conversion and formatting.
 *
 * Each case builds a frame with the helpers below, which record as they go
 * the key the frame must give: the expected struct flow, the expected map,
 * and for every word the shortest prefix of the frame that yields it.  The
 * checks then parse the whole frame and every prefix of it, each copied
 * into a buffer of exactly its size so that AddressSanitizer catches any
 * read past the end.  A random-bytes loop with a fixed seed checks that
 * parsing is deterministic and keeps the key's invariants.
 */
#include <autoconf.h>
#include "packet/flow-format.h"
#include "packet/miniflow.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "packet/dp-packet.h"
#include "packet/packets.h"
#include "base/util.h"

#define FRAME_MAX 512
#define NEVER ((size_t) -1)
#define W(FIELD) (UINT64_C(1) << FLOW_WORD(FIELD))
/* A frame under construction and the key it must give. */
struct frame {
    uint8_t data[FRAME_MAX];
    size_t size;
    size_t l3;                  /* Offset of the IP or ARP header. */
    size_t l4;                  /* Offset of the transport header. */
    bool ipv6;
    size_t nxt_off;             /* IPv6: offset of the last next-header
                                 * byte, which names what follows. */
    struct flow expect;         /* Key of the whole frame. */
    uint64_t map;               /* Map of the whole frame. */
    size_t needs[FLOW_U64S];    /* Shortest prefix yielding each word. */
};

static const struct eth_addr mac_dst = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct eth_addr mac_src = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct eth_addr mac_a = { { 0x52, 0x54, 0, 0xaa, 0xbb, 0xcc } };
static const struct eth_addr mac_b = { { 0x52, 0x54, 0, 0x11, 0x22, 0x33 } };

/* Byte writers.  Multi-byte values go out in network order. */

static void
put(struct frame *f, const void *p, size_t n)
{
    if (f->size + n > FRAME_MAX) {
        fprintf(stderr, "frame too big\n");
        exit(1);
    }
    memcpy(f->data + f->size, p, n);
    f->size += n;
}

static void
put8(struct frame *f, uint8_t v)
{
    put(f, &v, 1);
}

static void
put16(struct frame *f, uint16_t v)
{
    ovs_be16 x = htons(v);

    put(f, &x, 2);
}

static void
put32(struct frame *f, uint32_t v)
{
    ovs_be32 x = htonl(v);

    put(f, &x, 4);
}

static void
put_fill(struct frame *f, uint8_t byte, size_t n)
{
    while (n--) {
        put8(f, byte);
    }
}

static void
set16(struct frame *f, size_t off, uint16_t v)
{
    ovs_be16 x = htons(v);

    memcpy(f->data + off, &x, 2);
}

static void
expect_word(struct frame *f, int idx, size_t need)
{
    f->map |= UINT64_C(1) << idx;
    f->needs[idx] = need;
}

/* Removes 'words' from the expected key, as for headers the parser must
 * reject or never reach. */
static void
drop_words(struct frame *f, uint64_t words)
{
    uint64_t *w = (uint64_t *) &f->expect;
    int idx;

    ULLONG_FOR_EACH_1 (idx, words) {
        w[idx] = 0;
        f->needs[idx] = NEVER;
    }
    f->map &= ~words;
}

/* Header builders.  Each appends one header and records what it adds to
 * the expected key. */

/* Ethernet with 'n_tags' VLAN tags, then ethertype 'type'. */
static void
build_eth_tagged(struct frame *f, uint16_t in_port, int n_tags,
                 const uint16_t *tpids, const uint16_t *tcis, uint16_t type)
{
    int i;

    memset(f, 0, sizeof *f);
    for (i = 0; i < (int) FLOW_U64S; i++) {
        f->needs[i] = NEVER;
    }
    put(f, &mac_dst, 6);
    put(f, &mac_src, 6);
    f->expect.dl_dst = mac_dst;
    f->expect.dl_src = mac_src;
    f->expect.in_port = in_port;
    expect_word(f, FLOW_WORD(dl_dst), ETH_HEADER_LEN);
    expect_word(f, FLOW_WORD(in_port), 0);

    for (i = 0; i < n_tags; i++) {
        put16(f, tpids[i]);
        put16(f, tcis[i]);
        if (i < 2) {
            f->expect.vlans_tci[i] = htons(tcis[i] | VLAN_CFI);
            f->expect.vlans_tpid[i] = htons(tpids[i]);
        }
    }
    if (n_tags) {
        expect_word(f, FLOW_WORD(vlans_tci), ETH_HEADER_LEN + 4);
    }
    put16(f, type);
    f->expect.dl_type = htons(n_tags > 2 ? tpids[2]
                              : type < ETH_TYPE_MIN ? FLOW_DL_TYPE_NONE
                              : type);
    f->l3 = f->size;
}

static void
build_eth(struct frame *f, uint16_t type)
{
    build_eth_tagged(f, 1, 0, NULL, NULL, type);
}

/* IPv4 header with 'opt_len' bytes of options; protocol and total length
 * come later (set_l4_proto(), ip_end()).  10.0.0.1 -> 10.0.0.2. */
static void
build_ipv4(struct frame *f, uint8_t tos, uint8_t ttl, uint16_t frag_off,
           uint8_t nw_frag, size_t opt_len)
{
    size_t hdr = IP_HEADER_LEN + opt_len;

    f->l3 = f->size;
    put8(f, 0x40 | hdr / 4);
    put8(f, tos);
    put16(f, 0);
    put16(f, 0x1234);
    put16(f, frag_off);
    put8(f, ttl);
    put8(f, 0);
    put16(f, 0);
    put32(f, 0x0a000001);
    put32(f, 0x0a000002);
    put_fill(f, 1, opt_len);    /* NOP options. */
    f->l4 = f->size;

    f->expect.nw_src = htonl(0x0a000001);
    f->expect.nw_dst = htonl(0x0a000002);
    f->expect.nw_tos = tos;
    f->expect.nw_ttl = ttl;
    f->expect.nw_frag = nw_frag;
    expect_word(f, FLOW_WORD(nw_src), f->l4);
    expect_word(f, FLOW_WORD(nw_proto), f->l4);
}

static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [14] = 0xab,
                                   [15] = 2 };

/* IPv6 header, 2001:db8::1 -> 2001:db8::ab02, next header "none" until a
 * later builder sets it. */
static void
build_ipv6(struct frame *f, uint8_t tclass, uint32_t label, uint8_t hlim)
{
    f->l3 = f->size;
    f->ipv6 = true;
    put32(f, (6u << 28) | ((uint32_t) tclass << 20) | label);
    put16(f, 0);
    f->nxt_off = f->size;
    put8(f, IPV6_NEXT_NONE);
    put8(f, hlim);
    put(f, ip6_a, 16);
    put(f, ip6_b, 16);
    f->l4 = f->size;

    memcpy(&f->expect.ipv6_src, ip6_a, 16);
    memcpy(&f->expect.ipv6_dst, ip6_b, 16);
    f->expect.ipv6_label = htonl(label);
    f->expect.nw_tos = tclass;
    f->expect.nw_ttl = hlim;
    f->expect.nw_proto = IPV6_NEXT_NONE;
    expect_word(f, FLOW_WORD(ipv6_src), f->l4);
    expect_word(f, FLOW_WORD(ipv6_src) + 1, f->l4);
    expect_word(f, FLOW_WORD(ipv6_src) + 2, f->l4);
    expect_word(f, FLOW_WORD(ipv6_src) + 3, f->l4);
    expect_word(f, FLOW_WORD(nw_proto), f->l4);
}

/* Appends an IPv6 extension header of 'type' and 'size' bytes. */
static void
build_ipv6_ext(struct frame *f, uint8_t type, size_t size)
{
    size_t off = f->size;

    f->data[f->nxt_off] = type;
    put8(f, IPV6_NEXT_NONE);
    put8(f, type == IPV6_NEXT_AH ? size / 4 - 2 : size / 8 - 1);
    put_fill(f, 0, size - 2);
    f->nxt_off = off;
    f->l4 = f->size;
    f->needs[FLOW_WORD(nw_proto)] = f->size;
}

/* A Fragment header with 'offset' (in 8-byte units), the M bit 'more' and
 * the two reserved bits 'res'.  One with all three zero is atomic, not a
 * fragment.  A later fragment's nw_proto is the Fragment header's own
 * number, whatever follows (set_l4_proto() must not change it). */
static void
build_ipv6_frag_res(struct frame *f, uint16_t offset, bool more, int res)
{
    size_t off = f->size;
    uint16_t offlg = (offset << 3) | (res << 1) | more;

    f->data[f->nxt_off] = IPV6_NEXT_FRAGMENT;
    put8(f, IPV6_NEXT_NONE);
    put8(f, 0);
    put16(f, offlg);
    put32(f, 0xdeadbeef);
    f->nxt_off = off;
    f->l4 = f->size;
    f->needs[FLOW_WORD(nw_proto)] = f->size;
    f->expect.nw_frag = (!offlg ? 0
                         : FLOW_NW_FRAG_ANY
                           | (offset ? FLOW_NW_FRAG_LATER : 0));
}

static void
build_ipv6_frag(struct frame *f, uint16_t offset, bool more)
{
    build_ipv6_frag_res(f, offset, more, 0);
}

/* Names the transport protocol in the IP header (or the last IPv6
 * extension header) and in the expected key. */
static void
set_l4_proto(struct frame *f, uint8_t proto)
{
    f->l4 = f->size;
    if (f->ipv6) {
        f->data[f->nxt_off] = proto;
    } else {
        f->data[f->l3 + offsetof(struct ip_header, ip_proto)] = proto;
    }
    f->expect.nw_proto = proto;
}

/* Sets the IP length field so that the datagram ends at offset 'end'.
 * A prefix cut anywhere inside the datagram has no L3 or L4 words at all,
 * as in Open vSwitch, so every such word needs the prefix up to 'end'. */
static void
ip_set_end(struct frame *f, size_t end)
{
    int idx;

    if (f->ipv6) {
        set16(f, f->l3 + 4, end - f->l3 - IPV6_HEADER_LEN);
    } else {
        set16(f, f->l3 + 2, end - f->l3);
    }
    for (idx = FLOW_WORD(nw_src); idx < (int) FLOW_U64S; idx++) {
        if (f->needs[idx] != NEVER && f->needs[idx] < end) {
            f->needs[idx] = end;
        }
    }
}

/* Sets the IP length field to cover everything appended so far. */
static void
ip_end(struct frame *f)
{
    ip_set_end(f, f->size);
}

static void
expect_ports(struct frame *f, uint16_t src, uint16_t dst, size_t hdr_len)
{
    f->expect.tp_src = htons(src);
    f->expect.tp_dst = htons(dst);
    expect_word(f, FLOW_WORD(tp_src), f->l4 + hdr_len);
}

static void
build_tcp(struct frame *f, uint16_t src, uint16_t dst, uint16_t flags,
          uint8_t doff)
{
    set_l4_proto(f, IP_PROTO_TCP);
    put16(f, src);
    put16(f, dst);
    put32(f, 1000);
    put32(f, 2000);
    put16(f, ((uint16_t) doff << 12) | flags);
    put16(f, 65535);
    put16(f, 0);
    put16(f, 0);
    expect_ports(f, src, dst, TCP_HEADER_LEN);
    f->expect.tcp_flags = htons(flags & TCP_FLAGS_MASK);
}

static void
build_udp(struct frame *f, uint16_t src, uint16_t dst, size_t payload)
{
    set_l4_proto(f, IP_PROTO_UDP);
    put16(f, src);
    put16(f, dst);
    put16(f, UDP_HEADER_LEN + payload);
    put16(f, 0);
    put_fill(f, 0x5a, payload);
    expect_ports(f, src, dst, UDP_HEADER_LEN);
}

static void
build_sctp(struct frame *f, uint16_t src, uint16_t dst)
{
    set_l4_proto(f, IP_PROTO_SCTP);
    put16(f, src);
    put16(f, dst);
    put32(f, 0x01020304);
    put32(f, 0);
    expect_ports(f, src, dst, SCTP_HEADER_LEN);
}

static void
build_icmp(struct frame *f, uint8_t proto, uint8_t type, uint8_t code)
{
    set_l4_proto(f, proto);
    put8(f, type);
    put8(f, code);
    put16(f, 0);
    put32(f, 0x00010002);
    expect_ports(f, type, code, ICMP_HEADER_LEN);
}

static const uint8_t nd_tgt[16] = { 0xfe, 0x80, [14] = 0x12, [15] = 0x34 };

/* ICMPv6 NS or NA for 'nd_tgt'; options follow with build_nd_opt(). */
static void
build_nd(struct frame *f, uint8_t type, uint8_t code)
{
    build_icmp(f, IP_PROTO_ICMPV6, type, code);
    put(f, nd_tgt, 16);
    if (code == 0) {
        memcpy(&f->expect.nd_target, nd_tgt, 16);
        expect_word(f, FLOW_WORD(nd_target), f->l4 + ND_MSG_LEN);
        expect_word(f, FLOW_WORD(nd_target) + 1, f->l4 + ND_MSG_LEN);
        expect_word(f, FLOW_WORD(arp_sha), f->l4 + ND_MSG_LEN);
        expect_word(f, FLOW_WORD(arp_sha) + 1, f->l4 + ND_MSG_LEN);
    }
}

/* Appends an ND option of 'type' with length field 'len' (8-byte units)
 * holding 'mac' first and zeros after. */
static void
build_nd_opt(struct frame *f, uint8_t type, uint8_t len, struct eth_addr mac)
{
    size_t size = len ? len * 8 : 8;

    put8(f, type);
    put8(f, len);
    put(f, &mac, 6);
    put_fill(f, 0, size - 8);
}

static void
build_arp(struct frame *f, uint16_t op, struct eth_addr sha, uint32_t spa,
          struct eth_addr tha, uint32_t tpa)
{
    f->l3 = f->size;
    put16(f, ARP_HTYPE_ETH);
    put16(f, ETH_TYPE_IP);
    put8(f, 6);
    put8(f, 4);
    put16(f, op);
    put(f, &sha, 6);
    put32(f, spa);
    put(f, &tha, 6);
    put32(f, tpa);

    f->expect.nw_src = htonl(spa);
    f->expect.nw_dst = htonl(tpa);
    f->expect.nw_proto = op <= 0xff ? op : 0;
    f->expect.arp_sha = sha;
    f->expect.arp_tha = tha;
    expect_word(f, FLOW_WORD(nw_src), f->size);
    expect_word(f, FLOW_WORD(nw_proto), f->size);
    expect_word(f, FLOW_WORD(arp_sha), f->size);
    expect_word(f, FLOW_WORD(arp_sha) + 1, f->size);
}

/* The cases. */

static void
case_tcp4(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, TCP_SYN, 5);
    ip_end(f);
}

static void
case_tcp4_flags(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0xb9, 3, IP_DONT_FRAGMENT, 0, 0);
    build_tcp(f, 40000, 443, 0xfff, 8);
    put_fill(f, 0, 12);         /* TCP options. */
    put_fill(f, 0x77, 100);
    ip_end(f);
}

static void
case_udp4(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0x10, 128, 0, 0, 0);
    build_udp(f, 53, 33333, 40);
    ip_end(f);
}

static void
case_udp4_padded(struct frame *f)
{
    /* 60-byte minimum frame: the padding must not count as payload. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 7, 9, 2);
    ip_end(f);
    put_fill(f, 0xee, 60 - f->size);
}

static void
case_icmp4(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_icmp(f, IP_PROTO_ICMP, 8, 0);
    put_fill(f, 0xab, 56);
    ip_end(f);
}

static void
case_ipv4_options(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 20);
    build_tcp(f, 1234, 80, TCP_ACK | TCP_PSH, 5);
    ip_end(f);
}

static void
case_ipv4_first_frag(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, IP_MORE_FRAGMENTS, FLOW_NW_FRAG_ANY, 0);
    build_udp(f, 5000, 6000, 100);
    ip_end(f);
}

static void
case_ipv4_later_frag(struct frame *f)
{
    /* The payload looks like a UDP header, but it must not be parsed. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 185, FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER, 0);
    set_l4_proto(f, IP_PROTO_UDP);
    put_fill(f, 0x11, 64);
    ip_end(f);
}

static void
case_ipv4_last_frag(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 100, FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER, 0);
    set_l4_proto(f, IP_PROTO_TCP);
    put_fill(f, 0x11, 30);
    ip_end(f);
}

static void
case_vlan(struct frame *f)
{
    static const uint16_t tpids[] = { ETH_TYPE_VLAN_8021Q };
    static const uint16_t tcis[] = { (5 << VLAN_PCP_SHIFT) | 100 };

    build_eth_tagged(f, 3, 1, tpids, tcis, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 10, 20, TCP_FIN | TCP_ACK, 5);
    ip_end(f);
}

static void
case_qinq(struct frame *f)
{
    static const uint16_t tpids[] = { ETH_TYPE_VLAN_8021AD,
                                      ETH_TYPE_VLAN_8021Q };
    static const uint16_t tcis[] = { 0x0fff, 0xe001 };

    build_eth_tagged(f, 4, 2, tpids, tcis, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 67, 68, 10);
    ip_end(f);
}

static void
case_vlan_dei(struct frame *f)
{
    /* A DEI bit on the wire is the same bit as the "present" mark. */
    static const uint16_t tpids[] = { ETH_TYPE_VLAN_8021Q };
    static const uint16_t tcis[] = { VLAN_CFI | 7 };

    build_eth_tagged(f, 1, 1, tpids, tcis, ETH_TYPE_ARP);
    build_arp(f, ARP_OP_REQUEST, mac_a, 0xc0a80001, mac_b, 0xc0a80002);
}

static void
case_vlan_3_tags(struct frame *f)
{
    static const uint16_t tpids[] = { ETH_TYPE_VLAN_8021AD,
                                      ETH_TYPE_VLAN_8021Q,
                                      ETH_TYPE_VLAN_8021Q };
    static const uint16_t tcis[] = { 1, 2, 3 };

    build_eth_tagged(f, 1, 3, tpids, tcis, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, 0, 5);
    ip_end(f);
    drop_words(f, W(nw_src) | W(nw_proto) | W(tp_src));
}

static void
case_arp_request(struct frame *f)
{
    static const struct eth_addr zero;

    build_eth(f, ETH_TYPE_ARP);
    build_arp(f, ARP_OP_REQUEST, mac_a, 0xc0a80001, zero, 0xc0a80002);
    put_fill(f, 0, 18);         /* Padding to 60 bytes. */
}

static void
case_arp_reply(struct frame *f)
{
    build_eth(f, ETH_TYPE_ARP);
    build_arp(f, ARP_OP_REPLY, mac_b, 0xc0a80002, mac_a, 0xc0a80001);
}

static void
case_arp_big_opcode(struct frame *f)
{
    build_eth(f, ETH_TYPE_ARP);
    build_arp(f, 0x0101, mac_b, 0xc0a80002, mac_a, 0xc0a80001);
}

static void
case_arp_not_ipv4(struct frame *f)
{
    build_eth(f, ETH_TYPE_ARP);
    build_arp(f, ARP_OP_REQUEST, mac_a, 1, mac_b, 2);
    f->data[f->l3 + offsetof(struct arp_eth_header, ar_hln)] = 8;
    drop_words(f, W(nw_src) | W(nw_proto) | W(arp_sha) | W(arp_sha) << 1);
}

static void
case_tcp6(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0x2e, 0xabcde, 64);
    build_tcp(f, 5555, 22, TCP_SYN | TCP_ECE | TCP_CWR, 5);
    put_fill(f, 0, 10);
    ip_end(f);
}

static void
case_udp6(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_udp(f, 546, 547, 30);
    ip_end(f);
}

static void
case_ipv6_ext_first_frag(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 1, 64);
    build_ipv6_ext(f, IPV6_NEXT_HOPOPTS, 8);
    build_ipv6_ext(f, IPV6_NEXT_DSTOPTS, 24);
    build_ipv6_ext(f, IPV6_NEXT_ROUTING, 16);
    build_ipv6_frag(f, 0, true);
    build_tcp(f, 80, 8080, TCP_RST, 5);
    ip_end(f);
}

static void
case_ipv6_later_frag(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_ext(f, IPV6_NEXT_HOPOPTS, 8);
    build_ipv6_frag(f, 100, false);
    set_l4_proto(f, IP_PROTO_UDP);
    f->expect.nw_proto = IPV6_NEXT_FRAGMENT;
    put_fill(f, 0x33, 40);
    ip_end(f);
}

static void
case_ipv6_ah(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_ext(f, IPV6_NEXT_AH, 24);
    build_udp(f, 500, 4500, 8);
    ip_end(f);
}

static void
case_ipv6_esp(struct frame *f)
{
    /* ESP is not walked: nw_proto is 50 and no ports. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    set_l4_proto(f, IPV6_NEXT_ESP);
    put_fill(f, 0x99, 64);
    ip_end(f);
}

static void
case_ns_sll(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_SOLICIT, 0);
    build_nd_opt(f, 14, 1, mac_b);  /* Nonce: skipped. */
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    build_nd_opt(f, ND_OPT_TARGET_LINKADDR, 2, mac_b);  /* Not 8 bytes. */
    f->expect.arp_sha = mac_a;
    ip_end(f);
}

static void
case_ns_dup_sll(struct frame *f)
{
    /* A second source address option makes the message invalid: target
     * and addresses read as zero. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_SOLICIT, 0);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_b);
    ip_end(f);
    drop_words(f, W(nd_target) | W(nd_target) << 1 | W(arp_sha)
               | W(arp_sha) << 1);
}

static void
case_na_dup_tll(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_ADVERT, 0);
    build_nd_opt(f, ND_OPT_TARGET_LINKADDR, 1, mac_b);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    build_nd_opt(f, ND_OPT_TARGET_LINKADDR, 1, mac_a);
    ip_end(f);
    drop_words(f, W(nd_target) | W(nd_target) << 1 | W(arp_sha)
               | W(arp_sha) << 1);
}

static void
case_ns_zero_sll_then_sll(struct frame *f)
{
    /* An all-zero address does not count as the first one. */
    static const struct eth_addr zero;

    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_SOLICIT, 0);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, zero);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_b);
    f->expect.arp_sha = mac_b;
    ip_end(f);
}

static void
case_ns_target_cut(struct frame *f)
{
    /* The message ends inside the target: type and code only. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_icmp(f, IP_PROTO_ICMPV6, ICMP6_NEIGHBOR_SOLICIT, 0);
    put_fill(f, 0xfe, 15);
    ip_end(f);
}

static void
case_na_tll(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_ADVERT, 0);
    build_nd_opt(f, ND_OPT_TARGET_LINKADDR, 1, mac_b);
    f->expect.arp_tha = mac_b;
    ip_end(f);
}

static void
case_ns_zero_opt_len(struct frame *f)
{
    /* A zero-length option ends the list; what came before stays. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_SOLICIT, 0);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    build_nd_opt(f, ND_OPT_TARGET_LINKADDR, 0, mac_b);
    f->expect.arp_sha = mac_a;
    ip_end(f);
}

static void
case_ns_opt_past_end(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_SOLICIT, 0);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    put8(f, ND_OPT_TARGET_LINKADDR);
    put8(f, 4);                 /* Claims 32 bytes... */
    put(f, &mac_b, 6);          /* ...has 8. */
    f->expect.arp_sha = mac_a;
    ip_end(f);
}

static void
case_ns_code_nonzero(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 255);
    build_nd(f, ICMP6_NEIGHBOR_SOLICIT, 1);
    build_nd_opt(f, ND_OPT_SOURCE_LINKADDR, 1, mac_a);
    ip_end(f);
}

static void
case_icmp6_echo(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_icmp(f, IP_PROTO_ICMPV6, 128, 0);
    put_fill(f, 0, 32);
    ip_end(f);
}

static void
case_sctp4(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_sctp(f, 2905, 2906);
    put_fill(f, 0, 16);
    ip_end(f);
}

static void
case_other_proto(struct frame *f)
{
    /* GRE: IP words only. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    set_l4_proto(f, 47);
    put_fill(f, 0, 24);
    ip_end(f);
}

static void
case_8023(struct frame *f)
{
    build_eth(f, 46);           /* A length, not an ethertype. */
    put8(f, 0x42);              /* LLC for STP. */
    put8(f, 0x42);
    put8(f, 0x03);
    put_fill(f, 0, 43);
}

static void
case_unknown_ethertype(struct frame *f)
{
    build_eth(f, 0x88cc);       /* LLDP. */
    put_fill(f, 0x02, 46);
}

static void
case_empty_ipv4(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
}

static void
case_ipv4_version_6(struct frame *f)
{
    /* The version nibble is not checked: parsed as IPv4. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, 0, 5);
    ip_end(f);
    f->data[f->l3] = 0x65;
}

static void
case_ipv4_tot_len_past_end(struct frame *f)
{
    /* The total length claims one byte more than the frame has: no L3
     * words at all, not even the addresses. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 1, 2, 4);
    ip_end(f);
    set16(f, f->l3 + 2, f->size - f->l3 + 1);
    drop_words(f, W(nw_src) | W(nw_proto) | W(tp_src));
}

static void
case_ipv6_plen_past_end(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_tcp(f, 1, 2, TCP_SYN, 5);
    ip_end(f);
    set16(f, f->l3 + 4, f->size - f->l3 - IPV6_HEADER_LEN + 1);
    drop_words(f, W(ipv6_src) | W(ipv6_src) << 1 | W(ipv6_src) << 2
               | W(ipv6_src) << 3 | W(nw_proto) | W(tp_src));
}

static void
case_igmp(struct frame *f)
{
    /* IGMP's type and code land in tp_src and tp_dst. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 1, 0, 0, 4);
    build_icmp(f, IP_PROTO_IGMP, 0x16, 0);
    ip_end(f);
}

static void
case_rarp(struct frame *f)
{
    build_eth(f, ETH_TYPE_RARP);
    build_arp(f, 3, mac_a, 0, mac_a, 0);
}

static void
case_llc_snap_ipv4(struct frame *f)
{
    /* 802.3 with LLC/SNAP, OUI 00-00-00: the SNAP type is dl_type. */
    static const uint8_t snap[] = { 0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0 };

    build_eth(f, 64);
    put(f, snap, sizeof snap);
    f->expect.dl_type = htons(ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 1, 2, 4);
    ip_end(f);
}

static void
case_llc_snap_other_oui(struct frame *f)
{
    /* Another OUI (Cisco's) names no ethertype. */
    static const uint8_t snap[] = { 0xaa, 0xaa, 0x03, 0, 0, 0x0c, 0x20, 0 };

    build_eth(f, 64);
    put(f, snap, sizeof snap);
    put_fill(f, 0, 30);
}

static void
case_ipv4_ihl_small(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, 0, 5);
    ip_end(f);
    f->data[f->l3] = 0x44;
    drop_words(f, W(nw_src) | W(nw_proto) | W(tp_src));
}

static void
case_ipv4_ihl_past_end(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 1, 2, 4);
    ip_end(f);
    f->data[f->l3] = 0x4f;      /* 60 bytes; the frame has 32 after L3. */
    drop_words(f, W(nw_src) | W(nw_proto) | W(tp_src));
}

static void
case_ipv4_tot_len_small(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, 0, 5);
    set16(f, f->l3 + 2, 19);
    drop_words(f, W(nw_src) | W(nw_proto) | W(tp_src));
}

static void
case_ipv4_zero_payload(struct frame *f)
{
    /* tot_len covers the IP header only; the padding that follows looks
     * like a TCP header and must be ignored. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    set_l4_proto(f, IP_PROTO_TCP);
    ip_end(f);
    put_fill(f, 0xff, 60 - f->size);
}

static void
case_udp_zero_payload(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 9, 9, 0);
    ip_end(f);
}

static void
case_ipv6_zero_payload(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    set_l4_proto(f, IP_PROTO_TCP);
    ip_end(f);
    put_fill(f, 0xff, 24);
}

static void
case_ipv6_plen_short(struct frame *f)
{
    /* The payload length ends inside the TCP header. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_ext(f, IPV6_NEXT_HOPOPTS, 8);
    build_tcp(f, 1, 2, TCP_SYN, 5);
    ip_set_end(f, f->l3 + IPV6_HEADER_LEN + 8 + 19);
    drop_words(f, W(tp_src));
}

static void
case_ipv6_ext_past_end(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_ext(f, IPV6_NEXT_HOPOPTS, 8);
    build_tcp(f, 1, 2, TCP_SYN, 5);
    ip_end(f);
    f->data[f->l3 + IPV6_HEADER_LEN + 1] = 7;   /* 64 bytes. */
    drop_words(f, W(nw_proto) | W(tp_src));
}

static void
case_ipv6_ext_twenty_dstopts(struct frame *f)
{
    int i;

    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    for (i = 0; i < 20; i++) {
        build_ipv6_ext(f, IPV6_NEXT_DSTOPTS, 8);
    }
    build_tcp(f, 1, 2, TCP_SYN, 5);
    ip_end(f);
}

static void
case_ipv6_ext_any_order(struct frame *f)
{
    /* Repeated and out of RFC 8200's recommended order, with an atomic
     * fragment in the middle. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_ext(f, IPV6_NEXT_DSTOPTS, 16);
    build_ipv6_ext(f, IPV6_NEXT_ROUTING, 8);
    build_ipv6_frag(f, 0, false);
    build_ipv6_ext(f, IPV6_NEXT_HOPOPTS, 8);
    build_ipv6_ext(f, IPV6_NEXT_AH, 16);
    build_ipv6_ext(f, IPV6_NEXT_ROUTING, 24);
    build_udp(f, 1, 2, 0);
    ip_end(f);
}

static void
case_ipv6_atomic_frag(struct frame *f)
{
    /* Offset 0 and M=0: not a fragment. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_frag(f, 0, false);
    build_udp(f, 53, 53, 4);
    ip_end(f);
}

static void
case_ipv6_atomic_frag_reserved(struct frame *f)
{
    /* Offset 0 and M=0 but a reserved bit set: a first fragment. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_ipv6_frag_res(f, 0, false, 2);
    build_udp(f, 53, 53, 4);
    ip_end(f);
}

static void
case_ipv6_version_4(struct frame *f)
{
    /* The version nibble is not checked: parsed as IPv6. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_udp(f, 1, 2, 0);
    ip_end(f);
    f->data[f->l3] = 0x40;
}

static void
case_tcp_doff_past_end(struct frame *f)
{
    /* The data offset claims 60 bytes of the 20 there: a malformed header,
     * so no ports and no flags. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, TCP_SYN, 15);
    ip_end(f);
    drop_words(f, W(tp_src));
}

static void
case_tcp_doff_small(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, TCP_ACK, 2);
    ip_end(f);
    drop_words(f, W(tp_src));
}

static void
case_tcp6_doff_options(struct frame *f)
{
    /* A data offset of 6 with the 4 option bytes present parses. */
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_tcp(f, 7, 8, TCP_SYN, 6);
    put_fill(f, 1, 4);
    ip_end(f);
}

static void
case_tcp_short(struct frame *f)
{
    /* tot_len ends inside the TCP header: no ports. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_tcp(f, 1, 2, TCP_SYN, 5);
    ip_set_end(f, f->l3 + IP_HEADER_LEN + 19);
    drop_words(f, W(tp_src));
}

static void
case_udp_short(struct frame *f)
{
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_udp(f, 1, 2, 0);
    ip_set_end(f, f->size - 1);
    drop_words(f, W(tp_src));
}

static void
case_icmp_short(struct frame *f)
{
    /* ICMP needs its whole 8-byte header, as in Open vSwitch. */
    build_eth(f, ETH_TYPE_IP);
    build_ipv4(f, 0, 64, 0, 0, 0);
    build_icmp(f, IP_PROTO_ICMP, 8, 0);
    ip_set_end(f, f->size - 4);
    drop_words(f, W(tp_src));
}

static void
case_icmp6_short(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_icmp(f, IP_PROTO_ICMPV6, 128, 0);
    ip_set_end(f, f->size - 1);
    drop_words(f, W(tp_src));
}

static void
case_sctp_short(struct frame *f)
{
    build_eth(f, ETH_TYPE_IPV6);
    build_ipv6(f, 0, 0, 64);
    build_sctp(f, 1, 2);
    ip_set_end(f, f->size - 1);
    drop_words(f, W(tp_src));
}

struct frame_case {
    const char *name;
    void (*build)(struct frame *);
};

static const struct frame_case cases[] = {
    { "tcp4", case_tcp4 },
    { "tcp4-all-flags", case_tcp4_flags },
    { "udp4", case_udp4 },
    { "udp4-padded", case_udp4_padded },
    { "icmp4", case_icmp4 },
    { "ipv4-options", case_ipv4_options },
    { "ipv4-first-frag", case_ipv4_first_frag },
    { "ipv4-later-frag", case_ipv4_later_frag },
    { "ipv4-last-frag", case_ipv4_last_frag },
    { "vlan", case_vlan },
    { "qinq", case_qinq },
    { "vlan-dei-arp", case_vlan_dei },
    { "vlan-3-tags", case_vlan_3_tags },
    { "arp-request", case_arp_request },
    { "arp-reply", case_arp_reply },
    { "arp-big-opcode", case_arp_big_opcode },
    { "arp-not-ipv4", case_arp_not_ipv4 },
    { "tcp6", case_tcp6 },
    { "udp6", case_udp6 },
    { "ipv6-ext-first-frag", case_ipv6_ext_first_frag },
    { "ipv6-later-frag", case_ipv6_later_frag },
    { "ipv6-ah", case_ipv6_ah },
    { "ipv6-esp", case_ipv6_esp },
    { "nd-ns-sll", case_ns_sll },
    { "nd-na-tll", case_na_tll },
    { "nd-dup-sll", case_ns_dup_sll },
    { "nd-dup-tll", case_na_dup_tll },
    { "nd-zero-sll-then-sll", case_ns_zero_sll_then_sll },
    { "nd-target-cut", case_ns_target_cut },
    { "nd-zero-opt-len", case_ns_zero_opt_len },
    { "nd-opt-past-end", case_ns_opt_past_end },
    { "nd-code-nonzero", case_ns_code_nonzero },
    { "icmp6-echo", case_icmp6_echo },
    { "sctp4", case_sctp4 },
    { "ipv4-gre", case_other_proto },
    { "802.3", case_8023 },
    { "lldp", case_unknown_ethertype },
    { "eth-only", case_empty_ipv4 },
    { "ipv4-version-6", case_ipv4_version_6 },
    { "ipv4-tot-len-past-end", case_ipv4_tot_len_past_end },
    { "ipv6-plen-past-end", case_ipv6_plen_past_end },
    { "igmp", case_igmp },
    { "rarp", case_rarp },
    { "llc-snap-ipv4", case_llc_snap_ipv4 },
    { "llc-snap-other-oui", case_llc_snap_other_oui },
    { "ipv4-ihl-small", case_ipv4_ihl_small },
    { "ipv4-ihl-past-end", case_ipv4_ihl_past_end },
    { "ipv4-tot-len-small", case_ipv4_tot_len_small },
    { "ipv4-zero-payload", case_ipv4_zero_payload },
    { "udp-zero-payload", case_udp_zero_payload },
    { "ipv6-zero-payload", case_ipv6_zero_payload },
    { "ipv6-plen-short", case_ipv6_plen_short },
    { "ipv6-ext-past-end", case_ipv6_ext_past_end },
    { "ipv6-ext-twenty-dstopts", case_ipv6_ext_twenty_dstopts },
    { "ipv6-ext-any-order", case_ipv6_ext_any_order },
    { "ipv6-atomic-frag", case_ipv6_atomic_frag },
    { "ipv6-atomic-frag-reserved", case_ipv6_atomic_frag_reserved },
    { "ipv6-version-4", case_ipv6_version_4 },
    { "tcp-doff-past-end", case_tcp_doff_past_end },
    { "tcp-doff-small", case_tcp_doff_small },
    { "tcp6-doff-options", case_tcp6_doff_options },
    { "tcp-short", case_tcp_short },
    { "udp-short", case_udp_short },
    { "icmp-short", case_icmp_short },
    { "icmp6-short", case_icmp6_short },
    { "sctp6-short", case_sctp_short },
};

/* Parses the first 'size' bytes of 'data' from a buffer of exactly that
 * size at an odd or even address, per 'misalign'. */
static void
extract_exact(const uint8_t *data, size_t size, uint16_t in_port,
              bool misalign, struct netdev_flow_key *key)
{
    uint8_t *block = malloc(size + misalign);
    uint8_t *buf = block ? block + misalign : NULL;
    struct dp_packet packet;

    if (!block && size + misalign) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (size) {
        memcpy(buf, data, size);
    }
    memset(key, 0xcc, sizeof *key);
    dp_packet_init(&packet, buf, size, in_port);
    miniflow_extract(&packet, key);
    free(block);
}

static uint64_t
expected_map(const struct frame *f, size_t len)
{
    uint64_t map = 0;
    int idx;

    ULLONG_FOR_EACH_1 (idx, f->map) {
        if (f->needs[idx] <= len) {
            map |= UINT64_C(1) << idx;
        }
    }
    return map;
}

static void
check_whole_frame(const char *name, const struct frame *f)
{
    struct netdev_flow_key key;
    struct flow got;
    const uint64_t *gw = (const uint64_t *) &got;
    const uint64_t *ew = (const uint64_t *) &f->expect;
    int i;

    extract_exact(f->data, f->size, f->expect.in_port, false, &key);
    CHECK(key.mf.map == f->map, "%s: map %#"PRIx64", want %#"PRIx64,
          name, key.mf.map, f->map);
    CHECK(key.len == miniflow_size(&key.mf), "%s: len %"PRIu32, name,
          key.len);
    CHECK(key.hash == 0xcccccccc, "%s: hash touched", name);
    miniflow_expand(&key.mf, &got);
    for (i = 0; i < (int) FLOW_U64S; i++) {
        CHECK(gw[i] == ew[i], "%s: word %d is %016"PRIx64", want %016"PRIx64,
              name, i, gw[i], ew[i]);
    }
}

/* The words of a prefix's key must be those of the whole frame that the
 * prefix holds, with the same values, except where a cut changes what a
 * header means: a cut VLAN tag leaves its TPID as dl_type and the tag out
 * of word 2, and a cut LLC/SNAP header leaves dl_type 0x05ff. */
static void
check_prefix_values(const char *name, size_t len, const struct frame *f,
                    uint64_t map, const struct flow *got)
{
    const struct flow *want = &f->expect;
    const uint64_t *gw = (const uint64_t *) got;
    const uint64_t *ew = (const uint64_t *) want;
    int i;

    CHECK(got->in_port == want->in_port, "%s/%zu: in_port", name, len);
    if (len < ETH_HEADER_LEN) {
        struct flow port_only = { .in_port = want->in_port };

        CHECK(!memcmp(got, &port_only, sizeof port_only),
              "%s/%zu: short frame key has more than in_port", name, len);
        return;
    }
    CHECK(eth_addr_equals(got->dl_src, want->dl_src), "%s/%zu: dl_src",
          name, len);
    CHECK(got->dl_type == want->dl_type
          || got->dl_type == htons(ETH_TYPE_VLAN_8021Q)
          || got->dl_type == htons(ETH_TYPE_VLAN_8021AD)
          || got->dl_type == htons(FLOW_DL_TYPE_NONE),
          "%s/%zu: dl_type %#x", name, len, ntohs(got->dl_type));
    CHECK(!(map & W(vlans_tci))
          || (got->vlans_tci[0] == want->vlans_tci[0]
              && got->vlans_tpid[0] == want->vlans_tpid[0]
              && (got->vlans_tci[1] == want->vlans_tci[1]
                  || !got->vlans_tci[1])
              && (got->vlans_tpid[1] == want->vlans_tpid[1]
                  || !got->vlans_tpid[1])),
          "%s/%zu: vlans", name, len);
    for (i = FLOW_WORD(nw_src); i < (int) FLOW_U64S; i++) {
        if (!(map & (UINT64_C(1) << i))) {
            continue;           /* Absent, as the map check demanded. */
        }
        CHECK(gw[i] == ew[i], "%s/%zu: word %d is %016"PRIx64
              ", want %016"PRIx64, name, len, i, gw[i], ew[i]);
    }
}

static void
check_prefixes(const char *name, const struct frame *f)
{
    size_t len;

    for (len = 0; len <= f->size; len++) {
        struct netdev_flow_key key;
        uint64_t want = expected_map(f, len);
        struct flow got;

        extract_exact(f->data, len, f->expect.in_port, len & 1, &key);
        CHECK(key.mf.map == want, "%s/%zu: map %#"PRIx64", want %#"PRIx64,
              name, len, key.mf.map, want);
        CHECK(key.len == miniflow_size(&key.mf), "%s/%zu: len", name, len);
        miniflow_expand(&key.mf, &got);
        check_prefix_values(name, len, f, key.mf.map, &got);
    }
}

static void
test_frames(void)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        struct frame f;

        cases[i].build(&f);
        check_whole_frame(cases[i].name, &f);
        check_prefixes(cases[i].name, &f);
    }
}

/* A few keys spelled out word by word, so that the builders' own
 * bookkeeping is checked too. */
static void
test_literal_keys(void)
{
    struct netdev_flow_key key;
    struct frame f;
    struct flow flow;

    case_tcp4(&f);
    extract_exact(f.data, f.size, 1, false, &key);
    CHECK(key.mf.map == (W(dl_dst) | W(in_port) | W(nw_src) | W(nw_proto)
                         | W(tp_src)), "tcp4 literal map %#"PRIx64,
          key.mf.map);
    CHECK(key.len == 5 * 8, "tcp4 literal len %"PRIu32, key.len);
    miniflow_expand(&key.mf, &flow);
    CHECK(flow.dl_type == htons(0x0800) && flow.nw_src == htonl(0x0a000001)
          && flow.nw_dst == htonl(0x0a000002) && flow.nw_proto == 6
          && flow.nw_ttl == 64 && flow.tp_src == htons(1)
          && flow.tp_dst == htons(2) && flow.tcp_flags == htons(TCP_SYN),
          "tcp4 literal fields");

    case_qinq(&f);
    extract_exact(f.data, f.size, 4, false, &key);
    miniflow_expand(&key.mf, &flow);
    CHECK(flow.vlans_tci[0] == htons(0x1fff)
          && flow.vlans_tci[1] == htons(0xf001)
          && flow.vlans_tpid[0] == htons(0x88a8)
          && flow.vlans_tpid[1] == htons(0x8100)
          && flow.dl_type == htons(0x0800) && flow.in_port == 4,
          "qinq literal fields");

    case_8023(&f);
    extract_exact(f.data, f.size, 1, false, &key);
    CHECK(key.mf.map == (W(dl_dst) | W(in_port)), "802.3 literal map");
    miniflow_expand(&key.mf, &flow);
    CHECK(flow.dl_type == htons(0x05ff), "802.3 dl_type %#x",
          ntohs(flow.dl_type));

    case_ns_sll(&f);
    extract_exact(f.data, f.size, 1, false, &key);
    miniflow_expand(&key.mf, &flow);
    CHECK(key.mf.map == 0x3ff3, "ns literal map %#"PRIx64, key.mf.map);
    CHECK(eth_addr_equals(flow.arp_sha, mac_a)
          && !memcmp(&flow.nd_target, nd_tgt, 16)
          && flow.tp_src == htons(135) && flow.nw_ttl == 255,
          "ns literal fields");

    case_arp_request(&f);
    extract_exact(f.data, f.size, 1, false, &key);
    CHECK(key.mf.map == (W(dl_dst) | W(in_port) | W(nw_src) | W(nw_proto)
                         | W(arp_sha) | W(arp_sha) << 1),
          "arp literal map %#"PRIx64, key.mf.map);
    miniflow_expand(&key.mf, &flow);
    CHECK(flow.nw_proto == 1 && flow.nw_src == htonl(0xc0a80001)
          && eth_addr_equals(flow.arp_sha, mac_a), "arp literal fields");

    /* Shorter than Ethernet: in_port alone. */
    extract_exact(f.data, 13, 9, false, &key);
    CHECK(key.mf.map == W(in_port) && key.len == 8, "short frame map");
    miniflow_expand(&key.mf, &flow);
    CHECK(flow.in_port == 9 && !flow.dl_type, "short frame fields");
}

static uint64_t
rng_next(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

/* Fills 'buf' with random bytes, then plants plausible header fields at
 * random so that the walk reaches the deeper parsers often. */
static size_t
random_frame(uint64_t *rng, uint8_t *buf)
{
    static const uint16_t types[] = {
        ETH_TYPE_IP, ETH_TYPE_IPV6, ETH_TYPE_ARP, ETH_TYPE_VLAN_8021Q,
        ETH_TYPE_VLAN_8021AD, 0x0042, 0x88cc,
    };
    static const uint8_t protos[] = {
        IP_PROTO_TCP, IP_PROTO_UDP, IP_PROTO_SCTP, IP_PROTO_ICMP,
        IP_PROTO_ICMPV6, IPV6_NEXT_HOPOPTS, IPV6_NEXT_ROUTING,
        IPV6_NEXT_FRAGMENT, IPV6_NEXT_AH, IPV6_NEXT_DSTOPTS,
    };
    size_t size = rng_next(rng) % 201;
    size_t off = 12;
    size_t i;
    int tags = rng_next(rng) % 4;

    for (i = 0; i < size; i++) {
        buf[i] = rng_next(rng);
    }
    for (; tags > 0 && off + 4 <= size; tags--, off += 4) {
        buf[off] = 0x81;
        buf[off + 1] = 0x00;
    }
    if (off + 2 <= size && rng_next(rng) % 8) {
        uint16_t type = types[rng_next(rng) % ARRAY_SIZE(types)];

        buf[off] = type >> 8;
        buf[off + 1] = type;
        off += 2;
        if (type == ETH_TYPE_IP && off + 20 <= size) {
            buf[off] = rng_next(rng) % 4 ? 0x45 : 0x40 | (rng_next(rng) & 15);
            buf[off + 6] &= rng_next(rng) % 2 ? 0 : 0xff;
            buf[off + 9] = protos[rng_next(rng) % ARRAY_SIZE(protos)];
            if (rng_next(rng) % 2) {
                buf[off + 2] = 0;
                buf[off + 3] = size - off;
            }
        } else if (type == ETH_TYPE_IPV6 && off + 40 <= size) {
            buf[off] = 0x60;
            buf[off + 4] = 0;
            buf[off + 5] = rng_next(rng) % 2 ? size - off - 40 : buf[off + 5];
            buf[off + 6] = protos[rng_next(rng) % ARRAY_SIZE(protos)];
            for (i = off + 40; i + 8 <= size && rng_next(rng) % 2; i += 8) {
                buf[i] = protos[rng_next(rng) % ARRAY_SIZE(protos)];
                buf[i + 1] = 0;
            }
            if (i + 1 < size && rng_next(rng) % 2) {
                buf[i] = rng_next(rng) % 2 ? 135 : 136;
                buf[i + 1] = 0;
            }
        } else if (type == ETH_TYPE_ARP && off + 8 <= size) {
            memcpy(buf + off, "\x00\x01\x08\x00\x06\x04", 6);
        }
    }
    return size;
}

/* Invariants every key keeps, whatever the frame. */
static void
check_key_invariants(size_t n, const struct netdev_flow_key *key,
                     uint16_t in_port)
{
    uint64_t map = key->mf.map;
    uint64_t ipv6 = 0xf0;
    struct flow flow;

    CHECK(!(map >> FLOW_U64S), "random %zu: map %#"PRIx64, n, map);
    CHECK(map & W(in_port), "random %zu: no word 1", n);
    CHECK(key->len == miniflow_size(&key->mf), "random %zu: len", n);
    CHECK(!(map & ~W(in_port)) || (map & W(dl_dst)),
          "random %zu: L2+ words without word 0", n);
    CHECK((map & ipv6) == 0 || (map & ipv6) == ipv6,
          "random %zu: partial IPv6 addresses", n);
    CHECK(!(map & W(nw_proto)) || (map & (W(nw_src) | ipv6)),
          "random %zu: word 8 without addresses", n);
    CHECK(!(map & W(tp_src)) || (map & W(nw_proto)),
          "random %zu: word 9 without word 8", n);
    CHECK(!(map & W(nd_target)) || (map & W(tp_src)),
          "random %zu: ND target without word 9", n);
    miniflow_expand(&key->mf, &flow);
    CHECK(flow.in_port == in_port, "random %zu: in_port", n);
    CHECK(!(flow.nw_frag & FLOW_NW_FRAG_LATER) || !(map & W(tp_src)),
          "random %zu: ports in a later fragment", n);
    CHECK(!flow.pad9 && !flow.pad13, "random %zu: padding set", n);
}

static void
test_random_frames(void)
{
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    uint8_t buf[200];
    int n;

    for (n = 0; n < 100000; n++) {
        struct netdev_flow_key a, b;
        uint16_t in_port = n & 0xffff;
        size_t size = random_frame(&rng, buf);

        extract_exact(buf, size, in_port, false, &a);
        extract_exact(buf, size, in_port, true, &b);
        CHECK(a.mf.map == b.mf.map && a.len == b.len
              && !memcmp(a.mf.values, b.mf.values, a.len),
              "random %d: two parses of the same bytes differ", n);
        check_key_invariants(n, &a, in_port);
    }
}

static void
test_conversions(void)
{
    struct netdev_flow_key key;
    struct miniflow mf, sub;
    struct flow flow, back;
    struct frame f;
    int idx;

    case_tcp6(&f);
    extract_exact(f.data, f.size, 1, false, &key);
    miniflow_expand(&key.mf, &flow);
    miniflow_from_flow(&mf, &flow, key.mf.map);
    CHECK(miniflow_equal(&mf, &key.mf), "from_flow(expand(x)) != x");
    miniflow_expand(&mf, &back);
    CHECK(!memcmp(&flow, &back, sizeof flow), "expand round trip");

    /* A subset map keeps exactly those words. */
    miniflow_from_flow(&sub, &flow, W(dl_dst) | W(tp_src));
    CHECK(sub.map == (W(dl_dst) | W(tp_src)), "subset map");
    CHECK(miniflow_get_word(&sub, FLOW_WORD(tp_src))
          == miniflow_get_word(&key.mf, FLOW_WORD(tp_src)), "subset value");
    CHECK(!miniflow_get_word(&sub, FLOW_WORD(nw_proto)), "absent word");
    CHECK(!miniflow_equal(&sub, &key.mf), "subset equal to whole");

    /* Bits beyond the flow are not words. */
    miniflow_from_flow(&sub, &flow, UINT64_MAX);
    CHECK(sub.map == (UINT64_C(1) << FLOW_U64S) - 1, "full map %#"PRIx64,
          sub.map);

    /* Equality looks at values too. */
    mf = key.mf;
    mf.values[2] ^= 1;
    CHECK(!miniflow_equal(&mf, &key.mf), "values ignored by equal");

    ULLONG_FOR_EACH_1 (idx, key.mf.map) {
        CHECK(miniflow_get_word(&key.mf, idx) == ((uint64_t *) &flow)[idx],
              "get_word %d", idx);
    }
}

static void
check_format(const char *what, const struct flow *flow,
             const struct flow *mask, const char *want)
{
    char buf[512];

    flow_format(flow, mask, buf, sizeof buf);
    CHECK(!strcmp(buf, want), "format %s:\n  got  %s\n  want %s", what, buf,
          want);
}

static void
frame_flow(void (*build)(struct frame *), struct flow *flow)
{
    struct netdev_flow_key key;
    struct frame f;

    build(&f);
    extract_exact(f.data, f.size, f.expect.in_port, false, &key);
    miniflow_expand(&key.mf, flow);
}

static void
test_format(void)
{
    struct flow flow, mask;
    char small[10];

    frame_flow(case_tcp4, &flow);
    check_format("tcp4", &flow, NULL,
                 "in_port=1,vlan_tci=0x0000,dl_src=02:00:00:00:00:01,"
                 "dl_dst=02:00:00:00:00:02,dl_type=0x0800,nw_src=10.0.0.1,"
                 "nw_dst=10.0.0.2,nw_proto=6,nw_tos=0,nw_ecn=0,nw_ttl=64,"
                 "nw_frag=no,tp_src=1,tp_dst=2,tcp_flags=syn");

    frame_flow(case_tcp4_flags, &flow);
    check_format("tcp4 flags", &flow, NULL,
                 "in_port=1,vlan_tci=0x0000,dl_src=02:00:00:00:00:01,"
                 "dl_dst=02:00:00:00:00:02,dl_type=0x0800,nw_src=10.0.0.1,"
                 "nw_dst=10.0.0.2,nw_proto=6,nw_tos=184,nw_ecn=1,nw_ttl=3,"
                 "nw_frag=no,tp_src=40000,tp_dst=443,tcp_flags=fin|syn|rst|"
                 "psh|ack|urg|ece|cwr|ns|[200]|[400]|[800]");

    frame_flow(case_vlan, &flow);
    check_format("vlan tcp", &flow, NULL,
                 "in_port=3,dl_vlan=100,dl_vlan_pcp=5,"
                 "dl_src=02:00:00:00:00:01,dl_dst=02:00:00:00:00:02,"
                 "dl_type=0x0800,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_proto=6,"
                 "nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=10,tp_dst=20,"
                 "tcp_flags=fin|ack");

    frame_flow(case_qinq, &flow);
    check_format("qinq", &flow, NULL,
                 "in_port=4,dl_vlan=4095,dl_vlan_pcp=0,vlan_tci1=0xf001,"
                 "dl_src=02:00:00:00:00:01,dl_dst=02:00:00:00:00:02,"
                 "dl_type=0x0800,nw_src=10.0.0.1,nw_dst=10.0.0.2,"
                 "nw_proto=17,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,"
                 "tp_src=67,tp_dst=68");

    frame_flow(case_arp_reply, &flow);
    check_format("arp", &flow, NULL,
                 "in_port=1,vlan_tci=0x0000,dl_src=02:00:00:00:00:01,"
                 "dl_dst=02:00:00:00:00:02,dl_type=0x0806,"
                 "arp_spa=192.168.0.2,arp_tpa=192.168.0.1,arp_op=2,"
                 "arp_sha=52:54:00:11:22:33,arp_tha=52:54:00:aa:bb:cc");

    frame_flow(case_ipv4_later_frag, &flow);
    check_format("later fragment", &flow, NULL,
                 "in_port=1,vlan_tci=0x0000,dl_src=02:00:00:00:00:01,"
                 "dl_dst=02:00:00:00:00:02,dl_type=0x0800,nw_src=10.0.0.1,"
                 "nw_dst=10.0.0.2,nw_proto=17,nw_tos=0,nw_ecn=0,nw_ttl=64,"
                 "nw_frag=later");

    frame_flow(case_ns_sll, &flow);
    check_format("nd", &flow, NULL,
                 "in_port=1,vlan_tci=0x0000,dl_src=02:00:00:00:00:01,"
                 "dl_dst=02:00:00:00:00:02,dl_type=0x86dd,"
                 "ipv6_src=2001:db8::1,ipv6_dst=2001:db8::ab02,"
                 "ipv6_label=0x00000,nw_proto=58,nw_tos=0,nw_ecn=0,"
                 "nw_ttl=255,nw_frag=no,icmp_type=135,icmp_code=0,"
                 "nd_target=fe80::1234,nd_sll=52:54:00:aa:bb:cc,"
                 "nd_tll=00:00:00:00:00:00");

    frame_flow(case_8023, &flow);
    check_format("802.3", &flow, NULL,
                 "in_port=1,vlan_tci=0x0000,dl_src=02:00:00:00:00:01,"
                 "dl_dst=02:00:00:00:00:02,dl_type=0x05ff");

    /* Masked: only fields with mask bits, prefixes where they fit. */
    memset(&flow, 0, sizeof flow);
    memset(&mask, 0, sizeof mask);
    flow.dl_type = htons(ETH_TYPE_IP);
    mask.dl_type = 0xffff;
    flow.dl_dst.ea[0] = 0x01;
    mask.dl_dst.ea[0] = 0x01;
    flow.nw_src = htonl(0x0a000000);
    mask.nw_src = htonl(0xff000000);
    flow.nw_dst = htonl(0x0a000001);
    mask.nw_dst = htonl(0xff00ff00);
    check_format("masked", &flow, &mask,
                 "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00,"
                 "dl_type=0x0800,nw_src=10.0.0.0/8,"
                 "nw_dst=10.0.0.1/255.0.255.0");

    memset(&mask, 0, sizeof mask);
    check_format("empty mask", &flow, &mask, "");

    memset(&flow, 0, sizeof flow);
    memset(&mask, 0, sizeof mask);
    flow.in_port = 7;
    mask.in_port = 0xffff;
    flow.dl_type = htons(ETH_TYPE_IPV6);
    mask.dl_type = 0xffff;
    memset(&mask.ipv6_dst, 0xff, 8);
    memcpy(&flow.ipv6_dst, ip6_b, 8);
    flow.nw_proto = IP_PROTO_TCP;
    mask.nw_proto = 0xff;
    flow.nw_frag = 0;
    mask.nw_frag = FLOW_NW_FRAG_ANY;
    flow.tp_dst = htons(0x1000);
    mask.tp_dst = htons(0xf000);
    flow.tcp_flags = htons(TCP_SYN);
    mask.tcp_flags = htons(TCP_SYN | TCP_ACK);
    flow.vlans_tci[0] = htons(VLAN_CFI | 10);
    mask.vlans_tci[0] = htons(VLAN_CFI | VLAN_VID_MASK);
    check_format("masked ipv6", &flow, &mask,
                 "in_port=7,vlan_tci=0x100a/0x1fff,dl_type=0x86dd,"
                 "ipv6_dst=2001:db8::/64,nw_proto=6,nw_frag=no,"
                 "tp_dst=0x1000/0xf000,tcp_flags=+syn-ack");

    flow.nw_frag = FLOW_NW_FRAG_LATER | FLOW_NW_FRAG_ANY;
    mask.nw_frag = FLOW_NW_FRAG_LATER;
    memset(&mask.ipv6_dst, 0, sizeof mask.ipv6_dst);
    mask.tp_dst = mask.tcp_flags = mask.vlans_tci[0] = 0;
    check_format("frag later mask", &flow, &mask,
                 "in_port=7,dl_type=0x86dd,nw_proto=6,nw_frag=later");

    /* A small buffer truncates and stays terminated. */
    frame_flow(case_tcp4, &flow);
    memset(small, 'x', sizeof small);
    flow_format(&flow, NULL, small, sizeof small);
    CHECK(!memcmp(small, "in_port=1", 10), "truncated format '%.10s'",
          small);
    CHECK(flow_format(&flow, NULL, small, 0) == small, "zero-size buffer");
}

int
main(void)
{
    test_frames();
    test_literal_keys();
    test_conversions();
    test_format();
    test_random_frames();

    return check_finish("test-miniflow");
}
