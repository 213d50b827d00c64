#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The nvmefs benchmark on NVMe namespaces in the QEMU guest (tests/qemu/rig.sh, Debian's kernel
# and NVMe driver): DuckDB on its local file system (ext4 on /dev/nvme0n1) against DuckDB on
# nvmefs on a second namespace of the same size, through /dev/ng0n2 and io_uring_cmd. Both
# namespaces are QEMU NVMe namespaces on the same controller, backed by image files in the same
# host directory. The page cache is dropped before every run (DuckDB's buffer pool is fresh per
# run anyway), so the local file system reads from the device like nvmefs does.
#
#   duckdb/bench/guest.sh            (host: builds what is missing, boots the guest, plots)
#
# Environment: SF=0.1, RUNS=3, WORKLOADS=tpch,spill, TPCH_MEMORY=256MB, SPILL_MEMORY=128MB,
# THREADS=1, NS_SIZE=4G, MEM=3072 (guest MiB), OUT=duckdb/bench/results/guest, QUERIES (a
# comma-separated subset), WARM=1 (also time each query again in the same instance: cold - warm
# is what reading from storage costs; the profile of the 1.3x target), IOBENCH=1 (first
# nvmefs_iobench on the nvmefs namespace and on a file of the ext4 file system).
# QEMU runs under TCG here: absolute times are an emulator's; only the ratios carry information.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
duck=$(dirname "$here")
root=$(dirname "$duck")
SF=${SF:-0.1}
RUNS=${RUNS:-3}
WORKLOADS=${WORKLOADS:-tpch,spill}
OUT=${OUT:-$here/results/guest}

if [ "${1:-}" = --in-guest ]; then
	: "${XNVME_QEMU_GUEST:?--in-guest runs inside the QEMU guest}"
	py=$2 ext=$3 data=$4 src=$5
	mkfs.ext4 -q -F "$XNVME_QEMU_NVM_BLK"
	mkdir -p /mnt/local
	mount "$XNVME_QEMU_NVM_BLK" /mnt/local
	trap 'umount /mnt/local' EXIT
	if [ -n "${IOBENCH:-}" ]; then
		# the device path without DuckDB: 256 KiB random reads and writes over 1 GiB
		iob=$(dirname "$ext")/nvmefs_iobench
		dd if=/dev/zero of=/mnt/local/io.img bs=1M count=1024 status=none
		sync
		{
			for rw in "" --write; do
				for args in "$XNVME_QEMU_NVM4K_CHR --async io_uring_cmd" \
					"/mnt/local/io.img --pread" "/mnt/local/io.img --pread --direct"; do
					echo 3 >/proc/sys/vm/drop_caches
					# shellcheck disable=SC2086
					echo "$args $rw: $("$iob" $args $rw --random --seconds 5 --span $((1 << 30)))"
				done
			done
		} | tee "$OUT/iobench.txt"
		rm -f /mnt/local/io.img
	fi
	"$py" "$here/bench.py" --extension "$ext" --data "$data" --source "$src" \
		--workdir /mnt/local/bench --out "$OUT" --runs "$RUNS" --workloads "$WORKLOADS" \
		--sf "$SF" --drop-caches --threads "${THREADS:-1}" \
		--tpch-memory "${TPCH_MEMORY:-256MB}" --spill-memory "${SPILL_MEMORY:-128MB}" \
		${QUERIES:+--queries "$QUERIES"} ${WARM:+--warm} --target "local:local" \
		--target "nvmefs-ng:nvmefs@$XNVME_QEMU_NVM4K_CHR:ASYNC 'io_uring_cmd'"
	exit
fi

py=$(command -v "${PYTHON:-python3}")
"$py" -c 'import matplotlib' 2>/dev/null ||
	"$py" -m pip install -q --disable-pip-version-check matplotlib==3.11.2 >&2
command -v tpchgen-cli >/dev/null ||
	"$py" -m pip install -q --disable-pip-version-check tpchgen-cli==4.0.0 >&2
ext=$(bash "$duck/build.sh")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnvme-duckdb
src=$cache/duckdb-$("$py" -c 'import duckdb; print(duckdb.__version__)')/external/duckdb
data=$cache/tpch-sf$SF
if [ ! -f "$data/.done" ]; then
	mkdir -p "$data"
	tpchgen-cli parquet -s "$SF" --output-dir="$data" >&2
	touch "$data/.done"
fi
mkdir -p "$OUT"
"$root/tests/qemu/rig.sh" prepare >&2
XNVME_QEMU_NVM_SIZE=${NS_SIZE:-4G} XNVME_QEMU_NVM4K_SIZE=${NS_SIZE:-4G} \
	"$root/tests/qemu/rig.sh" run --workdir "$root" --mem "${MEM:-3072}" --timeout 7200 \
	--env SF="$SF" --env RUNS="$RUNS" --env WORKLOADS="$WORKLOADS" --env OUT="$OUT" \
	--env THREADS="${THREADS:-1}" --env TPCH_MEMORY="${TPCH_MEMORY:-256MB}" \
	--env SPILL_MEMORY="${SPILL_MEMORY:-128MB}" --env QUERIES="${QUERIES:-}" \
	--env WARM="${WARM:-}" --env IOBENCH="${IOBENCH:-}" -- \
	"$here/guest.sh" --in-guest "$py" "$ext" "$data" "$src"
"$py" "$here/plot.py" "$OUT/results.json" "$OUT"
