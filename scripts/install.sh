#!/bin/sh
# Install softdoca flavors with DOCA's directory layout.
#
#   install.sh install BUILD ROOTS            both flavors: ROOTS/arm (dpu flavor) and ROOTS/host
#   install.sh install BUILD PREFIX FLAVOR    one flavor (host|dpu) as a plain tree at PREFIX
#   install.sh uninstall ROOTS|PREFIX [FLAVOR]
# DESTDIR is honoured as usual: files land in $DESTDIR$PREFIX, and everything
# that refers to the tree (.pc files, rpaths) names $PREFIX.
#
# Each tree is what /opt/mellanox/doca holds on a DOCA machine:
#   include/                       public headers, doca_build_config.h, doca_version.h
#   lib/<multiarch>/               libdoca_*.so*, pkgconfig/doca-*.pc
#   tools/doca_caps, tools/doca_bench
#   samples/<lib>/<sample>/        sample sources and the built doca_<sample>
#   applications/<app>/            application sources, bin/doca_<app>
#
# Why a separate build per tree: the libraries live in lib/<multiarch> and the
# programs three levels deep, so the trees are configured with that libdir and
# with $ORIGIN-relative rpaths for every depth. The programs then find their
# own tree's libraries wherever the tree is (DESTDIR, a bind mount, side by
# side with the other flavor) and never the other flavor's.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
MESON=${MESON:-meson}
NINJA=${NINJA:-ninja}
DESTDIR=${DESTDIR:-}

multiarch() {
	ma=$(gcc -print-multiarch 2>/dev/null || true)
	[ -n "$ma" ] || ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || true)
	[ -n "$ma" ] || ma="$(uname -m)-linux-gnu"
	echo "$ma"
}
MA=$(multiarch)
MANIFEST=.softdoca-install-manifest

die() { echo "softdoca install: $*" >&2; exit 1; }

# build_flavor FLAVOR PREFIX BUILDDIR PEERDIR: configure (or reconfigure for a
# new prefix) and compile one flavor without tests.
build_flavor() {
	fl=$1 prefix=$2 bdir=$3 peer=$4
	# shellcheck disable=SC2016
	rpaths='-Wl,-rpath,$ORIGIN -Wl,-rpath,$ORIGIN/../../../lib/'"$MA"
	if [ -f "$bdir/build.ninja" ]; then
		"$MESON" configure "$bdir" -Dprefix="$prefix" >/dev/null
	else
		"$MESON" setup "$bdir" "$src" --buildtype=debugoptimized -Dflavor="$fl" \
			-Dtests=false -Dprefix="$prefix" -Dlibdir="lib/$MA" \
			-Dpeer_build="$peer" -Dc_link_args="$rpaths" >/dev/null
	fi
	"$NINJA" -C "$bdir" > "$bdir/softdoca-build.log" 2>&1 ||
		{ grep -E -A5 'FAILED|error' "$bdir/softdoca-build.log" | head -n 40 >&2; die "build of the $fl flavor failed (log: $bdir/softdoca-build.log)"; }
}

# place_programs TREE: move what meson put in bin/ to DOCA's places.
place_programs() {
	tree=$1
	[ -d "$tree/bin" ] || return 0
	for exe in "$tree"/bin/*; do
		[ -e "$exe" ] || continue
		base=$(basename "$exe")
		name=${base#doca_}
		if [ "$base" = doca_caps ] || [ "$base" = doca_bench ]; then
			dest="$tree/tools"
		elif [ -d "$src/applications/$name" ]; then
			dest="$tree/applications/$name/bin"
		else
			# A sample lives in samples/doca_<lib>/<name>/ (sources and program).
			sdir=$(cd "$src/samples" && find . -mindepth 2 -maxdepth 2 -type d -name "$name" | head -n 1)
			if [ -n "$sdir" ]; then
				dest="$tree/samples/${sdir#./}"
			else
				dest="$tree/tools"
			fi
		fi
		mkdir -p "$dest"
		mv "$exe" "$dest/$base"
	done
	rmdir "$tree/bin"
}

# copy_sources TREE: samples and applications sources, as DOCA ships them.
copy_sources() {
	tree=$1
	for d in samples applications; do
		(cd "$src/$d" && find . -type f \( -name '*.c' -o -name '*.h' -o -name 'meson.build' -o -name '*.md' \) ! -path ./meson.build) |
		while read -r f; do
			mkdir -p "$tree/$d/$(dirname "$f")"
			cp "$src/$d/$f" "$tree/$d/$f"
		done
	done
}

# fix_pc TREE PREFIX: a user program built through pkg-config finds this
# tree's libraries at run time without LD_LIBRARY_PATH: Libs carries the
# tree's libdir as an rpath, so both flavors can be installed side by side.
fix_pc() {
	# shellcheck disable=SC2016 # ${libdir} is pkg-config's, not the shell's
	for pc in "$1/lib/$MA/pkgconfig"/doca-*.pc; do
		[ -f "$pc" ] || continue
		sed -i 's|^Libs: -L${libdir} |Libs: -L${libdir} -Wl,-rpath,${libdir} |' "$pc"
		grep -q -- '-Wl,-rpath,${libdir}' "$pc" || die "$pc: unexpected Libs line"
	done
}

# install_tree FLAVOR PREFIX BUILD
install_tree() {
	fl=$1 prefix=$2 build=$3
	case "$fl" in host|dpu) ;; *) die "flavor must be host or dpu, not '$fl'" ;; esac
	case "$prefix" in /*) ;; *) die "prefix must be absolute: $prefix" ;; esac
	peer=host; [ "$fl" = host ] && peer=dpu
	bdir="$build/install-$fl"
	build_flavor "$fl" "$prefix" "$bdir" "$build/install-$peer"
	stage="$build/install-stage-$fl"
	rm -rf "$stage"
	"$MESON" install -C "$bdir" --no-rebuild --quiet --destdir "$stage" >/dev/null
	tree="$stage$prefix"
	place_programs "$tree"
	copy_sources "$tree"
	fix_pc "$tree"
	(cd "$tree" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) > "$tree/$MANIFEST"
	mkdir -p "$DESTDIR$prefix"
	cp -a "$tree/." "$DESTDIR$prefix/"
	rm -rf "$stage"
	echo "softdoca: installed the $fl flavor at $DESTDIR$prefix"
}

uninstall_tree() {
	tree="$DESTDIR$1"
	[ -f "$tree/$MANIFEST" ] || { echo "softdoca: nothing installed at $tree"; return 0; }
	while read -r f; do rm -f "$tree/$f"; done < "$tree/$MANIFEST"
	rm -f "$tree/$MANIFEST"
	# Remove the folders we emptied, never anything we did not install.
	find "$tree" -depth -type d -empty -delete 2>/dev/null || true
	echo "softdoca: removed $tree"
}

cmd=${1:-}
case "$cmd" in
install)
	[ $# -ge 3 ] || die "usage: install.sh install BUILD ROOTS|PREFIX [FLAVOR]"
	build=$2 where=$3 flavor=${4:-}
	mkdir -p "$build"; build=$(cd "$build" && pwd)
	if [ -n "$flavor" ]; then
		install_tree "$flavor" "$where" "$build"
	else
		install_tree dpu "$where/arm" "$build"
		install_tree host "$where/host" "$build"
	fi
	;;
uninstall)
	[ $# -ge 2 ] || die "usage: install.sh uninstall ROOTS|PREFIX [FLAVOR]"
	if [ -n "${3:-}" ]; then
		uninstall_tree "$2"
	else
		uninstall_tree "$2/arm"
		uninstall_tree "$2/host"
		rmdir "$DESTDIR$2" 2>/dev/null || true
	fi
	;;
multiarch) echo "$MA" ;;
*) die "usage: install.sh install|uninstall|multiarch ..." ;;
esac
