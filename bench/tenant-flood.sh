#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: what one tenant's attack costs the others.  Four namespaces
# on one switch: tfB and tfC are the tenants measured, tfA attacks and
# tfD is its accomplice.  For each switch and attack, while the attack
# runs:
#
#   ping   PING_COUNT (default 300) pings tfC -> tfB, 0.01 s apart: the
#          average RTT in us (first, so that no TCP run before it has moved
#          a tpacket queue to throughput mode)
#   tcp    iperf3, one TCP stream tfC -> tfB for DURATION s (default 8),
#          default offloads: the receiver's Gbit/s
#
# Attacks (tests/system/tenant-attack.py, in tfA, on core 0 with the
# tools, at nice 19 so that the tenants measured keep their share of the
# core; the rate each reached is reported):
#   none        nothing: the reference figures
#   macflood    1,000 broadcast frames a second (ethertype 0x88b5, 60
#               bytes), each from a new random source MAC
#   tupleflood  20,000 UDP frames a second to tfD, each with a random
#               source address and random ports
#   linkflap    tfD's eth0 goes down and up five times a second
#
# Switches: bridge (a Linux bridge) and pmdswitch (use-tpacket-v3 true,
# PMD on core 1, pmd-cpu-mask 0x2, the daemon's other threads on core 1
# too, as in run-bench.sh).  Each (switch, attack) pair runs RUNS times
# (default 3); the tables give medians (min-max) and, per attack, the
# others' share of their no-attack figures: TCP as a percentage (the
# target: at least 90 %) and ping as a factor (the target: at most 1.5x).
# For pmdswitch it also records, after each attack, fdb/stats-show and
# the PMD's revalidation counters.
#
# Output: bench/results/tenant-flood-STAMP.md and .json (every sample),
# tool logs in bench/results/logs-tenant-flood-STAMP/.
#
# Usage: tenant-flood.sh [--runs N] [--duration S] [--only SWITCH[,...]]
#                        [--attacks A[,...]]
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).
# Needs root; uses only the namespaces and interfaces it creates (prefix
# tf), removed on exit.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"
ATTACK_PY=$BENCH_DIR/../tests/system/tenant-attack.py

RUNS=3
DURATION=8
PING_COUNT=300
SWITCHES=(bridge pmdswitch)
ATTACKS=(none macflood tupleflood linkflap)
NS_A=tf-a
NS_B=tf-b
NS_C=tf-c
NS_D=tf-d

usage()
{
    sed -n '/^# Usage:/,/^# Needs root/p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

while [[ $# -gt 0 ]]; do
    case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --only) IFS=, read -r -a SWITCHES <<<"$2"; shift 2 ;;
    --attacks) IFS=, read -r -a ATTACKS <<<"$2"; shift 2 ;;
    -h | --help) usage ;;
    *) echo "tenant-flood.sh: unknown argument $1" >&2; usage 1 ;;
    esac
done

ps_require_root
ps_require_cmds ip iperf3 ping python3 taskset
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS=$BENCH_DIR/results
mkdir -p "$RESULTS"
PS_LOG_DIR=$RESULTS/logs-tenant-flood-$STAMP
ps_setup tf
SAMPLES=$PS_LOG_DIR/samples.txt
: >"$SAMPLES"

# topo: the four namespaces on veth pairs whose switch ends are tf-X-sw.
topo()
{
    local x i=1
    for x in a b c d; do
        ps_add_quiet_ns "tf-$x"
        ps_add_veth_to_ns "tf-$x" eth0 "tf-$x-sw" "10.78.0.$i/24"
        i=$((i + 1))
    done
}

start_switch()
{
    local config
    topo
    case $1 in
    bridge)
        ps_record_link tf-br
        ip link add tf-br type bridge
        echo 1 >/proc/sys/net/ipv6/conf/tf-br/disable_ipv6
        for x in a b c d; do
            ip link set dev "tf-$x-sw" master tf-br
        done
        ip link set dev tf-br up
        ;;
    pmdswitch)
        config=$PS_LOG_DIR/pmdswitch.json
        ps_write_config "$config" true pa=tf-a-sw pb=tf-b-sw pc=tf-c-sw \
            pd=tf-d-sw
        ps_start_daemon "$config"
        taskset -a -p -c 1 "$PS_DAEMON_PID" >/dev/null
        ;;
    esac
    # Everyone knows everyone: no first-packet ARP in the measurements.
    for x in a b c d; do
        ps_ns "tf-$x" ping -n -q -c 1 -W 1 10.78.0.2 >/dev/null 2>&1 || true
        ps_ns "tf-$x" ping -n -q -c 1 -W 1 10.78.0.4 >/dev/null 2>&1 || true
    done
    ps_ns "$NS_C" ping -n -q -c 3 -i 0.1 10.78.0.2 >/dev/null
}

stop_switch()
{
    if [[ $1 == pmdswitch && -n "$PS_DAEMON_PID" ]]; then
        ps_stop_daemon
    fi
    ps_teardown
}

ATTACK_PID=
ATTACK_START=
# attack_start ATTACK: starts ATTACK in the background, for long enough.
attack_start()
{
    local secs=$((DURATION + 30))
    ATTACK_PID=
    case $1 in
    none) return ;;
    macflood)
        ps_bg attack ip netns exec "$NS_A" taskset -c 0 nice -n 19 python3 \
            "$ATTACK_PY" macflood eth0 1000 "$secs"
        ;;
    tupleflood)
        ps_bg attack ip netns exec "$NS_A" taskset -c 0 nice -n 19 python3 \
            "$ATTACK_PY" tupleflood eth0 "$(ps_mac "$NS_D" eth0)" \
            10.78.0.4 20000 "$secs"
        ;;
    linkflap)
        ps_bg attack bash -c "end=\$((SECONDS + $secs))
            while ((SECONDS < end)); do
                ip -n $NS_D link set dev eth0 down; sleep 0.1
                ip -n $NS_D link set dev eth0 up; sleep 0.1
            done"
        ;;
    esac
    ATTACK_PID=$PS_BG_PID
    ATTACK_START=$EPOCHREALTIME
    sleep 1                     # Let it reach its rate.
}

# attack_stop SWITCH ATTACK RUN: stops the attack; records the frames a
# second it sent (tenant-attack.py prints "sent N" when stopped).
attack_stop()
{
    local sent
    if [[ -n "$ATTACK_PID" ]]; then
        ps_kill_bg "$ATTACK_PID"
        ATTACK_PID=
        ip -n "$NS_D" link set dev eth0 up
        sent=$(sed -n 's/^sent \([0-9]*\) .*/\1/p' "$PS_LOG_DIR/attack.out")
        if [[ -n $sent ]]; then
            sample "$1" "$2" attack_fps "$3" "$(python3 -c '
import sys
print("%.0f" % (int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))' \
                "$sent" "$ATTACK_START" "$EPOCHREALTIME")"
        fi
    fi
}

# sample SWITCH ATTACK METRIC RUN VALUE
sample()
{
    printf '%s %s %s %s %s\n' "$@" >>"$SAMPLES"
    ps_info "$1 $2 $3 run $4: $5"
}

measure_tcp()
{
    local sw=$1 at=$2 run=$3 json=$PS_LOG_DIR/$1-$2-tcp-$3.json server
    ps_bg "iperf-server" ip netns exec "$NS_B" taskset -c 0 iperf3 -s -1 \
        -B 10.78.0.2
    server=$PS_BG_PID
    ps_wait_until 5 ps_tcp_listening "$NS_B" 5201 ||
        ps_fail "iperf3 server did not start"
    timeout $((DURATION + 30)) ip netns exec "$NS_C" taskset -c 0 \
        iperf3 -c 10.78.0.2 -t "$DURATION" -J --connect-timeout 5000 \
        >"$json" 2>&1 || true
    ps_kill_bg "$server"
    sample "$sw" "$at" tcp "$run" "$(python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print("%.2f" % (j["end"]["sum_received"]["bits_per_second"] / 1e9))
except Exception:
    print("nan")' "$json")"
}

measure_ping()
{
    local sw=$1 at=$2 run=$3 out=$PS_LOG_DIR/$1-$2-ping-$3.txt
    ip netns exec "$NS_C" taskset -c 0 ping -n -c "$PING_COUNT" -i 0.01 \
        -W 1 10.78.0.2 >"$out" 2>&1 || true
    sample "$sw" "$at" ping "$run" "$(python3 -c '
import re, sys
rtts = [float(m) for m in re.findall(r"time=([0-9.]+) ms",
                                      open(sys.argv[1]).read())]
print("%.1f" % (1000 * sum(rtts) / len(rtts)) if rtts else "nan")' "$out")"
}

# record_pmdswitch ATTACK RUN: what the switch says after ATTACK.
record_pmdswitch()
{
    local out=$PS_LOG_DIR/pmdswitch-$1-$2-switch.txt
    {
        ps_appctl fdb/stats-show br0
        ps_appctl -f json dpif-netdev/pmd-stats-show
        ps_appctl coverage/show
    } >"$out" 2>&1 || true
}

for sw in "${SWITCHES[@]}"; do
    case $sw in
    bridge | pmdswitch) ;;
    *) ps_fail "unknown switch $sw (bridge, pmdswitch)" ;;
    esac
    if [[ $sw == pmdswitch ]]; then
        ps_require_daemon
    fi
    for ((run = 1; run <= RUNS; run++)); do
        for at in "${ATTACKS[@]}"; do
            ps_info "=== $sw, attack $at, run $run"
            start_switch "$sw"
            attack_start "$at"
            measure_ping "$sw" "$at" "$run"
            measure_tcp "$sw" "$at" "$run"
            attack_stop "$sw" "$at" "$run"
            if [[ $sw == pmdswitch ]]; then
                record_pmdswitch "$at" "$run"
            fi
            stop_switch "$sw"
        done
    done
done

python3 - "$SAMPLES" "$RESULTS/tenant-flood-$STAMP" "$DURATION" \
    "$PING_COUNT" "$(uname -r)" <<'EOF'
import json
import math
import statistics
import sys

samples, base, duration, ping_count, kernel = sys.argv[1:6]
data = {}
order = []
for line in open(samples):
    sw, attack, metric, run, value = line.split()
    key = (sw, attack)
    if key not in order:
        order.append(key)
    data.setdefault(key, {}).setdefault(metric, []).append(float(value))


def med(values):
    good = [v for v in values if not math.isnan(v)]
    return statistics.median(good) if good else math.nan


def cell(values, fmt):
    good = [v for v in values if not math.isnan(v)]
    if not good:
        return "n/a"
    return (fmt % med(good)) + " (" + (fmt % min(good)) + "-" + \
        (fmt % max(good)) + ")"


lines = ["# What one tenant's attack costs the others", "",
         "tfC -> tfB while tfA (or tfD) attacks; medians (min-max) of "
         "every run; TCP %s s, %s pings 0.01 s apart; kernel %s." %
         (duration, ping_count, kernel), "",
         "| switch | attack | attack frames/s | TCP Gbit/s | share of no "
         "attack | ping avg us | factor of no attack | within target |",
         "|---|---|---|---|---|---|---|---|"]
summary = []
for sw, attack in order:
    d = data[(sw, attack)]
    ref = data.get((sw, "none"), {})
    tcp, ping = d.get("tcp", []), d.get("ping", [])
    share = med(tcp) / med(ref.get("tcp", [math.nan]))
    factor = med(ping) / med(ref.get("ping", [math.nan]))
    ok = "-" if attack == "none" else (
        "yes" if share >= 0.9 and factor <= 1.5 else "no")
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        sw, attack, cell(d.get("attack_fps", []), "%.0f")
        if attack not in ("none", "linkflap") else "-", cell(tcp, "%.2f"),
        "-" if attack == "none" or math.isnan(share) else "%.0f %%" %
        (100 * share), cell(ping, "%.0f"),
        "-" if attack == "none" or math.isnan(factor) else "%.2fx" % factor,
        ok))
    summary.append({"switch": sw, "attack": attack, "tcp_gbps": tcp,
                    "ping_avg_us": ping, "tcp_share": share,
                    "ping_factor": factor})
lines += ["", "Targets: TCP at least 90 % of the no-attack figure, ping at "
          "most 1.5x, on the same switch in the same run."]
open(base + ".md", "w").write("\n".join(lines) + "\n")
json.dump({"duration_s": float(duration), "ping_count": int(ping_count),
           "kernel": kernel, "results": summary},
          open(base + ".json", "w"), indent=2, default=str)
print("\n".join(lines))
print("\nwritten: %s.md, %s.json" % (base, base))
EOF
