#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
"""Sends malformed VXLAN datagrams at a rate, for the tunnel tests.

Usage: vxlan-junk.py KIND SRC DST PORT VNI COUNT RATE

KIND is one of:
  truncated       a header and 6 bytes, too short to carry a frame
  bad_flags       the I flag and a reserved flag bit set
  wrong_vni       a well-formed datagram for VNI + 1
  unknown_remote  a well-formed datagram for VNI (sent from SRC, which the
                  port does not list as a remote)
Each carries a broadcast frame of an experimental ethertype (0x88b5), so
that one forwarded by mistake would reach every port.  Sends COUNT
datagrams from SRC to DST:PORT at RATE a second and prints how many it
sent as JSON.
"""
import json
import socket
import struct
import sys
import time


def frame(seq):
    return (b"\xff" * 6 + bytes.fromhex("02000000beef") +
            struct.pack("!HI", 0x88b5, seq) + bytes(40))


def payload(kind, vni, seq):
    if kind == "truncated":
        return struct.pack("!II", 0x08000000, vni << 8) + bytes(6)
    if kind == "bad_flags":
        return struct.pack("!II", 0x0c000000, vni << 8) + frame(seq)
    if kind == "wrong_vni":
        return struct.pack("!II", 0x08000000, (vni + 1) << 8) + frame(seq)
    if kind == "unknown_remote":
        return struct.pack("!II", 0x08000000, vni << 8) + frame(seq)
    sys.exit("unknown kind %r" % kind)


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    kind, src, dst = sys.argv[1:4]
    port, vni, count, rate = (int(a) for a in sys.argv[4:8])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((src, 0))
    start = time.monotonic()
    sent = 0
    for seq in range(count):
        # Paced in bursts of 10, so that the rate holds at tens of
        # thousands a second.
        if seq % 10 == 0:
            delay = start + seq / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        sock.sendto(payload(kind, vni, seq), (dst, port))
        sent += 1
    print(json.dumps({"kind": kind, "sent": sent,
                      "seconds": round(time.monotonic() - start, 3)}))


if __name__ == "__main__":
    main()
