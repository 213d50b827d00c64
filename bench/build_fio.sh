#!/usr/bin/env bash
# Builds fio 3.33 from Debian's source package against an installed libxnvme, so that fio's
# built-in `xnvme` engine uses our library. The build is cached: it is redone only when the
# library prefix changes or the binary is missing.
#   usage: bench/build_fio.sh <libxnvme install prefix> [cache dir]
# Prints the path of the fio binary on stdout.
set -euo pipefail
prefix=$(realpath "${1:?usage: build_fio.sh <prefix> [cache dir]}")
cache=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/xnvme-fio}
mkdir -p "$cache"
cache=$(realpath "$cache")
pcdir=$(dirname "$(find "$prefix" -name xnvme.pc | head -n1)")
[ -f "$pcdir/xnvme.pc" ] || { echo "build_fio: no xnvme.pc under $prefix" >&2; exit 1; }

srcdir="$cache/fio-3.33"
stamp="$cache/stamp"
if [ -x "$srcdir/fio" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$pcdir" ]; then
	echo "$srcdir/fio"
	exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# A fresh machine has no deb-src entry: add one next to the existing deb822 sources
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null &&
	! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/ 2>/dev/null; then
	sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
		$SUDO tee /etc/apt/sources.list.d/xnvme-deb-src.sources >/dev/null
	$SUDO apt-get update -qq >&2
fi
for p in dpkg-dev make gcc libaio-dev pkgconf; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$p" >&2
done

rm -rf "$srcdir"
(cd "$cache" && apt-get source -qq fio=3.33-3 >&2 2>/dev/null || apt-get source -qq fio >&2)
[ -d "$srcdir" ] || { echo "build_fio: apt-get source did not produce $srcdir" >&2; exit 1; }
(
	cd "$srcdir"
	PKG_CONFIG_PATH="$pcdir" ./configure --disable-native --prefix=/usr >"$cache/configure.log" 2>&1
	grep -q "xnvme engine *yes" "$cache/configure.log" || {
		echo "build_fio: fio's configure did not enable the xnvme engine" >&2
		cat "$cache/configure.log" >&2
		exit 1
	}
	make -j"$(nproc)" fio >"$cache/make.log" 2>&1 || { tail -30 "$cache/make.log" >&2; exit 1; }
)
echo "$pcdir" >"$stamp"
echo "$srcdir/fio"
