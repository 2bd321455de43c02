/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * A datapath's ports: opening one (creating its veth pair, making the
 * interface promiscuous), attaching it, replacing it by another netdev on
 * the same interface, removing it.  What PMDs read of a port never
 * changes once published; a port that gets another netdev is a new
 * struct (see dp.h).  Control thread only.
 *
 * A bond port opens each member interface as a port of its own, attaches
 * them after the bond and removes them before it; the bond module picks
 * the member for each packet, and the link state of the members (from
 * dp-link.c) enables and disables them.
 */
#include <autoconf.h>
#include "dp/dp.h"

#include <errno.h>
#include <linux/if_tun.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ofproto/bond.h"
#include "base/coverage.h"
#include "config/config.h"
#include "dp/dp-private.h"
#include "netdev/netdev.h"
#include "netdev/netdev-vxlan.h"
#include "netdev/netlink-link.h"
#include "dp/pmd.h"
#include "base/ds.h"
#include "base/lockfile.h"
#include "base/rcu.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(dp_port);

/* Taps' UDP segmentation offloads, which kernel headers before 6.2 do not
 * name. */
#ifdef TUN_F_USO4
#define DP_TUN_F_USO4 TUN_F_USO4
#define DP_TUN_F_USO6 TUN_F_USO6
#else
#define DP_TUN_F_USO4 0x20
#define DP_TUN_F_USO6 0x40
#endif

COVERAGE_DEFINE(port_open_no_fds);

/* The provider "use-tpacket-v3" selects in this build. */
static const char *
dp_port_type(const struct config_other *other)
{
    return other->use_tpacket_v3 && netdev_type_exists("tpacket")
           ? "tpacket" : "mmsg";
}

struct dp_port *
dp_port_lookup(const struct dp *dp, const char *name)
{
    /* Bond members are named after their interfaces, which
     * dp_check_config() keeps apart from the names of ports. */
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        if (dp->ports[i] && !strcmp(dp->ports[i]->name, name)) {
            return dp->ports[i];
        }
    }
    return NULL;
}

struct dp_port *
dp_bond_lookup(const struct dp *dp, const char *name)
{
    struct dp_port *port = dp_port_lookup(dp, name);

    return port && port->bond ? port : NULL;
}

const char *
dp_port_state_to_string(enum dp_port_state state)
{
    switch (state) {
    case DP_PORT_UP:
        return "up";
    case DP_PORT_DOWN:
        return "down";
    case DP_PORT_MISSING:
        return "missing";
    }
    return "?";
}

/* A port with the settings of 'tmpl' (or, if NULL, empty) and no netdev:
 * state "missing", not attached. */
struct dp_port *
dp_port_new(const struct dp_port *tmpl)
{
    struct dp_port *port = xzalloc(sizeof *port);

    port->state = DP_PORT_MISSING;
    port->bond_port_no = DP_PORT_NONE;
    if (tmpl) {
        port->port_no = tmpl->port_no;
        port->name = xstrdup(tmpl->name);
        port->ifname = xstrdup(tmpl->ifname);
        port->tap = tmpl->tap;
        port->afxdp = tmpl->afxdp;
        port->dummy = tmpl->dummy;
        port->vxlan = tmpl->vxlan ? xmemdup(tmpl->vxlan, sizeof *tmpl->vxlan)
                                  : NULL;
        port->internal = tmpl->internal;
        port->patch_peer = (tmpl->patch_peer ? xstrdup(tmpl->patch_peer)
                            : NULL);
        port->ofproto = tmpl->ofproto;
        port->pcap = tmpl->pcap ? xstrdup(tmpl->pcap) : NULL;
        port->xdp_generic = tmpl->xdp_generic;
        port->n_rxq = tmpl->n_rxq;
        port->mac_limit = tmpl->mac_limit;
        port->create = tmpl->create;
        port->created = tmpl->created;
        port->made_promisc = tmpl->made_promisc;
        port->n_down = tmpl->n_down;
        port->vlan = tmpl->vlan;
        port->stats_base = tmpl->stats_base;
        port->bond_port_no = tmpl->bond_port_no;
        port->lock = lockfile_ref(tmpl->lock);
    }
    return port;
}

/* The provider for 'port' under 'other': taps, afxdp and dummy ports have
 * their own whatever "use-tpacket-v3" says. */
const char *
dp_port_provider(const struct dp_port *port, const struct config_other *other)
{
    if (port->afxdp) {
        return port->xdp_generic ? "afxdp-generic" : "afxdp";
    }
    if (port->dummy) {
        return "dummy";
    }
    if (port->vxlan) {
        return "vxlan";
    }
    return port->tap ? "tap" : dp_port_type(other);
}

/* Whether the kernel says 'ifname' is up (admin and carrier); a link we
 * cannot ask about counts as up, so that it is polled. */
static bool
dp_link_is_up(const char *ifname)
{
    struct netlink_link_info info;

    return (netlink_link_get(ifname, &info)
            || (info.admin_up && info.oper_up));
}

/* A switch port must see frames for every MAC: a physical NIC filters
 * the others out unless it is promiscuous (a veth passes them anyway). */
static void
dp_port_set_promisc(struct dp_port *port)
{
    struct netlink_link_info info;

    if (!netlink_link_get(port->ifname, &info) && !info.promisc
        && !netlink_link_set_promisc(port->ifname, true)) {
        port->made_promisc = true;
    }
}


/* The GSO frames 'netdev' takes whole: every kind on a packet socket (the
 * kernel segments what its device cannot), what a tap negotiated, none
 * where frames carry no offload metadata (afxdp, dummy). */
static uint8_t
dp_port_tx_gso__(const struct netdev *netdev)
{
    struct netdev_offloads off;
    uint8_t gso = 0;

    netdev_get_offloads(netdev, &off);
    if (!off.vnet_hdr) {
        return off.tcp_gso ? DP_PORT_GSO_TCP : 0;
    }
    if (!off.tun) {
        return DP_PORT_GSO_ALL;
    }
    if (off.tun_offloads & (TUN_F_TSO4 | TUN_F_TSO6)) {
        gso |= DP_PORT_GSO_TCP;
    }
    if (off.tun_offloads & (DP_TUN_F_USO4 | DP_TUN_F_USO6)) {
        gso |= DP_PORT_GSO_UDP;
    }
    return gso;
}

/* The largest frame 'netdev' sends, where it has a limit of its own. */
static uint32_t
dp_port_tx_max_frame__(const struct netdev *netdev)
{
    struct netdev_offloads off;

    netdev_get_offloads(netdev, &off);
    return off.max_frame;
}

/* Opens a netdev of provider 'type' for 'port' (not published yet) and
 * its rx queues.  'replaces' is the port of the dp that has the interface
 * open and goes once this one is attached (NULL: none): the new netdev
 * joins its receive steering, for dp_port_take_over().  Returns 0, or an
 * errno with a message in '*errp'. */
int
dp_port_open_netdev(struct dp *dp, struct dp_port *port, const char *type,
                    bool create, const struct dp_port *replaces, char **errp)
{
    struct netdev_options opts = { .n_rxq = port->n_rxq,
                                   .vxlan = port->vxlan,
                                   .n_txq = dp->n_txq,
                                   .max_txq = dp->max_txq,
                                   .create = create,
                                   .replaces = replaces != NULL,
                                   .pcap = port->pcap,
                                   .predecessor = (replaces
                                                   ? replaces->netdev
                                                   : NULL) };
    char *error = NULL;
    int err;

    err = netdev_open(port->ifname, type, &opts, &port->netdev, &error);
    if (err == EMFILE || err == ENFILE) {
        struct rlimit rl;
        char *limit;

        /* netdev_open() closed what it had opened. */
        COVERAGE_INC(port_open_no_fds);
        if (err == ENFILE) {
            limit = xstrdup("the system's file table is full");
        } else if (!getrlimit(RLIMIT_NOFILE, &rl)) {
            limit = xasprintf("pmdswitchd may open %llu (RLIMIT_NOFILE)",
                              (unsigned long long) rl.rlim_cur);
        } else {
            limit = xstrdup("RLIMIT_NOFILE reached");
        }
        *errp = xasprintf("port %s: out of file descriptors (%s): %s",
                          port->name, limit, error ? error : strerror(err));
        free(limit);
        free(error);
        return err;
    } else if (err) {
        *errp = xasprintf("port %s: %s", port->name,
                          error ? error : strerror(err));
        free(error);
        return err;
    }
    port->ifindex = netdev_get_ifindex(port->netdev);
    port->tx_gso = dp_port_tx_gso__(port->netdev);
    port->tx_max_frame = dp_port_tx_max_frame__(port->netdev);
    port->tunnel = port->vxlan != NULL;
    port->n_rxqs = netdev_n_rxq(port->netdev);
    port->rxqs = xcalloc(port->n_rxqs, sizeof *port->rxqs);
    for (int q = 0; q < port->n_rxqs; q++) {
        port->rxqs[q] = xzalloc(sizeof *port->rxqs[q]);
        port->rxqs[q]->rxq = netdev_get_rxq(port->netdev, q);
        port->rxqs[q]->qid = q;
        port->rxqs[q]->port_no = port->port_no;
        port->rxqs[q]->tunnel = port->tunnel;
    }
    if (!port->tap && !dp_port_is_virtual(port)) {
        dp_port_set_promisc(port);
    }
    /* A tap is up while its descriptors work (see dp-link.c), a dummy
     * or vxlan port always. */
    port->state = (port->tap || dp_port_is_virtual(port)
                   || dp_link_is_up(port->ifname)
                   ? DP_PORT_UP : DP_PORT_DOWN);
    return 0;
}

/* True if 'name' and 'peer' are the two ends of a veth pair, as
 * dp_port_create_veth() makes them. */
static bool
dp_port_is_veth_pair(const char *name, const char *peer)
{
    struct netlink_link_info a, b;

    return (!netlink_link_get(name, &a) && !strcmp(a.kind, "veth")
            && !netlink_link_get(peer, &b) && !strcmp(b.kind, "veth"));
}

/* Creates the veth pair of system port 'cp' with "create", unless its
 * interface exists.  Sets '*created' if the port owns the pair: it made
 * it, or the pair was there already, tagged as made by an earlier run of
 * this instance that crashed (see dp_sweep_interfaces()).  With
 * 'replaces', a port of this daemon that goes once this one is attached
 * owns the pair, and hands it over then (dp_port_hand_over()). */
static char *
dp_port_create_veth(const struct config_port *cp, bool replaces,
                    bool *created)
{
    char *peer = config_port_peer(cp);
    char *error = NULL;
    int err;

    *created = false;
    err = netlink_link_create_veth(cp->interface, peer);
    if (!err) {
        *created = true;
        dp_iface_tag(cp->interface);
        netlink_link_set_up(peer, true);
        VLOG_INFO("port %s: created veth pair %s <-> %s", cp->name,
                  cp->interface, peer);
    } else if (err == EEXIST) {
        *created = !replaces && dp_port_is_veth_pair(cp->interface, peer)
                   && dp_iface_is_tagged_ours(cp->interface);
        if (*created) {
            dp_iface_tag(cp->interface);
            VLOG_INFO("port %s: took over the existing veth pair %s <-> "
                      "%s", cp->name, cp->interface, peer);
        }
    } else {
        char *why = netlink_link_strerror(cp->interface, err);

        error = xasprintf("port %s: cannot create veth pair %s <-> %s: %s",
                          cp->name, cp->interface, peer, why);
        free(why);
    }
    free(peer);
    return error;
}

/* Opens bond 'cp' and each of its members (not attached). */
static struct dp_port *
dp_port_open_bond(struct dp *dp, const struct config_port *cp,
                  const struct config_other *other, char **errp)
{
    struct dp_port *port = dp_port_new(NULL);
    enum bond_mode mode = BOND_MODE_ACTIVE_BACKUP;
    long long now = time_msec();

    port->name = xstrdup(cp->name);
    port->ifname = xstrdup("");
    port->state = DP_PORT_UP;
    ofproto_port_settings_init(&port->vlan,
                               config_vlan_mode_to_string(cp->vlan_mode),
                               cp->tag, cp->trunks, cp->n_trunks);
    if (cp->bond_mode) {
        bond_mode_from_string(cp->bond_mode, &mode);
    }
    port->bond = bond_create(cp->name, mode, now);
    bond_set_rebalance_interval(port->bond,
                                cp->bond_rebalance_interval >= 0
                                ? cp->bond_rebalance_interval
                                : BOND_REBALANCE_INTERVAL_DEFAULT, now);
    port->members = xcalloc(cp->n_members + 1, sizeof *port->members);
    for (size_t i = 0; i < cp->n_members; i++) {
        struct config_port member = {
            .name = cp->members[i],
            .interface = cp->members[i],
            .type = CONFIG_PORT_SYSTEM,
            .vlan_mode = CONFIG_VLAN_TRUNK,
            .n_rxq = cp->n_rxq,
        };
        struct dp_port *m = dp_port_open(dp, &member, other, errp);

        if (!m) {
            char *why = *errp;

            *errp = xasprintf("bond %s: %s", cp->name, why);
            free(why);
            dp_port_destroy(port);
            return NULL;
        }
        port->members[port->n_members++] = m;
    }
    return port;
}

/* Opens patch port 'cp': nothing to open, and down until its peer is
 * attached too (dp_port_attach()). */
static struct dp_port *
dp_port_open_patch(const struct config_port *cp)
{
    struct dp_port *port = dp_port_new(NULL);

    port->name = xstrdup(cp->name);
    port->ifname = xstrdup("");
    port->patch_peer = xstrdup(cp->peer);
    port->state = DP_PORT_DOWN;
    ofproto_port_settings_init(&port->vlan,
                               config_vlan_mode_to_string(cp->vlan_mode),
                               cp->tag, cp->trunks, cp->n_trunks);
    return port;
}

static struct dp_port *
dp_port_open__(struct dp *dp, const struct config_port *cp,
               const struct config_other *other, char **errp)
{
    const struct dp_port *replaces = NULL;
    struct dp_port *port;

    if (cp->type == CONFIG_PORT_BOND) {
        return dp_port_open_bond(dp, cp, other, errp);
    }
    if (cp->type == CONFIG_PORT_PATCH) {
        return dp_port_open_patch(cp);
    }
    port = dp_port_new(NULL);
    port->name = xstrdup(cp->name);
    port->ifname = xstrdup(cp->interface);
    /* An internal port is a tap that the switch always creates, and that
     * goes with the port. */
    port->internal = cp->type == CONFIG_PORT_INTERNAL;
    port->tap = cp->type == CONFIG_PORT_TAP || port->internal;
    port->afxdp = cp->type == CONFIG_PORT_AFXDP;
    port->dummy = cp->type == CONFIG_PORT_DUMMY;
    port->vxlan = (cp->type == CONFIG_PORT_VXLAN
                   ? xmemdup(cp->vxlan, sizeof *cp->vxlan) : NULL);
    port->pcap = cp->pcap ? xstrdup(cp->pcap) : NULL;
    port->xdp_generic = (port->afxdp && cp->xdp_mode
                         && !strcmp(cp->xdp_mode, "generic"));
    port->n_rxq = cp->n_rxq ? cp->n_rxq : 1;
    port->create = cp->create || port->internal;
    /* dp_check_config() has made sure that the settings are valid. */
    ofproto_port_settings_init(&port->vlan,
                               config_vlan_mode_to_string(cp->vlan_mode),
                               cp->tag, cp->trunks, cp->n_trunks);
    if (!dp_port_is_virtual(port)) {
        /* Before anything is done to the interface. */
        port->lock = dp_iface_lock(cp->name, cp->interface, errp);
        if (!port->lock) {
            dp_port_close(port);
            return NULL;
        }
    }
    /* A valid config names each interface once, so a port that has it
     * open now is one the new config removes or changes. */
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        const struct dp_port *p = dp->ports[i];

        /* A vxlan port has no interface: the one it replaces is the
         * vxlan port of the same name, whose socket it shares until that
         * one closes. */
        if (p && (port->vxlan
                  ? p->vxlan && !strcmp(p->name, cp->name)
                  : !strcmp(p->ifname, cp->interface))) {
            replaces = p;
        }
    }
    if (cp->create && !port->tap) {
        *errp = dp_port_create_veth(cp, replaces != NULL, &port->created);
        if (*errp) {
            dp_port_close(port);
            return NULL;
        }
    }
    if (port->created) {
        netlink_link_set_up(cp->interface, true);
    }
    if (dp_port_open_netdev(dp, port, dp_port_provider(port, other),
                            port->create, replaces, errp)) {
        char *problems = dp_port_discard(port);

        if (problems) {
            char *error = *errp;

            *errp = xasprintf("%s (and undoing it failed: %s)", error,
                              problems);
            free(error);
            free(problems);
        }
        return NULL;
    }
    return port;
}

struct dp_port *
dp_port_open(struct dp *dp, const struct config_port *cp,
             const struct config_other *other, char **errp)
{
    struct dp_port *port = dp_port_open__(dp, cp, other, errp);

    if (port) {
        port->mac_limit = cp->mac_limit;
    }
    return port;
}

void
dp_port_close(struct dp_port *port)
{
    if (port) {
        for (size_t i = 0; i < port->n_members; i++) {
            dp_port_close(port->members[i]);
        }
        free(port->members);
        bond_destroy(port->bond);
        netdev_close(port->netdev);
        for (int q = 0; q < port->n_rxqs; q++) {
            free(port->rxqs[q]);
        }
        free(port->rxqs);
        free(port->pcap);
        free(port->vxlan);
        free(port->patch_peer);
        free(port->ifname);
        free(port->name);
        lockfile_unlock(port->lock);
        free(port);
    }
}

static void
dp_port_set_number(struct dp_port *port, uint16_t port_no)
{
    port->port_no = port_no;
    for (int q = 0; q < port->n_rxqs; q++) {
        port->rxqs[q]->port_no = port_no;
    }
}

void
dp_port_link_changed(struct dp_port *port)
{
    bool up = port->state == DP_PORT_UP;

    if (port->bond || port->patch_peer) {
        return;                 /* No link of their own. */
    }
    __atomic_store_n(&port->tx_down, !up, __ATOMIC_RELAXED);
    if (port->ofproto && port->bond_port_no == DP_PORT_NONE) {
        /* A member's bond disables it instead. */
        ofproto_port_set_link(port->ofproto, port->port_no, up);
    }
}

/* Gives 'port''s rx queues to PMDs if it is up, else to none. */
void
dp_port_poll(struct dp *dp, struct dp_port *port)
{
    if (port->state == DP_PORT_UP) {
        dp_place_port_rxqs(dp, port);
    } else {
        struct pmd **none = xcalloc(port->n_rxqs + 1, sizeof *none);

        dp_move_rxqs(dp, port->rxqs, port->n_rxqs, none);
        free(none);
    }
}

/* Publishes the members of bond 'port', just attached, and adds them to
 * its bond.  A member that finds no free port number is left out. */
static void
dp_port_attach_members(struct dp *dp, struct dp_port *port)
{
    struct dp_port **members = port->members;
    size_t n = port->n_members;

    port->members = NULL;
    port->n_members = 0;
    ofproto_port_set_bond(port->ofproto, port->port_no,
                          bond_get_mode(port->bond), BOND_PORT_NONE);
    for (size_t i = 0; i < n; i++) {
        struct dp_port *m = members[i];
        bool up = m->state == DP_PORT_UP;
        struct netlink_link_info info;
        char *name = xstrdup(m->name);

        m->bond_port_no = port->port_no;
        if (dp_port_attach(dp, m, port->ofproto)) {
            VLOG_ERR("bond %s: member %s left out", port->name, name);
        } else {
            bond_member_add(port->bond, m->port_no, m->name, up);
            if (!netlink_link_get(m->ifname, &info)) {
                bond_member_set_mac(port->bond, m->port_no, info.mac);
            }
        }
        free(name);
    }
    free(members);
    dp_bond_sync(dp, port);
}

/* The attached patch port that patch port 'port' names as its peer, if
 * that one names 'port' back, else NULL. */
static struct dp_port *
dp_patch_peer(const struct dp *dp, const struct dp_port *port)
{
    struct dp_port *peer = dp_port_lookup(dp, port->patch_peer);

    return (peer && peer->patch_peer && !strcmp(peer->patch_peer, port->name)
            && peer->ofproto != port->ofproto ? peer : NULL);
}

/* Joins patch port 'port', just attached, to its peer if that one is
 * attached too; else it waits, down, for the peer. */
static void
dp_patch_attach(struct dp *dp, struct dp_port *port)
{
    struct dp_port *peer = dp_patch_peer(dp, port);

    ofproto_port_set_patch(port->ofproto, port->port_no, NULL, 0);
    if (!peer) {
        VLOG_INFO("port %s: patch, port number %d, waiting for its peer "
                  "%s", port->name, port->port_no, port->patch_peer);
        return;
    }
    ofproto_port_set_patch(port->ofproto, port->port_no, peer->ofproto,
                           peer->port_no);
    ofproto_port_set_patch(peer->ofproto, peer->port_no, port->ofproto,
                           port->port_no);
    port->state = peer->state = DP_PORT_UP;
    VLOG_INFO("port %s: patch, port number %d, joined to %s on bridge %s",
              port->name, port->port_no, peer->name,
              ofproto_name(peer->ofproto));
}

int
dp_port_attach(struct dp *dp, struct dp_port *port, struct ofproto *bridge)
{
    int port_no = -1;

    for (int i = 0; i < DP_MAX_PORTS && port_no < 0; i++) {
        int slot = (dp->next_port_no + i) % DP_MAX_PORTS;

        if (!dp->ports[slot]) {
            port_no = slot;
        }
    }
    if (port_no < 0) {
        VLOG_ERR("port %s: the port table is full", port->name);
        dp_port_destroy(port);
        return ENOSPC;
    }
    dp->next_port_no = (port_no + 1) % DP_MAX_PORTS;
    dp_port_set_number(port, port_no);
    port->ofproto = bridge;
    /* Before anything can be learned on it: the number may be reused. */
    mac_learning_set_port_limit(ofproto_mac_learning(bridge), port_no,
                                port->mac_limit);
    rcu_publish(dp->ports[port_no], port);
    dp->n_ports++;
    if (port->bond) {
        ofproto_port_add(bridge, port_no, port->name, &port->vlan);
        VLOG_INFO("port %s: bond, %s, port number %d", port->name,
                  bond_mode_to_string(bond_get_mode(port->bond)), port_no);
        dp_port_attach_members(dp, port);
        return 0;
    }
    if (port->bond_port_no != DP_PORT_NONE) {
        ofproto_member_add(bridge, port_no, port->name, port->bond_port_no);
    } else {
        ofproto_port_add(bridge, port_no, port->name, &port->vlan);
    }
    if (port->patch_peer) {
        dp_patch_attach(dp, port);
        return 0;
    }
    dp_port_link_changed(port);
    dp_port_poll(dp, port);
    VLOG_INFO("port %s: interface %s, port number %d, %s provider, link "
              "%s%s%s", port->name, port->ifname, port_no,
              netdev_get_type(port->netdev),
              dp_port_state_to_string(port->state),
              port->bond_port_no != DP_PORT_NONE ? ", member of bond " : "",
              port->bond_port_no != DP_PORT_NONE
              ? dp->ports[port->bond_port_no]->name : "");
    return 0;
}

void
dp_port_remove(struct dp *dp, struct dp_port *port)
{
    struct pmd **none;

    if (port->bond) {
        /* Members first: no flow or bucket may name a freed number. */
        for (int i = 0; i < DP_MAX_PORTS; i++) {
            struct dp_port *m = dp->ports[i];

            if (m && m->bond_port_no == port->port_no) {
                bond_member_remove(port->bond, m->port_no);
                dp_port_remove(dp, m);
            }
        }
    }
    if (port->patch_peer) {
        struct dp_port *peer = dp_patch_peer(dp, port);

        if (peer) {
            /* The peer waits, down, for a new peer; no translation leads
             * from it into this bridge once this returns. */
            ofproto_port_set_patch(peer->ofproto, peer->port_no, NULL, 0);
            peer->state = DP_PORT_DOWN;
            peer->n_down++;
        }
    }
    none = xcalloc(port->n_rxqs + 1, sizeof *none);
    dp_move_rxqs(dp, port->rxqs, port->n_rxqs, none);
    free(none);
    rcu_publish(dp->ports[port->port_no], NULL);
    dp->n_ports--;
    ofproto_port_del(port->ofproto, port->port_no);
    /* No flow outputs to the port any more once this returns. */
    dp_wait_revalidated(dp);
    if (port->patch_peer) {
        /* No flow crosses it any more: its number starts from zero for
         * whichever port gets it next. */
        for (int i = 0; i < dp->n_pmds; i++) {
            struct pmd_patch_stats *ps = &dp->pmds[i]->patch[port->port_no];

            __atomic_store_n(&ps->packets, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&ps->bytes, 0, __ATOMIC_RELAXED);
        }
    }
    if (port->successor) {
        /* Nothing counts on it any more; the providers first read the
         * kernel's last drop counts. */
        netdev_run();
        dp_port_get_stats(dp, port, &port->successor->stats_base);
    }
    /* Likewise: no PMD outputs to it any more. */
    for (int i = 0; i < dp->n_pmds; i++) {
        static const struct pmd_tx_offload_stats zero;

        __atomic_store_n(&dp->pmds[i]->tx_down[port->port_no], 0,
                         __ATOMIC_RELAXED);
        dp->pmds[i]->tx_offload[port->port_no] = zero;
    }
    VLOG_INFO("port %s: removed", port->name);
    dp_port_destroy(port);
}

/* How long dp_port_take_over() waits for the PMDs to read the old rx
 * queues dry.  They poll continuously (pmd-sleep-max bounds a nap), so
 * this is only reached if a PMD is stuck. */
#define DP_PORT_DRAIN_TIMEOUT_MS 2000

void
dp_port_take_over(struct dp_port *old, struct dp_port *new)
{
    long long deadline;
    bool polled = false;
    int error;

    if (!old->netdev || !new->netdev) {
        return;
    }
    error = netdev_take_over(new->netdev, old->netdev);
    if (error) {
        VLOG_WARN("port %s: cannot hand the receive steering over (%s); "
                  "frames queued on the old sockets are lost",
                  old->name, strerror(error));
        return;
    }
    for (int q = 0; q < old->n_rxqs; q++) {
        polled |= old->rxqs[q]->pmd != NULL;
    }
    if (!polled) {
        /* Down: the kernel queued nothing since the link went. */
        return;
    }
    /* Every frame the old sockets hold is there by now and nothing joins
     * it: once each queue was found empty, the PMDs forwarded them all. */
    deadline = time_msec() + DP_PORT_DRAIN_TIMEOUT_MS;
    while (!netdev_drained(old->netdev)) {
        if (time_msec() > deadline) {
            VLOG_WARN("port %s: rx queues not drained after %d ms; frames "
                      "still queued on them are lost", old->name,
                      DP_PORT_DRAIN_TIMEOUT_MS);
            return;
        }
        struct timespec nap = { .tv_nsec = 100 * 1000 };

        nanosleep(&nap, NULL);
    }
}

/* A port reopened under its own name (a reload that changed its options)
 * counts on from where 'from' stopped, so that what the old sockets
 * received and dropped stays in its counters: 'to' inherits them when
 * 'from' is removed. */
static void
dp_port_carry_stats(struct dp_port *from, struct dp_port *to)
{
    if (!strcmp(from->name, to->name)) {
        from->successor = to;
    }
}

void
dp_port_hand_over(struct dp *dp, struct dp_port *from, struct dp_port *to)
{
    to->created |= from->created;
    to->made_promisc |= from->made_promisc;
    from->created = false;
    from->made_promisc = false;
    if (from->bond) {
        /* The new members are not attached yet: they are in 'to'. */
        for (int i = 0; i < DP_MAX_PORTS; i++) {
            struct dp_port *m = dp->ports[i];

            if (!m || m->bond_port_no != from->port_no) {
                continue;
            }
            for (size_t j = 0; j < to->n_members; j++) {
                if (!strcmp(to->members[j]->ifname, m->ifname)) {
                    dp_port_take_over(m, to->members[j]);
                    dp_port_carry_stats(m, to->members[j]);
                }
            }
        }
    } else {
        dp_port_take_over(from, to);
    }
    dp_port_carry_stats(from, to);
}

/* Undoes what opening 'port' did to the system, appending to 'problems'
 * what could not be undone, and closes it. */
static void
dp_port_discard__(struct dp_port *port, struct ds *problems)
{
    int err;

    for (size_t i = 0; i < port->n_members; i++) {
        dp_port_discard__(port->members[i], problems);
    }
    port->n_members = 0;
    if (port->made_promisc && port->netdev) {
        err = netlink_link_set_promisc(port->ifname, false);
        if (err && err != ENODEV) {
            ds_put_format(problems, "%spromiscuous mode of %s left on: %s",
                          problems->length ? "; " : "", port->ifname,
                          strerror(err));
        }
    }
    if (port->created) {
        /* Like a tap, a veth pair made for the switch goes with it. */
        netdev_close(port->netdev);
        port->netdev = NULL;
        err = netlink_link_delete(port->ifname);
        if (!err) {
            VLOG_INFO("port %s: deleted the veth pair it created",
                      port->name);
        } else if (err != ENODEV) {
            ds_put_format(problems, "%sveth pair %s not deleted: %s",
                          problems->length ? "; " : "", port->ifname,
                          strerror(err));
        }
    }
    dp_port_close(port);
}

char *
dp_port_discard(struct dp_port *port)
{
    struct ds problems = DS_EMPTY_INITIALIZER;

    dp_port_discard__(port, &problems);
    return problems.length ? ds_steal_cstr(&problems) : NULL;
}

void
dp_port_destroy(struct dp_port *port)
{
    char *problems = dp_port_discard(port);

    if (problems) {
        VLOG_WARN("%s", problems);
        free(problems);
    }
}

void
dp_port_get_stats(const struct dp *dp, const struct dp_port *port,
                  struct netdev_stats *s)
{
    const uint64_t *base = (const uint64_t *) &port->stats_base;
    uint64_t *sum = (uint64_t *) s;

    BUILD_ASSERT(sizeof *s % sizeof(uint64_t) == 0);
    memset(s, 0, sizeof *s);
    if (port->netdev) {
        netdev_get_stats(port->netdev, s);
    }
    for (int i = 0; dp && i < dp->n_pmds; i++) {
        const struct pmd_tx_offload_stats *o
            = &dp->pmds[i]->tx_offload[port->port_no];

        s->tx_port_down += __atomic_load_n(&dp->pmds[i]->tx_down[
                                               port->port_no],
                                           __ATOMIC_RELAXED);
        s->tx_gro_segments += __atomic_load_n(&o->gro_segments,
                                              __ATOMIC_RELAXED);
        s->tx_gro_frames += __atomic_load_n(&o->gro_frames,
                                            __ATOMIC_RELAXED);
        s->tx_gso_frames += __atomic_load_n(&o->gso_frames,
                                            __ATOMIC_RELAXED);
        s->tx_gso_segments += __atomic_load_n(&o->gso_segments,
                                              __ATOMIC_RELAXED);
    }
    if (port->patch_peer && dp) {
        const struct dp_port *peer = dp_patch_peer(dp, port);

        /* What crossed from it was sent on it, what crossed from its peer
         * was received on it. */
        for (int i = 0; i < dp->n_pmds; i++) {
            const struct pmd_patch_stats *ps = dp->pmds[i]->patch;

            s->tx_packets += __atomic_load_n(&ps[port->port_no].packets,
                                             __ATOMIC_RELAXED);
            s->tx_bytes += __atomic_load_n(&ps[port->port_no].bytes,
                                           __ATOMIC_RELAXED);
            if (peer) {
                s->rx_packets += __atomic_load_n(&ps[peer->port_no].packets,
                                                 __ATOMIC_RELAXED);
                s->rx_bytes += __atomic_load_n(&ps[peer->port_no].bytes,
                                               __ATOMIC_RELAXED);
            }
        }
    }
    for (size_t i = 0; i < sizeof *s / sizeof(uint64_t); i++) {
        sum[i] += base[i];
    }
}

/* Bonds. */

void
dp_bond_sync(struct dp *dp OVS_UNUSED, struct dp_port *port)
{
    ofproto_port_set_bond(port->ofproto, port->port_no,
                          bond_get_mode(port->bond),
                          bond_get_active_member(port->bond));
}

void
dp_bond_member_set_enabled(struct dp *dp, const struct dp_port *member,
                           bool up)
{
    struct dp_port *port;

    if (member->bond_port_no == DP_PORT_NONE) {
        return;
    }
    port = dp->ports[member->bond_port_no];
    if (port && port->bond) {
        /* bond.c logs the change. */
        bond_member_set_enabled(port->bond, member->port_no, up);
        dp_bond_sync(dp, port);
    }
}

void
dp_bond_run(struct dp *dp, long long now)
{
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        if (port && port->bond && now >= bond_next_rebalance(port->bond)) {
            int n = bond_rebalance(port->bond, now);

            if (n) {
                VLOG_INFO("bond %s: rebalanced, %d hash buckets moved",
                          port->name, n);
            }
        }
    }
}

/* Publishes 'new' (from dp_port_new() or with a netdev of its own, not
 * attached) in place of 'old', which is closed: same number, counters
 * carried over.  If 'new' is up, its rx queues go to the PMDs that polled
 * the old ones with the same id, or are placed afresh. */
void
dp_port_replace(struct dp *dp, struct dp_port *old, struct dp_port *new)
{
    int n = old->n_rxqs + new->n_rxqs;
    struct pmd_rxq **rxqs = xcalloc(n + 1, sizeof *rxqs);
    struct pmd **next = xcalloc(n + 1, sizeof *next);
    uint64_t load[DP_MAX_PMDS] = { 0 };
    int n_queues[DP_MAX_PMDS] = { 0 };

    /* 'new' was opened with 'old' as the port it replaces, or 'old' has
     * no netdev: the old sockets hand every frame over and are read dry
     * before 'new' is polled, so nothing is lost, read twice or
     * reordered. */
    dp_port_take_over(old, new);
    dp_port_set_number(new, old->port_no);
    for (int q = 0; q < old->n_rxqs; q++) {
        rxqs[q] = old->rxqs[q];
    }
    if (new->state == DP_PORT_UP) {
        dp_assign(dp, new->rxqs, new->n_rxqs, next + old->n_rxqs, load,
                  n_queues);
    }
    for (int q = 0; q < new->n_rxqs; q++) {
        rxqs[old->n_rxqs + q] = new->rxqs[q];
        if (new->state == DP_PORT_UP && q < old->n_rxqs
            && old->rxqs[q]->pmd) {
            next[old->n_rxqs + q] = old->rxqs[q]->pmd;
        }
    }
    dp_move_rxqs(dp, rxqs, n, next);
    rcu_publish(dp->ports[old->port_no], new);
    dp_port_link_changed(new);
    rcu_synchronize();
    /* The PMDs' counters go on under the same number: not in the base. */
    dp_port_get_stats(NULL, old, &new->stats_base);
    dp_port_close(old);
    free(next);
    free(rxqs);
}

