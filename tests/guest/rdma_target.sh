#!/usr/bin/env bash
# The "rdma" backend against the Linux kernel's NVMe/RDMA target, inside the QEMU guest: a
# soft-RoCE device on a veth pair (rxe_env.sh) carries an address that exists only in the guest,
# and nvmet-rdma exports on it the guest's 512-byte QEMU namespace (nsid 1) and a memory-backed
# null_blk device (nsid 3), and, in a second subsystem, a null_blk device that completes every
# command after 5 s (a target that stops answering). Runs:
#  - tests/test_tcp --be rdma (the transport-independent checks: discovery, sizes in and beyond
#    the capsule, vectors, admin errors, async queues of depth 1/8/32 through the completion fd;
#    with memory windows and with "?mw=0"), tests/guest/test_rdma (every kind of memory, keep-
#    alive, timeouts against the silent subsystem), reads back what they wrote through the local
#    block device;
#  - the device x mechanism matrix over RDMA on both namespaces;
#  - the kernel's own initiator (nvme connect -t rdma) against the same subsystem, both ways;
#  - fio 3.33's xnvme engine verifying data (given a fio binary), DuckDB's nvmefs tests, a
#    selection (given NVMEFS_EXTENSION);
#  - faults: the target's port removed during I/O, then the RDMA device itself deleted during
#    I/O (xnvmeperf must fail its commands and exit, not hang; the deletion must complete).
# Exit 0 pass, 1 fail, 77 skip (not in the guest, or no soft-RoCE / nvmet-rdma).
#
#   usage: rdma_target.sh <build dir> [fio binary]
set -u
build=$(realpath "${1:?usage: rdma_target.sh <build dir> [fio]}")
fio=${2:-}
dev=${XNVME_QEMU_NVM_BLK:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAB_LABEL=rdma_target
# shellcheck source=fabrics_lib.sh
. "$here/fabrics_lib.sh"
[ -n "${XNVME_QEMU_GUEST:-}" ] && [ -n "$dev" ] || exit 77
# shellcheck source=rxe_env.sh
. "$here/rxe_env.sh"
rxe_up || { echo "rdma_target: no soft-RoCE device (rdma_rxe)"; exit 77; }
modprobe nvmet-rdma 2>/dev/null || exit 77
S=/sys/kernel/config/nvmet
N=/sys/kernel/config/nullb
[ -d "$S" ] || mount -t configfs none /sys/kernel/config
modprobe null_blk nr_devices=0 2>/dev/null
[ -d "$S" ] && [ -d "$N" ] || exit 77

nqn=nqn.2024-01.io.xnvme:rdma
slow=nqn.2024-01.io.xnvme:rdma-slow
port=$S/ports/31
uri="$RXE_ADDR:4420"
rc=0

# nullb <name> <MiB> <attr=value>...: a null_blk device through configfs; prints its node
# (Linux 6.1 names the disk after the configfs directory, older kernels nullb<index>)
nullb() {
	local name=$1 d=$N/$1 kv
	mkdir "$d" && echo "$2" >"$d/size" || return 1
	shift 2
	for kv in "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || return 1
	done
	echo 1 >"$d/power" || return 1
	if [ -b "/dev/$name" ]; then echo "/dev/$name"; else echo "/dev/nullb$(cat "$d/index")"; fi
}
ns() { # <subsystem> <nsid> <device>
	mkdir "$S/subsystems/$1/namespaces/$2" && echo -n "$3" >"$S/subsystems/$1/namespaces/$2/device_path" &&
		echo 1 >"$S/subsystems/$1/namespaces/$2/enable"
}
cleanup() {
	nvme disconnect -n "$nqn" >/dev/null 2>&1
	for s in "$nqn" "$slow"; do
		rm -f "$port/subsystems/$s"
		for n in 1 3; do
			[ -e "$S/subsystems/$s/namespaces/$n/enable" ] && echo 0 >"$S/subsystems/$s/namespaces/$n/enable"
			[ -d "$S/subsystems/$s/namespaces/$n" ] && rmdir "$S/subsystems/$s/namespaces/$n"
		done
	done
	[ -d "$port" ] && rmdir "$port"
	for s in "$nqn" "$slow"; do
		[ -d "$S/subsystems/$s" ] && rmdir "$S/subsystems/$s"
	done
	for d in xrdma0 xrdma1; do
		[ -d "$N/$d" ] && { echo 0 >"$N/$d/power"; rmdir "$N/$d"; }
	done
	modprobe -r null_blk 2>/dev/null
	rxe_down
}
trap cleanup EXIT

mem=$(nullb xrdma0 1024 memory_backed=1) && slowdev=$(nullb xrdma1 64 irqmode=2 completion_nsec=5000000000) &&
	mkdir "$S/subsystems/$nqn" "$S/subsystems/$slow" &&
	echo 1 >"$S/subsystems/$nqn/attr_allow_any_host" && echo 1 >"$S/subsystems/$slow/attr_allow_any_host" &&
	ns "$nqn" 1 "$dev" && ns "$nqn" 3 "$mem" && ns "$slow" 1 "$slowdev" &&
	mkdir "$port" && echo "$RXE_ADDR" >"$port/addr_traddr" && echo rdma >"$port/addr_trtype" &&
	echo 4420 >"$port/addr_trsvcid" && echo ipv4 >"$port/addr_adrfam" &&
	ln -s "$S/subsystems/$nqn" "$port/subsystems/$nqn" && ln -s "$S/subsystems/$slow" "$port/subsystems/$slow" || {
	echo "rdma_target: configuring nvmet-rdma failed"
	exit 1
}
step() { echo "rdma_target: $* ($(date +%s.%N | cut -c1-14))"; }

step "test_tcp --be rdma"
"$build/tests/test_tcp" --uri "$uri" --subnqn "$nqn" --be rdma || rc=1
step "test_rdma"
"$build/tests/guest/test_rdma" "$uri" "$nqn" --slow "$slow" || rc=1

# test_tcp's last vectored write (LBA 1000, 32 KiB) and test_rdma's (LBA 2048, 64 KiB) as the
# local block layer sees them: not all zeroes (the namespace starts zeroed)
for r in "1000 64" "2048 128"; do
	set -- $r
	if dd if="$dev" bs=512 skip="$1" count="$2" iflag=direct status=none | cmp -s - <(head -c $(($2 * 512)) /dev/zero); then
		echo "rdma_target: data written over RDMA is not on the namespace at LBA $1"
		rc=1
	fi
done

# The device x mechanism matrix over RDMA: the QEMU namespace and null_blk
if [ $rc -eq 0 ]; then
	step "matrix"
	fab_matrix "$uri?subnqn=$nqn" rdma RDMA || rc=1
fi

# The kernel's initiator against the same target, both ways (lblk over the rdma backend); fio
# 3.33's xnvme engine verifying its data over the backend (fabrics_lib.sh)
if [ $rc -eq 0 ]; then
	step "kernel initiator"
	fab_kernel_cross rdma "$RXE_ADDR" "$nqn" "$dev" 2048 128 rdma strict || rc=1
fi
if [ $rc -eq 0 ] && [ -n "$fio" ] && [ -x "$fio" ]; then
	step "fio"
	fab_fio "$fio" "$RXE_ADDR" "$nqn" rdma || rc=1
elif [ -z "$fio" ]; then
	echo "rdma_target: no fio binary given (skipping fio)"
fi

# DuckDB's nvmefs extension on the target: the selection of tcp_target.sh that puts the device
# under the extension (storage round trips, crash recovery, torn metadata, refusals, concurrent
# clients), less the two slowest of it here (many small commits, formatting refusals): the
# transport below the extension is what differs from the TCP run
if [ $rc -eq 0 ] && [ -n "${NVMEFS_EXTENSION:-}" ]; then
	step "duckdb"
	suite=$(cd "$here/../../duckdb/tests" && pwd)
	sel="ramdisk_roundtrip or crash_after_commits or torn_metadata or corruption_is_refused"
	sel+=" or unformatted_and_foreign or no_fdp_no_directive or concurrent_clients"
	if env NVMEFS_TEST_DEVICE="$uri?subnqn=$nqn" NVMEFS_TEST_RAW="$dev" \
		NVMEFS_TEST_OPTS="ASYNC 'rdma'" "${XNVME_GUEST_PYTHON:-python3}" -m pytest -v -rs \
		--durations=0 -p no:cacheprovider -k "$sel" "$suite"; then
		echo "rdma_target: DuckDB's nvmefs tests (a selection) pass over RDMA"
	else
		echo "rdma_target: DuckDB's nvmefs tests failed over RDMA"
		rc=1
	fi
fi

if [ $rc -eq 0 ]; then
	step "faults"
	# on the null_blk namespace: no local device below the target that could stall its teardown
	fab_under_load "the target's port was removed" "$uri?subnqn=$nqn" rdma 3 \
		rm -f "$port/subsystems/$nqn" || rc=1
	ln -s "$S/subsystems/$nqn" "$port/subsystems/$nqn"
	# the device goes: `rdma link delete` waits until every user of it let go
	deleter() {
		rdma link delete "$RXE_DEV" &
		delpid=$!
	}
	fab_under_load "the RDMA device was deleted" "$uri?subnqn=$nqn" rdma 3 deleter || rc=1
	for _ in $(seq 600); do
		kill -0 "$delpid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$delpid" 2>/dev/null; then
		echo "rdma_target: deleting the RDMA device does not complete (its users hold it):"
		rdma resource show 2>&1 | head -20
		ls -l /proc/[0-9]*/fd 2>/dev/null | grep -B1 infiniband | head
		dmesg | tail -30
		kill -9 "$delpid"
		rc=1
	else
		echo "rdma_target: the RDMA device was deleted once the initiator let go"
	fi
fi
step "done"
exit $rc
