#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Rules and megaflows see a malformed frame as Open vSwitch parses it.  A
# rule "tcp,tp_dst=80 -> p3" sits above NORMAL.  A TCP frame to port 80
# whose data offset runs past the frame, and one whose IPv4 total length
# runs past it, have no ports to match: NORMAL sends them to B on p2, the
# megaflows they install match tp_dst=0 (never 80), and ofproto/trace says
# the same.  A well-formed frame to port 80 afterwards still takes the
# rule, and so does one whose IP version nibble is 6 (Open vSwitch does
# not check it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmmalf
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b
dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p2)" "$(dm_port p3)"
dm_start

# frame KIND: a TCP SYN from A to B, 10.0.0.1:1000 -> 10.0.0.2:80, in hex,
# well-formed or with one defect.
frame()
{
    python3 - "$1" <<'PY'
import struct, sys
kind = sys.argv[1]
doff = 15 if kind == "doff-past-end" else 5
tcp = struct.pack("!HHIIHHHH", 1000, 80, 1, 0, (doff << 12) | 2, 8192, 0,
                  0)
tot = 40 + (1 if kind == "tot-len-past-end" else 0)
ver = 6 if kind == "version-6" else 4
ip = struct.pack("!BBHHHBBHII", (ver << 4) | 5, 0, tot, 1, 0, 64, 6, 0,
                 0x0a000001, 0x0a000002)
eth = bytes.fromhex("00000000000b00000000000a0800")
print((eth + ip + tcp).hex())
PY
}

ps_appctl rule/add br0 "priority=100,tcp,tp_dst=80,actions=output:p3" \
    >/dev/null
ps_appctl rule/add br0 "priority=0,actions=normal" >/dev/null
# B is learned on p2 (its frame is flooded to p1 and p3).
dm_recv p2 "$(dm_udp $B $A 1)"
dm_wait_stat p1 tx_packets 1
dm_wait_stat p3 tx_packets 1

for kind in doff-past-end tot-len-past-end; do
    hex=$(frame "$kind")
    trace=$(ps_appctl ofproto/trace br0 in_port=p1 "$hex")
    if grep -q 'tp_dst=80' <<<"$trace"; then
        ps_fail "$kind: ofproto/trace shows tp_dst=80: $trace"
    fi
    grep -q 'output:p2\|p2' <<<"$trace" ||
        ps_fail "$kind: ofproto/trace does not go to p2: $trace"
    dm_recv p1 "$hex"
done
dm_wait_stat p2 tx_packets 2
dm_settle
ps_assert_eq "malformed frames taken by the tp_dst=80 rule" 0 \
    "$(($(dm_port_stat p3 tx_packets) - 1))"
flows=$(ps_appctl dpctl/dump-flows -m)
if grep -q 'tp_dst=80' <<<"$flows"; then
    ps_fail "a megaflow matches tp_dst=80: $flows"
fi

# Well-formed, and with version 6 in an IPv4 header: the rule takes both,
# not the megaflows above.
dm_recv p1 "$(frame ok)" "$(frame version-6)"
dm_wait_stat p3 tx_packets 3
dm_settle
ps_assert_eq "frames to B on p2" 2 "$(dm_port_stat p2 tx_packets)"
ps_assert_eq "megaflows that match tp_dst=80" 1 \
    "$(ps_appctl dpctl/dump-flows -m | grep -c 'tp_dst=80' || true)"

dm_stop
ps_info "PASS"
