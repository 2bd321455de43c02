/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Running under systemd as a Type=notify service: readiness once the ports
 * are open ("READY=1"), "STOPPING=1" on the way out, and the watchdog.
 * The watchdog is fed from the control thread, and only while every PMD
 * thread still goes round its loop: a stuck PMD forwards nothing, so it
 * stops the pings and systemd restarts the daemon (WatchdogSec= in the
 * unit).  Without NOTIFY_SOCKET in the environment (not started by
 * systemd) all of this does nothing.  Control thread.
 */
#ifndef SERVICE_H
#define SERVICE_H 1

struct dp;
struct event_base;

/* Tells systemd that the daemon runs, with a status line about 'dp'. */
void service_notify_ready(const struct dp *dp);

/* Tells systemd that the daemon is shutting down. */
void service_notify_stopping(void);

/* If systemd asked for a watchdog (WATCHDOG_USEC), starts feeding it from
 * a timer on 'base' at half that interval, while every PMD of 'dp' is
 * alive.  Returns the watchdog, or NULL if none was asked for. */
struct service_watchdog *service_watchdog_start(struct event_base *base,
                                                struct dp *dp);
void service_watchdog_stop(struct service_watchdog *);   /* Accepts NULL. */

/* Registers pmd/test-stall, which makes a PMD stop as a stuck one would:
 * for tests only (pmdswitchd --enable-dummy). */
void service_register_test_commands(struct dp *dp);

#endif /* service.h */
