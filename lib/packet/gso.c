/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Software segmentation of GSO frames (gso.h).
 */
#include <autoconf.h>
#include "packet/gso.h"

#include <string.h>

#include "packet/csum.h"
#include "packet/dp-packet.h"
#include "packet/wire.h"

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_IPV6 0x86dd
#define ETH_TYPE_VLAN 0x8100
#define ETH_TYPE_VLAN_8021AD 0x88a8
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08
#define TCP_FLAG_CWR 0x80

bool
gso_is_gso(const struct dp_packet *p)
{
    return ((p->flags & DP_PACKET_F_VNET)
            && (p->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN)
               != VIRTIO_NET_HDR_GSO_NONE);
}

/* Returns the offset of the network header of the 'size'-byte frame 'd',
 * past any VLAN tags, and its ethertype in '*type'; 0 if it is cut off. */
static uint32_t
gso_skip_l2__(const uint8_t *d, uint32_t size, uint16_t *type)
{
    uint32_t off = 12;

    if (size < 14) {
        return 0;
    }
    *type = wire_get16(d + off);
    while (*type == ETH_TYPE_VLAN || *type == ETH_TYPE_VLAN_8021AD) {
        off += 4;
        if (off + 2 > size) {
            return 0;
        }
        *type = wire_get16(d + off);
    }
    return off + 2;
}

/* Finds the network and transport headers of 'it->p'.  The transport
 * header is where the sender's checksum offload starts: for IPv6 that is
 * past any extension headers, which need no change per segment. */
static enum gso_error
gso_find_headers__(struct gso_iter *it)
{
    const struct dp_packet *p = it->p;
    const uint8_t *d = p->data;
    uint16_t type = 0;
    uint32_t l4_len;

    it->l3 = gso_skip_l2__(d, p->size, &type);
    if (!it->l3) {
        return GSO_MALFORMED;
    }
    if (type == ETH_TYPE_IPV4) {
        uint32_t ihl;

        if (it->l3 + 20 > p->size || d[it->l3] >> 4 != 4) {
            return GSO_MALFORMED;
        }
        ihl = (d[it->l3] & 0xf) * 4;
        it->ipv4 = true;
        it->l4 = it->l3 + ihl;
        if (ihl < 20 || d[it->l3 + 9] != (it->tcp ? IPPROTO_TCP_
                                                  : IPPROTO_UDP_)) {
            return GSO_MALFORMED;
        }
    } else if (type == ETH_TYPE_IPV6) {
        if (it->l3 + 40 > p->size || d[it->l3] >> 4 != 6) {
            return GSO_MALFORMED;
        }
        it->ipv4 = false;
        it->l4 = p->vnet.csum_start;
        if (it->l4 < it->l3 + 40) {
            return GSO_MALFORMED;
        }
    } else {
        return GSO_MALFORMED;
    }
    if ((p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
        && p->vnet.csum_start != it->l4) {
        return GSO_MALFORMED;
    }
    if (it->l4 + (it->tcp ? 20 : 8) > p->size) {
        return GSO_MALFORMED;
    }
    l4_len = it->tcp ? (d[it->l4 + 12] >> 4) * 4u : 8;
    if (l4_len < (it->tcp ? 20 : 8) || it->l4 + l4_len > p->size) {
        return GSO_MALFORMED;
    }
    it->hdr_len = it->l4 + l4_len;
    return GSO_OK;
}

enum gso_error
gso_start(struct gso_iter *it, const struct dp_packet *p, uint32_t mss)
{
    uint8_t type = p->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
    enum gso_error error;

    memset(it, 0, sizeof *it);
    it->p = p;
    it->mss = mss ? mss : p->vnet.gso_size;
    switch (type) {
    case VIRTIO_NET_HDR_GSO_TCPV4:
    case VIRTIO_NET_HDR_GSO_TCPV6:
        it->tcp = true;
        break;
    case VIRTIO_NET_HDR_GSO_UDP_L4:
        it->tcp = false;
        break;
    default:
        return GSO_UNSUPPORTED;
    }
    if (!it->mss) {
        return GSO_MALFORMED;
    }
    error = gso_find_headers__(it);
    if (!error && it->ipv4 != (type != VIRTIO_NET_HDR_GSO_TCPV6)
        && type != VIRTIO_NET_HDR_GSO_UDP_L4) {
        error = GSO_MALFORMED;      /* TCPV4 on IPv6, or the reverse. */
    }
    return error;
}

static uint32_t
gso_payload__(const struct gso_iter *it)
{
    return it->p->size - it->hdr_len;
}

uint32_t
gso_n_segments(const struct gso_iter *it)
{
    uint32_t payload = gso_payload__(it);

    return payload ? (payload + it->mss - 1) / it->mss : 1;
}

uint32_t
gso_max_segment_size(const struct gso_iter *it)
{
    uint32_t payload = gso_payload__(it);

    return it->hdr_len + (payload < it->mss ? payload : it->mss);
}

/* The TCP or UDP checksum of the 'size'-byte segment 'seg' of 'it'. */
static uint16_t
gso_l4_csum__(const struct gso_iter *it, const uint8_t *seg, uint32_t size)
{
    uint32_t l4_len = size - it->l4;
    uint8_t proto = it->tcp ? IPPROTO_TCP_ : IPPROTO_UDP_;
    uint32_t sum;

    if (it->ipv4) {
        sum = csum_add(0, seg + it->l3 + 12, 8);    /* Addresses. */
    } else {
        sum = csum_add(0, seg + it->l3 + 8, 32);
    }
    sum += proto + l4_len;
    return csum_finish(csum_add(sum, seg + it->l4, l4_len));
}

bool
gso_next(struct gso_iter *it, uint8_t *buf, size_t buf_size,
         struct dp_packet *seg)
{
    const struct dp_packet *p = it->p;
    uint32_t payload = gso_payload__(it);
    uint32_t chunk, size;
    bool first, last;

    if (it->index && it->offset >= payload) {
        return false;
    }
    chunk = payload - it->offset < it->mss ? payload - it->offset : it->mss;
    size = it->hdr_len + chunk;
    if (size > buf_size) {
        return false;
    }
    first = !it->index;
    last = it->offset + chunk >= payload;
    memcpy(buf, p->data, it->hdr_len);
    memcpy(buf + it->hdr_len, p->data + it->hdr_len + it->offset, chunk);

    if (it->ipv4) {
        uint8_t *ip = buf + it->l3;

        wire_put16(ip + 2, size - it->l3);
        wire_put16(ip + 4, wire_get16(ip + 4) + it->index);
        wire_put16(ip + 10, 0);
        wire_put16(ip + 10, ~csum_fold(csum_add(0, ip, it->l4 - it->l3)));
    } else {
        wire_put16(buf + it->l3 + 4, size - it->l3 - 40);
    }
    if (it->tcp) {
        uint8_t *tcp = buf + it->l4;

        wire_put32(tcp + 4, wire_get32(tcp + 4) + it->offset);
        if (!last) {
            tcp[13] &= ~(TCP_FLAG_FIN | TCP_FLAG_PSH);
        }
        if (!first) {
            tcp[13] &= ~TCP_FLAG_CWR;
        }
        wire_put16(tcp + 16, 0);
        wire_put16(tcp + 16, gso_l4_csum__(it, buf, size));
    } else {
        uint8_t *udp = buf + it->l4;

        wire_put16(udp + 4, size - it->l4);
        wire_put16(udp + 6, 0);
        wire_put16(udp + 6, gso_l4_csum__(it, buf, size));
    }

    dp_packet_init(seg, buf, size, p->in_port);
    seg->headroom = 0;
    seg->tun_id = p->tun_id;
    if (dp_packet_rss_valid(p)) {
        dp_packet_set_rss_hash(seg, p->rss_hash);
    }
    it->offset += chunk;
    it->index++;
    return true;
}
