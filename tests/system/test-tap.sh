#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# System test: ports pmdswitchd creates, next to a plain veth port.
# pmdswitchd creates a tap ("create": true); the test moves its kernel
# side into namespace V, as a hypervisor hands it to a VM, and addresses
# it there.  It also creates a veth pair for port c1 whose peer the test
# moves into namespace C, as a container runtime would.  Namespace A sits
# behind a veth port the test made.  Ping and an iperf3 TCP stream (with
# the senders' default offloads, so GSO frames and partial checksums cross
# between tap and veth) must work both ways between A and V, ping between
# V and C; the tap port stays "up" although its interface left the
# daemon's namespace; the switch's veth ends are promiscuous; and when the
# ports are removed by a reload, the tap and the veth pair are gone.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3
ps_require_daemon
ps_setup stap

A=stap-a
V=stap-v
ps_add_ns "$A"
ps_add_ns "$V"
ps_add_veth_to_ns "$A" eth0 stap-a-sw 10.79.7.1/24
ps_record_link stap-vm1
ps_record_link stap-c1
C=stap-c
ps_add_ns "$C"

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=stap-a-sw vm1=tap:stap-vm1 \
    c1=veth:stap-c1:stap-c1p
ps_start_daemon "$CONFIG"
ip link show stap-c1p >/dev/null 2>&1 || ps_fail "the daemon made no veth"
ip link set stap-c1p netns "$C"
ip -n "$C" addr add 10.79.7.3/24 dev stap-c1p
ip -n "$C" link set stap-c1p up
ip link show stap-a-sw | grep -q PROMISC || ps_fail "stap-a-sw is not promiscuous"
ip link show stap-vm1 >/dev/null 2>&1 || ps_fail "the daemon made no tap"
ip link set stap-vm1 netns "$V"
ip -n "$V" addr add 10.79.7.2/24 dev stap-vm1
ip -n "$V" link set stap-vm1 up

ps_ping_all "$A" 5 10.79.7.2
ps_ping_all "$V" 5 10.79.7.1
ps_ping_all "$V" 5 10.79.7.3
ps_appctl dpctl/show | grep -q ": vm1 (stap-vm1, tap, up" ||
    { ps_appctl dpctl/show >&2; ps_fail "dpctl/show: vm1 is not an up tap"; }

for dir in "$A 10.79.7.2 $V" "$V 10.79.7.1 $A"; do
    read -r client addr server <<<"$dir"
    ps_start_iperf3_server "$server" "$addr"
    SERVER=$PS_BG_PID
    out=$PS_LOG_DIR/iperf-$client.json
    timeout 30 ip netns exec "$client" iperf3 -c "$addr" -t 3 -J \
        --connect-timeout 5000 >"$out" || ps_fail "iperf3 $client -> $addr failed"
    gbps=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%.2f" % (d["end"]["sum_received"]["bits_per_second"] / 1e9))' "$out")
    ps_info "iperf3 TCP $client -> $server: $gbps Gbit/s"
    python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 0.05)' "$gbps" &&
        ps_fail "iperf3 $client -> $server: only $gbps Gbit/s"
    ps_kill_bg "$SERVER"
done

ps_info "removing the ports deletes the tap and the veth pair"
ps_write_config "$CONFIG" "$PS_TPACKET" p1=stap-a-sw
ps_assert_eq "reload" "ports removed: vm1, c1" "$(ps_appctl config/reload)"
if ip -n "$V" link show stap-vm1 >/dev/null 2>&1; then
    ps_fail "stap-vm1 still exists after its port was removed"
fi
if ip link show stap-c1 >/dev/null 2>&1 ||
   ip -n "$C" link show stap-c1p >/dev/null 2>&1; then
    ps_fail "the veth pair of c1 still exists after its port was removed"
fi

ps_stop_daemon
ip link show stap-a-sw | grep -q PROMISC &&
    ps_fail "stap-a-sw is still promiscuous after the daemon stopped"
ps_check_log
ps_info "PASS"
