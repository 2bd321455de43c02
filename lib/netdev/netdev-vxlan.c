/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "vxlan" provider (netdev-vxlan.h; design in doc/vxlan.md): the port
 * and its receive side; netdev-vxlan-tx.c transmits.
 *
 * Receive: one UDP socket, bound to "local_ip":"dst_port", read with
 * recvmmsg() into a buffer per datagram, the first frame at the buffer's
 * headroom, so no frame moves.  With UDP_GRO a read may hold many
 * datagrams of one sender, each its VXLAN header and frame, one after the
 * other: each becomes a packet, over as many batches as it takes.  The kernel has already routed, reassembled and
 * checked the UDP checksum; the port checks the header as the kernel's
 * vxlan device does, the sender against "remote_ip" and the VNI against
 * "key", counting each refusal by reason.  The socket's own drops (buffer
 * full) come with each datagram as SO_RXQ_OVFL.
 *
 * The port reports no offload metadata but takes TCP GSO frames, which
 * its transmit side cuts to the underlay MTU itself; the datapath cuts
 * any other GSO frame first (tx-gso.h).
 */
#include <autoconf.h>
#include "netdev/netdev-vxlan-private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <netinet/udp.h>
#include "netdev/netdev-vxlan-fdb.h"
#include "packet/dp-packet.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(netdev_vxlan);

#ifndef UDP_GRO
#define UDP_GRO 104                 /* linux/udp.h, Linux 5.0. */
#endif

/* Interface indexes of vxlan ports, which have no kernel interface: a
 * range of their own, above the kernel's and the dummy ports'. */
#define NETDEV_VXLAN_IFINDEX_BASE 0x50000000

/* Every this many receive calls, the PMD retires 16 old entries of the
 * remote table: the whole table in 256 rounds, within seconds even when
 * idle, long before an entry's 8-bit tick wraps (35 minutes). */
#define VXLAN_FDB_EXPIRE_EVERY 64

/* Largest datagram payload received whole: what UDP_GRO coalesces, 64 KB
 * of datagrams from one sender, each a VXLAN header and a frame.  A
 * longer one is counted as rx_truncated. */
#define VXLAN_RX_FRAME_MAX 65536
#define VXLAN_RX_BUF_SIZE ROUND_UP(DP_PACKET_HEADROOM + VXLAN_RX_FRAME_MAX,  \
                                   CACHE_LINE_SIZE)

/* Receive socket buffer: about 40 ms of a 10 Gbit/s stream, so that a PMD
 * busy elsewhere for a while does not lose datagrams. */
#define VXLAN_RX_SOCKET_BUF (32 * 1024 * 1024)

struct netdev_vxlan_rxq {
    struct netdev_rxq up;
    int fd;                     /* UDP socket bound to the port's address. */
    uint8_t *bufs;              /* DP_BATCH_SIZE of VXLAN_RX_BUF_SIZE. */

    /* PMD only.  The datagrams of the last recvmmsg() are read over as
     * many calls as their frames need batches: 'cur_msg' and 'cur_ofs'
     * say where the next frame starts. */
    struct dp_packet packets[DP_BATCH_SIZE];
    struct mmsghdr msgs[DP_BATCH_SIZE];
    struct iovec iovs[DP_BATCH_SIZE];
    struct sockaddr_in addrs[DP_BATCH_SIZE];
    union {
        struct cmsghdr align;
        uint8_t buf[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(int))];
    } cmsgs[DP_BATCH_SIZE];
    uint32_t seg_sizes[DP_BATCH_SIZE];  /* Of each datagram: UDP_GRO's
                                         * segment size, or its length. */
    uint32_t n_msgs;            /* Datagrams of the last recvmmsg(). */
    uint32_t cur_msg;           /* The one being read. */
    uint32_t cur_ofs;           /* Offset of its next segment. */
    uint32_t n_calls;           /* rxq_recv() calls, for the expiry. */
    uint32_t expire_pos;        /* Next remote-table slot to expire. */

    /* Written by the PMD, read by anyone. */
    struct netdev_stats stats;
    struct netdev_vxlan_drops drops;
};

static struct netdev_vxlan_rxq *
netdev_vxlan_rxq_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_vxlan_rxq, up);
}

bool
netdev_is_vxlan(const struct netdev *netdev)
{
    return netdev && netdev->class == &netdev_vxlan_class;
}

const struct netdev_vxlan_options *
netdev_vxlan_get_options(const struct netdev *netdev)
{
    return &netdev_vxlan_cast(netdev)->opts;
}

int
netdev_vxlan_get_underlay_mtu(const struct netdev *netdev)
{
    return netdev_vxlan_cast(netdev)->underlay_mtu;
}

static struct netdev *
netdev_vxlan_alloc(void)
{
    struct netdev_vxlan *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

static void
netdev_vxlan_dealloc(struct netdev *netdev)
{
    free(netdev_vxlan_cast(netdev));
}

/* The MTU of the kernel's route to 'remote', from a UDP socket connected
 * to it (nothing is sent), or 0 if the kernel cannot tell. */
static int
netdev_vxlan_route_mtu__(const struct sockaddr_in *remote)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    socklen_t len = sizeof(int);
    int mtu = 0;

    if (fd < 0) {
        return 0;
    }
    if (connect(fd, (const struct sockaddr *) remote, sizeof *remote)
        || getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len)) {
        mtu = 0;
    }
    close(fd);
    return mtu;
}

static void
netdev_vxlan_close_txqs__(struct netdev_vxlan *dev, int n)
{
    for (int i = 0; i < n; i++) {
        netdev_vxlan_txq_close(&dev->txqs[i]);
    }
}

static int
netdev_vxlan_open_txqs__(struct netdev_vxlan *dev, int from, int to,
                         char **errp)
{
    for (int i = from; i < to; i++) {
        int error = netdev_vxlan_txq_open(dev, &dev->txqs[i], errp);

        if (error) {
            for (int j = from; j < i; j++) {
                netdev_vxlan_txq_close(&dev->txqs[j]);
            }
            return error;
        }
    }
    return 0;
}

static int
netdev_vxlan_construct(struct netdev *netdev,
                       const struct netdev_options *opts, char **errp)
{
    static int next_ifindex = NETDEV_VXLAN_IFINDEX_BASE;
    struct netdev_vxlan *dev = netdev_vxlan_cast(netdev);
    int error;

    if (!opts->vxlan || !opts->vxlan->n_remotes) {
        *errp = xasprintf("vxlan port %s: no remote_ip", netdev->name);
        return EINVAL;
    }
    if (opts->n_rxq != 1) {
        *errp = xasprintf("vxlan port %s: n_rxq must be 1", netdev->name);
        return EINVAL;
    }
    dev->opts = *opts->vxlan;
    for (size_t i = 0; i < dev->opts.n_remotes; i++) {
        dev->remotes[i] = (struct sockaddr_in) {
            .sin_family = AF_INET,
            .sin_port = htons(dev->opts.dst_port),
            .sin_addr = dev->opts.remotes[i],
        };
    }
    dev->underlay_mtu = netdev_vxlan_route_mtu__(&dev->remotes[0]);
    dev->max_frame = (dev->underlay_mtu > NETDEV_VXLAN_OVERHEAD + ETH_HLEN
                      ? dev->underlay_mtu - NETDEV_VXLAN_OVERHEAD : 0);
    /* With "key": "flow" one MAC may live behind different remotes in
     * different VNIs, which the table cannot tell apart: flood instead. */
    if (dev->opts.n_remotes > 1 && !dev->opts.key_flow) {
        dev->fdb = xzalloc_cacheline(sizeof *dev->fdb);
    }
    dev->txqs = xzalloc_cacheline(netdev->max_txq * sizeof *dev->txqs);
    for (int i = 0; i < netdev->max_txq; i++) {
        for (int j = 0; j < VXLAN_TX_SOCKETS; j++) {
            dev->txqs[i].fds[j] = -1;
        }
    }
    error = netdev_vxlan_open_txqs__(dev, 0, netdev->n_txq, errp);
    if (error) {
        free(dev->txqs);
        free(dev->fdb);
        return error;
    }
    /* netdev.c holds its mutex around construct. */
    netdev->ifindex = next_ifindex++;
    return 0;
}

static int
netdev_vxlan_set_n_txq(struct netdev *netdev, int n_txq, char **errp)
{
    return netdev_vxlan_open_txqs__(netdev_vxlan_cast(netdev),
                                    netdev->n_txq, n_txq, errp);
}

static void
netdev_vxlan_destruct(struct netdev *netdev)
{
    struct netdev_vxlan *dev = netdev_vxlan_cast(netdev);

    netdev_vxlan_close_txqs__(dev, netdev->n_txq);
    free(dev->txqs);
    free(dev->fdb);
}

static struct netdev_rxq *
netdev_vxlan_rxq_alloc(void)
{
    struct netdev_vxlan_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    rxq->fd = -1;
    return &rxq->up;
}

static void
netdev_vxlan_rxq_dealloc(struct netdev_rxq *rxq)
{
    free(netdev_vxlan_rxq_cast(rxq));
}

/* Gives message 'i' of 'rxq' its full name and control sizes back, which
 * the kernel rewrote when it filled it. */
static void
netdev_vxlan_rx_reset__(struct netdev_vxlan_rxq *rxq, uint32_t i)
{
    struct msghdr *mh = &rxq->msgs[i].msg_hdr;

    mh->msg_name = &rxq->addrs[i];
    mh->msg_namelen = sizeof rxq->addrs[i];
    mh->msg_control = rxq->cmsgs[i].buf;
    mh->msg_controllen = sizeof rxq->cmsgs[i].buf;
    mh->msg_flags = 0;
}

/* Opens the UDP socket of 'dev' that receives its datagrams. */
static int
netdev_vxlan_rx_socket__(const struct netdev_vxlan *dev, char **errp)
{
    struct sockaddr_in sin = {
        .sin_family = AF_INET,
        .sin_port = htons(dev->opts.dst_port),
        .sin_addr = dev->opts.local_ip,
    };
    int bufsize = VXLAN_RX_SOCKET_BUF;
    char addr[INET_ADDRSTRLEN];
    int on = 1;
    int fd, error;

    inet_ntop(AF_INET, &sin.sin_addr, addr, sizeof addr);
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = errno;
        *errp = xasprintf("vxlan port %s: cannot open a UDP socket (%s)",
                          dev->up.name, strerror(error));
        return -error;
    }
    /* FORCE goes past net.core.rmem_max, as root may; the plain call is
     * what an unprivileged daemon gets.  Neither failing stops the port. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof bufsize)) {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof bufsize);
    }
    /* UDP_GRO (Linux 5.0) hands over the datagrams of one sender that the
     * kernel coalesced, or that a UDP GSO sender sent whole, in one
     * read; without it, one read per datagram. */
    setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof on);
    /* SO_REUSEPORT: the port reopened with new settings binds while the
     * old one still has the address, and takes over once it closes. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on)
        || setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on)
        || bind(fd, (const struct sockaddr *) &sin, sizeof sin)) {
        error = errno;
        *errp = xasprintf("vxlan port %s: cannot receive on UDP %s:%d (%s)%s",
                          dev->up.name, addr, dev->opts.dst_port,
                          strerror(error),
                          error == EADDRINUSE ? "; another socket, such as "
                          "a kernel vxlan device, has that port" : "");
        close(fd);
        return -error;
    }
    return fd;
}

static int
netdev_vxlan_rxq_construct(struct netdev_rxq *rxq_, char **errp)
{
    struct netdev_vxlan_rxq *rxq = netdev_vxlan_rxq_cast(rxq_);
    struct netdev_vxlan *dev = netdev_vxlan_cast(rxq_->netdev);
    int fd = netdev_vxlan_rx_socket__(dev, errp);

    if (fd < 0) {
        return -fd;
    }
    rxq->fd = fd;
    rxq->bufs = xmalloc_pages(DP_BATCH_SIZE * VXLAN_RX_BUF_SIZE);
    for (uint32_t i = 0; i < DP_BATCH_SIZE; i++) {
        struct msghdr *mh = &rxq->msgs[i].msg_hdr;

        /* The first frame lands after the headroom; the VXLAN header in
         * front of it is part of that headroom. */
        rxq->iovs[i].iov_base = (rxq->bufs + i * VXLAN_RX_BUF_SIZE
                                 + DP_PACKET_HEADROOM - VXLAN_HEADER_LEN);
        rxq->iovs[i].iov_len = VXLAN_RX_FRAME_MAX;
        mh->msg_iov = &rxq->iovs[i];
        mh->msg_iovlen = 1;
        netdev_vxlan_rx_reset__(rxq, i);
    }
    rxq->n_msgs = rxq->cur_msg = rxq->cur_ofs = 0;
    return 0;
}

static void
netdev_vxlan_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_vxlan_rxq *rxq = netdev_vxlan_rxq_cast(rxq_);

    if (rxq->fd >= 0) {
        close(rxq->fd);
        rxq->fd = -1;
    }
    free_pages(rxq->bufs, DP_BATCH_SIZE * VXLAN_RX_BUF_SIZE);
    rxq->bufs = NULL;
}

static int
netdev_vxlan_rxq_wait_fds(const struct netdev_rxq *rxq,
                          int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    fds[0] = netdev_vxlan_rxq_cast(rxq)->fd;
    return 1;
}

/* The index of 'addr' in the remotes of 'dev', or -1. */
static inline int
netdev_vxlan_remote_index__(const struct netdev_vxlan *dev,
                            const struct sockaddr_in *addr)
{
    for (size_t i = 0; i < dev->opts.n_remotes; i++) {
        if (dev->opts.remotes[i].s_addr == addr->sin_addr.s_addr) {
            return i;
        }
    }
    return -1;
}

/* Reads the control data of datagram 'i' of 'rxq': the socket's
 * cumulative drop count (SO_RXQ_OVFL) into '*overflow' if it carries one,
 * and the datagram's segment size (UDP_GRO, or its length if it is one
 * datagram) into 'rxq->seg_sizes[i]'. */
static void
netdev_vxlan_rx_cmsgs__(struct netdev_vxlan_rxq *rxq, uint32_t i,
                        uint64_t *overflow)
{
    struct msghdr *mh = &rxq->msgs[i].msg_hdr;

    rxq->seg_sizes[i] = rxq->msgs[i].msg_len;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL
            && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
            uint32_t n;

            memcpy(&n, CMSG_DATA(c), sizeof n);
            *overflow = n;
        } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO
                   && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int size;

            memcpy(&size, CMSG_DATA(c), sizeof size);
            if (size > 0 && (uint32_t) size < rxq->seg_sizes[i]) {
                rxq->seg_sizes[i] = size;
            }
        }
    }
}

/* Checks the 'len' bytes of VXLAN payload at 'hdr', a datagram from
 * 'addr'.  Returns true and stores its VNI in '*vni' if it carries a frame
 * for the port; else counts why not. */
static inline bool
netdev_vxlan_rx_check__(struct netdev_vxlan *dev, const uint8_t *hdr,
                        uint32_t len, const struct sockaddr_in *addr,
                        struct netdev_vxlan_drops *d, long long *now,
                        uint32_t *vni)
{
    const uint8_t *frame = hdr + VXLAN_HEADER_LEN;
    int remote;

    switch (vxlan_parse(hdr, len, vni)) {
    case VXLAN_RX_OK:
        break;
    case VXLAN_RX_TRUNCATED:
        d->truncated++;
        return false;
    case VXLAN_RX_BAD_FLAGS:
    case VXLAN_RX_N_ERRORS:
    default:
        d->bad_flags++;
        return false;
    }
    remote = netdev_vxlan_remote_index__(dev, addr);
    if (UNLIKELY(remote < 0)) {
        d->unknown_remote++;
        return false;
    }
    if (UNLIKELY(!dev->opts.key_flow && *vni != dev->opts.key)) {
        d->wrong_vni++;
        return false;
    }
    if (dev->fdb && !(frame[6] & 1)) {
        if (!*now) {
            *now = time_msec();
        }
        vxlan_fdb_learn(dev->fdb, frame + 6, remote,
                        vxlan_fdb_tick(*now));
    }
    return true;
}

static void
netdev_vxlan_add_drops__(struct netdev_vxlan_drops *dst,
                         const struct netdev_vxlan_drops *src)
{
    if (src->truncated) {
        netdev_counter_add(&dst->truncated, src->truncated);
    }
    if (src->bad_flags) {
        netdev_counter_add(&dst->bad_flags, src->bad_flags);
    }
    if (src->wrong_vni) {
        netdev_counter_add(&dst->wrong_vni, src->wrong_vni);
    }
    if (src->unknown_remote) {
        netdev_counter_add(&dst->unknown_remote, src->unknown_remote);
    }
}

/* Reads the next datagrams into 'rxq' with one recvmmsg(), once every
 * frame of the previous ones was handed out.  Returns 0, EAGAIN or an
 * errno. */
static int
netdev_vxlan_rx_refill__(struct netdev_vxlan_rxq *rxq)
{
    int n;

    for (uint32_t i = 0; i < rxq->n_msgs; i++) {
        netdev_vxlan_rx_reset__(rxq, i);
    }
    rxq->n_msgs = rxq->cur_msg = rxq->cur_ofs = 0;
    n = recvmmsg(rxq->fd, rxq->msgs, DP_BATCH_SIZE, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        int error = n < 0 ? errno : EAGAIN;

        if (error == EAGAIN || error == EINTR) {
            return EAGAIN;
        }
        netdev_counter_add(&rxq->stats.rx_errors, 1);
        return error;
    }
    rxq->n_msgs = n;
    return 0;
}

static int
netdev_vxlan_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                      uint16_t port_no)
{
    struct netdev_vxlan_rxq *rxq = netdev_vxlan_rxq_cast(rxq_);
    struct netdev_vxlan *dev = netdev_vxlan_cast(rxq_->netdev);
    struct netdev_vxlan_drops d = { 0 };
    uint64_t overflow = rxq->stats.rx_ring_full;
    uint32_t n_truncated = 0, n_packets = 0;
    uint64_t n_bytes = 0;
    long long now = 0;

    if (dev->fdb && !(++rxq->n_calls % VXLAN_FDB_EXPIRE_EVERY)) {
        /* The table's single writer retires old entries, a few at a
         * time, before their 8-bit tick wraps and they look new. */
        rxq->expire_pos = vxlan_fdb_expire(dev->fdb,
                                           vxlan_fdb_tick(time_msec()),
                                           rxq->expire_pos, 16);
    }
    if (rxq->cur_msg == rxq->n_msgs) {
        int error = netdev_vxlan_rx_refill__(rxq);

        if (error) {
            return error;
        }
    }
    while (rxq->cur_msg < rxq->n_msgs && !dp_batch_is_full(batch)) {
        uint32_t i = rxq->cur_msg;
        uint32_t len = rxq->msgs[i].msg_len;
        uint8_t *hdr = (uint8_t *) rxq->iovs[i].iov_base + rxq->cur_ofs;
        uint32_t seg_len;
        uint32_t vni = 0;

        if (!rxq->cur_ofs) {
            netdev_vxlan_rx_cmsgs__(rxq, i, &overflow);
            if (UNLIKELY(rxq->msgs[i].msg_hdr.msg_flags & MSG_TRUNC)) {
                n_truncated++;
                rxq->cur_msg++;
                continue;
            }
        }
        seg_len = MIN(rxq->seg_sizes[i], len - rxq->cur_ofs);
        if (netdev_vxlan_rx_check__(dev, hdr, seg_len, &rxq->addrs[i], &d,
                                    &now, &vni)) {
            struct dp_packet *p = &rxq->packets[batch->count];

            dp_packet_init(p, hdr + VXLAN_HEADER_LEN,
                           seg_len - VXLAN_HEADER_LEN, port_no);
            if (rxq->cur_ofs) {
                /* Behind another frame: only its own header is free. */
                p->headroom = VXLAN_HEADER_LEN;
            }
            /* Rules match it as tun_id, as in Open vSwitch. */
            p->tun_id = vni;
            dp_batch_add(batch, p);
            n_packets++;
            n_bytes += p->size;
        }
        rxq->cur_ofs += seg_len;
        if (rxq->cur_ofs >= len || !seg_len) {
            rxq->cur_msg++;
            rxq->cur_ofs = 0;
        }
    }
    netdev_counter_add(&rxq->stats.rx_packets, n_packets);
    netdev_counter_add(&rxq->stats.rx_bytes, n_bytes);
    if (UNLIKELY(n_truncated)) {
        netdev_counter_add(&rxq->stats.rx_truncated, n_truncated);
    }
    if (UNLIKELY(overflow != rxq->stats.rx_ring_full)) {
        __atomic_store_n(&rxq->stats.rx_ring_full, overflow,
                         __ATOMIC_RELAXED);
    }
    netdev_vxlan_add_drops__(&rxq->drops, &d);
    return n_packets ? 0 : EAGAIN;
}

static void
netdev_vxlan_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_vxlan *dev = netdev_vxlan_cast(netdev);
    struct netdev_vxlan_drops d;

    for (int i = 0; i < netdev->n_rxq; i++) {
        netdev_stats_add(st, &netdev_vxlan_rxq_cast(netdev->rxqs[i])->stats);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        netdev_stats_add(st, &dev->txqs[i].stats);
    }
    /* Refused datagrams are frames the port received and dropped. */
    netdev_vxlan_get_drops(netdev, &d);
    st->rx_errors += (d.truncated + d.bad_flags + d.wrong_vni
                      + d.unknown_remote);
}

void
netdev_vxlan_get_drops(const struct netdev *netdev,
                       struct netdev_vxlan_drops *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < netdev->n_rxq; i++) {
        const struct netdev_vxlan_drops *q
            = &netdev_vxlan_rxq_cast(netdev->rxqs[i])->drops;

        d->truncated += netdev_counter_read(&q->truncated);
        d->bad_flags += netdev_counter_read(&q->bad_flags);
        d->wrong_vni += netdev_counter_read(&q->wrong_vni);
        d->unknown_remote += netdev_counter_read(&q->unknown_remote);
    }
}

static void
netdev_vxlan_get_status(const struct netdev *netdev, char *buf, size_t size)
{
    struct netdev_vxlan *dev = netdev_vxlan_cast(netdev);
    char local[INET_ADDRSTRLEN];
    char key[16];

    inet_ntop(AF_INET, &dev->opts.local_ip, local, sizeof local);
    if (dev->opts.key_flow) {
        snprintf(key, sizeof key, "flow");
    } else {
        snprintf(key, sizeof key, "%"PRIu32, dev->opts.key);
    }
    snprintf(buf, size, "vxlan: key=%s, local_ip=%s, dst_port=%d, "
             "remotes=%zu, underlay_mtu=%d", key, local, dev->opts.dst_port,
             dev->opts.n_remotes, dev->underlay_mtu);
}

static void
netdev_vxlan_get_offloads(const struct netdev *netdev,
                          struct netdev_offloads *off)
{
    struct netdev_vxlan *dev = netdev_vxlan_cast(netdev);

    memset(off, 0, sizeof *off);
    off->max_frame = dev->max_frame;
    off->tcp_gso = true;        /* Cut here, into one UDP GSO send. */
}

static int
netdev_vxlan_health(const struct netdev *netdev OVS_UNUSED)
{
    return 0;                   /* No link: the underlay is the kernel's. */
}

const struct netdev_class netdev_vxlan_class = {
    .type = "vxlan",
    .no_interface = true,
    .alloc = netdev_vxlan_alloc,
    .construct = netdev_vxlan_construct,
    .destruct = netdev_vxlan_destruct,
    .dealloc = netdev_vxlan_dealloc,
    .rxq_alloc = netdev_vxlan_rxq_alloc,
    .rxq_construct = netdev_vxlan_rxq_construct,
    .rxq_destruct = netdev_vxlan_rxq_destruct,
    .rxq_dealloc = netdev_vxlan_rxq_dealloc,
    .rxq_recv = netdev_vxlan_rxq_recv,
    .send = netdev_vxlan_send,
    .set_n_txq = netdev_vxlan_set_n_txq,
    .rxq_wait_fds = netdev_vxlan_rxq_wait_fds,
    .get_stats = netdev_vxlan_get_stats,
    .health = netdev_vxlan_health,
    .get_offloads = netdev_vxlan_get_offloads,
    .get_status = netdev_vxlan_get_status,
};
