#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# pmdswitchd --check-config FILE: the daemon's own checks, offline.  A good
# file exits 0 with "FILE: valid (N bridges, M ports)" whether or not its
# interfaces exist; each bad one exits 1 with one line "FILE:LINE:COLUMN:
# ..." (or the file's error) on stderr and nothing on stdout.  It needs
# no root: run as root, the test runs it as user nobody too, and nothing
# it checks touches the system (no socket, pidfile or interface made).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmcheck
DIR=$(mktemp -d /tmp/pmdsw-check.XXXXXX)
ps_record_dir "$DIR"
chmod 755 "$DIR"

# as_user CMD...: CMD as user nobody when root (setpriv), else as is.
as_user()
{
    if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
    else
        "$@"
    fi
}

# check NAME EXPECTED_STATUS EXPECTED_OUTPUT: runs --check-config on
# $DIR/NAME.json (written from stdin) and compares status and output
# (stdout for 0, stderr for 1).
check()
{
    local name=$1 status=$2 expected=$3 file=$DIR/$1.json rc=0 out err
    cat >"$file"
    chmod 644 "$file"
    out=$(as_user "$PS_DAEMON" --check-config "$file" 2>"$DIR/$name.err") ||
        rc=$?
    err=$(<"$DIR/$name.err")
    ps_assert_eq "$name: exit status" "$status" "$rc"
    if [[ $status == 0 ]]; then
        ps_assert_eq "$name: stdout" "${expected//FILE/$file}" "$out"
        ps_assert_eq "$name: stderr" "" "$err"
    else
        ps_assert_eq "$name: stderr" "pmdswitchd: ${expected//FILE/$file}" \
            "$err"
        ps_assert_eq "$name: stdout" "" "$out"
    fi
}

check good 0 "FILE: valid (2 bridges, 3 ports)" <<'JSON'
{ "bridges": [
    { "name": "br0",
      "ports": [ { "name": "p1", "interface": "no-such-if-1" },
                 { "name": "p2", "interface": "no-such-if-2", "tag": 10 } ],
      "rules": [ { "priority": 10, "match": "in_port=p1,ip",
                   "actions": "output:p2" } ],
      "mirrors": [ { "name": "m0", "select_src_port": ["p1"],
                     "output_port": "p2" } ] },
    { "name": "br1", "ports": [ { "name": "t1", "type": "dummy" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1",
                    "metrics-address": "127.0.0.1:9540" } }
JSON

check starting 0 "FILE: valid (0 bridges, 0 ports)" <<'JSON'
{ "bridges": [] }
JSON

check unknown-key 1 'FILE:3:5: unknown key "tags" in port "p1" (known keys: name, interface, type, create, vlan_mode, tag, trunks, members, options)' <<'JSON'
{ "bridges": [ { "name": "br0", "ports": [
  { "name": "p1",
    "tags": 10 } ] } ] }
JSON

check syntax 1 "FILE:2:1: unexpected token near '}'" <<'JSON'
{ "bridges": [
}
JSON

check metrics-address 1 'FILE:2:40: "metrics-address" must be "" or an IP address and a port, such as "127.0.0.1:9540" or "[::1]:9540", got "localhost:9540"' <<'JSON'
{ "bridges": [],
  "other_config": { "metrics-address": "localhost:9540" } }
JSON

check tso-false 1 'FILE:2:45: "userspace-tso-enable" cannot be false: pmdswitch always carries checksum and segmentation offloads through (the virtio_net_hdr of each frame); to keep large frames off a port, turn offloads off on the interface'"'"'s peer with "ethtool -K PEER tso off gso off"' <<'JSON'
{ "bridges": [],
  "other_config": { "userspace-tso-enable": false } }
JSON

# Rules and mirrors are checked against the ports: the messages name the
# place in the file too.
grep_check()
{
    local name=$1 re=$2 file=$DIR/$1.json rc=0
    cat >"$file"
    chmod 644 "$file"
    as_user "$PS_DAEMON" --check-config "$file" >/dev/null \
        2>"$DIR/$name.err" || rc=$?
    ps_assert_eq "$name: exit status" 1 "$rc"
    grep -Eq "^pmdswitchd: $file:[0-9]+:[0-9]+: $re" "$DIR/$name.err" ||
        ps_fail "$name: unexpected message: $(cat "$DIR/$name.err")"
}

grep_check rule-port '.*(unknown|no) port.*p9' <<'JSON'
{ "bridges": [ { "name": "br0",
    "ports": [ { "name": "p1", "type": "dummy" } ],
    "rules": [ { "priority": 1, "match": "in_port=p9", "actions": "drop" } ] } ] }
JSON

grep_check mirror-output '.*p9' <<'JSON'
{ "bridges": [ { "name": "br0",
    "ports": [ { "name": "p1", "type": "dummy" } ],
    "mirrors": [ { "name": "m0", "select_all": true,
                   "output_port": "p9" } ] } ] }
JSON

rc=0
err=$(as_user "$PS_DAEMON" --check-config "$DIR/none.json" 2>&1) || rc=$?
ps_assert_eq "missing file: exit status" 1 "$rc"
[[ $err == *"$DIR/none.json"* ]] || ps_fail "missing file: $err"

ps_info "ok: --check-config as $(as_user id -un)"
