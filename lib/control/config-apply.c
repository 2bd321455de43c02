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

#include "base/atomic-file.h"
#include "base/ds.h"
#include "config/config.h"
#include "config/config-check.h"
#include "config/config-diff.h"
#include "config/config-mirror.h"
#include "dp/dp.h"
#include "ofproto/mirror.h"
#include "control/unixctl.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(config_apply);

/* In an error message from config_apply(): what follows could not be
 * undone. */
#define CONFIG_APPLY_LEFT_BEHIND "undoing the change failed, left behind"

/* Undoes the opening of the first 'n' ports in 'opened', last first.
 * Returns 'error' (taken over), extended with what could not be undone. */
static char *
config_apply_discard_ports(struct dp_port **opened, size_t n, char *error)
{
    struct ds problems = DS_EMPTY_INITIALIZER;
    char *msg;

    while (n-- > 0) {
        char *problem = dp_port_discard(opened[n]);

        if (problem) {
            ds_put_format(&problems, "%s%s", problems.length ? "; " : "",
                          problem);
            free(problem);
        }
    }
    if (!problems.length) {
        return error;
    }
    msg = xasprintf("%s; " CONFIG_APPLY_LEFT_BEHIND ": %s", error,
                    ds_cstr(&problems));
    ds_destroy(&problems);
    free(error);
    return msg;
}

/* Opens every port of 'new' in 'added' (an array of 'n') into 'opened'.
 * On failure undoes the ones opened and returns the error. */
static char *
config_apply_open_ports(struct dp *dp, const struct pmd_config *new,
                        const struct config_diff_port *added, size_t n,
                        struct dp_port **opened)
{
    char *error = NULL;

    for (size_t i = 0; i < n; i++) {
        const struct config_bridge *br = &new->bridges[added[i].bridge];

        opened[i] = dp_port_open(dp, &br->ports[added[i].port], &new->other,
                                 &error);
        if (!opened[i]) {
            return config_apply_discard_ports(opened, i, error);
        }
    }
    return NULL;
}

/* Removes from 'dp' the ports and then the bridges that 'diff' removes
 * from 'old'.  A removed port's interface that one of the 'n_opened' ports
 * in 'opened' takes over stays: it is handed over. */
static void
config_apply_removals(struct dp *dp, const struct pmd_config *old,
                      const struct config_diff *diff,
                      struct dp_port **opened, size_t n_opened)
{
    for (size_t i = 0; i < diff->n_removed_ports; i++) {
        const struct config_diff_port *r = &diff->removed_ports[i];
        const char *name = old->bridges[r->bridge].ports[r->port].name;
        struct dp_port *port = dp_port_lookup(dp, name);

        if (!port) {
            continue;
        }
        for (size_t j = 0; j < n_opened; j++) {
            if (port->ifname[0] && !strcmp(opened[j]->ifname, port->ifname)) {
                dp_port_hand_over(dp, port, opened[j]);
            }
        }
        dp_port_remove(dp, port);
    }
    for (size_t i = 0; i < diff->n_removed_bridges; i++) {
        const char *name = old->bridges[diff->removed_bridges[i]].name;
        struct ofproto *bridge = dp_bridge_lookup(dp, name);

        if (bridge) {
            dp_bridge_remove(dp, bridge);
        }
    }
}

/* Looks up the 'n' ports 'names' of 'bridge' into 'ports'; a port that
 * is not there (checked before, so never) is left out.  Returns how many
 * it found. */
static size_t
config_apply_mirror_ports(struct dp *dp, const struct ofproto *bridge,
                          char **names, size_t n, uint16_t *ports)
{
    size_t n_found = 0;

    for (size_t i = 0; i < n; i++) {
        if (dp_bridge_port_lookup(dp, bridge, names[i], &ports[n_found])) {
            n_found++;
        }
    }
    return n_found;
}

/* Gives the bridge of 'br' the mirrors of 'br', by port numbers. */
static void
config_apply_mirrors(struct dp *dp, const struct config_bridge *br)
{
    struct ofproto *bridge = dp_bridge_lookup(dp, br->name);
    struct mirror_settings *s = xcalloc(br->n_mirrors + 1, sizeof *s);
    size_t n = 0;

    for (size_t i = 0; bridge && i < br->n_mirrors; i++) {
        const struct config_mirror *m = &br->mirrors[i];
        uint16_t *srcs = xcalloc(m->n_srcs + 1, sizeof *srcs);
        uint16_t *dsts = xcalloc(m->n_dsts + 1, sizeof *dsts);

        s[n] = (struct mirror_settings) {
            .name = m->name,
            .select_all = m->select_all,
            .srcs = srcs,
            .n_srcs = config_apply_mirror_ports(dp, bridge, m->srcs,
                                                m->n_srcs, srcs),
            .dsts = dsts,
            .n_dsts = config_apply_mirror_ports(dp, bridge, m->dsts,
                                                m->n_dsts, dsts),
            .vlans = m->vlans,
            .n_vlans = m->n_vlans,
        };
        if (dp_bridge_port_lookup(dp, bridge, m->output_port,
                                  &s[n].out_port)) {
            n++;
        } else {
            free(srcs);
            free(dsts);
        }
    }
    if (bridge && ofproto_set_mirrors(bridge, s, n)) {
        VLOG_ERR("bridge %s: mirrors not installed", br->name);
    }
    for (size_t i = 0; i < n; i++) {
        free((uint16_t *) s[i].srcs);
        free((uint16_t *) s[i].dsts);
    }
    free(s);
}

/* Adds to 'dp' the bridges and then the ports ('opened', in the order of
 * diff->added_ports) that 'diff' adds to 'new', and gives every bridge of
 * 'new' with rules its rule table again, since port numbers may have
 * changed, as well as every bridge whose rules rule/add or rule/del
 * changed: those bridges' names go into 'resets'. */
static void
config_apply_additions(struct dp *dp, const struct pmd_config *new,
                       const struct config_diff *diff,
                       struct dp_port **opened, struct ds *resets)
{
    for (size_t i = 0; i < diff->n_added_bridges; i++) {
        /* dp_check_config() has checked that they fit. */
        dp_bridge_add(dp, new->bridges[diff->added_bridges[i]].name);
    }
    for (size_t i = 0; i < diff->n_added_ports; i++) {
        const struct config_bridge *br =
            &new->bridges[diff->added_ports[i].bridge];

        /* The new config has at most DP_MAX_PORTS ports, so they fit. */
        dp_port_attach(dp, opened[i], dp_bridge_lookup(dp, br->name));
    }
    for (size_t b = 0; b < new->n_bridges; b++) {
        ofproto_set_forward_bpdu(dp_bridge_lookup(dp, new->bridges[b].name),
                                 new->bridges[b].forward_bpdu);
    }
    for (size_t b = 0; b < new->n_bridges; b++) {
        const struct config_bridge *br = &new->bridges[b];
        struct ofproto *bridge = dp_bridge_lookup(dp, br->name);
        bool changed = false;

        for (size_t i = 0; i < diff->n_mirrors_changed; i++) {
            changed |= diff->mirrors_changed[i] == b;
        }
        if (br->n_mirrors || changed) {
            /* Port numbers may have changed too. */
            config_apply_mirrors(dp, br);
        }
        changed = false;
        for (size_t i = 0; i < diff->n_rules_changed; i++) {
            changed |= diff->rules_changed[i] == b;
        }
        if (!changed && ofproto_get_rules_edited(bridge)) {
            /* rule/add and rule/del last until the config is applied. */
            changed = true;
            ds_put_format(resets, "%s%s", resets->length ? ", " : "",
                          br->name);
        }
        if (br->n_rules || changed) {
            /* Checked by dp_check_config(); the ports it names exist. */
            char *error = dp_set_rules(dp, br);

            if (error) {
                VLOG_ERR("bridge %s: rules not installed: %s", br->name,
                         error);
                free(error);
            }
        }
    }
}

char *
config_apply(struct dp *dp, const struct pmd_config *old,
             const struct pmd_config *new, char **summaryp)
{
    struct config_diff diff;
    struct dp_port **opened;
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
    error = config_apply_open_ports(dp, new, diff.added_ports,
                                    diff.n_added_ports, opened);
    if (!error) {
        error = dp_set_other(dp, &new->other);
        if (error) {
            error = config_apply_discard_ports(opened, diff.n_added_ports,
                                               error);
        }
    }
    if (!error) {
        struct ds resets = DS_EMPTY_INITIALIZER;

        config_apply_removals(dp, old, &diff, opened, diff.n_added_ports);
        config_apply_additions(dp, new, &diff, opened, &resets);
        *summaryp = config_diff_format(&diff, old, new);
        if (resets.length) {
            bool none = !strcmp(*summaryp, "no changes");
            char *summary = xasprintf("%s%srules added or deleted at run "
                                      "time replaced by the config's on "
                                      "%s", none ? "" : *summaryp,
                                      none ? "" : "; ", resets.string);

            free(*summaryp);
            *summaryp = summary;
        }
        ds_destroy(&resets);
    }
    free(opened);
    config_diff_uninit(&diff);
    return error;
}

/* Makes 'cfg' (parsed from 'doc', read from 'text') the running config;
 * takes all three over. */
static void
config_reload_set_running(struct config_reload *r, struct pmd_config *cfg,
                          json_t *doc, char *text)
{
    config_destroy(r->running);
    json_decref(r->document);
    free(r->text);
    r->running = cfg;
    r->document = doc;
    r->text = text;
}

char *
config_reload(struct config_reload *r, char **summaryp)
{
    struct pmd_config *cfg = NULL;
    json_t *doc = NULL;
    char *error = NULL;
    char *text = NULL;
    size_t size;

    *summaryp = NULL;
    error = config_file_read(r->path, &text, &size);
    if (!error) {
        cfg = config_parse_string(text, r->path, &error);
    }
    if (cfg) {
        /* Here first, for messages that name the file. */
        error = config_check_rules(cfg, r->path);
    }
    if (cfg && !error) {
        error = config_apply(r->dp, r->running, cfg, summaryp);
    }
    if (!error) {
        doc = config_load_json(text, size, r->path, &error);
    }
    if (error) {
        /* config_apply() says so if it could not undo everything. */
        VLOG_WARN("config reload from %s failed, %s: %s", r->path,
                  strstr(error, CONFIG_APPLY_LEFT_BEHIND)
                  ? "undone in part" : "nothing changed", error);
        config_destroy(cfg);
        free(text);
        return error;
    }
    VLOG_INFO("config reloaded from %s: %s", r->path, *summaryp);
    config_reload_set_running(r, cfg, doc, text);
    return NULL;
}

/* Returns NULL if the config file still holds what pmdswitchd last read
 * or wrote, else an error to free. */
static char *
config_check_unedited(const struct config_reload *r)
{
    char *error, *text;
    bool same;
    size_t size;

    if (!r->text) {
        return xasprintf("%s could not be read when it was loaded; run "
                         "config/reload first", r->path);
    }
    error = config_file_read(r->path, &text, &size);
    if (error) {
        char *msg = xasprintf("cannot check the config file: %s", error);

        free(error);
        return msg;
    }
    same = size == strlen(r->text) && !memcmp(text, r->text, size);
    free(text);
    if (!same) {
        return xasprintf("%s was changed since pmdswitchd last read or "
                         "wrote it, and this change would overwrite that "
                         "edit; run config/reload to take the edit (or "
                         "undo it) first", r->path);
    }
    return NULL;
}

char *
config_change(struct config_reload *r, const char *what, json_t *doc,
              char **summaryp)
{
    struct atomic_file *af = NULL;
    struct pmd_config *cfg;
    char *error, *text;

    *summaryp = NULL;
    error = config_check_unedited(r);
    if (error) {
        json_decref(doc);
        return error;
    }
    cfg = config_parse_json(doc, what, &error);
    if (cfg) {
        error = config_check_rules(cfg, what);
    }
    text = json_dumps(doc, JSON_INDENT(2));
    text = xrealloc(text, strlen(text) + 2);
    strcat(text, "\n");
    if (!error) {
        char *why = NULL;

        af = atomic_file_prepare(r->path, text, strlen(text), &why);
        if (!af) {
            error = xasprintf("cannot save the change: %s", why);
            free(why);
        }
    }
    if (!error) {
        error = config_apply(r->dp, r->running, cfg, summaryp);
    }
    if (error) {
        atomic_file_abort(af);
        config_destroy(cfg);
        json_decref(doc);
        free(text);
        return error;
    }
    error = atomic_file_commit(af);
    if (error) {
        /* Applied, but a restart would not have it: say so loudly. */
        VLOG_ERR("%s: applied but not saved: %s", what, error);
        free(text);
        text = NULL;
    }
    VLOG_INFO("%s: %s", what, *summaryp);
    config_reload_set_running(r, cfg, doc, text);
    return error;
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
    char *error;
    size_t size;

    /* Absolute, because a detached daemon runs in "/". */
    r->dp = dp;
    r->path = abs ? abs : xstrdup(path);
    r->running = running;
    /* dp_create() made the bridges, ports and rules of 'running'; the
     * mirrors come with the rest of the running config. */
    for (size_t b = 0; b < running->n_bridges; b++) {
        if (running->bridges[b].n_mirrors) {
            config_apply_mirrors(dp, &running->bridges[b]);
        }
    }
    r->document = NULL;
    r->text = NULL;
    error = config_file_read(r->path, &r->text, &size);
    if (!error) {
        r->document = config_load_json(r->text, size, r->path, &error);
    }
    if (error) {
        /* Runtime changes then refuse until a reload succeeds. */
        VLOG_WARN("%s", error);
        free(error);
        free(r->text);
        r->text = NULL;
    }
    unixctl_command_register("config/reload", "", 0, 0,
                             config_unixctl_reload, r);
}

void
config_reload_uninit(struct config_reload *r)
{
    config_destroy(r->running);
    json_decref(r->document);
    free(r->text);
    free(r->path);
}
