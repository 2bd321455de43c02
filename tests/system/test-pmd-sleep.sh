#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# System test: an idle PMD's sleep (pmd-sleep-max) and its prediction of
# periodic traffic (pmd-sleep-predict).  Pings 10 ms apart, A -> B:
#
#   - with the defaults, the PMD sleeps between them, learns their period
#     and polls around the time each is due: predicted_polls and
#     predicted_hits move;
#   - with pmd-sleep-predict false, it sleeps but never predicts;
#   - with pmd-sleep-max 0 it neither sleeps nor predicts.
#
# No ping may be lost in any of them.  How much latency and CPU each
# costs is bench/pmd-sleep.sh's business, not a test's.
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup sslp

A=sslp-a
B=sslp-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 sslp-a-sw 10.79.12.1/24
ps_add_veth_to_ns "$B" eth0 sslp-b-sw 10.79.12.2/24
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sslp-a-sw p2=sslp-b-sw
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 3 10.79.12.2

# counters: "SLEEPS POLLS HITS", summed over the PMDs.
counters()
{
    ps_appctl -f json dpif-netdev/pmd-stats-show | python3 -c 'import json, sys
pmds = [t for t in json.load(sys.stdin) if "core_id" in t]
print(*(sum(t[k] for t in pmds)
        for k in ("sleeps", "predicted_polls", "predicted_hits")))'
}

# pings COUNT: COUNT pings 10 ms apart, A -> B; fails if one is lost.
pings()
{
    local out
    out=$(ip netns exec "$A" ping -n -q -c "$1" -i 0.01 -W 2 10.79.12.2) ||
        ps_fail "ping lost replies: $out"
}

ps_info "defaults: pmd-sleep-max 1000, pmd-sleep-predict true"
read -r s0 p0 h0 <<<"$(counters)"
pings 300
read -r s1 p1 h1 <<<"$(counters)"
ps_info "sleeps +$((s1 - s0)), predicted polls +$((p1 - p0)), hits +$((h1 - h0))"
((s1 > s0)) || ps_fail "the PMD never slept between pings 10 ms apart"
# How many windows open and catch their ping depends on how the host
# schedules this machine (bench/pmd-sleep.sh measures it); that some do
# is what is checked.
((p1 - p0 >= 10)) ||
    ps_fail "the PMD predicted $((p1 - p0)) of 300 pings 10 ms apart"
((h1 > h0)) || ps_fail "no predicted window saw its ping"

ps_info "pmd-sleep-predict false"
ps_appctl other-config/set pmd-sleep-predict=false >/dev/null
read -r s0 p0 h0 <<<"$(counters)"
pings 100
read -r s1 p1 h1 <<<"$(counters)"
((s1 > s0)) || ps_fail "pmd-sleep-predict false: the PMD never slept"
ps_assert_eq "predicted polls with pmd-sleep-predict false" 0 $((p1 - p0))

ps_info "pmd-sleep-max 0 busy-polls"
ps_appctl other-config/set pmd-sleep-max=0 pmd-sleep-predict=true >/dev/null
sleep 0.1
read -r s0 p0 h0 <<<"$(counters)"
pings 100
read -r s1 p1 h1 <<<"$(counters)"
ps_assert_eq "sleeps with pmd-sleep-max 0" 0 $((s1 - s0))
ps_assert_eq "predicted polls with pmd-sleep-max 0" 0 $((p1 - p0))

ps_stop_daemon
ps_check_log
ps_info "PASS"
