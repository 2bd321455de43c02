/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * systemd readiness and watchdog (service.h), through libsystemd's
 * sd_notify().
 */
#include <autoconf.h>
#include "control/service.h"

#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "base/util.h"
#include "base/vlog.h"
#include "control/appctl.h"
#include "control/unixctl.h"
#include "dp/dp.h"
#include "dp/pmd.h"

VLOG_DEFINE_THIS_MODULE(service);

/* Sends 'state' to systemd; nothing without NOTIFY_SOCKET. */
static void
service_notify__(const char *state)
{
#ifdef HAVE_LIBSYSTEMD
    int error = sd_notify(0, state);

    if (error < 0) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 1);

        VLOG_WARN_RL(&rl, "cannot notify systemd: %s", strerror(-error));
    }
#else
    (void) state;
#endif
}

void
service_notify_ready(const struct dp *dp)
{
    char *state = xasprintf("READY=1\nSTATUS=forwarding: %d port(s), "
                            "%d pmd thread(s)", (int) dp->n_ports,
                            dp->n_pmds);

    service_notify__(state);
    free(state);
}

void
service_notify_stopping(void)
{
    service_notify__("STOPPING=1\nSTATUS=shutting down");
}

/* The watchdog. */

struct service_watchdog {
    struct dp *dp;
    struct event *timer;
    long long stall_ms;         /* A PMD stuck this long withholds it. */
    int stuck_core;             /* Core of the PMD that withholds it, or
                                 * -1. */
};

/* Real time, whatever the test clock says: the watchdog is about the
 * threads, not about the datapath's idea of time. */
static long long
service_monotonic_ms__(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Returns the first PMD of 'wd' stuck for 'stall_ms' or longer, or NULL,
 * and how long in '*stalled_ms'.  Every PMD is looked at, so that each
 * one's last progress stays current. */
static struct pmd *
service_find_stuck_pmd__(struct service_watchdog *wd, long long *stalled_ms)
{
    long long now = service_monotonic_ms__();
    struct pmd *stuck = NULL;

    for (int i = 0; i < wd->dp->n_pmds; i++) {
        long long ms = pmd_stalled_ms(wd->dp->pmds[i], now);

        if (!stuck && ms >= wd->stall_ms) {
            stuck = wd->dp->pmds[i];
            *stalled_ms = ms;
        }
    }
    return stuck;
}

static void
service_watchdog_run__(evutil_socket_t fd OVS_UNUSED, short events OVS_UNUSED,
                       void *wd_)
{
    struct service_watchdog *wd = wd_;
    long long stalled_ms = 0;
    struct pmd *stuck = service_find_stuck_pmd__(wd, &stalled_ms);

    if (!stuck) {
        if (wd->stuck_core >= 0) {
            VLOG_WARN("pmd thread on core %d goes round its loop again: "
                      "feeding the systemd watchdog again", wd->stuck_core);
            wd->stuck_core = -1;
        }
        service_notify__("WATCHDOG=1");
    } else if (stuck->core_id != wd->stuck_core) {
        VLOG_ERR("pmd thread on core %d has not gone round its loop for "
                 "%lld ms: withholding the systemd watchdog",
                 stuck->core_id, stalled_ms);
        wd->stuck_core = stuck->core_id;
    }
}

struct service_watchdog *
service_watchdog_start(struct event_base *base, struct dp *dp)
{
#ifdef HAVE_LIBSYSTEMD
    struct service_watchdog *wd;
    struct timeval interval;
    uint64_t usec = 0;

    if (sd_watchdog_enabled(0, &usec) <= 0 || !usec) {
        return NULL;
    }
    wd = xzalloc(sizeof *wd);
    wd->dp = dp;
    wd->stuck_core = -1;
    /* Pinged twice per interval; a PMD must go round at least once in
     * each ping's time, which is ample: it does so every few us. */
    wd->stall_ms = MAX(usec / 2000, 1);
    interval.tv_sec = usec / 2 / 1000000;
    interval.tv_usec = usec / 2 % 1000000;
    wd->timer = event_new(base, -1, EV_PERSIST, service_watchdog_run__, wd);
    event_add(wd->timer, &interval);
    VLOG_INFO("feeding the systemd watchdog every %"PRIu64" ms while the "
              "pmd threads run", usec / 2000);
    service_watchdog_run__(-1, 0, wd);
    return wd;
#else
    (void) base;
    (void) dp;
    return NULL;
#endif
}

void
service_watchdog_stop(struct service_watchdog *wd)
{
    if (wd) {
        event_free(wd->timer);
        free(wd);
    }
}

/* pmd/test-stall CORE MS: the PMD on CORE stops for MS ms, without the
 * control thread waiting for it. */
static void
service_unixctl_test_stall(struct unixctl_conn *conn, int argc OVS_UNUSED,
                           const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct pmd_request *req;
    int core = atoi(argv[0]);
    int ms = atoi(argv[1]);
    struct pmd *pmd = NULL;
    int error;

    for (int i = 0; i < dp->n_pmds; i++) {
        if (dp->pmds[i]->core_id == core) {
            pmd = dp->pmds[i];
        }
    }
    if (!pmd || !pmd->started || ms < 1 || ms > 600000) {
        unixctl_command_reply_error(conn, "usage: pmd/test-stall CORE MS "
                                    "(a pmd thread's core, 1 to 600000 ms)");
        return;
    }
    req = xzalloc(sizeof *req);
    req->type = PMD_REQUEST_TEST_STALL;
    req->stall_ms = ms;
    /* It times out, and the PMD keeps the request until it is done. */
    error = pmd_request_run(pmd, req, 1);
    if (error && error != ETIMEDOUT) {
        free(req);
        unixctl_command_reply_errorf(conn, "pmd thread on core %d is busy "
                                     "(%s)", core, strerror(error));
        return;
    }
    if (!error) {
        free(req);
    }
    VLOG_WARN("pmd thread on core %d stalls for %d ms, as asked by "
              "pmd/test-stall", core, ms);
    unixctl_command_reply(conn, "");
}

void
service_register_test_commands(struct dp *dp)
{
    unixctl_command_register("pmd/test-stall", "CORE MS", 2, 2,
                             service_unixctl_test_stall, dp);
}
