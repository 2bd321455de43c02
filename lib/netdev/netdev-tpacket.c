/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "tpacket" port provider: receive from a memory-mapped TPACKET_V3
 * AF_PACKET ring under load and from a plain packet socket by recvmmsg()
 * otherwise, transmit by sendmmsg().
 *
 * Each rx queue has a low-latency socket and a throughput socket with a
 * ring, all of a port's in one fanout group whose steering program the
 * control thread replaces to move a queue between them; the queue's PMD
 * drains the old socket before it reads the new one, so a switch never
 * duplicates, loses or reorders a frame.  This file has the class table and
 * the control thread's side: the sockets, rings and fanout group, the
 * knobs, the mode policy and the switches it asks for, statistics, health
 * and status.  The PMD's receive is in netdev-tpacket-rx.c and its
 * transmit in netdev-tpacket-tx.c; netdev-tpacket-private.h has what they
 * share.
 *
 * The design note, doc/netdev-tpacket.md, explains the two sockets, the
 * switch handshake, the memory sizes, the kernel facts relied on and the
 * measurements behind them; the section names quoted in comments here
 * ("Memory", "More than one rx queue", ...) are that document's.
 */
#include <autoconf.h>

#ifdef HAVE_TPACKET_V3

#include "netdev/netdev-tpacket-private.h"

#include "netdev/netdev-provider.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet_compat.h>
#include <linux/virtio_net.h>
#include "base/ds.h"
#include "netdev/netdev-mmsg-rx.h"
#include "netdev/netdev-tpacket-policy.h"
#include "netdev/netdev-tpacket-steer.h"
#include "packet/packets.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(netdev_tpacket);

/* Largest frame accepted: a 64 KB GSO frame with its Ethernet header and
 * two VLAN tags, rounded up. */
#define TPACKET_FRAME_MAX (65536 + 64)

/* Headroom the kernel leaves before the vnet header of each frame. */
#define TPACKET_RESERVE DP_PACKET_HEADROOM

/* Throughput rings (TPACKET_V3); see "Memory". */
#define TPACKET_TP_PORT_BYTES (16u << 20)   /* A port's rings in all. */
#define TPACKET_TP_QUEUE_MIN_BYTES (1u << 20) /* But at least per queue. */
#define TPACKET_TP_BLOCK_MAX (1u << 20)
#define TPACKET_TP_BLOCK_MIN (256u << 10)
#define TPACKET_TP_MAX_BLOCKS 16
#define TPACKET_TP_TIMEOUT_MS 1
#define TPACKET_TP_TIMEOUT_MAX_MS 10000

BUILD_ASSERT_DECL(TPACKET_TP_BLOCK_MIN > 3 * TPACKET_FRAME_MAX);
BUILD_ASSERT_DECL(TPACKET_TP_QUEUE_MIN_BYTES >= 4 * TPACKET_TP_BLOCK_MIN);
BUILD_ASSERT_DECL(DP_PACKET_HEADROOM >= VLAN_HEADER_LEN);

/* Most rx queues per port (see "More than one rx queue"). */
#define TPACKET_MAX_RXQ TPACKET_STEER_MAX_RXQ

/* Not a mode: switch between the two by load. */
#define TPACKET_AUTO (-1)

static const char *const tpacket_mode_names[TPACKET_N_MODES] = {
    "low-latency", "throughput",
};

/* ---- Sockets and rings (control thread). ---- */

static int
setsockopt_int(int fd, int level, int name, int value)
{
    return setsockopt(fd, level, name, &value, sizeof value) ? errno : 0;
}

/* Returns the size of each throughput ring of a port with 'n_rxq' rx
 * queues (see "Memory"). */
static struct tpacket_ring_size
ring_size_for(int n_rxq)
{
    struct tpacket_ring_size rs;
    uint32_t bytes = TPACKET_TP_PORT_BYTES;

    /* Halve the ring for each doubling of the queues. */
    for (int n = 1; n < n_rxq && bytes > TPACKET_TP_QUEUE_MIN_BYTES;
         n *= 2) {
        bytes /= 2;
    }
    rs.block_size = MIN(MAX(bytes / TPACKET_TP_MAX_BLOCKS,
                            TPACKET_TP_BLOCK_MIN), TPACKET_TP_BLOCK_MAX);
    rs.n_blocks = bytes / rs.block_size;
    return rs;
}

/* Opens a receive socket on 'ifindex' with the TPACKET_V3 ring requested
 * by 'req', maps the ring ('map_size' bytes) into '*mapp' and binds the
 * socket to every protocol.  The socket drops everything until its fanout
 * group is complete.  Returns the fd, or a negative errno with the failing
 * step in '*stepp'. */
static int
open_ring_socket(int ifindex, const struct tpacket_req3 *req,
                 size_t map_size, uint8_t **mapp, const char **stepp)
{
    struct sockaddr_ll sll;
    void *map = MAP_FAILED;
    int error;
    int fd;

    /* A transmit socket's setup: protocol 0, so that it receives nothing
     * before its ring exists, and PACKET_VNET_HDR, which must precede the
     * ring. */
    fd = netdev_linux_packet_socket(ifindex, NETDEV_SOCK_TX);
    if (fd < 0) {
        *stepp = "cannot open packet socket";
        return fd;
    }
    if ((error = setsockopt_int(fd, SOL_PACKET, PACKET_VERSION,
                                TPACKET_V3))) {
        *stepp = "cannot set PACKET_VERSION";
        goto error;
    }
    if ((error = setsockopt_int(fd, SOL_PACKET, PACKET_RESERVE,
                                TPACKET_RESERVE))) {
        *stepp = "cannot set PACKET_RESERVE";
        goto error;
    }
    if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, req, sizeof *req)) {
        error = errno;
        *stepp = "cannot create receive ring";
        goto error;
    }
    map = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        error = errno;
        *stepp = "cannot map receive ring";
        goto error;
    }
    /* It would otherwise get a copy of every frame until it has joined the
     * fanout group. */
    if ((error = tpacket_steer_hold(fd))) {
        *stepp = "cannot attach filter";
        goto error;
    }

    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = ifindex;
    if (bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        error = errno;
        *stepp = "cannot bind receive socket";
        goto error;
    }
    *mapp = map;
    return fd;

error:
    if (map != MAP_FAILED) {
        munmap(map, map_size);
    }
    close(fd);
    return -error;
}

/* Opens the low-latency socket of 'socks' on 'ifindex': bound, with a
 * large receive buffer, read by recvmmsg(), dropping everything until its
 * fanout group is complete.  Returns 0 or a positive errno with the
 * failing step in '*stepp'. */
static int
open_ll(struct tpacket_rx_socks *socks, int ifindex, const char **stepp)
{
    socklen_t len = sizeof socks->ll_rcvbuf;
    int error;
    int fd;

    fd = netdev_linux_packet_socket(ifindex, NETDEV_SOCK_RX);
    if (fd < 0) {
        *stepp = "cannot open low-latency socket";
        return -fd;
    }
    socks->fds[TPACKET_LOW_LATENCY] = fd;
    /* Frames it queues before this are discarded when the group is
     * complete. */
    error = tpacket_steer_hold(fd);
    if (error) {
        *stepp = "cannot attach filter";
        return error;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &socks->ll_rcvbuf, &len)) {
        socks->ll_rcvbuf = -1;
    }
    return 0;
}

/* Opens the throughput socket of 'socks' on 'ifindex' with a ring of size
 * 'rs' and block timeout 'timeout_ms'.  Returns 0 or a positive errno with
 * the failing step in '*stepp'. */
static int
open_tp(struct tpacket_rx_socks *socks, int ifindex,
        const struct tpacket_ring_size *rs, int timeout_ms,
        const char **stepp)
{
    struct tpacket_req3 req = {
        .tp_block_size = rs->block_size,
        .tp_block_nr = rs->n_blocks,
        /* V3 packs frames; the kernel still wants a frame geometry that
         * divides the block. */
        .tp_frame_size = rs->block_size,
        .tp_frame_nr = rs->n_blocks,
        .tp_retire_blk_tov = timeout_ms,
        .tp_feature_req_word = TP_FT_REQ_FILL_RXHASH,
    };
    int fd;

    fd = open_ring_socket(ifindex, &req,
                          (size_t) rs->block_size * rs->n_blocks,
                          &socks->map, stepp);
    if (fd < 0) {
        return -fd;
    }
    socks->fds[TPACKET_THROUGHPUT] = fd;
    return 0;
}

/* Closes the receive sockets of 'dev' and unmaps their rings. */
static void
close_rx_sockets(struct netdev_tpacket *dev)
{
    size_t map_size = (size_t) dev->ring.block_size * dev->ring.n_blocks;

    if (!dev->socks) {
        return;
    }
    /* A mapping holds its socket: the rings go first, so that each socket
     * leaves its fanout group when it is closed, in the order the
     * steering closes them (which a successor that took over counts
     * on). */
    for (int q = 0; q < dev->up.n_rxq; q++) {
        struct tpacket_rx_socks *socks = &dev->socks[q];

        if (socks->map) {
            munmap(socks->map, map_size);
            socks->map = NULL;
        }
    }
    if (dev->steer_owns_fds) {
        tpacket_steer_uninit(&dev->steer);
        dev->steer_owns_fds = false;
    } else {
        for (int q = 0; q < dev->up.n_rxq; q++) {
            for (int m = 0; m < TPACKET_N_MODES; m++) {
                if (dev->socks[q].fds[m] >= 0) {
                    close(dev->socks[q].fds[m]);
                }
            }
        }
    }
    free(dev->socks);
    dev->socks = NULL;
}

/* Returns the modes, one bit per queue as in struct tpacket_steer, that
 * 'dev' starts with. */
static uint64_t
initial_modes(const struct netdev_tpacket *dev)
{
    int n = dev->up.n_rxq;

    if (dev->forced != TPACKET_THROUGHPUT) {
        return 0;
    }
    return n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

/* Opens the receive sockets of every rx queue of 'dev', in fanout member
 * order (see "More than one rx queue"), and puts them in the port's group:
 * that of 'pred', the netdev this one replaces, if it has one (see
 * doc/port-handover.md).  Returns 0, or a positive errno with a message
 * in '*errp' and nothing left open. */
static int
open_rx_sockets(struct netdev_tpacket *dev, struct netdev *pred,
                char **errp)
{
    struct netdev *netdev = &dev->up;
    int fds[TPACKET_MAX_RXQ * TPACKET_N_MODES];
    const char *step = "";
    int error;
    int q;

    dev->ring = ring_size_for(netdev->n_rxq);
    dev->socks = xcalloc(netdev->n_rxq, sizeof *dev->socks);
    for (q = 0; q < netdev->n_rxq; q++) {
        for (int m = 0; m < TPACKET_N_MODES; m++) {
            dev->socks[q].fds[m] = -1;
        }
    }
    /* The low-latency socket of each queue is created before its
     * throughput socket, and each queue after the one before: after a link
     * flap the kernel relinks the members in creation order. */
    for (q = 0; q < netdev->n_rxq; q++) {
        error = open_ll(&dev->socks[q], netdev->ifindex, &step);
        if (!error) {
            error = open_tp(&dev->socks[q], netdev->ifindex, &dev->ring,
                            dev->timeout_ms, &step);
        }
        if (error) {
            *errp = xasprintf("interface %s: rx queue %d: %s (%s)",
                              netdev->name, q, step, strerror(error));
            close_rx_sockets(dev);
            return error;
        }
        memcpy(&fds[q * TPACKET_N_MODES], dev->socks[q].fds,
               sizeof dev->socks[q].fds);
    }
    error = tpacket_steer_init(&dev->steer, fds, netdev->n_rxq,
                               TPACKET_N_MODES, initial_modes(dev),
                               (pred && pred->class->rx_steer
                                ? pred->class->rx_steer(pred) : NULL),
                               &step);
    dev->steer_owns_fds = !error;
    if (error) {
        *errp = xasprintf("interface %s: fanout group of %d rx queues: %s "
                          "(%s)", netdev->name, netdev->n_rxq, step,
                          strerror(error));
        close_rx_sockets(dev);
    }
    return error;
}

/* ---- Life cycle (control thread). ---- */

static struct netdev *
netdev_tpacket_alloc(void)
{
    struct netdev_tpacket *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

static void
netdev_tpacket_dealloc(struct netdev *netdev)
{
    free(netdev_tpacket_cast(netdev));
}

/* Reads the knobs described in the design note into 'dev'.  Returns 0, or
 * EINVAL with a message in '*errp'. */
static int
read_knobs(struct netdev_tpacket *dev, char **errp)
{
    const char *mode = getenv("PMDSWITCH_TPACKET_MODE");
    const char *timeout = getenv("PMDSWITCH_TPACKET_BLOCK_TIMEOUT_MS");

    dev->forced = TPACKET_AUTO;
    if (mode && *mode && strcmp(mode, "auto")) {
        if (!strcmp(mode, tpacket_mode_names[TPACKET_LOW_LATENCY])) {
            dev->forced = TPACKET_LOW_LATENCY;
        } else if (!strcmp(mode, tpacket_mode_names[TPACKET_THROUGHPUT])) {
            dev->forced = TPACKET_THROUGHPUT;
        } else {
            *errp = xasprintf("interface %s: PMDSWITCH_TPACKET_MODE must be "
                              "auto, low-latency or throughput (got \"%s\")",
                              dev->up.name, mode);
            return EINVAL;
        }
    }

    dev->timeout_ms = TPACKET_TP_TIMEOUT_MS;
    if (timeout && *timeout) {
        char *end;
        long ms = strtol(timeout, &end, 10);

        if (*end || ms < 1 || ms > TPACKET_TP_TIMEOUT_MAX_MS) {
            *errp = xasprintf("interface %s: "
                              "PMDSWITCH_TPACKET_BLOCK_TIMEOUT_MS must be "
                              "between 1 and %d (got \"%s\")", dev->up.name,
                              TPACKET_TP_TIMEOUT_MAX_MS, timeout);
            return EINVAL;
        }
        dev->timeout_ms = ms;
    }
    return 0;
}


static int
netdev_tpacket_construct(struct netdev *netdev,
                         const struct netdev_options *opts, char **errp)
{
    struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);
    int error;

    if (opts->n_rxq < 1 || opts->n_rxq > TPACKET_MAX_RXQ) {
        /* netdev.c has the same limit; this keeps the steering program's
         * mode bits in range whatever it says. */
        *errp = xasprintf("interface %s: type tpacket supports 1 to %d rx "
                          "queues (n_rxq %d requested)", netdev->name,
                          TPACKET_MAX_RXQ, opts->n_rxq);
        return EINVAL;
    }
    error = read_knobs(dev, errp);
    if (error) {
        return error;
    }
    error = netdev_linux_txqs_open(netdev, &dev->txqs, errp);
    if (error) {
        return error;
    }
    error = open_rx_sockets(dev, opts->predecessor, errp);
    if (error) {
        netdev_linux_txqs_close(dev->txqs, netdev->n_txq);
        dev->txqs = NULL;
    }
    return error;
}

static void
netdev_tpacket_destruct(struct netdev *netdev)
{
    struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);

    close_rx_sockets(dev);
    netdev_linux_txqs_close(dev->txqs, netdev->n_txq);
}

static struct netdev_rxq *
netdev_tpacket_rxq_alloc(void)
{
    struct netdev_rxq_tpacket *rxq = xzalloc_cacheline(sizeof *rxq);

    return &rxq->up;
}

static void
netdev_tpacket_rxq_dealloc(struct netdev_rxq *rxq_)
{
    free(netdev_rxq_tpacket_cast(rxq_));
}

/* Sets up rx queue 'rxq_' on the sockets the port opened for it. */
static int
netdev_tpacket_rxq_construct(struct netdev_rxq *rxq_,
                             char **errp OVS_UNUSED)
{
    struct netdev_rxq_tpacket *rxq = netdev_rxq_tpacket_cast(rxq_);
    struct netdev_tpacket *dev = netdev_tpacket_cast(rxq_->netdev);
    const struct tpacket_rx_socks *socks = &dev->socks[rxq_->qid];

    memcpy(rxq->fds, socks->fds, sizeof rxq->fds);
    rxq->tp.map = socks->map;
    rxq->tp.block_size = dev->ring.block_size;
    rxq->tp.n_blocks = dev->ring.n_blocks;
    netdev_mmsg_rx_init(&rxq->ll, rxq->fds[TPACKET_LOW_LATENCY]);

    /* The group steers to the initial mode; the PMD starts on the
     * low-latency socket and drains it first if that is not the one. */
    rxq->mode = TPACKET_LOW_LATENCY;
    rxq->pmd_mode = TPACKET_LOW_LATENCY;
    rxq->steer = (dev->forced == TPACKET_AUTO
                  ? TPACKET_LOW_LATENCY : dev->forced);
    tpacket_policy_init(&rxq->policy, rxq->steer,
                        dev->forced != TPACKET_AUTO, dev->timeout_ms,
                        time_msec());
    return 0;
}

static void
netdev_tpacket_rxq_destruct(struct netdev_rxq *rxq_)
{
    /* The port closes the sockets. */
    netdev_mmsg_rx_uninit(&netdev_rxq_tpacket_cast(rxq_)->ll);
}

/* ---- Statistics, health and the mode policy (control thread). ---- */

static void
netdev_tpacket_get_stats(const struct netdev *netdev,
                         struct netdev_stats *stats)
{
    struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);

    for (int i = 0; i < netdev->n_rxq; i++) {
        const struct netdev_rxq_tpacket *rxq
            = netdev_rxq_tpacket_cast(netdev->rxqs[i]);

        netdev_stats_add(stats, &rxq->stats);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        netdev_stats_add(stats, &dev->txqs[i].stats);
    }
}

static int
netdev_tpacket_health(const struct netdev *netdev)
{
    struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);

    return netdev_linux_link_health(dev->txqs[0].fd, netdev->ifindex,
                                    netdev->name);
}

/* Returns and clears the error the kernel recorded on receive socket 'fd'
 * (ENETDOWN when its interface goes down or away), or 0 if none. */
static int
take_socket_error(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = 0 };
    socklen_t len = sizeof(int);
    int error = 0;

    if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & POLLERR)) {
        return 0;
    }
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) ? errno : error;
}

/* Refreshes the error rxq_recv reports when idle: checks the link when a
 * socket reports an error, and then every call until the link is back. */
static void
update_link_error(struct netdev_tpacket *dev)
{
    struct netdev *netdev = &dev->up;
    bool check = dev->link_error != 0;

    for (int i = 0; i < netdev->n_rxq; i++) {
        for (int m = 0; m < TPACKET_N_MODES; m++) {
            check |= take_socket_error(dev->socks[i].fds[m]) != 0;
        }
    }
    if (check) {
        int error = netdev_linux_link_health(dev->txqs[0].fd,
                                             netdev->ifindex, netdev->name);

        /* Read by PMDs; a stale value for a moment is harmless. */
        __atomic_store_n(&dev->link_error, error ? ENETDOWN : 0,
                         __ATOMIC_RELAXED);
    }
}

/* Adds the kernel's drops on both sockets of 'rxq' to rx_ring_full, and
 * the frames it handed them to 'arrived'. */
static void
accumulate_drops(struct netdev_rxq_tpacket *rxq)
{
    for (int m = 0; m < TPACKET_N_MODES; m++) {
        uint64_t before = rxq->drops[m];

        /* The kernel resets the counts on each read; this thread is the
         * only writer of 'drops' and of rx_ring_full. */
        netdev_linux_accumulate_packet_stats(rxq->fds[m], &rxq->arrived,
                                             &rxq->drops[m]);
        if (rxq->drops[m] != before) {
            netdev_counter_add(&rxq->stats.rx_ring_full,
                               rxq->drops[m] - before);
        }
    }
}

/* Reads the cumulative counters of 'rxq' that the mode policy judges. */
static void
read_policy_counters(const struct netdev_rxq_tpacket *rxq,
                     struct tpacket_policy_window *c)
{
    c->ms = 0;
    c->arrived = rxq->arrived;
    c->frames = (netdev_counter_read(&rxq->rx.frames[TPACKET_LOW_LATENCY])
                 + netdev_counter_read(&rxq->rx.frames[TPACKET_THROUGHPUT]));
    c->bytes = netdev_counter_read(&rxq->stats.rx_bytes);
    c->polls_busy = netdev_counter_read(&rxq->rx.polls_busy);
    c->polls_full = netdev_counter_read(&rxq->rx.polls_full);
}

/* Gives the counters of 'rxq' to its policy.  Returns the mode the policy
 * asks for, or -1 to stay. */
static int
run_policy(struct netdev_rxq_tpacket *rxq, long long now)
{
    struct tpacket_policy_window counters;
    enum tpacket_policy_verdict verdict;
    bool draining;

    read_policy_counters(rxq, &counters);
    /* The PMD is still draining after the last switch.  Nothing else is
     * read through 'pmd_mode', so relaxed is enough. */
    draining = (__atomic_load_n(&rxq->pmd_mode, __ATOMIC_RELAXED)
                != rxq->steer);
    verdict = tpacket_policy_run(&rxq->policy, now, &counters, draining);
    return (verdict == TPACKET_POLICY_TO_THROUGHPUT ? TPACKET_THROUGHPUT
            : verdict == TPACKET_POLICY_TO_LOW_LATENCY ? TPACKET_LOW_LATENCY
            : -1);
}

/* Tells 'rxq' and its policy that the kernel now steers it to 'mode'. */
static void
rxq_switched(struct netdev_rxq_tpacket *rxq, int mode)
{
    const struct tpacket_policy_window *w = &rxq->policy.last;
    struct tpacket_policy_window counters;

    /* The kernel waited for a grace period before the new program took
     * over, so every frame the old program steered is queued on the old
     * socket.  Pairs with the acquire load in netdev_tpacket_rxq_recv(). */
    __atomic_store_n(&rxq->steer, mode, __ATOMIC_RELEASE);

    read_policy_counters(rxq, &counters);
    tpacket_policy_switched(&rxq->policy, time_msec(), &counters);
    rxq->n_switches[mode]++;
    VLOG_DBG("%s: rx queue %d: %s mode (%llu frames, %llu bytes in %lld "
             "ms), next switch in %d ms at the earliest",
             rxq->up.netdev->name, rxq->up.qid, tpacket_mode_names[mode],
             (unsigned long long) w->frames, (unsigned long long) w->bytes,
             w->ms, rxq->policy.hold_ms);
}

/* Steers each rx queue of 'dev' to the mode of its bit in 'modes', as the
 * queues' policies asked, with one new steering program.  Sleeps for an
 * RCU grace period. */
static void
switch_queues(struct netdev_tpacket *dev, uint64_t modes)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    uint64_t changed = modes ^ dev->steer.modes;
    int error;
    int q;

    error = tpacket_steer_set_modes(&dev->steer, modes);
    if (error) {
        dev->steer_error = error;
        VLOG_WARN_RL(&rl, "%s: cannot switch %d rx queue(s) (%s)",
                     dev->up.name, count_1bits(changed), strerror(error));
        return;
    }
    dev->n_programs++;
    ULLONG_FOR_EACH_1 (q, changed) {
        rxq_switched(netdev_rxq_tpacket_cast(dev->up.rxqs[q]),
                     (modes >> q) & 1);
    }
}

static void
netdev_tpacket_run(struct netdev *netdev)
{
    struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);
    uint64_t modes = dev->steer.modes;
    long long now = time_msec();

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_rxq_tpacket *rxq
            = netdev_rxq_tpacket_cast(netdev->rxqs[i]);
        int mode;

        accumulate_drops(rxq);
        mode = run_policy(rxq, now);
        if (mode == TPACKET_THROUGHPUT) {
            modes |= UINT64_C(1) << i;
        } else if (mode == TPACKET_LOW_LATENCY) {
            modes &= ~(UINT64_C(1) << i);
        }
    }
    /* A port that has not taken over its group yet, or that handed it
     * over, steers nothing (doc/port-handover.md). */
    if (modes != dev->steer.modes && tpacket_steer_is_owner(&dev->steer)
        && !dev->retiring) {
        switch_queues(dev, modes);
    }
    update_link_error(dev);
}

/* Appends the status of rx queue 'rxq' of 'dev' to 'buf'. */
static void
rxq_status(const struct netdev_tpacket *dev,
           const struct netdev_rxq_tpacket *rxq, char *buf, size_t size,
           size_t *len)
{
    int mode = __atomic_load_n(&rxq->pmd_mode, __ATOMIC_RELAXED);
    int steer = __atomic_load_n(&rxq->steer, __ATOMIC_RELAXED);
    int ll_error = __atomic_load_n(&rxq->ll.last_error, __ATOMIC_RELAXED);
    int qid = rxq->up.qid;

    ds_put_bounded(buf, size, len, "tpacket rx queue %d: mode=%s%s%s "
                   "(%s), switches to low-latency=%llu to throughput=%llu"
                   ", hold %d ms\n",
                   qid, tpacket_mode_names[mode],
                   steer != mode ? " switching to " : "",
                   steer != mode ? tpacket_mode_names[steer] : "",
                   (dev->forced == TPACKET_AUTO ? "auto" : "pinned"),
                   (unsigned long long) rxq->n_switches[TPACKET_LOW_LATENCY],
                   (unsigned long long) rxq->n_switches[TPACKET_THROUGHPUT],
                   rxq->policy.hold_ms);
    ds_put_bounded(buf, size, len, "  frames: low-latency=%llu "
                   "throughput=%llu; low-latency polls: busy=%llu "
                   "full=%llu; blocks: full=%llu timeout=%llu\n",
                   (unsigned long long) netdev_counter_read(
                       &rxq->rx.frames[TPACKET_LOW_LATENCY]),
                   (unsigned long long) netdev_counter_read(
                       &rxq->rx.frames[TPACKET_THROUGHPUT]),
                   (unsigned long long) netdev_counter_read(
                       &rxq->rx.polls_busy),
                   (unsigned long long) netdev_counter_read(
                       &rxq->rx.polls_full),
                   (unsigned long long) netdev_counter_read(
                       &rxq->rx.blocks_full),
                   (unsigned long long) netdev_counter_read(
                       &rxq->rx.blocks_timeout));
    ds_put_bounded(buf, size, len, "  kernel drops: low-latency=%llu "
                   "throughput=%llu; losing=%llu; outgoing skipped=%llu\n",
                   (unsigned long long) rxq->drops[TPACKET_LOW_LATENCY],
                   (unsigned long long) rxq->drops[TPACKET_THROUGHPUT],
                   (unsigned long long) netdev_counter_read(&rxq->rx.losing),
                   (unsigned long long)
                   (netdev_counter_read(&rxq->rx.outgoing)
                    + netdev_counter_read(&rxq->ll.n_outgoing)));
    ds_put_bounded(buf, size, len, "  low-latency socket: recvmmsg, "
                   "%u buffers of %u bytes, rcvbuf %d, last error: %s\n",
                   (unsigned) DP_BATCH_SIZE,
                   (unsigned) NETDEV_MMSG_RX_BUF_SIZE,
                   dev->socks[qid].ll_rcvbuf,
                   ll_error ? strerror(ll_error) : "none");
    ds_put_bounded(buf, size, len, "  throughput ring: TPACKET_V3, %u "
                   "blocks of %u KB (%u KB), block timeout %d ms\n",
                   rxq->tp.n_blocks, rxq->tp.block_size / 1024,
                   rxq->tp.n_blocks * (rxq->tp.block_size / 1024),
                   dev->timeout_ms);
}

static void
netdev_tpacket_get_status(const struct netdev *netdev, char *buf,
                          size_t size)
{
    const struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);
    unsigned int ring_kb = dev->ring.n_blocks * (dev->ring.block_size / 1024);
    size_t len = 0;

    if (size) {
        buf[0] = '\0';
    }
    ds_put_bounded(buf, size, &len, "tpacket: %d rx queue%s, rings %u KB "
                   "per queue (%u KB in all); fanout group %d of %d members "
                   "(cbpf%s), steering program of %zu instructions, "
                   "replaced %llu times, last steering error: %s\n",
                   netdev->n_rxq, netdev->n_rxq == 1 ? "" : "s", ring_kb,
                   ring_kb * netdev->n_rxq, dev->steer.group->id,
                   2 * netdev->n_rxq,
                   (dev->steer.group->ignores_outgoing
                    ? ", kernel ignores outgoing" : ""),
                   dev->steer.n_insns, (unsigned long long) dev->n_programs,
                   dev->steer_error ? strerror(dev->steer_error) : "none");
    for (int i = 0; i < netdev->n_rxq; i++) {
        rxq_status(dev, netdev_rxq_tpacket_cast(netdev->rxqs[i]), buf, size,
                   &len);
    }
}

static int
netdev_tpacket_set_n_txq(struct netdev *netdev, int n_txq, char **errp)
{
    return netdev_linux_txqs_grow(netdev,
                                  netdev_tpacket_cast(netdev)->txqs, n_txq,
                                  errp);
}

/* ---- Hand-over (control thread; doc/port-handover.md). ---- */

static struct tpacket_steer *
netdev_tpacket_rx_steer(struct netdev *netdev)
{
    return &netdev_tpacket_cast(netdev)->steer;
}

static int
netdev_tpacket_take_over(struct netdev *netdev)
{
    struct netdev_tpacket *dev = netdev_tpacket_cast(netdev);

    return (tpacket_steer_is_owner(&dev->steer) ? 0
            : tpacket_steer_take_over(&dev->steer));
}

static void
netdev_tpacket_retire(struct netdev *netdev)
{
    /* Pairs with the acquire load in netdev_tpacket_rxq_recv(). */
    __atomic_store_n(&netdev_tpacket_cast(netdev)->retiring, true,
                     __ATOMIC_RELEASE);
}

static bool
netdev_tpacket_drained(const struct netdev *netdev)
{
    for (int i = 0; i < netdev->n_rxq; i++) {
        const struct netdev_rxq_tpacket *rxq
            = netdev_rxq_tpacket_cast(netdev->rxqs[i]);

        if (!__atomic_load_n(&rxq->drained, __ATOMIC_ACQUIRE)) {
            return false;
        }
    }
    return true;
}

const struct netdev_class netdev_tpacket_class = {
    .type = "tpacket",
    .alloc = netdev_tpacket_alloc,
    .construct = netdev_tpacket_construct,
    .destruct = netdev_tpacket_destruct,
    .dealloc = netdev_tpacket_dealloc,
    .rxq_alloc = netdev_tpacket_rxq_alloc,
    .rxq_construct = netdev_tpacket_rxq_construct,
    .rxq_destruct = netdev_tpacket_rxq_destruct,
    .rxq_dealloc = netdev_tpacket_rxq_dealloc,
    .rxq_recv = netdev_tpacket_rxq_recv,
    .send = netdev_tpacket_send,
    .set_n_txq = netdev_tpacket_set_n_txq,
    .rxq_wait_fds = netdev_tpacket_rxq_wait_fds,
    .get_stats = netdev_tpacket_get_stats,
    .health = netdev_tpacket_health,
    .run = netdev_tpacket_run,
    .rx_steer = netdev_tpacket_rx_steer,
    .take_over = netdev_tpacket_take_over,
    .retire = netdev_tpacket_retire,
    .drained = netdev_tpacket_drained,
    .get_offloads = netdev_linux_get_offloads,
    .get_status = netdev_tpacket_get_status,
};

#endif /* HAVE_TPACKET_V3 */
