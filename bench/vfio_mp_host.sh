#!/usr/bin/env bash
# Runs bench/vfio_mp.sh in the guest of `tests/qemu/rig.sh run --vfio` and accounts, on the host,
# the CPU time QEMU spends on each run (the vCPU, the NVMe and IOMMU models: the whole cost of
# an I/O under emulation): the host's per-thread run time counts only while a thread runs, so
# unlike the guest's view it does not grow when other work on the host preempts QEMU. The guest
# marks each run with files (raw/<run>.t0, .t1) in the shared directory; this loop notes QEMU's
# CPU time when they appear (every 20 ms) into <out dir>/host.tsv.
#   bench/vfio_mp_host.sh <build dir> <out dir> [seconds] [rounds]
set -u
b=${1:?usage: vfio_mp_host.sh <build dir> <out dir> [seconds] [rounds]}
out=${2:?usage: vfio_mp_host.sh <build dir> <out dir> [seconds] [rounds]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$out"
mkdir -p "$out/raw"
out=$(realpath "$out")
"$here/../tests/qemu/rig.sh" run --vfio --timeout 2400 -- "$here/vfio_mp.sh" "$b" "$out" "${@:3}" &
rig=$!

# QEMU: the qemu-system process below the rig
qemu_pid() {
	local p=$1 c
	for c in $(pgrep -P "$p"); do
		case $(cat "/proc/$c/comm" 2>/dev/null) in qemu-system*) echo "$c"; return 0 ;; esac
		qemu_pid "$c" && return 0
	done
	return 1
}
# nanoseconds on a CPU, all threads (schedstat: run time, wait time, slices)
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{n += $1} END {printf "%.0f\n", n}'; }

: >"$out/host.tsv"
declare -A seen
q=
while kill -0 $rig 2>/dev/null; do
	[ -n "$q" ] || q=$(qemu_pid $rig)
	for f in "$out"/raw/*.t0 "$out"/raw/*.t1; do
		[ -e "$f" ] && [ -z "${seen[$f]:-}" ] || continue
		seen[$f]=1
		n=${f##*/}
		printf '%s\t%s\t%s\n' "${n%.*}" "${n##*.}" "$(cpu_ns "$q")" >>"$out/host.tsv"
	done
	sleep 0.02
done
wait $rig
