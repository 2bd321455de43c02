/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "tap" port provider: a tap device opened on /dev/net/tun, read and
 * written one frame per system call.  What the kernel transmits on the tap
 * is what the switch receives, and what the switch writes the kernel
 * receives on the tap, so the kernel side is the "peer" (often moved into
 * a container's namespace; the fds keep working there).
 *
 * The tap is opened with IFF_MULTI_QUEUE and one fd per rx queue, so that
 * the kernel spreads flows over the queues by hash.  Every frame carries a
 * struct virtio_net_hdr in both directions (IFF_VNET_HDR), and the tap
 * offers checksum and TSO offloads (TUNSETOFFLOAD), so that checksum-partial
 * and GSO frames pass whole, with the same metadata as on a packet-socket
 * port.  A missing tap is created when the port asks for it ('create' in
 * struct netdev_options); it is not persistent, so it goes away when the
 * port closes its last fd.
 *
 * Transmit.  A port has one tx queue per PMD but only n_rxq fds: tx queue
 * 'qid' writes to fd[qid % n_rxq].  A write() to a tap fd is one whole
 * frame and the kernel serialises writers, so sharing an fd between PMDs
 * (and with the rx queue that reads it) needs no lock.  Each tx queue
 * keeps its own counters, written by its PMD only.  The kernel remembers
 * which queue a flow was written on and steers that flow's return traffic
 * to the same queue.
 *
 * Counters have one writer each: an rx queue's PMD writes its receive
 * counters, a tx queue's PMD its transmit counters, and netdev_run() on the
 * control thread the kernel drop counter (rx_ring_full: frames the tap
 * dropped because a queue was full, which it counts as tx_dropped).
 * get_stats sums them with relaxed loads.
 *
 * The kernel drop counter and the interface flags for the health check are
 * read from sysfs attribute files opened once: an open attribute follows
 * the interface into another namespace, where a lookup by name would no
 * longer find it.  If they cannot be opened (no sysfs for this namespace),
 * kernel drops go uncounted and the health check only sees whether the tap
 * still exists.
 */
#include <autoconf.h>
#include "netdev/netdev-provider.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include "packet/packets.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(netdev_tap);

/* Largest frame accepted: a 64 KB GSO frame with its Ethernet header and a
 * VLAN tag (the tap puts tags back in the frame), rounded up.  The tap
 * silently cuts a frame to the buffer, so a frame that fills it is counted
 * as truncated. */
#define NETDEV_TAP_FRAME_MAX (65536 + 128)

/* Bytes per receive buffer: VLAN headroom, then the frame. */
#define NETDEV_TAP_BUF_SIZE ROUND_UP(DP_PACKET_HEADROOM                   \
                                     + NETDEV_TAP_FRAME_MAX,              \
                                     CACHE_LINE_SIZE)

/* The tap is told this header size (TUNSETVNETHDRSZ). */
BUILD_ASSERT_DECL(sizeof(struct virtio_net_hdr) == 10);

struct netdev_tap_rxq {
    struct netdev_rxq up;

    /* Set at construction, then read only. */
    int fd;                         /* The port's fds[qid]; not owned. */
    uint8_t *bufs;                  /* DP_BATCH_SIZE receive buffers. */

    /* PMD only. */
    struct dp_packet packets[DP_BATCH_SIZE];
    struct iovec iovs[DP_BATCH_SIZE][2];

    /* Written by the PMD, read by anyone. */
    int last_error;                 /* Last receive error, 0 if none since
                                     * frames last arrived. */
    struct netdev_stats stats CACHE_ALIGNED;
};

struct netdev_tap_txq {
    int fd;                         /* fds[qid % n_rxq]; not owned. */
    struct netdev_stats stats;      /* Written by the queue's PMD only. */
} CACHE_ALIGNED;

struct netdev_tap {
    struct netdev up;

    /* Set at construction, then read only. */
    int *fds;                       /* up.n_rxq tap queues, -1 if closed. */
    struct netdev_tap_txq *txqs;    /* up.n_txq entries. */
    int flags_fd;                   /* sysfs "flags" attribute, or -1. */
    int dropped_fd;                 /* sysfs tx_dropped attribute, or -1. */
    unsigned int offloads;          /* TUN_F_* the tap accepted. */
    bool multi_queue;               /* Opened with IFF_MULTI_QUEUE. */
    bool created;                   /* This port created the tap. */

    /* Control thread only. */
    uint64_t last_dropped;          /* tx_dropped at the last read. */

    /* Written by the control thread, read by anyone. */
    uint64_t rx_ring_full;
};

static struct netdev_tap *
netdev_tap_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_tap, up);
}

static struct netdev_tap_rxq *
netdev_tap_rxq_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_tap_rxq, up);
}

/* True if 'error' from a tap fd means that the tap is gone (deleted: EBADFD)
 * or down (EIO on write). */
static bool
netdev_tap_error_is_down__(int error)
{
    return (error == EBADFD || error == EIO || error == ENXIO
            || error == ENODEV || error == ENETDOWN);
}

/* Zeroes 'ifr' and puts interface name 'name' in it; netdev_open() has
 * checked that the name fits. */
static void
netdev_tap_ifreq_init__(struct ifreq *ifr, const char *name)
{
    memset(ifr, 0, sizeof *ifr);
    memcpy(ifr->ifr_name, name, strnlen(name, sizeof ifr->ifr_name - 1));
}

/* Brings interface 'name' up.  Returns 0 or a positive errno.  The
 * provider's only link operation, kept apart for the netlink link module to
 * take over. */
static int
netdev_tap_link_up__(const char *name)
{
    struct ifreq ifr;
    int error = 0;
    int fd;

    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    netdev_tap_ifreq_init__(&ifr, name);
    if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
        error = errno;
    } else if (!(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr)) {
            error = errno;
        }
    }
    close(fd);
    return error;
}

/* Checks that existing interface 'name' is a tap (the tun driver reports
 * bus "tap" for a tap and "tun" for a tun device).  Returns 0, or a
 * positive errno with a message in '*errp'. */
static int
netdev_tap_check_type__(const char *name, char **errp)
{
    struct ethtool_drvinfo info;
    struct ifreq ifr;
    int error = 0;
    int fd;

    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = errno;
        *errp = xasprintf("interface %s: cannot make a socket (%s)", name,
                          strerror(error));
        return error;
    }
    memset(&info, 0, sizeof info);
    info.cmd = ETHTOOL_GDRVINFO;
    netdev_tap_ifreq_init__(&ifr, name);
    ifr.ifr_data = (void *) &info;
    if (ioctl(fd, SIOCETHTOOL, &ifr)) {
        error = errno;
        *errp = xasprintf("interface %s exists and is not a tap (its driver "
                          "cannot be queried: %s)", name, strerror(error));
        error = EINVAL;
    } else if (strcmp(info.driver, "tun")) {
        *errp = xasprintf("interface %s exists and is not a tap (driver "
                          "\"%.*s\")", name, (int) sizeof info.driver,
                          info.driver);
        error = EINVAL;
    } else if (strcmp(info.bus_info, "tap")) {
        *errp = xasprintf("interface %s exists and is a tun device, not a "
                          "tap", name);
        error = EINVAL;
    }
    close(fd);
    return error;
}

/* Opens /dev/net/tun and attaches it to tap 'name' with 'flags'.  Returns
 * the fd, or a negative errno. */
static int
netdev_tap_attach__(const char *name, int flags)
{
    struct ifreq ifr;
    int error;
    int fd;

    fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    netdev_tap_ifreq_init__(&ifr, name);
    ifr.ifr_flags = flags;
    if (ioctl(fd, TUNSETIFF, &ifr)) {
        error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

/* Opens the port's 'n_rxq' tap fds into 'dev->fds', creating the tap if
 * 'create'.  Returns 0, or a positive errno with a message in '*errp';
 * the fds opened so far are then left for the caller to close. */
static int
netdev_tap_open_fds__(struct netdev_tap *dev, bool create, char **errp)
{
    const char *name = dev->up.name;
    int flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;

    dev->multi_queue = true;
    for (int i = 0; i < dev->up.n_rxq; i++) {
        /* IFF_TUN_EXCL: only create, so that 'created' is true. */
        int fd = netdev_tap_attach__(name, (flags
                                            | (create && !i
                                               ? IFF_TUN_EXCL : 0)));

        if (fd == -EINVAL && !create && !i && dev->up.n_rxq == 1) {
            /* A tap made without multi_queue takes one queue. */
            flags &= ~IFF_MULTI_QUEUE;
            dev->multi_queue = false;
            fd = netdev_tap_attach__(name, flags);
        }
        if (fd >= 0) {
            dev->fds[i] = fd;
            continue;
        }

        if (fd == -EINVAL && !create && !i && dev->multi_queue) {
            *errp = xasprintf("tap %s was made without multi_queue, so it "
                              "takes one rx queue only (n_rxq is %d)", name,
                              dev->up.n_rxq);
        } else if (fd == -EBUSY && create) {
            *errp = xasprintf("interface %s appeared while the tap was "
                              "being created", name);
        } else if (fd == -EBUSY) {
            *errp = xasprintf("tap %s is in use by another process", name);
        } else {
            *errp = xasprintf("interface %s: cannot %s tap queue %d (%s)",
                              name, create && !i ? "create" : "attach to",
                              i, strerror(-fd));
        }
        return -fd;
    }
    dev->created = create;
    return 0;
}

/* Sets the vnet header size and the most offloads the tap accepts, on the
 * tap 'fd' belongs to.  Returns 0 or a positive errno with a message in
 * '*errp'. */
static int
netdev_tap_set_offloads__(struct netdev_tap *dev, int fd, char **errp)
{
    static const unsigned int choices[] = {
        TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6,
        TUN_F_CSUM,
        0,
    };
    int hdr_size = sizeof(struct virtio_net_hdr);
    int error = 0;

    if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_size)) {
        error = errno;
        *errp = xasprintf("interface %s: cannot set the vnet header size "
                          "(%s)", dev->up.name, strerror(error));
        return error;
    }
    for (size_t i = 0; i < ARRAY_SIZE(choices); i++) {
        if (!ioctl(fd, TUNSETOFFLOAD, (unsigned long) choices[i])) {
            if (i) {
                VLOG_INFO("%s: tap refused offloads %#x, uses %#x",
                          dev->up.name, choices[0], choices[i]);
            }
            dev->offloads = choices[i];
            return 0;
        }
        error = errno;
    }
    *errp = xasprintf("interface %s: cannot set tap offloads (%s)",
                      dev->up.name, strerror(error));
    return error;
}

/* Opens sysfs attribute 'attr' of interface 'name'.  Returns the fd, or -1
 * if that fails. */
static int
netdev_tap_open_attr__(const char *name, const char *attr)
{
    char path[128];

    snprintf(path, sizeof path, "/sys/class/net/%s/%s", name, attr);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Reads the number in sysfs attribute 'fd' (decimal, or hex with "0x")
 * into '*value'.  Returns true on success. */
static bool
netdev_tap_read_attr__(int fd, uint64_t *value)
{
    char buf[64];
    ssize_t n;
    char *end;

    n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    *value = strtoull(buf, &end, 0);
    return end != buf;
}

/* Opens the sysfs attributes that the health check and netdev_run() read,
 * after checking that this namespace's sysfs shows our tap under its name;
 * leaves them at -1 otherwise. */
static void
netdev_tap_open_attrs__(struct netdev_tap *dev)
{
    int ifindex_fd = netdev_tap_open_attr__(dev->up.name, "ifindex");
    uint64_t ifindex;

    if (ifindex_fd < 0) {
        return;
    }
    if (netdev_tap_read_attr__(ifindex_fd, &ifindex)
        && ifindex == (uint64_t) dev->up.ifindex) {
        dev->flags_fd = netdev_tap_open_attr__(dev->up.name, "flags");
        dev->dropped_fd = netdev_tap_open_attr__(dev->up.name,
                                                 "statistics/tx_dropped");
        if (dev->dropped_fd >= 0
            && !netdev_tap_read_attr__(dev->dropped_fd,
                                       &dev->last_dropped)) {
            close(dev->dropped_fd);
            dev->dropped_fd = -1;
        }
    }
    close(ifindex_fd);
}

static struct netdev *
netdev_tap_alloc(void)
{
    struct netdev_tap *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

static void
netdev_tap_dealloc(struct netdev *netdev)
{
    free(netdev_tap_cast(netdev));
}

/* Closes what construct opened (any fd may still be -1). */
static void
netdev_tap_close__(struct netdev_tap *dev)
{
    if (dev->fds) {
        for (int i = 0; i < dev->up.n_rxq; i++) {
            if (dev->fds[i] >= 0) {
                close(dev->fds[i]);
            }
        }
    }
    free(dev->fds);
    dev->fds = NULL;
    free(dev->txqs);
    dev->txqs = NULL;
    if (dev->flags_fd >= 0) {
        close(dev->flags_fd);
    }
    if (dev->dropped_fd >= 0) {
        close(dev->dropped_fd);
    }
    dev->flags_fd = dev->dropped_fd = -1;
}

static int
netdev_tap_construct(struct netdev *netdev,
                     const struct netdev_options *opts, char **errp)
{
    struct netdev_tap *dev = netdev_tap_cast(netdev);
    bool create = !netdev->ifindex;
    int error;

    dev->flags_fd = dev->dropped_fd = -1;
    if (create && !opts->create) {
        *errp = xasprintf("interface %s does not exist (set \"create\": "
                          "true to create the tap)", netdev->name);
        return ENODEV;
    }
    if (!create) {
        error = netdev_tap_check_type__(netdev->name, errp);
        if (error) {
            return error;
        }
    }

    dev->fds = xmalloc(netdev->n_rxq * sizeof *dev->fds);
    for (int i = 0; i < netdev->n_rxq; i++) {
        dev->fds[i] = -1;
    }
    error = netdev_tap_open_fds__(dev, create, errp);
    if (!error) {
        error = netdev_tap_set_offloads__(dev, dev->fds[0], errp);
    }
    if (!error && create) {
        int ifindex = netdev_linux_ifindex(netdev->name);

        if (ifindex < 0) {
            error = -ifindex;
            *errp = xasprintf("interface %s: created tap not found (%s)",
                              netdev->name, strerror(error));
        } else {
            netdev->ifindex = ifindex;
            error = netdev_tap_link_up__(netdev->name);
            if (error) {
                *errp = xasprintf("interface %s: cannot bring the created "
                                  "tap up (%s)", netdev->name,
                                  strerror(error));
            }
        }
    }
    if (error) {
        /* Closing the last fd of a tap we created deletes it. */
        netdev_tap_close__(dev);
        return error;
    }

    dev->txqs = xzalloc_cacheline(netdev->max_txq * sizeof *dev->txqs);
    for (int i = 0; i < netdev->max_txq; i++) {
        dev->txqs[i].fd = dev->fds[i % netdev->n_rxq];
    }
    netdev_tap_open_attrs__(dev);
    if (dev->created) {
        VLOG_INFO("%s: created tap", netdev->name);
    }
    return 0;
}

static void
netdev_tap_destruct(struct netdev *netdev)
{
    netdev_tap_close__(netdev_tap_cast(netdev));
}

static struct netdev_rxq *
netdev_tap_rxq_alloc(void)
{
    struct netdev_tap_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    rxq->fd = -1;
    return &rxq->up;
}

static void
netdev_tap_rxq_dealloc(struct netdev_rxq *rxq)
{
    free(netdev_tap_rxq_cast(rxq));
}

static int
netdev_tap_rxq_construct(struct netdev_rxq *rxq_, char **errp)
{
    struct netdev_tap_rxq *rxq = netdev_tap_rxq_cast(rxq_);
    struct netdev_tap *dev = netdev_tap_cast(rxq_->netdev);

    rxq->fd = dev->fds[rxq_->qid];
    rxq->bufs = xzalloc_cacheline(DP_BATCH_SIZE * NETDEV_TAP_BUF_SIZE);
    for (int i = 0; i < DP_BATCH_SIZE; i++) {
        /* The vnet header lands in the packet's metadata, the frame after
         * the headroom in the buffer. */
        rxq->iovs[i][0].iov_base = &rxq->packets[i].vnet;
        rxq->iovs[i][0].iov_len = sizeof rxq->packets[i].vnet;
        rxq->iovs[i][1].iov_base = (rxq->bufs + i * NETDEV_TAP_BUF_SIZE
                                    + DP_PACKET_HEADROOM);
        rxq->iovs[i][1].iov_len = NETDEV_TAP_FRAME_MAX;
    }
    return 0;
}

static void
netdev_tap_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_tap_rxq *rxq = netdev_tap_rxq_cast(rxq_);

    free(rxq->bufs);
    rxq->bufs = NULL;
    rxq->fd = -1;
}

static int
netdev_tap_rxq_wait_fds(const struct netdev_rxq *rxq_,
                        int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    fds[0] = netdev_tap_rxq_cast(rxq_)->fd;
    return 1;
}

static int
netdev_tap_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                    uint16_t port_no)
{
    struct netdev_tap_rxq *rxq = netdev_tap_rxq_cast(rxq_);
    uint32_t room = DP_BATCH_SIZE - batch->count;
    uint32_t n_truncated = 0;
    uint32_t n_packets = 0;
    uint32_t n_errors = 0;
    uint64_t n_bytes = 0;
    int error = EAGAIN;

    for (uint32_t i = 0; i < room; i++) {
        struct dp_packet *p = &rxq->packets[i];
        ssize_t n = readv(rxq->fd, rxq->iovs[i], 2);
        size_t size;

        if (n < 0) {
            error = errno;
            break;
        }
        if (UNLIKELY((size_t) n < sizeof p->vnet + ETH_HEADER_LEN)) {
            n_errors++;
            continue;
        }
        size = n - sizeof p->vnet;
        if (UNLIKELY(size >= NETDEV_TAP_FRAME_MAX)) {
            n_truncated++;
            continue;
        }
        dp_packet_init(p, rxq->iovs[i][1].iov_base, size, port_no);
        p->flags = DP_PACKET_F_VNET;
        n_bytes += size;
        n_packets++;
        dp_batch_add(batch, p);
    }

    if (UNLIKELY(error != EAGAIN)) {
        if (error == EINTR) {
            error = EAGAIN;
        } else if (netdev_tap_error_is_down__(error)) {
            /* Not a lost frame: the tap was deleted. */
            error = ENETDOWN;
        } else {
            /* The kernel dropped the frame it could not hand over. */
            n_errors++;
        }
        if (error != EAGAIN) {
            /* Read by get_status on the control thread. */
            __atomic_store_n(&rxq->last_error, error, __ATOMIC_RELAXED);
        }
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
    if (UNLIKELY(n_errors)) {
        netdev_counter_add(&rxq->stats.rx_errors, n_errors);
    }
    return n_packets ? 0 : error;
}

/* Counts 'n' frames the tap refused with 'error' in the matching drop
 * counter of 'stats'.  EINVAL means a runt or malformed offload metadata:
 * the tap takes frames of any size, so nothing is refused as too big. */
static void
netdev_tap_count_tx_drops__(struct netdev_stats *stats, int error,
                            uint64_t n)
{
    uint64_t *counter;

    if (error == EAGAIN || error == ENOBUFS) {
        counter = &stats->tx_queue_full;
    } else if (error == EMSGSIZE) {
        counter = &stats->tx_too_big;
    } else if (netdev_tap_error_is_down__(error)) {
        counter = &stats->tx_port_down;
    } else {
        counter = &stats->tx_errors;
    }
    netdev_counter_add(counter, n);
}

static void
netdev_tap_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    static const struct virtio_net_hdr zero_vnet;
    struct netdev_tap_txq *txq = &netdev_tap_cast(netdev)->txqs[qid];
    uint32_t n = MIN(batch->count, DP_BATCH_SIZE);
    uint32_t n_sent = 0;
    uint64_t n_bytes = 0;

    for (uint32_t i = 0; i < n; i++) {
        struct dp_packet *p = batch->packets[i];
        struct iovec iov[2];
        int error;

        iov[0].iov_base = (p->flags & DP_PACKET_F_VNET
                           ? (void *) &p->vnet : (void *) &zero_vnet);
        iov[0].iov_len = sizeof p->vnet;
        iov[1].iov_base = p->data;
        iov[1].iov_len = p->size;
        if (LIKELY(writev(txq->fd, iov, 2) >= 0)) {
            n_sent++;
            n_bytes += p->size;
            continue;
        }

        error = errno;
        if (netdev_tap_error_is_down__(error)) {
            /* The rest would fail the same way. */
            netdev_tap_count_tx_drops__(&txq->stats, error, n - i);
            break;
        }
        netdev_tap_count_tx_drops__(&txq->stats, error, 1);
    }
    if (n_sent) {
        netdev_counter_add(&txq->stats.tx_packets, n_sent);
        netdev_counter_add(&txq->stats.tx_bytes, n_bytes);
    }
}

static void
netdev_tap_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_tap *dev = netdev_tap_cast(netdev);

    for (int i = 0; i < netdev->n_rxq; i++) {
        netdev_stats_add(st, &netdev_tap_rxq_cast(netdev->rxqs[i])->stats);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        netdev_stats_add(st, &dev->txqs[i].stats);
    }
    st->rx_ring_full += netdev_counter_read(&dev->rx_ring_full);
}

static int
netdev_tap_health(const struct netdev *netdev)
{
    struct netdev_tap *dev = netdev_tap_cast(netdev);
    struct ifreq ifr;
    uint64_t flags;

    /* Deleting the tap detaches its fds, which then fail with EBADFD. */
    memset(&ifr, 0, sizeof ifr);
    if (ioctl(dev->fds[0], TUNGETIFF, &ifr)) {
        return ENODEV;
    }
    if (dev->flags_fd >= 0 && netdev_tap_read_attr__(dev->flags_fd, &flags)
        && !(flags & IFF_UP)) {
        return ENETDOWN;
    }
    return 0;
}

static void
netdev_tap_run(struct netdev *netdev)
{
    struct netdev_tap *dev = netdev_tap_cast(netdev);
    uint64_t dropped;

    /* This thread is the only writer of rx_ring_full. */
    if (dev->dropped_fd >= 0
        && netdev_tap_read_attr__(dev->dropped_fd, &dropped)
        && dropped > dev->last_dropped) {
        netdev_counter_add(&dev->rx_ring_full, dropped - dev->last_dropped);
        dev->last_dropped = dropped;
    }
}

static void
netdev_tap_get_status(const struct netdev *netdev, char *buf, size_t size)
{
    struct netdev_tap *dev = netdev_tap_cast(netdev);
    unsigned int off = dev->offloads;
    int last_error = 0;

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_tap_rxq *rxq = netdev_tap_rxq_cast(netdev->rxqs[i]);
        int error = __atomic_load_n(&rxq->last_error, __ATOMIC_RELAXED);

        last_error = error ? error : last_error;
    }
    snprintf(buf, size, "tap: n_rxq=%d, n_txq=%d, multi_queue=%s, "
             "offloads=%s%s%s, created=%s, last_rx_error=%s",
             netdev->n_rxq, netdev->n_txq, dev->multi_queue ? "yes" : "no",
             off & TUN_F_CSUM ? "csum" : "none",
             off & TUN_F_TSO4 ? ",tso4" : "", off & TUN_F_TSO6 ? ",tso6" : "",
             dev->created ? "yes" : "no",
             last_error ? strerror(last_error) : "none");
}

static void
netdev_tap_get_offloads(const struct netdev *netdev,
                        struct netdev_offloads *offloads)
{
    offloads->vnet_hdr = true;
    offloads->tun = true;
    offloads->tun_offloads = netdev_tap_cast(netdev)->offloads;
}

/* Every entry of 'txqs' already names a queue's descriptor. */
static int
netdev_tap_set_n_txq(struct netdev *netdev OVS_UNUSED, int n_txq OVS_UNUSED,
                     char **errp OVS_UNUSED)
{
    return 0;
}

const struct netdev_class netdev_tap_class = {
    .type = "tap",
    .may_create = true,
    .alloc = netdev_tap_alloc,
    .construct = netdev_tap_construct,
    .destruct = netdev_tap_destruct,
    .dealloc = netdev_tap_dealloc,
    .rxq_alloc = netdev_tap_rxq_alloc,
    .rxq_construct = netdev_tap_rxq_construct,
    .rxq_destruct = netdev_tap_rxq_destruct,
    .rxq_dealloc = netdev_tap_rxq_dealloc,
    .rxq_recv = netdev_tap_rxq_recv,
    .send = netdev_tap_send,
    .set_n_txq = netdev_tap_set_n_txq,
    .rxq_wait_fds = netdev_tap_rxq_wait_fds,
    .get_stats = netdev_tap_get_stats,
    .health = netdev_tap_health,
    .run = netdev_tap_run,
    .get_offloads = netdev_tap_get_offloads,
    .get_status = netdev_tap_get_status,
};
