#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: three "hosts" on one VXLAN overlay (VNI 7).  Each host is a
# namespace on a shared underlay (a Linux bridge in a namespace of its
# own).  Hosts A and B each run their own pmdswitchd, with two containers
# on bridge br0; host C is a Linux bridge with a kernel vxlan device and
# one container.  A's vxlan port lists both B and C in "remote_ip".
#
# B's vxlan port is added at run time with add-port.  Checked: ping
# between every pair of hosts and within A; iperf3 TCP both
# ways between the two pmdswitch hosts with default offloads; broadcast
# and unknown unicast from A reach every other container exactly once
# (head-end replication, one copy per remote); unicast to a MAC learned
# from B goes to B only (C's container, whose bridge would flood it, sees
# none); A's tunnel port changed at run time (set-port) keeps working;
# and a remote whose underlay goes down and comes back, or whose switch
# restarts, works again without touching A.
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3 ethtool
ps_require_daemon
ps_setup svh

UL=svh-ul
HA=svh-ha
HB=svh-hb
HC=svh-hc
ps_add_ns $UL
ip -n $UL link add ul type bridge
ip -n $UL link set ul up

# host NS ADDR: a host on the underlay with address ADDR.
host()
{
    ps_add_ns "$1"
    ps_add_veth_between "$1" ul0 $UL "${1#svh-}"
    ip -n $UL link set "${1#svh-}" master ul
    ip -n "$1" addr add "$2/24" dev ul0
    # A veth keeps the kernel's checksum state: finish checksums before
    # the wire, as a NIC would (see test-vxlan.sh).
    ps_ns "$1" ethtool -K ul0 tx off >/dev/null
}
host $HA 10.98.0.1
host $HB 10.98.0.2
host $HC 10.98.0.3

# container NAME HOST ADDR: a container namespace with eth0 (MTU 1450, as
# the overlay needs) on a veth whose other end, NAME-sw, is in HOST.
container()
{
    ps_add_ns "$1"
    ps_add_veth_between "$1" eth0 "$2" "${1#svh-}-sw"
    ip -n "$1" addr add "$3/24" dev eth0
    ip -n "$1" link set eth0 mtu 1450
}
container svh-a1 $HA 10.201.0.11
container svh-a2 $HA 10.201.0.12
container svh-b1 $HB 10.201.0.21
container svh-b2 $HB 10.201.0.22
container svh-c1 $HC 10.201.0.31

ip -n $HC link add br0 type bridge
ip -n $HC link set br0 up
ip -n $HC link add vx7 type vxlan id 7 dstport 4789 local 10.98.0.3 \
    remote 10.98.0.1 dev ul0
ip -n $HC link set vx7 master br0 up
ip -n $HC link set c1-sw master br0

# config FILE LOCAL REMOTES C1 C2: a host's pmdswitchd config, with vxlan
# port vx0 unless REMOTES is empty.
config()
{
    local vx=''
    if [[ -n "$3" ]]; then
        vx=',
        { "name": "vx0", "type": "vxlan",
          "options": { "remote_ip": '"$3"', "key": 7, "local_ip": "'"$2"'" } }'
    fi
    cat >"$1" <<EOF
{
  "bridges": [
    { "name": "br0",
      "ports": [
        { "name": "c1", "interface": "$4" },
        { "name": "c2", "interface": "$5" }$vx
      ] }
  ],
  "other_config": { "use-tpacket-v3": $PS_TPACKET,
                    "pmd-cpu-mask": "${PS_PMD_MASK:-0x2}" }
}
EOF
}
config "$PS_LOG_DIR/a.json" 10.98.0.1 '["10.98.0.2", "10.98.0.3"]' a1-sw a2-sw
config "$PS_LOG_DIR/b.json" 10.98.0.2 '' b1-sw b2-sw

# The library runs one daemon at a time; these switch between A's and
# B's by saving and restoring its variables.
use_daemon()
{
    local v
    for v in PID CTL LOG PIDFILE; do
        eval "SAVED_${CURRENT_DAEMON:-none}_$v=\${PS_DAEMON_$v:-}"
        eval "PS_DAEMON_$v=\${SAVED_$1_$v:-}"
    done
    CURRENT_DAEMON=$1
}
use_daemon A
PS_DAEMON_NETNS=$HA ps_start_daemon "$PS_LOG_DIR/a.json"
use_daemon B
PS_DAEMON_NETNS=$HB ps_start_daemon "$PS_LOG_DIR/b.json"
# B's tunnel comes at run time, as a user adds one, and stays in b.json
# for the restart below.
ps_appctl add-port br0 vx0 type=vxlan options:remote_ip=10.98.0.1 \
    options:key=7 options:local_ip=10.98.0.2
use_daemon A

ps_info "ping across the overlay"
ps_ping_all svh-a1 5 10.201.0.21
ps_ping_all svh-a2 5 10.201.0.22
ps_ping_all svh-b1 5 10.201.0.12
ps_ping_all svh-a1 5 10.201.0.31
ps_ping_all svh-c1 5 10.201.0.11
ps_ping_all svh-a1 5 10.201.0.12
ps_ping_all svh-a1 5 10.201.0.21 -s 1422 -M "do"
ps_appctl dpctl/show | grep -q 'remote_ip=10.98.0.2,10.98.0.3' ||
    ps_fail "dpctl/show does not list both remotes"

ps_info "TCP both ways between the pmdswitch hosts"
# tcp FROM TO ADDR LABEL: 3 s of iperf3 TCP; fails unless it completes.
tcp()
{
    ps_start_iperf3_server "$2" "$3"
    local server=$PS_BG_PID out=$PS_LOG_DIR/iperf-$4.json
    if ! ps_ns "$1" timeout 20 iperf3 -c "$3" -t 3 -J >"$out"; then
        ps_fail "iperf3 TCP $4 did not complete"
    fi
    ps_kill_bg "$server"
    ps_info "TCP $4: $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("%.2f Gbit/s" % (r["end"]["sum_received"]["bits_per_second"] / 1e9))
' "$out")"
}
tcp svh-a1 svh-b1 10.201.0.21 a-to-b
tcp svh-b2 svh-a2 10.201.0.12 b-to-a

ps_info "flooding reaches each container once; unicast one host only"
N=200
COUNTERS=(svh-a2 svh-b1 svh-b2 svh-c1)
# burst DST TAG: sends N tagged frames from a1 to DST while every other
# container counts what arrives; leaves the counts in counts-TAG-NS.json.
burst()
{
    local ns pids=()
    for ns in "${COUNTERS[@]}"; do
        rm -f "$PS_LOG_DIR/ready-$ns"
        ps_bg "count-$2-$ns" ps_ns "$ns" python3 "$PS_LIB_DIR/tag-frames.py" \
            count eth0 "$PS_LOG_DIR/ready-$ns" 3
        pids+=("$PS_BG_PID")
    done
    for ns in "${COUNTERS[@]}"; do
        ps_wait_until 5 test -e "$PS_LOG_DIR/ready-$ns" ||
            ps_fail "frame counter in $ns did not start"
    done
    ps_ns svh-a1 python3 "$PS_LIB_DIR/tag-frames.py" send eth0 "$1" "$2" $N
    for pid in "${pids[@]}"; do
        wait "$pid" || ps_fail "a frame counter exited with status $?"
    done
}
# got TAG NS FIELD: the count FIELD of tag TAG in NS (0 if none arrived).
got()
{
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get(sys.argv[2], {}).get(sys.argv[3], 0))
' "$PS_LOG_DIR/count-$1-$2.out" "$1" "$3"
}
burst ff:ff:ff:ff:ff:ff bcast
burst 02:99:99:99:99:99 unknown
for tag in bcast unknown; do
    for ns in "${COUNTERS[@]}"; do
        ps_assert_eq "$tag frames at $ns" $N "$(got $tag $ns frames)"
        ps_assert_eq "distinct $tag frames at $ns" $N \
            "$(got $tag $ns distinct)"
    done
done
burst "$(ps_mac svh-b1 eth0)" ucast
ps_assert_eq "unicast frames at b1" $N "$(got ucast svh-b1 frames)"
ps_assert_eq "distinct unicast frames at b1" $N "$(got ucast svh-b1 distinct)"
for ns in svh-a2 svh-b2 svh-c1; do
    ps_assert_eq "unicast frames for b1 at $ns" 0 "$(got ucast $ns frames)"
done

ps_info "a running tunnel port changed: new TTL, remotes in another order"
ps_appctl set-port vx0 options:ttl=32 \
    'options:remote_ip=10.98.0.3,10.98.0.2'
ps_appctl dpctl/show | grep -q 'remote_ip=10.98.0.3,10.98.0.2' ||
    ps_fail "dpctl/show does not show the changed remotes"
ps_appctl dpctl/show | grep -q 'ttl=32' ||
    ps_fail "dpctl/show does not show the new TTL"
ps_ping_all svh-a1 5 10.201.0.21
ps_ping_all svh-a1 5 10.201.0.31

ps_info "a remote's underlay goes down and comes back"
ip -n $HB link set ul0 down
if ps_ns svh-a1 ping -c 2 -i 0.2 -W 1 10.201.0.21 >/dev/null 2>&1; then
    ps_fail "ping to b1 went through with B's underlay down"
fi
ps_ping_all svh-a1 3 10.201.0.31
ip -n $HB link set ul0 up
ps_wait_until 10 ps_ns svh-a1 ping -c 1 -W 1 10.201.0.21 >/dev/null ||
    ps_fail "b1 unreachable after B's underlay came back"
ps_ping_all svh-a1 5 10.201.0.21

ps_info "the remote switch restarts"
use_daemon B
ps_stop_daemon
use_daemon A
ps_ping_all svh-a1 3 10.201.0.31
use_daemon B
PS_DAEMON_NETNS=$HB ps_start_daemon "$PS_LOG_DIR/b.json"
use_daemon A
ps_wait_until 10 ps_ns svh-a1 ping -c 1 -W 1 10.201.0.21 >/dev/null ||
    ps_fail "b1 unreachable after B's switch restarted"
ps_ping_all svh-a1 5 10.201.0.21
ps_appctl dpctl/show >&2

ps_stop_daemon
use_daemon B
ps_stop_daemon
