#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# The kernel's transmit cost per 64-byte frame on each kind of transmit
# socket (see the top of bench/micro-tx-socket.c): one veth pair, the end
# btx-sw here, its peer in namespace btx-peer, where the frames are dropped;
# bench/micro-tx-socket runs pinned to core 1, as the PMD in run-bench.sh.
#
# Usage: tx-socket.sh [FRAMES [ROUNDS]]
# Environment: PMDSWITCH_BUILD (build tree with bench/micro-tx-socket).
# Needs root; uses only the namespace and interface it creates.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/system/lib.sh
. "$BENCH_DIR/../tests/system/lib.sh"
BUILD=${PMDSWITCH_BUILD:-$BENCH_DIR/..}
PROGRAM=$BUILD/bench/micro-tx-socket

ps_require_root
ps_require_cmds ip taskset
[[ -x $PROGRAM ]] || ps_fail "$PROGRAM is not built: run make"
ps_setup btx
ps_add_quiet_ns btx-peer
ps_add_veth_to_ns btx-peer eth0 btx-sw
taskset -c 1 "$PROGRAM" btx-sw "$@"
