/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Config reload: reads the config file again, checks all of it, and
 * applies to the running datapath only the difference from the config it
 * runs (config-diff.h): ports removed, ports added, ports whose settings
 * changed reopened, other_config applied.  Ports the difference does not
 * name are not touched, so they keep forwarding.  A file that does not
 * parse or validate, or a change that cannot be made (an interface that
 * does not exist, a bad pmd-cpu-mask), changes nothing.
 *
 * Serves "config/reload" over appctl; the daemon also calls
 * config_reload() on SIGHUP.  Control thread only.
 */
#ifndef CONFIG_APPLY_H
#define CONFIG_APPLY_H 1

#include <jansson.h>

struct dp;
struct pmd_config;

/* Applies to 'dp', which runs 'old', the config 'new' (parsed and
 * validated).  Returns NULL with a one-line summary of what changed in
 * '*summaryp' (to free), or an error message (to free) with 'dp' as it
 * was: whatever the change had done so far (veth pairs created,
 * promiscuous mode set, ports opened) is undone, last first.  Should
 * undoing fail in part, the message ends with "undoing the change failed,
 * left behind: " and what is left. */
char *config_apply(struct dp *dp, const struct pmd_config *old,
                   const struct pmd_config *new, char **summaryp);

/* The running configuration and the file it lives in.  The file is the
 * source of truth: a reload also undoes other_config changes made with
 * other-config/set since.  Runtime changes (config_change()) are written
 * back to it, so that a restart comes back with them. */
struct config_reload {
    struct dp *dp;
    char *path;                 /* The config file, absolute. */
    struct pmd_config *running; /* What 'dp' runs; owned. */
    json_t *document;           /* 'running' as JSON; owned. */
    char *text;                 /* The file's contents when pmdswitchd last
                                 * read or wrote it, or NULL if it could
                                 * not. */
};

/* Takes ownership of 'running', which 'dp' was built from out of the file
 * at 'path', and registers "config/reload". */
void config_reload_init(struct config_reload *, struct dp *dp,
                        const char *path, struct pmd_config *running);
void config_reload_uninit(struct config_reload *);

/* Reloads the file; same results as config_apply().  Logs the outcome. */
char *config_reload(struct config_reload *, char **summaryp);

/* Makes 'doc' (taken over) the running configuration: validates it as the
 * file would be, with error messages that start with 'what' (a command
 * name) instead of a file position, writes it to the config file (a new
 * file renamed over the old one), and applies the difference as a reload
 * does.  Changes nothing and returns an error message to free if 'doc' is
 * invalid, if it cannot be applied, if the file cannot be written, or if
 * the file was changed on disk since pmdswitchd last read or wrote it
 * (the edit would be lost: config/reload takes it first).  On success
 * returns NULL with a summary in '*summaryp'.  Control thread. */
char *config_change(struct config_reload *, const char *what, json_t *doc,
                    char **summaryp);

#endif /* config-apply.h */
