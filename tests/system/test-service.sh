#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: pmdswitch installed and run as a service.  "make install"
# into a temporary DESTDIR must install both programs, both man pages
# (which render without warnings), the systemd unit, the bash completion
# and the example config.  The installed pmdswitchd, on two veth ports in
# namespaces, then has to behave as a service manager expects:
#
# - --detach returns once the daemon runs; the installed pmdswitch-appctl
#   reaches it; SIGHUP reloads the config;
# - a second instance on the same socket exits 1 with one clear error and
#   leaves the first (its pidfile, socket and forwarding) untouched;
# - SIGTERM ends it within 2 s and removes its socket and pidfile;
# - after SIGKILL, a new daemon replaces the stale socket and pidfile and
#   re-attaches its ports;
# - under --monitor, "kill -SEGV" of the daemon logs a backtrace of every
#   thread, the monitor starts a new daemon with the same ports (ping works
#   again), SIGHUP to the monitor reloads the daemon's config, and SIGTERM
#   to the monitor stops both;
# - the completion offers the running daemon's commands;
# - run as the unit's ExecStart runs it (paths moved into the test's
#   directories) under a stand-in for systemd's notification socket, it
#   says READY=1 once appctl answers, pings the watchdog, and says
#   STOPPING=1 on SIGTERM.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping make python3
ps_require_daemon
ps_setup sops

A=sops-a
B=sops-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 sops-a-sw 10.77.9.1/24
ps_add_veth_to_ns "$B" eth0 sops-b-sw 10.77.9.2/24

# ---------------------------------------------------------------------------
ps_info "make install DESTDIR"
DEST=$(mktemp -d /tmp/sops-root.XXXXXX)
ps_record_dir "$DEST"
if ! make -C "$PS_BUILD" install DESTDIR="$DEST" >"$PS_LOG_DIR/install.out" \
    2>&1; then
    tail -n 30 "$PS_LOG_DIR/install.out" >&2
    ps_fail "make install failed"
fi
(cd "$DEST" && find . -type f | sort) >"$PS_LOG_DIR/installed.txt"
sed 's/^/    /' "$PS_LOG_DIR/installed.txt" >&2

# installed NAME: prints the one installed file called NAME.
installed()
{
    local path
    path=$(grep -E "/$1\$" "$PS_LOG_DIR/installed.txt" || true)
    if [[ -z "$path" || $(wc -l <<<"$path") -ne 1 ]]; then
        ps_fail "make install did not install exactly one '$1'"
    fi
    printf '%s\n' "$DEST/${path#./}"
}
DAEMON=$(installed sbin/pmdswitchd)
APPCTL=$(installed bin/pmdswitch-appctl)
UNIT=$(installed pmdswitch.service)
COMPLETION=$(installed completions/pmdswitch-appctl)
EXAMPLE=$(installed etc/pmdswitch/pmdswitch.json.example)
for page in man8/pmdswitchd.8 man8/pmdswitch-appctl.8; do
    page=$(installed "$page")
    if ! command -v groff >/dev/null 2>&1; then
        ps_info "note: groff is not installed; ${page##*/} not rendered"
        continue
    fi
    warnings=$(groff -man -ww -z "$page" 2>&1 || true)
    if command -v man >/dev/null 2>&1; then
        warnings+=$(MANWIDTH=80 man -l -Tutf8 "$page" 2>&1 >/dev/null || true)
    fi
    [[ -z "$warnings" ]] || ps_fail "${page##*/} renders with warnings:
$warnings"
    ps_info "ok: ${page##*/} renders without warnings"
done
exec_start='^ExecStart=/[^ ]*/pmdswitchd .*--config /[^ ]*/pmdswitch\.json'
grep -Eq "$exec_start" "$UNIT" ||
    ps_fail "pmdswitch.service has no absolute ExecStart"
grep -q '^ExecReload=.*config/reload' "$UNIT" ||
    ps_fail "pmdswitch.service does not reload with config/reload"
! grep -q '@[a-z]*@' "$UNIT" || ps_fail "pmdswitch.service has @vars@ left"
grep -q '^Type=notify$' "$UNIT" || ps_fail "pmdswitch.service is not Type=notify"
grep -q '^WatchdogSec=' "$UNIT" || ps_fail "pmdswitch.service has no watchdog"
! grep -Eq '^ExecStart=.*--(detach|monitor)' "$UNIT" ||
    ps_fail "a Type=notify unit must not --detach or --monitor"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$EXAMPLE" ||
    ps_fail "the example config is not valid JSON"
ps_info "ok: unit, completion and example config installed"

# ---------------------------------------------------------------------------
RUN=$(mktemp -d /tmp/sops.XXXXXX)
ps_record_dir "$RUN"
CTL=$RUN/pmdswitchd.ctl
PIDFILE=$RUN/pmdswitchd.pid
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sops-a-sw p2=sops-b-sw
N_LOG=0
LOG=

appctl()
{
    "$APPCTL" -t "$CTL" --timeout 5 "$@"
}

# start_detached [ARG...]: starts the installed daemon with --detach and a
# new log file (LOG); requires exit status 0, a pidfile naming a live
# process and an answer from the installed appctl.  Sets DPID.
start_detached()
{
    N_LOG=$((N_LOG + 1))
    LOG=$PS_LOG_DIR/pmdswitchd-$N_LOG.log
    local rc=0
    "$DAEMON" --config "$CONFIG" --detach --pidfile="$PIDFILE" \
        --unixctl "$CTL" --log-file="$LOG" "$@" \
        >"$PS_LOG_DIR/start-$N_LOG.out" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then
        cat "$PS_LOG_DIR/start-$N_LOG.out" >&2
        ps_fail "pmdswitchd --detach $* exited with status $rc"
    fi
    [[ -s "$PIDFILE" ]] || ps_fail "--detach returned before the pidfile"
    DPID=$(<"$PIDFILE")
    ps_record_pid "$DPID"
    ps_exited "$DPID" && ps_fail "the pidfile names no running process"
    ps_assert_eq "installed appctl version" \
        "pmdswitchd (pmdswitch) $("$DAEMON" --version | awk '{ print $3 }')" \
        "$(appctl version)"
}

# all_threads_exited PID: true once PID is gone, or a zombie whose other
# threads have exited too.  A killed thread-group leader turns zombie
# before the other threads have closed the process's descriptors.
all_threads_exited()
{
    local n
    ps_exited "$1" || return 1
    n=$(find "/proc/$1/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    ((n <= 1))
}

# wait_gone PID SECONDS: fails unless all of PID exits within SECONDS.
wait_gone()
{
    ps_wait_until "$2" all_threads_exited "$1" ||
        ps_fail "process $1 still runs ${2} s after the signal"
}

# expect_ping: both ways, through the switch.
expect_ping()
{
    ps_ping_all "$A" 5 10.77.9.2
    ps_ping_all "$B" 5 10.77.9.1
}

# ---------------------------------------------------------------------------
ps_info "--detach, appctl, SIGHUP"
start_detached
expect_ping
ps_assert_eq "flow-idle-timeout before reload" 10000 \
    "$(appctl other-config/get flow-idle-timeout)"
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sops-a-sw p2=sops-b-sw \
    +flow-idle-timeout=7000
kill -HUP "$DPID"
ps_wait_until 5 grep -q 'config reloaded from' "$LOG" ||
    ps_fail "no reload logged after SIGHUP"
ps_assert_eq "flow-idle-timeout after SIGHUP" 7000 \
    "$(appctl other-config/get flow-idle-timeout)"

ps_info "a second instance on the same socket"
rc=0
"$DAEMON" --config "$CONFIG" --detach --pidfile="$PIDFILE" --unixctl "$CTL" \
    >"$PS_LOG_DIR/second.out" 2>&1 || rc=$?
sed 's/^/    /' "$PS_LOG_DIR/second.out" >&2
ps_assert_eq "second instance exit status" 1 "$rc"
errors=$(grep -v '|INFO|' "$PS_LOG_DIR/second.out" || true)
ps_assert_eq "second instance error lines" 1 "$(grep -c . <<<"$errors")"
grep -q "another pmdswitchd is listening on $CTL" <<<"$errors" ||
    ps_fail "the second instance's error does not say the socket is in use"
ps_assert_eq "pidfile after the second instance" "$DPID" "$(<"$PIDFILE")"
ps_exited "$DPID" && ps_fail "the first instance died"
appctl version >/dev/null || ps_fail "the first instance stopped answering"
expect_ping

ps_info "SIGTERM"
kill -TERM "$DPID"
wait_gone "$DPID" 2
[[ ! -e "$CTL" ]] || ps_fail "the socket is left after SIGTERM"
[[ ! -e "$PIDFILE" ]] || ps_fail "the pidfile is left after SIGTERM"
grep -q 'pmdswitchd exiting' "$LOG" || ps_fail "no clean exit logged"
ps_info "ok: exited within 2 s, socket and pidfile removed"

# ---------------------------------------------------------------------------
ps_info "SIGKILL, then a new daemon over the stale socket and pidfile"
start_detached
OLD=$DPID
kill -KILL "$OLD"
wait_gone "$OLD" 2
[[ -S "$CTL" && -s "$PIDFILE" ]] ||
    ps_fail "SIGKILL should leave the socket and pidfile behind"
start_detached
[[ $DPID != "$OLD" ]] || ps_fail "the pidfile still names the killed daemon"
expect_ping
kill -TERM "$DPID"
wait_gone "$DPID" 2

# ---------------------------------------------------------------------------
ps_info "--monitor: a crash is logged with backtraces and restarted"
start_detached --monitor
MON=$(ps -o ppid= -p "$DPID" | tr -d ' ')
ps_record_pid "$MON"
[[ $(ps -o comm= -p "$MON") == pmdswitchd* ]] ||
    ps_fail "the daemon's parent ($MON) is not the monitor"
expect_ping
CRASHED=$DPID
N_THREADS=$(find "/proc/$CRASHED/task" -mindepth 1 -maxdepth 1 | wc -l)
ps_info "daemon $CRASHED has $N_THREADS threads, monitor $MON"
kill -SEGV "$CRASHED"
# pidfile_changed: true once the pidfile names a daemon other than CRASHED.
pidfile_changed()
{
    [[ -s $PIDFILE && $(<"$PIDFILE") != "$CRASHED" ]]
}
ps_wait_until 10 pidfile_changed ||
    ps_fail "no new daemon in the pidfile 10 s after SIGSEGV"
DPID=$(<"$PIDFILE")
ps_record_pid "$DPID"
ps_wait_until 5 appctl version >/dev/null ||
    ps_fail "the restarted daemon does not answer"
grep -q "caught SIGSEGV" "$LOG" || ps_fail "the crash is not logged"
n_bt=$(grep -c '): backtrace:$' "$LOG" || true)
ps_info "backtraces logged: $n_bt"
((n_bt == N_THREADS)) ||
    ps_fail "expected $N_THREADS backtraces (one per thread), got $n_bt"
grep -Eq "died from signal 11 .*restarted as pid $DPID \(restart 1\)" "$LOG" ||
    ps_fail "the restart is not logged"
ps_assert_eq "monitor of the restarted daemon" "$MON" \
    "$(ps -o ppid= -p "$DPID" | tr -d ' ')"
expect_ping
ps_assert_eq "flow-idle-timeout read again from the file" 7000 \
    "$(appctl other-config/get flow-idle-timeout)"

ps_info "SIGHUP to the monitor reaches the daemon"
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sops-a-sw p2=sops-b-sw \
    +flow-idle-timeout=8000
kill -HUP "$MON"
# idle_timeout_is VALUE: true if the daemon's flow-idle-timeout is VALUE.
idle_timeout_is()
{
    [[ $(appctl other-config/get flow-idle-timeout) == "$1" ]]
}
ps_wait_until 5 idle_timeout_is 8000 ||
    ps_fail "SIGHUP to the monitor did not reload the daemon's config"
ps_info "ok: reloaded"

ps_info "SIGTERM to the monitor"
kill -TERM "$MON"
wait_gone "$MON" 2
wait_gone "$DPID" 1
[[ ! -e "$CTL" ]] || ps_fail "the socket is left after stopping the monitor"
[[ ! -e "$PIDFILE" ]] ||
    ps_fail "the pidfile is left after stopping the monitor"

# ---------------------------------------------------------------------------
ps_info "the unit's ExecStart under a stand-in for systemd (Type=notify)"
NOTES=$PS_LOG_DIR/notify.log
: >"$NOTES"
ps_bg notify python3 "$(dirname "$0")/../dummy/notify-listener.py" \
    "$RUN/notify.sock" "$NOTES"
NOTIFY_PID=$PS_BG_PID
ps_wait_until 5 grep -q LISTENING "$NOTES" || ps_fail "no notify socket"
read -r -a cmd <<<"$(sed -n 's/^ExecStart=//p' "$UNIT" |
    sed "s|/[^ ]*/pmdswitch\.json|$CONFIG|; s|/run/pmdswitch|$RUN|g;
         s|/var/log/pmdswitch|$PS_LOG_DIR|g")"
# The unit names the program where it is installed, not under DESTDIR.
cmd[0]=$DAEMON
NOTIFY_SOCKET=$RUN/notify.sock WATCHDOG_USEC=2000000 "${cmd[@]}" \
    >"$PS_LOG_DIR/unit.out" 2>&1 &
DPID=$!
ps_record_pid "$DPID"
ps_wait_until 10 grep -q '^READY=1$' "$NOTES" ||
    ps_fail "no READY=1 from the daemon run as the unit runs it"
appctl version >/dev/null || ps_fail "READY=1 came before appctl answers"
ps_wait_until 5 grep -q '^WATCHDOG=1$' "$NOTES" ||
    ps_fail "no watchdog ping"
kill -TERM "$DPID"
wait_gone "$DPID" 2
grep -q '^STOPPING=1$' "$NOTES" || ps_fail "no STOPPING=1 on SIGTERM"
ps_kill_bg "$NOTIFY_PID"
ps_info "ok: READY=1, WATCHDOG=1, STOPPING=1"

# ---------------------------------------------------------------------------
ps_info "bash completion"
start_detached
# shellcheck disable=SC2016
words=$(PATH=$(dirname "$APPCTL"):$PATH bash -c '
    . "$1"
    COMP_WORDS=(pmdswitch-appctl -t "$2" dpctl/)
    COMP_CWORD=3
    _pmdswitch_appctl
    printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$CTL" |
    sort | tr '\n' ' ')
ps_assert_eq "completions of dpctl/" \
    "dpctl/capture dpctl/capture-drops dpctl/capture-show \
dpctl/capture-stop dpctl/del-flows dpctl/dump-flows dpctl/show " "$words"
words=$(bash -c '. "$1"; COMP_WORDS=(pmdswitch-appctl --ti); COMP_CWORD=1
    _pmdswitch_appctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION")
ps_assert_eq "completion of --ti" "--timeout" "$words"
kill -TERM "$DPID"
wait_gone "$DPID" 2

PS_LOG_ALLOW=('died from signal 11 \(Segmentation fault\), restarted as pid')
ps_check_log
ps_info "PASS"
