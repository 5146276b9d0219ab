#!/bin/bash
# Run every test suite in every build (plain and ASan+UBSan, both flavors;
# under ThreadSanitizer the threaded suites only) and end with one line
# "N passed, N failed".
set -u
BUILD=${1:-build}
total_pass=0
total_fail=0
total_skip=0
status=0
# What runs under TSan: engine threads, per-thread PEs, two-process Comch
# and its fast path, sync events, the UCX module's thread (all of suite ucx
# but the network-namespace script, which rebuilds NVIDIA's samples)
# (TSAN_OPTIONS from tests/meson.build: a race fails the test).
tsan_suites="--suite core --suite comch --suite comch_fp --suite apps --suite dma --suite sync_event --suite ucx --no-suite netns"
for dir in host dpu asan-host asan-dpu tsan-host tsan-dpu; do
	b="$BUILD/$dir"
	[ -f "$b/build.ninja" ] || continue
	filter=""
	case $dir in tsan-*) filter=$tsan_suites ;; esac
	echo "=== tests: $dir${filter:+ ($filter)}"
	# shellcheck disable=SC2086
	meson test -C "$b" $filter --print-errorlogs --num-processes 2 --timeout-multiplier 3 >"$b/meson-logs/run_all.out" 2>&1
	rc=$?
	tail -n 40 "$b/meson-logs/run_all.out" | grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' || true
	read -r p f s < <(python3 - "$b/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
try:
    with open(sys.argv[1]) as fh:
        for line in fh:
            r = json.loads(line).get("result", "")
            if r in ("OK", "EXPECTEDFAIL"):
                p += 1
            elif r == "SKIP":
                s += 1
            else:
                f += 1
except FileNotFoundError:
    pass
print(p, f, s)
PY
)
	echo "    $dir: $p passed, $f failed, $s skipped"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "    $dir: meson test exited $rc; see $b/meson-logs/run_all.out"
		tail -n 30 "$b/meson-logs/run_all.out"
		f=1
	fi
	[ "$f" -eq 0 ] || { status=1; grep -E 'FAIL|TIMEOUT' "$b/meson-logs/run_all.out" | head -n 20; }
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
done
echo "${total_pass} passed, ${total_fail} failed, ${total_skip} skipped"
exit $status
