#!/bin/bash
# softdoca-shell end to end against the staged flavors.
# Usage: run_shell_test.sh MODE SHELL HOST_STAGE DPU_STAGE
#   MODE: namespace  /opt/mellanox/doca mapped in a mount namespace (skipped
#                    with 77 where the kernel refuses unshare)
#         fallback   SOFTDOCA_SHELL_NO_NAMESPACE=1: the announced fallback
#         two_sides  secure_channel, Arm shell in the background then the host
#                    shell, one shared fabric, nothing left behind
# Every mode also checks lspci on both sides, PATH, PKG_CONFIG_PATH, the prompt
# and that no temporary folder or fabric socket outlives the shells.
set -u
mode=$1 shell=$2 host_stage=$3 dpu_stage=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The stages as softdoca-shell finds a build: <dir>/dpu/stage, <dir>/host/stage.
mkdir -p "$work/build/dpu" "$work/build/host" "$work/tmp" "$work/home"
ln -s "$dpu_stage" "$work/build/dpu/stage"
ln -s "$host_stage" "$work/build/host/stage"
export SOFTDOCA_SHELL_BUILD_DIR="$work/build" SOFTDOCA_ROOTS="$work/no-install"
export TMPDIR="$work/tmp" HOME="$work/home"
export SOFTDOCA_FABRIC="$work/fabric"
mkdir -m 0700 "$SOFTDOCA_FABRIC"
unset SOFTDOCA_TOPOLOGY SOFTDOCA_SHELL_ORIG_PATH SOFTDOCA_SHELL_ORIG_PKG_CONFIG_PATH SOFTDOCA_SHELL_ORIG_LD_LIBRARY_PATH
opt_before=$(ls -A /opt 2>/dev/null)
multiarch=$(gcc -print-multiarch 2>/dev/null)
[ -n "$multiarch" ] || multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
[ -n "$multiarch" ] || multiarch="$(uname -m)-linux-gnu"

case $mode in
namespace)
	if [ "$(id -u)" = 0 ]; then
		unshare --mount --propagation private true 2>/dev/null || { echo "SKIP: unshare refused"; exit 77; }
	else
		unshare --user --map-root-user --mount --propagation private true 2>/dev/null ||
			{ echo "SKIP: no user namespaces"; exit 77; }
	fi
	unset SOFTDOCA_SHELL_NO_NAMESPACE
	want_mode=namespace
	;;
fallback | two_sides)
	export SOFTDOCA_SHELL_NO_NAMESPACE=1
	want_mode=fallback
	[ "$mode" = two_sides ] && unset SOFTDOCA_SHELL_NO_NAMESPACE && want_mode=""
	;;
*)
	echo "unknown mode $mode"
	exit 2
	;;
esac

pf='Ethernet controller: Mellanox Technologies MT43244 BlueField-3 integrated ConnectX-7 network controller (rev 01)'
mgmt='DMA controller: Mellanox Technologies MT43244 BlueField-3 SoC Management Interface (rev 01)'

"$shell" --help | grep -q 'softdoca-shell arm|host' || bad "--help"
"$shell" nowhere >/dev/null 2>&1 && bad "a bad side is accepted"

# One side: what the lesson's commands rely on.
check_side() {
	local side=$1 out err dir flavor
	flavor=$([ "$side" = arm ] && echo dpu || echo host)
	out=$("$shell" "$side" -c '
		echo "mode=$SOFTDOCA_SHELL_MODE"
		echo "side=$SOFTDOCA_SIDE"
		echo "dir=$SOFTDOCA_DOCA_DIR"
		echo "path1=${PATH%%:*}"
		echo "path=$PATH"
		echo "pkg=$PKG_CONFIG_PATH"
		echo "caps=$(command -v doca_caps)"
		echo "lspci=$(command -v lspci)"
		echo "version=$(doca_caps --version)"
		doca_caps --list-libs | grep -q "doca_dma .*available" && echo libs=ok
		[ "$(doca_caps --limit-to-lib dma | grep -c "^	[a-z]*:$")" = "$(doca_caps | grep -c ^PCI)" ] && echo limit=ok
		doca_caps --limit-to-lib nosuch >/dev/null 2>&1 || echo limit_bad=ok
		pkg-config --exists doca-dma doca-comch doca-argp doca-common && echo pkgconfig=ok
		echo "fabric=$SOFTDOCA_FABRIC"
		lspci | sed "s/^/lspci: /"
		lspci | grep -i mellanox | sed "s/^/grep: /"
		lspci -nn | sed "s/^/nn: /"
		lspci -s 00.1 | sed "s/^/slot: /"
		[ -x "$SOFTDOCA_DOCA_DIR/applications/secure_channel/bin/doca_secure_channel" ] && echo app=ok
		[ -x "$SOFTDOCA_DOCA_DIR/applications/dma_copy/bin/doca_dma_copy" ] && echo dma_copy=ok
		[ -f "$SOFTDOCA_DOCA_DIR/include/doca_dma.h" ] && echo include=ok
		[ -d /opt/mellanox/doca/tools ] && echo opt=mapped
		exit 7' 2>"$work/err")
	[ $? = 7 ] || bad "$side: -c did not pass the command's exit status on"
	err=$(cat "$work/err")
	dir=$(sed -n 's/^dir=//p' <<<"$out")
	grep -qx "side=$side" <<<"$out" || bad "$side: SOFTDOCA_SIDE"
	if [ -n "$want_mode" ]; then
		grep -qx "mode=$want_mode" <<<"$out" || bad "$side: mode is not $want_mode: $out"
	fi
	if grep -qx "mode=namespace" <<<"$out"; then
		[ "$dir" = /opt/mellanox/doca ] || bad "$side: SOFTDOCA_DOCA_DIR $dir"
		grep -qx "opt=mapped" <<<"$out" || bad "$side: /opt/mellanox/doca not mapped"
		grep -q "not mapped" <<<"$err" && bad "$side: fallback notice in namespace mode"
	else
		grep -q "/opt/mellanox/doca paths are not mapped" <<<"$err" || bad "$side: no fallback notice: $err"
		[ "$(grep -c 'not mapped' <<<"$err")" = 1 ] || bad "$side: the notice is not one line"
	fi
	grep -qx "path1=$work/tmp/softdoca-shell.*/bin" <<<"$out" || grep -q "^path1=$work/tmp/softdoca-shell\..*/bin$" <<<"$out" ||
		bad "$side: lspci's folder is not first in PATH"
	grep -q "^path=[^:]*:$dir/tools:" <<<"$out" || bad "$side: PATH lacks $dir/tools second"
	grep -qx "pkg=$dir/lib/$multiarch/pkgconfig" <<<"$out" || bad "$side: PKG_CONFIG_PATH: $(grep ^pkg= <<<"$out")"
	grep -qx "caps=$dir/tools/doca_caps" <<<"$out" || bad "$side: doca_caps not from the side's tools"
	grep -q "^version=doca_caps version .*, $flavor)$" <<<"$out" || bad "$side: doca_caps is not the $flavor flavor"
	grep -qx "pkgconfig=ok" <<<"$out" || bad "$side: pkg-config does not find doca-*"
	grep -qx "fabric=$SOFTDOCA_FABRIC" <<<"$out" || bad "$side: fabric not the caller's"
	for k in app dma_copy include libs limit limit_bad; do
		grep -qx "$k=ok" <<<"$out" || bad "$side: $k missing from the tree"
	done
	if [ "$side" = arm ]; then
		[ "$(grep '^lspci: ' <<<"$out")" = "lspci: 03:00.0 $pf
lspci: 03:00.1 $pf" ] || bad "arm: lspci: $(grep '^lspci: ' <<<"$out")"
		grep -qx "slot: 03:00.1 $pf" <<<"$out" || bad "arm: lspci -s 00.1"
		grep -qx "nn: 03:00.0 Ethernet controller \[0200\]: Mellanox Technologies MT43244 BlueField-3 integrated ConnectX-7 network controller \[15b3:a2dc\] (rev 01)" <<<"$out" ||
			bad "arm: lspci -nn"
	else
		[ "$(grep '^lspci: ' <<<"$out")" = "lspci: 3b:00.0 $pf
lspci: 3b:00.1 $pf
lspci: 3b:00.2 $mgmt" ] || bad "host: lspci: $(grep '^lspci: ' <<<"$out")"
		grep -qx "grep: 3b:00.0 $pf" <<<"$out" || bad "host: lspci | grep -i mellanox lacks 3b:00.0"
	fi
	# the interactive prompt names the side
	echo 'exit 0' | "$shell" "$side" >/dev/null 2>"$work/err" || bad "$side: interactive shell failed"
	grep -q "^($side) " "$work/err" || bad "$side: prompt: $(cat "$work/err")"
}

if [ "$mode" != two_sides ]; then
	check_side arm
	check_side host
	# the topology comes from SOFTDOCA_TOPOLOGY: a VF and a second card
	cat >"$work/topo.json" <<'JSON'
{"cards": [
  {"dpu": {"pfs": [{"pci": "03:00.0", "reps": ["3b:00.0", {"pci": "3b:00.3", "func_type": "vf"}]}]},
   "host": {"functions": [{"pci": "3b:00.0"}, {"pci": "3b:00.3", "func_type": "vf"}]}},
  {"dpu": {"pfs": [{"pci": "0001:05:00.0", "reps": ["af:00.0"]}]},
   "host": {"functions": [{"pci": "af:00.0"}]}}]}
JSON
	out=$(SOFTDOCA_TOPOLOGY="$work/topo.json" "$shell" host -c lspci 2>/dev/null)
	[ "$out" = "3b:00.0 $pf
3b:00.1 $mgmt
3b:00.3 Ethernet controller: Mellanox Technologies ConnectX Family mlx5Gen Virtual Function (rev 01)
af:00.0 $pf
af:00.1 $mgmt" ] || bad "host lspci with a topology file: $out"
	out=$(SOFTDOCA_TOPOLOGY="$work/topo.json" "$shell" arm -c lspci 2>/dev/null)
	[ "$out" = "0000:03:00.0 $pf
0001:05:00.0 $pf" ] || bad "arm lspci with a second domain: $out"
	out=$(SOFTDOCA_TOPOLOGY="$work/topo.json" "$shell" arm -c 'doca_caps --topology-json' 2>/dev/null)
	if command -v python3 >/dev/null; then
		python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["side"] == "arm" and d["flavor"] == "dpu", d
assert [x["pci"] for x in d["devices"]] == ["0000:03:00.0", "0001:05:00.0"], d
assert [r["pci"] for r in d["devices"][0]["representors"]] == ["0000:3b:00.0", "0000:3b:00.3"], d
assert d["devices"][0]["representors"][1]["pci_func_type"] == "VF", d
assert d["devices"][1]["card"] == 1, d
assert d["devices"][0]["caps"]["dma_memcpy_supported"] is True, d
' "$out" || bad "--topology-json: $out"
	fi
	# a default fabric both sides agree on: XDG_RUNTIME_DIR's, as the SDK's
	for side in arm host; do
		out=$(env -u SOFTDOCA_FABRIC XDG_RUNTIME_DIR="$work/xdg" "$shell" $side -c 'echo $SOFTDOCA_FABRIC' 2>/dev/null)
		[ "$out" = "$work/xdg/softdoca-fabric" ] || bad "$side: default fabric $out"
	done
else
	# The lesson's Lab: the Arm side in one shell, the host in another.
	app=/opt/mellanox/doca/applications/secure_channel/bin/doca_secure_channel
	mode_now=$("$shell" arm -c 'echo $SOFTDOCA_SHELL_MODE' 2>/dev/null)
	[ "$mode_now" = namespace ] || app='$SOFTDOCA_DOCA_DIR/applications/secure_channel/bin/doca_secure_channel'
	timeout 60 "$shell" arm -c "$app -s 256 -n 10 -p 03:00.0 -r 3b:00.0" >"$work/arm.log" 2>&1 &
	arm_pid=$!
	for _ in $(seq 100); do
		compgen -G "$SOFTDOCA_FABRIC/*secure_channel*" >/dev/null && break
		sleep 0.1
	done
	timeout 60 "$shell" host -c "lspci | grep -i mellanox | head -1; $app -s 256 -n 10 -p 3b:00.0" >"$work/host.log" 2>&1
	host_rc=$?
	wait $arm_pid
	arm_rc=$?
	[ $arm_rc = 0 ] || bad "Arm side exited $arm_rc: $(cat "$work/arm.log")"
	[ $host_rc = 0 ] || bad "host side exited $host_rc: $(cat "$work/host.log")"
	for s in arm host; do
		grep -q "Producer sent 10 messages" "$work/$s.log" || bad "$s: no 'Producer sent 10 messages'"
		grep -q "Consumer received 10 messages" "$work/$s.log" || bad "$s: no 'Consumer received 10 messages'"
	done
	grep -q "^3b:00.0 $pf" "$work/host.log" || bad "host: lspci | grep -i mellanox"
	echo "--- arm shell"; cat "$work/arm.log"; echo "--- host shell"; cat "$work/host.log"
fi

# nothing left behind: temporary folders, fabric entries, /opt
[ -z "$(ls -A "$work/tmp")" ] || bad "left in TMPDIR: $(ls -A "$work/tmp")"
[ -z "$(ls -A "$SOFTDOCA_FABRIC")" ] || bad "left in the fabric: $(ls -A "$SOFTDOCA_FABRIC")"
[ "$(ls -A /opt 2>/dev/null)" = "$opt_before" ] || bad "/opt changed"
[ $fail = 0 ] && echo "PASS: shell $mode"
exit $fail
