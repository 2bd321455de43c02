/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The transmit side of a vxlan port (netdev-vxlan.h).
 *
 * Each tx queue has VXLAN_TX_SOCKETS UDP sockets, bound to the port's
 * local address and to source ports the kernel picks from its ephemeral
 * range; a frame's RSS hash picks one, so the underlay can spread flows
 * while each flow keeps one outer header.  The kernel writes the IP and
 * UDP headers, routes and resolves the next hop; the port writes the VXLAN
 * header, 8 bytes in front of each frame.
 *
 * A frame goes out as one message of two pieces, the header and the frame
 * (copied only when its checksum must be finished first), queued until
 * the batch ends, the socket changes or the queue is full, then sent with
 * sendmmsg().  A TCP GSO frame is cut here instead, each segment behind
 * its own header in one buffer, and the buffer leaves as one UDP GSO send
 * (UDP_SEGMENT): the kernel makes one datagram per segment without going
 * through the socket layer for each, and passes the whole to a device
 * that can take it so.  IP_PMTUDISC_DO makes a datagram too large for the
 * route fail (tx_too_big) instead of leaving as fragments.  The sockets
 * receive nothing: a filter that accepts nothing keeps their queues
 * empty.
 */
#include <autoconf.h>
#include "netdev/netdev-vxlan-private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <netinet/udp.h>
#include "netdev/netdev-vxlan-fdb.h"
#include "packet/csum.h"
#include "packet/dp-packet.h"
#include "packet/gso.h"
#include "base/util.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103             /* linux/udp.h, Linux 4.18. */
#endif

/* Opens one UDP socket of 'dev' that sends with DF set, the port's TTL
 * and TOS, from its local address and a source port of the kernel's
 * choosing, and receives nothing.  Returns the socket, or -errno with a
 * message in '*errp'. */
static int
netdev_vxlan_tx_socket__(const struct netdev_vxlan *dev, char **errp)
{
    static struct sock_filter drop_all[] = {
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    struct sock_fprog prog = { .len = ARRAY_SIZE(drop_all),
                               .filter = drop_all };
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_addr = dev->opts.local_ip };
    int pmtu = IP_PMTUDISC_DO;
    int ttl = dev->opts.ttl;
    int tos = dev->opts.tos;
    const char *what;
    int fd, error;

    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = errno;
        *errp = xasprintf("vxlan port %s: cannot open a UDP socket to send "
                          "(%s)", dev->up.name, strerror(error));
        return -error;
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
    } else if (bind(fd, (const struct sockaddr *) &sin, sizeof sin)) {
        what = "bind to local_ip";
    } else {
        return fd;
    }
    error = errno;
    *errp = xasprintf("vxlan port %s: transmit socket: %s failed (%s)",
                      dev->up.name, what, strerror(error));
    close(fd);
    return -error;
}

int
netdev_vxlan_txq_open(struct netdev_vxlan *dev, struct netdev_vxlan_txq *txq,
                      char **errp)
{
    for (int i = 0; i < VXLAN_TX_SOCKETS; i++) {
        int fd = netdev_vxlan_tx_socket__(dev, errp);

        if (fd < 0) {
            netdev_vxlan_txq_close(txq);
            return -fd;
        }
        txq->fds[i] = fd;
    }
    txq->msgs_fd = -1;
    txq->csum_bufs = xmalloc_pages(VXLAN_TX_MSGS * VXLAN_TX_CSUM_MAX);
    txq->gso_buf = xmalloc_pages(VXLAN_TX_GSO_MAX);
    return 0;
}

void
netdev_vxlan_txq_close(struct netdev_vxlan_txq *txq)
{
    for (int i = 0; i < VXLAN_TX_SOCKETS; i++) {
        if (txq->fds[i] >= 0) {
            close(txq->fds[i]);
            txq->fds[i] = -1;
        }
    }
    if (txq->csum_bufs) {
        free_pages(txq->csum_bufs, VXLAN_TX_MSGS * VXLAN_TX_CSUM_MAX);
        free_pages(txq->gso_buf, VXLAN_TX_GSO_MAX);
        txq->csum_bufs = txq->gso_buf = NULL;
    }
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

/* Counts 'n' datagrams the kernel refused with 'error'.  Returns true if
 * the rest of what is queued would fail the same way. */
static bool
netdev_vxlan_tx_error__(struct netdev_stats *s, int error, uint32_t n)
{
    switch (error) {
    case EAGAIN:
    case ENOBUFS:
        /* The qdisc or the socket buffer is full. */
        netdev_counter_add(&s->tx_queue_full, n);
        return true;
    case EMSGSIZE:
    case EINVAL:                /* A GSO segment above the route's MTU. */
        netdev_counter_add(&s->tx_too_big, n);
        return false;
    case ENETDOWN:
    case ENETUNREACH:
    case EHOSTUNREACH:
    case EHOSTDOWN:
        netdev_counter_add(&s->tx_port_down, n);
        return false;
    default:
        netdev_counter_add(&s->tx_errors, n);
        return false;
    }
}

/* Sends the queued messages of 'txq'.  A message the kernel refuses is
 * counted by its error and skipped; the rest still go. */
static void
netdev_vxlan_tx_flush__(struct netdev_vxlan_txq *txq, uint32_t n)
{
    struct netdev_stats *s = &txq->stats;
    uint32_t n_sent = 0;
    uint64_t n_bytes = 0;
    uint32_t i = 0;

    while (i < n) {
        int r = sendmmsg(txq->msgs_fd, &txq->msgs[i], n - i, MSG_DONTWAIT);

        if (r > 0) {
            for (int j = 0; j < r; j++) {
                n_bytes += txq->msgs[i + j].msg_len - VXLAN_HEADER_LEN;
            }
            n_sent += r;
            i += r;
        } else if (r < 0 && errno == EINTR) {
            continue;
        } else if (netdev_vxlan_tx_error__(s, r < 0 ? errno : EIO, 1)) {
            /* The first message failed, and the others would too. */
            netdev_counter_add(&s->tx_queue_full, n - i - 1);
            break;
        } else {
            i++;
        }
    }
    netdev_counter_add(&s->tx_packets, n_sent);
    netdev_counter_add(&s->tx_bytes, n_bytes);
}

/* Fills the control data of 'mh' from 'ctl' ('size' bytes): IP_TOS 'tos'
 * if it is not negative, UDP_SEGMENT 'gso_size' if it is not 0.  Leaves
 * 'mh' without control data if neither. */
static void
netdev_vxlan_tx_cmsgs__(struct msghdr *mh, void *ctl, size_t size, int tos,
                        uint16_t gso_size)
{
    struct cmsghdr *c;

    /* CMSG_NXTHDR() reads the next header's length: start from zeros. */
    memset(ctl, 0, size);
    mh->msg_control = ctl;
    mh->msg_controllen = size;
    c = CMSG_FIRSTHDR(mh);
    size = 0;
    if (tos >= 0) {
        c->cmsg_level = IPPROTO_IP;
        c->cmsg_type = IP_TOS;
        c->cmsg_len = CMSG_LEN(sizeof tos);
        memcpy(CMSG_DATA(c), &tos, sizeof tos);
        size += CMSG_SPACE(sizeof tos);
        c = CMSG_NXTHDR(mh, c);
    }
    if (gso_size) {
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof gso_size);
        memcpy(CMSG_DATA(c), &gso_size, sizeof gso_size);
        size += CMSG_SPACE(sizeof gso_size);
    }
    mh->msg_controllen = size;
    if (!size) {
        mh->msg_control = NULL;
    }
}

/* Queues one copy of 'p' for remote 'remote' as message 'i' of 'txq',
 * with its frame at 'frame' (the packet's, or a copy with its checksum
 * finished) behind a header for 'vni'. */
static inline void
netdev_vxlan_tx_add__(const struct netdev_vxlan *dev,
                      struct netdev_vxlan_txq *txq, uint32_t i,
                      const struct dp_packet *p, uint8_t *frame,
                      int remote, uint32_t vni, int tos)
{
    struct msghdr *mh = &txq->msgs[i].msg_hdr;

    vxlan_put_header(txq->hdrs[i], vni);
    txq->iovs[i][0] = (struct iovec) { txq->hdrs[i], VXLAN_HEADER_LEN };
    txq->iovs[i][1] = (struct iovec) { frame, p->size };
    *mh = (struct msghdr) {
        .msg_name = (void *) &dev->remotes[remote],
        .msg_namelen = sizeof dev->remotes[remote],
        .msg_iov = txq->iovs[i],
        .msg_iovlen = 2,
    };
    if (tos >= 0) {
        netdev_vxlan_tx_cmsgs__(mh, txq->cmsgs[i].buf,
                                sizeof txq->cmsgs[i].buf, tos, 0);
    }
}

/* Sends the 'size' bytes of 'txq''s GSO buffer, segments of 'stride'
 * bytes (the last may be shorter), as one datagram each, from socket 'fd'
 * to remote 'remote' of 'dev'. */
static void
netdev_vxlan_tx_segments__(const struct netdev_vxlan *dev,
                           struct netdev_vxlan_txq *txq, int fd,
                           uint32_t size, uint32_t stride, int remote,
                           int tos)
{
    uint32_t n = 0;

    txq->msgs_fd = fd;
    for (uint32_t ofs = 0; ofs < size; ofs += stride) {
        struct msghdr *mh = &txq->msgs[n].msg_hdr;

        txq->iovs[n][0] = (struct iovec) { txq->gso_buf + ofs,
                                           MIN(stride, size - ofs) };
        *mh = (struct msghdr) {
            .msg_name = (void *) &dev->remotes[remote],
            .msg_namelen = sizeof dev->remotes[remote],
            .msg_iov = txq->iovs[n],
            .msg_iovlen = 1,
        };
        if (tos >= 0) {
            netdev_vxlan_tx_cmsgs__(mh, txq->cmsgs[n].buf,
                                    sizeof txq->cmsgs[n].buf, tos, 0);
        }
        if (++n == VXLAN_TX_MSGS) {
            netdev_vxlan_tx_flush__(txq, n);
            n = 0;
        }
    }
    if (n) {
        netdev_vxlan_tx_flush__(txq, n);
    }
}

/* Sends 'size' bytes of 'txq''s GSO buffer, 'n' segments of 'stride' bytes
 * each (the last may be shorter), from socket 'fd' to remotes [first,
 * last] of 'dev'. */
static void
netdev_vxlan_tx_gso_send__(const struct netdev_vxlan *dev,
                           struct netdev_vxlan_txq *txq, int fd,
                           uint32_t size, uint32_t n, uint32_t stride,
                           int first, int last, int tos)
{
    union {
        struct cmsghdr align;
        uint8_t buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint16_t))];
    } ctl;
    struct iovec iov = { txq->gso_buf, size };

    for (int r = first; r <= last; r++) {
        struct msghdr mh = {
            .msg_name = (void *) &dev->remotes[r],
            .msg_namelen = sizeof dev->remotes[r],
            .msg_iov = &iov,
            .msg_iovlen = 1,
        };
        ssize_t sent;

        if (txq->no_udp_gso && n > 1) {
            netdev_vxlan_tx_segments__(dev, txq, fd, size, stride, r, tos);
            continue;
        }
        netdev_vxlan_tx_cmsgs__(&mh, ctl.buf, sizeof ctl.buf, tos,
                                n > 1 ? stride : 0);
        do {
            sent = sendmsg(fd, &mh, MSG_DONTWAIT);
        } while (sent < 0 && errno == EINTR);
        if (sent < 0 && errno == EIO && n > 1) {
            /* Kernels before 6.11 refuse UDP GSO towards a device without
             * checksum offload: send the segments one by one from now. */
            txq->no_udp_gso = true;
            netdev_vxlan_tx_segments__(dev, txq, fd, size, stride, r, tos);
        } else if (sent >= 0) {
            netdev_counter_add(&txq->stats.tx_packets, n);
            netdev_counter_add(&txq->stats.tx_bytes,
                               size - n * VXLAN_HEADER_LEN);
        } else {
            netdev_vxlan_tx_error__(&txq->stats, errno, n);
        }
    }
}

/* Cuts TCP GSO frame 'p' into segments that fit the underlay, each behind
 * a VXLAN header for 'vni', and sends them from socket 'fd' to remotes
 * [first, last] in UDP GSO sends of up to VXLAN_TX_GSO_SEGS segments.
 * Returns false, sending nothing, if 'p' cannot be cut. */
static bool
netdev_vxlan_tx_gso__(const struct netdev_vxlan *dev,
                      struct netdev_vxlan_txq *txq, const struct dp_packet *p,
                      int fd, uint32_t vni, int first, int last, int tos)
{
    uint32_t stride, per_send;
    struct gso_iter it;
    bool more = true;

    if (gso_start(&it, p, 0) != GSO_OK) {
        return false;
    }
    if (dev->max_frame && gso_max_segment_size(&it) > dev->max_frame
        && (dev->max_frame <= it.hdr_len
            || gso_start(&it, p, dev->max_frame - it.hdr_len) != GSO_OK)) {
        return false;
    }
    stride = VXLAN_HEADER_LEN + gso_max_segment_size(&it);
    per_send = MIN(VXLAN_TX_GSO_MAX / stride, VXLAN_TX_GSO_SEGS);
    if (!per_send) {
        return false;
    }
    while (more) {
        uint32_t size = 0, n = 0;
        struct dp_packet seg;

        while (n < per_send) {
            uint8_t *hdr = txq->gso_buf + size;

            more = gso_next(&it, hdr + VXLAN_HEADER_LEN,
                            stride - VXLAN_HEADER_LEN, &seg);
            if (!more) {
                break;
            }
            vxlan_put_header(hdr, vni);
            size += VXLAN_HEADER_LEN + seg.size;
            n++;
        }
        if (n) {
            netdev_vxlan_tx_gso_send__(dev, txq, fd, size, n, stride, first,
                                       last, tos);
        }
    }
    return true;
}

/* What to do with frame 'p' before it is sent. */
enum netdev_vxlan_tx_class {
    VXLAN_TX_AS_IS,             /* Send the packet's own bytes. */
    VXLAN_TX_CSUM,              /* Copy, then finish its checksum. */
    VXLAN_TX_GSO,               /* A TCP GSO frame: cut it here. */
    VXLAN_TX_TOO_BIG,           /* Another GSO frame, or too big to
                                 * finish. */
    VXLAN_TX_BAD_VNET,          /* Its checksum offsets lie outside it. */
};

static inline enum netdev_vxlan_tx_class
netdev_vxlan_tx_classify__(const struct dp_packet *p)
{
    uint8_t gso_type;

    if (LIKELY(!(p->flags & DP_PACKET_F_VNET))
        || (p->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE
            && !(p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))) {
        return VXLAN_TX_AS_IS;
    }
    gso_type = p->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
    if (gso_type == VIRTIO_NET_HDR_GSO_TCPV4
        || gso_type == VIRTIO_NET_HDR_GSO_TCPV6) {
        return VXLAN_TX_GSO;
    }
    /* The datapath cuts the other GSO frames before they come here. */
    if (gso_type != VIRTIO_NET_HDR_GSO_NONE || p->size > VXLAN_TX_CSUM_MAX) {
        return VXLAN_TX_TOO_BIG;
    }
    return ((uint32_t) p->vnet.csum_start + p->vnet.csum_offset + 2
            <= p->size ? VXLAN_TX_CSUM : VXLAN_TX_BAD_VNET);
}

void
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
        int fd = txq->fds[p->rss_hash % VXLAN_TX_SOCKETS];
        uint32_t vni = dev->opts.key_flow ? p->tun_id : dev->opts.key;
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
        /* Messages queued go first, in batch order. */
        if (n_msgs && (fd != txq->msgs_fd || class == VXLAN_TX_GSO
                       || n_msgs + (last - first + 1) > VXLAN_TX_MSGS)) {
            netdev_vxlan_tx_flush__(txq, n_msgs);
            n_msgs = 0;
        }
        if (class == VXLAN_TX_GSO) {
            /* One gso_start() refuses has offsets that lie about it. */
            n_bad += !netdev_vxlan_tx_gso__(dev, txq, p, fd, vni, first,
                                            last, tos);
            continue;
        }
        if (class == VXLAN_TX_CSUM) {
            /* Each copy of this frame points at the finished one. */
            frame = txq->csum_bufs + n_msgs * VXLAN_TX_CSUM_MAX;
            memcpy(frame, p->data, p->size);
            csum_fill_partial(frame, p->size, p->vnet.csum_start,
                              p->vnet.csum_offset);
        }
        txq->msgs_fd = fd;
        for (int r = first; r <= last; r++) {
            netdev_vxlan_tx_add__(dev, txq, n_msgs++, p, frame, r, vni, tos);
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
