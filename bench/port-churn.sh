#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: port churn at run time.  A pmdswitchd of its own, with one
# bridge br0 and no port, gets N ports (default 1000) added one by one
# with `pmdswitch-appctl add-port br0 pI ...`, then deleted one by one with
# `del-port br0 pI`, through the runtime commands of the control socket
# (each validates the edited config, writes the config file atomically
# and applies the difference as a reload does).  Measured per mode:
#
#   add, del   wall time of each pmdswitch-appctl process (bash's
#              EPOCHREALTIME before and after, no extra fork), in ms:
#              median, p90, p99, max, and the median by how many ports
#              the bridge held at the time; what the CLI costs by
#              itself: `pmdswitch-appctl --version` (the process alone, no
#              connection) and `pmdswitch-appctl version` (one round trip
#              to the daemon), timed the same way, N times with no port
#              (and the latter 200 times with N ports)
#   daemon CPU the CPU time (utime + stime) of the daemon's threads other
#              than the PMDs over all adds and over all dels, per command
#   memory     VmRSS of the daemon (/proc/PID/status), its open
#              descriptors (/proc/PID/fd) and the system's MemAvailable at
#              start, after the adds and after the dels
#   idle CPU   at those three points, the CPU share of the control threads
#              and of the PMD over 3 s in which nothing is asked
#   config     the config file's size with N ports
#
# and checked: after the adds `list-ports br0` and dpctl/show list exactly
# p1..pN (and, for veth, the 2N interfaces exist); after the dels the
# config file has no port, dpctl/show no port and no interface with the
# prefix is left.
#
# Modes:
#   dummy    "type": "dummy" ports (daemon started with --enable-dummy): no
#            kernel interface, the control plane's cost alone
#   mmsg     interface=pchurnI create=true: the daemon makes a veth pair
#            (pchurnI, pchurnI-peer) per port and opens it with the
#            recvmmsg/sendmmsg provider (use-tpacket-v3 false); root only
#   tpacket  the same with the TPACKET_V3 provider (use-tpacket-v3 true)
#
# Before each mode a probe daemon gets PROBE ports (default 10) to measure
# the memory per port (VmRSS and the drop of MemAvailable, which also sees
# kernel memory such as packet rings); a mode whose estimate for N ports
# exceeds MEM_SHARE % (default 25) of MemAvailable runs with as many
# hundreds of ports as fit, or is skipped if not even 100 do, with a note.
# The veth modes also time `ip link add` and `ip link del` of 50 veth
# pairs: what the kernel alone takes.
#
# The PMD runs on core 1 (pmd-cpu-mask 0x2); this script with its
# pmdswitch-appctl calls and the daemon's other threads (the control
# thread that serves the commands) on core 0 (--ctl-core).  With
# --ctl-core 1 the control thread shares the PMD's core, as every thread
# of the daemon does in run-bench.sh; with many veth ports that costs a
# lot (the PMD and the kernel's softirqs for the ports' sockets compete
# with it there).  As root the daemon runs in a namespace of the script's,
# pchurnns, with IPv6 off there (--ipv6 leaves it on), so that the 2N
# interfaces stay out of the root namespace and send nothing: with IPv6
# on, every new veth end sends router solicitations and MLD reports that
# the switch floods to every port.  Its socket, pidfile, log and config
# are in a temporary directory.  On success and on failure (trap) the
# daemon is stopped by PID, the namespace deleted with everything in it,
# any interface with the prefix "pchurn" left in the root namespace
# deleted and the temporary directory removed.
#
# Usage: port-churn.sh [--ports N] [--probe K] [--mem-share PCT]
#                      [--ctl-core CORE] [--ipv6] [--modes MODE[,MODE...]]
#   N: ports per mode (default 1000, at most 2048); K: probe ports
#   (default 10, 0 for no probe and no memory check); PCT: the share of
#   MemAvailable a mode may take (default 25); CORE: where the daemon's
#   threads other than the PMD run (default 0); --ipv6: leave IPv6 on in
#   the daemon's namespace; MODEs: dummy, mmsg, tpacket (default all
#   three; without root only dummy runs, in the root namespace).
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd and
#   utilities/pmdswitch-appctl, default the source tree).
# Output: the tables on stdout and in bench/results/port-churn-STAMP.md;
#   every sample in bench/results/port-churn-STAMP.json.
#
# Example (as root): bench/port-churn.sh
#          PMDSWITCH_BUILD=/path/to/build bench/port-churn.sh --ports 200

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"

N=1000
PROBE=10
MODES=(dummy mmsg tpacket)
PREFIX=pchurn
MEM_SHARE=25
CTL_CORE=0
IPV6=
while [[ $# -gt 0 ]]; do
    case $1 in
    --ports) N=$2; shift 2 ;;
    --probe) PROBE=$2; shift 2 ;;
    --mem-share) MEM_SHARE=$2; shift 2 ;;
    --ctl-core) CTL_CORE=$2; shift 2 ;;
    --ipv6) IPV6=1; shift ;;
    --modes) IFS=, read -r -a MODES <<<"$2"; shift 2 ;;
    -h | --help) sed -n 's/^# Usage: //p; s/^#   /  /p' "$0"; exit 0 ;;
    *) echo "port-churn.sh: unknown argument '$1' (see --help)" >&2; exit 1 ;;
    esac
done
if [[ ! $N =~ ^[0-9]+$ ]] || ((N < 1 || N > 2048)); then
    echo "port-churn.sh: --ports must be 1..2048" >&2
    exit 1
fi
if [[ ! $CTL_CORE =~ ^[0-9]+$ ]] || ! taskset -c "$CTL_CORE" true 2>/dev/null; then
    echo "port-churn.sh: --ctl-core must be a core this machine has" >&2
    exit 1
fi
if [[ ! $MEM_SHARE =~ ^[0-9]+$ ]] || ((MEM_SHARE < 1 || MEM_SHARE > 90)); then
    echo "port-churn.sh: --mem-share must be 1..90" >&2
    exit 1
fi
if [[ ! $PROBE =~ ^[0-9]+$ ]] || ((PROBE > N)); then
    echo "port-churn.sh: --probe must be 0..N" >&2
    exit 1
fi
for m in "${MODES[@]}"; do
    case $m in
    dummy | mmsg | tpacket) ;;
    *) echo "port-churn.sh: unknown mode '$m'" >&2; exit 1 ;;
    esac
done

APPCTL=$PS_BUILD/utilities/pmdswitch-appctl
ps_require_cmds python3 taskset ip
ps_require_daemon
[[ -x $APPCTL ]] || ps_skip "$APPCTL not built (set PMDSWITCH_BUILD?)"

NOTES=()
if [[ $(id -u) -ne 0 ]]; then
    kept=()
    for m in "${MODES[@]}"; do
        if [[ $m == dummy ]]; then
            kept+=("$m")
        else
            NOTES+=("$m skipped: veth ports need root")
        fi
    done
    MODES=("${kept[@]}")
    ((${#MODES[@]})) || ps_skip "no mode left without root"
fi

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS_DIR=$BENCH_DIR/results
RESULTS_MD=$RESULTS_DIR/port-churn-$STAMP.md
RESULTS_JSON=$RESULTS_DIR/port-churn-$STAMP.json
mkdir -p "$RESULTS_DIR"

# The logs, config and samples live in a temporary directory that the
# cleanup removes.  ps_setup checks that no interface with the prefix
# exists (it would belong to another run) and installs the traps.
PS_LOG_DIR=$(mktemp -d /tmp/pchurn.XXXXXX)
WORK=$PS_LOG_DIR
ps_record_dir "$WORK"
PS_TPACKET=false
ps_setup "$PREFIX"

# As root the daemon runs in a namespace of ours, NS, so that the 2N
# interfaces it makes stay out of the root namespace, with IPv6 off there
# (unless --ipv6): otherwise every new veth end sends router
# solicitations and MLD reports, the switch floods each to every port and
# the kernel routes every copy through an IPv6 table holding a route per
# interface, which is what the PMD then spends its time on.  The daemon
# is started through a wrapper that execs `ip netns exec`, so its PID is
# the daemon's.
NS=
if [[ $(id -u) -eq 0 ]]; then
    NS=${PREFIX}ns
    if [[ -n $IPV6 ]]; then
        ps_add_ns "$NS"
    else
        ps_add_quiet_ns "$NS"
    fi
    printf '#!/bin/bash\nexec ip netns exec %q %q "$@"\n' "$NS" "$PS_DAEMON" \
        >"$WORK/pmdswitchd"
    chmod +x "$WORK/pmdswitchd"
    REAL_DAEMON=$PS_DAEMON
    PS_DAEMON=$WORK/pmdswitchd
else
    REAL_DAEMON=$PS_DAEMON
fi

# The EXIT trap (replacing lib.sh's): on failure the daemon's log tail;
# then the daemon stopped by PID, the namespace (with every interface in
# it) and the temporary directories removed, any interface with our
# prefix left in the root namespace deleted, and lib.sh's check that
# nothing with the prefix is left.
ps__on_exit()
{
    local rc=$?
    set +e
    if [[ $rc -ne 0 && -n "${PS_DAEMON_LOG:-}" && -f "$PS_DAEMON_LOG" ]]; then
        printf -- '--- tail of the daemon log ---\n' >&2
        tail -n 30 "$PS_DAEMON_LOG" >&2
    fi
    PS_STATE=
    ps_teardown
    churn_delete_links
    ps_finish "$rc"
}

# churn_links [NS]: the interfaces of namespace NS (default: the root
# namespace) whose names start with the prefix, one per line (both ends of
# each veth).
churn_links()
{
    local -a netns=()
    [[ -n ${1:-} ]] && netns=(-n "$1")
    ip "${netns[@]}" -o link show 2>/dev/null |
        awk -F': ' -v p="$PREFIX" '{ sub(/@.*/, "", $2); if (index($2, p) == 1) print $2 }'
}

# churn_delete_links: deletes those of the root namespace, in one `ip -batch` (a veth's peer goes
# with it, so errors for peers already gone are expected and ignored).
# Only while PS_PREFIX is set: ps_setup clears it when the prefix's
# interfaces were there before us.
churn_delete_links()
{
    local -a links
    [[ -n "${PS_PREFIX:-}" ]] || return 0
    mapfile -t links < <(churn_links)
    ((${#links[@]})) || return 0
    ps_info "deleting ${#links[@]} leftover interfaces with prefix $PREFIX"
    printf 'link del dev %s\n' "${links[@]}" |
        ip -force -batch - >/dev/null 2>&1 || true
}

# This shell and so every pmdswitch-appctl on core 0; the PMD on core 1,
# the daemon's other threads on CTL_CORE (start_daemon).
NCPUS=$(nproc)
taskset -cp 0 $$ >/dev/null

# now_us: microseconds since the epoch, without a fork.
now_us()
{
    local t=$EPOCHREALTIME
    printf '%s' "${t/./}"
}

# ctl ARG...: pmdswitch-appctl against the daemon under test.
ctl()
{
    "$APPCTL" -T 120 -t "$PS_DAEMON_CTL" "$@"
}

# timed_cli FILE: the wall time of `pmdswitch-appctl --version`, which
# does not connect: the process alone.
timed_cli()
{
    local t0 t1
    t0=${EPOCHREALTIME/./}
    "$APPCTL" --version >/dev/null
    t1=${EPOCHREALTIME/./}
    printf '%d\n' $((t1 - t0)) >>"$1"
}

# timed FILE ARG...: runs `ctl ARG...`, appends its wall time in µs to
# FILE, fails with the reply if it fails.
timed()
{
    local file=$1 t0 t1 rc=0
    shift
    t0=${EPOCHREALTIME/./}
    "$APPCTL" -T 120 -t "$PS_DAEMON_CTL" "$@" >"$WORK/reply" 2>&1 || rc=$?
    t1=${EPOCHREALTIME/./}
    if ((rc)); then
        cat "$WORK/reply" >&2
        ps_fail "pmdswitch-appctl $* exited with status $rc"
    fi
    printf '%d\n' $((t1 - t0)) >>"$file"
}

# rss_kb, fds, memavail_kb, ctl_cpu_ticks: the daemon's VmRSS, open
# descriptors, the system's MemAvailable and the CPU ticks of the
# daemon's threads that are not PMDs.
rss_kb()
{
    awk '/^VmRSS:/ { print $2 }' "/proc/$PS_DAEMON_PID/status"
}

fds()
{
    # ls itself opens no descriptor of the daemon's.
    # shellcheck disable=SC2012
    ls "/proc/$PS_DAEMON_PID/fd" | wc -l
}

memavail_kb()
{
    awk '/^MemAvailable:/ { print $2 }' /proc/meminfo
}

ctl_cpu_ticks()
{
    thread_ticks ctl
}

# thread_ticks ctl|pmd: CPU ticks (utime + stime) of the daemon's threads
# that are not PMDs (ctl) or that are (pmd).
thread_ticks()
{
    local t sum=0 comm
    for t in /proc/"$PS_DAEMON_PID"/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        if [[ $comm == pmd-* ]]; then
            [[ $1 == pmd ]] || continue
        else
            [[ $1 == ctl ]] || continue
        fi
        sum=$((sum + $(awk '{ s = $0; sub(/.*\) /, "", s); split(s, f, " ");
                              print f[12] + f[13] }' "$t/stat")))
    done
    echo "$sum"
}

# idle_cpu NAME: the CPU share, in percent of one core, of the control
# threads and of the PMDs over IDLE_SECONDS with nothing happening, as
# NAME_idle_ctl_pct and NAME_idle_pmd_pct.
IDLE_SECONDS=3
percent()
{
    awk -v t="$1" -v hz="$2" -v s="$IDLE_SECONDS" \
        'BEGIN { printf "%.1f", 100 * t / hz / s }'
}

idle_cpu()
{
    local c0 p0 c1 p1 hz
    hz=$(getconf CLK_TCK)
    c0=$(thread_ticks ctl) p0=$(thread_ticks pmd)
    sleep "$IDLE_SECONDS"
    c1=$(thread_ticks ctl) p1=$(thread_ticks pmd)
    fact "$1_idle_ctl_pct" "$(percent $((c1 - c0)) "$hz")"
    fact "$1_idle_pmd_pct" "$(percent $((p1 - p0)) "$hz")"
}

# snapshot NAME: records VmRSS, fds and MemAvailable as NAME_rss ... in
# the mode's facts file, then the idle CPU (idle_cpu).
snapshot()
{
    printf '%s_rss_kb %s\n%s_fds %s\n%s_memavail_kb %s\n' \
        "$1" "$(rss_kb)" "$1" "$(fds)" "$1" "$(memavail_kb)" >>"$FACTS"
    idle_cpu "$1"
}

fact()
{
    printf '%s %s\n' "$1" "$2" >>"$FACTS"
}

# write_config FILE MODE: one bridge br0, no port.
write_config()
{
    local tpacket=false
    [[ $2 == tpacket ]] && tpacket=true
    cat >"$1" <<EOF
{
  "bridges": [ { "name": "br0", "ports": [] } ],
  "other_config": { "pmd-cpu-mask": "0x2", "use-tpacket-v3": $tpacket }
}
EOF
}

# start_daemon MODE: a fresh daemon on a fresh config, its threads other
# than the PMDs (which pin themselves to core 1) on CTL_CORE.
start_daemon()
{
    local -a extra=()
    CONFIG=$WORK/config-$1.json
    write_config "$CONFIG" "$1"
    [[ $1 == dummy ]] && extra=(--enable-dummy)
    ps_start_daemon "$CONFIG" "${extra[@]}"
    local t
    for t in /proc/"$PS_DAEMON_PID"/task/*; do
        [[ $(cat "$t/comm") == pmd-* ]] && continue
        taskset -cp "$CTL_CORE" "${t##*/}" >/dev/null
    done
}

# port_args MODE I: the KEY=VALUE words of port pI.
port_args()
{
    case $1 in
    dummy) printf '%s\n' type=dummy ;;
    *) printf '%s\n' "interface=$PREFIX$2" create=true ;;
    esac
}

# add_ports MODE FROM TO FILE: adds pFROM..pTO one by one, timing each.
add_ports()
{
    local mode=$1 i
    local -a args
    for ((i = $2; i <= $3; i++)); do
        mapfile -t args < <(port_args "$mode" "$i")
        timed "$4" add-port br0 "p$i" "${args[@]}"
    done
}

# del_ports FROM TO FILE: deletes pFROM..pTO one by one, timing each.
del_ports()
{
    local i
    for ((i = $1; i <= $2; i++)); do
        timed "$3" del-port br0 "p$i"
    done
}

# config_ports FILE: how many ports the config file's bridges hold.
config_ports()
{
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(len(b.get("ports", [])) for b in d.get("bridges", [])))' "$1"
}

# check_ports N: list-ports br0 and dpctl/show list exactly p1..pN.
check_ports()
{
    local n=$1 want got
    want=$(python3 -c 'import sys
print(" ".join(sorted("p%d" % i for i in range(1, int(sys.argv[1]) + 1))))' "$n")
    got=$(ctl list-ports br0 | sort | tr '\n' ' ' | sed 's/ $//')
    [[ "$got" == "$want" ]] ||
        ps_fail "list-ports br0 does not list p1..p$n (it lists $(wc -w <<<"$got") ports)"
    got=$(ctl -f json dpctl/show | python3 -c 'import json, sys
j = json.load(sys.stdin)
print(" ".join(sorted(p["name"] for p in j["ports"])))')
    [[ "$got" == "$want" ]] ||
        ps_fail "dpctl/show does not list p1..p$n (it lists $(wc -w <<<"$got") ports)"
    ps_info "ok: list-ports br0 and dpctl/show list the $n ports p1..p$n"
}

# check_links N: 2N interfaces with the prefix (N veth pairs) exist in
# the daemon's namespace.
check_links()
{
    local got
    got=$(churn_links "$NS" | wc -l)
    ps_assert_eq "interfaces with prefix $PREFIX" "$((2 * $1))" "$got"
}

# kernel_reference COUNT: what the kernel alone takes for a veth pair:
# `ip link add NAME type veth` (plus `ip link set up`) and `ip link del
# NAME`, timed as the appctl calls are, COUNT times, into iplink-add.us
# and iplink-del.us.
kernel_reference()
{
    local i name t0 t1
    for ((i = 1; i <= $1; i++)); do
        name=${PREFIX}r$i
        t0=${EPOCHREALTIME/./}
        ip -n "$NS" link add "$name" type veth peer name "$name-peer"
        ip -n "$NS" link set dev "$name" up
        t1=${EPOCHREALTIME/./}
        printf '%d\n' $((t1 - t0)) >>"$WORK/$MODE/iplink-add.us"
    done
    for ((i = 1; i <= $1; i++)); do
        name=${PREFIX}r$i
        t0=${EPOCHREALTIME/./}
        ip -n "$NS" link del dev "$name"
        t1=${EPOCHREALTIME/./}
        printf '%d\n' $((t1 - t0)) >>"$WORK/$MODE/iplink-del.us"
    done
}

# probe MODE: memory per port with PROBE ports, from a daemon of its own.
# Sets PROBE_RSS_KB and PROBE_AVAIL_KB (per port) and PROBE_FDS.
probe()
{
    local mode=$1 r0 a0 f0 r1 a1 f1
    PROBE_RSS_KB=0 PROBE_AVAIL_KB=0 PROBE_FDS=0
    ((PROBE > 0)) || return 0
    start_daemon "$mode"
    r0=$(rss_kb) a0=$(memavail_kb) f0=$(fds)
    add_ports "$mode" 1 "$PROBE" "$WORK/probe-add.us"
    sleep 0.5
    r1=$(rss_kb) a1=$(memavail_kb) f1=$(fds)
    del_ports 1 "$PROBE" "$WORK/probe-del.us"
    ps_stop_daemon
    PROBE_RSS_KB=$(((r1 - r0) / PROBE))
    PROBE_AVAIL_KB=$(((a0 - a1) / PROBE))
    PROBE_FDS=$(((f1 - f0) / PROBE))
    ps_info "probe $mode: $PROBE ports: per port VmRSS $PROBE_RSS_KB KB, MemAvailable's drop $PROBE_AVAIL_KB KB, $PROBE_FDS fds"
}

# summarize MODE N: prints the mode's tables, appends them to RESULTS_MD and
# adds the mode with every sample to RESULTS_JSON.
summarize()
{
    python3 - "$1" "$2" "$WORK/$1" "$RESULTS_MD" "$RESULTS_JSON" \
        "$(getconf CLK_TCK)" <<'EOF'
import json, math, os, sys

mode, n, d, md_path, json_path, hz = sys.argv[1:7]
n, hz = int(n), int(hz)

def load(name):
    path = os.path.join(d, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [int(x) for x in f.read().split()]

facts = {}
with open(os.path.join(d, "facts")) as f:
    for line in f:
        k, v = line.split(None, 1)
        v = v.strip()
        try:
            v = int(v)
        except ValueError:
            pass
        facts[k] = v

samples = {k: load(k + ".us") for k in
           ("add", "del", "version0", "versionN", "cli", "iplink-add",
            "iplink-del")}

def pct(xs, q):
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]

def ms(us):
    return "%.2f" % (us / 1000.0)

def stats(xs):
    if not xs:
        return None
    return {"n": len(xs), "median_us": pct(xs, 0.5), "p90_us": pct(xs, 0.9),
            "p99_us": pct(xs, 0.99), "max_us": max(xs),
            "min_us": min(xs), "mean_us": sum(xs) / len(xs),
            "total_s": sum(xs) / 1e6}

titles = {"dummy": "dummy ports (type=dummy, --enable-dummy)",
          "mmsg": "veth ports, mmsg provider (use-tpacket-v3 false)",
          "tpacket": "veth ports, tpacket provider (use-tpacket-v3 true)"}
out = []
out.append("### %s: %d ports added, then deleted, one by one%s" % (
    titles[mode], n, " (not %d: memory, see the notes)" % facts["reduced_from"]
    if "reduced_from" in facts else ""))
out.append("")
out.append("| command (ms) | median | p90 | p99 | max | mean | total (s) | daemon CPU per command (ms) |")
out.append("|---|---|---|---|---|---|---|---|")
rows = [("add-port", "add", "add_cpu_ticks"),
        ("del-port", "del", "del_cpu_ticks"),
        ("appctl --version (no connection)", "cli", None),
        ("appctl version, no port", "version0", None),
        ("appctl version, %d ports" % n, "versionN", None),
        ("kernel alone: ip link add veth + set up", "iplink-add", None),
        ("kernel alone: ip link del veth", "iplink-del", None)]
for label, key, cpu in rows:
    st = stats(samples[key])
    if not st:
        continue
    c = "-"
    if cpu and cpu in facts:
        c = "%.2f" % (facts[cpu] * 1000.0 / hz / st["n"])
    out.append("| %s | %s | %s | %s | %s | %s | %.1f | %s |" % (
        label, ms(st["median_us"]), ms(st["p90_us"]), ms(st["p99_us"]),
        ms(st["max_us"]), ms(st["mean_us"]), st["total_s"], c))
out.append("")
out.append("| daemon | start | after %d adds | after %d dels |" % (n, n))
out.append("|---|---|---|---|")
def mb(k):
    return "%.1f" % (facts[k] / 1024.0) if k in facts else "-"
out.append("| VmRSS (MB) | %s | %s | %s |" % (
    mb("start_rss_kb"), mb("added_rss_kb"), mb("deleted_rss_kb")))
out.append("| open fds | %s | %s | %s |" % (
    facts.get("start_fds", "-"), facts.get("added_fds", "-"),
    facts.get("deleted_fds", "-")))
out.append("| system MemAvailable (MB) | %s | %s | %s |" % (
    mb("start_memavail_kb"), mb("added_memavail_kb"),
    mb("deleted_memavail_kb")))
for k, label in (("ctl", "control threads"), ("pmd", "PMD")):
    out.append("| idle CPU, %s (%% of a core) | %s | %s | %s |" % (
        label, facts.get("start_idle_%s_pct" % k, "-"),
        facts.get("added_idle_%s_pct" % k, "-"),
        facts.get("deleted_idle_%s_pct" % k, "-")))
out.append("")
# Growth: the median by how many ports the bridge held before the command.
buckets = 10 if n >= 10 else 1
size = math.ceil(n / buckets)
out.append("| ports on br0 before the command | add median (ms) | del median (ms) |")
out.append("|---|---|---|")
add, dele = samples["add"], samples["del"]
growth = []
for b in range(buckets):
    lo, hi = b * size, min(n, (b + 1) * size) - 1
    if lo > hi:
        break
    # add k (0-based) ran with k ports; del k with n - k ports.
    a = [add[k] for k in range(len(add)) if lo <= k <= hi]
    dl = [dele[k] for k in range(len(dele)) if lo <= n - k - 1 <= hi]
    growth.append({"ports_from": lo, "ports_to": hi,
                   "add_median_us": pct(a, 0.5) if a else None,
                   "del_median_us": pct(dl, 0.5) if dl else None})
    out.append("| %d–%d | %s | %s |" % (
        lo, hi, ms(pct(a, 0.5)) if a else "-",
        ms(pct(dl, 0.5)) if dl else "-"))
out.append("")
cfg0, cfgn = facts.get("config_bytes_0"), facts.get("config_bytes_n")
out.append("- config file: %s bytes with %d ports (%s bytes with none, "
           "%.0f bytes per port)" % (cfgn, n, cfg0,
                                     (cfgn - cfg0) / n if cfgn and cfg0 else 0))
if facts.get("probe_ports"):
    out.append("- probe with %d ports: VmRSS %+d KB, system memory in use "
               "(MemAvailable's drop) %+d KB, %+d fds per port; estimate "
               "for %d ports: %d MB"
               % (facts["probe_ports"], facts["probe_rss_kb"],
                  facts["probe_avail_kb"], facts["probe_fds"],
                  facts.get("probe_estimate_ports", n),
                  facts["probe_estimate_kb"] / 1024))
out.append("- checks: %s" % facts.get("checks", "-"))
if facts.get("leftover"):
    out.append("- not back to the start after the dels: %s" % facts["leftover"])
out.append("")
text = "\n".join(out) + "\n"
sys.stdout.write(text)
with open(md_path, "a") as f:
    f.write(text)

report = {}
if os.path.exists(json_path):
    with open(json_path) as f:
        report = json.load(f)
report.setdefault("modes", {})[mode] = {
    "ports": n, "facts": facts, "growth": growth,
    "stats": {k: stats(v) for k, v in samples.items() if v},
    "samples_us": samples}
with open(json_path + ".tmp", "w") as f:
    json.dump(report, f, indent=1)
os.rename(json_path + ".tmp", json_path)
EOF
}

# run_mode MODE: probe, then the churn itself, then the tables.
run_mode()
{
    local mode=$1 n=$N avail est per cap leftover=() checks=()
    MODE=$mode
    mkdir -p "$WORK/$mode"
    FACTS=$WORK/$mode/facts
    : >"$FACTS"
    ((PROBE == 0)) || ps_info "mode $mode: probe with $PROBE ports"
    probe "$mode"
    rm -f -- "$WORK/probe-add.us" "$WORK/probe-del.us"
    # The estimate: the larger of the two per-port figures (VmRSS misses
    # kernel memory such as packet rings, MemAvailable sees everything
    # but also the neighbours).  At most MEM_SHARE % of MemAvailable.
    avail=$(memavail_kb)
    per=$((PROBE_RSS_KB > PROBE_AVAIL_KB ? PROBE_RSS_KB : PROBE_AVAIL_KB))
    est=$((n * per))
    cap=$((avail * MEM_SHARE / 100))
    if ((PROBE > 0)); then
        fact probe_ports "$PROBE"
        fact probe_rss_kb "$PROBE_RSS_KB"
        fact probe_avail_kb "$PROBE_AVAIL_KB"
        fact probe_fds "$PROBE_FDS"
        fact probe_estimate_kb "$est"
        fact probe_estimate_ports "$n"
    fi
    if ((est > cap)); then
        local fit=$((cap / per / 100 * 100))
        if ((fit < 100)); then
            NOTES+=("$mode skipped: $n ports would take about $((est / 1024)) MB ($per KB per port), more than $MEM_SHARE % of MemAvailable ($((avail / 1024)) MB)")
            ps_info "${NOTES[-1]}"
            return 0
        fi
        NOTES+=("$mode: $fit ports instead of $n: $n would take about $((est / 1024)) MB ($per KB per port), more than $MEM_SHARE % of MemAvailable ($((avail / 1024)) MB)")
        ps_info "${NOTES[-1]}"
        n=$fit
        fact reduced_from "$N"
    fi

    start_daemon "$mode"
    sleep 0.5
    snapshot start
    fact config_bytes_0 "$(stat -c %s "$CONFIG")"
    ps_info "mode $mode: timing $n calls of pmdswitch-appctl version"
    local i
    for ((i = 0; i < n; i++)); do
        timed "$WORK/$mode/version0.us" version
        timed_cli "$WORK/$mode/cli.us"
    done

    if [[ $mode != dummy ]]; then
        ps_info "mode $mode: timing ip link add/del of 50 veth pairs"
        kernel_reference 50
    fi

    ps_info "mode $mode: adding $n ports"
    local c0 c1
    c0=$(ctl_cpu_ticks)
    add_ports "$mode" 1 "$n" "$WORK/$mode/add.us"
    c1=$(ctl_cpu_ticks)
    fact add_cpu_ticks $((c1 - c0))
    sleep 0.5
    snapshot added
    fact config_bytes_n "$(stat -c %s "$CONFIG")"
    ps_assert_eq "ports in the config file" "$n" "$(config_ports "$CONFIG")"
    check_ports "$n"
    checks+=("list-ports and dpctl/show: $n ports" "config: $n ports")
    if [[ $mode != dummy ]]; then
        check_links "$n"
        checks+=("$((2 * n)) interfaces $PREFIX* in $NS")
    fi
    for ((i = 0; i < 200 && i < n; i++)); do
        timed "$WORK/$mode/versionN.us" version
    done

    ps_info "mode $mode: deleting $n ports"
    c0=$(ctl_cpu_ticks)
    del_ports 1 "$n" "$WORK/$mode/del.us"
    c1=$(ctl_cpu_ticks)
    fact del_cpu_ticks $((c1 - c0))
    sleep 0.5
    snapshot deleted
    ps_assert_eq "ports in the config file after the dels" 0 \
        "$(config_ports "$CONFIG")"
    ps_assert_eq "dpctl/show ports after the dels" 0 \
        "$(ctl -f json dpctl/show | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["ports"]))')"
    ps_assert_eq "list-ports br0 after the dels" "" "$(ctl list-ports br0)"
    ps_assert_eq "interfaces with prefix $PREFIX after the dels" 0 \
        "$(churn_links "$NS" | wc -l)"
    ps_assert_eq "interfaces with prefix $PREFIX in the root namespace" 0 \
        "$(churn_links | wc -l)"
    checks+=("after the dels: config, list-ports and dpctl/show empty, no $PREFIX* interface")
    fact checks "$(IFS=';'; printf '%s' "${checks[*]}" | sed 's/;/; /g')"

    # What did not come back to the start (fds exactly; VmRSS within 10 %).
    local f0 f2 r0 r2
    f0=$(awk '$1 == "start_fds" { print $2 }' "$FACTS")
    f2=$(awk '$1 == "deleted_fds" { print $2 }' "$FACTS")
    r0=$(awk '$1 == "start_rss_kb" { print $2 }' "$FACTS")
    r2=$(awk '$1 == "deleted_rss_kb" { print $2 }' "$FACTS")
    ((f2 == f0)) || leftover+=("open fds $f0 -> $f2")
    ((r2 * 10 <= r0 * 11)) ||
        leftover+=("VmRSS $((r0 / 1024)) -> $((r2 / 1024)) MB")
    if ((${#leftover[@]})); then
        fact leftover "$(IFS=';'; printf '%s' "${leftover[*]}" | sed 's/;/; /g')"
    fi
    ps_stop_daemon
    summarize "$mode" "$n"
}

{
    printf '## Port churn: %d ports added and deleted one by one (%s)\n\n' \
        "$N" "$STAMP"
    printf -- '- host: %s, kernel %s, %s CPUs, load average at start %s\n' \
        "$(hostname)" "$(uname -r)" "$NCPUS" \
        "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf -- '- daemon: %s (%s); PMD on core 1, control thread on core %s; pmdswitch-appctl on core 0\n' \
        "$REAL_DAEMON" "$("$REAL_DAEMON" --version 2>&1 | head -1)" "$CTL_CORE"
    if [[ -n $NS ]]; then
        printf -- '- the daemon runs in namespace %s (IPv6 %s there)\n' "$NS" \
            "$([[ -n $IPV6 ]] && echo on || echo off)"
    fi
    printf -- '- times: wall time of each pmdswitch-appctl process; daemon CPU: its non-PMD threads\n\n'
} | tee "$RESULTS_MD"
ps_info "results: $RESULTS_MD, $RESULTS_JSON"

for mode in "${MODES[@]}"; do
    run_mode "$mode"
done

{
    if ((${#NOTES[@]})); then
        printf 'Notes:\n'
        printf -- '- %s\n' "${NOTES[@]}"
        printf '\n'
    fi
    printf -- '- load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '\n' 
} | tee -a "$RESULTS_MD"
python3 - "$RESULTS_JSON" "$STAMP" "$N" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "${NOTES[@]}" <<'EOF'
import json, os, sys
path, stamp, n, load = sys.argv[1:5]
r = json.load(open(path)) if os.path.exists(path) else {}
r.update(stamp=stamp, ports=int(n), load_at_end=load, notes=sys.argv[5:])
json.dump(r, open(path, "w"), indent=1)
EOF
ps_info "results: $RESULTS_MD, $RESULTS_JSON"
