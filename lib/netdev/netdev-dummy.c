/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "dummy" port provider: no kernel interface, no root (see
 * netdev-dummy.h for what it offers).
 *
 * Receive.  Each rx queue is a byte ring (byte-ring.h) that the control
 * thread fills under the port's mutex, the only lock here, and that the
 * queue's PMD drains without one: rxq_recv hands out packets that point
 * into the ring, each record keeping DP_PACKET_HEADROOM bytes in front of
 * the frame for a VLAN push, and releases them on its next call, as the
 * provider contract allows.  Each rx queue also has an eventfd for the
 * PMD's sleep (rxq_wait_fds), readable while frames are queued: the
 * producer writes it when it raises the queue's 'signaled' flag, and the
 * PMD drains it only when it finds the ring empty with the flag up, so an
 * idle poll costs no system call.
 *
 * Transmit.  Each tx queue (one per PMD) has a byte ring that its PMD
 * fills, copying each frame, and that the control thread drains into the
 * port's capture (and the pcap file) in netdev_run() and before every
 * read of the capture.  send never blocks: a frame that does not fit the
 * ring is counted as capture_overflow, and is still transmitted.
 *
 * Counters have one writer each: an rx queue's PMD its rx_packets and
 * rx_bytes, the control thread (under the mutex) the queue's rx_ring_full,
 * a tx queue's PMD its transmit counters.
 */
#include <autoconf.h>
#include "netdev/netdev-dummy.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "netdev/netdev-provider.h"
#include "packet/dp-packet.h"
#include "packet/pcap-file.h"
#include "base/byte-ring.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(netdev_dummy);

/* Interface indexes of dummy ports start here, above any the kernel hands
 * out in practice; they only have to be positive and distinct. */
#define NETDEV_DUMMY_IFINDEX_BASE 0x40000000

/* The MTU a dummy port reports. */
#define NETDEV_DUMMY_MTU 1500

struct netdev_dummy_rxq {
    struct netdev_rxq up;

    /* Set at construction, then read only. */
    int efd;                        /* Readable while frames are queued. */

    /* Producer: the control thread, under the port's 'mutex'.  Consumer:
     * the queue's PMD. */
    struct byte_ring ring;
    bool signaled;                  /* 'efd' was written and not drained
                                     * yet; see netdev_dummy_rxq_recv(). */

    /* PMD only. */
    struct dp_packet packets[DP_BATCH_SIZE];

    /* Written by the PMD (rx_packets, rx_bytes) and by the control thread
     * under 'mutex' (rx_ring_full), read by anyone. */
    struct netdev_stats stats CACHE_ALIGNED;
    uint64_t rx_queue_full CACHE_ALIGNED;
};

struct netdev_dummy_txq {
    /* Producer: the queue's PMD.  Consumer: the control thread, under the
     * port's 'mutex'. */
    struct byte_ring ring;

    /* Written by the queue's PMD only. */
    struct netdev_stats stats;
    uint64_t capture_overflow;
} CACHE_ALIGNED;

struct netdev_dummy {
    struct netdev up;

    /* Set at construction, then read only. */
    struct netdev_dummy_txq *txqs;  /* up.n_txq entries. */
    char *pcap_path;                /* NULL: no pcap file. */

    /* Control thread, under 'mutex'. */
    pthread_mutex_t mutex;
    struct pcap_writer *pcap;       /* NULL if none, or after an error. */
    struct netdev_dummy_frame *frames; /* NETDEV_DUMMY_CAPTURE_MAX slots,
                                        * a circular buffer... */
    size_t first;                   /* ...of 'n_frames' from 'first'. */
    size_t n_frames;
    uint64_t n_captured;
    uint64_t capture_dropped;       /* Also read without 'mutex'. */
};

static struct netdev_dummy *
netdev_dummy_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_dummy, up);
}

static struct netdev_dummy_rxq *
netdev_dummy_rxq_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_dummy_rxq, up);
}

/* Set once, before any port is opened; read by netdev_open(). */
static bool dummy_enabled;

void
netdev_dummy_enable(void)
{
    dummy_enabled = true;
}

bool
netdev_dummy_is_enabled(void)
{
    return dummy_enabled;
}

bool
netdev_is_dummy(const struct netdev *netdev)
{
    return netdev->class == &netdev_dummy_class;
}

static struct netdev *
netdev_dummy_alloc(void)
{
    struct netdev_dummy *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

static void
netdev_dummy_dealloc(struct netdev *netdev)
{
    free(netdev_dummy_cast(netdev));
}

static int
netdev_dummy_construct(struct netdev *netdev,
                       const struct netdev_options *opts, char **errp)
{
    static int next_ifindex = NETDEV_DUMMY_IFINDEX_BASE;
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);
    int error;

    if (opts->pcap) {
        char *why = NULL;

        error = pcap_writer_open(opts->pcap, &dev->pcap, &why);
        if (error) {
            *errp = xasprintf("dummy port %s: pcap %s", netdev->name, why);
            free(why);
            return error;
        }
        dev->pcap_path = xstrdup(opts->pcap);
    }
    /* netdev.c holds its mutex around construct. */
    netdev->ifindex = next_ifindex++;
    pthread_mutex_init(&dev->mutex, NULL);
    dev->frames = xcalloc(NETDEV_DUMMY_CAPTURE_MAX, sizeof *dev->frames);
    dev->txqs = xzalloc_cacheline(netdev->max_txq * sizeof *dev->txqs);
    for (int i = 0; i < netdev->n_txq; i++) {
        byte_ring_init(&dev->txqs[i].ring, NETDEV_DUMMY_TXQ_BYTES);
    }
    return 0;
}

static int
netdev_dummy_set_n_txq(struct netdev *netdev, int n_txq,
                       char **errp OVS_UNUSED)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);

    for (int i = netdev->n_txq; i < n_txq; i++) {
        byte_ring_init(&dev->txqs[i].ring, NETDEV_DUMMY_TXQ_BYTES);
    }
    return 0;
}

static void
netdev_dummy_clear__(struct netdev_dummy *dev)
{
    for (size_t i = 0; i < dev->n_frames; i++) {
        free(dev->frames[(dev->first + i) % NETDEV_DUMMY_CAPTURE_MAX].data);
    }
    dev->first = dev->n_frames = 0;
}

static void
netdev_dummy_destruct(struct netdev *netdev)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);

    netdev_dummy_clear__(dev);
    free(dev->frames);
    for (int i = 0; i < netdev->n_txq; i++) {
        byte_ring_uninit(&dev->txqs[i].ring);
    }
    free(dev->txqs);
    pcap_writer_close(dev->pcap);
    free(dev->pcap_path);
    pthread_mutex_destroy(&dev->mutex);
}

static struct netdev_rxq *
netdev_dummy_rxq_alloc(void)
{
    struct netdev_dummy_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    rxq->efd = -1;
    return &rxq->up;
}

static void
netdev_dummy_rxq_dealloc(struct netdev_rxq *rxq)
{
    free(netdev_dummy_rxq_cast(rxq));
}

static int
netdev_dummy_rxq_construct(struct netdev_rxq *rxq_, char **errp)
{
    struct netdev_dummy_rxq *rxq = netdev_dummy_rxq_cast(rxq_);

    rxq->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (rxq->efd < 0) {
        int error = errno;

        *errp = xasprintf("dummy port %s: rx queue %d: eventfd failed (%s)",
                          rxq_->netdev->name, rxq_->qid, strerror(error));
        return error;
    }
    byte_ring_init(&rxq->ring, NETDEV_DUMMY_RXQ_BYTES);
    return 0;
}

static void
netdev_dummy_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_dummy_rxq *rxq = netdev_dummy_rxq_cast(rxq_);

    byte_ring_uninit(&rxq->ring);
    close(rxq->efd);
    rxq->efd = -1;
}

static int
netdev_dummy_rxq_wait_fds(const struct netdev_rxq *rxq_,
                          int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    fds[0] = netdev_dummy_rxq_cast(rxq_)->efd;
    return 1;
}

/* An eventfd write or read that cannot fail in a way that matters: the
 * counter cannot overflow, and a read of a drained one is EAGAIN. */
static void
netdev_dummy_efd_io__(int fd, bool write_)
{
    uint64_t value = 1;
    ssize_t n = (write_ ? write(fd, &value, sizeof value)
                 : read(fd, &value, sizeof value));

    (void) n;
}

/* Makes 'rxq''s eventfd readable unless it is already.  Producer side,
 * and the consumer re-arming after a race. */
static void
netdev_dummy_rxq_signal__(struct netdev_dummy_rxq *rxq)
{
    /* Sequentially consistent, as the store and the ring load in
     * netdev_dummy_rxq_recv() that it pairs with. */
    if (!__atomic_exchange_n(&rxq->signaled, true, __ATOMIC_SEQ_CST)) {
        netdev_dummy_efd_io__(rxq->efd, true);
    }
}

int
netdev_dummy_receive(struct netdev *netdev, int qid, const void *frame,
                     size_t size)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);
    struct netdev_dummy_rxq *rxq;
    uint8_t *rec;

    if (!netdev_is_dummy(netdev) || qid < 0 || qid >= netdev->n_rxq
        || size < NETDEV_DUMMY_FRAME_MIN || size > NETDEV_DUMMY_FRAME_MAX) {
        return EINVAL;
    }
    rxq = netdev_dummy_rxq_cast(netdev->rxqs[qid]);
    pthread_mutex_lock(&dev->mutex);
    rec = byte_ring_reserve(&rxq->ring, DP_PACKET_HEADROOM + size);
    if (!rec) {
        netdev_counter_add(&rxq->rx_queue_full, 1);
        pthread_mutex_unlock(&dev->mutex);
        return ENOBUFS;
    }
    memcpy(rec + DP_PACKET_HEADROOM, frame, size);
    byte_ring_commit(&rxq->ring);
    netdev_dummy_rxq_signal__(rxq);
    pthread_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_dummy_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                      uint16_t port_no)
{
    struct netdev_dummy_rxq *rxq = netdev_dummy_rxq_cast(rxq_);
    uint32_t room = DP_BATCH_SIZE - batch->count;
    uint32_t n_packets = 0;
    uint64_t n_bytes = 0;

    /* The PMD is done with the packets of the last call. */
    byte_ring_release(&rxq->ring);
    while (n_packets < room) {
        struct dp_packet *p = &rxq->packets[n_packets];
        size_t size;
        uint8_t *rec = byte_ring_read(&rxq->ring, &size);

        if (!rec) {
            break;
        }
        dp_packet_init(p, rec + DP_PACKET_HEADROOM,
                       size - DP_PACKET_HEADROOM, port_no);
        n_bytes += p->size;
        n_packets++;
        dp_batch_add(batch, p);
    }

    if (UNLIKELY(__atomic_load_n(&rxq->signaled, __ATOMIC_RELAXED))
        && n_packets < room) {
        /* The ring looked empty: make the eventfd unreadable, then look
         * again, in that order (both sequentially consistent, pairing
         * with netdev_dummy_rxq_signal__()), so that a frame queued in
         * between cannot leave the PMD asleep: either the producer sees
         * the flag down and writes the eventfd, or this load sees its
         * frame and re-arms it. */
        __atomic_store_n(&rxq->signaled, false, __ATOMIC_SEQ_CST);
        netdev_dummy_efd_io__(rxq->efd, false);
        if (!byte_ring_drained(&rxq->ring)) {
            netdev_dummy_rxq_signal__(rxq);
        }
    }
    if (n_packets) {
        netdev_counter_add(&rxq->stats.rx_packets, n_packets);
        netdev_counter_add(&rxq->stats.rx_bytes, n_bytes);
    }
    return n_packets ? 0 : EAGAIN;
}

static void
netdev_dummy_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    struct netdev_dummy_txq *txq = &netdev_dummy_cast(netdev)->txqs[qid];
    uint32_t n = MIN(batch->count, DP_BATCH_SIZE);
    uint32_t n_overflow = 0;
    uint32_t n_too_big = 0;
    uint32_t n_sent = 0;
    uint64_t n_bytes = 0;

    for (uint32_t i = 0; i < n; i++) {
        const struct dp_packet *p = batch->packets[i];
        void *rec;

        if (UNLIKELY(p->size > NETDEV_DUMMY_FRAME_MAX)) {
            n_too_big++;
            continue;
        }
        n_sent++;
        n_bytes += p->size;
        rec = byte_ring_reserve(&txq->ring, p->size);
        if (UNLIKELY(!rec)) {
            n_overflow++;
            continue;
        }
        memcpy(rec, p->data, p->size);
    }
    byte_ring_commit(&txq->ring);
    if (n_sent) {
        netdev_counter_add(&txq->stats.tx_packets, n_sent);
        netdev_counter_add(&txq->stats.tx_bytes, n_bytes);
    }
    if (UNLIKELY(n_too_big)) {
        netdev_counter_add(&txq->stats.tx_too_big, n_too_big);
    }
    if (UNLIKELY(n_overflow)) {
        netdev_counter_add(&txq->capture_overflow, n_overflow);
    }
}

/* Moves every frame the tx queues hold into the capture and the pcap
 * file.  Caller holds 'dev->mutex'. */
static void
netdev_dummy_drain__(struct netdev_dummy *dev)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    bool wrote = false;

    for (int i = 0; i < dev->up.n_txq; i++) {
        struct byte_ring *ring = &dev->txqs[i].ring;
        const uint8_t *rec;
        size_t size;

        while ((rec = byte_ring_read(ring, &size)) != NULL) {
            size_t slot = ((dev->first + dev->n_frames)
                           % NETDEV_DUMMY_CAPTURE_MAX);

            if (dev->n_frames == NETDEV_DUMMY_CAPTURE_MAX) {
                /* Full: the oldest goes, and its slot is the new one's. */
                free(dev->frames[dev->first].data);
                slot = dev->first;
                dev->first = (dev->first + 1) % NETDEV_DUMMY_CAPTURE_MAX;
                dev->n_frames--;
                netdev_counter_add(&dev->capture_dropped, 1);
            }
            dev->frames[slot].data = xmemdup(rec, size);
            dev->frames[slot].size = size;
            dev->n_frames++;
            dev->n_captured++;
            if (dev->pcap) {
                int error = pcap_writer_write(dev->pcap, rec, size);

                if (error) {
                    VLOG_WARN_RL(&rl, "%s: writing %s failed (%s); no more "
                                 "frames go there", dev->up.name,
                                 dev->pcap_path, strerror(error));
                    pcap_writer_close(dev->pcap);
                    dev->pcap = NULL;
                } else {
                    wrote = true;
                }
            }
        }
        byte_ring_release(ring);
    }
    if (wrote) {
        pcap_writer_flush(dev->pcap);
    }
}

static void
netdev_dummy_run(struct netdev *netdev)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);

    pthread_mutex_lock(&dev->mutex);
    netdev_dummy_drain__(dev);
    pthread_mutex_unlock(&dev->mutex);
}

void
netdev_dummy_get_capture(struct netdev *netdev, bool clear,
                         struct netdev_dummy_capture *cap)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);

    memset(cap, 0, sizeof *cap);
    if (!netdev_is_dummy(netdev)) {
        return;
    }
    pthread_mutex_lock(&dev->mutex);
    netdev_dummy_drain__(dev);
    cap->n = dev->n_frames;
    cap->frames = xcalloc(cap->n + 1, sizeof *cap->frames);
    for (size_t i = 0; i < cap->n; i++) {
        struct netdev_dummy_frame *f
            = &dev->frames[(dev->first + i) % NETDEV_DUMMY_CAPTURE_MAX];

        cap->frames[i].size = f->size;
        cap->frames[i].data = clear ? f->data : xmemdup(f->data, f->size);
    }
    if (clear) {
        dev->first = dev->n_frames = 0;
    }
    cap->n_captured = dev->n_captured;
    cap->n_dropped = netdev_counter_read(&dev->capture_dropped);
    for (int i = 0; i < netdev->n_txq; i++) {
        cap->n_overflow += netdev_counter_read(
            &dev->txqs[i].capture_overflow);
    }
    pthread_mutex_unlock(&dev->mutex);
}

void
netdev_dummy_capture_uninit(struct netdev_dummy_capture *cap)
{
    for (size_t i = 0; i < cap->n; i++) {
        free(cap->frames[i].data);
    }
    free(cap->frames);
    cap->frames = NULL;
    cap->n = 0;
}

static void
netdev_dummy_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_dummy_rxq *rxq = netdev_dummy_rxq_cast(netdev->rxqs[i]);

        netdev_stats_add(st, &rxq->stats);
        st->rx_ring_full += netdev_counter_read(&rxq->rx_queue_full);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        netdev_stats_add(st, &dev->txqs[i].stats);
    }
}

static int
netdev_dummy_health(const struct netdev *netdev OVS_UNUSED)
{
    return 0;                   /* No link to lose. */
}

static void
netdev_dummy_get_status(const struct netdev *netdev, char *buf, size_t size)
{
    struct netdev_dummy *dev = netdev_dummy_cast(netdev);
    uint64_t overflow = 0;
    size_t queued = 0;
    size_t captured;

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_dummy_rxq *rxq = netdev_dummy_rxq_cast(netdev->rxqs[i]);

        queued += byte_ring_used(&rxq->ring);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        overflow += netdev_counter_read(&dev->txqs[i].capture_overflow);
    }
    pthread_mutex_lock(&dev->mutex);
    captured = dev->n_frames;
    pthread_mutex_unlock(&dev->mutex);
    snprintf(buf, size, "dummy: n_rxq=%d, n_txq=%d, mtu=%d, "
             "rx_queued_bytes=%zu, captured=%zu, capture_dropped=%"PRIu64
             ", capture_overflow=%"PRIu64", pcap=%s", netdev->n_rxq,
             netdev->n_txq, NETDEV_DUMMY_MTU, queued, captured,
             netdev_counter_read(&dev->capture_dropped), overflow,
             dev->pcap_path ? dev->pcap_path : "none");
}

const struct netdev_class netdev_dummy_class = {
    .type = "dummy",
    .no_interface = true,
    .alloc = netdev_dummy_alloc,
    .construct = netdev_dummy_construct,
    .destruct = netdev_dummy_destruct,
    .dealloc = netdev_dummy_dealloc,
    .rxq_alloc = netdev_dummy_rxq_alloc,
    .rxq_construct = netdev_dummy_rxq_construct,
    .rxq_destruct = netdev_dummy_rxq_destruct,
    .rxq_dealloc = netdev_dummy_rxq_dealloc,
    .rxq_recv = netdev_dummy_rxq_recv,
    .send = netdev_dummy_send,
    .set_n_txq = netdev_dummy_set_n_txq,
    .rxq_wait_fds = netdev_dummy_rxq_wait_fds,
    .get_stats = netdev_dummy_get_stats,
    .health = netdev_dummy_health,
    .run = netdev_dummy_run,
    .get_status = netdev_dummy_get_status,
};
