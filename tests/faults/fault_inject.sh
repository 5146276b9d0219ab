#!/bin/bash
# SOFTDOCA_FAULTS through the public API (suite 'faults'). Each case runs
# fault_inject (tests/faults/fault_inject.c) with the variable set and checks
# what the program saw: task statuses and context states for DMA, what the
# server received (and when) for Comch, the SDK's WARNING and exit summary,
# and the refusal of malformed rules.
#
# usage: fault_inject.sh <this build's fault_inject> <dpu build's fault_inject> [case...]
# cases: unset dma-nth dma-io dma-batch dma-size malformed comch-unset comch-drop
#        comch-every comch-delay comch-cut (default: all; comch-* need the dpu program)
set -u

BIN=$1
DPU_BIN=$2
shift 2
CASES=${*:-unset dma-nth dma-io dma-batch dma-size malformed comch-unset comch-drop comch-every comch-delay comch-cut}

[ -x "$BIN" ] || { echo "FAIL: no program $BIN"; exit 1; }
FAB=$(mktemp -d "${TMPDIR:-/tmp}/fault-inject-fabric.XXXXXX")
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/fault-inject-logs.XXXXXX")
chmod 700 "$FAB"
unset LD_LIBRARY_PATH SOFTDOCA_FAULTS
export SOFTDOCA_FABRIC=$FAB
export SOFTDOCA_SDK_LOG_LEVEL=50 # the exit summary is INFO; the programs create no SDK backend
SPID=
FAILED=0
NAME=fi_$$

cleanup() {
	if [ -n "$SPID" ]; then
		kill -9 "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
	fi
	rm -rf "$FAB" "$LOGS"
}
trap cleanup EXIT
trap 'echo "fault_inject: interrupted"; exit 1' INT TERM

CASE=
fail() {
	echo "FAIL $CASE: $*"
	for f in "$LOGS"/*.log; do
		[ -f "$f" ] || continue
		echo "----- $(basename "$f")"
		tail -n 25 "$f"
	done
	FAILED=1
}

has() { grep -qF -- "$2" "$LOGS/$1.log" || { fail "$1.log lacks: $2"; return 1; }; }
hasnt() { ! grep -qF -- "$2" "$LOGS/$1.log" || { fail "$1.log has: $2"; return 1; }; }

# run <log> <faults or -> args...: this build's program, bounded
run() {
	local log=$1 f=$2
	shift 2
	if [ "$f" = - ]; then
		timeout 30 "$BIN" "$@" >"$LOGS/$log.log" 2>&1
	else
		SOFTDOCA_FAULTS=$f timeout 30 "$BIN" "$@" >"$LOGS/$log.log" 2>&1
	fi
	RC=$?
	[ "$RC" -eq 0 ] || fail "$log: exit status $RC"
}

# comch <faults> <n> <gap_us>: a dpu server, this build's client with the faults
comch() {
	local i
	rm -f "$LOGS"/server.log "$LOGS"/client.log
	NAME=fi_$$_$CASE
	timeout 40 "$DPU_BIN" server "$NAME" >"$LOGS/server.log" 2>&1 &
	SPID=$!
	for i in $(seq 100); do
		grep -q listening "$LOGS/server.log" 2>/dev/null && break
		sleep 0.05
	done
	if [ "$1" = - ]; then
		timeout 30 "$BIN" client "$NAME" "$2" "$3" >"$LOGS/client.log" 2>&1
	else
		SOFTDOCA_FAULTS=$1 timeout 30 "$BIN" client "$NAME" "$2" "$3" >"$LOGS/client.log" 2>&1
	fi
	RC=$?
	[ "$RC" -eq 0 ] || fail "client: exit status $RC"
	wait "$SPID"
	RC=$?
	SPID=
	[ "$RC" -eq 0 ] || fail "server: exit status $RC"
}

# received <seq...>: exactly these messages, in this order
received() {
	local got want
	got=$(awk '$1 == "recv" { printf "%s ", $2 }' "$LOGS/server.log")
	want="$* "
	[ "$got" = "$want" ] || fail "server received '$got', expected '$want'"
}

recv_ms() { awk -v s="$1" '$1 == "recv" && $2 == s { print $3 }' "$LOGS/server.log"; }

for CASE in $CASES; do
	case $CASE in
	unset)
		run dma - dma 8 4096
		for i in 1 2 3 4 5 6 7 8; do has dma "task $i 4096 DOCA_SUCCESS"; done
		has dma "final IDLE submitted 8 completed 8"
		hasnt dma "fault injected"
		hasnt dma "SOFTDOCA_FAULTS"
		;;
	dma-nth)
		run dma "dma:nth=5:error=INVALID_VALUE" dma 8 4096
		for i in 1 2 3 4; do has dma "task $i 4096 DOCA_SUCCESS"; has dma "dst $i 4096"; done
		has dma "task 5 4096 DOCA_ERROR_INVALID_VALUE"
		has dma "dst 5 0"
		has dma "state RUNNING STOPPING"
		has dma "state STOPPING IDLE"
		has dma "final IDLE submitted 5 completed 5"
		has dma "fault injected (SOFTDOCA_FAULTS rule 'dma:nth=5:error=INVALID_VALUE'): DMA memcpy task"
		has dma "fails with DOCA_ERROR_INVALID_VALUE"
		has dma "SOFTDOCA_FAULTS rule 'dma:nth=5:error=INVALID_VALUE': 1 fault injected"
		[ "$(grep -c 'fault injected (' "$LOGS/dma.log")" -eq 1 ] || fail "more than one WARNING"
		;;
	dma-io)
		# IO_FAILED is also the engine's flush status: the context must still stop.
		run dma "dma:nth=3:error=DOCA_ERROR_IO_FAILED" dma 8 4096
		has dma "task 2 4096 DOCA_SUCCESS"
		has dma "task 3 4096 DOCA_ERROR_IO_FAILED"
		has dma "state RUNNING STOPPING"
		has dma "final IDLE submitted 3 completed 3"
		;;
	dma-batch)
		# All submitted before any progress: 1-2 run, 3 fails, the rest are flushed.
		run dma "dma:every=3:error=NOT_PERMITTED" dmabatch 8 4096
		has dma "task 1 4096 DOCA_SUCCESS"
		has dma "task 2 4096 DOCA_SUCCESS"
		has dma "task 3 4096 DOCA_ERROR_NOT_PERMITTED"
		for i in 4 5 6 7 8; do has dma "task $i 4096 DOCA_ERROR_IO_FAILED"; done
		has dma "state RUNNING STOPPING"
		has dma "final IDLE submitted 8 completed 8"
		;;
	dma-size)
		run dma "dma:size>=1048576:error=TOO_BIG" dma 4 4096 1048576
		has dma "task 1 4096 DOCA_SUCCESS"
		has dma "task 2 1048576 DOCA_ERROR_TOO_BIG"
		has dma "dst 2 0"
		has dma "final IDLE submitted 2 completed 2"
		run dma2 "dma:size<=100:error=AGAIN;dma:size=4096:error=BAD_STATE" dma 4 200 4096
		has dma2 "task 1 200 DOCA_SUCCESS"
		has dma2 "task 2 4096 DOCA_ERROR_BAD_STATE"
		run dma3 "dma:size<=100:error=AGAIN;dma:size=4096:error=BAD_STATE" dma 4 100 4096
		has dma3 "task 1 100 DOCA_ERROR_AGAIN"
		;;
	malformed)
		i=0
		while IFS='|' read -r val rule why; do
			i=$((i + 1))
			run bad$i "$val" create
			has bad$i "create DOCA_ERROR_INVALID_VALUE"
			has bad$i "$rule is refused: $why"
			has bad$i "grammar: SOFTDOCA_FAULTS=\"rule[;rule...]\""
		done <<'EOF'
dma:nth=0:error=IO_FAILED|rule 1 'dma:nth=0:error=IO_FAILED'|nth and every count from 1
dma:nth=5|rule 1 'dma:nth=5'|it has only two parts
dmaa:nth=1:error=IO_FAILED|rule 1 'dmaa:nth=1:error=IO_FAILED'|WHERE must be dma or comch
dma:nth=1:error=NOPE|rule 1 'dma:nth=1:error=NOPE'|error= must name a DOCA error
dma:nth=1:error=SUCCESS|rule 1 'dma:nth=1:error=SUCCESS'|error= must name a DOCA error
dma:nth=1:drop|rule 1 'dma:nth=1:drop'|dma rules take error=NAME
comch:nth=1:error=IO_FAILED|rule 1 'comch:nth=1:error=IO_FAILED'|comch rules take drop
comch:nth=1:delay=5|rule 1 'comch:nth=1:delay=5'|delay= must be a number of us, ms or s
comch:nth=1:delay=61s|rule 1 'comch:nth=1:delay=61s'|delay= must be a number
dma:nth=-1:error=IO_FAILED|rule 1 'dma:nth=-1:error=IO_FAILED'|the number in WHEN must be plain decimal digits
dma:nth=1:error=IO_FAILED;comch:sometimes:drop|rule 2 'comch:sometimes:drop'|WHEN must be nth=N
comch:nth=1:cut:now|rule 1 'comch:nth=1:cut:now'|it has more than three parts
EOF
		run good "dma:size<=10:error=DOCA_ERROR_AGAIN;;comch:after=0:drop;" create
		has good "create DOCA_SUCCESS"
		hasnt good "refused"
		;;
	comch-unset)
		comch - 6 1000
		received 1 2 3 4 5 6
		has server "server end"
		has client "final IDLE done 7 ok 7"
		;;
	comch-drop)
		comch "comch:nth=3:drop" 8 1000
		received 1 2 4 5 6 7 8
		has client "sent 3 DOCA_SUCCESS"
		has client "final IDLE done 9 ok 9"
		has client "fault injected (SOFTDOCA_FAULTS rule 'comch:nth=3:drop'): Comch message number 3"
		has server "server end"
		;;
	comch-every)
		comch "comch:every=3:drop" 10 1000
		received 1 2 4 5 7 8 10
		has client "SOFTDOCA_FAULTS rule 'comch:every=3:drop': 3 faults injected"
		;;
	comch-delay)
		comch "comch:nth=3:delay=300ms" 6 20000
		received 1 2 3 4 5 6
		a=$(recv_ms 2)
		b=$(recv_ms 3)
		c=$(recv_ms 4)
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(b - a >= 250) }' || fail "message 3 came ${a}..${b} ms: not delayed"
		awk -v b="$b" -v c="$c" 'BEGIN { exit !(c - b < 200) }' || fail "message 4 came $((${c%.*} - ${b%.*})) ms after 3"
		has client "sent 3 DOCA_SUCCESS"
		;;
	comch-cut)
		comch "comch:after=4:cut" 8 1000
		received 1 2 3 4
		has server "disconnected"
		has server "server gone"
		for i in 1 2 3 4; do has client "sent $i DOCA_SUCCESS"; done
		has client "sent 5 DOCA_ERROR_CONNECTION_RESET"
		has client "state RUNNING STOPPING"
		has client "final IDLE"
		;;
	*)
		fail "unknown case"
		;;
	esac
	[ -z "$(ls -A "$FAB")" ] || fail "fabric not empty: $(ls -A "$FAB")"
done
[ "$FAILED" -eq 0 ] && echo "fault_inject: all cases passed ($CASES)"
exit "$FAILED"
