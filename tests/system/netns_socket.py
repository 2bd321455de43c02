# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Packet sockets in other network namespaces, for the system tests' Python
# tools: setns(2) through ctypes (Python 3.11 has no os.setns), the socket
# made and bound inside the namespace, then back home.  A socket stays in
# the namespace it was made in, so one process can serve several.
# Python 3 standard library only.

import ctypes
import os
import socket

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
CLONE_NEWNET = 0x40000000


class Netns:
    """Makes packet sockets in named network namespaces."""

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.home = os.open("/proc/self/ns/net", os.O_RDONLY)

    def _setns(self, fd):
        if self.libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "setns: " + os.strerror(err))

    def packet_socket(self, ns, ifname, auxdata=False):
        """A non-blocking packet socket for every ethertype, bound to
        'ifname' in namespace 'ns' (as "ip netns" names it), with
        PACKET_AUXDATA on if 'auxdata'."""
        fd = os.open("/var/run/netns/" + ns, os.O_RDONLY)
        try:
            self._setns(fd)
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                 socket.htons(ETH_P_ALL))
            if auxdata:
                sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            sock.bind((ifname, ETH_P_ALL))
            sock.setblocking(False)
            return sock
        finally:
            self._setns(self.home)
            os.close(fd)
