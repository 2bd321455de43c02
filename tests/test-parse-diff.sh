#!/bin/sh
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Differential test of the frame parser against Open vSwitch's: the same
# capture goes through "pmdswitch-parse-pcap" and "ovs-ofctl parse-pcap"
# (Debian's openvswitch-common), and tests/parse-compare.py compares the
# two outputs field by field.  The capture is tests/parse-corpus.py's:
# about 3,000 frames from a fixed seed, ordinary and malformed, in ten
# families.  Any difference fails, except for frames of the protocols in
# tests/parse-diff-allow.txt that pmdswitch does not parse (MPLS, NSH),
# which are compared on their Ethernet and VLAN fields only.
#
# usage: tests/test-parse-diff.sh [BUILDDIR]
# Exit status: 0 pass, 1 fail, 77 skipped (no python3 or ovs-ofctl; under
# CI=true a missing ovs-ofctl fails instead, as install-deps.sh installs
# it).

LC_ALL=C
export LC_ALL

SRC=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-${PMDSWITCH_BUILD:-$SRC/..}}
TOOL=$BUILD/utilities/pmdswitch-parse-pcap

if [ ! -x "$TOOL" ]; then
    echo "$0: $TOOL not found (build it first)" >&2
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "$0: python3 not found, skipping" >&2
    exit 77
fi
if ! command -v ovs-ofctl >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        echo "$0: ovs-ofctl not found (utilities/install-deps.sh" \
             "installs openvswitch-common)" >&2
        exit 1
    fi
    echo "$0: ovs-ofctl not found, skipping" >&2
    exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/test-parse-diff.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

python3 "$SRC/parse-corpus.py" "$TMP/corpus.pcap" "$TMP/labels" || {
    echo "$0: parse-corpus.py failed" >&2
    exit 1
}
# ovs-ofctl logs a WARN at the end of every file; only its exit status
# and its lines matter here.
if ! ovs-ofctl parse-pcap "$TMP/corpus.pcap" > "$TMP/ovs" 2> "$TMP/ovs.err"
then
    echo "$0: ovs-ofctl parse-pcap failed:" >&2
    cat "$TMP/ovs.err" >&2
    exit 1
fi
if ! "$TOOL" "$TMP/corpus.pcap" > "$TMP/pmdswitch"; then
    echo "$0: pmdswitch-parse-pcap failed" >&2
    exit 1
fi
python3 "$SRC/parse-compare.py" "$TMP/labels" "$TMP/ovs" "$TMP/pmdswitch" \
    "$SRC/parse-diff-allow.txt"
