/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Offload facts: what the kernel says about one interface that decides
 * how checksum-partial and GSO frames cross it (the ethtool features
 * tx checksumming, scatter-gather, TSO, GSO, GRO and rx checksumming),
 * its MTU, the XDP program attached to it, and, for a veth, where its
 * peer is.  Features come from the ethtool ioctl (ETHTOOL_GSSET_INFO,
 * ETHTOOL_GSTRINGS, ETHTOOL_GFEATURES), the rest from rtnetlink
 * (RTM_GETLINK through libmnl).  Kernel facts only: what the switch makes
 * of them is control/port-check.[ch].
 *
 * A veth's peer usually lives in another network namespace (a container).
 * netdev_offload_info_get_peer() finds that namespace by asking the kernel
 * (RTM_GETNSID with NETNSA_FD) for the id of each namespace named in
 * /run/netns and then of each process's /proc/PID/ns/net, until one has
 * the peer's IFLA_LINK_NETNSID, and reads the peer from a short-lived
 * thread that enters the namespace with setns(): the calling thread never
 * changes namespace.
 *
 * Every call opens its own sockets and closes them before it returns, and
 * blocks until the kernel answers.  Control thread (any thread that may
 * block briefly); the module keeps no state.
 */
#ifndef NETDEV_OFFLOAD_INFO_H
#define NETDEV_OFFLOAD_INFO_H 1

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

/* The features reported, each one ethtool's name for a group of kernel
 * feature bits (see netdev_offload_feature_name()). */
enum netdev_offload_feature {
    NETDEV_OFFLOAD_TX_CSUM,     /* "tx-checksumming": any of
                                 * tx-checksum-ipv4, -ip-generic, -ipv6. */
    NETDEV_OFFLOAD_SG,          /* "scatter-gather": tx-scatter-gather. */
    NETDEV_OFFLOAD_TSO,         /* "tcp-segmentation-offload": any of
                                 * tx-tcp-segmentation, tx-tcp6-... */
    NETDEV_OFFLOAD_GSO,         /* "generic-segmentation-offload". */
    NETDEV_OFFLOAD_GRO,         /* "generic-receive-offload": rx-gro. */
    NETDEV_OFFLOAD_RX_CSUM,     /* "rx-checksumming": rx-checksum. */
    NETDEV_OFFLOAD_N_FEATURES
};

/* A feature's state: on, off, or not reported by the kernel. */
enum netdev_offload_state {
    NETDEV_OFFLOAD_UNKNOWN,
    NETDEV_OFFLOAD_OFF,
    NETDEV_OFFLOAD_ON,
};

/* Where an XDP program runs on an interface (IFLA_XDP_ATTACHED). */
enum netdev_offload_xdp {
    NETDEV_OFFLOAD_XDP_NONE,
    NETDEV_OFFLOAD_XDP_NATIVE,  /* Driver mode. */
    NETDEV_OFFLOAD_XDP_GENERIC, /* Generic (skb) mode. */
    NETDEV_OFFLOAD_XDP_HW,      /* Offloaded to the NIC. */
    NETDEV_OFFLOAD_XDP_MULTI,   /* Programs in more than one mode. */
};

/* What the kernel reports about one interface.  A snapshot: the kernel may
 * change the interface at any time afterwards. */
struct netdev_offload_info {
    int ifindex;                /* In its own namespace, > 0. */
    char name[IFNAMSIZ];        /* Null-terminated. */
    char kind[16];              /* "veth", "tun", ...; "" if none. */
    int mtu;                    /* Bytes. */
    enum netdev_offload_state features[NETDEV_OFFLOAD_N_FEATURES];
    enum netdev_offload_xdp xdp;
    uint32_t xdp_prog_id;       /* The program's id; 0 with no program or
                                 * with programs in several modes. */
    int link_ifindex;           /* IFLA_LINK: for a veth its peer's index
                                 * in the peer's namespace; 0 if none. */
    bool link_netnsid_valid;    /* 'link_netnsid' was reported: the peer
                                 * is in another namespace. */
    int link_netnsid;           /* IFLA_LINK_NETNSID: that namespace's id
                                 * as this interface's namespace sees it. */
};

/* How a peer's namespace was found. */
enum netdev_offload_ns {
    NETDEV_OFFLOAD_NS_SAME,     /* The caller's own namespace. */
    NETDEV_OFFLOAD_NS_NAMED,    /* Named in /run/netns: 'name'. */
    NETDEV_OFFLOAD_NS_PID,      /* The namespace of process 'pid'. */
};

/* Where a veth's peer lives. */
struct netdev_offload_ns_ref {
    enum netdev_offload_ns type;
    char name[256];             /* NETDEV_OFFLOAD_NS_NAMED: the name in
                                 * /run/netns; NETDEV_OFFLOAD_NS_PID: the
                                 * process's command name; else "". */
    int pid;                    /* NETDEV_OFFLOAD_NS_PID only. */
    int nsid;                   /* The id of a namespace other than the
                                 * caller's, as the caller's sees it. */
};

/* Reads the facts about interface 'name' in the calling thread's network
 * namespace into '*info'.  Returns 0, ENODEV if there is no such
 * interface, or another positive errno; '*info' is unspecified on error.
 * A feature the kernel does not report stays NETDEV_OFFLOAD_UNKNOWN. */
int netdev_offload_info_get(const char *name,
                            struct netdev_offload_info *info);

/* Reads the facts about the veth peer of 'info' (from
 * netdev_offload_info_get() in the calling thread's namespace) into
 * '*peer' and says in '*where' where it lives.  Returns 0; ENOENT if
 * 'info' is not a veth with a peer; ESRCH if the peer is in a namespace
 * named neither in /run/netns nor by a process ('where->nsid' set, for
 * the message); ENODEV if the peer was not found there; or another
 * positive errno.  '*peer' is unspecified on error.  Blocks while a
 * helper thread reads the peer. */
int netdev_offload_info_get_peer(const struct netdev_offload_info *info,
                                 struct netdev_offload_info *peer,
                                 struct netdev_offload_ns_ref *where);

/* Returns ethtool's name of 'feature' ("tx-checksumming", ...). */
const char *netdev_offload_feature_name(enum netdev_offload_feature);

/* Returns a short name of 'state': "on", "off" or "unknown". */
const char *netdev_offload_state_name(enum netdev_offload_state);

/* Returns a short name of 'xdp': "none", "native", "generic", "hw" or
 * "multi". */
const char *netdev_offload_xdp_name(enum netdev_offload_xdp);

#endif /* netdev/netdev-offload-info.h */
