#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Conservation on dummy ports, no root: N frames with sequence numbers (the
# UDP destination port) go in on p1 towards a MAC learned on p2; every one
# must come out on p2 or be counted in a named drop counter, and lost,
# duplicated and reordered frames are counted separately: none of each is
# allowed beyond the named drops.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmconsv
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b
N=${DM_CONSERVATION_N:-3000}
BURST=250

dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p2)" "$(dm_port p3)"
dm_start

# Learn B on p2 first (flooded to p1 and p3), then start from empty
# captures.
dm_recv p2 "$(dm_udp $B $A 0)"
dm_wait_stat p1 tx_packets 1
dm_wait_stat p3 tx_packets 1
dm_clear p1 p2 p3

for ((seq = 1; seq <= N; seq += BURST)); do
    frames=()
    for ((i = seq; i < seq + BURST && i <= N; i++)); do
        # dm_udp's flow, without a subshell per frame.
        frames+=("dl_src=$A,dl_dst=$B,ip,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_ttl=64,udp,tp_src=1000,tp_dst=$i")
    done
    dm_recv p1 "${frames[@]}"
done

# Every frame injected is received or refused as rx queue full.
accounted()
{
    (($(dm_port_stat p1 rx_packets) + $(dm_port_stat p1 rx_ring_full)
      == N))
}
dm_wait "p1 to account for $N frames" accounted
rx_full=$(dm_port_stat p1 rx_ring_full)
# Every received frame is transmitted or counted as dropped by the PMD.
drops()
{
    dm_json dpif-netdev/pmd-stats-show -- \
        "sum(p[k] for p in j for k in p if k.startswith('drop_') or k in ('lost', 'miss_upcall_failed'))"
}
delivered()
{
    (($(dm_port_stat p2 tx_packets) + $(drops) >= N - rx_full))
}
dm_wait "the received frames to be transmitted or dropped" delivered
dm_settle

ps_appctl -f json netdev-dummy/dump p2 >"$PS_LOG_DIR/p2.json"
read -r n_out lost dup reordered < <(python3 - "$PS_LOG_DIR/p2.json" "$N" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
# UDP destination port: Ethernet 14 + IPv4 20 + 2 bytes of source port.
seqs = [int(f[72:76], 16) for f in j["frames"]]
seen = set()
dup = reordered = 0
high = 0
for s in seqs:
    if s in seen:
        dup += 1
        continue
    seen.add(s)
    if s < high:
        reordered += 1
    high = max(high, s)
lost = len(set(range(1, n + 1)) - seen)
print(len(seqs), lost, dup, reordered)
PY
)
named=$((rx_full + $(drops)))
ps_info "injected $N: out on p2 $n_out, lost $lost, duplicated $dup," \
    "reordered $reordered; named drops $named (rx queue full $rx_full)"
ps_assert_eq "duplicated frames" 0 "$dup"
ps_assert_eq "reordered frames" 0 "$reordered"
ps_assert_eq "lost frames not in a named drop counter" 0 \
    "$((lost - named))"
ps_assert_eq "p2 tx_packets = frames captured" "$(dm_port_stat p2 tx_packets)" \
    "$((n_out + $(dm_json netdev-dummy/dump p2 -- "j['capture_dropped'] + j['capture_overflow']")))"
dm_assert_captured p1 0
dm_assert_captured p3 0

dm_stop
