#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: a vxlan port against the Linux kernel's vxlan device.  Two
# "hosts" are namespaces joined by an underlay veth (10.99.0.1 and
# 10.99.0.2).  Host A runs pmdswitchd with bridge br0: a container's veth
# and vxlan port vx0 (key 42, remote 10.99.0.2).  Host B is a Linux bridge
# with a kernel vxlan device (id 42, dstport 4789, remote 10.99.0.1) and
# its own container.  The containers (MTU 1450, as a vxlan overlay needs)
# resolve each other with ARP, ping both ways (small and the largest frame
# the overlay carries), and run iperf3 TCP both ways with default
# offloads: the GSO frames the container sends are cut to the underlay in
# pmdswitch.  A frame too large for the underlay is counted as tx_too_big,
# never lost silently.  Then malformed datagrams at rate on the underlay
# (truncated, bad flags, wrong VNI, from an unknown address) are counted
# by reason while a sequence-numbered stream crosses the tunnel with no
# loss, duplicate or reordering.  Last, with "key": "flow": rules set
# the VNI (set_field:42->tun_id) and match it (tun_id=42), and ping and
# TCP work again while frames of another VNI go nowhere.
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3 ethtool
ps_require_daemon
ps_setup svx

HA=svx-ha
HB=svx-hb
CA=svx-ca
CB=svx-cb
for ns in $HA $HB $CA $CB; do
    ps_add_ns "$ns"
done

# The underlay.
ps_add_veth_between $HA svx-ul $HB svx-ul
ip -n $HA addr add 10.99.0.1/24 dev svx-ul
ip -n $HB addr add 10.99.0.2/24 dev svx-ul
# A veth hands the skb over with its checksum state: a kernel vxlan
# device over it leaves the inner checksum partial, for a NIC to finish
# that a veth does not have, and a UDP socket at the other end then
# reads an unfinished checksum.  With checksum offload off, the kernel
# finishes it before the veth, as a real host's NIC would on the wire.
ps_ns $HB ethtool -K svx-ul tx off >/dev/null
# A second address on host B, for datagrams from a remote vx0 does not
# know.
ip -n $HB addr add 10.99.0.3/24 dev svx-ul

# Host A's container, on a veth to host A.
ps_add_veth_between $CA eth0 $HA svx-ca-sw
ip -n $CA addr add 10.200.0.1/24 dev eth0
ip -n $CA link set eth0 mtu 1450

# Host B: Linux bridge, kernel vxlan, container.
ip -n $HB link add br0 type bridge
ip -n $HB link set br0 up
ip -n $HB link add vx42 type vxlan id 42 dstport 4789 local 10.99.0.2 \
    remote 10.99.0.1 dev svx-ul
ip -n $HB link set vx42 master br0 up
ps_add_veth_between $CB eth0 $HB svx-cb-sw
ip -n $HB link set svx-cb-sw master br0
ip -n $CB addr add 10.200.0.2/24 dev eth0
ip -n $CB link set eth0 mtu 1450

CONFIG=$PS_LOG_DIR/config.json
cat >"$CONFIG" <<EOF
{
  "bridges": [
    { "name": "br0",
      "ports": [
        { "name": "c1", "interface": "svx-ca-sw" },
        { "name": "vx0", "type": "vxlan",
          "options": { "remote_ip": "10.99.0.2", "key": 42,
                       "local_ip": "10.99.0.1" } }
      ] }
  ],
  "other_config": { "use-tpacket-v3": $PS_TPACKET,
                    "pmd-cpu-mask": "${PS_PMD_MASK:-0x2}" }
}
EOF
PS_DAEMON_NETNS=$HA ps_start_daemon "$CONFIG"

# vxlan_stat NAME: the vxlan port's counter NAME from dpctl/show's JSON
# (a top-level counter such as tx_too_big, or a vxlan drop reason).
vxlan_stat()
{
    ps_appctl -f json dpctl/show | python3 -c '
import json, sys
name = sys.argv[1]
for p in json.load(sys.stdin)["ports"]:
    if p["name"] == "vx0":
        print(p.get(name, p["vxlan"]["rx_drops"].get(name)))
' "$1"
}

ps_info "ARP and ping across the tunnel"
ps_ping_all $CA 10 10.200.0.2
ps_ping_all $CB 10 10.200.0.1
# The largest frame the overlay carries: 1450-byte IP packets.
ps_ping_all $CA 5 10.200.0.2 -s 1422 -M "do"
ps_ping_all $CB 5 10.200.0.1 -s 1422 -M "do"
MAC_B=$(ps_mac $CB eth0)
ps_assert_eq "A's ARP entry for B" "$MAC_B" \
    "$(ip -n $CA neigh show 10.200.0.2 dev eth0 | awk '{print $3}')"

ps_info "a frame too big for the underlay is counted"
ip -n $CA link set eth0 mtu 1500
before=$(vxlan_stat tx_too_big)
ps_ns $CA ping -c 3 -i 0.05 -W 1 -s 1472 -M "do" 10.200.0.2 >/dev/null 2>&1 || true
after=$(vxlan_stat tx_too_big)
ps_assert_eq "tx_too_big after 3 pings of 1500 bytes" $((before + 3)) "$after"
ip -n $CA link set eth0 mtu 1450

ps_info "TCP both ways, default offloads"
# iperf_tcp FROM TO ADDR LABEL: 3 s of TCP from FROM to TO's ADDR; fails
# unless it completes.  Prints Gbit/s.
iperf_tcp()
{
    ps_start_iperf3_server "$2" "$3"
    local server=$PS_BG_PID out=$PS_LOG_DIR/iperf-$4.json
    if ! ps_ns "$1" timeout 20 iperf3 -c "$3" -t 3 -J >"$out"; then
        ps_show_switch_counters
        ps_fail "iperf3 TCP $4 did not complete"
    fi
    ps_kill_bg "$server"
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("%.2f" % (r["end"]["sum_received"]["bits_per_second"] / 1e9))
' "$out"
}
for dir in a-to-b b-to-a; do
    if [[ $dir == a-to-b ]]; then
        gbps=$(iperf_tcp $CA $CB 10.200.0.2 $dir)
    else
        gbps=$(iperf_tcp $CB $CA 10.200.0.1 $dir)
    fi
    ps_info "TCP $dir: $gbps Gbit/s"
    if python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 0.05)' "$gbps"
    then
        ps_fail "TCP $dir moved almost nothing: $gbps Gbit/s"
    fi
done
for ns in $CA $CB; do
    bad=$(ps_ns $ns nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
    ps_assert_eq "TCP checksum errors in $ns" 0 "$bad"
done

ps_info "malformed datagrams at rate, beside a sequence-numbered stream"
declare -A junk_src=([truncated]=10.99.0.2 [bad_flags]=10.99.0.2
                     [wrong_vni]=10.99.0.2 [unknown_remote]=10.99.0.3)
declare -A before
for kind in "${!junk_src[@]}"; do
    before[$kind]=$(vxlan_stat "vxlan_$kind")
done
ps_start_seq_stream $CA $CB 10.200.0.2 2000 6
JUNK_N=20000
for kind in "${!junk_src[@]}"; do
    ps_bg "junk-$kind" ps_ns $HB python3 "$PS_LIB_DIR/vxlan-junk.py" "$kind" \
        "${junk_src[$kind]}" 10.99.0.1 4789 42 $JUNK_N 5000
    junk_pids+=("$PS_BG_PID")
done
for pid in "${junk_pids[@]}"; do
    wait "$pid" || ps_fail "vxlan-junk.py exited with status $?"
done
ps_end_seq_stream "stream across the tunnel during the junk" 8000
for kind in "${!junk_src[@]}"; do
    ps_assert_eq "vxlan_$kind drops" $((before[$kind] + JUNK_N)) \
        "$(vxlan_stat "vxlan_$kind")"
done
ps_assert_eq "pmdswitchd still runs" yes \
    "$(ps_daemon_running && echo yes || echo no)"
ps_ping_all $CA 5 10.200.0.2
ps_appctl dpctl/show >&2
ps_stop_daemon

ps_info "key flow: rules set and match tun_id"
cat >"$CONFIG" <<EOF
{
  "bridges": [
    { "name": "br0",
      "ports": [
        { "name": "c1", "interface": "svx-ca-sw" },
        { "name": "vx0", "type": "vxlan",
          "options": { "remote_ip": "10.99.0.2", "key": "flow" } }
      ],
      "rules": [
        { "priority": 100, "match": "in_port=c1",
          "actions": "set_field:42->tun_id,output:vx0" },
        { "priority": 100, "match": "in_port=vx0,tun_id=42",
          "actions": "output:c1" }
      ] }
  ],
  "other_config": { "use-tpacket-v3": $PS_TPACKET,
                    "pmd-cpu-mask": "${PS_PMD_MASK:-0x2}" }
}
EOF
PS_DAEMON_NETNS=$HA ps_start_daemon "$CONFIG"
ip -n $CA neigh flush dev eth0
ip -n $CB neigh flush dev eth0
ps_ping_all $CA 10 10.200.0.2
ps_ping_all $CB 10 10.200.0.1
flows=$(ps_appctl dpctl/dump-flows)
printf '%s\n' "$flows" >&2
grep -q 'tun_id=0x2a,in_port' <<<"$flows" ||
    ps_fail "no megaflow matches tun_id=0x2a from the tunnel"
grep -q 'set(tunnel(tun_id=0x2a))' <<<"$flows" ||
    ps_fail "no megaflow sets tun_id 0x2a towards the tunnel"
stats=$(ps_appctl dpif-netdev/pmd-stats-show)
grep -Eq 'tunnel packets: decapsulated [1-9][0-9]*, encapsulated [1-9]' \
    <<<"$stats" || ps_fail "pmd-stats-show counts no tunnel packets"
trace=$(ps_appctl ofproto/trace br0 in_port=c1,icmp,nw_dst=10.200.0.2)
printf '%s\n' "$trace" >&2
grep -q "encapsulated on vx0: VXLAN VNI 42 (the packet's tun_id)" \
    <<<"$trace" || ps_fail "ofproto/trace shows no encapsulation"
trace=$(ps_appctl ofproto/trace br0 in_port=vx0,tun_id=42,icmp)
printf '%s\n' "$trace" >&2
grep -q "decapsulated on vx0: VXLAN VNI 42 (tun_id=0x2a) from remote_ip 10.99.0.2" \
    <<<"$trace" || ps_fail "ofproto/trace shows no decapsulation"
gbps=$(iperf_tcp $CA $CB 10.200.0.2 flow-a-to-b)
ps_info "TCP a-to-b with key flow: $gbps Gbit/s"
gbps=$(iperf_tcp $CB $CA 10.200.0.1 flow-b-to-a)
ps_info "TCP b-to-a with key flow: $gbps Gbit/s"
# A VNI no rule matches is dropped by the rule table, not forwarded: A's
# container sees none of the junk's frames (ethertype 0x88b5).
rm -f "$PS_LOG_DIR/ready-ca"
ps_bg count-vni43 ps_ns $CA python3 "$PS_LIB_DIR/tag-frames.py" count eth0 \
    "$PS_LOG_DIR/ready-ca" 3
counter=$PS_BG_PID
ps_wait_until 5 test -e "$PS_LOG_DIR/ready-ca" ||
    ps_fail "frame counter in $CA did not start"
ps_ns $HB python3 "$PS_LIB_DIR/vxlan-junk.py" unknown_remote 10.99.0.2 \
    10.99.0.1 4789 43 1000 5000 >/dev/null
wait "$counter" || ps_fail "the frame counter exited with status $?"
ps_assert_eq "frames of VNI 43 that reached A's container" '{}' \
    "$(cat "$PS_LOG_DIR/count-vni43.out")"
ps_stop_daemon
