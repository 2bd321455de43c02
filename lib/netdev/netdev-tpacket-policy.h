/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Receive-mode policy of the "tpacket" port provider: decides when an rx
 * queue should move between its low-latency socket and its TPACKET_V3
 * throughput ring.  The policy is pure: it opens no socket and reads no
 * clock.  Its owner feeds it the rx queue's cumulative counters and the
 * time, about every ms, and it answers "stay", "request throughput" or
 * "request low latency"; the owner then steers the kernel and reports back
 * once the switch took effect.  The thresholds and their reasons are in
 * netdev-tpacket-policy.c.
 *
 * All functions are for the control thread of the owning rx queue; a
 * policy is not shared between threads.
 */
#ifndef NETDEV_TPACKET_POLICY_H
#define NETDEV_TPACKET_POLICY_H 1

#include <stdbool.h>
#include <stdint.h>

/* Receive modes of a tpacket rx queue.  netdev-tpacket.c also uses a
 * mode's value as the fanout member index of its socket, so the values are
 * fixed. */
enum tpacket_mode {
    TPACKET_LOW_LATENCY = 0,    /* Plain socket, recvmmsg(). */
    TPACKET_THROUGHPUT = 1,     /* TPACKET_V3 ring. */
    TPACKET_N_MODES
};

/* What tpacket_policy_run() asks its caller to do. */
enum tpacket_policy_verdict {
    TPACKET_POLICY_STAY,                /* Keep the current mode. */
    TPACKET_POLICY_TO_THROUGHPUT,       /* Steer to the throughput ring. */
    TPACKET_POLICY_TO_LOW_LATENCY,      /* Steer to the low-latency socket. */
};

/* Receive counters of one rx queue at one moment (cumulative, counted from
 * 0 when the queue was created), or their change over a window. */
struct tpacket_policy_window {
    long long ms;               /* Length of the window; 0 for a moment. */
    uint64_t arrived;           /* Frames the kernel handed either socket,
                                 * whenever the PMD reads them. */
    uint64_t frames;            /* Frames the PMD read from either socket. */
    uint64_t bytes;             /* Bytes of those frames. */
    uint64_t polls_busy;        /* Low-latency polls that returned frames. */
    uint64_t polls_full;        /* Of those, polls that filled a batch. */
};

/* Policy state of one rx queue.  Callers may read 'mode', 'hold_ms' and
 * 'last' (for status and logging); everything else is private. */
struct tpacket_policy {
    /* Set by tpacket_policy_init(). */
    bool pinned;                /* Never request a switch. */
    int timeout_ms;             /* V3 block timeout of the queue's ring. */

    /* Read-only for callers. */
    enum tpacket_mode mode;     /* Mode the kernel steers to. */
    int hold_ms;                /* No switch before last_switch + hold_ms. */
    struct tpacket_policy_window last; /* Last window judged. */

    /* Private. */
    long long window_start;     /* When the current window began (ms). */
    struct tpacket_policy_window base; /* Counter values then. */
    long long last_switch;      /* When the last switch completed (ms). */
    long long quiet_since;      /* Throughput mode: end of the last window
                                 * that was not quiet (ms). */
    uint64_t busy_frames_per_ms; /* Rate of the window that last caused a
                                  * switch to throughput; 0 if none. */
    int busy_windows;           /* Low-latency mode: consecutive windows
                                 * that met (a) or (b). */
};

/* Initializes 'pol' for an rx queue created at 'now' (ms, any monotonic
 * origin) whose counters start at 0, steered to 'mode', with V3 block
 * timeout 'timeout_ms'.  If 'pinned', tpacket_policy_run() only ever
 * answers TPACKET_POLICY_STAY. */
void tpacket_policy_init(struct tpacket_policy *pol, enum tpacket_mode mode,
                         bool pinned, int timeout_ms, long long now);

/* Gives 'pol' the queue's cumulative 'counters' ('ms' ignored) at time
 * 'now', which must not go backwards.  'draining' is true while the PMD
 * still reads the socket of the previous mode after a switch; no switch is
 * requested then.  Returns what the caller should do.  After a request,
 * the caller steers the kernel and, if that worked, calls
 * tpacket_policy_switched(); if it failed, it just calls this function
 * again later. */
enum tpacket_policy_verdict tpacket_policy_run(
    struct tpacket_policy *pol, long long now,
    const struct tpacket_policy_window *counters, bool draining);

/* Tells 'pol' that the switch its last tpacket_policy_run() requested took
 * effect at 'now', when the cumulative counters were 'counters'.  Updates
 * 'mode' and 'hold_ms'. */
void tpacket_policy_switched(struct tpacket_policy *pol, long long now,
                             const struct tpacket_policy_window *counters);

#endif /* netdev-tpacket-policy.h */
