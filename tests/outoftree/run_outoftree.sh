#!/bin/bash
# Build tests/outoftree/project in a temporary folder outside the source tree
# with nothing but PKG_CONFIG_PATH pointing at an installed flavor (stage),
# run it, and check it saw the right flavor.
set -eu
stage=$(realpath -m "$1") flavor=$2 src=$(realpath "$3") sanitize=${4:-none}
pcdir="$stage/lib/pkgconfig"
if [ ! -f "$pcdir/doca-common.pc" ]; then
	echo "no installed flavor at $stage (run 'make build' first)" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/." "$work/src"
. "$(dirname "$0")/../common/standalone.sh"
standalone_build "$pcdir" "$sanitize" "$work/src" "$work/build"
out=$("$work/build/outoftree_probe")
echo "$out"
echo "$out" | grep -q "^side=$flavor " || { echo "expected side=$flavor" >&2; exit 1; }
echo "$out" | grep -q "DOCA_ERROR_BAD_STATE: " || { echo "error names missing" >&2; exit 1; }
