/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Merging the TCP segments of an output batch (tx-gro.h).
 */
#include <autoconf.h>
#include "dp/tx-gro.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "dp/pmd.h"

void
tx_gro_init(struct tx_gro *g)
{
    /* Large and mostly never touched: pages come with the first merge. */
    g->bufs = xmalloc(TX_GRO_MAX_GROUPS * GRO_MAX_FRAME);
}

void
tx_gro_uninit(struct tx_gro *g)
{
    free(g->bufs);
}

/* The open group of 'seg''s flow among the first 'n' of 'g', or -1. */
static int
tx_gro_find__(const struct tx_gro *g, const bool *is_open, int n,
              const struct gro_seg *seg)
{
    for (int i = 0; i < n; i++) {
        if (is_open[i] && gro_same_flow(&g->groups[i], seg)) {
            return i;
        }
    }
    return -1;
}

void
tx_gro_batch(struct pmd *pmd, uint16_t port_no, struct dp_batch *batch)
{
    struct tx_gro *g = &pmd->tx_gro;
    struct dp_packet *out[DP_BATCH_SIZE];
    int8_t out_group[DP_BATCH_SIZE];    /* Group at each slot, or -1. */
    bool is_open[TX_GRO_MAX_GROUPS];
    uint32_t n_out = 0, n_joined = 0;
    uint32_t n_frames = 0, n_segments = 0;
    int n_groups = 0;

    for (uint32_t i = 0; i < batch->count; i++) {
        struct dp_packet *p = batch->packets[i];
        struct gro_seg seg;
        int k;

        if (!gro_parse(p, &seg)) {
            /* Whatever it is, nothing may pass it. */
            memset(is_open, 0, sizeof is_open);
            out_group[n_out] = -1;
            out[n_out++] = p;
            continue;
        }
        k = tx_gro_find__(g, is_open, n_groups, &seg);
        if (k >= 0) {
            if (gro_group_add(&g->groups[k], &seg)) {
                n_joined++;
                continue;
            }
            is_open[k] = false;
        }
        out_group[n_out] = -1;
        if (n_groups < TX_GRO_MAX_GROUPS) {
            gro_group_start(&g->groups[n_groups], &seg);
            is_open[n_groups] = true;
            out_group[n_out] = n_groups++;
        }
        out[n_out++] = p;
    }
    if (!n_joined) {
        return;                 /* 'out' is 'batch' as it was. */
    }
    for (uint32_t i = 0; i < n_out; i++) {
        int k = out_group[i];

        if (k >= 0 && g->groups[k].n_segs > 1) {
            gro_merge(&g->groups[k], g->bufs + (size_t) k * GRO_MAX_FRAME,
                      &g->pkts[k]);
            out[i] = &g->pkts[k];
            n_frames++;
            n_segments += g->groups[k].n_segs;
        }
        batch->packets[i] = out[i];
    }
    batch->count = n_out;
    pmd_perf_add(&pmd->perf, PMD_STAT_GRO_FRAMES, n_frames);
    pmd_perf_add(&pmd->perf, PMD_STAT_GRO_SEGMENTS, n_segments);
    pmd_tx_offload_add(&pmd->tx_offload[port_no].gro_frames, n_frames);
    pmd_tx_offload_add(&pmd->tx_offload[port_no].gro_segments,
                         n_segments);
}
