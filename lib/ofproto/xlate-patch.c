/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Translation of an output to a patch port: the packet crosses into the
 * peer bridge, whose rules (xlate_rules()) translate it within the same
 * translation, so that one megaflow carries what every bridge on the way
 * decided.  The crossing is a DP_ACTION_PATCH whose nested actions are
 * the peer bridge's; the datapath runs them on a copy unless nothing
 * follows (xlate_patch_unnest_tail()).
 */
#include <autoconf.h>
#include "ofproto/xlate-private.h"

#include "base/coverage.h"
#include "ofproto/mirror.h"
#include "ofproto/ofproto-private.h"

/* Outputs to patch ports that did not cross: no peer, a bridge the packet
 * was in already (what keeps patch loops from forming), too deep. */
COVERAGE_DEFINE(patch_drop_no_peer);
COVERAGE_DEFINE(patch_drop_bridge_visited);
COVERAGE_DEFINE(patch_drop_too_deep);

/* Outputs the packet as it is now to patch port 'port': it is received on
 * the peer port of the peer bridge, which translates it there and then,
 * into actions that run on a copy (DP_ACTION_PATCH), so that what that
 * bridge does to the packet does not change what this one outputs next.
 * The packet enters each bridge at most once per translation: a patch
 * that would lead back into a bridge it was in drops that copy, so patch
 * ports can form no loop, and two patches between the same two bridges
 * deliver it once. */
void
xlate_patch_output(struct xlate_ctx *ctx, const struct ofproto_port *port)
{
    struct ofproto *peer = port->patch_peer;
    struct rule_stats *rule_stats = ctx->out->rule_stats;
    struct xlate_ctx saved = *ctx;
    char port_s[XLATE_PORT_STRING_SIZE];
    struct dp_action a;
    uint32_t at;

    if (!peer) {
        COVERAGE_INC(patch_drop_no_peer);
        xlate_report(ctx, "patch: port %s has no peer, dropping",
                     port->name);
        return;
    }
    if (ctx->bridges & (UINT64_C(1) << peer->index)) {
        COVERAGE_INC(patch_drop_bridge_visited);
        xlate_report(ctx, "patch: port %s leads back into bridge %s, which "
                     "this packet was in already, dropping", port->name,
                     peer->name);
        return;
    }
    if (ctx->depth >= XLATE_MAX_PATCH_DEPTH) {
        COVERAGE_INC(patch_drop_too_deep);
        xlate_report(ctx, "patch: port %s: %d patch ports in a row, "
                     "dropping", port->name, ctx->depth);
        return;
    }

    dp_action_init(&a, DP_ACTION_PATCH);
    a.port = port->port_no;
    a.patch.peer = port->patch_peer_port;
    at = ctx->out->n_actions;
    xlate_emit(ctx, &a);
    if (ctx->error) {
        return;
    }
    ctx->ofproto = peer;
    ctx->ports = ofproto_ports_get(peer);
    ctx->mirror_cfg = mirror_config_get(peer);
    ctx->mirrored = 0;          /* Each bridge mirrors on its own. */
    ctx->flow.in_port = port->patch_peer_port;
    ctx->bridges |= UINT64_C(1) << peer->index;
    ctx->depth++;
    ctx->flooding = false;      /* The peer bridge decides for itself. */
    xlate_report(ctx, "patch: %s crosses to bridge %s, in_port %s",
                 port->name, peer->name,
                 xlate_port_string(ctx, port->patch_peer_port, port_s));
    xlate_rules(ctx);
    ctx->out->actions[at].patch.n_nested = ctx->out->n_actions - at - 1;

    /* Back in this bridge, with the packet as it was before the copy.
     * The flow keeps crediting this bridge's rule. */
    ctx->ofproto = saved.ofproto;
    ctx->ports = saved.ports;
    ctx->mirror_cfg = saved.mirror_cfg;
    ctx->mirrored = saved.mirrored;
    ctx->flow = saved.flow;
    ctx->vlan_known = saved.vlan_known;
    ctx->vlan_tci = saved.vlan_tci;
    ctx->depth = saved.depth;
    ctx->flooding = saved.flooding;
    ctx->out->rule_stats = rule_stats;
    xlate_report(ctx, "patch: back in bridge %s", ctx->ofproto->name);
}

/* A copy made for a patch crossing that no action follows is not needed:
 * the packet is not used afterwards.  Makes such a crossing (the last of
 * the 'n' actions of 'actions', and so on inside it) run in place. */
void
xlate_patch_unnest_tail(struct dp_action *actions, uint32_t n)
{
    uint32_t last = UINT32_MAX;

    for (uint32_t i = 0; i < n; i++) {
        last = i;
        if (actions[i].type == DP_ACTION_PATCH) {
            i += actions[i].patch.n_nested;
        }
    }
    if (last != UINT32_MAX && actions[last].type == DP_ACTION_PATCH
        && last + 1 + actions[last].patch.n_nested == n) {
        xlate_patch_unnest_tail(&actions[last + 1],
                                actions[last].patch.n_nested);
        actions[last].patch.n_nested = 0;
    }
}
