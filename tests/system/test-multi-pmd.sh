#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# System test: two PMDs and two rx queues per port.  With pmd-cpu-mask 0x3
# and n_rxq 2 on p1 and p2, the four queues are spread over both PMDs
# (pmd-rxq-show), and many UDP flows from A to B reach both of p1's
# queues and both PMDs.  Then, under a steady stream, pmd-cpu-mask goes to
# 0x2 (the queues of the PMD on core 0 move to core 1), rebalance runs,
# and back to 0x3: not one datagram is lost.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3
ps_require_daemon
ps_setup smpd

if (($(nproc) < 2)); then
    ps_skip "needs 2 cores"
fi
A=smpd-a
B=smpd-b
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$B"
ps_add_veth_to_ns "$A" eth0 smpd-a-sw 10.79.10.1/24
ps_add_veth_to_ns "$B" eth0 smpd-b-sw 10.79.10.2/24

CONFIG=$PS_LOG_DIR/config.json
PS_PMD_MASK=0x3 ps_write_config "$CONFIG" "$PS_TPACKET" p1=smpd-a-sw@2 \
    p2=smpd-b-sw@2 +pmd-rxq-assign=roundrobin
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.10.2

# rxq_json: pmd-rxq-show as JSON.
rxq_json()
{
    ps_appctl -f json dpif-netdev/pmd-rxq-show
}

ps_info "four queues over two PMDs"
ps_appctl dpif-netdev/pmd-rxq-show >&2
read -r n_pmds per_pmd <<<"$(rxq_json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(len(d), ",".join(str(len(p["rxqs"])) for p in d))')"
ps_assert_eq "pmds" 2 "$n_pmds"
ps_assert_eq "queues per pmd" "2,2" "$per_pmd"

ps_info "many flows reach both queues of p1 and both PMDs"
ps_appctl dpif-netdev/pmd-stats-clear
ps_start_iperf3_server "$B" 10.79.10.2
SERVER=$PS_BG_PID
timeout 30 ip netns exec "$A" iperf3 -c 10.79.10.2 -u -b 2M -l 200 -P 16 \
    -t 2 --connect-timeout 5000 >"$PS_LOG_DIR/flows.out" 2>&1 ||
    { cat "$PS_LOG_DIR/flows.out" >&2; ps_fail "iperf3 with 16 flows failed"; }
ps_kill_bg "$SERVER"
ps_appctl dpif-netdev/pmd-stats-show >"$PS_LOG_DIR/stats.txt"
per_pmd=$(awk '/packets received:/ { printf "%s%s", sep, $3; sep = "," }' \
    "$PS_LOG_DIR/stats.txt")
ps_info "packets received per thread: $per_pmd"
python3 -c 'import sys
counts = [int(x) for x in sys.argv[1].split(",")][:2]
sys.exit(0 if len(counts) == 2 and min(counts) > 100 else 1)' "$per_pmd" ||
    ps_fail "traffic did not reach both PMDs: $per_pmd"
ps_appctl dpctl/show | grep -A1 ": p1 " >&2
status=$(ps_appctl dpctl/show)
grep -q "p1 (smpd-a-sw" <<<"$status" || ps_fail "p1 not shown"

ps_info "pmd-cpu-mask changes under a steady stream"
ps_start_stream "$A" "$B" 10.79.10.2 6
sleep 1
ps_appctl other-config/set pmd-cpu-mask=0x2 >/dev/null
ps_assert_eq "pmds with 0x2" 1 "$(rxq_json | python3 -c 'import json, sys
print(len(json.load(sys.stdin)))')"
sleep 1
ps_appctl dpif-netdev/pmd-rxq-rebalance >/dev/null
ps_appctl other-config/set pmd-cpu-mask=0x3 >/dev/null
ps_assert_eq "pmds with 0x3" 2 "$(rxq_json | python3 -c 'import json, sys
print(len(json.load(sys.stdin)))')"
ps_end_stream "datagrams the switch lost while queues moved" 5000

ps_stop_daemon
ps_check_log
ps_info "PASS"
