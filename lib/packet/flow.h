/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The expanded flow key: every header field the datapath matches on, laid
 * out as FLOW_U64S 64-bit words so that masks, hashes and the compact
 * miniflow form (miniflow.h) can work a word at a time.
 */
#ifndef FLOW_H
#define FLOW_H 1

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include "base/util.h"
#include "packet/packets.h"

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
    /* Word 14: tunnel metadata, for frames a tunnel port received (else
     * absent, which reads as 0). */
    uint32_t tun_id;            /* VNI (host order, low 24 bits). */
    uint32_t pad14;
} __attribute__((aligned(8)));   /* Read as 64-bit words. */

/* The bits of tun_id a tunnel carries: VXLAN's 24-bit VNI. */
#define FLOW_TUN_ID_MASK 0xffffff

#define FLOW_U64S (sizeof(struct flow) / 8)
BUILD_ASSERT_DECL(sizeof(struct flow) % 8 == 0);
BUILD_ASSERT_DECL(FLOW_U64S <= 64);

/* Word index of member 'FIELD' of struct flow. */
#define FLOW_WORD(FIELD) (offsetof(struct flow, FIELD) / 8)

#endif /* packet/flow.h */
