#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Builds the libFuzzer targets (configure CC=clang --enable-fuzzing) in a
# copy of the tree, _build-fuzz, so that the normal build stays, and runs
# each for SECONDS (default 60), starting from its seed corpus
# tests/fuzz/corpus/NAME.  New interesting inputs stay in the copy; an
# input that crashes a target (or leaks, or times out) is saved in
# tests/fuzz/crashes/NAME/, where `make check` replays it until it is fixed
# and moved into the corpus.  tests/fuzz/NAME.dict, if present, is the
# target's libFuzzer dictionary.
#
# Usage: tests/fuzz/run-fuzzers.sh [SECONDS]
# Prints one line per target, "fuzz-NAME: ok" or "fuzz-NAME: FAILED ...",
# then "fuzz: N targets, M crashes", and exits non-zero if M > 0 or the
# build fails.  PMDSWITCH_FUZZ_TARGETS may list a subset of the targets.
set -u
cd "$(dirname "$0")/../.."
top=$(pwd)
seconds=${1:-60}
targets=${PMDSWITCH_FUZZ_TARGETS:-appctl cni-conf config config-edit miniflow rules vxlan}
build=$top/_build-fuzz

case "$seconds" in
    ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

echo "fuzz: building in $build"
rm -rf "$build" && mkdir "$build"
# Sources only: built programs of the source tree stay behind.  The
# generated build system comes along when it exists (tests/run-all.sh has
# made it), which saves running autoreconf again.
{
    git ls-files -co --exclude-standard \
        | grep -vE '^tests/fuzz/(fuzz|replay)-[a-z]+$'
    if [ -f configure ]; then
        ls configure Makefile.in aclocal.m4 autoconf.h.in
        find build-aux m4 -type f
    fi
} | sort -u | tar -cf - -T - | tar -xf - -C "$build"
programs=
for t in $targets; do
    programs="$programs tests/fuzz/fuzz-$t"
done
if ! (cd "$build" && { [ -f configure ] || autoreconf -fi; } \
        && ./configure -q CC=clang \
        --enable-werror --enable-fuzzing && make -j"$(nproc)" $programs) \
        > "$build/build.log" 2>&1; then
    tail -30 "$build/build.log"
    echo "fuzz: build failed (see $build/build.log)"
    n=$(echo $targets | wc -w)
    echo "fuzz: $n targets, $n crashes"
    exit 1
fi

# Sanitizer reports end the run; a leak is a crash too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

n_targets=0
n_crashes=0
for t in $targets; do
    work=$build/corpus-work/$t
    crashes=$top/tests/fuzz/crashes/$t
    log=$build/fuzz-$t.log
    dict=

    n_targets=$((n_targets + 1))
    mkdir -p "$work" "$crashes"
    if [ -f "tests/fuzz/$t.dict" ]; then
        dict=-dict=tests/fuzz/$t.dict
    fi
    if "$build/tests/fuzz/fuzz-$t" -max_total_time="$seconds" \
            -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
            -print_final_stats=1 -artifact_prefix="$crashes/" $dict \
            "$work" "$top/tests/fuzz/corpus/$t" > "$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "fuzz-$t: ok (${runs:-?} runs in ${seconds}s)"
    else
        n_crashes=$((n_crashes + 1))
        saved=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")
        echo "fuzz-$t: FAILED, input saved as ${saved:-?} (log: $log)"
        grep -m1 -E 'ERROR|invariant failed|runtime error' "$log"
    fi
done
echo "fuzz: $n_targets targets, $n_crashes crashes"
[ "$n_crashes" -eq 0 ]
