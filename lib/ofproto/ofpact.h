/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Rule actions ("ofpacts"): parsing an ovs-ofctl action list such as
 * "mod_vlan_vid:10,output:p2" into an array of 'struct ofpact', and
 * formatting it back in canonical ovs-ofctl spelling.  The rule table
 * (ofproto-rules.h) keeps parsed actions; the translation (xlate.c) turns
 * them into datapath actions for each packet.
 *
 * Accepted actions, comma separated, run in order:
 *   output:PORT            PORT a name or a number
 *   normal  flood          (any case, as in OVS)
 *   drop                   only alone
 *   push_vlan:TPID         0x8100 or 0x88a8; the new tag has VID 0, PCP 0
 *   pop_vlan  strip_vlan
 *   mod_vlan_vid:VID       0..4095; pushes an 802.1Q tag if untagged
 *   mod_vlan_pcp:PCP       0..7; pushes an 802.1Q tag if untagged
 *   set_field:VALUE->FIELD FIELD one of eth_src eth_dst ip_src ip_dst
 *                          (nw_src nw_dst) tcp_src tcp_dst udp_src udp_dst
 *   set_field:VNI->tun_id  the VNI a vxlan port with "key": "flow" sends
 *   set_tunnel:VNI         with, 0..2^24-1 (Open vSwitch's tun_id is 64
 *                          bits; VXLAN carries 24)
 *   mod_dl_src: mod_dl_dst: mod_nw_src: mod_nw_dst: mod_tp_src: mod_tp_dst:
 * An IP rewrite needs a match on IPv4 ("ip"), a TCP or UDP one a match on
 * that protocol, mod_tp_* one on TCP, UDP or SCTP: as in OVS, the match
 * must guarantee the header exists.
 *
 * Any thread; no global state.
 */
#ifndef OFPACT_H
#define OFPACT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
#include "ofproto/match-parse.h"
#include "packet/packets.h"

struct flow;

enum ofpact_type {
    OFPACT_OUTPUT,              /* 'port'. */
    OFPACT_NORMAL,
    OFPACT_FLOOD,               /* Every port but the input port. */
    OFPACT_PUSH_VLAN,           /* 'tpid'. */
    OFPACT_POP_VLAN,
    OFPACT_SET_VLAN_VID,        /* 'vid'. */
    OFPACT_SET_VLAN_PCP,        /* 'pcp'. */
    OFPACT_SET_ETH_SRC,         /* 'mac'. */
    OFPACT_SET_ETH_DST,         /* 'mac'. */
    OFPACT_SET_IPV4_SRC,        /* 'ipv4'. */
    OFPACT_SET_IPV4_DST,        /* 'ipv4'. */
    OFPACT_SET_TP_SRC,          /* 'tp_port'. */
    OFPACT_SET_TP_DST,          /* 'tp_port'. */
    OFPACT_SET_TUN_ID,          /* 'tun_id'. */
};

/* One action.  Zeroed before it is filled, so ofpacts compare with
 * memcmp(). */
struct ofpact {
    uint16_t type;              /* OFPACT_*. */
    uint16_t port;              /* OUTPUT: datapath port number. */
    union {
        ovs_be16 tpid;
        uint16_t vid;
        uint8_t pcp;
        struct eth_addr mac;
        ovs_be32 ipv4;
        ovs_be16 tp_port;
        uint32_t tun_id;
    };
};

/* Writes the name of port 'port_no' into 'name' ('size' bytes) and returns
 * true, or returns false if it has none. */
typedef bool ofpact_port_name_cb(uint16_t port_no, char *name, size_t size,
                                 void *aux);

/* Parses 'text' into a new array of actions stored in '*ofpactsp' (to free
 * with free(); NULL when empty) and their number in '*n_ofpactsp' (0 means
 * drop).  'match' and 'mask' are the rule's match as match_parse() gives
 * it, for the prerequisite checks.  Port names are resolved with 'lookup'
 * and 'aux'; a number names a port without lookup.
 *
 * Returns NULL, or an error message for the caller to free that names the
 * offending action, e.g. 'unknown action "foo"'; the outputs are then
 * NULL and 0. */
char *ofpacts_parse(const char *text, const struct flow *match,
                    const struct flow *mask, match_port_lookup_cb *lookup,
                    void *aux, struct ofpact **ofpactsp, size_t *n_ofpactsp)
    WARN_UNUSED_RESULT;

/* Formats the 'n' actions in 'ofpacts' in canonical ovs-ofctl spelling
 * ("drop" when 'n' is 0) into 'buf' of 'size' bytes, truncated if need be
 * and NUL-terminated when 'size' > 0.  Output ports are printed by name
 * when 'port_name' (called with 'aux') gives one, else by number.
 * Returns 'buf'. */
char *ofpacts_format(const struct ofpact *ofpacts, size_t n,
                     ofpact_port_name_cb *port_name, void *aux,
                     char *buf, size_t size);

#endif /* ofpact.h */
