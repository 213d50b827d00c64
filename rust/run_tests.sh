#!/usr/bin/env bash
# Rust bindings suite: rust/run_tests.sh <install prefix of libxnvme>
#
# Uses the library installed under the prefix (pkg-config module xnvme in <prefix>/lib/pkgconfig
# or <prefix>/lib/*/pkgconfig), builds into $CARGO_TARGET_DIR (default: <repo>/_test/rust-target),
# and runs:
#   1. cargo test --workspace                 (unit, integration and doc tests, no features)
#   2. cargo test --workspace --all-features  (tokio `async` feature; the xnvme-sys bindings check
#                                              with `regenerate`, when libclang is available)
#   3. cargo clippy --workspace --all-targets [--all-features] -- -D warnings; cargo fmt --check
#   4. cargo doc --workspace --no-deps --features xnvme/async with RUSTDOCFLAGS=-D warnings
#   5. cargo package --workspace (metadata complete, checked field by field; the packaged
#      crates build)
# XNVME_TCP_TARGET_SERVE=<meson build>/tests/tcp_target_serve also runs the tokio tests over the
# tcp backend against that test target (else they print a SKIP line).
# Prints "rust: N passed, N failed" (test results; a failing clippy/doc/build step counts as a
# failure) and exits non-zero when anything failed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
prefix=${1:?usage: rust/run_tests.sh <install prefix>}
prefix=$(cd "$prefix" && pwd) || exit 2

export PATH="$HOME/.cargo/bin:/root/.cargo/bin:$PATH"
if ! command -v cargo >/dev/null; then
	echo "rust: cargo not found (install rustup's stable toolchain into ~/.cargo)"
	echo "rust: 0 passed, 1 failed"
	exit 1
fi
pcdirs=$(find "$prefix" -path '*/pkgconfig/xnvme.pc' -printf '%h:' 2>/dev/null)
libdirs=$(find "$prefix" -name 'libxnvme.so*' -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
if [ -z "$pcdirs" ]; then
	echo "rust: no xnvme.pc under $prefix"
	echo "rust: 0 passed, 1 failed"
	exit 1
fi
export PKG_CONFIG_PATH="${pcdirs}${PKG_CONFIG_PATH:-}"
export LD_LIBRARY_PATH="${libdirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/_test/rust-target}
export CARGO_TERM_COLOR=never
export RUST_BACKTRACE=1
# bindgen (only for the bindings check) finds Debian's libclang here.
if [ -z "${LIBCLANG_PATH:-}" ]; then
	for d in /usr/lib/llvm-*/lib; do
		[ -e "$d/libclang.so.1" ] || [ -e "$d/libclang.so" ] && LIBCLANG_PATH=$d
	done
	[ -n "${LIBCLANG_PATH:-}" ] && export LIBCLANG_PATH
fi
mkdir -p "$CARGO_TARGET_DIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xnvme-rs.XXXXXX")
export XNVME_RUST_TMPDIR=$tmp
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 2

passed=0
failed=0
failures=()

# Adds the "test result:" counts of a cargo test log.
count() {
	local p f
	read -r p f < <(awk '/^test result: /{for(i=1;i<=NF;i++){if($(i+1)~/^passed/)p+=$i; if($(i+1)~/^failed/)f+=$i}} END{print p+0, f+0}' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
}

step() { echo "== rust: $*"; }

run_tests() {
	local name=$1
	shift
	step "cargo test $*"
	local log=$tmp/$name.log
	if cargo test --workspace --locked "$@" -- --show-output >"$log" 2>&1; then
		count "$log"
	else
		count "$log"
		if ! grep -q '^test result: FAILED' "$log"; then
			# A build failure, not a test failure: counts as one.
			failed=$((failed + 1))
		fi
		failures+=("cargo test $*")
		grep -E '^(error|warning)(\[|:)|panicked|^---- |FAILED' "$log" | head -40
	fi
	grep -E '^SKIP: ' "$log" | sort -u
}

features=(--features xnvme/async)
if [ -n "${LIBCLANG_PATH:-}" ]; then
	features=(--all-features)
else
	echo "SKIP: xnvme-sys bindings check (no libclang; install libclang1-14 / clang)"
fi

run_tests plain
run_tests all "${features[@]}"

step "cargo clippy"
if cargo clippy --workspace --locked --all-targets -- -D warnings >"$tmp/clippy.log" 2>&1 &&
	cargo clippy --workspace --locked --all-targets "${features[@]}" -- -D warnings >>"$tmp/clippy.log" 2>&1; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	failures+=("clippy")
	grep -E '^(error|warning)' -A6 "$tmp/clippy.log" | head -60
fi

if cargo fmt --version >/dev/null 2>&1; then
	step "cargo fmt --check"
	if cargo fmt --all --check >"$tmp/fmt.log" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("fmt")
		head -40 "$tmp/fmt.log"
	fi
else
	echo "SKIP: cargo fmt --check (no rustfmt)"
fi

step "cargo doc"
if RUSTDOCFLAGS="-D warnings" cargo doc --workspace --locked --no-deps --features xnvme/async >"$tmp/doc.log" 2>&1; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	failures+=("doc")
	grep -E '^(error|warning)' -A6 "$tmp/doc.log" | head -40
fi

step "cargo package (publishing metadata, packaged crates build)"
# every field crates.io shows, for both crates (repository/homepage: only once the project has
# a public URL; cargo needs one of them or documentation, which is set)
meta_ok() {
	cargo metadata --no-deps --format-version 1 --locked 2>>"$tmp/package.log" | python3 -c '
import json, sys
need = ["description", "license", "readme", "documentation", "keywords", "categories",
        "rust_version", "edition"]
bad = ["%s: no %s" % (p["name"], f) for p in json.load(sys.stdin)["packages"] for f in need
       if not p.get(f)]
print("\n".join(bad) or "metadata complete")
sys.exit(1 if bad else 0)' >>"$tmp/package.log" 2>&1
}
if meta_ok && cargo package --workspace --locked --allow-dirty >>"$tmp/package.log" 2>&1; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	failures+=("package")
	grep -E '^(error|warning)|: no ' -A6 "$tmp/package.log" | head -40
fi

for f in "${failures[@]}"; do
	echo "FAILED: rust: $f"
done
echo "rust: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
