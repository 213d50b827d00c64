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
# the device x mechanism suite over the driver: synchronous path and the vfio queues, on the
# 512 B (nsid 1) and 4 KiB (nsid 2) LBA namespaces
for ns in 1 2; do
	for m in sync vfio; do
		"$build/tests/test_matrix" --uri "$bdf" --mech $m --nsid $ns >"$tmp/matrix" 2>&1 ||
			{ echo "FAIL: test_matrix --mech $m --nsid $ns"; tail -20 "$tmp/matrix"; rc=1; }
		grep -- "- {uri" "$tmp/matrix"
	done
done
# The command sets over vfio: zoned (nsid 4) and PI (nsid 5) namespaces of the spare controller,
# through the tests of the library and the tools; then the FDP controller, bound to vfio-pci
# for the checks and back to nvme (before the spare: it gets its controller number back)
over() { # <label> <command...>: run, keep the output in $tmp/<label>, report
	local label=$1
	shift
	if "$@" >"$tmp/$label" 2>&1; then echo "ok: $label over vfio"; else
		echo "FAIL: $label over vfio"; tail -20 "$tmp/$label"; rc=1; return 1; fi
}
has() { grep -q -- "$1" "$tmp/$2" || { echo "FAIL: $2 over vfio lacks '$1'"; cat "$tmp/$2"; rc=1; }; }
tools=$build/tools
t0=$SECONDS
over test_zoned "$build/tests/test_zoned" --uri "$bdf" --nsid 4
over test_pi_io "$build/tests/test_pi_io" --uri "$bdf" --nsid 5
over zoned-info "$tools/xnvme" info "$bdf" --dev-nsid 4 && has "csi: 0x2" zoned-info
over zoned-reset "$tools/zoned" mgmt-reset "$bdf" --dev-nsid 4 --slba 0x0 --all
over zoned-append "$tools/zoned" append "$bdf" --dev-nsid 4 --slba 0x0 --nlb 1 &&
	has "wp: 0x0000000000000002" zoned-append
over zoned-report "$tools/zoned" report "$bdf" --dev-nsid 4 --slba 0x0 --limit 2 &&
	has "zslba: 0x0000000000001000" zoned-report
over zoned-finish "$tools/zoned" mgmt-finish "$bdf" --dev-nsid 4 --slba 0x0
over pi-tool "$tools/lblk" write-read-pi "$bdf" --dev-nsid 5 --slba 0x10 --nlb 7 &&
	has "nverified: 8, ndiff: 0" pi-tool
fdp=${XNVME_QEMU_FDP_PCI_BDF:-}
if [ -n "$fdp" ] && "$drv" bind "$fdp" >"$tmp/fdp-bind" 2>&1; then
	over test_fdp "$build/tests/test_fdp" --uri "$fdp"
	over fdp-ruhs "$tools/xnvme" fdp-ruhs "$fdp" --limit 8 && has "nruhsd: 8" fdp-ruhs
	over fdp-config "$tools/xnvme" log-fdp-config "$fdp" --data-nbytes 4096 --lsi 0x1 &&
		has "nruh: 8" fdp-config
	"$drv" unbind "$fdp" >/dev/null || { echo "FAIL: xnvme-driver unbind $fdp"; rc=1; }
elif [ -n "$fdp" ]; then
	echo "FAIL: xnvme-driver bind $fdp (the FDP controller)"; cat "$tmp/fdp-bind"; rc=1
fi
echo "command sets over vfio: $((SECONDS - t0)) s"
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
