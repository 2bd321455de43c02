/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of flow_compose(): for each flow of a table (Ethernet, VLAN, ARP,
 * IPv4 and IPv6 with TCP, UDP, SCTP, ICMP, ICMPv6 neighbor discovery,
 * fragments, an other ethertype, 802.3), with and without payload, the
 * frame parses back (miniflow_extract()) to the flow under its mask, its
 * lengths are right, and its checksums verify with this file's own
 * arithmetic: the IPv4 header's, TCP's, UDP's and ICMPv6's over the
 * pseudo-header, ICMP's, and SCTP's CRC32c.
 */
#include <autoconf.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ofproto/match-parse.h"
#include "packet/dp-packet.h"
#include "packet/flow.h"
#include "packet/flow-compose.h"
#include "packet/miniflow.h"
#include "packet/packets.h"
#include "check.h"

/* The ones' complement sum of 'size' bytes at 'p', folded, added to
 * 'sum'. */
static uint32_t
sum16(uint32_t sum, const uint8_t *p, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        sum += i % 2 ? p[i] : p[i] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* CRC32c bit by bit, as RFC 3720 defines it. */
static uint32_t
crc32c_bitwise(const uint8_t *p, size_t size)
{
    uint32_t crc = 0xffffffff;

    for (size_t i = 0; i < size; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
        }
    }
    return ~crc;
}

static uint16_t
get16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

/* Checks the L4 checksum of the 'l4_size' bytes at 'l4' of 'flow', whose
 * IP header starts at 'l3'. */
static void
check_l4(const char *name, const struct flow *flow, const uint8_t *l3,
         const uint8_t *l4, size_t l4_size)
{
    bool v6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    uint32_t pseudo = 0;
    uint8_t len_proto[8] = { 0 };

    if (flow->nw_proto == IP_PROTO_SCTP) {
        uint8_t copy[FLOW_COMPOSE_MAX + 200];
        uint32_t crc;

        memcpy(copy, l4, l4_size);
        memset(copy + 8, 0, 4);
        crc = crc32c_bitwise(copy, l4_size);
        CHECK(l4[8] == (crc & 0xff) && l4[9] == ((crc >> 8) & 0xff)
              && l4[10] == ((crc >> 16) & 0xff) && l4[11] == crc >> 24,
              "%s: SCTP CRC32c", name);
        return;
    }
    if (flow->nw_proto != IP_PROTO_ICMP) {
        pseudo = v6 ? sum16(sum16(0, l3 + 8, 16), l3 + 24, 16)
                    : sum16(0, l3 + 12, 8);
        len_proto[2] = l4_size >> 8;
        len_proto[3] = l4_size & 0xff;
        len_proto[7] = flow->nw_proto;
        pseudo = sum16(pseudo, len_proto, 8);
    }
    CHECK_INT(sum16(pseudo, l4, l4_size), 0xffff);
}

struct compose_case {
    const char *flow;           /* In the match syntax. */
    size_t payload;             /* Bytes of zeros after the last header. */
    size_t l4_size;             /* Expected L4 size (0: no L4 to check). */
};

static const struct compose_case cases[] = {
    { "dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,ip,"
      "nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_ttl=64,udp,tp_src=1,tp_dst=53",
      0, 8 },
    { "ip,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_ttl=64,udp,tp_src=1,"
      "tp_dst=53", 101, 109 },
    { "dl_vlan=10,ip,nw_src=1.2.3.4,nw_dst=5.6.7.8,nw_tos=8,nw_ttl=3,"
      "tcp,tp_src=80,tp_dst=1234,tcp_flags=syn|ack", 0, 20 },
    { "dl_vlan=10,ip,nw_src=1.2.3.4,nw_dst=5.6.7.8,nw_ttl=3,tcp,"
      "tp_src=80,tp_dst=1234", 1000, 1020 },
    { "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,icmp,icmp_type=8,"
      "icmp_code=0", 0, 8 },
    { "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,sctp,tp_src=7,tp_dst=9",
      0, 12 },
    { "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,sctp,tp_src=7,tp_dst=9",
      37, 49 },
    { "arp,arp_op=1,arp_spa=10.0.0.1,arp_tpa=10.0.0.2,"
      "arp_sha=00:00:00:00:00:01", 0, 0 },
    { "ipv6,ipv6_src=fe80::1,ipv6_dst=fe80::2,nw_ttl=255,udp6,tp_src=5,"
      "tp_dst=6", 0, 8 },
    { "ipv6,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,nw_ttl=64,tcp6,"
      "tp_src=5,tp_dst=6", 64, 84 },
    { "ipv6,ipv6_src=::1,ipv6_dst=::2,nw_ttl=255,icmp6,icmpv6_type=135,"
      "icmpv6_code=0,nd_target=fe80::9,nd_sll=00:00:00:00:00:07", 0, 32 },
    { "ipv6,ipv6_src=::1,ipv6_dst=::2,nw_ttl=255,icmp6,icmpv6_type=136,"
      "icmpv6_code=0,nd_target=fe80::9,nd_tll=00:00:00:00:00:08", 0, 32 },
    { "ipv6,ipv6_src=::1,ipv6_dst=::2,nw_ttl=1,sctp6,tp_src=1,tp_dst=2",
      0, 12 },
    { "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,nw_frag=first,udp,"
      "tp_src=1,tp_dst=2", 0, 8 },
    { "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,nw_frag=later,udp", 0, 0 },
    /* A later IPv6 fragment parses with nw_proto 44, the Fragment header,
     * as in OVS: a flow with another nw_proto would not parse back. */
    { "ipv6,ipv6_src=::1,ipv6_dst=::2,nw_ttl=9,nw_frag=later,nw_proto=44",
      0, 0 },
    { "dl_type=0x88cc", 0, 0 },
    { "dl_type=0x05ff", 0, 0 },     /* 802.3: no ethertype, as OVS. */
};

static void
test_case(const struct compose_case *c)
{
    uint8_t buf[FLOW_COMPOSE_MAX + 1024];
    struct netdev_flow_key key;
    struct flow flow, mask, got;
    struct dp_packet p;
    size_t n, l3, l4;
    char *error;

    error = match_parse(c->flow, NULL, NULL, &flow, &mask);
    CHECK(!error, "%s: %s", c->flow, error ? error : "");
    free(error);
    if (error) {
        return;
    }
    n = flow_compose(&flow, c->payload, buf, sizeof buf);
    CHECK(n >= 60, "%s: %zu bytes, under the minimum frame", c->flow, n);

    /* Parses back to the flow under its mask. */
    dp_packet_init(&p, buf, n, 0);
    miniflow_extract(&p, &key);
    miniflow_expand(&key.mf, &got);
    for (size_t w = 0; w < FLOW_U64S; w++) {
        uint64_t m = ((const uint64_t *) &mask)[w];

        CHECK(!((((const uint64_t *) &flow)[w]
                 ^ ((const uint64_t *) &got)[w]) & m),
              "%s: word %zu differs", c->flow, w);
    }

    l3 = 14 + (ntohs(flow.vlans_tci[0]) & VLAN_CFI ? 4 : 0);
    if (flow.dl_type == htons(ETH_TYPE_IP)) {
        CHECK_INT(sum16(0, buf + l3, IP_HEADER_LEN), 0xffff);
        CHECK_INT(get16(buf + l3 + 2), IP_HEADER_LEN + (c->l4_size
                                                       ? c->l4_size
                                                       : c->payload));
        l4 = l3 + IP_HEADER_LEN;
    } else if (flow.dl_type == htons(ETH_TYPE_IPV6)) {
        size_t ext = flow.nw_frag ? IPV6_FRAG_HEADER_LEN : 0;

        CHECK_INT(get16(buf + l3 + 4), ext + (c->l4_size ? c->l4_size
                                                         : c->payload));
        l4 = l3 + IPV6_HEADER_LEN + ext;
    } else {
        return;
    }
    if (c->l4_size) {
        CHECK(n >= l4 + c->l4_size, "%s: %zu bytes, L4 of %zu cut", c->flow,
              n, c->l4_size);
        if (flow.nw_proto == IP_PROTO_UDP) {
            CHECK_INT(get16(buf + l4 + 4), c->l4_size);
        }
        check_l4(c->flow, &flow, buf + l3, buf + l4, c->l4_size);
    }
}

int
main(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        check_set_context("%s +%zu", cases[i].flow, cases[i].payload);
        test_case(&cases[i]);
    }
    return check_finish("test-flow-compose");
}
