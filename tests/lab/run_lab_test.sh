#!/bin/bash
# Run the lab runner in a private fabric directory and report folder and
# check its verdicts and its evidence: summary.txt, report.md (table, drawing,
# links) and every program's log (side, command line, exit status, duration).
# Usage: run_lab_test.sh MODE LAB HOST_BIN DPU_BIN
#   MODE: main       the lab's steps, all PASS
#         failures   the failure rehearsals, all REPRODUCED
#         shells     the main steps and the rehearsals with --in-shells: each
#                    program inside softdoca-shell, typed as the lesson types
#                    it (/opt/mellanox/doca/...; lspci on the host); as root
#                    the shell must use its mount namespace
#         shells_fallback  the main steps with --in-shells where the shell may
#                    not make a namespace (SOFTDOCA_SHELL_NO_NAMESPACE=1)
#         verdicts   the lab on doctored programs: a broken dma_local_copy,
#                    a host dma_copy that fails at once instead of waiting,
#                    a doca_caps without --list-rep-devs; the lab must FAIL
#                    the step, say NOT REPRODUCED, draw without representors
#                    and exit 1
set -u
mode=$1 lab=$2 host_bin=$3 dpu_bin=$4
work=$(mktemp -d)
trap '[ -n "${KEEP_LAB_WORK:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
export SOFTDOCA_FABRIC="$work/fabric"
mkdir -m 0700 "$SOFTDOCA_FABRIC"
export SOFTDOCA_COMCH_WAIT_WARN_MS=500
rep="$work/report"
main_steps="01-preflight-arm 01-preflight-host 01-preflight-version 02-secure-channel-s256-n10 03-secure-channel-s4096-n1000 04-dma-local-copy-nt4-nd2 05-dma-copy-host-to-arm 06-dma-copy-arm-to-host"
rehearsals="F1-client-started-first F2-wrong-rep F3-wrong-host-pci F4-size-over-cap F5-mismatched-n F6-mismatched-s F7-rep-on-host F8-dma-copy-host-first"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

case "$mode" in
main) flags="" want_rc=0 ;;
shells) flags="--in-shells --failures" want_rc=0 ;;
shells_fallback) flags="--in-shells" want_rc=0; export SOFTDOCA_SHELL_NO_NAMESPACE=1 ;;
failures) flags="--only-failures" want_rc=0 ;;
verdicts)
	flags="--failures" want_rc=1
	mkdir "$work/host" "$work/dpu"
	for f in "$host_bin"/*; do ln -s "$f" "$work/host/"; done
	for f in "$dpu_bin"/*; do ln -s "$f" "$work/dpu/"; done
	rm "$work/dpu/doca_caps" "$work/dpu/doca_dma_local_copy" "$work/host/doca_dma_copy"
	cat >"$work/dpu/doca_caps" <<EOF
#!/bin/bash
for a in "\$@"; do [ "\$a" = --list-rep-devs ] && { echo "unknown option --list-rep-devs" >&2; exit 2; }; done
exec "$dpu_bin/doca_caps" "\$@"
EOF
	cat >"$work/dpu/doca_dma_local_copy" <<'EOF'
#!/bin/bash
echo "Starting the sample"
exit 0
EOF
	cat >"$work/host/doca_dma_copy" <<EOF
#!/bin/bash
find "\$SOFTDOCA_FABRIC" -type s | grep -q . || { echo "no server: giving up at once" >&2; exit 1; }
exec "$host_bin/doca_dma_copy" "\$@"
EOF
	chmod +x "$work/dpu/doca_caps" "$work/dpu/doca_dma_local_copy" "$work/host/doca_dma_copy"
	host_bin=$work/host dpu_bin=$work/dpu
	;;
*) echo "bad mode $mode"; exit 2 ;;
esac

# The mode the shells will use: as root the namespace must work (CI runs as root).
shell_mode=""
case "$mode" in
shells*)
	shell_mode=$(SOFTDOCA_SHELL_STAGE=$(dirname "$dpu_bin") "$(dirname "$lab")/softdoca-shell" arm -c 'echo "$SOFTDOCA_SHELL_MODE"' 2>/dev/null)
	if [ "$mode" = shells_fallback ]; then
		[ "$shell_mode" = fallback ] || bad "SOFTDOCA_SHELL_NO_NAMESPACE=1 gave '$shell_mode', not fallback"
	elif [ "$(id -u)" = 0 ]; then
		[ "$shell_mode" = namespace ] || bad "as root the shell gave '$shell_mode', not its namespace"
	fi
	;;
esac
"$lab" $flags --report-dir "$rep" --host-bin "$host_bin" --dpu-bin "$dpu_bin" --timeout 120 >"$work/out.txt" 2>&1
rc=$?
cat "$work/out.txt"
echo "---- checks"
[ "$rc" -eq "$want_rc" ] || bad "lab exited $rc, expected $want_rc"
grep -q $'\e\[' "$work/out.txt" && bad "colour codes written to a non-terminal"

verdict_is() { # step verdict
	grep -qE "^$1 +$2 " "$rep/summary.txt" || bad "step $1 is not $2: $(grep -E "^$1 " "$rep/summary.txt")"
	grep -qF "| $1 | " "$rep/report.md" && grep -F "| $1 | " "$rep/report.md" | grep -qF "| **$2** |" ||
		bad "report.md has no row '$1 ... **$2**'"
}

# report.md: header line, table, drawing, links that resolve, every log linked.
[ -s "$rep/report.md" ] || { bad "no report.md"; exit 1; }
[ -s "$rep/summary.txt" ] || bad "no summary.txt"
grep -qxF "| step | side | result | duration | figures | logs |" "$rep/report.md" || bad "report.md: no summary table header"
grep -qF "## The emulated machine" "$rep/report.md" || bad "report.md: no drawing section"
grep -qE '^PF 0000:03:00\.0 +mlx5_0 +p0$' "$rep/report.md" || bad "drawing: no Arm-side PF 0000:03:00.0"
grep -qE '0000:3b:00\.1 +mlx5_1 +ens1f1np1$' "$rep/report.md" || bad "drawing: no host function 0000:3b:00.1"
if [ "$mode" = verdicts ]; then
	grep -qF "Representors not drawn" "$rep/report.md" || bad "drawing: no note that representors are missing"
	grep -q "representor 0000:" "$rep/report.md" && bad "drawing: representors drawn without a listing"
else
	grep -qE '`- representor 0000:3b:00\.0 \(PF\) <-- PCIe --> PF 0000:3b:00\.0 +mlx5_0 +ens1f0np0$' "$rep/report.md" ||
		bad "drawing: representor 3b:00.0 not paired with the host function"
fi
links=$(grep -o '](\([^)]*\))' "$rep/report.md" | sed 's/^](//; s/)$//' | sort -u)
[ -n "$links" ] || bad "report.md links no log"
for l in $links; do
	[ -f "$rep/$l" ] || bad "report.md links $l, which is missing"
done
for f in "$rep"/*.log; do
	b=$(basename "$f")
	printf '%s\n' "$links" | grep -qxF "$b" || bad "$b is not linked from report.md"
	# Names: <step>[-<what>]-<side>.log with the side in its header.
	side_line=$(sed -n '1s/^# side: //p' "$f")
	side=${side_line%% *}
	case "$side" in arm|host) ;; *) bad "$b: first line is not '# side: arm|host'" ;; esac
	case "$mode" in
	shells*)
		[ "$side_line" = "$side (in softdoca-shell $side, $shell_mode mode)" ] ||
			bad "$b: side line '$side_line' does not say which shell ran it ($shell_mode mode expected)"
		;;
	esac
	case "$b" in *-"$side".log) ;; *) bad "$b: name does not end in -$side.log" ;; esac
	cmd=$(sed -n '2s/^# command: //p' "$f")
	[ -n "$cmd" ] || bad "$b: second line is not '# command: ...'"
	case "$mode" in
	shells*)
		# what the lesson types: DOCA's paths, or the host's lspci pipeline
		case "$cmd" in
		/opt/mellanox/doca/*|"lspci | grep -i mellanox") ;;
		*) bad "$b: '$cmd' is not typed as the lesson types it" ;;
		esac
		;;
	*) [ -x "${cmd%% *}" ] || bad "$b: the command '${cmd%% *}' is not a program" ;;
	esac
	tail -n 2 "$f" | head -n 1 | grep -qE '^# exit status: ([0-9]+|none: .+)$' || bad "$b: no exit status before the end"
	tail -n 1 "$f" | grep -qE '^# duration: [0-9]+\.[0-9]{3} s$' || bad "$b: does not end with its duration"
	# In the sanitizer builds a program's report lands in its log.
	grep -qE 'ERROR: (Address|Leak|Thread)Sanitizer|runtime error:' "$f" && bad "$b: a sanitizer report"
done

sc=$host_bin/doca_secure_channel
case "$mode" in shells*) sc=/opt/mellanox/doca/applications/secure_channel/bin/doca_secure_channel ;; esac
case "$mode" in
shells|shells_fallback)
	for s in $main_steps; do verdict_is "$s" PASS; done
	grep -qxF "# command: $sc -s 256 -n 10 -p 03:00.0 -r 3b:00.0" "$rep/02-secure-channel-s256-n10-arm.log" ||
		bad "02 Arm log: not the lesson's command line"
	grep -qxF "# command: $sc -s 256 -n 10 -p 3b:00.0" "$rep/02-secure-channel-s256-n10-host.log" ||
		bad "02 host log: not the lesson's command line"
	grep -qxF "# command: /opt/mellanox/doca/tools/doca_caps --list-devs" "$rep/01-preflight-list-devs-arm.log" ||
		bad "01 Arm log: not the lesson's doca_caps"
	grep -qE '^3b:00\.0 .*Mellanox' "$rep/01-preflight-lspci-host.log" || bad "01: lspci | grep -i mellanox on the host does not show 3b:00.0"
	grep -qF 'programs run inside `softdoca-shell arm|host`' "$rep/report.md" || bad "report.md does not say the programs ran in the shells"
	if [ "$mode" = shells ]; then
		for s in $rehearsals; do verdict_is "$s" REPRODUCED; done
		grep -qx "8 passed, 0 failed; 8 reproduced, 0 not reproduced" "$rep/summary.txt" || bad "summary.txt: wrong count line"
	fi
	left=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'softdoca-lab-shells.*' -newer "$work" 2>/dev/null)
	[ -z "$left" ] || bad "the shells' scratch folders were left: $left"
	;;
main)
	for s in $main_steps; do verdict_is "$s" PASS; done
	for f in 01-preflight-list-devs-arm 01-preflight-list-reps-arm 01-preflight-version-host \
		 02-secure-channel-s256-n10-arm 02-secure-channel-s256-n10-host \
		 03-secure-channel-s4096-n1000-arm 03-secure-channel-s4096-n1000-host \
		 04-dma-local-copy-nt4-nd2-arm \
		 05-dma-copy-host-to-arm-arm 05-dma-copy-host-to-arm-host \
		 06-dma-copy-arm-to-host-arm 06-dma-copy-arm-to-host-host; do
		[ -s "$rep/$f.log" ] || bad "missing log $f.log"
	done
	grep -qxF '# exit status: 0' "$rep/02-secure-channel-s256-n10-host.log" || bad "02 host log: exit status is not 0"
	grep -qxF "# command: $sc -s 256 -n 10 -p 3b:00.0" "$rep/02-secure-channel-s256-n10-host.log" ||
		bad "02 host log: not the lesson's command line"
	grep -F "| 03-secure-channel-s4096-n1000 |" "$rep/report.md" |
		grep -qE 'arm: sent 1000 in [0-9.]+ ms, received 1000 in [0-9.]+ ms; host: sent 1000 in [0-9.]+ ms, received 1000' ||
		bad "report.md: step 03 has no throughput figures"
	grep -F "| 05-dma-copy-host-to-arm |" "$rep/report.md" | grep -qE '4194311 bytes in [0-9]+ chunk' || bad "report.md: step 05 has no figures"
	grep -qx "8 passed, 0 failed; 0 reproduced, 0 not reproduced" "$rep/summary.txt" || bad "summary.txt: wrong count line"
	# The DMA Copy steps remove their files once they pass.
	extra=$(find "$rep" -mindepth 1 -name '*-files.*')
	[ -z "$extra" ] || bad "DMA Copy files left in the report folder: $extra"
	;;
failures)
	for s in $rehearsals; do
		verdict_is "$s" REPRODUCED
		[ -s "$rep/$s-fix-arm.log" ] && [ -s "$rep/$s-fix-host.log" ] || bad "$s: no fix logs"
	done
	grep -q "PASS\|FAIL" "$rep/summary.txt" && bad "summary.txt: a rehearsal says PASS/FAIL"
	grep -qE '^# exit status: none: killed by the lab' "$rep/F1-client-started-first-host.log" || bad "F1: the waiting client was not stopped by the lab"
	grep -q "started before the host client" "$rep/F1-client-started-first-host.log" || bad "F1: no start-order warning in the log"
	grep -q "Producer sent 10 messages" "$rep/F1-client-started-first-fix-host.log" || bad "F1: the fix printed no count"
	grep -qE '^F5-mismatched-n .*Arm side sent 10 and received 20, host sent 20 and received 10' "$rep/summary.txt" || bad "F5: the crossed counts are not stated"
	grep -qE '^F7-rep-on-host .*ignores it' "$rep/summary.txt" || bad "F7: does not say -r is ignored on the host"
	grep -qxF '# command: '"$host_bin"'/doca_secure_channel -s 256 -n 10 -p 3b:00.0 -r 3b:00.0' "$rep/F7-rep-on-host-host.log" || bad "F7: not -r on the host"
	grep -q "dma_copy_server" "$rep/F8-dma-copy-host-first-host.log" || bad "F8: no warning naming dma_copy_server"
	grep -q "DMA copy finished successfully" "$rep/F8-dma-copy-host-first-fix-host.log" || bad "F8: the fix did not copy"
	grep -F "| F5-mismatched-n |" "$rep/report.md" | grep -qF "mistake: arm: sent 10" || bad "report.md: F5 row lacks the mistake's figures"
	grep -qx "0 passed, 0 failed; 8 reproduced, 0 not reproduced" "$rep/summary.txt" || bad "summary.txt: wrong count line"
	extra=$(find "$rep" -mindepth 1 -name '*-files.*')
	[ -z "$extra" ] || bad "DMA Copy files left in the report folder: $extra"
	;;
verdicts)
	verdict_is 04-dma-local-copy-nt4-nd2 FAIL
	verdict_is F8-dma-copy-host-first "NOT REPRODUCED"
	grep -qE '^F8-dma-copy-host-first +NOT REPRODUCED +symptom not seen' "$rep/summary.txt" || bad "F8: the reason does not say the symptom was missing"
	for s in $main_steps $rehearsals; do
		case "$s" in 04-*|F8-*) continue ;; 0*) verdict_is "$s" PASS ;; F*) verdict_is "$s" REPRODUCED ;; esac
	done
	grep -qE '^01-preflight-arm +PASS .*no representor listing' "$rep/summary.txt" || bad "preflight: the missing representor listing is not said"
	grep -qx "7 passed, 1 failed; 7 reproduced, 1 not reproduced" "$rep/summary.txt" || bad "summary.txt: wrong count line"
	;;
esac
left=$(find "$SOFTDOCA_FABRIC" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] || bad "fabric dir not empty: $(ls -la "$SOFTDOCA_FABRIC")"
[ "$fail" -eq 0 ] && echo "all checks passed"
exit $fail
