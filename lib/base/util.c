/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <autoconf.h>
#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

void
ovs_abort_assert(const char *file, int line, const char *cond)
{
    fprintf(stderr, "%s:%d: assertion %s failed\n", file, line, cond);
    abort();
}

void
ovs_fatal(int err, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    if (err) {
        fprintf(stderr, " (%s)", strerror(err));
    }
    fputc('\n', stderr);
    exit(EXIT_FAILURE);
}

static void *
check_alloc__(void *p)
{
    if (!p) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    return p;
}

void *
xmalloc(size_t size)
{
    return check_alloc__(malloc(size ? size : 1));
}

void *
xzalloc(size_t size)
{
    return check_alloc__(calloc(1, size ? size : 1));
}

void *
xcalloc(size_t n, size_t size)
{
    return check_alloc__(calloc(n ? n : 1, size ? size : 1));
}

void *
xrealloc(void *p, size_t size)
{
    return check_alloc__(realloc(p, size ? size : 1));
}

void *
xmemdup(const void *p, size_t size)
{
    void *q = xmalloc(size);
    memcpy(q, p, size);
    return q;
}

char *
xstrdup(const char *s)
{
    return xmemdup(s, strlen(s) + 1);
}

char *
xvasprintf(const char *format, va_list args)
{
    char *s;

    if (vasprintf(&s, format, args) < 0) {
        s = NULL;
    }
    return check_alloc__(s);
}

char *
xasprintf(const char *format, ...)
{
    va_list args;
    char *s;

    va_start(args, format);
    s = xvasprintf(format, args);
    va_end(args);
    return s;
}

char *
xmemdup0(const void *p, size_t size)
{
    char *s = xmalloc(size + 1);

    memcpy(s, p, size);
    s[size] = '\0';
    return s;
}

void *
xzalloc_cacheline(size_t size)
{
    void *p;

    size = ROUND_UP(size ? size : 1, CACHE_LINE_SIZE);
    if (posix_memalign(&p, CACHE_LINE_SIZE, size)) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    memset(p, 0, size);
    return p;
}

void *
xmalloc_pages(size_t size)
{
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    return p;
}

void
free_pages(void *p, size_t size)
{
    if (p) {
        munmap(p, size ? size : 1);
    }
}

/* Microseconds time_warp() added.  Written with an atomic add, read
 * relaxed: a reader that sees the old value a little longer only sees the
 * warp a little later, and the clock never goes back. */
static long long time_offset_usec;

long long
time_usec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((long long) ts.tv_sec * 1000000 + ts.tv_nsec / 1000
            + __atomic_load_n(&time_offset_usec, __ATOMIC_RELAXED));
}

void
time_warp(long long msec)
{
    ovs_assert(msec >= 0);
    __atomic_fetch_add(&time_offset_usec, msec * 1000, __ATOMIC_RELAXED);
}

long long
time_warped_msec(void)
{
    return __atomic_load_n(&time_offset_usec, __ATOMIC_RELAXED) / 1000;
}

long long
time_msec(void)
{
    return time_usec() / 1000;
}

void
write_fully(int fd, const void *data_, size_t size)
{
    const char *data = data_;

    while (size > 0) {
        ssize_t n = write(fd, data, size);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        data += n;
        size -= n;
    }
}

int
raise_fd_limit(unsigned long long want, unsigned long long *before,
               unsigned long long *after, unsigned long long *hard)
{
    struct rlimit rl;
    rlim_t old;
    int error = 0;

    if (getrlimit(RLIMIT_NOFILE, &rl)) {
        return errno;
    }
    old = rl.rlim_cur;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = MIN((rlim_t) want, rl.rlim_max);
        if (rl.rlim_cur > old && setrlimit(RLIMIT_NOFILE, &rl)) {
            error = errno;
            rl.rlim_cur = old;
        }
    }
    if (before) {
        *before = old;
    }
    if (after) {
        *after = rl.rlim_cur;
    }
    if (hard) {
        *hard = rl.rlim_max;
    }
    return error;
}
