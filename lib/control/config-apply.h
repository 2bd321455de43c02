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
 * The file is the source of truth: a reload also undoes other_config
 * changes made with other-config/set since.
 *
 * Serves "config/reload" over appctl; the daemon also calls
 * config_reload() on SIGHUP.  Control thread only.
 */
#ifndef CONFIG_APPLY_H
#define CONFIG_APPLY_H 1

struct dp;
struct pmd_config;

/* Applies to 'dp', which runs 'old', the config 'new' (parsed and
 * validated).  Returns NULL with a one-line summary of what changed in
 * '*summaryp' (to free), or an error message (to free) with 'dp' as it
 * was. */
char *config_apply(struct dp *dp, const struct pmd_config *old,
                   const struct pmd_config *new, char **summaryp);

struct config_reload {
    struct dp *dp;
    char *path;                 /* The config file. */
    struct pmd_config *running; /* What 'dp' runs; owned. */
};

/* Takes ownership of 'running', which 'dp' was built from, and registers
 * "config/reload". */
void config_reload_init(struct config_reload *, struct dp *dp,
                        const char *path, struct pmd_config *running);
void config_reload_uninit(struct config_reload *);

/* Reloads the file; same results as config_apply().  Logs the outcome. */
char *config_reload(struct config_reload *, char **summaryp);

#endif /* config-apply.h */
