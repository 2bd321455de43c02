#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Several bridges joined by patch ports, changed while the switch runs, on
# dummy ports, no root.  A broadcast on br0 crosses the patch x0-x1 into
# br1, and the patch counters add up (x0 sent what x1 received).  Then, at
# run time: add-br br2 with a port, a patch br1-br2 added one end at a
# time (the first end waits, down, for its peer), and a patch br2-br0 that
# closes a ring of three bridges: a broadcast reaches each bridge's port
# exactly once and no patch crossing loops (coverage counts the refused
# ones).  The changes are in the config file: a restart comes back with
# them.  A hand edit of the file makes the next runtime change fail until
# config/reload takes the edit; a read-only file makes it fail and changes
# nothing; bad commands give clear errors and change nothing; del-br
# removes a bridge with its ports and leaves the other patch ends down.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmbrs
A=00:00:00:00:00:0a
BCAST=ff:ff:ff:ff:ff:ff
SEQ=1

# flood: a broadcast from A on a1, after clearing the captures of the
# host ports.
flood()
{
    local port
    for port in a1 a2 b1 c1; do
        if ps_appctl port-to-br "$port" >/dev/null 2>&1; then
            dm_clear "$port"
        fi
    done
    dm_recv a1 "$(dm_udp $A $BCAST $SEQ)"
    SEQ=$((SEQ + 1))
}

# ctl CMD...: a runtime command that must succeed.
ctl()
{
    ps_appctl "$@" >/dev/null || ps_fail "$* failed"
}

# ctl_fails PATTERN CMD...: a command that must fail with an error
# matching PATTERN and leave the config file as it was.
ctl_fails()
{
    local pattern=$1 out before
    shift
    before=$(cat "$DM_CONFIG")
    if out=$(ps_appctl "$@" 2>&1); then
        ps_fail "$* succeeded: $out"
    fi
    grep -qE -- "$pattern" <<<"$out" ||
        ps_fail "$*: error '$out' does not match '$pattern'"
    [[ "$(cat "$DM_CONFIG")" == "$before" ]] ||
        ps_fail "$* failed but changed the config file"
    ps_info "ok: $*: $(head -1 <<<"$out")"
}

# port_state PORT: its state in dpctl/show.
port_state()
{
    dm_port_stat "$1" state
}

cat >"$DM_CONFIG" <<'JSON'
{ "bridges": [
    { "name": "br0", "ports": [
        { "name": "a1", "type": "dummy" },
        { "name": "a2", "type": "dummy" },
        { "name": "x0", "type": "patch", "options": { "peer": "x1" } } ] },
    { "name": "br1", "ports": [
        { "name": "b1", "type": "dummy" },
        { "name": "x1", "type": "patch", "options": { "peer": "x0" } } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1" } }
JSON
dm_start

# Across the patch, counted once on each end.
flood
dm_wait_stat b1 tx_packets 1
dm_wait_stat a2 tx_packets 1
dm_settle
ps_assert_eq "x0 tx" 1 "$(dm_port_stat x0 tx_packets)"
ps_assert_eq "x1 rx" 1 "$(dm_port_stat x1 rx_packets)"
ps_assert_eq "x1 tx" 0 "$(dm_port_stat x1 tx_packets)"
ps_assert_eq "bridges" "br0 br1" "$(ps_appctl list-br | xargs)"
ps_appctl fdb/show br1 | grep -q "^ *[0-9]*  *0  *$A" ||
    ps_fail "br1 did not learn $A: $(ps_appctl fdb/show br1)"
ps_appctl ofproto/trace br0 "in_port=a1,$(dm_udp $A $BCAST 9)" |
    grep -q "x0 crosses to bridge br1" || ps_fail "trace does not cross"

# br2 at run time, the patch br1-br2 one end at a time.
ctl add-br br2
ctl add-port br2 c1 type=dummy
ctl add-port br1 y0 type=patch options:peer=y1
ps_assert_eq "y0 waiting for its peer" down "$(port_state y0)"
ctl add-port br2 y1 type=patch options:peer=y0
ps_assert_eq "y0 joined" up "$(port_state y0)"
flood
dm_wait_stat c1 tx_packets 1

# A ring: br2-br0 too.  Each host port gets the broadcast once.
ctl add-port br2 z0 type=patch options:peer=z1
ctl add-port br0 z1 type=patch options:peer=z0
flood
dm_wait_stat c1 tx_packets 2
dm_settle
dm_assert_captured a2 1
dm_assert_captured b1 1
dm_assert_captured c1 1
dm_assert_captured a1 0
ps_appctl ofproto/trace br0 "in_port=a1,$(dm_udp $A $BCAST 9)" |
    grep -q "leads back into bridge br0, which this packet was in already" ||
    ps_fail "the trace shows no refused crossing in the ring"
visited=$(ps_appctl coverage/show |
          sed -n 's/^patch_drop_bridge_visited .* total: \([0-9]*\)$/\1/p')
[[ ${visited:-0} -gt 0 ]] || ps_fail "coverage counted no refused crossing"

# Saved: the file has them, and a restart comes back with them.
python3 - "$DM_CONFIG" <<'PY' || ps_fail "the config file lacks the changes"
import json, sys
d = json.load(open(sys.argv[1]))
br = {b["name"]: [p["name"] for p in b["ports"]] for b in d["bridges"]}
assert br == {"br0": ["a1", "a2", "x0", "z1"], "br1": ["b1", "x1", "y0"],
              "br2": ["c1", "y1", "z0"]}, br
PY
dm_stop
dm_start
ps_assert_eq "bridges after restart" "br0 br1 br2" "$(ps_appctl list-br | xargs)"
ps_assert_eq "br2 after restart" "c1 y1 z0" "$(ps_appctl list-ports br2 | xargs)"
flood
dm_wait_stat c1 tx_packets 1

# Errors change nothing.
ctl_fails "add-port: no bridge named br9" add-port br9 p9 type=dummy
ctl_fails 'add-port: "tag" must be an integer from 1 to 4094, got 5000' \
    add-port br0 p9 type=dummy tag=5000
ctl_fails 'unknown key "colour"' add-port br0 p9 type=dummy colour=red
ctl_fails "add-port: port c1 already exists on bridge br2" \
    add-port br0 c1 type=dummy
ctl_fails "patch port p9: its peer a1 is a port of type \"dummy\"" \
    add-port br0 p9 type=patch options:peer=a1
ctl_fails "del-port: no port named p9" del-port p9
ctl_fails "\"add-port\" command requires at least 2 arguments" add-port br0
ctl_fails "unknown option --force" add-br --force br3
ctl add-port --may-exist br2 c1 type=dummy
ctl del-port --if-exists br2 p9
ctl add-br --may-exist br2

# A hand edit is never overwritten: the runtime change waits for a reload.
python3 - "$DM_CONFIG" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["bridges"][0]["ports"].append({"name": "a3", "type": "dummy"})
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
ctl_fails "was changed since pmdswitchd last read or wrote it" \
    add-port br0 a4 type=dummy
ctl config/reload
ctl add-port br0 a4 type=dummy
ps_assert_eq "br0 ports" "a1 a2 a3 a4 x0 z1" "$(ps_appctl list-ports br0 | xargs)"

# A read-only file: nothing applied.
chmod 0444 "$DM_CONFIG"
ctl_fails "cannot save the change: .* is read-only \(mode 0444\)" \
    add-port br0 a5 type=dummy
chmod 0644 "$DM_CONFIG"
ps_assert_eq "br0 ports" "a1 a2 a3 a4 x0 z1" "$(ps_appctl list-ports br0 | xargs)"

# del-br takes its ports; the patch ends left behind wait, down.
ctl del-br br2
ps_assert_eq "bridges" "br0 br1" "$(ps_appctl list-br | xargs)"
ps_assert_eq "y0 without its peer" down "$(port_state y0)"
ps_assert_eq "z1 without its peer" down "$(port_state z1)"
flood
dm_wait_stat b1 tx_packets 2
dm_settle
ps_assert_eq "z1 sent nothing" 0 "$(dm_port_stat z1 tx_packets)"

ps_info "ok: bridges, patch ports and runtime changes"
dm_stop
