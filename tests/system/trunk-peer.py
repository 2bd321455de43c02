#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Test scaffolding for tests/system/test-vlan.sh: a userspace stand-in for
# Linux 802.1Q VLAN subinterfaces (eth0.10, eth0.20, ...).
#
# Why it exists: the kernel the system tests run on (locally and in CI) is
# built without CONFIG_VLAN_8021Q, bridge VLAN filtering and tc's vlan
# action, so "ip link add link eth0 name eth0.10 type vlan id 10" fails
# with "Unknown device type".  This relay does in the test's namespace T
# what VLAN subinterfaces would do there.  For each VLAN the test makes a
# veth pair inside T: the inner end carries T's address in that VLAN (it
# plays eth0.VID) and the relay holds the other end.  The relay then
#
#   - takes each frame that arrives on the trunk (eth0) tagged with a VID
#     it serves, strips the tag and sends the frame on that VLAN's veth;
#   - counts and drops frames from the trunk that are untagged, or tagged
#     with any other VID or a TPID other than 0x8100 (the test's leak
#     detector);
#   - takes each frame that T's stack sends on a VLAN's inner veth end,
#     inserts an 802.1Q tag with that VID (priority 0) and sends it on the
#     trunk.
#
# On veth, a packet socket gets a received frame's VLAN tag as metadata,
# not in the frame bytes: the relay reads it with PACKET_AUXDATA
# (TP_STATUS_VLAN_VALID) and also accepts a tag left inline.  Frames it
# sends carry the tag inline, which the kernel accepts on veth up to MTU +
# 4 bytes.  Frames the relay itself sent (PACKET_OUTGOING) are ignored.
#
# Usage: trunk-peer.py --trunk IFNAME --vlan VID=IFNAME [--vlan ...]
#                      [--ready FILE] [--mtu BYTES]
# Writes "ready" to standard output (and to FILE, if given) once every
# socket is bound; on SIGTERM or SIGINT it prints one counter line per VLAN
# and one for the drops, then exits with status 0:
#   vlan 10: trunk_to_vlan=N vlan_to_trunk=N
#   dropped: untagged=N other_vid=N oversize=N send_error=N
# where "oversize" counts frames whose payload is over --mtu (default 1500)
# and "send_error" frames the kernel refused to send.
# Python 3 standard library only.

import argparse
import os
import select
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
ETH_TYPE_VLAN = 0x8100
ETH_TYPE_QINQ = 0x88a8

# <linux/if_packet.h>
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
# struct tpacket_auxdata: tp_status, tp_len, tp_snaplen (u32); tp_mac,
# tp_net, tp_vlan_tci, tp_vlan_tpid (u16).
AUXDATA = struct.Struct("=IIIHHHH")

# Big enough for any frame a veth with MTU 1500 delivers whole, with room
# to spare so that a larger (GSO) frame shows up as oversize instead of
# being truncated silently.
RECV_SIZE = 65536


def trunk_peer_parse_args(argv):
    """Returns the parsed command line; exits with status 2 if it is bad."""
    parser = argparse.ArgumentParser(
        description="Relay between a VLAN trunk and one veth per VLAN.")
    parser.add_argument("--trunk", required=True,
                        help="interface of the trunk link to the switch")
    parser.add_argument("--vlan", action="append", required=True,
                        metavar="VID=IFNAME",
                        help="serve VLAN VID on interface IFNAME")
    parser.add_argument("--ready", metavar="FILE",
                        help="write 'ready' to FILE once bound")
    parser.add_argument("--mtu", type=int, default=1500,
                        help="largest payload relayed (default 1500)")
    args = parser.parse_args(argv)
    vlans = {}
    for spec in args.vlan:
        vid, sep, ifname = spec.partition("=")
        if not sep or not vid.isdigit() or not ifname:
            parser.error("--vlan wants VID=IFNAME, not %r" % spec)
        vid = int(vid)
        if not 1 <= vid <= 4094:
            parser.error("VID %d is not in 1...4094" % vid)
        if vid in vlans:
            parser.error("VID %d given twice" % vid)
        vlans[vid] = ifname
    args.vlans = vlans
    return args


def trunk_peer_open(ifname):
    """Returns a packet socket bound to 'ifname' for every EtherType, with
    PACKET_AUXDATA on."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    sock.bind((ifname, ETH_P_ALL))
    sock.setblocking(False)
    return sock


class TrunkPeer:
    """The relay's sockets and counters."""

    def __init__(self, args):
        self.mtu = args.mtu
        self.trunk = trunk_peer_open(args.trunk)
        self.by_vid = {}
        self.by_fd = {self.trunk.fileno(): None}
        for vid, ifname in sorted(args.vlans.items()):
            sock = trunk_peer_open(ifname)
            self.by_vid[vid] = sock
            self.by_fd[sock.fileno()] = vid
        self.trunk_to_vlan = dict.fromkeys(self.by_vid, 0)
        self.vlan_to_trunk = dict.fromkeys(self.by_vid, 0)
        self.dropped = {"untagged": 0, "other_vid": 0, "oversize": 0,
                        "send_error": 0}

    def send(self, sock, frame):
        """Sends 'frame' on 'sock'.  Returns True on success, else counts
        the drop and returns False."""
        try:
            sock.send(frame)
        except OSError:
            self.dropped["send_error"] += 1
            return False
        return True

    def from_trunk(self, frame, tci, tpid):
        """Relays one frame received on the trunk, or counts its drop."""
        if len(frame) < 14:
            self.dropped["untagged"] += 1
            return
        if tci is None:
            # A tag the kernel left in the frame.
            ethertype = struct.unpack_from("!H", frame, 12)[0]
            if ethertype in (ETH_TYPE_VLAN, ETH_TYPE_QINQ) \
                    and len(frame) >= 18:
                tpid = ethertype
                tci = struct.unpack_from("!H", frame, 14)[0]
                frame = frame[:12] + frame[16:]
        if tci is None:
            self.dropped["untagged"] += 1
            return
        vid = tci & 0x0fff
        sock = self.by_vid.get(vid)
        if sock is None or tpid != ETH_TYPE_VLAN:
            # Like eth0.VID, take only 802.1Q tags of the VLANs served.
            self.dropped["other_vid"] += 1
            return
        if len(frame) > self.mtu + 14:
            self.dropped["oversize"] += 1
            return
        if self.send(sock, frame):
            self.trunk_to_vlan[vid] += 1

    def from_vlan(self, vid, frame, tci, tpid):
        """Tags one frame that T's stack sent in VLAN 'vid' and relays it
        to the trunk, or counts its drop."""
        if len(frame) < 14:
            return
        if len(frame) > self.mtu + 14:
            self.dropped["oversize"] += 1
            return
        if tci is not None:
            # Already tagged (it would be the inner tag): keep it inline.
            frame = (frame[:12] + struct.pack("!HH", tpid, tci)
                     + frame[12:])
        tag = struct.pack("!HH", ETH_TYPE_VLAN, vid)
        if self.send(self.trunk, frame[:12] + tag + frame[12:]):
            self.vlan_to_trunk[vid] += 1

    def drain(self, fd):
        """Handles every frame waiting on socket 'fd'."""
        vid = self.by_fd[fd]
        sock = self.trunk if vid is None else self.by_vid[vid]
        while True:
            try:
                data, ancdata, _flags, addr = sock.recvmsg(
                    RECV_SIZE, socket.CMSG_SPACE(AUXDATA.size))
            except BlockingIOError:
                return
            received = trunk_peer_classify(data, ancdata, addr)
            if received is None:
                continue
            if vid is None:
                self.from_trunk(*received)
            else:
                self.from_vlan(vid, *received)

    def report(self, out):
        """Writes the counters to 'out'."""
        for vid in sorted(self.by_vid):
            out.write("vlan %d: trunk_to_vlan=%d vlan_to_trunk=%d\n"
                      % (vid, self.trunk_to_vlan[vid],
                         self.vlan_to_trunk[vid]))
        out.write("dropped: untagged=%d other_vid=%d oversize=%d "
                  "send_error=%d\n"
                  % (self.dropped["untagged"], self.dropped["other_vid"],
                     self.dropped["oversize"], self.dropped["send_error"]))
        out.flush()


def trunk_peer_classify(data, ancdata, addr):
    """Returns (frame, tci, tpid) for a received frame, with 'tci' None if
    the kernel passed no VLAN metadata, or None for a frame we sent."""
    if addr[2] == PACKET_OUTGOING:
        return None
    tci = None
    tpid = ETH_TYPE_VLAN
    for level, kind, cdata in ancdata:
        if (level == SOL_PACKET and kind == PACKET_AUXDATA
                and len(cdata) >= AUXDATA.size):
            status, _, _, _, _, vlan_tci, vlan_tpid = \
                AUXDATA.unpack_from(cdata)
            if status & TP_STATUS_VLAN_VALID:
                tci = vlan_tci
                if status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = vlan_tpid
    return data, tci, tpid


def main(argv):
    args = trunk_peer_parse_args(argv)
    peer = TrunkPeer(args)

    # SIGTERM and SIGINT only set a flag; the wakeup pipe ends the poll.
    stop = []
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)

    def on_signal(signum, _frame):
        stop.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    poller = select.poll()
    for fd in peer.by_fd:
        poller.register(fd, select.POLLIN)
    poller.register(wake_r, select.POLLIN)

    sys.stdout.write("ready\n")
    sys.stdout.flush()
    if args.ready:
        tmp = args.ready + ".tmp"
        with open(tmp, "w") as f:
            f.write("ready\n")
        os.rename(tmp, args.ready)

    while not stop:
        for fd, _events in poller.poll():
            if fd == wake_r:
                try:
                    os.read(wake_r, 64)
                except BlockingIOError:
                    pass
            else:
                peer.drain(fd)
    peer.report(sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
