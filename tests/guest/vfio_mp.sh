#!/usr/bin/env bash
# The vfio backend's multi-process mode in the QEMU guest (tests/qemu/rig.sh run --vfio): the
# spare controller (serial qspare0) bound to vfio-pci, `xnvme-driver serve` as its primary, and
# secondaries beside each other:
#  A. four processes write and read back disjoint ranges (queue and sync paths) while a fifth
#     runs `xnvme idfy-ctrlr`, `xnvme log-health` and admin commands whose answers must equal
#     those of a single-process open (taken before the primary started), and a queue's
#     completion fd signals; a single-process open meanwhile is refused (EBUSY); one writer is killed with SIGKILL mid-I/O: the primary
#     deletes its queues (their ids are free again), the others go on and verify;
#  B. DuckDB's nvmefs tests (a selection: storage, a crash recovered by another process, client
#     threads) on one secondary while xnvmeperf reads through another;
#  C. the primary killed: a secondary's commands then fail with ENOTCONN and nothing hangs;
#     a new primary serves the controller again and stops cleanly on SIGTERM.
#   usage: vfio_mp.sh <build dir>    exit 0 pass, 1 fail, 77 skip
# Environment: NVMEFS_EXTENSION and XNVME_GUEST_PYTHON for B (skipped without them).
set -u
build=$(realpath "${1:?usage: vfio_mp.sh <build dir>}")
bdf=${XNVME_QEMU_SPARE_PCI_BDF:-}
[ -n "$bdf" ] || { echo "skip: no spare controller (rig.sh run --vfio)"; exit 77; }
prog=$build/tests/guest/test_vfio_mp
tools=$build/tools
drv=$build/tools/xnvme-driver # the build tree's copy: it finds xnvme-driver-serve beside it
shm=7
tmp=$(mktemp -d)
prim=
cleanup() {
	[ -z "$prim" ] || kill -KILL "$prim" 2>/dev/null
	wait 2>/dev/null
	"$drv" unbind "$bdf" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
rc=0
fail() { echo "FAIL: $*"; rc=1; }

modprobe vfio-pci || { echo "skip: no vfio-pci module"; exit 77; }
"$drv" bind "$bdf" >/dev/null || { echo "FAIL: xnvme-driver bind $bdf"; exit 1; }

# primary_start <log>: serve in the background, wait for "ready"
primary_start() {
	"$drv" serve "$bdf" --shm-id $shm >"$1" 2>&1 &
	prim=$!
	for _ in $(seq 200); do grep -q "^ready" "$1" && return 0; sleep 0.1; done
	fail "xnvme-driver serve did not get ready"
	cat "$1"
	return 1
}
# wait_file <file>: up to 60 s
wait_file() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

# The answers of single-process mode, to compare with those through the primary
"$prog" status "$bdf" 0 >"$tmp/status-single" || fail "status in single-process mode"
"$tools/xnvme" idfy-ctrlr "$bdf" >"$tmp/idfy-single" 2>&1 || fail "xnvme idfy-ctrlr"

primary_start "$tmp/primary.log" || exit 1
"$drv" status | grep -q "shm id $shm: $bdf" || fail "xnvme-driver status does not list the primary"

# --- A: four writers, a fifth process, a SIGKILL --------------------------------------------
t0=$SECONDS
pids=()
for i in 0 1 2 3; do
	"$prog" worker "$bdf" $shm $i 600 "$tmp/ready$i" >"$tmp/worker$i" 2>&1 &
	pids+=($!)
done
for i in 0 1 2 3; do wait_file "$tmp/ready$i" || fail "worker $i did not start: $(cat "$tmp/worker$i")"; done
"$prog" status "$bdf" $shm >"$tmp/status-mp" || fail "status through the primary"
diff "$tmp/status-single" "$tmp/status-mp" >"$tmp/status.diff" ||
	fail "admin answers differ from single-process mode: $(cat "$tmp/status.diff")"
"$tools/xnvme" idfy-ctrlr "$bdf" --shm-id $shm >"$tmp/idfy-mp" 2>&1 || fail "xnvme idfy-ctrlr --shm-id"
diff -q "$tmp/idfy-single" "$tmp/idfy-mp" >/dev/null || fail "xnvme idfy-ctrlr differs through the primary"
"$tools/xnvme" log-health "$bdf" --shm_id $shm >"$tmp/health" 2>&1 &&
	grep -q "data_units_written" "$tmp/health" || fail "xnvme log-health --shm_id: $(cat "$tmp/health")"
# a second owner is refused, as without the primary
if "$tools/xnvme" info "$bdf" >"$tmp/single-open" 2>&1 || ! grep -qi "busy" "$tmp/single-open"; then
	fail "a single-process open beside the primary: $(cat "$tmp/single-open")"
fi
"$prog" cfd "$bdf" $shm >"$tmp/cfd" 2>&1 || fail "completion fd in a secondary: $(cat "$tmp/cfd")"
"$prog" queues "$bdf" $shm >"$tmp/queues1" || fail "queues: $(cat "$tmp/queues1")"
kill -KILL "${pids[3]}"
wait "${pids[3]}" 2>/dev/null
for _ in $(seq 100); do grep -q "(pid ${pids[3]}) exited: queues \[[0-9 ]*\] deleted" "$tmp/primary.log" && break; sleep 0.1; done
grep "(pid ${pids[3]}) exited" "$tmp/primary.log" || fail "the primary did not reclaim the killed writer"
"$prog" queues "$bdf" $shm >"$tmp/queues2" || fail "queues: $(cat "$tmp/queues2")"
n1=$(sed -n 's/^queues: \([0-9]*\),.*/\1/p' "$tmp/queues1")
n2=$(sed -n 's/^queues: \([0-9]*\),.*/\1/p' "$tmp/queues2")
# the killed writer held two queue pairs (its queue and its sync path)
[ -n "$n1" ] && [ "$n2" = $((n1 + 2)) ] ||
	fail "queue ids not reclaimed: $(cat "$tmp/queues1") / $(cat "$tmp/queues2")"
grep -q "are in use" "$tmp/queues1" || fail "queue exhaustion without its reason: $(cat "$tmp/queues1")"
sleep 2 # the others go on after the kill
kill -TERM "${pids[0]}" "${pids[1]}" "${pids[2]}"
for i in 0 1 2; do
	wait "${pids[$i]}" || fail "worker $i: $(cat "$tmp/worker$i")"
	cat "$tmp/worker$i"
done
echo "A: $((SECONDS - t0)) s"

# --- B: DuckDB on one secondary, xnvmeperf on another ----------------------------------------
if [ -n "${NVMEFS_EXTENSION:-}" ] && [ -n "${XNVME_GUEST_PYTHON:-}" ]; then
	t0=$SECONDS
	: >"$tmp/perf.done"
	(
		n=0
		while [ ! -e "$tmp/duck.done" ]; do
			"$tools/xnvmeperf" "$bdf" --shm-id $shm --dev-nsid 2 --rw randread --qdepth 8 \
				--runtime 3 --json --no-progress >"$tmp/perf.json" 2>&1 || exit 1
			n=$((n + 1))
		done
		echo $n >"$tmp/perf.done"
	) &
	perf=$!
	suite=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../duckdb/tests" && pwd)
	env NVMEFS_TEST_DEVICE="$bdf" NVMEFS_TEST_RAW=none NVMEFS_TEST_OPTS="SHM_ID $shm" \
		NVMEFS_TEST_ERASE="$tools/lblk write-zeros $bdf --slba 0x0 --nlb 16383 --shm-id $shm" \
		"$XNVME_GUEST_PYTHON" -m pytest -q -rs -p no:cacheprovider \
		-k "test_ramdisk_roundtrip or test_crash_after_commits or test_concurrent_clients" \
		"$suite" >"$tmp/duck" 2>&1 || fail "nvmefs on a secondary: $(tail -20 "$tmp/duck")"
	touch "$tmp/duck.done"
	wait $perf || fail "xnvmeperf beside DuckDB: $(cat "$tmp/perf.json")"
	grep -q '"iops"' "$tmp/perf.json" || fail "xnvmeperf gave no report: $(cat "$tmp/perf.json")"
	tail -1 "$tmp/duck"
	echo "B: $((SECONDS - t0)) s, $(cat "$tmp/perf.done") xnvmeperf runs beside it"
else
	echo "skip B: no NVMEFS_EXTENSION / XNVME_GUEST_PYTHON"
fi

# --- C: the primary killed, a new one -------------------------------------------------------
t0=$SECONDS
"$prog" orphan "$bdf" $shm "$tmp/orphan.ready" >"$tmp/orphan" 2>&1 &
orphan=$!
wait_file "$tmp/orphan.ready" || fail "orphan did not start: $(cat "$tmp/orphan")"
kill -KILL "$prim"
wait "$prim" 2>/dev/null
prim=
wait $orphan || fail "a secondary of a killed primary: $(cat "$tmp/orphan")"
cat "$tmp/orphan"
primary_start "$tmp/primary2.log" || exit 1
"$prog" worker "$bdf" $shm 5 2 - >"$tmp/worker5" 2>&1 || fail "a secondary of the new primary: $(cat "$tmp/worker5")"
kill -TERM "$prim"
wait "$prim" || fail "the primary did not stop cleanly on SIGTERM: $(cat "$tmp/primary2.log")"
prim=
grep -q "^stopping" "$tmp/primary2.log" || fail "no clean stop: $(cat "$tmp/primary2.log")"
echo "C: $((SECONDS - t0)) s"
"$drv" unbind "$bdf" >/dev/null || fail "xnvme-driver unbind $bdf"
# what the primary reclaimed from processes that ended without closing (SIGKILL, os._exit)
grep "exited: queues \[[0-9]" "$tmp/primary.log" | sed 's/^/primary: /'
exit $rc
