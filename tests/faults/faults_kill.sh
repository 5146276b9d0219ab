#!/bin/bash
# kill -9 of either side of a secure_channel transfer at a random point,
# ROUNDS times. Each round: the survivor must exit with a failure and an
# error line within 5 s, no process of the round may be left, and the
# fabric directory must be empty (a killed server's socket is removed by the
# client that saw it die).
#
# usage: faults_kill.sh <host doca_secure_channel> <dpu doca_secure_channel> [rounds]
set -u

HOST_BIN=$1
DPU_BIN=$2
ROUNDS=${3:-10}
N=${FAULTS_MSGS:-4000000}
ARM_PF=03:00.0
HOST_FN=3b:00.0

for b in "$HOST_BIN" "$DPU_BIN"; do
	[ -x "$b" ] || { echo "FAIL: no program $b (the dpu one comes from the peer build)"; exit 1; }
done

FAB=$(mktemp -d "${TMPDIR:-/tmp}/faults-fabric.XXXXXX")
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/faults-logs.XXXXXX")
chmod 700 "$FAB"
unset LD_LIBRARY_PATH
export SOFTDOCA_FABRIC=$FAB
export SOFTDOCA_COMCH_WAIT_WARN_MS=500
SPID=
CPID=
FAILED=0
KILLED=0

cleanup() {
	local p
	for p in $SPID $CPID; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$FAB" "$LOGS"
}
trap cleanup EXIT
trap 'echo "faults_kill: interrupted"; exit 1' INT TERM

fail() {
	echo "FAIL round $R ($VICTIM at ${DELAY}s): $*"
	for f in "$LOGS"/server.log "$LOGS"/client.log; do
		echo "----- $(basename "$f")"
		tail -n 15 "$f"
	done
	FAILED=1
}

alive() { kill -0 "$1" 2>/dev/null; }

# wait_exit <pid> <tenths of a second>: RC gets the status, 255 on timeout
wait_exit() {
	local i=0
	while alive "$1"; do
		if [ "$i" -ge "$2" ]; then
			RC=255
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	wait "$1"
	RC=$?
}

for R in $(seq 1 "$ROUNDS"); do
	if [ $((RANDOM % 2)) -eq 0 ]; then VICTIM=server; else VICTIM=client; fi
	DELAY=$(printf '0.%02d' $((RANDOM % 50)))
	"$DPU_BIN" -s 256 -n "$N" -p "$ARM_PF" -r "$HOST_FN" >"$LOGS/server.log" 2>&1 &
	SPID=$!
	i=0
	while [ -z "$(find "$FAB" -type s 2>/dev/null)" ] && [ $i -lt 300 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	"$HOST_BIN" -s 256 -n "$N" -p "$HOST_FN" >"$LOGS/client.log" 2>&1 &
	CPID=$!
	# the random point: measured from the moment both sides exchange data
	i=0
	while ! grep -q "Client connected" "$LOGS/server.log" && [ $i -lt 300 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	sleep "$DELAY"
	if [ "$VICTIM" = server ]; then VPID=$SPID OPID=$CPID OTHER=client; else VPID=$CPID OPID=$SPID OTHER=server; fi
	if alive "$VPID" && alive "$OPID"; then
		kill -9 "$VPID"
		wait "$VPID" 2>/dev/null
		KILLED=$((KILLED + 1))
		t0=$(date +%s%N)
		if ! wait_exit "$OPID" 50; then
			fail "$OTHER still running 5 s after its peer was killed"
		elif grep -q "Producer sent $N messages" "$LOGS/$OTHER.log" &&
			grep -q "Consumer received $N messages" "$LOGS/$OTHER.log"; then
			# the kill landed after the survivor had finished its whole
			# transfer: not a mid-transfer kill
			KILLED=$((KILLED - 1))
			echo "round $R: transfer over at the kill point (not counted)"
		else
			ms=$((($(date +%s%N) - t0) / 1000000))
			[ "$RC" -ne 0 ] || fail "$OTHER exited with success after its peer died"
			[ "$RC" -ge 128 ] && fail "$OTHER died of a signal (status $RC)"
			grep -q '\[ERR\]' "$LOGS/$OTHER.log" || fail "$OTHER printed no error line"
			grep -q -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$LOGS/$OTHER.log" &&
				fail "$OTHER: sanitizer report"
			echo "round $R: killed $VICTIM after ${DELAY}s of transfer; $OTHER exited $RC after ${ms} ms"
		fi
	else
		# the transfer ended (or failed) before the kill point
		wait_exit "$SPID" 100
		wait_exit "$CPID" 100
		echo "round $R: transfer over before the kill point (not counted)"
	fi
	for p in $SPID $CPID; do
		if alive "$p"; then
			fail "process $p left running"
			kill -9 "$p" 2>/dev/null
		fi
		wait "$p" 2>/dev/null
	done
	SPID=
	CPID=
	left=$(find "$FAB" -mindepth 1 2>/dev/null)
	if [ -n "$left" ]; then
		fail "fabric directory not empty: $left"
		rm -rf "${FAB:?}"/*
	fi
done
if [ "$KILLED" -lt $((ROUNDS / 2)) ]; then
	echo "FAIL: only $KILLED of $ROUNDS rounds killed a side mid-transfer"
	FAILED=1
fi
[ "$FAILED" -eq 0 ] || exit 1
echo "PASS: $KILLED kills in $ROUNDS rounds"
