#!/usr/bin/env bash
# fio compatibility: fio 3.33's own `xnvme` engine, built against the installed library,
# writes and verifies data (crc32c) through each async mechanism on the ramdisk and on a file.
#   usage: run_fio_compat.sh <fio binary> <work dir>
# Prints one line per job and a closing "N passed, N failed" line; exits non-zero on failure.
set -u
fio=${1:?usage: run_fio_compat.sh <fio> <workdir>}
work=${2:?usage: run_fio_compat.sh <fio> <workdir>}
mkdir -p "$work"
img="$work/fio.img"
truncate -s 64M "$img"

pass=0
fail=0
run() {
	local name=$1
	shift
	if "$fio" --name="$name" --ioengine=xnvme --thread=1 --output-format=terse "$@" \
		>"$work/$name.log" 2>&1; then
		echo "ok   fio $name"
		pass=$((pass + 1))
	else
		echo "FAIL fio $name"
		tail -20 "$work/$name.log" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

verify=(--rw=randwrite --bs=4k --size=16M --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0)
for mech in emu thrpool; do
	run "ramdisk-$mech" --filename=1GB --xnvme_async="$mech" --iodepth=16 "${verify[@]}"
	run "ramdisk-$mech-qd3" --filename=1GB --xnvme_async="$mech" --iodepth=3 "${verify[@]}"
done
for mech in emu thrpool posix; do
	run "file-$mech" --filename="$img" --xnvme_async="$mech" --iodepth=16 "${verify[@]}"
	run "file-$mech-iovec" --filename="$img" --xnvme_async="$mech" --xnvme_iovec=1 \
		--iodepth=8 "${verify[@]}"
done
run "file-sync-psync" --filename="$img" --xnvme_sync=psync --xnvme_async=emu --iodepth=1 \
	--rw=write --bs=64k --size=32M --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0
# nil does no I/O: it can only be timed, not verified
run "ramdisk-nil" --filename=1GB --xnvme_async=nil --iodepth=32 --rw=randread --bs=4k \
	--size=64M --number_ios=100000
# a missing file must fail with ENOENT, not crash or hang
if "$fio" --name=missing --ioengine=xnvme --thread=1 --filename="$work/does-not-exist" \
	--rw=read --bs=4k --size=1M >"$work/missing.log" 2>&1; then
	echo "FAIL fio missing-file (unexpected success)"
	fail=$((fail + 1))
elif grep -q "errno: 2\|No such file\|err=2" "$work/missing.log"; then
	echo "ok   fio missing-file"
	pass=$((pass + 1))
else
	echo "FAIL fio missing-file (no ENOENT in output)"
	tail -10 "$work/missing.log" | sed 's/^/    /'
	fail=$((fail + 1))
fi

echo "fio: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
