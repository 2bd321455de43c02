/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The JSON configuration file: parsing and validation into plain C
 * structures.  Nothing here touches the system (no interface lookups, no
 * CPU checks); config-apply compares the result with the running state.
 *
 * The schema, with every default:
 *
 *   { "bridges": [ {                              required, may be empty
 *         "name": "br0",                          required, 1-15 chars
 *         "ports": [ {
 *             "name": "p1",                       required, unique
 *             "interface": "veth-a",              default: the port name
 *             "type": "system",                   "system", "tap", "bond",
 *                                                 "afxdp" (if built with
 *                                                 libxdp), "dummy" (no
 *                                                 kernel interface),
 *                                                 "patch", "internal"
 *             "create": false,                    not for "bond", "afxdp",
 *                                                 "dummy", "patch",
 *                                                 "internal" (always
 *                                                 created)
 *             "vlan_mode": "access",              see below
 *             "tag": 10,                          access or native VLAN,
 *                                                 1..4094
 *             "trunks": [10, 20],                 VLANs, 1..4094; [] = all
 *             "members": ["eth0", "eth1"],        bonds only, required
 *             "options": { "n_rxq": 1,            1..64
 *                          "bond_mode": "active-backup",
 *                          "bond-rebalance-interval": 10000,
 *                                                 bonds only, ms, 0..10000
 *                                                 (0: never rebalance)
 *                          "peer": "x1",      patch only, required:
 *                                                 the patch port on the
 *                                                 other bridge, whose
 *                                                 "peer" names this one;
 *                                                 system with "create":
 *                                                 the veth peer's name
 *                          "xdp-mode": "native",
 *                                                 afxdp only: "native" or
 *                                                 "generic"
 *                          "pcap": "/tmp/p1.pcap" } } ],
 *                                                 dummy only: write what
 *                                                 the port transmits there
 *         "rules": [ { "priority": 32768,         0..65535
 *                      "match": "",               ovs-ofctl syntax
 *                      "actions": "normal",       required
 *                      "cookie": 0 } ] } ],       integer or "0x..." string
 *     "other_config": { ... } }                   see config-other.h
 *
 * "vlan_mode" has Open vSwitch's names and meanings: "access" (untagged
 * frames of VLAN "tag"; needs "tag", forbids "trunks"), "trunk" (tagged
 * frames of the VLANs in "trunks", and untagged frames too if "trunks" is
 * left out or empty; forbids "tag"), "native-tagged" and "native-untagged"
 * (a trunk whose untagged frames belong to the native VLAN "tag", which
 * it also carries; needs "tag"; the native VLAN leaves tagged or untagged
 * respectively).  Without "vlan_mode", a port with "tag" is an access port
 * and any other port a trunk; "tag" with "trunks" then needs a native
 * mode.
 *
 * Any key not in the schema is an error.  Every error is one message that
 * starts with "FILE:LINE:COLUMN: " pointing at the offending key or value
 * (at the object's opening brace for a missing key).
 *
 * All functions may be called from any thread; none keeps global state.
 */
#ifndef CONFIG_H
#define CONFIG_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "base/compiler.h"
#include "config/config-other.h"

struct config_mirror;
struct netdev_vxlan_options;

enum config_port_type {
    CONFIG_PORT_SYSTEM,         /* An existing kernel interface. */
    CONFIG_PORT_TAP,            /* A tap device, opened or created. */
    CONFIG_PORT_BOND,           /* A bond over 'members'. */
    CONFIG_PORT_AFXDP,          /* An existing interface through AF_XDP
                                 * sockets (builds with HAVE_AFXDP). */
    CONFIG_PORT_DUMMY,          /* No kernel interface: frames injected and
                                 * read back through appctl (tests). */
    CONFIG_PORT_PATCH,          /* Joins two bridges inside the datapath:
                                 * output on one end is input on the
                                 * other, 'peer'. */
    CONFIG_PORT_INTERNAL,       /* The bridge's own interface in the host
                                 * stack: a tap pmdswitchd creates and
                                 * deletes with the port. */
    CONFIG_PORT_VXLAN,          /* A VXLAN tunnel through the kernel's UDP
                                 * stack, set by 'vxlan'. */
};

/* One rule of a bridge's rule table, kept as text until the rule table
 * parses it. */
struct config_rule {
    int priority;               /* 0..65535; default 32768. */
    char *match;                /* "" matches everything. */
    char *actions;              /* Never empty. */
    uint64_t cookie;            /* Default 0. */
    int line, column;           /* Where the rule's object starts, for
                                 * error messages about its text. */
};

/* How a port carries VLANs (the "vlan_mode" key; see above). */
enum config_vlan_mode {
    CONFIG_VLAN_TRUNK,
    CONFIG_VLAN_ACCESS,
    CONFIG_VLAN_NATIVE_TAGGED,
    CONFIG_VLAN_NATIVE_UNTAGGED,
};

struct config_port {
    char *name;                 /* Unique among all ports. */
    char *interface;            /* Kernel interface; NULL for a bond. */
    enum config_port_type type;
    bool create;                /* Create the tap if it does not exist. */
    enum config_vlan_mode vlan_mode; /* Always set: the default is
                                      * resolved from 'tag'. */
    int tag;                    /* Access or native VLAN 1..4094, or 0 for
                                 * none (trunks). */
    int *trunks;                /* Trunked VLANs; none means all of them.
                                 * None for access ports. */
    size_t n_trunks;
    char **members;             /* Bond member interfaces (bonds only). */
    size_t n_members;
    int n_rxq;                  /* Receive queues; default 1. */
    char *peer;                 /* System ports with 'create': the veth
                                 * peer's name, or NULL for the default
                                 * (config_port_peer()).  Patch ports: the
                                 * port at the other end (required). */
    char *bond_mode;            /* Bonds: "active-backup" (default),
                                 * "balance-slb" or "balance-tcp".  NULL for
                                 * other ports. */
    int bond_rebalance_interval; /* Bonds: ms, 0..10000 (0 disables), or
                                  * -1 if unset (bond.h's default). */
    char *xdp_mode;             /* afxdp ports: "native" (default) or
                                 * "generic".  NULL for other ports. */
    char *pcap;                 /* dummy ports: a pcap file for what the
                                 * port transmits, or NULL. */
    struct netdev_vxlan_options *vxlan; /* vxlan ports: the tunnel's options
                                 * (config-vxlan.h).  NULL for others. */
    int mac_limit;              /* "mac-limit": most MACs the bridge learns
                                 * on the port, 0..1000000; 0 (default):
                                 * only the table's size limits it. */
    int line, column;           /* Where the port's object starts (0 for a
                                 * document without text). */
};

struct config_bridge {
    char *name;
    size_t n_ports;
    struct config_port *ports;
    size_t n_rules;
    struct config_rule *rules;
    size_t n_mirrors;           /* "mirrors" (config-mirror.h). */
    struct config_mirror *mirrors;
    bool forward_bpdu;          /* "other_config": {"forward-bpdu": ...}:
                                 * NORMAL forwards reserved multicast
                                 * (default false, as Open vSwitch). */
};

struct pmd_config {
    size_t n_bridges;
    struct config_bridge *bridges;
    struct config_other other;
};

/* Parses the configuration in the file at 'path'.  Returns a new config
 * for the caller to free with config_destroy(), or NULL after storing in
 * '*errp' an error message (starting with 'path') for the caller to free.
 * 'errp' may be NULL. */
struct pmd_config *config_parse_file(const char *path, char **errp)
    WARN_UNUSED_RESULT;

/* Same, for the text 'text'; 'name_for_errors' (or "<string>" if NULL)
 * starts each error message. */
struct pmd_config *config_parse_string(const char *text,
                                       const char *name_for_errors,
                                       char **errp) WARN_UNUSED_RESULT;

/* Same, for the JSON document 'root' (not modified), which has no text
 * and so no positions: each error message is "NAME: message", with
 * 'name_for_errors' as NAME. */
struct pmd_config *config_parse_json(const json_t *root,
                                     const char *name_for_errors,
                                     char **errp) WARN_UNUSED_RESULT;

/* Reads the file at 'path' (at most 16 MB) into '*textp' (NUL-terminated,
 * to free) and its size into '*sizep'.  Returns NULL, or an error message
 * that starts with 'path', to free. */
char *config_file_read(const char *path, char **textp, size_t *sizep)
    WARN_UNUSED_RESULT;

/* Parses 'text' (of 'size' bytes) as JSON the way config_parse_*() does
 * (a leading byte order mark skipped, duplicate keys refused).  Returns the
 * document, or NULL with an error "NAME:LINE:COLUMN: message" to free. */
json_t *config_load_json(const char *text, size_t size, const char *name,
                         char **errp) WARN_UNUSED_RESULT;

/* Frees 'config'.  Accepts NULL. */
void config_destroy(struct pmd_config *config);

/* Returns the port named 'name' in 'bridge', or NULL. */
const struct config_port *config_bridge_find_port(
    const struct config_bridge *bridge, const char *name);

const char *config_port_type_to_string(enum config_port_type);

/* "access", "trunk", "native-tagged" or "native-untagged", the names the
 * "vlan_mode" key takes. */
const char *config_vlan_mode_to_string(enum config_vlan_mode);

/* The name of the veth peer pmdswitchd creates for system port 'port'
 * with "create": options "peer", or the interface name and "-peer".
 * Caller frees. */
char *config_port_peer(const struct config_port *port);

#endif /* config.h */
