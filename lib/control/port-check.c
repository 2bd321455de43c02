/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * port/check: the offload doctor (see port-check.h).  The first half is
 * the diagnosis, a pure function from the facts of one port to findings;
 * the second half gathers those facts for the ports of the datapath and
 * answers in text and JSON, on the control thread.
 */
#include <autoconf.h>
#include "control/port-check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include <linux/if_tun.h>

#include "base/ds.h"
#include "base/util.h"
#include "control/unixctl.h"
#include "dp/dp.h"
#include "ofproto/ofproto.h"

/* The diagnosis. */

const char *
port_check_code_name(enum port_check_code code)
{
    static const char *const names[] = {
        [PORT_CHECK_NO_IFACE] = "interface-unread",
        [PORT_CHECK_PEER_NOT_FOUND] = "peer-not-found",
        [PORT_CHECK_PEER_TX_CSUM] = "peer-tx-csum",
        [PORT_CHECK_PEER_TSO_AFXDP] = "peer-tso-afxdp",
        [PORT_CHECK_PEER_TSO_TO_AFXDP] = "peer-tso-to-afxdp",
        [PORT_CHECK_PEER_MTU] = "peer-mtu",
        [PORT_CHECK_AFXDP_NO_XDP] = "afxdp-no-xdp",
        [PORT_CHECK_FOREIGN_XDP] = "foreign-xdp",
        [PORT_CHECK_TAP_NO_TSO] = "tap-no-tso",
        [PORT_CHECK_PORT_TSO_OFF] = "port-tso-off",
        [PORT_CHECK_PEER_GRO_OFF] = "peer-gro-off",
    };

    return (unsigned int) code < ARRAY_SIZE(names) ? names[code] : "?";
}

const char *
port_check_severity_name(enum port_check_severity severity)
{
    return (severity == PORT_CHECK_ERROR ? "error"
            : severity == PORT_CHECK_WARNING ? "warning" : "note");
}

/* Findings collected so far for one port. */
struct port_check_out__ {
    struct port_check_finding *findings;
    size_t n;
};

static void PRINTF_FORMAT(4, 5)
port_check_add__(struct port_check_out__ *out, enum port_check_code code,
                 enum port_check_severity severity, const char *format, ...)
{
    struct port_check_finding *f = &out->findings[out->n++];
    va_list args;

    f->code = code;
    f->severity = severity;
    va_start(args, format);
    vsnprintf(f->text, sizeof f->text, format, args);
    va_end(args);
}

/* Stores in 'buf' the prefix that runs a command where 'ns' is: nothing in
 * the daemon's own namespace, "ip netns exec NAME " for a named one,
 * "nsenter -t PID -n " for a process's. */
static void
port_check_ns_prefix__(const struct netdev_offload_ns_ref *ns, char *buf,
                       size_t size)
{
    if (ns->type == NETDEV_OFFLOAD_NS_NAMED) {
        snprintf(buf, size, "ip netns exec %s ", ns->name);
    } else if (ns->type == NETDEV_OFFLOAD_NS_PID) {
        snprintf(buf, size, "nsenter -t %d -n ", ns->pid);
    } else {
        buf[0] = '\0';
    }
}

static bool
port_check_on__(const struct netdev_offload_info *info,
                enum netdev_offload_feature feature)
{
    return info->features[feature] == NETDEV_OFFLOAD_ON;
}

static bool
port_check_off__(const struct netdev_offload_info *info,
                 enum netdev_offload_feature feature)
{
    return info->features[feature] == NETDEV_OFFLOAD_OFF;
}

/* The rules, in the order they are reported within a severity. */
static void
port_check_rules__(const struct port_check_facts *f,
                   struct port_check_out__ *out)
{
    const struct netdev_offload_info *sender = NULL;
    const struct netdev_offload_info *iface = &f->iface;
    char where[300];
    const char *sname, *slabel;

    if (!f->iface_valid) {
        port_check_add__(out, PORT_CHECK_NO_IFACE, PORT_CHECK_NOTE,
                         "the interface of port %s cannot be read in the "
                         "daemon's namespace (%s): its offloads were not "
                         "checked", f->port, strerror(f->iface_error));
    }
    if (f->peer_state == PORT_CHECK_PEER_LOST) {
        if (f->peer_error == ESRCH) {
            port_check_add__(out, PORT_CHECK_PEER_NOT_FOUND,
                             PORT_CHECK_NOTE,
                             "the veth peer of %s is in namespace id %d, "
                             "which neither /run/netns nor any process "
                             "names: its offloads were not checked",
                             iface->name, f->peer_ns.nsid);
        } else {
            port_check_add__(out, PORT_CHECK_PEER_NOT_FOUND,
                             PORT_CHECK_NOTE,
                             "the veth peer of %s cannot be read (%s): its "
                             "offloads were not checked", iface->name,
                             strerror(f->peer_error));
        }
    }

    /* What sends frames into the switch through this port: the veth peer,
     * or a tap's own interface (the kernel side of the tap). */
    where[0] = '\0';
    if (f->peer_state == PORT_CHECK_PEER_FOUND) {
        sender = &f->peer;
        port_check_ns_prefix__(&f->peer_ns, where, sizeof where);
    } else if (f->iface_valid && f->provider == PORT_CHECK_TAP) {
        sender = iface;
    }
    sname = sender ? sender->name : "";
    slabel = sender == iface ? "tap interface" : "peer";

    /* Without a vnet header (AF_XDP), a checksum-partial frame arrives
     * with no flag and leaves the switch with the partial sum in place:
     * the receiver drops it.  Only the sender can avoid that. */
    if (sender && !f->negotiated.vnet_hdr
        && port_check_on__(sender, NETDEV_OFFLOAD_TX_CSUM)) {
        port_check_add__(out, PORT_CHECK_PEER_TX_CSUM, PORT_CHECK_ERROR,
                         "%s %s has tx checksumming on and port %s "
                         "receives without offload metadata%s, so its TCP "
                         "and UDP frames leave the switch with bad "
                         "checksums: run '%sethtool -K %s tx off'", slabel,
                         sname,
                         f->port,
                         f->provider == PORT_CHECK_AFXDP ? " (AF_XDP)" : "",
                         where, sname);
    }

    /* An afxdp port receives into 4 KB UMEM frames: a GSO frame from a
     * peer with TSO on (generic XDP leaves it on; native XDP turns it
     * off) does not fit and is dropped (rx_ring_full). */
    if (sender && f->provider == PORT_CHECK_AFXDP
        && port_check_on__(sender, NETDEV_OFFLOAD_TSO)) {
        port_check_add__(out, PORT_CHECK_PEER_TSO_AFXDP, PORT_CHECK_ERROR,
                         "%s %s has TSO on, so its large TCP frames do "
                         "not fit afxdp port %s's 4 KB buffers and are "
                         "dropped (rx ring_full)%s: run '%sethtool -K %s "
                         "tso off'%s", slabel, sname, f->port,
                         iface->xdp == NETDEV_OFFLOAD_XDP_GENERIC
                         ? " in generic XDP mode" : "",
                         where, sname,
                         iface->xdp == NETDEV_OFFLOAD_XDP_GENERIC
                         ? ", or use xdp-mode native" : "");
    }

    /* An afxdp port cannot send a GSO frame (no offload metadata): the
     * PMD cuts those from a TSO sender on another port of the bridge in
     * software (dp/tx-gso.c).  That works; it only moves the work from
     * the sender's core to the switch's. */
    if (sender && f->provider != PORT_CHECK_AFXDP && f->afxdp_neighbour
        && port_check_on__(sender, NETDEV_OFFLOAD_TSO)) {
        port_check_add__(out, PORT_CHECK_PEER_TSO_TO_AFXDP,
                         PORT_CHECK_NOTE,
                         "%s %s has TSO on: its GSO frames to afxdp port "
                         "%s of the same bridge are cut into segments on "
                         "the switch's core (gso_segments in "
                         "pmd-stats-show); to have the sender cut them "
                         "instead, run '%sethtool -K %s tso off'", slabel,
                         sname, f->afxdp_neighbour, where, sname);
    }

    /* veth drops a frame longer than the receiving end's MTU that is not
     * GSO, before the switch can see or count it. */
    if (f->peer_state == PORT_CHECK_PEER_FOUND && f->iface_valid
        && f->peer.mtu > iface->mtu) {
        port_check_add__(out, PORT_CHECK_PEER_MTU, PORT_CHECK_ERROR,
                         "peer %s has MTU %d, above port %s's %d: frames "
                         "longer than %d that it sends (other than GSO "
                         "frames) are dropped by the kernel before the "
                         "switch sees them: run '%sip link set dev %s mtu "
                         "%d' or raise %s's MTU", sname, f->peer.mtu,
                         f->port, iface->mtu, iface->mtu, where, sname,
                         iface->mtu, iface->name);
    }

    /* An afxdp port receives only what its XDP program redirects. */
    if (f->iface_valid && f->provider == PORT_CHECK_AFXDP
        && iface->xdp == NETDEV_OFFLOAD_XDP_NONE) {
        port_check_add__(out, PORT_CHECK_AFXDP_NO_XDP, PORT_CHECK_ERROR,
                         "no XDP program is attached to %s, so afxdp port "
                         "%s receives nothing: remove the port and add it "
                         "back", iface->name, f->port);
    }

    /* A packet socket or a tap sees a frame only after XDP has passed
     * it; on a veth, native XDP also turns the peer's TSO off. */
    if (f->iface_valid && f->provider != PORT_CHECK_AFXDP
        && iface->xdp != NETDEV_OFFLOAD_XDP_NONE) {
        port_check_add__(out, PORT_CHECK_FOREIGN_XDP, PORT_CHECK_WARNING,
                         "an XDP program (id %u, %s mode) is attached to "
                         "%s: frames it drops or redirects never reach "
                         "port %s, and native XDP on a veth turns its "
                         "peer's TSO off: run 'ip link set dev %s xdp off' "
                         "unless it belongs there", iface->xdp_prog_id,
                         netdev_offload_xdp_name(iface->xdp), iface->name,
                         f->port, iface->name);
    }

    /* A tap hands the switch GSO frames only with TUN_F_TSO*, and
     * checksum-partial ones only with TUN_F_CSUM; otherwise the kernel
     * does that work first, frame by frame. */
    if (f->negotiated.tun
        && !(f->negotiated.tun_offloads & (TUN_F_TSO4 | TUN_F_TSO6))) {
        port_check_add__(out, PORT_CHECK_TAP_NO_TSO, PORT_CHECK_WARNING,
                         "tap port %s negotiated %s: the kernel %s before "
                         "handing TCP to the switch, one MTU frame at a "
                         "time (the log says what the tap refused)",
                         f->port,
                         f->negotiated.tun_offloads & TUN_F_CSUM
                         ? "checksum offload but no TSO"
                         : "no offloads",
                         f->negotiated.tun_offloads & TUN_F_CSUM
                         ? "segments it"
                         : "finishes every checksum and segments TCP");
    }

    /* A GSO frame written to a packet socket of an interface without TSO
     * is segmented by the kernel, on the PMD's core. */
    if (f->iface_valid && f->provider == PORT_CHECK_PACKET_SOCKET
        && f->negotiated.vnet_hdr
        && port_check_off__(iface, NETDEV_OFFLOAD_TSO)) {
        port_check_add__(out, PORT_CHECK_PORT_TSO_OFF, PORT_CHECK_WARNING,
                         "TSO is off on %s, so the GSO frames port %s "
                         "sends are segmented in software on the PMD's "
                         "core: run 'ethtool -K %s tso on'", iface->name,
                         f->port, iface->name);
    }

    /* What an afxdp port sends is never GSO: a veth peer with GRO off
     * runs its stack once per MTU frame. */
    if (f->peer_state == PORT_CHECK_PEER_FOUND
        && f->provider == PORT_CHECK_AFXDP
        && !strcmp(f->peer.kind, "veth")
        && port_check_off__(&f->peer, NETDEV_OFFLOAD_GRO)) {
        port_check_add__(out, PORT_CHECK_PEER_GRO_OFF, PORT_CHECK_WARNING,
                         "peer %s has GRO off, so the MTU-sized TCP frames "
                         "afxdp port %s sends it go up its stack one by "
                         "one: run '%sethtool -K %s gro on'", sname,
                         f->port, where, sname);
    }
}

size_t
port_check_diagnose(const struct port_check_facts *facts,
                    struct port_check_finding findings[PORT_CHECK_N_CODES])
{
    struct port_check_finding all[PORT_CHECK_N_CODES];
    struct port_check_out__ out = { all, 0 };
    size_t n = 0;

    port_check_rules__(facts, &out);
    for (int s = PORT_CHECK_ERROR; s >= PORT_CHECK_NOTE; s--) {
        for (size_t i = 0; i < out.n; i++) {
            if (all[i].severity == (enum port_check_severity) s) {
                findings[n++] = all[i];
            }
        }
    }
    return n;
}

/* The appctl command. */

/* Returns the provider kind of open port 'port', or false if it has no
 * kernel interface whose offloads matter (dummy). */
static bool
port_check_provider__(const struct dp_port *port,
                      enum port_check_provider *provider)
{
    const char *type = netdev_get_type(port->netdev);

    if (!strcmp(type, "tpacket") || !strcmp(type, "mmsg")) {
        *provider = PORT_CHECK_PACKET_SOCKET;
    } else if (!strcmp(type, "tap")) {
        *provider = PORT_CHECK_TAP;
    } else if (!strncmp(type, "afxdp", 5)) {
        *provider = PORT_CHECK_AFXDP;
    } else {
        return false;
    }
    return true;
}

/* True if 'port' is one port/check looks at: a port of its own with a
 * kernel interface (not a bond, patch or dummy port). */
static bool
port_check_wanted__(const struct dp_port *port)
{
    return !port->bond && !port->patch_peer && !dp_port_is_virtual(port);
}

/* Returns another afxdp port of 'port''s bridge, or NULL. */
static const char *
port_check_afxdp_neighbour__(const struct dp *dp,
                             const struct dp_port *port)
{
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        const struct dp_port *p = dp->ports[i];

        if (p && p != port && p->ofproto == port->ofproto && p->afxdp) {
            return p->name;
        }
    }
    return NULL;
}

static json_t *
port_check_info_json__(const struct netdev_offload_info *info)
{
    json_t *features = json_object();

    for (int i = 0; i < NETDEV_OFFLOAD_N_FEATURES; i++) {
        json_object_set_new(features, netdev_offload_feature_name(i),
                            json_string(netdev_offload_state_name(
                                            info->features[i])));
    }
    return json_pack("{s:s, s:i, s:s, s:i, s:o, s:s, s:I}",
                     "name", info->name, "ifindex", info->ifindex,
                     "kind", info->kind, "mtu", info->mtu,
                     "features", features,
                     "xdp", netdev_offload_xdp_name(info->xdp),
                     "xdp_prog_id", (json_int_t) info->xdp_prog_id);
}

static void
port_check_info_text__(struct ds *text, const struct netdev_offload_info *i)
{
    static const char *const short_names[] = {
        [NETDEV_OFFLOAD_TX_CSUM] = "tx-csum",
        [NETDEV_OFFLOAD_SG] = "sg",
        [NETDEV_OFFLOAD_TSO] = "tso",
        [NETDEV_OFFLOAD_GSO] = "gso",
        [NETDEV_OFFLOAD_GRO] = "gro",
        [NETDEV_OFFLOAD_RX_CSUM] = "rx-csum",
    };

    ds_put_format(text, "mtu %d", i->mtu);
    for (int f = 0; f < NETDEV_OFFLOAD_N_FEATURES; f++) {
        ds_put_format(text, ", %s %s", short_names[f],
                      netdev_offload_state_name(i->features[f]));
    }
    ds_put_format(text, ", xdp %s", netdev_offload_xdp_name(i->xdp));
    if (i->xdp_prog_id) {
        ds_put_format(text, " (prog %u)", i->xdp_prog_id);
    }
    ds_put_format(text, "\n");
}

/* Describes what 'provider' negotiated, into 'buf'. */
static void
port_check_negotiated__(const struct port_check_facts *f, char *buf,
                        size_t size)
{
    unsigned int off = f->negotiated.tun_offloads;

    if (f->negotiated.tun) {
        snprintf(buf, size, "vnet header, tap offloads %s%s%s",
                 off & TUN_F_CSUM ? "csum" : "none",
                 off & TUN_F_TSO4 ? ",tso4" : "",
                 off & TUN_F_TSO6 ? ",tso6" : "");
    } else if (f->negotiated.vnet_hdr) {
        snprintf(buf, size, "vnet header on the packet sockets");
    } else {
        snprintf(buf, size, "no offload metadata%s",
                 f->provider == PORT_CHECK_AFXDP ? " (AF_XDP)" : "");
    }
}

static json_t *
port_check_ns_json__(const struct netdev_offload_ns_ref *ns)
{
    switch (ns->type) {
    case NETDEV_OFFLOAD_NS_NAMED:
        return json_pack("{s:s, s:s, s:i}", "type", "named", "name",
                         ns->name, "nsid", ns->nsid);
    case NETDEV_OFFLOAD_NS_PID:
        return json_pack("{s:s, s:i, s:s, s:i}", "type", "pid", "pid",
                         ns->pid, "comm", ns->name, "nsid", ns->nsid);
    case NETDEV_OFFLOAD_NS_SAME:
    default:
        return json_pack("{s:s}", "type", "same");
    }
}

/* Gathers the facts of 'port', diagnoses them, and appends the result to
 * 'text' and 'ports'. */
static void
port_check_port__(const struct dp *dp, const struct dp_port *port,
                  struct ds *text, json_t *ports)
{
    struct port_check_finding findings[PORT_CHECK_N_CODES];
    const char *bridge = ofproto_name(port->ofproto);
    struct port_check_facts f;
    char negotiated[128];
    json_t *obj, *list;
    size_t n;

    memset(&f, 0, sizeof f);
    f.port = port->name;
    if (!port->netdev) {
        ds_put_format(text, "port %s (bridge %s, interface %s): %s, not "
                      "checked\n", port->name, bridge, port->ifname,
                      dp_port_state_to_string(port->state));
        json_array_append_new(ports, json_pack(
            "{s:s, s:s, s:s, s:s, s:b}", "port", port->name,
            "bridge", bridge, "interface", port->ifname,
            "state", dp_port_state_to_string(port->state), "ok", false));
        return;
    }
    if (!port_check_provider__(port, &f.provider)) {
        return;
    }
    netdev_get_offloads(port->netdev, &f.negotiated);
    if (f.provider != PORT_CHECK_AFXDP) {
        f.afxdp_neighbour = port_check_afxdp_neighbour__(dp, port);
    }
    f.iface_error = netdev_offload_info_get(port->ifname, &f.iface);
    f.iface_valid = !f.iface_error;
    if (!f.iface_valid) {
        snprintf(f.iface.name, sizeof f.iface.name, "%s", port->ifname);
    } else if (!strcmp(f.iface.kind, "veth")) {
        f.peer_error = netdev_offload_info_get_peer(&f.iface, &f.peer,
                                                    &f.peer_ns);
        f.peer_state = (!f.peer_error ? PORT_CHECK_PEER_FOUND
                        : f.peer_error == ENOENT ? PORT_CHECK_PEER_NONE
                        : PORT_CHECK_PEER_LOST);
    }
    n = port_check_diagnose(&f, findings);
    port_check_negotiated__(&f, negotiated, sizeof negotiated);

    ds_put_format(text, "port %s (bridge %s, interface %s, provider %s):\n"
                  "  negotiated: %s\n", port->name, bridge, port->ifname,
                  netdev_get_type(port->netdev), negotiated);
    obj = json_pack("{s:s, s:s, s:s, s:s, s:{s:b}}", "port", port->name,
                    "bridge", bridge, "interface", port->ifname,
                    "provider", netdev_get_type(port->netdev),
                    "negotiated", "vnet_hdr", f.negotiated.vnet_hdr);
    if (f.negotiated.tun) {
        json_t *tun = json_array();
        unsigned int off = f.negotiated.tun_offloads;

        if (off & TUN_F_CSUM) {
            json_array_append_new(tun, json_string("csum"));
        }
        if (off & TUN_F_TSO4) {
            json_array_append_new(tun, json_string("tso4"));
        }
        if (off & TUN_F_TSO6) {
            json_array_append_new(tun, json_string("tso6"));
        }
        json_object_set_new(json_object_get(obj, "negotiated"),
                            "tun_offloads", tun);
    }

    if (f.iface_valid) {
        ds_put_format(text, "  interface %s: ", f.iface.name);
        port_check_info_text__(text, &f.iface);
        json_object_set_new(obj, "interface_facts",
                            port_check_info_json__(&f.iface));
    } else {
        ds_put_format(text, "  interface %s: cannot be read (%s)\n",
                      port->ifname, strerror(f.iface_error));
        json_object_set_new(obj, "interface_facts", json_null());
        json_object_set_new(obj, "interface_error",
                            json_string(strerror(f.iface_error)));
    }

    if (f.peer_state == PORT_CHECK_PEER_FOUND) {
        json_t *peer = port_check_info_json__(&f.peer);

        ds_put_format(text, "  peer %s (", f.peer.name);
        if (f.peer_ns.type == NETDEV_OFFLOAD_NS_NAMED) {
            ds_put_format(text, "netns %s", f.peer_ns.name);
        } else if (f.peer_ns.type == NETDEV_OFFLOAD_NS_PID) {
            ds_put_format(text, "netns of pid %d %s", f.peer_ns.pid,
                          f.peer_ns.name);
        } else {
            ds_put_format(text, "same netns");
        }
        ds_put_format(text, ", ifindex %d): ", f.peer.ifindex);
        port_check_info_text__(text, &f.peer);
        json_object_set_new(peer, "namespace",
                            port_check_ns_json__(&f.peer_ns));
        json_object_set_new(obj, "peer", peer);
    } else {
        if (f.peer_state == PORT_CHECK_PEER_LOST) {
            ds_put_format(text, "  peer: not found (%s)\n",
                          f.peer_error == ESRCH
                          ? "its namespace is not named"
                          : strerror(f.peer_error));
            json_object_set_new(obj, "peer_error",
                                json_string(strerror(f.peer_error)));
        } else if (f.iface_valid && f.provider == PORT_CHECK_TAP) {
            ds_put_format(text, "  peer: none (the tap's interface is its "
                        "kernel side)\n");
        } else if (f.iface_valid) {
            ds_put_format(text, "  peer: none (%s is no veth)\n",
                          f.iface.name);
        }
        json_object_set_new(obj, "peer", json_null());
    }

    list = json_array();
    for (size_t i = 0; i < n; i++) {
        ds_put_format(text, "  %s: %s\n",
                      port_check_severity_name(findings[i].severity),
                      findings[i].text);
        json_array_append_new(list, json_pack(
            "{s:s, s:s, s:s}", "id", port_check_code_name(findings[i].code),
            "severity", port_check_severity_name(findings[i].severity),
            "text", findings[i].text));
    }
    if (!n) {
        ds_put_format(text, "  ok\n");
    }
    json_object_set_new(obj, "findings", list);
    json_object_set_new(obj, "ok", json_boolean(!n));
    json_array_append_new(ports, obj);
}

/* port/check [PORT] */
static void
port_check_unixctl__(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *dp_)
{
    struct dp *dp = dp_;
    struct ds text = DS_EMPTY_INITIALIZER;
    json_t *ports = json_array();
    struct ofproto *bridge;

    if (argc) {
        const struct dp_port *port = dp_port_lookup(dp, argv[0]);

        if (!port) {
            unixctl_command_reply_errorf(conn, "no port named %s", argv[0]);
            json_decref(ports);
            return;
        }
        if (!port_check_wanted__(port)) {
            unixctl_command_reply_errorf(conn, "port %s has no kernel "
                                         "interface of its own to check",
                                         argv[0]);
            json_decref(ports);
            return;
        }
        port_check_port__(dp, port, &text, ports);
    } else {
        DP_FOR_EACH_BRIDGE (bridge, dp) {
            for (int i = 0; i < DP_MAX_PORTS; i++) {
                const struct dp_port *port = dp->ports[i];

                if (port && port->ofproto == bridge
                    && port_check_wanted__(port)) {
                    port_check_port__(dp, port, &text, ports);
                }
            }
        }
    }
    unixctl_command_reply_text_json(conn, ds_cstr(&text),
                                    json_pack("{s:o}", "ports", ports));
    ds_destroy(&text);
}

void
port_check_register_commands(struct dp *dp)
{
    unixctl_command_register("port/check", "[PORT]", 0, 1,
                             port_check_unixctl__, dp);
}
