/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The slow path of a bridge: its port set, its MAC table and the
 * translation of a missed packet into datapath actions and a megaflow mask.
 *
 * A translation runs in a 'struct xlate_ctx'.  Stages read the packet's
 * flow only through the xlate_read_*() helpers, which add the bits they
 * read to the mask; that is what keeps the mask exact (neither wider nor
 * narrower than the decision) whatever stages run.  Output goes through
 * xlate_output(), which enforces UPCALL_MAX_ACTIONS.  The port set is
 * loaded once per translation, so one translation sees one port set.
 */
#include <autoconf.h>
#include "ofproto/upcall.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ofproto/bond.h"
#include "base/coverage.h"
#include "packet/flow-format.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto-rules.h"
#include "base/rcu.h"
#include "base/util.h"

/* Why NORMAL decided to drop, and MAC moves, for coverage/show. */
COVERAGE_DEFINE(normal_drop_learned_on_input);
COVERAGE_DEFINE(normal_drop_learned_port_gone);
COVERAGE_DEFINE(normal_drop_learned_port_vlan);
COVERAGE_DEFINE(normal_drop_unknown_in_port);
COVERAGE_DEFINE(normal_drop_vlan_not_allowed);
COVERAGE_DEFINE(normal_drop_untagged_not_allowed);
COVERAGE_DEFINE(normal_mac_moved);
/* Packets the rule table dropped because no rule matched. */
COVERAGE_DEFINE(rule_table_miss);
/* Frames a bond drops on input (see ofproto_port_set_bond()). */
COVERAGE_DEFINE(bond_drop_backup_member);
COVERAGE_DEFINE(bond_drop_reflection);

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
};

/* A port set.  Never changed once published: writers copy, modify and
 * publish the copy. */
struct ofproto_ports {
    size_t n;
    struct ofproto_port ports[];    /* Sorted by 'port_no', no duplicates. */
};

struct ofproto {
    char *name;                     /* Immutable. */
    struct mac_learning *ml;        /* Has its own mutex. */

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
     * each replacement. */
    struct rule_table *rules;
    uint64_t rule_generation;
};

/* State of one translation. */
struct xlate_ctx {
    struct ofproto *ofproto;
    const struct ofproto_ports *ports; /* Snapshot for this translation. */
    /* The packet as the actions emitted so far leave it: a copy of the
     * input flow that actions which modify the packet also modify, so
     * that later stages decide on what they will output.  Read only
     * through xlate_read_*(). */
    struct flow flow;

    /* The outer VLAN tag of the packet after the actions emitted so far
     * (0: untagged), once 'vlan_known'.  xlate_vlan_*() keep it. */
    bool vlan_known;
    ovs_be16 vlan_tci;
    struct xlate_out *out;      /* Actions, mask and trace. */
    long long now;
    bool learn;                 /* Update the MAC table (side effects). */
    bool tracing;               /* Fill out->trace. */
    bool trace_full;            /* out->trace was cut. */
    int error;                  /* First error, 0 if none. */
    bool normal_ran;            /* NORMAL ran (it learns sources). */
};

/* VLAN settings. */

static const char *const vlan_mode_names[] = {
    [OFPROTO_VLAN_TRUNK] = "trunk",
    [OFPROTO_VLAN_ACCESS] = "access",
    [OFPROTO_VLAN_NATIVE_TAGGED] = "native-tagged",
    [OFPROTO_VLAN_NATIVE_UNTAGGED] = "native-untagged",
};

static bool
vlan_bitmap_test(const uint64_t *bitmap, uint16_t vid)
{
    return (bitmap[vid / 64] >> (vid % 64)) & 1;
}

static void
vlan_bitmap_set(uint64_t *bitmap, uint16_t vid)
{
    bitmap[vid / 64] |= UINT64_C(1) << (vid % 64);
}

const char *
ofproto_vlan_mode_to_string(enum ofproto_vlan_mode mode)
{
    return (size_t) mode < ARRAY_SIZE(vlan_mode_names)
           ? vlan_mode_names[mode] : "?";
}

bool
ofproto_vlan_mode_from_string(const char *s, enum ofproto_vlan_mode *mode)
{
    for (size_t i = 0; i < ARRAY_SIZE(vlan_mode_names); i++) {
        if (!strcmp(s, vlan_mode_names[i])) {
            *mode = i;
            return true;
        }
    }
    return false;
}

/* True if 's' is consistent (see ofproto_port_settings_init()). */
static bool
ofproto_port_settings_is_valid(const struct ofproto_port_settings *s)
{
    bool has_tag = s->tag >= 1 && s->tag <= 4094;
    bool any_trunk = false;

    if (s->tag && !has_tag) {
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(s->trunks); i++) {
        any_trunk |= s->trunks[i] != 0;
    }
    switch (s->vlan_mode) {
    case OFPROTO_VLAN_TRUNK:
        return !s->tag;
    case OFPROTO_VLAN_ACCESS:
        return has_tag && !any_trunk;
    case OFPROTO_VLAN_NATIVE_TAGGED:
    case OFPROTO_VLAN_NATIVE_UNTAGGED:
        /* Untagged frames are the native VLAN's, never VLAN 0's. */
        return has_tag && !vlan_bitmap_test(s->trunks, 0);
    }
    return false;
}

int
ofproto_port_settings_init(struct ofproto_port_settings *s,
                           const char *vlan_mode, int tag,
                           const int *trunks, size_t n_trunks)
{
    enum ofproto_vlan_mode mode = tag ? OFPROTO_VLAN_ACCESS
                                      : OFPROTO_VLAN_TRUNK;

    memset(s, 0, sizeof *s);
    if ((vlan_mode && !ofproto_vlan_mode_from_string(vlan_mode, &mode))
        || tag < 0 || tag > 4094) {
        return EINVAL;
    }
    s->vlan_mode = mode;
    s->tag = tag;
    if (mode != OFPROTO_VLAN_ACCESS && !n_trunks) {
        /* VID 4095 too: it cannot be listed, but a trunk of "all" VLANs
         * does not filter. */
        memset(s->trunks, 0xff, sizeof s->trunks);
        if (mode != OFPROTO_VLAN_TRUNK) {
            s->trunks[0] &= ~UINT64_C(1);
        }
    }
    for (size_t i = 0; i < n_trunks; i++) {
        if (trunks[i] < 1 || trunks[i] > 4094) {
            memset(s, 0, sizeof *s);
            return EINVAL;
        }
        vlan_bitmap_set(s->trunks, trunks[i]);
    }
    if (!ofproto_port_settings_is_valid(s)) {
        memset(s, 0, sizeof *s);
        return EINVAL;
    }
    return 0;
}

bool
ofproto_port_settings_carries(const struct ofproto_port_settings *s,
                              uint16_t vlan)
{
    if (vlan >= OFPROTO_N_VLANS) {
        return false;
    }
    switch (s->vlan_mode) {
    case OFPROTO_VLAN_ACCESS:
        return vlan == s->tag;
    case OFPROTO_VLAN_NATIVE_TAGGED:
    case OFPROTO_VLAN_NATIVE_UNTAGGED:
        if (vlan == s->tag) {
            return true;
        }
        /* Fall through. */
    case OFPROTO_VLAN_TRUNK:
        return vlan_bitmap_test(s->trunks, vlan);
    }
    return false;
}

/* The VLAN a frame whose outer TCI is 'tci' (only the VID and CFI bits
 * count) belongs to when a port with settings 's' receives it, or -1 if
 * the port does not accept it. */
static int
ofproto_port_input_vlan(const struct ofproto_port_settings *s, ovs_be16 tci)
{
    uint16_t vid = ntohs(tci) & VLAN_VID_MASK;
    bool tagged = (tci & htons(VLAN_CFI)) && vid;

    switch (s->vlan_mode) {
    case OFPROTO_VLAN_ACCESS:
        return tagged ? -1 : s->tag;
    case OFPROTO_VLAN_NATIVE_TAGGED:
    case OFPROTO_VLAN_NATIVE_UNTAGGED:
        if (!tagged) {
            return s->tag;
        }
        return ofproto_port_settings_carries(s, vid) ? vid : -1;
    case OFPROTO_VLAN_TRUNK:
        vid = tagged ? vid : 0;
        return vlan_bitmap_test(s->trunks, vid) ? vid : -1;
    }
    return -1;
}

/* The VID a frame of VLAN 'vlan' leaves a port with settings 's' tagged
 * with, or 0 if it leaves untagged.  The port carries 'vlan'. */
static uint16_t
ofproto_port_output_vid(const struct ofproto_port_settings *s,
                        uint16_t vlan)
{
    switch (s->vlan_mode) {
    case OFPROTO_VLAN_ACCESS:
        return 0;
    case OFPROTO_VLAN_NATIVE_UNTAGGED:
        return vlan == s->tag ? 0 : vlan;
    case OFPROTO_VLAN_NATIVE_TAGGED:
    case OFPROTO_VLAN_TRUNK:
        return vlan;
    }
    return 0;
}

/* Port sets. */

static struct ofproto_ports *
ofproto_ports_alloc(size_t n)
{
    struct ofproto_ports *ports;

    ports = xzalloc(sizeof *ports + n * sizeof ports->ports[0]);
    ports->n = n;
    return ports;
}

/* Returns the index of the first port in 'ports' whose number is at least
 * 'port_no' ('ports->n' if none). */
static size_t
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

static const struct ofproto_port *
ofproto_ports_find(const struct ofproto_ports *ports, uint16_t port_no)
{
    size_t i = ofproto_ports_lower_bound(ports, port_no);

    return (i < ports->n && ports->ports[i].port_no == port_no
            ? &ports->ports[i]
            : NULL);
}

static const struct ofproto_ports *
ofproto_ports_get(const struct ofproto *ofproto)
{
    /* Pairs with the release store in ofproto_ports_replace__().  The C11
     * atomics (rather than rcu_dereference()) let thread sanitizers see
     * the publication; on x86 both are a plain load. */
    return __atomic_load_n(&ofproto->ports, __ATOMIC_ACQUIRE);
}

/* Publishes 'new' in place of the current set, which it returns once no
 * reader can hold it any more.  Caller holds 'ports_mutex'. */
static struct ofproto_ports *
ofproto_ports_replace__(struct ofproto *ofproto, struct ofproto_ports *new)
{
    struct ofproto_ports *old = ofproto->ports;

    /* Pairs with the acquire load in ofproto_ports_get(). */
    __atomic_store_n(&ofproto->ports, new, __ATOMIC_RELEASE);
    /* Pairs with the acquire load in ofproto_generation(). */
    __atomic_add_fetch(&ofproto->port_generation, 1, __ATOMIC_RELEASE);
    rcu_synchronize();
    return old;
}

/* The bridge. */

struct ofproto *
ofproto_create(const char *name, unsigned int mac_aging_sec)
{
    struct ofproto *ofproto = xzalloc(sizeof *ofproto);

    ofproto->name = xstrdup(name);
    ofproto->ml = mac_learning_create(mac_aging_sec, 0);
    pthread_mutex_init(&ofproto->ports_mutex, NULL);
    ofproto->ports = ofproto_ports_alloc(0);
    ofproto->rules = rule_table_create(NULL, 0);
    return ofproto;
}

void
ofproto_destroy(struct ofproto *ofproto)
{
    if (!ofproto) {
        return;
    }
    for (size_t i = 0; i < ofproto->rules->n; i++) {
        ofproto_rule_destroy(ofproto->rules->rules[i]);
    }
    free(ofproto->rules);
    free(ofproto->ports);
    pthread_mutex_destroy(&ofproto->ports_mutex);
    mac_learning_destroy(ofproto->ml);
    free(ofproto->name);
    free(ofproto);
}

const char *
ofproto_name(const struct ofproto *ofproto)
{
    return ofproto->name;
}

struct mac_learning *
ofproto_mac_learning(struct ofproto *ofproto)
{
    return ofproto->ml;
}

/* Adds port 'port_no' as part of bridge port 'bundle' (itself for a
 * bridge port, a bond for a bond member).  See ofproto_port_add(). */
static int
ofproto_port_add__(struct ofproto *ofproto, uint16_t port_no,
                   const char *name, const struct ofproto_port_settings *s,
                   uint16_t bundle)
{
    struct ofproto_ports *old, *new;
    const struct ofproto_port *b;
    size_t name_len = strlen(name);
    size_t i;

    if (!name_len || name_len >= OFPROTO_PORT_NAME_SIZE
        || !ofproto_port_settings_is_valid(s)) {
        return EINVAL;
    }

    pthread_mutex_lock(&ofproto->ports_mutex);
    old = ofproto->ports;
    i = ofproto_ports_lower_bound(old, port_no);
    if (i < old->n && old->ports[i].port_no == port_no) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return EEXIST;
    }
    b = ofproto_ports_find(old, bundle);
    if (bundle != port_no && (!b || b->bundle != bundle)) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOENT;
    }
    if (old->n >= OFPROTO_MAX_PORTS) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOSPC;
    }

    new = ofproto_ports_alloc(old->n + 1);
    memcpy(new->ports, old->ports, i * sizeof old->ports[0]);
    new->ports[i].port_no = port_no;
    memcpy(new->ports[i].name, name, name_len + 1);
    new->ports[i].s = *s;
    new->ports[i].bundle = bundle;
    new->ports[i].bond_active = BOND_PORT_NONE;
    memcpy(&new->ports[i + 1], &old->ports[i],
           (old->n - i) * sizeof old->ports[0]);
    free(ofproto_ports_replace__(ofproto, new));
    pthread_mutex_unlock(&ofproto->ports_mutex);
    return 0;
}

int
ofproto_port_add(struct ofproto *ofproto, uint16_t port_no, const char *name,
                 const struct ofproto_port_settings *s)
{
    struct ofproto_port_settings trunk_all;

    if (!s) {
        ofproto_port_settings_init(&trunk_all, NULL, 0, NULL, 0);
        s = &trunk_all;
    }
    return ofproto_port_add__(ofproto, port_no, name, s, port_no);
}

int
ofproto_member_add(struct ofproto *ofproto, uint16_t port_no,
                   const char *name, uint16_t bond_port_no)
{
    struct ofproto_port_settings none;

    /* A member carries no VLAN of its own: the bond's settings apply. */
    memset(&none, 0, sizeof none);
    if (port_no == bond_port_no) {
        return EINVAL;
    }
    return ofproto_port_add__(ofproto, port_no, name, &none, bond_port_no);
}

int
ofproto_port_set_bond(struct ofproto *ofproto, uint16_t port_no,
                      enum bond_mode mode, uint16_t active)
{
    struct ofproto_ports *old, *new;
    struct ofproto_port *port;
    size_t i;

    pthread_mutex_lock(&ofproto->ports_mutex);
    old = ofproto->ports;
    i = ofproto_ports_lower_bound(old, port_no);
    if (i >= old->n || old->ports[i].port_no != port_no
        || old->ports[i].bundle != port_no) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOENT;
    }
    if (mode != BOND_MODE_ACTIVE_BACKUP) {
        active = BOND_PORT_NONE;
    }
    port = &old->ports[i];
    if (port->is_bond && port->bond_mode == mode
        && port->bond_active == active) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return 0;
    }
    new = ofproto_ports_alloc(old->n);
    memcpy(new->ports, old->ports, old->n * sizeof old->ports[0]);
    port = &new->ports[i];
    port->is_bond = true;
    port->bond_mode = mode;
    port->bond_active = active;
    free(ofproto_ports_replace__(ofproto, new));
    pthread_mutex_unlock(&ofproto->ports_mutex);
    return 0;
}

bool
ofproto_port_bundle(const struct ofproto *ofproto, uint16_t port_no,
                    uint16_t *bundle)
{
    const struct ofproto_port *port;

    port = ofproto_ports_find(ofproto_ports_get(ofproto), port_no);
    *bundle = port ? port->bundle : port_no;
    return port != NULL;
}

int
ofproto_port_del(struct ofproto *ofproto, uint16_t port_no)
{
    struct ofproto_ports *old, *new;
    size_t i;

    pthread_mutex_lock(&ofproto->ports_mutex);
    old = ofproto->ports;
    i = ofproto_ports_lower_bound(old, port_no);
    if (i >= old->n || old->ports[i].port_no != port_no) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOENT;
    }

    new = ofproto_ports_alloc(old->n - 1);
    memcpy(new->ports, old->ports, i * sizeof old->ports[0]);
    memcpy(&new->ports[i], &old->ports[i + 1],
           (old->n - i - 1) * sizeof old->ports[0]);
    free(ofproto_ports_replace__(ofproto, new));

    /* Flush only after the grace period: a translation that still had the
     * old set could otherwise learn a MAC on the port after the flush. */
    mac_learning_flush_port(ofproto->ml, port_no);
    pthread_mutex_unlock(&ofproto->ports_mutex);
    return 0;
}

int
ofproto_port_set(struct ofproto *ofproto, uint16_t port_no,
                 const struct ofproto_port_settings *s)
{
    struct ofproto_ports *old, *new;
    size_t i;

    if (!ofproto_port_settings_is_valid(s)) {
        return EINVAL;
    }
    pthread_mutex_lock(&ofproto->ports_mutex);
    old = ofproto->ports;
    i = ofproto_ports_lower_bound(old, port_no);
    if (i >= old->n || old->ports[i].port_no != port_no) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOENT;
    }
    if (!memcmp(&old->ports[i].s, s, sizeof *s)) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return 0;
    }

    new = ofproto_ports_alloc(old->n);
    memcpy(new->ports, old->ports, old->n * sizeof old->ports[0]);
    new->ports[i].s = *s;
    free(ofproto_ports_replace__(ofproto, new));

    /* The port's MACs may be in VLANs it no longer carries; as in
     * ofproto_port_del(), flush only after the grace period. */
    mac_learning_flush_port(ofproto->ml, port_no);
    pthread_mutex_unlock(&ofproto->ports_mutex);
    return 0;
}

bool
ofproto_port_get(const struct ofproto *ofproto, uint16_t port_no,
                 struct ofproto_port_settings *s)
{
    const struct ofproto_port *port;

    port = ofproto_ports_find(ofproto_ports_get(ofproto), port_no);
    if (!port) {
        memset(s, 0, sizeof *s);
        return false;
    }
    *s = port->s;
    return true;
}

size_t
ofproto_n_ports(const struct ofproto *ofproto)
{
    return ofproto_ports_get(ofproto)->n;
}

bool
ofproto_has_port(const struct ofproto *ofproto, uint16_t port_no)
{
    return ofproto_ports_find(ofproto_ports_get(ofproto), port_no) != NULL;
}

bool
ofproto_port_name(const struct ofproto *ofproto, uint16_t port_no,
                  char name[OFPROTO_PORT_NAME_SIZE])
{
    const struct ofproto_port *port;

    port = ofproto_ports_find(ofproto_ports_get(ofproto), port_no);
    if (!port) {
        name[0] = '\0';
        return false;
    }
    memcpy(name, port->name, OFPROTO_PORT_NAME_SIZE);
    return true;
}

uint64_t
ofproto_generation(const struct ofproto *ofproto)
{
    /* The counters only grow, so their sum changes whenever one does.
     * Pair with the release increments in ofproto_ports_replace__() and
     * ofproto_set_rules(). */
    return (mac_learning_generation(ofproto->ml)
            + __atomic_load_n(&ofproto->port_generation, __ATOMIC_ACQUIRE)
            + __atomic_load_n(&ofproto->rule_generation, __ATOMIC_ACQUIRE));
}

const struct rule_table *
ofproto_get_rules(const struct ofproto *ofproto)
{
    /* Pairs with the release store in ofproto_set_rules(). */
    return __atomic_load_n(&ofproto->rules, __ATOMIC_ACQUIRE);
}

void
ofproto_set_rules(struct ofproto *ofproto, struct ofproto_rule **rules,
                  size_t n)
{
    struct rule_table *old = ofproto->rules;
    struct rule_table *new;
    bool changed;

    /* Mark the current rules that stay, then swap each new rule for an
     * equal current one that is not taken yet. */
    for (size_t i = 0; i < old->n; i++) {
        old->rules[i]->mark = false;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < old->n; j++) {
            if (rules[i] == old->rules[j]) {
                old->rules[j]->mark = true;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < old->n; j++) {
            struct ofproto_rule *cur = old->rules[j];

            if (rules[i] == cur) {
                break;
            }
            if (!cur->mark && ofproto_rule_equal(rules[i], cur)) {
                ofproto_rule_destroy(rules[i]);
                rules[i] = cur;
                cur->mark = true;
                break;
            }
        }
    }
    new = rule_table_create(rules, n);
    changed = new->n != old->n;
    for (size_t i = 0; i < new->n && !changed; i++) {
        changed = new->rules[i] != old->rules[i];
    }
    if (!changed) {
        free(new);
        return;
    }

    /* Pairs with the acquire load in ofproto_get_rules(). */
    __atomic_store_n(&ofproto->rules, new, __ATOMIC_RELEASE);
    /* Pairs with the acquire load in ofproto_generation(). */
    __atomic_add_fetch(&ofproto->rule_generation, 1, __ATOMIC_RELEASE);

    /* A PMD iteration polls (translating and forwarding with its flows),
     * then checks ofproto_generation() and revalidates, then announces a
     * quiescent state (pmd.c).  The first grace period ends only after
     * every PMD has begun an iteration after the increment above; that
     * iteration sees the new generation and the new table, so its
     * revalidation deletes every flow the old table decided differently
     * and every flow that credits a rule no longer in the table
     * (upcall_revalidate_rule()).  The second grace period ends only
     * after that iteration is over.  From then on no flow of the old
     * table forwards a packet, no translation holds the old table and no
     * flow points at a dropped rule, so both can be freed. */
    rcu_synchronize();
    rcu_synchronize();

    for (size_t i = 0; i < old->n; i++) {
        if (!old->rules[i]->mark) {
            ofproto_rule_destroy(old->rules[i]);
        }
    }
    free(old);
}

void
ofproto_run(struct ofproto *ofproto, long long now)
{
    mac_learning_run(ofproto->ml, now);
}

/* The bridge port 'port' is part of in 'ports': itself, or for a bond
 * member the bond (NULL if the bond is gone). */
static const struct ofproto_port *
ofproto_ports_bundle(const struct ofproto_ports *ports,
                     const struct ofproto_port *port)
{
    if (!port || port->bundle == port->port_no) {
        return port;
    }
    return ofproto_ports_find(ports, port->bundle);
}

/* The VLAN a packet with key 'flow' belongs to as NORMAL sees it, or -1
 * if its input port is not a bridge port or does not accept it.  Stores
 * in '*bundle' the bridge port that received it (the bond, for a bond
 * member).  RCU reader. */
static int
ofproto_flow_vlan(const struct ofproto *ofproto, const struct flow *flow,
                  uint16_t *bundle)
{
    const struct ofproto_ports *ports = ofproto_ports_get(ofproto);
    const struct ofproto_port *port;

    port = ofproto_ports_bundle(ports,
                                ofproto_ports_find(ports, flow->in_port));
    *bundle = port ? port->port_no : flow->in_port;
    return port ? ofproto_port_input_vlan(&port->s, flow->vlans_tci[0]) : -1;
}

void
ofproto_mac_refresh(struct ofproto *ofproto, const struct flow *flow,
                    long long now)
{
    uint16_t bundle;
    int vlan;

    if (eth_addr_is_multicast(flow->dl_src)) {
        return;
    }
    vlan = ofproto_flow_vlan(ofproto, flow, &bundle);
    if (vlan >= 0) {
        mac_learning_refresh(ofproto->ml, flow->dl_src, vlan, bundle, now);
    }
}

/* Translation: reading the flow.  Each helper returns a field and marks
 * in the mask exactly the bits it returns. */

static uint16_t
xlate_read_in_port(struct xlate_ctx *ctx)
{
    ctx->out->mask.in_port = UINT16_MAX;
    return ctx->flow.in_port;
}

static struct eth_addr
xlate_read_dl_src(struct xlate_ctx *ctx)
{
    memset(&ctx->out->mask.dl_src, 0xff, sizeof ctx->out->mask.dl_src);
    return ctx->flow.dl_src;
}

static struct eth_addr
xlate_read_dl_dst(struct xlate_ctx *ctx)
{
    memset(&ctx->out->mask.dl_dst, 0xff, sizeof ctx->out->mask.dl_dst);
    return ctx->flow.dl_dst;
}

/* Returns the bits 'bits' (network order) of the outer VLAN TCI. */
static ovs_be16
xlate_read_outer_tci(struct xlate_ctx *ctx, ovs_be16 bits)
{
    ctx->out->mask.vlans_tci[0] |= bits;
    return ctx->flow.vlans_tci[0] & bits;
}

/* Translation: output and trace. */

/* Appends 'action' to the datapath actions, or fails the translation with
 * E2BIG when they are full. */
static void
xlate_emit(struct xlate_ctx *ctx, const struct dp_action *action)
{
    struct xlate_out *out = ctx->out;

    if (out->n_actions >= UPCALL_MAX_ACTIONS) {
        if (!ctx->error) {
            ctx->error = E2BIG;
        }
        return;
    }
    out->actions[out->n_actions++] = *action;
}

static void
xlate_output(struct xlate_ctx *ctx, uint16_t port_no)
{
    struct dp_action a;

    dp_action_init(&a, DP_ACTION_OUTPUT);
    a.port = port_no;
    xlate_emit(ctx, &a);
}

/* Translation: the packet's outer VLAN tag.  These emit the actions that
 * change it and keep 'ctx->flow' in step, so that later stages see the
 * packet as it will leave. */

/* The outer TCI (VID and CFI only; 0 if untagged) as the packet is now. */
static ovs_be16
xlate_vlan_current(struct xlate_ctx *ctx)
{
    if (!ctx->vlan_known) {
        ctx->vlan_tci = xlate_read_outer_tci(ctx,
                                             htons(VLAN_VID_MASK | VLAN_CFI));
        if (!(ctx->vlan_tci & htons(VLAN_CFI))) {
            ctx->vlan_tci = 0;
        }
        ctx->vlan_known = true;
    }
    return ctx->vlan_tci;
}

/* Pushes a tag with 'tpid' and 'tci' (CFI set by the caller). */
static void
xlate_vlan_push(struct xlate_ctx *ctx, ovs_be16 tpid, ovs_be16 tci)
{
    struct dp_action a;

    xlate_vlan_current(ctx);
    dp_action_init(&a, DP_ACTION_PUSH_VLAN);
    a.vlan.tpid = tpid;
    a.vlan.tci = tci;
    xlate_emit(ctx, &a);
    memmove(&ctx->flow.vlans_tci[1], &ctx->flow.vlans_tci[0],
            sizeof ctx->flow.vlans_tci[0]);
    ctx->flow.vlans_tci[0] = tci;
    ctx->vlan_tci = tci & htons(VLAN_VID_MASK | VLAN_CFI);
}

/* Pops the outer tag, if there is one. */
static void
xlate_vlan_pop(struct xlate_ctx *ctx)
{
    struct dp_action a;

    if (!xlate_vlan_current(ctx)) {
        return;
    }
    dp_action_init(&a, DP_ACTION_POP_VLAN);
    xlate_emit(ctx, &a);
    ctx->flow.vlans_tci[0] = ctx->flow.vlans_tci[1];
    ctx->flow.vlans_tci[1] = 0;
    /* What lies under the popped tag was not looked at: assume nothing
     * more to pop, which is what a single-tagged frame has. */
    ctx->vlan_tci = 0;
}

/* Sets the bits 'mask' of the outer tag's TCI to 'tci', if tagged. */
static void
xlate_vlan_set_tci(struct xlate_ctx *ctx, ovs_be16 tci, ovs_be16 mask)
{
    struct dp_action a;

    if (!xlate_vlan_current(ctx)) {
        return;
    }
    dp_action_init(&a, DP_ACTION_SET_VLAN_TCI);
    a.vlan.tci = tci & mask;
    a.vlan.tci_mask = mask;
    xlate_emit(ctx, &a);
    ctx->flow.vlans_tci[0] = (ctx->flow.vlans_tci[0] & ~mask) | (tci & mask);
    ctx->vlan_tci = ctx->flow.vlans_tci[0] & htons(VLAN_VID_MASK | VLAN_CFI);
}

/* The VID of the packet's outer tag as it is now, 0 if untagged. */
static uint16_t
xlate_current_vid(struct xlate_ctx *ctx)
{
    return ntohs(xlate_vlan_current(ctx)) & VLAN_VID_MASK;
}

/* Makes the packet leave untagged ('vid' 0) or tagged with 'vid', with
 * the least actions; a tag that stays keeps its priority bits. */
static void
xlate_vlan_commit(struct xlate_ctx *ctx, uint16_t vid)
{
    ovs_be16 cur = xlate_vlan_current(ctx);

    if (!vid) {
        xlate_vlan_pop(ctx);
    } else if (!cur) {
        xlate_vlan_push(ctx, htons(ETH_TYPE_VLAN_8021Q),
                        htons(VLAN_CFI | vid));
    } else if ((ntohs(cur) & VLAN_VID_MASK) != vid) {
        xlate_vlan_set_tci(ctx, htons(vid), htons(VLAN_VID_MASK));
    }
}

/* Appends one line to the trace, if tracing. */
static void PRINTF_FORMAT(2, 3)
xlate_report(struct xlate_ctx *ctx, const char *format, ...)
{
    static const char ellipsis[] = "...\n";
    struct xlate_out *out = ctx->out;
    char line[256];
    va_list args;
    size_t len;
    int n;

    if (!ctx->tracing || ctx->trace_full) {
        return;
    }
    va_start(args, format);
    n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    len = n < 0 ? 0 : MIN((size_t) n, sizeof line - 1);

    /* Keep room for the ellipsis and the NUL. */
    if (out->trace_len + len + 1 + sizeof ellipsis > sizeof out->trace) {
        memcpy(&out->trace[out->trace_len], ellipsis, sizeof ellipsis);
        out->trace_len += sizeof ellipsis - 1;
        ctx->trace_full = true;
        return;
    }
    memcpy(&out->trace[out->trace_len], line, len);
    out->trace_len += len;
    out->trace[out->trace_len++] = '\n';
    out->trace[out->trace_len] = '\0';
}

/* Room for "65535 (name)". */
#define XLATE_PORT_STRING_SIZE (OFPROTO_PORT_NAME_SIZE + 8)

/* Formats 'port_no' and its name for the trace into 'buf'. */
static const char *
xlate_port_string(const struct xlate_ctx *ctx, uint16_t port_no,
                  char buf[XLATE_PORT_STRING_SIZE])
{
    const struct ofproto_port *port = ofproto_ports_find(ctx->ports, port_no);

    snprintf(buf, XLATE_PORT_STRING_SIZE, "%"PRIu16" (%s)", port_no,
             port ? port->name : "unknown");
    return buf;
}

/* The NORMAL action. */

/* Learns the source of the packet on 'in_port' in 'vlan'. */
static void
xlate_normal_learn(struct xlate_ctx *ctx, struct eth_addr dl_src,
                   uint16_t vlan, uint16_t in_port)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    enum mac_learning_result result;

    if (eth_addr_is_multicast(dl_src)) {
        xlate_report(ctx, "NORMAL: source "ETH_ADDR_FMT" is multicast, "
                     "not learning", ETH_ADDR_ARGS(dl_src));
        return;
    }
    result = mac_learning_learn(ctx->ofproto->ml, dl_src, vlan, in_port,
                                ctx->now);
    if (result == ML_MOVED) {
        COVERAGE_INC(normal_mac_moved);
    }
    if (!ctx->tracing) {
        return;
    }
    xlate_port_string(ctx, in_port, port_s);
    switch (result) {
    case ML_NEW:
        xlate_report(ctx, "NORMAL: learned "ETH_ADDR_FMT" on port %s "
                     "vlan %"PRIu16, ETH_ADDR_ARGS(dl_src), port_s, vlan);
        break;
    case ML_MOVED:
        xlate_report(ctx, "NORMAL: "ETH_ADDR_FMT" moved to port %s "
                     "vlan %"PRIu16, ETH_ADDR_ARGS(dl_src), port_s, vlan);
        break;
    case ML_NOCHANGE:
        break;
    }
}

/* Formats how 'port' carries VLANs, for the trace, into 'buf'. */
static const char *
xlate_port_vlan_string(const struct ofproto_port *port, char buf[64])
{
    const struct ofproto_port_settings *s = &port->s;

    if (s->vlan_mode == OFPROTO_VLAN_TRUNK) {
        snprintf(buf, 64, "trunk");
    } else {
        snprintf(buf, 64, "%s vlan %"PRIu16,
                 ofproto_vlan_mode_to_string(s->vlan_mode), s->tag);
    }
    return buf;
}

/* Outputs the packet as it is now to 'port'.  A bond gets one
 * DP_ACTION_BOND_OUTPUT: the PMD picks the member, by the balance-slb hash
 * of the source MAC and VLAN 'vlan' (if negative: of the packet's outer
 * tag, read only then, so that other outputs leave it out of the mask) or,
 * in the other modes, by the packet's RSS hash. */
static void
xlate_port_output(struct xlate_ctx *ctx, const struct ofproto_port *port,
                  int vlan)
{
    if (port->is_bond) {
        struct dp_action a;

        dp_action_init(&a, DP_ACTION_BOND_OUTPUT);
        a.port = port->port_no;
        if (port->bond_mode == BOND_MODE_BALANCE_SLB) {
            a.hash = bond_slb_hash(xlate_read_dl_src(ctx),
                                   vlan < 0 ? xlate_current_vid(ctx) : vlan);
        }
        xlate_emit(ctx, &a);
    } else {
        xlate_output(ctx, port->port_no);
    }
}

/* Outputs a frame of 'vlan' to 'port', tagged or not as the port wants
 * it. */
static void
xlate_normal_output(struct xlate_ctx *ctx, const struct ofproto_port *port,
                    uint16_t vlan)
{
    xlate_vlan_commit(ctx, ofproto_port_output_vid(&port->s, vlan));
    xlate_port_output(ctx, port, vlan);
}

/* Outputs to every bridge port that carries 'vlan' except 'in_port' (a
 * bond member is not one: its bond is), in port number order within two
 * groups: first the ports that take the frame tagged if it is tagged now,
 * else those that take it untagged; then the others.  All tagged outputs
 * carry the same VID, so this emits at most two VLAN actions, and a
 * priority-tagged frame keeps its priority on the tagged outputs. */
static void
xlate_normal_flood(struct xlate_ctx *ctx, uint16_t in_port, uint16_t vlan)
{
    bool tagged_first = xlate_vlan_current(ctx) != 0;

    for (int pass = 0; pass < 2; pass++) {
        bool tagged = pass == 0 ? tagged_first : !tagged_first;

        for (size_t i = 0; i < ctx->ports->n; i++) {
            const struct ofproto_port *port = &ctx->ports->ports[i];

            if (port->port_no != in_port
                && port->bundle == port->port_no
                && ofproto_port_settings_carries(&port->s, vlan)
                && (ofproto_port_output_vid(&port->s, vlan) != 0) == tagged) {
                xlate_normal_output(ctx, port, vlan);
            }
        }
    }
}

/* Reports in the trace and counts that 'port' does not accept a frame
 * with outer TCI 'tci' (VID and CFI). */
static void
xlate_normal_drop_vlan(struct xlate_ctx *ctx, const struct ofproto_port *port,
                       ovs_be16 tci)
{
    uint16_t vid = ntohs(tci) & VLAN_VID_MASK;
    char vlan_s[64];

    if ((tci & htons(VLAN_CFI)) && vid) {
        COVERAGE_INC(normal_drop_vlan_not_allowed);
        xlate_report(ctx, "NORMAL: port %s (%s) does not accept tagged vlan "
                     "%"PRIu16", dropping", port->name,
                     xlate_port_vlan_string(port, vlan_s), vid);
    } else {
        COVERAGE_INC(normal_drop_untagged_not_allowed);
        xlate_report(ctx, "NORMAL: port %s (%s) does not accept untagged "
                     "or priority-tagged frames, dropping", port->name,
                     xlate_port_vlan_string(port, vlan_s));
    }
}

/* Returns true if bond 'bond' admits a frame from 'dl_src' in 'vlan'
 * received on its member 'in_port'; otherwise counts and traces the drop.
 * Without LACP the bond's partner may send a frame back on another member
 * (a flood it takes for its own), so, as Open vSwitch does for SLB bonds:
 * an active-backup bond takes frames on its active member only, and a
 * balance bond drops a frame whose source MAC is learned on another
 * bridge port, since the MAC would otherwise move to the bond.  Reads the
 * MAC table, whose changes revalidate the flows. */
static bool
xlate_bond_admits(struct xlate_ctx *ctx, const struct ofproto_port *bond,
                  uint16_t in_port, struct eth_addr dl_src, uint16_t vlan)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    int learned;

    if (bond->bond_mode == BOND_MODE_ACTIVE_BACKUP) {
        if (in_port != bond->bond_active) {
            COVERAGE_INC(bond_drop_backup_member);
            xlate_report(ctx, "NORMAL: bond %s received on member %s, "
                         "which is not active, dropping", bond->name,
                         xlate_port_string(ctx, in_port, port_s));
            return false;
        }
        return true;
    }
    if (eth_addr_is_multicast(dl_src)) {
        return true;
    }
    learned = mac_learning_lookup(ctx->ofproto->ml, dl_src, vlan, ctx->now);
    if (learned >= 0 && learned != bond->port_no) {
        COVERAGE_INC(bond_drop_reflection);
        xlate_report(ctx, "NORMAL: bond %s: source "ETH_ADDR_FMT" is "
                     "learned on port %s, dropping a reflection",
                     bond->name, ETH_ADDR_ARGS(dl_src),
                     xlate_port_string(ctx, learned, port_s));
        return false;
    }
    return true;
}

/* A learning bridge.  It consults in_port; then, if that is a bridge port,
 * the outer VLAN VID and CFI; then, if the port accepts that VLAN, dl_src
 * and dl_dst, all of them in full.  The outer PCP is never read: NORMAL
 * changes a tag's VID with a masked set that keeps the priority, and a
 * pushed tag gets priority 0, so no decision depends on it.
 *
 * Wider masks would be possible in a few cases: an access port only needs
 * to know whether the VID is 0, a multicast dl_dst floods whatever its
 * other bits, and a multicast dl_src is not learned.  They stay exact
 * anyway: the flood and the output encapsulation need the VID and CFI
 * (whether there is a tag to pop or to rewrite) as soon as anything is
 * output, and every other shape would add a dpcls subtable that every
 * miss searches, for little gain. */
static void
xlate_normal(struct xlate_ctx *ctx)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    const struct ofproto_port *in, *out;
    struct eth_addr dl_src, dl_dst;
    uint16_t in_port, vlan;
    ovs_be16 tci;
    int out_port;
    int in_vlan;

    in_port = xlate_read_in_port(ctx);
    in = ofproto_ports_bundle(ctx->ports,
                              ofproto_ports_find(ctx->ports, in_port));
    if (in && in->port_no != in_port) {
        xlate_report(ctx, "NORMAL: in_port %"PRIu16" is a member of bond %s",
                     in_port, in->name);
    }
    if (!in) {
        COVERAGE_INC(normal_drop_unknown_in_port);
        xlate_report(ctx, "NORMAL: in_port %"PRIu16" is not a port of "
                     "bridge %s, dropping", in_port, ctx->ofproto->name);
        return;
    }
    tci = xlate_read_outer_tci(ctx, htons(VLAN_VID_MASK | VLAN_CFI));
    in_vlan = ofproto_port_input_vlan(&in->s, tci);
    if (in_vlan < 0) {
        xlate_normal_drop_vlan(ctx, in, tci);
        return;
    }
    vlan = in_vlan;
    dl_src = xlate_read_dl_src(ctx);
    dl_dst = xlate_read_dl_dst(ctx);

    if (in->is_bond && !xlate_bond_admits(ctx, in, in_port, dl_src, vlan)) {
        return;
    }
    /* From here on the bridge port is what counts, not the member. */
    in_port = in->port_no;
    if (ctx->learn) {
        xlate_normal_learn(ctx, dl_src, vlan, in_port);
    }

    if (eth_addr_is_multicast(dl_dst)) {
        xlate_report(ctx, "NORMAL: %s destination, flooding",
                     eth_addr_is_broadcast(dl_dst) ? "broadcast"
                                                   : "multicast");
        xlate_normal_flood(ctx, in_port, vlan);
        return;
    }

    out_port = mac_learning_lookup(ctx->ofproto->ml, dl_dst, vlan, ctx->now);
    if (out_port < 0) {
        xlate_report(ctx, "NORMAL: no learned MAC for destination, flooding");
        xlate_normal_flood(ctx, in_port, vlan);
    } else if (out_port == in_port) {
        COVERAGE_INC(normal_drop_learned_on_input);
        xlate_report(ctx, "NORMAL: learned port is input port, dropping");
    } else if (!(out = ofproto_ports_find(ctx->ports, out_port))) {
        /* The port is being removed; its MACs are about to be flushed. */
        COVERAGE_INC(normal_drop_learned_port_gone);
        xlate_report(ctx, "NORMAL: learned port is unknown, dropping");
    } else if (!ofproto_port_settings_carries(&out->s, vlan)) {
        /* The port's VLANs changed; its MACs are about to be flushed. */
        COVERAGE_INC(normal_drop_learned_port_vlan);
        xlate_report(ctx, "NORMAL: learned port %s does not carry vlan "
                     "%"PRIu16", dropping",
                     xlate_port_string(ctx, out_port, port_s), vlan);
    } else {
        if (ctx->tracing) {
            xlate_report(ctx, "NORMAL: forwarding to learned port %s",
                         xlate_port_string(ctx, out_port, port_s));
        }
        xlate_normal_output(ctx, out, vlan);
    }
}

/* The rule table. */

/* Carries out the OUTPUT action of a rule: never to the input port, as in
 * OVS, nor to a port no longer in the bridge. */
static void
xlate_rule_output(struct xlate_ctx *ctx, uint16_t port_no)
{
    const struct ofproto_port *port = ofproto_ports_find(ctx->ports,
                                                         port_no);
    char port_s[XLATE_PORT_STRING_SIZE];

    if (port_no == xlate_read_in_port(ctx)) {
        xlate_report(ctx, "rule: skipping output to the input port %s",
                     xlate_port_string(ctx, port_no, port_s));
    } else if (!port) {
        xlate_report(ctx, "rule: skipping output to port %"PRIu16", not a "
                     "port of the bridge", port_no);
    } else {
        xlate_port_output(ctx, port, -1);
    }
}

/* Outputs the packet as it is now to every bridge port but the one it
 * came in on (for a bond member: its bond).  Members are reached through
 * their bond. */
static void
xlate_rule_flood(struct xlate_ctx *ctx)
{
    uint16_t in_port = xlate_read_in_port(ctx);
    const struct ofproto_port *in = ofproto_ports_find(ctx->ports, in_port);
    uint16_t in_bundle = in ? in->bundle : in_port;

    for (size_t i = 0; i < ctx->ports->n; i++) {
        const struct ofproto_port *port = &ctx->ports->ports[i];

        if (port->bundle == port->port_no && port->port_no != in_bundle) {
            xlate_port_output(ctx, port, -1);
        }
    }
}

/* Sets the outer tag's bits 'mask' to 'tci', pushing an 802.1Q tag first
 * if the packet is untagged (mod_vlan_vid, mod_vlan_pcp). */
static void
xlate_rule_mod_vlan(struct xlate_ctx *ctx, ovs_be16 tci, ovs_be16 mask)
{
    if (!xlate_vlan_current(ctx)) {
        xlate_vlan_push(ctx, htons(ETH_TYPE_VLAN_8021Q),
                        htons(VLAN_CFI) | (tci & mask));
    } else {
        xlate_vlan_set_tci(ctx, tci, mask);
    }
}

/* Emits a set action of 'type' whose argument 'a' was already filled,
 * keeping 'ctx->flow' in step. */
static void
xlate_rule_set(struct xlate_ctx *ctx, const struct ofpact *oa)
{
    struct dp_action a;

    switch ((enum ofpact_type) oa->type) {
    case OFPACT_SET_ETH_SRC:
        dp_action_init(&a, DP_ACTION_SET_ETH_SRC);
        a.mac = oa->mac;
        ctx->flow.dl_src = oa->mac;
        break;
    case OFPACT_SET_ETH_DST:
        dp_action_init(&a, DP_ACTION_SET_ETH_DST);
        a.mac = oa->mac;
        ctx->flow.dl_dst = oa->mac;
        break;
    case OFPACT_SET_IPV4_SRC:
        dp_action_init(&a, DP_ACTION_SET_IPV4_SRC);
        a.ipv4 = oa->ipv4;
        ctx->flow.nw_src = oa->ipv4;
        break;
    case OFPACT_SET_IPV4_DST:
        dp_action_init(&a, DP_ACTION_SET_IPV4_DST);
        a.ipv4 = oa->ipv4;
        ctx->flow.nw_dst = oa->ipv4;
        break;
    case OFPACT_SET_TP_SRC:
        dp_action_init(&a, DP_ACTION_SET_TP_SRC);
        a.tp_port = oa->tp_port;
        ctx->flow.tp_src = oa->tp_port;
        break;
    case OFPACT_SET_TP_DST:
        dp_action_init(&a, DP_ACTION_SET_TP_DST);
        a.tp_port = oa->tp_port;
        ctx->flow.tp_dst = oa->tp_port;
        break;
    default:
        return;
    }
    xlate_emit(ctx, &a);
}

/* Looks the packet up in the rule table and carries out the actions of
 * the rule that matches; drops if none does.  A bridge without rules is a
 * plain NORMAL switch. */
static void
xlate_rules(struct xlate_ctx *ctx)
{
    const struct rule_table *table = ofproto_get_rules(ctx->ofproto);
    struct ofproto_rule *rule;

    if (!table->n) {
        ctx->normal_ran = true;
        xlate_normal(ctx);
        return;
    }
    rule = rule_table_lookup(table, &ctx->flow, &ctx->out->mask);
    if (!rule) {
        COVERAGE_INC(rule_table_miss);
        xlate_report(ctx, "rules: no rule matches, dropping");
        return;
    }
    ctx->out->rule_stats = &rule->stats;
    if (ctx->tracing) {
        char buf[FLOW_FORMAT_BUFSIZE + 256];

        xlate_report(ctx, "rules: %s, cookie=0x%"PRIx64,
                     ofproto_rule_format(rule, NULL, NULL, buf, sizeof buf),
                     rule->cookie);
    }
    for (size_t i = 0; i < rule->n_ofpacts && !ctx->error; i++) {
        const struct ofpact *a = &rule->ofpacts[i];

        switch ((enum ofpact_type) a->type) {
        case OFPACT_OUTPUT:
            xlate_rule_output(ctx, a->port);
            break;
        case OFPACT_NORMAL:
            ctx->normal_ran = true;
            xlate_normal(ctx);
            break;
        case OFPACT_FLOOD:
            xlate_rule_flood(ctx);
            break;
        case OFPACT_PUSH_VLAN:
            xlate_vlan_push(ctx, a->tpid, htons(VLAN_CFI));
            break;
        case OFPACT_POP_VLAN:
            xlate_vlan_pop(ctx);
            break;
        case OFPACT_SET_VLAN_VID:
            xlate_rule_mod_vlan(ctx, htons(a->vid), htons(VLAN_VID_MASK));
            break;
        case OFPACT_SET_VLAN_PCP:
            xlate_rule_mod_vlan(ctx, htons(a->pcp << VLAN_PCP_SHIFT),
                                htons(VLAN_PCP_MASK));
            break;
        case OFPACT_SET_ETH_SRC:
        case OFPACT_SET_ETH_DST:
        case OFPACT_SET_IPV4_SRC:
        case OFPACT_SET_IPV4_DST:
        case OFPACT_SET_TP_SRC:
        case OFPACT_SET_TP_DST:
            xlate_rule_set(ctx, a);
            break;
        }
    }
}

/* Translation entry points. */

/* Translates 'flow' into 'out'.  Stores in '*normal_ranp' (if nonnull)
 * whether NORMAL ran. */
static int
xlate__(struct ofproto *ofproto, const struct flow *flow, bool learn,
        bool tracing, long long now, struct xlate_out *out,
        bool *normal_ranp)
{
    struct xlate_ctx ctx = {
        .ofproto = ofproto,
        .ports = ofproto_ports_get(ofproto),
        .flow = *flow,
        .out = out,
        .now = now,
        .learn = learn,
        .tracing = tracing,
    };

    out->n_actions = 0;
    memset(&out->mask, 0, sizeof out->mask);
    out->rule_stats = NULL;
    out->trace_len = 0;
    out->trace[0] = '\0';

    xlate_rules(&ctx);

    if (tracing) {
        out->final_flow = ctx.flow;
    }
    if (ctx.error) {
        out->n_actions = 0;
    }
    if (normal_ranp) {
        *normal_ranp = ctx.normal_ran;
    }
    return ctx.error;
}

int
upcall_xlate(struct ofproto *ofproto, const struct flow *flow, bool learn,
             long long now, struct xlate_out *out)
{
    return xlate__(ofproto, flow, learn, false, now, out, NULL);
}

int
upcall_xlate_trace(struct ofproto *ofproto, const struct flow *flow,
                   bool learn, long long now, struct xlate_out *out)
{
    return xlate__(ofproto, flow, learn, true, now, out, NULL);
}

/* True if 'a' has no 1-bit outside 'b'. */
static bool
flow_mask_is_subset(const struct flow *a, const struct flow *b)
{
    const uint8_t *pa = (const uint8_t *) a;
    const uint8_t *pb = (const uint8_t *) b;

    for (size_t i = 0; i < sizeof *a; i += sizeof(uint64_t)) {
        uint64_t wa, wb;

        memcpy(&wa, pa + i, sizeof wa);
        memcpy(&wb, pb + i, sizeof wb);
        if (wa & ~wb) {
            return false;
        }
    }
    return true;
}

/* True if the source of 'flow' needs no learning: it is multicast, or it
 * is learned on flow->in_port (its bond, for a bond member), or the flow
 * does not come from a bridge port or the port does not accept its VLAN
 * (NORMAL learns nothing then). */
static bool
source_is_learned(struct ofproto *ofproto, const struct flow *flow,
                  long long now)
{
    uint16_t bundle;
    int vlan;

    if (eth_addr_is_multicast(flow->dl_src)) {
        return true;
    }
    vlan = ofproto_flow_vlan(ofproto, flow, &bundle);
    return (vlan < 0
            || mac_learning_lookup(ofproto->ml, flow->dl_src, vlan, now)
               == bundle);
}

static bool
upcall_revalidate__(struct ofproto *ofproto, const struct flow *masked_flow,
                    const struct flow *mask, const struct dp_action *actions,
                    uint32_t n_actions, bool check_rule,
                    const struct rule_stats *rule_stats, long long now)
{
    struct xlate_out out;
    bool normal_ran;

    if (xlate__(ofproto, masked_flow, false, false, now, &out,
                &normal_ran)) {
        return false;
    }
    if (check_rule && out.rule_stats != rule_stats) {
        return false;
    }
    if (normal_ran && !source_is_learned(ofproto, masked_flow, now)) {
        /* Packets that hit the flow would never reach learning: send the
         * next one to the slow path (after fdb/flush or an age-out). */
        return false;
    }
    return (flow_mask_is_subset(&out.mask, mask)
            && out.n_actions == n_actions
            && !memcmp(out.actions, actions, n_actions * sizeof *actions));
}

bool
upcall_revalidate(struct ofproto *ofproto, const struct flow *masked_flow,
                  const struct flow *mask, const struct dp_action *actions,
                  uint32_t n_actions, long long now)
{
    return upcall_revalidate__(ofproto, masked_flow, mask, actions,
                               n_actions, false, NULL, now);
}

bool
upcall_revalidate_rule(struct ofproto *ofproto,
                       const struct flow *masked_flow,
                       const struct flow *mask,
                       const struct dp_action *actions, uint32_t n_actions,
                       const struct rule_stats *rule_stats, long long now)
{
    return upcall_revalidate__(ofproto, masked_flow, mask, actions,
                               n_actions, true, rule_stats, now);
}
