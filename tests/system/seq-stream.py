#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# A steady stream of sequence-numbered UDP datagrams, and a receiver that
# counts what the network did to it: lost, duplicated and reordered
# datagrams, each on its own (iperf3 folds duplicates into "out of order"
# and takes them off its loss count, so it cannot tell them apart).
# Standard library only.
#
#   seq-stream.py recv ADDR PORT OUT READY
#       Listens on UDP ADDR:PORT and creates the file READY once it does.
#       Until SIGTERM, or until 0.5 s after the sender's end marker, counts
#       the datagrams it receives; then writes OUT, a JSON object:
#         "received"   datagrams of the stream received, duplicates too;
#         "unique"     distinct sequence numbers received;
#         "duplicates" datagrams whose sequence number came already;
#         "reordered"  datagrams that came after one with a higher number
#                      (and were not duplicates);
#         "highest"    the highest sequence number received (-1: none);
#         "sent"       the sender's count from its end marker (-1: none);
#         "lost"       sent - unique if the end marker came, else the
#                      numbers below "highest" that never came;
#         "missing"    up to 20 [first, last] ranges of numbers not
#                      received;
#         "socket_drops" datagrams the receiving socket itself dropped
#                      (SO_RXQ_OVFL: its buffer was full), which are not
#                      the network's fault.
#   seq-stream.py send ADDR PORT RATE SECONDS
#       Sends RATE datagrams a second (each with the next sequence number,
#       from 0, and 64 bytes of payload in all) to ADDR:PORT for SECONDS,
#       or until SIGTERM; then sends the end marker (5 times, 20 ms apart)
#       and prints {"sent": N, "send_errors": M}.  A send the local kernel
#       refuses (ENOBUFS, ...) is counted in send_errors and retried with
#       the same number, so every number counted as sent left the host.

import errno
import json
import os
import signal
import socket
import struct
import sys
import time

MAGIC = 0x5053_5351          # "PSSQ"
KIND_DATA = 1
KIND_END = 2
HEADER = struct.Struct("!IIQ")   # magic, kind, sequence number or count
PAYLOAD_SIZE = 64
SO_RXQ_OVFL = getattr(socket, "SO_RXQ_OVFL", 40)

stop = []


def on_term(*_):
    stop.append(1)


def datagram(kind, value):
    head = HEADER.pack(MAGIC, kind, value)
    return head + b"\0" * (PAYLOAD_SIZE - len(head))


def cmd_send(addr, port, rate, seconds):
    rate = float(rate)
    seconds = float(seconds)
    signal.signal(signal.SIGTERM, on_term)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((addr, int(port)))
    seq = 0
    errors = 0
    start = time.monotonic()
    end = start + seconds
    while not stop:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * rate) + 1
        while seq < due and not stop:
            try:
                s.send(datagram(KIND_DATA, seq))
                seq += 1
            except OSError as e:
                if e.errno not in (errno.ENOBUFS, errno.EAGAIN,
                                   errno.ECONNREFUSED):
                    raise
                errors += 1
                break
        # Sleep until the next datagram is due (at most 5 ms).
        wait = (seq / rate) - (time.monotonic() - start)
        if wait > 0:
            time.sleep(min(wait, 0.005))
    for _ in range(5):
        try:
            s.send(datagram(KIND_END, seq))
        except OSError:
            pass
        time.sleep(0.02)
    print(json.dumps({"sent": seq, "send_errors": errors}), flush=True)


def cmd_recv(addr, port, out, ready):
    signal.signal(signal.SIGTERM, on_term)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # SO_RCVBUFFORCE (33) passes the rmem_max limit; we are root.
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
    s.bind((addr, int(port)))
    s.settimeout(0.1)
    open(ready, "w").close()

    seen = bytearray()
    received = unique = duplicates = reordered = 0
    highest = -1
    sent = -1
    end_at = None
    socket_drops = 0
    cmsg_space = socket.CMSG_SPACE(4)
    while not stop:
        if end_at is not None and time.monotonic() >= end_at:
            break
        try:
            data, anc, _, _ = s.recvmsg(2048, cmsg_space)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        for level, ctype, cdata in anc:
            if level == socket.SOL_SOCKET and ctype == SO_RXQ_OVFL:
                # The socket's running total of drops.
                socket_drops = struct.unpack("I", cdata[:4])[0]
        if len(data) < HEADER.size:
            continue
        magic, kind, value = HEADER.unpack_from(data)
        if magic != MAGIC:
            continue
        if kind == KIND_END:
            sent = value
            if end_at is None:
                end_at = time.monotonic() + 0.5
            continue
        if kind != KIND_DATA:
            continue
        received += 1
        if value >= len(seen) * 8:
            seen.extend(b"\0" * max(len(seen), value // 8 + 1 - len(seen)))
        byte, bit = value // 8, 1 << (value % 8)
        if seen[byte] & bit:
            duplicates += 1
            continue
        seen[byte] |= bit
        unique += 1
        if value < highest:
            reordered += 1
        else:
            highest = value

    limit = sent if sent >= 0 else highest + 1
    missing = []
    n_missing = 0
    run_start = None
    for i in range(limit):
        got = seen[i // 8] & (1 << (i % 8)) if i // 8 < len(seen) else 0
        if not got:
            n_missing += 1
            if run_start is None:
                run_start = i
        elif run_start is not None:
            if len(missing) < 20:
                missing.append([run_start, i - 1])
            run_start = None
    if run_start is not None and len(missing) < 20:
        missing.append([run_start, limit - 1])
    result = {"received": received, "unique": unique,
              "duplicates": duplicates, "reordered": reordered,
              "highest": highest, "sent": sent,
              "lost": (sent - unique) if sent >= 0 else n_missing,
              "missing": missing, "socket_drops": socket_drops}
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
        f.write("\n")
    os.rename(out + ".tmp", out)


def main():
    args = sys.argv[1:]
    cmds = {"send": (4, cmd_send), "recv": (4, cmd_recv)}
    if not args or args[0] not in cmds or len(args) - 1 != cmds[args[0]][0]:
        sys.exit("usage: see the comment at the top of %s" % sys.argv[0])
    cmds[args[0]][1](*args[1:])


if __name__ == "__main__":
    main()
