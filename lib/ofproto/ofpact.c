/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Parsing and formatting of rule actions (see ofpact.h).  An action list
 * is split at commas; each item is "keyword" or "keyword:argument", and
 * set_field has the shape "set_field:VALUE->FIELD".  Every error names the
 * item at fault.
 */
#include <autoconf.h>
#include "ofproto/ofpact.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/ds.h"
#include "packet/miniflow.h"
#include "base/util.h"

/* The header a set action rewrites, for its prerequisite check. */
enum ofpact_prereq {
    OFPACT_PREREQ_NONE,
    OFPACT_PREREQ_IPV4,
    OFPACT_PREREQ_TCP,
    OFPACT_PREREQ_UDP,
    OFPACT_PREREQ_L4,           /* TCP, UDP or SCTP. */
};

/* A field that set_field or a mod_* action can rewrite. */
struct ofpact_field {
    const char *name;           /* set_field name. */
    const char *alias;          /* Another set_field name, or NULL. */
    const char *mod;            /* mod_* keyword, or NULL. */
    enum ofpact_type type;
    enum ofpact_prereq prereq;
};

static const struct ofpact_field ofpact_fields[] = {
    { "eth_src", "dl_src", "mod_dl_src", OFPACT_SET_ETH_SRC,
      OFPACT_PREREQ_NONE },
    { "eth_dst", "dl_dst", "mod_dl_dst", OFPACT_SET_ETH_DST,
      OFPACT_PREREQ_NONE },
    { "ip_src", "nw_src", "mod_nw_src", OFPACT_SET_IPV4_SRC,
      OFPACT_PREREQ_IPV4 },
    { "ip_dst", "nw_dst", "mod_nw_dst", OFPACT_SET_IPV4_DST,
      OFPACT_PREREQ_IPV4 },
    { "tcp_src", NULL, NULL, OFPACT_SET_TP_SRC, OFPACT_PREREQ_TCP },
    { "tcp_dst", NULL, NULL, OFPACT_SET_TP_DST, OFPACT_PREREQ_TCP },
    { "udp_src", NULL, NULL, OFPACT_SET_TP_SRC, OFPACT_PREREQ_UDP },
    { "udp_dst", NULL, NULL, OFPACT_SET_TP_DST, OFPACT_PREREQ_UDP },
    { "tp_src", NULL, "mod_tp_src", OFPACT_SET_TP_SRC, OFPACT_PREREQ_L4 },
    { "tp_dst", NULL, "mod_tp_dst", OFPACT_SET_TP_DST, OFPACT_PREREQ_L4 },
    { "tun_id", NULL, "set_tunnel", OFPACT_SET_TUN_ID, OFPACT_PREREQ_NONE },
};

/* Parses all of 's' as an unsigned number, decimal or "0x" hex, at most
 * 'max'.  A decimal with a leading zero is refused, as in match_parse(). */
static bool
ofpact_parse_uint(const char *s, unsigned long long max,
                  unsigned long long *out)
{
    char *end;

    if (!*s || *s == '-' || *s == '+' || *s == ' '
        || (s[0] == '0' && s[1] && s[1] != 'x' && s[1] != 'X')) {
        return false;
    }
    errno = 0;
    *out = strtoull(s, &end, 0);
    return !errno && !*end && end != s && *out <= max;
}

static bool
ofpact_parse_mac(const char *s, struct eth_addr *mac)
{
    unsigned int b[6];
    int n = 0;

    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &b[3],
               &b[4], &b[5], &n) != 6 || s[n] || n != 17) {
        return false;
    }
    for (int i = 0; i < 6; i++) {
        mac->ea[i] = b[i];
    }
    return true;
}

/* True if 'match'/'mask' match 'field' of struct flow exactly on 'value'
 * ('size' bytes). */
static bool
ofpact_match_is(const void *match_field, const void *mask_field,
                const void *value, size_t size)
{
    const uint8_t *m = mask_field;

    for (size_t i = 0; i < size; i++) {
        if (m[i] != 0xff) {
            return false;
        }
    }
    return !memcmp(match_field, value, size);
}

static bool
ofpact_match_dl_type(const struct flow *match, const struct flow *mask,
                     uint16_t dl_type)
{
    ovs_be16 v = htons(dl_type);

    return ofpact_match_is(&match->dl_type, &mask->dl_type, &v, sizeof v);
}

static bool
ofpact_match_proto(const struct flow *match, const struct flow *mask,
                   uint8_t proto)
{
    return ((ofpact_match_dl_type(match, mask, ETH_TYPE_IP)
             || ofpact_match_dl_type(match, mask, ETH_TYPE_IPV6))
            && ofpact_match_is(&match->nw_proto, &mask->nw_proto, &proto,
                               1));
}

/* Returns NULL if the match guarantees 'prereq', else what to add. */
static const char *
ofpact_check_prereq(enum ofpact_prereq prereq, const struct flow *match,
                    const struct flow *mask)
{
    switch (prereq) {
    case OFPACT_PREREQ_NONE:
        return NULL;
    case OFPACT_PREREQ_IPV4:
        return (ofpact_match_dl_type(match, mask, ETH_TYPE_IP)
                ? NULL : "an IPv4 match (\"ip\")");
    case OFPACT_PREREQ_TCP:
        return ofpact_match_proto(match, mask, 6) ? NULL
               : "a TCP match (\"tcp\" or \"tcp6\")";
    case OFPACT_PREREQ_UDP:
        return ofpact_match_proto(match, mask, 17) ? NULL
               : "a UDP match (\"udp\" or \"udp6\")";
    case OFPACT_PREREQ_L4:
        return (ofpact_match_proto(match, mask, 6)
                || ofpact_match_proto(match, mask, 17)
                || ofpact_match_proto(match, mask, 132)) ? NULL
               : "a TCP, UDP or SCTP match";
    }
    return NULL;
}

/* Parses 'value' for a rewrite of 'field' into 'a'. */
static char *
ofpact_parse_set(const struct ofpact_field *field, const char *item,
                 const char *value, const struct flow *match,
                 const struct flow *mask, struct ofpact *a)
{
    const char *missing;
    unsigned long long n;

    a->type = field->type;
    switch (field->type) {
    case OFPACT_SET_ETH_SRC:
    case OFPACT_SET_ETH_DST:
        if (!ofpact_parse_mac(value, &a->mac)) {
            return xasprintf("\"%s\": \"%s\" is not an Ethernet address",
                             item, value);
        }
        break;
    case OFPACT_SET_IPV4_SRC:
    case OFPACT_SET_IPV4_DST:
        if (inet_pton(AF_INET, value, &a->ipv4) != 1) {
            return xasprintf("\"%s\": \"%s\" is not an IPv4 address",
                             item, value);
        }
        break;
    case OFPACT_SET_TUN_ID:
        if (!ofpact_parse_uint(value, 0xffffff, &n)) {
            return xasprintf("\"%s\": \"%s\" is not a VNI (0 to 16777215: "
                             "VXLAN carries 24 bits of tun_id)", item,
                             value);
        }
        a->tun_id = n;
        break;
    default:
        if (!ofpact_parse_uint(value, UINT16_MAX, &n)) {
            return xasprintf("\"%s\": \"%s\" is not a port number "
                             "(0 to 65535)", item, value);
        }
        a->tp_port = htons(n);
        break;
    }
    missing = ofpact_check_prereq(field->prereq, match, mask);
    if (missing) {
        return xasprintf("\"%s\" requires %s in the rule's match",
                         item, missing);
    }
    return NULL;
}

/* Parses the output port 'arg' of item 'item'. */
static char *
ofpact_parse_port(const char *item, const char *arg,
                  match_port_lookup_cb *lookup, void *aux, uint16_t *port)
{
    unsigned long long n;

    if (arg[0] >= '0' && arg[0] <= '9') {
        if (!ofpact_parse_uint(arg, UINT16_MAX - 1, &n)) {
            return xasprintf("\"%s\": \"%s\" is not a port number", item,
                             arg);
        }
        *port = n;
        return NULL;
    }
    if (!*arg || !lookup || !lookup(arg, port, aux)) {
        return xasprintf("\"%s\": no port named \"%s\"", item, arg);
    }
    return NULL;
}

/* Parses one action 'item' into 'a'. */
static char *
ofpact_parse_item(char *item, const struct flow *match,
                  const struct flow *mask, match_port_lookup_cb *lookup,
                  void *aux, struct ofpact *a)
{
    char *colon = strchr(item, ':');
    const char *arg = colon ? colon + 1 : NULL;
    size_t key_len = colon ? (size_t) (colon - item) : strlen(item);
    unsigned long long n;
    char key[32];

    memset(a, 0, sizeof *a);
    if (key_len >= sizeof key) {
        return xasprintf("unknown action \"%s\"", item);
    }
    memcpy(key, item, key_len);
    key[key_len] = '\0';

    if (!strcasecmp(key, "normal") || !strcasecmp(key, "flood")
        || !strcasecmp(key, "pop_vlan") || !strcasecmp(key, "strip_vlan")) {
        if (arg) {
            return xasprintf("\"%s\": %s takes no argument", item, key);
        }
        a->type = (!strcasecmp(key, "normal") ? OFPACT_NORMAL
                   : !strcasecmp(key, "flood") ? OFPACT_FLOOD
                   : OFPACT_POP_VLAN);
        return NULL;
    }
    if (!strcasecmp(key, "drop")) {
        return xstrdup("\"drop\" must be the only action");
    }
    if (!arg) {
        return xasprintf("unknown action \"%s\"", item);
    }
    if (!strcmp(key, "output")) {
        a->type = OFPACT_OUTPUT;
        return ofpact_parse_port(item, arg, lookup, aux, &a->port);
    }
    if (!strcmp(key, "push_vlan")) {
        if (!ofpact_parse_uint(arg, UINT16_MAX, &n)
            || (n != ETH_TYPE_VLAN_8021Q && n != ETH_TYPE_VLAN_8021AD)) {
            return xasprintf("\"%s\": the TPID must be 0x8100 or 0x88a8",
                             item);
        }
        a->type = OFPACT_PUSH_VLAN;
        a->tpid = htons(n);
        return NULL;
    }
    if (!strcmp(key, "mod_vlan_vid")) {
        if (!ofpact_parse_uint(arg, VLAN_VID_MASK, &n)) {
            return xasprintf("\"%s\": the VID must be 0 to 4095", item);
        }
        a->type = OFPACT_SET_VLAN_VID;
        a->vid = n;
        return NULL;
    }
    if (!strcmp(key, "mod_vlan_pcp")) {
        if (!ofpact_parse_uint(arg, 7, &n)) {
            return xasprintf("\"%s\": the PCP must be 0 to 7", item);
        }
        a->type = OFPACT_SET_VLAN_PCP;
        a->pcp = n;
        return NULL;
    }
    if (!strcmp(key, "set_field")) {
        char *arrow = strstr(arg, "->");
        char value[64];

        if (!arrow || arrow == arg || (size_t) (arrow - arg) >= sizeof value) {
            return xasprintf("\"%s\": expected set_field:VALUE->FIELD",
                             item);
        }
        memcpy(value, arg, arrow - arg);
        value[arrow - arg] = '\0';
        for (size_t i = 0; i < ARRAY_SIZE(ofpact_fields); i++) {
            const struct ofpact_field *f = &ofpact_fields[i];

            if (f->prereq != OFPACT_PREREQ_L4
                && (!strcmp(arrow + 2, f->name)
                    || (f->alias && !strcmp(arrow + 2, f->alias)))) {
                return ofpact_parse_set(f, item, value, match, mask, a);
            }
        }
        return xasprintf("\"%s\": set_field cannot set \"%s\" (eth_src, "
                         "eth_dst, ip_src, ip_dst, tcp_src, tcp_dst, "
                         "udp_src, udp_dst or tun_id)", item, arrow + 2);
    }
    for (size_t i = 0; i < ARRAY_SIZE(ofpact_fields); i++) {
        const struct ofpact_field *f = &ofpact_fields[i];

        if (f->mod && !strcmp(key, f->mod)) {
            return ofpact_parse_set(f, item, arg, match, mask, a);
        }
    }
    return xasprintf("unknown action \"%s\"", item);
}

/* Strips white space around 's' in place and returns it. */
static char *
ofpact_strip(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
        s++;
    }
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'
                       || end[-1] == '\n' || end[-1] == '\r')) {
        *--end = '\0';
    }
    return s;
}

char *
ofpacts_parse(const char *text, const struct flow *match,
              const struct flow *mask, match_port_lookup_cb *lookup,
              void *aux, struct ofpact **ofpactsp, size_t *n_ofpactsp)
{
    char *copy = xstrdup(text);
    char *rest = copy;
    struct ofpact *acts;
    char *error = NULL;
    size_t n = 0;

    *ofpactsp = NULL;
    *n_ofpactsp = 0;
    if (!*ofpact_strip(copy)) {
        free(copy);
        return xstrdup("no actions (use \"drop\" to drop)");
    }
    if (!strcasecmp(ofpact_strip(copy), "drop")) {
        free(copy);
        return NULL;
    }
    acts = xcalloc(strlen(text) / 2 + 1, sizeof *acts);
    for (;;) {
        char *comma = strchr(rest, ',');
        char *item;

        if (comma) {
            *comma = '\0';
        }
        item = ofpact_strip(rest);
        if (!*item) {
            error = xstrdup("empty action (two commas in a row?)");
            break;
        }
        error = ofpact_parse_item(item, match, mask, lookup, aux, &acts[n]);
        if (error) {
            break;
        }
        n++;
        if (!comma) {
            break;
        }
        rest = comma + 1;
    }
    free(copy);
    if (error) {
        free(acts);
        return error;
    }
    *ofpactsp = acts;
    *n_ofpactsp = n;
    return NULL;
}

char *
ofpacts_format(const struct ofpact *ofpacts, size_t n,
               ofpact_port_name_cb *port_name, void *aux,
               char *buf, size_t size)
{
    size_t ofs = 0;

    if (!size) {
        return buf;
    }
    buf[0] = '\0';
    if (!n) {
        ds_put_bounded(buf, size, &ofs, "drop");
    }
    for (size_t i = 0; i < n; i++) {
        const struct ofpact *a = &ofpacts[i];
        const char *sep = i ? "," : "";
        char ip[INET_ADDRSTRLEN];
        char name[64];

        switch ((enum ofpact_type) a->type) {
        case OFPACT_OUTPUT:
            if (port_name && port_name(a->port, name, sizeof name, aux)) {
                ds_put_bounded(buf, size, &ofs, "%soutput:%s", sep, name);
            } else {
                ds_put_bounded(buf, size, &ofs, "%soutput:%"PRIu16, sep,
                               a->port);
            }
            break;
        case OFPACT_NORMAL:
            ds_put_bounded(buf, size, &ofs, "%sNORMAL", sep);
            break;
        case OFPACT_FLOOD:
            ds_put_bounded(buf, size, &ofs, "%sFLOOD", sep);
            break;
        case OFPACT_PUSH_VLAN:
            ds_put_bounded(buf, size, &ofs, "%spush_vlan:0x%04"PRIx16, sep,
                           ntohs(a->tpid));
            break;
        case OFPACT_POP_VLAN:
            ds_put_bounded(buf, size, &ofs, "%spop_vlan", sep);
            break;
        case OFPACT_SET_VLAN_VID:
            ds_put_bounded(buf, size, &ofs, "%smod_vlan_vid:%"PRIu16, sep,
                           a->vid);
            break;
        case OFPACT_SET_VLAN_PCP:
            ds_put_bounded(buf, size, &ofs, "%smod_vlan_pcp:%u", sep,
                           (unsigned int) a->pcp);
            break;
        case OFPACT_SET_ETH_SRC:
        case OFPACT_SET_ETH_DST:
            ds_put_bounded(buf, size, &ofs, "%smod_dl_%s:"ETH_ADDR_FMT, sep,
                           a->type == OFPACT_SET_ETH_SRC ? "src" : "dst",
                           ETH_ADDR_ARGS(a->mac));
            break;
        case OFPACT_SET_IPV4_SRC:
        case OFPACT_SET_IPV4_DST:
            inet_ntop(AF_INET, &a->ipv4, ip, sizeof ip);
            ds_put_bounded(buf, size, &ofs, "%smod_nw_%s:%s", sep,
                           a->type == OFPACT_SET_IPV4_SRC ? "src" : "dst", ip);
            break;
        case OFPACT_SET_TP_SRC:
        case OFPACT_SET_TP_DST:
            ds_put_bounded(buf, size, &ofs, "%smod_tp_%s:%"PRIu16, sep,
                           a->type == OFPACT_SET_TP_SRC ? "src" : "dst",
                           ntohs(a->tp_port));
            break;
        case OFPACT_SET_TUN_ID:
            ds_put_bounded(buf, size, &ofs, "%sset_field:0x%"PRIx32
                           "->tun_id", sep, a->tun_id);
            break;
        }
    }
    return buf;
}
