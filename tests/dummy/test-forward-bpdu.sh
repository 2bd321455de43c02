#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# forward-bpdu, a bridge's own other_config as in Open vSwitch: by default
# NORMAL drops frames to reserved multicast addresses (an STP BPDU, LLDP,
# LACP, CDP), counts them as normal_drop_reserved_multicast and learns no
# source from them (the counter counts the frames that reach the slow
# path; later ones hit the dropping megaflow), while the address just past
# the reserved range floods.
# A config/reload that sets forward-bpdu true makes the same frames flood
# and teach their source, through the megaflows already installed; one
# that sets it false again drops them again.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmbpdu
A=00:00:00:00:00:0a

# write_config FORWARD_BPDU
write_config()
{
    cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0",
    "ports": [ $(dm_port p1), $(dm_port p2), $(dm_port p3) ],
    "other_config": { "forward-bpdu": $1 } } ],
  "other_config": { "pmd-cpu-mask": "0x1", "flow-idle-timeout": 600000 } }
JSON
}

# frame DST ETHERTYPE_OR_LENGTH: a 60-byte frame from A to DST, in hex.
frame()
{
    printf '%s%s%s%s' "$(tr -d : <<<"$1")" "$(tr -d : <<<"$A")" "$2" \
        "$(printf '42%.0s' {1..46})"
}

STP=$(frame 01:80:c2:00:00:00 0026)
LACP=$(frame 01:80:c2:00:00:02 8809)
LLDP=$(frame 01:80:c2:00:00:0e 88cc)
CDP=$(frame 01:00:0c:cc:cc:cc 0026)
NOT_RESERVED=$(frame 01:80:c2:00:00:10 88b5)

drops()
{
    dm_json coverage/show -- \
        "j.get('normal_drop_reserved_multicast', {}).get('total', 0)"
}

learned_a()
{
    ps_appctl fdb/show br0 | grep -c "$A" || true
}

write_config false
dm_start
dm_recv p1 "$STP" "$LACP" "$LLDP" "$CDP"
dm_settle
ps_assert_eq "reserved frames sent to p2" 0 "$(dm_port_stat p2 tx_packets)"
ps_assert_eq "reserved frames sent to p3" 0 "$(dm_port_stat p3 tx_packets)"
ps_assert_eq "reserved frames counted" 4 "$(drops)"
ps_assert_eq "A learned from reserved frames" 0 "$(learned_a)"

# The same frames again hit the dropping megaflows.
dm_recv p1 "$STP" "$LLDP"
dm_settle
ps_assert_eq "reserved frames counted once per flow" 4 "$(drops)"
ps_assert_eq "packets of the dropping megaflows" 6 \
    "$(ps_appctl dpctl/dump-flows -m | sed -n 's/.*packets:\([0-9]*\),.*actions:drop$/\1/p' | awk '{ n += $1 } END { print n + 0 }')"

# The address just past the reserved range floods and teaches A.
dm_recv p1 "$NOT_RESERVED"
dm_wait_stat p2 tx_packets 1
dm_wait_stat p3 tx_packets 1
ps_assert_eq "A learned from the unreserved frame" 1 "$(learned_a)"
ps_appctl fdb/flush br0 >/dev/null

write_config true
ps_appctl config/reload >/dev/null || ps_fail "config/reload failed"
dm_recv p1 "$STP" "$LACP" "$LLDP" "$CDP"
dm_wait_stat p2 tx_packets 5
dm_wait_stat p3 tx_packets 5
dm_settle
ps_assert_eq "A learned with forward-bpdu true" 1 "$(learned_a)"
ps_assert_eq "drops with forward-bpdu true" 4 "$(drops)"

write_config false
ps_appctl config/reload >/dev/null || ps_fail "config/reload failed"
dm_recv p1 "$STP" "$LLDP"
dm_settle
ps_assert_eq "frames flooded after forward-bpdu went false" 5 \
    "$(dm_port_stat p2 tx_packets)"
ps_assert_eq "frames to p3 after forward-bpdu went false" 5 \
    "$(dm_port_stat p3 tx_packets)"

dm_stop
ps_info "PASS"
