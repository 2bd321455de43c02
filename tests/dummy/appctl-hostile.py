#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Misbehaving appctl clients for tests/dummy/test-appctl-limits.sh, each
# against the daemon's socket SOCK, each running the well-behaved command
# APPCTL... (a pmdswitch-appctl command line) while it misbehaves.
# Standard library only.  Each prints "key=value" lines for the test to
# check; the exit status is 0 unless the client could not even start.
#
#   appctl-hostile.py over-cap SOCK N APPCTL...
#       Holds N silent connections open, then runs APPCTL; prints
#       "appctl=STATUS" and "closed=K", K being how many of the N the
#       daemon closed within 5 s after APPCTL returned.
#   appctl-hostile.py stall SOCK APPCTL...
#       Opens one silent connection and one that sends half a request and
#       then a byte every 0.2 s; runs APPCTL; prints "appctl=STATUS",
#       "closed=K" (of the 2, within 5 s) and "elapsed_ms=MS" (from
#       connecting to the later close).
#   appctl-hostile.py flood SOCK APPCTL...
#       Sends requests without reading a reply until the daemon closes the
#       connection, at most 10 s; then runs APPCTL; prints "closed=0|1",
#       "sent=BYTES" and "appctl=STATUS".
#   appctl-hostile.py oversize SOCK APPCTL...
#       Sends a request of 1 MiB and 4 KiB; prints "reply=ERROR TEXT" (the
#       daemon's error, or nothing) and "appctl=STATUS".
#   appctl-hostile.py no-fds SOCK PID APPCTL...
#       Lowers daemon PID's soft descriptor limit below every descriptor
#       it holds, starts APPCTL (its connection waits in the backlog: the
#       daemon cannot accept it), and after 1 s restores the limit; prints
#       "waited=1" if APPCTL was still waiting then, "control_cpu_ms=MS",
#       the CPU time the daemon's control thread used in that second, and
#       "appctl=STATUS" once APPCTL is done.

import os
import resource
import socket
import subprocess
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def run_appctl(cmd):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=30).returncode


def closed_by_peer(s, deadline):
    """Waits until 'deadline' (monotonic) for EOF or a reset on 's'."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        s.settimeout(left)
        try:
            data = s.recv(65536)
        except socket.timeout:
            return False
        except OSError:
            return True
        if not data:
            return True


def count_closed(socks, seconds):
    deadline = time.monotonic() + seconds
    return sum(closed_by_peer(s, deadline) for s in socks)


def over_cap(path, n, cmd):
    socks = [connect(path) for _ in range(int(n))]
    print("appctl=%d" % run_appctl(cmd))
    print("closed=%d" % count_closed(socks, 5))


def stall(path, cmd):
    start = time.monotonic()
    silent = connect(path)
    half = connect(path)
    half.sendall(b'{"method":"version","par')
    print("appctl=%d" % run_appctl(cmd))
    # A byte now and then must not keep a half request alive.
    half.setblocking(False)
    closed_half = False
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            half.send(b" ")
        except OSError:
            closed_half = True
            break
        time.sleep(0.2)
    closed_half = closed_half or closed_by_peer(half, time.monotonic() + 1)
    closed_silent = closed_by_peer(silent, time.monotonic() + 5)
    print("closed=%d" % (closed_half + closed_silent))
    print("elapsed_ms=%d" % ((time.monotonic() - start) * 1000))


def flood(path, cmd):
    s = connect(path)
    s.setblocking(False)
    req = b'{"method":"list-commands","id":1}' * 64
    sent = 0
    closed = False
    # Generous: under a sanitizer the daemon takes over 10 s to queue 4 MiB
    # of replies.  The loop ends as soon as the daemon closes the socket.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            sent += s.send(req)
        except BlockingIOError:
            time.sleep(0.001)
        except OSError:
            closed = True
            break
    print("closed=%d" % closed)
    print("sent=%d" % sent)
    print("appctl=%d" % run_appctl(cmd))


def oversize(path, cmd):
    s = connect(path)
    head = b'{"method":"version","params":["'
    body = head + b"x" * (1024 * 1024 + 4096 - len(head))
    try:
        s.sendall(body)
    except OSError:
        pass
    reply = b""
    s.settimeout(5)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            reply += data
    except OSError:
        pass
    text = reply.decode(errors="replace")
    err = ""
    if '"error":"' in text:
        err = text.split('"error":"', 1)[1].split('"', 1)[0]
    print("reply=%s" % err)
    print("appctl=%d" % run_appctl(cmd))


def thread_cpu_ms(pid):
    """CPU time used so far by the main (control) thread of 'pid'."""
    with open("/proc/%d/task/%d/stat" % (pid, pid)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])   # utime, stime
    return ticks * 1000 // os.sysconf("SC_CLK_TCK")


def no_fds(path, pid, cmd):
    pid = int(pid)
    old = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    # Below every descriptor the daemon holds: it can open none.
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, old[1]))
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        cpu = thread_cpu_ms(pid)
        time.sleep(1)
        cpu = thread_cpu_ms(pid) - cpu
        waiting = proc.poll() is None
    finally:
        resource.prlimit(pid, resource.RLIMIT_NOFILE, old)
    print("waited=%d" % waiting)
    print("control_cpu_ms=%d" % cpu)
    print("appctl=%d" % proc.wait(timeout=30))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: appctl-hostile.py MODE SOCK ARG...")
    mode, path, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "over-cap":
        over_cap(path, rest[0], rest[1:])
    elif mode == "stall":
        stall(path, rest)
    elif mode == "flood":
        flood(path, rest)
    elif mode == "oversize":
        oversize(path, rest)
    elif mode == "no-fds":
        no_fds(path, rest[0], rest[1:])
    else:
        sys.exit("unknown mode %s" % mode)


if __name__ == "__main__":
    main()
