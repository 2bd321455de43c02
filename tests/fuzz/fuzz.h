/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Shared by the fuzz targets (tests/fuzz/fuzz-*.c).  Each target defines
 * the libFuzzer entry point declared here; the same file is linked either
 * with libFuzzer (configure --enable-fuzzing) or with fuzz-replay.c, which
 * feeds it the saved corpus and crash inputs under `make check`.
 *
 * A target checks its invariants with FUZZ_ASSERT, which prints the broken
 * condition and aborts, so that libFuzzer saves the input as a crash.
 */
#ifndef FUZZ_H
#define FUZZ_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs one input of 'size' bytes at 'data'.  Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message naming 'COND' if it is false. */
#define FUZZ_ASSERT(COND)                                               \
    do {                                                                \
        if (!(COND)) {                                                  \
            fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n",       \
                    __FILE__, __LINE__, #COND);                         \
            abort();                                                    \
        }                                                               \
    } while (0)

/* Returns a new NUL-terminated copy of the 'size' bytes at 'data', for
 * parsers that take a C string.  The caller frees it. */
static inline char *
fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (!s) {
        abort();
    }
    for (size_t i = 0; i < size; i++) {
        s[i] = data[i];
    }
    s[size] = '\0';
    return s;
}

#endif /* fuzz.h */
