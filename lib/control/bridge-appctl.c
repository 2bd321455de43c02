/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Bridges and ports changed while the switch runs, with ovs-vsctl's
 * command names, arguments and options:
 *
 *   add-br [--may-exist] BRIDGE          del-br [--if-exists] BRIDGE
 *   add-port [--may-exist] BRIDGE PORT [KEY=VALUE...]
 *   del-port [--if-exists] [BRIDGE] PORT
 *   set-port PORT KEY=VALUE...           (KEY= resets KEY to its default)
 *   list-br       list-ports BRIDGE      port-to-br PORT
 *
 * A change edits a copy of the running configuration's JSON document
 * (config-edit.h) and hands it to config_change(), which validates it as
 * a config file, saves it to the config file and applies the difference
 * as a reload does: the other ports keep forwarding, and an error changes
 * nothing.  A change that leaves the configuration as it was (--may-exist,
 * --if-exists) does not touch the file.  Control thread only.
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/ds.h"
#include "base/util.h"
#include "config/config-edit.h"
#include "config/config.h"
#include "control/config-apply.h"
#include "control/unixctl.h"

/* The options a command accepts, as bits. */
enum {
    BRIDGE_CTL_MAY_EXIST = 1 << 0,
    BRIDGE_CTL_IF_EXISTS = 1 << 1,
};

/* Takes the leading "--..." words off '*argc'/'*argv' into '*opts'.
 * Returns false after replying with an error if one is not in 'allowed'
 * or if fewer than 'min_args' arguments remain. */
static bool
bridge_ctl_options(struct unixctl_conn *conn, const char *cmd, int *argc,
                   const char ***argv, unsigned int allowed, int min_args,
                   unsigned int *opts)
{
    *opts = 0;
    while (*argc > 0 && !strncmp((*argv)[0], "--", 2)) {
        const char *opt = (*argv)[0];
        unsigned int bit = (!strcmp(opt, "--may-exist")
                            ? BRIDGE_CTL_MAY_EXIST
                            : !strcmp(opt, "--if-exists")
                            ? BRIDGE_CTL_IF_EXISTS : 0);

        if (!(bit & allowed)) {
            unixctl_command_reply_errorf(conn, "%s: unknown option %s", cmd, opt);
            return false;
        }
        *opts |= bit;
        (*argc)--;
        (*argv)++;
    }
    if (*argc < min_args) {
        unixctl_command_reply_errorf(conn, "%s: missing argument (see "
                               "list-commands)", cmd);
        return false;
    }
    return true;
}

/* Replies to 'conn' for the edit of 'doc' (taken over) by command 'cmd',
 * whose result was 'error' (taken over): an error, nothing to do if
 * 'doc' still equals the running document, or else config_change(). */
static void
bridge_ctl_finish(struct unixctl_conn *conn, struct config_reload *r,
                  const char *cmd, json_t *doc, char *error)
{
    char *summary = NULL;

    if (!error && json_equal(doc, r->document)) {
        json_decref(doc);
        unixctl_command_reply_text_json(conn, "",
                                        json_pack("{s:s}", "changes",
                                                  "nothing"));
        return;
    }
    if (!error) {
        error = config_change(r, cmd, doc, &summary);
    } else {
        json_decref(doc);
    }
    if (error && strncmp(error, cmd, strlen(cmd))) {
        /* Validation errors name the command already; the others not. */
        char *msg = xasprintf("%s: %s", cmd, error);

        free(error);
        error = msg;
    }
    if (error) {
        unixctl_command_reply_error(conn, error);
    } else {
        unixctl_command_reply_text_json(conn, "",
                                        json_pack("{s:s}", "changes",
                                                  summary));
    }
    free(summary);
    free(error);
}

/* A copy of the running document to edit, or NULL after replying with an
 * error if there is none (the file was unreadable at start). */
static json_t *
bridge_ctl_document(struct unixctl_conn *conn, struct config_reload *r)
{
    if (!r->document) {
        unixctl_command_reply_errorf(conn, "%s could not be read when it was "
                               "loaded; run config/reload first", r->path);
        return NULL;
    }
    return json_deep_copy(r->document);
}

/* add-br [--may-exist] BRIDGE */
static void
bridge_ctl_add_br(struct unixctl_conn *conn, int argc, const char *argv[],
                  void *r_)
{
    unsigned int opts;
    json_t *doc;

    if (bridge_ctl_options(conn, "add-br", &argc, &argv,
                           BRIDGE_CTL_MAY_EXIST, 1, &opts)
        && (doc = bridge_ctl_document(conn, r_))) {
        bridge_ctl_finish(conn, r_, "add-br", doc,
                          argc > 1 ? xstrdup("too many arguments")
                          : config_edit_add_bridge(
                              doc, argv[0], opts & BRIDGE_CTL_MAY_EXIST));
    }
}

/* del-br [--if-exists] BRIDGE */
static void
bridge_ctl_del_br(struct unixctl_conn *conn, int argc, const char *argv[],
                  void *r_)
{
    unsigned int opts;
    json_t *doc;

    if (bridge_ctl_options(conn, "del-br", &argc, &argv,
                           BRIDGE_CTL_IF_EXISTS, 1, &opts)
        && (doc = bridge_ctl_document(conn, r_))) {
        bridge_ctl_finish(conn, r_, "del-br", doc,
                          argc > 1 ? xstrdup("too many arguments")
                          : config_edit_del_bridge(
                              doc, argv[0], opts & BRIDGE_CTL_IF_EXISTS));
    }
}

/* add-port [--may-exist] BRIDGE PORT [KEY=VALUE...] */
static void
bridge_ctl_add_port(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *r_)
{
    unsigned int opts;
    json_t *doc;

    if (bridge_ctl_options(conn, "add-port", &argc, &argv,
                           BRIDGE_CTL_MAY_EXIST, 2, &opts)
        && (doc = bridge_ctl_document(conn, r_))) {
        bridge_ctl_finish(conn, r_, "add-port", doc,
                          config_edit_add_port(doc, argv[0], argv[1],
                                               argv + 2, argc - 2,
                                               opts & BRIDGE_CTL_MAY_EXIST));
    }
}

/* del-port [--if-exists] [BRIDGE] PORT */
static void
bridge_ctl_del_port(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *r_)
{
    unsigned int opts;
    json_t *doc;

    if (bridge_ctl_options(conn, "del-port", &argc, &argv,
                           BRIDGE_CTL_IF_EXISTS, 1, &opts)
        && (doc = bridge_ctl_document(conn, r_))) {
        bridge_ctl_finish(conn, r_, "del-port", doc,
                          argc > 2 ? xstrdup("too many arguments")
                          : config_edit_del_port(
                              doc, argc == 2 ? argv[0] : NULL,
                              argv[argc - 1], opts & BRIDGE_CTL_IF_EXISTS));
    }
}

/* set-port PORT KEY=VALUE... */
static void
bridge_ctl_set_port(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *r_)
{
    unsigned int opts;
    json_t *doc;

    if (bridge_ctl_options(conn, "set-port", &argc, &argv, 0, 2, &opts)
        && (doc = bridge_ctl_document(conn, r_))) {
        bridge_ctl_finish(conn, r_, "set-port", doc,
                          config_edit_set_port(doc, argv[0], argv + 1,
                                               argc - 1));
    }
}

static int
bridge_ctl_compare_names(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;

    return strcmp(*a, *b);
}

/* Replies with the names in 'names' (an array of 'n', sorted here), one
 * per line, or with 'json' as JSON (taken over). */
static void
bridge_ctl_reply_names(struct unixctl_conn *conn, const char **names,
                       size_t n, json_t *json)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    qsort(names, n, sizeof *names, bridge_ctl_compare_names);
    for (size_t i = 0; i < n; i++) {
        ds_put_format(&s, "%s\n", names[i]);
    }
    unixctl_command_reply_text_json(conn, ds_cstr(&s), json);
    ds_destroy(&s);
}

/* list-br */
static void
bridge_ctl_list_br(struct unixctl_conn *conn, int argc OVS_UNUSED,
                   const char *argv[] OVS_UNUSED, void *r_)
{
    const struct pmd_config *cfg = ((struct config_reload *) r_)->running;
    const char **names = xcalloc(cfg->n_bridges + 1, sizeof *names);
    json_t *list = json_array();

    for (size_t i = 0; i < cfg->n_bridges; i++) {
        names[i] = cfg->bridges[i].name;
    }
    qsort(names, cfg->n_bridges, sizeof *names, bridge_ctl_compare_names);
    for (size_t i = 0; i < cfg->n_bridges; i++) {
        json_array_append_new(list, json_string(names[i]));
    }
    bridge_ctl_reply_names(conn, names, cfg->n_bridges,
                           json_pack("{s:o}", "bridges", list));
    free(names);
}

/* The running config's bridge named 'name', or NULL after replying with
 * an error. */
static const struct config_bridge *
bridge_ctl_find_bridge(struct unixctl_conn *conn, const char *cmd,
                       const struct pmd_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_bridges; i++) {
        if (!strcmp(cfg->bridges[i].name, name)) {
            return &cfg->bridges[i];
        }
    }
    unixctl_command_reply_errorf(conn, "%s: no bridge named %s", cmd, name);
    return NULL;
}

/* list-ports BRIDGE: names, or as JSON each port's object from the config
 * with "interface" filled in for every port that has one. */
static void
bridge_ctl_list_ports(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[], void *r_)
{
    struct config_reload *r = r_;
    const struct config_bridge *br;
    const char **names;
    json_t *ports;

    br = bridge_ctl_find_bridge(conn, "list-ports", r->running, argv[0]);
    if (!br) {
        return;
    }
    names = xcalloc(br->n_ports + 1, sizeof *names);
    ports = json_array();
    for (size_t i = 0; i < br->n_ports; i++) {
        const struct config_port *p = &br->ports[i];
        json_t *obj = config_edit_find_port(r->document, p->name, NULL);

        obj = obj ? json_deep_copy(obj) : json_pack("{s:s}", "name",
                                                      p->name);
        if (p->interface) {
            json_object_set_new(obj, "interface",
                                json_string(p->interface));
        }
        json_object_set_new(obj, "type", json_string(
                                config_port_type_to_string(p->type)));
        json_array_append_new(ports, obj);
        names[i] = p->name;
    }
    bridge_ctl_reply_names(conn, names, br->n_ports,
                           json_pack("{s:s, s:o}", "bridge", br->name,
                                     "ports", ports));
    free(names);
}

/* port-to-br PORT */
static void
bridge_ctl_port_to_br(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[], void *r_)
{
    const struct pmd_config *cfg = ((struct config_reload *) r_)->running;

    for (size_t i = 0; i < cfg->n_bridges; i++) {
        if (config_bridge_find_port(&cfg->bridges[i], argv[0])) {
            char *text = xasprintf("%s\n", cfg->bridges[i].name);

            unixctl_command_reply_text_json(
                conn, text, json_pack("{s:s}", "bridge",
                                      cfg->bridges[i].name));
            free(text);
            return;
        }
    }
    unixctl_command_reply_errorf(conn, "port-to-br: no port named %s", argv[0]);
}

void
bridge_ctl_register_commands(struct config_reload *r)
{
    static const struct unixctl_command_def defs[] = {
        { "add-br", "[--may-exist] BRIDGE", 1, 2, bridge_ctl_add_br },
        { "del-br", "[--if-exists] BRIDGE", 1, 2, bridge_ctl_del_br },
        { "list-br", "", 0, 0, bridge_ctl_list_br },
        { "add-port", "[--may-exist] BRIDGE PORT [KEY=VALUE...]", 2,
          INT_MAX, bridge_ctl_add_port },
        { "del-port", "[--if-exists] [BRIDGE] PORT", 1, 3,
          bridge_ctl_del_port },
        { "set-port", "PORT KEY=VALUE...", 2, INT_MAX,
          bridge_ctl_set_port },
        { "list-ports", "BRIDGE", 1, 1, bridge_ctl_list_ports },
        { "port-to-br", "PORT", 1, 1, bridge_ctl_port_to_br },
    };

    unixctl_command_register_table(defs, ARRAY_SIZE(defs), r);
}
