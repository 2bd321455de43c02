/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * ofproto/trace: what the slow path would do with a packet, step by step,
 * in Open vSwitch's layout.  The packet is given as a flow in Open
 * vSwitch's match syntax or as a raw frame in hex, which goes through the
 * datapath's own miniflow_extract().  Tracing is read-only: it learns no
 * MAC, installs no flow and counts nothing.  Control thread.
 */
#include <autoconf.h>
#include "control/appctl.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "config/config-vxlan.h"
#include "dp/dp.h"
#include "netdev/netdev-vxlan.h"
#include "packet/dp-packet.h"
#include "base/ds.h"
#include "ofproto/match-parse.h"
#include "packet/flow-format.h"
#include "packet/miniflow.h"
#include "packet/dp-actions-format.h"
#include "control/unixctl.h"
#include "ofproto/ofproto.h"
#include "ofproto/upcall.h"
#include "base/util.h"

/* Largest frame accepted in hex. */
#define OFPROTO_TRACE_MAX_FRAME 65535

/* Size of a formatted flow. */
#define OFPROTO_TRACE_FLOW_SIZE 1024

/* The bridge a trace runs in. */
struct ofproto_trace_bridge {
    struct dp *dp;
    struct ofproto *bridge;
};

/* Resolves port 'name' of the bridge in 'b_'. */
static bool
ofproto_trace_lookup_port(const char *name, uint16_t *port_no, void *b_)
{
    const struct ofproto_trace_bridge *b = b_;

    return dp_bridge_port_lookup(b->dp, b->bridge, name, port_no);
}

/* Decodes hex digits (spaces and colons between bytes allowed) from 'hex'
 * into 'frame'.  Returns the number of bytes, or 0 with '*errp'. */
static size_t
ofproto_trace_decode_hex(const char *hex, uint8_t *frame, char **errp)
{
    size_t n = 0;

    for (const char *p = hex; *p; ) {
        unsigned int byte;

        if (isspace((unsigned char) *p) || *p == ':') {
            p++;
            continue;
        }
        if (!isxdigit((unsigned char) p[0])
            || !isxdigit((unsigned char) p[1])) {
            *errp = xasprintf("frame: bad hex at character %td (\"%.8s\"): "
                              "give the frame as pairs of hex digits",
                              p - hex, p);
            return 0;
        }
        if (n >= OFPROTO_TRACE_MAX_FRAME) {
            *errp = xasprintf("frame: longer than %d bytes",
                              OFPROTO_TRACE_MAX_FRAME);
            return 0;
        }
        sscanf(p, "%2x", &byte);
        frame[n++] = byte;
        p += 2;
    }
    if (n < ETH_HEADER_LEN) {
        *errp = xasprintf("frame: %zu bytes, shorter than an Ethernet "
                          "header (%d)", n, ETH_HEADER_LEN);
        return 0;
    }
    return n;
}

/* Fills 'flow' from a raw frame received on the port 'in_port_arg'
 * ("in_port=PORT") names. */
static char *
ofproto_trace_parse_frame(struct ofproto_trace_bridge *b,
                          const char *in_port_arg, const char *hex,
                          struct flow *flow)
{
    uint8_t *frame = xmalloc(OFPROTO_TRACE_MAX_FRAME);
    struct netdev_flow_key key;
    struct dp_packet packet;
    struct flow in, in_mask;
    char *error = NULL;
    size_t size;

    error = match_parse(in_port_arg, ofproto_trace_lookup_port, b, &in,
                        &in_mask);
    if (!error && (!in_mask.in_port
                   || strncmp(in_port_arg, "in_port=", 8)
                   || strchr(in_port_arg, ','))) {
        error = xasprintf("with a frame, the second argument is "
                          "\"in_port=PORT\", not \"%s\"", in_port_arg);
    }
    if (!error) {
        size = ofproto_trace_decode_hex(hex, frame, &error);
        if (size) {
            dp_packet_init(&packet, frame, size, in.in_port);
            miniflow_extract(&packet, &key);
            miniflow_expand(&key.mf, flow);
        }
    }
    free(frame);
    return error;
}

/* The vxlan port number 'port_no' of 'dp', or NULL if it is not one. */
static const struct dp_port *
ofproto_trace_vxlan_port(const struct dp *dp, uint16_t port_no)
{
    const struct dp_port *port = (port_no < DP_MAX_PORTS
                                  ? dp->ports[port_no] : NULL);

    return port && port->vxlan ? port : NULL;
}

/* Appends to 'text' and 'steps' what the tunnels do to the packet 'flow'
 * whose datapath actions are 'actions': decapsulation if it came from a
 * vxlan port, and the encapsulation of each output to one, with the VNI
 * it leaves with at that point of the actions. */
static void
ofproto_trace_tunnels(const struct dp *dp, const struct flow *flow,
                      const struct dp_action *actions, size_t n,
                      struct ds *text, json_t *steps)
{
    const struct dp_port *in = ofproto_trace_vxlan_port(dp, flow->in_port);
    char remotes[NETDEV_VXLAN_MAX_REMOTES * 16];
    uint32_t tun_id = flow->tun_id;
    struct ds lines = DS_EMPTY_INITIALIZER;

    if (in) {
        config_vxlan_format_remotes(in->vxlan, remotes, sizeof remotes);
        ds_put_format(&lines, "decapsulated on %s: VXLAN VNI %"PRIu32
                      " (tun_id=0x%"PRIx32") from remote_ip %s, UDP port "
                      "%d\n", in->name, flow->tun_id, flow->tun_id,
                      remotes, in->vxlan->dst_port);
    }
    for (size_t i = 0; i < n; i++) {
        const struct dp_port *out;
        uint32_t vni;

        if (actions[i].type == DP_ACTION_SET_TUN_ID) {
            tun_id = actions[i].tun_id;
            continue;
        }
        if (actions[i].type != DP_ACTION_OUTPUT
            || !(out = ofproto_trace_vxlan_port(dp, actions[i].port))) {
            continue;
        }
        vni = out->vxlan->key_flow ? tun_id : out->vxlan->key;
        config_vxlan_format_remotes(out->vxlan, remotes, sizeof remotes);
        ds_put_format(&lines, "encapsulated on %s: VXLAN VNI %"PRIu32
                      " (%s), UDP port %d, source port from the flow's "
                      "hash, to remote_ip %s%s\n", out->name, vni,
                      out->vxlan->key_flow ? "the packet's tun_id"
                      : "the port's key", out->vxlan->dst_port, remotes,
                      out->vxlan->n_remotes > 1
                      ? " (one copy each, or only the remote that "
                        "dl_dst was learned from)" : "");
    }
    if (lines.length) {
        ds_put_format(text, "\nTunnels:\n");
        for (char *line = strtok(lines.string, "\n"); line;
             line = strtok(NULL, "\n")) {
            ds_put_format(text, "  %s\n", line);
            json_array_append_new(steps, json_pack("s+", "tunnel: ", line));
        }
    }
    ds_destroy(&lines);
}

/* ofproto/trace BRIDGE FLOW | ofproto/trace BRIDGE in_port=PORT HEXFRAME */
static void
ofproto_trace_unixctl(struct unixctl_conn *conn, int argc,
                      const char *argv[], void *dp_)
{
    struct dp *dp = dp_;
    char flow_s[OFPROTO_TRACE_FLOW_SIZE], mega_s[OFPROTO_TRACE_FLOW_SIZE];
    char final_s[OFPROTO_TRACE_FLOW_SIZE];
    struct xlate_out *out = xzalloc(sizeof *out);
    json_t *actions = NULL;
    char *actions_s;
    uint8_t nw_proto;
    json_t *steps = json_array();
    struct flow flow, mask, masked;
    struct ds text = DS_EMPTY_INITIALIZER;
    struct ofproto_trace_bridge b = { dp, dp_bridge_lookup(dp, argv[0]) };
    const char *name = argv[0];
    char *error;
    int xerr;

    if (!b.bridge) {
        error = xasprintf("no bridge named %s", name);
    } else if (argc == 3) {
        error = ofproto_trace_parse_frame(&b, argv[1], argv[2], &flow);
    } else {
        error = match_parse(argv[1], ofproto_trace_lookup_port, &b, &flow,
                            &mask);
    }
    if (error) {
        unixctl_command_reply_error(conn, error);
        goto out;
    }

    /* No learning: a trace must change nothing. */
    xerr = upcall_xlate_trace(b.bridge, &flow, false, time_msec(), out);
    if (xerr) {
        error = xasprintf("translation failed (%s)", strerror(xerr));
        unixctl_command_reply_error(conn, error);
        goto out;
    }
    flow_format(&flow, NULL, flow_s, sizeof flow_s);
    for (size_t i = 0; i < sizeof flow / sizeof(uint64_t); i++) {
        ((uint64_t *) &masked)[i] = (((const uint64_t *) &flow)[i]
                                     & ((const uint64_t *) &out->mask)[i]);
    }
    flow_format(&masked, &out->mask, mega_s, sizeof mega_s);
    nw_proto = dp_actions_nw_proto(&flow);
    actions_s = dp_actions_format(out->actions, out->n_actions, nw_proto,
                                   NULL, NULL);
    actions = dp_actions_to_json(out->actions, out->n_actions, nw_proto);

    ds_put_format(&text, "Flow: %s\n\nbridge(\"%s\")\n%.*s\n",
                  flow_s, name, (int) strlen(name) + 10,
                  "----------------------------------------------"
                  "----------------------------------------------");
    /* The first step is the rule that matched ("rules: ..."), or NORMAL
     * alone when the bridge has no rules. */
    if (strncmp(out->trace, "rules: ", 7)) {
        ds_put_format(&text, " 0. NORMAL\n");
    }
    for (char *line = strtok(out->trace, "\n"); line;
         line = strtok(NULL, "\n")) {
        if (!strncmp(line, "rules: ", 7)) {
            ds_put_format(&text, " 0. %s\n", line + 7);
        } else {
            ds_put_format(&text, "     -> %s\n",
                          !strncmp(line, "NORMAL: ", 8) ? line + 8 : line);
        }
        json_array_append_new(steps, json_string(line));
    }
    if (memcmp(&flow, &out->final_flow, sizeof flow)) {
        flow_format(&out->final_flow, NULL, final_s, sizeof final_s);
    } else {
        snprintf(final_s, sizeof final_s, "unchanged");
    }
    ofproto_trace_tunnels(dp, &flow, out->actions, out->n_actions, &text,
                          steps);
    ds_put_format(&text, "\nFinal flow: %s\nMegaflow: %s\n"
                  "Datapath actions: %s\n", final_s, mega_s, actions_s);
    free(actions_s);
    unixctl_command_reply_text_json(
        conn, ds_cstr(&text), json_pack("{s:s, s:s, s:o, s:s, s:s, s:o}",
                              "flow", flow_s, "bridge", name,
                              "steps", steps, "final_flow", final_s,
                              "megaflow", mega_s,
                              "datapath_actions", actions));
    steps = actions = NULL;
out:
    ds_destroy(&text);
    json_decref(steps);
    json_decref(actions);
    free(error);
    free(out);
}

void
ofproto_trace_register_commands(struct dp *dp)
{
    unixctl_command_register("ofproto/trace",
                             "BRIDGE {FLOW | in_port=PORT HEXFRAME}", 2, 3,
                             ofproto_trace_unixctl, dp);
}
