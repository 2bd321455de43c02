#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# System test: pmdswitch-appctl against the running daemon.  Traffic
# between two namespaces must show in dpctl/show and pmd-stats-show; bad
# requests get error replies with exit status 2; a second daemon on the
# same socket is refused and leaves the first running; "exit" stops the
# daemon cleanly.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping
ps_require_daemon
ps_setup sctl

A=sctl-a
B=sctl-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 sctl-a-sw 10.79.0.1/24
ps_add_veth_to_ns "$B" eth0 sctl-b-sw 10.79.0.2/24

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sctl-a-sw p2=sctl-b-sw
ps_start_daemon "$CONFIG"

ps_info "commands"
out=$(ps_appctl list-commands)
for cmd in version exit dpctl/show dpif-netdev/pmd-stats-show \
           dpif-netdev/pmd-stats-clear vlog/list vlog/set coverage/show \
           fdb/show fdb/flush other-config/list other-config/get \
           memory/show; do
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
ps_appctl memory/show | grep -q "ports:2 " || ps_fail "memory/show: wrong ports"

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
