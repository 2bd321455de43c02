/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Sending GSO frames to a port that cannot take them whole (dp_port
 * 'tx_gso'): an afxdp or dummy port, a tap that did not negotiate TSO or
 * USO.  Such a frame is cut in software (packet/gso.h) into segments
 * that go out in order with the batch's other frames, instead of being
 * dropped as too big.  A frame that cannot be cut is dropped and counted
 * (drop_gso in pmd-stats-show).  Each PMD keeps a batch's worth of
 * segment buffers and reuses them once the port has copied the segments
 * out, so nothing is allocated while forwarding.  PMD only.
 */
#ifndef TX_GSO_H
#define TX_GSO_H 1

#include <stdint.h>
#include "packet/dp-batch.h"

struct dp_capture;
struct dp_port;
struct pmd;

/* Largest segment a buffer holds: a jumbo frame's worth of payload after
 * the headers.  Larger segments are dropped as drop_gso. */
#define TX_GSO_BUF_SIZE (9216 + 256)

/* A PMD's segment buffers. */
struct tx_gso {
    uint8_t *bufs;              /* DP_BATCH_SIZE of TX_GSO_BUF_SIZE. */
    struct dp_packet pkts[DP_BATCH_SIZE];
};

void tx_gso_init(struct tx_gso *);
void tx_gso_uninit(struct tx_gso *);

/* True if 'batch' holds a GSO frame that 'port' cannot take whole. */
bool tx_gso_needed(const struct dp_port *port, const struct dp_batch *batch);

/* Sends 'batch' to 'port' (number 'port_no'), cutting the GSO frames it
 * cannot take, as pmd_send__() would send it otherwise: counted in the
 * PMD's sent_packets and sent_batches, copied to 'cap' (may be NULL) as
 * sent.  Leaves 'batch' empty. */
void tx_gso_send(struct pmd *, struct dp_port *port, uint16_t port_no,
                 struct dp_batch *batch, const struct dp_capture *cap);

#endif /* tx-gso.h */
