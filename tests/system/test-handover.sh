#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: a port's receive sockets change hands without losing or
# duplicating a frame.  A sequence-numbered UDP stream (seq-stream.py)
# runs from A to B (p1 -> p2) while, in three rounds, each with a stream
# of its own:
#
#   - use-tpacket-v3 is flipped six times by config/reload: every port is
#     reopened on the other provider (tpacket <-> mmsg);
#   - p1 is reloaded changed four times (n_rxq 1 -> 2 -> 3 -> 1 -> 2): the
#     port is reopened with other sockets;
#   - p1's rx queues move between PMDs: pmd-cpu-mask 0x2 -> 0x3 -> 0x2 and
#     dpif-netdev/pmd-rxq-rebalance in between, three times.
#
# Each round must lose and duplicate no datagram (doc/port-handover.md
# says how); reordered ones are reported.  The tpacket queues are held in
# low-latency mode for these (see below).  A fourth round, tpacket only,
# reloads p1 changed six times with the mode chosen automatically, as
# users run it: the backlog a new port reads when it is first polled must
# not move its queue to the throughput ring, whose few ms of blocks at
# this rate would overflow (doc/port-handover.md, "Limits").
# PS_HANDOVER_ROUNDS (default "1 2 3 4") picks the rounds to run.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup ndpho

A=ndpho-a
B=ndpho-b
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$B"
ps_add_veth_to_ns "$A" eth0 ndpho-a-sw 10.79.57.1/24
ps_add_veth_to_ns "$B" eth0 ndpho-b-sw 10.79.57.2/24

if [[ $PS_TPACKET == true ]]; then OTHER=false; else OTHER=true; fi
CONFIG=$PS_LOG_DIR/config.json
# write TPACKET [N_RXQ]: the config with use-tpacket-v3 TPACKET and p1 on
# N_RXQ rx queues (default 1).
write()
{
    ps_write_config "$CONFIG" "$1" "p1=ndpho-a-sw@${2:-1}" p2=ndpho-b-sw
}
write "$PS_TPACKET"
# The tpacket queues stay in low-latency mode for rounds 1 to 3, which are
# about the hand-over itself; round 4 lets them choose.
export PMDSWITCH_TPACKET_MODE=low-latency
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.57.2

# kernel_drops: frames the kernel dropped on the way from A into the
# switch (A's transmit, the switch side's receive, the CPUs' backlogs), to
# tell such a drop from the switch's.
kernel_drops()
{
    local backlog=0
    local -a f
    while read -r -a f; do
        backlog=$((backlog + 16#${f[1]}))
    done </proc/net/softnet_stat
    echo $(($(ps_if_stat "$A" eth0 tx_dropped) +
        $(ps_if_stat "" ndpho-a-sw rx_dropped) + backlog))
}

# end_round LABEL: ends the round's stream, reporting kernel drops.
end_round()
{
    ps_info "kernel drops on the way in during the round:" \
        "$(($(kernel_drops) - DROPS0))"
    ps_end_seq_stream "$1" 3000
}

# reload: config/reload of the file as written, which must change it.
reload()
{
    ps_appctl config/reload >/dev/null || ps_fail "config/reload failed"
}

round()
{
    [[ " ${PS_HANDOVER_ROUNDS:-1 2 3 4} " == *" $1 "* ]]
}

if round 1; then
ps_info "round 1: use-tpacket-v3 flipped six times"
DROPS0=$(kernel_drops)
ps_start_seq_stream "$A" "$B" 10.79.57.2 5000
sleep 0.5
for tp in "$OTHER" "$PS_TPACKET" "$OTHER" "$PS_TPACKET" "$OTHER" \
    "$PS_TPACKET"; do
    write "$tp"
    reload
    sleep 0.3
done
end_round "use-tpacket-v3 flips"
fi

if round 2; then
ps_info "round 2: p1 reloaded with another n_rxq four times"
DROPS0=$(kernel_drops)
ps_start_seq_stream "$A" "$B" 10.79.57.2 5000
sleep 0.5
for n in 2 3 1 2; do
    write "$PS_TPACKET" "$n"
    reload
    sleep 0.3
done
end_round "p1 reloaded changed"
fi

if round 3; then
ps_info "round 3: rx queues moved between PMDs"
DROPS0=$(kernel_drops)
ps_start_seq_stream "$A" "$B" 10.79.57.2 5000
sleep 0.5
for i in 1 2 3; do
    ps_appctl other-config/set pmd-cpu-mask=0x3 >/dev/null
    sleep 0.2
    ps_appctl dpif-netdev/pmd-rxq-rebalance >/dev/null
    sleep 0.2
    ps_appctl other-config/set pmd-cpu-mask=0x2 >/dev/null
    sleep 0.2
done
end_round "rx queues moved"
fi

if round 4 && [[ $PS_TPACKET == true ]]; then
ps_info "round 4: p1 reloaded changed, the mode chosen automatically"
ps_stop_daemon
unset PMDSWITCH_TPACKET_MODE
write "$PS_TPACKET"
ps_start_daemon "$CONFIG"
DROPS0=$(kernel_drops)
ps_start_seq_stream "$A" "$B" 10.79.57.2 5000
sleep 0.5
for n in 2 3 1 2 3 1; do
    write "$PS_TPACKET" "$n"
    reload
    sleep 0.3
done
end_round "p1 reloaded changed, automatic mode"
fi

ps_stop_daemon
ps_check_log
ps_info "PASS"
