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

/* Registers rule/add, rule/del and rule/dump (ofproto-appctl.c). */
void ofproto_register_commands(struct dp *);

/* Registers bond/show, bond/set-active-member, bond/enable-member and
 * bond/disable-member (bond-appctl.c). */
void bond_register_commands(struct dp *);

/* Registers "ofproto/trace" (ofproto-trace.c). */
void ofproto_trace_register_commands(struct dp *);

#endif /* control/appctl.h */
