/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Translation of a missed packet into datapath actions and a megaflow
 * mask: the rule table, the NORMAL action (a VLAN-aware learning bridge
 * with bonds), the VLAN tag operations and the decision trace.  It reads
 * the bridge through ofproto-private.h; upcall.c calls it.  Mirrors
 * (xlate-mirror.c) and patch ports (xlate-patch.c) are translated in
 * files of their own, which share 'struct xlate_ctx' and the helpers
 * below through xlate-private.h.
 *
 * A translation runs in a 'struct xlate_ctx'.  Stages read the packet's
 * flow only through the xlate_read_*() helpers, which add the bits they
 * read to the mask; that is what keeps the mask exact (neither wider nor
 * narrower than the decision) whatever stages run.  Output goes through
 * xlate_emit(), which enforces XLATE_MAX_ACTIONS.  The port set is
 * loaded once per translation, so one translation sees one port set.
 */
#include <autoconf.h>
#include "ofproto/xlate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ofproto/bond.h"
#include "ofproto/change-log.h"
#include "base/coverage.h"
#include "packet/flow-format.h"
#include "ofproto/mac-learning.h"
#include "ofproto/mirror.h"
#include "ofproto/ofproto-private.h"
#include "ofproto/ofproto-rules.h"
#include "ofproto/xlate-private.h"
#include "base/util.h"

/* Why NORMAL decided to drop, and MAC moves, for coverage/show. */
COVERAGE_DEFINE(normal_drop_learned_on_input);
COVERAGE_DEFINE(normal_drop_reserved_multicast);
COVERAGE_DEFINE(normal_drop_learned_port_gone);
COVERAGE_DEFINE(normal_drop_learned_port_vlan);
COVERAGE_DEFINE(normal_drop_unknown_in_port);
COVERAGE_DEFINE(normal_drop_vlan_not_allowed);
COVERAGE_DEFINE(normal_drop_untagged_not_allowed);
COVERAGE_DEFINE(normal_mac_moved);
COVERAGE_DEFINE(normal_learn_over_port_limit);
COVERAGE_DEFINE(normal_learn_rate_limited);
/* Packets the rule table dropped because no rule matched. */
COVERAGE_DEFINE(rule_table_miss);
/* Frames a bond drops on input (see ofproto_port_set_bond()). */
COVERAGE_DEFINE(bond_drop_backup_member);
COVERAGE_DEFINE(bond_drop_reflection);
/* Translations that failed for want of room (see XLATE_MAX_ACTIONS). */
COVERAGE_DEFINE(xlate_too_many_actions);

/* Translation: output and trace. */

/* Appends 'action' to the datapath actions, or fails the translation with
 * E2BIG when they are full. */
void
xlate_emit(struct xlate_ctx *ctx, const struct dp_action *action)
{
    struct xlate_out *out = ctx->out;

    if (out->n_actions >= XLATE_MAX_ACTIONS) {
        if (!ctx->error) {
            COVERAGE_INC(xlate_too_many_actions);
            ctx->error = E2BIG;
        }
        return;
    }
    out->actions[out->n_actions++] = *action;
}

/* Records that the decision depends on change key 'key' of the current
 * bridge. */
static void
xlate_add_dep(struct xlate_ctx *ctx, uint64_t key)
{
    struct xlate_out *out = ctx->out;
    uint8_t bridge = ctx->ofproto->index;

    for (uint8_t i = 0; i < out->n_deps; i++) {
        if (out->deps[i].key == key && out->deps[i].bridge == bridge) {
            return;
        }
    }
    if (out->n_deps < XLATE_MAX_DEPS) {
        out->deps[out->n_deps++] = (struct xlate_dep) { key, bridge };
    } else {
        out->wide |= UINT64_C(1) << bridge;
    }
}

static void
xlate_output(struct xlate_ctx *ctx, uint16_t port_no)
{
    struct dp_action a;

    /* A flood depends on its port set as a whole (change_key_flood()). */
    if (!ctx->flooding) {
        xlate_add_dep(ctx, change_key_port(port_no));
    }
    dp_action_init(&a, DP_ACTION_OUTPUT);
    a.port = port_no;
    xlate_emit(ctx, &a);
}

/* Translation: the packet's outer VLAN tag.  These emit the actions that
 * change it and keep 'ctx->flow' in step, so that later stages see the
 * packet as it will leave. */

/* The outer TCI (VID and CFI only; 0 if untagged) as the packet is now. */
ovs_be16
xlate_vlan_current(struct xlate_ctx *ctx)
{
    if (!ctx->vlan_known) {
        ctx->vlan_tci = xlate_read_outer_tci(ctx,
                                             htons(VLAN_VID_MASK | VLAN_CFI));
        if (!(ctx->vlan_tci & htons(VLAN_CFI))) {
            ctx->vlan_tci = 0;
        }
        ctx->vlan_known = true;
    }
    return ctx->vlan_tci;
}

/* Pushes a tag with 'tpid' and 'tci' (CFI set by the caller). */
void
xlate_vlan_push(struct xlate_ctx *ctx, ovs_be16 tpid, ovs_be16 tci)
{
    struct dp_action a;

    xlate_vlan_current(ctx);
    dp_action_init(&a, DP_ACTION_PUSH_VLAN);
    a.vlan.tpid = tpid;
    a.vlan.tci = tci;
    xlate_emit(ctx, &a);
    memmove(&ctx->flow.vlans_tci[1], &ctx->flow.vlans_tci[0],
            sizeof ctx->flow.vlans_tci[0]);
    ctx->flow.vlans_tci[0] = tci;
    ctx->vlan_tci = tci & htons(VLAN_VID_MASK | VLAN_CFI);
}

/* Pops the outer tag, if there is one. */
void
xlate_vlan_pop(struct xlate_ctx *ctx)
{
    struct dp_action a;

    if (!xlate_vlan_current(ctx)) {
        return;
    }
    dp_action_init(&a, DP_ACTION_POP_VLAN);
    xlate_emit(ctx, &a);
    ctx->flow.vlans_tci[0] = ctx->flow.vlans_tci[1];
    ctx->flow.vlans_tci[1] = 0;
    /* What lies under the popped tag was not looked at: assume nothing
     * more to pop, which is what a single-tagged frame has. */
    ctx->vlan_tci = 0;
}

/* Sets the bits 'mask' of the outer tag's TCI to 'tci', if tagged. */
void
xlate_vlan_set_tci(struct xlate_ctx *ctx, ovs_be16 tci, ovs_be16 mask)
{
    struct dp_action a;

    if (!xlate_vlan_current(ctx)) {
        return;
    }
    dp_action_init(&a, DP_ACTION_SET_VLAN_TCI);
    a.vlan.tci = tci & mask;
    a.vlan.tci_mask = mask;
    xlate_emit(ctx, &a);
    ctx->flow.vlans_tci[0] = (ctx->flow.vlans_tci[0] & ~mask) | (tci & mask);
    ctx->vlan_tci = ctx->flow.vlans_tci[0] & htons(VLAN_VID_MASK | VLAN_CFI);
}

/* The VID of the packet's outer tag as it is now, 0 if untagged. */
static uint16_t
xlate_current_vid(struct xlate_ctx *ctx)
{
    return ntohs(xlate_vlan_current(ctx)) & VLAN_VID_MASK;
}

/* Makes the packet leave untagged ('vid' 0) or tagged with 'vid', with
 * the least actions; a tag that stays keeps its priority bits. */
void
xlate_vlan_commit(struct xlate_ctx *ctx, uint16_t vid)
{
    ovs_be16 cur = xlate_vlan_current(ctx);

    if (!vid) {
        xlate_vlan_pop(ctx);
    } else if (!cur) {
        xlate_vlan_push(ctx, htons(ETH_TYPE_VLAN_8021Q),
                        htons(VLAN_CFI | vid));
    } else if ((ntohs(cur) & VLAN_VID_MASK) != vid) {
        xlate_vlan_set_tci(ctx, htons(vid), htons(VLAN_VID_MASK));
    }
}

/* Appends one line to the trace, if tracing. */
void
xlate_report(struct xlate_ctx *ctx, const char *format, ...)
{
    static const char ellipsis[] = "...\n";
    struct xlate_out *out = ctx->out;
    char line[256];
    va_list args;
    size_t len;
    int n;

    if (!ctx->tracing || ctx->trace_full) {
        return;
    }
    va_start(args, format);
    n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    len = n < 0 ? 0 : MIN((size_t) n, sizeof line - 1);

    /* Keep room for the ellipsis and the NUL. */
    if (out->trace_len + len + 1 + sizeof ellipsis > sizeof out->trace) {
        memcpy(&out->trace[out->trace_len], ellipsis, sizeof ellipsis);
        out->trace_len += sizeof ellipsis - 1;
        ctx->trace_full = true;
        return;
    }
    memcpy(&out->trace[out->trace_len], line, len);
    out->trace_len += len;
    out->trace[out->trace_len++] = '\n';
    out->trace[out->trace_len] = '\0';
}

/* Formats 'port_no' and its name for the trace into 'buf'. */
const char *
xlate_port_string(const struct xlate_ctx *ctx, uint16_t port_no,
                  char buf[XLATE_PORT_STRING_SIZE])
{
    const struct ofproto_port *port = ofproto_ports_find(ctx->ports, port_no);

    snprintf(buf, XLATE_PORT_STRING_SIZE, "%"PRIu16" (%s)", port_no,
             port ? port->name : "unknown");
    return buf;
}

/* The NORMAL action. */

/* Learns the source of the packet on 'in_port' in 'vlan'. */
static void
xlate_normal_learn(struct xlate_ctx *ctx, struct eth_addr dl_src,
                   uint16_t vlan, uint16_t in_port)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    enum mac_learning_result result;

    if (eth_addr_is_multicast(dl_src)) {
        xlate_report(ctx, "NORMAL: source "ETH_ADDR_FMT" is multicast, "
                     "not learning", ETH_ADDR_ARGS(dl_src));
        return;
    }
    result = mac_learning_learn(ctx->ofproto->ml, dl_src, vlan, in_port,
                                ctx->now);
    if (result == ML_MOVED) {
        COVERAGE_INC(normal_mac_moved);
    } else if (result == ML_OVER_LIMIT) {
        COVERAGE_INC(normal_learn_over_port_limit);
    } else if (result == ML_RATE_LIMITED) {
        COVERAGE_INC(normal_learn_rate_limited);
    }
    if (!ctx->tracing) {
        return;
    }
    xlate_port_string(ctx, in_port, port_s);
    switch (result) {
    case ML_NEW:
        xlate_report(ctx, "NORMAL: learned "ETH_ADDR_FMT" on port %s "
                     "vlan %"PRIu16, ETH_ADDR_ARGS(dl_src), port_s, vlan);
        break;
    case ML_MOVED:
        xlate_report(ctx, "NORMAL: "ETH_ADDR_FMT" moved to port %s "
                     "vlan %"PRIu16, ETH_ADDR_ARGS(dl_src), port_s, vlan);
        break;
    case ML_OVER_LIMIT:
        xlate_report(ctx, "NORMAL: port %s is at its mac-limit, not "
                     "learning "ETH_ADDR_FMT, port_s, ETH_ADDR_ARGS(dl_src));
        break;
    case ML_RATE_LIMITED:
        xlate_report(ctx, "NORMAL: port %s learned its mac-learn-rate of "
                     "MACs this second, not learning "ETH_ADDR_FMT, port_s,
                     ETH_ADDR_ARGS(dl_src));
        break;
    case ML_NOCHANGE:
        break;
    }
}

/* Formats how 'port' carries VLANs, for the trace, into 'buf'. */
static const char *
xlate_port_vlan_string(const struct ofproto_port *port, char buf[64])
{
    const struct ofproto_port_settings *s = &port->s;

    if (s->vlan_mode == OFPROTO_VLAN_TRUNK) {
        snprintf(buf, 64, "trunk");
    } else {
        snprintf(buf, 64, "%s vlan %"PRIu16,
                 ofproto_vlan_mode_to_string(s->vlan_mode), s->tag);
    }
    return buf;
}

/* A flood depends on which ports it reaches, as one fact: the outputs
 * between these two calls record no port of their own. */
static void
xlate_flood_begin(struct xlate_ctx *ctx)
{
    xlate_add_dep(ctx, change_key_flood());
    ctx->flooding = true;
}

static void
xlate_flood_end(struct xlate_ctx *ctx)
{
    ctx->flooding = false;
}

/* Outputs the packet as it is now to 'port'.  A bond gets one
 * DP_ACTION_BOND_OUTPUT: the PMD picks the member, by the balance-slb hash
 * of the source MAC and VLAN 'vlan' (if negative: of the packet's outer
 * tag, read only then, so that other outputs leave it out of the mask) or,
 * in the other modes, by the packet's RSS hash.  A patch port crosses to
 * its peer bridge (xlate_patch_output()); then the mirrors that select
 * 'port' as a destination get their copies. */
void
xlate_port_output(struct xlate_ctx *ctx, const struct ofproto_port *port,
                  int vlan)
{
    if (port->is_patch) {
        xlate_patch_output(ctx, port);
    } else if (port->is_bond) {
        struct dp_action a;

        if (!ctx->flooding) {
            xlate_add_dep(ctx, change_key_port(port->port_no));
        }
        dp_action_init(&a, DP_ACTION_BOND_OUTPUT);
        a.port = port->port_no;
        if (port->bond_mode == BOND_MODE_BALANCE_SLB) {
            a.hash = bond_slb_hash(xlate_read_dl_src(ctx),
                                   vlan < 0 ? xlate_current_vid(ctx) : vlan);
        }
        xlate_emit(ctx, &a);
    } else {
        xlate_output(ctx, port->port_no);
    }
    if (ctx->mirror_cfg) {
        /* Output mirroring sees the packet as sent. */
        xlate_mirror(ctx, port, mirror_port_dst(ctx->mirror_cfg,
                                                port->port_no));
    }
}

/* Outputs a frame of 'vlan' to 'port', tagged or not as the port wants
 * it. */
static void
xlate_normal_output(struct xlate_ctx *ctx, const struct ofproto_port *port,
                    uint16_t vlan)
{
    xlate_vlan_commit(ctx, ofproto_port_output_vid(&port->s, vlan));
    xlate_port_output(ctx, port, vlan);
}

/* Outputs to every bridge port that carries 'vlan' except 'in_port' (a
 * bond member is not one: its bond is) and ports whose link is down
 * (ofproto_port_set_link()), in port number order within two
 * groups: first the ports that take the frame tagged if it is tagged now,
 * else those that take it untagged; then the others.  All tagged outputs
 * carry the same VID, so this emits at most two VLAN actions, and a
 * priority-tagged frame keeps its priority on the tagged outputs. */
static void
xlate_normal_flood(struct xlate_ctx *ctx, uint16_t in_port, uint16_t vlan)
{
    bool tagged_first = xlate_vlan_current(ctx) != 0;

    xlate_flood_begin(ctx);
    for (int pass = 0; pass < 2; pass++) {
        bool tagged = pass == 0 ? tagged_first : !tagged_first;

        for (size_t i = 0; i < ctx->ports->n; i++) {
            const struct ofproto_port *port = &ctx->ports->ports[i];

            if (port->port_no != in_port
                && port->bundle == port->port_no
                && ofproto_port_settings_carries(&port->s, vlan)
                && (ofproto_port_output_vid(&port->s, vlan) != 0) == tagged
                && !mirror_port_is_out(ctx->mirror_cfg, port->port_no)) {
                if (port->link_down) {
                    /* Once per port: only one pass matches it. */
                    xlate_report(ctx, "NORMAL: port %s is down, not "
                                 "flooding to it", port->name);
                    continue;
                }
                xlate_normal_output(ctx, port, vlan);
            }
        }
    }
    xlate_flood_end(ctx);
}

/* Reports in the trace and counts that 'port' does not accept a frame
 * with outer TCI 'tci' (VID and CFI). */
static void
xlate_normal_drop_vlan(struct xlate_ctx *ctx, const struct ofproto_port *port,
                       ovs_be16 tci)
{
    uint16_t vid = ntohs(tci) & VLAN_VID_MASK;
    char vlan_s[64];

    if ((tci & htons(VLAN_CFI)) && vid) {
        COVERAGE_INC(normal_drop_vlan_not_allowed);
        xlate_report(ctx, "NORMAL: port %s (%s) does not accept tagged vlan "
                     "%"PRIu16", dropping", port->name,
                     xlate_port_vlan_string(port, vlan_s), vid);
    } else {
        COVERAGE_INC(normal_drop_untagged_not_allowed);
        xlate_report(ctx, "NORMAL: port %s (%s) does not accept untagged "
                     "or priority-tagged frames, dropping", port->name,
                     xlate_port_vlan_string(port, vlan_s));
    }
}

/* Returns true if bond 'bond' admits a frame from 'dl_src' in 'vlan'
 * received on its member 'in_port'; otherwise counts and traces the drop.
 * Without LACP the bond's partner may send a frame back on another member
 * (a flood it takes for its own), so, as Open vSwitch does for SLB bonds:
 * an active-backup bond takes frames on its active member only, and a
 * balance bond drops a frame whose source MAC is learned on another
 * bridge port, since the MAC would otherwise move to the bond.  Reads the
 * MAC table, whose changes revalidate the flows. */
static bool
xlate_bond_admits(struct xlate_ctx *ctx, const struct ofproto_port *bond,
                  uint16_t in_port, struct eth_addr dl_src, uint16_t vlan)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    int learned;

    if (bond->bond_mode == BOND_MODE_ACTIVE_BACKUP) {
        if (in_port != bond->bond_active) {
            COVERAGE_INC(bond_drop_backup_member);
            xlate_report(ctx, "NORMAL: bond %s received on member %s, "
                         "which is not active, dropping", bond->name,
                         xlate_port_string(ctx, in_port, port_s));
            return false;
        }
        return true;
    }
    if (eth_addr_is_multicast(dl_src)) {
        return true;
    }
    learned = mac_learning_lookup(ctx->ofproto->ml, dl_src, vlan, ctx->now);
    if (learned >= 0 && learned != bond->port_no) {
        COVERAGE_INC(bond_drop_reflection);
        xlate_report(ctx, "NORMAL: bond %s: source "ETH_ADDR_FMT" is "
                     "learned on port %s, dropping a reflection",
                     bond->name, ETH_ADDR_ARGS(dl_src),
                     xlate_port_string(ctx, learned, port_s));
        return false;
    }
    return true;
}

/* A learning bridge.  It consults in_port; then, if that is a bridge port,
 * the outer VLAN VID and CFI; then, if the port accepts that VLAN, dl_src
 * and dl_dst, all of them in full.  The outer PCP is never read: NORMAL
 * changes a tag's VID with a masked set that keeps the priority, and a
 * pushed tag gets priority 0, so no decision depends on it.
 *
 * Wider masks would be possible in a few cases: an access port only needs
 * to know whether the VID is 0, a multicast dl_dst floods whatever its
 * other bits, and a multicast dl_src is not learned.  They stay exact
 * anyway: the flood and the output encapsulation need the VID and CFI
 * (whether there is a tag to pop or to rewrite) as soon as anything is
 * output, and every other shape would add a dpcls subtable that every
 * miss searches, for little gain. */
static void
xlate_normal(struct xlate_ctx *ctx)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    const struct ofproto_port *in, *out;
    struct eth_addr dl_src, dl_dst;
    uint16_t in_port, vlan;
    ovs_be16 tci;
    int out_port;
    int in_vlan;

    in_port = xlate_read_in_port(ctx);
    in = ofproto_ports_bundle(ctx->ports,
                              ofproto_ports_find(ctx->ports, in_port));
    if (in && in->port_no != in_port) {
        xlate_report(ctx, "NORMAL: in_port %"PRIu16" is a member of bond %s",
                     in_port, in->name);
    }
    if (!in) {
        COVERAGE_INC(normal_drop_unknown_in_port);
        xlate_report(ctx, "NORMAL: in_port %"PRIu16" is not a port of "
                     "bridge %s, dropping", in_port, ctx->ofproto->name);
        return;
    }
    tci = xlate_read_outer_tci(ctx, htons(VLAN_VID_MASK | VLAN_CFI));
    in_vlan = ofproto_port_input_vlan(&in->s, tci);
    if (in_vlan < 0) {
        xlate_normal_drop_vlan(ctx, in, tci);
        return;
    }
    vlan = in_vlan;
    dl_src = xlate_read_dl_src(ctx);
    dl_dst = xlate_read_dl_dst(ctx);

    /* Link-local control frames (STP, LACP, LLDP, ...) belong to the link
     * they arrived on: dropped before learning, as Open vSwitch does. */
    if (eth_addr_is_reserved(dl_dst)
        && !ofproto_get_forward_bpdu(ctx->ofproto)) {
        /* Counted once per frame that reaches the slow path, not again
         * when a revalidation re-translates its flow. */
        if (ctx->learn) {
            COVERAGE_INC(normal_drop_reserved_multicast);
        }
        xlate_report(ctx, "NORMAL: destination "ETH_ADDR_FMT" is reserved "
                     "multicast and forward-bpdu is false, dropping",
                     ETH_ADDR_ARGS(dl_dst));
        return;
    }

    /* Whether the source is learned (and where) decides too: a flow must
     * not keep forwarding for a source the table forgot, since its
     * packets would never be learned again (upcall_revalidate()). */
    if (!eth_addr_is_multicast(dl_src)) {
        xlate_add_dep(ctx, change_key_mac(dl_src, vlan));
    }
    if (in->is_bond && !xlate_bond_admits(ctx, in, in_port, dl_src, vlan)) {
        return;
    }
    /* From here on the bridge port is what counts, not the member. */
    in_port = in->port_no;
    if (ctx->learn) {
        xlate_normal_learn(ctx, dl_src, vlan, in_port);
    }

    if (eth_addr_is_multicast(dl_dst)) {
        xlate_report(ctx, "NORMAL: %s destination, flooding",
                     eth_addr_is_broadcast(dl_dst) ? "broadcast"
                                                   : "multicast");
        xlate_normal_flood(ctx, in_port, vlan);
        return;
    }

    xlate_add_dep(ctx, change_key_mac(dl_dst, vlan));
    out_port = mac_learning_lookup(ctx->ofproto->ml, dl_dst, vlan, ctx->now);
    if (out_port < 0) {
        xlate_report(ctx, "NORMAL: no learned MAC for destination, flooding");
        xlate_normal_flood(ctx, in_port, vlan);
    } else if (out_port == in_port) {
        COVERAGE_INC(normal_drop_learned_on_input);
        xlate_report(ctx, "NORMAL: learned port is input port, dropping");
    } else if (mirror_port_is_out(ctx->mirror_cfg, out_port)) {
        xlate_report(ctx, "NORMAL: learned port is a mirror output port, "
                     "dropping");
    } else if (!(out = ofproto_ports_find(ctx->ports, out_port))) {
        /* The port is being removed; its MACs are about to be flushed. */
        COVERAGE_INC(normal_drop_learned_port_gone);
        xlate_report(ctx, "NORMAL: learned port is unknown, dropping");
    } else if (!ofproto_port_settings_carries(&out->s, vlan)) {
        /* The port's VLANs changed; its MACs are about to be flushed. */
        COVERAGE_INC(normal_drop_learned_port_vlan);
        xlate_report(ctx, "NORMAL: learned port %s does not carry vlan "
                     "%"PRIu16", dropping",
                     xlate_port_string(ctx, out_port, port_s), vlan);
    } else {
        if (ctx->tracing) {
            xlate_report(ctx, "NORMAL: forwarding to learned port %s",
                         xlate_port_string(ctx, out_port, port_s));
        }
        xlate_normal_output(ctx, out, vlan);
    }
}

/* The rule table. */

/* Carries out the OUTPUT action of a rule: never to the input port, as in
 * OVS, nor to a port no longer in the bridge. */
static void
xlate_rule_output(struct xlate_ctx *ctx, uint16_t port_no)
{
    const struct ofproto_port *port = ofproto_ports_find(ctx->ports,
                                                         port_no);
    char port_s[XLATE_PORT_STRING_SIZE];

    if (port_no == xlate_read_in_port(ctx)) {
        xlate_report(ctx, "rule: skipping output to the input port %s",
                     xlate_port_string(ctx, port_no, port_s));
    } else if (!port) {
        xlate_report(ctx, "rule: skipping output to port %"PRIu16", not a "
                     "port of the bridge", port_no);
    } else {
        xlate_port_output(ctx, port, -1);
    }
}

/* Outputs the packet as it is now to every bridge port but the one it
 * came in on (for a bond member: its bond) and those whose link is down.
 * Members are reached through their bond. */
static void
xlate_rule_flood(struct xlate_ctx *ctx)
{
    uint16_t in_port = xlate_read_in_port(ctx);
    const struct ofproto_port *in = ofproto_ports_find(ctx->ports, in_port);
    uint16_t in_bundle = in ? in->bundle : in_port;

    xlate_flood_begin(ctx);
    for (size_t i = 0; i < ctx->ports->n; i++) {
        const struct ofproto_port *port = &ctx->ports->ports[i];

        if (port->bundle == port->port_no && port->port_no != in_bundle
            && !port->link_down) {
            xlate_port_output(ctx, port, -1);
        }
    }
    xlate_flood_end(ctx);
}

/* Sets the outer tag's bits 'mask' to 'tci', pushing an 802.1Q tag first
 * if the packet is untagged (mod_vlan_vid, mod_vlan_pcp). */
static void
xlate_rule_mod_vlan(struct xlate_ctx *ctx, ovs_be16 tci, ovs_be16 mask)
{
    if (!xlate_vlan_current(ctx)) {
        xlate_vlan_push(ctx, htons(ETH_TYPE_VLAN_8021Q),
                        htons(VLAN_CFI) | (tci & mask));
    } else {
        xlate_vlan_set_tci(ctx, tci, mask);
    }
}

/* Emits a set action of 'type' whose argument 'a' was already filled,
 * keeping 'ctx->flow' in step. */
static void
xlate_rule_set(struct xlate_ctx *ctx, const struct ofpact *oa)
{
    struct dp_action a;

    switch ((enum ofpact_type) oa->type) {
    case OFPACT_SET_ETH_SRC:
        dp_action_init(&a, DP_ACTION_SET_ETH_SRC);
        a.mac = oa->mac;
        ctx->flow.dl_src = oa->mac;
        break;
    case OFPACT_SET_ETH_DST:
        dp_action_init(&a, DP_ACTION_SET_ETH_DST);
        a.mac = oa->mac;
        ctx->flow.dl_dst = oa->mac;
        break;
    case OFPACT_SET_IPV4_SRC:
        dp_action_init(&a, DP_ACTION_SET_IPV4_SRC);
        a.ipv4 = oa->ipv4;
        ctx->flow.nw_src = oa->ipv4;
        break;
    case OFPACT_SET_IPV4_DST:
        dp_action_init(&a, DP_ACTION_SET_IPV4_DST);
        a.ipv4 = oa->ipv4;
        ctx->flow.nw_dst = oa->ipv4;
        break;
    case OFPACT_SET_TP_SRC:
        dp_action_init(&a, DP_ACTION_SET_TP_SRC);
        a.tp_port = oa->tp_port;
        ctx->flow.tp_src = oa->tp_port;
        break;
    case OFPACT_SET_TP_DST:
        dp_action_init(&a, DP_ACTION_SET_TP_DST);
        a.tp_port = oa->tp_port;
        ctx->flow.tp_dst = oa->tp_port;
        break;
    case OFPACT_SET_TUN_ID:
        dp_action_init(&a, DP_ACTION_SET_TUN_ID);
        a.tun_id = oa->tun_id;
        ctx->flow.tun_id = oa->tun_id;
        break;
    default:
        return;
    }
    xlate_emit(ctx, &a);
}

/* Looks the packet up in the rule table and carries out the actions of
 * the rule that matches; drops if none does.  A bridge without rules is a
 * plain NORMAL switch. */
void
xlate_rules(struct xlate_ctx *ctx)
{
    const struct rule_table *table = ofproto_get_rules(ctx->ofproto);
    struct ofproto_rule *rule;

    if (ctx->mirror_cfg && !xlate_mirror_input(ctx)) {
        return;
    }
    if (!table->n) {
        ctx->normal_ran = true;
        xlate_normal(ctx);
        return;
    }
    rule = rule_table_lookup(table, &ctx->flow, &ctx->out->mask);
    if (!rule) {
        COVERAGE_INC(rule_table_miss);
        xlate_report(ctx, "rules: no rule matches, dropping");
        return;
    }
    ctx->out->rule_stats = &rule->stats;
    if (ctx->tracing) {
        char buf[FLOW_FORMAT_BUFSIZE + 256];

        xlate_report(ctx, "rules: %s, cookie=0x%"PRIx64,
                     ofproto_rule_format(rule, NULL, NULL, buf, sizeof buf),
                     rule->cookie);
    }
    for (size_t i = 0; i < rule->n_ofpacts && !ctx->error; i++) {
        const struct ofpact *a = &rule->ofpacts[i];

        switch ((enum ofpact_type) a->type) {
        case OFPACT_OUTPUT:
            xlate_rule_output(ctx, a->port);
            break;
        case OFPACT_NORMAL:
            ctx->normal_ran = true;
            xlate_normal(ctx);
            break;
        case OFPACT_FLOOD:
            xlate_rule_flood(ctx);
            break;
        case OFPACT_PUSH_VLAN:
            xlate_vlan_push(ctx, a->tpid, htons(VLAN_CFI));
            break;
        case OFPACT_POP_VLAN:
            xlate_vlan_pop(ctx);
            break;
        case OFPACT_SET_VLAN_VID:
            xlate_rule_mod_vlan(ctx, htons(a->vid), htons(VLAN_VID_MASK));
            break;
        case OFPACT_SET_VLAN_PCP:
            xlate_rule_mod_vlan(ctx, htons(a->pcp << VLAN_PCP_SHIFT),
                                htons(VLAN_PCP_MASK));
            break;
        case OFPACT_SET_ETH_SRC:
        case OFPACT_SET_ETH_DST:
        case OFPACT_SET_IPV4_SRC:
        case OFPACT_SET_IPV4_DST:
        case OFPACT_SET_TP_SRC:
        case OFPACT_SET_TP_DST:
        case OFPACT_SET_TUN_ID:
            xlate_rule_set(ctx, a);
            break;
        }
    }
}

/* Translation entry points. */

/* Translates 'flow' into 'out'.  Stores in '*normal_ranp' (if nonnull)
 * whether NORMAL ran. */
static int
xlate__(struct ofproto *ofproto, const struct flow *flow, bool learn,
        bool tracing, long long now, struct xlate_out *out,
        bool *normal_ranp)
{
    struct xlate_ctx ctx = {
        .ofproto = ofproto,
        .ports = ofproto_ports_get(ofproto),
        .flow = *flow,
        .out = out,
        .now = now,
        .learn = learn,
        .tracing = tracing,
        .bridges = UINT64_C(1) << ofproto->index,
        .mirror_cfg = mirror_config_get(ofproto),
    };

    out->n_actions = 0;
    memset(&out->mask, 0, sizeof out->mask);
    out->rule_stats = NULL;
    out->n_deps = 0;
    out->wide = 0;
    out->trace_len = 0;
    out->trace[0] = '\0';

    xlate_rules(&ctx);
    xlate_mirror_finish(&ctx);
    xlate_patch_unnest_tail(out->actions, out->n_actions);
    out->bridges = ctx.bridges;

    if (tracing) {
        out->final_flow = ctx.flow;
    }
    if (ctx.error) {
        out->n_actions = 0;
    }
    if (normal_ranp) {
        *normal_ranp = ctx.normal_ran;
    }
    return ctx.error;
}

int
xlate_actions(struct ofproto *ofproto, const struct flow *flow, bool learn,
              long long now, struct xlate_out *out, bool *normal_ranp)
{
    return xlate__(ofproto, flow, learn, false, now, out, normal_ranp);
}

int
xlate_actions_trace(struct ofproto *ofproto, const struct flow *flow,
                    bool learn, long long now, struct xlate_out *out)
{
    return xlate__(ofproto, flow, learn, true, now, out, NULL);
}
