/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Packet capture (dp-capture.h).  A record in a PMD's ring is a struct
 * capture_record followed by the frame's first 'caplen' bytes.
 */
#include <autoconf.h>
#include "dp/dp-capture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/byte-ring.h"
#include "base/rcu.h"
#include "base/util.h"
#include "base/vlog.h"
#include "dp/dp.h"
#include "dp/pmd.h"
#include "ofproto/bond.h"
#include "packet/dp-batch.h"
#include "packet/dp-packet.h"
#include "packet/pcapng-writer.h"

VLOG_DEFINE_THIS_MODULE(dp_capture);

/* Each PMD's ring: room for a few hundred 1500-byte frames, or a dozen
 * 64 KB GSO frames, between two drains 1 ms apart. */
#define CAPTURE_RING_SIZE (4 * 1024 * 1024)

/* Bytes of a frame kept: a whole GSO frame. */
#define CAPTURE_SNAPLEN 65536

enum capture_what {
    CAPTURE_RX,
    CAPTURE_TX,
    CAPTURE_DROP,
};

struct capture_record {
    uint64_t ts_ns;             /* CLOCK_REALTIME. */
    uint32_t size;              /* Of the frame. */
    uint32_t caplen;            /* Bytes that follow. */
    uint16_t port_no;           /* In port, or for CAPTURE_TX the port. */
    uint16_t out_port;          /* CAPTURE_DROP: where it went, or
                                 * DP_PORT_NONE. */
    uint8_t what;               /* enum capture_what. */
    uint8_t reason;             /* CAPTURE_DROP: enum dp_drop_reason. */
    uint8_t pad[2];
};

static const char *const reason_names[DP_DROP_N_REASONS] = {
#define DP_DROP_NAME__(NAME, STR, WHY) STR,
    DP_DROP_REASONS(DP_DROP_NAME__)
#undef DP_DROP_NAME__
};

static const char *const reason_explanations[DP_DROP_N_REASONS] = {
#define DP_DROP_WHY__(NAME, STR, WHY) WHY,
    DP_DROP_REASONS(DP_DROP_WHY__)
#undef DP_DROP_WHY__
};

const char *
dp_drop_reason_name(enum dp_drop_reason reason)
{
    return reason < DP_DROP_N_REASONS ? reason_names[reason] : "?";
}

const char *
dp_drop_reason_explain(enum dp_drop_reason reason)
{
    return reason < DP_DROP_N_REASONS ? reason_explanations[reason] : "?";
}

/* PMD side. */

static uint64_t
capture_now_ns__(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Copies 'p' into the ring of 'pmd' as 'rec' says.  PMD only. */
static void
capture_copy__(const struct dp_capture *cap, const struct pmd *pmd,
               const struct dp_packet *p, struct capture_record rec)
{
    unsigned int slot = pmd->bond_slot;
    struct byte_ring *ring = cap->rings[slot];
    void *dst;

    rec.size = p->size;
    rec.caplen = MIN(p->size, CAPTURE_SNAPLEN);
    dst = ring ? byte_ring_reserve(ring, sizeof rec + rec.caplen) : NULL;
    if (!dst) {
        /* The control thread reads it relaxed; this PMD is the writer. */
        __atomic_store_n(&cap->n_lost[slot], cap->n_lost[slot] + 1,
                         __ATOMIC_RELAXED);
        return;
    }
    memcpy(dst, &rec, sizeof rec);
    memcpy((uint8_t *) dst + sizeof rec, p->data, rec.caplen);
    byte_ring_commit(ring);
}

void
dp_capture_batch(const struct dp_capture *cap, const struct pmd *pmd,
                 const struct dp_batch *batch, uint16_t port_no, bool sent)
{
    struct capture_record rec;

    if (cap->port_no != port_no) {
        return;
    }
    memset(&rec, 0, sizeof rec);
    rec.ts_ns = capture_now_ns__();
    rec.port_no = port_no;
    rec.out_port = DP_PORT_NONE;
    rec.what = sent ? CAPTURE_TX : CAPTURE_RX;
    for (uint32_t i = 0; i < batch->count; i++) {
        capture_copy__(cap, pmd, batch->packets[i], rec);
    }
}

void
dp_capture_drop(const struct dp_capture *cap, const struct pmd *pmd,
                const struct dp_packet *p, enum dp_drop_reason reason,
                uint16_t out_port)
{
    struct capture_record rec;

    if (!cap->drops) {
        return;
    }
    memset(&rec, 0, sizeof rec);
    rec.ts_ns = capture_now_ns__();
    rec.port_no = p->in_port;
    rec.out_port = out_port;
    rec.what = CAPTURE_DROP;
    rec.reason = reason;
    capture_copy__(cap, pmd, p, rec);
}

/* Control side. */

struct capture_session {
    bool active;
    uint16_t port_no;           /* DP_CAPTURE_PORT. */
    char *port;                 /* DP_CAPTURE_PORT: the port's name. */
    char *path;
    struct pcapng_writer *writer;
    uint64_t n_written;
    uint64_t max_count;         /* 0: no limit. */
    bool write_failed;          /* Logged once. */
};

/* Everything the control thread keeps: dp->capture_ctl. */
struct dp_capture_ctl {
    struct capture_session sessions[DP_CAPTURE_N_KINDS];
    struct byte_ring *rings[BOND_MAX_PMDS];  /* By 'bond_slot'. */
    uint64_t n_lost[BOND_MAX_PMDS];          /* PMD writes; see above. */
};

static struct dp_capture_ctl *
capture_ctl__(struct dp *dp)
{
    if (!dp->capture_ctl) {
        dp->capture_ctl = xzalloc(sizeof *dp->capture_ctl);
    }
    return dp->capture_ctl;
}

static bool
capture_any_active__(const struct dp_capture_ctl *ctl)
{
    for (int k = 0; k < DP_CAPTURE_N_KINDS; k++) {
        if (ctl->sessions[k].active) {
            return true;
        }
    }
    return false;
}

/* A ring for each running PMD that has none. */
static void
capture_add_rings__(struct dp *dp, struct dp_capture_ctl *ctl)
{
    for (int i = 0; i < dp->n_pmds; i++) {
        unsigned int slot = dp->pmds[i]->bond_slot;

        if (slot < BOND_MAX_PMDS && !ctl->rings[slot]) {
            ctl->rings[slot] = xzalloc(sizeof *ctl->rings[slot]);
            byte_ring_init(ctl->rings[slot], CAPTURE_RING_SIZE);
        }
    }
}

/* The comment of a record: the ports it crossed and, for a drop, why. */
static void
capture_comment__(const struct dp *dp, const struct capture_record *rec,
                  char *buf, size_t size)
{
    const struct dp_port *in = (rec->port_no < DP_MAX_PORTS
                                ? dp->ports[rec->port_no] : NULL);
    const struct dp_port *out = (rec->out_port < DP_MAX_PORTS
                                 ? dp->ports[rec->out_port] : NULL);

    if (rec->what != CAPTURE_DROP) {
        snprintf(buf, size, "%s %s", rec->what == CAPTURE_RX ? "received on"
                 : "sent to", in ? in->name : "?");
        return;
    }
    snprintf(buf, size, "dropped: %s (%s); in_port %s%s%s",
             dp_drop_reason_name(rec->reason),
             dp_drop_reason_explain(rec->reason), in ? in->name : "?",
             rec->out_port != DP_PORT_NONE ? ", out_port " : "",
             rec->out_port == DP_PORT_NONE ? "" : out ? out->name : "?");
}

/* Writes 'rec' into the session it belongs to, if that one is active. */
static void
capture_write__(struct dp *dp, struct dp_capture_ctl *ctl,
                const struct capture_record *rec, const uint8_t *data)
{
    enum dp_capture_kind kind = (rec->what == CAPTURE_DROP
                                 ? DP_CAPTURE_DROPS : DP_CAPTURE_PORT);
    struct capture_session *s = &ctl->sessions[kind];
    char comment[256];
    int error;

    if (!s->active || (kind == DP_CAPTURE_PORT && rec->port_no != s->port_no)
        || (s->max_count && s->n_written >= s->max_count)) {
        return;
    }
    capture_comment__(dp, rec, comment, sizeof comment);
    error = pcapng_writer_write(s->writer, rec->ts_ns, data, rec->caplen,
                                rec->size,
                                rec->what == CAPTURE_RX ? PCAPNG_DIR_INBOUND
                                : rec->what == CAPTURE_TX
                                ? PCAPNG_DIR_OUTBOUND : PCAPNG_DIR_UNKNOWN,
                                comment);
    if (error && !s->write_failed) {
        VLOG_ERR("capture into %s: write failed (%s)", s->path,
                 strerror(error));
        s->write_failed = true;
    }
    s->n_written += !error;
}

/* Moves everything in the rings into the files. */
static void
capture_drain__(struct dp *dp, struct dp_capture_ctl *ctl)
{
    for (int slot = 0; slot < BOND_MAX_PMDS; slot++) {
        struct byte_ring *ring = ctl->rings[slot];
        const uint8_t *p;
        size_t size;

        while (ring && (p = byte_ring_read(ring, &size)) != NULL) {
            struct capture_record rec;

            memcpy(&rec, p, sizeof rec);
            if (size >= sizeof rec + rec.caplen) {
                capture_write__(dp, ctl, &rec, p + sizeof rec);
            }
            byte_ring_release(ring);
        }
    }
    for (int k = 0; k < DP_CAPTURE_N_KINDS; k++) {
        if (ctl->sessions[k].active) {
            pcapng_writer_flush(ctl->sessions[k].writer);
        }
    }
}

/* Publishes what the sessions ask for, and waits until no PMD uses what
 * was published before: after that, the rings hold all they will get from
 * it. */
static void
capture_publish__(struct dp *dp, struct dp_capture_ctl *ctl)
{
    struct dp_capture *old = dp->capture;
    struct dp_capture *new = NULL;

    if (capture_any_active__(ctl)) {
        const struct capture_session *port = &ctl->sessions[DP_CAPTURE_PORT];

        new = xzalloc(sizeof *new);
        new->port_no = port->active ? port->port_no : DP_PORT_NONE;
        new->drops = ctl->sessions[DP_CAPTURE_DROPS].active;
        new->rings = ctl->rings;
        new->n_lost = ctl->n_lost;
    }
    rcu_publish(dp->capture, new);
    rcu_synchronize();
    free(old);
}

static void
capture_session_close__(struct capture_session *s)
{
    if (s->active) {
        VLOG_INFO("capture into %s stopped: %"PRIu64" frame(s) written",
                  s->path, s->n_written);
    }
    pcapng_writer_close(s->writer);
    free(s->port);
    free(s->path);
    memset(s, 0, sizeof *s);
}

/* Frees the rings once no session needs them. */
static void
capture_free_rings__(struct dp_capture_ctl *ctl)
{
    for (int slot = 0; slot < BOND_MAX_PMDS; slot++) {
        if (ctl->rings[slot]) {
            byte_ring_uninit(ctl->rings[slot]);
            free(ctl->rings[slot]);
            ctl->rings[slot] = NULL;
        }
    }
}

char *
dp_capture_start(struct dp *dp, enum dp_capture_kind kind, uint16_t port_no,
                 const char *path, uint64_t max_count)
{
    struct dp_capture_ctl *ctl = capture_ctl__(dp);
    const struct dp_port *port = (kind == DP_CAPTURE_PORT
                                  ? dp->ports[port_no] : NULL);
    struct capture_session *s = &ctl->sessions[kind];
    struct pcapng_writer *writer;
    char *descr;
    char *error;

    descr = (port
             ? xasprintf("frames received on and sent to port %s (%s)",
                         port->name, port->ifname ? port->ifname : "")
             : xstrdup("frames the datapath dropped; each one's comment "
                       "says why"));
    pcapng_writer_open(path, port ? port->name : "drops", descr, &writer,
                       &error);
    free(descr);
    if (!writer) {
        return error;
    }
    if (s->active) {
        dp_capture_stop(dp, kind);
    }
    s->active = true;
    s->port_no = port_no;
    s->port = port ? xstrdup(port->name) : NULL;
    s->path = xstrdup(path);
    s->writer = writer;
    s->max_count = max_count;
    capture_add_rings__(dp, ctl);
    capture_publish__(dp, ctl);
    VLOG_INFO("capturing %s%s into %s", port ? "port " : "dropped frames",
              port ? port->name : "", path);
    return NULL;
}

void
dp_capture_stop(struct dp *dp, enum dp_capture_kind kind)
{
    struct dp_capture_ctl *ctl = dp->capture_ctl;

    if (!ctl || !ctl->sessions[kind].active) {
        return;
    }
    /* What the PMDs copied before they stop copying goes in too. */
    ctl->sessions[kind].active = false;
    capture_publish__(dp, ctl);
    ctl->sessions[kind].active = true;
    capture_drain__(dp, ctl);
    capture_session_close__(&ctl->sessions[kind]);
    if (!capture_any_active__(ctl)) {
        capture_free_rings__(ctl);
    }
}

void
dp_capture_get(const struct dp *dp, enum dp_capture_kind kind,
               struct dp_capture_info *info)
{
    const struct capture_session *s = (dp->capture_ctl
                                       ? &dp->capture_ctl->sessions[kind]
                                       : NULL);

    memset(info, 0, sizeof *info);
    if (s && s->active) {
        info->active = true;
        info->port = s->port;
        info->path = s->path;
        info->n_written = s->n_written;
        info->max_count = s->max_count;
    }
}

uint64_t
dp_capture_n_lost(const struct dp *dp)
{
    uint64_t n = 0;

    for (int slot = 0; dp->capture_ctl && slot < BOND_MAX_PMDS; slot++) {
        n += __atomic_load_n(&dp->capture_ctl->n_lost[slot],
                             __ATOMIC_RELAXED);
    }
    return n;
}

void
dp_capture_run(struct dp *dp)
{
    struct dp_capture_ctl *ctl = dp->capture_ctl;

    if (!ctl || !capture_any_active__(ctl)) {
        return;
    }
    capture_add_rings__(dp, ctl);   /* For PMDs started since. */
    capture_drain__(dp, ctl);
    for (int k = 0; k < DP_CAPTURE_N_KINDS; k++) {
        const struct capture_session *s = &ctl->sessions[k];
        const struct dp_port *port = (k == DP_CAPTURE_PORT && s->active
                                      ? dp->ports[s->port_no] : NULL);

        if (s->active && s->max_count && s->n_written >= s->max_count) {
            dp_capture_stop(dp, k);
        } else if (k == DP_CAPTURE_PORT && s->active
                   && (!port || strcmp(port->name, s->port))) {
            VLOG_INFO("port %s was removed: its capture stops", s->port);
            dp_capture_stop(dp, k);
        }
    }
}

void
dp_capture_stop_all(struct dp *dp)
{
    for (int k = 0; k < DP_CAPTURE_N_KINDS; k++) {
        dp_capture_stop(dp, k);
    }
    free(dp->capture_ctl);
    dp->capture_ctl = NULL;
}
