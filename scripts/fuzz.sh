#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_<name>.c) with clang, ASan and UBSan, the whole
# library instrumented for coverage, and runs each target for SECONDS (default 60) starting from
# its committed corpus tests/fuzz/corpus/<name>/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (targets: cli_parse dev_open ramdisk_cmd printers pi tcp_pdu tcp_rx rdma_rx)
#
# Everything goes under $XNVME_FUZZ_DIR (default ./build-fuzz, git-ignored): the build dir,
# new inputs libFuzzer finds (run/<name>/, emptied on every run: the committed corpus is never
# written), logs (logs/<name>.log) and crash/leak/timeout artifacts (artifacts/<name>/).
# Ends with "fuzz: N passed, N failed"; exits non-zero when a target found something (or did
# not build), printing the reproducer and how to add it to the corpus.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-60}
[ $# -gt 0 ] && shift
all_targets=(cli_parse dev_open ramdisk_cmd printers pi tcp_pdu tcp_rx rdma_rx)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
work=${XNVME_FUZZ_DIR:-$root/build-fuzz}
bdir="$work/build"
mkdir -p "$work/logs"

if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ]; then
	echo "usage: $0 [SECONDS] [TARGET...]" >&2
	exit 2
fi

# The whole library with ASan+UBSan and coverage instrumentation (-fsanitize=fuzzer-no-link);
# the targets link libFuzzer itself (tests/fuzz/meson.build)
if [ ! -f "$bdir/build.ninja" ]; then
	CC=clang meson setup "$bdir" -Dbuildtype=debugoptimized -Db_sanitize=address,undefined \
		-Db_lundef=false -Dtools=false -Dexamples=false -Dwerror="${XNVME_WERROR:-false}" \
		-Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		>"$work/logs/setup.log" 2>&1 || {
		tail -30 "$work/logs/setup.log"
		echo "fuzz: 0 passed, ${#targets[@]} failed"
		exit 1
	}
fi
ninja_targets=()
for t in "${targets[@]}"; do
	ninja_targets+=("tests/fuzz/fuzz_$t")
done
if ! ninja -C "$bdir" -j "${XNVME_FUZZ_JOBS:-2}" "${ninja_targets[@]}" >"$work/logs/build.log" 2>&1; then
	tail -40 "$work/logs/build.log"
	echo "fuzz: 0 passed, ${#targets[@]} failed"
	exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# temporary files of the targets (dev_open's private directory) stay in the work dir
export TMPDIR="$work/tmp"

passed=0
failed=0
for t in "${targets[@]}"; do
	bin="$bdir/tests/fuzz/fuzz_$t"
	corpus="$root/tests/fuzz/corpus/$t"
	run="$work/run/$t"
	art="$work/artifacts/$t"
	log="$work/logs/$t.log"
	rm -rf "$run" "$TMPDIR"
	mkdir -p "$run" "$art" "$TMPDIR"
	args=(-max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=16384
	      -print_final_stats=1 -artifact_prefix="$art/")
	[ -f "tests/fuzz/$t.dict" ] && args+=(-dict="tests/fuzz/$t.dict")
	# the device targets print a line per refused open: keep stderr out of the log
	case $t in dev_open | ramdisk_cmd) args+=(-close_fd_mask=2) ;; esac
	before=$(find "$art" -type f | wc -l)
	echo "# fuzz $t: ${secs}s, corpus $(find "$corpus" -type f | wc -l) inputs"
	"$bin" "${args[@]}" "$run" "$corpus" >"$log" 2>&1
	rc=$?
	after=$(find "$art" -type f | wc -l)
	stats=$(grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units)' "$log" | tail -1)
	if [ $rc -eq 0 ] && [ "$after" -eq "$before" ]; then
		passed=$((passed + 1))
		echo "# fuzz $t: ok ($stats; $(find "$run" -type f | wc -l) new inputs in $run)"
	else
		failed=$((failed + 1))
		echo "# fuzz $t: FINDING (exit $rc), log $log:"
		grep -E 'ERROR|SUMMARY|fuzz_[a-z_]*:|deadly signal|Test unit written' "$log" | head -20
		newest=$(ls -t "$art"/* 2>/dev/null | head -1)
		if [ -n "$newest" ]; then
			echo "#   reproduce: $bin $newest"
			echo "#   (or without libFuzzer: build*/tests/fuzz/fuzz_${t}_replay $newest)"
			echo "#   once fixed, add it to the corpus so that every test run replays it:"
			echo "#     cp $newest tests/fuzz/corpus/$t/$(basename "$newest")"
		fi
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
