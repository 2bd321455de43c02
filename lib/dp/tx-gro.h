/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Merging the TCP segments of an output batch (packet/gro.h) before it
 * goes to a port that takes TCP GSO frames (a packet socket, a tap with
 * TSO): the receiving stack then handles one large frame for each run of
 * in-order segments of a flow, as if its own device had done GRO.
 *
 * Within the batch, a segment joins the open group of its flow when it
 * follows it exactly; a segment that cannot (out of order, retransmitted,
 * other headers, a bad checksum) closes that group and starts a new one,
 * and any frame that is not a mergeable TCP segment closes every group.
 * A group takes the batch position of its first segment, so the frames of
 * each flow stay in order.  At most TX_GRO_MAX_GROUPS frames are merged
 * per batch, into buffers each PMD keeps and reuses once the port has
 * copied them out.  PMD only.
 */
#ifndef TX_GRO_H
#define TX_GRO_H 1

#include <stdint.h>
#include "packet/dp-batch.h"
#include "packet/gro.h"

struct pmd;

/* Merged frames per batch, each with a buffer of GRO_MAX_FRAME bytes. */
#define TX_GRO_MAX_GROUPS 8

/* A PMD's merge state and buffers. */
struct tx_gro {
    uint8_t *bufs;              /* TX_GRO_MAX_GROUPS of GRO_MAX_FRAME. */
    struct dp_packet pkts[TX_GRO_MAX_GROUPS];
    struct gro_group groups[TX_GRO_MAX_GROUPS];
};

void tx_gro_init(struct tx_gro *);
void tx_gro_uninit(struct tx_gro *);

/* Replaces each run of mergeable TCP segments of a flow in 'batch', bound
 * for port 'port_no', by one GSO frame, keeping every flow's order, and
 * counts what it merged in the PMD's gro_frames and gro_segments and in
 * the port's tx_gro_frames and tx_gro_segments.  The merged frames stay
 * valid until the next call on the same PMD. */
void tx_gro_batch(struct pmd *, uint16_t port_no, struct dp_batch *batch);

#endif /* tx-gro.h */
