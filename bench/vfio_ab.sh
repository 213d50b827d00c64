#!/usr/bin/env bash
# Interleaved rounds of xnvmeperf 4 KiB random reads on the spare controller of
# `rig.sh run --vfio`: io_uring_cmd (/dev/ng) then, bound to vfio-pci, vfio with this build's
# library and (given) a baseline library; QD1 and QD32 each. Rounds interleave the paths so
# that the host's changing load hits them alike; bench/vfio_report.py takes the medians.
#   tests/qemu/rig.sh run --vfio -- bench/vfio_ab.sh <build dir> <out dir> [rounds] [seconds]
#       [baseline lib dir]
set -u
b=$(realpath "${1:?usage: vfio_ab.sh <build dir> <out dir> [rounds] [seconds] [baseline lib]}")
mkdir -p "${2:?usage: vfio_ab.sh <build dir> <out dir> [rounds] [seconds] [baseline lib]}"
out=$(realpath "$2")
rounds=${3:-5}
t=${4:-3}
base=${5:-}
bdf=${XNVME_QEMU_SPARE_PCI_BDF:?run in the guest of rig.sh run --vfio}
chr=$XNVME_QEMU_SPARE_CHR
drv=$(dirname "$0")/../tools/xnvme-driver
modprobe vfio-pci
: >"$out/ab.jsonl"
one() { # <round> <path> <qd> <lib dir> <uri> [args]
	local r=$1 path=$2 qd=$3 lib=$4 uri=$5
	shift 5
	LD_LIBRARY_PATH=$lib "$b/tools/xnvmeperf" "$uri" --qdepth "$qd" --runtime "$t" --size 64m \
		--json "$@" 2>/dev/null | python3 -c "
import json, sys
t = json.load(sys.stdin)['total']
print(json.dumps({'round': $r, 'path': '$path', 'qd': $qd, 'iops': t['iops'], 'p50': t['lat_ns']['p50'],
                  'p99': t['lat_ns']['p99'], 'cpu_s': t['cpu']['user_s'] + t['cpu']['sys_s'], 'ios': t['ios']}))
" >>"$out/ab.jsonl"
}
for r in $(seq "$rounds"); do
	for _ in $(seq 100); do [ -c "$chr" ] && break; sleep 0.1; done
	for qd in 1 32; do one "$r" io_uring_cmd "$qd" "$b/lib" "$chr" --async io_uring_cmd; done
	"$drv" bind "$bdf" >/dev/null || exit 1
	for qd in 1 32; do
		one "$r" vfio "$qd" "$b/lib" "$bdf"
		[ -z "$base" ] || one "$r" vfio-base "$qd" "$base" "$bdf"
	done
	"$drv" unbind "$bdf" >/dev/null || exit 1
	echo "round $r done"
done
