#!/bin/bash
# make install / make uninstall, as a user runs them, into temporary folders:
#   - both flavors side by side (SOFTDOCA_ROOTS) and through DESTDIR, one
#     flavor at PREFIX (FLAVOR=...), each with DOCA's layout;
#   - every tree's doca_caps runs from where it is installed, with no
#     LD_LIBRARY_PATH, and reports its own side;
#   - a user's meson (and, if cmake is present, CMake) project builds against
#     each tree through PKG_CONFIG_PATH alone and runs with that tree's
#     libraries;
#   - make uninstall leaves nothing behind.
set -u
src=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build="$work/build"
fails=0
nuser=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
ma=$("$src/scripts/install.sh" multiarch)
export SOFTDOCA_FABRIC="$work/fabric"
mkdir -p "$SOFTDOCA_FABRIC"
unset LD_LIBRARY_PATH SOFTDOCA_FLAVOR

mk() { make -s -C "$src" BUILD="$build" "$@" >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; fail "make $*"; return 1; }; }

# check_tree TREE SIDE(dpu|host) PREFIX: DOCA's layout, and the files name PREFIX.
check_tree() {
	local t=$1 side=$2 prefix=$3 f
	for f in include/doca_dev.h include/doca_dma.h include/doca_build_config.h include/doca_version.h \
		"lib/$ma/libdoca_common.so.3" "lib/$ma/libdoca_argp.so.3" "lib/$ma/libdoca_dma.so.3" \
		"lib/$ma/libdoca_comch.so.3" "lib/$ma/libdoca_common.so" \
		"lib/$ma/pkgconfig/doca-common.pc" "lib/$ma/pkgconfig/doca-argp.pc" \
		"lib/$ma/pkgconfig/doca-dma.pc" "lib/$ma/pkgconfig/doca-comch.pc" \
		tools/doca_caps \
		samples/common.c samples/doca_dma/dma_local_copy/dma_local_copy_main.c \
		samples/doca_dma/dma_local_copy/doca_dma_local_copy \
		"samples/doca_dma/dma_copy_$side/doca_dma_copy_$side" \
		applications/secure_channel/bin/doca_secure_channel \
		applications/secure_channel/secure_channel.c \
		applications/dma_copy/bin/doca_dma_copy; do
		[ -e "$t/$f" ] || fail "$t: $f missing"
	done
	[ ! -e "$t/bin" ] || fail "$t: a bin/ folder DOCA's layout does not have"
	grep -q "^prefix=$prefix\$" "$t/lib/$ma/pkgconfig/doca-common.pc" || fail "$t: doca-common.pc prefix is not $prefix"
	grep -q '^Libs: .*-Wl,-rpath,${libdir}' "$t/lib/$ma/pkgconfig/doca-dma.pc" || fail "$t: doca-dma.pc Libs has no rpath"
	local want=DOCA_ARCH_HOST
	[ "$side" = dpu ] && want=DOCA_ARCH_DPU
	grep -q "^#define $want" "$t/include/doca_build_config.h" || fail "$t: doca_build_config.h does not define $want"
	ok "layout of $t ($side)"
}

# check_caps TREE SIDE: the installed doca_caps runs and reports its side.
check_caps() {
	local t=$1 side=$2 out
	out=$("$t/tools/doca_caps" --version 2>&1) || fail "$t: doca_caps --version: $out"
	echo "$out" | grep -q "$side" || fail "$t: doca_caps --version does not say $side: $out"
	out=$("$t/tools/doca_caps" --list-devs 2>&1) || fail "$t: doca_caps --list-devs: $out"
	if [ "$side" = dpu ]; then
		echo "$out" | grep -q "03:00.0" || fail "$t: Arm-side doca_caps does not list 03:00.0"
	else
		echo "$out" | grep -q "3b:00.0" || fail "$t: host doca_caps does not list 3b:00.0"
		echo "$out" | grep -q "03:00.0" && fail "$t: host doca_caps lists the Arm side's 03:00.0"
	fi
	out=$("$t/samples/doca_dma/dma_local_copy/doca_dma_local_copy" --help 2>&1)
	echo "$out" | grep -qi "usage" || fail "$t: installed doca_dma_local_copy --help: $out"
	ok "doca_caps and a sample run from $t ($side)"
}

# check_user TREE SIDE: a user's project against TREE through pkg-config only.
check_user() {
	local t=$1 side=$2 b out pc="$1/lib/$ma/pkgconfig"
	nuser=$((nuser + 1))
	b="$work/user$nuser-$side-meson"
	(env -i PATH="$PATH" HOME="$work" PKG_CONFIG_PATH="$pc" \
		meson setup "$b" "$src/tests/install/project" >"$b.log" 2>&1 && ninja -C "$b" >>"$b.log" 2>&1) ||
		{ cat "$b.log" >&2; fail "$t: user meson project does not build"; return; }
	check_user_run "$t" "$side" "$b/user_probe" meson
	if command -v cmake >/dev/null; then
		b="$work/user$nuser-$side-cmake"
		(env -i PATH="$PATH" HOME="$work" PKG_CONFIG_PATH="$pc" \
			cmake -S "$src/tests/install/project" -B "$b" >"$b.log" 2>&1 && cmake --build "$b" >>"$b.log" 2>&1) ||
			{ cat "$b.log" >&2; fail "$t: user CMake project does not build"; return; }
		check_user_run "$t" "$side" "$b/user_probe" cmake
	else
		echo "cmake not installed: CMake user project not checked"
	fi
}

check_user_run() {
	local t=$1 side=$2 exe=$3 how=$4 out lib
	out=$(env -u LD_LIBRARY_PATH SOFTDOCA_FABRIC="$SOFTDOCA_FABRIC" "$exe" 2>&1) || fail "$t: $how user program: $out"
	echo "$out" | grep -q "^side=$side " || fail "$t: $how user program built for the wrong side: $out"
	local dev=3b:00.0
	[ "$side" = dpu ] && dev=03:00.0
	echo "$out" | grep -q "^dev=0000:$dev dma=" || fail "$t: $how user program does not see $dev: $out"
	lib=$(ldd "$exe" | sed -n 's/.*libdoca_common.so.3 => \([^ ]*\).*/\1/p')
	[ "$(realpath "$lib")" = "$(realpath "$t/lib/$ma/libdoca_common.so.3")" ] ||
		fail "$t: $how user program loads $lib, not its tree's library"
	ok "$how user project against $t ($side)"
}

# The lesson's lab on the installed trees, each program typed as the lesson
# types it inside softdoca-shell (the shells map SOFTDOCA_ROOTS/<side>).
check_lab_installed() {
	local roots=$1 rep="$work/lab-report"
	if SOFTDOCA_ROOTS="$roots" SOFTDOCA_FABRIC= TMPDIR="$work" "$src/scripts/softdoca-lab" --in-shells --installed \
		--report-dir "$rep" >"$work/lab.log" 2>&1; then
		grep -qxF "# command: /opt/mellanox/doca/applications/secure_channel/bin/doca_secure_channel -s 256 -n 10 -p 3b:00.0" \
			"$rep/02-secure-channel-s256-n10-host.log" || fail "lab on $roots: not the lesson's command line"
		grep -q "^3b:00.0 .*Mellanox" "$rep/01-preflight-lspci-host.log" || fail "lab on $roots: lspci shows no 3b:00.0"
		ok "the lesson's lab on the installed trees in $roots ($(tail -n 1 "$rep/summary.txt"))"
	else
		cat "$work/lab.log" >&2
		fail "the lesson's lab on the installed trees in $roots"
	fi
	rm -rf "$rep"
}

# 1. Both flavors side by side under SOFTDOCA_ROOTS (real paths: the user projects run).
roots="$work/opt/softdoca"
if mk install SOFTDOCA_ROOTS="$roots"; then
	check_tree "$roots/arm" dpu "$roots/arm"
	check_tree "$roots/host" host "$roots/host"
	check_caps "$roots/arm" dpu
	check_caps "$roots/host" host
	check_user "$roots/arm" dpu
	check_user "$roots/host" host
	check_lab_installed "$roots"
	mk uninstall SOFTDOCA_ROOTS="$roots"
	[ ! -e "$roots" ] || fail "make uninstall left $(find "$roots" | head -n 5)"
	ok "uninstall of $roots"
fi

# 2. The default roots through DESTDIR: files name /opt/softdoca, programs run from DESTDIR.
dest="$work/dest"
if mk install DESTDIR="$dest"; then
	check_tree "$dest/opt/softdoca/arm" dpu /opt/softdoca/arm
	check_tree "$dest/opt/softdoca/host" host /opt/softdoca/host
	check_caps "$dest/opt/softdoca/arm" dpu
	check_caps "$dest/opt/softdoca/host" host
	mk uninstall DESTDIR="$dest"
	[ -z "$(find "$dest" -type f)" ] || fail "make uninstall DESTDIR left $(find "$dest" -type f | head -n 5)"
fi

# 3. One flavor as a plain DOCA tree at DOCA's prefix.
dest="$work/dest1"
if mk install FLAVOR=dpu DESTDIR="$dest"; then
	check_tree "$dest/opt/mellanox/doca" dpu /opt/mellanox/doca
	check_caps "$dest/opt/mellanox/doca" dpu
	[ ! -e "$dest/opt/softdoca" ] || fail "FLAVOR=dpu installed /opt/softdoca too"
	mk uninstall FLAVOR=dpu DESTDIR="$dest"
	[ -z "$(find "$dest" -type f)" ] || fail "make uninstall FLAVOR=dpu left files"
fi
prefix="$work/doca"
if mk install FLAVOR=host PREFIX="$prefix"; then
	check_tree "$prefix" host "$prefix"
	check_user "$prefix" host
fi

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
echo "install: all checks passed"
