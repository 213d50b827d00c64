#!/usr/bin/env bash
# The "tcp" backend against the Linux kernel's NVMe/TCP target, inside the QEMU guest: exports
# the guest's 512-byte QEMU namespace through nvmet-tcp on 127.0.0.1:4420 (configfs), runs
# tests/test_tcp against it (without and with digests; it overwrites the namespace's first
# 16 MiB), reads what the initiator wrote back through the block device, cross-checks data with
# the kernel's own initiator (nvme connect) both ways, runs the device x mechanism matrix over
# TCP on it and on a null_blk namespace, removes the target's port during I/O
# (xnvmeperf must fail and exit, not hang), and removes the configuration. Given a fio binary
# built against this library, fio's xnvme engine verifies data over the backend too; given
# NVMEFS_EXTENSION (built against this library), part of DuckDB's nvmefs suite runs on the
# target. Exit 0 pass, 1 fail, 77 skip (not in the guest, or no nvmet-tcp).
#
#   usage: tcp_target.sh <build dir> [fio binary]
set -u
build=$(realpath "${1:?usage: tcp_target.sh <build dir> [fio]}")
FAB_LABEL=tcp_target
# shellcheck source=fabrics_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/fabrics_lib.sh"
fio=${2:-}
dev=${XNVME_QEMU_NVM_BLK:-}
[ -n "${XNVME_QEMU_GUEST:-}" ] && [ -n "$dev" ] || exit 77
modprobe nvmet-tcp 2>/dev/null || exit 77
ip link set lo up
S=/sys/kernel/config/nvmet
[ -d "$S" ] || mount -t configfs none /sys/kernel/config
[ -d "$S" ] || exit 77

nqn=nqn.2024-01.io.xnvme:guest
port=$S/ports/11
cleanup() {
	rm -f "$port/subsystems/$nqn"
	[ -e "$S/subsystems/$nqn/namespaces/3/enable" ] && echo 0 >"$S/subsystems/$nqn/namespaces/3/enable"
	[ -d "$S/subsystems/$nqn/namespaces/3" ] && rmdir "$S/subsystems/$nqn/namespaces/3"
	[ -e "$S/subsystems/$nqn/namespaces/2/enable" ] && echo 0 >"$S/subsystems/$nqn/namespaces/2/enable"
	[ -d "$S/subsystems/$nqn/namespaces/2" ] && rmdir "$S/subsystems/$nqn/namespaces/2"
	[ -d "$port" ] && rmdir "$port"
	[ -e "$S/subsystems/$nqn/namespaces/1/enable" ] && echo 0 >"$S/subsystems/$nqn/namespaces/1/enable"
	[ -d "$S/subsystems/$nqn/namespaces/1" ] && rmdir "$S/subsystems/$nqn/namespaces/1"
	[ -d "$S/subsystems/$nqn" ] && rmdir "$S/subsystems/$nqn"
}
trap cleanup EXIT

mkdir "$S/subsystems/$nqn" &&
	echo 1 >"$S/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$S/subsystems/$nqn/namespaces/1" &&
	echo -n "$dev" >"$S/subsystems/$nqn/namespaces/1/device_path" &&
	echo 1 >"$S/subsystems/$nqn/namespaces/1/enable" &&
	mkdir "$port" &&
	echo 127.0.0.1 >"$port/addr_traddr" && echo tcp >"$port/addr_trtype" &&
	echo 4420 >"$port/addr_trsvcid" && echo ipv4 >"$port/addr_adrfam" &&
	ln -s "$S/subsystems/$nqn" "$port/subsystems/$nqn" || {
	echo "tcp_target: configuring nvmet-tcp failed"
	exit 1
}

"$build/tests/test_tcp" --uri 127.0.0.1:4420 --subnqn "$nqn"
rc=$?

# The initiator's last vectored write (LBA 1000, 32 KiB) as the kernel's block layer sees it:
# not all zeroes (the namespace starts zeroed)
if [ $rc -eq 0 ]; then
	if dd if="$dev" bs=512 skip=1000 count=64 iflag=direct status=none | cmp -s - <(head -c 32768 /dev/zero); then
		echo "tcp_target: data written over TCP is not on the namespace"
		rc=1
	fi
fi

# The device x mechanism matrix over TCP: the QEMU namespace (1) and a memory-backed null_blk
# device exported as namespace 3, through the tcp backend's own queues and sync path and the
# backend-neutral emu, thrpool and nil queues (data written, read back and compared)
if [ $rc -eq 0 ]; then
	ns3=$S/subsystems/$nqn/namespaces/3
	if modprobe null_blk nr_devices=1 gb=1 memory_backed=1 && [ -b /dev/nullb0 ] &&
		mkdir "$ns3" && echo -n /dev/nullb0 >"$ns3/device_path" && echo 1 >"$ns3/enable"; then
		fab_matrix "127.0.0.1:4420?subnqn=$nqn" tcp TCP || rc=1
		echo 0 >"$ns3/enable"
		rmdir "$ns3"
	else
		echo "tcp_target: exporting a memory-backed null_blk device failed"
		rc=1
	fi
	modprobe -r null_blk 2>/dev/null
fi

# The PI namespace (512 B + 8 B separate metadata, PI type 1) as namespace 2: nvmet-tcp moves
# no metadata, so the kernel target exports it without any (its block layer generates and checks
# the PI): the initiator sees plain 512-byte LBAs, what it writes reads back through the local
# block device (whose reads check the PI), and a separate metadata buffer is refused
if [ $rc -eq 0 ] && [ -n "${XNVME_QEMU_PI_BLK:-}" ]; then
	ns2=$S/subsystems/$nqn/namespaces/2
	tmp=$(mktemp -d)
	head -c 4096 /dev/urandom >"$tmp/pi.bin"
	head -c 64 /dev/zero >"$tmp/md.bin"
	tcpargs=(127.0.0.1:4420 --subnqn "$nqn" --dev-nsid 2)
	if mkdir "$ns2" && echo -n "$XNVME_QEMU_PI_BLK" >"$ns2/device_path" && echo 1 >"$ns2/enable"; then
		"$build/tools/xnvme" info "${tcpargs[@]}" >"$tmp/info.txt" 2>&1
		if grep -q "lba_nbytes: 512$" "$tmp/info.txt" && grep -q "nbytes_oob: 0$" "$tmp/info.txt" &&
			"$build/tools/lblk" write "${tcpargs[@]}" --nsid 2 --slba 0x10 --nlb 7 \
				--data-input "$tmp/pi.bin" >"$tmp/w.log" 2>&1 &&
			dd if="$XNVME_QEMU_PI_BLK" bs=512 skip=16 count=8 iflag=direct status=none |
			cmp -s - "$tmp/pi.bin"; then
			if "$build/tools/lblk" write "${tcpargs[@]}" --nsid 2 --slba 0x10 --nlb 7 \
				--data-input "$tmp/pi.bin" --meta-input "$tmp/md.bin" >"$tmp/m.log" 2>&1; then
				echo "tcp_target: a separate metadata buffer was accepted over TCP"
				rc=1
			else
				echo "tcp_target: the PI namespace is plain 512 B over TCP; data and PI check out"
			fi
		else
			echo "tcp_target: the PI namespace over TCP:"
			cat "$tmp/info.txt" "$tmp/w.log" 2>/dev/null | tail -40
			rc=1
		fi
		echo 0 >"$ns2/enable"
		rmdir "$ns2"
	else
		echo "tcp_target: exporting the PI namespace failed"
		rc=1
	fi
	rm -rf "$tmp"
fi

# The kernel's initiator against the same target: it sees what ours wrote, and ours reads what
# it wrote (lblk over the tcp backend); fio 3.33's xnvme engine verifying its data over the
# backend (fabrics_lib.sh)
if [ $rc -eq 0 ]; then
	fab_kernel_cross tcp 127.0.0.1 "$nqn" "$dev" 1000 64 tcp || rc=1
fi
if [ $rc -eq 0 ] && [ -n "$fio" ] && [ -x "$fio" ]; then
	fab_fio "$fio" 127.0.0.1 "$nqn" tcp || rc=1
elif [ -z "$fio" ]; then
	echo "tcp_target: no fio binary given (skipping fio)"
fi

# DuckDB's nvmefs extension on the target (they format the namespace): the secret's DEVICE is the
# URI with its subnqn option, raw byte checks go through the exported block device. Needs
# NVMEFS_EXTENSION built against this library and XNVME_GUEST_PYTHON (the interpreter with duckdb
# and pytest).
if [ $rc -eq 0 ] && [ -n "${NVMEFS_EXTENSION:-}" ]; then
	suite=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../duckdb/tests" && pwd)
	# The whole suite over TCP ran for more than 16 minutes under TCG (a loaded host), far past
	# this step's budget of about 3: a selection of the tests that put the device (here the TCP
	# target) under the extension, from every test file but one: storage round trips and the
	# unaligned WAL, crash recovery, torn and corrupted metadata, formatting refusals, no FDP
	# directive on a namespace without FDP, and concurrent clients (a queue, so a connection,
	# per thread). Not test_spill.py: its module fixture first runs four spill queries locally,
	# then one spills to the device; alone that took over 6 minutes here. Spilling through the
	# extension runs on the local namespaces in run_suite.sh, and the rest (secret parsing
	# without a device, repeated crashes) there and on the host.
	sel="ramdisk_roundtrip or many_small_commits or crash_after_commits or torn_metadata"
	sel+=" or corruption_is_refused or format_refuses or unformatted_and_foreign"
	sel+=" or no_fdp_no_directive or concurrent_clients"
	if env NVMEFS_TEST_DEVICE="127.0.0.1:4420?subnqn=$nqn" NVMEFS_TEST_RAW="$dev" \
		NVMEFS_TEST_OPTS="ASYNC 'tcp'" "${XNVME_GUEST_PYTHON:-python3}" -m pytest -v -rs --durations=0 \
		-p no:cacheprovider -k "$sel" "$suite"; then
		echo "tcp_target: DuckDB's nvmefs tests (a selection) pass over TCP"
	else
		echo "tcp_target: DuckDB's nvmefs tests failed over TCP"
		rc=1
	fi
fi

# Hostile-target cases through a fault-injecting proxy in front of the kernel's target
# (truncated and oversized PDUs, data for an unknown CID or outside the command, wrong digests,
# the connection dropped mid-C2HData, a stall past the command timeout, a target gone silent
# while the initiator waits on the completion fd alone): the command fails, the queue reports
# it, nothing hangs, and a fresh connection reads back what it writes
if [ $rc -eq 0 ]; then
	if "${XNVME_GUEST_PYTHON:-python3}" "$(dirname "${BASH_SOURCE[0]}")/tcp_fault_proxy.py" \
		"$build/tests/guest/test_tcp_proxy" 4420 4421 "$nqn"; then
		echo "tcp_target: the fault-injecting proxy's cases pass"
	else
		echo "tcp_target: a fault-injecting proxy case failed"
		rc=1
	fi
fi

# The target's port removed during I/O: the initiator's commands fail and it exits, no hang
if [ $rc -eq 0 ]; then
	fab_under_load "the port was removed" "127.0.0.1:4420?subnqn=$nqn" tcp 1 \
		rm -f "$port/subsystems/$nqn" || rc=1
fi
exit $rc
