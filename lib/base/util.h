/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Small utilities shared by every module: allocation that aborts on
 * failure, container and array macros, and the monotonic clock.
 */
#ifndef UTIL_H
#define UTIL_H 1

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "base/compiler.h"

#define ARRAY_SIZE(ARRAY) (sizeof (ARRAY) / sizeof (ARRAY)[0])
#define CONTAINER_OF(POINTER, STRUCT, MEMBER)                           \
    ((STRUCT *) (void *) ((char *) (POINTER) - offsetof(STRUCT, MEMBER)))
#define ROUND_UP(X, Y) (((X) + ((Y) - 1)) / (Y) * (Y))
#define DIV_ROUND_UP(X, Y) (((X) + ((Y) - 1)) / (Y))
#define IS_POW2(X) ((X) && !((X) & ((X) - 1)))
#define MIN(X, Y) ((X) < (Y) ? (X) : (Y))
#define MAX(X, Y) ((X) > (Y) ? (X) : (Y))

/* Aborts with a message naming the file and line when 'COND' is false.
 * For invariants only, never for input validation. */
#define ovs_assert(COND)                                                \
    do {                                                                \
        if (UNLIKELY(!(COND))) {                                        \
            ovs_abort_assert(__FILE__, __LINE__, #COND);                \
        }                                                               \
    } while (0)
NO_RETURN void ovs_abort_assert(const char *file, int line, const char *cond);
NO_RETURN void ovs_fatal(int err, const char *format, ...) PRINTF_FORMAT(2, 3);

void *xmalloc(size_t size);
void *xzalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void *xmemdup(const void *p, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *format, ...) PRINTF_FORMAT(1, 2);
char *xvasprintf(const char *format, va_list args) PRINTF_FORMAT(1, 0);

/* Writes all 'size' bytes of 'data' to 'fd', retrying after EINTR and
 * short writes, and gives up silently on any other error: for logs and
 * crash reports, which have nowhere to report a failure.  Async-signal
 * safe. */
void write_fully(int fd, const void *data, size_t size);
/* Copies 'size' bytes of 'p' into a new NUL-terminated string. */
char *xmemdup0(const void *p, size_t size);
/* Allocates 'size' bytes aligned to a cache line, zeroed; free() frees it. */
void *xzalloc_cacheline(size_t size);

/* Returns 'size' bytes of zeroed, page-aligned memory that takes up no
 * physical memory until it is written, page by page: for buffers sized for
 * the largest frame that mostly hold small ones.  Free with
 * free_pages(). */
void *xmalloc_pages(size_t size);
void free_pages(void *p, size_t size);  /* Accepts NULL. */

/* Raises this process's soft RLIMIT_NOFILE to 'want', or to the hard limit
 * if that is lower; never lowers it.  Stores the soft limit before and
 * after in '*before' and '*after', and the hard limit in '*hard' (each may
 * be NULL).  Returns 0, or an errno with the limit unchanged.  Any
 * thread. */
int raise_fd_limit(unsigned long long want, unsigned long long *before,
                   unsigned long long *after, unsigned long long *hard);

/* Monotonic time, plus whatever time_warp() added.  Cheap enough for
 * PMD threads: a clock_gettime() and one relaxed load. */
long long time_msec(void);
long long time_usec(void);

/* Test clock: moves time_msec() and time_usec(), as seen by every thread,
 * 'msec' milliseconds (>= 0) forward from now on.  The clock keeps running
 * at its normal rate.  For tests only: pmdswitchd offers it as "time/warp"
 * when started with --enable-dummy.  Any thread. */
void time_warp(long long msec);

/* The total time_warp() added so far, in milliseconds. */
long long time_warped_msec(void);

/* Counts the bits set in 'x'. */
static inline int
count_1bits(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* Index of the least significant 1-bit of 'x' (undefined for 0). */
static inline int
rightmost_1bit_idx(uint64_t x)
{
    return __builtin_ctzll(x);
}

/* Iterates 'IDX' over the indexes of the 1-bits of 'MAP', low to high. */
#define ULLONG_FOR_EACH_1(IDX, MAP)                                     \
    for (uint64_t map__ = (MAP);                                        \
         map__ && (((IDX) = rightmost_1bit_idx(map__)), true);          \
         map__ &= map__ - 1)

/* The CPU cycle counter, for cycle accounting on PMDs. */
static inline uint64_t
cycles_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return (uint64_t) time_usec() * 1000;
#endif
}

#endif /* util.h */
