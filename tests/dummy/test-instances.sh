#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# The daemon's files, no root: relative --pidfile, --unixctl and
# --log-file paths stay where they were given under --detach (the daemon
# runs in "/") and under --monitor (a restarted daemon starts there), and
# are removed on exit; the pidfile is never written through a symbolic
# link (one planted at the old temporary name, or at the pidfile itself)
# and a second daemon with the same pidfile but another socket refuses,
# naming the first one's pid; a stale socket is not touched while another
# process holds its lock, and of two daemons started at once over a stale
# socket exactly one runs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dminst
ps_require_cmds flock
# The daemon under --monitor crashes on purpose.
PS_LOG_ALLOW=('died from signal 11 \(Segmentation fault\), restarted as pid')

# Unix socket paths are limited to 107 bytes: keep them short.
W=$(mktemp -d /tmp/dminst.XXXXXX)
ps_record_dir "$W"
dm_write_config 0x1 "$(dm_port d1)"
APPCTL=$PS_BUILD/utilities/pmdswitch-appctl

# gone PATH...: true if none of the PATHs exists.
gone()
{
    local f
    for f in "$@"; do
        [[ -e $f || -L $f ]] && return 1
    done
    return 0
}

# live_pid_in FILE [NOT]: true if FILE names a live process other than
# NOT; sets PID.
live_pid_in()
{
    PID=$(tr -d '[:space:]' <"$1" 2>/dev/null) || return 1
    [[ -n $PID && $PID != "${2:-}" ]] && ! ps_exited "$PID"
}

# detached NAME ARG...: starts a detached daemon in $W with the dummy
# config and ARGs (relative paths are relative to $W); it must report
# that it runs.
detached()
{
    local name=$1 rc=0
    shift
    (cd "$W" && "$PS_DAEMON" --config "$DM_CONFIG" --enable-dummy --detach \
        "$@") >"$PS_LOG_DIR/$name.out" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then
        cat "$PS_LOG_DIR/$name.out" >&2
        ps_fail "$name: pmdswitchd --detach exited with status $rc"
    fi
}

# ---------------------------------------------------------------------------
ps_info "relative paths under --detach"
detached rel --pidfile=d.pid --unixctl=d.ctl --log-file=pmdswitchd-1.log
live_pid_in "$W/d.pid" || ps_fail "no live daemon in $W/d.pid"
DPID=$PID
ps_record_pid "$DPID"
"$APPCTL" -t "$W/d.ctl" version >/dev/null ||
    ps_fail "no answer on the relative socket $W/d.ctl"
kill -TERM "$DPID"
ps_wait_until 5 ps_exited "$DPID" || ps_fail "the daemon did not stop"
ps_wait_until 5 gone "$W/d.pid" "$W/d.ctl" "$W/d.ctl.lock" ||
    ps_fail "a detached daemon left its files: $(ls "$W")"
ps_info "ok: files in $W, removed on exit"

# ---------------------------------------------------------------------------
ps_info "relative paths under --monitor, after a restart"
detached mon --monitor --pidfile=m.pid --unixctl=m.ctl \
    --log-file=pmdswitchd-2.log
live_pid_in "$W/m.pid" || ps_fail "no live daemon in $W/m.pid"
CRASHED=$PID
MON=$(ps__parent_pid "$CRASHED")
ps_record_pid "$MON"
ps_record_pid "$CRASHED"
kill -SEGV "$CRASHED"
ps_wait_until 10 live_pid_in "$W/m.pid" "$CRASHED" ||
    ps_fail "the restarted daemon wrote no pidfile in $W"
ps_record_pid "$PID"
ps_wait_until 5 "$APPCTL" -t "$W/m.ctl" version >/dev/null ||
    ps_fail "the restarted daemon does not answer on $W/m.ctl"
kill -TERM "$MON"
ps_wait_until 5 ps_exited "$MON" || ps_fail "the monitor did not stop"
ps_wait_until 5 gone "$W/m.pid" "$W/m.ctl" ||
    ps_fail "the restarted daemon left its files: $(ls "$W")"
ps_info "ok: the restarted daemon used $W"

# ---------------------------------------------------------------------------
ps_info "the pidfile and symbolic links"
echo precious >"$W/victim"
echo precious >"$W/victim2"
ln -s "$W/victim" "$W/s.pid.tmp"
ln -s "$W/victim2" "$W/s.pid"
detached sym --pidfile="$W/s.pid" --unixctl="$W/s.ctl" \
    --log-file="$W/pmdswitchd-3.log"
ps_assert_eq "file behind the link at s.pid.tmp" precious "$(<"$W/victim")"
ps_assert_eq "file behind the link that was at s.pid" precious \
    "$(<"$W/victim2")"
[[ -f $W/s.pid && ! -L $W/s.pid ]] || ps_fail "s.pid is not a plain file"
live_pid_in "$W/s.pid" || ps_fail "no live daemon in $W/s.pid"
FIRST=$PID
ps_record_pid "$FIRST"
ps_assert_eq "mode of the pidfile" 644 "$(stat -c %a "$W/s.pid")"

ps_info "a second daemon on the same pidfile, another socket"
rc=0
timeout -k 2 10 "$PS_DAEMON" --config "$DM_CONFIG" --enable-dummy \
    --pidfile="$W/s.pid" --unixctl="$W/s2.ctl" \
    >"$PS_LOG_DIR/second.out" 2>&1 || rc=$?
ps_assert_eq "second daemon's exit status" 1 "$rc"
grep -q "pidfile $W/s.pid is held by another pmdswitchd (pid $FIRST)" \
    "$PS_LOG_DIR/second.out" ||
    ps_fail "the second daemon's error: $(cat "$PS_LOG_DIR/second.out")"
ps_assert_eq "pidfile after the second daemon" "$FIRST" "$(<"$W/s.pid")"
gone "$W/s2.ctl" || ps_fail "the second daemon left its socket"
kill -TERM "$FIRST"
ps_wait_until 5 ps_exited "$FIRST" || ps_fail "the daemon did not stop"
ps_wait_until 5 gone "$W/s.pid" "$W/s.ctl" || ps_fail "files left: $(ls "$W")"

# ---------------------------------------------------------------------------
ps_info "a stale socket whose lock another process holds"
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.close()' "$W/k.ctl"
ps_bg lock-holder flock "$W/k.ctl.lock" sleep 60
HOLDER=$PS_BG_PID
lock_held()
{
    ! flock -n "$W/k.ctl.lock" true
}
ps_wait_until 5 lock_held || ps_fail "flock did not take $W/k.ctl.lock"
rc=0
timeout -k 2 10 "$PS_DAEMON" --config "$DM_CONFIG" --enable-dummy \
    --unixctl="$W/k.ctl" >"$PS_LOG_DIR/locked.out" 2>&1 || rc=$?
ps_assert_eq "exit status while the lock is held" 1 "$rc"
grep -q "another pmdswitchd is listening on $W/k.ctl" \
    "$PS_LOG_DIR/locked.out" ||
    ps_fail "unexpected error: $(cat "$PS_LOG_DIR/locked.out")"
[[ -S $W/k.ctl ]] || ps_fail "the stale socket was removed under another's lock"
ps_kill_bg "$HOLDER"
rm -f -- "$W/k.ctl.lock"

ps_info "two daemons at once over a stale socket"
for round in 1 2 3; do
    gone "$W/k.ctl" && python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.close()' "$W/k.ctl"
    pids=()
    for i in 1 2; do
        "$PS_DAEMON" --config "$DM_CONFIG" --enable-dummy \
            --unixctl="$W/k.ctl" --pidfile="$W/k$i.pid" \
            --log-file="$W/pmdswitchd-k$round$i.log" \
            >"$PS_LOG_DIR/race-$round-$i.out" 2>&1 &
        pids+=($!)
        ps_record_pid "$!"
    done
    # settled: one has exited, the other has written its pidfile.
    settled()
    {
        local n_exited=0 n_ready=0 i
        for i in 1 2; do
            if ps_exited "${pids[i - 1]}"; then
                n_exited=$((n_exited + 1))
            elif [[ -s $W/k$i.pid ]]; then
                n_ready=$((n_ready + 1))
            fi
        done
        ((n_exited + n_ready == 2 && n_exited <= 1))
    }
    ps_wait_until 10 settled || ps_fail "round $round: did not settle"
    n_running=0
    for i in 1 2; do
        if ps_exited "${pids[i - 1]}"; then
            rc=0
            wait "${pids[i - 1]}" || rc=$?
            ps_assert_eq "round $round: status of the one refused" 1 "$rc"
            grep -q "another pmdswitchd is listening on $W/k.ctl" \
                "$PS_LOG_DIR/race-$round-$i.out" ||
                ps_fail "round $round: $(cat "$PS_LOG_DIR/race-$round-$i.out")"
        else
            n_running=$((n_running + 1))
            live=${pids[i - 1]}
        fi
    done
    ps_assert_eq "round $round: daemons running" 1 "$n_running"
    "$APPCTL" -t "$W/k.ctl" version >/dev/null ||
        ps_fail "round $round: nobody answers on $W/k.ctl"
    kill -TERM "$live"
    ps_wait_until 5 ps_exited "$live" || ps_fail "round $round: no exit"
    wait "$live" || ps_fail "round $round: the daemon failed on SIGTERM"
    gone "$W/k.ctl" "$W/k.ctl.lock" "$W/k1.pid" "$W/k2.pid" ||
        ps_fail "round $round: files left: $(ls "$W")"
done
ps_info "ok: one daemon per socket"

cp -- "$W"/pmdswitchd-*.log "$PS_LOG_DIR"/
ps_check_log
ps_info "PASS"
