#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# coverage/show after traffic, on dummy ports with the test clock: the
# daemon samples its event counters every 5 s (coverage_run() on its
# tick), so right after traffic the counters have totals but no rates;
# once the clock has moved 5 s on, the slow path's counters (upcall,
# megaflow_installed) show a 5-second rate of what was sent, and 5 s of
# silence later that rate is back to zero while the 1-minute rate keeps it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmcov
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b
N=40

cat >"$DM_CONFIG" <<'JSON'
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" },
    { "name": "p2", "type": "dummy" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1", "flow-idle-timeout": 600000 } }
JSON
dm_start

# cov COUNTER FIELD: a field of COUNTER in coverage/show's JSON.
cov()
{
    dm_json coverage/show -- "j['$1']['$2']"
}

# N frames from p1 to N unknown MACs: NORMAL floods each to p2 and decides
# on the Ethernet addresses, so each is a miss, an upcall and a megaflow
# of its own.
frames=()
for ((i = 1; i <= N; i++)); do
    frames+=("$(dm_udp $A "$(printf '00:00:00:00:01:%02x' "$i")" "$i")")
done
dm_recv p1 "${frames[@]}"
dm_wait_stat p2 tx_packets "$N"

ps_assert_eq "upcall total" "$N" "$(cov upcall total)"
ps_assert_eq "megaflow_installed total" "$N" "$(cov megaflow_installed total)"
ps_assert_eq "upcall 5 s rate before a sample" 0.0 "$(cov upcall rate_5s)"

# One sample interval later: N events in 5 s.
ps_appctl time/warp 5000 >/dev/null
sampled()
{
    [[ "$(cov upcall rate_5s)" != 0.0 ]]
}
dm_wait "coverage_run() to take a sample" sampled
want=$(python3 -c "print($N / 5.0)")
ps_assert_eq "upcall 5 s rate" "$want" "$(cov upcall rate_5s)"
ps_assert_eq "megaflow_installed 5 s rate" "$want" \
    "$(cov megaflow_installed rate_5s)"
text=$(ps_appctl coverage/show)
line=$(grep '^upcall ' <<<"$text") || ps_fail "no upcall line in:
$text"
[[ $line =~ ^upcall\ +([0-9.]+)/sec\ +([0-9.]+)/sec.*total:\ ([0-9]+)$ ]] ||
    ps_fail "coverage/show line not understood: $line"
ps_assert_eq "text 5 s rate" "$(printf '%.1f' "$want")" "${BASH_REMATCH[1]}"
ps_assert_eq "text total" "$N" "${BASH_REMATCH[3]}"

# A quiet interval: the 5 s rate falls back to zero, the minute keeps N.
ps_appctl time/warp 5000 >/dev/null
quiet()
{
    [[ "$(cov upcall rate_5s)" == 0.0 ]]
}
dm_wait "a quiet sample" quiet
ps_assert_eq "upcall 1 min rate" "$(python3 -c "print($N / 60.0)")" \
    "$(cov upcall rate_1m)"

dm_stop
