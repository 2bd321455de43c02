/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of the byte ring: records of any size up to the maximum, nothing
 * readable before a commit, no room before a release, wrapping many times;
 * and a producer and a consumer thread moving numbered records of varying
 * sizes, each checked for order and contents (the pair TSan watches).
 */
#include <autoconf.h>

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "base/byte-ring.h"
#include "base/util.h"
#include "check.h"

/* Frames the threaded ring test moves. */
#define N_THREADED 200000

static void
test_byte_ring_basic(void)
{
    struct byte_ring ring;
    size_t size;
    uint8_t *p;
    int n = 0;

    byte_ring_init(&ring, 1024);
    CHECK(!byte_ring_read(&ring, &size), "empty ring reads nothing");
    CHECK(!byte_ring_reserve(&ring, byte_ring_max_record(&ring) + 1),
          "a record larger than the maximum is refused");
    /* Fill: 100-byte records take 112 bytes. */
    while ((p = byte_ring_reserve(&ring, 100)) != NULL) {
        memset(p, n, 100);
        n++;
    }
    CHECK_INT(n, 9);
    CHECK(!byte_ring_read(&ring, &size), "nothing before commit");
    byte_ring_commit(&ring);
    for (int i = 0; i < n; i++) {
        p = byte_ring_read(&ring, &size);
        CHECK(p && size == 100 && p[0] == i && p[99] == i, "record %d", i);
    }
    CHECK(!byte_ring_reserve(&ring, 100), "no room before release");
    byte_ring_release(&ring);
    /* Wraps around, many times. */
    for (int i = 0; i < 1000; i++) {
        size_t want = 1 + i % 300;

        p = byte_ring_reserve(&ring, want);
        CHECK(p != NULL, "reserve %zu after release", want);
        if (!p) {
            break;
        }
        memset(p, i & 0xff, want);
        byte_ring_commit(&ring);
        p = byte_ring_read(&ring, &size);
        CHECK(p && size == want && p[want - 1] == (i & 0xff),
              "wrapped record %d", i);
        byte_ring_release(&ring);
    }
    CHECK(byte_ring_drained(&ring), "drained");
    byte_ring_uninit(&ring);
}

static void *
ring_producer(void *ring_)
{
    struct byte_ring *ring = ring_;

    for (uint32_t i = 0; i < N_THREADED; ) {
        size_t size = 5 + i % 60;
        uint8_t *p = byte_ring_reserve(ring, size);

        if (!p) {
            byte_ring_commit(ring);
            sched_yield();
            continue;
        }
        memcpy(p, &i, 4);
        memset(p + 4, i & 0xff, size - 4);
        if (!(i % 7)) {
            byte_ring_commit(ring);
        }
        i++;
    }
    byte_ring_commit(ring);
    return NULL;
}

static void
test_byte_ring_threads(void)
{
    struct byte_ring ring;
    uint32_t expect = 0;
    int n_bad = 0;
    pthread_t t;

    byte_ring_init(&ring, 4096);
    pthread_create(&t, NULL, ring_producer, &ring);
    while (expect < N_THREADED) {
        size_t size;
        uint8_t *p = byte_ring_read(&ring, &size);
        uint32_t seq;

        if (!p) {
            byte_ring_release(&ring);
            sched_yield();
            continue;
        }
        memcpy(&seq, p, 4);
        if (seq != expect || size != 5 + seq % 60
            || p[size - 1] != (seq & 0xff)) {
            n_bad++;
        }
        expect++;
        if (!(expect % 5)) {
            byte_ring_release(&ring);
        }
    }
    pthread_join(t, NULL);
    CHECK_INT(n_bad, 0);
    byte_ring_uninit(&ring);
}

int
main(void)
{
    test_byte_ring_basic();
    test_byte_ring_threads();
    return check_finish("test-byte-ring");
}
