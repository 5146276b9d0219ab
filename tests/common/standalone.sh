# Shared by the standalone-build tests: build a DOCA program's own meson
# project outside the source tree, against an installed softdoca flavor found
# only through PKG_CONFIG_PATH, as a user builds against DOCA.
# Source it; it defines:
#   standalone_pcdir STAGE          -> prints the pkg-config dir of an installed
#                                      flavor, or exits 77 (skip) if none
#   standalone_build PCDIR SANITIZE PROJECT_DIR BUILD_DIR
#                                   -> meson setup + ninja, logs shown on failure

standalone_pcdir() {
	local d
	for d in "$1/lib/pkgconfig" "$1"/lib/*/pkgconfig; do
		if [ -f "$d/doca-common.pc" ]; then
			echo "$d"
			return 0
		fi
	done
	echo "no installed flavor at $1: skipped (make build installs one)" >&2
	exit 77
}

standalone_build() {
	local pcdir=$1 sanitize=$2 project=$3 build=$4
	(cd "$project" && env -i PATH="$PATH" HOME="$(dirname "$build")" PKG_CONFIG_PATH="$pcdir" \
		meson setup -Db_sanitize="$sanitize" -Db_lundef=false "$build" >"$build.setup.log" 2>&1) ||
		{ cat "$build.setup.log"; exit 1; }
	ninja -C "$build" >"$build.ninja.log" 2>&1 || { cat "$build.ninja.log"; exit 1; }
}
