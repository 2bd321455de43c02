/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for packet/csum.c: csum_add(), which sums 32-bit words in the
 * host's byte order (32 bytes at a time with AVX2), gives the same checksum as the definition (RFC
 * 1071: big-endian 16-bit words, an odd last byte as a high half) for
 * every length from 0 to 2,100 bytes at every alignment, from any
 * starting sum, and in pieces, with the vector loop (where the CPU has
 * it) and the plain one; plus the RFC 1624 incremental updates.
 */
#include <autoconf.h>
#include "packet/csum.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The definition, word by word. */
static uint16_t
csum_reference(uint32_t sum, const uint8_t *p, size_t size)
{
    uint64_t acc = sum;

    for (size_t i = 0; i + 1 < size; i += 2) {
        acc += (uint32_t) p[i] << 8 | p[i + 1];
    }
    if (size & 1) {
        acc += (uint32_t) p[size - 1] << 8;
    }
    while (acc >> 16) {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    return acc;
}

static void
test_lengths(void)
{
    static uint8_t buf[2200 + 8];
    unsigned int seed = 1;

    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = rand_r(&seed);
    }
    for (size_t align = 0; align < 8; align++) {
        for (size_t size = 0; size <= 2100; size++) {
            uint32_t start = rand_r(&seed) & 0x1ffff;

            if (csum_fold(csum_add(start, buf + align, size))
                != csum_reference(start, buf + align, size)) {
                CHECK(false, "size %zu at offset %zu", size, align);
                return;
            }
        }
    }
    CHECK(true, "every length and alignment");
}

/* All 0xff bytes: the sum that carries the most. */
static void
test_carries(void)
{
    static uint8_t ones[65536];

    memset(ones, 0xff, sizeof ones);
    CHECK_INT(csum_fold(csum_add(0xffff, ones, sizeof ones)),
              csum_reference(0xffff, ones, sizeof ones));
    CHECK_INT(csum_finish(csum_add(0, ones, 2)), 0xffff);  /* 0 sent so. */
}

/* A sum taken in even-sized pieces is the sum of the whole. */
static void
test_pieces(void)
{
    uint8_t buf[1500];
    unsigned int seed = 7;
    uint32_t sum = 0;

    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = rand_r(&seed);
    }
    sum = csum_add(sum, buf, 20);
    sum = csum_add(sum, buf + 20, 40);
    sum = csum_add(sum, buf + 60, sizeof buf - 60 - 1);
    CHECK_INT(csum_fold(sum), csum_reference(0, buf, sizeof buf - 1));
}

/* RFC 1624: updating for a changed word equals summing again. */
static void
test_updates(void)
{
    uint8_t hdr[20] = { 0x45, 0, 0, 60, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0,
                        10, 0, 0, 1, 10, 0, 0, 2 };
    uint16_t csum = ~csum_fold(csum_add(0, hdr, sizeof hdr));
    uint16_t updated;

    hdr[8] = 63;                                /* TTL. */
    updated = csum_update_full(csum, csum_diff16(64 << 8 | 6, 63 << 8 | 6));
    CHECK_INT(updated, (uint16_t) ~csum_fold(csum_add(0, hdr, sizeof hdr)));

    /* An address, on a partial sum. */
    updated = csum_update_partial(csum_fold(csum_add(0, hdr + 12, 8)),
                                  csum_diff32(0x0a000001, 0x0a000063));
    hdr[15] = 0x63;
    CHECK_INT(updated, csum_fold(csum_add(0, hdr + 12, 8)));
}

int
main(void)
{
    /* The vector loop where the CPU has one, then the plain loop. */
    for (int simd = 1; simd >= 0; simd--) {
        if (csum_set_simd(simd) != simd) {
            printf("test-csum: no vector loop on this CPU, skipped\n");
            continue;
        }
        check_set_context("%s loop", simd ? "vector" : "plain");
        test_lengths();
        test_carries();
        test_pieces();
    }
    check_set_context("%s", "");
    test_updates();
    return check_finish("test-csum");
}
