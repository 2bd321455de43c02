/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Wire formats and constants: Ethernet, VLAN, ARP, IPv4, IPv6, TCP, UDP,
 * SCTP, ICMP and ICMPv6.  Network-order fields carry the be16/be32 types so
 * that a missing byte swap shows up in review.
 */
#ifndef PACKETS_H
#define PACKETS_H 1

#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>
#include "base/compiler.h"

typedef uint16_t ovs_be16;
typedef uint32_t ovs_be32;
typedef uint64_t ovs_be64;

#define ETH_ADDR_LEN 6
struct eth_addr {
    uint8_t ea[ETH_ADDR_LEN];
};

static inline bool
eth_addr_is_multicast(const struct eth_addr a)
{
    return a.ea[0] & 1;
}

static inline bool
eth_addr_is_broadcast(const struct eth_addr a)
{
    return (a.ea[0] & a.ea[1] & a.ea[2] & a.ea[3] & a.ea[4] & a.ea[5]) == 0xff;
}

static inline bool
eth_addr_equals(const struct eth_addr a, const struct eth_addr b)
{
    return !memcmp(a.ea, b.ea, ETH_ADDR_LEN);
}

/* True if 'ea' is a reserved multicast address that a bridge does not
 * forward: IEEE 802.1's 01-80-C2-00-00-00 to -0F (STP, PAUSE, LACP,
 * 802.1X, LLDP, ...) and the vendor protocols Open vSwitch treats alike
 * (Cisco CDP, VTP, PVST+, ISL and CFM, Extreme EDP and EAPS).  Slow path
 * only. */
static inline bool
eth_addr_is_reserved(const struct eth_addr ea)
{
    static const uint64_t others[] = {
        0x00e02b000000ULL, 0x00e02b000004ULL, 0x00e02b000006ULL,
        0x01000c000000ULL, 0x01000cccccccULL, 0x01000ccccccdULL,
        0x01000ccdcdcdULL,
    };
    uint64_t x = 0;

    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        x = (x << 8) | ea.ea[i];
    }
    if ((x & ~UINT64_C(0xf)) == 0x0180c2000000ULL
        || (x & ~UINT64_C(0x7)) == 0x01000cccccc0ULL) {
        return true;
    }
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        if (x == others[i]) {
            return true;
        }
    }
    return false;
}

#define ETH_ADDR_FMT "%02x:%02x:%02x:%02x:%02x:%02x"
#define ETH_ADDR_ARGS(A) \
    (A).ea[0], (A).ea[1], (A).ea[2], (A).ea[3], (A).ea[4], (A).ea[5]

#define ETH_HEADER_LEN 14
#define ETH_TYPE_MIN 0x600
#define ETH_TYPE_IP 0x0800
#define ETH_TYPE_ARP 0x0806
#define ETH_TYPE_RARP 0x8035
#define ETH_TYPE_VLAN_8021Q 0x8100
#define ETH_TYPE_VLAN_8021AD 0x88a8
#define ETH_TYPE_IPV6 0x86dd

#define VLAN_HEADER_LEN 4
#define VLAN_VID_MASK 0x0fff
#define VLAN_PCP_MASK 0xe000
#define VLAN_PCP_SHIFT 13
/* In a flow's vlan TCI, this bit marks that a tag is present (as OVS). */
#define VLAN_CFI 0x1000

#define IP_PROTO_ICMP 1
#define IP_PROTO_IGMP 2
#define IP_PROTO_TCP 6
#define IP_PROTO_UDP 17
#define IP_PROTO_SCTP 132
#define IP_PROTO_ICMPV6 58

/* IPv6 extension headers walked by miniflow extract. */
#define IPV6_NEXT_HOPOPTS 0
#define IPV6_NEXT_ROUTING 43
#define IPV6_NEXT_FRAGMENT 44
#define IPV6_NEXT_ESP 50
#define IPV6_NEXT_AH 51
#define IPV6_NEXT_NONE 59
#define IPV6_NEXT_DSTOPTS 60

/* Flow nw_frag bits, as OVS. */
#define FLOW_NW_FRAG_ANY (1 << 0)   /* Set for any IP fragment. */
#define FLOW_NW_FRAG_LATER (1 << 1) /* Set for a fragment with offset != 0. */

#define ICMP6_NEIGHBOR_SOLICIT 135
#define ICMP6_NEIGHBOR_ADVERT 136
#define ND_OPT_SOURCE_LINKADDR 1
#define ND_OPT_TARGET_LINKADDR 2

/* dl_type of an 802.3 frame (a length where the ethertype would be) that
 * does not carry an Ethernet type in an LLC/SNAP header, as OVS's
 * FLOW_DL_TYPE_NONE. */
#define FLOW_DL_TYPE_NONE 0x05ff

/* LLC/SNAP: DSAP and SSAP 0xaa, control 0x03 (unnumbered information),
 * then a SNAP header whose OUI 00-00-00 says the next two bytes are an
 * ethertype (RFC 1042). */
#define LLC_SNAP_HEADER_LEN 8
#define LLC_SNAP_SAP 0xaa
#define LLC_SNAP_CNTL 0x03

/* Wire headers.  Members are byte arrays or 16-bit fields only, so every
 * struct has no padding and alignment 2 at most; frames may sit at any
 * address, so parsers load members with memcpy at offsetof() rather than
 * through a cast pointer. */

struct eth_header {
    struct eth_addr eth_dst;
    struct eth_addr eth_src;
    ovs_be16 eth_type;
};
BUILD_ASSERT_DECL(sizeof(struct eth_header) == ETH_HEADER_LEN);

/* An 802.1Q/802.1ad tag as it sits where the ethertype would be. */
struct qtag_header {
    ovs_be16 qtag_tpid;
    ovs_be16 qtag_tci;
};
BUILD_ASSERT_DECL(sizeof(struct qtag_header) == VLAN_HEADER_LEN);

#define ARP_HTYPE_ETH 1
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2
#define ARP_ETH_HEADER_LEN 28

/* ARP for Ethernet hardware and IPv4 protocol addresses. */
struct arp_eth_header {
    ovs_be16 ar_hrd;            /* ARP_HTYPE_ETH. */
    ovs_be16 ar_pro;            /* ETH_TYPE_IP. */
    uint8_t ar_hln;             /* ETH_ADDR_LEN. */
    uint8_t ar_pln;             /* 4. */
    ovs_be16 ar_op;             /* ARP_OP_*. */
    struct eth_addr ar_sha;
    uint8_t ar_spa[4];
    struct eth_addr ar_tha;
    uint8_t ar_tpa[4];
};
BUILD_ASSERT_DECL(sizeof(struct arp_eth_header) == ARP_ETH_HEADER_LEN);

#define IP_HEADER_LEN 20
#define IP_VER(IHL_VER) ((IHL_VER) >> 4)
#define IP_IHL(IHL_VER) ((IHL_VER) & 0x0f)
#define IP_DONT_FRAGMENT 0x4000     /* In ip_frag_off, host order. */
#define IP_MORE_FRAGMENTS 0x2000
#define IP_FRAG_OFF_MASK 0x1fff
#define IP_DSCP_MASK 0xfc
#define IP_ECN_MASK 0x03

struct ip_header {
    uint8_t ip_ihl_ver;         /* Version (high nibble), IHL in words. */
    uint8_t ip_tos;
    ovs_be16 ip_tot_len;
    ovs_be16 ip_id;
    ovs_be16 ip_frag_off;       /* Flags and fragment offset. */
    uint8_t ip_ttl;
    uint8_t ip_proto;
    ovs_be16 ip_csum;
    uint8_t ip_src[4];
    uint8_t ip_dst[4];
};
BUILD_ASSERT_DECL(sizeof(struct ip_header) == IP_HEADER_LEN);

#define IPV6_HEADER_LEN 40
#define IPV6_LABEL_MASK 0x000fffff

struct ipv6_header {
    ovs_be16 ip6_vtc_flow[2];   /* Version 4 bits, class 8, label 20. */
    ovs_be16 ip6_plen;          /* Payload length after this header. */
    uint8_t ip6_nxt;
    uint8_t ip6_hlim;
    uint8_t ip6_src[16];
    uint8_t ip6_dst[16];
};
BUILD_ASSERT_DECL(sizeof(struct ipv6_header) == IPV6_HEADER_LEN);

/* Hop-by-hop, routing and destination options headers: 8 * (len + 1)
 * bytes.  AH uses the same first two bytes, but 4 * (len + 2) bytes. */
struct ipv6_ext_header {
    uint8_t ip6e_nxt;
    uint8_t ip6e_len;
};

#define IPV6_FRAG_HEADER_LEN 8
#define IPV6_FRAG_OFF_MASK 0xfff8   /* In ip6f_offlg, host order. */
#define IPV6_FRAG_MORE 0x0001

struct ipv6_frag_header {
    uint8_t ip6f_nxt;
    uint8_t ip6f_reserved;
    ovs_be16 ip6f_offlg;
    ovs_be16 ip6f_ident[2];
};
BUILD_ASSERT_DECL(sizeof(struct ipv6_frag_header) == IPV6_FRAG_HEADER_LEN);

#define TCP_HEADER_LEN 20
#define TCP_FIN 0x001
#define TCP_SYN 0x002
#define TCP_RST 0x004
#define TCP_PSH 0x008
#define TCP_ACK 0x010
#define TCP_URG 0x020
#define TCP_ECE 0x040
#define TCP_CWR 0x080
#define TCP_NS 0x100
#define TCP_FLAGS_MASK 0x0fff
#define TCP_FLAGS(CTL) ((CTL) & TCP_FLAGS_MASK)   /* 'CTL' host order. */
#define TCP_OFFSET(CTL) ((CTL) >> 12)             /* In 32-bit words. */

struct tcp_header {
    ovs_be16 tcp_src;
    ovs_be16 tcp_dst;
    ovs_be16 tcp_seq[2];
    ovs_be16 tcp_ack[2];
    ovs_be16 tcp_ctl;           /* Data offset, reserved bits, flags. */
    ovs_be16 tcp_winsz;
    ovs_be16 tcp_csum;
    ovs_be16 tcp_urg;
};
BUILD_ASSERT_DECL(sizeof(struct tcp_header) == TCP_HEADER_LEN);

#define UDP_HEADER_LEN 8
struct udp_header {
    ovs_be16 udp_src;
    ovs_be16 udp_dst;
    ovs_be16 udp_len;
    ovs_be16 udp_csum;
};
BUILD_ASSERT_DECL(sizeof(struct udp_header) == UDP_HEADER_LEN);

#define SCTP_HEADER_LEN 12
struct sctp_header {
    ovs_be16 sctp_src;
    ovs_be16 sctp_dst;
    ovs_be16 sctp_vtag[2];
    ovs_be16 sctp_csum[2];
};
BUILD_ASSERT_DECL(sizeof(struct sctp_header) == SCTP_HEADER_LEN);

/* ICMP, ICMPv6 and IGMP share the first 8 bytes' layout (for IGMP the
 * data word is the group address). */
#define ICMP_HEADER_LEN 8
struct icmp_header {
    uint8_t icmp_type;
    uint8_t icmp_code;
    ovs_be16 icmp_csum;
    ovs_be16 icmp_data[2];      /* Identifier/sequence, MTU, ... */
};
BUILD_ASSERT_DECL(sizeof(struct icmp_header) == ICMP_HEADER_LEN);

/* Neighbor solicitation and advertisement: an ICMPv6 header whose data
 * word is reserved (NS) or holds the R/S/O flags (NA), then the target,
 * then options. */
#define ND_MSG_LEN 24
struct nd_msg {
    struct icmp_header icmph;
    uint8_t target[16];
};
BUILD_ASSERT_DECL(sizeof(struct nd_msg) == ND_MSG_LEN);

/* An ND option: 'len' counts 8-byte units and is never 0. */
#define ND_OPT_LEN_UNIT 8
struct nd_opt_header {
    uint8_t nd_opt_type;
    uint8_t nd_opt_len;
};

#endif /* packets.h */
