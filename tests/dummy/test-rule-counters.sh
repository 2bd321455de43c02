#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Rule counters outlive the PMD that counted: frames from p1 hit a rule
# (output:p2) through a megaflow on the PMD that polls p1; a config reload
# with a pmd-cpu-mask that leaves that PMD's core out retires the PMD with
# its flows, and rule/dump still shows every packet and byte.  Frames sent
# afterwards, through a megaflow on the remaining PMD, add to the count.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmrulect
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b

# write_config PMD_MASK
write_config()
{
    cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0",
    "ports": [ $(dm_port p1), $(dm_port p2) ],
    "rules": [ { "priority": 100, "match": "in_port=p1",
                 "actions": "output:p2" } ] } ],
  "other_config": { "pmd-cpu-mask": "$1" } }
JSON
}

# rule FIELD: FIELD of the one rule in rule/dump br0.
rule()
{
    dm_json rule/dump br0 -- "j[0]['$1']"
}

# send N: N frames of one flow from A on p1.
send()
{
    local frames=() i
    for ((i = 0; i < $1; i++)); do
        frames+=("$(dm_udp $A $B 7)")
    done
    dm_recv p1 "${frames[@]}"
}

write_config 0x3
dm_start
send 5
dm_wait_stat p2 tx_packets 5
dm_settle
ps_assert_eq "rule packets" 5 "$(rule n_packets)"
bytes=$(rule n_bytes)
((bytes > 0)) || ps_fail "rule n_bytes is $bytes"

# Retire the PMD that polls p1 (and holds the megaflow).
core=$(dm_rxqs | tr ' ' '\n' | sed -n 's|^\([0-9]*\):p1/0$|\1|p')
case $core in
0) mask=0x2 ;;
1) mask=0x1 ;;
*) ps_fail "p1 is not polled by core 0 or 1: $(dm_rxqs)" ;;
esac
ps_info "p1 is polled by core $core; reloading with pmd-cpu-mask $mask"
write_config "$mask"
ps_appctl config/reload >/dev/null || ps_fail "config/reload failed"
cores="[p['core_id'] for p in j if p.get('core_id') is not None]"
ps_assert_eq "pmds after the reload" "[$((1 - core))]" \
    "$(dm_json dpif-netdev/pmd-stats-show -- "$cores")"
ps_assert_eq "rule packets after the PMD went" 5 "$(rule n_packets)"
ps_assert_eq "rule bytes after the PMD went" "$bytes" "$(rule n_bytes)"

send 3
dm_wait_stat p2 tx_packets 8
dm_settle
ps_assert_eq "rule packets after more frames" 8 "$(rule n_packets)"

dm_stop
ps_info "PASS"
