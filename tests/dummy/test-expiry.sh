#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Time on dummy ports, no root, with the test clock (time/warp) instead of
# sleeps: a megaflow outlives a warp shorter than flow-idle-timeout and is
# gone from dpctl/dump-flows after one past it; a learned MAC ages out of
# fdb/show after mac-aging-time, so that traffic to it floods again; a
# rule change revalidates the flows already installed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmexpiry
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b

cat >"$DM_CONFIG" <<'JSON'
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" },
    { "name": "p2", "type": "dummy" },
    { "name": "p3", "type": "dummy" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1", "flow-idle-timeout": 60000,
                    "mac-aging-time": 300 } }
JSON
dm_start

# Without --enable-dummy there would be no clock to warp.
ps_assert_eq "time/warp is registered" 1 \
    "$(ps_appctl list-commands | grep -c 'time/warp')"
if ps_appctl time/warp -5 >/dev/null 2>&1; then
    ps_fail "time/warp accepted a negative time"
fi

flows_are()
{
    [[ "$(dm_n_flows)" == "$1" ]]
}

# Learn B on p2 and A on p1 (learning A revalidates B's flooding flow
# away), then B -> A again: one unicast megaflow each way.
dm_recv p2 "$(dm_udp $B $A 1)"
dm_wait_stat p1 tx_packets 1
dm_recv p1 "$(dm_udp $A $B 2)"
dm_wait_stat p2 tx_packets 1
dm_recv p2 "$(dm_udp $B $A 1)"
dm_wait_stat p1 tx_packets 2
dm_wait "two megaflows" flows_are 2

# Half the idle timeout: the flows stay (after the PMD has swept).  The
# timeout is long so that a slow machine's real seconds between the last
# frame and this check do not add up to it.
ps_appctl time/warp 30000 >/dev/null
expired0=$(dm_pmd_sum flows_expired)
dm_settle
dm_settle
ps_assert_eq "megaflows after 30 s idle" 2 "$(dm_n_flows)"
ps_assert_eq "flows expired after 30 s idle" "$expired0" \
    "$(dm_pmd_sum flows_expired)"

# Past it: both go.
ps_appctl time/warp 31000 >/dev/null
dm_wait "the idle megaflows to expire" flows_are 0
ps_assert_eq "flows expired" 2 "$(($(dm_pmd_sum flows_expired) - expired0))"

# A new frame makes a new megaflow, and B is still learned: unicast.
dm_recv p1 "$(dm_udp $A $B 3)"
dm_wait_stat p2 tx_packets 2
dm_settle
ps_assert_eq "p3 frames before MAC aging" 1 "$(dm_port_stat p3 tx_packets)"

# A rule change revalidates that flow: a drop rule for A's traffic.
invalidated0=$(dm_pmd_sum flows_invalidated)
ps_appctl rule/add br0 "priority=200,in_port=p1,actions=drop" >/dev/null
invalidated()
{
    (($(dm_pmd_sum flows_invalidated) > invalidated0))
}
dm_wait "the rule change to revalidate the flow" invalidated
dm_recv p1 "$(dm_udp $A $B 4)"
dm_wait "the dropped frame" eval '(($(dm_pmd_sum drop_flow_action) >= 1))'
dm_settle
ps_assert_eq "p2 frames with the drop rule" 2 "$(dm_port_stat p2 tx_packets)"
ps_appctl rule/del br0 --strict "priority=200,in_port=p1" >/dev/null

# MAC aging: past mac-aging-time B is forgotten and A -> B floods.
ps_appctl time/warp 301000 >/dev/null
b_forgotten()
{
    [[ "$(dm_json fdb/show br0 -- "len([e for e in j if e['mac'] == '$B'])")" == 0 ]]
}
dm_wait "B to age out of fdb/show" b_forgotten
dm_recv p1 "$(dm_udp $A $B 5)"
dm_wait_stat p3 tx_packets 2
dm_wait_stat p2 tx_packets 3

dm_stop
