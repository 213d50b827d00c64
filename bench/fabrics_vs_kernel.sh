#!/usr/bin/env bash
# NVMe over Fabrics, the library's initiators against the kernel's, inside the QEMU guest:
#
#   tests/qemu/rig.sh run --workdir $PWD -- bash bench/fabrics_vs_kernel.sh <build dir> <out dir> \
#       [seconds] [rounds]
#   bench/fabrics_report.py <out dir>      (on the host: table.md, iops_per_cpu.svg)
#
# One memory-backed null_blk namespace exported by the kernel's target on two ports: nvmet-tcp
# on 127.0.0.1:4420 and nvmet-rdma on a soft-RoCE device (tests/guest/rxe_env.sh) at
# 10.77.0.1:4420. The kernel's initiators connect to both (nvme connect -t tcp / -t rdma) and
# are driven through their block devices (io_uring, O_DIRECT); the library's initiators are
# the tcp and rdma backends. Every path runs xnvmeperf, 4 KiB random reads at QD 1, 16 and 32,
# for `seconds` (default 6), in `rounds` (default 5) interleaved rounds: each round runs every
# path once per QD, in an order rotated by one per round, so that a host whose load drifts
# shifts all paths alike. The guest's CPU time (all of it, from /proc/stat: initiator, target
# and the kernel threads, which share the guest's one vCPU) is sampled inside each run, from
# 1.5 s after its start to 1 s before its end (connection set-up left out), and gives the
# run's utilisation; IOPS per CPU-second is IOPS / utilisation. The report takes the median
# per path and QD.
#
# Then, once per path at QD32: system calls per I/O (perf stat) and where the guest's CPU goes
# (perf record -a, by command and object, and by symbol), into <out dir>/profile-*.txt.
# Output: <out dir>/runs.jsonl (one line per run) and the xnvmeperf JSON reports.
set -u
build=$(realpath "${1:?usage: fabrics_vs_kernel.sh <build dir> <out dir> [seconds] [rounds]}")
out=${2:?usage: fabrics_vs_kernel.sh <build dir> <out dir> [seconds] [rounds]}
secs=${3:-6}
rounds=${4:-5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -n "${XNVME_QEMU_GUEST:-}" ] || { echo "fabrics_vs_kernel: runs inside the QEMU guest" >&2; exit 77; }
mkdir -p "$out"
out=$(realpath "$out")
: >"$out/runs.jsonl"

# shellcheck source=../tests/guest/rxe_env.sh
. "$here/../tests/guest/rxe_env.sh"
rxe_up || { echo "fabrics_vs_kernel: no soft-RoCE device" >&2; exit 77; }
modprobe null_blk nr_devices=1 gb=1 &&
	modprobe nvmet-tcp && modprobe nvmet-rdma && modprobe nvme-tcp && modprobe nvme-rdma || exit 77
ip link set lo up
S=/sys/kernel/config/nvmet
[ -d "$S" ] || mount -t configfs none /sys/kernel/config
nqn=nqn.2024-01.io.xnvme:fabbench
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e1f0000-0000-4000-8000-00000000fab0
cleanup() {
	nvme disconnect -n $nqn >/dev/null 2>&1
	for p in 21 22; do
		rm -f $S/ports/$p/subsystems/$nqn
		[ -d $S/ports/$p ] && rmdir $S/ports/$p
	done
	[ -e $S/subsystems/$nqn/namespaces/1/enable ] && echo 0 >$S/subsystems/$nqn/namespaces/1/enable
	[ -d $S/subsystems/$nqn/namespaces/1 ] && rmdir $S/subsystems/$nqn/namespaces/1
	[ -d $S/subsystems/$nqn ] && rmdir $S/subsystems/$nqn
}
trap cleanup EXIT
port() { # <id> <trtype> <traddr>
	mkdir $S/ports/$1 && echo "$2" >$S/ports/$1/addr_trtype && echo "$3" >$S/ports/$1/addr_traddr &&
		echo 4420 >$S/ports/$1/addr_trsvcid && echo ipv4 >$S/ports/$1/addr_adrfam &&
		ln -s $S/subsystems/$nqn $S/ports/$1/subsystems/$nqn
}
mkdir $S/subsystems/$nqn && echo 1 >$S/subsystems/$nqn/attr_allow_any_host &&
	mkdir $S/subsystems/$nqn/namespaces/1 &&
	echo -n /dev/nullb0 >$S/subsystems/$nqn/namespaces/1/device_path &&
	echo 1 >$S/subsystems/$nqn/namespaces/1/enable &&
	port 21 tcp 127.0.0.1 && port 22 rdma "$RXE_ADDR" || exit 1

# the kernel's block device of a controller of transport $1 on our subsystem
kdev_of() {
	local c n
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $nqn ] && [ "$(cat "$c/transport")" = "$1" ] || continue
		for n in "$c"/nvme*n1; do
			[ -e "$n" ] && { echo "/dev/$(basename "$n")"; return 0; }
		done
	done
	return 1
}
nvme connect -t tcp -a 127.0.0.1 -s 4420 -n $nqn --hostnqn $hostnqn >/dev/null &&
	nvme connect -t rdma -a "$RXE_ADDR" -s 4420 -n $nqn --hostnqn $hostnqn >/dev/null || exit 1
for _ in $(seq 50); do
	ktcp=$(kdev_of tcp) && krdma=$(kdev_of rdma) && [ -b "$ktcp" ] && [ -b "$krdma" ] && break
	sleep 0.2
done
[ -b "${ktcp:-}" ] && [ -b "${krdma:-}" ] || { echo "fabrics_vs_kernel: nvme connect made no device" >&2; exit 1; }

# <name> -> xnvmeperf arguments
declare -A args=(
	[rdma-xnvme]="$RXE_ADDR:4420?subnqn=$nqn --be rdma"
	[rdma-xnvme-mw0]="$RXE_ADDR:4420?subnqn=$nqn&mw=0 --be rdma"
	[rdma-kernel]="$krdma --async io_uring --direct"
	[tcp-xnvme]="127.0.0.1:4420?subnqn=$nqn --be tcp"
	[tcp-kernel]="$ktcp --async io_uring --direct"
)
# FABRICS_BENCH_PATHS / FABRICS_BENCH_QDS: a subset (also rdma-xnvme-mw0: without memory windows)
read -r -a paths <<<"${FABRICS_BENCH_PATHS:-rdma-xnvme rdma-kernel tcp-xnvme tcp-kernel}"
read -r -a qds <<<"${FABRICS_BENCH_QDS:-1 16 32}"

cpu() { awk '/^cpu /{b = $2 + $3 + $4 + $7 + $8 + $9; t = b + $5 + $6; print b, t}' /proc/stat; }

# run <path> <qd> <round>: one xnvmeperf run, its report and the guest CPU inside it
run() {
	local path=$1 qd=$2 rnd=$3 f s0 s1 pid rc b0 t0 b1 t1
	f="$path-qd$qd-r$rnd.json"
	# shellcheck disable=SC2086
	"$build/tools/xnvmeperf" ${args[$path]} --qdepth "$qd" --runtime "$secs" --size 256m \
		--no-progress --json >"$out/$f" 2>"$out/$f.err" &
	pid=$!
	sleep 1.5
	s0=$(cpu)
	sleep "$(awk -v s="$secs" 'BEGIN { print s - 2.5 }')"
	s1=$(cpu)
	wait $pid
	rc=$?
	read -r b0 t0 <<<"$s0"
	read -r b1 t1 <<<"$s1"
	printf '{"path": "%s", "qd": %d, "round": %d, "file": "%s", "busy": %d, "total": %d, "rc": %d}\n' \
		"$path" "$qd" "$rnd" "$f" $((b1 - b0)) $((t1 - t0)) $rc >>"$out/runs.jsonl"
}

n=${#paths[@]}
for rnd in $(seq "$rounds"); do
	for qd in "${qds[@]}"; do
		for i in $(seq 0 $((n - 1))); do
			run "${paths[$(((i + rnd) % n))]}" "$qd" "$rnd"
		done
	done
	echo "fabrics_vs_kernel: round $rnd of $rounds done"
done

# profile <path>: QD32, system calls per I/O, then a system-wide profile
profile() {
	local path=$1 f="$out/profile-$1.txt" tmp ios
	tmp=$(mktemp -d)
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	{
		echo "# $path, xnvmeperf QD32 ${secs}s: ${args[$path]}"
		# shellcheck disable=SC2086
		ios=$(perf stat -x, -o "$tmp/stat" -e raw_syscalls:sys_enter -e syscalls:sys_enter_write \
			-e syscalls:sys_enter_poll -e syscalls:sys_enter_read \
			-e syscalls:sys_enter_io_uring_enter -e syscalls:sys_enter_sendmsg \
			-e syscalls:sys_enter_recvmsg -- "$build/tools/xnvmeperf" ${args[$path]} \
			--qdepth 32 --runtime "$secs" --size 256m --no-progress --json |
			sed -nE 's/.*"total": \{"ios": ([0-9]+).*/\1/p')
		echo "## system calls per I/O ($ios I/Os, the whole process)"
		awk -F, -v n="${ios:-0}" '$1 ~ /^[0-9]+$/ && n > 0 { printf "    %-36s %8.3f\n", $3, $1 / n }' \
			"$tmp/stat"
		# shellcheck disable=SC2086
		perf record -q -a -e cpu-clock -o "$tmp/perf.data" -- "$build/tools/xnvmeperf" \
			${args[$path]} --qdepth 32 --runtime "$secs" --size 256m --no-progress >/dev/null 2>&1
		echo "## guest CPU by command and object (perf, cpu-clock, whole guest)"
		perf report -q -i "$tmp/perf.data" --sort comm,dso --stdio 2>/dev/null | head -12
		echo "## guest CPU by symbol (top 40)"
		perf report -q -i "$tmp/perf.data" --sort comm,sym --stdio 2>/dev/null | head -40
	} >"$f" 2>&1
	rm -rf "$tmp"
}
if command -v perf >/dev/null && [ "${FABRICS_BENCH_PROFILE:-1}" = 1 ]; then
	for p in "${paths[@]}"; do
		profile "$p"
	done
fi
echo "fabrics_vs_kernel: done, $(wc -l <"$out/runs.jsonl") runs in $out"
