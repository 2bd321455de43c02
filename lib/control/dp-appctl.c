/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The datapath's appctl commands: what it shows (ports, PMD counters, rx
 * queue placement, flows, the MAC table, settings) and what it changes
 * while it runs (flows, other_config, rx queue placement).  Text follows
 * Open vSwitch's wording and layout where Open vSwitch has the command;
 * every command also answers in JSON.  All handlers run on the control
 * thread.
 */
#include <autoconf.h>
#include "control/appctl.h"
#include "dp/dp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "ofproto/bond.h"
#include "base/ds.h"
#include "classifier/emc.h"
#include "ofproto/mac-learning.h"
#include "packet/flow-format.h"
#include "packet/miniflow.h"
#include "netdev/netdev.h"
#include "netdev/netdev-vxlan.h"
#include "config/config-vxlan.h"
#include "packet/dp-actions-format.h"
#include "packet/packets.h"
#include "dp/pmd.h"
#include "dp/pmd-perf.h"
#include "classifier/smc.h"
#include "control/port-check.h"
#include "control/unixctl.h"
#include "ofproto/ofproto.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(dp_commands);

/* How long a PMD may take to answer a flow request. */
#define DP_REQUEST_TIMEOUT_MS 2000

static void
dp_reply(struct unixctl_conn *conn, struct ds *t, json_t *json)
{
    unixctl_command_reply_text_json(conn, ds_cstr(t), json);
    ds_destroy(t);
}

/* Parses the optional "-pmd CORE" arguments into '*core' (-1 if absent).
 * Replies with an error and returns false on misuse. */
static bool
dp_parse_pmd_arg(struct unixctl_conn *conn, const struct dp *dp, int argc,
                 const char *argv[], const char *usage, int *core)
{
    *core = -1;
    if (!argc) {
        return true;
    }
    if (argc == 2 && !strcmp(argv[0], "-pmd")) {
        char *end;
        long v = strtol(argv[1], &end, 10);

        if (*end || end == argv[1] || v < 0 || v > 1023) {
            unixctl_command_reply_errorf(conn, "-pmd takes a core number, not \"%s\"",
                           argv[1]);
            return false;
        }
        for (int i = 0; i < dp->n_pmds; i++) {
            if (dp->pmds[i]->core_id == v) {
                *core = v;
                return true;
            }
        }
        unixctl_command_reply_errorf(conn, "no pmd thread on core %ld", v);
        return false;
    }
    unixctl_command_reply_errorf(conn, "usage: %s", usage);
    return false;
}

static json_t *
dp_stats_json(const uint64_t c[PMD_N_STATS])
{
    json_t *obj = json_object();

    for (int k = 0; k < PMD_N_STATS; k++) {
        json_object_set_new(obj, pmd_perf_stat_name(k),
                            json_integer(c[k]));
    }
    return obj;
}

/* dpif-netdev/pmd-stats-show [-pmd CORE] */
static void
dp_unixctl_pmd_stats_show(struct unixctl_conn *conn, int argc,
                          const char *argv[], void *dp_)
{
    static const char usage[] = "dpif-netdev/pmd-stats-show [-pmd CORE]";
    struct dp *dp = dp_;
    struct ds text = DS_EMPTY_INITIALIZER;
    json_t *json = json_array();
    char buf[4096];
    int core;

    if (!dp_parse_pmd_arg(conn, dp, argc, argv, usage, &core)) {
        json_decref(json);
        return;
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        struct pmd_perf_snapshot s;
        json_t *obj;

        if (core >= 0 && dp->pmds[i]->core_id != core) {
            continue;
        }
        dp_pmd_stats(dp->pmds[i], &s);
        pmd_perf_format_ovs(s.c, dp->pmds[i]->core_id, buf, sizeof buf);
        ds_put_format(&text, "%s", buf);
        obj = dp_stats_json(s.c);
        json_object_set_new(obj, "core_id",
                            json_integer(dp->pmds[i]->core_id));
        json_array_append_new(json, obj);
    }
    if (core < 0) {
        /* The control thread forwards nothing: its block, which Open
         * vSwitch's scripts expect, holds its own zero counters. */
        uint64_t zero[PMD_N_STATS] = { 0 };
        json_t *obj = dp_stats_json(zero);

        pmd_perf_format_ovs(zero, -1, buf, sizeof buf);
        ds_put_format(&text, "%s", buf);
        json_object_set_new(obj, "thread", json_string("main"));
        json_array_append_new(json, obj);
    }
    dp_reply(conn, &text, json);
}

/* dpif-netdev/pmd-stats-clear */
static void
dp_unixctl_pmd_stats_clear(struct unixctl_conn *conn, int argc OVS_UNUSED,
                           const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    struct ds text = DS_EMPTY_INITIALIZER;

    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_perf_snapshot_read(&dp->pmds[i]->perf, &dp->pmds[i]->stats_base);
    }
    dp->stats_cleared_ms = time_msec();
    dp_reply(conn, &text, json_object());
}

/* dpif-netdev/pmd-perf-show [-pmd CORE] */
static void
dp_unixctl_pmd_perf_show(struct unixctl_conn *conn, int argc,
                         const char *argv[], void *dp_)
{
    static const char usage[] = "dpif-netdev/pmd-perf-show [-pmd CORE]";
    struct dp *dp = dp_;
    double duration = (time_msec() - dp->stats_cleared_ms) / 1000.0;
    uint64_t tsc_hz = pmd_perf_tsc_hz();
    struct ds text = DS_EMPTY_INITIALIZER;
    json_t *pmds = json_array();
    char now[64];
    time_t t = time(NULL);
    struct tm tm;
    int core;

    if (!dp_parse_pmd_arg(conn, dp, argc, argv, usage, &core)) {
        json_decref(pmds);
        return;
    }
    localtime_r(&t, &tm);
    strftime(now, sizeof now, "%H:%M:%S", &tm);
    ds_put_format(&text, "Time: %s\nMeasurement duration: %.3f s\n\n", now,
                  duration);
    for (int i = 0; i < dp->n_pmds; i++) {
        struct pmd_perf_snapshot s;
        char buf[8192];

        if (core >= 0 && dp->pmds[i]->core_id != core) {
            continue;
        }
        dp_pmd_stats(dp->pmds[i], &s);
        pmd_perf_format_perf_show(&s, dp->pmds[i]->core_id, duration,
                                  tsc_hz, buf, sizeof buf);
        ds_put_format(&text, "%s", buf);
        json_array_append_new(pmds, pmd_perf_perf_show_json(
                                  &s, dp->pmds[i]->core_id, duration,
                                  tsc_hz));
    }
    dp_reply(conn, &text, json_pack("{s:s, s:f, s:o}", "time", now,
                                    "duration_s", duration, "pmds", pmds));
}

/* The share, in percent, of 'pmd''s cycles over the kept intervals that
 * went to 'q', or -1 if no interval has ended yet. */
static int
dp_rxq_usage(const struct pmd *pmd, const struct pmd_rxq *q)
{
    uint64_t total = 0, used = 0;

    for (int i = 0; i < PMD_RXQ_N_INTERVALS; i++) {
        total += pmd->intervals[i];
        used += q->intervals[i];
    }
    return total ? (int) MIN(100, used * 100 / total) : -1;
}

/* dpif-netdev/pmd-rxq-show [-pmd CORE] */
static void
dp_unixctl_pmd_rxq_show(struct unixctl_conn *conn, int argc,
                        const char *argv[], void *dp_)
{
    static const char usage[] = "dpif-netdev/pmd-rxq-show [-pmd CORE]";
    struct dp *dp = dp_;
    struct ds text = DS_EMPTY_INITIALIZER;
    json_t *json = json_array();
    int core;

    if (!dp_parse_pmd_arg(conn, dp, argc, argv, usage, &core)) {
        json_decref(json);
        return;
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        const struct pmd *pmd = dp->pmds[i];
        json_t *rxqs = json_array();

        if (core >= 0 && pmd->core_id != core) {
            json_decref(rxqs);
            continue;
        }
        ds_put_format(&text, "pmd thread numa_id 0 core_id %d:\n"
                      "  isolated : false\n", pmd->core_id);
        for (int p = 0; p < DP_MAX_PORTS; p++) {
            const struct dp_port *port = dp->ports[p];

            for (int q = 0; port && q < port->n_rxqs; q++) {
                const struct pmd_rxq *rxq = port->rxqs[q];
                int usage_pct;

                if (rxq->pmd != pmd) {
                    continue;
                }
                usage_pct = dp_rxq_usage(pmd, rxq);
                ds_put_format(&text, "  port: %-16s  queue-id: %2d (enabled)"
                              "   pmd usage: ", port->name, rxq->qid);
                if (usage_pct < 0) {
                    ds_put_format(&text, "NOT AVAIL\n");
                } else {
                    ds_put_format(&text, "%2d %%\n", usage_pct);
                }
                json_array_append_new(rxqs, json_pack(
                    "{s:s, s:i, s:o}", "port", port->name, "queue_id",
                    rxq->qid, "usage_pct",
                    usage_pct < 0 ? json_null() : json_integer(usage_pct)));
            }
        }
        json_array_append_new(json, json_pack("{s:i, s:b, s:o}", "core_id",
                                              pmd->core_id, "isolated", 0,
                                              "rxqs", rxqs));
    }
    dp_reply(conn, &text, json);
}

/* dpif-netdev/pmd-rxq-rebalance */
static void
dp_unixctl_pmd_rxq_rebalance(struct unixctl_conn *conn,
                             int argc OVS_UNUSED,
                             const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;

    dp_rxq_rebalance(dp);
    unixctl_command_reply(conn, "pmd rxq rebalance requested.");
}

/* Replies with an error "no bridge named NAME" and returns NULL, or
 * returns bridge 'name'. */
static struct ofproto *
dp_find_bridge(struct unixctl_conn *conn, const struct dp *dp,
               const char *name)
{
    struct ofproto *bridge = dp_bridge_lookup(dp, name);

    if (!bridge) {
        unixctl_command_reply_errorf(conn, "no bridge named %s", name);
    }
    return bridge;
}

/* The type dpctl/show gives 'port'. */
static const char *
dp_show_port_type(const struct dp_port *port)
{
    /* An afxdp port's provider also names its XDP mode. */
    return (port->bond ? "bond"
            : port->patch_peer ? "patch"
            : port->internal ? "internal"
            : port->afxdp ? "afxdp"
            : port->netdev ? netdev_get_type(port->netdev)
            : port->tap ? "tap" : "system");
}

/* Appends what a vxlan port's header line says in place of an interface:
 * "vxlan: key=K, remote_ip=A[,B...], dst_port=P". */
static void
dp_show_vxlan_head(const struct dp_port *port, struct ds *text)
{
    const struct netdev_vxlan_options *vx = port->vxlan;
    char remotes[NETDEV_VXLAN_MAX_REMOTES * 16];

    config_vxlan_format_remotes(vx, remotes, sizeof remotes);
    ds_put_format(text, "vxlan: key=");
    if (vx->key_flow) {
        ds_put_format(text, "flow");
    } else {
        ds_put_format(text, "%"PRIu32, vx->key);
    }
    ds_put_format(text, ", remote_ip=%s, dst_port=%d", remotes,
                  vx->dst_port);
}

/* Appends a vxlan port's underlay and its receive drops by reason to
 * 'text' and 'obj'. */
static void
dp_show_vxlan_tail(const struct dp_port *port, struct ds *text,
                   json_t *obj)
{
    const struct netdev_vxlan_options *vx = port->vxlan;
    struct netdev_vxlan_drops d = { 0 };
    char remotes[NETDEV_VXLAN_MAX_REMOTES * 16];
    char local[INET_ADDRSTRLEN];
    json_t *tunnel;
    int mtu = 0;

    if (port->netdev) {
        netdev_vxlan_get_drops(port->netdev, &d);
        mtu = netdev_vxlan_get_underlay_mtu(port->netdev);
    }
    inet_ntop(AF_INET, &vx->local_ip, local, sizeof local);
    config_vxlan_format_remotes(vx, remotes, sizeof remotes);
    ds_put_format(text, "      tunnel: local_ip=%s, ttl=%d, tos=", local,
                  vx->ttl);
    if (vx->tos == NETDEV_VXLAN_TOS_INHERIT) {
        ds_put_format(text, "inherit");
    } else {
        ds_put_format(text, "%d", vx->tos);
    }
    ds_put_format(text, ", underlay_mtu=%d\n"
                  "      RX vxlan drops: truncated:%"PRIu64" bad_flags:%"
                  PRIu64" wrong_vni:%"PRIu64" unknown_remote:%"PRIu64"\n",
                  mtu, d.truncated, d.bad_flags, d.wrong_vni,
                  d.unknown_remote);
    tunnel = json_pack(
        "{s:o, s:s, s:s, s:i, s:i, s:i, s:i, s:{s:I, s:I, s:I, s:I}}",
        "key", (vx->key_flow ? json_string("flow")
                : json_integer(vx->key)),
        "local_ip", local, "remote_ip", remotes,
        "dst_port", vx->dst_port, "ttl", vx->ttl, "tos", vx->tos,
        "underlay_mtu", mtu, "rx_drops",
        "vxlan_truncated", (json_int_t) d.truncated,
        "vxlan_bad_flags", (json_int_t) d.bad_flags,
        "vxlan_wrong_vni", (json_int_t) d.wrong_vni,
        "vxlan_unknown_remote", (json_int_t) d.unknown_remote);
    json_object_set_new(obj, "vxlan", tunnel);
}

/* Appends port 'port' of 'dp' to 'text' and 'ports' for dpctl/show. */
static void
dp_show_port(const struct dp *dp, const struct dp_port *port,
             struct ds *text, json_t *ports)
{
    const char *type = dp_show_port_type(port);
    const char *state = dp_port_state_to_string(port->state);
    const char *bridge = ofproto_name(port->ofproto);
    const char *member_of = "";
    struct netdev_stats s;
    int i = port->port_no;
    json_t *obj;

    if (port->bond_port_no != DP_PORT_NONE
        && dp->ports[port->bond_port_no]) {
        member_of = dp->ports[port->bond_port_no]->name;
    }
    if (port->bond) {
        ds_put_format(text, "    port %d: %s (bond, %s)\n", i, port->name,
                      bond_mode_to_string(bond_get_mode(port->bond)));
        json_array_append_new(ports, json_pack(
            "{s:i, s:s, s:s, s:s, s:s}", "port_no", i, "name", port->name,
            "bridge", bridge, "type", type, "bond_mode",
            bond_mode_to_string(bond_get_mode(port->bond))));
        return;
    }
    dp_port_get_stats(dp, port, &s);
    if (port->patch_peer) {
        ds_put_format(text, "    port %d: %s (peer=%s, patch", i, port->name,
                      port->patch_peer);
    } else if (port->vxlan) {
        ds_put_format(text, "    port %d: %s (", i, port->name);
        dp_show_vxlan_head(port, text);
    } else {
        ds_put_format(text, "    port %d: %s (%s, %s", i, port->name,
                      port->ifname, type);
    }
    ds_put_format(text, ", %s, down %"PRIu64" times%s%s)\n"
                  "      RX packets:%"PRIu64" bytes:%"PRIu64
                  " ring_full:%"PRIu64" truncated:%"PRIu64
                  " errors:%"PRIu64"\n"
                  "      TX packets:%"PRIu64" bytes:%"PRIu64
                  " queue_full:%"PRIu64" too_big:%"PRIu64
                  " port_down:%"PRIu64" errors:%"PRIu64"\n",
                  state, port->n_down,
                  member_of[0] ? ", member of " : "", member_of,
                  s.rx_packets, s.rx_bytes, s.rx_ring_full,
                  s.rx_truncated, s.rx_errors, s.tx_packets, s.tx_bytes,
                  s.tx_queue_full, s.tx_too_big, s.tx_port_down,
                  s.tx_errors);
    obj = json_pack(
        "{s:i, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
        " s:I, s:I, s:I, s:I, s:I}",
        "port_no", i, "name", port->name, "bridge", bridge,
        "interface", port->ifname, "type", type, "state", state,
        "n_down", (json_int_t) port->n_down,
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
        "tx_errors", (json_int_t) s.tx_errors);
    json_object_set_new(obj, "tx_gro_segments",
                        json_integer(s.tx_gro_segments));
    json_object_set_new(obj, "tx_gro_frames", json_integer(s.tx_gro_frames));
    json_object_set_new(obj, "tx_gso_frames", json_integer(s.tx_gso_frames));
    json_object_set_new(obj, "tx_gso_segments",
                        json_integer(s.tx_gso_segments));
    if (s.tx_gro_segments || s.tx_gso_frames) {
        ds_put_format(text, "      TX offload: merged %"PRIu64" segments "
                      "into %"PRIu64" frames, cut %"PRIu64" frames into %"
                      PRIu64" segments\n", s.tx_gro_segments,
                      s.tx_gro_frames, s.tx_gso_frames, s.tx_gso_segments);
    }
    if (port->vxlan) {
        dp_show_vxlan_tail(port, text, obj);
    }
    if (member_of[0]) {
        json_object_set_new(obj, "bond", json_string(member_of));
    }
    if (port->patch_peer) {
        json_object_set_new(obj, "peer", json_string(port->patch_peer));
    }
    if (port->netdev) {
        json_object_set_new(obj, "n_rxq",
                            json_integer(netdev_n_rxq(port->netdev)));
        json_object_set_new(obj, "n_txq",
                            json_integer(netdev_n_txq(port->netdev)));
    }
    json_array_append_new(ports, obj);
}

/* dpctl/show [BRIDGE]: the datapath's lookups and flows, then the ports
 * of each bridge (or of BRIDGE) with their counters, drops by reason. */
static void
dp_unixctl_show(struct unixctl_conn *conn, int argc, const char *argv[],
                void *dp_)
{
    struct dp *dp = dp_;
    uint64_t hit = 0, missed = 0, lost = 0, flows = 0;
    struct ds text = DS_EMPTY_INITIALIZER;
    struct ofproto *only = NULL;
    json_t *ports, *bridges;
    struct ofproto *bridge;

    if (argc && !(only = dp_find_bridge(conn, dp, argv[0]))) {
        return;
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        struct pmd_perf_snapshot s;

        pmd_perf_snapshot_read(&dp->pmds[i]->perf, &s);
        hit += s.c[PMD_STAT_EMC_HIT] + s.c[PMD_STAT_SMC_HIT]
               + s.c[PMD_STAT_MASKED_HIT];
        missed += s.c[PMD_STAT_MISS];
        lost += s.c[PMD_STAT_LOST];
        flows += __atomic_load_n(&dp->pmds[i]->flows.n_flows,
                                 __ATOMIC_RELAXED);
    }
    ds_put_format(&text, "netdev@%s:\n  lookups: hit:%"PRIu64" missed:%"
                  PRIu64" lost:%"PRIu64"\n  flows: %"PRIu64"\n",
                  DP_NAME, hit, missed, lost, flows);
    ports = json_array();
    bridges = json_array();
    DP_FOR_EACH_BRIDGE (bridge, dp) {
        json_t *names = json_array();

        if (only && bridge != only) {
            continue;
        }
        ds_put_format(&text, "  %s:\n", ofproto_name(bridge));
        for (int i = 0; i < DP_MAX_PORTS; i++) {
            const struct dp_port *port = dp->ports[i];

            if (port && port->ofproto == bridge) {
                dp_show_port(dp, port, &text, ports);
                json_array_append_new(names, json_string(port->name));
            }
        }
        json_array_append_new(bridges, json_pack("{s:s, s:o}", "name",
                                                 ofproto_name(bridge),
                                                 "ports", names));
    }
    dp_reply(conn, &text, json_pack(
                 "{s:s, s:I, s:I, s:I, s:I, s:o, s:o}", "name", DP_NAME,
                 "hit", (json_int_t) hit, "missed", (json_int_t) missed,
                 "lost", (json_int_t) lost, "flows", (json_int_t) flows,
                 "bridges", bridges, "ports", ports));
}

bool
appctl_visit_live_flows(struct dp *dp, int timeout_ms,
                        appctl_flow_visit_func *visit, void *aux)
{
    for (int i = 0; i < dp->n_pmds; i++) {
        struct pmd_request *req = xzalloc(sizeof *req);
        int error;

        req->type = PMD_REQUEST_DUMP_FLOWS;
        error = pmd_request_run(dp->pmds[i], req, timeout_ms);
        if (error) {
            if (error != ETIMEDOUT) {
                free(req);      /* Not handed over. */
            }
            return false;
        }
        for (size_t f = 0; f < req->n_flows; f++) {
            visit(&req->flows[f], aux);
        }
        pmd_request_uninit(req);
        free(req);
    }
    return true;
}

/* Runs a request of 'type' on every PMD, one after the other.  Replies
 * with an error and returns false if one does not answer. */
static bool
dp_request_all(struct unixctl_conn *conn, struct dp *dp,
               enum pmd_request_type type, struct pmd_request *reqs[])
{
    for (int i = 0; i < dp->n_pmds; i++) {
        int error;

        reqs[i] = xzalloc(sizeof *reqs[i]);
        reqs[i]->type = type;
        error = pmd_request_run(dp->pmds[i], reqs[i], DP_REQUEST_TIMEOUT_MS);
        if (error) {
            if (error != ETIMEDOUT) {
                free(reqs[i]);      /* Not handed over. */
            }
            for (int j = 0; j < i; j++) {
                pmd_request_uninit(reqs[j]);
                free(reqs[j]);
            }
            unixctl_command_reply_errorf(conn, "pmd thread on core %d did not answer "
                           "(%s)", dp->pmds[i]->core_id, strerror(error));
            return false;
        }
    }
    return true;
}

/* Appends TCP flags in Open vSwitch's letters. */
static void
dp_format_tcp_flags(struct ds *t, uint16_t flags)
{
    static const struct {
        uint16_t bit;
        char letter;
    } names[] = {
        { 0x001, 'F' }, { 0x002, 'S' }, { 0x004, 'R' }, { 0x008, 'P' },
        { 0x010, '.' }, { 0x020, 'U' }, { 0x040, 'E' }, { 0x080, 'C' },
    };

    ds_put_format(t, ", flags:");
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (flags & names[i].bit) {
            ds_put_format(t, "%c", names[i].letter);
        }
    }
}

/* Names output ports in dump-flows -m (dp_actions_port_name_func). */
static const char *
dp_port_name(uint16_t port_no, void *dp_)
{
    const struct dp *dp = dp_;
    const struct dp_port *port = dp->ports[port_no];

    return port ? port->name : NULL;
}

/* One flow, as Open vSwitch's dpctl/dump-flows prints one. */
static json_t *
dp_format_flow(struct ds *t, const struct dp *dp,
               const struct pmd_flow_entry *e, bool verbose, long long now)
{
    uint16_t tcp_flags = ntohs(e->tcp_flags);
    uint8_t nw_proto = dp_actions_nw_proto(&e->flow);
    json_t *actions;
    char *actions_s;
    char match[1024];

    flow_format(&e->flow, &e->mask, match, sizeof match);
    ds_put_format(t, "%s, packets:%"PRIu64", bytes:%"PRIu64", used:", match,
                  e->n_packets, e->n_bytes);
    if (e->n_packets) {
        ds_put_format(t, "%.3fs", (now - e->used) / 1000.0);
    } else {
        ds_put_format(t, "never");
    }
    if (tcp_flags) {
        dp_format_tcp_flags(t, tcp_flags);
    }
    if (verbose) {
        ds_put_format(t, ", age:%.3fs", (now - e->created) / 1000.0);
    }
    actions_s = dp_actions_format(e->actions, e->n_actions, nw_proto,
                                   verbose ? dp_port_name : NULL,
                                   (void *) dp);
    ds_put_format(t, ", actions:%s\n", actions_s);
    free(actions_s);
    actions = dp_actions_to_json(e->actions, e->n_actions, nw_proto);
    return json_pack("{s:s, s:I, s:I, s:o, s:f, s:i, s:o}", "match", match,
                     "packets", (json_int_t) e->n_packets,
                     "bytes", (json_int_t) e->n_bytes,
                     "used_s", e->n_packets
                               ? json_real((now - e->used) / 1000.0)
                               : json_null(),
                     "age_s", (now - e->created) / 1000.0,
                     "tcp_flags", tcp_flags, "actions", actions);
}

/* dpctl/dump-flows [-m] */
static void
dp_unixctl_dump_flows(struct unixctl_conn *conn, int argc,
                      const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct pmd_request *reqs[DP_MAX_PMDS];
    struct ds text = DS_EMPTY_INITIALIZER;
    long long now = time_msec();
    bool verbose = false;
    json_t *json;

    if (argc == 1 && !strcmp(argv[0], "-m")) {
        verbose = true;
    } else if (argc) {
        unixctl_command_reply_errorf(conn, "usage: dpctl/dump-flows [-m]");
        return;
    }
    if (!dp_request_all(conn, dp, PMD_REQUEST_DUMP_FLOWS, reqs)) {
        return;
    }
    json = json_array();
    for (int i = 0; i < dp->n_pmds; i++) {
        json_t *flows = json_array();

        if (reqs[i]->n_flows) {
            ds_put_format(&text, "flow-dump from pmd on cpu core: %d\n",
                          dp->pmds[i]->core_id);
        }
        for (size_t k = 0; k < reqs[i]->n_flows; k++) {
            json_array_append_new(flows, dp_format_flow(
                                      &text, dp, &reqs[i]->flows[k],
                                      verbose, now));
        }
        json_array_append_new(json, json_pack("{s:i, s:o}", "core_id",
                                              dp->pmds[i]->core_id,
                                              "flows", flows));
        pmd_request_uninit(reqs[i]);
        free(reqs[i]);
    }
    dp_reply(conn, &text, json);
}

/* dpctl/del-flows */
static void
dp_unixctl_del_flows(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    struct pmd_request *reqs[DP_MAX_PMDS];
    struct ds text = DS_EMPTY_INITIALIZER;
    json_int_t n_deleted = 0;

    if (!dp_request_all(conn, dp, PMD_REQUEST_DEL_FLOWS, reqs)) {
        return;
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        n_deleted += reqs[i]->n_deleted;
        free(reqs[i]);
    }
    VLOG_INFO("dpctl/del-flows: %lld flow(s) deleted",
              (long long) n_deleted);
    dp_reply(conn, &text, json_pack("{s:I}", "deleted", n_deleted));
}

/* fdb/show BRIDGE */
static void
dp_unixctl_fdb_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                    const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto *bridge = dp_find_bridge(conn, dp, argv[0]);
    struct mac_learning_row *rows;
    long long now = time_msec();
    struct mac_learning *ml;
    json_t *json;
    char *text;
    size_t n;

    if (!bridge) {
        return;
    }
    ml = ofproto_mac_learning(bridge);
    json = json_array();
    text = mac_learning_format_fdb(ml, now);
    n = mac_learning_dump(ml, now, &rows);
    for (size_t i = 0; i < n; i++) {
        char mac[18];
        const struct dp_port *port = rows[i].port < DP_MAX_PORTS
                                     ? dp->ports[rows[i].port] : NULL;

        snprintf(mac, sizeof mac, ETH_ADDR_FMT, ETH_ADDR_ARGS(rows[i].mac));
        json_array_append_new(json, json_pack(
            "{s:i, s:s, s:i, s:s, s:i}", "port_no", rows[i].port,
            "port", port ? port->name : "", "vlan", rows[i].vlan,
            "mac", mac, "age", rows[i].age));
    }
    free(rows);
    unixctl_command_reply_text_json(conn, text, json);
    free(text);
}

/* fdb/stats-show BRIDGE: Open vSwitch's lines, then what the table
 * refused and what each port holds. */
static void
dp_unixctl_fdb_stats_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                          const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto *bridge = dp_find_bridge(conn, dp, argv[0]);
    struct ds text = DS_EMPTY_INITIALIZER;
    struct mac_learning_port_row *rows;
    struct mac_learning_stats st;
    struct mac_learning *ml;
    json_t *ports;
    size_t n;

    if (!bridge) {
        return;
    }
    ml = ofproto_mac_learning(bridge);
    mac_learning_get_stats(ml, &st);
    ds_put_format(&text, "Statistics for bridge \"%s\":\n",
                  ofproto_name(bridge));
    ds_put_format(&text, "  Current/maximum MAC entries in the table: "
                  "%zu/%zu\n", st.n_entries, st.max_entries);
    ds_put_format(&text, "  Total number of learned MAC entries     : "
                  "%"PRIu64"\n", st.n_learned);
    ds_put_format(&text, "  Total number of expired MAC entries     : "
                  "%"PRIu64"\n", st.n_expired);
    ds_put_format(&text, "  Total number of evicted MAC entries     : "
                  "%"PRIu64"\n", st.n_evicted);
    ds_put_format(&text, "  Total number of port moved MAC entries  : "
                  "%"PRIu64"\n", st.n_moved);
    ds_put_format(&text, "  Learns refused, port at its mac-limit   : "
                  "%"PRIu64"\n", st.n_over_limit);
    ds_put_format(&text, "  Learns refused, over mac-learn-rate     : "
                  "%"PRIu64" (rate %u/s per port)\n", st.n_rate_limited,
                  st.learn_rate);
    n = mac_learning_dump_ports(ml, &rows);
    ports = json_array();
    if (n) {
        ds_put_format(&text, "%s", "  port         entries  limit  over-limit  "
                    "rate-limited\n");
    }
    for (size_t i = 0; i < n; i++) {
        const struct mac_learning_port_row *r = &rows[i];
        const struct dp_port *port = (r->port < DP_MAX_PORTS
                                      ? dp->ports[r->port] : NULL);
        const char *name = port ? port->name : "?";

        ds_put_format(&text, "  %-12s %7zu  %5zu  %10"PRIu64"  %12"PRIu64
                      "\n", name, r->n_entries, r->limit, r->n_over_limit,
                      r->n_rate_limited);
        json_array_append_new(ports, json_pack(
            "{s:i, s:s, s:I, s:I, s:I, s:I}", "port_no", r->port,
            "port", name, "entries", (json_int_t) r->n_entries,
            "limit", (json_int_t) r->limit,
            "over_limit", (json_int_t) r->n_over_limit,
            "rate_limited", (json_int_t) r->n_rate_limited));
    }
    free(rows);
    dp_reply(conn, &text, json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:o}",
        "bridge", ofproto_name(bridge),
        "entries", (json_int_t) st.n_entries,
        "max_entries", (json_int_t) st.max_entries,
        "learned", (json_int_t) st.n_learned,
        "expired", (json_int_t) st.n_expired,
        "evicted", (json_int_t) st.n_evicted,
        "moved", (json_int_t) st.n_moved,
        "over_limit", (json_int_t) st.n_over_limit,
        "rate_limited", (json_int_t) st.n_rate_limited,
        "learn_rate", (int) st.learn_rate,
        "ports", ports));
}

/* fdb/flush [BRIDGE]: replies once the PMDs have revalidated their flows,
 * so traffic floods until the MACs are learned again. */
static void
dp_unixctl_fdb_flush(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto *bridge = NULL;

    if (argc && !(bridge = dp_find_bridge(conn, dp, argv[0]))) {
        return;
    }
    /* Without a bridge, as in Open vSwitch: every bridge's table. */
    DP_FOR_EACH_BRIDGE (bridge, dp) {
        if (!argc || !strcmp(ofproto_name(bridge), argv[0])) {
            mac_learning_flush(ofproto_mac_learning(bridge));
        }
    }
    dp_wait_revalidated(dp);
    unixctl_command_reply_text_json(conn, "table successfully flushed",
                                    json_pack("{s:b}", "flushed", 1));
}

/* The other_config in force as text lines and as a JSON object. */
static json_t *
dp_other_json(const struct config_other *other, char *buf, size_t size)
{
    json_t *json = json_object();

    config_other_format(other, buf, size);
    for (const char *line = buf; *line; ) {
        const char *eq = strchr(line, '=');
        const char *nl = strchrnul(line, '\n');

        if (eq && eq < nl) {
            char *key = xmemdup0(line, eq - line);
            char *value = xmemdup0(eq + 1, nl - eq - 1);

            json_object_set_new(json, key, json_string(value));
            free(key);
            free(value);
        }
        line = *nl ? nl + 1 : nl;
    }
    return json;
}

/* other-config/list */
static void
dp_unixctl_other_list(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    char buf[CONFIG_OTHER_FORMAT_SIZE];
    json_t *json = dp_other_json(&dp->other, buf, sizeof buf);

    unixctl_command_reply_text_json(conn, buf, json);
}

/* Replies with an error naming the known keys and returns false if 'key'
 * is not one. */
static bool
dp_check_other_key(struct unixctl_conn *conn, const char *key)
{
    if (config_other_key_from_name(key) == CONFIG_OTHER_N_KEYS) {
        char *known = config_other_known_keys();

        unixctl_command_reply_errorf(conn, "unknown other_config key \"%s\" (known keys: "
                       "%s)", key, known);
        free(known);
        return false;
    }
    return true;
}

/* other-config/get KEY */
static void
dp_unixctl_other_get(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    char buf[CONFIG_OTHER_FORMAT_SIZE];
    json_t *all, *value;

    if (!dp_check_other_key(conn, argv[0])) {
        return;
    }
    all = dp_other_json(&dp->other, buf, sizeof buf);
    value = json_object_get(all, argv[0]);
    /* An unset key (pmd-cpu-mask) is listed as "". */
    unixctl_command_reply_text_json(
        conn, value ? json_string_value(value) : "",
        json_pack("{s:s}", argv[0], value ? json_string_value(value) : ""));
    json_decref(all);
}

/* other-config/set KEY=VALUE...: all or nothing. */
static void
dp_unixctl_other_set(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *dp_)
{
    struct dp *dp = dp_;
    struct config_other other = dp->other;
    char buf[CONFIG_OTHER_FORMAT_SIZE];
    char *error;

    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        char *key;

        if (!eq || eq == argv[i]) {
            unixctl_command_reply_errorf(conn, "\"%s\": expected KEY=VALUE", argv[i]);
            return;
        }
        key = xmemdup0(argv[i], eq - argv[i]);
        if (!dp_check_other_key(conn, key)) {
            free(key);
            return;
        }
        error = config_other_set(&other, key, eq + 1);
        free(key);
        if (error) {
            unixctl_command_reply_error(conn, error);
            free(error);
            return;
        }
    }
    error = dp_set_other(dp, &other);
    if (error) {
        VLOG_WARN("other-config/set: %s", error);
        unixctl_command_reply_error(conn, error);
        free(error);
        return;
    }
    for (int i = 0; i < argc; i++) {
        VLOG_INFO("other_config:%s applied", argv[i]);
    }
    unixctl_command_reply_text_json(conn, "",
                                    dp_other_json(&dp->other, buf,
                                                  sizeof buf));
}

/* memory/show: the sizes that grow with use. */
static void
dp_unixctl_memory_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
                       const char *argv[] OVS_UNUSED, void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto *bridge;
    size_t macs = 0;
    size_t emc_bytes = sizeof(struct emc_cache);
    size_t smc_bytes = (size_t) SMC_BUCKETS * sizeof(struct smc_bucket);
    struct ds text = DS_EMPTY_INITIALIZER;
    uint64_t flows = 0;

    DP_FOR_EACH_BRIDGE (bridge, dp) {
        macs += mac_learning_count(ofproto_mac_learning(bridge));
    }
    for (int i = 0; i < dp->n_pmds; i++) {
        flows += __atomic_load_n(&dp->pmds[i]->flows.n_flows,
                                 __ATOMIC_RELAXED);
    }
    ds_put_format(&text, "ports:%d pmd-threads:%d flows:%"PRIu64
                  " mac-entries:%zu emc-bytes-per-pmd:%zu"
                  " smc-bytes-per-pmd:%zu", dp->n_ports, dp->n_pmds, flows,
                  macs, emc_bytes, smc_bytes);
    dp_reply(conn, &text, json_pack(
                 "{s:i, s:i, s:I, s:I, s:I, s:I}", "ports", dp->n_ports,
                 "pmd-threads", dp->n_pmds, "flows", (json_int_t) flows,
                 "mac-entries", (json_int_t) macs,
                 "emc-bytes-per-pmd", (json_int_t) emc_bytes,
                 "smc-bytes-per-pmd", (json_int_t) smc_bytes));
}

void
dp_register_commands(struct dp *dp)
{
    static const struct unixctl_command_def commands[] = {
        { "dpctl/show", "[BRIDGE]", 0, 1, dp_unixctl_show },
        { "dpctl/dump-flows", "[-m]", 0, 1, dp_unixctl_dump_flows },
        { "dpctl/del-flows", "", 0, 0, dp_unixctl_del_flows },
        { "dpif-netdev/pmd-stats-show", "[-pmd CORE]", 0, 2,
          dp_unixctl_pmd_stats_show },
        { "dpif-netdev/pmd-stats-clear", "", 0, 0,
          dp_unixctl_pmd_stats_clear },
        { "dpif-netdev/pmd-perf-show", "[-pmd CORE]", 0, 2,
          dp_unixctl_pmd_perf_show },
        { "dpif-netdev/pmd-rxq-show", "[-pmd CORE]", 0, 2,
          dp_unixctl_pmd_rxq_show },
        { "dpif-netdev/pmd-rxq-rebalance", "", 0, 0,
          dp_unixctl_pmd_rxq_rebalance },
        { "fdb/show", "BRIDGE", 1, 1, dp_unixctl_fdb_show },
        { "fdb/flush", "[BRIDGE]", 0, 1, dp_unixctl_fdb_flush },
        { "fdb/stats-show", "BRIDGE", 1, 1, dp_unixctl_fdb_stats_show },
        { "other-config/list", "", 0, 0, dp_unixctl_other_list },
        { "other-config/get", "KEY", 1, 1, dp_unixctl_other_get },
        { "other-config/set", "KEY=VALUE...", 1, CONFIG_OTHER_N_KEYS,
          dp_unixctl_other_set },
        { "memory/show", "", 0, 0, dp_unixctl_memory_show },
    };

    unixctl_command_register_table(commands, ARRAY_SIZE(commands), dp);
}

void
appctl_register_commands(struct dp *dp)
{
    vlog_register_commands();
    coverage_register_commands();
    dp_register_commands(dp);
    ofproto_register_commands(dp);
    bond_register_commands(dp);
    ofproto_trace_register_commands(dp);
    port_check_register_commands(dp);
    capture_register_commands(dp);
}
