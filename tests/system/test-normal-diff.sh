#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: NORMAL forwards, and mirrors copy, as Open vSwitch's do.
# Nine namespaces sit on a nine-port VLAN bridge:
#
#   1  p1  access 10          2  p2  access 10          3  p3  access 20
#   4  p4  trunk 10,20        5  p5  native-untagged 10, trunks 20
#   6  p6  access 30          7  p7  trunk (all VLANs)
#   8  p8  native-untagged 20, trunks 10          9  p9  native-tagged 10
#
# Ports 6-9 are the output ports of six mirrors (MIRRORS below):
# select_src_port and select_dst_port, two mirrors to one output,
# select_vlan on access, trunk and native ports, select_all with and
# without VLANs.  tests/system/normal-diff.py sends a script of 49 raw
# frames from the namespaces (unknown and known unicast, broadcast,
# multicast, MAC moves, tagged frames into access ports, allowed and other
# trunk VIDs, priority tags, QinQ, PCP and DEI, reserved multicast, frames
# into mirror output ports) and records which hosts receive each one, with
# its tags, PCP and DEI as they come off the wire: NORMAL's deliveries and
# the mirrors' copies alike.
# The script runs once through pmdswitchd and once through Open vSwitch's
# ovs-vswitchd with the userspace datapath (datapath_type=netdev, from
# Debian's openvswitch-switch), started here with a database of its own in
# the test's log directory, never through systemd.  Every difference
# fails, except the frames listed in tests/system/normal-diff-allow.txt,
# where pmdswitch is deliberately right and Open vSwitch is not.
# Provider-independent.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip python3 ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl \
    ovs-appctl
ps_require_daemon
ps_setup sndiff

HOSTS=
for i in 1 2 3 4 5 6 7 8 9; do
    ps_add_quiet_ns "sndiff-h$i"
    ps_add_veth_to_ns "sndiff-h$i" eth0 "sndiff-p$i"
    HOSTS+="${HOSTS:+,}sndiff-h$i:eth0"
done

# Same VLAN settings and mirrors in both switches.
ps_write_config "$PS_LOG_DIR/pmdswitchd.json" "$PS_TPACKET" \
    p1=sndiff-p1,tag=10 p2=sndiff-p2,tag=10 p3=sndiff-p3,tag=20 \
    p4=sndiff-p4,vlan_mode=trunk,trunks=10:20 \
    p5=sndiff-p5,vlan_mode=native-untagged,tag=10,trunks=20 \
    p6=sndiff-p6,tag=30 p7=sndiff-p7,vlan_mode=trunk \
    p8=sndiff-p8,vlan_mode=native-untagged,tag=20,trunks=10 \
    p9=sndiff-p9,vlan_mode=native-tagged,tag=10
OVS_PORTS=(
    "sndiff-p1 tag=10"
    "sndiff-p2 tag=10"
    "sndiff-p3 tag=20"
    "sndiff-p4 vlan_mode=trunk trunks=10,20"
    "sndiff-p5 vlan_mode=native-untagged tag=10 trunks=20"
    "sndiff-p6 tag=30"
    "sndiff-p7 vlan_mode=trunk"
    "sndiff-p8 vlan_mode=native-untagged tag=20 trunks=10"
    "sndiff-p9 vlan_mode=native-tagged tag=10"
)
# The mirrors: name, source ports, destination ports, VLANs, output port,
# by port number ("*": select_all; "-": no ports, or every VLAN).
MIRRORS=(
    "m0 1 3 - 6"
    "m1 2 1 - 6"
    "m2 - 4 - 7"
    "m3 4,5 - 10 7"
    "m4 * * 20 8"
    "m5 * * - 9"
)
python3 - "$PS_LOG_DIR/pmdswitchd.json" "${MIRRORS[@]}" <<'EOF'
import json
import sys

path = sys.argv[1]
with open(path) as f:
    config = json.load(f)
mirrors = []
for spec in sys.argv[2:]:
    name, srcs, dsts, vlans, out = spec.split()
    m = {"name": name, "output_port": "p" + out}
    if srcs == "*":
        m["select_all"] = True
    else:
        for key, ports in (("select_src_port", srcs),
                           ("select_dst_port", dsts)):
            if ports != "-":
                m[key] = ["p" + p for p in ports.split(",")]
    if vlans != "-":
        m["select_vlan"] = [int(v) for v in vlans.split(",")]
    mirrors.append(m)
config["bridges"][0]["mirrors"] = mirrors
with open(path, "w") as f:
    json.dump(config, f, indent=2)
EOF

# Through pmdswitch.
ps_start_daemon "$PS_LOG_DIR/pmdswitchd.json"
python3 "$PS_LIB_DIR/normal-diff.py" run --hosts "$HOSTS" \
    --out "$PS_LOG_DIR/pmdswitch.json" ||
    ps_fail "normal-diff.py run failed through pmdswitch"
ps_stop_daemon
ps_check_log

# Through Open vSwitch, with everything under one private directory (unix
# socket paths must stay short, so not the log directory itself).
OVS=$(mktemp -d /tmp/sndiff-ovs.XXXXXX)
ps_record_dir "$OVS"
ovsdb-tool create "$OVS/conf.db" /usr/share/openvswitch/vswitch.ovsschema
ps_bg ovsdb-server ovsdb-server "$OVS/conf.db" \
    --remote="punix:$OVS/db.sock" --unixctl="$OVS/ovsdb.ctl" \
    --log-file="$OVS/ovsdb-server.log" -vconsole:off
ps_wait_until 10 test -S "$OVS/db.sock" ||
    ps_fail "ovsdb-server did not create $OVS/db.sock"
VSCTL=(ovs-vsctl --db="unix:$OVS/db.sock" --timeout=10)
"${VSCTL[@]}" --no-wait init
# One PMD thread, on the core pmdswitchd's PMD had.
"${VSCTL[@]}" --no-wait set Open_vSwitch . \
    other_config:pmd-cpu-mask="${PS_PMD_MASK:-0x2}"
ps_bg ovs-vswitchd ovs-vswitchd "unix:$OVS/db.sock" \
    --unixctl="$OVS/vswitchd.ctl" --log-file="$OVS/ovs-vswitchd.log" \
    -vconsole:off
# The bridge's internal port is a tap device in this namespace.
ps_record_link sndiff-br
"${VSCTL[@]}" add-br sndiff-br -- set bridge sndiff-br datapath_type=netdev
for p in "${OVS_PORTS[@]}"; do
    read -r -a words <<<"$p"
    "${VSCTL[@]}" add-port sndiff-br "${words[@]}"
done
# The same mirrors, one transaction each: ovs-vsctl waits until
# ovs-vswitchd has applied each, so that Open vSwitch numbers them in this
# order, as pmdswitch does, rather than in the order of their UUIDs (the
# order matters where one mirror's copy is an output another mirror
# selects).
for spec in "${MIRRORS[@]}"; do
    read -r name srcs dsts vlans out <<<"$spec"
    m=(create Mirror "name=$name" "output-port=@p$out")
    if [[ $srcs == '*' ]]; then
        m+=(select-all=true)
    else
        [[ $srcs == - ]] || m+=("select-src-port=@p${srcs//,/,@p}")
        [[ $dsts == - ]] || m+=("select-dst-port=@p${dsts//,/,@p}")
    fi
    [[ $vlans == - ]] || m+=("select-vlan=$vlans")
    ports=()
    for i in $(tr -c '0-9' '\n' <<<"$srcs $dsts $out" | sort -un); do
        ports+=(-- "--id=@p$i" get Port "sndiff-p$i")
    done
    "${VSCTL[@]}" "${ports[@]}" -- "--id=@$name" "${m[@]}" \
        -- add Bridge sndiff-br mirrors "@$name" >/dev/null
done
ovs_ports_up()
{
    local p n
    for p in 1 2 3 4 5 6 7 8 9; do
        n=$("${VSCTL[@]}" get Interface "sndiff-p$p" ofport)
        [[ $n =~ ^[1-9][0-9]*$ ]] || return 1
    done
}
ps_wait_until 20 ovs_ports_up ||
    ps_fail "Open vSwitch did not take the ports: $("${VSCTL[@]}" show)"
python3 "$PS_LIB_DIR/normal-diff.py" run --hosts "$HOSTS" \
    --out "$PS_LOG_DIR/ovs.json" \
    --settle "ovs-appctl -t $OVS/vswitchd.ctl revalidator/wait" ||
    ps_fail "normal-diff.py run failed through Open vSwitch"
cp "$OVS"/*.log "$PS_LOG_DIR/" 2>/dev/null || true

python3 "$PS_LIB_DIR/normal-diff.py" compare "$PS_LOG_DIR/ovs.json" \
    "$PS_LOG_DIR/pmdswitch.json" "$PS_LIB_DIR/normal-diff-allow.txt" ||
    ps_fail "pmdswitch and Open vSwitch forward differently (see above)"
ps_info "PASS"
