/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The offload doctor, "port/check [PORT]": for each port with a kernel
 * interface (of every bridge, or only PORT), the facts that decide whether
 * TCP works through the switch and how fast (the offloads, MTU and XDP
 * program of the port's interface and of its veth peer, and what the
 * port's provider negotiated with the kernel), then one line in words per
 * thing that is wrong, with what to do about it, or "ok".
 *
 * The facts come from netdev/netdev-offload-info.h (the kernel) and
 * netdev_get_offloads() (the provider).  port_check_diagnose() turns them
 * into findings with no side effects, so that the rules can be tested
 * without a kernel; the rules follow what each provider of this tree does
 * with checksum-partial and GSO frames (see the comment on each rule in
 * port-check.c).
 */
#ifndef PORT_CHECK_H
#define PORT_CHECK_H 1

#include <stdbool.h>
#include "netdev/netdev.h"
#include "netdev/netdev-offload-info.h"

struct dp;

/* How a port moves frames, as far as offloads go. */
enum port_check_provider {
    PORT_CHECK_PACKET_SOCKET,   /* "tpacket" or "mmsg". */
    PORT_CHECK_TAP,             /* "tap" (also internal ports). */
    PORT_CHECK_AFXDP,           /* "afxdp", native or generic. */
};

/* What is known of a port's peer. */
enum port_check_peer {
    PORT_CHECK_PEER_NONE,       /* The interface is no veth: for a tap,
                                 * the interface itself is the kernel side
                                 * that sends to the switch. */
    PORT_CHECK_PEER_FOUND,      /* 'peer' and 'peer_ns' hold it. */
    PORT_CHECK_PEER_LOST,       /* A veth whose peer could not be read:
                                 * 'peer_error' says why ('peer_ns.nsid'
                                 * for ESRCH). */
};

/* Everything port_check_diagnose() looks at for one port.  The pointers
 * are borrowed. */
struct port_check_facts {
    const char *port;           /* Port name. */
    enum port_check_provider provider;
    struct netdev_offloads negotiated;  /* From the provider. */
    const char *afxdp_neighbour;        /* Another afxdp port of the same
                                         * bridge, or NULL. */
    bool iface_valid;           /* 'iface' was read. */
    int iface_error;            /* Otherwise why not (errno). */
    struct netdev_offload_info iface;   /* The port's interface. */
    enum port_check_peer peer_state;
    int peer_error;
    struct netdev_offload_info peer;
    struct netdev_offload_ns_ref peer_ns;
};

/* The kinds of findings, each reported at most once per port. */
enum port_check_code {
    PORT_CHECK_NO_IFACE,        /* The interface could not be read. */
    PORT_CHECK_PEER_NOT_FOUND,  /* Nor could the veth peer. */
    PORT_CHECK_PEER_TX_CSUM,    /* Checksum-partial frames, no metadata. */
    PORT_CHECK_PEER_TSO_AFXDP,  /* GSO frames into 4 KB UMEM frames. */
    PORT_CHECK_PEER_TSO_TO_AFXDP, /* GSO frames for an afxdp port, cut
                                   * by the PMD. */
    PORT_CHECK_PEER_MTU,        /* Peer MTU above the port's. */
    PORT_CHECK_AFXDP_NO_XDP,    /* No XDP program on an afxdp port. */
    PORT_CHECK_FOREIGN_XDP,     /* XDP on a packet-socket or tap port. */
    PORT_CHECK_TAP_NO_TSO,      /* The tap took no TSO (or no csum). */
    PORT_CHECK_PORT_TSO_OFF,    /* Kernel segments what the switch sends. */
    PORT_CHECK_PEER_GRO_OFF,    /* Peer takes an afxdp port's MTU frames
                                 * one by one. */
    PORT_CHECK_N_CODES
};

/* How bad a finding is. */
enum port_check_severity {
    PORT_CHECK_NOTE,            /* Could not check something. */
    PORT_CHECK_WARNING,         /* Works, slower than it could. */
    PORT_CHECK_ERROR,           /* Frames are lost or corrupted. */
};

/* Size of a finding's text, with its null terminator. */
#define PORT_CHECK_TEXT_SIZE 512

/* One finding: what is wrong and what to do, in one line. */
struct port_check_finding {
    enum port_check_code code;
    enum port_check_severity severity;
    char text[PORT_CHECK_TEXT_SIZE];
};

/* Applies every rule to 'facts' and stores what it finds in 'findings',
 * worst first, in rule order within a severity.  Returns how many (0:
 * nothing is wrong).  Pure: no system call, any thread. */
size_t port_check_diagnose(const struct port_check_facts *facts,
                           struct port_check_finding
                           findings[PORT_CHECK_N_CODES]);

/* Returns the stable identifier of 'code' ("peer-tx-csum", ...), as the
 * JSON reply names it. */
const char *port_check_code_name(enum port_check_code);

/* Returns "note", "warning" or "error". */
const char *port_check_severity_name(enum port_check_severity);

/* Registers "port/check [PORT]" with the appctl server, for 'dp', which
 * must outlive it.  The handler reads the kernel (and, for a veth peer in
 * another namespace, starts a short-lived helper thread) on the control
 * thread; it never touches the PMDs.
 *
 * As text, one block per port:
 *
 *     port NAME (bridge BR, interface IF, provider TYPE):
 *       negotiated: ...
 *       interface IF: mtu N, tx-csum on, sg on, tso on, gso on, gro off,
 *         rx-csum on, xdp none
 *       peer IF (netns NS, ifindex N): ...
 *       error: WHAT IS WRONG: WHAT TO DO
 *       ok
 *
 * (each fact line is one line).  As JSON, {"ports": [PORT...]} where a
 * PORT is {"port", "bridge", "interface", "provider", "negotiated",
 * "interface_facts" (null if unread, with "interface_error"), "peer"
 * (null if none, with "peer_error" if lost), "findings": [{"id",
 * "severity", "text"}...], "ok"}.  An unknown PORT, or one without a
 * kernel interface, is an error. */
void port_check_register_commands(struct dp *dp);

#endif /* control/port-check.h */
