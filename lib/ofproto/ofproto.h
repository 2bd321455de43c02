/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The bridge.  'struct ofproto' is the slow-path state of one bridge: its
 * ports, its rule table and its MAC learning table.  This is its public
 * API: creating and destroying a bridge, adding, removing and configuring
 * ports (VLAN settings, bonds), replacing the rule table, MAC aging and
 * the generation counter that tells the datapath when its cached flows
 * must be revalidated.  Translating a packet against the bridge is
 * xlate.h's job, and the upcall and revalidation entry points the
 * datapath calls are in upcall.h.
 *
 * Each port has a VLAN mode with Open vSwitch's names and meaning (see
 * 'enum ofproto_vlan_mode'): the mode decides which VLAN a received frame
 * belongs to (or that it is dropped), which ports a VLAN is flooded to,
 * and whether a frame leaves a port tagged.
 *
 * Threads: the control thread creates and destroys an ofproto, adds and
 * removes ports and calls ofproto_run().  Any thread may translate.  The
 * port set is an immutable snapshot published with RCU (liburcu QSBR): the
 * translating threads must be registered RCU readers that are online, or
 * the only thread using the ofproto.  MAC learning takes the learning
 * table's mutex (mac-learning.h); nothing else in a translation locks.
 */
#ifndef OFPROTO_H
#define OFPROTO_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "ofproto/bond.h"
#include "packet/flow.h"

struct mac_learning;
struct ofproto_rule;
struct rule_table;

/* The most ports a bridge may have (the datapath's port numbers are
 * 0..DP_MAX_PORTS - 1, as many). */
#define OFPROTO_MAX_PORTS 2048

/* The most bridges a datapath has: a megaflow records the bridges its
 * translation went through as bits of a uint64_t. */
#define OFPROTO_MAX_BRIDGES 64

/* Longest port name, including the terminating NUL. */
#define OFPROTO_PORT_NAME_SIZE 32

/* How a port carries VLANs; the names and meanings of Open vSwitch's
 * Port vlan_mode.  A frame is "tagged" if its outer 802.1Q tag has a VID
 * other than 0; untagged and priority-tagged (VID 0) frames are treated
 * alike. */
enum ofproto_vlan_mode {
    /* Tagged frames of the VLANs in 'trunks'.  Untagged frames belong to
     * VLAN 0 if 'trunks' has bit 0 (a trunk of all VLANs), else are
     * dropped.  Frames leave tagged with their VLAN (VLAN 0 untagged). */
    OFPROTO_VLAN_TRUNK,

    /* Untagged frames of VLAN 'tag'; tagged frames are dropped.  Frames
     * leave untagged. */
    OFPROTO_VLAN_ACCESS,

    /* Untagged frames belong to the native VLAN 'tag'; tagged frames as
     * for a trunk of 'tag' and 'trunks'.  Frames leave tagged, those of
     * the native VLAN too. */
    OFPROTO_VLAN_NATIVE_TAGGED,

    /* Same as native-tagged, except that frames of the native VLAN leave
     * untagged. */
    OFPROTO_VLAN_NATIVE_UNTAGGED,
};

/* VLAN IDs are 0..OFPROTO_N_VLANS - 1. */
#define OFPROTO_N_VLANS 4096

/* The VLAN settings of a port.  An all-zero struct is a trunk of no VLAN:
 * a port that accepts nothing and is flooded nothing. */
struct ofproto_port_settings {
    enum ofproto_vlan_mode vlan_mode;
    uint16_t tag;               /* Access VLAN or native VLAN, 1..4094;
                                 * 0 for a trunk. */
    /* VLANs carried tagged, bit 'vid' of word 'vid / 64'.  Bit 0 (trunks
     * only) means untagged frames are carried as VLAN 0.  An access port
     * has no bit set. */
    uint64_t trunks[OFPROTO_N_VLANS / 64];
};

/* "trunk", "access", "native-tagged" or "native-untagged". */
const char *ofproto_vlan_mode_to_string(enum ofproto_vlan_mode);

/* Parses a name from ofproto_vlan_mode_to_string() into '*mode'.  Returns
 * false if 's' is no such name. */
bool ofproto_vlan_mode_from_string(const char *s,
                                   enum ofproto_vlan_mode *mode);

/* Fills 's' the way Open vSwitch reads a Port's vlan_mode, tag and trunks:
 * 'vlan_mode' (a name, or NULL for the default: "access" if 'tag' is
 * nonzero, else "trunk"), 'tag' (0 for none) and the 'n_trunks' VLANs in
 * 'trunks' (none: every VID 1..4095; for a trunk also VLAN 0, untagged
 * frames).  Returns 0, or EINVAL with 's' a trunk of no VLAN if the mode
 * is unknown, a VLAN is out of 1..4094, an access port has no tag or has
 * trunks, a native port has no tag or a trunk has a tag.  Any thread. */
int ofproto_port_settings_init(struct ofproto_port_settings *s,
                               const char *vlan_mode, int tag,
                               const int *trunks, size_t n_trunks);

/* True if a port with settings 's' carries VLAN 'vlan' (0..4095). */
bool ofproto_port_settings_carries(const struct ofproto_port_settings *s,
                                   uint16_t vlan);

/* Creates the slow path of bridge 'name', with no ports and an empty MAC
 * table whose entries age out after 'mac_aging_sec' seconds (0 means the
 * default, 300).  Control thread. */
struct ofproto *ofproto_create(const char *name, unsigned int mac_aging_sec);

/* Frees 'ofproto'.  Accepts NULL.  No thread may be translating with it and
 * no RCU reader may still hold its port snapshot: the PMDs that used it
 * have stopped, or have gone through a quiescent state since they last
 * used it. */
void ofproto_destroy(struct ofproto *);

const char *ofproto_name(const struct ofproto *);

/* What a datapath offers the bridges it runs. */
struct ofproto_datapath {
    /* A counter the bridge increments (release) after every change of
     * its table generation and every append to its change log, so that a
     * PMD watches one counter for all bridges. */
    uint64_t *change_seq;

    /* Returns once every flow the datapath caches reflects every change
     * made before the call (NULL: after two RCU grace periods).  Control
     * thread, outside any RCU read-side section. */
    void (*wait_revalidated)(void *aux);
    void *aux;
};

/* Joins 'ofproto' to datapath 'dp' (which must outlive the bridge):
 * 'index' (< OFPROTO_MAX_BRIDGES) is its place among the datapath's
 * bridges, which translations record (see xlate_out 'bridges').  Its
 * generation then differs from any a bridge that had 'index' before ever
 * had.  Control thread, before the bridge is used by another thread. */
void ofproto_attach(struct ofproto *, unsigned int index,
                    const struct ofproto_datapath *dp);

/* The index given to ofproto_attach() (0 before).  Any thread. */
unsigned int ofproto_index(const struct ofproto *);

/* Makes port 'port_no' a patch port whose peer is port 'peer_port' of
 * bridge 'peer': NORMAL and the rules output to it by crossing into
 * 'peer', where the packet is received on 'peer_port' and translated by
 * that bridge in the same translation.  'peer' NULL keeps it a patch port
 * with no peer (output to it goes nowhere), which is what it must be
 * before 'peer' is destroyed.  Returns 0 or ENOENT.  Changes
 * ofproto_generation() if anything changed.  Same thread rules as
 * ofproto_port_add(). */
int ofproto_port_set_patch(struct ofproto *, uint16_t port_no,
                           struct ofproto *peer, uint16_t peer_port);

/* The bridge's MAC table, for fdb/show, fdb/flush and settings.  Owned by
 * 'ofproto'. */
struct mac_learning *ofproto_mac_learning(struct ofproto *);

/* Adds port 'port_no' named 'name' to the bridge, with the VLAN settings
 * 's' (copied), or if 's' is NULL as a trunk of all VLANs.  Returns 0,
 * EEXIST if the number is taken, ENOSPC if the bridge has
 * OFPROTO_MAX_PORTS ports, or EINVAL if 'name' is empty or longer than
 * OFPROTO_PORT_NAME_SIZE - 1 or 's' is inconsistent (see
 * ofproto_port_settings_init()).  Changes ofproto_generation().  Control
 * thread; waits for an RCU grace period, so it must not run inside an RCU
 * read-side section (a registered caller is put offline meanwhile). */
int ofproto_port_add(struct ofproto *, uint16_t port_no, const char *name,
                     const struct ofproto_port_settings *s);

/* Adds port 'port_no' named 'name' as a member of bond 'bond_port_no', a
 * bridge port already added: a frame received on the member is handled as
 * received on the bond (its VLAN settings, MACs learned on the bond), and
 * NORMAL never outputs to the member itself.  Returns 0, EEXIST, ENOSPC or
 * EINVAL as ofproto_port_add() (EINVAL also if the two numbers are the
 * same), or ENOENT if 'bond_port_no' is not a bridge port.  Remove it with
 * ofproto_port_del().  Same thread rules as ofproto_port_add(). */
int ofproto_member_add(struct ofproto *, uint16_t port_no, const char *name,
                       uint16_t bond_port_no);

/* Makes bridge port 'port_no' a bond in 'mode' whose active member, for
 * active-backup, is port 'active' (BOND_PORT_NONE if none; ignored in the
 * other modes).  NORMAL then outputs to it with one DP_ACTION_BOND_OUTPUT
 * (hash bond_slb_hash() of the source MAC and VLAN for balance-slb, else
 * 0) and drops what the bond does not admit: in active-backup, frames
 * received on any member but the active one; in the balance modes,
 * frames whose source MAC is learned on another bridge port (reflections
 * of the switch's own floods by a partner without LACP).  Changes
 * ofproto_generation() if anything changed.  Returns 0 or ENOENT (no such
 * bridge port).  Same thread rules as ofproto_port_add(). */
int ofproto_port_set_bond(struct ofproto *, uint16_t port_no,
                          enum bond_mode mode, uint16_t active);

/* Stores in '*bundle' the bridge port that port 'port_no' is part of:
 * 'port_no' itself, or the bond of a bond member.  Returns false (and
 * 'port_no') if there is no such port.  Any thread (RCU reader). */
bool ofproto_port_bundle(const struct ofproto *, uint16_t port_no,
                         uint16_t *bundle);

/* Gives port 'port_no' the VLAN settings 's' (copied) and, if they differ
 * from the old ones, forgets the MACs learned on the port.  Returns 0,
 * ENOENT if there is no such port or EINVAL if 's' is inconsistent.  Once
 * it returns, no translation uses the old settings.  Same thread rules as
 * ofproto_port_add(). */
int ofproto_port_set(struct ofproto *, uint16_t port_no,
                     const struct ofproto_port_settings *s);

/* Tells the bridge whether the link of port 'port_no' is up: NORMAL
 * flooding and the flood action leave out a port whose link is down.
 * If the state changed, logs the port and the flood set in the change
 * log (ofproto_port_link_changed()), so that the flows that flood or
 * output to it are translated again, and no others.  Returns 0 or ENOENT (no such port).  Same
 * thread rules as ofproto_port_add(). */
int ofproto_port_set_link(struct ofproto *, uint16_t port_no, bool up);

/* Copies the VLAN settings of port 'port_no' into '*s'.  Returns false if
 * there is no such port.  Any thread (RCU reader). */
bool ofproto_port_get(const struct ofproto *, uint16_t port_no,
                      struct ofproto_port_settings *s);

/* Removes port 'port_no' and forgets the MACs learned on it.  Returns 0 or
 * ENOENT.  Once it returns, no translation outputs to the port or learns on
 * it any more.  Changes ofproto_generation().  Same thread rules as
 * ofproto_port_add(). */
int ofproto_port_del(struct ofproto *, uint16_t port_no);

/* Number of ports, and whether 'port_no' is one.  Any thread (RCU reader). */
size_t ofproto_n_ports(const struct ofproto *);
bool ofproto_has_port(const struct ofproto *, uint16_t port_no);

/* Copies the name of port 'port_no' into 'name' (OFPROTO_PORT_NAME_SIZE
 * bytes).  Returns false, leaving 'name' empty, if there is no such port.
 * Any thread (RCU reader). */
bool ofproto_port_name(const struct ofproto *, uint16_t port_no,
                       char name[OFPROTO_PORT_NAME_SIZE]);

/* A counter that changes whenever a translation could decide differently:
 * a MAC learned, moved, aged out, evicted or flushed, or a port added,
 * removed or given other VLAN settings.  Lock-free, any thread.  A thread
 * that caches translations reads it before it translates or revalidates;
 * when a later read returns a different value it revalidates its cached
 * flows. */
uint64_t ofproto_generation(const struct ofproto *);

/* The part of ofproto_generation() that the change log does not name:
 * rules and forward-bpdu, the port set, the MAC table flushed or its
 * aging changed.  A datapath re-translates every flow of the bridge when
 * it moves, and only the flows that depend on a logged key otherwise.
 * Same ordering. */
uint64_t ofproto_table_generation(const struct ofproto *);

/* The bridge's change log (change-log.h): the MACs whose entries changed
 * and the ports whose link changed.  Any thread reads it. */
const struct change_log *ofproto_change_log(const struct ofproto *);

/* Records that the link of port 'port_no' went up or down: translations
 * that output to it or flood are re-checked (ofproto_port_set_link() does
 * it).  Any thread. */
void ofproto_port_link_changed(struct ofproto *, uint16_t port_no);

/* Replaces the bridge's rule table by the 'n' rules in 'rules', which it
 * takes over: each is either a rule of the current table or a new one
 * (ofproto_rule_create()).  A new rule equal to a current one
 * (ofproto_rule_equal()) is dropped in favour of the current one, which
 * keeps its counters and flows.  Rules of the current table left out are
 * freed.  With no rules at all, the bridge is a plain NORMAL switch; with
 * rules, a packet no rule matches is dropped.
 *
 * When anything changed, changes ofproto_generation() and waits until
 * every running PMD has revalidated its flows against the new table (the
 * datapath's wait_revalidated()): once it returns, no packet is forwarded
 * by a flow the old table produced.  Control thread, outside any RCU
 * read-side section. */
void ofproto_set_rules(struct ofproto *, struct ofproto_rule **rules,
                       size_t n);

/* Sets whether NORMAL forwards frames to reserved multicast addresses
 * (eth_addr_is_reserved(): STP, LACP, PAUSE, 802.1X, LLDP, CDP, ...).  When
 * false, the default as in Open vSwitch and in 802.1Q's filtering table,
 * NORMAL drops them, counts them as normal_drop_reserved_multicast and
 * learns nothing from them; rules still see them.  When the setting
 * changes, returns once every flow reflects it, like ofproto_set_rules().
 * Control thread, outside any RCU read-side section. */
void ofproto_set_forward_bpdu(struct ofproto *, bool forward_bpdu);

/* The forward-bpdu setting.  Any thread. */
bool ofproto_get_forward_bpdu(const struct ofproto *);

/* Whether the rule table was changed by rule/add or rule/del since the
 * config's rules were installed: a config reload puts the config's back.
 * Control thread. */
void ofproto_set_rules_edited(struct ofproto *, bool edited);
bool ofproto_get_rules_edited(const struct ofproto *);

/* The current rule table.  Control thread (the only writer), or an RCU
 * reader. */
const struct rule_table *ofproto_get_rules(const struct ofproto *);

/* Periodic work (MAC aging) as of 'now' (msec, monotonic).  Control thread,
 * about once a second. */
void ofproto_run(struct ofproto *, long long now);

/* Keeps alive the MAC table entry of the source of 'flow' (dl_src on its
 * VLAN and in_port) while a cached flow forwards its traffic without
 * upcalls.  Only refreshes an entry that is live and points to in_port
 * (see mac_learning_refresh()).  Takes the MAC table mutex: call it once
 * per flow that saw traffic, from periodic flow maintenance at least once
 * per aging period, never per packet.  Any thread. */
void ofproto_mac_refresh(struct ofproto *, const struct flow *flow,
                         long long now);

/* What ofproto_mac_refresh() keeps alive for 'flow', as an entry for
 * mac_learning_refresh_batch() on ofproto_mac_learning()'s table, without
 * taking the mutex.  Returns false if there is nothing to refresh (a
 * multicast source, a frame its port's VLAN mode does not take).  Any
 * thread. */
struct mac_learning_refresh;
bool ofproto_mac_refresh_entry(const struct ofproto *, const struct flow *,
                               struct mac_learning_refresh *);

#endif /* ofproto.h */
