#!/bin/bash
# Remote DMA and the Comch fast path over UCX (SOFTDOCA_LINK=ucx://,
# UCX_TLS=tcp) between two network namespaces joined by a veth pair, next to
# raw TCP (iperf3) between the same namespaces and the same benchmarks on the
# local fabric (both sides on one machine's fabric), all in the same run.
# Figures, not a test: it prints, it does not judge.
#
# usage: bench/ucx/run_ucx.sh [BUILD]   (root only; BUILD: the folder with
#                                        dpu/ and host/ builds; default build)
#   BENCH_REPS=N    repetitions per row (default 5)
#   BENCH_T=S       seconds per repetition, DMA and iperf3 alike (default 1)
#   BENCH_CSV=FILE  append the rows to FILE (bench/run.sh's CSV); default
#                   BENCH_OUT/ucx.csv (BENCH_OUT default BUILD/bench), header written
#
# Layout: netns A is the Arm side (dma_bench of the dpu build, which imports
# the export and runs every DMA: host->Arm is a read of the export, Arm->host
# a write into it), netns B the host side (tests/dma/dma_exporter of the host
# build, started by dma_bench through --peer-wrap in its own netns and PID
# namespace and a private fabric directory, so only TCP over the veth joins
# them). iperf3 runs its server in B and its client in A: -R (B -> A) is the
# host->Arm direction, forward (A -> B) Arm->host. Every repetition of either
# lasts BENCH_T seconds; ratio = UCX DMA GB/s / iperf3 GB/s of the same
# direction, the median of the per-repetition ratios.
# The Comch fast path: comch_bench of the host build in B (the client and
# its producer) with its dpu-build server (the consumer) in A through
# --peer-wrap, so messages go host->Arm: ratio to iperf3 host->Arm, as for
# DMA. The local comch_bench run beside it keeps its AF_UNIX baseline.
#
# CSV rows (bench_util.h's columns): ucx_h2a, ucx_a2h, ucx_comch_h2a (ratio to iperf3_h2a /
# iperf3_a2h), iperf3_h2a, iperf3_a2h (size = iperf3's block, 128 KiB; ops =
# blocks; cpu = both iperf3 processes), local_remote_memcpy/_h2a/_a2h (the
# local remote DMA at the same sizes, ratio to memcpy as in dma_bench),
# local_comch_fp, local_af_unix_seqpacket (comch_bench on the local fabric).
#
# Skips (exit 77, saying why) when not root, without iperf3 or UCX, or when
# the kernel refuses namespaces or a veth. Always removes its namespaces,
# veth, processes and files (trap).
set -u
# skip, the namespaces and veth pair, their removal at exit
# shellcheck source=../../tests/common/netns.sh
. "$(dirname "$0")/../../tests/common/netns.sh"
BUILD=${1:-build}
REPS=${BENCH_REPS:-5}
T=${BENCH_T:-1}
DMA=$BUILD/dpu/bench/dma/dma_bench
PEER=$BUILD/host
EXP=$PEER/tests/dma/dma_exporter
COMCH=$PEER/bench/comch/comch_bench          # client (producer), host build, in B
COMCH_SRV=$BUILD/dpu/bench/comch/comch_bench # its server (consumer), in A
SIZES="1048576 4194304 16777216"
MAXSZ=16777216

netns_need_root
for c in ip unshare timeout python3; do
	command -v "$c" >/dev/null 2>&1 || skip "$c not found (scripts/install-deps.sh)"
done
command -v iperf3 >/dev/null 2>&1 || skip "iperf3 not found (sudo scripts/install-deps.sh --bench)"
[ -f "$BUILD/dpu/src/fabric/sd_link_ucx.so" ] && [ -f "$PEER/src/fabric/sd_link_ucx.so" ] ||
	skip "softdoca was built without UCX (install libucx-dev libssl-dev, configure with -Ducx=enabled)"
[ -x "$DMA" ] && [ -x "$EXP" ] && [ -x "$COMCH" ] && [ -x "$COMCH_SRV" ] ||
	skip "needs $DMA, $EXP, $COMCH and $COMCH_SRV (build both flavors)"
case $T in '' | *[!0-9]*) skip "BENCH_T must be whole seconds (iperf3 -t)" ;; esac

tag=sdb$$
A=${tag}a B=${tag}b VA=${tag}va VB=${tag}vb
ADDR_A=10.78.0.1 ADDR_B=10.78.0.2
URL=ucx://$ADDR_A:18516
W=$(mktemp -d "${TMPDIR:-/tmp}/softdoca-ucxbench.XXXXXX")
ipid=
stop_iperf() {
	[ -n "$ipid" ] && kill "$ipid" 2>/dev/null
}
netns_init "$W" stop_iperf

netns_add_or_skip "$A" "$B"
veth_add_or_skip "$VA" "$VB"
netns_join "$VA" "$A" "$ADDR_A/24" "$VB" "$B" "$ADDR_B/24" || {
	echo "!! setting up the veth pair failed"
	exit 1
}
netns_need_unshare

if [ -n "${BENCH_CSV:-}" ]; then
	CSV=$BENCH_CSV
else
	OUT=${BENCH_OUT:-$BUILD/bench}
	mkdir -p "$OUT" || exit 1
	CSV=$OUT/ucx.csv
	echo "bench,size,rep,ops_per_s,gb_per_s,cpu_s_per_gb,cpu_s_per_mop,ratio,ratio_to,spread,load" >"$CSV"
fi
link_secret "$W/secret"
mkdir -p "$W/fab-a" "$W/fab-b" "$W/fab-ca"
failed=0

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
ucxv=$(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -n1)
echo "softdoca UCX bench: $(nproc) CPU(s), $cpu, kernel $(uname -r), UCX ${ucxv:-?}," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "veth $VA ($ADDR_A, netns A: Arm side, dma_bench) <-> $VB ($ADDR_B, netns B: host side, exporter), MTU" \
	"$(ip -n "$A" -o link show "$VA" | sed -n 's/.* mtu \([0-9]*\).*/\1/p'); $REPS x $T s per row; UCX_TLS=tcp"
echo

# ---- raw TCP: iperf3 between the same namespaces ---------------------------
ip netns exec "$B" iperf3 -s -B "$ADDR_B" -p 5299 >"$W/iperf-s.log" 2>&1 &
ipid=$!
for _ in $(seq 50); do
	ip netns exec "$A" iperf3 -c "$ADDR_B" -p 5299 -t 1 -J >/dev/null 2>&1 && break
	sleep 0.1
done
# iperf_rep DIR REP: one repetition (-R for h2a), its JSON in $W/ip-DIR-REP.json
iperf_rep() {
	local rflag=
	[ "$1" = h2a ] && rflag=-R
	# shellcheck disable=SC2086
	timeout $((T + 20)) ip netns exec "$A" iperf3 -c "$ADDR_B" -p 5299 -t "$T" $rflag -J >"$W/ip-$1-$2.json" 2>&1
}

# ---- the UCX run: dma_bench in A, its exporter in B ---------------------
ucx_run() {
	env SOFTDOCA_FABRIC="$W/fab-a" UCX_TLS=tcp SOFTDOCA_LINK="$URL" SOFTDOCA_LINK_SECRET_FILE="$W/secret" \
		ip netns exec "$A" unshare --pid --fork --kill-child --mount-proc \
		timeout -k 2 600 "$DMA" --remote --peer-build "$PEER" -r "$REPS" -t "$T" --max-size $MAXSZ \
		--peer-wrap "env SOFTDOCA_FABRIC=$W/fab-b ip netns exec $B unshare --pid --fork --kill-child --mount-proc" \
		--csv "$W/ucx.csv"
}

# ---- the Comch fast path over UCX: comch_bench in B, its server in A ------
comch_run() {
	env UCX_TLS=tcp SOFTDOCA_LINK="$URL" SOFTDOCA_LINK_SECRET_FILE="$W/secret" \
		ip netns exec "$B" unshare --pid --fork --kill-child --mount-proc \
		timeout -k 2 600 "$COMCH" --peer "$COMCH_SRV" -r "$REPS" -t "$T" \
		--peer-wrap "env SOFTDOCA_FABRIC=$W/fab-ca ip netns exec $A unshare --pid --fork --kill-child --mount-proc" \
		--csv "$W/comch.csv"
}

# Interleaved so that both see the same machine: iperf3 repetitions, the UCX
# DMA rows, iperf3 again; the iperf3 figure of a row is the median of all.
echo "== raw TCP, iperf3 $(iperf3 --version | head -n1 | cut -d' ' -f2), $ADDR_A <-> $ADDR_B, $REPS x $T s each way (half before, half after the UCX run)"
half=$(((REPS + 1) / 2))
for r in $(seq 1 "$half"); do
	iperf_rep h2a "$r" || failed=1
	iperf_rep a2h "$r" || failed=1
done
echo
echo "== remote DMA over UCX (tcp) across the veth"
echo "\$ dma_bench --remote --peer-build $PEER -r $REPS -t $T --max-size $MAXSZ --peer-wrap 'ip netns exec B ...'"
ucx_run || {
	echo "!! the UCX run failed (exit $?)"
	failed=1
}
echo
echo "== the Comch fast path over UCX (tcp) across the veth, producer host side (B), consumer Arm side (A)"
echo "\$ comch_bench --peer $COMCH_SRV -r $REPS -t $T --peer-wrap 'ip netns exec A ...'"
comch_run || {
	echo "!! the UCX Comch run failed (exit $?)"
	failed=1
}
for r in $(seq $((half + 1)) "$REPS"); do
	iperf_rep h2a "$r" || failed=1
	iperf_rep a2h "$r" || failed=1
done
kill "$ipid" 2>/dev/null
wait "$ipid" 2>/dev/null
ipid=
echo

echo "== remote DMA, local (both sides on one fabric, no network)"
echo "\$ dma_bench --remote --peer-build $PEER -r $REPS -t $T --max-size $MAXSZ"
env SOFTDOCA_FABRIC="$W/fab-l" timeout -k 2 600 "$DMA" --remote --peer-build "$PEER" -r "$REPS" -t "$T" \
	--max-size $MAXSZ --csv "$W/local.csv" || {
	echo "!! the local remote DMA run failed (exit $?)"
	failed=1
}
echo
echo "== the Comch fast path, local (both sides on one fabric, no network)"
echo "\$ comch_bench --peer $COMCH_SRV -r $REPS -t $T"
timeout -k 2 600 "$COMCH" --peer "$COMCH_SRV" -r "$REPS" -t "$T" --csv "$W/comch-local.csv" || {
	echo "!! the local Comch run failed (exit $?)"
	failed=1
}
echo

python3 - "$W" "$REPS" "$T" "$CSV" "$SIZES" <<'EOF'
import csv, json, os, sys

w, reps, secs, out, sizes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5].split()

def median(v):
    v = sorted(v)
    n = len(v)
    return 0.0 if n == 0 else (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)

def spread(v):
    m = median(v)
    return (max(v) - min(v)) / m if v and m > 0 else 0.0

def rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [dict(zip(["bench", "size", "rep", "ops", "gb", "cgb", "cm", "ratio", "ratio_to", "spread", "load"], r))
                for r in csv.reader(f)]

lines = []
def emit(bench, size, rep, ops, gb, cgb, cm, ratio, ratio_to, sp, load=0):
    lines.append("%s,%s,%s,%.1f,%.4f,%.5f,%.5f,%.4f,%s,%s,%d" % (bench, size, rep, ops, gb, cgb, cm, ratio, ratio_to,
                 "" if sp is None else "%.4f" % sp, load))

# iperf3: GB/s (1e9 bytes) as the receiver counted them, CPU both ends
ip = {}
for d in ("h2a", "a2h"):
    ip[d] = []
    for r in range(1, reps + 1):
        try:
            j = json.load(open("%s/ip-%s-%d.json" % (w, d, r)))
            e = j["end"]
            bps = e["sum_received"]["bits_per_second"] / 8
            dur = e["sum_received"]["seconds"]
            blk = j["start"]["test_start"]["blksize"]
            cpu = (e["cpu_utilization_percent"]["host_total"] + e["cpu_utilization_percent"]["remote_total"]) / 100 * dur
            gbytes = bps * dur / 1e9
            ip[d].append((bps / 1e9, bps / blk, cpu / gbytes if gbytes else 0, cpu / (bps * dur / blk / 1e6), blk))
        except (OSError, ValueError, KeyError) as ex:
            print("!! iperf3 %s repetition %d: no result (%s)" % (d, r, ex))
    for i, (gb, ops, cgb, cm, blk) in enumerate(ip[d]):
        emit("iperf3_" + d, blk, i + 1, ops, gb, cgb, cm, 0, "", None)
    if ip[d]:
        g = [x[0] for x in ip[d]]
        emit("iperf3_" + d, ip[d][0][4], "median", median([x[1] for x in ip[d]]), median(g),
             median([x[2] for x in ip[d]]), median([x[3] for x in ip[d]]), 0, "", spread([x[1] for x in ip[d]]))

# A UCX row: its repetitions against iperf3's of the same direction, the
# i-th against the i-th (same position in the run); (median GB/s, spread of
# ops, median ratio, spread of ratios, median ops/s).
def ucx_row(name, d, size, rs):
    ipg = [x[0] for x in ip.get(d, [])]
    ratios = []
    for i, r in enumerate(rs):
        ratio = float(r["gb"]) / ipg[i] if i < len(ipg) and ipg[i] > 0 else 0
        ratios.append(ratio)
        emit(name, size, r["rep"], float(r["ops"]), float(r["gb"]), float(r["cgb"]), float(r["cm"]), ratio,
             "iperf3_" + d, None)
    ops = [float(r["ops"]) for r in rs]
    gbs = [float(r["gb"]) for r in rs]
    emit(name, size, "median", median(ops), median(gbs), median([float(r["cgb"]) for r in rs]),
         median([float(r["cm"]) for r in rs]), median(ratios), "iperf3_" + d, spread(ops))
    return (median(gbs), spread(ops), median(ratios), spread(ratios), median(ops))

def by_size(path, benches):
    out = {}
    for r in rows(path):
        if r["bench"] in benches and r["rep"] != "median":
            out.setdefault((r["bench"], r["size"]), []).append(r)
    return sorted(out.items(), key=lambda kv: (int(kv[0][1]), kv[0][0]))

res = {}
for (b, size), rs in by_size(w + "/ucx.csv", ("remote_h2a", "remote_a2h")):
    res[(b[7:], size)] = ucx_row("ucx_" + b[7:], b[7:], size, rs)
# the Comch fast path: producer host side (B), consumer Arm side (A)
cres = {}
for (b, size), rs in by_size(w + "/comch.csv", ("comch_fp",)):
    cres[size] = ucx_row("ucx_comch_h2a", "h2a", size, rs)

# The local runs, their rows as they printed them, renamed local_*.
def local_rows(path, prefix):
    med = {}
    for r in rows(path):
        if not r["bench"].startswith(prefix):
            continue
        emit("local_" + r["bench"], r["size"], r["rep"], float(r["ops"]), float(r["gb"]), float(r["cgb"]),
             float(r["cm"]), float(r["ratio"]), ("local_" + r["ratio_to"]) if r["ratio_to"] else "",
             float(r["spread"]) if r["spread"] else None)
        if r["rep"] == "median":
            med[(r["bench"], r["size"])] = (float(r["gb"]), float(r["spread"] or 0), float(r["ops"]),
                                            float(r["ratio"]))
    return med
loc = {(b[7:], size): v for (b, size), v in local_rows(w + "/local.csv", "remote_").items()}
cloc = {size: v for (b, size), v in local_rows(w + "/comch-local.csv", "").items() if b == "comch_fp"}

with open(out, "a") as f:
    for l in lines:
        f.write(l + "\n")

def g(d):
    v = [x[0] for x in ip.get(d, [])]
    return (median(v), spread(v)) if v else (0, 0)
print("== summary (GB/s = 1e9 B/s; medians of %d x %g s; spread = (max-min)/median)" % (reps, secs))
print("iperf3 TCP: host->Arm (B->A) %.3f GB/s (spread %.3f), Arm->host (A->B) %.3f GB/s (spread %.3f)"
      % (g("h2a") + g("a2h")))
print("%8s  %-4s %10s %7s %10s %8s %7s %12s %7s" % ("size", "dir", "UCX GB/s", "spread", "iperf3", "ratio",
      "rsprd", "local GB/s", "spread"))
for size in sizes:
    for d in ("h2a", "a2h"):
        u = res.get((d, size))
        l = loc.get((d, size), (0, 0))
        if u is None:
            print("%8s  %-4s %10s" % ("%d MiB" % (int(size) >> 20), d, "(no figure)"))
            continue
        print("%8s  %-4s %10.3f %7.3f %10.3f %7.3fx %7.3f %12.3f %7.3f" % ("%d MiB" % (int(size) >> 20), d, u[0], u[1],
              g(d)[0], u[2], u[3], l[0], l[1]))
print()
print("Comch fast path, host->Arm (msgs/s; the UCX ratio is GB/s to iperf3 host->Arm, the local one msgs/s to AF_UNIX)")
print("%8s %12s %9s %7s %8s %7s %12s %7s %9s" % ("size", "UCX msg/s", "GB/s", "spread", "ratio", "rsprd",
      "local msg/s", "spread", "vs AF_UNIX"))
for size in sorted(set(cres) | set(cloc), key=int):
    u = cres.get(size, (0, 0, 0, 0, 0))
    l = cloc.get(size, (0, 0, 0, 0))
    n = int(size)
    sz = "%d KiB" % (n >> 10) if n >= 1024 else "%d B" % n
    print("%8s %12.0f %9.3f %7.3f %7.3fx %7.3f %12.0f %7.3f %8.3fx" % (sz, u[4], u[0], u[1], u[2], u[3], l[2], l[1],
          l[3]))
print("CSV: %s (+%d rows)" % (out, len(lines)))
EOF
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
exit $failed
