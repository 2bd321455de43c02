#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: the CNI plugin (utilities/pmdswitch-cni), driven exactly as
# a container runtime drives it (CNI_* variables, network config on stdin,
# result or error object on stdout), against the real daemon, with the
# host-local IPAM plugin of containernetworking-plugins keeping its leases
# in a directory of the test's own.  Namespaces A and B are the
# "containers".
#
#   - VERSION lists the versions implemented;
#   - ADD of A and B: the result (interfaces, addresses, routes, DNS) is
#     checked with jq, the addresses, route and MTU are in the namespaces,
#     the host ends are ports of br0 in VLAN 10, and A pings B through the
#     switch;
#   - CHECK passes, then fails once an address is removed;
#   - DEL of A twice (the second is a no-op), and DEL of B after its
#     namespace is gone: ports, veths and leases are gone;
#   - every error that can be provoked (missing CNI_COMMAND, bad JSON, no
#     "bridge", unknown bridge, unsupported cniVersion, ipMasq, bad or
#     missing CNI_NETNS, IPAM plugin missing from CNI_PATH, IPAM failing,
#     a route the kernel refuses after IPAM allocated, a port name already
#     taken, the daemon not running) gives a spec error object with the
#     right code and leaves no veth, port or lease behind.
#
# The host ends' names are computed here as the plugin documents them (a
# hash of CNI_CONTAINERID and CNI_IFNAME), which also checks that DEL can
# find them; they are recorded for cleanup before each ADD.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PLUGIN=$PS_BUILD/utilities/pmdswitch-cni
CNI_BIN=/usr/lib/cni

ps_require_root
ps_require_cmds ip ping jq python3
ps_require_daemon
[[ -x "$PLUGIN" ]] || ps_skip "$PLUGIN not built"
[[ -x "$CNI_BIN/host-local" ]] ||
    ps_skip "no $CNI_BIN/host-local (containernetworking-plugins)"
ps_setup scni

A=scni-a
B=scni-b
ps_add_ns "$A"
ps_add_ns "$B"
IPAM_DIR=$PS_LOG_DIR/ipam
OUT=$PS_LOG_DIR/out.json

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET"
ps_start_daemon "$CONFIG"

# host_name ID IFNAME: the host end's name for that attachment: "pmd" and
# the low 48 bits of the 64-bit FNV-1a hash of "ID/IFNAME", in hex.
host_name()
{
    python3 -c 'import sys
h = 0xcbf29ce484222325
for b in (sys.argv[1] + "/" + sys.argv[2]).encode():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("pmd%012x" % (h & 0xffffffffffff))' "$1" "$2"
}

# write_net FILE [JQ_FILTER]: writes the network config, changed by
# JQ_FILTER.  It carries keys for other plugins and the runtime, which the
# plugin must accept.
write_net()
{
    jq -n --arg sock "$PS_DAEMON_CTL" --arg dir "$IPAM_DIR" '{
        cniVersion: "1.0.0", name: "scninet", type: "pmdswitch",
        bridge: "br0", socket: $sock, mtu: 1400, vlan: 10,
        dns: {nameservers: ["10.79.31.53"]},
        args: {cni: {labels: []}}, runtimeConfig: {}, keyForAnother: [1],
        ipam: {type: "host-local", dataDir: $dir,
               ranges: [[{subnet: "10.79.31.0/24"}],
                        [{subnet: "fd79:31::/64"}]],
               routes: [{dst: "0.0.0.0/0"}, {dst: "::/0"}]}}' |
        jq "${2:-.}" >"$1"
}

# cni CMD ID NETNS IFNAME CONF [VAR=VALUE...]: runs the plugin as a runtime
# does, with nothing else in its environment; CMD "-" leaves CNI_COMMAND
# out, NETNS "-" CNI_NETNS.  Its stdout goes to $OUT, its stderr to the
# log.  Returns its exit status.
cni()
{
    local -a vars=(PATH=/usr/sbin:/usr/bin:/sbin:/bin "CNI_CONTAINERID=$2"
                   "CNI_IFNAME=$4" "CNI_PATH=$CNI_BIN")
    [[ $1 == - ]] || vars+=("CNI_COMMAND=$1")
    [[ $3 == - ]] || vars+=("CNI_NETNS=$3")
    local conf=$5
    shift 5
    env -i "${vars[@]}" "$@" "$PLUGIN" <"$conf" >"$OUT" \
        2>>"$PS_LOG_DIR/plugin.stderr"
}

# ports: the ports of br0, one "NAME INTERFACE TAG" line each (none once
# the daemon has stopped).
ports()
{
    ps_daemon_running || return 0
    ps_appctl -f json list-ports br0 |
        jq -r '.ports[] | "\(.name) \(.interface) \(.tag // "-")"'
}

# leases ID: the addresses host-local has leased to container ID.
leases()
{
    local f
    for f in "$IPAM_DIR"/scninet/*; do
        [[ ${f##*/} == lock || ${f##*/} == last_reserved_ip* ]] && continue
        if [[ $(head -n 1 "$f" | tr -d '\r') == "$1" ]]; then
            echo "${f##*/}"
        fi
    done | sort | paste -sd ' '
}

# nothing_left ID IFNAME: fails if the attachment of ID's IFNAME left its
# host veth, its port or its lease.
nothing_left()
{
    local host
    host=$(host_name "$1" "$2")
    if ip link show dev "$host" >/dev/null 2>&1; then
        ps_fail "$1: host veth $host is still there"
    fi
    if grep -q "^$host " <<<"$(ports)"; then
        ps_fail "$1: port $host is still on br0"
    fi
    if [[ -n "$(leases "$1")" ]]; then
        ps_fail "$1: lease $(leases "$1") is still held"
    fi
}

# expect_code CODE WHAT CNI-ARGS...: runs "cni CNI-ARGS...", which must
# exit 1 with an error object of CODE on stdout.
expect_code()
{
    local code=$1 what=$2 rc=0
    shift 2
    ps_record_link "$(host_name "$2" "$4")"
    cni "$@" || rc=$?
    if [[ $rc -ne 1 ]] || ! jq -e --argjson code "$code" '
            (.code == $code) and (.cniVersion | type == "string")
            and (.msg | type == "string" and length > 0)
            and (.details | type == "string")' "$OUT" >/dev/null; then
        cat "$OUT" >&2
        ps_fail "$what: expected exit status 1 and error $code, got $rc"
    fi
    ps_info "ok: $what: error $code: $(jq -r '.msg + ": " + .details' "$OUT")"
}

# expect_error CODE WHAT CNI-ARGS...: expect_code, and the attachment must
# have left nothing behind.
expect_error()
{
    expect_code "$@"
    nothing_left "$4" "$6"
}

NET=$PS_LOG_DIR/net.json
write_net "$NET"

ps_info "VERSION"
echo '{"cniVersion": "1.0.0"}' >"$PS_LOG_DIR/version.json"
cni VERSION "" - "" "$PS_LOG_DIR/version.json" ||
    ps_fail "VERSION exited with status $?"
ps_assert_eq "VERSION" '"1.0.0" ["0.3.0","0.3.1","0.4.0","1.0.0"]' \
    "$(jq -c '.cniVersion, .supportedVersions' "$OUT" | paste -sd ' ')"

# add NS ID: ADD of namespace NS as container ID, interface eth0; the
# result stays in $PS_LOG_DIR/ID.result.
add()
{
    local rc=0
    ps_record_link "$(host_name "$2" eth0)"
    cni ADD "$2" "/run/netns/$1" eth0 "$NET" || rc=$?
    if [[ $rc -ne 0 ]]; then
        cat "$OUT" >&2
        ps_fail "ADD $2 exited with status $rc"
    fi
    cp "$OUT" "$PS_LOG_DIR/$2.result"
}

# check_result NS ID: checks the result of ADD and what it set up.
check_result()
{
    local ns=$1 id=$2 host addr addr6 out result=$PS_LOG_DIR/$2.result
    host=$(host_name "$id" eth0)
    jq -e --arg host "$host" --arg sb "/run/netns/$ns" '
        .cniVersion == "1.0.0"
        and (.interfaces | length == 2)
        and .interfaces[0].name == $host
        and (.interfaces[0] | has("sandbox") | not)
        and .interfaces[1].name == "eth0" and .interfaces[1].sandbox == $sb
        and (.interfaces[] | .mac | test("^([0-9a-f]{2}:){5}[0-9a-f]{2}$"))
        and (.ips | length == 2) and ([.ips[].interface] == [1, 1])
        and (.ips[0].address | test("^10\\.79\\.31\\.[0-9]+/24$"))
        and .ips[0].gateway == "10.79.31.1"
        and (.ips[1].address | test("^fd79:31::[0-9a-f]+/64$"))
        and .ips[1].gateway == "fd79:31::1"
        and (.ips[] | has("version") | not)
        and .routes == [{"dst": "0.0.0.0/0"}, {"dst": "::/0"}]
        and .dns.nameservers == ["10.79.31.53"]' "$result" >/dev/null ||
        { cat "$result" >&2; ps_fail "ADD $id: unexpected result"; }
    addr=$(jq -r '.ips[0].address' "$result")
    addr6=$(jq -r '.ips[1].address' "$result")
    ps_info "ok: ADD $id: $addr and $addr6 on eth0 in $ns, host end $host"
    # Output first, then grep: "grep -q" closing the pipe early would fail
    # the writer, and the pipeline with it under pipefail.
    out=$(ps_ns "$ns" ip -o addr show dev eth0)
    grep -qF " inet $addr " <<<"$out" ||
        ps_fail "$id: $addr is not on eth0 in $ns"
    grep -qF " inet6 $addr6 " <<<"$out" ||
        ps_fail "$id: $addr6 is not on eth0 in $ns"
    out=$(ps_ns "$ns" ip route show default)
    grep -q "via 10.79.31.1 dev eth0" <<<"$out" ||
        ps_fail "$id: no default route via 10.79.31.1 in $ns"
    out=$(ps_ns "$ns" ip -6 route show default)
    grep -q "via fd79:31::1 dev eth0" <<<"$out" ||
        ps_fail "$id: no IPv6 default route via fd79:31::1 in $ns"
    ps_assert_eq "$id: MTU in the namespace" 1400 \
        "$(ps_ns "$ns" cat /sys/class/net/eth0/mtu)"
    ps_assert_eq "$id: MTU of the host end" 1400 \
        "$(cat "/sys/class/net/$host/mtu")"
    [[ "$(jq -r '.interfaces[1].mac' "$result")" == "$(ps_mac "$ns" eth0)" ]] \
        || ps_fail "$id: the result's MAC is not eth0's"
    grep -qx "$host $host 10" <<<"$(ports)" ||
        { ports >&2; ps_fail "$id: $host is not an access port of VLAN 10"; }
    ps_assert_eq "$id: host-local's leases" "${addr%/*} ${addr6%/*}" \
        "$(leases "$id")"
}

ps_info "ADD of two containers"
add "$A" scni-ctr-a
add "$B" scni-ctr-b
check_result "$A" scni-ctr-a
check_result "$B" scni-ctr-b
ADDR_B=$(jq -r '.ips[0].address' "$PS_LOG_DIR/scni-ctr-b.result")
ADDR6_B=$(jq -r '.ips[1].address' "$PS_LOG_DIR/scni-ctr-b.result")
ps_ping_all "$A" 3 "${ADDR_B%/*}"
ps_ping_all "$A" 3 "${ADDR6_B%/*}" -6

ps_info "CHECK"
# with_prev ID: the network config with prevResult, ID's ADD result.
with_prev()
{
    jq --slurpfile r "$PS_LOG_DIR/$1.result" '.prevResult = $r[0]' "$NET" \
        >"$PS_LOG_DIR/$1.prev.json"
    echo "$PS_LOG_DIR/$1.prev.json"
}
PREV_A=$(with_prev scni-ctr-a)
PREV_B=$(with_prev scni-ctr-b)
cni CHECK scni-ctr-a "/run/netns/$A" eth0 "$PREV_A" ||
    { cat "$OUT" >&2; ps_fail "CHECK of A failed"; }
ps_assert_eq "CHECK prints nothing" "" "$(cat "$OUT")"
ADDR_A=$(jq -r '.ips[0].address' "$PS_LOG_DIR/scni-ctr-a.result")
ps_ns "$A" ip addr del "$ADDR_A" dev eth0
rc=0
cni CHECK scni-ctr-a "/run/netns/$A" eth0 "$PREV_A" || rc=$?
ps_assert_eq "CHECK without the address" "1 103" \
    "$rc $(jq -r .code "$OUT")"
grep -qF "$ADDR_A" "$OUT" || ps_fail "CHECK's error does not name $ADDR_A"
rc=0
cni CHECK scni-ctr-a "/run/netns/$A" eth1 "$PREV_A" || rc=$?
ps_assert_eq "CHECK of an interface never added" "1 103" \
    "$rc $(jq -r .code "$OUT")"

ps_info "DEL"
cni DEL scni-ctr-a "/run/netns/$A" eth0 "$PREV_A" ||
    { cat "$OUT" >&2; ps_fail "DEL of A failed"; }
nothing_left scni-ctr-a eth0
ps_ns "$A" ip link show eth0 >/dev/null 2>&1 && ps_fail "eth0 is still in $A"
cni DEL scni-ctr-a "/run/netns/$A" eth0 "$PREV_A" ||
    { cat "$OUT" >&2; ps_fail "second DEL of A failed"; }
ps_info "ok: second DEL of A is a no-op"
# The daemon sees the host end vanish with the namespace before DEL.
HOST_B=$(host_name scni-ctr-b eth0)
PS_LOG_ALLOW+=("port $HOST_B: interface $HOST_B is gone")
ip netns del "$B"
cni DEL scni-ctr-b "/run/netns/$B" eth0 "$PREV_B" ||
    { cat "$OUT" >&2; ps_fail "DEL of B without its namespace failed"; }
nothing_left scni-ctr-b eth0
ps_info "ok: DEL of B after its namespace went"
ps_assert_eq "ports left on br0" "" "$(ports)"

ps_info "ADD, CHECK and DEL with cniVersion 0.3.1"
OLD=$PS_LOG_DIR/old.json
write_net "$OLD" '.cniVersion = "0.3.1"'
cni_or_fail()
{
    cni "$@" || { cat "$OUT" >&2; ps_fail "$1 $2 exited with status $?"; }
}
ps_record_link "$(host_name scni-ctr-old eth0)"
cni_or_fail ADD scni-ctr-old "/run/netns/$A" eth0 "$OLD"
jq -e '.cniVersion == "0.3.1" and ([.ips[].version] == ["4", "6"])' \
    "$OUT" >/dev/null || { cat "$OUT" >&2; ps_fail "0.3.1: bad result"; }
jq --slurpfile r "$OUT" '.prevResult = $r[0]' "$OLD" >"$PS_LOG_DIR/old.prev"
rc=0
cni CHECK scni-ctr-old "/run/netns/$A" eth0 "$PS_LOG_DIR/old.prev" || rc=$?
ps_assert_eq "CHECK with 0.3.1 (before CHECK existed)" "1 1" \
    "$rc $(jq -r .code "$OUT")"
cni_or_fail DEL scni-ctr-old "/run/netns/$A" eth0 "$PS_LOG_DIR/old.prev"
nothing_left scni-ctr-old eth0
ps_info "ok: 0.3.1 result has IP versions"

ps_info "errors"
B2=scni-b2
ps_add_ns "$B2"
BAD=$PS_LOG_DIR/bad.json
NS=/run/netns/$A
expect_error 4 "no CNI_COMMAND" - scni-e1 "$NS" eth0 "$NET"
expect_error 4 "unknown CNI_COMMAND" FROB scni-e1 "$NS" eth0 "$NET"
printf '{"cniVersion": "1.0.0", "name": ' >"$BAD"
expect_error 6 "truncated JSON" ADD scni-e2 "$NS" eth0 "$BAD"
write_net "$BAD" 'del(.bridge)'
expect_error 7 "no bridge key" ADD scni-e3 "$NS" eth0 "$BAD"
write_net "$BAD" '.mtu = "big"'
expect_error 7 "bad mtu" ADD scni-e3 "$NS" eth0 "$BAD"
write_net "$BAD" '.bridge = "br9"'
expect_error 7 "unknown bridge" ADD scni-e4 "$NS" eth0 "$BAD"
write_net "$BAD" '.cniVersion = "9.9.9"'
expect_error 1 "unsupported cniVersion" ADD scni-e5 "$NS" eth0 "$BAD"
write_net "$BAD" '.ipMasq = true'
expect_error 2 "ipMasq" ADD scni-e6 "$NS" eth0 "$BAD"
expect_error 4 "no CNI_NETNS" ADD scni-e7 - eth0 "$NET"
expect_error 4 "bad CNI_IFNAME" ADD scni-e7 "$NS" "eth 0" "$NET"
expect_error 3 "CNI_NETNS missing" ADD scni-e8 /run/netns/scni-none eth0 \
    "$NET"
write_net "$BAD" '.ipam.type = "scni-no-ipam"'
expect_error 101 "IPAM plugin not in CNI_PATH" ADD scni-e9 "$NS" eth0 "$BAD"
# host-local's own error object is passed on (its code, 7 or 999 by
# release, is whatever it says).
write_net "$BAD" '.ipam.ranges = [[{subnet: "10.79.31.0/33"}]]'
rc=0
cni ADD scni-e10 "$NS" eth0 "$BAD" || rc=$?
ps_assert_eq "IPAM failing: status" 1 "$rc"
jq -e '.details | startswith("IPAM plugin host-local: ")' "$OUT" >/dev/null ||
    { cat "$OUT" >&2; ps_fail "IPAM's error is not passed on"; }
nothing_left scni-e10 eth0
# The route's gateway is off-link: the kernel refuses it after host-local
# allocated, so ADD must give the lease back and delete the veth.
write_net "$BAD" '.ipam.routes = [{dst: "10.99.0.0/16", gw: "10.200.0.1"}]'
expect_error 100 "route refused" ADD scni-e11 "$NS" eth0 "$BAD"
expect_error 100 "interface exists in the container" ADD scni-e12 "$NS" lo \
    "$NET"
# A port of that name exists already (on another interface): the last step
# fails, and the port that was there stays.
TAKEN=$(host_name scni-e13 eth0)
ps_add_veth_to_ns "$B2" eth0 scni-taken
ps_appctl add-port br0 "$TAKEN" interface=scni-taken >/dev/null
expect_code 102 "port name taken" ADD scni-e13 "$NS" eth0 "$NET"
grep -q "^$TAKEN scni-taken " <<<"$(ports)" ||
    ps_fail "the port that was there before was removed"
ps_appctl del-port br0 "$TAKEN" >/dev/null
nothing_left scni-e13 eth0

ps_stop_daemon
ps_check_log
expect_error 11 "daemon not running" ADD scni-e14 "$NS" eth0 "$NET"
rc=0
cni DEL scni-e14 "$NS" eth0 "$NET" || rc=$?
ps_assert_eq "DEL with the daemon down: status and code" "1 11" \
    "$rc $(jq -r .code "$OUT")"
ps_info "PASS"
