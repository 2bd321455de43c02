/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for control/metrics.c: the Prometheus exposition of a datapath
 * built by hand follows the text format's rules (every family declared
 * once with HELP and TYPE before its samples, samples of a family
 * together, counters named *_total, names and label values well formed),
 * every PMD counter has a family, and values are the datapath's.
 * tests/system/test-metrics.sh checks it with promtool and Prometheus.
 */
#include <autoconf.h>
#include "control/metrics.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ds.h"
#include "check.h"
#include "dp-test.h"
#include "dp/pmd-perf.h"

#define MAX_FAMILIES 200

struct family {
    char name[128];
    char type[16];
    bool has_help;
    bool has_samples;
};

static bool
is_metric_name(const char *s, size_t len)
{
    if (!len || !(isalpha((unsigned char) s[0]) || s[0] == '_')) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char) s[i]) && s[i] != '_' && s[i] != ':') {
            return false;
        }
    }
    return true;
}

static struct family *
find_family(struct family *f, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(f[i].name) == len && !strncmp(f[i].name, name, len)) {
            return &f[i];
        }
    }
    return NULL;
}

/* Checks the labels of a sample, "{a="x",b="y"}" at 's', and returns what
 * follows them, or NULL if they are malformed. */
static const char *
skip_labels(const char *s)
{
    if (*s != '{') {
        return s;
    }
    s++;
    while (*s != '}') {
        const char *name = s;

        while (isalnum((unsigned char) *s) || *s == '_') {
            s++;
        }
        if (s == name || *s++ != '=' || *s++ != '"') {
            return NULL;
        }
        while (*s != '"') {
            if (!*s || *s == '\n') {
                return NULL;
            }
            if (*s == '\\') {
                s++;
                if (*s != '\\' && *s != '"' && *s != 'n') {
                    return NULL;
                }
            }
            s++;
        }
        s++;
        if (*s == ',') {
            s++;
        } else if (*s != '}') {
            return NULL;
        }
    }
    return s + 1;
}

/* Checks 'text' line by line against the text format; returns the number
 * of families in 'f'. */
static size_t
check_exposition(const char *text, struct family *f)
{
    struct family *current = NULL;
    size_t n = 0;
    int line_no = 0;

    for (const char *line = text; *line; ) {
        const char *nl = strchr(line, '\n');
        char buf[512];

        line_no++;
        CHECK(nl != NULL, "line %d does not end in a newline", line_no);
        if (!nl) {
            break;
        }
        snprintf(buf, sizeof buf, "%.*s", (int) (nl - line), line);
        if (!strncmp(buf, "# HELP ", 7) || !strncmp(buf, "# TYPE ", 7)) {
            const char *name = buf + 7;
            size_t len = strcspn(name, " ");
            struct family *fam = find_family(f, n, name, len);

            CHECK(is_metric_name(name, len), "bad name in \"%s\"", buf);
            if (!fam) {
                CHECK(n < MAX_FAMILIES, "too many families");
                if (n >= MAX_FAMILIES) {
                    break;
                }
                fam = &f[n++];
                snprintf(fam->name, sizeof fam->name, "%.*s", (int) len,
                         name);
            }
            CHECK(!fam->has_samples, "%s declared after its samples",
                  fam->name);
            if (buf[2] == 'H') {
                CHECK(!fam->has_help, "%s: two HELP lines", fam->name);
                fam->has_help = true;
            } else {
                CHECK(!fam->type[0], "%s: two TYPE lines", fam->name);
                snprintf(fam->type, sizeof fam->type, "%s", name + len + 1);
                CHECK(!strcmp(fam->type, "counter")
                      || !strcmp(fam->type, "gauge"),
                      "%s: type %s", fam->name, fam->type);
            }
            current = fam;
        } else {
            size_t len = strcspn(buf, "{ ");
            const char *rest = skip_labels(buf + len);
            char *end;

            CHECK(is_metric_name(buf, len), "bad sample \"%s\"", buf);
            CHECK(current && strlen(current->name) == len
                  && !strncmp(current->name, buf, len),
                  "sample \"%s\" outside its family", buf);
            CHECK(rest && *rest == ' ', "bad labels in \"%s\"", buf);
            if (current) {
                current->has_samples = true;
            }
            if (rest && *rest == ' ') {
                strtod(rest + 1, &end);
                CHECK(end != rest + 1 && !*end, "bad value in \"%s\"", buf);
            }
        }
        line = nl + 1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(f[i].name);

        CHECK(f[i].has_help && f[i].type[0], "%s: HELP or TYPE missing",
              f[i].name);
        CHECK(!strcmp(f[i].type, "counter")
              == (len > 6 && !strcmp(f[i].name + len - 6, "_total")),
              "%s: only counters, and all of them, end in _total",
              f[i].name);
    }
    return n;
}

static void
test_format(void)
{
    struct family *families = xcalloc(MAX_FAMILIES, sizeof *families);
    struct dp *dp = dp_test_create(2);
    struct pmd *pmd = pmd_create(dp, 3);
    struct ds out = DS_EMPTY_INITIALIZER;
    size_t n;

    dp->pmds = &pmd;
    dp->n_pmds = 1;
    dp->n_ports = 2;
    dp_test_add_bridge(dp, "odd\"name\\");
    pmd_perf_add(&pmd->perf, PMD_STAT_EMC_HIT, 7);
    pmd_perf_add(&pmd->perf, PMD_STAT_CYCLES_BUSY, 1000);
    pmd_perf_add(&pmd->perf, PMD_STAT_SLEEP_US, 2500000);
    /* pmd-stats-clear does not reset what Prometheus sees. */
    pmd_perf_snapshot_read(&pmd->perf, &pmd->stats_base);

    metrics_format(dp, &out);
    n = check_exposition(out.string, families);
    CHECK(n > 20, "only %zu families", n);

    CHECK(strstr(out.string, "pmdswitch_pmd_emc_hits_total{core=\"3\"} 7\n"),
          "emc hits");
    CHECK(strstr(out.string, "pmdswitch_pmd_cycles_total{core=\"3\","
                 "state=\"busy\"} 1000\n"), "busy cycles");
    CHECK(strstr(out.string, "pmdswitch_pmd_sleep_seconds_total{core=\"3\"}"
                 " 2.500000\n"), "sleep seconds");
    CHECK(strstr(out.string, "pmdswitch_port_rx_packets_total{bridge=\"br0\","
                 "port=\"p1\"} 0\n"), "port p1");
    CHECK(strstr(out.string, "pmdswitch_port_tx_dropped_total{bridge=\"br0\","
                 "port=\"p0\",reason=\"too_big\"} 0\n"), "too_big");
    CHECK(strstr(out.string, "pmdswitch_bridge_mac_entries{bridge="
                 "\"odd\\\"name\\\\\"} 0\n"), "escaped bridge name");
    CHECK(strstr(out.string, "pmdswitch_build_info{version=\""
                 PACKAGE_VERSION "\"} 1\n"), "build info");
    CHECK(strstr(out.string, "pmdswitch_pmds 1\n"), "pmds");

    /* Every PMD counter is served, the cycles and the sleep time in
     * families of their own. */
    for (int k = 0; k < PMD_N_STATS; k++) {
        const char *stat = pmd_perf_stat_name(k);
        char name[128];

        if (k == PMD_STAT_CYCLES_BUSY || k == PMD_STAT_CYCLES_IDLE
            || k == PMD_STAT_SLEEP_US) {
            continue;
        }
        snprintf(name, sizeof name, "pmdswitch_pmd_%s_total", stat);
        CHECK(find_family(families, n, name, strlen(name)) != NULL,
              "no family for PMD counter %s", stat);
    }
    ds_destroy(&out);
    free(families);
    dp->pmds = NULL;
    dp->n_pmds = 0;
    dp_test_destroy(dp, pmd);
}

/* A datapath with no PMD and no port still gives well-formed output. */
static void
test_format_empty(void)
{
    struct family *families = xcalloc(MAX_FAMILIES, sizeof *families);
    struct dp *dp = dp_test_create(0);
    struct ds out = DS_EMPTY_INITIALIZER;

    metrics_format(dp, &out);
    check_exposition(out.string, families);
    CHECK(strstr(out.string, "pmdswitch_ports 0\n"), "no ports");
    CHECK(!strstr(out.string, "pmdswitch_port_rx_packets_total{"),
          "no port samples");
    ds_destroy(&out);
    free(families);
    dp_test_destroy(dp, NULL);
}

int
main(void)
{
    rcu_register_thread();
    test_format();
    test_format_empty();
    rcu_unregister();
    return check_finish("test-metrics");
}
