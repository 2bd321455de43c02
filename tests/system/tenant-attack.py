#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# What a hostile tenant sends, for tests/system/test-tenant-flood.sh and
# bench/tenant-flood.sh.  Standard library only; frames go out of IFACE
# through an AF_PACKET raw socket, paced to RATE frames a second.
#
#   tenant-attack.py macflood IFACE RATE SECONDS
#       Broadcast frames (ethertype 0x88b5, 60 bytes), each from a new
#       random unicast source MAC.
#   tenant-attack.py tupleflood IFACE DST_MAC DST_IP RATE SECONDS
#       IPv4/UDP frames from IFACE's own MAC to DST_MAC and DST_IP, each
#       with a random source address (10.200.0.0/16) and random ports.
#
# Prints "sent N failed M" at the end (a failed send is one the kernel
# refused, such as ENOBUFS) and exits 0; SIGTERM ends it early, the same
# way.

import os
import random
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
BURST_INTERVAL = 0.001          # Frames due within a millisecond go at once.


def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def mac_bytes(text):
    return bytes(int(x, 16) for x in text.split(":"))


def random_unicast_mac(rng):
    first = (rng.randrange(256) & 0xfc) | 0x02     # Local, unicast.
    return bytes([first]) + rng.randbytes(5)


def macflood_frame(rng):
    return (b"\xff" * 6 + random_unicast_mac(rng) + b"\x88\xb5"
            + struct.pack("!Q", rng.getrandbits(64)) + b"\0" * 38)


def udp_frame(rng, src_mac, dst_mac, dst_ip):
    src_ip = bytes([10, 200, rng.randrange(256), rng.randrange(1, 255)])
    payload = b"\0" * 18
    udp = struct.pack("!HHHH", rng.randrange(1024, 65536),
                      rng.randrange(1024, 65536), 8 + len(payload), 0)
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) +
                         len(payload), 0, 0x4000, 64, 17, 0, src_ip, dst_ip)
    header = header[:10] + struct.pack("!H", csum(header)) + header[12:]
    return dst_mac + src_mac + b"\x08\x00" + header + udp + payload


def paced_send(sock, make_frame, rate, seconds):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    start = time.monotonic()
    end = start + seconds
    sent = failed = 0
    while not stop:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start + BURST_INTERVAL) * rate)
        while sent + failed < due:
            try:
                sock.send(make_frame())
                sent += 1
            except OSError:
                failed += 1
        time.sleep(BURST_INTERVAL)
    print("sent %d failed %d" % (sent, failed), flush=True)


def raw_socket(iface):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                         socket.htons(ETH_P_ALL))
    sock.bind((iface, 0))
    return sock


def main():
    args = sys.argv[1:]
    rng = random.Random(os.getpid())
    if len(args) == 4 and args[0] == "macflood":
        iface, rate, seconds = args[1], float(args[2]), float(args[3])
        sock = raw_socket(iface)
        paced_send(sock, lambda: macflood_frame(rng), rate, seconds)
    elif len(args) == 6 and args[0] == "tupleflood":
        iface, dst_mac, dst_ip = args[1], mac_bytes(args[2]), args[3]
        rate, seconds = float(args[4]), float(args[5])
        sock = raw_socket(iface)
        src_mac = sock.getsockname()[4]
        dst_ip = socket.inet_aton(dst_ip)
        paced_send(sock, lambda: udp_frame(rng, src_mac, dst_mac, dst_ip),
                   rate, seconds)
    else:
        sys.exit("usage: tenant-attack.py macflood IFACE RATE SECONDS\n"
                 "       tenant-attack.py tupleflood IFACE DST_MAC DST_IP "
                 "RATE SECONDS")


if __name__ == "__main__":
    main()
