/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "vxlan" provider: a tunnel port with no kernel interface of its own.
 * It receives on a UDP socket bound to the port's local address and UDP
 * port, and sends from a pool of UDP sockets per tx queue, one per source
 * port, the inner flow's hash picking the socket.  The kernel routes, resolves neighbours and picks the egress
 * device; pmdswitch keeps no route or ARP table.  doc/vxlan.md has the
 * design and the kernel behaviour it matches.
 *
 * Counters: tx_packets counts datagrams, so a frame flooded to three
 * remotes counts three, and a TCP GSO frame the port cuts counts one per
 * segment.
 *
 * With several remotes, the port learns which remote each inner source MAC
 * came from (netdev-vxlan-fdb.h) and sends unicast to that MAC to that
 * remote only; broadcast, multicast and MACs it has not seen go to every
 * remote (head-end replication).
 */
#ifndef NETDEV_VXLAN_H
#define NETDEV_VXLAN_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

struct netdev;

/* Most addresses in "remote_ip". */
#define NETDEV_VXLAN_MAX_REMOTES 64

/* Defaults, as Open vSwitch's and the kernel's. */
#define NETDEV_VXLAN_DST_PORT 4789
#define NETDEV_VXLAN_TTL 64

/* "tos": "inherit" (the inner IP header's TOS byte). */
#define NETDEV_VXLAN_TOS_INHERIT (-1)

/* Bytes a frame grows by: outer IPv4, UDP and VXLAN headers.  The largest
 * inner frame (Ethernet header included) is the underlay MTU less 36. */
#define NETDEV_VXLAN_OVERHEAD (20 + 8 + 8)

/* A vxlan port's settings (config-vxlan.h parses them). */
struct netdev_vxlan_options {
    struct in_addr remotes[NETDEV_VXLAN_MAX_REMOTES];
    size_t n_remotes;           /* "remote_ip": at least 1. */
    uint32_t key;               /* "key": the VNI, 0..2^24-1 (default 0). */
    bool key_flow;              /* "key": "flow" (rules set tun_id). */
    struct in_addr local_ip;    /* "local_ip"; INADDR_ANY if unset. */
    uint16_t dst_port;          /* "dst_port", host order. */
    int ttl;                    /* "ttl", 1..255. */
    int tos;                    /* "tos", 0..255 or
                                 * NETDEV_VXLAN_TOS_INHERIT. */
};

/* Receive drops of a vxlan port, by reason (vxlan_rx_error_name() for the
 * first two). */
struct netdev_vxlan_drops {
    uint64_t truncated;         /* Too short to carry a frame. */
    uint64_t bad_flags;         /* I flag clear or a reserved bit set. */
    uint64_t wrong_vni;         /* A VNI other than the port's "key". */
    uint64_t unknown_remote;    /* From an address not in "remote_ip". */
};

/* True if 'netdev' is a vxlan port. */
bool netdev_is_vxlan(const struct netdev *netdev);

/* The settings of vxlan port 'netdev'.  Control thread. */
const struct netdev_vxlan_options *netdev_vxlan_get_options(
    const struct netdev *netdev);

/* Fills '*drops' with the receive drops of vxlan port 'netdev'.  Any
 * thread. */
void netdev_vxlan_get_drops(const struct netdev *netdev,
                            struct netdev_vxlan_drops *drops);

/* The underlay MTU towards the first remote, as the kernel's route says,
 * when the port was opened (0 if unknown).  Control thread. */
int netdev_vxlan_get_underlay_mtu(const struct netdev *netdev);

#endif /* netdev-vxlan.h */
