#!/bin/sh
# doca_bench tests: tests/doca_bench/doca_bench_test.sh DOCA_BENCH opts|local|remote|comch
# Each case runs in a private fabric and temporary folder, removed at exit.
set -u
BENCH=$1
CASE=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/doca_bench_test.XXXXXX") || exit 1
export SOFTDOCA_FABRIC="$T/fabric"
mkdir -m 700 -p "$SOFTDOCA_FABRIC"
CPID=
cleanup() {
	if [ -n "$CPID" ]; then kill "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null; fi
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
	expect 2 "pipeline step 'doca_comch::bogus' is not supported" --pipeline-steps doca_comch::bogus
	expect 2 'multi-step pipelines are not supported' --pipeline-steps doca_dma,doca_dma
	expect 2 'multi-step pipelines are not supported' --pipeline-steps doca_comch::producer,doca_dma
	expect 2 'multi-step pipelines are not supported' --pipeline-steps doca_comch::producer,doca_comch::consumer
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
	# the Comch steps
	expect 2 'needs --companion-connection-string comch=NAME' --pipeline-steps doca_comch::producer
	expect 2 'needs --companion-connection-string comch=NAME' --pipeline-steps doca_comch::consumer \
		--companion-connection-string file=/nonexistent
	expect 2 'the name must have 1 to 120' --pipeline-steps doca_comch::producer \
		--companion-connection-string comch=
	expect 2 "may not hold spaces" --pipeline-steps doca_comch::producer --companion-connection-string "comch=a b"
	expect 2 'runs on one thread' --pipeline-steps doca_comch::producer --companion-connection-string comch=x \
		--threads-per-core 2
	expect 2 'runs on one thread' --pipeline-steps doca_comch::consumer --companion-connection-string comch=x \
		--core-list 0,1
	expect 2 'runs on one thread' --pipeline-steps doca_comch::consumer --companion-connection-string comch=x \
		--core-list 0,1 --sweep core-count,1,2
	expect 2 'not supported with doca_comch::producer' --pipeline-steps doca_comch::producer \
		--companion-connection-string comch=x --use-remote-input-buffers
	expect 2 'job-output-buffer-size is not supported with doca_comch::consumer' \
		--pipeline-steps doca_comch::consumer --companion-connection-string comch=x \
		--job-output-buffer-size 4096
	expect 2 'needs --companion-connection-string file=PATH (doca_dma) or comch=NAME' --companion \
		--companion-connection-string tcp=1.2.3.4
	# sizes the device cannot take are refused from the capability query, before any connection
	expect 1 "above the device's Comch producer maximum of [0-9]* bytes per message" \
		--pipeline-steps doca_comch::producer --companion-connection-string comch=x \
		--uniform-job-size 1073741824
	expect 1 "job size 1073741824 is above the device's Comch consumer maximum" \
		--pipeline-steps doca_comch::consumer --companion-connection-string comch=x \
		--sweep uniform-job-size,64,1073741824
	expect 1 'core 200 is not available' --pipeline-steps doca_comch::consumer \
		--companion-connection-string comch=x --core-list 200
	expect 1 "the run needs 16384 MiB of message buffers" --pipeline-steps doca_comch::producer \
		--companion-connection-string comch=x --data-provider-job-count 4096 --uniform-job-size 4194304
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
	# throughput mode times one job in 64 (jobs 0, 64, ..., 256)
	[ "$(grep -c 'submit to completion, 5 samples' "$T/out")" = 4 ] || fail "throughput mode: 5 timed jobs of 300"
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
	# ... and times every job
	"$BENCH" --pipeline-steps doca_dma --mode latency --run-limit-jobs 300 > "$T/out" 2>&1 ||
		fail "latency run failed: $(cat "$T/out")"
	grep -q 'submit to completion, 300 samples' "$T/out" || fail "latency mode: every job timed: $(cat "$T/out")"
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

# companion NAME [ENV=VALUE...]: start the other flavor's doca_bench as the Comch companion
companion() {
	name=$1
	shift
	env -u LD_LIBRARY_PATH "$@" "$peer/tools/doca_bench" --companion --device "$theirs" \
		--companion-connection-string "comch=$name" --run-limit-seconds 20 > "$T/comp" 2>&1 &
	CPID=$!
}

# companion_ok: the companion ended by itself, cleanly
companion_ok() {
	wait "$CPID" || fail "companion failed: $(cat "$T/comp")"
	CPID=
	grep -q 'the session ended' "$T/comp" || fail "companion: $(cat "$T/comp")"
}

# companion_failed: the companion ended by itself with exit status 1 (an error it reported, not a crash)
companion_failed() {
	wait "$CPID"
	rc=$?
	CPID=
	[ "$rc" = 1 ] || fail "companion: exit $rc, expected 1: $(cat "$T/comp")"
}

# failed_run: the last run exited with status 1 (a reported error, not a crash or a sanitizer report)
failed_run() {
	[ "$1" = 1 ] || fail "$2: exit $1, expected 1: $(cat "$T/out")"
}

case_comch() {
	peer=${SOFTDOCA_PEER_BUILD_DIR:-}
	[ -n "$peer" ] && [ -x "$peer/tools/doca_bench" ] || { echo "SKIP: no peer build with doca_bench"; exit 77; }
	if [ "${SOFTDOCA_FLAVOR:-}" = dpu ]; then mine=03:00.0 theirs=3b:00.0; else mine=3b:00.0 theirs=03:00.0; fi
	n=bench$$
	# producer: a job-size sweep, exact job counts, CSV rows
	companion $n
	"$BENCH" --pipeline-steps doca_comch::producer --device "$mine" --companion-connection-string "comch=$n" \
		--run-limit-jobs 500 --warm-up-jobs 20 --sweep uniform-job-size,1,4096,*8 \
		--csv-output-file "$T/c.csv" > "$T/out" 2>&1 || fail "producer run failed: $(cat "$T/out")"
	check_report "$T/out"
	grep -q 'Pipeline steps:         doca_comch::producer' "$T/out" || fail "producer: no step name"
	grep -q 'Latency report (doca_comch::producer, send submit to completion' "$T/out" || fail "producer latency"
	[ "$(grep -c 'Dequeued jobs: 500$' "$T/out")" = 5 ] || fail "producer: expected 500 jobs x 5: $(cat "$T/out")"
	[ "$(grep -c 'completion, 8 samples' "$T/out")" = 5 ] || fail "producer: one job in 64 timed: $(cat "$T/out")"
	companion_ok
	grep -q 'consuming 4096-byte messages' "$T/comp" || fail "companion did not consume: $(cat "$T/comp")"
	# consumer: the companion produces; appended to the same CSV
	companion $n
	"$BENCH" --pipeline-steps doca_comch::consumer --device "$mine" --companion-connection-string "comch=$n" \
		--run-limit-jobs 300 --sweep uniform-job-size,64,65536 --csv-output-file "$T/c.csv" --csv-append-mode \
		> "$T/out" 2>&1 || fail "consumer run failed: $(cat "$T/out")"
	check_report "$T/out"
	grep -q 'Latency report (doca_comch::consumer, receive post to completion' "$T/out" || fail "consumer latency"
	[ "$(grep -c 'Dequeued jobs: 300$' "$T/out")" = 2 ] || fail "consumer: expected 300 jobs x 2: $(cat "$T/out")"
	[ "$(grep -c 'completion, 5 samples' "$T/out")" = 2 ] || fail "consumer: one job in 64 timed: $(cat "$T/out")"
	companion_ok
	grep -q 'producing 65536-byte messages' "$T/comp" || fail "companion did not produce: $(cat "$T/comp")"
	# the CSV: one header, the DMA step's columns, a row per permutation
	awk -F, 'NR == 1 { n = NF; if ($1 != "cfg.pipeline_steps" || $14 != "stats.dequeued_jobs") bad = 1; next }
		NR <= 6 { if (NF != n || $1 != "doca_comch::producer" || $14 != 500 || $15 <= 0) bad = 1; s = s $4 " " }
		NR > 6 { if (NF != n || $1 != "doca_comch::consumer" || $14 != 300 || $16 <= 0) bad = 1; s = s $4 " " }
		END { if (bad || NR != 8 || s != "1 8 64 512 4096 64 65536 ") { print "bad csv: " s; exit 1 } }' \
		"$T/c.csv" || fail "CSV: $(cat "$T/c.csv")"
	# time limits, latency mode, both steps
	for step in producer consumer; do
		companion $n
		"$BENCH" --pipeline-steps doca_comch::$step --device "$mine" --companion-connection-string "comch=$n" \
			--mode latency --run-limit-seconds 0.3 --warm-up-jobs 5 --uniform-job-size 256 \
			> "$T/out" 2>&1 ||
			fail "$step latency run failed: $(cat "$T/out")"
		check_report "$T/out"
		grep -q 'Jobs in flight/thread:  1$' "$T/out" || fail "$step: latency mode keeps one job in flight"
		companion_ok
	done
	# a spoiled message is found at the receiving end and fails the run: companion receiving...
	companion $n
	SOFTDOCA_BENCH_CORRUPT_SEQ=130 "$BENCH" --pipeline-steps doca_comch::producer --device "$mine" \
		--companion-connection-string "comch=$n" --run-limit-jobs 200 --uniform-job-size 100 > "$T/out" 2>&1
	failed_run $? "a spoiled message (companion receiving)"
	grep -q "companion's consumer found [0-9]* bad messages: message 130 differs at byte 99" "$T/out" ||
		fail "spoiled message (companion): $(cat "$T/out")"
	companion_ok
	# ... and this side receiving (sequence numbers live in the first bytes)
	companion $n SOFTDOCA_BENCH_CORRUPT_SEQ=40
	"$BENCH" --pipeline-steps doca_comch::consumer --device "$mine" --companion-connection-string "comch=$n" \
		--run-limit-jobs 200 --uniform-job-size 4 --warm-up-jobs 10 > "$T/out" 2>&1
	failed_run $? "a spoiled message (this side receiving)"
	grep -q "bad messages received: message 40 carries sequence number" "$T/out" || fail "spoiled: $(cat "$T/out")"
	companion_ok
	# the companion refuses a size its device cannot take (a topology where only its side has 1 KiB
	# Comch buffers), after a size it can take; the session still ends cleanly
	small='"caps": { "consumer_max_buf_size": 1024, "producer_max_buf_size": 1024 }'
	if [ "$theirs" = 3b:00.0 ]; then dcaps= hcaps=", $small"; else dcaps=", $small" hcaps=; fi
	printf '{ "cards": [ { "dpu": { "pfs": [ { "pci": "03:00.0", "reps": [ "3b:00.0" ]%s } ] },\n' "$dcaps" \
		> "$T/topo.json"
	printf '  "host": { "functions": [ { "pci": "3b:00.0"%s } ] } } ] }\n' "$hcaps" >> "$T/topo.json"
	export SOFTDOCA_TOPOLOGY="$T/topo.json"
	companion $n
	"$BENCH" --pipeline-steps doca_comch::producer --device "$mine" --companion-connection-string "comch=$n" \
		--run-limit-jobs 10 --sweep uniform-job-size,1024,4096 > "$T/out" 2>&1
	failed_run $? "messages above the companion's maximum"
	grep -q "companion: job size 4096 is above the device's Comch consumer maximum of 1024 bytes" "$T/out" ||
		fail "companion size limit: $(cat "$T/out")"
	[ "$(grep -c 'Dequeued jobs: 10$' "$T/out")" = 1 ] ||
		fail "the 1024-byte permutation did not run: $(cat "$T/out")"
	companion_ok
	unset SOFTDOCA_TOPOLOGY
	# a connection cut under the measuring side: a clear error, and both processes end
	companion $n
	SOFTDOCA_FAULTS="comch:nth=2:cut" "$BENCH" --pipeline-steps doca_comch::producer --device "$mine" \
		--companion-connection-string "comch=$n" --run-limit-jobs 100 > "$T/out" 2>&1
	failed_run $? "a cut connection"
	grep -q 'doca_bench: .*connection to the companion is gone' "$T/out" || fail "cut: $(cat "$T/out")"
	companion_failed
	grep -q 'connection to the measuring side is gone' "$T/comp" || fail "cut (companion): $(cat "$T/comp")"
	# a companion nobody connects to gives up with a clear error
	env -u LD_LIBRARY_PATH "$peer/tools/doca_bench" --companion --device "$theirs" \
		--companion-connection-string "comch=nobody$$" --run-limit-seconds 1 > "$T/comp" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "a lonely companion: exit $rc, expected 1: $(cat "$T/comp")"
	grep -q 'within 1 s' "$T/comp" || fail "lonely companion: $(cat "$T/comp")"
	# nothing left behind in the fabric
	left=$(find "$SOFTDOCA_FABRIC" -mindepth 1 2>/dev/null | head -5)
	[ -z "$left" ] || fail "left in the fabric: $left"
}

case "$CASE" in
opts) case_opts ;;
local) case_local ;;
remote) case_remote ;;
comch) case_comch ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
