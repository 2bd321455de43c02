/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Turning a flow back into a frame, as Open vSwitch's flow_compose(): for
 * netdev-dummy/receive with a flow in the match syntax, and for tests.
 * The frame carries every field of the flow that the protocols it names
 * have (Ethernet, up to two VLAN tags, ARP, IPv4, IPv6 with a fragment
 * header for a fragment, TCP, UDP, SCTP, ICMP, ICMPv6 with the neighbor
 * discovery target and link-layer options), with valid lengths and IPv4,
 * TCP, UDP, SCTP (CRC32c), ICMP and ICMPv6 checksums, so that
 * miniflow_extract() gives the flow back.  Fields the protocols do not
 * have are ignored; a frame shorter than 60 bytes is padded with zeros.
 *
 * Any thread; no global state.
 */
#ifndef FLOW_COMPOSE_H
#define FLOW_COMPOSE_H 1

#include <stddef.h>
#include <stdint.h>

struct flow;

/* Largest frame flow_compose() makes (without payload). */
#define FLOW_COMPOSE_MAX 256

/* Writes the frame for 'flow' into 'buf' ('size' bytes, at least
 * FLOW_COMPOSE_MAX) and returns its length.  'payload' bytes of zeros
 * follow the innermost header (at most 'size' - FLOW_COMPOSE_MAX). */
size_t flow_compose(const struct flow *flow, size_t payload, uint8_t *buf,
                    size_t size);

/* The Internet checksum of the 'size' bytes at 'data' added to 'sum' (a
 * running 32-bit sum, 0 to start), folded and complemented. */
uint16_t flow_compose_csum(uint32_t sum, const void *data, size_t size);

#endif /* flow-compose.h */
