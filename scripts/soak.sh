#!/usr/bin/env bash
# Soak: mixed random writes and verifying reads for a given duration per target, through fio's
# xnvme engine (every async mechanism the target takes) and through the library's own
# multi-thread verification loop (tests/test_threads: 8 threads with a queue each + 4 sync
# threads on one handle, every mechanism, plus derive_geo against readers). Not run in CI.
#
#   usage: scripts/soak.sh [DURATION] [TARGET ...]
#     DURATION  seconds per target (default 60), split between the fio runs and test_threads
#     TARGET    file     a file of $XNVME_SOAK_FILE_SIZE (default 1G) in the work directory
#               ramdisk  the ramdisk URI 1GB
#               guest    inside the QEMU guest (tests/qemu/rig.sh): the NVM and NVM4K
#                        namespaces, block (/dev/nvmeXnY) and generic char (/dev/ngXnY) nodes
#               any other word is used as a URI/path as is (a file, /dev/nvmeXnY, /dev/ngXnY)
#               Default: file ramdisk, and guest when $XNVME_QEMU_GUEST is set.
#               DATA ON EVERY TARGET IS OVERWRITTEN.
#
# fio writes 4 KiB blocks at random offsets (numjobs=$XNVME_SOAK_JOBS, default 4, each its own
# $XNVME_SOAK_JOB_SIZE region, default 32M, iodepth 16) with crc32c verification headers and
# reads back every 256 blocks written (verify_backlog) to check them: those reads are the
# verified bytes. fio is $XNVME_FIO, else the cached build of bench/build_fio.sh
# (_test/fio-cache or ~/.cache/xnvme-fio); without one the fio runs are skipped with a note.
# xnvmeperf has no verification mode: it is not used here (tests/test_threads is the C loop).
#
# The library under test is the one of the build directory $XNVME_BUILD_DIR (default: the
# first of build, build-conc, _test/build-gcc holding tests/test_threads); fio is run against it
# through LD_LIBRARY_PATH. Work files go to $XNVME_SOAK_DIR (default: a new /var/tmp/xnvme-soak.*).
#
# Prints one line per run and a summary: verified bytes, mismatches (zero expected), failed
# runs. Exits 1 on any mismatch or failed run, 2 when nothing could run.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
duration=${1:-60}
shift || true
case $duration in '' | *[!0-9]*) echo "usage: $0 [DURATION seconds] [TARGET ...]" >&2; exit 2 ;; esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(file ramdisk)
	[ -n "${XNVME_QEMU_GUEST:-}" ] && targets+=(guest)
fi

build=${XNVME_BUILD_DIR:-}
if [ -z "$build" ]; then
	for d in "$root/build" "$root/build-conc" "$root/_test/build-gcc"; do
		[ -x "$d/tests/test_threads" ] && { build=$d; break; }
	done
fi
threads_bin=${build:+$build/tests/test_threads}
if [ -z "$build" ] || [ ! -x "$threads_bin" ]; then
	echo "soak: no build with tests/test_threads (set XNVME_BUILD_DIR)" >&2
	exit 2
fi
build=$(cd "$build" && pwd)
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

fio=${XNVME_FIO:-}
if [ -z "$fio" ]; then
	for f in "$root/_test/fio-cache/fio-3.33/fio" \
		"${XDG_CACHE_HOME:-$HOME/.cache}/xnvme-fio/fio-3.33/fio"; do
		[ -x "$f" ] && { fio=$f; break; }
	done
fi
if [ -n "$fio" ] && ! "$fio" --enghelp=xnvme >/dev/null 2>&1; then
	echo "soak: $fio has no xnvme engine or does not run" >&2
	exit 2
fi

work=${XNVME_SOAK_DIR:-$(mktemp -d /var/tmp/xnvme-soak.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
jobs=${XNVME_SOAK_JOBS:-4}
job_size=${XNVME_SOAK_JOB_SIZE:-32M}

total_verified=0
total_written=0
total_mismatch=0
nfail=0
nrun=0

# note LINE: prints and keeps a line for the summary
note() { echo "$@" | tee -a "$work/summary.txt"; }

# fio_run LABEL URI MECH [extra fio args]: one verified fio run of $share seconds
fio_run() {
	local label=$1 uri=$2 mech=$3 log rc out verified written mism
	shift 3
	log="$work/fio-$label-$mech.json"
	(cd "$work" && "$fio" --name=soak --ioengine=xnvme --thread=1 --filename="$uri" \
		--xnvme_async="$mech" "$@" --rw=randwrite --bs=4k --iodepth=16 \
		--numjobs="$jobs" --size="$job_size" --offset_increment="$job_size" \
		--time_based --runtime="$share" --verify=crc32c --verify_backlog=256 \
		--verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--output-format=json --output="$log" >"$log.stderr" 2>&1)
	rc=$?
	out=$(python3 - "$log" "$log.stderr" <<'PY'
import json, re, sys
try:
    text = open(sys.argv[1], errors="replace").read()
    jobs = json.loads(text[text.index("{"):]).get("jobs", [])  # fio may put notes first
except Exception:
    jobs = []
err = open(sys.argv[2], errors="replace").read()
verified = sum(j["read"]["io_bytes"] for j in jobs)
written = sum(j["write"]["io_bytes"] for j in jobs)
errors = sum(1 for j in jobs if j.get("error"))
mism = len(re.findall(r"verify failed|bad magic|bad header|verify: bad", err))
mism += sum(1 for j in jobs if j.get("error") == 84) if not mism else 0
print(verified, written, mism, errors, len(jobs))
PY
)
	read -r verified written mism errors njobs <<<"$out"
	for v in verified written mism errors njobs; do
		case ${!v} in '' | *[!0-9]*) printf -v "$v" 0; errors=1 ;; esac
	done
	nrun=$((nrun + 1))
	total_verified=$((total_verified + verified))
	total_written=$((total_written + written))
	total_mismatch=$((total_mismatch + mism))
	if [ "$rc" -ne 0 ] || [ "$mism" -ne 0 ] || [ "$errors" -ne 0 ] || [ "$njobs" -eq 0 ] ||
		[ "$verified" -eq 0 ]; then
		nfail=$((nfail + 1))
		note "FAIL fio $label $mech: exit $rc, jobs $njobs, errors $errors, verified $verified B, mismatches $mism (log: $log.stderr)"
		tail -5 "$log.stderr" | sed 's/^/    /'
	else
		note "ok   fio $label $mech: verified $verified B ($((verified >> 20)) MiB), written $((written >> 20)) MiB, mismatches 0, ${share}s"
	fi
}

# threads_run LABEL URI: tests/test_threads on URI for about $share seconds
threads_run() {
	local label=$1 uri=$2 log rc secs verified fails
	log="$work/threads-$label.log"
	# every io phase may take `secs`, derive a quarter of it: about 7 * secs in all
	secs=$(python3 -c "print(max(0.5, $share / 7.0))")
	"$threads_bin" --uri "$uri" --seconds "$secs" --rounds 1000000000 >"$log" 2>&1
	rc=$?
	verified=$(grep -o 'verified_kib: [0-9]*' "$log" | awk '{s += $2} END {printf "%.0f\n", s * 1024}')
	fails=$(grep -c '^FAIL' "$log")
	case $verified in '' | *[!0-9]*) verified=0 ;; esac
	nrun=$((nrun + 1))
	total_verified=$((total_verified + verified))
	if [ "$rc" -ne 0 ] || [ "$fails" -ne 0 ]; then
		# every failed check of the data is a mismatch or a failed command: count them all
		total_mismatch=$((total_mismatch + fails))
		nfail=$((nfail + 1))
		note "FAIL test_threads $label: exit $rc, $fails failed checks (log: $log)"
		grep '^FAIL' "$log" | head -5 | sed 's/^/    /'
	else
		note "ok   test_threads $label: verified $verified B ($((verified >> 20)) MiB), mismatches 0"
	fi
}

# soak_uri LABEL URI MECH...: fio on every MECH, then test_threads, sharing $duration
soak_uri() {
	local label=$1 uri=$2 extra=()
	shift 2
	case $uri in
	/dev/ng*) extra=(--xnvme_sync=nvme) ;;
	/dev/*) extra=(--direct=1) ;;
	esac
	share=$((duration / ($# + 1)))
	[ "$share" -ge 2 ] || share=2
	if [ -n "$fio" ]; then
		for mech in "$@"; do
			fio_run "$label" "$uri" "$mech" "${extra[@]}"
		done
	else
		note "skip fio $label: no fio binary (set XNVME_FIO or run bench/build_fio.sh)"
	fi
	threads_run "$label" "$uri"
}

: >"$work/summary.txt"
note "# soak: ${duration}s per target, build $build, fio ${fio:-none}, work dir $work"
start=$(date +%s)
for t in "${targets[@]}"; do
	case $t in
	file)
		img="$work/soak.img"
		truncate -s "${XNVME_SOAK_FILE_SIZE:-1G}" "$img" || { nfail=$((nfail + 1)); continue; }
		soak_uri file "$img" emu thrpool posix io_uring libaio
		rm -f "$img"
		;;
	ramdisk)
		soak_uri ramdisk 1GB emu thrpool
		;;
	guest)
		: "${XNVME_QEMU_GUEST:?the guest target runs inside the QEMU guest (tests/qemu/rig.sh)}"
		for role in NVM NVM4K; do
			blk_var="XNVME_QEMU_${role}_BLK"
			chr_var="XNVME_QEMU_${role}_CHR"
			[ -n "${!blk_var:-}" ] && soak_uri "$role-blk" "${!blk_var}" io_uring libaio thrpool
			[ -n "${!chr_var:-}" ] && soak_uri "$role-chr" "${!chr_var}" io_uring_cmd thrpool
		done
		;;
	/dev/ng*) soak_uri "${t##*/}" "$t" io_uring_cmd thrpool ;;
	/dev/*) soak_uri "${t##*/}" "$t" io_uring libaio thrpool ;;
	*) soak_uri "${t##*/}" "$t" emu thrpool posix io_uring libaio ;;
	esac
done

note "soak: $nrun runs in $(($(date +%s) - start))s, verified $total_verified bytes ($((total_verified >> 20)) MiB), written by fio $((total_written >> 20)) MiB, mismatches $total_mismatch, failed runs $nfail"
[ "$nrun" -gt 0 ] || exit 2
[ "$total_mismatch" -eq 0 ] && [ "$nfail" -eq 0 ]
