/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Ports follow their kernel interfaces.  The link monitor's events (and,
 * as a safety net, a periodic check of every port that is not plainly
 * well) move a port between three states:
 *
 *   up       polled by the PMDs;
 *   down     the interface is down (admin or carrier): its rx queues are
 *            not polled, its sockets stay open, and coming up resumes
 *            polling without reopening anything;
 *   missing  the interface was deleted or renamed away: its sockets are
 *            closed and output to it is counted as dropped on the PMD;
 *            when an interface of that name appears again the port is
 *            reopened on new sockets, with its number, counters and
 *            settings.
 *
 * A tap port is its file descriptors, wherever its interface lives (a
 * tap is usually moved into a VM's or container's namespace, which looks
 * like a deletion from here), so link events do not apply to it: it goes
 * missing only when its descriptors fail, and comes back when its
 * interface exists again in this namespace, or at once if "create" lets
 * pmdswitchd make it.
 *
 * A dummy port has no interface: it is always up.
 *
 * Each change is logged once, and the MACs learned on a port that stops
 * forwarding are forgotten, so its stations are flooded to until they are
 * heard again.
 *
 * A bond member's bond hears of every change first, before the rx queues
 * move (which waits for RCU grace periods): its buckets move to the other
 * members as soon as the event is read.  A bond port itself has no
 * interface and no link state.  Control thread only.
 */
#include <autoconf.h>
#include "dp/dp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dp/dp-private.h"
#include "netdev/link-monitor.h"
#include "ofproto/mac-learning.h"
#include "netdev/netdev.h"
#include "netdev/netlink-link.h"
#include "ofproto/ofproto.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(dp_link);

/* How often the ports that are not plainly up are checked. */
#define DP_LINK_CHECK_MS 500

static void
dp_link_forget_macs(struct dp *dp OVS_UNUSED, const struct dp_port *port)
{
    mac_learning_flush_port(ofproto_mac_learning(port->ofproto),
                            port->port_no);
}

/* 'port' lost its interface ('why' says how): close its sockets, keep the
 * rest. */
static void
dp_link_missing(struct dp *dp, struct dp_port *port, const char *why)
{
    struct dp_port *shell = dp_port_new(port);

    if (port->state == DP_PORT_UP) {
        shell->n_down++;
    }
    dp_bond_member_set_enabled(dp, port, false);
    VLOG_WARN("port %s: interface %s %s; sockets closed, counters kept, "
              "waiting for it to come back", port->name, port->ifname, why);
    dp_link_forget_macs(dp, port);
    dp_port_replace(dp, port, shell);
}

/* Opens 'port', which is missing, on its interface again. */
static void
dp_link_reopen(struct dp *dp, struct dp_port *port)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    struct dp_port *fresh = dp_port_new(port);
    char *error = NULL;

    if (dp_port_open_netdev(dp, fresh, dp_port_provider(fresh, &dp->other),
                            fresh->tap && fresh->create, NULL, &error)) {
        VLOG_WARN_RL(&rl, "%s (will retry)", error);
        free(error);
        dp_port_close(fresh);
        return;
    }
    VLOG_INFO("port %s: interface %s is back (ifindex %d): reopened, link "
              "%s", fresh->name, fresh->ifname, fresh->ifindex,
              dp_port_state_to_string(fresh->state));
    dp_port_replace(dp, port, fresh);
    dp_bond_member_set_enabled(dp, fresh, fresh->state == DP_PORT_UP);
}

/* The interface of 'port' (open) is up or not.  A tenant can flap its link
 * as fast as it likes, so each direction has its own rate limit. */
static void
dp_link_set_up(struct dp *dp, struct dp_port *port, bool up)
{
    static struct vlog_rate_limit up_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    static struct vlog_rate_limit down_rl = VLOG_RATE_LIMIT_INIT(1, 5);

    if (up && port->state == DP_PORT_DOWN) {
        port->state = DP_PORT_UP;
        dp_port_link_changed(port);
        dp_bond_member_set_enabled(dp, port, true);
        dp_port_poll(dp, port);
        VLOG_INFO_RL(&up_rl, "port %s: link up, polling again", port->name);
    } else if (!up && port->state == DP_PORT_UP) {
        port->state = DP_PORT_DOWN;
        port->n_down++;
        dp_port_link_changed(port);
        dp_bond_member_set_enabled(dp, port, false);
        dp_port_poll(dp, port);
        dp_link_forget_macs(dp, port);
        VLOG_INFO_RL(&down_rl, "port %s: link down, not polled until it "
                     "comes up", port->name);
    }
}

/* A tap port: its descriptors are all that count. */
static void
dp_link_check_tap(struct dp *dp, struct dp_port *port)
{
    struct netlink_link_info info;

    if (port->netdev) {
        if (netdev_health(port->netdev)) {
            dp_link_missing(dp, port, "is gone");
        }
    } else if (port->create || !netlink_link_get(port->ifname, &info)) {
        dp_link_reopen(dp, port);
    }
}

/* Asks the kernel about the interface of 'port' and acts on the answer. */
static void
dp_link_check(struct dp *dp, struct dp_port *port)
{
    struct netlink_link_info info;
    int error;

    if (dp_port_is_virtual(port)) {
        return;                 /* No interface to follow. */
    }
    if (port->tap) {
        dp_link_check_tap(dp, port);
        return;
    }
    error = netlink_link_get(port->ifname, &info);
    if (!port->netdev) {
        if (!error) {
            dp_link_reopen(dp, port);
        }
    } else if (error == ENODEV) {
        dp_link_missing(dp, port, "is gone (deleted or renamed)");
    } else if (error) {
        return;                 /* Cannot tell; try again later. */
    } else if (info.ifindex != port->ifindex) {
        uint16_t port_no = port->port_no;

        dp_link_missing(dp, port, "was replaced by another interface");
        dp_link_reopen(dp, dp->ports[port_no]);
    } else {
        dp_link_set_up(dp, port, info.admin_up && info.oper_up);
    }
}

void
dp_link_event(struct dp *dp, const struct link_event *ev)
{
    /* An event only says which ports to look at: by the time it is read
     * the link may have changed again, so the kernel's current state is
     * what counts (dp_link_check()). */
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        if (port && !port->tap && !dp_port_is_virtual(port) && !port->bond
            && !port->patch_peer
            && (ev->type == LINK_EVENT_RESYNC
                || (port->netdev && port->ifindex == ev->ifindex)
                || !strcmp(ev->name, port->ifname))) {
            dp_link_check(dp, port);
        }
    }
}

void
dp_link_run(struct dp *dp, long long now)
{
    if (now < dp->next_link_check_ms) {
        return;
    }
    dp->next_link_check_ms = now + DP_LINK_CHECK_MS;
    for (int i = 0; i < DP_MAX_PORTS; i++) {
        struct dp_port *port = dp->ports[i];

        /* A socket error also catches what the monitor missed.  A patch
         * port's state follows its peer (dp-port.c). */
        if (port && !port->bond && !port->patch_peer
            && (port->state != DP_PORT_UP
                || netdev_health(port->netdev))) {
            dp_link_check(dp, port);
        }
    }
}
