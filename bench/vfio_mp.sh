#!/usr/bin/env bash
# IOPS per core of a multi-process secondary against a single-process vfio open of the same
# controller (the spare controller of `rig.sh run --vfio`, bound to vfio-pci): xnvmeperf 4 KiB
# random reads at QD1 and QD32, once opened by itself, once as a secondary of
# `xnvme-driver serve` (which runs, idle, during the secondary's runs). The two runs of a pair
# follow each other (the order alternates by round), so drift of the shared host affects both
# alike; the ratios are taken per pair. Per run: xnvmeperf's
# JSON report and the guest's busy CPU time (/proc/stat: the primary's share included).
# Guest CPU time is inflated when the host preempts the vCPU (TCG reports no steal time):
# bench/vfio_mp_host.sh runs this script and also accounts the host CPU time of QEMU per run.
# Not a timed test; bench/vfio_mp_report.py turns <out dir> into the table.
#   tests/qemu/rig.sh run --vfio -- bench/vfio_mp.sh <build dir> <out dir> [seconds] [rounds]
set -u
b=$(realpath "${1:?usage: vfio_mp.sh <build dir> <out dir> [seconds] [rounds]}")
mkdir -p "${2:?usage: vfio_mp.sh <build dir> <out dir> [seconds] [rounds]}/raw"
out=$(realpath "$2")
t=${3:-3}
rounds=${4:-12}
bdf=${XNVME_QEMU_SPARE_PCI_BDF:?run in the guest of rig.sh run --vfio}
drv=$b/tools/xnvme-driver
shm=9
prim=
tmp=$(mktemp -d)
trap '[ -z "$prim" ] || kill $prim; wait; "$drv" unbind "$bdf" >/dev/null; rm -rf "$tmp"' EXIT
: >"$out/runs.jsonl"

modprobe vfio-pci && "$drv" bind "$bdf" >/dev/null || { echo "cannot bind $bdf"; exit 1; }
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }

# run <mode> <qd> <round> [--shm-id N]: one measured run into raw/<mode>-qd<qd>-<round>.json;
# a mode ending in -open is a single I/O: what opening and closing costs
run() {
	local mode=$1 qd=$2 r=$3 name b0 b1 t0 t1 rc len=(--runtime "$t")
	shift 3
	name=$mode-qd$qd-$r
	[[ $mode != *-open ]] || len=(--count 1)
	touch "$out/raw/$name.t0" # for the host's CPU account (vfio_mp_host.sh)
	b0=$(busy) t0=$(date +%s%N)
	timeout -k 5 $((t + 60)) "$b/tools/xnvmeperf" "$bdf" --rw randread --iosize 4k --size 64m \
		"${len[@]}" --qdepth "$qd" --json --no-progress "$@" >"$out/raw/$name.json" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s%N) b1=$(busy)
	touch "$out/raw/$name.t1"
	[ $rc -eq 0 ] || { echo "== $name: exit $rc"; tail -3 "$tmp/err"; }
	printf '{"mode": "%s", "qd": %d, "round": %d, "rc": %d, "wall_s": %.3f, "busy_s": %.3f, "file": "raw/%s.json"}\n' \
		"$mode" "$qd" "$r" $rc "$(((t1 - t0) / 1000))e-6" "$(((b1 - b0) * 10))e-3" "$name" \
		>>"$out/runs.jsonl"
}
# secondary <qd> <round>: the primary serves only during the secondary's run (a single-process
# open needs the function to itself)
secondary() {
	"$drv" serve "$bdf" --shm-id $shm >"$tmp/primary.log" 2>&1 &
	prim=$!
	for _ in $(seq 200); do grep -q "^ready" "$tmp/primary.log" && break; sleep 0.1; done
	run secondary "$1" "$2" --shm-id $shm
	[ "$1" != 1 ] || run secondary-open 1 "$2" --shm-id $shm
	kill -TERM $prim
	wait $prim
	prim=
}
# each pair back to back, the order alternating by round
for r in $(seq "$rounds"); do
	echo "== round $r"
	for qd in 1 32; do
		if ((r % 2)); then
			run single $qd "$r"
			secondary $qd "$r"
		else
			secondary $qd "$r"
			run single $qd "$r"
		fi
		[ $qd != 1 ] || run single-open 1 "$r"
	done
done
{
	echo "guest: $(nproc) vCPU, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
	echo "runs: $rounds rounds x $t s per mode and queue depth, interleaved"
} >"$out/env.txt"
