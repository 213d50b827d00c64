#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""DuckDB on its local file system versus DuckDB on nvmefs, on the same storage.

Workloads
  tpch   the 22 TPC-H queries (text from DuckDB's source distribution) on a database attached
         cold for every run, under a memory limit, so blocks are read from storage and large
         joins and aggregations spill
  spill  the grouped aggregations of Kuiper et al., "Robust External Hash Aggregation in the
         Solid State Age" (ICDE 2024): thin (grouping keys and a count) and wide (plus every
         other lineitem column as payload) variants over lineitem, with growing group counts,
         under a memory limit that forces the hash tables to spill

Targets
  local  database file and temp_directory in a directory of the root file system
  nvmefs database, WAL and temporary files on an nvmefs volume on a device file in the same
         directory (a preallocated regular file, or a loop device over it with --loop);
         kind "nvmefs@<device>" puts the volume on an existing device instead (an NVMe
         namespace in the QEMU guest, e.g. nvmefs@/dev/ng0n1)

Every (query, run) uses a fresh DuckDB instance (empty buffer pool); targets alternate run by run.
With --drop-caches the kernel page cache is dropped before every run (needs root).
Results (every run, medians, speedups) are written as JSON and CSV to --out.
"""
import argparse
import csv
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import duckdb

HERE = pathlib.Path(__file__).resolve().parent
TABLES = ["lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region"]

LINEITEM = ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
            "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
            "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"]

# Group-by keys of growing cardinality (SF1: 1.5M, ~6M, 6M groups)
SPILL_KEYS = {
    "g1": ["l_orderkey"],
    "g2": ["l_orderkey", "l_partkey"],
    "g3": ["l_orderkey", "l_linenumber", "l_suppkey"],
}


def spill_queries():
    queries = {}
    for gname, keys in SPILL_KEYS.items():
        k = ", ".join(keys)
        thin = f"SELECT {k}, count(*) AS cnt FROM lineitem GROUP BY {k}"
        payload = ", ".join(f"max({c}) AS {c}" for c in LINEITEM if c not in keys)
        wide = f"SELECT {k}, count(*) AS cnt, {payload} FROM lineitem GROUP BY {k}"
        # max() keeps the payload deterministic; every output column is consumed, so no
        # aggregate can be pruned
        queries[f"thin-{gname}"] = f"SELECT count(*), sum(hash(COLUMNS(*))) FROM ({thin})"
        queries[f"wide-{gname}"] = f"SELECT count(*), sum(hash(COLUMNS(*))) FROM ({wide})"
    return queries


def tpch_queries(source_dir):
    qdir = pathlib.Path(source_dir) / "extension" / "tpch" / "dbgen" / "queries"
    return {f"q{i:02d}": (qdir / f"q{i:02d}.sql").read_text() for i in range(1, 23)}


class Target:
    """A storage configuration: "local", or "nvmefs" with its own device and secret options"""

    def __init__(self, spec, args, workdir):
        parts = spec.split(":", 2)
        self.name = parts[0]
        self.kind = parts[1] if len(parts) > 1 else parts[0]
        self.secret = parts[2] if len(parts) > 2 else ""
        self.args = args
        self.workdir = workdir
        self.image = str(workdir / f"{self.name}.img")
        self.device = self.image  # or a loop device over the image (--loop)
        self.given_device = False
        if self.kind.startswith("nvmefs@"):
            self.kind, self.device = self.kind.split("@", 1)
            self.given_device = True
        if self.kind not in ("local", "nvmefs"):
            raise SystemExit(f"unknown target kind {self.kind!r}")

    def connect(self, **config):
        cfg = {"allow_unsigned_extensions": True, "threads": self.args.threads}
        cfg.update(config)
        con = duckdb.connect(config=cfg)
        con.execute(f"LOAD '{self.args.extension}'")
        if self.kind == "nvmefs":
            extra = f", {self.secret}" if self.secret else ""
            con.execute(f"CREATE SECRET nv (TYPE nvmefs, DEVICE '{self.device}'{extra})")
        return con

    @property
    def db(self):
        return "nvmefs://tpch.db" if self.kind == "nvmefs" else str(self.workdir / self.name / "tpch.db")

    @property
    def temp(self):
        return "nvmefs://tmp" if self.kind == "nvmefs" else str(self.workdir / self.name / "tmp")

    def open(self, memory_limit):
        con = self.connect()
        con.execute(f"ATTACH '{self.db}' AS tpch")
        con.execute("USE tpch")
        con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute(f"SET temp_directory = '{self.temp}'")
        con.execute("SET preserve_insertion_order = false")
        return con


def prepare(target, args):
    """Formats/creates the storage and loads TPC-H from parquet; returns the load time"""
    if target.kind == "nvmefs":
        image_short = not os.path.exists(target.image) or os.path.getsize(target.image) < args.device_bytes
        if not target.given_device and image_short:
            # a fully written file: no target pays for file system block allocation during the runs
            subprocess.run(["dd", "if=/dev/zero", f"of={target.image}", "bs=1M",
                            f"count={args.device_bytes >> 20}", "status=none"], check=True)
        if args.loop and not target.given_device:
            target.device = subprocess.run(["losetup", "-f", "--show", target.image], check=True,
                                           stdout=subprocess.PIPE, text=True).stdout.strip()
            LOOPS.append(target.device)
        con = target.connect()
        con.execute("SELECT * FROM nvmefs_format(force := true, wal_percent := 5, temp_percent := 60)")
        con.close()
    else:
        local = target.workdir / target.name
        subprocess.run(["rm", "-rf", str(local)], check=True)
        (local / "tmp").mkdir(parents=True)
    con = target.open("4GB")
    start = time.perf_counter()
    for t in TABLES:
        con.execute(f"CREATE TABLE {t} AS FROM read_parquet('{args.data}/{t}.parquet')")
    con.execute("CHECKPOINT")
    elapsed = time.perf_counter() - start
    con.close()
    return elapsed


def normalized(rows):
    """Results compared across targets: floats to 9 significant digits (parallel aggregation
    may sum in a different order), rows sorted"""
    def norm(v):
        return float(f"{v:.9g}") if isinstance(v, float) else v
    return repr(sorted(repr(tuple(norm(v) for v in row)) for row in rows))


LOOPS = []


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run_one(target, sql, memory_limit, args):
    """Seconds of a cold run (fresh instance), its result, and with --warm the seconds of a
    second run in the same instance (buffer pool filled: the query's CPU time without reads)"""
    con = target.open(memory_limit)
    if args.drop_caches:
        drop_caches()
    start = time.perf_counter()
    result = con.execute(sql).fetchall()
    elapsed = time.perf_counter() - start
    warm = None
    if args.warm:
        start = time.perf_counter()
        con.execute(sql).fetchall()
        warm = time.perf_counter() - start
    con.close()
    return elapsed, result, warm


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--extension", required=True)
    ap.add_argument("--data", required=True, help="directory of TPC-H parquet files")
    ap.add_argument("--source", required=True, help="DuckDB source tree (external/duckdb of the sdist)")
    ap.add_argument("--workdir", required=True, help="directory on the storage under test")
    ap.add_argument("--target", action="append", dest="targets",
                    help="NAME:local, NAME:nvmefs[:SECRET OPTIONS] or NAME:nvmefs@DEVICE[:SECRET OPTIONS], "
                         "e.g. \"nvmefs:nvmefs:ASYNC 'emu'\"; plain nvmefs targets use the device file "
                         "WORKDIR/NAME.img (repeatable)")
    ap.add_argument("--device-gib", type=int, default=8, help="size of each nvmefs device file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tpch-memory", default="512MB")
    ap.add_argument("--spill-memory", default="256MB")
    ap.add_argument("--workloads", default="tpch,spill")
    ap.add_argument("--queries", default="", help="comma-separated subset of query names")
    ap.add_argument("--drop-caches", action="store_true")
    ap.add_argument("--loop", action="store_true", help="nvmefs targets use a loop device over their image")
    ap.add_argument("--sf", default="?")
    ap.add_argument("--warm", action="store_true",
                    help="also time a second run in the same instance (cold - warm = the reads)")
    args = ap.parse_args()
    args.device_bytes = args.device_gib << 30
    if not args.targets:
        args.targets = ["local:local", "nvmefs:nvmefs:ASYNC 'emu'"]
    workdir = pathlib.Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    targets = [Target(spec, args, workdir) for spec in args.targets]
    workloads = {}
    if "tpch" in args.workloads:
        workloads["tpch"] = (tpch_queries(args.source), args.tpch_memory)
    if "spill" in args.workloads:
        workloads["spill"] = (spill_queries(), args.spill_memory)
    subset = set(filter(None, args.queries.split(",")))

    report = {"meta": {"sf": args.sf, "runs": args.runs, "threads": args.threads,
                       "targets": {t.name: {"kind": t.kind, "secret": t.secret,
                                            **({"device": t.device} if t.given_device else {})}
                                   for t in targets},
                       "drop_caches": args.drop_caches, "loop": args.loop, "duckdb": duckdb.__version__,
                       "tpch_memory_limit": args.tpch_memory, "spill_memory_limit": args.spill_memory,
                       "host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release()},
              "load": {}, "runs": []}
    try:
        run_all(args, targets, workloads, subset, report, out)
    finally:
        for loop in LOOPS:
            subprocess.run(["losetup", "-d", loop], check=False)


def run_all(args, targets, workloads, subset, report, out):
    for target in targets:
        report["load"][target.name] = prepare(target, args)
        print(f"load {target.name}: {report['load'][target.name]:.2f} s", file=sys.stderr)

    for wname, (queries, memory_limit) in workloads.items():
        for qname, sql in queries.items():
            if subset and qname not in subset:
                continue
            answers = {}
            for run in range(args.runs):
                for target in (targets if run % 2 == 0 else list(reversed(targets))):
                    elapsed, result, warm = run_one(target, sql, memory_limit, args)
                    answers.setdefault(target.name, result)
                    entry = {"workload": wname, "query": qname, "target": target.name, "run": run,
                             "seconds": elapsed}
                    if warm is not None:
                        entry["warm_seconds"] = warm
                    report["runs"].append(entry)
                    print(f"{wname} {qname} {target.name} run {run}: {elapsed:.3f} s"
                          + (f" (warm {warm:.3f} s)" if warm is not None else ""), file=sys.stderr)
            if len({normalized(a) for a in answers.values()}) > 1:
                raise SystemExit(f"{qname}: the targets returned different results")
            (out / "results.json").write_text(json.dumps(report, indent=1))  # progress so far

    summary = summarize(report, [t.name for t in targets])
    (out / "results.json").write_text(json.dumps(report, indent=1))
    with open(out / "summary.csv", "w", newline="") as f:
        csv.writer(f).writerows(summary)
    for row in summary:
        print(",".join(str(x) for x in row))


def summarize(report, names):
    """One row per query: median seconds of every target, and the speedup of each other target
    over the first one (the baseline, normally local)"""
    med = {}
    for r in report["runs"]:
        med.setdefault((r["workload"], r["query"]), {}).setdefault(r["target"], []).append(r["seconds"])
    base = names[0]
    warm = {}
    for r in report["runs"]:
        if "warm_seconds" in r:
            warm.setdefault((r["workload"], r["query"]), {}).setdefault(r["target"], []).append(r["warm_seconds"])
    header = ["workload", "query"] + [f"{n}_median_s" for n in names] + [f"speedup_{n}" for n in names[1:]]
    if warm:
        header += [f"{n}_warm_median_s" for n in names]
    rows = [header]
    for (w, q), per in med.items():
        medians = [statistics.median(per[n]) if n in per else float("nan") for n in names]
        speedups = [round(medians[0] / m, 3) if m else float("nan") for m in medians[1:]]
        row = [w, q] + [round(m, 4) for m in medians] + speedups
        if warm:
            wper = warm.get((w, q), {})
            row += [round(statistics.median(wper[n]), 4) if n in wper else float("nan") for n in names]
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
