/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Merging TCP segments into GSO frames (gro.h).
 */
#include <autoconf.h>
#include "packet/gro.h"

#include <string.h>

#include "packet/csum.h"
#include "packet/dp-packet.h"
#include "packet/wire.h"

#define TCP_ACK 0x10
#define TCP_PSH 0x08
#define IP_DF 0x4000

/* The pseudo-header sum of a TCP segment of 'l4_len' bytes whose IP
 * header is at 'ip'. */
static uint32_t
gro_pseudo_sum__(const uint8_t *ip, bool ipv4, uint32_t l4_len)
{
    uint32_t sum = (ipv4 ? csum_add(0, ip + 12, 8) : csum_add(0, ip + 8, 32));

    return sum + 6 + l4_len;
}

/* Finds the network header of 'seg->p': at most one VLAN tag.  Returns
 * its ethertype, or 0. */
static uint16_t
gro_parse_l2__(struct gro_seg *seg)
{
    const uint8_t *d = seg->p->data;
    uint32_t size = seg->p->size;
    uint16_t type;

    if (size < 14) {
        return 0;
    }
    type = wire_get16(d + 12);
    seg->l3 = 14;
    if (type == 0x8100) {
        if (size < 18) {
            return 0;
        }
        type = wire_get16(d + 16);
        seg->l3 = 18;
    }
    return type;
}

/* Checks the IP header of 'seg': one that a merge keeps whole, and that
 * covers the frame exactly (no Ethernet padding). */
static bool
gro_parse_l3__(struct gro_seg *seg, uint16_t type)
{
    const uint8_t *d = seg->p->data;
    const uint8_t *ip = d + seg->l3;
    uint32_t size = seg->p->size;

    if (type == 0x0800) {
        if (seg->l3 + 20 > size || ip[0] != 0x45 || ip[9] != 6
            || (wire_get16(ip + 6) & ~IP_DF) || !(wire_get16(ip + 6) & IP_DF)
            || seg->l3 + wire_get16(ip + 2) != size
            || csum_fold(csum_add(0, ip, 20)) != 0xffff) {
            return false;
        }
        seg->ipv4 = true;
        seg->l4 = seg->l3 + 20;
    } else if (type == 0x86dd) {
        if (seg->l3 + 40 > size || ip[0] >> 4 != 6 || ip[6] != 6
            || seg->l3 + 40 + wire_get16(ip + 4) != size) {
            return false;
        }
        seg->ipv4 = false;
        seg->l4 = seg->l3 + 40;
    } else {
        return false;
    }
    return true;
}

/* True if the TCP checksum of 'seg' is known good. */
static bool
gro_csum_ok__(const struct gro_seg *seg)
{
    const struct dp_packet *p = seg->p;
    uint32_t l4_len = p->size - seg->l4;

    if (p->flags & DP_PACKET_F_VNET) {
        if (p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
            return p->vnet.csum_start == seg->l4
                   && p->vnet.csum_offset == 16;
        }
        if (p->vnet.flags & VIRTIO_NET_HDR_F_DATA_VALID) {
            return true;
        }
    }
    return csum_fold(csum_add(gro_pseudo_sum__(p->data + seg->l3,
                                               seg->ipv4, l4_len),
                              p->data + seg->l4, l4_len)) == 0xffff;
}

bool
gro_parse(const struct dp_packet *p, struct gro_seg *seg)
{
    const uint8_t *d = p->data;
    const uint8_t *tcp;
    uint16_t type;
    uint32_t doff;

    memset(seg, 0, sizeof *seg);
    seg->p = p;
    if ((p->flags & DP_PACKET_F_VNET)
        && p->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        return false;           /* Already large. */
    }
    type = gro_parse_l2__(seg);
    if (!type || !gro_parse_l3__(seg, type) || seg->l4 + 20 > p->size) {
        return false;
    }
    tcp = d + seg->l4;
    doff = (tcp[12] >> 4) * 4u;
    seg->tcp_flags = tcp[13];
    if (doff < 20 || (tcp[12] & 0x0f) || seg->l4 + doff >= p->size
        || (seg->tcp_flags & ~(TCP_ACK | TCP_PSH))
        || !(seg->tcp_flags & TCP_ACK)) {
        return false;
    }
    seg->hdr_len = seg->l4 + doff;
    seg->payload = p->size - seg->hdr_len;
    seg->seq = wire_get32(tcp + 4);
    return true;
}

void
gro_group_start(struct gro_group *g, const struct gro_seg *seg)
{
    g->first = *seg;
    g->segs[0] = seg->p;
    g->n_segs = 1;
    g->size = seg->p->size;
    g->next_seq = seg->seq + seg->payload;
    g->closed = seg->tcp_flags & TCP_PSH;
}

bool
gro_same_flow(const struct gro_group *g, const struct gro_seg *seg)
{
    const uint8_t *a = g->first.p->data;
    const uint8_t *b = seg->p->data;
    uint32_t addr_off = g->first.ipv4 ? 12 : 8;
    uint32_t addr_len = g->first.ipv4 ? 8 : 32;

    return (g->first.ipv4 == seg->ipv4 && g->first.l3 == seg->l3
            && !memcmp(a, b, seg->l3)                   /* MACs, VLAN. */
            && !memcmp(a + seg->l3 + addr_off, b + seg->l3 + addr_off,
                       addr_len)
            && !memcmp(a + g->first.l4, b + seg->l4, 4));  /* Ports. */
}

/* True if 'seg''s headers match those of the group's first segment in
 * everything but lengths, IDs, checksums, sequence and flags. */
static bool
gro_same_headers__(const struct gro_group *g, const struct gro_seg *seg)
{
    const uint8_t *a = g->first.p->data;
    const uint8_t *b = seg->p->data;
    uint32_t l3 = seg->l3, l4 = seg->l4;

    if (seg->hdr_len != g->first.hdr_len) {
        return false;
    }
    if (seg->ipv4) {
        if (a[l3 + 1] != b[l3 + 1] || a[l3 + 8] != b[l3 + 8]) {
            return false;               /* TOS and ECN, TTL. */
        }
    } else if (memcmp(a + l3, b + l3, 4) || a[l3 + 7] != b[l3 + 7]) {
        return false;                   /* Class, flow label, hops. */
    }
    return (!memcmp(a + l4 + 8, b + l4 + 8, 4)         /* Ack. */
            && !memcmp(a + l4 + 14, b + l4 + 14, 2)    /* Window. */
            && !memcmp(a + l4 + 20, b + l4 + 20, seg->hdr_len - l4 - 20));
}

bool
gro_group_add(struct gro_group *g, const struct gro_seg *seg)
{
    if (g->closed || g->n_segs == sizeof g->segs / sizeof g->segs[0]
        || seg->seq != g->next_seq || seg->payload > g->first.payload
        || g->size + seg->payload > GRO_MAX_FRAME
        || !gro_same_flow(g, seg) || !gro_same_headers__(g, seg)
        || !gro_csum_ok__(seg)
        || (g->n_segs == 1 && !gro_csum_ok__(&g->first))) {
        return false;
    }
    g->segs[g->n_segs++] = seg->p;
    g->size += seg->payload;
    g->next_seq += seg->payload;
    g->closed = seg->payload < g->first.payload
                || (seg->tcp_flags & TCP_PSH);
    return true;
}

void
gro_merge(const struct gro_group *g, uint8_t *buf, struct dp_packet *out)
{
    const struct gro_seg *first = &g->first;
    const struct dp_packet *last = g->segs[g->n_segs - 1];
    uint32_t hdr_len = first->hdr_len;
    uint32_t off = hdr_len;
    uint8_t *ip = buf + first->l3;
    uint8_t *tcp = buf + first->l4;

    memcpy(buf, first->p->data, hdr_len);
    for (uint32_t i = 0; i < g->n_segs; i++) {
        const struct dp_packet *p = g->segs[i];

        memcpy(buf + off, p->data + hdr_len, p->size - hdr_len);
        off += p->size - hdr_len;
    }
    if (first->ipv4) {
        wire_put16(ip + 2, g->size - first->l3);
        wire_put16(ip + 10, 0);
        wire_put16(ip + 10, ~csum_fold(csum_add(0, ip, 20)));
    } else {
        wire_put16(ip + 4, g->size - first->l3 - 40);
    }
    tcp[13] |= last->data[first->l4 + 13] & TCP_PSH;
    wire_put16(tcp + 16, csum_fold(gro_pseudo_sum__(ip, first->ipv4,
                                                 g->size - first->l4)));

    dp_packet_init(out, buf, g->size, first->p->in_port);
    out->headroom = 0;
    out->tun_id = first->p->tun_id;
    if (dp_packet_rss_valid(first->p)) {
        dp_packet_set_rss_hash(out, first->p->rss_hash);
    }
    out->flags |= DP_PACKET_F_VNET;
    memset(&out->vnet, 0, sizeof out->vnet);
    out->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    out->vnet.gso_type = (first->ipv4 ? VIRTIO_NET_HDR_GSO_TCPV4
                          : VIRTIO_NET_HDR_GSO_TCPV6);
    out->vnet.hdr_len = hdr_len;
    out->vnet.gso_size = first->payload;
    out->vnet.csum_start = first->l4;
    out->vnet.csum_offset = 16;
}
