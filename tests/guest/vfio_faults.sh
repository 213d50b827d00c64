#!/usr/bin/env bash
# Faults of the vfio backend in the QEMU guest (tests/qemu/rig.sh run --vfio [--slow]):
#  - the hot-plug controller (serial qhot0) bound to vfio-pci: memory the device cannot reach
#    and transfers beyond MDTS refused; then QEMU device_del of it (asked of the host through
#    $XNVME_QEMU_DEVICE_DEL) while reads are in flight: the commands fail, the program exits
#    cleanly in bounded time, the kernel relays the request to the driver and completes the
#    removal (the function disappears);
#  - with --slow, the slow controller (serial qslow0) bound to vfio-pci: a read that outlives
#    command_timeout is aborted, the controller reset and usable again; given back to nvme after.
#   usage: vfio_faults.sh <build dir>    exit 0 pass, 1 fail, 77 skip
set -u
build=$(realpath "${1:?usage: vfio_faults.sh <build dir>}")
prog=$build/tests/guest/test_vfio_faults
drv=$(dirname "$0")/../../tools/xnvme-driver
hot=${XNVME_QEMU_HOT_PCI_BDF:-}
slow=${XNVME_QEMU_SLOW_PCI_BDF:-}
[ -n "$hot" ] && [ -n "${XNVME_QEMU_DEVICE_DEL:-}" ] ||
	{ echo "skip: no hot-plug controller (rig.sh run --vfio)"; exit 77; }
modprobe vfio-pci || { echo "skip: no vfio-pci module"; exit 77; }
driver_is() { [ "$(basename "$(readlink "/sys/bus/pci/devices/$1/driver")")" = "$2" ]; }
rc=0

# the read must outlive its 1 s timeout and the 1 s the driver gives the Abort
if [ -n "$slow" ] && [ "${XNVME_QEMU_SLOW_LATENCY_MS:-0}" -lt 3000 ]; then
	echo "skip: the slow controller answers within ${XNVME_QEMU_SLOW_LATENCY_MS:-?} ms (< 3 s)"
	slow=
fi
if [ -n "$slow" ]; then
	t0=$SECONDS
	"$drv" bind "$slow" >/dev/null && driver_is "$slow" vfio-pci ||
		{ echo "FAIL: xnvme-driver bind $slow"; exit 1; }
	"$prog" slow "$slow" || { echo "FAIL: test_vfio_faults slow"; rc=1; }
	"$drv" unbind "$slow" >/dev/null && driver_is "$slow" nvme ||
		{ echo "FAIL: xnvme-driver unbind $slow"; rc=1; }
	for _ in $(seq 100); do [ -c "${XNVME_QEMU_SLOW_CHR:-/nonexistent}" ] && break; sleep 0.1; done
	[ -c "${XNVME_QEMU_SLOW_CHR:-/nonexistent}" ] ||
		{ echo "FAIL: ${XNVME_QEMU_SLOW_CHR:-the slow namespace} is not back with nvme"; rc=1; }
	echo "slow controller over vfio: $((SECONDS - t0)) s"
fi

t0=$SECONDS
"$drv" bind "$hot" >/dev/null && driver_is "$hot" vfio-pci ||
	{ echo "FAIL: xnvme-driver bind $hot"; exit 1; }
"$prog" refuse "$hot" || { echo "FAIL: test_vfio_faults refuse"; rc=1; }
rm -f "$XNVME_QEMU_DEVICE_DEL.done"
t1=$SECONDS
timeout 60 "$prog" remove "$hot" nvmehot || { echo "FAIL: test_vfio_faults remove"; rc=1; }
echo "the program exited $((SECONDS - t1)) s after it started"
gone=0
for _ in $(seq 300); do
	[ -e "/sys/bus/pci/devices/$hot" ] || { gone=1; break; }
	sleep 0.1
done
[ "$gone" = 1 ] && echo "ok: the kernel completed the removal of $hot" ||
	{ echo "FAIL: $hot still present 30 s after the program exited"; rc=1; }
grep -qx ok "$XNVME_QEMU_DEVICE_DEL.done" 2>/dev/null ||
	{ echo "FAIL: device_del: $(cat "$XNVME_QEMU_DEVICE_DEL.done" 2>&1)"; rc=1; }
dmesg | grep -q "$hot: Relaying device request to user" &&
	echo "ok: the kernel relayed the removal request to the driver" ||
	{ echo "FAIL: no device request relayed to the driver"; dmesg | grep "$hot" | tail; rc=1; }
echo "hot-plug controller over vfio: $((SECONDS - t0)) s"
exit $rc
