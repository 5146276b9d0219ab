#!/bin/bash
# Build applications/dma_copy and this flavor's DMA copy sample
# (samples/doca_dma/dma_copy_host or dma_copy_dpu) as their own meson
# projects, outside the source tree, against an installed softdoca flavor
# found only through PKG_CONFIG_PATH; check each binary is the right side.
# usage: dc_standalone.sh <install prefix> <flavor> <source root> <b_sanitize>
# Exits 77 (skip) when the flavor is not installed at <prefix>.
set -eu
stage=$(realpath -m "$1") flavor=$2 root=$(realpath "$3") sanitize=${4:-none}
. "$(dirname "$0")/../common/standalone.sh"
pcdir=$(standalone_pcdir "$stage")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The projects reach ../common, ../dma_common.c and ../../samples: keep that layout.
mkdir -p "$work/src/applications" "$work/src/samples/doca_dma"
cp -r "$root/applications/dma_copy" "$root/applications/common" "$work/src/applications/"
cp "$root/samples/common.c" "$root/samples/common.h" "$work/src/samples/"
cp -r "$root/samples/doca_dma/dma_copy_$flavor" "$root/samples/doca_dma/dma_common.c" \
	"$root/samples/doca_dma/dma_common.h" "$work/src/samples/doca_dma/"

standalone_build "$pcdir" "$sanitize" "$work/src/applications/dma_copy" "$work/app"
standalone_build "$pcdir" "$sanitize" "$work/src/samples/doca_dma/dma_copy_$flavor" "$work/sample"
export LD_LIBRARY_PATH="$(dirname "$pcdir")"
export SOFTDOCA_FABRIC="$work/fabric"
mkdir -m 700 "$SOFTDOCA_FABRIC"

app="$work/app/doca_dma_copy"
"$app" -v | grep -q "DOCA SDK" || { echo "-v printed no version" >&2; exit 1; }
if "$app" -p 03:00.0 -f "$work/x" >"$work/run.log" 2>&1 </dev/null; then
	echo "doca_dma_copy: unexpected success without a peer" >&2
	exit 1
fi
if [ "$flavor" = dpu ]; then
	grep -q "Missing mandatory flag -r/--rep-pci" "$work/run.log" ||
		{ echo "dpu build did not ask for -r" >&2; cat "$work/run.log"; exit 1; }
	"$work/sample/doca_dma_copy_dpu" -d "$work/none" >"$work/s.log" 2>&1 && exit 1
	grep -q "Failed to read the export descriptor file" "$work/s.log" || { cat "$work/s.log"; exit 1; }
else
	grep -q "Failed to open Comm Channel DOCA device" "$work/run.log" ||
		{ echo "host build: expected a device error" >&2; cat "$work/run.log"; exit 1; }
	"$work/sample/doca_dma_copy_host" -t "" >"$work/s.log" 2>&1 && exit 1
	grep -q "Entered text is empty" "$work/s.log" || { cat "$work/s.log"; exit 1; }
fi
echo "standalone doca_dma_copy and doca_dma_copy_$flavor build and run ($flavor)"
