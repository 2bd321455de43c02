/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for match_parse().  A table of good matches gives, for each text,
 * the exact flow and mask expected, written out field by field rather than
 * built with the parser; some rows also give flow_format()'s spelling of
 * the result.  A table of bad matches gives the exact error for each.
 * Every good row must also survive a round trip: its flow_format() output
 * parses back to the same flow and mask.  Exact flows, as the datapath
 * extracts them and dpctl/dump-flows prints them, must parse back too, for
 * ofproto/trace.
 *
 * Port names come from a test lookup: "p1" is port 0, "p2" port 1.
 */
#include <autoconf.h>
#include "ofproto/match-parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "packet/flow-format.h"
#include "packet/miniflow.h"
#include "packet/packets.h"
#include "base/util.h"

/* Network byte order in constant expressions. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BE16(X) ((uint16_t) (X))
#define BE32(X) ((uint32_t) (X))
#else
#define BE16(X) ((uint16_t) ((((X) & 0xff) << 8) | (((X) >> 8) & 0xff)))
#define BE32(X) ((uint32_t) ((((uint32_t) (X) & 0xff) << 24)           \
                             | (((uint32_t) (X) & 0xff00) << 8)         \
                             | (((uint32_t) (X) >> 8) & 0xff00)         \
                             | (((uint32_t) (X) >> 24) & 0xff)))
#endif
#define M16 BE16(0xffff)
#define M32 BE32(0xffffffff)
#define IP4(A, B, C, D) \
    BE32(((uint32_t) (A) << 24) | ((B) << 16) | ((C) << 8) | (D))
#define ETH(A, B, C, D, E, F) { { A, B, C, D, E, F } }
#define ETH_ONES ETH(0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
#define IN6(...) { .s6_addr = { __VA_ARGS__ } }
#define IN6_ONES IN6(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,   \
                     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)

/* Shorthand values and masks for the expected flows. */
#define T_IP .dl_type = BE16(ETH_TYPE_IP)
#define T_IP6 .dl_type = BE16(ETH_TYPE_IPV6)
#define T_ARP .dl_type = BE16(ETH_TYPE_ARP)
#define M_T .dl_type = M16
#define P(PROTO) .nw_proto = (PROTO)
#define M_P .nw_proto = 0xff
#define FRAG_AL (FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER)

struct good_case {
    const char *text;
    struct flow flow;           /* Expected flow. */
    struct flow mask;           /* Expected mask. */
    const char *formatted;      /* flow_format() of the result, if given. */
};

static const struct good_case good_cases[] = {
    /* Nothing: matches everything. */
    { "", { .in_port = 0 }, { .in_port = 0 }, "" },
    { "  ,, \t\r\n,", { .in_port = 0 }, { .in_port = 0 }, "" },

    /* tun_id: the VNI, 24 bits, maskable; printed in hex first. */
    { "tun_id=42", { .tun_id = 42 }, { .tun_id = 0xffffff }, "tun_id=0x2a" },
    { "tun_id=0x10/0xf0,in_port=1", { .tun_id = 0x10, .in_port = 1 },
      { .tun_id = 0xf0, .in_port = 0xffff }, "tun_id=0x10/0xf0,in_port=1" },

    /* in_port, by number and by name. */
    { "in_port=5", { .in_port = 5 }, { .in_port = 0xffff }, "in_port=5" },
    { "in_port=0x10", { .in_port = 16 }, { .in_port = 0xffff }, NULL },
    { "in_port=65535", { .in_port = 65535 }, { .in_port = 0xffff }, NULL },
    { "in_port=p1", { .in_port = 0 }, { .in_port = 0xffff }, "in_port=0" },
    { "in_port=p2", { .in_port = 1 }, { .in_port = 0xffff }, "in_port=1" },

    /* Ethernet. */
    { "dl_src=00:11:22:33:44:55",
      { .dl_src = ETH(0, 0x11, 0x22, 0x33, 0x44, 0x55) },
      { .dl_src = ETH_ONES }, "dl_src=00:11:22:33:44:55" },
    { "eth_dst=a:B:c:d:e:F",
      { .dl_dst = ETH(0xa, 0xb, 0xc, 0xd, 0xe, 0xf) },
      { .dl_dst = ETH_ONES }, "dl_dst=0a:0b:0c:0d:0e:0f" },
    { "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00",
      { .dl_dst = ETH(1, 0, 0, 0, 0, 0) },
      { .dl_dst = ETH(1, 0, 0, 0, 0, 0) },
      "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00" },
    { "dl_dst=ff:ff:ff:ff:ff:ff/fe:ff:ff:ff:ff:00",
      { .dl_dst = ETH(0xfe, 0xff, 0xff, 0xff, 0xff, 0) },
      { .dl_dst = ETH(0xfe, 0xff, 0xff, 0xff, 0xff, 0) }, NULL },
    { "dl_src:00:11:22:33:44:55",
      { .dl_src = ETH(0, 0x11, 0x22, 0x33, 0x44, 0x55) },
      { .dl_src = ETH_ONES }, NULL },
    { "dl_type=0x0800", { T_IP }, { M_T }, "dl_type=0x0800" },
    { "dl_type=2054", { T_ARP }, { M_T }, "dl_type=0x0806" },
    { "eth_type=0x86DD", { T_IP6 }, { M_T }, NULL },

    /* VLANs. */
    { "vlan_tci=0x1000/0x1000", { .vlans_tci = { BE16(0x1000) } },
      { .vlans_tci = { BE16(0x1000) } }, "vlan_tci=0x1000/0x1000" },
    { "vlan_tci=0x0000", { .vlans_tci = { 0 } },
      { .vlans_tci = { M16 } }, "vlan_tci=0x0000" },
    { "vlan_tci=0x1234/0x0fff", { .vlans_tci = { BE16(0x0234) } },
      { .vlans_tci = { BE16(0x0fff) } }, NULL },
    { "dl_vlan=10", { .vlans_tci = { BE16(0x100a) } },
      { .vlans_tci = { BE16(0x1fff) } }, "vlan_tci=0x100a/0x1fff" },
    { "dl_vlan=0", { .vlans_tci = { BE16(0x1000) } },
      { .vlans_tci = { BE16(0x1fff) } }, NULL },
    { "dl_vlan=4095", { .vlans_tci = { BE16(0x1fff) } },
      { .vlans_tci = { BE16(0x1fff) } }, NULL },
    { "dl_vlan=0xffff", { .vlans_tci = { 0 } },
      { .vlans_tci = { M16 } }, "vlan_tci=0x0000" },
    { "dl_vlan_pcp=5", { .vlans_tci = { BE16(0xb000) } },
      { .vlans_tci = { BE16(0xf000) } }, NULL },
    { "dl_vlan=10,vlan_pcp=5", { .vlans_tci = { BE16(0xb00a) } },
      { .vlans_tci = { M16 } }, "dl_vlan=10,dl_vlan_pcp=5" },
    { "vlan_tci=0x1000/0x1000,dl_vlan=7",
      { .vlans_tci = { BE16(0x1007) } },
      { .vlans_tci = { BE16(0x1fff) } }, NULL },
    { "dl_vlan=1,vlan_tci1=0x1064",
      { .vlans_tci = { BE16(0x1001), BE16(0x1064) } },
      { .vlans_tci = { BE16(0x1fff), M16 } },
      "vlan_tci=0x1001/0x1fff,vlan_tci1=0x1064" },
    { "vlan_tci=0x1000/0x1000,vlan_tci1=0x1002/0x1fff",
      { .vlans_tci = { BE16(0x1000), BE16(0x1002) } },
      { .vlans_tci = { BE16(0x1000), BE16(0x1fff) } }, NULL },

    /* IPv4 addresses: plain, prefixes, masks. */
    { "ip,nw_src=10.0.0.1", { T_IP, .nw_src = IP4(10, 0, 0, 1) },
      { M_T, .nw_src = M32 }, "dl_type=0x0800,nw_src=10.0.0.1" },
    { "ip,nw_src=10.0.0.0/8", { T_IP, .nw_src = IP4(10, 0, 0, 0) },
      { M_T, .nw_src = IP4(255, 0, 0, 0) },
      "dl_type=0x0800,nw_src=10.0.0.0/8" },
    { "ip,nw_src=10.1.2.3/24", { T_IP, .nw_src = IP4(10, 1, 2, 0) },
      { M_T, .nw_src = IP4(255, 255, 255, 0) }, NULL },
    { "ip,nw_src=10.1.2.3/32", { T_IP, .nw_src = IP4(10, 1, 2, 3) },
      { M_T, .nw_src = M32 }, NULL },
    { "ip,nw_src=10.1.2.3/0", { T_IP }, { M_T }, "dl_type=0x0800" },
    { "ip,nw_dst=192.168.7.7/255.255.0.0",
      { T_IP, .nw_dst = IP4(192, 168, 0, 0) },
      { M_T, .nw_dst = IP4(255, 255, 0, 0) },
      "dl_type=0x0800,nw_dst=192.168.0.0/16" },
    { "ip,nw_src=10.9.1.9/255.0.255.0",
      { T_IP, .nw_src = IP4(10, 0, 1, 0) },
      { M_T, .nw_src = IP4(255, 0, 255, 0) },
      "dl_type=0x0800,nw_src=10.0.1.0/255.0.255.0" },
    { "ip4,ip_src=1.2.3.4,ip_dst=5.6.7.8",
      { T_IP, .nw_src = IP4(1, 2, 3, 4), .nw_dst = IP4(5, 6, 7, 8) },
      { M_T, .nw_src = M32, .nw_dst = M32 }, NULL },
    { "nw_src=1.2.3.4/0", { .in_port = 0 }, { .in_port = 0 }, "" },
    { "ip,nw_src=*", { T_IP }, { M_T }, NULL },

    /* ARP. */
    { "arp,nw_src=10.0.0.1", { T_ARP, .nw_src = IP4(10, 0, 0, 1) },
      { M_T, .nw_src = M32 }, "dl_type=0x0806,arp_spa=10.0.0.1" },
    { "arp,arp_spa=10.0.0.1,arp_tpa=10.0.0.0/24,arp_op=2,"
      "arp_sha=00:00:00:00:00:01,arp_tha=0a:0b:0c:0d:0e:0f/ff:ff:ff:00:00:00",
      { T_ARP, .nw_src = IP4(10, 0, 0, 1), .nw_dst = IP4(10, 0, 0, 0),
        .nw_proto = 2, .arp_sha = ETH(0, 0, 0, 0, 0, 1),
        .arp_tha = ETH(0xa, 0xb, 0xc, 0, 0, 0) },
      { M_T, .nw_src = M32, .nw_dst = IP4(255, 255, 255, 0), M_P,
        .arp_sha = ETH_ONES, .arp_tha = ETH(0xff, 0xff, 0xff, 0, 0, 0) },
      "dl_type=0x0806,arp_spa=10.0.0.1,arp_tpa=10.0.0.0/24,arp_op=2,"
      "arp_sha=00:00:00:00:00:01,arp_tha=0a:0b:0c:00:00:00/ff:ff:ff:00:00:00"
    },
    { "arp,nw_proto=1", { T_ARP, P(1) }, { M_T, M_P }, NULL },
    { "rarp", { .dl_type = BE16(0x8035) }, { M_T }, NULL },
    /* RARP has ARP's fields, as in OVS. */
    { "rarp,arp_spa=10.0.0.9,arp_op=3",
      { .dl_type = BE16(0x8035), .nw_src = IP4(10, 0, 0, 9), P(3) },
      { M_T, .nw_src = M32, M_P },
      "dl_type=0x8035,arp_spa=10.0.0.9,arp_op=3" },
    { "mpls", { .dl_type = BE16(0x8847) }, { M_T }, NULL },

    /* IPv6. */
    { "ipv6,ipv6_src=2001:db8::1",
      { T_IP6, .ipv6_src = IN6(0x20, 0x01, 0x0d, 0xb8, [15] = 1) },
      { M_T, .ipv6_src = IN6_ONES },
      "dl_type=0x86dd,ipv6_src=2001:db8::1" },
    { "ip6,ipv6_dst=2001:db8:ffff::/32",
      { T_IP6, .ipv6_dst = IN6(0x20, 0x01, 0x0d, 0xb8) },
      { M_T, .ipv6_dst = IN6(0xff, 0xff, 0xff, 0xff) },
      "dl_type=0x86dd,ipv6_dst=2001:db8::/32" },
    { "ipv6,ipv6_src=fe80::1/ffff:ffff::",
      { T_IP6, .ipv6_src = IN6(0xfe, 0x80) },
      { M_T, .ipv6_src = IN6(0xff, 0xff, 0xff, 0xff) }, NULL },
    { "ipv6,ipv6_src=::1/0", { T_IP6 }, { M_T }, NULL },
    { "ipv6,ipv6_src=::ff/ff00::ff",
      { T_IP6, .ipv6_src = IN6([15] = 0xff) },
      { M_T, .ipv6_src = IN6(0xff, [15] = 0xff) },
      "dl_type=0x86dd,ipv6_src=::ff/ff00::ff" },
    { "ipv6,ipv6_label=0x12345",
      { T_IP6, .ipv6_label = BE32(0x12345) },
      { M_T, .ipv6_label = BE32(0xfffff) },
      "dl_type=0x86dd,ipv6_label=0x12345" },
    { "ipv6,ipv6_label=0x15/0xf",
      { T_IP6, .ipv6_label = BE32(0x5) },
      { M_T, .ipv6_label = BE32(0xf) },
      "dl_type=0x86dd,ipv6_label=0x00005/0x0000f" },

    /* IP header fields. */
    { "ip,nw_proto=47", { T_IP, P(47) }, { M_T, M_P },
      "dl_type=0x0800,nw_proto=47" },
    { "ipv6,ip_proto=50", { T_IP6, P(50) }, { M_T, M_P }, NULL },
    { "ip,nw_tos=184", { T_IP, .nw_tos = 184 }, { M_T, .nw_tos = 0xfc },
      "dl_type=0x0800,nw_tos=184" },
    { "ip,ip_dscp=46", { T_IP, .nw_tos = 184 }, { M_T, .nw_tos = 0xfc },
      "dl_type=0x0800,nw_tos=184" },
    { "ip,nw_ecn=3", { T_IP, .nw_tos = 3 }, { M_T, .nw_tos = 3 },
      "dl_type=0x0800,nw_ecn=3" },
    { "ip,nw_tos=184,nw_ecn=1", { T_IP, .nw_tos = 185 },
      { M_T, .nw_tos = 0xff }, NULL },
    { "ip,ip_dscp=46,nw_tos=184", { T_IP, .nw_tos = 184 },
      { M_T, .nw_tos = 0xfc }, NULL },
    { "ipv6,ip_ecn=2", { T_IP6, .nw_tos = 2 }, { M_T, .nw_tos = 3 }, NULL },
    { "ip,nw_ttl=64", { T_IP, .nw_ttl = 64 }, { M_T, .nw_ttl = 0xff },
      "dl_type=0x0800,nw_ttl=64" },
    { "ipv6,nw_ttl=0", { T_IP6 }, { M_T, .nw_ttl = 0xff }, NULL },
    { "ip,nw_frag=no", { T_IP }, { M_T, .nw_frag = FRAG_AL },
      "dl_type=0x0800,nw_frag=no" },
    { "ip,nw_frag=yes", { T_IP, .nw_frag = FLOW_NW_FRAG_ANY },
      { M_T, .nw_frag = FLOW_NW_FRAG_ANY }, "dl_type=0x0800,nw_frag=yes" },
    { "ip,nw_frag=first", { T_IP, .nw_frag = FLOW_NW_FRAG_ANY },
      { M_T, .nw_frag = FRAG_AL }, "dl_type=0x0800,nw_frag=first" },
    { "ipv6,ip_frag=LATER", { T_IP6, .nw_frag = FRAG_AL },
      { M_T, .nw_frag = FRAG_AL }, "dl_type=0x86dd,nw_frag=later" },
    { "ip,nw_frag=not_later", { T_IP },
      { M_T, .nw_frag = FLOW_NW_FRAG_LATER },
      "dl_type=0x0800,nw_frag=not_later" },

    /* Shorthands and transport ports. */
    { "ip", { T_IP }, { M_T }, "dl_type=0x0800" },
    { "ipv4", { T_IP }, { M_T }, NULL },
    { "ipv6", { T_IP6 }, { M_T }, NULL },
    { "arp", { T_ARP }, { M_T }, NULL },
    { "icmp", { T_IP, P(1) }, { M_T, M_P }, NULL },
    { "icmp6", { T_IP6, P(58) }, { M_T, M_P }, NULL },
    { "tcp", { T_IP, P(6) }, { M_T, M_P }, "dl_type=0x0800,nw_proto=6" },
    { "tcp6", { T_IP6, P(6) }, { M_T, M_P }, NULL },
    { "udp", { T_IP, P(17) }, { M_T, M_P }, NULL },
    { "udp6", { T_IP6, P(17) }, { M_T, M_P }, NULL },
    { "sctp", { T_IP, P(132) }, { M_T, M_P }, NULL },
    { "sctp6", { T_IP6, P(132) }, { M_T, M_P }, NULL },
    { "tcp,tp_src=80", { T_IP, P(6), .tp_src = BE16(80) },
      { M_T, M_P, .tp_src = M16 }, "dl_type=0x0800,nw_proto=6,tp_src=80" },
    { "tcp,tp_dst=0x1000/0xf000", { T_IP, P(6), .tp_dst = BE16(0x1000) },
      { M_T, M_P, .tp_dst = BE16(0xf000) },
      "dl_type=0x0800,nw_proto=6,tp_dst=0x1000/0xf000" },
    { "udp,tp_src=53,tp_dst=1234/0xfc00",
      { T_IP, P(17), .tp_src = BE16(53), .tp_dst = BE16(1024) },
      { M_T, M_P, .tp_src = M16, .tp_dst = BE16(0xfc00) }, NULL },
    { "sctp,tp_dst=9", { T_IP, P(132), .tp_dst = BE16(9) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "tcp6,tp_dst=443", { T_IP6, P(6), .tp_dst = BE16(443) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "udp6,udp_src=546", { T_IP6, P(17), .tp_src = BE16(546) },
      { M_T, M_P, .tp_src = M16 }, NULL },
    { "sctp6,sctp_dst=1", { T_IP6, P(132), .tp_dst = BE16(1) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "tcp,tcp_dst=22", { T_IP, P(6), .tp_dst = BE16(22) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "tcp,tp_src=0/0", { T_IP, P(6) }, { M_T, M_P }, NULL },
    { "dl_type=0x0800,nw_proto=6,tp_dst=80",
      { T_IP, P(6), .tp_dst = BE16(80) }, { M_T, M_P, .tp_dst = M16 },
      NULL },

    /* Order, repeats that agree, and white space. */
    { "tp_dst=80,tcp", { T_IP, P(6), .tp_dst = BE16(80) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "tcp tp_dst=80", { T_IP, P(6), .tp_dst = BE16(80) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "\ttcp,\r\n tp_dst=80 ,", { T_IP, P(6), .tp_dst = BE16(80) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { ",,tcp,,,tp_dst=80,,", { T_IP, P(6), .tp_dst = BE16(80) },
      { M_T, M_P, .tp_dst = M16 }, NULL },
    { "tcp,tcp,ip,nw_proto=6,tp_dst=80,tcp_dst=80,tp_dst=0x50/0xffff",
      { T_IP, P(6), .tp_dst = BE16(80) },
      { M_T, M_P, .tp_dst = M16 }, NULL },

    /* TCP flags. */
    { "tcp,tcp_flags=syn", { T_IP, P(6), .tcp_flags = BE16(TCP_SYN) },
      { M_T, M_P, .tcp_flags = BE16(0xfff) },
      "dl_type=0x0800,nw_proto=6,tcp_flags=syn" },
    { "tcp,tcp_flags=syn|ack",
      { T_IP, P(6), .tcp_flags = BE16(TCP_SYN | TCP_ACK) },
      { M_T, M_P, .tcp_flags = BE16(0xfff) },
      "dl_type=0x0800,nw_proto=6,tcp_flags=syn|ack" },
    { "tcp,tcp_flags=+syn-ack", { T_IP, P(6), .tcp_flags = BE16(TCP_SYN) },
      { M_T, M_P, .tcp_flags = BE16(TCP_SYN | TCP_ACK) },
      "dl_type=0x0800,nw_proto=6,tcp_flags=+syn-ack" },
    { "tcp,tcp_flags=0x002/0x012",
      { T_IP, P(6), .tcp_flags = BE16(TCP_SYN) },
      { M_T, M_P, .tcp_flags = BE16(TCP_SYN | TCP_ACK) }, NULL },
    { "tcp,tcp_flags=0", { T_IP, P(6) },
      { M_T, M_P, .tcp_flags = BE16(0xfff) },
      "dl_type=0x0800,nw_proto=6,tcp_flags=0" },
    { "tcp6,tcp_flags=-rst+[800]", { T_IP6, P(6), .tcp_flags = BE16(0x800) },
      { M_T, M_P, .tcp_flags = BE16(0x804) },
      "dl_type=0x86dd,nw_proto=6,tcp_flags=-rst+[800]" },
    { "tcp,tcp_flags=fin|0x10",
      { T_IP, P(6), .tcp_flags = BE16(TCP_FIN | TCP_ACK) },
      { M_T, M_P, .tcp_flags = BE16(0xfff) }, NULL },

    /* ICMP and neighbor discovery. */
    { "icmp,icmp_type=8,icmp_code=0", { T_IP, P(1), .tp_src = BE16(8) },
      { M_T, M_P, .tp_src = M16, .tp_dst = M16 },
      "dl_type=0x0800,nw_proto=1,icmp_type=8,icmp_code=0" },
    { "icmp6,icmpv6_type=128", { T_IP6, P(58), .tp_src = BE16(128) },
      { M_T, M_P, .tp_src = M16 },
      "dl_type=0x86dd,nw_proto=58,icmp_type=128" },
    { "icmp6,icmp_type=1,icmp_code=4",
      { T_IP6, P(58), .tp_src = BE16(1), .tp_dst = BE16(4) },
      { M_T, M_P, .tp_src = M16, .tp_dst = M16 }, NULL },
    { "icmp6,icmpv6_type=135,nd_target=fe80::1",
      { T_IP6, P(58), .tp_src = BE16(135),
        .nd_target = IN6(0xfe, 0x80, [15] = 1) },
      { M_T, M_P, .tp_src = M16, .nd_target = IN6_ONES },
      "dl_type=0x86dd,nw_proto=58,icmp_type=135,nd_target=fe80::1" },
    { "icmp6,icmpv6_type=136,icmpv6_code=0,nd_target=2001:db8::/64,"
      "nd_tll=00:11:22:33:44:55",
      { T_IP6, P(58), .tp_src = BE16(136),
        .nd_target = IN6(0x20, 0x01, 0x0d, 0xb8),
        .arp_tha = ETH(0, 0x11, 0x22, 0x33, 0x44, 0x55) },
      { M_T, M_P, .tp_src = M16, .tp_dst = M16,
        .nd_target = IN6(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
        .arp_tha = ETH_ONES }, NULL },
    { "icmp6,icmp_type=135,nd_sll=00:11:22:33:44:55/ff:ff:ff:00:00:00,"
      "nd_tll=00:00:00:00:00:00",
      { T_IP6, P(58), .tp_src = BE16(135),
        .arp_sha = ETH(0, 0x11, 0x22, 0, 0, 0) },
      { M_T, M_P, .tp_src = M16,
        .arp_sha = ETH(0xff, 0xff, 0xff, 0, 0, 0), .arp_tha = ETH_ONES },
      "dl_type=0x86dd,nw_proto=58,icmp_type=135,"
      "nd_sll=00:11:22:00:00:00/ff:ff:ff:00:00:00,nd_tll=00:00:00:00:00:00"
    },

    /* Everything at once, as a trace would give it. */
    { "in_port=p2,dl_vlan=100,dl_vlan_pcp=0,dl_src=00:00:00:00:00:01,"
      "dl_dst=00:00:00:00:00:02,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,"
      "nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,"
      "tcp_flags=syn",
      { .in_port = 1, .vlans_tci = { BE16(0x1064) },
        .dl_src = ETH(0, 0, 0, 0, 0, 1), .dl_dst = ETH(0, 0, 0, 0, 0, 2),
        T_IP, P(6), .nw_src = IP4(10, 0, 0, 1), .nw_dst = IP4(10, 0, 0, 2),
        .nw_ttl = 64, .tp_src = BE16(1234), .tp_dst = BE16(80),
        .tcp_flags = BE16(TCP_SYN) },
      { .in_port = 0xffff, .vlans_tci = { M16 }, .dl_src = ETH_ONES,
        .dl_dst = ETH_ONES, M_T, M_P, .nw_src = M32, .nw_dst = M32,
        .nw_tos = 0xff, .nw_ttl = 0xff, .nw_frag = FRAG_AL,
        .tp_src = M16, .tp_dst = M16, .tcp_flags = BE16(0xfff) },
      "in_port=1,dl_vlan=100,dl_vlan_pcp=0,dl_src=00:00:00:00:00:01,"
      "dl_dst=00:00:00:00:00:02,dl_type=0x0800,nw_src=10.0.0.1,"
      "nw_dst=10.0.0.2,nw_proto=6,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,"
      "tp_src=1234,tp_dst=80,tcp_flags=syn" },
};

struct bad_case {
    const char *text;
    const char *error;
};

static const struct bad_case bad_cases[] = {
    /* Names. */
    { "foo", "unknown field \"foo\"" },
    { "ip,nw_scr=1.2.3.4",
      "unknown field \"nw_scr\" (did you mean nw_src?)" },
    { "tcp,tp_dts=80", "unknown field \"tp_dts\" (did you mean tp_dst?)" },
    { "tcp,tp_scr=80",
      "unknown field \"tp_scr\" (did you mean tp_src?)" },
    { "ip,nw_tlt=1", "unknown field \"nw_tlt\" (did you mean nw_ttl?)" },
    { "ip,nw_sr=1.2.3.4",
      "unknown field \"nw_sr\" (did you mean nw_src?)" },
    { "in_prt=1", "unknown field \"in_prt\" (did you mean in_port?)" },
    { "udp7", "unknown field \"udp7\" (did you mean udp or udp6?)" },
    { "tpc", "unknown field \"tpc\" (did you mean tcp?)" },
    { "priority=5,ip", "\"priority\" is not a match field" },
    { "in_port(1)",
      "\"in_port(\": datapath flow syntax is not supported; write "
      "in_port=VALUE" },
    { "=5", "missing field name before \"=\"" },

    /* Missing, extra and misplaced values. */
    { "ip,nw_src", "nw_src: missing value (write nw_src=VALUE)" },
    { "ip,nw_src=", "nw_src: missing value (write nw_src=VALUE)" },
    { "ip,nw_src = 1.2.3.4", "nw_src: no spaces are allowed around \"=\"" },
    { "tcp=1", "tcp takes no value (\"tcp=1\")" },

    /* Bad values and trailing garbage. */
    { "ip,nw_src=10.0.0.300",
      "nw_src: \"10.0.0.300\" is not an IPv4 address or prefix" },
    { "ip,nw_src=10.0.0",
      "nw_src: \"10.0.0\" is not an IPv4 address or prefix" },
    { "ip,nw_src=1.2.3.4x",
      "nw_src: \"1.2.3.4x\" is not an IPv4 address or prefix" },
    { "ip,nw_dst=10.0.0.0/33",
      "nw_dst: \"10.0.0.0/33\": the prefix length must be 0 to 32" },
    { "ip,nw_dst=10.0.0.0/255.0.0.256",
      "nw_dst: \"10.0.0.0/255.0.0.256\" is not an IPv4 address or prefix "
      "(the mask is neither a prefix length nor an address)" },
    { "ipv6,ipv6_src=2001:db8::g",
      "ipv6_src: \"2001:db8::g\" is not an IPv6 address or prefix" },
    { "ipv6,ipv6_dst=::/129",
      "ipv6_dst: \"::/129\": the prefix length must be 0 to 128" },
    { "ipv6,ipv6_src=10.0.0.1",
      "ipv6_src: \"10.0.0.1\" is not an IPv6 address or prefix" },
    { "dl_src=00:11:22:33:44",
      "dl_src: \"00:11:22:33:44\" is not an Ethernet address (expected "
      "xx:xx:xx:xx:xx:xx, optionally /mask)" },
    { "dl_src=00:11:22:33:44:55:66",
      "dl_src: \"00:11:22:33:44:55:66\" is not an Ethernet address "
      "(expected xx:xx:xx:xx:xx:xx, optionally /mask)" },
    { "dl_src=001:1:2:3:4:5",
      "dl_src: \"001:1:2:3:4:5\" is not an Ethernet address (expected "
      "xx:xx:xx:xx:xx:xx, optionally /mask)" },
    { "dl_dst=01:00:00:00:00:00/01:00",
      "dl_dst: mask \"01:00\" is not an Ethernet address" },
    { "dl_type=0x10000",
      "dl_type: \"0x10000\" is out of range (0 to 0xffff)" },
    { "tun_id=0x1000000",
      "tun_id: \"0x1000000\" is out of range (0 to 0xffffff)" },
    { "dl_type=0x0800/0xffff",
      "dl_type does not take a mask (\"0x0800/0xffff\")" },
    { "dl_type=ip", "dl_type: \"ip\" is not a number" },
    { "dl_vlan=4096",
      "dl_vlan: \"4096\" is out of range (0 to 4095, or 0xffff for no VLAN "
      "tag)" },
    { "dl_vlan=-1", "dl_vlan: \"-1\" is not a number" },
    { "dl_vlan_pcp=8", "dl_vlan_pcp: \"8\" is out of range (0 to 7)" },
    { "vlan_tci=0x1000/0x10000",
      "vlan_tci: mask \"0x10000\" has bits outside the 16-bit field" },
    { "ipv6,ipv6_label=0x100000",
      "ipv6_label: \"0x100000\" is out of range (0 to 0xfffff)" },
    { "ipv6,ipv6_label=1/0x1fffff",
      "ipv6_label: mask \"0x1fffff\" has bits outside the 20-bit field" },
    { "tcp,tp_src=65536", "tp_src: \"65536\" is out of range (0 to 65535)" },
    { "tcp,tp_src=99999999999",
      "tp_src: \"99999999999\" is out of range (0 to 65535)" },
    { "tcp,tp_src=80/0x10000",
      "tp_src: mask \"0x10000\" has bits outside the 16-bit field" },
    { "tcp,tp_dst=80)", "tp_dst: \"80)\" is not a number" },
    { "tcp,tp_dst=80/", "tp_dst: mask \"\" is not a number" },
    { "tcp,tp_dst=0x", "tp_dst: \"0x\" is not a number" },
    { "tcp,tp_dst=080",
      "tp_dst: \"080\" has a leading zero (Open vSwitch reads that as "
      "octal): write it without the zero or in 0x hex" },
    { "ip,nw_ttl=256", "nw_ttl: \"256\" is out of range (0 to 255)" },
    { "ip,nw_ttl=64/0xff", "nw_ttl does not take a mask (\"64/0xff\")" },
    { "ip,nw_tos=1",
      "nw_tos: \"1\" has ECN bits set: nw_tos takes the DSCP bits of the "
      "TOS byte (a multiple of 4); use nw_ecn for the low 2 bits" },
    { "ip,ip_dscp=64", "ip_dscp: \"64\" is out of range (0 to 63)" },
    { "ip,nw_ecn=4", "nw_ecn: \"4\" is out of range (0 to 3)" },
    { "ip,nw_frag=maybe",
      "nw_frag: \"maybe\" is not a fragment type (expected no, yes, first, "
      "later or not_later)" },
    { "tcp,tcp_flags=+syn+foo",
      "tcp_flags: \"+syn+foo\": unknown flag \"foo\" (expected fin, syn, "
      "rst, psh, ack, urg, ece, cwr, ns, [200], [400] or [800])" },
    { "tcp,tcp_flags=syn|foo",
      "tcp_flags: \"syn|foo\": unknown flag \"foo\" (expected fin, syn, "
      "rst, psh, ack, urg, ece, cwr, ns, [200], [400] or [800])" },
    { "tcp,tcp_flags=+syn+syn",
      "tcp_flags: \"+syn+syn\": flag \"syn\" is given twice" },
    { "tcp,tcp_flags=+syn-",
      "tcp_flags: \"+syn-\": a flag name must follow '-'" },
    { "tcp,tcp_flags=0x1000",
      "tcp_flags: \"0x1000\" is out of range (0 to 0xfff)" },
    { "tcp,tcp_flags=0x2/0x1002",
      "tcp_flags: mask \"0x1002\" has bits outside the 12-bit field" },
    { "icmp,icmp_type=256", "icmp_type: \"256\" is out of range (0 to 255)" },
    { "arp,arp_op=256", "arp_op: \"256\" is out of range (0 to 255)" },
    { "in_port=p9", "in_port: unknown port \"p9\"" },
    { "in_port=70000", "in_port: \"70000\" is out of range (0 to 65535)" },
    { "in_port=1/1", "in_port does not take a mask (\"1/1\")" },

    /* Prerequisites. */
    { "tp_dst=80",
      "tp_dst requires a protocol: add tcp, udp or sctp (or tcp6, udp6, "
      "sctp6)" },
    { "ip,tp_src=80",
      "tp_src requires a protocol: add tcp, udp or sctp (or tcp6, udp6, "
      "sctp6)" },
    { "icmp,tp_dst=80",
      "tp_dst requires a protocol: add tcp, udp or sctp (or tcp6, udp6, "
      "sctp6)" },
    { "tcp,udp_src=53", "udp_src requires UDP: add udp or udp6" },
    { "udp,tcp_dst=22", "tcp_dst requires TCP: add tcp or tcp6" },
    { "tcp,sctp_dst=22", "sctp_dst requires SCTP: add sctp or sctp6" },
    { "udp,tcp_flags=syn", "tcp_flags requires TCP: add tcp or tcp6" },
    { "nw_src=1.2.3.4",
      "nw_src requires IPv4 or ARP: add ip or arp (or dl_type=0x0800 or "
      "0x0806); for IPv6 use ipv6_src or ipv6_dst" },
    { "ipv6,nw_dst=1.2.3.4",
      "nw_dst requires IPv4 or ARP: add ip or arp (or dl_type=0x0800 or "
      "0x0806); for IPv6 use ipv6_src or ipv6_dst" },
    { "ipv6_src=::1", "ipv6_src requires IPv6: add ipv6 (or dl_type=0x86dd)" },
    { "ip,ipv6_dst=::1",
      "ipv6_dst requires IPv6: add ipv6 (or dl_type=0x86dd)" },
    { "ip,ipv6_label=1",
      "ipv6_label requires IPv6: add ipv6 (or dl_type=0x86dd)" },
    { "ip,arp_spa=1.1.1.1",
      "arp_spa requires ARP: add arp (or dl_type=0x0806)" },
    { "arp_sha=00:00:00:00:00:01",
      "arp_sha requires ARP: add arp (or dl_type=0x0806)" },
    { "ip,arp_op=1", "arp_op requires ARP: add arp (or dl_type=0x0806)" },
    { "nw_ttl=5", "nw_ttl requires IP: add ip or ipv6 (or dl_type=0x0800 or "
      "0x86dd)" },
    { "arp,nw_tos=4", "nw_tos requires IP: add ip or ipv6 (or "
      "dl_type=0x0800 or 0x86dd)" },
    { "arp,nw_frag=no", "nw_frag requires IP: add ip or ipv6 (or "
      "dl_type=0x0800 or 0x86dd)" },
    { "nw_proto=6", "nw_proto requires IP or ARP: add ip, ipv6 or arp" },
    { "icmp_type=8", "icmp_type requires ICMP: add icmp (or icmp6)" },
    { "tcp,icmp_code=0", "icmp_code requires ICMP: add icmp (or icmp6)" },
    { "icmp,icmpv6_type=128", "icmpv6_type requires ICMPv6: add icmp6" },
    { "icmp6,nd_target=::1",
      "nd_target requires a neighbor discovery message: add "
      "icmp6,icmpv6_type=135 (solicitation) or 136 (advertisement), with "
      "icmpv6_code 0 or unset" },
    { "icmp6,icmpv6_type=128,nd_target=::1",
      "nd_target requires a neighbor discovery message: add "
      "icmp6,icmpv6_type=135 (solicitation) or 136 (advertisement), with "
      "icmpv6_code 0 or unset" },
    { "icmp6,icmpv6_type=135,icmpv6_code=1,nd_sll=00:00:00:00:00:01",
      "nd_sll requires a neighbor discovery message: add "
      "icmp6,icmpv6_type=135 (solicitation) or 136 (advertisement), with "
      "icmpv6_code 0 or unset" },
    { "icmp,icmp_type=135,nd_tll=00:00:00:00:00:01",
      "nd_tll requires a neighbor discovery message: add "
      "icmp6,icmpv6_type=135 (solicitation) or 136 (advertisement), with "
      "icmpv6_code 0 or unset" },
    { "vlan_tci1=0x1001",
      "vlan_tci1 requires an outer VLAN tag: add dl_vlan=VID or "
      "vlan_tci=0x1000/0x1000" },
    { "dl_vlan=0xffff,vlan_tci1=0x1001",
      "vlan_tci1 requires an outer VLAN tag: add dl_vlan=VID or "
      "vlan_tci=0x1000/0x1000" },

    /* Fields given twice, and items that contradict each other. */
    { "ip,nw_src=1.1.1.1,nw_src=2.2.2.2",
      "nw_src given twice with different values (\"1.1.1.1\" and "
      "\"2.2.2.2\")" },
    { "ip,nw_src=10.0.0.0/8,ip_src=10.0.0.0/16",
      "nw_src given twice with different values (\"10.0.0.0/8\" and "
      "\"10.0.0.0/16\")" },
    { "ip,nw_src=*,nw_src=1.1.1.1",
      "nw_src given twice with different values (\"*\" and \"1.1.1.1\")" },
    { "tcp,tp_dst=80,tp_dst=0x50/0xfff0",
      "tp_dst given twice with different values (\"80\" and "
      "\"0x50/0xfff0\")" },
    { "tcp,udp", "udp conflicts with tcp" },
    { "ip,ipv6", "ipv6 conflicts with ip" },
    { "ip,dl_type=0x86dd", "dl_type=0x86dd conflicts with ip" },
    { "tcp,nw_proto=17", "nw_proto=17 conflicts with tcp" },
    { "dl_vlan=0xffff,dl_vlan_pcp=3",
      "dl_vlan_pcp=3 conflicts with dl_vlan=0xffff" },
    { "dl_vlan=5,vlan_tci=0x0000",
      "vlan_tci=0x0000 conflicts with dl_vlan=5" },
    { "tcp,tp_src=80,tcp_src=81", "tcp_src=81 conflicts with tp_src=80" },
    { "ip,nw_tos=4,ip_dscp=2", "ip_dscp=2 conflicts with nw_tos=4" },
    { "arp,nw_proto=1,arp_op=2", "arp_op=2 conflicts with nw_proto=1" },
    { "icmp6,icmp_type=135,icmpv6_type=136",
      "icmpv6_type=136 conflicts with icmp_type=135" },
};

static int lookup_aux;

/* The test's port names: "p1" is port 0, "p2" port 1. */
static bool
test_lookup(const char *name, uint16_t *port_no, void *aux)
{
    CHECK(aux == &lookup_aux, "lookup got aux %p", aux);
    if (!strcmp(name, "p1")) {
        *port_no = 0;
        return true;
    } else if (!strcmp(name, "p2")) {
        *port_no = 1;
        return true;
    }
    return false;
}

static bool
flow_equal(const struct flow *a, const struct flow *b)
{
    return !memcmp(a, b, sizeof *a);
}

/* Checks 'flow' and 'mask' against 'want_flow' and 'want_mask', printing
 * both sides on a mismatch. */
static void
check_match_at(const char *file, int line, const char *text,
               const struct flow *flow, const struct flow *mask,
               const struct flow *want_flow, const struct flow *want_mask)
{
    bool ok = flow_equal(flow, want_flow) && flow_equal(mask, want_mask);
    char got[1024], want[1024];

    CHECK_AT(file, line, ok, "\"%s\":\n  got  %s\n  want %s", text,
             flow_format(flow, mask, got, sizeof got),
             flow_format(want_flow, want_mask, want, sizeof want));
}

#define CHECK_MATCH(TEXT, FLOW, MASK, WANT_FLOW, WANT_MASK)             \
    check_match_at(__FILE__, __LINE__, TEXT, FLOW, MASK, WANT_FLOW,     \
                   WANT_MASK)

/* Each good row parses to its flow and mask, formats as given, and its
 * formatted text parses back to the same flow and mask. */
static void
test_good(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(good_cases); i++) {
        const struct good_case *c = &good_cases[i];
        struct flow flow, mask, flow2, mask2;
        char formatted[1024];
        char *error;

        check_set_context("good row %zu \"%s\"", i, c->text);
        error = match_parse(c->text, test_lookup, &lookup_aux, &flow,
                            &mask);
        CHECK(!error, "unexpected error: %s", error);
        if (error) {
            free(error);
            continue;
        }
        CHECK_MATCH(c->text, &flow, &mask, &c->flow, &c->mask);

        flow_format(&flow, &mask, formatted, sizeof formatted);
        if (c->formatted) {
            CHECK_STR(formatted, c->formatted);
        }

        /* The round trip. */
        error = match_parse(formatted, test_lookup, &lookup_aux, &flow2,
                            &mask2);
        CHECK(!error, "\"%s\" does not parse back: %s", formatted, error);
        if (!error) {
            CHECK_MATCH(formatted, &flow2, &mask2, &flow, &mask);
        }
        free(error);
    }
    check_set_context("%s", "");
}

/* Each bad row fails with its exact message and leaves 'flow' and 'mask'
 * zeroed. */
static void
test_bad(void)
{
    static const struct flow zero;

    for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
        const struct bad_case *c = &bad_cases[i];
        struct flow flow, mask;
        char *error;

        check_set_context("bad row %zu \"%s\"", i, c->text);
        memset(&flow, 0xa5, sizeof flow);
        memset(&mask, 0x5a, sizeof mask);
        error = match_parse(c->text, test_lookup, &lookup_aux, &flow,
                            &mask);
        CHECK_STR(error, c->error);
        CHECK(flow_equal(&flow, &zero) && flow_equal(&mask, &zero),
              "flow or mask not zeroed after an error");
        free(error);
    }
    check_set_context("%s", "");
}

/* Without a lookup function only numbers name ports. */
static void
test_no_lookup(void)
{
    struct flow flow, mask;
    char *error;

    error = match_parse("in_port=3", NULL, NULL, &flow, &mask);
    CHECK_STR(error, NULL);
    CHECK_INT(flow.in_port, 3);
    CHECK_INT(mask.in_port, 0xffff);
    free(error);

    error = match_parse("in_port=p1", NULL, NULL, &flow, &mask);
    CHECK_STR(error, "in_port: \"p1\" is not a port number (0 to 65535), "
              "and port names are not known here");
    free(error);
}

/* Exact flows, as miniflow_extract() fills them and dpctl/dump-flows
 * prints them with flow_format(flow, NULL), parse back to the same flow
 * with the same exact mask, so that a dumped flow can be traced. */
static void
test_exact_flows(void)
{
    static const struct flow flows[] = {
        /* TCP over IPv4 in a VLAN. */
        { .in_port = 3, .dl_src = ETH(2, 0, 0, 0, 0, 1),
          .dl_dst = ETH(2, 0, 0, 0, 0, 2), T_IP,
          .vlans_tci = { BE16(0x1000 | (3 << 13) | 42) },
          .nw_src = IP4(192, 0, 2, 1), .nw_dst = IP4(198, 51, 100, 7),
          .nw_tos = 0xb9, .nw_ttl = 63, P(6), .tp_src = BE16(40000),
          .tp_dst = BE16(443), .tcp_flags = BE16(TCP_SYN | TCP_ACK) },
        /* A later IPv4 fragment of UDP: no ports. */
        { .in_port = 0, T_IP, .nw_src = IP4(10, 0, 0, 1),
          .nw_dst = IP4(10, 0, 0, 2), .nw_frag = FRAG_AL, .nw_ttl = 1,
          P(17) },
        /* ICMP echo. */
        { .in_port = 1, T_IP, .nw_src = IP4(10, 0, 0, 1),
          .nw_dst = IP4(10, 0, 0, 2), .nw_ttl = 64, P(1),
          .tp_src = BE16(8) },
        /* ICMPv6 neighbor solicitation with a source link-layer
         * option. */
        { .in_port = 2, .dl_src = ETH(2, 0, 0, 0, 0, 1),
          .dl_dst = ETH(0x33, 0x33, 0xff, 0, 0, 2), T_IP6,
          .ipv6_src = IN6(0xfe, 0x80, [15] = 1),
          .ipv6_dst = IN6(0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 2),
          .nw_ttl = 255, P(58), .tp_src = BE16(135),
          .nd_target = IN6(0xfe, 0x80, [15] = 2),
          .arp_sha = ETH(2, 0, 0, 0, 0, 1) },
        /* UDP over IPv6 with a flow label. */
        { .in_port = 4, T_IP6, .ipv6_src = IN6(0x20, 0x01, [15] = 1),
          .ipv6_dst = IN6(0x20, 0x01, [15] = 2),
          .ipv6_label = BE32(0xabcde), .nw_ttl = 64, P(17),
          .tp_src = BE16(546), .tp_dst = BE16(547) },
        /* ARP request. */
        { .in_port = 5, .dl_src = ETH(2, 0, 0, 0, 0, 1), .dl_dst = ETH_ONES,
          T_ARP, .nw_src = IP4(10, 0, 0, 1), .nw_dst = IP4(10, 0, 0, 9),
          P(ARP_OP_REQUEST), .arp_sha = ETH(2, 0, 0, 0, 0, 1) },
        /* Double tagged, not IP.  TPIDs are not printed, so none here. */
        { .in_port = 6, .vlans_tci = { BE16(0x1064), BE16(0x1005) },
          .dl_type = BE16(0x88cc) },
        /* Not Ethernet II. */
        { .in_port = 7, .dl_type = BE16(FLOW_DL_TYPE_NONE) },
    };

    for (size_t i = 0; i < ARRAY_SIZE(flows); i++) {
        char text[1024], again[1024];
        struct flow flow, mask;
        char *error;

        check_set_context("exact flow %zu", i);
        flow_format(&flows[i], NULL, text, sizeof text);
        error = match_parse(text, NULL, NULL, &flow, &mask);
        CHECK(!error, "\"%s\" does not parse: %s", text, error);
        free(error);
        if (error) {
            continue;
        }
        CHECK(flow_equal(&flow, &flows[i]), "\"%s\" parsed as \"%s\"",
              text, flow_format(&flow, NULL, again, sizeof again));
        /* The parsed mask is the exact mask flow_format() assumed. */
        CHECK_STR(flow_format(&flow, &mask, again, sizeof again), text);
    }
    check_set_context("%s", "");
}

/* A long match of repeated agreeing items grows the item array. */
static void
test_many_items(void)
{
    struct flow flow, mask;
    size_t size = 100 * sizeof "tcp," + sizeof "tp_dst=7";
    char *text = xmalloc(size);
    char *error;

    text[0] = '\0';
    for (int i = 0; i < 100; i++) {
        strcat(text, "tcp,");
    }
    strcat(text, "tp_dst=7");
    error = match_parse(text, NULL, NULL, &flow, &mask);
    CHECK_STR(error, NULL);
    CHECK_INT(ntohs(flow.tp_dst), 7);
    CHECK_INT(flow.nw_proto, IP_PROTO_TCP);
    free(error);
    free(text);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "good", test_good },
        { "bad", test_bad },
        { "no_lookup", test_no_lookup },
        { "exact_flows", test_exact_flows },
        { "many_items", test_many_items },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-match-parse");
}
