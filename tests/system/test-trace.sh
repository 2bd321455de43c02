#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: ofproto/trace.  After a ping has taught the switch A's and
# B's MACs, tracing A -> B (as a flow in Open vSwitch's syntax, and as a
# raw frame in hex) shows the NORMAL lookup forwarding to p2, the megaflow
# and "Datapath actions: 1"; an unknown destination floods; a bad bridge,
# flow or frame gets an exact error.  Tracing changes nothing: the MAC
# table, the PMD counters and the flow count stay as they were, even for
# a source MAC the switch has never seen.  Finally a ping captured with
# tcpdump on a switch port gives one pmdswitch-parse-pcap line per frame,
# in Open vSwitch's syntax.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3 tcpdump
ps_require_daemon
ps_setup strc

A=strc-a
B=strc-b
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$B"
ps_add_veth_to_ns "$A" eth0 strc-a-sw 10.79.12.1/24
ps_add_veth_to_ns "$B" eth0 strc-b-sw 10.79.12.2/24
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=strc-a-sw p2=strc-b-sw
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.12.2
MAC_A=$(ps_mac "$A" eth0)
MAC_B=$(ps_mac "$B" eth0)

state()
{
    ps_appctl fdb/show br0 | awk '{ print $1, $2, $3 }' | sort
    ps_appctl dpif-netdev/pmd-stats-show | grep -v cycles
    ps_appctl dpctl/show | grep flows
}
before=$(state)

ps_info "trace A -> B as a flow"
out=$(ps_appctl ofproto/trace br0 \
    "in_port=p1,icmp,dl_src=$MAC_A,dl_dst=$MAC_B,nw_src=10.79.12.1,nw_dst=10.79.12.2")
printf '%s\n' "$out" >&2
grep -q "^Flow: in_port=0,.*dl_src=$MAC_A,dl_dst=$MAC_B" <<<"$out" ||
    ps_fail "trace: no Flow line"
grep -q '^bridge("br0")$' <<<"$out" || ps_fail "trace: no bridge line"
grep -q -- "-> forwarding to learned port 1 (p2)" <<<"$out" ||
    ps_fail "trace: no NORMAL lookup result"
grep -q "^Megaflow: in_port=0,vlan_tci=0x0000/0x1fff,dl_src=$MAC_A,dl_dst=$MAC_B$" \
    <<<"$out" || ps_fail "trace: wrong megaflow"
ps_assert_eq "datapath actions" "Datapath actions: 1" \
    "$(grep '^Datapath actions:' <<<"$out")"

ps_info "trace a frame in hex"
frame="${MAC_B//:/}${MAC_A//:/}08004500001c00004000400100000a4f0c010a4f0c020800f7ff00000000"
out=$(ps_appctl ofproto/trace br0 in_port=p1 "$frame")
grep -q -- "-> forwarding to learned port 1 (p2)" <<<"$out" ||
    { printf '%s\n' "$out" >&2; ps_fail "hex trace: no NORMAL lookup"; }
grep -q "^Flow: in_port=0,.*nw_src=10.79.12.1,nw_dst=10.79.12.2" <<<"$out" ||
    { printf '%s\n' "$out" >&2; ps_fail "hex trace: frame not parsed"; }

ps_info "unknown destination, unknown source: flood, learn nothing"
out=$(ps_appctl ofproto/trace br0 \
    "in_port=p2,dl_src=02:79:12:00:00:aa,dl_dst=02:79:12:00:00:bb")
grep -q -- "-> no learned MAC for destination, flooding" <<<"$out" ||
    { printf '%s\n' "$out" >&2; ps_fail "trace: no flooding"; }
ps_assert_eq "flood actions" "Datapath actions: 0" \
    "$(grep '^Datapath actions:' <<<"$out")"
json=$(ps_appctl -f json ofproto/trace br0 \
    "in_port=p2,dl_src=02:79:12:00:00:aa,dl_dst=ff:ff:ff:ff:ff:ff")
ps_assert_eq "JSON datapath actions" "[0]" "$(python3 -c 'import json, sys
print(json.dumps(json.loads(sys.argv[1])["datapath_actions"]))' "$json")"
ps_assert_eq "state after traces" "$before" "$(state)"

ps_info "errors"
expect_error()
{
    local want=$1 rc=0 got
    shift
    got=$(ps_appctl ofproto/trace "$@" 2>&1 >/dev/null) || rc=$?
    ps_assert_eq "status of trace $*" 2 "$rc"
    ps_assert_eq "error of trace $*" "$want" "$(head -n 1 <<<"$got")"
}
expect_error 'no bridge named br1' br1 in_port=p1
expect_error 'frame: 4 bytes, shorter than an Ethernet header (14)' \
    br0 in_port=p1 01020304
expect_error 'with a frame, the second argument is "in_port=PORT", not "tcp"' \
    br0 tcp 0102030405060708090a0b0c0d0e
got=$(ps_appctl ofproto/trace br0 in_port=p9 2>&1 >/dev/null || true)
[[ $got == *p9* ]] || ps_fail "unknown port: \"$got\""

ps_info "a capture on a switch port through pmdswitch-parse-pcap"
CAP=$PS_LOG_DIR/ping.pcap
ps_bg tcpdump timeout 15 tcpdump -i strc-b-sw --immediate-mode -U -c 6 \
    -w "$CAP" icmp
TCPDUMP=$PS_BG_PID
ps_wait_until 5 grep -q "listening on" "$PS_LOG_DIR/tcpdump.out" ||
    ps_fail "tcpdump did not start"
ps_ping_all "$A" 3 10.79.12.2
rc=0
wait "$TCPDUMP" || rc=$?
[[ $rc -eq 0 ]] || { cat "$PS_LOG_DIR/tcpdump.out" >&2;
                     ps_fail "tcpdump exited with status $rc"; }
lines=$("$PS_BUILD/utilities/pmdswitch-parse-pcap" "$CAP")
printf '%s\n' "$lines" >&2
ps_assert_eq "parse-pcap lines" 6 "$(grep -c . <<<"$lines")"
ps_assert_eq "echo requests" 3 "$(grep -c "^icmp,in_port=ANY,vlan_tci=0x0000,dl_src=$MAC_A,dl_dst=$MAC_B,nw_src=10.79.12.1,nw_dst=10.79.12.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,icmp_type=8,icmp_code=0$" <<<"$lines")"
ps_assert_eq "echo replies" 3 "$(grep -c "^icmp,in_port=ANY,vlan_tci=0x0000,dl_src=$MAC_B,dl_dst=$MAC_A,nw_src=10.79.12.2,nw_dst=10.79.12.1,.*,icmp_type=0,icmp_code=0$" <<<"$lines")"

ps_stop_daemon
ps_check_log
ps_info "PASS"
