#!/usr/bin/env bash
# Cross-builds the library, tools and tests for 64-bit Windows with mingw-w64 (-Werror, the
# cross file meson/cross/mingw-w64-x86_64.txt) and runs the portable unit programs under Wine;
# then installs the build (meson install) and runs the installed examples (on the ramdisk and
# on a file, with the sync, emu, thrpool and iocp paths) and tools from the installed bin
# directory with no WINEPATH: the tree is self-contained (the mingw runtime DLLs are installed
# beside the library, and every DLL an installed program imports is there or the system's).
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
	meson setup --cross-file meson/cross/mingw-w64-x86_64.txt -Dwerror=true "$build" >"$build/setup.log" 2>&1 ||
		{ tail -n 20 "$build/setup.log"; fail "meson setup failed"; }
fi
ninja -C "$build" >"$build/ninja.log" 2>&1 || { grep -E 'error|FAILED' "$build/ninja.log" | head -n 20; fail "cross build failed"; }
for f in lib/libxnvme-0.dll lib/libxnvme.dll.a meson-private/xnvme.pc tools/xnvme.exe tools/xnvmeperf.exe; do
	[ -f "$build/$f" ] || fail "cross build did not produce $f"
done

# The DLL exports exactly the version script's names, which tests/check_symbols.py holds the
# Linux library to: the same symbol set on both
x86_64-w64-mingw32-objdump -p "$build/lib/libxnvme-0.dll" |
	sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p' | sort >"$build/exports-dll.txt"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' lib/libxnvme.map | sort >"$build/exports-map.txt"
if [ -s "$build/exports-dll.txt" ] && diff "$build/exports-map.txt" "$build/exports-dll.txt" >"$build/exports.diff"; then
	echo "ok: the DLL exports the $(wc -l <"$build/exports-dll.txt") names of lib/libxnvme.map"
	exports_ok=1
else
	echo "FAIL: the DLL's exports differ from lib/libxnvme.map:"
	head -n 10 "$build/exports.diff"
	exports_ok=0
fi

# A cold prefix takes ~10 s to create; wineboot first so that no test pays it under a timeout
[ -d "$WINEPREFIX/drive_c" ] || wine64 wineboot -i >/dev/null 2>&1
# One wineserver for the whole run: left to itself it exits a few seconds after its last
# client, and a program starting while it shuts down fails with "recvmsg: Connection reset by
# peer" before running any code of ours. Wine's own background processes are started here,
# on /dev/null: started by a test they would live on with the server and keep the test's
# output pipe open, so meson would wait for it until the timeout.
wineserver -p
trap 'wineserver -k >/dev/null 2>&1' EXIT
wine64 cmd /c exit 0 </dev/null >/dev/null 2>&1

meson test -C "$build" --no-rebuild --num-processes 2 >"$build/test.log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ ' "$build/test.log"
p=$(grep -cE '^ *[0-9]+/[0-9]+ .* (OK|SKIP) ' "$build/test.log")
f=$(grep -cE '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|ERROR) ' "$build/test.log")
# meson not running the tests at all is a failure too
[ "$p" -gt 0 ] || f=$((f + 1))
[ "$exports_ok" = 1 ] && p=$((p + 1)) || f=$((f + 1))

# tally STATUS OK_TEXT FAIL_TEXT [OUTPUT]: counts a check (status 0 passes) and says so; a
# failure shows the end of the file OUTPUT
tally() {
	if [ "$1" -eq 0 ]; then
		p=$((p + 1))
		echo "ok: $2"
	else
		f=$((f + 1))
		echo "FAIL: $3"
		[ -z "${4:-}" ] || tail -n 5 "$4"
	fi
}

# The tables of the documentation about the windows backend match its registry
# (tests/check_doc_tables.py; the meson suite checks the others with the Linux build's)
img="$build/example.img"
truncate -s 1M "$img"
# (a program of the build tree: it finds the DLLs through WINEPATH, as meson's tests do)
WINEPATH="Z:$build/lib;Z:$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)");Z:/usr/x86_64-w64-mingw32/lib" \
	timeout 120 wine64 "$build/tests/windows/registry_dump.exe" 1GB "Z:$img" >"$build/registry.json" 2>"$build/registry.err" &&
	python3 tests/check_doc_tables.py . --registry "$build/registry.json" --backends windows \
		>"$build/doc-tables.log" 2>&1
tally $? "the documentation's windows tables match the registry" \
	"the documentation's windows tables (tests/check_doc_tables.py)" "$build/doc-tables.log"

# The installed tree, as a user copies it to a Windows machine: no WINEPATH from here on
unset WINEPATH
rm -rf "$build/installed"
meson install -C "$build" --no-rebuild --destdir "$build/installed" >"$build/install.log" 2>&1
tally $? "meson install" "meson install (see $build/install.log)" "$build/install.log"
bin=$(find "$build/installed" -path '*/bin/xnvme.exe' -printf '%h\n' | head -n 1)
[ -n "$bin" ] || fail "the install has no bin/xnvme.exe"
# every DLL an installed program or library imports is installed beside it or is Wine's
# (system32 of the prefix, where Windows' own DLLs are)
sys32="$WINEPREFIX/drive_c/windows/system32"
missing=""
for exe in "$bin"/*.exe "$bin"/*.dll; do
	for dll in $(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^[[:space:]]*DLL Name: //p'); do
		[ -e "$bin/$dll" ] || [ -e "$sys32/$(tr '[:upper:]' '[:lower:]' <<<"$dll")" ] ||
			missing+=" $(basename "$exe"):$dll"
	done
done
[ -z "$missing" ]
tally $? "the installed programs find every DLL they import in bin/ or the system" \
	"DLLs the installed tree lacks:$missing"

# The installed examples, as tests/check_install.sh runs them on Linux; a file as Z:<unix path>
img="$build/example.img"
rm -f "$img" "$build/file-api.bin"
truncate -s 64M "$img"
example() {
	local name=$1
	shift
	timeout 120 wine64 "$bin/$name.exe" "$@" >"$build/example.out" 2>&1
	tally $? "$name $*" "$name $*" "$build/example.out"
}
example xnvme_hello_sync 1GB
example xnvme_hello_sync "Z:$img"
example xnvme_hello_async 1GB emu
example xnvme_hello_async "Z:$img" thrpool
example xnvme_hello_async "Z:$img" iocp
example xnvme_hello_async "Z:$img" iocp_th
example xnvme_file_api "Z:$build/file-api.bin"
example xnvme_enum
example xnvme_demo 1GB "Z:$img"
if grep -q "^1GB .* thrpool .* yes" "$build/example.out"; then
	p=$((p + 1))
else
	f=$((f + 1))
	echo "FAIL: xnvme_demo did not verify the ramdisk with thrpool"
fi

# The installed tools on the ramdisk and a file: exit codes, data written and read back, a
# short xnvmeperf
tools=$bin
. scripts/wine_tools.sh

echo "wine: $p passed, $f failed"
[ "$f" -eq 0 ]
