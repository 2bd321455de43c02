/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Applying a reloaded config to the running datapath.
 */
#include <autoconf.h>
#include "control/config-apply.h"

#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "config/config.h"
#include "config/config-check.h"
#include "config/config-diff.h"
#include "dp/dp.h"
#include "control/unixctl.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(config_apply);

/* Opens every port in 'added' (indexes into 'br''s ports) into 'opened'.
 * On failure closes the ones opened and returns the error. */
static char *
config_apply_open_ports(struct dp *dp, const struct config_bridge *br,
                        const struct config_other *other,
                        const size_t *added, size_t n,
                        struct dp_port **opened)
{
    char *error = NULL;

    for (size_t i = 0; i < n; i++) {
        opened[i] = dp_port_open(dp, &br->ports[added[i]], other, &error);
        if (!opened[i]) {
            for (size_t j = 0; j < i; j++) {
                dp_port_close(opened[j]);
            }
            return error;
        }
    }
    return NULL;
}

char *
config_apply(struct dp *dp, const struct pmd_config *old,
             const struct pmd_config *new, char **summaryp)
{
    const struct config_bridge *old_br = &old->bridges[0];
    const struct config_bridge *new_br = &new->bridges[0];
    struct config_diff diff;
    struct dp_port **opened;
    char *rule_error;
    char *error;

    *summaryp = NULL;
    error = dp_check_config(new);
    if (error) {
        return error;
    }
    error = config_diff_compute(old, new, &diff);
    if (error) {
        return error;
    }
    /* Everything that can fail comes first: opening the new ports, then
     * other_config, which changes nothing when it fails. */
    opened = xcalloc(diff.n_added_ports + 1, sizeof *opened);
    error = config_apply_open_ports(dp, new_br, &new->other,
                                    diff.added_ports, diff.n_added_ports,
                                    opened);
    if (!error) {
        error = dp_set_other(dp, &new->other);
        if (error) {
            for (size_t i = 0; i < diff.n_added_ports; i++) {
                dp_port_close(opened[i]);
            }
        }
    }
    if (!error) {
        for (size_t i = 0; i < diff.n_removed_ports; i++) {
            const char *name = old_br->ports[diff.removed_ports[i]].name;
            struct dp_port *port = dp_port_lookup(dp, name);

            if (port) {
                dp_port_remove(dp, port);
            }
        }
        /* The new config has at most DP_MAX_PORTS ports, so they fit. */
        for (size_t i = 0; i < diff.n_added_ports; i++) {
            dp_port_attach(dp, opened[i]);
        }
        *summaryp = config_diff_format(&diff, old, new);

        /* Checked by dp_check_config(); the ports it names exist now. */
        rule_error = dp_set_rules(dp, new_br);
        if (rule_error) {
            VLOG_ERR("rules not installed: %s", rule_error);
            free(rule_error);
        }
    }
    free(opened);
    config_diff_uninit(&diff);
    return error;
}

char *
config_reload(struct config_reload *r, char **summaryp)
{
    struct pmd_config *cfg;
    char *error = NULL;

    *summaryp = NULL;
    cfg = config_parse_file(r->path, &error);
    if (cfg) {
        /* Here first, for messages that name the file. */
        error = config_check_rules(cfg, r->path);
    }
    if (cfg && !error) {
        error = config_apply(r->dp, r->running, cfg, summaryp);
    }
    if (error) {
        VLOG_WARN("config reload from %s failed, nothing changed: %s",
                  r->path, error);
        config_destroy(cfg);
        return error;
    }
    VLOG_INFO("config reloaded from %s: %s", r->path, *summaryp);
    config_destroy(r->running);
    r->running = cfg;
    return NULL;
}

/* config/reload */
static void
config_unixctl_reload(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[] OVS_UNUSED, void *r_)
{
    char *summary;
    char *error = config_reload(r_, &summary);

    if (error) {
        unixctl_command_reply_error(conn, error);
        free(error);
        return;
    }
    unixctl_command_reply_text_json(conn, summary,
                                    json_pack("{s:s}", "changes", summary));
    free(summary);
}

void
config_reload_init(struct config_reload *r, struct dp *dp, const char *path,
                   struct pmd_config *running)
{
    char *abs = realpath(path, NULL);

    /* Absolute, because a detached daemon runs in "/". */
    r->dp = dp;
    r->path = abs ? abs : xstrdup(path);
    r->running = running;
    unixctl_command_register("config/reload", "", 0, 0,
                             config_unixctl_reload, r);
}

void
config_reload_uninit(struct config_reload *r)
{
    config_destroy(r->running);
    free(r->path);
}
