/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Port mirrors (SPAN) of a bridge, with Open vSwitch's Mirror fields and
 * meaning.  A mirror selects the frames received on its source ports
 * ('select_src_port'), the frames sent on its destination ports
 * ('select_dst_port') or both on every port ('select_all'), optionally
 * only in some VLANs ('select_vlan'), and sends a copy of each to its
 * output port.  The output port is reserved: NORMAL never forwards to it
 * and the bridge drops what it receives.
 *
 * Mirroring is decided in the slow path: xlate.c asks this module which
 * mirrors a frame meets and emits the copies as ordinary output actions
 * of the megaflow, so the PMDs run no mirror code.  A frame selected on
 * input is copied as received (before any action), one selected on output
 * as sent (after the actions before that output); a copy leaves the
 * output port tagged or untagged as that port's VLAN mode wants the
 * frame's VLAN.  One translation copies a frame to an output port once,
 * however many mirrors select it.
 *
 * Counters: a megaflow whose translation mirrored credits the mirrors
 * through its rule_stats (dp-flow.h): mirror_credit_get() gives the
 * translation one interned counter set that fans out to the rule that
 * decided and to every mirror that copied, so the datapath credits them
 * exactly as it credits rules, when the flow is deleted.
 *
 * Threads: the control thread configures (ofproto_set_mirrors()) and
 * reads (ofproto_mirrors_get()); translations read the configuration as
 * RCU readers, like the port set.
 */
#ifndef MIRROR_H
#define MIRROR_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ofproto/ofproto.h"

struct ofproto;
struct rule_stats;

/* The most mirrors a bridge has, as in Open vSwitch. */
#define MIRROR_MAX 32

/* Longest mirror name, including the terminating NUL. */
#define MIRROR_NAME_SIZE 64

/* One bit per mirror of a bridge's configuration. */
typedef uint32_t mirror_mask_t;

/* The settings of one mirror, for ofproto_set_mirrors().  Ports are
 * bridge port numbers (a bond, never a bond member). */
struct mirror_settings {
    const char *name;           /* Unique in the bridge. */
    bool select_all;            /* Every port, both directions. */
    const uint16_t *srcs;       /* Ports whose received frames count. */
    size_t n_srcs;
    const uint16_t *dsts;       /* Ports whose sent frames count. */
    size_t n_dsts;
    const int *vlans;           /* VLANs 0..4095 that count; none: all. */
    size_t n_vlans;
    uint16_t out_port;          /* Where the copies go. */
};

/* Gives 'ofproto' the 'n' mirrors in 's' in place of its current ones.  A
 * mirror whose name was configured before keeps its counters.  When
 * anything changed, returns once every flow of the datapath reflects the
 * new mirrors (like ofproto_set_rules()).  Returns 0, or EINVAL (nothing
 * changed) if 'n' > MIRROR_MAX, two mirrors share a name or a name does
 * not fit in MIRROR_NAME_SIZE.  Control thread, outside any RCU read-side
 * section. */
int ofproto_set_mirrors(struct ofproto *, const struct mirror_settings *s,
                        size_t n);

/* What mirror/show reports of one mirror. */
struct mirror_info {
    char name[MIRROR_NAME_SIZE];
    bool select_all;
    uint16_t *srcs, *dsts;      /* Owned by the array (see below). */
    size_t n_srcs, n_dsts;
    uint64_t vlans[OFPROTO_N_VLANS / 64]; /* All ones: every VLAN. */
    bool all_vlans;
    uint16_t out_port;
    /* The counters the mirror's deleted flows credited, and the identity
     * that live flows' rule_stats fan out to (rule_stats_covers()). */
    uint64_t tx_packets, tx_bytes;
    const struct rule_stats *stats;
};

/* Stores in '*infos' a new array of the bridge's mirrors in configuration
 * order and returns their number.  Free with mirror_infos_free().
 * Control thread (the 'stats' pointers stay valid until the next
 * ofproto_set_mirrors() or ofproto_destroy()). */
size_t ofproto_mirrors_get(const struct ofproto *, struct mirror_info **infos);
void mirror_infos_free(struct mirror_info *, size_t n);

/* For the bridge (ofproto.c). */

/* Creates and frees the mirror state of a bridge.  mirror_bridge_destroy()
 * accepts NULL; no flow may credit its mirrors any more. */
struct mirror_bridge *mirror_bridge_create(void);
void mirror_bridge_destroy(struct mirror_bridge *);

/* For translation (xlate.c).  RCU readers. */

/* The bridge's current mirror configuration, or NULL if it has none. */
const struct mirror_config *mirror_config_get(const struct ofproto *);

/* The mirrors selecting frames received on ('mirror_port_src()') or sent
 * on ('mirror_port_dst()') bridge port 'port_no', and whether the port is
 * a mirror's output.  'mc' may be NULL (then 0 and false). */
mirror_mask_t mirror_port_src(const struct mirror_config *mc,
                              uint16_t port_no);
mirror_mask_t mirror_port_dst(const struct mirror_config *mc,
                              uint16_t port_no);
bool mirror_port_is_out(const struct mirror_config *mc, uint16_t port_no);

/* Takes from '*candidates' the next mirror that selects frames of 'vlan'
 * and returns it, or NULL when none is left.  Adds to '*done' the mirrors
 * whose output is the same as its own, which the caller must not copy to
 * again in this bridge, and stores that output in '*out_port'. */
struct mirror *mirror_pick(const struct mirror_config *mc,
                           mirror_mask_t *candidates, uint16_t vlan,
                           mirror_mask_t *done, uint16_t *out_port);

/* The name of 'mirror', for the trace. */
const char *mirror_name(const struct mirror *);

/* Returns the counters a flow decided by the rule with counters
 * 'rule_stats' (NULL if no rule decided) and mirrored by the 'n' mirrors
 * in 'mirrors' credits: one object per distinct combination, alive while
 * the rule and the mirrors are.  Takes a mutex; any thread. */
struct rule_stats *mirror_credit_get(struct rule_stats *rule_stats,
                                     struct mirror *const *mirrors,
                                     size_t n);

/* Forgets every counter set mirror_credit_get() made that fans out to
 * 'stats', which is about to be freed: no flow may still point to one.
 * Control thread. */
void mirror_credit_forget(const struct rule_stats *stats);

#endif /* mirror.h */
