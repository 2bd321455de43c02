/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Receiving from a plain AF_PACKET socket with recvmmsg(), a batch per
 * system call.  Shared by the "mmsg" provider, which reads all its traffic
 * this way, and the "tpacket" provider, whose low-latency socket is read
 * this way.
 *
 * The socket must carry a virtio_net_hdr in front of each frame
 * (PACKET_VNET_HDR) and pass VLAN tags as PACKET_AUXDATA, as the receive
 * sockets of netdev_linux_packet_socket() do.  The kernel copies each frame straight
 * into a preallocated buffer per batch slot, large enough for a 64 KB GSO
 * frame, after headroom to put back a VLAN tag that the kernel handed over
 * as metadata; the vnet header lands in the packet's metadata.
 *
 * Threads.  init and uninit run on the control thread; recv on the socket's
 * single PMD.  The counters of struct netdev_mmsg_rx have that PMD as their
 * only writer and may be read by anyone with netdev_counter_read() or a
 * relaxed atomic load.
 */
#ifndef NETDEV_MMSG_RX_H
#define NETDEV_MMSG_RX_H 1

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/if_packet_compat.h>
#include "packet/dp-batch.h"
#include "packet/dp-packet.h"
#include "netdev/netdev.h"
#include "base/util.h"

/* Largest frame accepted: a 64 KB GSO frame with its Ethernet header and
 * one VLAN tag, rounded up.  A longer one is counted as truncated. */
#define NETDEV_MMSG_RX_FRAME_MAX (65536 + 128)

/* Bytes per receive buffer: VLAN headroom, then the frame.  Packets of one
 * batch lie this far apart. */
#define NETDEV_MMSG_RX_BUF_SIZE ROUND_UP(DP_PACKET_HEADROOM               \
                                         + NETDEV_MMSG_RX_FRAME_MAX,      \
                                         CACHE_LINE_SIZE)

/* Room for the PACKET_AUXDATA control message (VLAN tag). */
#define NETDEV_MMSG_RX_CMSG_SIZE CMSG_SPACE(sizeof(struct tpacket_auxdata))

struct netdev_mmsg_rx {
    /* Set by netdev_mmsg_rx_init(), then read only. */
    int fd;                         /* The socket; its owner is the caller. */
    uint8_t *bufs;                  /* DP_BATCH_SIZE buffers. */

    /* PMD only. */
    uint32_t n_dirty;               /* Messages the last call filled. */
    struct dp_packet packets[DP_BATCH_SIZE];
    struct mmsghdr msgs[DP_BATCH_SIZE];
    struct iovec iovs[DP_BATCH_SIZE][2];
    struct sockaddr_ll addrs[DP_BATCH_SIZE];
    union {
        struct cmsghdr align;
        uint8_t buf[NETDEV_MMSG_RX_CMSG_SIZE];
    } cmsgs[DP_BATCH_SIZE];

    /* Written by the PMD, read by anyone. */
    uint64_t n_outgoing;            /* The port's own transmissions seen and
                                     * skipped; not received frames. */
    int last_error;                 /* Last receive error, 0 if none since
                                     * frames last arrived. */
};

/* Prepares 'rx' to receive from packet socket 'fd', which stays the
 * caller's to close after netdev_mmsg_rx_uninit().  Control thread. */
void netdev_mmsg_rx_init(struct netdev_mmsg_rx *rx, int fd);

/* Frees what netdev_mmsg_rx_init() allocated.  Control thread. */
void netdev_mmsg_rx_uninit(struct netdev_mmsg_rx *rx);

/* Receives up to the room left in 'batch' from the socket with one
 * recvmmsg() and appends the frames to 'batch' with in_port 'port_no'.  The
 * packets point into 'rx' and stay valid until the next call.  Counts
 * received frames and bytes, truncated frames and runts (as rx_errors) and
 * receive errors other than ENETDOWN in 'stats', whose receive counters
 * must have the calling PMD as their only writer.
 *
 * Sets '*dryp' to true if recvmmsg() found the socket's queue empty
 * before it received anything (EAGAIN), otherwise to false.
 *
 * Returns 0 if 'batch' got frames, EAGAIN if not, or the socket's error
 * (for example ENETDOWN; reported once, and the frames still queued come
 * with later calls).  PMD only. */
int netdev_mmsg_rx_recv(struct netdev_mmsg_rx *rx, struct dp_batch *batch,
                        uint16_t port_no, struct netdev_stats *stats,
                        bool *dryp);

#endif /* netdev-mmsg-rx.h */
