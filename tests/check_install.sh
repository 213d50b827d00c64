#!/usr/bin/env bash
# The installed library works for a client that knows only pkg-config: build every example
# with `pkg-config --cflags --libs xnvme` (and one statically), then run them on the ramdisk
# and on a regular file.
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

for ex in xnvme_hello_sync xnvme_hello_async xnvme_enum xnvme_file_api xnvme_demo; do
	# shellcheck disable=SC2046
	cc -std=gnu99 -Wall -Werror -o "$work/$ex" "$src/$ex.c" $(pkg-config --cflags --libs xnvme)
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
"$work/xnvme_demo" 1GB "$img" >"$work/demo.txt" 2>"$work/demo.err"
cat "$work/demo.txt"
grep -q "^1GB .* thrpool .* yes$" "$work/demo.txt"
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
