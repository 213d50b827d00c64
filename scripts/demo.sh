#!/usr/bin/env bash
# README command 1: installs what is missing, builds, installs into ./_install, then builds the
# demo against the installed library through pkg-config and runs it on the embedded default
# device (an in-memory NVMe controller, URI "1GB") and on a regular file.
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

file="$root/_demo/demo.img"
truncate -s 64M "$file"
echo "# xnvme $(pkg-config --modversion xnvme): the same program over every mechanism"
./_demo/xnvme_demo 1GB "$file" 2>_demo/demo.log
