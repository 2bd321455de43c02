/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Merging TCP segments into one GSO frame (receive offload done by the
 * switch), so that a port that takes GSO frames hands the receiving stack
 * one large frame instead of forty: the inverse of gso.h.
 *
 * A segment may join a group only when nothing is lost by merging, by the
 * rules the kernel's own GRO applies: Ethernet with at most one VLAN tag;
 * IPv4 without options or fragmentation, with DF set, or IPv6 without
 * extension headers; TCP with ACK and at most PSH set, and payload; the
 * same addresses, ports, VLAN, TOS or traffic class and flow label, TTL
 * or hop limit, acknowledgement number, window and TCP options (so equal
 * timestamps) as the group's first segment; a sequence number right after
 * the group's data; and no more payload than the first segment's, which
 * becomes the GSO size.  A segment shorter than that, or with PSH, ends
 * its group.  The checksum of a segment must be known good: left to the
 * device by a local sender (VIRTIO_NET_HDR_F_NEEDS_CSUM), verified by the
 * kernel (VIRTIO_NET_HDR_F_DATA_VALID), or verified here.
 *
 * The merged frame carries the first segment's headers with the lengths
 * and IPv4 header checksum of the whole, PSH if the last segment had it,
 * and a virtio_net_hdr that asks for TCP segmentation at the GSO size and
 * for the TCP checksum (the field holds the pseudo-header sum), as a local
 * sender with TSO would hand it over.  Any thread.
 */
#ifndef GRO_H
#define GRO_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_packet;

/* Largest merged frame: an IPv4 total length must fit in 16 bits. */
#define GRO_MAX_FRAME 65535

/* What gro_parse() learns of a segment. */
struct gro_seg {
    const struct dp_packet *p;
    uint32_t l3, l4;            /* Header offsets. */
    uint32_t hdr_len;           /* Through the TCP options. */
    uint32_t payload;           /* TCP payload bytes. */
    uint32_t seq;               /* TCP sequence number. */
    uint8_t tcp_flags;
    bool ipv4;                  /* Else IPv6. */
};

/* A run of segments of one flow that merge into one frame. */
struct gro_group {
    struct gro_seg first;
    uint32_t next_seq;          /* Sequence number that may join next. */
    uint32_t size;              /* Of the merged frame so far. */
    uint32_t n_segs;
    bool closed;                /* A short or PSH segment ended it. */
    const struct dp_packet *segs[64];
};

/* Parses 'p'.  Returns true, with '*seg' filled in, if it is a TCP segment
 * that may be merged as far as its headers tell (see above); its checksum
 * is looked at only once it would join a group. */
bool gro_parse(const struct dp_packet *p, struct gro_seg *seg);

/* Starts 'g' with segment 'seg'. */
void gro_group_start(struct gro_group *g, const struct gro_seg *seg);

/* True if 'seg' is of the same flow as 'g' (whether or not it may join). */
bool gro_same_flow(const struct gro_group *g, const struct gro_seg *seg);

/* Adds 'seg' (of the same flow) to 'g' and returns true if it may join
 * it; returns false, changing nothing, if not.  The checksums of 'seg'
 * and, for the first join, of the group's first segment are verified
 * here when no flag says they are good: a segment with a bad one is never
 * merged (the receiver drops it as it would have anyway). */
bool gro_group_add(struct gro_group *g, const struct gro_seg *seg);

/* Writes the merged frame of 'g' (2 segments or more) into 'buf', of at
 * least g->size bytes, and makes 'out' describe it, with the first
 * segment's input port and RSS hash. */
void gro_merge(const struct gro_group *g, uint8_t *buf,
               struct dp_packet *out);

#endif /* gro.h */
