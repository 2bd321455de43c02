/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "vxlan" provider (netdev-vxlan.h; design in doc/vxlan.md).
 *
 * Receive: one UDP socket, bound to "local_ip":"dst_port", read with
 * recvmmsg().  Each datagram lands with its 8-byte VXLAN header in a slot
 * of its own and the inner frame at the headroom of a per-slot buffer, so
 * the frame needs no move.  The kernel has already routed, reassembled and
 * checked the UDP checksum; the port checks the header as the kernel's
 * vxlan device does, the sender against "remote_ip" and the VNI against
 * "key", counting each refusal by reason.  The socket's own drops (buffer
 * full) come with each datagram as SO_RXQ_OVFL.
 *
 * Transmit: a raw IPPROTO_UDP socket per tx queue.  The kernel writes the
 * IP header, routes and resolves the next hop; the port writes the UDP
 * header (source port from the frame's RSS hash, checksum 0 as RFC 7348
 * allows over IPv4) and the VXLAN header.  Each copy is one message of two
 * pieces, the 16 header bytes and the frame, so a frame is not copied
 * unless its checksum must be finished first.  IP_PMTUDISC_DO makes a
 * datagram too large for the route fail with EMSGSIZE (tx_too_big) instead
 * of leaving as fragments.  The raw socket would also get a copy of every
 * UDP datagram the host receives; a filter that accepts nothing keeps its
 * receive queue empty.
 *
 * Frames reach the port whole: it reports no offload support, so the
 * datapath cuts GSO frames to the underlay MTU first (tx-gso.h).
 */
#include <autoconf.h>
#include "netdev/netdev-vxlan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include "netdev/netdev-provider.h"
#include "netdev/netdev-vxlan-fdb.h"
#include "packet/csum.h"
#include "packet/dp-packet.h"
#include "packet/vxlan.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(netdev_vxlan);

/* Interface indexes of vxlan ports, which have no kernel interface: a
 * range of their own, above the kernel's and the dummy ports'. */
#define NETDEV_VXLAN_IFINDEX_BASE 0x50000000

/* Largest datagram payload received whole: a jumbo frame and its VXLAN
 * header.  A longer one is counted as rx_truncated. */
#define VXLAN_RX_FRAME_MAX (9216 + 128)
#define VXLAN_RX_BUF_SIZE ROUND_UP(DP_PACKET_HEADROOM + VXLAN_RX_FRAME_MAX,  \
                                   CACHE_LINE_SIZE)

/* Messages per sendmmsg(): a batch, and copies of a flood to a few
 * remotes, in one call. */
#define VXLAN_TX_MSGS 64

/* Largest frame whose checksum the port finishes: a jumbo frame. */
#define VXLAN_TX_CSUM_MAX (9216 + 128)

/* Outer UDP and VXLAN headers, written in front of each frame. */
#define VXLAN_ENCAP_LEN (VXLAN_UDP_HEADER_LEN + VXLAN_HEADER_LEN)

/* Receive socket buffer: about 40 ms of a 10 Gbit/s stream, so that a PMD
 * busy elsewhere for a while does not lose datagrams. */
#define VXLAN_RX_SOCKET_BUF (32 * 1024 * 1024)

struct netdev_vxlan_txq {
    int fd;                     /* Raw IPPROTO_UDP socket; -1 if closed. */

    /* PMD only (the one that sends on this queue). */
    struct mmsghdr msgs[VXLAN_TX_MSGS];
    struct iovec iovs[VXLAN_TX_MSGS][2];
    uint8_t hdrs[VXLAN_TX_MSGS][VXLAN_ENCAP_LEN];
    union {
        struct cmsghdr align;
        uint8_t buf[CMSG_SPACE(sizeof(int))];
    } cmsgs[VXLAN_TX_MSGS];
    uint8_t *csum_bufs;         /* VXLAN_TX_MSGS of VXLAN_TX_CSUM_MAX. */

    /* Written by that PMD, read by anyone. */
    struct netdev_stats stats;
};

struct netdev_vxlan_rxq {
    struct netdev_rxq up;
    int fd;                     /* UDP socket bound to the port's address. */
    uint8_t *bufs;              /* DP_BATCH_SIZE of VXLAN_RX_BUF_SIZE. */

    /* PMD only. */
    struct dp_packet packets[DP_BATCH_SIZE];
    struct mmsghdr msgs[DP_BATCH_SIZE];
    struct iovec iovs[DP_BATCH_SIZE][2];
    uint8_t hdrs[DP_BATCH_SIZE][VXLAN_HEADER_LEN];
    struct sockaddr_in addrs[DP_BATCH_SIZE];
    union {
        struct cmsghdr align;
        uint8_t buf[CMSG_SPACE(sizeof(uint32_t))];
    } cmsgs[DP_BATCH_SIZE];

    /* Written by the PMD, read by anyone. */
    struct netdev_stats stats;
    struct netdev_vxlan_drops drops;
};

struct netdev_vxlan {
    struct netdev up;

    /* Set by construct, then read only. */
    struct netdev_vxlan_options opts;
    struct sockaddr_in remotes[NETDEV_VXLAN_MAX_REMOTES];
    int underlay_mtu;           /* Towards remotes[0] at open; 0 unknown. */
    struct netdev_vxlan_txq *txqs;  /* 'max_txq' of them. */

    /* Learned by the rx PMD, read by the tx PMDs (several remotes only). */
    struct vxlan_fdb *fdb;
};

static struct netdev_vxlan *
netdev_vxlan_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_vxlan, up);
}

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

/* Opens tx queue 'txq' of 'dev': a raw UDP socket that sends with DF set,
 * the port's TTL and TOS, from its local address, and receives nothing. */
static int
netdev_vxlan_txq_open__(struct netdev_vxlan *dev,
                        struct netdev_vxlan_txq *txq, char **errp)
{
    static struct sock_filter drop_all[] = {
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    struct sock_fprog prog = { .len = ARRAY_SIZE(drop_all),
                               .filter = drop_all };
    int pmtu = IP_PMTUDISC_DO;
    int ttl = dev->opts.ttl;
    int tos = dev->opts.tos;
    const char *what;
    int fd, error;

    fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
                IPPROTO_UDP);
    if (fd < 0) {
        error = errno;
        *errp = xasprintf("vxlan port %s: cannot open a raw UDP socket to "
                          "send (%s)%s", dev->up.name, strerror(error),
                          error == EPERM ? "; pmdswitchd needs "
                          "CAP_NET_RAW for vxlan ports" : "");
        return error;
    }
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog)) {
        what = "SO_ATTACH_FILTER";
    } else if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
                          sizeof pmtu)) {
        what = "IP_MTU_DISCOVER";
    } else if (setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl)) {
        what = "IP_TTL";
    } else if (tos != NETDEV_VXLAN_TOS_INHERIT
               && setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos)) {
        what = "IP_TOS";
    } else if (dev->opts.local_ip.s_addr != htonl(INADDR_ANY)
               && bind(fd, (const struct sockaddr *) &(struct sockaddr_in) {
                           .sin_family = AF_INET,
                           .sin_addr = dev->opts.local_ip },
                       sizeof(struct sockaddr_in))) {
        what = "bind to local_ip";
    } else {
        txq->fd = fd;
        txq->csum_bufs = xmalloc_pages(VXLAN_TX_MSGS * VXLAN_TX_CSUM_MAX);
        return 0;
    }
    error = errno;
    *errp = xasprintf("vxlan port %s: transmit socket: %s failed (%s)",
                      dev->up.name, what, strerror(error));
    close(fd);
    return error;
}

static void
netdev_vxlan_txq_close__(struct netdev_vxlan_txq *txq)
{
    if (txq->fd >= 0) {
        close(txq->fd);
        txq->fd = -1;
        free_pages(txq->csum_bufs, VXLAN_TX_MSGS * VXLAN_TX_CSUM_MAX);
        txq->csum_bufs = NULL;
    }
}

static void
netdev_vxlan_close_txqs__(struct netdev_vxlan *dev, int n)
{
    for (int i = 0; i < n; i++) {
        netdev_vxlan_txq_close__(&dev->txqs[i]);
    }
}

static int
netdev_vxlan_open_txqs__(struct netdev_vxlan *dev, int from, int to,
                         char **errp)
{
    for (int i = from; i < to; i++) {
        int error = netdev_vxlan_txq_open__(dev, &dev->txqs[i], errp);

        if (error) {
            for (int j = from; j < i; j++) {
                netdev_vxlan_txq_close__(&dev->txqs[j]);
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
            .sin_addr = dev->opts.remotes[i],
        };
    }
    dev->underlay_mtu = netdev_vxlan_route_mtu__(&dev->remotes[0]);
    if (dev->opts.n_remotes > 1) {
        dev->fdb = xzalloc_cacheline(sizeof *dev->fdb);
    }
    dev->txqs = xzalloc_cacheline(netdev->max_txq * sizeof *dev->txqs);
    for (int i = 0; i < netdev->max_txq; i++) {
        dev->txqs[i].fd = -1;
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
    if (setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on)
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

        rxq->iovs[i][0].iov_base = rxq->hdrs[i];
        rxq->iovs[i][0].iov_len = VXLAN_HEADER_LEN;
        rxq->iovs[i][1].iov_base = (rxq->bufs + i * VXLAN_RX_BUF_SIZE
                                    + DP_PACKET_HEADROOM);
        rxq->iovs[i][1].iov_len = VXLAN_RX_FRAME_MAX;
        mh->msg_iov = rxq->iovs[i];
        mh->msg_iovlen = 2;
        netdev_vxlan_rx_reset__(rxq, i);
    }
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

/* The socket's cumulative drop count from message 'mh''s SO_RXQ_OVFL, or
 * 'prev' if it carries none. */
static uint64_t
netdev_vxlan_rx_overflow__(struct msghdr *mh, uint64_t prev)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL
            && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
            uint32_t n;

            memcpy(&n, CMSG_DATA(c), sizeof n);
            return n;
        }
    }
    return prev;
}

/* Checks datagram 'i' of 'rxq' ('len' bytes of UDP payload).  Returns true
 * and stores its VNI in '*vni' if it carries a frame for the port; else
 * counts why not. */
static inline bool
netdev_vxlan_rx_check__(struct netdev_vxlan *dev,
                        struct netdev_vxlan_rxq *rxq, uint32_t i,
                        uint32_t len, struct netdev_vxlan_drops *d,
                        long long *now, uint32_t *vni)
{
    const uint8_t *frame = rxq->iovs[i][1].iov_base;
    int remote;

    /* vxlan_parse() reads the 8 header bytes; 'len' covers the frame that
     * follows them in the other buffer. */
    switch (vxlan_parse(rxq->hdrs[i], len, vni)) {
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
    remote = netdev_vxlan_remote_index__(dev, &rxq->addrs[i]);
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

static int
netdev_vxlan_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                      uint16_t port_no)
{
    struct netdev_vxlan_rxq *rxq = netdev_vxlan_rxq_cast(rxq_);
    struct netdev_vxlan *dev = netdev_vxlan_cast(rxq_->netdev);
    uint32_t room = DP_BATCH_SIZE - batch->count;
    struct netdev_vxlan_drops d = { 0 };
    uint64_t overflow = rxq->stats.rx_ring_full;
    uint32_t n_truncated = 0, n_packets = 0;
    uint64_t n_bytes = 0;
    long long now = 0;
    int n;

    if (UNLIKELY(!room)) {
        return EAGAIN;
    }
    n = recvmmsg(rxq->fd, rxq->msgs, room, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        int error = n < 0 ? errno : EAGAIN;

        if (error == EAGAIN || error == EINTR) {
            return EAGAIN;
        }
        netdev_counter_add(&rxq->stats.rx_errors, 1);
        return error;
    }
    for (int i = 0; i < n; i++) {
        struct msghdr *mh = &rxq->msgs[i].msg_hdr;
        uint32_t len = rxq->msgs[i].msg_len;
        uint32_t vni = 0;

        overflow = netdev_vxlan_rx_overflow__(mh, overflow);
        if (UNLIKELY(mh->msg_flags & MSG_TRUNC)) {
            n_truncated++;
        } else if (netdev_vxlan_rx_check__(dev, rxq, i, len, &d, &now,
                                           &vni)) {
            struct dp_packet *p = &rxq->packets[i];

            dp_packet_init(p, rxq->iovs[i][1].iov_base,
                           len - VXLAN_HEADER_LEN, port_no);
            /* Rules match it as tun_id, as in Open vSwitch. */
            p->tun_id = vni;
            dp_batch_add(batch, p);
            n_packets++;
            n_bytes += p->size;
        }
        netdev_vxlan_rx_reset__(rxq, i);
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

/* The TOS byte of the IP packet in 'p', for "tos": "inherit" (0 if it
 * carries none). */
static int
netdev_vxlan_inner_tos__(const struct dp_packet *p)
{
    uint32_t l3 = ETH_HLEN;
    uint16_t type;

    if (p->size < ETH_HLEN + 2) {
        return 0;
    }
    type = p->data[12] << 8 | p->data[13];
    while ((type == ETH_P_8021Q || type == ETH_P_8021AD)
           && p->size >= l3 + 4 + 2) {
        type = p->data[l3 + 2] << 8 | p->data[l3 + 3];
        l3 += 4;
    }
    if (type == ETH_P_IP && p->size > l3 + 1) {
        return p->data[l3 + 1];
    }
    if (type == ETH_P_IPV6 && p->size > l3 + 1) {
        return (p->data[l3] & 0x0f) << 4 | p->data[l3 + 1] >> 4;
    }
    return 0;
}

/* Sends messages [0, 'n') of 'txq'.  A message the kernel refuses is
 * counted by its error and skipped; the rest still go. */
static void
netdev_vxlan_tx_flush__(struct netdev_vxlan_txq *txq, uint32_t n)
{
    struct netdev_stats *s = &txq->stats;
    uint32_t n_sent = 0;
    uint64_t n_bytes = 0;
    uint32_t i = 0;

    while (i < n) {
        int r = sendmmsg(txq->fd, &txq->msgs[i], n - i, MSG_DONTWAIT);

        if (r > 0) {
            for (int j = 0; j < r; j++) {
                n_bytes += txq->msgs[i + j].msg_len - VXLAN_ENCAP_LEN;
            }
            n_sent += r;
            i += r;
            continue;
        }
        /* The first message failed; its error says why. */
        switch (r < 0 ? errno : EIO) {
        case EAGAIN:
        case ENOBUFS:
            /* The qdisc or the socket is full: the rest would fail too. */
            netdev_counter_add(&s->tx_queue_full, n - i);
            i = n;
            continue;
        case EMSGSIZE:
            netdev_counter_add(&s->tx_too_big, 1);
            break;
        case ENETDOWN:
        case ENETUNREACH:
        case EHOSTUNREACH:
        case EHOSTDOWN:
            netdev_counter_add(&s->tx_port_down, 1);
            break;
        case EINTR:
            continue;
        default:
            netdev_counter_add(&s->tx_errors, 1);
            break;
        }
        i++;
    }
    netdev_counter_add(&s->tx_packets, n_sent);
    netdev_counter_add(&s->tx_bytes, n_bytes);
}

/* Queues one copy of 'p' for remote 'remote' as message 'i' of 'txq',
 * with its frame at 'frame' (the packet's, or a copy with its checksum
 * finished). */
static inline void
netdev_vxlan_tx_add__(const struct netdev_vxlan *dev,
                      struct netdev_vxlan_txq *txq, uint32_t i,
                      const struct dp_packet *p, uint8_t *frame,
                      int remote, uint16_t sport, int tos)
{
    struct msghdr *mh = &txq->msgs[i].msg_hdr;
    uint8_t *hdr = txq->hdrs[i];

    vxlan_put_udp(hdr, sport, dev->opts.dst_port,
                  VXLAN_HEADER_LEN + p->size);
    vxlan_put_header(hdr + VXLAN_UDP_HEADER_LEN,
                     dev->opts.key_flow ? p->tun_id : dev->opts.key);
    txq->iovs[i][0] = (struct iovec) { hdr, VXLAN_ENCAP_LEN };
    txq->iovs[i][1] = (struct iovec) { frame, p->size };
    *mh = (struct msghdr) {
        .msg_name = (void *) &dev->remotes[remote],
        .msg_namelen = sizeof dev->remotes[remote],
        .msg_iov = txq->iovs[i],
        .msg_iovlen = 2,
    };
    if (tos >= 0) {
        struct cmsghdr *c = &txq->cmsgs[i].align;

        mh->msg_control = txq->cmsgs[i].buf;
        mh->msg_controllen = sizeof txq->cmsgs[i].buf;
        c->cmsg_level = IPPROTO_IP;
        c->cmsg_type = IP_TOS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &tos, sizeof tos);
    }
}

/* What to do with frame 'p' before it is sent. */
enum netdev_vxlan_tx_class {
    VXLAN_TX_AS_IS,             /* Send the packet's own bytes. */
    VXLAN_TX_CSUM,              /* Copy, then finish its checksum. */
    VXLAN_TX_TOO_BIG,           /* GSO frame, or too big to finish. */
    VXLAN_TX_BAD_VNET,          /* Its checksum offsets lie outside it. */
};

static inline enum netdev_vxlan_tx_class
netdev_vxlan_tx_classify__(const struct dp_packet *p)
{
    if (LIKELY(!(p->flags & DP_PACKET_F_VNET))
        || (p->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE
            && !(p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))) {
        return VXLAN_TX_AS_IS;
    }
    /* The datapath cuts GSO frames before they come here; one that comes
     * anyway cannot go whole. */
    if (p->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE
        || p->size > VXLAN_TX_CSUM_MAX) {
        return VXLAN_TX_TOO_BIG;
    }
    return ((uint32_t) p->vnet.csum_start + p->vnet.csum_offset + 2
            <= p->size ? VXLAN_TX_CSUM : VXLAN_TX_BAD_VNET);
}

static void
netdev_vxlan_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    struct netdev_vxlan *dev = netdev_vxlan_cast(netdev);
    struct netdev_vxlan_txq *txq = &dev->txqs[qid];
    int n_remotes = dev->opts.n_remotes;
    bool inherit = dev->opts.tos == NETDEV_VXLAN_TOS_INHERIT;
    uint8_t tick = dev->fdb ? vxlan_fdb_tick(time_msec()) : 0;
    uint32_t n_too_big = 0, n_bad = 0;
    uint32_t n_msgs = 0;

    for (uint32_t i = 0; i < batch->count; i++) {
        const struct dp_packet *p = batch->packets[i];
        enum netdev_vxlan_tx_class class = netdev_vxlan_tx_classify__(p);
        uint16_t sport = vxlan_src_port(p->rss_hash, VXLAN_SRC_PORT_MIN,
                                        VXLAN_SRC_PORT_MAX);
        int tos = inherit ? netdev_vxlan_inner_tos__(p) : -1;
        int first = 0, last = n_remotes - 1;
        uint8_t *frame = p->data;

        if (UNLIKELY(class >= VXLAN_TX_TOO_BIG)) {
            n_too_big += class == VXLAN_TX_TOO_BIG;
            n_bad += class == VXLAN_TX_BAD_VNET;
            continue;
        }
        if (n_remotes > 1 && p->size >= ETH_HLEN && !(p->data[0] & 1)) {
            int remote = vxlan_fdb_lookup(dev->fdb, p->data, tick);

            if (remote >= 0) {
                first = last = remote;
            }
        }
        if (n_msgs + (last - first + 1) > VXLAN_TX_MSGS) {
            netdev_vxlan_tx_flush__(txq, n_msgs);
            n_msgs = 0;
        }
        if (class == VXLAN_TX_CSUM) {
            /* Each copy of this frame points at the finished one. */
            frame = txq->csum_bufs + n_msgs * VXLAN_TX_CSUM_MAX;
            memcpy(frame, p->data, p->size);
            csum_fill_partial(frame, p->size, p->vnet.csum_start,
                              p->vnet.csum_offset);
        }
        for (int r = first; r <= last; r++) {
            netdev_vxlan_tx_add__(dev, txq, n_msgs++, p, frame, r, sport,
                                  tos);
        }
    }
    if (n_msgs) {
        netdev_vxlan_tx_flush__(txq, n_msgs);
    }
    if (UNLIKELY(n_too_big)) {
        netdev_counter_add(&txq->stats.tx_too_big, n_too_big);
    }
    if (UNLIKELY(n_bad)) {
        netdev_counter_add(&txq->stats.tx_errors, n_bad);
    }
    dp_batch_init(batch);
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
    off->max_frame = (dev->underlay_mtu > NETDEV_VXLAN_OVERHEAD + ETH_HLEN
                      ? dev->underlay_mtu - NETDEV_VXLAN_OVERHEAD : 0);
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
