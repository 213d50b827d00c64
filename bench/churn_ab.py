#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Open/close churn of two (or more) library builds side by side.

    churn_ab.py --churn PROG --lib NAME=DIR [--lib NAME=DIR ...] [--uri URI ...]
                [--rounds 7] [--cycles 20000] [--geo] [--json OUT]

PROG is bench/churn (built once against either library: both have SONAME libxnvme.so.0); DIR
holds a libxnvme.so.0 and is put first on LD_LIBRARY_PATH for its runs. For every URI the
builds run interleaved, the order rotated every round (A B, B A, ...), and the medians of
open/close cycles per second are reported with the ratio of each build to the first. Default
URIs: the ramdisk "1GB" and a 64 MiB file on tmpfs (made and removed here). --geo also asks
for the geometry in every cycle (what clients do right after the open). Wall-clock figures:
run on a quiet machine and compare only within one run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(prog, libdir, uri, cycles, geo):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = libdir + ((":" + env["LD_LIBRARY_PATH"])
                                       if env.get("LD_LIBRARY_PATH") else "")
    cmd = [prog, "-n", str(cycles)] + (["-g"] if geo else []) + [uri]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    return json.loads(r.stdout)["cycles_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--churn", required=True)
    ap.add_argument("--lib", action="append", required=True, help="NAME=DIR")
    ap.add_argument("--uri", action="append")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cycles", type=int, default=20000)
    ap.add_argument("--geo", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    libs = [tuple(x.split("=", 1)) for x in a.lib]
    tmp = tempfile.mkdtemp(prefix="xnvme-churn-", dir="/dev/shm")
    f = os.path.join(tmp, "churn.img")
    with open(f, "wb") as fh:
        fh.truncate(64 << 20)
    uris = a.uri or ["1GB", f]
    doc = {"rounds": a.rounds, "cycles": a.cycles, "geo": a.geo, "libs": dict(libs),
           "uris": {}}
    try:
        for uri in uris:
            runs = {n: [] for n, _ in libs}
            for rnd in range(a.rounds):
                order = libs if rnd % 2 == 0 else libs[::-1]
                for name, d in order:
                    runs[name].append(run(a.churn, os.path.abspath(d), uri, a.cycles, a.geo))
            med = {n: statistics.median(v) for n, v in runs.items()}
            first = libs[0][0]
            doc["uris"][uri] = {"runs": runs, "median": med,
                                "ratio": {n: med[n] / med[first] for n in med}}
            print("%-40s %s" % (uri if uri != f else "tmpfs file (64 MiB)", "  ".join(
                "%s %.0f/s (x%.3f)" % (n, med[n], med[n] / med[first]) for n in med)))
    finally:
        os.unlink(f)
        os.rmdir(tmp)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
