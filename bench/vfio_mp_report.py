#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tables of bench/vfio_mp.sh (run through bench/vfio_mp_host.sh): a multi-process secondary
against a single-process vfio open, per queue depth, as medians over the interleaved rounds with
their [min-max] spread, and the ratios secondary / single-process of the pairs (median).

* IOPS: xnvmeperf's report.
* I/Os per guest core-second: xnvmeperf's I/Os over the guest's busy CPU time (TCG reports no
  steal time, so host preemption inflates it).
* I/Os per host core-second: over QEMU's CPU time on the host during the run (host.tsv), less
  the median cost of opening and closing the device in that mode (the "-open" runs of one I/O):
  the whole cost of an I/O under emulation, vCPU and device models together.

    bench/vfio_mp_report.py <out dir> [runs.jsonl]   prints Markdown; writes one line per run
                                                     (the figures above) to runs.jsonl if given
"""
import json
import statistics
import sys
from pathlib import Path


def host_ns(out):
    """run name -> QEMU CPU ns between its markers"""
    marks = {}
    path = out / "host.tsv"
    if not path.exists():
        return {}
    for line in path.read_text().splitlines():
        name, ev, ns = line.split("\t")
        marks.setdefault(name, {})[ev] = int(float(ns))
    return {n: m["t1"] - m["t0"] for n, m in marks.items() if "t0" in m and "t1" in m}


def load(out, keep_all=False):
    host = host_ns(out)
    runs = []
    for line in (out / "runs.jsonl").read_text().splitlines():
        run = json.loads(line)
        if run["rc"]:
            continue
        report = json.loads((out / run["file"]).read_text())
        name = Path(run["file"]).stem
        runs.append(dict(run, ios=report["total"]["ios"], iops=report["total"]["iops"],
                         guest=report["total"]["ios"] / (run["busy_s"] or 1e-9),
                         p50=report["total"]["lat_ns"]["p50"], host_ns=host.get(name)))
    opens = {}
    for mode in ("single", "secondary"):
        ns = [r["host_ns"] for r in runs if r["mode"] == mode + "-open" and r["host_ns"]]
        opens[mode] = statistics.median(ns) if ns else None
    for r in runs:
        fixed = opens.get(r["mode"])
        r["host"] = (r["ios"] / ((r["host_ns"] - fixed) / 1e9)
                     if r["host_ns"] and fixed is not None and r["host_ns"] > fixed else None)
    if keep_all:
        return runs, opens
    return [r for r in runs if not r["mode"].endswith("-open")], opens


def spread(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    return f"{fmt(statistics.median(vals))} [{fmt(min(vals))}-{fmt(max(vals))}]"


def main():
    out = Path(sys.argv[1])
    runs, opens = load(out)
    if len(sys.argv) > 2:
        keys = ("mode", "qd", "round", "ios", "iops", "wall_s", "busy_s", "host_ns", "p50")
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            for r in load(out, keep_all=True)[0]:
                f.write(json.dumps({k: r[k] for k in keys}) + "\n")
    kilo = lambda v: f"{v / 1000:.1f} k"  # noqa: E731
    micro = lambda v: f"{v / 1000:.0f} µs"  # noqa: E731
    ratio = lambda v: f"{v:.3f}"  # noqa: E731
    print("| QD | mode | IOPS | I/Os per guest core-s | I/Os per host core-s | p50 latency | runs |")
    print("|---|---|---|---|---|---|---|")
    pairs = {}
    for qd in sorted({r["qd"] for r in runs}):
        for mode in ("single", "secondary"):
            sel = [r for r in runs if r["qd"] == qd and r["mode"] == mode]
            if sel:
                print(f"| {qd} | {mode} | {spread([r['iops'] for r in sel], kilo)} | "
                      f"{spread([r['guest'] for r in sel], kilo)} | "
                      f"{spread([r['host'] for r in sel], kilo)} | "
                      f"{spread([r['p50'] for r in sel], micro)} | {len(sel)} |")
        for r in runs:
            if r["qd"] == qd:
                pairs.setdefault(qd, {}).setdefault(r["round"], {})[r["mode"]] = r
    print()
    print("| QD | secondary / single: IOPS | per guest core | per host core | pairs |")
    print("|---|---|---|---|---|")
    for qd, rounds in pairs.items():
        both = [p for p in rounds.values() if len(p) == 2]

        def rat(key):
            return [p["secondary"][key] / p["single"][key] for p in both
                    if p["secondary"][key] and p["single"][key]]
        print(f"| {qd} | {spread(rat('iops'), ratio)} | {spread(rat('guest'), ratio)} | "
              f"{spread(rat('host'), ratio)} | {len(both)} |")
    if any(v is not None for v in opens.values()):
        print()
        print("Host CPU of opening and closing (one I/O), median: " + ", ".join(
            f"{m} {v / 1e6:.0f} ms" for m, v in opens.items() if v is not None))


if __name__ == "__main__":
    main()
