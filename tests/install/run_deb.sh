#!/bin/bash
# make deb, then the packages' contents, and dpkg -i / dpkg -r into a private
# root (its own dpkg database): both trees, the shell, the lab and the man
# pages land where documented, and removing the packages leaves nothing.
# Skipped (77) where dpkg-buildpackage or debhelper is not installed.
set -u
src=$(realpath "$1")
for t in dpkg-buildpackage dh dpkg-deb; do
	command -v "$t" >/dev/null || { echo "$t not installed: skipped (scripts/install-deps.sh --deb)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ma=$("$src/scripts/install.sh" multiarch)
make -s -C "$src" BUILD="$work/build" deb >"$work/deb.log" 2>&1 || { cat "$work/deb.log" >&2; exit 1; }
deb=$work/build/deb
for p in softdoca-arm softdoca-host softdoca; do
	ls "$deb/${p}_"*.deb >/dev/null 2>&1 || fail "no $p package"
done
[ "$fails" -eq 0 ] || exit 1
arm=$(ls "$deb"/softdoca-arm_*.deb) host=$(ls "$deb"/softdoca-host_*.deb) top=$(ls "$deb"/softdoca_*_all.deb)

has() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\.||' | grep -qx "$2" || fail "$(basename "$1") lacks $2"; }
for side in arm host; do
	pkg=$arm; s=dpu
	[ "$side" = host ] && pkg=$host s=host
	for f in tools/doca_caps include/doca_dma.h include/doca_build_config.h \
		"lib/$ma/libdoca_common.so.3" "lib/$ma/pkgconfig/doca-comch.pc" \
		samples/doca_dma/dma_local_copy/doca_dma_local_copy "samples/doca_dma/dma_copy_$s/doca_dma_copy_$s" \
		applications/secure_channel/bin/doca_secure_channel applications/dma_copy/bin/doca_dma_copy; do
		has "$pkg" "/opt/softdoca/$side/$f"
	done
	dpkg-deb -c "$pkg" | grep -q install-manifest && fail "$(basename "$pkg") ships the install manifest"
done
for f in /usr/bin/softdoca-lab /usr/share/softdoca/softdoca-lab /usr/share/man/man1/softdoca-shell.1.gz \
	/usr/share/man/man1/softdoca-lab.1.gz /usr/share/doc/softdoca/README.md.gz /usr/lib/softdoca/arm/bin/doca_caps \
	/usr/lib/softdoca/host/bin/doca_secure_channel; do
	has "$top" "$f"
done
[ -f "$src/scripts/softdoca-shell" ] && has "$top" /usr/bin/softdoca-shell
[ -f "$src/scripts/softdoca-lspci" ] && has "$top" /usr/bin/softdoca-lspci

# Install and remove in a private root.
root=$work/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
dp() { dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless "$@" >>"$work/dpkg.log" 2>&1; }
dp -i "$arm" "$host" "$top" || { cat "$work/dpkg.log" >&2; fail "dpkg -i"; }
export SOFTDOCA_FABRIC="$work/fabric"; mkdir -p "$SOFTDOCA_FABRIC"
out=$("$root/opt/softdoca/arm/tools/doca_caps" --version 2>&1) && echo "$out" | grep -q dpu ||
	fail "installed Arm-side doca_caps: $out"
link=$(readlink "$root/usr/lib/softdoca/host/bin/doca_caps")
[ "$link" = /opt/softdoca/host/tools/doca_caps ] || fail "the lab's host doca_caps links to '$link'"
out=$("$root$link" --version 2>&1) && echo "$out" | grep -q host || fail "installed host doca_caps: $out"
dp -r softdoca softdoca-arm softdoca-host || { cat "$work/dpkg.log" >&2; fail "dpkg -r"; }
left=$(cd "$root" && find . -mindepth 1 ! -path './var/lib/dpkg*' ! -type d; cd "$root" && find opt usr -depth -type d 2>/dev/null)
[ -z "$left" ] || fail "dpkg -r left: $(echo "$left" | head -n 10)"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
echo "deb: all checks passed"
