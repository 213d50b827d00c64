#!/usr/bin/env bash
# Side-by-side 4 KiB random reads on the spare controller of `rig.sh run --vfio` (one vCPU),
# the same namespace on every path: xnvmeperf and fio's xnvme engine over io_uring_cmd
# (/dev/ng), io_uring (/dev/nvme, O_DIRECT) and vfio (the function bound to vfio-pci for the
# vfio runs, then back to nvme), and fio's own io_uring_cmd and io_uring engines; QD1 and QD32.
# Per run: the tool's JSON report plus the guest's busy CPU time (/proc/stat) and the spare
# controller's interrupts (/proc/interrupts). Then a profile per path at QD32: perf cpu-clock
# samples (where the time goes: user space, kernel, idle while the device model works) and
# probe counts per command (MMIO writes of the vfio driver through a uprobe on its register
# write, the kernel driver's submissions and interrupts through kprobes).
# Not a timed test; bench/vfio_report.py turns <out dir> into the table and plots.
# Given a second libxnvme directory (e.g. a build of an earlier commit), xnvmeperf also runs
# over vfio with that library (path "vfio-base"), side by side with the current one.
#   tests/qemu/rig.sh run --vfio -- bench/vfio_guest.sh <build dir> <fio|-> <out dir> [seconds]
#       [baseline lib dir]
set -u
b=$(realpath "${1:?usage: vfio_guest.sh <build dir> <fio|-> <out dir> [seconds]}")
fio=${2:?usage: vfio_guest.sh <build dir> <fio|-> <out dir> [seconds]}
mkdir -p "${3:?usage: vfio_guest.sh <build dir> <fio|-> <out dir> [seconds]}/raw"
out=$(realpath "$3")
t=${4:-5}
base=${5:-}
bdf=${XNVME_QEMU_SPARE_PCI_BDF:?run in the guest of rig.sh run --vfio}
chr=$XNVME_QEMU_SPARE_CHR
blk=$XNVME_QEMU_SPARE_BLK
cname=$(basename "$XNVME_QEMU_SPARE_CTRLR")
drv=$(dirname "$0")/../tools/xnvme-driver
[ -x "$fio" ] || fio=
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp # perf keeps its caches there (the guest's root is read-only)
: >"$out/runs.jsonl"

busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
irqs() { awk -v c="$cname" 'index($NF, c "q") == 1 {n += $2} END {print n + 0}' /proc/interrupts; }

# run <path> <tool> <qd> <command...>: one measured run into raw/<tool>-<path>-qd<qd>.json
run() {
	local path=$1 tool=$2 qd=$3 name b0 b1 i0 i1 t0 t1 rc
	shift 3
	name=$tool-$path-qd$qd
	echo "== $name"
	b0=$(busy) i0=$(irqs) t0=$(date +%s%N)
	timeout -k 5 $((t + 60)) "$@" >"$out/raw/$name.json" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s%N) b1=$(busy) i1=$(irqs)
	[ $rc -eq 0 ] || { echo "   exit $rc"; tail -3 "$tmp/err"; }
	printf '{"path": "%s", "tool": "%s", "qd": %d, "rc": %d, "wall_s": %.3f, "busy_s": %.3f, "irqs": %d, "file": "raw/%s.json"}\n' \
		"$path" "$tool" "$qd" $rc "$(((t1 - t0) / 1000))e-6" "$(((b1 - b0) * 10))e-3" $((i1 - i0)) "$name" \
		>>"$out/runs.jsonl"
}
perf_x=("$b/tools/xnvmeperf" --rw randread --iosize 4k --runtime "$t" --size 64m --json)
fio_x=("$fio" --name=bench --rw=randread --bs=4k --size=64m --time_based --runtime="$t"
	--thread=1 --norandommap --output-format=json)
# kernel paths: xnvme over io_uring_cmd and io_uring, fio's engines
kernel_runs() {
	local qd=$1
	run io_uring_cmd xnvmeperf "$qd" "${perf_x[@]}" "$chr" --async io_uring_cmd --qdepth "$qd"
	run io_uring xnvmeperf "$qd" "${perf_x[@]}" "$blk" --async io_uring --direct --qdepth "$qd"
	[ -n "$fio" ] || return 0
	run io_uring_cmd fio-xnvme "$qd" "${fio_x[@]}" --ioengine=xnvme --filename="$chr" \
		--xnvme_async=io_uring_cmd --iodepth="$qd"
	run io_uring fio-xnvme "$qd" "${fio_x[@]}" --ioengine=xnvme --filename="$blk" \
		--xnvme_async=io_uring --direct=1 --iodepth="$qd"
	run io_uring_cmd fio "$qd" "${fio_x[@]}" --ioengine=io_uring_cmd --cmd_type=nvme \
		--filename="$chr" --iodepth="$qd"
	run io_uring fio "$qd" "${fio_x[@]}" --ioengine=io_uring --direct=1 --filename="$blk" \
		--iodepth="$qd"
}
vfio_runs() {
	local qd=$1
	run vfio xnvmeperf "$qd" "${perf_x[@]}" "$bdf" --qdepth "$qd"
	[ -z "$base" ] ||
		run vfio-base xnvmeperf "$qd" env LD_LIBRARY_PATH="$base" "${perf_x[@]}" "$bdf" --qdepth "$qd"
	[ -n "$fio" ] || return 0
	run vfio fio-xnvme "$qd" "${fio_x[@]}" --ioengine=xnvme --filename="${bdf//:/\\:}" \
		--xnvme_dev_nsid=1 --xnvme_async=vfio --iodepth="$qd"
}

# profile <path> <command...>: cpu-clock samples of the whole guest at QD32 (symbols of the
# guest kernel and the programs), the report kept as profile-<path>.txt
profile() {
	local path=$1
	shift
	echo "== profile $path"
	perf record -q -N -a -F 999 -e cpu-clock -o "$tmp/perf.data" -- "$@" >"$tmp/pout" 2>&1
	perf report -i "$tmp/perf.data" --stdio --no-children --sort comm,dso,sym --percent-limit 1 \
		2>/dev/null | grep -v '^$' | head -60 >"$out/profile-$path.txt"
	rm -f "$tmp/perf.data"
}
# probes <path> <events> <command...>: event counts over a fixed number of I/Os
probes() {
	local path=$1 ev=$2
	shift 2
	perf stat -x, -e "$ev" -o "$out/probes-$path.csv" -- "$@" >"$tmp/pout" 2>&1 ||
		{ echo "   perf stat $path failed"; tail -3 "$tmp/pout"; }
}

mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
# addprobe <event prefix> <perf probe args...>: a probe, within 30 s (perf probe may go looking
# for debug information); prints the event name
addprobe() {
	local ev=$1
	shift
	timeout 30 perf probe -q "$@" >/dev/null 2>&1 && echo "$ev"
}
havep=$(command -v perf)
for qd in 1 32; do kernel_runs $qd; done

modprobe vfio-pci
"$drv" bind "$bdf" >/dev/null || { echo "vfio_guest: cannot bind $bdf to vfio-pci"; exit 1; }
for qd in 1 32; do vfio_runs $qd; done
if [ -n "$havep" ]; then
	profile vfio "${perf_x[@]}" "$bdf" --qdepth 32
	# the driver's register accesses: pci_write32 (doorbells), pci_read32 (status checks),
	# with this library and the baseline one
	for lib in "$b/lib" ${base:+"$base"}; do
		so=$(readlink -f "$lib/libxnvme.so")
		up=$(addprobe probe_libxnvme:pci_write32 -x "$so" -a pci_write32)
		up+=${up:+,}$(addprobe probe_libxnvme:pci_read32 -x "$so" -a pci_read32)
		name=vfio
		[ "$lib" = "$b/lib" ] || name=vfio-base
		[ -z "${up%,}" ] || probes $name "${up%,}" env LD_LIBRARY_PATH="$lib" \
			"$b/tools/xnvmeperf" "$bdf" --qdepth 32 --count 20000 --size 64m
		timeout 30 perf probe -q -d 'probe_libxnvme:*' 2>/dev/null
	done
fi
"$drv" unbind "$bdf" >/dev/null
for _ in $(seq 100); do [ -c "$chr" ] && [ -b "$blk" ] && break; sleep 0.1; done

if [ -n "$havep" ]; then
	profile io_uring_cmd "${perf_x[@]}" "$chr" --async io_uring_cmd --qdepth 32
	profile io_uring "${perf_x[@]}" "$blk" --async io_uring --direct --qdepth 32
	# commands handed to the kernel driver (nvme_queue_rq, or nvme_queue_rqs for a batch) and
	# its interrupt handler; kprobes, each given 30 s to resolve
	kp=
	for f in nvme_queue_rq nvme_queue_rqs nvme_commit_rqs nvme_irq; do
		e=$(addprobe "probe:$f" -a "$f" || addprobe "probe:$f" -m nvme -a "$f")
		kp+=${e:+${kp:+,}$e}
	done
	if [ -n "$kp" ]; then
		probes io_uring_cmd "$kp" "$b/tools/xnvmeperf" "$chr" --async io_uring_cmd --qdepth 32 \
			--count 20000 --size 64m
		probes io_uring "$kp" "$b/tools/xnvmeperf" "$blk" --async io_uring --direct --qdepth 32 \
			--count 20000 --size 64m
		timeout 30 perf probe -q -d 'probe:*' 2>/dev/null
	fi
fi
echo "vfio_guest: results in $out"
