/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * A batch of at most DP_BATCH_SIZE packets: the unit every stage of the
 * PMD pipeline works on.  A batch holds pointers; it owns nothing.
 */
#ifndef DP_BATCH_H
#define DP_BATCH_H 1

#include <stdint.h>
#include <stdbool.h>
#include "packet/dp-packet.h"

#define DP_BATCH_SIZE 32

struct dp_batch {
    uint32_t count;
    struct dp_packet *packets[DP_BATCH_SIZE];
};

static inline void
dp_batch_init(struct dp_batch *b)
{
    b->count = 0;
}

static inline bool
dp_batch_is_full(const struct dp_batch *b)
{
    return b->count >= DP_BATCH_SIZE;
}

static inline bool
dp_batch_is_empty(const struct dp_batch *b)
{
    return !b->count;
}

/* Appends 'p' to 'b', which must not be full. */
static inline void
dp_batch_add(struct dp_batch *b, struct dp_packet *p)
{
    b->packets[b->count++] = p;
}

#define DP_BATCH_FOR_EACH(IDX, PACKET, BATCH)                           \
    for (uint32_t IDX = 0;                                              \
         IDX < (BATCH)->count && ((PACKET) = (BATCH)->packets[IDX], 1); \
         IDX++)

#endif /* dp-batch.h */
