/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The global settings: the "other_config" object of the configuration
 * file, also settable one key at a time as text (by appctl, for example).
 * A table of keys gives each one's type, range, default and field, so that
 * the file, the text setter and the formatter agree.
 *
 * config.h includes this header; struct pmd_config embeds a struct
 * config_other.  All functions may be called from any thread; none keeps
 * global state.
 */
#ifndef CONFIG_OTHER_H
#define CONFIG_OTHER_H 1

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"

struct json_t;

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
    CONFIG_OTHER_FLOW_LIMIT,            /* "flow-limit" */
    CONFIG_OTHER_MAC_TABLE_SIZE,        /* "mac-table-size" */
    CONFIG_OTHER_MAC_LEARN_RATE,        /* "mac-learn-rate" */
    CONFIG_OTHER_METRICS_ADDRESS,       /* "metrics-address" */
    CONFIG_OTHER_GRO_ENABLE,            /* "gro-enable" */
    CONFIG_OTHER_PMD_SLEEP_PREDICT,     /* "pmd-sleep-predict" */
    CONFIG_OTHER_N_KEYS
};

/* Most hexadecimal digits in "pmd-cpu-mask" (CPU_SETSIZE bits). */
#define CONFIG_CPU_MASK_MAX_DIGITS (CPU_SETSIZE / 4)

/* Longest "metrics-address": a bracketed IPv6 address and a port. */
#define CONFIG_METRICS_ADDRESS_MAX 64

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
    bool userspace_tso_enable;      /* Always true: offloads always pass
                                     * through, and false is refused. */
    int pmd_sleep_max;              /* Microseconds, 0..10000; default 1000. */
    int tx_flush_interval;          /* Microseconds, 0..1000000; default 0. */
    enum config_rxq_assign pmd_rxq_assign;  /* Default cycles. */
    int bond_rebalance_interval;    /* Milliseconds, 0..10000 (0 disables);
                                     * default 10000. */
    int mac_aging_time;             /* Seconds, 15..3600; default 300. */
    int flow_idle_timeout;          /* Milliseconds, 100..3600000; default
                                     * 10000. */
    uint32_t flow_limit;            /* Megaflows per PMD, 0..10000000;
                                     * default 200000. */
    uint32_t mac_table_size;        /* MAC table entries per bridge,
                                     * 1..1000000; default 2048. */
    uint32_t mac_learn_rate;        /* New or moved MACs a port may learn
                                     * per second, 0..1000000 (0: no
                                     * limit); default 1000. */
    bool gro_enable;                /* Merge TCP segments for ports that
                                     * take GSO frames; default true. */
    bool pmd_sleep_predict;         /* An idle PMD polls when periodic
                                     * traffic is due; default true. */
    char metrics_address[CONFIG_METRICS_ADDRESS_MAX];
                                    /* "IPV4:PORT" or "[IPV6]:PORT" where
                                     * Prometheus metrics are served, or ""
                                     * (the default) for none. */

    /* set[K] is true if key K was given explicitly. */
    bool set[CONFIG_OTHER_N_KEYS];
};

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

/* Sets 'key' of 'other' from the parsed JSON value 'v' of the config
 * file.  Returns NULL on success, or an error message without position
 * for the caller to free, with 'other' unchanged. */
char *config_other_set_json(struct config_other *other,
                            enum config_other_key key,
                            const struct json_t *v) WARN_UNUSED_RESULT;

/* Returns the names of all keys as "a, b, c", for the caller to free. */
char *config_other_known_keys(void);

/* A buffer of this size always holds config_other_format()'s output. */
#define CONFIG_OTHER_FORMAT_SIZE 2048

/* Writes one "key=value" line per key of 'other' into 'buf' (of 'size'
 * bytes, always NUL-terminated), leaving out "pmd-cpu-mask" if unset. */
void config_other_format(const struct config_other *other, char *buf,
                         size_t size);

#endif /* config-other.h */
