#!/usr/bin/env bash
# Side-by-side 4 KiB random reads on the spare controller of `rig.sh run --vfio`: xnvmeperf over
# io_uring_cmd (/dev/ng), io_uring (/dev/nvme, O_DIRECT), then over vfio after binding the
# function to vfio-pci (left bound: reboot or rebind afterwards). Not a timed test.
#   tests/qemu/rig.sh run --vfio -- bench/vfio_guest.sh <build dir> [seconds]
set -u
b=$(realpath "${1:?usage: vfio_guest.sh <build dir> [seconds]}")
t=${2:-3}
bdf=${XNVME_QEMU_SPARE_PCI_BDF:?run in the guest of rig.sh run --vfio}
perf() { echo "== $1 qd $2"; shift 2; "$b/tools/xnvmeperf" "$@" --runtime "$t" --size 64m 2>&1 | tail -4; }
for qd in 1 32; do
	perf io_uring_cmd $qd "$XNVME_QEMU_SPARE_CHR" --async io_uring_cmd --qdepth $qd
	perf io_uring $qd "$XNVME_QEMU_SPARE_BLK" --async io_uring --direct --qdepth $qd
done
modprobe vfio-pci
dev=/sys/bus/pci/devices/$bdf
echo "$bdf" >"$dev/driver/unbind"
echo vfio-pci >"$dev/driver_override"
echo "$bdf" >/sys/bus/pci/drivers_probe
for qd in 1 32; do
	perf vfio $qd "$bdf" --qdepth $qd
done
