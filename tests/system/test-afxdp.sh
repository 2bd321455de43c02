#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: "afxdp" ports.  Two namespaces joined through the switch by
# veth pairs whose switch ends are afxdp ports (native XDP, copy mode).
# The namespaces turn tx checksumming off on their eth0: AF_XDP hands the
# switch checksum-partial frames with no flag, which the receiver would
# drop.  Checks: dpctl/show (text and JSON) says type afxdp; pings both
# ways; a modest UDP stream (about 2000 datagrams/s for 3 s) loses nothing
# but what B's own kernel drops, and the port counters in dpctl/show match
# each other and the kernel's; a TCP stream works; no drop counter moved;
# a reload that changes an afxdp port is refused with nothing changed,
# and removing the port and adding it back in two reloads works; p1
# follows its interface through 5 deletions and re-creations (reopened
# each time, no descriptor leaked) and a link flap.
#
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 ethtool python3
ps_require_daemon
ps_setup sxdafx

A=sxdafx-a
B=sxdafx-b
for ns in "$A" "$B"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 sxdafx-a-sw 10.77.9.1/24
ps_add_veth_to_ns "$B" eth0 sxdafx-b-sw 10.77.9.2/24
ps_ns "$A" ip neigh replace 10.77.9.2 lladdr "$(ps_mac "$B" eth0)" \
    dev eth0 nud permanent
ps_ns "$B" ip neigh replace 10.77.9.1 lladdr "$(ps_mac "$A" eth0)" \
    dev eth0 nud permanent
for ns in "$A" "$B"; do
    ps_ns "$ns" ethtool -K eth0 tx off >/dev/null
done

# write_config PORT...: writes $CONFIG with afxdp port p1 on sxdafx-a-sw
# and p2 on sxdafx-b-sw, each PORT being "p1", "p2" or "p1:tag=N".
# (ps_write_config knows no afxdp ports.)
CONFIG=$PS_LOG_DIR/config.json
write_config()
{
    python3 - "$CONFIG" "${PS_PMD_MASK:-0x2}" "$@" <<'EOF'
import json
import sys

path, mask = sys.argv[1:3]
ifaces = {"p1": "sxdafx-a-sw", "p2": "sxdafx-b-sw"}
ports = []
for arg in sys.argv[3:]:
    name, _, opt = arg.partition(":")
    port = {"name": name, "interface": ifaces[name], "type": "afxdp"}
    if name == "p2":
        port["options"] = {"xdp-mode": "native"}
    if opt.startswith("tag="):
        port["tag"] = int(opt[4:])
    ports.append(port)
config = {"bridges": [{"name": "br0", "ports": ports}],
          "other_config": {"pmd-cpu-mask": mask}}
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
EOF
}
write_config p1 p2
ps_start_daemon "$CONFIG"
PS_LOG_ALLOW+=('config reload from .* failed, nothing changed'
               'port p1: interface sxdafx-a-sw is gone')

if ! ps_appctl dpctl/show >"$PS_LOG_DIR/show-0.txt" 2>&1; then
    cat "$PS_LOG_DIR/show-0.txt" >&2
    ps_fail "dpctl/show failed"
fi
for p in "p1 (sxdafx-a-sw, afxdp," "p2 (sxdafx-b-sw, afxdp,"; do
    grep -qF "$p" "$PS_LOG_DIR/show-0.txt" ||
        ps_fail "dpctl/show lacks '$p': $(cat "$PS_LOG_DIR/show-0.txt")"
done

# counters: "p1_rx p1_tx p2_rx p2_tx drops" from dpctl/show's JSON, drops
# being every rx and tx drop counter of both ports, summed.
counters()
{
    ps_appctl -f json dpctl/show | python3 -c '
import json, sys
d = json.load(sys.stdin)
ports = {p["name"]: p for p in d["ports"]}
for p in ("p1", "p2"):
    if ports[p]["type"] != "afxdp":
        sys.exit("port %s has type %s" % (p, ports[p]["type"]))
drops = sum(ports[p][k] for p in ("p1", "p2")
            for k in ("rx_ring_full", "rx_truncated", "rx_errors",
                      "tx_queue_full", "tx_too_big", "tx_port_down",
                      "tx_errors"))
print(ports["p1"]["rx_packets"], ports["p1"]["tx_packets"],
      ports["p2"]["rx_packets"], ports["p2"]["tx_packets"], drops)'
}

ps_info "ping"
ps_ping_all "$A" 20 10.77.9.2
ps_ping_all "$B" 20 10.77.9.1
ps_ping_all "$A" 5 10.77.9.2 -s 1472 -M "do"

ps_info "UDP: 64-byte datagrams, about 2000/s for 3 s"
ps_start_iperf3_server "$B" 10.77.9.2
SERVER=$PS_BG_PID
read -r c0_p1_rx c0_p1_tx c0_p2_rx c0_p2_tx c0_drops <<<"$(counters)"
k0_b_rx=$(ps_if_stat "$B" eth0 rx_packets)
k0_a_rx=$(ps_if_stat "$A" eth0 rx_packets)
rdrops0=$(ps_receiver_drops "$B")
rc=0
timeout 30 ip netns exec "$A" iperf3 -c 10.77.9.2 -u -b 1024K -l 64 -t 3 \
    -J --connect-timeout 5000 >"$PS_LOG_DIR/iperf-udp.json" 2>&1 || rc=$?
# The last datagrams and the control connection's close drain.
sleep 0.5
read -r c1_p1_rx c1_p1_tx c1_p2_rx c1_p2_tx c1_drops <<<"$(counters)"
k1_b_rx=$(ps_if_stat "$B" eth0 rx_packets)
k1_a_rx=$(ps_if_stat "$A" eth0 rx_packets)
rdrops=$(($(ps_receiver_drops "$B") - rdrops0))
read -r sent lost <<<"$(python3 -c '
import json, sys
try:
    s = json.load(open(sys.argv[1]))["end"]["sum"]
    print(s["packets"], s["lost_packets"])
except (ValueError, KeyError):
    print("0 -1")' "$PS_LOG_DIR/iperf-udp.json")"
if [[ $rc -ne 0 || $sent -lt 5000 ]]; then
    head -c 3000 "$PS_LOG_DIR/iperf-udp.json" >&2
    ps_fail "iperf3 UDP: exit $rc, $sent datagrams sent"
fi
# What B's own kernel dropped (its socket buffer overflowing when the
# machine is busy) is not the switch's doing.
ps_info "UDP: $sent datagrams sent, $lost lost, $rdrops dropped by B"
ps_assert_eq "UDP datagrams lost by the switch" 0 $((lost - rdrops))
d_p1_rx=$((c1_p1_rx - c0_p1_rx))
d_p2_tx=$((c1_p2_tx - c0_p2_tx))
d_p2_rx=$((c1_p2_rx - c0_p2_rx))
d_p1_tx=$((c1_p1_tx - c0_p1_tx))
ps_info "p1 rx $d_p1_rx -> p2 tx $d_p2_tx; p2 rx $d_p2_rx -> p1 tx $d_p1_tx"
((d_p1_rx >= sent)) ||
    ps_fail "p1 received $d_p1_rx frames, fewer than $sent datagrams"
ps_assert_eq "p2 tx_packets == p1 rx_packets" "$d_p1_rx" "$d_p2_tx"
ps_assert_eq "p1 tx_packets == p2 rx_packets" "$d_p2_rx" "$d_p1_tx"
ps_assert_eq "B's kernel rx_packets == p2 tx_packets" "$d_p2_tx" \
    $((k1_b_rx - k0_b_rx))
ps_assert_eq "A's kernel rx_packets == p1 tx_packets" "$d_p1_tx" \
    $((k1_a_rx - k0_a_rx))
ps_assert_eq "drop counters moved by" 0 $((c1_drops - c0_drops))

ps_info "TCP, tx checksumming off in the namespaces"
rc=0
timeout 30 ip netns exec "$A" iperf3 -c 10.77.9.2 -t 3 -J \
    --connect-timeout 5000 >"$PS_LOG_DIR/iperf-tcp.json" 2>&1 || rc=$?
read -r bytes bps <<<"$(python3 -c '
import json, sys
try:
    s = json.load(open(sys.argv[1]))["end"]["sum_received"]
    print(s["bytes"], int(s["bits_per_second"]))
except (ValueError, KeyError):
    print("0 0")' "$PS_LOG_DIR/iperf-tcp.json")"
if [[ $rc -ne 0 || $bytes -le 0 ]]; then
    head -c 3000 "$PS_LOG_DIR/iperf-tcp.json" >&2
    ps_fail "iperf3 TCP: exit $rc, $bytes bytes received"
fi
ps_info "TCP: $bytes bytes, $((bps / 1000000)) Mbit/s"
ps_kill_bg "$SERVER"

# An afxdp port cannot be changed in place: the new port would need the
# queue the old one holds.  The reload is refused and nothing changes;
# removing the port in one reload and adding it in the next works.
ps_info "reloads: change refused, remove and add back"
write_config p1:tag=5 p2
rc=0
ps_appctl config/reload >/dev/null 2>"$PS_LOG_DIR/err" || rc=$?
ps_assert_eq "status of a reload that changes p1" 2 "$rc"
grep -qF "remove the port in one reload" "$PS_LOG_DIR/err" ||
    ps_fail "reload error \"$(cat "$PS_LOG_DIR/err")\" lacks the way out"
ps_ping_all "$A" 3 10.77.9.2
write_config p2
ps_assert_eq "reload without p1" "ports removed: p1" \
    "$(ps_appctl config/reload)"
if ip link show dev sxdafx-a-sw | grep -q ' xdp'; then
    ps_fail "XDP program left on sxdafx-a-sw after p1 went"
fi
write_config p1 p2
ps_assert_eq "reload with p1" "ports added: p1" "$(ps_appctl config/reload)"
ps_ping_all "$A" 5 10.77.9.2
ps_ping_all "$B" 5 10.77.9.1

# p1_state: p1's state in dpctl/show.
p1_state()
{
    ps_appctl -f json dpctl/show | python3 -c '
import json, sys
print([p["state"] for p in json.load(sys.stdin)["ports"]
       if p["name"] == "p1"][0])'
}
# wait_p1_state STATE: fails unless p1 reaches STATE within 5 s.
wait_p1_state()
{
    local state deadline=$((SECONDS + 5))
    while state=$(p1_state); [[ $state != "$1" ]]; do
        ((SECONDS < deadline)) || ps_fail "p1 is $state, not $1, after 5 s"
        sleep 0.05
    done
}
n_fds()
{
    find "/proc/$PS_DAEMON_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

ps_info "p1's interface deleted and re-created 5 times, then a link flap"
fds_first=
for ((i = 1; i <= 5; i++)); do
    ip link del sxdafx-a-sw
    wait_p1_state missing
    ps_add_veth_to_ns "$A" eth0 sxdafx-a-sw 10.77.9.1/24
    ps_ns "$A" ethtool -K eth0 tx off >/dev/null
    ps_ns "$A" ip neigh replace 10.77.9.2 lladdr "$(ps_mac "$B" eth0)" \
        dev eth0 nud permanent
    ps_ns "$B" ip neigh replace 10.77.9.1 lladdr "$(ps_mac "$A" eth0)" \
        dev eth0 nud permanent
    wait_p1_state up
    ps_ping_all "$A" 2 10.77.9.2
    if ((i == 1)); then
        fds_first=$(n_fds)
    fi
done
ps_assert_eq "daemon's descriptors after 5 reopenings" "$fds_first" \
    "$(n_fds)"
ip link set dev sxdafx-a-sw down
wait_p1_state down
ip link set dev sxdafx-a-sw up
wait_p1_state up
ps_ping_all "$A" 3 10.77.9.2

ps_stop_daemon
ps_check_log
ps_info "PASS"
