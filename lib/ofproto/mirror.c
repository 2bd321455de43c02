/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Port mirrors: the configuration xlate.c reads, the counters and the
 * counter sets that megaflows credit.  See mirror.h.
 *
 * A bridge's mirror configuration is an immutable snapshot published with
 * RCU, like its port set; the mirrors themselves ('struct mirror': a name
 * and counters) outlive snapshots, so that a mirror keeps its counters
 * across a reload that keeps its name.
 */
#include <autoconf.h>
#include "ofproto/mirror.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "classifier/dp-flow.h"
#include "ofproto/ofproto-private.h"
#include "base/rcu.h"
#include "base/util.h"

struct mirror {
    char name[MIRROR_NAME_SIZE];
    struct rule_stats stats;    /* Credited by flows (dp-flow.h). */
    bool mark;                  /* Control thread scratch. */
};

/* One mirror in a snapshot. */
struct mirror_sel {
    struct mirror *mirror;
    bool select_all;
    uint16_t out_port;
    mirror_mask_t dups;         /* Mirrors with the same output, itself
                                 * included. */
    bool all_vlans;
    uint64_t vlans[OFPROTO_N_VLANS / 64];
    uint16_t *srcs, *dsts;      /* For mirror/show. */
    size_t n_srcs, n_dsts;
};

/* What the mirrors make of one port. */
struct mirror_port {
    uint16_t port_no;
    mirror_mask_t src, dst, out;
};

struct mirror_config {
    size_t n;
    struct mirror_sel sels[MIRROR_MAX];
    mirror_mask_t all;          /* Mirrors with 'select_all'. */
    size_t n_ports;
    struct mirror_port ports[]; /* Sorted by 'port_no'. */
};

struct mirror_bridge {
    /* Replaced by the control thread with a release store, freed after
     * the flows are revalidated; NULL when there are no mirrors. */
    struct mirror_config *cfg;
    struct mirror **mirrors;    /* Those of 'cfg', in its order.  Control
                                 * thread. */
    size_t n;
};

struct mirror_bridge *
mirror_bridge_create(void)
{
    return xzalloc(sizeof(struct mirror_bridge));
}

static void
mirror_config_free(struct mirror_config *mc)
{
    if (mc) {
        for (size_t i = 0; i < mc->n; i++) {
            free(mc->sels[i].srcs);
            free(mc->sels[i].dsts);
        }
        free(mc);
    }
}

void
mirror_bridge_destroy(struct mirror_bridge *mb)
{
    if (!mb) {
        return;
    }
    for (size_t i = 0; i < mb->n; i++) {
        mirror_credit_forget(&mb->mirrors[i]->stats);
        free(mb->mirrors[i]);
    }
    free(mb->mirrors);
    mirror_config_free(mb->cfg);
    free(mb);
}

/* Snapshots. */

static struct mirror_port *
mirror_port_get__(struct mirror_port *ports, size_t *n, uint16_t port_no)
{
    for (size_t i = 0; i < *n; i++) {
        if (ports[i].port_no == port_no) {
            return &ports[i];
        }
    }
    memset(&ports[*n], 0, sizeof ports[*n]);
    ports[*n].port_no = port_no;
    return &ports[(*n)++];
}

static int
mirror_port_cmp(const void *a_, const void *b_)
{
    const struct mirror_port *a = a_, *b = b_;

    return a->port_no < b->port_no ? -1 : a->port_no > b->port_no;
}

/* Builds a snapshot of 's' over the mirrors 'mirrors'. */
static struct mirror_config *
mirror_config_create(const struct mirror_settings *s, size_t n,
                     struct mirror **mirrors)
{
    struct mirror_config *mc;
    size_t max_ports = 0;

    for (size_t i = 0; i < n; i++) {
        max_ports += s[i].n_srcs + s[i].n_dsts + 1;
    }
    mc = xzalloc(sizeof *mc + max_ports * sizeof mc->ports[0]);
    mc->n = n;
    for (size_t i = 0; i < n; i++) {
        struct mirror_sel *sel = &mc->sels[i];
        mirror_mask_t bit = (mirror_mask_t) 1 << i;

        sel->mirror = mirrors[i];
        sel->select_all = s[i].select_all;
        sel->out_port = s[i].out_port;
        sel->all_vlans = !s[i].n_vlans;
        memset(sel->vlans, sel->all_vlans ? 0xff : 0, sizeof sel->vlans);
        for (size_t v = 0; v < s[i].n_vlans; v++) {
            if (s[i].vlans[v] >= 0 && s[i].vlans[v] < OFPROTO_N_VLANS) {
                sel->vlans[s[i].vlans[v] / 64]
                    |= UINT64_C(1) << (s[i].vlans[v] % 64);
            }
        }
        sel->n_srcs = s[i].n_srcs;
        sel->srcs = xcalloc(s[i].n_srcs + 1, sizeof *sel->srcs);
        if (s[i].n_srcs) {
            memcpy(sel->srcs, s[i].srcs, s[i].n_srcs * sizeof *sel->srcs);
        }
        sel->n_dsts = s[i].n_dsts;
        sel->dsts = xcalloc(s[i].n_dsts + 1, sizeof *sel->dsts);
        if (s[i].n_dsts) {
            memcpy(sel->dsts, s[i].dsts, s[i].n_dsts * sizeof *sel->dsts);
        }
        if (sel->select_all) {
            mc->all |= bit;
        }
        for (size_t p = 0; p < s[i].n_srcs; p++) {
            mirror_port_get__(mc->ports, &mc->n_ports, s[i].srcs[p])->src
                |= bit;
        }
        for (size_t p = 0; p < s[i].n_dsts; p++) {
            mirror_port_get__(mc->ports, &mc->n_ports, s[i].dsts[p])->dst
                |= bit;
        }
        mirror_port_get__(mc->ports, &mc->n_ports, s[i].out_port)->out |= bit;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (mc->sels[j].out_port == mc->sels[i].out_port) {
                mc->sels[i].dups |= (mirror_mask_t) 1 << j;
            }
        }
    }
    qsort(mc->ports, mc->n_ports, sizeof mc->ports[0], mirror_port_cmp);
    return mc;
}

/* True if 'a' and 'b' select and output alike (mirror identities
 * aside). */
static bool
mirror_config_equal(const struct mirror_config *a,
                    const struct mirror_config *b)
{
    if (!a || !b) {
        return a == b;
    }
    if (a->n != b->n || a->all != b->all || a->n_ports != b->n_ports
        || memcmp(a->ports, b->ports, a->n_ports * sizeof a->ports[0])) {
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        const struct mirror_sel *x = &a->sels[i], *y = &b->sels[i];

        if (x->mirror != y->mirror || x->out_port != y->out_port
            || x->all_vlans != y->all_vlans
            || memcmp(x->vlans, y->vlans, sizeof x->vlans)) {
            return false;
        }
    }
    return true;
}

int
ofproto_set_mirrors(struct ofproto *ofproto, const struct mirror_settings *s,
                    size_t n)
{
    struct mirror_bridge *mb = ofproto->mirrors;
    struct mirror_config *old = mb->cfg, *new;
    struct mirror **mirrors, **old_mirrors = mb->mirrors;
    size_t old_n = mb->n;

    if (n > MIRROR_MAX) {
        return EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (strlen(s[i].name) >= MIRROR_NAME_SIZE) {
            return EINVAL;
        }
        for (size_t j = 0; j < i; j++) {
            if (!strcmp(s[i].name, s[j].name)) {
                return EINVAL;
            }
        }
    }

    /* Keep the mirrors (and their counters) whose names stay. */
    mirrors = xcalloc(n + 1, sizeof *mirrors);
    for (size_t j = 0; j < old_n; j++) {
        old_mirrors[j]->mark = false;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < old_n && !mirrors[i]; j++) {
            if (!strcmp(old_mirrors[j]->name, s[i].name)) {
                mirrors[i] = old_mirrors[j];
                mirrors[i]->mark = true;
            }
        }
        if (!mirrors[i]) {
            mirrors[i] = xzalloc(sizeof *mirrors[i]);
            strcpy(mirrors[i]->name, s[i].name);
        }
    }
    new = n ? mirror_config_create(s, n, mirrors) : NULL;
    mb->mirrors = mirrors;
    mb->n = n;
    if (mirror_config_equal(old, new)) {
        mirror_config_free(new);
        free(old_mirrors);
        return 0;
    }

    /* Pairs with the acquire load in mirror_config_get(). */
    __atomic_store_n(&mb->cfg, new, __ATOMIC_RELEASE);
    /* A new table for every flow of the bridge, as a rule change is:
     * pairs with the acquire load in ofproto_generation(). */
    __atomic_add_fetch(&ofproto->rule_generation, 1, __ATOMIC_RELEASE);
    ofproto_changed__(ofproto);

    /* Once every flow is revalidated, none credits a mirror that goes and
     * no translation reads the old snapshot. */
    ofproto_wait_revalidated(ofproto);
    mirror_config_free(old);
    for (size_t j = 0; j < old_n; j++) {
        if (!old_mirrors[j]->mark) {
            mirror_credit_forget(&old_mirrors[j]->stats);
            free(old_mirrors[j]);
        }
    }
    free(old_mirrors);
    return 0;
}

size_t
ofproto_mirrors_get(const struct ofproto *ofproto, struct mirror_info **infos)
{
    const struct mirror_config *mc = mirror_config_get(ofproto);
    size_t n = mc ? mc->n : 0;

    *infos = xcalloc(n + 1, sizeof **infos);
    for (size_t i = 0; i < n; i++) {
        const struct mirror_sel *sel = &mc->sels[i];
        struct mirror_info *info = &(*infos)[i];
        const struct rule_stats *st = &sel->mirror->stats;

        memcpy(info->name, sel->mirror->name, sizeof info->name);
        info->select_all = sel->select_all;
        info->n_srcs = sel->n_srcs;
        info->srcs = xmemdup(sel->srcs, (sel->n_srcs + 1) * sizeof(uint16_t));
        info->n_dsts = sel->n_dsts;
        info->dsts = xmemdup(sel->dsts, (sel->n_dsts + 1) * sizeof(uint16_t));
        memcpy(info->vlans, sel->vlans, sizeof info->vlans);
        info->all_vlans = sel->all_vlans;
        info->out_port = sel->out_port;
        /* Pairs with rule_stats_credit(): counters only. */
        info->tx_packets = __atomic_load_n(&st->n_packets, __ATOMIC_RELAXED);
        info->tx_bytes = __atomic_load_n(&st->n_bytes, __ATOMIC_RELAXED);
        info->stats = st;
    }
    return n;
}

void
mirror_infos_free(struct mirror_info *infos, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(infos[i].srcs);
        free(infos[i].dsts);
    }
    free(infos);
}

/* Translation. */

const struct mirror_config *
mirror_config_get(const struct ofproto *ofproto)
{
    /* Pairs with the release store in ofproto_set_mirrors(). */
    return __atomic_load_n(&ofproto->mirrors->cfg, __ATOMIC_ACQUIRE);
}

static const struct mirror_port *
mirror_port_find(const struct mirror_config *mc, uint16_t port_no)
{
    size_t lo = 0, hi = mc ? mc->n_ports : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (mc->ports[mid].port_no < port_no) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (mc && lo < mc->n_ports && mc->ports[lo].port_no == port_no
            ? &mc->ports[lo] : NULL);
}

mirror_mask_t
mirror_port_src(const struct mirror_config *mc, uint16_t port_no)
{
    const struct mirror_port *p = mirror_port_find(mc, port_no);

    return (mc ? mc->all : 0) | (p ? p->src : 0);
}

mirror_mask_t
mirror_port_dst(const struct mirror_config *mc, uint16_t port_no)
{
    const struct mirror_port *p = mirror_port_find(mc, port_no);

    return (mc ? mc->all : 0) | (p ? p->dst : 0);
}

bool
mirror_port_is_out(const struct mirror_config *mc, uint16_t port_no)
{
    const struct mirror_port *p = mirror_port_find(mc, port_no);

    return p && p->out;
}

struct mirror *
mirror_pick(const struct mirror_config *mc, mirror_mask_t *candidates,
            uint16_t vlan, mirror_mask_t *done, uint16_t *out_port)
{
    while (mc && *candidates) {
        int i = __builtin_ctz(*candidates);
        const struct mirror_sel *sel = &mc->sels[i];

        *candidates &= *candidates - 1;
        if (i >= (int) mc->n || vlan >= OFPROTO_N_VLANS
            || !((sel->vlans[vlan / 64] >> (vlan % 64)) & 1)) {
            continue;
        }
        *done |= sel->dups;
        *candidates &= ~*done;
        *out_port = sel->out_port;
        return sel->mirror;
    }
    return NULL;
}

const char *
mirror_name(const struct mirror *mirror)
{
    return mirror->name;
}

/* Counter sets.  Few of them (rules times combinations of mirrors that
 * really occur), made by translations and kept in one table for every
 * bridge, since a translation that crosses patch ports credits mirrors
 * of several bridges. */

#define MIRROR_CREDIT_MAX_FANOUT (MIRROR_MAX + 1)
#define MIRROR_CREDIT_BUCKETS 256

struct mirror_credit {
    struct rule_stats stats;    /* What flows point to; fans out to
                                 * 'targets'. */
    struct rule_stats *targets[MIRROR_CREDIT_MAX_FANOUT + 1];
    size_t n_targets;
    struct mirror_credit *next; /* In the bucket. */
};

static pthread_mutex_t mirror_credit_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct mirror_credit *mirror_credit_buckets[MIRROR_CREDIT_BUCKETS];

static size_t
mirror_credit_hash(struct rule_stats *const *targets, size_t n)
{
    uint64_t h = 0;

    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uintptr_t) targets[i]) * UINT64_C(0x100000001b3);
    }
    return (h >> 17) % MIRROR_CREDIT_BUCKETS;
}

struct rule_stats *
mirror_credit_get(struct rule_stats *rule_stats,
                  struct mirror *const *mirrors, size_t n)
{
    struct rule_stats *targets[MIRROR_CREDIT_MAX_FANOUT + 1];
    struct mirror_credit *c;
    size_t n_targets = 0;
    size_t h;

    if (rule_stats) {
        targets[n_targets++] = rule_stats;
    }
    for (size_t i = 0; i < n && n_targets < MIRROR_CREDIT_MAX_FANOUT; i++) {
        targets[n_targets++] = &mirrors[i]->stats;
    }
    if (!n) {
        return rule_stats;
    }
    h = mirror_credit_hash(targets, n_targets);

    pthread_mutex_lock(&mirror_credit_mutex);
    for (c = mirror_credit_buckets[h]; c; c = c->next) {
        if (c->n_targets == n_targets
            && !memcmp(c->targets, targets, n_targets * sizeof targets[0])) {
            break;
        }
    }
    if (!c) {
        c = xzalloc(sizeof *c);
        memcpy(c->targets, targets, n_targets * sizeof targets[0]);
        c->n_targets = n_targets;
        c->stats.also = c->targets;
        c->next = mirror_credit_buckets[h];
        mirror_credit_buckets[h] = c;
    }
    pthread_mutex_unlock(&mirror_credit_mutex);
    return &c->stats;
}

void
mirror_credit_forget(const struct rule_stats *stats)
{
    pthread_mutex_lock(&mirror_credit_mutex);
    for (size_t b = 0; b < MIRROR_CREDIT_BUCKETS; b++) {
        struct mirror_credit **cp = &mirror_credit_buckets[b];

        while (*cp) {
            struct mirror_credit *c = *cp;
            bool hit = false;

            for (size_t i = 0; i < c->n_targets && !hit; i++) {
                hit = c->targets[i] == stats;
            }
            if (hit) {
                *cp = c->next;
                free(c);
            } else {
                cp = &c->next;
            }
        }
    }
    pthread_mutex_unlock(&mirror_credit_mutex);
}
