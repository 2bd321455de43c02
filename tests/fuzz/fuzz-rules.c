/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for the rule syntax.  The first input byte picks the parser
 * and the rest is its text:
 *
 *     0 mod 3: a match, match_parse();
 *     1 mod 3: a whole flow as rule/add takes it, ofproto_rule_split()
 *              then ofproto_rule_create();
 *     2 mod 3: actions, ofpacts_parse(), against a match picked by the
 *              first byte's upper bits from a fixed list.
 *
 * Text a parser accepts is formatted back (ofproto_rule_format_match(),
 * ofproto_rule_format(), ofpacts_format()) and the formatted text parsed
 * again: it must parse, to the same result.  Port names resolve against a
 * fixed table, both ways.
 */
#include <autoconf.h>
#include "fuzz.h"

#include <string.h>
#include "classifier/dp-flow.h"
#include "ofproto/match-parse.h"
#include "packet/flow-format.h"
#include "packet/miniflow.h"
#include "ofproto/ofpact.h"
#include "ofproto/ofproto-rules.h"
#include "base/util.h"

/* Formatted text longer than this may have been truncated by a fixed
 * buffer inside the formatter, so it is not re-parsed. */
#define FUZZ_TEXT_MAX 1000

struct fuzz_port {
    const char *name;
    uint16_t port_no;
};

static const struct fuzz_port fuzz_ports[] = {
    { "p1", 1 }, { "p2", 2 }, { "vm1", 3 }, { "eth0", 10 },
};

/* Matches the actions of mode 2 are checked against. */
static const char *const fuzz_matches[] = {
    "", "ip", "tcp", "udp", "sctp", "ipv6", "arp", "dl_vlan=10",
    "in_port=p1,tcp,tp_dst=80", "udp6",
};

static bool
fuzz_port_lookup(const char *name, uint16_t *port_no, void *aux OVS_UNUSED)
{
    for (size_t i = 0; i < ARRAY_SIZE(fuzz_ports); i++) {
        if (!strcmp(name, fuzz_ports[i].name)) {
            *port_no = fuzz_ports[i].port_no;
            return true;
        }
    }
    return false;
}

static bool
fuzz_port_name(uint16_t port_no, char *name, size_t size,
               void *aux OVS_UNUSED)
{
    for (size_t i = 0; i < ARRAY_SIZE(fuzz_ports); i++) {
        if (port_no == fuzz_ports[i].port_no) {
            snprintf(name, size, "%s", fuzz_ports[i].name);
            return true;
        }
    }
    return false;
}

/* Checks the invariant match_parse() promises: no 1-bit outside the
 * mask. */
static void
fuzz_check_match(const struct flow *match, const struct flow *mask)
{
    const uint8_t *m = (const uint8_t *) match;
    const uint8_t *k = (const uint8_t *) mask;

    for (size_t i = 0; i < sizeof *match; i++) {
        FUZZ_ASSERT(!(m[i] & ~k[i]));
    }
}

static void
fuzz_match(const char *text)
{
    struct ofproto_rule rule, again;
    char buf[FLOW_FORMAT_BUFSIZE + 100];
    char *error;

    memset(&rule, 0, sizeof rule);
    error = match_parse(text, fuzz_port_lookup, NULL, &rule.match,
                        &rule.mask);
    if (error) {
        free(error);
        return;
    }
    fuzz_check_match(&rule.match, &rule.mask);

    ofproto_rule_format_match(&rule, fuzz_port_name, NULL, buf, sizeof buf);
    FUZZ_ASSERT(strlen(buf) < sizeof buf - 1);
    memset(&again, 0, sizeof again);
    error = ofproto_rule_match_parse(buf, fuzz_port_lookup, NULL,
                                     &again.match, &again.mask);
    if (error) {
        fprintf(stderr, "\"%s\" formats as \"%s\", which fails: %s\n",
                text, buf, error);
        abort();
    }
    FUZZ_ASSERT(!memcmp(&rule.match, &again.match, sizeof rule.match));
    FUZZ_ASSERT(!memcmp(&rule.mask, &again.mask, sizeof rule.mask));
}

static void
fuzz_flow(const char *text)
{
    struct ofproto_rule *rule, *again;
    char *match, *actions, *error;
    char buf[4096];
    uint64_t cookie;
    int priority;

    error = ofproto_rule_split(text, &priority, &cookie, &match, &actions);
    if (error) {
        free(error);
        return;
    }
    error = ofproto_rule_create(priority < 0 ? OFPROTO_RULE_DEFAULT_PRIORITY
                                : priority, cookie, match,
                                actions ? actions : "", fuzz_port_lookup,
                                NULL, &rule);
    free(match);
    free(actions);
    if (error) {
        FUZZ_ASSERT(rule == NULL);
        free(error);
        return;
    }
    fuzz_check_match(&rule->match, &rule->mask);

    ofpacts_format(rule->ofpacts, rule->n_ofpacts, fuzz_port_name, NULL,
                   buf, sizeof buf);
    if (strlen(buf) >= FUZZ_TEXT_MAX) {
        ofproto_rule_destroy(rule);
        return;
    }
    ofproto_rule_format(rule, fuzz_port_name, NULL, buf, sizeof buf);
    FUZZ_ASSERT(strlen(buf) < sizeof buf - 1);

    error = ofproto_rule_split(buf, &priority, &cookie, &match, &actions);
    if (!error) {
        FUZZ_ASSERT(actions != NULL);
        FUZZ_ASSERT(priority == rule->priority);
        /* The formatted text leaves the cookie out, as dump-flows does
         * without --cookie. */
        error = ofproto_rule_create(priority, rule->cookie, match, actions,
                                    fuzz_port_lookup, NULL, &again);
        free(match);
        free(actions);
    }
    if (error) {
        fprintf(stderr, "\"%s\" formats as \"%s\", which fails: %s\n",
                text, buf, error);
        abort();
    }
    FUZZ_ASSERT(ofproto_rule_equal(rule, again));
    ofproto_rule_destroy(again);
    ofproto_rule_destroy(rule);
}

static void
fuzz_actions(const char *text, uint8_t pick)
{
    const char *match_text = fuzz_matches[pick % ARRAY_SIZE(fuzz_matches)];
    struct ofpact *ofpacts, *again;
    size_t n_ofpacts, n_again;
    struct flow match, mask;
    char buf[4096];
    char *error;

    error = ofproto_rule_match_parse(match_text, fuzz_port_lookup, NULL,
                                     &match, &mask);
    FUZZ_ASSERT(error == NULL);

    error = ofpacts_parse(text, &match, &mask, fuzz_port_lookup, NULL,
                          &ofpacts, &n_ofpacts);
    if (error) {
        FUZZ_ASSERT(ofpacts == NULL && n_ofpacts == 0);
        free(error);
        return;
    }
    FUZZ_ASSERT(!n_ofpacts == !ofpacts);

    ofpacts_format(ofpacts, n_ofpacts, fuzz_port_name, NULL, buf,
                   sizeof buf);
    if (strlen(buf) >= sizeof buf - 1) {
        free(ofpacts);
        return;
    }
    error = ofpacts_parse(buf, &match, &mask, fuzz_port_lookup, NULL,
                          &again, &n_again);
    if (error) {
        fprintf(stderr, "\"%s\" formats as \"%s\", which fails: %s\n",
                text, buf, error);
        abort();
    }
    FUZZ_ASSERT(n_again == n_ofpacts);
    FUZZ_ASSERT(!n_ofpacts
                || !memcmp(again, ofpacts, n_ofpacts * sizeof *ofpacts));
    free(again);
    free(ofpacts);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;

    if (!size || size > 4096) {
        return 0;
    }
    text = fuzz_strndup(data + 1, size - 1);
    switch (data[0] % 3) {
    case 0:
        fuzz_match(text);
        break;
    case 1:
        fuzz_flow(text);
        break;
    default:
        fuzz_actions(text, data[0] / 3);
        break;
    }
    free(text);
    return 0;
}
