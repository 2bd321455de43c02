#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# (It runs once: it flips use-tpacket-v3 itself, so it forwards through
# both providers in that one run.)
#
# System test: the switch changes while traffic flows.  A steady UDP
# stream runs from A to B (p1 -> p2) while, one after the other:
#
#   - config/reload of a file with a syntax error is refused with its
#     file:line:column and changes nothing;
#   - config/reload adds port p3 (namespace C), which then forwards;
#   - other-config/set changes emc-insert-inv-prob, smc-enable,
#     pmd-rxq-assign, flow-idle-timeout and mac-aging-time, then
#     pmd-cpu-mask to two PMDs and back to one (rx queues move between
#     PMDs), then pmd-sleep-max and tx-flush-interval; a bad key or value
#     is refused;
#   - dpctl/del-flows empties the flow tables;
#   - SIGHUP reloads a file without p3, which goes away.
#
# Not one datagram of the stream may be lost.  Then use-tpacket-v3 is
# flipped, which reopens every port with the other provider: forwarding
# must carry on, and the port counters continue.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping iperf3 python3
ps_require_daemon
ps_setup slive

A=slive-a
B=slive-b
C=slive-c
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_ns "$C"
ps_add_veth_to_ns "$A" eth0 slive-a-sw 10.79.4.1/24
ps_add_veth_to_ns "$B" eth0 slive-b-sw 10.79.4.2/24
ps_add_veth_to_ns "$C" eth0 slive-c-sw 10.79.4.3/24

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=slive-a-sw p2=slive-b-sw
ps_start_daemon "$CONFIG"
PS_LOG_ALLOW+=('config reload from .* failed, nothing changed'
               'other-config/set: ')
ps_ping_all "$A" 3 10.79.4.2

# json_get JSON EXPR: prints EXPR evaluated in Python with 'd' the JSON.
json_get()
{
    python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(eval(sys.argv[2]))' "$1" "$2"
}

# expect_error STATUS_TEXT CMD...: runs appctl CMD, which must fail with
# status 2 and an error containing STATUS_TEXT.
expect_error()
{
    local want=$1 rc=0
    shift
    ps_appctl "$@" >/dev/null 2>"$PS_LOG_DIR/err" || rc=$?
    ps_assert_eq "status of appctl $*" 2 "$rc"
    grep -qF -- "$want" "$PS_LOG_DIR/err" ||
        ps_fail "appctl $*: error \"$(cat "$PS_LOG_DIR/err")\" lacks \"$want\""
}

n_pmds()
{
    json_get "$(ps_appctl -f json dpif-netdev/pmd-rxq-show)" 'len(d)'
}

ps_info "steady UDP stream A -> B, 2000 datagrams/s for 12 s"
ps_start_stream "$A" "$B" 10.79.4.2 12
sleep 1

ps_info "reload of a broken file changes nothing"
cp "$CONFIG" "$PS_LOG_DIR/good.json"
printf '{\n  "bridges": [\n    { "name": "br0", "ports": [ }\n' >"$CONFIG"
expect_error "config.json:3:" config/reload
cp "$PS_LOG_DIR/good.json" "$CONFIG"
ps_appctl dpctl/show | grep -q "port 1: p2" || ps_fail "p2 gone after a bad reload"

ps_info "reload adds p3"
ps_write_config "$CONFIG" "$PS_TPACKET" p1=slive-a-sw p2=slive-b-sw \
    p3=slive-c-sw
ps_assert_eq "config/reload reply" "ports added: p3" \
    "$(ps_appctl config/reload)"
ps_appctl dpctl/show | grep -q ": p3 (slive-c-sw" || ps_fail "p3 not shown"
ps_ping_all "$A" 3 10.79.4.3

ps_info "other-config/set"
ps_appctl other-config/set emc-insert-inv-prob=1 smc-enable=false \
    pmd-rxq-assign=roundrobin flow-idle-timeout=2000 mac-aging-time=60 \
    >/dev/null
ps_assert_eq "emc-insert-inv-prob" 1 \
    "$(ps_appctl other-config/get emc-insert-inv-prob)"
ps_assert_eq "smc-enable" false "$(ps_appctl other-config/get smc-enable)"
ps_assert_eq "pmd-rxq-assign" roundrobin \
    "$(ps_appctl other-config/get pmd-rxq-assign)"
expect_error 'unknown other_config key "no-such-key"' \
    other-config/set no-such-key=1
expect_error "pmd-cpu-mask" other-config/set pmd-cpu-mask=0x100000
expect_error 'expected KEY=VALUE' other-config/set emc-insert-inv-prob
expect_error 'emc-insert-inv-prob' other-config/set emc-insert-inv-prob=-3
ps_assert_eq "emc-insert-inv-prob after refusals" 1 \
    "$(ps_appctl other-config/get emc-insert-inv-prob)"

ps_info "pmd-cpu-mask 0x3, then back to 0x2"
ps_appctl other-config/set pmd-cpu-mask=0x3 >/dev/null
ps_assert_eq "pmds with mask 0x3" 2 "$(n_pmds)"
rxqs=$(json_get "$(ps_appctl -f json dpif-netdev/pmd-rxq-show)" \
    'sum(len(p["rxqs"]) for p in d)')
ps_assert_eq "rx queues polled" 3 "$rxqs"
ps_ping_all "$A" 3 10.79.4.3
ps_appctl dpif-netdev/pmd-rxq-rebalance >/dev/null
ps_appctl other-config/set pmd-cpu-mask=0x2 >/dev/null
ps_assert_eq "pmds with mask 0x2" 1 "$(n_pmds)"
ps_appctl dpif-netdev/pmd-rxq-show | grep -q "core_id 1:" ||
    ps_fail "pmd-rxq-show: no pmd on core 1"

ps_info "pmd-sleep-max and tx-flush-interval"
ps_appctl other-config/set pmd-sleep-max=200 tx-flush-interval=50 >/dev/null
ps_ping_all "$A" 3 10.79.4.2
sleeps=$(json_get "$(ps_appctl -f json dpif-netdev/pmd-stats-show)" \
    'sum(p["sleeps"] for p in d)')
((sleeps > 0)) || ps_fail "pmd-sleep-max=200: the PMD never slept"
ps_appctl other-config/set pmd-sleep-max=0 tx-flush-interval=0 >/dev/null

ps_info "dpctl/del-flows"
deleted=$(json_get "$(ps_appctl -f json dpctl/del-flows)" 'd["deleted"]')
((deleted >= 1)) || ps_fail "del-flows deleted $deleted flows, want >= 1"

ps_info "SIGHUP reloads a file without p3"
ps_write_config "$CONFIG" "$PS_TPACKET" p1=slive-a-sw p2=slive-b-sw
kill -HUP "$PS_DAEMON_PID"
ps_wait_until 5 bash -c "! '$PS_BUILD/utilities/pmdswitch-appctl' \
    -t '$PS_DAEMON_CTL' dpctl/show | grep -q ': p3 '" ||
    ps_fail "p3 still there 5 s after SIGHUP"
grep -q "config reloaded from .*: ports removed: p3" "$PS_DAEMON_LOG" ||
    ps_fail "SIGHUP reload not logged"

ps_info "waiting for the stream to end"
ps_end_stream "datagrams the switch lost during live changes" 10000

ps_info "use-tpacket-v3 flipped: every port reopened"
before=$(json_get "$(ps_appctl -f json dpctl/show)" \
    '[p["rx_packets"] for p in d["ports"] if p["name"] == "p1"][0]')
if [[ $PS_TPACKET == true ]]; then other=false; type=mmsg;
else other=true; type=tpacket; fi
ps_appctl other-config/set "use-tpacket-v3=$other" >/dev/null
show=$(ps_appctl dpctl/show)
grep -q "p1 (slive-a-sw, $type," <<<"$show" ||
    { echo "$show" >&2; ps_fail "p1 not on the $type provider"; }
ps_ping_all "$A" 5 10.79.4.2
after=$(json_get "$(ps_appctl -f json dpctl/show)" \
    '[p["rx_packets"] for p in d["ports"] if p["name"] == "p1"][0]')
((after >= before + 5)) ||
    ps_fail "p1 rx_packets went from $before to $after across the swap"
ps_appctl other-config/set "use-tpacket-v3=$PS_TPACKET" >/dev/null
ps_ping_all "$A" 5 10.79.4.2

ps_stop_daemon
ps_check_log
ps_info "PASS"
