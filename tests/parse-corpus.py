#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Writes the frame corpus of the differential parse test
# (tests/test-parse-diff.sh): a pcap file and, beside it, one label per
# frame ("CLASS: what the frame is").  The frames come from a fixed seed,
# so every run writes the same bytes.
#
# Families, each a few hundred frames:
#   ordinary      well-formed Ethernet, VLAN, ARP, IPv4 and IPv6 traffic
#   l3-length     IPv4 total length and header length, IPv6 payload length
#                 and extension chains that disagree with the bytes present
#   ip-version    every version nibble behind 0x0800 and 0x86dd
#   l4-malformed  TCP data offsets, short UDP, SCTP, ICMP, ICMPv6 and IGMP
#   ipv6-frag     every kind of Fragment header, atomic ones included
#   ipv6-ext      extension header chains in any order and repetition
#   rarp          RARP, well-formed and not
#   llc-snap      802.3 frames with and without LLC/SNAP
#   nd-options    neighbor discovery option lists, malformed ones too
#   truncated     every prefix of a few representative frames
#
# usage: tests/parse-corpus.py PCAP LABELS
import random
import socket
import struct
import sys

MAC1 = bytes.fromhex("505400000001")
MAC2 = bytes.fromhex("505400000002")
BCAST = b"\xff" * 6
ZERO_MAC = b"\0" * 6
IP1, IP2 = 0x0a000001, 0x0a000002
SRC6, DST6 = "2001:db8::1", "2001:db8::2"

# IP protocol numbers.
HOPOPTS, TCP, UDP, ROUTING, FRAGMENT, AH, ICMPV6, NONXT, DSTOPTS = (
    0, 6, 17, 43, 44, 51, 58, 59, 60)
ICMP, IGMP, GRE, SCTP = 1, 2, 47, 132

rng = random.Random(16)


def rbytes(n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def rmac():
    return bytes([rng.getrandbits(8) & 0xfe]) + rbytes(5)


def eth(typ, dst=MAC2, src=MAC1, tags=()):
    h = dst + src
    for tpid, tci in tags:
        h += struct.pack("!HH", tpid, tci)
    return h + struct.pack("!H", typ)


def pad(frame):
    return frame + b"\0" * max(0, 60 - len(frame))


def ipv4(proto, payload, tos=0, ttl=64, frag=0, opts=b"", tot_len=None,
         ihl=None, version=4, src=IP1, dst=IP2):
    if ihl is None:
        ihl = (20 + len(opts)) // 4
    if tot_len is None:
        tot_len = 20 + len(opts) + len(payload)
    return struct.pack("!BBHHHBBHII", (version << 4) | ihl, tos, tot_len,
                       0x4321, frag, ttl, proto, 0, src, dst) \
        + opts + payload


def ipv6(nxt, payload, tclass=0, label=0, hlim=64, src=SRC6, dst=DST6,
         plen=None, version=6):
    if plen is None:
        plen = len(payload)
    return (struct.pack("!IHBB", (version << 28) | (tclass << 20) | label,
                        plen, nxt, hlim)
            + socket.inet_pton(socket.AF_INET6, src)
            + socket.inet_pton(socket.AF_INET6, dst) + payload)


def tcp(sport, dport, flags, doff=5, opts=b""):
    return struct.pack("!HHIIHHHH", sport, dport, 1000, 0,
                       (doff << 12) | flags, 65535, 0, 0) + opts


def udp(sport, dport, n=0):
    return struct.pack("!HHHH", sport, dport, 8 + n, 0) + b"\0" * n


def sctp(sport, dport):
    return struct.pack("!HHIIBBH", sport, dport, 0xdeadbeef, 0, 1, 0, 4)


def icmp(typ, code, rest=b"\0\0\0\0"):
    return struct.pack("!BBH", typ, code, 0) + rest


def igmp(typ, code, group):
    return struct.pack("!BBHI", typ, code, 0, group)


def nd(typ, target, opts=b"", flags=0, code=0):
    return (struct.pack("!BBHI", typ, code, 0, flags)
            + socket.inet_pton(socket.AF_INET6, target) + opts)


def nd_opt(typ, units, body=None):
    if body is None:
        body = rbytes(units * 8 - 2) if units else b""
    return struct.pack("!BB", typ, units) + body


def lla(typ, mac):
    return struct.pack("!BB", typ, 1) + mac


def ext(nxt, body_units=0, kind=DSTOPTS):
    """An extension header of type 'kind' whose next header is 'nxt'."""
    if kind == FRAGMENT:
        return struct.pack("!BBHI", nxt, 0, 0, rng.getrandbits(32))
    if kind == AH:
        # Length in 4-byte units, less 2; keep it 8-byte sized.
        n = 2 * body_units + 1
        return struct.pack("!BB", nxt, n) + rbytes((n + 2) * 4 - 2)
    return struct.pack("!BB", nxt, body_units) + rbytes(body_units * 8 + 6)


def arp(op, sha=MAC1, spa=IP1, tha=ZERO_MAC, tpa=IP2, hrd=1, pro=0x0800,
        hln=6, pln=4):
    return struct.pack("!HHBBH6sI6sI", hrd, pro, hln, pln, op, sha, spa,
                       tha, tpa)


def l4_for(proto):
    """A well-formed transport header for 'proto', with some payload."""
    if proto == TCP:
        return tcp(rng.randrange(65536), rng.randrange(65536),
                   rng.getrandbits(9)) + rbytes(rng.randrange(8))
    if proto == UDP:
        return udp(rng.randrange(65536), rng.randrange(65536),
                   rng.randrange(12))
    if proto == SCTP:
        return sctp(rng.randrange(65536), rng.randrange(65536))
    if proto == ICMP:
        return icmp(rng.choice([0, 3, 8, 11, 255]), rng.randrange(4))
    if proto == ICMPV6:
        return icmp(rng.choice([1, 128, 129, 133, 134]), rng.randrange(3))
    if proto == IGMP:
        return igmp(rng.choice([0x11, 0x16, 0x17, 0x22]), 0,
                    0xe0000000 | rng.getrandbits(24))
    return rbytes(rng.randrange(4, 24))


frames = []


def add(cls, what, frame):
    frames.append((cls, what, frame))


def ordinary():
    for i in range(120):
        proto = rng.choice([TCP, UDP, SCTP, ICMP, IGMP, GRE, 89])
        tags = rng.choice([(), ((0x8100, rng.getrandbits(16)),),
                           ((0x88a8, rng.getrandbits(16)),
                            (0x8100, rng.getrandbits(16)))])
        frag = rng.choice([0, 0, 0x4000, 0x2000, 0x2000 | 185, 185])
        add("ordinary", "ipv4 proto %d frag %#x tags %d" % (
            proto, frag, len(tags)),
            pad(eth(0x0800, tags=tags)
                + ipv4(proto, l4_for(proto), tos=rng.getrandbits(8),
                       ttl=rng.getrandbits(8), frag=frag,
                       src=rng.getrandbits(32), dst=rng.getrandbits(32),
                       opts=rng.choice([b"", b"\x01" * 4, b"\x01" * 40])))
            + rng.choice([b"", rbytes(7)]))
    for i in range(100):
        proto = rng.choice([TCP, UDP, SCTP, ICMPV6, NONXT, 89])
        tags = rng.choice([(), ((0x8100, rng.getrandbits(16)),)])
        add("ordinary", "ipv6 proto %d" % proto,
            pad(eth(0x86dd, tags=tags)
                + ipv6(proto, l4_for(proto), tclass=rng.getrandbits(8),
                       label=rng.getrandbits(20), hlim=rng.getrandbits(8),
                       src="2001:db8::%x" % rng.getrandbits(16),
                       dst="fe80::%x" % rng.getrandbits(16))))
    for i in range(50):
        tags = rng.choice([(), ((0x8100, rng.getrandbits(16)),)])
        op = rng.choice([1, 2, 3, 4, 0x1ff, 0x100])
        add("ordinary", "arp op %#x" % op,
            pad(eth(0x0806, dst=rng.choice([BCAST, MAC2]), tags=tags)
                + arp(op, rmac(), rng.getrandbits(32), rmac(),
                      rng.getrandbits(32))))
    for typ in (0x88cc, 0x8847, 0x894f, 0x9000, 0x0600, 0x0842, 0x22f0):
        add("ordinary", "ethertype %#x" % typ,
            pad(eth(typ) + rbytes(rng.randrange(0, 80))))
    # Three VLAN tags: the third TPID becomes dl_type.
    add("ordinary", "three tags",
        pad(eth(0x0800, tags=((0x88a8, 1), (0x8100, 2), (0x8100, 3)))
            + ipv4(UDP, udp(1, 2))))
    # ARP that is not Ethernet/IPv4.
    for hrd, pro, hln, pln in ((6, 0x0800, 6, 4), (1, 0x86dd, 6, 4),
                               (1, 0x0800, 8, 4), (1, 0x0800, 6, 16)):
        add("ordinary", "arp hrd %d pro %#x hln %d pln %d" % (
            hrd, pro, hln, pln),
            pad(eth(0x0806) + arp(1, hrd=hrd, pro=pro, hln=hln, pln=pln)))


def l3_length():
    for i in range(160):
        proto = rng.choice([TCP, UDP, ICMP, SCTP])
        payload = l4_for(proto)
        real = 20 + len(payload)
        tot = rng.choice([real + rng.randrange(1, 200), real - 1,
                          rng.randrange(0, 20), 0xffff, real,
                          rng.randrange(20, real + 1)])
        ihl = rng.choice([5, 5, 5, rng.randrange(0, 16)])
        padding = rng.choice([b"", rbytes(rng.randrange(1, 40))])
        add("l3-length", "ipv4 proto %d tot_len %d of %d ihl %d" % (
            proto, tot, real, ihl),
            eth(0x0800) + ipv4(proto, payload, tot_len=tot, ihl=ihl)
            + padding)
    for i in range(160):
        proto = rng.choice([TCP, UDP, ICMPV6])
        payload = l4_for(proto)
        real = len(payload)
        plen = rng.choice([real + rng.randrange(1, 300), real - 1, 0, real,
                           0xffff, rng.randrange(0, real + 1)])
        padding = rng.choice([b"", rbytes(rng.randrange(1, 40))])
        add("l3-length", "ipv6 proto %d plen %d of %d" % (proto, plen, real),
            eth(0x86dd) + ipv6(proto, payload, plen=plen) + padding)
    for i in range(80):
        # An extension chain whose last header claims more than is there,
        # or whose payload length ends inside it.
        n = rng.randrange(1, 5)
        chain = b""
        nxt = TCP
        for _ in range(n):
            k = rng.choice([HOPOPTS, ROUTING, DSTOPTS, AH])
            chain = ext(nxt, rng.randrange(0, 3), k) + chain
            nxt = k
        full = chain + tcp(1, 2, 2)
        cut = rng.randrange(1, len(full))
        how = rng.choice(["frame", "plen"])
        if how == "frame":
            frame = eth(0x86dd) + ipv6(nxt, full[:cut], plen=cut)
        else:
            frame = eth(0x86dd) + ipv6(nxt, full, plen=cut)
        add("l3-length", "ipv6 ext chain of %d cut at %d by %s" % (
            n, cut, how), frame)


def ip_version():
    for v in range(16):
        for i in range(12):
            proto = rng.choice([TCP, UDP, ICMP])
            add("ip-version", "0x0800 version %d proto %d" % (v, proto),
                pad(eth(0x0800) + ipv4(proto, l4_for(proto), version=v)))
            proto = rng.choice([TCP, UDP, ICMPV6])
            add("ip-version", "0x86dd version %d proto %d" % (v, proto),
                pad(eth(0x86dd) + ipv6(proto, l4_for(proto), version=v)))


def l4_malformed():
    for doff in range(16):
        for extra in (0, 4, 20, 40, 60):
            opts = b"\x01" * extra
            add("l4-malformed", "ipv4 tcp doff %d with %d option bytes" % (
                doff, extra),
                pad(eth(0x0800) + ipv4(TCP, tcp(1000 + doff, 80, 0x18,
                                                 doff=doff, opts=opts))))
            add("l4-malformed", "ipv6 tcp doff %d with %d option bytes" % (
                doff, extra),
                eth(0x86dd) + ipv6(TCP, tcp(2000 + doff, 443, 0x12,
                                            doff=doff, opts=opts)))
    for proto, full in ((TCP, tcp(1, 2, 0x11)), (UDP, udp(3, 4, 4)),
                        (SCTP, sctp(5, 6)), (ICMP, icmp(8, 0)),
                        (IGMP, igmp(0x16, 0, 0xe0000001))):
        for n in range(len(full) + 1):
            add("l4-malformed", "ipv4 proto %d with %d L4 bytes" % (proto, n),
                pad(eth(0x0800) + ipv4(proto, full[:n])))
    for proto, full in ((TCP, tcp(1, 2, 0x11)), (UDP, udp(3, 4, 4)),
                        (SCTP, sctp(5, 6)), (ICMPV6, icmp(128, 0)),
                        (ICMPV6, nd(135, "fe80::9", lla(1, MAC1)))):
        for n in range(len(full) + 1):
            add("l4-malformed", "ipv6 proto %d with %d L4 bytes" % (proto, n),
                pad(eth(0x86dd) + ipv6(proto, full[:n])))


def ipv6_frag():
    offlgs = [0, 1, 2, 4, 6, 7, 8, 9, 0xfff8, 0xfff9, 0x0010, 0x0011]
    offlgs += [rng.getrandbits(16) for _ in range(40)]
    for offlg in offlgs:
        for proto in (TCP, UDP, ICMPV6, NONXT, FRAGMENT):
            if proto == FRAGMENT:
                inner = struct.pack("!BBHI", UDP, 0, 0, 7) + udp(9, 9)
            else:
                inner = l4_for(proto)
            add("ipv6-frag", "offlg %#06x next %d" % (offlg, proto),
                pad(eth(0x86dd) + ipv6(FRAGMENT,
                                       struct.pack("!BBHI", proto, 0, offlg,
                                                   0x1234) + inner)))
    # A Fragment header behind other extension headers.
    for i in range(30):
        offlg = rng.choice([0, 1, 8, 9, 6])
        frag = struct.pack("!BBHI", UDP, 0, offlg, 1) + udp(7, 7)
        add("ipv6-frag", "offlg %#06x behind hop-by-hop" % offlg,
            eth(0x86dd) + ipv6(HOPOPTS, ext(FRAGMENT, rng.randrange(3),
                                            HOPOPTS) + frag))
    # IPv4 fragments, every flag combination.
    for frag in (0, 0x4000, 0x8000, 0x2000, 0x2001, 0x0001, 0x6000, 0xe000,
                 0x1fff, 0x3fff):
        for proto in (TCP, UDP, ICMP):
            add("ipv6-frag", "ipv4 frag %#06x proto %d" % (frag, proto),
                pad(eth(0x0800) + ipv4(proto, l4_for(proto), frag=frag)))


def ipv6_ext():
    kinds = [HOPOPTS, ROUTING, DSTOPTS, AH, FRAGMENT]
    for i in range(200):
        n = rng.choice([1, 2, 3, 5, 8, 12, 20, 30])
        final = rng.choice([TCP, UDP, ICMPV6, NONXT, SCTP])
        chain = l4_for(final)
        nxt = final
        for _ in range(n):
            k = rng.choice(kinds)
            hdr = ext(nxt, rng.randrange(0, 3), k)
            if k == FRAGMENT:
                # Atomic: offset 0, M=0, reserved bits random sometimes.
                hdr = struct.pack("!BBHI", nxt, 0,
                                  rng.choice([0, 0, 0, 2, 4]), 99)
            chain = hdr + chain
            nxt = k
        add("ipv6-ext", "chain of %d to proto %d" % (n, final),
            eth(0x86dd) + ipv6(nxt, chain))
    for n in (20, 40):
        chain = tcp(1, 2, 2)
        nxt = TCP
        for _ in range(n):
            chain = ext(nxt, 0, DSTOPTS) + chain
            nxt = DSTOPTS
        add("ipv6-ext", "%d destination options headers to tcp" % n,
            eth(0x86dd) + ipv6(DSTOPTS, chain))


def rarp():
    for i in range(120):
        op = rng.choice([1, 2, 3, 4, 0x100, 0x2ff])
        hrd = rng.choice([1, 1, 1, 6])
        pro = rng.choice([0x0800, 0x0800, 0x86dd])
        tags = rng.choice([(), ((0x8100, rng.getrandbits(16)),)])
        frame = eth(0x8035, dst=BCAST, tags=tags) + arp(
            op, rmac(), rng.getrandbits(32), rmac(), rng.getrandbits(32),
            hrd=hrd, pro=pro)
        cut = rng.choice([len(frame), len(frame), len(frame) - 1, 30])
        add("rarp", "rarp op %#x hrd %d pro %#x cut %d" % (op, hrd, pro,
                                                           cut),
            frame[:cut])
    for i in range(80):
        op = rng.choice([1, 2])
        add("rarp", "arp op %d beside rarp" % op,
            pad(eth(0x0806) + arp(op, rmac(), rng.getrandbits(32), rmac(),
                                  rng.getrandbits(32))))


def llc_snap():
    inner = {
        0x0800: lambda: ipv4(UDP, udp(1, 2, 4)),
        0x86dd: lambda: ipv6(TCP, tcp(3, 4, 2)),
        0x0806: lambda: arp(1),
        0x8035: lambda: arp(3),
        0x88cc: lambda: rbytes(20),
        0x05ff: lambda: rbytes(20),
        0x0100: lambda: rbytes(20),
    }
    for i in range(300):
        typ = rng.choice(list(inner))
        dsap, ssap, ctl = rng.choice([(0xaa, 0xaa, 3)] * 4 + [
            (0xaa, 0xaa, 0x13), (0xab, 0xaa, 3), (0xaa, 0xab, 3),
            (0x42, 0x42, 3), (0xf0, 0xf0, 3)])
        oui = rng.choice([b"\0\0\0"] * 4 + [b"\0\0\x0c", b"\0\x80\xc2"])
        tags = rng.choice([(), (), ((0x8100, rng.getrandbits(16)),)])
        length = rng.choice([0, 46, 100, 1500, 0x5ff, 0x5fe])
        body = struct.pack("!BBB3sH", dsap, ssap, ctl, oui, typ) + inner[typ]()
        cut = rng.choice([None, None, None, rng.randrange(0, 9)])
        if cut is not None:
            body = body[:cut]
        add("llc-snap", "802.3 len %#x llc %02x%02x%02x oui %s type %#x "
            "cut %s" % (length, dsap, ssap, ctl, oui.hex(), typ, cut),
            pad(eth(length, tags=tags) + body))


def nd_options():
    for i in range(300):
        opts = b""
        desc = []
        for _ in range(rng.randrange(0, 5)):
            kind = rng.choice(["sll", "tll", "sll0", "tll0", "other", "big",
                               "zero", "past"])
            desc.append(kind)
            if kind == "sll":
                opts += lla(1, rmac())
            elif kind == "tll":
                opts += lla(2, rmac())
            elif kind == "sll0":
                opts += lla(1, ZERO_MAC)
            elif kind == "tll0":
                opts += lla(2, ZERO_MAC)
            elif kind == "other":
                opts += nd_opt(rng.choice([3, 5, 14]), rng.randrange(1, 4))
            elif kind == "big":
                opts += nd_opt(rng.choice([1, 2]), 2)
            elif kind == "zero":
                opts += nd_opt(rng.choice([1, 2, 3]), 0, rbytes(6))
            elif kind == "past":
                opts += nd_opt(rng.choice([1, 2]), 4, rbytes(6))
        tail = rng.choice([b"", b"", rbytes(rng.randrange(1, 8))])
        typ = rng.choice([135, 136, 135, 136, 133])
        code = rng.choice([0, 0, 0, 1])
        add("nd-options", "type %d code %d options %s tail %d" % (
            typ, code, ",".join(desc) or "none", len(tail)),
            eth(0x86dd, dst=BCAST)
            + ipv6(ICMPV6, nd(typ, "fe80::%x" % rng.getrandbits(16),
                              opts + tail, rng.getrandbits(32), code),
                   hlim=255))


def truncated():
    reps = [
        ("ipv4 tcp", eth(0x0800) + ipv4(TCP, tcp(1234, 80, 0x002))),
        ("qinq ipv6 udp", eth(0x86dd, tags=((0x88a8, 0x2064),
                                            (0x8100, 0xa014)))
         + ipv6(UDP, udp(546, 547, 4))),
        ("nd ns", eth(0x86dd) + ipv6(ICMPV6, nd(
            135, "fe80::2", lla(1, MAC1) + lla(2, MAC2)))),
        ("arp", eth(0x0806, tags=((0x8100, 7),)) + arp(1)),
        ("ipv6 ext udp", eth(0x86dd) + ipv6(HOPOPTS, ext(
            ROUTING, 1, HOPOPTS) + ext(FRAGMENT, 0, ROUTING)
            + struct.pack("!BBHI", UDP, 0, 1, 5) + udp(1, 2, 2))),
        ("snap ipv4", eth(40) + b"\xaa\xaa\x03\0\0\0\x08\0"
         + ipv4(ICMP, icmp(8, 0))),
        ("ipv4 options sctp", eth(0x0800) + ipv4(SCTP, sctp(1, 2),
                                                 opts=b"\x01" * 12)),
    ]
    for name, frame in reps:
        # From 1 byte: Open vSwitch's reader takes a record of 0 bytes for
        # the end of the file.
        for n in range(1, len(frame) + 1):
            add("truncated", "%s cut to %d of %d bytes" % (
                name, n, len(frame)), frame[:n])


for family in (ordinary, l3_length, ip_version, l4_malformed, ipv6_frag,
               ipv6_ext, rarp, llc_snap, nd_options, truncated):
    family()


def write_pcap(path):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, (_, _, frame) in enumerate(frames):
            f.write(struct.pack("<IIII", 1800000000 + i // 1000000,
                                i % 1000000, len(frame), len(frame)))
            f.write(frame)


write_pcap(sys.argv[1])
with open(sys.argv[2], "w") as f:
    for i, (cls, what, _) in enumerate(frames):
        f.write("%s: %s\n" % (cls, what))
