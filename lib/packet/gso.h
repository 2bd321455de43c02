/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Software segmentation of GSO frames, for ports that cannot take them
 * whole: an afxdp port (AF_XDP has no offload metadata), a dummy port, a
 * tap that did not negotiate TSO.  A GSO frame is one large TCP segment
 * or UDP datagram that its sender left for the device to cut, described
 * by its virtio_net_hdr: the type (TCP over IPv4 or IPv6, or UDP
 * segmentation), the payload of each segment (gso_size) and where the
 * transport header starts (csum_start).
 *
 * Each segment gets the frame's headers (Ethernet, VLAN tags, IPv4 with
 * options or IPv6 with extension headers, TCP or UDP) and gso_size bytes
 * of payload (the last one the rest), then, as the kernel's own software
 * GSO does: IPv4 total length, an ID one more than the segment before and
 * the header checksum; IPv6 payload length; the TCP sequence number moved
 * on, FIN and PSH only on the last segment and CWR only on the first; the
 * UDP length; and the TCP or UDP checksum in full, since the port cannot
 * finish a partial one.  Segments carry no offload metadata.
 *
 * Segmentation goes a segment at a time (struct gso_iter), into buffers
 * the caller recycles, so no allocation happens on the PMD.  Any thread.
 */
#ifndef GSO_H
#define GSO_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_net.h>

struct dp_packet;

/* UDP segmentation (USO) in a virtio_net_hdr, which kernel headers before
 * 6.2 do not name; newer kernels hand it over on packet sockets and taps. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* Why a GSO frame cannot be segmented. */
enum gso_error {
    GSO_OK,
    GSO_UNSUPPORTED,            /* A GSO type other than TCPv4, TCPv6 or
                                 * UDP_L4 (UFO fragments, which nothing
                                 * here does). */
    GSO_MALFORMED,              /* Headers or offsets that do not fit the
                                 * frame, gso_size 0, a network header of
                                 * the wrong version. */
};

/* Where segmentation of one frame stands. */
struct gso_iter {
    const struct dp_packet *p;  /* The GSO frame. */
    uint32_t l3;                /* Offset of the IP header. */
    uint32_t l4;                /* Offset of the TCP or UDP header. */
    uint32_t hdr_len;           /* Bytes of headers each segment repeats. */
    uint32_t mss;               /* Payload bytes per segment. */
    uint32_t offset;            /* Of the next segment's payload. */
    uint32_t index;             /* Of the next segment, from 0. */
    bool ipv4;                  /* Else IPv6. */
    bool tcp;                   /* Else UDP. */
};

/* True if 'p' is a frame that gso_start() segments (it carries offload
 * metadata with a GSO type). */
bool gso_is_gso(const struct dp_packet *p);

/* Prepares to segment GSO frame 'p' into segments of at most 'mss'
 * payload bytes (0: the frame's gso_size).  Returns GSO_OK, or why it
 * cannot be segmented. */
enum gso_error gso_start(struct gso_iter *, const struct dp_packet *p,
                         uint32_t mss);

/* Bytes the largest segment of 'it' takes. */
uint32_t gso_max_segment_size(const struct gso_iter *it);

/* Writes the next segment of 'it' into 'buf' ('buf_size' bytes, at least
 * gso_max_segment_size()) and makes 'seg' describe it, with the frame's
 * input port and RSS hash.  Returns false, touching nothing, when every
 * segment was written. */
bool gso_next(struct gso_iter *, uint8_t *buf, size_t buf_size,
              struct dp_packet *seg);

/* How many segments 'it' makes in all. */
uint32_t gso_n_segments(const struct gso_iter *it);

#endif /* gso.h */
