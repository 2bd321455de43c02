/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The inside of a bridge, shared by the modules of lib/ofproto that work
 * on it: ofproto.c owns and changes it, xlate.c reads the port set and the
 * MAC table while it translates, and upcall.c reads the MAC table when it
 * revalidates.  Nothing outside lib/ofproto includes this header; the rest
 * of the tree uses ofproto.h.
 *
 * A port set is an immutable snapshot published with RCU: a translation
 * loads it once with ofproto_ports_get(), as an RCU reader, and uses that
 * snapshot throughout, so one translation sees one port set.
 */
#ifndef OFPROTO_PRIVATE_H
#define OFPROTO_PRIVATE_H 1

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ofproto/bond.h"
#include "ofproto/change-log.h"
#include "ofproto/ofproto.h"
#include "packet/flow.h"
#include "packet/packets.h"

struct mac_learning;
struct mirror_bridge;
struct rule_table;

struct ofproto_port {
    uint16_t port_no;
    char name[OFPROTO_PORT_NAME_SIZE];
    struct ofproto_port_settings s; /* VLAN mode, tag and trunks. */
    uint16_t bundle;            /* The bridge port this port is part of:
                                 * 'port_no', or for a bond member the
                                 * bond's port number. */
    bool is_bond;               /* A bond: output is DP_ACTION_BOND_OUTPUT. */
    enum bond_mode bond_mode;   /* Bonds only. */
    uint16_t bond_active;       /* Active-backup bonds: the active member,
                                 * or BOND_PORT_NONE. */
    bool is_patch;              /* A patch port: output crosses to
                                 * 'patch_peer'. */
    struct ofproto *patch_peer; /* Patch ports: the peer's bridge, or NULL
                                 * while the peer is missing. */
    uint16_t patch_peer_port;   /* Patch ports: the peer's port number. */
    bool link_down;             /* Its link is down: floods leave it out. */
};

/* A port set.  Never changed once published: writers copy, modify and
 * publish the copy. */
struct ofproto_ports {
    size_t n;
    struct ofproto_port ports[];    /* Sorted by 'port_no', no duplicates. */
};

struct ofproto {
    char *name;                     /* Immutable. */
    unsigned int index;             /* Among the datapath's bridges; set
                                     * by ofproto_attach() before use. */
    uint64_t *change_seq;           /* Incremented (release) after every
                                     * generation change; NULL for a
                                     * bridge without a datapath. */
    const struct ofproto_datapath *dp; /* NULL without a datapath. */
    struct mac_learning *ml;        /* Has its own mutex. */
    struct change_log log;          /* MAC and link changes, named. */

    /* Serialises port additions and removals. */
    pthread_mutex_t ports_mutex;

    /* Replaced under 'ports_mutex' by a release store, freed after an RCU
     * grace period; readers load it with acquire and never see NULL. */
    struct ofproto_ports *ports;

    /* Incremented (release) after each port set change is published; read
     * with acquire by ofproto_generation(). */
    uint64_t port_generation;

    /* The rule table (never NULL), replaced by the control thread with a
     * release store and read with acquire, like 'ports'; its rules belong
     * to the ofproto.  'rule_generation' is incremented (release) after
     * each replacement, and after a change of 'forward_bpdu'. */
    struct rule_table *rules;
    uint64_t rule_generation;

    /* Whether NORMAL forwards reserved multicast (forward-bpdu).  Written
     * by the control thread, which then increments 'rule_generation' like
     * a rule change; read relaxed by translations. */
    bool forward_bpdu;

    /* See ofproto_set_rules_edited().  Control thread only. */
    bool rules_edited;

    /* Port mirrors (mirror.h): their own RCU snapshot; a change
     * increments 'rule_generation'.  Never NULL. */
    struct mirror_bridge *mirrors;
};

/* Increments the datapath's change counter, if any, after a generation
 * change (release; see ofproto_attach()). */
void ofproto_changed__(struct ofproto *);

/* Returns once the datapath's flows reflect every change made so far
 * (ofproto_datapath 'wait_revalidated').  Control thread. */
void ofproto_wait_revalidated(struct ofproto *);

/* The VLAN a frame whose outer TCI is 'tci' (only the VID and CFI bits
 * count) belongs to when a port with settings 's' receives it, or -1 if
 * the port does not accept it. */
int ofproto_port_input_vlan(const struct ofproto_port_settings *s,
                            ovs_be16 tci);

/* The VID a frame of VLAN 'vlan' leaves a port with settings 's' tagged
 * with, or 0 if it leaves untagged.  The port carries 'vlan'. */
uint16_t ofproto_port_output_vid(const struct ofproto_port_settings *s,
                                 uint16_t vlan);

/* The VLAN a packet with key 'flow' belongs to as NORMAL sees it, or -1
 * if its input port is not a bridge port or does not accept it.  Stores
 * in '*bundle' the bridge port that received it (the bond, for a bond
 * member).  RCU reader. */
int ofproto_flow_vlan(const struct ofproto *, const struct flow *flow,
                      uint16_t *bundle);

/* Port sets. */

/* Returns the index of the first port in 'ports' whose number is at least
 * 'port_no' ('ports->n' if none). */
static inline size_t
ofproto_ports_lower_bound(const struct ofproto_ports *ports,
                          uint16_t port_no)
{
    size_t lo = 0, hi = ports->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ports->ports[mid].port_no < port_no) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static inline const struct ofproto_port *
ofproto_ports_find(const struct ofproto_ports *ports, uint16_t port_no)
{
    size_t i = ofproto_ports_lower_bound(ports, port_no);

    return (i < ports->n && ports->ports[i].port_no == port_no
            ? &ports->ports[i]
            : NULL);
}

static inline const struct ofproto_ports *
ofproto_ports_get(const struct ofproto *ofproto)
{
    /* Pairs with the release store in ofproto_ports_replace__().  The C11
     * atomics (rather than rcu_dereference()) let thread sanitizers see
     * the publication; on x86 both are a plain load. */
    return __atomic_load_n(&ofproto->ports, __ATOMIC_ACQUIRE);
}

/* The bridge port 'port' is part of in 'ports': itself, or for a bond
 * member the bond (NULL if the bond is gone). */
static inline const struct ofproto_port *
ofproto_ports_bundle(const struct ofproto_ports *ports,
                     const struct ofproto_port *port)
{
    if (!port || port->bundle == port->port_no) {
        return port;
    }
    return ofproto_ports_find(ports, port->bundle);
}

#endif /* ofproto-private.h */
