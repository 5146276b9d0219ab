#!/bin/bash
# The DOCA 3.3 interface as a program sees it, checked against an installed
# flavor through pkg-config only (as a user builds):
#   - version 3.3.0 in pkg-config, the version macros and runtime query, and
#     the shared libraries' file names and sonames (libdoca_*.so.3)
#   - the include chain: a program that includes only doca_dma.h or only
#     doca_comch.h gets the standard headers DOCA's headers bring and the
#     flavor's DOCA_ARCH_DPU / DOCA_ARCH_HOST
#   - DOCA_EXPERIMENTAL: calling an experimental function warns ("Symbol is
#     defined as experimental") unless DOCA_ALLOW_EXPERIMENTAL_API; a stable
#     call never warns
#   - enum values and macros compiled programs depend on (abi_values.c)
#   - symbol hygiene: each library exports exactly the functions its headers
#     declare, plus priv_doca_* (the libraries' private seam, see
#     src/internal/sd_abi.h) and softdoca_* (documented extensions)
# usage: run_interface.sh STAGE FLAVOR SOURCE_DIR WORK_DIR
set -u
stage=$1 flavor=$2 src=$3 work=$4
here="$src/tests/interface"
. "$src/tests/common/standalone.sh"
pcdir=$(standalone_pcdir "$stage")
export PKG_CONFIG_PATH="$pcdir"
rm -rf "$work"
mkdir -p "$work"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
cc_pc() { # out src modules... [-- extra cflags]
	local out=$1 file=$2
	shift 2
	local mods=() extra=()
	while [ $# -gt 0 ]; do
		[ "$1" = -- ] && { shift; extra=("$@"); break; }
		mods+=("$1")
		shift
	done
	# shellcheck disable=SC2046
	cc -std=gnu11 -Wall -Werror=implicit-function-declaration "${extra[@]}" -o "$out" "$file" \
		$(pkg-config --cflags --libs "${mods[@]}") -Wl,-rpath,"$(pkg-config --variable=libdir doca-common)"
}

# --- version
for m in doca-common doca-argp doca-dma doca-comch; do
	v=$(pkg-config --modversion "$m") || { fail "pkg-config does not know $m"; continue; }
	[ "$v" = 3.3.0 ] || fail "$m --modversion is $v, not 3.3.0"
done
libdir=$(pkg-config --variable=libdir doca-common)
for l in common argp dma comch; do
	so="$libdir/libdoca_$l.so"
	[ -e "$libdir/libdoca_$l.so.3.3.0" ] || fail "no $libdir/libdoca_$l.so.3.3.0"
	sn=$(objdump -p "$so" 2>/dev/null | awk '/SONAME/ {print $2}')
	[ "$sn" = "libdoca_$l.so.3" ] || fail "soname of libdoca_$l is '$sn', not libdoca_$l.so.3"
done

# --- include chain
if cc_pc "$work/only_dma" "$here/only_dma.c" doca-dma 2>"$work/only_dma.log"; then
	"$work/only_dma"
	rc=$?
	case "$flavor:$rc" in dpu:10 | host:20) ;; *) fail "only_dma.c exit $rc on $flavor (DOCA_ARCH_* wrong)" ;; esac
else
	fail "a program including only doca_dma.h does not build:"; cat "$work/only_dma.log" >&2
fi
if cc_pc "$work/only_comch" "$here/only_comch.c" doca-comch 2>"$work/only_comch.log"; then
	"$work/only_comch"
	rc=$?
	case "$flavor:$rc" in dpu:10 | host:20) ;; *) fail "only_comch.c exit $rc on $flavor (DOCA_ARCH_* wrong)" ;; esac
else
	fail "a program including only doca_comch.h does not build:"; cat "$work/only_comch.log" >&2
fi

# --- DOCA_EXPERIMENTAL (compile only: what the linker says is not ours)
cc_only() { # out src extra...
	local out=$1 file=$2
	shift 2
	# shellcheck disable=SC2046
	cc -std=gnu11 -Wall -c "$@" -o "$out" "$file" $(pkg-config --cflags doca-common)
}
cc_only "$work/exp.o" "$here/experimental.c" 2>"$work/exp.log" || fail "experimental.c does not build"
grep -q "doca_version_runtime.*deprecated\|deprecated.*doca_version_runtime" "$work/exp.log" &&
	grep -q "Symbol is defined as experimental" "$work/exp.log" ||
	fail "an experimental call does not warn: $(cat "$work/exp.log")"
grep -q "doca_error_get_name" "$work/exp.log" && fail "a stable call warns: $(cat "$work/exp.log")"
cc_only "$work/exp2.o" "$here/experimental.c" -DDOCA_ALLOW_EXPERIMENTAL_API 2>"$work/exp2.log" ||
	fail "experimental.c does not build with DOCA_ALLOW_EXPERIMENTAL_API"
[ -s "$work/exp2.log" ] && fail "warnings with DOCA_ALLOW_EXPERIMENTAL_API: $(cat "$work/exp2.log")"

# --- ABI values
if cc_pc "$work/abi" "$here/abi_values.c" doca-common doca-dma doca-comch -- -DDOCA_ALLOW_EXPERIMENTAL_API \
	2>"$work/abi.log"; then
	"$work/abi" || fail "versioned-struct macros or doca_likely misbehave"
else
	fail "enum values / macros differ from DOCA 3.3:"; cat "$work/abi.log" >&2
fi

# --- symbols: exported == declared (+ priv_doca_*, softdoca_*)
incdir=$(pkg-config --variable=includedir doca-common)
# A declaration: a stability marker, then the return type, then the name.
declared=$(cat "$incdir"/doca_*.h | perl -0pe 's{/\*.*?\*/}{}gs; s{^[ \t]*#(?:[^\n]*\\\n)*[^\n]*}{}mg' |
	tr '\n' ' ' | sed 's/;/;\n/g' | grep -E '\bDOCA_(STABLE|EXPERIMENTAL|DEPRECATED)\b' |
	grep -oE '\b(doca|softdoca)_[A-Za-z0-9_]+[[:space:]]*\(' | tr -d ' (' | sort -u)
exported=$(for l in common argp dma comch; do nm -D --defined-only "$libdir/libdoca_$l.so" | awk '$2 ~ /^[TW]$/ {print $3}'; done | sort)
dups=$(echo "$exported" | uniq -d)
[ -z "$dups" ] || fail "functions exported by two libraries: $dups"
exported=$(echo "$exported" | uniq)
others=$(echo "$exported" | grep -vE '^(doca_|softdoca_|priv_doca_)')
[ -z "$others" ] || fail "internal symbols exported: $(echo $others)"
undeclared=$(comm -13 <(echo "$declared") <(echo "$exported" | grep -vE '^priv_doca_'))
[ -z "$undeclared" ] || fail "exported but declared in no public header: $(echo $undeclared)"
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
[ -z "$missing" ] || fail "declared but not exported by any library: $(echo $missing)"
# The only data a library exports is the private seam's (priv_doca_*: the SDK
# log level that SD_LOG_* test inline, src/internal/sd_log.h); no DOCA data.
data=$(for l in common argp dma comch; do nm -D --defined-only "$libdir/libdoca_$l.so" | awk '$2 ~ /^[BDR]$/ {print $3}'; done |
	grep -vE '^priv_doca_')
[ -z "$data" ] || fail "data symbols exported: $(echo $data)"

n=$(echo "$declared" | wc -l)
if [ $fails -eq 0 ]; then
	echo "interface OK on $flavor: 3.3.0, sonames .so.3, include chain, experimental warnings, ABI values, $n exported functions = declared"
	exit 0
fi
exit 1
