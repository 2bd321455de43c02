/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * dpctl/capture, dpctl/capture-drops, dpctl/capture-stop and
 * dpctl/capture-show: the appctl face of packet capture (dp/dp-capture.h).
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/ds.h"
#include "base/util.h"
#include "control/unixctl.h"
#include "dp/dp-capture.h"
#include "dp/dp.h"

static const char *const kind_names[DP_CAPTURE_N_KINDS] = {
    [DP_CAPTURE_PORT] = "port",
    [DP_CAPTURE_DROPS] = "drops",
};

/* Parses the optional COUNT; replies with an error and returns false if
 * it is not a positive integer. */
static bool
capture_parse_count(struct unixctl_conn *conn, int argc, const char *argv[],
                    int idx, uint64_t *count)
{
    char *end;

    *count = 0;
    if (argc <= idx) {
        return true;
    }
    *count = strtoull(argv[idx], &end, 10);
    if (!argv[idx][0] || *end || !*count || argv[idx][0] == '-') {
        unixctl_command_reply_errorf(conn, "COUNT must be a positive "
                                     "number of frames, got \"%s\"",
                                     argv[idx]);
        return false;
    }
    return true;
}

/* Replies with an error and returns false unless 'path' is absolute: the
 * daemon does not run in the client's directory. */
static bool
capture_check_path(struct unixctl_conn *conn, const char *path)
{
    if (path[0] != '/') {
        unixctl_command_reply_errorf(conn, "FILE must be an absolute path "
                                     "(the daemon writes it, from its own "
                                     "directory), got \"%s\"", path);
        return false;
    }
    return true;
}

static json_t *
capture_info_json(const struct dp_capture_info *info, enum dp_capture_kind k)
{
    json_t *obj = json_pack("{s:s, s:s, s:I, s:I}", "kind", kind_names[k],
                            "file", info->path,
                            "frames", (json_int_t) info->n_written,
                            "max_frames", (json_int_t) info->max_count);

    if (info->port) {
        json_object_set_new(obj, "port", json_string(info->port));
    }
    return obj;
}

static void
capture_info_text(struct ds *text, const struct dp_capture_info *info)
{
    ds_put_format(text, "%s%s: %"PRIu64" frame(s) into %s",
                  info->port ? "port " : "dropped frames",
                  info->port ? info->port : "", info->n_written, info->path);
    if (info->max_count) {
        ds_put_format(text, " (stops at %"PRIu64")", info->max_count);
    }
    ds_put_format(text, "\n");
}

static void
capture_start_reply(struct unixctl_conn *conn, struct dp *dp,
                    enum dp_capture_kind kind, uint16_t port_no,
                    const char *path, uint64_t count)
{
    struct dp_capture_info info;
    char *error = dp_capture_start(dp, kind, port_no, path, count);
    struct ds text = DS_EMPTY_INITIALIZER;

    if (error) {
        unixctl_command_reply_error(conn, error);
        free(error);
        return;
    }
    dp_capture_get(dp, kind, &info);
    ds_put_format(&text, "capturing ");
    capture_info_text(&text, &info);
    unixctl_command_reply_text_json(conn, text.string,
                                    capture_info_json(&info, kind));
    ds_destroy(&text);
}

/* dpctl/capture PORT FILE [COUNT] */
static void
capture_unixctl_port(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *dp_)
{
    struct dp *dp = dp_;
    uint64_t count;

    for (int i = 0; i < DP_MAX_PORTS; i++) {
        const struct dp_port *port = dp->ports[i];

        if (port && !strcmp(port->name, argv[0])) {
            if (port->bond) {
                unixctl_command_reply_errorf(conn, "%s is a bond: capture "
                                             "one of its members",
                                             argv[0]);
                return;
            }
            if (capture_check_path(conn, argv[1])
                && capture_parse_count(conn, argc, argv, 2, &count)) {
                capture_start_reply(conn, dp, DP_CAPTURE_PORT, i, argv[1],
                                    count);
            }
            return;
        }
    }
    unixctl_command_reply_errorf(conn, "no port named \"%s\"", argv[0]);
}

/* dpctl/capture-drops FILE [COUNT] */
static void
capture_unixctl_drops(struct unixctl_conn *conn, int argc,
                      const char *argv[], void *dp)
{
    uint64_t count;

    if (capture_check_path(conn, argv[0])
        && capture_parse_count(conn, argc, argv, 1, &count)) {
        capture_start_reply(conn, dp, DP_CAPTURE_DROPS, DP_PORT_NONE,
                            argv[0], count);
    }
}

/* dpctl/capture-show, and what dpctl/capture-stop stopped: every active
 * session, or with 'stop' those 'which' names ("drops", a port, or NULL
 * for all), stopped. */
static void
capture_show_or_stop(struct unixctl_conn *conn, struct dp *dp,
                     const char *which, bool stop)
{
    struct ds text = DS_EMPTY_INITIALIZER;
    json_t *sessions = json_array();
    uint64_t n_lost = dp_capture_n_lost(dp);

    for (int k = 0; k < DP_CAPTURE_N_KINDS; k++) {
        struct dp_capture_info info;

        dp_capture_get(dp, k, &info);
        if (!info.active || (which && !(k == DP_CAPTURE_DROPS
                                        ? !strcmp(which, "drops")
                                        : !strcmp(which, info.port)))) {
            continue;
        }
        ds_put_format(&text, "%s", stop ? "stopped " : "");
        capture_info_text(&text, &info);
        json_array_append_new(sessions, capture_info_json(&info, k));
        if (stop) {
            dp_capture_stop(dp, k);
        }
    }
    if (stop && which && !json_array_size(sessions)) {
        json_decref(sessions);
        ds_destroy(&text);
        unixctl_command_reply_errorf(conn, "nothing is captured for "
                                     "\"%s\" (dpctl/capture-show lists "
                                     "what is)", which);
        return;
    }
    if (!stop && !json_array_size(sessions)) {
        ds_put_format(&text, "no capture running\n");
    }
    ds_put_format(&text, "copies lost (a PMD's capture ring full): %"PRIu64
                  "\n", n_lost);
    unixctl_command_reply_text_json(conn, text.string,
                                    json_pack("{s:o, s:I}", "captures",
                                              sessions, "lost",
                                              (json_int_t) n_lost));
    ds_destroy(&text);
}

/* dpctl/capture-stop [PORT|drops] */
static void
capture_unixctl_stop(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *dp)
{
    capture_show_or_stop(conn, dp, argc ? argv[0] : NULL, true);
}

/* dpctl/capture-show */
static void
capture_unixctl_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[] OVS_UNUSED, void *dp)
{
    capture_show_or_stop(conn, dp, NULL, false);
}

void
capture_register_commands(struct dp *dp)
{
    unixctl_command_register("dpctl/capture", "PORT FILE [COUNT]", 2, 3,
                             capture_unixctl_port, dp);
    unixctl_command_register("dpctl/capture-drops", "FILE [COUNT]", 1, 2,
                             capture_unixctl_drops, dp);
    unixctl_command_register("dpctl/capture-stop", "[PORT|drops]", 0, 1,
                             capture_unixctl_stop, dp);
    unixctl_command_register("dpctl/capture-show", "", 0, 0,
                             capture_unixctl_show, dp);
}
