/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Bond logic: members and their states, the assignment of the 256 hash
 * buckets to members (failover, rebalance by load, active-backup
 * selection), publication of the bucket map to the PMDs through RCU, and
 * bond/show's text and JSON.  Pure control-thread logic: the datapath
 * feeds it link events and port numbers and reads the published map (see
 * bond.h for the thread rules).
 */
#include <autoconf.h>
#include "ofproto/bond.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "packet/hash.h"
#include "base/ds.h"
#include "base/rcu.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(bond);

/* bond_rebalance() stops once the gap between the most and the least
 * loaded member is at most 1/BOND_TOLERANCE_DIV of the larger load or
 * below BOND_TOLERANCE_MIN bytes: moving flows has a cost (reordering),
 * small gaps are not worth it. */
#define BOND_TOLERANCE_DIV 16
#define BOND_TOLERANCE_MIN (64 * 1024)

/* A member interface. */
struct bond_member {
    char *name;                 /* Interface name. */
    uint16_t port_no;           /* Datapath port. */
    bool may_enable;            /* Link up (link monitor). */
    bool admin;                 /* Not disabled by bond/disable-member. */
    bool enabled;               /* 'may_enable' && 'admin'. */
    struct eth_addr mac;        /* For "active member mac". */
};

static const char *const bond_mode_names[] = {
    [BOND_MODE_ACTIVE_BACKUP] = "active-backup",
    [BOND_MODE_BALANCE_SLB] = "balance-slb",
    [BOND_MODE_BALANCE_TCP] = "balance-tcp",
};

uint32_t
bond_slb_hash(struct eth_addr mac, uint16_t vlan)
{
    uint32_t hash = 0;

    hash = hash_add(hash, ((uint32_t) mac.ea[0] << 24)
                    | ((uint32_t) mac.ea[1] << 16)
                    | ((uint32_t) mac.ea[2] << 8) | mac.ea[3]);
    hash = hash_add(hash, ((uint32_t) mac.ea[4] << 24)
                    | ((uint32_t) mac.ea[5] << 16) | (vlan & 0xfff));
    hash = hash_finish(hash, 8);
    /* The top bit is not part of the bucket; setting it keeps 0 free for
     * "use the RSS hash" in DP_ACTION_BOND_OUTPUT. */
    return hash | 0x80000000u;
}

bool
bond_mode_from_string(const char *name, enum bond_mode *mode)
{
    for (size_t i = 0; i < ARRAY_SIZE(bond_mode_names); i++) {
        if (!strcmp(name, bond_mode_names[i])) {
            *mode = i;
            return true;
        }
    }
    return false;
}

const char *
bond_mode_to_string(enum bond_mode mode)
{
    return (size_t) mode < ARRAY_SIZE(bond_mode_names)
           ? bond_mode_names[mode] : "unknown";
}

static bool
bond_is_balance__(const struct bond *bond)
{
    return bond->mode != BOND_MODE_ACTIVE_BACKUP;
}

/* Balance bond that rebalances: what Open vSwitch calls "balanced". */
static bool
bond_is_balanced__(const struct bond *bond)
{
    return bond_is_balance__(bond) && bond->rebalance_interval > 0;
}

static struct bond_member *
bond_lookup_port__(const struct bond *bond, uint16_t port_no)
{
    for (size_t i = 0; i < bond->n_members; i++) {
        if (bond->members[i]->port_no == port_no) {
            return bond->members[i];
        }
    }
    return NULL;
}

static struct bond_member *
bond_lookup_name__(const struct bond *bond, const char *name)
{
    for (size_t i = 0; i < bond->n_members; i++) {
        if (!strcmp(bond->members[i]->name, name)) {
            return bond->members[i];
        }
    }
    return NULL;
}

static size_t
bond_member_index__(const struct bond *bond, const struct bond_member *m)
{
    for (size_t i = 0; i < bond->n_members; i++) {
        if (bond->members[i] == m) {
            return i;
        }
    }
    return SIZE_MAX;
}

/* Fills 'loads' and 'counts' (one per member, by index) from the buckets'
 * assignment. */
static void
bond_member_totals__(const struct bond *bond, uint64_t *loads, int *counts)
{
    memset(loads, 0, bond->n_members * sizeof *loads);
    memset(counts, 0, bond->n_members * sizeof *counts);
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        size_t i;

        if (!bond->buckets[b]) {
            continue;
        }
        i = bond_member_index__(bond, bond->buckets[b]);
        if (i == SIZE_MAX) {
            continue;
        }
        loads[i] += bond->bucket_load[b];
        counts[i]++;
    }
}

/* Returns the index of the enabled member with the least load (ties: fewer
 * buckets, then lower port number), or SIZE_MAX if none is enabled. */
static size_t
bond_least_loaded__(const struct bond *bond, const uint64_t *loads,
                    const int *counts)
{
    size_t best = SIZE_MAX;

    for (size_t i = 0; i < bond->n_members; i++) {
        const struct bond_member *m = bond->members[i];

        if (!m->enabled) {
            continue;
        }
        if (best == SIZE_MAX
            || loads[i] < loads[best]
            || (loads[i] == loads[best]
                && (counts[i] < counts[best]
                    || (counts[i] == counts[best]
                        && m->port_no < bond->members[best]->port_no)))) {
            best = i;
        }
    }
    return best;
}

/* Sorts bucket numbers by descending load, ties by bucket number. */
static const struct bond *bond_sort_bond__;

static int
bond_compare_buckets__(const void *a_, const void *b_)
{
    const uint16_t *a = a_;
    const uint16_t *b = b_;
    uint64_t la = bond_sort_bond__->bucket_load[*a];
    uint64_t lb = bond_sort_bond__->bucket_load[*b];

    if (la != lb) {
        return la > lb ? -1 : 1;
    }
    return *a < *b ? -1 : *a > *b;
}

/* Folds what the PMDs counted since the last call into 'bucket_load'. */
static void
bond_collect__(struct bond *bond)
{
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        uint64_t total = 0;

        for (int p = 0; p < BOND_MAX_PMDS; p++) {
            /* Pairs with the relaxed store in bond_map_account(): only
             * whole values matter, not their order. */
            total += __atomic_load_n(&bond->loads[p].tx_bytes[b],
                                     __ATOMIC_RELAXED);
        }
        bond->bucket_load[b] += total - bond->bucket_seen[b];
        bond->bucket_seen[b] = total;
    }
}

/* Balance modes: gives every bucket that has no enabled member to the
 * least loaded enabled member, heaviest bucket first, or leaves it
 * unassigned if no member is enabled.  Only orphaned buckets move. */
static void
bond_assign_orphans__(struct bond *bond)
{
    uint16_t orphans[BOND_N_BUCKETS];
    uint64_t *loads;
    int *counts;
    int n = 0;

    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        if (bond->buckets[b] && !bond->buckets[b]->enabled) {
            bond->buckets[b] = NULL;
        }
        if (!bond->buckets[b]) {
            orphans[n++] = b;
        }
    }
    if (!n || !bond->n_members) {
        return;
    }

    bond_sort_bond__ = bond;
    qsort(orphans, n, sizeof *orphans, bond_compare_buckets__);
    bond_sort_bond__ = NULL;

    loads = xcalloc(bond->n_members, sizeof *loads);
    counts = xcalloc(bond->n_members, sizeof *counts);
    bond_member_totals__(bond, loads, counts);
    for (int i = 0; i < n; i++) {
        size_t to = bond_least_loaded__(bond, loads, counts);

        if (to == SIZE_MAX) {
            break;
        }
        bond->buckets[orphans[i]] = bond->members[to];
        loads[to] += bond->bucket_load[orphans[i]];
        counts[to]++;
    }
    free(loads);
    free(counts);
}

/* Balance modes: lets newly enabled member 'm' take idle (unloaded)
 * buckets from the members with the most buckets until bucket counts are
 * within one of each other or no idle bucket is left to take.  Moving an
 * idle bucket disturbs no traffic; loaded buckets wait for
 * bond_rebalance(). */
static void
bond_spread_idle__(struct bond *bond, struct bond_member *m)
{
    size_t mi = bond_member_index__(bond, m);
    uint64_t *loads = xcalloc(bond->n_members, sizeof *loads);
    int *counts = xcalloc(bond->n_members, sizeof *counts);
    bool *dry = xcalloc(bond->n_members, sizeof *dry);

    bond_member_totals__(bond, loads, counts);
    for (;;) {
        size_t donor = SIZE_MAX;
        int b;

        for (size_t i = 0; i < bond->n_members; i++) {
            if (i != mi && bond->members[i]->enabled && !dry[i]
                && (donor == SIZE_MAX || counts[i] > counts[donor])) {
                donor = i;
            }
        }
        if (donor == SIZE_MAX || counts[donor] <= counts[mi] + 1) {
            break;
        }
        for (b = BOND_N_BUCKETS - 1; b >= 0; b--) {
            if (bond->buckets[b] == bond->members[donor]
                && !bond->bucket_load[b]) {
                break;
            }
        }
        if (b < 0) {
            dry[donor] = true;
            continue;
        }
        bond->buckets[b] = m;
        counts[donor]--;
        counts[mi]++;
    }
    free(loads);
    free(counts);
    free(dry);
}

/* Active-backup: returns the member that should be active: the primary if
 * enabled, else the current active member if enabled, else the enabled
 * member with the lowest port number, else NULL. */
static struct bond_member *
bond_choose_active__(const struct bond *bond)
{
    struct bond_member *best = NULL;

    if (bond->primary) {
        struct bond_member *p = bond_lookup_name__(bond, bond->primary);

        if (p && p->enabled) {
            return p;
        }
    }
    if (bond->active && bond->active->enabled) {
        return bond->active;
    }
    for (size_t i = 0; i < bond->n_members; i++) {
        struct bond_member *m = bond->members[i];

        if (m->enabled && (!best || m->port_no < best->port_no)) {
            best = m;
        }
    }
    return best;
}

static void
bond_set_active__(struct bond *bond, struct bond_member *m)
{
    /* Follows the members' links, which a peer can flap. */
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

    if (m == bond->active) {
        return;
    }
    bond->active = m;
    if (m) {
        VLOG_INFO_RL(&rl, "bond %s: active member is now %s", bond->name,
                     m->name);
    } else {
        VLOG_INFO_RL(&rl, "bond %s: all members disabled", bond->name);
    }
}

/* Publishes the map of the current bucket assignment if it differs from
 * the published one, and frees the old map after a grace period. */
static void
bond_publish__(struct bond *bond)
{
    struct bond_map *old = bond->map;
    struct bond_map *new = xzalloc(sizeof *new);

    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        struct bond_member *m = bond->buckets[b];

        new->ports[b] = m && m->enabled ? m->port_no : BOND_PORT_NONE;
    }
    new->loads = bond->loads;
    if (old && !memcmp(old->ports, new->ports, sizeof new->ports)) {
        free(new);
        return;
    }

    /* Pairs with the acquire load in bond_map_get(). */
    __atomic_store_n(&bond->map, new, __ATOMIC_RELEASE);
    bond->n_published++;
    if (old) {
        rcu_synchronize();
        free(old);
    }
}

/* Brings the assignment in line with the members' states and publishes.
 * 'newly_enabled', if nonnull, is a member that was just enabled. */
static void
bond_update__(struct bond *bond, struct bond_member *newly_enabled)
{
    if (bond->mode == BOND_MODE_ACTIVE_BACKUP) {
        bond_set_active__(bond, bond_choose_active__(bond));
        for (int b = 0; b < BOND_N_BUCKETS; b++) {
            bond->buckets[b] = bond->active;
        }
    } else {
        /* Fresh loads, so that failover fills the least loaded first. */
        bond_collect__(bond);
        bond_assign_orphans__(bond);
        if (newly_enabled) {
            bond_spread_idle__(bond, newly_enabled);
        }
    }
    bond_publish__(bond);
}

enum bond_mode
bond_get_mode(const struct bond *bond)
{
    return bond->mode;
}

struct bond *
bond_create(const char *name, enum bond_mode mode, long long now)
{
    struct bond *bond = xzalloc(sizeof *bond);

    bond->name = xstrdup(name);
    bond->mode = mode;
    bond->loads = xzalloc_cacheline(BOND_MAX_PMDS * sizeof *bond->loads);
    bond->rebalance_interval = BOND_REBALANCE_INTERVAL_DEFAULT;
    bond->next_rebalance = now + bond->rebalance_interval;
    bond_publish__(bond);
    return bond;
}

void
bond_destroy(struct bond *bond)
{
    if (!bond) {
        return;
    }
    for (size_t i = 0; i < bond->n_members; i++) {
        free(bond->members[i]->name);
        free(bond->members[i]);
    }
    free(bond->members);
    free(bond->map);
    free(bond->loads);
    free(bond->primary);
    free(bond->name);
    free(bond);
}

int
bond_member_add(struct bond *bond, uint16_t port_no, const char *name,
                bool may_enable)
{
    struct bond_member *m;
    size_t i;

    if (port_no == BOND_PORT_NONE) {
        return EINVAL;
    }
    if (bond_lookup_port__(bond, port_no) || bond_lookup_name__(bond, name)) {
        return EEXIST;
    }
    m = xzalloc(sizeof *m);
    m->name = xstrdup(name);
    m->port_no = port_no;
    m->may_enable = may_enable;
    m->admin = true;
    m->enabled = may_enable;

    /* Keep 'members' sorted by name, the order bond/show prints. */
    bond->members = xrealloc(bond->members,
                             (bond->n_members + 1) * sizeof *bond->members);
    for (i = bond->n_members; i > 0; i--) {
        if (strcmp(bond->members[i - 1]->name, name) < 0) {
            break;
        }
        bond->members[i] = bond->members[i - 1];
    }
    bond->members[i] = m;
    bond->n_members++;

    bond_update__(bond, m->enabled ? m : NULL);
    return 0;
}

int
bond_member_remove(struct bond *bond, uint16_t port_no)
{
    struct bond_member *m = bond_lookup_port__(bond, port_no);
    size_t i;

    if (!m) {
        return ENOENT;
    }
    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        if (bond->buckets[b] == m) {
            bond->buckets[b] = NULL;
        }
    }
    if (bond->active == m) {
        bond->active = NULL;
    }
    i = bond_member_index__(bond, m);
    memmove(&bond->members[i], &bond->members[i + 1],
            (bond->n_members - i - 1) * sizeof *bond->members);
    bond->n_members--;

    /* bond_update__() publishes a map without 'm', and waits for the PMDs
     * to drop the old one, before 'm' is freed. */
    bond_update__(bond, NULL);
    free(m->name);
    free(m);
    return 0;
}

/* Recomputes 'm''s enabled state from its inputs and acts on a change. */
static void
bond_member_refresh__(struct bond *bond, struct bond_member *m)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    bool enabled = m->may_enable && m->admin;

    if (enabled == m->enabled) {
        return;
    }
    m->enabled = enabled;
    VLOG_INFO_RL(&rl, "bond %s: member %s: %s", bond->name, m->name,
                 enabled ? "enabled" : "disabled");
    bond_update__(bond, enabled ? m : NULL);
}

int
bond_member_set_enabled(struct bond *bond, uint16_t port_no, bool up)
{
    struct bond_member *m = bond_lookup_port__(bond, port_no);

    if (!m) {
        return ENOENT;
    }
    m->may_enable = up;
    bond_member_refresh__(bond, m);
    return 0;
}

int
bond_member_set_admin(struct bond *bond, const char *name, bool enable)
{
    struct bond_member *m = bond_lookup_name__(bond, name);

    if (!m) {
        return ENOENT;
    }
    m->admin = enable;
    bond_member_refresh__(bond, m);
    return 0;
}

bool
bond_member_is_enabled(const struct bond *bond, uint16_t port_no)
{
    const struct bond_member *m = bond_lookup_port__(bond, port_no);

    return m && m->enabled;
}

uint16_t
bond_member_port(const struct bond *bond, const char *name)
{
    const struct bond_member *m = bond_lookup_name__(bond, name);

    return m ? m->port_no : BOND_PORT_NONE;
}

int
bond_member_set_mac(struct bond *bond, uint16_t port_no, struct eth_addr mac)
{
    struct bond_member *m = bond_lookup_port__(bond, port_no);

    if (!m) {
        return ENOENT;
    }
    m->mac = mac;
    return 0;
}

void
bond_set_primary(struct bond *bond, const char *name)
{
    free(bond->primary);
    bond->primary = name ? xstrdup(name) : NULL;
    bond_update__(bond, NULL);
}

int
bond_set_active_member(struct bond *bond, const char *name, bool *changed,
                       const char **errorp)
{
    struct bond_member *m = bond_lookup_name__(bond, name);

    *changed = false;
    *errorp = NULL;
    if (!m) {
        *errorp = "no such member";
        return ENOENT;
    }
    if (bond->mode != BOND_MODE_ACTIVE_BACKUP) {
        *errorp = "not an active-backup bond";
        return EOPNOTSUPP;
    }
    if (!m->enabled) {
        *errorp = "cannot make disabled member active";
        return EINVAL;
    }
    if (m != bond->active) {
        *changed = true;
        bond_set_active__(bond, m);
        bond_update__(bond, NULL);
    }
    return 0;
}

uint16_t
bond_get_active_member(const struct bond *bond)
{
    return (bond->mode == BOND_MODE_ACTIVE_BACKUP && bond->active
            ? bond->active->port_no : BOND_PORT_NONE);
}

void
bond_set_rebalance_interval(struct bond *bond, long long interval,
                            long long now)
{
    bond->rebalance_interval = interval > 0 ? interval : 0;
    bond->next_rebalance = now + bond->rebalance_interval;
}

long long
bond_next_rebalance(const struct bond *bond)
{
    return bond_is_balanced__(bond) ? bond->next_rebalance : LLONG_MAX;
}

/* Returns whether the gap between loads 'from' and 'to' is worth
 * closing. */
static bool
bond_gap_exceeds_tolerance__(uint64_t from, uint64_t to)
{
    uint64_t gap = from - to;

    return gap >= BOND_TOLERANCE_MIN && gap > from / BOND_TOLERANCE_DIV;
}

/* Returns the bucket of member 'm' whose move to a member 'gap' bytes less
 * loaded narrows the gap the most, or -1 if no move narrows it (a bucket
 * with load 'd' narrows it iff 0 < d < gap). */
static int
bond_choose_bucket__(const struct bond *bond, const struct bond_member *m,
                     uint64_t gap)
{
    uint64_t best_gap = gap;
    int best = -1;

    for (int b = 0; b < BOND_N_BUCKETS; b++) {
        uint64_t d = bond->bucket_load[b];
        uint64_t new_gap;

        if (bond->buckets[b] != m || !d || d >= gap) {
            continue;
        }
        new_gap = 2 * d > gap ? 2 * d - gap : gap - 2 * d;
        if (new_gap < best_gap) {
            best_gap = new_gap;
            best = b;
        }
    }
    return best;
}

int
bond_rebalance(struct bond *bond, long long now)
{
    uint64_t *loads;
    int *counts;
    bool *exhausted;
    int n_moved = 0;

    if (!bond_is_balanced__(bond) || now < bond->next_rebalance) {
        return 0;
    }
    bond->next_rebalance = now + bond->rebalance_interval;
    bond_collect__(bond);

    loads = xcalloc(bond->n_members + 1, sizeof *loads);
    counts = xcalloc(bond->n_members + 1, sizeof *counts);
    exhausted = xcalloc(bond->n_members + 1, sizeof *exhausted);
    bond_member_totals__(bond, loads, counts);

    /* Each move strictly lowers the sum of squared member loads, so this
     * ends; the bound only guards against a mistake. */
    while (n_moved < 4 * BOND_N_BUCKETS) {
        size_t from = SIZE_MAX;
        size_t to = SIZE_MAX;
        int b;

        for (size_t i = 0; i < bond->n_members; i++) {
            if (!bond->members[i]->enabled) {
                continue;
            }
            if (!exhausted[i]
                && (from == SIZE_MAX || loads[i] > loads[from])) {
                from = i;
            }
            if (to == SIZE_MAX || loads[i] < loads[to]) {
                to = i;
            }
        }
        if (from == SIZE_MAX || to == SIZE_MAX || from == to
            || !bond_gap_exceeds_tolerance__(loads[from], loads[to])) {
            break;
        }
        b = bond_choose_bucket__(bond, bond->members[from],
                                 loads[from] - loads[to]);
        if (b < 0) {
            exhausted[from] = true;
            continue;
        }
        VLOG_DBG("bond %s: shift %"PRIu64" kB of load (with hash %d) "
                 "from %s to %s", bond->name, bond->bucket_load[b] / 1024,
                 b, bond->members[from]->name, bond->members[to]->name);
        bond->buckets[b] = bond->members[to];
        loads[from] -= bond->bucket_load[b];
        loads[to] += bond->bucket_load[b];
        n_moved++;
    }
    free(loads);
    free(counts);
    free(exhausted);

    /* Halve the loads, so that what was sent long ago counts less. */
    for (int i = 0; i < BOND_N_BUCKETS; i++) {
        bond->bucket_load[i] /= 2;
    }
    if (n_moved) {
        bond_publish__(bond);
    }
    return n_moved;
}

int
bond_member_n_buckets(const struct bond *bond, uint16_t port_no,
                      uint64_t *load)
{
    const struct bond_member *m = bond_lookup_port__(bond, port_no);
    uint64_t sum = 0;
    int n = 0;

    for (int b = 0; m && b < BOND_N_BUCKETS; b++) {
        if (bond->buckets[b] == m) {
            sum += bond->bucket_load[b];
            n++;
        }
    }
    if (load) {
        *load = sum;
    }
    return n;
}

char *
bond_show(struct bond *bond, long long now)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    bond_collect__(bond);
    ds_put_format(&s, "---- %s ----\n", bond->name);
    ds_put_format(&s, "bond_mode: %s\n", bond_mode_to_string(bond->mode));
    ds_put_format(&s, "updelay: 0 ms\ndowndelay: 0 ms\n");
    if (bond_is_balanced__(bond)) {
        ds_put_format(&s, "next rebalance: %lld ms\n",
                      bond->next_rebalance - now);
    }
    ds_put_format(&s, "lacp_status: off\n");
    ds_put_format(&s, "active-backup primary: %s%s\n",
                  bond->primary ? bond->primary : "<none>",
                  bond->primary && !bond_lookup_name__(bond, bond->primary)
                  ? " (no such member)" : "");
    if (bond->mode == BOND_MODE_ACTIVE_BACKUP) {
        struct eth_addr zero = { { 0 } };
        struct eth_addr mac = bond->active ? bond->active->mac : zero;

        ds_put_format(&s, "active member mac: "ETH_ADDR_FMT"(%s)\n",
                      ETH_ADDR_ARGS(mac),
                      bond->active ? bond->active->name : "none");
    }

    for (size_t i = 0; i < bond->n_members; i++) {
        const struct bond_member *m = bond->members[i];

        ds_put_format(&s, "\nmember %s: %s\n", m->name,
                      m->enabled ? "enabled" : "disabled");
        if (bond->mode == BOND_MODE_ACTIVE_BACKUP && m == bond->active) {
            ds_put_format(&s, "  active member\n");
        }
        ds_put_format(&s, "  may_enable: %s\n",
                      m->may_enable ? "true" : "false");
        if (!bond_is_balanced__(bond)) {
            continue;
        }
        for (int b = 0; b < BOND_N_BUCKETS; b++) {
            if (bond->buckets[b] == m && bond->bucket_load[b] / 1024) {
                ds_put_format(&s, "  hash %d: %"PRIu64" kB load\n", b,
                              bond->bucket_load[b] / 1024);
            }
        }
    }
    ds_put_format(&s, "\n");
    return ds_steal_cstr(&s);
}

json_t *
bond_show_json(struct bond *bond, long long now)
{
    json_t *obj = json_object();
    json_t *members = json_array();

    bond_collect__(bond);
    json_object_set_new(obj, "name", json_string(bond->name));
    json_object_set_new(obj, "mode",
                        json_string(bond_mode_to_string(bond->mode)));
    if (bond_is_balanced__(bond)) {
        json_object_set_new(obj, "next_rebalance_ms",
                            json_integer(bond->next_rebalance - now));
    }
    json_object_set_new(obj, "primary", bond->primary
                        ? json_string(bond->primary) : json_null());
    if (bond->mode == BOND_MODE_ACTIVE_BACKUP) {
        json_object_set_new(obj, "active_member", bond->active
                            ? json_string(bond->active->name)
                            : json_null());
    }
    for (size_t i = 0; i < bond->n_members; i++) {
        const struct bond_member *m = bond->members[i];
        json_t *jm = json_object();
        json_t *hashes = json_array();

        json_object_set_new(jm, "name", json_string(m->name));
        json_object_set_new(jm, "port", json_integer(m->port_no));
        json_object_set_new(jm, "enabled", json_boolean(m->enabled));
        json_object_set_new(jm, "may_enable", json_boolean(m->may_enable));
        for (int b = 0; bond_is_balanced__(bond) && b < BOND_N_BUCKETS;
             b++) {
            if (bond->buckets[b] == m && bond->bucket_load[b] / 1024) {
                json_t *h = json_object();

                json_object_set_new(h, "hash", json_integer(b));
                json_object_set_new(h, "load_kb", json_integer(
                                        bond->bucket_load[b] / 1024));
                json_array_append_new(hashes, h);
            }
        }
        json_object_set_new(jm, "hashes", hashes);
        json_array_append_new(members, jm);
    }
    json_object_set_new(obj, "members", members);
    return obj;
}
