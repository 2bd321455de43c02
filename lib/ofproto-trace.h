/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * ofproto/trace: traces a packet through the slow path of a datapath
 * without changing anything (see ofproto-trace.c).
 */
#ifndef OFPROTO_TRACE_H
#define OFPROTO_TRACE_H 1

struct dp;

/* Registers "ofproto/trace" for 'dp', which must outlive the unixctl
 * server.  Control thread. */
void ofproto_trace_register_commands(struct dp *dp);

#endif /* ofproto-trace.h */
