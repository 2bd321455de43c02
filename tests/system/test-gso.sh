#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: segmentation and merging in the switch.  GSO frames to a
# port that cannot take them whole are cut in software, and the kernel on
# the other side accepts every segment; runs of TCP segments to a port
# that takes GSO frames are merged into one, and the bytes arrive intact.
# Namespace A sends through a packet-socket port p1 with its default
# offloads, so its TCP leaves as 64 KB GSO frames; namespace X is behind
# an afxdp port x1, which carries no offload metadata; C (tx offloads
# off, so MTU-sized segments with their checksums) and B sit behind
# packet-socket ports p3 and p2.  Checks:
#
# - TCP from A to X (iperf3, 3 s) works: every segment's checksums, lengths
#   and sequence numbers passed X's kernel; the PMDs cut GSO frames
#   (gso_frames, gso_segments), dropped none (drop_gso), and x1 counted
#   nothing as too_big;
# - UDP with segmentation offload from A (UDP_SEGMENT, 20 datagrams per
#   send) reaches X datagram by datagram: none lost, duplicated or
#   reordered, each counted separately;
# - 20 MB over TCP from C to B, and from X to A, arrive with the sender's
#   SHA-256 (tests/system/tcp-digest.py: B's and A's kernels do not check
#   a merged frame's checksum, so the digest is what proves the merge),
#   and the PMDs merged segments (gro_segments) into GSO frames
#   (gro_frames) on the way.
#
# Skipped when the build has no afxdp ports.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip iperf3 ethtool python3
ps_require_daemon
if ! grep -q '^#define HAVE_AFXDP 1' "$PS_BUILD/autoconf.h"; then
    ps_skip "this build has no afxdp ports"
fi
ps_setup sgso

A=sgso-a
X=sgso-x
B=sgso-b
C=sgso-c
for ns in "$A" "$X" "$B" "$C"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 sgso-a-sw 10.77.13.1/24
ps_add_veth_to_ns "$B" eth0 sgso-b-sw 10.77.13.2/24
ps_add_veth_to_ns "$X" eth0 sgso-x-sw 10.77.13.3/24
ps_add_veth_to_ns "$C" eth0 sgso-c-sw 10.77.13.4/24
for ns in "$A" "$B" "$X" "$C"; do
    for peer in "$A:10.77.13.1" "$B:10.77.13.2" "$X:10.77.13.3" \
                "$C:10.77.13.4"; do
        [[ ${peer%%:*} == "$ns" ]] && continue
        ps_ns "$ns" ip neigh replace "${peer#*:}" \
            lladdr "$(ps_mac "${peer%%:*}" eth0)" dev eth0 nud permanent
    done
done
# X's own frames reach an afxdp port, which cannot finish checksums; C
# sends segments the kernel cut and summed, for the switch to merge.
ps_ns "$X" ethtool -K eth0 tx off >/dev/null
ps_ns "$C" ethtool -K eth0 tx off >/dev/null
tso=$(ps_ns "$A" ethtool -k eth0 | sed -n 's/^tcp-segmentation-offload: //p')
[[ $tso == on* ]] || ps_fail "A's TSO is '$tso', the test needs it on"

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sgso-a-sw x1=afxdp:sgso-x-sw \
    p2=sgso-b-sw p3=sgso-c-sw
ps_start_daemon "$CONFIG"

# pmd_stat FIELD: a pmd-stats-show counter summed over the PMDs.
pmd_stat()
{
    ps_appctl -f json dpif-netdev/pmd-stats-show | python3 -c '
import json, sys
print(sum(p.get(sys.argv[1], 0) for p in json.load(sys.stdin)))' "$1"
}
port_stat()
{
    ps_appctl -f json dpctl/show | python3 -c '
import json, sys
print(next(p[sys.argv[2]] for p in json.load(sys.stdin)["ports"]
           if p["name"] == sys.argv[1]))' "$1" "$2"
}

# ---------------------------------------------------------------------------
ps_info "TCP from A (TSO on) to X behind an afxdp port"
ps_start_iperf3_server "$X" 10.77.13.3
SERVER=$PS_BG_PID
rc=0
timeout 30 ip netns exec "$A" iperf3 -c 10.77.13.3 -t 3 -J \
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
    ps_appctl dpif-netdev/pmd-stats-show >&2 || true
    ps_fail "iperf3 TCP: exit $rc, $bytes bytes received"
fi
ps_kill_bg "$SERVER"
frames=$(pmd_stat gso_frames)
segments=$(pmd_stat gso_segments)
ps_info "TCP: $bytes bytes, $((bps / 1000000)) Mbit/s; $frames GSO frames cut into $segments segments"
((frames > 0 && segments > frames)) ||
    ps_fail "no GSO frame was cut ($frames frames, $segments segments)"
ps_assert_eq "GSO frames that could not be cut" 0 "$(pmd_stat drop_gso)"
ps_assert_eq "x1 tx_too_big" 0 "$(port_stat x1 tx_too_big)"
ps_assert_eq "x1 tx_errors" 0 "$(port_stat x1 tx_errors)"

# ---------------------------------------------------------------------------
ps_info "UDP segmentation offload from A: 200 sends of 20 datagrams"
OUT=$PS_LOG_DIR/udp-recv.json
# A background job's stdin is /dev/null: the receiver goes in a file.
cat >"$PS_LOG_DIR/udp-recv.py" <<'EOF'
import json
import socket
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("10.77.13.3", 5400))
s.settimeout(3)
seen, dup, reord, highest, n = set(), 0, 0, -1, 0
open(sys.argv[1] + ".ready", "w").close()
try:
    while True:
        data = s.recv(2048)
        seq = int.from_bytes(data[:4], "big")
        n += 1
        if seq in seen:
            dup += 1
        elif seq < highest:
            reord += 1
        seen.add(seq)
        highest = max(highest, seq)
        if len(data) != 1000:
            sys.exit("datagram %d has %d bytes" % (seq, len(data)))
except socket.timeout:
    pass
json.dump({"received": n, "unique": len(seen), "duplicates": dup,
           "reordered": reord, "lost": 4000 - len(seen)}, open(sys.argv[1], "w"))
EOF
ps_bg udp-recv ip netns exec "$X" python3 "$PS_LOG_DIR/udp-recv.py" "$OUT"
ps_wait_until 5 test -e "$OUT.ready" || ps_fail "UDP receiver did not start"
uso0=$(pmd_stat gso_frames)
ps_ns "$A" python3 - <<'EOF'
import socket
import time

UDP_SEGMENT = 103
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, 1000)
seq = 0
for send in range(200):
    buf = b"".join((seq + i).to_bytes(4, "big") + bytes(996)
                   for i in range(20))
    s.sendto(buf, ("10.77.13.3", 5400))
    seq += 20
    time.sleep(0.002)
EOF
ps_wait_until 10 test -s "$OUT" || ps_fail "UDP receiver did not finish"
read -r lost dup reord <<<"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["lost"], d["duplicates"], d["reordered"])' "$OUT")"
ps_assert_eq "UDP datagrams lost" 0 "$lost"
ps_assert_eq "UDP datagrams duplicated" 0 "$dup"
ps_assert_eq "UDP datagrams reordered" 0 "$reord"
ps_info "UDP: 4000 datagrams, $(($(pmd_stat gso_frames) - uso0)) GSO frames cut"
ps_assert_eq "GSO frames that could not be cut" 0 "$(pmd_stat drop_gso)"

# ---------------------------------------------------------------------------
# digest_transfer FROM TO ADDR: 20 MB over TCP from namespace FROM to TO,
# whose SHA-256 must arrive as sent.
digest_transfer()
{
    local from=$1 to=$2 addr=$3 out=$PS_LOG_DIR/digest-$2.json sent got
    rm -f -- "$out" "$out.ready"
    ps_bg "digest-$to" ip netns exec "$to" python3 "$PS_LIB_DIR/tcp-digest.py" \
        recv "$addr" 5500 "$out" "$out.ready"
    ps_wait_until 5 test -e "$out.ready" || ps_fail "receiver in $to did not start"
    sent=$(timeout 60 ip netns exec "$from" python3 \
           "$PS_LIB_DIR/tcp-digest.py" send "$addr" 5500 20000000) ||
        ps_fail "the sender in $from failed"
    ps_wait_until 30 test -s "$out" || ps_fail "receiver in $to did not finish"
    got=$(<"$out")
    ps_assert_eq "bytes and SHA-256 from $from to $to" \
        "$(python3 -c 'import json, sys; d = json.loads(sys.argv[1])
print(d["bytes"], d["sha256"])' "$sent")" \
        "$(python3 -c 'import json, sys; d = json.loads(sys.argv[1])
print(d["bytes"], d["sha256"])' "$got")"
}

ps_info "TCP from C (tx offloads off) to B: segments merged for p2"
gro0=$(pmd_stat gro_segments)
digest_transfer "$C" "$B" 10.77.13.2
merged=$(($(pmd_stat gro_segments) - gro0))
ps_info "merged $merged segments into $(pmd_stat gro_frames) frames so far"
((merged > 0)) || ps_fail "no segment was merged on the way to B"

ps_info "TCP from X (afxdp, tx off) to A: segments merged for p1"
gro0=$(pmd_stat gro_segments)
digest_transfer "$X" "$A" 10.77.13.1
merged=$(($(pmd_stat gro_segments) - gro0))
((merged > 0)) || ps_fail "no segment was merged on the way to A"

ps_stop_daemon
ps_check_log
ps_info "PASS"
