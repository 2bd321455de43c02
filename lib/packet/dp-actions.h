/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Datapath actions: what a megaflow does to the packets it matches.  The
 * slow path (ofproto/xlate.c) builds them, the flow table stores them,
 * dp/dp-actions-execute.c runs them and dp-actions-format.c prints them.
 */
#ifndef DP_ACTIONS_H
#define DP_ACTIONS_H 1

#include <stdint.h>
#include <string.h>
#include "packet/packets.h"

/* Datapath actions run in order on a packet; each output sends the packet
 * as the actions before it have left it.  Build them with dp_action_init()
 * or zero them first: revalidation compares action lists with memcmp(). */
enum dp_action_type {
    DP_ACTION_OUTPUT,           /* Send to port 'port'. */
    DP_ACTION_PUSH_VLAN,        /* Push a tag: 'vlan.tpid', 'vlan.tci'. */
    DP_ACTION_POP_VLAN,         /* Remove the outer tag. */
    DP_ACTION_SET_VLAN_TCI,     /* Set the 'vlan.tci_mask' bits of the outer
                                 * tag's TCI to 'vlan.tci'. */
    DP_ACTION_SET_ETH_SRC,      /* 'mac'. */
    DP_ACTION_SET_ETH_DST,      /* 'mac'. */
    DP_ACTION_SET_IPV4_SRC,     /* 'ipv4'; IPv4 and L4 checksums updated. */
    DP_ACTION_SET_IPV4_DST,     /* 'ipv4'; IPv4 and L4 checksums updated. */
    DP_ACTION_SET_TP_SRC,       /* 'tp_port' of TCP, UDP or SCTP. */
    DP_ACTION_SET_TP_DST,       /* 'tp_port' of TCP, UDP or SCTP. */
    DP_ACTION_SET_TUN_ID,       /* 'tun_id': the VNI a vxlan port with
                                 * "key": "flow" sends the packet with. */
    DP_ACTION_BOND_OUTPUT,      /* Send to a member of bond port 'port',
                                 * chosen by 'hash' (balance-slb), or by the
                                 * packet's RSS hash if 'hash' is 0. */
    DP_ACTION_PATCH,            /* The packet crosses from patch port 'port'
                                 * to its peer 'patch.peer' (counted as
                                 * sent on one, received on the other).  If
                                 * 'patch.n_nested' is nonzero, the next
                                 * 'patch.n_nested' actions (the peer
                                 * bridge's) run on a copy, and the actions
                                 * after them on the packet as it was. */
};

struct dp_action {
    uint16_t type;              /* DP_ACTION_*. */
    uint16_t port;              /* OUTPUT, BOND_OUTPUT: datapath port. */
    union {
        struct {
            ovs_be16 tpid;      /* PUSH_VLAN: 0x8100 or 0x88a8. */
            ovs_be16 tci;       /* PUSH_VLAN (CFI set), SET_VLAN_TCI. */
            ovs_be16 tci_mask;  /* SET_VLAN_TCI: the bits it sets. */
        } vlan;
        struct eth_addr mac;
        ovs_be32 ipv4;
        ovs_be16 tp_port;
        uint32_t tun_id;
        uint32_t hash;
        struct {
            uint16_t peer;      /* PATCH: the port it arrives on. */
            uint16_t n_nested;  /* PATCH: actions on a copy, or 0. */
        } patch;
    };
};

/* Zeroes 'a' (padding too) and sets its type. */
static inline void
dp_action_init(struct dp_action *a, enum dp_action_type type)
{
    memset(a, 0, sizeof *a);
    a->type = type;
}

#endif /* packet/dp-actions.h */
