/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Metrics for Prometheus: the counters that appctl shows (ports and their
 * drops by reason, PMDs, MAC tables, coverage) in the Prometheus text
 * exposition format, served over HTTP at "/metrics" on the address that
 * other_config:metrics-address names.  Off unless that key is set.
 *
 * Every series is read on request from the counters the datapath keeps
 * anyway, so the PMDs pay nothing for it.  Counters are never reset:
 * pmd-stats-clear changes what appctl shows, not what is served here, as
 * Prometheus expects of a counter.  Control thread only.
 */
#ifndef METRICS_H
#define METRICS_H 1

struct ds;
struct dp;
struct event_base;

/* Appends every metric of 'dp' to 'out' in the Prometheus text format
 * (version 0.0.4), each family with its HELP and TYPE lines. */
void metrics_format(struct dp *dp, struct ds *out);

/* The HTTP server: created without an address, so it listens nowhere
 * until metrics_server_set_address() says where. */
struct metrics_server *metrics_server_create(struct event_base *base,
                                             struct dp *dp);
void metrics_server_destroy(struct metrics_server *);

/* Makes 'ms' listen on 'address' ("IPV4:PORT" or "[IPV6]:PORT", already
 * checked by the config; "" to stop listening) instead of where it listens
 * now.  Returns NULL, or an error message to free with 'ms' listening
 * where it did. */
char *metrics_server_set_address(struct metrics_server *ms,
                                 const char *address);

/* Keeps 'ms' listening where other_config:metrics-address of 'dp' says,
 * through every later change of other_config (reload, other-config/set):
 * a change that cannot bind its address fails as a whole. */
void metrics_server_follow_config(struct metrics_server *ms, struct dp *dp);

#endif /* metrics.h */
