/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * appctl client (see unixctl.h for the protocol): unixctl_client_transact()
 * connects to a server's socket, sends one request and waits for its
 * reply, with blocking calls bounded by one deadline.  It shares the
 * framer (unixctl_framer_scan()) and the socket address helper
 * (unixctl-private.h) with the server in unixctl.c.
 */
#include <autoconf.h>
#include "control/unixctl.h"
#include "control/unixctl-private.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "base/util.h"

/* Returns milliseconds left until 'deadline' (time_msec() units), -1 for
 * no deadline, 0 once it has passed. */
static int
ms_left__(long long deadline)
{
    long long left;

    if (deadline < 0) {
        return -1;
    }
    left = deadline - time_msec();
    return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int) left;
}

/* Waits until 'fd' is ready for 'events' or 'deadline' passes.  Returns 0,
 * ETIMEDOUT or an errno. */
static int
wait_fd__(int fd, short events, long long deadline)
{
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = events };
        int n = poll(&pfd, 1, ms_left__(deadline));

        if (n > 0) {
            return 0;
        } else if (n == 0) {
            return ETIMEDOUT;
        } else if (errno != EINTR) {
            return errno;
        }
    }
}

/* Connects 'fd' to 'sun'.  Returns 0 or an errno. */
static int
client_connect__(int fd, const struct sockaddr_un *sun, long long deadline)
{
    socklen_t len = sizeof(int);
    int error;

    if (!connect(fd, (const struct sockaddr *) sun, sizeof *sun)) {
        return 0;
    }
    /* A full backlog makes a non-blocking AF_UNIX connect fail with
     * EAGAIN: retry until the deadline. */
    while (errno == EAGAIN) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };

        if (!ms_left__(deadline)) {
            return ETIMEDOUT;
        }
        nanosleep(&ts, NULL);
        if (!connect(fd, (const struct sockaddr *) sun, sizeof *sun)) {
            return 0;
        }
    }
    if (errno != EINPROGRESS) {
        return errno;
    }
    error = wait_fd__(fd, POLLOUT, deadline);
    if (!error && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len)) {
        error = errno;
    }
    return error;
}

/* Builds the request text for 'method' and 'argv'. */
static char *
client_request__(const char *method, int argc, const char *argv[], bool json)
{
    json_t *req = json_object();
    json_t *params = json_array();
    char *text;

    for (int i = 0; i < argc; i++) {
        json_array_append_new(params, json_string(argv[i]));
    }
    json_object_set_new(req, "method", json_string(method));
    json_object_set_new(req, "params", params);
    json_object_set_new(req, "id", json_integer(0));
    if (json) {
        json_object_set_new(req, "format", json_string("json"));
    }
    text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    return text;
}

/* Sends 'len' bytes of 'text' on 'fd'.  Returns 0 or an errno. */
static int
client_send__(int fd, const char *text, size_t len, long long deadline)
{
    size_t ofs = 0;

    while (ofs < len) {
        ssize_t n = send(fd, text + ofs, len - ofs, MSG_NOSIGNAL);

        if (n > 0) {
            ofs += n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int error = wait_fd__(fd, POLLOUT, deadline);

            if (error) {
                return error;
            }
        } else if (n < 0 && errno != EINTR) {
            return errno;
        }
    }
    return 0;
}

/* Reads one reply object from 'fd' into '*replyp'.  Returns 0 or an
 * errno. */
static int
client_recv__(int fd, long long deadline, json_t **replyp)
{
    struct unixctl_framer framer = { 0 };
    size_t len = 0, size = 0;
    char *buf = NULL;
    int error = 0;

    *replyp = NULL;
    for (;;) {
        int status;
        ssize_t n;

        if (size - len < 4096) {
            size = size ? 2 * size : 8192;
            buf = xrealloc(buf, size);
        }
        n = recv(fd, buf + len, size - len, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            error = wait_fd__(fd, POLLIN, deadline);
            if (error) {
                break;
            }
            continue;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0) {
            error = errno;
            break;
        } else if (n == 0) {
            error = EPROTO;
            break;
        }
        len += n;
        status = unixctl_framer_scan(&framer, buf, len);
        if (status < 0) {
            error = EPROTO;
            break;
        } else if (status > 0) {
            *replyp = json_loadb(buf, framer.pos, 0, NULL);
            error = *replyp ? 0 : EPROTO;
            break;
        }
    }
    free(buf);
    return error;
}

/* Extracts the result or error of 'reply'.  Returns 0 or EPROTO. */
static int
client_parse_reply__(const json_t *reply, char **result, char **error)
{
    json_t *res = json_object_get(reply, "result");
    json_t *err = json_object_get(reply, "error");

    if (!json_is_object(reply)) {
        return EPROTO;
    }
    if (err && !json_is_null(err)) {
        *error = json_is_string(err) ? xstrdup(json_string_value(err))
                                     : json_dumps(err, JSON_ENCODE_ANY);
    } else if (!res) {
        return EPROTO;
    } else if (json_is_string(res)) {
        *result = xstrdup(json_string_value(res));
    } else {
        *result = json_dumps(res, JSON_INDENT(2) | JSON_ENCODE_ANY);
    }
    return *result || *error ? 0 : EPROTO;
}

int
unixctl_client_transact(const char *path, const char *method,
                        int argc, const char *argv[], bool json,
                        int timeout_s, char **result, char **error)
{
    long long deadline = timeout_s > 0 ? time_msec() + timeout_s * 1000LL
                                       : -1;
    struct sockaddr_un sun;
    json_t *reply = NULL;
    char *request;
    int fd, err;

    *result = *error = NULL;
    err = unixctl_make_sockaddr__(&sun, path);
    if (err) {
        return err;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return errno;
    }
    request = client_request__(method, argc, argv, json);
    err = client_connect__(fd, &sun, deadline);
    if (!err) {
        err = client_send__(fd, request, strlen(request), deadline);
    }
    if (!err) {
        err = client_recv__(fd, deadline, &reply);
    }
    if (!err) {
        err = client_parse_reply__(reply, result, error);
    }
    if (err) {
        free(*result);
        free(*error);
        *result = *error = NULL;
    }
    json_decref(reply);
    free(request);
    close(fd);
    return err;
}
