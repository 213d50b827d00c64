#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns the benchmark JSON documents into a Markdown report and PNG plots.

    report.py --suite suite.json [--suite guest.json] [--instr instr.json]
              [--instr-table instr_table.json] [--churn churn.json]
              [--perf xnvmeperf.json] --outdir bench/results

Writes <outdir>/README.md (tables) and, when matplotlib is importable, <outdir>/*.png:
latency against queue depth and against block size per target (fio's engine solid, the xnvme
engine dashed, one colour per interface), QD1 4 KiB per interface, and the ramdisk overhead.
"""
import argparse
import json
import os
import sys


def fmt_ns(v):
    if v is None:
        return "n/a"
    if abs(v) >= 100000:
        return "%.0f µs" % (v / 1000)
    if abs(v) >= 10000:
        return "%.1f µs" % (v / 1000)
    return "%.0f ns" % v


def fmt_iops(v):
    if v is None:
        return "n/a"
    if v >= 1e6:
        return "%.2f M" % (v / 1e6)
    if v >= 1e3:
        return "%.1f k" % (v / 1e3)
    return "%.0f" % v


def fmt_bs(bs):
    return "%d KiB" % (bs // 1024) if bs >= 1024 else "%d B" % bs


def spread(s, key="lat_ns"):
    if not s:
        return "n/a"
    return "%s [%s–%s]" % (fmt_ns(s[key + "_median"]), fmt_ns(s[key + "_min"]),
                           fmt_ns(s[key + "_max"]))


def iops_spread(s):
    if not s:
        return "n/a"
    return "%s [%s–%s]" % (fmt_iops(s["iops_median"]), fmt_iops(s["iops_min"]),
                           fmt_iops(s["iops_max"]))


A_NAME = {"nil": "null", "psync": "psync", "libaio": "libaio", "posixaio": "posixaio",
          "io_uring": "io_uring", "io_uring_sqpoll": "io_uring sqpoll",
          "io_uring_reg": "io_uring registerfiles", "io_uring_cmd": "io_uring_cmd"}
B_NAME = {"nil": "xnvme nil", "psync": "xnvme emu/psync", "libaio": "xnvme libaio",
          "posixaio": "xnvme posix", "io_uring": "xnvme io_uring",
          "io_uring_sqpoll": "xnvme io_uring sqpoll",
          "io_uring_reg": "xnvmeperf io_uring register-files", "io_uring_cmd": "xnvme io_uring_cmd"}
TARGET_TITLE = {"ramdisk": "ramdisk (no I/O: fio null vs xnvme nil)", "tmpfs": "file on tmpfs",
                "ext4": "file on the root fs (ext4), O_DIRECT",
                "loop": "loop device, direct I/O", "nvme": "QEMU guest /dev/nvme0n1",
                "ng": "QEMU guest /dev/ng0n1"}


def md_machine(doc):
    m = doc.get("machine", {})
    return ("%s, %s CPUs, %.1f GiB RAM, kernel %s, load at start %s; commit %s%s; mode %s, "
            "%d repetitions of %d ms (+%d ms ramp) per side, interleaved" % (
                m.get("cpu", "?"), m.get("cpus", "?"), m.get("mem_kib", 0) / 1048576.0,
                m.get("kernel", "?"), "/".join(m.get("loadavg_start", [])),
                m.get("commit", "?"), " (+ uncommitted changes)" if m.get("dirty") else "",
                doc.get("mode"), doc.get("reps", 0), doc.get("runtime_ms", 0),
                doc.get("ramp_ms", 0)))


def fmt_add(v):
    return ("%+.0f" % v) if v is not None else "n/a"


def md_cells(cells):
    out = ["| interface | QD | bs | A lat median [min–max] | B lat median [min–max] | B/A | "
           "added ns/IO: latency | wall (1/IOPS) | CPU | A IOPS | B IOPS |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        a, b = c.get("A"), c.get("B")
        note = ""
        if not b and c.get("b_error"):
            note = " (B: %s)" % c["b_error"].splitlines()[-1][:60].replace("|", "/")
        if not a and c.get("a_error"):
            note += " (A: %s)" % c["a_error"].splitlines()[-1][:60].replace("|", "/")
        out.append("| %s | %d | %s | %s | %s%s | %s | %s | %s | %s | %s | %s |" % (
            c["iface"], c["qd"], fmt_bs(c["bs"]), spread(a), spread(b), note,
            ("%.2f" % c["ratio"]) if c.get("ratio") else "n/a", fmt_add(c.get("added_ns_lat")),
            fmt_add(c.get("added_ns_per_io")), fmt_add(c.get("added_cpu_ns_per_io")),
            iops_spread(a), iops_spread(b)))
    return out


def md_engines():
    out = ["| interface | A: fio's engine | B: xnvme |", "|---|---|---|"]
    for k in A_NAME:
        out.append("| %s | %s | %s |" % (k, A_NAME[k], B_NAME[k]))
    return out


def md_instr(instr):
    out = ["| program | I/Os counted | total instr/IO | in libxnvme | libxnvme: submit | "
           "reap + callback dispatch | ctx get/put | client code |",
           "|---|---|---|---|---|---|---|---|"]
    for r in instr.get("nil_loop", []):
        ro = r["library_roles"]
        out.append("| bench/nil_loop QD%d | %d | %.1f | **%.1f** | %.1f | %.1f | %.1f | %.1f |"
                   % (r["qd"], r["ios"], r["total_per_io"], r["library_per_io"], ro["submit"],
                      ro["reap_callback"], ro["ctx_get_put"], r["client_per_io"]))
    for r in instr.get("fio", []):
        ro = r["library_roles"]
        out.append("| fio %s engine QD1%s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f (fio) |"
                   % (r["engine"], " (nil)" if r["engine"] == "xnvme" else "", r["ios"],
                      r["total_per_io"], r["library_per_io"], ro["submit"],
                      ro["reap_callback"], ro["ctx_get_put"], r["fio_per_io"]))
    if "fio_xnvme_minus_null" in instr:
        out.append("")
        out.append("fio xnvme engine minus fio null engine: **%+.1f instructions per I/O** "
                   "(of which libxnvme %.1f)." % (instr["fio_xnvme_minus_null"],
                                                   instr["fio"][1]["library_per_io"]))
    return out


def md_instr_table(doc):
    """bench/instr_table.py: one column per library (the original's when it was measured)"""
    cols = [n for n, _ in doc["libs"]]
    out = ["Commit %s; fio 3.33's job thread (all threads for thrpool and posix), N = %d and "
           "2N I/Os, difference / N." % (doc.get("commit", "?"), doc.get("ios", 0)), "",
           "| row | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for row, vals in doc["rows"].items():
        out.append("| %s | %s |" % (row, " | ".join(
            "%.0f" % vals[c] if vals.get(c) is not None else "n/a" for c in cols)))
    return out


def md_churn(doc):
    names = list(doc["libs"])
    out = ["| URI | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for uri, r in doc["uris"].items():
        out.append("| %s | %s |" % (uri, " | ".join(
            "%.0f (x%.3f)" % (r["median"][n], r["ratio"][n]) for n in names)))
    return out


def md_perf(perf):
    out = ["| run | threads | QD | iosize | async | IOPS | MiB/s | mean | p50 | p99 | p99.9 | "
           "CPU % |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in perf:
        if "error" in r:
            out.append("| %s | | | | | error: %s | | | | | | |" % (r["label"], r["error"][:80]))
            continue
        c, t = r["doc"]["config"], r["doc"]["total"]
        lat = t["lat_ns"]
        out.append("| %s | %d | %d | %d | %s | %s | %.1f | %s | %s | %s | %s | %.0f |" % (
            r["label"], c["threads"], c["qdepth"], c["iosize"], c["async"], fmt_iops(t["iops"]),
            t["mib_s"], fmt_ns(lat["mean"]), fmt_ns(lat["p50"]), fmt_ns(lat["p99"]),
            fmt_ns(lat["p99_9"]), t["cpu"]["util_pct"]))
    return out


def metric(target, s):
    """(median, min, max) of the plotted quantity of one side's summary (ramdisk ns, else µs).

    Device targets: mean latency. The ramdisk: CPU time of the job thread per I/O, because at
    QD > 1 fio's null engine completes I/Os at commit while the nil mechanism completes them at
    the next poke, so their latencies measure queueing, not overhead; and because wall time per
    I/O grows with whatever else runs on the machine, while the thread's CPU time does not."""
    if target == "ramdisk" and "cpu_ns_per_io_median" in s:
        return (s["cpu_ns_per_io_median"], s["cpu_ns_per_io_min"], s["cpu_ns_per_io_max"])
    return (s["lat_ns_median"] / 1000, s["lat_ns_min"] / 1000, s["lat_ns_max"] / 1000)


def metric_label(target):
    if target == "ramdisk":
        return "CPU time of the job thread per I/O (ns), median, min–max bars"
    return "mean latency (µs), median of reps, min–max bars"


def plots(cells_by_target, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib not importable, no plots", file=sys.stderr)
        return []
    made = []
    colors = {}
    palette = ["C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7"]

    def color(iface):
        if iface not in colors:
            colors[iface] = palette[len(colors) % len(palette)]
        return colors[iface]

    for t, cells in cells_by_target.items():
        for axis, fixed_key, fixed_val, fname, xlabel in (
                ("qd", "bs", 4096, "%s_lat_vs_qd.png" % t, "queue depth"),
                ("bs", "qd", 1, "%s_lat_vs_bs.png" % t, "block size (bytes)")):
            series = {}
            for c in cells:
                if c[fixed_key] != fixed_val:
                    continue
                series.setdefault(c["iface"], []).append(c)
            series = {k: sorted(v, key=lambda c: c[axis]) for k, v in series.items()
                      if len(v) >= 3}
            if not series:
                continue
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for iface, cs in series.items():
                for side, ls, names in (("A", "-", A_NAME), ("B", "--", B_NAME)):
                    pts = [(c[axis], c[side]) for c in cs if c.get(side)]
                    if not pts:
                        continue
                    xs = [p[0] for p in pts]
                    ys = [metric(t, p[1])[0] for p in pts]
                    lo = [max(y - metric(t, p[1])[1], 0) for y, p in zip(ys, pts)]
                    hi = [max(metric(t, p[1])[2] - y, 0) for y, p in zip(ys, pts)]
                    ax.errorbar(xs, ys, yerr=[lo, hi], ls=ls, marker="o" if side == "A" else "s",
                                ms=3, capsize=2, color=color(iface),
                                label="%s (%s)" % (names[iface], "fio" if side == "A" else
                                                   "xnvme"))
            ax.set_xscale("log", base=2)
            if t == "ramdisk":
                ax.set_ylim(bottom=0)
            else:
                ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(metric_label(t))
            ax.set_title("%s: 4 KiB randread vs %s" % (TARGET_TITLE.get(t, t), xlabel)
                         if axis == "qd" else "%s: QD1 randread vs block size" %
                         TARGET_TITLE.get(t, t), fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, fname), dpi=110)
            plt.close(fig)
            made.append(fname)
        # QD1 4 KiB bars per interface
        q1 = [c for c in cells if c["qd"] == 1 and c["bs"] == 4096]
        if len(q1) >= 1:
            fname = "%s_qd1_4k.png" % t
            fig, ax = plt.subplots(figsize=(7, 4))
            xs = list(range(len(q1)))
            w = 0.38
            for off, side, lab in ((-w / 2, "A", "fio's engine"), (w / 2, "B", "xnvme")):
                ms = [metric(t, c[side]) if c.get(side) else (0, 0, 0) for c in q1]
                ys = [m[0] for m in ms]
                err = [[max(m[0] - m[1], 0) for m in ms], [max(m[2] - m[0], 0) for m in ms]]
                ax.bar([x + off for x in xs], ys, w, yerr=err, capsize=2, label=lab)
            ax.set_xticks(xs)
            ax.set_xticklabels([c["iface"] for c in q1], rotation=20, fontsize=8)
            ax.set_ylabel(metric_label(t))
            ax.set_title("%s: QD1 4 KiB randread" % TARGET_TITLE.get(t, t), fontsize=9)
            ax.legend(fontsize=8)
            ax.grid(True, axis="y", alpha=0.3)
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, fname), dpi=110)
            plt.close(fig)
            made.append(fname)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--instr")
    ap.add_argument("--instr-table", help="bench/instr_table.py's JSON")
    ap.add_argument("--churn", help="bench/churn_ab.py's JSON")
    ap.add_argument("--perf", action="append", default=[])
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--title", default="xnvme benchmark results")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    docs = [json.load(open(p)) for p in a.suite if os.path.exists(p)]
    instr = json.load(open(a.instr)) if a.instr and os.path.exists(a.instr) else None
    itab = (json.load(open(a.instr_table))
            if a.instr_table and os.path.exists(a.instr_table) else None)
    churn = json.load(open(a.churn)) if a.churn and os.path.exists(a.churn) else None
    perf = []
    for p in a.perf:
        if os.path.exists(p):
            perf += json.load(open(p))

    cells_by_target = {}
    for d in docs:
        for c in d["cells"]:
            cells_by_target.setdefault(c["target"], []).append(c)
    made = plots(cells_by_target, a.outdir)

    md = ["# %s" % a.title, "",
          "Generated by `bench/run_all.sh` (bench/report.py). A = fio 3.33's own engine, "
          "B = fio's `xnvme` engine over this library with the matching mechanism (same fio "
          "binary, same target, same options). 4 KiB-style random reads, `--thread=1`, one job. "
          "Latency is fio's mean total latency (`lat_ns.mean`). *Added ns/IO* is B minus A of "
          "the medians of: mean latency; wall time per I/O (1/IOPS); CPU time of the job thread "
          "per I/O (fio's usr+sys share × runtime / I/Os, the figure least disturbed by other "
          "load). Medians over the repetitions, [min–max] spread. "
          "Only ratios measured side by side in one run are meaningful: the machine is a shared "
          "2-vCPU VM (see `docs/benchmarks.md`).", ""]
    for d in docs:
        md.append("* %s run: %s" % ("guest" if d.get("machine", {}).get("hostname_in_guest")
                                     else "host", md_machine(d)))
        if d.get("note"):
            md.append("  * note: %s" % d["note"].lstrip("; "))
        for t, info in d.get("targets", {}).items():
            if info.get("note"):
                md.append("  * %s: %s" % (t, info["note"]))
    md.append("")
    md += md_engines()
    md.append("")
    if instr:
        md += ["## Instructions per I/O of the nil path (callgrind, deterministic)", ""]
        md += md_instr(instr)
        md.append("")
    if itab:
        md += ["## Instructions per I/O, this library and the original xNVMe 0.7.5", ""]
        md += md_instr_table(itab)
        md.append("")
    if churn:
        md += ["## Open/close churn (cycles per second, interleaved rounds, medians)", ""]
        md += md_churn(churn)
        md.append("")
    if perf:
        md += ["## xnvmeperf (multi-queue tool)", ""]
        md += md_perf(perf)
        md.append("")
    for t, cells in cells_by_target.items():
        md += ["## %s" % TARGET_TITLE.get(t, t), ""]
        md += md_cells(cells)
        md.append("")
        for f in made:
            if f.startswith(t + "_"):
                md.append("![%s](%s)" % (f, f))
        md.append("")
    with open(os.path.join(a.outdir, "README.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("report: wrote %s and %d plots" % (os.path.join(a.outdir, "README.md"), len(made)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
