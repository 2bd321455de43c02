/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Rules and rule table snapshots (see ofproto-rules.h).
 */
#include <autoconf.h>
#include "ofproto/ofproto-rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ofproto/mirror.h"
#include "packet/flow-format.h"
#include "base/util.h"

/* The fields of struct flow in the order the lookup compares them.
 * Together they cover every byte of struct flow but the padding; a test
 * checks that. */
struct rule_field {
    uint16_t ofs;
    uint16_t size;
};

#define RULE_FIELD(MEMBER)                                      \
    { offsetof(struct flow, MEMBER),                            \
      sizeof ((struct flow *) 0)->MEMBER }

static const struct rule_field rule_fields[] = {
    RULE_FIELD(in_port),
    RULE_FIELD(tun_id),
    RULE_FIELD(dl_type),
    RULE_FIELD(vlans_tci),
    RULE_FIELD(vlans_tpid),
    RULE_FIELD(dl_src),
    RULE_FIELD(dl_dst),
    RULE_FIELD(nw_proto),
    RULE_FIELD(nw_frag),
    RULE_FIELD(nw_tos),
    RULE_FIELD(nw_ttl),
    RULE_FIELD(ipv6_label),
    RULE_FIELD(nw_src),
    RULE_FIELD(nw_dst),
    RULE_FIELD(ipv6_src),
    RULE_FIELD(ipv6_dst),
    RULE_FIELD(tp_src),
    RULE_FIELD(tp_dst),
    RULE_FIELD(tcp_flags),
    RULE_FIELD(nd_target),
    RULE_FIELD(arp_sha),
    RULE_FIELD(arp_tha),
};

/* Parses a number of at most 'max' from 's' (decimal or "0x" hex), all of
 * it. */
static bool
ofproto_rule_parse_bounded(const char *s, unsigned long max,
                           unsigned long *out)
{
    char *end;

    if (!*s || *s == '-' || *s == '+' || *s == ' ') {
        return false;
    }
    errno = 0;
    *out = strtoul(s, &end, 0);
    return !errno && !*end && *out <= max;
}

/* Rewrites the OXM field "vlan_vid=V[/M]" of 'item' (13 bits: 0x1000
 * means "a tag is present", as in OVS) into the same bits of vlan_tci,
 * appending to 'out' at '*len'.  Returns an error message or NULL. */
static char *
ofproto_rule_vlan_vid(const char *item, char *out, size_t *len)
{
    const char *value = item + strlen("vlan_vid=");
    const char *slash = strchr(value, '/');
    unsigned long v, m = 0x1fff;
    char vbuf[32];

    snprintf(vbuf, sizeof vbuf, "%.*s",
             (int) (slash ? (size_t) (slash - value) : strlen(value)),
             value);
    if (!ofproto_rule_parse_bounded(vbuf, 0x1fff, &v)
        || (slash && !ofproto_rule_parse_bounded(slash + 1, 0x1fff, &m))) {
        return xasprintf("vlan_vid: \"%s\": expected a value and optional "
                         "mask of at most 0x1fff (0x1000 means tagged)",
                         value);
    }
    *len += sprintf(out + *len, "%svlan_tci=0x%04lx/0x%04lx",
                    *len ? "," : "", v & m, m);
    return NULL;
}

char *
ofproto_rule_match_parse(const char *text, match_port_lookup_cb *lookup,
                         void *aux, struct flow *match, struct flow *mask)
{
    char *copy = xstrdup(text);
    char *out = xzalloc(strlen(text) + 64 * (strlen(text) / 9 + 1));
    size_t len = 0;
    char *error = NULL;
    char *save = NULL;

    for (char *item = strtok_r(copy, ", \t\r\n", &save); item;
         item = strtok_r(NULL, ", \t\r\n", &save)) {
        if (!strncmp(item, "vlan_vid=", 9) || !strncmp(item, "vlan_vid:", 9)) {
            error = ofproto_rule_vlan_vid(item, out, &len);
            if (error) {
                break;
            }
        } else {
            len += sprintf(out + len, "%s%s", len ? "," : "", item);
        }
    }
    if (!error) {
        error = match_parse(out, lookup, aux, match, mask);
    } else {
        memset(match, 0, sizeof *match);
        memset(mask, 0, sizeof *mask);
    }
    free(copy);
    free(out);
    return error;
}

char *
ofproto_rule_create(int priority, uint64_t cookie, const char *match,
                    const char *actions, match_port_lookup_cb *lookup,
                    void *aux, struct ofproto_rule **rulep)
{
    struct ofproto_rule *rule;
    char *error;

    *rulep = NULL;
    if (priority < 0 || priority > UINT16_MAX) {
        return xasprintf("priority %d is not in 0..65535", priority);
    }
    rule = xzalloc(sizeof *rule);
    rule->priority = priority;
    rule->cookie = cookie;
    error = ofproto_rule_match_parse(match, lookup, aux, &rule->match,
                                     &rule->mask);
    if (error) {
        char *msg = xasprintf("match: %s", error);

        free(error);
        free(rule);
        return msg;
    }
    error = ofpacts_parse(actions, &rule->match, &rule->mask, lookup, aux,
                          &rule->ofpacts, &rule->n_ofpacts);
    if (error) {
        char *msg = xasprintf("actions: %s", error);

        free(error);
        free(rule);
        return msg;
    }
    *rulep = rule;
    return NULL;
}

void
ofproto_rule_destroy(struct ofproto_rule *rule)
{
    if (rule) {
        /* No flow credits the rule any more (see ofproto_set_rules()),
         * so none uses the mirrors' counter sets that include it. */
        mirror_credit_forget(&rule->stats);
        free(rule->ofpacts);
        free(rule);
    }
}

bool
ofproto_rule_equal(const struct ofproto_rule *a,
                   const struct ofproto_rule *b)
{
    return (a->priority == b->priority
            && a->cookie == b->cookie
            && !memcmp(&a->match, &b->match, sizeof a->match)
            && !memcmp(&a->mask, &b->mask, sizeof a->mask)
            && a->n_ofpacts == b->n_ofpacts
            && (!a->n_ofpacts
                || !memcmp(a->ofpacts, b->ofpacts,
                           a->n_ofpacts * sizeof *a->ofpacts)));
}

bool
ofproto_rule_is_covered_by(const struct ofproto_rule *rule,
                           const struct flow *match, const struct flow *mask)
{
    const uint8_t *rm = (const uint8_t *) &rule->mask;
    const uint8_t *rv = (const uint8_t *) &rule->match;
    const uint8_t *m = (const uint8_t *) mask;
    const uint8_t *v = (const uint8_t *) match;

    for (size_t i = 0; i < sizeof *mask; i++) {
        if ((m[i] & ~rm[i]) || ((rv[i] ^ v[i]) & m[i])) {
            return false;
        }
    }
    return true;
}

/* Parses a cookie: decimal or "0x" hex, 64 bits. */
static bool
ofproto_rule_parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;

    if (!*s || *s == '-' || *s == '+' || *s == ' ') {
        return false;
    }
    errno = 0;
    v = strtoull(s, &end, 0);
    *out = v;
    return !errno && !*end;
}

char *
ofproto_rule_split(const char *text, int *priority, uint64_t *cookie,
                   char **matchp, char **actionsp)
{
    char *copy = xstrdup(text);
    size_t match_len = 0;
    char *match = xzalloc(strlen(text) + 1);
    char *actions = NULL;
    char *p = copy;

    *priority = -1;
    *cookie = 0;
    *matchp = *actionsp = NULL;
    while (*p) {
        size_t n = strcspn(p, ", \t\r\n");
        char *item = p;

        if (!n) {
            p++;
            continue;
        }
        if (!strncmp(item, "actions=", 8) || !strncmp(item, "actions:", 8)) {
            actions = xstrdup(item + 8);
            break;
        }
        p += n;
        if (*p) {
            *p++ = '\0';
        }
        if (!strncmp(item, "priority=", 9)) {
            uint64_t v;

            if (!ofproto_rule_parse_u64(item + 9, &v) || v > UINT16_MAX) {
                char *error = xasprintf("\"%s\": the priority must be 0 to "
                                        "65535", item);

                free(copy);
                free(match);
                free(actions);
                return error;
            }
            *priority = v;
        } else if (!strncmp(item, "cookie=", 7)) {
            if (!ofproto_rule_parse_u64(item + 7, cookie)) {
                char *error = xasprintf("\"%s\": the cookie must be a "
                                        "64-bit number", item);

                free(copy);
                free(match);
                free(actions);
                return error;
            }
        } else {
            match_len += sprintf(match + match_len, "%s%s",
                                 match_len ? "," : "", item);
        }
    }
    free(copy);
    *matchp = match;
    *actionsp = actions;
    return NULL;
}

/* Returns OVS's protocol shorthand for 'match' under 'mask' ("ip",
 * "tcp6", "arp", ...), or NULL, and sets '*proto_named' if it also names
 * nw_proto. */
static const char *
ofproto_rule_shorthand(const struct flow *match, const struct flow *mask,
                       bool *proto_named)
{
    static const struct {
        uint16_t dl_type;
        int nw_proto;           /* -1: any. */
        const char *name;
    } names[] = {
        { ETH_TYPE_IP, IP_PROTO_ICMP, "icmp" },
        { ETH_TYPE_IP, IP_PROTO_TCP, "tcp" },
        { ETH_TYPE_IP, IP_PROTO_UDP, "udp" },
        { ETH_TYPE_IP, IP_PROTO_SCTP, "sctp" },
        { ETH_TYPE_IP, -1, "ip" },
        { ETH_TYPE_IPV6, IP_PROTO_ICMPV6, "icmp6" },
        { ETH_TYPE_IPV6, IP_PROTO_TCP, "tcp6" },
        { ETH_TYPE_IPV6, IP_PROTO_UDP, "udp6" },
        { ETH_TYPE_IPV6, IP_PROTO_SCTP, "sctp6" },
        { ETH_TYPE_IPV6, -1, "ipv6" },
        { ETH_TYPE_ARP, -1, "arp" },
        { ETH_TYPE_RARP, -1, "rarp" },
    };

    *proto_named = false;
    if (mask->dl_type != htons(UINT16_MAX)) {
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (match->dl_type != htons(names[i].dl_type)) {
            continue;
        }
        if (names[i].nw_proto < 0) {
            return names[i].name;
        }
        if (mask->nw_proto == UINT8_MAX
            && match->nw_proto == names[i].nw_proto) {
            *proto_named = true;
            return names[i].name;
        }
    }
    return NULL;
}

char *
ofproto_rule_format_match(const struct ofproto_rule *rule,
                          ofpact_port_name_cb *port_name, void *aux,
                          char *buf, size_t size)
{
    char rest[FLOW_FORMAT_BUFSIZE];
    char in_port[80];
    struct flow mask = rule->mask;
    const char *shorthand;
    bool proto_named;

    /* OVS's order: in_port (by name when it has one), the protocol
     * shorthand, then the other fields as flow_format() prints them. */
    in_port[0] = '\0';
    if (mask.in_port) {
        char name[64];

        if (port_name && mask.in_port == UINT16_MAX
            && port_name(rule->match.in_port, name, sizeof name, aux)) {
            snprintf(in_port, sizeof in_port, "in_port=%s", name);
        } else {
            snprintf(in_port, sizeof in_port, "in_port=%"PRIu16,
                     rule->match.in_port);
        }
        mask.in_port = 0;
    }
    shorthand = ofproto_rule_shorthand(&rule->match, &mask, &proto_named);
    if (shorthand) {
        mask.dl_type = 0;
        if (proto_named) {
            mask.nw_proto = 0;
        }
    }
    flow_format(&rule->match, &mask, rest, sizeof rest);
    snprintf(buf, size, "%s%s%s%s%s", in_port,
             in_port[0] && shorthand ? "," : "", shorthand ? shorthand : "",
             (in_port[0] || shorthand) && rest[0] ? "," : "", rest);
    return buf;
}

char *
ofproto_rule_format(const struct ofproto_rule *rule,
                    ofpact_port_name_cb *port_name, void *aux,
                    char *buf, size_t size)
{
    char match[FLOW_FORMAT_BUFSIZE + 100];
    char actions[1024];

    ofproto_rule_format_match(rule, port_name, aux, match, sizeof match);
    ofpacts_format(rule->ofpacts, rule->n_ofpacts, port_name, aux, actions,
                   sizeof actions);
    snprintf(buf, size, "priority=%"PRIu16"%s%s actions=%s", rule->priority,
             match[0] ? "," : "", match, actions);
    return buf;
}

struct rule_table *
rule_table_create(struct ofproto_rule *const *rules, size_t n)
{
    struct rule_table *table;

    table = xzalloc(sizeof *table + n * sizeof table->rules[0]);
    table->n = n;
    /* A stable insertion sort keeps the given order among equal
     * priorities.  Tables are built on the control thread only. */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;

        while (j > 0 && table->rules[j - 1]->priority < rules[i]->priority) {
            table->rules[j] = table->rules[j - 1];
            j--;
        }
        table->rules[j] = rules[i];
    }
    return table;
}

/* Returns the index in rule_fields of the first field where 'flow'
 * differs from 'rule' on the rule's mask bits, or -1 if it matches. */
static int
rule_first_mismatch(const struct ofproto_rule *rule, const struct flow *flow)
{
    const uint8_t *f = (const uint8_t *) flow;
    const uint8_t *v = (const uint8_t *) &rule->match;
    const uint8_t *m = (const uint8_t *) &rule->mask;

    for (size_t i = 0; i < ARRAY_SIZE(rule_fields); i++) {
        const struct rule_field *rf = &rule_fields[i];

        for (size_t b = rf->ofs; b < rf->ofs + rf->size; b++) {
            if ((f[b] ^ v[b]) & m[b]) {
                return i;
            }
        }
    }
    return -1;
}

struct ofproto_rule *
rule_table_lookup(const struct rule_table *table, const struct flow *flow,
                  struct flow *wc)
{
    uint8_t *w = (uint8_t *) wc;

    for (size_t i = 0; i < table->n; i++) {
        struct ofproto_rule *rule = table->rules[i];
        const uint8_t *m = (const uint8_t *) &rule->mask;
        int field = rule_first_mismatch(rule, flow);

        if (field < 0) {
            for (size_t b = 0; b < sizeof *wc; b++) {
                w[b] |= m[b];
            }
            return rule;
        } else {
            const struct rule_field *rf = &rule_fields[field];

            for (size_t b = rf->ofs; b < rf->ofs + rf->size; b++) {
                w[b] |= m[b];
            }
        }
    }
    return NULL;
}
