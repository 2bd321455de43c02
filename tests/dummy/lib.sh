# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Helpers for the rootless datapath tests (tests/dummy/test-*.sh), run by
# `make check`: each starts the real daemon with a config of dummy ports
# (no kernel interface, no root), injects frames with netdev-dummy/receive,
# reads what was transmitted with netdev-dummy/dump and drives the test
# clock with time/warp (pmdswitchd --enable-dummy).  It builds on
# tests/system/lib.sh: the daemon is started, recorded and killed by PID
# from a trap there, and ps_check_log fails on an unexpected WARN or ERR.
#
# Logs go to a new directory under /tmp (or $PS_LOG_DIR), removed when the
# test passes and kept, with its path printed, when it fails.
#
# Nothing here waits a fixed time for a result: dm_wait polls a condition
# for up to DM_TIMEOUT seconds (default 5).

# shellcheck shell=bash

DM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../system/lib.sh
source "$DM_LIB_DIR/../system/lib.sh"

DM_TIMEOUT=${DM_TIMEOUT:-5}
DM_OWN_LOG_DIR=

# The exit trap: shows the daemon's log on failure, then cleans up.
ps__on_exit()
{
    local rc=$?
    if [[ $rc -ne 0 && $rc -ne 77 && -n "${PS_DAEMON_LOG:-}" ]]; then
        printf -- '--- tail of %s ---\n' "$PS_DAEMON_LOG" >&2
        tail -n 40 "$PS_DAEMON_LOG" >&2 2>/dev/null || true
    fi
    if [[ -n "$DM_OWN_LOG_DIR" ]]; then
        if [[ $rc -eq 0 ]]; then
            # ps_finish keeps its records in memory too.
            PS_STATE=
            rm -rf -- "$DM_OWN_LOG_DIR"
        else
            printf 'logs kept in %s\n' "$DM_OWN_LOG_DIR" >&2
        fi
    fi
    ps_finish "$rc"
}

# dm_setup PREFIX: starts a test (see ps_setup); needs no root.
dm_setup()
{
    if [[ -z "${PS_LOG_DIR:-}" ]]; then
        PS_LOG_DIR=$(mktemp -d /tmp/pmdsw-dummy.XXXXXX)
        DM_OWN_LOG_DIR=$PS_LOG_DIR
    fi
    PS_TPACKET=false
    ps_require_daemon
    ps_require_cmds python3
    ps_setup "$1"
    DM_CONFIG=$PS_LOG_DIR/config.json
}

# dm_start [ARG...]: starts the daemon on $DM_CONFIG with the test clock.
dm_start()
{
    ps_start_daemon "$DM_CONFIG" --enable-dummy "$@"
}

# dm_stop: stops the daemon (it must exit cleanly) and checks its log.
dm_stop()
{
    ps_stop_daemon
    ps_check_log
}

# dm_udp SRC_MAC DST_MAC SEQ [NW_DST]: a UDP flow from SRC_MAC to DST_MAC
# whose UDP destination port is SEQ (0-65535), for netdev-dummy/receive.
dm_udp()
{
    printf 'dl_src=%s,dl_dst=%s,ip,nw_src=10.0.0.1,nw_dst=%s,nw_ttl=64,udp,tp_src=1000,tp_dst=%s' \
        "$1" "$2" "${4:-10.0.0.2}" "$3"
}

# dm_recv PORT FRAME...: injects frames on PORT; fails if the request does.
dm_recv()
{
    ps_appctl netdev-dummy/receive "$@" >/dev/null ||
        ps_fail "netdev-dummy/receive $1 failed"
}

# dm_json CMD... -- EXPR: runs appctl command CMD in JSON and prints the
# Python expression EXPR evaluated with the reply as 'j'.
dm_json()
{
    local -a cmd=()
    while [[ $# -gt 0 && $1 != -- ]]; do
        cmd+=("$1")
        shift
    done
    shift
    ps_appctl -f json "${cmd[@]}" |
        python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

# dm_port_stat PORT FIELD: a counter of PORT from dpctl/show.
dm_port_stat()
{
    dm_json dpctl/show -- "[p for p in j['ports'] if p['name'] == '$1'][0]['$2']"
}

# dm_captured PORT: how many frames PORT's capture holds.
dm_captured()
{
    dm_json netdev-dummy/dump "$1" -- "len(j['frames'])"
}

# dm_pmd_sum FIELD: a PMD counter summed over every PMD.
dm_pmd_sum()
{
    dm_json dpif-netdev/pmd-stats-show -- "sum(p['$1'] for p in j)"
}

# dm__is PORT FIELD VALUE: true if dm_port_stat PORT FIELD is VALUE.
dm__is()
{
    [[ "$(dm_port_stat "$1" "$2")" == "$3" ]]
}

# dm_wait WHAT CMD...: polls CMD until it succeeds, for DM_TIMEOUT
# seconds; fails the test with WHAT otherwise.
dm_wait()
{
    local what=$1
    shift
    if ! ps_wait_until "$DM_TIMEOUT" "$@"; then
        ps_show_switch_counters
        ps_fail "timed out waiting for $what"
    fi
}

# dm_wait_stat PORT FIELD VALUE: waits until PORT's FIELD is VALUE.
dm_wait_stat()
{
    dm_wait "port $1 $2 = $3 (it is $(dm_port_stat "$1" "$2"))" \
        dm__is "$1" "$2" "$3"
}

# dm_settle: returns once every PMD has gone through two more iterations
# of its loop, so that whatever it was doing with the frames it had
# (transmitting to several ports, revalidating) is finished.
dm_settle()
{
    local before
    before=$(dm_json dpif-netdev/pmd-stats-show -- "[p['iterations'] for p in j if p.get('core_id') is not None]")
    dm_wait "the PMDs to iterate" dm__iterated "$before"
}

dm__iterated()
{
    local now
    now=$(dm_json dpif-netdev/pmd-stats-show -- "[p['iterations'] for p in j if p.get('core_id') is not None]")
    python3 -c 'import sys
b, n = eval(sys.argv[1]), eval(sys.argv[2])
sys.exit(0 if len(b) == len(n) and all(y >= x + 2 for x, y in zip(b, n)) else 1)' "$before" "$now"
}

# dm_assert_captured PORT N: after dm_settle, PORT's capture holds N
# frames.
dm_assert_captured()
{
    ps_assert_eq "frames transmitted on $1" "$2" "$(dm_captured "$1")"
}

# dm_clear PORT...: empties the captures of the PORTs.
dm_clear()
{
    local port
    for port in "$@"; do
        ps_appctl netdev-dummy/dump "$port" --clear >/dev/null
    done
}

# dm_write_config PMD_MASK PORT_JSON...: writes a one-bridge config to
# $DM_CONFIG with the given port objects and pmd-cpu-mask PMD_MASK.
dm_write_config()
{
    local mask=$1 ports
    shift
    ports=$(IFS=,; printf '%s' "$*")
    printf '{ "bridges": [ { "name": "br0", "ports": [ %s ] } ],\n  "other_config": { "pmd-cpu-mask": "%s" } }\n' \
        "$ports" "$mask" >"$DM_CONFIG"
}

# dm_port NAME [N_RXQ]: a dummy port object for dm_write_config.
dm_port()
{
    printf '{ "name": "%s", "type": "dummy", "options": { "n_rxq": %d } }' \
        "$1" "${2:-1}"
}

# dm_ports: the names of the datapath's ports, sorted, on one line.
dm_ports()
{
    dm_json dpctl/show -- "' '.join(sorted(p['name'] for p in j['ports']))"
}

# dm_rxqs: the rx queue placement, as "CORE:PORT/QUEUE" words.
dm_rxqs()
{
    dm_json dpif-netdev/pmd-rxq-show -- "' '.join(sorted('%d:%s/%d' % (p['core_id'], q['port'], q['queue_id']) for p in j for q in p['rxqs']))"
}

# dm_n_flows: how many megaflows dpctl/dump-flows shows.
dm_n_flows()
{
    ps_appctl dpctl/dump-flows | grep -c 'actions:' || true
}
