#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Runs the pmdswitch system tests: every tests/system/test-*.sh (or the ones
# named on the command line), once with use-tpacket-v3 true ("tpacket")
# and once with false ("mmsg"), each under a timeout.  Prints one
# PASS/FAIL/SKIP line per case, the tail of the log of each failed case,
# and a closing "system: N passed, M failed, K skipped" line.  Exits 1 if a
# case failed, 77 if not run as root, else 0.
#
# A test whose header has the line "# Provider-independent." runs in the
# first mode only when both are asked for: what it checks (appctl, config
# errors, slow-path decisions, the daemon's life cycle) does not depend on
# how ports receive, and the suite's time is better spent elsewhere.
#
# Logs: tests/system/logs/TEST-MODE.log (the test's output) and
# tests/system/logs/TEST-MODE/ (configs, daemon logs, tool output).
#
# Usage: run.sh [--mode tpacket|mmsg] [--timeout SECONDS] [TEST...]
#   TEST is a file name or a short name: "ping" means test-ping.sh.
# Environment: PMDSWITCH_BUILD (build tree with vswitchd/pmdswitchd).

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# For ps_cleanup_records, the fallback cleanup after a killed test.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

MODES=(tpacket mmsg)
TIMEOUT=${PS_TEST_TIMEOUT:-120}
TESTS=()

usage()
{
    sed -n 's/^# Usage: //p; s/^#   /  /p' "${BASH_SOURCE[0]}"
    exit "$1"
}

while [[ $# -gt 0 ]]; do
    case $1 in
    --mode)
        [[ $# -ge 2 ]] || usage 2
        case $2 in
        tpacket | mmsg) MODES=("$2") ;;
        *) usage 2 ;;
        esac
        shift 2
        ;;
    --timeout)
        [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage 2
        TIMEOUT=$2
        shift 2
        ;;
    -h | --help)
        usage 0
        ;;
    -*)
        usage 2
        ;;
    *)
        t=$1
        [[ -f "$t" ]] || t=$HERE/${t#test-}
        [[ -f "$t" ]] || t=$HERE/test-${1#test-}
        [[ -f "$t" ]] || t=$t.sh
        if [[ ! -f "$t" ]]; then
            echo "run.sh: no such test: $1" >&2
            exit 2
        fi
        TESTS+=("$t")
        shift
        ;;
    esac
done

if [[ $(id -u) -ne 0 ]]; then
    echo "SKIP: system tests need root"
    exit 77
fi

if [[ ${#TESTS[@]} -eq 0 ]]; then
    for t in "$HERE"/test-*.sh; do
        [[ -f "$t" ]] && TESTS+=("$t")
    done
fi

LOG_ROOT=$HERE/logs
mkdir -p "$LOG_ROOT"

CHILD=
# Invoked by the trap below.
# shellcheck disable=SC2317
on_signal()
{
    echo "run.sh: interrupted" >&2
    if [[ -n "$CHILD" ]]; then
        kill -TERM "$CHILD" 2>/dev/null
        wait "$CHILD" 2>/dev/null
    fi
    fallback_cleanup "$CASE_DIR"
    exit 130
}
trap on_signal INT TERM

# fallback_cleanup CASE_DIR: undoes whatever a test recorded and did not
# undo itself (it was killed, or its trap failed).
fallback_cleanup()
{
    local state=$1/created
    local -a lines=()
    [[ -s "$state" ]] || return 0
    mapfile -t lines <"$state"
    echo "    (cleaning up ${#lines[@]} objects the test left behind)"
    ps_cleanup_records "${lines[@]}"
    : >"$state"
}

n_pass=0
n_fail=0
n_skip=0
CASE_DIR=
for t in "${TESTS[@]}"; do
    name=$(basename "$t" .sh)
    modes=("${MODES[@]}")
    if grep -qx '# Provider-independent\.' "$t"; then
        modes=("${MODES[0]}")
    fi
    for mode in "${modes[@]}"; do
        if [[ $mode == tpacket ]]; then
            tpacket=true
        else
            tpacket=false
        fi
        CASE_DIR=$LOG_ROOT/$name-$mode
        log=$LOG_ROOT/$name-$mode.log
        rm -rf -- "$CASE_DIR"
        mkdir -p -- "$CASE_DIR"
        start=$(date +%s)
        PS_TPACKET=$tpacket PS_LOG_DIR=$CASE_DIR \
            timeout -k 10 "$TIMEOUT" bash "$t" >"$log" 2>&1 &
        CHILD=$!
        wait "$CHILD"
        rc=$?
        CHILD=
        secs=$(($(date +%s) - start))
        fallback_cleanup "$CASE_DIR"
        case $rc in
        0)
            echo "PASS: $name [$mode] (${secs}s)"
            n_pass=$((n_pass + 1))
            ;;
        77)
            reason=$(sed -n 's/^SKIP: //p' "$log" | tail -n 1)
            echo "SKIP: $name [$mode]: ${reason:-skipped}"
            n_skip=$((n_skip + 1))
            ;;
        *)
            if [[ $rc -eq 124 ]]; then
                echo "FAIL: $name [$mode] (timed out after ${TIMEOUT}s)"
            elif [[ $rc -eq 137 ]]; then
                echo "FAIL: $name [$mode] (killed by SIGKILL, ${secs}s)"
            else
                echo "FAIL: $name [$mode] (exit status $rc, ${secs}s)"
            fi
            echo "    --- last lines of $log ---"
            tail -n 30 "$log" | sed 's/^/    /'
            n_fail=$((n_fail + 1))
            ;;
        esac
    done
done

echo "system: $n_pass passed, $n_fail failed, $n_skip skipped"
if [[ $n_fail -ne 0 ]]; then
    exit 1
fi
exit 0
