#!/usr/bin/env bash
# README command 1: installs what is missing, builds, installs into ./_install, then builds the
# demo against the installed library through pkg-config (strict ISO C11, no feature macros) and
# runs it on the embedded default device (an in-memory NVMe controller, URI "1GB") and on a
# regular file. Exits non-zero unless every mechanism of both devices that opened wrote, read
# back and verified its data (examples/xnvme_demo.c); scripts/test.sh runs this first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

./scripts/setup.sh
meson setup _build --prefix="$root/_install" --libdir=lib -Dtests=false >/dev/null 2>&1 ||
	meson setup --reconfigure _build --prefix="$root/_install" --libdir=lib -Dtests=false >/dev/null
ninja -C _build >/dev/null
meson install -C _build --quiet >/dev/null

export PKG_CONFIG_PATH="$root/_install/lib/pkgconfig"
mkdir -p _demo
# shellcheck disable=SC2046
cc -std=c11 -O2 -o _demo/xnvme_demo examples/xnvme_demo.c $(pkg-config --cflags --libs xnvme)

file=_demo/demo.img
truncate -s 64M "$file"
echo "# xnvme $(pkg-config --modversion xnvme): the same program over every mechanism"
if ! ./_demo/xnvme_demo 1GB "$file" 2>_demo/demo.log; then
	cat _demo/demo.log >&2
	echo "# demo: FAILED: a device did not open, or a mechanism that opened did not verify" >&2
	exit 1
fi
