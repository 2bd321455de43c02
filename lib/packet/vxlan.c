/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The VXLAN wire format (vxlan.h).
 */
#include <autoconf.h>
#include "packet/vxlan.h"

#include "packet/wire.h"

/* The first word as it must be, and the bits of the second word that must
 * be clear (the byte after the VNI). */
#define VXLAN_FLAGS_WORD ((uint32_t) VXLAN_FLAG_VNI << 24)
#define VXLAN_VNI_RESERVED 0xff

const char *
vxlan_rx_error_name(enum vxlan_rx_error error)
{
    switch (error) {
    case VXLAN_RX_TRUNCATED:
        return "vxlan_truncated";
    case VXLAN_RX_BAD_FLAGS:
        return "vxlan_bad_flags";
    case VXLAN_RX_OK:
    case VXLAN_RX_N_ERRORS:
    default:
        return "";
    }
}

enum vxlan_rx_error
vxlan_parse(const uint8_t *data, size_t size, uint32_t *vni)
{
    uint32_t word;

    if (size < VXLAN_MIN_PAYLOAD) {
        return VXLAN_RX_TRUNCATED;
    }
    word = wire_get32(data + 4);
    if (wire_get32(data) != VXLAN_FLAGS_WORD
        || (word & VXLAN_VNI_RESERVED)) {
        return VXLAN_RX_BAD_FLAGS;
    }
    *vni = word >> 8;
    return VXLAN_RX_OK;
}

void
vxlan_put_header(uint8_t hdr[VXLAN_HEADER_LEN], uint32_t vni)
{
    wire_put32(hdr, VXLAN_FLAGS_WORD);
    wire_put32(hdr + 4, (vni & VXLAN_VNI_MAX) << 8);
}

void
vxlan_put_udp(uint8_t hdr[VXLAN_UDP_HEADER_LEN], uint16_t src, uint16_t dst,
              size_t payload_len)
{
    wire_put16(hdr, src);
    wire_put16(hdr + 2, dst);
    wire_put16(hdr + 4, (uint16_t) (VXLAN_UDP_HEADER_LEN + payload_len));
    wire_put16(hdr + 6, 0);
}

uint16_t
vxlan_src_port(uint32_t hash, uint16_t min, uint16_t max)
{
    /* Scaling, not a modulo: every port of the range gets the same share
     * of the hash space, whatever the range's size. */
    uint32_t span = (uint32_t) max - min + 1;

    return min + (uint16_t) (((uint64_t) hash * span) >> 32);
}
