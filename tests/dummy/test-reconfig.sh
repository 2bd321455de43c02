#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Reconfiguring a running switch of dummy ports, no root: a config reload
# adds a port (frames reach it) and removes one (none reach it, appctl no
# longer knows it); bad configs, rejected while parsing or while being
# applied, leave the running switch as it was; a pmd-cpu-mask change
# moves rx queues between the two PMDs and traffic keeps flowing; a port
# reopened with other options keeps its counters; and without
# --enable-dummy the daemon refuses dummy ports with a clear error.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmreconf
A=00:00:00:00:00:0a
BCAST=ff:ff:ff:ff:ff:ff
# Failed reloads are logged as warnings; these are the ones we cause.
PS_LOG_ALLOW=('config reload from .* failed, nothing changed')

# reload: runs config/reload, which must succeed.
reload()
{
    ps_appctl config/reload >/dev/null || ps_fail "config/reload failed"
}

# reload_fails PATTERN: config/reload must fail with an error matching
# PATTERN.
reload_fails()
{
    local out
    if out=$(ps_appctl config/reload 2>&1); then
        ps_fail "config/reload accepted a bad config: $out"
    fi
    if ! grep -qE -- "$1" <<<"$out"; then
        ps_fail "config/reload error '$out' does not match '$1'"
    fi
    ps_info "ok: rejected: $out"
}

# flood_from PORT SEQ: a broadcast from A on PORT.
flood_from()
{
    dm_recv "$@" "$(dm_udp $A $BCAST "${SEQ}")"
    SEQ=$((SEQ + 1))
}
SEQ=1

dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p2)"

# Without --enable-dummy the daemon refuses dummy ports, and says why.
if out=$(timeout 20 "$PS_DAEMON" \
             --config "$DM_CONFIG" --unixctl "$PS_LOG_DIR/no-dummy.ctl" \
             2>&1 </dev/null); then
    ps_fail "pmdswitchd started with dummy ports and no --enable-dummy"
fi
grep -q 'port p1: interface p1: port type "dummy" is for tests (no kernel interface): start pmdswitchd with --enable-dummy to use it' \
    <<<"$out" || ps_fail "no clear error without --enable-dummy: $out"
ps_info "ok: refused without --enable-dummy"

dm_start
ps_assert_eq "ports" "p1 p2" "$(dm_ports)"

# A port added by a reload gets traffic.
dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p2)" "$(dm_port p3 2)"
reload
ps_assert_eq "ports after adding p3" "p1 p2 p3" "$(dm_ports)"
flood_from p1
dm_wait_stat p3 tx_packets 1
dm_wait_stat p2 tx_packets 1

# A port removed by a reload gets none, and is gone from appctl.
dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p3 2)"
reload
ps_assert_eq "ports after removing p2" "p1 p3" "$(dm_ports)"
flood_from p1
dm_wait_stat p3 tx_packets 2
if out=$(ps_appctl netdev-dummy/dump p2 2>&1); then
    ps_fail "netdev-dummy/dump p2 works after p2 was removed: $out"
fi
ps_info "ok: p2 is gone: $out"
dm_settle
ps_assert_eq "port-gone drops" 0 "$(dm_pmd_sum drop_port_gone)"

# Bad configs change nothing, whether the parser rejects them...
good=$(cat "$DM_CONFIG")
printf '%s\n' '{ "bridges": [ { "name": "br0", "ports": [
  { "name": "p1", "type": "dummy" },
  { "name": "p4", "type": "dummy", "create": true } ] } ] }' >"$DM_CONFIG"
reload_fails '"create": true is not allowed on ports of type "dummy"'
printf '%s\n' '{ "bridges": [ { "name": "br0", "ports": [
  { "name": "p1", "type": "dumy" } ] } ] }' >"$DM_CONFIG"
reload_fails '"type"'
printf '%s\n' '{ "bridges": [ { "name": "br0", "ports": [
  { "name": "p1", "type": "dummy" },
  { "name": "p5", "type": "tap", "options": { "pcap": "/tmp/x" } } ] } ] }' \
    >"$DM_CONFIG"
reload_fails '"pcap" is only allowed on ports of type "dummy"'
# ...or the datapath refuses them after opening a new port (p4): core 7
# does not exist, and p4 is closed again.
dm_write_config 0x80 "$(dm_port p1)" "$(dm_port p3 2)" "$(dm_port p4)"
reload_fails 'pmd-cpu-mask 0x80 names core 7'
ps_assert_eq "ports after the bad configs" "p1 p3" "$(dm_ports)"
ps_assert_eq "rx queues after the bad configs" "0:p1/0 0:p3/0 0:p3/1" \
    "$(dm_rxqs)"
flood_from p1
dm_wait_stat p3 tx_packets 3
printf '%s\n' "$good" >"$DM_CONFIG"
reload

# pmd-cpu-mask 0x1 -> 0x3: the rx queues spread over both cores.
if (($(nproc) < 2)); then
    dm_stop
    ps_skip "the rx queue move needs 2 cores"
fi
ps_assert_eq "rx queues on core 0" "0:p1/0 0:p3/0 0:p3/1" "$(dm_rxqs)"
dm_write_config 0x3 "$(dm_port p1)" "$(dm_port p3 2)"
reload
after=$(dm_rxqs)
ps_info "rx queues with 0x3: $after"
# Both PMDs poll something now (which queue goes where is the
# assignment's business).
[[ " $after " == *" 0:"* ]] || ps_fail "core 0 polls nothing with 0x3: $after"
[[ " $after " == *" 1:"* ]] || ps_fail "core 1 polls nothing with 0x3: $after"
ps_info "ok: both cores poll rx queues"
# Traffic still flows, from every queue of p3.
dm_recv p3 --qid 0 "$(dm_udp 00:00:00:00:00:0c $BCAST 100)"
dm_recv p3 --qid 1 "$(dm_udp 00:00:00:00:00:0c $BCAST 101)"
flood_from p1
dm_wait_stat p1 tx_packets 2
dm_wait_stat p3 tx_packets 4

# 0x3 -> 0x2: everything moves to core 1.
dm_write_config 0x2 "$(dm_port p1)" "$(dm_port p3 2)"
reload
ps_assert_eq "rx queues with 0x2" "1:p1/0 1:p3/0 1:p3/1" "$(dm_rxqs)"
dm_recv p3 --qid 1 "$(dm_udp 00:00:00:00:00:0c $BCAST 102)"
flood_from p1
dm_wait_stat p1 tx_packets 3
dm_wait_stat p3 tx_packets 5

# p3 reopened with other options under its own name: a new port with the
# same name counts on from where the old one stopped.
rx_before=$(dm_port_stat p3 rx_packets)
dm_write_config 0x2 "$(dm_port p1)" "$(dm_port p3 1)"
reload
ps_assert_eq "p3's rx queues after the reopen" "1:p1/0 1:p3/0" "$(dm_rxqs)"
ps_assert_eq "p3 rx_packets after the reopen" "$rx_before" \
    "$(dm_port_stat p3 rx_packets)"
ps_assert_eq "p3 tx_packets after the reopen" 5 "$(dm_port_stat p3 tx_packets)"
dm_recv p3 "$(dm_udp 00:00:00:00:00:0c $BCAST 103)"
flood_from p1
dm_wait_stat p3 rx_packets $((rx_before + 1))
dm_wait_stat p3 tx_packets 6

dm_stop
