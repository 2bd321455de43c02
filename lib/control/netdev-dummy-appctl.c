/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The appctl commands of dummy ports (netdev-dummy.h), with Open vSwitch's
 * names: netdev-dummy/receive injects frames as if received on a port,
 * netdev-dummy/dump shows what the datapath transmitted on one.  A frame
 * is given in hex or as a flow in the match syntax (match-parse.h), which
 * flow_compose() turns into a frame.  Every frame of a request is checked
 * before any is injected, so a bad request changes nothing.  Control
 * thread.
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "dp/dp.h"
#include "base/ds.h"
#include "packet/flow.h"
#include "packet/flow-compose.h"
#include "ofproto/match-parse.h"
#include "netdev/netdev.h"
#include "netdev/netdev-dummy.h"
#include "control/unixctl.h"
#include "base/util.h"

/* A frame to inject. */
struct dummy_frame__ {
    uint8_t *data;
    size_t size;
};

/* Returns the dummy port named 'name' of 'dp', or NULL with an error
 * message in '*errp'. */
static struct netdev *
dummy_lookup__(const struct dp *dp, const char *name, char **errp)
{
    const struct dp_port *port = dp_port_lookup(dp, name);

    if (!port) {
        *errp = xasprintf("no such port \"%s\"", name);
        return NULL;
    }
    if (!port->netdev || !netdev_is_dummy(port->netdev)) {
        *errp = xasprintf("port %s is not a dummy port (type %s)", name,
                          port->bond ? "bond"
                          : port->netdev ? netdev_get_type(port->netdev)
                          : "missing");
        return NULL;
    }
    return port->netdev;
}

static bool
dummy_lookup_port__(const char *name, uint16_t *port_no, void *dp_)
{
    const struct dp_port *port = dp_port_lookup(dp_, name);

    if (port) {
        *port_no = port->port_no;
    }
    return port != NULL;
}

/* Decodes 'hex', pairs of hex digits and nothing else, into 'f'.  Returns
 * NULL or an error message. */
static char *
dummy_parse_hex__(const char *hex, struct dummy_frame__ *f)
{
    size_t len = strlen(hex);

    for (size_t i = 0; i < len; i++) {
        if (!isxdigit((unsigned char) hex[i])) {
            return xasprintf("bad hex digit '%c' at character %zu", hex[i],
                             i + 1);
        }
    }
    if (len % 2) {
        return xasprintf("odd number of hex digits (%zu): give whole "
                         "bytes", len);
    }
    if (len / 2 < NETDEV_DUMMY_FRAME_MIN || len / 2 > NETDEV_DUMMY_FRAME_MAX) {
        return xasprintf("%zu bytes: a frame has %d to %d bytes", len / 2,
                         NETDEV_DUMMY_FRAME_MIN, NETDEV_DUMMY_FRAME_MAX);
    }
    f->size = len / 2;
    f->data = xmalloc(f->size);
    for (size_t i = 0; i < f->size; i++) {
        unsigned int byte;

        sscanf(hex + 2 * i, "%2x", &byte);
        f->data[i] = byte;
    }
    return NULL;
}

/* Parses 'arg' as a flow received on 'port_no' and composes its frame
 * into 'f'.  Returns NULL or an error message. */
static char *
dummy_parse_flow__(struct dp *dp, const char *arg, uint16_t port_no,
                   struct dummy_frame__ *f)
{
    struct flow flow, mask;
    char *error = match_parse(arg, dummy_lookup_port__, dp, &flow, &mask);

    if (error) {
        return error;
    }
    if (mask.in_port && flow.in_port != port_no) {
        return xstrdup("its in_port is another port");
    }
    f->data = xmalloc(FLOW_COMPOSE_MAX);
    f->size = flow_compose(&flow, 0, f->data, FLOW_COMPOSE_MAX);
    return NULL;
}

/* Parses FRAME argument 'arg': hex if it has no '=' or ',' and is all hex
 * digits or is no valid flow, else a flow. */
static char *
dummy_parse_frame__(struct dp *dp, const char *arg, uint16_t port_no,
                    struct dummy_frame__ *f)
{
    char *hex_error, *flow_error;

    if (strchr(arg, '=') || strchr(arg, ',')) {
        flow_error = dummy_parse_flow__(dp, arg, port_no, f);
        if (flow_error) {
            char *msg = xasprintf("bad flow \"%s\": %s", arg, flow_error);

            free(flow_error);
            return msg;
        }
        return NULL;
    }
    hex_error = dummy_parse_hex__(arg, f);
    if (!hex_error) {
        return NULL;
    }
    /* A bare shorthand such as "arp" is a flow too. */
    flow_error = dummy_parse_flow__(dp, arg, port_no, f);
    if (!flow_error) {
        free(hex_error);
        return NULL;
    }
    free(flow_error);
    {
        char *msg = xasprintf("bad hex frame \"%.40s%s\": %s", arg,
                              strlen(arg) > 40 ? "..." : "", hex_error);

        free(hex_error);
        return msg;
    }
}

/* Parses the value of --qid into '*qid'.  Returns NULL or an error. */
static char *
dummy_parse_qid__(const char *s, int n_rxq, int *qid)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v >= n_rxq) {
        return xasprintf("--qid \"%s\": the port has rx queues 0 to %d", s,
                         n_rxq - 1);
    }
    *qid = v;
    return NULL;
}

/* netdev-dummy/receive PORT [--qid N] FRAME... */
static void
dummy_unixctl_receive(struct unixctl_conn *conn, int argc,
                      const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct dummy_frame__ *frames = xcalloc(argc, sizeof *frames);
    const char *qid_arg = NULL;
    size_t n_frames = 0;
    size_t n_queued = 0;
    char *error = NULL;
    struct netdev *netdev;
    uint16_t port_no = 0;
    int qid = 0;

    netdev = dummy_lookup__(dp, argv[0], &error);
    if (netdev) {
        port_no = dp_port_lookup(dp, argv[0])->port_no;
    }
    for (int i = 1; i < argc && !error; i++) {
        if (!strcmp(argv[i], "--qid")) {
            if (i + 1 >= argc) {
                error = xstrdup("--qid needs a queue number");
            } else {
                qid_arg = argv[++i];
            }
        } else if (!strncmp(argv[i], "--qid=", 6)) {
            qid_arg = argv[i] + 6;
        } else {
            char *why = dummy_parse_frame__(dp, argv[i], port_no,
                                            &frames[n_frames]);

            if (why) {
                error = xasprintf("FRAME %zu: %s", n_frames + 1, why);
                free(why);
            } else {
                n_frames++;
            }
        }
    }
    if (!error && qid_arg) {
        error = dummy_parse_qid__(qid_arg, netdev_n_rxq(netdev), &qid);
    }
    if (!error && !n_frames) {
        error = xstrdup("no FRAME given");
    }
    if (error) {
        unixctl_command_reply_error(conn, error);
    } else {
        char *text;

        for (size_t i = 0; i < n_frames; i++) {
            /* A full queue counts the frame as rx_ring_full. */
            n_queued += !netdev_dummy_receive(netdev, qid, frames[i].data,
                                              frames[i].size);
        }
        text = xasprintf("%zu frame(s) queued on rx queue %d of %s, %zu "
                         "dropped (rx queue full)", n_queued, qid, argv[0],
                         n_frames - n_queued);
        unixctl_command_reply_text_json(conn, text, json_pack(
            "{s:s, s:i, s:I, s:I}", "port", argv[0], "qid", qid,
            "queued", (json_int_t) n_queued,
            "dropped_rx_queue_full", (json_int_t) (n_frames - n_queued)));
        free(text);
    }
    for (size_t i = 0; i < n_frames; i++) {
        free(frames[i].data);
    }
    free(frames);
    free(error);
}

/* netdev-dummy/dump PORT [--clear] */
static void
dummy_unixctl_dump(struct unixctl_conn *conn, int argc, const char *argv[],
                   void *dp_)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    struct netdev_dummy_capture cap;
    struct netdev *netdev;
    char *error = NULL;
    bool clear = false;
    json_t *frames;

    if (argc == 2) {
        if (strcmp(argv[1], "--clear")) {
            unixctl_command_reply_error(conn, "usage: netdev-dummy/dump "
                                        "PORT [--clear]");
            return;
        }
        clear = true;
    }
    netdev = dummy_lookup__(dp_, argv[0], &error);
    if (!netdev) {
        unixctl_command_reply_error(conn, error);
        free(error);
        return;
    }
    netdev_dummy_get_capture(netdev, clear, &cap);
    frames = json_array();
    for (size_t i = 0; i < cap.n; i++) {
        static const char digits[] = "0123456789abcdef";
        const struct netdev_dummy_frame *f = &cap.frames[i];
        char *hex = xmalloc(2 * f->size + 1);

        for (size_t j = 0; j < f->size; j++) {
            hex[2 * j] = digits[f->data[j] >> 4];
            hex[2 * j + 1] = digits[f->data[j] & 0xf];
        }
        hex[2 * f->size] = '\0';
        ds_put_format(&text, "%s\n", hex);
        json_array_append_new(frames, json_string(hex));
        free(hex);
    }
    unixctl_command_reply_text_json(conn, ds_cstr(&text), json_pack(
        "{s:s, s:o, s:I, s:I, s:I}", "port", argv[0], "frames", frames,
        "n_captured", (json_int_t) cap.n_captured,
        "capture_dropped", (json_int_t) cap.n_dropped,
        "capture_overflow", (json_int_t) cap.n_overflow));
    ds_destroy(&text);
    netdev_dummy_capture_uninit(&cap);
}

void
netdev_dummy_register_commands(struct dp *dp)
{
    static const struct unixctl_command_def commands[] = {
        { "netdev-dummy/receive", "PORT [--qid N] FRAME...", 2, INT_MAX,
          dummy_unixctl_receive },
        { "netdev-dummy/dump", "PORT [--clear]", 1, 2, dummy_unixctl_dump },
    };

    unixctl_command_register_table(commands, ARRAY_SIZE(commands), dp);
}
