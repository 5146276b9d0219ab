#!/bin/sh
# Build the libFuzzer targets with clang (ASan+UBSan) straight from the
# sources they need, then run each for SECONDS on a corpus seeded from
# tests/fuzz/corpus/<target>/. Exits non-zero on any crash, leak, hang
# (5 s per input) or build failure; the failing input is kept as
# <build-dir>/<target>-crash-* (or leak-*/timeout-*).
#
#   tests/fuzz/run_fuzz.sh SECONDS [BUILD_DIR [TARGET...]]
#
# Targets: fuzz_argp (argv), fuzz_argp_json (-j files), fuzz_topology
# (SOFTDOCA_TOPOLOGY files), fuzz_frame (fabric frames from a peer and the
# Comch fast-path shared memory); default all. meson test --suite fuzz runs
# each for 7 s. To fuzz longer:
#   tests/fuzz/run_fuzz.sh 600 /tmp/fuzz fuzz_frame   (10 minutes)
# or for a number of executions instead of a time (SECONDS then 0, or a cap):
#   FUZZ_RUNS=10000000 tests/fuzz/run_fuzz.sh 0 /tmp/fuzz fuzz_frame
# and to replay one input:  /tmp/fuzz/fuzz_frame <file>
# Each target ends with one line: executions, seconds, rate, corpus size.
# Without BUILD_DIR a temporary directory is used and removed afterwards
# (unless something failed). CC (default clang) picks the compiler.
set -eu

secs=${1:?usage: run_fuzz.sh SECONDS [BUILD_DIR [TARGET...]]}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cc=${CC:-clang}
case "$cc" in *clang*) ;; *) cc=clang ;; esac
all="fuzz_argp fuzz_argp_json fuzz_topology fuzz_frame"
if [ $# -ge 2 ]; then
	out=$2
	mkdir -p "$out"
	tmp=""
	shift 2
	targets=${*:-$all}
else
	targets=$all
	out=$(mktemp -d /tmp/softdoca-fuzz.XXXXXX)
	tmp=$out
fi
out=$(cd "$out" && pwd)

# The two generated headers, as meson would write them for the host flavor.
gen=$out/gen
mkdir -p "$gen"
api=$(sed -n "s/^doca_api_version = '\([0-9.]*\)'.*/\1/p" "$src/meson.build")
own=$(sed -n "s/^ *version : '\([0-9.]*\)'.*/\1/p" "$src/meson.build" | head -n 1)
if [ -z "$api" ] || [ -z "$own" ]; then
	echo "run_fuzz: cannot read versions from meson.build" >&2
	exit 1
fi
major=${api%%.*}
rest=${api#*.}
minor=${rest%%.*}
patch=${rest#*.}
sed -e "s/@DOCA_VER_MAJOR@/$major/" -e "s/@DOCA_VER_MINOR@/$minor/" -e "s/@DOCA_VER_PATCH@/$patch/" \
	-e "s/@DOCA_VER_STRING@/\"$api\"/" -e "s/@SOFTDOCA_VERSION@/\"$own\"/" \
	"$src/include/doca_version.h.in" >"$gen/doca_version.h.tmp"
mv "$gen/doca_version.h.tmp" "$gen/doca_version.h"
printf '#pragma once\n#define DOCA_ARCH_HOST\n#define DOCA_ARCH_DPU_BF2 false\n#define SOFTDOCA_FLAVOR "host"\n' >"$gen/doca_build_config.h"

json_cflags=$(pkg-config --cflags json-c)
json_libs=$(pkg-config --libs json-c)
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cflags="-g -O1 -std=gnu11 -DDOCA_ALLOW_EXPERIMENTAL_API -Wall -Wno-unused-parameter $san -I$gen -I$src/include -I$src/src/internal $json_cflags"

obj=$out/obj
mkdir -p "$obj"
compile() { # out.o source [extra flags]
	o=$1
	s=$2
	shift 2
	# shellcheck disable=SC2086
	$cc $cflags -fsanitize=fuzzer-no-link "$@" -c "$s" -o "$obj/$o"
}
compile log.o "$src/src/log/log.c"
compile error.o "$src/src/core/error.c"
compile version.o "$src/src/core/version.c"
base="$obj/log.o $obj/error.o $obj/version.o"
have_argp=""

for t in $targets; do
	case $t in
	fuzz_argp | fuzz_argp_json)
		if [ -z "$have_argp" ]; then
			# argp's exit() (after -h / -v) returns into the target instead of ending it
			argp_objs=""
			for f in "$src"/src/argp/*.c; do
				m=argp_$(basename "$f" .c).o
				compile "$m" "$f" -Dexit=sd_fuzz_exit
				argp_objs="$argp_objs $obj/$m"
			done
			compile fuzz_common.o "$here/fuzz_common.c"
			have_argp=1
		fi
		compile "$t.o" "$here/$t.c"
		deps="$obj/fuzz_common.o$argp_objs"
		;;
	fuzz_topology)
		# includes topology.c and topology_parse.c (the loader itself runs once per process)
		compile "$t.o" "$here/$t.c" -I"$src/src/dev" -Wno-unknown-warning-option
		deps=""
		;;
	fuzz_frame)
		for m in fabric/frame fabric/link_socket fabric/fabric_dir comch/fastpath_ring; do
			compile "${m#*/}.o" "$src/src/$m.c"
		done
		compile "$t.o" "$here/$t.c" -I"$src/src/comch"
		deps="$obj/frame.o $obj/link_socket.o $obj/fabric_dir.o $obj/fastpath_ring.o"
		;;
	*)
		echo "run_fuzz: unknown target $t" >&2
		exit 2
		;;
	esac
	# shellcheck disable=SC2086
	$cc $san -fsanitize=fuzzer -o "$out/$t" "$obj/$t.o" $deps $base $json_libs -lpthread
done

ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export ASAN_OPTIONS
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export UBSAN_OPTIONS
fail=0
for t in $targets; do
	corpus=$out/corpus/$t
	mkdir -p "$corpus"
	dict=""
	[ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
	limit="-max_total_time=$secs"
	if [ -n "${FUZZ_RUNS:-}" ]; then
		limit="-runs=$FUZZ_RUNS -max_total_time=$secs"
		echo "run_fuzz: $t for $FUZZ_RUNS executions"
	else
		echo "run_fuzz: $t for ${secs}s"
	fi
	t0=$(date +%s)
	# new inputs go to the scratch corpus (first dir), the committed seeds stay as they are;
	# -close_fd_mask=3 silences argp's usage text, crash reports still show
	# shellcheck disable=SC2086
	if ! "$out/$t" $limit -timeout=5 -rss_limit_mb=2048 -max_len=4096 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$out/$t-" $dict \
		"$corpus" "$here/corpus/$t" >"$out/$t.log" 2>&1; then
		echo "run_fuzz: $t FAILED, see $out/$t.log:" >&2
		tail -n 60 "$out/$t.log" >&2
		fail=1
	else
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -n 1)
		el=$(($(date +%s) - t0))
		[ "$el" -gt 0 ] || el=1
		n=$(find "$corpus" "$here/corpus/$t" -type f | wc -l)
		kib=$(($(cat "$corpus"/* "$here/corpus/$t"/* 2>/dev/null | wc -c) / 1024))
		echo "run_fuzz: $t: ${runs:-?} executions in $el s ($((${runs:-0} / el))/s), 0 crashes," \
			"corpus $n inputs ($kib KiB)"
	fi
done

if [ "$fail" -ne 0 ]; then
	exit 1
fi
[ -n "$tmp" ] && rm -rf "$tmp"
exit 0
