#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
"""Stands in for systemd's notification socket: binds a unix datagram
socket at PATH and appends each message it receives to LOG, one line per
assignment ("READY=1", "WATCHDOG=1", "STATUS=..."), until killed.

Usage: notify-listener.py PATH LOG
"""
import os
import socket
import sys


def main():
    path, log = sys.argv[1], sys.argv[2]
    if os.path.exists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    with open(log, "a", buffering=1) as out:
        out.write("LISTENING\n")
        while True:
            data = sock.recv(4096).decode("utf-8", "replace")
            for line in data.split("\n"):
                if line:
                    out.write(line + "\n")


if __name__ == "__main__":
    main()
