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
# Cases: a client started before its server waits for it; one Arm-side
# process serving two host functions whose hosts are two namespaces; a host
# with two cards whose Arm sides are two namespaces (the topology's
# cards[i].link: Comch on both cards from one process, doca_dma_copy on the
# second); a Comch
# conversation across the veth (tests/comch/comch_peer, and
# NVIDIA's comch_ctrl_path samples when DOCA_SAMPLES_DIR points at a
# doca-samples checkout), a wrong secret refused on both sides, a secret file
# of mode 0644 refused, a second listener on the port refused, a killed server
# and a downed veth both reported to the client within a bounded time,
# (with DOCA_SAMPLES_DIR) NVIDIA's comch_data_path_high_speed samples (the
# fast path) and sync_event_local_pci/remote_pci (both ways) across the veth;
# remote DMA: the dma_copy_host/dma_copy_dpu samples (NVIDIA's with
# DOCA_SAMPLES_DIR, else the tree's) with the descriptor files carried
# across, sha256 checked, an importer with the wrong secret, an exporter
# killed before the import and one frozen (SIGSTOP); doca_dma_copy both
# directions (32 MiB, sha256), the exporter killed and the veth taken down
# in the middle of a 256 MiB copy.
# Skips (77) unless root, when ip netns or veth are refused, or without UCX.
# Leaves no namespace, process or file behind (trap), whatever happens.
set -u
# skip, the namespaces and veth pairs, their removal at exit
# shellcheck source=../common/netns.sh
. "$(dirname "$0")/../common/netns.sh"
BUILD=${SOFTDOCA_BUILD_DIR:?run from meson test}
PEER=${SOFTDOCA_PEER_BUILD_DIR:-}
netns_need_root
for c in ip unshare timeout; do
	command -v "$c" >/dev/null 2>&1 || skip "$c not found (apt-get install iproute2 util-linux coreutils)"
done
[ -f "$BUILD/src/fabric/sd_link_ucx.so" ] || skip "softdoca was built without UCX (install libucx-dev libssl-dev, -Ducx=enabled)"
SRV=$BUILD/tests/comch/comch_peer
CLI=$PEER/tests/comch/comch_peer
[ -n "$PEER" ] && [ -x "$SRV" ] && [ -x "$CLI" ] || skip "needs both flavors built (-Dpeer_build) with tests/comch/comch_peer"

tag=sdx$$
A=${tag}a B=${tag}b VA=${tag}va VB=${tag}vb
# a second host machine, C, joined to A by a veth pair of its own (it
# reaches A's listening address through A; B has no route to A's second
# network, so UCX on A must not use that interface toward B)
C=${tag}c WA=${tag}wa WC=${tag}wc
# a second Arm machine, D (card 1's Arm side when the topology gives each
# card its own link), joined to B only: A cannot reach it, nor it A
D=${tag}d XB=${tag}xb XD=${tag}xd ADDR_D=10.77.2.1
ADDR_A=10.77.0.1
URL=ucx://$ADDR_A:18515
TMO=2000 # SOFTDOCA_LINK_TIMEOUT_MS for the partition case
T=$(mktemp -d "${TMPDIR:-/tmp}/softdoca-ucx.XXXXXX")
pids=()
kill_sides() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
}
netns_init "$T" kill_sides

netns_add_or_skip "$A" "$B"
veth_add_or_skip "$VA" "$VB"
netns_join "$VA" "$A" "$ADDR_A/24" "$VB" "$B" 10.77.0.2/24 || {
	echo "not ok - setting up the veth pair failed"
	exit 1
}
netns_add "$C" && veth_add "$WA" "$WC" &&
	netns_join "$WA" "$A" 10.77.1.1/24 "$WC" "$C" 10.77.1.2/24 && ip -n "$C" route add default via 10.77.1.1 || {
	echo "not ok - setting up the second host's veth pair failed"
	exit 1
}
netns_add "$D" && veth_add "$XB" "$XD" && netns_join "$XD" "$D" "$ADDR_D/24" "$XB" "$B" 10.77.2.2/24 || {
	echo "not ok - setting up the second Arm machine's veth pair failed"
	exit 1
}
netns_need_unshare

link_secret "$T/secret" "$T/wrong"
cp "$T/secret" "$T/open"
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
# $side_in: the side's stdin (default /dev/null).
last=
side_in=/dev/null
side() {
	local ns=$1 fl=$2 name=$3 sec=$4
	shift 4
	local fab
	fab=$(mktemp -d "$T/fabric.XXXXXX")
	env SOFTDOCA_FLAVOR="$fl" SOFTDOCA_FABRIC="$fab" UCX_TLS=tcp SOFTDOCA_LINK="$URL" \
		SOFTDOCA_LINK_SECRET_FILE="$sec" SOFTDOCA_SDK_LOG_LEVEL=50 SOFTDOCA_LINK_TIMEOUT_MS="$TMO" \
		ip netns exec "$ns" unshare --pid --fork --kill-child --mount-proc \
		timeout -k 2 45 "$@" <"$side_in" >"$T/$name.out" 2>"$T/$name.err" &
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

# ---- 0: a client started before its server waits, as on the local fabric --
side "$B" host c0 "$T/secret" "$CLI" svc leave
c0pid=$last
if wait_for "$T/c0.err" "Waiting for Comch server" 15 >/dev/null; then
	early=1
else
	early=0
fi

# ---- 1: a Comch conversation across the veth ----------------------------
side "$A" dpu s1 "$T/secret" "$SRV" svc
spid=$last
wait_exit "$c0pid" 30
rc=$?
if [ $early = 1 ] && [ $rc -eq 0 ] && grep -q "GOT ping" "$T/c0.out"; then
	ok "a client started before its server waits for it (nobody listens yet: a warning, no error), then talks"
else
	bad "a client started before its server (waited: $early, client exit $rc)" "$T/c0.out" "$T/c0.err"
fi
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

# ---- 1b: the link named by the topology file instead of the variables -----
# (a relative link_secret_file is the topology file's neighbour)
mkdir -p "$T/topo"
cp "$T/secret" "$T/topo/link-secret"
chmod 600 "$T/topo/link-secret"
cat >"$T/topo/link.json" <<EOF_TOPO
{ "link": "$URL", "link_secret_file": "link-secret",
  "cards": [ { "dpu": { "pfs": [ { "pci": "03:00.0", "reps": [ "3b:00.0" ] } ] },
               "host": { "functions": [ { "pci": "3b:00.0" } ] } } ] }
EOF_TOPO
side "$B" host c1t /nonexistent env -u SOFTDOCA_LINK -u SOFTDOCA_LINK_SECRET_FILE \
	SOFTDOCA_TOPOLOGY="$T/topo/link.json" "$CLI" svc leave
wait_exit "$last" 30
rc=$?
if [ $rc -eq 0 ] && grep -q "GOT ping" "$T/c1t.out" && grep -q "from the topology file" "$T/c1t.err" &&
	grep -q "link transport: UCX, $URL (authenticated with the secret of the topology's link_secret_file)" \
		"$T/c1t.err"; then
	ok "the host side takes the link and its secret (a relative path) from SOFTDOCA_TOPOLOGY: echo answered"
else
	bad "the link from the topology file (client exit $rc)" "$T/c1t.out" "$T/c1t.err"
fi

# ---- 1c: one variable per side: the secret from ~/.softdoca-secret ---------
mkdir -p "$T/home"
cp "$T/secret" "$T/home/.softdoca-secret"
chmod 600 "$T/home/.softdoca-secret"
side "$B" host c1h /nonexistent env -u SOFTDOCA_LINK_SECRET_FILE HOME="$T/home" "$CLI" svc leave
wait_exit "$last" 30
rc=$?
if [ $rc -eq 0 ] && grep -q "GOT ping" "$T/c1h.out" &&
	grep -q "authenticated with the secret of the default secret file" "$T/c1h.err"; then
	ok "with SOFTDOCA_LINK alone the host side finds the secret in ~/.softdoca-secret: echo answered"
else
	bad "the default secret file (client exit $rc)" "$T/c1h.out" "$T/c1h.err"
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
option_of() { # BUILD_DIR OPTION -> its value
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"]==sys.argv[2]))' \
		"$1/meson-info/intro-buildoptions.json" "$2" 2>/dev/null
}
prefix_of() { option_of "$1" prefix; } # BUILD_DIR -> its install prefix
# The samples are built with the sanitizers of the stage they link against
# (a sanitized libdoca in an unsanitized program aborts at start).
san_opts=
san=$(option_of "$BUILD" b_sanitize)
[ -n "$san" ] && [ "$san" != none ] && san_opts="-Db_sanitize=$san -Db_lundef=false"
# private_samples: NVIDIA's samples copied once into $T/ds (their files stay
# theirs: a private copy, as tools/conformance does), with their public
# meson files in place.
private_samples() {
	[ -d "$T/ds" ] && return 0
	mkdir -p "$T/ds"
	cp -a "$samples/." "$T/ds/"
	rm -rf "$T/ds/.git"
	find "$T/ds" -name meson.build.public | while read -r f; do cp "$f" "${f%.public}"; done
}
# sample_pair NAME LABEL ARM_EXE "ARM ARGS" HOST_EXE "HOST ARGS": NVIDIA's
# Arm-side sample first (it serves the Comch connection), then the host one;
# ok when both exit 0, say "Sample finished successfully" and met nothing
# NOT_SUPPORTED. Output in $T/NAME-arm.* and $T/NAME-host.*.
sample_pair() {
	local name=$1 label=$2 arm=$3 arm_args=$4 hst=$5 hst_args=$6 npid crc src
	# shellcheck disable=SC2086 # the arguments: words
	side "$A" dpu "$name-arm" "$T/secret" "$arm" $arm_args
	npid=$last
	wait_for "$T/$name-arm.err" "listening on" 15 >/dev/null
	# shellcheck disable=SC2086
	side "$B" host "$name-host" "$T/secret" "$hst" $hst_args
	wait_exit "$last" 30
	crc=$?
	wait_exit "$npid" 15
	src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ] &&
		grep -q "Sample finished successfully" "$T/$name-arm.err" "$T/$name-arm.out" &&
		grep -q "Sample finished successfully" "$T/$name-host.err" "$T/$name-host.out" &&
		! grep -q "NOT_SUPPORTED" "$T/$name-arm.err" "$T/$name-host.err"; then
		ok "$label: both finished successfully"
	else
		bad "$label (Arm exit $src, host exit $crc)" "$T/$name-arm.err" "$T/$name-host.err"
	fi
}
samples=${DOCA_SAMPLES_DIR:-}
if [ -n "$samples" ] && [ -d "$samples/samples/doca_comch/comch_ctrl_path_server" ] && command -v meson >/dev/null; then
	built=1
	private_samples
	for pair in "dpu:comch_ctrl_path_server:$BUILD" "host:comch_ctrl_path_client:$PEER" \
		"dpu:comch_data_path_high_speed_server:$BUILD" "host:comch_data_path_high_speed_client:$PEER"; do
		IFS=: read -r fl prog bdir <<<"$pair"
		st=$(prefix_of "$bdir")
		# shellcheck disable=SC2086 # san_opts: zero or two words
		(cd "$T/ds/samples/doca_comch/$prog" && PKG_CONFIG_PATH="$st/lib/pkgconfig" meson setup $san_opts "$T/b-$prog" &&
			ninja -C "$T/b-$prog") >"$T/build-$prog.log" 2>&1 || built=0
	done
	if [ $built = 1 ]; then
		sample_pair n1 "NVIDIA's comch_ctrl_path server and client across the veth" \
			"$T/b-comch_ctrl_path_server/doca_comch_ctrl_path_server" "-p 03:00.0 -r 3b:00.0" \
			"$T/b-comch_ctrl_path_client/doca_comch_ctrl_path_client" "-p 3b:00.0"
		# The fast path across the network: the consumer's credits and
		# the producer's messages travel on the Comch connection
		# (fastpath.h, "Across a network"); both samples finish.
		sample_pair n3 "NVIDIA's comch_data_path_high_speed server and client across the veth" \
			"$T/b-comch_data_path_high_speed_server/doca_comch_data_path_high_speed_server" \
			"-p 03:00.0 -r 3b:00.0" \
			"$T/b-comch_data_path_high_speed_client/doca_comch_data_path_high_speed_client" "-p 3b:00.0"
	else
		bad "building NVIDIA's comch samples failed" "$T"/build-*.log
	fi
else
	echo "# NVIDIA's Comch samples not run: set DOCA_SAMPLES_DIR to a doca-samples checkout"
fi

# ---- NVIDIA's sync event samples across the veth, both ways ---------------
# sync_event_local_pci exports an event and sends the descriptor over Comch;
# sync_event_remote_pci imports it; the two signal and wait on it in turn.
# The value stays with the exporter and every operation of the importer
# crosses the veth (remote_cell.c, "Across a network").
if [ -n "$samples" ] && [ -d "$samples/samples/doca_common/sync_event_local_pci" ] && command -v meson >/dev/null; then
	private_samples
	built=1
	for pair in "dpu:sync_event_local_pci:$BUILD" "host:sync_event_remote_pci:$PEER" \
		"dpu:sync_event_remote_pci:$BUILD" "host:sync_event_local_pci:$PEER"; do
		IFS=: read -r fl prog bdir <<<"$pair"
		st=$(prefix_of "$bdir")
		# shellcheck disable=SC2086 # san_opts: zero or two words
		(cd "$T/ds/samples/doca_common/$prog" &&
			PKG_CONFIG_PATH="$st/lib/pkgconfig" meson setup $san_opts "$T/b-$fl-$prog" &&
			ninja -C "$T/b-$fl-$prog") >"$T/build-$fl-$prog.log" 2>&1 || built=0
	done
	if [ $built = 1 ]; then
		for dir in "local_pci:remote_pci" "remote_pci:local_pci"; do
			IFS=: read -r arm hst <<<"$dir"
			sample_pair "se-$arm" \
				"NVIDIA's sync_event_$arm (Arm side) and sync_event_$hst (host) across the veth" \
				"$T/b-dpu-sync_event_$arm/doca_sync_event_$arm" "-d 03:00.0 -r 3b:00.0" \
				"$T/b-host-sync_event_$hst/doca_sync_event_$hst" "-d 3b:00.0"
		done
	else
		bad "building NVIDIA's sync event samples failed" "$T"/build-*-sync_event_*.log
	fi
else
	echo "# NVIDIA's sync event samples not run: set DOCA_SAMPLES_DIR to a doca-samples checkout"
fi

# ---- one Arm-side process, two host functions, two host machines ----------
# A server per representor (PF0's and PF1's) in one process; the host of
# PF0 in B, the host of PF1 in C, at once: each reaches its own.
side "$A" dpu s6 "$T/secret" env COMCH_PEER_REPS=0000:3b:00.0,0000:3b:00.1 "$SRV" svc
spid=$last
if wait_for "$T/s6.out" READY 15 >/dev/null; then
	side "$B" host c6 "$T/secret" env COMCH_PEER_PCI=0000:3b:00.0 "$CLI" svc leave
	p6=$last
	side "$C" host c7 "$T/secret" env COMCH_PEER_PCI=0000:3b:00.1 "$CLI" svc leave
	p7=$last
	wait_exit "$p6" 30
	r6=$?
	wait_exit "$p7" 30
	r7=$?
	if [ $r6 -eq 0 ] && [ $r7 -eq 0 ] && grep -q "GOT ping@0000:3b:00.0" "$T/c6.out" &&
		grep -q "GOT ping@0000:3b:00.1" "$T/c7.out"; then
		ok "one Arm-side process serves PF0's host (netns B) and PF1's host (netns C) at once, each its own server"
	else
		bad "two host functions on two machines (exits $r6, $r7)" "$T/c6.out" "$T/c6.err" "$T/c7.out" \
			"$T/c7.err" "$T/s6.err"
	fi
else
	bad "two host functions: the server did not start" "$T/s6.out" "$T/s6.err"
fi
kill "$spid" 2>/dev/null
wait_exit "$spid" 5 >/dev/null

# ---- a host with two cards whose Arm sides are two machines ---------------
# The topology gives each card its own link (cards[i].link, SOFTDOCA_LINK
# unset): card 0's Arm side is A, card 1's is D. One host process in B has
# a client on each card at once; then doca_dma_copy host -> Arm on card 1,
# whose host-side export must be served on B's address facing D (D has no
# route to the network between A and B).
cat >"$T/topo/cards.json" <<EOF_TOPO
{ "link_secret_file": "link-secret",
  "cards": [ { "link": "$URL",
               "dpu": { "pfs": [ { "pci": "03:00.0", "reps": [ "3b:00.0" ] } ] },
               "host": { "functions": [ { "pci": "3b:00.0" } ] } },
             { "link": "ucx://$ADDR_D:18515",
               "dpu": { "pfs": [ { "pci": "04:00.0", "reps": [ "5e:00.0" ] } ] },
               "host": { "functions": [ { "pci": "5e:00.0" } ] } } ] }
EOF_TOPO
per_card=(env -u SOFTDOCA_LINK -u SOFTDOCA_LINK_SECRET_FILE SOFTDOCA_TOPOLOGY="$T/topo/cards.json")
side "$A" dpu s8 /nonexistent "${per_card[@]}" COMCH_PEER_REPS=0000:3b:00.0 "$SRV" svc
s8=$last
side "$D" dpu s9 /nonexistent "${per_card[@]}" COMCH_PEER_REPS=0000:5e:00.0 "$SRV" svc
s9=$last
if wait_for "$T/s8.out" READY 15 >/dev/null && wait_for "$T/s9.out" READY 15 >/dev/null; then
	side "$B" host c8 /nonexistent "${per_card[@]}" "$PEER/tests/ucx/cards_client" svc 0000:3b:00.0 0000:5e:00.0
	wait_exit "$last" 30
	rc=$?
	if [ $rc -eq 0 ] && grep -q "GOT ping@0000:3b:00.0 via 0000:3b:00.0" "$T/c8.out" &&
		grep -q "GOT ping@0000:5e:00.0 via 0000:5e:00.0" "$T/c8.out" &&
		grep -q "card 1 at ucx://$ADDR_D:18515 (the topology's cards\[1\].link)" "$T/c8.err"; then
		ok "one host process, two cards, each card's Arm side on its own machine (cards[i].link): both answered"
	else
		bad "two cards on two Arm machines (client exit $rc)" "$T/c8.out" "$T/c8.err" "$T/s8.err" "$T/s9.err"
	fi
else
	bad "two cards on two Arm machines: a server did not start" "$T/s8.out" "$T/s8.err" "$T/s9.out" "$T/s9.err"
fi
kill "$s8" "$s9" 2>/dev/null
wait_exit "$s8" 5 >/dev/null
wait_exit "$s9" 5 >/dev/null
APP_D=$BUILD/applications/doca_dma_copy APP_H=$PEER/applications/doca_dma_copy
if [ -x "$APP_D" ] && [ -x "$APP_H" ]; then
	mkdir -p "$T/c1h" "$T/c1d"
	head -c $((4 * 1024 * 1024 + 3)) /dev/urandom >"$T/c1h/src.bin"
	side "$D" dpu c9d /nonexistent "${per_card[@]}" "$APP_D" -p 04:00.0 -r 5e:00.0 -f "$T/c1d/dst.bin"
	dpid=$last
	if wait_for "$T/c9d.out" "waiting for a client connection" 15 >/dev/null; then
		side "$B" host c9h /nonexistent "${per_card[@]}" "$APP_H" -p 5e:00.0 -f "$T/c1h/src.bin"
		wait_exit "$last" 60
		hrc=$?
		wait_exit "$dpid" 10
		arc=$?
		if [ $hrc -eq 0 ] && [ $arc -eq 0 ] &&
			[ "$(sha256sum <"$T/c1h/src.bin")" = "$(sha256sum <"$T/c1d/dst.bin" 2>/dev/null)" ] &&
			! ip -n "$D" route get 10.77.0.2 >/dev/null 2>&1; then
			ok "doca_dma_copy on card 1, 4 MiB + 3 B, sha256 equal: the host's export was served on its address facing card 1's Arm machine (which has no route to the other)"
		else
			bad "doca_dma_copy on card 1 (host exit $hrc, Arm exit $arc)" "$T/c9h.out" "$T/c9h.err" \
				"$T/c9d.out" "$T/c9d.err"
		fi
	else
		bad "doca_dma_copy on card 1: the Arm side did not start" "$T/c9d.out" "$T/c9d.err"
	fi
	kill "$dpid" 2>/dev/null
fi

# ---- secure_channel across the veth: the fast path both ways ---------------
# The tree's doca_secure_channel (a producer and a consumer on each side,
# payload checked by the receiver): a few sizes (1 B, 4 KiB, the device's
# 4 MiB maximum) and counts.
SC_SRV=$BUILD/applications/doca_secure_channel
SC_CLI=$PEER/applications/doca_secure_channel
if [ -x "$SC_SRV" ] && [ -x "$SC_CLI" ]; then
	for sn in 1x1 1x10000 4096x1 4096x10000 4194304x1 4194304x20; do
		sz=${sn%x*} cnt=${sn#*x}
		t0=$(date +%s%N)
		side "$A" dpu sc1 "$T/secret" "$SC_SRV" -s "$sz" -n "$cnt" -p 03:00.0 -r 3b:00.0
		npid=$last
		wait_for "$T/sc1.out" "waiting for a client connection" 15 >/dev/null
		side "$B" host sc2 "$T/secret" "$SC_CLI" -s "$sz" -n "$cnt" -p 3b:00.0
		wait_exit "$last" 45
		crc=$?
		wait_exit "$npid" 15
		src=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		okk=1
		for f in sc1 sc2; do
			grep -q "Producer sent $cnt messages in approximately" "$T/$f.err" "$T/$f.out" || okk=0
			grep -q "Consumer received $cnt messages in approximately" "$T/$f.err" "$T/$f.out" || okk=0
		done
		if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ $okk = 1 ]; then
			ok "secure_channel across the veth: $cnt message(s) of $sz B each way, both sides received them ($ms ms)"
		else
			bad "secure_channel across the veth, $cnt x $sz B (server exit $src, client exit $crc)" "$T/sc1.err" \
				"$T/sc2.err"
		fi
	done
	# The client killed mid-stream (both directions busy): the server's
	# producer and consumer fail and it exits with an error, bounded.
	side "$A" dpu sc3 "$T/secret" "$SC_SRV" -s 4096 -n 100000000 -p 03:00.0 -r 3b:00.0
	npid=$last
	wait_for "$T/sc3.out" "waiting for a client connection" 15 >/dev/null
	side "$B" host sc4 "$T/secret" "$SC_CLI" -s 4096 -n 100000000 -p 3b:00.0
	cpid=$last
	if wait_for "$T/sc3.out" "Client connected" 15 >/dev/null; then
		sleep 1
		kill -9 "$cpid"
		{ wait "$cpid"; } 2>/dev/null
		t0=$(date +%s%N)
		wait_exit "$npid" $((TMO / 1000 + 8))
		src=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		if [ $src -ne 0 ] && [ $src -ne 124 ] && ! grep -q "Consumer received 100000000" "$T/sc3.out"; then
			ok "secure_channel: the client killed mid-stream, the server fails and exits after $ms ms (exit $src)"
		else
			bad "secure_channel, client killed mid-stream (server exit $src after $ms ms)" "$T/sc3.out" "$T/sc3.err"
		fi
	else
		bad "secure_channel, client killed mid-stream: it never connected" "$T/sc3.out" "$T/sc4.out"
	fi
	wait_exit "$npid" 5 >/dev/null
else
	echo "# secure_channel not run: no applications/doca_secure_channel in both builds"
fi

# ---- 9-12: remote DMA, NVIDIA's dma_copy samples across the veth ------
# dma_copy_host (host side, netns B) exports its text read-only and writes
# the export descriptor and buffer info to files; the test carries them
# across (as a user would with scp) to the Arm side (netns A), where
# dma_copy_dpu imports the export and DMAs the text over. Without
# DOCA_SAMPLES_DIR the tree's builds of the same samples are used.
dma_host='' dma_dpu='' dma_from=''
if [ -n "$samples" ] && [ -d "$samples/samples/doca_dma/dma_copy_host" ] && command -v meson >/dev/null; then
	private_samples
	built=1
	for pair in "host:dma_copy_host:$PEER" "dpu:dma_copy_dpu:$BUILD"; do
		IFS=: read -r fl prog bdir <<<"$pair"
		st=$(prefix_of "$bdir")
		# shellcheck disable=SC2086
		(cd "$T/ds/samples/doca_dma/$prog" && PKG_CONFIG_PATH="$st/lib/pkgconfig" meson setup $san_opts "$T/b-$prog" &&
			ninja -C "$T/b-$prog") >"$T/build-$prog.log" 2>&1 || built=0
	done
	if [ $built = 1 ]; then
		dma_host=$T/b-dma_copy_host/doca_dma_copy_host dma_dpu=$T/b-dma_copy_dpu/doca_dma_copy_dpu
		dma_from="NVIDIA's"
	else
		bad "building NVIDIA's dma_copy samples failed" "$T"/build-dma_copy_*.log
	fi
elif [ -x "$PEER/samples/doca_dma_copy_host" ] && [ -x "$BUILD/samples/doca_dma_copy_dpu" ]; then
	dma_host=$PEER/samples/doca_dma_copy_host dma_dpu=$BUILD/samples/doca_dma_copy_dpu
	dma_from="the tree's"
fi

# dma_export TAG TEXT: start dma_copy_host exporting TEXT; $hpid, its stdin
# on fd 7 (a newline ends it); the files carried to $T/TAG-d/.
dma_export() {
	local tag=$1
	mkdir -p "$T/$tag-h" "$T/$tag-d"
	rm -f "$T/$tag.in"
	mkfifo "$T/$tag.in"
	exec 7<>"$T/$tag.in"
	side_in=$T/$tag.in
	side "$B" host "$tag-h" "$T/secret" "$dma_host" -p 3b:00.0 -t "$2" -d "$T/$tag-h/desc" -b "$T/$tag-h/info"
	side_in=/dev/null
	hpid=$last
	if wait_for "$T/$tag-h.out" "Wait till the DPU has finished" 15 >/dev/null ||
		grep -q "Wait till the DPU has finished" "$T/$tag-h.err"; then
		cp "$T/$tag-h/desc" "$T/$tag-h/info" "$T/$tag-d/" # the scp
		return 0
	fi
	return 1
}
# dma_import TAG SECRET: run dma_copy_dpu on the carried files; $drc, $dms.
dma_import() {
	local t0
	t0=$(date +%s%N)
	side "$A" dpu "$1-d" "$2" "$dma_dpu" -p 03:00.0 -d "$T/$1-d/desc" -b "$T/$1-d/info"
	wait_exit "$last" 30
	drc=$?
	dms=$((($(date +%s%N) - t0) / 1000000))
}
# dma_end: press enter on the exporter; its exit status.
dma_end() {
	echo >&7
	wait_exit "$hpid" 10
	local rc=$?
	exec 7>&-
	return $rc
}
logs() { cat "$T/$1.out" "$T/$1.err" 2>/dev/null; }
# tree PID: PID and its descendants (a side's program runs below unshare --fork)
tree() {
	local c
	echo "$1"
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done
}

if [ -n "$dma_host" ]; then
	text=$(head -c 3000 /dev/urandom | base64 -w0)
	want=$(printf %s "$text" | sha256sum | cut -d' ' -f1)
	if dma_export m1 "$text"; then
		dma_import m1 "$T/secret"
		got=$(logs m1-d | sed -n 's/.*Memory content: //p' | head -n1 | tr -d '\n' | sha256sum | cut -d' ' -f1)
		dsz=$(stat -c %s "$T/m1-d/desc")
		dip=$(od -An -tu1 -j64 -N4 "$T/m1-d/desc" | xargs | tr ' ' .)
		if [ $drc -eq 0 ] && [ "$got" = "$want" ] && logs m1-d | grep -qi "Remote DMA copy was done Successfully" &&
			[ "$dsz" -eq 112 ] && [ "$dip" = 10.77.0.2 ]; then
			ok "$dma_from dma_copy_host -> dma_copy_dpu across the veth: ${#text} bytes DMAed, sha256 equal, descriptor $dsz bytes naming $dip ($dms ms)"
		else
			bad "dma_copy samples across the veth (dpu exit $drc, sha256 $got vs $want, descriptor $dsz bytes naming $dip)" \
				"$T/m1-d.out" "$T/m1-d.err" "$T/m1-h.out" "$T/m1-h.err"
		fi
		# ---- 10: the importer holds another secret ----
		dma_import m1 "$T/wrong"
		if [ $drc -ne 0 ] && [ $drc -ne 124 ] && grep -q "authentication failed" "$T/m1-d.err" &&
			logs m1-d | grep -q "Failed to create mmap from export" &&
			wait_for "$T/m1-h.err" "authentication failed" 5 >/dev/null; then
			ok "an importer with another secret is refused before any access (exit $drc, $dms ms), both sides log it"
		else
			bad "wrong secret at the import (dpu exit $drc)" "$T/m1-d.out" "$T/m1-d.err" "$T/m1-h.err"
		fi
		if grep -qF -- "$(od -An -tx1 -N8 "$T/secret" | tr -d ' \n')" "$T/m1-d.err" "$T/m1-h.err" ||
			grep -qF -- "$(head -c 16 "$T/secret" | base64 -w0)" "$T/m1-d/desc"; then
			bad "the secret appears in a log or the descriptor" "$T/m1-d.err"
		fi
		if dma_end; then
			ok "the exporting dma_copy_host ends cleanly after serving the export"
		else
			bad "dma_copy_host did not end cleanly" "$T/m1-h.out" "$T/m1-h.err"
		fi
	else
		bad "dma_copy_host did not export" "$T/m1-h.out" "$T/m1-h.err"
		exec 7>&- 2>/dev/null
	fi
	# ---- 11: the exporter is killed before the import ----
	if dma_export m2 "killed before the import"; then
		kill -9 "$hpid"
		{ wait "$hpid"; } 2>/dev/null
		dma_import m2 "$T/secret"
		if [ $drc -ne 0 ] && [ $drc -ne 124 ] && logs m2-d | grep -q "cannot reach the exporter" &&
			[ $dms -le $((TMO + 5000)) ]; then
			ok "an exporter killed before the import: dma_copy_dpu fails at once (exit $drc, $dms ms)"
		else
			bad "killed exporter (dpu exit $drc, $dms ms)" "$T/m2-d.out" "$T/m2-d.err"
		fi
	else
		bad "dma_copy_host did not export" "$T/m2-h.out" "$T/m2-h.err"
	fi
	exec 7>&- 2>/dev/null
	# ---- 12: the exporter hangs (SIGSTOP): bounded, no hang ----
	if dma_export m3 "frozen exporter"; then
		frozen=$(tree "$hpid")
		kill -STOP $frozen
		dma_import m3 "$T/secret"
		kill -CONT $frozen
		if [ $drc -ne 0 ] && [ $drc -ne 124 ] && logs m3-d | grep -q "Failed to create mmap from export" &&
			[ $dms -le $((TMO * 2 + 5000)) ]; then
			ok "a frozen exporter: dma_copy_dpu fails within the link timeout (exit $drc, $dms ms, SOFTDOCA_LINK_TIMEOUT_MS=$TMO)"
		else
			bad "frozen exporter (dpu exit $drc, $dms ms)" "$T/m3-d.out" "$T/m3-d.err"
		fi
		dma_end >/dev/null
	else
		bad "dma_copy_host did not export" "$T/m3-h.out" "$T/m3-h.err"
	fi
else
	echo "# dma_copy samples not run: neither DOCA_SAMPLES_DIR nor the tree's sample builds"
fi

# ---- 13-16: remote DMA under the dma_copy application ------------------
# The Arm side (netns A) runs every DMA: host -> DPU it reads the host's
# export, DPU -> host it writes into it, both through the exporter's UCX
# thread only. Then the exporter killed, and the veth taken down, while a
# copy runs (the Arm side is paused at the start of its DMA loop so that
# the fault lands mid-copy whatever the speed).
# app_pair TAG HOST_FILE DPU_FILE: start both; $dpid, $apid (host)
app_pair() {
	side "$A" dpu "$1-d" "$T/secret" "$APP_D" -p 03:00.0 -r 3b:00.0 -f "$3"
	dpid=$last
	wait_for "$T/$1-d.out" "waiting for a client connection" 15 >/dev/null || return 1
	side "$B" host "$1-h" "$T/secret" "$APP_H" -p 3b:00.0 -f "$2"
	apid=$last
}
if [ -x "$APP_D" ] && [ -x "$APP_H" ]; then
	mkdir -p "$T/ah" "$T/ad"
	head -c $((32 * 1024 * 1024 + 7)) /dev/urandom >"$T/ah/src.bin"
	want=$(sha256sum <"$T/ah/src.bin")
	for dir in h2d d2h; do
		if [ $dir = h2d ]; then hf=$T/ah/src.bin df=$T/ad/dst.bin; else hf=$T/ah/back.bin df=$T/ad/dst.bin; fi
		t0=$(date +%s%N)
		if app_pair "a$dir" "$hf" "$df"; then
			wait_exit "$apid" 60
			hrc=$?
			wait_exit "$dpid" 10
			arc=$?
			ms=$((($(date +%s%N) - t0) / 1000000))
			got=$(sha256sum <"$( [ $dir = h2d ] && echo "$df" || echo "$hf")" 2>/dev/null)
			if [ $hrc -eq 0 ] && [ $arc -eq 0 ] && [ "$got" = "$want" ]; then
				ok "doca_dma_copy $dir across the veth: 32 MiB + 7 B, sha256 equal ($ms ms with start-up)"
			else
				bad "doca_dma_copy $dir (host exit $hrc, Arm exit $arc)" "$T/a$dir-h.out" "$T/a$dir-d.out" \
					"$T/a$dir-h.err" "$T/a$dir-d.err"
			fi
		else
			bad "doca_dma_copy $dir: the Arm side did not start" "$T/a$dir-d.out" "$T/a$dir-d.err"
		fi
	done
	big=$((256 * 1024 * 1024))
	head -c $big /dev/zero >"$T/ah/big.bin"
	# ---- 15: the exporter (host) is killed mid-copy, host -> DPU ----
	if app_pair k1 "$T/ah/big.bin" "$T/ad/big.bin" && wait_for "$T/k1-d.out" "Copying $big bytes" 20 >/dev/null; then
		paused=$(tree "$dpid")
		kill -STOP $paused
		kill -9 "$apid"
		{ wait "$apid"; } 2>/dev/null
		t0=$(date +%s%N)
		kill -CONT $paused
		wait_exit "$dpid" $((TMO / 1000 + 10))
		arc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		if [ $arc -ne 0 ] && [ $arc -ne 124 ] && logs k1-d | grep -q "DMA copy failed at byte" &&
			[ ! -e "$T/ad/big.bin" ] && [ $ms -le $((TMO + 5000)) ]; then
			ok "the exporter killed mid-copy: the Arm side fails and exits after $ms ms (exit $arc, bound $((TMO + 5000)) ms), no partial file"
		else
			bad "exporter killed mid-copy (Arm exit $arc, $ms ms)" "$T/k1-d.out" "$T/k1-d.err"
		fi
	else
		bad "killed exporter: the copy did not start" "$T/k1-d.out" "$T/k1-h.out" "$T/k1-d.err" "$T/k1-h.err"
	fi
	# ---- 16: the veth goes down mid-copy, DPU -> host ----
	cp "$T/ah/big.bin" "$T/ad/big-src.bin"
	if app_pair k2 "$T/ah/big-back.bin" "$T/ad/big-src.bin" && wait_for "$T/k2-d.out" "Copying $big bytes" 20 >/dev/null; then
		paused=$(tree "$dpid")
		kill -STOP $paused
		ip -n "$A" link set "$VA" down
		t0=$(date +%s%N)
		kill -CONT $paused
		wait_exit "$dpid" $((TMO / 1000 * 2 + 10))
		arc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		wait_exit "$apid" $((TMO / 1000 * 2 + 10))
		hrc=$?
		ip -n "$A" link set "$VA" up
		if [ $arc -ne 0 ] && [ $arc -ne 124 ] && [ $hrc -ne 0 ] && [ $hrc -ne 124 ] &&
			logs k2-d | grep -q "DMA copy failed at byte" && [ $ms -le $((TMO * 2 + 3000)) ]; then
			ok "veth down mid-copy: the Arm side's DMA fails after $ms ms (SOFTDOCA_LINK_TIMEOUT_MS=$TMO), both sides exit (Arm $arc, host $hrc)"
		else
			bad "veth down mid-copy (Arm exit $arc after $ms ms, host exit $hrc)" "$T/k2-d.out" "$T/k2-d.err" \
				"$T/k2-h.out" "$T/k2-h.err"
		fi
	else
		bad "veth down: the copy did not start" "$T/k2-d.out" "$T/k2-h.out" "$T/k2-d.err" "$T/k2-h.err"
	fi
	rm -f "$T"/ah/*.bin "$T"/ad/*.bin
else
	echo "# doca_dma_copy not built: remote DMA under the application not run"
fi

# ---- 17-19: the Arm side exports, a host program imports ----------------
# tests/dma/dma_exporter (dpu build, netns A) exports 3 MiB + 5 B of its
# pattern and answers checksums on its stdin; rm_importer (host build,
# netns B) reads it all, then writes its own pattern into a read-write
# export, and is refused a write into a read-only one.
EXP=$BUILD/tests/dma/dma_exporter IMP=$PEER/tests/ucx/rm_importer
# arm_export TAG SIZE ro|rw SEED: $epid, its stdin on fd 8, $edesc
arm_export() {
	rm -f "$T/$1.in"
	mkfifo "$T/$1.in"
	exec 8<>"$T/$1.in"
	side_in=$T/$1.in
	side "$A" dpu "$1" "$T/secret" "$EXP" "$2" "$3" "$4"
	side_in=/dev/null
	epid=$last
	wait_for "$T/$1.out" "^DESC " 15 >/dev/null || return 1
	edesc=$(sed -n 's/^DESC //p' "$T/$1.out" | head -n1)
}
# arm_sum TAG LEN: the exporter's checksum of [0, LEN)
arm_sum() {
	local k
	k=$(grep -c "^SUM " "$T/$1.out")
	echo "sum 0 $2" >&8
	for _ in $(seq 100); do
		[ "$(grep -c "^SUM " "$T/$1.out")" -gt "$k" ] && break
		sleep 0.05
	done
	grep "^SUM " "$T/$1.out" | tail -n1 | cut -d' ' -f2
}
arm_end() {
	echo quit >&8
	wait_exit "$epid" 10
	local rc=$?
	exec 8>&-
	return $rc
}
if [ -x "$EXP" ] && [ -x "$IMP" ]; then
	sz=$((3 * 1024 * 1024 + 5))
	if arm_export e1 $sz rw 5; then
		side "$B" host i1 "$T/secret" "$IMP" "$edesc" read $sz 5
		wait_exit "$last" 30
		r1=$?
		side "$B" host i2 "$T/secret" "$IMP" "$edesc" write $sz 9
		wait_exit "$last" 30
		r2=$?
		wrote=$(sed -n 's/^WROTE SUM //p' "$T/i2.out")
		now=$(arm_sum e1 $sz)
		if [ $r1 -eq 0 ] && grep -q "^READ ok" "$T/i1.out"; then
			ok "the Arm side exports, a host program reads 3 MiB + 5 B of it across the veth: pattern intact"
		else
			bad "host reads an Arm-side export (exit $r1)" "$T/i1.out" "$T/i1.err" "$T/e1.err"
		fi
		if [ $r2 -eq 0 ] && [ -n "$wrote" ] && [ "$wrote" = "$now" ]; then
			ok "a host program writes 3 MiB + 5 B into an Arm-side export: the exporter's checksum matches ($now)"
		else
			bad "host writes an Arm-side export (exit $r2, wrote $wrote, exporter $now)" "$T/i2.out" "$T/i2.err" \
				"$T/e1.out" "$T/e1.err"
		fi
		arm_end >/dev/null
	else
		bad "dma_exporter on the Arm side did not export" "$T/e1.out" "$T/e1.err"
	fi
	if arm_export e2 65536 ro 5; then
		before=$(arm_sum e2 65536)
		side "$B" host i3 "$T/secret" "$IMP" "$edesc" write 4096 9
		wait_exit "$last" 30
		r3=$?
		after=$(arm_sum e2 65536)
		if [ $r3 -eq 1 ] && grep -q "^FAIL dma DOCA_ERROR_INVALID_VALUE\|^FAIL dma DOCA_ERROR_NOT_PERMITTED" "$T/i3.out" &&
			[ -n "$before" ] && [ "$before" = "$after" ]; then
			ok "a write into a read-only Arm-side export is refused ($(cut -d' ' -f3 "$T/i3.out")), the memory unchanged"
		else
			bad "write into a read-only export (exit $r3, checksum $before -> $after)" "$T/i3.out" "$T/i3.err"
		fi
		arm_end >/dev/null
	else
		bad "dma_exporter (read-only) did not export" "$T/e2.out" "$T/e2.err"
	fi
else
	echo "# tests/dma/dma_exporter or tests/ucx/rm_importer not built: Arm-side exports not run"
fi

echo "$((n - fails))/$n passed"
[ $fails -eq 0 ]
