#!/bin/sh
# doca_bench tests: tests/doca_bench/doca_bench_test.sh DOCA_BENCH opts|local|remote
# Each case runs in a private fabric and temporary folder, removed at exit.
set -u
BENCH=$1
CASE=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/doca_bench_test.XXXXXX") || exit 1
export SOFTDOCA_FABRIC="$T/fabric"
mkdir -p "$SOFTDOCA_FABRIC"
CPID=
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect RC PATTERN ARGS...: exit status RC and PATTERN in stdout+stderr
expect() {
	want=$1 pat=$2
	shift 2
	"$BENCH" "$@" > "$T/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || fail "doca_bench $*: exit $rc, expected $want: $(head -c 400 "$T/out")"
	grep -q -- "$pat" "$T/out" || fail "doca_bench $*: no '$pat' in: $(head -c 400 "$T/out")"
}

case_opts() {
	expect 0 'pipeline-steps' --help
	expect 0 'doca_bench 3.3.0' --version
	expect 2 "pipeline step 'doca_sha' is not supported" --pipeline-steps doca_sha
	expect 2 'Comch pipelines are not implemented' --pipeline-steps doca_comch::producer
	expect 2 'exactly one doca_dma step' --pipeline-steps doca_dma,doca_dma
	expect 2 'option --attribute is not supported' --pipeline-steps doca_dma --attribute a=b
	expect 2 'option --query is not supported' --query
	expect 2 "precision-latency is not supported" --pipeline-steps doca_dma --mode precision-latency
	expect 2 "data-provider 'file' is not supported" --pipeline-steps doca_dma --data-provider file
	expect 2 "unknown option '--frobnicate'" --pipeline-steps doca_dma --frobnicate
	expect 2 'needs a value' --pipeline-steps doca_dma --uniform-job-size
	expect 2 "invalid value '12x' for --uniform-job-size" --pipeline-steps doca_dma --uniform-job-size 12x
	expect 2 "invalid value '0' for --uniform-job-size" --pipeline-steps doca_dma --uniform-job-size 0
	expect 2 "invalid value '-5' for --run-limit-jobs" --pipeline-steps doca_dma --run-limit-jobs -5
	expect 2 "invalid value 'abc' for --run-limit-seconds" --pipeline-steps doca_dma --run-limit-seconds abc
	expect 2 "invalid value '5-2' for --core-list" --pipeline-steps doca_dma --core-list 5-2
	expect 2 "invalid value '0' for --core-mask" --pipeline-steps doca_dma --core-mask 0
	expect 2 'core-count 4 is more than the 1 selected' --pipeline-steps doca_dma --core-list 0 --core-count 4
	expect 2 'is smaller than --uniform-job-size' --pipeline-steps doca_dma --uniform-job-size 4096 \
		--job-output-buffer-size 64
	expect 2 "sweeping 'job-count' is not supported" --pipeline-steps doca_dma --sweep job-count,1,2
	expect 2 "invalid value 'uniform-job-size,64,8,+1' for --sweep" --pipeline-steps doca_dma \
		--sweep uniform-job-size,64,8,+1
	expect 2 'is required' --run-limit-jobs 5
	expect 2 'need --companion-connection-string' --pipeline-steps doca_dma --use-remote-input-buffers
	expect 2 'give file=PATH' --pipeline-steps doca_dma --use-remote-input-buffers \
		--companion-connection-string proto=tcp,addr=1.2.3.4
	expect 2 'one side of a DMA copy must be local' --pipeline-steps doca_dma --use-remote-input-buffers \
		--use-remote-output-buffers --companion-connection-string file=/nonexistent
	expect 2 "unexpected argument 'extra'" --pipeline-steps doca_dma extra
	expect 1 'no device at 7f:00.0' --pipeline-steps doca_dma --device 7f:00.0 --run-limit-jobs 5
	expect 1 "not a PCI address" --pipeline-steps doca_dma --device zz --run-limit-jobs 5
	expect 1 'core 200 is not available' --pipeline-steps doca_dma --core-list 200 --run-limit-jobs 5
}

# check_report FILE: the stats block has every field, with sane values
check_report() {
	for f in 'Aggregate stats' 'Duration:' 'Enqueued jobs:' 'Dequeued jobs:' 'MOperations/s' 'Ingress rate:' \
		'Egress rate:' 'bytes/s' 'min:' 'median:' 'p99:' 'max:' '\[main\] Completed'; do
		grep -q "$f" "$1" || fail "no '$f' in the report"
	done
}

case_local() {
	"$BENCH" --pipeline-steps doca_dma --uniform-job-size 1024 --run-limit-jobs 300 --warm-up-jobs 20 \
		--sweep uniform-job-size,64,4096,*4 --csv-output-file "$T/r.csv" > "$T/out" 2>&1 ||
		fail "local run failed: $(cat "$T/out")"
	check_report "$T/out"
	[ "$(grep -c 'Aggregate stats' "$T/out")" = 4 ] || fail "expected 4 permutations"
	[ "$(grep -c 'Dequeued jobs: 300$' "$T/out")" = 4 ] || fail "expected 300 jobs per permutation"
	# CSV: header + one row per sweep value, same column count, the swept size in column 4
	awk -F, 'NR == 1 { n = NF; if ($1 != "cfg.pipeline_steps" || $14 != "stats.dequeued_jobs") bad = 1; next }
		{ if (NF != n || $1 != "doca_dma" || $14 != 300 || $15 <= 0) bad = 1; sizes = sizes $4 " " }
		END { if (bad || NR != 5 || sizes != "64 256 1024 4096 ") { print "bad csv: " sizes; exit 1 } }' \
		"$T/r.csv" || fail "CSV: $(cat "$T/r.csv")"
	# append mode: no second header
	"$BENCH" --pipeline-steps doca_dma --run-limit-jobs 50 --csv-output-file "$T/r.csv" --csv-append-mode \
		> "$T/out" 2>&1 || fail "append run failed: $(cat "$T/out")"
	[ "$(grep -c '^cfg\.' "$T/r.csv")" = 1 ] && [ "$(wc -l < "$T/r.csv")" = 6 ] || fail "append mode CSV"
	# latency mode, two threads on one core, a time limit
	"$BENCH" --pipeline-steps doca_dma --mode latency --threads-per-core 2 --run-limit-seconds 0.2 \
		--warm-up-jobs 5 > "$T/out" 2>&1 || fail "latency run failed: $(cat "$T/out")"
	check_report "$T/out"
	grep -q 'Jobs in flight/thread:  1$' "$T/out" || fail "latency mode keeps one job in flight"
}

case_remote() {
	peer=${SOFTDOCA_PEER_BUILD_DIR:-}
	[ -n "$peer" ] && [ -x "$peer/tools/doca_bench" ] || { echo "SKIP: no peer build with doca_bench"; exit 77; }
	if [ "${SOFTDOCA_FLAVOR:-}" = dpu ]; then mine=03:00.0 theirs=3b:00.0; else mine=3b:00.0 theirs=03:00.0; fi
	env -u LD_LIBRARY_PATH "$peer/tools/doca_bench" --companion --device "$theirs" --companion-connection-string "file=$T/desc" \
		--companion-memory-size 8388608 --run-limit-seconds 15 > "$T/comp" 2>&1 &
	CPID=$!
	"$BENCH" --pipeline-steps doca_dma --device "$mine" --use-remote-output-buffers \
		--companion-connection-string "file=$T/desc" --uniform-job-size 8192 --data-provider-job-count 8 \
		--run-limit-jobs 400 --sweep uniform-job-size,4096,8192,+4096 > "$T/out" 2>&1 ||
		fail "remote run failed: $(cat "$T/out")"
	check_report "$T/out"
	grep -q 'Output buffers:         remote' "$T/out" || fail "output not remote"
	wait "$CPID" || fail "companion failed: $(cat "$T/comp")"
	CPID=
	grep -q 'descriptor was consumed' "$T/comp" || fail "companion: $(cat "$T/comp")"
	[ ! -e "$T/desc" ] && [ ! -e "$T/desc.tmp" ] || fail "descriptor left behind"
	# remote input, the same way
	env -u LD_LIBRARY_PATH "$peer/tools/doca_bench" --companion --device "$theirs" \
		--companion-connection-string "file=$T/desc" --companion-memory-size 8388608 --run-limit-seconds 15 \
		> "$T/comp" 2>&1 &
	CPID=$!
	"$BENCH" --pipeline-steps doca_dma --device "$mine" --use-remote-input-buffers \
		--companion-connection-string "file=$T/desc" --uniform-job-size 65536 --run-limit-jobs 200 \
		> "$T/out" 2>&1 || fail "remote input run failed: $(cat "$T/out")"
	check_report "$T/out"
	grep -q 'Input buffers:          remote' "$T/out" || fail "input not remote"
	wait "$CPID" || fail "companion failed: $(cat "$T/comp")"
	CPID=
	# too little exported memory is a clear error, and the companion still ends
	env -u LD_LIBRARY_PATH "$peer/tools/doca_bench" --companion --device "$theirs" --companion-connection-string "file=$T/desc" \
		--companion-memory-size 4096 --run-limit-seconds 15 > "$T/comp" 2>&1 &
	CPID=$!
	"$BENCH" --pipeline-steps doca_dma --device "$mine" --use-remote-input-buffers \
		--companion-connection-string "file=$T/desc" --uniform-job-size 65536 --run-limit-jobs 10 \
		> "$T/out" 2>&1 && fail "a too small export was accepted"
	grep -q 'companion exported 4096' "$T/out" || fail "too small export: $(cat "$T/out")"
	wait "$CPID" || fail "companion failed after the error: $(cat "$T/comp")"
	CPID=
}

case "$CASE" in
opts) case_opts ;;
local) case_local ;;
remote) case_remote ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
