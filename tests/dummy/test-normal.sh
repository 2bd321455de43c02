#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# NORMAL on dummy ports, no root: an unknown destination is flooded to
# every other port, a learned one gets the frame alone, fdb/show lists the
# learned MACs, broadcast floods; then a rule (output:PORT) overrides
# NORMAL for its traffic, and deleting it revalidates the flow it made; a
# rule added at run time goes with the next config/reload;
# the "pcap" option writes what p3 sent to a file that tcpdump reads.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmnormal
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b
C=00:00:00:00:00:0c
BCAST=ff:ff:ff:ff:ff:ff

PCAP=$PS_LOG_DIR/p3.pcap
cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" },
    { "name": "p2", "type": "dummy" },
    { "name": "p3", "type": "dummy", "options": { "pcap": "$PCAP" } } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1" } }
JSON
dm_start

# Flood: B is unknown.
dm_recv p1 "$(dm_udp $A $B 1)"
dm_wait_stat p3 tx_packets 1
dm_wait_stat p2 tx_packets 1
dm_settle
dm_assert_captured p1 0
dm_assert_captured p2 1
dm_assert_captured p3 1

# B answers: A was learned on p1, so only p1 gets it.
dm_recv p2 "$(dm_udp $B $A 2)"
dm_wait_stat p1 tx_packets 1
dm_settle
dm_assert_captured p1 1
dm_assert_captured p3 1

# A to B, now known on p2: only p2.
dm_recv p1 "$(dm_udp $A $B 3)"
dm_wait_stat p2 tx_packets 2
dm_settle
dm_assert_captured p3 1
ps_assert_eq "fdb/show: A on p1" p1 \
    "$(dm_json fdb/show br0 -- "[e['port'] for e in j if e['mac'] == '$A'][0]")"
ps_assert_eq "fdb/show: B on p2" p2 \
    "$(dm_json fdb/show br0 -- "[e['port'] for e in j if e['mac'] == '$B'][0]")"

# The frame that went out is the one that came in (flow_compose made it).
ps_assert_eq "frame on p2" "$(printf '%s' "$B$A" | tr -d :)0800" \
    "$(ps_appctl netdev-dummy/dump p2 | tail -n 1 | cut -c1-28)"

# Broadcast from C on p3 floods to p1 and p2.
dm_clear p1 p2 p3
dm_recv p3 "$(dm_udp $C $BCAST 4)"
dm_wait_stat p1 tx_packets 2
dm_wait_stat p2 tx_packets 3
dm_settle
dm_assert_captured p3 0

# A rule sends A's traffic to 10.0.0.3 out of p3, whatever NORMAL says.
dm_clear p1 p2 p3
ps_appctl rule/add br0 \
    "priority=100,in_port=p1,ip,nw_dst=10.0.0.3,actions=output:p3" >/dev/null
dm_recv p1 "$(dm_udp $A $B 5 10.0.0.3)"
dm_wait_stat p3 tx_packets 2
dm_settle
dm_assert_captured p2 0
ps_assert_eq "flows with output to p3" 1 \
    "$(ps_appctl dpctl/dump-flows -m | grep -c 'actions:p3' || true)"

# Deleting the rule revalidates that flow: the next frame takes NORMAL's
# way, to B on p2.
ps_appctl rule/del br0 --strict "priority=100,in_port=p1,ip,nw_dst=10.0.0.3" \
    >/dev/null
dm_wait "the rule's flow to be revalidated away" \
    eval '! ps_appctl dpctl/dump-flows -m | grep -q "actions:p3"'
dm_recv p1 "$(dm_udp $A $B 6 10.0.0.3)"
dm_wait_stat p2 tx_packets 4
dm_settle
ps_assert_eq "p3 frames after the rule went" 2 "$(dm_port_stat p3 tx_packets)"
ps_assert_eq "flows revalidated away" 1 \
    "$(($(dm_pmd_sum flows_invalidated) >= 1))"

# A rule added at run time lasts until the config is applied again, even
# when the file has no rules: config/reload says so and puts NORMAL back.
ps_appctl rule/add br0 "priority=100,in_port=p1,ip,actions=drop" >/dev/null
dm_recv p1 "$(dm_udp $A $B 7 10.0.0.2)"
dm_settle
ps_assert_eq "p2 frames while the drop rule is in" 4 \
    "$(dm_port_stat p2 tx_packets)"
out=$(ps_appctl config/reload)
[[ $out == *"rules added or deleted at run time replaced by the config's on br0"* ]] ||
    ps_fail "config/reload did not say it reset the rules: $out"
ps_assert_eq "rules after the reload" "" \
    "$(ps_appctl rule/dump br0 | grep priority= || true)"
dm_recv p1 "$(dm_udp $A $B 8 10.0.0.2)"
dm_wait_stat p2 tx_packets 5

dm_stop

# p3's pcap file, read by tcpdump: the flooded frame and the rule's, in
# order, as sent.
if command -v tcpdump >/dev/null 2>&1; then
    got=$(tcpdump -nn -r "$PCAP" 2>/dev/null | sed 's/^[0-9:.]* //')
    want="IP 10.0.0.1.1000 > 10.0.0.2.1: UDP, length 0
IP 10.0.0.1.1000 > 10.0.0.3.5: UDP, length 0"
    ps_assert_eq "p3's pcap file as tcpdump reads it" "$want" "$got"
else
    ps_info "note: tcpdump is not installed; p3's pcap file not read"
fi
