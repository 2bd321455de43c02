/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-cni: work inside the container's network namespace; see
 * cni.h.  The plugin is single-threaded, so it simply moves its one thread
 * into the namespace with setns(), makes its netlink requests there (each
 * opens its socket in the thread's namespace of the moment) and moves
 * back.  Addresses and routes are set with libnl-route-3, as the link
 * operations of lib/netdev/netlink-link.c are.
 */
#include <autoconf.h>
#include "cni.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/if_addr.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>
#include <netlink/addr.h>
#include <netlink/handlers.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>
#include <netlink/route/nexthop.h>
#include "base/util.h"
#include "netdev/netlink-link.h"

struct cni_error *
cni_netns_open(const char *path, struct cni_netns *ns)
{
    ns->path = path;
    ns->home_fd = -1;
    ns->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (ns->fd < 0) {
        if (errno == ENOENT) {
            return cni_error_create(CNI_ERR_UNKNOWN_CONTAINER, "container "
                                    "network namespace does not exist",
                                    "CNI_NETNS %s: %s", path,
                                    strerror(errno));
        }
        return cni_error_create(CNI_ERR_INVALID_ENV, "cannot open CNI_NETNS",
                                "CNI_NETNS %s: %s", path, strerror(errno));
    }
    if (ioctl(ns->fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
        close(ns->fd);
        ns->fd = -1;
        return cni_error_create(CNI_ERR_INVALID_ENV, "CNI_NETNS is not a "
                                "network namespace", "CNI_NETNS %s is not a "
                                "network namespace", path);
    }
    ns->home_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (ns->home_fd < 0) {
        int error = errno;

        close(ns->fd);
        ns->fd = -1;
        return cni_error_create(CNI_ERR_LINK, "cannot open the plugin's own "
                                "network namespace",
                                "/proc/thread-self/ns/net: %s",
                                strerror(error));
    }
    return NULL;
}

void
cni_netns_close(struct cni_netns *ns)
{
    if (ns->fd >= 0) {
        close(ns->fd);
        ns->fd = -1;
    }
    if (ns->home_fd >= 0) {
        close(ns->home_fd);
        ns->home_fd = -1;
    }
}

/* Moves the calling thread into 'ns'. */
static struct cni_error *
cni_netns_enter__(const struct cni_netns *ns)
{
    if (setns(ns->fd, CLONE_NEWNET)) {
        return cni_error_create(CNI_ERR_LINK, "cannot enter the container "
                                "network namespace", "setns(%s): %s",
                                ns->path, strerror(errno));
    }
    return NULL;
}

/* Moves the calling thread back from 'ns'.  Carrying on in the wrong
 * namespace would change the container instead of the host, so failure is
 * fatal. */
static void
cni_netns_leave__(const struct cni_netns *ns)
{
    if (setns(ns->home_fd, CLONE_NEWNET)) {
        ovs_fatal(errno, "cannot return from network namespace %s",
                  ns->path);
    }
}

/* Returns a new libnl address for 'cidr'; the caller puts it. */
static struct nl_addr *
cni_netns_nl_addr__(const struct cni_cidr *cidr)
{
    struct nl_addr *addr = nl_addr_build(cidr->family, cidr->bytes,
                                         cidr->family == AF_INET ? 4 : 16);

    if (!addr) {
        ovs_fatal(0, "out of memory");
    }
    nl_addr_set_prefixlen(addr, cidr->prefixlen);
    return addr;
}

/* libnl's error callback: keeps the kernel's errno in '*errorp_', which
 * libnl would fold into a code of its own ("Unspecific failure" for
 * ENETUNREACH, for one), and lets libnl fail the request as usual. */
static int
cni_netns_nl_error__(struct sockaddr_nl *nla OVS_UNUSED, struct nlmsgerr *e,
                     void *errorp_)
{
    int *errorp = errorp_;

    *errorp = -e->error;
    return NL_STOP;
}

/* Sends 'request' for 'obj' ("add" of an address or route) on a new
 * NETLINK_ROUTE socket in the calling thread's namespace.  Returns 0 or a
 * positive errno value. */
static int
cni_netns_request__(int (*request)(struct nl_sock *, void *), void *obj)
{
    struct nl_sock *sock = nl_socket_alloc();
    int kernel_error = 0;
    int err;

    if (!sock) {
        return ENOMEM;
    }
    nl_socket_modify_err_cb(sock, NL_CB_CUSTOM, cni_netns_nl_error__,
                            &kernel_error);
    err = nl_connect(sock, NETLINK_ROUTE);
    if (!err) {
        err = request(sock, obj);
    }
    nl_socket_free(sock);
    return err >= 0 ? 0 : kernel_error ? kernel_error : EIO;
}

/* rtnl_addr_add() and rtnl_route_add() for cni_netns_request__(). */
static int
cni_netns_addr_add__(struct nl_sock *sock, void *addr)
{
    return rtnl_addr_add(sock, addr, 0);
}

static int
cni_netns_route_add__(struct nl_sock *sock, void *route)
{
    return rtnl_route_add(sock, route, NLM_F_EXCL);
}

/* Gives interface 'ifindex' address 'cidr'.  Returns 0 or a positive
 * errno value. */
static int
cni_netns_add_addr__(int ifindex, const struct cni_cidr *cidr)
{
    struct nl_addr *local = cni_netns_nl_addr__(cidr);
    struct rtnl_addr *addr = rtnl_addr_alloc();
    int error;

    if (!addr) {
        ovs_fatal(0, "out of memory");
    }
    rtnl_addr_set_ifindex(addr, ifindex);
    rtnl_addr_set_family(addr, cidr->family);
    rtnl_addr_set_local(addr, local);
    rtnl_addr_set_prefixlen(addr, cidr->prefixlen);
    if (cidr->family == AF_INET6) {
        /* The IPAM plugin made the address unique; duplicate address
         * detection would leave it unusable for a second or more after
         * ADD has returned. */
        rtnl_addr_set_flags(addr, IFA_F_NODAD);
    }
    error = cni_netns_request__(cni_netns_addr_add__, addr);
    rtnl_addr_put(addr);
    nl_addr_put(local);
    return error;
}

/* Returns the gateway of the first address in 'l3' of 'family' that has
 * one, or NULL: the next hop of a route without its own "gw", as the
 * specification allows. */
static const struct cni_cidr *
cni_netns_default_gw__(const struct cni_l3 *l3, int family)
{
    for (size_t i = 0; i < l3->n_ips; i++) {
        if (l3->ips[i].has_gateway && l3->ips[i].gateway.family == family) {
            return &l3->ips[i].gateway;
        }
    }
    return NULL;
}

/* Sets the optional attributes of 'r' on 'route'. */
static void
cni_netns_route_attrs__(const struct cni_route *r, bool has_gw,
                        struct rtnl_route *route)
{
    rtnl_route_set_table(route, r->table >= 0 ? r->table : RT_TABLE_MAIN);
    rtnl_route_set_scope(route, (r->scope >= 0 ? r->scope
                                 : has_gw ? RT_SCOPE_UNIVERSE
                                 : RT_SCOPE_LINK));
    if (r->priority >= 0) {
        rtnl_route_set_priority(route, r->priority);
    }
    if (r->mtu >= 0) {
        rtnl_route_set_metric(route, RTAX_MTU, r->mtu);
    }
    if (r->advmss >= 0) {
        rtnl_route_set_metric(route, RTAX_ADVMSS, r->advmss);
    }
}

/* Adds route 'r' through interface 'ifindex', with 'gw' as the next hop if
 * it is nonnull.  Returns 0 or a positive errno value. */
static int
cni_netns_add_route__(int ifindex, const struct cni_route *r,
                      const struct cni_cidr *gw)
{
    struct nl_addr *dst = cni_netns_nl_addr__(&r->dst);
    struct rtnl_route *route = rtnl_route_alloc();
    struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
    struct nl_addr *gw_addr = NULL;
    int error;

    if (!route || !nh) {
        ovs_fatal(0, "out of memory");
    }
    rtnl_route_set_family(route, r->dst.family);
    rtnl_route_set_dst(route, dst);
    rtnl_route_set_protocol(route, RTPROT_BOOT);
    rtnl_route_set_type(route, RTN_UNICAST);
    cni_netns_route_attrs__(r, gw != NULL, route);
    rtnl_route_nh_set_ifindex(nh, ifindex);
    if (gw) {
        gw_addr = cni_netns_nl_addr__(gw);
        rtnl_route_nh_set_gateway(nh, gw_addr);
    }
    rtnl_route_add_nexthop(route, nh);      /* 'route' owns 'nh' now. */
    error = cni_netns_request__(cni_netns_route_add__, route);
    rtnl_route_put(route);
    nl_addr_put(dst);
    nl_addr_put(gw_addr);
    return error;
}

/* Formats 'cidr' as "ADDRESS/PREFIXLEN", or as "ADDRESS" unless
 * 'with_prefix', into 'buf'. */
static const char *
cni_netns_format__(const struct cni_cidr *cidr, bool with_prefix,
                   char buf[64])
{
    char addr[INET6_ADDRSTRLEN];

    inet_ntop(cidr->family, cidr->bytes, addr, sizeof addr);
    snprintf(buf, 64, with_prefix ? "%s/%d" : "%s", addr, cidr->prefixlen);
    return buf;
}

/* Gives interface 'ifindex' ('ifname') the addresses and routes of 'l3'. */
static struct cni_error *
cni_netns_add_l3__(int ifindex, const char *ifname, const struct cni_l3 *l3)
{
    char buf[64], gw_buf[64];
    int error;

    for (size_t i = 0; i < l3->n_ips; i++) {
        error = cni_netns_add_addr__(ifindex, &l3->ips[i].address);
        if (error) {
            return cni_error_create(CNI_ERR_LINK, "cannot add an address",
                                    "adding %s to %s: %s",
                                    cni_netns_format__(&l3->ips[i].address,
                                                       true, buf),
                                    ifname, strerror(error));
        }
    }
    for (size_t i = 0; i < l3->n_routes; i++) {
        const struct cni_route *r = &l3->routes[i];
        const struct cni_cidr *gw = (r->has_gw ? &r->gw
                                     : cni_netns_default_gw__(
                                         l3, r->dst.family));

        error = cni_netns_add_route__(ifindex, r, gw);
        if (error) {
            return cni_error_create(CNI_ERR_LINK, "cannot add a route",
                                    "adding route to %s via %s on %s: %s",
                                    cni_netns_format__(&r->dst, true, buf),
                                    gw ? cni_netns_format__(gw, false, gw_buf)
                                    : "no gateway", ifname,
                                    strerror(error));
        }
    }
    return NULL;
}

/* The part of cni_netns_setup() that runs inside the namespace. */
static struct cni_error *
cni_netns_setup__(const char *ifname, const struct cni_l3 *l3,
                  struct cni_iface *iface)
{
    struct netlink_link_info info;
    int error;

    error = netlink_link_get(ifname, &info);
    if (!error) {
        error = netlink_link_set_up(ifname, true);
    }
    if (error) {
        char *msg = netlink_link_strerror(ifname, error);
        struct cni_error *e = cni_error_create(CNI_ERR_LINK, "cannot set up "
                                               "the container interface",
                                               "%s", msg);
        free(msg);
        return e;
    }
    snprintf(iface->name, sizeof iface->name, "%s", ifname);
    snprintf(iface->mac, sizeof iface->mac, ETH_ADDR_FMT,
             ETH_ADDR_ARGS(info.mac));
    iface->ifindex = info.ifindex;
    return cni_netns_add_l3__(info.ifindex, ifname, l3);
}

struct cni_error *
cni_netns_setup(const struct cni_netns *ns, const char *ifname,
                const struct cni_l3 *l3, struct cni_iface *iface)
{
    struct cni_error *error = cni_netns_enter__(ns);

    if (!error) {
        error = cni_netns_setup__(ifname, l3, iface);
        cni_netns_leave__(ns);
    }
    return error;
}

/* Returns the number of leading 1-bits of the 'size' bytes at 'mask'. */
static int
cni_netns_prefixlen__(const unsigned char *mask, size_t size)
{
    int n = 0;

    for (size_t i = 0; i < size; i++) {
        n += __builtin_popcount(mask[i]);
    }
    return n;
}

/* Returns true if 'addrs' (from getifaddrs()) gives interface 'ifname'
 * address 'cidr'. */
static bool
cni_netns_has_addr__(const struct ifaddrs *addrs, const char *ifname,
                     const struct cni_cidr *cidr)
{
    for (const struct ifaddrs *a = addrs; a; a = a->ifa_next) {
        const unsigned char *bytes, *mask;
        size_t size;

        if (strcmp(a->ifa_name, ifname) || !a->ifa_addr || !a->ifa_netmask
            || a->ifa_addr->sa_family != cidr->family) {
            continue;
        }
        if (cidr->family == AF_INET) {
            bytes = (void *) &((struct sockaddr_in *) a->ifa_addr)->sin_addr;
            mask = (void *) &((struct sockaddr_in *)
                              a->ifa_netmask)->sin_addr;
            size = 4;
        } else {
            bytes = (void *) &((struct sockaddr_in6 *)
                               a->ifa_addr)->sin6_addr;
            mask = (void *) &((struct sockaddr_in6 *)
                              a->ifa_netmask)->sin6_addr;
            size = 16;
        }
        if (!memcmp(bytes, cidr->bytes, size)
            && cni_netns_prefixlen__(mask, size) == cidr->prefixlen) {
            return true;
        }
    }
    return false;
}

/* The part of cni_netns_check() that runs inside the namespace. */
static struct cni_error *
cni_netns_check__(const char *path, const char *ifname,
                  const struct cni_l3 *l3)
{
    struct netlink_link_info info;
    struct ifaddrs *addrs;
    char buf[64];
    int error;

    error = netlink_link_get(ifname, &info);
    if (error) {
        char *msg = netlink_link_strerror(ifname, error);
        struct cni_error *e = cni_error_create(CNI_ERR_CHECK, "container "
                                               "interface missing",
                                               "in %s: %s", path, msg);
        free(msg);
        return e;
    }
    if (!info.admin_up) {
        return cni_error_create(CNI_ERR_CHECK, "container interface down",
                                "interface %s in %s is down", ifname, path);
    }
    if (getifaddrs(&addrs)) {
        return cni_error_create(CNI_ERR_LINK, "cannot list addresses",
                                "getifaddrs in %s: %s", path,
                                strerror(errno));
    }
    for (size_t i = 0; i < l3->n_ips; i++) {
        if (!cni_netns_has_addr__(addrs, ifname, &l3->ips[i].address)) {
            freeifaddrs(addrs);
            return cni_error_create(CNI_ERR_CHECK, "container address "
                                    "missing", "interface %s in %s does not "
                                    "have address %s", ifname, path,
                                    cni_netns_format__(&l3->ips[i].address,
                                                       true, buf));
        }
    }
    freeifaddrs(addrs);
    return NULL;
}

struct cni_error *
cni_netns_check(const struct cni_netns *ns, const char *ifname,
                const struct cni_l3 *l3)
{
    struct cni_error *error = cni_netns_enter__(ns);

    if (!error) {
        error = cni_netns_check__(ns->path, ifname, l3);
        cni_netns_leave__(ns);
    }
    return error;
}
