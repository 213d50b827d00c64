#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots of a bench.py run: per-query medians (bars, min-max whiskers) of every target, and the
speedup of each target over the baseline (the first target).

usage: plot.py RESULTS_JSON OUTPUT_DIR
"""
import json
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    report = json.loads(pathlib.Path(sys.argv[1]).read_text())
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    names = list(report["meta"]["targets"])
    meta = report["meta"]
    for workload in sorted({r["workload"] for r in report["runs"]}):
        runs = [r for r in report["runs"] if r["workload"] == workload]
        queries = list(dict.fromkeys(r["query"] for r in runs))
        times = {(q, n): [r["seconds"] for r in runs if r["query"] == q and r["target"] == n]
                 for q in queries for n in names}
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(max(8, 0.55 * len(queries) * len(names)), 8),
                                      gridspec_kw={"height_ratios": [3, 2]})
        width = 0.8 / len(names)
        for i, n in enumerate(names):
            xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(queries))]
            med = [statistics.median(times[(q, n)]) for q in queries]
            lo = [m - min(times[(q, n)]) for q, m in zip(queries, med)]
            hi = [max(times[(q, n)]) - m for q, m in zip(queries, med)]
            ax.bar(xs, med, width, yerr=[lo, hi], capsize=2, label=n)
        ax.set_xticks(range(len(queries)), queries, rotation=45 if len(queries) > 8 else 0)
        ax.set_ylabel("seconds (median of runs)")
        ax.set_title(f"{workload}: SF {meta['sf']}, {meta['runs']} runs, {meta['threads']} threads, "
                     f"memory_limit {meta.get(workload + '_memory_limit', '?')}")
        ax.legend()
        base = names[0]
        for i, n in enumerate(names[1:]):
            xs = [j + (i - (len(names) - 2) / 2) * (0.8 / max(1, len(names) - 1)) for j in range(len(queries))]
            sp = [statistics.median(times[(q, base)]) / statistics.median(times[(q, n)]) for q in queries]
            ax2.bar(xs, sp, 0.8 / max(1, len(names) - 1), label=f"{n} vs {base}")
        ax2.axhline(1.0, color="black", linewidth=0.8)
        ax2.axhline(1.3, color="grey", linewidth=0.8, linestyle="--")
        ax2.set_xticks(range(len(queries)), queries, rotation=45 if len(queries) > 8 else 0)
        ax2.set_ylabel(f"speedup over {base}")
        ax2.legend()
        fig.tight_layout()
        fig.savefig(out / f"{workload}.png", dpi=110)
        print(out / f"{workload}.png")


if __name__ == "__main__":
    main()
