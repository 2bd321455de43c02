/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The difference between two configurations: ports matched by name and
 * compared setting by setting, other_config compared key by key, rule
 * tables compared rule by rule.  Port lookups are linear, which is fine for
 * the few hundred ports a bridge holds.
 */
#include <autoconf.h>
#include "config/config-diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

/* Returns true if 'a' and 'b' are equal strings or both NULL. */
static bool
str_equal__(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

/* Returns true if 'a' and 'b' trunk the same set of VLANs.  Relies on the
 * parser: no VLAN appears twice and each is in 1..4094. */
static bool
trunks_equal__(const struct config_port *a, const struct config_port *b)
{
    bool in_a[4096] = { false };

    if (a->n_trunks != b->n_trunks) {
        return false;
    }
    for (size_t i = 0; i < a->n_trunks; i++) {
        in_a[a->trunks[i] & 4095] = true;
    }
    for (size_t i = 0; i < b->n_trunks; i++) {
        if (!in_a[b->trunks[i] & 4095]) {
            return false;
        }
    }
    return true;
}

/* Returns true if bond members 'a' and 'b' list the same interfaces in the
 * same order. */
static bool
members_equal__(const struct config_port *a, const struct config_port *b)
{
    if (a->n_members != b->n_members) {
        return false;
    }
    for (size_t i = 0; i < a->n_members; i++) {
        if (strcmp(a->members[i], b->members[i])) {
            return false;
        }
    }
    return true;
}

/* Returns true if ports 'a' and 'b' have identical settings, names
 * aside. */
static bool
port_equal__(const struct config_port *a, const struct config_port *b)
{
    return (str_equal__(a->interface, b->interface)
            && a->type == b->type
            && a->create == b->create
            && a->vlan_mode == b->vlan_mode
            && a->tag == b->tag
            && trunks_equal__(a, b)
            && members_equal__(a, b)
            && a->n_rxq == b->n_rxq
            && str_equal__(a->peer, b->peer)
            && str_equal__(a->bond_mode, b->bond_mode)
            && str_equal__(a->xdp_mode, b->xdp_mode)
            && str_equal__(a->pcap, b->pcap)
            && a->bond_rebalance_interval == b->bond_rebalance_interval);
}

static bool
rule_equal__(const struct config_rule *a, const struct config_rule *b)
{
    return (a->priority == b->priority
            && a->cookie == b->cookie
            && str_equal__(a->match, b->match)
            && str_equal__(a->actions, b->actions));
}

static bool
rules_equal__(const struct config_bridge *a, const struct config_bridge *b)
{
    if (a->n_rules != b->n_rules) {
        return false;
    }
    for (size_t i = 0; i < a->n_rules; i++) {
        if (!rule_equal__(&a->rules[i], &b->rules[i])) {
            return false;
        }
    }
    return true;
}

/* Returns true if 'a' and 'b' have the same ports, whatever their order,
 * and the same rules. */
static bool
bridge_equal__(const struct config_bridge *a, const struct config_bridge *b)
{
    if (a->n_ports != b->n_ports || !rules_equal__(a, b)) {
        return false;
    }
    for (size_t i = 0; i < b->n_ports; i++) {
        const struct config_port *p = config_bridge_find_port(
            a, b->ports[i].name);

        if (!p || !port_equal__(p, &b->ports[i])) {
            return false;
        }
    }
    return true;
}

/* Returns true if 'key' has the same value in 'a' and 'b'.  Without a
 * default case, a new key that is missing here fails the build. */
static bool
other_equal__(const struct config_other *a, const struct config_other *b,
              enum config_other_key key)
{
    switch (key) {
    case CONFIG_OTHER_PMD_CPU_MASK:
        return !strcmp(a->pmd_cpu_mask, b->pmd_cpu_mask);
    case CONFIG_OTHER_USE_TPACKET_V3:
        return a->use_tpacket_v3 == b->use_tpacket_v3;
    case CONFIG_OTHER_EMC_INSERT_INV_PROB:
        return a->emc_insert_inv_prob == b->emc_insert_inv_prob;
    case CONFIG_OTHER_SMC_ENABLE:
        return a->smc_enable == b->smc_enable;
    case CONFIG_OTHER_USERSPACE_TSO_ENABLE:
        return a->userspace_tso_enable == b->userspace_tso_enable;
    case CONFIG_OTHER_PMD_SLEEP_MAX:
        return a->pmd_sleep_max == b->pmd_sleep_max;
    case CONFIG_OTHER_TX_FLUSH_INTERVAL:
        return a->tx_flush_interval == b->tx_flush_interval;
    case CONFIG_OTHER_PMD_RXQ_ASSIGN:
        return a->pmd_rxq_assign == b->pmd_rxq_assign;
    case CONFIG_OTHER_BOND_REBALANCE_INTERVAL:
        return a->bond_rebalance_interval == b->bond_rebalance_interval;
    case CONFIG_OTHER_MAC_AGING_TIME:
        return a->mac_aging_time == b->mac_aging_time;
    case CONFIG_OTHER_FLOW_IDLE_TIMEOUT:
        return a->flow_idle_timeout == b->flow_idle_timeout;
    case CONFIG_OTHER_FLOW_LIMIT:
        return a->flow_limit == b->flow_limit;
    case CONFIG_OTHER_N_KEYS:
        break;
    }
    return true;
}

/* Returns NULL if the bridges of 'old' and 'new' can be reconfigured in
 * place, otherwise an error message for the caller to free. */
static char *
check_bridges__(const struct pmd_config *old, const struct pmd_config *new)
{
    if (old->n_bridges != new->n_bridges) {
        return xasprintf("changing the number of bridges from %zu to %zu "
                         "needs a restart: bridges are created only at "
                         "start-up", old->n_bridges, new->n_bridges);
    }
    for (size_t i = 0; i < new->n_bridges; i++) {
        const struct config_bridge *a = &old->bridges[i];
        const struct config_bridge *b = &new->bridges[i];

        if (strcmp(a->name, b->name)) {
            return xasprintf("renaming bridge %s to %s needs a restart: a "
                             "running bridge keeps its name", a->name,
                             b->name);
        }
        if (i > 0 && !bridge_equal__(a, b)) {
            return xasprintf("changing bridge %s needs a restart: only the "
                             "first bridge, %s, is reconfigured at run time",
                             b->name, new->bridges[0].name);
        }
    }
    return NULL;
}

/* Stores in 'diff' the ports of 'old_br' and 'new_br' that differ. */
static void
diff_ports__(const struct config_bridge *old_br,
             const struct config_bridge *new_br, struct config_diff *diff)
{
    diff->removed_ports = xcalloc(old_br->n_ports,
                                  sizeof *diff->removed_ports);
    diff->added_ports = xcalloc(new_br->n_ports, sizeof *diff->added_ports);

    for (size_t i = 0; i < old_br->n_ports; i++) {
        const struct config_port *o = &old_br->ports[i];
        const struct config_port *n = config_bridge_find_port(new_br,
                                                              o->name);

        if (!n || !port_equal__(o, n)) {
            diff->removed_ports[diff->n_removed_ports++] = i;
        } else {
            diff->n_kept_ports++;
        }
    }
    for (size_t i = 0; i < new_br->n_ports; i++) {
        const struct config_port *n = &new_br->ports[i];
        const struct config_port *o = config_bridge_find_port(old_br,
                                                              n->name);

        if (!o || !port_equal__(o, n)) {
            diff->added_ports[diff->n_added_ports++] = i;
        }
    }

    /* An empty list holds no memory, so that an empty diff is all
     * zeros. */
    if (!diff->n_removed_ports) {
        free(diff->removed_ports);
        diff->removed_ports = NULL;
    }
    if (!diff->n_added_ports) {
        free(diff->added_ports);
        diff->added_ports = NULL;
    }
}

char *
config_diff_compute(const struct pmd_config *old,
                    const struct pmd_config *new, struct config_diff *diff)
{
    char *error;

    memset(diff, 0, sizeof *diff);
    error = check_bridges__(old, new);
    if (error) {
        return error;
    }

    if (new->n_bridges) {
        diff_ports__(&old->bridges[0], &new->bridges[0], diff);
        diff->rules_changed = !rules_equal__(&old->bridges[0],
                                             &new->bridges[0]);
    }
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        if (!other_equal__(&old->other, &new->other, k)) {
            diff->other_changed[k] = true;
            diff->n_other_changed++;
        }
    }
    return NULL;
}

void
config_diff_uninit(struct config_diff *diff)
{
    free(diff->removed_ports);
    free(diff->added_ports);
    memset(diff, 0, sizeof *diff);
}

bool
config_diff_is_empty(const struct config_diff *diff)
{
    return (!diff->n_removed_ports && !diff->n_added_ports
            && !diff->n_other_changed && !diff->rules_changed);
}

/* Appends to 'stream' the heading 'title' of a list of names, or, after
 * the first name of a list, a separator.  '*n' counts the names of the
 * current list and '*n_parts' the lists written so far. */
static void
format_name__(FILE *stream, const char *title, const char *name, size_t *n,
              size_t *n_parts)
{
    if (!*n) {
        fprintf(stream, "%s%s: ", *n_parts ? "; " : "", title);
        (*n_parts)++;
    } else {
        fputs(", ", stream);
    }
    fputs(name, stream);
    (*n)++;
}

char *
config_diff_format(const struct config_diff *diff,
                   const struct pmd_config *old,
                   const struct pmd_config *new)
{
    const struct config_bridge *old_br;
    const struct config_bridge *new_br;
    size_t n_parts = 0;
    size_t n, size;
    FILE *stream;
    char *s;

    if (config_diff_is_empty(diff)) {
        return xstrdup("no changes");
    }
    stream = open_memstream(&s, &size);
    if (!stream) {
        ovs_fatal(0, "virtual memory exhausted");
    }

    /* Port indexes exist only if both configs have a first bridge. */
    old_br = old->n_bridges ? &old->bridges[0] : NULL;
    new_br = new->n_bridges ? &new->bridges[0] : NULL;

    n = 0;
    for (size_t i = 0; i < diff->n_added_ports; i++) {
        const char *name = new_br->ports[diff->added_ports[i]].name;

        if (!config_bridge_find_port(old_br, name)) {
            format_name__(stream, "ports added", name, &n, &n_parts);
        }
    }
    n = 0;
    for (size_t i = 0; i < diff->n_removed_ports; i++) {
        const char *name = old_br->ports[diff->removed_ports[i]].name;

        if (!config_bridge_find_port(new_br, name)) {
            format_name__(stream, "ports removed", name, &n, &n_parts);
        }
    }
    n = 0;
    for (size_t i = 0; i < diff->n_added_ports; i++) {
        const char *name = new_br->ports[diff->added_ports[i]].name;

        if (config_bridge_find_port(old_br, name)) {
            format_name__(stream, "ports changed", name, &n, &n_parts);
        }
    }
    n = 0;
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        if (diff->other_changed[k]) {
            format_name__(stream, "other_config changed",
                          config_other_key_name(k), &n, &n_parts);
        }
    }
    if (diff->rules_changed) {
        fprintf(stream, "%srules changed", n_parts ? "; " : "");
    }

    if (fclose(stream)) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    return s;
}
