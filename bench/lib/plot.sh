#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Plots for bench/run-bench.sh: reads a report (bench-STAMP.json), has
# report.py write the data files, and runs the gnuplot scripts in
# bench/lib/plots/ on them, making PNGs in DIR:
#
#   tcp.png           TCP Gbit/s per switch: 1 and 8 streams, offloads on
#                     and off (bars: medians, whiskers: min-max)
#   udp.png           64- and 1518-byte UDP Mpps per switch
#   flows.png         64-byte Mpps by number of flows, one line per switch
#   ping-cdf.png      CDF of the individual ping RTTs of all runs
#   sockperf-cdf.png  sockperf RTT percentiles (the median run's)
#
# A plot whose workloads were not run is left out.  The data files stay
# next to the PNGs.
#
# Usage: plot.sh REPORT_JSON DIR
# Exit status: 0 done, 1 error, 77 gnuplot is not installed.

set -euo pipefail

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ $# -ne 2 ]]; then
    echo "usage: plot.sh REPORT_JSON DIR" >&2
    exit 1
fi
json=$1
dir=$2
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plot.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2
    exit 77
fi
mkdir -p "$dir"
read -r -a made <<<"$(python3 "$LIB_DIR/report.py" plotdata "$json" "$dir")"

# names FILE: the block names of a data file, space-separated.
names()
{
    tr '\n' ' ' <"${1%.dat}.names"
}

# legends FILE: gnuplot assignments n=N; t1='...'; ... tN='...' from the
# legends of a bar chart's data file.
legends()
{
    local line i=0 out=
    while IFS= read -r line; do
        i=$((i + 1))
        out+="t$i='$line'; "
    done <"${1%.dat}.names"
    printf 'n=%d; %s' "$i" "$out"
}

for plot in "${made[@]}"; do
    case $plot in
    tcp)
        gnuplot -e "datafile='$dir/tcp.dat'; out='$dir/tcp.png'" \
            -e "plottitle='TCP throughput, iperf3 bnA -> bnB (receiver)'" \
            -e "ytitle='Gbit/s'" \
            -e "$(legends "$dir/tcp.dat")" \
            "$LIB_DIR/plots/bars.gp"
        ;;
    udp)
        gnuplot -e "datafile='$dir/udp.dat'; out='$dir/udp.png'" \
            -e "plottitle='UDP frames received by bnB, 1 flow'" \
            -e "ytitle='Mpps'" \
            -e "$(legends "$dir/udp.dat")" \
            "$LIB_DIR/plots/bars.gp"
        ;;
    flows)
        gnuplot -e "datafile='$dir/flows.dat'; out='$dir/flows.png'" \
            -e "names='$(names "$dir/flows.dat")'" \
            -e "plottitle='64-byte UDP by number of distinct 5-tuples'" \
            -e "xtitle='flows'; ytitle='Mpps'; kind='flows'" \
            -e "style='linespoints'" "$LIB_DIR/plots/lines.gp"
        ;;
    ping-cdf)
        gnuplot -e "datafile='$dir/ping-cdf.dat'; out='$dir/ping-cdf.png'" \
            -e "names='$(names "$dir/ping-cdf.dat")'" \
            -e "plottitle='ping RTT, CDF of every reply of every run'" \
            -e "xtitle='RTT (us)'; ytitle='fraction'; kind='cdf'" \
            -e "style='steps'" "$LIB_DIR/plots/lines.gp"
        ;;
    sockperf-cdf)
        gnuplot -e "datafile='$dir/sockperf-cdf.dat'" \
            -e "out='$dir/sockperf-cdf.png'" \
            -e "names='$(names "$dir/sockperf-cdf.dat")'" \
            -e "plottitle='sockperf UDP ping-pong RTT, median run'" \
            -e "xtitle='RTT (us)'; ytitle='fraction'; kind='cdf'" \
            -e "style='linespoints'" "$LIB_DIR/plots/lines.gp"
        ;;
    esac
done
ls "$dir"/*.png 2>/dev/null || true
