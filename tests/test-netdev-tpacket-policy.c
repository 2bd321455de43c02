/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the tpacket receive-mode policy.  A small simulator plays the
 * PMD (it counts polls the way netdev-tpacket-rx.c does) and the control
 * thread (it runs the policy once per ms of a fake clock and makes every
 * switch it asks for), so each case describes a load and checks when the
 * mode changes.  No sockets, no root.
 */
#include <autoconf.h>
#include "netdev/netdev-tpacket-policy.h"

#include <stdio.h>
#include <string.h>
#include "check.h"
#include "base/util.h"

#define BATCH 32                /* Frames in a full batch. */
#define T0 1000                 /* Fake clock at queue creation (ms). */
#define MAX_SWITCHES 64

/* Traffic during one ms: 'n_polls' polls that return frames, 'n_full' of
 * them a full batch, the other frames spread over the rest.  The kernel
 * hands the queue 'frames' minus 'backlog' frames in that ms. */
struct load {
    int frames;                 /* Frames read per ms. */
    int n_polls;                /* Busy polls per ms. */
    int n_full;                 /* Of those, full ones. */
    int frame_bytes;            /* Size of every frame. */
    int backlog;                /* Of 'frames', ones that arrived before
                                 * (a backlog read), not in this ms. */
};

static const struct load quiet = { 0, 0, 0, 64 };
static const struct load flood_64 = { 300, 10, 9, 64 };

struct sim {
    struct tpacket_policy pol;
    struct tpacket_policy_window counters;
    long long now;
    bool draining;              /* Passed to the policy. */
    bool refuse;                /* Do not make requested switches. */
    int n_requests;
    int n_switches;
    long long times[MAX_SWITCHES];     /* When each switch happened. */
    int holds[MAX_SWITCHES];           /* Hold after each switch. */
    int holds_before[MAX_SWITCHES];    /* Hold in force before it. */
    enum tpacket_mode modes[MAX_SWITCHES]; /* Mode after each switch. */
};

static void
sim_init(struct sim *sim, enum tpacket_mode mode, bool pinned,
         int timeout_ms)
{
    memset(sim, 0, sizeof *sim);
    sim->now = T0;
    tpacket_policy_init(&sim->pol, mode, pinned, timeout_ms, sim->now);
}

/* One poll that returned 'n' frames of 'size' bytes. */
static void
sim_poll(struct sim *sim, int n, int size)
{
    sim->counters.frames += n;
    sim->counters.bytes += (uint64_t) n * size;
    /* The PMD counts polls only on the low-latency socket. */
    if (sim->pol.mode == TPACKET_LOW_LATENCY && n) {
        sim->counters.polls_busy++;
        sim->counters.polls_full += n == BATCH;
    }
}

/* Plays one ms of 'load', then runs the policy as the control thread. */
static void
sim_ms(struct sim *sim, const struct load *load)
{
    int n_partial = load->n_polls - load->n_full;
    int rest = load->frames - load->n_full * BATCH;
    enum tpacket_policy_verdict verdict;

    sim->counters.arrived += load->frames - load->backlog;
    for (int i = 0; i < load->n_full; i++) {
        sim_poll(sim, BATCH, load->frame_bytes);
    }
    for (int i = 0; i < n_partial; i++) {
        int n = rest / n_partial + (i < rest % n_partial);

        sim_poll(sim, n, load->frame_bytes);
    }
    sim->now++;

    verdict = tpacket_policy_run(&sim->pol, sim->now, &sim->counters,
                                 sim->draining);
    if (verdict == TPACKET_POLICY_STAY) {
        return;
    }
    sim->n_requests++;
    CHECK(verdict == (sim->pol.mode == TPACKET_LOW_LATENCY
                      ? TPACKET_POLICY_TO_THROUGHPUT
                      : TPACKET_POLICY_TO_LOW_LATENCY),
          "at %lld: verdict %d in mode %d", sim->now, (int) verdict,
          (int) sim->pol.mode);
    if (sim->refuse || sim->n_switches >= MAX_SWITCHES) {
        return;
    }
    sim->holds_before[sim->n_switches] = sim->pol.hold_ms;
    tpacket_policy_switched(&sim->pol, sim->now, &sim->counters);
    sim->times[sim->n_switches] = sim->now;
    sim->holds[sim->n_switches] = sim->pol.hold_ms;
    sim->modes[sim->n_switches] = sim->pol.mode;
    sim->n_switches++;
}

/* Plays 'load' for 'ms' ms. */
static void
sim_run(struct sim *sim, const struct load *load, int ms)
{
    for (int i = 0; i < ms; i++) {
        sim_ms(sim, load);
    }
}

/* Plays 'load' until the mode changes or 'max_ms' pass.  Returns the time
 * of the switch, or -1. */
static long long
sim_run_until_switch(struct sim *sim, const struct load *load, int max_ms)
{
    int before = sim->n_switches;

    for (int i = 0; i < max_ms; i++) {
        sim_ms(sim, load);
        if (sim->n_switches != before) {
            return sim->times[before];
        }
    }
    return -1;
}

/* Checks that 'load' from creation in low-latency mode does ('expected')
 * or does not request the ring within 'ms'. */
static void
check_load_at(const char *file, int line, const char *name,
              struct load load, bool expected, int ms)
{
    struct sim sim;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim_run(&sim, &load, ms);
    CHECK_AT(file, line, (sim.n_switches > 0) == expected,
             "%s (%d frames/ms of %d bytes, %d polls, %d full): %d "
             "switches", name, load.frames, load.frame_bytes, load.n_polls,
             load.n_full, sim.n_switches);
    if (expected && sim.n_switches) {
        CHECK_AT(file, line, sim.modes[0] == TPACKET_THROUGHPUT,
                 "%s: first switch to mode %d", name, (int) sim.modes[0]);
    }
}

#define CHECK_LOAD(NAME, LOAD, EXPECTED, MS)                            \
    check_load_at(__FILE__, __LINE__, NAME, LOAD, EXPECTED, MS)

static void
test_flood_requests_throughput(void)
{
    struct sim sim;
    long long t;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    t = sim_run_until_switch(&sim, &flood_64, 100);
    /* Not before the initial hold; then the first 2 ms window. */
    CHECK(t >= T0 + 10 && t <= T0 + 12, "flood switched at %lld", t - T0);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);

    /* The flood keeps it there. */
    sim_run(&sim, &flood_64, 1000);
    CHECK_INT(sim.n_switches, 1);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
}

static void
test_rate_threshold(void)
{
    /* Rule (a): 100 frames per ms, whatever their size or batching. */
    CHECK_LOAD("99 singles", ((struct load) { 99, 99, 0, 64 }), false, 500);
    CHECK_LOAD("100 singles", ((struct load) { 100, 100, 0, 64 }), true, 50);
    CHECK_LOAD("100 jumbo singles", ((struct load) { 100, 100, 0, 9000 }),
               true, 50);
}

static void
test_large_frames_stay(void)
{
    /* One TCP stream with GSO: about 26 frames/ms of 62 KB, 1.3 frames per
     * busy poll. */
    CHECK_LOAD("tcp gso", ((struct load) { 26, 20, 0, 63488 }), false, 2000);
    /* With an occasional full batch. */
    CHECK_LOAD("tcp gso bursty", ((struct load) { 40, 9, 1, 63488 }), false,
               2000);
    /* Even when the PMD lags: large frames are better copied on its
     * core. */
    CHECK_LOAD("gso lagging", ((struct load) { 80, 4, 2, 63488 }), false,
               2000);
    CHECK_LOAD("just over 2 KB", ((struct load) { 80, 4, 2, 2049 }), false,
               2000);
}

static void
test_full_batches_of_small_frames(void)
{
    /* Rule (b): below rule (a)'s rate, but half the polls are full. */
    CHECK_LOAD("mtu lagging", ((struct load) { 80, 4, 2, 1500 }), true, 50);
    CHECK_LOAD("2 KB lagging", ((struct load) { 80, 4, 2, 2048 }), true, 50);
    CHECK_LOAD("64 B lagging", ((struct load) { 66, 4, 2, 64 }), true, 50);
    CHECK_LOAD("3 of 4 full", ((struct load) { 97, 4, 3, 64 }), true, 50);
    /* Fewer than half the polls full. */
    CHECK_LOAD("some full", ((struct load) { 80, 5, 2, 64 }), false, 2000);
    /* Too few busy polls in a window to judge. */
    CHECK_LOAD("3 polls", ((struct load) { 96, 3, 3, 64 }), false, 2000);
}

/* A 2 frames/ms stream that the PMD drains in full batches after each
 * stall of a busy host: read that fast, but arriving slowly, so the queue
 * stays on the socket whose buffer outlasts the stalls. */
static void
test_catch_up_after_stall_stays(void)
{
    static const struct load trickle = { 2, 2, 0, 250, 0 };
    static const struct load catch_up = { 224, 7, 7, 250, 222 };
    static const struct load lagging = { 224, 7, 7, 250, 0 };
    struct sim sim;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    for (int stall = 0; stall < 20; stall++) {
        sim_run(&sim, &trickle, 100);
        sim_ms(&sim, &catch_up);
    }
    sim_run(&sim, &trickle, 100);
    CHECK_INT(sim.n_switches, 0);
    CHECK_INT(sim.pol.mode, TPACKET_LOW_LATENCY);

    /* Full batches while as many frames arrive as are read: a lagging
     * PMD, for the ring. */
    sim_run(&sim, &lagging, 6);
    CHECK_INT(sim.n_switches, 1);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
}

/* The backlog a port reads when first polled after a hand-over: 250 ms of
 * a 5 frames/ms stream (1,250 frames) read at about 200 frames/ms in full
 * batches for 6 ms, then the stream itself.  Many windows in a row meet
 * (a) and (b) by what the PMD read; none does by what arrived. */
static void
test_backlog_after_hand_over_stays(void)
{
    static const struct load backlog = { 208, 7, 6, 106, 203 };
    static const struct load stream = { 5, 3, 0, 106, 0 };
    struct sim sim;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim_run(&sim, &backlog, 6);
    sim_run(&sim, &stream, 200);
    CHECK_INT(sim.n_switches, 0);
    CHECK_INT(sim.pol.mode, TPACKET_LOW_LATENCY);
    CHECK(sim.pol.last.arrived == 10 && sim.pol.last.frames == 10,
          "last window: %llu arrived, %llu read",
          (unsigned long long) sim.pol.last.arrived,
          (unsigned long long) sim.pol.last.frames);
}

static void
test_quiet_returns_after_hold(void)
{
    struct sim sim;
    long long end, t;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim_run(&sim, &flood_64, 50);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
    end = sim.now;
    t = sim_run_until_switch(&sim, &quiet, 200);
    /* Every window quiet for 20 ms, judged in 4 ms windows. */
    CHECK(t >= end + 20 && t <= end + 28, "back %lld ms after the flood",
          t - end);
    CHECK_INT(sim.pol.mode, TPACKET_LOW_LATENCY);

    /* A longer block timeout stretches both the window and the quiet
     * time (8 timeouts). */
    sim_init(&sim, TPACKET_LOW_LATENCY, false, 5);
    sim_run(&sim, &flood_64, 50);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
    end = sim.now;
    t = sim_run_until_switch(&sim, &quiet, 200);
    CHECK(t >= end + 40 && t <= end + 60, "timeout 5: back %lld ms after",
          t - end);
}

static void
test_quiet_threshold(void)
{
    static const struct load rate_60 = { 60, 60, 0, 64 };
    static const struct load rate_40 = { 40, 40, 0, 64 };
    static const struct load lagging_66 = { 66, 4, 2, 64 };
    static const struct load rate_30 = { 30, 30, 0, 64 };
    struct sim sim;

    /* After a 300 frames/ms flood, quiet is below 50 frames/ms. */
    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim_run(&sim, &flood_64, 50);
    sim_run(&sim, &rate_60, 1000);
    CHECK_INT(sim.n_switches, 1);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
    CHECK(sim_run_until_switch(&sim, &rate_40, 100) > 0,
          "40 frames/ms after a flood stays on the ring");

    /* After a switch by rule (b) at 66 frames/ms, below 33. */
    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim_run(&sim, &lagging_66, 50);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
    sim_run(&sim, &rate_40, 1000);
    CHECK_INT(sim.n_switches, 1);
    CHECK(sim_run_until_switch(&sim, &rate_30, 100) > 0,
          "30 frames/ms after 66 stays on the ring");
}

static void
test_flapping_doubles_hold(void)
{
    static const int expected[] = { 20, 40, 80, 160, 250, 250, 250, 250 };
    struct sim sim;
    long long t;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    for (int i = 0; i < ARRAY_SIZE(expected); i++) {
        const struct load *load = (sim.pol.mode == TPACKET_LOW_LATENCY
                                   ? &flood_64 : &quiet);

        t = sim_run_until_switch(&sim, load, 1000);
        CHECK(t > 0, "flap %d: no switch", i);
    }
    CHECK_INT(sim.n_switches, ARRAY_SIZE(expected));
    for (int i = 0; i < sim.n_switches && i < ARRAY_SIZE(expected); i++) {
        long long prev = i ? sim.times[i - 1] : T0;

        CHECK(sim.holds[i] == expected[i], "flap %d: hold %d, expected %d",
              i, sim.holds[i], expected[i]);
        CHECK(sim.times[i] - prev >= sim.holds_before[i],
              "flap %d: switched %lld ms after the previous, hold %d", i,
              sim.times[i] - prev, sim.holds_before[i]);
        CHECK(sim.modes[i] == (i % 2 ? TPACKET_LOW_LATENCY
                               : TPACKET_THROUGHPUT),
              "flap %d: mode %d", i, (int) sim.modes[i]);
    }
    CHECK_INT(sim.pol.mode, TPACKET_LOW_LATENCY);

    /* The next switch comes within four holds: the hold stays capped and
     * the flood waits for all of it. */
    t = sim_run_until_switch(&sim, &flood_64, 1000);
    CHECK(t - sim.times[sim.n_switches - 2] >= 250,
          "switched %lld ms after the previous, hold 250",
          t - sim.times[sim.n_switches - 2]);
    CHECK_INT(sim.pol.hold_ms, 250);

    /* After more than four holds without a switch, the hold resets. */
    t = sim_run_until_switch(&sim, &quiet, 1000);
    CHECK(t > 0, "no switch back");
    sim_run(&sim, &quiet, 1100);
    t = sim_run_until_switch(&sim, &flood_64, 100);
    CHECK(t > 0, "no switch after the long quiet");
    CHECK_INT(sim.pol.hold_ms, 10);
}

static void
test_draining_defers(void)
{
    struct sim sim;
    long long t;

    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim.draining = true;
    sim_run(&sim, &flood_64, 100);
    CHECK_INT(sim.n_requests, 0);
    sim.draining = false;
    t = sim_run_until_switch(&sim, &flood_64, 100);
    CHECK(t > 0 && t <= sim.now && t - (T0 + 100) <= 2,
          "switch %lld ms after the drain ended", t - (T0 + 100));
}

static void
test_pinned_never_switches(void)
{
    struct sim sim;

    sim_init(&sim, TPACKET_LOW_LATENCY, true, 1);
    sim_run(&sim, &flood_64, 500);
    CHECK_INT(sim.n_requests, 0);
    CHECK_INT(sim.pol.mode, TPACKET_LOW_LATENCY);

    sim_init(&sim, TPACKET_THROUGHPUT, true, 1);
    sim_run(&sim, &quiet, 500);
    CHECK_INT(sim.n_requests, 0);
    CHECK_INT(sim.pol.mode, TPACKET_THROUGHPUT);
}

static void
test_failed_switch_is_asked_again(void)
{
    struct sim sim;

    /* The caller could not steer: the policy keeps its mode and asks
     * again at the end of each following window. */
    sim_init(&sim, TPACKET_LOW_LATENCY, false, 1);
    sim.refuse = true;
    sim_run(&sim, &flood_64, 20);
    CHECK_INT(sim.pol.mode, TPACKET_LOW_LATENCY);
    CHECK_INT(sim.pol.hold_ms, 10);
    CHECK(sim.n_requests >= 4, "%d requests", sim.n_requests);
    CHECK(sim.pol.last.ms == 2 && sim.pol.last.frames == 600,
          "last window %lld ms, %llu frames", sim.pol.last.ms,
          (unsigned long long) sim.pol.last.frames);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "flood_requests_throughput", test_flood_requests_throughput },
        { "rate_threshold", test_rate_threshold },
        { "large_frames_stay", test_large_frames_stay },
        { "full_batches_of_small_frames",
          test_full_batches_of_small_frames },
        { "backlog_after_hand_over_stays",
          test_backlog_after_hand_over_stays },
        { "catch_up_after_stall_stays", test_catch_up_after_stall_stays },
        { "quiet_returns_after_hold", test_quiet_returns_after_hold },
        { "quiet_threshold", test_quiet_threshold },
        { "flapping_doubles_hold", test_flapping_doubles_hold },
        { "draining_defers", test_draining_defers },
        { "pinned_never_switches", test_pinned_never_switches },
        { "failed_switch_is_asked_again",
          test_failed_switch_is_asked_again },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-netdev-tpacket-policy");
}
