#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Deterministic figure: x86 instructions per I/O of the nil path, counted with callgrind.

    count_instructions.py --nil-loop build/bench/nil_loop [--fio FIO] [--smoke] [--json OUT]

1. bench/nil_loop (get context, xnvme_nvm_read, poke, put in the callback) on the ramdisk with
   the `nil` async mechanism: only the measured loop is counted (--toggle-collect=nil_loop_run;
   the program also brackets its call with CALLGRIND_START/STOP_INSTRUMENTATION), at queue
   depth 1 and 16. Instructions are split by object: libxnvme.so (the library itself) versus
   the loop's own code, and the library's share by function into submit (xnvme_nvm_read and
   the mechanism's submit), reap + callback dispatch (poke) and context get/put.
2. fio's `null` engine and fio's `xnvme` engine with --xnvme_async=nil, 4 KiB random reads at
   QD1: instructions of the job thread (--toggle-collect=thread_main) for N and 2N I/Os; the
   difference divided by N cancels setup and teardown exactly.

Valgrind's instruction counts do not depend on machine load, so these numbers are the
regression yardstick of the hot path (docs/benchmarks.md).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from callgrind_split import parse, write_json  # noqa: E402

LIB_MARK = "libxnvme.so"

# library functions by role in the nil path
SUBMIT = ("xnvme_nvm_read", "xnvme_nvm_write", "xnvme_cmd_pass", "pass_lba_data",
          "rw_general", "xnvme_be_queue_geo_refresh", "xnvme_prep_nvm", "nil_cmd_io",
          "nil_submit", "xnvme_dev_get_geo", "xnvme_dev_ensure_geo", "xnvme_dev_get_nsid",
          "xnvme_dev_ensure_ident")
REAP = ("xnvme_queue_poke", "nil_poke", "nil_reap")
CTX = ("xnvme_queue_get_cmd_ctx", "xnvme_queue_put_cmd_ctx")


def callgrind(cmd, out, extra, cwd):
    full = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + extra + cmd
    r = subprocess.run(full, capture_output=True, text=True, cwd=cwd)
    if r.returncode:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(full), r.returncode,
                                                    r.stderr[-1500:]))
    return parse(out)


def split(by_ob, by_fn, div):
    lib = sum(v for k, v in by_ob.items() if LIB_MARK in k) / div
    roles = {"submit": 0.0, "reap_callback": 0.0, "ctx_get_put": 0.0, "other": 0.0}
    fns = {}
    for (ob, fn), v in by_fn.items():
        if LIB_MARK not in ob or not v:
            continue
        fns[fn] = fns.get(fn, 0) + v / div
        name = fn.split("'")[0]
        if name in SUBMIT:
            roles["submit"] += v / div
        elif name in REAP:
            roles["reap_callback"] += v / div
        elif name in CTX:
            roles["ctx_get_put"] += v / div
        else:
            roles["other"] += v / div
    return lib, roles, dict(sorted(fns.items(), key=lambda kv: -kv[1]))


def count_nil_loop(nil_loop, n, qd, tmp):
    out = os.path.join(tmp, "cg.nil_loop.qd%d" % qd)
    total, by_ob, by_fn = callgrind([nil_loop, "-n", str(n), "-q", str(qd)], out,
                                    ["--collect-atstart=no", "--toggle-collect=nil_loop_run"],
                                    tmp)
    lib, roles, fns = split(by_ob, by_fn, n)
    return {"qd": qd, "ios": n, "total_per_io": total / n, "library_per_io": lib,
            "client_per_io": total / n - lib, "library_roles": roles, "library_functions": fns}


def count_fio(fio, engine, n, tmp):
    res = []
    for k in (n, 2 * n):
        out = os.path.join(tmp, "cg.fio.%s.%d" % (engine, k))
        args = [fio, "--name=cg", "--thread=1", "--rw=randread", "--bs=4k", "--iodepth=1",
                "--norandommap=1", "--randrepeat=0", "--number_ios=%d" % k, "--size=1g"]
        if engine == "null":
            args.append("--ioengine=null")
        else:
            args += ["--ioengine=xnvme", "--xnvme_async=nil", "--filename=1GB"]
        res.append(callgrind(args, out, ["--collect-atstart=no", "--toggle-collect=thread_main"],
                             tmp))
    (t1, o1, f1), (t2, o2, f2) = res
    dob = {k: o2.get(k, 0) - o1.get(k, 0) for k in set(o1) | set(o2)}
    dfn = {k: f2.get(k, 0) - f1.get(k, 0) for k in set(f1) | set(f2)}
    lib, roles, fns = split(dob, dfn, n)
    return {"engine": engine, "ios": n, "total_per_io": (t2 - t1) / n, "library_per_io": lib,
            "fio_per_io": (t2 - t1) / n - lib, "library_roles": roles,
            "library_functions": fns}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nil-loop", required=True)
    ap.add_argument("--fio", help="fio with the xnvme engine; omitted: fio rows skipped")
    ap.add_argument("--ios", type=int, default=100000)
    ap.add_argument("--smoke", action="store_true", help="few I/Os, nil_loop only")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    if subprocess.run(["valgrind", "--version"], capture_output=True).returncode:
        print("count_instructions: valgrind missing", file=sys.stderr)
        return 77
    n = 2000 if a.smoke else a.ios
    doc = {"tool": "callgrind", "nil_loop": [], "fio": []}
    with tempfile.TemporaryDirectory(prefix="xnvme-cg-") as tmp:
        for qd in ((1,) if a.smoke else (1, 16)):
            doc["nil_loop"].append(count_nil_loop(os.path.abspath(a.nil_loop), n, qd, tmp))
        if a.fio and not a.smoke:
            for eng in ("null", "xnvme"):
                doc["fio"].append(count_fio(a.fio, eng, n, tmp))

    print("instructions per I/O (callgrind, x86-64)")
    for r in doc["nil_loop"]:
        ro = r["library_roles"]
        print("  nil_loop qd=%-3d library %6.1f  (submit %.1f, reap+callback %.1f, "
              "ctx get/put %.1f, other %.1f)  loop's own code %.1f  total %.1f" % (
                  r["qd"], r["library_per_io"], ro["submit"], ro["reap_callback"],
                  ro["ctx_get_put"], ro["other"], r["client_per_io"], r["total_per_io"]))
    for r in doc["fio"]:
        print("  fio %-6s qd=1   total %7.1f  (fio %.1f, libxnvme %.1f)" % (
            r["engine"], r["total_per_io"], r["fio_per_io"], r["library_per_io"]))
    if len(doc["fio"]) == 2:
        d = doc["fio"][1]["total_per_io"] - doc["fio"][0]["total_per_io"]
        doc["fio_xnvme_minus_null"] = d
        print("  fio xnvme - null: %+.1f instructions per I/O" % d)
    if a.json:
        write_json(a.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
