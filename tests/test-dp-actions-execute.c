/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of the datapath action executor and formatter (dp-actions-execute.c,
 * dp-actions-format.c): each modification on crafted frames (untagged, tagged and
 * double-tagged; IPv4 and IPv6 with TCP, UDP, SCTP and ICMP; fragments,
 * truncated frames, checksum-partial and GSO frames), checked by computing
 * every checksum again from scratch with code of this file's own and by
 * comparing the frame byte by byte with the original; the copy-on-write
 * executor on a PMD driven by hand; and the text and JSON forms.
 */
#include <autoconf.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <jansson.h>

#include "check.h"
#include "dp/dp.h"
#include "packet/crc32c.h"
#include "packet/dp-packet.h"
#include "classifier/dp-flow.h"
#include "dp/dp-actions-execute.h"
#include "packet/dp-actions-format.h"
#include "packet/packets.h"
#include "dp/pmd.h"
#include "base/rcu.h"
#include "base/util.h"

/* Crafted frames. */

enum frag {
    FRAG_NONE,
    FRAG_FIRST,                 /* MF set, offset 0. */
    FRAG_LATER,                 /* Offset 16 bytes. */
};

struct spec {
    const char *name;
    int n_tags;                 /* 0, 1 (802.1Q) or 2 (802.1ad + 802.1Q). */
    uint16_t l3;                /* ETH_TYPE_IP, ETH_TYPE_IPV6, ETH_TYPE_ARP. */
    uint8_t proto;              /* IP_PROTO_*. */
    enum frag frag;
    bool udp_zero;              /* UDP checksum 0: none. */
    bool partial;               /* Checksum-partial (vnet NEEDS_CSUM). */
    bool gso;                   /* GSO metadata too. */
    bool bad_ihl;               /* IPv4 IHL of 4. */
    uint32_t pad;               /* Zero bytes after the IP packet. */
    uint32_t cut;               /* Frame cut to this size, if nonzero. */
};

#define FRAME_BUF 512

struct frame {
    uint8_t buf[FRAME_BUF];
    struct dp_packet p;
    uint32_t l3;                /* Offsets as built. */
    uint32_t l4;
};

static const struct eth_addr mac_dst = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct eth_addr mac_src = { { 0x02, 0, 0, 0, 0, 0x01 } };

static void
put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static uint16_t
get16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

/* Sum of big-endian 16-bit words, the last byte padded. */
static uint32_t
sum_be(const uint8_t *b, size_t n)
{
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < n; i += 2) {
        sum += get16(b + i);
    }
    if (n & 1) {
        sum += b[n - 1] << 8;
    }
    return sum;
}

static uint16_t
fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* Bit by bit, unlike the table in dp-actions-execute.c. */
static uint32_t
crc32c_slow(const uint8_t *b, size_t n)
{
    uint32_t crc = 0xffffffff;

    for (size_t i = 0; i < n; i++) {
        crc ^= b[i];
        for (int k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (crc & 1 ? 0x82f63b78 : 0);
        }
    }
    return ~crc;
}

/* Pseudo-header sum of the IP header at 'ip' for 'l4_size' bytes. */
static uint32_t
pseudo_sum(const uint8_t *ip, uint8_t proto, uint32_t l4_size)
{
    if (ip[0] >> 4 == 4) {
        return sum_be(ip + 12, 8) + proto + l4_size;
    }
    return sum_be(ip + 8, 32) + proto + (l4_size >> 16) + (l4_size & 0xffff);
}

static uint32_t
l4_size_of(uint8_t proto)
{
    switch (proto) {
    case IP_PROTO_TCP:
        return TCP_HEADER_LEN + 12;
    case IP_PROTO_UDP:
        return UDP_HEADER_LEN + 12;
    case IP_PROTO_SCTP:
        return SCTP_HEADER_LEN + 20;
    default:
        return ICMP_HEADER_LEN + 12;
    }
}

/* Offset of the checksum in transport header 'proto'. */
static uint32_t
l4_csum_ofs(uint8_t proto)
{
    switch (proto) {
    case IP_PROTO_TCP:
        return 16;
    case IP_PROTO_UDP:
        return 6;
    case IP_PROTO_SCTP:
        return 8;
    default:
        return 2;
    }
}

/* Builds the frame 's' describes into 'f'. */
static struct dp_packet *
build(struct frame *f, const struct spec *s)
{
    uint8_t *d = f->buf + DP_PACKET_HEADROOM;
    uint32_t l4_size = l4_size_of(s->proto);
    uint32_t ofs = 12, size;
    uint8_t *ip, *l4;

    memset(f->buf, 0, sizeof f->buf);
    memcpy(d, mac_dst.ea, 6);
    memcpy(d + 6, mac_src.ea, 6);
    for (int t = 0; t < s->n_tags; t++) {
        bool outer_ad = s->n_tags == 2 && t == 0;

        put16(d + ofs, outer_ad ? ETH_TYPE_VLAN_8021AD : ETH_TYPE_VLAN_8021Q);
        put16(d + ofs + 2, (t ? 200 : 100) | (3 << VLAN_PCP_SHIFT));
        ofs += 4;
    }
    put16(d + ofs, s->l3);
    f->l3 = ofs + 2;
    ip = d + f->l3;
    if (s->l3 == ETH_TYPE_ARP) {
        for (int i = 0; i < ARP_ETH_HEADER_LEN; i++) {
            ip[i] = i;
        }
        f->l4 = f->l3 + ARP_ETH_HEADER_LEN;
        size = f->l4;
        goto done;
    }
    if (s->l3 == ETH_TYPE_IP) {
        uint16_t frag = (s->frag == FRAG_NONE ? IP_DONT_FRAGMENT
                         : s->frag == FRAG_FIRST ? IP_MORE_FRAGMENTS
                         : IP_MORE_FRAGMENTS | 2);

        ip[0] = s->bad_ihl ? 0x44 : 0x45;
        put16(ip + 2, IP_HEADER_LEN + l4_size);
        put16(ip + 4, 0x1234);
        put16(ip + 6, frag);
        ip[8] = 64;
        ip[9] = s->proto;
        memcpy(ip + 12, (uint8_t[]) { 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
        put16(ip + 10, ~fold(sum_be(ip, IP_HEADER_LEN)));
        f->l4 = f->l3 + IP_HEADER_LEN;
    } else {
        ip[0] = 0x60;
        put16(ip + 4, l4_size);
        ip[6] = s->proto;
        ip[7] = 64;
        ip[8] = 0xfe;
        ip[9] = 0x80;
        ip[23] = 1;
        ip[24] = 0xfe;
        ip[25] = 0x80;
        ip[39] = 2;
        f->l4 = f->l3 + IPV6_HEADER_LEN;
    }
    l4 = d + f->l4;
    for (uint32_t i = 0; i < l4_size; i++) {
        l4[i] = i * 7 + 3;
    }
    switch (s->proto) {
    case IP_PROTO_TCP:
        put16(l4, 1000);
        put16(l4 + 2, 80);
        put16(l4 + 12, 5 << 12 | TCP_ACK);
        break;
    case IP_PROTO_UDP:
        put16(l4, 1000);
        put16(l4 + 2, 53);
        put16(l4 + 4, l4_size);
        break;
    case IP_PROTO_SCTP:
        put16(l4, 1000);
        put16(l4 + 2, 80);
        break;
    default:
        l4[0] = 8;
        l4[1] = 0;
        break;
    }
    memset(l4 + l4_csum_ofs(s->proto), 0,
           s->proto == IP_PROTO_SCTP ? 4 : 2);
    if (s->proto == IP_PROTO_SCTP) {
        uint32_t crc = s->partial ? 0 : crc32c_slow(l4, l4_size);

        for (int i = 0; i < 4; i++) {
            l4[8 + i] = crc >> (8 * i);
        }
    } else if (s->proto == IP_PROTO_TCP || s->proto == IP_PROTO_UDP) {
        uint32_t psum = pseudo_sum(ip, s->proto, l4_size);
        uint16_t csum = (s->partial ? fold(psum)
                         : (uint16_t) ~fold(psum + sum_be(l4, l4_size)));

        if (s->proto == IP_PROTO_UDP && !s->partial && !csum) {
            csum = 0xffff;
        }
        put16(l4 + l4_csum_ofs(s->proto), s->udp_zero ? 0 : csum);
    } else {
        put16(l4 + 2, ~fold(sum_be(l4, l4_size)));
    }
    size = f->l4 + l4_size + s->pad;

done:
    dp_packet_init(&f->p, d, s->cut ? s->cut : size, 0);
    if (s->partial || s->gso) {
        f->p.flags |= DP_PACKET_F_VNET;
        memset(&f->p.vnet, 0, sizeof f->p.vnet);
    }
    if (s->partial) {
        f->p.vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
        f->p.vnet.csum_start = f->l4;
        f->p.vnet.csum_offset = l4_csum_ofs(s->proto);
    }
    if (s->gso) {
        f->p.vnet.gso_type = (s->l3 == ETH_TYPE_IP ? VIRTIO_NET_HDR_GSO_TCPV4
                              : VIRTIO_NET_HDR_GSO_TCPV6);
        f->p.vnet.gso_size = 1400;
        f->p.vnet.hdr_len = f->l4 + TCP_HEADER_LEN;
    }
    return &f->p;
}

/* Checks every checksum of 'p' that its bytes allow, from scratch.
 * 'what' names the case in failure messages. */
static void
verify_checksums(const struct dp_packet *p, const char *what)
{
    const uint8_t *d = p->data;
    uint32_t ofs = 12, l3, l4, end;
    uint16_t type;
    uint8_t proto;
    bool later = false;

    for (;;) {
        if (p->size < ofs + 2) {
            return;
        }
        type = get16(d + ofs);
        if (type != ETH_TYPE_VLAN_8021Q && type != ETH_TYPE_VLAN_8021AD) {
            break;
        }
        ofs += 4;
    }
    l3 = ofs + 2;
    if (type == ETH_TYPE_IP) {
        if (p->size < l3 + IP_HEADER_LEN || (d[l3] & 0xf) != 5) {
            return;
        }
        CHECK(fold(sum_be(d + l3, IP_HEADER_LEN)) == 0xffff,
              "%s: bad IPv4 header checksum 0x%04x", what,
              get16(d + l3 + 10));
        l4 = l3 + IP_HEADER_LEN;
        end = l3 + get16(d + l3 + 2);
        proto = d[l3 + 9];
        later = (get16(d + l3 + 6) & IP_FRAG_OFF_MASK) != 0;
    } else if (type == ETH_TYPE_IPV6) {
        if (p->size < l3 + IPV6_HEADER_LEN) {
            return;
        }
        l4 = l3 + IPV6_HEADER_LEN;
        end = l4 + get16(d + l3 + 4);
        proto = d[l3 + 6];
    } else {
        return;
    }
    if (later || end > p->size) {
        return;
    }

    bool partial = ((p->flags & DP_PACKET_F_VNET)
                    && (p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM));
    uint16_t field = get16(d + l4 + l4_csum_ofs(proto));

    if (partial) {
        CHECK(p->vnet.csum_start == l4, "%s: csum_start %u, L4 at %u",
              what, p->vnet.csum_start, l4);
        CHECK(p->vnet.csum_offset == l4_csum_ofs(proto),
              "%s: csum_offset %u", what, p->vnet.csum_offset);
    }
    if (proto == IP_PROTO_TCP || proto == IP_PROTO_UDP) {
        uint32_t psum = pseudo_sum(d + l3, proto, end - l4);

        if (partial) {
            CHECK(field == fold(psum), "%s: partial sum 0x%04x, "
                  "expected 0x%04x", what, field, fold(psum));
        } else if (proto == IP_PROTO_UDP && !field) {
            /* No checksum. */
        } else {
            CHECK(fold(psum + sum_be(d + l4, end - l4)) == 0xffff,
                  "%s: bad L4 checksum 0x%04x", what, field);
        }
    } else if (proto == IP_PROTO_SCTP && !partial) {
        uint8_t copy[FRAME_BUF];
        uint32_t crc, stored = 0;

        memcpy(copy, d + l4, end - l4);
        for (int i = 0; i < 4; i++) {
            stored |= (uint32_t) copy[8 + i] << (8 * i);
            copy[8 + i] = 0;
        }
        crc = crc32c_slow(copy, end - l4);
        CHECK(crc == stored, "%s: SCTP CRC 0x%08x, expected 0x%08x",
              what, stored, crc);
    } else if (proto == IP_PROTO_ICMP) {
        CHECK(fold(sum_be(d + l4, end - l4)) == 0xffff,
              "%s: bad ICMP checksum", what);
    }
}

/* The frames the modification tables use. */
enum {
    S_TCP4, S_TCP4_TAG, S_TCP4_QINQ, S_UDP4_TAG, S_UDP4_ZERO, S_UDP4_PAD,
    S_SCTP4, S_TCP6, S_UDP6_TAG, S_SCTP6, S_TCP4_PARTIAL, S_UDP4_PARTIAL,
    S_SCTP4_PARTIAL, S_TCP6_PARTIAL,
    N_COMMON,                   /* Every modification applies above. */
    S_ICMP4 = N_COMMON, S_ARP, S_TCP4_FIRST, S_TCP4_LATER, S_SCTP4_FIRST,
    S_CUT_ETH, S_CUT_IP, S_CUT_TCP, S_CUT_SCTP, S_BAD_IHL,
    N_SPECS
};

static const struct spec specs[N_SPECS] = {
    [S_TCP4] = { "tcp4", 0, ETH_TYPE_IP, IP_PROTO_TCP },
    [S_TCP4_TAG] = { "tcp4-tagged", 1, ETH_TYPE_IP, IP_PROTO_TCP },
    [S_TCP4_QINQ] = { "tcp4-qinq", 2, ETH_TYPE_IP, IP_PROTO_TCP },
    [S_UDP4_TAG] = { "udp4-tagged", 1, ETH_TYPE_IP, IP_PROTO_UDP },
    [S_UDP4_ZERO] = { "udp4-zero-csum", 0, ETH_TYPE_IP, IP_PROTO_UDP,
                      .udp_zero = true },
    [S_UDP4_PAD] = { "udp4-padded", 0, ETH_TYPE_IP, IP_PROTO_UDP,
                     .pad = 6 },
    [S_SCTP4] = { "sctp4", 0, ETH_TYPE_IP, IP_PROTO_SCTP },
    [S_TCP6] = { "tcp6", 0, ETH_TYPE_IPV6, IP_PROTO_TCP },
    [S_UDP6_TAG] = { "udp6-tagged", 1, ETH_TYPE_IPV6, IP_PROTO_UDP },
    [S_SCTP6] = { "sctp6", 2, ETH_TYPE_IPV6, IP_PROTO_SCTP },
    [S_TCP4_PARTIAL] = { "tcp4-partial-gso", 1, ETH_TYPE_IP, IP_PROTO_TCP,
                         .partial = true, .gso = true },
    [S_UDP4_PARTIAL] = { "udp4-partial", 0, ETH_TYPE_IP, IP_PROTO_UDP,
                         .partial = true },
    [S_SCTP4_PARTIAL] = { "sctp4-partial", 0, ETH_TYPE_IP, IP_PROTO_SCTP,
                          .partial = true },
    [S_TCP6_PARTIAL] = { "tcp6-partial-gso", 0, ETH_TYPE_IPV6,
                         IP_PROTO_TCP, .partial = true, .gso = true },
    [S_ICMP4] = { "icmp4", 0, ETH_TYPE_IP, IP_PROTO_ICMP },
    [S_ARP] = { "arp", 1, ETH_TYPE_ARP, 0 },
    [S_TCP4_FIRST] = { "tcp4-first-frag", 0, ETH_TYPE_IP, IP_PROTO_TCP,
                       FRAG_FIRST },
    [S_TCP4_LATER] = { "tcp4-later-frag", 0, ETH_TYPE_IP, IP_PROTO_TCP,
                       FRAG_LATER },
    [S_SCTP4_FIRST] = { "sctp4-first-frag", 0, ETH_TYPE_IP, IP_PROTO_SCTP,
                        FRAG_FIRST },
    [S_CUT_ETH] = { "cut-in-eth", 0, ETH_TYPE_IP, IP_PROTO_TCP,
                    .cut = 13 },
    [S_CUT_IP] = { "cut-in-ipv4", 0, ETH_TYPE_IP, IP_PROTO_TCP,
                   .cut = 14 + 19 },
    [S_CUT_TCP] = { "cut-in-tcp", 0, ETH_TYPE_IP, IP_PROTO_TCP,
                    .cut = 14 + 20 + 17 },
    [S_CUT_SCTP] = { "cut-in-sctp-data", 0, ETH_TYPE_IP, IP_PROTO_SCTP,
                     .cut = 14 + 20 + 16 },
    [S_BAD_IHL] = { "ipv4-ihl-4", 0, ETH_TYPE_IP, IP_PROTO_TCP,
                    .bad_ihl = true },
};

/* A modification with a fixed value per type. */
static struct dp_action
make_set(enum dp_action_type type)
{
    static const struct eth_addr mac = { { 0x0a, 0, 0, 0, 0, 0x01 } };
    struct dp_action a;

    dp_action_init(&a, type);
    switch (type) {
    case DP_ACTION_SET_ETH_SRC:
    case DP_ACTION_SET_ETH_DST:
        a.mac = mac;
        break;
    case DP_ACTION_SET_IPV4_SRC:
        a.ipv4 = htonl(0xc0a80a05);     /* 192.168.10.5 */
        break;
    case DP_ACTION_SET_IPV4_DST:
        a.ipv4 = htonl(0xac100001);     /* 172.16.0.1 */
        break;
    case DP_ACTION_SET_TP_SRC:
        a.tp_port = htons(4321);
        break;
    case DP_ACTION_SET_TP_DST:
        a.tp_port = htons(8080);
        break;
    default:
        break;
    }
    return a;
}

/* Marks in 'allowed' the bytes of 'f' that modification 'a' may change,
 * and returns the offset and size of the field it sets. */
static void
allowed_bytes(const struct frame *f, const struct spec *s,
              const struct dp_action *a, bool allowed[FRAME_BUF],
              uint32_t *field, uint32_t *field_size)
{
    bool l4_csum = s->frag != FRAG_LATER;

    memset(allowed, 0, FRAME_BUF);
    switch (a->type) {
    case DP_ACTION_SET_ETH_DST:
        *field = 0;
        *field_size = 6;
        l4_csum = false;
        break;
    case DP_ACTION_SET_ETH_SRC:
        *field = 6;
        *field_size = 6;
        l4_csum = false;
        break;
    case DP_ACTION_SET_IPV4_SRC:
    case DP_ACTION_SET_IPV4_DST:
        *field = f->l3 + (a->type == DP_ACTION_SET_IPV4_SRC ? 12 : 16);
        *field_size = 4;
        allowed[f->l3 + 10] = allowed[f->l3 + 11] = true;
        break;
    default:
        *field = f->l4 + (a->type == DP_ACTION_SET_TP_SRC ? 0 : 2);
        *field_size = 2;
        break;
    }
    for (uint32_t i = 0; i < *field_size; i++) {
        allowed[*field + i] = true;
    }
    if (l4_csum) {
        uint32_t c = f->l4 + l4_csum_ofs(s->proto);

        for (uint32_t i = 0; i < (s->proto == IP_PROTO_SCTP ? 4 : 2); i++) {
            allowed[c + i] = true;
        }
    }
}

static bool
apply_set(struct dp_packet *p, const struct dp_action *a)
{
    switch (a->type) {
    case DP_ACTION_SET_ETH_SRC:
        return dp_action_set_eth_src(p, a->mac);
    case DP_ACTION_SET_ETH_DST:
        return dp_action_set_eth_dst(p, a->mac);
    case DP_ACTION_SET_IPV4_SRC:
        return dp_action_set_ipv4_src(p, a->ipv4);
    case DP_ACTION_SET_IPV4_DST:
        return dp_action_set_ipv4_dst(p, a->ipv4);
    case DP_ACTION_SET_TP_SRC:
        return dp_action_set_tp_src(p, a->tp_port);
    case DP_ACTION_SET_TP_DST:
        return dp_action_set_tp_dst(p, a->tp_port);
    }
    return false;
}

/* Runs modification 'type' on frame 'spec_idx' and checks that it applies
 * if and only if 'applies', changes only what it may, and leaves every
 * checksum right. */
static void
run_set_case(int spec_idx, enum dp_action_type type, bool applies)
{
    const struct spec *s = &specs[spec_idx];
    struct dp_action a = make_set(type);
    bool allowed[FRAME_BUF];
    uint32_t field, field_size, size;
    uint8_t orig[FRAME_BUF];
    struct frame f;
    bool applied;
    char what[96];

    snprintf(what, sizeof what, "%s, action %d", s->name, type);
    build(&f, s);
    size = f.p.size;
    memcpy(orig, f.p.data, size);
    verify_checksums(&f.p, what);
    applied = apply_set(&f.p, &a);

    CHECK(applied == applies, "%s: applied %d", what, applied);
    CHECK(f.p.size == size && f.p.data == f.buf + DP_PACKET_HEADROOM,
          "%s: frame moved or resized", what);
    allowed_bytes(&f, s, &a, allowed, &field, &field_size);
    for (uint32_t i = 0; i < size; i++) {
        if (orig[i] != f.p.data[i]) {
            CHECK(applied && allowed[i], "%s: byte %u changed", what, i);
        }
    }
    if (applied) {
        const void *want = (field_size == 6 ? (const void *) a.mac.ea
                            : field_size == 4 ? (const void *) &a.ipv4
                            : (const void *) &a.tp_port);

        CHECK(!memcmp(f.p.data + field, want, field_size),
              "%s: field not set", what);
        verify_checksums(&f.p, what);
    }
}

static void
test_set_fields(void)
{
    static const enum dp_action_type sets[] = {
        DP_ACTION_SET_ETH_SRC, DP_ACTION_SET_ETH_DST,
        DP_ACTION_SET_IPV4_SRC, DP_ACTION_SET_IPV4_DST,
        DP_ACTION_SET_TP_SRC, DP_ACTION_SET_TP_DST,
    };
    /* Frames on which some modification does not apply, or applies only
     * in part. */
    static const struct {
        int spec;
        enum dp_action_type type;
        bool applies;
    } cases[] = {
        { S_ICMP4, DP_ACTION_SET_IPV4_SRC, true },
        { S_ICMP4, DP_ACTION_SET_TP_SRC, false },
        { S_ARP, DP_ACTION_SET_ETH_SRC, true },
        { S_ARP, DP_ACTION_SET_IPV4_DST, false },
        { S_ARP, DP_ACTION_SET_TP_DST, false },
        { S_TCP4_FIRST, DP_ACTION_SET_IPV4_SRC, true },
        { S_TCP4_FIRST, DP_ACTION_SET_TP_DST, true },
        { S_TCP4_LATER, DP_ACTION_SET_IPV4_DST, true },
        { S_TCP4_LATER, DP_ACTION_SET_TP_SRC, false },
        { S_TCP4_LATER, DP_ACTION_SET_TP_DST, false },
        { S_SCTP4_FIRST, DP_ACTION_SET_IPV4_SRC, true },
        { S_SCTP4_FIRST, DP_ACTION_SET_TP_SRC, false },
        { S_CUT_ETH, DP_ACTION_SET_ETH_SRC, false },
        { S_CUT_ETH, DP_ACTION_SET_IPV4_SRC, false },
        { S_CUT_ETH, DP_ACTION_SET_TP_SRC, false },
        { S_CUT_IP, DP_ACTION_SET_ETH_DST, true },
        { S_CUT_IP, DP_ACTION_SET_IPV4_SRC, false },
        { S_CUT_IP, DP_ACTION_SET_TP_DST, false },
        { S_CUT_TCP, DP_ACTION_SET_IPV4_DST, true },
        { S_CUT_TCP, DP_ACTION_SET_TP_SRC, false },
        { S_CUT_SCTP, DP_ACTION_SET_TP_DST, false },
        { S_BAD_IHL, DP_ACTION_SET_IPV4_SRC, false },
        { S_BAD_IHL, DP_ACTION_SET_TP_SRC, false },
    };

    for (int s = 0; s < N_COMMON; s++) {
        for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
            bool ipv4_set = (sets[i] == DP_ACTION_SET_IPV4_SRC
                             || sets[i] == DP_ACTION_SET_IPV4_DST);

            run_set_case(s, sets[i],
                         !ipv4_set || specs[s].l3 == ETH_TYPE_IP);
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        run_set_case(cases[i].spec, cases[i].type, cases[i].applies);
    }
}

/* RFC 1624's corner: a UDP checksum that the update makes 0 goes out as
 * 0xffff, never as "no checksum". */
static void
test_udp_zero_result(void)
{
    struct frame f;
    struct dp_packet *p = build(&f, &specs[S_UDP4_TAG]);
    uint8_t *csum = p->data + f.l4 + 6;
    uint16_t c = get16(csum);
    uint16_t port = get16(p->data + f.l4);
    uint16_t new_port;

    /* Pick the port that makes the full checksum 0: HC' = ~(~HC + ~m +
     * m') is 0 when ~HC + ~m + m' is 0xffff, so m' = HC + m folded. */
    new_port = fold((uint32_t) c + port);
    CHECK(dp_action_set_tp_src(p, htons(new_port)), "port set");
    CHECK_INT(get16(csum), 0xffff);
    verify_checksums(p, "udp zero result");
}

static void
test_crc32c(void)
{
    static const char vector[] = "123456789";
    uint8_t buf[100];

    CHECK_INT(crc32c(0, vector, 9), 0xe3069283);
    CHECK_INT(crc32c(crc32c(0, vector, 4), vector + 4, 5),
              0xe3069283);
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = i * 13 + 1;
    }
    CHECK_INT(crc32c(0, buf, sizeof buf), crc32c_slow(buf, sizeof buf));
}

/* VLAN push, pop and set, and the offload offsets that move with them. */
static void
test_vlan(void)
{
    enum op { PUSH, POP, SET };
    static const struct {
        const char *name;
        int spec;
        enum op op;
        uint16_t tpid, tci, mask;   /* Host order. */
        uint16_t headroom;          /* Before the operation. */
        bool applies;
        int n_tags_after;
        uint16_t outer_tci;         /* After, if tagged. */
    } cases[] = {
        /* The pushed TCI has CFI set, the flow key's "tag present"; the
         * tag on the wire has DEI (the same bit) clear. */
        { "push on untagged", S_TCP4, PUSH, 0x8100, 0x100a, 0, 64, true,
          1, 0x000a },
        { "push on tagged", S_UDP4_TAG, PUSH, 0x8100, 0x300b, 0, 64, true,
          2, 0x200b },
        { "push 802.1ad", S_UDP4_TAG, PUSH, 0x88a8, 0x1014, 0, 64, true,
          2, 0x0014 },
        { "push, 4 bytes left", S_TCP4, PUSH, 0x8100, 0x1001, 0, 4, true,
          1, 0x0001 },
        { "push, no headroom", S_TCP4, PUSH, 0x8100, 0x1001, 0, 3, false,
          0, 0 },
        { "push on runt", S_CUT_ETH, PUSH, 0x8100, 0x1001, 0, 64, false,
          0, 0 },
        { "push on gso", S_TCP4_PARTIAL, PUSH, 0x8100, 0x1005, 0, 64, true,
          2, 0x0005 },
        { "pop on tagged", S_UDP4_TAG, POP, 0, 0, 0, 64, true, 0, 0 },
        { "pop on qinq", S_TCP4_QINQ, POP, 0, 0, 0, 64, true, 1,
          200 | 3 << VLAN_PCP_SHIFT },
        { "pop on gso", S_TCP4_PARTIAL, POP, 0, 0, 0, 64, true, 0, 0 },
        { "pop on untagged", S_TCP4, POP, 0, 0, 0, 64, false, 0, 0 },
        { "pop on arp", S_ARP, POP, 0, 0, 0, 64, true, 0, 0 },
        { "set vid", S_UDP4_TAG, SET, 0, 0x0007, VLAN_VID_MASK, 64, true,
          1, 0x0007 | 3 << VLAN_PCP_SHIFT },
        { "set pcp", S_TCP4_QINQ, SET, 0, 0xa000, VLAN_PCP_MASK, 64, true,
          2, 100 | 5 << VLAN_PCP_SHIFT },
        { "set on untagged", S_TCP4, SET, 0, 0x0007, VLAN_VID_MASK, 64,
          false, 0, 0 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct spec *s = &specs[cases[i].spec];
        struct frame f;
        struct dp_packet *p = build(&f, s);
        struct dp_packet before = *p;
        uint8_t orig[FRAME_BUF];
        bool applied = false;
        int n_tags = 0;
        int delta;

        check_set_context("%s", cases[i].name);
        p->headroom = cases[i].headroom;
        before.headroom = p->headroom;
        memcpy(orig, p->data, p->size);
        switch (cases[i].op) {
        case PUSH:
            applied = !dp_action_push_vlan(p, htons(cases[i].tpid),
                                     htons(cases[i].tci));
            break;
        case POP:
            applied = dp_action_pop_vlan(p);
            break;
        case SET:
            applied = dp_action_set_vlan_tci(p, htons(cases[i].tci),
                                       htons(cases[i].mask));
            break;
        }
        CHECK(applied == cases[i].applies, "applied %d", applied);
        delta = (!applied ? 0 : cases[i].op == PUSH ? 4
                 : cases[i].op == POP ? -4 : 0);
        CHECK_INT(p->size, before.size + delta);
        CHECK_INT(p->data - before.data, -delta);
        CHECK_INT(p->headroom, before.headroom - delta);
        CHECK(!memcmp(p->data, orig, 12), "MAC addresses changed");
        /* Everything but the outer tag is as it was. */
        if (!applied) {
            CHECK(!memcmp(p->data, orig, before.size), "frame changed");
        } else if (cases[i].op == PUSH) {
            CHECK(!memcmp(p->data + 16, orig + 12, before.size - 12),
                  "payload changed");
        } else if (cases[i].op == POP) {
            CHECK(!memcmp(p->data + 12, orig + 16, before.size - 16),
                  "payload changed");
        } else {
            CHECK(!memcmp(p->data + 16, orig + 16, before.size - 16),
                  "payload changed");
        }
        for (uint32_t ofs = 12; p->size >= ofs + 4
             && (get16(p->data + ofs) == ETH_TYPE_VLAN_8021Q
                 || get16(p->data + ofs) == ETH_TYPE_VLAN_8021AD);
             ofs += 4) {
            n_tags++;
        }
        CHECK_INT(n_tags, applied ? cases[i].n_tags_after : s->n_tags);
        if (applied && n_tags) {
            CHECK_INT(get16(p->data + 14), cases[i].outer_tci);
            if (cases[i].op == PUSH) {
                CHECK_INT(get16(p->data + 12), cases[i].tpid);
            }
        }
        if (p->flags & DP_PACKET_F_VNET) {
            CHECK_INT(p->vnet.csum_start, before.vnet.csum_start + delta);
            CHECK_INT(p->vnet.hdr_len, before.vnet.hdr_len + delta);
            CHECK_INT(p->vnet.csum_offset, before.vnet.csum_offset);
            CHECK_INT(p->vnet.gso_size, before.vnet.gso_size);
        }
        verify_checksums(p, cases[i].name);
        /* An address change after the tag moved still finds the L4
         * checksum, partial or not. */
        if (applied && s->l3 == ETH_TYPE_IP) {
            CHECK(dp_action_set_ipv4_dst(p, htonl(0x0a090807)), "set after");
            verify_checksums(p, cases[i].name);
        }
    }
    check_set_context("%s", "");
}

/* The executor, on a PMD driven by hand with no ports: pmd_flush_tx()
 * then counts every sent frame as drop_port_gone. */

static struct dp *
make_dp(void)
{
    return xzalloc(sizeof(struct dp));
}

static void
destroy_all(struct dp *dp, struct pmd *pmd)
{
    pmd_destroy(pmd);
    free(dp);
}

static uint64_t
stat(const struct pmd *pmd, enum pmd_stat_type type)
{
    return pmd->perf.counters[type];
}

static struct dp_action
output(uint16_t port)
{
    struct dp_action a;

    dp_action_init(&a, DP_ACTION_OUTPUT);
    a.port = port;
    return a;
}

static struct dp_action
push_vlan(uint16_t vid)
{
    struct dp_action a;

    dp_action_init(&a, DP_ACTION_PUSH_VLAN);
    a.vlan.tpid = htons(ETH_TYPE_VLAN_8021Q);
    a.vlan.tci = htons(VLAN_CFI | vid);
    return a;
}

static struct dp_action
set_tp_src(uint16_t port)
{
    struct dp_action a;

    dp_action_init(&a, DP_ACTION_SET_TP_SRC);
    a.tp_port = htons(port);
    return a;
}

/* The one packet queued on 'port', or NULL. */
static struct dp_packet *
queued(struct pmd *pmd, uint16_t port)
{
    const struct dp_batch *b = &pmd->tx[port].batch;

    return b->count == 1 ? b->packets[0] : NULL;
}

static void
test_copy_on_write(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct dp_action actions[] = {
        output(1), make_set(DP_ACTION_SET_IPV4_DST), output(2),
        push_vlan(10), output(3), make_set(DP_ACTION_SET_ETH_SRC),
    };
    struct dp_action in_place[] = {
        make_set(DP_ACTION_SET_ETH_DST), push_vlan(20), output(1),
    };
    uint8_t orig[FRAME_BUF];
    struct dp_packet *p1, *p2, *p3, *first_clone;
    struct frame f;
    uint32_t size;

    build(&f, &specs[S_UDP4_TAG]);
    size = f.p.size;
    memcpy(orig, f.p.data, size);
    dp_actions_execute(pmd, &f.p, actions, ARRAY_SIZE(actions));

    p1 = queued(pmd, 1);
    p2 = queued(pmd, 2);
    p3 = queued(pmd, 3);
    CHECK(p1 == &f.p, "first output is not the received packet");
    CHECK(p1 && p1->size == size && !memcmp(p1->data, orig, size),
          "first output does not see the original bytes");
    CHECK(p2 && p2 != p1 && dp_actions_clone_pool_owns(&pmd->clones, p2),
          "second output is not a clone");
    CHECK(p2 && p2->size == size
          && !memcmp(p2->data + f.l3 + 16, (uint8_t[]) { 172, 16, 0, 1 },
                     4), "second output lacks the new address");
    CHECK(p2 && !memcmp(p2->data + 12, orig + 12, 4),
          "second output got the later tag");
    CHECK(p3 && p3 != p2 && p3->size == size + 4
          && get16(p3->data + 14) == 10,
          "third output lacks the pushed tag");
    CHECK(p3 && !memcmp(p3->data + 6, mac_src.ea, 6),
          "a modification after the last output ran");
    if (p2 && p3) {
        verify_checksums(p2, "cow second");
        verify_checksums(p3, "cow third");
        CHECK_INT(p2->headroom, DP_PACKET_HEADROOM);
        CHECK_INT(p3->headroom, DP_PACKET_HEADROOM - 4);
    }
    CHECK_INT(stat(pmd, PMD_STAT_ACTION_CLONES), 2);
    CHECK_INT(pmd->clones.n_used, 2);
    first_clone = p2;

    /* Flushing recycles the pool: the next clone reuses the first. */
    pmd_flush_tx(pmd);
    CHECK_INT(pmd->clones.n_used, 0);
    CHECK_INT(stat(pmd, PMD_STAT_DROP_PORT_GONE), 3);
    build(&f, &specs[S_UDP4_TAG]);
    dp_actions_execute(pmd, &f.p, actions, ARRAY_SIZE(actions));
    CHECK(queued(pmd, 2) == first_clone, "pool not recycled");
    pmd_flush_tx(pmd);

    /* Before any output, modifications change the packet in place. */
    build(&f, &specs[S_UDP4_TAG]);
    dp_actions_execute(pmd, &f.p, in_place, ARRAY_SIZE(in_place));
    CHECK(queued(pmd, 1) == &f.p, "in-place packet was copied");
    CHECK(f.p.size == size + 4 && get16(f.p.data + 14) == 20,
          "in-place push missing");
    CHECK_INT(stat(pmd, PMD_STAT_ACTION_CLONES), 4);
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 0);
    pmd_flush_tx(pmd);
    destroy_all(dp, pmd);
}

/* A pool that runs dry mid-batch flushes and goes on; a frame that no
 * clone can hold is dropped and counted. */
static void
test_pool_exhaustion(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct dp_action chain[] = {
        output(1), set_tp_src(2001), output(2), set_tp_src(2002),
        output(3), set_tp_src(2003), output(4), set_tp_src(2004),
        output(5),
    };
    struct dp_action one_clone[] = {
        output(1), set_tp_src(3001), output(2),
    };
    struct dp_action push_first[] = { push_vlan(30), output(1) };
    struct dp_packet *last;
    struct frame f, g;

    dp_actions_clone_pool_uninit(&pmd->clones);
    dp_actions_clone_pool_init(&pmd->clones, 2, 128);

    /* Four clones from a pool of two: two early flushes. */
    build(&f, &specs[S_TCP4]);
    dp_actions_execute(pmd, &f.p, chain, ARRAY_SIZE(chain));
    CHECK_INT(stat(pmd, PMD_STAT_CLONE_POOL_DRY), 2);
    CHECK_INT(stat(pmd, PMD_STAT_ACTION_CLONES), 4);
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 0);
    /* Outputs 1-3 went out in the first early flush, 4 in the second. */
    CHECK_INT(stat(pmd, PMD_STAT_DROP_PORT_GONE), 4);
    CHECK(!queued(pmd, 4), "fourth output not flushed");
    last = queued(pmd, 5);
    CHECK(last && get16(last->data + f.l4) == 2004,
          "last output has the wrong port");
    CHECK(last && dp_actions_clone_pool_owns(&pmd->clones, last)
          && pmd->clones.n_used == 2, "pool bookkeeping");
    if (last) {
        verify_checksums(last, "after exhaustion");
    }
    pmd_flush_tx(pmd);

    /* Too big for a clone. */
    build(&g, &specs[S_TCP4]);
    g.p.size = 200;
    dp_actions_execute(pmd, &g.p, one_clone, ARRAY_SIZE(one_clone));
    CHECK(queued(pmd, 1) == &g.p, "first output missing");
    CHECK(!queued(pmd, 2), "big frame was cloned");
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 1);
    pmd_flush_tx(pmd);

    /* No headroom: the push goes to a clone, which has all of it. */
    build(&f, &specs[S_TCP4]);
    f.p.headroom = 0;
    dp_actions_execute(pmd, &f.p, push_first, ARRAY_SIZE(push_first));
    CHECK(queued(pmd, 1) && queued(pmd, 1) != &f.p
          && get16(queued(pmd, 1)->data + 14) == 30,
          "push without headroom did not use a clone");
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 1);
    pmd_flush_tx(pmd);

    /* A push that does not apply is no drop. */
    build(&f, &specs[S_CUT_ETH]);
    dp_actions_execute(pmd, &f.p, push_first, ARRAY_SIZE(push_first));
    CHECK(queued(pmd, 1) == &f.p && f.p.size == specs[S_CUT_ETH].cut,
          "runt frame not sent unchanged");
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 1);
    pmd_flush_tx(pmd);

    /* No headroom and too big: dropped. */
    g.p.headroom = 0;
    dp_actions_execute(pmd, &g.p, push_first, ARRAY_SIZE(push_first));
    CHECK(!queued(pmd, 1), "frame without headroom went out");
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 2);
    destroy_all(dp, pmd);
}

static void
test_bond_output(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct dp_action actions[2];
    struct frame f;

    dp_action_init(&actions[0], DP_ACTION_BOND_OUTPUT);
    actions[0].port = 4;
    actions[1] = output(1);
    build(&f, &specs[S_TCP4]);
    dp_actions_execute(pmd, &f.p, actions, 2);
    CHECK_INT(stat(pmd, PMD_STAT_DROP_BOND_OUTPUT), 1);
    CHECK(queued(pmd, 1) == &f.p, "output after bond output missing");
    pmd_flush_tx(pmd);
    destroy_all(dp, pmd);
}

static struct dp_action
patch(uint16_t port, uint16_t peer, uint16_t n_nested)
{
    struct dp_action a;

    dp_action_init(&a, DP_ACTION_PATCH);
    a.port = port;
    a.patch.peer = peer;
    a.patch.n_nested = n_nested;
    return a;
}

/* A patch crossing runs the peer bridge's actions on a copy: what they do
 * to the packet is not seen by the actions after them, nested crossings
 * included, and an early flush in the middle keeps the packet of every
 * level.  Each crossing counts on its patch port. */
static void
test_patch_copies(void)
{
    struct dp *dp = make_dp();
    struct pmd *pmd = pmd_create(dp, 0);
    struct dp_action one[] = {
        patch(5, 6, 2), push_vlan(10), output(1), output(2),
    };
    struct dp_action two[] = {
        patch(5, 6, 5), push_vlan(10), patch(7, 8, 2), push_vlan(20),
        output(3), output(1), output(2),
    };
    struct dp_action dry[3 + 2 * 70 + 1];
    struct dp_packet *p;
    struct frame f;
    uint32_t size;
    size_t n = 0;

    build(&f, &specs[S_TCP4]);
    size = f.p.size;
    dp_actions_execute(pmd, &f.p, one, ARRAY_SIZE(one));
    p = queued(pmd, 1);
    CHECK(p && p != &f.p && p->size == size + 4
          && get16(p->data + 14) == 10,
          "the peer's output lacks its tag");
    CHECK(queued(pmd, 2) == &f.p && f.p.size == size,
          "the output after the crossing saw the peer's tag");
    CHECK_INT(pmd->patch[5].packets, 1);
    CHECK_INT(pmd->patch[5].bytes, size);
    pmd_flush_tx(pmd);

    build(&f, &specs[S_TCP4]);
    dp_actions_execute(pmd, &f.p, two, ARRAY_SIZE(two));
    p = queued(pmd, 3);
    CHECK(p && p->size == size + 8 && get16(p->data + 14) == 20
          && get16(p->data + 18) == 10,
          "the innermost output lacks its two tags");
    p = queued(pmd, 1);
    CHECK(p && p->size == size + 4 && get16(p->data + 14) == 10,
          "the middle output does not have exactly its own tag");
    CHECK(queued(pmd, 2) == &f.p && f.p.size == size,
          "the outer output saw a nested change");
    CHECK_INT(pmd->patch[5].packets, 2);
    CHECK_INT(pmd->patch[7].packets, 1);
    pmd_flush_tx(pmd);

    /* The outer level's packet is a clone, and the nested level uses up
     * the pool: the early flush must keep the outer clone. */
    dry[n++] = output(1);
    dry[n++] = set_tp_src(1000);
    dry[n++] = patch(5, 6, 2 * 70);
    for (int i = 0; i < 70; i++) {
        dry[n++] = set_tp_src(2000 + i);
        dry[n++] = output(10 + i);
    }
    dry[n++] = output(2);
    build(&f, &specs[S_TCP4]);
    dp_actions_execute(pmd, &f.p, dry, n);
    CHECK(stat(pmd, PMD_STAT_CLONE_POOL_DRY) >= 1, "the pool did not run dry");
    p = queued(pmd, 2);
    CHECK(p && get16(p->data + f.l4) == 1000,
          "the outer clone did not survive the early flush (port %d)",
          p ? get16(p->data + f.l4) : -1);
    p = queued(pmd, 10 + 69);
    CHECK(p && get16(p->data + f.l4) == 2069, "last nested output wrong");
    CHECK_INT(stat(pmd, PMD_STAT_DROP_ACTION_EXEC), 0);
    pmd_flush_tx(pmd);
    destroy_all(dp, pmd);
}

/* Formatting. */

static const char *
port_name(uint16_t port_no, void *names_)
{
    const char *const *names = names_;

    return port_no < 2 ? names[port_no] : NULL;
}

static void
test_format(void)
{
    struct dp_action eth_dst = make_set(DP_ACTION_SET_ETH_DST);
    struct dp_action ip_src = make_set(DP_ACTION_SET_IPV4_SRC);
    struct dp_action tp_dst = make_set(DP_ACTION_SET_TP_DST);
    struct dp_action vid, pcp, odd, qinq, pop, bond, nocfi;
    static const char *const names[] = { "p0", "p1", NULL };

    dp_action_init(&vid, DP_ACTION_SET_VLAN_TCI);
    vid.vlan.tci = htons(10);
    vid.vlan.tci_mask = htons(VLAN_VID_MASK);
    dp_action_init(&pcp, DP_ACTION_SET_VLAN_TCI);
    pcp.vlan.tci = htons(0x600c);
    pcp.vlan.tci_mask = htons(VLAN_PCP_MASK | VLAN_VID_MASK);
    dp_action_init(&odd, DP_ACTION_SET_VLAN_TCI);
    odd.vlan.tci = htons(0x0003);
    odd.vlan.tci_mask = htons(0x000f);
    qinq = push_vlan(10);
    qinq.vlan.tpid = htons(ETH_TYPE_VLAN_8021AD);
    nocfi = push_vlan(5);
    nocfi.vlan.tci = htons(5);
    dp_action_init(&pop, DP_ACTION_POP_VLAN);
    dp_action_init(&bond, DP_ACTION_BOND_OUTPUT);
    bond.port = 3;

    struct {
        struct dp_action actions[4];
        uint32_t n;
        uint8_t nw_proto;
        bool names;
        const char *text;
        const char *json;
    } cases[] = {
        { { { 0 } }, 0, 0, false, "drop", "[]" },
        { { output(1) }, 1, 0, false, "1", "[1]" },
        { { output(1), output(0) }, 2, 0, true, "p1,p0", "[1,0]" },
        { { output(2) }, 1, 0, true, "2", "[2]" },
        { { push_vlan(10), output(1), pop, output(2) }, 4, 0, false,
          "push_vlan(vid=10,pcp=0),1,pop_vlan,2",
          "[{\"push_vlan\":{\"vid\":10,\"pcp\":0,\"tpid\":33024}},"
          "{\"output\":1},{\"pop_vlan\":{}},{\"output\":2}]" },
        { { qinq, nocfi }, 2, 0, false,
          "push_vlan(tpid=0x88a8,vid=10,pcp=0),push_vlan(vid=5,pcp=0,cfi=0)",
          "[{\"push_vlan\":{\"vid\":10,\"pcp\":0,\"tpid\":34984}},"
          "{\"push_vlan\":{\"vid\":5,\"pcp\":0,\"tpid\":33024,\"cfi\":0}}]" },
        { { eth_dst, ip_src, output(1) }, 3, 0, false,
          "set(eth(dst=0a:00:00:00:00:01)),set(ipv4(src=192.168.10.5)),1",
          "[{\"set\":{\"eth\":{\"dst\":\"0a:00:00:00:00:01\"}}},"
          "{\"set\":{\"ipv4\":{\"src\":\"192.168.10.5\"}}},{\"output\":1}]" },
        { { tp_dst }, 1, IP_PROTO_TCP, false, "set(tcp(dst=8080))",
          "[{\"set\":{\"tcp\":{\"dst\":8080}}}]" },
        { { tp_dst }, 1, IP_PROTO_UDP, false, "set(udp(dst=8080))",
          "[{\"set\":{\"udp\":{\"dst\":8080}}}]" },
        { { tp_dst }, 1, 0, false, "set(tp(dst=8080))",
          "[{\"set\":{\"tp\":{\"dst\":8080}}}]" },
        { { vid, pcp, odd }, 3, 0, false,
          "set(vlan(vid=10)),set(vlan(vid=12,pcp=3)),"
          "set(vlan(tci=0x0003/0x000f))",
          "[{\"set\":{\"vlan\":{\"vid\":10}}},"
          "{\"set\":{\"vlan\":{\"vid\":12,\"pcp\":3}}},"
          "{\"set\":{\"vlan\":{\"tci\":3,\"mask\":15}}}]" },
        { { bond }, 1, 0, false, "lb_output(3)",
          "[{\"lb_output\":{\"port\":3,\"hash\":0}}]" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *text = dp_actions_format(cases[i].actions, cases[i].n,
                                        cases[i].nw_proto,
                                        cases[i].names ? port_name : NULL,
                                        (void *) names);
        json_t *json = dp_actions_to_json(cases[i].actions, cases[i].n,
                                           cases[i].nw_proto);
        char *json_s = json_dumps(json, JSON_COMPACT | JSON_PRESERVE_ORDER);

        CHECK_STR(text, cases[i].text);
        CHECK_STR(json_s, cases[i].json);
        free(text);
        free(json_s);
        json_decref(json);
    }
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "set_fields", test_set_fields },
        { "udp_zero_result", test_udp_zero_result },
        { "crc32c", test_crc32c },
        { "vlan", test_vlan },
        { "copy_on_write", test_copy_on_write },
        { "pool_exhaustion", test_pool_exhaustion },
        { "bond_output", test_bond_output },
        { "patch_copies", test_patch_copies },
        { "format", test_format },
    };

    rcu_register_thread();
    check_run_tests(tests, ARRAY_SIZE(tests));
    rcu_unregister();
    return check_finish("test-dp-actions-execute");
}
