#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: a port whose link is down.  Three namespaces A, B, C on
# ports p1, p2, p3 of one bridge (NORMAL, plus a rule that sends A's
# traffic for C's address out of p3).  C's end of its veth pair is set
# down, so p3's interface loses its carrier (the link monitor reports p3
# down), then:
#
#   - frames the rule sends to p3 are counted as dropped (tx_port_down in
#     dpctl/show, "dropped by port down" in pmd-stats-show), not as
#     transmitted;
#   - a broadcast flood from A reaches B and leaves p3 out (p3's
#     counters do not move; ofproto/trace says p3 is down);
#   - once C's end is up again, p3 is flooded to and forwards again.
#
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3 jq
ps_require_daemon
ps_setup ndpdn

A=ndpdn-a
B=ndpdn-b
C=ndpdn-c
for ns in "$A" "$B" "$C"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 ndpdn-a-sw 10.79.58.1/24
ps_add_veth_to_ns "$B" eth0 ndpdn-b-sw 10.79.58.2/24
ps_add_veth_to_ns "$C" eth0 ndpdn-c-sw 10.79.58.3/24
C_MAC=$(ps_mac "$C" eth0)

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=ndpdn-a-sw p2=ndpdn-b-sw \
    p3=ndpdn-c-sw
python3 - "$CONFIG" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["bridges"][0]["rules"] = [
    {"priority": 100, "match": "in_port=p1,ip,nw_dst=10.79.58.3",
     "actions": "output:p3"},
    {"priority": 10, "match": "", "actions": "normal"},
]
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.58.2
ps_ping_all "$A" 3 10.79.58.3

# counter PORT FIELD: FIELD of PORT in dpctl/show's JSON.
counter()
{
    ps_appctl -f json dpctl/show |
        jq -r --arg p "$1" --arg f "$2" '.ports[] | select(.name == $p) | .[$f]'
}

# pmd_port_down: "dropped by port down" summed over the PMDs.
pmd_port_down()
{
    ps_appctl dpif-netdev/pmd-stats-show |
        awk '/dropped by port down:/ { n += $NF } END { print n + 0 }'
}

port_state()
{
    ps_appctl -f json dpctl/show |
        jq -r --arg p "$1" '.ports[] | select(.name == $p) | .state'
}

ps_info "C's end of p3's veth pair goes down"
ip -n "$C" link set eth0 down
ps_wait_until 5 bash -c "[[ \$('$PS_BUILD/utilities/pmdswitch-appctl' \
    -t '$PS_DAEMON_CTL' -f json dpctl/show | jq -r '.ports[] |
    select(.name == \"p3\") | .state') == down ]]" ||
    ps_fail "p3 not reported down (state $(port_state p3))"

ps_info "frames the rule sends to p3 are dropped by name"
tx0=$(counter p3 tx_packets)
down0=$(counter p3 tx_port_down)
pmd0=$(pmd_port_down)
# A knows C's MAC, so it sends at once, without ARP.
ip -n "$A" neigh replace 10.79.58.3 lladdr "$C_MAC" dev eth0
ps_ns "$A" ping -c 20 -i 0.01 -W 0.2 10.79.58.3 >/dev/null 2>&1 || true
ps_assert_eq "p3 tx_packets while down" "$tx0" "$(counter p3 tx_packets)"
ps_assert_eq "p3 tx_port_down after 20 pings" "$((down0 + 20))" \
    "$(counter p3 tx_port_down)"
ps_assert_eq "pmd-stats-show: dropped by port down" "$((pmd0 + 20))" \
    "$(pmd_port_down)"

ps_info "a flood from A reaches B and leaves p3 out"
tx0=$(counter p3 tx_packets)
down0=$(counter p3 tx_port_down)
btx0=$(counter p2 tx_packets)
# Echo requests to the broadcast address: flooded.
ps_ns "$A" ping -b -c 5 -i 0.05 -W 0.2 10.79.58.255 >/dev/null 2>&1 || true
btx=$(counter p2 tx_packets)
((btx >= btx0 + 5)) || ps_fail "flood reached p2 $((btx - btx0)) times"
ps_assert_eq "p3 tx_packets after the flood" "$tx0" \
    "$(counter p3 tx_packets)"
ps_assert_eq "p3 tx_port_down after the flood" "$down0" \
    "$(counter p3 tx_port_down)"
trace=$(ps_appctl ofproto/trace br0 \
    "in_port=p1,dl_src=$(ps_mac "$A" eth0),dl_dst=ff:ff:ff:ff:ff:ff" 2>&1 ||
    true)
grep -q "port p3 is down" <<<"$trace" ||
    { echo "$trace" >&2; ps_fail "ofproto/trace does not say p3 is down"; }

ps_info "C's end comes up again: p3 is flooded to and forwards"
ip -n "$C" link set eth0 up
ps_wait_until 5 bash -c "[[ \$('$PS_BUILD/utilities/pmdswitch-appctl' \
    -t '$PS_DAEMON_CTL' -f json dpctl/show | jq -r '.ports[] |
    select(.name == \"p3\") | .state') == up ]]" ||
    ps_fail "p3 not reported up again (state $(port_state p3))"
tx0=$(counter p3 tx_packets)
ps_ns "$A" ping -b -c 3 -i 0.05 -W 0.2 10.79.58.255 >/dev/null 2>&1 || true
tx=$(counter p3 tx_packets)
((tx >= tx0 + 3)) || ps_fail "flood reached p3 $((tx - tx0)) times once up"
ps_ping_all "$A" 3 10.79.58.3

ps_stop_daemon
PS_LOG_ALLOW+=('link down')
ps_check_log
ps_info "PASS"
