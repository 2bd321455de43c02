#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# A stand-in for a VM's hypervisor, for tests/system/test-vm-tap.sh: like
# QEMU with "-netdev tap,ifname=TAP", it opens /dev/net/tun, creates the tap
# TAP in its own namespace and holds the descriptor, so the tap lives as
# long as the process does.  The "guest" is network namespace NS: the
# process relays every frame between the tap's descriptor and a packet
# socket on interface WIRE in NS, one end of a veth pair whose other end
# is the guest's eth0, as a virtio NIC would carry them.  The guest's
# eth0 must have its transmit offloads off: a tap without a vnet header
# takes only whole frames with finished checksums.
#
# Usage: vm-tap.py TAP NS WIRE READY
# Creates READY once the tap exists; on SIGTERM prints one line,
#   {"to_guest": N, "from_guest": M, "write_errors": E}
# and exits 0.  Python 3 standard library only.

import fcntl
import json
import os
import select
import signal
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns_socket import Netns  # noqa: E402

TUNSETIFF = 0x400454ca
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
PACKET_OUTGOING = 4


def open_tap(name):
    """The descriptor of a new tap named 'name', without packet info."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF,
                struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: vm-tap.py TAP NS WIRE READY")
    tap_name, ns, wire, ready = sys.argv[1:]
    tap = open_tap(tap_name)
    sock = Netns().packet_socket(ns, wire)
    counts = {"to_guest": 0, "from_guest": 0, "write_errors": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(ready, "w") as f:
        f.write("ready\n")
    while not stop:
        try:
            readable, _, _ = select.select([tap, sock], [], [], 0.2)
        except InterruptedError:
            continue
        if tap in readable:
            while True:
                try:
                    frame = os.read(tap, 65536)
                except BlockingIOError:
                    break
                try:
                    sock.send(frame)
                    counts["to_guest"] += 1
                except OSError:
                    counts["write_errors"] += 1
        if sock in readable:
            while True:
                try:
                    frame, addr = sock.recvfrom(65536)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                try:
                    os.write(tap, frame)
                    counts["from_guest"] += 1
                except OSError:
                    counts["write_errors"] += 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
