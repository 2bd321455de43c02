#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: pmdswitch against reference forwarders on one machine.  Two
# namespaces, bnA and bnB, are joined through the switch under test by
# veth pairs (bnA eth0 <-> bn-a-sw, bnB eth0 <-> bn-b-sw).  The switch runs
# on core 1 (taskset and pmd-cpu-mask 0x2), the traffic tools on core 0.
#
# Switches: veth (one veth pair joins bnA and bnB, no switch), bridge (Linux
# bridge), ovs-tso-off and ovs-tso-on (Open vSwitch userspace datapath,
# datapath_type=netdev, NORMAL, userspace-tso-enable false/true, run from a
# private database and run directory), pmdswitch-tpacket and
# pmdswitch-mmsg (use-tpacket-v3 true/false).  pmdswitch is skipped, with
# a note, if its binary is not built.
#
# Workloads, each run RUNS times (default 3) per switch:
#   tcp             iperf3, one TCP stream A -> B, DURATION s, offloads on
#   tcp-no-offload  the same with tx, tso and gso off in both namespaces
#   udp64           64-byte UDP frames from trafgen (AF_PACKET tx ring) in
#                   A; frames per second received by B's eth0 over DURATION
#                   s after 1 s of warm-up
#   ping            100 pings A -> B, 0.01 s apart: avg, p50, p99 RTT
#
# Output: a markdown table of medians (min–max) per switch and workload,
# ratios of pmdswitch to each reference, and bench/results/bench-STAMP.json
# with every sample (plus .md); tool logs in bench/results/logs-STAMP/.
#
# Usage: run-bench.sh [--runs N] [--duration S] [--only SWITCH[,SWITCH...]]
#                     [--workloads W[,W...]] [--quick]
#   --only takes switch names or prefixes (ovs, pmdswitch); --quick means
#   --runs 1 --duration 3 unless those are given.
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).
# Needs root; uses only the namespaces and interfaces it creates.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"
REPORT=$BENCH_DIR/lib/report.py

ALL_SWITCHES=(veth bridge ovs-tso-off ovs-tso-on pmdswitch-tpacket
    pmdswitch-mmsg)
ALL_WORKLOADS=(tcp tcp-no-offload udp64 ping)
RUNS=
DURATION=
ONLY=
WORKLOADS=
QUICK=
PING_COUNT=100
NS_A=bnA
NS_B=bnB
ADDR_A=10.78.0.1
ADDR_B=10.78.0.2
OVS_SCHEMA=${OVS_SCHEMA:-/usr/share/openvswitch/vswitch.ovsschema}

usage()
{
    sed -n '/^# Usage:/,/^# Needs root/ s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit "$1"
}

while [[ $# -gt 0 ]]; do
    case $1 in
    --runs)
        [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage 2
        RUNS=$2
        shift 2
        ;;
    --duration)
        [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage 2
        DURATION=$2
        shift 2
        ;;
    --only)
        [[ $# -ge 2 ]] || usage 2
        ONLY=$2
        shift 2
        ;;
    --workloads)
        [[ $# -ge 2 ]] || usage 2
        WORKLOADS=$2
        shift 2
        ;;
    --quick)
        QUICK=1
        shift
        ;;
    -h | --help)
        usage 0
        ;;
    *)
        usage 2
        ;;
    esac
done
if [[ -n "$QUICK" ]]; then
    RUNS=${RUNS:-1}
    DURATION=${DURATION:-3}
fi
RUNS=${RUNS:-3}
DURATION=${DURATION:-10}

# select LIST ALL...: the names in ALL that LIST (comma-separated names or
# prefixes) selects, or all of them if LIST is empty; fails on a name that
# selects nothing.
select_names()
{
    local list=$1 want name found
    shift
    if [[ -z "$list" ]]; then
        printf '%s\n' "$@"
        return
    fi
    local -a wants
    IFS=, read -r -a wants <<<"$list"
    for name in "$@"; do
        for want in "${wants[@]}"; do
            if [[ $name == "$want" || $name == "$want"-* ]]; then
                printf '%s\n' "$name"
                break
            fi
        done
    done
    for want in "${wants[@]}"; do
        found=
        for name in "$@"; do
            if [[ $name == "$want" || $name == "$want"-* ]]; then
                found=1
            fi
        done
        if [[ -z "$found" ]]; then
            echo "run-bench.sh: unknown name '$want' (known: $*)" >&2
            exit 2
        fi
    done
}
mapfile -t SWITCHES < <(select_names "$ONLY" "${ALL_SWITCHES[@]}")
mapfile -t RUN_WORKLOADS < <(select_names "$WORKLOADS" "${ALL_WORKLOADS[@]}")

if [[ $(id -u) -ne 0 ]]; then
    echo "run-bench.sh: needs root" >&2
    exit 77
fi
for cmd in ip iperf3 ethtool trafgen ping taskset python3; do
    if ! command -v "$cmd" >/dev/null 2>&1; then
        echo "run-bench.sh: '$cmd' is not installed" >&2
        exit 1
    fi
done

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS_DIR=$BENCH_DIR/results
PS_LOG_DIR=$RESULTS_DIR/logs-$STAMP
mkdir -p "$PS_LOG_DIR"
SAMPLES=$PS_LOG_DIR/samples.jsonl
: >"$SAMPLES"
NOTES=()
SUMMARIZED=

ps_setup bn

# ---------------------------------------------------------------------------
# Report.

# summarize: writes bench-STAMP.json and .md and prints the table.
summarize()
{
    local meta=$PS_LOG_DIR/meta.json
    SUMMARIZED=1
    python3 - "$meta" "$STAMP" "$RUNS" "$DURATION" "$PING_COUNT" \
        "${NOTES[@]}" <<'EOF'
import json
import platform
import subprocess
import sys

path, stamp, runs, duration = sys.argv[1:5]
def command_output(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except OSError:
        return None
def first_line(*args):
    lines = (command_output(*args) or "").splitlines()
    return lines[0] if lines else None
cpu = None
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
except OSError:
    pass
meta = {
    "stamp": stamp, "runs": int(runs), "duration_s": int(duration),
    "ping_count": int(sys.argv[5]), "ping_interval_s": 0.01,
    "kernel": platform.release(), "cpu": cpu,
    "cpus": len(__import__("os").sched_getaffinity(0)),
    "pinning": "switch on core 1 (taskset, pmd-cpu-mask 0x2); "
               "iperf3, trafgen and ping on core 0",
    "frame_size_udp64": "64 bytes without FCS",
    "ovs_version": first_line("ovs-vswitchd", "--version"),
    "iperf3_version": first_line("iperf3", "--version"),
    "trafgen_version": first_line("trafgen", "--version"),
    "load_average_at_end": __import__("os").getloadavg(),
    "notes": sys.argv[6:],
}
with open(path, "w") as f:
    json.dump(meta, f, indent=2)
EOF
    echo
    python3 "$REPORT" summarize "$SAMPLES" "$meta" \
        "$RESULTS_DIR/bench-$STAMP.json" "$RESULTS_DIR/bench-$STAMP.md"
    echo
    echo "results: $RESULTS_DIR/bench-$STAMP.json (.md), logs: $PS_LOG_DIR"
}

# On a failure part-way, still report what was measured, then clean up.
bench_on_exit()
{
    local rc=$?
    set +e
    if [[ -z "$SUMMARIZED" && -s "$SAMPLES" ]]; then
        NOTES+=("incomplete run: the benchmark stopped early (status $rc)")
        summarize
    fi
    ps_finish "$rc"
}
trap bench_on_exit EXIT

# emit SWITCH WORKLOAD RUN JSON: appends one sample; JSON is an object with
# at least "value" (null if the run failed).
emit()
{
    printf '{"switch": "%s", "workload": "%s", "run": %d, %s\n' \
        "$1" "$2" "$3" "${4#\{}" >>"$SAMPLES"
}

# ---------------------------------------------------------------------------
# Topologies and switches.

# ns_setup: the two namespaces, with IPv6 off so that only the workloads
# send anything.
ns_setup()
{
    ps_add_quiet_ns "$NS_A"
    ps_add_quiet_ns "$NS_B"
}

topo_direct()
{
    ns_setup
    ps_add_veth_between "$NS_A" eth0 "$NS_B" eth0
    ip -n "$NS_A" addr add "$ADDR_A/24" dev eth0
    ip -n "$NS_B" addr add "$ADDR_B/24" dev eth0
}

topo_switched()
{
    ns_setup
    ps_add_veth_to_ns "$NS_A" eth0 bn-a-sw "$ADDR_A/24"
    ps_add_veth_to_ns "$NS_B" eth0 bn-b-sw "$ADDR_B/24"
}

start_bridge()
{
    topo_switched
    ps_record_link bn-br
    ip link add bn-br type bridge
    echo 1 >/proc/sys/net/ipv6/conf/bn-br/disable_ipv6
    ip link set dev bn-a-sw master bn-br
    ip link set dev bn-b-sw master bn-br
    ip link set dev bn-br up
}

OVS_DIR=
OVS_VSWITCHD_PID=

# vsctl ARG...: ovs-vsctl against the private database.
vsctl()
{
    ovs-vsctl --db="unix:$OVS_DIR/db.sock" --timeout=20 "$@"
}

# start_ovs NAME TSO: ovsdb-server and ovs-vswitchd (on core 1) from a
# fresh database in a temporary directory, a netdev bridge bn-ovs with
# both switch ports, pmd-cpu-mask 0x2, userspace-tso-enable TSO.
start_ovs()
{
    local name=$1 tso=$2
    local note="OVS: system-type ports on the netdev datapath are polled"
    note+=" by the main thread, not by PMD threads, so all of ovs-vswitchd"
    note+=" is pinned to core 1 with taskset"
    if [[ " ${NOTES[*]} " != *"$note"* ]]; then
        NOTES+=("$note")
    fi
    topo_switched
    OVS_DIR=$(mktemp -d /tmp/bn-ovs.XXXXXX)
    ps_record_dir "$OVS_DIR"
    # Keep every default path of the OVS tools inside the private directory.
    export OVS_RUNDIR=$OVS_DIR OVS_DBDIR=$OVS_DIR OVS_LOGDIR=$OVS_DIR \
        OVS_SYSCONFDIR=$OVS_DIR
    ovsdb-tool create "$OVS_DIR/conf.db" "$OVS_SCHEMA"
    ps_bg "$name-ovsdb-server" ovsdb-server "$OVS_DIR/conf.db" \
        --remote="punix:$OVS_DIR/db.sock" \
        --unixctl="$OVS_DIR/ovsdb-server.ctl" \
        --log-file="$PS_LOG_DIR/$name-ovsdb-server.log" --no-chdir
    if ! ps_wait_until 10 test -S "$OVS_DIR/db.sock"; then
        ps_fail "ovsdb-server did not start; see $PS_LOG_DIR"
    fi
    vsctl --no-wait init
    vsctl --no-wait set Open_vSwitch . other_config:pmd-cpu-mask=0x2 \
        "other_config:userspace-tso-enable=$tso"
    # The netdev datapath makes tap devices for itself and the bridge.
    ps_record_link bn-ovs
    if ! ip link show dev ovs-netdev >/dev/null 2>&1; then
        ps_record_link ovs-netdev
    fi
    # Ports of type "system" on the netdev datapath are polled by the main
    # thread, not by PMD threads, so pmd-cpu-mask alone would leave OVS
    # unpinned: pin the whole process.
    ps_bg "$name-ovs-vswitchd" taskset -c 1 ovs-vswitchd \
        "unix:$OVS_DIR/db.sock" --unixctl="$OVS_DIR/ovs-vswitchd.ctl" \
        --log-file="$PS_LOG_DIR/$name-ovs-vswitchd.log" --no-chdir
    OVS_VSWITCHD_PID=$PS_BG_PID
    if ! ps_wait_until 10 test -S "$OVS_DIR/ovs-vswitchd.ctl"; then
        ps_fail "ovs-vswitchd did not start; see $PS_LOG_DIR"
    fi
    vsctl add-br bn-ovs -- set bridge bn-ovs datapath_type=netdev \
        -- add-port bn-ovs bn-a-sw -- add-port bn-ovs bn-b-sw
    {
        vsctl show
        vsctl get Open_vSwitch . other_config
        ovs-appctl -t "$OVS_DIR/ovs-vswitchd.ctl" dpif-netdev/pmd-rxq-show
        ovs-appctl -t "$OVS_DIR/ovs-vswitchd.ctl" dpif/show
    } >"$PS_LOG_DIR/$name-ovs-config.txt" 2>&1
    if ! grep -q "bn-b-sw" "$PS_LOG_DIR/$name-ovs-config.txt"; then
        cat "$PS_LOG_DIR/$name-ovs-config.txt" >&2
        ps_fail "OVS did not take the ports"
    fi
}

# stop_ovs NAME: PMD stats for the record, then a clean exit (removing the
# datapath and its taps); anything left is killed by the teardown.
stop_ovs()
{
    local ctl=$OVS_DIR/ovs-vswitchd.ctl
    ovs-appctl -t "$ctl" dpif-netdev/pmd-stats-show \
        >"$PS_LOG_DIR/$1-pmd-stats.txt" 2>&1 || true
    vsctl del-br bn-ovs >/dev/null 2>&1 || true
    timeout 10 ovs-appctl -t "$ctl" exit --cleanup >/dev/null 2>&1 || true
    ps_wait_until 5 ps_exited "$OVS_VSWITCHD_PID" || true
    unset OVS_RUNDIR OVS_DBDIR OVS_LOGDIR OVS_SYSCONFDIR
}

# start_pmdswitch NAME TPACKET: pmdswitchd with both switch ports, all its
# threads on core 1.
start_pmdswitch()
{
    local tpacket=$2 config=$PS_LOG_DIR/$1.json
    topo_switched
    ps_write_config "$config" "$tpacket" p1=bn-a-sw p2=bn-b-sw
    ps_start_daemon "$config"
    taskset -a -p -c 1 "$PS_DAEMON_PID" >/dev/null
}

# switch_available NAME: true if NAME can run here; else adds a note.
switch_available()
{
    local cmd
    case $1 in
    ovs-*)
        for cmd in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl ovs-appctl; do
            if ! command -v "$cmd" >/dev/null 2>&1; then
                NOTES+=("$1 skipped: $cmd is not installed")
                return 1
            fi
        done
        if [[ ! -f "$OVS_SCHEMA" ]]; then
            NOTES+=("$1 skipped: no OVS schema at $OVS_SCHEMA")
            return 1
        fi
        ;;
    pmdswitch-*)
        if [[ ! -x "$PS_DAEMON" ]]; then
            NOTES+=("$1 skipped: $PS_DAEMON is not built")
            return 1
        fi
        ;;
    esac
    return 0
}

# start_switch NAME: builds the topology for NAME and starts its switch.
start_switch()
{
    case $1 in
    veth) topo_direct ;;
    bridge) start_bridge ;;
    ovs-tso-off) start_ovs "$1" false ;;
    ovs-tso-on) start_ovs "$1" true ;;
    pmdswitch-tpacket) start_pmdswitch "$1" true ;;
    pmdswitch-mmsg) start_pmdswitch "$1" false ;;
    *) ps_fail "unknown switch $1" ;;
    esac
}

stop_switch()
{
    case $1 in
    ovs-*) stop_ovs "$1" ;;
    pmdswitch-*)
        ps_stop_daemon
        grep -F '|stats: ' "$PS_DAEMON_LOG" >"$PS_LOG_DIR/$1-stats.txt" || true
        ;;
    esac
    ps_teardown
}

# ---------------------------------------------------------------------------
# Workloads.

# ns_stat NS COUNTER: a counter of eth0 in namespace NS.
ns_stat()
{
    ps_if_stat "$1" eth0 "$2"
}

set_offloads()
{
    local ns
    for ns in "$NS_A" "$NS_B"; do
        ps_ns "$ns" ethtool -K eth0 tx "$1" tso "$1" gso "$1" >/dev/null 2>&1
    done
}

# wl_tcp SWITCH WORKLOAD RUN: one iperf3 TCP stream for DURATION seconds,
# with a fresh one-shot server in B.
wl_tcp()
{
    local sw=$1 wl=$2 run=$3 json server
    json=$PS_LOG_DIR/$sw-$wl-$run.json
    ps_bg "$sw-$wl-$run-server" ip netns exec "$NS_B" taskset -c 0 \
        iperf3 -s -1 -B "$ADDR_B"
    server=$PS_BG_PID
    if ! ps_wait_until 5 ps_tcp_listening "$NS_B" 5201; then
        ps_fail "iperf3 server did not start"
    fi
    timeout $((DURATION + 30)) ip netns exec "$NS_A" taskset -c 0 \
        iperf3 -c "$ADDR_B" -t "$DURATION" -J --connect-timeout 5000 \
        >"$json" 2>&1 || true
    ps_kill_bg "$server"
    emit "$sw" "$wl" "$run" "$(python3 "$REPORT" iperf "$json")"
}

# wl_ping SWITCH RUN: PING_COUNT pings 0.01 s apart; avg, p50 and p99.
wl_ping()
{
    local sw=$1 run=$2 out metric
    out=$PS_LOG_DIR/$sw-ping-$run.txt
    ip netns exec "$NS_A" taskset -c 0 ping -n -c "$PING_COUNT" -i 0.01 \
        -W 1 "$ADDR_B" >"$out" 2>&1 || true
    for metric in avg p50 p99; do
        emit "$sw" "ping-$metric" "$run" \
            "$(python3 "$REPORT" ping "$out" "$metric")"
    done
}

# write_trafgen_config FILE: one 64-byte UDP frame (60-byte minimum Ethernet
# frame would be padded anyway; 64 bytes without FCS) from A to B's MAC and
# address, port 9.
write_trafgen_config()
{
    cat >"$1" <<EOF
{
  eth(da=$(ps_mac "$NS_B" eth0), sa=$(ps_mac "$NS_A" eth0), type=0x0800),
  ipv4(saddr=$ADDR_A, daddr=$ADDR_B, ttl=64, proto=17),
  udp(sp=9000, dp=9),
  fill(0x00, 22)
}
EOF
}

# children_of PID: the PIDs of PID's child processes, one a line.
children_of()
{
    local f
    local -a pids
    for f in /proc/"$1"/task/*/children; do
        [[ -r "$f" ]] || continue
        read -r -a pids <"$f" || true
        if [[ ${#pids[@]} -gt 0 ]]; then
            printf '%s\n' "${pids[@]}"
        fi
    done
}

# stop_trafgen PID: trafgen's parent ignores signals while its worker runs,
# so stop the workers (its children) with SIGINT, then the parent.
stop_trafgen()
{
    local pid=$1 child
    for child in $(children_of "$pid"); do
        kill -INT "$child" 2>/dev/null || true
    done
    if ! ps_wait_until 5 ps_exited "$pid"; then
        ps_info "trafgen did not stop on SIGINT"
    fi
    ps_kill_bg "$pid"
}

# wl_udp64 SWITCH RUN: trafgen floods from A; B's received frames per
# second over DURATION s after 1 s of warm-up.
wl_udp64()
{
    local sw=$1 run=$2 cfg=$PS_LOG_DIR/trafgen.cfg pid child
    local rx0 rx1 tx0 tx1 t0 t1
    write_trafgen_config "$cfg"
    ps_bg "$sw-trafgen-$run" ip netns exec "$NS_A" taskset -c 0 \
        trafgen -o eth0 -i "$cfg" -P 1 --no-sock-mem -Q -C
    pid=$PS_BG_PID
    sleep 1
    for child in $(children_of "$pid"); do
        ps_record_pid "$child"
    done
    if ps_exited "$pid"; then
        wait "$pid" || true
        emit "$sw" udp64 "$run" '{"value": null, "error": "trafgen exited"}'
        cat "$PS_LOG_DIR/$sw-trafgen-$run.out" >&2
        return
    fi
    rx0=$(ns_stat "$NS_B" rx_packets)
    tx0=$(ns_stat "$NS_A" tx_packets)
    t0=$(date +%s%N)
    sleep "$DURATION"
    rx1=$(ns_stat "$NS_B" rx_packets)
    tx1=$(ns_stat "$NS_A" tx_packets)
    t1=$(date +%s%N)
    stop_trafgen "$pid"
    emit "$sw" udp64 "$run" "$(printf \
        '{"value": %s, "offered_mpps": %s, "frames": %d, "seconds": %s}' \
        "$(awk -v n=$((rx1 - rx0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.6f", n * 1000 / t }')" \
        "$(awk -v n=$((tx1 - tx0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.6f", n * 1000 / t }')" \
        $((rx1 - rx0)) \
        "$(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", t / 1e9 }')")"
}

# warm_up: ARP and MAC learning before measuring; fails if B is unreachable.
warm_up()
{
    if ! ip netns exec "$NS_A" ping -n -q -c 5 -i 0.1 -w 5 "$ADDR_B" \
        >/dev/null 2>&1; then
        ps_fail "$1: bnA cannot reach bnB"
    fi
}

# last_value SWITCH WORKLOAD: the latest sample's value, for progress lines.
last_value()
{
    python3 -c '
import json, sys
v = None
for line in open(sys.argv[1]):
    s = json.loads(line)
    if s["switch"] == sys.argv[2] and s["workload"] == sys.argv[3]:
        v = s["value"] if s["value"] is not None else "failed: %s" % s.get("error")
print(v)' "$SAMPLES" "$1" "$2"
}

run_workloads()
{
    local sw=$1 run=$2 wl
    for wl in "${RUN_WORKLOADS[@]}"; do
        case $wl in
        ping)
            wl_ping "$sw" "$run"
            ps_info "$sw run $run: ping avg/p50/p99 us" \
                "$(last_value "$sw" ping-avg)/$(last_value "$sw" ping-p50)/$(last_value "$sw" ping-p99)"
            ;;
        tcp)
            wl_tcp "$sw" tcp "$run"
            ps_info "$sw run $run: tcp Gbit/s $(last_value "$sw" tcp)"
            ;;
        tcp-no-offload)
            set_offloads off
            wl_tcp "$sw" tcp-no-offload "$run"
            set_offloads on
            ps_info "$sw run $run: tcp-no-offload Gbit/s" \
                "$(last_value "$sw" tcp-no-offload)"
            ;;
        udp64)
            wl_udp64 "$sw" "$run"
            ps_info "$sw run $run: udp64 Mpps $(last_value "$sw" udp64)"
            ;;
        esac
        sleep 1
    done
}

ps_info "switches: ${SWITCHES[*]}; workloads: ${RUN_WORKLOADS[*]};" \
    "$RUNS run(s) of $DURATION s"
for sw in "${SWITCHES[@]}"; do
    if ! switch_available "$sw"; then
        ps_info "${NOTES[-1]}"
        continue
    fi
    start_switch "$sw"
    warm_up "$sw"
    for ((run = 1; run <= RUNS; run++)); do
        run_workloads "$sw" "$run"
    done
    stop_switch "$sw"
done

summarize
