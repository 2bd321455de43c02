/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * coverage/show: the appctl face of the event counters
 * (base/coverage.h).
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <limits.h>
#include <stdlib.h>
#include <jansson.h>

#include "base/coverage.h"
#include "control/unixctl.h"
#include "base/util.h"

/* Returns every counter as a JSON object, counter name to
 * {"total": N, "rate_5s": R, "rate_1m": R, "rate_1h": R}. */
static json_t *
coverage_json__(void)
{
    struct coverage_stat *stats;
    size_t n = coverage_snapshot(&stats);
    json_t *object = json_object();

    for (size_t i = 0; i < n; i++) {
        json_object_set_new(object, stats[i].name,
                            json_pack("{s:I, s:f, s:f, s:f}",
                                      "total", (json_int_t) stats[i].total,
                                      "rate_5s", stats[i].rate_5s,
                                      "rate_1m", stats[i].rate_1m,
                                      "rate_1h", stats[i].rate_1h));
    }
    free(stats);
    return object;
}

/* coverage/show */
static void
coverage_unixctl_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    char *text = coverage_format();

    unixctl_command_reply_text_json(conn, text, coverage_json__());
    free(text);
}

void
coverage_register_commands(void)
{
    unixctl_command_register("coverage/show", "", 0, 0,
                             coverage_unixctl_show, NULL);
}
