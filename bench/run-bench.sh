#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: pmdswitch against reference forwarders on one machine, in one
# command that writes the tables, the JSON with every sample and the plots.
# Two namespaces, bnA and bnB, are joined through the switch under test by
# veth pairs (bnA eth0 <-> bn-a-sw, bnB eth0 <-> bn-b-sw).  The switch runs
# on core 1 (taskset and pmd-cpu-mask 0x2), the traffic tools on core 0,
# identically for every switch.
#
# Switches: veth (one veth pair joins bnA and bnB, no switch), bridge (Linux
# bridge), ovs-tso-off and ovs-tso-on (Open vSwitch userspace datapath,
# datapath_type=netdev, NORMAL, system ports, userspace-tso-enable
# false/true), ovs-afxdp (the same with afxdp ports, xdp-mode native), all
# OVS ones from a private database and run directory; pmdswitch-tpacket,
# pmdswitch-mmsg (use-tpacket-v3 true/false) and pmdswitch-afxdp (ports of
# type afxdp); dpdk-af-packet and dpdk-af-xdp (DPDK's testpmd, io
# forwarding between two net_af_packet or net_af_xdp ports, no lookup at
# all: an upper bound for a forwarder).  For the afxdp switches tx
# checksumming is off on both namespaces' eth0.  A switch that cannot run
# here (binary not built, port type refused, testpmd failing to start) is
# skipped with a note.
#
# Workloads, each run RUNS times (default 3) per switch:
#   tcp, tcp-no-offload  iperf3, one TCP stream A -> B for DURATION s, with
#                   the default offloads / tx, tso and gso off in both
#                   namespaces; receiver's Gbit/s
#   tcp8, tcp8-no-offload  the same with 8 parallel streams (-P 8); the
#                   receiver's total
#   udp64           64-byte frames (without FCS) of one UDP flow from
#                   trafgen (AF_PACKET tx ring) in A; frames per second
#                   received by B's eth0 over UDP_DURATION s (DURATION / 2,
#                   at least 2) after 1 s of warm-up; for pmdswitch and OVS
#                   also the PMDs' avg processing cycles per packet over
#                   that window (dpif-netdev/pmd-stats-show)
#   udp1518         the same with 1514-byte frames (1518 with FCS)
#   udp64-flows1k, udp64-flows100k, udp64-flows1m
#                   udp64 with 1023, 100172 and 1001000 distinct 5-tuples
#                   (UDP source port and source address counters of coprime
#                   periods); udp64 is the 1-flow figure (alias
#                   udp64-flows1)
#   ping            1000 pings A -> B, 1 ms apart: avg, p50, p99 RTT
#   sockperf        sockperf UDP ping-pong, 64-byte messages, for
#                   SOCKPERF_TIME s: p50 and p99 of the full round trip
#   cpu             the switch's CPU idle (CPU_IDLE s, no traffic) and
#                   during the udp64 flood: the process's % of one core
#                   (utime + stime) and core 1's busy % (/proc/stat)
#   mem1m           once per switch with a process, restarted with a rule
#                   on the IPv4 source: VmRSS, VmHWM, datapath flows and
#                   VmRSS growth per flow after MEM_DURATION s of 1M
#                   distinct source addresses
#
# Output: markdown tables (throughput; pps by flow count; latency; CPU and
# memory) of medians (min–max) per switch and workload, each with the
# ratios of pmdswitch to each reference, in bench/results/bench-STAMP.md;
# bench/results/bench-STAMP.json with the run facts and every sample; PNG
# plots in bench/results/plots-STAMP/ (if gnuplot is installed); tool logs
# in bench/results/logs-STAMP/.  If bench/micro-run.sh is executable it
# runs last and its output is appended to the markdown.
#
# Usage: run-bench.sh [--runs N] [--duration S] [--only SWITCH[,SWITCH...]]
#                     [--workloads W[,W...]] [--quick] [--no-micro]
#                     [--setup]
#   --only and --workloads take names, groups (switches: references,
#   afxdp; workloads: throughput, flows, latency, resources) and prefixes
#   that are not a name (ovs, pmdswitch, dpdk): PREFIX selects every name
#   starting with PREFIX-.
#   --quick means --runs 1 --duration 3 unless those are given, and shorter
#   idle and memory windows.  --no-micro skips bench/micro-run.sh.
#   --setup first installs what building pmdswitch and running the bench
#   need (Debian packages) and builds the source tree if its daemon is
#   missing: from a fresh clone, one command gives the tables and plots.
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd),
#   BENCH_XDP_MODE (xdp-mode of the afxdp ports, default native).
# Needs root; uses only the namespaces and interfaces it creates.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"
REPORT=$BENCH_DIR/lib/report.py
PLOT=$BENCH_DIR/lib/plot.sh
MICRO=$BENCH_DIR/micro-run.sh

ALL_SWITCHES=(veth bridge ovs-tso-off ovs-tso-on ovs-afxdp
    dpdk-af-packet dpdk-af-xdp pmdswitch-tpacket pmdswitch-mmsg
    pmdswitch-afxdp)
ALL_WORKLOADS=(tcp tcp-no-offload tcp8 tcp8-no-offload udp64 udp1518
    udp64-flows1k udp64-flows100k udp64-flows1m ping sockperf cpu mem1m)
# Names that --only and --workloads expand: groups and aliases.
declare -A NAME_GROUPS=(
    [references]="veth,bridge,ovs,dpdk"
    [afxdp]="ovs-afxdp,dpdk-af-xdp,pmdswitch-afxdp"
    [throughput]="tcp,tcp-no-offload,tcp8,tcp8-no-offload,udp64,udp1518"
    [flows]="udp64,udp64-flows1k,udp64-flows100k,udp64-flows1m"
    [latency]="ping,sockperf"
    [resources]="cpu,mem1m"
    [udp64-flows1]="udp64"
)
RUNS=
DURATION=
ONLY=
WORKLOADS=
QUICK=
RUN_MICRO=1
SETUP=
# dpdk-dev has dpdk-testpmd (the package dpdk has only the runtime
# scripts); the af_packet and af_xdp drivers are packages of their own.
BENCH_PACKAGES=(iperf3 netsniff-ng ethtool sockperf openvswitch-switch
    gnuplot-nox dpdk-dev librte-net-af-packet23 librte-net-af-xdp23)
PING_COUNT=1000
SOCKPERF_PORT=11111
NS_A=bnA
NS_B=bnB
ADDR_A=10.78.0.1
ADDR_B=10.78.0.2
# The address of the mem1m rule: no generated frame has it, but the rule
# makes the slow path look at the IPv4 source of every frame.
MEM_RULE_NW_SRC=10.99.99.99
XDP_MODE=${BENCH_XDP_MODE:-native}
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
    --no-micro)
        RUN_MICRO=
        shift
        ;;
    --setup)
        SETUP=1
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
# Windows per workload: a 64-byte flood is steady within a second, so half
# the TCP duration is as good; the idle CPU and the memory after 1M flows
# need a fixed window.
UDP_DURATION=$(((DURATION + 1) / 2))
((UDP_DURATION >= 2)) || UDP_DURATION=2
SOCKPERF_TIME=$((DURATION * 3 / 10))
((SOCKPERF_TIME >= 2)) || SOCKPERF_TIME=2
if [[ -n "$QUICK" ]]; then
    CPU_IDLE=3
    MEM_DURATION=5
else
    CPU_IDLE=5
    MEM_DURATION=10
fi

# select_names LIST ALL...: the names in ALL that LIST (comma-separated)
# selects, in ALL's order, or all of them if LIST is empty.  An entry of
# LIST is a group or alias of NAME_GROUPS, a name, or else a prefix that
# selects every name starting with PREFIX-.  Fails on an entry that
# selects nothing.
select_names()
{
    local list=$1 want name found
    shift
    if [[ -z "$list" ]]; then
        printf '%s\n' "$@"
        return
    fi
    local -a wants more expanded=()
    local -A chosen=()
    IFS=, read -r -a wants <<<"$list"
    for want in "${wants[@]}"; do
        if [[ -n "${NAME_GROUPS[$want]:-}" ]]; then
            IFS=, read -r -a more <<<"${NAME_GROUPS[$want]}"
            expanded+=("${more[@]}")
        else
            expanded+=("$want")
        fi
    done
    for want in "${expanded[@]}"; do
        found=
        for name in "$@"; do
            if [[ $name == "$want" ]]; then
                found=1
                chosen[$name]=1
            fi
        done
        if [[ -z "$found" ]]; then
            for name in "$@"; do
                if [[ $name == "$want"-* ]]; then
                    found=1
                    chosen[$name]=1
                fi
            done
        fi
        if [[ -z "$found" ]]; then
            echo "run-bench.sh: unknown name '$want' (known: $*;" \
                "groups: ${!NAME_GROUPS[*]})" >&2
            return 2
        fi
    done
    for name in "$@"; do
        if [[ -n "${chosen[$name]:-}" ]]; then
            printf '%s\n' "$name"
        fi
    done
}
selected=$(select_names "$ONLY" "${ALL_SWITCHES[@]}") || exit 2
mapfile -t SWITCHES <<<"$selected"
selected=$(select_names "$WORKLOADS" "${ALL_WORKLOADS[@]}") || exit 2
mapfile -t RUN_WORKLOADS <<<"$selected"

# wants WORKLOAD: true if WORKLOAD is among those to run.
# setup_bench: installs the build's and the bench's Debian packages and
# builds the source tree (in place) unless its daemon is built already.
setup_bench()
{
    local src=$BENCH_DIR/..
    "$src/utilities/install-deps.sh"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        "${BENCH_PACKAGES[@]}"
    mkdir -p "$BENCH_DIR/results"
    if [[ ! -x "$PS_DAEMON" ]]; then
        (cd "$src" && autoreconf -fi && ./configure -q && make -j"$(nproc)") \
            >"$BENCH_DIR/results/build.log" 2>&1 || {
            tail -30 "$BENCH_DIR/results/build.log" >&2
            echo "run-bench.sh: build failed" >&2
            exit 1
        }
    fi
}

wants()
{
    [[ " ${RUN_WORKLOADS[*]} " == *" $1 "* ]]
}

if [[ $(id -u) -ne 0 ]]; then
    echo "run-bench.sh: needs root" >&2
    exit 77
fi
if [[ -n "$SETUP" ]]; then
    setup_bench
fi
for cmd in ip iperf3 ethtool trafgen ping taskset python3 getconf; do
    if ! command -v "$cmd" >/dev/null 2>&1; then
        echo "run-bench.sh: '$cmd' is not installed" >&2
        exit 1
    fi
done

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS_DIR=$BENCH_DIR/results
PS_LOG_DIR=$RESULTS_DIR/logs-$STAMP
PLOT_DIR=$RESULTS_DIR/plots-$STAMP
mkdir -p "$PS_LOG_DIR"
SAMPLES=$PS_LOG_DIR/samples.jsonl
: >"$SAMPLES"
NOTES=()
SUMMARIZED=
CLK_TCK=$(getconf CLK_TCK)

if wants sockperf && ! command -v sockperf >/dev/null 2>&1; then
    NOTES+=("sockperf skipped: sockperf is not installed")
    selected=$(printf '%s\n' "${RUN_WORKLOADS[@]}" | grep -vx sockperf) ||
        true
    mapfile -t RUN_WORKLOADS <<<"$selected"
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    NOTES+=("no plots: gnuplot is not installed (apt-get install gnuplot-nox)")
fi

ps_setup bn

# estimate_seconds: the expected wall time of the selected switches and
# workloads: the windows plus the overhead each step had on the 2-core
# machine the suite was written on (in tenths of a second).
estimate_seconds()
{
    local sw wl per_run total=0
    for sw in "${SWITCHES[@]}"; do
        per_run=0
        for wl in "${RUN_WORKLOADS[@]}"; do
            case $wl in
            tcp*) per_run=$((per_run + DURATION * 10 + 10)) ;;
            udp*) per_run=$((per_run + UDP_DURATION * 10 + 20)) ;;
            ping) per_run=$((per_run + PING_COUNT / 1000 + 15)) ;;
            sockperf) per_run=$((per_run + SOCKPERF_TIME * 10 + 35)) ;;
            cpu)
                per_run=$((per_run + CPU_IDLE * 10 + 10))
                if ! wants udp64; then
                    per_run=$((per_run + UDP_DURATION * 10 + 20))
                fi
                ;;
            esac
        done
        total=$((total + RUNS * per_run))
        case $sw in
        ovs-*) total=$((total + 60)) ;;
        dpdk-*) total=$((total + 50)) ;;
        *) total=$((total + 20)) ;;
        esac
        if wants mem1m && [[ $sw == ovs-* || $sw == pmdswitch-* ]]; then
            total=$((total + MEM_DURATION * 10 + 80))
        fi
    done
    echo $((total / 10))
}
ESTIMATE=$(estimate_seconds)

# ---------------------------------------------------------------------------
# Report.

# summarize: writes bench-STAMP.json and .md and prints the tables.
summarize()
{
    local meta=$PS_LOG_DIR/meta.json
    SUMMARIZED=1
    python3 - "$meta" "$STAMP" "$RUNS" "$DURATION" "$PING_COUNT" \
        "$UDP_DURATION" "$SOCKPERF_TIME" "$CPU_IDLE" "$MEM_DURATION" \
        "$XDP_MODE" "$ESTIMATE" "$SECONDS" "${NOTES[@]}" <<'EOF'
import json
import os
import platform
import subprocess
import sys

path, stamp, runs, duration, ping_count = sys.argv[1:6]
udp_s, sockperf_s, idle_s, mem_s, xdp_mode, estimate, elapsed = sys.argv[6:13]
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
sockperf = command_output("sockperf", "--version") or ""
meta = {
    "stamp": stamp, "runs": int(runs), "duration_s": int(duration),
    "udp_duration_s": int(udp_s), "sockperf_s": int(sockperf_s),
    "cpu_idle_s": int(idle_s), "mem1m_duration_s": int(mem_s),
    "ping_count": int(ping_count), "ping_interval_s": 0.001,
    "kernel": platform.release(), "cpu": cpu,
    "cpus": len(os.sched_getaffinity(0)),
    "pinning": "switch on core 1 (taskset, pmd-cpu-mask 0x2); "
               "iperf3, trafgen, ping and sockperf on core 0",
    "frame_size_udp64": "64 bytes without FCS (68 on the wire with FCS)",
    "frame_size_udp1518": "1514 bytes without FCS (1518 on the wire with "
                          "FCS)",
    "flows": {"udp64": 1, "udp64-flows1k": "31 x 33 = 1023",
              "udp64-flows100k": "316 x 317 = 100172",
              "udp64-flows1m": "1000 x 1001 = 1001000",
              "mem1m": "1000000 IPv4 source addresses"},
    "sockperf_rtt": "full round trip (--full-rtt)",
    "xdp_mode": xdp_mode,
    "estimated_s": int(estimate), "elapsed_s": int(elapsed),
    "ovs_version": first_line("ovs-vswitchd", "--version"),
    "iperf3_version": first_line("iperf3", "--version"),
    "trafgen_version": first_line("trafgen", "--version"),
    "sockperf_version": next((l for l in sockperf.splitlines()
                              if "version" in l), None),
    "gnuplot_version": first_line("gnuplot", "--version"),
    "load_average_at_end": os.getloadavg(),
    "notes": sys.argv[13:],
}
with open(path, "w") as f:
    json.dump(meta, f, indent=2)
EOF
    echo
    python3 "$REPORT" summarize "$SAMPLES" "$meta" \
        "$RESULTS_DIR/bench-$STAMP.json" "$RESULTS_DIR/bench-$STAMP.md"
    pmd_cycles_table "$RESULTS_DIR/bench-$STAMP.json" \
        "$RESULTS_DIR/bench-$STAMP.md"
    echo
    echo "results: $RESULTS_DIR/bench-$STAMP.json (.md), logs: $PS_LOG_DIR"
}

# pmd_cycles_table REPORT_JSON REPORT_MD: the udp64-pmd-cycles samples
# (report.py leaves them out of its tables) as a table of their own,
# appended to the markdown and printed, and their median, min and max
# added to the JSON report's summary in report.py's shape.
pmd_cycles_table()
{
    python3 - "$1" "$2" <<'EOF'
import json
import statistics
import sys

json_path, md_path = sys.argv[1:3]
with open(json_path) as f:
    report = json.load(f)
name = "udp64-pmd-cycles"
rows = []
for sw in report["summary"]:
    runs = [s for s in report["samples"]
            if s["switch"] == sw and s["workload"] == name]
    if not runs:
        continue
    values = [s["value"] for s in runs if s["value"] is not None]
    entry = {"unit": "cycles", "runs": len(runs),
             "failed": len(runs) - len(values), "values": values}
    # OVS's main thread, which polls system ports, counts no cycles.
    text = "not reported (%d/%d)" % (entry["failed"], entry["runs"])
    if values:
        entry.update(median=statistics.median(values), min=min(values),
                     max=max(values))
        text = "%.0f" % entry["median"]
        if len(runs) > 1:
            text += " (%.0f–%.0f)" % (entry["min"], entry["max"])
    report["summary"][sw][name] = entry
    rows.append("| %s | %s |" % (sw, text))
if not rows:
    sys.exit(0)
with open(json_path, "w") as f:
    json.dump(report, f, indent=2)
    f.write("\n")
lines = ["", "## PMD cycles per packet, 64-byte flood (udp64)", "",
         "avg processing cycles per packet of dpif-netdev/pmd-stats-show,"
         " cleared right before the udp64 window and read right after it"
         " (TSC cycles; lower is better; switches with PMD statistics"
         " only; \"not reported\": no thread of the switch counted"
         " cycles, as OVS's main thread polling system ports).", "",
         "| switch | avg processing cycles per packet |", "|---|---|"]
lines += rows
text = "\n".join(lines) + "\n"
with open(md_path, "a") as f:
    f.write(text)
sys.stdout.write(text)
EOF
}

# make_plots: PNGs of the report in PLOT_DIR, named in the markdown.
make_plots()
{
    local md=$RESULTS_DIR/bench-$STAMP.md rc=0 pngs
    command -v gnuplot >/dev/null 2>&1 || return 0
    "$PLOT" "$RESULTS_DIR/bench-$STAMP.json" "$PLOT_DIR" \
        >"$PS_LOG_DIR/plot.out" 2>&1 || rc=$?
    pngs=$(cd "$PLOT_DIR" 2>/dev/null && ls -- *.png 2>/dev/null) || true
    if [[ $rc -ne 0 ]]; then
        ps_info "plotting failed (status $rc), see $PS_LOG_DIR/plot.out"
    fi
    if [[ -n "$pngs" ]]; then
        printf '\nPlots in %s: %s\n' "bench/${PLOT_DIR#"$BENCH_DIR"/}" \
            "$(tr '\n' ' ' <<<"$pngs")" | tee -a "$md"
    fi
}

# run_micro: bench/micro-run.sh, if it is there and executable, with its
# output appended to the markdown.
run_micro()
{
    local md=$RESULTS_DIR/bench-$STAMP.md rc=0
    [[ -n "$RUN_MICRO" && -x "$MICRO" ]] || return 0
    ps_info "running $MICRO"
    printf '\n' >>"$md"
    "$MICRO" 2>"$PS_LOG_DIR/micro-run.err" | tee -a "$md" || rc=$?
    if [[ $rc -ne 0 ]]; then
        printf '\nmicro-run.sh failed with status %d; see %s\n' "$rc" \
            "$PS_LOG_DIR/micro-run.err" | tee -a "$md"
    fi
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
    local json=${4//$'\n'/ }
    printf '{"switch": "%s", "workload": "%s", "run": %d, %s\n' \
        "$1" "$2" "$3" "${json#\{}" >>"$SAMPLES"
}

# emit_na SWITCH RUN WORKLOAD...: samples that do not apply to SWITCH (a
# kernel switch has no process of its own), shown as "-".
emit_na()
{
    local sw=$1 run=$2 wl
    shift 2
    for wl in "$@"; do
        emit "$sw" "$wl" "$run" '{"value": null, "not_applicable": true}'
    done
}

# add_note WORD...: adds the words, joined by spaces, to the report's notes
# unless that note is there.
add_note()
{
    local note
    for note in "${NOTES[@]}"; do
        [[ "$note" != "$*" ]] || return 0
    done
    NOTES+=("$*")
}

# ---------------------------------------------------------------------------
# Topologies and switches.

# The switch being run: its process (pmdswitchd or ovs-vswitchd; empty for
# the kernel switches), the label its logs are named by, and, set by a
# start function, why it cannot run here (empty if it runs).
SWITCH_PID=
SWITCH_LABEL=
SWITCH_SKIPPED=
# Non-empty: start the switch with the mem1m rule on the IPv4 source.
MEM_RULES=

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

# afxdp_tx_off: an AF_XDP port gets TCP frames with partial checksums and
# no flag saying so (see packet-io-facts.md), so the namespaces must
# finish checksums themselves: tx checksumming (and with it TSO) off.
afxdp_tx_off()
{
    local ns
    for ns in "$NS_A" "$NS_B"; do
        ps_ns "$ns" ethtool -K eth0 tx off >/dev/null 2>&1
    done
    add_note "afxdp switches: tx checksumming is off (ethtool -K eth0 tx" \
        "off, which also turns TSO off) in both namespaces for every" \
        "workload, so their 'tcp' rows run without TSO"
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

# ovs_appctl ARG...: ovs-appctl against the private ovs-vswitchd.
ovs_appctl()
{
    ovs-appctl -t "$OVS_DIR/ovs-vswitchd.ctl" "$@"
}

# start_ovs LABEL TSO TYPE: ovsdb-server and ovs-vswitchd (on core 1) from a
# fresh database in a temporary directory, a netdev bridge bn-ovs with
# both switch ports of TYPE (system or afxdp), pmd-cpu-mask 0x2,
# userspace-tso-enable TSO; with MEM_RULES, the mem1m OpenFlow rule.  Sets
# SWITCH_SKIPPED if OVS cannot create an afxdp port.
start_ovs()
{
    local name=$1 tso=$2 type=$3 port err
    if [[ $type == system ]]; then
        add_note "OVS: system-type ports on the netdev datapath are" \
            "polled by the main thread, not by PMD threads, so all of" \
            "ovs-vswitchd is pinned to core 1 with taskset"
    else
        add_note "ovs-afxdp: afxdp ports (options:xdp-mode=$XDP_MODE) are" \
            "polled by the PMD thread on core 1; ovs-vswitchd is pinned" \
            "to core 1 as a whole, as for the other OVS switches"
    fi
    topo_switched
    if [[ $type == afxdp ]]; then
        afxdp_tx_off
    fi
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
    SWITCH_PID=$OVS_VSWITCHD_PID
    if [[ $type == system ]]; then
        vsctl add-br bn-ovs -- set bridge bn-ovs datapath_type=netdev \
            -- add-port bn-ovs bn-a-sw -- add-port bn-ovs bn-b-sw
    else
        # ovs-vsctl reports a port OVS could not open on stderr (and in
        # the Interface's error column), not always in its status.
        vsctl add-br bn-ovs -- set bridge bn-ovs datapath_type=netdev \
            -- add-port bn-ovs bn-a-sw -- set interface bn-a-sw \
            type=afxdp "options:xdp-mode=$XDP_MODE" \
            -- add-port bn-ovs bn-b-sw -- set interface bn-b-sw \
            type=afxdp "options:xdp-mode=$XDP_MODE" \
            >"$PS_LOG_DIR/$name-add-port.txt" 2>&1 || true
        for port in bn-a-sw bn-b-sw; do
            err=$(vsctl get interface "$port" error 2>&1) || true
            if [[ -n "$err" && "$err" != "[]" ]]; then
                SWITCH_SKIPPED="OVS could not create afxdp port $port: $err"
                return 0
            fi
        done
    fi
    if [[ -n "$MEM_RULES" ]]; then
        # Prefix tracking would fold the 1M sources into a few megaflows
        # that wildcard all but the bits that differ from the rule's
        # address: turn it off, so that each source is a datapath flow, as
        # in pmdswitch.
        vsctl -- --id=@ft create Flow_Table prefixes=none \
            -- set Bridge bn-ovs flow_tables:0=@ft >/dev/null
        ovs-ofctl add-flow bn-ovs \
            "priority=100,ip,nw_src=$MEM_RULE_NW_SRC,actions=drop"
        add_note "mem1m on OVS: prefix tracking off (Flow_Table" \
            "prefixes=none), else OVS makes a handful of megaflows for the" \
            "1M sources instead of one each"
    fi
    {
        vsctl show
        vsctl get Open_vSwitch . other_config
        ovs_appctl dpif-netdev/pmd-rxq-show
        ovs_appctl dpif/show
        ovs-ofctl dump-flows bn-ovs
        vsctl list Flow_Table
    } >"$PS_LOG_DIR/$name-ovs-config.txt" 2>&1
    if ! grep -q "bn-b-sw" "$PS_LOG_DIR/$name-ovs-config.txt"; then
        cat "$PS_LOG_DIR/$name-ovs-config.txt" >&2
        ps_fail "OVS did not take the ports"
    fi
}

# stop_ovs LABEL: PMD stats for the record, then a clean exit (removing the
# datapath and its taps); anything left is killed by the teardown.
stop_ovs()
{
    [[ -n "$OVS_DIR" ]] || return 0
    ovs_appctl dpif-netdev/pmd-stats-show >"$PS_LOG_DIR/$1-pmd-stats.txt" \
        2>&1 || true
    vsctl del-br bn-ovs >/dev/null 2>&1 || true
    timeout 10 ovs_appctl exit --cleanup >/dev/null 2>&1 || true
    ps_wait_until 5 ps_exited "$OVS_VSWITCHD_PID" || true
    unset OVS_RUNDIR OVS_DBDIR OVS_LOGDIR OVS_SYSCONFDIR
    OVS_DIR=
}

TESTPMD=${TESTPMD:-dpdk-testpmd}
TESTPMD_PID=
TESTPMD_LOG=
# /var/run/dpdk if testpmd made it (removed at the end if empty).
TESTPMD_RUN_PARENT=

# testpmd_vdevs TYPE: the two --vdev arguments of testpmd for the switch
# ports, port 0 on bn-a-sw and port 1 on bn-b-sw, one a line.  af_packet:
# one queue pair, TPACKET_V2 rings of 4096 frames of 2048 bytes (a
# 1514-byte frame and the ring's header fit, and the 2016 bytes of data a
# frame slot holds fit a default mbuf) in page-sized blocks, qdisc bypass
# on (the driver's default).  af_xdp: one queue from queue 0; the driver
# loads its own XDP program (native on veth).
testpmd_vdevs()
{
    local i=0 iface
    for iface in bn-a-sw bn-b-sw; do
        case $1 in
        af-packet)
            printf -- '--vdev=net_af_packet%d,iface=%s,qpairs=1,%s\n' \
                "$i" "$iface" \
                "blocksz=4096,framesz=2048,framecnt=4096,qdisc_bypass=1"
            ;;
        af-xdp)
            printf -- '--vdev=net_af_xdp%d,iface=%s,%s\n' "$i" "$iface" \
                "start_queue=0,queue_count=1"
            ;;
        esac
        i=$((i + 1))
    done
}

# start_testpmd LABEL TYPE: DPDK's testpmd forwarding between bn-a-sw and
# bn-b-sw through two vdevs of TYPE (af-packet or af-xdp), io forwarding
# (port 0 to port 1 and back, no lookup), all of it on core 1.  testpmd
# needs a main lcore besides its forwarding lcore, so both are mapped to
# CPU 1 (--lcores 0@1,1@1); the main lcore sleeps between checks of its
# stats timer.  Without hugepages (--no-huge, memory from malloc, -m), PCI
# (--no-pci), shared config files (--no-shconf) or telemetry, under a
# file prefix of its own; its runtime directory is removed at teardown.
# Non-interactive, testpmd starts forwarding at once and runs until
# SIGTERM as long as --stats-period is set (without it, it waits for a
# line on stdin and would exit on /dev/null's EOF).  Sets SWITCH_SKIPPED
# with testpmd's error if it exits during startup.
start_testpmd()
{
    local label=$1 type=$2 prefix why rc=0
    local -a vdevs
    topo_switched
    if [[ $type == af-xdp ]]; then
        afxdp_tx_off
    fi
    add_note "dpdk-*: testpmd's main and forwarding lcores both run on" \
        "CPU 1 (EAL --lcores 0@1,1@1): testpmd needs a forwarding lcore" \
        "other than its main one; the main lcore only sleeps"
    mapfile -t vdevs < <(testpmd_vdevs "$type")
    prefix=bn-$label-$$
    # The EAL makes its runtime directory even with --no-shconf.
    if [[ ! -d /var/run/dpdk ]]; then
        TESTPMD_RUN_PARENT=/var/run/dpdk
    fi
    ps_record_dir "/var/run/dpdk/$prefix"
    TESTPMD_LOG=$PS_LOG_DIR/$label-testpmd.out
    ps_bg "$label-testpmd" taskset -c 1 "$TESTPMD" \
        --lcores 0@1,1@1 --main-lcore 0 --no-huge -m 512 --no-pci \
        --no-shconf --no-telemetry --file-prefix "$prefix" "${vdevs[@]}" \
        -- --forward-mode=io --port-topology=paired --nb-cores=1 \
        --rxq=1 --txq=1 --total-num-mbufs=16384 --auto-start \
        --stats-period=3600
    TESTPMD_PID=$PS_BG_PID
    if ! ps_wait_until 30 testpmd_started; then
        ps_kill_bg "$TESTPMD_PID"
        TESTPMD_PID=
        SWITCH_SKIPPED="testpmd did not start forwarding within 30 s"
        SWITCH_SKIPPED+="; see ${TESTPMD_LOG#"$PS_LOG_DIR"/}"
        return 0
    fi
    if ps_exited "$TESTPMD_PID"; then
        wait "$TESTPMD_PID" || rc=$?
        TESTPMD_PID=
        # The EAL's and the drivers' last complaints say why.
        why=$(grep -iE 'error|fail|cannot|invalid' "$TESTPMD_LOG" |
            tail -n 2 | tr -s '\n\t ' ' ') || true
        SWITCH_SKIPPED="testpmd exited during startup (status $rc): "
        SWITCH_SKIPPED+=${why:-"see ${TESTPMD_LOG#"$PS_LOG_DIR"/}"}
        return 0
    fi
    # taskset -c 1 covers the EAL's control threads too (their CPU set is
    # the process's minus the lcores' CPUs, or the main lcore's if that is
    # empty); pin every thread anyway, as for the other switches.
    taskset -a -p -c 1 "$TESTPMD_PID" >/dev/null
    SWITCH_PID=$TESTPMD_PID
}

# testpmd_started: true once testpmd is forwarding, or has exited.
testpmd_started()
{
    ps_exited "$TESTPMD_PID" ||
        grep -q 'packet forwarding - ports=' "$TESTPMD_LOG" 2>/dev/null
}

# stop_testpmd: SIGTERM (testpmd stops forwarding, prints the ports'
# totals and exits), SIGKILL after 3 s.
stop_testpmd()
{
    [[ -n "$TESTPMD_PID" ]] || return 0
    ps_kill_bg "$TESTPMD_PID"
    TESTPMD_PID=
}

# patch_config FILE TYPE: makes the ports of the config FILE (written by
# ps_write_config) of TYPE, unless TYPE is "system", and with MEM_RULES
# adds the mem1m rules: drop the rule's source, NORMAL for the rest.
patch_config()
{
    python3 - "$1" "$2" "$XDP_MODE" "${MEM_RULES:+$MEM_RULE_NW_SRC}" <<'EOF'
import json
import sys

path, port_type, xdp_mode, rule_src = sys.argv[1:5]
with open(path) as f:
    config = json.load(f)
bridge = config["bridges"][0]
if port_type != "system":
    for port in bridge["ports"]:
        port["type"] = port_type
        port.setdefault("options", {})["xdp-mode"] = xdp_mode
if rule_src:
    bridge["rules"] = [
        {"priority": 100, "match": "ip,nw_src=" + rule_src,
         "actions": "drop"},
        {"priority": 0, "actions": "normal"},
    ]
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
EOF
}

# try_start_daemon CONFIG: ps_start_daemon, except that a daemon that exits
# during startup (it refuses the config: an unknown port type, a build
# without AF_XDP) sets SWITCH_SKIPPED instead of ending the benchmark.
try_start_daemon()
{
    local config=$1 base pidfile rundir i rc=0 why
    PS_DAEMON_SEQ=$((PS_DAEMON_SEQ + 1))
    base=$PS_LOG_DIR/pmdswitchd-$PS_DAEMON_SEQ
    pidfile=$base.pid
    PS_DAEMON_LOG=$base.log
    rundir=$(mktemp -d /tmp/pmdsw.XXXXXX)
    ps_record_dir "$rundir"
    ps_unixctl_args "$rundir/pmdswitchd.ctl"
    PS_DAEMON_CTL=$rundir/pmdswitchd.ctl
    ps_info "starting $PS_DAEMON --config $config"
    "$PS_DAEMON" --config "$config" --pidfile="$pidfile" \
        --log-file="$PS_DAEMON_LOG" "${PS_UNIXCTL_ARGS[@]}" \
        >"$base.stderr" 2>&1 &
    PS_DAEMON_PID=$!
    ps_record_pid "$PS_DAEMON_PID"
    for ((i = 0; i < 100; i++)); do
        if [[ -s "$pidfile" &&
            "$(tr -d '[:space:]' <"$pidfile")" == "$PS_DAEMON_PID" ]]; then
            ps_info "pmdswitchd ready, pid $PS_DAEMON_PID"
            return 0
        fi
        if ps_exited "$PS_DAEMON_PID"; then
            wait "$PS_DAEMON_PID" || rc=$?
            PS_DAEMON_PID=
            why=$(grep -v '^[[:space:]]*$' "$base.stderr" | tail -n 1) ||
                true
            why=${why//"$PS_LOG_DIR/"/}
            SWITCH_SKIPPED="pmdswitchd refused the config (status $rc): $why"
            return 0
        fi
        sleep 0.1
    done
    ps_fail "pmdswitchd wrote no pidfile within 10 s; see $base.stderr"
}

# start_pmdswitch LABEL TPACKET TYPE: pmdswitchd with both switch ports of
# TYPE (system or afxdp), all its threads on core 1; with MEM_RULES, the
# mem1m rules.
start_pmdswitch()
{
    local label=$1 tpacket=$2 type=$3 config
    config=$PS_LOG_DIR/$label.json
    topo_switched
    if [[ $type == afxdp ]]; then
        afxdp_tx_off
    fi
    ps_write_config "$config" "$tpacket" p1=bn-a-sw p2=bn-b-sw
    patch_config "$config" "$type"
    try_start_daemon "$config"
    if [[ -z "$SWITCH_SKIPPED" ]]; then
        taskset -a -p -c 1 "$PS_DAEMON_PID" >/dev/null
        SWITCH_PID=$PS_DAEMON_PID
    fi
}

# switch_available NAME: true if NAME can run here; else adds a note.
switch_available()
{
    local cmd
    case $1 in
    ovs-*)
        for cmd in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl ovs-appctl \
            ovs-ofctl; do
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
    dpdk-*)
        if ! command -v "$TESTPMD" >/dev/null 2>&1; then
            NOTES+=("$1 skipped: $TESTPMD is not installed (package" \
                "dpdk-dev)")
            return 1
        fi
        ;;
    esac
    return 0
}

# start_switch NAME [LABEL]: builds the topology for NAME and starts its
# switch, its logs named by LABEL (default NAME).  Check SWITCH_SKIPPED
# afterwards, and call stop_switch either way.
start_switch()
{
    SWITCH_LABEL=${2:-$1}
    SWITCH_SKIPPED=
    SWITCH_PID=
    case $1 in
    veth) topo_direct ;;
    bridge) start_bridge ;;
    ovs-tso-off) start_ovs "$SWITCH_LABEL" false system ;;
    ovs-tso-on) start_ovs "$SWITCH_LABEL" true system ;;
    ovs-afxdp) start_ovs "$SWITCH_LABEL" false afxdp ;;
    pmdswitch-tpacket) start_pmdswitch "$SWITCH_LABEL" true system ;;
    pmdswitch-mmsg) start_pmdswitch "$SWITCH_LABEL" false system ;;
    pmdswitch-afxdp) start_pmdswitch "$SWITCH_LABEL" true afxdp ;;
    dpdk-af-packet) start_testpmd "$SWITCH_LABEL" af-packet ;;
    dpdk-af-xdp) start_testpmd "$SWITCH_LABEL" af-xdp ;;
    *) ps_fail "unknown switch $1" ;;
    esac
}

# stop_switch NAME: stops what start_switch started and deletes the
# topology.
stop_switch()
{
    case $1 in
    ovs-*) stop_ovs "$SWITCH_LABEL" ;;
    dpdk-*) stop_testpmd ;;
    pmdswitch-*)
        if [[ -n "$PS_DAEMON_PID" ]]; then
            ps_stop_daemon
            grep -F '|stats: ' "$PS_DAEMON_LOG" \
                >"$PS_LOG_DIR/$SWITCH_LABEL-stats.txt" || true
        fi
        ;;
    esac
    ps_teardown
    if [[ -n "$TESTPMD_RUN_PARENT" ]]; then
        rmdir "$TESTPMD_RUN_PARENT" 2>/dev/null || true
    fi
    SWITCH_PID=
}

# ---------------------------------------------------------------------------
# Measuring.

# ns_stat NS COUNTER: a counter of eth0 in namespace NS.
ns_stat()
{
    ps_if_stat "$1" eth0 "$2"
}

# rate N NANOSECONDS: N per second in millions, for JSON.
rate()
{
    awk -v n="$1" -v t="$2" 'BEGIN { printf "%.6f", n * 1000 / t }'
}

# cpu_snapshot: prints "NOW_NS PROC_TICKS CORE1_BUSY CORE1_ALL": the
# switch process's utime + stime ("-" without a process) and core 1's busy
# and total jiffies.  Busy is everything but idle and iowait, softirq
# included: on veth the switch's transmit runs the receiver's stack there.
cpu_snapshot()
{
    local now proc=- stat
    now=$(date +%s%N)
    if [[ -n "$SWITCH_PID" ]]; then
        stat=$(cat "/proc/$SWITCH_PID/stat")
        # utime and stime are fields 14 and 15; the command name (field
        # 2) may contain spaces, so count from the last ')'.
        stat=${stat##*) }
        # shellcheck disable=SC2086
        set -- $stat
        proc=$((${12} + ${13}))
    fi
    printf '%s %s %s\n' "$now" "$proc" "$(awk '$1 == "cpu1" {
        busy = $2 + $3 + $4 + $7 + $8 + $9
        print busy, busy + $5 + $6 }' /proc/stat)"
}

# cpu_mark, then cpu_since_mark: sets CPU_PROC_PCT (the switch process's
# share of one core, "null" without a process) and CPU_CORE_PCT (core 1's
# busy share) over the time between the two calls.
CPU_MARK=
CPU_PROC_PCT=null
CPU_CORE_PCT=null
cpu_mark()
{
    CPU_MARK=$(cpu_snapshot)
}

cpu_since_mark()
{
    local now
    now=$(cpu_snapshot)
    read -r CPU_PROC_PCT CPU_CORE_PCT < <(awk -v a="$CPU_MARK" -v b="$now" \
        -v hz="$CLK_TCK" 'BEGIN {
            split(a, x)
            split(b, y)
            secs = (y[1] - x[1]) / 1e9
            proc = "null"
            if (x[2] != "-" && y[2] != "-" && secs > 0) {
                proc = sprintf("%.2f", (y[2] - x[2]) / hz / secs * 100)
            }
            core = "null"
            if (y[4] > x[4]) {
                core = sprintf("%.2f", (y[3] - x[3]) * 100 / (y[4] - x[4]))
            }
            print proc, core
        }')
}

# proc_mem PID: prints VmRSS and VmHWM of PID in MB.
proc_mem()
{
    awk '/^VmRSS:/ { rss = $2 } /^VmHWM:/ { hwm = $2 }
        END { printf "%.1f %.1f\n", rss / 1024, hwm / 1024 }' \
        "/proc/$1/status"
}

# ---------------------------------------------------------------------------
# Workloads.

set_offloads()
{
    local ns
    for ns in "$NS_A" "$NS_B"; do
        ps_ns "$ns" ethtool -K eth0 tx "$1" tso "$1" gso "$1" >/dev/null 2>&1
    done
}

# restore_offloads SWITCH: the namespaces' offloads as the switch's setup
# left them.
restore_offloads()
{
    set_offloads on
    if [[ $1 == *-afxdp || $1 == *-af-xdp ]]; then
        afxdp_tx_off
    fi
}

# wl_tcp SWITCH WORKLOAD RUN STREAMS: iperf3 TCP with STREAMS parallel
# streams for DURATION seconds, with a fresh one-shot server in B.
wl_tcp()
{
    local sw=$1 wl=$2 run=$3 streams=$4 json server
    json=$PS_LOG_DIR/$sw-$wl-$run.json
    ps_bg "$sw-$wl-$run-server" ip netns exec "$NS_B" taskset -c 0 \
        iperf3 -s -1 -B "$ADDR_B"
    server=$PS_BG_PID
    if ! ps_wait_until 5 ps_tcp_listening "$NS_B" 5201; then
        ps_fail "iperf3 server did not start"
    fi
    timeout $((DURATION + 30)) ip netns exec "$NS_A" taskset -c 0 \
        iperf3 -c "$ADDR_B" -t "$DURATION" -P "$streams" -J \
        --connect-timeout 5000 >"$json" 2>&1 || true
    ps_kill_bg "$server"
    emit "$sw" "$wl" "$run" "$(python3 "$REPORT" iperf "$json")"
}

# wl_ping SWITCH RUN: PING_COUNT pings 1 ms apart (1,000 a second, a
# steady request rate); avg, p50 and p99 (the avg sample keeps every RTT,
# for the CDF plot).
wl_ping()
{
    local sw=$1 run=$2 out metric
    out=$PS_LOG_DIR/$sw-ping-$run.txt
    ip netns exec "$NS_A" taskset -c 0 ping -n -c "$PING_COUNT" -i 0.001 \
        -W 1 "$ADDR_B" >"$out" 2>&1 || true
    for metric in avg p50 p99; do
        emit "$sw" "ping-$metric" "$run" \
            "$(python3 "$REPORT" ping "$out" "$metric")"
    done
}

# udp_bound NS PORT: true if a UDP socket is bound to PORT in NS.
udp_bound()
{
    [[ -n "$(ip netns exec "$1" ss -Huln "sport = :$2" 2>/dev/null)" ]]
}

# wl_sockperf SWITCH RUN: sockperf ping-pong of 64-byte UDP messages from A
# to a sockperf server in B for SOCKPERF_TIME s; p50 and p99 of the full
# round trip (--full-rtt; without it sockperf reports half of it).
wl_sockperf()
{
    local sw=$1 run=$2 out server metric
    out=$PS_LOG_DIR/$sw-sockperf-$run.txt
    ps_bg "$sw-sockperf-server-$run" ip netns exec "$NS_B" taskset -c 0 \
        sockperf server -i "$ADDR_B" -p "$SOCKPERF_PORT"
    server=$PS_BG_PID
    if ! ps_wait_until 5 udp_bound "$NS_B" "$SOCKPERF_PORT"; then
        ps_fail "sockperf server did not start"
    fi
    timeout $((SOCKPERF_TIME + 20)) ip netns exec "$NS_A" taskset -c 0 \
        sockperf ping-pong -i "$ADDR_B" -p "$SOCKPERF_PORT" \
        -t "$SOCKPERF_TIME" --msg-size 64 --full-rtt >"$out" 2>&1 || true
    ps_kill_bg "$server"
    for metric in p50 p99; do
        emit "$sw" "sockperf-$metric" "$run" \
            "$(python3 "$REPORT" sockperf "$out" "$metric")"
    done
}

# write_trafgen_config FILE SIZE [FLOWS]: UDP frames of SIZE bytes without
# FCS (64: the minimum; 1514: a full MTU) from A to B's MAC and address,
# port 9, UDP checksum 0 (none), from source addresses outside B's subnet
# (B's stack then drops them early and sends nothing back).  FLOWS is "1"
# (default: one fixed frame from 10.80.0.0 port 1024), "AxB" (A and B
# coprime: the UDP source port runs through A values from 1024 and the low
# 16 bits of the source address, 10.80.0.0/16, through B values, one step
# each frame, so the 5-tuples repeat after A * B frames), or "mem" (the
# source address runs through 1,000,000 values from 10.128.0.0, port
# 1024).  trafgen recomputes the IPv4 header checksum of each changed
# frame.
write_trafgen_config()
{
    local file=$1 size=$2 flows=${3:-1} ip udp a b base
    base=$((10 << 24 | 128 << 16))
    case $flows in
    1)
        ip="saddr=10.80.0.0"
        udp="sp=1024"
        ;;
    mem)
        ip="saddr=dinc($base, $((base + 999999)))"
        udp="sp=1024"
        ;;
    *x*)
        a=${flows%x*}
        b=${flows#*x}
        ip="saddr=10.80.0.0, saddr[2:2]=dinc(0, $((b - 1)))"
        udp="sp=dinc(1024, $((1024 + a - 1)))"
        ;;
    *) ps_fail "write_trafgen_config: bad flows '$flows'" ;;
    esac
    cat >"$file" <<EOF
{
  eth(da=$(ps_mac "$NS_B" eth0), sa=$(ps_mac "$NS_A" eth0), type=0x0800),
  ipv4(daddr=$ADDR_B, ttl=64, proto=17, $ip),
  udp($udp, dp=9, csum=0),
  fill(0x00, $((size - 42)))
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

# start_trafgen NAME CFG: trafgen floods from A with config CFG, output in
# logs NAME.out; after 1 s sets TRAFGEN_PID, or leaves it empty (and shows
# the output) if trafgen exited.
TRAFGEN_PID=
start_trafgen()
{
    local child
    ps_bg "$1" ip netns exec "$NS_A" taskset -c 0 \
        trafgen -o eth0 -i "$2" -P 1 --no-sock-mem -Q -C
    TRAFGEN_PID=$PS_BG_PID
    sleep 1
    for child in $(children_of "$TRAFGEN_PID"); do
        ps_record_pid "$child"
    done
    if ps_exited "$TRAFGEN_PID"; then
        wait "$TRAFGEN_PID" || true
        cat "$PS_LOG_DIR/$1.out" >&2
        TRAFGEN_PID=
    fi
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

# has_pmd_stats SWITCH: true if SWITCH answers dpif-netdev/pmd-stats-show
# (pmdswitch and OVS).
has_pmd_stats()
{
    [[ $1 == pmdswitch-* || $1 == ovs-* ]]
}

# pmd_appctl SWITCH ARG...: pmdswitch-appctl or ovs-appctl ARG... against
# the running SWITCH.
pmd_appctl()
{
    local sw=$1
    shift
    case $sw in
    pmdswitch-*) ps_appctl "$@" ;;
    ovs-*) ovs_appctl "$@" ;;
    esac
}

# pmd_cycles SWITCH FILE: the PMD statistics of pmdswitch or OVS since the
# last dpif-netdev/pmd-stats-clear, kept in FILE; prints the JSON members
# "pmd_cycles_per_packet" (processing cycles over packets received, the
# sums over every thread's "avg processing cycles per packet: X
# (CYCLES/PACKETS)" line), "pmd_busy_cycles" and "pmd_packets", null if
# there are none.
pmd_cycles()
{
    pmd_appctl "$1" dpif-netdev/pmd-stats-show >"$2" 2>&1 || true
    awk '/avg processing cycles per packet:/ {
            s = $0
            sub(/.*\(/, "", s)
            sub(/\).*/, "", s)
            if (split(s, f, "/") == 2) {
                cycles += f[1]
                packets += f[2]
                found = 1
            }
        }
        END {
            if (found && packets > 0) {
                printf "\"pmd_cycles_per_packet\": %.2f, ", cycles / packets
                # %.0f: mawk prints %d as at most 2^31 - 1.
                printf "\"pmd_busy_cycles\": %.0f, ", cycles
                printf "\"pmd_packets\": %.0f\n", packets
            } else {
                printf "\"pmd_cycles_per_packet\": null, "
                printf "\"pmd_busy_cycles\": null, \"pmd_packets\": null\n"
            }
        }' "$2"
}

# wl_udp SWITCH WORKLOAD RUN SIZE FLOWS: trafgen floods from A (see
# write_trafgen_config); B's received frames per second and the switch's
# CPU over UDP_DURATION s after 1 s of warm-up.  The CPU figures stay in
# FLOOD_PROC_PCT and FLOOD_CORE_PCT for the cpu workload.  For udp64 on
# pmdswitch and OVS, the PMD statistics are cleared right before the
# window and read right after it: the avg processing cycles per packet go
# into the sample and into a sample "udp64-pmd-cycles" of their own.
# WORKLOAD "-" measures without emitting a sample.
FLOOD_PROC_PCT=null
FLOOD_CORE_PCT=null
wl_udp()
{
    local sw=$1 wl=$2 run=$3 size=$4 flows=$5 cfg rx0 rx1 tx0 tx1 t0 t1
    local cycles='"pmd_cycles_per_packet": null' stats pmd=
    cfg=$PS_LOG_DIR/trafgen-$size-$flows.cfg
    write_trafgen_config "$cfg" "$size" "$flows"
    FLOOD_PROC_PCT=null
    FLOOD_CORE_PCT=null
    start_trafgen "$sw-${wl/#-/flood}-trafgen-$run" "$cfg"
    if [[ -z "$TRAFGEN_PID" ]]; then
        if [[ $wl != - ]]; then
            emit "$sw" "$wl" "$run" \
                '{"value": null, "error": "trafgen exited"}'
        fi
        return
    fi
    if [[ $wl == udp64 ]] && has_pmd_stats "$sw"; then
        pmd=1
        pmd_appctl "$sw" dpif-netdev/pmd-stats-clear >/dev/null 2>&1 || true
    fi
    rx0=$(ns_stat "$NS_B" rx_packets)
    tx0=$(ns_stat "$NS_A" tx_packets)
    t0=$(date +%s%N)
    cpu_mark
    sleep "$UDP_DURATION"
    rx1=$(ns_stat "$NS_B" rx_packets)
    tx1=$(ns_stat "$NS_A" tx_packets)
    t1=$(date +%s%N)
    cpu_since_mark
    if [[ -n "$pmd" ]]; then
        stats=$PS_LOG_DIR/$sw-udp64-pmd-stats-$run.txt
        cycles=$(pmd_cycles "$sw" "$stats")
    fi
    stop_trafgen "$TRAFGEN_PID"
    FLOOD_PROC_PCT=$CPU_PROC_PCT
    FLOOD_CORE_PCT=$CPU_CORE_PCT
    [[ $wl != - ]] || return 0
    emit "$sw" "$wl" "$run" "$(printf '{"value": %s, "offered_mpps": %s,
        "frames": %d, "seconds": %s, "frame_bytes": %d, "flows": "%s",
        "proc_cpu_pct": %s, "core1_busy_pct": %s, %s}' \
        "$(rate $((rx1 - rx0)) $((t1 - t0)))" \
        "$(rate $((tx1 - tx0)) $((t1 - t0)))" $((rx1 - rx0)) \
        "$(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", t / 1e9 }')" \
        "$size" "$flows" "$CPU_PROC_PCT" "$CPU_CORE_PCT" "$cycles")"
    if [[ -n "$pmd" ]]; then
        # {"value": X, "pmd_busy_cycles": ..., "pmd_packets": ...}
        emit "$sw" udp64-pmd-cycles "$run" "{\"value\": ${cycles#*: }}"
    fi
}

# wl_cpu SWITCH RUN: the switch's CPU with no traffic for CPU_IDLE s, then
# during the udp64 flood of this run (or a flood of its own if udp64 is
# not selected): process % of one core and core 1's busy %.
wl_cpu()
{
    local sw=$1 run=$2
    cpu_mark
    sleep "$CPU_IDLE"
    cpu_since_mark
    if [[ -z "$SWITCH_PID" ]]; then
        emit_na "$sw" "$run" cpu-idle-proc cpu-load-proc
    else
        emit "$sw" cpu-idle-proc "$run" "{\"value\": $CPU_PROC_PCT}"
    fi
    emit "$sw" cpu-idle-core1 "$run" "{\"value\": $CPU_CORE_PCT}"
    if ! wants udp64; then
        wl_udp "$sw" - "$run" 64 1
    fi
    if [[ -n "$SWITCH_PID" ]]; then
        emit "$sw" cpu-load-proc "$run" "{\"value\": $FLOOD_PROC_PCT}"
    fi
    emit "$sw" cpu-load-core1 "$run" "{\"value\": $FLOOD_CORE_PCT}"
}

# switch_flows NAME: prints the number of datapath flows of the running
# switch, then the most it had and its limit where the switch says ("-"
# where not), and keeps the switch's own report in the logs.
switch_flows()
{
    local out=$PS_LOG_DIR/$SWITCH_LABEL-flows.txt
    case $1 in
    pmdswitch-*)
        ps_appctl dpctl/show >"$out" 2>&1 || true
        awk '$1 == "flows:" { n = $2 } END { print (n == "" ? "null" : n),
            "-", "-" }' "$out"
        ;;
    ovs-*)
        ovs_appctl upcall/show >"$out" 2>&1 || true
        python3 -c '
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"current (\d+)\).*\(max (\d+)\).*\(limit (\d+)\)", text)
print(*(m.groups() if m else ("null", "-", "-")))' "$out"
        ;;
    esac
}

# wl_mem1m SWITCH: on a switch started with the mem1m rule, floods 64-byte
# frames from 1M source addresses for MEM_DURATION s; then, with the
# flood still on, the process's VmRSS and VmHWM, the datapath flows and
# the growth of VmRSS per flow.
wl_mem1m()
{
    local sw=$1 cfg=$PS_LOG_DIR/trafgen-mem1m.cfg rss0 hwm0 rss hwm
    local flows max limit tx0 tx1 rx0 rx1
    read -r rss0 hwm0 < <(proc_mem "$SWITCH_PID")
    write_trafgen_config "$cfg" 64 mem
    start_trafgen "$SWITCH_LABEL-trafgen" "$cfg"
    if [[ -z "$TRAFGEN_PID" ]]; then
        emit "$sw" mem1m-rss 1 '{"value": null, "error": "trafgen exited"}'
        return
    fi
    tx0=$(ns_stat "$NS_A" tx_packets)
    rx0=$(ns_stat "$NS_B" rx_packets)
    sleep "$MEM_DURATION"
    read -r rss hwm < <(proc_mem "$SWITCH_PID")
    read -r flows max limit < <(switch_flows "$sw")
    tx1=$(ns_stat "$NS_A" tx_packets)
    rx1=$(ns_stat "$NS_B" rx_packets)
    stop_trafgen "$TRAFGEN_PID"
    emit "$sw" mem1m-rss 1 "{\"value\": $rss, \"rss_before_mb\": $rss0,
        \"frames_offered\": $((tx1 - tx0 + 0)),
        \"frames_received\": $((rx1 - rx0 + 0))}"
    emit "$sw" mem1m-hwm 1 "{\"value\": $hwm, \"hwm_before_mb\": $hwm0}"
    emit "$sw" mem1m-flows 1 "{\"value\": $flows, \"max\": \"$max\",
        \"limit\": \"$limit\"}"
    emit "$sw" mem1m-kb-per-flow 1 "{\"value\": $(awk -v a="$rss0" \
        -v b="$rss" -v n="$flows" 'BEGIN {
            if (n + 0 > 0) {
                printf "%.3f\n", (b - a) * 1024 / n
            } else {
                print "null"
            }
        }')}"
}

# run_mem1m SWITCH: restarts SWITCH with the mem1m rule (unless it was
# started with it) and runs wl_mem1m; "-" for the kernel switches.
run_mem1m()
{
    local sw=$1
    if [[ $sw != ovs-* && $sw != pmdswitch-* ]]; then
        emit_na "$sw" 1 mem1m-rss mem1m-hwm mem1m-flows mem1m-kb-per-flow
        return
    fi
    if [[ $SWITCH_LABEL != "$sw-mem1m" ]]; then
        stop_switch "$sw"
        MEM_RULES=1
        start_switch "$sw" "$sw-mem1m"
        MEM_RULES=
    fi
    if [[ -n "$SWITCH_SKIPPED" ]]; then
        emit "$sw" mem1m-rss 1 "$(python3 -c 'import json, sys
print(json.dumps({"value": None, "error": sys.argv[1]}))' "$SWITCH_SKIPPED")"
        return
    fi
    warm_up "$sw" || true
    wl_mem1m "$sw"
}

# warm_up: ARP and MAC learning before measuring; false if B is
# unreachable.
warm_up()
{
    ip netns exec "$NS_A" ping -n -q -c 5 -i 0.1 -w 5 "$ADDR_B" \
        >/dev/null 2>&1
}

# last_value SWITCH WORKLOAD...: the latest sample's value of each
# WORKLOAD, joined by '/', for progress lines.
last_value()
{
    python3 -c '
import json, sys
values = dict.fromkeys(sys.argv[3:])
for line in open(sys.argv[1]):
    s = json.loads(line)
    if s["switch"] == sys.argv[2] and s["workload"] in values:
        v = s["value"]
        if s.get("not_applicable"):
            v = "-"
        elif v is None:
            v = "failed: %s" % s.get("error")
        elif isinstance(v, float):
            v = "%.3f" % v
        values[s["workload"]] = v
print("/".join(str(v) for v in values.values()))' "$SAMPLES" "$@"
}

run_workloads()
{
    local sw=$1 run=$2 wl
    for wl in "${RUN_WORKLOADS[@]}"; do
        case $wl in
        tcp | tcp8)
            wl_tcp "$sw" "$wl" "$run" \
                "$([[ $wl == tcp8 ]] && echo 8 || echo 1)"
            ps_info "$sw run $run: $wl Gbit/s $(last_value "$sw" "$wl")"
            ;;
        tcp-no-offload | tcp8-no-offload)
            set_offloads off
            wl_tcp "$sw" "$wl" "$run" \
                "$([[ $wl == tcp8-* ]] && echo 8 || echo 1)"
            restore_offloads "$sw"
            ps_info "$sw run $run: $wl Gbit/s $(last_value "$sw" "$wl")"
            ;;
        udp64) wl_udp "$sw" "$wl" "$run" 64 1 ;;
        udp1518) wl_udp "$sw" "$wl" "$run" 1514 1 ;;
        udp64-flows1k) wl_udp "$sw" "$wl" "$run" 64 31x33 ;;
        udp64-flows100k) wl_udp "$sw" "$wl" "$run" 64 316x317 ;;
        udp64-flows1m) wl_udp "$sw" "$wl" "$run" 64 1000x1001 ;;
        ping)
            wl_ping "$sw" "$run"
            ps_info "$sw run $run: ping avg/p50/p99 us" \
                "$(last_value "$sw" ping-avg ping-p50 ping-p99)"
            ;;
        sockperf)
            wl_sockperf "$sw" "$run"
            ps_info "$sw run $run: sockperf RTT p50/p99 us" \
                "$(last_value "$sw" sockperf-p50 sockperf-p99)"
            ;;
        cpu)
            wl_cpu "$sw" "$run"
            ps_info "$sw run $run: cpu idle/flood, process % and core 1 %:" \
                "$(last_value "$sw" cpu-idle-proc cpu-idle-core1)" \
                "$(last_value "$sw" cpu-load-proc cpu-load-core1)"
            ;;
        mem1m) continue ;;
        esac
        if [[ $wl == udp* ]]; then
            ps_info "$sw run $run: $wl Mpps $(last_value "$sw" "$wl")"
        fi
        # Let the switch drain its queues before the next workload.
        sleep 0.5
    done
}

ps_info "switches: ${SWITCHES[*]}; workloads: ${RUN_WORKLOADS[*]};" \
    "$RUNS run(s) of $DURATION s (floods $UDP_DURATION s);" \
    "estimated time $((ESTIMATE / 60)) min $((ESTIMATE % 60)) s"
for sw in "${SWITCHES[@]}"; do
    if ! switch_available "$sw"; then
        ps_info "${NOTES[-1]}"
        continue
    fi
    ps_info "$sw: starting ($((SECONDS / 60)) min $((SECONDS % 60)) s in)"
    if [[ "${RUN_WORKLOADS[*]}" == mem1m &&
        ($sw == ovs-* || $sw == pmdswitch-*) ]]; then
        # Nothing to run before mem1m: start with its rule right away.
        MEM_RULES=1
        start_switch "$sw" "$sw-mem1m"
        MEM_RULES=
    else
        start_switch "$sw"
    fi
    if [[ -z "$SWITCH_SKIPPED" ]] && ! warm_up; then
        SWITCH_SKIPPED="bnA cannot reach bnB through it"
    fi
    if [[ -n "$SWITCH_SKIPPED" ]]; then
        NOTES+=("$sw skipped: $SWITCH_SKIPPED")
        ps_info "${NOTES[-1]}"
        stop_switch "$sw"
        continue
    fi
    for ((run = 1; run <= RUNS; run++)); do
        run_workloads "$sw" "$run"
    done
    if wants mem1m; then
        run_mem1m "$sw"
        if [[ $sw == ovs-* || $sw == pmdswitch-* ]]; then
            ps_info "$sw: mem1m VmRSS/VmHWM MB, flows:" \
                "$(last_value "$sw" mem1m-rss mem1m-hwm)," \
                "$(last_value "$sw" mem1m-flows)"
        fi
    fi
    stop_switch "$sw"
done

ps_info "measured in $((SECONDS / 60)) min $((SECONDS % 60)) s" \
    "(estimated $((ESTIMATE / 60)) min $((ESTIMATE % 60)) s)"
summarize
make_plots
run_micro
