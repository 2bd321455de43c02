#!/usr/bin/env python3
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Helper for bench/run-bench.sh: turns tool output into samples, samples
# into the final report, and the report into data files for the plots.
#
#   report.py iperf FILE    iperf3 -J output -> {"value": Gbit/s, ...}
#   report.py ping FILE [METRIC]
#                           ping output -> {"avg_us", "p50_us", "p99_us",
#                           "rtts_us", ...}, with "value" the METRIC (avg,
#                           p50, p99) if given
#   report.py sockperf FILE METRIC
#                           sockperf ping-pong --full-rtt output ->
#                           {"value": the METRIC (p50, p99, avg) RTT in us,
#                           "percentiles": {...}, ...}
#   report.py summarize SAMPLES META OUT_JSON OUT_MD
#       SAMPLES: one JSON object a line: switch, workload, run, value (null
#       when the run failed) and optional details.  META: a JSON object of
#       run facts.  Writes the JSON report and the markdown tables (also
#       printed on stdout).
#   report.py plotdata REPORT_JSON DIR
#       Writes the data files that bench/lib/plot.sh hands to gnuplot:
#       tcp.dat, udp.dat (medians with min and max per switch, legends in
#       the matching .names file), flows.dat,
#       ping-cdf.dat and sockperf-cdf.dat (one block per switch, names in
#       the matching .names file).
#
# Medians are over successful runs only; a workload is shown as failed when
# any run failed, with the number of failures.  A sample marked
# "not_applicable" (process CPU and memory of a kernel switch) shows as "-".

import json
import math
import os
import re
import statistics
import sys

# The report's tables, in order: a title, the direction note for the
# ratios, and the workloads: name, unit, column title, higher is better
# (None: no ratio).
TABLES = [
    ("Throughput", "higher is better", [
        ("tcp", "Gbit/s", "TCP Gbit/s", True),
        ("tcp-no-offload", "Gbit/s", "TCP, offloads off, Gbit/s", True),
        ("tcp8", "Gbit/s", "TCP x8 Gbit/s", True),
        ("tcp8-no-offload", "Gbit/s", "TCP x8, offloads off, Gbit/s",
         True),
        ("udp64", "Mpps", "64B UDP Mpps", True),
        ("udp1518", "Mpps", "1518B UDP Mpps", True),
    ]),
    ("64-byte UDP by number of flows (distinct 5-tuples)",
     "higher is better", [
         ("udp64", "Mpps", "1 flow Mpps", True),
         ("udp64-flows1k", "Mpps", "1k flows Mpps", True),
         ("udp64-flows100k", "Mpps", "100k flows Mpps", True),
         ("udp64-flows1m", "Mpps", "1M flows Mpps", True),
     ]),
    ("Latency", "lower is better", [
        ("ping-avg", "us", "ping avg us", False),
        ("ping-p50", "us", "ping p50 us", False),
        ("ping-p99", "us", "ping p99 us", False),
        ("sockperf-p50", "us", "sockperf RTT p50 us", False),
        ("sockperf-p99", "us", "sockperf RTT p99 us", False),
    ]),
    ("CPU and memory", "lower is better; no ratio for the flow count", [
        ("cpu-idle-proc", "%", "idle: process % of a core", False),
        ("cpu-idle-core1", "%", "idle: core 1 busy %", False),
        ("cpu-load-proc", "%", "64B flood: process % of a core", False),
        ("cpu-load-core1", "%", "64B flood: core 1 busy %", False),
        ("mem1m-rss", "MB", "VmRSS MB after 1M flows", False),
        ("mem1m-hwm", "MB", "VmHWM MB after 1M flows", False),
        ("mem1m-flows", "flows", "datapath flows reached", None),
        ("mem1m-kb-per-flow", "KB", "VmRSS growth KB per flow", False),
    ]),
]
REFERENCES = ["veth", "bridge", "ovs-tso-off", "ovs-tso-on", "ovs-afxdp",
              "dpdk-af-packet", "dpdk-af-xdp"]
SUBJECTS = ["pmdswitch-tpacket", "pmdswitch-mmsg", "pmdswitch-afxdp"]

# Flow-count workloads and their exact number of distinct 5-tuples (the
# period of the generator's counters), for the plot's x axis.
FLOW_COUNTS = [("udp64", 1), ("udp64-flows1k", 31 * 33),
               ("udp64-flows100k", 316 * 317),
               ("udp64-flows1m", 1000 * 1001)]


def all_workloads():
    """Every workload name of the tables, each once, in table order."""
    names = []
    for _, _, workloads in TABLES:
        for name, unit, _, _ in workloads:
            if name not in [n for n, _ in names]:
                names.append((name, unit))
    return names


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
        "streams": len(end.get("streams", [])) or None,
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
    """Reads ping output; returns avg/p50/p99 RTT in microseconds and every
    RTT in the order received."""
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
               p99_us=percentile(rtts, 99),
               rtts_us=[round(r, 1) for r in rtts])
    return out


def parse_sockperf(path):
    """Reads sockperf ping-pong output (run with --full-rtt); returns the
    average and the percentiles of the round-trip time in microseconds."""
    try:
        with open(path, errors="replace") as f:
            text = re.sub(r"\x1b\[[0-9;]*m", "", f.read())
    except OSError as e:
        return {"error": "no sockperf output (%s)" % e}
    out = {"rtt": "full round trip (sockperf --full-rtt)"}
    avg = re.search(r"avg-(rtt|lat)=([0-9.]+)", text)
    if avg and avg.group(1) == "lat":
        # Without --full-rtt sockperf reports half the round trip.
        out["rtt"] = "one-way latency doubled"
    factor = 2.0 if out["rtt"].startswith("one-way") else 1.0
    pcts = {}
    for m in re.finditer(r"percentile ([0-9.]+) = *([0-9.]+)", text):
        pcts[m.group(1).rstrip("0").rstrip(".")] = float(m.group(2)) * factor
    for label, key in (("MIN", "0"), ("MAX", "100")):
        m = re.search(r"<%s> observation = *([0-9.]+)" % label, text)
        if m:
            pcts[key] = float(m.group(1)) * factor
    m = (re.search(r"\[Valid Duration\].*ReceivedMessages=([0-9]+)", text)
         or re.search(r"\[Total Run\].*ReceivedMessages=([0-9]+)", text))
    out["messages"] = int(m.group(1)) if m else None
    if not avg or "50" not in pcts:
        if "No messages were received" in text:
            out["error"] = "no message came back from the server"
        elif "No valid observations" in text:
            out["error"] = "too few replies for statistics (%s in all)" \
                % out["messages"]
        else:
            out["error"] = "no sockperf statistics in %s" % \
                os.path.basename(path)
        return out
    out.update(avg_us=float(avg.group(2)) * factor, p50_us=pcts["50"],
               p99_us=pcts.get("99"), percentiles=pcts)
    return out


def fmt(value, unit):
    if value is None:
        return "-"
    if unit == "Gbit/s":
        return "%.2f" % value
    if unit == "Mpps":
        return "%.3f" % value
    if unit in ("%", "MB"):
        return "%.1f" % value
    if unit == "KB":
        return "%.2f" % value
    return "%.0f" % value


def summarize_samples(samples):
    """Groups samples by switch and workload: median, min, max, failures."""
    switches = []
    for s in samples:
        if s["switch"] not in switches:
            switches.append(s["switch"])
    summary = {}
    for sw in switches:
        summary[sw] = {}
        for name, unit in all_workloads():
            runs = [s for s in samples
                    if s["switch"] == sw and s["workload"] == name]
            if not runs:
                continue
            if all(s.get("not_applicable") for s in runs):
                summary[sw][name] = {"unit": unit, "not_applicable": True}
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
    return switches, summary


def cell(entry, unit):
    if entry is None:
        return "n/a"
    if entry.get("not_applicable"):
        return "-"
    if "median" not in entry:
        return "fails (%d/%d)" % (entry["failed"], entry["runs"])
    text = fmt(entry["median"], unit)
    if entry["runs"] > 1:
        text += " (%s–%s)" % (fmt(entry["min"], unit),
                              fmt(entry["max"], unit))
    if entry["failed"]:
        text += ", %d/%d failed" % (entry["failed"], entry["runs"])
    return text


def render_table(title, direction, workloads, switches, summary, ratios):
    """Markdown lines for one table and its ratios; fills 'ratios'.  Empty
    if no switch has a sample of any of 'workloads'."""
    present = [w for w in workloads
               if any(w[0] in summary[sw] for sw in switches)]
    if not present:
        return []
    lines = ["## " + title, ""]
    lines.append("| switch | " +
                 " | ".join(t for _, _, t, _ in present) + " |")
    lines.append("|---|" + "---|" * len(present))
    for sw in switches:
        cells = [cell(summary[sw].get(name), unit)
                 for name, unit, _, _ in present]
        lines.append("| %s | %s |" % (sw, " | ".join(cells)))

    subjects = [s for s in SUBJECTS if s in summary]
    references = [r for r in REFERENCES if r in summary]
    rated = [w for w in present if w[3] is not None]
    if subjects and references and rated:
        lines.append("")
        lines.append("Ratios of medians, pmdswitch / reference (%s):"
                     % direction)
        lines.append("")
        lines.append("| pmdswitch vs | " +
                     " | ".join(t for _, _, t, _ in rated) + " |")
        lines.append("|---|" + "---|" * len(rated))
        for sub in subjects:
            for ref in references:
                key = "%s/%s" % (sub, ref)
                ratios.setdefault(key, {})
                cells = []
                for name, _, _, _ in rated:
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
    lines.append("")
    return lines


def summarize(samples_path, meta_path, out_json, out_md):
    with open(meta_path) as f:
        meta = json.load(f)
    samples = []
    with open(samples_path) as f:
        for line in f:
            if line.strip():
                samples.append(json.loads(line))

    switches, summary = summarize_samples(samples)
    ratios = {}
    lines = []
    for title, direction, workloads in TABLES:
        lines += render_table(title, direction, workloads, switches,
                              summary, ratios)
    for note in meta.get("notes", []):
        lines.append("Note: " + note)
        lines.append("")
    table = "\n".join(lines).rstrip("\n") + "\n"

    report = {"meta": meta, "summary": summary, "ratios": ratios,
              "samples": samples}
    with open(out_json, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    with open(out_md, "w") as f:
        f.write(table)
    sys.stdout.write(table)


def write_bars(path, switches, summary, workloads):
    """For the bar charts: one row per switch with a value, holding the
    name, then median, min and max per workload ('-' when missing), for
    the workloads ((name, legend) pairs) that any switch has; their
    legends go one a line to PATH with .names for .dat.  Returns the number
    of workloads written."""
    workloads = [(w, legend) for w, legend in workloads
                 if any("median" in summary[sw].get(w, {})
                        for sw in switches)]
    with open(path, "w") as f:
        f.write("switch " + " ".join("%s %s_min %s_max" % (w, w, w)
                                     for w, _ in workloads) + "\n")
        for sw in switches:
            row = [sw]
            for w, _ in workloads:
                e = summary[sw].get(w, {})
                if "median" in e:
                    row += ["%g" % e["median"], "%g" % e["min"],
                            "%g" % e["max"]]
                else:
                    row += ["-", "-", "-"]
            if any(v != "-" for v in row[1:]):
                f.write(" ".join(row) + "\n")
    with open(path[:-len(".dat")] + ".names", "w") as f:
        for _, legend in workloads:
            f.write(legend + "\n")
    return len(workloads)


def write_blocks(path, blocks):
    """Writes gnuplot data blocks (two blank lines apart) of (x, y) points
    and the block names, one a line, to PATH with .names for .dat."""
    blocks = [(name, pts) for name, pts in blocks if pts]
    with open(path, "w") as f:
        for name, pts in blocks:
            f.write("# %s\n" % name)
            for x, y in pts:
                f.write("%g %g\n" % (x, y))
            f.write("\n\n")
    with open(path[:-len(".dat")] + ".names", "w") as f:
        for name, _ in blocks:
            f.write(name + "\n")
    return len(blocks)


def plotdata(report_path, out_dir):
    with open(report_path) as f:
        report = json.load(f)
    summary = report["summary"]
    samples = report["samples"]
    switches = list(summary)
    os.makedirs(out_dir, exist_ok=True)
    made = []
    if write_bars(os.path.join(out_dir, "tcp.dat"), switches, summary,
                  [("tcp", "1 stream"),
                   ("tcp-no-offload", "1 stream, offloads off"),
                   ("tcp8", "8 streams"),
                   ("tcp8-no-offload", "8 streams, offloads off")]):
        made.append("tcp")
    if write_bars(os.path.join(out_dir, "udp.dat"), switches, summary,
                  [("udp64", "64 bytes"),
                   ("udp1518", "1518 bytes (1514 without FCS)")]):
        made.append("udp")

    blocks = []
    for sw in switches:
        pts = [(n, summary[sw][w]["median"]) for w, n in FLOW_COUNTS
               if "median" in summary[sw].get(w, {})]
        blocks.append((sw, pts))
    if write_blocks(os.path.join(out_dir, "flows.dat"), blocks):
        made.append("flows")

    blocks = []
    for sw in switches:
        rtts = sorted(r for s in samples
                      if s["switch"] == sw and s["workload"] == "ping-avg"
                      for r in s.get("rtts_us") or [])
        blocks.append((sw, [(r, (i + 1) / len(rtts))
                            for i, r in enumerate(rtts)]))
    if write_blocks(os.path.join(out_dir, "ping-cdf.dat"), blocks):
        made.append("ping-cdf")

    # sockperf gives percentiles, not every RTT: plot the median run's.
    blocks = []
    for sw in switches:
        runs = [s for s in samples if s["switch"] == sw
                and s["workload"] == "sockperf-p50" and s.get("percentiles")]
        runs.sort(key=lambda s: s["value"])
        pts = []
        if runs:
            pcts = runs[len(runs) // 2]["percentiles"]
            pts = sorted((v, float(p) / 100.0) for p, v in pcts.items())
        blocks.append((sw, pts))
    if write_blocks(os.path.join(out_dir, "sockperf-cdf.dat"), blocks):
        made.append("sockperf-cdf")
    print(" ".join(made))


def main(argv):
    if len(argv) == 3 and argv[1] == "iperf":
        print(json.dumps(parse_iperf(argv[2])))
    elif len(argv) in (3, 4) and argv[1] == "ping":
        result = parse_ping(argv[2])
        if len(argv) == 4:
            result["value"] = result.get(argv[3] + "_us")
            if argv[3] != "avg":
                # Keep the individual RTTs once, with the avg sample.
                result.pop("rtts_us", None)
        print(json.dumps(result))
    elif len(argv) == 4 and argv[1] == "sockperf":
        result = parse_sockperf(argv[2])
        result["value"] = result.get(argv[3] + "_us")
        if argv[3] != "p50":
            result.pop("percentiles", None)
        print(json.dumps(result))
    elif len(argv) == 6 and argv[1] == "summarize":
        summarize(*argv[2:])
    elif len(argv) == 4 and argv[1] == "plotdata":
        plotdata(argv[2], argv[3])
    else:
        sys.exit("usage: report.py iperf FILE | ping FILE [METRIC] | "
                 "sockperf FILE METRIC | summarize SAMPLES META OUT_JSON "
                 "OUT_MD | plotdata REPORT_JSON DIR")


if __name__ == "__main__":
    main(sys.argv)
