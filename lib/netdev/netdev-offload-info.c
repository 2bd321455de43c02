/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Offload facts of an interface and of its veth peer, read from the
 * kernel: rtnetlink through libmnl for the link (MTU, XDP, peer), the
 * ethtool ioctl for the features.  See netdev-offload-info.h.
 *
 * A socket belongs to the network namespace of the thread that made it,
 * so reading a peer in another namespace means making the sockets in a
 * thread that entered it: netdev_offload_info_get_peer() starts one, which
 * calls setns() on itself only, reads, and exits.
 */
#include <autoconf.h>
#include "netdev/netdev-offload-info.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include "base/util.h"

/* The kernel's feature strings that make up each reported feature: on if
 * any of them is active. */
static const char *const netdev_offload_bits[][4] = {
    [NETDEV_OFFLOAD_TX_CSUM] = { "tx-checksum-ipv4",
                                 "tx-checksum-ip-generic",
                                 "tx-checksum-ipv6", NULL },
    [NETDEV_OFFLOAD_SG] = { "tx-scatter-gather", NULL },
    [NETDEV_OFFLOAD_TSO] = { "tx-tcp-segmentation",
                             "tx-tcp6-segmentation", NULL },
    [NETDEV_OFFLOAD_GSO] = { "tx-generic-segmentation", NULL },
    [NETDEV_OFFLOAD_GRO] = { "rx-gro", NULL },
    [NETDEV_OFFLOAD_RX_CSUM] = { "rx-checksum", NULL },
};

/* Bytes of a netlink message buffer: a link message without statistics
 * takes a few KB. */
#define NETDEV_OFFLOAD_NL_BUF_SIZE 32768

/* Upper bound on the kernel's feature strings (about 70 today). */
#define NETDEV_OFFLOAD_MAX_STRINGS 1024

const char *
netdev_offload_feature_name(enum netdev_offload_feature feature)
{
    static const char *const names[] = {
        [NETDEV_OFFLOAD_TX_CSUM] = "tx-checksumming",
        [NETDEV_OFFLOAD_SG] = "scatter-gather",
        [NETDEV_OFFLOAD_TSO] = "tcp-segmentation-offload",
        [NETDEV_OFFLOAD_GSO] = "generic-segmentation-offload",
        [NETDEV_OFFLOAD_GRO] = "generic-receive-offload",
        [NETDEV_OFFLOAD_RX_CSUM] = "rx-checksumming",
    };

    return (unsigned int) feature < ARRAY_SIZE(names) ? names[feature]
                                                      : "?";
}

const char *
netdev_offload_state_name(enum netdev_offload_state state)
{
    return (state == NETDEV_OFFLOAD_ON ? "on"
            : state == NETDEV_OFFLOAD_OFF ? "off" : "unknown");
}

const char *
netdev_offload_xdp_name(enum netdev_offload_xdp xdp)
{
    switch (xdp) {
    case NETDEV_OFFLOAD_XDP_NATIVE:
        return "native";
    case NETDEV_OFFLOAD_XDP_GENERIC:
        return "generic";
    case NETDEV_OFFLOAD_XDP_HW:
        return "hw";
    case NETDEV_OFFLOAD_XDP_MULTI:
        return "multi";
    case NETDEV_OFFLOAD_XDP_NONE:
    default:
        return "none";
    }
}

/* Features through the ethtool ioctl. */

/* Runs ethtool command 'data' on interface 'name' through socket 'fd'.
 * Returns 0 or a positive errno. */
static int
netdev_offload_ethtool__(int fd, const char *name, void *data)
{
    struct ifreq ifr;

    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_data = data;
    return ioctl(fd, SIOCETHTOOL, &ifr) ? errno : 0;
}

/* Fills 'info->features' for interface 'info->name', in the calling
 * thread's namespace.  Returns 0 or a positive errno (features left
 * unknown). */
static int
netdev_offload_read_features__(struct netdev_offload_info *info)
{
    struct ethtool_sset_info *sset = NULL;
    struct ethtool_gstrings *strings = NULL;
    struct ethtool_gfeatures *gf = NULL;
    uint32_t n_strings, n_blocks;
    int error;
    int fd;

    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    sset = xzalloc(sizeof *sset + sizeof(uint32_t));
    sset->cmd = ETHTOOL_GSSET_INFO;
    sset->sset_mask = UINT64_C(1) << ETH_SS_FEATURES;
    error = netdev_offload_ethtool__(fd, info->name, sset);
    if (error) {
        goto out;
    }
    if (!(sset->sset_mask & (UINT64_C(1) << ETH_SS_FEATURES))
        || !sset->data[0] || sset->data[0] > NETDEV_OFFLOAD_MAX_STRINGS) {
        error = EOPNOTSUPP;
        goto out;
    }
    n_strings = sset->data[0];

    strings = xzalloc(sizeof *strings + n_strings * ETH_GSTRING_LEN);
    strings->cmd = ETHTOOL_GSTRINGS;
    strings->string_set = ETH_SS_FEATURES;
    strings->len = n_strings;
    error = netdev_offload_ethtool__(fd, info->name, strings);
    if (error) {
        goto out;
    }

    n_blocks = (n_strings + 31) / 32;
    gf = xzalloc(sizeof *gf + n_blocks * sizeof gf->features[0]);
    gf->cmd = ETHTOOL_GFEATURES;
    gf->size = n_blocks;
    error = netdev_offload_ethtool__(fd, info->name, gf);
    if (error) {
        goto out;
    }

    /* The kernel may report fewer strings than it said, never more. */
    n_strings = MIN(n_strings, strings->len);
    for (uint32_t i = 0; i < n_strings; i++) {
        char name[ETH_GSTRING_LEN + 1];
        bool active;

        memcpy(name, strings->data + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
        name[ETH_GSTRING_LEN] = '\0';
        active = (gf->features[i / 32].active >> (i % 32)) & 1;
        for (int f = 0; f < NETDEV_OFFLOAD_N_FEATURES; f++) {
            for (int k = 0; netdev_offload_bits[f][k]; k++) {
                if (!strcmp(name, netdev_offload_bits[f][k])) {
                    if (active) {
                        info->features[f] = NETDEV_OFFLOAD_ON;
                    } else if (info->features[f] != NETDEV_OFFLOAD_ON) {
                        info->features[f] = NETDEV_OFFLOAD_OFF;
                    }
                }
            }
        }
    }

out:
    free(gf);
    free(strings);
    free(sset);
    close(fd);
    return error;
}

/* rtnetlink. */

/* Opens a bound rtnetlink socket in the calling thread's namespace.
 * Returns it, or NULL with a positive errno in '*errorp'. */
static struct mnl_socket *
netdev_offload_nl_open__(int *errorp)
{
    struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);

    if (!nl) {
        *errorp = errno;
        return NULL;
    }
    if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
        *errorp = errno;
        mnl_socket_close(nl);
        return NULL;
    }
    return nl;
}

/* Sends request 'nlh' on 'nl' and runs 'cb' with 'data' on each answer
 * until the kernel acknowledges.  Returns 0 or a positive errno (the
 * kernel's, or EPROTO for an answer 'cb' rejected). */
static int
netdev_offload_nl_transact__(struct mnl_socket *nl, struct nlmsghdr *nlh,
                             mnl_cb_t cb, void *data)
{
    char buf[NETDEV_OFFLOAD_NL_BUF_SIZE];
    unsigned int portid = mnl_socket_get_portid(nl);
    unsigned int seq;
    int ret;

    seq = nlh->nlmsg_seq = (unsigned int) time(NULL);
    nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
    if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
        return errno;
    }
    do {
        ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof buf);

        if (n < 0) {
            return errno;
        }
        ret = mnl_cb_run(buf, n, seq, portid, cb, data);
    } while (ret > 0);
    if (ret < 0) {
        return errno ? errno : EPROTO;
    }
    return 0;
}

/* What the link callback collects. */
struct netdev_offload_link_ctx__ {
    struct netdev_offload_info *info;
    bool found;                 /* Saw the RTM_NEWLINK answer. */
};

/* mnl_attr_cb_t for IFLA_XDP's nested attributes. */
static int
netdev_offload_xdp_attr_cb__(const struct nlattr *attr, void *info_)
{
    struct netdev_offload_info *info = info_;

    switch (mnl_attr_get_type(attr)) {
    case IFLA_XDP_ATTACHED:
        if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0) {
            return MNL_CB_ERROR;
        }
        switch (mnl_attr_get_u8(attr)) {
        case XDP_ATTACHED_DRV:
            info->xdp = NETDEV_OFFLOAD_XDP_NATIVE;
            break;
        case XDP_ATTACHED_SKB:
            info->xdp = NETDEV_OFFLOAD_XDP_GENERIC;
            break;
        case XDP_ATTACHED_HW:
            info->xdp = NETDEV_OFFLOAD_XDP_HW;
            break;
        case XDP_ATTACHED_MULTI:
            info->xdp = NETDEV_OFFLOAD_XDP_MULTI;
            break;
        default:
            info->xdp = NETDEV_OFFLOAD_XDP_NONE;
            break;
        }
        break;

    case IFLA_XDP_PROG_ID:
        if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
            return MNL_CB_ERROR;
        }
        info->xdp_prog_id = mnl_attr_get_u32(attr);
        break;

    default:
        break;
    }
    return MNL_CB_OK;
}

/* mnl_attr_cb_t for IFLA_LINKINFO's nested attributes. */
static int
netdev_offload_linkinfo_attr_cb__(const struct nlattr *attr, void *info_)
{
    struct netdev_offload_info *info = info_;

    if (mnl_attr_get_type(attr) == IFLA_INFO_KIND) {
        if (mnl_attr_validate(attr, MNL_TYPE_STRING) < 0) {
            return MNL_CB_ERROR;
        }
        snprintf(info->kind, sizeof info->kind, "%.*s",
                 (int) strnlen(mnl_attr_get_str(attr),
                               mnl_attr_get_payload_len(attr)),
                 mnl_attr_get_str(attr));
    }
    return MNL_CB_OK;
}

/* mnl_attr_cb_t for a link message's attributes. */
static int
netdev_offload_link_attr_cb__(const struct nlattr *attr, void *info_)
{
    struct netdev_offload_info *info = info_;

    if (mnl_attr_type_valid(attr, IFLA_MAX) < 0) {
        return MNL_CB_OK;
    }
    switch (mnl_attr_get_type(attr)) {
    case IFLA_IFNAME:
        if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0
            || mnl_attr_get_payload_len(attr) > IFNAMSIZ) {
            return MNL_CB_ERROR;
        }
        snprintf(info->name, sizeof info->name, "%s",
                 mnl_attr_get_str(attr));
        break;

    case IFLA_MTU:
        if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
            return MNL_CB_ERROR;
        }
        info->mtu = mnl_attr_get_u32(attr);
        break;

    case IFLA_LINK:
        if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
            return MNL_CB_ERROR;
        }
        info->link_ifindex = mnl_attr_get_u32(attr);
        break;

    case IFLA_LINK_NETNSID:
        if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
            return MNL_CB_ERROR;
        }
        info->link_netnsid_valid = true;
        info->link_netnsid = (int32_t) mnl_attr_get_u32(attr);
        break;

    case IFLA_XDP:
        if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0
            || mnl_attr_parse_nested(attr, netdev_offload_xdp_attr_cb__,
                                     info) != MNL_CB_OK) {
            return MNL_CB_ERROR;
        }
        break;

    case IFLA_LINKINFO:
        if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0
            || mnl_attr_parse_nested(attr,
                                     netdev_offload_linkinfo_attr_cb__,
                                     info) != MNL_CB_OK) {
            return MNL_CB_ERROR;
        }
        break;

    default:
        break;
    }
    return MNL_CB_OK;
}

/* mnl_cb_t for the answer to RTM_GETLINK. */
static int
netdev_offload_link_cb__(const struct nlmsghdr *nlh, void *ctx_)
{
    struct netdev_offload_link_ctx__ *ctx = ctx_;
    const struct ifinfomsg *ifi;

    if (nlh->nlmsg_type != RTM_NEWLINK
        || mnl_nlmsg_get_payload_len(nlh) < sizeof *ifi) {
        return MNL_CB_OK;
    }
    ifi = mnl_nlmsg_get_payload(nlh);
    ctx->info->ifindex = ifi->ifi_index;
    if (mnl_attr_parse(nlh, sizeof *ifi, netdev_offload_link_attr_cb__,
                       ctx->info) != MNL_CB_OK) {
        errno = EPROTO;
        return MNL_CB_ERROR;
    }
    ctx->found = ifi->ifi_index > 0 && ctx->info->name[0];
    return MNL_CB_OK;
}

/* Reads the link facts of the interface with index 'ifindex' (if
 * positive) or name 'name' into a zeroed '*info', then its features, all
 * in the calling thread's namespace.  Returns 0 or a positive errno. */
static int
netdev_offload_read__(int ifindex, const char *name,
                      struct netdev_offload_info *info)
{
    char buf[NETDEV_OFFLOAD_NL_BUF_SIZE];
    struct netdev_offload_link_ctx__ ctx = { .info = info };
    struct nlmsghdr *nlh;
    struct ifinfomsg *ifi;
    struct mnl_socket *nl;
    int error = 0;

    memset(info, 0, sizeof *info);
    nl = netdev_offload_nl_open__(&error);
    if (!nl) {
        return error;
    }
    nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_GETLINK;
    ifi = mnl_nlmsg_put_extra_header(nlh, sizeof *ifi);
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_index = ifindex > 0 ? ifindex : 0;
    if (ifindex <= 0) {
        mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
    }
    mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
    error = netdev_offload_nl_transact__(nl, nlh, netdev_offload_link_cb__,
                                         &ctx);
    mnl_socket_close(nl);
    if (!error && !ctx.found) {
        error = ENODEV;
    }
    if (!error) {
        /* Features the kernel cannot tell stay unknown: not an error. */
        netdev_offload_read_features__(info);
    }
    return error;
}

int
netdev_offload_info_get(const char *name, struct netdev_offload_info *info)
{
    if (!name || !name[0] || strlen(name) >= IFNAMSIZ) {
        return EINVAL;
    }
    return netdev_offload_read__(0, name, info);
}

/* Namespaces. */

/* mnl_cb_t for the answer to RTM_GETNSID: stores NETNSA_NSID in the int
 * at 'nsid_'. */
static int
netdev_offload_nsid_cb__(const struct nlmsghdr *nlh, void *nsid_)
{
    const struct nlattr *attr;
    int *nsid = nsid_;

    if (nlh->nlmsg_type != RTM_NEWNSID
        || mnl_nlmsg_get_payload_len(nlh) < sizeof(struct rtgenmsg)) {
        return MNL_CB_OK;
    }
    mnl_attr_for_each (attr, nlh, NLMSG_ALIGN(sizeof(struct rtgenmsg))) {
        if (mnl_attr_get_type(attr) == NETNSA_NSID
            && mnl_attr_validate(attr, MNL_TYPE_U32) >= 0) {
            *nsid = (int32_t) mnl_attr_get_u32(attr);
        }
    }
    return MNL_CB_OK;
}

/* Returns the id that the namespace of 'nl' gives the namespace open as
 * 'ns_fd', or -1 if it has none (or the kernel cannot say). */
static int
netdev_offload_nsid__(struct mnl_socket *nl, int ns_fd)
{
    char buf[NETDEV_OFFLOAD_NL_BUF_SIZE];
    struct nlmsghdr *nlh;
    struct rtgenmsg *rt;
    int nsid = -1;

    nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_GETNSID;
    rt = mnl_nlmsg_put_extra_header(nlh, NLMSG_ALIGN(sizeof *rt));
    rt->rtgen_family = AF_UNSPEC;
    mnl_attr_put_u32(nlh, NETNSA_FD, ns_fd);
    if (netdev_offload_nl_transact__(nl, nlh, netdev_offload_nsid_cb__,
                                     &nsid)) {
        return -1;
    }
    return nsid;
}

/* Namespaces already asked about, by device and inode of their nsfs
 * file, so that each is asked about once however many processes share
 * it. */
struct netdev_offload_seen__ {
    struct stat *sts;
    size_t n, allocated;
};

static bool
netdev_offload_seen__(struct netdev_offload_seen__ *seen,
                      const struct stat *st)
{
    for (size_t i = 0; i < seen->n; i++) {
        if (seen->sts[i].st_dev == st->st_dev
            && seen->sts[i].st_ino == st->st_ino) {
            return true;
        }
    }
    if (seen->n == seen->allocated) {
        seen->allocated = seen->allocated ? 2 * seen->allocated : 16;
        seen->sts = xrealloc(seen->sts,
                             seen->allocated * sizeof *seen->sts);
    }
    seen->sts[seen->n++] = *st;
    return false;
}

/* Opens namespace file 'path' if it is a namespace not in 'seen' whose id,
 * as 'nl''s namespace sees it, is 'nsid'.  Returns the open descriptor
 * or -1. */
static int
netdev_offload_try_ns__(struct mnl_socket *nl, const char *path, int nsid,
                        struct netdev_offload_seen__ *seen)
{
    struct stat st;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    if (fstat(fd, &st) || netdev_offload_seen__(seen, &st)
        || netdev_offload_nsid__(nl, fd) != nsid) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Finds the namespace whose id, as the calling thread's namespace sees it,
 * is 'nsid': first among those named in /run/netns, then among those of
 * processes.  Returns a descriptor open on it and fills 'where', or -1. */
static int
netdev_offload_find_ns__(int nsid, struct netdev_offload_ns_ref *where)
{
    struct netdev_offload_seen__ seen = { NULL, 0, 0 };
    struct mnl_socket *nl;
    struct dirent *de;
    int error = 0;
    int fd = -1;
    DIR *dir;

    nl = netdev_offload_nl_open__(&error);
    if (!nl) {
        return -1;
    }
    dir = opendir("/run/netns");
    while (dir && fd < 0 && (de = readdir(dir))) {
        char path[512];

        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof path, "/run/netns/%s", de->d_name);
        fd = netdev_offload_try_ns__(nl, path, nsid, &seen);
        if (fd >= 0) {
            where->type = NETDEV_OFFLOAD_NS_NAMED;
            snprintf(where->name, sizeof where->name, "%s", de->d_name);
        }
    }
    if (dir) {
        closedir(dir);
    }

    dir = fd < 0 ? opendir("/proc") : NULL;
    while (dir && fd < 0 && (de = readdir(dir))) {
        char path[64];

        if (!isdigit((unsigned char) de->d_name[0])) {
            continue;
        }
        snprintf(path, sizeof path, "/proc/%.20s/ns/net", de->d_name);
        fd = netdev_offload_try_ns__(nl, path, nsid, &seen);
        if (fd >= 0) {
            char comm[64] = "";
            FILE *f;

            where->type = NETDEV_OFFLOAD_NS_PID;
            where->pid = atoi(de->d_name);
            snprintf(path, sizeof path, "/proc/%.20s/comm", de->d_name);
            f = fopen(path, "re");
            if (f) {
                if (fgets(comm, sizeof comm, f)) {
                    comm[strcspn(comm, "\n")] = '\0';
                }
                fclose(f);
            }
            snprintf(where->name, sizeof where->name, "%s", comm);
        }
    }
    if (dir) {
        closedir(dir);
    }
    free(seen.sts);
    mnl_socket_close(nl);
    return fd;
}

/* What the helper thread reads and answers. */
struct netdev_offload_peer_job__ {
    int ns_fd;                          /* Namespace to enter. */
    int ifindex;                        /* Interface to read there. */
    struct netdev_offload_info *peer;   /* Where to put it. */
    int error;                          /* The answer. */
};

/* Body of the helper thread: enters the namespace, reads, exits.  setns()
 * moves this thread alone, and the thread ends right after. */
static void *
netdev_offload_peer_thread__(void *job_)
{
    struct netdev_offload_peer_job__ *job = job_;

    if (setns(job->ns_fd, CLONE_NEWNET)) {
        job->error = errno;
    } else {
        job->error = netdev_offload_read__(job->ifindex, NULL, job->peer);
    }
    return NULL;
}

int
netdev_offload_info_get_peer(const struct netdev_offload_info *info,
                             struct netdev_offload_info *peer,
                             struct netdev_offload_ns_ref *where)
{
    struct netdev_offload_peer_job__ job;
    pthread_t thread;
    int error;

    memset(where, 0, sizeof *where);
    if (strcmp(info->kind, "veth") || info->link_ifindex <= 0) {
        return ENOENT;
    }
    if (!info->link_netnsid_valid) {
        where->type = NETDEV_OFFLOAD_NS_SAME;
        return netdev_offload_read__(info->link_ifindex, NULL, peer);
    }

    where->nsid = info->link_netnsid;
    job.ns_fd = netdev_offload_find_ns__(info->link_netnsid, where);
    if (job.ns_fd < 0) {
        return ESRCH;
    }
    job.ifindex = info->link_ifindex;
    job.peer = peer;
    job.error = 0;
    error = pthread_create(&thread, NULL, netdev_offload_peer_thread__,
                           &job);
    if (!error) {
        pthread_join(thread, NULL);
        error = job.error;
    }
    close(job.ns_fd);
    return error;
}
