/*
 * Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
 *
 * The "mmsg" port provider: plain AF_PACKET sockets, receive by recvmmsg()
 * and transmit by sendmmsg(), a batch per system call.  It is the fallback
 * for kernels without TPACKET_V3 and the reference the ring provider is
 * checked against.
 *
 * Each rx queue owns one socket and a preallocated buffer per batch slot,
 * each large enough for a 64 KB GSO frame plus headroom to put back a VLAN
 * tag that the kernel handed over as metadata.  With several rx queues the
 * sockets form a PACKET_FANOUT_HASH group, so the kernel spreads flows over
 * them.  Each tx queue owns a transmit-only socket.
 *
 * Counters have one writer each: an rx queue's PMD writes its receive
 * counters, netdev_run() on the control thread writes the kernel drop
 * counter (rx_ring_full), and a tx queue's PMD writes its transmit
 * counters.  get_stats sums them with relaxed loads.
 */
#include <autoconf.h>
#include "netdev-provider.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet_compat.h>
#include <linux/virtio_net.h>
#include "packets.h"
#include "util.h"

/* Largest frame accepted: a 64 KB GSO frame with its Ethernet header and
 * one VLAN tag, rounded up. */
#define MMSG_FRAME_MAX (65536 + 128)

/* Bytes per receive slot: VLAN headroom, then the frame.  The vnet header
 * is scattered straight into the dp_packet, not into the slot. */
#define MMSG_SLOT_SIZE ROUND_UP(DP_PACKET_HEADROOM + MMSG_FRAME_MAX, \
                                CACHE_LINE_SIZE)

BUILD_ASSERT_DECL(DP_PACKET_HEADROOM >= VLAN_HEADER_LEN);

/* Room for the PACKET_AUXDATA control message (VLAN tag). */
#define MMSG_CMSG_SIZE CMSG_SPACE(sizeof(struct tpacket_auxdata))

struct netdev_mmsg_rxq {
    struct netdev_rxq up;

    /* Set at construction, then read only. */
    int fd;                         /* Packet socket, this queue only. */
    uint8_t *slots;                 /* DP_BATCH_SIZE * MMSG_SLOT_SIZE. */

    /* PMD only (the queue's single poller). */
    struct dp_packet packets[DP_BATCH_SIZE];
    struct mmsghdr msgs[DP_BATCH_SIZE];
    struct iovec iovs[DP_BATCH_SIZE][2];
    struct sockaddr_ll addrs[DP_BATCH_SIZE];
    union {
        struct cmsghdr align;
        uint8_t buf[MMSG_CMSG_SIZE];
    } cmsgs[DP_BATCH_SIZE];
    uint32_t n_dirty;               /* Messages the last call filled. */

    /* Counters: receive ones written by the PMD, rx_ring_full by the
     * control thread; read by anyone with netdev_counter_read(). */
    struct netdev_stats stats CACHE_ALIGNED;
    uint64_t n_outgoing;            /* Our port's own transmissions seen
                                     * (fanout without IGNORE_OUTGOING);
                                     * not received frames. */
    int last_error;                 /* Last receive error, 0 if none
                                     * since frames last arrived. */
};

struct netdev_mmsg_txq {
    int fd;                         /* Transmit-only packet socket. */
    struct netdev_stats stats;      /* Written by the queue's PMD only. */
} CACHE_ALIGNED;

struct netdev_mmsg {
    struct netdev up;

    /* Set at construction, then read only. */
    struct netdev_mmsg_txq *txqs;   /* up.n_txq entries. */
    int fanout_id;                  /* -1 until rx queue 0 makes a group. */
    bool fanout_ignores_outgoing;   /* The kernel filters our own tx. */
    int rcvbuf;                     /* SO_RCVBUF the kernel granted. */
};

static struct netdev_mmsg *
netdev_mmsg_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_mmsg, up);
}

static struct netdev_mmsg_rxq *
netdev_mmsg_rxq_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_mmsg_rxq, up);
}

static struct netdev *
netdev_mmsg_alloc(void)
{
    struct netdev_mmsg *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

static void
netdev_mmsg_dealloc(struct netdev *netdev)
{
    free(netdev_mmsg_cast(netdev));
}

/* Closes the sockets of the first 'n' tx queues and frees the array. */
static void
close_txqs(struct netdev_mmsg *dev, int n)
{
    for (int i = 0; i < n; i++) {
        close(dev->txqs[i].fd);
    }
    free(dev->txqs);
    dev->txqs = NULL;
}

static int
netdev_mmsg_construct(struct netdev *netdev,
                      const struct netdev_options *opts, char **errp)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    dev->fanout_id = -1;
    dev->txqs = xzalloc_cacheline(netdev->n_txq * sizeof *dev->txqs);
    for (int i = 0; i < netdev->n_txq; i++) {
        int fd = netdev_linux_packet_socket(netdev->ifindex, false);

        if (fd < 0) {
            *errp = xasprintf("interface %s: cannot open transmit socket "
                              "(%s)", netdev->name, strerror(-fd));
            close_txqs(dev, i);
            return -fd;
        }
        dev->txqs[i].fd = fd;
    }
    return 0;
}

static void
netdev_mmsg_destruct(struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    close_txqs(dev, netdev->n_txq);
}

static struct netdev_rxq *
netdev_mmsg_rxq_alloc(void)
{
    struct netdev_mmsg_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    rxq->fd = -1;
    return &rxq->up;
}

static void
netdev_mmsg_rxq_dealloc(struct netdev_rxq *rxq_)
{
    free(netdev_mmsg_rxq_cast(rxq_));
}

/* Puts rx socket 'fd' of queue 'qid' into the port's fanout group, making
 * the group when 'qid' is 0.  Returns 0 or a positive errno. */
static int
join_fanout(struct netdev_mmsg *dev, int fd, int qid)
{
    int flags = PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
    int value;

    if (!qid) {
        socklen_t len = sizeof value;

        /* The kernel picks an id no other group in the namespace uses. */
        value = (flags | PACKET_FANOUT_FLAG_UNIQUEID) << 16;
        if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &value, sizeof value)) {
            /* Kernels before 6.9 do not know IGNORE_OUTGOING for groups;
             * then rxq_recv skips our own frames by packet type. */
            flags &= ~PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
            value = (flags | PACKET_FANOUT_FLAG_UNIQUEID) << 16;
            if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &value,
                           sizeof value)) {
                return errno;
            }
        }
        if (getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &value, &len)) {
            return errno;
        }
        dev->fanout_id = value & 0xffff;
        dev->fanout_ignores_outgoing
            = (flags & PACKET_FANOUT_FLAG_IGNORE_OUTGOING) != 0;
        return 0;
    }

    if (dev->fanout_id < 0) {
        return EINVAL;
    }
    if (!dev->fanout_ignores_outgoing) {
        flags &= ~PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
    }
    value = (flags << 16) | dev->fanout_id;
    return setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &value, sizeof value)
           ? errno : 0;
}

/* Points message 'i' of 'rxq' at its slot, address and control buffer. */
static void
reset_msg(struct netdev_mmsg_rxq *rxq, uint32_t i)
{
    struct msghdr *mh = &rxq->msgs[i].msg_hdr;

    mh->msg_name = &rxq->addrs[i];
    mh->msg_namelen = sizeof rxq->addrs[i];
    mh->msg_control = rxq->cmsgs[i].buf;
    mh->msg_controllen = sizeof rxq->cmsgs[i].buf;
    mh->msg_flags = 0;
}

static void
init_msgs(struct netdev_mmsg_rxq *rxq)
{
    for (uint32_t i = 0; i < DP_BATCH_SIZE; i++) {
        struct msghdr *mh = &rxq->msgs[i].msg_hdr;

        /* The vnet header lands in the packet's metadata, the frame after
         * the headroom in the slot. */
        rxq->iovs[i][0].iov_base = &rxq->packets[i].vnet;
        rxq->iovs[i][0].iov_len = sizeof rxq->packets[i].vnet;
        rxq->iovs[i][1].iov_base = (rxq->slots + i * MMSG_SLOT_SIZE
                                    + DP_PACKET_HEADROOM);
        rxq->iovs[i][1].iov_len = MMSG_FRAME_MAX;
        mh->msg_iov = rxq->iovs[i];
        mh->msg_iovlen = 2;
        reset_msg(rxq, i);
    }
    rxq->n_dirty = 0;
}

static int
netdev_mmsg_rxq_construct(struct netdev_rxq *rxq_, char **errp)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);
    struct netdev *netdev = rxq_->netdev;
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);
    int error;
    int fd;

    fd = netdev_linux_packet_socket(netdev->ifindex, true);
    if (fd < 0) {
        *errp = xasprintf("interface %s: cannot open receive socket for "
                          "queue %d (%s)", netdev->name, rxq_->qid,
                          strerror(-fd));
        return -fd;
    }
    if (netdev->n_rxq > 1) {
        error = join_fanout(dev, fd, rxq_->qid);
        if (error) {
            *errp = xasprintf("interface %s: queue %d cannot join fanout "
                              "group (%s)", netdev->name, rxq_->qid,
                              strerror(error));
            close(fd);
            return error;
        }
    }
    if (!rxq_->qid) {
        socklen_t len = sizeof dev->rcvbuf;

        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &dev->rcvbuf, &len)) {
            dev->rcvbuf = -1;
        }
    }

    rxq->fd = fd;
    rxq->slots = xzalloc_cacheline(DP_BATCH_SIZE * MMSG_SLOT_SIZE);
    init_msgs(rxq);
    return 0;
}

static void
netdev_mmsg_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);

    close(rxq->fd);
    rxq->fd = -1;
    free(rxq->slots);
    rxq->slots = NULL;
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
 * errno for rxq_recv to return. */
static int
rxq_error(struct netdev_mmsg_rxq *rxq, int error)
{
    if (error == EAGAIN || error == EINTR) {
        return EAGAIN;
    }
    /* Read by get_status on the control thread. */
    __atomic_store_n(&rxq->last_error, error, __ATOMIC_RELAXED);
    if (error != ENETDOWN) {
        netdev_counter_add(&rxq->stats.rx_errors, 1);
    }
    return error;
}

static int
netdev_mmsg_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                     uint16_t port_no)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);
    uint32_t room = DP_BATCH_SIZE - batch->count;
    uint32_t n_truncated = 0;
    uint32_t n_outgoing = 0;
    uint32_t n_runts = 0;
    uint32_t n_packets = 0;
    uint64_t n_bytes = 0;
    int n;

    /* The kernel rewrote the name, control and flags of the messages it
     * filled last time; give them their full sizes back. */
    for (uint32_t i = 0; i < rxq->n_dirty; i++) {
        reset_msg(rxq, i);
    }
    rxq->n_dirty = 0;

    n = recvmmsg(rxq->fd, rxq->msgs, room, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        return n < 0 ? rxq_error(rxq, errno) : EAGAIN;
    }
    rxq->n_dirty = n;

    for (int i = 0; i < n; i++) {
        struct msghdr *mh = &rxq->msgs[i].msg_hdr;
        struct dp_packet *p = &rxq->packets[i];
        uint32_t len = rxq->msgs[i].msg_len;
        uint32_t vlan;

        if (UNLIKELY(rxq->addrs[i].sll_pkttype == PACKET_OUTGOING)) {
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

        dp_packet_init(p, rxq->iovs[i][1].iov_base, len - sizeof p->vnet,
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
        netdev_counter_add(&rxq->stats.rx_packets, n_packets);
        netdev_counter_add(&rxq->stats.rx_bytes, n_bytes);
        if (UNLIKELY(rxq->last_error)) {
            __atomic_store_n(&rxq->last_error, 0, __ATOMIC_RELAXED);
        }
    }
    if (UNLIKELY(n_truncated)) {
        netdev_counter_add(&rxq->stats.rx_truncated, n_truncated);
    }
    if (UNLIKELY(n_runts)) {
        netdev_counter_add(&rxq->stats.rx_errors, n_runts);
    }
    if (UNLIKELY(n_outgoing)) {
        netdev_counter_add(&rxq->n_outgoing, n_outgoing);
    }
    return n_packets ? 0 : EAGAIN;
}

static void
netdev_mmsg_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    struct netdev_mmsg_txq *txq = &netdev_mmsg_cast(netdev)->txqs[qid];

    netdev_linux_sendmmsg(txq->fd, batch, &txq->stats);
}

/* Adds every counter of 'src' to 'dst' with relaxed loads. */
static void
stats_sum(struct netdev_stats *dst, const struct netdev_stats *src)
{
    const uint64_t *s = (const uint64_t *) src;
    uint64_t *d = (uint64_t *) dst;

    BUILD_ASSERT(sizeof *src % sizeof(uint64_t) == 0);
    for (size_t i = 0; i < sizeof *src / sizeof(uint64_t); i++) {
        d[i] += netdev_counter_read(&s[i]);
    }
}

static void
netdev_mmsg_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    for (int i = 0; i < netdev->n_rxq; i++) {
        stats_sum(st, &netdev_mmsg_rxq_cast(netdev->rxqs[i])->stats);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        stats_sum(st, &dev->txqs[i].stats);
    }
}

static int
netdev_mmsg_health(const struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    return netdev_linux_link_health(dev->txqs[0].fd, netdev->ifindex, netdev->name);
}

static void
netdev_mmsg_run(struct netdev *netdev)
{
    /* The kernel resets PACKET_STATISTICS on each read; this thread is
     * the only writer of rx_ring_full. */
    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(netdev->rxqs[i]);

        netdev_linux_accumulate_drops(rxq->fd, &rxq->stats.rx_ring_full);
    }
}

static void
netdev_mmsg_get_status(const struct netdev *netdev, char *buf, size_t size)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);
    uint64_t n_outgoing = 0;
    int last_error = 0;

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(netdev->rxqs[i]);
        int error = __atomic_load_n(&rxq->last_error, __ATOMIC_RELAXED);

        n_outgoing += netdev_counter_read(&rxq->n_outgoing);
        last_error = error ? error : last_error;
    }
    snprintf(buf, size, "mmsg: n_rxq=%d, n_txq=%d, rcvbuf=%d, fanout=%s, "
             "ignored_outgoing=%llu, last_rx_error=%s",
             netdev->n_rxq, netdev->n_txq, dev->rcvbuf,
             (netdev->n_rxq < 2 ? "none"
              : dev->fanout_ignores_outgoing ? "hash,ignore-outgoing"
              : "hash"),
             (unsigned long long) n_outgoing,
             last_error ? strerror(last_error) : "none");
}

const struct netdev_class netdev_mmsg_class = {
    .type = "mmsg",
    .alloc = netdev_mmsg_alloc,
    .construct = netdev_mmsg_construct,
    .destruct = netdev_mmsg_destruct,
    .dealloc = netdev_mmsg_dealloc,
    .rxq_alloc = netdev_mmsg_rxq_alloc,
    .rxq_construct = netdev_mmsg_rxq_construct,
    .rxq_destruct = netdev_mmsg_rxq_destruct,
    .rxq_dealloc = netdev_mmsg_rxq_dealloc,
    .rxq_recv = netdev_mmsg_rxq_recv,
    .send = netdev_mmsg_send,
    .get_stats = netdev_mmsg_get_stats,
    .health = netdev_mmsg_health,
    .run = netdev_mmsg_run,
    .get_status = netdev_mmsg_get_status,
};
