#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: several bridges in one daemon, patch ports and internal
# ports.  What it checks happens in the slow path and the patch crossing,
# whichever provider receives:
# Provider-independent.
#
#   - br0 (namespace A behind port pa) and br1 (namespace C behind pc) are
#     joined by the patch pair x0 (br0) <-> x1 (br1).  Ping between A and
#     C crosses it, and so does a 3 s iperf3 TCP stream A -> C.  The
#     counters must add up, over that traffic: x0's tx equals x1's rx and
#     the other way round (packets and bytes); everything pa received
#     crossed x0 and everything x1 received left through pc, and the other
#     way round; and A's and C's kernels counted what pa and pc did
#     (the namespaces send nothing else: no IPv6).  fdb/show br1 has A's
#     MAC on x1, fdb/show br0 C's MAC on x0.
#   - A third bridge br2, joined to br1 (y1 <-> y2) and to br0 (z2 <->
#     z0) by config/reload, closes a loop of three patches.  Broadcasts
#     from A reach C exactly once each, no port's counters grow by more
#     than a handful, and coverage/show counts the refused crossings
#     (patch_drop_bridge_visited).  Unicast still works around the loop.
#   - Patch ports are added and deleted one end at a time at run time
#     (add-port, del-port, del-br of a bridge with patch ports), as with
#     ovs-vsctl: the end left alone is down, waiting for its peer.
#   - An internal port sbrggw on br0 (added with add-port) is a tap the
#     daemon makes; with an address on the host it answers A's pings and
#     reaches C across the patch; a change of its settings (set-port)
#     keeps the tap and its address; del-port deletes the tap.
#
# A failed check of a runtime command is reported at the end (ps_late_fail),
# so that the rest still runs.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3 jq
ps_require_daemon
ps_setup sbrg

A=sbrg-a
C=sbrg-c
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$C"
ps_add_veth_to_ns "$A" eth0 sbrg-a-sw 10.79.42.1/24
ps_add_veth_to_ns "$C" eth0 sbrg-c-sw 10.79.42.3/24
MAC_A=$(ps_mac "$A" eth0)
MAC_C=$(ps_mac "$C" eth0)

CONFIG=$PS_LOG_DIR/config.json
cat >"$CONFIG" <<EOF
{
  "bridges": [
    { "name": "br0",
      "ports": [
        { "name": "pa", "interface": "sbrg-a-sw" },
        { "name": "x0", "type": "patch", "options": { "peer": "x1" } }
      ] },
    { "name": "br1",
      "ports": [
        { "name": "pc", "interface": "sbrg-c-sw" },
        { "name": "x1", "type": "patch", "options": { "peer": "x0" } }
      ] }
  ],
  "other_config": {
    "use-tpacket-v3": $PS_TPACKET,
    "pmd-cpu-mask": "${PS_PMD_MASK:-0x2}"
  }
}
EOF
ps_start_daemon "$CONFIG"

# snap FILE: saves dpctl/show's JSON in FILE once the port counters stay
# the same for 0.2 s (in-flight frames drained).
snap()
{
    local i prev='' cur
    for ((i = 0; i < 30; i++)); do
        ps_appctl -f json dpctl/show >"$1"
        cur=$(jq -c '[.ports[] | [.name, .rx_packets, .tx_packets]]' "$1")
        [[ $cur == "$prev" ]] && return 0
        prev=$cur
        sleep 0.2
    done
    ps_fail "the port counters did not settle"
}

# load_counters: reads the port counters of the snapshots $S0 and $S1
# into CTR (PORT.FIELD: the value in $S1) and DELTA (the growth since
# $S0), for ctr and delta.
declare -A CTR DELTA
load_counters()
{
    local key d v
    CTR=()
    DELTA=()
    while read -r key d v; do
        DELTA[$key]=$d
        CTR[$key]=$v
    done < <(jq -rn --slurpfile a "$S0" --slurpfile b "$S1" '
        ($a[0].ports | map({key: .name, value: .}) | from_entries) as $old
        | $b[0].ports[] | . as $p
        | to_entries[] | select(.value | type == "number") | .key as $f
        | "\($p.name).\($f) \($p[$f] - ($old[$p.name][$f] // 0)) \($p[$f])"')
}

# ctr PORT FIELD: FIELD of PORT in $S1; delta PORT FIELD: its growth since
# $S0 (load_counters first).
ctr()
{
    [[ -n "${CTR[$1.$2]:-}" ]] || ps_fail "no counter $2 of port $1"
    echo "${CTR[$1.$2]}"
}
delta()
{
    [[ -n "${DELTA[$1.$2]:-}" ]] || ps_fail "no counter $2 of port $1"
    echo "${DELTA[$1.$2]}"
}

# rx_drops PORT, tx_drops PORT: the sums of PORT's drop counters over
# $S0 -> $S1.
rx_drops()
{
    echo $(($(delta "$1" rx_ring_full) + $(delta "$1" rx_truncated) +
        $(delta "$1" rx_errors)))
}
tx_drops()
{
    echo $(($(delta "$1" tx_queue_full) + $(delta "$1" tx_too_big) +
        $(delta "$1" tx_port_down) + $(delta "$1" tx_errors)))
}

# tx_given PORT: the frames the datapath gave PORT over $S0 -> $S1: what
# it sent, with the TCP segments it merged into fewer frames counted one
# by one and the GSO frames it cut counted whole.
tx_given()
{
    echo $(($(delta "$1" tx_packets) + $(delta "$1" tx_gro_segments) -
        $(delta "$1" tx_gro_frames) - $(delta "$1" tx_gso_segments) +
        $(delta "$1" tx_gso_frames)))
}

# kdelta NS FIELD: a kernel counter of eth0 in NS since kernel_snap.
declare -A K0
kernel_snap()
{
    local ns f
    for ns in "$A" "$C"; do
        for f in tx_packets rx_packets rx_dropped; do
            K0[$ns.$f]=$(ps_if_stat "$ns" eth0 "$f")
        done
    done
}
kdelta()
{
    echo $(($(ps_if_stat "$1" eth0 "$2") - K0[$1.$2]))
}

# coverage NAME: the total of coverage counter NAME.
coverage()
{
    ps_appctl -f json coverage/show | jq --arg n "$1" '.[$n].total // 0'
}

show_counters()
{
    ps_appctl dpctl/show >&2 || true
}

# ---------------------------------------------------------------------------
ps_info "br0 <-> br1 through the patch pair x0 <-> x1"
ps_assert_eq "bridges" "br0 br1" "$(ps_appctl list-br | xargs)"
ps_assert_eq "dpctl/show bridges" '[{"name":"br0","ports":["pa","x0"]},{"name":"br1","ports":["pc","x1"]}]' \
    "$(ps_appctl -f json dpctl/show | jq -c '.bridges')"
ps_assert_eq "x0's bridge in dpctl/show" br0 "$(ps_appctl -f json dpctl/show |
    jq -r '.ports[] | select(.name == "x0") | .bridge')"
ps_assert_eq "port-to-br x1" br1 "$(ps_appctl port-to-br x1)"
ps_appctl dpctl/show | grep -q "x1 (peer=x0, patch, up," ||
    { show_counters; ps_fail "x1 is not an up patch port"; }

S0=$PS_LOG_DIR/show-0.json
S1=$PS_LOG_DIR/show-1.json
snap "$S0"
kernel_snap
ps_ping_all "$A" 5 10.79.42.3
ps_ping_all "$C" 5 10.79.42.1

ps_start_iperf3_server "$C" 10.79.42.3
SERVER=$PS_BG_PID
out=$PS_LOG_DIR/iperf-tcp.json
timeout 30 ip netns exec "$A" iperf3 -c 10.79.42.3 -t 3 -J \
    --connect-timeout 5000 >"$out" || ps_fail "iperf3 A -> C failed"
gbps=$(jq '.end.sum_received.bits_per_second / 1e9 * 100 | floor / 100' "$out")
ps_info "iperf3 TCP A -> C across the patch: $gbps Gbit/s"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 0.05)' "$gbps" &&
    ps_fail "iperf3 A -> C: only $gbps Gbit/s"
ps_kill_bg "$SERVER"
snap "$S1"
load_counters

for f in packets bytes; do
    ps_assert_eq "x0 tx_$f == x1 rx_$f" "$(ctr x0 "tx_$f")" \
        "$(ctr x1 "rx_$f")"
    ps_assert_eq "x0 rx_$f == x1 tx_$f" "$(ctr x0 "rx_$f")" \
        "$(ctr x1 "tx_$f")"
done
if (($(delta x0 tx_packets) < 1000)); then
    show_counters
    ps_fail "only $(delta x0 tx_packets) packets crossed x0 during iperf3"
fi
ps_info "over ping and iperf3: pa rx $(delta pa rx_packets) tx" \
    "$(delta pa tx_packets), x0 tx $(delta x0 tx_packets) rx" \
    "$(delta x0 rx_packets), pc rx $(delta pc rx_packets) tx" \
    "$(delta pc tx_packets); A sent $(kdelta "$A" tx_packets) received" \
    "$(kdelta "$A" rx_packets), C sent $(kdelta "$C" tx_packets) received" \
    "$(kdelta "$C" rx_packets)"
# A -> C: A's kernel, pa, x0, x1, pc, C's kernel.  Frames dropped on the
# way are in the ports' and the kernel's drop counters (normally none).
ps_assert_eq "what A sent == pa rx_packets + pa's rx drops" \
    "$(kdelta "$A" tx_packets)" $(($(delta pa rx_packets) + $(rx_drops pa)))
ps_assert_eq "x0 tx_packets == pa rx_packets (all of it crossed)" \
    "$(delta pa rx_packets)" "$(delta x0 tx_packets)"
ps_assert_eq "x1 rx_packets == frames given to pc + pc's tx drops" \
    "$(delta x1 rx_packets)" $(($(tx_given pc) + $(tx_drops pc)))
ps_assert_eq "pc tx_packets == what C received + C's rx drops" \
    "$(delta pc tx_packets)" \
    $(($(kdelta "$C" rx_packets) + $(kdelta "$C" rx_dropped)))
# C -> A.
ps_assert_eq "what C sent == pc rx_packets + pc's rx drops" \
    "$(kdelta "$C" tx_packets)" $(($(delta pc rx_packets) + $(rx_drops pc)))
ps_assert_eq "x1 tx_packets == pc rx_packets" \
    "$(delta pc rx_packets)" "$(delta x1 tx_packets)"
ps_assert_eq "x0 rx_packets == frames given to pa + pa's tx drops" \
    "$(delta x0 rx_packets)" $(($(tx_given pa) + $(tx_drops pa)))
ps_assert_eq "pa tx_packets == what A received + A's rx drops" \
    "$(delta pa tx_packets)" \
    $(($(kdelta "$A" rx_packets) + $(kdelta "$A" rx_dropped)))

# fdb_port BRIDGE MAC: the port on which BRIDGE learned MAC.
fdb_port()
{
    ps_appctl -f json fdb/show "$1" |
        jq -r --arg m "$2" '[.[] | select(.mac == $m)][0].port // "none"'
}
ps_assert_eq "br1 learned A's MAC on" x1 "$(fdb_port br1 "$MAC_A")"
ps_assert_eq "br0 learned C's MAC on" x0 "$(fdb_port br0 "$MAC_C")"
ps_assert_eq "br0 learned A's MAC on" pa "$(fdb_port br0 "$MAC_A")"

# ---------------------------------------------------------------------------
ps_info "br2 closes a loop of three patches: br0 -> br1 -> br2 -> br0"
jq '.bridges[0].ports += [{"name": "z0", "type": "patch",
                           "options": {"peer": "z2"}}]
    | .bridges[1].ports += [{"name": "y1", "type": "patch",
                             "options": {"peer": "y2"}}]
    | .bridges += [{"name": "br2", "ports": [
          {"name": "y2", "type": "patch", "options": {"peer": "y1"}},
          {"name": "z2", "type": "patch", "options": {"peer": "z0"}}]}]' \
    "$CONFIG" >"$CONFIG.new"
mv -- "$CONFIG.new" "$CONFIG"
reply=$(ps_appctl config/reload)
ps_info "config/reload: $reply"
for p in z0 y1 y2 z2; do
    ps_appctl dpctl/show | grep -q ": $p (peer=.*, patch, up," ||
        { show_counters; ps_fail "patch port $p is not up"; }
done
ps_assert_eq "bridges" "br0 br1 br2" "$(ps_appctl list-br | xargs)"

S0=$PS_LOG_DIR/show-2.json
S1=$PS_LOG_DIR/show-3.json
visited0=$(coverage patch_drop_bridge_visited)
snap "$S0"
kernel_snap
N_BCAST=5
ps_info "$N_BCAST broadcast pings from A"
# No replies come (the kernel ignores broadcast echoes): ping just sends.
ip netns exec "$A" ping -n -q -b -c "$N_BCAST" -i 0.2 -W 0.5 10.79.42.255 \
    >"$PS_LOG_DIR/ping-b.out" 2>&1 || true
snap "$S1"
load_counters
visited=$(($(coverage patch_drop_bridge_visited) - visited0))
ps_info "patch_drop_bridge_visited grew by $visited"
ps_assert_eq "frames A sent" "$N_BCAST" "$(kdelta "$A" tx_packets)"
ps_assert_eq "broadcasts C received (each exactly once)" "$N_BCAST" \
    "$(kdelta "$C" rx_packets)"
for p in pa pc x0 x1 y1 y2 z0 z2; do
    for f in rx_packets tx_packets; do
        d=$(delta "$p" "$f")
        if ((d > 4 * N_BCAST)); then
            show_counters
            ps_fail "$p $f grew by $d for $N_BCAST broadcasts: a loop?"
        fi
    done
done
ps_info "ok: no port counter grew by more than $((4 * N_BCAST))"
((visited >= 1)) ||
    ps_fail "coverage/show: patch_drop_bridge_visited did not count"
ps_ping_all "$A" 5 10.79.42.3
ps_ping_all "$C" 5 10.79.42.1

# ---------------------------------------------------------------------------
ps_info "runtime commands on patch ports, one end at a time"
# As with ovs-vsctl, a patch pair is made and unmade one port at a time:
# the datapath keeps a patch port whose peer is not there down, "waiting
# for its peer", and deleting one end leaves the other one so.
# try_appctl CMD...: runs appctl CMD; on failure records it and returns 1.
try_appctl()
{
    local rc=0
    ps_appctl "$@" >"$PS_LOG_DIR/try.out" 2>&1 || rc=$?
    if ((rc != 0)); then
        ps_late_fail "appctl $* failed (status $rc):" \
            "$(head -n 1 "$PS_LOG_DIR/try.out")"
        return 1
    fi
    ps_info "ok: appctl $*"
}
# state_of PORT: PORT's state in dpctl/show.
state_of()
{
    ps_appctl -f json dpctl/show |
        jq -r --arg p "$1" '[.ports[] | select(.name == $p)][0].state // "none"'
}
if try_appctl add-port br2 w2 type=patch options:peer=w0; then
    ps_assert_eq "w2, whose peer w0 is not there yet" down "$(state_of w2)"
    if try_appctl add-port br0 w0 type=patch options:peer=w2; then
        ps_assert_eq "w2 once w0 is there" up "$(state_of w2)"
        ps_assert_eq "w0" up "$(state_of w0)"
        try_appctl del-port w0 && ps_assert_eq "w2 without w0" down \
            "$(state_of w2)"
    fi
    try_appctl del-port --if-exists w2 || true
fi
if try_appctl del-br br2; then
    ps_assert_eq "y1, whose peer went with br2" down "$(state_of y1)"
    ps_assert_eq "z0, whose peer went with br2" down "$(state_of z0)"
    ps_ping_all "$A" 3 10.79.42.3
fi

# ---------------------------------------------------------------------------
ps_info "internal port sbrggw on br0: the host's gateway address"
GW=sbrggw
ps_record_link "$GW"
reply=$(ps_appctl -f json add-port br0 "$GW" type=internal | jq -r .changes)
ps_assert_eq "add-port $GW type=internal" "ports added: $GW" "$reply"
ip link show dev "$GW" >/dev/null 2>&1 || ps_fail "the daemon made no tap $GW"
ps_appctl dpctl/show | grep -q ": $GW ($GW, internal, up," ||
    { show_counters; ps_fail "$GW is not an up internal port"; }
ps__switch_side_no_ipv6 "$GW"
ip addr add 10.79.42.254/24 dev "$GW"
ip link set dev "$GW" up
ps_ping_all "$A" 5 10.79.42.254
ps_ping_all "$C" 5 10.79.42.254
ping -n -q -c 3 -i 0.05 -w 5 -I "$GW" 10.79.42.3 >"$PS_LOG_DIR/ping-host.out" ||
    {
        cat "$PS_LOG_DIR/ping-host.out" >&2
        # Where the replies went: the switch's counters of the tap and
        # the host's own view of it (drops), and the host's route to C.
        show_counters
        ip -s link show dev "$GW" >&2
        ip route get 10.79.42.3 >&2
        ps_fail "the host cannot ping C"
    }
ps_info "ok: the host pings C through $GW, br0, x0, br1"

ifindex=$(cat "/sys/class/net/$GW/ifindex")
reply=$(ps_appctl -f json set-port "$GW" options:n_rxq=2 | jq -r .changes) ||
    ps_fail "set-port $GW options:n_rxq=2 failed"
ps_info "set-port $GW options:n_rxq=2: $reply"
if ! ip link show dev "$GW" >/dev/null 2>&1; then
    ps_late_fail "set-port $GW options:n_rxq=2 deleted the internal port's tap"
elif [[ $(cat "/sys/class/net/$GW/ifindex") != "$ifindex" ]]; then
    ps_late_fail "set-port $GW options:n_rxq=2 replaced the tap (the host's" \
        "address on it is gone: $(ip -br addr show dev "$GW"))"
else
    ps_info "ok: $GW kept its tap and address across set-port"
    ps_ping_all "$A" 5 10.79.42.254
fi

reply=$(ps_appctl -f json del-port "$GW" | jq -r .changes)
ps_assert_eq "del-port $GW" "ports removed: $GW" "$reply"
if ip link show dev "$GW" >/dev/null 2>&1; then
    ps_fail "tap $GW still exists after del-port"
fi
ps_info "ok: del-port deleted the tap $GW"
ps_ping_all "$A" 3 10.79.42.3

ps_stop_daemon
ps_late_fails_check
ps_check_log
ps_info "PASS"
