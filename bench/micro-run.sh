#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Runs the built microbenchmarks and prints their markdown: today
# bench/micro-pipeline, the cycles per packet of each PMD stage (see the
# top of bench/micro-pipeline.c).  Builds nothing: the programs come from
# `make` in $PMDSWITCH_BUILD (default: the source tree, for an in-tree
# build); a program that is not built is skipped with a note.  Each runs
# pinned to core 1, the PMD's core in run-bench.sh, when taskset and the
# core exist.  Needs no root.  run-bench.sh calls it at the end.
#
# Usage: micro-run.sh [--quick] [--runs N]   (passed on to each program)

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${PMDSWITCH_BUILD:-$BENCH_DIR/..}
CORE=1
PROGRAMS=(micro-pipeline)

pin=()
if command -v taskset >/dev/null 2>&1 && taskset -c "$CORE" true 2>/dev/null
then
    pin=(taskset -c "$CORE")
else
    echo "micro-run.sh: cannot pin to core $CORE; running unpinned" >&2
fi

echo "## Microbenchmarks"
echo
echo "Load before: $(cut -d' ' -f1-3 /proc/loadavg); pinned: ${pin[*]:-no}"
for prog in "${PROGRAMS[@]}"; do
    bin=$BUILD/bench/$prog
    echo
    echo "### $prog"
    echo
    if [ ! -x "$bin" ]; then
        echo "(skipped: $bin is not built; run \`make\` in the build tree)"
        continue
    fi
    "${pin[@]}" "$bin" "$@"
done
