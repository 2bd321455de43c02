/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Value checks and error wording for the configuration modules.  The
 * messages quote the offending value back as JSON, so that what the user
 * sees matches what the file says.
 */
#include <autoconf.h>
#include "config/config-check.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "ofproto/ofproto-rules.h"
#include "base/util.h"

#define IFNAME_MAX_LEN 15       /* IFNAMSIZ - 1. */

/* Longest value quoted back in an error message. */
#define QUOTE_MAX_LEN 64

/* Returns 'v' as compact JSON text in ASCII, cut to QUOTE_MAX_LEN
 * characters, for the caller to free. */
static char *
json_text(const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT
                            | JSON_ENSURE_ASCII);

    if (!s) {
        return xstrdup("?");
    }
    if (strlen(s) > QUOTE_MAX_LEN) {
        strcpy(s + QUOTE_MAX_LEN - 3, "...");
    }
    return s;
}

char *
config_check_quote(const char *s)
{
    json_t *js = json_string(s);
    char *q;

    if (!js) {
        return xstrdup("\"?\"");
    }
    q = json_text(js);
    json_decref(js);
    return q;
}

/* Describes value 'v' after "got " in a message, for the caller to
 * free. */
static char *
describe(const json_t *v)
{
    if (json_is_object(v)) {
        return xstrdup("an object");
    } else if (json_is_array(v)) {
        return xstrdup("an array");
    }
    return json_text(v);
}

char *
config_check_must_be(const char *label, const char *what, const json_t *v)
{
    char *got = describe(v);
    char *msg = xasprintf("%s must be %s, got %s", label, what, got);

    free(got);
    return msg;
}

char *
config_check_join_names(const char *const *names, size_t n)
{
    size_t size = 1;
    char *s, *p;

    for (size_t i = 0; i < n; i++) {
        size += strlen(names[i]) + 2;
    }
    s = p = xmalloc(size);
    *p = '\0';
    for (size_t i = 0; i < n; i++) {
        p = stpcpy(p, i ? ", " : "");
        p = stpcpy(p, names[i]);
    }
    return s;
}

char *
config_check_int(const json_t *v, const char *label, long long min,
                 long long max, long long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < min
        || json_integer_value(v) > max) {
        char what[80];

        snprintf(what, sizeof what, "an integer from %lld to %lld",
                 min, max);
        return config_check_must_be(label, what, v);
    }
    *out = json_integer_value(v);
    return NULL;
}

char *
config_check_bool(const json_t *v, const char *label, bool *out)
{
    if (!json_is_boolean(v)) {
        return config_check_must_be(label, "true or false", v);
    }
    *out = json_is_true(v);
    return NULL;
}

char *
config_check_string(const json_t *v, const char *label, const char **out)
{
    if (!json_is_string(v)) {
        return config_check_must_be(label, "a string", v);
    }
    *out = json_string_value(v);
    return NULL;
}

char *
config_check_enum(const json_t *v, const char *label,
                  const char *const *names, size_t n, int *out)
{
    char what[200];
    size_t len;

    if (json_is_string(v)) {
        for (size_t i = 0; i < n; i++) {
            if (!strcmp(json_string_value(v), names[i])) {
                *out = i;
                return NULL;
            }
        }
    }
    len = snprintf(what, sizeof what, "one of");
    for (size_t i = 0; i < n && len < sizeof what; i++) {
        len += snprintf(what + len, sizeof what - len, "%s \"%s\"",
                        i ? "," : "", names[i]);
    }
    return config_check_must_be(label, what, v);
}

bool
config_check_is_valid_ifname(const char *s)
{
    size_t len = strlen(s);

    if (!len || len > IFNAME_MAX_LEN || !strcmp(s, ".")
        || !strcmp(s, "..")) {
        return false;
    }
    for (const char *p = s; *p; p++) {
        if (*p == '/' || *p == ':' || isspace((unsigned char) *p)) {
            return false;
        }
    }
    return true;
}

char *
config_check_ifname(const json_t *v, const char *label, const char **out)
{
    if (!json_is_string(v)
        || !config_check_is_valid_ifname(json_string_value(v))) {
        return config_check_must_be(label, "an interface name of 1 to 15 "
                                    "characters without '/', ':' or blanks",
                                    v);
    }
    *out = json_string_value(v);
    return NULL;
}

static bool
is_valid_name(const char *s, size_t max_len)
{
    size_t len = strlen(s);

    if (!len || len > max_len) {
        return false;
    }
    for (const char *p = s; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'
              || *p == '.')) {
            return false;
        }
    }
    return true;
}

char *
config_check_name(const json_t *v, const char *label, size_t max_len,
                  const char **out)
{
    if (!json_is_string(v) || !is_valid_name(json_string_value(v), max_len)) {
        char what[120];

        snprintf(what, sizeof what, "a name of 1 to %zu letters, digits, "
                 "'-', '_' or '.'", max_len);
        return config_check_must_be(label, what, v);
    }
    *out = json_string_value(v);
    return NULL;
}

char *
config_check_cookie(const json_t *v, const char *label, uint64_t *out)
{
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    size_t n_digits;

    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = json_integer_value(v);
        return NULL;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n_digits = strlen(s);
        if (n_digits && n_digits <= 16
            && strspn(s, "0123456789abcdefABCDEF") == n_digits) {
            *out = strtoull(s, NULL, 16);
            return NULL;
        }
    }
    return config_check_must_be(label, "a non-negative integer or a "
                                "hexadecimal string such as \"0x1f\"", v);
}

/* Resolves port 'name' of bridge 'br_' to its index in the bridge, which
 * stands in for the port number the datapath will give it. */
static bool
config_check_rule_port(const char *name, uint16_t *port_no, void *br_)
{
    const struct config_bridge *br = br_;

    for (size_t i = 0; i < br->n_ports; i++) {
        if (!strcmp(br->ports[i].name, name)) {
            *port_no = i;
            return true;
        }
    }
    return false;
}

/* The port named 'name' in 'cfg', with its bridge in '*brp', or NULL. */
static const struct config_port *
config_check_find_port__(const struct pmd_config *cfg, const char *name,
                         const struct config_bridge **brp)
{
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_port *p = config_bridge_find_port(
            &cfg->bridges[b], name);

        if (p) {
            *brp = &cfg->bridges[b];
            return p;
        }
    }
    return NULL;
}

char *
config_check_patch_ports(const struct pmd_config *cfg,
                         const struct config_port **bad)
{
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_bridge *br = &cfg->bridges[b];

        for (size_t i = 0; i < br->n_ports; i++) {
            const struct config_port *p = &br->ports[i];
            const struct config_bridge *peer_br = NULL;
            const struct config_port *peer;

            if (p->type != CONFIG_PORT_PATCH) {
                continue;
            }
            *bad = p;
            peer = config_check_find_port__(cfg, p->peer, &peer_br);
            if (!peer) {
                return xasprintf("patch port %s: its peer %s does not exist",
                                 p->name, p->peer);
            }
            if (peer->type != CONFIG_PORT_PATCH) {
                return xasprintf("patch port %s: its peer %s is a port of "
                                 "type \"%s\", not \"patch\"", p->name,
                                 peer->name,
                                 config_port_type_to_string(peer->type));
            }
            if (strcmp(peer->peer, p->name)) {
                return xasprintf("patch port %s: its peer %s names %s as "
                                 "its own peer, not %s", p->name, peer->name,
                                 peer->peer, p->name);
            }
            if (peer_br == br) {
                return xasprintf("patch port %s: its peer %s is on the "
                                 "same bridge %s; a patch joins two "
                                 "bridges", p->name, peer->name, br->name);
            }
        }
    }
    return NULL;
}

char *
config_check_rules(const struct pmd_config *cfg, const char *file)
{
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_bridge *br = &cfg->bridges[b];

        for (size_t i = 0; i < br->n_rules; i++) {
            const struct config_rule *r = &br->rules[i];
            struct ofproto_rule *rule;
            char *error;

            error = ofproto_rule_create(r->priority, r->cookie, r->match,
                                        r->actions, config_check_rule_port,
                                        (void *) br, &rule);
            ofproto_rule_destroy(rule);
            if (error) {
                /* A document with no text (config_parse_json()) has no
                 * positions: say which rule instead. */
                char *msg = (r->line > 0
                             ? xasprintf("%s:%d:%d: rule %s",
                                         file ? file : "config", r->line,
                                         r->column, error)
                             : xasprintf("%s: rule #%zu of bridge %s: %s",
                                         file ? file : "config", i + 1,
                                         br->name, error));

                free(error);
                return msg;
            }
        }
    }
    return NULL;
}
