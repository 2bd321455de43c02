/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Building GSO frames for the tests of segmentation and merging
 * (tests/test-gso.c, tests/test-gro.c): TCP or UDP over IPv4 or IPv6, with
 * or without a VLAN tag, IPv4 options, an IPv6 extension header and TCP
 * options, as a sender with TSO hands them over.  Header-only.
 */
#ifndef TESTS_GSO_TEST_H
#define TESTS_GSO_TEST_H 1

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "packet/dp-packet.h"
#include "packet/gso.h"
#include "packet/wire.h"

#define MAX_FRAME 70000

/* How to build a test frame. */
struct frame_spec {
    const char *name;
    bool vlan;                  /* An 802.1Q tag. */
    bool ipv6;
    bool ext_hdr;               /* IPv6 hop-by-hop header (8 bytes). */
    bool ip_options;            /* IPv4: 8 bytes of options (IHL 7). */
    bool udp;                   /* Else TCP. */
    uint32_t tcp_opt_len;       /* TCP options, a multiple of 4. */
    uint8_t tcp_flags;
    uint32_t payload;
    uint16_t gso_size;
};

struct frame {
    uint8_t data[MAX_FRAME];
    struct dp_packet p;
    uint32_t l3, l4, hdr_len;
};

/* Builds the GSO frame 'spec' describes into 'f', payload bytes 0, 1, 2,
 * ... (mod 251), as a sender with TSO would hand it over. */
static inline void
build_frame(const struct frame_spec *spec, struct frame *f)
{
    uint8_t *d = f->data;
    uint32_t off = 12;
    uint32_t l4_len;

    memset(d, 0, MAX_FRAME);
    memcpy(d, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
    if (spec->vlan) {
        wire_put16(d + off, 0x8100);
        wire_put16(d + off + 2, 0x2005);
        off += 4;
    }
    wire_put16(d + off, spec->ipv6 ? 0x86dd : 0x0800);
    f->l3 = off + 2;
    l4_len = spec->udp ? 8 : 20 + spec->tcp_opt_len;
    if (!spec->ipv6) {
        uint32_t ihl = spec->ip_options ? 28 : 20;
        uint8_t *ip = d + f->l3;

        ip[0] = 0x40 | ihl / 4;
        ip[1] = 0x02;                           /* ECT(0). */
        wire_put16(ip + 4, 0xfff0);                  /* ID, to wrap. */
        wire_put16(ip + 6, 0x4000);                  /* DF. */
        ip[8] = 64;
        ip[9] = spec->udp ? 17 : 6;
        memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
        if (spec->ip_options) {
            memset(ip + 20, 1, 8);              /* NOPs. */
        }
        f->l4 = f->l3 + ihl;
    } else {
        uint8_t *ip = d + f->l3;

        ip[0] = 0x60;
        ip[6] = spec->ext_hdr ? 0 : spec->udp ? 17 : 6;
        ip[7] = 64;
        ip[8] = 0xfd;
        ip[23] = 1;
        ip[24] = 0xfd;
        ip[39] = 2;
        f->l4 = f->l3 + 40;
        if (spec->ext_hdr) {
            d[f->l4] = spec->udp ? 17 : 6;      /* Hop-by-hop: next... */
            d[f->l4 + 2] = 1;                   /* ...PadN of 4. */
            d[f->l4 + 3] = 4;
            f->l4 += 8;
        }
    }
    if (spec->udp) {
        wire_put16(d + f->l4, 4000);
        wire_put16(d + f->l4 + 2, 5000);
    } else {
        uint8_t *tcp = d + f->l4;

        wire_put16(tcp, 4000);
        wire_put16(tcp + 2, 5000);
        tcp[4] = 0xff;                          /* Sequence wraps too. */
        tcp[5] = 0xff;
        tcp[6] = 0xf0;
        tcp[12] = (20 + spec->tcp_opt_len) / 4 << 4;
        tcp[13] = spec->tcp_flags;
        wire_put16(tcp + 14, 512);
        memset(tcp + 20, 1, spec->tcp_opt_len);
    }
    f->hdr_len = f->l4 + l4_len;
    for (uint32_t i = 0; i < spec->payload; i++) {
        d[f->hdr_len + i] = i % 251;
    }
    /* Lengths of the whole, as a sender with TSO writes them. */
    if (!spec->ipv6) {
        uint8_t *ip = d + f->l3;
        uint32_t ihl = (ip[0] & 0xf) * 4;
        uint32_t sum = 0;

        wire_put16(ip + 2, f->hdr_len + spec->payload - f->l3);
        for (uint32_t i = 0; i < ihl; i += 2) {
            sum += wire_get16(ip + i);
        }
        sum = (sum & 0xffff) + (sum >> 16);
        sum = (sum & 0xffff) + (sum >> 16);
        wire_put16(ip + 10, ~sum);
    } else {
        wire_put16(d + f->l3 + 4, f->hdr_len + spec->payload - f->l3 - 40);
    }
    dp_packet_init(&f->p, d, f->hdr_len + spec->payload, 3);
    dp_packet_set_rss_hash(&f->p, 0x1234);
    f->p.flags |= DP_PACKET_F_VNET;
    f->p.vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    f->p.vnet.gso_type = (spec->udp ? VIRTIO_NET_HDR_GSO_UDP_L4
                          : spec->ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6
                          : VIRTIO_NET_HDR_GSO_TCPV4);
    f->p.vnet.gso_size = spec->gso_size;
    f->p.vnet.hdr_len = f->hdr_len;
    f->p.vnet.csum_start = f->l4;
    f->p.vnet.csum_offset = spec->udp ? 6 : 16;
}

#endif /* gso-test.h */
