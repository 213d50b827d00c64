#!/usr/bin/env bash
# Runs the Python test-suite against a libxnvme build or install directory.
#
#   python/run_tests.sh <build-or-install-dir> [pytest arguments]
#
# <dir>/lib holds libxnvme.so (a meson build directory and an install prefix made with
# --libdir=lib both look like that). Installs the package with pip into a virtualenv at
# <dir>/python-venv (inherits the interpreter's site-packages for pytest; numpy is added when
# the package index is reachable, else its test skips), runs pytest from python/tests and
# ends with pytest's summary line. Leaves the source tree untouched (pip builds a copy).
#   XNVME_PY_TEST_URI=/dev/ng0n1   also run the device tests against that device
#   XNVME_PY_TEST_ASYNC=a,b,...    its mechanisms (default: by device type, see conftest.py)
#   XNVME_TCP_TARGET_SERVE=<build>/tests/tcp_target_serve
#                                  also run the asyncio tests over the tcp backend against
#                                  that test target (else they skip)
#   XNVME_PY_NO_INSTALL=1          no venv/pip: test the package in python/ with $PYTHON
#                                  (no compiled fast path then: its tests skip)
#                                  unless XNVME_PY_VENV names an existing virtualenv: then the
#                                  package installed there (e.g. by an earlier run of this
#                                  script, with the fast path) is tested, still without pip
#   XNVME_PY_NO_FASTQ=1            test the pure-ctypes fallback instead of xnvme._fastq
#   PYTHON=python3                 the interpreter (needs pytest when XNVME_PY_NO_INSTALL)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
[ $# -ge 1 ] || { echo "usage: $0 <build-or-install-dir> [pytest args]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
shift
[ -e "$dir/lib/libxnvme.so" ] || { echo "run_tests: no $dir/lib/libxnvme.so" >&2; exit 2; }
py=${PYTHON:-python3}
if [ -n "${XNVME_PY_NO_INSTALL:-}" ] && [ -n "${XNVME_PY_VENV:-}" ] &&
	[ -x "$XNVME_PY_VENV/bin/python" ] &&
	[ -n "$(find "$XNVME_PY_VENV" -path '*/xnvme/_fastq*.so' -print -quit 2>/dev/null)" ]; then
	# no pip (e.g. the QEMU guest, offline), but an install made before: test that one
	vpy=$XNVME_PY_VENV/bin/python
elif [ -n "${XNVME_PY_NO_INSTALL:-}" ]; then
	# no virtualenv and no pip (e.g. the QEMU guest, offline): the package from the tree
	vpy=$py
	export PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH}
else
	venv=${XNVME_PY_VENV:-$dir/python-venv}
	[ -x "$venv/bin/python" ] || "$py" -m venv --system-site-packages "$venv"
	vpy=$venv/bin/python
	"$vpy" -c 'import pytest' 2>/dev/null || "$vpy" -m pip install -q pytest
	# build from a copy so the source tree gets no build/ or egg-info
	src=$(mktemp -d)
	trap 'rm -rf "$src"' EXIT
	cp -r "$here/pyproject.toml" "$here/setup.py" "$here/MANIFEST.in" "$here/README.md" "$here/xnvme" "$src/"
	if ! "$vpy" -m pip install -q --force-reinstall --no-deps "$src" >"$venv/pip-install.log" 2>&1 &&
		! "$vpy" -m pip install -q --no-build-isolation --force-reinstall --no-deps "$src" \
			>>"$venv/pip-install.log" 2>&1; then
		cat "$venv/pip-install.log" >&2
		echo "run_tests: pip install failed" >&2
		exit 1
	fi
	"$vpy" -c 'import numpy' 2>/dev/null ||
		timeout 120 "$vpy" -m pip install -q --retries 0 --timeout 10 numpy >/dev/null 2>&1 ||
		echo "run_tests: numpy not installable, its test will skip"
fi
export XNVME_LIBRARY_PATH=$dir/lib
if [ -d "$dir/include" ] && [ -e "$dir/include/libxnvme.h" ]; then
	export XNVME_INCLUDE=$dir/include
fi
export XNVME_SOURCE_ROOT=$root
cd "$here/tests"
rc=0
"$vpy" -m pytest -p no:cacheprovider -q -rs "$@" || rc=$?
exit $rc
