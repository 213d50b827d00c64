#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Ours vs fio's native engines: every mechanism x target x queue depth, with CPU use.

    bench/suite.py --fio FIO --lib DIR [--targets ramdisk,tmpfs,ext4,loop] [--qds 1,16,64]
                   [--reps 3] [--runtime 2] [--callgrind 2000] [--outdir bench/results/suite]

One fio binary runs both sides of every cell: A is fio's own engine, B is fio's `xnvme` engine
on our library (DIR holds libxnvme.so.0 and is put first on LD_LIBRARY_PATH for B only). 4 KiB
random reads, --thread=1, one job; A and B alternate (A B, B A, ...) for --reps repetitions of
--runtime seconds each. Per side and repetition it records fio's IOPS and the CPU time of the
whole fio process (user + system from wait4(), so io_uring's io-wq workers, the thrpool
workers and glibc's POSIX AIO threads are counted), and reports the medians of IOPS and of
I/Os per CPU-second (I/Os completed / CPU seconds). Both B/A ratios are given: IOPS and
IOPS per CPU-second. fio's engines wait in the kernel; ours waits as well once a poke finds
nothing twice in a row (the queue flag XNVME_QUEUE_POKE_SPIN makes it spin: then compare per
CPU-second).

Pairs (A = fio engine, B = xnvme --xnvme_async):
  io_uring: io_uring / io_uring      libaio: libaio / libaio      psync: psync / emu + psync
  thrpool: posixaio / thrpool + psync (both run sync calls on helper threads)
  posix: posixaio / posix            io_uring_cmd: io_uring_cmd / io_uring_cmd (/dev/ng0n1)
  ramdisk: fio's null engine (no I/O at all) / nil, emu and thrpool on the ramdisk
Targets: ramdisk, tmpfs (buffered file), ext4 (O_DIRECT file of unwritten extents on ext4 on a loop device; the root
file system when that cannot be made), loop (the loop device itself, direct I/O, O_DIRECT),
nvme and ng (QEMU guest: bench/suite_guest.sh).

--callgrind N also counts user-space instructions per I/O of each pair (the fio job thread;
every thread for thrpool and posix) from runs of N and 2N I/Os at QD1 on the first file target:
the deterministic figure of each mechanism's submit + reap path (system calls count as the
instructions that issue them).

Writes suite.json (all raw runs), suite.md (the table) and suite_ratio.svg into --outdir.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from callgrind_split import parse  # noqa: E402
import run_fio_suite  # noqa: E402

FILE_TARGETS = ("tmpfs", "ext4", "loop", "nvme")
PAIRS = {
    "io_uring": (["--ioengine=io_uring"], ["--xnvme_async=io_uring"], FILE_TARGETS),
    "libaio": (["--ioengine=libaio"], ["--xnvme_async=libaio"], FILE_TARGETS),
    "psync": (["--ioengine=psync"], ["--xnvme_async=emu", "--xnvme_sync=psync"], FILE_TARGETS),
    "thrpool": (["--ioengine=posixaio"], ["--xnvme_async=thrpool", "--xnvme_sync=psync"],
                FILE_TARGETS),
    "posix": (["--ioengine=posixaio"], ["--xnvme_async=posix"], FILE_TARGETS),
    "io_uring_cmd": (["--ioengine=io_uring_cmd", "--cmd_type=nvme"],
                     ["--xnvme_async=io_uring_cmd"], ("ng",)),
    "nil": (["--ioengine=null"], ["--xnvme_async=nil"], ("ramdisk",)),
    "emu": (["--ioengine=null"], ["--xnvme_async=emu"], ("ramdisk",)),
    "thrpool-ram": (["--ioengine=null"], ["--xnvme_async=thrpool"], ("ramdisk",)),
}
# polled (spinning) side, for the table: none by default since idle pokes wait
CG_ALL_THREADS = ("thrpool", "posix", "thrpool-ram")


def log(msg):
    print("# suite: " + msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


class Targets(run_fio_suite.Targets):
    """Files and devices of the cells; cleanup() removes what setup() made (the parent's
    setup() loop, which records an unavailable target in `notes` and skips it)."""

    def __init__(self, workdir, mib):
        self.workdir, self.mib = workdir, mib
        self.paths, self.direct, self.notes = {}, {}, {}
        self.loops, self.mounts, self.dirs = [], [], []

    def _fill(self, path):
        with open(path, "wb") as f:
            chunk = b"\xa5" * (1 << 20)
            for _ in range(self.mib):
                f.write(chunk)
            os.fsync(f.fileno())

    def _losetup(self, backing, dio):
        r = sh(["losetup", "--direct-io=%s" % ("on" if dio else "off"), "-f", "--show", backing])
        if r.returncode:
            raise RuntimeError("losetup: " + r.stderr.strip())
        self.loops.append(r.stdout.strip())
        return self.loops[-1]

    def _setup_one(self, t):
        if t == "ramdisk":
            self.paths[t], self.direct[t] = "1GB", 0
        elif t == "tmpfs":
            d = tempfile.mkdtemp(prefix="xnvme-suite-", dir="/dev/shm")
            self.dirs.append(d)
            self.paths[t], self.direct[t] = os.path.join(d, "f.img"), 0
            self._fill(self.paths[t])
        elif t == "ext4":
            img = os.path.join(self.workdir, "ext4fs.img")
            with open(img, "wb") as f:
                f.truncate((self.mib + 96) << 20)
            try:
                dev = self._losetup(img, True)
                r = sh(["mkfs.ext4", "-q", "-F", dev])
                mnt = tempfile.mkdtemp(prefix="xnvme-suite-mnt-")
                self.dirs.append(mnt)
                if r.returncode or sh(["mount", dev, mnt]).returncode:
                    raise RuntimeError("mkfs/mount failed")
                self.mounts.append(mnt)
                self.paths[t] = os.path.join(mnt, "f.img")
                self.notes[t] = "ext4 on %s (loop, direct I/O)" % dev
            except (RuntimeError, OSError) as e:
                self.paths[t] = os.path.join(self.workdir, "ext4.img")
                self.notes[t] = "root file system (%s)" % e
            self.direct[t] = 1
            # unwritten extents: reads return zeros without touching the disk (CPU-bound)
            fd = os.open(self.paths[t], os.O_CREAT | os.O_WRONLY, 0o600)
            try:
                os.posix_fallocate(fd, 0, self.mib << 20)
            finally:
                os.close(fd)
            self.notes[t] += ", file of unwritten extents (fallocate): CPU-bound"
        elif t == "loop":
            backing = os.path.join(self.workdir, "loop.img")
            self._fill(backing)
            self.paths[t], self.direct[t] = self._losetup(backing, True), 1
        elif t in ("nvme", "ng"):
            env = "XNVME_QEMU_NVM_BLK" if t == "nvme" else "XNVME_QEMU_NVM_CHR"
            p = os.environ.get(env, "/dev/nvme0n1" if t == "nvme" else "/dev/ng0n1")
            if not os.path.exists(p):
                raise RuntimeError("%s missing" % p)
            self.paths[t], self.direct[t] = p, 1 if t == "nvme" else 0
        else:
            raise RuntimeError("unknown target")

    def cleanup(self):
        for m in self.mounts:
            sh(["umount", m])
        for dev in self.loops:
            sh(["losetup", "-d", dev])
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        for f in ("ext4fs.img", "ext4.img", "loop.img"):
            try:
                os.unlink(os.path.join(self.workdir, f))
            except OSError:
                pass


def fio_cmd(a, side, pair, path, direct, qd, extra):
    opts_a, opts_b, _ = PAIRS[pair]
    cmd = [a.fio, "--name=s", "--thread=1", "--rw=randread", "--bs=4k", "--iodepth=%d" % qd,
           "--norandommap=1", "--randrepeat=0", "--direct=%d" % direct] + extra
    cmd += opts_a if side == "A" else ["--ioengine=xnvme"] + opts_b
    if side == "A" and "--ioengine=null" in opts_a:
        cmd.append("--size=1g")
    else:
        cmd.append("--filename=" + path)
    return cmd


def env_for(a, side):
    """Our library first on the search path, for both sides: fio needs libxnvme.so.0 to start
    even when it runs a native engine, and its built-in run path may not exist (in a guest)."""
    del side
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = a.lib + ((":" + env["LD_LIBRARY_PATH"])
                                      if env.get("LD_LIBRARY_PATH") else "")
    return env


def run_one(a, side, pair, path, direct, qd):
    """One repetition: fio's figures plus the CPU time of the whole process (wait4)."""
    with tempfile.NamedTemporaryFile(prefix="xnvme-suite-", suffix=".json") as out:
        cmd = fio_cmd(a, side, pair, path, direct, qd,
                      ["--time_based=1", "--runtime=%gs" % a.runtime, "--output-format=json",
                       "--output=" + out.name])
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=env_for(a, side))
        err = p.stderr.read().decode(errors="replace")
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        if p.returncode:
            return {"error": err.strip()[-300:] or "exit %d" % p.returncode}
        try:
            text = open(out.name).read()
            job = json.loads(text[text.index("{"):])["jobs"][0]
        except (ValueError, KeyError, IndexError) as e:
            return {"error": "unparsable fio output: %s" % e}
    rd = job["read"]
    cpu = ru.ru_utime + ru.ru_stime
    return {"iops": rd["iops"], "ios": rd["total_ios"], "lat_ns": rd["lat_ns"]["mean"],
            "cpu_s": cpu, "wall_s": wall, "ios_per_cpu_s": rd["total_ios"] / cpu if cpu else 0,
            "job_cpu_pct": job.get("usr_cpu", 0) + job.get("sys_cpu", 0)}


def med(runs, key):
    v = [r[key] for r in runs if "error" not in r]
    return statistics.median(v) if v else None


def run_cells(a, targets):
    cells = []
    plan = [(t, p, qd) for t in a.targets if t in targets.paths for p in a.pairs
            if t in PAIRS[p][2] for qd in a.qds]
    log("%d cells x 2 sides x %d repetitions of %g s" % (len(plan), a.reps, a.runtime))
    t0 = time.monotonic()
    for i, (t, pair, qd) in enumerate(plan):
        runs = {"A": [], "B": []}
        for rep in range(a.reps):
            for side in (("A", "B") if rep % 2 == 0 else ("B", "A")):
                if runs[side] and "error" in runs[side][0]:
                    continue
                runs[side].append(run_one(a, side, pair, targets.paths[t], targets.direct[t],
                                          qd))
        c = {"target": t, "pair": pair, "qd": qd, "runs": runs}
        for s in ("A", "B"):
            c[s] = {k: med(runs[s], k) for k in ("iops", "ios_per_cpu_s", "cpu_s", "lat_ns",
                                                  "job_cpu_pct")}
            errs = [r["error"] for r in runs[s] if "error" in r]
            if errs:
                c[s]["error"] = errs[0]
        if c["A"]["iops"] and c["B"]["iops"]:
            c["ratio_iops"] = c["B"]["iops"] / c["A"]["iops"]
            c["ratio_eff"] = c["B"]["ios_per_cpu_s"] / c["A"]["ios_per_cpu_s"]
        cells.append(c)
        log("[%d/%d %4.0fs] %-7s %-12s qd=%-3d A %9s  B %9s  iops x%s  per-cpu x%s" % (
            i + 1, len(plan), time.monotonic() - t0, t, pair, qd,
            "%.0f" % c["A"]["iops"] if c["A"]["iops"] else "err",
            "%.0f" % c["B"]["iops"] if c["B"]["iops"] else "err",
            "%.2f" % c["ratio_iops"] if "ratio_iops" in c else "-",
            "%.2f" % c["ratio_eff"] if "ratio_eff" in c else "-"))
    return cells


def callgrind_pairs(a, targets):
    """User-space instructions per I/O of each pair at QD1 (difference of N and 2N I/Os)."""
    res = []
    ft = next((t for t in a.targets if t in targets.paths and t != "ramdisk"), None)
    with tempfile.TemporaryDirectory(prefix="xnvme-suite-cg-") as tmp:
        for pair in a.pairs:
            t = ft if ft in PAIRS[pair][2] else ("ramdisk" if "ramdisk" in PAIRS[pair][2]
                                                 and "ramdisk" in targets.paths else None)
            if t is None:
                continue
            row = {"pair": pair, "target": t}
            for side in ("A", "B"):
                tot = []
                for k in (a.callgrind, 2 * a.callgrind):
                    out = os.path.join(tmp, "cg.%s.%s.%d" % (pair, side, k))
                    sel = [] if pair in CG_ALL_THREADS else ["--collect-atstart=no",
                                                             "--toggle-collect=thread_main"]
                    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + \
                        sel + fio_cmd(a, side, pair, targets.paths[t], targets.direct[t], 1,
                                      ["--number_ios=%d" % k, "--output-format=terse"])
                    r = sh(cmd, env=env_for(a, side))
                    if r.returncode:
                        row[side] = {"error": r.stderr.strip()[-300:]}
                        break
                    tot.append(parse(out))
                if len(tot) == 2:
                    (t1, o1, _), (t2, o2, _) = tot
                    lib = sum(o2.get(o, 0) - o1.get(o, 0) for o in set(o1) | set(o2)
                              if "libxnvme" in o)
                    row[side] = {"total_per_io": (t2 - t1) / a.callgrind,
                                 "library_per_io": lib / a.callgrind}
            res.append(row)
            log("callgrind %-12s %s" % (pair, "  ".join(
                "%s %.0f" % (s, row[s]["total_per_io"]) for s in ("A", "B")
                if "total_per_io" in row.get(s, {}))))
    return res


def fmt_k(v):
    return "n/a" if v is None else ("%.1f k" % (v / 1e3) if v < 1e6 else "%.2f M" % (v / 1e6))


def write_md(doc, path):
    m = doc["machine"]
    lines = ["# ours vs fio's native engines (bench/suite.py)", "",
             "%s, %s CPUs, kernel %s, load %s at start, %s at end; commit %s; %d interleaved "
             "repetitions of %g s per side; 4 KiB random reads; medians." % (
                 m.get("cpu", "?"), m.get("cpus"), m.get("kernel"),
                 "/".join(m.get("load_start", [])), "/".join(m.get("load_end", [])),
                 m.get("commit"), doc["reps"], doc["runtime_s"]), "",
             "IOPS/CPU-s: I/Os completed per CPU-second of the whole fio process (all "
             "threads, user + system). Both sides wait in the kernel when nothing is ready "
             "(fio's engines by design, ours from the second empty poke in a row). Goal: "
             "B/A >= 1.10 on both ratios.", "",
             "| target | pair (A fio / B xnvme) | QD | A IOPS | B IOPS | B/A IOPS | "
             "A IOPS/CPU-s | B IOPS/CPU-s | B/A per CPU-s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in doc["cells"]:
        a, b = c["A"], c["B"]
        lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
            c["target"], c["pair"], c["qd"], fmt_k(a["iops"]), fmt_k(b["iops"]),
            "%.2f" % c["ratio_iops"] if "ratio_iops" in c else "-",
            fmt_k(a["ios_per_cpu_s"]), fmt_k(b["ios_per_cpu_s"]),
            "%.2f" % c["ratio_eff"] if "ratio_eff" in c else "-"))
    errs = [(c["target"], c["pair"], s, c[s]["error"]) for c in doc["cells"] for s in "AB"
            if "error" in c[s]]
    if errs:
        lines += ["", "Failed sides:", ""] + ["* %s %s %s: %s" % e for e in errs]
    if doc.get("callgrind"):
        lines += ["", "## Instructions per I/O in user space at QD1 (callgrind)", "",
                  "| pair | target | A fio engine | B xnvme engine | B: of which libxnvme |",
                  "|---|---|---|---|---|"]
        for r in doc["callgrind"]:
            a, b = r.get("A", {}), r.get("B", {})
            lines.append("| %s | %s | %s | %s | %s |" % (
                r["pair"], r["target"],
                "%.0f" % a["total_per_io"] if "total_per_io" in a else "n/a",
                "%.0f" % b["total_per_io"] if "total_per_io" in b else "n/a",
                "%.0f" % b["library_per_io"] if "library_per_io" in b else "n/a"))
    notes = ["* %s: %s" % kv for kv in doc["target_notes"].items()]
    if notes:
        lines += ["", "Targets:", ""] + notes
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_svg(doc, path):
    """Horizontal bars of both B/A ratios per cell, with the 1.0 and 1.10 lines."""
    cells = [c for c in doc["cells"] if "ratio_iops" in c]
    if not cells:
        return
    row, left, width = 16, 230, 520
    vmax = max(2.0, max(max(c["ratio_iops"], c["ratio_eff"]) for c in cells) * 1.05)
    h = 40 + row * len(cells) + 30
    x = lambda v: left + width * min(v, vmax) / vmax  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (left + width + 20, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="16" font-size="13">B/A (xnvme engine / fio native engine): '
           '<tspan fill="#3465a4">IOPS</tspan>, <tspan fill="#f57900">IOPS per '
           'CPU-second</tspan></text>']
    for i, c in enumerate(cells):
        y = 30 + i * row
        out.append('<text x="%d" y="%d" text-anchor="end">%s %s QD%d</text>' % (
            left - 6, y + 11, c["target"], c["pair"], c["qd"]))
        out.append('<rect x="%d" y="%d" width="%.1f" height="6" fill="#3465a4"/>' % (
            left, y + 1, x(c["ratio_iops"]) - left))
        out.append('<rect x="%d" y="%d" width="%.1f" height="6" fill="#f57900"/>' % (
            left, y + 7, x(c["ratio_eff"]) - left))
    y1 = 30 + row * len(cells)
    for v, dash in ((1.0, ""), (1.1, ' stroke-dasharray="4,3"')):
        out.append('<line x1="%.1f" y1="26" x2="%.1f" y2="%d" stroke="black"%s/>' % (
            x(v), x(v), y1, dash))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%.2f</text>' % (x(v), y1 + 14,
                                                                              v))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def machine():
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "kernel": platform.release(), "cpus": os.cpu_count(),
            "load_start": ["%.2f" % v for v in os.getloadavg()]}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next(ln.split(":", 1)[1].strip() for ln in f
                               if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    info["commit"] = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fio", default=os.environ.get("XNVME_FIO"))
    ap.add_argument("--lib", required=True, help="directory holding our libxnvme.so.0")
    ap.add_argument("--targets", default="ramdisk,tmpfs,ext4,loop")
    ap.add_argument("--pairs", default="io_uring,libaio,psync,thrpool,posix,io_uring_cmd,nil,"
                    "emu,thrpool-ram")
    ap.add_argument("--qds", default="1,16,64")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", type=float, default=2.0, help="seconds per run")
    ap.add_argument("--file-mib", type=int, default=256)
    ap.add_argument("--callgrind", type=int, default=0, help="I/Os per callgrind run (0: none)")
    ap.add_argument("--workdir", default="/var/tmp/xnvme-suite")
    ap.add_argument("--outdir", default=os.path.join(HERE, "results", "suite"))
    a = ap.parse_args()
    if not a.fio or not os.access(a.fio, os.X_OK):
        log("no fio with the xnvme engine (--fio or $XNVME_FIO; bench/build_fio.sh builds one)")
        return 77
    a.lib = os.path.abspath(a.lib)
    a.targets = [t for t in a.targets.split(",") if t]
    a.pairs = [p for p in a.pairs.split(",") if p]
    a.qds = [int(q) for q in a.qds.split(",")]
    os.makedirs(a.workdir, exist_ok=True)
    os.makedirs(a.outdir, exist_ok=True)
    doc = {"suite": "bench/suite.py", "machine": machine(), "reps": a.reps,
           "runtime_s": a.runtime, "qds": a.qds, "lib": a.lib, "fio": a.fio}
    targets = Targets(a.workdir, a.file_mib)
    try:
        targets.setup(a.targets)
        doc["target_notes"] = dict(targets.notes)
        doc["target_paths"] = dict(targets.paths)
        t0 = time.monotonic()
        doc["cells"] = run_cells(a, targets)
        if a.callgrind:
            doc["callgrind"] = callgrind_pairs(a, targets)
        doc["elapsed_s"] = time.monotonic() - t0
    finally:
        targets.cleanup()
    doc["machine"]["load_end"] = ["%.2f" % v for v in os.getloadavg()]
    with open(os.path.join(a.outdir, "suite.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_md(doc, os.path.join(a.outdir, "suite.md"))
    write_svg(doc, os.path.join(a.outdir, "suite_ratio.svg"))
    log("wrote %s/suite.{json,md} and suite_ratio.svg (%.0f s)" % (a.outdir, doc["elapsed_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
