/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The test clock's appctl command, as Open vSwitch's: "time/warp MSECS"
 * moves time_msec() forward for every thread (util.h), so that flow
 * expiry, MAC aging and other periodic work can be tested without
 * waiting.  pmdswitchd registers it only with --enable-dummy.  Control
 * thread.
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>

#include "control/unixctl.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(time_appctl);

/* The longest single warp: about 11.5 days. */
#define TIME_WARP_MAX_MS 1000000000LL

/* time/warp MSECS */
static void
time_unixctl_warp(struct unixctl_conn *conn, int argc OVS_UNUSED,
                  const char *argv[], void *aux OVS_UNUSED)
{
    char *end;
    long long ms;

    errno = 0;
    ms = strtoll(argv[0], &end, 10);
    if (!argv[0][0] || *end || errno || ms < 0 || ms > TIME_WARP_MAX_MS) {
        char *msg = xasprintf("time/warp: \"%s\" is not a number of "
                              "milliseconds from 0 to %lld", argv[0],
                              TIME_WARP_MAX_MS);

        unixctl_command_reply_error(conn, msg);
        free(msg);
        return;
    }
    time_warp(ms);
    VLOG_INFO("time/warp: clock moved %lld ms forward (%lld ms in all)", ms,
              time_warped_msec());
    unixctl_command_reply_text_json(conn, "warped", json_pack(
        "{s:I, s:I}", "warped_ms", (json_int_t) ms,
        "total_warped_ms", (json_int_t) time_warped_msec()));
}

void
time_register_commands(void)
{
    unixctl_command_register("time/warp", "MSECS", 1, 1, time_unixctl_warp,
                             NULL);
}
