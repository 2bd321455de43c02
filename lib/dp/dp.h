/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The datapath: the ports of every bridge, the PMD threads that poll them,
 * and the bridges' slow paths (one ofproto each) they call on a miss, as
 * Open vSwitch puts several bridges over one dpif-netdev.  A port belongs
 * to one bridge, whose slow path decides for the packets it receives; a
 * megaflow records the bridges its translation went through, and a change
 * in one bridge revalidates only the flows of that bridge.  dp_create()
 * makes every bridge, opens every port and starts the PMDs, or fails
 * leaving nothing behind; dp_destroy() stops the PMDs and closes the
 * ports.
 *
 * The control thread owns the dp and changes it while traffic flows: ports
 * come and go, a port's provider is swapped, PMD threads are added or
 * removed, rx queues move between PMDs.  PMDs see the port table and
 * their poll lists through RCU.  An rx queue moves in two steps (taken off
 * its old PMD, a grace period, given to the new one), so no two PMDs ever
 * poll it at once and frames wait in the kernel's buffers meanwhile.
 */
#ifndef DP_H
#define DP_H 1

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "config/config-other.h"
#include "netdev/netdev.h"
#include "dp/pmd-perf.h"
#include "ofproto/ofproto.h"

/* See dp_set_other_hook(). */
typedef char *dp_other_hook_func(const struct config_other *other,
                                 void *aux);

struct config_bridge;
struct config_port;
struct lockfile;
struct ofproto;
struct pmd;
struct pmd_config;
struct pmd_rxq;

#define DP_MAX_PORTS OFPROTO_MAX_PORTS
#define DP_MAX_PMDS 64
#define DP_MAX_BRIDGES OFPROTO_MAX_BRIDGES

/* The datapath's name in dpctl/show ("netdev@pmdswitch"), as Open vSwitch
 * shows its userspace datapath as "netdev@ovs-netdev". */
#define DP_NAME "pmdswitch"

enum dp_port_state {
    DP_PORT_UP,                 /* Polled. */
    DP_PORT_DOWN,               /* Interface down: not polled, sockets kept. */
    DP_PORT_MISSING,            /* Interface gone or renamed away: sockets
                                 * closed until it comes back. */
};

/* A port.  Once published in dp->ports, PMDs read only 'port_no',
 * 'netdev', 'bond' and 'ofproto', which never change: a port that gets
 * another netdev (provider swap, interface back) is replaced by a new
 * struct.
 *
 * A patch port has no netdev either: output to it crosses into the peer
 * port's bridge within the translation (ofproto_port_set_patch()), and its
 * counters are the PMDs' patch counters.  It is up while its peer is
 * attached.
 *
 * A bond is a port with a 'bond' and no netdev, rx queues or interface
 * ('ifname' is ""); it is a port of the slow path.  Each of its members
 * is an ordinary port named after its interface, with 'bond_port_no' set,
 * that the slow path maps to the bond. */
/* The GSO frames a port's netdev takes whole (dp_port 'tx_gso'). */
#define DP_PORT_GSO_TCP (1 << 0)        /* TCP over IPv4 and IPv6. */
#define DP_PORT_GSO_UDP (1 << 1)        /* UDP segmentation (USO). */
#define DP_PORT_GSO_ALL (DP_PORT_GSO_TCP | DP_PORT_GSO_UDP)

struct dp_port {
    uint16_t port_no;           /* Index in dp->ports. */
    char *name;                 /* Port name from the config. */
    struct netdev *netdev;      /* NULL while missing, and for a bond. */
    struct bond *bond;          /* Bonds only; owned by the port. */
    struct ofproto *ofproto;    /* Its bridge's slow path. */

    /* Control thread writes (relaxed atomic), PMDs read. */
    bool tx_down;               /* Its link is down: output to it is
                                 * dropped and counted (tx_port_down). */

    /* Set before the port is published, then read only. */
    uint8_t tx_gso;             /* DP_PORT_GSO_*: GSO frames its netdev
                                 * takes whole; others are segmented in
                                 * software (tx-gso.c). */
    bool tunnel;                /* A tunnel port (vxlan): counted as
                                 * encapsulated on output. */
    uint32_t tx_max_frame;      /* Largest frame the netdev sends (a
                                 * tunnel's underlay MTU less its headers);
                                 * GSO frames are cut to fit; 0: any. */

    /* Control thread only. */
    char *ifname;               /* The kernel interface it stands for. */
    bool tap;                   /* Type "tap". */
    bool afxdp;                 /* Type "afxdp" (neither: "system"). */
    bool dummy;                 /* Type "dummy": no kernel interface. */
    struct netdev_vxlan_options *vxlan; /* Type "vxlan": its tunnel, with
                                 * no kernel interface; NULL for others. */
    bool internal;              /* Type "internal": a tap it creates. */
    char *patch_peer;           /* Type "patch": the peer port's name;
                                 * NULL for other types. */
    char *pcap;                 /* dummy: "pcap" option, or NULL. */
    bool xdp_generic;           /* afxdp: "xdp-mode" "generic". */
    int n_rxq;                  /* Rx queues asked for. */
    int mac_limit;              /* Most MACs learned on it; 0: no limit. */
    bool create;                /* "create": make the interface if it is
                                 * missing (a tap also when it comes back). */
    bool created;               /* pmdswitchd created its veth pair and
                                 * deletes it with the port. */
    bool made_promisc;          /* pmdswitchd turned promiscuous mode on
                                 * and turns it off with the port. */
    enum dp_port_state state;
    int ifindex;                /* Of 'netdev', 0 if none. */
    uint64_t n_down;            /* Times it went down or missing. */
    struct pmd_rxq **rxqs;      /* One per rx queue of 'netdev'. */
    int n_rxqs;
    struct netdev_stats stats_base; /* Of netdevs this port had before. */
    struct dp_port *successor;  /* The port reopened under this one's name
                                 * that took its interface over
                                 * (dp_port_hand_over()); it inherits the
                                 * counters when this one is removed. */
    struct ofproto_port_settings vlan; /* VLAN mode, tag and trunks. */
    uint16_t bond_port_no;      /* Bond members: the bond's port number;
                                 * else DP_PORT_NONE. */
    struct dp_port **members;   /* A bond not attached yet: its members,
                                 * opened, not attached; NULL once
                                 * attached (they are in dp->ports). */
    size_t n_members;
    struct lockfile *lock;      /* Kernel interfaces: the lock that keeps
                                 * other pmdswitchd instances off it. */
};

/* No port. */
#define DP_PORT_NONE UINT16_MAX

const char *dp_port_state_to_string(enum dp_port_state);

/* True for a port with no kernel interface to follow or lock: a dummy or
 * a vxlan port.  Always up. */
static inline bool
dp_port_is_virtual(const struct dp_port *port)
{
    return port->dummy || port->vxlan;
}

/* Settings a PMD reads on every iteration; written by the control thread,
 * read relaxed. */
struct dp_settings {
    uint32_t emc_insert_inv_prob;
    bool smc_enable;
    bool gro_enable;            /* gro-enable. */
    uint32_t flow_idle_ms;
    uint32_t sleep_max_us;      /* pmd-sleep-max; 0: never sleep. */
    bool sleep_predict;         /* pmd-sleep-predict. */
    uint32_t tx_flush_us;       /* tx-flush-interval; 0: after each rx
                                 * batch. */
    uint32_t flow_limit;        /* Most megaflows a PMD installs. */
};

struct dp {
    struct dp_port *ports[DP_MAX_PORTS]; /* RCU-published; NULL if free. */
    struct dp_capture *capture;         /* RCU-published by dp-capture.c;
                                         * NULL while nothing is
                                         * captured. */
    struct ofproto *bridges[DP_MAX_BRIDGES]; /* RCU-published, by
                                              * ofproto_index(); NULL if
                                              * free. */
    uint64_t change_seq;                /* Every bridge increments it after
                                         * its generation changes or its
                                         * change log grows; PMDs read it
                                         * each iteration. */
    struct ofproto_datapath ofproto_dp; /* What the bridges get from the
                                         * datapath (ofproto_attach()). */
    struct dp_settings settings;

    /* Control thread only. */
    uint16_t n_ports;                   /* Non-NULL entries of 'ports'. */
    uint16_t next_port_no;              /* Where the next free slot search
                                         * starts: numbers are not reused
                                         * at once. */
    int n_bridges;                      /* Non-NULL entries of 'bridges'. */
    struct config_other other;          /* In force. */
    dp_other_hook_func *other_hook;     /* See dp_set_other_hook(). */
    void *other_hook_aux;
    struct dp_capture_ctl *capture_ctl; /* dp-capture.c's; NULL until a
                                         * capture starts. */
    struct pmd **pmds;                  /* Sorted by core. */
    int n_pmds;
    int n_cpus;                         /* Online CPUs. */
    int n_txq;                          /* Tx queues a port opens: the
                                         * most PMDs there have been at
                                         * once, so that each PMD sends
                                         * on a queue of its own (its
                                         * 'bond_slot'). */
    int max_txq;                        /* Tx queues a port can grow to
                                         * without reopening: the cores
                                         * a PMD may run on. */
    long long next_interval_ms;         /* Next rx queue usage sample. */
    long long next_link_check_ms;       /* Next dp_link_run() check. */
    int interval_idx;                   /* Slot it goes into. */
    long long stats_cleared_ms;         /* time_msec() at creation or at
                                         * the last pmd-stats-clear. */
};

/* Builds the datapath for the bridges of 'cfg': creates each bridge,
 * opens each port with the provider other_config selects, creates one PMD
 * per core of pmd-cpu-mask and assigns rx queues.  On failure returns
 * NULL and a message in '*errp' (to free), with every port closed
 * again. */
struct dp *dp_create(const struct pmd_config *cfg, char **errp);

/* Makes dp_create() give up, undoing what it did, with the error "start-up
 * interrupted", if '*flag' (set by a signal handler) is non-zero before it
 * opens a port.  NULL: never. */
void dp_set_stop_flag(const volatile sig_atomic_t *flag);
void dp_destroy(struct dp *);         /* Accepts NULL. */

/* Rejects a config this build cannot run, before anything is touched.
 * Returns NULL or a message to free. */
char *dp_check_config(const struct pmd_config *cfg);

/* Stops and joins every PMD thread (idempotent); the ports stay open. */
void dp_stop_pmds(struct dp *);

/* Periodic control-thread work: netdev_run(), MAC aging, rx queue usage
 * sampling. */
void dp_run(struct dp *);

/* The port named 'name' (a bond member by its interface), or NULL. */
struct dp_port *dp_port_lookup(const struct dp *, const char *name);

/* Opens the port 'cp' describes with the provider 'other' selects,
 * without attaching it: nothing forwards to or from it yet.  Returns NULL
 * with a message in '*errp' on failure. */
struct dp_port *dp_port_open(struct dp *, const struct config_port *cp,
                             const struct config_other *other, char **errp);

/* Closes 'port', which is not attached or no longer reachable. */
void dp_port_close(struct dp_port *port);

/* Undoes dp_port_open() of 'port', not attached: deletes the veth pair it
 * created, turns promiscuous mode off if it turned it on, closes it and
 * lets go of its interface.  Returns NULL, or a message to free that says
 * what could not be undone. */
char *dp_port_discard(struct dp_port *port);

/* Names this daemon instance (the absolute path of its control socket) in
 * the alias of every veth pair it creates, so that a later run of the
 * same instance knows them (dp_sweep_interfaces()).  NULL: no tags. */
void dp_set_instance(const char *instance);

/* Deletes the veth pairs tagged by an earlier run of this instance that
 * 'cfg' does not ask to create; the others stay for their ports to take
 * over.  For start-up, with the instance's lock held (so the earlier run
 * is gone).  Logs what it does. */
void dp_sweep_interfaces(const struct pmd_config *cfg);

/* Attaches 'port' (from dp_port_open()) to bridge 'bridge': gives it a
 * port number, tells the slow path and spreads its rx queues over the
 * PMDs; a patch port whose peer is attached is joined to it.  Fails only
 * if the port table is full (then 'port' is closed). */
int dp_port_attach(struct dp *, struct dp_port *port,
                   struct ofproto *bridge);

/* Makes 'to', opened on the interface of 'from', which is about to be
 * removed, own what 'from' made: the veth pair it deletes and the
 * promiscuous mode it turns off with the port.  So a port reopened with
 * other settings keeps its interface.  Also hands the interface's frames
 * over (dp_port_take_over()), for a bond member by member. */
void dp_port_hand_over(struct dp *, struct dp_port *from,
                       struct dp_port *to);

/* Detaches 'port' and closes it, once no PMD can use it any more. */
void dp_port_remove(struct dp *, struct dp_port *port);

/* Applies 'other' as the other_config in force: checks it first (a bad
 * pmd-cpu-mask, a port that cannot be reopened with another provider) and
 * changes nothing on error.  Keys whose value did not change are left
 * alone.  Returns NULL, or an error message to free. */
char *dp_set_other(struct dp *, const struct config_other *other);

/* A check and change that an upper layer adds to dp_set_other(): called
 * with the other_config about to be applied before anything changes, it
 * returns NULL once it has applied its part, or an error to free, and then
 * nothing changes.  If dp_set_other() fails later, it is called again with
 * the other_config in force, to undo its part.  Control thread. */
void dp_set_other_hook(struct dp *, dp_other_hook_func *, void *aux);

/* Reassigns every rx queue to the PMDs by pmd-rxq-assign. */
void dp_rxq_rebalance(struct dp *);

/* Sums the counters of 'port' of 'dp' over every provider it had; those
 * of a patch port come from the PMDs' patch counters ('dp' may be NULL
 * for other ports). */
void dp_port_get_stats(const struct dp *, const struct dp_port *,
                       struct netdev_stats *);

/* Copies PMD 'pmd''s counters since the last pmd-stats-clear. */
void dp_pmd_stats(const struct pmd *, struct pmd_perf_snapshot *);

/* Acts on link monitor event 'ev' (dp-link.c): a port whose interface
 * went down stops being polled, one whose interface disappeared or was
 * renamed away is closed until it is back, and is then reopened. */
struct link_event;
void dp_link_event(struct dp *, const struct link_event *ev);

/* Periodic check of the ports that are not plainly up (dp-link.c); called
 * by dp_run(). */
void dp_link_run(struct dp *, long long now);

/* Bridges. */

/* The bridge named 'name', or NULL. */
struct ofproto *dp_bridge_lookup(const struct dp *, const char *name);

/* Stores in '*port_no' the number of port 'name' of bridge 'bridge' and
 * returns true, or returns false if 'bridge' has no such port. */
bool dp_bridge_port_lookup(const struct dp *, const struct ofproto *bridge,
                           const char *name, uint16_t *port_no);

/* Returns once every running PMD's flows reflect every slow-path change
 * made before the call (see pmd-reval.h): from then on no packet is
 * forwarded by a flow the change contradicts.  Takes as long as the
 * PMDs need to re-check the flows the change concerns, a slice per
 * iteration, plus a nap if a PMD sleeps.  Control thread, outside any
 * RCU read-side section. */
void dp_wait_revalidated(struct dp *);

/* Adds bridge 'name' (not there yet), with no ports.  Returns it, or NULL
 * if the datapath has DP_MAX_BRIDGES bridges. */
struct ofproto *dp_bridge_add(struct dp *, const char *name);

/* Removes the ports of 'bridge' and then the bridge, once no PMD can use
 * it any more. */
void dp_bridge_remove(struct dp *, struct ofproto *bridge);

/* Iterates 'BR' over the bridges, in index order. */
#define DP_FOR_EACH_BRIDGE(BR, DP)                                       \
    for (int b__ = 0; b__ < DP_MAX_BRIDGES; b__++)                        \
        if (((BR) = (DP)->bridges[b__]) != NULL)

/* Installs the rules of bridge 'br' (already checked, see
 * config_check_rules()) as the rule table of the bridge of that name,
 * resolving port names against its ports, and waits until every PMD uses
 * them.  Returns NULL,
 * or an error message to free with nothing changed.  Control thread. */
char *dp_set_rules(struct dp *, const struct config_bridge *br);

/* Bonds (dp-port.c). */

/* Returns the bond port named 'name', or NULL. */
struct dp_port *dp_bond_lookup(const struct dp *, const char *name);

/* Tells the bond of 'member' (nothing if it is no bond member) whether
 * the member's link is 'up' (open and up), and the slow path which member
 * is active now.  Link changes call it first, before the slower rx queue
 * moves, so that failover takes effect at once.  Control thread. */
void dp_bond_member_set_enabled(struct dp *, const struct dp_port *member,
                                bool up);

/* Rebalances every bond whose rebalance is due at 'now'.  Called by
 * dp_run(). */
void dp_bond_run(struct dp *, long long now);

/* Tells the slow path the active member of 'bond' (a bond port), after a
 * change made through bond.h (set-active-member, admin state). */
void dp_bond_sync(struct dp *, struct dp_port *bond);

/* Logs port and PMD counters as "stats:" lines and in Open vSwitch's
 * pmd-stats-show layout. */
void dp_log_stats(const struct dp *);

#endif /* dp.h */
