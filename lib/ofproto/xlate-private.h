/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The inside of a translation, shared by the files that translate:
 * xlate.c (the rule table, NORMAL, the VLAN tag operations, the trace and
 * the entry points), xlate-mirror.c (mirrors) and xlate-patch.c (patch
 * ports).  They call one another: an output may cross a patch port into
 * another bridge's rules, and a mirror's copy is itself an output.
 * Nothing outside these three files includes this header; upcall.c and
 * the rest of the tree use xlate.h.
 *
 * Every function here works on the 'struct xlate_ctx' of one translation,
 * on the thread that translates, as an RCU reader of the bridge (see
 * ofproto-private.h).
 */
#ifndef XLATE_PRIVATE_H
#define XLATE_PRIVATE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "base/compiler.h"
#include "ofproto/mirror.h"
#include "ofproto/ofproto-private.h"
#include "ofproto/xlate.h"
#include "packet/dp-actions.h"
#include "packet/flow.h"
#include "packet/packets.h"

/* The most mirrors one translation credits (several bridges' through
 * patch ports); more copy the packet but count nothing. */
#define XLATE_MAX_MIRRORS 64

/* State of one translation. */
struct xlate_ctx {
    struct ofproto *ofproto;
    const struct ofproto_ports *ports; /* Snapshot for this translation. */
    /* The packet as the actions emitted so far leave it: a copy of the
     * input flow that actions which modify the packet also modify, so
     * that later stages decide on what they will output.  Read only
     * through xlate_read_*(). */
    struct flow flow;

    /* The outer VLAN tag of the packet after the actions emitted so far
     * (0: untagged), once 'vlan_known'.  xlate_vlan_*() keep it. */
    bool vlan_known;
    ovs_be16 vlan_tci;
    struct xlate_out *out;      /* Actions, mask and trace. */
    long long now;
    bool learn;                 /* Update the MAC table (side effects). */
    bool tracing;               /* Fill out->trace. */
    bool trace_full;            /* out->trace was cut. */
    int error;                  /* First error, 0 if none. */
    bool normal_ran;            /* NORMAL ran (it learns sources). */
    uint64_t bridges;           /* Bridges entered so far (bits of
                                 * ofproto_index()): a patch never leads
                                 * into one of them again. */
    int depth;                  /* Patch crossings around this point. */
    bool flooding;              /* Outputs are part of a flood. */

    /* Mirrors (mirror.h): the current bridge's configuration (NULL if
     * none), the mirrors of this bridge the packet was copied for (or
     * whose output had a copy already), every mirror that copied it (the
     * flow credits them), and where the actions that put the VLAN tag
     * back after the last copy at the top level begin and end. */
    const struct mirror_config *mirror_cfg;
    mirror_mask_t mirrored;
    size_t n_mirrors_used;
    struct mirror *mirrors_used[XLATE_MAX_MIRRORS];
    uint32_t unmirror_start, unmirror_end;
};

/* Translation: reading the flow.  Each helper returns a field and marks
 * in the mask exactly the bits it returns. */

static inline uint16_t
xlate_read_in_port(struct xlate_ctx *ctx)
{
    ctx->out->mask.in_port = UINT16_MAX;
    return ctx->flow.in_port;
}

static inline struct eth_addr
xlate_read_dl_src(struct xlate_ctx *ctx)
{
    memset(&ctx->out->mask.dl_src, 0xff, sizeof ctx->out->mask.dl_src);
    return ctx->flow.dl_src;
}

static inline struct eth_addr
xlate_read_dl_dst(struct xlate_ctx *ctx)
{
    memset(&ctx->out->mask.dl_dst, 0xff, sizeof ctx->out->mask.dl_dst);
    return ctx->flow.dl_dst;
}

/* Returns the bits 'bits' (network order) of the outer VLAN TCI. */
static inline ovs_be16
xlate_read_outer_tci(struct xlate_ctx *ctx, ovs_be16 bits)
{
    ctx->out->mask.vlans_tci[0] |= bits;
    return ctx->flow.vlans_tci[0] & bits;
}

/* Output and trace (xlate.c). */

/* Appends 'action' to the datapath actions, or fails the translation with
 * E2BIG when they are full. */
void xlate_emit(struct xlate_ctx *, const struct dp_action *action);

/* Outputs the packet as it is now to 'port' (a bond, a patch port or a
 * plain port), then makes the copies of the mirrors that select 'port' as
 * a destination.  'vlan' is the frame's VLAN for a balance-slb bond's
 * hash, or negative to take the packet's outer tag. */
void xlate_port_output(struct xlate_ctx *, const struct ofproto_port *port,
                       int vlan);

/* Appends one line to the trace, if tracing. */
void xlate_report(struct xlate_ctx *, const char *format, ...)
    PRINTF_FORMAT(2, 3);

/* Room for "65535 (name)". */
#define XLATE_PORT_STRING_SIZE (OFPROTO_PORT_NAME_SIZE + 8)

/* Formats 'port_no' and its name for the trace into 'buf' and returns
 * 'buf'. */
const char *xlate_port_string(const struct xlate_ctx *, uint16_t port_no,
                              char buf[XLATE_PORT_STRING_SIZE]);

/* The packet's outer VLAN tag (xlate.c).  These emit the actions that
 * change it and keep 'ctx->flow' in step, so that later stages see the
 * packet as it will leave. */

/* The outer TCI (VID and CFI only; 0 if untagged) as the packet is now. */
ovs_be16 xlate_vlan_current(struct xlate_ctx *);

/* Pushes a tag with 'tpid' and 'tci' (CFI set by the caller). */
void xlate_vlan_push(struct xlate_ctx *, ovs_be16 tpid, ovs_be16 tci);

/* Pops the outer tag, if there is one. */
void xlate_vlan_pop(struct xlate_ctx *);

/* Sets the bits 'mask' of the outer tag's TCI to 'tci', if tagged. */
void xlate_vlan_set_tci(struct xlate_ctx *, ovs_be16 tci, ovs_be16 mask);

/* Makes the packet leave untagged ('vid' 0) or tagged with 'vid', with
 * the least actions; a tag that stays keeps its priority bits. */
void xlate_vlan_commit(struct xlate_ctx *, uint16_t vid);

/* The rule table (xlate.c). */

/* Translates the packet in the current bridge ('ctx->ofproto'), from its
 * input port: input mirroring, then the rule table, or NORMAL if the
 * bridge has no rules. */
void xlate_rules(struct xlate_ctx *);

/* Mirrors (xlate-mirror.c). */

/* On entry into a bridge that has mirrors: returns false if the packet
 * came in on a mirror's output port (the bridge drops it); otherwise, in
 * the bridge the packet entered first, copies it as received for the
 * mirrors that select its input port, and returns true. */
bool xlate_mirror_input(struct xlate_ctx *);

/* Copies the packet as it is now for each of 'mirrors' that selects its
 * VLAN as 'port' sees it, unless the mirror's output had a copy already
 * in this bridge.  Leaves the packet's outer tag as it was. */
void xlate_mirror(struct xlate_ctx *, const struct ofproto_port *port,
                  mirror_mask_t mirrors);

/* Ends the mirroring of a translation whose actions are complete: drops
 * the tag restore after a last copy that no action follows, and points
 * the flow's counters at the mirrors that copied as well as the rule. */
void xlate_mirror_finish(struct xlate_ctx *);

/* Patch ports (xlate-patch.c). */

/* Outputs the packet as it is now to patch port 'port': the peer bridge
 * translates it there and then, on a copy. */
void xlate_patch_output(struct xlate_ctx *, const struct ofproto_port *port);

/* Makes a patch crossing that ends the 'n' actions of 'actions' (and so
 * on inside it) run on the packet itself rather than a copy. */
void xlate_patch_unnest_tail(struct dp_action *actions, uint32_t n);

#endif /* xlate-private.h */
