/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Translation of mirrors (mirror.h): the copies a translation adds to its
 * actions.  xlate.c calls in at three points: xlate_mirror_input() when
 * the packet enters a bridge, before the rules; xlate_mirror() after each
 * output, from xlate_port_output(); xlate_mirror_finish() once the
 * actions are complete.  A copy is an ordinary output (with the VLAN
 * actions the mirror's output port wants) followed by the actions that
 * put the outer tag back, so that what follows the copy sees the packet
 * as it was.
 *
 * Which mirrors a port meets and where their copies go is mirror.c's
 * business; this file decides when to ask and keeps, in the xlate_ctx,
 * which outputs already had a copy in this bridge and which mirrors the
 * flow credits.
 */
#include <autoconf.h>
#include "ofproto/xlate-private.h"

#include "base/coverage.h"
#include "base/util.h"
#include "ofproto/mirror.h"
#include "ofproto/ofproto-private.h"

/* Frames received on a mirror's output port, which the bridge drops. */
COVERAGE_DEFINE(mirror_drop_output_port_input);

/* Sends a mirror's copy of the packet, of 'vlan', to 'out', tagged as
 * 'out' wants that VLAN, then puts the outer tag back as it was for the
 * actions that follow. */
static void
xlate_mirror_output(struct xlate_ctx *ctx, const struct ofproto_port *out,
                    uint16_t vlan)
{
    ovs_be16 cur = xlate_vlan_current(ctx);
    ovs_be16 tci0 = ctx->flow.vlans_tci[0], tci1 = ctx->flow.vlans_tci[1];
    ovs_be16 tpid0 = ctx->flow.vlans_tpid[0];
    bool flooding = ctx->flooding;
    uint32_t start;

    ctx->flooding = true;       /* A copy depends on no port's link. */
    xlate_vlan_commit(ctx, ofproto_port_output_vid(&out->s, vlan));
    xlate_port_output(ctx, out, vlan);
    ctx->flooding = flooding;

    start = ctx->out->n_actions;
    if (!cur) {
        xlate_vlan_pop(ctx);
    } else if (!xlate_vlan_current(ctx)) {
        /* The tag goes back whole, priority and TPID included. */
        ctx->out->mask.vlans_tci[0] = htons(0xffff);
        ctx->out->mask.vlans_tpid[0] = htons(0xffff);
        xlate_vlan_push(ctx, tpid0, tci0);
    } else if ((xlate_vlan_current(ctx) ^ cur) & htons(VLAN_VID_MASK)) {
        xlate_vlan_set_tci(ctx, tci0, htons(VLAN_VID_MASK));
    }
    ctx->flow.vlans_tci[0] = tci0;
    ctx->flow.vlans_tci[1] = tci1;
    ctx->vlan_tci = cur;
    if (!ctx->depth) {
        ctx->unmirror_start = start;
        ctx->unmirror_end = ctx->out->n_actions;
    }
}

/* Copies the packet as it is now for each of 'mirrors' that selects its
 * VLAN, as bridge port 'port' sees it ('port' received it or was just
 * given it), unless the mirror's output had a copy already in this
 * bridge.  Open vSwitch's mirror_packet(). */
void
xlate_mirror(struct xlate_ctx *ctx, const struct ofproto_port *port,
             mirror_mask_t mirrors)
{
    mirror_mask_t candidates = mirrors & ~ctx->mirrored;
    struct mirror *m;
    uint16_t out_port;
    int vlan;

    if (!candidates) {
        return;
    }
    vlan = ofproto_port_input_vlan(&port->s, xlate_vlan_current(ctx));
    if (vlan < 0) {
        return;
    }
    while ((m = mirror_pick(ctx->mirror_cfg, &candidates, vlan,
                            &ctx->mirrored, &out_port))) {
        const struct ofproto_port *out = ofproto_ports_find(ctx->ports,
                                                            out_port);
        size_t i;

        for (i = 0; i < ctx->n_mirrors_used; i++) {
            if (ctx->mirrors_used[i] == m) {
                break;
            }
        }
        if (i == ctx->n_mirrors_used
            && i < ARRAY_SIZE(ctx->mirrors_used)) {
            ctx->mirrors_used[ctx->n_mirrors_used++] = m;
        }
        if (out) {
            xlate_report(ctx, "mirror %s: copy to port %s (seen on port %s, "
                         "vlan %d)", mirror_name(m), out->name, port->name,
                         vlan);
            xlate_mirror_output(ctx, out, vlan);
        }
        /* The copy may have been mirrored on (to other outputs). */
        candidates &= ~ctx->mirrored;
    }
}

/* On entry into a bridge: drops a packet received on a mirror's output
 * port (returns false) and, for the bridge the packet entered first,
 * copies it to the mirrors that select its input port. */
bool
xlate_mirror_input(struct xlate_ctx *ctx)
{
    uint16_t in_port = xlate_read_in_port(ctx);
    const struct ofproto_port *in;

    in = ofproto_ports_bundle(ctx->ports,
                              ofproto_ports_find(ctx->ports, in_port));
    if (!in) {
        return true;
    }
    if (mirror_port_is_out(ctx->mirror_cfg, in->port_no)) {
        COVERAGE_INC(mirror_drop_output_port_input);
        xlate_report(ctx, "mirror: port %s is a mirror output port, "
                     "dropping what it receives", in->name);
        return false;
    }
    if (!ctx->depth) {
        /* Input mirroring sees the packet as received. */
        xlate_mirror(ctx, in, mirror_port_src(ctx->mirror_cfg, in->port_no));
    }
    return true;
}

void
xlate_mirror_finish(struct xlate_ctx *ctx)
{
    struct xlate_out *out = ctx->out;

    if (ctx->unmirror_end && ctx->unmirror_end == out->n_actions) {
        /* Nothing follows the last mirror copy: no tag to put back. */
        out->n_actions = ctx->unmirror_start;
    }
    if (ctx->n_mirrors_used) {
        out->rule_stats = mirror_credit_get(out->rule_stats,
                                            ctx->mirrors_used,
                                            ctx->n_mirrors_used);
    }
}
