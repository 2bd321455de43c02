#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: one tenant cannot hurt the others.  Four namespaces on one
# bridge: B and C are the tenants that must not notice, A attacks, D is
# A's accomplice.  While C streams sequence-numbered datagrams to B
# (tests/system/seq-stream.py counts lost, duplicated and reordered ones
# separately), A sends 1,000 frames a second from new random source MACs
# (tests/system/tenant-attack.py macflood), then random 5-tuples to D
# (tupleflood), and then D's link goes down and up five times a second.
# Afterwards:
#   - C's stream lost and duplicated nothing;
#   - B and C are still learned on their ports, and A holds no more than
#     its mac-limit of 64 entries; the refusals are counted;
#   - none of C's unicast reached A (it was never flooded);
#   - the PMD never swept its flow table: every change was a logged MAC
#     or link, re-checked for the flows that depend on it;
#   - B and C still ping each other.
# Throughput and latency under the same attacks, next to a Linux bridge,
# are bench/tenant-flood.sh's job (no timing is asserted here).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup stf

A=stf-a
B=stf-b
C=stf-c
D=stf-d
for ns in "$A" "$B" "$C" "$D"; do
    ps_add_quiet_ns "$ns"
done
ps_add_veth_to_ns "$A" eth0 stf-a-sw 10.77.9.1/24
ps_add_veth_to_ns "$B" eth0 stf-b-sw 10.77.9.2/24
ps_add_veth_to_ns "$C" eth0 stf-c-sw 10.77.9.3/24
ps_add_veth_to_ns "$D" eth0 stf-d-sw 10.77.9.4/24
ATTACK=$PS_LIB_DIR/tenant-attack.py

CONFIG=$PS_LOG_DIR/config.json
cat >"$CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "pa", "interface": "stf-a-sw",
      "options": { "mac-limit": 64 } },
    { "name": "pb", "interface": "stf-b-sw" },
    { "name": "pc", "interface": "stf-c-sw" },
    { "name": "pd", "interface": "stf-d-sw" } ] } ],
  "other_config": { "use-tpacket-v3": $PS_TPACKET,
                    "pmd-cpu-mask": "${PS_PMD_MASK:-0x2}" } }
JSON
ps_start_daemon "$CONFIG"

ps_ping_all "$C" 3 10.77.9.2
ps_ping_all "$A" 3 10.77.9.4
MAC_B=$(ps_mac "$B" eth0)
MAC_C=$(ps_mac "$C" eth0)
MAC_D=$(ps_mac "$D" eth0)

# pmd_sum FIELD: a PMD counter summed over the PMDs.
pmd_sum()
{
    ps_appctl -f json dpif-netdev/pmd-stats-show | python3 -c '
import json, sys
print(sum(p.get(sys.argv[1], 0) for p in json.load(sys.stdin)))' "$1"
}

# fdb_port MAC: the port MAC is learned on, or "-".
fdb_port()
{
    ps_appctl -f json fdb/show br0 | python3 -c '
import json, sys
ports = [e["port"] for e in json.load(sys.stdin) if e["mac"] == sys.argv[1]]
print(ports[0] if ports else "-")' "$1"
}

# attack WHAT ARG...: runs tenant-attack.py WHAT in A; fails unless it
# sent something.
attack()
{
    local out
    out=$(ps_ns "$A" python3 "$ATTACK" "$@")
    ps_info "attack $1: $out"
    [[ $out =~ ^sent\ [1-9] ]] || ps_fail "attack $1 sent nothing: $out"
}

sweeps=$(pmd_sum reval_sweeps)
a_rx=$(ps_if_stat "$A" eth0 rx_packets)
# B's kernel drops A's frames of an unknown ethertype (its eth0
# rx_dropped): they are no loss of C's stream.
PS_SEQ_UDP_DROPS_ONLY=1
ps_start_seq_stream "$C" "$B" 10.77.9.2 2000 30

attack macflood eth0 1000 2
attack tupleflood eth0 "$MAC_D" 10.77.9.4 5000 2
for ((i = 0; i < 10; i++)); do
    ps_ns "$D" ip link set dev eth0 down
    sleep 0.1
    ps_ns "$D" ip link set dev eth0 up
    sleep 0.1
done
ps_end_seq_stream "C -> B during the attacks" 5000

ps_assert_eq "B's port" pb "$(fdb_port "$MAC_B")"
ps_assert_eq "C's port" pc "$(fdb_port "$MAC_C")"
read -r a_entries a_refused < <(ps_appctl -f json fdb/stats-show br0 |
    python3 -c '
import json, sys
j = json.load(sys.stdin)
pa = [p for p in j["ports"] if p["port"] == "pa"][0]
print(pa["entries"], pa["over_limit"] + pa["rate_limited"])')
[[ $a_entries -le 64 ]] || ps_fail "A holds $a_entries MAC entries"
[[ $a_refused -ge 1000 ]] ||
    ps_fail "only $a_refused of A's 2,000 source MACs were refused"
ps_info "ok: A holds $a_entries entries, $a_refused learns refused"

# A's eth0 got the broadcasts and ARP of the others at most, never C's
# datagrams.
n=$(($(ps_if_stat "$A" eth0 rx_packets) - a_rx))
[[ $n -lt 100 ]] || ps_fail "A received $n frames while C streamed to B"
ps_info "ok: A received $n frames during the stream"

ps_assert_eq "sweeps of the flow table during the attacks" "$sweeps" \
    "$(pmd_sum reval_sweeps)"
ps_ping_all "$C" 5 10.77.9.2
ps_ping_all "$D" 3 10.77.9.1

ps_stop_daemon
ps_check_log
