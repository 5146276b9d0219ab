#!/bin/bash
# The lesson's own build of dma_local_copy: its meson project, outside the
# source tree, against an installed flavor through PKG_CONFIG_PATH only
# ("meson /tmp/build-dma && ninja -C /tmp/build-dma"), then the lesson's run.
# usage: dlc_standalone.sh <install prefix> <flavor> <source root> <b_sanitize>
set -eu
stage=$(realpath -m "$1") flavor=$2 root=$(realpath "$3") sanitize=${4:-none}
. "$(dirname "$0")/../common/standalone.sh"
pcdir=$(standalone_pcdir "$stage")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The project reaches ../dma_common.c and ../../common.c: keep that layout.
mkdir -p "$work/src/samples/doca_dma"
cp "$root/samples/common.c" "$root/samples/common.h" "$work/src/samples/"
cp -r "$root/samples/doca_dma/dma_local_copy" "$root/samples/doca_dma/dma_common.c" \
	"$root/samples/doca_dma/dma_common.h" "$work/src/samples/doca_dma/"
standalone_build "$pcdir" "$sanitize" "$work/src/samples/doca_dma/dma_local_copy" "$work/build-dma"
bin="$work/build-dma/doca_dma_local_copy"
if [ "$flavor" = dpu ]; then
	"$bin" -p 03:00.0 -t "hello dell lab" -nt 4 >"$work/run.log" 2>&1 || { cat "$work/run.log"; exit 1; }
	n=$(grep -c "Success, DMA memory task [0-3] copied and verified as correct" "$work/run.log")
	[ "$n" -eq 4 ] || { echo "expected 4 success lines, got $n" >&2; cat "$work/run.log"; exit 1; }
	grep -q "Sample finished successfully" "$work/run.log" || { cat "$work/run.log"; exit 1; }
else
	if "$bin" -p 3b:00.0 >"$work/run.log" 2>&1; then
		echo "host build ran a local copy" >&2
		exit 1
	fi
	grep -q "Local DMA copy can run only on the DPU" "$work/run.log" || { cat "$work/run.log"; exit 1; }
fi
echo "standalone dma_local_copy ($flavor) built with pkg-config only and ran as the lesson says"
