#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: per-port VLAN modes in NORMAL.  Four namespaces sit on four
# switch ports:
#
#   A  p1  access VLAN 10           eth0 10.79.20.1/24
#   B  p2  access VLAN 20           eth0 10.79.21.2/24, and 10.79.20.2/24 (an
#                                   address in A's subnet, so that a leak
#                                   between the VLANs would answer)
#   T  p3  trunk of VLANs 10 and 20 svln-t10 10.79.20.3/24 (plays eth0.10),
#                                   svln-t20 10.79.21.3/24 (plays eth0.20)
#   N  p4  native-untagged VLAN 10  eth0 10.79.20.4/24, untagged
#
# T's VLAN interfaces are emulated: the kernel the tests run on, here and
# in CI, is built without CONFIG_VLAN_8021Q (and without bridge VLAN
# filtering or tc's vlan action), so "ip link add ... type vlan" fails.
# Instead each VLAN has a veth pair inside T, svln-tVID <-> svln-tVIDh, and
# tests/system/trunk-peer.py relays between T's eth0 (the trunk) and the
# svln-tVIDh ends: it pops the tag of a frame of VLAN VID from the trunk,
# pushes one on a frame from svln-tVID, and counts (and drops) untagged
# frames and frames of other VLANs from the trunk.  svln-t10 and svln-t20
# take eth0's MAC, as VLAN subinterfaces would.
#
# A, N and T's VLAN 10 reach each other, B and T's VLAN 20 reach each
# other (the switch pushes and pops tags between access and trunk ports),
# also with full-sized frames; A can reach neither B nor T's VLAN 20, and B
# receives nothing while A broadcasts ARP requests for B's address.  The
# relay must have dropped nothing: the switch sent T only frames of VLANs
# 10 and 20, each tagged.  fdb/show lists each MAC in its VLAN: A's in 10,
# B's in 20, T's in both.  Tagged frames on the access port p1 (crafted
# with python3, since A cannot have a VLAN device either) are dropped and
# counted (coverage normal_drop_vlan_not_allowed), and ofproto/trace says
# why.  IPv6 is off in the namespaces and T answers ARP only on the
# interface that owns the address.  The leak checks count A's broadcasts
# seen by python3 sniffers in B and T (with one in N as a control), not
# all received frames: the neighbour tables send unicast ARP probes at
# times the test does not control.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping arping python3
ps_require_daemon
ps_setup svln

A=svln-a
B=svln-b
T=svln-t
N=svln-n
for ns in "$A" "$B" "$T" "$N"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 svln-a-sw 10.79.20.1/24
ps_add_veth_to_ns "$B" eth0 svln-b-sw 10.79.21.2/24
ps_add_veth_to_ns "$T" eth0 svln-t-sw
ps_add_veth_to_ns "$N" eth0 svln-n-sw 10.79.20.4/24
ps_ns "$B" ip addr add 10.79.20.2/24 dev eth0
MAC_T=$(ps_mac "$T" eth0)
for vid in 10 20; do
    # IPv6 stays off: the quiet namespace's default applies.
    ps_add_veth_between "$T" "svln-t$vid" "$T" "svln-t${vid}h"
    ps_ns "$T" ip link set dev "svln-t$vid" address "$MAC_T"
done
# Without this, T would answer on svln-t10 an ARP request for its VLAN 20
# address, which would look like a leak.
ps_ns "$T" sysctl -q -w net.ipv4.conf.all.arp_ignore=1
ps_ns "$T" ip addr add 10.79.20.3/24 dev svln-t10
ps_ns "$T" ip addr add 10.79.21.3/24 dev svln-t20
MAC_A=$(ps_mac "$A" eth0)
MAC_B=$(ps_mac "$B" eth0)
MAC_N=$(ps_mac "$N" eth0)

PEER_READY=$PS_LOG_DIR/trunk-peer.ready
ps_bg trunk-peer ip netns exec "$T" python3 "$PS_LIB_DIR/trunk-peer.py" \
    --trunk eth0 --vlan 10=svln-t10h --vlan 20=svln-t20h \
    --ready "$PEER_READY"
PEER_PID=$PS_BG_PID
if ! ps_wait_until 5 test -s "$PEER_READY"; then
    cat "$PS_LOG_DIR/trunk-peer.out" >&2
    ps_fail "trunk-peer.py did not get ready"
fi

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" \
    p1=svln-a-sw,tag=10 \
    p2=svln-b-sw,tag=20 \
    p3=svln-t-sw,trunks=10:20 \
    p4=svln-n-sw,vlan_mode=native-untagged,tag=10
ps_start_daemon "$CONFIG"

ps_info "reachability within each VLAN"
ps_ping_all "$A" 10 10.79.20.3
ps_ping_all "$T" 10 10.79.20.1
ps_ping_all "$B" 10 10.79.21.3
ps_ping_all "$T" 10 10.79.21.2
ps_ping_all "$N" 10 10.79.20.1
ps_ping_all "$N" 10 10.79.20.3
ps_ping_all "$A" 10 10.79.20.4 -s 1472 -M "do"
# Full-sized frames cross the trunk whole, with their tag.
ps_ping_all "$A" 10 10.79.20.3 -s 1472 -M "do"
ps_ping_all "$T" 10 10.79.21.2 -s 1472 -M "do"

# The leak checks count only the broadcasts they watch for, not all
# received frames: the namespaces' neighbour tables send unicast ARP probes
# a few seconds after the pings above, at times the test does not control.
#
# sniff_start NS MAC NAME: starts counting, in the background, the
# broadcast frames from MAC that arrive on NS's eth0 (tagged or not), and
# waits until the socket is bound.  sniff_stop NAME then stops it and sets
# SNIFF_COUNT to the count.  Both must run in the test's own shell.
declare -A SNIFF_PIDS=()
sniff_start()
{
    local ready=$PS_LOG_DIR/$3.ready
    rm -f -- "$ready"
    ps_bg "$3" ip netns exec "$1" python3 -c '
import signal, socket, sys
mac = bytes.fromhex(sys.argv[1].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
s.bind(("eth0", 0x0003))
open(sys.argv[2], "w").write("ready\n")
def stop(signum, frame):
    raise SystemExit(0)
signal.signal(signal.SIGTERM, stop)
n = 0
try:
    while True:
        data, addr = s.recvfrom(65536)
        if (addr[2] != socket.PACKET_OUTGOING and data[:6] == b"\xff" * 6
                and data[6:12] == mac):
            n += 1
finally:
    print(n, flush=True)' "$2" "$ready"
    SNIFF_PIDS[$3]=$PS_BG_PID
    ps_wait_until 5 test -s "$ready" || ps_fail "sniffer $3 did not start"
}

sniff_stop()
{
    ps_kill_bg "${SNIFF_PIDS[$1]}"
    SNIFF_COUNT=$(tail -n 1 "$PS_LOG_DIR/$1.out")
}

ps_info "isolation between VLANs"
# arp_replies NS IP COUNT [IFNAME]: replies to COUNT ARP requests (1 s
# apart) that NS sends for IP out of IFNAME (default eth0).
arp_replies()
{
    local out
    out=$(ps_ns "$1" arping -c "$3" -w "$(($3 + 2))" -I "${4:-eth0}" "$2" \
        2>&1) || true
    printf '%s\n' "$out" | sed 's/^/    /' >&2
    sed -n 's/^Received \([0-9][0-9]*\) response.*/\1/p' <<<"$out"
}
sniff_start "$B" "$MAC_A" sniff-b
# N, in A's VLAN, shows that the sniffers see A's broadcasts.
sniff_start "$N" "$MAC_A" sniff-n
ps_assert_eq "replies to A for B's address in A's subnet" 0 \
    "$(arp_replies "$A" 10.79.20.2 3)"
ps_assert_eq "replies to A for T's VLAN 20 address" 0 \
    "$(arp_replies "$A" 10.79.21.3 2)"
sniff_stop sniff-b
ps_assert_eq "broadcasts from A that B received" 0 "$SNIFF_COUNT"
sniff_stop sniff-n
ps_assert_eq "broadcasts from A that N received" 5 "$SNIFF_COUNT"
ps_assert_eq "replies to B for A's address" 0 \
    "$(arp_replies "$B" 10.79.20.1 2)"
if ps_ns "$A" ping -n -q -c 2 -i 0.2 -W 1 10.79.20.2 >/dev/null 2>&1; then
    ps_fail "A reached B's address across VLANs"
fi
ps_info "ok: A cannot reach B"

ps_info "fdb/show"
ps_appctl fdb/show br0 >&2
fdb=$(ps_appctl -f json fdb/show br0)
# fdb_has MAC VLAN PORT: true if the MAC table has MAC in VLAN on PORT.
fdb_has()
{
    python3 -c 'import json, sys
rows = json.loads(sys.argv[1])
sys.exit(0 if any(r["mac"] == sys.argv[2] and r["vlan"] == int(sys.argv[3])
                  and r["port"] == sys.argv[4] for r in rows) else 1)' \
        "$fdb" "$@"
}
# fdb_vlans MAC: the VLANs the MAC table has MAC in, sorted.
fdb_vlans()
{
    python3 -c 'import json, sys
rows = json.loads(sys.argv[1])
print(" ".join(str(v) for v in
               sorted(r["vlan"] for r in rows if r["mac"] == sys.argv[2])))' \
        "$fdb" "$1"
}
fdb_has "$MAC_A" 10 p1 || ps_fail "fdb/show: A is not in VLAN 10 on p1"
fdb_has "$MAC_B" 20 p2 || ps_fail "fdb/show: B is not in VLAN 20 on p2"
fdb_has "$MAC_T" 10 p3 || ps_fail "fdb/show: T is not in VLAN 10 on p3"
fdb_has "$MAC_T" 20 p3 || ps_fail "fdb/show: T is not in VLAN 20 on p3"
fdb_has "$MAC_N" 10 p4 || ps_fail "fdb/show: N is not in VLAN 10 on p4"
ps_assert_eq "VLANs of A's MAC" 10 "$(fdb_vlans "$MAC_A")"
ps_assert_eq "VLANs of B's MAC" 20 "$(fdb_vlans "$MAC_B")"
ps_assert_eq "VLANs of T's MAC" "10 20" "$(fdb_vlans "$MAC_T")"
# The text form has the access port's VLAN in the VLAN column.
ps_appctl fdb/show br0 |
    awk -v mac="$MAC_A" '$2 == 10 && $3 == mac { found = 1 }
                         END { exit !found }' ||
    ps_fail "fdb/show text: no row for A in VLAN 10"

ps_info "tagged frames on an access port"
# coverage_total NAME: the total of coverage counter NAME (0 if unset).
coverage_total()
{
    python3 -c 'import json, sys
print(json.loads(sys.argv[1]).get(sys.argv[2], {}).get("total", 0))' \
        "$(ps_appctl -f json coverage/show)" "$1"
}
# tagged_arp NS VID SRC_IP DST_IP COUNT: sends COUNT broadcast ARP
# requests for DST_IP from SRC_IP, tagged with VID, out of NS's eth0 (0.2 s
# apart), listens 1 s more and prints how many ARP replies to SRC_IP came
# back, tagged or not.  Crafted by hand: there are no VLAN devices here.
tagged_arp()
{
    ip netns exec "$1" python3 - "${@:2}" <<'EOF'
import socket, struct, sys, time
vid, src_ip, dst_ip, count = sys.argv[1:]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
s.bind(("eth0", 0x0003))
mac = s.getsockname()[4]
arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, mac,
                  socket.inet_aton(src_ip), bytes(6),
                  socket.inet_aton(dst_ip))
frame = (b"\xff" * 6 + mac + struct.pack("!HHH", 0x8100, int(vid), 0x0806)
         + arp).ljust(64, b"\0")
s.settimeout(0.1)
replies = 0
deadline = time.monotonic() + 0.2 * int(count) + 1
next_send, sent = time.monotonic(), 0
while time.monotonic() < deadline:
    if sent < int(count) and time.monotonic() >= next_send:
        s.send(frame)
        sent += 1
        next_send += 0.2
    try:
        data, addr = s.recvfrom(2048)
    except socket.timeout:
        continue
    if addr[2] == socket.PACKET_OUTGOING or len(data) < 42:
        continue
    # The kernel passes a received tag as metadata, so an ARP reply looks
    # untagged here either way; a tag left inline is skipped.
    off = 16 if data[12:14] == b"\x81\x00" else 12
    if (data[off:off + 2] == b"\x08\x06"
            and data[off + 8:off + 10] == b"\x00\x02"
            and data[off + 26:off + 30] == socket.inet_aton(src_ip)):
        replies += 1
print(replies)
EOF
}
# Control: the same requests from the trunk, where VLAN 10 is allowed, are
# answered by A (the switch pops the tag towards A and pushes it back).
ps_assert_eq "replies to T's ARP requests tagged 10 on the trunk" 2 \
    "$(tagged_arp "$T" 10 10.79.20.3 10.79.20.1 2)"
before=$(coverage_total normal_drop_vlan_not_allowed)
sniff_start "$T" "$MAC_A" sniff-t
# Were they let through, T (VLAN 10) and B (VLAN 20) would answer.
ps_assert_eq "replies to A's ARP requests tagged 10" 0 \
    "$(tagged_arp "$A" 10 10.79.20.1 10.79.20.3 2)"
ps_assert_eq "replies to A's ARP requests tagged 20" 0 \
    "$(tagged_arp "$A" 20 10.79.21.9 10.79.21.2 2)"
sniff_stop sniff-t
ps_assert_eq "broadcasts from A that T received" 0 "$SNIFF_COUNT"
after=$(coverage_total normal_drop_vlan_not_allowed)
((after > before)) ||
    { ps_show_switch_counters; ps_fail "normal_drop_vlan_not_allowed did \
not grow ($before -> $after)"; }
out=$(ps_appctl ofproto/trace br0 \
    "in_port=p1,dl_vlan=20,dl_src=$MAC_A,dl_dst=ff:ff:ff:ff:ff:ff")
printf '%s\n' "$out" >&2
grep -q "port p1 (access vlan 10) does not accept tagged vlan 20, dropping" \
    <<<"$out" || ps_fail "trace: no reason for the drop"
ps_assert_eq "datapath actions of a tagged frame on p1" \
    "Datapath actions: drop" "$(grep '^Datapath actions:' <<<"$out")"

ps_info "trunk relay counters"
ps_kill_bg "$PEER_PID"
cat "$PS_LOG_DIR/trunk-peer.out" >&2
# peer_count FIELD [VID]: a counter from trunk-peer.py's exit report.
peer_count()
{
    local line
    if [[ $# -eq 2 ]]; then
        line=$(grep "^vlan $2: " "$PS_LOG_DIR/trunk-peer.out") || true
    else
        line=$(grep '^dropped: ' "$PS_LOG_DIR/trunk-peer.out") || true
    fi
    sed -n "s/.* $1=\\([0-9][0-9]*\\).*/\\1/p" <<<"$line"
}
for vid in 10 20; do
    n=$(peer_count trunk_to_vlan "$vid")
    ((${n:-0} > 0)) || ps_fail "relay passed no frame from the trunk to \
VLAN $vid"
    n=$(peer_count vlan_to_trunk "$vid")
    ((${n:-0} > 0)) || ps_fail "relay passed no frame from VLAN $vid to \
the trunk"
done
ps_assert_eq "untagged frames the switch sent on the trunk" 0 \
    "$(peer_count untagged)"
ps_assert_eq "frames of other VLANs the switch sent on the trunk" 0 \
    "$(peer_count other_vid)"
ps_assert_eq "oversized frames at the relay" 0 "$(peer_count oversize)"
ps_assert_eq "frames the relay failed to send" 0 "$(peer_count send_error)"

ps_stop_daemon
ps_check_log
ps_info "PASS"
