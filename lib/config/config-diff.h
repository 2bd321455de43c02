/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The difference between two validated configurations, for a reload
 * ("config/reload" or SIGHUP) that applies only what changed to the
 * running switch: bridges to remove and add, ports to close, ports to
 * open, other_config keys whose value changed and the bridges whose rule
 * tables changed.  Ports the difference does not name keep forwarding
 * untouched.
 *
 * Computing a difference has no side effects and knows nothing of the
 * datapath; config-apply decides what each entry means for it.
 *
 * All functions may be called from any thread; none keeps global state.
 */
#ifndef CONFIG_DIFF_H
#define CONFIG_DIFF_H 1

#include <stdbool.h>
#include <stddef.h>
#include "base/compiler.h"
#include "config/config.h"

/* A port of a configuration, by position. */
struct config_diff_port {
    size_t bridge;              /* Index into the config's bridges. */
    size_t port;                /* Index into that bridge's ports. */
};

/* What changed from one configuration to the next.
 *
 * Bridges match by name: a bridge renamed is removed and added.  Ports
 * match by name too (names are unique across bridges).  A port that keeps
 * its name but moves to another bridge or changes any setting (interface,
 * type, create, tag, trunks, members, n_rxq, peer, bond_mode,
 * bond-rebalance-interval, xdp-mode, pcap, the vxlan options) is
 * "changed": it is listed in both 'removed_ports' and 'added_ports', since
 * it has to be closed and reopened.  'trunks' compare as sets (the parser refuses duplicates, and
 * the order means nothing); 'members' compare in order, since a bond may
 * prefer its first member.  The ports of a removed bridge are all in
 * 'removed_ports', those of an added bridge in 'added_ports'.
 *
 * A caller applies removals before additions, because an added port may
 * take over an interface that a removed port used. */
struct config_diff {
    size_t *removed_bridges;    /* Indexes into old->bridges, ascending. */
    size_t n_removed_bridges;
    size_t *added_bridges;      /* Indexes into new->bridges, ascending. */
    size_t n_added_bridges;
    struct config_diff_port *removed_ports; /* Ports of 'old', in order. */
    size_t n_removed_ports;
    struct config_diff_port *added_ports;   /* Ports of 'new', in order. */
    size_t n_added_ports;
    size_t n_kept_ports;        /* Same name, bridge and settings. */

    /* other_changed[K] is true if key K's value differs, whether or not
     * either file gave it explicitly: a key left out of a file has its
     * default value.  "pmd-cpu-mask" compares the normalised mask. */
    bool other_changed[CONFIG_OTHER_N_KEYS];
    size_t n_other_changed;     /* Number of true 'other_changed'. */

    /* Indexes into new->bridges of the bridges whose rule tables differ in
     * number, order, or any rule's priority, match, actions or cookie text
     * (rule positions in the file do not count), and of added bridges
     * that have rules; ascending. */
    size_t *rules_changed;
    size_t n_rules_changed;

    /* Indexes into new->bridges of the bridges whose own other_config
     * differs, and of added bridges whose settings are not the defaults;
     * ascending. */
    size_t *settings_changed;
    size_t n_settings_changed;

    /* Indexes into new->bridges of the bridges whose "mirrors" differ
     * (config_mirrors_equal()), and of added bridges with mirrors;
     * ascending. */
    size_t *mirrors_changed;
    size_t n_mirrors_changed;
};

/* Compares 'old' and 'new', both validated by config_parse_*(), and
 * stores the difference in 'diff' (not initialised beforehand), which the
 * caller then frees with config_diff_uninit().  Every difference can be
 * applied at run time, so this returns NULL; it returns an error message
 * to free, with 'diff' empty, only for a change that cannot.  Neither
 * 'old' nor 'new' is modified or referenced after the call. */
char *config_diff_compute(const struct pmd_config *old,
                          const struct pmd_config *new,
                          struct config_diff *diff) WARN_UNUSED_RESULT;

/* Frees what 'diff' holds and leaves it empty, so that a second call does
 * nothing.  Accepts an empty 'diff', such as one that
 * config_diff_compute() left after an error. */
void config_diff_uninit(struct config_diff *diff);

/* Returns true if 'diff' asks for no change at all: no bridge or port
 * added, removed or changed, no other_config value changed and the same
 * rules. */
bool config_diff_is_empty(const struct config_diff *diff);

/* Returns 'diff', computed from 'old' to 'new', as one line for the log
 * and the appctl reply, for the caller to free.  The line joins with "; "
 * the parts that are not empty, in this order:
 *
 *     bridges added: NAME, ...      in the order of 'new'
 *     bridges removed: NAME, ...    in the order of 'old'
 *     ports added: NAME, ...        added ports, in the order of 'new'
 *     ports removed: NAME, ...      removed ports, in the order of 'old'
 *     ports changed: NAME, ...      changed ports, in the order of 'new'
 *     other_config changed: KEY, ...  in the order of config-other.h
 *     rules changed: BRIDGE, ...    in the order of 'new'
 *
 * A changed port appears only under "ports changed".  An empty 'diff'
 * gives "no changes". */
char *config_diff_format(const struct config_diff *diff,
                         const struct pmd_config *old,
                         const struct pmd_config *new);

#endif /* config-diff.h */
