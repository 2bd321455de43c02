/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * What the files of the "tpacket" port provider share: the port and rx
 * queue structs, and the ops that the class table in netdev-tpacket.c
 * takes from netdev-tpacket-rx.c (receive, PMD) and netdev-tpacket-tx.c
 * (transmit, PMD).  Each struct member says which thread writes it.  Not
 * for other modules.
 */
#ifndef NETDEV_TPACKET_PRIVATE_H
#define NETDEV_TPACKET_PRIVATE_H 1

#include <stdint.h>
#include "packet/dp-batch.h"
#include "packet/dp-packet.h"
#include "netdev/netdev-mmsg-rx.h"
#include "netdev/netdev-provider.h"
#include "netdev/netdev-tpacket-policy.h"
#include "netdev/netdev-tpacket-steer.h"
#include "base/util.h"

/* Size of each throughput ring of a port. */
struct tpacket_ring_size {
    uint32_t block_size;        /* Bytes per block. */
    uint32_t n_blocks;
};

/* The throughput socket's ring: the kernel fills a block and hands it over
 * when it is full or its timer expires.  PMD only after construction. */
struct tpacket_ring_v3 {
    uint8_t *map;               /* mmap()ed ring, owned by the port. */
    uint32_t block_size;        /* Bytes per block. */
    uint32_t n_blocks;
    uint32_t cur;               /* Block being read, or next to read. */
    uint32_t n_left;            /* Frames of block 'cur' not read yet; 0 if
                                 * 'cur' has not been opened. */
    uint8_t *next;              /* Next frame header in block 'cur'. */
    uint32_t n_done;            /* Fully read blocks before 'cur' not yet
                                 * given back. */
};

/* Counters beyond struct netdev_stats.  Written by the rx queue's PMD with
 * netdev_counter_add(), read by anyone with netdev_counter_read(). */
struct tpacket_rx_counters {
    uint64_t frames[TPACKET_N_MODES]; /* Frames delivered, per socket. */
    uint64_t outgoing;          /* Frames the port sent, skipped in the
                                 * ring (the low-latency receiver counts
                                 * its own). */
    uint64_t losing;            /* Blocks with TP_STATUS_LOSING: the kernel
                                 * dropped frames before them. */
    uint64_t polls_busy;        /* Low-latency polls that returned frames. */
    uint64_t polls_full;        /* Low-latency polls that filled a batch. */
    uint64_t blocks_full;       /* V3 blocks retired because full. */
    uint64_t blocks_timeout;    /* V3 blocks retired by their timer. */
};

struct netdev_rxq_tpacket {
    struct netdev_rxq up;

    /* PMD only. */
    struct tpacket_ring_v3 tp;
    int mode;                   /* Socket the PMD reads (enum tpacket_mode). */
    struct dp_packet packets[DP_BATCH_SIZE]; /* For frames from the ring. */

    /* The low-latency socket's receiver, set up at construction; then PMD
     * only, except its counters, which anyone may read. */
    struct netdev_mmsg_rx ll;

    /* Counters: rx_ring_full written by the control thread, the rest by the
     * PMD; read by anyone with netdev_counter_read(). */
    struct netdev_stats stats CACHE_ALIGNED;
    struct tpacket_rx_counters rx;

    /* The switch handshake (see doc/netdev-tpacket.md). */
    int steer CACHE_ALIGNED;    /* Mode the kernel steers to.  Stored by the
                                 * control thread with release once the
                                 * steering program is in place; loaded by
                                 * the PMD with acquire. */
    int pmd_mode;               /* Copy of 'mode', stored by the PMD,
                                 * loaded by the control thread. */
    bool drained;               /* Stored by the PMD (release) once it
                                 * read the queue dry after seeing the port
                                 * retired; loaded by the control thread
                                 * (acquire). */

    /* Set at construction, then read only (the PMD waits on them). */
    int fds[TPACKET_N_MODES];   /* Receive sockets, indexed by mode; the
                                 * port's. */

    /* Control thread only (read-only for get_status). */
    uint64_t arrived;           /* Frames the kernel handed either socket
                                 * (PACKET_STATISTICS), for the policy. */
    uint64_t drops[TPACKET_N_MODES]; /* PACKET_STATISTICS drops per
                                      * socket, accumulated. */
    uint64_t n_switches[TPACKET_N_MODES]; /* Switches into each mode. */
    struct tpacket_policy policy; /* Decides when to switch. */
};

/* The receive sockets of one rx queue.  The port owns them: a port's
 * sockets are created, put in its fanout group and closed together. */
struct tpacket_rx_socks {
    int fds[TPACKET_N_MODES];   /* Indexed by mode; -1 if not open. */
    uint8_t *map;               /* The throughput socket's ring, or NULL. */
    int ll_rcvbuf;              /* SO_RCVBUF of the low-latency socket. */
};

struct netdev_tpacket {
    struct netdev up;

    /* Set at construction, then read only. */
    struct netdev_linux_txq *txqs;  /* up.n_txq entries. */
    int forced;                 /* PMDSWITCH_TPACKET_MODE. */
    int timeout_ms;             /* PMDSWITCH_TPACKET_BLOCK_TIMEOUT_MS. */
    struct tpacket_ring_size ring; /* Of each rx queue. */
    struct tpacket_rx_socks *socks; /* up.n_rxq entries. */

    /* Control thread only (read-only for get_status). */
    struct tpacket_steer steer; /* The fanout group and its program. */
    bool steer_owns_fds;        /* 'steer' closes the receive sockets. */
    uint64_t n_programs;        /* Programs installed after the first. */
    int steer_error;            /* Last steering failure, or 0. */

    /* Written by the control thread, read by PMDs (relaxed): 0, or the
     * errno rxq_recv returns when it has no frames (the link is gone). */
    int link_error;

    /* Stored by the control thread (release) once a successor took every
     * frame over; loaded by the PMDs (acquire). */
    bool retiring;
};

static inline struct netdev_tpacket *
netdev_tpacket_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct netdev_tpacket, up);
}

static inline struct netdev_rxq_tpacket *
netdev_rxq_tpacket_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_rxq_tpacket, up);
}

/* Receive (netdev-tpacket-rx.c, PMD). */

/* The 'rxq_recv' op: hands back the ring blocks of the previous call and
 * moves the frames of the socket the queue reads now into 'batch',
 * draining the old socket first while a switch is under way.  The packets
 * stay valid until the next call.  Returns 0, EAGAIN or an errno. */
int netdev_tpacket_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                            uint16_t port_no);

/* The 'rxq_wait_fds' op: stores the queue's receive sockets in 'fds' and
 * returns how many. */
int netdev_tpacket_rxq_wait_fds(const struct netdev_rxq *rxq_,
                                int fds[NETDEV_RXQ_MAX_WAIT_FDS]);

/* Transmit (netdev-tpacket-tx.c, PMD). */

/* The 'send' op: sends 'batch' on tx queue 'qid' and consumes it. */
void netdev_tpacket_send(struct netdev *netdev, int qid,
                         struct dp_batch *batch);

#endif /* netdev-tpacket-private.h */
