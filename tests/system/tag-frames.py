#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
"""Tagged, sequence-numbered Ethernet frames, to count how many times each
arrives where (the tunnel tests: flooding must reach each host once, unicast
one host only).

  tag-frames.py send IFACE DST_MAC TAG COUNT
      Sends COUNT frames to DST_MAC on IFACE (AF_PACKET), ethertype 0x88b5,
      each carrying TAG and its sequence number, 1 ms apart.
  tag-frames.py count IFACE READY SECONDS
      Counts the frames of ethertype 0x88b5 IFACE receives for SECONDS
      (creating the file READY once it listens) and prints, as JSON, per
      tag: {"frames": N, "distinct": N, "duplicates": N}.
Standard library only.
"""
import json
import socket
import struct
import sys
import time

ETH_TYPE = 0x88b5
PACKET_OUTGOING = 4


def send(iface, dst, tag, count):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((iface, 0))
    src = sock.getsockname()[4]
    dst_bytes = bytes.fromhex(dst.replace(":", ""))
    for seq in range(count):
        frame = (dst_bytes + src + struct.pack("!H", ETH_TYPE)
                 + tag.encode().ljust(8, b"\0")[:8] + struct.pack("!I", seq)
                 + bytes(34))
        sock.send(frame)
        time.sleep(0.001)


def count(iface, ready, seconds):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                         socket.htons(ETH_TYPE))
    sock.bind((iface, 0))
    sock.settimeout(0.1)
    open(ready, "w").close()
    seen = {}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data, addr = sock.recvfrom(2048)
        except socket.timeout:
            continue
        if addr[2] == PACKET_OUTGOING or len(data) < 26:
            continue
        tag = data[14:22].rstrip(b"\0").decode(errors="replace")
        seq = struct.unpack("!I", data[22:26])[0]
        seqs = seen.setdefault(tag, {})
        seqs[seq] = seqs.get(seq, 0) + 1
    print(json.dumps({tag: {"frames": sum(s.values()), "distinct": len(s),
                            "duplicates": sum(n - 1 for n in s.values())}
                      for tag, s in seen.items()}))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "send":
        send(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) == 5 and sys.argv[1] == "count":
        count(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
