/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The Internet checksum (RFC 1071) over bytes in network order: a running
 * 32-bit sum of 16-bit words, folded and complemented at the end.  For
 * what finishes a checksum in software: segmentation (gso.h) and ports
 * that cannot carry a checksum-partial frame.
 */
#ifndef CSUM_H
#define CSUM_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Adds the 'size' bytes at 'data' to 'sum' as big-endian 16-bit words
 * (an odd last byte is the high half of a word) and returns the new sum,
 * folded to 16 bits: add more to it, or csum_finish() it.  Sums of pieces
 * add up only when every piece but the last has an even size. */
uint32_t csum_add(uint32_t sum, const void *data, size_t size);

/* Lets csum_add() use the CPU's vector instructions if 'on' and the CPU has
 * them (the default), or makes it use the plain loop.  Returns whether they
 * are in use now.  For tests and benchmarks, which compare the two. */
bool csum_set_simd(bool on);

/* Folds 'sum' into 16 bits. */
static inline uint16_t
csum_fold(uint32_t sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

/* The checksum field for 'sum': folded and complemented, 0 sent as 0xffff
 * (which UDP needs, and TCP accepts), host order. */
static inline uint16_t
csum_finish(uint32_t sum)
{
    uint16_t csum = ~csum_fold(sum);

    return csum ? csum : 0xffff;
}

/* Finishes the checksum that the sender of 'frame' ('size' bytes) left
 * partial: the 16-bit field at 'start' + 'offset' holds the pseudo-header
 * sum, and the checksum of everything from 'start' to the end of the frame
 * replaces it, as the kernel's skb_checksum_help() does.  The caller has
 * checked that 'start' + 'offset' + 2 <= 'size'. */
static inline void
csum_fill_partial(uint8_t *frame, uint32_t size, uint32_t start,
                  uint32_t offset)
{
    uint8_t *field = frame + start + offset;
    uint16_t csum = csum_finish(csum_add(0, frame + start, size - start));

    field[0] = csum >> 8;
    field[1] = csum;
}

/* Incremental updates (RFC 1624), for actions that rewrite a field. */

/* The sum change of a 32-bit word going from 'old' to 'new', unfolded:
 * ~m + m' of RFC 1624. */
static inline uint32_t
csum_diff32(uint32_t old, uint32_t new)
{
    return ((uint16_t) ~(old >> 16) + (uint16_t) ~(old & 0xffff)
            + (new >> 16) + (new & 0xffff));
}

static inline uint32_t
csum_diff16(uint16_t old, uint16_t new)
{
    return (uint16_t) ~old + new;
}

/* The full (complemented) checksum 'csum' after a change whose sum
 * difference is 'diff': HC' = ~(~HC + ~m + m'), RFC 1624 eqn. 3. */
static inline uint16_t
csum_update_full(uint16_t csum, uint32_t diff)
{
    return ~csum_fold((uint16_t) ~csum + diff);
}

/* The uncomplemented partial sum 'sum' (of a checksum left to the device)
 * after a change whose sum difference is 'diff'. */
static inline uint16_t
csum_update_partial(uint16_t sum, uint32_t diff)
{
    return csum_fold(sum + diff);
}

#endif /* csum.h */
