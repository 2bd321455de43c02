/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The slow path's entry points for the datapath.  A packet that misses
 * every datapath cache is translated here: upcall_xlate() decides what to
 * do with it (xlate.h) and returns datapath actions plus a megaflow mask,
 * the bits of the flow the decision depended on.  The PMD installs key &
 * mask -> actions in its caches, so every later packet that agrees with
 * this one on those bits takes the same actions without an upcall.  A
 * mask that is too narrow forwards packets wrongly; a mask that is too
 * wide costs cache entries and upcalls.
 *
 * When a fact a cached flow depended on changes (a key in the bridge's
 * change log, or the bridge's table generation: dp/pmd-reval.h), the PMD
 * revalidates it with upcall_revalidate_rule(): it is translated again
 * and kept only if the decision and its mask still hold for every packet
 * it matches.
 *
 * Threads: any thread may translate and revalidate, as an RCU reader (see
 * ofproto.h).
 */
#ifndef UPCALL_H
#define UPCALL_H 1

#include <stdint.h>
#include <stdbool.h>
#include "ofproto/xlate.h"
#include "packet/dp-actions.h"
#include "packet/flow.h"

struct ofproto;
struct rule_stats;

/* Translates a packet whose expanded key is 'flow' (flow->in_port is its
 * input port) as of time 'now' (msec, monotonic).  If 'learn', updates the
 * MAC table from the packet's source.  Fills 'out' (the trace stays empty)
 * and returns 0, or returns a positive errno (E2BIG: too many actions)
 * with out->n_actions == 0; the caller drops the packet and counts a
 * failed upcall.  Any thread, as an RCU reader (see ofproto.h). */
int upcall_xlate(struct ofproto *, const struct flow *flow, bool learn,
                 long long now, struct xlate_out *out);

/* Same as upcall_xlate(), and also writes a human-readable account of the
 * decision into out->trace, for ofproto/trace. */
int upcall_xlate_trace(struct ofproto *, const struct flow *flow, bool learn,
                       long long now, struct xlate_out *out);

/* Re-translates, without learning, a cached flow whose masked key is
 * 'masked_flow' and whose mask is 'mask', and returns true if the flow is
 * still correct: the decision is 'actions' ('n_actions' of them) and the
 * new translation consulted no bit outside 'mask' (a wider decision would
 * no longer hold for every packet the flow matches).  Any thread, as an
 * RCU reader. */
bool upcall_revalidate(struct ofproto *, const struct flow *masked_flow,
                       const struct flow *mask,
                       const struct dp_action *actions, uint32_t n_actions,
                       long long now);

/* Same as upcall_revalidate(), and the flow is also still correct only if
 * the same rule decides: 'rule_stats' is what the flow's translation put
 * in xlate_out's 'rule_stats'.  PMDs use this one, so that a flow never
 * outlives the rule it credits. */
bool upcall_revalidate_rule(struct ofproto *, const struct flow *masked_flow,
                            const struct flow *mask,
                            const struct dp_action *actions,
                            uint32_t n_actions,
                            const struct rule_stats *rule_stats,
                            long long now);

#endif /* upcall.h */
