#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: packet capture inside the switch, read back with tcpdump
# and tshark.  Two namespaces ping through the switch while dpctl/capture
# records port p1: tcpdump reads the pcapng file, and tshark finds each
# echo request received on p1 and each reply sent to it, with the
# direction flag and comment of each.  A rule drops UDP to port 9 while
# dpctl/capture-drops runs: tshark finds exactly the frames sent there,
# each with the reason in its comment, and none of the UDP frames that
# were forwarded.  COUNT stops a capture by itself; an afxdp port (when
# the build has them), which tcpdump on its interface cannot see, is
# captured like any other.  Bad requests (relative path, unknown port,
# bad COUNT, a file that cannot be created) get clear errors.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3 tcpdump tshark
ps_require_daemon
ps_setup scap

A=scap-a
B=scap-b
X=scap-x
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 scap-a-sw 10.77.12.1/24
ps_add_veth_to_ns "$B" eth0 scap-b-sw 10.77.12.2/24
PORTS=(p1=scap-a-sw p2=scap-b-sw)
AFXDP=
if grep -q '^#define HAVE_AFXDP 1' "$PS_BUILD/autoconf.h"; then
    AFXDP=yes
    ps_add_quiet_ns "$X"
    ps_add_veth_to_ns "$X" eth0 scap-x-sw 10.77.12.3/24
    # An afxdp port carries no offload metadata: checksums done by the
    # sender.
    ps_ns "$X" ethtool -K eth0 tx off >/dev/null
    PORTS+=(x1=afxdp:scap-x-sw)
fi
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" "${PORTS[@]}"
ps_start_daemon "$CONFIG"
ps_ping_all "$A" 2 10.77.12.2      # Learn both MACs first.

DIR=$(mktemp -d /tmp/scap-files.XXXXXX)
ps_record_dir "$DIR"

# tshark_count FILE FILTER: frames of FILE that FILTER matches.
tshark_count()
{
    tshark -r "$1" -Y "$2" -T fields -e frame.number 2>/dev/null | wc -l
}

# ---------------------------------------------------------------------------
ps_info "dpctl/capture p1 while A pings B"
ps_appctl dpctl/capture p1 "$DIR/p1.pcapng" >/dev/null
ps_ping_all "$A" 10 10.77.12.2
ps_appctl dpctl/capture-show >"$PS_LOG_DIR/show.txt"
grep -q "^port p1: [0-9]* frame(s) into $DIR/p1.pcapng" "$PS_LOG_DIR/show.txt" ||
    ps_fail "capture-show: $(cat "$PS_LOG_DIR/show.txt")"
ps_appctl dpctl/capture-stop p1 >/dev/null
n=$(tcpdump -nn -r "$DIR/p1.pcapng" 'icmp[icmptype] == icmp-echo' \
    2>/dev/null | wc -l)
ps_assert_eq "echo requests tcpdump reads" 10 "$n"
n=$(tcpdump -nn -r "$DIR/p1.pcapng" 'icmp[icmptype] == icmp-echoreply' \
    2>/dev/null | wc -l)
ps_assert_eq "echo replies tcpdump reads" 10 "$n"
ps_assert_eq "requests received on p1 (tshark)" 10 "$(tshark_count \
    "$DIR/p1.pcapng" 'icmp.type == 8 && frame.packet_flags_direction == 1 && frame.comment == "received on p1"')"
ps_assert_eq "replies sent to p1 (tshark)" 10 "$(tshark_count \
    "$DIR/p1.pcapng" 'icmp.type == 0 && frame.packet_flags_direction == 2 && frame.comment == "sent to p1"')"

# ---------------------------------------------------------------------------
ps_info "dpctl/capture-drops while a rule drops UDP to port 9"
ps_appctl rule/add br0 "priority=100,udp,tp_dst=9,actions=drop" >/dev/null
ps_appctl rule/add br0 "priority=0,actions=NORMAL" >/dev/null
ps_appctl dpctl/capture-drops "$DIR/drops.pcapng" >/dev/null
ps_ns "$A" python3 - <<'EOF'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20):
    s.sendto(b"drop-me-%d" % i, ("10.77.12.2", 9))
    s.sendto(b"pass-me-%d" % i, ("10.77.12.2", 7))
EOF
dropped()
{
    [[ $(ps_appctl -f json dpctl/capture-show |
        python3 -c 'import json, sys
print(sum(c["frames"] for c in json.load(sys.stdin)["captures"]))') -ge 20 ]]
}
ps_wait_until 5 dropped || ps_fail "capture-drops did not see 20 frames"
ps_appctl dpctl/capture-stop drops >/dev/null
ps_assert_eq "dropped UDP to port 9, with the reason (tshark)" 20 \
    "$(tshark_count "$DIR/drops.pcapng" 'udp.dstport == 9 && frame.comment contains "dropped: flow_action" && frame.comment contains "in_port p1"')"
ps_assert_eq "forwarded UDP in the drop capture" 0 \
    "$(tshark_count "$DIR/drops.pcapng" 'udp.dstport == 7')"
ps_assert_eq "frames tcpdump reads from the drop capture" 20 \
    "$(tcpdump -nn -r "$DIR/drops.pcapng" 'udp dst port 9' 2>/dev/null | wc -l)"
ps_appctl rule/del br0 >/dev/null

# ---------------------------------------------------------------------------
ps_info "COUNT stops a capture by itself"
ps_appctl dpctl/capture p2 "$DIR/p2.pcapng" 4 >/dev/null
ps_ping_all "$A" 5 10.77.12.2
stopped() { ps_appctl dpctl/capture-show | grep -q "no capture running"; }
ps_wait_until 5 stopped || ps_fail "the capture did not stop after 4 frames"
ps_assert_eq "frames in a 4-frame capture" 4 \
    "$(tcpdump -nn -r "$DIR/p2.pcapng" 2>/dev/null | wc -l)"

if [[ -n $AFXDP ]]; then
    ps_info "an afxdp port"
    ps_appctl dpctl/capture x1 "$DIR/x1.pcapng" >/dev/null
    ps_ping_all "$X" 5 10.77.12.1
    ps_appctl dpctl/capture-stop >/dev/null
    ps_assert_eq "echo requests received on afxdp port x1" 5 "$(tshark_count \
        "$DIR/x1.pcapng" 'icmp.type == 8 && frame.comment == "received on x1"')"
    ps_assert_eq "echo replies sent to afxdp port x1" 5 "$(tshark_count \
        "$DIR/x1.pcapng" 'icmp.type == 0 && frame.comment == "sent to x1"')"
fi

# ---------------------------------------------------------------------------
ps_info "bad requests"
# expect_error WORDS CMD...: CMD fails and says WORDS.
expect_error()
{
    local words=$1 out
    shift
    if out=$(ps_appctl "$@" 2>&1); then
        ps_fail "'$*' succeeded"
    fi
    [[ $out == *"$words"* ]] || ps_fail "'$*': unclear error: $out"
}
expect_error "must be an absolute path" dpctl/capture p1 p1.pcapng
expect_error 'no port named "nope"' dpctl/capture nope "$DIR/n.pcapng"
expect_error "COUNT must be a positive" dpctl/capture p1 "$DIR/n.pcapng" 0
expect_error "cannot create" dpctl/capture-drops /nonexistent/dir/d.pcapng
expect_error 'nothing is captured for "p1"' dpctl/capture-stop p1
ps_appctl dpctl/capture-show | grep -q "no capture running" ||
    ps_fail "a failed request left a capture running"

ps_stop_daemon
ps_check_log
ps_info "PASS"
