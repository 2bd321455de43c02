/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Software segmentation on transmit (tx-gso.h).
 */
#include <autoconf.h>
#include "dp/tx-gso.h"

#include <stdlib.h>

#include "base/util.h"
#include "dp/dp-capture.h"
#include "dp/dp.h"
#include "dp/pmd.h"
#include "netdev/netdev.h"
#include "packet/gso.h"

void
tx_gso_init(struct tx_gso *g)
{
    /* Large and mostly never touched: the pages come with the first
     * segment. */
    g->bufs = xmalloc(DP_BATCH_SIZE * TX_GSO_BUF_SIZE);
}

void
tx_gso_uninit(struct tx_gso *g)
{
    free(g->bufs);
}

/* The DP_PORT_GSO_* bit of GSO frame 'p'. */
static uint8_t
tx_gso_kind__(const struct dp_packet *p)
{
    uint8_t type = p->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;

    return type == VIRTIO_NET_HDR_GSO_UDP_L4 ? DP_PORT_GSO_UDP
           : type == VIRTIO_NET_HDR_GSO_UDP ? 0 : DP_PORT_GSO_TCP;
}

/* True if 'port' cannot take 'p' whole. */
static bool
tx_gso_must_cut__(const struct dp_port *port, const struct dp_packet *p)
{
    return gso_is_gso(p) && !(port->tx_gso & tx_gso_kind__(p));
}

bool
tx_gso_needed(const struct dp_port *port, const struct dp_batch *batch)
{
    for (uint32_t i = 0; i < batch->count; i++) {
        if (tx_gso_must_cut__(port, batch->packets[i])) {
            return true;
        }
    }
    return false;
}

/* Sends 'out' on 'port' and empties it; its segment buffers may be reused
 * afterwards, since a port copies what it sends before returning. */
static void
tx_gso_flush__(struct pmd *pmd, struct dp_port *port, uint16_t port_no,
               struct dp_batch *out, const struct dp_capture *cap)
{
    if (!out->count) {
        return;
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_SENT_PACKETS, out->count);
    pmd_perf_add(&pmd->perf, PMD_STAT_SENT_BATCHES, 1);
    if (cap) {
        dp_capture_batch(cap, pmd, out, port_no, true);
    }
    netdev_send(port->netdev, pmd->bond_slot, out);
    dp_batch_init(out);
}

/* Cuts 'p' into segments queued on 'out', sending 'out' whenever it is
 * full.  Returns false if 'p' cannot be cut. */
static bool
tx_gso_cut__(struct pmd *pmd, struct dp_port *port, uint16_t port_no,
             const struct dp_packet *p, struct dp_batch *out,
             uint32_t *n_bufs, const struct dp_capture *cap)
{
    struct tx_gso *g = &pmd->tx_gso;
    struct gso_iter it;

    if (gso_start(&it, p, 0) != GSO_OK) {
        return false;
    }
    if (port->tx_max_frame
        && gso_max_segment_size(&it) > port->tx_max_frame) {
        /* The port's frames are smaller than the sender's segments (a
         * tunnel's underlay): cut TCP to fit the port instead.  UDP
         * datagrams keep their boundaries, so they cannot be cut smaller:
         * dropped as segments too big for the port. */
        if (!it.tcp || port->tx_max_frame <= it.hdr_len
            || gso_start(&it, p, port->tx_max_frame - it.hdr_len)
               != GSO_OK) {
            return false;
        }
    }
    if (gso_max_segment_size(&it) > TX_GSO_BUF_SIZE) {
        return false;
    }
    pmd_perf_add(&pmd->perf, PMD_STAT_GSO_FRAMES, 1);
    pmd_perf_add(&pmd->perf, PMD_STAT_GSO_SEGMENTS, gso_n_segments(&it));
    pmd_tx_offload_add(&pmd->tx_offload[port_no].gso_frames, 1);
    pmd_tx_offload_add(&pmd->tx_offload[port_no].gso_segments,
                         gso_n_segments(&it));
    for (;;) {
        struct dp_packet *seg;

        if (*n_bufs == DP_BATCH_SIZE || dp_batch_is_full(out)) {
            tx_gso_flush__(pmd, port, port_no, out, cap);
            *n_bufs = 0;
        }
        seg = &g->pkts[*n_bufs];
        if (!gso_next(&it, g->bufs + *n_bufs * TX_GSO_BUF_SIZE,
                      TX_GSO_BUF_SIZE, seg)) {
            return true;
        }
        (*n_bufs)++;
        dp_batch_add(out, seg);
    }
}

void
tx_gso_send(struct pmd *pmd, struct dp_port *port, uint16_t port_no,
            struct dp_batch *batch, const struct dp_capture *cap)
{
    struct dp_batch out;
    uint32_t n_bufs = 0;

    dp_batch_init(&out);
    for (uint32_t i = 0; i < batch->count; i++) {
        struct dp_packet *p = batch->packets[i];

        if (!tx_gso_must_cut__(port, p)) {
            if (dp_batch_is_full(&out)) {
                tx_gso_flush__(pmd, port, port_no, &out, cap);
                n_bufs = 0;
            }
            dp_batch_add(&out, p);
        } else if (!tx_gso_cut__(pmd, port, port_no, p, &out, &n_bufs,
                                 cap)) {
            pmd_perf_add(&pmd->perf, PMD_STAT_DROP_GSO, 1);
            if (cap) {
                dp_capture_drop(cap, pmd, p, DP_DROP_GSO, port_no);
            }
        }
    }
    tx_gso_flush__(pmd, port, port_no, &out, cap);
    dp_batch_init(batch);
}
