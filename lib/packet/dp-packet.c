/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <autoconf.h>
#include "packet/dp-packet.h"

#include <string.h>
#include <arpa/inet.h>

void
dp_packet_push_vlan(struct dp_packet *p, uint16_t tpid, uint16_t tci)
{
    uint8_t *new_data = p->data - 4;
    uint16_t tag[2] = { htons(tpid), htons(tci) };

    memmove(new_data, p->data, 12);
    memcpy(new_data + 12, tag, sizeof tag);
    p->data = new_data;
    p->size += 4;
    p->headroom -= 4;

    /* Offload offsets count from the MAC header, so they move with the
     * tag. */
    if (p->flags & DP_PACKET_F_VNET) {
        if (p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
            p->vnet.csum_start += 4;
        }
        if (p->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE && p->vnet.hdr_len) {
            p->vnet.hdr_len += 4;
        }
    }
}

void
dp_packet_pop_vlan(struct dp_packet *p)
{
    uint8_t *new_data = p->data + 4;

    memmove(new_data, p->data, 12);
    p->data = new_data;
    p->size -= 4;
    p->headroom += 4;

    if (p->flags & DP_PACKET_F_VNET) {
        if (p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM
            && p->vnet.csum_start >= 4) {
            p->vnet.csum_start -= 4;
        }
        if (p->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE
            && p->vnet.hdr_len >= 4) {
            p->vnet.hdr_len -= 4;
        }
    }
}
