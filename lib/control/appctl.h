/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The appctl command modules.  Each lower-layer module that users look at
 * through appctl has a "<module>-appctl.c" here that registers its commands
 * with the server (unixctl.h) and turns its state into Open vSwitch-style
 * text and JSON replies; the modules themselves know nothing of appctl.
 * All of this runs on the control thread.
 */
#ifndef APPCTL_H
#define APPCTL_H 1

#include <stdbool.h>

struct config_reload;
struct dp;

/* Registers every command below, for 'dp', which must outlive the unixctl
 * server: what the daemon serves. */
void appctl_register_commands(struct dp *dp);

/* Registers vlog/list, vlog/set and vlog/reopen with the appctl server.
 *
 * vlog/reopen reopens the log file after a rotation (an error when there
 * is no log file).
 *
 * vlog/list answers vlog_list() as text.  As JSON it answers an object
 * from each module name to its levels, named as in a level specification:
 *
 *     {"pmd": {"console": "info", "syslog": "off", "file": "dbg"}, ...}
 *
 * vlog/set SPEC... applies each vlog_set_levels_from_string() 'SPEC' in
 * turn and stops at the first error, which it answers with that function's
 * message (the specifications before it stay applied).  On success it
 * answers "" as text, and as JSON the modules whose levels it changed, in
 * vlog/list's JSON shape ({} if none changed). */
void vlog_register_commands(void);

/* Registers coverage/show with the appctl server (unixctl.h).  It answers
 * coverage_format() as text, and as JSON an object from each counter name,
 * counted or not, to
 *
 *     {"total": N, "rate_5s": R, "rate_1m": R, "rate_1h": R}
 *
 * with the fields of struct coverage_stat (rates in events per second). */
void coverage_register_commands(void);

/* Registers the commands that show and change the datapath: dpctl/,
 * dpif-netdev/, fdb/, other-config/ and memory/show (dp-appctl.c). */
void dp_register_commands(struct dp *);

/* Calls 'visit' with each megaflow of every PMD of 'dp', as
 * PMD_REQUEST_DUMP_FLOWS copies it out (waiting at most 'timeout_ms' for
 * each PMD), and 'aux'.  Returns false if a PMD did not answer.  For the
 * commands that add live flows' counts to their rules' or mirrors'. */
struct pmd_flow_entry;
typedef void appctl_flow_visit_func(const struct pmd_flow_entry *,
                                    void *aux);
bool appctl_visit_live_flows(struct dp *, int timeout_ms,
                             appctl_flow_visit_func *visit, void *aux);

/* Registers rule/add, rule/del and rule/dump (ofproto-appctl.c), and
 * through mirror_register_commands() mirror/show. */
void ofproto_register_commands(struct dp *);

/* Registers mirror/show (mirror-appctl.c). */
void mirror_register_commands(struct dp *);

/* Registers dpctl/capture PORT FILE [COUNT], dpctl/capture-drops FILE
 * [COUNT], dpctl/capture-stop [PORT|drops] and dpctl/capture-show
 * (capture-appctl.c): packet capture into pcapng files, see
 * dp/dp-capture.h.  In JSON a session is {"kind", "file", "frames",
 * "max_frames", "port"}; capture-show and capture-stop answer
 * {"captures": [...], "lost"}. */
void capture_register_commands(struct dp *);

/* Registers bond/show, bond/set-active-member, bond/enable-member and
 * bond/disable-member (bond-appctl.c). */
void bond_register_commands(struct dp *);

/* Registers "ofproto/trace" (ofproto-trace.c). */
void ofproto_trace_register_commands(struct dp *);

/* Registers netdev-dummy/receive and netdev-dummy/dump
 * (netdev-dummy-appctl.c).
 *
 * netdev-dummy/receive PORT [--qid N] FRAME... queues each FRAME on rx
 * queue N (default 0) of dummy port PORT, as if received there.  A FRAME
 * is an even number of hex digits with nothing between them, or a flow in
 * the match syntax (match-parse.h; its in_port, if any, must be PORT),
 * made into a frame by flow_compose().  Any bad argument (unknown or
 * non-dummy port, bad hex, odd hex length, bad flow, bad queue) is an
 * error and nothing is queued.  Frames that find the queue full are
 * counted as rx_ring_full.  Answers "N frame(s) queued on rx queue Q of
 * PORT, M dropped (rx queue full)", in JSON
 * {"port", "qid", "queued", "dropped_rx_queue_full"}.
 *
 * netdev-dummy/dump PORT [--clear] answers the frames PORT transmitted,
 * oldest first, one line of hex each; in JSON {"port", "frames": [HEX...],
 * "n_captured", "capture_dropped", "capture_overflow"} (see
 * netdev-dummy.h).  --clear forgets them afterwards.  Not part of
 * appctl_register_commands(): for tests only (pmdswitchd --enable-dummy). */
void netdev_dummy_register_commands(struct dp *);

/* Registers "time/warp MSECS" (time-appctl.c), which moves the clock of
 * every thread (time_msec()) MSECS forward and answers "warped"; in JSON
 * {"warped_ms", "total_warped_ms"}.  Not part of
 * appctl_register_commands(): for tests only (pmdswitchd --enable-dummy). */
void time_register_commands(void);

/* Registers the runtime bridge and port commands, add-br, del-br, list-br,
 * add-port, del-port, set-port, list-ports and port-to-br
 * (bridge-appctl.c), which change the configuration 'r' keeps.  'r' must
 * outlive the appctl server. */
void bridge_ctl_register_commands(struct config_reload *r);

#endif /* control/appctl.h */
