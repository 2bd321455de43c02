#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: nothing is lost silently.  A floods B with small UDP
# datagrams (iperf3 -u -b 0 -l 64 for 3 s), far more than the switch can
# forward, so frames are dropped somewhere.  After the daemon stops, its
# exit counters must account for every frame:
#
#   - per direction, a frame received on one port was transmitted on the
#     other, counted in that port's tx drop counters, or dropped by the PMD
#     (drop_flow_action, drop_upcall_failed); in total exactly so;
#   - every received frame was parsed and hashed exactly once
#     (extract_calls, rss_hash_computed + rss_hash_kernel);
#   - the kernel agrees: what the switch says it transmitted on a port is
#     what the namespace behind it received, and what it says it received
#     (plus its rx drop counters) bounds what the namespace sent.
#
# To make the kernel's counts exact, the namespaces have IPv6 disabled and
# static neighbour entries, so they send nothing we do not ask for.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3
ps_require_daemon
ps_setup sudp

A=sudp-a
B=sudp-b
for ns in "$A" "$B"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 sudp-a-sw 10.77.3.1/24
ps_add_veth_to_ns "$B" eth0 sudp-b-sw 10.77.3.2/24
ps_ns "$A" ip neigh replace 10.77.3.2 lladdr "$(ps_mac "$B" eth0)" \
    dev eth0 nud permanent
ps_ns "$B" ip neigh replace 10.77.3.1 lladdr "$(ps_mac "$A" eth0)" \
    dev eth0 nud permanent

# kernel_counters: "A_tx A_rx B_tx B_rx" packets on the namespace ends.
kernel_counters()
{
    echo "$(ps_if_stat "$A" eth0 tx_packets) $(ps_if_stat "$A" eth0 rx_packets)" \
        "$(ps_if_stat "$B" eth0 tx_packets) $(ps_if_stat "$B" eth0 rx_packets)"
}

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sudp-a-sw p2=sudp-b-sw
read -r k0_a_tx k0_a_rx k0_b_tx k0_b_rx <<<"$(kernel_counters)"
ps_start_daemon "$CONFIG"

# Teach the switch both MACs, so the flood is unicast, not flooded.
ps_ping_all "$A" 5 10.77.3.2
ps_start_iperf3_server "$B" 10.77.3.2
SERVER=$PS_BG_PID
ps_info "UDP flood A -> B, 64-byte payloads, 3 s"
rc=0
timeout 30 ip netns exec "$A" iperf3 -c 10.77.3.2 -u -b 0 -l 64 -t 3 \
    --connect-timeout 5000 >"$PS_LOG_DIR/iperf-udp.out" 2>&1 || rc=$?
tail -n 6 "$PS_LOG_DIR/iperf-udp.out" >&2
if [[ $rc -ne 0 ]]; then
    ps_fail "iperf3 UDP client exited with status $rc"
fi
ps_kill_bg "$SERVER"
# Let the last frames drain through the switch before stopping it.
sleep 0.5
ps_stop_daemon
read -r k1_a_tx k1_a_rx k1_b_tx k1_b_rx <<<"$(kernel_counters)"
ps_check_log

grep -E '\|stats: ' "$PS_DAEMON_LOG" >&2 || true

# stat_sum KIND [NAME] FIELD...: the sum of ps_stat KIND [NAME] FIELD.
stat_sum()
{
    local -a what=("$1")
    local sum=0 field value
    shift
    if [[ ${what[0]} == port ]]; then
        what+=("$1")
        shift
    fi
    for field in "$@"; do
        value=$(ps_stat "${what[@]}" "$field")
        sum=$((sum + value))
    done
    echo "$sum"
}
# port_drops PORT: the port's tx drop counters, summed.
port_drops()
{
    stat_sum port "$1" tx_queue_full tx_too_big tx_port_down tx_errors
}
# port_rx_drops PORT: the port's rx drop counters, summed.
port_rx_drops()
{
    stat_sum port "$1" rx_ring_full rx_truncated rx_errors
}
rx_a=$(ps_stat port p1 rx_packets)
rx_b=$(ps_stat port p2 rx_packets)
tx_a=$(ps_stat port p1 tx_packets)
tx_b=$(ps_stat port p2 tx_packets)
drops_a=$(port_drops p1)
drops_b=$(port_drops p2)
rx_drops_a=$(port_rx_drops p1)
rx_drops_b=$(port_rx_drops p2)
pmd_drops=$(stat_sum pmd drop_flow_action drop_upcall_failed)
received=$(ps_stat pmd packets_received)
extracted=$(ps_stat pmd extract_calls)
hashed=$(stat_sum pmd rss_hash_computed rss_hash_kernel)

ps_info "p1: rx=$rx_a tx=$tx_a tx_drops=$drops_a rx_drops=$rx_drops_a"
ps_info "p2: rx=$rx_b tx=$tx_b tx_drops=$drops_b rx_drops=$rx_drops_b"
ps_info "pmd: received=$received drops=$pmd_drops extracted=$extracted hashed=$hashed"

((rx_a > 1000)) || ps_fail "p1 rx_packets=$rx_a: the flood did not reach the switch"

ps_assert_eq "total: rx == tx + tx drops + pmd drops" \
    $((rx_a + rx_b)) $((tx_a + tx_b + drops_a + drops_b + pmd_drops))
# check_direction IN RX OUT TX DROPS: every frame received on IN went to OUT
# (as sent or dropped) or was dropped by the PMD.
check_direction()
{
    local handled=$(($4 + $5))
    if ((handled > $2 || $2 > handled + pmd_drops)); then
        ps_fail "$1 -> $3: rx_packets=$2, but tx + tx drops=$handled" \
            "and pmd drops=$pmd_drops"
    fi
    ps_info "ok: $1 -> $3: rx $2 = tx + tx drops $handled" \
        "+ $(($2 - handled)) of $pmd_drops pmd drops"
}
check_direction p1 "$rx_a" p2 "$tx_b" "$drops_b"
check_direction p2 "$rx_b" p1 "$tx_a" "$drops_a"

ps_assert_eq "pmd packets_received == rx_packets of all ports" \
    $((rx_a + rx_b)) "$received"
ps_assert_eq "extract_calls == packets_received" "$received" "$extracted"
ps_assert_eq "rss_hash_computed + rss_hash_kernel == packets_received" \
    "$received" "$hashed"

ps_info "kernel: A sent $((k1_a_tx - k0_a_tx)) received $((k1_a_rx - k0_a_rx))," \
    "B sent $((k1_b_tx - k0_b_tx)) received $((k1_b_rx - k0_b_rx))"
ps_assert_eq "B's kernel rx_packets == p2 tx_packets" "$tx_b" $((k1_b_rx - k0_b_rx))
ps_assert_eq "A's kernel rx_packets == p1 tx_packets" "$tx_a" $((k1_a_rx - k0_a_rx))
# check_sent NS SENT RX RX_DROPS: what the namespace sent is at least what
# the switch received, and at most that plus the switch's rx drops.
check_sent()
{
    if (($2 < $3 || $2 > $3 + $4)); then
        ps_fail "$1 sent $2 frames; switch received $3, rx drops $4"
    fi
    ps_info "ok: $1 sent $2 = switch rx $3 + $(($2 - $3)) of $4 rx drops"
}
check_sent "$A" $((k1_a_tx - k0_a_tx)) "$rx_a" "$rx_drops_a"
check_sent "$B" $((k1_b_tx - k0_b_tx)) "$rx_b" "$rx_drops_b"
ps_info "PASS"
