/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The appctl commands of the rule table: rule/add, rule/del and rule/dump,
 * in ovs-ofctl add-flow, del-flows and dump-flows syntax.  They build a
 * new rule list from the running one and install it with
 * ofproto_set_rules(), which returns once every PMD has revalidated, so a
 * reply means the change is in force.  Rules added here live until the
 * next config/reload, which installs the file's rules.
 *
 * Control thread only.
 */
#include <autoconf.h>
#include "control/appctl.h"
#include "dp/dp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "packet/flow-format.h"
#include "ofproto/ofproto-rules.h"
#include "dp/pmd.h"
#include "control/unixctl.h"
#include "ofproto/ofproto.h"
#include "base/util.h"

/* How long rule/dump waits for each PMD's flow dump. */
#define OFPROTO_REQUEST_TIMEOUT_MS 2000

/* A bridge of the datapath, for resolving and naming its ports. */
struct ofproto_cmd_bridge {
    struct dp *dp;
    struct ofproto *bridge;
};

/* Resolves a port name of the bridge in 'b_'. */
static bool
ofproto_cmd_port_lookup(const char *name, uint16_t *port_no, void *b_)
{
    const struct ofproto_cmd_bridge *b = b_;

    return dp_bridge_port_lookup(b->dp, b->bridge, name, port_no);
}

/* Names port 'port_no' of the bridge in 'b_'. */
static bool
ofproto_cmd_port_name(uint16_t port_no, char *name, size_t size, void *b_)
{
    const struct ofproto_cmd_bridge *b = b_;
    char buf[OFPROTO_PORT_NAME_SIZE];

    if (!ofproto_port_name(b->bridge, port_no, buf)) {
        return false;
    }
    snprintf(name, size, "%s", buf);
    return true;
}

/* Fills 'b' with bridge 'name' of 'dp'.  Replies with an error and returns
 * false if there is none. */
static bool
ofproto_cmd_find_bridge(struct unixctl_conn *conn, struct dp *dp,
                        const char *name, struct ofproto_cmd_bridge *b)
{
    b->dp = dp;
    b->bridge = dp_bridge_lookup(dp, name);
    if (!b->bridge) {
        unixctl_command_reply_errorf(conn, "no bridge named %s", name);
        return false;
    }
    return true;
}

static void
ofproto_cmd_reply_error(struct unixctl_conn *conn, const char *prefix,
                        char *error)
{
    char *msg = xasprintf("%s%s", prefix, error);

    unixctl_command_reply_error(conn, msg);
    free(msg);
    free(error);
}

/* Copies the current rules in table order into a new array of 'n' + 1. */
static struct ofproto_rule **
ofproto_cmd_current(const struct ofproto *bridge, size_t *n)
{
    const struct rule_table *table = ofproto_get_rules(bridge);
    struct ofproto_rule **rules;

    rules = xcalloc(table->n + 1, sizeof *rules);
    memcpy(rules, table->rules, table->n * sizeof *rules);
    *n = table->n;
    return rules;
}

/* rule/add BRIDGE RULE */
static void
ofproto_cmd_add(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto_cmd_bridge b;
    struct ofproto_rule *rule, **rules;
    char *match, *actions, *error;
    uint64_t cookie;
    int priority;
    size_t n;

    if (!ofproto_cmd_find_bridge(conn, dp, argv[0], &b)) {
        return;
    }
    error = ofproto_rule_split(argv[1], &priority, &cookie, &match,
                               &actions);
    if (error) {
        ofproto_cmd_reply_error(conn, "rule/add: ", error);
        return;
    }
    if (!actions) {
        free(match);
        unixctl_command_reply_error(conn, "rule/add: \"actions=\" is "
                                    "required, after the match");
        return;
    }
    error = ofproto_rule_create(priority < 0 ? OFPROTO_RULE_DEFAULT_PRIORITY
                                : priority, cookie, match, actions,
                                ofproto_cmd_port_lookup, &b, &rule);
    free(match);
    free(actions);
    if (error) {
        ofproto_cmd_reply_error(conn, "rule/add: ", error);
        return;
    }
    rule->created = time_msec();

    /* As in OVS, a rule with the same match and priority is replaced. */
    rules = ofproto_cmd_current(b.bridge, &n);
    for (size_t i = 0; i < n; i++) {
        if (rules[i]->priority == rule->priority
            && !memcmp(&rules[i]->match, &rule->match, sizeof rule->match)
            && !memcmp(&rules[i]->mask, &rule->mask, sizeof rule->mask)) {
            memmove(&rules[i], &rules[i + 1], (n - i - 1) * sizeof *rules);
            n--;
            break;
        }
    }
    rules[n++] = rule;
    ofproto_set_rules(b.bridge, rules, n);
    ofproto_set_rules_edited(b.bridge, true);
    free(rules);
    unixctl_command_reply_text_json(conn, "", json_object());
}

/* rule/del BRIDGE [--strict] [MATCH] */
static void
ofproto_cmd_del(struct unixctl_conn *conn, int argc, const char *argv[],
                void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto_cmd_bridge b;
    struct flow match_flow, mask;
    const char *text = "";
    struct ofproto_rule **rules;
    char *match, *actions, *error;
    bool strict = false;
    size_t n, n_kept = 0;
    uint64_t cookie;
    int priority;
    json_int_t n_deleted;

    if (!ofproto_cmd_find_bridge(conn, dp, argv[0], &b)) {
        return;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--strict")) {
            strict = true;
        } else if (!text[0]) {
            text = argv[i];
        } else {
            unixctl_command_reply_error(conn, "usage: rule/del BRIDGE "
                                        "[--strict] [MATCH]");
            return;
        }
    }
    error = ofproto_rule_split(text, &priority, &cookie, &match, &actions);
    if (!error && actions) {
        error = xstrdup("a match takes no \"actions=\"");
        free(match);
    }
    free(actions);
    if (!error) {
        error = ofproto_rule_match_parse(match, ofproto_cmd_port_lookup, &b,
                                         &match_flow, &mask);
        free(match);
    }
    if (error) {
        ofproto_cmd_reply_error(conn, "rule/del: ", error);
        return;
    }
    if (priority < 0) {
        priority = OFPROTO_RULE_DEFAULT_PRIORITY;
    }

    rules = ofproto_cmd_current(b.bridge, &n);
    for (size_t i = 0; i < n; i++) {
        const struct ofproto_rule *r = rules[i];
        bool del = (strict
                    ? (r->priority == priority
                       && !memcmp(&r->match, &match_flow, sizeof match_flow)
                       && !memcmp(&r->mask, &mask, sizeof mask))
                    : ofproto_rule_is_covered_by(r, &match_flow, &mask));

        if (!del) {
            rules[n_kept++] = rules[i];
        }
    }
    n_deleted = n - n_kept;
    if (n_deleted) {
        ofproto_set_rules(b.bridge, rules, n_kept);
        ofproto_set_rules_edited(b.bridge, true);
    }
    free(rules);
    text = n_deleted == 1 ? "rule" : "rules";
    error = xasprintf("deleted %lld %s", (long long) n_deleted, text);
    unixctl_command_reply_text_json(conn, error,
                                    json_pack("{s:I}", "deleted", n_deleted));
    free(error);
}

struct ofproto_live_counts {
    const struct rule_table *table;
    uint64_t *packets;
    uint64_t *bytes;
};

/* Adds flow 'e''s counts to the rule that decided it. */
static void
ofproto_cmd_count_flow(const struct pmd_flow_entry *e, void *olc_)
{
    const struct ofproto_live_counts *olc = olc_;

    for (size_t r = 0; e->rule_stats && r < olc->table->n; r++) {
        if (rule_stats_covers(e->rule_stats, &olc->table->rules[r]->stats)) {
            olc->packets[r] += e->n_packets;
            olc->bytes[r] += e->n_bytes;
            break;
        }
    }
}

/* Adds the counts of the live megaflows that 'table' rules decided to
 * 'packets' and 'bytes' (one per rule, in table order).  Returns false if
 * a PMD did not answer. */
static bool
ofproto_cmd_live_counts(struct dp *dp, const struct rule_table *table,
                        uint64_t *packets, uint64_t *bytes)
{
    struct ofproto_live_counts olc = { table, packets, bytes };

    return appctl_visit_live_flows(dp, OFPROTO_REQUEST_TIMEOUT_MS,
                                   ofproto_cmd_count_flow, &olc);
}

/* rule/dump BRIDGE */
static void
ofproto_cmd_dump(struct unixctl_conn *conn, int argc OVS_UNUSED,
                 const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    const struct rule_table *table;
    struct ofproto_cmd_bridge b;
    long long now = time_msec();
    uint64_t *packets, *bytes;
    size_t len = 0, cap = 256;
    json_t *json;
    char *text;

    if (!ofproto_cmd_find_bridge(conn, dp, argv[0], &b)) {
        return;
    }
    table = ofproto_get_rules(b.bridge);
    json = json_array();
    text = xmalloc(cap);
    text[0] = '\0';
    packets = xcalloc(table->n + 1, sizeof *packets);
    bytes = xcalloc(table->n + 1, sizeof *bytes);
    /* The rules' own counters first: a flow deleted after this read is
     * then counted nowhere, rather than twice. */
    for (size_t i = 0; i < table->n; i++) {
        const struct rule_stats *s = &table->rules[i]->stats;

        packets[i] = __atomic_load_n(&s->n_packets, __ATOMIC_RELAXED);
        bytes[i] = __atomic_load_n(&s->n_bytes, __ATOMIC_RELAXED);
    }
    if (!ofproto_cmd_live_counts(dp, table, packets, bytes)) {
        unixctl_command_reply_error(conn, "a pmd thread did not answer");
        json_decref(json);
        free(text);
        free(packets);
        free(bytes);
        return;
    }
    for (size_t i = 0; i < table->n; i++) {
        const struct ofproto_rule *r = table->rules[i];
        char match[FLOW_FORMAT_BUFSIZE + 100];
        char line[sizeof match + 1300];
        char actions[1024];
        char cookie[24];
        long long age = now - r->created;
        int n;

        ofproto_rule_format_match(r, ofproto_cmd_port_name, &b, match,
                                  sizeof match);
        ofpacts_format(r->ofpacts, r->n_ofpacts, ofproto_cmd_port_name, &b,
                       actions, sizeof actions);
        snprintf(cookie, sizeof cookie, "0x%"PRIx64, r->cookie);
        n = snprintf(line, sizeof line, " cookie=%s, duration=%lld.%03llds, "
                     "n_packets=%"PRIu64", n_bytes=%"PRIu64", "
                     "priority=%"PRIu16"%s%s actions=%s\n",
                     cookie, age / 1000, age % 1000, packets[i], bytes[i],
                     r->priority, match[0] ? "," : "", match, actions);
        n = MIN(n, (int) sizeof line - 1);
        while (len + n + 1 > cap) {
            cap *= 2;
            text = xrealloc(text, cap);
        }
        memcpy(text + len, line, n + 1);
        len += n;
        json_array_append_new(json, json_pack(
            "{s:s, s:f, s:I, s:I, s:i, s:s, s:s}",
            "cookie", cookie, "duration", age / 1000.0,
            "n_packets", (json_int_t) packets[i],
            "n_bytes", (json_int_t) bytes[i], "priority", r->priority,
            "match", match, "actions", actions));
    }
    unixctl_command_reply_text_json(conn, text, json);
    free(text);
    free(packets);
    free(bytes);
}

void
ofproto_register_commands(struct dp *dp)
{
    static const struct unixctl_command_def commands[] = {
        { "rule/add", "BRIDGE RULE", 2, 2, ofproto_cmd_add },
        { "rule/del", "BRIDGE [--strict] [MATCH]", 1, 3, ofproto_cmd_del },
        { "rule/dump", "BRIDGE", 1, 1, ofproto_cmd_dump },
    };

    unixctl_command_register_table(commands, ARRAY_SIZE(commands), dp);
    mirror_register_commands(dp);
}
