#!/usr/bin/env bash
# tests/check_doc_tables.py with the registry of this build: the ramdisk's and a regular file's
# defaults included.
#   usage: check_doc_tables.sh <source root> <registry_dump executable>
set -euo pipefail
root=${1:?usage: check_doc_tables.sh <source root> <registry_dump>}
dump=${2:?usage: check_doc_tables.sh <source root> <registry_dump>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
truncate -s 1M "$tmp/file.img"
"$dump" 1GB "$tmp/file.img" >"$tmp/registry.json"
exec python3 "$root/tests/check_doc_tables.py" "$root" --registry "$tmp/registry.json" \
	--lib "$(dirname "$dump")/../lib/libxnvme.so"
