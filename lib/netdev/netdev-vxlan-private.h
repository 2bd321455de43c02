/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * What netdev-vxlan.c (the port, its receive side) and netdev-vxlan-tx.c
 * (its transmit side) share.  Not for other modules: netdev-vxlan.h is the
 * port's interface.
 */
#ifndef NETDEV_VXLAN_PRIVATE_H
#define NETDEV_VXLAN_PRIVATE_H 1

#include <netinet/in.h>
#include <sys/socket.h>
#include "netdev/netdev-provider.h"
#include "netdev/netdev-vxlan.h"
#include "packet/vxlan.h"
#include "base/util.h"

struct vxlan_fdb;

/* UDP sockets per tx queue, each bound to a source port of its own: a
 * frame leaves from the one its RSS hash picks, so that the underlay
 * spreads flows and every frame of a flow has the same outer header. */
#define VXLAN_TX_SOCKETS 32

/* Messages per sendmmsg(): a batch, and copies of a flood to a few
 * remotes, in one call. */
#define VXLAN_TX_MSGS 64

/* Largest frame whose checksum the port finishes: a jumbo frame. */
#define VXLAN_TX_CSUM_MAX (9216 + 128)

/* Most bytes of VXLAN payload in one UDP GSO send: what fits one IPv4
 * datagram's length field. */
#define VXLAN_TX_GSO_MAX (65535 - 20 - 8)

/* Most segments in one UDP GSO send (the kernel's UDP_MAX_SEGMENTS). */
#define VXLAN_TX_GSO_SEGS 64

struct netdev_vxlan_txq {
    /* Control thread; the PMD reads them. */
    int fds[VXLAN_TX_SOCKETS];  /* -1 if closed. */

    /* PMD only (the one that sends on this queue). */
    int msgs_fd;                /* The socket the queued messages go to. */
    bool no_udp_gso;            /* The kernel refused a UDP GSO send with
                                 * EIO: segments go one by one. */
    struct mmsghdr msgs[VXLAN_TX_MSGS];
    struct iovec iovs[VXLAN_TX_MSGS][2];
    uint8_t hdrs[VXLAN_TX_MSGS][VXLAN_HEADER_LEN];
    union {
        struct cmsghdr align;
        uint8_t buf[CMSG_SPACE(sizeof(int))];
    } cmsgs[VXLAN_TX_MSGS];
    uint8_t *csum_bufs;         /* VXLAN_TX_MSGS of VXLAN_TX_CSUM_MAX. */
    uint8_t *gso_buf;           /* VXLAN_TX_GSO_MAX: a GSO frame's
                                 * segments, each behind its header. */

    /* Written by that PMD, read by anyone. */
    struct netdev_stats stats;
};

struct netdev_vxlan {
    struct netdev up;

    /* Set by construct, then read only. */
    struct netdev_vxlan_options opts;
    struct sockaddr_in remotes[NETDEV_VXLAN_MAX_REMOTES];
    int underlay_mtu;           /* Towards remotes[0] at open; 0 unknown. */
    uint32_t max_frame;         /* Largest inner frame: the underlay MTU
                                 * less NETDEV_VXLAN_OVERHEAD; 0 unknown. */
    struct netdev_vxlan_txq *txqs;  /* 'max_txq' of them. */

    /* Learned by the rx PMD, read by the tx PMDs (several remotes only). */
    struct vxlan_fdb *fdb;
};

static inline struct netdev_vxlan *
netdev_vxlan_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_vxlan, up);
}

/* Opens the sockets of tx queue 'txq' of 'dev'.  On failure returns a
 * positive errno with a message in '*errp' and leaves nothing open.
 * Control thread. */
int netdev_vxlan_txq_open(struct netdev_vxlan *dev,
                          struct netdev_vxlan_txq *txq, char **errp);

/* Closes what netdev_vxlan_txq_open() opened (nothing if it did not).
 * Control thread. */
void netdev_vxlan_txq_close(struct netdev_vxlan_txq *txq);

/* The provider's send op (netdev-provider.h).  PMD thread. */
void netdev_vxlan_send(struct netdev *netdev, int qid,
                       struct dp_batch *batch);

#endif /* netdev-vxlan-private.h */
