#!/bin/sh
# Install what softdoca needs to build and test, from Debian's packages.
# As root it installs them; otherwise it prints the exact command to run.
# With --deb: also what `make deb` needs (dpkg-buildpackage, debhelper,
# lintian); `make test` does not need them (the package test skips without).
# With --bench: also what `make bench` uses beyond the build: DPDK's dmadev
# with its dma_skeleton driver (the peer measured beside softdoca's DMA),
# gnuplot (the plot next to the CSV) and iperf3 (raw TCP beside remote DMA
# over UCX, bench/ucx/run_ucx.sh). The bench runs without them and says
# which figures it left out.
set -eu
# libucx-dev, libssl-dev: the UCX link (SOFTDOCA_LINK=ucx://); ucx-utils, iproute2: its
# two-namespace test (ucx_info, ip netns).
PKGS="meson ninja-build pkg-config gcc libc6-dev libjson-c-dev libcmocka-dev python3 clang libclang-rt-14-dev libucx-dev libssl-dev ucx-utils iproute2"
for arg in "$@"; do
	case "$arg" in
	--deb) PKGS="$PKGS dpkg-dev debhelper fakeroot lintian" ;;
	--bench) PKGS="$PKGS libdpdk-dev librte-dma-skeleton23 librte-dmadev23 gnuplot-nox iperf3" ;;
	*)
		echo "usage: install-deps.sh [--deb] [--bench]" >&2
		exit 2
		;;
	esac
done
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
	echo "softdoca: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "softdoca: missing packages:$missing" >&2
	echo "softdoca: run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
