#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions per I/O of this library, and of the original xNVMe 0.7.5 beside it.

    instr_table.py --fio FIO --lib DIR [--original PREFIX] [--also NAME=DIR ...]
                   [--nil-loop PROG] [--ios N] [--repeat R] [--rows ROW,...] [--smoke]
                   [--json OUT] [--md OUT]

One fio binary (fio 3.33 with its xnvme engine, bench/build_fio.sh) runs every row; the library
it loads is swapped through LD_LIBRARY_PATH (both have SONAME libxnvme.so.0): DIR holds ours,
PREFIX/lib the original's. Each row is 4 KiB random reads (fio's defaults otherwise: its random
map and repeatable seed, so both libraries see the same offsets) run under callgrind for N and
2N I/Os; the difference divided by N cancels setup and teardown. Only fio's job thread is counted
(--toggle-collect=thread_main, exact to the instruction) except for the mechanisms whose
worker threads do the I/O (thrpool, posix: all threads, so the figure moves with scheduling).
The nil loop row is bench/nil_loop (get a context, xnvme_nvm_read, poke, put in the callback)
with the same library swap, all of its instructions per I/O at queue depth 1; the bare nil loop
row is its -b loop, the same four calls with nothing of the client's around them (the frame of
issue 27's figures).

Without --original the "original" column is left out (the README's test command never takes
it); with it, the original is measured in the same run, side by side.
Rows: ramdisk nil and emu at QD1; a 64 MiB tmpfs file through io_uring at QD1 and QD16,
libaio, emu + psync, thrpool + psync and posix at QD1; the nil loop and the bare nil loop.
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from callgrind_split import parse, write_json  # noqa: E402

# name -> (target, queue depth, fio engine options, all threads)
ROWS = {
    "ramdisk-nil": ("ramdisk", 1, ["--xnvme_async=nil"], False),
    "ramdisk-emu": ("ramdisk", 1, ["--xnvme_async=emu"], False),
    "tmpfs-io_uring": ("tmpfs", 1, ["--xnvme_async=io_uring"], False),
    "tmpfs-io_uring-qd16": ("tmpfs", 16, ["--xnvme_async=io_uring"], False),
    "tmpfs-libaio": ("tmpfs", 1, ["--xnvme_async=libaio"], False),
    "tmpfs-emu-psync": ("tmpfs", 1, ["--xnvme_async=emu", "--xnvme_sync=psync"], False),
    "tmpfs-thrpool": ("tmpfs", 1, ["--xnvme_async=thrpool", "--xnvme_sync=psync"], True),
    "tmpfs-posix": ("tmpfs", 1, ["--xnvme_async=posix"], True),
}
NIL_LOOP = "nil-loop"
# the nil loop rows: name -> (nil_loop's extra arguments, the function callgrind counts)
NIL_ROWS = {NIL_LOOP: ([], "nil_loop_run"), "nil-loop-bare": (["-b"], "nil_loop_bare")}
FILE_MIB = 64


def log(msg):
    print("# instr_table: " + msg, file=sys.stderr, flush=True)


def run_cg(cmd, env, out, toggle):
    sel = ["--collect-atstart=no", "--toggle-collect=" + toggle] if toggle else []
    full = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + sel + cmd
    r = subprocess.run(full, capture_output=True, text=True, env=env)
    if r.returncode:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:3]), r.returncode,
                                                r.stderr.strip()[-400:]))
    return parse(out)[0]


def env_with(libdir):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = libdir + ((":" + env["LD_LIBRARY_PATH"])
                                       if env.get("LD_LIBRARY_PATH") else "")
    return env


def per_io(make_cmd, env, n, toggle, tmp, tag, repeat):
    """The median over `repeat` pairs of runs: fio's job thread takes a few time-dependent
    branches (statistics intervals), worth a few instructions per I/O from run to run"""
    vals = []
    for _ in range(repeat):
        tot = [run_cg(make_cmd(k), env, os.path.join(tmp, "cg.%s.%d" % (tag, k)), toggle)
               for k in (n, 2 * n)]
        vals.append((tot[1] - tot[0]) / n)
    return statistics.median(vals)


def fio_row(a, row, path):
    target, qd, opts, _ = ROWS[row]
    fname = "1GB" if target == "ramdisk" else path

    def cmd(k):
        return [a.fio, "--eta=never", "--name=cg", "--thread=1", "--rw=randread", "--bs=4k",
                "--iodepth=%d" % qd, "--number_ios=%d" % k, "--output-format=terse",
                "--ioengine=xnvme", "--filename=" + fname] + opts
    return cmd


def measure(a, libs):
    res = {}
    with tempfile.TemporaryDirectory(prefix="xnvme-instr-", dir="/dev/shm") as tmp:
        path = os.path.join(tmp, "f.img")
        with open(path, "wb") as f:
            f.write(b"\xa5" * (FILE_MIB << 20))
        for row in a.rows:
            res[row] = {}
            for name, libdir in libs:
                try:
                    if row in NIL_ROWS:
                        extra, fn = NIL_ROWS[row]
                        v = per_io(lambda k: [a.nil_loop, "-n", str(k), "-q", "1"] + extra,
                                   env_with(libdir), a.ios, fn, tmp, row + name, 1)
                    else:
                        v = per_io(fio_row(a, row, path), env_with(libdir), a.ios,
                                   None if ROWS[row][3] else "thread_main", tmp, row + name,
                                   a.repeat)
                except RuntimeError as e:
                    log("%s on %s: %s" % (row, name, e))
                    v = None
                res[row][name] = v
            log("%-20s %s" % (row, "  ".join("%s %s" % (n, "%.1f" % v if v is not None
                                                         else "n/a")
                                               for n, v in res[row].items())))
    return res


def write_md(doc, path):
    cols = [n for n, _ in doc["libs"]]
    lines = ["| row | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for row, vals in doc["rows"].items():
        lines.append("| %s | %s |" % (row, " | ".join(
            "%.0f" % vals[c] if vals.get(c) is not None else "n/a" for c in cols)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fio", default=os.environ.get("XNVME_FIO"))
    ap.add_argument("--lib", required=True, help="directory holding this library's .so.0")
    ap.add_argument("--original", help="install prefix of the original xNVMe 0.7.5")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=DIR",
                    help="another build's library directory, a column of its own")
    ap.add_argument("--nil-loop", help="bench/nil_loop; omitted: no nil loop row")
    ap.add_argument("--ios", type=int, default=5000,
                    help="N (2N must fit the 64 MiB file: 8192 at most)")
    ap.add_argument("--rows", default=",".join(list(ROWS) + list(NIL_ROWS)))
    ap.add_argument("--repeat", type=int, default=1,
                    help="pairs of runs per fio row and library; the median is reported")
    ap.add_argument("--smoke", action="store_true", help="200 I/Os, two rows")
    ap.add_argument("--json")
    ap.add_argument("--md")
    a = ap.parse_args()
    if subprocess.run(["valgrind", "--version"], capture_output=True).returncode:
        log("valgrind missing")
        return 77
    a.rows = [r for r in a.rows.split(",") if r]
    bad = [r for r in a.rows if r not in ROWS and r not in NIL_ROWS]
    if bad:
        log("unknown rows: %s (valid: %s)" % (", ".join(bad),
                                               ", ".join(list(ROWS) + list(NIL_ROWS))))
        return 2
    if not a.nil_loop:
        a.rows = [r for r in a.rows if r not in NIL_ROWS]
    if not a.fio or not os.access(a.fio, os.X_OK):
        log("no fio with the xnvme engine: fio rows skipped")
        a.rows = [r for r in a.rows if r in NIL_ROWS]
    if a.smoke:
        a.ios = 200
        a.rows = [r for r in a.rows if r in ("ramdisk-nil", NIL_LOOP)]
    if a.nil_loop:
        a.nil_loop = os.path.abspath(a.nil_loop)
    libs = []
    if a.original:
        orig = os.path.join(os.path.abspath(a.original), "lib")
        if not os.path.exists(os.path.join(orig, "libxnvme.so.0")):
            log("no libxnvme.so.0 under %s" % orig)
            return 2
        libs.append(("original", orig))
    else:
        log("no --original: the original's column is skipped")
    for also in a.also:
        name, _, d = also.partition("=")
        if not d or not os.path.exists(os.path.join(d, "libxnvme.so.0")):
            log("--also %s: no NAME=DIR holding libxnvme.so.0" % also)
            return 2
        libs.append((name, os.path.abspath(d)))
    libs.append(("this", os.path.abspath(a.lib)))
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    doc = {"tool": "callgrind", "ios": a.ios, "repeat": a.repeat, "commit": commit,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "libs": libs, "rows": measure(a, libs)}
    if a.json:
        write_json(a.json, doc)
    if a.md:
        write_md(doc, a.md)
    failed = [r for r, v in doc["rows"].items() if v.get("this") is None]
    if failed:
        log("not measured on this library: %s" % ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
