/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The crash handler of backtrace.h.  Everything reachable from a signal
 * handler here is async-signal-safe: write(), open(), getdents64, tgkill,
 * nanosleep, sigaction, prctl and glibc's backtrace() and
 * backtrace_symbols_fd() (the latter allocates nothing, the former only on
 * its first call, which backtrace_install() makes).  Numbers are formatted
 * by hand because printf is not safe there.
 */
#include <autoconf.h>
#include "base/backtrace.h"

#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "base/util.h"
#include "base/vlog.h"

/* Deepest stack written per thread. */
#define BACKTRACE_MAX_FRAMES 64

/* How long the crashing thread waits for each other thread's backtrace,
 * in milliseconds. */
#define BACKTRACE_THREAD_WAIT_MS 1000

/* Written by backtrace_install() only. */
static const char *program_name = "pmdswitchd";

/* Nonzero once some thread is handling a crash; set by that thread. */
static int crashing;

/* Set to 1 by a thread when it has written its backtrace on request;
 * cleared by the crashing thread before each request.  The release store
 * in dump_handler__() pairs with the acquire load in dump_threads__(). */
static int dump_done;

/* The main thread's alternate signal stack, so that a stack overflow
 * there still gets its backtrace. */
static char alt_stack[64 * 1024];

/* The fatal signals, with their names (strsignal() is not safe in a
 * handler). */
static const struct {
    int signo;
    const char *name;
} fatal_signals[] = {
    { SIGSEGV, "SIGSEGV" },
    { SIGBUS, "SIGBUS" },
    { SIGABRT, "SIGABRT" },
    { SIGFPE, "SIGFPE" },
    { SIGILL, "SIGILL" },
};

static void
put_str__(int fd, const char *s)
{
    write_fully(fd, s, strlen(s));
}

static void
put_num__(int fd, long value)
{
    char buf[24];
    size_t i = sizeof buf;
    unsigned long v = (value < 0 ? 0UL - (unsigned long) value
                       : (unsigned long) value);

    do {
        buf[--i] = '0' + v % 10;
        v /= 10;
    } while (v && i > 1);
    if (value < 0) {
        buf[--i] = '-';
    }
    write_fully(fd, buf + i, sizeof buf - i);
}

/* Stores in 'fds' the distinct descriptors that crash output goes to
 * (stderr and the log file) and returns how many. */
static int
output_fds__(int fds[2])
{
    int log_fd = vlog_get_log_fd();
    int n = 0;

    fds[n++] = STDERR_FILENO;
    if (log_fd >= 0 && log_fd != STDERR_FILENO) {
        fds[n++] = log_fd;
    }
    return n;
}

static long
gettid__(void)
{
    return syscall(SYS_gettid);
}

/* Writes the calling thread's header line and backtrace to each of the
 * 'n_fds' descriptors in 'fds'. */
static void
write_backtrace__(const int *fds, int n_fds)
{
    void *frames[BACKTRACE_MAX_FRAMES];
    char name[17] = "";
    int n_frames;

    n_frames = backtrace(frames, BACKTRACE_MAX_FRAMES);
    prctl(PR_GET_NAME, name, 0, 0, 0);
    for (int i = 0; i < n_fds; i++) {
        put_str__(fds[i], program_name);
        put_str__(fds[i], ": thread ");
        put_num__(fds[i], gettid__());
        put_str__(fds[i], " (");
        put_str__(fds[i], name);
        put_str__(fds[i], "): backtrace:\n");
        backtrace_symbols_fd(frames, n_frames, fds[i]);
    }
}

/* Handler of BACKTRACE_SIGNAL: writes this thread's backtrace. */
static void
dump_handler__(int signo OVS_UNUSED)
{
    int saved_errno = errno;
    int fds[2];

    write_backtrace__(fds, output_fds__(fds));
    __atomic_store_n(&dump_done, 1, __ATOMIC_RELEASE);
    errno = saved_errno;
}

/* Sleeps for about a millisecond. */
static void
nap__(void)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = 1000 * 1000 };

    nanosleep(&ts, NULL);
}

/* Asks every thread of the process but the calling one for its backtrace,
 * one at a time, waiting up to BACKTRACE_THREAD_WAIT_MS for each. */
static void
dump_threads__(void)
{
    long self = gettid__();
    pid_t pid = getpid();
    char buf[4096];
    int dir;

    dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        return;
    }
    for (;;) {
        long n = syscall(SYS_getdents64, dir, buf, sizeof buf);

        if (n <= 0) {
            break;
        }
        for (long ofs = 0; ofs < n; ) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *d = (void *) (buf + ofs);
            long tid = 0;
            const char *p;

            ofs += d->reclen;
            for (p = d->name; *p >= '0' && *p <= '9'; p++) {
                tid = tid * 10 + (*p - '0');
            }
            if (*p || p == d->name || tid == self) {
                continue;
            }
            __atomic_store_n(&dump_done, 0, __ATOMIC_RELAXED);
            if (syscall(SYS_tgkill, pid, tid, BACKTRACE_SIGNAL)) {
                continue;       /* The thread has just exited. */
            }
            for (int ms = 0; ms < BACKTRACE_THREAD_WAIT_MS; ms++) {
                if (__atomic_load_n(&dump_done, __ATOMIC_ACQUIRE)) {
                    break;
                }
                nap__();
            }
        }
    }
    close(dir);
}

/* Handler of the fatal signals. */
static void
crash_handler__(int signo)
{
    const char *name = "fatal signal";
    struct sigaction dfl;
    sigset_t unblock;
    int fds[2];
    int n_fds;

    if (__atomic_exchange_n(&crashing, 1, __ATOMIC_ACQ_REL)) {
        /* Another thread is already writing the backtraces and will end
         * the process; answer its request and wait for the end. */
        for (;;) {
            nap__();
        }
    }

    for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++) {
        if (fatal_signals[i].signo == signo) {
            name = fatal_signals[i].name;
        }
    }
    n_fds = output_fds__(fds);
    for (int i = 0; i < n_fds; i++) {
        put_str__(fds[i], program_name);
        put_str__(fds[i], ": caught ");
        put_str__(fds[i], name);
        put_str__(fds[i], " in thread ");
        put_num__(fds[i], gettid__());
        put_str__(fds[i], "; backtraces of every thread follow\n");
    }
    write_backtrace__(fds, n_fds);
    dump_threads__();
    for (int i = 0; i < n_fds; i++) {
        put_str__(fds[i], program_name);
        put_str__(fds[i], ": end of backtraces, dying from ");
        put_str__(fds[i], name);
        put_str__(fds[i], "\n");
    }

    /* Die from the same signal, also when it was sent with kill(), so the
     * parent sees the crash in the wait status. */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signo, &dfl, NULL);
    syscall(SYS_tgkill, getpid(), gettid__(), signo);
    sigemptyset(&unblock);
    sigaddset(&unblock, signo);
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

void
backtrace_install(const char *program)
{
    struct sigaction sa;
    void *frame;
    stack_t ss;

    program_name = program;
    /* The first call may load libgcc and allocate: not in a handler. */
    backtrace(&frame, 1);

    ss.ss_sp = alt_stack;
    ss.ss_size = sizeof alt_stack;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = crash_handler__;
    sa.sa_flags = SA_ONSTACK;
    for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++) {
        sigaction(fatal_signals[i].signo, &sa, NULL);
    }

    sa.sa_handler = dump_handler__;
    sa.sa_flags = SA_RESTART;
    sigaction(BACKTRACE_SIGNAL, &sa, NULL);
}
