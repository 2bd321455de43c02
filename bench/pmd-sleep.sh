#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: what pmd-sleep-max buys and costs.  Two namespaces joined
# through pmdswitch (PMD on core 1, as in run-bench.sh).  For each value of
# pmd-sleep-max, set live with other-config/set:
#
#   idle CPU   the PMD thread's CPU time over SECONDS s with no traffic, in
#              percent of one core (utime + stime from /proc)
#   ping       RTT p50 and p99 of 200 pings A -> B, 10 ms apart (light
#              load: the PMD waits between them)
#   loaded     the same pings while a UDP stream of about 20,000
#              datagrams a second runs A -> B (the PMD hardly waits);
#              compare with the busy-polling row (0)
#   busy CPU   the PMD's CPU share while ping -i 0.002 runs
#
# Usage: pmd-sleep.sh [--tpacket true|false] [--seconds S] [VALUE...]
#   VALUEs are pmd-sleep-max settings in microseconds (default 0 100 1000
#   10000).
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).
# Needs root; uses only the namespaces and interfaces it creates.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"

TPACKET=true
SECONDS_IDLE=5
VALUES=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --tpacket) TPACKET=$2; shift 2 ;;
    --seconds) SECONDS_IDLE=$2; shift 2 ;;
    -h | --help) sed -n 's/^# Usage: //p; s/^#   /  /p' "$0"; exit 0 ;;
    *) VALUES+=("$1"); shift ;;
    esac
done
((${#VALUES[@]})) || VALUES=(0 100 1000 10000)

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

# ping_pcts: "p50 p99" RTT in microseconds of 200 pings 10 ms apart.
ping_pcts()
{
    ip netns exec "$A" taskset -c 0 ping -n -c 200 -i 0.01 -W 1 10.78.1.2 |
        python3 -c 'import re, sys
rtts = sorted(float(m.group(1)) * 1000 for m in
              re.finditer(r"time=([0-9.]+) ms", sys.stdin.read()))
if not rtts:
    print("- -")
else:
    pick = lambda q: rtts[min(len(rtts) - 1, int(q * len(rtts)))]
    print("%.0f %.0f" % (pick(0.5), pick(0.99)))'
}

# loaded_ping_pcts: ping_pcts while iperf3 sends about 20,000 datagrams
# of 64 bytes a second from A to B.
loaded_ping_pcts()
{
    local client
    ps_bg load ip netns exec "$A" taskset -c 0 iperf3 -c 10.78.1.2 -u \
        -b 10M -l 64 -t 5 --pacing-timer 20 --connect-timeout 5000
    client=$PS_BG_PID
    sleep 0.5
    ping_pcts
    wait "$client" || ps_info "load stream: iperf3 exited with $?"
}

ps_start_iperf3_server "$B" 10.78.1.2
printf '\npmd-sleep-max (us) | idle CPU %% | ping p50 (us) | ping p99 (us) | loaded p50 (us) | loaded p99 (us) | CPU %% under ping -i 0.002\n'
printf -- '---|---|---|---|---|---|---\n'
for v in "${VALUES[@]}"; do
    ps_appctl other-config/set "pmd-sleep-max=$v" >/dev/null
    sleep 0.5
    idle=$(cpu_percent "$SECONDS_IDLE")
    read -r p50 p99 <<<"$(ping_pcts)"
    read -r lp50 lp99 <<<"$(loaded_ping_pcts)"
    busy=$(cpu_percent 0 ip netns exec "$A" taskset -c 0 ping -n -q -c 1000 \
        -i 0.002 10.78.1.2)
    printf '%s | %s | %s | %s | %s | %s | %s\n' "$v" "$idle" "$p50" "$p99" \
        "$lp50" "$lp99" "$busy"
done
ps_stop_daemon
