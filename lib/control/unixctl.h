/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * appctl: the daemon's control socket.  The daemon runs one server on its
 * control thread, driven by that thread's libevent base; modules register
 * named commands, and pmdswitch-appctl (or any client using
 * unixctl_client_transact()) runs them.
 *
 * Protocol, JSON-RPC 1.0 style over a Unix stream socket.  Each message is
 * one JSON object; the object itself is the frame (no length prefix, no
 * delimiter).  A request is
 *
 *     {"method": NAME, "params": [STRING...], "id": ID}
 *
 * with an optional member "format": "json" asking for a JSON result (see
 * unixctl_conn_wants_json()).  The reply is
 *
 *     {"result": RESULT, "error": null, "id": ID}     on success,
 *     {"result": null, "error": TEXT, "id": ID}       on failure,
 *
 * where RESULT is a string, or any JSON value when the request asked for
 * "format": "json" and the handler replied with
 * unixctl_command_reply_json() or unixctl_command_reply_text_json().  A
 * client may send several requests on one connection; they are answered
 * in order.  A request that is not valid JSON, is not a valid request
 * object or is larger than UNIXCTL_MAX_REQUEST_SIZE bytes is answered with
 * an error (id null) and the connection is closed.  The server also closes
 * clients that stay idle, that leave replies unread or that it needs room
 * for (see struct unixctl_limits); each closing is counted by a coverage
 * counter (unixctl_*, see coverage/show).
 */
#ifndef UNIXCTL_H
#define UNIXCTL_H 1

#include <stdbool.h>
#include <jansson.h>
#include "base/compiler.h"

struct event_base;
struct unixctl_conn;
struct unixctl_server;

/* Largest request accepted, in bytes. */
#define UNIXCTL_MAX_REQUEST_SIZE (1024 * 1024)

/* The daemon's default control socket. */
#define UNIXCTL_DEFAULT_PATH "/run/pmdswitch/pmdswitchd.ctl"

/* Bounds on what the clients of one server may hold. */
struct unixctl_limits {
    /* Clients connected at once, >= 1.  Past it the server accepts no
     * more (they wait in the listen backlog) until one goes; to make room
     * it closes the client idle longest once that one has been idle for
     * UNIXCTL_EVICT_IDLE_MS (or half 'idle_timeout_ms', if shorter). */
    int max_clients;

    /* A client with no request running is closed after this many
     * milliseconds (>= 1) without a reply queued or a byte sent to it,
     * however many bytes of an unfinished request it sends meanwhile. */
    int idle_timeout_ms;

    /* A client is closed when a reply would leave more than this many
     * bytes (>= 1) of its replies unsent; a reply on its own is always
     * queued, however long. */
    size_t max_queued;
};

#define UNIXCTL_DEFAULT_MAX_CLIENTS 64
#define UNIXCTL_DEFAULT_IDLE_TIMEOUT_MS 30000
#define UNIXCTL_DEFAULT_MAX_QUEUED (4 * 1024 * 1024)
#define UNIXCTL_LIMITS_DEFAULT { UNIXCTL_DEFAULT_MAX_CLIENTS,          \
                                 UNIXCTL_DEFAULT_IDLE_TIMEOUT_MS,      \
                                 UNIXCTL_DEFAULT_MAX_QUEUED }

/* How long a client must have been idle to be closed for a new one. */
#define UNIXCTL_EVICT_IDLE_MS 1000

/* Server. */

/* Starts serving appctl requests on a Unix socket at 'path', with events
 * on 'base' (the control thread's base; every callback runs there).
 * Creates the parent directory, mode 0700, if it is missing.  Holds the
 * lock file "'path'.lock" (lockfile.h) until destroyed, and fails if
 * another process holds it or another server answers on 'path'; only
 * under that lock removes a stale socket left at 'path' by a dead
 * server; leaves the new socket with mode 0600.
 *
 * Returns the new server, or NULL with a malloc'd message in '*errp' (the
 * caller frees it). */
struct unixctl_server *unixctl_server_create(struct event_base *base,
                                             const char *path, char **errp);

/* Replaces the limits of 'server' (UNIXCTL_LIMITS_DEFAULT when created)
 * with '*limits'; clients already connected get the new idle timeout.
 * Control thread. */
void unixctl_server_set_limits(struct unixctl_server *server,
                               const struct unixctl_limits *limits);

/* Closes every client connection and the socket of 'server', removes the
 * socket file and frees 'server'.  Accepts NULL.  Control thread, with
 * 'server''s base not running in another thread.  A handler that still
 * holds a connection must not reply on it afterwards. */
void unixctl_server_destroy(struct unixctl_server *server);

/* Commands. */

/* Runs the command with the 'argc' arguments in 'argv' (argv[0] is the
 * first argument, not the command name) received on 'conn'.  The handler
 * must eventually call exactly one of the unixctl_command_reply*()
 * functions on 'conn', now or later on the control thread; 'argv' is
 * valid only during the call. */
typedef void unixctl_cb_func(struct unixctl_conn *conn, int argc,
                             const char *argv[], void *aux);

/* Registers command 'name', shown by "list-commands" with 'usage' (for
 * example "[PORT]"; may be ""), taking from 'min_args' to 'max_args'
 * arguments: the server rejects other counts before calling 'cb'.  'cb' is
 * called with 'aux'.  The table is global and shared by all servers.
 * Registering a name twice is a bug (aborts).  Control thread.
 *
 * Every server has the built-in command "list-commands".  As text it
 * prints "The available commands are:" and then, sorted by name, one line
 * per command: two spaces, the name padded to 23 columns, a space and the
 * usage (just the name when the usage is "").  As JSON it answers an array
 * sorted by name of
 *
 *     {"name": NAME, "usage": USAGE, "min_args": N, "max_args": N}
 *
 * where "max_args" is INT_MAX for a command without a limit. */
void unixctl_command_register(const char *name, const char *usage,
                              int min_args, int max_args,
                              unixctl_cb_func *cb, void *aux);

/* One command for unixctl_command_register_table(). */
struct unixctl_command_def {
    const char *name;
    const char *usage;
    int min_args, max_args;
    unixctl_cb_func *cb;
};

/* Registers the 'n' commands of 'defs', each with 'aux', as
 * unixctl_command_register() does. */
void unixctl_command_register_table(const struct unixctl_command_def *defs,
                                    size_t n, void *aux);

/* Answers the request pending on 'conn' with success and 'text' (may be
 * NULL for "").  A request that asked for JSON gets the object
 * {"reply-format": "plain", "reply": TEXT}, as Open vSwitch answers.
 * Control thread. */
void unixctl_command_reply(struct unixctl_conn *conn, const char *text);

/* Answers the request pending on 'conn' with error 'text'.  Control
 * thread. */
void unixctl_command_reply_error(struct unixctl_conn *conn,
                                 const char *text);

/* Same, with the error formatted as printf() does. */
void unixctl_command_reply_errorf(struct unixctl_conn *conn,
                                  const char *format, ...)
    PRINTF_FORMAT(2, 3);

/* Returns true if the request pending on 'conn' asked for a JSON result
 * ("format": "json"), so the handler should answer with
 * unixctl_command_reply_json(). */
bool unixctl_conn_wants_json(const struct unixctl_conn *conn);

/* Answers the request pending on 'conn' with success and JSON 'result',
 * taking ownership of 'result'.  If the request did not ask for JSON, the
 * client gets 'result' rendered as indented JSON text instead. */
void unixctl_command_reply_json(struct unixctl_conn *conn, json_t *result);

/* Answers the request pending on 'conn' with success: with JSON 'json' if
 * the request asked for JSON (see unixctl_conn_wants_json()), otherwise
 * with 'text' (may be NULL for "").  Takes ownership of 'json' (NULL for
 * JSON null) either way.  For commands whose text layout is not 'json'
 * rendered as text.  Control thread. */
void unixctl_command_reply_text_json(struct unixctl_conn *conn,
                                     const char *text, json_t *json);

/* Request parsing, as the server does it; exposed for tests and fuzzing. */

/* Incremental scanner that finds where the first JSON object in a byte
 * stream ends, so that a request is complete before it is parsed.  Zero it
 * to start a new frame. */
struct unixctl_framer {
    size_t pos;                 /* Bytes of the buffer scanned so far. */
    int depth;                  /* Open '{' and '[' not yet closed. */
    bool started;               /* Seen the opening '{'. */
    bool in_string;             /* Inside a string literal. */
    bool escaped;               /* Previous string byte was '\'. */
};

/* Scans the bytes of 'buf' from 'f->pos' up to 'size'; the bytes before
 * 'f->pos' must be those scanned by earlier calls.  Returns 1 when a
 * complete object ends at 'f->pos' (the frame is the first 'f->pos' bytes
 * of 'buf'), 0 when more bytes are needed, -1 when the stream does not
 * start with an object.  Any thread. */
int unixctl_framer_scan(struct unixctl_framer *f, const char *buf,
                        size_t size);

/* A parsed request.  'method', 'argv' and 'id' point into 'json'. */
struct unixctl_request {
    json_t *json;               /* The whole request object (owned). */
    const char *method;         /* "method". */
    size_t argc;                /* Number of "params". */
    const char **argv;          /* 'argc' strings, then NULL (owned). */
    json_t *id;                 /* "id", or NULL if absent. */
    bool wants_json;            /* "format": "json". */
};

/* Parses the frame of 'size' bytes at 'buf' (see unixctl_framer_scan())
 * as a request.  Returns NULL and fills 'req', to free with
 * unixctl_request_uninit(), or returns the protocol error message the
 * server answers with, for the caller to free, and leaves 'req' zeroed.
 * Any thread. */
char *unixctl_parse_request(const char *buf, size_t size,
                            struct unixctl_request *req);

/* Frees what 'req' owns.  Accepts a zeroed 'req'. */
void unixctl_request_uninit(struct unixctl_request *req);

/* Client. */

/* Connects to the server at 'path', runs 'method' with the 'argc'
 * arguments in 'argv', asking for a JSON result if 'json', and waits for
 * the reply, at most 'timeout_s' seconds in all (0: no limit).
 *
 * Returns 0 if the server answered: then exactly one of '*result' (success;
 * a JSON result is rendered as indented JSON text) and '*error' (the
 * server's error text) is a malloc'd string and the other is NULL.  Returns
 * a positive errno, with both NULL, if it could not talk to the server:
 * ETIMEDOUT after 'timeout_s', EPROTO for a malformed reply, otherwise the
 * errno of the failed system call (ENOENT, ECONNREFUSED...).  Any thread;
 * blocks. */
int unixctl_client_transact(const char *path, const char *method,
                            int argc, const char *argv[], bool json,
                            int timeout_s, char **result, char **error);

#endif /* unixctl.h */
