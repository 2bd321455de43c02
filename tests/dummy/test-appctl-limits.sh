#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Hostile appctl clients against the real daemon (appctl-hostile.py):
# more connections than --appctl-max-clients, a silent client and one that
# sends half a request and stalls, a client that floods requests and never
# reads the replies, an oversize request, and a daemon left without file
# descriptors.  In every case a well-behaved pmdswitch-appctl is still
# served, and the daemon counts what it refused in coverage/show.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmlim
HOSTILE="$DM_LIB_DIR/appctl-hostile.py"
MAX_CLIENTS=4

cat >"$DM_CONFIG" <<'JSON'
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1" } }
JSON
dm_start --appctl-max-clients=$MAX_CLIENTS --appctl-idle-timeout=1
APPCTL=("$PS_BUILD/utilities/pmdswitch-appctl" -t "$PS_DAEMON_CTL"
        --timeout 20 version)

# cov COUNTER: the total of a coverage counter (0 if it never counted).
cov()
{
    dm_json coverage/show -- "j.get('$1', {}).get('total', 0)"
}

# field OUTPUT KEY: the value of "KEY=value" in OUTPUT.
field()
{
    sed -n "s/^$2=//p" <<<"$1"
}

ps_info "more clients than the cap"
out=$(python3 "$HOSTILE" over-cap "$PS_DAEMON_CTL" $((MAX_CLIENTS * 2)) \
    "${APPCTL[@]}")
ps_assert_eq "appctl status with the slots taken" 0 "$(field "$out" appctl)"
(($(cov unixctl_client_deferred) >= 1)) ||
    ps_fail "no client waited at the cap"
(($(cov unixctl_client_evicted) >= 1)) ||
    ps_fail "no idle client was closed to make room"
# Every silent client goes in the end, by eviction or idle timeout.
ps_assert_eq "silent clients closed" $((MAX_CLIENTS * 2)) \
    "$(field "$out" closed)"

ps_info "a silent client and a stalled half request"
before=$(cov unixctl_idle_timeout)
out=$(python3 "$HOSTILE" stall "$PS_DAEMON_CTL" "${APPCTL[@]}")
ps_assert_eq "appctl status beside stalled clients" 0 "$(field "$out" appctl)"
ps_assert_eq "stalled clients closed" 2 "$(field "$out" closed)"
(($(field "$out" elapsed_ms) >= 1000)) ||
    ps_fail "stalled clients closed before the 1 s timeout"
ps_assert_eq "idle timeouts counted" 2 $(($(cov unixctl_idle_timeout) - before))

ps_info "a client that floods requests and never reads"
out=$(python3 "$HOSTILE" flood "$PS_DAEMON_CTL" "${APPCTL[@]}")
ps_assert_eq "flooding client closed" 1 "$(field "$out" closed)"
ps_assert_eq "appctl status after the flood" 0 "$(field "$out" appctl)"
ps_assert_eq "reply overflows counted" 1 "$(cov unixctl_reply_overflow)"

ps_info "an oversize request"
out=$(python3 "$HOSTILE" oversize "$PS_DAEMON_CTL" "${APPCTL[@]}")
ps_assert_eq "oversize reply" "request exceeds 1048576 bytes" \
    "$(field "$out" reply)"
ps_assert_eq "appctl status after the oversize request" 0 \
    "$(field "$out" appctl)"
ps_assert_eq "oversize requests counted" 1 "$(cov unixctl_request_too_big)"

ps_info "no descriptors left"
PS_LOG_ALLOW+=('\|unixctl\|WARN\|cannot accept an appctl client \(Too many open files\)')
out=$(python3 "$HOSTILE" no-fds "$PS_DAEMON_CTL" "$PS_DAEMON_PID" \
    "${APPCTL[@]}")
ps_assert_eq "appctl waited while the daemon had no descriptors" 1 \
    "$(field "$out" waited)"
ps_assert_eq "appctl status once descriptors are back" 0 \
    "$(field "$out" appctl)"
failed=$(cov unixctl_accept_failed)
# A pause of 100 ms after each failure: about 10 in that second, not a
# spinning accept() loop.
((failed >= 1 && failed <= 20)) ||
    ps_fail "accept failures counted: $failed (want 1 to 20)"
(($(field "$out" control_cpu_ms) < 500)) ||
    ps_fail "control thread used $(field "$out" control_cpu_ms) ms of CPU in 1 s without descriptors"

ps_appctl version >/dev/null || ps_fail "version no longer answers"
dm_stop
ps_info "PASS"
