/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Where things are in JSON text, for error messages.
 *
 * A JSON parser such as jansson reports where a syntax error is, but keeps
 * no position for the values it returns.  json_pos_scan() walks the same
 * text once more and builds a tree of positions that mirrors the JSON
 * tree: for each value where it starts, for each object member where its
 * key starts.  A validator walks the parsed values and this tree together
 * and so can point every error at its key or value ("FILE:LINE:COLUMN").
 *
 * The scanner checks structure only: braces, brackets, colons, commas,
 * string quotes and escapes.  It does not check numbers or literals (any
 * run of characters up to a delimiter is one scalar), nor that \u escapes
 * form valid Unicode, so run it on text that the parser has accepted.  On
 * any other text it stops at the first structural error, reports where,
 * never reads outside the text, and keeps what it found before.
 *
 * Lines and columns count from 1, as jansson's do.  A column counts
 * characters: the continuation bytes of a UTF-8 sequence do not count, a
 * tab counts as one.  Object keys are decoded (escapes, \u escapes and
 * surrogate pairs into UTF-8) so that they compare equal to the parser's.
 *
 * No global state: any thread may scan, and a finished tree may be read by
 * any number of threads at once.
 */
#ifndef JSON_POS_H
#define JSON_POS_H 1

#include <stdbool.h>
#include <stddef.h>
#include "base/compiler.h"

/* A position in JSON text. */
struct json_pos {
    int line;                   /* From 1, or 0 if unknown. */
    int column;                 /* From 1, in characters. */
};

/* Deeper nesting stops the scan (jansson itself stops at 2048). */
#define JSON_POS_MAX_DEPTH 4096

/* One value of the JSON text.  Opaque; read it with the functions below. */
struct json_pos_node;

/* Scans the JSON text 'text' of 'size' bytes (which need not be
 * NUL-terminated; a NUL byte is not blank) and returns the position tree
 * of its one top-level value, for the caller to free with
 * json_pos_destroy().  Never returns NULL.
 *
 * If 'error_pos' is nonnull, stores in it where the scan stopped on a
 * structural error (the first character not accepted, or the end of the
 * text if it ended too early), or line 0 if the whole text scanned.  Text
 * after the top-level value other than blanks is an error too, and so is
 * nesting deeper than JSON_POS_MAX_DEPTH (reported at the value too deep).
 *
 * After an error the tree is partial: it holds each object member whose
 * key was scanned whole and each array element that started before the
 * error, with their positions; a value that did not start reads as
 * unknown, and nothing after the error is in the tree. */
struct json_pos_node *json_pos_scan(const char *text, size_t size,
                                    struct json_pos *error_pos)
    WARN_UNUSED_RESULT;

/* Frees the tree whose root is 'root'.  Accepts NULL. */
void json_pos_destroy(struct json_pos_node *root);

/* Returns where the value 'node' starts (its first character: '{', '[',
 * '"', a digit...), or an unknown position (line 0) if 'node' is NULL or
 * the value did not start before a scan error.  Every lookup below accepts
 * a NULL node and then finds nothing, so lookups chain without checks. */
struct json_pos json_pos_of(const struct json_pos_node *node);

/* The number of members of object 'node', or 0 if it is not an object. */
size_t json_pos_n_members(const struct json_pos_node *node);

/* The number of elements of array 'node', or 0 if it is not an array. */
size_t json_pos_n_elems(const struct json_pos_node *node);

/* Looks up the member of object 'node' whose decoded key is the 'key_len'
 * bytes at 'key'.  'hint' is the index where the caller expects it (such as
 * its index in the parsed object, which for jansson is document order): a
 * right hint finds it at once, a wrong one costs a linear search.  If the
 * text repeats the key, finds the one at 'hint', or else the first.
 *
 * Returns the member's value, or NULL if there is no such member.  If
 * 'key_pos' is nonnull, stores in it where the key starts (its opening
 * quote), or an unknown position if there is no such member. */
const struct json_pos_node *json_pos_member(const struct json_pos_node *node,
                                            const char *key, size_t key_len,
                                            size_t hint,
                                            struct json_pos *key_pos);

/* Returns the value of member 'idx' (in document order) of object 'node',
 * or NULL if 'idx' is out of range.  Stores through each nonnull pointer
 * the decoded key (NUL-terminated, owned by the tree), its length in bytes
 * and where it starts; on NULL, leaves them alone. */
const struct json_pos_node *json_pos_member_at(
    const struct json_pos_node *node, size_t idx, const char **key,
    size_t *key_len, struct json_pos *key_pos);

/* Returns element 'idx' of array 'node', or NULL if 'idx' is out of
 * range. */
const struct json_pos_node *json_pos_elem(const struct json_pos_node *node,
                                          size_t idx);

/* True if 'pos' is a known position. */
static inline bool
json_pos_is_known(struct json_pos pos)
{
    return pos.line > 0;
}

/* True if 'a' comes before 'b' in the text. */
static inline bool
json_pos_before(struct json_pos a, struct json_pos b)
{
    return a.line < b.line || (a.line == b.line && a.column < b.column);
}

#endif /* json-pos.h */
