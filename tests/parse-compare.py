#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
#
# Compares, field by field, two parses of the same capture: the lines of
# "ovs-ofctl parse-pcap" and of "pmdswitch-parse-pcap", one per frame.
# A line is a protocol shorthand ("tcp6", "arp", ...) and "name=value"
# items; the shorthand is compared as the field "protocol".  Every
# difference is printed with its frame number, the frame's label and the
# field; a summary counts the frames that differ in each family.
#
# ALLOWLIST names the protocols that pmdswitch leaves unparsed on purpose.
# Each line is "FIELD=VALUE  reason" ('#' starts a comment): a frame whose
# ovs-ofctl line has that field and value is compared on its Ethernet and
# VLAN fields only, and counted as allowed.
#
# usage: tests/parse-compare.py LABELS OVS-OUTPUT PMDSWITCH-OUTPUT ALLOWLIST
# Exit status: 0 when every difference is allowed, 1 otherwise.
import collections
import sys


def fields(line):
    """The fields of one output line, as a dict."""
    result = {}
    for item in line.strip().split(","):
        if not item:
            continue
        name, sep, value = item.partition("=")
        if sep:
            result[name] = value
        else:
            result["protocol"] = name
    return result


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


# The fields compared in a frame of an allow-listed protocol.
L2_FIELDS = {"in_port", "dl_src", "dl_dst", "vlan_tci", "dl_vlan",
             "dl_vlan_pcp", "vlan_tci1", "dl_vlan1", "dl_vlan_pcp1"}


def read_allowlist(path):
    """Maps (field, value) to the reason it is out of scope."""
    allowed = {}
    for line in read_lines(path):
        line = line.split("#", 1)[0].strip()
        if line:
            item, _, reason = line.partition(" ")
            name, _, value = item.partition("=")
            allowed[(name, value)] = reason.strip()
    return allowed


def allowed_by(allowed, o):
    """The allow-list entry that covers the frame whose ovs-ofctl fields
    are 'o', or None."""
    for key in allowed:
        if o.get(key[0]) == key[1]:
            return key
    return None


def main():
    if len(sys.argv) != 5:
        sys.stderr.write("usage: %s LABELS OVS-OUTPUT PMDSWITCH-OUTPUT "
                         "ALLOWLIST\n" % sys.argv[0])
        return 2
    labels = read_lines(sys.argv[1])
    ovs = read_lines(sys.argv[2])
    pmd = read_lines(sys.argv[3])
    allowed = read_allowlist(sys.argv[4])

    if not (len(labels) == len(ovs) == len(pmd)):
        print("FAIL line counts differ: %d frames, %d lines from "
              "ovs-ofctl, %d from pmdswitch-parse-pcap"
              % (len(labels), len(ovs), len(pmd)))
        return 1

    per_family = collections.Counter()
    frames_by_family = collections.Counter()
    allowed_hits = collections.Counter()
    n_bad = 0
    for i, (label, o_line, p_line) in enumerate(zip(labels, ovs, pmd)):
        family = label.split(":", 1)[0]
        frames_by_family[family] += 1
        o, p = fields(o_line), fields(p_line)
        entry = allowed_by(allowed, o)
        names = set(o) | set(p)
        if entry:
            allowed_hits[entry] += 1
            names &= L2_FIELDS
        bad = False
        for name in sorted(names):
            ov, pv = o.get(name, "(absent)"), p.get(name, "(absent)")
            if ov == pv:
                continue
            print("frame %d (%s): %s: ovs-ofctl %s, pmdswitch %s"
                  % (i + 1, label, name, ov, pv))
            bad = True
        if bad:
            per_family[family] += 1
            n_bad += 1

    for family in sorted(frames_by_family):
        print("%-14s %5d frames, %5d differ"
              % (family, frames_by_family[family], per_family[family]))
    for key in sorted(allowed_hits):
        print("allowed: %d frames with %s=%s compared on layer 2 only (%s)"
              % (allowed_hits[key], key[0], key[1], allowed[key]))
    print("%d frames, %d with a difference that is not allowed"
          % (len(labels), n_bad))
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
