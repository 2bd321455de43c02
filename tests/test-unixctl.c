/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for lib/unixctl: a server runs in its own thread with its own
 * event base on a socket in a private temporary directory, and the checks
 * talk to it with unixctl_client_transact() and with raw sockets for
 * malformed, oversized, silent and half-sent requests.  A second server,
 * with small limits, faces clients that exceed them: too many at once,
 * silent ones, ones that never read their replies, and more clients than
 * the process has descriptors for.  No root needed.
 */
#include <autoconf.h>
#include "control/unixctl.h"

#include <errno.h>
#include <inttypes.h>
#include <event2/event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "unixctl-test.h"
#include "base/coverage.h"
#include "base/util.h"

#define N_CONCURRENT 100

static char tmpdir[64];
static char sock_path[128];

/* Starts 's' on 'path' and checks that it started.  Returns true if it
 * did. */
static bool
server_start(struct unixctl_test_server *s, const char *path)
{
    bool ok = unixctl_test_server_start(s, path);

    CHECK(ok, "%s", s->error);
    return ok;
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

/* Passed to every text-json reply, with a reference added each time, so
 * that its reference count shows whether the reply took ownership. */
static json_t *text_json_probe;

/* text-json [NAME]: a text layout that is not the JSON's, and both NULL
 * without NAME. */
static void
text_json_cb(struct unixctl_conn *conn, int argc, const char *argv[],
             void *aux OVS_UNUSED)
{
    if (argc) {
        char *text = xasprintf("hello, %s\n", argv[0]);
        json_t *json = json_pack("{s:s, s:O}", "hello", argv[0],
                                 "probe", text_json_probe);

        unixctl_command_reply_text_json(conn, text, json);
        free(text);
    } else {
        unixctl_command_reply_text_json(conn, NULL, NULL);
    }
}

/* The test commands, registered from this table and expected back from
 * list-commands. */
static const struct test_command {
    const char *name;
    const char *usage;
    int min_args, max_args;
    unixctl_cb_func *cb;
    void *aux;
} test_commands[] = {
    { "echo", "[ARG...]", 0, 3, echo_cb, (void *) echo_cb },
    { "fail", "WHY", 1, 1, fail_cb, NULL },
    { "stats-show", "", 0, 0, stats_cb, NULL },
    { "defer", "", 0, 0, defer_cb, NULL },
    { "release", "", 0, 0, release_cb, NULL },
    { "text-json", "[NAME]", 0, 1, text_json_cb, NULL },
    { "a-very-long-command-name-indeed", "A B", 2, 2, echo_cb,
      (void *) echo_cb },
};

static void
register_commands(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(test_commands); i++) {
        const struct test_command *c = &test_commands[i];

        unixctl_command_register(c->name, c->usage, c->min_args,
                                 c->max_args, c->cb, c->aux);
    }
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
    CHECK_TRANSACT("list-commands", 1, two, false, NULL,
                   "\"list-commands\" command takes at most 0 arguments");
}

/* Runs 'method' without arguments and returns its result, for the caller
 * to free, or NULL after failing a check. */
static char *
transact_result(const char *method, bool json)
{
    char *result = NULL, *error = NULL;
    int err;

    err = unixctl_client_transact(sock_path, method, 0, NULL, json, 10,
                                  &result, &error);
    CHECK(!err, "%s: %s", method, strerror(err));
    CHECK(!error, "%s: error %s", method, error);
    free(error);
    return result;
}

static void
test_list_commands_text(void)
{
    char *text = transact_result("list-commands", false);
    char *save = NULL, *prev = NULL;
    size_t n_lines = 0;

    CHECK_STR(text, "The available commands are:\n"
              "  a-very-long-command-name-indeed A B\n"
              "  defer\n"
              "  echo                    [ARG...]\n"
              "  fail                    WHY\n"
              "  list-commands\n"
              "  release\n"
              "  stats-show\n"
              "  text-json               [NAME]\n");
    if (!text) {
        return;
    }

    /* Each test command has its line, with its usage. */
    for (size_t i = 0; i < ARRAY_SIZE(test_commands); i++) {
        const struct test_command *c = &test_commands[i];
        char *line = (c->usage[0]
                      ? xasprintf("\n  %-23s %s\n", c->name, c->usage)
                      : xasprintf("\n  %s\n", c->name));

        CHECK(strstr(text, line), "list-commands lacks \"%s\"", line + 1);
        free(line);
    }

    /* The lines after the header are sorted by name. */
    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        if (n_lines++ == 0) {
            continue;
        }
        CHECK(!strncmp(l, "  ", 2) && l[2] != ' ', "bad line \"%s\"", l);
        l[2 + strcspn(l + 2, " ")] = '\0';
        CHECK(!prev || strcmp(prev, l + 2) < 0, "\"%s\" after \"%s\"",
              l + 2, prev);
        prev = l + 2;
    }
    CHECK_INT(n_lines, 1 + ARRAY_SIZE(test_commands) + 1);
    free(text);
}

/* Checks that 'entry' of list-commands' JSON describes 'name' with
 * 'usage', 'min_args' and 'max_args', and nothing else. */
static void
check_command_json(const json_t *entry, const char *name, const char *usage,
                   int min_args, int max_args)
{
    const char *e_name = json_string_value(json_object_get(entry, "name"));
    const char *e_usage = json_string_value(json_object_get(entry, "usage"));
    json_t *e_min = json_object_get(entry, "min_args");
    json_t *e_max = json_object_get(entry, "max_args");

    CHECK(json_is_object(entry) && json_object_size(entry) == 4,
          "%s: entry is not an object of 4 members", name);
    CHECK_STR(e_name, name);
    CHECK_STR(e_usage, usage);
    CHECK(json_is_integer(e_min) && json_integer_value(e_min) == min_args,
          "%s: min_args", name);
    CHECK(json_is_integer(e_max) && json_integer_value(e_max) == max_args,
          "%s: max_args", name);
}

static void
test_list_commands_json(void)
{
    char *text = transact_result("list-commands", true);
    json_t *json = text ? json_loads(text, 0, NULL) : NULL;
    size_t n = json_array_size(json);
    size_t n_found = 0;

    CHECK(json_is_array(json), "not a JSON array: %s", text);
    CHECK_INT(n, ARRAY_SIZE(test_commands) + 1);
    for (size_t i = 1; i < n; i++) {
        const char *a = json_string_value(
            json_object_get(json_array_get(json, i - 1), "name"));
        const char *b = json_string_value(
            json_object_get(json_array_get(json, i), "name"));

        CHECK(a && b && strcmp(a, b) < 0, "\"%s\" before \"%s\"", a, b);
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *entry = json_array_get(json, i);
        const char *name = json_string_value(json_object_get(entry,
                                                             "name"));

        if (name && !strcmp(name, "list-commands")) {
            check_command_json(entry, "list-commands", "", 0, 0);
            n_found++;
        }
        for (size_t j = 0; name && j < ARRAY_SIZE(test_commands); j++) {
            const struct test_command *c = &test_commands[j];

            if (!strcmp(name, c->name)) {
                check_command_json(entry, c->name, c->usage, c->min_args,
                                   c->max_args);
                n_found++;
            }
        }
    }
    CHECK_INT(n_found, ARRAY_SIZE(test_commands) + 1);
    json_decref(json);
    free(text);
}

static void
test_reply_text_json(void)
{
    const char *name[] = { "bob" };
    const char *two[] = { "a", "b" };

    /* Text: the text, not the JSON rendered; JSON: the JSON.  Without
     * NAME, NULL text is "" and NULL JSON is null. */
    CHECK_TRANSACT("text-json", 1, name, false, "hello, bob\n", NULL);
    CHECK_INT(text_json_probe->refcount, 1);
    CHECK_TRANSACT("text-json", 1, name, true,
                   "{\n  \"hello\": \"bob\",\n  \"probe\": {}\n}", NULL);
    CHECK_INT(text_json_probe->refcount, 1);
    CHECK_TRANSACT("text-json", 0, NULL, false, "", NULL);
    CHECK_TRANSACT("text-json", 0, NULL, true, "null", NULL);

    /* Argument counts are still checked. */
    CHECK_TRANSACT("text-json", 2, two, true,
                   NULL, "\"text-json\" command takes at most 1 arguments");
}

/* Misuse of the protocol or of a command, and the exact error it earns. */
struct misuse_case {
    const char *request;        /* Sent raw, followed by an "echo". */
    const char *error;          /* NULL: "invalid JSON-RPC request: " and
                                 * jansson's message for 'request'. */
    const char *id;             /* JSON of the reply's id. */
    bool closes;                /* The "echo" after it is not answered. */
};

static const struct misuse_case misuse_cases[] = {
    /* Command errors: answered with the request's id, the connection goes
     * on. */
    { "{\"method\":\"nosuch\",\"params\":[],\"id\":1}",
      "\"nosuch\" is not a valid command (use list-commands to see the "
      "commands)", "1", false },
    { "{\"method\":\"nosuch\",\"format\":\"json\",\"id\":\"j\"}",
      "\"nosuch\" is not a valid command (use list-commands to see the "
      "commands)", "\"j\"", false },
    { "{\"method\":\"fail\",\"params\":[],\"id\":2}",
      "\"fail\" command requires at least 1 arguments", "2", false },
    { "{\"method\":\"a-very-long-command-name-indeed\","
      "\"params\":[\"x\"],\"id\":3}",
      "\"a-very-long-command-name-indeed\" command requires at least 2 "
      "arguments", "3", false },
    { "{\"method\":\"echo\",\"params\":[\"1\",\"2\",\"3\",\"4\"],"
      "\"id\":4}",
      "\"echo\" command takes at most 3 arguments", "4", false },
    { "{\"method\":\"list-commands\",\"params\":[\"x\"],\"id\":5,"
      "\"format\":\"json\"}",
      "\"list-commands\" command takes at most 0 arguments", "5", false },

    /* Protocol errors: id null, the connection is closed. */
    { "{\"method\":\"echo\",\"params\":[1],\"id\":6}",
      "\"params\" must be strings", "null", true },
    { "{\"method\":\"echo\",\"params\":[\"a\",null],\"id\":7}",
      "\"params\" must be strings", "null", true },
    { "{\"method\":\"echo\",\"params\":\"a\",\"id\":8}",
      "invalid JSON-RPC request", "null", true },
    { "{\"method\":7,\"id\":9}", "invalid JSON-RPC request", "null",
      true },
    { "{\"params\":[],\"id\":10}", "invalid JSON-RPC request", "null",
      true },
    { "{\"method\":\"echo\",\"format\":1,\"id\":11}",
      "invalid JSON-RPC request", "null", true },
    { "{ bad json }", NULL, "null", true },
    { "{\"method\":\"echo\",\"params\":[\"\\q\"]}", NULL, "null", true },
    { "[1, 2]", "invalid JSON-RPC request: not a JSON object", "null",
      true },
    { "\"echo\"", "invalid JSON-RPC request: not a JSON object", "null",
      true },
};

/* Decodes the JSON object at '*ofs' in 'text' and advances '*ofs' past
 * it.  Returns NULL at the end of 'text' or on a decoding error. */
static json_t *
next_reply(const char *text, size_t *ofs)
{
    size_t len = strlen(text);
    json_error_t err;
    json_t *reply;

    if (*ofs >= len) {
        return NULL;
    }
    reply = json_loadb(text + *ofs, len - *ofs, JSON_DISABLE_EOF_CHECK,
                       &err);
    *ofs = reply ? *ofs + err.position : len;
    return reply;
}

static void
test_misuse(void)
{
    static const char after[] = "{\"method\":\"echo\",\"params\":"
                                "[\"after\"],\"id\":99}";

    for (size_t i = 0; i < ARRAY_SIZE(misuse_cases); i++) {
        const struct misuse_case *c = &misuse_cases[i];
        char *request = xasprintf("%s%s", c->request, after);
        json_t *want_id = json_loads(c->id, JSON_DECODE_ANY, NULL);
        char *want_error = NULL;
        json_t *reply, *second;
        size_t ofs = 0;
        char *text;
        int fd;

        check_set_context("misuse %zu: %s", i, c->request);
        if (!c->error) {
            json_error_t err;
            json_t *req = json_loadb(c->request, strlen(c->request), 0,
                                     &err);

            CHECK(!req, "request parses");
            json_decref(req);
            want_error = xasprintf("invalid JSON-RPC request: %s", err.text);
        }

        fd = raw_connect();
        raw_send(fd, request, strlen(request));
        shutdown(fd, SHUT_WR);
        text = raw_read_all(fd);
        close(fd);

        reply = next_reply(text, &ofs);
        CHECK(json_is_object(reply) && json_object_size(reply) == 3,
              "reply \"%s\"", text);
        CHECK_STR(json_string_value(json_object_get(reply, "error")),
                  c->error ? c->error : want_error);
        CHECK(json_is_null(json_object_get(reply, "result")),
              "result in \"%s\"", text);
        CHECK(json_equal(json_object_get(reply, "id"), want_id),
              "id in \"%s\", expected %s", text, c->id);

        second = next_reply(text, &ofs);
        if (c->closes) {
            CHECK(!second, "answered after a protocol error: \"%s\"", text);
        } else {
            CHECK_STR(json_string_value(json_object_get(second, "result")),
                      "after");
        }
        CHECK_INT(ofs, strlen(text));

        json_decref(second);
        json_decref(reply);
        json_decref(want_id);
        free(want_error);
        free(text);
        free(request);
    }
    check_set_context("%s", "");
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
    struct unixctl_test_server st;
    struct stat s;
    char *result = NULL, *error = NULL;
    int err;

    /* The parent directory is created, private. */
    CHECK(server_start(&st, path), "start");
    CHECK(!stat(dir, &s) && (s.st_mode & 07777) == 0700,
          "%s mode %o", dir, (unsigned) (s.st_mode & 07777));
    unixctl_test_server_stop(&st);
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
        unixctl_test_server_stop(&st);
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


/* Limits: a second server with small ones. */

#define LIM_MAX_CLIENTS 4
#define LIM_IDLE_MS 300
#define LIM_MAX_QUEUED (64 * 1024)

static long long
mono_msec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits up to 5 s for the server to close 'fd' (EOF or reset on a read).
 * Returns true if it did. */
static bool
wait_closed(int fd)
{
    struct timeval tv = { .tv_sec = 5 };
    char buf[4096];
    ssize_t n;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
        continue;
    }
    return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

static void
test_idle_timeout(void)
{
    const char *half = "{\"method\":\"echo\",\"par";
    uint64_t before = coverage_get("unixctl_idle_timeout");
    const char *args[] = { "served" };
    int silent = raw_connect();
    int partial = raw_connect();
    long long start = mono_msec();
    bool closed = false;

    raw_send(partial, half, strlen(half));
    CHECK_TRANSACT("echo", 1, args, false, "served", NULL);
    /* A byte now and then does not keep a half request alive: the server
     * closes it while it still trickles. */
    while (!closed && mono_msec() - start < 8 * LIM_IDLE_MS) {
        usleep(LIM_IDLE_MS / 6 * 1000);
        closed = send(partial, " ", 1, MSG_NOSIGNAL) < 0;
    }
    CHECK(closed, "a trickling half request kept its client connected");
    CHECK(mono_msec() - start >= LIM_IDLE_MS, "closed before the timeout");
    CHECK(wait_closed(silent), "silent client not closed");
    CHECK_INT(coverage_get("unixctl_idle_timeout") - before, 2);
    CHECK_TRANSACT("echo", 1, args, false, "served", NULL);
    close(silent);
    close(partial);
}

static void
test_client_cap(void)
{
    uint64_t evicted = coverage_get("unixctl_client_evicted");
    uint64_t deferred = coverage_get("unixctl_client_deferred");
    const char *args[] = { "room" };
    int fds[LIM_MAX_CLIENTS];

    /* Every slot taken by a silent client: a new client waits until the
     * idlest has been idle long enough, then gets its slot. */
    for (int i = 0; i < LIM_MAX_CLIENTS; i++) {
        fds[i] = raw_connect();
    }
    CHECK_TRANSACT("echo", 1, args, false, "room", NULL);
    CHECK_INT(coverage_get("unixctl_client_evicted") - evicted, 1);
    CHECK(coverage_get("unixctl_client_deferred") > deferred,
          "the new client did not wait");
    CHECK(wait_closed(fds[0]) || wait_closed(fds[1])
          || wait_closed(fds[2]) || wait_closed(fds[3]),
          "no silent client was closed");
    for (int i = 0; i < LIM_MAX_CLIENTS; i++) {
        close(fds[i]);
    }
}

/* Sends requests on a client that never reads until the server closes it.
 * Returns true if it did within 10 s. */
static bool
flood_until_closed(int fd)
{
    const char *req = "{\"method\":\"list-commands\",\"id\":1}";
    long long deadline = mono_msec() + 10000;
    size_t len = strlen(req);

    while (mono_msec() < deadline) {
        ssize_t n = send(fd, req, len, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            usleep(1000);
        } else if (n < 0) {
            return true;        /* EPIPE or ECONNRESET. */
        }
    }
    return false;
}

static void
test_unread_replies(void)
{
    uint64_t before = coverage_get("unixctl_reply_overflow");
    const char *args[] = { "still" };
    int fd = raw_connect();

    CHECK(flood_until_closed(fd), "flooding client not closed");
    CHECK_INT(coverage_get("unixctl_reply_overflow") - before, 1);
    CHECK_TRANSACT("echo", 1, args, false, "still", NULL);
    close(fd);
}

static void
test_concurrent_over_cap(void)
{
    /* A burst of well-behaved clients larger than the cap: each waits for
     * a slot and none is turned away. */
    test_concurrent();
}

static void
test_out_of_descriptors(void)
{
    const char *req = "{\"method\":\"echo\",\"params\":[\"queued\"],"
                      "\"id\":3}";
    uint64_t before = coverage_get("unixctl_accept_failed");
    const char *args[] = { "back" };
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct rlimit old, none;
    int fillers[64], n_fillers = 0;
    uint64_t n_failed;
    long long start;
    int lowest_free;
    char *text;

    /* No descriptor left for this process, server and client alike: the
     * kernel still completes a connection into the backlog, and the
     * server cannot accept it.  The clients of the tests before are gone
     * first (idle ones after LIM_IDLE_MS), and descriptors the server
     * closes meanwhile are taken by 'fillers'. */
    usleep(2 * LIM_IDLE_MS * 1000);
    lowest_free = dup(0);
    CHECK(fd >= 0 && lowest_free >= 0 && !getrlimit(RLIMIT_NOFILE, &old),
          "setup: %s", strerror(errno));
    close(lowest_free);
    none = old;
    none.rlim_cur = lowest_free + 1;
    CHECK(!setrlimit(RLIMIT_NOFILE, &none), "setrlimit: %s",
          strerror(errno));
    while (n_fillers < (int) ARRAY_SIZE(fillers)
           && (fillers[n_fillers] = dup(0)) >= 0) {
        n_fillers++;
    }
    strcpy(sun.sun_path, sock_path);
    CHECK(!connect(fd, (struct sockaddr *) &sun, sizeof sun), "connect: %s",
          strerror(errno));
    raw_send(fd, req, strlen(req));
    shutdown(fd, SHUT_WR);

    /* Half a second without descriptors: a few retries, not a spin. */
    start = mono_msec();
    usleep(500 * 1000);
    n_failed = coverage_get("unixctl_accept_failed") - before;
    CHECK(n_failed >= 1, "no accept failure counted");
    CHECK(n_failed <= (uint64_t) (mono_msec() - start) / 100 + 3,
          "%"PRIu64" accept failures in %lld ms", n_failed,
          mono_msec() - start);

    /* Descriptors again: the waiting client is served. */
    CHECK(!setrlimit(RLIMIT_NOFILE, &old), "setrlimit: %s", strerror(errno));
    for (int i = 0; i < n_fillers; i++) {
        close(fillers[i]);
    }
    text = raw_read_all(fd);
    CHECK_STR(text, "{\"result\":\"queued\",\"error\":null,\"id\":3}");
    free(text);
    close(fd);
    CHECK_TRANSACT("echo", 1, args, false, "back", NULL);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "replies", test_replies },
        { "list-commands-text", test_list_commands_text },
        { "list-commands-json", test_list_commands_json },
        { "reply-text-json", test_reply_text_json },
        { "misuse", test_misuse },
        { "json-format", test_json_format },
        { "raw-protocol", test_raw_protocol },
        { "deferred-reply", test_deferred_reply },
        { "oversized", test_oversized },
        { "stalled-clients", test_stalled_clients },
        { "concurrent", test_concurrent },
        { "second-server-refused", test_second_server_refused },
        { "socket-modes", test_socket_modes },
    };
    static const struct check_test limit_tests[] = {
        { "idle-timeout", test_idle_timeout },
        { "client-cap", test_client_cap },
        { "unread-replies", test_unread_replies },
        { "concurrent-over-cap", test_concurrent_over_cap },
        { "out-of-descriptors", test_out_of_descriptors },
    };
    const struct unixctl_limits limits = {
        .max_clients = LIM_MAX_CLIENTS,
        .idle_timeout_ms = LIM_IDLE_MS,
        .max_queued = LIM_MAX_QUEUED,
    };
    struct unixctl_test_server st;

    signal(SIGPIPE, SIG_IGN);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test-unixctl.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        ovs_fatal(errno, "mkdtemp");
    }
    snprintf(sock_path, sizeof sock_path, "%s/test.ctl", tmpdir);
    text_json_probe = json_object();
    register_commands();

    if (server_start(&st, sock_path)) {
        check_run_tests(tests, ARRAY_SIZE(tests));
        unixctl_test_server_stop(&st);
        CHECK(access(sock_path, F_OK), "socket left after destroy");
    }
    snprintf(sock_path, sizeof sock_path, "%s/limited.ctl", tmpdir);
    if (unixctl_test_server_start_limited(&st, sock_path, &limits)) {
        check_run_tests(limit_tests, ARRAY_SIZE(limit_tests));
        unixctl_test_server_stop(&st);
    } else {
        CHECK(false, "%s", st.error);
    }
    snprintf(sock_path, sizeof sock_path, "%s/test.ctl", tmpdir);
    test_stale_and_dir();
    json_decref(text_json_probe);
    rmdir(tmpdir);
    return check_finish("test-unixctl");
}
