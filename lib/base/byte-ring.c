/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The single-producer, single-consumer byte ring (see byte-ring.h).
 * Positions are free-running 64-bit byte counts, masked on use, so that a
 * full ring (head - tail == size) and an empty one (head == tail) differ.
 */
#include <autoconf.h>
#include "base/byte-ring.h"

#include <stdlib.h>
#include <string.h>
#include "base/util.h"

/* A record's header. */
struct byte_ring_hdr {
    uint32_t size;              /* Bytes after the header, or ..._WRAP. */
    uint32_t pad;
};
BUILD_ASSERT_DECL(sizeof(struct byte_ring_hdr) == 8);

/* Header size of a wrap marker: the next record is at offset 0. */
#define BYTE_RING_WRAP UINT32_MAX

/* Bytes a record of 'size' bytes takes, header included. */
static uint64_t
byte_ring_footprint__(size_t size)
{
    return sizeof(struct byte_ring_hdr) + ROUND_UP(size, 8);
}

void
byte_ring_init(struct byte_ring *ring, size_t size)
{
    uint64_t n = 64;

    while (n < size) {
        n *= 2;
    }
    memset(ring, 0, sizeof *ring);
    ring->buf = xzalloc_cacheline(n);
    ring->size = n;
}

void
byte_ring_uninit(struct byte_ring *ring)
{
    free(ring->buf);
    ring->buf = NULL;
}

size_t
byte_ring_max_record(const struct byte_ring *ring)
{
    /* Half the ring, so that a record always fits once the ring is empty,
     * wherever the wrap falls. */
    return ring->size / 2 - sizeof(struct byte_ring_hdr);
}

void *
byte_ring_reserve(struct byte_ring *ring, size_t size)
{
    uint64_t need = byte_ring_footprint__(size);
    uint64_t head = ring->next_head;
    uint64_t pos = head & (ring->size - 1);
    uint64_t to_end = ring->size - pos;
    uint64_t skip = need > to_end ? to_end : 0;
    struct byte_ring_hdr *hdr;
    uint64_t tail;

    if (size > byte_ring_max_record(ring)) {
        return NULL;
    }
    /* Pairs with the release in byte_ring_release(): the consumer is done
     * with every byte before 'tail'. */
    tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    if (head + skip + need - tail > ring->size) {
        return NULL;
    }
    if (skip) {
        /* 'to_end' is a multiple of 8, so a header fits. */
        hdr = (struct byte_ring_hdr *) (ring->buf + pos);
        hdr->size = BYTE_RING_WRAP;
        head += skip;
        pos = 0;
    }
    hdr = (struct byte_ring_hdr *) (ring->buf + pos);
    hdr->size = size;
    ring->next_head = head + need;
    return hdr + 1;
}

void
byte_ring_commit(struct byte_ring *ring)
{
    /* Pairs with the acquire in byte_ring_read(): the records' bytes are
     * written before the consumer can see them. */
    __atomic_store_n(&ring->head, ring->next_head, __ATOMIC_RELEASE);
}

void *
byte_ring_read(struct byte_ring *ring, size_t *size)
{
    /* Pairs with the release in byte_ring_commit(). */
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);

    while (ring->next_tail != head) {
        uint64_t pos = ring->next_tail & (ring->size - 1);
        struct byte_ring_hdr *hdr = (struct byte_ring_hdr *) (ring->buf
                                                              + pos);

        if (hdr->size == BYTE_RING_WRAP) {
            ring->next_tail += ring->size - pos;
            continue;
        }
        *size = hdr->size;
        ring->next_tail += byte_ring_footprint__(hdr->size);
        return hdr + 1;
    }
    return NULL;
}

void
byte_ring_release(struct byte_ring *ring)
{
    /* Pairs with the acquire in byte_ring_reserve(): the consumer is done
     * with these bytes before the producer may overwrite them. */
    if (ring->tail != ring->next_tail) {
        __atomic_store_n(&ring->tail, ring->next_tail, __ATOMIC_RELEASE);
    }
}

bool
byte_ring_drained(const struct byte_ring *ring)
{
    return __atomic_load_n(&ring->head, __ATOMIC_SEQ_CST) == ring->next_tail;
}

size_t
byte_ring_used(const struct byte_ring *ring)
{
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
    uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);

    return head >= tail ? head - tail : 0;
}
