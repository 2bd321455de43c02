# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# Bar chart of medians per switch with min-max error bars, for
# bench/lib/plot.sh.  Variables (gnuplot -e): datafile (report.py's
# tcp.dat or udp.dat: a header, then one row per switch with median, min
# and max per workload, "-" when missing), out (PNG path), plottitle,
# ytitle, n (the number of workloads) and t1 .. tN (their legend
# entries, in column order).

set terminal pngcairo size 1100,600 noenhanced font "sans,10"
set output out
set title plottitle
set datafile missing "-"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key below horizontal
set grid ytics
set ylabel ytitle
set yrange [0:*]
set xtics rotate by -20 nomirror
plot for [i=1:n] datafile skip 1 \
    using (column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)):xtic(1) \
    title value(sprintf("t%d", i))
