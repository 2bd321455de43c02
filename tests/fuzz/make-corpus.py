#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Writes the seed corpus of the fuzz targets into tests/fuzz/corpus/NAME/:
# frames of every protocol miniflow_extract() knows (and truncated or
# malformed ones), configs, appctl requests and rule texts.  Run it from
# the top of the tree after changing it; the files are committed, so a
# build does not need Python.
import os
import struct

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    d = os.path.join(TOP, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


DST = bytes.fromhex("020000000002")
SRC = bytes.fromhex("020000000001")


def eth(ethertype, payload, vlans=()):
    hdr = DST + SRC
    for tpid, tci in vlans:
        hdr += struct.pack("!HH", tpid, tci)
    return hdr + struct.pack("!H", ethertype) + payload


def ipv4(proto, payload, src="10.0.0.1", dst="10.0.0.2", frag=0,
         options=b"", tos=0, ttl=64):
    ihl = 5 + len(options) // 4
    a = bytes(int(x) for x in src.split("."))
    b = bytes(int(x) for x in dst.split("."))
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, 20 + len(options)
                    + len(payload), 1, frag, ttl, proto, 0, a, b) + options
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ip6addr(last):
    return bytes.fromhex("20010db8000000000000000000000000")[:15] + \
        bytes([last])


def ipv6(nxt, payload, src=1, dst=2, hlim=64, label=0x12345):
    return struct.pack("!IHBB", (6 << 28) | label, len(payload), nxt,
                       hlim) + ip6addr(src) + ip6addr(dst) + payload


def tcp(sport=1234, dport=80, flags=0x02):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, flags,
                       65535, 0, 0)


def udp(sport=5353, dport=53, data=b"hello"):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def sctp(sport=5000, dport=6000):
    return struct.pack("!HHII", sport, dport, 0, 0) + bytes(16)


def icmp(typ=8, code=0):
    return struct.pack("!BBHHH", typ, code, 0, 1, 1) + b"ping"


def arp(op=1):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + SRC + \
        bytes([10, 0, 0, 1]) + (DST if op == 2 else bytes(6)) + \
        bytes([10, 0, 0, 2])


def frames():
    f = {}
    f["empty"] = b""
    f["short-13"] = eth(0x0800, b"")[:13]
    f["eth-only"] = eth(0x0800, b"")
    f["llc-8023"] = eth(0x0040, b"\xaa\xaa\x03" + bytes(61))
    f["arp-request"] = eth(0x0806, arp(1))
    f["arp-reply"] = eth(0x0806, arp(2))
    f["arp-truncated"] = eth(0x0806, arp(1))[:30]
    f["ipv4-tcp-syn"] = eth(0x0800, ipv4(6, tcp()))
    f["ipv4-tcp-truncated"] = eth(0x0800, ipv4(6, tcp()))[:40]
    f["ipv4-udp"] = eth(0x0800, ipv4(17, udp()))
    f["ipv4-sctp"] = eth(0x0800, ipv4(132, sctp()))
    f["ipv4-icmp-echo"] = eth(0x0800, ipv4(1, icmp()))
    f["ipv4-igmp"] = eth(0x0800, ipv4(2, bytes(8)))
    f["ipv4-gre"] = eth(0x0800, ipv4(47, bytes(8)))
    f["ipv4-options-tcp"] = eth(0x0800, ipv4(6, tcp(), options=b"\x01" * 8))
    f["ipv4-frag-first"] = eth(0x0800, ipv4(17, udp(), frag=0x2000))
    f["ipv4-frag-later"] = eth(0x0800, ipv4(17, udp(), frag=0x0010))
    f["ipv4-bad-ihl"] = eth(0x0800, b"\x43" + ipv4(6, tcp())[1:])
    f["ipv4-ihl-too-long"] = eth(0x0800, b"\x4f" + ipv4(6, tcp())[1:])
    f["ipv4-tos-ttl"] = eth(0x0800, ipv4(17, udp(), tos=0xb9, ttl=1))
    f["ipv6-tcp"] = eth(0x86dd, ipv6(6, tcp(flags=0x12)))
    f["ipv6-udp"] = eth(0x86dd, ipv6(17, udp()))
    f["ipv6-sctp"] = eth(0x86dd, ipv6(132, sctp()))
    f["ipv6-icmp6-echo"] = eth(0x86dd, ipv6(58, icmp(128)))
    ns = struct.pack("!BBHI", 135, 0, 0, 0) + ip6addr(2) + \
        b"\x01\x01" + SRC
    f["ipv6-nd-ns-sll"] = eth(0x86dd, ipv6(58, ns, hlim=255))
    na = struct.pack("!BBHI", 136, 0, 0, 0x60000000) + ip6addr(2) + \
        b"\x02\x01" + DST
    f["ipv6-nd-na-tll"] = eth(0x86dd, ipv6(58, na, hlim=255))
    bad = struct.pack("!BBHI", 135, 0, 0, 0) + ip6addr(2) + \
        b"\x01\x00" + SRC
    f["ipv6-nd-bad-option"] = eth(0x86dd, ipv6(58, bad, hlim=255))
    hbh = bytes([43, 0, 1, 4, 0, 0, 0, 0])
    rt = bytes([44, 0, 0, 0, 0, 0, 0, 0])
    frag = struct.pack("!BBHI", 6, 0, 0, 7)
    f["ipv6-ext-hbh-rt-frag-tcp"] = eth(0x86dd, ipv6(0, hbh + rt + frag
                                                     + tcp()))
    later = struct.pack("!BBHI", 17, 0, 0x0008, 7)
    f["ipv6-frag-later"] = eth(0x86dd, ipv6(44, later + udp()))
    f["ipv6-dstopts-udp"] = eth(0x86dd, ipv6(60, bytes([17, 0, 1, 4, 0, 0,
                                                         0, 0]) + udp()))
    f["ipv6-ext-truncated"] = eth(0x86dd, ipv6(0, hbh))[:60]
    f["ipv6-no-next"] = eth(0x86dd, ipv6(59, b""))
    f["vlan-ipv4-udp"] = eth(0x0800, ipv4(17, udp()), [(0x8100, 0x600a)])
    f["qinq-ipv4-tcp"] = eth(0x0800, ipv4(6, tcp()),
                             [(0x88a8, 0x0064), (0x8100, 0x000a)])
    f["vlan-triple"] = eth(0x0800, ipv4(6, tcp()),
                           [(0x8100, 1), (0x8100, 2), (0x8100, 3)])
    f["vlan-truncated"] = eth(0x0800, b"", [(0x8100, 10)])[:16]
    f["llc-snap-ipv4"] = eth(0x0040, b"\xaa\xaa\x03\0\0\0\x08\0"
                             + ipv4(17, udp()))
    f["llc-snap-arp"] = eth(0x0040, b"\xaa\xaa\x03\0\0\0\x08\x06"
                            + arp(1))
    f["rarp"] = eth(0x8035, arp(3))
    f["ipv4-version-6"] = eth(0x0800, b"\x65" + ipv4(6, tcp())[1:])
    f["ipv4-tot-len-past-end"] = eth(0x0800, ipv4(17, udp()))[:-1]
    f["ipv6-plen-past-end"] = eth(0x86dd, ipv6(6, tcp()))[:-1]
    f["tcp-doff-past-end"] = eth(0x0800, ipv4(6, tcp()[:12] + b"\xf0"
                                              + tcp()[13:]))
    dstopts = b""
    for i in range(20):
        dstopts += bytes([60 if i < 19 else 6, 0, 1, 4, 0, 0, 0, 0])
    f["ipv6-twenty-dstopts"] = eth(0x86dd, ipv6(60, dstopts + tcp()))
    atomic = struct.pack("!BBHI", 17, 0, 0, 7)
    f["ipv6-atomic-frag"] = eth(0x86dd, ipv6(44, atomic + udp()))
    dup = struct.pack("!BBHI", 135, 0, 0, 0) + ip6addr(2) + \
        b"\x01\x01" + SRC + b"\x01\x01" + DST
    f["ipv6-nd-dup-sll"] = eth(0x86dd, ipv6(58, dup, hlim=255))
    f["vlan-ipv6-icmp6"] = eth(0x86dd, ipv6(58, icmp(129)),
                               [(0x8100, 0x2014)])
    f["vlan-arp"] = eth(0x0806, arp(1), [(0x8100, 5)])
    return f


CONFIGS = {
    "mirrors-metrics": '{"bridges": [{"name": "br0", "ports": [{"name": '
                       '"p1", "type": "dummy"}, {"name": "p2", "type": '
                       '"dummy", "tag": 10}, {"name": "p3", "type": '
                       '"dummy"}], "mirrors": [{"name": "m0", '
                       '"select_src_port": ["p1"], "select_dst_port": '
                       '["p2"], "select_vlan": [10], "output_port": "p3"}, '
                       '{"name": "m1", "select_all": true, "output_port": '
                       '"p3"}]}], "other_config": {"metrics-address": '
                       '"[::1]:9540", "userspace-tso-enable": true}}',
    "readme-basic": """{
  "bridges": [
    {
      "name": "br0",
      "ports": [
        { "name": "p1", "interface": "veth-a" },
        { "name": "p2", "interface": "veth-b" }
      ]
    }
  ],
  "other_config": {
    "pmd-cpu-mask": "0x2",
    "use-tpacket-v3": true,
    "emc-insert-inv-prob": 100,
    "smc-enable": true
  }
}
""",
    "readme-created-ports": """{"bridges": [{"name": "br0", "ports": [
{ "name": "vm1", "interface": "tap-vm1", "type": "tap", "create": true },
{ "name": "c1", "interface": "veth-c1", "create": true,
  "options": { "peer": "c1-eth0", "n_rxq": 2 } },
{ "name": "p3", "interface": "veth-d", "options": { "n_rxq": 2 } }
]}]}
""",
    "readme-rules": """{"bridges": [{"name": "br0", "ports": [
  {"name": "p1", "interface": "veth-a"},
  {"name": "p2", "interface": "veth-b"}],
 "rules": [
  { "priority": 200, "match": "udp,tp_dst=9", "actions": "drop",
    "cookie": "0x9" },
  { "priority": 100, "match": "in_port=p1,ip,nw_dst=10.0.0.0/8",
    "actions": "mod_vlan_vid:10,output:p2" },
  { "priority": 0, "actions": "normal" }
]}]}
""",
    "readme-vlans": """{"bridges": [{"name": "br0", "ports": [
{ "name": "p1", "interface": "veth-a", "tag": 10 },
{ "name": "p2", "interface": "veth-b", "tag": 20 },
{ "name": "p3", "interface": "veth-c", "trunks": [10, 20] },
{ "name": "p4", "interface": "veth-d", "vlan_mode": "native-untagged",
  "tag": 10, "trunks": [20] }
]}]}
""",
    "bond": """{"bridges": [{"name": "br0", "ports": [
 {"name": "p1", "interface": "veth-a"},
 {"name": "bond0", "type": "bond", "members": ["veth-m1", "veth-m2"],
  "options": {"bond_mode": "balance-tcp"}}]}]}
""",
    "bad-two-bridges": """{"bridges": [
 {"name": "br0", "ports": [{"name": "p1", "interface": "veth-a"}]},
 {"name": "br1", "ports": [{"name": "p2", "interface": "veth-b"}]}]}
""",
    "bad-unknown-key": '{"bridges": [], "colour": "blue"}\n',
    "bad-type": '{"bridges": [{"name": 5, "ports": []}]}\n',
    "bad-rule-port": """{"bridges": [{"name": "br0", "ports": [
 {"name": "p1", "interface": "veth-a"}],
 "rules": [{"match": "in_port=p9", "actions": "drop"}]}]}
""",
    "bad-rule-prereq": """{"bridges": [{"name": "br0", "ports": [
 {"name": "p1", "interface": "veth-a"}],
 "rules": [{"priority": 70000, "match": "nw_dst=10.0.0.0/8",
            "actions": "mod_nw_src:1.2.3.4"}]}]}
""",
    "bad-vlan": """{"bridges": [{"name": "br0", "ports": [
 {"name": "p1", "interface": "veth-a", "vlan_mode": "access",
  "trunks": [4095, 4096]}]}]}
""",
    "bad-json": '{"bridges": [{"name": "br0", "ports": [}\n',
    "other-config": """{"bridges": [{"name": "br0", "ports": [
 {"name": "p1", "interface": "veth-a"}]}],
 "other_config": {"pmd-cpu-mask": "0xffffffffffffffff",
  "emc-insert-inv-prob": 0, "smc-enable": false,
  "use-tpacket-v3": false, "pmd-rxq-assign": "roundrobin"}}
""",
    "vxlan": """{"bridges": [{"name": "br0", "ports": [
 {"name": "p1", "interface": "veth-a"},
 {"name": "vx0", "type": "vxlan",
  "options": {"remote_ip": ["192.0.2.2", "192.0.2.3"], "key": 42,
              "local_ip": "192.0.2.1", "dst_port": 4789, "ttl": 64,
              "tos": "inherit"}},
 {"name": "vx1", "type": "vxlan",
  "options": {"remote_ip": "192.0.2.4,192.0.2.5", "key": "flow",
              "dst_port": "8472", "tos": 16}}],
 "rules": [{"match": "in_port=vx1,tun_id=0x2a/0xff", "actions": "output:p1"},
           {"match": "in_port=p1", "actions": "set_field:42->tun_id,output:vx1"}]}]}
""",
    "bad-vxlan": """{"bridges": [{"name": "br0", "ports": [
 {"name": "vx0", "type": "vxlan",
  "options": {"remote_ip": ["fd00::1", "300.1.1.1"], "key": 16777216}}]}]}
""",
    "empty-object": "{}",
    "not-object": "[1, 2, 3]",
    "deep-nesting": "[" * 64 + "]" * 64,
}

REQUESTS = {
    "list-commands": '{"method": "list-commands", "params": [], "id": 0}',
    "with-params": '{"method": "vlog/set", "params": ["pmd:dbg"], '
                   '"id": 7}',
    "format-json": '{"method": "dpctl/show", "params": [], "id": 1, '
                   '"format": "json"}',
    "format-text": '{"method": "dpctl/show", "params": [], "id": "a", '
                   '"format": "text"}',
    "no-params": '{"method": "list-commands", "id": null}',
    "no-id": '{"method": "list-commands"}',
    "two-requests": '{"method": "a", "params": [], "id": 1}\n'
                    '{"method": "b", "params": ["x", "y"], "id": 2}',
    "escapes": '{"method": "x\\"}{", "params": ["\\\\", "\\u00e9"], '
               '"id": 3}',
    "bad-params-number": '{"method": "a", "params": [1], "id": 1}',
    "bad-params-object": '{"method": "a", "params": {}, "id": 1}',
    "bad-method": '{"method": 5, "params": [], "id": 1}',
    "bad-format": '{"method": "a", "format": 1}',
    "bad-not-object": '[{"method": "a"}]',
    "bad-json": '{"method": "a",, "id": 1}',
    "bad-bracket": '{"method": "a"]',
    "partial": '{"method": "list-comm',
    "whitespace": ' \r\n\t{"method":"list-commands","params":[],"id":0}',
    "nul-in-string": '{"method": "a\\u0000b", "params": [], "id": 1}',
}

# First byte: 0 match, 1 flow, 2 + 3 * k actions against match number k
# of fuzz_matches[] in fuzz-rules.c.
MATCHES = [
    "", "ip", "in_port=p1,ip,nw_dst=10.0.0.0/8", "udp,tp_dst=9",
    "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00", "dl_vlan=10,vlan_pcp=5",
    "vlan_tci=0x1000/0x1000,vlan_tci1=0x1002/0x1fff",
    "dl_type=0x86dd,ipv6_dst=2001:db8::/32,ipv6_label=0x12345",
    "tcp,tcp_flags=+syn-ack", "tcp6,tp_src=0x1000/0xf000",
    "icmp6,icmp_type=135,nd_target=fe80::1,nd_sll=00:11:22:33:44:55",
    "arp,arp_spa=10.0.0.1,arp_tpa=10.0.0.0/24,arp_op=2,"
    "arp_tha=0a:0b:0c:00:00:00/ff:ff:ff:00:00:00",
    "ip,nw_frag=later,nw_ttl=64,ip_dscp=46,nw_ecn=3", "vlan_vid=0x100a",
    "in_port=70000", "nw_dst=10.0.0.0/8", "dl_vlan=0xffff,dl_vlan_pcp=3",
    "sctp6,tp_dst=9", "icmp,icmp_type=8,icmp_code=0",
    "tun_id=42,in_port=p1", "tun_id=0x10/0xf0", "tun_id=0x1000000",
]
FLOWS = [
    "priority=300,cookie=0x5,in_port=p1,icmp,actions=drop",
    "priority=100,in_port=p1,ip,nw_dst=10.0.0.0/8,"
    "actions=mod_vlan_vid:10,output:p2",
    "priority=0,actions=normal",
    "udp,tp_dst=9 actions=drop",
    "tcp,actions=mod_nw_src:10.1.2.3,mod_tp_dst:8080,output:eth0",
    "priority=5,dl_vlan=10,actions=pop_vlan,push_vlan:0x88a8,flood",
    "actions=set_field:02:00:00:00:00:02->eth_dst,output:3",
    "priority=65536,actions=drop",
    "ip",
    "cookie=0xffffffffffffffffff,actions=drop",
    "in_port=p1,actions=set_field:42->tun_id,output:p2",
    "tun_id=7,actions=set_tunnel:8,normal",
]
ACTIONS = [
    (0, "drop"), (0, "normal"), (0, "flood"), (0, "output:p1,output:2"),
    (0, "mod_vlan_vid:10,mod_vlan_pcp:3,output:p2"),
    (0, "push_vlan:0x8100,strip_vlan"),
    (0, "mod_dl_src:02:00:00:00:00:01,mod_dl_dst:02:00:00:00:00:02"),
    (1, "mod_nw_src:10.1.2.3,mod_nw_dst:1.2.3.4,normal"),
    (2, "mod_tp_src:53,mod_tp_dst:8080"),
    (3, "set_field:9->udp_src,set_field:10.0.0.9->ip_dst"),
    (4, "mod_tp_src:9"), (0, "mod_nw_src:10.1.2.3"),
    (0, "bogus:1"), (0, "output:p1,,output:p2"), (0, "mod_vlan_vid:4096"),
    (2, "set_field:1->tcp_dst,output:vm1"),
]


# Runtime bridge and port commands, one per line (fuzz-config-edit).
CONFIG_EDITS = {
    "add-port": "add-port br0 p2 interface=veth-b tag=20\n",
    "add-port-may-exist": "add-port --may-exist br0 p1 interface=veth-a "
                          "tag=10\n",
    "add-bond": "add-port br1 b0 type=bond members=e1,e2 trunks=10,20 "
                "options:bond_mode=balance-tcp\n",
    "patch-pair": "add-br br2\nadd-port br2 y0 type=patch options:peer=y1\n"
                  "add-port br1 y1 type=patch options:peer=y0\n",
    "patch-bad": "add-port br0 y0 type=patch options:peer=p1\n",
    "set-reset": "set-port p1 tag= trunks=5,6 vlan_mode=native-untagged "
                 "tag=5\n",
    "del-all": "del-port x0\ndel-br br1\ndel-port --if-exists br0 p9\n"
               "del-br br0\n",
    "bad-words": "add-port br0 p3 tag=x create=yes trunks=1,a =1 "
                 "options:=2 name=p4\n",
    "rule-port-gone": "del-port br0 p1\n",
}

# What a runtime writes to the CNI plugin's stdin (fuzz-cni-conf).
CNI_CONFS = {
    "basic": '{"cniVersion": "1.0.0", "name": "n", "type": "pmdswitch", '
             '"bridge": "br0"}',
    "full": '{"cniVersion": "1.0.0", "name": "n", "type": "pmdswitch", '
            '"bridge": "br0", "socket": "/run/x.ctl", "mtu": 1400, '
            '"vlan": 10, "ipam": {"type": "host-local", "ranges": '
            '[[{"subnet": "10.1.0.0/24"}]]}, "dns": {"nameservers": '
            '["10.1.0.1"]}, "args": {}, "runtimeConfig": {}}',
    "prev-result": '{"cniVersion": "1.0.0", "name": "n", "type": '
                   '"pmdswitch", "bridge": "br0", "prevResult": '
                   '{"cniVersion": "1.0.0", "interfaces": [{"name": "pmd1"}, '
                   '{"name": "eth0", "sandbox": "/var/run/netns/x"}], '
                   '"ips": [{"address": "10.1.0.5/24", "gateway": '
                   '"10.1.0.1", "interface": 1}, {"address": '
                   '"fd00::5/64", "interface": 1}], "routes": [{"dst": '
                   '"0.0.0.0/0", "gw": "10.1.0.1", "mtu": 1400}]}}',
    "old-version": '{"cniVersion": "0.3.1", "name": "n", "type": '
                   '"pmdswitch", "bridge": "br0"}',
    "bad-version": '{"cniVersion": "9.9.9", "name": "n", "bridge": "b"}',
    "bad-mtu": '{"cniVersion": "1.0.0", "name": "n", "bridge": "b", '
               '"mtu": -1, "vlan": 5000}',
    "not-object": '["cniVersion"]',
    "truncated": '{"cniVersion": "1.0.0", "name": ',
}


def vxlan_payloads():
    """UDP payloads for the vxlan target: a header and an inner frame."""
    inner = eth(0x0806, arp())

    def hdr(vni, flags=0x08000000, low=0):
        return struct.pack("!II", flags, vni << 8 | low)

    return {
        "vni42-arp": hdr(42) + inner,
        "vni0-arp": hdr(0) + inner,
        "vni-max-arp": hdr(0xffffff) + inner,
        "vni42-ipv4-udp": hdr(42) + eth(0x0800, ipv4(17, udp())),
        "header-and-eth-only": hdr(42) + inner[:14],
        "truncated-inner": hdr(42) + inner[:13],
        "header-only": hdr(42),
        "empty": b"",
        "i-flag-clear": hdr(42, flags=0) + inner,
        "reserved-flag-bit": hdr(42, flags=0x08000001) + inner,
        "other-flag": hdr(42, flags=0x88000000) + inner,
        "reserved-vni-byte": hdr(42, low=5) + inner,
    }


def main():
    for name, data in vxlan_payloads().items():
        write("vxlan", name, data)
    for name, data in frames().items():
        write("miniflow", name, data)
    for name, text in CONFIGS.items():
        write("config", name + ".json", text)
    for name, text in REQUESTS.items():
        write("appctl", name, text)
    for name, text in CONFIG_EDITS.items():
        write("config-edit", name, text)
    for name, text in CNI_CONFS.items():
        write("cni-conf", name + ".json", text)
    for i, text in enumerate(MATCHES):
        write("rules", "match-%02d" % i, b"\x00" + text.encode())
    for i, text in enumerate(FLOWS):
        write("rules", "flow-%02d" % i, b"\x01" + text.encode())
    for i, (k, text) in enumerate(ACTIONS):
        write("rules", "actions-%02d" % i, bytes([2 + 3 * k])
              + text.encode())


if __name__ == "__main__":
    main()
