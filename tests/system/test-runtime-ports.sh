#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: bridges and ports changed at run time with pmdswitch-appctl
# (add-port, del-port, set-port, add-br, del-br, list-ports, port-to-br).
#
#   - Churn under traffic: a sequence-numbered UDP stream runs from A to B
#     (p1 -> p2 on br0) while 20 ports are added one by one, each with a
#     veth pair the daemon makes ("create=true"), one of them gets a VLAN
#     tag and loses it again (set-port: its veth pair must stay, the port
#     up), the 20 are deleted one by one (their veth pairs go with them)
#     and a bridge br1 is added and deleted.  The stream
#     (seq-stream.py) must lose and duplicate no datagram; reordered ones
#     are reported.
#   - Idempotence: --may-exist and --if-exists on what is already so exit
#     0, change nothing and do not rewrite the config file (same inode,
#     mtime and contents).
#   - Errors (unknown bridge, tag=5000, unknown key, duplicate port,
#     missing arguments, ...) each give their message, exit 2 and leave
#     list-ports, the interfaces and the config file as they were.
#   - Persistence: a port added at run time is in the config file, is
#     there again after a restart with that file, and forwards.  Under
#     --monitor, a daemon that crashes (SIGSEGV: the monitor restarts on
#     crash signals, not on SIGKILL) is restarted with the ports added at
#     run time; a veth pair the crashed daemon made for "create": true
#     still goes with its port.
#   - A hand edit of the config file makes the next runtime change refuse
#     (so the edit is not overwritten) and change nothing; config/reload
#     takes the edit, and runtime changes work again.
#   - A read-only config file (mode 0444) makes a runtime change fail with
#     "cannot save the change: FILE is read-only (mode 0444)" and apply
#     nothing (no port, no veth).
#
# A check that fails in the middle of a sequence is reported at the end
# (ps_late_fail), so that the rest still runs and says what else works.
#
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3 jq
ps_require_daemon
ps_setup srtp

A=srtp-a
B=srtp-b
C=srtp-c
D=srtp-d
for ns in "$A" "$B" "$C" "$D"; do
    ps_add_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 srtp-a-sw 10.79.41.1/24
ps_add_veth_to_ns "$B" eth0 srtp-b-sw 10.79.41.2/24
ps_add_veth_to_ns "$C" eth0 srtp-c-sw 10.79.41.3/24
ps_add_veth_to_ns "$D" eth0 srtp-d-sw 10.79.41.4/24

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=srtp-a-sw p2=srtp-b-sw
CONFIG=$(realpath "$CONFIG")
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.41.2

# changes CMD...: runs appctl CMD, which must succeed, and prints the
# "changes" of its JSON reply.
changes()
{
    local out
    out=$(ps_appctl -f json "$@") || ps_fail "appctl $* failed"
    jq -r .changes <<<"$out"
}

# expect_changes WANT CMD...: appctl CMD must succeed with changes WANT.
expect_changes()
{
    local want=$1
    shift
    ps_assert_eq "appctl $*" "$want" "$(changes "$@")"
}

# file_state: what must not change when the file is not rewritten: inode,
# mtime (ns), mode and contents.
file_state()
{
    echo "$(stat -c '%i %y %a' "$CONFIG") $(sha256sum <"$CONFIG")"
}

# ports_of BRIDGE: the port list (name and all settings) of BRIDGE.
ports_of()
{
    ps_appctl -f json list-ports "$1" | jq -c .
}

# in_file PORT JQ: prints jq expression JQ over PORT's object in the file.
in_file()
{
    jq -c --arg p "$1" "[.bridges[].ports[] | select(.name == \$p)][0] | $2" \
        "$CONFIG"
}

# port_is_up PORT: true if dpctl/show says PORT is up.
port_is_up()
{
    [[ $(ps_appctl -f json dpctl/show |
        jq -r --arg p "$1" '.ports[] | select(.name == $p) | .state') == up ]]
}

# link_exists IFNAME: true if IFNAME exists in the root namespace.
link_exists()
{
    ip link show dev "$1" >/dev/null 2>&1
}

# ---------------------------------------------------------------------------
ps_info "churn under a steady stream: 20 ports added, changed, deleted"
ps_start_seq_stream "$A" "$B" 10.79.41.2 2000
sleep 0.5
N=20
t0=$(date +%s%N)
for ((i = 1; i <= N; i++)); do
    ps_record_link "srtp-r$i"
    expect_changes "ports added: rp$i" \
        add-port br0 "rp$i" "interface=srtp-r$i" create=true
    link_exists "srtp-r$i" || ps_fail "add-port rp$i made no veth srtp-r$i"
    link_exists "srtp-r$i-peer" || ps_fail "add-port rp$i made no peer"
done
t1=$(date +%s%N)
ps_info "20 add-port took $(((t1 - t0) / 1000000)) ms"
ps_assert_eq "ports of br0 after the adds" $((N + 2)) \
    "$(ps_appctl -f json list-ports br0 | jq '.ports | length')"
ps_assert_eq "port-to-br rp7" br0 "$(ps_appctl port-to-br rp7)"
ps_assert_eq "rp7 in the config file" '"srtp-r7"' "$(in_file rp7 .interface)"
ps_appctl dpctl/show | grep -q ": rp20 (srtp-r20, " ||
    ps_fail "dpctl/show does not show rp20"

ifindex_before=$(cat /sys/class/net/srtp-r5/ifindex)
changed=$(changes set-port rp5 tag=10)
[[ $changed == *rp5* ]] || ps_fail "set-port rp5 tag=10: changes '$changed'"
# A setting changed on a port whose veth the daemon made must leave that
# veth (a container may hold its peer) and the port up.
if ! link_exists srtp-r5; then
    ps_late_fail "set-port rp5 tag=10 deleted rp5's veth pair srtp-r5 (made" \
        "by add-port create=true), leaving the port on a missing interface"
elif [[ $(cat /sys/class/net/srtp-r5/ifindex) != "$ifindex_before" ]]; then
    ps_late_fail "set-port rp5 tag=10 replaced rp5's veth pair srtp-r5"
fi
if ! ps_wait_until 2 port_is_up rp5; then
    ps_late_fail "rp5 is not up after set-port rp5 tag=10:" \
        "$(ps_appctl dpctl/show | grep ': rp5 ')"
fi
ps_assert_eq "rp5's tag in list-ports" 10 \
    "$(ps_appctl -f json list-ports br0 | jq '.ports[] | select(.name == "rp5") | .tag')"
ps_assert_eq "rp5's tag in the file" 10 "$(in_file rp5 .tag)"
changes set-port rp5 tag= >/dev/null
ps_assert_eq "rp5's tag after tag=" null "$(in_file rp5 .tag)"

t0=$(date +%s%N)
for ((i = 1; i <= N; i++)); do
    expect_changes "ports removed: rp$i" del-port br0 "rp$i"
    link_exists "srtp-r$i" && ps_fail "del-port rp$i left veth srtp-r$i"
done
t1=$(date +%s%N)
ps_info "20 del-port took $(((t1 - t0) / 1000000)) ms"
changed=$(changes add-br br1)
[[ $changed == *br1* ]] || ps_fail "add-br br1: changes '$changed'"
ps_assert_eq "list-br with br1" "br0 br1" "$(ps_appctl list-br | xargs)"
changed=$(changes del-br br1)
[[ $changed == *br1* ]] || ps_fail "del-br br1: changes '$changed'"
ps_assert_eq "list-br without br1" br0 "$(ps_appctl list-br | xargs)"
sleep 0.5
ps_end_seq_stream "datagrams A -> B during the churn" 2000
ps_ping_all "$A" 3 10.79.41.2

# ---------------------------------------------------------------------------
ps_info "--may-exist and --if-exists: nothing changes, the file stays"
before_file=$(file_state)
before_ports=$(ports_of br0)
# The mtime must be able to move if the file were rewritten.
sleep 0.02
for cmd in "add-port --may-exist br0 p2 interface=srtp-b-sw" \
    "add-br --may-exist br0" "del-br --if-exists br9" \
    "del-port --if-exists rp1" "del-port --if-exists br0 rp1"; do
    # shellcheck disable=SC2086
    expect_changes nothing $cmd
    ps_assert_eq "config file after $cmd" "$before_file" "$(file_state)"
    ps_assert_eq "ports of br0 after $cmd" "$before_ports" "$(ports_of br0)"
done

# ---------------------------------------------------------------------------
ps_info "errors: a message, status 2, nothing changed"
# expect_error WANT CMD...: appctl CMD must fail with status 2 and an error
# containing WANT, and leave the ports, the file and srtp-q1 as they were.
expect_error()
{
    local want=$1 rc=0
    shift
    ps_appctl "$@" >/dev/null 2>"$PS_LOG_DIR/err" || rc=$?
    ps_assert_eq "status of appctl $*" 2 "$rc"
    grep -qF -- "$want" "$PS_LOG_DIR/err" ||
        ps_fail "appctl $*: error \"$(cat "$PS_LOG_DIR/err")\" lacks \"$want\""
    ps_info "ok: appctl $*: $(head -n 1 "$PS_LOG_DIR/err")"
    ps_assert_eq "config file after appctl $*" "$before_file" "$(file_state)"
    ps_assert_eq "ports of br0 after appctl $*" "$before_ports" \
        "$(ports_of br0)"
    link_exists srtp-q1 && ps_fail "appctl $* made srtp-q1"
    return 0
}
ps_record_link srtp-q1
expect_error "add-port: no bridge named br9" \
    add-port br9 q1 interface=srtp-q1 create=true
expect_error 'add-port: "tag" must be an integer from 1 to 4094, got 5000' \
    add-port br0 q1 interface=srtp-q1 create=true tag=5000
expect_error 'set-port: "tag" must be an integer from 1 to 4094, got 5000' \
    set-port p1 tag=5000
expect_error 'add-port: tag=ten: "tag" must be an integer' \
    add-port br0 q1 interface=srtp-q1 create=true tag=ten
expect_error 'add-port: create=yes: "create" must be true or false' \
    add-port br0 q1 interface=srtp-q1 create=yes
expect_error 'add-port: unknown key "colour" in port "q1"' \
    add-port br0 q1 interface=srtp-q1 create=true colour=blue
expect_error 'set-port: unknown key "colour" in port "p1"' \
    set-port p1 colour=blue
expect_error "add-port: port p2 already exists on bridge br0" \
    add-port br0 p2 interface=srtp-b-sw
expect_error "add-port: port p2 already exists on bridge br0 with other settings" \
    add-port --may-exist br0 p2 interface=srtp-q1
expect_error 'is already used by port' \
    add-port br0 q1 interface=srtp-b-sw
expect_error '"add-port" command requires at least 2 arguments' \
    add-port br0
expect_error '"add-port" command requires at least 2 arguments' add-port
expect_error "add-port: missing argument" add-port --may-exist br0
expect_error "add-port: unknown option --force" add-port --force br0 q1
expect_error '"set-port" command requires at least 2 arguments' set-port p1
expect_error 'set-port: "tag": expected KEY=VALUE' set-port p1 tag
expect_error "set-port: name=q9: the port name is not a setting" \
    set-port p1 name=q9
expect_error "set-port: no port named q1" set-port q1 tag=10
expect_error '"del-port" command requires at least 1 argument' del-port
expect_error "del-port: no port named q1" del-port q1
expect_error "del-port: bridge br0 has no port named q1" del-port br0 q1
expect_error "del-port: no bridge named br9" del-port br9 p1
expect_error "add-br: bridge br0 already exists" add-br br0
expect_error "del-br: no bridge named br9" del-br br9
# These two answer without the command's name in front.
expect_error "no bridge named br9" list-ports br9
expect_error "no port named q1" port-to-br q1
ps_ping_all "$A" 3 10.79.41.2

# ---------------------------------------------------------------------------
ps_info "persistence: a port added at run time survives a restart"
expect_changes "ports added: p3" add-port br0 p3 interface=srtp-c-sw
ps_assert_eq "p3 in the config file" '"srtp-c-sw"' "$(in_file p3 .interface)"
ps_ping_all "$A" 3 10.79.41.3
ps_stop_daemon
ps_start_daemon "$CONFIG"
ps_assert_eq "ports of br0 after the restart" "p1 p2 p3" \
    "$(ps_appctl list-ports br0 | xargs)"
ps_ping_all "$A" 3 10.79.41.3
ps_stop_daemon

ps_info "--monitor: a crashed daemon comes back with the runtime-added port"
ps_start_daemon "$CONFIG" --monitor
PS_LOG_ALLOW+=('died from signal 11 \(Segmentation fault\), restarted as pid')
expect_changes "ports added: p4" add-port br0 p4 interface=srtp-d-sw
ps_record_link srtp-m1
expect_changes "ports added: m1" add-port br0 m1 interface=srtp-m1 create=true
ps_ping_all "$A" 3 10.79.41.4
CRASHED=$PS_DAEMON_CHILD_PID
kill -SEGV "$CRASHED"
# new_daemon: true once the pidfile names a live daemon other than CRASHED.
new_daemon()
{
    local pid
    pid=$(tr -d '[:space:]' <"$PS_DAEMON_PIDFILE" 2>/dev/null) || return 1
    [[ -n $pid && $pid != "$CRASHED" ]] && ! ps_exited "$pid"
}
ps_wait_until 10 new_daemon ||
    ps_fail "no new daemon in the pidfile 10 s after SIGSEGV"
RESTARTED=$(ps_daemon_child_pid)
ps_record_pid "$RESTARTED"
ps_info "daemon $CRASHED crashed, monitor restarted it as $RESTARTED"
ps_wait_until 5 ps_appctl version >/dev/null ||
    ps_fail "the restarted daemon does not answer"
ps_assert_eq "ports of br0 after the crash" "m1 p1 p2 p3 p4" \
    "$(ps_appctl list-ports br0 | xargs)"
ps_ping_all "$A" 3 10.79.41.4
ps_ping_all "$A" 3 10.79.41.2
# The restarted daemon took over the veth pair that the crashed one made
# for m1; the port's "create": true still says it is the switch's, so it
# goes with the port.
expect_changes "ports removed: m1" del-port m1
if link_exists srtp-m1; then
    ps_late_fail "del-port m1 after the restart left its veth pair srtp-m1" \
        "(made for \"create\": true by the daemon before the crash)"
fi

# ---------------------------------------------------------------------------
ps_info "a hand edit: runtime changes refuse until config/reload"
ps_record_link srtp-h1
ps_record_link srtp-q2
jq '(.bridges[] | select(.name == "br0") | .ports) +=
    [{"name": "h1", "interface": "srtp-h1", "create": true}]' \
    "$CONFIG" >"$CONFIG.new"
cat "$CONFIG.new" >"$CONFIG"
rm -f -- "$CONFIG.new"
before_file=$(file_state)
before_ports=$(ports_of br0)
expect_error "$CONFIG was changed since pmdswitchd last read or wrote it, and this change would overwrite that edit; run config/reload" \
    add-port br0 q2 interface=srtp-q2 create=true
link_exists srtp-q2 && ps_fail "the refused add-port made srtp-q2"
link_exists srtp-h1 && ps_fail "the hand edit was applied without a reload"
expect_error "was changed since pmdswitchd last read or wrote it" \
    del-port p3
expect_changes "ports added: h1" config/reload
link_exists srtp-h1 || ps_fail "config/reload did not make h1's veth"
expect_changes "ports added: q2" add-port br0 q2 interface=srtp-q2 create=true
link_exists srtp-q2 || ps_fail "add-port q2 made no veth after the reload"
ps_assert_eq "h1 in the file after add-port q2" true "$(in_file h1 .create)"
ps_assert_eq "ports of br0" "h1 p1 p2 p3 p4 q2" \
    "$(ps_appctl list-ports br0 | xargs)"

# ---------------------------------------------------------------------------
ps_info "a read-only config file: the change fails and applies nothing"
ps_record_link srtp-q3
chmod 0444 "$CONFIG"
before_file=$(file_state)
before_ports=$(ports_of br0)
expect_error "cannot save the change: $CONFIG is read-only (mode 0444)" \
    add-port br0 q3 interface=srtp-q3 create=true
link_exists srtp-q3 && ps_fail "the failed add-port made srtp-q3"
expect_error "cannot save the change: $CONFIG is read-only (mode 0444)" \
    del-port q2
link_exists srtp-q2 || ps_fail "the failed del-port deleted srtp-q2"
chmod 0644 "$CONFIG"
expect_changes "ports added: q3" add-port br0 q3 interface=srtp-q3 create=true
ps_assert_eq "mode of the rewritten file" 644 "$(stat -c %a "$CONFIG")"
expect_changes "ports removed: q2" del-port q2
expect_changes "ports removed: q3" del-port br0 q3
link_exists srtp-q2 && ps_fail "del-port q2 left its veth"
link_exists srtp-q3 && ps_fail "del-port q3 left its veth"
ps_ping_all "$A" 3 10.79.41.3

ps_stop_daemon
ps_late_fails_check
ps_check_log
ps_info "PASS"
