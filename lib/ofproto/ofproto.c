/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The bridge: its port set (ports, their VLAN settings, bonds and their
 * members), its MAC table, its rule table and the generation counter.
 * The structures are in ofproto-private.h, which xlate.c reads while it
 * translates; this file is their only writer.
 *
 * Writers of the port set copy it, change the copy, publish it with RCU
 * and free the old set after a grace period, so readers need no lock.
 */
#include <autoconf.h>
#include "ofproto/ofproto.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "ofproto/bond.h"
#include "ofproto/mac-learning.h"
#include "ofproto/mirror.h"
#include "ofproto/ofproto-private.h"
#include "ofproto/ofproto-rules.h"
#include "base/rcu.h"
#include "base/util.h"

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

int
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

uint16_t
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
    ofproto_changed__(ofproto);
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
    change_log_init(&ofproto->log);
    mac_learning_set_change_log(ofproto->ml, &ofproto->log, NULL);
    pthread_mutex_init(&ofproto->ports_mutex, NULL);
    ofproto->ports = ofproto_ports_alloc(0);
    ofproto->rules = rule_table_create(NULL, 0);
    ofproto->mirrors = mirror_bridge_create();
    return ofproto;
}

void
ofproto_wait_revalidated(struct ofproto *ofproto)
{
    if (ofproto->dp && ofproto->dp->wait_revalidated) {
        ofproto->dp->wait_revalidated(ofproto->dp->aux);
    } else {
        rcu_synchronize();
        rcu_synchronize();
    }
}

void
ofproto_changed__(struct ofproto *ofproto)
{
    if (ofproto->change_seq) {
        /* Pairs with the acquire load of the counter in pmd.c. */
        __atomic_add_fetch(ofproto->change_seq, 1, __ATOMIC_RELEASE);
    }
}

void
ofproto_attach(struct ofproto *ofproto, unsigned int index,
               const struct ofproto_datapath *dp)
{
    uint64_t *change_seq = dp->change_seq;

    ovs_assert(index < OFPROTO_MAX_BRIDGES);
    ofproto->index = index;
    ofproto->dp = dp;
    ofproto->change_seq = change_seq;
    change_log_set_change_seq(&ofproto->log, change_seq);
    mac_learning_set_change_log(ofproto->ml, &ofproto->log, change_seq);
    /* Every generation counter only grows and bumps '*change_seq' too,
     * so a bridge that had this index before never reached this value:
     * a PMD that remembers its generation sees the change. */
    __atomic_add_fetch(&ofproto->port_generation,
                       __atomic_load_n(change_seq, __ATOMIC_RELAXED) + 1,
                       __ATOMIC_RELEASE);
    ofproto_changed__(ofproto);
}

unsigned int
ofproto_index(const struct ofproto *ofproto)
{
    return ofproto->index;
}

int
ofproto_port_set_patch(struct ofproto *ofproto, uint16_t port_no,
                       struct ofproto *peer, uint16_t peer_port)
{
    struct ofproto_ports *old, *new;
    struct ofproto_port *port;
    size_t i;

    pthread_mutex_lock(&ofproto->ports_mutex);
    old = ofproto->ports;
    i = ofproto_ports_lower_bound(old, port_no);
    if (i >= old->n || old->ports[i].port_no != port_no) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOENT;
    }
    port = &old->ports[i];
    if (port->is_patch && port->patch_peer == peer
        && (!peer || port->patch_peer_port == peer_port)) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return 0;
    }
    new = ofproto_ports_alloc(old->n);
    memcpy(new->ports, old->ports, old->n * sizeof old->ports[0]);
    port = &new->ports[i];
    port->is_patch = true;
    port->patch_peer = peer;
    port->patch_peer_port = peer ? peer_port : 0;
    free(ofproto_ports_replace__(ofproto, new));
    pthread_mutex_unlock(&ofproto->ports_mutex);
    return 0;
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
    mirror_bridge_destroy(ofproto->mirrors);
    free(ofproto->ports);
    pthread_mutex_destroy(&ofproto->ports_mutex);
    mac_learning_destroy(ofproto->ml);
    change_log_uninit(&ofproto->log);
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

int
ofproto_port_set_link(struct ofproto *ofproto, uint16_t port_no, bool up)
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
    if (old->ports[i].link_down == !up) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return 0;
    }
    new = ofproto_ports_alloc(old->n);
    memcpy(new->ports, old->ports, old->n * sizeof old->ports[0]);
    new->ports[i].link_down = !up;
    /* Pairs with the acquire load in ofproto_ports_get(). */
    __atomic_store_n(&ofproto->ports, new, __ATOMIC_RELEASE);
    /* Not a new port set for the flows: only those that flood or output
     * to the port depend on its link, and the change log names them
     * (after the store above, so a PMD that reads the keys translates
     * with the new set).  A tenant may flap its link many times a
     * second. */
    ofproto_port_link_changed(ofproto, port_no);
    rcu_synchronize();
    free(old);
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

uint64_t
ofproto_table_generation(const struct ofproto *ofproto)
{
    /* Same pairing as ofproto_generation(). */
    return (mac_learning_table_generation(ofproto->ml)
            + __atomic_load_n(&ofproto->port_generation, __ATOMIC_ACQUIRE)
            + __atomic_load_n(&ofproto->rule_generation, __ATOMIC_ACQUIRE));
}

const struct change_log *
ofproto_change_log(const struct ofproto *ofproto)
{
    return &ofproto->log;
}

void
ofproto_port_link_changed(struct ofproto *ofproto, uint16_t port_no)
{
    change_log_append(&ofproto->log, change_key_port(port_no));
    change_log_append(&ofproto->log, change_key_flood());
}

const struct rule_table *
ofproto_get_rules(const struct ofproto *ofproto)
{
    /* Pairs with the release store in ofproto_set_rules(). */
    return __atomic_load_n(&ofproto->rules, __ATOMIC_ACQUIRE);
}

void
ofproto_set_forward_bpdu(struct ofproto *ofproto, bool forward_bpdu)
{
    if (ofproto_get_forward_bpdu(ofproto) == forward_bpdu) {
        return;
    }
    __atomic_store_n(&ofproto->forward_bpdu, forward_bpdu,
                     __ATOMIC_RELAXED);
    /* A translation that reads the new generation sees the new setting:
     * pairs with the acquire load in ofproto_generation(). */
    __atomic_add_fetch(&ofproto->rule_generation, 1, __ATOMIC_RELEASE);
    ofproto_changed__(ofproto);
    ofproto_wait_revalidated(ofproto);
}

bool
ofproto_get_forward_bpdu(const struct ofproto *ofproto)
{
    return __atomic_load_n(&ofproto->forward_bpdu, __ATOMIC_RELAXED);
}

void
ofproto_set_rules_edited(struct ofproto *ofproto, bool edited)
{
    ofproto->rules_edited = edited;
}

bool
ofproto_get_rules_edited(const struct ofproto *ofproto)
{
    return ofproto->rules_edited;
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
    ofproto_changed__(ofproto);

    /* Once the datapath says every flow reflects the change, no flow of
     * the old table forwards a packet and none points at a dropped rule
     * (upcall_revalidate_rule() deletes those); the wait ends with a
     * grace period, so no translation holds the old table either, and
     * both can be freed. */
    ofproto_wait_revalidated(ofproto);

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

int
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

bool
ofproto_mac_refresh_entry(const struct ofproto *ofproto,
                          const struct flow *flow,
                          struct mac_learning_refresh *r)
{
    uint16_t bundle;
    int vlan;

    if (eth_addr_is_multicast(flow->dl_src)) {
        return false;
    }
    vlan = ofproto_flow_vlan(ofproto, flow, &bundle);
    if (vlan < 0) {
        return false;
    }
    r->mac = flow->dl_src;
    r->vlan = vlan;
    r->port = bundle;
    return true;
}
