#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: startup errors.  For each broken setup the daemon must exit
# with status 1 (not crash, not hang, not run), say what is wrong on
# stderr (naming the interface, the key, or the line:column of a JSON
# syntax error), write no pidfile, and leave no interface or namespace
# behind.  Covered: a missing config file, invalid JSON, unknown keys,
# values of the wrong type or range, a missing interface, and running
# without CAP_NET_RAW (as root with the capability dropped, and as user
# nobody).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip setpriv python3
ps_require_daemon
ps_setup serr

A=serr-a
B=serr-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 serr-a-sw 10.77.5.1/24
ps_add_veth_to_ns "$B" eth0 serr-b-sw 10.77.5.2/24

# The configs live in a directory user nobody can read, for the last case.
CFG_DIR=$(mktemp -d /tmp/serr.XXXXXX)
ps_record_dir "$CFG_DIR"
chmod 755 "$CFG_DIR"
RUN_DIR=$CFG_DIR/run
mkdir -m 1777 "$RUN_DIR"

GOOD=$CFG_DIR/good.json
ps_write_config "$GOOD" "$PS_TPACKET" p1=serr-a-sw p2=serr-b-sw

# variant NAME PYTHON_EXPR: writes $CFG_DIR/NAME.json, the good config
# changed by PYTHON_EXPR (a statement operating on dict 'c').  The file
# names say nothing, so that a message naming only the file cannot match
# what a case expects.
variant()
{
    python3 - "$GOOD" "$CFG_DIR/$1.json" "$2" <<'EOF'
import json
import sys

with open(sys.argv[1]) as f:
    c = json.load(f)
exec(sys.argv[3])
with open(sys.argv[2], "w") as f:
    json.dump(c, f, indent=2)
EOF
}

# our_objects: the interfaces and namespaces a failed start could have
# left behind: ours by prefix, and anything named like the bridge.
our_objects()
{
    ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print "link " $2 }' |
        grep -E "^link (serr|br0$)" || true
    ip netns list | awk '{ print "netns " $1 }' | grep -E '^netns serr' || true
}

N_CASES=0
# expect_error NAME CONFIG REGEX [WRAPPER...]: runs the daemon on CONFIG
# (under WRAPPER, such as setpriv) and requires exit status 1, a stderr
# message matching the extended regex REGEX (case-insensitive; the
# timestamps of log lines are ignored), no
# pidfile, and no new or lost interfaces or namespaces.
expect_error()
{
    local name=$1 config=$2 regex=$3 err out before after rc=0
    shift 3
    err=$PS_LOG_DIR/$name.stderr
    out=$PS_LOG_DIR/$name.stdout
    before=$(our_objects)
    ps_unixctl_args "$RUN_DIR/$name.ctl"
    timeout -k 2 10 "$@" "$PS_DAEMON" --config "$config" \
        --pidfile="$RUN_DIR/$name.pid" "${PS_UNIXCTL_ARGS[@]}" \
        >"$out" 2>"$err" || rc=$?
    after=$(our_objects)
    ps_info "$name: exit status $rc, stderr:"
    sed 's/^/    /' "$err" >&2
    if [[ $rc -ne 1 ]]; then
        ps_fail "$name: expected exit status 1, got $rc"
    fi
    if [[ ! -s "$err" ]]; then
        ps_fail "$name: no message on stderr"
    fi
    # Match the message, not the times in the prefixes of any log lines.
    if ! sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\|//' "$err" |
        grep -Eiq -- "$regex"; then
        ps_fail "$name: stderr does not match /$regex/"
    fi
    if [[ -e "$RUN_DIR/$name.pid" ]]; then
        ps_fail "$name: a pidfile was written"
    fi
    if [[ "$before" != "$after" ]]; then
        diff <(echo "$before") <(echo "$after") >&2 || true
        ps_fail "$name: interfaces or namespaces changed"
    fi
    N_CASES=$((N_CASES + 1))
    ps_info "ok: $name"
}

expect_error missing-config "$CFG_DIR/no-such-file.json" 'no-such-file\.json'

printf '%s\n' '{' '  "bridges": [' '    { "name": "br0" "ports": [] }' \
    '  ]' '}' >"$CFG_DIR/s1.json"
# The error is on line 3 (the missing comma before "ports").
expect_error invalid-json "$CFG_DIR/s1.json" '(^|[^0-9])3:[0-9]+|line 3'

printf '%s\n' '{ "bridges": [ ' >"$CFG_DIR/s2.json"
expect_error truncated-json "$CFG_DIR/s2.json" '[0-9]+:[0-9]+|line [0-9]+'

variant v1 'c["frobnicate"] = 1'
expect_error unknown-key-top "$CFG_DIR/v1.json" 'frobnicate'
variant v2 'c["bridges"][0]["ports"][0]["interfase"] = "x"'
expect_error unknown-key-port "$CFG_DIR/v2.json" 'interfase'
variant v3 'c["other_config"]["pmd-cpu-maks"] = "0x2"'
expect_error unknown-key-other "$CFG_DIR/v3.json" 'pmd-cpu-maks'

variant v4 'c["other_config"]["use-tpacket-v3"] = "yes"'
expect_error bad-value-bool "$CFG_DIR/v4.json" 'use-tpacket-v3'
variant v5 'c["other_config"]["pmd-cpu-mask"] = "0xzz"'
expect_error bad-value-mask "$CFG_DIR/v5.json" 'pmd-cpu-mask'
variant v6 'c["other_config"]["emc-insert-inv-prob"] = -1'
expect_error bad-value-range "$CFG_DIR/v6.json" 'emc-insert-inv-prob'
variant v7 'c["bridges"] = {"name": "br0"}'
expect_error bad-value-bridges "$CFG_DIR/v7.json" 'bridges'

variant v8 'c["bridges"][0]["ports"][1]["interface"] = "serr-nope0"'
expect_error missing-interface "$CFG_DIR/v8.json" 'serr-nope0'

chmod 644 "$CFG_DIR"/*.json
expect_error no-cap-net-raw "$GOOD" 'permi|CAP_NET_RAW' \
    setpriv --inh-caps=-net_raw --bounding-set=-net_raw --
if setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- \
    test -x "$PS_DAEMON"; then
    expect_error non-root "$GOOD" 'permi|CAP_NET_RAW' \
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --
else
    ps_info "note: user nobody cannot execute $PS_DAEMON; non-root case skipped"
fi

ps_info "PASS: $N_CASES error cases"
