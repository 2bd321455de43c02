#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: a tenant cannot flood the daemon's log.  Namespace A flaps
# its end of the veth on p1 (down, up, as fast as ip(8) goes) for 2 s, so
# the link monitor sees p1 go down and up dozens of times.  Each of the
# messages that follow (link down, link up, the rx queue placed again) is
# rate-limited by its own token bucket: the log gains at most what the
# buckets allow over the run (burst plus rate times the time), however many
# flaps there were, the last of each says how many were suppressed, and p1
# forwards again afterwards.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup smlflap

A=smlflap-a
B=smlflap-b
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$B"
ps_add_veth_to_ns "$A" eth0 smlflap-a-sw 10.79.77.1/24
ps_add_veth_to_ns "$B" eth0 smlflap-b-sw 10.79.77.2/24

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=smlflap-a-sw p2=smlflap-b-sw
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.77.2

# p1 FIELD: a field of p1 in dpctl/show's JSON.
p1()
{
    ps_appctl -f json dpctl/show | python3 -c 'import json, sys
d = json.load(sys.stdin)
print([p for p in d["ports"] if p["name"] == "p1"][0][sys.argv[1]])' "$1"
}

# The buckets of the causes a flap sets off (lib/dp/dp-link.c, dp.c):
# link down and link up at 1 message/s with a burst of 5 each, the rx
# queue placement at 1/s with a burst of 16.
BURSTS=$((5 + 5 + 16))
RATES=3

lines_before=$(wc -l <"$PS_DAEMON_LOG")
downs_before=$(p1 n_down)
start=$SECONDS
ps_info "flapping A's eth0 for 2 s"
end=$((SECONDS + 2))
while ((SECONDS < end)); do
    ps_ns "$A" ip link set dev eth0 down
    ps_ns "$A" ip link set dev eth0 up
done
p1_up()
{
    [[ $(p1 state) == up ]]
}
ps_wait_until 5 p1_up || ps_fail "p1 is $(p1 state), not up"
# Let the monitor work through what is queued before counting.
sleep 1
elapsed=$((SECONDS - start + 1))
flaps=$(($(p1 n_down) - downs_before))
lines=$(($(wc -l <"$PS_DAEMON_LOG") - lines_before))
limit=$((BURSTS + RATES * elapsed))
ps_info "$flaps flaps in about $elapsed s added $lines log lines" \
    "(limit $limit)"
# Without rate limits every flap logs at least two lines; with fewer
# flaps than the limit this run could not tell.
((flaps > limit)) || ps_fail "only $flaps flaps seen, need more than $limit"
((lines <= limit)) || ps_fail "$lines log lines for $flaps flaps:
$(tail -n "$lines" "$PS_DAEMON_LOG")"
# A bucket refills within the run, so some message reports the drops.
tail -n "$lines" "$PS_DAEMON_LOG" |
    grep -qE 'port p1: link (up|down).*similar messages? suppressed' ||
    ps_fail "no message reports suppressed ones"

ps_ping_all "$A" 3 10.79.77.2
ps_stop_daemon
ps_check_log
ps_info "PASS"
