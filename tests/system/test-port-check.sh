#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: port/check, the offload doctor.  Ports on veth pairs whose
# peers live in a namespace named in /run/netns (p1, p2) and in the
# namespace of a process that no name points to (p3), and, when the
# build has afxdp, an afxdp port (x1).  Checks, in text and in JSON: each
# peer is found and described with its namespace; a peer MTU above the
# port's, the port's own TSO turned off, a TSO sender on the bridge of
# an afxdp port, an afxdp peer with tx checksumming on and with GRO off
# each give their finding, which goes away once ethtool (run as the
# finding says) or ip puts it right; every port then says "ok"; an
# unknown port is an error.
#
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ethtool unshare nsenter python3
ps_require_daemon
ps_setup pchk

A=pchk-a
B=pchk-b
X=pchk-x
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$B"
ps_add_veth_to_ns "$A" eth0 pchk-a-sw
ps_add_veth_to_ns "$B" eth0 pchk-b-sw

# A namespace held only by a process, as a container runtime leaves it.
ps_bg holder unshare --net sleep 600
HOLDER=$PS_BG_PID
own_ns()
{
    [[ "$(readlink "/proc/$HOLDER/ns/net")" != \
       "$(readlink /proc/self/ns/net)" ]]
}
ps_wait_until 5 own_ns ||
    ps_fail "the holder did not enter a namespace of its own"
ps_record_link pchk-c-sw
ip link add pchk-c-sw type veth peer name eth0 netns "$HOLDER"
ip link set dev pchk-c-sw up
nsenter -t "$HOLDER" -n ip link set dev eth0 up

PORTS=(p1=pchk-a-sw p2=pchk-b-sw p3=pchk-c-sw)
AFXDP=
if grep -q '^#define HAVE_AFXDP 1' "$PS_BUILD/autoconf.h"; then
    AFXDP=yes
    ps_add_quiet_ns "$X"
    ps_add_veth_to_ns "$X" eth0 pchk-x-sw
    PORTS+=(x1=afxdp:pchk-x-sw)
fi

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" "${PORTS[@]}"
ps_start_daemon "$CONFIG"

# ids PORT: the ids of PORT's findings, sorted, one line ("" if none).
ids()
{
    ps_appctl -f json port/check "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["ports"]) == 1, d
p = d["ports"][0]
assert p["ok"] == (not p["findings"]), p
print(" ".join(sorted(f["id"] for f in p["findings"])))'
}

# has PORT ID / lacks PORT ID: asserts on the JSON and the text at once.
has()
{
    local got
    got=$(ids "$1")
    [[ " $got " == *" $2 "* ]] || ps_fail "port/check $1: want $2, got '$got'"
    ps_appctl port/check "$1" | grep -Eq '^  (error|warning|note): ' ||
        ps_fail "port/check $1: no finding in the text"
}
lacks()
{
    local got
    got=$(ids "$1")
    [[ " $got " != *" $2 "* ]] || ps_fail "port/check $1: still has $2"
}

# text_of PORT ID: the text of PORT's finding ID.
text_of()
{
    ps_appctl -f json port/check "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(f["text"] for f in d["ports"][0]["findings"]
           if f["id"] == sys.argv[1]))' "$2"
}

ps_info "peers are found and described"
json=$(ps_appctl -f json port/check)
python3 - "$json" "$HOLDER" "$AFXDP" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
holder, afxdp = int(sys.argv[2]), sys.argv[3]
ports = {p["port"]: p for p in d["ports"]}
want = {"p1", "p2", "p3"} | ({"x1"} if afxdp else set())
assert set(ports) == want, ports.keys()
for name in ("p1", "p2"):
    p = ports[name]
    assert p["negotiated"]["vnet_hdr"] is True, p
    peer = p["peer"]
    assert peer["name"] == "eth0" and peer["kind"] == "veth", peer
    ns = peer["namespace"]
    assert ns["type"] == "named", peer
    assert ns["name"] == {"p1": "pchk-a", "p2": "pchk-b"}[name], peer
    assert peer["features"]["tcp-segmentation-offload"] == "on", peer
    assert p["interface_facts"]["kind"] == "veth", p
    assert p["interface_facts"]["xdp"] == "none", p
ns = ports["p3"]["peer"]["namespace"]
assert ns["type"] == "pid" and ns["pid"] == holder, ns
if afxdp:
    x = ports["x1"]
    assert x["negotiated"] == {"vnet_hdr": False}, x
    assert x["interface_facts"]["xdp"] == "native", x
    # Native XDP turns the peer's TSO off.
    assert x["peer"]["features"]["tcp-segmentation-offload"] == "off", x
EOF
text=$(ps_appctl port/check)
grep -q "^port p1 (bridge br0, interface pchk-a-sw, provider $PS_MODE):" \
    <<<"$text" || ps_fail "port/check text lacks p1's header: $text"
grep -q "^  peer eth0 (netns pchk-a, ifindex [0-9]*): mtu 1500, tx-csum on" \
    <<<"$text" || ps_fail "port/check text lacks p1's peer: $text"
grep -q "^  peer eth0 (netns of pid $HOLDER sleep, ifindex" <<<"$text" ||
    ps_fail "port/check text lacks p3's peer: $text"
if [[ -z "$AFXDP" ]]; then
    ps_assert_eq "p2 with defaults" "" "$(ids p2)"
fi

ps_info "a peer MTU above the port's"
ip -n "$A" link set dev eth0 mtu 9000
has p1 peer-mtu
ps_appctl port/check p1 |
    grep -q "^  error: peer eth0 has MTU 9000, above port p1's 1500" ||
    ps_fail "port/check p1 text lacks the MTU finding"
ip -n "$A" link set dev eth0 mtu 1500
lacks p1 peer-mtu

ps_info "the port's own TSO off"
ethtool -K pchk-b-sw tso off >/dev/null
has p2 port-tso-off
ethtool -K pchk-b-sw tso on >/dev/null
lacks p2 port-tso-off

if [[ -n "$AFXDP" ]]; then
    ps_info "a TSO sender on the bridge of an afxdp port"
    has p1 peer-tso-to-afxdp
    has p3 peer-tso-to-afxdp
    text_of p3 peer-tso-to-afxdp |
        grep -q "run 'nsenter -t $HOLDER -n ethtool -K eth0 tso off'" ||
        ps_fail "p3's finding does not say to use nsenter"
    ip netns exec "$A" ethtool -K eth0 tso off >/dev/null
    lacks p1 peer-tso-to-afxdp
    ps_assert_eq "p1 with its peer's tso off" "" "$(ids p1)"
    ip netns exec "$B" ethtool -K eth0 tso off >/dev/null
    nsenter -t "$HOLDER" -n ethtool -K eth0 tso off >/dev/null

    ps_info "an afxdp port's peer: tx checksumming, GRO"
    ps_assert_eq "x1 with peer defaults" "peer-gro-off peer-tx-csum" \
        "$(ids x1)"
    fix=$(text_of x1 peer-tx-csum | sed -n "s/.*run '\([^']*\)'.*/\1/p")
    ps_assert_eq "x1's advice" "ip netns exec $X ethtool -K eth0 tx off" \
        "$fix"
    $fix >/dev/null
    ps_assert_eq "x1 with peer tx off" "peer-gro-off" "$(ids x1)"
    ip netns exec "$X" ethtool -K eth0 gro on >/dev/null
    ps_assert_eq "x1 with peer gro on" "" "$(ids x1)"
fi

ps_info "every port ok"
python3 - "$(ps_appctl -f json port/check)" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
bad = [(p["port"], p["findings"]) for p in d["ports"] if not p["ok"]]
assert not bad, bad
EOF
n_ok=$(ps_appctl port/check | grep -cx "  ok")
ps_assert_eq "ports ok" "${#PORTS[@]}" "$n_ok"

ps_info "misuse"
rc=0
ps_appctl port/check nosuch >/dev/null 2>"$PS_LOG_DIR/err" || rc=$?
ps_assert_eq "unknown port status" 2 "$rc"
grep -q "no port named nosuch" "$PS_LOG_DIR/err" ||
    ps_fail "unknown port: $(cat "$PS_LOG_DIR/err")"

ps_stop_daemon
ps_check_log
ps_info "PASS"
