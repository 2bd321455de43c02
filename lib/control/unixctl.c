/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * appctl server (see unixctl.h for the protocol; the client is in
 * unixctl-client.c).  The server is a listening Unix socket plus one
 * non-blocking connection per client, each with its own input and output
 * buffer and libevent read/write events, so a slow or silent client never
 * holds up another.  Requests on one connection are run one at a time, in
 * order; a handler may reply later, and the connection then waits for it
 * before reading on.
 *
 * Clients are bounded (see struct unixctl_limits): past 'max_clients' the
 * server stops accepting, leaving new clients in the listen backlog, and
 * makes room by closing the client that has been idle longest once it has
 * been idle for a while; a client idle for 'idle_timeout_ms'
 * is closed whatever the count; one that lets unread replies pile up past
 * 'max_queued' bytes is closed.  When accept() fails for want of
 * descriptors or memory, the listening event is paused for
 * UNIXCTL_ACCEPT_PAUSE_MS rather than retried at once.
 */
#include <autoconf.h>
#include "control/unixctl.h"
#include "control/unixctl-private.h"

#include <errno.h>
#include <stdarg.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "base/coverage.h"
#include "base/lockfile.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(unixctl);

COVERAGE_DEFINE(unixctl_accept_failed);
COVERAGE_DEFINE(unixctl_client_deferred);
COVERAGE_DEFINE(unixctl_client_evicted);
COVERAGE_DEFINE(unixctl_idle_timeout);
COVERAGE_DEFINE(unixctl_reply_overflow);
COVERAGE_DEFINE(unixctl_request_too_big);

/* Bytes read from a socket at a time. */
#define UNIXCTL_READ_CHUNK 65536

/* How long accepting pauses after accept() ran out of descriptors or
 * memory. */
#define UNIXCTL_ACCEPT_PAUSE_MS 100

/* Logs about misbehaving clients, and about accept() failures. */
static struct vlog_rate_limit client_rl = VLOG_RATE_LIMIT_INIT(1, 5);
static struct vlog_rate_limit accept_rl = VLOG_RATE_LIMIT_INIT(1, 1);

/* Command table. */

struct unixctl_command {
    char *name;                 /* Method name. */
    char *usage;                /* Argument synopsis for list-commands. */
    int min_args, max_args;     /* Accepted argument counts. */
    unixctl_cb_func *cb;        /* Handler. */
    void *aux;                  /* Passed to 'cb'. */
};

/* Control thread only. */
static struct unixctl_command *commands;
static size_t n_commands, allocated_commands;

/* One client connection. */
struct unixctl_conn {
    struct unixctl_conn *prev, *next; /* In server's 'conns' list. */
    struct unixctl_server *server; /* NULL once the server is gone. */
    int fd;                     /* Client socket; -1 once closed. */
    struct event *read_ev;      /* Readable 'fd'. */
    struct event *write_ev;     /* Writable 'fd', armed while 'out' has
                                 * unsent bytes. */
    struct event *idle_ev;      /* Idle timeout, armed while no request
                                 * runs. */
    long long last_active;      /* Monotonic msec of the connection, of
                                 * the last reply queued or of the last
                                 * byte sent, whichever is latest; bytes
                                 * received do not count. */

    char *in;                   /* Received, not yet processed bytes. */
    size_t in_len, in_size;     /* Used and allocated bytes of 'in'. */
    struct unixctl_framer framer; /* Scan state over 'in'. */

    char *out;                  /* Reply bytes to send. */
    size_t out_len, out_ofs;    /* Bytes in 'out', bytes already sent. */

    json_t *request_id;         /* Id of the request being run, or NULL. */
    bool pending;               /* A handler owes a reply. */
    bool wants_json;            /* Pending request asked for JSON. */
    bool eof;                   /* Client sent its last byte. */
    bool closing;               /* Run no more requests; close once 'out'
                                 * drains and no reply is owed. */
};

struct unixctl_server {
    struct event_base *base;    /* Control thread's event base. */
    char *path;                 /* Socket file. */
    int fd;                     /* Listening socket. */
    struct lockfile *lock;      /* "'path'.lock", held while serving. */
    struct event *accept_ev;    /* Readable 'fd'; deleted while paused. */
    struct event *resume_ev;    /* Timer that ends a pause. */
    bool paused;                /* 'accept_ev' deleted: at the client cap
                                 * or after an accept() failure. */
    struct unixctl_conn *conns; /* Connected clients, and those whose
                                 * socket is closed while a handler owes
                                 * them a reply. */
    int n_clients;              /* Entries of 'conns' with a socket. */
    struct unixctl_limits limits;
};

static void conn_process__(struct unixctl_conn *);
static void conn_update__(struct unixctl_conn *);
static void server_resume__(struct unixctl_server *);

/* Monotonic milliseconds (not the test clock: libevent's timers do not
 * follow it). */
static long long
now_msec__(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Fills 'tv' with 'msec' milliseconds, 0 if negative. */
static struct timeval *
msec_to_tv__(long long msec, struct timeval *tv)
{
    msec = MAX(msec, 0);
    tv->tv_sec = msec / 1000;
    tv->tv_usec = (msec % 1000) * 1000;
    return tv;
}

/* Returns the registered command named 'name', or NULL. */
static const struct unixctl_command *
command_lookup__(const char *name)
{
    for (size_t i = 0; i < n_commands; i++) {
        if (!strcmp(commands[i].name, name)) {
            return &commands[i];
        }
    }
    return NULL;
}

void
unixctl_command_register(const char *name, const char *usage,
                         int min_args, int max_args,
                         unixctl_cb_func *cb, void *aux)
{
    struct unixctl_command *c;

    ovs_assert(!command_lookup__(name));
    ovs_assert(min_args >= 0 && min_args <= max_args);
    if (n_commands >= allocated_commands) {
        allocated_commands = allocated_commands ? 2 * allocated_commands : 16;
        commands = xrealloc(commands, allocated_commands * sizeof *commands);
    }
    c = &commands[n_commands++];
    c->name = xstrdup(name);
    c->usage = xstrdup(usage ? usage : "");
    c->min_args = min_args;
    c->max_args = max_args;
    c->cb = cb;
    c->aux = aux;
}

void
unixctl_command_register_table(const struct unixctl_command_def *defs,
                               size_t n, void *aux)
{
    for (size_t i = 0; i < n; i++) {
        unixctl_command_register(defs[i].name, defs[i].usage,
                                 defs[i].min_args, defs[i].max_args,
                                 defs[i].cb, aux);
    }
}

static int
command_cmp__(const void *a_, const void *b_)
{
    const struct unixctl_command *const *a = a_;
    const struct unixctl_command *const *b = b_;

    return strcmp((*a)->name, (*b)->name);
}

static void
list_commands__(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    const struct unixctl_command **sorted;
    size_t size = 64, len = 0;
    json_t *json;
    char *text;

    sorted = xcalloc(n_commands, sizeof *sorted);
    for (size_t i = 0; i < n_commands; i++) {
        sorted[i] = &commands[i];
        size += strlen(commands[i].name) + strlen(commands[i].usage) + 32;
    }
    qsort(sorted, n_commands, sizeof *sorted, command_cmp__);

    text = xmalloc(size);
    json = json_array();
    len += snprintf(text + len, size - len, "The available commands are:\n");
    for (size_t i = 0; i < n_commands; i++) {
        const struct unixctl_command *c = sorted[i];

        if (c->usage[0]) {
            len += snprintf(text + len, size - len, "  %-23s %s\n",
                            c->name, c->usage);
        } else {
            len += snprintf(text + len, size - len, "  %s\n", c->name);
        }
        json_array_append_new(json, json_pack("{s:s, s:s, s:i, s:i}",
                                              "name", c->name,
                                              "usage", c->usage,
                                              "min_args", c->min_args,
                                              "max_args", c->max_args));
    }
    unixctl_command_reply_text_json(conn, text, json);
    free(text);
    free(sorted);
}

/* Registers the commands every server has. */
static void
register_builtins__(void)
{
    if (!command_lookup__("list-commands")) {
        unixctl_command_register("list-commands", "", 0, 0,
                                 list_commands__, NULL);
    }
}

/* Framing. */

int
unixctl_framer_scan(struct unixctl_framer *f, const char *buf, size_t size)
{
    for (; f->pos < size; f->pos++) {
        char c = buf[f->pos];

        if (!f->started) {
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                continue;
            } else if (c != '{') {
                return -1;
            }
            f->started = true;
        }
        if (f->in_string) {
            if (f->escaped) {
                f->escaped = false;
            } else if (c == '\\') {
                f->escaped = true;
            } else if (c == '"') {
                f->in_string = false;
            }
        } else if (c == '"') {
            f->in_string = true;
        } else if (c == '{' || c == '[') {
            f->depth++;
        } else if (c == '}' || c == ']') {
            if (--f->depth == 0) {
                f->pos++;
                return 1;
            }
        }
    }
    return 0;
}

/* Sending. */

/* Closes the socket of 'conn', if open, and frees its events; a server
 * paused at its client cap takes clients again. */
static void
conn_close_fd__(struct unixctl_conn *conn)
{
    struct unixctl_server *server = conn->server;

    if (conn->read_ev) {
        event_free(conn->read_ev);
        conn->read_ev = NULL;
    }
    if (conn->write_ev) {
        event_free(conn->write_ev);
        conn->write_ev = NULL;
    }
    if (conn->idle_ev) {
        event_free(conn->idle_ev);
        conn->idle_ev = NULL;
    }
    if (conn->fd >= 0) {
        close(conn->fd);
        conn->fd = -1;
        if (server) {
            server->n_clients--;
            if (server->paused
                && server->n_clients < server->limits.max_clients) {
                server_resume__(server);
            }
        }
    }
}

/* Frees 'conn' and closes its socket. */
static void
conn_free__(struct unixctl_conn *conn)
{
    struct unixctl_server *server = conn->server;

    if (server) {
        if (conn->prev) {
            conn->prev->next = conn->next;
        } else {
            server->conns = conn->next;
        }
        if (conn->next) {
            conn->next->prev = conn->prev;
        }
    }
    conn_close_fd__(conn);
    json_decref(conn->request_id);
    free(conn->in);
    free(conn->out);
    free(conn);
}

/* Drops the socket of 'conn' (client gone or server shutting down).  The
 * struct lives on while a handler owes a reply on it. */
static void
conn_disconnect__(struct unixctl_conn *conn)
{
    conn_close_fd__(conn);
    conn->closing = true;
    conn->out_len = conn->out_ofs = 0;
}

/* Sends as much of 'conn''s output as the socket takes now.  Returns false
 * if the client is gone. */
static bool
conn_flush__(struct unixctl_conn *conn)
{
    while (conn->out_ofs < conn->out_len) {
        ssize_t n = send(conn->fd, conn->out + conn->out_ofs,
                         conn->out_len - conn->out_ofs,
                         MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n > 0) {
            conn->out_ofs += n;
            conn->last_active = now_msec__();
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        } else {
            return false;
        }
    }
    conn->out_len = conn->out_ofs = 0;
    return true;
}

/* Arms or disarms 'conn''s events for its state, and frees it once it has
 * nothing left to do.  Must be the last use of 'conn' by the caller. */
static void
conn_update__(struct unixctl_conn *conn)
{
    if (conn->fd >= 0 && !conn_flush__(conn)) {
        conn_disconnect__(conn);
    }
    if (conn->closing && !conn->pending
        && (conn->fd < 0 || conn->out_ofs >= conn->out_len)) {
        conn_free__(conn);
        return;
    }
    if (conn->fd < 0) {
        return;
    }
    if (conn->out_ofs < conn->out_len) {
        event_add(conn->write_ev, NULL);
    } else {
        event_del(conn->write_ev);
    }
    /* Read while a request may come; stop while one runs so a client
     * cannot queue unbounded input behind a slow handler. */
    if (!conn->closing && !conn->pending && !conn->eof) {
        event_add(conn->read_ev, NULL);
    } else {
        event_del(conn->read_ev);
    }
    /* A handler that owes a reply is the server's business, not an idle
     * client. */
    if (conn->pending || !conn->server) {
        event_del(conn->idle_ev);
    } else {
        struct timeval tv;
        long long deadline = (conn->last_active
                              + conn->server->limits.idle_timeout_ms);

        event_add(conn->idle_ev, msec_to_tv__(deadline - now_msec__(), &tv));
    }
}

/* Queues reply 'msg' on 'conn' (taking ownership) and ends its pending
 * request. */
static void
conn_send_reply__(struct unixctl_conn *conn, json_t *result, json_t *error)
{
    json_t *msg;
    char *text;
    size_t len;

    msg = json_object();
    json_object_set_new(msg, "result", result ? result : json_null());
    json_object_set_new(msg, "error", error ? error : json_null());
    json_object_set_new(msg, "id",
                        conn->request_id ? conn->request_id : json_null());
    conn->request_id = NULL;
    conn->pending = false;
    conn->wants_json = false;

    if (conn->fd < 0) {
        json_decref(msg);
        return;
    }
    text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!text) {
        /* Only on allocation failure inside jansson. */
        conn->closing = true;
        return;
    }
    len = strlen(text);
    conn->last_active = now_msec__();
    if (conn->out_ofs < conn->out_len && conn->server
        && (conn->out_len - conn->out_ofs) + len
           > conn->server->limits.max_queued) {
        /* One reply always gets queued, however long; a client that does
         * not read it while it asks for more is dropped. */
        COVERAGE_INC(unixctl_reply_overflow);
        VLOG_INFO_RL(&client_rl, "closing an appctl client that leaves "
                     "more than %zu bytes of replies unread",
                     conn->server->limits.max_queued);
        free(text);
        conn_disconnect__(conn);
        return;
    }
    conn->out = xrealloc(conn->out, conn->out_len + len);
    memcpy(conn->out + conn->out_len, text, len);
    conn->out_len += len;
    free(text);
}

/* The connection whose handler is on the stack, set by conn_run__(): a
 * reply on it lets conn_process__()'s loop go on, while a later reply has
 * to restart processing itself. */
static struct unixctl_conn *running_conn;

static void
conn_reply__(struct unixctl_conn *conn, json_t *result, json_t *error)
{
    ovs_assert(conn->pending);
    conn_send_reply__(conn, result, error);
    if (conn != running_conn) {
        conn_process__(conn);
    }
}

void
unixctl_command_reply(struct unixctl_conn *conn, const char *text)
{
    json_t *result = json_string(text ? text : "");

    if (conn->wants_json) {
        /* Still valid JSON for a client that asked for it. */
        result = json_pack("{s:s, s:o}", "reply-format", "plain",
                           "reply", result);
    }
    conn_reply__(conn, result, NULL);
}

void
unixctl_command_reply_error(struct unixctl_conn *conn, const char *text)
{
    conn_reply__(conn, NULL, json_string(text ? text : ""));
}

void
unixctl_command_reply_errorf(struct unixctl_conn *conn, const char *format,
                             ...)
{
    va_list args;
    char *msg;

    va_start(args, format);
    msg = xvasprintf(format, args);
    va_end(args);
    unixctl_command_reply_error(conn, msg);
    free(msg);
}

bool
unixctl_conn_wants_json(const struct unixctl_conn *conn)
{
    return conn->wants_json;
}

void
unixctl_command_reply_json(struct unixctl_conn *conn, json_t *result)
{
    if (!result) {
        result = json_null();
    }
    if (!conn->wants_json) {
        char *text = json_dumps(result, JSON_INDENT(2) | JSON_ENCODE_ANY);

        json_decref(result);
        result = json_string(text ? text : "");
        free(text);
    }
    conn_reply__(conn, result, NULL);
}

void
unixctl_command_reply_text_json(struct unixctl_conn *conn, const char *text,
                                json_t *json)
{
    if (conn->wants_json) {
        conn_reply__(conn, json ? json : json_null(), NULL);
    } else {
        json_decref(json);
        unixctl_command_reply(conn, text);
    }
}

/* Request handling. */

/* Answers a protocol error with 'text' and closes 'conn' afterwards. */
static void
conn_protocol_error__(struct unixctl_conn *conn, const char *text)
{
    conn->pending = true;
    conn_send_reply__(conn, NULL, json_string(text));
    conn->closing = true;
}

char *
unixctl_parse_request(const char *buf, size_t size,
                      struct unixctl_request *req)
{
    json_t *json, *method, *params, *format;
    json_error_t err;
    size_t argc;

    memset(req, 0, sizeof *req);
    json = json_loadb(buf, size, 0, &err);
    if (!json || !json_is_object(json)) {
        json_decref(json);
        return xasprintf("invalid JSON-RPC request: %s",
                         json ? "not an object" : err.text);
    }

    method = json_object_get(json, "method");
    params = json_object_get(json, "params");
    format = json_object_get(json, "format");
    if (!json_is_string(method) || (params && !json_is_array(params))
        || (format && !json_is_string(format))) {
        json_decref(json);
        return xstrdup("invalid JSON-RPC request");
    }
    argc = params ? json_array_size(params) : 0;
    for (size_t i = 0; i < argc; i++) {
        if (!json_is_string(json_array_get(params, i))) {
            json_decref(json);
            return xstrdup("\"params\" must be strings");
        }
    }

    req->json = json;
    req->method = json_string_value(method);
    req->argc = argc;
    req->argv = xcalloc(argc + 1, sizeof *req->argv);
    for (size_t i = 0; i < argc; i++) {
        req->argv[i] = json_string_value(json_array_get(params, i));
    }
    req->id = json_object_get(json, "id");
    req->wants_json = format && !strcmp(json_string_value(format), "json");
    return NULL;
}

void
unixctl_request_uninit(struct unixctl_request *req)
{
    free(req->argv);
    json_decref(req->json);
    memset(req, 0, sizeof *req);
}

/* Runs the parsed request 'req' received on 'conn'. */
static void
conn_run__(struct unixctl_conn *conn, const struct unixctl_request *req)
{
    const struct unixctl_command *command;
    const char *name = req->method;
    size_t argc = req->argc;
    char *msg;

    conn->pending = true;
    conn->request_id = json_incref(req->id);
    conn->wants_json = req->wants_json;

    command = command_lookup__(name);
    if (!command) {
        msg = xasprintf("\"%s\" is not a valid command (use list-commands "
                        "to see the commands)", name);
    } else if (argc < (size_t) command->min_args) {
        msg = xasprintf("\"%s\" command requires at least %d arguments",
                        name, command->min_args);
    } else if (argc > (size_t) command->max_args) {
        msg = xasprintf("\"%s\" command takes at most %d arguments",
                        name, command->max_args);
    } else {
        running_conn = conn;
        command->cb(conn, argc, req->argv, command->aux);
        running_conn = NULL;
        return;
    }
    conn_send_reply__(conn, NULL, json_string(msg));
    free(msg);
}

/* Runs every complete request buffered on 'conn', one at a time, then
 * updates its events.  Last use of 'conn' by the caller. */
static void
conn_process__(struct unixctl_conn *conn)
{
    while (!conn->pending && !conn->closing && conn->in_len) {
        int status = unixctl_framer_scan(&conn->framer, conn->in,
                                        conn->in_len);
        size_t frame_len = conn->framer.pos;
        struct unixctl_request req;
        char *error;

        if (frame_len > UNIXCTL_MAX_REQUEST_SIZE) {
            char *msg = xasprintf("request exceeds %d bytes",
                                  UNIXCTL_MAX_REQUEST_SIZE);

            COVERAGE_INC(unixctl_request_too_big);
            VLOG_INFO_RL(&client_rl, "closing an appctl client whose "
                         "request exceeds %d bytes",
                         UNIXCTL_MAX_REQUEST_SIZE);
            conn_protocol_error__(conn, msg);
            free(msg);
            break;
        } else if (status < 0) {
            conn_protocol_error__(conn, "invalid JSON-RPC request: not a "
                                  "JSON object");
            break;
        } else if (status == 0) {
            break;
        }

        error = unixctl_parse_request(conn->in, frame_len, &req);
        memmove(conn->in, conn->in + frame_len, conn->in_len - frame_len);
        conn->in_len -= frame_len;
        memset(&conn->framer, 0, sizeof conn->framer);
        if (error) {
            conn_protocol_error__(conn, error);
            free(error);
            break;
        }
        conn_run__(conn, &req);
        unixctl_request_uninit(&req);
    }
    if (conn->eof && !conn->pending) {
        conn->closing = true;
    }
    conn_update__(conn);
}

static void
conn_read_cb__(evutil_socket_t fd, short what OVS_UNUSED, void *conn_)
{
    struct unixctl_conn *conn = conn_;
    ssize_t n;

    if (conn->in_size - conn->in_len < UNIXCTL_READ_CHUNK) {
        conn->in_size = conn->in_len + UNIXCTL_READ_CHUNK;
        conn->in = xrealloc(conn->in, conn->in_size);
    }
    n = recv(fd, conn->in + conn->in_len, conn->in_size - conn->in_len,
             MSG_DONTWAIT);
    if (n > 0) {
        conn->in_len += n;
    } else if (n == 0) {
        /* The client may have shut down only its sending side: answer what
         * it sent, then close. */
        conn->eof = true;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return;
    } else {
        conn_disconnect__(conn);
        conn_update__(conn);
        return;
    }
    conn_process__(conn);
}

static void
conn_write_cb__(evutil_socket_t fd OVS_UNUSED, short what OVS_UNUSED,
                void *conn_)
{
    conn_update__(conn_);
}

static void
conn_idle_cb__(evutil_socket_t fd OVS_UNUSED, short what OVS_UNUSED,
               void *conn_)
{
    struct unixctl_conn *conn = conn_;

    COVERAGE_INC(unixctl_idle_timeout);
    VLOG_INFO_RL(&client_rl, "closing an appctl client idle for %d ms",
                 conn->server->limits.idle_timeout_ms);
    conn_disconnect__(conn);
    conn_update__(conn);
}

/* Stops accepting until server_resume__(), or for 'msec' milliseconds if
 * 'msec' >= 0. */
static void
server_pause__(struct unixctl_server *server, long long msec)
{
    server->paused = true;
    event_del(server->accept_ev);
    if (msec >= 0) {
        struct timeval tv;

        event_add(server->resume_ev, msec_to_tv__(msec, &tv));
    } else {
        event_del(server->resume_ev);
    }
}

static void
server_resume__(struct unixctl_server *server)
{
    server->paused = false;
    event_del(server->resume_ev);
    event_add(server->accept_ev, NULL);
}

static void
server_resume_cb__(evutil_socket_t fd OVS_UNUSED, short what OVS_UNUSED,
                   void *server_)
{
    server_resume__(server_);
}

/* Makes room for one more client on 'server', at its client cap, by
 * closing the client idle longest, if it has been idle for
 * UNIXCTL_EVICT_IDLE_MS (or half the idle timeout, if shorter).  Returns
 * true if there is room now; otherwise pauses accepting until a client
 * goes or the next one becomes idle long enough. */
static bool
server_make_room__(struct unixctl_server *server)
{
    int evict_ms = MIN(UNIXCTL_EVICT_IDLE_MS,
                       server->limits.idle_timeout_ms / 2);
    struct unixctl_conn *idlest = NULL;
    long long now = now_msec__();

    for (struct unixctl_conn *c = server->conns; c; c = c->next) {
        if (c->fd >= 0 && !c->pending
            && (!idlest || c->last_active < idlest->last_active)) {
            idlest = c;
        }
    }
    if (idlest && now - idlest->last_active >= evict_ms) {
        COVERAGE_INC(unixctl_client_evicted);
        VLOG_INFO_RL(&client_rl, "%d appctl clients connected: closing the "
                     "one idle longest (%lld ms)",
                     server->n_clients, now - idlest->last_active);
        conn_disconnect__(idlest);
        conn_update__(idlest);
        return server->n_clients < server->limits.max_clients;
    }
    COVERAGE_INC(unixctl_client_deferred);
    server_pause__(server,
                   idlest ? idlest->last_active + evict_ms - now : -1);
    return false;
}

static void
server_accept_cb__(evutil_socket_t fd, short what OVS_UNUSED, void *server_)
{
    struct unixctl_server *server = server_;
    struct unixctl_conn *conn;
    int cfd;

    if (server->n_clients >= server->limits.max_clients
        && !server_make_room__(server)) {
        return;
    }
    cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS
            || errno == ENOMEM) {
            /* The connection stays in the backlog, so the listening
             * socket stays readable: retrying at once would spin. */
            COVERAGE_INC(unixctl_accept_failed);
            VLOG_WARN_RL(&accept_rl, "cannot accept an appctl client (%s); "
                         "not accepting for %d ms", strerror(errno),
                         UNIXCTL_ACCEPT_PAUSE_MS);
            server_pause__(server, UNIXCTL_ACCEPT_PAUSE_MS);
        }
        /* Otherwise EAGAIN or a client that gave up: nothing to do. */
        return;
    }
    conn = xzalloc(sizeof *conn);
    conn->server = server;
    conn->fd = cfd;
    conn->last_active = now_msec__();
    server->n_clients++;
    conn->read_ev = event_new(server->base, cfd, EV_READ | EV_PERSIST,
                              conn_read_cb__, conn);
    conn->write_ev = event_new(server->base, cfd, EV_WRITE | EV_PERSIST,
                               conn_write_cb__, conn);
    conn->idle_ev = evtimer_new(server->base, conn_idle_cb__, conn);
    conn->next = server->conns;
    if (server->conns) {
        server->conns->prev = conn;
    }
    server->conns = conn;
    if (!conn->read_ev || !conn->write_ev || !conn->idle_ev) {
        conn_free__(conn);
        return;
    }
    conn_update__(conn);
}

void
unixctl_server_set_limits(struct unixctl_server *server,
                          const struct unixctl_limits *limits)
{
    ovs_assert(limits->max_clients >= 1 && limits->idle_timeout_ms >= 1
               && limits->max_queued >= 1);
    server->limits = *limits;
    for (struct unixctl_conn *c = server->conns; c; ) {
        struct unixctl_conn *next = c->next;

        if (c->fd >= 0) {
            conn_update__(c);   /* Rearms the idle timer. */
        }
        c = next;
    }
    if (server->paused && !event_pending(server->resume_ev, EV_TIMEOUT,
                                         NULL)) {
        server_resume__(server);
    }
}

/* Server setup. */

int
unixctl_make_sockaddr__(struct sockaddr_un *sun, const char *path)
{
    memset(sun, 0, sizeof *sun);
    sun->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sun->sun_path) {
        return ENAMETOOLONG;
    }
    strcpy(sun->sun_path, path);
    return 0;
}

/* Creates the missing directories on the way to 'path''s parent, mode
 * 0700.  Returns 0 or an errno. */
static int
make_parent_dirs__(const char *path)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    int error = 0;

    if (slash && slash != dir) {
        *slash = '\0';
        for (char *p = dir + 1; ; p++) {
            if (*p == '/' || *p == '\0') {
                char c = *p;

                *p = '\0';
                if (mkdir(dir, 0700) && errno != EEXIST) {
                    error = errno;
                    break;
                }
                *p = c;
                if (!c) {
                    break;
                }
            }
        }
    }
    free(dir);
    return error;
}

/* Checks what is at 'path' before binding there: nothing, or a socket no
 * server answers on (removed).  Returns NULL or an error message. */
static char *
clear_path__(const char *path, const struct sockaddr_un *sun)
{
    struct stat st;
    int fd, error;

    if (lstat(path, &st)) {
        return errno == ENOENT ? NULL
               : xasprintf("%s: %s", path, strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode)) {
        return xasprintf("%s exists and is not a socket", path);
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return xasprintf("socket: %s", strerror(errno));
    }
    error = connect(fd, (const struct sockaddr *) sun, sizeof *sun)
            ? errno : 0;
    close(fd);
    if (!error || error == EAGAIN) {
        /* EAGAIN: a live server with a full backlog. */
        return xasprintf("another pmdswitchd is listening on %s", path);
    }
    if (unlink(path) && errno != ENOENT) {
        return xasprintf("cannot remove stale socket %s: %s", path,
                         strerror(errno));
    }
    return NULL;
}

struct unixctl_server *
unixctl_server_create(struct event_base *base, const char *path,
                      char **errp)
{
    struct unixctl_server *server;
    struct lockfile *lock = NULL;
    struct sockaddr_un sun;
    char *msg = NULL;
    char *lock_path;
    pid_t holder;
    int fd = -1;
    int error;

    register_builtins__();
    error = unixctl_make_sockaddr__(&sun, path);
    if (error) {
        msg = xasprintf("%s: %s", path, strerror(error));
        goto error;
    }
    error = make_parent_dirs__(path);
    if (error) {
        msg = xasprintf("cannot create directory for %s: %s", path,
                        strerror(error));
        goto error;
    }
    /* Only the holder of the lock beside the socket may remove a stale
     * socket and bind: two daemons starting at once cannot both find the
     * socket stale, and neither removes the other's. */
    lock_path = xasprintf("%s.lock", path);
    error = lockfile_lock(lock_path, &lock, &holder);
    free(lock_path);
    if (error == EAGAIN) {
        msg = (holder
               ? xasprintf("another pmdswitchd is listening on %s (pid "
                           "%ld)", path, (long) holder)
               : xasprintf("another pmdswitchd is listening on %s", path));
        goto error;
    } else if (error) {
        msg = xasprintf("cannot lock %s.lock: %s", path, strerror(error));
        goto error;
    }
    msg = clear_path__(path, &sun);
    if (msg) {
        goto error;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *) &sun, sizeof sun)) {
        /* Not bound: whatever is at 'path' is not ours to remove. */
        msg = xasprintf("cannot listen on %s: %s", path, strerror(errno));
        goto error;
    }
    if (chmod(path, 0600) || listen(fd, 128)) {
        msg = xasprintf("cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        fd = -1;
        unlink(path);
        goto error;
    }

    server = xzalloc(sizeof *server);
    server->base = base;
    server->path = xstrdup(path);
    server->fd = fd;
    server->lock = lock;
    server->limits = (struct unixctl_limits) UNIXCTL_LIMITS_DEFAULT;
    server->accept_ev = event_new(base, fd, EV_READ | EV_PERSIST,
                                  server_accept_cb__, server);
    server->resume_ev = evtimer_new(base, server_resume_cb__, server);
    if (!server->accept_ev || !server->resume_ev
        || event_add(server->accept_ev, NULL)) {
        msg = xasprintf("cannot listen on %s: event setup failed", path);
        unixctl_server_destroy(server);
        goto error_nofd;
    }
    if (errp) {
        *errp = NULL;
    }
    return server;

error:
    if (fd >= 0) {
        close(fd);
    }
    lockfile_unlock(lock);
error_nofd:
    if (errp) {
        *errp = msg;
    } else {
        free(msg);
    }
    return NULL;
}

void
unixctl_server_destroy(struct unixctl_server *server)
{
    if (!server) {
        return;
    }
    while (server->conns) {
        struct unixctl_conn *conn = server->conns;

        server->conns = conn->next;
        conn->server = NULL;
        conn->prev = conn->next = NULL;
        server->n_clients -= conn->fd >= 0;
        if (conn->pending) {
            /* A deferred reply will land on a closed connection and free
             * it then. */
            conn_disconnect__(conn);
        } else {
            conn_free__(conn);
        }
    }
    if (server->accept_ev) {
        event_free(server->accept_ev);
    }
    if (server->resume_ev) {
        event_free(server->resume_ev);
    }
    close(server->fd);
    unlink(server->path);
    lockfile_unlock(server->lock);
    free(server->path);
    free(server);
}
