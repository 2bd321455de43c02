#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# File descriptors and CPUs.  A port opens one tx queue (two sockets) per
# PMD, not one per online CPU: as root the daemon runs in a mount namespace where
# /sys/devices/system/cpu/online claims 256 CPUs, elsewhere on the
# machine's own; a pmd-cpu-mask with more PMDs reopens the ports with more
# queues, and one naming a core the daemon may not run on is refused.  The
# daemon starts under a soft descriptor limit of 256 and raises it to the
# hard limit (4096 here).  With the limit then lowered to a few free
# descriptors, adding ports fails with an error that names the port and
# the limit, counted as port_open_no_fds, and the daemon holds exactly the
# descriptors it held before the failed port.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmfd
ps_require_cmds prlimit

REAL_DAEMON=$PS_DAEMON
WRAPPER=$PS_LOG_DIR/pmdswitchd
FAKE_CPUS=
if [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
    FAKE_CPUS=256
    printf '0-%d\n' $((FAKE_CPUS - 1)) >"$PS_LOG_DIR/online"
    # sh -c: $0 is the fake file, "$@" the daemon and its arguments.
    printf '#!/bin/bash\nexec prlimit --nofile=256:4096 -- unshare -m sh -c %q %q %q "$@"\n' \
        'mount --bind "$0" /sys/devices/system/cpu/online && exec "$@"' \
        "$PS_LOG_DIR/online" "$REAL_DAEMON" >"$WRAPPER"
else
    ps_info "not root: the daemon sees the machine's own CPUs"
    printf '#!/bin/bash\nexec prlimit --nofile=256:4096 -- %q "$@"\n' \
        "$REAL_DAEMON" >"$WRAPPER"
fi
chmod +x "$WRAPPER"
PS_DAEMON=$WRAPPER

dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p2)"
dm_start

# n_txq PORT: the tx queues PORT has open.
n_txq()
{
    dm_json dpctl/show -- "[p for p in j['ports'] if p['name'] == '$1'][0]['n_txq']"
}

# n_clients: how many appctl connections the daemon still holds (its
# connected unix sockets; the listening one is not counted).  A client
# that has its reply may exit before the daemon sees it close.
n_clients()
{
    python3 - "$PS_DAEMON_PID" <<'EOF'
import os, sys
pid = sys.argv[1]
with open("/proc/%s/net/unix" % pid) as f:
    next(f)
    connected = {l.split()[6] for l in f if l.split()[5] != "01"}
n = 0
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        target = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except FileNotFoundError:
        continue
    n += target.startswith("socket:[") and target[8:-1] in connected
print(n)
EOF
}

n_clients_is_0()
{
    [[ $(n_clients) == 0 ]]
}

# n_fds: how many descriptors the daemon has open, once it has closed
# every appctl connection (which would otherwise count or not, by how
# soon its control thread runs).
n_fds()
{
    local fds
    dm_wait "appctl connections to close" n_clients_is_0
    fds=("/proc/$PS_DAEMON_PID/fd/"*)
    printf '%s\n' "${#fds[@]}"
}

# cov COUNTER: the total of a coverage counter (0 if it never counted).
cov()
{
    dm_json coverage/show -- "j.get('$1', {}).get('total', 0)"
}

if [[ -n $FAKE_CPUS ]]; then
    grep -q "^0-$((FAKE_CPUS - 1))\$" "/proc/$PS_DAEMON_PID/root/sys/devices/system/cpu/online" ||
        ps_fail "the daemon does not see $FAKE_CPUS CPUs"
fi

ps_info "the descriptor limit raised at start"
grep -q 'file descriptor limit (RLIMIT_NOFILE) raised from 256 to 4096 (hard limit 4096, 65536 wanted)' \
    "$PS_DAEMON_LOG" || ps_fail "no log line for the raised limit"
ps_assert_eq "soft limit" 4096 \
    "$(awk '/^Max open files/ { print $4 }' "/proc/$PS_DAEMON_PID/limits")"

ps_info "one tx queue per PMD"
ps_assert_eq "p1 tx queues with one PMD" 1 "$(n_txq p1)"
ps_assert_eq "p2 tx queues with one PMD" 1 "$(n_txq p2)"

A=00:00:00:00:00:0a
B=00:00:00:00:00:0b
if (($(nproc) >= 2)); then
    # Two PMDs: each sends on a queue of its own, so the ports reopen
    # with two, and frames still cross both ways.
    dm_write_config 0x3 "$(dm_port p1)" "$(dm_port p2)"
    ps_appctl config/reload >/dev/null
    ps_assert_eq "p1 tx queues with two PMDs" 2 "$(n_txq p1)"
    ps_assert_eq "p2 tx queues with two PMDs" 2 "$(n_txq p2)"
    ps_assert_eq "PMDs polling" 2 \
        "$(dm_rxqs | tr ' ' '\n' | cut -d: -f1 | sort -u | wc -l)"
    dm_recv p1 "$(dm_udp $A $B 1)"
    dm_recv p2 "$(dm_udp $B $A 2)"
    dm_wait_stat p2 tx_packets 1
    dm_wait_stat p1 tx_packets 1
fi

# A real port: two transmit sockets per PMD, not per claimed CPU.
if [[ -n $FAKE_CPUS ]]; then
    ps_add_quiet_ns dmfd-ns
    ps_add_veth_to_ns dmfd-ns eth0 dmfd-sw
    n_pmds=$(dm_json dpif-netdev/pmd-stats-show -- "len([p for p in j if p.get('core_id') is not None])")
    before=$(n_fds)
    ps_appctl add-port br0 v1 interface=dmfd-sw >/dev/null
    added=$(($(n_fds) - before))
    ps_assert_eq "v1 tx queues" "$n_pmds" "$(n_txq v1)"
    # Receive sockets (two with tpacket), two per PMD to send (a tx
    # queue's sockets with and without the vnet header), a steering
    # program and the interface's lock file.
    ((added <= 4 + 2 * n_pmds)) ||
        ps_fail "a veth port took $added descriptors with $n_pmds PMDs"
    ps_info "ok: a veth port takes $added descriptors with $n_pmds PMDs"
    ps_appctl del-port br0 v1 >/dev/null
    ps_assert_eq "descriptors after del-port v1" "$before" "$(n_fds)"
fi

# A core outside the daemon's CPU affinity is refused with a clear error,
# however many CPUs the machine claims.
core=$(($(nproc --all) > 2 ? $(nproc --all) : 2))
if [[ -n $FAKE_CPUS ]]; then
    core=200
fi
mask=$(python3 -c "print(hex(1 << $core))")
dm_write_config "$mask" "$(dm_port p1)" "$(dm_port p2)"
PS_LOG_ALLOW+=('\|WARN\|config reload from .* failed, nothing changed: pmd-cpu-mask ')
if out=$(ps_appctl config/reload 2>&1); then
    ps_fail "pmd-cpu-mask $mask accepted: $out"
fi
if [[ -n $FAKE_CPUS ]]; then
    want="pmd-cpu-mask $mask names core $core, which is not in pmdswitchd's CPU affinity"
else
    want="pmd-cpu-mask $mask names core $core, but this machine has cores 0 to"
fi
[[ $out == *"$want"* ]] || ps_fail "reload of mask $mask: $out"
ps_info "ok: $out"
dm_write_config 0x1 "$(dm_port p1)" "$(dm_port p2)"
ps_appctl config/reload >/dev/null

ps_info "running out of descriptors while adding ports"
# A soft limit that leaves 11 descriptor numbers free: two ports of 4 rx
# queues fit (each add also takes a client socket and the config file's
# temporary file for a moment), the third runs out halfway.
dm_wait "appctl connections to close" n_clients_is_0
soft=$(python3 - "$PS_DAEMON_PID" <<'EOF'
import os, sys
fds = {int(f) for f in os.listdir("/proc/%s/fd" % sys.argv[1])}
s = 0
while s - len([f for f in fds if f < s]) < 11:
    s += 1
print(s)
EOF
)
prlimit --pid "$PS_DAEMON_PID" --nofile="$soft:4096"
n_added=0
err=
for i in 1 2 3 4 5 6; do
    before=$(n_fds)
    if ! err=$(ps_appctl add-port br0 d$i type=dummy options:n_rxq=4 2>&1); then
        break
    fi
    n_added=$i
done
ps_assert_eq "ports added before running out" 2 "$n_added"
want="port d3: out of file descriptors (pmdswitchd may open $soft (RLIMIT_NOFILE))"
[[ $err == *"$want"* ]] || ps_fail "add-port d3 failed with: $err"
ps_info "ok: $err"
ps_assert_eq "descriptors after the failed add-port" "$before" "$(n_fds)"
ps_assert_eq "port_open_no_fds" 1 "$(cov port_open_no_fds)"
ps_assert_eq "ports after the failed add-port" "d1 d2 p1 p2" "$(dm_ports)"
grep -q '"d3"' "$DM_CONFIG" && ps_fail "d3 saved to the config file"

# With descriptors back, the same port opens.
prlimit --pid "$PS_DAEMON_PID" --nofile=4096:4096
ps_appctl add-port br0 d3 type=dummy options:n_rxq=4 >/dev/null
ps_assert_eq "ports once descriptors are back" "d1 d2 d3 p1 p2" "$(dm_ports)"

dm_stop
ps_info "PASS"
