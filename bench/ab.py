#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Side by side: fio's native engine vs fio's xnvme engine with one or more libxnvme builds.

    ab.py --fio FIO --lib before=DIR --lib after=DIR --native libaio --async libaio \\
          --filename F [--direct] [--qd 1,16,64] [--reps 5] [--runtime 1] [--callgrind 20000]
          [--sync psync] [--bs 4k] [--rw randread] [--size 64m] [--json OUT]

Every cell (one queue depth) runs each side once per round, the order rotated every round
(interleaved), and reports the medians of IOPS, wall time per I/O (1e9 / IOPS), fio's mean
completion latency and the CPU use of the job (usr + sys, in % of one CPU). DIR is a directory
holding libxnvme.so.0; the xnvme sides differ only in LD_LIBRARY_PATH (same fio binary).
With --callgrind N, each side's job thread is also run under callgrind for N and 2N I/Os at
every queue depth (--toggle-collect=thread_main); the difference / N is the instructions per
I/O in user space (system calls count as the instructions that issue them), split into the
library and the rest; --cg-all-threads counts the whole process instead (for mechanisms whose
work runs on threads of their own, e.g. thrpool). Callgrind counts do not depend on load, wall-clock figures do.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from callgrind_split import parse, write_json  # noqa: E402


def fio_args(a, side, qd, extra):
    args = [a.fio, "--name=ab", "--thread=1", "--rw=" + a.rw, "--bs=" + a.bs,
            "--iodepth=%d" % qd, "--norandommap=1", "--randrepeat=0", "--filename=" + a.filename,
            "--size=" + a.size, "--direct=%d" % (1 if a.direct else 0)] + extra
    if side == "native":
        args.append("--ioengine=" + a.native)
    else:
        args += ["--ioengine=xnvme", "--xnvme_async=" + a.async_]
        if a.sync:
            args.append("--xnvme_sync=" + a.sync)
    args += a.fio_opt
    if side != "native":
        args += a.xnvme_opt
    return args


def env_for(a, side):
    env = dict(os.environ)
    if side != "native":
        env["LD_LIBRARY_PATH"] = a.libs[side]
    return env


def run_once(a, side, qd):
    args = fio_args(a, side, qd, ["--time_based=1", "--runtime=%gs" % a.runtime,
                                  "--ramp_time=%dms" % a.ramp, "--output-format=json"])
    r = subprocess.run(args, capture_output=True, text=True, env=env_for(a, side))
    if r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stderr[-800:]))
    js = json.loads(r.stdout[r.stdout.index("{"):])
    job = js["jobs"][0]
    d = job["write"] if a.rw in ("randwrite", "write") else job["read"]
    return {"iops": d["iops"], "clat_ns": d["clat_ns"]["mean"],
            "cpu": job["usr_cpu"] + job["sys_cpu"]}


def callgrind_count(a, side, qd, n, tmp):
    tot = []
    for k in (n, 2 * n):
        out = os.path.join(tmp, "cg.%s.%d.%d" % (side, qd, k))
        sel = [] if a.cg_all_threads else ["--collect-atstart=no",
                                           "--toggle-collect=thread_main"]
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + sel + \
            fio_args(a, side, qd, ["--number_ios=%d" % k])
        r = subprocess.run(cmd, capture_output=True, text=True, env=env_for(a, side))
        if r.returncode:
            raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr[-800:]))
        tot.append(parse(out))
    (t1, o1, _), (t2, o2, _) = tot
    lib = sum(o2.get(k, 0) - o1.get(k, 0) for k in set(o1) | set(o2) if "libxnvme" in k)
    return {"total_per_io": (t2 - t1) / n, "library_per_io": lib / n}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fio", required=True)
    ap.add_argument("--lib", action="append", default=[], help="NAME=DIR (libxnvme.so.0)")
    ap.add_argument("--native", required=True, help="fio's own engine, e.g. libaio")
    ap.add_argument("--async", dest="async_", required=True, help="--xnvme_async value")
    ap.add_argument("--sync", help="--xnvme_sync value")
    ap.add_argument("--filename", required=True)
    ap.add_argument("--direct", action="store_true")
    ap.add_argument("--qd", default="1,16,64")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--runtime", type=float, default=1.0)
    ap.add_argument("--ramp", type=int, default=200, help="ms")
    ap.add_argument("--bs", default="4k")
    ap.add_argument("--rw", default="randread")
    ap.add_argument("--size", default="64m")
    ap.add_argument("--callgrind", type=int, default=0, help="I/Os per callgrind run (0: none)")
    ap.add_argument("--cg-all-threads", action="store_true",
                    help="count every thread (thrpool workers), not only fio's job thread")
    ap.add_argument("--no-native", action="store_true", help="xnvme sides only")
    ap.add_argument("--fio-opt", action="append", default=[], help="extra fio option, all sides")
    ap.add_argument("--xnvme-opt", action="append", default=[], help="extra option, xnvme sides")
    ap.add_argument("--json")
    a = ap.parse_args()
    a.libs = {}
    for spec in a.lib:
        name, _, path = spec.partition("=")
        a.libs[name] = os.path.abspath(path)
    sides = ([] if a.no_native else ["native"]) + list(a.libs)
    qds = [int(x) for x in a.qd.split(",")]
    doc = {"fio": a.fio, "native": a.native, "async": a.async_, "sync": a.sync,
           "filename": a.filename, "direct": a.direct, "bs": a.bs, "rw": a.rw,
           "reps": a.reps, "runtime_s": a.runtime, "libs": a.libs,
           "loadavg_start": os.getloadavg(), "cells": []}
    for qd in qds:
        raw = {s: [] for s in sides}
        for rep in range(a.reps):
            order = sides[rep % len(sides):] + sides[:rep % len(sides)]
            for s in order:
                raw[s].append(run_once(a, s, qd))
        cell = {"qd": qd, "raw": raw, "median": {}}
        for s in sides:
            iops = statistics.median(r["iops"] for r in raw[s])
            cell["median"][s] = {"iops": iops, "ns_per_io": 1e9 / iops if iops else None,
                                 "clat_ns": statistics.median(r["clat_ns"] for r in raw[s]),
                                 "cpu": statistics.median(r["cpu"] for r in raw[s])}
        doc["cells"].append(cell)
        line = "qd %-3d" % qd
        for s in sides:
            m = cell["median"][s]
            line += "  %s %8.0f IOPS %6.0f ns/io cpu %5.1f%%" % (s, m["iops"], m["ns_per_io"],
                                                               m["cpu"])
        print(line, flush=True)
    if a.callgrind:
        with tempfile.TemporaryDirectory(prefix="xnvme-ab-") as tmp:
            for cell in doc["cells"]:
                cell["callgrind"] = {s: callgrind_count(a, s, cell["qd"], a.callgrind, tmp)
                                     for s in sides}
                print("qd %-3d instructions/io: " % cell["qd"] + "  ".join(
                    "%s %.0f (lib %.0f)" % (s, c["total_per_io"], c["library_per_io"])
                    for s, c in cell["callgrind"].items()), flush=True)
    doc["loadavg_end"] = os.getloadavg()
    if a.json:
        write_json(a.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
