#!/bin/bash
# Run the lab runner in a private fabric directory and report folder and
# check its verdicts and its evidence. Usage: run_lab_test.sh MODE LAB HOST_BIN DPU_BIN
#   MODE: main | failures
set -u
mode=$1 lab=$2 host_bin=$3 dpu_bin=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOFTDOCA_FABRIC="$work/fabric"
mkdir -m 0700 "$SOFTDOCA_FABRIC"
export SOFTDOCA_COMCH_WAIT_WARN_MS=500
case "$mode" in
main) flags="" ; expect="preflight-arm preflight-host preflight-version 2-secure-channel-s256-n10 3-secure-channel-s4096-n1000 4-dma-local-copy-nt4-nd2 5-dma-copy-host-to-arm 6-dma-copy-arm-to-host" ;;
failures) flags="--only-failures"; expect="F1-client-started-first F2-wrong-rep F3-wrong-host-pci F4-size-over-cap" ;;
*) echo "bad mode $mode"; exit 2 ;;
esac
"$lab" $flags --report-dir "$work/report" --host-bin "$host_bin" --dpu-bin "$dpu_bin" --timeout 120 >"$work/out.txt" 2>&1
rc=$?
cat "$work/out.txt"
fail=0
[ "$rc" -eq 0 ] || { echo "lab exited $rc"; fail=1; }
grep -q $'\e\[' "$work/out.txt" && { echo "colour codes written to a non-terminal"; fail=1; }
for s in $expect; do
	grep -qE "^$s +PASS " "$work/report/summary.txt" || { echo "step $s did not PASS"; fail=1; }
done
if [ "$mode" = main ]; then
	for f in 2-secure-channel-s256-n10-arm.log 2-secure-channel-s256-n10-host.log \
		 3-secure-channel-s4096-n1000-arm.log 3-secure-channel-s4096-n1000-host.log \
		 4-dma-local-copy-nt4-nd2-arm.log \
		 5-dma-copy-host-to-arm-arm.log 5-dma-copy-host-to-arm-host.log \
		 6-dma-copy-arm-to-host-arm.log 6-dma-copy-arm-to-host-host.log summary.txt; do
		[ -s "$work/report/$f" ] || { echo "missing report file $f"; fail=1; }
	done
	# The DMA Copy steps remove their files once they pass.
	extra=$(find "$work/report" -mindepth 1 -name '*-dma-copy-*-files.*')
	[ -z "$extra" ] || { echo "DMA Copy files left in the report folder: $extra"; fail=1; }
fi
left=$(find "$SOFTDOCA_FABRIC" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] || { echo "fabric dir not empty: $(ls -la "$SOFTDOCA_FABRIC")"; fail=1; }
exit $fail
