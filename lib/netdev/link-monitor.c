/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Link monitor (see link-monitor.h).  Receiving and parsing are split:
 * the libevent callback drains the netlink socket a datagram at a time and
 * notes overflows, and link_monitor_parse() turns one datagram into
 * events with libmnl, checking every length itself where libmnl would
 * silently stop (a truncated message or attribute ends libmnl's walks
 * without an error).
 */
#include <autoconf.h>
#include "netdev/link-monitor.h"

#include <errno.h>
#include <event2/event.h>
#include <libmnl/libmnl.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "base/coverage.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(link_monitor);

COVERAGE_DEFINE(link_monitor_event);
COVERAGE_DEFINE(link_monitor_resync);
COVERAGE_DEFINE(link_monitor_malformed);

/* Most datagrams read per wakeup, so that a storm of link changes cannot
 * starve the rest of the control thread; the event fires again while data
 * is left. */
#define LINK_MONITOR_MAX_BATCH 64

struct link_monitor {
    struct mnl_socket *nl;      /* NETLINK_ROUTE, in RTNLGRP_LINK. */
    struct event *ev;           /* Readable 'nl'. */
    link_monitor_cb *cb;        /* Consumer's callback... */
    void *aux;                  /* ...and its argument. */
    bool resync_pending;        /* Events were lost; deliver a RESYNC once
                                 * the receive queue is drained. */
    void *buf;                  /* LINK_MONITOR_BUF_SIZE bytes, malloc'd
                                 * so aligned for struct nlmsghdr. */
};

BUILD_ASSERT_DECL(LINK_MONITOR_BUF_SIZE >= 8192);

/* State of one link_monitor_parse() call. */
struct link_parse_ctx__ {
    link_monitor_cb *cb;
    void *aux;
    int n_events;               /* Events delivered. */
    int n_malformed;            /* Messages dropped as malformed. */
};

/* The attributes of one link message that the monitor uses. */
struct link_attrs__ {
    const struct nlattr *ifname; /* IFLA_IFNAME, validated. */
    const struct nlattr *operstate; /* IFLA_OPERSTATE, validated. */
    const char *payload;        /* Start of the attributes. */
    size_t walked;              /* Bytes of attributes walked so far. */
    const char *error;          /* Why the attributes are invalid. */
};

static const char *
link_msg_type_name__(uint16_t type)
{
    return (type == RTM_NEWLINK ? "RTM_NEWLINK"
            : type == RTM_DELLINK ? "RTM_DELLINK"
            : "netlink");
}

/* Counts and logs a dropped message of 'type' for reason 'why'. */
static void
link_parse_malformed__(struct link_parse_ctx__ *ctx, uint16_t type,
                       const char *why)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

    ctx->n_malformed++;
    COVERAGE_INC(link_monitor_malformed);
    VLOG_WARN_RL(&rl, "dropped malformed %s message: %s",
                 link_msg_type_name__(type), why);
}

/* mnl_attr_cb_t: validates the attributes the monitor uses and records
 * them in the struct link_attrs__ at 'attrs_'; skips the others, including
 * types newer than these headers. */
static int
link_attr_cb__(const struct nlattr *attr, void *attrs_)
{
    struct link_attrs__ *attrs = attrs_;

    attrs->walked = ((const char *) attr - attrs->payload
                     + MNL_ALIGN(attr->nla_len));
    if (mnl_attr_type_valid(attr, IFLA_MAX) < 0) {
        return MNL_CB_OK;
    }
    switch (mnl_attr_get_type(attr)) {
    case IFLA_IFNAME:
        if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0
            || mnl_attr_get_payload_len(attr) > IFNAMSIZ) {
            attrs->error = "bad IFLA_IFNAME";
            return MNL_CB_ERROR;
        }
        attrs->ifname = attr;
        break;

    case IFLA_OPERSTATE:
        if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0) {
            attrs->error = "bad IFLA_OPERSTATE";
            return MNL_CB_ERROR;
        }
        attrs->operstate = attr;
        break;

    default:
        break;
    }
    return MNL_CB_OK;
}

/* mnl_cb_t for data messages: delivers an event for a well-formed link
 * message of family AF_UNSPEC.  Always returns MNL_CB_OK, so that one bad
 * message does not hide the rest of the datagram. */
static int
link_msg_cb__(const struct nlmsghdr *nlh, void *ctx_)
{
    struct link_parse_ctx__ *ctx = ctx_;
    const size_t ifi_size = MNL_ALIGN(sizeof(struct ifinfomsg));
    const struct ifinfomsg *ifi;
    struct link_attrs__ attrs;
    struct link_event event;
    size_t attrs_size;

    if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) {
        return MNL_CB_OK;
    }
    if (mnl_nlmsg_get_payload_len(nlh) < ifi_size) {
        link_parse_malformed__(ctx, nlh->nlmsg_type,
                               "shorter than struct ifinfomsg");
        return MNL_CB_OK;
    }
    ifi = mnl_nlmsg_get_payload(nlh);
    if (ifi->ifi_family != AF_UNSPEC) {
        /* For example AF_BRIDGE port notifications. */
        return MNL_CB_OK;
    }

    /* The exact length from 'nlmsg_len', not libmnl's aligned payload
     * tail, which may reach past the end of the datagram. */
    memset(&attrs, 0, sizeof attrs);
    attrs.payload = (const char *) ifi + ifi_size;
    attrs_size = mnl_nlmsg_get_payload_len(nlh) - ifi_size;
    if (mnl_attr_parse_payload(attrs.payload, attrs_size, link_attr_cb__,
                               &attrs) != MNL_CB_OK) {
        link_parse_malformed__(ctx, nlh->nlmsg_type,
                               attrs.error ? attrs.error : "bad attribute");
        return MNL_CB_OK;
    }
    if (attrs.walked < attrs_size) {
        /* libmnl stops at the first attribute that does not fit. */
        link_parse_malformed__(ctx, nlh->nlmsg_type, "truncated attribute");
        return MNL_CB_OK;
    }
    if (ifi->ifi_index <= 0) {
        link_parse_malformed__(ctx, nlh->nlmsg_type, "bad ifindex");
        return MNL_CB_OK;
    }
    if (!attrs.ifname || !mnl_attr_get_str(attrs.ifname)[0]) {
        link_parse_malformed__(ctx, nlh->nlmsg_type, "no IFLA_IFNAME");
        return MNL_CB_OK;
    }

    memset(&event, 0, sizeof event);
    event.type = (nlh->nlmsg_type == RTM_NEWLINK
                  ? LINK_EVENT_NEW : LINK_EVENT_DEL);
    event.ifindex = ifi->ifi_index;
    /* Validated above: NUL-terminated within IFNAMSIZ bytes. */
    strcpy(event.name, mnl_attr_get_str(attrs.ifname));
    event.admin_up = (ifi->ifi_flags & IFF_UP) != 0;
    event.oper_up = (ifi->ifi_flags & IFF_RUNNING) != 0;
    if (attrs.operstate) {
        uint8_t operstate = mnl_attr_get_u8(attrs.operstate);

        event.oper_up = (event.oper_up || operstate == IF_OPER_UP
                         || operstate == IF_OPER_UNKNOWN);
    }
    event.oper_up = event.oper_up && event.admin_up;

    ctx->n_events++;
    COVERAGE_INC(link_monitor_event);
    ctx->cb(&event, ctx->aux);
    return MNL_CB_OK;
}

/* mnl_cb_t for control messages (NLMSG_NOOP, NLMSG_ERROR, NLMSG_DONE...),
 * which a multicast subscription does not expect: skips them, instead of
 * libmnl's default of stopping at NLMSG_DONE and NLMSG_ERROR. */
static int
link_ctl_cb__(const struct nlmsghdr *nlh OVS_UNUSED, void *ctx_ OVS_UNUSED)
{
    return MNL_CB_OK;
}

/* Not 'const' only because mnl_cb_run2() takes a plain pointer. */
static mnl_cb_t link_ctl_cbs__[NLMSG_MIN_TYPE] = {
    [0 ... NLMSG_MIN_TYPE - 1] = link_ctl_cb__,
};

int
link_monitor_parse(const void *buf, size_t size, link_monitor_cb *cb,
                   void *aux)
{
    struct link_parse_ctx__ ctx = { .cb = cb, .aux = aux };
    const struct nlmsghdr *nlh = buf;
    size_t walk_size = MIN(size, INT_MAX);
    int left = walk_size;
    size_t framed;

    /* Find the complete messages: libmnl would drop a truncated last
     * message without saying so. */
    while (mnl_nlmsg_ok(nlh, left)) {
        nlh = mnl_nlmsg_next(nlh, &left);
    }
    framed = walk_size - (left > 0 ? left : 0);

    if (framed && mnl_cb_run2(buf, framed, 0, 0, link_msg_cb__, &ctx,
                              link_ctl_cbs__,
                              ARRAY_SIZE(link_ctl_cbs__)) < 0) {
        /* Only NLM_F_DUMP_INTR gets here: the callbacks never fail. */
        link_parse_malformed__(&ctx, 0, "unexpected NLM_F_DUMP_INTR");
    }
    if (framed < size) {
        link_parse_malformed__(&ctx, 0, "truncated message");
    }
    return ctx.n_malformed ? -1 : ctx.n_events;
}

/* Calls 'monitor''s callback with a LINK_EVENT_RESYNC. */
static void
link_monitor_resync__(struct link_monitor *monitor)
{
    struct link_event event;

    memset(&event, 0, sizeof event);
    event.type = LINK_EVENT_RESYNC;
    monitor->resync_pending = false;
    COVERAGE_INC(link_monitor_resync);
    monitor->cb(&event, monitor->aux);
}

/* libevent callback: the socket of 'monitor_' is readable. */
static void
link_monitor_recv_cb__(evutil_socket_t fd, short events OVS_UNUSED,
                       void *monitor_)
{
    /* One bucket per cause, so that one kind cannot hide another. */
    static struct vlog_rate_limit overflow_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    static struct vlog_rate_limit error_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    static struct vlog_rate_limit trunc_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    static struct vlog_rate_limit sender_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    struct link_monitor *monitor = monitor_;

    for (int i = 0; i < LINK_MONITOR_MAX_BATCH; i++) {
        struct sockaddr_nl sender;
        struct iovec iov = {
            .iov_base = monitor->buf,
            .iov_len = LINK_MONITOR_BUF_SIZE,
        };
        struct msghdr msg = {
            .msg_name = &sender,
            .msg_namelen = sizeof sender,
            .msg_iov = &iov,
            .msg_iovlen = 1,
        };
        ssize_t n;

        n = recvmsg(fd, &msg, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            } else if (errno == ENOBUFS) {
                VLOG_WARN_RL(&overflow_rl, "netlink receive queue "
                             "overflowed, link events lost; "
                             "resynchronizing");
                monitor->resync_pending = true;
                continue;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                VLOG_WARN_RL(&error_rl, "netlink receive failed (%s)",
                             strerror(errno));
                return;
            }
            /* Drained.  A RESYNC goes after every event queued before the
             * loss was noticed, so that re-reading supersedes them. */
            if (monitor->resync_pending) {
                link_monitor_resync__(monitor);
            }
            return;
        }
        if (msg.msg_flags & MSG_TRUNC) {
            VLOG_WARN_RL(&trunc_rl, "netlink message larger than %d "
                         "bytes, link events lost; resynchronizing",
                         LINK_MONITOR_BUF_SIZE);
            monitor->resync_pending = true;
            continue;
        }
        if (msg.msg_namelen != sizeof sender || sender.nl_pid) {
            /* Only the kernel announces links.  (A process with
             * CAP_NET_ADMIN may send to the group.) */
            COVERAGE_INC(link_monitor_malformed);
            VLOG_WARN_RL(&sender_rl, "dropped netlink message from port "
                         "%u, not the kernel", (unsigned int) sender.nl_pid);
            continue;
        }
        link_monitor_parse(monitor->buf, n, monitor->cb, monitor->aux);
    }
}

struct link_monitor *
link_monitor_create(struct event_base *base, link_monitor_cb *cb, void *aux,
                    char **errp)
{
    struct link_monitor *monitor;
    unsigned int group = RTNLGRP_LINK;
    int rcvbuf = LINK_MONITOR_RCVBUF_SIZE;
    char *msg = NULL;
    int fd;

    monitor = xzalloc(sizeof *monitor);
    monitor->cb = cb;
    monitor->aux = aux;
    monitor->buf = xmalloc(LINK_MONITOR_BUF_SIZE);

    monitor->nl = mnl_socket_open2(NETLINK_ROUTE,
                                   SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (!monitor->nl) {
        msg = xasprintf("cannot open rtnetlink socket: %s",
                        strerror(errno));
        goto error;
    }
    fd = mnl_socket_get_fd(monitor->nl);

    /* A large queue rides out bursts (hundreds of links changing at
     * once).  SO_RCVBUFFORCE passes net.core.rmem_max with CAP_NET_ADMIN;
     * without it SO_RCVBUF gets as close as rmem_max allows.  We keep
     * ENOBUFS reports (no NETLINK_NO_ENOBUFS): a loss must be known. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf)
        && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf)) {
        VLOG_WARN("cannot set netlink receive buffer to %d bytes (%s)",
                  rcvbuf, strerror(errno));
    }

    if (mnl_socket_bind(monitor->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
        msg = xasprintf("cannot bind rtnetlink socket: %s", strerror(errno));
        goto error;
    }
    if (mnl_socket_setsockopt(monitor->nl, NETLINK_ADD_MEMBERSHIP, &group,
                              sizeof group) < 0) {
        msg = xasprintf("cannot subscribe to RTNLGRP_LINK: %s",
                        strerror(errno));
        goto error;
    }

    monitor->ev = event_new(base, fd, EV_READ | EV_PERSIST,
                            link_monitor_recv_cb__, monitor);
    if (!monitor->ev || event_add(monitor->ev, NULL)) {
        msg = xstrdup("cannot register rtnetlink socket on the event base");
        goto error;
    }

    if (errp) {
        *errp = NULL;
    }
    return monitor;

error:
    link_monitor_destroy(monitor);
    if (errp) {
        *errp = msg;
    } else {
        free(msg);
    }
    return NULL;
}

void
link_monitor_destroy(struct link_monitor *monitor)
{
    if (!monitor) {
        return;
    }
    if (monitor->ev) {
        event_free(monitor->ev);
    }
    if (monitor->nl) {
        mnl_socket_close(monitor->nl);
    }
    free(monitor->buf);
    free(monitor);
}

int
link_monitor_get_fd(const struct link_monitor *monitor)
{
    return mnl_socket_get_fd(monitor->nl);
}
