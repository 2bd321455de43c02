/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Building and tearing down the datapath from a validated config.
 */
#include <autoconf.h>
#include "dp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "config.h"
#include "netdev.h"
#include "pmd.h"
#include "pmd-perf.h"
#include "unixctl.h"
#include "mac-learning.h"
#include "upcall.h"
#include "util.h"
#include "vlog.h"

VLOG_DEFINE_THIS_MODULE(dp);

/* Fills 'cores' with the PMD cores: pmd-cpu-mask's, or the highest-numbered
 * online core when it is unset.  Returns how many, or 0 with '*errp'. */
static int
dp_pmd_cores(const struct config_other *other, int cores[], int max,
             char **errp)
{
    long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = 0;

    if (n_cpus < 1) {
        n_cpus = 1;
    }
    if (!other->set[CONFIG_OTHER_PMD_CPU_MASK]) {
        cores[0] = n_cpus - 1;
        return 1;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &other->pmd_cpus)) {
            continue;
        }
        if (cpu >= n_cpus) {
            *errp = xasprintf("pmd-cpu-mask %s names core %d, but this "
                              "machine has cores 0 to %ld",
                              other->pmd_cpu_mask, cpu, n_cpus - 1);
            return 0;
        }
        if (n >= max) {
            *errp = xasprintf("pmd-cpu-mask %s names more than %d cores",
                              other->pmd_cpu_mask, max);
            return 0;
        }
        cores[n++] = cpu;
    }
    return n;
}

/* Rejects what this build cannot do yet, before touching anything. */
static char *
dp_check_supported(const struct pmd_config *cfg)
{
    const struct config_bridge *br;

    if (cfg->n_bridges != 1) {
        return xasprintf("exactly one bridge is supported, the config has "
                         "%zu", cfg->n_bridges);
    }
    br = &cfg->bridges[0];
    if (br->n_ports > DP_MAX_PORTS) {
        return xasprintf("bridge %s: at most %d ports are supported",
                         br->name, DP_MAX_PORTS);
    }
    if (br->n_rules) {
        return xasprintf("bridge %s: \"rules\" are not supported yet; "
                         "remove them to run as a learning switch (NORMAL)",
                         br->name);
    }
    for (size_t i = 0; i < br->n_ports; i++) {
        const struct config_port *p = &br->ports[i];

        if (p->type != CONFIG_PORT_SYSTEM) {
            return xasprintf("port %s: only ports of type \"system\" are "
                             "supported yet", p->name);
        }
        if (p->tag || p->n_trunks) {
            return xasprintf("port %s: VLAN modes (\"tag\", \"trunks\") are "
                             "not supported yet", p->name);
        }
        if (p->create) {
            return xasprintf("port %s: \"create\" is not supported yet",
                             p->name);
        }
    }
    return NULL;
}

static void
dp_close_ports(struct dp *dp)
{
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        if (port) {
            rcu_assign_pointer(dp->ports[i], NULL);
            if (dp->ofproto) {
                ofproto_port_del(dp->ofproto, port->port_no);
            }
            netdev_close(port->netdev);
            free(port->name);
            free(port);
        }
    }
}

static int
dp_open_ports(struct dp *dp, const struct config_bridge *br,
              const struct config_other *other, int n_txq, char **errp)
{
    const char *type = other->use_tpacket_v3 && netdev_type_exists("tpacket")
                       ? "tpacket" : "mmsg";

    if (other->use_tpacket_v3 && strcmp(type, "tpacket")) {
        VLOG_WARN("use-tpacket-v3 is true but this build has no TPACKET_V3 "
                  "support; using recvmmsg/sendmmsg");
    }
    for (size_t i = 0; i < br->n_ports; i++) {
        const struct config_port *cp = &br->ports[i];
        struct netdev_options opts = { .n_rxq = cp->n_rxq ? cp->n_rxq : 1,
                                       .n_txq = n_txq };
        struct netdev *netdev;
        struct dp_port *port;
        char *error = NULL;
        int err;

        err = netdev_open(cp->interface, type, &opts, &netdev, &error);
        if (err) {
            *errp = xasprintf("port %s: %s", cp->name,
                              error ? error : strerror(err));
            free(error);
            return err;
        }
        port = xzalloc(sizeof *port);
        port->port_no = i;
        port->name = xstrdup(cp->name);
        port->netdev = netdev;
        rcu_assign_pointer(dp->ports[i], port);
        dp->n_ports = i + 1;
        ofproto_port_add(dp->ofproto, i, cp->name);
        VLOG_INFO("port %s: interface %s, port number %zu, %s provider",
                  cp->name, cp->interface, i, type);
    }
    return 0;
}

/* Spreads every rx queue of every port over the PMDs, round-robin. */
static void
dp_assign_rxqs(struct dp *dp)
{
    int next = 0;

    for (int i = 0; i < dp->n_ports; i++) {
        struct dp_port *port = dp->ports[i];

        for (int q = 0; q < netdev_n_rxq(port->netdev); q++) {
            struct pmd *pmd = dp->pmds[next++ % dp->n_pmds];

            pmd_add_rxq(pmd, netdev_get_rxq(port->netdev, q), i);
            VLOG_INFO("port %s rxq %d polled by pmd on core %d",
                      port->name, q, pmd->core_id);
        }
    }
}

/* Says which explicitly set other_config keys this version accepts but
 * does not act on yet, so that nobody relies on them unknowingly. */
static void
dp_warn_inert_settings(const struct config_other *other)
{
    static const enum config_other_key inert[] = {
        CONFIG_OTHER_USERSPACE_TSO_ENABLE, /* Offloads always pass through. */
        CONFIG_OTHER_PMD_SLEEP_MAX,
        CONFIG_OTHER_TX_FLUSH_INTERVAL,
        CONFIG_OTHER_PMD_RXQ_ASSIGN,
        CONFIG_OTHER_BOND_REBALANCE_INTERVAL,
    };

    for (size_t i = 0; i < ARRAY_SIZE(inert); i++) {
        if (other->set[inert[i]]) {
            VLOG_WARN("other_config:%s is accepted but has no effect in "
                      "this version", config_other_key_name(inert[i]));
        }
    }
}

static void
dp_apply_settings(struct dp *dp, const struct config_other *other)
{
    dp->other = *other;
    dp->settings.emc_insert_inv_prob = other->emc_insert_inv_prob;
    dp->settings.smc_enable = other->smc_enable;
    dp->settings.flow_idle_ms = other->flow_idle_timeout;
}

void
dp_stop_pmds(struct dp *dp)
{
    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_stop(dp->pmds[i]);
    }
}

struct dp *
dp_create(const struct pmd_config *cfg, char **errp)
{
    const struct config_bridge *br;
    int cores[DP_MAX_PMDS];
    int n_cores;
    struct dp *dp;

    *errp = dp_check_supported(cfg);
    if (*errp) {
        return NULL;
    }
    br = &cfg->bridges[0];
    n_cores = dp_pmd_cores(&cfg->other, cores, DP_MAX_PMDS, errp);
    if (!n_cores) {
        return NULL;
    }

    dp = xzalloc(sizeof *dp);
    dp->name = xstrdup(br->name);
    dp->ofproto = ofproto_create(br->name, cfg->other.mac_aging_time);
    dp_apply_settings(dp, &cfg->other);
    dp_warn_inert_settings(&cfg->other);
    dp->pmds = xcalloc(n_cores, sizeof *dp->pmds);
    dp->pmd_stats_base = xcalloc(n_cores, sizeof *dp->pmd_stats_base);
    for (int i = 0; i < n_cores; i++) {
        dp->pmds[dp->n_pmds] = pmd_create(dp, cores[i], dp->n_pmds);
        dp->n_pmds++;
    }
    if (dp_open_ports(dp, br, &cfg->other, dp->n_pmds, errp)) {
        dp_destroy(dp);
        return NULL;
    }
    dp_assign_rxqs(dp);
    for (int i = 0; i < dp->n_pmds; i++) {
        int error = pmd_start(dp->pmds[i]);

        if (error) {
            *errp = xasprintf("cannot start pmd thread on core %d: %s",
                              dp->pmds[i]->core_id, strerror(error));
            dp_destroy(dp);
            return NULL;
        }
    }
    return dp;
}

void
dp_destroy(struct dp *dp)
{
    if (!dp) {
        return;
    }
    dp_stop_pmds(dp);
    /* The PMDs are gone; flows they freed with call_rcu go now, before the
     * ports and the slow path they point at. */
    rcu_barrier();
    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_destroy(dp->pmds[i]);
    }
    dp_close_ports(dp);
    ofproto_destroy(dp->ofproto);
    free(dp->pmds);
    free(dp->pmd_stats_base);
    free(dp->name);
    free(dp);
}

void
dp_run(struct dp *dp)
{
    netdev_run();
    ofproto_run(dp->ofproto, time_msec());
}

void
dp_log_stats(const struct dp *dp)
{
    char buf[4096];

    for (int i = 0; i < dp->n_ports; i++) {
        const struct dp_port *port = dp->ports[i];
        struct netdev_stats s;

        if (!port) {
            continue;
        }
        netdev_get_stats(port->netdev, &s);
        VLOG_INFO("stats: port %s rx_packets=%"PRIu64" rx_bytes=%"PRIu64
                  " tx_packets=%"PRIu64" tx_bytes=%"PRIu64
                  " rx_ring_full=%"PRIu64" rx_truncated=%"PRIu64
                  " rx_errors=%"PRIu64" tx_queue_full=%"PRIu64
                  " tx_too_big=%"PRIu64" tx_port_down=%"PRIu64
                  " tx_errors=%"PRIu64, port->name, s.rx_packets,
                  s.rx_bytes, s.tx_packets, s.tx_bytes, s.rx_ring_full,
                  s.rx_truncated, s.rx_errors, s.tx_queue_full,
                  s.tx_too_big, s.tx_port_down, s.tx_errors);
        buf[0] = '\0';
        netdev_get_status(port->netdev, buf, sizeof buf);
        VLOG_INFO("status: port %s %s", port->name, buf);
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        uint64_t c[PMD_N_STATS];

        pmd_perf_read(&dp->pmds[i]->perf, c);
        pmd_perf_format_kv(c, buf, sizeof buf);
        VLOG_INFO("stats: pmd %d %s lost=%"PRIu64" drop_upcall_failed=%"
                  PRIu64, dp->pmds[i]->core_id, buf, c[PMD_STAT_LOST],
                  c[PMD_STAT_LOST]);
        pmd_perf_format_ovs(c, dp->pmds[i]->core_id, buf, sizeof buf);
        VLOG_INFO("pmd-stats-show:\n%s", buf);
    }
}

/* PMD 'i''s counters since the last pmd-stats-clear. */
static void
dp_pmd_stats(const struct dp *dp, int i, uint64_t c[PMD_N_STATS])
{
    pmd_perf_read(&dp->pmds[i]->perf, c);
    for (int k = 0; k < PMD_N_STATS; k++) {
        c[k] -= dp->pmd_stats_base[i][k];
    }
}

/* dpif-netdev/pmd-stats-show [-pmd CORE] */
static void
dp_unixctl_pmd_stats_show(struct unixctl_conn *conn, int argc,
                          const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    int only_core = -1;
    json_t *json = json_array();
    char *text = xstrdup("");
    char buf[4096];

    if (argc == 2 && !strcmp(argv[0], "-pmd")) {
        char *end;

        only_core = strtol(argv[1], &end, 10);
        if (*end || only_core < 0) {
            unixctl_command_reply_error(conn, "-pmd takes a core number");
            json_decref(json);
            free(text);
            return;
        }
    } else if (argc != 0) {
        unixctl_command_reply_error(conn, "usage: dpif-netdev/pmd-stats-show "
                                    "[-pmd CORE]");
        json_decref(json);
        free(text);
        return;
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        uint64_t c[PMD_N_STATS];
        json_t *obj;
        char *tmp;

        if (only_core >= 0 && dp->pmds[i]->core_id != only_core) {
            continue;
        }
        dp_pmd_stats(dp, i, c);
        pmd_perf_format_ovs(c, dp->pmds[i]->core_id, buf, sizeof buf);
        tmp = xasprintf("%s%s", text, buf);
        free(text);
        text = tmp;

        obj = json_pack("{s:i}", "core_id", dp->pmds[i]->core_id);
        for (int k = 0; k < PMD_N_STATS; k++) {
            json_object_set_new(obj, pmd_perf_stat_name(k),
                                json_integer(c[k]));
        }
        json_array_append_new(json, obj);
    }
    if (unixctl_conn_wants_json(conn)) {
        unixctl_command_reply_json(conn, json);
    } else {
        json_decref(json);
        unixctl_command_reply(conn, text);
    }
    free(text);
}

/* dpif-netdev/pmd-stats-clear */
static void
dp_unixctl_pmd_stats_clear(struct unixctl_conn *conn, int argc OVS_UNUSED,
                           const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;

    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_perf_read(&dp->pmds[i]->perf, dp->pmd_stats_base[i]);
    }
    unixctl_command_reply(conn, "");
}

/* dpctl/show: the datapath's lookups and flows, then each port with its
 * counters, drops by reason. */
static void
dp_unixctl_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    uint64_t hit = 0, missed = 0, lost = 0, flows = 0;
    json_t *ports = json_array();
    char *text, *tmp;

    for (int i = 0; i < dp->n_pmds; i++) {
        uint64_t c[PMD_N_STATS];

        pmd_perf_read(&dp->pmds[i]->perf, c);
        hit += c[PMD_STAT_EMC_HIT] + c[PMD_STAT_SMC_HIT]
               + c[PMD_STAT_MASKED_HIT];
        missed += c[PMD_STAT_MISS];
        lost += c[PMD_STAT_LOST];
        flows += __atomic_load_n(&dp->pmds[i]->flows.n_flows,
                                 __ATOMIC_RELAXED);
    }
    text = xasprintf("netdev@%s:\n  lookups: hit:%"PRIu64" missed:%"PRIu64
                     " lost:%"PRIu64"\n  flows: %"PRIu64"\n", dp->name, hit,
                     missed, lost, flows);
    for (int i = 0; i < dp->n_ports; i++) {
        const struct dp_port *port = dp->ports[i];
        struct netdev_stats s;

        if (!port) {
            continue;
        }
        memset(&s, 0, sizeof s);
        netdev_get_stats(port->netdev, &s);
        tmp = xasprintf("%s  port %d: %s (%s, %s)\n"
                        "    RX packets:%"PRIu64" bytes:%"PRIu64
                        " ring_full:%"PRIu64" truncated:%"PRIu64
                        " errors:%"PRIu64"\n"
                        "    TX packets:%"PRIu64" bytes:%"PRIu64
                        " queue_full:%"PRIu64" too_big:%"PRIu64
                        " port_down:%"PRIu64" errors:%"PRIu64"\n",
                        text, i, port->name, netdev_get_name(port->netdev),
                        netdev_get_type(port->netdev), s.rx_packets,
                        s.rx_bytes, s.rx_ring_full, s.rx_truncated,
                        s.rx_errors, s.tx_packets, s.tx_bytes,
                        s.tx_queue_full, s.tx_too_big, s.tx_port_down,
                        s.tx_errors);
        free(text);
        text = tmp;
        json_array_append_new(ports, json_pack(
            "{s:i, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
            " s:I, s:I, s:I}",
            "port_no", i, "name", port->name,
            "interface", netdev_get_name(port->netdev),
            "type", netdev_get_type(port->netdev),
            "rx_packets", (json_int_t) s.rx_packets,
            "rx_bytes", (json_int_t) s.rx_bytes,
            "rx_ring_full", (json_int_t) s.rx_ring_full,
            "rx_truncated", (json_int_t) s.rx_truncated,
            "rx_errors", (json_int_t) s.rx_errors,
            "tx_packets", (json_int_t) s.tx_packets,
            "tx_bytes", (json_int_t) s.tx_bytes,
            "tx_queue_full", (json_int_t) s.tx_queue_full,
            "tx_too_big", (json_int_t) s.tx_too_big,
            "tx_port_down", (json_int_t) s.tx_port_down,
            "tx_errors", (json_int_t) s.tx_errors));
    }
    if (unixctl_conn_wants_json(conn)) {
        unixctl_command_reply_json(conn, json_pack(
            "{s:s, s:I, s:I, s:I, s:I, s:o}", "name", dp->name,
            "hit", (json_int_t) hit, "missed", (json_int_t) missed,
            "lost", (json_int_t) lost, "flows", (json_int_t) flows,
            "ports", ports));
    } else {
        json_decref(ports);
        unixctl_command_reply(conn, text);
    }
    free(text);
}

/* Replies with an error and returns false unless 'name' is the bridge. */
static bool
dp_check_bridge(struct unixctl_conn *conn, const struct dp *dp,
                const char *name)
{
    if (strcmp(name, dp->name)) {
        char *msg = xasprintf("no such bridge \"%s\" (the bridge is "
                              "\"%s\")", name, dp->name);

        unixctl_command_reply_error(conn, msg);
        free(msg);
        return false;
    }
    return true;
}

/* fdb/show BRIDGE */
static void
dp_unixctl_fdb_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                    const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    char *text;

    if (dp_check_bridge(conn, dp, argv[0])) {
        text = mac_learning_format_fdb(ofproto_mac_learning(dp->ofproto),
                                       time_msec());
        unixctl_command_reply(conn, text);
        free(text);
    }
}

/* fdb/flush [BRIDGE]: the PMDs see the generation change and revalidate
 * their flows, so traffic floods until the MACs are learned again. */
static void
dp_unixctl_fdb_flush(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *dp_)
{
    struct dp *dp = dp_;

    if (argc && !dp_check_bridge(conn, dp, argv[0])) {
        return;
    }
    mac_learning_flush(ofproto_mac_learning(dp->ofproto));
    unixctl_command_reply(conn, "table successfully flushed");
}

/* other-config/list */
static void
dp_unixctl_other_list(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    char buf[CONFIG_OTHER_FORMAT_SIZE];

    config_other_format(&dp->other, buf, sizeof buf);
    unixctl_command_reply(conn, buf);
}

/* other-config/get KEY */
static void
dp_unixctl_other_get(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    char buf[CONFIG_OTHER_FORMAT_SIZE];
    size_t key_len = strlen(argv[0]);
    char *msg;

    if (config_other_key_from_name(argv[0]) == CONFIG_OTHER_N_KEYS) {
        char *known = config_other_known_keys();

        msg = xasprintf("unknown other_config key \"%s\" (known keys: %s)",
                        argv[0], known);
        unixctl_command_reply_error(conn, msg);
        free(known);
        free(msg);
        return;
    }
    config_other_format(&dp->other, buf, sizeof buf);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, argv[0], key_len) && line[key_len] == '=') {
            unixctl_command_reply(conn, line + key_len + 1);
            return;
        }
    }
    unixctl_command_reply(conn, "");       /* Unset, e.g. pmd-cpu-mask. */
}

/* memory/show: the sizes that grow with use. */
static void
dp_unixctl_memory_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                       const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    uint64_t flows = 0;
    char *text;

    for (int i = 0; i < dp->n_pmds; i++) {
        flows += __atomic_load_n(&dp->pmds[i]->flows.n_flows,
                                 __ATOMIC_RELAXED);
    }
    text = xasprintf("ports:%d pmd-threads:%d flows:%"PRIu64
                     " mac-entries:%zu emc-bytes-per-pmd:%zu"
                     " smc-bytes-per-pmd:%zu", dp->n_ports, dp->n_pmds,
                     flows,
                     mac_learning_count(ofproto_mac_learning(dp->ofproto)),
                     sizeof(struct emc_cache),
                     (size_t) SMC_BUCKETS * sizeof(struct smc_bucket));
    unixctl_command_reply(conn, text);
    free(text);
}

void
dp_register_commands(struct dp *dp)
{
    unixctl_command_register("fdb/show", "BRIDGE", 1, 1,
                             dp_unixctl_fdb_show, dp);
    unixctl_command_register("fdb/flush", "[BRIDGE]", 0, 1,
                             dp_unixctl_fdb_flush, dp);
    unixctl_command_register("other-config/list", "", 0, 0,
                             dp_unixctl_other_list, dp);
    unixctl_command_register("other-config/get", "KEY", 1, 1,
                             dp_unixctl_other_get, dp);
    unixctl_command_register("memory/show", "", 0, 0,
                             dp_unixctl_memory_show, dp);
    unixctl_command_register("dpctl/show", "", 0, 0, dp_unixctl_show, dp);
    unixctl_command_register("dpif-netdev/pmd-stats-show", "[-pmd CORE]",
                             0, 2, dp_unixctl_pmd_stats_show, dp);
    unixctl_command_register("dpif-netdev/pmd-stats-clear", "", 0, 0,
                             dp_unixctl_pmd_stats_clear, dp);
}
