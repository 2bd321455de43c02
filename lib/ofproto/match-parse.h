/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Parsing of Open vSwitch's flow match syntax, the inverse of
 * flow_format().  It serves "ofproto/trace BRIDGE FLOW", which needs an
 * exact flow, and the rule table, whose "match" strings carry masks.
 *
 * A match is a list of items separated by commas or white space (any run
 * of ", \t\r\n").  An item is "field=value" (or "field:value", as OVS also
 * allows) or a bare protocol shorthand.  Order does not matter: the
 * prerequisites of every field are checked once the whole list is read.
 * "" matches every packet.
 *
 * Shorthands (they set dl_type, and nw_proto where given, exactly):
 *   ip ipv4 ip4 ipv6 ip6 icmp icmp6 tcp tcp6 udp udp6 sctp sctp6 arp
 *   rarp mpls mplsm
 *
 * Fields ("/M" = a bitwise mask may follow, "/N" = a prefix length or
 * mask; "*" as a value matches anything):
 *   in_port              port number, or a name resolved by 'lookup'
 *   dl_src dl_dst        xx:xx:xx:xx:xx:xx[/M]  (aka eth_src, eth_dst)
 *   dl_type              16-bit ethertype        (aka eth_type)
 *   vlan_tci             16-bit TCI[/M]; 0x1000 is "a tag is present"
 *   dl_vlan              VID 0-4095, or 0xffff for "no VLAN tag"
 *   dl_vlan_pcp          0-7                     (aka vlan_pcp)
 *   vlan_tci1            inner tag's TCI[/M] (pmdswitch: flow_format()
 *                        prints it for double-tagged flows)
 *   nw_src nw_dst        a.b.c.d[/N]; IPv4 or ARP (aka ip_src, ip_dst)
 *   arp_spa arp_tpa      a.b.c.d[/N]; ARP
 *   ipv6_src ipv6_dst    IPv6 address[/N]
 *   ipv6_label           20-bit flow label[/M]
 *   nw_proto             0-255; the ARP opcode for ARP (aka ip_proto)
 *   arp_op               0-255 (only the opcode's low byte is kept)
 *   nw_tos               DSCP bits as a TOS byte, a multiple of 4
 *   ip_dscp              0-63
 *   nw_ecn               0-3                     (aka ip_ecn)
 *   nw_ttl               0-255
 *   nw_frag              no, yes, first, later, not_later (aka ip_frag)
 *   tp_src tp_dst        16-bit port[/M] for TCP, UDP or SCTP; also
 *                        tcp_src, udp_src, sctp_src (and _dst), which
 *                        require their own protocol
 *   tcp_flags            flag names joined by '|' (all 12 bits matched),
 *                        "+syn-ack" (only the named flags matched) or
 *                        VALUE/MASK; names fin syn rst psh ack urg ece cwr
 *                        ns [200] [400] [800]
 *   icmp_type icmp_code  0-255; ICMP (pmdswitch also allows ICMPv6, as
 *                        flow_format() prints them for both)
 *   icmpv6_type icmpv6_code  0-255; ICMPv6
 *   arp_sha arp_tha      Ethernet address[/M]; ARP
 *   nd_target            IPv6 address[/N]; neighbor solicitation (135) or
 *                        advertisement (136) with code 0
 *   nd_sll nd_tll        Ethernet address[/M]; either ND message (OVS ties
 *                        nd_sll to 135 and nd_tll to 136; miniflow_extract()
 *                        reads both options from both)
 * Numbers are decimal or "0x" hex.  A decimal number with a leading zero
 * is refused, because OVS would read it as octal.
 *
 * Any thread; no global state.
 */
#ifndef MATCH_PARSE_H
#define MATCH_PARSE_H 1

#include <stdbool.h>
#include <stdint.h>
#include "base/compiler.h"

struct flow;

/* Resolves port 'name' to a datapath port number in '*port_no'.  Returns
 * false if no port has that name. */
typedef bool match_port_lookup_cb(const char *name, uint16_t *port_no,
                                  void *aux);

/* Parses 'text' into 'flow' and 'mask': a 1-bit in 'mask' means that the
 * bit in 'flow' is matched, and 'flow' has no 1-bit outside 'mask'.  A
 * non-numeric in_port is resolved with 'lookup' (called with 'aux'); with
 * a null 'lookup' only port numbers are accepted.
 *
 * Returns NULL on success.  Otherwise returns an error message for the
 * caller to free, which names the offending field or shorthand and says
 * what was expected; 'flow' and 'mask' are then all zeros. */
char *match_parse(const char *text, match_port_lookup_cb *lookup, void *aux,
                  struct flow *flow, struct flow *mask) WARN_UNUSED_RESULT;

#endif /* match-parse.h */
