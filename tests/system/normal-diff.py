#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Differential test of NORMAL forwarding, for tests/system/test-normal-diff.sh:
# the same script of frames goes through pmdswitch and through Open
# vSwitch's userspace datapath, both configured with the same nine-port
# VLAN bridge (five ports that NORMAL uses, four mirror output ports), and
# the deliveries are compared, mirror copies included.
#
#   normal-diff.py run --hosts NS:IF,... --out FILE [--settle CMD]
#       Sends the script, frame by frame, from the hosts (network namespace
#       NS, interface IF; host i is the i-th, attached to switch port i)
#       and records every frame of the script that any host receives:
#       which host, and the tag stack as it came off the wire (TPID, VID,
#       PCP and DEI of each tag).  After each frame it waits for the
#       switch to be done with it (and runs CMD, if given, which returns
#       once the switch has revalidated its flows), so that what a frame
#       teaches the switch is in place for the next.  Writes the record
#       as JSON to FILE.
#   normal-diff.py compare OVS.json PMDSWITCH.json ALLOWLIST
#       Prints every frame whose deliveries differ: the ports, copies and
#       tags on each side.  Frames named in ALLOWLIST ("NAME  reason"
#       lines) are deliberate differences: reported, not failed.  Exit
#       status 1 on any other difference, or if the allow-list names a
#       frame that does not differ (so that it stays short and true).
#
# One process opens a packet socket in each host's namespace
# (netns_socket.py) and does all the work.
# On veth, the receiving kernel hands a packet socket the outer VLAN tag as
# metadata: it is read back with PACKET_AUXDATA, DEI included, and put in
# front of the tags still in the frame.  Each frame of the script carries
# its number in its payload, so stray frames are ignored.  Python 3
# standard library only.

import json
import os
import select
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns_socket import Netns, SOL_PACKET, PACKET_AUXDATA  # noqa: E402

PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
AUXDATA = struct.Struct("=IIIHHHH")

MAGIC = b"PSNDIFF"
# How long a frame's copies may take to arrive, and the quiet time after
# the last one before the next frame goes out.
SETTLE_SECONDS = 0.15

Q, AD = 0x8100, 0x88a8
EXPERIMENTAL = 0x88b5           # IEEE 802 local experimental ethertype.


def mac(n):
    """A locally administered unicast MAC numbered 'n'."""
    return bytes([0x02, 0, 0, 0, 0, n])


A, B, C, D, E, U = mac(0xa), mac(0xb), mac(0xc), mac(0xd), mac(0xe), mac(0x99)
F = mac(0xf)
BCAST = b"\xff" * 6
MCAST4 = bytes.fromhex("01005e0000fb")
MCAST6 = bytes.fromhex("333300000001")


def tci(vid, pcp=0, dei=0):
    return (pcp << 13) | (dei << 12) | vid


# The script.  Hosts 1-9 sit on the ports of this bridge (as configured by
# test-normal-diff.sh, the same in both switches):
#   1: access 10       2: access 10       3: access 20
#   4: trunk 10,20     5: native-untagged 10, trunks 20
# and, as the output ports of its mirrors (m0..m5), reserved from NORMAL:
#   6: access 30, for m0 (from 1, to 3) and m1 (from 2, to 1)
#   7: trunk, for m2 (to 4) and m3 (from 4 and 5, VLAN 10 only)
#   8: native-untagged 20, for m4 (every port, VLAN 20 only)
#   9: native-tagged 10, for m5 (every port)
# so every frame is also a mirror case: what each output port emits shows
# which mirrors copied it, as received or as sent, and with which tags.
# select_all selects the mirror output ports too, in both switches: a copy
# m0 or m1 sends to 6 is a frame sent on 6, which m5 copies to 9 in 6's
# VLAN, 30, unless m5 copied the frame already.
# Each entry: name, sending host, destination, source, tags (outer
# first, as (TPID, TCI)), and the ethertype or 802.3 length and payload
# prefix that follow.
STP_LLC = (0x0026, b"\x42\x42\x03")
SNAP_CISCO = (0x0026, b"\xaa\xaa\x03\x00\x00\x0c\x20\x00")
SCRIPT = [
    ("bcast-access", 1, BCAST, A, (), (EXPERIMENTAL, b"")),
    ("unicast-reply-learned", 2, A, B, (), (EXPERIMENTAL, b"")),
    ("unicast-known", 1, B, A, (), (EXPERIMENTAL, b"")),
    ("unicast-unknown", 1, U, A, (), (EXPERIMENTAL, b"")),
    ("bcast-vlan20", 3, BCAST, C, (), (EXPERIMENTAL, b"")),
    ("trunk-10-to-known", 4, A, D, ((Q, tci(10)),), (EXPERIMENTAL, b"")),
    ("trunk-20-to-known", 4, C, D, ((Q, tci(20)),), (EXPERIMENTAL, b"")),
    ("trunk-10-reply", 1, D, A, (), (EXPERIMENTAL, b"")),
    ("trunk-vid-not-allowed", 4, BCAST, D, ((Q, tci(30)),),
     (EXPERIMENTAL, b"")),
    ("trunk-untagged", 4, BCAST, D, (), (EXPERIMENTAL, b"")),
    ("access-tagged-own-vid", 1, BCAST, A, ((Q, tci(10)),),
     (EXPERIMENTAL, b"")),
    ("access-tagged-other-vid", 1, BCAST, A, ((Q, tci(20)),),
     (EXPERIMENTAL, b"")),
    ("access-priority-tagged", 1, BCAST, A, ((Q, tci(0, pcp=5)),),
     (EXPERIMENTAL, b"")),
    ("trunk-pcp-to-access", 4, A, D, ((Q, tci(10, pcp=3)),),
     (EXPERIMENTAL, b"")),
    ("trunk-pcp-dei-flood-10", 4, BCAST, D, ((Q, tci(10, pcp=6, dei=1)),),
     (EXPERIMENTAL, b"")),
    ("trunk-pcp-dei-flood-20", 4, BCAST, D, ((Q, tci(20, pcp=6, dei=1)),),
     (EXPERIMENTAL, b"")),
    ("native-untagged-in", 5, BCAST, E, (), (EXPERIMENTAL, b"")),
    ("native-tagged-native-vid", 5, BCAST, E, ((Q, tci(10, pcp=2)),),
     (EXPERIMENTAL, b"")),
    ("native-tagged-trunk-vid", 5, BCAST, E, ((Q, tci(20, pcp=4)),),
     (EXPERIMENTAL, b"")),
    ("native-dei-to-trunk", 5, C, E, ((Q, tci(20, pcp=1, dei=1)),),
     (EXPERIMENTAL, b"")),
    ("native-vid-not-allowed", 5, BCAST, E, ((Q, tci(30)),),
     (EXPERIMENTAL, b"")),
    ("native-priority-tagged", 5, A, E, ((Q, tci(0, pcp=7)),),
     (EXPERIMENTAL, b"")),
    ("qinq-8021ad-outer", 4, BCAST, D, ((AD, tci(10)), (Q, tci(100))),
     (EXPERIMENTAL, b"")),
    ("qinq-8021q-outer", 4, BCAST, D, ((Q, tci(20)), (Q, tci(200))),
     (EXPERIMENTAL, b"")),
    ("qinq-into-access", 1, BCAST, A, ((Q, tci(0)), (Q, tci(300))),
     (EXPERIMENTAL, b"")),
    ("multicast-ipv4-mac", 2, MCAST4, B, (), (EXPERIMENTAL, b"")),
    ("multicast-ipv6-mac-vlan20", 4, MCAST6, D, ((Q, tci(20)),),
     (EXPERIMENTAL, b"")),
    ("mac-move-a-to-native", 5, BCAST, A, (), (EXPERIMENTAL, b"")),
    ("after-move-to-a", 2, A, B, (), (EXPERIMENTAL, b"")),
    ("mac-move-a-back", 1, BCAST, A, (), (EXPERIMENTAL, b"")),
    ("after-move-back-to-a", 2, A, B, (), (EXPERIMENTAL, b"")),
    ("same-mac-other-vlan", 3, A, C, (), (EXPERIMENTAL, b"")),
    ("dst-on-input-port", 1, A, U, (), (EXPERIMENTAL, b"")),
    ("reserved-stp", 1, bytes.fromhex("0180c2000000"), A, (), STP_LLC),
    ("reserved-stp-tagged", 4, bytes.fromhex("0180c2000000"), D,
     ((Q, tci(10)),), STP_LLC),
    ("reserved-pause", 2, bytes.fromhex("0180c2000001"), B, (),
     (0x8808, b"\x00\x01")),
    ("reserved-lacp", 2, bytes.fromhex("0180c2000002"), B, (),
     (0x8809, b"\x01\x01")),
    ("reserved-eapol", 3, bytes.fromhex("0180c2000003"), C, (),
     (0x888e, b"\x01\x01")),
    ("reserved-lldp", 5, bytes.fromhex("0180c200000e"), E, (),
     (0x88cc, b"")),
    ("reserved-0f", 1, bytes.fromhex("0180c200000f"), A, (),
     (EXPERIMENTAL, b"")),
    ("not-reserved-10", 1, bytes.fromhex("0180c2000010"), A, (),
     (EXPERIMENTAL, b"")),
    ("reserved-cdp", 1, bytes.fromhex("01000ccccccc"), A, (), SNAP_CISCO),
    ("reserved-pvst", 4, bytes.fromhex("01000ccccccd"), D, ((Q, tci(20)),),
     SNAP_CISCO),
    ("multicast-source", 2, BCAST, bytes.fromhex("0100000000aa"), (),
     (EXPERIMENTAL, b"")),
    ("to-multicast-source", 1, bytes.fromhex("0100000000aa"), A, (),
     (EXPERIMENTAL, b"")),
    # Mirrors: a mirror output port's frames are dropped and not learned.
    ("mirror-out-receives", 6, BCAST, F, (), (EXPERIMENTAL, b"")),
    ("to-mac-only-on-mirror-out", 1, F, A, (), (EXPERIMENTAL, b"")),
    # To a known MAC on the trunk: m3 copies to 7 as received and m2, with
    # the same output, does not copy again as sent; in VLAN 20 m3 does not
    # select the frame, so m2 copies it as sent.
    ("native-10-to-trunk-known", 5, D, E, (), (EXPERIMENTAL, b"")),
    ("native-20-pcp-to-trunk-known", 5, D, E, ((Q, tci(20, pcp=5)),),
     (EXPERIMENTAL, b"")),
]


def build_frame(number, dst, src, tags, tail):
    typ, prefix = tail
    frame = dst + src
    for tpid, t in tags:
        frame += struct.pack("!HH", tpid, t)
    frame += struct.pack("!H", typ) + prefix + MAGIC + struct.pack("!I",
                                                                     number)
    return frame + b"\0" * max(0, 60 - len(frame))


def frame_number(frame):
    """The script number the frame carries, or None for a stray frame."""
    at = frame.find(MAGIC)
    if at < 0 or at + len(MAGIC) + 4 > len(frame):
        return None
    return struct.unpack_from("!I", frame, at + len(MAGIC))[0]


def tag_stack(frame, aux_tci, aux_tpid):
    """The frame's VLAN tags as [TPID, VID, PCP, DEI] lists, outer first:
    the one the kernel took off (if any), then those still inline."""
    tags = []
    if aux_tci is not None:
        tags.append((aux_tpid, aux_tci))
    ofs = 12
    while len(frame) >= ofs + 4:
        tpid = struct.unpack_from("!H", frame, ofs)[0]
        if tpid not in (Q, AD):
            break
        tags.append((tpid, struct.unpack_from("!H", frame, ofs + 2)[0]))
        ofs += 4
    return [[tpid, t & 0xfff, t >> 13, (t >> 12) & 1] for tpid, t in tags]


def receive_one(sock):
    """Reads one frame: (frame, aux_tci or None, aux_tpid), or None for an
    outgoing one or nothing."""
    try:
        frame, anc, _, addr = sock.recvmsg(65536,
                                           socket.CMSG_SPACE(AUXDATA.size))
    except BlockingIOError:
        return None
    if addr[2] == PACKET_OUTGOING:
        return None
    aux_tci = aux_tpid = None
    for level, typ, data in anc:
        if level == SOL_PACKET and typ == PACKET_AUXDATA:
            status, _, _, _, _, vtci, vtpid = AUXDATA.unpack(
                data[:AUXDATA.size])
            if status & TP_STATUS_VLAN_VALID:
                aux_tci = vtci
                aux_tpid = (vtpid if status & TP_STATUS_VLAN_TPID_VALID
                            else Q)
    return frame, aux_tci, aux_tpid


def collect(socks, record, seconds):
    """Adds to 'record' the script frames received within 'seconds'."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        ready, _, _ = select.select(list(socks), [], [], left)
        for sock in ready:
            while True:
                got = receive_one(sock)
                if got is None:
                    break
                frame, aux_tci, aux_tpid = got
                number = frame_number(frame)
                if number is None or number >= len(SCRIPT):
                    continue
                record[SCRIPT[number][0]].append(
                    [socks[sock], tag_stack(frame, aux_tci, aux_tpid)])


def run(args):
    hosts, out, settle = None, None, None
    while args:
        opt, value = args[0], args[1]
        args = args[2:]
        if opt == "--hosts":
            hosts = [h.split(":") for h in value.split(",")]
        elif opt == "--out":
            out = value
        elif opt == "--settle":
            settle = value
        else:
            sys.exit("normal-diff.py run: unknown option %s" % opt)
    netns = Netns()
    senders = []
    socks = {}
    for i, (ns, ifname) in enumerate(hosts):
        sock = netns.packet_socket(ns, ifname, auxdata=True)
        senders.append(sock)
        socks[sock] = i + 1
    record = {entry[0]: [] for entry in SCRIPT}
    for number, (name, host, dst, src, tags, tail) in enumerate(SCRIPT):
        senders[host - 1].send(build_frame(number, dst, src, tags, tail))
        collect(socks, record, SETTLE_SECONDS)
        if settle:
            subprocess.run(settle, shell=True, check=True,
                           stdout=subprocess.DEVNULL)
        collect(socks, record, 0.02)
    for name in record:
        record[name].sort()
    with open(out, "w") as f:
        json.dump({"script": [e[0] for e in SCRIPT], "deliveries": record},
                  f, indent=1)
        f.write("\n")
    return 0


def describe(deliveries):
    """One line per delivery: host and tags."""
    if not deliveries:
        return "(dropped)"
    parts = []
    for host, tags in deliveries:
        t = " ".join("%04x:vid=%d,pcp=%d,dei=%d" % tuple(tag)
                     for tag in tags)
        parts.append("host %d %s" % (host, t or "untagged"))
    return "; ".join(parts)


def compare(args):
    with open(args[0]) as f:
        ovs = json.load(f)["deliveries"]
    with open(args[1]) as f:
        pmd = json.load(f)["deliveries"]
    allowed = {}
    with open(args[2]) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, reason = line.partition(" ")
                allowed[name] = reason.strip()
    n_bad = n_allowed = 0
    for name, _, _, _, _, _ in SCRIPT:
        o, p = ovs.get(name, []), pmd.get(name, [])
        if o == p:
            if name in allowed:
                print("FAIL %s: on the allow-list but both switches agree"
                      % name)
                n_bad += 1
            continue
        label = "allowed" if name in allowed else "DIFFERS"
        print("%s %s:\n    Open vSwitch: %s\n    pmdswitch:    %s"
              % (label, name, describe(o), describe(p)))
        if name in allowed:
            print("    (%s)" % allowed[name])
            n_allowed += 1
        else:
            n_bad += 1
    unknown = set(allowed) - {e[0] for e in SCRIPT}
    for name in sorted(unknown):
        print("FAIL allow-list names %s, which the script does not have"
              % name)
        n_bad += 1
    n_delivered = sum(len(v) for v in pmd.values())
    print("%d frames, %d deliveries through pmdswitch, %d deliberate "
          "differences, %d other differences"
          % (len(SCRIPT), n_delivered, n_allowed, n_bad))
    return 1 if n_bad else 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "run":
        return run(sys.argv[2:])
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        return compare(sys.argv[2:])
    sys.stderr.write("usage: normal-diff.py run --hosts NS:IF,... --out "
                     "FILE [--settle CMD]\n"
                     "       normal-diff.py compare OVS.json PMDSWITCH.json "
                     "ALLOWLIST\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
