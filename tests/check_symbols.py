#!/usr/bin/env python3
"""Exported symbols of the shared library are exactly the public API: every name in the
version script is exported, every export is in the version script, and every export is
declared in a public header. The static library defines them too."""
import pathlib
import re
import subprocess
import sys


def main(lib_so, lib_a, mapfile, incdir):
    wanted = set(re.findall(r"^\s+(xnvme_\w+);", pathlib.Path(mapfile).read_text(), re.M))
    out = subprocess.run(["nm", "-D", "--defined-only", lib_so], check=True,
                         capture_output=True, text=True).stdout
    exported = {l.split()[-1] for l in out.splitlines() if l.split()[1] in "TDRBV"}
    exported -= {"_init", "_fini"}
    headers = "\n".join(p.read_text() for p in pathlib.Path(incdir).glob("libxnvme*.h"))
    declared = set(re.findall(r"\b(xnvme_\w+)\s*\(", headers)) | {"xnvme_libconf"}
    static = subprocess.run(["nm", "--defined-only", lib_a], check=True, capture_output=True,
                            text=True).stdout
    static_defined = {l.split()[-1] for l in static.splitlines()
                      if len(l.split()) == 3 and l.split()[1] in "TDR"}

    errors = []
    errors += [f"not exported: {n}" for n in sorted(wanted - exported)]
    errors += [f"exported but not public API: {n}" for n in sorted(exported - wanted)]
    errors += [f"exported but not declared in a public header: {n}"
               for n in sorted(exported - declared)]
    errors += [f"missing from the static library: {n}" for n in sorted(wanted - static_defined)]
    # the 228 functions of the xNVMe 0.7.5 API plus these additive ones
    additions = {"xnvme_queue_drain_timeout", "xnvme_last_error", "xnvme_cli_run_tool_opts",
                 "xnvme_timer_clock_ns", "xnvme_be_mech_names"}
    if len(wanted - additions) != 228 or not additions <= wanted:
        errors.append(f"version script lists {len(wanted)} symbols, the API has "
                      f"228 + {len(additions)}")
    for e in errors:
        print(e)
    if errors:
        return 1
    print(f"symbols: {len(exported)} exported, all declared, none extra")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
