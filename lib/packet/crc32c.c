/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * CRC32c, table-driven, one byte at a time: SCTP's checksum is rare
 * enough on this switch's paths (a rewritten SCTP port, a composed test
 * frame) that a faster version would not pay for itself.
 */
#include <autoconf.h>
#include "packet/crc32c.h"

#include <pthread.h>

static uint32_t crc32c_table[256];      /* Set once, under 'crc32c_once'. */
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void
crc32c_init__(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;

        for (int bit = 0; bit < 8; bit++) {
            /* 0x82f63b78: the Castagnoli polynomial, bit-reversed. */
            crc = (crc >> 1) ^ (crc & 1 ? 0x82f63b78 : 0);
        }
        crc32c_table[i] = crc;
    }
}

uint32_t
crc32c(uint32_t crc, const void *data, size_t size)
{
    const uint8_t *b = data;

    pthread_once(&crc32c_once, crc32c_init__);
    crc = ~crc;
    for (size_t i = 0; i < size; i++) {
        crc = (crc >> 8) ^ crc32c_table[(crc ^ b[i]) & 0xff];
    }
    return ~crc;
}
