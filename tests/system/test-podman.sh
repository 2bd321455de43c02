#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.
# SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: podman containers on a pmdswitch bridge through the CNI
# plugin (utilities/pmdswitch-cni).  pmdswitchd runs with bridge br0, to
# which add-port gives an internal port "spod-gw" that the host addresses
# 10.79.60.1/24.  A podman network "psnet" of type "pmdswitch" with
# host-local IPAM is written to a CNI config directory of the test's own,
# beside a plugin directory holding the build's plugin as "pmdswitch" and
# the stock host-local and loopback plugins.  Two busybox containers,
# started detached from a root filesystem the test builds (busybox, and
# iperf3 with its libraries), must each get an address from host-local's
# range and show as a port in "list-ports br0"; they must ping each other,
# the host and be pinged by it, and carry an iperf3 TCP stream from one to
# the other.  Once they are stopped and removed, their ports, host-side
# veths, host-local leases, network namespaces and CNI cache entries must
# be gone, and the internal port's interface once the daemon stops.
#
# Then README's "Multi-host" steps: a second host (namespace spod-h2 on an
# underlay veth, 10.79.61.1 here and 10.79.61.2 there) with a pmdswitchd
# and a podman of its own; each host adds a vxlan port (VNI 42) towards
# the other with add-port, and the networks of both hosts (MTU 1450,
# ranges .10-.19 and .100-.119 of the shared subnet) put a container on
# host 2 on the same bridge: it must ping spod-c1 on host 1 both ways and
# carry iperf3 TCP from it.
#
# Podman runs with a containers.conf, storage.conf, storage root and run
# root of the test's own (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF,
# --root, --runroot): nothing in /etc/containers, /var/lib/containers or
# /dev/shm is touched.  The test skips, with podman's own error, where
# podman cannot run a container at all.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

CNI_DIR=/usr/lib/cni
PLUGIN=$PS_BUILD/utilities/pmdswitch-cni
BUSYBOX=/bin/busybox
SUBNET=10.79.60
HOST_ADDR=$SUBNET.1

ps_require_root
ps_require_cmds ip podman runc conmon catatonit iperf3 python3 jq ldd chroot findmnt ethtool nsenter
ps_require_daemon
[[ -x "$PLUGIN" ]] || ps_skip "$PLUGIN not built"
for p in host-local loopback; do
    [[ -x "$CNI_DIR/$p" ]] ||
        ps_skip "$CNI_DIR/$p is not installed (containernetworking-plugins)"
done
[[ -x "$BUSYBOX" ]] || ps_skip "$BUSYBOX is not installed (busybox-static)"
ps_setup spod

# Short: podman's and conmon's socket paths under it are limited to 107
# bytes.
D=$(mktemp -d /tmp/spod.XXXXXX)
ps_record_dir "$D"
ps_info "podman state in $D"

# Podman with the test's own configuration and storage, as a command (for
# timeout) and as a function.
PODMAN=(env "CONTAINERS_CONF=$D/containers.conf"
        "CONTAINERS_STORAGE_CONF=$D/storage.conf" "TMPDIR=$D/tmp"
        podman --root "$D/storage" --runroot "$D/run" --storage-driver vfs
        --network-config-dir "$D/net.d")
spod_podman()
{
    "${PODMAN[@]}" "$@"
}

# Host 2 of the multi-host part: its namespace, and its podman with a
# state directory of its own, run inside the namespace.
H2=spod-h2
PODMAN2=(env "CONTAINERS_CONF=$D/h2/containers.conf"
         "CONTAINERS_STORAGE_CONF=$D/h2/storage.conf" "TMPDIR=$D/h2/tmp"
         podman --root "$D/h2/storage" --runroot "$D/h2/run"
         --storage-driver vfs --network-config-dir "$D/h2/net.d")
# nsenter, not "ip netns exec": that remounts /sys, and runc then finds no
# cgroup mount.
spod_podman2()
{
    nsenter --net="/run/netns/$H2" "${PODMAN2[@]}" "$@"
}

# spod_cleanup: removes every container in the test's storage (their
# network teardown deletes their ports while the daemon still runs) and
# unmounts whatever podman left mounted under $D.  Never fails.
spod_cleanup()
{
    local m
    if [[ -f "$D/h2/containers.conf" ]] && [[ -e /run/netns/$H2 ]]; then
        timeout 60 nsenter --net="/run/netns/$H2" "${PODMAN2[@]}" rm --all --force \
            --time 0 >/dev/null 2>&1 || ps_info "host 2: podman rm failed"
    fi
    if [[ -f "$D/containers.conf" ]]; then
        timeout 60 "${PODMAN[@]}" rm --all --force --time 0 >/dev/null 2>&1 ||
            ps_info "podman rm --all failed"
    fi
    findmnt -rn -o TARGET | grep "^$D/" | sort -r | while read -r m; do
        umount -l "$m" 2>/dev/null || true
    done
}

spod_on_exit()
{
    local rc=$?
    set +e
    spod_cleanup
    ps_finish "$rc"
}
trap spod_on_exit EXIT

# --------------------------------------------------------------------------
# The root filesystem: static busybox with its applets, iperf3 and the
# shared libraries it needs (whatever ldd lists, so a dynamic busybox
# works too).
ROOTFS=$D/rootfs
mkdir -p "$ROOTFS"/{bin,etc,dev,proc,sys,run,tmp}
chmod 1777 "$ROOTFS/tmp"
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
cp "$(command -v iperf3)" "$ROOTFS/bin/iperf3"
# ldd fails on a static binary.
libs=$( (ldd "$BUSYBOX" || true; ldd "$(command -v iperf3)") 2>/dev/null |
       awk '$2 == "=>" && $3 ~ /^\// { print $3 }
            $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' | sort -u)
for lib in $libs; do
    mkdir -p "$ROOTFS$(dirname "$lib")"
    cp -L "$lib" "$ROOTFS$lib"
done
chroot "$ROOTFS" /bin/busybox --install -s /bin
echo 'root:x:0:0:root:/:/bin/sh' >"$ROOTFS/etc/passwd"
echo 'root:x:0:' >"$ROOTFS/etc/group"
chroot "$ROOTFS" /bin/iperf3 --version >/dev/null ||
    ps_fail "iperf3 does not run in $ROOTFS"

# --------------------------------------------------------------------------
# Podman's configuration.  Podman asks runc for RLIMIT_NOFILE 1048576 and
# an RLIMIT_NPROC above its own by default, which a root without
# CAP_SYS_RESOURCE (a hard RLIMIT_NOFILE of 20000 on the CI machines) may
# not set: runc fails with "error setting rlimits for ready process ...
# operation not permitted".  Lowering a limit needs no privilege, so ask
# for both, within the current ones.
nofile=$(ulimit -Hn)
if [[ $nofile == unlimited ]] || ((nofile > 4096)); then
    nofile=4096
fi
mkdir -p "$D/net.d" "$D/plugins" "$D/ipam" "$D/tmp"
cat >"$D/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]
init_path = "/usr/libexec/podman/catatonit"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$D/events.log"
lock_type = "file"
tmp_dir = "$D/run/libpod"
static_dir = "$D/storage/libpod"
volume_path = "$D/storage/volumes"

[network]
network_backend = "cni"
network_config_dir = "$D/net.d"
cni_plugin_dirs = ["$D/plugins"]
default_network = "psnet"
EOF
cat >"$D/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$D/storage"
runroot = "$D/run"
EOF

if ! out=$(spod_podman run --rm --network none --rootfs "$ROOTFS" \
               /bin/true 2>&1); then
    printf '%s\n' "$out" >&2
    ps_skip "podman cannot run a container here: $(tail -n 1 <<<"$out")"
fi
ps_info "ok: podman runs a container from $ROOTFS"

# --------------------------------------------------------------------------
# The switch, its internal port, and the CNI network.
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET"
ps_start_daemon "$CONFIG"

# The host's side of the bridge: an internal port, whose interface the
# daemon makes in its own namespace.
GW=spod-gw
ps_record_link "$GW"
ps_appctl add-port br0 "$GW" type=internal
ip link show dev "$GW" >/dev/null 2>&1 || ps_fail "the daemon made no $GW"
ip link set dev "$GW" up
ip addr add "$HOST_ADDR/24" dev "$GW"
ps_info "ok: internal port $GW, host address $HOST_ADDR"

install -m 0755 "$PLUGIN" "$D/plugins/pmdswitch"
ln -s "$CNI_DIR/host-local" "$D/plugins/host-local"
ln -s "$CNI_DIR/loopback" "$D/plugins/loopback"
cat >"$D/net.d/psnet.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "psnet",
  "plugins": [
    {
      "type": "pmdswitch",
      "bridge": "br0",
      "socket": "$PS_DAEMON_CTL",
      "mtu": 1450,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$SUBNET.0/24", "rangeStart": "$SUBNET.10",
                     "rangeEnd": "$SUBNET.19", "gateway": "$HOST_ADDR"}]],
        "dataDir": "$D/ipam"
      }
    }
  ]
}
EOF
cp "$D/net.d/psnet.conflist" "$PS_LOG_DIR/"
ps_assert_eq "podman networks" psnet \
    "$(spod_podman network ls --format '{{.Name}}' | grep -x psnet)"

# --------------------------------------------------------------------------
# Two containers.
declare -A ADDR NETNS VETH CID
for c in spod-c1 spod-c2; do
    CID[$c]=$(spod_podman run -d --init --name "$c" --network psnet \
                  --rootfs "$ROOTFS" sleep 600)
    # For run.sh's fallback cleanup, should the test be killed outright:
    # conmon, the container's processes and its network namespace.
    ps_record_pid "$(spod_podman inspect -f '{{.State.ConmonPid}}' "$c")"
    ps_record_pid "$(spod_podman inspect -f '{{.State.Pid}}' "$c")"
    NETNS[$c]=$(basename "$(spod_podman inspect \
                                -f '{{.NetworkSettings.SandboxKey}}' "$c")")
    ps_record_ns "${NETNS[$c]}"
    ADDR[$c]=$(spod_podman inspect \
                   -f '{{(index .NetworkSettings.Networks "psnet").IPAddress}}' "$c")
    [[ ${ADDR[$c]} =~ ^$SUBNET\.1[0-9]$ ]] ||
        ps_fail "$c: address '${ADDR[$c]}' is not from host-local's range"
    [[ -f "$D/ipam/psnet/${ADDR[$c]}" ]] ||
        ps_fail "$c: host-local has no lease file for ${ADDR[$c]}"
    grep -q "${CID[$c]}" "$D/ipam/psnet/${ADDR[$c]}" ||
        ps_fail "$c: the lease of ${ADDR[$c]} is not the container's"
    # The host side of the container's veth: the interface whose index is
    # the peer index of the container's eth0.
    peer=$(spod_podman exec "$c" cat /sys/class/net/eth0/iflink)
    VETH[$c]=$(ip -o link show | awk -F': ' -v i="$peer" \
                   '$1 == i { sub(/@.*/, "", $2); print $2 }')
    [[ -n "${VETH[$c]}" ]] || ps_fail "$c: no host interface with index $peer"
    ps_record_link "${VETH[$c]}"
    ps_info "ok: $c (${CID[$c]:0:12}) has ${ADDR[$c]}, netns ${NETNS[$c]}," \
        "host veth ${VETH[$c]}"
done
A1=${ADDR[spod-c1]}
A2=${ADDR[spod-c2]}
[[ $A1 != "$A2" ]] || ps_fail "both containers got $A1"

# spod_ports: the names and interfaces of br0's ports, one a line.
spod_ports()
{
    ps_appctl -f json list-ports br0 |
        jq -r '.ports[] | .name, (.interface // empty)' | sort -u
}

ports=$(spod_ports)
ps_appctl list-ports br0 >"$PS_LOG_DIR/list-ports.out"
for c in spod-c1 spod-c2; do
    grep -qx -- "${VETH[$c]}" <<<"$ports" ||
        ps_fail "list-ports br0 does not show ${VETH[$c]} of $c: $ports"
done
ps_assert_eq "ports on br0" 3 \
    "$(ps_appctl -f json list-ports br0 | jq '.ports | length')"
ps_info "ok: list-ports br0 shows ${VETH[spod-c1]} and ${VETH[spod-c2]}"

# spod_ping CONTAINER COUNT DST: busybox ping inside CONTAINER; fails
# unless every echo got its reply within 10 s.
spod_ping()
{
    local c=$1 count=$2 dst=$3 out rx
    out=$(spod_podman exec "$c" ping -q -c "$count" -i 0.1 -w 10 "$dst" \
              2>&1) || true
    rx=$(sed -n 's/.* \([0-9][0-9]*\) packets received.*/\1/p' <<<"$out")
    if [[ -z "$rx" ]] || ((rx < count)); then
        printf '%s\n' "$out" >&2
        ps_fail "ping $dst from $c: ${rx:-0} of $count replies"
    fi
    ps_info "ok: ping $dst from $c: $count of $count replies," \
        "$(grep -o 'round-trip.*' <<<"$out")"
}

spod_ping spod-c1 5 "$A2"
spod_ping spod-c2 5 "$A1"
spod_ping spod-c1 3 "$HOST_ADDR"
spod_ping spod-c2 3 "$HOST_ADDR"
out=$(ping -n -q -c 3 -i 0.1 -w 10 -I "$GW" "$A2" 2>&1) ||
    { printf '%s\n' "$out" >&2; ps_fail "ping $A2 from the host failed"; }
ps_info "ok: ping $A2 from the host: $(grep -o '[0-9]* received' <<<"$out")"

# iperf3 TCP from spod-c1 to a one-shot server in spod-c2.
spod_podman exec -d spod-c2 iperf3 -s -1 -B "$A2" >/dev/null
ps_wait_until 5 ps_tcp_listening "${NETNS[spod-c2]}" 5201 ||
    ps_fail "iperf3 server in spod-c2 did not start"
out=$PS_LOG_DIR/iperf3.json
timeout 30 "${PODMAN[@]}" exec spod-c1 iperf3 -c "$A2" -t 3 -J \
    --connect-timeout 5000 >"$out" || ps_fail "iperf3 spod-c1 -> $A2 failed"
read -r bytes gbps < <(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["end"]["sum_received"]
print(s["bytes"], "%.2f" % (s["bits_per_second"] / 1e9))' "$out")
ps_info "iperf3 TCP spod-c1 -> spod-c2: $bytes bytes, $gbps Gbit/s"
((bytes > 1000000)) || ps_fail "iperf3 moved only $bytes bytes"

# --------------------------------------------------------------------------
# README's "Multi-host": a second host on a VXLAN overlay.
ps_add_ns "$H2"
ps_add_veth_to_ns "$H2" ul0 spod-ul 10.79.61.2/24
ip addr add 10.79.61.1/24 dev spod-ul
# Checksums finished before the veth, as a NIC would on the wire (README).
ethtool -K spod-ul tx off >/dev/null
ip netns exec "$H2" ethtool -K ul0 tx off >/dev/null
ps_appctl add-port br0 vx0 type=vxlan options:remote_ip=10.79.61.2 \
    options:key=42 options:local_ip=10.79.61.1

H2_CTL=$D/h2/pmdswitchd.ctl
H2_PIDFILE=$PS_LOG_DIR/pmdswitchd-h2.pid
mkdir -p "$D/h2/net.d" "$D/h2/ipam" "$D/h2/tmp"
cat >"$PS_LOG_DIR/h2.json" <<EOF
{"bridges": [{"name": "br0", "ports": []}],
 "other_config": {"use-tpacket-v3": $PS_TPACKET, "pmd-cpu-mask": "0x2"}}
EOF
ip netns exec "$H2" "$PS_DAEMON" --config "$PS_LOG_DIR/h2.json" \
    --pidfile="$H2_PIDFILE" --log-file="$PS_LOG_DIR/pmdswitchd-h2.log" \
    --unixctl="$H2_CTL" --detach 2>"$PS_LOG_DIR/pmdswitchd-h2.stderr" ||
    ps_fail "pmdswitchd on host 2 did not start"
ps_record_pid "$(cat "$H2_PIDFILE")"
h2_appctl()
{
    "$PS_BUILD/utilities/pmdswitch-appctl" -t "$H2_CTL" "$@"
}
h2_appctl add-port br0 vx0 type=vxlan options:remote_ip=10.79.61.1 \
    options:key=42
sed -e "s|$D/containers.conf|$D/h2/containers.conf|" \
    -e "s|$D/net.d|$D/h2/net.d|" -e "s|\"$D/run|\"$D/h2/run|" \
    -e "s|\"$D/storage|\"$D/h2/storage|" -e "s|$D/events.log|$D/h2/events.log|" \
    "$D/containers.conf" >"$D/h2/containers.conf"
sed -e "s|$D/|$D/h2/|" "$D/storage.conf" >"$D/h2/storage.conf"
sed -e "s|\"$PS_DAEMON_CTL\"|\"$H2_CTL\"|" -e "s|$SUBNET.10\"|$SUBNET.100\"|" \
    -e "s|$SUBNET.19\"|$SUBNET.119\"|" -e "s|\"gateway\": \"$HOST_ADDR\"|\"gateway\": \"$SUBNET.2\"|" \
    -e "s|$D/ipam|$D/h2/ipam|" "$D/net.d/psnet.conflist" \
    >"$D/h2/net.d/psnet.conflist"
cp "$D/h2/net.d/psnet.conflist" "$PS_LOG_DIR/psnet-h2.conflist"
R1=spod-r1
spod_podman2 run -d --init --name "$R1" --network psnet --rootfs "$ROOTFS" \
    sleep 600 >/dev/null || ps_fail "podman on host 2 could not start $R1"
ps_record_pid "$(spod_podman2 inspect -f '{{.State.ConmonPid}}' "$R1")"
ps_record_pid "$(spod_podman2 inspect -f '{{.State.Pid}}' "$R1")"
R1_NETNS=$(basename "$(spod_podman2 inspect \
                           -f '{{.NetworkSettings.SandboxKey}}' "$R1")")
ps_record_ns "$R1_NETNS"
AR=$(spod_podman2 inspect \
         -f '{{(index .NetworkSettings.Networks "psnet").IPAddress}}' "$R1")
[[ $AR =~ ^$SUBNET\.1[01][0-9]$ ]] ||
    ps_fail "$R1: address '$AR' is not from host 2's range"
ps_info "ok: $R1 on host 2 has $AR"
spod_ping spod-c1 5 "$AR"
out=$(spod_podman2 exec "$R1" ping -q -c 5 -i 0.1 -w 10 "$A1" 2>&1) ||
    { printf '%s\n' "$out" >&2; ps_fail "ping $A1 from $R1 (host 2) failed"; }
ps_info "ok: ping $A1 from $R1 on host 2: $(grep -o '[0-9]* packets received' <<<"$out")"
spod_podman2 exec -d "$R1" iperf3 -s -1 -B "$AR" >/dev/null
ps_wait_until 5 ps_tcp_listening "$R1_NETNS" 5201 ||
    ps_fail "iperf3 server in $R1 did not start"
out=$PS_LOG_DIR/iperf3-multihost.json
timeout 30 "${PODMAN[@]}" exec spod-c1 iperf3 -c "$AR" -t 3 -J \
    --connect-timeout 5000 >"$out" || ps_fail "iperf3 spod-c1 -> $AR failed"
read -r bytes gbps < <(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["end"]["sum_received"]
print(s["bytes"], "%.2f" % (s["bits_per_second"] / 1e9))' "$out")
ps_info "iperf3 TCP spod-c1 (host 1) -> $R1 (host 2): $bytes bytes, $gbps Gbit/s"
((bytes > 1000000)) || ps_fail "iperf3 across hosts moved only $bytes bytes"
ps_appctl dpctl/show >"$PS_LOG_DIR/dpctl-show-multihost.out"
spod_podman2 rm -f -t 0 "$R1" >/dev/null
ps_assert_eq "ports on host 2's br0 after podman rm" vx0 \
    "$(h2_appctl list-ports br0)"
kill -TERM "$(cat "$H2_PIDFILE")"
ps_wait_until 5 test ! -e "$H2_PIDFILE" ||
    ps_fail "pmdswitchd on host 2 did not stop"
ps_appctl del-port br0 vx0

# --------------------------------------------------------------------------
# Stop and remove: ports, veths, leases, namespaces and cache entries go.
spod_podman stop -t 5 spod-c1 spod-c2 >/dev/null
spod_podman rm spod-c1 spod-c2 >/dev/null
ps_assert_eq "containers left" "" "$(spod_podman ps -a -q)"
ports=$(spod_ports)
for c in spod-c1 spod-c2; do
    if grep -qx -- "${VETH[$c]}" <<<"$ports"; then
        ps_fail "list-ports br0 still shows ${VETH[$c]} of $c: $ports"
    fi
    if ip link show dev "${VETH[$c]}" >/dev/null 2>&1; then
        ps_fail "${VETH[$c]} of $c is still there"
    fi
    if [[ -e "$D/ipam/psnet/${ADDR[$c]}" ]]; then
        ps_fail "host-local still holds ${ADDR[$c]} of $c"
    fi
    if [[ -e /run/netns/${NETNS[$c]} ]]; then
        ps_fail "network namespace ${NETNS[$c]} of $c is still there"
    fi
    if compgen -G "/var/lib/cni/results/psnet-${CID[$c]}-*" >/dev/null; then
        ps_fail "the CNI cache still has a result for $c"
    fi
done
ps_assert_eq "ports on br0 after podman rm" "$GW" "$(ps_appctl list-ports br0)"
ps_info "ok: ports, veths, leases, namespaces and CNI cache entries are gone"

ps_stop_daemon
if ip link show dev "$GW" >/dev/null 2>&1; then
    ps_fail "$GW is still there after the daemon stopped"
fi
ps_check_log
ps_info "PASS"
