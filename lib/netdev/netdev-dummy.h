/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "dummy" port provider's own API, as Open vSwitch's netdev-dummy: a
 * port with no kernel interface, for tests that need no root.  Frames are
 * injected into its receive queues (netdev-dummy/receive) and what the
 * datapath transmits on it is kept to be read back (netdev-dummy/dump)
 * and, with the "pcap" option, written to a pcap file.
 *
 * Bounds and counters.  Each rx queue holds NETDEV_DUMMY_RXQ_BYTES of
 * frames; a frame injected into a full queue is refused and counted as
 * rx_ring_full ("rx queue full").  The capture keeps the last
 * NETDEV_DUMMY_CAPTURE_MAX transmitted frames; older ones are dropped and
 * counted (capture_dropped).  Frames reach the capture through a
 * NETDEV_DUMMY_TXQ_BYTES ring per tx queue that the control thread drains
 * every netdev_run(); a frame sent while that ring is full is still
 * transmitted (tx_packets) but not captured (capture_overflow).
 *
 * Every function here runs on the control thread.
 */
#ifndef NETDEV_DUMMY_H
#define NETDEV_DUMMY_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct netdev;

#define NETDEV_DUMMY_RXQ_BYTES (256 * 1024)
#define NETDEV_DUMMY_TXQ_BYTES (256 * 1024)
#define NETDEV_DUMMY_CAPTURE_MAX 8192

/* Largest frame a dummy port receives or transmits. */
#define NETDEV_DUMMY_FRAME_MAX 65535

/* Smallest frame a dummy port receives: an Ethernet header. */
#define NETDEV_DUMMY_FRAME_MIN 14

/* Lets netdev_open() make dummy ports; until then it refuses the type with
 * an error that names --enable-dummy.  A dummy port in a production config
 * would forward nothing, so it takes a flag: pmdswitchd --enable-dummy
 * calls this, as do tests. */
void netdev_dummy_enable(void);

/* True once netdev_dummy_enable() has been called. */
bool netdev_dummy_is_enabled(void);

/* True if 'netdev' is a dummy port. */
bool netdev_is_dummy(const struct netdev *);

/* Queues the 'size' bytes at 'frame' on rx queue 'qid' of dummy port
 * 'netdev', as if received there; the PMD polling the queue picks it up.
 * Returns 0; ENOBUFS if the queue is full (the frame is counted as
 * rx_ring_full); or EINVAL for a bad 'qid' or size, with nothing
 * counted. */
int netdev_dummy_receive(struct netdev *, int qid, const void *frame,
                         size_t size);

/* A transmitted frame. */
struct netdev_dummy_frame {
    uint8_t *data;              /* malloc'd. */
    size_t size;
};

/* What a dummy port transmitted, oldest first. */
struct netdev_dummy_capture {
    struct netdev_dummy_frame *frames;
    size_t n;
    uint64_t n_captured;        /* Frames captured since the port opened. */
    uint64_t n_dropped;         /* capture_dropped: the oldest, dropped
                                 * when the capture was full. */
    uint64_t n_overflow;        /* capture_overflow: transmitted while a
                                 * tx queue's ring was full. */
};

/* Fills 'cap' with the frames dummy port 'netdev' transmitted and still
 * holds, oldest first (frames sent by different PMDs since the last drain
 * come in tx queue order), after draining its tx queues.  With 'clear'
 * the port then forgets them.  Free 'cap' with
 * netdev_dummy_capture_uninit(). */
void netdev_dummy_get_capture(struct netdev *, bool clear,
                              struct netdev_dummy_capture *cap);
void netdev_dummy_capture_uninit(struct netdev_dummy_capture *cap);

#endif /* netdev-dummy.h */
