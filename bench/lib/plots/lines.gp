# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
#
# One line per switch, for bench/lib/plot.sh: pps by flow count and the
# latency CDFs.  Variables (gnuplot -e): datafile (report.py's blocks of
# "x y" points, one block per switch, two blank lines apart), names (the
# blocks' switch names, space-separated, in order), out (PNG path),
# plottitle, xtitle, ytitle, kind ("flows": x is the flow count on a log
# axis; "cdf": x is an RTT in us on a log axis, y a fraction 0..1), style
# (a gnuplot "with" style: linespoints, steps).

set terminal pngcairo size 1000,600 noenhanced font "sans,10"
set output out
set title plottitle
set xlabel xtitle
set ylabel ytitle
set grid
set logscale x
set key outside right top
if (kind eq "flows") {
    set xrange [0.5:2000000]
    set xtics ("1" 1, "1k" 1023, "100k" 100172, "1M" 1001000)
    set yrange [0:*]
} else {
    set yrange [0:1]
    set ytics 0.1
}
n = words(names)
plot for [i=1:n] datafile index (i - 1) using 1:2 with @style lw 2 \
    title word(names, i)
