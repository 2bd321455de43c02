#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: a VM's tap, held by its hypervisor, as a plain port.  QEMU
# (or libvirt) creates the tap and holds its descriptor; pmdswitch attaches
# the tap's kernel side as a "system" port and polls it over its packet
# socket, like a veth.  tests/system/vm-tap.py plays the hypervisor: it
# creates the tap svm-tap and relays between its descriptor and a veth
# into namespace G, the "guest", which has eth0 10.79.31.2/24.  Namespace A
# sits behind a veth port with 10.79.31.1/24.
#
# Ping works both ways, and sequence-numbered UDP streams both ways lose
# and duplicate nothing (reordering is reported).  Then the VM restarts:
# the hypervisor exits, its tap goes with it and the port shows "missing";
# a new hypervisor makes the tap again and the port comes back by itself,
# and ping works again.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3 ethtool
ps_require_daemon
ps_setup svm

A=svm-a
G=svm-g
TAP=svm-tap
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$G"
ps_add_veth_to_ns "$A" eth0 svm-a-sw 10.79.31.1/24
ps_add_veth_between "$G" eth0 "$G" wire
ps_ns "$G" ip addr add 10.79.31.2/24 dev eth0
# A tap without a vnet header takes whole frames with their checksums
# done; a virtio guest negotiates the same.
ps_ns "$G" ethtool -K eth0 tx off >/dev/null
ps_record_link "$TAP"

# start_vm: starts the hypervisor stand-in and waits for its tap.
start_vm()
{
    rm -f -- "$PS_LOG_DIR/vm.ready"
    ps_bg vm python3 "$PS_LIB_DIR/vm-tap.py" "$TAP" "$G" wire \
        "$PS_LOG_DIR/vm.ready"
    VM_PID=$PS_BG_PID
    ps_wait_until 5 test -e "$PS_LOG_DIR/vm.ready" ||
        ps_fail "vm-tap.py did not start: $(cat "$PS_LOG_DIR/vm.out")"
    echo 1 >"/proc/sys/net/ipv6/conf/$TAP/disable_ipv6"
    ip link set dev "$TAP" up
}

# port_state: the tap port's state in dpctl/show.
port_state()
{
    ps_appctl -f json dpctl/show | python3 -c 'import json, sys
d = json.load(sys.stdin)
print([p for p in d["ports"] if p["name"] == "vm"][0]["state"])'
}

is_state()
{
    [[ $(port_state) == "$1" ]]
}

start_vm
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" a=svm-a-sw vm="$TAP"
ps_start_daemon "$CONFIG"
PS_LOG_ALLOW+=("port vm: interface $TAP is gone")

ps_ping_all "$A" 20 10.79.31.2
ps_ping_all "$G" 20 10.79.31.1
# stream FROM TO ADDR LABEL: 3 s of 2,000 datagrams a second, to the end.
stream()
{
    ps_start_seq_stream "$1" "$2" "$3" 2000 3
    ps_wait_until 10 ps_exited "$PS_SEQ_SEND" ||
        ps_fail "the stream from $1 did not end"
    ps_end_seq_stream "$4" 3000
}

stream "$A" "$G" 10.79.31.2 "A to the VM"
stream "$G" "$A" 10.79.31.1 "the VM to A"

# The VM restarts: its tap goes and comes back under the same name.
ps_kill_bg "$VM_PID"
ps_wait_until 5 is_state missing ||
    ps_fail "the port is $(port_state), not missing, without its tap"
start_vm
ps_wait_until 5 is_state up ||
    ps_fail "the port is $(port_state), not up, with its tap back"
ps_ns "$A" ip neigh flush dev eth0
ps_ping_all "$A" 10 10.79.31.2

ps_stop_daemon
ps_check_log
ps_info "PASS"
