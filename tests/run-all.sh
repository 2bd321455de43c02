#!/bin/bash
# Builds pmdswitch from a fresh checkout and runs the whole test suite:
# unit tests (make check), system tests (the real daemon between network
# namespaces, once with use-tpacket-v3 true and once false) and a short
# run of each fuzz target.
#
# Usage: tests/run-all.sh   (as root)
# Ends with one line "N passed, M failed" and exits non-zero on failure.
set -u
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
    echo "tests/run-all.sh: run as root: the system tests create network" \
         "namespaces and the daemon opens packet sockets" >&2
    exit 1
fi

# step TITLE: a heading with the time since the start, so that a CI log
# shows where the suite's minutes go.
START=$(date +%s)
step() { printf '\n=== %s (at %ds)\n' "$*" "$(( $(date +%s) - START ))"; }

step "installing dependencies"
utilities/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

step "building with -Werror"
if ! { autoreconf -fi && ./configure --enable-werror --enable-afxdp -q \
       && make -j"$(nproc)"; } > build.log 2>&1; then
    tail -50 build.log
    echo "build failed (see build.log)"
    echo "0 passed, 1 failed"
    exit 1
fi

# run_suite NAME BUILD_DIR [RUN_ARG...]: unit tests in BUILD_DIR, then
# system tests against its daemon (tests/system/run.sh with the RUN_ARGs).
# Adds to 'passed' and 'failed'.
passed=0
failed=0
run_suite() {
    local name=$1 dir=$2 n_pass n_fail sys_pass sys_fail
    shift 2

    step "$name: unit tests (make check)"
    make -C "$dir" -j"$(nproc)" check > "$dir/check.log" 2>&1
    grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$dir/check.log"
    n_pass=$(grep -c '^PASS:' "$dir/check.log")
    n_fail=$(grep -cE '^(FAIL|ERROR|XPASS):' "$dir/check.log")
    if [ "$n_fail" -gt 0 ]; then
        for trs in "$dir"/tests/test-*.trs "$dir"/tests/*/test-*.trs; do
            if grep -qE '^:test-result: (FAIL|ERROR)' "$trs"; then
                echo "--- ${trs%.trs}.log"; tail -30 "${trs%.trs}.log"
            fi
        done
    fi

    step "$name: system tests"
    PMDSWITCH_BUILD=$dir tests/system/run.sh "$@" | tee "$dir/system.log"
    sys_pass=$(sed -n 's/^system: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$dir/system.log")
    sys_fail=$(sed -n 's/^system: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$dir/system.log")
    if [ -z "$sys_pass" ]; then
        echo "system tests did not report a result"
        sys_pass=0
        sys_fail=1
    fi
    passed=$((passed + n_pass + sys_pass))
    failed=$((failed + n_fail + sys_fail))
}

run_suite "plain build" "$(pwd)"

# The libFuzzer targets (clang), a few seconds each: long enough to catch
# a parser that crashes on inputs near its seed corpus.  Each target counts
# as one test.  Building and running them adds about a minute.
step "fuzzing (tests/fuzz/run-fuzzers.sh)"
tests/fuzz/run-fuzzers.sh "${PMDSWITCH_FUZZ_SECONDS:-5}" | tee fuzz.log
fuzz_re='^fuzz: \([0-9]*\) targets, \([0-9]*\) crashes$'
fuzz_n=$(sed -n "s/$fuzz_re/\\1/p" fuzz.log)
fuzz_crashes=$(sed -n "s/$fuzz_re/\\2/p" fuzz.log)
if [ -z "$fuzz_n" ]; then
    echo "fuzzing did not report a result"
    failed=$((failed + 1))
else
    passed=$((passed + fuzz_n - fuzz_crashes))
    failed=$((failed + fuzz_crashes))
fi

# sanitized_suite NAME DIR SANITIZERS [RUN_ARG...]: builds a copy of the
# tree in DIR with --enable-sanitizers=SANITIZERS (errors are fatal) and
# runs the suite there, so that the plain build stays.
sanitized_suite() {
    local name=$1 dir=$2 sanitizers=$3
    shift 3

    step "building with -fsanitize=$sanitizers"
    rm -rf "$dir" && mkdir "$dir"
    git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$dir"
    if (cd "$dir" && autoreconf -fi \
            && ./configure --enable-werror --enable-afxdp -q \
            --enable-sanitizers="$sanitizers" && make -j"$(nproc)") \
            > "$dir/build.log" 2>&1; then
        run_suite "$name" "$(pwd)/$dir" "$@"
    else
        tail -50 "$dir/build.log"
        echo "$name: build failed"
        failed=$((failed + 1))
    fi
}

if [ "${PMDSWITCH_SKIP_SANITIZERS:-}" != 1 ]; then
    # The system tests once, with the default provider (the unit tests run
    # each provider under the sanitizers already), leaving out the ones
    # that only push steady streams through paths the others cover too,
    # and the walk-throughs (tour, live-config, rules) whose every step
    # the unit and dummy tests run under the sanitizers already.
    sanitized_suite "address,undefined sanitizers" _build-asan \
        address,undefined --mode tpacket afxdp appctl capture errors \
        faults-frames bridges gso mac-move metrics pmd-stats \
        reconfig-soak service tap trace vlan vxlan
    # The threaded parts: every unit test (RCU readers against writers,
    # PMD requests) and the system tests that drive the PMD and control
    # threads through every appctl request, rule changes and capture
    # (each PMD's ring drained by the control thread).
    # liburcu's own internals are suppressed (tests/tsan.supp); its grace
    # periods are annotated in lib/base/rcu.h.
    TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp"
    export TSAN_OPTIONS
    sanitized_suite "thread sanitizer" _build-tsan thread \
        --mode tpacket appctl capture rules
fi

step "done"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
