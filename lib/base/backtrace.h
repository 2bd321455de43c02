/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Crash handler: on a fatal signal (SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
 * SIGILL) the daemon writes one line naming the signal and then a
 * backtrace of the crashing thread and of every other thread of the
 * process, to stderr and to the log file, then dies from the same signal,
 * so that a supervisor (daemon-monitor.h, systemd) sees a crash and not an
 * exit.
 *
 * The other threads are reached with a real-time signal (BACKTRACE_SIGNAL)
 * whose handler writes the thread's own backtrace; the crashing thread
 * signals them one at a time and waits a bounded time for each.  Only
 * async-signal-safe calls run in the handlers; backtrace() itself is
 * warmed up by backtrace_install() so that it does not load libgcc inside
 * a handler.  The output of one thread looks like
 *
 *     pmdswitchd: thread 1234 (pmd-c01): backtrace:
 *     ./pmdswitchd(+0x1a2b3)[0x55...]
 *     ...
 */
#ifndef BACKTRACE_H
#define BACKTRACE_H 1

#include <signal.h>

/* The real-time signal that asks a thread for its backtrace.  Leaves
 * SIGRTMIN and the next few to libraries that claim them. */
#define BACKTRACE_SIGNAL (SIGRTMIN + 4)

/* Installs the crash handler for the fatal signals and the handler of
 * BACKTRACE_SIGNAL, for the whole process.  'program' (kept, not copied)
 * starts each line written.  Call once, from the main thread, before
 * starting other threads: they inherit nothing here but the signal
 * dispositions are per-process, so later threads are covered too. */
void backtrace_install(const char *program);

#endif /* backtrace.h */
