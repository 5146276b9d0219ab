#!/bin/bash
# A lab owns its fabric directory: a second lab pointed at the same one is
# refused while the first runs (they would reach each other's servers and
# take each other's files), and so is a fabric that already has entries.
# Usage: lab_fabric_owner.sh LAB HOST_BIN DPU_BIN
set -u
lab=$1 host_bin=$2 dpu_bin=$3
work=$(mktemp -d)
first=""
trap '[ -n "$first" ] && kill "$first" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
export SOFTDOCA_FABRIC="$work/fabric"
mkdir -m 0700 "$SOFTDOCA_FABRIC"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$lab" --report-dir "$work/r1" --host-bin "$host_bin" --dpu-bin "$dpu_bin" >"$work/first.txt" 2>&1 &
first=$!
# wait until the first lab has its first server in the fabric (it holds the lock by then)
for _ in $(seq 200); do
	grep -q "^== 02" "$work/first.txt" && break
	sleep 0.05
done
"$lab" --report-dir "$work/r2" --host-bin "$host_bin" --dpu-bin "$dpu_bin" >"$work/second.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || bad "a second lab on the same fabric exited $rc, not 2"
grep -q "in use by another softdoca-lab" "$work/second.txt" || bad "the second lab does not say the fabric is in use: $(cat "$work/second.txt")"
[ -e "$work/r2/report.md" ] && bad "the refused lab wrote a report"
wait "$first"
rc=$?
first=""
[ "$rc" -eq 0 ] || { bad "the first lab exited $rc"; cat "$work/first.txt"; }

: >"$SOFTDOCA_FABRIC/left-by-someone"
"$lab" --report-dir "$work/r3" --host-bin "$host_bin" --dpu-bin "$dpu_bin" >"$work/third.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || bad "a lab on a non-empty fabric exited $rc, not 2"
grep -q "is not empty.*left-by-someone" "$work/third.txt" || bad "the lab does not name what is in the fabric: $(cat "$work/third.txt")"
[ -e "$SOFTDOCA_FABRIC/left-by-someone" ] || bad "the lab removed a file it does not own"
[ "$fail" -eq 0 ] && echo "all checks passed"
exit $fail
