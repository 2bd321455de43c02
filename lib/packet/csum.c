/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The Internet checksum (csum.h).  The sum is taken eight bytes at a time
 * in the host's byte order and swapped at the end: a ones' complement sum
 * of byte-swapped words is the byte-swapped sum (RFC 1071, 2(B)), so this
 * gives the big-endian sum without swapping every word.
 */
#include <autoconf.h>
#include "packet/csum.h"

#include <string.h>

/* Folds the 64-bit 'acc' of 16-bit words into 16 bits. */
static uint16_t
csum_fold64__(uint64_t acc)
{
    acc = (acc & 0xffffffff) + (acc >> 32);
    acc = (acc & 0xffffffff) + (acc >> 32);
    return csum_fold(acc);
}

uint32_t
csum_add(uint32_t sum, const void *data, size_t size)
{
    const uint8_t *p = data;
    uint64_t acc = 0;
    uint16_t native;

    /* Each 32-bit half adds at most 2^32 - 1: the 64-bit accumulator
     * holds the carries of any frame. */
    for (; size >= 8; p += 8, size -= 8) {
        uint64_t w;

        memcpy(&w, p, sizeof w);
        acc += (w & 0xffffffff) + (w >> 32);
    }
    for (; size >= 2; p += 2, size -= 2) {
        uint16_t h;

        memcpy(&h, p, sizeof h);
        acc += h;
    }
    if (size) {
        /* An odd last byte is the high half of a big-endian word. */
#ifdef WORDS_BIGENDIAN
        acc += (uint32_t) p[0] << 8;
#else
        acc += p[0];
#endif
    }
    native = csum_fold64__(acc);
#ifdef WORDS_BIGENDIAN
    return csum_fold(sum + (uint32_t) native);
#else
    return csum_fold(sum + (uint32_t) (uint16_t) (native << 8 | native >> 8));
#endif
}
