#!/bin/bash
# make demo: run the lesson's lab on the default emulated BlueField with the
# optimized builds of both flavors (build/host, build/dpu).
set -u
BUILD=${1:-build}
exec "$(dirname "$0")/softdoca-lab" --host-bin "$BUILD/host/stage/bin" --dpu-bin "$BUILD/dpu/stage/bin"
