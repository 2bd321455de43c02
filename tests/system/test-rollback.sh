#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: what a failed change, a crash, a signal during start-up and
# a second daemon leave behind.  The daemon runs inside a namespace of its
# own, so that every interface it could leave is found there.
#
#   - A config/reload that adds a port with a veth pair the daemon
#     creates, a port on an existing interface (which it makes
#     promiscuous) and a port on a missing interface fails with the
#     missing interface's message, and leaves neither the veth pair nor
#     promiscuous mode behind: at once, and after the daemon exits.  The
#     same for add-port on a missing interface after one that worked, and
#     for a reload that also reopens a port on the veth pair it made (the
#     pair stays, with its ifindex).
#   - After SIGKILL, the next run of the same instance (same control
#     socket) deletes the veth pair the dead one made for a port that its
#     config no longer has, and takes over (same ifindex, alias naming the
#     new pid) the one its config still creates; that one goes when the
#     daemon stops.
#   - SIGTERM while start-up is blocked (opening a dummy port's pcap file,
#     a FIFO nobody reads yet), after a veth pair was created: once
#     unblocked the daemon opens no further port and exits 0, the veth
#     pair, the socket, its lock and the pidfile gone.
#   - A second daemon with another control socket and a port on an
#     interface the first one uses fails, naming the interface and the
#     first daemon's pid, and deletes the veth pair it made for a port
#     before that one; the first keeps running.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip python3 mkfifo
ps_require_daemon
ps_setup rbk

NS=rbk-n
ps_add_ns "$NS"
ip -n "$NS" link add rbk-a type veth peer name rbk-ap
ip -n "$NS" link add rbk-b type veth peer name rbk-bp
for i in rbk-a rbk-ap rbk-b rbk-bp; do
    ip -n "$NS" link set "$i" up
done

# Unix socket paths are limited to 107 bytes: keep them short.
RUN=$(mktemp -d /tmp/rbk.XXXXXX)
ps_record_dir "$RUN"
CTL=$RUN/ctl
PIDFILE=$RUN/pid
CONFIG=$PS_LOG_DIR/config.json
APPCTL=$PS_BUILD/utilities/pmdswitch-appctl
DPID=
N_RUN=0

# in_ns CMD...: runs CMD in the daemon's namespace.
in_ns()
{
    ip netns exec "$NS" "$@"
}

# has_link IFNAME: true if IFNAME exists in the daemon's namespace.
has_link()
{
    ip -n "$NS" link show dev "$1" >/dev/null 2>&1
}

# is_promisc IFNAME: true if IFNAME has IFF_PROMISC set.
is_promisc()
{
    ip -n "$NS" link show dev "$1" | head -n 1 | grep -q PROMISC
}

# alias_of IFNAME: the interface's alias ("" if none).
alias_of()
{
    in_ns cat "/sys/class/net/$1/ifalias"
}

# ifindex_of IFNAME
ifindex_of()
{
    in_ns cat "/sys/class/net/$1/ifindex"
}

# config PORT_JSON...: writes a one-bridge config with these ports.
config()
{
    local ports
    ports=$(IFS=,; printf '%s' "$*")
    printf '{ "bridges": [ { "name": "br0", "ports": [ %s ] } ],\n  "other_config": { "pmd-cpu-mask": "%s", "use-tpacket-v3": %s } }\n' \
        "$ports" "${PS_PMD_MASK:-0x2}" "$PS_TPACKET" >"$CONFIG"
}

P1='{ "name": "p1", "interface": "rbk-a" }'
PB='{ "name": "pb", "interface": "rbk-b" }'
V1='{ "name": "v1", "interface": "rbk-v1", "create": true, "options": { "peer": "rbk-v1p" } }'
V2='{ "name": "v2", "interface": "rbk-v2", "create": true, "options": { "peer": "rbk-v2p" } }'
GONE='{ "name": "m1", "interface": "rbk-gone" }'

# start_bg [ARG...]: starts the daemon in the namespace on $CONFIG, $CTL
# and $PIDFILE in the background (DPID), with a new log.
start_bg()
{
    N_RUN=$((N_RUN + 1))
    LOG=$PS_LOG_DIR/pmdswitchd-$N_RUN.log
    # Not through in_ns: $! must be the daemon (ip execs it).
    ip netns exec "$NS" "$PS_DAEMON" --config "$CONFIG" --unixctl="$CTL" \
        --pidfile="$PIDFILE" --log-file="$LOG" "$@" \
        >"$PS_LOG_DIR/run-$N_RUN.stderr" 2>&1 &
    DPID=$!
    ps_record_pid "$DPID"
}

pidfile_is_ours()
{
    [[ "$(cat "$PIDFILE" 2>/dev/null)" == "$DPID" ]]
}

# start [ARG...]: start_bg, then waits until the daemon is running.
start()
{
    start_bg "$@"
    ps_wait_until 10 pidfile_is_ours ||
        ps_fail "the daemon did not start: $(cat "$PS_LOG_DIR/run-$N_RUN.stderr")"
    ps_info "daemon running, pid $DPID"
}

# wait_exit: waits up to 10 s for the daemon to exit; sets RC.
wait_exit()
{
    ps_wait_until 10 ps_exited "$DPID" || ps_fail "pid $DPID did not exit"
    RC=0
    wait "$DPID" || RC=$?
}

stop()
{
    kill -TERM "$DPID"
    wait_exit
    ps_assert_eq "exit status after SIGTERM" 0 "$RC"
}

appctl()
{
    "$APPCTL" -t "$CTL" "$@"
}

# ---------------------------------------------------------------------------
ps_info "a failed config/reload leaves nothing behind"
config "$P1"
start
config "$P1" "$V1" "$PB" "$GONE"
rc=0
reply=$(appctl config/reload 2>&1) || rc=$?
ps_assert_eq "config/reload exit status" 2 "$rc"
ps_assert_eq "config/reload reply" \
    "port m1: interface rbk-gone does not exist
pmdswitch-appctl: $CTL: server returned an error" "$reply"
has_link rbk-v1 && ps_fail "the failed reload left the veth pair rbk-v1"
is_promisc rbk-b && ps_fail "the failed reload left rbk-b promiscuous"
ps_assert_eq "ports after the failed reload" p1 "$(appctl list-ports br0 | xargs)"
grep -q "config reload from .* failed, nothing changed: port m1: interface rbk-gone does not exist" \
    "$LOG" || ps_fail "no 'nothing changed' in the log"
PS_LOG_ALLOW+=('config reload from .* failed, nothing changed: port m1: interface rbk-gone does not exist')
ps_info "ok: no veth pair, no promiscuous mode left"

ps_info "a failed add-port after one that worked"
config "$P1"
appctl config/reload >/dev/null
appctl add-port br0 pb interface=rbk-b >/dev/null
is_promisc rbk-b || ps_fail "rbk-b is not promiscuous as a port"
rc=0
appctl add-port br0 m1 interface=rbk-gone >/dev/null 2>&1 || rc=$?
ps_assert_eq "failed add-port exit status" 2 "$rc"
is_promisc rbk-b || ps_fail "the failed add-port turned rbk-b's promiscuous mode off"
ps_assert_eq "ports after the failed add-port" "p1 pb" \
    "$(appctl list-ports br0 | xargs)"

ps_info "a failed reload that also reopens a port on its own veth pair"
config "$P1" "$PB" "$V1"
appctl config/reload >/dev/null
index_v1=$(ifindex_of rbk-v1)
config "$P1" "$PB" "${V1%\}}, \"tag\": 5 }" "$GONE"
rc=0
appctl config/reload >/dev/null 2>&1 || rc=$?
ps_assert_eq "config/reload exit status" 2 "$rc"
has_link rbk-v1 || ps_fail "the failed reload deleted v1's veth pair"
ps_assert_eq "ifindex of rbk-v1" "$index_v1" "$(ifindex_of rbk-v1)"
is_promisc rbk-b || ps_fail "the failed reload turned rbk-b's promiscuous mode off"
ps_assert_eq "ports after the failed reload" "p1 pb v1" \
    "$(appctl list-ports br0 | xargs)"
stop
has_link rbk-v1 && ps_fail "rbk-v1 exists after the daemon exited"
is_promisc rbk-b && ps_fail "rbk-b is promiscuous after the daemon exited"
ps_info "ok: after the exit too"

# ---------------------------------------------------------------------------
ps_info "SIGKILL, then the next run cleans up and takes over"
config "$P1" "$V1" "$V2"
start
ps_assert_eq "alias of rbk-v1" "pmdswitchd pid=$DPID ctl=$CTL" \
    "$(alias_of rbk-v1)"
index_v1=$(ifindex_of rbk-v1)
kill -KILL "$DPID"
wait_exit
KILLED=$DPID
has_link rbk-v1 && has_link rbk-v2 ||
    ps_fail "SIGKILL should leave the veth pairs behind"
config "$P1" "$V1"
start
has_link rbk-v2 &&
    ps_fail "the next run left rbk-v2, made by the killed one, not in its config"
has_link rbk-v2p && ps_fail "rbk-v2's peer rbk-v2p is still there"
grep -q "interface rbk-v2: deleted the veth pair an earlier run (pid $KILLED) made" \
    "$LOG" || ps_fail "no log line for deleting rbk-v2"
ps_assert_eq "ifindex of rbk-v1 (taken over)" "$index_v1" "$(ifindex_of rbk-v1)"
ps_assert_eq "alias of rbk-v1 after the take-over" \
    "pmdswitchd pid=$DPID ctl=$CTL" "$(alias_of rbk-v1)"
stop
has_link rbk-v1 && ps_fail "rbk-v1, taken over, stayed after the daemon stopped"
ps_info "ok: stale veth deleted, the other one taken over and deleted with its port"

# ---------------------------------------------------------------------------
ps_info "SIGTERM during start-up"
FIFO=$RUN/pcap.fifo
mkfifo "$FIFO"
config "$V1" '{ "name": "d1", "type": "dummy", "options": { "pcap": "'"$FIFO"'" } }' "$V2"
start_bg --enable-dummy
# The ports open in order: once rbk-v1 is there the daemon waits for a
# reader of the FIFO, in the middle of start-up.
ps_wait_until 10 has_link rbk-v1 || ps_fail "rbk-v1 was not created"
[[ -e $PIDFILE ]] && ps_fail "a pidfile before start-up finished"
kill -TERM "$DPID"
ps_bg fifo-reader cat "$FIFO"
wait_exit
ps_assert_eq "exit status after SIGTERM during start-up" 0 "$RC"
has_link rbk-v1 && ps_fail "SIGTERM during start-up left rbk-v1"
for f in "$CTL" "$CTL.lock" "$PIDFILE"; do
    [[ -e $f ]] && ps_fail "SIGTERM during start-up left $f"
done
grep -q "Terminated received during start-up, shutting down" "$LOG" ||
    ps_fail "no log line for the signal during start-up"
grep -q "created veth pair rbk-v2" "$LOG" &&
    ps_fail "start-up went on to the port after the signal"
ps_info "ok: clean exit, nothing left"

# ---------------------------------------------------------------------------
ps_info "a second daemon on an interface the first one uses"
config "$P1"
start
FIRST=$DPID
FIRST_LOG=$LOG
config "$V2" "$P1"
rc=0
in_ns timeout -k 2 10 "$PS_DAEMON" --config "$CONFIG" --unixctl="$RUN/ctl2" \
    --pidfile="$RUN/pid2" >"$PS_LOG_DIR/second.stderr" 2>&1 || rc=$?
sed 's/^/    /' "$PS_LOG_DIR/second.stderr" >&2
ps_assert_eq "second daemon exit status" 1 "$rc"
grep -q "port p1: interface rbk-a is in use by another pmdswitchd (pid $FIRST)" \
    "$PS_LOG_DIR/second.stderr" ||
    ps_fail "the second daemon does not name the interface and pid $FIRST"
has_link rbk-v2 && ps_fail "the second daemon left the veth pair rbk-v2"
[[ -e $RUN/pid2 || -e $RUN/ctl2 ]] && ps_fail "the second daemon left files"
ps_exited "$FIRST" && ps_fail "the first daemon died"
appctl version >/dev/null || ps_fail "the first daemon stopped answering"
LOG=$FIRST_LOG
stop
ps_info "ok: refused, the first one untouched"

ps_check_log
ps_info "PASS"
