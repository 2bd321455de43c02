/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The difference between two validated configurations, for a reload
 * ("config/reload" or SIGHUP) that applies only what changed to the
 * running switch: ports to close, ports to open, other_config keys whose
 * value changed and whether the rule table changed.  Ports the difference
 * does not name keep forwarding untouched.
 *
 * Computing a difference has no side effects and knows nothing of the
 * datapath; config-apply decides what each entry means for it.  A
 * difference that a running switch cannot take (a bridge renamed, added or
 * removed) is an error that asks for a restart.
 *
 * All functions may be called from any thread; none keeps global state.
 */
#ifndef CONFIG_DIFF_H
#define CONFIG_DIFF_H 1

#include <stdbool.h>
#include <stddef.h>
#include "base/compiler.h"
#include "config/config.h"

/* What changed from one configuration to the next.
 *
 * Ports match by name.  A port that keeps its name but changes any setting
 * (interface, type, create, tag, trunks, members, n_rxq, bond_mode,
 * bond-rebalance-interval) is
 * "changed": it is listed in both 'removed_ports' and 'added_ports', since
 * it has to be closed and reopened.  'trunks' compare as sets (the parser
 * refuses duplicates, and the order means nothing); 'members' compare in
 * order, since a bond may prefer its first member.  A port renamed to a
 * new name with the same settings is removed and added.
 *
 * A caller applies removals before additions, because an added port may
 * take over an interface that a removed port used. */
struct config_diff {
    size_t *removed_ports;      /* Indexes into old->bridges[0].ports,
                                 * ascending. */
    size_t n_removed_ports;
    size_t *added_ports;        /* Indexes into new->bridges[0].ports,
                                 * ascending. */
    size_t n_added_ports;
    size_t n_kept_ports;        /* Same name and identical settings. */

    /* other_changed[K] is true if key K's value differs, whether or not
     * either file gave it explicitly: a key left out of a file has its
     * default value.  "pmd-cpu-mask" compares the normalised mask. */
    bool other_changed[CONFIG_OTHER_N_KEYS];
    size_t n_other_changed;     /* Number of true 'other_changed'. */

    /* True if the rule tables differ in number, order, or any rule's
     * priority, match, actions or cookie text.  Rule positions in the file
     * do not count. */
    bool rules_changed;
};

/* Compares the first bridge and the other_config of 'old' and 'new', both
 * validated by config_parse_*(), and stores the difference in 'diff' (not
 * initialised beforehand), which the caller then frees with
 * config_diff_uninit().  Returns NULL on success.
 *
 * A difference a running switch cannot take is an error: a different
 * number of bridges, a bridge renamed (bridges compare by position), or
 * any change to a bridge other than the first.  Then returns an error
 * message that says what needs a restart and why, for the caller to free,
 * with 'diff' empty.  Neither 'old' nor 'new' is modified or referenced
 * after the call. */
char *config_diff_compute(const struct pmd_config *old,
                          const struct pmd_config *new,
                          struct config_diff *diff) WARN_UNUSED_RESULT;

/* Frees what 'diff' holds and leaves it empty, so that a second call does
 * nothing.  Accepts an empty 'diff', such as one that
 * config_diff_compute() left after an error. */
void config_diff_uninit(struct config_diff *diff);

/* Returns true if 'diff' asks for no change at all: no port added,
 * removed or changed, no other_config value changed and the same rules. */
bool config_diff_is_empty(const struct config_diff *diff);

/* Returns 'diff', computed from 'old' to 'new', as one line for the log
 * and the appctl reply, for the caller to free.  The line joins with "; "
 * the parts that are not empty, in this order:
 *
 *     ports added: NAME, ...        added ports, in the order of 'new'
 *     ports removed: NAME, ...      removed ports, in the order of 'old'
 *     ports changed: NAME, ...      changed ports, in the order of 'new'
 *     other_config changed: KEY, ...  in the order of config-other.h
 *     rules changed
 *
 * A changed port appears only under "ports changed".  An empty 'diff'
 * gives "no changes". */
char *config_diff_format(const struct config_diff *diff,
                         const struct pmd_config *old,
                         const struct pmd_config *new);

#endif /* config-diff.h */
