/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "afxdp" port provider: AF_XDP sockets made through libxdp, for ports
 * whose traffic is mostly small frames.  Each rx queue owns one XSK bound
 * to (interface, queue id) with a UMEM of its own: NETDEV_AFXDP_N_FRAMES
 * frames of 4 KB, the first half owned by the receive side (the fill ring
 * of the PMD that polls the queue) and the second half by the transmit
 * side.  The port attaches libxdp's default AF_XDP program
 * (xsk_def_xdp_prog.o), which redirects every frame of a bound queue to
 * its socket, once for all its queues, and detaches it when it closes:
 * libxdp finds the object file, libbpf loads and attaches it, and the
 * sockets are made with XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD and added to
 * its map.  Leaving the program to xsk_socket__create() would be shorter,
 * but libxdp 1.3 then leaks a map and a program descriptor per socket
 * (xdp-tools pull requests #376 and #576; libxdp's own detach leaks a
 * program descriptor too), which a port reopened on every link flap
 * would pile up.
 *
 * The class "afxdp" attaches in native (driver) mode, "afxdp-generic" in
 * generic (skb) mode; both bind in copy mode, the only mode a veth has.
 *
 * Receive is zero-copy up to the pipeline: a packet of a batch points at
 * its UMEM frame, after DP_PACKET_HEADROOM bytes of UMEM frame headroom
 * (beyond XDP_PACKET_HEADROOM that the kernel keeps anyway).  The frames
 * of a batch go back to the fill ring at the start of the next rxq_recv
 * on the queue, so they stay valid as netdev-provider.h demands.  The
 * fill ring is as large as the receive half, so every frame the PMD
 * gives back fits and the ring never runs dry through us.
 *
 * Transmit copies each frame into a free frame of the transmit half,
 * queues it on the tx ring and kicks the kernel with sendto() on every
 * call: in copy mode nothing leaves without that system call.  Completed
 * frames come back through the completion ring.  A port has n_txq tx
 * queues but only n_rxq sockets: tx queue q uses socket q % n_rxq.  When
 * n_txq > n_rxq, several PMDs may share a socket and take its spinlock
 * around the tx and completion rings.  This is a documented exception to
 * the no-locks rule of the hot path, as in Open vSwitch's afxdp provider:
 * with one PMD per socket the lock is never contended.
 *
 * AF_XDP carries no offload metadata.  The datapath cuts GSO frames for
 * this port before they get here (dp/tx-gso.c, as the port's netdev
 * reports no vnet header); one that comes anyway, or one larger than
 * NETDEV_AFXDP_MAX_FRAME, is dropped and counted in tx_too_big; a
 * checksum-partial frame from another port gets
 * its checksum finished in software as it is copied into the UMEM (one
 * that points outside itself counts in tx_errors).  The other way there
 * is no help: checksum-partial frames received here carry no flag at all,
 * so TCP through an afxdp port needs tx checksumming off on the sending
 * peer.  VLAN tags need no help here, unlike on a packet
 * socket: XDP runs before the kernel moves a tag into skb metadata, so a
 * tagged frame sent into the peer of an afxdp veth arrives with its tag in
 * the frame bytes, in native and generic mode (tests/test-netdev-afxdp.c
 * checks it).  A tag that the sender's kernel already holds as metadata
 * (from a VLAN device on the peer) was not tested: that kernel has no
 * 802.1Q module.
 *
 * Counters have one writer each: an rx queue's PMD writes its receive
 * counters, netdev_run() on the control thread writes rx_ring_full (the
 * kernel's XDP_STATISTICS drops, which never reset: we add the deltas),
 * and each tx queue's PMD writes that queue's transmit counters.
 */
#include <autoconf.h>
#include "netdev/netdev-provider.h"

#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>
#include "base/util.h"
#include "base/vlog.h"
#include "packet/csum.h"

VLOG_DEFINE_THIS_MODULE(netdev_afxdp);

/* UMEM geometry, per rx queue.  Frames are XSK_UMEM__DEFAULT_FRAME_SIZE
 * (4 KB, one page), half for receive and half for transmit: 32 MB a
 * queue.  4096 receive frames hold 7 ms of a 0.55 Mpps 64-byte flood;
 * with 2048 the rx ring overflowed in bursts (2.4 % of such a flood
 * counted in rx_ring_full, bench/run-bench.sh udp64). */
#define NETDEV_AFXDP_FRAME_SIZE XSK_UMEM__DEFAULT_FRAME_SIZE
#define NETDEV_AFXDP_N_FRAMES 8192
#define NETDEV_AFXDP_N_RX_FRAMES (NETDEV_AFXDP_N_FRAMES / 2)
#define NETDEV_AFXDP_N_TX_FRAMES (NETDEV_AFXDP_N_FRAMES / 2)

/* Ring sizes.  The fill ring holds every receive frame and the completion
 * ring every transmit frame, so neither can refuse a frame we own; the tx
 * ring holds every transmit frame, so a free frame always finds a slot. */
#define NETDEV_AFXDP_FILL_SIZE NETDEV_AFXDP_N_RX_FRAMES
#define NETDEV_AFXDP_COMP_SIZE NETDEV_AFXDP_N_TX_FRAMES
#define NETDEV_AFXDP_RX_SIZE 4096
#define NETDEV_AFXDP_TX_SIZE NETDEV_AFXDP_N_TX_FRAMES

/* The kernel places a received frame XDP_PACKET_HEADROOM (256) bytes plus
 * the UMEM frame headroom into its frame.  The largest frame either way
 * is what is left; a 1500-byte MTU fits with room to spare. */
#define NETDEV_AFXDP_KERNEL_HEADROOM 256
#define NETDEV_AFXDP_MAX_FRAME (NETDEV_AFXDP_FRAME_SIZE                 \
                                - NETDEV_AFXDP_KERNEL_HEADROOM          \
                                - DP_PACKET_HEADROOM)

/* Kicks per send call when the kernel says EAGAIN: copy mode sends at
 * most 32 frames per sendto(). */
#define NETDEV_AFXDP_MAX_KICKS 4

/* The kernel frees a closed socket's hold on its queue from a work item,
 * so a bind right after a close may find the queue still taken (EBUSY).
 * Construction retries that for up to this long. */
#define NETDEV_AFXDP_BUSY_RETRY_MS 1000
#define NETDEV_AFXDP_BUSY_RETRY_STEP_US 10000

BUILD_ASSERT_DECL(NETDEV_AFXDP_FILL_SIZE >= NETDEV_AFXDP_N_RX_FRAMES);
BUILD_ASSERT_DECL(NETDEV_AFXDP_COMP_SIZE >= NETDEV_AFXDP_N_TX_FRAMES);
BUILD_ASSERT_DECL(NETDEV_AFXDP_TX_SIZE >= NETDEV_AFXDP_N_TX_FRAMES);

struct netdev_afxdp_rxq {
    struct netdev_rxq up;

    /* Set at construction, then read only. */
    uint8_t *area;              /* The UMEM, NETDEV_AFXDP_N_FRAMES frames. */
    struct xsk_umem *umem;
    struct xsk_socket *xsk;
    int fd;                     /* The XSK's descriptor. */

    /* Receive side: the PMD polling this queue only. */
    struct xsk_ring_prod fill CACHE_ALIGNED;
    struct xsk_ring_cons rx;
    uint64_t held[DP_BATCH_SIZE]; /* Frames of the last batch, to go back
                                   * to the fill ring. */
    uint32_t n_held;
    struct dp_packet packets[DP_BATCH_SIZE];

    /* Transmit side: the PMD of the only tx queue on this socket, or any
     * PMD of a tx queue on it under 'tx_lock' when several share it. */
    pthread_spinlock_t tx_lock CACHE_ALIGNED;
    struct xsk_ring_prod tx;
    struct xsk_ring_cons comp;
    uint64_t tx_free[NETDEV_AFXDP_N_TX_FRAMES]; /* Stack of free frames. */
    uint32_t n_tx_free;

    /* Control thread only: XDP_STATISTICS at the last read. */
    uint64_t last_drops;
    uint64_t fill_empty;        /* rx_fill_ring_empty_descs, for status. */

    /* Counters: receive ones written by the PMD, rx_ring_full by the
     * control thread; read by anyone with netdev_counter_read(). */
    struct netdev_stats stats CACHE_ALIGNED;
};

/* A transmit queue: only counters; the socket is the rx queue's. */
struct netdev_afxdp_txq {
    struct netdev_stats stats;  /* Written by the queue's PMD only. */
} CACHE_ALIGNED;

struct netdev_afxdp {
    struct netdev up;

    /* Set at construction, then read only. */
    bool generic;               /* XDP_FLAGS_SKB_MODE, else DRV_MODE. */
    bool tx_shared;             /* n_txq > n_rxq: tx queues share sockets
                                 * and take their 'tx_lock'. */
    bool replaces;              /* Another port holds the interface. */
    int ctl_fd;                 /* AF_INET socket for ioctls. */
    struct xdp_program *prog;   /* Attached to the interface. */
    int xsks_map_fd;            /* Its queue -> socket map. */
    struct netdev_afxdp_txq *txqs; /* up.n_txq entries. */
};

static struct netdev_afxdp *
netdev_afxdp_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_afxdp, up);
}

static struct netdev_afxdp_rxq *
netdev_afxdp_rxq_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_afxdp_rxq, up);
}

/* The last message libxdp or libbpf printed on this thread, added to our
 * error messages; their output goes to the debug log only. */
static __thread char netdev_afxdp_lib_msg[256];

static void netdev_afxdp_lib_log__(const char *format, va_list ap)
    PRINTF_FORMAT(1, 0);
static int netdev_afxdp_libxdp_print__(enum libxdp_print_level,
                                       const char *format, va_list ap)
    PRINTF_FORMAT(2, 0);
static int netdev_afxdp_libbpf_print__(enum libbpf_print_level,
                                       const char *format, va_list ap)
    PRINTF_FORMAT(2, 0);

static void
netdev_afxdp_lib_log__(const char *format, va_list ap)
{
    char msg[sizeof netdev_afxdp_lib_msg];
    size_t len;

    vsnprintf(msg, sizeof msg, format, ap);
    len = strlen(msg);
    while (len && msg[len - 1] == '\n') {
        msg[--len] = '\0';
    }
    if (len) {
        memcpy(netdev_afxdp_lib_msg, msg, len + 1);
        VLOG_DBG("%s", msg);
    }
}

static int
netdev_afxdp_libxdp_print__(enum libxdp_print_level level,
                            const char *format, va_list ap)
{
    netdev_afxdp_lib_log__(format, ap);
    return 0;
}

static int
netdev_afxdp_libbpf_print__(enum libbpf_print_level level,
                            const char *format, va_list ap)
{
    if (level != LIBBPF_DEBUG) {
        netdev_afxdp_lib_log__(format, ap);
    }
    return 0;
}

static void
netdev_afxdp_init_libs__(void)
{
    libxdp_set_print(netdev_afxdp_libxdp_print__);
    libbpf_set_print(netdev_afxdp_libbpf_print__);
}

/* Returns how many receive queues interface 'name' has, or 0 if the
 * driver does not say. */
static int
netdev_afxdp_n_kernel_queues__(int fd, const char *name)
{
    struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
    struct ifreq ifr;

    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_data = (void *) &ch;
    if (ioctl(fd, SIOCETHTOOL, &ifr)) {
        return 0;
    }
    return MAX(ch.rx_count, ch.combined_count);
}

static struct netdev *
netdev_afxdp_alloc(void)
{
    struct netdev_afxdp *dev = xzalloc(sizeof *dev);

    dev->ctl_fd = -1;
    dev->xsks_map_fd = -1;
    return &dev->up;
}

static void
netdev_afxdp_dealloc(struct netdev *netdev)
{
    free(netdev_afxdp_cast(netdev));
}

/* Returns a malloc'd message for 'error' from 'what' on queue 'qid' (-1
 * for the whole interface) of 'dev', saying what to do about it. */
static char *
netdev_afxdp_error__(const struct netdev_afxdp *dev, int qid,
                     const char *what, int error)
{
    char queue[32] = "";
    const struct netdev *netdev = &dev->up;
    const char *hint;
    char *msg;

    switch (error) {
    case EPERM:
    case EACCES:
        hint = "AF_XDP needs root (CAP_NET_ADMIN and CAP_BPF, and "
               "CAP_IPC_LOCK or a large enough RLIMIT_MEMLOCK)";
        break;
    case ENODEV:
    case ENXIO:
        hint = "the interface is gone";
        break;
    case EOPNOTSUPP:
        hint = dev->generic ? "the kernel lacks AF_XDP or XDP support"
               : "the driver refuses native XDP; set \"xdp-mode\": "
                 "\"generic\" in the port's options";
        break;
    case EBUSY:
    case EEXIST:
        hint = dev->replaces
               ? "the port that has it open still holds it (an afxdp "
                 "port cannot be changed in place); remove the port in "
                 "one reload and add it back in the next"
               : "another XDP program or AF_XDP socket holds it; see "
                 "\"ip link show\" and detach it with \"ip link set dev "
                 "IFACE xdp off\"";
        break;
    case EINVAL:
        hint = "the kernel refused the socket: the queue may not exist "
               "(lower \"n_rxq\"), or the MTU is too large for native XDP "
               "(lower it or set \"xdp-mode\": \"generic\")";
        break;
    default:
        hint = "see the debug log of module netdev_afxdp";
        break;
    }
    if (qid >= 0) {
        snprintf(queue, sizeof queue, " queue %d:", qid);
    }
    msg = xasprintf("interface %s:%s %s failed in %s XDP mode "
                    "(%s): %s%s%s%s", netdev->name, queue, what,
                    dev->generic ? "generic" : "native", strerror(error),
                    hint, netdev_afxdp_lib_msg[0] ? " (" : "",
                    netdev_afxdp_lib_msg,
                    netdev_afxdp_lib_msg[0] ? ")" : "");
    netdev_afxdp_lib_msg[0] = '\0';
    return msg;
}

/* The XDP_FLAGS_* to attach 'dev''s program with: its mode, and never in
 * place of another program. */
static uint32_t
netdev_afxdp_xdp_flags__(const struct netdev_afxdp *dev)
{
    return ((dev->generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE)
            | XDP_FLAGS_UPDATE_IF_NOEXIST);
}

/* Loads libxdp's AF_XDP program, sized for 'n_queues' queues, and
 * attaches it to 'dev''s interface.  Returns 0 or a positive errno with a
 * message in '*errp'. */
static int
netdev_afxdp_attach__(struct netdev_afxdp *dev, int n_queues, char **errp)
{
    const struct netdev *netdev = &dev->up;
    struct xdp_program *prog;
    struct bpf_object *obj;
    struct bpf_map *map;
    int error;

    netdev_afxdp_lib_msg[0] = '\0';
    prog = xdp_program__find_file("xsk_def_xdp_prog.o", NULL, NULL);
    error = -libxdp_get_error(prog);
    if (error) {
        *errp = netdev_afxdp_error__(dev, -1, "loading libxdp's AF_XDP "
                                     "program xsk_def_xdp_prog.o", error);
        return error;
    }
    obj = xdp_program__bpf_obj(prog);
    map = obj ? bpf_object__find_map_by_name(obj, "xsks_map") : NULL;
    if (!map) {
        *errp = xasprintf("interface %s: libxdp's xsk_def_xdp_prog.o has no "
                          "\"xsks_map\"; reinstall libxdp", netdev->name);
        xdp_program__close(prog);
        return ENOENT;
    }
    bpf_map__set_max_entries(map, n_queues);
    error = -bpf_object__load(obj);
    if (!error) {
        /* The object's one program; xdp_program__fd() knows only what
         * xdp_program__load() loaded. */
        struct bpf_program *bp = bpf_object__next_program(obj, NULL);
        int prog_fd = bp ? bpf_program__fd(bp) : -1;

        error = (prog_fd < 0 ? ENOENT
                 : -bpf_xdp_attach(netdev->ifindex, prog_fd,
                                   netdev_afxdp_xdp_flags__(dev), NULL));
    }
    if (error) {
        *errp = netdev_afxdp_error__(dev, -1, "attaching the XDP program",
                                     error);
        xdp_program__close(prog);
        return error;
    }
    dev->prog = prog;
    dev->xsks_map_fd = bpf_map__fd(map);
    return 0;
}

static void
netdev_afxdp_detach__(struct netdev_afxdp *dev)
{
    if (dev->prog) {
        bpf_xdp_detach(dev->up.ifindex, netdev_afxdp_xdp_flags__(dev), NULL);
        xdp_program__close(dev->prog);
        dev->prog = NULL;
        dev->xsks_map_fd = -1;
    }
}

static int
netdev_afxdp_construct(struct netdev *netdev,
                       const struct netdev_options *opts, char **errp)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);
    int n_queues;
    int error;

    pthread_once(&once, netdev_afxdp_init_libs__);
    dev->generic = netdev->class == &netdev_afxdp_generic_class;
    dev->replaces = opts->replaces;
    dev->ctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (dev->ctl_fd < 0) {
        error = errno;
        *errp = xasprintf("interface %s: cannot open control socket (%s)",
                          netdev->name, strerror(error));
        return error;
    }
    n_queues = netdev_afxdp_n_kernel_queues__(dev->ctl_fd, netdev->name);
    if (n_queues > 0 && netdev->n_rxq > n_queues) {
        *errp = xasprintf("interface %s has %d receive queue%s, fewer than "
                          "n_rxq %d: an AF_XDP socket binds to one kernel "
                          "queue; lower \"n_rxq\" (or give the interface "
                          "more queues, e.g. a veth made with "
                          "numrxqueues %d)", netdev->name, n_queues,
                          n_queues == 1 ? "" : "s", netdev->n_rxq,
                          netdev->n_rxq);
        error = EINVAL;
        goto error;
    }
    error = netdev_afxdp_attach__(dev, MAX(n_queues, netdev->n_rxq), errp);
    if (error) {
        goto error;
    }
    dev->tx_shared = netdev->n_txq > netdev->n_rxq;
    dev->txqs = xzalloc_cacheline(netdev->n_txq * sizeof *dev->txqs);
    return 0;

error:
    close(dev->ctl_fd);
    dev->ctl_fd = -1;
    return error;
}

static void
netdev_afxdp_destruct(struct netdev *netdev)
{
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);

    /* The rx queues, and so the sockets, are gone already. */
    netdev_afxdp_detach__(dev);
    free(dev->txqs);
    dev->txqs = NULL;
    close(dev->ctl_fd);
    dev->ctl_fd = -1;
}

static struct netdev_rxq *
netdev_afxdp_rxq_alloc(void)
{
    struct netdev_afxdp_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    rxq->fd = -1;
    return &rxq->up;
}

static void
netdev_afxdp_rxq_dealloc(struct netdev_rxq *rxq_)
{
    free(netdev_afxdp_rxq_cast(rxq_));
}

/* Gives every receive frame to the fill ring and every transmit frame to
 * the free stack of new socket 'rxq'. */
static void
netdev_afxdp_rxq_fill__(struct netdev_afxdp_rxq *rxq)
{
    uint32_t idx = 0;
    uint32_t n;

    n = xsk_ring_prod__reserve(&rxq->fill, NETDEV_AFXDP_N_RX_FRAMES, &idx);
    for (uint32_t i = 0; i < n; i++) {
        *xsk_ring_prod__fill_addr(&rxq->fill, idx + i)
            = (uint64_t) i * NETDEV_AFXDP_FRAME_SIZE;
    }
    xsk_ring_prod__submit(&rxq->fill, n);

    for (uint32_t i = 0; i < NETDEV_AFXDP_N_TX_FRAMES; i++) {
        rxq->tx_free[i] = ((uint64_t) (NETDEV_AFXDP_N_RX_FRAMES + i)
                           * NETDEV_AFXDP_FRAME_SIZE);
    }
    rxq->n_tx_free = NETDEV_AFXDP_N_TX_FRAMES;
}

static int
netdev_afxdp_rxq_construct(struct netdev_rxq *rxq_, char **errp)
{
    struct netdev_afxdp_rxq *rxq = netdev_afxdp_rxq_cast(rxq_);
    struct netdev *netdev = rxq_->netdev;
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);
    size_t size = (size_t) NETDEV_AFXDP_N_FRAMES * NETDEV_AFXDP_FRAME_SIZE;
    struct xsk_umem_config ucfg = {
        .fill_size = NETDEV_AFXDP_FILL_SIZE,
        .comp_size = NETDEV_AFXDP_COMP_SIZE,
        .frame_size = NETDEV_AFXDP_FRAME_SIZE,
        .frame_headroom = DP_PACKET_HEADROOM,
        .flags = 0,
    };
    struct xsk_socket_config scfg = {
        .rx_size = NETDEV_AFXDP_RX_SIZE,
        .tx_size = NETDEV_AFXDP_TX_SIZE,
        /* The port attached the program (netdev_afxdp_attach__()). */
        .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
        .xdp_flags = (dev->generic ? XDP_FLAGS_SKB_MODE
                      : XDP_FLAGS_DRV_MODE),
        .bind_flags = XDP_COPY,
    };
    int error;

    netdev_afxdp_lib_msg[0] = '\0';
    rxq->area = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rxq->area == MAP_FAILED) {
        rxq->area = NULL;
        error = errno;
        *errp = netdev_afxdp_error__(dev, rxq_->qid, "UMEM allocation",
                                     error);
        return error;
    }
    error = -xsk_umem__create(&rxq->umem, rxq->area, size, &rxq->fill,
                              &rxq->comp, &ucfg);
    if (error) {
        rxq->umem = NULL;
        *errp = netdev_afxdp_error__(dev, rxq_->qid, "UMEM registration",
                                     error);
        goto error;
    }
    for (int waited_us = 0; ; waited_us += NETDEV_AFXDP_BUSY_RETRY_STEP_US) {
        error = -xsk_socket__create(&rxq->xsk, netdev->name, rxq_->qid,
                                    rxq->umem, &rxq->rx, &rxq->tx, &scfg);
        if (error != EBUSY
            || waited_us >= NETDEV_AFXDP_BUSY_RETRY_MS * 1000) {
            break;
        }
        usleep(NETDEV_AFXDP_BUSY_RETRY_STEP_US);
    }
    if (error) {
        rxq->xsk = NULL;
        *errp = netdev_afxdp_error__(dev, rxq_->qid,
                                     "AF_XDP socket creation", error);
        goto error;
    }
    error = -xsk_socket__update_xskmap(rxq->xsk, dev->xsks_map_fd);
    if (error) {
        *errp = netdev_afxdp_error__(dev, rxq_->qid, "adding the socket to "
                                     "the XDP program's map", error);
        xsk_socket__delete(rxq->xsk);
        rxq->xsk = NULL;
        goto error;
    }
    rxq->fd = xsk_socket__fd(rxq->xsk);
    pthread_spin_init(&rxq->tx_lock, PTHREAD_PROCESS_PRIVATE);
    netdev_afxdp_rxq_fill__(rxq);
    return 0;

error:
    if (rxq->umem) {
        xsk_umem__delete(rxq->umem);
        rxq->umem = NULL;
    }
    munmap(rxq->area, size);
    rxq->area = NULL;
    return error;
}

static void
netdev_afxdp_rxq_destruct(struct netdev_rxq *rxq_)
{
    struct netdev_afxdp_rxq *rxq = netdev_afxdp_rxq_cast(rxq_);

    /* The socket first: the UMEM is busy while a socket uses it. */
    xsk_socket__delete(rxq->xsk);
    rxq->xsk = NULL;
    rxq->fd = -1;
    xsk_umem__delete(rxq->umem);
    rxq->umem = NULL;
    pthread_spin_destroy(&rxq->tx_lock);
    munmap(rxq->area,
           (size_t) NETDEV_AFXDP_N_FRAMES * NETDEV_AFXDP_FRAME_SIZE);
    rxq->area = NULL;
}

/* The XSK reports readable while its rx ring holds frames. */
static int
netdev_afxdp_rxq_wait_fds(const struct netdev_rxq *rxq_,
                          int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    fds[0] = netdev_afxdp_rxq_cast(rxq_)->fd;
    return 1;
}

static int
netdev_afxdp_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                      uint16_t port_no)
{
    struct netdev_afxdp_rxq *rxq = netdev_afxdp_rxq_cast(rxq_);
    uint64_t n_bytes = 0;
    uint32_t idx = 0;
    uint32_t n;

    /* The last batch is done with: its frames go back to the kernel. */
    if (rxq->n_held) {
        if (UNLIKELY(xsk_ring_prod__reserve(&rxq->fill, rxq->n_held, &idx)
                     != rxq->n_held)) {
            /* Cannot happen: the ring holds every receive frame.  Keep
             * them and receive nothing rather than lose frames. */
            return EAGAIN;
        }
        for (uint32_t i = 0; i < rxq->n_held; i++) {
            *xsk_ring_prod__fill_addr(&rxq->fill, idx + i) = rxq->held[i];
        }
        xsk_ring_prod__submit(&rxq->fill, rxq->n_held);
        rxq->n_held = 0;
    }

    n = xsk_ring_cons__peek(&rxq->rx, DP_BATCH_SIZE, &idx);
    if (!n) {
        return EAGAIN;
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct xdp_desc *desc = xsk_ring_cons__rx_desc(&rxq->rx,
                                                             idx + i);
        struct dp_packet *p = &rxq->packets[i];

        dp_packet_init(p, rxq->area + desc->addr, desc->len, port_no);
        rxq->held[i] = desc->addr & ~(uint64_t) (NETDEV_AFXDP_FRAME_SIZE - 1);
        n_bytes += desc->len;
        dp_batch_add(batch, p);
    }
    /* The descriptors are read; the frames stay ours until 'held' goes
     * back to the fill ring. */
    xsk_ring_cons__release(&rxq->rx, n);
    rxq->n_held = n;
    netdev_counter_add(&rxq->stats.rx_packets, n);
    netdev_counter_add(&rxq->stats.rx_bytes, n_bytes);
    return 0;
}

/* Moves the frames the kernel has sent from the completion ring of 'sock'
 * to its free stack.  Caller owns the transmit side. */
static void
netdev_afxdp_reclaim__(struct netdev_afxdp_rxq *sock)
{
    uint32_t idx = 0;
    uint32_t n;

    n = xsk_ring_cons__peek(&sock->comp, NETDEV_AFXDP_COMP_SIZE, &idx);
    for (uint32_t i = 0; i < n; i++) {
        sock->tx_free[sock->n_tx_free++]
            = *xsk_ring_cons__comp_addr(&sock->comp, idx + i);
    }
    if (n) {
        xsk_ring_cons__release(&sock->comp, n);
    }
}

/* Makes the kernel send what the tx ring of 'sock' holds: copy mode
 * transmits only inside sendto().  A refusal leaves the frames queued for
 * the next kick, so nothing is lost here. */
static void
netdev_afxdp_kick__(struct netdev_afxdp_rxq *sock)
{
    for (int i = 0; i < NETDEV_AFXDP_MAX_KICKS; i++) {
        if (sendto(sock->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0
            || (errno != EAGAIN && errno != EBUSY && errno != EINTR)) {
            return;
        }
    }
}

/* What send does with a packet. */
enum netdev_afxdp_tx_class {
    NETDEV_AFXDP_TX_OK,         /* Copied as it is. */
    NETDEV_AFXDP_TX_CSUM,       /* Copied, then its checksum finished. */
    NETDEV_AFXDP_TX_TOO_BIG,    /* Larger than a UMEM frame, or GSO. */
    NETDEV_AFXDP_TX_BAD_VNET,   /* Checksum offsets outside the frame. */
};

static enum netdev_afxdp_tx_class
netdev_afxdp_classify__(const struct dp_packet *p)
{
    if (p->size > NETDEV_AFXDP_MAX_FRAME) {
        return NETDEV_AFXDP_TX_TOO_BIG;
    }
    if (LIKELY(!(p->flags & DP_PACKET_F_VNET))) {
        return NETDEV_AFXDP_TX_OK;
    }
    /* AF_XDP carries no offload metadata: a GSO frame cannot be sent, and
     * a checksum left partial by its sender is finished here. */
    if (p->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        return NETDEV_AFXDP_TX_TOO_BIG;
    }
    if (!(p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
        return NETDEV_AFXDP_TX_OK;
    }
    return ((uint32_t) p->vnet.csum_start + p->vnet.csum_offset + 2
            <= p->size
            ? NETDEV_AFXDP_TX_CSUM : NETDEV_AFXDP_TX_BAD_VNET);
}

static void
netdev_afxdp_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);
    struct netdev_stats *stats = &dev->txqs[qid].stats;
    struct netdev_afxdp_rxq *sock
        = netdev_afxdp_rxq_cast(netdev->rxqs[qid % netdev->n_rxq]);
    uint32_t n = MIN(batch->count, DP_BATCH_SIZE);
    uint8_t classes[DP_BATCH_SIZE];
    uint32_t n_fit = 0, n_sent = 0, n_too_big = 0, n_bad = 0;
    uint64_t n_bytes = 0;
    uint32_t idx = 0;
    uint32_t n_slots;

    for (uint32_t i = 0; i < n; i++) {
        classes[i] = netdev_afxdp_classify__(batch->packets[i]);
        n_fit += classes[i] <= NETDEV_AFXDP_TX_CSUM;
    }

    if (dev->tx_shared) {
        pthread_spin_lock(&sock->tx_lock);
    }
    netdev_afxdp_reclaim__(sock);
    n_slots = MIN(n_fit, sock->n_tx_free);
    if (n_slots && xsk_ring_prod__reserve(&sock->tx, n_slots, &idx)
                   != n_slots) {
        n_slots = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct dp_packet *p = batch->packets[i];
        struct xdp_desc *desc;
        uint64_t addr;

        if (UNLIKELY(classes[i] > NETDEV_AFXDP_TX_CSUM)) {
            n_too_big += classes[i] == NETDEV_AFXDP_TX_TOO_BIG;
            n_bad += classes[i] == NETDEV_AFXDP_TX_BAD_VNET;
            continue;
        }
        if (n_sent == n_slots) {
            continue;           /* Counted below as tx_queue_full. */
        }
        addr = sock->tx_free[--sock->n_tx_free];
        memcpy(sock->area + addr, p->data, p->size);
        if (classes[i] == NETDEV_AFXDP_TX_CSUM) {
            csum_fill_partial(sock->area + addr, p->size,
                              p->vnet.csum_start, p->vnet.csum_offset);
        }
        desc = xsk_ring_prod__tx_desc(&sock->tx, idx + n_sent);
        desc->addr = addr;
        desc->len = p->size;
        n_bytes += p->size;
        n_sent++;
    }
    if (n_sent) {
        xsk_ring_prod__submit(&sock->tx, n_sent);
    }
    /* Also when nothing new was queued: an earlier kick may have left
     * frames on the ring. */
    netdev_afxdp_kick__(sock);
    if (dev->tx_shared) {
        pthread_spin_unlock(&sock->tx_lock);
    }

    if (n_sent) {
        netdev_counter_add(&stats->tx_packets, n_sent);
        netdev_counter_add(&stats->tx_bytes, n_bytes);
    }
    if (n_too_big) {
        netdev_counter_add(&stats->tx_too_big, n_too_big);
    }
    if (n_bad) {
        netdev_counter_add(&stats->tx_errors, n_bad);
    }
    if (n_fit > n_sent) {
        netdev_counter_add(&stats->tx_queue_full, n_fit - n_sent);
    }
}

static void
netdev_afxdp_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);

    for (int i = 0; i < netdev->n_rxq; i++) {
        netdev_stats_add(st, &netdev_afxdp_rxq_cast(netdev->rxqs[i])->stats);
    }
    for (int i = 0; i < netdev->n_txq; i++) {
        netdev_stats_add(st, &dev->txqs[i].stats);
    }
}

static int
netdev_afxdp_health(const struct netdev *netdev)
{
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);

    return netdev_linux_link_health(dev->ctl_fd, netdev->ifindex,
                                    netdev->name);
}

static void
netdev_afxdp_run(struct netdev *netdev)
{
    /* XDP_STATISTICS only grow; this thread is the only writer of
     * rx_ring_full and adds what is new.  rx_dropped covers frames that
     * found the fill ring empty and frames larger than a UMEM frame;
     * rx_fill_ring_empty_descs counts the first kind again, so it is
     * shown in the status only. */
    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_afxdp_rxq *rxq = netdev_afxdp_rxq_cast(netdev->rxqs[i]);
        struct xdp_statistics xs;
        socklen_t len = sizeof xs;
        uint64_t drops;

        if (getsockopt(rxq->fd, SOL_XDP, XDP_STATISTICS, &xs, &len)
            || len < sizeof xs) {
            continue;
        }
        drops = xs.rx_dropped + xs.rx_ring_full + xs.rx_invalid_descs;
        if (drops > rxq->last_drops) {
            netdev_counter_add(&rxq->stats.rx_ring_full,
                               drops - rxq->last_drops);
            rxq->last_drops = drops;
        }
        __atomic_store_n(&rxq->fill_empty, xs.rx_fill_ring_empty_descs,
                         __ATOMIC_RELAXED);
    }
}

static void
netdev_afxdp_get_status(const struct netdev *netdev, char *buf, size_t size)
{
    struct netdev_afxdp *dev = netdev_afxdp_cast(netdev);
    uint64_t fill_empty = 0;

    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_afxdp_rxq *rxq = netdev_afxdp_rxq_cast(netdev->rxqs[i]);

        fill_empty += __atomic_load_n(&rxq->fill_empty, __ATOMIC_RELAXED);
    }
    snprintf(buf, size, "afxdp: xdp-mode %s, copy, %d queue%s, n_txq=%d%s, "
             "umem %d x %d B per queue, max frame %d B, "
             "fill_ring_empty=%llu",
             dev->generic ? "generic" : "native", netdev->n_rxq,
             netdev->n_rxq == 1 ? "" : "s", netdev->n_txq,
             dev->tx_shared ? " (shared tx, locked)" : "",
             NETDEV_AFXDP_N_FRAMES, NETDEV_AFXDP_FRAME_SIZE,
             NETDEV_AFXDP_MAX_FRAME, (unsigned long long) fill_empty);
}

#define NETDEV_AFXDP_CLASS(TYPE)                        \
    {                                                   \
        .type = TYPE,                                   \
        .alloc = netdev_afxdp_alloc,                    \
        .construct = netdev_afxdp_construct,            \
        .destruct = netdev_afxdp_destruct,              \
        .dealloc = netdev_afxdp_dealloc,                \
        .rxq_alloc = netdev_afxdp_rxq_alloc,            \
        .rxq_construct = netdev_afxdp_rxq_construct,    \
        .rxq_destruct = netdev_afxdp_rxq_destruct,      \
        .rxq_dealloc = netdev_afxdp_rxq_dealloc,        \
        .rxq_recv = netdev_afxdp_rxq_recv,              \
        .send = netdev_afxdp_send,                      \
        .rxq_wait_fds = netdev_afxdp_rxq_wait_fds,      \
        .get_stats = netdev_afxdp_get_stats,            \
        .health = netdev_afxdp_health,                  \
        .run = netdev_afxdp_run,                        \
        .get_status = netdev_afxdp_get_status,          \
    }

const struct netdev_class netdev_afxdp_class = NETDEV_AFXDP_CLASS("afxdp");
const struct netdev_class netdev_afxdp_generic_class
    = NETDEV_AFXDP_CLASS("afxdp-generic");
