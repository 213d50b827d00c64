#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The table and plot of a bench/fabrics_vs_kernel.sh run: reads <dir>/runs.jsonl and the
xnvmeperf JSON reports, takes the median of the rounds per path and queue depth, and writes
<dir>/table.md and <dir>/iops_per_cpu.svg (a bar chart, written here: no plotting library).

    bench/fabrics_report.py <dir>
"""
import json
import pathlib
import statistics
import sys

PATHS = ["rdma-xnvme", "rdma-xnvme-mw0", "rdma-kernel", "tcp-xnvme", "tcp-kernel"]
LABEL = {
    "rdma-xnvme": "rdma backend",
    "rdma-xnvme-mw0": "rdma backend, ?mw=0",
    "rdma-kernel": "kernel nvme-rdma (io_uring)",
    "tcp-xnvme": "tcp backend",
    "tcp-kernel": "kernel nvme-tcp (io_uring)",
}
COLOR = {"rdma-xnvme": "#1f6fb4", "rdma-xnvme-mw0": "#4f8fc4", "rdma-kernel": "#9cc3e6", "tcp-xnvme": "#c4581b",
         "tcp-kernel": "#f0b48f"}
QDS = [1, 16, 32]


def load(d):
    runs = []
    for line in (d / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        try:
            tot = json.loads((d / r["file"]).read_text())["total"]
        except (OSError, ValueError, KeyError):
            continue
        if r["rc"] != 0 or tot["errors"] or not r["total"] or not r["busy"]:
            continue
        util = r["busy"] / r["total"]
        runs.append({"path": r["path"], "qd": r["qd"], "iops": tot["iops"], "util": util,
                     "per_cpu": tot["iops"] / util, "p50": tot["lat_ns"]["p50"] / 1000.0,
                     "p99": tot["lat_ns"]["p99"] / 1000.0})
    return runs


def medians(runs):
    out = {}
    for p in PATHS:
        for qd in QDS:
            sel = [r for r in runs if r["path"] == p and r["qd"] == qd]
            if sel:
                out[(p, qd)] = {k: statistics.median(r[k] for r in sel)
                                for k in ("iops", "util", "per_cpu", "p50", "p99")}
                out[(p, qd)]["n"] = len(sel)
    return out


def table(med):
    lines = ["| transport | initiator | QD | IOPS | guest CPU busy | IOPS per CPU-second "
             "| vs kernel | p50 µs | p99 µs | rounds |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for qd in QDS:
        for p in PATHS:
            m = med.get((p, qd))
            if not m:
                continue
            kern = med.get((p.split("-")[0] + "-kernel", qd))
            ratio = f"{m['per_cpu'] / kern['per_cpu']:.2f}x" if kern and "xnvme" in p else ""
            lines.append(f"| {p.split('-')[0]} | {LABEL[p]} | {qd} | {m['iops']:.0f} | "
                         f"{100 * m['util']:.0f} % | {m['per_cpu']:.0f} | {ratio} | "
                         f"{m['p50']:.0f} | {m['p99']:.0f} | {m['n']} |")
    return "\n".join(lines) + "\n"


def svg(med):
    paths = [p for p in PATHS if any((p, qd) in med for qd in QDS)]
    w, h, left, bottom, top = 760, 380, 70, 70, 40
    vmax = max((m["per_cpu"] for m in med.values()), default=1) * 1.1
    group = (w - left - 20) / len(QDS)
    bar = group / (len(paths) + 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           'font-family="sans-serif" font-size="12">',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">'
           'IOPS per guest CPU-second, 4 KiB random reads (median of rounds)</text>']
    plot_h = h - top - bottom
    for i in range(5):
        v = vmax * i / 4
        y = h - bottom - plot_h * i / 4
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - 20}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:.0f}</text>')
    for gi, qd in enumerate(QDS):
        x0 = left + gi * group + bar / 2
        for pi, p in enumerate(paths):
            m = med.get((p, qd))
            if not m:
                continue
            bh = plot_h * m["per_cpu"] / vmax
            x = x0 + pi * bar
            out.append(f'<rect x="{x:.1f}" y="{h - bottom - bh:.1f}" width="{bar * 0.9:.1f}" '
                       f'height="{bh:.1f}" fill="{COLOR[p]}"/>')
        out.append(f'<text x="{left + gi * group + group / 2:.1f}" y="{h - bottom + 18}" '
                   f'text-anchor="middle">QD {qd}</text>')
    for pi, p in enumerate(paths):
        x = left + (pi % 3) * 230
        y = h - 34 + (pi // 3) * 18
        out.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{COLOR[p]}"/>')
        out.append(f'<text x="{x + 16}" y="{y}">{LABEL[p]}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    d = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    med = medians(load(d))
    (d / "table.md").write_text(table(med))
    (d / "iops_per_cpu.svg").write_text(svg(med))
    sys.stdout.write(table(med))


if __name__ == "__main__":
    main()
