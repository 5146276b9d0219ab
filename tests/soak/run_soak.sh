#!/bin/bash
# Soak (not part of make test): for SOAK_SECONDS (default 180) in all,
#   half: patterned Comch fast-path messages between two processes, the
#         server from the dpu build and the client from the host build, as
#         secure_channel runs them; every message checked (sequence, length,
#         every byte) on arrival;
#   half: DMA memcpy tasks with every copied byte checked (soak_dma).
# Ends with the totals and exits non-zero on any error.
#
# usage: run_soak.sh [build dir, default build]   (make soak)
set -u
BUILD=$(cd "${1:-build}" && pwd) || exit 1
SECS=${SOAK_SECONDS:-180}
MSG_SIZE=${SOAK_MSG_SIZE:-1024}
DMA_SIZE=${SOAK_DMA_SIZE:-4096}
HOST_PROC=$BUILD/host/tests/faults/fault_proc
DPU_PROC=$BUILD/dpu/tests/faults/fault_proc
DMA=$BUILD/host/tests/faults/soak_dma
for b in "$HOST_PROC" "$DPU_PROC" "$DMA"; do
	[ -x "$b" ] || { echo "soak: no $b (make build first)"; exit 1; }
done
half=$((SECS / 2))
[ "$half" -ge 1 ] || half=1

FAB=$(mktemp -d "${TMPDIR:-/tmp}/soak-fabric.XXXXXX")
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/soak-logs.XXXXXX")
chmod 700 "$FAB"
export SOFTDOCA_FABRIC=$FAB
unset LD_LIBRARY_PATH
SPID=
CPID=
cleanup() {
	local p
	for p in $SPID $CPID; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$FAB" "$LOGS"
}
trap cleanup EXIT
trap 'echo "soak: interrupted"; exit 1' INT TERM
status=0

echo "soak: ${half} s of ${MSG_SIZE}-byte messages (dpu server <- host client), then ${half} s of ${DMA_SIZE}-byte DMA tasks"
"$DPU_PROC" server bp soak 0 0 "$MSG_SIZE" 64 >"$LOGS/server.log" 2>&1 &
SPID=$!
i=0
while [ -z "$(find "$FAB" -type s 2>/dev/null)" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
"$HOST_PROC" client bp soak 1000000000000 "$MSG_SIZE" "$half" >"$LOGS/client.log" 2>&1 &
CPID=$!
wait "$CPID"
crc=$?
CPID=
for _ in $(seq 1 100); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
kill -9 "$SPID" 2>/dev/null
wait "$SPID"
src=$?
SPID=
line=$(grep "^bp: sent" "$LOGS/client.log")
if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ] || [ -z "$line" ]; then
	echo "soak: message run failed (client $crc, server $src)"
	tail -n 20 "$LOGS/client.log" "$LOGS/server.log"
	status=1
fi
left=$(find "$FAB" -mindepth 1)
[ -z "$left" ] || { echo "soak: fabric directory not empty: $left"; status=1; }
msgs=$(sed -n 's/.*received \([0-9]*\),.*/\1/p' <<<"$line")
mbytes=$(sed -n 's/.*bytes \([0-9]*\),.*/\1/p' <<<"$line")
merr=$(sed -n 's/.*errors \([0-9]*\),.*/\1/p' <<<"$line")

"$DMA" "$half" "$DMA_SIZE" 64 >"$LOGS/dma.log" 2>&1
drc=$?
dline=$(grep "^dma: tasks" "$LOGS/dma.log")
if [ "$drc" -ne 0 ] || [ -z "$dline" ]; then
	echo "soak: DMA run failed ($drc)"
	tail -n 20 "$LOGS/dma.log"
	status=1
fi
read -r _ _ dtasks _ dbytes _ derr _ _ <<<"$dline"

echo "messages: ${msgs:-0}  bytes: ${mbytes:-0}  errors: ${merr:-?}"
echo "DMA tasks: ${dtasks:-0}  bytes: ${dbytes:-0}  errors: ${derr:-?}"
[ "${merr:-1}" = 0 ] && [ "${derr:-1}" = 0 ] || status=1
[ "$status" -eq 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $status
