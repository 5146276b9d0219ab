#!/bin/bash
# The UCX link across a real (virtual) network: two network namespaces joined
# by a veth pair, each side in its own network and PID namespace with its own
# private fabric directory, so nothing but TCP over the veth can join them
# (UCX_TLS=tcp: UCX would otherwise pick shared memory between namespaces of
# one machine).
#
#   ucx_netns.sh            (env from meson: SOFTDOCA_BUILD_DIR = the dpu build,
#                            SOFTDOCA_PEER_BUILD_DIR = the host build)
#
# Cases: a Comch conversation across the veth (tests/comch/comch_peer, and
# NVIDIA's comch_ctrl_path samples when DOCA_SAMPLES_DIR points at a
# doca-samples checkout), a wrong secret refused on both sides, a secret file
# of mode 0644 refused, a second listener on the port refused, a killed server
# and a downed veth both reported to the client within a bounded time, and
# (with DOCA_SAMPLES_DIR) the fast path refused at once with NOT_SUPPORTED.
# Skips (77) unless root, when ip netns or veth are refused, or without UCX.
# Leaves no namespace, process or file behind (trap), whatever happens.
set -u
skip() {
	echo "SKIP: $*"
	exit 77
}
BUILD=${SOFTDOCA_BUILD_DIR:?run from meson test}
PEER=${SOFTDOCA_PEER_BUILD_DIR:-}
[ "$(id -u)" -eq 0 ] || skip "needs root (it creates network namespaces and a veth pair)"
for c in ip unshare timeout; do
	command -v "$c" >/dev/null 2>&1 || skip "$c not found (apt-get install iproute2 util-linux coreutils)"
done
[ -f "$BUILD/src/fabric/sd_link_ucx.so" ] || skip "softdoca was built without UCX (install libucx-dev libssl-dev, -Ducx=enabled)"
SRV=$BUILD/tests/comch/comch_peer
CLI=$PEER/tests/comch/comch_peer
[ -n "$PEER" ] && [ -x "$SRV" ] && [ -x "$CLI" ] || skip "needs both flavors built (-Dpeer_build) with tests/comch/comch_peer"

tag=sdx$$
A=${tag}a B=${tag}b VA=${tag}va VB=${tag}vb
ADDR_A=10.77.0.1
URL=ucx://$ADDR_A:18515
TMO=2000 # SOFTDOCA_LINK_TIMEOUT_MS for the partition case
T=$(mktemp -d "${TMPDIR:-/tmp}/softdoca-ucx.XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	ip link del "$VA" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$A" 2>"$T/err" || skip "ip netns refused: $(cat "$T/err")"
ip netns add "$B" 2>"$T/err" || skip "ip netns refused: $(cat "$T/err")"
ip link add "$VA" type veth peer name "$VB" 2>"$T/err" || skip "cannot create a veth pair: $(cat "$T/err")"
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
	ip -n "$A" addr add "$ADDR_A/24" dev "$VA" && ip -n "$B" addr add 10.77.0.2/24 dev "$VB" &&
	ip -n "$A" link set lo up && ip -n "$B" link set lo up &&
	ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up || {
	echo "not ok - setting up the veth pair failed"
	exit 1
}
unshare --pid --fork --kill-child --mount-proc true 2>"$T/err" || skip "unshare --pid refused: $(cat "$T/err")"

head -c 48 /dev/urandom >"$T/secret"
head -c 48 /dev/urandom >"$T/wrong"
cp "$T/secret" "$T/open"
chmod 600 "$T/secret" "$T/wrong"
chmod 644 "$T/open"

fails=0 n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
bad() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $1"
	shift
	local f
	for f in "$@"; do
		echo "--- $f"
		sed 's/^/    /' "$f" 2>/dev/null | tail -n 25
	done
}

# side NS FLAVOR NAME SECRET PROGRAM ARGS...: start one side in the
# background, its own PID namespace and fabric; $last = its pid; output in
# $T/NAME.out and $T/NAME.err. The inner timeout bounds every program.
last=
side() {
	local ns=$1 fl=$2 name=$3 sec=$4
	shift 4
	local fab
	fab=$(mktemp -d "$T/fabric.XXXXXX")
	env SOFTDOCA_FLAVOR="$fl" SOFTDOCA_FABRIC="$fab" UCX_TLS=tcp SOFTDOCA_LINK="$URL" \
		SOFTDOCA_LINK_SECRET_FILE="$sec" SOFTDOCA_SDK_LOG_LEVEL=50 SOFTDOCA_LINK_TIMEOUT_MS="$TMO" \
		ip netns exec "$ns" unshare --pid --fork --kill-child --mount-proc \
		timeout -k 2 45 "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err" &
	last=$!
	pids+=("$last")
}

# wait_for FILE PATTERN SECONDS: until PATTERN is in FILE; prints the
# milliseconds it took, fails on time-out.
wait_for() {
	local t0 now
	t0=$(date +%s%N)
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		now=$(date +%s%N)
		[ $(((now - t0) / 1000000)) -ge $(($3 * 1000)) ] && return 1
		sleep 0.05
	done
	now=$(date +%s%N)
	echo $(((now - t0) / 1000000))
}

# wait_exit PID SECONDS: its exit status, or 124 (killed) on time-out.
wait_exit() {
	local i
	for i in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1" 2>/dev/null
		{ wait "$1"; } 2>/dev/null
		return 124
	fi
	# (braces: bash's "Killed" notice for a side we killed goes too)
	{ wait "$1"; } 2>/dev/null
}

# ---- 1: a Comch conversation across the veth ----------------------------
side "$A" dpu s1 "$T/secret" "$SRV" svc
spid=$last
if wait_for "$T/s1.out" READY 15 >/dev/null; then
	side "$B" host c1 "$T/secret" "$CLI" svc leave
	wait_exit "$last" 30
	rc=$?
	if [ $rc -eq 0 ] && grep -q "GOT ping" "$T/c1.out" && grep -q "link transport: UCX, $URL" "$T/c1.err" &&
		grep -q "link transport: UCX, $URL" "$T/s1.err" && grep -q "listening on $URL" "$T/s1.err"; then
		ok "Comch client and server across the veth (ucx, tcp): echo answered"
	else
		bad "Comch across the veth (client exit $rc)" "$T/c1.out" "$T/c1.err" "$T/s1.err"
	fi
else
	bad "the server did not start" "$T/s1.out" "$T/s1.err"
fi

# ---- 2: wrong secret ---------------------------------------------------------
side "$B" host c2 "$T/wrong" "$CLI" svc leave
wait_exit "$last" 30
rc=$?
if [ $rc -eq 8 ] && grep -q "REFUSED" "$T/c2.out" && grep -q "authentication failed" "$T/c2.err" &&
	grep -q "NOT_PERMITTED" "$T/c2.err" && wait_for "$T/s1.err" "authentication failed" 5 >/dev/null; then
	ok "a client with another secret is refused (NOT_PERMITTED), both sides log 'authentication failed'"
else
	bad "wrong secret (client exit $rc)" "$T/c2.out" "$T/c2.err" "$T/s1.err"
fi
if grep -qF -- "$(head -c 8 "$T/wrong" | od -An -tx1 | tr -d ' \n')" "$T/c2.err" "$T/s1.err"; then
	bad "a secret's bytes appear in a log" "$T/c2.err"
fi

# ---- 3: secret file open to others --------------------------------------
side "$B" host c3 "$T/open" "$CLI" svc leave
wait_exit "$last" 30
rc=$?
if [ $rc -ne 0 ] && grep -q "SOFTDOCA_LINK_SECRET_FILE=.*refused: mode 0644" "$T/c3.err"; then
	ok "a secret file of mode 0644 is refused with a clear message (client exit $rc)"
else
	bad "secret file of mode 0644 (client exit $rc)" "$T/c3.out" "$T/c3.err"
fi

# ---- 4: a second listener on the same endpoint ---------------------------
side "$A" dpu s2 "$T/secret" "$SRV" svc2
wait_exit "$last" 15
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "cannot listen on $URL: the endpoint is already in use" "$T/s2.err"; then
	ok "a second process listening on $URL fails, naming the endpoint (exit $rc)"
else
	bad "second listener (exit $rc)" "$T/s2.out" "$T/s2.err"
fi

# ---- 5: the server is killed while a client is connected ----------------
side "$B" host c4 "$T/secret" "$CLI" svc stay
cpid=$last
if wait_for "$T/c4.out" "GOT ping" 15 >/dev/null; then
	kill -9 "$spid"
	{ wait "$spid"; } 2>/dev/null
	if ms=$(wait_for "$T/c4.out" LOST $((TMO / 1000 + 5))); then
		ok "a killed server: the client loses the connection after $ms ms (bound $((TMO + 5000)) ms)"
	else
		bad "killed server: the client did not notice" "$T/c4.out" "$T/c4.err"
	fi
else
	bad "killed server: the client did not connect" "$T/c4.out" "$T/c4.err" "$T/s1.err"
fi
wait_exit "$cpid" 10 >/dev/null
wait_exit "$spid" 5 >/dev/null

# ---- 6: the network goes down under a connection ------------------------
side "$A" dpu s3 "$T/secret" "$SRV" svc
spid=$last
if wait_for "$T/s3.out" READY 15 >/dev/null; then
	side "$B" host c5 "$T/secret" "$CLI" svc stay
	cpid=$last
	if wait_for "$T/c5.out" "GOT ping" 15 >/dev/null; then
		ip -n "$A" link set "$VA" down
		if ms=$(wait_for "$T/c5.out" LOST $((TMO / 1000 * 2 + 3))) &&
			wait_for "$T/s3.out" DISCONNECT $((TMO / 1000 * 2 + 3)) >/dev/null; then
			ok "veth down: both sides lose the connection, the client after $ms ms (SOFTDOCA_LINK_TIMEOUT_MS=$TMO)"
		else
			bad "veth down: not noticed in time" "$T/c5.out" "$T/c5.err" "$T/s3.out" "$T/s3.err"
		fi
		ip -n "$A" link set "$VA" up
	else
		bad "veth down: the client did not connect" "$T/c5.out" "$T/c5.err" "$T/s3.err"
	fi
	wait_exit "$cpid" 10 >/dev/null
	kill "$spid" 2>/dev/null
	wait_exit "$spid" 5 >/dev/null
else
	bad "veth down: the server did not start" "$T/s3.out" "$T/s3.err"
fi

# ---- 7, 8: NVIDIA's Comch samples, built against our stages -------------
prefix_of() { # BUILD_DIR -> its install prefix
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"]=="prefix"))' \
		"$1/meson-info/intro-buildoptions.json" 2>/dev/null
}
samples=${DOCA_SAMPLES_DIR:-}
if [ -n "$samples" ] && [ -d "$samples/samples/doca_comch/comch_ctrl_path_server" ] && command -v meson >/dev/null; then
	built=1
	# NVIDIA's files stay theirs: a private copy, as tools/conformance does
	mkdir -p "$T/ds"
	cp -a "$samples/." "$T/ds/"
	rm -rf "$T/ds/.git"
	find "$T/ds" -name meson.build.public | while read -r f; do cp "$f" "${f%.public}"; done
	for pair in "dpu:comch_ctrl_path_server:$BUILD" "host:comch_ctrl_path_client:$PEER" \
		"dpu:comch_data_path_high_speed_server:$BUILD" "host:comch_data_path_high_speed_client:$PEER"; do
		IFS=: read -r fl prog bdir <<<"$pair"
		st=$(prefix_of "$bdir")
		(cd "$T/ds/samples/doca_comch/$prog" && PKG_CONFIG_PATH="$st/lib/pkgconfig" meson setup "$T/b-$prog" &&
			ninja -C "$T/b-$prog") >"$T/build-$prog.log" 2>&1 || built=0
	done
	if [ $built = 1 ]; then
		side "$A" dpu n1 "$T/secret" "$T/b-comch_ctrl_path_server/doca_comch_ctrl_path_server" -p 03:00.0 -r 3b:00.0
		npid=$last
		wait_for "$T/n1.err" "listening on" 15 >/dev/null
		side "$B" host n2 "$T/secret" "$T/b-comch_ctrl_path_client/doca_comch_ctrl_path_client" -p 3b:00.0
		wait_exit "$last" 30
		crc=$?
		wait_exit "$npid" 15
		src=$?
		if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "Sample finished successfully" "$T/n1.err" "$T/n1.out" &&
			grep -q "Sample finished successfully" "$T/n2.err" "$T/n2.out"; then
			ok "NVIDIA's comch_ctrl_path server and client across the veth: both finished successfully"
		else
			bad "comch_ctrl_path samples (server exit $src, client exit $crc)" "$T/n1.err" "$T/n2.err"
		fi
		# The fast path needs shared memory: over the network it must
		# fail at once, saying why, on the side that tried.
		side "$A" dpu n3 "$T/secret" "$T/b-comch_data_path_high_speed_server/doca_comch_data_path_high_speed_server" \
			-p 03:00.0 -r 3b:00.0
		npid=$last
		wait_for "$T/n3.err" "listening on" 15 >/dev/null
		side "$B" host n4 "$T/secret" "$T/b-comch_data_path_high_speed_client/doca_comch_data_path_high_speed_client" \
			-p 3b:00.0
		wait_exit "$last" 20
		crc=$?
		wait_exit "$npid" 10
		src=$?
		if [ $src -ne 0 ] && [ $src -ne 124 ] && [ $crc -ne 124 ] &&
			grep -q "cannot cross a network: the Comch fast path" "$T/n3.err" &&
			grep -q "DOCA_ERROR_NOT_SUPPORTED" "$T/n3.err"; then
			ok "NVIDIA's comch_data_path_high_speed: the fast path is refused (NOT_SUPPORTED, said why), no hang"
		else
			bad "comch_data_path_high_speed over UCX (server exit $src, client exit $crc)" "$T/n3.err" "$T/n4.err"
		fi
	else
		bad "building NVIDIA's comch samples failed" "$T"/build-*.log
	fi
else
	echo "# NVIDIA's Comch samples not run: set DOCA_SAMPLES_DIR to a doca-samples checkout"
fi

echo "$((n - fails))/$n passed"
[ $fails -eq 0 ]
