#!/usr/bin/env bash
# Cross-builds the library, tools and tests for 64-bit Windows with mingw-w64 (-Werror, the
# cross file meson/cross/mingw-w64-x86_64.txt) and runs the portable unit programs under Wine.
#   scripts/wine_test.sh [BUILD_DIR]     (default: _test/build-wine)
# The Wine prefix is private, under BUILD_DIR. Ends with "wine: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-_test/build-wine}
mkdir -p "$build"
build=$(cd "$build" && pwd)

# Debian's wine64 package installs its loader outside PATH
export PATH="/usr/lib/wine:$PATH"
export WINEDEBUG=-all WINEPREFIX="$build/wineprefix" WINEARCH=win64

fail() {
	echo "wine: $1"
	echo "wine: 0 passed, 1 failed"
	exit 1
}
command -v x86_64-w64-mingw32-gcc >/dev/null || fail "x86_64-w64-mingw32-gcc missing (scripts/setup.sh)"
command -v wine64 >/dev/null || fail "wine64 missing (scripts/setup.sh)"

if [ ! -f "$build/build.ninja" ]; then
	# The tools (poll, statvfs, ...) and examples are not ported yet: library and tests only
	meson setup --cross-file meson/cross/mingw-w64-x86_64.txt -Dtools=false -Dexamples=false "$build" >"$build/setup.log" 2>&1 ||
		{ tail -n 20 "$build/setup.log"; fail "meson setup failed"; }
fi
ninja -C "$build" >"$build/ninja.log" 2>&1 || { grep -E 'error|FAILED' "$build/ninja.log" | head -n 20; fail "cross build failed"; }
for f in lib/libxnvme-0.dll lib/libxnvme.dll.a meson-private/xnvme.pc; do
	[ -f "$build/$f" ] || fail "cross build did not produce $f"
done

# A cold prefix takes ~10 s to create; wineboot first so that no test pays it under a timeout
[ -d "$WINEPREFIX/drive_c" ] || wine64 wineboot -i >/dev/null 2>&1

meson test -C "$build" --no-rebuild --num-processes 2 >"$build/test.log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ ' "$build/test.log"
p=$(grep -cE '^ *[0-9]+/[0-9]+ .* (OK|SKIP) ' "$build/test.log")
f=$(grep -cE '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|ERROR) ' "$build/test.log")
# meson not running the tests at all is a failure too
[ "$p" -gt 0 ] || f=$((f + 1))
echo "wine: $p passed, $f failed"
[ "$f" -eq 0 ]
