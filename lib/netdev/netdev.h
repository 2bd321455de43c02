/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The generic port API.  A netdev is one kernel interface opened by a
 * provider ("tpacket", "mmsg", "tap", "afxdp"; see netdev-provider.h for the
 * contract each provider meets), or a port with no kernel side at all
 * ("dummy", netdev-dummy.h, for tests).  It has n_rxq receive queues, each polled
 * by exactly one PMD, and n_txq transmit queues, one per PMD, so that
 * transmit needs no lock.
 *
 * netdev_rxq_recv() and netdev_send() are the hot path and run on PMD
 * threads; everything else runs on the control thread.
 */
#ifndef NETDEV_H
#define NETDEV_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "packet/dp-batch.h"

struct netdev;
struct netdev_rxq;
struct netdev_vxlan_options;

/* Port counters.  Every frame the port received is in rx_packets or in one
 * of the rx drop counters; every frame handed to netdev_send() is in
 * tx_packets or in one of the tx drop counters. */
struct netdev_stats {
    uint64_t rx_packets;
    uint64_t rx_bytes;
    uint64_t tx_packets;
    uint64_t tx_bytes;
    /* Receive drops, by reason. */
    uint64_t rx_ring_full;      /* Kernel drops: ring or socket buffer full
                                 * (PACKET_STATISTICS, accumulated; for
                                 * afxdp XDP_STATISTICS, which also count
                                 * frames too large for a UMEM frame). */
    uint64_t rx_truncated;      /* Frame larger than a ring slot or buffer. */
    uint64_t rx_errors;         /* Other receive failures. */
    /* Transmit drops, by reason. */
    uint64_t tx_queue_full;     /* EAGAIN/ENOBUFS from the kernel. */
    uint64_t tx_too_big;        /* Larger than the port accepts (EMSGSIZE). */
    uint64_t tx_port_down;      /* ENETDOWN/ENXIO: the link is down. */
    uint64_t tx_errors;         /* Other send failures. */
    /* What the datapath did to frames before the provider sent them
     * (dp/tx-gro.c, dp/tx-gso.c); providers leave these 0.  The frames
     * given to the port were tx_packets - tx_gro_frames + tx_gro_segments
     * - tx_gso_segments + tx_gso_frames (counting dropped ones out). */
    uint64_t tx_gro_segments;   /* TCP segments merged... */
    uint64_t tx_gro_frames;     /* ...into these frames. */
    uint64_t tx_gso_frames;     /* GSO frames cut... */
    uint64_t tx_gso_segments;   /* ...into these segments. */
};

/* What the user configured for a port. */
struct netdev_options {
    int n_rxq;                  /* Receive queues (>= 1). */
    int n_txq;                  /* Transmit queues: one per PMD (>= 1). */
    int max_txq;                /* Transmit queues netdev_set_n_txq() may
                                 * grow to without reopening; 0 or less
                                 * than 'n_txq' means 'n_txq'. */
    bool replaces;              /* Another netdev has the interface open
                                 * and is closed once this one takes over:
                                 * skip the one-port-per-interface check. */
    bool create;                /* If the interface does not exist, a
                                 * provider that can make one ("tap") does
                                 * so, for as long as the port is open;
                                 * other providers fail as without it. */
    const char *pcap;           /* "dummy" only: also write what the port
                                 * transmits to this pcap file; NULL for
                                 * none.  Other providers ignore it. */
    const struct netdev_vxlan_options *vxlan;  /* "vxlan" only: the
                                 * tunnel (netdev-vxlan.h), copied by
                                 * construct.  Others ignore it. */
    struct netdev *predecessor; /* NULL, or the open netdev on the same
                                 * interface that this one replaces ('replaces'
                                 * set): a packet-socket provider joins its
                                 * receive sockets to the predecessor's
                                 * fanout group, so that netdev_take_over()
                                 * can move every frame at one instant
                                 * (doc/port-handover.md). */
};

/* Opens kernel interface 'ifname' with provider 'type'.  On success stores
 * the netdev in '*netdevp' and returns 0; on failure returns a positive
 * errno and, if 'errp' is nonnull, a message to free in '*errp' naming the
 * interface and what went wrong. */
int netdev_open(const char *ifname, const char *type,
                const struct netdev_options *, struct netdev **netdevp,
                char **errp);
void netdev_close(struct netdev *);   /* Accepts NULL. */

/* Hand-over (doc/port-handover.md), control thread.  netdev_take_over()
 * steers every frame of the interface from 'old' to 'new', opened with
 * 'old' as its predecessor: when it returns 0, 'old''s sockets receive
 * nothing more, and the frames they hold still wait in them, for the
 * PMDs to read.  Returns 0 (also when there was nothing to hand over:
 * providers that cannot, or 'new' opened on a group of its own) or a
 * positive errno, with nothing changed.  netdev_drained() then says
 * whether the PMDs have read every rx queue of 'old' dry since.  Sleeps
 * for a grace period. */
int netdev_take_over(struct netdev *new, struct netdev *old);
bool netdev_drained(const struct netdev *old);

/* True if 'type' names a provider compiled in. */
bool netdev_type_exists(const char *type);

const char *netdev_get_name(const struct netdev *);
const char *netdev_get_type(const struct netdev *);
int netdev_get_ifindex(const struct netdev *);
int netdev_n_rxq(const struct netdev *);
int netdev_n_txq(const struct netdev *);

/* Opens transmit queues up to 'n_txq' on 'netdev', which keeps every queue
 * it has (and receives on as before); does nothing if it has as many.
 * Returns 0, EOPNOTSUPP if the provider cannot, or 'n_txq' is above the
 * 'max_txq' the netdev was opened with (reopen it then), or another errno
 * with a message in '*errp' and no new queue.  Queues below the old count
 * may be in use by PMDs meanwhile; the new ones are used only by threads
 * that learn of them afterwards through a release (a new poll list, a new
 * thread).  Control thread. */
int netdev_set_n_txq(struct netdev *, int n_txq, char **errp);
struct netdev_rxq *netdev_get_rxq(const struct netdev *, int qid);
struct netdev *netdev_rxq_get_netdev(const struct netdev_rxq *);
int netdev_rxq_get_qid(const struct netdev_rxq *);

/* Receives up to DP_BATCH_SIZE frames into 'batch' (PMD thread).  Returns 0
 * if it received at least one, EAGAIN if none, or another positive errno
 * (ENETDOWN: the interface went away).  Received packets point into memory
 * the provider owns; they stay valid until the next netdev_rxq_recv() on
 * the same rxq.  Sets each packet's in_port to 'port_no', and its RSS hash
 * when the kernel supplied one. */
int netdev_rxq_recv(struct netdev_rxq *, struct dp_batch *batch,
                    uint16_t port_no);

/* Most descriptors netdev_rxq_wait_fds() reports for one rxq. */
#define NETDEV_RXQ_MAX_WAIT_FDS 2

/* Stores in 'fds' the descriptors that poll() reports readable (or in
 * error) when netdev_rxq_recv() on 'rxq' may find frames, and returns how
 * many (PMD thread).  Returns 0 when the provider has none: a PMD polling
 * such a queue cannot wait on descriptors and naps instead. */
int netdev_rxq_wait_fds(const struct netdev_rxq *,
                        int fds[NETDEV_RXQ_MAX_WAIT_FDS]);

/* Sends every packet in 'batch' on tx queue 'qid' (PMD thread; one PMD per
 * qid).  Always consumes the batch: what the kernel refuses is counted in a
 * named tx drop counter.  Keeps no pointer to the packets. */
void netdev_send(struct netdev *, int qid, struct dp_batch *batch);

/* Fills '*stats' (any thread; counters are read relaxed). */
void netdev_get_stats(const struct netdev *, struct netdev_stats *stats);

/* Returns 0 if the port works, or a positive errno such as ENETDOWN. */
int netdev_health(const struct netdev *);

/* Periodic control-thread work for every open netdev (for example, the
 * tpacket provider's receive-mode switch).  Called at least every ms. */
void netdev_run(void);

/* What a port's provider agreed with the kernel about offload metadata:
 * the facts that decide whether checksum-partial and GSO frames can cross
 * the port whole. */
struct netdev_offloads {
    bool vnet_hdr;              /* Frames carry a struct virtio_net_hdr
                                 * both ways (PACKET_VNET_HDR or
                                 * IFF_VNET_HDR; packet sockets send frames
                                 * without metadata on a socket without
                                 * it); false: frames carry no offload
                                 * metadata (afxdp). */
    bool tun;                   /* A tap: 'tun_offloads' says what it
                                 * accepted. */
    unsigned int tun_offloads;  /* TUN_F_* (linux/if_tun.h) the tap took
                                 * with TUNSETOFFLOAD. */
    bool tcp_gso;               /* Without 'vnet_hdr': the port takes TCP
                                 * GSO frames whole all the same and cuts
                                 * them itself, to 'max_frame' (a tunnel,
                                 * into one UDP GSO send). */
    uint32_t max_frame;         /* Largest frame the port sends, Ethernet
                                 * header included, where it is smaller
                                 * than what its senders expect (a tunnel:
                                 * the underlay MTU less the outer
                                 * headers); 0 for no such limit.  GSO
                                 * frames are cut to fit it. */
};

/* Fills '*offloads' for 'netdev'.  Control thread. */
void netdev_get_offloads(const struct netdev *,
                         struct netdev_offloads *offloads);

/* Appends a human-readable description of provider state (receive mode,
 * ring geometry) to 'buf' of 'size' bytes. */
void netdev_get_status(const struct netdev *, char *buf, size_t size);

#endif /* netdev.h */
