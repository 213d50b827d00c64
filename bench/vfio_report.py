#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The table and plots of a bench/vfio_guest.sh run: reads <dir>/runs.jsonl and the tools' JSON
reports, writes <dir>/table.md and three SVG bar charts (IOPS, CPU per I/O, QD1 latency).
The SVG is written here (no plotting library, no web fonts).

    bench/vfio_report.py <dir>
"""
import json
import pathlib
import sys

PATHS = ["vfio", "vfio-base", "io_uring_cmd", "io_uring"]
TOOLS = ["xnvmeperf", "fio-xnvme", "fio"]
LABEL = {"xnvmeperf": "xnvmeperf", "fio-xnvme": "fio xnvme engine", "fio": "fio's own engine"}


def load(d):
    rows = []
    for line in (d / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        try:
            doc = json.loads((d / r["file"]).read_text())
        except (OSError, ValueError):
            r["ok"] = False
            rows.append(r)
            continue
        if r["tool"] == "xnvmeperf":
            tot = doc["total"]
            r.update(ios=tot["ios"], iops=tot["iops"], cpu_s=tot["cpu"]["user_s"] + tot["cpu"]["sys_s"],
                     p50=tot["lat_ns"]["p50"], p99=tot["lat_ns"]["p99"], p999=tot["lat_ns"]["p99_9"],
                     errors=tot["errors"], runtime=tot["elapsed_s"])
        else:
            job = doc["jobs"][0]
            rd, pct = job["read"], job["read"]["clat_ns"].get("percentile", {})
            runtime = rd["runtime"] / 1000.0
            r.update(ios=rd["total_ios"], iops=rd["iops"],
                     cpu_s=(job["usr_cpu"] + job["sys_cpu"]) / 100.0 * runtime,
                     p50=pct.get("50.000000", 0), p99=pct.get("99.000000", 0),
                     p999=pct.get("99.900000", 0), errors=job["error"], runtime=runtime)
        r["ok"] = r["rc"] == 0 and r["ios"] > 0 and not r["errors"]
        rows.append(r)
    return rows


def us(ns):
    return f"{ns / 1000:.0f}" if ns >= 10000 else f"{ns / 1000:.1f}"


def table(rows):
    out = ["| tool | path | QD | IOPS | x io_uring_cmd | CPU µs/I/O | IOPS per core | guest busy | "
           "p50 µs | p99 µs | p99.9 µs | IRQs/I/O |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for qd in (1, 32):
        for tool in TOOLS:
            ref = next((r for r in rows if r["tool"] == tool and r["qd"] == qd and r["path"] == "io_uring_cmd"
                        and r.get("ok")), None)
            for path in PATHS:
                r = next((r for r in rows if r["tool"] == tool and r["qd"] == qd and r["path"] == path), None)
                if r is None:
                    continue
                if not r.get("ok"):
                    out.append(f"| {LABEL[tool]} | {path} | {qd} | failed (exit {r['rc']}) | | | | | | | | |")
                    continue
                cpu_io = r["cpu_s"] / r["ios"] * 1e6
                per_core = r["ios"] / r["cpu_s"] if r["cpu_s"] else 0
                ratio = f"{r['iops'] / ref['iops']:.2f}" if ref else "-"
                out.append(f"| {LABEL[tool]} | {path} | {qd} | {r['iops']:.0f} | {ratio} | {cpu_io:.0f} | "
                           f"{per_core:.0f} | {100 * r['busy_s'] / r['wall_s']:.0f} % | {us(r['p50'])} | "
                           f"{us(r['p99'])} | {us(r['p999'])} | {r['irqs'] / r['ios']:.2f} |")
    return "\n".join(out) + "\n"


COLORS = {"vfio": "#1b7837", "vfio-base": "#a6dba0", "io_uring_cmd": "#2166ac", "io_uring": "#b2182b"}


def svg_bars(path, title, unit, groups, value):
    """groups: [(label, [row per PATHS or None])]; value(row) -> number"""
    w, h, left, top, bottom = 760, 360, 70, 40, 70
    vals = [value(r) for _, rs in groups for r in rs if r is not None and r.get("ok")]
    vmax = max(vals) * 1.1 if vals else 1
    gw = (w - left - 20) / len(groups)
    bw = gw / (len(PATHS) + 1)
    ph = h - top - bottom
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
         f'font-size="11">', f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for i in range(6):
        y = top + ph - ph * i / 5
        s.append(f'<line x1="{left}" x2="{w - 20}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">{vmax * i / 5:.0f}</text>')
    s.append(f'<text x="15" y="{top + ph / 2}" transform="rotate(-90 15 {top + ph / 2})" '
             f'text-anchor="middle">{unit}</text>')
    for g, (label, rs) in enumerate(groups):
        x0 = left + g * gw + bw / 2
        for k, r in enumerate(rs):
            if r is None or not r.get("ok"):
                continue
            v = value(r)
            bh = ph * v / vmax
            x = x0 + k * bw
            s.append(f'<rect x="{x:.1f}" y="{top + ph - bh:.1f}" width="{bw * 0.9:.1f}" height="{bh:.1f}" '
                     f'fill="{COLORS[PATHS[k]]}"/>')
            s.append(f'<text x="{x + bw * 0.45:.1f}" y="{top + ph - bh - 3:.1f}" text-anchor="middle" '
                     f'font-size="9">{v:.0f}</text>')
        cx = left + g * gw + gw / 2
        for i, part in enumerate(label.split(" | ")):  # one line per part, below the axis
            s.append(f'<text x="{cx:.1f}" y="{top + ph + 16 + 13 * i}" text-anchor="middle" font-size="10">'
                     f'{part}</text>')
    for k, p in enumerate(PATHS):
        x = left + k * 160
        s.append(f'<rect x="{x}" y="{h - 22}" width="12" height="12" fill="{COLORS[p]}"/>')
        s.append(f'<text x="{x + 16}" y="{h - 12}">{p}</text>')
    s.append("</svg>")
    path.write_text("\n".join(s) + "\n")


PROBE_IOS = 20000  # bench/vfio_guest.sh counts probes over --count 20000 I/Os


def profile(d):
    """Buckets of the cpu-clock samples at QD32 per path (lines of at least 1 %)"""
    out = ["| path | idle (vCPU halted) | kernel | libxnvme | xnvmeperf | libc + vDSO (clock) | "
           "below 1 % each |", "|---|---|---|---|---|---|---|"]
    for path in ("vfio", "io_uring_cmd", "io_uring"):
        f = d / f"profile-{path}.txt"
        if not f.exists():
            continue
        b = dict.fromkeys(["idle", "kernel", "lib", "tool", "clock"], 0.0)
        for line in f.read_text().splitlines():
            parts = line.split()
            if len(parts) < 5 or not parts[0].endswith("%"):
                continue
            pct, comm, dso = float(parts[0][:-1]), parts[1], parts[2]
            if comm == "swapper":
                b["idle"] += pct
            elif dso == "[kernel.kallsyms]":
                b["kernel"] += pct
            elif dso.startswith("libxnvme"):
                b["lib"] += pct
            elif dso == "xnvmeperf":
                b["tool"] += pct
            else:
                b["clock"] += pct
        rest = 100 - sum(b.values())
        out.append(f"| {path} | " + " | ".join(f"{v:.0f} %" for v in b.values()) + f" | {rest:.0f} % |")
    return "\n".join(out) + "\n"


def probes(d):
    out = ["| path | event | per I/O |", "|---|---|---|"]
    for path in ("vfio", "vfio-base", "io_uring_cmd", "io_uring"):
        f = d / f"probes-{path}.csv"
        if not f.exists():
            continue
        for line in f.read_text().splitlines():
            parts = line.split(",")
            if len(parts) > 2 and parts[0].strip().isdigit():
                out.append(f"| {path} | {parts[2].split(':')[-1]} | {int(parts[0]) / PROBE_IOS:.2f} |")
    return "\n".join(out) + "\n"


def ab(d):
    """Medians over the interleaved rounds of bench/vfio_ab.sh, and the median of the
    per-round ratios to io_uring_cmd (each round's paths ran within seconds of each other)"""
    f = d / "ab.jsonl"
    if not f.exists():
        return ""
    rows = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]

    def med(v):
        v = sorted(v)
        return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2 if v else 0
    out = ["| path | QD | rounds | IOPS (median) | x io_uring_cmd (median of rounds) | p50 µs | p99 µs | "
           "CPU µs/I/O |", "|---|---|---|---|---|---|---|---|"]
    for qd in (1, 32):
        for path in ("vfio", "vfio-base", "io_uring_cmd"):
            rs = [r for r in rows if r["path"] == path and r["qd"] == qd]
            if not rs:
                continue
            ratios = []
            for r in rs:
                ref = next((x for x in rows if x["path"] == "io_uring_cmd" and x["qd"] == qd
                            and x["round"] == r["round"]), None)
                if ref and ref["iops"]:
                    ratios.append(r["iops"] / ref["iops"])
            out.append(f"| {path} | {qd} | {len(rs)} | {med([r['iops'] for r in rs]):.0f} | "
                       f"{med(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}] | "
                       f"{us(med([r['p50'] for r in rs]))} | {us(med([r['p99'] for r in rs]))} | "
                       f"{med([r['cpu_s'] / r['ios'] * 1e6 for r in rs]):.0f} |")
    return "\n".join(out) + "\n"


def main():
    d = pathlib.Path(sys.argv[1])
    rows = load(d)
    (d / "table.md").write_text(table(rows) + "\n" + ab(d) + "\n" + profile(d) + "\n" + probes(d))

    def pick(tool, qd):
        return [next((r for r in rows if r["tool"] == tool and r["qd"] == qd and r["path"] == p), None)
                for p in PATHS]
    groups = [(f"{LABEL[t]} | QD{qd}", pick(t, qd)) for qd in (1, 32) for t in TOOLS]
    svg_bars(d / "iops.svg", "4 KiB random reads, 1 vCPU (TCG): IOPS", "IOPS", groups, lambda r: r["iops"])
    svg_bars(d / "cpu_per_io.svg", "CPU time per I/O (the tool's process)", "µs per I/O", groups,
             lambda r: r["cpu_s"] / r["ios"] * 1e6)
    svg_bars(d / "latency_qd1.svg", "QD1 latency p50 (µs)", "µs",
             [(LABEL[t], pick(t, 1)) for t in TOOLS], lambda r: r["p50"] / 1000)
    print((d / "table.md").read_text(), end="")


if __name__ == "__main__":
    main()
