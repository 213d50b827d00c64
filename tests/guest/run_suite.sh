#!/usr/bin/env bash
# The device test suite, run INSIDE the QEMU guest in one boot (tests/qemu/rig.sh run --fdp --slow):
# every program of the suite over every device x mechanism pair that makes sense, fio's xnvme
# engine verifying data through the kernel paths, a permission check, and device removal last.
#   usage: run_suite.sh <build dir> <output dir> [fio binary]
# Writes <output dir>/guest-matrix.md and ends with "guest: N passed, N failed, N skipped".
set -u
build=$(realpath "${1:?usage: run_suite.sh <build dir> <out dir> [fio]}")
out=${2:?usage: run_suite.sh <build dir> <out dir> [fio]}
fio=${3:-}
mkdir -p "$out"
out=$(realpath "$out")
: "${XNVME_QEMU_GUEST:?run_suite.sh runs inside the QEMU guest (tests/qemu/rig.sh run)}"

pass=0
fail=0
skip=0
run() {
	local name=$1 rc
	shift
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	case $rc in
	0) echo "ok   $name"; pass=$((pass + 1)) ;;
	77) echo "skip $name"; skip=$((skip + 1)) ;;
	*)
		echo "FAIL $name (exit $rc)"
		tail -25 "$out/$name.log" | sed 's/^/    /'
		fail=$((fail + 1))
		;;
	esac
}

# Admin/sync paths against nvme-cli's view, io_uring_cmd / io_uring / libaio specifics
run linux_nvme "$build/tests/guest/test_linux_nvme"
run uring_cmd "$build/tests/guest/test_uring_cmd"
# Callbacks that submit and poke (nested pokes) through io_uring_cmd on the real driver
run reentrant-chr "$build/tests/test_reentrant" --uri "$XNVME_QEMU_NVM_CHR" --mech io_uring_cmd
# opts.register_buffers through io_uring_cmd: the library's buffers passed as registered buffers
if [ -x "$build/tests/test_io_uring_bufs" ]; then # built with liburing only
	run ucmd-fixed "$build/tests/test_io_uring_bufs" --ucmd-fixed "$XNVME_QEMU_NVM_CHR"
fi

# The functional matrix: block devices through every mechanism that takes a block device,
# generic char devices through the passthrough ones
: >"$out/matrix.yaml"
for role in NVM NVM4K; do
	blk_var="XNVME_QEMU_${role}_BLK"
	chr_var="XNVME_QEMU_${role}_CHR"
	for mech in sync emu thrpool io_uring libaio posix nil; do
		run "matrix-${role}-blk-$mech" "$build/tests/test_matrix" --uri "${!blk_var}" --mech "$mech"
		grep -- "- {uri" "$out/matrix-${role}-blk-$mech.log" >>"$out/matrix.yaml"
	done
	for mech in sync emu thrpool io_uring_cmd nil; do
		run "matrix-${role}-chr-$mech" "$build/tests/test_matrix" --uri "${!chr_var}" --mech "$mech"
		grep -- "- {uri" "$out/matrix-${role}-chr-$mech.log" >>"$out/matrix.yaml"
	done
done

# Command sets against QEMU's independent device model (the same programs pass on the ramdisk)
run zoned-chr-nvme "$build/tests/test_zoned" --uri "$XNVME_QEMU_ZNS_CHR"
run zoned-blk-nvme "$build/tests/test_zoned" --uri "$XNVME_QEMU_ZNS_BLK"
run pi-chr "$build/tests/test_pi_io" --uri "$XNVME_QEMU_PI_CHR"
if [ -n "${XNVME_QEMU_FDP_CHR:-}" ]; then
	run fdp-chr "$build/tests/test_fdp" --uri "$XNVME_QEMU_FDP_CHR"
fi

# fio 3.33's xnvme engine verifying data through the kernel paths
if [ -n "$fio" ] && [ -x "$fio" ]; then
	fiorun() {
		local name=$1
		shift
		run "fio-$name" "$fio" --name="$name" --ioengine=xnvme --thread=1 --output-format=terse \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 "$@"
	}
	fiorun io_uring --filename="$XNVME_QEMU_NVM_BLK" --xnvme_async=io_uring --direct=1 \
		--rw=randwrite --bs=4k --size=16M --iodepth=16
	fiorun libaio --filename="$XNVME_QEMU_NVM_BLK" --xnvme_async=libaio --direct=1 \
		--rw=randwrite --bs=4k --size=16M --iodepth=16
	fiorun io_uring_cmd --filename="$XNVME_QEMU_NVM4K_CHR" --xnvme_async=io_uring_cmd \
		--xnvme_sync=nvme --rw=randwrite --bs=4k --size=16M --iodepth=16
	fiorun io_uring_cmd-poll --filename="$XNVME_QEMU_NVM_CHR" --xnvme_async=io_uring_cmd \
		--hipri=1 --rw=write --bs=8k --size=8M --iodepth=4
	fiorun zbd --filename="$XNVME_QEMU_ZNS_BLK" --zonemode=zbd --direct=1 --rw=write --bs=64k \
		--size=64M --iodepth=1
else
	echo "skip fio (no fio binary given)"
	skip=$((skip + 1))
fi

# The command-line tools on the devices, checked against nvme-cli (pytest, with the interpreter
# that has pytest and PyYAML: $XNVME_GUEST_PYTHON)
py=${XNVME_GUEST_PYTHON:-python3}
run tools env XNVME_BUILD_DIR="$build" "$py" -m pytest -q -rs -p no:cacheprovider \
	"$(dirname "${BASH_SOURCE[0]}")/test_tools_guest.py"
# The Python bindings' device tests on the generic char device (io_uring_cmd, thrpool, emu, nil)
# XNVME_GUEST_PY_VENV: the host step's virtualenv; its install (with the compiled fast path) is
# then the one tested, else the package from the tree (ctypes only)
export XNVME_PY_VENV=${XNVME_GUEST_PY_VENV:-}
run python env XNVME_PY_NO_INSTALL=1 PYTHON="$py" XNVME_PY_TEST_URI="$XNVME_QEMU_NVM_CHR" \
	bash "$(dirname "${BASH_SOURCE[0]}")/../../python/run_tests.sh" "$build" test_io.py test_cmdsets.py

# DuckDB's nvmefs suite (duckdb/tests, the same tests as on the host) on the NVMe namespaces:
# /dev/ngXnY through io_uring_cmd (raw byte checks through the namespace's block device) with the
# FDP test on QEMU's FDP namespace, then /dev/nvmeXnY through io_uring with O_DIRECT. Given
# NVMEFS_EXTENSION (and XNVME_GUEST_PYTHON, the interpreter with duckdb and pytest), the step must
# run; without it, it is skipped.
if [ -n "${NVMEFS_EXTENSION:-}" ]; then
	suite=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../duckdb/tests" && pwd)
	rm -f "$out/duckdb-local.json"
	# duck <name> <pytest -k expression> <env assignments...>
	duck() {
		local name=$1 select=$2
		shift 2
		run "duckdb-$name" env NVMEFS_TEST_LOCAL_RESULTS="$out/duckdb-local.json" "$@" \
			"$py" -m pytest -q -rs -p no:cacheprovider -k "$select" "$suite"
	}
	duck chr-io_uring_cmd "" NVMEFS_TEST_DEVICE="$XNVME_QEMU_NVM_CHR" \
		NVMEFS_TEST_RAW="$XNVME_QEMU_NVM_BLK" NVMEFS_TEST_OPTS="ASYNC 'io_uring_cmd'" \
		NVMEFS_TEST_FDP_DEVICE="${XNVME_QEMU_FDP_CHR:-}" NVMEFS_TEST_FDP_OPTS="ASYNC 'io_uring_cmd'"
	# The block device differs only in the mechanism below the extension: storage, recovery,
	# errors and threads prove it. The single-client spill queries (mostly DuckDB CPU, about
	# 60 % of the suite's time) already ran through the extension's I/O path above.
	duck blk-io_uring "not test_spill" NVMEFS_TEST_DEVICE="$XNVME_QEMU_NVM_BLK" \
		NVMEFS_TEST_OPTS="ASYNC 'io_uring', DIRECT true"
	# The user-space driver: the spare controller bound to vfio-pci for the run. No kernel view
	# of the namespace then: the per-test erase is a Write Zeroes of the first 8 MiB; the tests
	# that damage or read raw bytes skip. Each database open brings the controller up and each
	# close shuts it down (about 0.3 s a cycle under TCG, most of it the kernel's function
	# resets). The block device's selection, every test file, less the tests that never open
	# the vfio device here (FDP placement and a full device: ramdisk and file) and the two
	# slowest repeats of paths covered by the others (repeated crashes: a crash recovered by
	# a second process; a parallel scan that spills: concurrent clients) (2.2-2.7 min here).
	bdf=${XNVME_QEMU_SPARE_PCI_BDF:-}
	drv=$(dirname "${BASH_SOURCE[0]}")/../../tools/xnvme-driver
	if [ -n "$bdf" ] && "$drv" bind "$bdf" >"$out/duckdb-vfio-bind.log" 2>&1; then
		duck vfio "not test_spill and not test_placement_handles and not test_device_full and not test_repeated_crashes and not test_parallel_scan_and_spill" \
			NVMEFS_TEST_DEVICE="$bdf" NVMEFS_TEST_RAW=none \
			NVMEFS_TEST_ERASE="$build/tools/lblk write-zeros $bdf --slba 0x0 --nlb 16383"
		"$drv" unbind "$bdf" >>"$out/duckdb-vfio-bind.log" 2>&1
	elif [ -n "$bdf" ]; then
		echo "FAIL duckdb-vfio (xnvme-driver bind $bdf, see duckdb-vfio-bind.log)"
		fail=$((fail + 1))
	fi
else
	echo "skip duckdb (no NVMEFS_EXTENSION given)"
	skip=$((skip + 1))
fi

# A permission problem names the path and gives EACCES (exit 1 from the tool: the command failed)
perm() {
	local rc
	setpriv --reuid=65534 --regid=65534 --clear-groups "$build/tools/xnvme" info \
		"$XNVME_QEMU_NVM_BLK" >"$out/perm.out" 2>&1
	rc=$?
	cat "$out/perm.out"
	[ "$rc" -eq 1 ] && grep -q "$XNVME_QEMU_NVM_BLK" "$out/perm.out" &&
		grep -qi "permission denied\|errno: 13" "$out/perm.out"
}
run permission perm

# The matrix as a table for the docs
{
	echo "| device | mechanism | verified data | NVM opcodes and statuses | failures |"
	echo "|---|---|---|---|---|"
	sed -nE "s/.*uri: '([^']*)', mechanism: ([^,]*), ran: true, verified: ([a-z]*), nvm_opcodes: ([a-z]*), failures: ([0-9]*).*/| \1 | \2 | \3 | \4 | \5 |/p" \
		"$out/matrix.yaml"
	sed -nE "s/.*uri: '([^']*)', mechanism: ([^,]*), ran: false, errno: ([0-9]*).*/| \1 | \2 | refused at open (errno \3) | - | - |/p" \
		"$out/matrix.yaml"
} >"$out/guest-matrix.md"

# The tcp backend against the kernel's nvmet-tcp on loopback, over the 512 B namespace
run tcp-target bash "$(dirname "${BASH_SOURCE[0]}")/tcp_target.sh" "$build" "$fio"
# The rdma backend against the kernel's nvmet-rdma over soft-RoCE, the same namespace and
# null_blk; its faults end with the RDMA device deleted
run rdma-target bash "$(dirname "${BASH_SOURCE[0]}")/rdma_target.sh" "$build" "$fio"

[ -n "${XNVME_QEMU_SPARE_PCI_BDF:-}" ] && run vfio "$(dirname "$0")/vfio.sh" "$build" "$fio"
# multi-process mode: xnvme-driver serve and secondaries side by side (DuckDB among them)
[ -n "${XNVME_QEMU_SPARE_PCI_BDF:-}" ] && run vfio-mp "$(dirname "$0")/vfio_mp.sh" "$build"
# vfio faults: timeouts on the slow controller, device_del of the hot-plug one (before timeout)
[ -n "${XNVME_QEMU_HOT_PCI_BDF:-}" ] && run vfio-faults "$(dirname "$0")/vfio_faults.sh" "$build"
# Command timeouts against the controller that answers late (skips without rig.sh --slow);
# before the removal below, which takes the other namespace it uses
run timeout "$build/tests/guest/test_timeout"

# Last: it removes the controller
run faults "$build/tests/guest/test_faults"

echo "guest: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
