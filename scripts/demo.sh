#!/bin/bash
# make demo: run the lesson's lab on the default emulated BlueField with the
# optimized builds of both flavors (build/host, build/dpu): the main steps and
# the failure rehearsals, each program typed as the lesson types it inside
# softdoca-shell arm|host; one report.md in the report folder it prints.
# Usage: demo.sh [BUILD [lab options...]]; options replace the default
# --in-shells --failures (e.g. 'demo.sh build --report-dir /tmp/r' runs the
# main steps only, with the build's own program paths).
set -u
BUILD=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --in-shells --failures
exec "$(dirname "$0")/softdoca-lab" --host-bin "$BUILD/host/stage/bin" --dpu-bin "$BUILD/dpu/stage/bin" "$@"
