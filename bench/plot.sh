#!/bin/bash
# bench/plot.sh CSV PNG: draw bench/run.sh's CSV with gnuplot (Debian's gnuplot-nox).
# Left: throughput (GB/s, medians) against size for every benchmark measured;
# right: the oversubscribed run, each repetition's ratio (Comch fast path /
# AF_UNIX under the same competition; DMA 64 B loaded / quiet).
set -eu
CSV=$1
PNG=$2
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
# One data file per series: "size GB/s" of the medians; "rep ratio" of the loaded runs.
awk -F, -v d="$DIR" 'NR > 1 && $3 == "median" && $11 == 0 && $1 !~ /^dma_quiet/ {
		print $2, $5 > (d "/tp_" $1 ".dat") }
	NR > 1 && $3 != "median" && $11 > 0 && $8 > 0 {
		print $3, $8 > (d "/ld_" $1 "_" $2 ".dat") }' "$CSV"
tp="" ld=""
for f in memcpy dma dpdk_skeleton remote_memcpy remote_h2a remote_a2h remote_h2a_thp remote_a2h_thp comch_fp af_unix_seqpacket; do
	[ -s "$DIR/tp_$f.dat" ] && tp="$tp${tp:+, }'$DIR/tp_$f.dat' using 1:2 with linespoints title '${f//_/\\_}'"
done
for f in "$DIR"/ld_*.dat; do
	[ -s "$f" ] || continue
	n=$(basename "$f" .dat)
	n=${n#ld_}
	ld="$ld${ld:+, }'$f' using 1:2 with linespoints title '${n//_/\\_}'"
done
[ -n "$tp" ] || { echo "plot.sh: no throughput rows in $CSV" >&2; exit 1; }
{
	echo "set terminal pngcairo size 1600,700 font ',10'"
	echo "set output '$PNG'"
	echo "set multiplot layout 1,2 title 'softdoca make bench: $(date -u +%Y-%m-%d), $(nproc) CPUs'"
	echo "set logscale xy; set grid; set key left top; set xlabel 'size (bytes)'; set ylabel 'GB/s (median)'"
	echo "set title 'throughput vs size'"
	echo "plot $tp"
	if [ -n "$ld" ]; then
		echo "unset logscale x; set logscale y; set xlabel 'repetition'; set ylabel 'ratio'; set xtics 1"
		echo "set title 'oversubscribed: Comch fp / AF\\_UNIX under the same load; DMA loaded / quiet'"
		echo "set key outside bottom center horizontal"
		echo "plot $ld, 1 with lines dashtype 2 lc 'gray' notitle"
	fi
	echo "unset multiplot"
} >"$DIR/plot.gp"
gnuplot "$DIR/plot.gp"
