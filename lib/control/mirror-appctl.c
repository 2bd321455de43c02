/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * mirror/show: the port mirrors of each bridge (ofproto/mirror.h), with
 * their tx_packets and tx_bytes as Open vSwitch's Mirror statistics.  A
 * mirror's counters are what the flows that copied to it credited when
 * they were deleted plus what the flows still installed have counted,
 * read from every PMD as rule/dump reads rule counters.
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/ds.h"
#include "base/util.h"
#include "classifier/dp-flow.h"
#include "control/unixctl.h"
#include "dp/dp.h"
#include "dp/pmd.h"
#include "ofproto/mirror.h"
#include "ofproto/ofproto.h"

/* How long mirror/show waits for each PMD's flow dump. */
#define MIRROR_REQUEST_TIMEOUT_MS 2000

struct mirror_live_counts {
    struct mirror_info *infos;
    size_t n;
};

/* Adds flow 'e''s counts to each mirror it credits. */
static void
mirror_cmd_count_flow(const struct pmd_flow_entry *e, void *mlc_)
{
    struct mirror_live_counts *mlc = mlc_;

    for (size_t m = 0; e->rule_stats && m < mlc->n; m++) {
        if (rule_stats_covers(e->rule_stats, mlc->infos[m].stats)) {
            mlc->infos[m].tx_packets += e->n_packets;
            mlc->infos[m].tx_bytes += e->n_bytes;
        }
    }
}

/* Adds the counts of the live flows that credit 'infos[i]' to it, for
 * each of the 'n' 'infos'.  Returns false if a PMD did not answer. */
static bool
mirror_cmd_live_counts(struct dp *dp, struct mirror_info *infos, size_t n)
{
    struct mirror_live_counts mlc = { infos, n };

    return !n || appctl_visit_live_flows(dp, MIRROR_REQUEST_TIMEOUT_MS,
                                         mirror_cmd_count_flow, &mlc);
}

/* Appends the names of the 'n' ports 'ports' of 'bridge' to 'ds',
 * comma-separated, and to the JSON array 'json'. */
static void
mirror_cmd_ports(const struct ofproto *bridge, const uint16_t *ports,
                 size_t n, struct ds *ds, json_t *json)
{
    for (size_t i = 0; i < n; i++) {
        char name[OFPROTO_PORT_NAME_SIZE];

        if (!ofproto_port_name(bridge, ports[i], name)) {
            snprintf(name, sizeof name, "%"PRIu16, ports[i]);
        }
        ds_put_format(ds, "%s%s", i ? "," : "", name);
        json_array_append_new(json, json_string(name));
    }
}

/* Appends the mirrors of 'bridge' to 'ds' and, as an object, to 'json'.
 * Returns false if a PMD did not answer. */
static bool
mirror_cmd_show_bridge(struct dp *dp, const struct ofproto *bridge,
                       struct ds *ds, json_t *json)
{
    struct mirror_info *infos;
    size_t n = ofproto_mirrors_get(bridge, &infos);
    json_t *mirrors = json_array();

    /* The mirrors' own counters were read first: a flow deleted after
     * that read is then counted nowhere, rather than twice. */
    if (!mirror_cmd_live_counts(dp, infos, n)) {
        mirror_infos_free(infos, n);
        json_decref(mirrors);
        return false;
    }
    ds_put_format(ds, "---- %s ----\n", ofproto_name(bridge));
    for (size_t i = 0; i < n; i++) {
        const struct mirror_info *m = &infos[i];
        json_t *srcs = json_array(), *dsts = json_array();
        json_t *vlans = json_array();
        char out[OFPROTO_PORT_NAME_SIZE];

        if (!ofproto_port_name(bridge, m->out_port, out)) {
            snprintf(out, sizeof out, "%"PRIu16, m->out_port);
        }
        ds_put_format(ds, "mirror %s:\n", m->name);
        if (m->select_all) {
            ds_put_format(ds, "  select_all: true\n");
        }
        if (m->n_srcs) {
            ds_put_format(ds, "  select_src_port: ");
            mirror_cmd_ports(bridge, m->srcs, m->n_srcs, ds, srcs);
            ds_put_format(ds, "\n");
        }
        if (m->n_dsts) {
            ds_put_format(ds, "  select_dst_port: ");
            mirror_cmd_ports(bridge, m->dsts, m->n_dsts, ds, dsts);
            ds_put_format(ds, "\n");
        }
        if (!m->all_vlans) {
            ds_put_format(ds, "  select_vlan: ");
            for (int v = 0; v < OFPROTO_N_VLANS; v++) {
                if ((m->vlans[v / 64] >> (v % 64)) & 1) {
                    ds_put_format(ds, "%s%d",
                                  json_array_size(vlans) ? "," : "", v);
                    json_array_append_new(vlans, json_integer(v));
                }
            }
            ds_put_format(ds, "\n");
        }
        ds_put_format(ds, "  output_port: %s\n", out);
        ds_put_format(ds, "  tx_packets: %"PRIu64"\n  tx_bytes: %"PRIu64"\n",
                      m->tx_packets, m->tx_bytes);
        json_array_append_new(mirrors, json_pack(
            "{s:s, s:b, s:o, s:o, s:o, s:s, s:I, s:I}",
            "name", m->name, "select_all", m->select_all,
            "select_src_port", srcs, "select_dst_port", dsts,
            "select_vlan", vlans, "output_port", out,
            "tx_packets", (json_int_t) m->tx_packets,
            "tx_bytes", (json_int_t) m->tx_bytes));
    }
    json_array_append_new(json, json_pack("{s:s, s:o}",
                                          "bridge", ofproto_name(bridge),
                                          "mirrors", mirrors));
    mirror_infos_free(infos, n);
    return true;
}

/* mirror/show [BRIDGE] */
static void
mirror_cmd_show(struct unixctl_conn *conn, int argc, const char *argv[],
                void *dp_)
{
    struct dp *dp = dp_;
    struct ofproto *bridge;
    struct ds ds = DS_EMPTY_INITIALIZER;
    json_t *json = json_array();
    bool ok = true;

    if (argc > 0 && !dp_bridge_lookup(dp, argv[0])) {
        unixctl_command_reply_errorf(conn, "no bridge named %s", argv[0]);
        json_decref(json);
        return;
    }
    DP_FOR_EACH_BRIDGE (bridge, dp) {
        if (ok && (argc == 0 || !strcmp(ofproto_name(bridge), argv[0]))) {
            ok = mirror_cmd_show_bridge(dp, bridge, &ds, json);
        }
    }
    if (ok) {
        unixctl_command_reply_text_json(conn, ds_cstr(&ds), json);
    } else {
        unixctl_command_reply_error(conn, "a pmd thread did not answer");
        json_decref(json);
    }
    ds_destroy(&ds);
}

void
mirror_register_commands(struct dp *dp)
{
    static const struct unixctl_command_def commands[] = {
        { "mirror/show", "[BRIDGE]", 0, 1, mirror_cmd_show },
    };

    unixctl_command_register_table(commands, ARRAY_SIZE(commands), dp);
}
