/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The "other_config" keys.  Every key has a row in 'other_specs'; setting a
 * key from text goes through the same JSON checks as the config file, so
 * that both accept the same values and say the same thing about bad ones.
 */
#include <autoconf.h>
#include "config/config-other.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config-check.h"
#include "ofproto/mac-learning.h"
#include "base/util.h"

enum other_kind {
    OTHER_BOOL,                 /* bool field. */
    OTHER_INT,                  /* int field. */
    OTHER_U32,                  /* uint32_t field. */
    OTHER_CPU_MASK,             /* 'pmd_cpu_mask' and 'pmd_cpus'. */
    OTHER_RXQ_ASSIGN,           /* enum config_rxq_assign field. */
    OTHER_ADDRESS,              /* 'metrics_address'. */
};

struct other_spec {
    const char *name;
    enum other_kind kind;
    long long min, max;         /* OTHER_INT, OTHER_U32. */
    long long dflt;             /* Not for OTHER_CPU_MASK. */
    size_t offset;              /* Of the field in struct config_other. */
};

#define OTHER_FIELD(FIELD) offsetof(struct config_other, FIELD)

static const struct other_spec other_specs[CONFIG_OTHER_N_KEYS] = {
    [CONFIG_OTHER_PMD_CPU_MASK] = {
        "pmd-cpu-mask", OTHER_CPU_MASK, 0, 0, 0, 0 },
    [CONFIG_OTHER_USE_TPACKET_V3] = {
        "use-tpacket-v3", OTHER_BOOL, 0, 0, true,
        OTHER_FIELD(use_tpacket_v3) },
    [CONFIG_OTHER_EMC_INSERT_INV_PROB] = {
        "emc-insert-inv-prob", OTHER_U32, 0, UINT32_MAX, 100,
        OTHER_FIELD(emc_insert_inv_prob) },
    [CONFIG_OTHER_SMC_ENABLE] = {
        "smc-enable", OTHER_BOOL, 0, 0, true, OTHER_FIELD(smc_enable) },
    [CONFIG_OTHER_USERSPACE_TSO_ENABLE] = {
        "userspace-tso-enable", OTHER_BOOL, 0, 0, true,
        OTHER_FIELD(userspace_tso_enable) },
    [CONFIG_OTHER_PMD_SLEEP_MAX] = {
        "pmd-sleep-max", OTHER_INT, 0, 10000, 1000,
        OTHER_FIELD(pmd_sleep_max) },
    [CONFIG_OTHER_TX_FLUSH_INTERVAL] = {
        "tx-flush-interval", OTHER_INT, 0, 1000000, 0,
        OTHER_FIELD(tx_flush_interval) },
    [CONFIG_OTHER_PMD_RXQ_ASSIGN] = {
        "pmd-rxq-assign", OTHER_RXQ_ASSIGN, 0, 0, CONFIG_RXQ_ASSIGN_CYCLES,
        OTHER_FIELD(pmd_rxq_assign) },
    [CONFIG_OTHER_BOND_REBALANCE_INTERVAL] = {
        "bond-rebalance-interval", OTHER_INT, 0, 10000, 10000,
        OTHER_FIELD(bond_rebalance_interval) },
    [CONFIG_OTHER_MAC_AGING_TIME] = {
        "mac-aging-time", OTHER_INT, 15, 3600, 300,
        OTHER_FIELD(mac_aging_time) },
    [CONFIG_OTHER_FLOW_IDLE_TIMEOUT] = {
        "flow-idle-timeout", OTHER_INT, 100, 3600000, 10000,
        OTHER_FIELD(flow_idle_timeout) },
    [CONFIG_OTHER_FLOW_LIMIT] = {
        "flow-limit", OTHER_U32, 0, 10000000, 200000,
        OTHER_FIELD(flow_limit) },
    [CONFIG_OTHER_MAC_TABLE_SIZE] = {
        "mac-table-size", OTHER_U32, 1, 1000000,
        MAC_LEARNING_DEFAULT_MAX_ENTRIES, OTHER_FIELD(mac_table_size) },
    [CONFIG_OTHER_MAC_LEARN_RATE] = {
        "mac-learn-rate", OTHER_U32, 0, 1000000,
        MAC_LEARNING_DEFAULT_LEARN_RATE, OTHER_FIELD(mac_learn_rate) },
    [CONFIG_OTHER_METRICS_ADDRESS] = {
        "metrics-address", OTHER_ADDRESS, 0, 0, 0,
        OTHER_FIELD(metrics_address) },
    [CONFIG_OTHER_GRO_ENABLE] = {
        "gro-enable", OTHER_BOOL, 0, 0, true, OTHER_FIELD(gro_enable) },
    [CONFIG_OTHER_PMD_SLEEP_PREDICT] = {
        "pmd-sleep-predict", OTHER_BOOL, 0, 0, true,
        OTHER_FIELD(pmd_sleep_predict) },
};

static const char *const rxq_assign_names[] = {
    [CONFIG_RXQ_ASSIGN_ROUNDROBIN] = "roundrobin",
    [CONFIG_RXQ_ASSIGN_CYCLES] = "cycles",
};

const char *
config_rxq_assign_to_string(enum config_rxq_assign assign)
{
    return (assign < ARRAY_SIZE(rxq_assign_names)
            ? rxq_assign_names[assign] : "?");
}

const char *
config_other_key_name(enum config_other_key key)
{
    return key < CONFIG_OTHER_N_KEYS ? other_specs[key].name : "?";
}

enum config_other_key
config_other_key_from_name(const char *name)
{
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        if (!strcmp(name, other_specs[k].name)) {
            return k;
        }
    }
    return CONFIG_OTHER_N_KEYS;
}

static void *
other_field(struct config_other *other, const struct other_spec *spec)
{
    return (char *) other + spec->offset;
}

static void
other_set_default(struct config_other *other, enum config_other_key key)
{
    const struct other_spec *spec = &other_specs[key];
    void *field = other_field(other, spec);

    switch (spec->kind) {
    case OTHER_BOOL:
        *(bool *) field = spec->dflt;
        break;
    case OTHER_INT:
        *(int *) field = spec->dflt;
        break;
    case OTHER_U32:
        *(uint32_t *) field = spec->dflt;
        break;
    case OTHER_CPU_MASK:
        other->pmd_cpu_mask[0] = '\0';
        CPU_ZERO(&other->pmd_cpus);
        break;
    case OTHER_RXQ_ASSIGN:
        *(enum config_rxq_assign *) field = spec->dflt;
        break;
    case OTHER_ADDRESS:
        other->metrics_address[0] = '\0';
        break;
    }
    other->set[key] = false;
}

void
config_other_init(struct config_other *other)
{
    memset(other, 0, sizeof *other);
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        other_set_default(other, k);
    }
}

static int
hex_digit_value(char c)
{
    return (c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
            : -1);
}

/* Checks a CPU mask such as "0x6" or "6" and stores it normalised in 'text'
 * (of CONFIG_CPU_MASK_MAX_DIGITS + 3 bytes) and as a set in 'cpus'. */
static char *
check_cpu_mask(const json_t *v, const char *label, char *text,
               cpu_set_t *cpus)
{
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    size_t n_digits;
    bool valid;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
    }
    n_digits = strlen(s);
    valid = n_digits > 0 && strspn(s, "0123456789abcdefABCDEF") == n_digits;
    s += strspn(s, "0");
    n_digits = strlen(s);
    if (!valid || !n_digits || n_digits > CONFIG_CPU_MASK_MAX_DIGITS) {
        char what[120];

        snprintf(what, sizeof what, "a nonzero hexadecimal CPU mask of at "
                 "most %d digits, such as \"0x6\"",
                 CONFIG_CPU_MASK_MAX_DIGITS);
        return config_check_must_be(label, what, v);
    }

    CPU_ZERO(cpus);
    text[0] = '0';
    text[1] = 'x';
    for (size_t i = 0; i < n_digits; i++) {
        int digit = hex_digit_value(s[i]);
        size_t first_cpu = (n_digits - 1 - i) * 4;

        text[2 + i] = "0123456789abcdef"[digit];
        for (int bit = 0; bit < 4; bit++) {
            if (digit & (1 << bit)) {
                CPU_SET(first_cpu + bit, cpus);
            }
        }
    }
    text[2 + n_digits] = '\0';
    return NULL;
}

/* Checks a listen address "IPV4:PORT" or "[IPV6]:PORT" (or "" for none)
 * and copies it into 'out', of CONFIG_METRICS_ADDRESS_MAX bytes.  Host
 * names are refused: what the daemon listens on must not depend on DNS. */
static char *
check_listen_address(const json_t *v, const char *label, char *out)
{
    static const char what[] = "\"\" or an IP address and a port, such as "
                               "\"127.0.0.1:9540\" or \"[::1]:9540\"";
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    char host[CONFIG_METRICS_ADDRESS_MAX];
    const char *colon;
    struct in6_addr a6;
    struct in_addr a4;
    long long port;
    char *end;

    if (s && !s[0]) {
        out[0] = '\0';
        return NULL;
    }
    colon = s ? strrchr(s, ':') : NULL;
    if (!colon || strlen(s) >= CONFIG_METRICS_ADDRESS_MAX
        || !colon[1] || !isdigit((unsigned char) colon[1])) {
        return config_check_must_be(label, what, v);
    }
    port = strtoll(colon + 1, &end, 10);
    memcpy(host, s, colon - s);
    host[colon - s] = '\0';
    if (*end || port < 1 || port > 65535) {
        return config_check_must_be(label, what, v);
    }
    if (host[0] == '[') {
        size_t len = strlen(host);

        if (len < 3 || host[len - 1] != ']') {
            return config_check_must_be(label, what, v);
        }
        host[len - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &a6) != 1) {
            return config_check_must_be(label, what, v);
        }
    } else if (inet_pton(AF_INET, host, &a4) != 1) {
        return config_check_must_be(label, what, v);
    }
    memcpy(out, s, strlen(s) + 1);
    return NULL;
}

char *
config_other_set_json(struct config_other *other, enum config_other_key key,
                      const json_t *v)
{
    const struct other_spec *spec = &other_specs[key];
    void *field = other_field(other, spec);
    char *error = NULL;
    char label[64];

    snprintf(label, sizeof label, "\"%s\"", spec->name);
    switch (spec->kind) {
    case OTHER_BOOL: {
        bool b = false;

        error = config_check_bool(v, label, &b);
        if (!error && key == CONFIG_OTHER_USERSPACE_TSO_ENABLE && !b) {
            /* A packet socket cannot refuse the GSO frames its veth hands
             * over, so there is nothing false could switch off here. */
            error = xasprintf("%s cannot be false: pmdswitch always "
                              "carries checksum and segmentation offloads "
                              "through (the virtio_net_hdr of each frame); "
                              "to keep large frames off a port, turn "
                              "offloads off on the interface's peer with "
                              "\"ethtool -K PEER tso off gso off\"", label);
        }
        if (!error) {
            *(bool *) field = b;
        }
        break;
    }
    case OTHER_INT:
    case OTHER_U32: {
        long long n = 0;

        error = config_check_int(v, label, spec->min, spec->max, &n);
        if (!error && spec->kind == OTHER_INT) {
            *(int *) field = n;
        } else if (!error) {
            *(uint32_t *) field = n;
        }
        break;
    }
    case OTHER_CPU_MASK: {
        char text[sizeof other->pmd_cpu_mask];
        cpu_set_t cpus;

        error = check_cpu_mask(v, label, text, &cpus);
        if (!error) {
            memcpy(other->pmd_cpu_mask, text, sizeof text);
            other->pmd_cpus = cpus;
        }
        break;
    }
    case OTHER_RXQ_ASSIGN: {
        int idx = 0;

        error = config_check_enum(v, label, rxq_assign_names,
                                  ARRAY_SIZE(rxq_assign_names), &idx);
        if (!error) {
            *(enum config_rxq_assign *) field = idx;
        }
        break;
    }
    case OTHER_ADDRESS: {
        char text[CONFIG_METRICS_ADDRESS_MAX];

        error = check_listen_address(v, label, text);
        if (!error) {
            memcpy(other->metrics_address, text, sizeof text);
        }
        break;
    }
    }
    if (!error) {
        other->set[key] = true;
    }
    return error;
}

char *
config_other_known_keys(void)
{
    const char *names[CONFIG_OTHER_N_KEYS];

    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        names[k] = other_specs[k].name;
    }
    return config_check_join_names(names, CONFIG_OTHER_N_KEYS);
}

/* Returns 'value', text for key 'spec', as the JSON value the config file
 * would hold, for the caller to release. */
static json_t *
other_value_from_string(const struct other_spec *spec, const char *value)
{
    json_t *v = NULL;

    if (spec->kind != OTHER_CPU_MASK && spec->kind != OTHER_RXQ_ASSIGN
        && spec->kind != OTHER_ADDRESS) {
        v = json_loads(value, JSON_DECODE_ANY, NULL);
        if (v && (json_is_object(v) || json_is_array(v))) {
            json_decref(v);
            v = NULL;
        }
    }
    return v ? v : json_string_nocheck(value);
}

char *
config_other_set(struct config_other *other, const char *key,
                 const char *value)
{
    enum config_other_key k = config_other_key_from_name(key);
    char *error;
    json_t *v;

    if (k == CONFIG_OTHER_N_KEYS) {
        char *q = config_check_quote(key);
        char *known = config_other_known_keys();

        error = xasprintf("unknown key %s (known keys: %s)", q, known);
        free(known);
        free(q);
        return error;
    }
    if (!value) {
        other_set_default(other, k);
        return NULL;
    }
    v = other_value_from_string(&other_specs[k], value);
    error = config_other_set_json(other, k, v);
    json_decref(v);
    return error;
}

void
config_other_format(const struct config_other *other, char *buf,
                    size_t size)
{
    size_t len = 0;

    if (size) {
        buf[0] = '\0';
    }
    for (int k = 0; k < CONFIG_OTHER_N_KEYS; k++) {
        const struct other_spec *spec = &other_specs[k];
        const void *field = (const char *) other + spec->offset;
        char value[MAX(sizeof other->pmd_cpu_mask,
                       sizeof other->metrics_address)];

        switch (spec->kind) {
        case OTHER_BOOL:
            snprintf(value, sizeof value, "%s",
                     *(const bool *) field ? "true" : "false");
            break;
        case OTHER_INT:
            snprintf(value, sizeof value, "%d", *(const int *) field);
            break;
        case OTHER_U32:
            snprintf(value, sizeof value, "%"PRIu32,
                     *(const uint32_t *) field);
            break;
        case OTHER_CPU_MASK:
            if (!other->pmd_cpu_mask[0]) {
                continue;
            }
            snprintf(value, sizeof value, "%s", other->pmd_cpu_mask);
            break;
        case OTHER_RXQ_ASSIGN:
            snprintf(value, sizeof value, "%s",
                     config_rxq_assign_to_string(
                         *(const enum config_rxq_assign *) field));
            break;
        case OTHER_ADDRESS:
            if (!other->metrics_address[0]) {
                continue;
            }
            snprintf(value, sizeof value, "%s", other->metrics_address);
            break;
        }
        if (len < size) {
            len += snprintf(buf + len, size - len, "%s=%s\n", spec->name,
                            value);
        }
    }
}
