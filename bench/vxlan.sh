#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Benchmark: two containers on two "hosts" joined by a VXLAN overlay (VNI
# 42), with pmdswitch on both hosts against a Linux bridge and a kernel
# vxlan device on both hosts, in the same run, taking turns.  Namespaces:
# hosts bvx-ha and bvx-hb on an underlay veth (10.97.0.1 and .2, MTU
# 1500, tx checksum offload off as a NIC would finish checksums), and
# containers bvx-ca and bvx-cb (10.202.0.1 and .2, MTU 1450) on veths to
# their host.  pmdswitchd on host A polls on core 1, on host B on core 0
# (the machine has two); the kernel's vxlan runs in softirq wherever the
# frames are.
#
# Workloads, ROUNDS times per setup (default 3), for SECONDS each (default
# 5): iperf3 TCP from A to B and from B to A with default offloads
# (receiver's Gbit/s), and 64-byte frames of one UDP flow from iperf3 in A
# (18-byte payloads, unlimited rate): frames per second B's eth0 received.
# Prints each sample, then the medians and pmdswitch's ratio to the kernel.
#
# Usage: vxlan.sh [SECONDS [ROUNDS]]
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).
# Needs root; uses only the namespaces it creates.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"
SECONDS_EACH=${1:-5}
ROUNDS=${2:-3}

ps_require_root
ps_require_cmds ip iperf3 python3 ethtool
ps_require_daemon
ps_setup bvx
HA=bvx-ha
HB=bvx-hb
CA=bvx-ca
CB=bvx-cb
for ns in $HA $HB $CA $CB; do
    ps_add_quiet_ns $ns
done
ps_add_veth_between $HA ul0 $HB ul0
ip -n $HA addr add 10.97.0.1/24 dev ul0
ip -n $HB addr add 10.97.0.2/24 dev ul0
for h in $HA $HB; do
    ps_ns $h ethtool -K ul0 tx off >/dev/null
done
ps_add_veth_between $CA eth0 $HA ca-sw
ps_add_veth_between $CB eth0 $HB cb-sw
ip -n $CA addr add 10.202.0.1/24 dev eth0
ip -n $CB addr add 10.202.0.2/24 dev eth0
ip -n $CA link set eth0 mtu 1450
ip -n $CB link set eth0 mtu 1450

# kernel_setup up|down: the Linux bridge and kernel vxlan on both hosts.
kernel_setup()
{
    local h local remote sw
    for h in $HA $HB; do
        if [[ $h == "$HA" ]]; then
            local=10.97.0.1 remote=10.97.0.2 sw=ca-sw
        else
            local=10.97.0.2 remote=10.97.0.1 sw=cb-sw
        fi
        if [[ $1 == up ]]; then
            ip -n $h link add br0 type bridge
            ip -n $h link add vx42 type vxlan id 42 dstport 4789 \
                local $local remote $remote dev ul0
            ip -n $h link set vx42 master br0 up
            ip -n $h link set $sw master br0
            ip -n $h link set br0 up
        else
            ip -n $h link del vx42
            ip -n $h link del br0
        fi
    done
}

# pmdswitch_setup up|down: pmdswitchd on both hosts.
pmdswitch_setup()
{
    local h local remote sw mask pidfile
    for h in $HA $HB; do
        if [[ $h == "$HA" ]]; then
            local=10.97.0.1 remote=10.97.0.2 sw=ca-sw mask=0x2
        else
            local=10.97.0.2 remote=10.97.0.1 sw=cb-sw mask=0x1
        fi
        pidfile=$PS_LOG_DIR/$h.pid
        if [[ $1 == down ]]; then
            kill -TERM "$(cat "$pidfile")"
            ps_wait_until 5 test ! -e "$pidfile" ||
                ps_fail "pmdswitchd in $h did not stop"
            continue
        fi
        cat >"$PS_LOG_DIR/$h.json" <<EOF
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "c", "interface": "$sw" },
    { "name": "vx0", "type": "vxlan",
      "options": { "remote_ip": "$remote", "key": 42, "local_ip": "$local" } }
  ] } ],
  "other_config": { "pmd-cpu-mask": "$mask" } }
EOF
        ps_ns $h "$PS_DAEMON" --config "$PS_LOG_DIR/$h.json" \
            --pidfile="$pidfile" --log-file="$PS_LOG_DIR/$h.log" \
            --unixctl="$PS_LOG_DIR/$h.ctl" --detach 2>"$PS_LOG_DIR/$h.stderr"
        ps_record_pid "$(cat "$pidfile")"
    done
}

# tcp FROM TO ADDR: receiver's Gbit/s of SECONDS_EACH of iperf3 TCP.
tcp()
{
    local out=$PS_LOG_DIR/iperf.json
    ps_start_iperf3_server "$2" "$3"
    local server=$PS_BG_PID
    ps_ns "$1" iperf3 -c "$3" -t "$SECONDS_EACH" -J >"$out"
    ps_kill_bg "$server"
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("%.2f" % (r["end"]["sum_received"]["bits_per_second"] / 1e9))
' "$out"
}

# udp64: frames per second B's eth0 received from a 64-byte UDP flood.
udp64()
{
    ps_start_iperf3_server $CB 10.202.0.2
    local server=$PS_BG_PID before after
    before=$(ps_if_stat $CB eth0 rx_packets)
    ps_ns $CA iperf3 -c 10.202.0.2 -u -b 0 -l 18 -t "$SECONDS_EACH" \
        >/dev/null
    after=$(ps_if_stat $CB eth0 rx_packets)
    ps_kill_bg "$server"
    echo $(((after - before) / SECONDS_EACH))
}

RESULTS=$PS_LOG_DIR/results.txt
: >"$RESULTS"
for ((round = 1; round <= ROUNDS; round++)); do
    for setup in kernel pmdswitch; do
        "${setup}_setup" up
        ps_wait_until 10 ps_ns $CA ping -c 1 -W 1 10.202.0.2 >/dev/null ||
            ps_fail "$setup: no ping across the overlay"
        a_to_b=$(tcp $CA $CB 10.202.0.2)
        b_to_a=$(tcp $CB $CA 10.202.0.1)
        pps=$(udp64)
        "${setup}_setup" down
        printf '%s %s %s %s\n' "$setup" "$a_to_b" "$b_to_a" "$pps" |
            tee -a "$RESULTS"
    done
done
python3 - "$RESULTS" <<'EOF'
import statistics
import sys

rows = [line.split() for line in open(sys.argv[1])]
med = {}
for setup in ("kernel", "pmdswitch"):
    cols = [[float(r[i]) for r in rows if r[0] == setup] for i in (1, 2, 3)]
    med[setup] = [statistics.median(c) for c in cols]
print("| setup | TCP A->B Gbit/s | TCP B->A Gbit/s | 64B UDP frames/s |")
print("|---|---|---|---|")
for setup in ("kernel", "pmdswitch"):
    m = med[setup]
    print("| %s | %.2f | %.2f | %.0f |" % (setup, m[0], m[1], m[2]))
k, p = med["kernel"], med["pmdswitch"]
print("| pmdswitch / kernel | %.2fx | %.2fx | %.2fx |"
      % (p[0] / k[0], p[1] / k[1], p[2] / k[2]))
EOF
