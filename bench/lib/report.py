#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Helper for bench/run-bench.sh: turns tool output into samples and samples
# into the final report.
#
#   report.py iperf FILE    iperf3 -J output -> {"value": Gbit/s, ...}
#   report.py ping FILE [METRIC]
#                           ping output -> {"avg_us", "p50_us", "p99_us", ...},
#                           with "value" the METRIC (avg, p50, p99) if given
#   report.py summarize SAMPLES META OUT_JSON OUT_MD
#       SAMPLES: one JSON object a line: switch, workload, run, value (null
#       when the run failed) and optional details.  META: a JSON object of
#       run facts.  Writes the JSON report and the markdown table (also
#       printed on stdout).
#
# Medians are over successful runs only; a workload is shown as failed when
# any run failed, with the number of failures.

import json
import math
import re
import statistics
import sys

# Workloads in table order: name, unit, column title, higher is better.
WORKLOADS = [
    ("tcp", "Gbit/s", "TCP Gbit/s", True),
    ("tcp-no-offload", "Gbit/s", "TCP, offloads off, Gbit/s", True),
    ("udp64", "Mpps", "64B UDP Mpps", True),
    ("ping-avg", "us", "ping avg us", False),
    ("ping-p50", "us", "ping p50 us", False),
    ("ping-p99", "us", "ping p99 us", False),
]
REFERENCES = ["veth", "bridge", "ovs-tso-off", "ovs-tso-on"]
SUBJECTS = ["pmdswitch-tpacket", "pmdswitch-mmsg"]


def parse_iperf(path):
    """Reads iperf3 -J output; returns the receiver's rate or the error."""
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        return {"value": None, "error": "no iperf3 JSON output (%s)" % e}
    end = result.get("end", {})
    received = end.get("sum_received", {})
    sent = end.get("sum_sent", {})
    error = result.get("error")
    nbytes = received.get("bytes", 0)
    out = {
        "value": received.get("bits_per_second", 0.0) / 1e9,
        "bytes": nbytes,
        "retransmits": sent.get("retransmits"),
        "error": error,
    }
    if error or nbytes <= 0:
        out["value"] = None
        out["error"] = error or "no data received"
    return out


def percentile(values, pct):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100.0 * len(ordered)))
    return ordered[rank - 1]


def parse_ping(path):
    """Reads ping output; returns avg/p50/p99 RTT in microseconds."""
    with open(path) as f:
        text = f.read()
    rtts = [float(m) * 1000.0 for m in re.findall(r"time=([0-9.]+) ms", text)]
    sent = re.search(r"([0-9]+) packets transmitted", text)
    out = {"replies": len(rtts),
           "sent": int(sent.group(1)) if sent else None}
    if not rtts:
        out.update(avg_us=None, p50_us=None, p99_us=None,
                   error="no replies")
        return out
    out.update(avg_us=statistics.fmean(rtts),
               p50_us=percentile(rtts, 50),
               p99_us=percentile(rtts, 99))
    return out


def fmt(value, unit):
    if value is None:
        return "-"
    if unit == "Gbit/s":
        return "%.2f" % value
    if unit == "Mpps":
        return "%.3f" % value
    return "%.0f" % value


def summarize(samples_path, meta_path, out_json, out_md):
    with open(meta_path) as f:
        meta = json.load(f)
    samples = []
    with open(samples_path) as f:
        for line in f:
            if line.strip():
                samples.append(json.loads(line))

    switches = []
    for s in samples:
        if s["switch"] not in switches:
            switches.append(s["switch"])
    summary = {}
    for sw in switches:
        summary[sw] = {}
        for name, unit, _, _ in WORKLOADS:
            runs = [s for s in samples
                    if s["switch"] == sw and s["workload"] == name]
            if not runs:
                continue
            values = [s["value"] for s in runs if s["value"] is not None]
            entry = {"unit": unit, "runs": len(runs),
                     "failed": len(runs) - len(values), "values": values}
            if values:
                entry.update(median=statistics.median(values),
                             min=min(values), max=max(values))
            errors = sorted({s.get("error") for s in runs if s.get("error")})
            if errors:
                entry["errors"] = errors
            summary[sw][name] = entry

    lines = []
    lines.append("| switch | " +
                 " | ".join(t for _, _, t, _ in WORKLOADS) + " |")
    lines.append("|---|" + "---|" * len(WORKLOADS))
    for sw in switches:
        cells = []
        for name, unit, _, _ in WORKLOADS:
            e = summary[sw].get(name)
            if e is None:
                cells.append("n/a")
            elif "median" not in e:
                cells.append("fails (%d/%d)" % (e["failed"], e["runs"]))
            else:
                cell = fmt(e["median"], unit)
                if e["runs"] > 1:
                    cell += " (%s–%s)" % (fmt(e["min"], unit),
                                          fmt(e["max"], unit))
                if e["failed"]:
                    cell += ", %d/%d failed" % (e["failed"], e["runs"])
                cells.append(cell)
        lines.append("| %s | %s |" % (sw, " | ".join(cells)))

    ratios = {}
    subjects = [s for s in SUBJECTS if s in summary]
    references = [r for r in REFERENCES if r in summary]
    if subjects and references:
        lines.append("")
        lines.append("Ratios of medians, pmdswitch / reference (TCP and "
                     "UDP: higher is better; ping: lower is better):")
        lines.append("")
        lines.append("| pmdswitch vs | " +
                     " | ".join(t for _, _, t, _ in WORKLOADS) + " |")
        lines.append("|---|" + "---|" * len(WORKLOADS))
        for sub in subjects:
            for ref in references:
                key = "%s/%s" % (sub, ref)
                ratios[key] = {}
                cells = []
                for name, _, _, _ in WORKLOADS:
                    a = summary[sub].get(name, {}).get("median")
                    b = summary[ref].get(name, {}).get("median")
                    if a is None or not b:
                        cells.append("-")
                        ratios[key][name] = None
                    else:
                        ratios[key][name] = a / b
                        cells.append("%.2f" % (a / b))
                lines.append("| %s vs %s | %s |" % (sub, ref,
                                                    " | ".join(cells)))
    for note in meta.get("notes", []):
        lines.append("")
        lines.append("Note: " + note)
    table = "\n".join(lines) + "\n"

    report = {"meta": meta, "summary": summary, "ratios": ratios,
              "samples": samples}
    with open(out_json, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    with open(out_md, "w") as f:
        f.write(table)
    sys.stdout.write(table)


def main(argv):
    if len(argv) == 3 and argv[1] == "iperf":
        print(json.dumps(parse_iperf(argv[2])))
    elif len(argv) in (3, 4) and argv[1] == "ping":
        result = parse_ping(argv[2])
        if len(argv) == 4:
            result["value"] = result.get(argv[3] + "_us")
        print(json.dumps(result))
    elif len(argv) == 6 and argv[1] == "summarize":
        summarize(*argv[2:])
    else:
        sys.exit("usage: report.py iperf FILE | ping FILE [METRIC] | "
                 "summarize SAMPLES META OUT_JSON OUT_MD")


if __name__ == "__main__":
    main(sys.argv)
