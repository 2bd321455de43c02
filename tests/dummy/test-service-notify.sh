#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# The daemon as a systemd Type=notify service, without systemd: a socket
# of the test's own stands in for NOTIFY_SOCKET.  The daemon says READY=1
# (with a STATUS line) once it runs, feeds the watchdog (WATCHDOG_USEC) at
# half its interval, stops feeding it while a PMD is stuck (made so by the
# test-only pmd/test-stall), logging which one, feeds it again once the
# PMD goes round its loop again, and says STOPPING=1 on the way out.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmnotify
PS_LOG_ALLOW+=('stalls for [0-9]+ ms, as asked by pmd/test-stall'
    'pmd thread on core 0 has not gone round its loop for [0-9]+ ms: withholding the systemd watchdog'
    'pmd thread on core 0 goes round its loop again')

SOCK=$PS_LOG_DIR/notify.sock
NOTES=$PS_LOG_DIR/notify.log
: >"$NOTES"
ps_bg notify python3 "$(dirname "$0")/notify-listener.py" "$SOCK" "$NOTES"
dm_wait "notify socket listening" grep -q LISTENING "$NOTES"

cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [ $(dm_port p1), $(dm_port p2) ] } ],
  "other_config": { "pmd-cpu-mask": "0x1" } }
JSON

pings() { grep -c '^WATCHDOG=1$' "$NOTES" || true; }
pings_above() { (($(pings) > $1)); }

# The watchdog at 1 s: pings every 0.5 s, a PMD stuck 0.5 s withholds it.
NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=1000000 dm_start
dm_wait "READY=1" grep -q '^READY=1$' "$NOTES"
ps_assert_eq "status line" 1 \
    "$(grep -c '^STATUS=forwarding: 2 port(s), 1 pmd thread(s)$' "$NOTES")"
DM_TIMEOUT=10 dm_wait "three watchdog pings" pings_above 2

ps_appctl pmd/test-stall 0 6000 >/dev/null
# The checks every 0.5 s see the PMD stuck from the second or third one
# after the stall began; from then on no ping comes while it lasts.
sleep 2
before=$(pings)
sleep 2
ps_assert_eq "watchdog pings while the PMD is stuck" "$before" "$(pings)"
DM_TIMEOUT=10 dm_wait "the stuck PMD logged" grep -q \
    'withholding the systemd watchdog' "$PS_DAEMON_LOG"
DM_TIMEOUT=10 dm_wait "pings again after the stall" pings_above "$before"
grep -q 'goes round its loop again' "$PS_DAEMON_LOG" \
    || ps_fail "the PMD's recovery was not logged"

# A bad request changes nothing.
if ps_appctl pmd/test-stall 5 100 >/dev/null 2>&1; then
    ps_fail "pmd/test-stall on a core without a PMD succeeded"
fi

dm_stop
dm_wait "STOPPING=1" grep -q '^STOPPING=1$' "$NOTES"
ps_info "ok: READY, watchdog pings withheld while a PMD was stuck, STOPPING"
