/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The packet buffer.  A packet either points into a receive ring owned by
 * the netdev provider that produced it (zero-copy receive) or into a buffer
 * the provider owns; the datapath never frees a received packet.  Providers
 * keep a packet's bytes valid until the next rxq_recv() on the same rx queue
 * (see netdev-provider.h), by which time the PMD has sent or dropped it.
 *
 * Metadata travels with the frame: the input port, the RSS hash computed
 * once on receive, and the virtio_net_hdr offload information that lets
 * checksum-partial and GSO frames pass whole from one port to another.
 */
#ifndef DP_PACKET_H
#define DP_PACKET_H 1

#include <stdint.h>
#include <stdbool.h>
#include <linux/virtio_net.h>
#include "base/compiler.h"

/* Headroom a provider leaves before the frame so that a VLAN tag that the
 * kernel delivered as metadata can be put back in front of the payload. */
#define DP_PACKET_HEADROOM 64

enum dp_packet_flags {
    DP_PACKET_F_RSS_VALID = 1 << 0,  /* 'rss_hash' is set. */
    DP_PACKET_F_VNET = 1 << 1,       /* 'vnet' holds offload metadata. */
};

struct dp_packet {
    uint8_t *data;              /* First byte of the Ethernet header. */
    uint32_t size;              /* Bytes from 'data' to the end of frame. */
    uint32_t rss_hash;          /* 5-tuple or kernel hash; see hash.h. */
    uint16_t in_port;           /* Datapath port number it arrived on. */
    uint16_t flags;             /* DP_PACKET_F_*. */
    struct virtio_net_hdr vnet; /* Offload metadata, host byte order as the
                                 * kernel hands it (little endian). */
    uint16_t headroom;          /* Writable bytes before 'data'. */
    uint32_t tun_id;            /* VNI of the tunnel that delivered it, or
                                 * that a vxlan port with "key": "flow"
                                 * sends it with; 0 for none. */
};

static inline void
dp_packet_set_rss_hash(struct dp_packet *p, uint32_t hash)
{
    p->rss_hash = hash;
    p->flags |= DP_PACKET_F_RSS_VALID;
}

static inline bool
dp_packet_rss_valid(const struct dp_packet *p)
{
    return p->flags & DP_PACKET_F_RSS_VALID;
}

/* Resets 'p' to describe 'size' bytes at 'data', with no metadata and the
 * DP_PACKET_HEADROOM bytes before 'data' that every provider leaves (a
 * caller with less sets 'headroom' afterwards). */
static inline void
dp_packet_init(struct dp_packet *p, uint8_t *data, uint32_t size,
               uint16_t in_port)
{
    p->data = data;
    p->size = size;
    p->rss_hash = 0;
    p->in_port = in_port;
    p->flags = 0;
    p->headroom = DP_PACKET_HEADROOM;
    p->tun_id = 0;
}

/* Inserts an 802.1Q/802.1ad tag with 'tpid' and 'tci' (host order) after
 * the MAC addresses, growing the frame into the 4 bytes before 'p->data',
 * and shifts the offsets in 'p->vnet' (if DP_PACKET_F_VNET is set) by the
 * tag's length.  The caller guarantees that headroom exists
 * ('p->headroom' of at least VLAN_HEADER_LEN), and this uses it up. */
void dp_packet_push_vlan(struct dp_packet *p, uint16_t tpid, uint16_t tci);

/* Removes the 4 bytes after the MAC addresses (the outer tag), moving the
 * MAC addresses forward, which gives the tag's bytes back as headroom, and
 * shifts the offsets in 'p->vnet' (if DP_PACKET_F_VNET is set) back by the
 * tag's length.  The caller guarantees that 'p' is at least 18 bytes long
 * and carries a tag there. */
void dp_packet_pop_vlan(struct dp_packet *p);

#endif /* dp-packet.h */
