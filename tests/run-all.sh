#!/bin/bash
# Builds pmdswitch from a fresh checkout and runs the whole test suite:
# unit tests (make check) and system tests (the real daemon between network
# namespaces, once with use-tpacket-v3 true and once false).
#
# Usage: sudo tests/run-all.sh
# Ends with one line "N passed, M failed" and exits non-zero on failure.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)

if [ "$(id -u)" != 0 ]; then
    echo "tests/run-all.sh: run as root: the system tests create network" \
         "namespaces and the daemon opens packet sockets" >&2
    exit 1
fi

step() { printf '\n=== %s\n' "$*"; }

step "installing dependencies"
utilities/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

step "building with -Werror"
if ! { autoreconf -fi && ./configure --enable-werror -q \
       && make -j"$(nproc)"; } > build.log 2>&1; then
    tail -50 build.log
    echo "build failed (see build.log)"
    echo "0 passed, 1 failed"
    exit 1
fi

step "unit tests (make check)"
make -j"$(nproc)" check > check.log 2>&1
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' check.log
unit_pass=$(grep -c '^PASS:' check.log)
unit_fail=$(grep -cE '^(FAIL|ERROR|XPASS):' check.log)
if [ "$unit_fail" -gt 0 ]; then
    for log in tests/test-*.log; do
        if grep -qE '^:test-result: (FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null
        then
            echo "--- $log"; tail -30 "$log"
        fi
    done
fi

step "system tests"
tests/system/run.sh | tee system.log
sys_pass=$(sed -n 's/^system: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' system.log)
sys_fail=$(sed -n 's/^system: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' system.log)
if [ -z "$sys_pass" ]; then
    sys_pass=0
    sys_fail=1
    echo "system tests did not report a result"
fi

passed=$((unit_pass + sys_pass))
failed=$((unit_fail + sys_fail))
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
