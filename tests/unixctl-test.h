/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * An appctl server for the unit tests that talk to one (tests/test-unixctl.c,
 * tests/test-vlog.c, tests/test-coverage.c).  The server runs in a thread of
 * its own, on an event base of its own, as the daemon's control thread
 * would; the test's main thread acts as the client, with
 * unixctl_client_transact() or raw sockets, and stops the server through a
 * pipe.  The socket is at a path the test chooses or in a new private
 * temporary directory.  These helpers assert nothing: they report failure
 * to the caller, and the checks stay in the test programs (tests/check.h
 * counts per program).
 */
#ifndef TESTS_UNIXCTL_TEST_H
#define TESTS_UNIXCTL_TEST_H 1

#include <pthread.h>
#include <stdbool.h>

struct event;
struct event_base;
struct unixctl_limits;
struct unixctl_server;

/* A running test server.  Written by unixctl_test_server_start() and
 * unixctl_test_server_stop() only; the caller reads 'path' and 'error'. */
struct unixctl_test_server {
    struct event_base *base;        /* Run by 'thread'. */
    struct unixctl_server *server;  /* NULL if not running. */
    struct event *stop_ev;          /* Breaks 'base''s loop. */
    int stop_pipe[2];               /* Readable end triggers 'stop_ev'. */
    pthread_t thread;               /* Runs 'base' until stopped. */
    char dir[64];                   /* Temporary directory holding the
                                     * socket, or "" if the caller chose
                                     * the path. */
    char *path;                     /* Socket path, malloc'd; NULL if not
                                     * running. */
    char error[256];                /* Why the last start failed, or "". */
};

/* Starts an appctl server in 's', listening on 'path', or, if 'path' is
 * NULL, on "test.ctl" in a new temporary directory under /tmp, and runs it
 * in a new thread.  Registered commands (unixctl_command_register()) are
 * served from then on, in that thread.
 *
 * Returns true on success: then 's->path' names the socket until
 * unixctl_test_server_stop().  Returns false, with a one-line reason in
 * 's->error' and nothing left behind, on failure.  Main thread. */
bool unixctl_test_server_start(struct unixctl_test_server *s,
                               const char *path);

/* Same, with the server's limits set to '*limits' (unless NULL) before it
 * serves anything. */
bool unixctl_test_server_start_limited(struct unixctl_test_server *s,
                                       const char *path,
                                       const struct unixctl_limits *limits);

/* Stops the thread of the server in 's', destroys the server (which
 * removes its socket), removes the temporary directory if start made one,
 * and frees what start allocated.  Does nothing if 's' is not running
 * (its start failed, or it was stopped already).  Exits the program if the
 * thread cannot be told to stop.  Main thread. */
void unixctl_test_server_stop(struct unixctl_test_server *s);

#endif /* tests/unixctl-test.h */
