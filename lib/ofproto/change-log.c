/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The change log's ring; see change-log.h.  A reader validates what it
 * copied the way a seqlock reader does: the key at position 'p' may be
 * overwritten once the head reaches p + CHANGE_LOG_SIZE, so it reads the
 * head again after copying and gives up if its first position is that
 * far behind.  Keys are stored with release and loaded with acquire (no
 * fences, which the thread sanitizer does not model).
 */
#include <autoconf.h>
#include "ofproto/change-log.h"

#include <string.h>
#include "base/util.h"

void
change_log_init(struct change_log *log)
{
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->mutex, NULL);
}

void
change_log_uninit(struct change_log *log)
{
    pthread_mutex_destroy(&log->mutex);
}

void
change_log_set_change_seq(struct change_log *log, uint64_t *change_seq)
{
    log->change_seq = change_seq;
}

void
change_log_append(struct change_log *log, uint64_t key)
{
    pthread_mutex_lock(&log->mutex);
    /* Release pairs with the acquire loads of the keys in
     * change_log_read(): a reader that loads the key stored here sees the
     * head that made its slot reusable. */
    __atomic_store_n(&log->keys[log->head % CHANGE_LOG_SIZE], key,
                     __ATOMIC_RELEASE);
    /* Pairs with the acquire load in change_log_head(): a reader that
     * sees the new head sees the key. */
    __atomic_store_n(&log->head, log->head + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&log->mutex);
    if (log->change_seq) {
        /* Pairs with the acquire load of the counter in the PMDs: one
         * that sees it change sees the new head. */
        __atomic_add_fetch(log->change_seq, 1, __ATOMIC_RELEASE);
    }
}

uint64_t
change_log_head(const struct change_log *log)
{
    return __atomic_load_n(&log->head, __ATOMIC_ACQUIRE);
}

size_t
change_log_read(const struct change_log *log, uint64_t pos, uint64_t head,
                uint64_t *keys, size_t n_max)
{
    size_t n = MIN(head - pos, n_max);
    uint64_t now;

    if (head - pos > CHANGE_LOG_SIZE) {
        return SIZE_MAX;
    }
    for (size_t i = 0; i < n; i++) {
        /* Pairs with the release store in change_log_append(): if this
         * reads a key that overwrote ours, the head load below sees the
         * head of that append. */
        keys[i] = __atomic_load_n(&log->keys[(pos + i) % CHANGE_LOG_SIZE],
                                  __ATOMIC_ACQUIRE);
    }
    now = __atomic_load_n(&log->head, __ATOMIC_ACQUIRE);
    /* A writer that stores key 'p + CHANGE_LOG_SIZE' overwrites key 'p';
     * the head was then 'p + CHANGE_LOG_SIZE' already. */
    if (now - pos >= CHANGE_LOG_SIZE) {
        return SIZE_MAX;
    }
    return n;
}
