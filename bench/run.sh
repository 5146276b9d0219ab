#!/bin/bash
# make bench: the benchmark programs with their same-run baselines and peer.
# Figures, not tests: they print, they do not judge.
#
# usage: bench/run.sh [BUILD]   (BUILD: the folder with dpu/ and host/ builds; default build)
#   BENCH_QUICK=1   about a minute: shorter repetitions, fewer sizes (for iterating)
#   BENCH_OUT=DIR   where bench.csv and bench.png go (default BUILD/bench)
#   BENCH_REPS=N    repetitions per row (default 5; the median of >= 5 is what we quote)
#
# Every row is the median of the repetitions with its spread (max-min)/median
# and CPU cost; see bench/common/bench_util.h for the columns. A step that
# cannot run (the DPDK peer not installed, gnuplot missing, a program that
# fails) is reported and the others still run; the exit status is 1 if a
# softdoca benchmark failed.
set -u
BUILD=${1:-build}
OUT=${BENCH_OUT:-$BUILD/bench}
REPS=${BENCH_REPS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	T=0.05 MAXSZ=$((4 << 20)) REMOTE_ARGS="-s $((1 << 20))" CT=0.05
else
	T=0.3 MAXSZ=$((64 << 20)) REMOTE_ARGS="" CT=0.3
fi
mkdir -p "$OUT" || exit 1
CSV=$OUT/bench.csv
echo "bench,size,rep,ops_per_s,gb_per_s,cpu_s_per_gb,cpu_s_per_mop,ratio,ratio_to,spread,load" >"$CSV"
DMA=$BUILD/dpu/bench/dma/dma_bench
PEER=$BUILD/dpu/bench/dma/dpdk_dma_bench
COMCH=$BUILD/host/bench/comch/comch_bench
failed=0
start=$(date +%s)

# step TITLE CMD...: run one benchmark; a failure is reported, not fatal.
step() {
	local title=$1 rc
	shift
	echo "== $title"
	echo "\$ $*"
	"$@"
	rc=$?
	[ $rc -ne 0 ] && echo "!! $title: exit status $rc" && failed=1
	echo
	return $rc
}

echo "softdoca bench: $(nproc) CPU(s), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"\
" load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "columns: ops/s and GB/s are medians of $REPS repetitions; spread = (max-min)/median of ops/s; cpu-s/GB and"
echo "cpu-s/Mop = CPU seconds (user+sys, all threads and the peer process) per GB moved and per million operations;"
echo "ratio = median of per-repetition ratios to the row named in 'vs', rspread their spread"
echo

step "DMA, local (Arm side) vs memcpy" "$DMA" -r "$REPS" -t $T --max-size $MAXSZ --csv "$CSV"

echo "== Peer in the same run: DPDK dmadev dma_skeleton (same sizes, same in-flight depth)"
if [ -x "$PEER" ]; then
	echo "\$ $PEER -r $REPS -t $T --max-size $MAXSZ"
	"$PEER" -r "$REPS" -t $T --max-size $MAXSZ --csv "$CSV"
	rc=$?
	if [ $rc -eq 3 ]; then
		echo "!! the DPDK peer cannot run here (see its message above); no softdoca/DPDK ratio in this run"
	elif [ $rc -ne 0 ]; then
		echo "!! the DPDK peer failed (exit status $rc); no softdoca/DPDK ratio in this run"
	else
		echo "softdoca DMA / DPDK dma_skeleton (medians, this run):"
		awk -F, '$3 == "median" && $1 == "dma" { d[$2] = $4 }
			$3 == "median" && $1 == "dpdk_skeleton" { p[$2] = $4; o[++n] = $2 }
			END { for (i = 1; i <= n; i++) if (o[i] in d && p[o[i]] > 0)
				printf "  %10d B  %12.0f / %12.0f tasks/s = %6.3fx\n", o[i], d[o[i]], p[o[i]], d[o[i]] / p[o[i]] }' "$CSV"
	fi
else
	echo "!! the DPDK peer is not built: DPDK's development files were not found when $BUILD/dpu was configured"
	echo "   (install them with: sudo scripts/install-deps.sh --bench, then make build)"
fi
echo

step "DMA, remote (host <-> Arm side), 4 KiB-page export" \
	"$DMA" --remote --peer-build "$BUILD/host" -r "$REPS" -t $T $REMOTE_ARGS --csv "$CSV"
step "DMA, remote, huge-page (THP) export" \
	"$DMA" --remote --peer-build "$BUILD/host" --exporter-thp -r "$REPS" -t $T $REMOTE_ARGS --csv "$CSV"

export SOFTDOCA_PEER_BUILD_DIR=$BUILD/dpu
step "Comch fast path vs AF_UNIX SOCK_SEQPACKET (host client, Arm-side peer)" \
	"$COMCH" -r "$REPS" -t $CT --csv "$CSV"

echo "== Remote DMA over UCX (TCP on a veth between two network namespaces) vs iperf3 between them"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	echo "(left out with BENCH_QUICK=1)"
else
	echo "\$ BENCH_REPS=$REPS BENCH_CSV=$CSV $HERE/ucx/run_ucx.sh $BUILD"
	BENCH_REPS=$REPS BENCH_CSV=$CSV "$HERE/ucx/run_ucx.sh" "$BUILD"
	rc=$?
	[ $rc -eq 77 ] && echo "!! skipped (see the reason above); no UCX column in this run"
	[ $rc -ne 0 ] && [ $rc -ne 77 ] && echo "!! the UCX benchmark failed (exit status $rc)" && failed=1
fi
echo

echo "== Oversubscribed: busy-loop processes competing (1, then 2 per core); ratios per repetition"
for n in 1 2; do
	step "Comch 64 B / 64 KiB vs AF_UNIX, $n busy loop(s) per core" "$COMCH" -r "$REPS" -t $CT --load $n --csv "$CSV"
	step "DMA 64 B vs its quiet figure, $n busy loop(s) per core" "$DMA" -s 64 -r "$REPS" -t $T --load $n --csv "$CSV"
done

echo "== Plot"
if command -v gnuplot >/dev/null 2>&1; then
	if "$HERE/plot.sh" "$CSV" "$OUT/bench.png"; then
		echo "wrote $OUT/bench.png"
	else
		echo "!! gnuplot failed; the figures are in the CSV"
	fi
else
	echo "!! gnuplot is not installed (sudo scripts/install-deps.sh --bench); no plot, the figures are in the CSV"
fi
echo "CSV: $CSV ($(($(wc -l <"$CSV") - 1)) rows); $(($(date +%s) - start)) s"
exit $failed
