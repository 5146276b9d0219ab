#!/bin/bash
# make conformance: build NVIDIA's own doca-samples programs, unmodified, with
# NVIDIA's own meson files, against softdoca's flavors, run them as their
# READMEs describe (the Arm side first where a program has two sides), and
# print one row per program and "N built, N passed".
#
#   DOCA_SAMPLES_DIR=/path/to/doca-samples tools/conformance/run_samples.sh [BUILD] [name...]
#
# DOCA_SAMPLES_DIR is a checkout of github.com/NVIDIA-DOCA/doca-samples (the
# target is tag 3.3.0). Nothing of it enters this repository: the checkout is
# copied under BUILD/conformance, where, as NVIDIA's README tells users, each
# meson.build.public becomes the meson.build next to it. Without a checkout
# the harness says so and exits 0 (skipped).
#
# Environment: CONFORMANCE_TIMEOUT (seconds per program side, default 60).
set -u
BUILD=${1:-build}
shift || true
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "conformance: no build folder; run make first" >&2; exit 2; }
ONLY=("$@")
TIMEOUT=${CONFORMANCE_TIMEOUT:-60}

if [ -z "${DOCA_SAMPLES_DIR:-}" ] || [ ! -d "${DOCA_SAMPLES_DIR}/samples" ]; then
	echo "conformance: skipped: set DOCA_SAMPLES_DIR to a checkout of NVIDIA's doca-samples (tag 3.3.0)"
	echo "0 built, 0 passed (skipped)"
	exit 0
fi

work="$BUILD/conformance"
src="$work/doca-samples"
logs="$work/logs"
rm -rf "$work"
mkdir -p "$work" "$logs"
cp -a "$DOCA_SAMPLES_DIR/." "$src"
rm -rf "$src/.git"
find "$src" -name meson.build.public | while read -r f; do cp "$f" "${f%.public}"; done
version=$(cat "$src/VERSION" 2>/dev/null || echo "?")

fabric=$(mktemp -d "${TMPDIR:-/tmp}/softdoca-conformance.XXXXXX")
chmod 700 "$fabric"
export SOFTDOCA_FABRIC="$fabric"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$fabric"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ programs
# name | folder under the checkout | flavors to build | kind of run
# Kinds (fields separated by ';'):
#        one;<flavor>;<args>            one process
#        two;<arm args>;<host args>     Arm side (dpu) first, then the host; the
#                                       Arm side is this program, or its _server
#        pair;<arm prog>;<arm args>;<host prog>;<host args>   two programs of
#                                       this table, the Arm side one first
#        built-with;<row>               the Arm side of <row>, run there
#        dmacopy                        the dma_copy_host/dma_copy_dpu pair
#        dmacopy-app                    NVIDIA's DMA Copy application
programs=(
	"pe_polling|samples/doca_common/pe_polling|dpu host|one;dpu;"
	"pe_async_stop|samples/doca_common/pe_async_stop|dpu host|one;dpu;"
	"pe_event|samples/doca_common/pe_event|dpu host|one;dpu;"
	"pe_multi_context|samples/doca_common/pe_multi_context|dpu host|one;dpu;"
	"pe_reactive|samples/doca_common/pe_reactive|dpu host|one;dpu;"
	"pe_single_task_comp_cb|samples/doca_common/pe_single_task_comp_cb|dpu host|one;dpu;"
	"pe_task_error|samples/doca_common/pe_task_error|dpu host|one;dpu;"
	"pe_task_resubmit|samples/doca_common/pe_task_resubmit|dpu host|one;dpu;"
	"pe_task_try_submit|samples/doca_common/pe_task_try_submit|dpu host|one;dpu;"
	"graph|samples/doca_common/graph|dpu host|one;dpu;"
	"cache_invalidate|samples/doca_common/cache_invalidate|dpu host|one;dpu;"
	"clock_cross_timestamp|samples/doca_common/clock_cross_timestamp|dpu host|one;dpu;-p 03:00.0 -c host_rt -n nic_rt"
	"sync_event_local_pci|samples/doca_common/sync_event_local_pci|dpu host|pair;sync_event_local_pci;-d 03:00.0 -r 3b:00.0;sync_event_remote_pci;-d 3b:00.0"
	"sync_event_remote_pci|samples/doca_common/sync_event_remote_pci|dpu host|pair;sync_event_remote_pci;-d 03:00.0 -r 3b:00.0;sync_event_local_pci;-d 3b:00.0"
	"dma_local_copy|samples/doca_dma/dma_local_copy|dpu|one;dpu;-p 03:00.0 -t conformance"
	"dma_copy_host|samples/doca_dma/dma_copy_host|host|dmacopy"
	"dma_copy_dpu|samples/doca_dma/dma_copy_dpu|dpu|built-with;dma_copy_host"
	"comch_ctrl_path_server|samples/doca_comch/comch_ctrl_path_server|dpu|built-with;comch_ctrl_path_client"
	"comch_ctrl_path_client|samples/doca_comch/comch_ctrl_path_client|host|two;-p 03:00.0 -r 3b:00.0;-p 3b:00.0"
	"comch_data_path_high_speed_server|samples/doca_comch/comch_data_path_high_speed_server|dpu|built-with;comch_data_path_high_speed_client"
	"comch_data_path_high_speed_client|samples/doca_comch/comch_data_path_high_speed_client|host|two;-p 03:00.0 -r 3b:00.0;-p 3b:00.0"
	"secure_channel|applications|dpu host|two;-s 256 -n 10 -p 03:00.0 -r 3b:00.0;-s 256 -n 10 -p 3b:00.0"
	"dma_copy|applications|dpu host|dmacopy-app"
)

wanted() {
	[ ${#ONLY[@]} -eq 0 ] && return 0
	local n
	for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}

# build NAME FOLDER FLAVOR -> prints the binary path, or nothing on failure
declare -A built_apps
build() {
	local name=$1 folder=$2 flavor=$3
	local out="$work/build/$flavor/${folder//\//_}"
	local log="$logs/$name-build-$flavor.log"
	if [ "$folder" = applications ]; then
		# one build of NVIDIA's applications tree per flavor, restricted to
		# the applications in scope through its own meson options
		if [ -z "${built_apps[$flavor]:-}" ]; then
			(cd "$src/applications" &&
				PKG_CONFIG_PATH="$BUILD/$flavor/stage/lib/pkgconfig" \
					meson setup "$out" -Denable_all_applications=false \
					-Denable_secure_channel=true -Denable_dma_copy=true &&
				ninja -C "$out") >"$logs/applications-build-$flavor.log" 2>&1
			built_apps[$flavor]=$?
		fi
		cp "$logs/applications-build-$flavor.log" "$log"
		[ "${built_apps[$flavor]}" = 0 ] && [ -x "$out/$name/doca_$name" ] && echo "$out/$name/doca_$name"
		return 0
	fi
	(cd "$src/$folder" &&
		PKG_CONFIG_PATH="$BUILD/$flavor/stage/lib/pkgconfig" meson setup "$out" &&
		ninja -C "$out") >"$log" 2>&1 || return 0
	local exe
	exe=$(find "$out" -maxdepth 1 -type f -executable -name 'doca_*' | head -n 1)
	[ -n "$exe" ] && echo "$exe"
}

# run_one LOG EXE ARGS... : exit status of the program, 124 on timeout
run_one() {
	local log=$1
	shift
	timeout -k 5 "$TIMEOUT" "$@" </dev/null >"$log" 2>&1
}

# NVIDIA's samples end with "Sample finished successfully" when they pass by
# their own criteria; an exit status of 0 alone is not enough for them.
is_sample=0
finished_ok() { # LOG...
	[ "$is_sample" = 1 ] || return 0
	local f
	for f in "$@"; do
		grep -q "Sample finished successfully" "$f" || { why="no 'Sample finished successfully' in $f"; return 1; }
	done
}

# wait until a Comch/fast-path server of the Arm side listens (its socket is
# in the fabric directory) or 5 s pass
wait_listening() {
	local i
	for i in $(seq 50); do
		[ -n "$(find "$fabric" -type s 2>/dev/null | head -n 1)" ] && return 0
		sleep 0.1
	done
	return 0
}

# run_two NAME ARM_EXE ARM_ARGS HOST_EXE HOST_ARGS
run_two() {
	local name=$1 arm=$2 arm_args=$3 host=$4 host_args=$5
	# shellcheck disable=SC2086
	timeout -k 5 "$TIMEOUT" "$arm" $arm_args </dev/null >"$logs/$name-arm.log" 2>&1 &
	local apid=$!
	pids+=("$apid")
	wait_listening
	# shellcheck disable=SC2086
	timeout -k 5 "$TIMEOUT" "$host" $host_args </dev/null >"$logs/$name-host.log" 2>&1
	local hrc=$?
	wait "$apid"
	local arc=$?
	why="Arm side exit $arc, host exit $hrc"
	[ "$arc" -eq 0 ] && [ "$hrc" -eq 0 ] && finished_ok "$logs/$name-arm.log" "$logs/$name-host.log"
}

# The dma_copy_host / dma_copy_dpu pair: the host exports a buffer and writes
# its descriptor and buffer info to files, then waits for Enter; the Arm side
# reads them and DMAs the text; then the host is given its Enter.
run_dmacopy_pair() {
	local host=$1 arm=$2 d="$work/dmacopy"
	mkdir -p "$d"
	rm -f "$d"/desc "$d"/buf "$d"/enter
	mkfifo "$d/enter"
	timeout -k 5 "$TIMEOUT" "$host" -p 3b:00.0 -t "conformance text" -d "$d/desc" -b "$d/buf" \
		<"$d/enter" >"$logs/dma_copy_host-host.log" 2>&1 &
	local hpid=$!
	pids+=("$hpid")
	exec 7>"$d/enter"
	local i
	for i in $(seq 100); do [ -s "$d/buf" ] && break; sleep 0.1; done
	timeout -k 5 "$TIMEOUT" "$arm" -p 03:00.0 -d "$d/desc" -b "$d/buf" </dev/null \
		>"$logs/dma_copy_host-arm.log" 2>&1
	local arc=$?
	echo >&7
	exec 7>&-
	wait "$hpid"
	local hrc=$?
	why="Arm side exit $arc, host exit $hrc"
	[ "$arc" -eq 0 ] && [ "$hrc" -eq 0 ] || return 1
	finished_ok "$logs/dma_copy_host-arm.log" "$logs/dma_copy_host-host.log" || return 1
	grep -q "conformance text" "$logs/dma_copy_host-arm.log" || { why="the Arm side did not print the host's text"; return 1; }
}

# NVIDIA's DMA Copy application, file host -> Arm side, checked by sha256
run_dmacopy_app() {
	local arm=$1 host=$2 d="$work/dmacopy-app"
	mkdir -p "$d"
	head -c 1048583 /dev/urandom >"$d/in"
	rm -f "$d/out"
	run_two dma_copy "$arm" "-f $d/out -p 03:00.0 -r 3b:00.0" "$host" "-f $d/in -p 3b:00.0" || return 1
	if ! cmp -s "$d/in" "$d/out"; then
		why="both exited 0 but the received file differs"
		return 1
	fi
	return 0
}

declare -A exe_of verdict_of why_of partner_of
order=()
n_built=0 n_total=0
for entry in "${programs[@]}"; do
	IFS='|' read -r name folder flavors kind <<<"$entry"
	wanted "$name" || continue
	case $folder in samples/*) is_sample=1 ;; *) is_sample=0 ;; esac
	n_total=$((n_total + 1))
	ok_build=1
	for fl in $flavors; do
		e=$(build "$name" "$folder" "$fl")
		if [ -n "$e" ]; then exe_of[$name:$fl]=$e; else ok_build=0; fi
	done
	if [ $ok_build -eq 1 ]; then n_built=$((n_built + 1)); fi
	verdict=FAIL
	why=""
	if [ $ok_build -eq 0 ]; then
		first=$(cat "$logs/$name"-build-*.log 2>/dev/null | grep -E 'error:|undefined reference|ERROR:' |
			grep -v collect2 | head -n 1 | sed -E 's|^.*/||' | cut -c1-120)
		why="build failed: ${first:-see $logs/$name-build-*.log}"
	else
		case $kind in
		one\;*)
			IFS=';' read -r _ fl args <<<"$kind"
			# shellcheck disable=SC2086
			run_one "$logs/$name-$fl.log" "${exe_of[$name:$fl]}" $args
			rc=$?
			if [ $rc -ne 0 ]; then
				why="exit $rc ($fl), see $logs/$name-$fl.log"
			elif finished_ok "$logs/$name-$fl.log"; then
				verdict=PASS
				why="exit 0, finished successfully ($fl)"
			fi
			;;
		two\;*)
			IFS=';' read -r _ arm_args host_args <<<"$kind"
			arm_exe=${exe_of[$name:dpu]:-}
			host_exe=${exe_of[$name:host]:-}
			if [ -z "$arm_exe" ]; then
				partner=${name%_client}_server
				arm_exe=${exe_of[$partner:dpu]:-}
			fi
			if [ -z "$arm_exe" ] || [ -z "$host_exe" ]; then
				why="the other side did not build"
			elif run_two "$name" "$arm_exe" "$arm_args" "$host_exe" "$host_args"; then
				verdict=PASS
				why="both sides exit 0"
				[ "$is_sample" = 1 ] && why="$why, finished successfully"
			fi
			;;
		pair\;*)
			IFS=';' read -r _ arm_prog arm_args host_prog host_args <<<"$kind"
			for p in "$arm_prog:dpu" "$host_prog:host"; do
				if [ -z "${exe_of[$p]:-}" ]; then
					e=$(build "${p%%:*}" "$(dirname "$folder")/${p%%:*}" "${p#*:}")
					[ -n "$e" ] && exe_of[$p]=$e
				fi
			done
			if [ -z "${exe_of[$arm_prog:dpu]:-}" ] || [ -z "${exe_of[$host_prog:host]:-}" ]; then
				why="$arm_prog (Arm side) or $host_prog (host) did not build"
			elif run_two "$name" "${exe_of[$arm_prog:dpu]}" "$arm_args" "${exe_of[$host_prog:host]}" "$host_args"; then
				verdict=PASS
				why="Arm side $arm_prog, host $host_prog: both exit 0, finished successfully"
			fi
			;;
		dmacopy)
			if [ -z "${exe_of[dma_copy_dpu:dpu]:-}" ]; then
				e=$(build dma_copy_dpu samples/doca_dma/dma_copy_dpu dpu)
				[ -n "$e" ] && exe_of[dma_copy_dpu:dpu]=$e
			fi
			if [ -z "${exe_of[dma_copy_dpu:dpu]:-}" ]; then
				why="dma_copy_dpu did not build"
			elif run_dmacopy_pair "${exe_of[$name:host]}" "${exe_of[dma_copy_dpu:dpu]}"; then
				verdict=PASS
				why="the Arm side read the host's text"
			fi
			;;
		dmacopy-app)
			if run_dmacopy_app "${exe_of[$name:dpu]}" "${exe_of[$name:host]}"; then
				verdict=PASS
				why="1 MiB + 7 byte file host -> Arm side, identical"
			fi
			;;
		built-with\;*)
			# the Arm side of a pair: its verdict is its pair's run
			partner_of[$name]=${kind#built-with;}
			verdict=PASS
			;;
		esac
	fi
	leftover=$(find "$fabric" -mindepth 1 2>/dev/null | head -n 1)
	if [ -n "$leftover" ] && [ "$verdict" = PASS ]; then
		verdict=FAIL
		why="left $leftover in the fabric directory"
	fi
	find "$fabric" -mindepth 1 -delete 2>/dev/null
	order+=("$name")
	verdict_of[$name]=$verdict
	why_of[$name]=$why
done

n_passed=0
rows=()
for name in "${order[@]}"; do
	verdict=${verdict_of[$name]}
	why=${why_of[$name]}
	partner=${partner_of[$name]:-}
	if [ -n "$partner" ] && [ "$verdict" = PASS ]; then
		verdict=${verdict_of[$partner]:-FAIL}
		why="built; runs as the Arm side of $partner: ${why_of[$partner]:-not run}"
	fi
	[ "$verdict" = PASS ] && n_passed=$((n_passed + 1))
	rows+=("$(printf '%-36s %-6s %s' "$name" "$verdict" "$why")")
done

echo "NVIDIA doca-samples $version against softdoca ($BUILD)"
printf '%-36s %-6s %s\n' PROGRAM RESULT DETAIL
printf '%s\n' "${rows[@]}"
echo "logs: $logs"
echo "$n_built built, $n_passed passed (of $n_total)"
[ "$n_passed" -eq "$n_total" ]
