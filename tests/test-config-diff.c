/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for lib/config-diff: a table of old and new configuration texts,
 * each parsed with config_parse_string(), with the ports, other_config keys
 * bridges and rules the difference must name, and the exact one-line
 * summary; bridges added, removed and renamed, and ports that move between
 * bridges, among them.  Every port setting and
 * every rule field is changed on its own, next to edits that must not
 * count (ports or trunks reordered, a default written out or left out, a
 * CPU mask spelled differently, a rule moved to another line).
 */
#include <autoconf.h>
#include "config/config-diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "base/util.h"

/* The configuration texts use ' for " to stay readable; parse_config()
 * swaps them back. */
#define P1 "{'name': 'p1', 'interface': 'veth-a'}"
#define P2 "{'name': 'p2', 'interface': 'veth-b', 'options': {'n_rxq': 2}}"
#define VM1 "{'name': 'vm1', 'interface': 'tap-vm1', 'type': 'tap', " \
    "'create': true}"
#define P3 "{'name': 'p3', 'interface': 'veth-c', 'tag': 10}"
#define UP0 "{'name': 'up0', 'type': 'bond', 'members': ['veth-d', " \
    "'veth-e'], 'trunks': [10, 20], 'options': {'bond_mode': 'balance-tcp'}}"
#define P4 "{'name': 'p4', 'interface': 'veth-f'}"
#define P5 "{'name': 'p5', 'interface': 'veth-g'}"

/* Port lists: the base one, and the base one with one port replaced. */
#define PORTS_WITH(A, B, C, D, E) A ", " B ", " C ", " D ", " E
#define PORTS PORTS_WITH(P1, P2, VM1, P3, UP0)
#define PORTS_P1(X) PORTS_WITH(X, P2, VM1, P3, UP0)
#define PORTS_P2(X) PORTS_WITH(P1, X, VM1, P3, UP0)
#define PORTS_VM1(X) PORTS_WITH(P1, P2, X, P3, UP0)
#define PORTS_P3(X) PORTS_WITH(P1, P2, VM1, X, UP0)
#define PORTS_UP0(X) PORTS_WITH(P1, P2, VM1, P3, X)

#define RULE1 "{'priority': 100, 'match': 'in_port=p1', " \
    "'actions': 'output:p2', 'cookie': 5}"
#define RULE2 "{'match': 'in_port=p2', 'actions': 'normal'}"
#define RULES RULE1 ", " RULE2

#define OTHER "'pmd-cpu-mask': '0x2', 'emc-insert-inv-prob': 50, " \
    "'mac-aging-time': 300"

#define BRIDGE(NAME, PORTS_, RULES_)                                    \
    "{'name': '" NAME "', 'ports': [" PORTS_ "], 'rules': [" RULES_ "]}"
#define CFG_BRIDGES(BRIDGES, OTHER_)                                    \
    "{'bridges': [" BRIDGES "], 'other_config': {" OTHER_ "}}"
#define CFG(PORTS_, RULES_, OTHER_)                                     \
    CFG_BRIDGES(BRIDGE("br0", PORTS_, RULES_), OTHER_)
#define BASE CFG(PORTS, RULES, OTHER)

struct diff_case {
    const char *name;
    const char *old, *new;      /* Configuration texts. */
    const char *error;          /* Expected error, or NULL. */
    const char *removed;        /* Names of 'removed_ports', in order. */
    const char *added;          /* Names of 'added_ports', in order. */
    size_t n_kept;
    const char *other;          /* Keys of 'other_changed', in order. */
    const char *rules;          /* Bridges of 'rules_changed', in order. */
    const char *format;         /* config_diff_format(). */
    const char *bridges_removed; /* Names, in order; NULL for "". */
    const char *bridges_added;
    const char *settings;       /* Bridges of 'settings_changed', in order;
                                 * NULL for "". */
};

static const struct diff_case diff_cases[] = {
    /* Nothing or nothing that counts. */
    { "identical", BASE, BASE, NULL, "", "", 5, "", "", "no changes" },
    { "ports shuffled", BASE, CFG(PORTS_WITH(UP0, P3, P1, VM1, P2), RULES,
                                  OTHER),
      NULL, "", "", 5, "", "", "no changes" },
    { "trunks reordered", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e'], 'trunks': [20, 10], 'options': "
                    "{'bond_mode': 'balance-tcp'}}"), RULES, OTHER),
      NULL, "", "", 5, "", "", "no changes" },
    { "defaults written out", BASE,
      CFG(PORTS_WITH("{'name': 'p1', 'interface': 'veth-a', 'type': "
                     "'system', 'create': false, 'options': {'n_rxq': 1}}",
                     P2, VM1, P3, UP0), RULES, OTHER),
      NULL, "", "", 5, "", "", "no changes" },
    { "interface left to default", CFG("{'name': 'eth1'}", "", ""),
      CFG("{'name': 'eth1', 'interface': 'eth1'}", "", ""),
      NULL, "", "", 1, "", "", "no changes" },
    { "bond mode left to default",
      CFG("{'name': 'b0', 'type': 'bond', 'members': ['eth2']}", "", ""),
      CFG("{'name': 'b0', 'type': 'bond', 'members': ['eth2'], "
          "'options': {'bond_mode': 'active-backup'}}", "", ""),
      NULL, "", "", 1, "", "", "no changes" },
    { "rules moved to other lines", BASE,
      CFG(PORTS, "\n\n  " RULE1 ",\n  " RULE2 "\n", OTHER),
      NULL, "", "", 5, "", "", "no changes" },
    { "no bridges", CFG_BRIDGES("", ""), CFG_BRIDGES("", ""),
      NULL, "", "", 0, "", "", "no changes" },
    { "second bridge identical",
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2 ", " P3,
                                                     RULE2), ""),
      CFG_BRIDGES(BRIDGE("br0", P4, "") ", " BRIDGE("br1", P3 ", " P2,
                                                     RULE2), ""),
      NULL, "p1", "p4", 2, "", "", "ports added: p4; ports removed: p1" },

    /* Ports added and removed. */
    { "port added", BASE, CFG(PORTS ", " P4, RULES, OTHER),
      NULL, "", "p4", 5, "", "", "ports added: p4" },
    { "ports added", BASE, CFG(P5 ", " PORTS ", " P4, RULES, OTHER),
      NULL, "", "p5 p4", 5, "", "", "ports added: p5, p4" },
    { "port removed", BASE, CFG(PORTS_WITH(P1, P2, VM1, UP0, P4), RULES,
                                OTHER),
      NULL, "p3", "p4", 4, "", "",
      "ports added: p4; ports removed: p3" },
    { "all ports removed", CFG(P1 ", " P2, "", ""), CFG("", "", ""),
      NULL, "p1 p2", "", 0, "", "", "ports removed: p1, p2" },
    { "port renamed", BASE,
      CFG(PORTS_P1("{'name': 'p1b', 'interface': 'veth-a'}"), RULES,
          OTHER),
      NULL, "p1", "p1b", 4, "", "",
      "ports added: p1b; ports removed: p1" },
    { "interfaces swapped",
      CFG("{'name': 'a', 'interface': 'x'}, "
          "{'name': 'b', 'interface': 'y'}", "", ""),
      CFG("{'name': 'a', 'interface': 'y'}, "
          "{'name': 'b', 'interface': 'x'}", "", ""),
      NULL, "a b", "a b", 0, "", "", "ports changed: a, b" },
    { "changed ports reordered",
      CFG("{'name': 'a', 'interface': 'x'}, "
          "{'name': 'b', 'interface': 'y'}", "", ""),
      CFG("{'name': 'b', 'interface': 'x'}, "
          "{'name': 'a', 'interface': 'y'}", "", ""),
      NULL, "a b", "b a", 0, "", "", "ports changed: b, a" },

    /* Ports changed, one setting at a time. */
    { "interface changed", BASE,
      CFG(PORTS_P1("{'name': 'p1', 'interface': 'veth-z'}"), RULES, OTHER),
      NULL, "p1", "p1", 4, "", "", "ports changed: p1" },
    { "type changed", BASE,
      CFG(PORTS_P1("{'name': 'p1', 'interface': 'veth-a', 'type': "
                   "'tap'}"), RULES, OTHER),
      NULL, "p1", "p1", 4, "", "", "ports changed: p1" },
#ifdef HAVE_AFXDP
    { "type changed to afxdp", BASE,
      CFG(PORTS_P1("{'name': 'p1', 'interface': 'veth-a', 'type': "
                   "'afxdp', 'options': {'xdp-mode': 'native'}}"), RULES,
          OTHER),
      NULL, "p1", "p1", 4, "", "", "ports changed: p1" },
#endif
    { "create changed", BASE,
      CFG(PORTS_VM1("{'name': 'vm1', 'interface': 'tap-vm1', 'type': "
                    "'tap'}"), RULES, OTHER),
      NULL, "vm1", "vm1", 4, "", "", "ports changed: vm1" },
    { "tag changed", BASE,
      CFG(PORTS_P3("{'name': 'p3', 'interface': 'veth-c', 'tag': 11}"),
          RULES, OTHER),
      NULL, "p3", "p3", 4, "", "", "ports changed: p3" },
    { "tag added", BASE,
      CFG(PORTS_P1("{'name': 'p1', 'interface': 'veth-a', 'tag': 10}"),
          RULES, OTHER),
      NULL, "p1", "p1", 4, "", "", "ports changed: p1" },
    { "tag to trunk", BASE,
      CFG(PORTS_P3("{'name': 'p3', 'interface': 'veth-c', 'trunks': "
                   "[10]}"), RULES, OTHER),
      NULL, "p3", "p3", 4, "", "", "ports changed: p3" },
    { "trunk VLAN changed", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e'], 'trunks': [10, 21], 'options': "
                    "{'bond_mode': 'balance-tcp'}}"), RULES, OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "trunk VLAN added", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e'], 'trunks': [10, 20, 30], "
                    "'options': {'bond_mode': 'balance-tcp'}}"), RULES,
          OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "trunks to all VLANs", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e'], 'options': "
                    "{'bond_mode': 'balance-tcp'}}"), RULES, OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "member changed", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-x'], 'trunks': [10, 20], 'options': "
                    "{'bond_mode': 'balance-tcp'}}"), RULES, OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "member added", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e', 'veth-x'], 'trunks': [10, 20], "
                    "'options': {'bond_mode': 'balance-tcp'}}"), RULES,
          OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "members reordered", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-e', 'veth-d'], 'trunks': [10, 20], 'options': "
                    "{'bond_mode': 'balance-tcp'}}"), RULES, OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "n_rxq changed", BASE,
      CFG(PORTS_P2("{'name': 'p2', 'interface': 'veth-b', 'options': "
                   "{'n_rxq': 3}}"), RULES, OTHER),
      NULL, "p2", "p2", 4, "", "", "ports changed: p2" },
    { "n_rxq back to default", BASE,
      CFG(PORTS_P2("{'name': 'p2', 'interface': 'veth-b'}"), RULES, OTHER),
      NULL, "p2", "p2", 4, "", "", "ports changed: p2" },
    { "bond_mode changed", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e'], 'trunks': [10, 20], 'options': "
                    "{'bond_mode': 'balance-slb'}}"), RULES, OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "bond_mode back to default", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'type': 'bond', 'members': "
                    "['veth-d', 'veth-e'], 'trunks': [10, 20]}"), RULES,
          OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },
    { "bond to system port", BASE,
      CFG(PORTS_UP0("{'name': 'up0', 'interface': 'veth-d', 'trunks': "
                    "[10, 20]}"), RULES, OTHER),
      NULL, "up0", "up0", 4, "", "", "ports changed: up0" },

    /* other_config. */
    { "other_config values changed", BASE,
      CFG(PORTS, RULES, OTHER ", 'smc-enable': false"),
      NULL, "", "", 5, "smc-enable", "",
      "other_config changed: smc-enable" },
    { "other_config two values changed", BASE,
      CFG(PORTS, RULES, "'smc-enable': false, 'mac-aging-time': 300, "
          "'pmd-cpu-mask': '0x2', 'emc-insert-inv-prob': 60"),
      NULL, "", "", 5, "emc-insert-inv-prob smc-enable", "",
      "other_config changed: emc-insert-inv-prob, smc-enable" },
    { "key removed, equal to default", BASE,
      CFG(PORTS, RULES, "'pmd-cpu-mask': '0x2', 'emc-insert-inv-prob': 50"),
      NULL, "", "", 5, "", "", "no changes" },
    { "key added, equal to default", BASE,
      CFG(PORTS, RULES, OTHER ", 'smc-enable': true, 'tx-flush-interval': 0"),
      NULL, "", "", 5, "", "", "no changes" },
    { "key removed, not default", BASE,
      CFG(PORTS, RULES, "'pmd-cpu-mask': '0x2', 'mac-aging-time': 300"),
      NULL, "", "", 5, "emc-insert-inv-prob", "",
      "other_config changed: emc-insert-inv-prob" },
    { "key added, not default", CFG(PORTS, RULES, ""),
      CFG(PORTS, RULES, "'flow-idle-timeout': 500"),
      NULL, "", "", 5, "flow-idle-timeout", "",
      "other_config changed: flow-idle-timeout" },
    { "cpu mask with leading zero", BASE,
      CFG(PORTS, RULES, "'pmd-cpu-mask': '0x02', 'emc-insert-inv-prob': 50"),
      NULL, "", "", 5, "", "", "no changes" },
    { "cpu mask without 0x, upper case",
      CFG(PORTS, RULES, "'pmd-cpu-mask': '0xa'"),
      CFG(PORTS, RULES, "'pmd-cpu-mask': '00A'"),
      NULL, "", "", 5, "", "", "no changes" },
    { "cpu mask changed", BASE,
      CFG(PORTS, RULES, "'pmd-cpu-mask': '0x6', 'emc-insert-inv-prob': 50"),
      NULL, "", "", 5, "pmd-cpu-mask", "",
      "other_config changed: pmd-cpu-mask" },
    { "cpu mask removed", BASE,
      CFG(PORTS, RULES, "'emc-insert-inv-prob': 50"),
      NULL, "", "", 5, "pmd-cpu-mask", "",
      "other_config changed: pmd-cpu-mask" },
    { "every key changed", CFG_BRIDGES("", ""),
      CFG_BRIDGES("", "'pmd-cpu-mask': '1', 'use-tpacket-v3': false, "
                  "'emc-insert-inv-prob': 0, 'smc-enable': false, "
                  "'metrics-address': '127.0.0.1:1', 'gro-enable': false, "
                  "'pmd-sleep-max': 1, 'pmd-sleep-predict': false, "
                  "'tx-flush-interval': 1, 'pmd-rxq-assign': 'roundrobin', "
                  "'bond-rebalance-interval': 0, 'mac-aging-time': 15, "
                  "'flow-idle-timeout': 100, 'flow-limit': 5"),
      NULL, "", "", 0,
      "pmd-cpu-mask use-tpacket-v3 emc-insert-inv-prob smc-enable "
      "pmd-sleep-max tx-flush-interval pmd-rxq-assign "
      "bond-rebalance-interval mac-aging-time flow-idle-timeout flow-limit "
      "metrics-address gro-enable pmd-sleep-predict",
      "",
      "other_config changed: pmd-cpu-mask, use-tpacket-v3, "
      "emc-insert-inv-prob, smc-enable, pmd-sleep-max, "
      "tx-flush-interval, pmd-rxq-assign, bond-rebalance-interval, "
      "mac-aging-time, flow-idle-timeout, flow-limit, metrics-address, "
      "gro-enable, pmd-sleep-predict" },

    /* A bridge's own other_config. */
    { "forward-bpdu turned on", BASE,
      CFG_BRIDGES("{'name': 'br0', 'ports': [" PORTS "], 'rules': ["
                  RULES "], 'other_config': {'forward-bpdu': true}}",
                  OTHER),
      NULL, "", "", 5, "", "", "bridge other_config changed: br0", NULL,
      NULL, "br0" },
    { "forward-bpdu false written out", BASE,
      CFG_BRIDGES("{'name': 'br0', 'ports': [" PORTS "], 'rules': ["
                  RULES "], 'other_config': {'forward-bpdu': false}}",
                  OTHER),
      NULL, "", "", 5, "", "", "no changes" },

    /* Rules. */
    { "rule added", BASE, CFG(PORTS, RULES ", " RULE2, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rules removed", BASE, CFG(PORTS, "", OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rules reordered", BASE, CFG(PORTS, RULE2 ", " RULE1, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rule priority changed", BASE,
      CFG(PORTS, "{'priority': 101, 'match': 'in_port=p1', 'actions': "
          "'output:p2', 'cookie': 5}, " RULE2, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rule priority written out", BASE,
      CFG(PORTS, RULE1 ", {'priority': 32768, 'match': 'in_port=p2', "
          "'actions': 'normal'}", OTHER),
      NULL, "", "", 5, "", "", "no changes" },
    { "rule match changed", BASE,
      CFG(PORTS, "{'priority': 100, 'match': 'in_port=p3', 'actions': "
          "'output:p2', 'cookie': 5}, " RULE2, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rule match removed", BASE,
      CFG(PORTS, "{'priority': 100, 'actions': 'output:p2', 'cookie': 5}, "
          RULE2, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rule actions changed", BASE,
      CFG(PORTS, "{'priority': 100, 'match': 'in_port=p1', 'actions': "
          "'output:p3', 'cookie': 5}, " RULE2, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rule cookie changed", BASE,
      CFG(PORTS, "{'priority': 100, 'match': 'in_port=p1', 'actions': "
          "'output:p2', 'cookie': 6}, " RULE2, OTHER),
      NULL, "", "", 5, "", "br0", "rules changed: br0" },
    { "rule cookie in hex", BASE,
      CFG(PORTS, "{'priority': 100, 'match': 'in_port=p1', 'actions': "
          "'output:p2', 'cookie': '0x5'}, " RULE2, OTHER),
      NULL, "", "", 5, "", "", "no changes" },

    /* Everything at once, in the order of the summary. */
    { "all kinds", BASE,
      CFG(PORTS_WITH(P3, P5, UP0, VM1,
                     "{'name': 'p2', 'interface': 'veth-b'}") ", " P4,
          RULE1, "'pmd-cpu-mask': '0x2', 'emc-insert-inv-prob': 60, "
          "'smc-enable': false"),
      NULL, "p1 p2", "p5 p2 p4", 3, "emc-insert-inv-prob smc-enable", "br0",
      "ports added: p5, p4; ports removed: p1; ports changed: p2; "
      "other_config changed: emc-insert-inv-prob, smc-enable; "
      "rules changed: br0" },

    /* Bridges. */
    { "bridge added",
      CFG_BRIDGES(BRIDGE("br0", P1, ""), ""),
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2, ""), ""),
      NULL, "", "p2", 1, "", "", "bridges added: br1; ports added: p2",
      "", "br1" },
    { "bridge removed",
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2, ""), ""),
      CFG_BRIDGES(BRIDGE("br0", P1, ""), ""),
      NULL, "p2", "", 1, "", "", "bridges removed: br1; ports removed: p2",
      "br1", "" },
    { "every bridge removed", BASE, CFG_BRIDGES("", "'smc-enable': false"),
      NULL, "p1 p2 vm1 p3 up0", "", 0,
      "pmd-cpu-mask emc-insert-inv-prob smc-enable", "",
      "bridges removed: br0; ports removed: p1, p2, vm1, p3, up0; "
      "other_config changed: pmd-cpu-mask, emc-insert-inv-prob, "
      "smc-enable", "br0", "" },
    { "bridge renamed",
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2, ""), ""),
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br2", P2, ""), ""),
      NULL, "p2", "p2", 1, "", "",
      "bridges added: br2; bridges removed: br1; ports changed: p2",
      "br1", "br2" },
    { "port moves to another bridge",
      CFG_BRIDGES(BRIDGE("br0", P1 ", " P2, "") ", " BRIDGE("br1", P3, ""),
                  ""),
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P3 ", " P2, ""),
                  ""),
      NULL, "p2", "p2", 2, "", "", "ports changed: p2", "", "" },
    { "second bridge port changed",
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2, ""), ""),
      CFG_BRIDGES(BRIDGE("br0", P4, "") ", " BRIDGE("br1", P3, ""), ""),
      NULL, "p1 p2", "p4 p3", 0, "", "",
      "ports added: p4, p3; ports removed: p1, p2", "", "" },
    { "second bridge rule changed",
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2, ""), ""),
      CFG_BRIDGES(BRIDGE("br0", P1, "") ", " BRIDGE("br1", P2, RULE2), ""),
      NULL, "", "", 2, "", "br1", "rules changed: br1", "", "" },
};

/* Parses 'text', with ' standing for ", into a new config to destroy. */
static struct pmd_config *
parse_config(const char *text)
{
    struct pmd_config *config;
    char *json = xstrdup(text);
    char *error = NULL;

    for (char *p = json; *p; p++) {
        if (*p == '\'') {
            *p = '"';
        }
    }
    config = config_parse_string(json, "test.json", &error);
    CHECK(config && !error, "parse error: %s in %s", error ? error : "?",
          json);
    free(error);
    free(json);
    return config;
}

/* Returns the names of the 'n' ports in 'idx' of 'cfg', separated by
 * spaces, for the caller to free.  Checks that they ascend and are in
 * range. */
static char *
port_names(const struct pmd_config *cfg, const struct config_diff_port *idx,
           size_t n)
{
    char *names = xstrdup("");

    for (size_t i = 0; i < n; i++) {
        const struct config_diff_port *p = &idx[i];
        char *s;

        CHECK(i == 0 || idx[i - 1].bridge < p->bridge
              || (idx[i - 1].bridge == p->bridge
                  && idx[i - 1].port < p->port),
              "port %zu (%zu/%zu) does not ascend", i, p->bridge, p->port);
        if (p->bridge >= cfg->n_bridges
            || p->port >= cfg->bridges[p->bridge].n_ports) {
            CHECK(false, "port %zu (%zu/%zu) out of range", i, p->bridge,
                  p->port);
            continue;
        }
        s = xasprintf("%s%s%s", names, i ? " " : "",
                      cfg->bridges[p->bridge].ports[p->port].name);
        free(names);
        names = s;
    }
    return names;
}

/* Returns the names of the 'n' bridges of 'cfg' at the indexes in 'idx',
 * separated by spaces, for the caller to free. */
static char *
bridge_names(const struct pmd_config *cfg, const size_t *idx, size_t n)
{
    char *names = xstrdup("");

    for (size_t i = 0; i < n; i++) {
        char *s;

        CHECK(i == 0 || idx[i - 1] < idx[i], "bridge index %zu does not "
              "ascend", i);
        if (idx[i] >= cfg->n_bridges) {
            CHECK(false, "bridge index %zu out of range", idx[i]);
            continue;
        }
        s = xasprintf("%s%s%s", names, i ? " " : "",
                      cfg->bridges[idx[i]].name);
        free(names);
        names = s;
    }
    return names;
}

/* The total number of ports of 'cfg'. */
static size_t
count_ports(const struct pmd_config *cfg)
{
    size_t n = 0;

    for (size_t b = 0; b < cfg->n_bridges; b++) {
        n += cfg->bridges[b].n_ports;
    }
    return n;
}

/* Returns the names of the keys of 'diff->other_changed' separated by
 * spaces, for the caller to free, and stores their number in '*n'. */
static char *
other_names(const struct config_diff *diff, size_t *n)
{
    char *names = xstrdup("");

    *n = 0;
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        if (diff->other_changed[k]) {
            char *s = xasprintf("%s%s%s", names, *n ? " " : "",
                                config_other_key_name(k));
            free(names);
            names = s;
            (*n)++;
        }
    }
    return names;
}

/* Returns true if every byte of 'diff' is zero. */
static bool
diff_is_zero(const struct config_diff *diff)
{
    static const struct config_diff zero;

    return !memcmp(diff, &zero, sizeof *diff);
}

static void
run_diff_case(const struct diff_case *c)
{
    struct pmd_config *old = parse_config(c->old);
    struct pmd_config *new = parse_config(c->new);
    bool expect_empty;
    struct config_diff diff;
    size_t n_other;
    char *error;
    char *s;

    if (!old || !new) {
        config_destroy(old);
        config_destroy(new);
        return;
    }

    /* Garbage in 'diff' beforehand must not matter. */
    memset(&diff, 0xa5, sizeof diff);
    error = config_diff_compute(old, new, &diff);
    CHECK_STR(error, c->error);
    if (error) {
        CHECK(diff_is_zero(&diff), "diff not empty after an error");
    }
    free(error);

    s = port_names(old, diff.removed_ports, diff.n_removed_ports);
    CHECK_STR(s, c->removed);
    free(s);
    s = port_names(new, diff.added_ports, diff.n_added_ports);
    CHECK_STR(s, c->added);
    free(s);
    s = bridge_names(old, diff.removed_bridges, diff.n_removed_bridges);
    CHECK_STR(s, c->bridges_removed ? c->bridges_removed : "");
    free(s);
    s = bridge_names(new, diff.added_bridges, diff.n_added_bridges);
    CHECK_STR(s, c->bridges_added ? c->bridges_added : "");
    free(s);
    CHECK_INT(diff.n_kept_ports, c->n_kept);
    if (!c->error) {
        CHECK_INT(diff.n_kept_ports + diff.n_removed_ports,
                  count_ports(old));
        CHECK_INT(diff.n_kept_ports + diff.n_added_ports, count_ports(new));
    }
    CHECK(!diff.n_removed_ports == !diff.removed_ports,
          "removed_ports is %p with %zu entries",
          (void *) diff.removed_ports, diff.n_removed_ports);
    CHECK(!diff.n_added_ports == !diff.added_ports,
          "added_ports is %p with %zu entries",
          (void *) diff.added_ports, diff.n_added_ports);

    s = other_names(&diff, &n_other);
    CHECK_STR(s, c->other);
    CHECK_INT(diff.n_other_changed, n_other);
    free(s);
    s = bridge_names(new, diff.rules_changed, diff.n_rules_changed);
    CHECK_STR(s, c->rules);
    free(s);
    s = bridge_names(new, diff.settings_changed, diff.n_settings_changed);
    CHECK_STR(s, c->settings ? c->settings : "");
    free(s);

    expect_empty = (!c->removed[0] && !c->added[0] && !c->other[0]
                    && !c->rules[0] && !(c->settings && c->settings[0]));
    CHECK_INT(config_diff_is_empty(&diff), expect_empty);

    s = config_diff_format(&diff, old, new);
    CHECK_STR(s, c->format);
    free(s);

    config_diff_uninit(&diff);
    CHECK(diff_is_zero(&diff), "diff not zeroed by config_diff_uninit()");
    config_diff_uninit(&diff);
    config_destroy(old);
    config_destroy(new);
}

static void
test_diff_cases(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(diff_cases); i++) {
        check_set_context("%s", diff_cases[i].name);
        run_diff_case(&diff_cases[i]);
    }
    check_set_context("%s", "");
}

/* The difference is not symmetric in its indexes, but swapping 'old' and
 * 'new' must swap added and removed and keep everything else. */
static void
test_swapped(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(diff_cases); i++) {
        const struct diff_case *c = &diff_cases[i];
        struct pmd_config *old, *new;
        struct config_diff fwd, back;
        char *e1, *e2;

        check_set_context("%s, swapped", c->name);
        old = parse_config(c->old);
        new = parse_config(c->new);
        if (old && new) {
            e1 = config_diff_compute(old, new, &fwd);
            e2 = config_diff_compute(new, old, &back);
            CHECK(!e1 == !e2, "error one way only: %s, %s",
                  e1 ? e1 : "none", e2 ? e2 : "none");
            CHECK_INT(back.n_removed_ports, fwd.n_added_ports);
            CHECK_INT(back.n_added_ports, fwd.n_removed_ports);
            CHECK_INT(back.n_kept_ports, fwd.n_kept_ports);
            CHECK(!memcmp(back.other_changed, fwd.other_changed,
                          sizeof fwd.other_changed), "other_changed");
            if (!fwd.n_added_bridges && !fwd.n_removed_bridges) {
                /* An added bridge's rules count, a removed one's not. */
                CHECK_INT(back.n_rules_changed, fwd.n_rules_changed);
            }
            CHECK_INT(back.n_removed_bridges, fwd.n_added_bridges);
            CHECK_INT(back.n_added_bridges, fwd.n_removed_bridges);
            free(e1);
            free(e2);
            config_diff_uninit(&fwd);
            config_diff_uninit(&back);
        }
        config_destroy(old);
        config_destroy(new);
    }
    check_set_context("%s", "");
}

static void
test_uninit_empty(void)
{
    struct config_diff diff;

    memset(&diff, 0, sizeof diff);
    CHECK(config_diff_is_empty(&diff), "zeroed diff is empty");
    config_diff_uninit(&diff);
    CHECK(diff_is_zero(&diff), "empty diff changed by uninit");
    config_diff_uninit(&diff);
    CHECK(diff_is_zero(&diff), "empty diff changed by second uninit");
}

/* Each field of the diff alone makes it non-empty, and n_kept_ports does
 * not. */
static void
test_is_empty(void)
{
    struct config_diff diff;
    struct config_diff_port port = { 0, 0 };
    size_t idx = 0;

    memset(&diff, 0, sizeof diff);
    diff.n_kept_ports = 3;
    CHECK(config_diff_is_empty(&diff), "kept ports only");

    memset(&diff, 0, sizeof diff);
    diff.removed_ports = &port;
    diff.n_removed_ports = 1;
    CHECK(!config_diff_is_empty(&diff), "removed port");

    memset(&diff, 0, sizeof diff);
    diff.added_ports = &port;
    diff.n_added_ports = 1;
    CHECK(!config_diff_is_empty(&diff), "added port");

    memset(&diff, 0, sizeof diff);
    diff.removed_bridges = &idx;
    diff.n_removed_bridges = 1;
    CHECK(!config_diff_is_empty(&diff), "removed bridge");

    memset(&diff, 0, sizeof diff);
    diff.added_bridges = &idx;
    diff.n_added_bridges = 1;
    CHECK(!config_diff_is_empty(&diff), "added bridge");

    memset(&diff, 0, sizeof diff);
    diff.other_changed[CONFIG_OTHER_SMC_ENABLE] = true;
    diff.n_other_changed = 1;
    CHECK(!config_diff_is_empty(&diff), "other_config");

    memset(&diff, 0, sizeof diff);
    diff.rules_changed = &idx;
    diff.n_rules_changed = 1;
    CHECK(!config_diff_is_empty(&diff), "rules");
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "diff_cases", test_diff_cases },
        { "swapped", test_swapped },
        { "uninit_empty", test_uninit_empty },
        { "is_empty", test_is_empty },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-config-diff");
}
