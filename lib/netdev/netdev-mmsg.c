/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "mmsg" port provider: plain AF_PACKET sockets, receive by recvmmsg()
 * and transmit by sendmmsg(), a batch per system call.  It is the fallback
 * for kernels without TPACKET_V3 and the reference the ring provider is
 * checked against.
 *
 * Each rx queue owns one socket, read by the recvmmsg() receiver of
 * netdev-mmsg-rx.c (a preallocated buffer per batch slot, VLAN tags put
 * back).  With several rx queues the sockets form a PACKET_FANOUT_HASH
 * group, so the kernel spreads flows over them.  Each tx queue owns a
 * transmit-only socket.
 *
 * Counters have one writer each: an rx queue's PMD writes its receive
 * counters, netdev_run() on the control thread writes the kernel drop
 * counter (rx_ring_full), and a tx queue's PMD writes its transmit
 * counters.  get_stats sums them with relaxed loads.
 */
#include <autoconf.h>
#include "netdev/netdev-provider.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_packet_compat.h>
#include "netdev/netdev-mmsg-rx.h"
#include "base/util.h"

struct netdev_mmsg_rxq {
    struct netdev_rxq up;

    /* The socket (rx.fd, this queue's only) and its receiver: set up at
     * construction; then the queue's PMD receives. */
    struct netdev_mmsg_rx rx;

    /* Counters: receive ones written by the PMD, rx_ring_full by the
     * control thread; read by anyone with netdev_counter_read(). */
    struct netdev_stats stats CACHE_ALIGNED;
};

struct netdev_mmsg {
    struct netdev up;

    /* Set at construction, then read only. */
    struct netdev_linux_txq *txqs;  /* up.n_txq entries. */
    int fanout_id;                  /* -1 until rx queue 0 makes a group. */
    bool fanout_ignores_outgoing;   /* The kernel filters our own tx. */
    int rcvbuf;                     /* SO_RCVBUF the kernel granted. */

    /* Control thread only. */
    long long next_drops_ms;        /* When netdev_run() next reads the
                                     * kernel's drop counts. */
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

static int
netdev_mmsg_construct(struct netdev *netdev,
                      const struct netdev_options *opts, char **errp)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    dev->fanout_id = -1;
    return netdev_linux_txqs_open(netdev, &dev->txqs, errp);
}

static void
netdev_mmsg_destruct(struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    netdev_linux_txqs_close(dev->txqs, netdev->n_txq);
}

static struct netdev_rxq *
netdev_mmsg_rxq_alloc(void)
{
    struct netdev_mmsg_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    rxq->rx.fd = -1;
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

    netdev_mmsg_rx_init(&rxq->rx, fd);
    return 0;
}

static void
netdev_mmsg_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);

    netdev_mmsg_rx_uninit(&rxq->rx);
    close(rxq->rx.fd);
    rxq->rx.fd = -1;
}

static int
netdev_mmsg_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                     uint16_t port_no)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);
    bool dry;

    return netdev_mmsg_rx_recv(&rxq->rx, batch, port_no, &rxq->stats, &dry);
}

static int
netdev_mmsg_rxq_wait_fds(const struct netdev_rxq *rxq_,
                         int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    fds[0] = netdev_mmsg_rxq_cast(rxq_)->rx.fd;
    return 1;
}

static void
netdev_mmsg_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    struct netdev_linux_txq *txq = &netdev_mmsg_cast(netdev)->txqs[qid];

    netdev_linux_sendmmsg(txq->fd, batch, &txq->stats);
}

static void
netdev_mmsg_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(netdev->rxqs[i]);

        /* netdev_run() reads the kernel's drops only now and then. */
        netdev_linux_accumulate_drops(rxq->rx.fd, &rxq->stats.rx_ring_full);
        netdev_stats_add(st, &rxq->stats);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        netdev_stats_add(st, &dev->txqs[i].stats);
    }
}

static int
netdev_mmsg_health(const struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    return netdev_linux_link_health(dev->txqs[0].fd, netdev->ifindex,
                                    netdev->name);
}

static void
netdev_mmsg_run(struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);
    long long now = time_msec();

    /* A system call per socket: on every tick, a thousand ports would
     * keep the control thread busy. */
    if (now < dev->next_drops_ms) {
        return;
    }
    dev->next_drops_ms = now + NETDEV_LINUX_DROPS_INTERVAL_MS;
    /* The kernel resets PACKET_STATISTICS on each read; this thread is
     * the only writer of rx_ring_full. */
    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(netdev->rxqs[i]);

        netdev_linux_accumulate_drops(rxq->rx.fd, &rxq->stats.rx_ring_full);
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
        int error = __atomic_load_n(&rxq->rx.last_error, __ATOMIC_RELAXED);

        n_outgoing += netdev_counter_read(&rxq->rx.n_outgoing);
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

static int
netdev_mmsg_set_n_txq(struct netdev *netdev, int n_txq, char **errp)
{
    return netdev_linux_txqs_grow(netdev, netdev_mmsg_cast(netdev)->txqs,
                                  n_txq, errp);
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
    .set_n_txq = netdev_mmsg_set_n_txq,
    .rxq_wait_fds = netdev_mmsg_rxq_wait_fds,
    .get_stats = netdev_mmsg_get_stats,
    .health = netdev_mmsg_health,
    .run = netdev_mmsg_run,
    .get_status = netdev_mmsg_get_status,
};
