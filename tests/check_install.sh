#!/usr/bin/env bash
# The installed library works for a client that knows only pkg-config: build every example
# with `pkg-config --cflags --libs xnvme` as scripts/demo.sh does and with strict flags (ISO C11
# -pedantic with gcc and clang, C++17 -pedantic; all warnings errors), one statically, then run
# them on the ramdisk and on a regular file. The installed example programs (bin/xnvme_*) run
# without LD_LIBRARY_PATH, answer --help as their man pages say, and exercise the same devices.
#   usage: check_install.sh <install prefix> <work dir>
set -euo pipefail
prefix=${1:?usage: check_install.sh <prefix> <workdir>}
work=${2:?usage: check_install.sh <prefix> <workdir>}
src=$(cd "$(dirname "$0")/.." && pwd)/examples
mkdir -p "$work"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

pkg-config --atleast-version=0.7.4 xnvme || { echo "xnvme.pc missing or too old"; exit 1; }
[ "$(pkg-config --modversion xnvme)" = "0.7.5" ] || { echo "wrong version"; exit 1; }
for h in libxnvme.h libxnvme_libconf.h libxnvme_nvm.h libxnvme_znd.h libxnvme_spec_fs.h; do
	[ -f "$prefix/include/$h" ] || { echo "header $h not installed"; exit 1; }
done
[ "$(readlink "$prefix/lib/libxnvme.so.0")" = "libxnvme.so.0.7.5" ] || { echo "SONAME link"; exit 1; }
[ -f "$prefix/lib/libxnvme.a" ] || { echo "static library not installed"; exit 1; }
objdump -p "$prefix/lib/libxnvme.so" | grep -q "SONAME *libxnvme.so.0$" || { echo "SONAME"; exit 1; }
# nm -D and nm of what is installed name no test hook
python3 "$(dirname "$0")/check_no_test_hooks.py" "$prefix/lib/libxnvme.so" "$prefix/lib/libxnvme.a"

examples=(xnvme_hello_sync xnvme_hello_async xnvme_enum xnvme_file_api xnvme_demo)
strict=(-Wall -Wextra -pedantic -Werror)
for ex in "${examples[@]}"; do
	# the flags of scripts/demo.sh, then strict ISO C11 and C++17 (no feature macros)
	# shellcheck disable=SC2046
	cc -std=c11 -O2 -o "$work/$ex" "$src/$ex.c" $(pkg-config --cflags --libs xnvme)
	for c in gcc clang; do
		command -v $c >/dev/null || continue
		# shellcheck disable=SC2046
		$c -std=c11 "${strict[@]}" -o "$work/$ex-$c" "$src/$ex.c" \
			$(pkg-config --cflags --libs xnvme) || { echo "$ex: $c -std=c11 ${strict[*]}"; exit 1; }
	done
	for cxx in g++ clang++; do
		command -v $cxx >/dev/null || continue
		# shellcheck disable=SC2046
		$cxx -x c++ -std=c++17 "${strict[@]}" -o "$work/$ex-$cxx" "$src/$ex.c" \
			$(pkg-config --cflags --libs xnvme) || { echo "$ex: $cxx -std=c++17 ${strict[*]}"; exit 1; }
	done
done
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -Wall -Werror -o "$work/xnvme_hello_sync_static" \
	"$src/xnvme_hello_sync.c" $(pkg-config --cflags xnvme) "$prefix/lib/libxnvme.a" \
	$(pkg-config --libs-only-l --static xnvme | sed 's/-lxnvme//') -pthread
if readelf -d "$work/xnvme_hello_sync_static" | grep -q libxnvme; then
	echo "static example links the shared library"; exit 1
fi

img="$work/example.img"
truncate -s 64M "$img"
"$work/xnvme_hello_sync" 1GB
"$work/xnvme_hello_sync" "$img"
"$work/xnvme_hello_sync_static" 1GB
"$work/xnvme_hello_async" 1GB
"$work/xnvme_hello_async" 1GB emu
"$work/xnvme_hello_async" "$img" thrpool
"$work/xnvme_hello_async" "$img" posix
"$work/xnvme_file_api" "$work/file-api.bin"
"$work/xnvme_enum"
"$work/xnvme_demo-clang++" 1GB "$img" >"$work/demo.txt" 2>"$work/demo.err"
cat "$work/demo.txt"
grep -q "^1GB .* thrpool .* yes$" "$work/demo.txt"

# The installed example programs: found through the install rpath, --help as the man page says
# (usage, summary as the NAME line, example), exit 2 with the usage on stderr when arguments are
# missing, and the same runs as above
libdir=$(cd "$prefix/lib" && pwd)
for ex in "${examples[@]}"; do
	bin="$prefix/bin/$ex"
	page="$prefix/share/man/man1/$ex.1"
	[ -x "$bin" ] || { echo "example $ex not installed"; exit 1; }
	[ -f "$page" ] || { echo "man page $ex(1) not installed"; exit 1; }
	readelf -d "$bin" | grep -Fq "[$libdir]" || { echo "$ex: no rpath to $libdir"; exit 1; }
	env -u LD_LIBRARY_PATH "$bin" --help >"$work/$ex.help" || { echo "$ex --help failed"; exit 1; }
	usage=$(sed -n '1s/^Usage: //p' "$work/$ex.help")
	summary=$(sed -n '2p' "$work/$ex.help")
	example=$(sed -n '3s/^Example: //p' "$work/$ex.help")
	[ -n "$usage" ] && [ -n "$summary" ] && [ -n "$example" ] || { echo "$ex --help: usage, summary, example"; exit 1; }
	MANWIDTH=200 man -l "$page" 2>/dev/null | col -b >"$work/$ex.man"
	for want in "$ex - ${summary%.}" "$usage" "$example"; do
		# man reflows and hyphenates: compare with the whitespace squeezed out
		tr -d ' \n' <"$work/$ex.man" | grep -Fq -- "$(tr -d ' ' <<<"$want")" ||
			{ echo "$ex(1) lacks '$want' of --help"; exit 1; }
	done
	if [ "$ex" != xnvme_enum ]; then
		status=0
		env -u LD_LIBRARY_PATH "$bin" >/dev/null 2>"$work/$ex.usage" || status=$?
		[ "$status" -eq 2 ] && grep -q "^Usage: $ex" "$work/$ex.usage" ||
			{ echo "$ex without arguments: exit $status, not 2 with the usage on stderr"; exit 1; }
	fi
done
env -u LD_LIBRARY_PATH "$prefix/bin/xnvme_hello_sync" "$img"
env -u LD_LIBRARY_PATH "$prefix/bin/xnvme_hello_async" "$img" thrpool
env -u LD_LIBRARY_PATH "$prefix/bin/xnvme_file_api" "$work/file-api-installed.bin"
env -u LD_LIBRARY_PATH "$prefix/bin/xnvme_enum" >/dev/null
env -u LD_LIBRARY_PATH "$prefix/bin/xnvme_demo" 1GB "$img" >"$work/demo-installed.txt" 2>&1 ||
	{ cat "$work/demo-installed.txt"; echo "installed xnvme_demo failed"; exit 1; }
grep -q "^# $img (backend linux): 1 sync and [1-9][0-9]* async mechanisms verified, .* 0 failed$" \
	"$work/demo-installed.txt" || { cat "$work/demo-installed.txt"; echo "installed xnvme_demo"; exit 1; }
# The installed tools run without LD_LIBRARY_PATH (install rpath), and the API reference is
# installed: libxnvme(3), one man(3) page per function, the HTML page
if [ -x "$prefix/bin/xnvme" ]; then
	libdir=$(cd "$prefix/lib" && pwd)
	for tool in xnvme lblk zoned kvs xdd xnvme_file xnvmeperf; do
		readelf -d "$prefix/bin/$tool" | grep -Fq "[$libdir]" ||
			{ echo "$tool: no rpath to $libdir"; exit 1; }
	done
	env -u LD_LIBRARY_PATH "$prefix/bin/xnvme" info 1GB >"$work/info.txt"
	grep -q "uri: '1GB'" "$work/info.txt" || { echo "installed xnvme info 1GB"; exit 1; }
	env -u LD_LIBRARY_PATH "$prefix/bin/xnvmeperf" --help >/dev/null
fi
for page in libxnvme xnvme_dev_open xnvme_nvm_read xnvme_queue_poke; do
	[ -f "$prefix/share/man/man3/$page.3" ] || { echo "man page $page(3) not installed"; exit 1; }
done
[ -f "$prefix/share/doc/xnvme/libxnvme-api.html" ] || { echo "API reference not installed"; exit 1; }
echo "install: pkg-config clients build and run"
