#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# System test: malformed and truncated frames at line rate.  Namespace A
# blasts, through an AF_PACKET raw socket, a few thousand frames of each
# kind frame-blaster.py knows (IPv4 with a bad IHL, IPv6 extension chains
# that loop or stop short, TCP data offsets past the end, QinQ stacks of 2
# and 5 tags, empty payloads, runts, and every header cut at every length)
# at the MAC of namespace B, one kind after the other.  Sniffers count
# each kind where it enters the switch (on the switch's end of A's veth)
# and where it leaves (B's eth0).  The daemon must stay up (same pid,
# appctl answers), and for each kind every frame must be accounted for:
#
#   sent by A = offered to the switch (for runts and cut frames only, the
#               kernel may drop one it cannot parse, such as a frame that
#               ends inside its outer VLAN tag: shown, counted apart)
#   offered   = p1 rx_packets + p1 rx drops (ring full, truncated, errors)
#   rx        = p2 tx_packets + p2 tx drops + PMD drops
#   p2 tx     = received in B (+ what the veth pair or the sniffer dropped)
#
# The kernel refuses to send a frame shorter than an Ethernet header
# (EINVAL), so the shortest runts are 14 bytes; the blaster tries shorter
# ones first and the log says what the kernel did.  PS_FAULT_FRAMES sets
# the number of frames per kind (default 4000).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3
ps_require_daemon
ps_setup sflt

BLASTER=$PS_LIB_DIR/frame-blaster.py
N_PER_KIND=${PS_FAULT_FRAMES:-4000}
A=sflt-a
B=sflt-b
ps_add_quiet_ns "$A"
ps_add_quiet_ns "$B"
ps_add_veth_to_ns "$A" eth0 sflt-a-sw 10.78.9.1/24
ps_add_veth_to_ns "$B" eth0 sflt-b-sw 10.78.9.2/24
ps_ns "$A" ip neigh replace 10.78.9.2 lladdr "$(ps_mac "$B" eth0)" \
    dev eth0 nud permanent
ps_ns "$B" ip neigh replace 10.78.9.1 lladdr "$(ps_mac "$A" eth0)" \
    dev eth0 nud permanent
B_MAC=$(ps_mac "$B" eth0)

CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=sflt-a-sw p2=sflt-b-sw
ps_start_daemon "$CONFIG"
PID0=$PS_DAEMON_PID
# Teach the switch B's MAC, so that the frames go to p2 only.
ps_ping_all "$A" 3 10.78.9.2

# snap FILE: saves every counter the accounting needs, as one JSON object.
snap()
{
    local d=$PS_LOG_DIR/snap.tmp
    ps_appctl -f json dpctl/show >"$d.dp"
    ps_appctl -f json dpif-netdev/pmd-stats-show >"$d.pmd"
    ps_appctl -f json coverage/show >"$d.cov"
    python3 - "$1" "$d" \
        "$(ps_if_stat "$A" eth0 tx_dropped)" \
        "$(ps_if_stat "" sflt-b-sw tx_dropped)" \
        "$(ps_if_stat "$B" eth0 rx_dropped)" \
        "$(ps_if_stat "" sflt-a-sw rx_dropped)" <<'EOF'
import json
import sys

out, d = sys.argv[1:3]
snap = {"dp": json.load(open(d + ".dp")),
        "pmd": json.load(open(d + ".pmd")),
        "cov": json.load(open(d + ".cov")),
        "a_tx_dropped": int(sys.argv[3]),
        "bsw_tx_dropped": int(sys.argv[4]),
        "b_rx_dropped": int(sys.argv[5]),
        "asw_rx_dropped": int(sys.argv[6])}
json.dump(snap, open(out, "w"))
EOF
}

# settled IDX: true once the switch and both sniffers are done with the
# frames of kind IDX: the ingress sniffer has seen as many as p1 counts
# (received or dropped) since snapshot snap-IDX-0, all of those are
# transmitted or dropped (by p2 or a PMD), and the egress sniffer has seen
# what p2 sent.
settled()
{
    ps_appctl -f json dpctl/show >"$PS_LOG_DIR/settle.dp" || return 1
    ps_appctl -f json dpif-netdev/pmd-stats-show >"$PS_LOG_DIR/settle.pmd" ||
        return 1
    python3 - "$PS_LOG_DIR" "$1" <<'EOF'
import json
import sys

d, idx = sys.argv[1:3]
try:
    s_in = json.load(open(d + "/sniff-in.json"))["kinds"].get(idx, 0)
    s_out = json.load(open(d + "/sniff-out.json"))["kinds"].get(idx, 0)
except (OSError, ValueError):
    sys.exit(1)
s0 = json.load(open("%s/snap-%s-0.json" % (d, idx)))
p0 = {p["name"]: p for p in s0["dp"]["ports"]}
p = {p["name"]: p for p in json.load(open(d + "/settle.dp"))["ports"]}


def total(name, keys):
    return sum(p[name][k] - p0[name][k] for k in keys)


rx = total("p1", ("rx_packets",))
offered = rx + total("p1", ("rx_ring_full", "rx_truncated", "rx_errors"))
handled = total("p2", ("tx_packets", "tx_queue_full", "tx_too_big",
                       "tx_port_down", "tx_errors"))
pmd_drops = 0
for t1 in json.load(open(d + "/settle.pmd")):
    for t0 in s0["pmd"]:
        if t0.get("core_id", "main") == t1.get("core_id", "main"):
            pmd_drops += sum(t1.get(k, 0) - t0.get(k, 0) for k in (
                "drop_flow_action", "miss_upcall_failed", "drop_port_gone",
                "drop_action_exec", "drop_bond_output"))
sys.exit(0 if s_in and offered == s_in and handled + pmd_drops >= rx
         and s_out >= total("p2", ("tx_packets",)) else 1)
EOF
}

# Sniffers where the frames enter the switch and where they leave it.
rm -f "$PS_LOG_DIR"/sniff-*.json "$PS_LOG_DIR"/sniff-*.ready
ps_bg sniff-in python3 "$BLASTER" sniff sflt-a-sw \
    "$PS_LOG_DIR/sniff-in.json" "$PS_LOG_DIR/sniff-in.ready"
SNIFF_IN=$PS_BG_PID
ps_bg sniff-out ip netns exec "$B" python3 "$BLASTER" sniff eth0 \
    "$PS_LOG_DIR/sniff-out.json" "$PS_LOG_DIR/sniff-out.ready"
SNIFF_OUT=$PS_BG_PID
sniffers_ready()
{
    [[ -e "$PS_LOG_DIR/sniff-in.ready" && -e "$PS_LOG_DIR/sniff-out.ready" ]]
}
ps_wait_until 5 sniffers_ready || ps_fail "the sniffers did not start"

mapfile -t KINDS < <(python3 "$BLASTER" kinds)
: >"$PS_LOG_DIR/sent.txt"
for line in "${KINDS[@]}"; do
    read -r idx name <<<"$line"
    snap "$PS_LOG_DIR/snap-$idx-0.json"
    result=$(ps_ns "$A" python3 "$BLASTER" send eth0 "$idx" "$N_PER_KIND" \
        "$B_MAC" 2>>"$PS_LOG_DIR/blaster.err")
    # Stop waiting after 10 s: the accounting below then shows what is
    # missing where.
    ps_wait_until 10 settled "$idx" ||
        ps_info "$name: counters still moving after 10 s"
    snap "$PS_LOG_DIR/snap-$idx-1.json"
    printf '%s %s %s\n' "$idx" "$name" "$result" >>"$PS_LOG_DIR/sent.txt"
    ps_info "$name: $result"
    ps_daemon_running || ps_fail "pmdswitchd died during the $name frames"
done
sed 's/^/blaster: /' "$PS_LOG_DIR/blaster.err" >&2 || true

ps_kill_bg "$SNIFF_IN"
ps_kill_bg "$SNIFF_OUT"
for f in sniff-in sniff-out; do
    [[ -s "$PS_LOG_DIR/$f.json" ]] || ps_fail "$f wrote no counts"
done

ps_assert_eq "daemon pid after the frames" "$PID0" "$PS_DAEMON_PID"
ps_daemon_running || ps_fail "pmdswitchd is gone"
ps_appctl version >/dev/null || ps_fail "appctl gets no answer"
ps_info "ok: pmdswitchd (pid $PID0) still up and answering"

rc=0
python3 - "$PS_LOG_DIR" <<'EOF' >"$PS_LOG_DIR/accounting.txt" || rc=$?
import json
import sys

d = sys.argv[1]
sniff_in = json.load(open(d + "/sniff-in.json"))
sniff_out = json.load(open(d + "/sniff-out.json"))
PMD_DROPS = ("drop_flow_action", "miss_upcall_failed", "drop_port_gone",
             "drop_action_exec", "drop_bond_output")
bad = []


def delta(s0, s1):
    """The per-kind counter differences between two snapshots."""
    ports0 = {p["name"]: p for p in s0["dp"]["ports"]}
    ports1 = {p["name"]: p for p in s1["dp"]["ports"]}
    v = {}
    for name in ("p1", "p2"):
        for k, x in ports1[name].items():
            if isinstance(x, int):
                v[name + "." + k] = x - ports0[name][k]
    for k in PMD_DROPS:
        v[k] = (sum(t.get(k, 0) for t in s1["pmd"])
                - sum(t.get(k, 0) for t in s0["pmd"]))
    v["coverage"] = {k: c["total"] - s0["cov"][k]["total"]
                     for k, c in s1["cov"].items()
                     if c["total"] != s0["cov"][k]["total"]}
    for k in ("a_tx_dropped", "bsw_tx_dropped", "b_rx_dropped",
              "asw_rx_dropped"):
        v[k] = s1[k] - s0[k]
    return v


for line in open(d + "/sent.txt"):
    idx, name, _, sent, _, failed = line.split()
    sent = int(sent)
    s0 = json.load(open("%s/snap-%s-0.json" % (d, idx)))
    s1 = json.load(open("%s/snap-%s-1.json" % (d, idx)))
    v = delta(s0, s1)
    offered = sniff_in["kinds"].get(idx, 0)
    got = sniff_out["kinds"].get(idx, 0)
    rx = v["p1.rx_packets"]
    rx_drops = v["p1.rx_ring_full"] + v["p1.rx_truncated"] + v["p1.rx_errors"]
    tx = v["p2.tx_packets"]
    tx_drops = (v["p2.tx_queue_full"] + v["p2.tx_too_big"]
                + v["p2.tx_port_down"] + v["p2.tx_errors"])
    pmd_drops = sum(v[k] for k in PMD_DROPS)
    # B's rx_dropped counts frames its stack had no use for (a VLAN it
    # has no device for), after the sniffer saw them: not a loss.  The
    # veth pair counts a frame it could not pass on as tx_dropped.
    kernel_out = v["bsw_tx_dropped"]
    not_offered = sent - offered
    print("%-15s sent %5d (refused %s) offered %5d rx %5d rx_drops %d"
          " (ring_full %d truncated %d errors %d) tx %5d tx_drops %d"
          " pmd_drops %d received %5d kernel_out_drops %d" % (
              name, sent, failed, offered, rx, rx_drops,
              v["p1.rx_ring_full"], v["p1.rx_truncated"], v["p1.rx_errors"],
              tx, tx_drops, pmd_drops, got, kernel_out))
    if not_offered:
        print("%-15s the kernel dropped %d before the switch saw them"
              " (A tx_dropped %+d, switch side rx_dropped %+d)" % (
                  name, not_offered, v["a_tx_dropped"],
                  v["asw_rx_dropped"]))
    if v["coverage"]:
        print("%-15s coverage: %s" % (name, v["coverage"]))
    checks = [
        ("offered <= sent", offered <= sent),
        ("offered == rx + rx drops", offered == rx + rx_drops),
        ("rx == tx + tx drops + pmd drops", rx == tx + tx_drops + pmd_drops),
        ("tx == received + kernel drops",
         tx == got + kernel_out
         or (sniff_out["drops"] and got <= tx <= got + kernel_out
             + sniff_out["drops"])),
        ("sent == received + named drops + not offered",
         sent == got + rx_drops + tx_drops + pmd_drops + kernel_out
         + not_offered
         or sniff_out["drops"] > 0),
    ]
    if name != "truncated" and name != "runt":
        # Only a frame cut inside its outer VLAN tag is one the kernel
        # cannot even deliver to the switch's socket.
        checks.append(("all sent frames offered", offered == sent))
    if sent < 1000:
        checks.append(("at least 1000 frames sent", False))
    for what, ok in checks:
        if not ok:
            bad.append("%s: %s" % (name, what))
print("sniffer drops: in %d out %d; other frames: in %d out %d" % (
    sniff_in["drops"], sniff_out["drops"], sniff_in["other"],
    sniff_out["other"]))
if sniff_in["drops"]:
    bad.append("the ingress sniffer dropped frames: counts not exact")
for b in bad:
    print("FAILED: " + b)
sys.exit(1 if bad else 0)
EOF
while IFS= read -r line; do
    ps_info "$line"
done <"$PS_LOG_DIR/accounting.txt"
if [[ $rc -ne 0 ]]; then
    ps_show_switch_counters
    ps_fail "frames are not accounted for (see the table above)"
fi
ps_info "ok: every kind of frame accounted for"

ps_stop_daemon
ps_check_log
ps_info "PASS"
