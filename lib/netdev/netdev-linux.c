/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Linux helpers shared by the AF_PACKET port providers (netdev-mmsg.c,
 * netdev-tpacket.c): interface lookup, opening a packet socket with the
 * options every provider needs, accumulating the kernel's drop counters and
 * the batched sendmmsg transmit path.
 *
 * Receive sockets and one transmit socket per queue carry a struct
 * virtio_net_hdr in front of each frame (PACKET_VNET_HDR), so that
 * checksum-partial and GSO frames cross the switch whole.  Frames without
 * offload metadata leave by a second, plain transmit socket: the kernel then
 * has no header to parse.  Both sockets go through the port's qdisc
 * (PACKET_QDISC_BYPASS stays off): with bypass, a GSO frame sent to a port
 * whose TSO is off is dropped while sendmsg reports success, and on veth,
 * whose default qdisc is noqueue, bypass saved nothing measurable.
 */
#include <autoconf.h>
#include "netdev/netdev-provider.h"
#include "netdev/netlink-link.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet_compat.h>
#include <linux/virtio_net.h>
#include "base/util.h"

/* Receive buffer for rx sockets: a 64-byte flood overflows the default
 * 212 KB in a fraction of a millisecond. */
#define NETDEV_LINUX_RCVBUF (8 * 1024 * 1024)

/* Send buffer: room for a full batch of 64 KB GSO frames. */
#define NETDEV_LINUX_SNDBUF (4 * 1024 * 1024)

static int
setsockopt_int__(int fd, int level, int name, int value)
{
    return setsockopt(fd, level, name, &value, sizeof value) ? errno : 0;
}

/* Sets a socket buffer size, beyond the rmem_max/wmem_max sysctl limit when
 * the process has CAP_NET_ADMIN, otherwise as large as the limit allows. */
static void
set_sock_buffer__(int fd, int force_name, int name, int size)
{
    if (setsockopt_int__(fd, SOL_SOCKET, force_name, size)) {
        setsockopt_int__(fd, SOL_SOCKET, name, size);
    }
}

int
netdev_linux_ifindex(const char *name)
{
    struct netlink_link_info info;
    int error = netlink_link_get(name, &info);

    return error ? -error : info.ifindex;
}

int
netdev_linux_packet_socket(int ifindex, enum netdev_linux_sock kind)
{
    bool rx = kind == NETDEV_SOCK_RX;
    struct sockaddr_ll sll;
    int error = 0;
    int fd;

    /* Created with protocol 0 so that it receives nothing until bind()
     * attaches it to 'ifindex' alone: a socket created with ETH_P_ALL
     * would see every interface's traffic in between. */
    fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }

    if (kind != NETDEV_SOCK_TX_PLAIN) {
        error = setsockopt_int__(fd, SOL_PACKET, PACKET_VNET_HDR, 1);
    }
    if (!error && rx) {
        error = setsockopt_int__(fd, SOL_PACKET, PACKET_AUXDATA, 1);
    }
    if (!error && rx) {
        /* Our own transmissions on the port (made on other sockets) would
         * otherwise loop back into the switch. */
        error = setsockopt_int__(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
    }
    if (error) {
        goto error;
    }
    if (rx) {
        set_sock_buffer__(fd, SO_RCVBUFFORCE, SO_RCVBUF, NETDEV_LINUX_RCVBUF);
    }
    set_sock_buffer__(fd, SO_SNDBUFFORCE, SO_SNDBUF, NETDEV_LINUX_SNDBUF);

    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = rx ? htons(ETH_P_ALL) : 0;
    sll.sll_ifindex = ifindex;
    if (bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        error = errno;
        goto error;
    }
    return fd;

error:
    close(fd);
    return -error;
}

void
netdev_linux_get_offloads(const struct netdev *netdev OVS_UNUSED,
                          struct netdev_offloads *offloads)
{
    offloads->vnet_hdr = true;
}

void
netdev_linux_accumulate_packet_stats(int fd, uint64_t *arrived,
                                     uint64_t *drops)
{
    /* The first two fields are common to struct tpacket_stats and
     * tpacket_stats_v3; the kernel copies no more than we ask for.  Its
     * tp_packets includes the drops. */
    struct tpacket_stats st;
    socklen_t len = sizeof st;

    if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len)
        || len < sizeof st) {
        return;
    }
    if (st.tp_drops) {
        netdev_counter_add(drops, st.tp_drops);
    }
    if (arrived && st.tp_packets) {
        netdev_counter_add(arrived, st.tp_packets);
    }
}

void
netdev_linux_accumulate_drops(int fd, uint64_t *drops)
{
    netdev_linux_accumulate_packet_stats(fd, NULL, drops);
}

/* Returns and clears the error the kernel recorded on 'fd' for a message
 * that a partially successful sendmmsg() did not send, or 0 if none. */
static int
take_pending_error__(int fd)
{
    socklen_t len;
    int error = 0;

    len = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len)) {
        return errno;
    }
    return error;
}

/* True if 'error' concerns one frame only (it is too big or its offload
 * metadata is malformed), so that the frames after it may still go out. */
static bool
tx_error_is_per_frame__(int error)
{
    return error == EMSGSIZE || error == EINVAL;
}

/* Counts 'n' frames refused by the kernel with 'error' in the matching
 * named drop counter of 'stats'. */
static void
count_tx_drops__(struct netdev_stats *stats, int error, uint64_t n)
{
    uint64_t *counter;

    switch (error) {
    case EAGAIN:
    case ENOBUFS:
        counter = &stats->tx_queue_full;
        break;
    case EMSGSIZE:
        counter = &stats->tx_too_big;
        break;
    case ENETDOWN:
    case ENXIO:
    case ENODEV:
        counter = &stats->tx_port_down;
        break;
    default:
        counter = &stats->tx_errors;
        break;
    }
    netdev_counter_add(counter, n);
}

/* Progress through one batch in netdev_linux_sendmmsg(). */
struct sendmmsg_state {
    uint32_t done;              /* Messages sent or dropped so far. */
    uint32_t n_sent;            /* Of which sent. */
    uint64_t n_bytes;           /* Frame bytes sent. */
    bool retried;               /* The one retry has been used. */
};

/* Makes one sendmmsg() call for the messages of 'msgs' from 'st->done' to
 * 'n' and deals with a refusal: a frame refused for itself is dropped and
 * the rest goes on; otherwise the rest gets one retry if the call sent
 * something (the queue may have drained), then is dropped.  Advances
 * 'st'.  Returns false once the messages up to 'n' (one run of the batch,
 * see netdev_linux_sendmmsg()) are finished. */
static bool
sendmmsg_step__(int fd, struct mmsghdr *msgs, uint32_t n,
                const struct dp_batch *batch, struct netdev_stats *stats,
                struct sendmmsg_state *st)
{
    int error;
    int ret;

    ret = sendmmsg(fd, &msgs[st->done], n - st->done, MSG_DONTWAIT);
    if (ret > 0) {
        for (uint32_t i = st->done; i < st->done + ret; i++) {
            st->n_bytes += batch->packets[i]->size;
        }
        st->done += ret;
        st->n_sent += ret;
        if (st->done == n) {
            return false;
        }
        /* sendmmsg() stops at the first failing message and, having sent
         * some, leaves that message's error on the socket, where it would
         * surface on a later call.  Collect it now to classify it. */
        error = take_pending_error__(fd);
        if (!error) {
            error = EAGAIN;
        }
    } else {
        error = ret < 0 ? errno : EAGAIN;
    }

    if (tx_error_is_per_frame__(error)) {
        count_tx_drops__(stats, error, 1);
        st->done++;
        return st->done < n;
    }
    if ((ret > 0 || error == EINTR) && !st->retried) {
        st->retried = true;
        return true;
    }
    count_tx_drops__(stats, error, n - st->done);
    st->done = n;
    return false;
}

/* True if 'p' carries offload metadata that the kernel acts on when it
 * transmits: a checksum to finish or GSO.  DATA_VALID (the receiving
 * kernel checked the checksum) means nothing on transmit. */
static inline bool
needs_vnet_hdr__(const struct dp_packet *p)
{
    return ((p->flags & DP_PACKET_F_VNET)
            && ((p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
                || p->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE));
}

void
netdev_linux_sendmmsg(struct netdev_linux_txq *txq, struct dp_batch *batch)
{
    struct iovec iovs[DP_BATCH_SIZE][2];
    struct mmsghdr msgs[DP_BATCH_SIZE];
    bool vnet[DP_BATCH_SIZE];
    uint32_t n = MIN(batch->count, DP_BATCH_SIZE);
    struct sendmmsg_state st = { .done = 0 };

    for (uint32_t i = 0; i < n; i++) {
        struct dp_packet *p = batch->packets[i];

        vnet[i] = needs_vnet_hdr__(p);
        iovs[i][0].iov_base = &p->vnet;
        iovs[i][0].iov_len = sizeof p->vnet;
        iovs[i][1].iov_base = p->data;
        iovs[i][1].iov_len = p->size;
        memset(&msgs[i].msg_hdr, 0, sizeof msgs[i].msg_hdr);
        msgs[i].msg_hdr.msg_iov = &iovs[i][!vnet[i]];
        msgs[i].msg_hdr.msg_iovlen = vnet[i] ? 2 : 1;
    }

    /* One run per change between the sockets; both transmit in the
     * calling thread, so the frames leave in batch order.  Each run is
     * usually one call: each further call follows a call that sent or
     * dropped at least one frame, or is the run's single retry. */
    while (st.done < n) {
        uint32_t end = st.done + 1;
        int fd = vnet[st.done] ? txq->fd : txq->plain_fd;

        while (end < n && vnet[end] == vnet[st.done]) {
            end++;
        }
        st.retried = false;
        while (sendmmsg_step__(fd, msgs, end, batch, &txq->stats, &st)) {
            continue;
        }
    }
    if (st.n_sent) {
        netdev_counter_add(&txq->stats.tx_packets, st.n_sent);
        netdev_counter_add(&txq->stats.tx_bytes, st.n_bytes);
    }
}

/* Returns 0 if interface 'name' still has index 'ifindex' and is up with a
 * carrier, ENODEV if it is gone (or was replaced by a new interface of the
 * same name, which our sockets are not bound to), ENETDOWN if it is down.
 * 'fd' is any socket in the interface's namespace. */
int
netdev_linux_link_health(int fd, int ifindex, const char *name)
{
    struct ifreq ifr;

    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_ifindex = ifindex;
    if (ioctl(fd, SIOCGIFNAME, &ifr) || strcmp(ifr.ifr_name, name)) {
        return ENODEV;
    }
    if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
        return errno == ENODEV ? ENODEV : ENETDOWN;
    }
    if ((ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING)) {
        return ENETDOWN;
    }
    return 0;
}

/* Opens the two sockets of 'txq'.  Returns 0, or a positive errno with a
 * message in '*errp' and neither left open. */
static int
txq_open__(const struct netdev *netdev, struct netdev_linux_txq *txq,
           char **errp)
{
    int fd = netdev_linux_packet_socket(netdev->ifindex, NETDEV_SOCK_TX);
    int plain_fd = -1;

    if (fd >= 0) {
        plain_fd = netdev_linux_packet_socket(netdev->ifindex,
                                              NETDEV_SOCK_TX_PLAIN);
        if (plain_fd < 0) {
            close(fd);
            fd = plain_fd;
        }
    }
    if (fd < 0) {
        *errp = xasprintf("interface %s: cannot open transmit socket (%s)",
                          netdev->name, strerror(-fd));
        return -fd;
    }
    txq->fd = fd;
    txq->plain_fd = plain_fd;
    return 0;
}

static void
txq_close__(struct netdev_linux_txq *txq)
{
    close(txq->fd);
    close(txq->plain_fd);
    memset(txq, 0, sizeof *txq);
    txq->fd = txq->plain_fd = -1;
}

int
netdev_linux_txqs_open(const struct netdev *netdev,
                       struct netdev_linux_txq **txqsp, char **errp)
{
    struct netdev_linux_txq *txqs;

    txqs = xzalloc_cacheline(netdev->max_txq * sizeof *txqs);
    for (int i = 0; i < netdev->n_txq; i++) {
        int error = txq_open__(netdev, &txqs[i], errp);

        if (error) {
            netdev_linux_txqs_close(txqs, i);
            *txqsp = NULL;
            return error;
        }
    }
    *txqsp = txqs;
    return 0;
}

int
netdev_linux_txqs_grow(const struct netdev *netdev,
                       struct netdev_linux_txq *txqs, int n_txq, char **errp)
{
    for (int i = netdev->n_txq; i < n_txq; i++) {
        int error = txq_open__(netdev, &txqs[i], errp);

        if (error) {
            for (int j = netdev->n_txq; j < i; j++) {
                txq_close__(&txqs[j]);
            }
            return error;
        }
    }
    return 0;
}

void
netdev_linux_txqs_close(struct netdev_linux_txq *txqs, int n)
{
    for (int i = 0; i < n; i++) {
        txq_close__(&txqs[i]);
    }
    free(txqs);
}
