/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the configuration parser: the example from the design document,
 * defaults, one exact message (with line:column) per class of error,
 * other_config set/format, file reading, and random mutations of a valid
 * file that must never crash and must always point at a position.
 */
#include <autoconf.h>
#include "config/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "config/config-vxlan.h"
#include "base/util.h"

/* The example in DESIGN.md, verbatim. */
static const char design_example[] =
"{\n"
"  \"bridges\": [\n"
"    {\n"
"      \"name\": \"br0\",\n"
"      \"ports\": [\n"
"        { \"name\": \"p1\", \"interface\": \"veth-a\" },\n"
"        { \"name\": \"p2\", \"interface\": \"veth-b\", \"options\": "
"{ \"n_rxq\": 2 } },\n"
"        { \"name\": \"vm1\", \"interface\": \"tap-vm1\", \"type\": \"tap\", "
"\"create\": true },\n"
"        { \"name\": \"p3\", \"interface\": \"veth-c\", \"tag\": 10 },\n"
"        { \"name\": \"up0\", \"type\": \"bond\", \"members\": "
"[\"veth-d\", \"veth-e\"],\n"
"          \"trunks\": [10, 20], \"options\": "
"{ \"bond_mode\": \"balance-tcp\" } }\n"
"      ],\n"
"      \"rules\": [\n"
"        { \"priority\": 100, \"match\": "
"\"in_port=p1,ip,nw_dst=10.0.0.0/8\",\n"
"          \"actions\": \"output:p2\" }\n"
"      ]\n"
"    }\n"
"  ],\n"
"  \"other_config\": {\n"
"    \"pmd-cpu-mask\": \"0x2\",\n"
"    \"use-tpacket-v3\": true,\n"
"    \"emc-insert-inv-prob\": 100,\n"
"    \"smc-enable\": true,\n"
"    \"userspace-tso-enable\": true,\n"
"    \"pmd-sleep-max\": 0\n"
"  }\n"
"}\n";

static struct pmd_config *
parse_ok(const char *text)
{
    struct pmd_config *config;
    char *error = NULL;

    config = config_parse_string(text, "config.json", &error);
    CHECK(config && !error, "unexpected error: %s", error ? error : "?");
    free(error);
    return config;
}

static void
test_design_example(void)
{
    struct pmd_config *config = parse_ok(design_example);
    const struct config_bridge *br;
    const struct config_port *p;
    const struct config_other *o;

    if (!config) {
        return;
    }
    CHECK_INT(config->n_bridges, 1);
    br = &config->bridges[0];
    CHECK_STR(br->name, "br0");
    CHECK_INT(br->n_ports, 5);
    CHECK_INT(br->n_rules, 1);
    if (br->n_ports != 5 || br->n_rules != 1) {
        config_destroy(config);
        return;
    }

    p = &br->ports[0];
    CHECK_STR(p->name, "p1");
    CHECK_STR(p->interface, "veth-a");
    CHECK_INT(p->type, CONFIG_PORT_SYSTEM);
    CHECK_INT(p->n_rxq, 1);
    CHECK_INT(p->tag, 0);
    CHECK_INT(p->n_trunks, 0);
    CHECK_INT(p->n_members, 0);
    CHECK(!p->create, "p1 create");
    CHECK_STR(p->bond_mode, NULL);

    p = &br->ports[1];
    CHECK_STR(p->name, "p2");
    CHECK_STR(p->interface, "veth-b");
    CHECK_INT(p->n_rxq, 2);

    p = &br->ports[2];
    CHECK_STR(p->name, "vm1");
    CHECK_STR(p->interface, "tap-vm1");
    CHECK_INT(p->type, CONFIG_PORT_TAP);
    CHECK(p->create, "vm1 create");

    p = &br->ports[3];
    CHECK_STR(p->interface, "veth-c");
    CHECK_INT(p->tag, 10);

    p = config_bridge_find_port(br, "up0");
    CHECK(p == &br->ports[4], "find up0");
    CHECK_INT(p->type, CONFIG_PORT_BOND);
    CHECK_STR(p->interface, NULL);
    CHECK_INT(p->n_members, 2);
    if (p->n_members == 2) {
        CHECK_STR(p->members[0], "veth-d");
        CHECK_STR(p->members[1], "veth-e");
    }
    CHECK_INT(p->n_trunks, 2);
    if (p->n_trunks == 2) {
        CHECK_INT(p->trunks[0], 10);
        CHECK_INT(p->trunks[1], 20);
    }
    CHECK_STR(p->bond_mode, "balance-tcp");
    CHECK_INT(p->bond_rebalance_interval, -1);
    CHECK(!config_bridge_find_port(br, "nope"), "find nope");

    CHECK_INT(br->rules[0].priority, 100);
    CHECK_STR(br->rules[0].match, "in_port=p1,ip,nw_dst=10.0.0.0/8");
    CHECK_STR(br->rules[0].actions, "output:p2");
    CHECK_INT(br->rules[0].cookie, 0);
    CHECK_INT(br->rules[0].line, 14);
    CHECK_INT(br->rules[0].column, 9);

    o = &config->other;
    CHECK_STR(o->pmd_cpu_mask, "0x2");
    CHECK_INT(CPU_COUNT(&o->pmd_cpus), 1);
    CHECK(CPU_ISSET(1, &o->pmd_cpus), "CPU 1 in mask");
    CHECK(o->use_tpacket_v3 && o->smc_enable && o->userspace_tso_enable,
          "booleans");
    CHECK_INT(o->emc_insert_inv_prob, 100);
    CHECK_INT(o->pmd_sleep_max, 0);
    CHECK(o->set[CONFIG_OTHER_PMD_CPU_MASK], "mask set");
    CHECK(o->set[CONFIG_OTHER_PMD_SLEEP_MAX], "sleep set");
    CHECK(!o->set[CONFIG_OTHER_TX_FLUSH_INTERVAL], "tx-flush not set");
    CHECK(!o->set[CONFIG_OTHER_MAC_AGING_TIME], "aging not set");
    CHECK_INT(o->tx_flush_interval, 0);
    CHECK_INT(o->pmd_rxq_assign, CONFIG_RXQ_ASSIGN_CYCLES);
    CHECK_INT(o->bond_rebalance_interval, 10000);
    CHECK_INT(o->mac_aging_time, 300);
    CHECK_INT(o->flow_idle_timeout, 10000);
    config_destroy(config);
}

static void
test_defaults(void)
{
    struct pmd_config *config;
    const struct config_port *p;

    config = parse_ok("{\"bridges\": []}");
    if (config) {
        CHECK_INT(config->n_bridges, 0);
        for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
            CHECK(!config->other.set[k], "key %d set", k);
        }
        CHECK_STR(config->other.pmd_cpu_mask, "");
        CHECK_INT(CPU_COUNT(&config->other.pmd_cpus), 0);
        CHECK(config->other.use_tpacket_v3, "use-tpacket-v3 default");
        CHECK(config->other.smc_enable, "smc-enable default");
        CHECK(config->other.userspace_tso_enable, "tso default");
        CHECK_INT(config->other.emc_insert_inv_prob, 100);
        CHECK_INT(config->other.pmd_sleep_max, 1000);
        CHECK_INT(config->other.tx_flush_interval, 0);
        CHECK_INT(config->other.pmd_rxq_assign, CONFIG_RXQ_ASSIGN_CYCLES);
        CHECK_INT(config->other.bond_rebalance_interval, 10000);
        CHECK_INT(config->other.mac_aging_time, 300);
        CHECK_INT(config->other.flow_idle_timeout, 10000);
        config_destroy(config);
    }

    config = parse_ok("{\"bridges\": [{\"name\": \"br0\", \"ports\": ["
                      "{\"name\": \"eth1\"}, {\"name\": \"b0\", \"type\": "
                      "\"bond\", \"members\": [\"eth2\"]}], \"rules\": "
                      "[{\"actions\": \"normal\", \"cookie\": \"0x1F\"}, "
                      "{\"actions\": \"drop\", \"cookie\": 7}]}, "
                      "{\"name\": \"br1\"}]}");
    if (config && config->n_bridges == 2
        && config->bridges[0].n_ports == 2
        && config->bridges[0].n_rules == 2) {
        p = &config->bridges[0].ports[0];
        CHECK_STR(p->interface, "eth1");
        CHECK_INT(p->type, CONFIG_PORT_SYSTEM);
        CHECK_INT(p->n_rxq, 1);
        CHECK(!p->create, "create default");
        CHECK_STR(p->bond_mode, NULL);
        CHECK_INT(p->bond_rebalance_interval, -1);
        p = &config->bridges[0].ports[1];
        CHECK_STR(p->bond_mode, "active-backup");
        CHECK_INT(p->bond_rebalance_interval, -1);
        CHECK_STR(p->interface, NULL);
        CHECK_INT(config->bridges[0].rules[0].priority, 32768);
        CHECK_STR(config->bridges[0].rules[0].match, "");
        CHECK_INT(config->bridges[0].rules[0].cookie, 0x1f);
        CHECK_INT(config->bridges[0].rules[1].cookie, 7);
        CHECK_STR(config->bridges[1].name, "br1");
        CHECK_INT(config->bridges[1].n_ports, 0);
    } else {
        CHECK(false, "second defaults config has the wrong shape");
    }
    config_destroy(config);
}

/* Every key of other_config set away from its default. */
static void
test_other_values(void)
{
    static const char text[] =
        "{\"bridges\": [], \"other_config\": {"
        "\"pmd-cpu-mask\": \"000A\", \"use-tpacket-v3\": false, "
        "\"emc-insert-inv-prob\": 4294967295, \"smc-enable\": false, "
        "\"userspace-tso-enable\": true, \"pmd-sleep-max\": 10000, "
        "\"tx-flush-interval\": 1000000, \"pmd-rxq-assign\": "
        "\"roundrobin\", \"bond-rebalance-interval\": 0, "
        "\"mac-aging-time\": 15, \"flow-idle-timeout\": 3600000, "
        "\"flow-limit\": 10000000, \"mac-table-size\": 1000000, "
        "\"mac-learn-rate\": 0, \"metrics-address\": \"[::1]:9540\", "
        "\"gro-enable\": false, \"pmd-sleep-predict\": false}}";
    static const char expected_format[] =
        "pmd-cpu-mask=0xa\n"
        "use-tpacket-v3=false\n"
        "emc-insert-inv-prob=4294967295\n"
        "smc-enable=false\n"
        "userspace-tso-enable=true\n"
        "pmd-sleep-max=10000\n"
        "tx-flush-interval=1000000\n"
        "pmd-rxq-assign=roundrobin\n"
        "bond-rebalance-interval=0\n"
        "mac-aging-time=15\n"
        "flow-idle-timeout=3600000\n"
        "flow-limit=10000000\n"
        "mac-table-size=1000000\n"
        "mac-learn-rate=0\n"
        "metrics-address=[::1]:9540\n"
        "gro-enable=false\n"
        "pmd-sleep-predict=false\n";
    struct pmd_config *config = parse_ok(text);
    char buf[CONFIG_OTHER_FORMAT_SIZE];
    const struct config_other *o;

    if (!config) {
        return;
    }
    o = &config->other;
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        CHECK(o->set[k], "key %s not marked set", config_other_key_name(k));
    }
    CHECK_INT(CPU_COUNT(&o->pmd_cpus), 2);
    CHECK(CPU_ISSET(1, &o->pmd_cpus) && CPU_ISSET(3, &o->pmd_cpus),
          "CPUs 1 and 3");
    CHECK_INT(o->emc_insert_inv_prob, 4294967295u);
    config_other_format(o, buf, sizeof buf);
    CHECK_STR(buf, expected_format);

    /* Truncation keeps the buffer a valid string. */
    config_other_format(o, buf, 10);
    CHECK_STR(buf, "pmd-cpu-m");
    config_destroy(config);
}

struct error_case {
    const char *title;
    const char *text;
    const char *expected;
};

/* One line per port keeps columns easy to count: the port object starts at
 * column 40 of line 1. */
#define PORT1 "{\"bridges\": [{\"name\": \"br0\", \"ports\": ["
#define END1 "]}]}"

static const struct error_case error_cases[] = {
    /* Input that is not a JSON object. */
    { "empty file", "",
      "config.json:1:1: the configuration is empty (expected a JSON "
      "object)" },
    { "blank file", "  \n\t\n",
      "config.json:1:1: the configuration is empty (expected a JSON "
      "object)" },
    { "invalid JSON", "{\n  \"bridges\": [\n}\n",
      "config.json:3:1: unexpected token near '}'" },
    { "unexpected end of file", "{\"bridges\": []\n",
      "config.json:2:1: '}' expected near end of file" },
    { "trailing garbage", "{\"bridges\": []} x",
      "config.json:1:17: end of file expected near 'x'" },
    { "duplicate key", "{\"bridges\": [],\n \"bridges\": []}",
      "config.json:2:10: duplicate object key near '\"bridges\"'" },
    { "byte order mark", "\xef\xbb\xbf{\"x\": 1}",
      "config.json:1:2: unknown key \"x\" in the configuration (known keys: "
      "bridges, other_config)" },
    { "array at top", "[1]",
      "config.json:1:1: the configuration must be a JSON object, got an "
      "array" },
    { "string at top", "\n  \"bridges\"",
      "config.json:2:3: the configuration must be a JSON object, got "
      "\"bridges\"" },

    /* Unknown keys, at each level. */
    { "unknown top-level key", "{\n  \"bridges\": [],\n  \"other\": {}\n}",
      "config.json:3:3: unknown key \"other\" in the configuration (known "
      "keys: bridges, other_config)" },
    { "unknown bridge key", "{\"bridges\": [\n  {\"name\": \"br0\", "
      "\"port\": []}\n]}",
      "config.json:2:19: unknown key \"port\" in bridge \"br0\" (known keys: "
      "name, ports, rules, other_config, mirrors)" },
    { "mirror: unknown port", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"p1\"}],\n  \"mirrors\": [{\"name\": "
      "\"m0\", \"select_src_port\": [\"p9\"], \"output_port\": \"p1\"}]}]}",
      "config.json:2:50: mirror \"m0\": no port \"p9\" in bridge br0" },
    { "mirror: output port selected", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"p1\"}, {\"name\": \"p2\"}],\n  "
      "\"mirrors\": [{\"name\": \"m0\", \"select_dst_port\": [\"p2\"], "
      "\"output_port\": \"p1\"},\n  {\"name\": \"m1\", "
      "\"select_src_port\": [\"p1\"], \"output_port\": \"p2\"}]}]}",
      "config.json:2:50: mirror \"m0\" selects port \"p2\", which is the "
      "output port of mirror \"m1\"" },
    { "mirror: duplicate name", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"p1\"}],\n  \"mirrors\": [{\"name\": "
      "\"m0\", \"output_port\": \"p1\"},\n  {\"name\": \"m0\", "
      "\"output_port\": \"p1\"}]}]}",
      "config.json:3:12: duplicate mirror name \"m0\" in bridge \"br0\" "
      "(first defined at 2:15)" },
    { "mirror: unknown key", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"p1\"}],\n  \"mirrors\": [{\"name\": "
      "\"m0\", \"output\": \"p1\"}]}]}",
      "config.json:2:30: unknown key \"output\" in mirror \"m0\" of bridge "
      "\"br0\" (known keys: name, select_all, select_src_port, "
      "select_dst_port, select_vlan, output_port)" },
    { "mirror: missing output", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"p1\"}],\n  \"mirrors\": [{\"name\": "
      "\"m0\"}]}]}",
      "config.json:2:15: mirror \"m0\" of bridge \"br0\" is missing "
      "required key \"output_port\"" },
    { "mirror: VLAN out of range", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"p1\"}],\n  \"mirrors\": [{\"name\": "
      "\"m0\", \"select_vlan\": [4096], \"output_port\": \"p1\"}]}]}",
      "config.json:2:46: each entry of \"select_vlan\" must be an integer "
      "from 0 to 4095, got 4096" },
    { "unknown bridge other_config key", "{\"bridges\": [{\"name\": \"br0\", "
      "\"other_config\": {\"forward_bpdu\": true}}]}",
      "config.json:1:47: unknown key \"forward_bpdu\" in the other_config of "
      "bridge \"br0\" (known keys: forward-bpdu)" },
    { "forward-bpdu not a boolean", "{\"bridges\": [{\"name\": \"br0\", "
      "\"other_config\": {\"forward-bpdu\": \"yes\"}}]}",
      "config.json:1:63: \"forward-bpdu\" must be true or false, got "
      "\"yes\"" },
    { "bridge other_config not an object", "{\"bridges\": [{\"name\": "
      "\"br0\", \"other_config\": []}]}",
      "config.json:1:46: \"other_config\" of bridge \"br0\" must be an "
      "object, got an array" },
    { "unknown port key", "{\"bridges\": [{\"name\": \"br0\", \"ports\": "
      "[\n    {\"name\": \"p3\", \"tags\": 10}\n]}]}",
      "config.json:2:20: unknown key \"tags\" in port \"p3\" (known keys: "
      "name, interface, type, create, vlan_mode, tag, trunks, members, "
      "options)" },
    { "unknown key in unnamed port", PORT1 "{\"tags\": 10}" END1,
      "config.json:1:41: unknown key \"tags\" in port #1 of bridge \"br0\" "
      "(known keys: name, interface, type, create, vlan_mode, tag, trunks, "
      "members, options)" },
    { "mac-limit out of range", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [\n  {\"name\": \"p2\", \"options\": {\"mac-limit\": -1}}\n"
      "]}]}",
      "config.json:2:43: \"mac-limit\" must be an integer from 0 to "
      "1000000, got -1" },
    { "unknown options key", "{\"bridges\": [{\"name\": \"br0\", \"ports\": "
      "[\n  {\"name\": \"p2\", \"options\": {\"n_rxqs\": 2}}\n]}]}",
      "config.json:2:30: unknown key \"n_rxqs\" in options of port \"p2\" "
      "(known keys: n_rxq, bond_mode, peer, bond-rebalance-interval, "
      "xdp-mode, pcap, mac-limit, remote_ip, key, local_ip, dst_port, ttl, "
      "tos)" },
    { "unknown other_config key", "{\"bridges\": [],\n \"other_config\": "
      "{\n   \"pmd-cpu-masks\": \"0x2\"\n }}",
      "config.json:3:4: unknown key \"pmd-cpu-masks\" in other_config (known "
      "keys: pmd-cpu-mask, use-tpacket-v3, emc-insert-inv-prob, smc-enable, "
      "userspace-tso-enable, pmd-sleep-max, tx-flush-interval, "
      "pmd-rxq-assign, bond-rebalance-interval, mac-aging-time, "
      "flow-idle-timeout, flow-limit, mac-table-size, "
      "mac-learn-rate, metrics-address, gro-enable, pmd-sleep-predict)" },
    { "userspace-tso-enable false", "{\"bridges\": [],\n \"other_config\": "
      "{\"userspace-tso-enable\": false}}",
      "config.json:2:43: \"userspace-tso-enable\" cannot be false: "
      "pmdswitch always carries checksum and segmentation offloads "
      "through (the virtio_net_hdr of each frame); to keep large frames "
      "off a port, turn offloads off on the interface's peer with "
      "\"ethtool -K PEER tso off gso off\"" },
    { "metrics-address without port", "{\"bridges\": [],\n "
      "\"other_config\": {\"metrics-address\": \"127.0.0.1\"}}",
      "config.json:2:38: \"metrics-address\" must be \"\" or an IP address "
      "and a port, such as \"127.0.0.1:9540\" or \"[::1]:9540\", got "
      "\"127.0.0.1\"" },
    { "unknown rule key", "{\"bridges\": [{\"name\": \"br0\", \"rules\": "
      "[\n  {\"priority\": 1, \"actions\": \"drop\", \"table\": 0}\n]}]}",
      "config.json:2:38: unknown key \"table\" in rule #1 of bridge \"br0\" "
      "(known keys: priority, match, actions, cookie)" },
    { "unknown key with escapes", "{\"bridges\": [], \"x\\n\\u00e9\": 1}",
      "config.json:1:17: unknown key \"x\\n\\u00E9\" in the configuration "
      "(known keys: bridges, other_config)" },
    { "column counts characters", "{\"bridges\": [{\"name\": \"br0\", "
      "\"rules\": [{\"match\": \"\xc3\xa9\xc3\xa9\", \"actions\": \"x\", "
      "\"y\": 1}]}]}",
      "config.json:1:72: unknown key \"y\" in rule #1 of bridge \"br0\" "
      "(known keys: priority, match, actions, cookie)" },

    /* Wrong types and ranges. */
    { "tag out of range", "{\"bridges\": [{\"name\": \"br0\", \"ports\": "
      "[{\"name\": \"p1\",\n  \"tag\":\n    5000}]}]}",
      "config.json:3:5: \"tag\" must be an integer from 1 to 4094, got "
      "5000" },
    { "tag as string", PORT1 "{\"name\": \"p1\", \"tag\": \"10\"}" END1,
      "config.json:1:62: \"tag\" must be an integer from 1 to 4094, got "
      "\"10\"" },
    { "tag as real", PORT1 "{\"name\": \"p1\", \"tag\": 1.5}" END1,
      "config.json:1:62: \"tag\" must be an integer from 1 to 4094, got "
      "1.5" },
    { "create as string", PORT1 "{\"name\": \"p1\", \"create\": \"yes\"}"
      END1,
      "config.json:1:65: \"create\" must be true or false, got \"yes\"" },
    { "bad port type", PORT1 "{\"name\": \"p1\", \"type\": \"veth\"}" END1,
      "config.json:1:63: \"type\" must be one of \"system\", \"tap\", "
      "\"bond\", \"afxdp\", \"dummy\", \"patch\", \"internal\", "
      "\"vxlan\", got \"veth\"" },
    { "vxlan port without remote", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\"}" END1,
      "config.json:1:40: ports of type \"vxlan\" need \"remote_ip\" in "
      "\"options\" (the other end of the tunnel, or a list of them)" },
    { "vxlan remote over IPv6", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"fd00::2\"}}" END1,
      "config.json:1:98: \"remote_ip\": fd00::2 is an IPv6 address; vxlan "
      "ports carry their tunnels over IPv4 only" },
    { "vxlan remote not an address", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": [\"10.0.0.2\", "
      "\"10.0.0.300\"]}}" END1,
      "config.json:1:98: \"remote_ip\": \"10.0.0.300\" is not an IPv4 "
      "address" },
    { "vxlan remote twice", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.2,10.0.0.2\"}}"
      END1,
      "config.json:1:98: \"remote_ip\": 10.0.0.2 appears twice" },
    { "vxlan remote multicast", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"239.1.1.1\"}}" END1,
      "config.json:1:98: \"remote_ip\": 239.1.1.1 is not a unicast "
      "address" },
    { "vxlan key too big", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.2\", \"key\": "
      "16777216}}" END1,
      "config.json:1:117: \"key\" must be a VNI from 0 to 16777215, or "
      "\"flow\", got 16777216" },
    { "vxlan ttl zero", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.2\", \"ttl\": "
      "0}}" END1,
      "config.json:1:117: \"ttl\" must be an integer from 1 to 255, got 0" },
    { "vxlan tos word", PORT1 "{\"name\": \"vx0\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.2\", \"tos\": "
      "\"copy\"}}" END1,
      "config.json:1:117: \"tos\" must be an integer from 0 to 255, or "
      "\"inherit\", got \"copy\"" },
    { "vxlan option on a system port", PORT1 "{\"name\": \"p1\", "
      "\"options\": {\"remote_ip\": \"10.0.0.2\"}}" END1,
      "config.json:1:67: \"remote_ip\", \"key\", \"local_ip\", "
      "\"dst_port\", \"ttl\" and \"tos\" are only allowed on ports of "
      "type \"vxlan\"" },
    { "vxlan port with an interface", PORT1 "{\"name\": \"vx0\", "
      "\"type\": \"vxlan\", \"interface\": \"eth0\", \"options\": "
      "{\"remote_ip\": \"10.0.0.2\"}}" END1,
      "config.json:1:73: \"interface\" is not allowed on ports of type "
      "\"vxlan\"; a vxlan port has no kernel interface (it sends through "
      "the kernel's UDP stack)" },
    { "vxlan port with two queues", PORT1 "{\"name\": \"vx0\", "
      "\"type\": \"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.2\", "
      "\"n_rxq\": 2}}" END1,
      "config.json:1:110: \"n_rxq\" of a vxlan port must be 1: one socket "
      "receives for the port" },
    { "vxlan ports on the any-address and one address", PORT1
      "{\"name\": \"vx0\", \"type\": \"vxlan\", \"options\": "
      "{\"remote_ip\": \"10.0.0.2\"}},\n{\"name\": \"vx1\", \"type\": "
      "\"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.3\", "
      "\"local_ip\": \"10.0.0.1\"}}" END1,
      "config.json:2:1: port \"vx1\": another vxlan port (at 1:40) already "
      "receives on local_ip 10.0.0.1, dst_port 4789; give one of them "
      "another \"dst_port\" or \"local_ip\", or use one port with "
      "\"key\": \"flow\"" },
    { "two vxlan ports on one socket", PORT1 "{\"name\": \"vx0\", "
      "\"type\": \"vxlan\", \"options\": {\"remote_ip\": \"10.0.0.2\"}},"
      "\n{\"name\": \"vx1\", \"type\": \"vxlan\", \"options\": "
      "{\"remote_ip\": \"10.0.0.3\", \"key\": 7}}" END1,
      "config.json:2:1: port \"vx1\": another vxlan port (at 1:40) already "
      "receives on local_ip 0.0.0.0, dst_port 4789; give one of them another "
      "\"dst_port\" or \"local_ip\", or use one port with \"key\": "
      "\"flow\"" },
    { "create on a dummy port", PORT1 "{\"name\": \"p1\", \"type\": "
      "\"dummy\", \"create\": true}" END1,
      "config.json:1:72: \"create\": true is not allowed on ports of type "
      "\"dummy\"; a dummy port has no kernel interface" },
    { "pcap on a system port", PORT1 "{\"name\": \"p1\", \"options\": "
      "{\"pcap\": \"/tmp/x\"}}" END1,
      "config.json:1:67: \"pcap\" is only allowed on ports of type "
      "\"dummy\"" },
    { "empty pcap", PORT1 "{\"name\": \"p1\", \"type\": \"dummy\", "
      "\"options\": {\"pcap\": \"\"}}" END1,
      "config.json:1:92: \"pcap\" must name a file" },
    { "n_rxq zero", PORT1 "{\"name\": \"p1\", \"options\": {\"n_rxq\": 0}}"
      END1,
      "config.json:1:76: \"n_rxq\" must be an integer from 1 to 64, got 0" },
    { "bad bond_mode", PORT1 "{\"name\": \"b\", \"type\": \"bond\", "
      "\"members\": [\"e1\"], \"options\": {\"bond_mode\": \"slb\"}}" END1,
      "config.json:1:114: \"bond_mode\" must be one of \"active-backup\", "
      "\"balance-slb\", \"balance-tcp\", got \"slb\"" },
    { "bond-rebalance-interval too large", PORT1 "{\"name\": \"b\", "
      "\"type\": \"bond\", \"members\": [\"e1\"], \"options\": "
      "{\"bond-rebalance-interval\": 10001}}" END1,
      "config.json:1:128: \"bond-rebalance-interval\" must be an integer "
      "from 0 to 10000, got 10001" },
    { "bond-rebalance-interval negative", PORT1 "{\"name\": \"b\", "
      "\"type\": \"bond\", \"members\": [\"e1\"], \"options\": "
      "{\"bond-rebalance-interval\": -1}}" END1,
      "config.json:1:128: \"bond-rebalance-interval\" must be an integer "
      "from 0 to 10000, got -1" },
    { "bond-rebalance-interval not a number", PORT1 "{\"name\": \"b\", "
      "\"type\": \"bond\", \"members\": [\"e1\"], \"options\": "
      "{\"bond-rebalance-interval\": \"1s\"}}" END1,
      "config.json:1:128: \"bond-rebalance-interval\" must be an integer "
      "from 0 to 10000, got \"1s\"" },
    { "bond-rebalance-interval on a non-bond", PORT1 "{\"name\": \"p1\", "
      "\"options\": {\"n_rxq\": 1,\n \"bond-rebalance-interval\": 100}}"
      END1,
      "config.json:2:2: \"bond-rebalance-interval\" is only allowed on "
      "ports of type \"bond\"" },
    { "trunk out of range", PORT1 "{\"name\": \"p1\", \"trunks\": [1, "
      "4095]}" END1,
      "config.json:1:69: each entry of \"trunks\" must be an integer from 1 "
      "to 4094, got 4095" },
    { "duplicate trunk", PORT1 "{\"name\": \"p1\", \"trunks\": [7, 7]}" END1,
      "config.json:1:69: VLAN 7 appears twice in \"trunks\"" },
    { "trunks not array", PORT1 "{\"name\": \"p1\", \"trunks\": 7}" END1,
      "config.json:1:65: \"trunks\" must be an array of VLAN IDs, got 7" },
    { "bridges not array", "{\"bridges\": {}}",
      "config.json:1:13: \"bridges\" must be an array of bridge objects, "
      "got an object" },
    { "ports not array", "{\"bridges\": [{\"name\": \"br0\", \"ports\": "
      "null}]}",
      "config.json:1:39: \"ports\" must be an array of port objects, got "
      "null" },
    { "port not object", PORT1 "\"p1\"" END1,
      "config.json:1:40: each entry of \"ports\" must be an object, got "
      "\"p1\"" },
    { "other_config not object", "{\"bridges\": [], \"other_config\": []}",
      "config.json:1:33: \"other_config\" must be an object, got an array" },
    { "rule priority", "{\"bridges\": [{\"name\": \"br0\", \"rules\": "
      "[{\"priority\": 65536, \"actions\": \"drop\"}]}]}",
      "config.json:1:53: \"priority\" must be an integer from 0 to 65535, "
      "got 65536" },
    { "empty actions", "{\"bridges\": [{\"name\": \"br0\", \"rules\": "
      "[{\"actions\": \"\"}]}]}",
      "config.json:1:52: \"actions\" must be a non-empty string, got \"\"" },
    { "bad cookie", "{\"bridges\": [{\"name\": \"br0\", \"rules\": "
      "[{\"actions\": \"drop\", \"cookie\": \"12\"}]}]}",
      "config.json:1:70: \"cookie\" must be a non-negative integer or a "
      "hexadecimal string such as \"0x1f\", got \"12\"" },
    { "long value is cut", "{\"bridges\": [{\"name\": "
      "\"0123456789012345678901234567890123456789012345678901234567890123"
      "456789\"}]}",
      "config.json:1:23: \"name\" must be a name of 1 to 15 letters, "
      "digits, '-', '_' or '.', got "
      "\"012345678901234567890123456789012345678901234567890123456789..." },

    /* Names. */
    { "missing port name", PORT1 "{\"interface\": \"eth0\"}" END1,
      "config.json:1:40: port #1 of bridge \"br0\" is missing required key "
      "\"name\"" },
    { "missing bridge name", "{\"bridges\": [{\"ports\": []}]}",
      "config.json:1:14: bridge #1 is missing required key \"name\"" },
    { "missing bridges", "{}",
      "config.json:1:1: the configuration is missing required key "
      "\"bridges\"" },
    { "missing actions", "{\"bridges\": [{\"name\": \"br0\", \"rules\": "
      "[{\"priority\": 5}]}]}",
      "config.json:1:40: rule #1 of bridge \"br0\" is missing required key "
      "\"actions\"" },
    { "bridge name too long", "{\"bridges\": [{\"name\": "
      "\"br0123456789abcd\"}]}",
      "config.json:1:23: \"name\" must be a name of 1 to 15 letters, "
      "digits, '-', '_' or '.', got \"br0123456789abcd\"" },
    { "port name with comma", PORT1 "{\"name\": \"p,1\"}" END1,
      "config.json:1:49: \"name\" must be a name of 1 to 63 letters, "
      "digits, '-', '_' or '.', got \"p,1\"" },
    { "bad interface name", PORT1 "{\"name\": \"p1\", \"interface\": "
      "\"a/b\"}" END1,
      "config.json:1:68: \"interface\" must be an interface name of 1 to 15 "
      "characters without '/', ':' or blanks, got \"a/b\"" },
    { "port name not an interface name", PORT1 "{\"name\": "
      "\"abcdefghijklmnop\"}" END1,
      "config.json:1:49: port name \"abcdefghijklmnop\" is not a valid "
      "interface name; set \"interface\" to the kernel interface" },
    { "duplicate port name", "{\"bridges\": [{\"name\": \"br0\", \"ports\": "
      "[\n  {\"name\": \"p1\", \"interface\": \"veth-a\"},\n  {\"name\": "
      "\"p1\", \"interface\": \"veth-b\"}\n]}]}",
      "config.json:3:12: duplicate port name \"p1\" (first defined at "
      "2:12)" },
    { "duplicate port name across bridges", "{\"bridges\": [\n"
      "{\"name\": \"br0\", \"ports\": [{\"name\": \"p1\"}]},\n"
      "{\"name\": \"br1\", \"ports\": [{\"name\": \"p1\"}]}]}",
      "config.json:3:36: duplicate port name \"p1\" (first defined at "
      "2:36)" },
    { "duplicate bridge name", "{\"bridges\": [{\"name\": \"br0\"},\n"
      "{\"name\": \"br0\"}]}",
      "config.json:2:10: duplicate bridge name \"br0\" (first defined at "
      "1:23)" },
    { "duplicate interface", "{\"bridges\": [{\"name\": \"br0\", \"ports\": "
      "[\n  {\"name\": \"p1\", \"interface\": \"veth-a\"},\n  {\"name\": "
      "\"p2\", \"interface\": \"veth-a\"}\n]}]}",
      "config.json:3:31: interface \"veth-a\" is already used by port \"p1\" "
      "(at 2:31)" },
    { "duplicate default interface", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [\n  {\"name\": \"eth0\"},\n  {\"name\": \"p2\", "
      "\"interface\": \"eth0\"}\n]}]}",
      "config.json:3:31: interface \"eth0\" is already used by port \"eth0\" "
      "(at 2:12)" },
    { "bond member used by a port", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [\n  {\"name\": \"eth0\"},\n  {\"name\": \"b0\", \"type\": "
      "\"bond\", \"members\": [\"eth1\", \"eth0\"]}\n]}]}",
      "config.json:3:54: interface \"eth0\" is already used by port \"eth0\" "
      "(at 2:12)" },

    /* Keys that depend on the port type. */
    { "members on a non-bond", PORT1 "{\"name\": \"p1\", \"members\": "
      "[\"a\", \"b\"]}" END1,
      "config.json:1:55: \"members\" is only allowed on ports of type "
      "\"bond\"" },
    { "bond without members", PORT1 "{\"name\": \"b0\", \"type\": \"bond\"}"
      END1,
      "config.json:1:40: port \"b0\" is missing required key \"members\" "
      "(ports of type \"bond\" need it)" },
    { "bond with no members", PORT1 "{\"name\": \"b0\", \"type\": \"bond\", "
      "\"members\": []}" END1,
      "config.json:1:82: \"members\" must list 1 to 32 interfaces, got 0" },
    { "bond_mode on a non-bond", PORT1 "{\"name\": \"p1\", \"options\": "
      "{\"bond_mode\": \"balance-tcp\"}}" END1,
      "config.json:1:67: \"bond_mode\" is only allowed on ports of type "
      "\"bond\"" },
    { "interface on a bond", PORT1 "{\"name\": \"b0\", \"type\": \"bond\", "
      "\"interface\": \"x\", \"members\": [\"a\"]}" END1,
      "config.json:1:71: \"interface\" is not allowed on ports of type "
      "\"bond\"; list the member interfaces in \"members\"" },
    { "create on a bond", PORT1 "{\"name\": \"b0\", \"type\": \"bond\", "
      "\"members\": [\"a\"], \"create\": true}" END1,
      "config.json:1:89: \"create\": true is not allowed on ports of type "
      "\"bond\"; create the member interfaces instead" },
    { "xdp-mode on a system port", PORT1 "{\"name\": \"p1\", \"options\": "
      "{\"xdp-mode\": \"native\"}}" END1,
      "config.json:1:67: \"xdp-mode\" is only allowed on ports of type "
      "\"afxdp\"" },
    { "xdp-mode on a tap", PORT1 "{\"name\": \"t1\", \"type\": \"tap\", "
      "\"options\": {\"xdp-mode\": \"generic\"}}" END1,
      "config.json:1:82: \"xdp-mode\" is only allowed on ports of type "
      "\"afxdp\"" },
#ifdef HAVE_AFXDP
    { "bad xdp-mode", PORT1 "{\"name\": \"p1\", \"type\": \"afxdp\", "
      "\"options\": {\"xdp-mode\": \"skb\"}}" END1,
      "config.json:1:96: \"xdp-mode\" must be one of \"native\", "
      "\"generic\", got \"skb\"" },
    { "xdp-mode not a string", PORT1 "{\"name\": \"p1\", \"type\": "
      "\"afxdp\", \"options\": {\"xdp-mode\": 1}}" END1,
      "config.json:1:96: \"xdp-mode\" must be one of \"native\", "
      "\"generic\", got 1" },
    { "create on afxdp", PORT1 "{\"name\": \"p1\", \"type\": \"afxdp\", "
      "\"create\": true}" END1,
      "config.json:1:72: \"create\": true is not allowed on ports of type "
      "\"afxdp\"; AF_XDP attaches to an existing interface" },
#else
    { "afxdp without libxdp", PORT1 "{\"name\": \"p1\", \"type\": "
      "\"afxdp\"}" END1,
      "config.json:1:63: port \"p1\": type afxdp: this build has no AF_XDP "
      "support (configure found no libxdp)" },
#endif
    { "peer without create", PORT1 "{\"name\": \"p1\", \"options\": "
      "{\"peer\": \"p1-ns\"}}" END1,
      "config.json:1:67: \"peer\" is only allowed on ports of type "
      "\"patch\", and of type \"system\" with \"create\": true" },
    { "peer on a tap", PORT1 "{\"name\": \"t1\", \"type\": \"tap\", "
      "\"create\": true, \"options\": {\"peer\": \"x\"}}" END1,
      "config.json:1:98: \"peer\" is only allowed on ports of type "
      "\"patch\", and of type \"system\" with \"create\": true" },
    { "patch without peer", PORT1 "{\"name\": \"x0\", \"type\": "
      "\"patch\"}" END1,
      "config.json:1:40: port \"x0\" is missing \"peer\" in "
      "\"options\" (ports of type \"patch\" need it: the patch port on "
      "the other bridge)" },
    { "patch with an interface", PORT1 "{\"name\": \"x0\", \"type\": "
      "\"patch\", \"interface\": \"eth0\", \"options\": {\"peer\": "
      "\"x1\"}}" END1,
      "config.json:1:72: \"interface\" is not allowed on ports "
      "of type \"patch\"; a patch port has no kernel interface" },
    { "patch with create", PORT1 "{\"name\": \"x0\", \"type\": "
      "\"patch\", \"create\": true, \"options\": {\"peer\": \"x1\"}}"
      END1,
      "config.json:1:72: \"create\": true is not allowed on "
      "ports of type \"patch\"; a patch port has no kernel interface" },
    { "patch peer not a patch", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"x0\", \"type\": \"patch\", "
      "\"options\": {\"peer\": \"x1\"}}]}, {\"name\": \"br1\", "
      "\"ports\": [{\"name\": \"x1\", \"type\": \"dummy\"}]}]}", 
      "config.json:1:40: patch port x0: its peer x1 is a port "
      "of type \"dummy\", not \"patch\"" },
    { "patch peers not mirrored", "{\"bridges\": [{\"name\": \"br0\", "
      "\"ports\": [{\"name\": \"x0\", \"type\": \"patch\", "
      "\"options\": {\"peer\": \"x1\"}}, {\"name\": \"x2\", "
      "\"type\": \"dummy\"}]}, {\"name\": \"br1\", \"ports\": "
      "[{\"name\": \"x1\", \"type\": \"patch\", \"options\": "
      "{\"peer\": \"x2\"}}]}]}", 
      "config.json:1:40: patch port x0: its peer x1 names x2 "
      "as its own peer, not x0" },
    { "patch on one bridge", PORT1 "{\"name\": \"x0\", \"type\": "
      "\"patch\", \"options\": {\"peer\": \"x1\"}}, {\"name\": "
      "\"x1\", \"type\": \"patch\", \"options\": {\"peer\": "
      "\"x0\"}}" END1,
      "config.json:1:40: patch port x0: its peer x1 is on the "
      "same bridge br0; a patch joins two bridges" },
    { "internal with create", PORT1 "{\"name\": \"gw\", \"type\": "
      "\"internal\", \"create\": true}" END1,
      "config.json:1:75: \"create\" is not allowed on ports of "
      "type \"internal\"; pmdswitchd always creates their interface" },
    { "peer not an interface name", PORT1 "{\"name\": \"p1\", \"create\": "
      "true, \"options\": {\"peer\": \"a/b\"}}" END1,
      "config.json:1:91: \"peer\" must be a name of 1 to 63 letters, "
      "digits, '-', '_' or '.', got \"a/b\"" },
    { "default peer name too long", PORT1 "{\"name\": \"p1\", \"interface\": "
      "\"abcdefghijklm\", \"create\": true}" END1,
      "config.json:1:85: the default veth peer name \"abcdefghijklm-peer\" "
      "is too long; set \"peer\" in \"options\"" },
    { "tag and trunks", PORT1 "{\"name\": \"p1\", \"trunks\": [5], "
      "\"tag\": 5}" END1,
      "config.json:1:70: \"tag\" and \"trunks\" cannot both be set "
      "without \"vlan_mode\": set it to \"native-tagged\" or "
      "\"native-untagged\" for a trunk with a native VLAN" },
    { "trunks and tag", PORT1 "{\"name\": \"p1\", \"tag\": 5,\n"
      "  \"trunks\": [6]}" END1,
      "config.json:2:3: \"tag\" and \"trunks\" cannot both be set "
      "without \"vlan_mode\": set it to \"native-tagged\" or "
      "\"native-untagged\" for a trunk with a native VLAN" },

    /* VLAN modes. */
    { "unknown vlan_mode", PORT1 "{\"name\": \"p1\", \"vlan_mode\": "
      "\"hybrid\"}" END1,
      "config.json:1:68: \"vlan_mode\" must be one of \"trunk\", "
      "\"access\", \"native-tagged\", \"native-untagged\", got \"hybrid\"" },
    { "vlan_mode is case-sensitive", PORT1 "{\"name\": \"p1\", "
      "\"vlan_mode\": \"Access\", \"tag\": 1}" END1,
      "config.json:1:68: \"vlan_mode\" must be one of \"trunk\", "
      "\"access\", \"native-tagged\", \"native-untagged\", got \"Access\"" },
    { "vlan_mode not a string", PORT1 "{\"name\": \"p1\", \"vlan_mode\": "
      "1}" END1,
      "config.json:1:68: \"vlan_mode\" must be one of \"trunk\", "
      "\"access\", \"native-tagged\", \"native-untagged\", got 1" },
    { "access without tag", PORT1 "{\"name\": \"p1\",\n"
      "  \"vlan_mode\": \"access\"}" END1,
      "config.json:2:3: \"vlan_mode\": \"access\" needs a \"tag\" (the "
      "VLAN of the port)" },
    { "access with trunks", PORT1 "{\"name\": \"p1\", \"vlan_mode\": "
      "\"access\", \"tag\": 10,\n  \"trunks\": [20]}" END1,
      "config.json:2:3: \"trunks\" is not allowed with \"vlan_mode\": "
      "\"access\": an access port carries only its \"tag\" VLAN" },
    { "access with empty trunks", PORT1 "{\"name\": \"p1\", "
      "\"trunks\": [],\n \"vlan_mode\": \"access\", \"tag\": 10}" END1,
      "config.json:1:55: \"trunks\" is not allowed with \"vlan_mode\": "
      "\"access\": an access port carries only its \"tag\" VLAN" },
    { "trunk with tag", PORT1 "{\"name\": \"p1\", \"vlan_mode\": "
      "\"trunk\",\n  \"tag\": 10}" END1,
      "config.json:2:3: \"tag\" is not allowed with \"vlan_mode\": "
      "\"trunk\": a trunk has no VLAN of its own; use \"native-tagged\" or "
      "\"native-untagged\" to give it a native VLAN" },
    { "tag before trunk mode", PORT1 "{\"name\": \"p1\", \"tag\": 10, "
      "\"trunks\": [20], \"vlan_mode\": \"trunk\"}" END1,
      "config.json:1:55: \"tag\" is not allowed with \"vlan_mode\": "
      "\"trunk\": a trunk has no VLAN of its own; use \"native-tagged\" or "
      "\"native-untagged\" to give it a native VLAN" },
    { "native-tagged without tag", PORT1 "{\"name\": \"p1\", "
      "\"trunks\": [10],\n    \"vlan_mode\": \"native-tagged\"}" END1,
      "config.json:2:5: \"vlan_mode\": \"native-tagged\" needs a \"tag\" "
      "(the native VLAN)" },
    { "native-untagged without tag", PORT1 "{\"name\": \"p1\", "
      "\"vlan_mode\": \"native-untagged\"}" END1,
      "config.json:1:55: \"vlan_mode\": \"native-untagged\" needs a "
      "\"tag\" (the native VLAN)" },
    { "native with tag out of range", PORT1 "{\"name\": \"p1\", "
      "\"vlan_mode\": \"native-untagged\", \"tag\": 0}" END1,
      "config.json:1:94: \"tag\" must be an integer from 1 to 4094, got "
      "0" },

    /* other_config values. */
    { "bad hex mask", "{\"bridges\": [], \"other_config\": "
      "{\"pmd-cpu-mask\": \"0xg\"}}",
      "config.json:1:50: \"pmd-cpu-mask\" must be a nonzero hexadecimal CPU "
      "mask of at most 256 digits, such as \"0x6\", got \"0xg\"" },
    { "zero mask", "{\"bridges\": [], \"other_config\": "
      "{\"pmd-cpu-mask\": \"0x000\"}}",
      "config.json:1:50: \"pmd-cpu-mask\" must be a nonzero hexadecimal CPU "
      "mask of at most 256 digits, such as \"0x6\", got \"0x000\"" },
    { "mask as integer", "{\"bridges\": [], \"other_config\": "
      "{\"pmd-cpu-mask\": 2}}",
      "config.json:1:50: \"pmd-cpu-mask\" must be a nonzero hexadecimal CPU "
      "mask of at most 256 digits, such as \"0x6\", got 2" },
    { "mac-aging-time too small", "{\"bridges\": [], \"other_config\": "
      "{\"mac-aging-time\": 5}}",
      "config.json:1:52: \"mac-aging-time\" must be an integer from 15 to "
      "3600, got 5" },
    { "emc-insert-inv-prob too big", "{\"bridges\": [], \"other_config\": "
      "{\"emc-insert-inv-prob\": 4294967296}}",
      "config.json:1:57: \"emc-insert-inv-prob\" must be an integer from 0 "
      "to 4294967295, got 4294967296" },
    { "pmd-sleep-max negative", "{\"bridges\": [], \"other_config\": "
      "{\"pmd-sleep-max\": -1}}",
      "config.json:1:51: \"pmd-sleep-max\" must be an integer from 0 to "
      "10000, got -1" },
    { "smc-enable as string", "{\"bridges\": [], \"other_config\": "
      "{\"smc-enable\": \"true\"}}",
      "config.json:1:48: \"smc-enable\" must be true or false, got "
      "\"true\"" },
    { "pmd-rxq-assign unknown", "{\"bridges\": [], \"other_config\": "
      "{\"pmd-rxq-assign\": \"group\"}}",
      "config.json:1:52: \"pmd-rxq-assign\" must be one of \"roundrobin\", "
      "\"cycles\", got \"group\"" },
    { "first error in document order wins", "{\"other_config\": "
      "{\"smc-enable\": 1},\n \"bridges\": 5}",
      "config.json:1:33: \"smc-enable\" must be true or false, got 1" },
};

/* A bond's "bond-rebalance-interval" option: the limits and a value in
 * between are kept as given. */
static void
test_bond_rebalance_interval(void)
{
    static const struct {
        const char *value;
        int expected;
    } cases[] = {
        { "0", 0 }, { "1", 1 }, { "250", 250 }, { "10000", 10000 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct pmd_config *config;
        char *text;

        text = xasprintf(PORT1 "{\"name\": \"b\", \"type\": \"bond\", "
                         "\"members\": [\"e1\", \"e2\"], \"options\": "
                         "{\"bond_mode\": \"balance-slb\", "
                         "\"bond-rebalance-interval\": %s}}" END1,
                         cases[i].value);
        config = parse_ok(text);
        if (config && config->n_bridges == 1
            && config->bridges[0].n_ports == 1) {
            const struct config_port *p = &config->bridges[0].ports[0];

            CHECK_INT(p->bond_rebalance_interval, cases[i].expected);
            CHECK_STR(p->bond_mode, "balance-slb");
        } else {
            CHECK(false, "bond-rebalance-interval %s: not parsed",
                  cases[i].value);
        }
        config_destroy(config);
        free(text);
    }
}

/* An "afxdp" port: "xdp-mode" defaults to "native", takes "generic",
 * and other ports have none; "create": false is allowed. */
static void
test_afxdp_ports(void)
{
#ifdef HAVE_AFXDP
    static const struct {
        const char *port;
        const char *mode;
    } cases[] = {
        { "{\"name\": \"x1\", \"type\": \"afxdp\"}", "native" },
        { "{\"name\": \"x1\", \"type\": \"afxdp\", \"options\": "
          "{\"xdp-mode\": \"native\"}}", "native" },
        { "{\"name\": \"x1\", \"type\": \"afxdp\", \"create\": false, "
          "\"options\": {\"xdp-mode\": \"generic\", \"n_rxq\": 2}}",
          "generic" },
        { "{\"name\": \"x1\"}", NULL },
        { "{\"name\": \"x1\", \"type\": \"tap\"}", NULL },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *text = xasprintf(PORT1 "%s" END1, cases[i].port);
        struct pmd_config *config = parse_ok(text);

        if (config && config->n_bridges == 1
            && config->bridges[0].n_ports == 1) {
            const struct config_port *p = &config->bridges[0].ports[0];

            CHECK_INT(p->type == CONFIG_PORT_AFXDP, cases[i].mode != NULL);
            CHECK_STR(p->xdp_mode, cases[i].mode);
            CHECK_STR(p->interface, "x1");
            CHECK_STR(config_port_type_to_string(p->type),
                      cases[i].mode ? "afxdp"
                      : strstr(cases[i].port, "tap") ? "tap" : "system");
        } else {
            CHECK(false, "case %zu: not parsed", i);
        }
        config_destroy(config);
        free(text);
    }
#endif
}

/* A "vxlan" port: defaults, numbers as strings (what add-port writes),
 * remotes as a list or one comma-separated string, "key": "flow", and
 * "tos": "inherit". */
static void
test_vxlan_ports(void)
{
    static const struct {
        const char *options;
        size_t n_remotes;
        uint32_t key;
        bool key_flow;
        int dst_port, ttl, tos;
        const char *local_ip;
    } cases[] = {
        { "{\"remote_ip\": \"192.0.2.2\"}", 1, 0, false, 4789, 64, 0,
          "0.0.0.0" },
        { "{\"remote_ip\": [\"192.0.2.2\", \"192.0.2.3\"], \"key\": 42, "
          "\"local_ip\": \"192.0.2.1\", \"dst_port\": 8472, \"ttl\": 8, "
          "\"tos\": \"inherit\"}", 2, 42, false, 8472, 8, -1, "192.0.2.1" },
        { "{\"remote_ip\": \"192.0.2.2,192.0.2.3,192.0.2.4\", \"key\": "
          "\"flow\", \"dst_port\": \"4790\", \"tos\": \"16\"}", 3, 0,
          true, 4790, 64, 16, "0.0.0.0" },
        { "{\"key\": \"16777215\", \"remote_ip\": \"192.0.2.2\"}", 1,
          16777215, false, 4789, 64, 0, "0.0.0.0" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *text = xasprintf(PORT1 "{\"name\": \"vx0\", \"type\": "
                               "\"vxlan\", \"options\": %s}" END1,
                               cases[i].options);
        struct pmd_config *config = parse_ok(text);

        if (config && config->bridges[0].n_ports == 1) {
            const struct config_port *p = &config->bridges[0].ports[0];
            const struct netdev_vxlan_options *vx = p->vxlan;
            char local[INET_ADDRSTRLEN];

            CHECK_INT(p->type, CONFIG_PORT_VXLAN);
            CHECK(vx != NULL, "case %zu: no vxlan options", i);
            if (vx) {
                CHECK_INT(vx->n_remotes, cases[i].n_remotes);
                CHECK_INT(vx->key, cases[i].key);
                CHECK_INT(vx->key_flow, cases[i].key_flow);
                CHECK_INT(vx->dst_port, cases[i].dst_port);
                CHECK_INT(vx->ttl, cases[i].ttl);
                CHECK_INT(vx->tos, cases[i].tos);
                inet_ntop(AF_INET, &vx->local_ip, local, sizeof local);
                CHECK_STR(local, cases[i].local_ip);
            }
        } else {
            CHECK(false, "case %zu: not parsed", i);
        }
        config_destroy(config);
        free(text);
    }
}

static void
test_errors(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++) {
        const struct error_case *c = &error_cases[i];
        struct pmd_config *config;
        char *error = NULL;

        config = config_parse_string(c->text, "config.json", &error);
        CHECK(!config, "%s: parsed but should have failed", c->title);
        CHECK(error && !strcmp(error, c->expected),
              "%s:\n    got      %s\n    expected %s", c->title,
              error ? error : "(no error)", c->expected);
        config_destroy(config);
        free(error);
    }

    /* A NULL 'errp' is allowed. */
    CHECK(!config_parse_string("{", NULL, NULL), "NULL errp");
}

struct other_set_case {
    const char *key;
    const char *value;
    const char *expected_error;     /* NULL: success. */
    const char *expected_line;      /* In the format output, on success. */
};

static const struct other_set_case other_set_cases[] = {
    { "mac-aging-time", "600", NULL, "mac-aging-time=600\n" },
    { "mac-aging-time", " 600 ", NULL, "mac-aging-time=600\n" },
    { "mac-aging-time", "14", "\"mac-aging-time\" must be an integer from 15 "
      "to 3600, got 14", NULL },
    { "mac-aging-time", "abc", "\"mac-aging-time\" must be an integer from "
      "15 to 3600, got \"abc\"", NULL },
    { "mac-aging-time", "[1]", "\"mac-aging-time\" must be an integer from "
      "15 to 3600, got \"[1]\"", NULL },
    { "smc-enable", "false", NULL, "smc-enable=false\n" },
    { "smc-enable", "0", "\"smc-enable\" must be true or false, got 0",
      NULL },
    { "pmd-cpu-mask", "0X0F", NULL, "pmd-cpu-mask=0xf\n" },
    { "pmd-cpu-mask", "ff", NULL, "pmd-cpu-mask=0xff\n" },
    { "pmd-cpu-mask", "0x", "\"pmd-cpu-mask\" must be a nonzero hexadecimal "
      "CPU mask of at most 256 digits, such as \"0x6\", got \"0x\"", NULL },
    { "pmd-rxq-assign", "roundrobin", NULL, "pmd-rxq-assign=roundrobin\n" },
    { "pmd-rxq-assign", "\"cycles\"", "\"pmd-rxq-assign\" must be one of "
      "\"roundrobin\", \"cycles\", got \"\\\"cycles\\\"\"", NULL },
    { "emc-insert-inv-prob", "0", NULL, "emc-insert-inv-prob=0\n" },
    { "flow-idle-timeout", "99", "\"flow-idle-timeout\" must be an integer "
      "from 100 to 3600000, got 99", NULL },
    { "flow-limit", "0", NULL, "flow-limit=0\n" },
    { "flow-limit", "10000001", "\"flow-limit\" must be an integer from 0 "
      "to 10000000, got 10000001", NULL },
    { "no-such-key", "1", "unknown key \"no-such-key\" (known keys: "
      "pmd-cpu-mask, use-tpacket-v3, emc-insert-inv-prob, smc-enable, "
      "userspace-tso-enable, pmd-sleep-max, tx-flush-interval, "
      "pmd-rxq-assign, bond-rebalance-interval, mac-aging-time, "
      "flow-idle-timeout, flow-limit, mac-table-size, mac-learn-rate, "
      "metrics-address, gro-enable, pmd-sleep-predict)", NULL },
    { "metrics-address", "127.0.0.1:9540", NULL,
      "metrics-address=127.0.0.1:9540\n" },
    { "metrics-address", "[::]:1", NULL, "metrics-address=[::]:1\n" },
    { "metrics-address", "", NULL, "" },
    { "metrics-address", "localhost:9540", "\"metrics-address\" must be "
      "\"\" or an IP address and a port, such as \"127.0.0.1:9540\" or "
      "\"[::1]:9540\", got \"localhost:9540\"", NULL },
    { "metrics-address", "127.0.0.1:65536", "\"metrics-address\" must be "
      "\"\" or an IP address and a port, such as \"127.0.0.1:9540\" or "
      "\"[::1]:9540\", got \"127.0.0.1:65536\"", NULL },
    { "metrics-address", "::1:9540", "\"metrics-address\" must be "
      "\"\" or an IP address and a port, such as \"127.0.0.1:9540\" or "
      "\"[::1]:9540\", got \"::1:9540\"", NULL },
    { "metrics-address", "[::1]:95x", "\"metrics-address\" must be "
      "\"\" or an IP address and a port, such as \"127.0.0.1:9540\" or "
      "\"[::1]:9540\", got \"[::1]:95x\"", NULL },
    { "userspace-tso-enable", "true", NULL, "userspace-tso-enable=true\n" },
};

static void
test_other_set(void)
{
    char before[CONFIG_OTHER_FORMAT_SIZE], after[CONFIG_OTHER_FORMAT_SIZE];
    struct config_other other;

    for (size_t i = 0; i < ARRAY_SIZE(other_set_cases); i++) {
        const struct other_set_case *c = &other_set_cases[i];
        enum config_other_key k = config_other_key_from_name(c->key);
        char *error;

        config_other_init(&other);
        config_other_format(&other, before, sizeof before);
        error = config_other_set(&other, c->key, c->value);
        config_other_format(&other, after, sizeof after);
        if (c->expected_error) {
            CHECK(error && !strcmp(error, c->expected_error),
                  "set %s=%s:\n    got      %s\n    expected %s", c->key,
                  c->value, error ? error : "(success)", c->expected_error);
            CHECK(!strcmp(before, after), "set %s=%s changed the values",
                  c->key, c->value);
            CHECK(k == CONFIG_OTHER_N_KEYS || !other.set[k],
                  "set %s=%s marked the key set", c->key, c->value);
        } else {
            CHECK(!error, "set %s=%s: %s", c->key, c->value, error);
            CHECK(strstr(after, c->expected_line) != NULL,
                  "set %s=%s: \"%s\" not in:\n%s", c->key, c->value,
                  c->expected_line, after);
            CHECK(k < CONFIG_OTHER_N_KEYS && other.set[k],
                  "set %s=%s did not mark the key set", c->key, c->value);
        }
        free(error);
    }

    /* A NULL value returns the key to its default. */
    config_other_init(&other);
    CHECK(!config_other_set(&other, "pmd-cpu-mask", "0x6"), "set mask");
    CHECK_INT(CPU_COUNT(&other.pmd_cpus), 2);
    CHECK(!config_other_set(&other, "pmd-cpu-mask", NULL), "reset mask");
    CHECK_STR(other.pmd_cpu_mask, "");
    CHECK_INT(CPU_COUNT(&other.pmd_cpus), 0);
    CHECK(!other.set[CONFIG_OTHER_PMD_CPU_MASK], "mask still marked set");
    config_other_format(&other, after, sizeof after);
    CHECK(!strstr(after, "pmd-cpu-mask"), "unset mask is listed");

    /* The widest mask fits, one more digit does not. */
    {
        char mask[CONFIG_CPU_MASK_MAX_DIGITS + 4];
        char *error;

        memset(mask, 'f', sizeof mask);
        mask[CONFIG_CPU_MASK_MAX_DIGITS] = '\0';
        error = config_other_set(&other, "pmd-cpu-mask", mask);
        CHECK(!error, "widest mask: %s", error);
        CHECK_INT(CPU_COUNT(&other.pmd_cpus), CPU_SETSIZE);
        free(error);
        mask[CONFIG_CPU_MASK_MAX_DIGITS] = 'f';
        mask[CONFIG_CPU_MASK_MAX_DIGITS + 1] = '\0';
        error = config_other_set(&other, "pmd-cpu-mask", mask);
        CHECK(error != NULL, "too wide a mask was accepted");
        free(error);
    }

    CHECK_INT(config_other_key_from_name("smc-enable"),
              CONFIG_OTHER_SMC_ENABLE);
    CHECK_STR(config_other_key_name(CONFIG_OTHER_FLOW_IDLE_TIMEOUT),
              "flow-idle-timeout");
    CHECK_STR(config_port_type_to_string(CONFIG_PORT_BOND), "bond");
    CHECK_STR(config_rxq_assign_to_string(CONFIG_RXQ_ASSIGN_ROUNDROBIN),
              "roundrobin");
}

static void
test_file(void)
{
    char path[] = "/tmp/test-config-XXXXXX";
    struct pmd_config *config;
    char *error = NULL;
    char *expected;
    FILE *file;
    int fd;

    fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
    if (fd < 0) {
        return;
    }
    file = fdopen(fd, "w");
    fputs(design_example, file);
    fclose(file);

    config = config_parse_file(path, &error);
    CHECK(config && !error, "parse %s: %s", path, error ? error : "?");
    CHECK(config && config->n_bridges == 1, "bridges in file");
    config_destroy(config);
    free(error);

    /* Errors name the file as given. */
    file = fopen(path, "w");
    fputs("{\"bridges\": [],\n \"x\": 1}\n", file);
    fclose(file);
    error = NULL;
    config = config_parse_file(path, &error);
    expected = xasprintf("%s:2:2: unknown key \"x\" in the configuration "
                         "(known keys: bridges, other_config)", path);
    CHECK(!config && error && !strcmp(error, expected),
          "got %s, expected %s", error ? error : "(none)", expected);
    free(expected);
    free(error);

    unlink(path);
    error = NULL;
    config = config_parse_file(path, &error);
    expected = xasprintf("%s: cannot open: %s", path, strerror(ENOENT));
    CHECK(!config && error && !strcmp(error, expected),
          "got %s, expected %s", error ? error : "(none)", expected);
    free(expected);
    free(error);
}

/* Mutates the example at random (fixed seed).  The parser must never crash
 * or leak, and must point every error about JSON that parses at a
 * line:column. */
static void
test_mutations(void)
{
    static const char alphabet[] = "{}[]\":, \n0123456789-.eEtrufalsn\\u";
    size_t len = strlen(design_example);
    char *text = xmalloc(len + 1);
    unsigned int seed = 12345;
    int n_ok = 0, n_positioned = 0;

    for (int iter = 0; iter < 20000; iter++) {
        struct pmd_config *config;
        char *error = NULL;
        int n_edits;

        memcpy(text, design_example, len + 1);
        n_edits = 1 + rand_r(&seed) % 3;
        for (int e = 0; e < n_edits; e++) {
            size_t pos = rand_r(&seed) % len;

            text[pos] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        }
        config = config_parse_string(text, "m.json", &error);
        if (config) {
            n_ok++;
            CHECK(!error, "success with an error");
        } else {
            int line, column;

            CHECK(error && !strncmp(error, "m.json:", 7),
                  "mutation %d: bad error %s", iter, error ? error : "-");
            if (error && sscanf(error, "m.json:%d:%d:", &line, &column) == 2
                && line > 0 && column > 0) {
                n_positioned++;
            } else {
                CHECK(false, "mutation %d: error without position: %s", iter,
                      error ? error : "-");
            }
        }
        config_destroy(config);
        free(error);
    }
    free(text);
    CHECK(n_ok > 0 && n_positioned > 0, "mutations: %d ok, %d errors",
          n_ok, n_positioned);
}

/* "create" on a system port: the veth peer's name, given or default. */
/* "vlan_mode" with "tag" and "trunks": the resolved mode, OVS's defaults
 * included, and what is kept. */
static void
test_vlan_modes(void)
{
    static const struct {
        const char *port;       /* Keys of port p1 after its name. */
        enum config_vlan_mode mode;
        int tag;
        size_t n_trunks;
    } cases[] = {
        { "", CONFIG_VLAN_TRUNK, 0, 0 },
        { ", \"tag\": 10", CONFIG_VLAN_ACCESS, 10, 0 },
        { ", \"trunks\": [10, 20]", CONFIG_VLAN_TRUNK, 0, 2 },
        { ", \"trunks\": []", CONFIG_VLAN_TRUNK, 0, 0 },
        { ", \"vlan_mode\": \"trunk\"", CONFIG_VLAN_TRUNK, 0, 0 },
        { ", \"vlan_mode\": \"trunk\", \"trunks\": [4094]",
          CONFIG_VLAN_TRUNK, 0, 1 },
        { ", \"tag\": 1, \"vlan_mode\": \"access\"", CONFIG_VLAN_ACCESS,
          1, 0 },
        { ", \"vlan_mode\": \"native-tagged\", \"tag\": 10",
          CONFIG_VLAN_NATIVE_TAGGED, 10, 0 },
        { ", \"vlan_mode\": \"native-untagged\", \"tag\": 10, "
          "\"trunks\": [20, 30]", CONFIG_VLAN_NATIVE_UNTAGGED, 10, 2 },
        { ", \"trunks\": [10], \"tag\": 10, \"vlan_mode\": "
          "\"native-untagged\"", CONFIG_VLAN_NATIVE_UNTAGGED, 10, 1 },
        { ", \"type\": \"bond\", \"members\": [\"e1\"], \"tag\": 7",
          CONFIG_VLAN_ACCESS, 7, 0 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *text = xasprintf("{\"bridges\": [{\"name\": \"br0\", "
                               "\"ports\": [{\"name\": \"p1\"%s}]}]}",
                               cases[i].port);
        struct pmd_config *cfg = parse_ok(text);
        const struct config_port *p;

        if (cfg) {
            p = &cfg->bridges[0].ports[0];
            CHECK(p->vlan_mode == cases[i].mode, "%s: mode %s, expected %s",
                  text, config_vlan_mode_to_string(p->vlan_mode),
                  config_vlan_mode_to_string(cases[i].mode));
            CHECK_INT(p->tag, cases[i].tag);
            CHECK_INT(p->n_trunks, cases[i].n_trunks);
        }
        config_destroy(cfg);
        free(text);
    }
    CHECK_STR(config_vlan_mode_to_string(CONFIG_VLAN_NATIVE_TAGGED),
              "native-tagged");
    CHECK_STR(config_vlan_mode_to_string(99), "?");
}

static void
test_veth_peer(void)
{
    static const char text[] =
        "{\"bridges\": [{\"name\": \"br0\", \"ports\": ["
        "{\"name\": \"p1\", \"create\": true},"
        "{\"name\": \"p2\", \"interface\": \"ve2\", \"create\": true,"
        " \"options\": {\"peer\": \"ve2-ns\"}}]}]}";
    char *error = NULL;
    struct pmd_config *cfg = config_parse_string(text, "config.json",
                                                 &error);
    char *peer;

    CHECK(cfg, "parse: %s", error ? error : "");
    free(error);
    if (!cfg) {
        return;
    }
    CHECK(cfg->bridges[0].ports[0].create, "p1 create");
    CHECK(!cfg->bridges[0].ports[0].peer, "p1 has no explicit peer");
    peer = config_port_peer(&cfg->bridges[0].ports[0]);
    CHECK_STR(peer, "p1-peer");
    free(peer);
    CHECK_STR(cfg->bridges[0].ports[1].peer, "ve2-ns");
    peer = config_port_peer(&cfg->bridges[0].ports[1]);
    CHECK_STR(peer, "ve2-ns");
    free(peer);
    config_destroy(cfg);
}

int
main(void)
{
    test_design_example();
    test_defaults();
    test_other_values();
    test_errors();
    test_afxdp_ports();
    test_vxlan_ports();
    test_bond_rebalance_interval();
    test_other_set();
    test_file();
    test_mutations();
    test_veth_peer();
    test_vlan_modes();

    return check_finish("test-config");
}
