#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: metrics for Prometheus, checked by Prometheus's own tools.
# With other_config:metrics-address set, the daemon serves /metrics;
# `promtool check metrics` accepts the output (names, HELP, TYPE, the
# _total suffix of counters); a Prometheus server started here scrapes it
# and answers a query for a port counter that ping traffic moved, and for
# a PMD counter.  Then the address moves through config/reload, a reload
# onto an address already taken fails and leaves the old one serving,
# `other-config/set metrics-address=` turns the server off, paths other
# than /metrics and / are 404, and methods other than GET and HEAD 405.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds ip ping python3 promtool prometheus
ps_require_daemon
ps_setup smet

A=smet-a
B=smet-b
ps_add_ns "$A"
ps_add_ns "$B"
ps_add_veth_to_ns "$A" eth0 smet-a-sw 10.77.11.1/24
ps_add_veth_to_ns "$B" eth0 smet-b-sw 10.77.11.2/24

# free_port: a TCP port on 127.0.0.1 that nothing listens on just now.
free_port()
{
    python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# http_get URL: prints "STATUS" then the body.
http_get()
{
    python3 - "$1" <<'EOF'
import sys
import urllib.error
import urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
        print(r.status)
        sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code)
EOF
}

# prom_query QUERY: the value of the first sample of an instant query to
# the test's Prometheus, or nothing.
prom_query()
{
    python3 - "$PROM" "$1" <<'EOF'
import json
import sys
import urllib.parse
import urllib.request
url = "http://%s/api/v1/query?%s" % (
    sys.argv[1], urllib.parse.urlencode({"query": sys.argv[2]}))
try:
    with urllib.request.urlopen(url, timeout=5) as r:
        result = json.load(r)["data"]["result"]
except OSError:
    sys.exit(0)
if result:
    print(result[0]["value"][1])
EOF
}

METRICS=127.0.0.1:$(free_port)
CONFIG=$PS_LOG_DIR/config.json
ps_write_config "$CONFIG" "$PS_TPACKET" p1=smet-a-sw p2=smet-b-sw \
    "+metrics-address=$METRICS"
ps_start_daemon "$CONFIG"
grep -q "serving Prometheus metrics on http://$METRICS/metrics" \
    "$PS_DAEMON_LOG" || ps_fail "the daemon did not say where it serves"
ps_ping_all "$A" 5 10.77.11.2

# ---------------------------------------------------------------------------
ps_info "promtool check metrics"
http_get "http://$METRICS/metrics" >"$PS_LOG_DIR/metrics.txt"
ps_assert_eq "HTTP status of /metrics" 200 "$(head -1 "$PS_LOG_DIR/metrics.txt")"
tail -n +2 "$PS_LOG_DIR/metrics.txt" >"$PS_LOG_DIR/metrics.prom"
if ! promtool check metrics <"$PS_LOG_DIR/metrics.prom" \
    >"$PS_LOG_DIR/promtool.out" 2>&1; then
    cat "$PS_LOG_DIR/promtool.out" >&2
    ps_fail "promtool check metrics rejects the output"
fi
rx=$(sed -n 's/^pmdswitch_port_rx_packets_total{bridge="br0",port="p1"} //p' \
    "$PS_LOG_DIR/metrics.prom")
((rx >= 5)) || ps_fail "p1 received $rx frames by the metrics, ping sent 5"
ps_info "ok: promtool accepts $(grep -vc '^#' "$PS_LOG_DIR/metrics.prom") samples; p1 rx $rx"

# ---------------------------------------------------------------------------
ps_info "a Prometheus server scrapes it"
PROM=127.0.0.1:$(free_port)
PROM_DIR=$(mktemp -d /tmp/smet-prom.XXXXXX)
ps_record_dir "$PROM_DIR"
cat >"$PROM_DIR/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pmdswitch
    static_configs:
      - targets: ["$METRICS"]
YAML
promtool check config "$PROM_DIR/prometheus.yml" >/dev/null
ps_bg prometheus prometheus --config.file="$PROM_DIR/prometheus.yml" \
    --storage.tsdb.path="$PROM_DIR/data" --web.listen-address="$PROM"
PROM_PID=$PS_BG_PID

scraped_up() { [[ "$(prom_query 'up{job="pmdswitch"}')" == 1 ]]; }
ps_wait_until 30 scraped_up || {
    tail -20 "$PS_LOG_DIR/prometheus.out" >&2
    ps_fail "Prometheus did not scrape the endpoint"
}
before=$(prom_query 'pmdswitch_port_rx_packets_total{port="p1"}')
ps_ping_all "$A" 10 10.77.11.2
moved()
{
    local now
    now=$(prom_query 'pmdswitch_port_rx_packets_total{port="p1"}')
    [[ -n "$now" ]] && ((now >= before + 10))
}
ps_wait_until 15 moved ||
    ps_fail "Prometheus did not see p1's counter move ($before, then $(prom_query 'pmdswitch_port_rx_packets_total{port="p1"}'))"
recv=$(prom_query 'sum(pmdswitch_pmd_packets_received_total)')
[[ -n "$recv" ]] && ((recv > 0)) ||
    ps_fail "Prometheus has no PMD receive counter ($recv)"
ps_info "ok: Prometheus answers: p1 rx from $before to $(prom_query 'pmdswitch_port_rx_packets_total{port="p1"}'), PMDs received $recv"
ps_kill_bg "$PROM_PID"

# ---------------------------------------------------------------------------
ps_info "the address follows config/reload and other-config/set"
ps_assert_eq "HTTP status of /nothing" 404 \
    "$(http_get "http://$METRICS/nothing" | head -1)"
ps_assert_eq "HTTP status of /" 200 "$(http_get "http://$METRICS/" | head -1)"
allow=$(python3 - "$METRICS" <<'EOF'
import http.client
import sys
host, port = sys.argv[1].rsplit(":", 1)
c = http.client.HTTPConnection(host, int(port), timeout=5)
c.request("POST", "/metrics", body=b"x")
r = c.getresponse()
print(r.status, r.getheader("Allow"))
EOF
)
ps_assert_eq "POST /metrics" "405 GET, HEAD" "$allow"
MOVED=127.0.0.1:$(free_port)
ps_write_config "$CONFIG" "$PS_TPACKET" p1=smet-a-sw p2=smet-b-sw \
    "+metrics-address=$MOVED"
ps_appctl config/reload >/dev/null
ps_assert_eq "HTTP status at the new address" 200 \
    "$(http_get "http://$MOVED/metrics" | head -1)"
if python3 -c 'import socket, sys; s = socket.socket()
h, p = sys.argv[1].rsplit(":", 1); s.settimeout(1); s.connect((h, int(p)))' \
    "$METRICS" 2>/dev/null; then
    ps_fail "the old address still accepts connections after the reload"
fi

# An address another process holds: the reload fails, nothing changes.
TAKEN=127.0.0.1:$(free_port)
ps_bg holder python3 -c 'import socket, sys, time; s = socket.socket()
h, p = sys.argv[1].rsplit(":", 1); s.bind((h, int(p))); s.listen(1)
print("bound", flush=True); time.sleep(600)' "$TAKEN"
HOLDER=$PS_BG_PID
ps_wait_until 5 grep -q bound "$PS_LOG_DIR/holder.out" ||
    ps_fail "the holder did not bind"
ps_write_config "$CONFIG" "$PS_TPACKET" p1=smet-a-sw p2=smet-b-sw \
    "+metrics-address=$TAKEN"
if out=$(ps_appctl config/reload 2>&1); then
    ps_fail "a reload onto a taken address succeeded"
fi
[[ $out == *"metrics-address $TAKEN: cannot listen: Address already in use"* ]] ||
    ps_fail "unclear error for a taken address: $out"
ps_assert_eq "still serving at the old address" 200 \
    "$(http_get "http://$MOVED/metrics" | head -1)"
ps_assert_eq "metrics-address in force" "$MOVED" \
    "$(ps_appctl other-config/get metrics-address)"
ps_kill_bg "$HOLDER"

ps_appctl other-config/set metrics-address= >/dev/null
if python3 -c 'import socket, sys; s = socket.socket()
h, p = sys.argv[1].rsplit(":", 1); s.settimeout(1); s.connect((h, int(p)))' \
    "$MOVED" 2>/dev/null; then
    ps_fail "metrics still served after metrics-address was cleared"
fi
ps_info "ok: moved, refused a taken address, turned off"

ps_stop_daemon
PS_LOG_ALLOW=('config reload from .* failed, nothing changed: metrics-address')
ps_check_log
ps_info "PASS"
