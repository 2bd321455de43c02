/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Receive-mode policy of the "tpacket" port provider (see
 * doc/netdev-tpacket.md for the two sockets and how a switch is made).  This
 * file only decides when to switch.
 *
 * When to switch.  What matters is the cost per frame, not per byte: on
 * the low-latency socket the PMD pays a share of a system call, an skb and
 * the copy for each frame; on the ring it reads a header, and the copy was
 * made on the sender's core.  For a 64 KB GSO frame the copy dominates and
 * is better made on the PMD's core; for a 64-byte frame the fixed cost is
 * all there is.  The PMD only counts; the control thread feeds the counters
 * to tpacket_policy_run(), which judges their deltas over windows of 2 ms
 * in low-latency mode and of 4 ms (at least 4 block timeouts) in
 * throughput mode.
 * - To throughput, if in two windows in a row either
 *   (a) at least 100 frames per ms arrived (100,000 frames/s), or
 *   (b) in at least 8 polls that returned frames, half or more returned a
 *   full batch of 32 (the PMD falls behind), at least half as many frames
 *   arrived as the PMD read (its queue is not shrinking), and the frames
 *   averaged at most 2 KB (no GSO frames among most of them).
 *   "Arrived" counts what the kernel handed the queue's sockets
 *   (PACKET_STATISTICS, read with the drops), whether the PMD has read it
 *   yet or not: the rate of the traffic, not of the PMD's reading.
 *   A 64-byte flood (300,000 frames/s and more) meets (a) at once, and (b)
 *   as soon as the PMD lags.  One TCP stream with default offloads sends
 *   64 KB GSO frames: at 14 Gbit/s about 27,000 per second, 27 per ms, far
 *   below (a) (64 KB frames would need 52 Gbit/s to reach it).  Measured
 *   at 11-14 Gbit/s: 26,000 frames/s of 62 KB on average, 1.3 frames per
 *   busy poll, 56 full batches in 300,000 busy polls; its ACKs, on the
 *   other port, 7,500 frames/s.  (b) leaves large frames alone even when
 *   the PMD lags: on the ring their copy would move back to the sender's
 *   core, which measured slower.  TCP with the sender's offloads off (MTU
 *   frames, about 165,000 per second at 2 Gbit/s) meets (a); the ring
 *   measured better for it too (2.5 against 1.9 Gbit/s).
 *   A backlog is no load.  When a busy host keeps the PMD off its core for
 *   100 ms, a 2,000 frames/s stream waits in the socket and the PMD drains
 *   it in a few full polls; a port that took another's interface over
 *   (doc/port-handover.md) queues everything from the take-over until its
 *   queues are polled, often 100 to 250 ms of traffic, read as one burst.
 *   Judged by what the PMD read, such a burst met (a) and (b) for several
 *   windows and moved the queue to the ring.  On the ring a slow stream
 *   fills a block every block timeout with a couple of frames, so the ring
 *   holds only a few tens of ms of it, where the socket's 16 MB buffer
 *   holds seconds: the queue would lose frames at the next stall
 *   (measured: 45 to 499 frames lost to the ring of such a stream on a
 *   loaded machine, and 13 to 63 datagrams of a 5,000 frames/s stream
 *   after a hand-over).  Judged by arrivals, a burst read from a backlog
 *   meets neither rule.  Two windows in a row are still asked for, so
 *   that one noisy window does not switch.
 * - To low latency, once every window for max(20 ms, 8 block timeouts) had
 *   fewer frames arriving per ms than half the rate of the window that
 *   caused the switch, capped at half of (a) and at least 16: between 50
 *   and 32 per ms for switches by (a) or (b) in a 2 ms window.  So a
 *   large-frame TCP stream that shared the ring with a flood comes back
 *   once the flood ends.  One quiet window is not enough: in throughput
 *   mode a TCP sender stalls, sending nothing, until the tail of its
 *   window leaves a block at the timeout, which took up to about 8 ms
 *   with a 1 ms timeout here.
 *   With a single 4 ms window the mode flapped a dozen times per transfer.
 * Neither direction looks at bytes per second: that would send large-frame
 * TCP to the ring and keep it there.  On top of the factor of 2 between
 * the two directions, a switch holds for 10 ms, and a switch back within
 * four hold times doubles the hold, up to 250 ms, so a load right at a
 * threshold cannot make the mode flap quickly.  No switch is requested
 * while the PMD still drains the old socket after the previous one.
 */
#include <autoconf.h>

#include "netdev/netdev-tpacket-policy.h"

#include <string.h>
#include "base/util.h"

#define TPACKET_LL_WINDOW_MS 2
#define TPACKET_TP_WINDOW_MIN_MS 4
#define TPACKET_QUIET_MIN_MS 20
#define TPACKET_BUSY_FRAMES_PER_MS 100
#define TPACKET_MIN_BUSY_POLLS 8
#define TPACKET_BUSY_WINDOWS 2
#define TPACKET_SMALL_FRAME_BYTES 2048
#define TPACKET_QUIET_FRAMES_PER_MS_MIN 16
#define TPACKET_HOLD_MIN_MS 10
#define TPACKET_HOLD_MAX_MS 250

void
tpacket_policy_init(struct tpacket_policy *pol, enum tpacket_mode mode,
                    bool pinned, int timeout_ms, long long now)
{
    memset(pol, 0, sizeof *pol);
    pol->pinned = pinned;
    pol->timeout_ms = timeout_ms;
    pol->mode = mode;
    pol->hold_ms = TPACKET_HOLD_MIN_MS;
    pol->window_start = now;
    pol->last_switch = now;
}

/* Returns the change from the start of the current window to 'counters'
 * and starts a new window at 'now'. */
static struct tpacket_policy_window
take_window(struct tpacket_policy *pol, long long now,
            const struct tpacket_policy_window *counters)
{
    struct tpacket_policy_window delta;

    delta.ms = MAX(now - pol->window_start, 1);
    delta.arrived = counters->arrived - pol->base.arrived;
    delta.frames = counters->frames - pol->base.frames;
    delta.bytes = counters->bytes - pol->base.bytes;
    delta.polls_busy = counters->polls_busy - pol->base.polls_busy;
    delta.polls_full = counters->polls_full - pol->base.polls_full;

    pol->base = *counters;
    pol->base.ms = 0;
    pol->window_start = now;
    return delta;
}

/* True if window 'w' in low-latency mode calls for the throughput ring
 * (rules (a) and (b) of "When to switch"). */
static bool
ll_is_busy(const struct tpacket_policy_window *w)
{
    if (w->arrived >= (uint64_t) TPACKET_BUSY_FRAMES_PER_MS * w->ms) {
        /* Per-frame costs dominate whatever the frames' size. */
        return true;
    }
    /* The PMD falls behind on small frames: most polls leave frames in the
     * socket's queue, and the queue does not shrink (a backlog that the
     * PMD reads faster than it grows is no load).  Large (GSO) frames
     * stay, their copy is better made on the PMD's core. */
    return (w->polls_busy >= TPACKET_MIN_BUSY_POLLS
            && 2 * w->polls_full >= w->polls_busy
            && 2 * w->arrived >= w->frames
            && w->bytes <= (uint64_t) TPACKET_SMALL_FRAME_BYTES * w->frames);
}

/* True if window 'w' in throughput mode allows the low-latency socket. */
static bool
tp_is_quiet(const struct tpacket_policy *pol,
            const struct tpacket_policy_window *w)
{
    uint64_t quiet = MAX(TPACKET_QUIET_FRAMES_PER_MS_MIN,
                         MIN(TPACKET_BUSY_FRAMES_PER_MS,
                             pol->busy_frames_per_ms) / 2);

    return w->arrived < quiet * w->ms;
}

/* Returns the length of a window in the current mode, in ms. */
static long long
window_ms(const struct tpacket_policy *pol)
{
    return (pol->mode == TPACKET_LOW_LATENCY
            ? TPACKET_LL_WINDOW_MS
            : MAX(TPACKET_TP_WINDOW_MIN_MS, 4 * pol->timeout_ms));
}

enum tpacket_policy_verdict
tpacket_policy_run(struct tpacket_policy *pol, long long now,
                   const struct tpacket_policy_window *counters,
                   bool draining)
{
    bool go;

    if (now - pol->window_start < window_ms(pol)) {
        return TPACKET_POLICY_STAY;
    }
    pol->last = take_window(pol, now, counters);
    if (pol->mode == TPACKET_THROUGHPUT && !tp_is_quiet(pol, &pol->last)) {
        pol->quiet_since = now;
    }
    if (pol->mode == TPACKET_LOW_LATENCY) {
        pol->busy_windows = (ll_is_busy(&pol->last)
                             ? pol->busy_windows + 1 : 0);
    }
    if (pol->pinned || now - pol->last_switch < pol->hold_ms || draining) {
        return TPACKET_POLICY_STAY;
    }
    if (pol->mode == TPACKET_LOW_LATENCY) {
        go = pol->busy_windows >= TPACKET_BUSY_WINDOWS;
    } else {
        /* Quiet for longer than TCP waits for the tail of its window to
         * leave a block at the timeout. */
        go = now - pol->quiet_since >= MAX(TPACKET_QUIET_MIN_MS,
                                           8 * pol->timeout_ms);
    }
    if (!go) {
        return TPACKET_POLICY_STAY;
    }
    return (pol->mode == TPACKET_LOW_LATENCY
            ? TPACKET_POLICY_TO_THROUGHPUT
            : TPACKET_POLICY_TO_LOW_LATENCY);
}

void
tpacket_policy_switched(struct tpacket_policy *pol, long long now,
                        const struct tpacket_policy_window *counters)
{
    if (pol->mode == TPACKET_LOW_LATENCY) {
        pol->busy_frames_per_ms = pol->last.arrived / pol->last.ms;
        pol->mode = TPACKET_THROUGHPUT;
    } else {
        pol->mode = TPACKET_LOW_LATENCY;
    }
    pol->hold_ms = (now - pol->last_switch < 4 * pol->hold_ms
                    ? MIN(2 * pol->hold_ms, TPACKET_HOLD_MAX_MS)
                    : TPACKET_HOLD_MIN_MS);
    pol->last_switch = now;
    pol->quiet_since = now;
    pol->busy_windows = 0;
    /* The next window starts now: the grace period and the drain are no
     * sample of the new mode. */
    take_window(pol, now, counters);
}
