/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Text forms of flow keys, in Open vSwitch's flow syntax.
 *
 * flow_format() writes a flow, or a megaflow (a flow and its mask), the
 * way dump-flows and the upcall trace show keys: every field under its own
 * name, dl_type and nw_proto in hex and decimal, "in_port=" first.
 *
 * flow_format_packet() writes the exact flow of one packet the way Open
 * vSwitch's flow_to_string() does, and so the way "ovs-ofctl parse-pcap"
 * prints it: a protocol shorthand first ("tcp", "udp6", "arp", "ip", ...)
 * in place of dl_type and nw_proto, in_port only when it is not 0, and
 * both VLAN tags, e.g.
 *
 *   tcp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,
 *   nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,
 *   nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=syn
 *
 * (one line).  Which fields appear depends on the protocols alone, as in
 * OVS: a header the parser could not reach shows its fields as zeros.
 * Fields that struct flow does not have (MPLS, IGMP type and group, SNAP
 * ethertypes, RARP addresses) never appear; such frames show "dl_type=".
 *
 * Both write into a caller's buffer, truncating rather than overflowing,
 * and may be called from any thread.
 */
#ifndef FLOW_FORMAT_H
#define FLOW_FORMAT_H 1

#include <stddef.h>

struct flow;

/* A buffer this size holds any formatted flow or megaflow. */
#define FLOW_FORMAT_BUFSIZE 512

/* Formats 'flow' (restricted to 'mask' if non-NULL) in Open vSwitch's flow
 * syntax, e.g. "in_port=1,dl_src=...,dl_dst=...,dl_type=0x0800,...", into
 * 'buf' of 'size' bytes, truncated if need be and always NUL-terminated
 * when 'size' > 0.  A NULL 'mask' means an exact match on every field the
 * flow's protocols define.  Returns 'buf'. */
char *flow_format(const struct flow *flow, const struct flow *mask,
                  char *buf, size_t size);

/* Formats 'flow', the exact key of a packet as miniflow_extract() and
 * miniflow_expand() give it, into 'buf' of 'size' bytes as Open vSwitch's
 * flow_to_string() would (see the top of this file), truncated if need be
 * and always NUL-terminated when 'size' > 0.  Returns 'buf'. */
char *flow_format_packet(const struct flow *flow, char *buf, size_t size);

#endif /* flow-format.h */
