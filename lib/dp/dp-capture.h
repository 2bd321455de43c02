/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Packet capture inside the datapath: what one port receives and sends,
 * and the frames the datapath drops, with the reason, written to pcapng
 * files (packet/pcapng-writer.h) that tcpdump and tshark read.  It sees
 * every port type, afxdp ports included, which tcpdump on the interface
 * cannot.
 *
 * The PMDs copy frames into a byte ring each (base/byte-ring.h, by the
 * PMD's 'bond_slot'), with a timestamp and what the frame is; the control
 * thread drains the rings every tick into the files.  A full ring loses
 * the copy, never the frame, and the loss is counted.  While nothing is
 * captured, dp->capture is NULL and the PMDs pay one load of it per rx
 * batch, per tx batch and per dropped frame.
 */
#ifndef DP_CAPTURE_H
#define DP_CAPTURE_H 1

#include <stdbool.h>
#include <stdint.h>
#include "base/compiler.h"

struct dp;
struct dp_batch;
struct dp_packet;
struct pmd;

/* Why the datapath dropped a frame, as a capture names it. */
#define DP_DROP_REASONS(X)                                                 \
    X(UPCALL_FAILED, "upcall_failed", "the slow path could not decide it") \
    X(FLOW_ACTION, "flow_action", "its flow drops it: a drop rule, no "    \
      "rule matching, or NORMAL")                                         \
    X(PORT_DOWN, "port_down", "the output port's link is down")           \
    X(PORT_GONE, "port_gone", "the output port was removed or is "        \
      "missing")                                                          \
    X(BOND_OUTPUT, "bond_output", "the bond has no enabled member")       \
    X(ACTION_EXEC, "action_exec", "its actions could not be carried out") \
    X(GSO, "gso", "a GSO frame the output port cannot take could not be "   \
      "segmented")

enum dp_drop_reason {
#define DP_DROP_ENUM__(NAME, STR, WHY) DP_DROP_##NAME,
    DP_DROP_REASONS(DP_DROP_ENUM__)
#undef DP_DROP_ENUM__
    DP_DROP_N_REASONS
};

/* The name of 'reason' ("flow_action", ...) and a few words on it. */
const char *dp_drop_reason_name(enum dp_drop_reason);
const char *dp_drop_reason_explain(enum dp_drop_reason);

/* What the PMDs capture: published in dp->capture (RCU), read by PMDs. */
struct dp_capture {
    uint16_t port_no;           /* Port whose frames are captured both
                                 * ways, or DP_PORT_NONE. */
    bool drops;                 /* Dropped frames are captured. */
    struct byte_ring **rings;   /* By PMD 'bond_slot'; NULL: none. */
    uint64_t *n_lost;           /* By 'bond_slot': copies a full ring (or
                                 * none) lost.  PMD writes, control thread
                                 * reads. */
};

/* PMD side. */

/* Copies the frames of 'batch', received on ('sent' false) or sent to
 * ('sent' true) port 'port_no', if 'cap' captures that port. */
void dp_capture_batch(const struct dp_capture *cap, const struct pmd *,
                      const struct dp_batch *batch, uint16_t port_no,
                      bool sent);

/* Copies 'p', dropped for 'reason' (on its way to 'out_port', or
 * DP_PORT_NONE), if 'cap' captures drops. */
void dp_capture_drop(const struct dp_capture *cap, const struct pmd *,
                     const struct dp_packet *p, enum dp_drop_reason reason,
                     uint16_t out_port);

/* Control side. */

/* What a capture session is of. */
enum dp_capture_kind {
    DP_CAPTURE_PORT,            /* A port's frames, both ways. */
    DP_CAPTURE_DROPS,           /* Dropped frames, with the reason. */
    DP_CAPTURE_N_KINDS
};

/* One session, as dp_capture_get() reports it. */
struct dp_capture_info {
    bool active;
    const char *port;           /* DP_CAPTURE_PORT: the port's name. */
    const char *path;
    uint64_t n_written;         /* Frames in the file. */
    uint64_t max_count;         /* Stops after so many; 0: no limit. */
};

/* Starts capturing 'kind' ('port_no' for DP_CAPTURE_PORT) into a new
 * pcapng file at 'path', stopping after 'max_count' frames (0: until
 * dp_capture_stop()).  Replaces a session of that kind.  Returns NULL, or
 * an error message to free with nothing started. */
char *dp_capture_start(struct dp *, enum dp_capture_kind kind,
                       uint16_t port_no, const char *path,
                       uint64_t max_count) WARN_UNUSED_RESULT;

/* Stops the session of 'kind' once what the PMDs copied so far is in its
 * file, and closes the file.  '*info' (may be NULL) gets what it was. */
void dp_capture_stop(struct dp *, enum dp_capture_kind kind);

/* Reports the session of 'kind'; the strings are valid until the next
 * call of a function above. */
void dp_capture_get(const struct dp *, enum dp_capture_kind kind,
                    struct dp_capture_info *);

/* Copies lost so far (full rings), over every session. */
uint64_t dp_capture_n_lost(const struct dp *);

/* Writes what the PMDs copied into the files, and stops a session that
 * reached its count.  Called every tick from dp_run(). */
void dp_capture_run(struct dp *);

/* Stops every session (dp_destroy()). */
void dp_capture_stop_all(struct dp *);

#endif /* dp-capture.h */
