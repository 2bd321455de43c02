#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: one config with everything a user combines, as README
# shows it: a rule table, two VLANs and a balance-tcp bond.
#
#   A  p1   access VLAN 10   10.90.0.1/24
#   B  p2   access VLAN 20   10.90.0.2/24 (same subnet: a leak would answer)
#   H  up0  bond over stour-m1 + stour-m2, access VLAN 10, behind the
#           partner P (tests/system/bond-peer.py, balance-xor layer3+4:
#           this kernel has no bonding driver)           10.90.0.3/24
#
#   rules: priority 200  udp,tp_dst=9  drop   (cookie 0x9)
#          priority 10   (everything)  normal
#
# Checked: A and H reach each other through the bond, B reaches neither;
# 16 UDP flows from A to H leave through both members; UDP to port 9 is
# dropped and counted by its rule; bond/show, rule/dump and
# dpctl/dump-flows -m are printed under traffic.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3
ps_require_daemon
ps_setup stour

A=stour-a
B=stour-b
P=stour-p
H=stour-h
for ns in "$A" "$B" "$P" "$H"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 stour-a-sw 10.90.0.1/24
ps_add_veth_to_ns "$B" eth0 stour-b-sw 10.90.0.2/24
ps_add_veth_to_ns "$P" m1 stour-m1
ps_add_veth_to_ns "$P" m2 stour-m2
ps_add_veth_between "$P" hl "$H" eth0
ip -n "$H" addr add 10.90.0.3/24 dev eth0

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=stour-a-sw,tag=10 \
    p2=stour-b-sw,tag=20 \
    "up0=bond:stour-m1+stour-m2,bond_mode=balance-tcp,tag=10"
python3 - "$CONFIG" <<'EOF'
import json
import sys

with open(sys.argv[1]) as f:
    config = json.load(f)
config["bridges"][0]["rules"] = [
    {"priority": 200, "match": "udp,tp_dst=9", "actions": "drop",
     "cookie": "0x9"},
    {"priority": 10, "match": "", "actions": "normal"},
]
with open(sys.argv[1], "w") as f:
    json.dump(config, f, indent=2)
EOF
ps_start_daemon "$CONFIG"

ps_bg peer ip netns exec "$P" python3 "$PS_LIB_DIR/bond-peer.py" \
    --mode balance-xor --host hl m1 m2
ps_wait_until 5 grep -q ready "$PS_LOG_DIR/peer.out" ||
    ps_fail "bond-peer.py did not start"

# replies NS COUNT DST: echo replies to COUNT pings.
replies()
{
    local out
    out=$(ip netns exec "$1" ping -n -q -c "$2" -i 0.05 -w 2 "$3" 2>&1) ||
        true
    sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' <<<"$out"
}

# member_tx NAME: frames the switch sent on bond member NAME.
member_tx()
{
    ps_appctl -f json dpctl/show | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(p["tx_packets"] for p in d["ports"] if p["name"] == sys.argv[1]))' "$1"
}

ps_info "VLAN 10 through the bond; VLAN 20 apart"
ps_ping_all "$A" 5 10.90.0.3
ps_ping_all "$H" 5 10.90.0.1
ps_assert_eq "replies from H to B" 0 "$(replies "$B" 3 10.90.0.3)"
ps_assert_eq "replies from A to B" 0 "$(replies "$B" 3 10.90.0.1)"

ps_info "16 UDP flows from A to H spread over both members"
tx1=$(member_tx stour-m1)
tx2=$(member_tx stour-m2)
ps_start_iperf3_server "$H" 10.90.0.3
SERVER=$PS_BG_PID
ip netns exec "$A" iperf3 -c 10.90.0.3 -u -b 2M -l 200 -P 16 -t 4 \
    --connect-timeout 5000 >"$PS_LOG_DIR/iperf3.out" 2>&1 &
CLIENT=$!
ps_record_pid "$CLIENT"
sleep 2
for cmd in "bond/show up0" "rule/dump br0" "dpctl/dump-flows -m"; do
    ps_info "under traffic: pmdswitch-appctl $cmd"
    # shellcheck disable=SC2086
    ps_appctl $cmd | sed 's/^/    /' >&2
done
wait "$CLIENT" || ps_fail "iperf3 failed: $(tail -n 3 "$PS_LOG_DIR/iperf3.out")"
ps_kill_bg "$SERVER"
d1=$(($(member_tx stour-m1) - tx1))
d2=$(($(member_tx stour-m2) - tx2))
ps_info "member tx during the flows: stour-m1 $d1, stour-m2 $d2"
((d1 > 100 && d2 > 100)) ||
    ps_fail "the flows did not use both members ($d1, $d2)"

ps_info "UDP to port 9 is dropped by its rule"
ip netns exec "$A" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(40):
    s.sendto(b"z" * 64, ("10.90.0.3", 9))'
rule9()
{
    ps_appctl -f json rule/dump br0 | python3 -c 'import json, sys
print(sum(r["n_packets"] for r in json.load(sys.stdin)
          if r["priority"] == 200))'
}
rule9_counted()
{
    (($(rule9) >= 40))
}
ps_wait_until 3 rule9_counted || ps_fail "rule 200 counted $(rule9), want 40"

ps_stop_daemon
ps_check_log
ps_info "PASS"
