/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Building text piece by piece, two ways:
 *
 *   - 'struct ds', a string that grows on the heap as text is appended,
 *     for replies and reports of any length;
 *
 *   - ds_put_bounded(), which appends to a caller's fixed buffer and
 *     truncates at its end, for code that must not allocate.
 *
 * Not thread-safe: a string belongs to one thread at a time.
 */
#ifndef DS_H
#define DS_H 1

#include <stddef.h>
#include "base/compiler.h"

struct ds {
    char *string;               /* NUL-terminated, or NULL while empty. */
    size_t length;              /* Bytes before the NUL. */
};

#define DS_EMPTY_INITIALIZER { NULL, 0 }

/* Appends printf-style text to 'ds'. */
void ds_put_format(struct ds *ds, const char *format, ...)
    PRINTF_FORMAT(2, 3);

/* The text so far ("" while empty); valid until the next change. */
const char *ds_cstr(const struct ds *ds);

/* Returns the text (never NULL) for the caller to free and leaves 'ds'
 * empty. */
char *ds_steal_cstr(struct ds *ds);

/* Frees the text and leaves 'ds' empty. */
void ds_destroy(struct ds *ds);

/* Appends printf-style text to the string in 'buf' ('size' bytes, 'size'
 * > 0), which holds '*len' bytes before its NUL, and updates '*len'.  Text
 * that does not fit is cut; the string stays NUL-terminated. */
void ds_put_bounded(char *buf, size_t size, size_t *len,
                    const char *format, ...) PRINTF_FORMAT(4, 5);

#endif /* ds.h */
