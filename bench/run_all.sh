#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One command for the whole benchmark report: builds the library (release-style, own build dir),
# fio 3.33 with its xnvme engine (bench/build_fio.sh, cached), bench/nil_loop and xnvmeperf, then
#   1. instructions per I/O of the nil path under callgrind (bench/count_instructions.py), and
#      the instruction table of fio's rows and the nil loop (bench/instr_table.py), with the
#      original xNVMe 0.7.5 beside it when --original names its install prefix
#   1b. open/close churn (bench/churn_ab.py), beside the original with --original
#   2. xnvmeperf on the ramdisk (multi-queue tool)
#   3. the fio side-by-side suite on the host targets (bench/run_fio_suite.py)
#   4. the same suite in the QEMU NVMe guest (tests/qemu/rig.sh), unless --no-guest
#   5. bench/report.py: Markdown table and PNG plots
# into bench/results/ (or --outdir), recording machine, kernel and commit.
#
#   bench/run_all.sh [--quick | --smoke] [--no-guest] [--outdir DIR] [--targets LIST]
#                    [--original PREFIX]
#
# Full mode takes ~20-30 minutes on the 2-vCPU build VM; --quick a few minutes; --smoke about a
# few seconds per script (what tests/meson.build runs). Needs root for the loop device.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=full
guest=1
outdir="$root/bench/results"
targets="ramdisk,tmpfs,ext4,loop"
original=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick ;;
	--smoke) mode=smoke; guest=0 ;;
	--no-guest) guest=0 ;;
	--outdir) outdir=$2; shift ;;
	--targets) targets=$2; shift ;;
	--original) original=$2; shift ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "run_all: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
log() { printf '# run_all: %s\n' "$*" >&2; }
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

# --- build ------------------------------------------------------------------------------------
# XNVME_BENCH_NIL_LOOP and XNVME_BENCH_XNVMEPERF point at already-built programs (the test suite
# does that) and skip the build; XNVME_FIO names a fio with the xnvme engine.
nil_loop=${XNVME_BENCH_NIL_LOOP:-}
perf=${XNVME_BENCH_XNVMEPERF:-}
bdir=${XNVME_BENCH_BUILD:-$root/build-bench}
prefix="$bdir/_install"
if [ -z "$nil_loop" ] || [ -z "$perf" ]; then
	if [ ! -f "$bdir/build.ninja" ]; then
		log "configuring $bdir"
		meson setup "$bdir" "$root" --prefix="$prefix" --libdir=lib -Dtests=false -Dwerror="${XNVME_WERROR:-false}" \
			-Dexamples=false >"$outdir/.build.log" 2>&1 || { cat "$outdir/.build.log" >&2; exit 1; }
	fi
	log "building and installing the library into $prefix"
	ninja -C "$bdir" install >"$outdir/.build.log" 2>&1 || { tail -30 "$outdir/.build.log" >&2; exit 1; }
	rm -f "$outdir/.build.log"
	pcdir="$prefix/lib/pkgconfig"
	# shellcheck disable=SC2046
	${CC:-cc} -O2 -g -Wall -Wextra -o "$bdir/nil_loop" "$root/bench/nil_loop.c" \
		$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs xnvme)
	nil_loop="$bdir/nil_loop"
	perf="$bdir/tools/xnvmeperf"
fi
# the library the bench runs and its own churn program (built against it; both libraries have
# one SONAME, so the binary runs with either)
libdir=${XNVME_BENCH_LIBDIR:-$prefix/lib}
churn=${XNVME_BENCH_CHURN:-$bdir/churn}
if [ ! -x "$churn" ]; then
	# shellcheck disable=SC2046
	${CC:-cc} -O2 -g -Wall -Wextra -o "$churn" "$root/bench/churn.c" \
		$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs xnvme)
fi

fio=${XNVME_FIO:-}
if [ -z "$fio" ] && [ "$mode" = smoke ]; then
	# smoke runs never build fio: they use a cached one or skip the fio steps
	c="${XDG_CACHE_HOME:-$HOME/.cache}/xnvme-fio/fio-3.33/fio"
	[ -x "$c" ] && fio=$c
elif [ -z "$fio" ]; then
	log "fio 3.33 with the xnvme engine (bench/build_fio.sh; cached)"
	fio=$("$root/bench/build_fio.sh" "$prefix")
fi

# python with matplotlib for the plots: the system one, else a private venv
py=python3
if ! $py -c 'import matplotlib' 2>/dev/null; then
	venv=${XNVME_BENCH_VENV:-$HOME/.cache/xnvme-bench-venv}
	if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
		if [ "$mode" != smoke ]; then
			log "installing matplotlib into $venv"
			/usr/bin/python3 -m venv "$venv" >&2 && "$venv/bin/pip" install -q matplotlib >&2 ||
				log "no matplotlib: the report will have tables only"
		fi
	fi
	[ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import matplotlib' 2>/dev/null && py="$venv/bin/python"
fi

sflag=""
[ "$mode" = full ] || sflag="--$mode"

# --- 1. instructions per I/O ------------------------------------------------------------------
log "1/5 instructions per I/O (callgrind)"
cg_args=(--nil-loop "$nil_loop" --json "$outdir/instructions.json")
[ -n "$fio" ] && cg_args+=(--fio "$fio")
[ "$mode" = smoke ] && cg_args+=(--smoke)
rc=0
python3 "$root/bench/count_instructions.py" "${cg_args[@]}" || rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || exit $rc
it_args=(--lib "$libdir" --nil-loop "$nil_loop" --json "$outdir/instr_table.json")
[ -n "$fio" ] && it_args+=(--fio "$fio")
[ -n "$original" ] && it_args+=(--original "$original")
[ "$mode" = smoke ] && it_args+=(--smoke)
rc=0
python3 "$root/bench/instr_table.py" "${it_args[@]}" || rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || exit $rc

log "1b/5 open/close churn"
ch_args=(--churn "$churn" --lib "this=$libdir" --json "$outdir/churn.json")
[ -n "$original" ] && ch_args+=(--lib "original=$original/lib")
if [ "$mode" = smoke ]; then
	ch_args+=(--rounds 1 --cycles 200)
elif [ "$mode" = quick ]; then
	ch_args+=(--rounds 3 --cycles 5000)
fi
python3 "$root/bench/churn_ab.py" "${ch_args[@]}"

# --- 2. xnvmeperf -----------------------------------------------------------------------------
log "2/5 xnvmeperf on the ramdisk"
rt=2
[ "$mode" = full ] || rt=0.3
[ "$mode" = smoke ] && rt=0.1
python3 "$root/bench/perf_runs.py" host "$perf" "$rt" "$outdir/xnvmeperf.json"
perfs=(--perf "$outdir/xnvmeperf.json")

# --- 3. fio suite on the host -----------------------------------------------------------------
suites=()
if [ -n "$fio" ]; then
	log "3/5 fio suite on the host ($mode: $targets)"
	python3 "$root/bench/run_fio_suite.py" $sflag --fio "$fio" --xnvmeperf "$perf" \
		--targets "$targets" --out "$outdir/suite-host.json"
	suites+=(--suite "$outdir/suite-host.json")
else
	log "3/5 no fio: host suite skipped"
	guest=0
fi

# --- 4. fio suite in the QEMU guest -----------------------------------------------------------
if [ "$guest" = 1 ] && [ -x "$root/tests/qemu/rig.sh" ]; then
	log "4/5 fio suite in the QEMU NVMe guest"
	if "$root/tests/qemu/rig.sh" run --smp 2 --mem 2048 --timeout 1500 --workdir "$root" -- \
		bash -c 'python3 "$1/bench/perf_runs.py" guest "$2" "$3" "$4/xnvmeperf-guest.json" &&
			python3 "$1/bench/run_fio_suite.py" $5 --fio "$6" --xnvmeperf "$2" \
			--targets nvme,ng --workdir /tmp/xnvme-bench --out "$4/suite-guest.json.new"' \
		_ "$root" "$perf" "$rt" "$outdir" "$sflag" "$fio"; then
		mv "$outdir/suite-guest.json.new" "$outdir/suite-guest.json"
		suites+=(--suite "$outdir/suite-guest.json")
		perfs+=(--perf "$outdir/xnvmeperf-guest.json")
	else
		log "the guest run failed (rc $?); the report has host results only"
	fi
else
	log "4/5 guest skipped"
fi

# --- 5. report --------------------------------------------------------------------------------
log "5/5 report"
"$py" "$root/bench/report.py" ${suites[@]+"${suites[@]}"} --instr "$outdir/instructions.json" \
	--instr-table "$outdir/instr_table.json" --churn "$outdir/churn.json" \
	"${perfs[@]}" --outdir "$outdir"
log "done: $outdir/README.md"
