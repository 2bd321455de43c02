#!/bin/sh
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# End-to-end test of utilities/pmdswitch-parse-pcap, without root.
#
# usage: tests/test-parse-pcap.sh [BUILDDIR]
#
# BUILDDIR (or $PMDSWITCH_BUILD, else the directory above this script)
# holds utilities/pmdswitch-parse-pcap.  A python3 script, independent of
# the C reader, writes captures into a temporary directory: one frame of
# each protocol the datapath parser knows, in all four pcap variants
# (micro/nanoseconds, little/big-endian); a capture with no frames; one
# cut inside a record; files that are not pcap.  The binary's stdout,
# stderr and exit status are compared exactly with what they must be.
# Exit status: 0 pass, 1 fail, 77 skipped (no python3).

LC_ALL=C
export LC_ALL

BUILD=${1:-${PMDSWITCH_BUILD:-$(dirname "$0")/..}}
TOOL=$BUILD/utilities/pmdswitch-parse-pcap
NAME=pmdswitch-parse-pcap

if [ ! -x "$TOOL" ]; then
    echo "$0: $TOOL not found (build it first)" >&2
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "$0: python3 not found, skipping" >&2
    exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/test-parse-pcap.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

# Writes the captures into directory $1.
python3 - "$TMP" <<'EOF' || { echo "$0: python3 failed" >&2; exit 1; }
import os
import socket
import struct
import sys

out = sys.argv[1]
MAC1 = bytes.fromhex("505400000001")
MAC2 = bytes.fromhex("505400000002")
BCAST = b"\xff" * 6
ZERO = b"\0" * 6
NS_MAC = bytes.fromhex("3333ff000002")
IP1, IP2 = 0x0a000001, 0x0a000002


def eth(typ, dst=MAC2, src=MAC1, tags=()):
    h = dst + src
    for tpid, tci in tags:
        h += struct.pack("!HH", tpid, tci)
    return h + struct.pack("!H", typ)


def pad(frame):
    return frame + b"\0" * max(0, 60 - len(frame))


def ipv4(proto, payload, tos=0, ttl=64, frag=0, opts=b""):
    ihl = (20 + len(opts)) // 4
    return struct.pack("!BBHHHBBHII", 0x40 | ihl, tos,
                       20 + len(opts) + len(payload), 0x4321, frag, ttl,
                       proto, 0, IP1, IP2) + opts + payload


def ipv6(nxt, payload, tclass=0, label=0, hlim=64,
         src="2001:db8::1", dst="2001:db8::2"):
    return (struct.pack("!IHBB", (6 << 28) | (tclass << 20) | label,
                        len(payload), nxt, hlim)
            + socket.inet_pton(socket.AF_INET6, src)
            + socket.inet_pton(socket.AF_INET6, dst) + payload)


def tcp(sport, dport, flags):
    return struct.pack("!HHIIHHHH", sport, dport, 1000, 0,
                       (5 << 12) | flags, 65535, 0, 0)


def udp(sport, dport, n=0):
    return struct.pack("!HHHH", sport, dport, 8 + n, 0) + b"\0" * n


def sctp(sport, dport):
    return struct.pack("!HHIIBBH", sport, dport, 0xdeadbeef, 0, 1, 0, 4)


def echo(typ):
    return struct.pack("!BBHHH", typ, 0, 0, 0x1234, 1) + b"\0" * 8


def nd(typ, flags, target, opt_type, mac):
    return (struct.pack("!BBHI", typ, 0, 0, flags)
            + socket.inet_pton(socket.AF_INET6, target)
            + struct.pack("!BB", opt_type, 1) + mac)


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH6sI6sI", 1, 0x0800, 6, 4, op, sha, spa,
                       tha, tpa)


syn = pad(eth(0x0800) + ipv4(6, tcp(1234, 80, 0x002), frag=0x4000))
tcp6 = eth(0x86dd) + ipv6(6, tcp(1234, 80, 0x012), label=0x12345)
frames = [
    eth(0x88cc) + b"\0" * 46,
    pad(eth(46) + b"\x42\x42\x03"),
    (MAC2 + MAC1)[:10],
    eth(0x0800, tags=[(0x8100, (5 << 13) | 100)])
    + ipv4(17, udp(1234, 53, 20)),
    eth(0x0800, tags=[(0x88a8, 10), (0x8100, (3 << 13) | 20)])
    + ipv4(6, tcp(1234, 80, 0x010)),
    pad(eth(0x0806, dst=BCAST, tags=[(0x8100, 4094)])
        + arp(1, MAC1, IP1, ZERO, IP2)),
    pad(eth(0x0806, dst=BCAST) + arp(1, MAC1, IP1, ZERO, IP2)),
    pad(eth(0x0806, dst=MAC1, src=MAC2) + arp(2, MAC2, IP2, MAC1, IP1)),
    syn,
    eth(0x0800) + ipv4(6, tcp(443, 50000, 0x019), tos=0x10, ttl=128,
                       opts=b"\x01" * 8),
    eth(0x0800) + ipv4(17, udp(5353, 5353, 12), tos=0xb9, ttl=3),
    eth(0x0800) + ipv4(132, sctp(5000, 5001)),
    eth(0x0800) + ipv4(1, echo(8)),
    eth(0x0800) + ipv4(17, udp(1234, 53, 32), frag=0x2000),
    eth(0x0800) + ipv4(17, b"\0" * 40, frag=185),
    pad(eth(0x0800) + ipv4(47, b"\0" * 4, ttl=255)),
    tcp6,
    eth(0x86dd) + ipv6(17, udp(546, 547, 4), tclass=0x2a, hlim=1),
    eth(0x86dd) + ipv6(58, echo(128)),
    eth(0x86dd, dst=NS_MAC)
    + ipv6(58, nd(135, 0, "fe80::2", 1, MAC1), hlim=255, src="fe80::1",
           dst="ff02::1:ff00:2"),
    eth(0x86dd, dst=MAC1, src=MAC2)
    + ipv6(58, nd(136, 0x60000000, "fe80::2", 2, MAC2), hlim=255,
           src="fe80::2", dst="fe80::1"),
    eth(0x86dd) + ipv6(0, bytes([17, 0, 1, 4, 0, 0, 0, 0])
                       + udp(1234, 53, 8)),
    eth(0x86dd) + ipv6(44, struct.pack("!BBHI", 17, 0, 1, 0xabcd)
                       + udp(1234, 53, 24)),
    eth(0x86dd) + ipv6(44, struct.pack("!BBHI", 58, 0, 1448, 0xabcd)
                       + b"\0" * 16),
    syn[:14 + 10],
    syn[:14 + 20 + 10],
    syn[:14] + b"\x65" + syn[15:],
    tcp6[:14 + 39],
]


def pcap(name, frames, magic=0xa1b2c3d4, endian="<", tail=b""):
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            frac = 999999 if magic == 0xa1b2c3d4 else 999999999
            f.write(struct.pack(endian + "IIII", 1700000000 + i, frac,
                                len(frame), max(len(frame), 60)))
            f.write(frame)
        f.write(tail)


pcap("usec-le.pcap", frames)
pcap("usec-be.pcap", frames, endian=">")
pcap("nsec-le.pcap", frames, magic=0xa1b23c4d)
pcap("nsec-be.pcap", frames, magic=0xa1b23c4d, endian=">")
pcap("empty.pcap", [])
# Three whole frames (24 + 3 * 16 + 60 + 60 + 60 = 252), then a record
# whose 60 bytes stop after 20.
pcap("cut.pcap", frames[6:9],
     tail=struct.pack("<IIII", 1, 0, 60, 60) + b"\0" * 20)
with open(os.path.join(out, "pcapng.pcap"), "wb") as f:
    f.write(bytes.fromhex("0a0d0d0a1c0000004d3c2b1a01000000"))
with open(os.path.join(out, "text.pcap"), "wb") as f:
    f.write(b"hello\n")
EOF

cat > "$TMP/expected" <<'EOF'
in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,dl_type=0x88cc
in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,dl_type=0x05ff
in_port=ANY,vlan_tci=0x0000,dl_src=00:00:00:00:00:00,dl_dst=00:00:00:00:00:00,dl_type=0x0000
udp,in_port=ANY,dl_vlan=100,dl_vlan_pcp=5,vlan_tci1=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=53
tcp,in_port=ANY,dl_vlan=10,dl_vlan_pcp=0,dl_vlan1=20,dl_vlan_pcp1=3,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=ack
arp,in_port=ANY,dl_vlan=4094,dl_vlan_pcp=0,vlan_tci1=0x0000,dl_src=50:54:00:00:00:01,dl_dst=ff:ff:ff:ff:ff:ff,arp_spa=10.0.0.1,arp_tpa=10.0.0.2,arp_op=1,arp_sha=50:54:00:00:00:01,arp_tha=00:00:00:00:00:00
arp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=ff:ff:ff:ff:ff:ff,arp_spa=10.0.0.1,arp_tpa=10.0.0.2,arp_op=1,arp_sha=50:54:00:00:00:01,arp_tha=00:00:00:00:00:00
arp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:02,dl_dst=50:54:00:00:00:01,arp_spa=10.0.0.2,arp_tpa=10.0.0.1,arp_op=2,arp_sha=50:54:00:00:00:02,arp_tha=50:54:00:00:00:01
tcp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=syn
tcp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=16,nw_ecn=0,nw_ttl=128,nw_frag=no,tp_src=443,tp_dst=50000,tcp_flags=fin|psh|ack
udp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=184,nw_ecn=1,nw_ttl=3,nw_frag=no,tp_src=5353,tp_dst=5353
sctp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=5000,tp_dst=5001
icmp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,icmp_type=8,icmp_code=0
udp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=first,tp_src=1234,tp_dst=53
udp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=later
ip,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_proto=47,nw_tos=0,nw_ecn=0,nw_ttl=255,nw_frag=no
tcp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,ipv6_label=0x12345,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=syn|ack
udp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=40,nw_ecn=2,nw_ttl=1,nw_frag=no,tp_src=546,tp_dst=547
icmp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,icmp_type=128,icmp_code=0
icmp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=33:33:ff:00:00:02,ipv6_src=fe80::1,ipv6_dst=ff02::1:ff00:2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=255,nw_frag=no,icmp_type=135,icmp_code=0,nd_target=fe80::2,nd_sll=50:54:00:00:00:01,nd_tll=00:00:00:00:00:00
icmp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:02,dl_dst=50:54:00:00:00:01,ipv6_src=fe80::2,ipv6_dst=fe80::1,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=255,nw_frag=no,icmp_type=136,icmp_code=0,nd_target=fe80::2,nd_sll=00:00:00:00:00:00,nd_tll=50:54:00:00:00:02
udp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=53
udp6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=first,tp_src=1234,tp_dst=53
ipv6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_proto=44,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=later
ip,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=0.0.0.0,nw_dst=0.0.0.0,nw_proto=0,nw_tos=0,nw_ecn=0,nw_ttl=0,nw_frag=no
ip,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=0.0.0.0,nw_dst=0.0.0.0,nw_proto=0,nw_tos=0,nw_ecn=0,nw_ttl=0,nw_frag=no
tcp,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=syn
ipv6,in_port=ANY,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,ipv6_src=::,ipv6_dst=::,ipv6_label=0x00000,nw_proto=0,nw_tos=0,nw_ecn=0,nw_ttl=0,nw_frag=no
EOF

failures=0

# check NAME STATUS STDOUT-FILE STDERR-TEXT ARGS...: runs the tool with
# ARGS and compares its exit status, stdout (with the file, or empty if
# "-") and stderr (with the text, one line or empty) exactly.
check() {
    name=$1 status=$2 want_out=$3 want_err=$4
    shift 4
    "$TOOL" "$@" > "$TMP/out" 2> "$TMP/err"
    got_status=$?
    if [ "$want_out" = - ]; then
        : > "$TMP/want_out"
    else
        cp "$want_out" "$TMP/want_out"
    fi
    if [ -n "$want_err" ]; then
        printf '%s\n' "$want_err" > "$TMP/want_err"
    else
        : > "$TMP/want_err"
    fi
    ok=true
    if [ "$got_status" != "$status" ]; then
        echo "FAIL $name: exit status $got_status, expected $status"
        ok=false
    fi
    if ! cmp -s "$TMP/out" "$TMP/want_out"; then
        echo "FAIL $name: stdout differs:"
        diff "$TMP/want_out" "$TMP/out" | head -20
        ok=false
    fi
    if ! cmp -s "$TMP/err" "$TMP/want_err"; then
        echo "FAIL $name: stderr differs:"
        diff "$TMP/want_err" "$TMP/err" | head -20
        ok=false
    fi
    if $ok; then
        echo "ok   $name"
    else
        failures=$((failures + 1))
    fi
}

for variant in usec-le usec-be nsec-le nsec-be; do
    check "$variant" 0 "$TMP/expected" "" "$TMP/$variant.pcap"
done
check "no frames" 0 - "" "$TMP/empty.pcap"

sed -n '7,9p' "$TMP/expected" > "$TMP/expected-cut"
check "cut record" 1 "$TMP/expected-cut" \
    "$NAME: $TMP/cut.pcap: offset 252: file ends inside the record data (20 of 60 bytes)" \
    "$TMP/cut.pcap"
check "pcapng" 1 - \
    "$NAME: $TMP/pcapng.pcap: offset 0: not a pcap file: bad magic 0x0a0d0d0a (pcapng is not supported)" \
    "$TMP/pcapng.pcap"
check "text file" 1 - \
    "$NAME: $TMP/text.pcap: offset 0: not a pcap file: bad magic 0x68656c6c" \
    "$TMP/text.pcap"
check "missing file" 1 - \
    "$NAME: $TMP/missing.pcap: open failed: No such file or directory" \
    "$TMP/missing.pcap"
check "no arguments" 1 - "$NAME: missing FILE; use --help for help"
check "two files" 1 - \
    "$NAME: exactly one FILE expected; use --help for help" \
    "$TMP/empty.pcap" "$TMP/empty.pcap"
check "bad option" 1 - "$TOOL: invalid option -- 'x'
Try '$NAME --help' for more information." -x

"$TOOL" --version > "$TMP/version" 2>&1
if [ $? -eq 0 ] && grep -q "^$NAME (pmdswitch) " "$TMP/version"; then
    echo "ok   --version"
else
    echo "FAIL --version: $(cat "$TMP/version")"
    failures=$((failures + 1))
fi
"$TOOL" -h > "$TMP/help" 2>&1
if [ $? -eq 0 ] && grep -q "^usage: $NAME \[OPTIONS\] FILE" "$TMP/help"; then
    echo "ok   -h"
else
    echo "FAIL -h: $(cat "$TMP/help")"
    failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
    echo "$0: $failures check(s) failed"
    exit 1
fi
echo "$0: all checks passed"
exit 0
