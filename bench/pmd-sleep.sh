#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: what an idle PMD's sleep costs in latency and saves in CPU.
# Two namespaces joined through pmdswitch (PMD on core 1, as in
# run-bench.sh).  Three ways for the PMD to spend its idle time, set live
# with other-config/set:
#
#   busy      pmd-sleep-max 0: it polls all the time
#   sleep     pmd-sleep-max 1000, pmd-sleep-predict false: it waits in
#             ppoll() and pays a wake-up for the first frame of a burst
#   predict   pmd-sleep-max 1000, pmd-sleep-predict true (the default): it
#             waits, but polls around the time periodic traffic is due
#
# For each, at each rate of exchanges (pings A -> B, -i 1/RATE, RATE 0:
# none), the PMD thread's CPU time in percent of one core (utime + stime
# from /proc) and the RTT average, p50 and p99 in microseconds, as a
# curve.  Also the PMD's predicted_polls and predicted_hits.
#
# Usage: pmd-sleep.sh [--tpacket true|false] [--seconds S] [--modes LIST]
#                     [RATE...]
#   RATEs are exchanges per second (default 0 100 1000 10000); each runs S
#   seconds (default 5).  LIST is a comma-separated subset of
#   busy,sleep,predict.
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).
# Needs root; uses only the namespaces and interfaces it creates.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"

TPACKET=true
SECS=5
MODES=busy,sleep,predict
RATES=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --tpacket) TPACKET=$2; shift 2 ;;
    --seconds) SECS=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    -h | --help) sed -n 's/^# Usage: //p; s/^#   /  /p' "$0"; exit 0 ;;
    -*) echo "pmd-sleep.sh: unknown option $1" >&2; exit 2 ;;
    *) RATES+=("$1"); shift ;;
    esac
done
((${#RATES[@]})) || RATES=(0 100 1000 10000)

ps_require_root
ps_require_cmds ip iperf3 ping python3 taskset
ps_require_daemon
ps_setup bsl

A=bsl-a
B=bsl-b
for ns in "$A" "$B"; do
    ps_add_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 bsl-a-sw 10.78.1.1/24
ps_add_veth_to_ns "$B" eth0 bsl-b-sw 10.78.1.2/24
CONFIG=$PS_LOG_DIR/config.json
PS_PMD_MASK=0x2 ps_write_config "$CONFIG" "$TPACKET" p1=bsl-a-sw p2=bsl-b-sw
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.78.1.2

# pmd_ticks: CPU time, in clock ticks, of the PMD thread on core 1.
pmd_ticks()
{
    local task
    for task in /proc/"$PS_DAEMON_PID"/task/*; do
        if [[ $(cat "$task/comm") == pmd-c01 ]]; then
            awk '{ print $14 + $15 }' "$task/stat"
            return
        fi
    done
    ps_fail "no pmd-c01 thread"
}

# cpu_percent SECONDS CMD...: the PMD's CPU share while CMD runs (or sleep
# SECONDS if no CMD).
cpu_percent()
{
    local secs=$1 t0 t1 hz start end
    shift
    hz=$(getconf CLK_TCK)
    t0=$(pmd_ticks)
    start=$(date +%s%N)
    if (($#)); then "$@" >/dev/null 2>&1 || true; else sleep "$secs"; fi
    end=$(date +%s%N)
    t1=$(pmd_ticks)
    python3 -c 'import sys
t, hz, ns = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print("%.1f" % (100.0 * t / hz / (ns / 1e9)))' "$((t1 - t0))" "$hz" \
        "$((end - start))"
}

# mode_settings MODE: the other-config/set arguments of MODE.
mode_settings()
{
    case $1 in
    busy) echo "pmd-sleep-max=0 pmd-sleep-predict=false" ;;
    sleep) echo "pmd-sleep-max=1000 pmd-sleep-predict=false" ;;
    predict) echo "pmd-sleep-max=1000 pmd-sleep-predict=true" ;;
    *) ps_fail "unknown mode $1 (busy, sleep or predict)" ;;
    esac
}

# pmd_counter NAME: a counter of pmd-stats-show's JSON, summed over PMDs.
pmd_counter()
{
    ps_appctl -f json dpif-netdev/pmd-stats-show |
        python3 -c 'import json, sys
print(sum(t.get(sys.argv[1], 0) for t in json.load(sys.stdin)
          if "core_id" in t))' "$1"
}

# exchange RATE: pings at RATE a second for SECS seconds, their output in
# $PS_LOG_DIR/ping.out.
exchange()
{
    local rate=$1 interval
    interval=$(python3 -c 'import sys; print("%.6f" % (1 / int(sys.argv[1])))' \
        "$rate")
    ip netns exec "$A" taskset -c 0 ping -n -c "$((rate * SECS))" \
        -i "$interval" -W 1 10.78.1.2 >"$PS_LOG_DIR/ping.out" 2>&1 || true
}

# rtt_stats: "avg p50 p99 lost" of the RTTs in $PS_LOG_DIR/ping.out, in
# microseconds.
rtt_stats()
{
    python3 -c 'import re, sys
text = open(sys.argv[1]).read()
rtts = sorted(float(m.group(1)) * 1000 for m in
              re.finditer(r"time=([0-9.]+) ms", text))
m = re.search(r"(\d+) packets transmitted, (\d+) received", text)
lost = int(m.group(1)) - int(m.group(2)) if m else "-"
if not rtts:
    print("- - - %s" % lost)
else:
    pick = lambda q: rtts[min(len(rtts) - 1, int(q * len(rtts)))]
    print("%.0f %.0f %.0f %s" % (sum(rtts) / len(rtts), pick(0.5),
                                 pick(0.99), lost))' "$PS_LOG_DIR/ping.out"
}

printf '\nmode | exchanges/s | PMD CPU %% | RTT avg (us) | p50 | p99 | lost | predicted polls | hits\n'
printf -- '---|---|---|---|---|---|---|---|---\n'
IFS=, read -r -a MODE_LIST <<<"$MODES"
for mode in "${MODE_LIST[@]}"; do
    read -r -a settings <<<"$(mode_settings "$mode")"
    ps_appctl other-config/set "${settings[@]}" >/dev/null
    for rate in "${RATES[@]}"; do
        sleep 0.5
        polls0=$(pmd_counter predicted_polls)
        hits0=$(pmd_counter predicted_hits)
        if ((rate == 0)); then
            cpu=$(cpu_percent "$SECS")
            stats="- - - -"
        else
            cpu=$(cpu_percent 0 exchange "$rate")
            stats=$(rtt_stats)
        fi
        read -r avg p50 p99 lost <<<"$stats"
        polls=$(($(pmd_counter predicted_polls) - polls0))
        hits=$(($(pmd_counter predicted_hits) - hits0))
        printf '%s | %s | %s | %s | %s | %s | %s | %s | %s\n' "$mode" \
            "$rate" "$cpu" "$avg" "$p50" "$p99" "$lost" "$polls" "$hits"
    done
done
ps_stop_daemon
