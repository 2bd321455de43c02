#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Port mirrors on dummy ports, no root: a mirror of what p1 receives sends
# p3 an exact copy of each frame; p3, the output port, gets no flooded
# frame and what it receives is dropped and not learned; mirror/show
# counts the copies (live flows included); a reload turns the mirror into
# one of what p2 sends and keeps its counters; two mirrors to the same
# output copy a frame once.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmmirror
# The bad reload at the end is logged; this is the one we cause.
PS_LOG_ALLOW=('config reload from .* failed, nothing changed')
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b
C=00:00:00:00:00:0c

# write_config MIRRORS_JSON: four dummy ports and the given mirrors.
write_config()
{
    cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "p1", "type": "dummy" },
    { "name": "p2", "type": "dummy" },
    { "name": "p3", "type": "dummy" },
    { "name": "p4", "type": "dummy" } ],
    "mirrors": $1 } ],
  "other_config": { "pmd-cpu-mask": "0x1" } }
JSON
}

# mirror_stat NAME FIELD: a counter of mirror NAME from mirror/show.
mirror_stat()
{
    dm_json mirror/show br0 -- "[m for m in j[0]['mirrors'] if m['name'] == '$1'][0]['$2']"
}

write_config '[ { "name": "m0", "select_src_port": ["p1"], "output_port": "p3" } ]'
dm_start

# A to unknown B: flooded to p2 and p4 (not p3, reserved), and copied to
# p3 exactly as received.
FRAME=$(dm_udp $A $B 1)
dm_recv p1 "$FRAME"
dm_wait_stat p3 tx_packets 1
dm_wait_stat p2 tx_packets 1
dm_wait_stat p4 tx_packets 1
dm_settle
dm_assert_captured p3 1
ps_assert_eq "mirror copy is the frame received" \
    "$(ps_appctl netdev-dummy/dump p2 | tail -n 1)" \
    "$(ps_appctl netdev-dummy/dump p3 | tail -n 1)"
ps_assert_eq "trace shows the copy" 1 \
    "$(ps_appctl ofproto/trace br0 "in_port=p1,$FRAME" | grep -c 'mirror m0: copy to port p3')"

# The same flow again: the megaflow copies it, and mirror/show counts the
# live flow.
dm_recv p1 "$FRAME"
dm_wait_stat p3 tx_packets 2
dm_settle
ps_assert_eq "m0 tx_packets" 2 "$(mirror_stat m0 tx_packets)"
ps_assert_eq "m0 tx_bytes = what p3 sent" "$(dm_port_stat p3 tx_bytes)" \
    "$(mirror_stat m0 tx_bytes)"

# B answers from p2 (to A, learned on p1): p1 is not a destination of m0.
dm_recv p2 "$(dm_udp $B $A 2)"
dm_wait_stat p1 tx_packets 1
dm_settle
dm_assert_captured p3 2

# C on p3 (the mirror output): dropped, nowhere forwarded, not learned.
dm_recv p3 "$(dm_udp $C $A 3)"
dm_settle
ps_assert_eq "p1 got nothing from p3" 1 "$(dm_port_stat p1 tx_packets)"
ps_assert_eq "C not learned" 0 \
    "$(dm_json fdb/show br0 -- "len([e for e in j if e['mac'] == '$C'])")"

# Reload: m0 now mirrors what p2 sends; it keeps its counters.
write_config '[ { "name": "m0", "select_dst_port": ["p2"], "output_port": "p3" } ]'
ps_appctl config/reload >/dev/null
dm_clear p1 p2 p3 p4
dm_recv p1 "$(dm_udp $A $B 4)"          # B is known on p2
dm_recv p2 "$(dm_udp $B $A 5)"          # to p1: not mirrored
dm_wait_stat p3 tx_packets 3
dm_settle
dm_assert_captured p3 1
ps_assert_eq "copy of what p2 sent" \
    "$(ps_appctl netdev-dummy/dump p2 | tail -n 1)" \
    "$(ps_appctl netdev-dummy/dump p3 | tail -n 1)"
ps_assert_eq "m0 kept its counters" 3 "$(mirror_stat m0 tx_packets)"

# Two mirrors to p3 select the same frame (received on p1, sent on p2):
# one copy, credited to the first mirror.
write_config '[ { "name": "m0", "select_src_port": ["p1"], "output_port": "p3" },
                { "name": "m1", "select_dst_port": ["p2"], "output_port": "p3" } ]'
ps_appctl config/reload >/dev/null
dm_clear p3
dm_recv p1 "$(dm_udp $A $B 6)"
dm_wait_stat p3 tx_packets 4
dm_settle
dm_assert_captured p3 1
ps_assert_eq "m0 counts the copy" 4 "$(mirror_stat m0 tx_packets)"
ps_assert_eq "m1 counts nothing" 0 "$(mirror_stat m1 tx_packets)"
ps_assert_eq "text layout" "  output_port: p3" \
    "$(ps_appctl mirror/show br0 | grep -m1 output_port)"

# A bad mirror is refused with its position, and nothing changes.
write_config '[ { "name": "m0", "select_src_port": ["p3"], "output_port": "p3" } ]'
if ps_appctl config/reload >"$PS_LOG_DIR/bad.out" 2>&1; then
    ps_fail "a mirror that selects its own output port was accepted"
fi
grep -q ':[0-9]*:[0-9]*: mirror "m0" selects port "p3", which is the output port of mirror "m0"' \
    "$PS_LOG_DIR/bad.out" || ps_fail "unexpected error: $(cat "$PS_LOG_DIR/bad.out")"
ps_assert_eq "mirrors unchanged" "m0 m1" \
    "$(dm_json mirror/show br0 -- "' '.join(m['name'] for m in j[0]['mirrors'])")"

dm_stop
