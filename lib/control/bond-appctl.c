/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The appctl commands of the datapath's bonds, with Open vSwitch's names,
 * arguments and replies: bond/show [PORT], bond/set-active-member PORT
 * MEMBER, bond/enable-member PORT MEMBER and bond/disable-member PORT
 * MEMBER.  The bond module keeps the state and formats it; this file finds
 * the bond, and tells the slow path when the active member changes.
 * Control thread only.
 */
#include <autoconf.h>
#include "control/appctl.h"
#include "dp/dp.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "ofproto/bond.h"
#include "control/unixctl.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(bond_commands);

/* Returns the bond port called 'name', or replies "no such bond" and
 * returns NULL. */
static struct dp_port *
bond_commands_find(struct unixctl_conn *conn, struct dp *dp,
                   const char *name)
{
    struct dp_port *port = dp_bond_lookup(dp, name);

    if (!port) {
        unixctl_command_reply_error(conn, "no such bond");
    }
    return port;
}

/* bond/show [PORT]: every bond (a JSON array), or bond PORT (an
 * object). */
static void
bond_commands_show(struct unixctl_conn *conn, int argc, const char *argv[],
                   void *dp_)
{
    struct dp *dp = dp_;
    long long now = time_msec();
    char *text;
    json_t *json;

    if (argc > 0) {
        struct dp_port *port = bond_commands_find(conn, dp, argv[0]);

        if (!port) {
            return;
        }
        text = bond_show(port->bond, now);
        json = bond_show_json(port->bond, now);
    } else {
        text = xstrdup("");
        json = json_array();
        for (int i = 0; i < DP_MAX_PORTS; i++) {
            struct dp_port *port = dp->ports[i];
            char *one, *both;

            if (!port || !port->bond) {
                continue;
            }
            one = bond_show(port->bond, now);
            both = xasprintf("%s%s", text, one);
            free(one);
            free(text);
            text = both;
            json_array_append_new(json, bond_show_json(port->bond, now));
        }
    }
    unixctl_command_reply_text_json(conn, text, json);
    free(text);
}

/* bond/set-active-member PORT MEMBER. */
static void
bond_commands_set_active(struct unixctl_conn *conn, int argc OVS_UNUSED,
                         const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct dp_port *port = bond_commands_find(conn, dp, argv[0]);
    const char *error = NULL;
    bool changed = false;

    if (!port) {
        return;
    }
    if (bond_set_active_member(port->bond, argv[1], &changed, &error)) {
        unixctl_command_reply_error(conn, error);
        return;
    }
    if (changed) {
        dp_bond_sync(dp, port);
        VLOG_INFO("bond %s: member %s made active by bond/set-active-member",
                  port->name, argv[1]);
    }
    unixctl_command_reply(conn, changed ? "done" : "no change");
}

/* bond/enable-member ('enable') and bond/disable-member PORT MEMBER. */
static void
bond_commands_set_admin(struct unixctl_conn *conn, const char *argv[],
                        struct dp *dp, bool enable)
{
    struct dp_port *port = bond_commands_find(conn, dp, argv[0]);

    if (!port) {
        return;
    }
    if (bond_member_set_admin(port->bond, argv[1], enable)) {
        unixctl_command_reply_error(conn, "no such member");
        return;
    }
    dp_bond_sync(dp, port);
    VLOG_INFO("bond %s: member %s %s by appctl", port->name, argv[1],
              enable ? "enabled" : "disabled");
    unixctl_command_reply(conn, enable ? "enabled" : "disabled");
}

static void
bond_commands_enable(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[], void *dp_)
{
    bond_commands_set_admin(conn, argv, dp_, true);
}

static void
bond_commands_disable(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[], void *dp_)
{
    bond_commands_set_admin(conn, argv, dp_, false);
}

void
bond_register_commands(struct dp *dp)
{
    static const struct unixctl_command_def commands[] = {
        { "bond/show", "[PORT]", 0, 1, bond_commands_show },
        { "bond/set-active-member", "PORT MEMBER", 2, 2,
          bond_commands_set_active },
        { "bond/enable-member", "PORT MEMBER", 2, 2, bond_commands_enable },
        { "bond/disable-member", "PORT MEMBER", 2, 2,
          bond_commands_disable },
    };

    unixctl_command_register_table(commands, ARRAY_SIZE(commands), dp);
}
