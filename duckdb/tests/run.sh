#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The nvmefs extension suite (meson test 'duckdb'): builds the extension with duckdb/build.sh
# (arguments are passed on: an optional libxnvme install prefix) and runs duckdb/tests with
# pytest. Exits 77 (skipped) when python3 has no pytest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=${PYTHON:-python3}
"$py" -c 'import pytest' 2>/dev/null || { echo "python3 lacks pytest: skipped"; exit 77; }
ext=$(bash "$here/../build.sh" "$@")
NVMEFS_EXTENSION=$ext exec "$py" -m pytest -q -p no:cacheprovider "$here"
