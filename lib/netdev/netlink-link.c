/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Link operations with libnl-route-3; see netlink-link.h.  Each public
 * function opens a NETLINK_ROUTE socket, makes one or two requests and
 * frees the socket again.  A change first reads the link from the kernel
 * (rtnl_link_get_kernel()) because rtnl_link_change() addresses the link
 * by the index and flags of that reading.  libnl reports negative NLE_*
 * codes; netlink_link_errno__() turns them back into errno values.
 */
#include <autoconf.h>
#include "netdev/netlink-link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include "base/util.h"

/* The errno value reported for each libnl error that the kernel returns
 * for link requests (nl_syserr2nlerr() is the other direction).  An NLE_*
 * code missing here is reported as EIO. */
static const struct {
    int nl_error;               /* Positive NLE_* code. */
    int error;                  /* Positive errno value. */
} netlink_link_errors[] = {
    { NLE_NODEV, ENODEV },      /* ENODEV: no such interface. */
    { NLE_OBJ_NOTFOUND, ENODEV }, /* ENOENT, or no answer to a lookup. */
    { NLE_EXIST, EEXIST },
    { NLE_PERM, EPERM },
    { NLE_NOACCESS, EACCES },
    { NLE_INVAL, EINVAL },
    { NLE_RANGE, ERANGE },
    { NLE_NOMEM, ENOMEM },      /* Also ENOBUFS. */
    { NLE_BUSY, EBUSY },
    { NLE_OPNOTSUPP, EOPNOTSUPP },
};

/* Returns the errno value for libnl error 'nl_error' (negative, as libnl
 * returns it, or positive). */
static int
netlink_link_errno__(int nl_error)
{
    int code = nl_error < 0 ? -nl_error : nl_error;

    for (size_t i = 0; i < ARRAY_SIZE(netlink_link_errors); i++) {
        if (netlink_link_errors[i].nl_error == code) {
            return netlink_link_errors[i].error;
        }
    }
    return EIO;
}

/* Returns true if 'name' can name an interface: 1 to IFNAMSIZ - 1 bytes.
 * The kernel checks the characters. */
static bool
netlink_link_name_valid__(const char *name)
{
    return name && name[0] && strnlen(name, IFNAMSIZ) < IFNAMSIZ;
}

/* Opens a NETLINK_ROUTE socket into '*sockp'; the caller frees it with
 * nl_socket_free().  Returns 0 or an errno value, with '*sockp' NULL. */
static int
netlink_link_open__(struct nl_sock **sockp)
{
    struct nl_sock *sock = nl_socket_alloc();
    int err;

    *sockp = NULL;
    if (!sock) {
        return ENOMEM;
    }
    errno = 0;
    err = nl_connect(sock, NETLINK_ROUTE);
    if (err < 0) {
        /* libnl folds socket()'s errors (EMFILE...) into one code; the
         * system's is more useful. */
        int sys_error = errno;

        nl_socket_free(sock);
        return sys_error ? sys_error : netlink_link_errno__(err);
    }
    *sockp = sock;
    return 0;
}

/* Reads the link with index 'ifindex' (if positive) or name 'name' through
 * 'sock' into '*linkp', which the caller releases with rtnl_link_put().
 * Returns 0 or an errno value, with '*linkp' NULL. */
static int
netlink_link_read__(struct nl_sock *sock, int ifindex, const char *name,
                    struct rtnl_link **linkp)
{
    struct rtnl_link *link = NULL;
    int err;

    *linkp = NULL;
    err = rtnl_link_get_kernel(sock, ifindex, name, &link);
    if (err < 0) {
        return netlink_link_errno__(err);
    }
    if (!link) {
        return ENODEV;
    }
    *linkp = link;
    return 0;
}

/* Copies what 'info' reports from 'link'. */
static void
netlink_link_fill__(struct rtnl_link *link, struct netlink_link_info *info)
{
    const char *name = rtnl_link_get_name(link);
    const char *kind = rtnl_link_get_type(link);
    struct nl_addr *addr = rtnl_link_get_addr(link);
    unsigned int flags = rtnl_link_get_flags(link);

    memset(info, 0, sizeof *info);
    info->ifindex = rtnl_link_get_ifindex(link);
    snprintf(info->name, sizeof info->name, "%s", name ? name : "");
    info->mtu = rtnl_link_get_mtu(link);
    if (addr && nl_addr_get_len(addr) == ETH_ADDR_LEN) {
        memcpy(info->mac.ea, nl_addr_get_binary_addr(addr), ETH_ADDR_LEN);
    }
    info->admin_up = (flags & IFF_UP) != 0;
    info->oper_up = (flags & IFF_RUNNING) != 0;
    info->promisc = (flags & IFF_PROMISC) != 0;
    snprintf(info->kind, sizeof info->kind, "%s", kind ? kind : "");
}

/* Looks up the link by 'ifindex' or, if that is 0, by 'name', both already
 * checked, and fills in '*info'. */
static int
netlink_link_query__(int ifindex, const char *name,
                     struct netlink_link_info *info)
{
    struct rtnl_link *link;
    struct nl_sock *sock;
    int error;

    error = netlink_link_open__(&sock);
    if (error) {
        return error;
    }
    error = netlink_link_read__(sock, ifindex, name, &link);
    nl_socket_free(sock);
    if (error) {
        return error;
    }
    netlink_link_fill__(link, info);
    rtnl_link_put(link);
    return 0;
}

int
netlink_link_get(const char *name, struct netlink_link_info *info)
{
    if (!netlink_link_name_valid__(name)) {
        return EINVAL;
    }
    return netlink_link_query__(0, name, info);
}

int
netlink_link_get_by_index(int ifindex, struct netlink_link_info *info)
{
    if (ifindex <= 0) {
        return EINVAL;
    }
    return netlink_link_query__(ifindex, NULL, info);
}

/* Applies 'changes' to link 'name', which the caller has checked.  Returns
 * 0 or an errno value. */
static int
netlink_link_change__(const char *name, struct rtnl_link *changes)
{
    struct rtnl_link *orig;
    struct nl_sock *sock;
    int error;

    error = netlink_link_open__(&sock);
    if (error) {
        return error;
    }
    error = netlink_link_read__(sock, 0, name, &orig);
    if (!error) {
        int err = rtnl_link_change(sock, orig, changes, 0);

        error = err < 0 ? netlink_link_errno__(err) : 0;
        rtnl_link_put(orig);
    }
    nl_socket_free(sock);
    return error;
}

/* Sets interface flag 'flag' of link 'name' if 'on', otherwise clears
 * it. */
static int
netlink_link_set_flag__(const char *name, unsigned int flag, bool on)
{
    struct rtnl_link *changes;
    int error;

    if (!netlink_link_name_valid__(name)) {
        return EINVAL;
    }
    changes = rtnl_link_alloc();
    if (!changes) {
        return ENOMEM;
    }
    if (on) {
        rtnl_link_set_flags(changes, flag);
    } else {
        rtnl_link_unset_flags(changes, flag);
    }
    error = netlink_link_change__(name, changes);
    rtnl_link_put(changes);
    return error;
}

int
netlink_link_set_up(const char *name, bool up)
{
    return netlink_link_set_flag__(name, IFF_UP, up);
}

int
netlink_link_set_promisc(const char *name, bool on)
{
    return netlink_link_set_flag__(name, IFF_PROMISC, on);
}

int
netlink_link_set_mtu(const char *name, int mtu)
{
    struct rtnl_link *changes;
    int error;

    if (!netlink_link_name_valid__(name) || mtu <= 0) {
        return EINVAL;
    }
    changes = rtnl_link_alloc();
    if (!changes) {
        return ENOMEM;
    }
    rtnl_link_set_mtu(changes, mtu);
    error = netlink_link_change__(name, changes);
    rtnl_link_put(changes);
    return error;
}

int
netlink_link_create_veth(const char *name, const char *peer)
{
    return netlink_link_create_veth_ns(name, peer, -1, 0);
}

int
netlink_link_create_veth_ns(const char *name, const char *peer,
                            int peer_netns_fd, int mtu)
{
    struct rtnl_link *link, *peer_link;
    struct nl_sock *sock;
    int error;

    if (!netlink_link_name_valid__(name)
        || !netlink_link_name_valid__(peer) || mtu < 0) {
        return EINVAL;
    }
    error = netlink_link_open__(&sock);
    if (error) {
        return error;
    }
    /* Unlike rtnl_link_veth_add(), this names no namespace for the peer
     * unless asked to, so that both ends go to the socket's namespace, the
     * calling thread's, rather than that of the process's main thread. */
    link = rtnl_link_veth_alloc();
    if (link) {
        int err;

        rtnl_link_set_name(link, name);
        peer_link = rtnl_link_veth_get_peer(link);
        rtnl_link_set_name(peer_link, peer);
        if (peer_netns_fd >= 0) {
            rtnl_link_set_ns_fd(peer_link, peer_netns_fd);
        }
        if (mtu) {
            rtnl_link_set_mtu(link, mtu);
            rtnl_link_set_mtu(peer_link, mtu);
        }
        rtnl_link_put(peer_link);
        err = rtnl_link_add(sock, link, NLM_F_CREATE | NLM_F_EXCL);
        error = err < 0 ? netlink_link_errno__(err) : 0;
        rtnl_link_put(link);
    } else {
        error = ENOMEM;
    }
    nl_socket_free(sock);
    return error;
}

int
netlink_link_delete(const char *name)
{
    struct rtnl_link *link;
    struct nl_sock *sock;
    int error;

    if (!netlink_link_name_valid__(name)) {
        return EINVAL;
    }
    error = netlink_link_open__(&sock);
    if (error) {
        return error;
    }
    link = rtnl_link_alloc();
    if (link) {
        int err;

        rtnl_link_set_name(link, name);
        err = rtnl_link_delete(sock, link);
        error = err < 0 ? netlink_link_errno__(err) : 0;
        rtnl_link_put(link);
    } else {
        error = ENOMEM;
    }
    nl_socket_free(sock);
    return error;
}

int
netlink_link_set_alias(const char *name, const char *alias)
{
    struct rtnl_link *changes;
    int error;

    if (!netlink_link_name_valid__(name) || strlen(alias) > 255) {
        return EINVAL;
    }
    changes = rtnl_link_alloc();
    if (!changes) {
        return ENOMEM;
    }
    rtnl_link_set_ifalias(changes, alias);
    error = netlink_link_change__(name, changes);
    rtnl_link_put(changes);
    return error;
}

/* What netlink_link_dump() passes through nl_cache_foreach(). */
struct netlink_link_dump__ {
    netlink_link_dump_cb *cb;
    void *aux;
};

static void
netlink_link_dump_one__(struct nl_object *obj, void *d_)
{
    struct netlink_link_dump__ *d = d_;
    struct rtnl_link *link = (struct rtnl_link *) obj;
    const char *alias = rtnl_link_get_ifalias(link);
    struct netlink_link_info info;

    netlink_link_fill__(link, &info);
    d->cb(&info, alias ? alias : "", d->aux);
}

int
netlink_link_dump(netlink_link_dump_cb *cb, void *aux)
{
    struct netlink_link_dump__ d = { cb, aux };
    struct nl_cache *cache;
    struct nl_sock *sock;
    int error, err;

    error = netlink_link_open__(&sock);
    if (error) {
        return error;
    }
    err = rtnl_link_alloc_cache(sock, AF_UNSPEC, &cache);
    nl_socket_free(sock);
    if (err < 0) {
        return netlink_link_errno__(err);
    }
    nl_cache_foreach(cache, netlink_link_dump_one__, &d);
    nl_cache_free(cache);
    return 0;
}

char *
netlink_link_strerror(const char *name, int error)
{
    const char *shown = name ? name : "(null)";

    switch (error) {
    case ENODEV:
        return xasprintf("interface %s does not exist", shown);
    case EEXIST:
        return xasprintf("interface %s already exists", shown);
    case EINVAL:
        if (!netlink_link_name_valid__(name)) {
            return xasprintf("invalid interface name \"%s\" (must have 1 "
                             "to %d characters)", shown, IFNAMSIZ - 1);
        }
        return xasprintf("invalid setting for interface %s", shown);
    case EPERM:
    case EACCES:
        return xasprintf("no permission to change interface %s (needs "
                         "CAP_NET_ADMIN)", shown);
    default:
        return xasprintf("interface %s: %s", shown, strerror(error));
    }
}
