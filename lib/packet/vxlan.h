/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The VXLAN wire format (RFC 7348): the 8-byte header that follows the
 * outer UDP header, and the outer UDP header a tunnel port writes itself.
 *
 *   flags (8 bits, only I = 0x08 set) | 24 reserved bits
 *   VNI (24 bits)                     | 8 reserved bits
 *
 * A datagram is refused as the Linux kernel's vxlan device refuses it,
 * so that pmdswitch and a kernel peer agree on what a tunnel carries:
 * the I flag must be set and every reserved bit clear (measured on 6.18:
 * a datagram with any other flag bit or a nonzero reserved byte never
 * reaches the vxlan device's bridge, and counts as an rx error there).
 * Pure functions on bytes; any thread.
 */
#ifndef VXLAN_H
#define VXLAN_H 1

#include <stddef.h>
#include <stdint.h>

#define VXLAN_HEADER_LEN 8
#define VXLAN_UDP_HEADER_LEN 8
#define VXLAN_DEFAULT_PORT 4789     /* IANA's; Linux's vxlan default too. */
#define VXLAN_VNI_MAX 0xffffff
#define VXLAN_FLAG_VNI 0x08         /* The I flag, in the first byte. */

/* Shortest datagram payload that can carry a frame: the header and an
 * Ethernet header. */
#define VXLAN_MIN_PAYLOAD (VXLAN_HEADER_LEN + 14)

/* Source ports for the outer UDP header, as Linux picks them by default
 * (its ip_local_port_range), so that the underlay's ECMP and RSS spread a
 * tunnel's flows as they spread the kernel's. */
#define VXLAN_SRC_PORT_MIN 32768
#define VXLAN_SRC_PORT_MAX 60999

/* Why a received datagram is not a VXLAN frame.  Each has a drop counter
 * named by vxlan_rx_error_name(). */
enum vxlan_rx_error {
    VXLAN_RX_OK,
    VXLAN_RX_TRUNCATED,         /* Shorter than VXLAN_MIN_PAYLOAD. */
    VXLAN_RX_BAD_FLAGS,         /* I flag clear or a reserved bit set. */
    VXLAN_RX_N_ERRORS
};

/* The drop reason of 'error' ("vxlan_truncated", "vxlan_bad_flags"), or ""
 * for VXLAN_RX_OK. */
const char *vxlan_rx_error_name(enum vxlan_rx_error error);

/* Checks the UDP payload 'data' of 'size' bytes.  On VXLAN_RX_OK stores its
 * VNI in '*vni'; the inner frame is the rest after VXLAN_HEADER_LEN. */
enum vxlan_rx_error vxlan_parse(const uint8_t *data, size_t size,
                                uint32_t *vni);

/* Writes the VXLAN header for 'vni' (at most VXLAN_VNI_MAX) into 'hdr'. */
void vxlan_put_header(uint8_t hdr[VXLAN_HEADER_LEN], uint32_t vni);

/* Writes an outer UDP header from 'src' to 'dst' for 'payload_len' bytes
 * (VXLAN header and inner frame) into 'hdr', with checksum 0: RFC 7348
 * asks for 0 over IPv4, and IPv6 sockets fill in the checksum themselves
 * (IPV6_CHECKSUM).  'payload_len' must leave the length within 16 bits. */
void vxlan_put_udp(uint8_t hdr[VXLAN_UDP_HEADER_LEN], uint16_t src,
                   uint16_t dst, size_t payload_len);

/* The outer UDP source port for a frame of RSS hash 'hash': spread evenly
 * over [min, max], the same port for every frame of a flow. */
uint16_t vxlan_src_port(uint32_t hash, uint16_t min, uint16_t max);

#endif /* vxlan.h */
