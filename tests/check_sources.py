#!/usr/bin/env python3
"""Every C file below lib/ is in the explicit source lists (lib/meson.build,
lib/platform/<os>/meson.build), and every listed file
exists: a file added but not listed would otherwise silently not be built."""
import pathlib
import re
import sys


def main(libdir):
    libdir = pathlib.Path(libdir)
    listed = set()
    for build in libdir.rglob("meson.build"):  # lib/meson.build and lib/platform/<os>/
        prefix = build.parent.relative_to(libdir).as_posix()
        listed |= {n if prefix == "." else f"{prefix}/{n}"
                   for n in re.findall(r"'([\w/]+\.c)'", build.read_text())}
    present = {p.relative_to(libdir).as_posix() for p in libdir.rglob("*.c")}
    errors = [f"not in lib/meson.build: {n}" for n in sorted(present - listed)]
    errors += [f"listed in lib/meson.build but missing: {n}" for n in sorted(listed - present)]
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{len(present)} sources, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
