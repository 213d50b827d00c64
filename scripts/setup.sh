#!/usr/bin/env bash
# Installs what building and testing xnvme needs on Debian 12 (idempotent: installs only what
# is missing). Run as root, or with sudo available.
set -euo pipefail

pkgs=(meson ninja-build gcc g++ clang pkgconf liburing-dev libaio-dev valgrind man-db
      dpkg-dev make python3
      libclang-rt-14-dev libyaml-dev # libFuzzer for scripts/fuzz.sh; YAML parser of fuzz_printers
      clang-format-14 # scripts/check_format.sh
      libibverbs-dev librdmacm-dev ibverbs-providers rdma-core # the rdma backend (rdma-core); the guest's soft-RoCE
      gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64) # Windows cross build, run under Wine (scripts/wine_test.sh)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
	echo "# setup: installing ${missing[*]}"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python packages for the YAML-parsing tests, for whichever python3 is first on PATH
if ! python3 -c 'import yaml, pytest' 2>/dev/null; then
	echo "# setup: installing pyyaml and pytest for $(command -v python3)"
	python3 -m pip install --quiet --disable-pip-version-check pyyaml pytest 2>/dev/null ||
		python3 -m pip install --quiet --disable-pip-version-check --break-system-packages pyyaml pytest
fi
