#!/usr/bin/env bash
# Inside the QEMU guest (tests/qemu/rig.sh run -- bash bench/tcp_vs_kernel.sh <build dir>):
# exports a null_blk device through nvmet-tcp on 127.0.0.1:4420 and runs xnvmeperf 4 KiB
# random reads at QD1 and QD32 through the tcp backend and through the kernel's initiator
# (nvme connect; io_uring with O_DIRECT on the block device it creates). Prints one
# JSON line per run. Under TCG target and initiators share the guest's CPUs: compare the
# ratios, not the absolute numbers.
set -u
build=$(realpath "${1:?usage: tcp_vs_kernel.sh <build dir> [seconds]}")
secs=${2:-5}
modprobe null_blk nr_devices=1 gb=1 || exit 77
modprobe nvmet-tcp || exit 77
modprobe nvme-tcp || exit 77
ip link set lo up
S=/sys/kernel/config/nvmet
[ -d "$S" ] || mount -t configfs none /sys/kernel/config
nqn=nqn.2024-01.io.xnvme:bench
mkdir $S/subsystems/$nqn && echo 1 >$S/subsystems/$nqn/attr_allow_any_host &&
	mkdir $S/subsystems/$nqn/namespaces/1 &&
	echo -n /dev/nullb0 >$S/subsystems/$nqn/namespaces/1/device_path &&
	echo 1 >$S/subsystems/$nqn/namespaces/1/enable && mkdir $S/ports/12 &&
	echo 127.0.0.1 >$S/ports/12/addr_traddr && echo tcp >$S/ports/12/addr_trtype &&
	echo 4420 >$S/ports/12/addr_trsvcid && echo ipv4 >$S/ports/12/addr_adrfam &&
	ln -s $S/subsystems/$nqn $S/ports/12/subsystems/$nqn || exit 1

perf() {
	local uri=$1 qd=$2
	shift 2
	echo "# $uri qd $qd $*"
	"$build/tools/xnvmeperf" "$uri" --qdepth "$qd" --runtime "$secs" --size 256m --no-progress \
		--json "$@"
}
for qd in 1 32; do
	perf "127.0.0.1:4420?subnqn=$nqn" $qd
done
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e1f0000-0000-4000-8000-00000000be0c
nvme connect -t tcp -a 127.0.0.1 -s 4420 -n $nqn --hostnqn $hostnqn >/dev/null || exit 1
sleep 1
kdev=$(for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/subsysnqn")" = "$nqn" ] && ls -d "$c"/nvme*n1 2>/dev/null | head -1
done)
kdev=/dev/$(basename "$kdev")
for qd in 1 32; do
	perf "$kdev" $qd --async io_uring --direct
done
nvme disconnect -n $nqn >/dev/null
