# shellcheck shell=bash
# Shared by the scripts that run softdoca's two sides across a (virtual)
# network, tests/ucx/ucx_netns.sh and bench/ucx/run_ucx.sh: network
# namespaces joined by veth pairs, skipped (exit 77, saying why) where the
# kernel refuses them, always removed at exit.
# Source it (bash); it defines:
#   skip WHY                -> prints "SKIP: WHY", exits 77
#   netns_need_root         -> skips unless root
#   netns_init DIR [FUNC]   -> traps: at exit, whatever the cause, FUNC (the
#                              script's own processes) runs, then every
#                              namespace and veth made below is deleted and
#                              DIR removed; INT and TERM exit 130. DIR is the
#                              script's private directory (the refusals'
#                              messages go there)
#   netns_add NS            -> a namespace (the status of ip)
#   veth_add IF1 IF2        -> a veth pair (the status of ip)
#   netns_add_or_skip NS... -> namespaces; skips if ip netns is refused
#   veth_add_or_skip IF1 IF2 -> a veth pair; skips if refused
#   netns_join IF1 NS1 ADDR1/PFX IF2 NS2 ADDR2/PFX
#                           -> the ends of a veth pair into their namespaces,
#                              addressed and up (loopback too)
#   netns_need_unshare      -> skips unless unshare --pid works (each side
#                              runs in a PID namespace of its own)
#   link_secret FILE...     -> 48 random bytes each, mode 0600: a
#                              SOFTDOCA_LINK_SECRET_FILE

skip() {
	echo "SKIP: $*"
	exit 77
}

netns_need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (it creates network namespaces and a veth pair)"
}

netns_dir=
netns_hook=
netns_made=()
netns_veths=()
netns_cleanup() {
	local x
	[ -n "$netns_hook" ] && "$netns_hook"
	wait 2>/dev/null
	for x in "${netns_made[@]}"; do ip netns del "$x" 2>/dev/null; done
	for x in "${netns_veths[@]}"; do ip link del "$x" 2>/dev/null; done
	rm -rf "$netns_dir"
}
netns_init() {
	netns_dir=$1
	netns_hook=${2:-}
	trap netns_cleanup EXIT
	trap 'exit 130' INT TERM
}

netns_add() {
	netns_made+=("$1")
	ip netns add "$1"
}
veth_add() {
	netns_veths+=("$1")
	ip link add "$1" type veth peer name "$2"
}
netns_add_or_skip() {
	local ns
	for ns in "$@"; do
		netns_add "$ns" 2>"$netns_dir/err" || skip "ip netns refused: $(cat "$netns_dir/err")"
	done
}
veth_add_or_skip() {
	veth_add "$1" "$2" 2>"$netns_dir/err" || skip "cannot create a veth pair: $(cat "$netns_dir/err")"
}

netns_join() {
	ip link set "$1" netns "$2" && ip link set "$4" netns "$5" &&
		ip -n "$2" addr add "$3" dev "$1" && ip -n "$5" addr add "$6" dev "$4" &&
		ip -n "$2" link set lo up && ip -n "$5" link set lo up &&
		ip -n "$2" link set "$1" up && ip -n "$5" link set "$4" up
}

netns_need_unshare() {
	unshare --pid --fork --kill-child --mount-proc true 2>"$netns_dir/err" ||
		skip "unshare --pid refused: $(cat "$netns_dir/err")"
}

link_secret() {
	local f
	for f in "$@"; do
		head -c 48 /dev/urandom >"$f"
		chmod 600 "$f"
	done
}
