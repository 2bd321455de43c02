/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The JSON position scanner: a recursive descent over the text that tracks
 * line and column and records them in a tree shaped like the JSON value.
 * It decodes object keys, because callers find members by key, and skips
 * over everything else.  See json-pos.h for what it accepts.
 */
#include <autoconf.h>
#include "config/json-pos.h"

#include <stdlib.h>
#include <string.h>
#include "base/util.h"

struct json_pos_member;

struct json_pos_node {
    struct json_pos pos;                /* The value's first character. */
    size_t n;                           /* Object members or array
                                         * elements. */
    size_t allocated;                   /* Room in 'members' or 'elems'. */
    struct json_pos_member *members;    /* Objects, in document order. */
    struct json_pos_node *elems;        /* Arrays. */
};

struct json_pos_member {
    char *key;                          /* Decoded, NUL-terminated. */
    size_t key_len;                     /* Bytes in 'key'. */
    struct json_pos key_pos;            /* The key's opening quote. */
    struct json_pos_node value;
};

struct scanner {
    const unsigned char *p;             /* Next byte. */
    const unsigned char *end;
    struct json_pos pos;                /* Position of 'p'. */
    int depth;                          /* Values open around 'p'. */
    bool failed;                        /* Stops every step. */
    struct json_pos error_pos;          /* Where it failed. */
};

/* A growable decoded string. */
struct scan_buf {
    char *s;                            /* NULL until the first byte. */
    size_t len;
    size_t allocated;
};

static void
json_pos_node_uninit(struct json_pos_node *node)
{
    for (size_t i = 0; node->members && i < node->n; i++) {
        free(node->members[i].key);
        json_pos_node_uninit(&node->members[i].value);
    }
    for (size_t i = 0; node->elems && i < node->n; i++) {
        json_pos_node_uninit(&node->elems[i]);
    }
    free(node->members);
    free(node->elems);
}

static void
scan_fail_at(struct scanner *s, struct json_pos pos)
{
    if (!s->failed) {
        s->failed = true;
        s->error_pos = pos;
    }
}

static void
scan_fail(struct scanner *s)
{
    scan_fail_at(s, s->pos);
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

/* True if 'c' is the next byte. */
static bool
scan_at(const struct scanner *s, unsigned char c)
{
    return !scan_at_end(s) && *s->p == c;
}

/* True if the next byte can start a value.  Blanks must be skipped
 * already. */
static bool
scan_at_value(const struct scanner *s)
{
    return !scan_at_end(s) && *s->p && !strchr(",:]}", *s->p);
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
    if (scan_at(s, c)) {
        scan_advance(s);
    } else {
        scan_fail(s);
    }
}

static void
scan_buf_append(struct scan_buf *buf, const void *data, size_t n)
{
    if (buf->len + n + 1 > buf->allocated) {
        buf->allocated = MAX(buf->allocated * 2, buf->len + n + 16);
        buf->s = xrealloc(buf->s, buf->allocated);
    }
    memcpy(buf->s + buf->len, data, n);
    buf->len += n;
    buf->s[buf->len] = '\0';
}

/* Appends code point 'cp' as UTF-8. */
static void
scan_buf_append_utf8(struct scan_buf *buf, unsigned int cp)
{
    unsigned char u[4];
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
    scan_buf_append(buf, u, n);
}

/* Reads the 4 hex digits of a \u escape.  Returns their value, or -1 after
 * failing at the first byte that is not one. */
static int
scan_hex4(struct scanner *s)
{
    int value = 0;

    for (int i = 0; i < 4; i++) {
        int c = scan_at_end(s) ? -1 : *s->p;
        int digit = (c >= '0' && c <= '9' ? c - '0'
                     : c >= 'a' && c <= 'f' ? c - 'a' + 10
                     : c >= 'A' && c <= 'F' ? c - 'A' + 10
                     : -1);

        if (digit < 0) {
            scan_fail(s);
            return -1;
        }
        value = value * 16 + digit;
        scan_advance(s);
    }
    return value;
}

/* Decodes the escape after a backslash into 'buf'. */
static void
scan_escape(struct scanner *s, struct scan_buf *buf)
{
    static const char simple_from[] = "\"\\/bfnrt";
    static const char simple_to[] = "\"\\/\b\f\n\r\t";
    const char *simple;
    int cp;

    simple = scan_at_end(s) || !*s->p ? NULL : strchr(simple_from, *s->p);
    if (simple) {
        scan_advance(s);
        scan_buf_append(buf, &simple_to[simple - simple_from], 1);
        return;
    }
    scan_expect(s, 'u');
    cp = s->failed ? -1 : scan_hex4(s);
    if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6
        && s->p[0] == '\\' && s->p[1] == 'u') {
        /* A surrogate pair encodes one code point. */
        struct json_pos low_pos = s->pos;
        int low;

        scan_advance(s);
        scan_advance(s);
        low = scan_hex4(s);
        if (low < 0xdc00 || low > 0xdfff) {
            scan_fail_at(s, low_pos);
            return;
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    if (cp >= 0) {
        scan_buf_append_utf8(buf, cp);
    }
}

/* Scans a string.  If 'out' is nonnull, stores in it the decoded string
 * (for the caller to free), or a NULL string if the scan failed. */
static void
scan_string(struct scanner *s, struct scan_buf *out)
{
    struct scan_buf buf = { NULL, 0, 0 };

    scan_expect(s, '"');
    while (!scan_at_end(s) && *s->p != '"') {
        if (*s->p == '\\') {
            scan_advance(s);
            scan_escape(s, &buf);
        } else {
            if (out) {
                scan_buf_append(&buf, s->p, 1);
            }
            scan_advance(s);
        }
    }
    scan_expect(s, '"');

    if (out && !s->failed) {
        *out = buf;
        if (!out->s) {
            out->s = xstrdup("");
        }
    } else {
        free(buf.s);
        if (out) {
            *out = (struct scan_buf) { NULL, 0, 0 };
        }
    }
}

/* Scans a number, true, false or null: any bytes up to a delimiter.  The
 * first byte, checked by scan_at_value(), is not one. */
static void
scan_scalar(struct scanner *s)
{
    while (!scan_at_end(s) && *s->p && !strchr(",]} \t\r\n", *s->p)) {
        scan_advance(s);
    }
}

static void scan_value(struct scanner *s, struct json_pos_node *node);

static void
scan_object(struct scanner *s, struct json_pos_node *node)
{
    scan_expect(s, '{');
    scan_blanks(s);
    if (scan_at(s, '}')) {
        scan_advance(s);
        return;
    }
    while (!s->failed) {
        struct json_pos_member *m;
        struct json_pos key_pos;
        struct scan_buf key;

        scan_blanks(s);
        key_pos = s->pos;
        scan_string(s, &key);
        if (!key.s) {
            return;
        }

        if (node->n >= node->allocated) {
            node->allocated = MAX(4, node->allocated * 2);
            node->members = xrealloc(node->members,
                                     node->allocated * sizeof *m);
        }
        m = &node->members[node->n++];
        memset(m, 0, sizeof *m);
        m->key = key.s;
        m->key_len = key.len;
        m->key_pos = key_pos;

        scan_blanks(s);
        scan_expect(s, ':');
        scan_blanks(s);
        scan_value(s, &m->value);
        scan_blanks(s);
        if (scan_at(s, ',')) {
            scan_advance(s);
        } else {
            scan_expect(s, '}');
            return;
        }
    }
}

static void
scan_array(struct scanner *s, struct json_pos_node *node)
{
    scan_expect(s, '[');
    scan_blanks(s);
    if (scan_at(s, ']')) {
        scan_advance(s);
        return;
    }
    while (!s->failed) {
        struct json_pos_node *elem;

        scan_blanks(s);
        if (!scan_at_value(s)) {
            scan_fail(s);
            return;
        }

        if (node->n >= node->allocated) {
            node->allocated = MAX(4, node->allocated * 2);
            node->elems = xrealloc(node->elems,
                                   node->allocated * sizeof *elem);
        }
        elem = &node->elems[node->n++];
        memset(elem, 0, sizeof *elem);

        scan_value(s, elem);
        scan_blanks(s);
        if (scan_at(s, ',')) {
            scan_advance(s);
        } else {
            scan_expect(s, ']');
            return;
        }
    }
}

/* Scans one value into 'node'.  Blanks before it must be skipped
 * already. */
static void
scan_value(struct scanner *s, struct json_pos_node *node)
{
    if (!scan_at_value(s)) {
        scan_fail(s);
        return;
    }
    node->pos = s->pos;
    if (++s->depth > JSON_POS_MAX_DEPTH) {
        scan_fail(s);
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
        scan_string(s, NULL);
        break;
    default:
        scan_scalar(s);
        break;
    }
    s->depth--;
}

struct json_pos_node *
json_pos_scan(const char *text, size_t size, struct json_pos *error_pos)
{
    struct json_pos_node *root = xzalloc(sizeof *root);
    struct scanner s = {
        .p = (const unsigned char *) text,
        .end = (const unsigned char *) text + size,
        .pos = { 1, 1 },
    };

    scan_blanks(&s);
    scan_value(&s, root);
    scan_blanks(&s);
    if (!scan_at_end(&s)) {
        scan_fail(&s);
    }
    if (error_pos) {
        *error_pos = s.failed ? s.error_pos : (struct json_pos) { 0, 0 };
    }
    return root;
}

void
json_pos_destroy(struct json_pos_node *root)
{
    if (root) {
        json_pos_node_uninit(root);
        free(root);
    }
}

struct json_pos
json_pos_of(const struct json_pos_node *node)
{
    return node ? node->pos : (struct json_pos) { 0, 0 };
}

size_t
json_pos_n_members(const struct json_pos_node *node)
{
    return node && node->members ? node->n : 0;
}

size_t
json_pos_n_elems(const struct json_pos_node *node)
{
    return node && node->elems ? node->n : 0;
}

static bool
json_pos_member_has_key(const struct json_pos_member *m, const char *key,
                        size_t key_len)
{
    return m->key_len == key_len && !memcmp(m->key, key, key_len);
}

const struct json_pos_node *
json_pos_member(const struct json_pos_node *node, const char *key,
                size_t key_len, size_t hint, struct json_pos *key_pos)
{
    const struct json_pos_member *found = NULL;
    size_t n = json_pos_n_members(node);

    if (hint < n && json_pos_member_has_key(&node->members[hint], key,
                                            key_len)) {
        found = &node->members[hint];
    }
    for (size_t i = 0; !found && i < n; i++) {
        if (json_pos_member_has_key(&node->members[i], key, key_len)) {
            found = &node->members[i];
        }
    }
    if (key_pos) {
        *key_pos = found ? found->key_pos : (struct json_pos) { 0, 0 };
    }
    return found ? &found->value : NULL;
}

const struct json_pos_node *
json_pos_member_at(const struct json_pos_node *node, size_t idx,
                   const char **key, size_t *key_len,
                   struct json_pos *key_pos)
{
    const struct json_pos_member *m;

    if (idx >= json_pos_n_members(node)) {
        return NULL;
    }
    m = &node->members[idx];
    if (key) {
        *key = m->key;
    }
    if (key_len) {
        *key_len = m->key_len;
    }
    if (key_pos) {
        *key_pos = m->key_pos;
    }
    return &m->value;
}

const struct json_pos_node *
json_pos_elem(const struct json_pos_node *node, size_t idx)
{
    return idx < json_pos_n_elems(node) ? &node->elems[idx] : NULL;
}
