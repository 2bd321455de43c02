/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * vlog/list, vlog/set and vlog/reopen: the appctl face of the logging module
 * (base/vlog.h), which knows nothing of appctl itself.
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/vlog.h"
#include "control/unixctl.h"
#include "base/util.h"

/* Adds module 'name' with 'levels' to the JSON object 'object_', as
 * {"console": LEVEL, "syslog": LEVEL, "file": LEVEL}. */
static void
add_module_json__(const char *name, const enum vlog_level *levels,
                  void *object_)
{
    /* The level names of vlog/set specifications, as users type them. */
    static const char *const json_level_names[VLL_N_LEVELS] = {
        [VLL_OFF] = "off",
        [VLL_EMER] = "emer",
        [VLL_ERR] = "err",
        [VLL_WARN] = "warn",
        [VLL_INFO] = "info",
        [VLL_DBG] = "dbg",
    };
    json_t *module = json_object();

    for (int d = 0; d < VLF_N_DESTINATIONS; d++) {
        json_object_set_new(module, vlog_get_destination_name(d),
                            json_string(json_level_names[levels[d]]));
    }
    json_object_set_new(object_, name, module);
}

/* Returns every module's levels as a JSON object, module name to
 * {"console": LEVEL, "syslog": LEVEL, "file": LEVEL}. */
static json_t *
modules_json__(void)
{
    json_t *object = json_object();

    vlog_for_each_module(add_module_json__, object);
    return object;
}

/* vlog/list */
static void
vlog_unixctl_list(struct unixctl_conn *conn, int argc OVS_UNUSED,
                  const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    char *text = vlog_list();

    unixctl_command_reply_text_json(conn, text, modules_json__());
    free(text);
}

/* vlog/set SPEC... */
static void
vlog_unixctl_set(struct unixctl_conn *conn, int argc, const char *argv[],
                 void *aux OVS_UNUSED)
{
    json_t *before = modules_json__();
    json_t *after, *changed, *levels;
    const char *name;

    for (int i = 0; i < argc; i++) {
        char *error = vlog_set_levels_from_string(argv[i]);

        if (error) {
            unixctl_command_reply_error(conn, error);
            free(error);
            json_decref(before);
            return;
        }
    }

    after = modules_json__();
    changed = json_object();
    json_object_foreach (after, name, levels) {
        if (!json_equal(levels, json_object_get(before, name))) {
            json_object_set(changed, name, levels);
        }
    }
    json_decref(before);
    json_decref(after);
    unixctl_command_reply_text_json(conn, "", changed);
}

/* vlog/reopen: after logrotate has moved the log file away, starts a new
 * one under the same name. */
static void
vlog_unixctl_reopen(struct unixctl_conn *conn, int argc OVS_UNUSED,
                    const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    char *name = vlog_get_log_file();
    int error;

    if (!name) {
        unixctl_command_reply_error(conn, "logging to a file is not "
                                    "enabled (start with --log-file)");
        return;
    }
    error = vlog_reopen_log_file();
    if (error) {
        char *msg = xasprintf("%s: cannot reopen: %s", name,
                              strerror(error));

        unixctl_command_reply_error(conn, msg);
        free(msg);
    } else {
        unixctl_command_reply(conn, "");
    }
    free(name);
}

void
vlog_register_commands(void)
{
    unixctl_command_register("vlog/list", "", 0, 0, vlog_unixctl_list,
                             NULL);
    unixctl_command_register("vlog/set", "{ANY|MODULE}[:DEST][:LEVEL]...", 1,
                             INT_MAX, vlog_unixctl_set, NULL);
    unixctl_command_register("vlog/reopen", "", 0, 0, vlog_unixctl_reopen,
                             NULL);
}
