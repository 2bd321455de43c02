/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Link operations over rtnetlink, through libnl-route-3: look up an
 * interface by name or index, bring it up or down, switch promiscuous mode,
 * change its MTU, and create or delete veth pairs (with the peer in
 * another network namespace if need be).  The control thread uses
 * these to prepare the kernel interfaces that ports open; link-monitor.[ch]
 * is the other direction (events from the kernel).
 *
 * Each call opens its own rtnetlink socket, in the network namespace the
 * calling thread is in at that moment, and closes it before returning: the
 * module keeps no state, so there is nothing to initialise or tear down and
 * a socket can never be left stale.  The calls block until the kernel
 * answers.  Control thread only; not thread-safe.
 *
 * Every function returns 0 or a positive errno value.  An interface name
 * that is NULL, empty or IFNAMSIZ bytes or longer is EINVAL, rejected
 * before the kernel is asked.  netlink_link_strerror() turns an error into
 * a message for the log or an appctl reply.
 */
#ifndef NETLINK_LINK_H
#define NETLINK_LINK_H 1

#include <stdbool.h>
#include <net/if.h>
#include "packet/packets.h"

/* Size of netlink_link_info's 'kind', with its null terminator. */
#define NETLINK_LINK_KIND_SIZE 16

/* What netlink_link_get() reports about one interface.  A snapshot: the
 * kernel may change the interface at any time afterwards. */
struct netlink_link_info {
    int ifindex;                /* Kernel interface index, > 0. */
    char name[IFNAMSIZ];        /* Interface name, null-terminated. */
    int mtu;                    /* MTU in bytes. */
    struct eth_addr mac;        /* Hardware address; all zeros if the
                                 * interface has none of 6 bytes. */
    bool admin_up;              /* IFF_UP: configured up. */
    bool oper_up;               /* IFF_RUNNING: up and able to carry
                                 * traffic (operstate "up", or "unknown"
                                 * for drivers without carrier state). */
    bool promisc;               /* IFF_PROMISC as set by configuration. */
    char kind[NETLINK_LINK_KIND_SIZE]; /* Link type ("veth", "tun", ...),
                                        * "" if the kernel reports none. */
};

/* Looks up interface 'name' and stores what the kernel reports about it in
 * '*info'.  Returns 0, ENODEV if there is no such interface, or another
 * errno value; '*info' is unspecified on error. */
int netlink_link_get(const char *name, struct netlink_link_info *info);

/* Like netlink_link_get(), for the interface with index 'ifindex'.  An
 * 'ifindex' that is not positive is EINVAL. */
int netlink_link_get_by_index(int ifindex, struct netlink_link_info *info);

/* Brings interface 'name' up if 'up', otherwise down.  Setting the state it
 * already has succeeds.  Returns 0, ENODEV if there is no such interface,
 * EPERM without CAP_NET_ADMIN, or another errno value. */
int netlink_link_set_up(const char *name, bool up);

/* Turns promiscuous mode of interface 'name' on or off, as
 * "ip link set NAME promisc on|off" does.  Returns like
 * netlink_link_set_up(). */
int netlink_link_set_promisc(const char *name, bool on);

/* Sets the MTU of interface 'name' to 'mtu' bytes.  Returns like
 * netlink_link_set_up(); an 'mtu' that is not positive is EINVAL before
 * the kernel is asked, and one outside the driver's range is EINVAL from
 * the kernel. */
int netlink_link_set_mtu(const char *name, int mtu);

/* Creates a veth pair of interfaces 'name' and 'peer', both down, in the
 * calling thread's network namespace.  Returns 0, EEXIST if 'name' or
 * 'peer' exists, or another errno value. */
int netlink_link_create_veth(const char *name, const char *peer);

/* Like netlink_link_create_veth(), except that 'peer' is made directly in
 * the network namespace open on file descriptor 'peer_netns_fd' (a
 * /proc/PID/ns/net or a bind mount of one), so that it never appears in
 * the caller's namespace, and that both ends get MTU 'mtu' unless it is 0.
 * A 'peer_netns_fd' of -1 means the caller's namespace.  The caller keeps
 * 'peer_netns_fd'.  Returns 0, EEXIST if 'name' exists here or 'peer'
 * there, EINVAL for a negative 'mtu' or one the driver refuses, or another
 * errno value. */
int netlink_link_create_veth_ns(const char *name, const char *peer,
                                int peer_netns_fd, int mtu);

/* Deletes interface 'name'; for a veth, its peer goes too.  Returns 0,
 * ENODEV if there is no such interface, or another errno value. */
int netlink_link_delete(const char *name);

/* Sets the alias of interface 'name' (IFLA_IFALIAS, "ip link set NAME
 * alias ALIAS"; shown by "ip -d link") to 'alias', at most 255 bytes.
 * Returns like netlink_link_set_up(). */
int netlink_link_set_alias(const char *name, const char *alias);

/* Called by netlink_link_dump() for each interface: 'info', and its alias
 * ("" if none), both valid only during the call. */
typedef void netlink_link_dump_cb(const struct netlink_link_info *info,
                                  const char *alias, void *aux);

/* Calls 'cb' with 'aux' for every interface of the calling thread's
 * network namespace.  Returns 0 or an errno value (then 'cb' was called
 * for none). */
int netlink_link_dump(netlink_link_dump_cb *cb, void *aux);

/* Returns a message for 'error', a value returned by one of the functions
 * above for interface 'name', such as "interface veth0 does not exist".
 * The caller must free() it. */
char *netlink_link_strerror(const char *name, int error);

#endif /* netlink-link.h */
