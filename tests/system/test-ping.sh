#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: basic reachability through the switch.  Two namespaces, each
# on one switch port, exchange IPv4 pings both ways (small and MTU-sized,
# and fragmented), resolve each other with ARP (broadcast request, unicast
# follow-ups, no answer for an address nobody has), and ping over IPv6 with
# unique-local and link-local addresses (neighbour discovery goes through
# the switch as multicast).  Every echo must get its reply.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping arping python3
ps_require_daemon
ps_setup sping

A=sping-a
B=sping-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 sping-a-sw 10.77.0.1/24
ps_add_veth_to_ns "$B" eth0 sping-b-sw 10.77.0.2/24
ps_ns "$A" ip -6 addr add fd77::1/64 dev eth0 nodad
ps_ns "$B" ip -6 addr add fd77::2/64 dev eth0 nodad
MAC_A=$(ps_mac "$A" eth0)
MAC_B=$(ps_mac "$B" eth0)

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sping-a-sw p2=sping-b-sw
ps_start_daemon "$CONFIG"

ps_info "IPv4"
ps_ping_all "$A" 20 10.77.0.2
ps_ping_all "$B" 20 10.77.0.1
ps_ping_all "$A" 5 10.77.0.2 -s 1472 -M "do"
ps_ping_all "$B" 5 10.77.0.1 -s 4000

ps_info "ARP"
# neigh_mac NS IP: the MAC the namespace's neighbour table holds for IP.
neigh_mac()
{
    ps_ns "$1" ip neigh show "$2" dev eth0 |
        awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'
}
# arp_replies NS IP COUNT: number of replies to COUNT arping requests
# (1 s apart); the first is broadcast, the rest unicast.
arp_replies()
{
    local out
    out=$(ps_ns "$1" arping -c "$3" -w "$(($3 + 2))" -I eth0 "$2" 2>&1) || true
    printf '%s\n' "$out" | sed 's/^/    /' >&2
    sed -n 's/^Received \([0-9][0-9]*\) response.*/\1/p' <<<"$out"
}
ps_ns "$A" ip neigh flush dev eth0
ps_ns "$B" ip neigh flush dev eth0
ps_assert_eq "arping replies from B" 3 "$(arp_replies "$A" 10.77.0.2 3)"
ps_assert_eq "arping replies from A" 3 "$(arp_replies "$B" 10.77.0.1 3)"
ps_assert_eq "arping replies for an unused address" 0 \
    "$(arp_replies "$A" 10.77.0.99 1)"
ps_ns "$A" ip neigh flush dev eth0
ps_ping_all "$A" 3 10.77.0.2
ps_assert_eq "A's ARP entry for B" "$MAC_B" "$(neigh_mac "$A" 10.77.0.2)"
ps_assert_eq "B's ARP entry for A" "$MAC_A" "$(neigh_mac "$B" 10.77.0.1)"

ps_info "IPv6"
ps_ping_all "$A" 20 fd77::2
ps_ping_all "$B" 20 fd77::1
ps_ping_all "$A" 5 fd77::2 -s 1452 -M "do"
# link_local NS: the namespace's fe80:: address on eth0.
link_local()
{
    ps_ns "$1" ip -6 -o addr show dev eth0 scope link |
        awk '{ sub(/\/.*/, "", $4); print $4; exit }'
}
LL_A=$(link_local "$A")
LL_B=$(link_local "$B")
[[ -n "$LL_A" && -n "$LL_B" ]] || ps_fail "no IPv6 link-local addresses"
ps_ping_all "$A" 20 "$LL_B%eth0"
ps_ping_all "$B" 20 "$LL_A%eth0"
ps_assert_eq "A's ND entry for B" "$MAC_B" "$(neigh_mac "$A" fd77::2)"

ps_stop_daemon
ps_check_log

# Sanity of the exit counters: at least the echoes above were forwarded.
rx_a=$(ps_stat port p1 rx_packets)
tx_b=$(ps_stat port p2 tx_packets)
received=$(ps_stat pmd packets_received)
ps_info "p1 rx_packets=$rx_a p2 tx_packets=$tx_b pmd packets_received=$received"
((rx_a >= 100)) || ps_fail "p1 rx_packets=$rx_a, expected at least 100"
((tx_b >= 100)) || ps_fail "p2 tx_packets=$tx_b, expected at least 100"
((received >= 2 * 100)) ||
    ps_fail "pmd packets_received=$received, expected at least 200"
ps_info "PASS"
