/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * flow_compose(): the headers are written outermost first, each L3 and L4
 * length and checksum once what follows it is in place.  Multi-byte
 * fields of struct flow are already in network order; headers are filled
 * through memcpy at offsets, since 'buf' may have any alignment.
 */
#include <autoconf.h>
#include "packet/flow-compose.h"

#include <string.h>
#include "packet/crc32c.h"
#include "packet/flow.h"
#include "packet/packets.h"
#include "base/util.h"

/* Ethernet frames shorter than this (without FCS) are padded. */
#define FLOW_COMPOSE_MIN_FRAME 60

/* Fragment offset (in 8-byte units) given to a later fragment. */
#define FLOW_COMPOSE_LATER_OFFSET 100

static void
put16__(uint8_t *p, uint16_t host)
{
    ovs_be16 v = htons(host);

    memcpy(p, &v, 2);
}

/* Adds the 'size' bytes at 'data', as 16-bit big-endian words, to 'sum'. */
static uint32_t
csum_add__(uint32_t sum, const void *data_, size_t size)
{
    const uint8_t *data = data_;

    for (size_t i = 0; i + 1 < size; i += 2) {
        sum += (data[i] << 8) | data[i + 1];
    }
    if (size & 1) {
        sum += data[size - 1] << 8;
    }
    return sum;
}

uint16_t
flow_compose_csum(uint32_t sum, const void *data, size_t size)
{
    sum = csum_add__(sum, data, size);
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum & 0xffff;
}

/* The pseudo-header sum of an IPv4 or IPv6 flow for an L4 of 'l4_size'
 * bytes. */
static uint32_t
pseudo_sum__(const struct flow *flow, size_t l4_size)
{
    uint32_t sum = 0;

    if (flow->dl_type == htons(ETH_TYPE_IP)) {
        sum = csum_add__(sum, &flow->nw_src, 4);
        sum = csum_add__(sum, &flow->nw_dst, 4);
    } else {
        sum = csum_add__(sum, &flow->ipv6_src, 16);
        sum = csum_add__(sum, &flow->ipv6_dst, 16);
        sum += l4_size >> 16;
    }
    return sum + flow->nw_proto + (l4_size & 0xffff);
}

/* Writes the ND target and link-layer options of 'flow' after the ICMPv6
 * header at 'l4'.  Returns the bytes of L4 written in all. */
static size_t
compose_nd__(const struct flow *flow, uint8_t *l4)
{
    static const struct eth_addr zero;
    size_t n = ND_MSG_LEN;

    memset(l4 + ICMP_HEADER_LEN, 0, ND_MSG_LEN - ICMP_HEADER_LEN);
    memcpy(l4 + ICMP_HEADER_LEN, &flow->nd_target, 16);
    if (!eth_addr_equals(flow->arp_sha, zero)) {
        l4[n] = ND_OPT_SOURCE_LINKADDR;
        l4[n + 1] = 1;
        memcpy(l4 + n + 2, &flow->arp_sha, ETH_ADDR_LEN);
        n += ND_OPT_LEN_UNIT;
    }
    if (!eth_addr_equals(flow->arp_tha, zero)) {
        l4[n] = ND_OPT_TARGET_LINKADDR;
        l4[n + 1] = 1;
        memcpy(l4 + n + 2, &flow->arp_tha, ETH_ADDR_LEN);
        n += ND_OPT_LEN_UNIT;
    }
    return n;
}

/* Writes the L4 header of IP 'flow' at 'l4' followed by 'payload' zeros,
 * without its checksum.  Returns the L4 size and the checksum's offset in
 * L4 in '*csum_ofs' (0: none, for a later fragment or an unknown
 * protocol). */
static size_t
compose_l4__(const struct flow *flow, uint8_t *l4, size_t payload,
             size_t *csum_ofs)
{
    bool v6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    size_t n = 0;

    *csum_ofs = 0;
    if (flow->nw_frag & FLOW_NW_FRAG_LATER) {
        memset(l4, 0, payload);
        return payload;
    }
    switch (flow->nw_proto) {
    case IP_PROTO_TCP:
        n = TCP_HEADER_LEN;
        memset(l4, 0, n);
        memcpy(l4, &flow->tp_src, 2);
        memcpy(l4 + 2, &flow->tp_dst, 2);
        put16__(l4 + 12, (5 << 12) | (ntohs(flow->tcp_flags)
                                      & TCP_FLAGS_MASK));
        put16__(l4 + 14, 65535);
        *csum_ofs = offsetof(struct tcp_header, tcp_csum);
        break;
    case IP_PROTO_UDP:
        n = UDP_HEADER_LEN;
        memcpy(l4, &flow->tp_src, 2);
        memcpy(l4 + 2, &flow->tp_dst, 2);
        put16__(l4 + 4, n + payload);
        put16__(l4 + 6, 0);
        *csum_ofs = offsetof(struct udp_header, udp_csum);
        break;
    case IP_PROTO_SCTP:
        n = SCTP_HEADER_LEN;
        memset(l4, 0, n);
        memcpy(l4, &flow->tp_src, 2);
        memcpy(l4 + 2, &flow->tp_dst, 2);
        break;
    case IP_PROTO_ICMP:
    case IP_PROTO_ICMPV6:
        if ((flow->nw_proto == IP_PROTO_ICMP) == v6) {
            break;              /* ICMP in IPv6, ICMPv6 in IPv4: opaque. */
        }
        n = ICMP_HEADER_LEN;
        memset(l4, 0, n);
        l4[0] = ntohs(flow->tp_src);
        l4[1] = ntohs(flow->tp_dst);
        if (v6 && !l4[1] && (l4[0] == ICMP6_NEIGHBOR_SOLICIT
                             || l4[0] == ICMP6_NEIGHBOR_ADVERT)) {
            n = compose_nd__(flow, l4);
        }
        *csum_ofs = offsetof(struct icmp_header, icmp_csum);
        break;
    default:
        break;
    }
    memset(l4 + n, 0, payload);
    if (flow->nw_proto == IP_PROTO_SCTP) {
        /* The CRC covers the whole SCTP packet, and goes out least
         * significant byte first (RFC 4960 appendix B). */
        uint32_t crc = crc32c(0, l4, n + payload);

        for (int i = 0; i < 4; i++) {
            l4[offsetof(struct sctp_header, sctp_csum) + i] = crc >> (8 * i);
        }
    }
    return n + payload;
}

/* Writes the IPv4 or IPv6 header of 'flow' and what follows at 'l3'.
 * Returns the bytes written. */
static size_t
compose_ip__(const struct flow *flow, uint8_t *l3, size_t payload)
{
    bool v6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    bool frag = flow->nw_frag & FLOW_NW_FRAG_ANY;
    bool later = flow->nw_frag & FLOW_NW_FRAG_LATER;
    size_t l3_size = v6 ? IPV6_HEADER_LEN + (frag ? IPV6_FRAG_HEADER_LEN
                                                  : 0)
                        : IP_HEADER_LEN;
    uint8_t *l4 = l3 + l3_size;
    size_t csum_ofs;
    size_t l4_size = compose_l4__(flow, l4, payload, &csum_ofs);

    if (csum_ofs) {
        uint16_t csum;

        /* ICMP (v4) has no pseudo-header. */
        csum = flow_compose_csum(flow->nw_proto == IP_PROTO_ICMP ? 0
                                 : pseudo_sum__(flow, l4_size),
                                 l4, l4_size);
        if (!csum && flow->nw_proto == IP_PROTO_UDP) {
            csum = 0xffff;      /* 0 means "no checksum" in UDP. */
        }
        put16__(l4 + csum_ofs, csum);
    }
    if (!v6) {
        uint16_t frag_off = (frag ? IP_MORE_FRAGMENTS : 0)
                            | (later ? FLOW_COMPOSE_LATER_OFFSET : 0);

        memset(l3, 0, IP_HEADER_LEN);
        l3[0] = 0x45;
        l3[1] = flow->nw_tos;
        put16__(l3 + 2, IP_HEADER_LEN + l4_size);
        put16__(l3 + 6, frag_off);
        l3[8] = flow->nw_ttl;
        l3[9] = flow->nw_proto;
        memcpy(l3 + 12, &flow->nw_src, 4);
        memcpy(l3 + 16, &flow->nw_dst, 4);
        put16__(l3 + 10, flow_compose_csum(0, l3, IP_HEADER_LEN));
    } else {
        uint32_t label = ntohl(flow->ipv6_label) & IPV6_LABEL_MASK;
        uint32_t vtc = (6u << 28) | ((uint32_t) flow->nw_tos << 20) | label;
        ovs_be32 vtc_be = htonl(vtc);

        memcpy(l3, &vtc_be, 4);
        put16__(l3 + 4, l3_size - IPV6_HEADER_LEN + l4_size);
        l3[6] = frag ? IPV6_NEXT_FRAGMENT : flow->nw_proto;
        l3[7] = flow->nw_ttl;
        memcpy(l3 + 8, &flow->ipv6_src, 16);
        memcpy(l3 + 24, &flow->ipv6_dst, 16);
        if (frag) {
            uint8_t *fh = l3 + IPV6_HEADER_LEN;

            memset(fh, 0, IPV6_FRAG_HEADER_LEN);
            fh[0] = flow->nw_proto;
            put16__(fh + 2, (later ? FLOW_COMPOSE_LATER_OFFSET << 3 : 0)
                            | IPV6_FRAG_MORE);
        }
    }
    return l3_size + l4_size;
}

/* Writes the ARP header of 'flow' at 'l3'.  Returns its size. */
static size_t
compose_arp__(const struct flow *flow, uint8_t *l3)
{
    put16__(l3, ARP_HTYPE_ETH);
    put16__(l3 + 2, ETH_TYPE_IP);
    l3[4] = ETH_ADDR_LEN;
    l3[5] = 4;
    put16__(l3 + 6, flow->nw_proto);
    memcpy(l3 + 8, &flow->arp_sha, ETH_ADDR_LEN);
    memcpy(l3 + 14, &flow->nw_src, 4);
    memcpy(l3 + 18, &flow->arp_tha, ETH_ADDR_LEN);
    memcpy(l3 + 24, &flow->nw_dst, 4);
    return ARP_ETH_HEADER_LEN;
}

size_t
flow_compose(const struct flow *flow, size_t payload, uint8_t *buf,
             size_t size)
{
    uint16_t dl_type = ntohs(flow->dl_type);
    size_t n = 2 * ETH_ADDR_LEN;

    ovs_assert(size >= FLOW_COMPOSE_MAX
               && payload <= size - FLOW_COMPOSE_MAX);
    memcpy(buf, &flow->dl_dst, ETH_ADDR_LEN);
    memcpy(buf + ETH_ADDR_LEN, &flow->dl_src, ETH_ADDR_LEN);
    for (int i = 0; i < 2 && (ntohs(flow->vlans_tci[i]) & VLAN_CFI); i++) {
        uint16_t tpid = ntohs(flow->vlans_tpid[i]);

        put16__(buf + n, tpid ? tpid : ETH_TYPE_VLAN_8021Q);
        /* On the wire the bit that says "tag present" in a flow is the
         * DEI, which is clear. */
        put16__(buf + n + 2, ntohs(flow->vlans_tci[i]) & ~VLAN_CFI);
        n += VLAN_HEADER_LEN;
    }
    if (dl_type < ETH_TYPE_MIN) {
        /* 802.3: a length and an LLC header that is all zeros. */
        size_t llc = MAX(3, payload);

        put16__(buf + n, llc);
        memset(buf + n + 2, 0, llc);
        n += 2 + llc;
    } else {
        put16__(buf + n, dl_type);
        n += 2;
        if (dl_type == ETH_TYPE_IP || dl_type == ETH_TYPE_IPV6) {
            n += compose_ip__(flow, buf + n, payload);
        } else if (dl_type == ETH_TYPE_ARP) {
            n += compose_arp__(flow, buf + n);
        } else {
            memset(buf + n, 0, payload);
            n += payload;
        }
    }
    if (n < FLOW_COMPOSE_MIN_FRAME) {
        memset(buf + n, 0, FLOW_COMPOSE_MIN_FRAME - n);
        n = FLOW_COMPOSE_MIN_FRAME;
    }
    return n;
}
