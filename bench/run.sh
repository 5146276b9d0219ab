#!/bin/bash
# make bench: the benchmark programs with their same-run baselines.
# Figures, not tests: they print, they do not judge.
set -eu
BUILD=${1:-build}
echo "== DMA, local (Arm side): dma_bench -r 5"
"$BUILD/dpu/bench/dma/dma_bench" -r 5
echo
echo "== DMA, remote (host <-> Arm side): dma_bench --remote -r 5, then with huge-page backed exports"
"$BUILD/dpu/bench/dma/dma_bench" --remote --peer-build "$BUILD/host" -r 5
"$BUILD/dpu/bench/dma/dma_bench" --remote --peer-build "$BUILD/host" --exporter-thp -r 5
echo
echo "== Comch fast path vs AF_UNIX socketpair: comch_bench (host client, Arm-side peer)"
SOFTDOCA_PEER_BUILD_DIR="$BUILD/dpu" "$BUILD/host/bench/comch/comch_bench"
