/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The difference between two configurations: ports matched by name and
 * compared setting by setting, other_config compared key by key, rule
 * tables compared rule by rule.  Port lookups are linear: a runtime
 * change of a switch with a thousand ports compares a million names,
 * about a millisecond.
 */
#include <autoconf.h>
#include "config/config-diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "config/config-mirror.h"
#include "config/config-vxlan.h"

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
            && config_vxlan_equal(a->vxlan, b->vxlan)
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
    case CONFIG_OTHER_MAC_TABLE_SIZE:
        return a->mac_table_size == b->mac_table_size;
    case CONFIG_OTHER_MAC_LEARN_RATE:
        return a->mac_learn_rate == b->mac_learn_rate;
    case CONFIG_OTHER_METRICS_ADDRESS:
        return !strcmp(a->metrics_address, b->metrics_address);
    case CONFIG_OTHER_GRO_ENABLE:
        return a->gro_enable == b->gro_enable;
    case CONFIG_OTHER_PMD_SLEEP_PREDICT:
        return a->pmd_sleep_predict == b->pmd_sleep_predict;
    case CONFIG_OTHER_N_KEYS:
        break;
    }
    return true;
}

/* The bridge named 'name' in 'cfg', or NULL. */
static const struct config_bridge *
find_bridge__(const struct pmd_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_bridges; i++) {
        if (!strcmp(cfg->bridges[i].name, name)) {
            return &cfg->bridges[i];
        }
    }
    return NULL;
}

/* The port named 'name' in any bridge of 'cfg', with its bridge's index in
 * '*bridgep', or NULL. */
static const struct config_port *
find_port__(const struct pmd_config *cfg, const char *name, size_t *bridgep)
{
    for (size_t i = 0; i < cfg->n_bridges; i++) {
        const struct config_port *p = config_bridge_find_port(
            &cfg->bridges[i], name);

        if (p) {
            *bridgep = i;
            return p;
        }
    }
    return NULL;
}

/* Returns true if port 'p' of bridge 'br' in one config is kept as it is
 * in 'other': same name, same bridge, same settings. */
static bool
port_kept__(const struct config_bridge *br, const struct config_port *p,
            const struct pmd_config *other)
{
    size_t b;
    const struct config_port *q = find_port__(other, p->name, &b);

    return (q && !strcmp(other->bridges[b].name, br->name)
            && port_equal__(p, q));
}

/* Appends the ports of 'cfg' that are not kept in 'other' to '*ports'. */
static void
diff_ports__(const struct pmd_config *cfg, const struct pmd_config *other,
             struct config_diff_port **ports, size_t *n, size_t *n_kept)
{
    size_t total = 0;

    for (size_t b = 0; b < cfg->n_bridges; b++) {
        total += cfg->bridges[b].n_ports;
    }
    *ports = total ? xcalloc(total, sizeof **ports) : NULL;
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_bridge *br = &cfg->bridges[b];

        for (size_t i = 0; i < br->n_ports; i++) {
            if (!port_kept__(br, &br->ports[i], other)) {
                (*ports)[(*n)++] = (struct config_diff_port) { b, i };
            } else if (n_kept) {
                (*n_kept)++;
            }
        }
    }
    /* An empty list holds no memory, so that an empty diff is all
     * zeros. */
    if (!*n) {
        free(*ports);
        *ports = NULL;
    }
}

/* Appends to '*idx' the bridges of 'cfg' that 'other' has not. */
static void
diff_bridges__(const struct pmd_config *cfg, const struct pmd_config *other,
               size_t **idx, size_t *n)
{
    *idx = NULL;
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        if (!find_bridge__(other, cfg->bridges[b].name)) {
            *idx = xrealloc(*idx, (*n + 1) * sizeof **idx);
            (*idx)[(*n)++] = b;
        }
    }
}

char *
config_diff_compute(const struct pmd_config *old,
                    const struct pmd_config *new, struct config_diff *diff)
{
    memset(diff, 0, sizeof *diff);
    diff_bridges__(old, new, &diff->removed_bridges,
                   &diff->n_removed_bridges);
    diff_bridges__(new, old, &diff->added_bridges, &diff->n_added_bridges);
    diff_ports__(old, new, &diff->removed_ports, &diff->n_removed_ports,
                 &diff->n_kept_ports);
    diff_ports__(new, old, &diff->added_ports, &diff->n_added_ports, NULL);
    for (size_t b = 0; b < new->n_bridges; b++) {
        const struct config_bridge *br = &new->bridges[b];
        const struct config_bridge *o = find_bridge__(old, br->name);

        if (o ? !rules_equal__(o, br) : br->n_rules > 0) {
            diff->rules_changed = xrealloc(
                diff->rules_changed,
                (diff->n_rules_changed + 1) * sizeof *diff->rules_changed);
            diff->rules_changed[diff->n_rules_changed++] = b;
        }
        if (o ? !config_mirrors_equal(o, br) : br->n_mirrors > 0) {
            diff->mirrors_changed = xrealloc(
                diff->mirrors_changed,
                (diff->n_mirrors_changed + 1)
                * sizeof *diff->mirrors_changed);
            diff->mirrors_changed[diff->n_mirrors_changed++] = b;
        }
        if (o ? o->forward_bpdu != br->forward_bpdu : br->forward_bpdu) {
            diff->settings_changed = xrealloc(
                diff->settings_changed,
                (diff->n_settings_changed + 1)
                * sizeof *diff->settings_changed);
            diff->settings_changed[diff->n_settings_changed++] = b;
        }
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
    free(diff->removed_bridges);
    free(diff->added_bridges);
    free(diff->removed_ports);
    free(diff->added_ports);
    free(diff->rules_changed);
    free(diff->settings_changed);
    free(diff->mirrors_changed);
    memset(diff, 0, sizeof *diff);
}

bool
config_diff_is_empty(const struct config_diff *diff)
{
    return (!diff->n_removed_bridges && !diff->n_added_bridges
            && !diff->n_removed_ports && !diff->n_added_ports
            && !diff->n_other_changed && !diff->n_rules_changed
            && !diff->n_settings_changed && !diff->n_mirrors_changed);
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

/* The name of port 'p' of 'cfg'. */
static const char *
port_name__(const struct pmd_config *cfg, struct config_diff_port p)
{
    return cfg->bridges[p.bridge].ports[p.port].name;
}

char *
config_diff_format(const struct config_diff *diff,
                   const struct pmd_config *old,
                   const struct pmd_config *new)
{
    size_t n_parts = 0;
    size_t n, size, b;
    FILE *stream;
    char *s;

    if (config_diff_is_empty(diff)) {
        return xstrdup("no changes");
    }
    stream = open_memstream(&s, &size);
    if (!stream) {
        ovs_fatal(0, "virtual memory exhausted");
    }

    n = 0;
    for (size_t i = 0; i < diff->n_added_bridges; i++) {
        format_name__(stream, "bridges added",
                      new->bridges[diff->added_bridges[i]].name, &n,
                      &n_parts);
    }
    n = 0;
    for (size_t i = 0; i < diff->n_removed_bridges; i++) {
        format_name__(stream, "bridges removed",
                      old->bridges[diff->removed_bridges[i]].name, &n,
                      &n_parts);
    }
    n = 0;
    for (size_t i = 0; i < diff->n_added_ports; i++) {
        const char *name = port_name__(new, diff->added_ports[i]);

        if (!find_port__(old, name, &b)) {
            format_name__(stream, "ports added", name, &n, &n_parts);
        }
    }
    n = 0;
    for (size_t i = 0; i < diff->n_removed_ports; i++) {
        const char *name = port_name__(old, diff->removed_ports[i]);

        if (!find_port__(new, name, &b)) {
            format_name__(stream, "ports removed", name, &n, &n_parts);
        }
    }
    n = 0;
    for (size_t i = 0; i < diff->n_added_ports; i++) {
        const char *name = port_name__(new, diff->added_ports[i]);

        if (find_port__(old, name, &b)) {
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
    n = 0;
    for (size_t i = 0; i < diff->n_rules_changed; i++) {
        format_name__(stream, "rules changed",
                      new->bridges[diff->rules_changed[i]].name, &n,
                      &n_parts);
    }
    n = 0;
    for (size_t i = 0; i < diff->n_settings_changed; i++) {
        format_name__(stream, "bridge other_config changed",
                      new->bridges[diff->settings_changed[i]].name, &n,
                      &n_parts);
    }
    n = 0;
    for (size_t i = 0; i < diff->n_mirrors_changed; i++) {
        format_name__(stream, "mirrors changed",
                      new->bridges[diff->mirrors_changed[i]].name, &n,
                      &n_parts);
    }

    if (fclose(stream)) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    return s;
}
