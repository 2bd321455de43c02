/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the JSON position scanner: a table of texts with the expected
 * line:column of keys and values (nesting, blanks, escapes, UTF-8, numbers,
 * literals), a table of malformed texts with where the scan stops and what
 * it keeps, key decoding and lookup, the depth limit, and random valid
 * documents (fixed seed) whose positions are known by construction and
 * which jansson must accept too.
 */
#include <autoconf.h>
#include "config/json-pos.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "base/util.h"

/* ------------------------------------------------------------------------
 * Paths into a position tree.
 *
 * A path is a series of steps: ".KEY" for the member KEY of an object (KEY
 * runs to the next '.', '[' or '@' and is compared decoded, as UTF-8) and
 * "[N]" for element N of an array.  The empty path is the root.  A final
 * "@" asks for the position of the last member's key instead of its
 * value. */

/* Where 'path' leads in 'root': stores the position and returns true, or
 * returns false if some step finds nothing. */
static bool
lookup_path(const struct json_pos_node *root, const char *path,
            struct json_pos *pos)
{
    const struct json_pos_node *node = root;
    struct json_pos key_pos = { 0, 0 };

    *pos = json_pos_of(root);
    while (*path && *path != '@') {
        if (*path == '.') {
            size_t len = strcspn(path + 1, ".[@");

            node = json_pos_member(node, path + 1, len, 0, &key_pos);
            path += 1 + len;
        } else if (*path == '[') {
            char *end;

            node = json_pos_elem(node, strtoul(path + 1, &end, 10));
            path = end + (*end == ']');
        } else {
            return false;
        }
        if (!node) {
            return false;
        }
    }
    *pos = *path == '@' ? key_pos : json_pos_of(node);
    return true;
}

/* One expected position.  'line' -1 means the path must find nothing;
 * 'line' 0 means it must find a node of unknown position. */
struct pos_check {
    const char *path;
    int line, column;
};

#define MAX_CHECKS 12

struct scan_case {
    const char *title;
    const char *text;
    size_t size;                /* 0: strlen(text). */
    int error_line;             /* 0: the scan must complete. */
    int error_column;
    struct pos_check checks[MAX_CHECKS];    /* Up to the first NULL path. */
};

static void
run_scan_case(const struct scan_case *c)
{
    size_t size = c->size ? c->size : strlen(c->text);
    struct json_pos error;
    struct json_pos_node *root = json_pos_scan(c->text, size, &error);

    CHECK(error.line == c->error_line && error.column == c->error_column,
          "%s: scan stopped at %d:%d, expected %d:%d", c->title, error.line,
          error.column, c->error_line, c->error_column);
    for (size_t i = 0; i < MAX_CHECKS && c->checks[i].path; i++) {
        const struct pos_check *pc = &c->checks[i];
        struct json_pos pos;
        bool found = lookup_path(root, pc->path, &pos);

        if (pc->line < 0) {
            CHECK(!found, "%s: path \"%s\" found at %d:%d, expected nothing",
                  c->title, pc->path, pos.line, pos.column);
        } else {
            CHECK(found && pos.line == pc->line && pos.column == pc->column,
                  "%s: path \"%s\" at %d:%d (%s), expected %d:%d", c->title,
                  pc->path, pos.line, pos.column, found ? "found" : "missing",
                  pc->line, pc->column);
        }
    }
    json_pos_destroy(root);
}

/* Well-formed texts: the scan completes and finds every position. */
static const struct scan_case valid_cases[] = {
    { "scalar root", "42", 0, 0, 0, { { "", 1, 1 } } },
    { "blanks around the root", " \r\n\t \"x\" \n", 0, 0, 0,
      { { "", 2, 3 } } },
    { "empty object and array", "{\"o\": {}, \"a\": []}", 0, 0, 0,
      { { "", 1, 1 }, { ".o@", 1, 2 }, { ".o", 1, 7 }, { ".a@", 1, 11 },
        { ".a", 1, 16 }, { ".a[0]", -1, 0 }, { ".x", -1, 0 } } },
    { "nested objects and arrays",
      "{\n"
      "  \"bridges\": [\n"
      "    { \"name\": \"br0\",\n"
      "      \"ports\": [ {\"name\": \"p1\"}, {\"name\": \"p2\"} ] }\n"
      "  ],\n"
      "  \"other\": {\"n\": [1, [2, [3]]]}\n"
      "}\n", 0, 0, 0,
      { { "", 1, 1 }, { ".bridges@", 2, 3 }, { ".bridges", 2, 14 },
        { ".bridges[0]", 3, 5 }, { ".bridges[0].name@", 3, 7 },
        { ".bridges[0].name", 3, 15 }, { ".bridges[0].ports", 4, 16 },
        { ".bridges[0].ports[1].name", 4, 43 },
        { ".other.n[1][1][0]", 6, 27 }, { ".other.n[1][2]", -1, 0 },
        { ".bridges[1]", -1, 0 } } },
    { "numbers and literals",
      "[-1.5e+10, 0, true, false, null, 1E-3,\t7]", 0, 0, 0,
      { { "[0]", 1, 2 }, { "[1]", 1, 12 }, { "[2]", 1, 15 },
        { "[3]", 1, 21 }, { "[4]", 1, 28 }, { "[5]", 1, 34 },
        { "[6]", 1, 40 }, { "[7]", -1, 0 } } },
    { "UTF-8 counts one column per character",
      "{\"\xc3\xa9\": \"\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80\", \"k\": 1}",
      0, 0, 0,
      { { ".\xc3\xa9@", 1, 2 }, { ".\xc3\xa9", 1, 7 }, { ".k@", 1, 14 },
        { ".k", 1, 19 } } },
    { "escapes in values take their written width",
      "[\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\", \"\\n\\t\\/\", 3]", 0, 0, 0,
      { { "[0]", 1, 2 }, { "[1]", 1, 31 }, { "[2]", 1, 41 } } },
    { "escaped keys are found decoded",
      "{\"\\u0041\": 1, \"a\\\"b\": 2, \"\\u00e9\": 3, "
      "\"\\ud83d\\ude00\": 4}", 0, 0, 0,
      { { ".A@", 1, 2 }, { ".A", 1, 12 }, { ".a\"b@", 1, 15 },
        { ".a\"b", 1, 23 }, { ".\xc3\xa9", 1, 36 },
        { ".\xf0\x9f\x98\x80@", 1, 39 }, { ".\xf0\x9f\x98\x80", 1, 55 },
        { ".\\u0041", -1, 0 } } },
    { "CRLF and tabs",
      "{\r\n\t\"a\":\r\n\t\t[\r\n\t\t\t1]}", 0, 0, 0,
      { { ".a@", 2, 2 }, { ".a", 3, 3 }, { ".a[0]", 4, 4 } } },
    { "delimiters inside strings",
      "[\"{[,:]}\", \"x\"]", 0, 0, 0,
      { { "[0]", 1, 2 }, { "[1]", 1, 12 } } },
    { "text after 'size' is not read", "[1, 2]xyz", 6, 0, 0,
      { { "[1]", 1, 5 } } },
};

/* Malformed texts: where the scan stops and what it keeps. */
static const struct scan_case malformed_cases[] = {
    { "empty text", "", 0, 1, 1, { { "", 0, 0 } } },
    { "only blanks", "  \n  ", 0, 2, 3, { { "", 0, 0 } } },
    { "unclosed object", "{", 0, 1, 2, { { "", 1, 1 } } },
    { "missing colon", "{\"a\" 1}", 0, 1, 6,
      { { ".a@", 1, 2 }, { ".a", 0, 0 } } },
    { "missing value", "{\"a\":}", 0, 1, 6, { { ".a", 0, 0 } } },
    { "trailing comma in object", "{\"a\": 1,}", 0, 1, 9,
      { { ".a", 1, 7 } } },
    { "unterminated key", "{\"ab", 0, 1, 5, { { ".ab", -1, 0 } } },
    { "key not a string", "{a: 1}", 0, 1, 2, { { "", 1, 1 } } },
    { "trailing comma in array", "[1,]", 0, 1, 4,
      { { "[0]", 1, 2 }, { "[1]", -1, 0 } } },
    { "missing comma in array", "[1 2]", 0, 1, 4,
      { { "[0]", 1, 2 }, { "[1]", -1, 0 } } },
    { "unterminated string", "\"abc", 0, 1, 5, { { "", 1, 1 } } },
    { "bad escape", "[\"\\x\"]", 0, 1, 4, { { "[0]", 1, 2 } } },
    { "bad hex digit", "[\"\\u12G4\"]", 0, 1, 7, { { "", 1, 1 } } },
    { "escape cut by the end", "\"\\u12", 0, 1, 6, { { "", 1, 1 } } },
    { "bad low surrogate", "{\"\\ud800\\u0041\": 1}", 0, 1, 9,
      { { ".", -1, 0 } } },
    { "text after the root", "[1] x", 0, 1, 5, { { "[0]", 1, 2 } } },
    { "two roots", "1 2", 0, 1, 3, { { "", 1, 1 } } },
    { "closing brace as a value", "}", 0, 1, 1, { { "", 0, 0 } } },
    { "colon as a value", "[:]", 0, 1, 2, { { "[0]", -1, 0 } } },
    { "NUL byte", "[1,\0 2]", 7, 1, 4, { { "[0]", 1, 2 } } },
    { "cut inside nesting", "{\"a\": [1, {\"b\":", 0, 1, 16,
      { { ".a", 1, 7 }, { ".a[0]", 1, 8 }, { ".a[1]", 1, 11 },
        { ".a[1].b@", 1, 12 }, { ".a[1].b", 0, 0 }, { ".a[2]", -1, 0 } } },
    { "error on a later line", "{\n  \"a\": [1,\n   2,,\n]}", 0, 3, 6,
      { { ".a[1]", 3, 4 }, { ".a[2]", -1, 0 } } },
};

static void
test_tables(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(valid_cases); i++) {
        run_scan_case(&valid_cases[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(malformed_cases); i++) {
        run_scan_case(&malformed_cases[i]);
    }
}

/* ------------------------------------------------------------------------
 * Key decoding, lookup and the accessors. */

static void
test_keys(void)
{
    static const char text[] =
        "{\"a\\nb\": 1, \"x\\u0000y\": 2, \"\": 3, \"dup\": 4, \"dup\": 5}";
    static const struct {
        const char *key;
        size_t key_len;
        int column;             /* Of the key. */
    } expected[] = {
        { "a\nb", 3, 2 }, { "x\0y", 3, 13 }, { "", 0, 28 }, { "dup", 3, 35 },
        { "dup", 3, 45 },
    };
    struct json_pos_node *root = json_pos_scan(text, strlen(text), NULL);
    const struct json_pos_node *v;
    struct json_pos key_pos;
    const char *key;
    size_t key_len;

    CHECK(json_pos_n_members(root) == ARRAY_SIZE(expected),
          "%zu members, expected %zu", json_pos_n_members(root),
          ARRAY_SIZE(expected));
    CHECK(json_pos_n_elems(root) == 0, "an object has elements");
    for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
        key = NULL;
        key_len = 99;
        v = json_pos_member_at(root, i, &key, &key_len, &key_pos);
        CHECK(v && key && key_len == expected[i].key_len
              && !memcmp(key, expected[i].key, key_len) && !key[key_len],
              "member %zu: wrong key", i);
        CHECK(key_pos.line == 1 && key_pos.column == expected[i].column,
              "member %zu: key at %d:%d, expected 1:%d", i, key_pos.line,
              key_pos.column, expected[i].column);
    }
    CHECK(!json_pos_member_at(root, ARRAY_SIZE(expected), NULL, NULL, NULL),
          "member past the end");

    /* A key with a NUL byte is found by its length. */
    v = json_pos_member(root, "x\0y", 3, 0, &key_pos);
    CHECK(v && key_pos.column == 13, "key with NUL not found");
    CHECK(!json_pos_member(root, "x", 1, 1, NULL), "prefix of a key found");

    /* The hint: right, wrong, out of range; with repeats it decides. */
    for (size_t hint = 0; hint < 10; hint++) {
        v = json_pos_member(root, "", 0, hint, &key_pos);
        CHECK(v && key_pos.column == 28, "empty key with hint %zu", hint);
    }
    json_pos_member(root, "dup", 3, 4, &key_pos);
    CHECK(key_pos.column == 45, "repeated key: hint not used");
    json_pos_member(root, "dup", 3, 0, &key_pos);
    CHECK(key_pos.column == 35, "repeated key: not the first");

    /* A miss stores an unknown key position. */
    key_pos.line = 7;
    CHECK(!json_pos_member(root, "zz", 2, 0, &key_pos), "found \"zz\"");
    CHECK(!json_pos_is_known(key_pos), "miss left a key position");
    json_pos_destroy(root);

    /* Lookups on non-containers and NULL find nothing. */
    root = json_pos_scan("[\"a\"]", 5, NULL);
    CHECK(json_pos_n_elems(root) == 1 && json_pos_n_members(root) == 0,
          "array counts");
    CHECK(!json_pos_member(root, "a", 1, 0, NULL), "member of an array");
    CHECK(!json_pos_elem(json_pos_elem(root, 0), 0), "element of a string");
    CHECK(!json_pos_elem(NULL, 0) && !json_pos_member(NULL, "a", 1, 0, NULL)
          && !json_pos_member_at(NULL, 0, NULL, NULL, NULL)
          && json_pos_n_members(NULL) == 0 && json_pos_n_elems(NULL) == 0,
          "lookups in NULL");
    CHECK(!json_pos_is_known(json_pos_of(NULL)), "position of NULL");
    json_pos_destroy(root);
    json_pos_destroy(NULL);

    CHECK(json_pos_before((struct json_pos) { 1, 9 },
                          (struct json_pos) { 2, 1 })
          && json_pos_before((struct json_pos) { 2, 1 },
                             (struct json_pos) { 2, 2 })
          && !json_pos_before((struct json_pos) { 2, 2 },
                              (struct json_pos) { 2, 2 })
          && !json_pos_before((struct json_pos) { 3, 1 },
                              (struct json_pos) { 2, 5 }),
          "json_pos_before");
}

/* Nesting up to JSON_POS_MAX_DEPTH scans; one more stops at the value too
 * deep, and the tree keeps the levels above it. */
static void
test_depth(void)
{
    for (int extra = 0; extra <= 1; extra++) {
        int depth = JSON_POS_MAX_DEPTH + extra;
        char *text = xmalloc(2 * depth);
        const struct json_pos_node *node;
        struct json_pos_node *root;
        struct json_pos error;
        int levels = 0;

        memset(text, '[', depth);
        memset(text + depth, ']', depth);
        root = json_pos_scan(text, 2 * depth, &error);
        if (!extra) {
            CHECK(!json_pos_is_known(error), "depth %d: stopped at %d:%d",
                  depth, error.line, error.column);
        } else {
            CHECK(error.line == 1 && error.column == depth,
                  "depth %d: stopped at %d:%d, expected 1:%d", depth,
                  error.line, error.column, depth);
        }
        for (node = root; json_pos_n_elems(node); node = json_pos_elem(node,
                                                                       0)) {
            levels++;
        }
        CHECK(levels == depth - 1,
              "depth %d: %d levels with elements", depth, levels);
        json_pos_destroy(root);
        free(text);
    }
}

/* ------------------------------------------------------------------------
 * Random valid documents.  The generator writes the text and, alongside,
 * the tree of positions it expects. */

struct gen_node {
    struct json_pos pos;
    size_t n;                   /* Members or elements. */
    bool is_object;
    struct gen_node *kids;
    char **keys;                /* Decoded, objects only. */
    size_t *key_lens;
    struct json_pos *key_poses;
};

struct gen {
    char *text;
    size_t len, allocated;
    struct json_pos pos;        /* Of the next character. */
    unsigned int seed;
};

/* A string piece as written and as decoded. */
struct piece {
    const char *written;
    const char *decoded;
};

static const struct piece pieces[] = {
    { "a", "a" }, { "Z", "Z" }, { "\xc3\xa9", "\xc3\xa9" },
    { "\xe2\x82\xac", "\xe2\x82\xac" },
    { "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" }, { "\\n", "\n" },
    { "\\\"", "\"" }, { "\\\\", "\\" }, { "\\/", "/" },
    { "\\u00e9", "\xc3\xa9" }, { "\\u20AC", "\xe2\x82\xac" },
    { "\\ud83d\\ude00", "\xf0\x9f\x98\x80" }, { " ", " " },
    { "{[,:]}", "{[,:]}" },
};

static unsigned int
gen_rand(struct gen *g, unsigned int n)
{
    return rand_r(&g->seed) % n;
}

/* Appends 's', moving the position by the rule json-pos.h states. */
static void
gen_emit(struct gen *g, const char *s)
{
    size_t n = strlen(s);

    if (g->len + n + 1 > g->allocated) {
        g->allocated = MAX(2 * g->allocated, g->len + n + 1024);
        g->text = xrealloc(g->text, g->allocated);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];

        if (c == '\n') {
            g->pos.line++;
            g->pos.column = 1;
        } else if ((c & 0xc0) != 0x80) {
            g->pos.column++;
        }
        g->text[g->len++] = c;
    }
    g->text[g->len] = '\0';
}

static void
gen_blanks(struct gen *g)
{
    static const char *const blanks[] = {
        "", "", " ", "\t", "\n", "\r\n", "  ", "\n    ",
    };

    gen_emit(g, blanks[gen_rand(g, ARRAY_SIZE(blanks))]);
}

/* Writes a string whose decoded form starts with 'prefix'; stores the
 * decoded form in '*decoded' (to free) if nonnull. */
static void
gen_string(struct gen *g, const char *prefix, char **decoded)
{
    char buf[512];
    size_t len = strlen(prefix);

    memcpy(buf, prefix, len + 1);
    gen_emit(g, "\"");
    gen_emit(g, prefix);
    for (unsigned int i = gen_rand(g, 5); i > 0; i--) {
        const struct piece *p = &pieces[gen_rand(g, ARRAY_SIZE(pieces))];

        gen_emit(g, p->written);
        strcpy(buf + len, p->decoded);
        len += strlen(p->decoded);
    }
    gen_emit(g, "\"");
    if (decoded) {
        *decoded = xstrdup(buf);
    }
}

static void
gen_value(struct gen *g, struct gen_node *node, int depth)
{
    static const char *const scalars[] = {
        "0", "-1", "42", "3.25", "-0.5e-7", "1E+20", "true", "false", "null",
    };
    unsigned int kind = gen_rand(g, depth < 5 ? 4 : 2);

    memset(node, 0, sizeof *node);
    node->pos = g->pos;
    if (kind == 0) {
        gen_emit(g, scalars[gen_rand(g, ARRAY_SIZE(scalars))]);
    } else if (kind == 1) {
        gen_string(g, "", NULL);
    } else {
        node->is_object = kind == 2;
        node->n = gen_rand(g, 5);
        node->kids = xcalloc(node->n, sizeof *node->kids);
        if (node->is_object) {
            node->keys = xcalloc(node->n, sizeof *node->keys);
            node->key_lens = xcalloc(node->n, sizeof *node->key_lens);
            node->key_poses = xcalloc(node->n, sizeof *node->key_poses);
        }
        gen_emit(g, node->is_object ? "{" : "[");
        for (size_t i = 0; i < node->n; i++) {
            gen_blanks(g);
            if (node->is_object) {
                /* "k<i>" keeps keys unique: no piece starts with a
                 * digit. */
                char prefix[32];

                snprintf(prefix, sizeof prefix, "k%zu", i);
                node->key_poses[i] = g->pos;
                gen_string(g, prefix, &node->keys[i]);
                node->key_lens[i] = strlen(node->keys[i]);
                gen_blanks(g);
                gen_emit(g, ":");
                gen_blanks(g);
            }
            gen_value(g, &node->kids[i], depth + 1);
            gen_blanks(g);
            if (i + 1 < node->n) {
                gen_emit(g, ",");
            }
        }
        gen_blanks(g);
        gen_emit(g, node->is_object ? "}" : "]");
    }
}

static void
gen_node_uninit(struct gen_node *node)
{
    for (size_t i = 0; i < node->n; i++) {
        gen_node_uninit(&node->kids[i]);
        if (node->is_object) {
            free(node->keys[i]);
        }
    }
    free(node->kids);
    free(node->keys);
    free(node->key_lens);
    free(node->key_poses);
}

static bool
same_pos(struct json_pos a, struct json_pos b)
{
    return a.line == b.line && a.column == b.column;
}

/* Compares the scanned 'node' with the generated 'expected'.  Returns the
 * number of mismatches. */
static int
compare_tree(const struct json_pos_node *node,
             const struct gen_node *expected, int doc)
{
    struct json_pos pos = json_pos_of(node);
    int n_bad = 0;

    if (!same_pos(pos, expected->pos)) {
        CHECK(false, "document %d: value at %d:%d, expected %d:%d", doc,
              pos.line, pos.column, expected->pos.line,
              expected->pos.column);
        return 1;
    }
    if (expected->is_object) {
        if (json_pos_n_members(node) != expected->n) {
            CHECK(false, "document %d: %zu members at %d:%d, expected %zu",
                  doc, json_pos_n_members(node), pos.line, pos.column,
                  expected->n);
            return 1;
        }
        for (size_t i = 0; i < expected->n; i++) {
            /* A wrong hint must find the same member. */
            size_t hint = i % 2 ? i : expected->n - 1 - i;
            const struct json_pos_node *v;
            struct json_pos key_pos;

            v = json_pos_member(node, expected->keys[i],
                                expected->key_lens[i], hint, &key_pos);
            if (!v || !same_pos(key_pos, expected->key_poses[i])) {
                CHECK(false, "document %d: key %zu at %d:%d, expected "
                      "%d:%d", doc, i, key_pos.line, key_pos.column,
                      expected->key_poses[i].line,
                      expected->key_poses[i].column);
                n_bad++;
            } else {
                n_bad += compare_tree(v, &expected->kids[i], doc);
            }
        }
    } else if (expected->kids) {
        if (json_pos_n_elems(node) != expected->n) {
            CHECK(false, "document %d: %zu elements at %d:%d, expected %zu",
                  doc, json_pos_n_elems(node), pos.line, pos.column,
                  expected->n);
            return 1;
        }
        for (size_t i = 0; i < expected->n; i++) {
            n_bad += compare_tree(json_pos_elem(node, i), &expected->kids[i],
                                  doc);
        }
    } else {
        n_bad += (json_pos_n_members(node) || json_pos_n_elems(node));
    }
    return n_bad;
}

static void
test_random_documents(void)
{
    struct gen g = { .seed = 20260101 };
    int n_bad = 0;

    for (int doc = 0; doc < 2000 && n_bad < 10; doc++) {
        struct json_pos_node *root;
        struct gen_node expected;
        struct json_pos error;
        json_error_t jerror;
        json_t *parsed;

        g.len = 0;
        g.pos = (struct json_pos) { 1, 1 };
        gen_blanks(&g);
        gen_value(&g, &expected, 0);
        gen_blanks(&g);

        /* The generator must write JSON that jansson accepts. */
        parsed = json_loadb(g.text, g.len, JSON_DECODE_ANY, &jerror);
        CHECK(parsed != NULL, "document %d is not JSON: %d:%d: %s", doc,
              jerror.line, jerror.column, jerror.text);
        json_decref(parsed);

        root = json_pos_scan(g.text, g.len, &error);
        if (json_pos_is_known(error)) {
            CHECK(false, "document %d: scan stopped at %d:%d", doc,
                  error.line, error.column);
            n_bad++;
        }
        n_bad += compare_tree(root, &expected, doc);
        json_pos_destroy(root);
        gen_node_uninit(&expected);

        /* Every proper prefix of a document that ends in a container is
         * malformed: the scan must stop, inside the text or at its end. */
        if (g.len > 1 && strchr("}]", g.text[g.len - 1])) {
            size_t cut = 1 + rand_r(&g.seed) % (g.len - 1);

            root = json_pos_scan(g.text, cut, &error);
            CHECK(json_pos_is_known(error),
                  "document %d cut at %zu: no error", doc, cut);
            json_pos_destroy(root);
        }
    }
    free(g.text);
}

int
main(void)
{
    test_tables();
    test_keys();
    test_depth();
    test_random_documents();

    return check_finish("test-json-pos");
}
