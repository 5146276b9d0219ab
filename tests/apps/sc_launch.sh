#!/bin/bash
# Two-process launcher for doca_secure_channel: starts the server (dpu flavor)
# in a private fabric directory, waits until it listens, starts the client
# (host flavor), checks both outputs and exit codes. Whatever happens, every
# process it started is killed and its temporary directories are removed.
#
# usage: sc_launch.sh <scenario> <host doca_secure_channel> <dpu doca_secure_channel>
set -u

SCENARIO=$1
HOST_BIN=$2
DPU_BIN=$3
ARM_PF=03:00.0
HOST_FN=3b:00.0
WAIT_S=${SC_WAIT_S:-30}

for b in "$HOST_BIN" "$DPU_BIN"; do
	if [ ! -x "$b" ]; then
		echo "FAIL: no program $b (build both flavors: the dpu one is the peer build)"
		exit 1
	fi
done

FAB=$(mktemp -d "${TMPDIR:-/tmp}/sc-fabric.XXXXXX")
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/sc-logs.XXXXXX")
chmod 700 "$FAB"
# meson points LD_LIBRARY_PATH at this flavor's libraries; each binary must
# load its own flavor's (it finds them through its rpath).
unset LD_LIBRARY_PATH
export SOFTDOCA_FABRIC=$FAB
# Make a client that waits for its server say so quickly.
export SOFTDOCA_COMCH_WAIT_WARN_MS=${SOFTDOCA_COMCH_WAIT_WARN_MS:-500}
PIDS=()
FAILED=0

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$FAB" "$LOGS"
}
trap cleanup EXIT
trap 'echo "launcher: interrupted"; exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	FAILED=1
}

# the rest of the scenario cannot run: report and stop
fatal() {
	fail "$@"
	dump
	exit 1
}

dump() {
	local f
	for f in "$LOGS"/*.log; do
		[ -f "$f" ] || continue
		echo "----- $(basename "$f")"
		cat "$f"
	done
}

# start <name> <bin> args... : background process, output in $LOGS/<name>.log
start() {
	local name=$1 bin=$2
	shift 2
	"$bin" "$@" >"$LOGS/$name.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$name=$!"
}

alive() { kill -0 "$1" 2>/dev/null; }

# wait_exit <pid> <seconds> : exit status in RC, 255 + FAIL on timeout
wait_exit() {
	local pid=$1 limit=$2 i=0
	while alive "$pid"; do
		# a reaped-but-not-waited child still answers kill -0 as a zombie; wait handles it
		if [ "$i" -ge $((limit * 20)) ]; then
			RC=255
			return 1
		fi
		sleep 0.05
		i=$((i + 1))
	done
	wait "$pid"
	RC=$?
	return 0
}

# wait_listen <pid>: until the server's socket shows up in the fabric dir
wait_listen() {
	local pid=$1 i=0
	while [ -z "$(find "$FAB" -type s 2>/dev/null | head -n1)" ]; do
		alive "$pid" || return 1
		[ "$i" -lt $((WAIT_S * 20)) ] || return 1
		sleep 0.05
		i=$((i + 1))
	done
	return 0
}

# wait_log <name> <pattern> <seconds>
wait_log() {
	local i=0
	while ! grep -q -- "$2" "$LOGS/$1.log" 2>/dev/null; do
		[ "$i" -lt $(($3 * 20)) ] || return 1
		sleep 0.05
		i=$((i + 1))
	done
	return 0
}

expect_log() {
	grep -q -- "$2" "$LOGS/$1.log" || fail "$1: expected \"$2\""
}

expect_rc() {
	local name=$1 want=$2 pidvar="PID_$1"
	if ! wait_exit "${!pidvar}" "$WAIT_S"; then
		fail "$name did not exit within ${WAIT_S}s"
		return
	fi
	if [ "$want" = ok ] && [ "$RC" -ne 0 ]; then
		fail "$name exited with $RC, expected success"
	elif [ "$want" = err ] && [ "$RC" -eq 0 ]; then
		fail "$name exited with success, expected a failure"
	fi
	# ASan/UBSan reports mean failure whatever the exit code
	if grep -q -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$LOGS/$name.log"; then
		fail "$name: sanitizer report"
	fi
}

expect_fabric_empty() {
	local left
	left=$(find "$FAB" -mindepth 1 2>/dev/null)
	[ -z "$left" ] || fail "fabric directory not empty: $left"
}

server() { start server "$DPU_BIN" "$@"; }
client() { start client "$HOST_BIN" "$@"; }

run_pair() {
	local s=$1 n=$2
	server -s "$s" -n "$n" -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	client -s "$s" -n "$n" -p "$HOST_FN"
	expect_rc client ok
	expect_rc server ok
	for side in server client; do
		expect_log $side "Producer sent $n messages in approximately"
		expect_log $side "Consumer received $n messages in approximately"
	done
	expect_fabric_empty
}

case "$SCENARIO" in
transfer-*)
	# transfer-<size>x<count>
	spec=${SCENARIO#transfer-}
	run_pair "${spec%x*}" "${spec#*x}"
	;;
mismatch)
	# Different -s/-n on the two sides: START_MSG tells each consumer what the
	# opposite producer sends.
	server -s 256 -n 20 -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	client -s 1000 -n 7 -p "$HOST_FN"
	expect_rc client ok
	expect_rc server ok
	expect_log server "Producer sent 20 messages in approximately"
	expect_log server "Consumer received 7 messages in approximately"
	expect_log client "Producer sent 7 messages in approximately"
	expect_log client "Consumer received 20 messages in approximately"
	expect_fabric_empty
	;;
bad-rep)
	server -s 256 -n 10 -p "$ARM_PF" -r 3b:00.6
	expect_rc server err
	expect_log server "Failed to open Comm Channel DOCA device representor"
	expect_fabric_empty
	;;
bad-host-pci)
	server -s 256 -n 10 -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	client -s 256 -n 10 -p 3b:00.6
	expect_rc client err
	expect_log client "Failed to open Comm Channel DOCA device"
	alive "$PID_server" || fail "server should still wait for its client"
	kill -INT "$PID_server"
	expect_rc server err
	expect_fabric_empty
	;;
client-first)
	client -s 256 -n 10 -p "$HOST_FN"
	wait_log client "\[WRN\]" 20 || fail "client printed no start-order warning"
	alive "$PID_client" || fail "client gave up instead of waiting for the server"
	grep -q "Producer sent" "$LOGS/client.log" && fail "client transferred without a server"
	server -s 256 -n 10 -p "$ARM_PF" -r "$HOST_FN"
	expect_rc server ok
	expect_rc client ok
	expect_log client "Producer sent 10 messages in approximately"
	expect_log server "Consumer received 10 messages in approximately"
	expect_fabric_empty
	;;
client-alone)
	client -s 256 -n 10 -p "$HOST_FN"
	wait_log client "\[WRN\]" 20 || fail "client printed no start-order warning"
	alive "$PID_client" || fail "client gave up instead of waiting for the server"
	kill -TERM "$PID_client"
	expect_rc client err
	expect_log client "Interrupted while waiting for server"
	expect_fabric_empty
	;;
server-interrupt)
	# Ctrl-C on a server waiting for its client: clean teardown, socket removed
	server -s 256 -n 10 -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	kill -INT "$PID_server"
	expect_rc server err
	expect_log server "Interrupted while waiting for a client connection"
	expect_fabric_empty
	;;
over-cap)
	# 4 MiB + 1: over the default producer/consumer buffer size
	size=$((4 * 1024 * 1024 + 1))
	server -s $size -n 2 -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	client -s $size -n 2 -p "$HOST_FN"
	expect_rc client err
	expect_rc server err
	grep -q "Producer does not support message size. Requested: $size, max:" "$LOGS/server.log" "$LOGS/client.log" ||
		fail "no producer capability error"
	expect_fabric_empty
	;;
consumer-cap)
	# only the client asks for too much: the server's consumer rejects it
	size=$((4 * 1024 * 1024 + 1))
	server -s 256 -n 2 -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	client -s $size -n 2 -p "$HOST_FN"
	expect_rc client err
	expect_rc server err
	expect_log server "Consumer does not support message size. Requested: $size, max:"
	expect_fabric_empty
	;;
double-term)
	# Two SIGTERMs in quick succession (the second lands during the teardown
	# the first started): the process still ends by itself, promptly, and
	# removes its socket. Waiting servers first, with growing gaps, then each
	# side of a running transfer.
	for gap in 0 0.005 0.02 0.1; do
		server -s 256 -n 10 -p "$ARM_PF" -r "$HOST_FN"
		wait_listen "$PID_server" || fatal "server never listened"
		kill -TERM "$PID_server"
		[ "$gap" = 0 ] || sleep "$gap"
		kill -TERM "$PID_server" 2>/dev/null
		wait_exit "$PID_server" 10 || fail "server (gap $gap) did not exit within 10 s"
		[ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] || fail "server (gap $gap) exited with $RC, expected its own failure status"
		expect_log server "Interrupted while waiting for a client connection"
		expect_fabric_empty
		mv "$LOGS/server.log" "$LOGS/waiting-$gap-server.log"
	done
	for victim in server client; do
		server -s 64 -n 100000000 -p "$ARM_PF" -r "$HOST_FN"
		wait_listen "$PID_server" || fatal "server never listened"
		client -s 64 -n 100000000 -p "$HOST_FN"
		wait_log server "Client connected" 20 || fatal "client never connected"
		sleep 0.5
		if [ "$victim" = server ]; then other=client; else other=server; fi
		vpid="PID_$victim"
		opid="PID_$other"
		kill -TERM "${!vpid}"
		sleep 0.002
		kill -TERM "${!vpid}" 2>/dev/null
		wait_exit "${!vpid}" 10 || fail "$victim did not exit within 10 s of two SIGTERMs"
		[ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] || fail "$victim exited with $RC, expected its own failure status"
		wait_exit "${!opid}" 10 || fail "$other did not exit within 10 s of its peer's interruption"
		[ "$RC" -ne 0 ] || fail "$other exited with success after its peer was interrupted"
		expect_fabric_empty
		mv "$LOGS/server.log" "$LOGS/transfer-$victim-server.log"
		mv "$LOGS/client.log" "$LOGS/transfer-$victim-client.log"
	done
	;;
kill-server | kill-client)
	victim=${SCENARIO#kill-}
	server -s 64 -n 100000000 -p "$ARM_PF" -r "$HOST_FN"
	wait_listen "$PID_server" || fatal "server never listened"
	client -s 64 -n 100000000 -p "$HOST_FN"
	wait_log server "Client connected" 20 || fatal "client never connected"
	sleep 1
	alive "$PID_server" && alive "$PID_client" || fail "a side ended before the kill"
	if [ "$victim" = server ]; then other=client; else other=server; fi
	vpid="PID_$victim"
	kill -9 "${!vpid}"
	wait "${!vpid}" 2>/dev/null
	opid="PID_$other"
	if ! wait_exit "${!opid}" 10; then
		fail "$other still running 10 s after the peer was killed"
	elif [ "$RC" -eq 0 ]; then
		fail "$other exited with success after its peer died"
	fi
	grep -q "Producer sent 100000000" "$LOGS/$other.log" && fail "$other claims a full transfer"
	if [ "$victim" = server ]; then
		# A killed listener leaves its socket; the next server must reclaim it.
		left=$(find "$FAB" -mindepth 1 ! -name '*secure_channel_server.sock' 2>/dev/null)
		[ -z "$left" ] || fail "fabric directory holds more than the dead server's socket: $left"
		mv "$LOGS/server.log" "$LOGS/killed-server.log"
		mv "$LOGS/client.log" "$LOGS/first-client.log"
		run_pair 256 10
	else
		expect_fabric_empty
	fi
	;;
topo-*)
	# The limits come from the device capabilities, not from constants: give
	# the host function a small producer buffer and small task pools.
	cat >"$LOGS/topology.json" <<'JSON'
{"cards": [{
  "dpu": {"pfs": [{"pci": "0000:03:00.0", "reps": ["0000:3b:00.0"]}]},
  "host": {"functions": [{"pci": "0000:3b:00.0",
    "caps": {"producer_max_buf_size": 1024, "producer_max_tasks": 8, "consumer_max_tasks": 8}}]}}]}
JSON
	export SOFTDOCA_TOPOLOGY="$LOGS/topology.json"
	if [ "$SCENARIO" = topo-small-pools ]; then
		run_pair 512 100
	else
		server -s 2048 -n 4 -p "$ARM_PF" -r "$HOST_FN"
		wait_listen "$PID_server" || fatal "server never listened"
		client -s 2048 -n 4 -p "$HOST_FN"
		expect_rc client err
		expect_rc server err
		expect_log client "Producer does not support message size. Requested: 2048, max: 1024"
		grep -q "does not support message size" "$LOGS/server.log" && fail "the server's limits were not lowered"
		expect_fabric_empty
	fi
	;;
args)
	# each: the program must refuse and exit with a failure, without a peer
	check_args() {
		local bin=$1 want=$2
		shift 2
		"$bin" "$@" >"$LOGS/args.log" 2>&1 </dev/null
		local rc=$?
		[ "$rc" -ne 0 ] || fail "accepted: $*"
		grep -q -E 'Sanitizer|runtime error:' "$LOGS/args.log" && { fail "sanitizer report for: $*"; cat "$LOGS/args.log"; }
		[ -z "$want" ] || grep -q -- "$want" "$LOGS/args.log" || { fail "no \"$want\" for: $*"; cat "$LOGS/args.log"; }
	}
	check_args "$HOST_BIN" "" -n 10 -p "$HOST_FN"
	check_args "$HOST_BIN" "" -s 256 -p "$HOST_FN"
	check_args "$HOST_BIN" "" -s 256 -n 10
	check_args "$HOST_BIN" "" -s 0 -n 10 -p "$HOST_FN"
	check_args "$HOST_BIN" "" -s 256 -n -3 -p "$HOST_FN"
	check_args "$HOST_BIN" "" -s abc -n 10 -p "$HOST_FN"
	check_args "$HOST_BIN" "" -s 256 -n 10 -p 0000:3b:00.0:toolongaddress
	check_args "$DPU_BIN" "rep-pci" -s 256 -n 10 -p "$ARM_PF"
	"$HOST_BIN" -v >"$LOGS/args.log" 2>&1 || fail "-v failed"
	grep -q "DOCA SDK" "$LOGS/args.log" || fail "-v printed no version"
	"$DPU_BIN" --help >"$LOGS/args.log" 2>&1 || fail "--help failed"
	for flag in --msg-size --num-msgs --pci-addr --rep-pci; do
		grep -q -- "$flag" "$LOGS/args.log" || fail "--help does not list $flag"
	done
	expect_fabric_empty
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 2
	;;
esac

if [ "$FAILED" -ne 0 ]; then
	dump
	exit 1
fi
echo "PASS: $SCENARIO"
exit 0
