#!/bin/sh
# make deb: build softdoca's Debian packages with dpkg-buildpackage from a
# copy of the source tree (tracked and new, not ignored, files) in OUT/src,
# so every artefact, .deb files included, stays under OUT.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-deb.sh OUTDIR}
for t in dpkg-buildpackage dh; do
	command -v "$t" >/dev/null ||
		{ echo "softdoca: make deb needs $t: run scripts/install-deps.sh --deb" >&2; exit 1; }
done
mkdir -p "$out"; out=$(cd "$out" && pwd)
ver=$(sed -n '1s/^softdoca (\([^)]*\)).*/\1/p' "$src/debian/changelog")
tree="$out/src/softdoca-$ver"
rm -rf "$out/src" "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
mkdir -p "$tree"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -xf - -C "$tree"
else
	(cd "$src" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$tree"
fi
# The packages' build must not inherit the caller's make variables (BUILD...).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
(cd "$tree" && dpkg-buildpackage -us -uc -b >"$out/dpkg-buildpackage.log" 2>&1) ||
	{ tail -n 40 "$out/dpkg-buildpackage.log" >&2; echo "softdoca: dpkg-buildpackage failed, log: $out/dpkg-buildpackage.log" >&2; exit 1; }
mv "$out/src"/*.deb "$out/src"/*.buildinfo "$out/src"/*.changes "$out/" 2>/dev/null || true
if command -v lintian >/dev/null; then
	lintian --info "$out"/*.changes >"$out/lintian.log" 2>&1 || true
	echo "softdoca: lintian: $(grep -c '^[EW]:' "$out/lintian.log" || true) error/warning line(s), see $out/lintian.log"
fi
rm -rf "$out/src"
ls "$out"/*.deb
