#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Profile: where pmdswitchd's cycles go under one workload.  Two namespaces
# joined through pmdswitch (PMD on core 1, tools on core 0, as in
# run-bench.sh); while the workload runs, `perf record` samples the daemon
# (cpu-clock, so it works without hardware counters) and the script prints
# the delivered rate and perf's top symbols, kernel and user, self time.
#
# Workloads:
#   udp64        64-byte UDP frames from trafgen, one flow
#   udp64-flows  the same over FLOWS distinct source ports x addresses
#   tcp          one iperf3 TCP stream, default offloads
#   tcp-no-offload  the same with tx checksumming, TSO and GSO off in both
#                namespaces: MTU-sized frames that the switch merges
#   idle         no traffic at all: what an idle switch spends
#
# Usage: perf-profile.sh [--tpacket true|false] [--seconds S] [--top N]
#                        [--flows N] [--sleep-max US] [--afxdp] WORKLOAD
#   --flows takes 1k, 100k or 1m (default 100k); --sleep-max sets
#   pmd-sleep-max (default: the daemon's default); --afxdp makes both
#   ports afxdp ports (and turns tx checksumming off in the namespaces).
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).
# Output files stay in the test log directory it prints (perf.data
# included), for `perf report -i`.
# Needs root and perf; uses only the namespaces and interfaces it creates.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"

TPACKET=true
SECONDS_RUN=5
TOP=25
FLOWS=100k
SLEEP_MAX=
AFXDP=
WORKLOAD=
while [[ $# -gt 0 ]]; do
    case $1 in
    --tpacket) TPACKET=$2; shift 2 ;;
    --seconds) SECONDS_RUN=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --flows) FLOWS=$2; shift 2 ;;
    --sleep-max) SLEEP_MAX=$2; shift 2 ;;
    --afxdp) AFXDP=afxdp:; shift ;;
    -h | --help)
        sed -n '/^# Usage:/,/^# Needs/ s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    udp64 | udp64-flows | tcp | tcp-no-offload | idle) WORKLOAD=$1; shift ;;
    *) echo "perf-profile.sh: unknown argument '$1' (try --help)" >&2
       exit 2 ;;
    esac
done
if [[ -z "$WORKLOAD" ]]; then
    echo "perf-profile.sh: name a workload (try --help)" >&2
    exit 2
fi

# Two coprime counters (source port, low bytes of the source address)
# repeat together after the product of their ranges.
case $FLOWS in
1k) SPORTS=31 ADDRS=33 ;;
100k) SPORTS=316 ADDRS=317 ;;
1m) SPORTS=1000 ADDRS=1001 ;;
*) echo "perf-profile.sh: --flows takes 1k, 100k or 1m" >&2; exit 2 ;;
esac

ps_require_root
ps_require_cmds ip perf trafgen iperf3 python3 taskset
ps_require_daemon
ps_setup bpp

A=bpp-a
B=bpp-b
ADDR_B=10.78.2.2
for ns in "$A" "$B"; do
    ps_add_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 bpp-a-sw 10.78.2.1/24
ps_add_veth_to_ns "$B" eth0 bpp-b-sw "$ADDR_B/24"
if [[ -n "$AFXDP" ]]; then
    for ns in "$A" "$B"; do
        ps_ns "$ns" ethtool -K eth0 tx off >/dev/null
    done
fi
if [[ $WORKLOAD == tcp-no-offload ]]; then
    for ns in "$A" "$B"; do
        ps_ns "$ns" ethtool -K eth0 tx off tso off gso off >/dev/null
    done
fi
CONFIG=$PS_LOG_DIR/config.json
extra=()
if [[ -n "$SLEEP_MAX" ]]; then
    extra+=("+pmd-sleep-max=$SLEEP_MAX")
fi
PS_PMD_MASK=0x2 ps_write_config "$CONFIG" "$TPACKET" p1="${AFXDP}bpp-a-sw" \
    p2="${AFXDP}bpp-b-sw" "${extra[@]}"
ps_start_daemon "$CONFIG"
taskset -a -p -c 1 "$PS_DAEMON_PID" >/dev/null
ps_ping_all "$A" 3 "$ADDR_B"

# trafgen_config FILE: 64-byte UDP frames A -> B (64 bytes without FCS);
# with udp64-flows the source port and the source address (10.99.x.y)
# count through coprime ranges, so the 5-tuples repeat only after
# SPORTS x ADDRS frames.
trafgen_config()
{
    local sa="saddr=10.78.2.1" sp="sp=9000"
    if [[ $WORKLOAD == udp64-flows ]]; then
        local first=$((0x0a630000))
        sa="saddr=10.99.0.0, saddr=dinc($first, $((first + ADDRS - 1)), 1)"
        sp="sp=dinc(1024, $((1024 + SPORTS - 1)), 1)"
    fi
    cat >"$1" <<EOF
{
  eth(da=$(ps_mac "$B" eth0), sa=$(ps_mac "$A" eth0), type=0x0800),
  ipv4($sa, daddr=$ADDR_B, ttl=64, proto=17),
  udp($sp, dp=9, csum=0),
  fill(0x00, 22)
}
EOF
}

start_load()
{
    case $WORKLOAD in
    udp64 | udp64-flows)
        # A socket on port 9 that is never read: B's kernel drops the
        # frames there instead of answering each one with an ICMP port
        # unreachable, work that veth would put on the switch's core.
        ps_bg sink ip netns exec "$B" taskset -c 0 python3 -c \
            'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9))
time.sleep(3600)'
        trafgen_config "$PS_LOG_DIR/trafgen.cfg"
        ps_bg trafgen ip netns exec "$A" taskset -c 0 trafgen -o eth0 \
            -i "$PS_LOG_DIR/trafgen.cfg" -P 1 --no-sock-mem -Q -C
        ;;
    idle)
        ps_bg idle sleep $((SECONDS_RUN + 3))
        ;;
    tcp | tcp-no-offload)
        ps_start_iperf3_server "$B" "$ADDR_B"
        ps_bg iperf3 ip netns exec "$A" taskset -c 0 iperf3 -c "$ADDR_B" \
            -t $((SECONDS_RUN + 3)) -J
        ;;
    esac
    LOAD_PID=$PS_BG_PID
    sleep 1
}

start_load
rx0=$(ps_if_stat "$B" eth0 rx_packets)
rb0=$(ps_if_stat "$B" eth0 rx_bytes)
cpu0=$(awk '{ print $14 + $15 }' /proc/"$PS_DAEMON_PID"/stat)
t0=$(date +%s%N)
perf record -F 1999 -g -o "$PS_LOG_DIR/perf.data" -p "$PS_DAEMON_PID" \
    -- sleep "$SECONDS_RUN" >"$PS_LOG_DIR/perf-record.out" 2>&1
t1=$(date +%s%N)
cpu1=$(awk '{ print $14 + $15 }' /proc/"$PS_DAEMON_PID"/stat)
rx1=$(ps_if_stat "$B" eth0 rx_packets)
rb1=$(ps_if_stat "$B" eth0 rx_bytes)
for child in $(cat /proc/"$LOAD_PID"/task/*/children 2>/dev/null); do
    kill -INT "$child" 2>/dev/null || true
done
ps_kill_bg "$LOAD_PID"

awk -v n=$((rx1 - rx0)) -v b=$((rb1 - rb0)) -v t=$((t1 - t0)) \
    'BEGIN { printf "delivered: %.3f Mpps, %.2f Gbit/s\n",
             n * 1000 / t, b * 8 / t }'
awk -v c=$((cpu1 - cpu0)) -v hz="$(getconf CLK_TCK)" -v t=$((t1 - t0)) \
    'BEGIN { printf "daemon CPU: %.1f %% of a core\n",
             100 * c / hz / (t / 1e9) }'
ps_appctl dpif-netdev/pmd-stats-show | sed '/^main thread/q' |
    grep -E "hits|miss|packets received"
perf report -i "$PS_LOG_DIR/perf.data" --no-children --sort symbol \
    --stdio -g none 2>/dev/null | grep -E '^ +[0-9.]+%' |
    sed 's/ *- *- *$//' >"$PS_LOG_DIR/symbols.txt" || true
printf '\ntop %d symbols (self), %s, use-tpacket-v3 %s:\n' "$TOP" \
    "$WORKLOAD" "$TPACKET"
head -n "$TOP" "$PS_LOG_DIR/symbols.txt"
printf '\ntop %d pmdswitchd symbols (self, share of all samples):\n' "$TOP"
grep -F '[.]' "$PS_LOG_DIR/symbols.txt" | head -n "$TOP"
ps_info "perf data: $PS_LOG_DIR/perf.data"
ps_stop_daemon
