#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: MAC moves.  Three namespaces A, B, C sit on ports p1, p2,
# p3.  A pings B, so the switch learns B's MAC on p2 (and caches flows to
# it).  Then the MAC and B's address move to C, as when a VM migrates: B
# takes a new MAC and drops the address, C takes the old MAC and the
# address and announces itself with a gratuitous ARP.  A keeps its cached
# (static) ARP entry, so only the switch's learning can steer A's frames to
# C.  Within 2 s A's pings must reach C, and while A then pings 20 times B
# must receive nothing at all.  The move is then undone, the same way, to
# show a MAC can move back.  IPv6 is off in the namespaces so the kernel's
# receive counters count only what the test sends.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping arping
ps_require_daemon
ps_setup smac

A=smac-a
B=smac-b
C=smac-c
for ns in "$A" "$B" "$C"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 smac-a-sw 10.77.4.1/24
ps_add_veth_to_ns "$B" eth0 smac-b-sw 10.77.4.2/24
ps_add_veth_to_ns "$C" eth0 smac-c-sw 10.77.4.3/24
MAC_MOVING=$(ps_mac "$B" eth0)
MAC_SPARE=02:77:00:00:04:0b

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" \
    p1=smac-a-sw p2=smac-b-sw p3=smac-c-sw
ps_start_daemon "$CONFIG"

ps_ping_all "$A" 5 10.77.4.2
ps_ping_all "$A" 5 10.77.4.3
# A's entry for the moving address stays put from now on.
ps_ns "$A" ip neigh replace 10.77.4.2 lladdr "$MAC_MOVING" dev eth0 \
    nud permanent

# move_to FROM TO: FROM gives up the moving MAC and address, TO takes them
# and sends a gratuitous ARP, so the switch sees the MAC on TO's port.
move_to()
{
    local from=$1 to=$2
    ps_info "moving $MAC_MOVING and 10.77.4.2 from $from to $to"
    ps_ns "$from" ip addr del 10.77.4.2/24 dev eth0
    ps_ns "$from" ip link set dev eth0 address "$MAC_SPARE"
    ps_ns "$to" ip link set dev eth0 address "$MAC_MOVING"
    ps_ns "$to" ip addr add 10.77.4.2/24 dev eth0
    ps_ns "$to" arping -q -U -c 1 -I eth0 10.77.4.2 || true
}

ping_once()
{
    ps_ns "$A" ping -n -q -c 1 -W 1 10.77.4.2 >/dev/null 2>&1
}

# check_delivery TO OTHER: A's pings must reach TO within 2 s; then 20 more
# pings must all be answered and OTHER must receive no frame meanwhile.
check_delivery()
{
    local to=$1 other=$2 before after
    if ! ps_wait_until 2 ping_once; then
        ps_fail "A's pings did not reach $to within 2 s of the move"
    fi
    ps_info "ok: A reaches 10.77.4.2 on $to"
    before=$(ps_if_stat "$other" eth0 rx_packets)
    ps_ping_all "$A" 20 10.77.4.2
    after=$(ps_if_stat "$other" eth0 rx_packets)
    ps_assert_eq "frames that reached $other meanwhile" 0 $((after - before))
}

move_to "$B" "$C"
check_delivery "$C" "$B"

# Let the first move settle in the switch's caches, then move back.
move_to "$C" "$B"
check_delivery "$B" "$C"

ps_stop_daemon
ps_check_log
ps_info "PASS"
