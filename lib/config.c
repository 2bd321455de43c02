/*
 * Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
 *
 * The configuration file parser.
 *
 * Jansson parses the text and reports syntax errors with their position,
 * but keeps no position for the values it returns.  So after a successful
 * parse, a small scanner walks the same text once more and builds a tree
 * of positions that mirrors the JSON tree: for each value where it starts,
 * for each object member where its key starts.  The validator walks both
 * trees together and so can point every error at its key or value.
 *
 * Lines and columns count from 1; a column counts characters, not bytes,
 * as jansson's do.
 */
#include <autoconf.h>
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* Larger files are refused before parsing. */
#define CONFIG_MAX_FILE_SIZE (16 * 1024 * 1024)

/* Nesting beyond this is refused by the scanner (jansson stops at 2048). */
#define SCAN_MAX_DEPTH 4096

#define IFNAME_MAX_LEN 15       /* IFNAMSIZ - 1. */
#define BRIDGE_NAME_MAX_LEN 15
#define PORT_NAME_MAX_LEN 63
#define BOND_MAX_MEMBERS 32

/* Longest value quoted back in an error message. */
#define QUOTE_MAX_LEN 64

/* ------------------------------------------------------------------------
 * Position tree. */

struct jpos {
    int line;                   /* 0 if unknown. */
    int column;
};

struct pos_member;

struct pos_node {
    struct jpos pos;            /* The value's first character. */
    size_t n;                   /* Object members or array elements. */
    size_t allocated;
    struct pos_member *members; /* Objects, in document order. */
    struct pos_node *elems;     /* Arrays. */
};

struct pos_member {
    char *key;                  /* Decoded, as jansson decodes it. */
    size_t key_len;
    struct jpos key_pos;        /* The key's opening quote. */
    struct pos_node value;
};

struct scanner {
    const unsigned char *p;     /* Next byte. */
    const unsigned char *end;
    struct jpos pos;            /* Position of 'p'. */
    int depth;
    bool failed;
};

static void
pos_node_uninit(struct pos_node *node)
{
    for (size_t i = 0; node->members && i < node->n; i++) {
        free(node->members[i].key);
        pos_node_uninit(&node->members[i].value);
    }
    for (size_t i = 0; node->elems && i < node->n; i++) {
        pos_node_uninit(&node->elems[i]);
    }
    free(node->members);
    free(node->elems);
}

static void
scan_advance(struct scanner *s)
{
    unsigned char c = *s->p++;

    if (c == '\n') {
        s->pos.line++;
        s->pos.column = 1;
    } else if ((c & 0xc0) != 0x80) {
        /* UTF-8 continuation bytes belong to the previous character. */
        s->pos.column++;
    }
}

static bool
scan_at_end(const struct scanner *s)
{
    return s->failed || s->p >= s->end;
}

static void
scan_blanks(struct scanner *s)
{
    while (!scan_at_end(s) && *s->p && strchr(" \t\r\n", *s->p)) {
        scan_advance(s);
    }
}

/* Consumes 'c' or fails. */
static void
scan_expect(struct scanner *s, unsigned char c)
{
    if (scan_at_end(s) || *s->p != c) {
        s->failed = true;
    } else {
        scan_advance(s);
    }
}

static void
buf_append(char **buf, size_t *len, size_t *allocated, const char *data,
           size_t n)
{
    if (*len + n + 1 > *allocated) {
        *allocated = MAX(*allocated * 2, *len + n + 16);
        *buf = xrealloc(*buf, *allocated);
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* Reads 4 hex digits of a \u escape.  Returns the value, or -1. */
static int
scan_hex4(struct scanner *s)
{
    int value = 0;

    for (int i = 0; i < 4; i++) {
        int c, digit;

        if (scan_at_end(s)) {
            return -1;
        }
        c = *s->p;
        if (c >= '0' && c <= '9') {
            digit = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            digit = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            digit = c - 'A' + 10;
        } else {
            return -1;
        }
        value = value * 16 + digit;
        scan_advance(s);
    }
    return value;
}

/* Appends code point 'cp' as UTF-8. */
static void
append_utf8(char **buf, size_t *len, size_t *allocated, unsigned int cp)
{
    char u[4];
    size_t n;

    if (cp < 0x80) {
        u[0] = cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = 0xc0 | (cp >> 6);
        u[1] = 0x80 | (cp & 0x3f);
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = 0xe0 | (cp >> 12);
        u[1] = 0x80 | ((cp >> 6) & 0x3f);
        u[2] = 0x80 | (cp & 0x3f);
        n = 3;
    } else {
        u[0] = 0xf0 | (cp >> 18);
        u[1] = 0x80 | ((cp >> 12) & 0x3f);
        u[2] = 0x80 | ((cp >> 6) & 0x3f);
        u[3] = 0x80 | (cp & 0x3f);
        n = 4;
    }
    buf_append(buf, len, allocated, u, n);
}

/* Decodes the escape after a backslash into the buffer. */
static void
scan_escape(struct scanner *s, char **buf, size_t *len, size_t *allocated)
{
    static const char simple_from[] = "\"\\/bfnrt";
    static const char simple_to[] = "\"\\/\b\f\n\r\t";
    const char *simple;
    int cp;

    if (scan_at_end(s)) {
        s->failed = true;
        return;
    }
    simple = *s->p ? strchr(simple_from, *s->p) : NULL;
    if (simple) {
        scan_advance(s);
        buf_append(buf, len, allocated, &simple_to[simple - simple_from], 1);
        return;
    }
    scan_expect(s, 'u');
    cp = s->failed ? -1 : scan_hex4(s);
    if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6
        && s->p[0] == '\\' && s->p[1] == 'u') {
        /* A surrogate pair encodes one code point. */
        int low;

        scan_advance(s);
        scan_advance(s);
        low = scan_hex4(s);
        if (low < 0xdc00 || low > 0xdfff) {
            s->failed = true;
            return;
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    if (cp < 0) {
        s->failed = true;
        return;
    }
    append_utf8(buf, len, allocated, cp);
}

/* Scans a string.  If 'out' is nonnull, stores the decoded string there
 * (to free) and its length in '*out_len'. */
static void
scan_string(struct scanner *s, char **out, size_t *out_len)
{
    size_t len = 0, allocated = 0;
    char *buf = NULL;

    scan_expect(s, '"');
    while (!scan_at_end(s) && *s->p != '"') {
        if (*s->p == '\\') {
            scan_advance(s);
            scan_escape(s, &buf, &len, &allocated);
        } else {
            if (out) {
                buf_append(&buf, &len, &allocated, (const char *) s->p, 1);
            }
            scan_advance(s);
        }
    }
    scan_expect(s, '"');

    if (out && !s->failed) {
        *out = buf ? buf : xstrdup("");
        *out_len = len;
    } else {
        free(buf);
    }
}

/* Scans a number, true, false or null. */
static void
scan_scalar(struct scanner *s)
{
    const unsigned char *start = s->p;

    while (!scan_at_end(s) && *s->p && !strchr(",]} \t\r\n", *s->p)) {
        scan_advance(s);
    }
    if (s->p == start) {
        s->failed = true;
    }
}

static void scan_value(struct scanner *s, struct pos_node *node);

static void
scan_object(struct scanner *s, struct pos_node *node)
{
    scan_expect(s, '{');
    scan_blanks(s);
    if (!scan_at_end(s) && *s->p == '}') {
        scan_advance(s);
        return;
    }
    while (!s->failed) {
        struct pos_member *m;

        if (node->n >= node->allocated) {
            node->allocated = MAX(4, node->allocated * 2);
            node->members = xrealloc(node->members,
                                     node->allocated * sizeof *m);
        }
        m = &node->members[node->n++];
        memset(m, 0, sizeof *m);

        scan_blanks(s);
        m->key_pos = s->pos;
        scan_string(s, &m->key, &m->key_len);
        scan_blanks(s);
        scan_expect(s, ':');
        scan_blanks(s);
        scan_value(s, &m->value);
        scan_blanks(s);
        if (!scan_at_end(s) && *s->p == ',') {
            scan_advance(s);
        } else {
            scan_expect(s, '}');
            return;
        }
    }
}

static void
scan_array(struct scanner *s, struct pos_node *node)
{
    scan_expect(s, '[');
    scan_blanks(s);
    if (!scan_at_end(s) && *s->p == ']') {
        scan_advance(s);
        return;
    }
    while (!s->failed) {
        struct pos_node *elem;

        if (node->n >= node->allocated) {
            node->allocated = MAX(4, node->allocated * 2);
            node->elems = xrealloc(node->elems,
                                   node->allocated * sizeof *elem);
        }
        elem = &node->elems[node->n++];
        memset(elem, 0, sizeof *elem);

        scan_blanks(s);
        scan_value(s, elem);
        scan_blanks(s);
        if (!scan_at_end(s) && *s->p == ',') {
            scan_advance(s);
        } else {
            scan_expect(s, ']');
            return;
        }
    }
}

static void
scan_value(struct scanner *s, struct pos_node *node)
{
    node->pos = s->pos;
    if (scan_at_end(s) || ++s->depth > SCAN_MAX_DEPTH) {
        s->failed = true;
        return;
    }
    switch (*s->p) {
    case '{':
        scan_object(s, node);
        break;
    case '[':
        scan_array(s, node);
        break;
    case '"':
        scan_string(s, NULL, NULL);
        break;
    default:
        scan_scalar(s);
        break;
    }
    s->depth--;
}

/* Builds the position tree of the JSON text 'text' of 'size' bytes, which
 * jansson has accepted, into 'root'.  If the scanner stumbles anyway, the
 * tree is partial and the missing positions read as unknown. */
static void
scan_positions(const char *text, size_t size, struct pos_node *root)
{
    struct scanner s = {
        .p = (const unsigned char *) text,
        .end = (const unsigned char *) text + size,
        .pos = { 1, 1 },
    };

    memset(root, 0, sizeof *root);
    scan_blanks(&s);
    scan_value(&s, root);
}

/* Returns member 'key' (of 'key_len' bytes) of object 'node', expected at
 * index 'idx' (any index will do, at a linear cost), or NULL. */
static const struct pos_member *
pos_member(const struct pos_node *node, size_t idx, const char *key,
           size_t key_len)
{
    if (!node || !node->members) {
        return NULL;
    }
    if (idx < node->n && node->members[idx].key_len == key_len
        && !memcmp(node->members[idx].key, key, key_len)) {
        return &node->members[idx];
    }
    for (size_t i = 0; i < node->n; i++) {
        const struct pos_member *m = &node->members[i];

        if (m->key_len == key_len && !memcmp(m->key, key, key_len)) {
            return m;
        }
    }
    return NULL;
}

/* Returns element 'idx' of array 'node', or NULL. */
static const struct pos_node *
pos_elem(const struct pos_node *node, size_t idx)
{
    return node && node->elems && idx < node->n ? &node->elems[idx] : NULL;
}

static struct jpos
pos_of(const struct pos_node *node)
{
    return node ? node->pos : (struct jpos) { 0, 0 };
}

static bool
pos_before(struct jpos a, struct jpos b)
{
    return a.line < b.line || (a.line == b.line && a.column < b.column);
}

/* ------------------------------------------------------------------------
 * Messages. */

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

/* Returns 's' in double quotes, escaped as in JSON, for the caller to
 * free. */
static char *
quoted(const char *s)
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

/* Returns "LABEL must be WHAT, got VALUE" for the caller to free. */
static char *
must_be(const char *label, const char *what, const json_t *v)
{
    char *got = describe(v);
    char *msg = xasprintf("%s must be %s, got %s", label, what, got);

    free(got);
    return msg;
}

/* ------------------------------------------------------------------------
 * Value checks.  Each returns NULL and stores the value, or returns an error
 * message (without position) for the caller to free.  'label' names the
 * value in the message, usually as the quoted key. */

static char *
check_int(const json_t *v, const char *label, long long min, long long max,
          long long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < min
        || json_integer_value(v) > max) {
        char what[80];

        snprintf(what, sizeof what, "an integer from %lld to %lld",
                 min, max);
        return must_be(label, what, v);
    }
    *out = json_integer_value(v);
    return NULL;
}

static char *
check_bool(const json_t *v, const char *label, bool *out)
{
    if (!json_is_boolean(v)) {
        return must_be(label, "true or false", v);
    }
    *out = json_is_true(v);
    return NULL;
}

static char *
check_string(const json_t *v, const char *label, const char **out)
{
    if (!json_is_string(v)) {
        return must_be(label, "a string", v);
    }
    *out = json_string_value(v);
    return NULL;
}

/* Checks that 'v' is one of the 'n' strings in 'names' and stores its
 * index. */
static char *
check_enum(const json_t *v, const char *label, const char *const *names,
           size_t n, int *out)
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
    return must_be(label, what, v);
}

/* True if 's' is a valid Linux interface name (see dev_valid_name() in the
 * kernel). */
static bool
is_valid_ifname(const char *s)
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

static char *
check_ifname(const json_t *v, const char *label, const char **out)
{
    if (!json_is_string(v) || !is_valid_ifname(json_string_value(v))) {
        return must_be(label, "an interface name of 1 to 15 characters "
                       "without '/', ':' or blanks", v);
    }
    *out = json_string_value(v);
    return NULL;
}

/* True if 's' is a name of 1 to 'max_len' letters, digits, '-', '_' or
 * '.': such names can be used unquoted in rule matches and actions. */
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

static char *
check_name(const json_t *v, const char *label, size_t max_len,
           const char **out)
{
    if (!json_is_string(v) || !is_valid_name(json_string_value(v), max_len)) {
        char what[120];

        snprintf(what, sizeof what, "a name of 1 to %zu letters, digits, "
                 "'-', '_' or '.'", max_len);
        return must_be(label, what, v);
    }
    *out = json_string_value(v);
    return NULL;
}

static int
hex_digit_value(char c)
{
    return (c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
            : -1);
}

/* Checks a CPU mask such as "0x6" or "6" and stores it normalised in 'text'
 * (of CONFIG_CPU_MASK_MAX_DIGITS + 3 bytes) and as a set in 'cpus'. */
static char *
check_cpu_mask(const json_t *v, const char *label, char *text,
               cpu_set_t *cpus)
{
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    size_t n_digits;
    bool valid;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
    }
    n_digits = strlen(s);
    valid = n_digits > 0 && strspn(s, "0123456789abcdefABCDEF") == n_digits;
    s += strspn(s, "0");
    n_digits = strlen(s);
    if (!valid || !n_digits || n_digits > CONFIG_CPU_MASK_MAX_DIGITS) {
        char what[120];

        snprintf(what, sizeof what, "a nonzero hexadecimal CPU mask of at "
                 "most %d digits, such as \"0x6\"",
                 CONFIG_CPU_MASK_MAX_DIGITS);
        return must_be(label, what, v);
    }

    CPU_ZERO(cpus);
    text[0] = '0';
    text[1] = 'x';
    for (size_t i = 0; i < n_digits; i++) {
        int digit = hex_digit_value(s[i]);
        size_t first_cpu = (n_digits - 1 - i) * 4;

        text[2 + i] = "0123456789abcdef"[digit];
        for (int bit = 0; bit < 4; bit++) {
            if (digit & (1 << bit)) {
                CPU_SET(first_cpu + bit, cpus);
            }
        }
    }
    text[2 + n_digits] = '\0';
    return NULL;
}

/* A rule cookie: a non-negative integer or a "0x" hexadecimal string of up
 * to 16 digits. */
static char *
check_cookie(const json_t *v, const char *label, uint64_t *out)
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
    return must_be(label, "a non-negative integer or a hexadecimal string "
                   "such as \"0x1f\"", v);
}

/* ------------------------------------------------------------------------
 * other_config. */

enum other_kind {
    OTHER_BOOL,                 /* bool field. */
    OTHER_INT,                  /* int field. */
    OTHER_U32,                  /* uint32_t field. */
    OTHER_CPU_MASK,             /* 'pmd_cpu_mask' and 'pmd_cpus'. */
    OTHER_RXQ_ASSIGN,           /* enum config_rxq_assign field. */
};

struct other_spec {
    const char *name;
    enum other_kind kind;
    long long min, max;         /* OTHER_INT, OTHER_U32. */
    long long dflt;             /* Not for OTHER_CPU_MASK. */
    size_t offset;              /* Of the field in struct config_other. */
};

#define OTHER_FIELD(FIELD) offsetof(struct config_other, FIELD)

static const struct other_spec other_specs[CONFIG_OTHER_N_KEYS] = {
    [CONFIG_OTHER_PMD_CPU_MASK] = {
        "pmd-cpu-mask", OTHER_CPU_MASK, 0, 0, 0, 0 },
    [CONFIG_OTHER_USE_TPACKET_V3] = {
        "use-tpacket-v3", OTHER_BOOL, 0, 0, true,
        OTHER_FIELD(use_tpacket_v3) },
    [CONFIG_OTHER_EMC_INSERT_INV_PROB] = {
        "emc-insert-inv-prob", OTHER_U32, 0, UINT32_MAX, 100,
        OTHER_FIELD(emc_insert_inv_prob) },
    [CONFIG_OTHER_SMC_ENABLE] = {
        "smc-enable", OTHER_BOOL, 0, 0, true, OTHER_FIELD(smc_enable) },
    [CONFIG_OTHER_USERSPACE_TSO_ENABLE] = {
        "userspace-tso-enable", OTHER_BOOL, 0, 0, true,
        OTHER_FIELD(userspace_tso_enable) },
    [CONFIG_OTHER_PMD_SLEEP_MAX] = {
        "pmd-sleep-max", OTHER_INT, 0, 10000, 0,
        OTHER_FIELD(pmd_sleep_max) },
    [CONFIG_OTHER_TX_FLUSH_INTERVAL] = {
        "tx-flush-interval", OTHER_INT, 0, 1000000, 0,
        OTHER_FIELD(tx_flush_interval) },
    [CONFIG_OTHER_PMD_RXQ_ASSIGN] = {
        "pmd-rxq-assign", OTHER_RXQ_ASSIGN, 0, 0, CONFIG_RXQ_ASSIGN_CYCLES,
        OTHER_FIELD(pmd_rxq_assign) },
    [CONFIG_OTHER_BOND_REBALANCE_INTERVAL] = {
        "bond-rebalance-interval", OTHER_INT, 0, 10000, 10000,
        OTHER_FIELD(bond_rebalance_interval) },
    [CONFIG_OTHER_MAC_AGING_TIME] = {
        "mac-aging-time", OTHER_INT, 15, 3600, 300,
        OTHER_FIELD(mac_aging_time) },
    [CONFIG_OTHER_FLOW_IDLE_TIMEOUT] = {
        "flow-idle-timeout", OTHER_INT, 100, 3600000, 10000,
        OTHER_FIELD(flow_idle_timeout) },
};

static const char *const rxq_assign_names[] = {
    [CONFIG_RXQ_ASSIGN_ROUNDROBIN] = "roundrobin",
    [CONFIG_RXQ_ASSIGN_CYCLES] = "cycles",
};

static const char *const port_type_names[] = {
    [CONFIG_PORT_SYSTEM] = "system",
    [CONFIG_PORT_TAP] = "tap",
    [CONFIG_PORT_BOND] = "bond",
};

static const char *const bond_mode_names[] = {
    "active-backup", "balance-slb", "balance-tcp",
};

const char *
config_port_type_to_string(enum config_port_type type)
{
    return type < ARRAY_SIZE(port_type_names) ? port_type_names[type] : "?";
}

const char *
config_rxq_assign_to_string(enum config_rxq_assign assign)
{
    return (assign < ARRAY_SIZE(rxq_assign_names)
            ? rxq_assign_names[assign] : "?");
}

const char *
config_other_key_name(enum config_other_key key)
{
    return key < CONFIG_OTHER_N_KEYS ? other_specs[key].name : "?";
}

enum config_other_key
config_other_key_from_name(const char *name)
{
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        if (!strcmp(name, other_specs[k].name)) {
            return k;
        }
    }
    return CONFIG_OTHER_N_KEYS;
}

static void *
other_field(struct config_other *other, const struct other_spec *spec)
{
    return (char *) other + spec->offset;
}

static void
other_set_default(struct config_other *other, enum config_other_key key)
{
    const struct other_spec *spec = &other_specs[key];
    void *field = other_field(other, spec);

    switch (spec->kind) {
    case OTHER_BOOL:
        *(bool *) field = spec->dflt;
        break;
    case OTHER_INT:
        *(int *) field = spec->dflt;
        break;
    case OTHER_U32:
        *(uint32_t *) field = spec->dflt;
        break;
    case OTHER_CPU_MASK:
        other->pmd_cpu_mask[0] = '\0';
        CPU_ZERO(&other->pmd_cpus);
        break;
    case OTHER_RXQ_ASSIGN:
        *(enum config_rxq_assign *) field = spec->dflt;
        break;
    }
    other->set[key] = false;
}

void
config_other_init(struct config_other *other)
{
    memset(other, 0, sizeof *other);
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        other_set_default(other, k);
    }
}

/* Validates 'v' for 'key' and, if valid, stores it in 'other' and marks it
 * set.  Returns NULL or an error message. */
static char *
other_apply(struct config_other *other, enum config_other_key key,
            const json_t *v)
{
    const struct other_spec *spec = &other_specs[key];
    void *field = other_field(other, spec);
    char *error = NULL;
    char label[64];

    snprintf(label, sizeof label, "\"%s\"", spec->name);
    switch (spec->kind) {
    case OTHER_BOOL: {
        bool b = false;

        error = check_bool(v, label, &b);
        if (!error) {
            *(bool *) field = b;
        }
        break;
    }
    case OTHER_INT:
    case OTHER_U32: {
        long long n = 0;

        error = check_int(v, label, spec->min, spec->max, &n);
        if (!error && spec->kind == OTHER_INT) {
            *(int *) field = n;
        } else if (!error) {
            *(uint32_t *) field = n;
        }
        break;
    }
    case OTHER_CPU_MASK: {
        char text[sizeof other->pmd_cpu_mask];
        cpu_set_t cpus;

        error = check_cpu_mask(v, label, text, &cpus);
        if (!error) {
            memcpy(other->pmd_cpu_mask, text, sizeof text);
            other->pmd_cpus = cpus;
        }
        break;
    }
    case OTHER_RXQ_ASSIGN: {
        int idx = 0;

        error = check_enum(v, label, rxq_assign_names,
                           ARRAY_SIZE(rxq_assign_names), &idx);
        if (!error) {
            *(enum config_rxq_assign *) field = idx;
        }
        break;
    }
    }
    if (!error) {
        other->set[key] = true;
    }
    return error;
}

/* Returns "a, b, c" for the 'n' strings in 'names', for the caller to
 * free. */
static char *
join_names(const char *const *names, size_t n)
{
    size_t len = 0, allocated = 0;
    char *s = NULL;

    for (size_t i = 0; i < n; i++) {
        if (i) {
            buf_append(&s, &len, &allocated, ", ", 2);
        }
        buf_append(&s, &len, &allocated, names[i], strlen(names[i]));
    }
    return s ? s : xstrdup("");
}

static char *
other_known_keys(void)
{
    const char *names[CONFIG_OTHER_N_KEYS];

    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        names[k] = other_specs[k].name;
    }
    return join_names(names, CONFIG_OTHER_N_KEYS);
}

/* Returns 'value', text for key 'spec', as the JSON value the config file
 * would hold, for the caller to release. */
static json_t *
other_value_from_string(const struct other_spec *spec, const char *value)
{
    json_t *v = NULL;

    if (spec->kind != OTHER_CPU_MASK && spec->kind != OTHER_RXQ_ASSIGN) {
        v = json_loads(value, JSON_DECODE_ANY, NULL);
        if (v && (json_is_object(v) || json_is_array(v))) {
            json_decref(v);
            v = NULL;
        }
    }
    return v ? v : json_string_nocheck(value);
}

char *
config_other_set(struct config_other *other, const char *key,
                 const char *value)
{
    enum config_other_key k = config_other_key_from_name(key);
    char *error;
    json_t *v;

    if (k == CONFIG_OTHER_N_KEYS) {
        char *q = quoted(key);
        char *known = other_known_keys();

        error = xasprintf("unknown key %s (known keys: %s)", q, known);
        free(known);
        free(q);
        return error;
    }
    if (!value) {
        other_set_default(other, k);
        return NULL;
    }
    v = other_value_from_string(&other_specs[k], value);
    error = other_apply(other, k, v);
    json_decref(v);
    return error;
}

void
config_other_format(const struct config_other *other, char *buf,
                    size_t size)
{
    size_t len = 0;

    if (size) {
        buf[0] = '\0';
    }
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        const struct other_spec *spec = &other_specs[k];
        const void *field = (const char *) other + spec->offset;
        char value[sizeof other->pmd_cpu_mask];

        switch (spec->kind) {
        case OTHER_BOOL:
            snprintf(value, sizeof value, "%s",
                     *(const bool *) field ? "true" : "false");
            break;
        case OTHER_INT:
            snprintf(value, sizeof value, "%d", *(const int *) field);
            break;
        case OTHER_U32:
            snprintf(value, sizeof value, "%"PRIu32,
                     *(const uint32_t *) field);
            break;
        case OTHER_CPU_MASK:
            if (!other->pmd_cpu_mask[0]) {
                continue;
            }
            snprintf(value, sizeof value, "%s", other->pmd_cpu_mask);
            break;
        case OTHER_RXQ_ASSIGN:
            snprintf(value, sizeof value, "%s",
                     config_rxq_assign_to_string(
                         *(const enum config_rxq_assign *) field));
            break;
        }
        if (len < size) {
            len += snprintf(buf + len, size - len, "%s=%s\n", spec->name,
                            value);
        }
    }
}

/* ------------------------------------------------------------------------
 * Validation. */

struct cfg_ctx {
    const char *name;           /* Starts every error message. */
    char *error;                /* The first error, or NULL. */
    json_t *bridge_names;       /* Name -> [line, column]. */
    json_t *port_names;         /* Name -> [line, column]. */
    json_t *interfaces;         /* Interface -> [port, line, column]. */
};

/* Records error 'msg' (freed here) at 'pos'.  Returns false. */
static bool
fail(struct cfg_ctx *ctx, struct jpos pos, char *msg)
{
    if (!ctx->error) {
        ctx->error = (pos.line > 0
                      ? xasprintf("%s:%d:%d: %s", ctx->name, pos.line,
                                  pos.column, msg)
                      : xasprintf("%s: %s", ctx->name, msg));
    }
    free(msg);
    return false;
}

static bool failf(struct cfg_ctx *ctx, struct jpos pos, const char *format,
                  ...) PRINTF_FORMAT(3, 4);

static bool
failf(struct cfg_ctx *ctx, struct jpos pos, const char *format, ...)
{
    va_list args;
    char *msg;

    va_start(args, format);
    if (vasprintf(&msg, format, args) < 0) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    va_end(args);
    return fail(ctx, pos, msg);
}

/* Records the error 'msg' if nonnull.  Returns true if there was none. */
static bool
check(struct cfg_ctx *ctx, struct jpos pos, char *msg)
{
    return msg ? fail(ctx, pos, msg) : true;
}

static bool
fail_unknown_key(struct cfg_ctx *ctx, struct jpos pos, const char *key,
                 const char *where, const char *const *known, size_t n)
{
    char *names = join_names(known, n);
    char *q = quoted(key);
    bool ok;

    ok = failf(ctx, pos, "unknown key %s in %s (known keys: %s)", q, where,
               names);
    free(names);
    free(q);
    return ok;
}

/* Records 'name' at 'pos' in the set 'names'.  If it is already there,
 * stores where in '*first' and returns false. */
static bool
claim_name(json_t *names, const char *name, struct jpos pos,
           struct jpos *first)
{
    json_t *prev = json_object_get(names, name);

    if (prev) {
        first->line = json_integer_value(json_array_get(prev, 0));
        first->column = json_integer_value(json_array_get(prev, 1));
        return false;
    }
    json_object_set_new(names, name, json_pack("[ii]", pos.line,
                                               pos.column));
    return true;
}

/* Records that port 'port' uses interface 'ifname', named at 'pos'. */
static bool
claim_interface(struct cfg_ctx *ctx, const char *ifname, const char *port,
                struct jpos pos)
{
    json_t *prev = json_object_get(ctx->interfaces, ifname);

    if (prev) {
        char *q_if = quoted(ifname);
        char *q_port = quoted(json_string_value(json_array_get(prev, 0)));
        bool ok;

        ok = failf(ctx, pos, "interface %s is already used by port %s "
                   "(at %d:%d)", q_if, q_port,
                   (int) json_integer_value(json_array_get(prev, 1)),
                   (int) json_integer_value(json_array_get(prev, 2)));
        free(q_if);
        free(q_port);
        return ok;
    }
    json_object_set_new(ctx->interfaces, ifname,
                        json_pack("[sii]", port, pos.line, pos.column));
    return true;
}

/* Iterates over the members of object 'OBJ' in document order, with
 * 'KEY', 'VALUE', the key's position 'KEY_POS' and the value's position
 * node 'VNODE' (NULL if unknown), given the object's position node
 * 'NODE'. */
#define OBJECT_FOR_EACH(KEY, VALUE, KEY_POS, VNODE, OBJ, NODE)          \
    for (size_t idx__ = 0, done__ = 0; !done__; done__ = 1)             \
        for (void *it__ = json_object_iter((json_t *) (OBJ));           \
             it__ && ((KEY) = json_object_iter_key(it__),               \
                      (VALUE) = json_object_iter_value(it__),           \
                      member_positions(NODE, idx__++, KEY, &(KEY_POS),  \
                                       &(VNODE)), true);                \
             it__ = json_object_iter_next((json_t *) (OBJ), it__))

static void
member_positions(const struct pos_node *node, size_t idx, const char *key,
                 struct jpos *key_pos, const struct pos_node **vnode)
{
    const struct pos_member *m = pos_member(node, idx, key, strlen(key));

    *key_pos = m ? m->key_pos : pos_of(NULL);
    *vnode = m ? &m->value : NULL;
}

/* Where the keys of a port were, for the checks that span keys. */
struct port_keys {
    struct jpos object;
    struct jpos name_value;
    struct jpos interface_key, interface_value;
    struct jpos create_key;
    struct jpos tag_key;
    struct jpos trunks_key;
    struct jpos members_key;
    struct jpos *member_values;     /* One per member. */
    struct jpos bond_mode_key;
    bool has_interface, has_tag, has_trunks, has_members, has_bond_mode;
};

static const char *const top_keys[] = { "bridges", "other_config" };
static const char *const bridge_keys[] = { "name", "ports", "rules" };
static const char *const port_keys[] = {
    "name", "interface", "type", "create", "tag", "trunks", "members",
    "options",
};
static const char *const options_keys[] = { "n_rxq", "bond_mode" };
static const char *const rule_keys[] = {
    "priority", "match", "actions", "cookie",
};

static bool
parse_trunks(struct cfg_ctx *ctx, const json_t *v,
             const struct pos_node *node, struct config_port *port)
{
    bool seen[4096] = { false };

    if (!json_is_array(v)) {
        return fail(ctx, pos_of(node), must_be("\"trunks\"", "an array of "
                                               "VLAN IDs", v));
    }
    port->n_trunks = json_array_size(v);
    port->trunks = xcalloc(port->n_trunks, sizeof *port->trunks);
    for (size_t i = 0; i < port->n_trunks; i++) {
        struct jpos pos = pos_of(pos_elem(node, i));
        long long vid = 0;

        if (!check(ctx, pos, check_int(json_array_get(v, i),
                                       "each entry of \"trunks\"", 1, 4094,
                                       &vid))) {
            return false;
        }
        if (seen[vid]) {
            return failf(ctx, pos, "VLAN %lld appears twice in \"trunks\"",
                         vid);
        }
        seen[vid] = true;
        port->trunks[i] = vid;
    }
    return true;
}

static bool
parse_members(struct cfg_ctx *ctx, const json_t *v,
              const struct pos_node *node, struct config_port *port,
              struct port_keys *keys)
{
    size_t n;

    if (!json_is_array(v)) {
        return fail(ctx, pos_of(node), must_be("\"members\"", "an array of "
                                               "interface names", v));
    }
    n = json_array_size(v);
    if (n < 1 || n > BOND_MAX_MEMBERS) {
        return failf(ctx, pos_of(node), "\"members\" must list 1 to %d "
                     "interfaces, got %zu", BOND_MAX_MEMBERS, n);
    }
    port->members = xcalloc(n, sizeof *port->members);
    keys->member_values = xcalloc(n, sizeof *keys->member_values);
    for (size_t i = 0; i < n; i++) {
        struct jpos pos = pos_of(pos_elem(node, i));
        const char *ifname = NULL;

        if (!check(ctx, pos, check_ifname(json_array_get(v, i),
                                          "each entry of \"members\"",
                                          &ifname))) {
            return false;
        }
        port->members[i] = xstrdup(ifname);
        port->n_members++;
        keys->member_values[i] = pos;
    }
    return true;
}

static bool
parse_port_options(struct cfg_ctx *ctx, const json_t *v,
                   const struct pos_node *node, const char *port_label,
                   struct config_port *port, struct port_keys *keys)
{
    const struct pos_node *vnode;
    struct jpos key_pos;
    const char *key;
    json_t *value;

    if (!json_is_object(v)) {
        return fail(ctx, pos_of(node), must_be("\"options\"", "an object",
                                               v));
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        struct jpos pos = pos_of(vnode);

        if (!strcmp(key, "n_rxq")) {
            long long n = 0;

            if (!check(ctx, pos, check_int(value, "\"n_rxq\"", 1, 64, &n))) {
                return false;
            }
            port->n_rxq = n;
        } else if (!strcmp(key, "bond_mode")) {
            int mode = 0;

            if (!check(ctx, pos, check_enum(value, "\"bond_mode\"",
                                            bond_mode_names,
                                            ARRAY_SIZE(bond_mode_names),
                                            &mode))) {
                return false;
            }
            port->bond_mode = xstrdup(bond_mode_names[mode]);
            keys->has_bond_mode = true;
            keys->bond_mode_key = key_pos;
        } else {
            char *where = xasprintf("options of %s", port_label);
            bool ok = fail_unknown_key(ctx, key_pos, key, where, options_keys,
                                       ARRAY_SIZE(options_keys));
            free(where);
            return ok;
        }
    }
    return true;
}

/* Parses the member 'key' of a port. */
static bool
parse_port_member(struct cfg_ctx *ctx, const char *key, const json_t *value,
                  struct jpos key_pos, const struct pos_node *vnode,
                  const char *label, struct config_port *port,
                  struct port_keys *keys)
{
    struct jpos pos = pos_of(vnode);
    const char *s = NULL;
    long long n = 0;
    int idx = 0;

    if (!strcmp(key, "name")) {
        keys->name_value = pos;
        if (!check(ctx, pos, check_name(value, "\"name\"", PORT_NAME_MAX_LEN,
                                        &s))) {
            return false;
        }
        port->name = xstrdup(s);
    } else if (!strcmp(key, "interface")) {
        keys->has_interface = true;
        keys->interface_key = key_pos;
        keys->interface_value = pos;
        if (!check(ctx, pos, check_ifname(value, "\"interface\"", &s))) {
            return false;
        }
        port->interface = xstrdup(s);
    } else if (!strcmp(key, "type")) {
        if (!check(ctx, pos, check_enum(value, "\"type\"", port_type_names,
                                        ARRAY_SIZE(port_type_names),
                                        &idx))) {
            return false;
        }
        port->type = idx;
    } else if (!strcmp(key, "create")) {
        keys->create_key = key_pos;
        return check(ctx, pos, check_bool(value, "\"create\"",
                                          &port->create));
    } else if (!strcmp(key, "tag")) {
        keys->has_tag = true;
        keys->tag_key = key_pos;
        if (!check(ctx, pos, check_int(value, "\"tag\"", 1, 4094, &n))) {
            return false;
        }
        port->tag = n;
    } else if (!strcmp(key, "trunks")) {
        keys->has_trunks = true;
        keys->trunks_key = key_pos;
        return parse_trunks(ctx, value, vnode, port);
    } else if (!strcmp(key, "members")) {
        keys->has_members = true;
        keys->members_key = key_pos;
        return parse_members(ctx, value, vnode, port, keys);
    } else if (!strcmp(key, "options")) {
        return parse_port_options(ctx, value, vnode, label, port, keys);
    } else {
        return fail_unknown_key(ctx, key_pos, key, label, port_keys,
                                ARRAY_SIZE(port_keys));
    }
    return true;
}

/* Checks the rules that involve a bond's keys together. */
static bool
check_bond_port(struct cfg_ctx *ctx, const char *label,
                struct config_port *port, const struct port_keys *keys)
{
    if (keys->has_interface) {
        return failf(ctx, keys->interface_key, "\"interface\" is not allowed "
                     "on ports of type \"bond\"; list the member interfaces "
                     "in \"members\"");
    }
    if (!keys->has_members) {
        return failf(ctx, keys->object, "%s is missing required key "
                     "\"members\" (ports of type \"bond\" need it)", label);
    }
    if (!port->bond_mode) {
        port->bond_mode = xstrdup(bond_mode_names[0]);
    }
    for (size_t i = 0; i < port->n_members; i++) {
        if (!claim_interface(ctx, port->members[i], port->name,
                             keys->member_values[i])) {
            return false;
        }
    }
    return true;
}

/* Checks the rules that involve a non-bond port's keys together. */
static bool
check_plain_port(struct cfg_ctx *ctx, struct config_port *port,
                 const struct port_keys *keys)
{
    struct jpos if_pos = keys->interface_value;

    if (keys->has_members) {
        return failf(ctx, keys->members_key, "\"members\" is only allowed on "
                     "ports of type \"bond\"");
    }
    if (keys->has_bond_mode) {
        return failf(ctx, keys->bond_mode_key, "\"bond_mode\" is only "
                     "allowed on ports of type \"bond\"");
    }
    if (!port->interface) {
        if (!is_valid_ifname(port->name)) {
            char *q = quoted(port->name);
            bool ok = failf(ctx, keys->name_value, "port name %s is not a "
                            "valid interface name; set \"interface\" to the "
                            "kernel interface", q);
            free(q);
            return ok;
        }
        port->interface = xstrdup(port->name);
        if_pos = keys->name_value;
    }
    return claim_interface(ctx, port->interface, port->name, if_pos);
}

static bool
check_port(struct cfg_ctx *ctx, const char *label, struct config_port *port,
           const struct port_keys *keys)
{
    struct jpos first;

    if (!port->name) {
        return failf(ctx, keys->object, "%s is missing required key "
                     "\"name\"", label);
    }
    if (!claim_name(ctx->port_names, port->name, keys->name_value, &first)) {
        char *q = quoted(port->name);
        bool ok = failf(ctx, keys->name_value, "duplicate port name %s "
                        "(first defined at %d:%d)", q, first.line,
                        first.column);
        free(q);
        return ok;
    }
    if (port->create && port->type != CONFIG_PORT_TAP) {
        return failf(ctx, keys->create_key, "\"create\": true is only "
                     "allowed on ports of type \"tap\"");
    }
    if (keys->has_tag && keys->has_trunks) {
        return failf(ctx, (pos_before(keys->tag_key, keys->trunks_key)
                           ? keys->trunks_key : keys->tag_key),
                     "\"tag\" and \"trunks\" cannot both be set: a port is "
                     "either an access port or a trunk");
    }
    return (port->type == CONFIG_PORT_BOND
            ? check_bond_port(ctx, label, port, keys)
            : check_plain_port(ctx, port, keys));
}

/* Parses port number 'idx' of the bridge described by 'bridge_label'. */
static bool
parse_port(struct cfg_ctx *ctx, const json_t *v, const struct pos_node *node,
           size_t idx, const char *bridge_label, struct config_port *port)
{
    struct port_keys keys = { .object = pos_of(node) };
    const struct pos_node *vnode;
    const json_t *name, *value;
    struct jpos key_pos;
    const char *key;
    char *label;
    bool ok = true;

    if (!json_is_object(v)) {
        return fail(ctx, pos_of(node), must_be("each entry of \"ports\"",
                                               "an object", v));
    }
    port->n_rxq = 1;

    name = json_object_get(v, "name");
    if (json_is_string(name)) {
        char *q = quoted(json_string_value(name));
        label = xasprintf("port %s", q);
        free(q);
    } else {
        label = xasprintf("port #%zu of %s", idx + 1, bridge_label);
    }

    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        ok = parse_port_member(ctx, key, value, key_pos, vnode, label, port,
                               &keys);
        if (!ok) {
            break;
        }
    }
    ok = ok && check_port(ctx, label, port, &keys);
    free(keys.member_values);
    free(label);
    return ok;
}

static bool
parse_ports(struct cfg_ctx *ctx, const json_t *v, const struct pos_node *node,
            const char *bridge_label, struct config_bridge *bridge)
{
    if (!json_is_array(v)) {
        return fail(ctx, pos_of(node), must_be("\"ports\"", "an array of "
                                               "port objects", v));
    }
    bridge->n_ports = json_array_size(v);
    bridge->ports = xcalloc(bridge->n_ports, sizeof *bridge->ports);
    for (size_t i = 0; i < bridge->n_ports; i++) {
        if (!parse_port(ctx, json_array_get(v, i), pos_elem(node, i), i,
                        bridge_label, &bridge->ports[i])) {
            return false;
        }
    }
    return true;
}

static bool
parse_rule(struct cfg_ctx *ctx, const json_t *v, const struct pos_node *node,
           size_t idx, const char *bridge_label, struct config_rule *rule)
{
    const struct pos_node *vnode;
    struct jpos key_pos;
    const json_t *value;
    const char *key;
    char *label;
    bool ok = true;

    if (!json_is_object(v)) {
        return fail(ctx, pos_of(node), must_be("each entry of \"rules\"",
                                               "an object", v));
    }
    rule->priority = 32768;
    rule->line = pos_of(node).line;
    rule->column = pos_of(node).column;

    label = xasprintf("rule #%zu of %s", idx + 1, bridge_label);
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        struct jpos pos = pos_of(vnode);
        const char *s = NULL;
        long long n = 0;

        if (!strcmp(key, "priority")) {
            ok = check(ctx, pos, check_int(value, "\"priority\"", 0, 65535,
                                           &n));
            rule->priority = n;
        } else if (!strcmp(key, "match")) {
            ok = check(ctx, pos, check_string(value, "\"match\"", &s));
            if (ok) {
                free(rule->match);
                rule->match = xstrdup(s);
            }
        } else if (!strcmp(key, "actions")) {
            ok = check(ctx, pos, (json_is_string(value)
                                  && json_string_length(value)
                                  ? check_string(value, "\"actions\"", &s)
                                  : must_be("\"actions\"",
                                            "a non-empty string", value)));
            if (ok) {
                rule->actions = xstrdup(s);
            }
        } else if (!strcmp(key, "cookie")) {
            ok = check(ctx, pos, check_cookie(value, "\"cookie\"",
                                              &rule->cookie));
        } else {
            ok = fail_unknown_key(ctx, key_pos, key, label, rule_keys,
                                  ARRAY_SIZE(rule_keys));
        }
        if (!ok) {
            break;
        }
    }
    if (ok && !rule->actions) {
        ok = failf(ctx, pos_of(node), "%s is missing required key "
                   "\"actions\"", label);
    }
    if (ok && !rule->match) {
        rule->match = xstrdup("");
    }
    free(label);
    return ok;
}

static bool
parse_rules(struct cfg_ctx *ctx, const json_t *v, const struct pos_node *node,
            const char *bridge_label, struct config_bridge *bridge)
{
    if (!json_is_array(v)) {
        return fail(ctx, pos_of(node), must_be("\"rules\"", "an array of "
                                               "rule objects", v));
    }
    bridge->n_rules = json_array_size(v);
    bridge->rules = xcalloc(bridge->n_rules, sizeof *bridge->rules);
    for (size_t i = 0; i < bridge->n_rules; i++) {
        if (!parse_rule(ctx, json_array_get(v, i), pos_elem(node, i), i,
                        bridge_label, &bridge->rules[i])) {
            return false;
        }
    }
    return true;
}

/* Parses the member 'key' of a bridge. */
static bool
parse_bridge_member(struct cfg_ctx *ctx, const char *key,
                    const json_t *value, struct jpos key_pos,
                    const struct pos_node *vnode, const char *label,
                    struct config_bridge *bridge)
{
    struct jpos pos = pos_of(vnode);
    struct jpos first;
    const char *s = NULL;

    if (!strcmp(key, "name")) {
        if (!check(ctx, pos, check_name(value, "\"name\"",
                                        BRIDGE_NAME_MAX_LEN, &s))) {
            return false;
        }
        if (!claim_name(ctx->bridge_names, s, pos, &first)) {
            char *q = quoted(s);
            bool ok = failf(ctx, pos, "duplicate bridge name %s (first "
                            "defined at %d:%d)", q, first.line,
                            first.column);
            free(q);
            return ok;
        }
        bridge->name = xstrdup(s);
        return true;
    } else if (!strcmp(key, "ports")) {
        return parse_ports(ctx, value, vnode, label, bridge);
    } else if (!strcmp(key, "rules")) {
        return parse_rules(ctx, value, vnode, label, bridge);
    }
    return fail_unknown_key(ctx, key_pos, key, label, bridge_keys,
                            ARRAY_SIZE(bridge_keys));
}

static bool
parse_bridge(struct cfg_ctx *ctx, const json_t *v,
             const struct pos_node *node, size_t idx,
             struct config_bridge *bridge)
{
    const struct pos_node *vnode;
    const json_t *name, *value;
    struct jpos key_pos;
    const char *key;
    char *label;
    bool ok = true;

    if (!json_is_object(v)) {
        return fail(ctx, pos_of(node), must_be("each entry of \"bridges\"",
                                               "an object", v));
    }

    name = json_object_get(v, "name");
    if (json_is_string(name)) {
        char *q = quoted(json_string_value(name));
        label = xasprintf("bridge %s", q);
        free(q);
    } else {
        label = xasprintf("bridge #%zu", idx + 1);
    }

    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        ok = parse_bridge_member(ctx, key, value, key_pos, vnode, label,
                                 bridge);
        if (!ok) {
            break;
        }
    }
    if (ok && !bridge->name) {
        ok = failf(ctx, pos_of(node), "%s is missing required key \"name\"",
                   label);
    }
    free(label);
    return ok;
}

static bool
parse_bridges(struct cfg_ctx *ctx, const json_t *v,
              const struct pos_node *node, struct pmd_config *config)
{
    if (!json_is_array(v)) {
        return fail(ctx, pos_of(node), must_be("\"bridges\"", "an array of "
                                               "bridge objects", v));
    }
    config->n_bridges = json_array_size(v);
    config->bridges = xcalloc(config->n_bridges, sizeof *config->bridges);
    for (size_t i = 0; i < config->n_bridges; i++) {
        if (!parse_bridge(ctx, json_array_get(v, i), pos_elem(node, i), i,
                          &config->bridges[i])) {
            return false;
        }
    }
    return true;
}

static bool
parse_other(struct cfg_ctx *ctx, const json_t *v, const struct pos_node *node,
            struct config_other *other)
{
    const struct pos_node *vnode;
    struct jpos key_pos;
    const json_t *value;
    const char *key;

    if (!json_is_object(v)) {
        return fail(ctx, pos_of(node), must_be("\"other_config\"",
                                               "an object", v));
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, v, node) {
        enum config_other_key k = config_other_key_from_name(key);

        if (k == CONFIG_OTHER_N_KEYS) {
            char *known = other_known_keys();
            char *q = quoted(key);
            bool ok = failf(ctx, key_pos, "unknown key %s in other_config "
                            "(known keys: %s)", q, known);
            free(q);
            free(known);
            return ok;
        }
        if (!check(ctx, pos_of(vnode), other_apply(other, k, value))) {
            return false;
        }
    }
    return true;
}

static bool
parse_top(struct cfg_ctx *ctx, const json_t *root,
          const struct pos_node *node, struct pmd_config *config)
{
    const struct pos_node *vnode;
    bool has_bridges = false;
    struct jpos key_pos;
    const json_t *value;
    const char *key;

    if (!json_is_object(root)) {
        return fail(ctx, pos_of(node), must_be("the configuration",
                                               "a JSON object", root));
    }
    OBJECT_FOR_EACH (key, value, key_pos, vnode, root, node) {
        bool ok;

        if (!strcmp(key, "bridges")) {
            has_bridges = true;
            ok = parse_bridges(ctx, value, vnode, config);
        } else if (!strcmp(key, "other_config")) {
            ok = parse_other(ctx, value, vnode, &config->other);
        } else {
            ok = fail_unknown_key(ctx, key_pos, key, "the configuration",
                                  top_keys, ARRAY_SIZE(top_keys));
        }
        if (!ok) {
            return false;
        }
    }
    if (!has_bridges) {
        return failf(ctx, pos_of(node), "the configuration is missing "
                     "required key \"bridges\"");
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Entry points. */

static bool
is_blank(const char *text, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (!text[i] || !strchr(" \t\r\n", text[i])) {
            return false;
        }
    }
    return true;
}

static struct pmd_config *
parse_buffer(const char *text, size_t size, const char *name, char **errp)
{
    struct cfg_ctx ctx = { .name = name };
    struct pmd_config *config = NULL;
    struct pos_node root_pos;
    json_error_t jerror;
    json_t *root;

    /* Some editors start UTF-8 files with a byte order mark. */
    if (size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        text += 3;
        size -= 3;
    }
    if (is_blank(text, size)) {
        ctx.error = xasprintf("%s:1:1: the configuration is empty (expected "
                              "a JSON object)", name);
        goto out;
    }
    root = json_loadb(text, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                      &jerror);
    if (!root) {
        /* At the very end of a file that ends in a newline, jansson says
         * column 0: that is column 1 of the empty last line. */
        ctx.error = (jerror.line > 0
                     ? xasprintf("%s:%d:%d: %s", name, jerror.line,
                                 MAX(jerror.column, 1), jerror.text)
                     : xasprintf("%s: %s", name, jerror.text));
        goto out;
    }

    scan_positions(text, size, &root_pos);
    ctx.bridge_names = json_object();
    ctx.port_names = json_object();
    ctx.interfaces = json_object();
    config = xzalloc(sizeof *config);
    config_other_init(&config->other);
    if (!parse_top(&ctx, root, &root_pos, config)) {
        config_destroy(config);
        config = NULL;
    }
    json_decref(ctx.bridge_names);
    json_decref(ctx.port_names);
    json_decref(ctx.interfaces);
    pos_node_uninit(&root_pos);
    json_decref(root);

out:
    if (errp) {
        *errp = ctx.error;
    } else {
        free(ctx.error);
    }
    return config;
}

struct pmd_config *
config_parse_string(const char *text, const char *name_for_errors,
                    char **errp)
{
    return parse_buffer(text, strlen(text),
                        name_for_errors ? name_for_errors : "<string>", errp);
}

/* Reads all of 'path' into '*textp' (to free) and its size into '*sizep'.
 * Returns NULL or an error message. */
static char *
read_file(const char *path, char **textp, size_t *sizep)
{
    size_t size = 0, allocated = 64 * 1024;
    char *text;
    FILE *file;

    file = fopen(path, "rb");
    if (!file) {
        return xasprintf("%s: cannot open: %s", path, strerror(errno));
    }
    text = xmalloc(allocated);
    for (;;) {
        size_t n = fread(text + size, 1, allocated - size, file);

        size += n;
        if (size > CONFIG_MAX_FILE_SIZE) {
            fclose(file);
            free(text);
            return xasprintf("%s: file is larger than %d bytes", path,
                             CONFIG_MAX_FILE_SIZE);
        }
        if (size < allocated) {
            break;
        }
        allocated *= 2;
        text = xrealloc(text, allocated);
    }
    if (ferror(file)) {
        int error = errno;

        fclose(file);
        free(text);
        return xasprintf("%s: read error: %s", path, strerror(error));
    }
    fclose(file);
    *textp = text;
    *sizep = size;
    return NULL;
}

struct pmd_config *
config_parse_file(const char *path, char **errp)
{
    struct pmd_config *config;
    char *text = NULL;
    size_t size = 0;
    char *error;

    error = read_file(path, &text, &size);
    if (error) {
        if (errp) {
            *errp = error;
        } else {
            free(error);
        }
        return NULL;
    }
    config = parse_buffer(text, size, path, errp);
    free(text);
    return config;
}

static void
config_port_uninit(struct config_port *port)
{
    free(port->name);
    free(port->interface);
    free(port->trunks);
    for (size_t i = 0; i < port->n_members; i++) {
        free(port->members[i]);
    }
    free(port->members);
    free(port->bond_mode);
}

static void
config_bridge_uninit(struct config_bridge *bridge)
{
    free(bridge->name);
    for (size_t i = 0; i < bridge->n_ports; i++) {
        config_port_uninit(&bridge->ports[i]);
    }
    free(bridge->ports);
    for (size_t i = 0; i < bridge->n_rules; i++) {
        free(bridge->rules[i].match);
        free(bridge->rules[i].actions);
    }
    free(bridge->rules);
}

void
config_destroy(struct pmd_config *config)
{
    if (!config) {
        return;
    }
    for (size_t i = 0; i < config->n_bridges; i++) {
        config_bridge_uninit(&config->bridges[i]);
    }
    free(config->bridges);
    free(config);
}

const struct config_port *
config_bridge_find_port(const struct config_bridge *bridge, const char *name)
{
    for (size_t i = 0; i < bridge->n_ports; i++) {
        if (!strcmp(bridge->ports[i].name, name)) {
            return &bridge->ports[i];
        }
    }
    return NULL;
}
