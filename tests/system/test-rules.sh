#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: the rule table.  Three namespaces A, B, C on ports p1, p2,
# p3, with rules from the config file:
#
#   priority 200  udp,tp_dst=9              drop      (cookie 0x9)
#   priority 100  in_port=p1,icmp           output:p2 (A's ICMP to B only)
#   priority 10   (everything)              normal
#
# Checked: A pings B but not C; UDP to port 9 is dropped and counted by its
# rule in rule/dump (live flows, then after dpctl/del-flows from the rule's
# own counters); rule/add of a higher-priority drop rule stops the ping
# flows already installed at once (its reply means every PMD has
# revalidated), rule/del --strict restores it; rule/del refuses a bad match; a
# config/reload with a bad rule is refused with file:line:column and
# changes nothing; a config/reload installs the file's rules again,
# replacing rules added with rule/add; a rule that rewrites the IPv4
# destination and the UDP port delivers A's datagrams to another address
# and port of B with checksums B's kernel accepts, and ofproto/trace shows
# the rule, the rewritten final flow and the datapath actions.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup srul

A=srul-a
B=srul-b
C=srul-c
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_ns "$C"
ps_add_veth_to_ns "$A" eth0 srul-a-sw 10.81.0.1/24
ps_add_veth_to_ns "$B" eth0 srul-b-sw 10.81.0.2/24
ps_add_veth_to_ns "$C" eth0 srul-c-sw 10.81.0.3/24

# add_rules FILE MATCH ACTIONS PRIORITY COOKIE [...]: adds rules (groups of
# four arguments) to the bridge of config FILE.
add_rules()
{
    python3 - "$@" <<'EOF'
import json
import sys

path, args = sys.argv[1], sys.argv[2:]
with open(path) as f:
    config = json.load(f)
rules = config["bridges"][0].setdefault("rules", [])
for i in range(0, len(args), 4):
    match, actions, priority, cookie = args[i:i + 4]
    rules.append({"priority": int(priority), "match": match,
                  "actions": actions, "cookie": cookie})
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
EOF
}

# write_config: the config with the rules listed at the top of this file.
write_config()
{
    ps_write_config "$CONFIG" "$PS_TPACKET" p1=srul-a-sw p2=srul-b-sw \
        p3=srul-c-sw
    add_rules "$CONFIG" "udp,tp_dst=9" drop 200 0x9 \
        "in_port=p1,icmp" output:p2 100 0x1 \
        "" normal 10 0x0
}

# json_get JSON EXPR: prints EXPR evaluated in Python with 'd' the JSON.
json_get()
{
    python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(eval(sys.argv[2]))' "$1" "$2"
}

# rule_packets PRIORITY: n_packets of the rule with PRIORITY in rule/dump.
rule_packets()
{
    json_get "$(ps_appctl -f json rule/dump br0)" \
        "sum(r['n_packets'] for r in d if r['priority'] == $1)"
}

# replies NS COUNT DST: number of echo replies to COUNT pings.
replies()
{
    local out
    out=$(ip netns exec "$1" ping -n -q -c "$2" -i 0.05 -w 3 "$3" 2>&1) ||
        true
    sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' <<<"$out"
}

# expect_error TEXT CMD...: appctl CMD must fail with an error with TEXT.
expect_error()
{
    local want=$1 rc=0
    shift
    ps_appctl "$@" >/dev/null 2>"$PS_LOG_DIR/err" || rc=$?
    ps_assert_eq "status of appctl $*" 2 "$rc"
    grep -qF -- "$want" "$PS_LOG_DIR/err" ||
        ps_fail "appctl $*: error \"$(cat "$PS_LOG_DIR/err")\" lacks \"$want\""
}

CONFIG=$PS_LOG_DIR/config.json
write_config
ps_start_daemon "$CONFIG"
PS_LOG_ALLOW+=('config reload from .* failed, nothing changed')

ps_info "rule/dump shows the config's rules, highest priority first"
ps_appctl rule/dump br0 | sed 's/^/    /' >&2
# The NORMAL rule may already have seen IPv6 router solicitations.
dump=$(ps_appctl rule/dump br0 |
    sed 's/duration=[0-9.]*s, n_packets=[0-9]*, n_bytes=[0-9]*/C/')
ps_assert_eq "rule/dump" \
" cookie=0x9, C, priority=200,udp,tp_dst=9 actions=drop
 cookie=0x1, C, priority=100,in_port=p1,icmp actions=output:p2
 cookie=0x0, C, priority=10 actions=NORMAL" "$dump"

ps_info "A's ICMP goes to B only"
ps_ping_all "$A" 10 10.81.0.2
ps_assert_eq "replies from C" 0 "$(replies "$A" 3 10.81.0.3)"
ps_ping_all "$B" 5 10.81.0.3
(($(rule_packets 100) >= 13)) ||
    ps_fail "the ICMP rule counted $(rule_packets 100) packets, want >= 13"

ps_info "UDP to port 9 is dropped and counted"
ip netns exec "$A" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(50):
    s.sendto(b"x" * 100, ("10.81.0.2", 9))'
udp_counted()
{
    (($(rule_packets 200) >= 50))
}
ps_wait_until 3 udp_counted ||
    ps_fail "the UDP rule counted $(rule_packets 200) packets, want 50"
ps_assert_eq "UDP rule n_packets (live flows)" 50 "$(rule_packets 200)"
ps_appctl dpctl/del-flows >/dev/null
ps_assert_eq "UDP rule n_packets after del-flows" 50 "$(rule_packets 200)"

ps_info "rule/add of a drop rule stops an established ping flow at once"
ps_ping_all "$A" 5 10.81.0.2
ps_assert_eq "rule/add reply" "" \
    "$(ps_appctl rule/add br0 'priority=300,in_port=p1,icmp,actions=drop')"
ps_assert_eq "replies after rule/add" 0 "$(replies "$A" 5 10.81.0.2)"
((($(rule_packets 300)) >= 5)) ||
    ps_fail "the new rule counted $(rule_packets 300) packets, want >= 5"
expect_error "rule/del: " rule/del br0 "nw_dst=10.0.0.0/8"
expect_error 'actions: "output:p7": no port named "p7"' \
    rule/add br0 "ip,actions=output:p7"
expect_error '"actions=" is required' rule/add br0 "priority=5,ip"
ps_assert_eq "rule/del --strict" "deleted 1 rule" \
    "$(ps_appctl rule/del br0 --strict 'priority=300,in_port=p1,icmp')"
ps_ping_all "$A" 5 10.81.0.2

ps_info "config/reload with a bad rule changes nothing"
cp "$CONFIG" "$PS_LOG_DIR/good.json"
add_rules "$CONFIG" "ip,nw_dst=10.0.0.0/33" normal 5 0x0
expect_error "config.json:" config/reload
expect_error "rule match: " config/reload
cp "$PS_LOG_DIR/good.json" "$CONFIG"
ps_assert_eq "rules after a bad reload" 3 \
    "$(json_get "$(ps_appctl -f json rule/dump br0)" 'len(d)')"
ps_assert_eq "replies from C after a bad reload" 0 \
    "$(replies "$A" 3 10.81.0.3)"

ps_info "config/reload replaces rules added with rule/add"
ps_appctl rule/add br0 'priority=400,icmp,actions=flood' >/dev/null
ps_ping_all "$A" 3 10.81.0.3
ps_appctl config/reload >/dev/null
ps_assert_eq "rules after reload" 3 \
    "$(json_get "$(ps_appctl -f json rule/dump br0)" 'len(d)')"
ps_assert_eq "replies from C after reload" 0 "$(replies "$A" 3 10.81.0.3)"
ps_ping_all "$A" 3 10.81.0.2

ps_info "a rewrite rule: A's UDP to 10.81.0.50:7000 reaches B's port 7001"
ps_assert_eq "rule/add of a rewrite rule" "" "$(ps_appctl rule/add br0 \
    'priority=500,udp,nw_dst=10.81.0.50,tp_dst=7000,actions=set_field:10.81.0.2->ip_dst,set_field:7001->udp_dst,output:p2')"
trace=$(ps_appctl ofproto/trace br0 \
    "in_port=p1,udp,nw_src=10.81.0.1,nw_dst=10.81.0.50,tp_src=5000,tp_dst=7000")
printf '%s\n' "$trace" | sed 's/^/    /' >&2
grep -q "^ 0\. priority=500,udp,nw_dst=10.81.0.50,tp_dst=7000 actions=" \
    <<<"$trace" || ps_fail "trace does not show the rewrite rule"
grep -q "^Final flow: .*nw_dst=10.81.0.2,.*tp_dst=7001" <<<"$trace" ||
    ps_fail "trace's final flow lacks the rewritten fields"
ps_assert_eq "rewrite datapath actions" \
    "Datapath actions: set(ipv4(dst=10.81.0.2)),set(udp(dst=7001)),1" \
    "$(grep '^Datapath actions:' <<<"$trace")"
ip netns exec "$A" ip neigh replace 10.81.0.50 \
    lladdr "$(ps_mac "$B" eth0)" dev eth0
csum_errors()
{
    ip netns exec "$B" awk '/^Udp: / { n++ } /^Udp: / && n == 2 {
        print $8 }' /proc/net/snmp
}
errors0=$(csum_errors)
ps_bg udp-sink ip netns exec "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.81.0.2", 7001))
open(sys.argv[1], "w").close()
s.settimeout(5)
n = 0
try:
    while n < 20:
        data, peer = s.recvfrom(2048)
        if peer[0] == "10.81.0.1" and data == b"y" * 200:
            n += 1
except socket.timeout:
    pass
print(n)' "$PS_LOG_DIR/sink.ready"
SINK=$PS_BG_PID
sink_ready()
{
    [[ -e $PS_LOG_DIR/sink.ready ]]
}
ps_wait_until 5 sink_ready || ps_fail "the UDP sink in B did not start"
ip netns exec "$A" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20):
    s.sendto(b"y" * 200, ("10.81.0.50", 7000))'
wait "$SINK" || true
ps_assert_eq "datagrams B received on port 7001" 20 \
    "$(tail -n 1 "$PS_LOG_DIR/udp-sink.out")"
ps_assert_eq "UDP checksum errors in B" "$errors0" "$(csum_errors)"
ps_assert_eq "rule/del of the rewrite rule" "deleted 1 rule" \
    "$(ps_appctl rule/del br0 --strict 'priority=500,udp,nw_dst=10.81.0.50,tp_dst=7000')"

ps_info "rule/del without a match deletes every rule: NORMAL again"
ps_assert_eq "rule/del all" "deleted 3 rules" "$(ps_appctl rule/del br0)"
ps_ping_all "$A" 3 10.81.0.3

ps_stop_daemon
ps_check_log
ps_info "PASS"
