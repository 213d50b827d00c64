#!/usr/bin/env bash
# The vfio backend in the QEMU guest (tests/qemu/rig.sh run --vfio): binds the spare controller
# (serial qspare0) to vfio-pci, runs test_vfio on it, binds it back to nvme and reads through
# the kernel what the driver wrote; given a fio binary (fio 3.33 built against this library),
# fio's xnvme engine also verifies data over vfio.
#   usage: vfio.sh <build dir> [fio]    exit 0 pass, 1 fail, 77 skip
set -u
build=$(realpath "${1:?usage: vfio.sh <build dir> [fio]}")
fio=${2:-}
bdf=${XNVME_QEMU_SPARE_PCI_BDF:-}
blk=${XNVME_QEMU_SPARE_BLK:-}
[ -n "$bdf" ] && [ -n "$blk" ] || { echo "skip: no spare controller (rig.sh run --vfio)"; exit 77; }
prog=$build/tests/guest/test_vfio
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dev=/sys/bus/pci/devices/$bdf

drv=$(dirname "$0")/../../tools/xnvme-driver
driver_is() { [ "$(basename "$(readlink "$dev/driver")")" = "$1" ]; }

# the kernel writes seed 1 at LBA 300000 for the driver to read (clear of the matrix LBAs)
"$prog" gen 1 65536 "$tmp/seed1" && "$prog" gen 2 65536 "$tmp/seed2" || exit 1
dd if="$tmp/seed1" of="$blk" bs=512 seek=300000 oflag=direct conv=notrunc status=none || exit 1

modprobe vfio-pci || { echo "skip: no vfio-pci module"; exit 77; }
grp=$(basename "$(readlink "$dev/iommu_group" 2>/dev/null)" 2>/dev/null)
[ -n "$grp" ] || { echo "skip: $bdf has no IOMMU group (boot with --vfio)"; exit 77; }
"$drv" bind "$bdf" && driver_is vfio-pci || { echo "FAIL: xnvme-driver bind $bdf"; exit 1; }
"$drv" status | grep -q "^$bdf *vfio-pci *$grp */dev/vfio/$grp" ||
	{ echo "FAIL: xnvme-driver status"; "$drv" status; exit 1; }

rc=0
echo 8 >/proc/sys/vm/nr_hugepages # 16 MiB: buffers of 1 MiB and more come from hugepages
"$prog" run "$bdf" || rc=1
echo 0 >/proc/sys/vm/nr_hugepages
# the device x mechanism suite over the driver: synchronous path and the vfio queues
for m in sync vfio; do
	"$build/tests/test_matrix" --uri "$bdf" --mech $m >"$tmp/matrix" 2>&1 ||
		{ echo "FAIL: test_matrix --mech $m"; tail -20 "$tmp/matrix"; rc=1; }
	grep -- "- {uri" "$tmp/matrix"
done
if [ -n "$fio" ] && [ -x "$fio" ]; then
	# fio's xnvme engine on the PCI address (colons escaped), async vfio, crc32c verify
	"$fio" --name=vfio-verify --ioengine=xnvme --thread=1 --filename="${bdf//:/\\:}" \
		--xnvme_dev_nsid=1 --xnvme_async=vfio --rw=randwrite --bs=4k --size=8m --iodepth=16 \
		--verify=crc32c --do_verify=1 --output-format=terse --terse-version=3 >"$tmp/fio" 2>&1 &&
		[ "$(cut -d';' -f5 "$tmp/fio" | tail -1)" = 0 ] && echo "ok: fio xnvme engine verify over vfio" ||
		{ echo "FAIL: fio over vfio"; tail -5 "$tmp/fio"; rc=1; }
fi
# 8 queue threads and 4 sync threads on one handle; handles and queues created over and over
# (fds and memory must not grow; each open brings the controller up, each close shuts it down)
"$build/tests/test_threads" --uri "$bdf" --seconds 2 --rounds 3 >"$tmp/threads" 2>&1 ||
	{ echo "FAIL: test_threads"; grep -v "^# skip\|has no async" "$tmp/threads" | tail -20; rc=1; }
"$build/tests/test_churn" --uri "$bdf" --cycles 20 >"$tmp/churn" 2>&1 ||
	{ echo "FAIL: test_churn"; grep -v "^# skip\|has no async" "$tmp/churn" | tail -20; rc=1; }
grep -h -- "mech: vfio" "$tmp/threads" "$tmp/churn"
"$build/tools/xnvme" info "$bdf" --dev-nsid 2 >"$tmp/info" 2>&1 &&
	grep -q "lba_nbytes: 4096" "$tmp/info" ||
	{ echo "FAIL: xnvme info over vfio"; cat "$tmp/info"; rc=1; }

# unbinding a function a process holds would block in the kernel: refused instead
"$prog" hold "$bdf" 60 "$tmp/held" &
holder=$!
for _ in $(seq 300); do [ -e "$tmp/held" ] && break; sleep 0.1; done
[ -e "$tmp/held" ] || { echo "FAIL: test_vfio hold did not open $bdf"; rc=1; }
if "$drv" unbind "$bdf" 2>"$tmp/unbind"; then
	echo "FAIL: xnvme-driver unbind succeeded while process $holder held the function"; rc=1
fi
grep -q "in use by process(es) $holder" "$tmp/unbind" ||
	{ echo "FAIL: unbind message"; cat "$tmp/unbind"; rc=1; }
kill $holder
wait $holder
"$drv" unbind "$bdf" && driver_is nvme || { echo "FAIL: xnvme-driver unbind $bdf"; exit 1; }
for _ in $(seq 100); do [ -b "$blk" ] && break; sleep 0.1; done
dd if="$blk" of="$tmp/back" bs=512 skip=310000 count=128 iflag=direct status=none || rc=1
if cmp -s "$tmp/back" "$tmp/seed2"; then
	echo "ok: the kernel driver reads what vfio wrote"
else
	echo "FAIL: data written through vfio differs when read through the kernel"; rc=1
fi
exit $rc
