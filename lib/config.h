/*
 * Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
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
 *             "type": "system",                   "system", "tap", "bond"
 *             "create": false,                    true only for "tap"
 *             "tag": 10,                          access VLAN, 1..4094
 *             "trunks": [10, 20],                 VLANs, 1..4094; [] = all
 *             "members": ["eth0", "eth1"],        bonds only, required
 *             "options": { "n_rxq": 1,            1..64
 *                          "bond_mode": "active-backup" } } ],
 *         "rules": [ { "priority": 32768,         0..65535
 *                      "match": "",               ovs-ofctl syntax
 *                      "actions": "normal",       required
 *                      "cookie": 0 } ] } ],       integer or "0x..." string
 *     "other_config": { ... } }                   see enum config_other_key
 *
 * Any key not in the schema is an error.  Every error is one message that
 * starts with "FILE:LINE:COLUMN: " pointing at the offending key or value
 * (at the object's opening brace for a missing key).
 *
 * All functions may be called from any thread; none keeps global state.
 */
#ifndef CONFIG_H
#define CONFIG_H 1

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "compiler.h"

enum config_port_type {
    CONFIG_PORT_SYSTEM,         /* An existing kernel interface. */
    CONFIG_PORT_TAP,            /* A tap device, opened or created. */
    CONFIG_PORT_BOND,           /* A bond over 'members'. */
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

struct config_port {
    char *name;                 /* Unique among all ports. */
    char *interface;            /* Kernel interface; NULL for a bond. */
    enum config_port_type type;
    bool create;                /* Create the tap if it does not exist. */
    int tag;                    /* Access VLAN 1..4094, or 0 for none. */
    int *trunks;                /* Trunked VLANs; none means all of them. */
    size_t n_trunks;
    char **members;             /* Bond member interfaces (bonds only). */
    size_t n_members;
    int n_rxq;                  /* Receive queues; default 1. */
    char *bond_mode;            /* Bonds: "active-backup" (default),
                                 * "balance-slb" or "balance-tcp".  NULL for
                                 * other ports. */
};

struct config_bridge {
    char *name;
    size_t n_ports;
    struct config_port *ports;
    size_t n_rules;
    struct config_rule *rules;
};

enum config_rxq_assign {
    CONFIG_RXQ_ASSIGN_ROUNDROBIN,
    CONFIG_RXQ_ASSIGN_CYCLES,
};

/* The keys of "other_config", in the order config_other_format() lists
 * them. */
enum config_other_key {
    CONFIG_OTHER_PMD_CPU_MASK,          /* "pmd-cpu-mask" */
    CONFIG_OTHER_USE_TPACKET_V3,        /* "use-tpacket-v3" */
    CONFIG_OTHER_EMC_INSERT_INV_PROB,   /* "emc-insert-inv-prob" */
    CONFIG_OTHER_SMC_ENABLE,            /* "smc-enable" */
    CONFIG_OTHER_USERSPACE_TSO_ENABLE,  /* "userspace-tso-enable" */
    CONFIG_OTHER_PMD_SLEEP_MAX,         /* "pmd-sleep-max" */
    CONFIG_OTHER_TX_FLUSH_INTERVAL,     /* "tx-flush-interval" */
    CONFIG_OTHER_PMD_RXQ_ASSIGN,        /* "pmd-rxq-assign" */
    CONFIG_OTHER_BOND_REBALANCE_INTERVAL, /* "bond-rebalance-interval" */
    CONFIG_OTHER_MAC_AGING_TIME,        /* "mac-aging-time" */
    CONFIG_OTHER_FLOW_IDLE_TIMEOUT,     /* "flow-idle-timeout" */
    CONFIG_OTHER_N_KEYS
};

/* Most hexadecimal digits in "pmd-cpu-mask" (CPU_SETSIZE bits). */
#define CONFIG_CPU_MASK_MAX_DIGITS (CPU_SETSIZE / 4)

/* Global settings.  A plain value: copy it by assignment. */
struct config_other {
    /* "pmd-cpu-mask": normalised to "0x" and lower-case digits without
     * leading zeros, or "" if unset (the daemon then picks the CPUs);
     * 'pmd_cpus' holds the same set. */
    char pmd_cpu_mask[CONFIG_CPU_MASK_MAX_DIGITS + 3];
    cpu_set_t pmd_cpus;
    bool use_tpacket_v3;            /* Default true. */
    uint32_t emc_insert_inv_prob;   /* Insert 1 in N misses into the EMC;
                                     * 0 disables.  Default 100. */
    bool smc_enable;                /* Default true. */
    bool userspace_tso_enable;      /* Default true. */
    int pmd_sleep_max;              /* Microseconds, 0..10000; default 0. */
    int tx_flush_interval;          /* Microseconds, 0..1000000; default 0. */
    enum config_rxq_assign pmd_rxq_assign;  /* Default cycles. */
    int bond_rebalance_interval;    /* Milliseconds, 0..10000 (0 disables);
                                     * default 10000. */
    int mac_aging_time;             /* Seconds, 15..3600; default 300. */
    int flow_idle_timeout;          /* Milliseconds, 100..3600000; default
                                     * 10000. */

    /* set[K] is true if key K was given explicitly. */
    bool set[CONFIG_OTHER_N_KEYS];
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

/* Frees 'config'.  Accepts NULL. */
void config_destroy(struct pmd_config *config);

/* Returns the port named 'name' in 'bridge', or NULL. */
const struct config_port *config_bridge_find_port(
    const struct config_bridge *bridge, const char *name);

const char *config_port_type_to_string(enum config_port_type);
const char *config_rxq_assign_to_string(enum config_rxq_assign);

/* The name of 'key' ("pmd-cpu-mask", ...), and back: the _from_name
 * function returns CONFIG_OTHER_N_KEYS for an unknown name. */
const char *config_other_key_name(enum config_other_key key);
enum config_other_key config_other_key_from_name(const char *name);

/* Sets every key of 'other' to its default, none of them explicitly. */
void config_other_init(struct config_other *other);

/* Sets 'key' of 'other' from the text 'value' ("true", "100", "0x6",
 * "cycles", ...), as if the config file gave it; a NULL 'value' returns
 * the key to its default.  Returns NULL on success, or an error message
 * for the caller to free, with 'other' unchanged. */
char *config_other_set(struct config_other *other, const char *key,
                       const char *value) WARN_UNUSED_RESULT;

/* A buffer of this size always holds config_other_format()'s output. */
#define CONFIG_OTHER_FORMAT_SIZE 1024

/* Writes one "key=value" line per key of 'other' into 'buf' (of 'size'
 * bytes, always NUL-terminated), leaving out "pmd-cpu-mask" if unset. */
void config_other_format(const struct config_other *other, char *buf,
                         size_t size);

#endif /* config.h */
