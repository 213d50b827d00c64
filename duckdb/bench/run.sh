#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# DuckDB on its local file system versus DuckDB on nvmefs, on the same storage (bench.py).
#
#   duckdb/bench/run.sh [XNVME_PREFIX]
#
# Environment:
#   SF=1            TPC-H scale factor (data from tpchgen-cli, cached)
#   RUNS=3          runs per query and target (medians are reported)
#   WORKLOADS=tpch,spill
#   BENCH_DIR       where the databases and the nvmefs device files live; default
#                   ${XDG_CACHE_HOME:-$HOME/.cache}/xnvme-duckdb/bench (the root file system)
#   TARGETS         ';'-separated NAME:KIND[:SECRET] specs (see bench.py --target); default
#                   local, nvmefs (buffered, emu), nvmefs-direct (O_DIRECT, io_uring)
#   DROP_CACHES=1   drop the page cache before every run (root only)
#   LOOP=1          nvmefs targets use a loop device over their image file (root only)
#   OUT             results directory; default duckdb/bench/results
#   TPCH_MEMORY=512MB, SPILL_MEMORY=256MB   DuckDB memory_limit of the two workloads
#   THREADS=2       DuckDB threads
#
# Installs what is missing (pinned): tpchgen-cli, matplotlib. Builds the extension with
# duckdb/build.sh. Writes OUT/results.json, OUT/summary.csv and OUT/<workload>.png.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
duck=$(dirname "$here")
py=${PYTHON:-python3}
SF=${SF:-1}
RUNS=${RUNS:-3}
WORKLOADS=${WORKLOADS:-tpch,spill}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnvme-duckdb
BENCH_DIR=${BENCH_DIR:-$cache/bench}
OUT=${OUT:-$here/results}
TARGETS=${TARGETS:-"local:local;nvmefs:nvmefs:ASYNC 'emu', ZERO_COPY true;nvmefs-direct:nvmefs:ASYNC 'io_uring', DIRECT true, ZERO_COPY true"}

"$py" -c 'import matplotlib' 2>/dev/null || "$py" -m pip install -q --disable-pip-version-check matplotlib==3.11.2 >&2
command -v tpchgen-cli >/dev/null || "$py" -m pip install -q --disable-pip-version-check tpchgen-cli==4.0.0 >&2

ext=$(bash "$duck/build.sh" "$@")
src=$cache/duckdb-$("$py" -c 'import duckdb; print(duckdb.__version__)')/external/duckdb

data=$cache/tpch-sf$SF
if [ ! -f "$data/.done" ]; then
	echo "generating TPC-H SF $SF into $data" >&2
	mkdir -p "$data"
	tpchgen-cli parquet -s "$SF" --output-dir="$data" >&2
	touch "$data/.done"
fi

args=()
IFS=';' read -r -a specs <<<"$TARGETS"
for t in "${specs[@]}"; do
	args+=(--target "$t")
done
[ "${DROP_CACHES:-0}" = 1 ] && args+=(--drop-caches)
[ "${LOOP:-0}" = 1 ] && args+=(--loop)
args+=(--tpch-memory "${TPCH_MEMORY:-512MB}" --spill-memory "${SPILL_MEMORY:-256MB}" --threads "${THREADS:-2}")
mkdir -p "$OUT" "$BENCH_DIR"
"$py" "$here/bench.py" --extension "$ext" --data "$data" --source "$src" --workdir "$BENCH_DIR" \
	--out "$OUT" --runs "$RUNS" --workloads "$WORKLOADS" --sf "$SF" "${args[@]}"
"$py" "$here/plot.py" "$OUT/results.json" "$OUT"
