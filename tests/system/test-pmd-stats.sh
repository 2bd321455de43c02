#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# System test: PMD counters after a known traffic pattern, checked the way
# Open vSwitch's own tests check them.  With emc-insert-inv-prob 1, N
# identical frames sent one at a time give one upcall and N-1 EMC hits;
# dpctl/dump-flows then shows the one megaflow with N packets, and
# dpctl/del-flows makes the next frame an upcall again.  pmd-perf-show
# counts N packets, nearly all in single-frame receives.
#
# The namespaces have IPv6 off and send nothing by themselves; the frames
# come from a packet socket, to a MAC nobody has, so nothing answers them.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip python3
ps_require_daemon
ps_setup sstat

A=sstat-a
B=sstat-b
for ns in "$A" "$B"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 sstat-a-sw 10.79.5.1/24
ps_add_veth_to_ns "$B" eth0 sstat-b-sw 10.79.5.2/24

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sstat-a-sw p2=sstat-b-sw \
    +emc-insert-inv-prob=1
ps_start_daemon "$CONFIG"

N=100

# send_frames COUNT: sends COUNT identical UDP frames from A, 5 ms apart,
# so that each reaches the PMD in a batch of its own.
send_frames()
{
    ip netns exec "$A" python3 - "$1" <<'EOF'
import socket
import sys
import time

frame = bytes.fromhex(
    "0200000000bb" "0200000000aa" "0800"              # Ethernet
    "45000024000040004011" "0000" "0a4f0501" "0a4f05fe"  # IPv4, no csum
    "303900350010" "0000" "7061796c6f616421")        # UDP + payload
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for _ in range(int(sys.argv[1])):
    s.send(frame)
    time.sleep(0.005)
EOF
}

# stat NAME: the sum over PMDs of the pmd-stats-show line "  NAME: VALUE".
stat()
{
    ps_appctl dpif-netdev/pmd-stats-show |
        awk -v name="  $1:" 'index($0, name) == 1 { s += $NF } END { print s + 0 }'
}

# wait_received COUNT: waits up to 5 s for COUNT received packets.
wait_received()
{
    ps_wait_until 5 bash -c "[[ \$('$PS_BUILD/utilities/pmdswitch-appctl' \
        -t '$PS_DAEMON_CTL' dpif-netdev/pmd-stats-show |
        awk '/packets received:/ { s += \$3 } END { print s + 0 }') -ge $1 ]]" ||
        ps_fail "the switch did not receive $1 packets"
}

ps_appctl dpif-netdev/pmd-stats-clear
ps_info "$N identical frames"
# The first one alone: its upcall installs the flow before the next one
# arrives, whatever the PMD's batching.
send_frames 1
wait_received 1
send_frames "$((N - 1))"
wait_received "$N"
sleep 0.2
ps_appctl dpif-netdev/pmd-stats-show >&2
ps_assert_eq "packets received" "$N" "$(stat 'packets received')"
ps_assert_eq "emc hits" "$((N - 1))" "$(stat 'emc hits')"
ps_assert_eq "smc hits" 0 "$(stat 'smc hits')"
ps_assert_eq "megaflow hits" 0 "$(stat 'megaflow hits')"
ps_assert_eq "miss with success upcall" 1 "$(stat 'miss with success upcall')"
ps_assert_eq "miss with failed upcall" 0 "$(stat 'miss with failed upcall')"

ps_info "pmd-perf-show"
perf=$(ps_appctl -f json dpif-netdev/pmd-perf-show)
singles=$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(sum(h["count"] for p in d["pmds"] for h in p["rx_batch_histogram"]
          if h["min"] == 1))' "$perf")
# Frames 5 ms apart nearly always arrive one per receive; a busy machine
# may now and then deliver two at once.
((singles >= N - 10)) || ps_fail "only $singles of $N receives held one frame"
ps_appctl dpif-netdev/pmd-perf-show | grep -q "^  Rx packets: *$N " ||
    ps_fail "pmd-perf-show: Rx packets is not $N"

ps_info "dpctl/dump-flows"
flows=$(ps_appctl dpctl/dump-flows)
printf '%s\n' "$flows" >&2
ps_assert_eq "flows dumped" 1 "$(grep -c 'packets:' <<<"$flows")"
grep -q "dl_src=02:00:00:00:00:aa,dl_dst=02:00:00:00:00:bb, packets:$N, bytes:$((N * 50)), used:[0-9.]*s, actions:1$" <<<"$flows" ||
    ps_fail "dump-flows: unexpected flow line"
ps_appctl dpctl/dump-flows -m | grep -q "actions:p2$" ||
    ps_fail "dump-flows -m does not name the output port"

ps_info "dpctl/del-flows"
ps_assert_eq "del-flows reply" "" "$(ps_appctl dpctl/del-flows)"
ps_assert_eq "flows after del-flows" "" "$(ps_appctl dpctl/dump-flows)"
send_frames 1
wait_received "$((N + 1))"
ps_assert_eq "upcalls after del-flows" 2 "$(stat 'miss with success upcall')"

ps_stop_daemon
ps_check_log
ps_info "PASS"
