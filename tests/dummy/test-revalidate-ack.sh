#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# An acknowledged change holds at once, although the PMDs re-check their
# flows a slice at a time.  With 1,000 megaflows to B cached, each from
# its own source:
#   - once rule/add (drop B's traffic) has replied, the very next frame
#     from a cached source is dropped, not forwarded by its old flow;
#   - once rule/del has replied, it is forwarded to B again;
#   - once fdb/flush has replied, it is flooded (B is unknown again);
#   - once del-port of p3 has replied, the flood leaves p3 out (no frame
#     is sent to the freed port number);
#   - once config/reload of a file with a drop rule for B has replied,
#     the next frame is dropped.
# No polling between the reply and the frame: the reply is the promise.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmrack
B=00:00:00:00:00:0b
N=1000

cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" },
    { "name": "p2", "type": "dummy" },
    { "name": "p3", "type": "dummy" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1", "mac-learn-rate": 0 } }
JSON
dm_start

# src I: the source MAC numbered I.
src()
{
    printf '02:aa:00:00:%02x:%02x' $(($1 >> 8)) $(($1 & 255))
}

# B is learned on p2, then every source talks to B from p1.
dm_recv p2 "$(dm_udp $B ff:ff:ff:ff:ff:ff 1)"
dm_wait_stat p1 tx_packets 1
for ((start = 0; start < N; start += 250)); do
    frames=()
    for ((i = start; i < start + 250; i++)); do
        frames+=("$(dm_udp "$(src $i)" $B 2)")
    done
    dm_recv p1 "${frames[@]}"
done
dm_wait_stat p2 tx_packets $N
dm_settle
[[ $(dm_n_flows) -ge $N ]] || ps_fail "only $(dm_n_flows) flows cached"
sweeps=$(dm_pmd_sum reval_sweeps)

# send_and_count I: one frame from source I to B; prints what p2 and p3
# then transmitted in all.
send_and_count()
{
    dm_recv p1 "$(dm_udp "$(src "$1")" $B 3)"
    dm_settle
    echo "$(dm_port_stat p2 tx_packets) $(dm_port_stat p3 tx_packets)"
}

ps_appctl rule/add br0 "priority=100,dl_dst=$B,actions=drop" >/dev/null
ps_assert_eq "p2, p3 after the drop rule" "$N 1" "$(send_and_count 999)"
ps_assert_eq "sweeps for the new rule" 1 \
    "$(($(dm_pmd_sum reval_sweeps) - sweeps))"

ps_appctl rule/del br0 >/dev/null
ps_assert_eq "p2, p3 after the rule went" "$((N + 1)) 1" \
    "$(send_and_count 500)"

ps_appctl fdb/flush br0 >/dev/null
ps_assert_eq "p2, p3 after fdb/flush" "$((N + 2)) 2" "$(send_and_count 7)"

# p2_and_gone I: one frame from source I to B; prints what p2 then
# transmitted in all and the PMDs' drops for ports that are gone.
p2_and_gone()
{
    dm_recv p1 "$(dm_udp "$(src "$1")" $B 4)"
    dm_settle
    echo "$(dm_port_stat p2 tx_packets) $(dm_pmd_sum drop_port_gone)"
}

ps_appctl del-port br0 p3 >/dev/null
ps_assert_eq "p2, drops to a gone port after del-port p3" "$((N + 3)) 0" \
    "$(p2_and_gone 7)"

cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" },
    { "name": "p2", "type": "dummy" } ],
    "rules": [ { "priority": 100, "match": "dl_dst=$B",
                 "actions": "drop" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1", "mac-learn-rate": 0 } }
JSON
ps_appctl config/reload >/dev/null
ps_assert_eq "p2, drops to a gone port after the reload" "$((N + 3)) 0" \
    "$(p2_and_gone 8)"

dm_stop
