/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The upcall and revalidation entry points the datapath calls.  An upcall
 * is a translation (xlate.c) of the missed packet.  Revalidation
 * translates a cached flow's masked key again, without learning, and
 * keeps the flow only if the decision is the same, the new mask fits in
 * the flow's and, when NORMAL decided, the source needs no learning.
 */
#include <autoconf.h>
#include "ofproto/upcall.h"

#include <string.h>
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto-private.h"
#include "ofproto/xlate.h"

int
upcall_xlate(struct ofproto *ofproto, const struct flow *flow, bool learn,
             long long now, struct xlate_out *out)
{
    return xlate_actions(ofproto, flow, learn, now, out, NULL);
}

int
upcall_xlate_trace(struct ofproto *ofproto, const struct flow *flow,
                   bool learn, long long now, struct xlate_out *out)
{
    return xlate_actions_trace(ofproto, flow, learn, now, out);
}

/* True if 'a' has no 1-bit outside 'b'. */
static bool
flow_mask_is_subset(const struct flow *a, const struct flow *b)
{
    const uint8_t *pa = (const uint8_t *) a;
    const uint8_t *pb = (const uint8_t *) b;

    for (size_t i = 0; i < sizeof *a; i += sizeof(uint64_t)) {
        uint64_t wa, wb;

        memcpy(&wa, pa + i, sizeof wa);
        memcpy(&wb, pb + i, sizeof wb);
        if (wa & ~wb) {
            return false;
        }
    }
    return true;
}

/* True if the source of 'flow' needs no learning: it is multicast, or it
 * is learned on flow->in_port (its bond, for a bond member), or the flow
 * does not come from a bridge port or the port does not accept its VLAN
 * (NORMAL learns nothing then). */
static bool
source_is_learned(struct ofproto *ofproto, const struct flow *flow,
                  long long now)
{
    uint16_t bundle;
    int vlan;

    if (eth_addr_is_multicast(flow->dl_src)) {
        return true;
    }
    vlan = ofproto_flow_vlan(ofproto, flow, &bundle);
    return (vlan < 0
            || mac_learning_lookup(ofproto->ml, flow->dl_src, vlan, now)
               == bundle);
}

static bool
upcall_revalidate__(struct ofproto *ofproto, const struct flow *masked_flow,
                    const struct flow *mask, const struct dp_action *actions,
                    uint32_t n_actions, bool check_rule,
                    const struct rule_stats *rule_stats, long long now)
{
    struct xlate_out out;
    bool normal_ran;

    if (xlate_actions(ofproto, masked_flow, false, now, &out,
                      &normal_ran)) {
        return false;
    }
    if (check_rule && out.rule_stats != rule_stats) {
        return false;
    }
    if (normal_ran && !source_is_learned(ofproto, masked_flow, now)) {
        /* Packets that hit the flow would never reach learning: send the
         * next one to the slow path (after fdb/flush or an age-out). */
        return false;
    }
    return (flow_mask_is_subset(&out.mask, mask)
            && out.n_actions == n_actions
            && !memcmp(out.actions, actions, n_actions * sizeof *actions));
}

bool
upcall_revalidate(struct ofproto *ofproto, const struct flow *masked_flow,
                  const struct flow *mask, const struct dp_action *actions,
                  uint32_t n_actions, long long now)
{
    return upcall_revalidate__(ofproto, masked_flow, mask, actions,
                               n_actions, false, NULL, now);
}

bool
upcall_revalidate_rule(struct ofproto *ofproto,
                       const struct flow *masked_flow,
                       const struct flow *mask,
                       const struct dp_action *actions, uint32_t n_actions,
                       const struct rule_stats *rule_stats, long long now)
{
    return upcall_revalidate__(ofproto, masked_flow, mask, actions,
                               n_actions, true, rule_stats, now);
}
