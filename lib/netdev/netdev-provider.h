/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The contract between netdev.c and a port provider.
 *
 * A provider fills a const struct netdev_class.  Its port struct embeds
 * struct netdev first and uses CONTAINER_OF to get back to itself; its rx
 * queues embed struct netdev_rxq the same way.  Life cycle: alloc ->
 * construct -> ... -> destruct -> dealloc.  construct may fail and must
 * then leave nothing behind; destruct and dealloc may not fail.
 *
 * Threads.  rxq_recv and send are the hot path: they run on PMD threads,
 * never block, allocate, take a lock or log without a rate limit.  rxq_recv
 * for a given rxq is only ever called by one PMD at a time, and send for a
 * given qid likewise.  Every other op runs on the control thread.
 *
 * Memory.  Packets returned by rxq_recv point into memory the provider
 * owns (a ring slot or a per-rxq buffer).  They stay valid until the next
 * rxq_recv on the same rxq; the provider may then reuse them (for a ring,
 * hand the block back to the kernel).  The PMD sends or drops every packet
 * of a batch before it polls that rxq again.  send copies what it needs
 * and never keeps a pointer to a packet.
 *
 * Counting.  Every frame received and every frame given to send ends up in
 * exactly one counter of struct netdev_stats.
 *
 * Optional ops may be NULL; netdev.c checks, not callers.  Each member of
 * struct netdev_class says which ops are optional and what each may
 * assume about its calling thread.
 */
#ifndef NETDEV_PROVIDER_H
#define NETDEV_PROVIDER_H 1

#include <stdatomic.h>
#include "netdev/netdev.h"

struct netdev_class;

struct netdev {
    const struct netdev_class *class;
    char *name;                 /* Kernel interface name. */
    int ifindex;
    int n_rxq;
    int n_txq;                  /* Control thread writes (relaxed), PMDs
                                 * read it in netdev_send()'s check. */
    int max_txq;                /* What 'n_txq' may grow to (>= n_txq). */
    struct netdev_rxq **rxqs;   /* n_rxq, made by netdev.c via rxq ops. */
    struct netdev *next;        /* In netdev.c's list of open netdevs. */
};

struct netdev_rxq {
    struct netdev *netdev;
    int qid;
};

/* Adds 'n' to a counter with one writer; readers use netdev_counter_read().*/
static inline void
netdev_counter_add(uint64_t *counter, uint64_t n)
{
    __atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

static inline uint64_t
netdev_counter_read(const uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* A port provider.  Each member says whether it is required or optional
 * (NULL: netdev.c then does what the member says instead), which thread
 * calls it, and what it may assume.  "Control thread" ops are never called
 * concurrently with each other: netdev.c and the datapath call them from
 * the one control thread. */
struct netdev_class {
    /* Required.  The "type" of the config that selects this provider. */
    const char *type;

    /* False for a provider that opens existing interfaces only: netdev.c
     * then fails the open of a missing one.  True if construct may make
     * the interface: netdev.c then calls construct for a missing one with
     * 'netdev->ifindex' 0, and construct either creates the interface and
     * sets 'netdev->ifindex' or fails with its own message.  For an
     * interface that exists, netdev.c looks up the ifindex and checks for
     * a second port on it before construct, as for any provider. */
    bool may_create;

    /* True for a provider with no kernel interface ("dummy"): netdev.c
     * looks no interface up, construct sets 'netdev->ifindex' to a
     * positive number of its own, and two open netdevs of the provider
     * may not share a name (unless 'replaces'). */
    bool no_interface;

    /* Required; control thread.  alloc returns a zeroed provider struct
     * (NULL only if out of memory).  construct opens the kernel side (if
     * any) for 'netdev->name' with 'opts', with 'name', 'ifindex', 'n_rxq'
     * and 'n_txq' already set; on failure it returns a positive errno with a
     * malloc'd message in '*errp' and leaves nothing open.  destruct runs
     * after every rxq is gone and no PMD uses the port any more; it and
     * dealloc cannot fail. */
    struct netdev *(*alloc)(void);
    int (*construct)(struct netdev *, const struct netdev_options *opts,
                     char **errp);
    void (*destruct)(struct netdev *);
    void (*dealloc)(struct netdev *);

    /* Required; control thread.  Called by netdev.c after construct for
     * each qid in [0, n_rxq), 'rxq->netdev' and 'rxq->qid' set, and before
     * destruct; rxq_construct fails as construct does. */
    struct netdev_rxq *(*rxq_alloc)(void);
    int (*rxq_construct)(struct netdev_rxq *, char **errp);
    void (*rxq_destruct)(struct netdev_rxq *);
    void (*rxq_dealloc)(struct netdev_rxq *);

    /* Required; PMD thread, the hot path (see the top of this file).
     * rxq_recv appends up to a batch of frames to an empty 'batch', with
     * 'port_no' as their input port, and returns 0, EAGAIN for nothing or
     * a positive errno; one PMD at a time per rxq.  send consumes every
     * packet of a non-empty 'batch' on tx queue 'qid' (in [0, n_txq), one
     * PMD at a time per qid), counting what it cannot send. */
    int (*rxq_recv)(struct netdev_rxq *, struct dp_batch *, uint16_t port_no);
    void (*send)(struct netdev *, int qid, struct dp_batch *);

    /* Optional (NULL: the PMD cannot sleep on this rxq and polls it);
     * PMD thread.  See netdev_rxq_wait_fds().  The descriptors must stay
     * open as long as the rxq exists. */
    int (*rxq_wait_fds)(const struct netdev_rxq *,
                        int fds[NETDEV_RXQ_MAX_WAIT_FDS]);

    /* Optional (NULL: all counters zero); any thread, while PMDs write the
     * counters, so it reads them with netdev_counter_read(). */
    void (*get_stats)(const struct netdev *, struct netdev_stats *);

    /* Optional (NULL: always healthy); control thread.  Returns 0, or a
     * positive errno such as ENETDOWN or ENODEV for a port whose kernel
     * side is down or gone, which the datapath then reports and retries. */
    int (*health)(const struct netdev *);

    /* Optional (NULL: netdev_set_n_txq() answers EOPNOTSUPP); control
     * thread.  Opens tx queues from 'netdev->n_txq' up to 'n_txq' (at most
     * 'max_txq'), in entries that construct allocated for 'max_txq'
     * queues, without touching the queues in use; on failure returns a
     * positive errno with a message in '*errp' and leaves none of the new
     * queues open.  netdev.c updates 'n_txq'. */
    int (*set_n_txq)(struct netdev *, int n_txq, char **errp);

    /* Optional; control thread, about every millisecond, for periodic
     * work (policy windows, statistics from the kernel).  Must not block. */
    void (*run)(struct netdev *);

    /* Optional (NULL: no hand-over; see doc/port-handover.md); control
     * thread.  rx_steer returns the fanout steering of the receive
     * sockets, which construct of a netdev given this one as
     * 'opts->predecessor' may join, or NULL.  take_over steers every
     * frame of the interface to the sockets of a netdev that joined its
     * predecessor's group (waiting for the kernel to finish every
     * delivery to the old ones) and returns 0 or a positive errno, with
     * nothing changed.  retire then tells the predecessor that its
     * sockets receive nothing more: it changes no steering any more, and
     * drained says whether the PMDs have read each of its rx queues dry
     * since. */
    struct tpacket_steer *(*rx_steer)(struct netdev *);
    int (*take_over)(struct netdev *);
    void (*retire)(struct netdev *);
    bool (*drained)(const struct netdev *);

    /* Optional (NULL: no offload metadata, all of it false); control
     * thread.  Fills '*offloads' with what construct agreed with the
     * kernel (see struct netdev_offloads). */
    void (*get_offloads)(const struct netdev *,
                         struct netdev_offloads *offloads);

    /* Optional (NULL: the type name); control thread.  Appends a one-line
     * description of the port's mode and state to 'buf' of 'size' bytes. */
    void (*get_status)(const struct netdev *, char *buf, size_t size);
};

extern const struct netdev_class netdev_mmsg_class;
extern const struct netdev_class netdev_tap_class;
extern const struct netdev_class netdev_dummy_class;
extern const struct netdev_class netdev_vxlan_class;
#ifdef HAVE_TPACKET_V3
extern const struct netdev_class netdev_tpacket_class;
#endif
#ifdef HAVE_AFXDP
/* AF_XDP (netdev-afxdp.c): "afxdp" attaches libxdp's program in native
 * mode, "afxdp-generic" in generic (skb) mode; otherwise the same. */
extern const struct netdev_class netdev_afxdp_class;
extern const struct netdev_class netdev_afxdp_generic_class;
#endif

/* Adds every counter of 'src' to 'dst', reading 'src' relaxed. */
void netdev_stats_add(struct netdev_stats *dst,
                      const struct netdev_stats *src);

/* A transmit queue of a packet-socket port: two transmit-only sockets and
 * the counters of the one PMD that sends on them.  Frames with offload
 * metadata go out on 'fd', with their virtio_net_hdr; the others on
 * 'plain_fd', which has no vnet header to build and parse (about 3% less
 * kernel time per 64-byte frame on veth, doc/netdev-tpacket.md,
 * "Transmit"). */
struct netdev_linux_txq {
    int fd;
    int plain_fd;
    struct netdev_stats stats;  /* Written by the queue's PMD only. */
} CACHE_ALIGNED;

/* Opens 'netdev->n_txq' transmit queues into a new array in '*txqsp', of
 * 'netdev->max_txq' entries.  Returns 0, or a positive errno with a
 * message in '*errp' and nothing left open. */
int netdev_linux_txqs_open(const struct netdev *,
                           struct netdev_linux_txq **txqsp, char **errp);

/* Opens the queues of 'txqs' from 'netdev->n_txq' up to 'n_txq', for a
 * provider's set_n_txq.  Returns 0, or a positive errno with a message in
 * '*errp' and none of them left open. */
int netdev_linux_txqs_grow(const struct netdev *,
                           struct netdev_linux_txq *txqs, int n_txq,
                           char **errp);

/* Closes the first 'n' queues of 'txqs' and frees the array. */
void netdev_linux_txqs_close(struct netdev_linux_txq *txqs, int n);

/* What a packet socket from netdev_linux_packet_socket() is for. */
enum netdev_linux_sock {
    NETDEV_SOCK_RX,             /* Receives; PACKET_VNET_HDR and AUXDATA. */
    NETDEV_SOCK_TX,             /* Transmit-only, PACKET_VNET_HDR (also
                                 * the start of the tpacket ring socket,
                                 * which binds it again once its ring is
                                 * set up: keep it free of transmit-only
                                 * options). */
    NETDEV_SOCK_TX_PLAIN,       /* Transmit-only, frames without header. */
};

/* Shared by providers (netdev-linux.c): opens an AF_PACKET socket bound to
 * 'ifindex' for 'kind'.  A transmit-only socket is bound with protocol 0,
 * so it receives nothing.  Returns the fd or a negative errno. */
int netdev_linux_packet_socket(int ifindex, enum netdev_linux_sock kind);

/* Returns 0 if interface 'name' still has index 'ifindex' and is up with a
 * carrier, ENODEV if it is gone or was replaced under the same name (our
 * sockets stay bound to the old one), ENETDOWN if it is down.  'fd' is any
 * socket in the interface's namespace.  Control thread. */
int netdev_linux_link_health(int fd, int ifindex, const char *name);

/* get_offloads of the packet-socket providers: their receive sockets and
 * the transmit socket that frames with offload metadata take have
 * PACKET_VNET_HDR (netdev_linux_packet_socket()). */
void netdev_linux_get_offloads(const struct netdev *,
                               struct netdev_offloads *);

/* Looks up 'name' and returns its ifindex, or a negative errno. */
int netdev_linux_ifindex(const char *name);

/* Adds the socket's PACKET_STATISTICS drops since the last read to
 * '*drops'.  The kernel resets the counters on each read. */
void netdev_linux_accumulate_drops(int fd, uint64_t *drops);

/* The same, also adding to '*arrived' the frames the kernel handed the
 * socket since the last read, queued or dropped, read by the PMD or
 * not. */
void netdev_linux_accumulate_packet_stats(int fd, uint64_t *arrived,
                                          uint64_t *drops);

/* How often the mmsg provider's run op reads the drops: reading them is a
 * system call per socket, too many for every tick with a thousand ports.
 * get_stats reads them too, so counters shown are fresh. */
#define NETDEV_LINUX_DROPS_INTERVAL_MS 100

/* Sends 'batch' on 'txq' with sendmmsg, in order: each run of frames with
 * offload metadata on 'txq->fd', preceded by their virtio_net_hdr, each run
 * of frames without on 'txq->plain_fd'.  Counts into 'txq->stats' (single
 * writer).  Used by both providers. */
void netdev_linux_sendmmsg(struct netdev_linux_txq *txq,
                           struct dp_batch *batch);

#endif /* netdev-provider.h */
