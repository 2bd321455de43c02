/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The Internet checksum (csum.h).
 */
#include <autoconf.h>
#include "packet/csum.h"

uint32_t
csum_add(uint32_t sum, const void *data, size_t size)
{
    const uint8_t *p = data;
    uint64_t acc = sum;
    size_t i = 0;

    for (; i + 1 < size; i += 2) {
        acc += (uint32_t) p[i] << 8 | p[i + 1];
    }
    if (i < size) {
        acc += (uint32_t) p[i] << 8;
    }
    while (acc >> 32) {
        acc = (acc & 0xffffffff) + (acc >> 32);
    }
    /* Keep it in 32 bits without losing carries. */
    acc = (acc & 0xffff) + (acc >> 16);
    acc = (acc & 0xffff) + (acc >> 16);
    return acc;
}
