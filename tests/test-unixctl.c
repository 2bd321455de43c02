/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for lib/unixctl: a server runs in its own thread with its own
 * event base on a socket in a private temporary directory, and the checks
 * talk to it with unixctl_client_transact() and with raw sockets for
 * malformed, oversized, silent and half-sent requests.  No root needed.
 */
#include <autoconf.h>
#include "unixctl.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "check.h"
#include "util.h"

#define N_CONCURRENT 100

static char tmpdir[64];
static char sock_path[128];

/* Server thread. */

struct server_thread {
    struct event_base *base;
    struct unixctl_server *server;
    struct event *stop_ev;
    int stop_pipe[2];
    pthread_t thread;
};

static void
stop_cb(evutil_socket_t fd OVS_UNUSED, short what OVS_UNUSED, void *base)
{
    event_base_loopbreak(base);
}

static void *
server_main(void *st_)
{
    struct server_thread *st = st_;

    event_base_loop(st->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

static bool
server_start(struct server_thread *st, const char *path)
{
    char *err = NULL;

    st->base = event_base_new();
    st->server = unixctl_server_create(st->base, path, &err);
    CHECK(st->server, "server on %s: %s", path, err ? err : "?");
    free(err);
    if (!st->server) {
        event_base_free(st->base);
        return false;
    }
    if (pipe(st->stop_pipe)) {
        ovs_fatal(errno, "pipe");
    }
    st->stop_ev = event_new(st->base, st->stop_pipe[0], EV_READ, stop_cb,
                            st->base);
    event_add(st->stop_ev, NULL);
    pthread_create(&st->thread, NULL, server_main, st);
    return true;
}

static void
server_stop(struct server_thread *st)
{
    if (write(st->stop_pipe[1], "x", 1) != 1) {
        ovs_fatal(errno, "write");
    }
    pthread_join(st->thread, NULL);
    unixctl_server_destroy(st->server);
    event_free(st->stop_ev);
    close(st->stop_pipe[0]);
    close(st->stop_pipe[1]);
    event_base_free(st->base);
}

/* Test commands. */

static void
echo_cb(struct unixctl_conn *conn, int argc, const char *argv[],
        void *aux)
{
    char buf[256] = "";

    for (int i = 0; i < argc; i++) {
        if (i) {
            strncat(buf, " ", sizeof buf - strlen(buf) - 1);
        }
        strncat(buf, argv[i], sizeof buf - strlen(buf) - 1);
    }
    CHECK(aux == (void *) echo_cb, "aux not passed through");
    unixctl_command_reply(conn, buf);
}

static void
fail_cb(struct unixctl_conn *conn, int argc OVS_UNUSED, const char *argv[],
        void *aux OVS_UNUSED)
{
    char *msg = xasprintf("failed: %s", argv[0]);

    unixctl_command_reply_error(conn, msg);
    free(msg);
}

static void
stats_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
         const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    if (unixctl_conn_wants_json(conn)) {
        unixctl_command_reply_json(conn, json_pack("{s:i}", "packets", 42));
    } else {
        unixctl_command_reply(conn, "packets: 42");
    }
}

/* A request answered later, by another connection's "release". */
static struct unixctl_conn *deferred_conn;

static void
defer_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
         const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    deferred_conn = conn;
}

static void
release_cb(struct unixctl_conn *conn, int argc OVS_UNUSED,
           const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    if (deferred_conn) {
        unixctl_command_reply(deferred_conn, "released");
        deferred_conn = NULL;
        unixctl_command_reply(conn, "ok");
    } else {
        unixctl_command_reply_error(conn, "nothing deferred");
    }
}

static void
register_commands(void)
{
    unixctl_command_register("echo", "[ARG...]", 0, 3, echo_cb,
                             (void *) echo_cb);
    unixctl_command_register("fail", "WHY", 1, 1, fail_cb, NULL);
    unixctl_command_register("stats-show", "", 0, 0, stats_cb, NULL);
    unixctl_command_register("defer", "", 0, 0, defer_cb, NULL);
    unixctl_command_register("release", "", 0, 0, release_cb, NULL);
}

/* Client helpers. */

/* Runs 'method' with the 'argc' arguments in 'argv' and checks that the
 * answer is result 'want_result' or error 'want_error'. */
static void
check_transact_at(const char *file, int line, const char *method, int argc,
                  const char *argv[], bool json, const char *want_result,
                  const char *want_error)
{
    char *result, *error;
    int err;

    err = unixctl_client_transact(sock_path, method, argc, argv, json, 10,
                                  &result, &error);
    CHECK_AT(file, line, !err, "%s: %s", method, strerror(err));
    check_str_at__(result, want_result, "result", "result", file, line);
    check_str_at__(error, want_error, "error", "error", file, line);
    free(result);
    free(error);
}

#define CHECK_TRANSACT(METHOD, ARGC, ARGV, JSON, RESULT, ERROR)          \
    check_transact_at(__FILE__, __LINE__, METHOD, ARGC, ARGV, JSON,      \
                      RESULT, ERROR)

/* Returns a socket connected to the server. */
static int
raw_connect(void)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    strcpy(sun.sun_path, sock_path);
    if (fd < 0 || connect(fd, (struct sockaddr *) &sun, sizeof sun)) {
        ovs_fatal(errno, "connect %s", sock_path);
    }
    return fd;
}

/* Sends 'len' bytes of 'buf' on 'fd', ignoring a peer that closes. */
static void
raw_send(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

        if (n <= 0) {
            return;
        }
        buf += n;
        len -= n;
    }
}

/* Reads from 'fd' until EOF into a malloc'd string.  A receive timeout
 * keeps a broken server from hanging the test. */
static char *
raw_read_all(int fd)
{
    struct timeval tv = { .tv_sec = 10 };
    size_t len = 0, size = 4096;
    char *buf = xmalloc(size);
    ssize_t n;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while ((n = recv(fd, buf + len, size - len - 1, 0)) > 0) {
        len += n;
        if (size - len < 2) {
            size *= 2;
            buf = xrealloc(buf, size);
        }
    }
    buf[len] = '\0';
    return buf;
}

/* Checks that a reply in 'text' is an error containing 'want'. */
static void
check_error_reply_at(const char *file, int line, const char *text,
                     const char *want)
{
    json_t *reply = json_loads(text, JSON_DISABLE_EOF_CHECK, NULL);
    const char *err = json_string_value(json_object_get(reply, "error"));

    CHECK_AT(file, line, err && strstr(err, want),
             "reply \"%.200s\" lacks error \"%s\"", text, want);
    CHECK_AT(file, line, json_is_null(json_object_get(reply, "result")),
             "reply \"%.200s\" has a result", text);
    json_decref(reply);
}

#define CHECK_ERROR_REPLY(TEXT, WANT)                                   \
    check_error_reply_at(__FILE__, __LINE__, TEXT, WANT)

/* Tests. */

static void
test_replies(void)
{
    const char *two[] = { "a", "b" };
    const char *four[] = { "1", "2", "3", "4" };
    const char *why[] = { "disk full" };

    CHECK_TRANSACT("echo", 2, two, false, "a b", NULL);
    CHECK_TRANSACT("echo", 0, NULL, false, "", NULL);
    CHECK_TRANSACT("fail", 1, why, false, NULL, "failed: disk full");
    CHECK_TRANSACT("fail", 0, NULL, false, NULL,
                   "\"fail\" command requires at least 1 arguments");
    CHECK_TRANSACT("echo", 4, four, false, NULL,
                   "\"echo\" command takes at most 3 arguments");
    CHECK_TRANSACT("nosuch", 0, NULL, false, NULL,
                   "\"nosuch\" is not a valid command (use list-commands "
                   "to see the commands)");
    CHECK_TRANSACT("list-commands", 0, NULL, false,
                   "The available commands are:\n"
                   "  defer\n"
                   "  echo                    [ARG...]\n"
                   "  fail                    WHY\n"
                   "  list-commands\n"
                   "  release\n"
                   "  stats-show\n", NULL);
    CHECK_TRANSACT("list-commands", 1, two, false, NULL,
                   "\"list-commands\" command takes at most 0 arguments");
}

static void
test_json_format(void)
{
    CHECK_TRANSACT("stats-show", 0, NULL, true, "{\n  \"packets\": 42\n}",
                   NULL);
    CHECK_TRANSACT("stats-show", 0, NULL, false, "packets: 42", NULL);
}

static void
test_raw_protocol(void)
{
    const char *reqs = "{\"method\":\"echo\",\"params\":[\"x}\\\"\"],"
                       "\"id\":7} {\"method\":\"fail\",\"params\":[\"y\"],"
                       "\"id\":\"s\"}";
    char *text;
    int fd;

    /* Two pipelined requests, one with braces and quotes in a string, then
     * a half-close: both answered in order, with their ids. */
    fd = raw_connect();
    raw_send(fd, reqs, strlen(reqs));
    shutdown(fd, SHUT_WR);
    text = raw_read_all(fd);
    CHECK_STR(text, "{\"result\":\"x}\\\"\",\"error\":null,\"id\":7}"
              "{\"result\":null,\"error\":\"failed: y\",\"id\":\"s\"}");
    free(text);
    close(fd);

    /* Bad JSON. */
    fd = raw_connect();
    raw_send(fd, "{ bad json }", 12);
    text = raw_read_all(fd);
    CHECK_ERROR_REPLY(text, "invalid JSON-RPC request");
    free(text);
    close(fd);

    /* Not an object. */
    fd = raw_connect();
    raw_send(fd, "[1, 2]", 6);
    text = raw_read_all(fd);
    CHECK_ERROR_REPLY(text, "invalid JSON-RPC request");
    free(text);
    close(fd);

    /* Method missing. */
    fd = raw_connect();
    raw_send(fd, "{\"params\": []}", 14);
    text = raw_read_all(fd);
    CHECK_ERROR_REPLY(text, "invalid JSON-RPC request");
    free(text);
    close(fd);
}

static void
test_deferred_reply(void)
{
    const char *reqs = "{\"method\":\"defer\",\"id\":1}"
                       "{\"method\":\"echo\",\"params\":[\"next\"],"
                       "\"id\":2}";
    char *text;
    int fd;

    /* The second request waits for the first one's late reply. */
    fd = raw_connect();
    raw_send(fd, reqs, strlen(reqs));
    shutdown(fd, SHUT_WR);
    for (int i = 0; i < 1000; i++) {
        char *result = NULL, *error = NULL;
        bool released;

        unixctl_client_transact(sock_path, "release", 0, NULL, false, 10,
                                &result, &error);
        released = result != NULL;
        free(result);
        free(error);
        if (released) {
            break;
        }
        usleep(10 * 1000);
    }
    text = raw_read_all(fd);
    CHECK_STR(text, "{\"result\":\"released\",\"error\":null,\"id\":1}"
              "{\"result\":\"next\",\"error\":null,\"id\":2}");
    free(text);
    close(fd);
}

static void
test_oversized(void)
{
    size_t size = UNIXCTL_MAX_REQUEST_SIZE + 4096;
    const char *head = "{\"method\":\"echo\",\"params\":[\"";
    char *big = xmalloc(size);
    char *text;
    int fd;

    memset(big, 'x', size);
    memcpy(big, head, strlen(head));
    fd = raw_connect();
    raw_send(fd, big, size);
    text = raw_read_all(fd);
    CHECK_ERROR_REPLY(text, "request exceeds 1048576 bytes");
    free(text);
    close(fd);
    free(big);
}

static void
test_stalled_clients(void)
{
    const char *half = "{\"method\":\"echo\",\"par";
    const char *args[] = { "still", "served" };
    int silent = raw_connect();
    int partial = raw_connect();

    raw_send(partial, half, strlen(half));
    CHECK_TRANSACT("echo", 2, args, false, "still served", NULL);
    close(silent);
    close(partial);
}

struct concurrent_client {
    pthread_t thread;
    int idx;
    char *result;
    int err;
};

static void *
concurrent_main(void *c_)
{
    struct concurrent_client *c = c_;
    char arg[16];
    const char *argv[] = { arg };
    char *error = NULL;

    snprintf(arg, sizeof arg, "%d", c->idx);
    c->err = unixctl_client_transact(sock_path, "echo", 1, argv, false, 30,
                                     &c->result, &error);
    free(error);
    return NULL;
}

static void
test_concurrent(void)
{
    struct concurrent_client *clients = xcalloc(N_CONCURRENT,
                                                sizeof *clients);

    for (int i = 0; i < N_CONCURRENT; i++) {
        clients[i].idx = i;
        pthread_create(&clients[i].thread, NULL, concurrent_main,
                       &clients[i]);
    }
    for (int i = 0; i < N_CONCURRENT; i++) {
        char want[16];

        pthread_join(clients[i].thread, NULL);
        snprintf(want, sizeof want, "%d", i);
        CHECK(!clients[i].err, "client %d: %s", i,
              strerror(clients[i].err));
        CHECK_STR(clients[i].result, want);
        free(clients[i].result);
    }
    free(clients);
}

static void
test_second_server_refused(void)
{
    struct event_base *base = event_base_new();
    struct unixctl_server *server;
    char *err = NULL;
    char *want = xasprintf("another pmdswitchd is listening on %s",
                           sock_path);

    server = unixctl_server_create(base, sock_path, &err);
    CHECK(!server, "second server on %s started", sock_path);
    CHECK_STR(err, want);
    unixctl_server_destroy(server);
    free(err);
    free(want);
    event_base_free(base);
}

static void
test_socket_modes(void)
{
    struct stat st;

    CHECK(!stat(sock_path, &st), "stat %s: %s", sock_path, strerror(errno));
    CHECK(S_ISSOCK(st.st_mode), "%s is not a socket", sock_path);
    CHECK_INT(st.st_mode & 07777, 0600);
}

/* Leaves a socket file at 'path' with no server behind it. */
static void
make_stale_socket(const char *path)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    strcpy(sun.sun_path, path);
    if (fd < 0 || bind(fd, (struct sockaddr *) &sun, sizeof sun)) {
        ovs_fatal(errno, "bind %s", path);
    }
    close(fd);
}

static void
test_stale_and_dir(void)
{
    char *dir = xasprintf("%s/sub", tmpdir);
    char *path = xasprintf("%s/sub/stale.ctl", tmpdir);
    struct server_thread st;
    struct stat s;
    char *result = NULL, *error = NULL;
    int err;

    /* The parent directory is created, private. */
    CHECK(server_start(&st, path), "start");
    CHECK(!stat(dir, &s) && (s.st_mode & 07777) == 0700,
          "%s mode %o", dir, (unsigned) (s.st_mode & 07777));
    server_stop(&st);
    CHECK(access(path, F_OK) && errno == ENOENT,
          "socket %s not removed by destroy", path);

    /* A stale socket is replaced. */
    make_stale_socket(path);
    if (server_start(&st, path)) {
        err = unixctl_client_transact(path, "echo", 0, NULL, false, 10,
                                      &result, &error);
        CHECK(!err, "transact after stale: %s", strerror(err));
        CHECK_STR(result, "");
        free(result);
        free(error);
        server_stop(&st);
    }

    /* A regular file is left alone. */
    {
        FILE *f = fopen(path, "w");
        struct event_base *base = event_base_new();
        char *msg = NULL;

        CHECK(f != NULL, "create %s", path);
        if (f) {
            fclose(f);
        }
        CHECK(!unixctl_server_create(base, path, &msg), "over regular file");
        CHECK(msg && strstr(msg, "not a socket"), "msg %s", msg);
        free(msg);
        event_base_free(base);
        unlink(path);
    }

    /* No server: the client reports the errno. */
    err = unixctl_client_transact(path, "echo", 0, NULL, false, 10,
                                  &result, &error);
    CHECK_INT(err, ENOENT);
    CHECK(!result && !error, "result or error set on failure");
    make_stale_socket(path);
    err = unixctl_client_transact(path, "echo", 0, NULL, false, 10,
                                  &result, &error);
    CHECK_INT(err, ECONNREFUSED);
    unlink(path);
    rmdir(dir);
    free(dir);
    free(path);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "replies", test_replies },
        { "json-format", test_json_format },
        { "raw-protocol", test_raw_protocol },
        { "deferred-reply", test_deferred_reply },
        { "oversized", test_oversized },
        { "stalled-clients", test_stalled_clients },
        { "concurrent", test_concurrent },
        { "second-server-refused", test_second_server_refused },
        { "socket-modes", test_socket_modes },
    };
    struct server_thread st;

    signal(SIGPIPE, SIG_IGN);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test-unixctl.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        ovs_fatal(errno, "mkdtemp");
    }
    snprintf(sock_path, sizeof sock_path, "%s/test.ctl", tmpdir);
    register_commands();

    if (server_start(&st, sock_path)) {
        check_run_tests(tests, ARRAY_SIZE(tests));
        server_stop(&st);
        CHECK(access(sock_path, F_OK), "socket left after destroy");
    }
    test_stale_and_dir();
    rmdir(tmpdir);
    return check_finish("test-unixctl");
}
