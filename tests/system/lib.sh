# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Shared helpers for the pmdswitch system tests (tests/system/test-*.sh) and
# the benchmark (bench/run-bench.sh).  A test sources this file, calls
# ps_setup with its own name prefix, builds namespaces and veth pairs with
# ps_add_ns and ps_add_veth_to_ns, writes a config with ps_write_config,
# starts and stops the daemon with ps_start_daemon and ps_stop_daemon, and
# reads the counters the daemon logs on exit with ps_stat.
#
# Everything a helper creates (namespaces, root-namespace interfaces,
# background processes, temporary directories) is recorded, in memory and
# in the file "$PS_LOG_DIR/created", before it is created.  A trap on EXIT,
# INT and TERM undoes all of it, so a test leaves nothing behind however it
# ends; tests/system/run.sh replays the same file if a test had to be
# killed outright.  Processes are only ever signalled by recorded PID, and
# only while their start time still matches the recorded one.
#
# Environment:
#   PMDSWITCH_BUILD  build tree holding vswitchd/pmdswitchd (default: the
#                    source tree this file lives in).
#   PS_TPACKET       "true" or "false": the use-tpacket-v3 mode under test.
#   PS_LOG_DIR       directory for this test's logs (default:
#                    tests/system/logs/TEST-MODE).
#   PS_PMD_MASK      pmd-cpu-mask written to configs (default "0x2").
#   PS_DAEMON_ARGS   extra daemon arguments, split on spaces.
#
# Exit status convention: 0 pass, 1 fail, 77 skip.

# shellcheck shell=bash

# A failing $(...) inside an assignment must stop the test, also within
# functions that are themselves run in $(...).
shopt -s inherit_errexit

PS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PS_SRC_DIR=$(cd "$PS_LIB_DIR/../.." && pwd)
PS_BUILD=${PMDSWITCH_BUILD:-$PS_SRC_DIR}
PS_DAEMON=$PS_BUILD/vswitchd/pmdswitchd

PS_PREFIX=
PS_STATE=
PS_DAEMON_PID=
PS_DAEMON_CHILD_PID=
PS_DAEMON_PIDFILE=
PS_DAEMON_LOG=
PS_DAEMON_SEQ=0
PS_BG_PID=
PS_HAVE_UNIXCTL=
PS_UNIXCTL_ARGS=()
PS_CLEANED=
# Each element is "KIND VALUE [START_TIME]"; KIND is pid, link, ns or dir.
PS_RECORDS=()
# Regexes of WARN/ERR log lines that a test expects; see ps_check_log.
PS_LOG_ALLOW=()

# ---------------------------------------------------------------------------
# Reporting.

# Prints a progress line to stderr, so it lands in the test's log.
ps_info()
{
    printf '%s %s\n' "$(date +%H:%M:%S.%3N)" "$*" >&2
}

# Reports a failure and exits 1; the EXIT trap cleans up.
ps_fail()
{
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}

# Reports why the test cannot run here and exits 77 (skip).
ps_skip()
{
    printf 'SKIP: %s\n' "$*" >&2
    exit 77
}

# ps_assert_eq WHAT EXPECTED ACTUAL: fails unless both are equal.
ps_assert_eq()
{
    if [[ "$2" != "$3" ]]; then
        ps_fail "$1: expected '$2', got '$3'"
    fi
    ps_info "ok: $1 = $3"
}

# ---------------------------------------------------------------------------
# Preconditions.

# Skips the test unless running as root.
ps_require_root()
{
    if [[ $(id -u) -ne 0 ]]; then
        ps_skip "needs root"
    fi
}

# ps_require_cmds CMD...: skips the test unless every CMD is installed.
ps_require_cmds()
{
    local cmd
    for cmd in "$@"; do
        if ! command -v "$cmd" >/dev/null 2>&1; then
            ps_skip "'$cmd' is not installed"
        fi
    done
}

# Skips the test unless the daemon binary has been built.
ps_require_daemon()
{
    if [[ ! -x "$PS_DAEMON" ]]; then
        ps_skip "$PS_DAEMON not built (set PMDSWITCH_BUILD?)"
    fi
}

# ---------------------------------------------------------------------------
# Process helpers.

# Prints the start time of process PID (clock ticks since boot), or nothing
# if there is no such process.  PID plus start time identifies a process
# even after its PID is reused.
ps__start_time()
{
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    # Field 22; the command name (field 2) may contain spaces, so count
    # from the last ')'.
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    printf '%s' "${20}"
}

# True if process PID is gone or a zombie (exited, not yet reaped).
ps_exited()
{
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    [[ ${stat:0:1} == Z ]]
}

# True if PID is still the process recorded with START.
ps__same_process()
{
    [[ -n "$2" && "$(ps__start_time "$1")" == "$2" ]]
}

# ps__terminate PID START: SIGTERM, up to 3 s grace, then SIGKILL; reaps the
# process if it is a child of this shell.
ps__terminate()
{
    local pid=$1 start=$2 i
    ps__same_process "$pid" "$start" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do
        ps_exited "$pid" && break
        sleep 0.1
    done
    if ! ps_exited "$pid" && ps__same_process "$pid" "$start"; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# ---------------------------------------------------------------------------
# Recording and cleanup.

# ps__record KIND VALUE [START]: remembers an object for cleanup, in memory
# and in $PS_STATE for run.sh's fallback cleanup.
ps__record()
{
    PS_RECORDS+=("$*")
    if [[ -n "$PS_STATE" ]]; then
        printf '%s\n' "$*" >>"$PS_STATE"
    fi
}

# ps_record_pid PID: adds a background process to the cleanup list.
ps_record_pid()
{
    ps__record pid "$1" "$(ps__start_time "$1")"
}

# ps_record_link NAME: adds a root-namespace interface to the cleanup list.
ps_record_link()
{
    ps__record link "$1"
}

# ps_record_ns NAME: adds a namespace that something else made (a container
# runtime) to the cleanup list.
ps_record_ns()
{
    ps__record ns "$1"
}

# ps_record_dir PATH: adds a temporary directory to the cleanup list.
ps_record_dir()
{
    ps__record dir "$1"
}

# ps_cleanup_records LINE...: undoes the recorded objects, newest first:
# processes, then interfaces, then namespaces, then directories.  Never
# fails.  Also used by run.sh on the lines of a killed test's state file.
ps_cleanup_records()
{
    local -a lines=("$@")
    local i k kind value start p
    for kind in pid link ns dir; do
        for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
            read -r k value start <<<"${lines[i]}"
            [[ "$k" == "$kind" ]] || continue
            case $kind in
            pid)
                ps__terminate "$value" "$start"
                ;;
            link)
                if ip link show dev "$value" >/dev/null 2>&1; then
                    ip link del dev "$value" 2>/dev/null || true
                fi
                ;;
            ns)
                if ip netns list | awk -v n="$value" '$1 == n { f = 1 } END { exit !f }'; then
                    # Kill anything still running inside, then delete.
                    for p in $(ip netns pids "$value" 2>/dev/null); do
                        kill -KILL "$p" 2>/dev/null || true
                    done
                    ip netns del "$value" 2>/dev/null || true
                fi
                ;;
            dir)
                rm -rf -- "$value"
                ;;
            esac
        done
    done
}

# Undoes everything recorded so far and forgets it; the traps stay set, so
# a script (the benchmark) can build and tear down several topologies.
ps_teardown()
{
    local errexit=
    if [[ $- == *e* ]]; then
        errexit=1
        set +e
    fi
    ps_cleanup_records "${PS_RECORDS[@]}"
    PS_RECORDS=()
    if [[ -n "$PS_STATE" ]]; then
        : >"$PS_STATE"
    fi
    PS_DAEMON_PID=
    if [[ -n "$errexit" ]]; then
        set -e
    fi
}

ps__on_exit()
{
    ps_finish $?
}

# ps_finish RC: undoes everything, checks nothing with our prefix is left
# (else RC becomes 1), and exits with RC.  The EXIT trap calls it; a script
# with an EXIT trap of its own must call it last.
ps_finish()
{
    local rc=$1
    set +e
    trap - EXIT INT TERM
    if [[ -z "$PS_CLEANED" ]]; then
        PS_CLEANED=1
        ps_teardown
        ps__leftovers_check || rc=1
    fi
    exit "$rc"
}

ps__on_signal()
{
    ps_info "caught SIG$1, cleaning up"
    trap - INT TERM
    if [[ $1 == INT ]]; then
        exit 130
    fi
    exit 143
}

# Prints the root-namespace interfaces and the namespaces whose names start
# with $PS_PREFIX, one per line.
ps__prefixed_objects()
{
    [[ -n "$PS_PREFIX" ]] || return 0
    ip -o link show 2>/dev/null |
        awk -F': ' -v p="$PS_PREFIX" '{ sub(/@.*/, "", $2); if (index($2, p) == 1) print "link " $2 }'
    ip netns list 2>/dev/null |
        awk -v p="$PS_PREFIX" '{ if (index($1, p) == 1) print "netns " $1 }'
}

# After cleanup: reports (and fails on) any object with our prefix that is
# still there.
ps__leftovers_check()
{
    local left
    left=$(ps__prefixed_objects)
    if [[ -n "$left" ]]; then
        printf 'FAIL: left behind after cleanup:\n%s\n' "$left" >&2
        return 1
    fi
    return 0
}

# ps_setup PREFIX: starts a test.  PREFIX (lower-case letters and digits,
# at most 8 characters) starts the names of every namespace and
# root-namespace interface the test creates.  Fails if objects with that
# prefix already exist: they belong to another run, which we must not
# disturb.  Sets PS_LOG_DIR, PS_TPACKET and PS_MODE (tpacket or mmsg) and
# installs the cleanup traps.
ps_setup()
{
    local prefix=$1 test_name
    if [[ ! $prefix =~ ^[a-z][a-z0-9]{0,7}$ ]]; then
        ps_fail "ps_setup: bad prefix '$prefix'"
    fi
    PS_PREFIX=$prefix
    PS_TPACKET=${PS_TPACKET:-true}
    case $PS_TPACKET in
    true) PS_MODE=tpacket ;;
    false) PS_MODE=mmsg ;;
    *) ps_fail "PS_TPACKET must be true or false, not '$PS_TPACKET'" ;;
    esac
    export PS_TPACKET PS_MODE
    test_name=$(basename "$0" .sh)
    if [[ -z "${PS_LOG_DIR:-}" ]]; then
        PS_LOG_DIR=$PS_LIB_DIR/logs/$test_name-$PS_MODE
        rm -rf -- "$PS_LOG_DIR"
    fi
    mkdir -p -- "$PS_LOG_DIR"
    PS_STATE=$PS_LOG_DIR/created
    : >"$PS_STATE"

    trap ps__on_exit EXIT
    trap 'ps__on_signal INT' INT
    trap 'ps__on_signal TERM' TERM

    local stale
    stale=$(ps__prefixed_objects)
    if [[ -n "$stale" ]]; then
        # Not ours: do not let the EXIT trap judge them.
        PS_PREFIX=
        ps_fail "objects with prefix '$prefix' already exist:
$stale"
    fi
    ps_info "setup: prefix $PS_PREFIX, logs in $PS_LOG_DIR"
}

# ps__check_name KIND NAME: fails unless NAME starts with the prefix and
# fits in an interface name (15 characters).
ps__check_name()
{
    if [[ ${2:0:${#PS_PREFIX}} != "$PS_PREFIX" || ${#2} -gt 15 ]]; then
        ps_fail "$1 name '$2' must start with '$PS_PREFIX' and be at most 15 characters"
    fi
}

# ---------------------------------------------------------------------------
# Topology.

# ps_ns NS CMD...: runs CMD inside namespace NS.
ps_ns()
{
    local ns=$1
    shift
    ip netns exec "$ns" "$@"
}

# ps_add_ns NAME: creates namespace NAME (prefixed) with loopback up.
ps_add_ns()
{
    ps__check_name namespace "$1"
    ps__record ns "$1"
    ip netns add "$1"
    ip -n "$1" link set lo up
}

# ps_add_quiet_ns NAME: like ps_add_ns, with IPv6 off in the namespace, so
# that it sends nothing it is not asked to (no router solicitations or
# neighbour discovery): for tests that count frames exactly.
ps_add_quiet_ns()
{
    ps_add_ns "$1"
    ps_ns "$1" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
                      echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6'
}

# ps__switch_side_no_ipv6 IFNAME: a switch port has no address of its own
# and must not chatter, so no IPv6 on the root-namespace end.
ps__switch_side_no_ipv6()
{
    if [[ -e /proc/sys/net/ipv6/conf/$1/disable_ipv6 ]]; then
        echo 1 >"/proc/sys/net/ipv6/conf/$1/disable_ipv6"
    fi
}

# ps__ns_side_no_dad NS IFNAME: IPv6 inside the namespace, but without
# duplicate address detection, so addresses are usable at once.
ps__ns_side_no_dad()
{
    ip netns exec "$1" sh -c \
        "[ ! -e /proc/sys/net/ipv6/conf/$2/accept_dad ] || echo 0 >/proc/sys/net/ipv6/conf/$2/accept_dad"
}

# ps_add_veth_to_ns NS IFNAME_IN_NS SWITCH_SIDE_IFNAME [ADDR/PREFIX]:
# creates a veth pair whose end IFNAME_IN_NS is in namespace NS (with
# ADDR/PREFIX if given and not "-") and whose end SWITCH_SIDE_IFNAME
# (prefixed) stays in the root namespace, up and without IPv6.
ps_add_veth_to_ns()
{
    local ns=$1 ifname=$2 sw=$3 addr=${4:--}
    ps__check_name interface "$sw"
    if [[ ${#ifname} -gt 15 ]]; then
        ps_fail "interface name '$ifname' is longer than 15 characters"
    fi
    ps_record_link "$sw"
    ip link add "$sw" type veth peer name "$ifname" netns "$ns"
    ps__switch_side_no_ipv6 "$sw"
    ps__ns_side_no_dad "$ns" "$ifname"
    ip link set dev "$sw" up
    ip -n "$ns" link set dev "$ifname" up
    if [[ "$addr" != - ]]; then
        ip -n "$ns" addr add "$addr" dev "$ifname"
    fi
}

# ps_add_veth_between NS1 IF1 NS2 IF2: one veth pair joining two namespaces
# directly (no switch), both ends up.  Deleted with the namespaces.
ps_add_veth_between()
{
    ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
    ps__ns_side_no_dad "$1" "$2"
    ps__ns_side_no_dad "$3" "$4"
    ip -n "$1" link set dev "$2" up
    ip -n "$3" link set dev "$4" up
}

# ps_mac NS IFNAME: prints the MAC address of IFNAME in namespace NS.
ps_mac()
{
    ip -n "$1" link show dev "$2" | awk '/link\/ether/ { print $2; exit }'
}

# ps_if_stat NS IFNAME COUNTER: prints a kernel interface counter such as
# rx_packets, read inside namespace NS ("" for the root namespace).
ps_if_stat()
{
    if [[ -z "$1" ]]; then
        cat "/sys/class/net/$2/statistics/$3"
    else
        ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
    fi
}

# ps_ping_all NS COUNT DST [PING_ARG...]: pings DST from namespace NS COUNT
# times, 0.05 s apart, giving up after 10 s; fails unless every echo got
# its reply.
ps_ping_all()
{
    local ns=$1 count=$2 dst=$3 out rx
    shift 3
    out=$(ip netns exec "$ns" ping -n -q -c "$count" -i 0.05 -w 10 "$@" \
        "$dst" 2>&1) || true
    rx=$(sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' <<<"$out")
    # With -w, ping sends every 0.05 s until COUNT replies are in, so a
    # slow round trip (a loaded machine) brings more replies, never fewer.
    if [[ -z "$rx" ]] || ((rx < count)); then
        printf '%s\n' "$out" >&2
        ps_fail "ping $* $dst from $ns: ${rx:-0} of $count replies"
    fi
    ps_info "ok: ping $* $dst from $ns: $count of $count replies"
}

# ---------------------------------------------------------------------------
# Background processes.

# ps_bg NAME CMD...: runs CMD in the background with its output in
# $PS_LOG_DIR/NAME.out, records it for cleanup and sets PS_BG_PID.  Must be
# called in the test's own shell (not in $(...)), so that the process is
# our child.
ps_bg()
{
    local name=$1
    shift
    "$@" >"$PS_LOG_DIR/$name.out" 2>&1 &
    PS_BG_PID=$!
    ps_record_pid "$PS_BG_PID"
}

# ps_kill_bg PID: stops a process started by ps_bg (SIGTERM, then SIGKILL).
ps_kill_bg()
{
    local rec pid start
    for rec in "${PS_RECORDS[@]}"; do
        read -r _ pid start <<<"$rec"
        if [[ "$rec" == pid* && "$pid" == "$1" ]]; then
            ps__terminate "$pid" "$start"
            return 0
        fi
    done
    ps_fail "ps_kill_bg: $1 was not started by ps_bg"
}

# ps_wait_until SECONDS CMD...: polls CMD every 0.1 s until it succeeds;
# returns 1 if it still fails after SECONDS.
ps_wait_until()
{
    local deadline
    deadline=$(($(date +%s%N) + ${1%.*} * 1000000000))
    shift
    while ! "$@"; do
        if (($(date +%s%N) > deadline)); then
            return 1
        fi
        sleep 0.1
    done
    return 0
}

# ps_tcp_listening NS PORT: true if something listens on TCP PORT in NS.
ps_tcp_listening()
{
    [[ -n "$(ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)" ]]
}

# ps_receiver_drops NS: datagrams and frames the kernel in NS dropped on
# receive: UDP InErrors (which include RcvbufErrors) plus eth0's
# rx_dropped.  A stream test subtracts these from iperf3's "lost" so that
# only what the switch lost counts against it.
ps_receiver_drops()
{
    local udp dropped
    udp=$(ip netns exec "$1" awk '/^Udp: / { n++ } /^Udp: / && n == 2 {
            print $4 }' /proc/net/snmp)
    dropped=0
    if [[ -z "${PS_SEQ_UDP_DROPS_ONLY:-}" ]]; then
        dropped=$(ps_if_stat "$1" eth0 rx_dropped)
    fi
    echo $((udp + dropped))
}

# ps_show_switch_counters: prints, on standard error, every counter that
# says where a frame went (ports, PMDs, coverage), to explain a failure.
ps_show_switch_counters()
{
    local cmd
    for cmd in dpctl/show dpif-netdev/pmd-stats-show coverage/show; do
        printf -- '--- %s\n' "$cmd" >&2
        ps_appctl "$cmd" >&2 || true
    done
}

# ps_start_stream FROM TO ADDR SECONDS: starts an iperf3 server in
# namespace TO on ADDR and a steady UDP stream to it from namespace FROM,
# 2000 datagrams of 250 bytes a second for SECONDS, in the background.
# ps_end_stream LABEL MIN_SENT then waits for it and fails unless it sent
# more than MIN_SENT datagrams and the switch lost none of them: iperf3's
# count of lost datagrams, less what TO's own kernel dropped on receive.
ps_start_stream()
{
    PS_STREAM_TO=$2
    ps_start_iperf3_server "$2" "$3"
    PS_STREAM_SERVER=$PS_BG_PID
    PS_STREAM_DROPS0=$(ps_receiver_drops "$2")
    ps_bg stream ip netns exec "$1" iperf3 -c "$3" -u -b 4M -l 250 -t "$4" \
        --connect-timeout 5000 --get-server-output -J
    PS_STREAM_CLIENT=$PS_BG_PID
}

ps_end_stream()
{
    local label=$1 min_sent=$2 rc=0 sent lost drops
    wait "$PS_STREAM_CLIENT" || rc=$?
    if [[ $rc -ne 0 ]]; then
        cat "$PS_LOG_DIR/stream.out" >&2
        ps_fail "iperf3 client exited with status $rc"
    fi
    read -r sent lost < <(python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
s = d["end"]["sum"]
print(s["packets"], s["lost_packets"])
# The server reports its intervals as text ("... 0.012 ms  3/2000 (0%)").
for line in d.get("server_output_text", "").splitlines():
    m = re.search(r"(\d+\.\d+)-(\d+\.\d+) +sec .* (-?\d+)/(\d+) \(", line)
    if m and int(m.group(3)) != 0 and "receiver" not in line:
        sys.stderr.write("  server: lost %s of %s in %s-%s s\n" % (
            m.group(3), m.group(4), m.group(1), m.group(2)))
' "$PS_LOG_DIR/stream.out")
    drops=$(($(ps_receiver_drops "$PS_STREAM_TO") - PS_STREAM_DROPS0))
    ps_info "stream: $sent datagrams, $lost lost, of which the receiving" \
        "namespace itself dropped $drops"
    ((sent > min_sent)) || ps_fail "stream sent only $sent datagrams"
    if ((lost != drops)); then
        ps_show_switch_counters
    fi
    ps_assert_eq "$label" 0 "$((lost - drops))"
    ps_kill_bg "$PS_STREAM_SERVER"
}

# ps_start_iperf3_server NS ADDR: starts an iperf3 server in NS bound to
# ADDR (port 5201) and waits until it listens.  Sets PS_BG_PID.
ps_start_iperf3_server()
{
    ps_bg "iperf3-server-$1" ip netns exec "$1" iperf3 -s -B "$2"
    if ! ps_wait_until 5 ps_tcp_listening "$1" 5201; then
        cat "$PS_LOG_DIR/iperf3-server-$1.out" >&2
        ps_fail "iperf3 server in $1 did not start"
    fi
}

# ps_start_seq_stream FROM TO ADDR RATE [SECONDS]: starts
# tests/system/seq-stream.py's receiver in namespace TO on ADDR (UDP port
# 5300) and, once it listens, its sender in namespace FROM: RATE
# sequence-numbered datagrams a second for SECONDS (default 120), in the
# background.  ps_end_seq_stream LABEL MIN_SENT stops the sender (or waits
# for it, if it has ended), waits for the receiver's counts and fails
# unless the sender sent more than MIN_SENT datagrams and none was lost
# (beyond what TO's own kernel dropped on receive) or duplicated; it
# reports the reordered ones and leaves their number in
# PS_SEQ_REORDERED.  Call both in the test's own shell.  With
# PS_SEQ_UDP_DROPS_ONLY set, only UDP's InErrors count as the receiving
# namespace's own drops, not eth0's rx_dropped: for a test that also sends
# TO frames its kernel drops on purpose (an unknown ethertype).  With
# PS_SEQ_COUNTED naming a function, the number it prints when the stream
# has ended counts as dropped by name too (a test that allows a loss as
# long as a counter accounts for each datagram).
ps_start_seq_stream()
{
    local from=$1 to=$2 addr=$3 rate=$4 secs=${5:-120}
    PS_SEQ_TO=$to
    PS_SEQ_OUT=$PS_LOG_DIR/seq-recv.json
    rm -f -- "$PS_SEQ_OUT" "$PS_LOG_DIR/seq-recv.ready"
    ps_bg seq-recv ip netns exec "$to" python3 "$PS_LIB_DIR/seq-stream.py" \
        recv "$addr" 5300 "$PS_SEQ_OUT" "$PS_LOG_DIR/seq-recv.ready"
    PS_SEQ_RECV=$PS_BG_PID
    if ! ps_wait_until 5 test -e "$PS_LOG_DIR/seq-recv.ready"; then
        cat "$PS_LOG_DIR/seq-recv.out" >&2
        ps_fail "seq-stream receiver in $to did not start"
    fi
    PS_SEQ_DROPS0=$(ps_receiver_drops "$to")
    ps_bg seq-send ip netns exec "$from" python3 \
        "$PS_LIB_DIR/seq-stream.py" send "$addr" 5300 "$rate" "$secs"
    PS_SEQ_SEND=$PS_BG_PID
    ps_info "seq-stream $from -> $to ($addr): $rate datagrams/s"
}

ps_end_seq_stream()
{
    local label=$1 min_sent=$2 rc=0 sent send_errors received unique
    local dup reord lost missing sock drops counted
    if ! ps_exited "$PS_SEQ_SEND"; then
        kill -TERM "$PS_SEQ_SEND" 2>/dev/null || true
    fi
    wait "$PS_SEQ_SEND" || rc=$?
    if [[ $rc -ne 0 ]]; then
        cat "$PS_LOG_DIR/seq-send.out" >&2
        ps_fail "seq-stream sender exited with status $rc"
    fi
    # The receiver ends 0.5 s after the sender's end marker.
    if ! ps_wait_until 5 ps_exited "$PS_SEQ_RECV"; then
        kill -TERM "$PS_SEQ_RECV" 2>/dev/null || true
    fi
    rc=0
    wait "$PS_SEQ_RECV" || rc=$?
    if [[ $rc -ne 0 || ! -s "$PS_SEQ_OUT" ]]; then
        cat "$PS_LOG_DIR/seq-recv.out" >&2
        ps_fail "seq-stream receiver exited with status $rc, no counts"
    fi
    drops=$(($(ps_receiver_drops "$PS_SEQ_TO") - PS_SEQ_DROPS0))
    if [[ -n ${PS_SEQ_COUNTED:-} ]]; then
        # Drops that a named counter accounts for, by the caller's
        # function.
        counted=$("$PS_SEQ_COUNTED")
        ps_info "$label: drops counted by name: $counted"
        drops=$((drops + counted))
    fi
    read -r sent send_errors < <(python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(d["sent"], d["send_errors"])' "$PS_LOG_DIR/seq-send.out")
    read -r received unique dup reord lost sock missing < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["received"], d["unique"], d["duplicates"], d["reordered"],
      d["lost"], d["socket_drops"],
      " ".join("%d-%d" % tuple(r) for r in d["missing"]) or "-")' \
        "$PS_SEQ_OUT")
    ps_info "seq-stream: sent $sent (send errors $send_errors), received" \
        "$received ($unique distinct): lost $lost, duplicated $dup," \
        "reordered $reord; receiving namespace dropped $drops" \
        "(socket $sock)"
    # For the caller.
    # shellcheck disable=SC2034
    PS_SEQ_REORDERED=$reord
    ((sent > min_sent)) || ps_fail "seq-stream sent only $sent datagrams"
    if ((lost != drops || dup != 0)); then
        ps_info "missing sequence numbers: $missing"
        ps_show_switch_counters
    fi
    ps_assert_eq "$label: lost" 0 "$((lost - drops))"
    ps_assert_eq "$label: duplicated" 0 "$dup"
}

# ---------------------------------------------------------------------------
# The daemon.

# ps_write_config FILE TPACKET PORT=IFNAME... [+KEY=VALUE...]: writes a
# one-bridge config (bridge "br0") with the given ports (IFNAME "tap:NAME"
# makes a tap port with "create": true, "afxdp:NAME" an afxdp port,
# "veth:NAME:PEER" a system port with "create": true and that veth peer;
# a suffix "@N" asks for N rx queues) and
# other_config use-tpacket-v3=TPACKET (true or false) and pmd-cpu-mask
# $PS_PMD_MASK.  Each +KEY=VALUE adds an other_config entry; VALUE is taken
# as JSON if it parses, else as a string.
#
# VLAN settings follow IFNAME (and "@N") as comma-separated options:
# ",tag=VID", ",trunks=VID:VID:..." (",trunks=" for an empty list) and
# ",vlan_mode=MODE", for example "p1=veth-a,tag=10" (access port of VLAN
# 10), "p2=veth-b,trunks=10:20" or
# "p3=veth-c@2,vlan_mode=native-untagged,tag=10,trunks=20".
#
# IFNAME "bond:IF1+IF2+..." makes a bond port over those member
# interfaces, with the options ",bond_mode=MODE" and
# ",bond-rebalance-interval=MS", for example
# "up0=bond:veth-d+veth-e,bond_mode=balance-tcp".
ps_write_config()
{
    local file=$1
    shift
    python3 - "$file" "${PS_PMD_MASK:-0x2}" "$@" <<'EOF'
import json
import sys

path, mask, tpacket = sys.argv[1:4]
if tpacket not in ("true", "false"):
    sys.exit("ps_write_config: TPACKET must be true or false")
other = {"use-tpacket-v3": tpacket == "true", "pmd-cpu-mask": mask}
ports = []
for arg in sys.argv[4:]:
    key, sep, value = arg.partition("=")
    if not sep:
        sys.exit("ps_write_config: expected NAME=VALUE, got %r" % arg)
    if key.startswith("+"):
        try:
            other[key[1:]] = json.loads(value)
        except ValueError:
            other[key[1:]] = value
    else:
        port = {"name": key}
        value, *vlan_opts = value.split(",")
        for opt in vlan_opts:
            okey, osep, oval = opt.partition("=")
            if okey == "tag" and osep:
                port["tag"] = int(oval)
            elif okey == "trunks" and osep:
                port["trunks"] = [int(v) for v in oval.split(":") if v]
            elif okey == "vlan_mode" and osep:
                port["vlan_mode"] = oval
            elif okey == "bond_mode" and osep:
                port.setdefault("options", {})["bond_mode"] = oval
            elif okey == "bond-rebalance-interval" and osep:
                port.setdefault("options", {})[okey] = int(oval)
            else:
                sys.exit("ps_write_config: unknown port option %r in %r"
                         % (opt, arg))
        value, _, n_rxq = value.partition("@")
        if value.startswith("tap:"):
            port.update(type="tap", create=True)
            value = value[4:]
        elif value.startswith("afxdp:"):
            port.update(type="afxdp")
            value = value[6:]
        elif value.startswith("veth:"):
            value, _, peer = value[5:].partition(":")
            port.update(create=True, options={"peer": peer})
        if value.startswith("bond:"):
            port.update(type="bond", members=value[5:].split("+"))
        else:
            port["interface"] = value
        if n_rxq:
            port.setdefault("options", {})["n_rxq"] = int(n_rxq)
        ports.append(port)
config = {"bridges": [{"name": "br0", "ports": ports}],
          "other_config": other}
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
EOF
}

# ps_appctl ARG...: runs pmdswitch-appctl against the running test daemon.
ps_appctl()
{
    "$PS_BUILD/utilities/pmdswitch-appctl" -t "$PS_DAEMON_CTL" "$@"
}

# ps_unixctl_args PATH: sets the array PS_UNIXCTL_ARGS to "--unixctl=PATH"
# if the daemon has that option (a build without it would reject it), else
# to nothing.
ps_unixctl_args()
{
    if [[ -z "${PS_HAVE_UNIXCTL:-}" ]]; then
        PS_HAVE_UNIXCTL=no
        if "$PS_DAEMON" --help 2>&1 | grep -q -- '--unixctl'; then
            PS_HAVE_UNIXCTL=yes
        fi
    fi
    PS_UNIXCTL_ARGS=()
    if [[ $PS_HAVE_UNIXCTL == yes ]]; then
        PS_UNIXCTL_ARGS=("--unixctl=$1")
    fi
}

# ps_start_daemon CONFIG [ARG...]: starts pmdswitchd in the background with
# a pidfile, log file and unixctl socket of its own, and waits up to 10 s
# for the pidfile (written once every port is open and the PMDs run).
# Fails, showing the daemon's output, if it exits or does not get ready.
# Sets PS_DAEMON_PID, PS_DAEMON_LOG and PS_DAEMON_PIDFILE.  With
# "--monitor" among the ARGs, PS_DAEMON_PID is the monitor and the
# pidfile names the daemon, its child: PS_DAEMON_CHILD_PID (also recorded
# for cleanup; ps_daemon_child_pid reads the pidfile again after a
# restart).  With PS_DAEMON_NETNS set, the daemon runs in that namespace
# (a "host" of its own, as the tunnel tests need).  Call it in the test's
# own shell.
ps_start_daemon()
{
    local config=$1 base pidfile rundir i monitor='' arg
    shift
    for arg in "$@"; do
        [[ $arg == --monitor ]] && monitor=1
    done
    PS_DAEMON_CHILD_PID=
    if [[ -n "$PS_DAEMON_PID" ]]; then
        ps_fail "ps_start_daemon: daemon already running"
    fi
    PS_DAEMON_SEQ=$((PS_DAEMON_SEQ + 1))
    base=$PS_LOG_DIR/pmdswitchd-$PS_DAEMON_SEQ
    pidfile=$base.pid
    PS_DAEMON_PIDFILE=$pidfile
    PS_DAEMON_LOG=$base.log
    # Unix socket paths are limited to 107 bytes: keep it short.
    rundir=$(mktemp -d /tmp/pmdsw.XXXXXX)
    ps_record_dir "$rundir"
    rm -f -- "$pidfile" "$PS_DAEMON_LOG"

    local -a extra=()
    if [[ -n "${PS_DAEMON_ARGS:-}" ]]; then
        read -r -a extra <<<"$PS_DAEMON_ARGS"
    fi
    ps_unixctl_args "$rundir/pmdswitchd.ctl"
    PS_DAEMON_CTL=$rundir/pmdswitchd.ctl
    local -a netns=()
    if [[ -n "${PS_DAEMON_NETNS:-}" ]]; then
        # "ip netns exec" execs the daemon: the PID stays the daemon's.
        netns=(ip netns exec "$PS_DAEMON_NETNS")
    fi
    ps_info "starting $PS_DAEMON --config $config${PS_DAEMON_NETNS:+ in namespace $PS_DAEMON_NETNS}"
    "${netns[@]}" "$PS_DAEMON" --config "$config" --pidfile="$pidfile" \
        --log-file="$PS_DAEMON_LOG" "${PS_UNIXCTL_ARGS[@]}" \
        "${extra[@]}" "$@" >"$base.stderr" 2>&1 &
    PS_DAEMON_PID=$!
    ps_record_pid "$PS_DAEMON_PID"

    for ((i = 0; i < 100; i++)); do
        if [[ -s "$pidfile" ]]; then
            break
        fi
        if ps_exited "$PS_DAEMON_PID"; then
            local rc=0
            wait "$PS_DAEMON_PID" || rc=$?
            PS_DAEMON_PID=
            ps__show_daemon_output "$base"
            ps_fail "pmdswitchd exited with status $rc during startup"
        fi
        sleep 0.1
    done
    if [[ ! -s "$pidfile" ]]; then
        ps__show_daemon_output "$base"
        ps_fail "pmdswitchd wrote no pidfile within 10 s"
    fi
    # The pidfile may be written but not yet complete; give it a moment.
    local content
    for ((i = 0; i < 10; i++)); do
        content=$(tr -d '[:space:]' <"$pidfile")
        if [[ -n "$monitor" ]]; then
            [[ -n "$content" && "$(ps__parent_pid "$content")" == \
                "$PS_DAEMON_PID" ]] && break
        else
            [[ "$content" == "$PS_DAEMON_PID" ]] && break
        fi
        sleep 0.05
    done
    if [[ -n "$monitor" ]]; then
        ps_assert_eq "parent of the daemon in the pidfile ($content)" \
            "$PS_DAEMON_PID" "$(ps__parent_pid "$content")"
        PS_DAEMON_CHILD_PID=$content
        ps_record_pid "$PS_DAEMON_CHILD_PID"
        ps_info "pmdswitchd ready, pid $PS_DAEMON_CHILD_PID, monitor pid" \
            "$PS_DAEMON_PID"
        return 0
    fi
    ps_assert_eq "pidfile content" "$PS_DAEMON_PID" "$content"
    ps_info "pmdswitchd ready, pid $PS_DAEMON_PID"
}

# ps__parent_pid PID: prints the parent of process PID, or nothing.
ps__parent_pid()
{
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    printf '%s' "$2"
}

# ps_daemon_child_pid: under --monitor, prints the daemon's PID from the
# pidfile (it changes when the monitor restarts the daemon), once it names
# a live child of the monitor; fails after 10 s.
ps_daemon_child_pid()
{
    local i pid
    for ((i = 0; i < 100; i++)); do
        pid=$(tr -d '[:space:]' <"$PS_DAEMON_PIDFILE" 2>/dev/null || true)
        if [[ -n "$pid" ]] && ! ps_exited "$pid" &&
            [[ "$(ps__parent_pid "$pid")" == "$PS_DAEMON_PID" ]]; then
            printf '%s\n' "$pid"
            return 0
        fi
        sleep 0.1
    done
    ps_fail "no live daemon under monitor $PS_DAEMON_PID in $PS_DAEMON_PIDFILE"
}

ps__show_daemon_output()
{
    printf -- '--- %s.stderr ---\n' "$1" >&2
    tail -n 40 "$1.stderr" >&2 2>/dev/null || true
    printf -- '--- %s.log (tail) ---\n' "$1" >&2
    tail -n 40 "$1.log" >&2 2>/dev/null || true
    printf -- '---\n' >&2
}

# ps_daemon_running: true while the daemon started by ps_start_daemon runs.
ps_daemon_running()
{
    [[ -n "$PS_DAEMON_PID" ]] && ! ps_exited "$PS_DAEMON_PID"
}

# ps_stop_daemon: sends SIGTERM to the daemon, waits up to 5 s for it to
# exit, then SIGKILLs it.  Fails unless it exited by itself with status 0.
ps_stop_daemon()
{
    local pid=$PS_DAEMON_PID i rc=0 base
    [[ -n "$pid" ]] || ps_fail "ps_stop_daemon: no daemon running"
    base=${PS_DAEMON_LOG%.log}
    if ps_exited "$pid"; then
        wait "$pid" || rc=$?
        PS_DAEMON_PID=
        ps__show_daemon_output "$base"
        ps_fail "pmdswitchd died before it was stopped (status $rc)"
    fi
    kill -TERM "$pid"
    for ((i = 0; i < 50; i++)); do
        ps_exited "$pid" && break
        sleep 0.1
    done
    if ! ps_exited "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        PS_DAEMON_PID=
        ps__show_daemon_output "$base"
        ps_fail "pmdswitchd did not exit within 5 s of SIGTERM"
    fi
    wait "$pid" || rc=$?
    PS_DAEMON_PID=
    if [[ $rc -ne 0 ]]; then
        ps__show_daemon_output "$base"
        ps_fail "pmdswitchd exited with status $rc after SIGTERM"
    fi
    ps_info "pmdswitchd stopped cleanly"
}

# ps_stat port NAME FIELD | ps_stat pmd FIELD: prints a counter from the
# "|INFO|stats: port NAME ..." / "|INFO|stats: pmd CORE ..." lines the last
# daemon logged on exit: the port's value, or the sum over all PMDs.
# Fails if the line or the field is missing.
ps_stat()
{
    local kind=$1 name field value
    case $kind in
    port) name=$2 field=$3 ;;
    pmd) name='' field=$2 ;;
    *) ps_fail "ps_stat: kind must be port or pmd" ;;
    esac
    [[ -n "$field" ]] || ps_fail "ps_stat: missing FIELD"
    [[ -f "${PS_DAEMON_LOG:-}" ]] || ps_fail "ps_stat: no daemon log"
    if ! value=$(awk -v kind="$kind" -v name="$name" -v field="$field" '
        {
            # The module name before "|INFO|" does not matter.
            tag = "|INFO|stats: " kind " "
            i = index($0, tag)
            if (i == 0) {
                next
            }
            n = split(substr($0, i + length(tag)), t, " ")
            if (kind == "port" && t[1] != name) {
                next
            }
            lines++
            for (j = 2; j <= n; j++) {
                eq = index(t[j], "=")
                if (substr(t[j], 1, eq - 1) == field) {
                    v = substr(t[j], eq + 1)
                    if (v !~ /^[0-9]+$/) {
                        exit 2
                    }
                    if (kind == "port") {
                        sum = v
                    } else {
                        sum += v
                    }
                    found++
                }
            }
        }
        END {
            if (lines == 0 || found != lines) {
                exit 1
            }
            printf "%d\n", sum
        }' "$PS_DAEMON_LOG"); then
        ps_fail "ps_stat: no '$field' in the 'stats: $kind $name' lines of $PS_DAEMON_LOG"
    fi
    printf '%s\n' "$value"
}

# ps_late_fail MESSAGE...: a failed check that is reported at the end
# (by ps_late_fails_check), so that the rest of the test still runs and
# says what else works.
PS_LATE_FAILS=()
ps_late_fail()
{
    ps_info "FAILED CHECK (reported at the end): $*"
    PS_LATE_FAILS+=("$*")
}

# ps_late_fails_check: fails the test if ps_late_fail recorded anything,
# after showing the daemon log's unexpected lines.
ps_late_fails_check()
{
    if ((${#PS_LATE_FAILS[@]})); then
        (ps_check_log) || true
        printf 'FAIL: %s\n' "${PS_LATE_FAILS[@]}" >&2
        ps_fail "${#PS_LATE_FAILS[@]} checks failed (above)"
    fi
}

# ps_check_log: fails if any daemon log of this test has a WARN, ERR or
# EMER line that matches none of the extended regexes in PS_LOG_ALLOW.
ps_check_log()
{
    local bad=0 line re allowed f
    for f in "$PS_LOG_DIR"/pmdswitchd-*.log; do
        [[ -f "$f" ]] || continue
        while IFS= read -r line; do
            allowed=
            for re in "${PS_LOG_ALLOW[@]}"; do
                if [[ $line =~ $re ]]; then
                    allowed=1
                    break
                fi
            done
            if [[ -z "$allowed" ]]; then
                printf 'unexpected log line (%s): %s\n' "${f##*/}" "$line" >&2
                bad=1
            fi
        done < <(grep -E '\|(WARN|ERR|EMER)\|' "$f" || true)
    done
    if [[ $bad -ne 0 ]]; then
        ps_fail "daemon logged unexpected warnings or errors"
    fi
    ps_info "ok: daemon log has no unexpected warnings or errors"
}
