/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Translation: what the bridge does with a packet.  xlate_actions() runs a
 * packet's flow through the bridge (ofproto.h) and returns datapath
 * actions plus a megaflow mask, the bits of the flow the decision
 * depended on; upcall.c calls it for a missed packet and again to
 * revalidate a cached flow.
 *
 * Translation reads flow fields only through helpers that also set the
 * field's bits in the mask, so the mask stays exact as stages are added.
 * The bridge's priority-ordered rule table runs first (ofproto-rules.h);
 * a bridge without rules runs NORMAL alone, and a table with rules drops
 * what no rule matches.  NORMAL is a VLAN-aware learning bridge: each
 * port's VLAN mode (ofproto.h) decides which VLAN a received frame belongs
 * to, which ports a VLAN is flooded to and whether a frame leaves a port
 * tagged.  MACs are learned per VLAN, and a frame never leaves its VLAN.
 *
 * Threads: any thread may translate, as an RCU reader (see ofproto.h).
 * MAC learning takes the learning table's mutex (mac-learning.h); nothing
 * else in a translation locks.
 */
#ifndef XLATE_H
#define XLATE_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "base/compiler.h"
#include "ofproto/ofproto.h"
#include "packet/dp-actions.h"
#include "packet/flow.h"

struct ofproto;
struct rule_stats;

/* The most actions one translation may produce: enough for NORMAL in the
 * worst case, so that no flood ever fails.  A translation enters each
 * bridge at most once and outputs to each port at most once (a crossing
 * patch port is one DP_ACTION_PATCH, a bond one DP_ACTION_BOND_OUTPUT for
 * all its members), never to the port it entered a bridge on; and NORMAL
 * emits at most two VLAN actions per bridge (a flood goes to the ports
 * that take the frame tagged, then to those that take it untagged; a
 * crossing leaves the tag as it was for what follows).  That makes at
 * most OFPROTO_MAX_PORTS - B + 2 * B actions over B bridges.  Rule tables
 * can ask for more (a flood after each of several VLAN rewrites): such a
 * translation fails with E2BIG and nothing is written past the end. */
#define XLATE_MAX_ACTIONS (OFPROTO_MAX_PORTS + 2 * OFPROTO_MAX_BRIDGES)
/* A patch crossing counts the actions nested in it in 16 bits. */
BUILD_ASSERT_DECL(XLATE_MAX_ACTIONS <= UINT16_MAX);

/* The most patch ports a packet crosses in a row.  Each crossing enters a
 * bridge the translation has not been in yet, so a chain of patches ends
 * after at most OFPROTO_MAX_BRIDGES bridges anyway; this bounds how deeply
 * the datapath's copies nest. */
#define XLATE_MAX_PATCH_DEPTH 16

/* The most facts one translation records as depending on (change keys,
 * see change-log.h).  NORMAL needs two per bridge (the source and the
 * destination MAC) plus one for the output port or the flood; a
 * translation that would record more depends on the whole bridge (see
 * xlate_out 'wide'). */
#define XLATE_MAX_DEPS 6

/* Bytes of the decision trace, newline-separated lines.  A longer trace is
 * cut at a line boundary and ends with "...". */
#define XLATE_TRACE_SIZE 1024

/* A fact the translation depended on: change key 'key' (change-log.h) of
 * the bridge with ofproto_index() 'bridge'. */
struct xlate_dep {
    uint64_t key;
    uint8_t bridge;
};

/* The result of a translation. */
struct xlate_out {
    uint32_t n_actions;         /* 0 means drop. */
    struct dp_action actions[XLATE_MAX_ACTIONS];

    /* The megaflow mask: 1-bits are the bits of the flow the decision
     * consulted.  Padding is zero. */
    struct flow mask;

    /* The counters of the rule that decided, or NULL when no rule did
     * (NORMAL alone, or a table miss).  The flow installed for this
     * translation credits its counts there when it is deleted. */
    struct rule_stats *rule_stats;

    /* The bridges the translation went through, bit ofproto_index() of
     * each: the input port's bridge and every bridge a patch port led to.
     * A change in any of them revalidates the flow. */
    uint64_t bridges;

    /* What the decision depended on, beyond the bridges' table
     * generations: a change to one of these keys in the bridge's change
     * log re-translates the flow, and in a bridge of 'wide' any key does
     * (more than XLATE_MAX_DEPS facts, or one the log cannot name). */
    uint8_t n_deps;
    struct xlate_dep deps[XLATE_MAX_DEPS];
    uint64_t wide;

    /* Only xlate_actions_trace() fills these; otherwise empty.
     * 'final_flow' is the packet as the actions leave it (after the
     * last rewrite; equal to the input flow if nothing rewrites it). */
    size_t trace_len;
    char trace[XLATE_TRACE_SIZE];
    struct flow final_flow;
};

/* Translates a packet whose expanded key is 'flow' (flow->in_port is its
 * input port) as of time 'now' (msec, monotonic).  If 'learn', updates the
 * MAC table from the packet's source.  Fills 'out' (the trace stays empty)
 * and returns 0, or returns a positive errno (E2BIG: more than
 * XLATE_MAX_ACTIONS actions, counted in coverage counter
 * xlate_too_many_actions) with out->n_actions == 0.  Stores in
 * '*normal_ranp' (if nonnull) whether NORMAL ran.  Any thread, as an RCU reader (see ofproto.h). */
int xlate_actions(struct ofproto *, const struct flow *flow, bool learn,
                  long long now, struct xlate_out *out, bool *normal_ranp);

/* Same as xlate_actions() without 'normal_ranp', and also writes a
 * human-readable account of the decision into out->trace and the packet
 * as the actions leave it into out->final_flow. */
int xlate_actions_trace(struct ofproto *, const struct flow *flow,
                        bool learn, long long now, struct xlate_out *out);

#endif /* xlate.h */
