/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * A bounded single-producer, single-consumer ring of variable-size
 * records in one byte buffer, lock-free, for handing frames from one
 * thread to another (the dummy port's receive queues: control thread to
 * PMD; its transmit queues: PMD to control thread).  Neither side ever
 * blocks or allocates: a record that does not fit is refused, and the
 * producer counts it.
 *
 * Each record is an 8-byte header (its size) and its bytes, padded to a
 * multiple of 8, so every record starts 8-byte aligned.  A record never
 * wraps: when it does not fit before the end of the buffer, the producer
 * leaves a wrap marker there and starts it at offset 0.
 *
 * The consumer may keep pointers into the records it has read until it
 * calls byte_ring_release(): only then may the producer reuse their bytes.
 * So a PMD can hand out packets that point into the ring and release them
 * on its next receive.
 *
 * 'head' is written by the producer only, 'tail' by the consumer only;
 * each is read by the other side with an acquire load that pairs with the
 * writer's release store (see the functions), so the bytes of a record
 * are complete when the consumer sees it, and out of the consumer's hands
 * when the producer overwrites them.
 */
#ifndef BYTE_RING_H
#define BYTE_RING_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"

struct byte_ring {
    /* Set by byte_ring_init(), then read only. */
    uint8_t *buf;
    uint64_t size;              /* Bytes in 'buf', a power of 2. */

    /* Producer only, but 'head' is read by the consumer. */
    uint64_t head CACHE_ALIGNED; /* End of the last committed record. */
    uint64_t next_head;         /* End of the last reserved record. */

    /* Consumer only, but 'tail' is read by the producer. */
    uint64_t tail CACHE_ALIGNED; /* Start of the oldest unreleased
                                  * record: bytes before it are free. */
    uint64_t next_tail;         /* Where the next read starts. */
};

/* Makes 'ring' an empty ring of 'size' bytes, rounded up to a power of 2
 * (at least 64). */
void byte_ring_init(struct byte_ring *ring, size_t size);
void byte_ring_uninit(struct byte_ring *ring);

/* The largest record 'ring' takes. */
size_t byte_ring_max_record(const struct byte_ring *ring);

/* Producer.  Reserves a record of 'size' bytes after those reserved
 * before and returns where to write them, or NULL if the ring has no room
 * for it now (or ever, if 'size' exceeds byte_ring_max_record()).  The
 * consumer sees nothing until byte_ring_commit(). */
void *byte_ring_reserve(struct byte_ring *ring, size_t size);

/* Producer.  Publishes every record reserved so far. */
void byte_ring_commit(struct byte_ring *ring);

/* Consumer.  Returns the next committed record not read yet, with its
 * size in '*size', or NULL if there is none.  The record stays valid, and
 * writable, until byte_ring_release(). */
void *byte_ring_read(struct byte_ring *ring, size_t *size);

/* Consumer.  Gives the bytes of every record read so far back to the
 * producer. */
void byte_ring_release(struct byte_ring *ring);

/* Consumer.  True if every committed record has been read.  The load is
 * sequentially consistent, for callers that pair it with a flag (see
 * netdev-dummy.c). */
bool byte_ring_drained(const struct byte_ring *ring);

/* Any thread: bytes committed and not yet released (approximate while
 * both sides run). */
size_t byte_ring_used(const struct byte_ring *ring);

#endif /* byte-ring.h */
