/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * recvmmsg() receive from a plain AF_PACKET socket, shared by the "mmsg"
 * and "tpacket" providers; see netdev-mmsg-rx.h.  The kernel copies each
 * frame into this module's buffers inside the recvmmsg() call, so the copy
 * runs on the reading PMD's core.
 */
#include <autoconf.h>
#include "netdev/netdev-mmsg-rx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include "netdev/netdev-provider.h"
#include "packet/packets.h"

BUILD_ASSERT_DECL(DP_PACKET_HEADROOM >= VLAN_HEADER_LEN);

/* Points message 'i' of 'rx' at its address and control buffer, with
 * their full sizes. */
static void
reset_msg(struct netdev_mmsg_rx *rx, uint32_t i)
{
    struct msghdr *mh = &rx->msgs[i].msg_hdr;

    mh->msg_name = &rx->addrs[i];
    mh->msg_namelen = sizeof rx->addrs[i];
    mh->msg_control = rx->cmsgs[i].buf;
    mh->msg_controllen = sizeof rx->cmsgs[i].buf;
    mh->msg_flags = 0;
}

void
netdev_mmsg_rx_init(struct netdev_mmsg_rx *rx, int fd)
{
    rx->fd = fd;
    /* Sized for 64 KB frames, but a queue of small frames only ever
     * touches the first page of each buffer: 2 MB per queue would
     * otherwise be resident, a lot on a host with a thousand ports. */
    rx->bufs = xmalloc_pages(DP_BATCH_SIZE * NETDEV_MMSG_RX_BUF_SIZE);
    for (uint32_t i = 0; i < DP_BATCH_SIZE; i++) {
        struct msghdr *mh = &rx->msgs[i].msg_hdr;

        /* The vnet header lands in the packet's metadata, the frame after
         * the headroom in the buffer. */
        rx->iovs[i][0].iov_base = &rx->packets[i].vnet;
        rx->iovs[i][0].iov_len = sizeof rx->packets[i].vnet;
        rx->iovs[i][1].iov_base = (rx->bufs + i * NETDEV_MMSG_RX_BUF_SIZE
                                   + DP_PACKET_HEADROOM);
        rx->iovs[i][1].iov_len = NETDEV_MMSG_RX_FRAME_MAX;
        mh->msg_iov = rx->iovs[i];
        mh->msg_iovlen = 2;
        reset_msg(rx, i);
    }
    rx->n_dirty = 0;
    rx->n_outgoing = 0;
    rx->last_error = 0;
}

void
netdev_mmsg_rx_uninit(struct netdev_mmsg_rx *rx)
{
    free_pages(rx->bufs, DP_BATCH_SIZE * NETDEV_MMSG_RX_BUF_SIZE);
    rx->bufs = NULL;
}

/* Returns the outer VLAN tag the kernel took off message 'mh' as
 * (tpid << 16 | tci), or 0 if it took none. */
static uint32_t
aux_vlan(struct msghdr *mh)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        const struct tpacket_auxdata *aux;

        if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA
            || c->cmsg_len < CMSG_LEN(sizeof *aux)) {
            continue;
        }
        aux = (const struct tpacket_auxdata *) (const void *) CMSG_DATA(c);
        if (aux->tp_status & TP_STATUS_VLAN_VALID) {
            uint16_t tpid = (aux->tp_status & TP_STATUS_VLAN_TPID_VALID
                             ? aux->tp_vlan_tpid : ETH_TYPE_VLAN_8021Q);
            return (uint32_t) tpid << 16 | aux->tp_vlan_tci;
        }
        return 0;
    }
    return 0;
}

/* Counts a receive error other than "nothing to receive".  Returns the
 * errno for the caller to return. */
static int
rx_error(struct netdev_mmsg_rx *rx, struct netdev_stats *stats, int error)
{
    if (error == EAGAIN || error == EINTR) {
        return EAGAIN;
    }
    /* Read by get_status on the control thread. */
    __atomic_store_n(&rx->last_error, error, __ATOMIC_RELAXED);
    if (error != ENETDOWN) {
        netdev_counter_add(&stats->rx_errors, 1);
    }
    return error;
}

int
netdev_mmsg_rx_recv(struct netdev_mmsg_rx *rx, struct dp_batch *batch,
                    uint16_t port_no, struct netdev_stats *stats,
                    bool *dryp)
{
    uint32_t room = DP_BATCH_SIZE - batch->count;
    uint32_t n_truncated = 0;
    uint32_t n_outgoing = 0;
    uint32_t n_runts = 0;
    uint32_t n_packets = 0;
    uint64_t n_bytes = 0;
    int n;

    *dryp = false;
    if (UNLIKELY(!room)) {
        return EAGAIN;
    }

    /* The kernel rewrote the name, control and flags of the messages it
     * filled last time; give them their full sizes back. */
    for (uint32_t i = 0; i < rx->n_dirty; i++) {
        reset_msg(rx, i);
    }
    rx->n_dirty = 0;

    n = recvmmsg(rx->fd, rx->msgs, room, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        /* Only EAGAIN says the queue is empty: a pending error such as
         * ENETDOWN is reported before the queue is looked at.  A short
         * count does not say which of the two stopped the call. */
        *dryp = n < 0 && errno == EAGAIN;
        return n < 0 ? rx_error(rx, stats, errno) : EAGAIN;
    }
    rx->n_dirty = n;

    for (int i = 0; i < n; i++) {
        struct msghdr *mh = &rx->msgs[i].msg_hdr;
        struct dp_packet *p = &rx->packets[i];
        uint32_t len = rx->msgs[i].msg_len;
        uint32_t vlan;

        if (UNLIKELY(rx->addrs[i].sll_pkttype == PACKET_OUTGOING)) {
            /* Not a received frame at all: our own transmission. */
            n_outgoing++;
            continue;
        }
        if (UNLIKELY(mh->msg_flags & MSG_TRUNC)) {
            n_truncated++;
            continue;
        }
        if (UNLIKELY(len < sizeof p->vnet + ETH_HEADER_LEN)) {
            /* Shorter than an Ethernet header: counted as an error. */
            n_runts++;
            continue;
        }

        dp_packet_init(p, rx->iovs[i][1].iov_base, len - sizeof p->vnet,
                       port_no);
        p->flags = DP_PACKET_F_VNET;
        vlan = aux_vlan(mh);
        if (vlan) {
            dp_packet_push_vlan(p, vlan >> 16, vlan & 0xffff);
        }
        n_bytes += p->size;
        n_packets++;
        dp_batch_add(batch, p);
    }

    if (n_packets) {
        netdev_counter_add(&stats->rx_packets, n_packets);
        netdev_counter_add(&stats->rx_bytes, n_bytes);
        if (UNLIKELY(rx->last_error)) {
            __atomic_store_n(&rx->last_error, 0, __ATOMIC_RELAXED);
        }
    }
    if (UNLIKELY(n_truncated)) {
        netdev_counter_add(&stats->rx_truncated, n_truncated);
    }
    if (UNLIKELY(n_runts)) {
        netdev_counter_add(&stats->rx_errors, n_runts);
    }
    if (UNLIKELY(n_outgoing)) {
        netdev_counter_add(&rx->n_outgoing, n_outgoing);
    }
    return n_packets ? 0 : EAGAIN;
}
