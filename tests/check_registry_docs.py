#!/usr/bin/env python3
"""Tables of backends and mechanisms in the docs come from the registry: every block between
"<!-- registry:begin -->" and "<!-- registry:end -->" in a Markdown file under docs/ is the
output of tests/registry_md (the registry of this build, lib/be/registry.def with each
backend's mechanism lists), and at least one document has such a block.

    check_registry_docs.py REGISTRY_MD DOCS_DIR [--fix]

--fix rewrites the blocks from the registry.
"""
import pathlib
import re
import subprocess
import sys

BLOCK = re.compile(r"(<!-- registry:begin -->\n)(.*?)(<!-- registry:end -->)", re.S)


def main(argv):
    table = subprocess.run([argv[1]], check=True, capture_output=True, text=True).stdout
    fix = "--fix" in argv[3:]
    nblocks, stale = 0, []
    for md in sorted(pathlib.Path(argv[2]).rglob("*.md")):
        text = md.read_text()
        found = BLOCK.findall(text)
        nblocks += len(found)
        if any(body != table for _, body, _ in found):
            stale.append(md)
            if fix:
                md.write_text(BLOCK.sub(lambda m: m.group(1) + table + m.group(3), text))
    for md in stale:
        print("%s: the registry table differs from the registry%s" % (
            md, " (rewritten)" if fix else " (check_registry_docs.py --fix rewrites it)"),
            file=sys.stderr)
    if not nblocks:
        print("no document embeds the registry table", file=sys.stderr)
    print("%d registry tables, %d stale" % (nblocks, len(stale)))
    return 1 if (stale and not fix) or not nblocks else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
