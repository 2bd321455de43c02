/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * An appctl server in a thread of its own for the unit tests; see
 * unixctl-test.h.  The thread runs its event base until a byte on the stop
 * pipe breaks the loop; only then does the main thread destroy the server,
 * as unixctl_server_destroy() requires.
 */
#include <autoconf.h>
#include "unixctl-test.h"

#include <errno.h>
#include <event2/event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/compiler.h"
#include "control/unixctl.h"
#include "base/util.h"

/* Stores the printf-style message 'format' in 's->error'. */
static void PRINTF_FORMAT(2, 3)
set_error(struct unixctl_test_server *s, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    vsnprintf(s->error, sizeof s->error, format, args);
    va_end(args);
}

/* Frees and removes what a start made in 's', as far as it got, and marks
 * 's' as not running.  The thread, if any, must have exited. */
static void
release(struct unixctl_test_server *s)
{
    unixctl_server_destroy(s->server);
    s->server = NULL;
    if (s->stop_ev) {
        event_free(s->stop_ev);
        s->stop_ev = NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (s->stop_pipe[i] >= 0) {
            close(s->stop_pipe[i]);
            s->stop_pipe[i] = -1;
        }
    }
    if (s->base) {
        event_base_free(s->base);
        s->base = NULL;
    }
    if (s->dir[0]) {
        rmdir(s->dir);
        s->dir[0] = '\0';
    }
    free(s->path);
    s->path = NULL;
}

static void
stop_cb(evutil_socket_t fd OVS_UNUSED, short what OVS_UNUSED, void *base)
{
    event_base_loopbreak(base);
}

static void *
server_main(void *base)
{
    event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

bool
unixctl_test_server_start(struct unixctl_test_server *s, const char *path)
{
    return unixctl_test_server_start_limited(s, path, NULL);
}

bool
unixctl_test_server_start_limited(struct unixctl_test_server *s,
                                  const char *path,
                                  const struct unixctl_limits *limits)
{
    char *err = NULL;
    int error;

    memset(s, 0, sizeof *s);
    s->stop_pipe[0] = s->stop_pipe[1] = -1;

    if (path) {
        s->path = xstrdup(path);
    } else {
        snprintf(s->dir, sizeof s->dir, "/tmp/unixctl-test.XXXXXX");
        if (!mkdtemp(s->dir)) {
            set_error(s, "mkdtemp: %s", strerror(errno));
            s->dir[0] = '\0';
            goto fail;
        }
        s->path = xasprintf("%s/test.ctl", s->dir);
    }

    s->base = event_base_new();
    if (!s->base) {
        set_error(s, "event_base_new failed");
        goto fail;
    }
    s->server = unixctl_server_create(s->base, s->path, &err);
    if (!s->server) {
        set_error(s, "server on %s: %s", s->path, err ? err : "?");
        free(err);
        goto fail;
    }
    if (limits) {
        unixctl_server_set_limits(s->server, limits);
    }
    if (pipe(s->stop_pipe)) {
        set_error(s, "pipe: %s", strerror(errno));
        s->stop_pipe[0] = s->stop_pipe[1] = -1;
        goto fail;
    }
    s->stop_ev = event_new(s->base, s->stop_pipe[0], EV_READ, stop_cb,
                           s->base);
    if (!s->stop_ev || event_add(s->stop_ev, NULL)) {
        set_error(s, "cannot watch the stop pipe");
        goto fail;
    }
    error = pthread_create(&s->thread, NULL, server_main, s->base);
    if (error) {
        set_error(s, "pthread_create: %s", strerror(error));
        goto fail;
    }
    return true;

fail:
    release(s);
    return false;
}

void
unixctl_test_server_stop(struct unixctl_test_server *s)
{
    if (!s->server) {
        return;
    }
    if (write(s->stop_pipe[1], "x", 1) != 1) {
        ovs_fatal(errno, "write");
    }
    pthread_join(s->thread, NULL);
    release(s);
}
