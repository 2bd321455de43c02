#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# The far end of a bond, in userspace, for tests/system/test-bond.sh.
#
# Why: the test would use the Linux bonding driver as the switch's bond
# partner, but the test machines' kernels are built without it
# ("# CONFIG_BONDING is not set", no module, no team driver either).  This
# script stands in for it, in the partner's namespace, with packet sockets:
#
#   member links (the far ends of the switch's member veths)  <->  one link
#   to the host namespace, whose end there carries the host's IP address.
#
# - Every frame received on a member whose link is up goes out on the
#   host link unchanged.
# - Every frame received on the host link goes out on one member whose link
#   is up: in "balance-xor" mode the member Linux's balance-xor picks with
#   xmit_hash_policy layer3+4 (IPv4 TCP/UDP: the 32-bit word of the two
#   ports XOR the source and destination addresses, folded with >> 16 and
#   >> 8; other frames fall back to layer2, the last bytes of the MACs
#   XORed; then modulo the number of usable members, in the order given);
#   in "active-backup" mode the active member.  The active member is the
#   one a frame from the switch last arrived on (so it follows the switch's
#   own active member, as a partner must for an active-backup switch bond
#   that drops frames received on its backup members), else the first
#   usable member.
# - A member is usable while /sys/class/net/NAME/operstate says "up".  A
#   member that disappears is reopened when an interface of that name is
#   back.
#
# VLAN tags, which packet sockets on veth deliver as metadata, are
# ignored: the test carries untagged frames only.  A frame whose checksum
# the sender left to offload (veth passes such frames on, and a packet
# socket reports them as TP_STATUS_CSUMNOTREADY) gets its IPv4 TCP or UDP
# checksum filled in before it is sent on, since a packet socket's frames
# carry no offload request.
#
# It prints "bond-peer: ready ..." once every socket is open and, on
# SIGTERM or SIGINT, one line per link with the frames it received and
# sent there, then exits 0.
#
# Usage: bond-peer.py --mode balance-xor|active-backup --host IFNAME
#                     MEMBER...

import argparse
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_CSUMNOTREADY = 1 << 3
SO_RCVBUFFORCE = 33
RCVBUF = 8 << 20
# How often member links are checked when no frame arrives, in seconds.
CHECK_INTERVAL = 0.02


def operstate(name):
    try:
        with open("/sys/class/net/%s/operstate" % name) as f:
            return f.read().strip()
    except OSError:
        return "missing"


def ifindex(name):
    try:
        with open("/sys/class/net/%s/ifindex" % name) as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0


class Link:
    """One interface, with a packet socket bound to it while it exists."""

    def __init__(self, name):
        self.name = name
        self.sock = None
        self.index = 0
        self.up = False
        self.rx = 0
        self.tx = 0
        self.tx_errors = 0
        self.refresh()

    def open(self):
        self.close()
        index = ifindex(self.name)
        if not index:
            return
        try:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(ETH_P_ALL))
            s.bind((self.name, ETH_P_ALL))
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            # Room for bursts while this process waits for a CPU (the
            # default buffer holds only a few hundred small frames).
            try:
                s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
            except OSError:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        except OSError:
            return
        s.setblocking(False)
        self.sock = s
        self.index = index

    def close(self):
        if self.sock:
            self.sock.close()
        self.sock = None
        self.index = 0

    def refresh(self):
        """Follows the interface: reopens it if it was recreated."""
        index = ifindex(self.name)
        if index != self.index:
            self.open()
        self.up = self.sock is not None and operstate(self.name) == "up"

    def send(self, frame):
        if not self.sock:
            self.tx_errors += 1
            return
        try:
            self.sock.send(frame)
            self.tx += 1
        except OSError:
            # ENETDOWN, ENXIO, ENOBUFS: the link went away meanwhile.
            self.tx_errors += 1


def l34_hash(frame):
    """Linux bonding's layer3+4 hash of 'frame', or None if it is not
    unfragmented IPv4 TCP or UDP."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[14] & 0x0F) * 4
    proto = frame[23]
    frag = struct.unpack("!H", frame[20:22])[0] & 0x3FFF
    l4 = 14 + ihl
    if proto not in (6, 17) or frag or len(frame) < l4 + 4:
        return None
    # The kernel loads these words in host (x86: little-endian) order.
    ports = struct.unpack("<I", frame[l4:l4 + 4])[0]
    src, dst = struct.unpack("<II", frame[26:34])
    h = ports ^ src ^ dst
    h ^= h >> 16
    h ^= h >> 8
    return h


def csum16(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def fill_l4_checksum(frame):
    """Returns 'frame' with the checksum of its IPv4 TCP or UDP segment
    computed in full (unchanged if it is neither)."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return frame
    ihl = (frame[14] & 0x0F) * 4
    proto = frame[23]
    total_len = struct.unpack("!H", frame[16:18])[0]
    l4 = 14 + ihl
    end = 14 + total_len
    offset = {6: 16, 17: 6}.get(proto)
    if offset is None or end > len(frame) or l4 + offset + 2 > end:
        return frame
    seg = bytearray(frame[l4:end])
    seg[offset:offset + 2] = b"\0\0"
    pseudo = frame[26:34] + struct.pack("!BBH", 0, proto, len(seg))
    c = 0xFFFF - csum16(pseudo + bytes(seg))
    if proto == 17 and c == 0:
        c = 0xFFFF
    seg[offset:offset + 2] = struct.pack("!H", c)
    return frame[:l4] + bytes(seg) + frame[end:]


def l2_hash(frame):
    return frame[5] ^ frame[11]


class Peer:
    def __init__(self, mode, host, members):
        self.mode = mode
        self.host = Link(host)
        self.members = [Link(m) for m in members]
        self.active = None
        self.stop = False
        self.next_check = 0.0

    def usable(self):
        return [m for m in self.members if m.up]

    def pick(self, frame):
        usable = self.usable()
        if not usable:
            return None
        if self.mode == "active-backup":
            if self.active not in usable:
                self.active = usable[0]
            return self.active
        h = l34_hash(frame)
        if h is None:
            h = l2_hash(frame)
        return usable[h % len(usable)]

    def check_links(self):
        for link in [self.host] + self.members:
            link.refresh()

    def receive(self, link):
        while True:
            try:
                frame, ancdata, _, addr = link.sock.recvmsg(
                    65536, socket.CMSG_SPACE(20))
            except BlockingIOError:
                return
            except OSError:
                link.close()
                return
            if addr[2] == PACKET_OUTGOING:
                continue
            for level, kind, data in ancdata:
                if (level == SOL_PACKET and kind == PACKET_AUXDATA
                        and len(data) >= 4
                        and struct.unpack("=I", data[:4])[0]
                        & TP_STATUS_CSUMNOTREADY):
                    frame = fill_l4_checksum(frame)
            link.rx += 1
            if link is self.host:
                member = self.pick(frame)
                if member:
                    member.send(frame)
                else:
                    link.tx_errors += 1
            elif link.up:
                if self.mode == "active-backup":
                    self.active = link
                self.host.send(frame)

    def run(self):
        print("bond-peer: ready mode=%s host=%s members=%s" % (
            self.mode, self.host.name,
            ",".join(m.name for m in self.members)), flush=True)
        while not self.stop:
            now = time.monotonic()
            if now >= self.next_check:
                self.check_links()
                self.next_check = now + CHECK_INTERVAL
            links = [l for l in [self.host] + self.members if l.sock]
            try:
                ready, _, _ = select.select([l.sock for l in links], [], [],
                                            CHECK_INTERVAL)
            except InterruptedError:
                continue
            for link in links:
                if link.sock in ready:
                    self.receive(link)
        for link in [self.host] + self.members:
            print("bond-peer: %s rx=%d tx=%d tx_errors=%d" % (
                link.name, link.rx, link.tx, link.tx_errors), flush=True)


def main():
    parser = argparse.ArgumentParser(description="userspace bond partner")
    parser.add_argument("--mode", choices=["balance-xor", "active-backup"],
                        required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("members", nargs="+")
    args = parser.parse_args()

    peer = Peer(args.mode, args.host, args.members)

    def on_signal(signum, frame):
        peer.stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    peer.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
