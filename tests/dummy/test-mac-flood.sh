#!/usr/bin/env bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# One tenant floods frames from thousands of new source MACs; the others
# must not notice.  On dummy ports, no root:
#   - a port with a mac-limit learns up to it; the rest is refused and
#     counted, and the frames are still flooded;
#   - a port without one, in a full table, evicts its own entries, never
#     the other hosts';
#   - mac-learn-rate caps what a port learns per second, counted too;
#   - the hosts' unicast stays unicast, from the cache, and the flood
#     makes the PMD re-check only the flooded MACs' own flows, never
#     sweep the table.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dm_setup dmflood
A=00:00:00:00:00:0a
B=00:00:00:00:00:0b

cat >"$DM_CONFIG" <<JSON
{ "bridges": [ { "name": "br0", "ports": [
    { "name": "pa", "type": "dummy" },
    { "name": "pb", "type": "dummy" },
    { "name": "pc", "type": "dummy", "options": { "mac-limit": 100 } },
    { "name": "pd", "type": "dummy" },
    { "name": "pe", "type": "dummy" } ] } ],
  "other_config": { "pmd-cpu-mask": "0x1", "mac-table-size": 256,
                    "mac-learn-rate": 0, "flow-idle-timeout": 3600000 } }
JSON
dm_start

# flood PORT FIRST N: injects N broadcast frames (ethertype 0x88b5, 60
# bytes) from the source MACs 02:ff:00:HH:HH:HH numbered FIRST to
# FIRST + N - 1, 250 to a request.
flood()
{
    local port=$1 first=$2 n=$3 start
    for ((start = first; start < first + n; start += 250)); do
        # shellcheck disable=SC2046
        dm_recv "$port" $(python3 -c '
import sys
first, last = int(sys.argv[1]), int(sys.argv[2])
for i in range(first, last):
    src = "02ff00%06x" % i
    print("ffffffffffff" + src + "88b5" + "00" * 46)' \
            "$start" "$((start + 250 < first + n ? start + 250 : first + n))")
    done
}

# port_fdb PORT FIELD: fdb/stats-show's FIELD for PORT (0 if not listed).
port_fdb()
{
    dm_json fdb/stats-show br0 -- "sum(p['$2'] for p in j['ports'] if p['port'] == '$1')"
}

# The hosts learn and talk.
dm_recv pa "$(dm_udp $A $B 1)"
dm_recv pb "$(dm_udp $B $A 2)"
dm_recv pa "$(dm_udp $A $B 3)"
dm_wait_stat pb tx_packets 2
dm_settle
sweeps=$(dm_pmd_sum reval_sweeps)
revalidated=$(dm_pmd_sum flows_revalidated)

# pc floods 2,000 new MACs: it keeps 100, the rest is refused.
flood pc 0 2000
dm_wait_stat pc rx_packets 2000
dm_wait_stat pa tx_packets 2001
dm_settle
ps_assert_eq "pc entries" 100 "$(port_fdb pc entries)"
ps_assert_eq "pc learns over its mac-limit" 1900 "$(port_fdb pc over_limit)"
ps_assert_eq "refusals in total" 1900 \
    "$(dm_json fdb/stats-show br0 -- "j['over_limit']")"

# pd floods 1,000 into the 256-entry table: it evicts its own.
flood pd 100000 1000
dm_wait_stat pd rx_packets 1000
dm_settle
ps_assert_eq "table entries" 256 "$(dm_json fdb/stats-show br0 -- "j['entries']")"
ps_assert_eq "pd entries" 154 "$(port_fdb pd entries)"
ps_assert_eq "evictions" 846 "$(dm_json fdb/stats-show br0 -- "j['evicted']")"
ps_assert_eq "pc entries after pd's flood" 100 "$(port_fdb pc entries)"
for host in "pa $A" "pb $B"; do
    set -- $host
    ps_assert_eq "fdb/show: $2 still on $1" "$1" \
        "$(dm_json fdb/show br0 -- "[e['port'] for e in j if e['mac'] == '$2'][0]")"
done

# The flood re-checked only the flooded MACs' own flows (each at most
# twice: when learned and when evicted or refused) and never swept.
ps_assert_eq "sweeps during the flood" "$sweeps" "$(dm_pmd_sum reval_sweeps)"
n=$(($(dm_pmd_sum flows_revalidated) - revalidated))
[[ $n -le 6000 ]] || ps_fail "the flood re-translated $n flows"

# A and B still talk by unicast, without a miss.
dm_clear pa pb pc pd pe
misses=$(dm_pmd_sum miss_upcall_ok)
dm_recv pa "$(dm_udp $A $B 4)"
dm_recv pb "$(dm_udp $B $A 5)"
dm_wait_stat pb tx_packets 3003
dm_wait_stat pa tx_packets 3002
dm_settle
for p in pc pd pe; do
    dm_assert_captured "$p" 0
done
if [[ $(dm_pmd_sum miss_upcall_ok) != "$misses" ]]; then
    # What the cache held for the hosts, and why a flow may have gone.
    ps_appctl dpctl/dump-flows -m | grep -e "$A" -e "$B" >&2 || true
    dm_json dpif-netdev/pmd-stats-show -- \
        "[{k: p[k] for k in ('flows_revalidated', 'flows_invalidated', 'reval_keys', 'reval_sweeps', 'reval_log_lost') if k in p} for p in j]" >&2
fi
ps_assert_eq "misses for the hosts' unicast" "$misses" \
    "$(dm_pmd_sum miss_upcall_ok)"

# mac-learn-rate at 50 a second: pe learns a second's worth, then one
# per 20 ms; everything else is counted.
ps_appctl other-config/set mac-learn-rate=50 >/dev/null
ps_assert_eq "learn rate" 50 "$(dm_json fdb/stats-show br0 -- "j['learn_rate']")"
learned0=$(dm_json fdb/stats-show br0 -- "j['learned']")
t0=$EPOCHREALTIME
flood pe 200000 500
dm_wait_stat pe rx_packets 500
dm_settle
# At most the burst of 50 and 50 a second for as long as the flood can
# have taken (the real time around it, more than the daemon's).
most=$(python3 -c 'import math, sys
print(50 + math.ceil(50 * (float(sys.argv[2]) - float(sys.argv[1]))) + 1)' \
    "$t0" "$EPOCHREALTIME")
# Learned in the table's total: pe may evict its own once it holds the
# most.
learned=$(($(dm_json fdb/stats-show br0 -- "j['learned']") - learned0))
limited=$(port_fdb pe rate_limited)
ps_assert_eq "pe learned + refused" 500 "$((learned + limited))"
[[ $learned -ge 50 && $learned -le $most && $limited -gt 0 ]] ||
    ps_fail "pe learned $learned (at most $most) and was refused $limited"
ps_info "ok: pe learned $learned of 500 (at most $most), refused $limited"

dm_stop
