#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# A TCP transfer whose bytes are checked end to end, for paths where the
# receiving kernel would not see corruption: a frame handed over with its
# checksum left to do (CHECKSUM_PARTIAL, as merged frames are) is not
# verified on the way in.  Standard library only.
#
#   tcp-digest.py recv ADDR PORT OUT READY
#       Accepts one connection on ADDR:PORT (creating READY once it
#       listens), reads to the end, and writes OUT: {"bytes": N,
#       "sha256": HEX}.
#   tcp-digest.py send ADDR PORT BYTES
#       Connects and sends BYTES bytes of a fixed pseudo-random pattern in
#       writes of varied sizes, then prints {"bytes": N, "sha256": HEX}.

import hashlib
import json
import random
import socket
import sys


def recv(addr, port, out, ready):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    srv.settimeout(30)
    open(ready, "w").close()
    conn, _ = srv.accept()
    conn.settimeout(30)
    digest = hashlib.sha256()
    n = 0
    while True:
        data = conn.recv(1 << 20)
        if not data:
            break
        digest.update(data)
        n += len(data)
    with open(out, "w") as f:
        json.dump({"bytes": n, "sha256": digest.hexdigest()}, f)


def send(addr, port, total):
    rng = random.Random(42)
    block = bytes(rng.getrandbits(8) for _ in range(1 << 16))
    double = block + block
    sock = socket.create_connection((addr, port), timeout=30)
    digest = hashlib.sha256()
    sent = 0
    while sent < total:
        size = min(total - sent, rng.choice((1, 100, 1448, 9000, 65536)))
        start = sent % len(block)
        chunk = double[start:start + size]
        sock.sendall(chunk)
        digest.update(chunk)
        sent += size
    sock.close()
    print(json.dumps({"bytes": sent, "sha256": digest.hexdigest()}))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "recv":
        recv(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 5 and sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit("usage: tcp-digest.py recv ADDR PORT OUT READY | "
                 "send ADDR PORT BYTES")


if __name__ == "__main__":
    main()
