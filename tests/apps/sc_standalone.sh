#!/bin/bash
# Build applications/secure_channel as its own meson project, outside the
# source tree, against an installed softdoca flavor found only through
# PKG_CONFIG_PATH, then check the binary is the right side.
# usage: sc_standalone.sh <install prefix> <flavor> <source root> <b_sanitize>
# Exits 77 (skip) when the flavor is not installed at <prefix>.
set -eu
stage=$(realpath -m "$1") flavor=$2 root=$(realpath "$3") sanitize=${4:-none}
. "$(dirname "$0")/../common/standalone.sh"
pcdir=$(standalone_pcdir "$stage")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The project reaches ../common and ../../samples: keep that layout.
mkdir -p "$work/src/applications" "$work/src/samples"
cp -r "$root/applications/secure_channel" "$root/applications/common" "$work/src/applications/"
cp "$root/samples/common.c" "$root/samples/common.h" "$work/src/samples/"
standalone_build "$pcdir" "$sanitize" "$work/src/applications/secure_channel" "$work/build"
bin="$work/build/doca_secure_channel"
export LD_LIBRARY_PATH="$stage/lib"
"$bin" -v | grep -q "DOCA SDK" || { echo "-v printed no version" >&2; exit 1; }
# Without -r the Arm side (server) must refuse; the host side (client) does not need it.
if "$bin" -s 16 -n 1 -p 03:00.0 >"$work/run.log" 2>&1 </dev/null; then
	echo "unexpected success without a peer" >&2
	cat "$work/run.log"
	exit 1
fi
if [ "$flavor" = dpu ]; then
	grep -q "rep-pci" "$work/run.log" || { echo "dpu build did not ask for -r" >&2; cat "$work/run.log"; exit 1; }
else
	# the host has no 03:00.0: a device error, not an argument error
	grep -q "Failed to open Comm Channel DOCA device" "$work/run.log" ||
		{ echo "host build: expected a device error" >&2; cat "$work/run.log"; exit 1; }
fi
echo "standalone secure_channel ($flavor) built and checked"
