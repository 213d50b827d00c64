#!/usr/bin/env python3
"""The include graph keeps the layers apart (docs/internals.md):

* a backend (any file under lib/be/) reaches, through its #include "..." chain, only headers
  under lib/be/ (the contract lib/be/xnvme_be.h and the backends' own), the OS layer under
  lib/platform/ and the build's generated configuration: never a core header (lib/*.h such as
  lib/xnvme_dev.h, lib/xnvme_queue.h, lib/xnvme_registry.h) nor another part of the library;
* the command-set helpers (lib/cmdset/) include public headers only (<libxnvme*.h> and the C
  library): they are built on the public API.

    check_includes.py LIBDIR

Quoted includes resolve as the compiler resolves them: next to the including file, then along
the library's include path (lib/, lib/be/, lib/platform/, lib/platform/<os>/); a name found
nowhere is a generated header of the build (xnvme_config.h, xnvme_be_built.h). Prints one line
per violation with the chain that leads to it; exits 1 when there is any.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
GENERATED = {"xnvme_config.h", "xnvme_be_built.h"}


def resolve(name, including, search):
    for d in [including.parent] + search:
        p = (d / name).resolve()
        if p.is_file():
            return p
    return None


def main(libdir):
    lib = pathlib.Path(libdir).resolve()
    be, plat = lib / "be", lib / "platform"
    search = [lib, be, plat] + sorted(p for p in plat.iterdir() if p.is_dir())
    errors = []

    def allowed_for_backend(p):
        return be in p.parents or plat in p.parents

    for src in sorted(be.rglob("*.[ch]")):
        seen, todo = {src}, [(src, [src])]
        while todo:
            cur, chain = todo.pop()
            for name in INCLUDE.findall(cur.read_text(errors="replace")):
                p = resolve(name, cur, search)
                if p is None:
                    if name not in GENERATED:
                        errors.append("%s: #include \"%s\" found nowhere" % (
                            cur.relative_to(lib.parent), name))
                    continue
                if not allowed_for_backend(p):
                    errors.append("backend reaches a core header: %s" % " -> ".join(
                        str(c.relative_to(lib.parent)) for c in chain + [p]))
                    continue
                if p not in seen:
                    seen.add(p)
                    todo.append((p, chain + [p]))

    for src in sorted((lib / "cmdset").glob("*.[ch]")):
        for name in INCLUDE.findall(src.read_text(errors="replace")):
            errors.append("%s: #include \"%s\": lib/cmdset/ is built on the public API only" % (
                src.relative_to(lib.parent), name))

    for e in errors:
        print(e, file=sys.stderr)
    nbe = len(list(be.rglob("*.[ch]")))
    print("%d backend files and lib/cmdset/ checked, %d violations" % (nbe, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
