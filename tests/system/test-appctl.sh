#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: pmdswitch-appctl against the running daemon.  Traffic
# between two namespaces must show in dpctl/show and pmd-stats-show; every
# command listed by list-commands answers in text and in JSON; misuse gets
# exact error replies with exit status 2; a second daemon on the same
# socket is refused and leaves the first running; "exit" stops the daemon
# cleanly.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping
ps_require_daemon
ps_setup sctl

A=sctl-a
B=sctl-b
M=sctl-m
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_ns "$M"
ps_add_veth_to_ns "$A" eth0 sctl-a-sw 10.79.0.1/24
ps_add_veth_to_ns "$B" eth0 sctl-b-sw 10.79.0.2/24
# A bond, so that the bond commands have something to act on.
ps_add_veth_to_ns "$M" eth1 sctl-m1
ps_add_veth_to_ns "$M" eth2 sctl-m2

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sctl-a-sw p2=sctl-b-sw \
    "up0=bond:sctl-m1+sctl-m2,bond_mode=active-backup"
ps_start_daemon "$CONFIG"

ps_info "commands"
out=$(ps_appctl list-commands)
for cmd in version exit dpctl/show dpctl/dump-flows dpctl/del-flows \
           dpif-netdev/pmd-stats-show dpif-netdev/pmd-stats-clear \
           dpif-netdev/pmd-rxq-show dpif-netdev/pmd-perf-show \
           dpif-netdev/pmd-rxq-rebalance vlog/list vlog/set coverage/show \
           fdb/show fdb/flush fdb/stats-show other-config/list \
           other-config/get \
           other-config/set config/reload memory/show; do
    grep -q "^  $cmd" <<<"$out" || ps_fail "list-commands lacks $cmd"
done
ps_assert_eq "version" "pmdswitchd (pmdswitch) $(sed -n \
    's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$PS_BUILD/autoconf.h")" \
    "$(ps_appctl version)"

ps_info "counters follow traffic"
ps_appctl dpif-netdev/pmd-stats-clear
ps_ping_all "$A" 10 10.79.0.2
recv=$(ps_appctl dpif-netdev/pmd-stats-show |
       sed -n 's/^  packets received: //p' | awk '{ s += $1 } END { print s }')
[[ $recv -ge 20 ]] || ps_fail "pmd-stats-show counted $recv packets, want >= 20"
json=$(ps_appctl -f json dpctl/show)
rx=$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(sum(p["rx_packets"] for p in d["ports"] if p["name"] == "p1"))' "$json")
[[ $rx -ge 10 ]] || ps_fail "dpctl/show: p1 received $rx, want >= 10"
ps_appctl dpctl/show | grep -q "port 0: p1 (sctl-a-sw" ||
    ps_fail "dpctl/show does not list p1"

ps_info "fdb"
fdb=$(ps_appctl fdb/show br0)
for mac in "$(ps_mac "$A" eth0)" "$(ps_mac "$B" eth0)"; do
    grep -q "$mac" <<<"$fdb" || ps_fail "fdb/show lacks $mac"
done
ps_appctl fdb/flush br0 >/dev/null
ps_ping_all "$A" 3 10.79.0.2
fdb=$(ps_appctl fdb/show br0)
for mac in "$(ps_mac "$A" eth0)" "$(ps_mac "$B" eth0)"; do
    grep -q "$mac" <<<"$fdb" || ps_fail "fdb/show lacks $mac after flush"
done
rc=0; ps_appctl fdb/show nobridge 2>/dev/null || rc=$?
ps_assert_eq "fdb/show of an unknown bridge status" 2 "$rc"
ps_assert_eq "other-config/get" 100 "$(ps_appctl other-config/get emc-insert-inv-prob)"
# p1, p2, the bond up0 and its two members.
ports=$(ps_appctl memory/show | sed -n "s/.*ports:\([0-9]*\) .*/\1/p")
ps_assert_eq "memory/show ports" 5 "$ports"

ps_info "every command, in text and in JSON"
# Arguments for the commands that need some; "exit" comes last.
declare -A ARGS=(
    [fdb/show]=br0 [fdb/flush]=br0 [fdb/stats-show]=br0
    [other-config/get]=smc-enable
    [other-config/set]=smc-enable=true [vlog/set]=pmd:file:info
    [dpif-netdev/pmd-stats-show]="-pmd 1" [dpif-netdev/pmd-perf-show]="-pmd 1"
    [dpif-netdev/pmd-rxq-show]="-pmd 1" [dpctl/dump-flows]=-m
    [ofproto/trace]="br0 in_port=p1"
    [rule/add]="br0 priority=1,actions=normal" [rule/del]=br0 [rule/dump]=br0
    [bond/show]=up0 [bond/disable-member]="up0 sctl-m2"
    [bond/enable-member]="up0 sctl-m2" [bond/set-active-member]="up0 sctl-m1"
    [add-br]="--may-exist brx"
    [add-port]="--may-exist brx q9 type=patch options:peer=q8"
    [del-br]="--if-exists br8" [del-port]="--if-exists q7"
    [list-ports]=brx [port-to-br]=q9 [set-port]="q9 tag=5"
    [dpctl/capture]="p1 $PS_LOG_DIR/p1.pcapng"
    [dpctl/capture-drops]="$PS_LOG_DIR/drops.pcapng"
)
commands=$(ps_appctl -f json list-commands |
           python3 -c 'import json, sys
print(" ".join(c["name"] for c in json.load(sys.stdin)))')
n=0
for cmd in $commands; do
    [[ $cmd == exit ]] && continue
    read -r -a args <<<"${ARGS[$cmd]:-}"
    ps_appctl "$cmd" "${args[@]}" >"$PS_LOG_DIR/text.out" ||
        ps_fail "appctl $cmd ${args[*]} failed in text"
    ps_appctl -f json "$cmd" "${args[@]}" >"$PS_LOG_DIR/json.out" ||
        ps_fail "appctl -f json $cmd ${args[*]} failed"
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
        "$PS_LOG_DIR/json.out" 2>/dev/null ||
        ps_fail "appctl -f json $cmd: not JSON: $(head -c 200 "$PS_LOG_DIR/json.out")"
    n=$((n + 1))
done
((n >= 20)) || ps_fail "only $n commands listed"
ps_info "ok: $n commands answer in text and JSON"
# The commands above included rule/add and rule/del: unless a runtime
# change after them did already, the reload puts the file's rules back,
# and says only that.
out=$(ps_appctl config/reload)
[[ $out == "no changes" ||
   $out == "rules added or deleted at run time replaced by the config's on br0" ]] ||
    ps_fail "config/reload of the same file: $out"
ps_assert_eq "config/reload again" "no changes" "$(ps_appctl config/reload)"

ps_info "exact errors for misuse"
# expect_error MESSAGE CMD...: appctl CMD must fail with status 2 and
# exactly MESSAGE.
expect_error()
{
    local want=$1 rc=0 got
    shift
    got=$(ps_appctl "$@" 2>&1 >/dev/null) || rc=$?
    ps_assert_eq "status of appctl $*" 2 "$rc"
    ps_assert_eq "error of appctl $*" "$want" "$(head -n 1 <<<"$got")"
}
expect_error '"version" command takes at most 0 arguments' version extra
expect_error '"fdb/show" command requires at least 1 arguments' fdb/show
expect_error 'no bridge named br9' fdb/show br9
expect_error '-pmd takes a core number, not "x"' \
    dpif-netdev/pmd-stats-show -pmd x
expect_error 'no pmd thread on core 0' dpif-netdev/pmd-rxq-show -pmd 0
expect_error 'usage: dpif-netdev/pmd-perf-show [-pmd CORE]' \
    dpif-netdev/pmd-perf-show -x 1
expect_error 'usage: dpctl/dump-flows [-m]' dpctl/dump-flows -x
expect_error '"smc-enable" must be true or false, got "maybe"' \
    other-config/set smc-enable=maybe
expect_error '"pmd-sleep-max" must be an integer from 0 to 10000, got 99999' \
    other-config/set pmd-sleep-max=99999
expect_error '"emc-insert-inv-prob": expected KEY=VALUE' \
    other-config/set emc-insert-inv-prob
known="pmd-cpu-mask, use-tpacket-v3, emc-insert-inv-prob, smc-enable"
got=$(ps_appctl other-config/get nokey 2>&1 >/dev/null || true)
[[ $got == 'unknown other_config key "nokey" (known keys: '"$known"* ]] ||
    ps_fail "other-config/get nokey: \"$got\""
ps_assert_eq "smc-enable after refused sets" true \
    "$(ps_appctl other-config/get smc-enable)"

ps_info "errors"
rc=0; ps_appctl no-such-command 2>"$PS_LOG_DIR/err" || rc=$?
ps_assert_eq "unknown command status" 2 "$rc"
grep -q '"no-such-command" is not a valid command' "$PS_LOG_DIR/err" ||
    ps_fail "unknown command: wrong message"
rc=0; ps_appctl version extra 2>"$PS_LOG_DIR/err" || rc=$?
ps_assert_eq "too many arguments status" 2 "$rc"
rc=0; ps_appctl vlog/set nomodule:dbg 2>/dev/null || rc=$?
ps_assert_eq "bad vlog/set status" 2 "$rc"
ps_appctl vlog/set pmd:file:dbg
ps_appctl vlog/list | grep -q '^pmd ' || ps_fail "vlog/list lacks pmd"

ps_info "a second daemon on the same socket is refused"
rc=0
"$PS_DAEMON" --config "$CONFIG" --unixctl="$PS_DAEMON_CTL" \
    >"$PS_LOG_DIR/second.out" 2>&1 || rc=$?
ps_assert_eq "second daemon status" 1 "$rc"
grep -q "another pmdswitchd is listening" "$PS_LOG_DIR/second.out" ||
    ps_fail "second daemon: wrong message"
ps_appctl version >/dev/null || ps_fail "first daemon stopped answering"

ps_info "exit"
ps_appctl exit
for ((i = 0; i < 50; i++)); do
    ps_exited "$PS_DAEMON_PID" && break
    sleep 0.1
done
ps_exited "$PS_DAEMON_PID" || ps_fail "daemon still running after exit"
rc=0; wait "$PS_DAEMON_PID" || rc=$?
PS_DAEMON_PID=
ps_assert_eq "daemon status after exit" 0 "$rc"
[[ ! -e $PS_DAEMON_CTL ]] || ps_fail "control socket left behind"
rc=0; ps_appctl version 2>/dev/null || rc=$?
ps_assert_eq "no daemon status" 1 "$rc"
ps_check_log
ps_info "PASS"
