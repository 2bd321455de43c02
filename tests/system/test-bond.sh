#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: bond port "up0" over two member veths whose far ends belong
# to a bond partner in namespace P, with host A on plain port p1 and host H
# behind the partner.
#
#   A (10.79.9.1) -- p1 [switch] up0 = {sbnd-m1, sbnd-m2}
#                                        |          |
#                                        m1   P    m2  (bond-peer.py)
#                                              |
#                                        H (10.79.9.2)
#
# This kernel has no bonding (or team) driver, so the partner is
# tests/system/bond-peer.py, a userspace stand-in for Linux's balance-xor
# with xmit_hash_policy layer3+4 and for active-backup.
#
# 1. balance-tcp (bond-rebalance-interval 1000 ms) against balance-xor:
#    - ping both ways; H's MAC is learned on up0 (fdb/show);
#    - 32 UDP flows A -> H leave through both members (the switch's member
#      tx counters and bond/show's hash loads), and 32 flows H -> A arrive
#      through both members;
#    - a steady stream of 32 flows while sbnd-m1 goes down and comes back:
#      no flow stops, the loss is reported, and once sbnd-m1 is back the
#      rebalance moves traffic to it again;
#    - the same while sbnd-m2 is deleted and created again.
# 2. active-backup against active-backup, then balance-slb by
#    config/reload:
#    - flows leave through the active member only; bond/set-active-member
#      moves them ("done", then "no change"); its errors;
#    - bond/disable-member and bond/enable-member;
#    - a steady stream while the active member's link goes down: no flow
#      stops, the loss is reported;
#    - config/reload to balance-slb reopens the bond; traffic flows.
# In both: miniflow extract calls equal packets received (pmd-stats-show
# while running and the counters the daemon logs on exit), and bond/show
# under traffic is printed in the log.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup sbnd

A=sbnd-a
P=sbnd-p
H=sbnd-h
A_IP=10.79.9.1
H_IP=10.79.9.2
N_FLOWS=32
PEER=$PS_LIB_DIR/bond-peer.py

ps_add_quiet_ns "$A"
ps_add_quiet_ns "$P"
ps_add_quiet_ns "$H"
ps_add_veth_to_ns "$A" eth0 sbnd-a-sw "$A_IP/24"
ps_add_veth_to_ns "$P" m1 sbnd-m1
ps_add_veth_to_ns "$P" m2 sbnd-m2
ps_add_veth_between "$P" hl "$H" eth0
ip -n "$H" addr add "$H_IP/24" dev eth0

# The frames of the warnings that link changes of members cause.
PS_LOG_ALLOW+=('sbnd-m[12]')

# The traffic tool: "send" sends UDP flows (source ports 40000 + i) and
# prints what it sent as JSON; "recv" counts them per flow until SIGTERM
# and writes JSON; "report" compares the two.
FLOWS=$PS_LOG_DIR/flows.py
cat >"$FLOWS" <<'EOF'
import json
import signal
import socket
import struct
import sys
import time

BASE = 40000
PORT = 9999


def send(src, dst, n_flows, pps, seconds, count):
    socks = []
    for i in range(n_flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((src, BASE + i))
        socks.append(s)
    sent = [0] * n_flows
    start = time.time()
    interval = 1.0 / pps
    k = 0
    while True:
        now = time.time()
        if count and k >= count * n_flows:
            break
        if not count and now - start >= seconds:
            break
        i = k % n_flows
        payload = struct.pack("!IId", i, sent[i], now) + b"x" * 64
        try:
            socks[i].sendto(payload, (dst, PORT))
            sent[i] += 1
        except OSError:
            pass
        k += 1
        delay = start + k * interval - time.time()
        if delay > 0:
            time.sleep(delay)
    json.dump({"sent": sent, "start": start, "end": time.time()},
              sys.stdout)


# On SIGTERM it goes on until nothing has arrived for DRAIN_IDLE seconds
# (at most DRAIN_MAX), so that datagrams still in flight on a busy machine
# count; the test's SIGKILL comes 3 s after SIGTERM.
DRAIN_IDLE = 1.0
DRAIN_MAX = 2.5


def recv(bind, n_flows, out):
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(time.time()))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((bind, PORT))
    s.settimeout(0.05)
    n = [0] * n_flows
    first = [None] * n_flows
    last = [None] * n_flows
    gap = [0.0] * n_flows
    latest = time.time()
    print("ready", flush=True)
    while True:
        if stop:
            now = time.time()
            if (now - max(latest, stop[0]) >= DRAIN_IDLE
                    or now - stop[0] >= DRAIN_MAX):
                break
        try:
            data = s.recv(2048)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        latest = time.time()
        if len(data) < 16:
            continue
        i, seq, _ = struct.unpack("!IId", data[:16])
        if i >= n_flows:
            continue
        now = time.time()
        if last[i] is not None:
            gap[i] = max(gap[i], now - last[i])
        if first[i] is None:
            first[i] = now
        last[i] = now
        n[i] += 1
    with open(out, "w") as f:
        json.dump({"n": n, "first": first, "last": last, "max_gap": gap}, f)


def report(sent_file, recv_file, tail):
    with open(sent_file) as f:
        s = json.load(f)
    with open(recv_file) as f:
        r = json.load(f)
    sent = sum(s["sent"])
    got = sum(r["n"])
    stopped = [i for i, last in enumerate(r["last"])
               if last is None or last < s["end"] - tail]
    print("flows=%d sent=%d received=%d lost=%d max_gap_ms=%d stopped=%s"
          % (len(s["sent"]), sent, got, sent - got,
             max(r["max_gap"]) * 1000, stopped))
    sys.exit(1 if stopped else 0)


cmd = sys.argv[1]
if cmd == "send":
    send(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]),
         float(sys.argv[6]), int(sys.argv[7]))
elif cmd == "recv":
    recv(sys.argv[2], int(sys.argv[3]), sys.argv[4])
else:
    report(sys.argv[2], sys.argv[3], float(sys.argv[4]))
EOF

CONFIG=$PS_LOG_DIR/config.json
# write_config MODE: p1 and bond up0 in MODE, rebalanced every second.
write_config()
{
    ps_write_config "$CONFIG" "$PS_TPACKET" p1=sbnd-a-sw \
        "up0=bond:sbnd-m1+sbnd-m2,bond_mode=$1,bond-rebalance-interval=1000"
}

PEER_PID=
# start_peer MODE: (re)starts the partner in P and waits for its ready
# line.
start_peer()
{
    stop_peer
    : >"$PS_LOG_DIR/peer-$1.out"
    ps_bg "peer-$1" ip netns exec "$P" python3 "$PEER" --mode "$1" \
        --host hl m1 m2
    PEER_PID=$PS_BG_PID
    if ! ps_wait_until 5 grep -q "ready" "$PS_LOG_DIR/peer-$1.out"; then
        cat "$PS_LOG_DIR/peer-$1.out" >&2
        ps_fail "bond-peer.py did not start"
    fi
}

stop_peer()
{
    if [[ -n "$PEER_PID" ]]; then
        ps_kill_bg "$PEER_PID"
        PEER_PID=
        cat "$PS_LOG_DIR"/peer-*.out >&2
    fi
}

# json_get EXPR CMD...: runs appctl -f json CMD... and prints the Python
# expression EXPR of its result 'd'.
json_get()
{
    local expr=$1
    shift
    ps_appctl -f json "$@" | python3 -c 'import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(str(v).lower() if isinstance(v, bool) else v)' "$expr"
}

# port_stat PORT FIELD: a counter of PORT from dpctl/show.
port_stat()
{
    json_get "[p for p in d['ports'] if p['name'] == '$1'][0]['$2']" \
        dpctl/show
}

# member_field MEMBER FIELD: a field of MEMBER in bond/show's JSON.
member_field()
{
    json_get "[m for m in d['members'] if m['name'] == '$1'][0]['$2']" \
        bond/show up0
}

# wait_member MEMBER true|false SECONDS: until MEMBER is enabled or not.
wait_member()
{
    local deadline=$((SECONDS + $3)) state
    while :; do
        state=$(member_field "$1" enabled)
        [[ $state == "$2" ]] && return 0
        if ((SECONDS >= deadline)); then
            ps_fail "member $1: enabled is $state, not $2, after $3 s"
        fi
        sleep 0.05
    done
}

# show_bond: prints bond/show into the log.
show_bond()
{
    ps_info "bond/show up0 ($1):"
    ps_appctl bond/show up0 >&2
}

# burst FROM_NS FROM_IP TO_NS TO_IP COUNT: COUNT datagrams on each of the
# 32 flows; fails unless each flow arrives and at least 98% of all.
burst()
{
    local from=$1 src=$2 to=$3 dst=$4 count=$5 recv_pid out
    out=$PS_LOG_DIR/burst
    rm -f "$out.recv" "$out.sent"
    # Emptied here: the child truncates it only once it runs.
    : >"$PS_LOG_DIR/burst-recv.out"
    ps_bg burst-recv ip netns exec "$to" python3 "$FLOWS" recv "$dst" \
        "$N_FLOWS" "$out.recv"
    recv_pid=$PS_BG_PID
    ps_wait_until 5 grep -q ready "$PS_LOG_DIR/burst-recv.out" ||
        ps_fail "receiver did not start"
    ip netns exec "$from" python3 "$FLOWS" send "$src" "$dst" "$N_FLOWS" \
        2000 0 "$count" >"$out.sent"
    ps_kill_bg "$recv_pid"
    local summary
    if ! summary=$(python3 "$FLOWS" report "$out.sent" "$out.recv" 100); then
        ip -s link show dev sbnd-a-sw >&2
        ip -n "$A" -s link show dev eth0 >&2
        ip -n "$H" -s link show dev eth0 >&2
        ps_show_switch_counters
        ps_fail "burst $from -> $to: $summary"
    fi
    ps_info "burst $from -> $to: $summary"
    # The switch itself counts every frame it drops; on a machine this
    # busy the partner (a Python process) or a receiver may miss a few.
    local lost=${summary#* lost=}
    lost=${lost%% *}
    if ((lost * 50 > N_FLOWS * count)); then
        ps_show_switch_counters
        ps_fail "burst $from -> $to lost more than 2%: $summary"
    fi
}

# stream_start SECONDS: a steady stream of 32 flows, 2000 datagrams a
# second in all, from A to H.
STREAM_RECV=
STREAM_SEND=
stream_start()
{
    rm -f "$PS_LOG_DIR/stream.recv" "$PS_LOG_DIR/stream.sent"
    : >"$PS_LOG_DIR/stream-recv.out"
    ps_bg stream-recv ip netns exec "$H" python3 "$FLOWS" recv "$H_IP" \
        "$N_FLOWS" "$PS_LOG_DIR/stream.recv"
    STREAM_RECV=$PS_BG_PID
    ps_wait_until 5 grep -q ready "$PS_LOG_DIR/stream-recv.out" ||
        ps_fail "receiver did not start"
    ps_bg stream-send ip netns exec "$A" python3 "$FLOWS" send "$A_IP" \
        "$H_IP" "$N_FLOWS" 2000 "$1" 0
    STREAM_SEND=$PS_BG_PID
}

# stream_end LABEL: waits for the stream; fails if a flow stopped (got
# nothing in the last second) and reports the loss.
stream_end()
{
    wait "$STREAM_SEND" || ps_fail "stream sender failed"
    cp "$PS_LOG_DIR/stream-send.out" "$PS_LOG_DIR/stream.sent"
    ps_kill_bg "$STREAM_RECV"
    local summary
    if ! summary=$(python3 "$FLOWS" report "$PS_LOG_DIR/stream.sent" \
        "$PS_LOG_DIR/stream.recv" 1.0); then
        ps_show_switch_counters
        ps_fail "$1: a flow stopped: $summary"
    fi
    ps_info "$1: no flow stopped; $summary"
}

# check_extract: miniflow extract calls equal packets received, per PMD.
check_extract()
{
    local line
    line=$(json_get "' '.join('%d/%d' % (p['extract_calls'],
        p['packets_received']) for p in d)" dpif-netdev/pmd-stats-show)
    ps_info "extract_calls/packets_received per pmd: $line"
    for pair in $line; do
        [[ ${pair%/*} == "${pair#*/}" ]] ||
            ps_fail "extract calls != packets received: $pair"
    done
}

# link_event ARG...: runs "ip ARG..." to take a member down and remembers
# when, for failover_time.
link_event()
{
    LINK_EVENT_TIME=$(date +%s.%N)
    ip "$@"
}

# failover_time MEMBER: reports how long after link_event the daemon
# disabled MEMBER (from its log's timestamps).
failover_time()
{
    local ms
    ms=$(python3 - "$PS_DAEMON_LOG" "$1" "$LINK_EVENT_TIME" <<'PYEOF'
import datetime
import sys

log, member, t0 = sys.argv[1], sys.argv[2], float(sys.argv[3])
stamp = None
for line in open(log):
    if "member %s: disabled" % member in line:
        stamp = line.split("|")[0]
if stamp is None:
    sys.exit(1)
t = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ")
t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
print(int((t - t0) * 1000))
PYEOF
    ) || ps_fail "no 'member $1: disabled' in the daemon log"
    ps_info "failover: member $1 disabled $ms ms after its link event"
}

# expect_error WANT CMD...: the appctl command must fail saying WANT.
expect_error()
{
    local want=$1 out
    shift
    if out=$(ps_appctl "$@" 2>&1); then
        ps_fail "'$*' succeeded: $out"
    fi
    grep -qF -- "$want" <<<"$out" || ps_fail "'$*' said '$out', want '$want'"
    ps_info "ok: '$*' failed with '$want'"
}

# ---------------------------------------------------------------------------
ps_info "balance-tcp against balance-xor layer3+4"
start_peer balance-xor
write_config balance-tcp
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 5 "$H_IP"
ps_ping_all "$H" 5 "$A_IP"

show=$(ps_appctl bond/show up0)
for line in "---- up0 ----" "bond_mode: balance-tcp" "lacp_status: off" \
            "member sbnd-m1: enabled" "member sbnd-m2: enabled" \
            "  may_enable: true"; do
    grep -qxF -- "$line" <<<"$show" || ps_fail "bond/show lacks '$line':
$show"
done
grep -qx "next rebalance: [0-9]* ms" <<<"$show" ||
    ps_fail "bond/show lacks 'next rebalance':
$show"
ps_appctl dpctl/show >&2
ps_assert_eq "sbnd-m1 is a member of" up0 "$(port_stat sbnd-m1 bond)"
ps_assert_eq "bonds in bond/show" 1 "$(json_get "len(d)" bond/show)"
expect_error "not an active-backup bond" \
    bond/set-active-member up0 sbnd-m1
h_mac=$(ps_mac "$H" eth0)
fdb_port=$(json_get "[e['port'] for e in d if e['mac'] == '$h_mac'][0]" \
    fdb/show br0)
ps_assert_eq "H's MAC learned on" up0 "$fdb_port"

tx1=$(port_stat sbnd-m1 tx_packets)
tx2=$(port_stat sbnd-m2 tx_packets)
burst "$A" "$A_IP" "$H" "$H_IP" 20
d1=$(($(port_stat sbnd-m1 tx_packets) - tx1))
d2=$(($(port_stat sbnd-m2 tx_packets) - tx2))
ps_info "32 flows A -> H: $d1 packets via sbnd-m1, $d2 via sbnd-m2"
((d1 >= 60 && d2 >= 60)) || ps_fail "flows not spread: $d1 and $d2"
show_bond "after 32 flows A -> H"

rx1=$(port_stat sbnd-m1 rx_packets)
rx2=$(port_stat sbnd-m2 rx_packets)
burst "$H" "$H_IP" "$A" "$A_IP" 20
d1=$(($(port_stat sbnd-m1 rx_packets) - rx1))
d2=$(($(port_stat sbnd-m2 rx_packets) - rx2))
ps_info "32 flows H -> A: $d1 packets via sbnd-m1, $d2 via sbnd-m2"
((d1 >= 60 && d2 >= 60)) || ps_fail "flows from H not spread: $d1 and $d2"
fdb_port=$(json_get "[e['port'] for e in d if e['mac'] == '$h_mac'][0]" \
    fdb/show br0)
ps_assert_eq "H's MAC still learned on" up0 "$fdb_port"
check_extract

ps_info "failover: sbnd-m1 goes down and comes back under a steady stream"
stream_start 7
sleep 1.5
show_bond "under traffic"
# Loads decay by half at each rebalance: only a steady stream keeps them
# above the 1 kB bond/show rounds down to.
for m in sbnd-m1 sbnd-m2; do
    n=$(json_get "len([m for m in d['members']
        if m['name'] == '$m'][0]['hashes'])" bond/show up0)
    ps_info "bond/show under traffic: $n loaded hashes on $m"
    ((n > 0)) || ps_fail "bond/show: no loaded hash on $m"
done
link_event link set dev sbnd-m1 down
wait_member sbnd-m1 false 2
failover_time sbnd-m1
ps_assert_eq "sbnd-m1 may_enable" false "$(member_field sbnd-m1 may_enable)"
sleep 1.5
ip link set dev sbnd-m1 up
wait_member sbnd-m1 true 3
back1=$(port_stat sbnd-m1 tx_packets)
stream_end "balance-tcp, sbnd-m1 down and up"
moved=$(($(port_stat sbnd-m1 tx_packets) - back1))
show_bond "after sbnd-m1 came back"
ps_info "after sbnd-m1 came back: $moved packets via sbnd-m1"
((moved > 200)) || ps_fail "no rebalance to sbnd-m1 ($moved packets)"
grep -q "bond up0: rebalanced" "$PS_DAEMON_LOG" ||
    ps_fail "no rebalance logged"

ps_info "failover: sbnd-m2 is deleted and created again"
stream_start 6
sleep 1.5
link_event link del sbnd-m2
wait_member sbnd-m2 false 2
failover_time sbnd-m2
sleep 1.5
ps_add_veth_to_ns "$P" m2 sbnd-m2
wait_member sbnd-m2 true 3
stream_end "balance-tcp, sbnd-m2 deleted and back"
show_bond "after sbnd-m2 came back"
check_extract
ps_appctl dpif-netdev/pmd-stats-show >&2
ps_stop_daemon
received=$(ps_stat pmd packets_received)
ps_assert_eq "extract calls (log) = packets received $received" \
    "$received" "$(ps_stat pmd extract_calls)"

# ---------------------------------------------------------------------------
ps_info "active-backup against active-backup"
start_peer active-backup
write_config active-backup
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 5 "$H_IP"
ps_ping_all "$H" 5 "$A_IP"

show=$(ps_appctl bond/show up0)
grep -qxF "bond_mode: active-backup" <<<"$show" ||
    ps_fail "bond/show: not active-backup:
$show"
n_active=$(grep -c "^  active member$" <<<"$show" || true)
((n_active == 1)) || ps_fail "bond/show: not exactly one active member:
$show"
active=$(json_get "d['active_member']" bond/show up0)
case $active in
sbnd-m1) backup=sbnd-m2 ;;
sbnd-m2) backup=sbnd-m1 ;;
*) ps_fail "active member is '$active'" ;;
esac
grep -qx "active member mac: ..:..:..:..:..:..($active)" <<<"$show" ||
    ps_fail "bond/show lacks the active member mac:
$show"

# all_flows_via MEMBER OTHER: 32 flows A -> H leave through MEMBER only,
# and come back from H.
all_flows_via()
{
    local tx other
    tx=$(port_stat "$1" tx_packets)
    other=$(port_stat "$2" tx_packets)
    burst "$A" "$A_IP" "$H" "$H_IP" 10
    (($(port_stat "$1" tx_packets) - tx >= 320)) ||
        ps_fail "flows did not use $1"
    (($(port_stat "$2" tx_packets) - other < 4)) ||
        ps_fail "flows leaked through $2"
    ps_info "ok: 32 flows through $1 only"
    burst "$H" "$H_IP" "$A" "$A_IP" 10
}

all_flows_via "$active" "$backup"
show_bond "active-backup under traffic"

ps_assert_eq "set-active-member" "done" \
    "$(ps_appctl bond/set-active-member up0 "$backup")"
ps_assert_eq "set-active-member again" "no change" \
    "$(ps_appctl bond/set-active-member up0 "$backup")"
all_flows_via "$backup" "$active"

expect_error "no such member" bond/set-active-member up0 sbnd-nope
expect_error "no such bond" bond/set-active-member up9 "$active"
expect_error "no such bond" bond/show p1
expect_error "no such member" bond/disable-member up0 sbnd-nope

ps_assert_eq "disable-member" "disabled" \
    "$(ps_appctl bond/disable-member up0 "$backup")"
wait_member "$backup" false 1
expect_error "cannot make disabled member active" \
    bond/set-active-member up0 "$backup"
ps_assert_eq "active after disable-member" "$active" \
    "$(json_get "d['active_member']" bond/show up0)"
all_flows_via "$active" "$backup"
ps_assert_eq "enable-member" "enabled" \
    "$(ps_appctl bond/enable-member up0 "$backup")"
wait_member "$backup" true 1

ps_info "the active member $active fails under a steady stream"
stream_start 5
sleep 1.5
link_event link set dev "$active" down
wait_member "$active" false 2
failover_time "$active"
ps_assert_eq "active after failover" "$backup" \
    "$(json_get "d['active_member']" bond/show up0)"
stream_end "active-backup, $active down"
show_bond "after failover"
ip link set dev "$active" up
wait_member "$active" true 3
ps_ping_all "$H" 5 "$A_IP"
check_extract

ps_info "config/reload turns up0 into a balance-slb bond"
write_config balance-slb
ps_appctl config/reload >&2
ps_assert_eq "bond_mode after reload" balance-slb \
    "$(json_get "d['mode']" bond/show up0)"
wait_member sbnd-m1 true 2
wait_member sbnd-m2 true 2
ps_ping_all "$A" 5 "$H_IP"
burst "$A" "$A_IP" "$H" "$H_IP" 10
burst "$H" "$H_IP" "$A" "$A_IP" 10
show_bond "balance-slb"
check_extract
ps_stop_daemon
received=$(ps_stat pmd packets_received)
ps_assert_eq "extract calls (log) = packets received $received" \
    "$received" "$(ps_stat pmd extract_calls)"
stop_peer
ps_check_log
ps_info "PASS"
