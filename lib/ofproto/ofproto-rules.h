/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The rule table of a bridge: priority-ordered rules, each a match in Open
 * vSwitch syntax (match-parse.h) and a list of actions (ofpact.h), plus
 * the lookup the slow path runs before NORMAL.
 *
 * A 'struct rule_table' is an immutable, sorted snapshot of pointers to
 * rules: highest priority first and, among equal priorities, in the order
 * the rules were given (config order, then appctl additions).  That order
 * decides ties, where Open vSwitch leaves the choice undefined.  The
 * bridge (ofproto.c) publishes snapshots with RCU and keeps rule objects
 * that survive a change, so their counters and flows stay.
 *
 * rule_table_lookup() builds an exact megaflow mask: for each rule it
 * examines without a match it adds the rule's mask bits of the first field
 * (in struct flow field order, in_port first) where the packet differs,
 * which proves the mismatch for every packet that agrees on them; for the
 * matching rule it adds the rule's whole mask.
 *
 * Parsing, formatting and lookup: any thread, no global state.
 */
#ifndef OFPROTO_RULES_H
#define OFPROTO_RULES_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
#include "classifier/dp-flow.h"
#include "ofproto/match-parse.h"
#include "packet/miniflow.h"
#include "ofproto/ofpact.h"

/* Default priority, as in ovs-ofctl. */
#define OFPROTO_RULE_DEFAULT_PRIORITY 32768

struct ofproto_rule {
    /* Immutable once created. */
    uint16_t priority;
    uint64_t cookie;
    struct flow match;          /* No 1-bit outside 'mask'. */
    struct flow mask;
    size_t n_ofpacts;           /* 0: drop. */
    struct ofpact *ofpacts;
    long long created;          /* msec, monotonic; set by the owner. */

    /* Credited (atomic add) by the PMD that deletes a flow this rule
     * decided; read relaxed by rule/dump. */
    struct rule_stats stats;

    /* Control thread scratch for ofproto_set_rules(). */
    bool mark;
};

struct rule_table {
    size_t n;
    struct ofproto_rule *rules[]; /* See the top of this file. */
};

/* Parses match text 'text' as match_parse() does, and also accepts the
 * OXM field "vlan_vid=VALUE[/MASK]" (13 bits, 0x1000 meaning "a tag is
 * present": vlan_vid=0x100a is VLAN 10, vlan_vid=0 untagged) as
 * ovs-ofctl does.  Same contract as match_parse(). */
char *ofproto_rule_match_parse(const char *text,
                               match_port_lookup_cb *lookup, void *aux,
                               struct flow *match, struct flow *mask)
    WARN_UNUSED_RESULT;

/* Creates a rule with 'priority' (0..65535), 'cookie', match text 'match'
 * and action text 'actions', resolving port names with 'lookup' and
 * 'aux'.  Returns NULL and stores the rule in '*rulep', or returns an
 * error message for the caller to free, "match: ..." or "actions: ...",
 * and stores NULL. */
char *ofproto_rule_create(int priority, uint64_t cookie, const char *match,
                          const char *actions, match_port_lookup_cb *lookup,
                          void *aux, struct ofproto_rule **rulep)
    WARN_UNUSED_RESULT;

/* Frees 'rule'.  Accepts NULL. */
void ofproto_rule_destroy(struct ofproto_rule *);

/* True if 'a' and 'b' have the same priority, cookie, match and
 * actions. */
bool ofproto_rule_equal(const struct ofproto_rule *a,
                        const struct ofproto_rule *b);

/* True if the match of 'rule' is at least as specific as 'match'/'mask',
 * that is every packet it matches also matches 'match'/'mask' (the
 * non-strict selection of ovs-ofctl del-flows). */
bool ofproto_rule_is_covered_by(const struct ofproto_rule *rule,
                                const struct flow *match,
                                const struct flow *mask);

/* Splits an ovs-ofctl flow text such as "priority=100,cookie=0x5,ip,
 * actions=drop" into its priority ('*priority', -1 if absent), cookie
 * ('*cookie', 0 if absent), match (new string in '*matchp') and actions
 * (new string in '*actionsp', NULL if absent).  Returns NULL, or an error
 * message for the caller to free (the outputs are then NULL). */
char *ofproto_rule_split(const char *text, int *priority, uint64_t *cookie,
                         char **matchp, char **actionsp) WARN_UNUSED_RESULT;

/* Formats the match of 'rule' as ovs-ofctl dump-flows does: in_port first
 * (by name when 'port_name', called with 'aux', gives one), then the
 * protocol shorthand ("ip", "tcp6", ...), then the other fields as
 * flow_format() prints them; "" for a match-everything rule.  Writes into
 * 'buf' of 'size' bytes, truncating, and returns 'buf'. */
char *ofproto_rule_format_match(const struct ofproto_rule *rule,
                                ofpact_port_name_cb *port_name, void *aux,
                                char *buf, size_t size);

/* Formats 'rule' as "priority=P,MATCH actions=ACTIONS" (",MATCH" left out
 * when empty; see ofproto_rule_format_match() and ofpacts_format()) into
 * 'buf' of 'size' bytes. */
char *ofproto_rule_format(const struct ofproto_rule *rule,
                          ofpact_port_name_cb *port_name, void *aux,
                          char *buf, size_t size);

/* Creates a snapshot of the 'n' rules in 'rules', sorted as described at
 * the top of this file.  The rules stay owned by the caller. */
struct rule_table *rule_table_create(struct ofproto_rule *const *rules,
                                     size_t n);

/* Returns the rule that decides 'flow' in 'table', or NULL if none
 * matches, and ORs into 'wc' the bits the lookup consulted (see the top of
 * this file). */
struct ofproto_rule *rule_table_lookup(const struct rule_table *table,
                                       const struct flow *flow,
                                       struct flow *wc);

#endif /* ofproto-rules.h */
