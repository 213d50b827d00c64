#!/usr/bin/env bash
# The "tcp" backend against the Linux kernel's NVMe/TCP target, inside the QEMU guest: exports
# the guest's 512-byte QEMU namespace through nvmet-tcp on 127.0.0.1:4420 (configfs), runs
# tests/test_tcp against it (without and with digests; it overwrites the namespace's first
# 16 MiB), then reads a block the initiator wrote back through the block device and removes the
# configuration. Exit 0 pass, 1 fail, 77 skip (not in the guest, or no nvmet-tcp).
#
#   usage: tcp_target.sh <build dir>
set -u
build=$(realpath "${1:?usage: tcp_target.sh <build dir>}")
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
exit $rc
