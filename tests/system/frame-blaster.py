#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Malformed-frame generator and per-kind sniffer for the fault system
# tests (tests/system/test-faults*.sh).  Standard library only.
#
#   frame-blaster.py kinds
#       Prints the frame kinds, one per line, as "INDEX NAME".
#   frame-blaster.py send IFACE KIND COUNT DST_MAC
#       Sends COUNT frames of KIND on IFACE through an AF_PACKET raw socket,
#       as fast as it can, and prints "sent N failed M" (a failed send is
#       one the kernel refused, for example with ENOBUFS).  Every frame of
#       kind INDEX has the source MAC 02:5f:a0:00:00:INDEX, so a sniffer
#       can tell the kinds apart however mangled the rest is.
#   frame-blaster.py flood IFACE DST_MAC SECONDS
#       Sends 60-byte UDP frames to DST_MAC for SECONDS as fast as it can
#       and prints "sent N failed M".
#   frame-blaster.py sniff IFACE OUT READY
#       Counts the frames IFACE receives (not those it transmits), per kind
#       by source MAC, until SIGTERM.  Whenever the counts changed and then
#       0.1 s passed without a frame, and when it stops, it replaces OUT
#       with a JSON object {"kinds": {INDEX: COUNT}, "other": N, "drops":
#       N}, "drops" being what the kernel dropped because this socket was
#       full.  Creates the file READY once it listens.

import json
import os
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_STATISTICS = 6
KIND_MAC_PREFIX = bytes.fromhex("025fa00000")

# Addresses inside frames; nothing in the test owns them, so a receiving
# kernel drops what it gets without answering.
SRC_IP4 = bytes([10, 78, 99, 1])
DST_IP4 = bytes([10, 78, 99, 2])
SRC_IP6 = bytes.fromhex("fd00007800990000000000000000000" "1")
DST_IP6 = bytes.fromhex("fd00007800990000000000000000000" "2")


def csum(data):
    """Returns the Internet checksum of 'data'."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4(proto, payload, ihl=5, total=None, options=b""):
    """An IPv4 header with IHL 'ihl' (possibly lying) and 'options', then
    'payload'."""
    if total is None:
        total = 20 + len(options) + len(payload)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | (ihl & 0xf), 0, total & 0xffff,
                      0x1234, 0, 64, proto, 0, SRC_IP4, DST_IP4)
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + options + payload


def ipv6(nxt, payload, plen=None):
    """An IPv6 header with next header 'nxt', then 'payload'."""
    if plen is None:
        plen = len(payload)
    return struct.pack("!IHBB16s16s", 0x60000000, plen & 0xffff, nxt, 64,
                       SRC_IP6, DST_IP6) + payload


def udp(payload=b"", sport=4000, dport=4001):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(payload=b"", doff=5, flags=0x18):
    hdr = struct.pack("!HHIIBBHHH", 4000, 4001, 1, 0, (doff & 0xf) << 4,
                      flags, 8192, 0, 0)
    return hdr + payload


def icmp4():
    return struct.pack("!BBHHH", 8, 0, 0, 1, 1) + b"ping" * 4


def icmp6():
    return struct.pack("!BBH", 135, 0, 0) + b"\0" * 4 + DST_IP6


def arp():
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1,
                       b"\x02\x5f\xa0\0\0\0", SRC_IP4, b"\0" * 6, DST_IP4)


def vlan_tags(tpids, ethertype):
    """VLAN tags with the TPIDs 'tpids' (outermost first), then
    'ethertype'."""
    out = b""
    for i, tpid in enumerate(tpids):
        out += struct.pack("!HH", tpid, 100 + i)
    return out + struct.pack("!H", ethertype)


PAYLOAD = b"pmdswitch-fault!" * 2


def ext6(nxt, hdr_ext_len, body=None):
    """An IPv6 extension header (hop-by-hop, routing, destination options)
    with 'hdr_ext_len' and next header 'nxt'; 'body' defaults to padding
    of the size the length claims."""
    if body is None:
        body = b"\x01" + bytes([4 + 8 * hdr_ext_len]) + b"\0" * (
            4 + 8 * hdr_ext_len)
    return bytes([nxt, hdr_ext_len & 0xff]) + body


def kind_frames():
    """Returns [(name, [L2 payload starting with the ethertype, ...])]: the
    frame kinds, each a list of variants sent in turn."""
    kinds = []

    # IPv4 with IHL below 5, and with IHL pointing past the end.
    kinds.append(("ipv4-ihl-short", [
        struct.pack("!H", 0x0800) + ipv4(17, udp(PAYLOAD), ihl=ihl)
        for ihl in range(0, 5)]))
    kinds.append(("ipv4-ihl-long", [
        struct.pack("!H", 0x0800) + ipv4(17, b"", ihl=15, total=60),
        struct.pack("!H", 0x0800) + ipv4(6, b"\0" * 8, ihl=15),
        struct.pack("!H", 0x0800) + ipv4(17, udp(), ihl=8, total=1500),
        struct.pack("!H", 0x0800) + ipv4(17, b"", ihl=6)]))

    # IPv6 extension chains: far longer than any parser follows, one
    # pointing at itself over and over, and chains cut short.
    long_chain = b""
    for _ in range(40):
        long_chain += ext6(60, 0)
    kinds.append(("ipv6-ext-loop", [
        struct.pack("!H", 0x86dd) + ipv6(0, ext6(60, 0) + long_chain),
        struct.pack("!H", 0x86dd) + ipv6(60, long_chain[:8 * 7] + ext6(
            17, 0) + udp(PAYLOAD)),
        struct.pack("!H", 0x86dd) + ipv6(43, b"".join(
            bytes([43, 0]) + b"\0" * 6 for _ in range(30)))]))
    kinds.append(("ipv6-ext-trunc", [
        struct.pack("!H", 0x86dd) + ipv6(0, bytes([17, 255]) + b"\0" * 6),
        struct.pack("!H", 0x86dd) + ipv6(60, ext6(60, 0) + bytes([17, 3])),
        struct.pack("!H", 0x86dd) + ipv6(44, bytes([17, 0, 0, 1])),
        struct.pack("!H", 0x86dd) + ipv6(43, bytes([6, 200, 0, 0]) +
                                         b"\0" * 20, plen=4000),
        struct.pack("!H", 0x86dd) + ipv6(51, bytes([6, 9]) + b"\0" * 10)]))

    # TCP data offset past the end of the frame, and below 5.
    kinds.append(("tcp-doff", [
        struct.pack("!H", 0x0800) + ipv4(6, tcp(PAYLOAD, doff=15)),
        struct.pack("!H", 0x0800) + ipv4(6, tcp(b"", doff=15)),
        struct.pack("!H", 0x0800) + ipv4(6, tcp(b"", doff=2)),
        struct.pack("!H", 0x86dd) + ipv6(6, tcp(b"", doff=14)),
        struct.pack("!H", 0x86dd) + ipv6(6, tcp(PAYLOAD, doff=0))]))

    # Stacked VLAN tags.
    kinds.append(("qinq-2", [
        vlan_tags([0x88a8, 0x8100], 0x0800) + ipv4(17, udp(PAYLOAD)),
        vlan_tags([0x8100, 0x8100], 0x86dd) + ipv6(17, udp(PAYLOAD))]))
    kinds.append(("qinq-5", [
        vlan_tags([0x88a8, 0x8100, 0x8100, 0x8100, 0x8100], 0x0800) +
        ipv4(17, udp(PAYLOAD)),
        vlan_tags([0x8100] * 5, 0x86dd) + ipv6(6, tcp(PAYLOAD))]))

    # Well-formed headers with nothing behind them.
    kinds.append(("zero-payload", [
        struct.pack("!H", 0x0800) + ipv4(17, udp()),
        struct.pack("!H", 0x0800) + ipv4(6, tcp(flags=0x10)),
        struct.pack("!H", 0x86dd) + ipv6(17, udp()),
        struct.pack("!H", 0x0800) + ipv4(17, b""),
        struct.pack("!H", 0x86dd) + ipv6(59, b"")]))

    # Runts: an Ethernet header and nothing else (the kernel refuses to
    # send anything shorter, see 'send').
    kinds.append(("runt", [struct.pack("!H", t) for t in
                           (0x0800, 0x86dd, 0x0806, 0x8100, 0x88a8,
                            0x88cc)]))

    # Every header cut at every length: each prefix of each full frame.
    full = [
        struct.pack("!H", 0x0800) + ipv4(6, tcp(PAYLOAD)),
        struct.pack("!H", 0x0800) + ipv4(17, udp(PAYLOAD),
                                          ihl=7, options=b"\x01" * 8),
        struct.pack("!H", 0x0800) + ipv4(1, icmp4()),
        struct.pack("!H", 0x86dd) + ipv6(0, ext6(6, 0) + tcp(PAYLOAD)),
        struct.pack("!H", 0x86dd) + ipv6(17, udp(PAYLOAD)),
        struct.pack("!H", 0x86dd) + ipv6(58, icmp6()),
        struct.pack("!H", 0x0806) + arp(),
        vlan_tags([0x8100], 0x0800) + ipv4(6, tcp(PAYLOAD)),
        vlan_tags([0x88a8, 0x8100], 0x86dd) + ipv6(17, udp(PAYLOAD)),
    ]
    kinds.append(("truncated", [f[:n] for f in full
                                for n in range(2, len(f))]))
    return kinds


def frames_of(index, dst):
    """The complete frames of kind 'index', destined to MAC 'dst'."""
    name, bodies = kind_frames()[index]
    src = KIND_MAC_PREFIX + bytes([index])
    return name, [dst + src + b for b in bodies]


def raw_socket(iface, rcvbuf=0):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    if rcvbuf:
        # SO_RCVBUFFORCE (33) passes the rmem_max limit; we are root.
        s.setsockopt(socket.SOL_SOCKET, 33, rcvbuf)
    s.bind((iface, ETH_P_ALL))
    return s


def cmd_send(iface, kind, count, dst):
    name, frames = frames_of(int(kind), bytes.fromhex(dst.replace(":", "")))
    s = raw_socket(iface)
    sent = failed = 0
    if name == "runt":
        # Frames shorter than an Ethernet header, if the kernel sends them
        # at all (it needs CAP_SYS_RAWIO and then pads them): counted as
        # sent, and the variants join the rotation.
        short = [f[:n] for f in frames[:2] for n in (1, 6, 13)]
        for f in short:
            try:
                s.send(f)
                sent += 1
                frames.append(f)
            except OSError as e:
                print("kernel refuses a %d-byte frame: %s" % (len(f), e),
                      file=sys.stderr)
    n = len(frames)
    send = s.send
    for i in range(int(count)):
        try:
            send(frames[i % n])
            sent += 1
        except OSError:
            failed += 1
    print("sent %d failed %d" % (sent, failed))


def cmd_flood(iface, dst, seconds):
    frame = (bytes.fromhex(dst.replace(":", "")) + KIND_MAC_PREFIX +
             b"\xfe" + struct.pack("!H", 0x0800) +
             ipv4(17, udp(b"\0" * 18)))
    s = raw_socket(iface)
    send = s.send
    sent = failed = 0
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end:
        for _ in range(256):
            try:
                send(frame)
                sent += 1
            except OSError:
                failed += 1
    print("sent %d failed %d" % (sent, failed))


def cmd_sniff(iface, out, ready):
    s = raw_socket(iface, rcvbuf=64 << 20)
    s.settimeout(0.1)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    counts = {}
    other = 0
    drops = 0
    buf = bytearray(2048)
    dirty = True

    def dump():
        nonlocal drops
        _, new_drops = struct.unpack(
            "II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
        drops += new_drops
        with open(out + ".tmp", "w") as f:
            json.dump({"kinds": counts, "other": other, "drops": drops}, f)
        os.rename(out + ".tmp", out)

    open(ready, "w").close()
    while True:
        try:
            n, addr = s.recvfrom_into(buf)
        except socket.timeout:
            if stop:
                break
            if dirty:
                dump()
                dirty = False
            continue
        except InterruptedError:
            continue
        if addr[2] == PACKET_OUTGOING:
            continue
        dirty = True
        if n >= 12 and buf[6:11] == KIND_MAC_PREFIX:
            counts[buf[11]] = counts.get(buf[11], 0) + 1
        else:
            other += 1
    dump()


def main():
    args = sys.argv[1:]
    cmds = {"kinds": (0, lambda: print("\n".join(
                "%d %s" % (i, k[0]) for i, k in enumerate(kind_frames())))),
            "send": (4, cmd_send), "flood": (3, cmd_flood),
            "sniff": (3, cmd_sniff)}
    if not args or args[0] not in cmds or len(args) - 1 != cmds[args[0]][0]:
        sys.exit("usage: see the comment at the top of %s" % sys.argv[0])
    cmds[args[0]][1](*args[1:])


if __name__ == "__main__":
    main()
