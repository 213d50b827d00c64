#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""fio side-by-side suite: fio's own I/O engines (A) against fio's xnvme engine (B).

Every cell is one target, one I/O interface, one queue depth and one block size of 4 KiB-style
random reads. A and B run interleaved (A B, then B A, ...) for --reps repetitions of a fixed
duration each, with --thread=1. Reported per cell: medians and min-max of mean latency and
IOPS, the added nanoseconds per I/O of B over A (from mean latency, and from 1/IOPS) and the
B/A latency ratio.

Targets (host):  ramdisk  fio `null` vs xnvme `--xnvme_async=nil` on the ramdisk "1GB"
                 tmpfs    a file on tmpfs, buffered
                 ext4     a file on the root file system, O_DIRECT
                 loop     a loop device with direct I/O (losetup --direct-io=on), O_DIRECT
Targets (QEMU guest, --guest or --in-guest):
                 nvme     /dev/nvme0n1, O_DIRECT
                 ng       /dev/ng0n1: fio io_uring_cmd vs xnvme io_uring_cmd

Interfaces: psync (B: xnvme emu over sync psync), libaio, posixaio (B: xnvme posix),
io_uring, io_uring_sqpoll (sqthread_poll on both), io_uring_reg (registered file; A: fio
registerfiles=1, B: xnvmeperf --register-files, since fio 3.33's xnvme engine has no such
option), io_uring_cmd, nil.

Modes: full (default: ~20-30 min), --quick (a few minutes), --smoke (about a second: the
ramdisk only, one repetition; used by the test suite, not a measurement).

Writes one JSON document (--out) with the machine, every raw run and the cell summaries;
bench/report.py turns it into Markdown and plots.
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

QDS = [1, 2, 4, 8, 16, 32, 64, 128]
BSS = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]


def log(msg):
    print("# run_fio_suite: " + msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# Cells
# ------------------------------------------------------------------------------------------

# interface -> (fio engine options for A, xnvme engine options for B)
IFACES = {
    "nil": (["--ioengine=null"], ["--ioengine=xnvme", "--xnvme_async=nil"]),
    "psync": (["--ioengine=psync"],
              ["--ioengine=xnvme", "--xnvme_async=emu", "--xnvme_sync=psync"]),
    "libaio": (["--ioengine=libaio"], ["--ioengine=xnvme", "--xnvme_async=libaio"]),
    "posixaio": (["--ioengine=posixaio"], ["--ioengine=xnvme", "--xnvme_async=posix"]),
    "io_uring": (["--ioengine=io_uring"], ["--ioengine=xnvme", "--xnvme_async=io_uring"]),
    "io_uring_sqpoll": (["--ioengine=io_uring", "--sqthread_poll=1"],
                        ["--ioengine=xnvme", "--xnvme_async=io_uring", "--sqthread_poll=1"]),
    # B through xnvmeperf: fio 3.33's xnvme engine has no register option. This pair registers
    # the file only (xnvmeperf --register-files; --register-buffers is measured on its own,
    # docs/benchmarks.md "Registered (fixed) buffers"), so A registers the file only as well.
    "io_uring_reg": (["--ioengine=io_uring", "--registerfiles=1"], None),
    "io_uring_cmd": (["--ioengine=io_uring_cmd", "--cmd_type=nvme"],
                     ["--ioengine=xnvme", "--xnvme_async=io_uring_cmd"]),
}


def plan(mode, targets):
    """List of (target, iface, qd, bs) cells in run order."""
    cells = []

    def add(t, i, qd, bs):
        c = (t, i, qd, bs)
        if c not in cells:
            cells.append(c)

    for t in targets:
        if mode == "smoke":
            if t == "ramdisk":
                add(t, "nil", 1, 4096)
                add(t, "nil", 4, 4096)
            continue
        if t == "ramdisk":
            qds = QDS if mode == "full" else [1, 16]
            bss = BSS if mode == "full" else [4096, 65536]
            for qd in qds:
                add(t, "nil", qd, 4096)
            for bs in bss:
                add(t, "nil", 1, bs)
            continue
        if t in ("tmpfs", "ext4", "loop"):
            ifaces = ["psync", "libaio", "posixaio", "io_uring", "io_uring_reg"]
            if mode == "full":
                ifaces.insert(4, "io_uring_sqpoll")
            for i in ifaces:
                add(t, i, 1, 4096)
            if mode == "full":
                for i in ["libaio", "posixaio", "io_uring", "io_uring_reg"]:
                    add(t, i, 16, 4096)
                for i in ["io_uring", "libaio"]:
                    for qd in QDS:
                        add(t, i, qd, 4096)
                for i in ["io_uring", "psync"]:
                    for bs in BSS:
                        add(t, i, 1, bs)
            else:
                add(t, "io_uring", 16, 4096)
                add(t, "libaio", 16, 4096)
                add(t, "io_uring", 1, 65536)
            continue
        if t == "nvme":
            for i in ["psync", "libaio", "posixaio", "io_uring"]:
                add(t, i, 1, 4096)
            qds = [1, 2, 4, 8, 16, 32] if mode == "full" else [1, 16]
            for qd in qds:
                add(t, "io_uring", qd, 4096)
            for bs in ([512, 4096, 16384, 131072] if mode == "full" else [4096, 65536]):
                add(t, "io_uring", 1, bs)
            continue
        if t == "ng":
            for qd in ([1, 4, 16] if mode == "full" else [1, 16]):
                add(t, "io_uring_cmd", qd, 4096)
            for bs in ([512, 16384, 131072] if mode == "full" else [65536]):
                add(t, "io_uring_cmd", 1, bs)
    return cells


# ------------------------------------------------------------------------------------------
# Targets
# ------------------------------------------------------------------------------------------

class Targets:
    """Creates the files and devices the cells run on, and removes them again."""

    def __init__(self, workdir, sizes):
        self.workdir = workdir
        self.sizes = sizes
        self.paths = {}
        self.direct = {}
        self.loopdev = None
        self.notes = {}

    def _fill(self, path, nbytes):
        # real blocks, not a sparse file: O_DIRECT reads must reach the disk
        if os.path.exists(path) and os.path.getsize(path) == nbytes:
            return
        chunk = b"\xa5" * (1 << 20)
        with open(path, "wb") as f:
            for _ in range(nbytes // len(chunk)):
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())

    def setup(self, names):
        for t in names:
            try:
                self._setup_one(t)
            except Exception as e:  # noqa: BLE001 - recorded, the target is skipped
                self.notes[t] = "unavailable: %s" % e
                log("target %s unavailable: %s" % (t, e))

    def _setup_one(self, t):
        if t == "ramdisk":
            self.paths[t], self.direct[t] = "1GB", 0
        elif t == "tmpfs":
            d = tempfile.mkdtemp(prefix="xnvme-bench-", dir="/dev/shm")
            p = os.path.join(d, "tmpfs.img")
            self._fill(p, self.sizes["tmpfs"])
            self.paths[t], self.direct[t] = p, 0
        elif t == "ext4":
            p = os.path.join(self.workdir, "ext4.img")
            self._fill(p, self.sizes["ext4"])
            fs = subprocess.run(["stat", "-f", "-c", "%T", self.workdir], capture_output=True,
                                text=True).stdout.strip()
            self.notes[t] = "file system: %s" % fs
            self.paths[t], self.direct[t] = p, 1
        elif t == "loop":
            backing = os.path.join(self.workdir, "loop.img")
            self._fill(backing, self.sizes["loop"])
            r = subprocess.run(["losetup", "--direct-io=on", "-f", "--show", backing],
                               capture_output=True, text=True)
            if r.returncode:
                raise RuntimeError("losetup: " + r.stderr.strip())
            self.loopdev = r.stdout.strip()
            self.paths[t], self.direct[t] = self.loopdev, 1
        elif t == "nvme":
            p = os.environ.get("XNVME_QEMU_NVM_BLK", "/dev/nvme0n1")
            if not os.path.exists(p):
                raise RuntimeError("%s missing" % p)
            self.paths[t], self.direct[t] = p, 1
        elif t == "ng":
            p = os.environ.get("XNVME_QEMU_NVM_CHR", "/dev/ng0n1")
            if not os.path.exists(p):
                raise RuntimeError("%s missing" % p)
            self.paths[t], self.direct[t] = p, 0
        else:
            raise RuntimeError("unknown target")

    def cleanup(self):
        if self.loopdev:
            subprocess.run(["losetup", "-d", self.loopdev], check=False)
        p = self.paths.get("tmpfs")
        if p:
            shutil.rmtree(os.path.dirname(p), ignore_errors=True)


# ------------------------------------------------------------------------------------------
# Runs
# ------------------------------------------------------------------------------------------

def parse_json_out(text):
    i = text.find("{")
    if i < 0:
        raise ValueError("no JSON in output")
    return json.loads(text[i:])


def run_fio(fio, engine_args, path, direct, qd, bs, runtime_ms, ramp_ms, timeout):
    args = [fio, "--name=cell", "--thread=1", "--rw=randread", "--bs=%d" % bs,
            "--iodepth=%d" % qd, "--time_based=1", "--runtime=%dms" % runtime_ms,
            "--norandommap=1", "--randrepeat=0", "--output-format=json",
            "--direct=%d" % direct] + engine_args
    if ramp_ms:
        args.append("--ramp_time=%dms" % ramp_ms)
    if "--ioengine=null" in engine_args:
        args.append("--size=1g")
    else:
        args.append("--filename=%s" % path)
    t0 = time.monotonic()
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout after %ds" % timeout, "cmd": args}
    wall = time.monotonic() - t0
    if r.returncode:
        return {"error": (r.stderr.strip() or r.stdout.strip())[-400:], "cmd": args}
    try:
        j = parse_json_out(r.stdout)
        job = j["jobs"][0]
        rd = job["read"]
    except (ValueError, KeyError, IndexError) as e:
        return {"error": "unparsable fio output: %s" % e, "cmd": args}
    if job.get("error"):
        return {"error": "fio job error %s" % job.get("error"), "cmd": args}
    pct = rd.get("clat_ns", {}).get("percentile", {})
    return {
        "iops": rd["iops"],
        "lat_mean_ns": rd["lat_ns"]["mean"],
        "clat_p50_ns": pct.get("50.000000"),
        "clat_p99_ns": pct.get("99.000000"),
        "ios": rd["total_ios"],
        "usr_cpu": job.get("usr_cpu"),
        "sys_cpu": job.get("sys_cpu"),
        "wall_s": wall,
        "cmd": args,
    }


def run_xnvmeperf(perf, path, direct, qd, bs, runtime_ms, timeout, extra):
    args = [perf, "--json", "--no-progress", "--rw", "randread", "--iosize", str(bs),
            "--qdepth", str(qd), "--runtime", "%.3f" % (runtime_ms / 1000.0)] + extra
    if direct:
        args.append("--direct")
    args.append(path)
    t0 = time.monotonic()
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout after %ds" % timeout, "cmd": args}
    wall = time.monotonic() - t0
    if r.returncode:
        return {"error": (r.stderr.strip() or r.stdout.strip())[-400:], "cmd": args}
    try:
        tot = parse_json_out(r.stdout)["total"]
    except (ValueError, KeyError) as e:
        return {"error": "unparsable xnvmeperf output: %s" % e, "cmd": args}
    return {
        "iops": tot["iops"],
        "lat_mean_ns": tot["lat_ns"]["mean"],
        "clat_p50_ns": tot["lat_ns"]["p50"],
        "clat_p99_ns": tot["lat_ns"]["p99"],
        "ios": tot["ios"],
        "usr_cpu": None,
        "sys_cpu": None,
        "wall_s": wall,
        "cmd": args,
    }


def side_runner(a, side, target, iface, targets):
    """A callable running one repetition of one side of a cell, or None if not applicable."""
    path, direct = targets.paths[target], targets.direct[target]
    opts_a, opts_b = IFACES[iface]
    timeout = int(a.runtime_ms / 1000 + a.ramp_ms / 1000 + 60)
    if side == "A":
        return lambda qd, bs: run_fio(a.fio, opts_a, path, direct, qd, bs, a.runtime_ms,
                                      a.ramp_ms, timeout)
    if opts_b is None:
        if not a.xnvmeperf:
            return None
        extra = ["--async", "io_uring", "--register-files"]
        return lambda qd, bs: run_xnvmeperf(a.xnvmeperf, path, direct, qd, bs,
                                            a.runtime_ms + a.ramp_ms, timeout, extra)
    return lambda qd, bs: run_fio(a.fio, opts_b, path, direct, qd, bs, a.runtime_ms,
                                  a.ramp_ms, timeout)


def summarize(runs):
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return None
    lat = [r["lat_mean_ns"] for r in ok]
    iops = [r["iops"] for r in ok]
    out = {
        "n": len(ok),
        "lat_ns_median": statistics.median(lat),
        "lat_ns_min": min(lat),
        "lat_ns_max": max(lat),
        "iops_median": statistics.median(iops),
        "iops_min": min(iops),
        "iops_max": max(iops),
        "ns_per_io_median": statistics.median([1e9 / x for x in iops if x > 0] or [0]),
        "p99_ns_median": statistics.median([r["clat_p99_ns"] or 0 for r in ok]),
    }
    # CPU time of the job thread per I/O (fio's usr+sys share of the runtime, RUSAGE_THREAD with
    # --thread): unlike wall time it does not grow when other processes take the CPU away
    cpu = [(r["usr_cpu"] + r["sys_cpu"]) / 100.0 * 1e9 / r["iops"] for r in ok
           if r.get("usr_cpu") is not None and r.get("sys_cpu") is not None and r["iops"] > 0]
    if cpu:
        out["cpu_ns_per_io_median"] = statistics.median(cpu)
        out["cpu_ns_per_io_min"] = min(cpu)
        out["cpu_ns_per_io_max"] = max(cpu)
    return out


def machine_info():
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "kernel": platform.release(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "hostname_in_guest": bool(os.environ.get("XNVME_QEMU_GUEST"))}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            info["mem_kib"] = int(f.readline().split()[1])
        with open("/proc/loadavg") as f:
            info["loadavg_start"] = f.read().split()[:3]
    except OSError:
        pass
    try:
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        info["dirty"] = bool(dirty)
    except OSError:
        pass
    return info


def run_suite(a):
    targets = Targets(a.workdir, {"tmpfs": a.file_mib << 20, "ext4": a.file_mib << 20,
                                  "loop": a.file_mib << 20})
    names = a.targets
    targets.setup(names)
    cells = [c for c in plan(a.mode, names) if c[0] in targets.paths and
             (not a.ifaces or c[1] in a.ifaces.split(","))]
    log("%d cells x 2 sides x %d repetitions, %d ms each (+%d ms ramp)" %
        (len(cells), a.reps, a.runtime_ms, a.ramp_ms))
    doc = {"suite": "run_fio_suite", "mode": a.mode, "reps": a.reps,
           "runtime_ms": a.runtime_ms, "ramp_ms": a.ramp_ms, "machine": machine_info(),
           "fio": a.fio, "targets": {t: {"path": targets.paths.get(t),
                                         "direct": targets.direct.get(t),
                                         "note": targets.notes.get(t)} for t in names},
           "cells": []}
    failed_sides = {}  # (target, iface, side) -> error: later cells of the pair are skipped
    t_start = time.monotonic()
    try:
        for n, (t, iface, qd, bs) in enumerate(cells):
            runs = {"A": [], "B": []}
            for rep in range(a.reps):
                order = ("A", "B") if rep % 2 == 0 else ("B", "A")
                for side in order:
                    key = (t, iface, side)
                    if key in failed_sides:
                        continue
                    fn = side_runner(a, side, t, iface, targets)
                    if fn is None:
                        failed_sides[key] = "not applicable"
                        continue
                    r = fn(qd, bs)
                    r["rep"] = rep
                    if rep and "error" not in r:
                        r.pop("cmd", None)  # the command line is kept once per side
                    runs[side].append(r)
                    if "error" in r and rep == 0:
                        failed_sides[key] = r["error"]
                        log("%s/%s/%s: %s" % (t, iface, side, r["error"].splitlines()[-1]
                                              if r["error"] else "error"))
            cell = finish_cell({"target": t, "iface": iface, "qd": qd, "bs": bs, "runs": runs,
                                "b_via": "xnvmeperf" if IFACES[iface][1] is None else "fio-xnvme",
                                "a_error": failed_sides.get((t, iface, "A")),
                                "b_error": failed_sides.get((t, iface, "B"))})
            sa, sb = cell["A"], cell["B"]
            doc["cells"].append(cell)
            if not a.quiet:
                fmt = lambda s: "%9.0f ns" % s["lat_ns_median"] if s else "      n/a   "
                log("[%3d/%d %5.0fs] %-7s %-15s qd=%-3d bs=%-6d A %s  B %s  %s" % (
                    n + 1, len(cells), time.monotonic() - t_start, t, iface, qd, bs, fmt(sa),
                    fmt(sb), ("ratio %.2f" % cell["ratio"]) if cell.get("ratio") else ""))
    finally:
        targets.cleanup()
    doc["elapsed_s"] = time.monotonic() - t_start
    return doc


def finish_cell(cell):
    """Adds the summaries and A/B comparisons of a cell from its raw runs."""
    sa, sb = summarize(cell["runs"]["A"]), summarize(cell["runs"]["B"])
    cell["A"], cell["B"] = sa, sb
    if sa and sb:
        cell["added_ns_lat"] = sb["lat_ns_median"] - sa["lat_ns_median"]
        cell["added_ns_per_io"] = sb["ns_per_io_median"] - sa["ns_per_io_median"]
        cell["ratio"] = sb["lat_ns_median"] / sa["lat_ns_median"] \
            if sa["lat_ns_median"] else None
        if "cpu_ns_per_io_median" in sa and "cpu_ns_per_io_median" in sb:
            cell["added_cpu_ns_per_io"] = (sb["cpu_ns_per_io_median"] -
                                           sa["cpu_ns_per_io_median"])
    return cell


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    m = ap.add_mutually_exclusive_group()
    m.add_argument("--quick", action="store_const", const="quick", dest="mode")
    m.add_argument("--smoke", action="store_const", const="smoke", dest="mode")
    ap.add_argument("--fio", help="fio binary with the xnvme engine (default: $XNVME_FIO)")
    ap.add_argument("--xnvmeperf", help="xnvmeperf binary (for io_uring_reg's B side)")
    ap.add_argument("--targets", default="ramdisk,tmpfs,ext4,loop",
                    help="comma-separated: ramdisk,tmpfs,ext4,loop,nvme,ng")
    ap.add_argument("--ifaces", help="comma-separated: run only these interfaces")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--runtime-ms", type=int)
    ap.add_argument("--ramp-ms", type=int)
    ap.add_argument("--file-mib", type=int, default=512, help="size of the file targets")
    ap.add_argument("--workdir", default="/var/tmp/xnvme-bench",
                    help="directory on the root file system for the ext4 and loop files")
    ap.add_argument("--out", help="write the JSON document here (default: stdout)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    a.mode = a.mode or "full"
    defaults = {"full": (3, 1000, 250), "quick": (3, 300, 100), "smoke": (1, 100, 0)}[a.mode]
    a.reps = a.reps or defaults[0]
    a.runtime_ms = a.runtime_ms or defaults[1]
    a.ramp_ms = defaults[2] if a.ramp_ms is None else a.ramp_ms
    a.targets = [t for t in a.targets.split(",") if t]
    if a.mode == "smoke":
        a.targets = [t for t in a.targets if t == "ramdisk"] or ["ramdisk"]
    a.fio = a.fio or os.environ.get("XNVME_FIO")
    if not a.fio or not os.access(a.fio, os.X_OK):
        log("no fio binary (--fio or $XNVME_FIO); build one with bench/build_fio.sh")
        return 77
    os.makedirs(a.workdir, exist_ok=True)
    doc = run_suite(a)
    text = json.dumps(doc, indent=1)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            f.write(text + "\n")
        log("wrote %s (%.0f s)" % (a.out, doc["elapsed_s"]))
    else:
        print(text)
    ok = sum(1 for c in doc["cells"] if c["A"] and c["B"])
    log("%d of %d cells measured on both sides" % (ok, len(doc["cells"])))
    return 0 if ok or a.mode != "smoke" else 1


if __name__ == "__main__":
    sys.exit(main())
