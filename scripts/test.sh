#!/usr/bin/env bash
# README command 2: every test. Runs README command 1 first (./scripts/demo.sh, read from the
# README and run as printed: it installs what is missing, builds, installs into ./_install and
# verifies every mechanism of the ramdisk and of a file), then
#   1. gcc build (-Werror) and the whole meson suite (--setup full: the slow duckdb suite too)
#   2. clang build (-Werror) and the unit suite
#   3. ASan+UBSan build and the unit suite
#   3b. ThreadSanitizer over the concurrency and churn programs
#   4. the unit suite under valgrind (leaks and invalid accesses are errors)
#   4b. every libFuzzer target for 10 s from its corpus (scripts/fuzz.sh; one result per target)
#   4c. the Windows cross build (mingw-w64) and its unit programs under Wine (scripts/wine_test.sh)
#   5. install to a prefix, build the examples through pkg-config, run them
#   5b. the Python and Rust bindings against that install (python/run_tests.sh, rust/run_tests.sh)
#   6. fio 3.33 from Debian's source package with its xnvme engine, verifying data
#   7. the device suite inside a QEMU guest with emulated NVMe (tests/guest/run_suite.sh):
#      the real Linux NVMe driver, every device x mechanism pair, fio on the kernel paths
#   8. the C sources against .clang-format (scripts/check_format.sh), and that the run left
#      nothing new in `git status`
# Ends with one "N passed, N failed, N skipped" line; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="$root/_test"
mkdir -p "$out"
# what git reports before the run: the run itself must add nothing (checked at the end)
git_before=$(git status --porcelain 2>/dev/null || true)

passed=0
failed=0
skipped=0
failures=()

# README command 1, exactly as README.md prints it: the first line of its first ```sh block
step() { echo; echo "### $*"; }
demo_cmd=$(awk '/^```sh$/ { if (!seen) { inblock = 1; seen = 1 }; next }
	inblock { sub(/[ \t]*#.*/, ""); print; exit }' README.md)
step "README command 1: $demo_cmd"
if [ "$demo_cmd" != "./scripts/demo.sh" ]; then
	echo "README.md's first command is '$demo_cmd', not ./scripts/demo.sh"
	failed=$((failed + 1)); failures+=("README command 1 ($demo_cmd)")
elif bash -c "$demo_cmd" 2>&1 | tee "$out/demo.log" &&
	grep -q '^# 1GB (backend ramdisk): 1 sync and [1-9][0-9]* async mechanisms verified, .* 0 failed$' "$out/demo.log" &&
	grep -q '^# _demo/demo.img (backend linux): 1 sync and [1-9][0-9]* async mechanisms verified, .* 0 failed$' "$out/demo.log"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); failures+=("README command 1: $demo_cmd (see $out/demo.log)")
fi

./scripts/setup.sh || { echo "setup failed"; exit 1; }

# werror is off by default (meson.build): every build this run configures turns it on, also
# those of scripts/fuzz.sh, duckdb/build.sh and bench/run_all.sh (they read XNVME_WERROR)
export XNVME_WERROR=true

# Adds the results of a meson test run from its JSON log
count_meson() {
	local log=$1 label=$2
	local p f s
	p=$(grep -c '"result": "OK"' "$log" || true)
	f=$(grep -cE '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
	s=$(grep -cE '"result": "(SKIP|EXPECTEDFAIL)"' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		failures+=("$label: $(grep -E '"result": "(FAIL|TIMEOUT|ERROR)' "$log" |
			sed -E 's/.*"name": "([^"]*)".*/\1/' | tr '\n' ' ')")
	fi
}

# Adds the counts of a pytest summary line ("== 3 passed, 1 skipped in 2s ==") from a log
count_pytest() {
	local log=$1 label=$2 line p f e s
	line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|errors?|skipped).* in [0-9.]+s' "$log" | tail -n 1)
	num() { grep -oE "[0-9]+ $1" <<<"$line" | grep -oE '^[0-9]+'; }
	p=$(num passed)
	f=$(num failed)
	e=$(num 'errors?')
	s=$(num skipped)
	[ -n "$line" ] || f=1 # no summary: the run itself failed
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${e:-0}))
	skipped=$((skipped + ${s:-0}))
	[ $((${f:-0} + ${e:-0})) -eq 0 ] || failures+=("$label (see $log)")
}

# Configures and builds a build dir; on failure counts one failure and returns 1
build() {
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >"$out/$(basename "$dir")-setup.log" 2>&1 || {
			cat "$out/$(basename "$dir")-setup.log"
			failed=$((failed + 1)); failures+=("setup $dir"); return 1; }
	fi
	ninja -C "$dir" >"$out/$(basename "$dir")-build.log" 2>&1 || {
		tail -40 "$out/$(basename "$dir")-build.log"
		failed=$((failed + 1)); failures+=("build $dir"); return 1; }
}

mtest() {
	local dir=$1 label=$2
	shift 2
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tail -n 40
	count_meson "$dir/meson-logs/testlog$( [ -n "${MTEST_SETUP:-}" ] && echo "-$MTEST_SETUP").json" "$label"
}

step "gcc build and all suites"
if build "$out/build-gcc" -Dwerror=true; then
	# --setup full: also the suites the quick default setup leaves out (duckdb)
	MTEST_SETUP=full mtest "$out/build-gcc" gcc --setup full --num-processes 2
fi

step "clang build and unit suite"
if CC=clang build "$out/build-clang" -Dwerror=true; then
	mtest "$out/build-clang" clang --suite unit --num-processes 2
fi

step "ASan+UBSan build and unit suite"
if build "$out/build-asan" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
	-Dwerror=true; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		mtest "$out/build-asan" asan --suite unit --num-processes 2
fi

step "ThreadSanitizer: the concurrency, churn and thread-pool programs"
tsan="$out/build-tsan"
if { [ -f "$tsan/build.ninja" ] || meson setup "$tsan" -Db_sanitize=thread -Db_lundef=false \
	-Dtools=false -Dwerror=true >"$out/build-tsan-setup.log" 2>&1; } &&
	ninja -C "$tsan" tests/test_threads tests/test_churn tests/test_thrpool tests/test_async_mechanisms >"$out/build-tsan-build.log" 2>&1; then
	TSAN_OPTIONS=halt_on_error=1 mtest "$tsan" tsan --no-rebuild threads churn thrpool async_mechanisms
else
	tail -30 "$out/build-tsan-setup.log" "$out/build-tsan-build.log" 2>/dev/null
	failed=$((failed + 1)); failures+=("tsan build")
fi

step "valgrind over the unit suite"
if [ -f "$out/build-gcc/build.ninja" ]; then
	MTEST_SETUP=valgrind mtest "$out/build-gcc" valgrind --suite unit --setup valgrind \
		--num-processes 2 --timeout-multiplier 10
fi

step "libFuzzer targets, 10 s each (scripts/fuzz.sh)"
XNVME_FUZZ_DIR="$out/fuzz" scripts/fuzz.sh 10 2>&1 | tee "$out/fuzz.log"
p=$(sed -nE 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$out/fuzz.log")
f=$(sed -nE 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$out/fuzz.log")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))
[ "${f:-1}" -eq 0 ] || failures+=("fuzz (see $out/fuzz.log)")

step "Windows cross build (mingw-w64) and the portable unit programs under Wine"
scripts/wine_test.sh "$out/build-wine" 2>&1 | tee "$out/wine.log"
p=$(sed -nE 's/^wine: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$out/wine.log")
f=$(sed -nE 's/^wine: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$out/wine.log")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))
[ "${f:-1}" -eq 0 ] || failures+=("wine (see $out/wine.log)")

step "install, examples through pkg-config"
rm -rf "$out/install"
if build "$out/build-install" --prefix="$out/install" --libdir=lib -Dtests=false -Dwerror=true &&
	meson install -C "$out/build-install" --quiet >"$out/install.log" 2>&1; then
	if bash tests/check_install.sh "$out/install" "$out/examples"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); failures+=("install/examples")
	fi
else
	failed=$((failed + 1)); failures+=("install")
fi

# the test NVMe/TCP target of the gcc build, for the bindings' event-loop tests over tcp
tcp_target="$out/build-gcc/tests/tcp_target_serve"

step "Python bindings (python/, pytest against the installed library)"
if [ -d "$out/install" ]; then
	XNVME_PY_VENV="$out/python-venv" XNVME_TCP_TARGET_SERVE="$tcp_target" \
		python/run_tests.sh "$out/install" >"$out/python.log" 2>&1
	tail -n 5 "$out/python.log"
	count_pytest "$out/python.log" python
else
	failed=$((failed + 1)); failures+=("python (no install)")
fi

step "Rust bindings (rust/: cargo test, clippy, doc against the installed library)"
if [ -d "$out/install" ]; then
	CARGO_TARGET_DIR="$out/rust-target" XNVME_TCP_TARGET_SERVE="$tcp_target" \
		rust/run_tests.sh "$out/install" >"$out/rust.log" 2>&1
	grep -E '^(SKIP|rust:)' "$out/rust.log"
	p=$(sed -nE 's/^rust: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$out/rust.log")
	f=$(sed -nE 's/^rust: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$out/rust.log")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	[ "${f:-1}" -eq 0 ] || { tail -n 30 "$out/rust.log"; failures+=("rust (see $out/rust.log)"); }
else
	failed=$((failed + 1)); failures+=("rust (no install)")
fi

step "fio 3.33 xnvme engine"
fio=""
if [ -d "$out/install" ] && fio=$(bench/build_fio.sh "$out/install" "$out/fio-cache" 2>"$out/fio-build.log"); then
	if tests/fio/run_fio_compat.sh "$fio" "$out/fio" | tee "$out/fio.log"; then :; fi
	p=$(sed -nE 's/^fio: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$out/fio.log")
	f=$(sed -nE 's/^fio: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$out/fio.log")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	[ "${f:-1}" -eq 0 ] || failures+=("fio")
else
	tail -30 "$out/fio-build.log"
	failed=$((failed + 1)); failures+=("fio build")
fi

step "QEMU guest: the device suite on the Linux NVMe driver"
if [ -f "$out/build-gcc/build.ninja" ] && tests/qemu/rig.sh prepare --fdp >"$out/qemu-prepare.log" 2>&1; then
	tests/qemu/rig.sh run --fdp --slow --vfio --workdir "$root" --timeout 2400 \
		--env NVMEFS_EXTENSION="$root/duckdb/build/nvmefs.duckdb_extension" \
		--env XNVME_GUEST_PY_VENV="$out/python-venv" \
		--env XNVME_GUEST_PYTHON="$(command -v python3)" -- \
		tests/guest/run_suite.sh "$out/build-gcc" "$out/guest" "$fio" | tee "$out/guest.log"
	p=$(sed -nE 's/^guest: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1/p' "$out/guest.log")
	f=$(sed -nE 's/^guest: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\2/p' "$out/guest.log")
	s=$(sed -nE 's/^guest: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\3/p' "$out/guest.log")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	skipped=$((skipped + ${s:-0}))
	[ "${f:-1}" -eq 0 ] || failures+=("guest")
else
	tail -30 "$out/qemu-prepare.log"
	failed=$((failed + 1)); failures+=("qemu rig")
fi

step "C sources match .clang-format (scripts/check_format.sh)"
if scripts/check_format.sh >"$out/format.log" 2>&1; then
	passed=$((passed + 1))
else
	cat "$out/format.log"
	failed=$((failed + 1)); failures+=("format (scripts/check_format.sh --fix rewrites)")
fi

step "the run leaves the tree clean (git status --porcelain)"
if git rev-parse --git-dir >/dev/null 2>&1; then
	dirty=$(comm -13 <(sort <<<"$git_before") <(git status --porcelain | sort))
	if [ -z "$dirty" ]; then
		passed=$((passed + 1))
	else
		echo "$dirty"
		failed=$((failed + 1))
		failures+=("files left in the tree: $(awk '{print $NF}' <<<"$dirty" | tr '\n' ' ')")
	fi
fi

echo
for f in "${failures[@]}"; do
	echo "failed: $f"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
