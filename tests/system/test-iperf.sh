#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: TCP through the switch.  iperf3 runs for 3 s in each
# direction between two namespaces, first with veth's default offloads
# (so the switch sees 64 KB GSO frames with partial checksums and must
# carry their offload metadata), then with transmit offloads off inside
# both namespaces (MTU-sized frames with full checksums).  Each run must
# finish without error, move data, and exceed 100 Mbit/s: a sanity floor
# that only a broken path misses, not a performance check.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip iperf3 ethtool python3
ps_require_daemon
ps_setup stcp

A=stcp-a
B=stcp-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 stcp-a-sw 10.77.1.1/24
ps_add_veth_to_ns "$B" eth0 stcp-b-sw 10.77.1.2/24

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=stcp-a-sw p2=stcp-b-sw
ps_start_daemon "$CONFIG"
ps_start_iperf3_server "$B" 10.77.1.2

FLOOR_BPS=100000000

# run_iperf NAME [IPERF3_ARG...]: one 3 s TCP test from A to B's server;
# fails on any iperf3 error, on no data, or below the sanity floor.
run_iperf()
{
    local name=$1 json=$PS_LOG_DIR/iperf-$1.json rc=0 verdict
    shift
    timeout 30 ip netns exec "$A" iperf3 -c 10.77.1.2 -t 3 -J \
        --connect-timeout 5000 "$@" >"$json" 2>&1 || rc=$?
    verdict=$(python3 - "$json" "$rc" "$FLOOR_BPS" <<'EOF'
import json
import sys

path, rc, floor = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
try:
    with open(path) as f:
        result = json.load(f)
except ValueError:
    print("FAIL iperf3 exited %d without JSON output" % rc)
    sys.exit()
error = result.get("error")
end = result.get("end", {})
received = end.get("sum_received", {})
sent = end.get("sum_sent", {})
nbytes = received.get("bytes", 0)
bps = received.get("bits_per_second", 0.0)
summary = "%d bytes, %.2f Gbit/s, %s retransmits" % (
    nbytes, bps / 1e9, sent.get("retransmits", "?"))
if error or rc != 0:
    print("FAIL iperf3 exit %d, error: %s (%s)" % (rc, error, summary))
elif nbytes <= 0:
    print("FAIL no data received (%s)" % summary)
elif bps <= floor:
    print("FAIL below the %.0f Mbit/s sanity floor (%s)" % (floor / 1e6,
                                                           summary))
else:
    print("OK " + summary)
EOF
)
    if [[ $verdict != OK* ]]; then
        ps_info "iperf3 output in $json:"
        head -c 4000 "$json" >&2
        ps_fail "iperf3 $name: ${verdict#FAIL }"
    fi
    ps_info "ok: iperf3 $name: ${verdict#OK }"
}

ps_info "default offloads"
run_iperf default-a-to-b
run_iperf default-b-to-a -R

ps_info "transmit offloads off in both namespaces"
for ns in "$A" "$B"; do
    ps_ns "$ns" ethtool -K eth0 tx off tso off gso off >/dev/null
done
run_iperf no-offload-a-to-b
run_iperf no-offload-b-to-a -R

ps_kill_bg "$PS_BG_PID"
ps_stop_daemon
ps_check_log

for port in p1 p2; do
    line="$port:"
    for field in rx_packets tx_packets rx_truncated tx_too_big; do
        value=$(ps_stat port "$port" "$field")
        line+=" $field=$value"
    done
    ps_info "$line"
done
ps_info "PASS"
