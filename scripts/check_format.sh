#!/usr/bin/env bash
# Checks the C sources tracked by git (*.c, *.h) against .clang-format with clang-format 14
# (Debian 12's clang-format-14, installed by scripts/setup.sh; another major version formats
# differently, so it is refused).
#   scripts/check_format.sh         lists the files that differ and exits 1 if there is one
#   scripts/check_format.sh --fix   rewrites every file in place, pending ones included, and
#                                   empties scripts/format-pending.txt
# scripts/format-pending.txt lists files written before the style was enforced: the check skips
# them until `--fix` has reformatted the tree. scripts/format-ignore.txt lists files that stay
# hand-formatted (initializer macros and aligned tables that clang-format 14 mangles): neither
# the check nor --fix touches them.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
--fix) fix=1 ;;
"") ;;
*) echo "usage: $0 [--fix]" >&2; exit 2 ;;
esac

cf=""
for c in clang-format-14 clang-format; do
	if command -v "$c" >/dev/null && "$c" --version | grep -qE 'version 14\.'; then
		cf=$c
		break
	fi
done
if [ -z "$cf" ]; then
	echo "check_format: clang-format 14 not found (apt-get install clang-format-14)" >&2
	exit 1
fi

pending=scripts/format-pending.txt
# One path a line; '#' starts a comment line
list() {
	[ ! -f "$1" ] || grep -v '^#' "$1" | grep -v '^$' || true
}
mapfile -t files < <(git ls-files -- '*.c' '*.h' | grep -vxF -f <(list scripts/format-ignore.txt))

if [ "$fix" -eq 1 ]; then
	"$cf" -i --style=file "${files[@]}"
	grep '^#' "$pending" >"$pending.new" || true
	mv "$pending.new" "$pending"
	echo "check_format: reformatted ${#files[@]} files"
	exit 0
fi

declare -A skip=()
while read -r f; do
	skip[$f]=1
done < <(list "$pending")

bad=0
checked=0
for f in "${files[@]}"; do
	[ -z "${skip[$f]:-}" ] || continue
	checked=$((checked + 1))
	if ! "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "check_format: $f differs from .clang-format (scripts/check_format.sh --fix)"
		bad=$((bad + 1))
	fi
done
echo "check_format: $checked files checked, $bad differ, ${#skip[@]} pending"
[ "$bad" -eq 0 ]
