/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Metrics for Prometheus (metrics.h): the exposition of the datapath's
 * counters, and the HTTP server (libevent's evhttp) that serves it.  The
 * names are an interface: README's "Metrics for Prometheus" lists them,
 * and a family is never renamed, only added.
 */
#include <autoconf.h>
#include "control/metrics.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/coverage.h"
#include "base/ds.h"
#include "base/util.h"
#include "base/vlog.h"
#include "dp/dp.h"
#include "dp/pmd.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"

VLOG_DEFINE_THIS_MODULE(metrics);

/* Exposition. */

/* Starts family 'name' of 'type' ("counter" or "gauge"). */
static void
metrics_family__(struct ds *out, const char *name, const char *type,
                 const char *help)
{
    ds_put_format(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
                  type);
}

/* Appends 's' as a label value: backslash, quote and newline escaped. */
static void
metrics_label_value__(struct ds *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"') {
            ds_put_format(out, "\\%c", *s);
        } else if (*s == '\n') {
            ds_put_format(out, "\\n");
        } else {
            ds_put_format(out, "%c", *s);
        }
    }
}

/* Appends one sample of a port family, labelled with the port's bridge
 * and name, and 'reason' if nonnull. */
static void
metrics_port_sample__(struct ds *out, const char *name,
                      const struct dp_port *port, const char *reason,
                      uint64_t value)
{
    ds_put_format(out, "%s{bridge=\"", name);
    metrics_label_value__(out, ofproto_name(port->ofproto));
    ds_put_format(out, "\",port=\"");
    metrics_label_value__(out, port->name);
    if (reason) {
        ds_put_format(out, "\",reason=\"%s", reason);
    }
    ds_put_format(out, "\"} %"PRIu64"\n", value);
}

/* A port counter: a member of struct netdev_stats. */
struct metrics_port_counter {
    const char *name;           /* Family, or NULL: same as the row above. */
    const char *help;
    const char *reason;         /* The "reason" label, or NULL. */
    size_t offset;              /* In struct netdev_stats. */
};

#define STAT(MEMBER) offsetof(struct netdev_stats, MEMBER)

static const struct metrics_port_counter port_counters[] = {
    { "pmdswitch_port_rx_packets_total", "Frames received.", NULL,
      STAT(rx_packets) },
    { "pmdswitch_port_rx_bytes_total", "Bytes received.", NULL,
      STAT(rx_bytes) },
    { "pmdswitch_port_tx_packets_total", "Frames transmitted.", NULL,
      STAT(tx_packets) },
    { "pmdswitch_port_tx_bytes_total", "Bytes transmitted.", NULL,
      STAT(tx_bytes) },
    { "pmdswitch_port_rx_dropped_total",
      "Frames lost on receive, by reason (dpctl/show's RX line).",
      "ring_full", STAT(rx_ring_full) },
    { NULL, NULL, "truncated", STAT(rx_truncated) },
    { NULL, NULL, "error", STAT(rx_errors) },
    { "pmdswitch_port_tx_dropped_total",
      "Frames not transmitted, by reason (dpctl/show's TX line).",
      "queue_full", STAT(tx_queue_full) },
    { NULL, NULL, "too_big", STAT(tx_too_big) },
    { NULL, NULL, "port_down", STAT(tx_port_down) },
    { NULL, NULL, "error", STAT(tx_errors) },
    { "pmdswitch_port_tx_gro_segments_total",
      "TCP segments merged into GSO frames on the way out.", NULL,
      STAT(tx_gro_segments) },
    { "pmdswitch_port_tx_gro_frames_total",
      "GSO frames those segments were merged into.", NULL,
      STAT(tx_gro_frames) },
    { "pmdswitch_port_tx_gso_frames_total",
      "GSO frames cut into segments on the way out.", NULL,
      STAT(tx_gso_frames) },
    { "pmdswitch_port_tx_gso_segments_total",
      "Segments those frames were cut into.", NULL, STAT(tx_gso_segments) },
};

/* The ports of 'dp' that have counters of their own (a bond's are its
 * members'), and their counters, in 'ports' and 'stats' of DP_MAX_PORTS
 * each.  Returns how many. */
static size_t
metrics_collect_ports__(struct dp *dp, const struct dp_port **ports,
                        struct netdev_stats *stats)
{
    size_t n = 0;

    for (int i = 0; i < DP_MAX_PORTS; i++) {
        const struct dp_port *port = dp->ports[i];

        if (port && !port->bond) {
            ports[n] = port;
            dp_port_get_stats(dp, port, &stats[n]);
            n++;
        }
    }
    return n;
}

static void
metrics_format_ports__(struct dp *dp, struct ds *out)
{
    const struct dp_port **ports = xcalloc(DP_MAX_PORTS, sizeof *ports);
    struct netdev_stats *stats = xcalloc(DP_MAX_PORTS, sizeof *stats);
    size_t n = metrics_collect_ports__(dp, ports, stats);
    const char *family = NULL;

    metrics_family__(out, "pmdswitch_port_up", "gauge",
                     "1 if the port's interface is up and polled, else 0.");
    for (size_t i = 0; i < n; i++) {
        metrics_port_sample__(out, "pmdswitch_port_up", ports[i], NULL,
                              ports[i]->state == DP_PORT_UP);
    }
    metrics_family__(out, "pmdswitch_port_link_down_total", "counter",
                     "Times the port's interface went down or away.");
    for (size_t i = 0; i < n; i++) {
        metrics_port_sample__(out, "pmdswitch_port_link_down_total",
                              ports[i], NULL, ports[i]->n_down);
    }
    for (size_t c = 0; c < ARRAY_SIZE(port_counters); c++) {
        const struct metrics_port_counter *pc = &port_counters[c];

        if (pc->name) {
            family = pc->name;
            metrics_family__(out, family, "counter", pc->help);
        }
        for (size_t i = 0; i < n; i++) {
            const uint64_t *value = (const void *) ((const char *) &stats[i]
                                                    + pc->offset);

            metrics_port_sample__(out, family, ports[i], pc->reason, *value);
        }
    }
    free(ports);
    free(stats);
}

/* What each PMD counter counts, for its HELP line. */
static const char *const pmd_stat_help[PMD_N_STATS] = {
    [PMD_STAT_RECV] = "Frames polled from rx queues.",
    [PMD_STAT_EMC_HIT] = "Frames that hit the exact match cache.",
    [PMD_STAT_SMC_HIT] = "Frames that hit the signature match cache.",
    [PMD_STAT_MASKED_HIT] = "Frames that hit a megaflow in the "
                            "classifier.",
    [PMD_STAT_MASKED_LOOKUP] = "Classifier subtables searched for hits.",
    [PMD_STAT_MISS] = "Frames the slow path decided (upcalls).",
    [PMD_STAT_LOST] = "Frames dropped because their upcall failed.",
    [PMD_STAT_OVER_FLOW_LIMIT] = "Upcalls that installed no megaflow: "
                                 "flow-limit reached.",
    [PMD_STAT_DROP_FLOW_ACTION] = "Frames dropped by their flow's "
                                  "actions.",
    [PMD_STAT_EXTRACT] = "Frames parsed (miniflow extract).",
    [PMD_STAT_RSS_SW] = "RSS hashes computed in software.",
    [PMD_STAT_RSS_KERNEL] = "RSS hashes taken from the kernel.",
    [PMD_STAT_SENT_PACKETS] = "Frames handed to the ports to send.",
    [PMD_STAT_SENT_BATCHES] = "Send calls to the ports.",
    [PMD_STAT_ITERATIONS] = "Poll loop iterations.",
    [PMD_STAT_BUSY_ITERATIONS] = "Poll loop iterations that received "
                                 "frames.",
    [PMD_STAT_CYCLES_IDLE] = NULL,      /* In pmdswitch_pmd_cycles_total. */
    [PMD_STAT_CYCLES_BUSY] = NULL,
    [PMD_STAT_REVALIDATIONS] = "Flow table revalidations.",
    [PMD_STAT_FLOWS_EXPIRED] = "Megaflows deleted for being idle.",
    [PMD_STAT_FLOWS_INVALIDATED] = "Megaflows deleted by revalidation.",
    [PMD_STAT_FLOWS_REVALIDATED] = "Megaflows translated again by "
                                   "revalidation.",
    [PMD_STAT_REVAL_KEYS] = "Change log keys read by revalidation.",
    [PMD_STAT_REVAL_SWEEPS] = "Revalidations of whole bridges.",
    [PMD_STAT_REVAL_LOG_LOST] = "Change logs read too late: bridge "
                                "swept.",
    [PMD_STAT_DROP_PORT_GONE] = "Frames dropped: output port removed or "
                                "missing.",
    [PMD_STAT_SLEEPS] = "Naps of an idle PMD (pmd-sleep-max).",
    [PMD_STAT_SLEEP_US] = NULL,         /* pmdswitch_pmd_sleep_seconds. */
    [PMD_STAT_WAKE_POLLS] = "Poll windows an idle PMD opened around a "
                            "burst it predicted (pmd-sleep-predict).",
    [PMD_STAT_WAKE_HITS] = "Bursts of frames that arrived in such a "
                           "window.",
    [PMD_STAT_ACTION_CLONES] = "Copy-on-write frame copies by actions.",
    [PMD_STAT_CLONE_POOL_DRY] = "Early transmit flushes for want of a "
                                "clone buffer.",
    [PMD_STAT_DROP_ACTION_EXEC] = "Frames dropped: actions could not run.",
    [PMD_STAT_DROP_BOND_OUTPUT] = "Frames dropped: bond with no enabled "
                                  "member.",
    [PMD_STAT_DROP_PORT_DOWN] = "Frames dropped: output port's link "
                                "down.",
    [PMD_STAT_GSO_FRAMES] = "GSO frames segmented in software for a port "
                            "that cannot take them.",
    [PMD_STAT_GSO_SEGMENTS] = "Segments made from GSO frames.",
    [PMD_STAT_DROP_GSO] = "GSO frames dropped: they could not be "
                          "segmented.",
    [PMD_STAT_TNL_DECAP] = "Frames received from tunnel (vxlan) ports.",
    [PMD_STAT_TNL_ENCAP] = "Frames sent to tunnel (vxlan) ports.",
    [PMD_STAT_GRO_FRAMES] = "GSO frames merged from TCP segments for a "
                            "port that takes them.",
    [PMD_STAT_GRO_SEGMENTS] = "TCP segments merged into those frames.",
};

/* The counters of every PMD of 'dp', since it started. */
static uint64_t (*metrics_read_pmds__(struct dp *dp))[PMD_N_STATS]
{
    uint64_t (*c)[PMD_N_STATS] = xcalloc(MAX(dp->n_pmds, 1), sizeof *c);

    for (int i = 0; i < dp->n_pmds; i++) {
        pmd_perf_read(&dp->pmds[i]->perf, c[i]);
    }
    return c;
}

static void
metrics_format_pmds__(struct dp *dp, struct ds *out)
{
    uint64_t (*c)[PMD_N_STATS] = metrics_read_pmds__(dp);

    for (int k = 0; k < PMD_N_STATS; k++) {
        char name[96];

        if (!pmd_stat_help[k]) {
            continue;
        }
        snprintf(name, sizeof name, "pmdswitch_pmd_%s_total",
                 pmd_perf_stat_name(k));
        metrics_family__(out, name, "counter", pmd_stat_help[k]);
        for (int i = 0; i < dp->n_pmds; i++) {
            ds_put_format(out, "%s{core=\"%d\"} %"PRIu64"\n", name,
                          dp->pmds[i]->core_id, c[i][k]);
        }
    }
    metrics_family__(out, "pmdswitch_pmd_cycles_total", "counter",
                     "TSC cycles spent polling, by whether frames came "
                     "(busy) or not (idle).");
    for (int i = 0; i < dp->n_pmds; i++) {
        ds_put_format(out, "pmdswitch_pmd_cycles_total{core=\"%d\","
                      "state=\"busy\"} %"PRIu64"\n"
                      "pmdswitch_pmd_cycles_total{core=\"%d\","
                      "state=\"idle\"} %"PRIu64"\n",
                      dp->pmds[i]->core_id, c[i][PMD_STAT_CYCLES_BUSY],
                      dp->pmds[i]->core_id, c[i][PMD_STAT_CYCLES_IDLE]);
    }
    metrics_family__(out, "pmdswitch_pmd_sleep_seconds_total", "counter",
                     "Time idle PMDs spent asleep.");
    for (int i = 0; i < dp->n_pmds; i++) {
        ds_put_format(out, "pmdswitch_pmd_sleep_seconds_total{core=\"%d\"} "
                      "%.6f\n", dp->pmds[i]->core_id,
                      c[i][PMD_STAT_SLEEP_US] / 1e6);
    }
    metrics_family__(out, "pmdswitch_pmd_megaflows", "gauge",
                     "Megaflows installed in the PMD's flow table.");
    for (int i = 0; i < dp->n_pmds; i++) {
        ds_put_format(out, "pmdswitch_pmd_megaflows{core=\"%d\"} %"PRIu32
                      "\n", dp->pmds[i]->core_id,
                      __atomic_load_n(&dp->pmds[i]->flows.n_flows,
                                      __ATOMIC_RELAXED));
    }
    free(c);
}

/* A MAC table figure: a member of struct mac_learning_stats. */
struct metrics_mac_figure {
    const char *name;           /* Family, or NULL: same as the row above. */
    const char *type;
    const char *help;
    const char *reason;         /* The "reason" label, or NULL. */
    size_t offset;              /* In struct mac_learning_stats. */
    bool is_size;               /* size_t, else uint64_t. */
};

#define ML(MEMBER) offsetof(struct mac_learning_stats, MEMBER)

static const struct metrics_mac_figure mac_figures[] = {
    { "pmdswitch_bridge_mac_entries", "gauge",
      "MAC addresses in the bridge's table.", NULL, ML(n_entries), true },
    { "pmdswitch_bridge_mac_entries_max", "gauge",
      "Most MAC addresses the table holds (mac-table-size).", NULL,
      ML(max_entries), true },
    { "pmdswitch_bridge_mac_learned_total", "counter",
      "MAC addresses learned.", NULL, ML(n_learned), false },
    { "pmdswitch_bridge_mac_moved_total", "counter",
      "MAC addresses that moved to another port.", NULL, ML(n_moved),
      false },
    { "pmdswitch_bridge_mac_expired_total", "counter",
      "MAC addresses aged out.", NULL, ML(n_expired), false },
    { "pmdswitch_bridge_mac_evicted_total", "counter",
      "MAC addresses removed to make room.", NULL, ML(n_evicted), false },
    { "pmdswitch_bridge_mac_learn_refused_total", "counter",
      "Learns refused, by reason (mac-limit of the port, mac-learn-rate).",
      "over_limit", ML(n_over_limit), false },
    { NULL, NULL, NULL, "rate_limited", ML(n_rate_limited), false },
};

static void
metrics_format_bridges__(struct dp *dp, struct ds *out)
{
    struct mac_learning_stats st[DP_MAX_BRIDGES];
    struct ofproto *bridges[DP_MAX_BRIDGES];
    const char *family = NULL;
    struct ofproto *bridge;
    size_t n = 0;

    DP_FOR_EACH_BRIDGE (bridge, dp) {
        mac_learning_get_stats(ofproto_mac_learning(bridge), &st[n]);
        bridges[n++] = bridge;
    }
    for (size_t f = 0; f < ARRAY_SIZE(mac_figures); f++) {
        const struct metrics_mac_figure *mf = &mac_figures[f];

        if (mf->name) {
            family = mf->name;
            metrics_family__(out, family, mf->type, mf->help);
        }
        for (size_t i = 0; i < n; i++) {
            const char *p = (const char *) &st[i] + mf->offset;
            uint64_t value = (mf->is_size ? *(const size_t *) (const void *) p
                              : *(const uint64_t *) (const void *) p);

            ds_put_format(out, "%s{bridge=\"", family);
            metrics_label_value__(out, ofproto_name(bridges[i]));
            if (mf->reason) {
                ds_put_format(out, "\",reason=\"%s", mf->reason);
            }
            ds_put_format(out, "\"} %"PRIu64"\n", value);
        }
    }
}

static void
metrics_format_coverage__(struct ds *out)
{
    struct coverage_stat *stats;
    size_t n = coverage_snapshot(&stats);

    metrics_family__(out, "pmdswitch_coverage_events_total", "counter",
                     "Events counted by coverage/show, by counter.");
    for (size_t i = 0; i < n; i++) {
        ds_put_format(out, "pmdswitch_coverage_events_total{counter=\"");
        metrics_label_value__(out, stats[i].name);
        ds_put_format(out, "\"} %"PRIu64"\n", stats[i].total);
    }
    free(stats);
}

void
metrics_format(struct dp *dp, struct ds *out)
{
    metrics_family__(out, "pmdswitch_build_info", "gauge",
                     "Always 1; the version of pmdswitchd in a label.");
    ds_put_format(out, "pmdswitch_build_info{version=\"%s\"} 1\n",
                  PACKAGE_VERSION);
    metrics_family__(out, "pmdswitch_ports", "gauge",
                     "Ports in the datapath.");
    ds_put_format(out, "pmdswitch_ports %d\n", (int) dp->n_ports);
    metrics_family__(out, "pmdswitch_pmds", "gauge", "PMD threads.");
    ds_put_format(out, "pmdswitch_pmds %d\n", dp->n_pmds);
    metrics_format_ports__(dp, out);
    metrics_format_pmds__(dp, out);
    metrics_format_bridges__(dp, out);
    metrics_format_coverage__(out);
}

/* The HTTP server. */

struct metrics_server {
    struct evhttp *http;
    struct evhttp_bound_socket *listener;   /* NULL: listening nowhere. */
    char address[CONFIG_METRICS_ADDRESS_MAX]; /* Where 'listener' is. */
    struct dp *dp;
};

/* Requests bigger than this are refused: a scrape is a bare GET. */
#define METRICS_MAX_HEADERS_SIZE 8192

/* A scrape has no body; a small one still gets a 405, a larger a 413. */
#define METRICS_MAX_BODY_SIZE 1024

/* A client that sends nothing for this long is dropped. */
#define METRICS_TIMEOUT_S 10

static void
metrics_reply_text__(struct evhttp_request *req, int code,
                     const char *reason, const char *content_type,
                     const char *body, size_t size)
{
    struct evbuffer *buf = evbuffer_new();

    evhttp_add_header(evhttp_request_get_output_headers(req),
                      "Content-Type", content_type);
    evbuffer_add(buf, body, size);
    evhttp_send_reply(req, code, reason, buf);
    evbuffer_free(buf);
}

/* Answers 405 and returns false unless 'req' is a GET or a HEAD. */
static bool
metrics_check_method__(struct evhttp_request *req)
{
    static const char msg[] = "only GET and HEAD\n";
    enum evhttp_cmd_type method = evhttp_request_get_command(req);

    if (method == EVHTTP_REQ_GET || method == EVHTTP_REQ_HEAD) {
        return true;
    }
    evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
                      "GET, HEAD");
    metrics_reply_text__(req, 405, "Method Not Allowed", "text/plain", msg,
                         sizeof msg - 1);
    return false;
}

/* GET /metrics. */
static void
metrics_handle_metrics__(struct evhttp_request *req, void *ms_)
{
    struct metrics_server *ms = ms_;
    struct ds out = DS_EMPTY_INITIALIZER;

    if (!metrics_check_method__(req)) {
        return;
    }

    metrics_format(ms->dp, &out);
    metrics_reply_text__(req, HTTP_OK, "OK",
                         "text/plain; version=0.0.4; charset=utf-8",
                         out.string ? out.string : "", out.length);
    ds_destroy(&out);
}

/* Any other path: "/" says where the metrics are, the rest are 404. */
static void
metrics_handle_other__(struct evhttp_request *req, void *ms OVS_UNUSED)
{
    static const char index[] = "pmdswitch: metrics at /metrics\n";
    static const char missing[] = "not found: metrics are at /metrics\n";
    const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));

    if (!metrics_check_method__(req)) {
        return;
    }
    if (path && !strcmp(path, "/")) {
        metrics_reply_text__(req, HTTP_OK, "OK", "text/plain", index,
                             sizeof index - 1);
    } else {
        metrics_reply_text__(req, HTTP_NOTFOUND, "Not Found", "text/plain",
                             missing, sizeof missing - 1);
    }
}

struct metrics_server *
metrics_server_create(struct event_base *base, struct dp *dp)
{
    struct metrics_server *ms = xzalloc(sizeof *ms);

    ms->dp = dp;
    ms->http = evhttp_new(base);
    if (!ms->http) {
        ovs_fatal(0, "metrics: cannot create the HTTP server");
    }
    /* Other methods reach the handlers, which answer 405 with "Allow";
     * libevent itself would answer 501 to those it is not told of. */
    evhttp_set_allowed_methods(ms->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD
                               | EVHTTP_REQ_POST | EVHTTP_REQ_PUT
                               | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS
                               | EVHTTP_REQ_PATCH);
    evhttp_set_max_headers_size(ms->http, METRICS_MAX_HEADERS_SIZE);
    evhttp_set_max_body_size(ms->http, METRICS_MAX_BODY_SIZE);
    evhttp_set_timeout(ms->http, METRICS_TIMEOUT_S);
    evhttp_set_cb(ms->http, "/metrics", metrics_handle_metrics__, ms);
    evhttp_set_gencb(ms->http, metrics_handle_other__, ms);
    return ms;
}

void
metrics_server_destroy(struct metrics_server *ms)
{
    if (ms) {
        evhttp_free(ms->http);
        free(ms);
    }
}

/* Binds 'address' ("IPV4:PORT" or "[IPV6]:PORT").  Returns the listener,
 * or NULL with an error message in '*errorp'. */
static struct evhttp_bound_socket *
metrics_bind__(struct metrics_server *ms, const char *address, char **errorp)
{
    const char *colon = strrchr(address, ':');
    struct evhttp_bound_socket *listener;
    char host[CONFIG_METRICS_ADDRESS_MAX];
    size_t len = colon - address;

    if (address[0] == '[') {
        memcpy(host, address + 1, len - 2);
        host[len - 2] = '\0';
    } else {
        memcpy(host, address, len);
        host[len] = '\0';
    }
    errno = 0;
    listener = evhttp_bind_socket_with_handle(ms->http, host,
                                              atoi(colon + 1));
    if (!listener) {
        *errorp = xasprintf("metrics-address %s: cannot listen: %s",
                            address,
                            errno ? strerror(errno) : "unknown error");
    }
    return listener;
}

char *
metrics_server_set_address(struct metrics_server *ms, const char *address)
{
    struct evhttp_bound_socket *old = ms->listener;
    char *error = NULL;

    if (!strcmp(address, ms->address)) {
        return NULL;
    }
    /* The old socket goes first: the new address may share its port. */
    if (old) {
        evhttp_del_accept_socket(ms->http, old);
        ms->listener = NULL;
    }
    if (address[0]) {
        ms->listener = metrics_bind__(ms, address, &error);
    }
    if (error) {
        if (ms->address[0]) {
            char *again = NULL;

            ms->listener = metrics_bind__(ms, ms->address, &again);
            if (again) {
                VLOG_ERR("%s (metrics are off)", again);
                free(again);
                ms->address[0] = '\0';
            }
        }
        return error;
    }
    if (address[0]) {
        VLOG_INFO("serving Prometheus metrics on http://%s/metrics",
                  address);
    } else {
        VLOG_INFO("stopped serving metrics on %s", ms->address);
    }
    snprintf(ms->address, sizeof ms->address, "%s", address);
    return NULL;
}

static char *
metrics_other_hook__(const struct config_other *other, void *ms)
{
    return metrics_server_set_address(ms, other->metrics_address);
}

void
metrics_server_follow_config(struct metrics_server *ms, struct dp *dp)
{
    dp_set_other_hook(dp, metrics_other_hook__, ms);
}
