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
#include "upcall.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-qsbr.h>
#include "coverage.h"
#include "mac-learning.h"
#include "util.h"

/* Why NORMAL decided to drop, and MAC moves, for coverage/show. */
COVERAGE_DEFINE(normal_drop_learned_on_input);
COVERAGE_DEFINE(normal_drop_learned_port_gone);
COVERAGE_DEFINE(normal_drop_unknown_in_port);
COVERAGE_DEFINE(normal_mac_moved);

struct ofproto_port {
    uint16_t port_no;
    char name[OFPROTO_PORT_NAME_SIZE];
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
};

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
    synchronize_rcu();
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
    return ofproto;
}

void
ofproto_destroy(struct ofproto *ofproto)
{
    if (!ofproto) {
        return;
    }
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

int
ofproto_port_add(struct ofproto *ofproto, uint16_t port_no, const char *name)
{
    struct ofproto_ports *old, *new;
    size_t name_len = strlen(name);
    size_t i;

    if (!name_len || name_len >= OFPROTO_PORT_NAME_SIZE) {
        return EINVAL;
    }

    pthread_mutex_lock(&ofproto->ports_mutex);
    old = ofproto->ports;
    i = ofproto_ports_lower_bound(old, port_no);
    if (i < old->n && old->ports[i].port_no == port_no) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return EEXIST;
    }
    if (old->n >= OFPROTO_MAX_PORTS) {
        pthread_mutex_unlock(&ofproto->ports_mutex);
        return ENOSPC;
    }

    new = ofproto_ports_alloc(old->n + 1);
    memcpy(new->ports, old->ports, i * sizeof old->ports[0]);
    new->ports[i].port_no = port_no;
    memcpy(new->ports[i].name, name, name_len + 1);
    memcpy(&new->ports[i + 1], &old->ports[i],
           (old->n - i) * sizeof old->ports[0]);
    free(ofproto_ports_replace__(ofproto, new));
    pthread_mutex_unlock(&ofproto->ports_mutex);
    return 0;
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
    /* Both counters only grow, so their sum changes whenever either does.
     * Pairs with the release increment in ofproto_ports_replace__(). */
    return (mac_learning_generation(ofproto->ml)
            + __atomic_load_n(&ofproto->port_generation, __ATOMIC_ACQUIRE));
}

void
ofproto_run(struct ofproto *ofproto, long long now)
{
    mac_learning_run(ofproto->ml, now);
}

/* The VLAN a packet received on 'in_port' with outer TCI 'tci' belongs to.
 * Every port is a trunk for now; per-port modes will map access ports to
 * their tag here. */
static uint16_t
ofproto_input_vlan(uint16_t in_port OVS_UNUSED, ovs_be16 tci)
{
    return tci & htons(VLAN_CFI) ? ntohs(tci) & VLAN_VID_MASK : 0;
}

void
ofproto_mac_refresh(struct ofproto *ofproto, const struct flow *flow,
                    long long now)
{
    uint16_t vlan;

    if (eth_addr_is_multicast(flow->dl_src)) {
        return;
    }
    vlan = ofproto_input_vlan(flow->in_port, flow->vlans_tci[0]);
    mac_learning_refresh(ofproto->ml, flow->dl_src, vlan, flow->in_port,
                         now);
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
static ovs_be16 OVS_UNUSED
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
static void OVS_UNUSED
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
static void OVS_UNUSED
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
static void OVS_UNUSED
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

/* Makes the packet leave untagged ('vid' 0) or tagged with 'vid', with
 * the least actions; a tag that stays keeps its priority bits. */
static void OVS_UNUSED
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

/* Outputs to every port that carries 'vlan' except 'in_port', in port
 * number order. */
static void
xlate_normal_flood(struct xlate_ctx *ctx, uint16_t in_port,
                   uint16_t vlan OVS_UNUSED)
{
    for (size_t i = 0; i < ctx->ports->n; i++) {
        uint16_t port_no = ctx->ports->ports[i].port_no;

        if (port_no != in_port) {
            xlate_output(ctx, port_no);
        }
    }
}

/* A learning bridge.  It consults in_port; then, if that is a bridge port,
 * the outer VLAN VID and CFI, dl_src and dl_dst, all of them in full.
 * Wider masks would be possible in two cases: a multicast dl_dst floods
 * whatever its other bits, and a multicast dl_src is not learned.  They
 * stay exact anyway: such masks would add a second mask shape, hence a
 * second dpcls subtable that every miss searches, for little gain (a
 * multicast source is an invalid frame). */
static void
xlate_normal(struct xlate_ctx *ctx)
{
    char port_s[XLATE_PORT_STRING_SIZE];
    struct eth_addr dl_src, dl_dst;
    uint16_t in_port, vlan;
    int out_port;

    in_port = xlate_read_in_port(ctx);
    if (!ofproto_ports_find(ctx->ports, in_port)) {
        COVERAGE_INC(normal_drop_unknown_in_port);
        xlate_report(ctx, "NORMAL: in_port %"PRIu16" is not a port of "
                     "bridge %s, dropping", in_port, ctx->ofproto->name);
        return;
    }
    vlan = ofproto_input_vlan(in_port, xlate_read_outer_tci(
                                  ctx, htons(VLAN_VID_MASK | VLAN_CFI)));
    dl_src = xlate_read_dl_src(ctx);
    dl_dst = xlate_read_dl_dst(ctx);

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
    } else if (!ofproto_ports_find(ctx->ports, out_port)) {
        /* The port is being removed; its MACs are about to be flushed. */
        COVERAGE_INC(normal_drop_learned_port_gone);
        xlate_report(ctx, "NORMAL: learned port is unknown, dropping");
    } else {
        if (ctx->tracing) {
            xlate_report(ctx, "NORMAL: forwarding to learned port %s",
                         xlate_port_string(ctx, out_port, port_s));
        }
        xlate_output(ctx, out_port);
    }
}

/* Translation entry points. */

static int
xlate__(struct ofproto *ofproto, const struct flow *flow, bool learn,
        bool tracing, long long now, struct xlate_out *out)
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
    out->trace_len = 0;
    out->trace[0] = '\0';

    /* The rule table will run here, before NORMAL. */
    xlate_normal(&ctx);

    if (ctx.error) {
        out->n_actions = 0;
    }
    return ctx.error;
}

int
upcall_xlate(struct ofproto *ofproto, const struct flow *flow, bool learn,
             long long now, struct xlate_out *out)
{
    return xlate__(ofproto, flow, learn, false, now, out);
}

int
upcall_xlate_trace(struct ofproto *ofproto, const struct flow *flow,
                   bool learn, long long now, struct xlate_out *out)
{
    return xlate__(ofproto, flow, learn, true, now, out);
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
 * is learned on flow->in_port, or the flow does not come from a bridge
 * port (NORMAL learns nothing then). */
static bool
source_is_learned(struct ofproto *ofproto, const struct flow *flow,
                  long long now)
{
    uint16_t vlan;

    if (eth_addr_is_multicast(flow->dl_src)
        || !ofproto_has_port(ofproto, flow->in_port)) {
        return true;
    }
    vlan = ofproto_input_vlan(flow->in_port, flow->vlans_tci[0]);
    return mac_learning_lookup(ofproto->ml, flow->dl_src, vlan, now)
           == flow->in_port;
}

bool
upcall_revalidate(struct ofproto *ofproto, const struct flow *masked_flow,
                  const struct flow *mask, const struct dp_action *actions,
                  uint32_t n_actions, long long now)
{
    struct xlate_out out;

    if (xlate__(ofproto, masked_flow, false, false, now, &out)) {
        return false;
    }
    if (!source_is_learned(ofproto, masked_flow, now)) {
        /* Packets that hit the flow would never reach learning: send the
         * next one to the slow path (after fdb/flush or an age-out). */
        return false;
    }
    return (flow_mask_is_subset(&out.mask, mask)
            && out.n_actions == n_actions
            && !memcmp(out.actions, actions, n_actions * sizeof *actions));
}
