#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The guest part of bench/suite.py: ours vs fio's native engines on the QEMU NVMe namespace,
# /dev/nvmeXn1 (io_uring, libaio, psync/emu: O_DIRECT) and /dev/ngXn1 (io_uring_cmd), QD 1
# and 16, in one boot. TCG emulation makes every figure slow: only the ratios mean anything.
#
#   bench/suite_guest.sh <fio> <dir with libxnvme.so.0> [outdir] [seconds per run]
#
# Run from the host; it calls tests/qemu/rig.sh itself (one boot, 2 vCPUs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fio=$(realpath "${1:?usage: suite_guest.sh <fio> <libdir> [outdir] [seconds]}")
lib=$(realpath "${2:?usage: suite_guest.sh <fio> <libdir> [outdir] [seconds]}")
out=$(realpath -m "${3:-$root/bench/results/suite-guest}")
rt=${4:-1}
mkdir -p "$out"
exec "$root/tests/qemu/rig.sh" run --smp 2 --mem 2048 --timeout 1200 --workdir "$root" -- \
	python3 "$root/bench/suite.py" --fio "$fio" --lib "$lib" --targets nvme,ng \
	--pairs io_uring,libaio,psync,io_uring_cmd --qds 1,16 --reps 3 --runtime "$rt" \
	--workdir /tmp/xnvme-suite --outdir "$out"
