/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for the appctl request parser: the input is the byte stream
 * a client sends on the control socket.  The target frames it with
 * unixctl_framer_scan() once in one piece and once in chunks (whose sizes
 * come from the input), which must agree, and parses each complete frame
 * with unixctl_parse_request(), as the server does; a request it accepts
 * must hold what the server then relies on.
 */
#include <autoconf.h>
#include "fuzz.h"

#include <string.h>
#include "control/unixctl.h"

/* Scans 'buf' of 'size' bytes in chunks of 1 to 'max_chunk' bytes, as
 * reads from a socket would deliver it, and returns the status. */
static int
fuzz_scan_chunked(struct unixctl_framer *f, const char *buf, size_t size,
                  size_t max_chunk)
{
    size_t avail = 0;
    int status = 0;

    while (avail < size) {
        size_t chunk = 1 + (avail * 7 + 3) % max_chunk;

        avail = chunk < size - avail ? avail + chunk : size;
        status = unixctl_framer_scan(f, buf, avail);
        if (status) {
            break;
        }
    }
    return status;
}

static void
fuzz_check_request(const struct unixctl_request *req)
{
    FUZZ_ASSERT(req->json != NULL);
    FUZZ_ASSERT(req->method != NULL);
    FUZZ_ASSERT(req->argv != NULL);
    for (size_t i = 0; i < req->argc; i++) {
        FUZZ_ASSERT(req->argv[i] != NULL);
        /* A handler may read every argument as a C string. */
        (void) strlen(req->argv[i]);
    }
    FUZZ_ASSERT(req->argv[req->argc] == NULL);
    (void) strlen(req->method);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *) data;
    size_t max_chunk;

    if (size > UNIXCTL_MAX_REQUEST_SIZE) {
        return 0;
    }
    max_chunk = size ? 1 + data[0] % 16 : 1;

    /* Every request in the stream, as conn_process__() runs them. */
    while (size) {
        struct unixctl_framer whole = { 0 };
        struct unixctl_framer chunked = { 0 };
        struct unixctl_request req;
        int status;
        char *error;

        status = unixctl_framer_scan(&whole, buf, size);
        FUZZ_ASSERT(fuzz_scan_chunked(&chunked, buf, size, max_chunk)
                    == status);
        FUZZ_ASSERT(chunked.pos == whole.pos);
        FUZZ_ASSERT(whole.pos <= size);
        if (status <= 0) {
            break;
        }
        FUZZ_ASSERT(whole.pos > 0);
        /* The framer counts '[' and ']' with the braces, so "{]" is a
         * frame too; the JSON parser then rejects it. */
        FUZZ_ASSERT(buf[whole.pos - 1] == '}'
                    || buf[whole.pos - 1] == ']');

        error = unixctl_parse_request(buf, whole.pos, &req);
        if (error) {
            FUZZ_ASSERT(req.json == NULL && req.argv == NULL);
            FUZZ_ASSERT(*error != '\0');
            free(error);
            /* The server closes the connection after a bad request. */
            break;
        }
        fuzz_check_request(&req);
        unixctl_request_uninit(&req);
        FUZZ_ASSERT(req.json == NULL && req.argv == NULL);

        buf += whole.pos;
        size -= whole.pos;
    }
    return 0;
}
