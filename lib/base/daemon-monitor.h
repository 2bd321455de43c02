/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The supervisor behind "pmdswitchd --monitor".  daemon_monitor_start()
 * forks: the parent becomes the monitor and never returns, the child
 * returns and goes on to be the daemon.  When the daemon dies from a crash
 * signal (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGSYS, SIGTRAP,
 * SIGXCPU, SIGXFSZ) the monitor logs it and forks a new daemon, which
 * returns from daemon_monitor_start() again, re-reads the config and
 * re-attaches its ports.  It gives up, with an error and exit status 1,
 * after DAEMON_MONITOR_MAX_RESTARTS restarts within
 * DAEMON_MONITOR_WINDOW_SEC seconds.
 *
 * The monitor exits, with the daemon's status, when the daemon exits by
 * itself (SIGTERM to the daemon, appctl "exit", a start-up error) or dies
 * from any other signal (SIGKILL is how an administrator insists, not a
 * crash).  SIGTERM and SIGINT to the monitor are forwarded to the daemon,
 * and the monitor exits once the daemon has; SIGHUP is forwarded too (the
 * daemon reloads its config).  If the monitor itself is killed, the daemon
 * gets SIGTERM.
 *
 * The pidfile is the daemon's business: it holds the daemon's pid, as with
 * Open vSwitch, so "kill $(cat PIDFILE)" stops the service and appctl -t
 * PIDFILE reaches the daemon.
 */
#ifndef DAEMON_MONITOR_H
#define DAEMON_MONITOR_H 1

/* Restart budget: at most this many restarts ... */
#define DAEMON_MONITOR_MAX_RESTARTS 10
/* ... within this many seconds. */
#define DAEMON_MONITOR_WINDOW_SEC 60

/* Starts the monitor, as described above.  Returns only in a daemon
 * process, with the number of restarts before it (0 for the first
 * daemon).
 *
 * '*ready_fd' is -1 or the descriptor of a --detach start-up pipe: the
 * daemon normally writes one status byte (0 for "running") to it and
 * closes it.  With the monitor, the first daemon's byte goes to the
 * monitor instead, which passes it on, then (if '*ready_fd' was not -1)
 * moves its own standard streams to /dev/null and its working directory
 * to "/", as a detached daemon does.  On return '*ready_fd' is the
 * descriptor that this daemon writes its byte to, or -1 for a restarted
 * daemon (nobody waits for it).
 *
 * Call from the main thread before any other thread exists, after the log
 * file is open. */
int daemon_monitor_start(int *ready_fd);

#endif /* daemon-monitor.h */
