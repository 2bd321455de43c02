/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Link monitor: tells the control thread when network interfaces appear,
 * change or disappear.  A monitor is a NETLINK_ROUTE socket (libmnl)
 * subscribed to RTNLGRP_LINK and read on the control thread's libevent
 * base; it turns the kernel's RTM_NEWLINK and RTM_DELLINK notifications
 * into struct link_event and hands each one to a callback.
 *
 * What the consumer gets and must do:
 *
 *   - Only changes after link_monitor_create().  To learn the current
 *     state, create the monitor first and query the links afterwards, so
 *     that nothing falls between the two.
 *
 *   - LINK_EVENT_NEW carries the link's whole current state, not a diff.
 *     The kernel sends several of them for one change (and some for
 *     changes this struct does not show, such as the MTU), so treat each
 *     one as "this is how the link is now".
 *
 *   - A rename arrives as LINK_EVENT_NEW with the same 'ifindex' and the
 *     new 'name'; nothing announces the old name.  The consumer keeps its
 *     own ifindex -> name map and compares.  Look links up by ifindex, not
 *     by name.
 *
 *   - LINK_EVENT_RESYNC means the socket's receive queue overflowed and
 *     notifications were lost.  It is delivered once per overflow, after
 *     every event that was already queued, so re-reading the state of
 *     each link of interest (by ifindex: a link may also have been deleted
 *     or renamed meanwhile) supersedes everything delivered before it.
 *
 *   - Only notifications about links as a whole (ifi_family AF_UNSPEC)
 *     are delivered.  In particular a bridge's RTM_DELLINK of family
 *     AF_BRIDGE, which means "port left the bridge", is not a deletion and
 *     is ignored.
 *
 * A malformed message never stops the monitor: it is dropped, counted in
 * coverage counter link_monitor_malformed and logged (rate-limited), and
 * the messages around it are still processed.  Delivered NEW and DEL
 * events are counted in link_monitor_event, resynchronizations in
 * link_monitor_resync.
 *
 * Threads: a monitor belongs to the thread that runs its event base; all
 * functions here must be called there (link_monitor_parse() is pure and
 * may run anywhere).
 */
#ifndef LINK_MONITOR_H
#define LINK_MONITOR_H 1

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct link_monitor;

/* Receive buffer for one netlink datagram, in bytes.  Larger than
 * MNL_SOCKET_BUFFER_SIZE because a link with many VFs makes RTM_NEWLINK
 * messages bigger than a page. */
#define LINK_MONITOR_BUF_SIZE 65536

/* Socket receive queue the monitor asks for, in bytes: room for thousands
 * of notifications before one is lost. */
#define LINK_MONITOR_RCVBUF_SIZE (4 * 1024 * 1024)

enum link_event_type {
    LINK_EVENT_NEW,     /* Appeared or changed (flags, name, operstate). */
    LINK_EVENT_DEL,     /* Deleted (or moved to another namespace). */
    LINK_EVENT_RESYNC,  /* Events were lost (ENOBUFS): re-check every link
                         * you care about. */
};

/* One event.  For LINK_EVENT_RESYNC only 'type' is meaningful: 'ifindex'
 * is 0, 'name' is "" and the flags are false. */
struct link_event {
    enum link_event_type type;
    int ifindex;                /* Kernel interface index, > 0. */
    char name[IFNAMSIZ];        /* IFLA_IFNAME, NUL-terminated. */
    bool admin_up;              /* IFF_UP. */
    bool oper_up;               /* 'admin_up' and either IFF_RUNNING or
                                 * IFLA_OPERSTATE "up" or "unknown" (the
                                 * state of links without carrier
                                 * reporting). */
};

/* Called once per event with 'aux' as given at creation.  'event' is valid
 * only during the call.  The callback may do anything on the control
 * thread except destroy the monitor that called it. */
typedef void link_monitor_cb(const struct link_event *event, void *aux);

/* Opens a NETLINK_ROUTE socket in the calling thread's network namespace,
 * subscribes it to RTNLGRP_LINK and registers it on 'base', so that 'cb'
 * is called with 'aux' for each link event while 'base' runs.
 *
 * Returns the new monitor, owned by the caller (free it with
 * link_monitor_destroy()), or NULL with a malloc'd message in '*errp' (if
 * 'errp' is nonnull; the caller frees it). */
struct link_monitor *link_monitor_create(struct event_base *base,
                                         link_monitor_cb *cb, void *aux,
                                         char **errp);

/* Unregisters 'monitor' from its base, closes its socket and frees it.
 * Accepts NULL.  Not from within the monitor's own callback. */
void link_monitor_destroy(struct link_monitor *monitor);

/* Returns the monitor's netlink socket, for poll() in tests and
 * diagnostics (such as shrinking its receive queue to provoke an overflow).
 * The caller must not read from it or close it. */
int link_monitor_get_fd(const struct link_monitor *monitor);

/* Parses 'size' bytes at 'buf' (aligned like a struct nlmsghdr), one
 * datagram of rtnetlink messages as received from the kernel, and calls
 * 'cb' with 'aux' for each RTM_NEWLINK and RTM_DELLINK among them, in
 * order.  Other message types and families are skipped.  Malformed
 * messages are counted and logged, not delivered; the well-formed messages
 * of the datagram are delivered nevertheless.
 *
 * Returns the number of events delivered, or -1 if some message was
 * malformed.  Never reads outside 'buf'.  This is what the monitor runs on
 * each datagram; exposed for tests.  Any thread. */
int link_monitor_parse(const void *buf, size_t size, link_monitor_cb *cb,
                       void *aux);

#endif /* link-monitor.h */
