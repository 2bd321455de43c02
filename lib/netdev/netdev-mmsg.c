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
 * back).  The sockets form a PACKET_FANOUT_CBPF group whose program
 * (netdev-tpacket-steer.c) spreads flows over them, even with one queue:
 * a netdev that replaces the port on its interface (the other provider,
 * or other options) joins that group and takes every frame over at one
 * instant, while the PMDs read these sockets dry (doc/port-handover.md).
 * Each tx queue owns two transmit-only sockets (netdev_linux_sendmmsg()).
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
#include "netdev/netdev-tpacket-steer.h"
#include "base/util.h"

struct netdev_mmsg_rxq {
    struct netdev_rxq up;

    /* The socket (rx.fd, this queue's only) and its receiver: set up at
     * construction; then the queue's PMD receives. */
    struct netdev_mmsg_rx rx;

    /* Counters: receive ones written by the PMD, rx_ring_full by the
     * control thread; read by anyone with netdev_counter_read(). */
    struct netdev_stats stats CACHE_ALIGNED;

    /* Set by the PMD (release) once it found the socket empty after
     * seeing the port retired; loaded by the control thread (acquire). */
    bool drained;
};

struct netdev_mmsg {
    struct netdev up;

    /* Set at construction, then read only. */
    struct netdev_linux_txq *txqs;  /* up.n_txq entries. */
    int rcvbuf;                     /* SO_RCVBUF the kernel granted. */

    /* Control thread only: the receive sockets (one per rx queue, owned
     * by 'steer') and their fanout group. */
    struct tpacket_steer steer;

    /* Stored by the control thread (release) once a successor took every
     * frame over; loaded by the PMDs (acquire). */
    bool retiring;

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

/* Opens the receive socket of every rx queue of 'dev', held, and puts
 * them in a fanout group: the one of 'opts->predecessor' if it has one.
 * Returns 0, or a positive errno with a message in '*errp' and nothing
 * left open. */
static int
open_rx_sockets(struct netdev_mmsg *dev, const struct netdev_options *opts,
                char **errp)
{
    struct netdev *netdev = &dev->up;
    struct netdev *pred = opts->predecessor;
    int fds[TPACKET_STEER_MAX_RXQ];
    const char *step = "";
    int error = 0;
    int q;

    if (netdev->n_rxq > TPACKET_STEER_MAX_RXQ) {
        *errp = xasprintf("interface %s: type mmsg supports 1 to %d rx "
                          "queues (n_rxq %d requested)", netdev->name,
                          TPACKET_STEER_MAX_RXQ, netdev->n_rxq);
        return EINVAL;
    }
    for (q = 0; q < netdev->n_rxq && !error; q++) {
        fds[q] = netdev_linux_packet_socket(netdev->ifindex,
                                            NETDEV_SOCK_RX);
        if (fds[q] < 0) {
            error = -fds[q];
            step = "cannot open receive socket";
            break;
        }
        /* Frames it queues before this are discarded once it joined. */
        error = tpacket_steer_hold(fds[q]);
        if (error) {
            step = "cannot attach filter";
            q++;
            break;
        }
    }
    if (!error) {
        socklen_t len = sizeof dev->rcvbuf;

        if (getsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &dev->rcvbuf, &len)) {
            dev->rcvbuf = -1;
        }
        error = tpacket_steer_init(&dev->steer, fds, netdev->n_rxq, 1, 0,
                                   (pred && pred->class->rx_steer
                                    ? pred->class->rx_steer(pred) : NULL),
                                   &step);
    }
    if (error) {
        *errp = xasprintf("interface %s: receive sockets: %s (%s)",
                          netdev->name, step, strerror(error));
        for (int i = 0; i < q; i++) {
            close(fds[i]);
        }
    }
    return error;
}

static int
netdev_mmsg_construct(struct netdev *netdev,
                      const struct netdev_options *opts, char **errp)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);
    int error;

    error = netdev_linux_txqs_open(netdev, &dev->txqs, errp);
    if (!error) {
        error = open_rx_sockets(dev, opts, errp);
        if (error) {
            netdev_linux_txqs_close(dev->txqs, netdev->n_txq);
            dev->txqs = NULL;
        }
    }
    return error;
}

static void
netdev_mmsg_destruct(struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    tpacket_steer_uninit(&dev->steer);
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

static int
netdev_mmsg_rxq_construct(struct netdev_rxq *rxq_, char **errp OVS_UNUSED)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);
    struct netdev_mmsg *dev = netdev_mmsg_cast(rxq_->netdev);

    netdev_mmsg_rx_init(&rxq->rx, dev->steer.fds[rxq_->qid]);
    return 0;
}

static void
netdev_mmsg_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);

    /* The port closes the socket. */
    netdev_mmsg_rx_uninit(&rxq->rx);
    rxq->rx.fd = -1;
}

static int
netdev_mmsg_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                     uint16_t port_no)
{
    struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(rxq_);
    /* Pairs with the release store in netdev_mmsg_retire(), made once the
     * kernel delivers nothing more here: an empty queue after it stays
     * empty. */
    bool retiring = __atomic_load_n(&netdev_mmsg_cast(rxq_->netdev)->retiring,
                                    __ATOMIC_ACQUIRE);
    bool dry;
    int error;

    error = netdev_mmsg_rx_recv(&rxq->rx, batch, port_no, &rxq->stats, &dry);
    if (UNLIKELY(retiring && dry)) {
        /* Pairs with the acquire load in netdev_mmsg_drained(). */
        __atomic_store_n(&rxq->drained, true, __ATOMIC_RELEASE);
    }
    return error;
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

    netdev_linux_sendmmsg(txq, batch);
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
    snprintf(buf, size, "mmsg: n_rxq=%d, n_txq=%d, rcvbuf=%d, fanout=%s %d, "
             "ignored_outgoing=%llu, last_rx_error=%s",
             netdev->n_rxq, netdev->n_txq, dev->rcvbuf,
             (dev->steer.group->ignores_outgoing ? "cbpf,ignore-outgoing"
              : "cbpf"), dev->steer.group->id,
             (unsigned long long) n_outgoing,
             last_error ? strerror(last_error) : "none");
}

static int
netdev_mmsg_set_n_txq(struct netdev *netdev, int n_txq, char **errp)
{
    return netdev_linux_txqs_grow(netdev, netdev_mmsg_cast(netdev)->txqs,
                                  n_txq, errp);
}

/* Hand-over (doc/port-handover.md). */

static struct tpacket_steer *
netdev_mmsg_rx_steer(struct netdev *netdev)
{
    return &netdev_mmsg_cast(netdev)->steer;
}

static int
netdev_mmsg_take_over(struct netdev *netdev)
{
    struct netdev_mmsg *dev = netdev_mmsg_cast(netdev);

    return (tpacket_steer_is_owner(&dev->steer) ? 0
            : tpacket_steer_take_over(&dev->steer));
}

static void
netdev_mmsg_retire(struct netdev *netdev)
{
    /* Pairs with the acquire load in netdev_mmsg_rxq_recv(). */
    __atomic_store_n(&netdev_mmsg_cast(netdev)->retiring, true,
                     __ATOMIC_RELEASE);
}

static bool
netdev_mmsg_drained(const struct netdev *netdev)
{
    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_mmsg_rxq *rxq = netdev_mmsg_rxq_cast(netdev->rxqs[i]);

        if (!__atomic_load_n(&rxq->drained, __ATOMIC_ACQUIRE)) {
            return false;
        }
    }
    return true;
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
    .rx_steer = netdev_mmsg_rx_steer,
    .take_over = netdev_mmsg_take_over,
    .retire = netdev_mmsg_retire,
    .drained = netdev_mmsg_drained,
    .get_offloads = netdev_linux_get_offloads,
    .get_status = netdev_mmsg_get_status,
};
