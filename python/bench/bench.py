#!/usr/bin/env python3
"""Commands per second through the Python layer (not a test).

    XNVME_LIBRARY_PATH=build/lib python3 python/bench/bench.py [--seconds 0.4] [--rounds 7]
        [--floor /tmp/qd32_floor]

Measures 4 KiB reads: synchronous (dev.read into a reused Buffer), asynchronous at QD32
(Queue.submit_read per command, or Queue.submit_reads per batch of freed buffers, + poke, a
Python callback per command; a poke that reaped nothing yields the CPU, as the C floor in
qd32_floor.c does), and the same sync loop through
the raw ctypes API, on the ramdisk and on a file in tmpfs, next to os.preadv/os.pread on the
same file. Every case runs once per round, the rounds interleaved; each row gives the median
over the rounds of commands/s, nanoseconds per command and the ratio to os.preadv of the same
round (plus the lowest and highest ratio), and the process's CPU time per command (all its
threads: what the machine's load does not inflate) with its ratio. With --floor (qd32_floor.c, compiled), the C floor
of every asynchronous case runs in the same rounds, as a subprocess timed by itself.
"""
import argparse
import os
import resource
import statistics
import subprocess
import time
from ctypes import byref

import xnvme
from xnvme import capi as C

NBYTES = 4096
SPAN = 64 << 20  # bytes covered by the reads


def timed(fn, seconds):
    """Run fn(n) with growing n until `seconds` elapse; return commands per second."""
    n = 256
    while True:
        t0 = time.perf_counter()
        fn(n)
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt
        n = int(n * max(2.0, seconds / max(dt, 1e-6) * 1.1))


def bench_sync(dev):
    nlb = NBYTES // dev.geo.lba_nbytes
    buf = dev.buffer(NBYTES)
    nslots = SPAN // NBYTES

    def run(n):
        read = dev.read
        for i in range(n):
            read((i % nslots) * nlb, nlb, buf)
    return run


def bench_sync_capi(dev):
    nlb = NBYTES // dev.geo.lba_nbytes
    buf = dev.buffer(NBYTES)
    addr, nsid, handle = buf.address, dev.nsid, dev.handle
    nslots = SPAN // NBYTES

    def run(n, keep=buf):  # keep: the Buffer must outlive the raw address
        ctx = C.xnvme_cmd_ctx_from_dev(handle)
        ref = byref(ctx)
        rd = C.xnvme_nvm_read
        for i in range(n):
            if rd(ref, nsid, (i % nslots) * nlb, nlb - 1, addr, None):
                raise RuntimeError("read failed")
    return run


def bench_async(dev, batched, qd=32):
    """QD32 reads, one Python callback per command. batched: the freed buffers go back in one
    submit_reads call per poke; else one submit_read call per command."""
    nlb = NBYTES // dev.geo.lba_nbytes
    nslots = SPAN // NBYTES
    bufs = [dev.buffer(NBYTES) for _ in range(qd)]
    queue = dev.queue(qd)
    sched_yield = os.sched_yield

    def run(n):
        submitted = 0
        free = list(bufs)
        submit = queue.submit_read
        submit_many = queue.submit_reads
        poke = queue.poke

        def done(cpl):
            if not cpl.ok:
                raise cpl.error
            free.append(cpl.buffer)

        while submitted < n or queue.outstanding:
            if batched:
                k = min(len(free), n - submitted)
                if k:
                    s0 = submitted % nslots
                    if s0 + k <= nslots:
                        slbas = range(s0 * nlb, (s0 + k) * nlb, nlb)
                    else:
                        slbas = [((submitted + j) % nslots) * nlb for j in range(k)]
                    batch = free[-k:]
                    del free[-k:]
                    submit_many(slbas, nlb, batch, done)
                    submitted += k
            else:
                while free and submitted < n:
                    submit((submitted % nslots) * nlb, nlb, done, buf=free.pop())
                    submitted += 1
            if not poke():
                # nothing was ready: give the CPU to whoever completes the I/O (thrpool's
                # workers, io_uring's io-wq) instead of spinning through our time slice
                sched_yield()
    return run, queue


def bench_preadv(path):
    fd = os.open(path, os.O_RDONLY)
    buf = bytearray(NBYTES)
    nslots = SPAN // NBYTES

    def run_v(n):
        preadv = os.preadv
        bufs = [buf]
        for i in range(n):
            preadv(fd, bufs, (i % nslots) * NBYTES)

    def run_p(n):
        pread = os.pread
        for i in range(n):
            pread(fd, NBYTES, (i % nslots) * NBYTES)
    return run_v, run_p, fd


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.4, help="length of one round per case")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--floor", help="compiled qd32_floor.c: run the C floor in the same rounds")
    ap.add_argument("--dir", default="/dev/shm", help="tmpfs directory for the file")
    args = ap.parse_args()
    path = os.path.join(args.dir, "xnvme-py-bench.%d" % os.getpid())
    with open(path, "wb") as f:
        f.write(os.urandom(1 << 20) * (SPAN >> 20))
    cases = []  # (target, what, mode, run[, uri])
    opened = []
    try:
        run_v, run_p, fd = bench_preadv(path)
        cases.append(("tmpfs file", "os.preadv", "sync", run_v))
        cases.append(("tmpfs file", "os.pread", "sync", run_p))
        targets = [("ramdisk", "1GB", {}, ["thrpool", "emu"]),
                   ("tmpfs file", path, {"rdwr": True}, ["io_uring", "libaio", "thrpool",
                                                         "posix", "emu"])]
        for name, uri, opts, mechs in targets:
            dev = xnvme.open(uri, **opts)
            opened.append(dev)
            cases.append((name, "xnvme.Device.read", "sync", bench_sync(dev)))
            cases.append((name, "capi xnvme_nvm_read", "sync", bench_sync_capi(dev)))
            for mech in mechs:
                try:
                    dev = xnvme.open(uri, async_=mech, **opts)
                except xnvme.XnvmeError as exc:
                    print("# %s async=%s: %s" % (name, mech, exc))
                    continue
                opened.append(dev)
                run, _queue = bench_async(dev, False)
                cases.append((name, "Queue QD32 %s" % mech, "async", run, uri))
                run, _queue = bench_async(dev, True)
                cases.append((name, "  batched %s" % mech, "async", run, uri))
        # calibrate each case to one round of --seconds, then run the rounds interleaved
        # (every case once per round): the machine's load hits all cases of a round alike,
        # so each case's ratio to os.preadv is taken within its round, and the medians kept
        sizes = []
        for case in cases:
            rate = timed(case[3], args.seconds / 4)
            sizes.append(max(256, int(rate * args.seconds)))
        rates = [[] for _ in cases]
        cpus = [[] for _ in cases]  # CPU ns per command (all threads of the process)
        floors = {}  # (target, mechanism) -> [ns per command of the C floor, one per round]
        for _ in range(args.rounds):
            for i, case in enumerate(cases):
                c0 = cpu_time()
                t0 = time.perf_counter()
                case[3](sizes[i])
                rates[i].append(sizes[i] / (time.perf_counter() - t0))
                cpus[i].append((cpu_time() - c0) / sizes[i] * 1e9)
                if args.floor and case[1].startswith("Queue"):
                    floors.setdefault((case[0], case[1].split()[-1]), []).append(
                        c_floor(args.floor, case, args.seconds))
        os.close(fd)
    finally:
        for dev in opened:
            dev.close()
        os.unlink(path)
    print("# medians of %d interleaved rounds of %.1f s per case; load %s" % (
        args.rounds, args.seconds, " ".join("%.2f" % x for x in os.getloadavg())))
    print("# Queue path: %s" % ("compiled (xnvme._fastq)" if xnvme.device.fast_path() else
                                "pure ctypes (xnvme._fastq not built, or XNVME_PY_NO_FASTQ)"))
    print("# x: ratio to os.preadv in the same round; CPU: process CPU time per command, "
          "every thread")
    print("%-11s %-22s %-5s %9s %7s %6s %11s %7s %6s %13s %13s" % (
        "target", "path", "mode", "cmds/s", "ns/cmd", "x", "(min-max)", "CPU ns", "CPU x",
        "floor ns (x)", "floor CPU (x)"))
    for i, case in enumerate(cases):
        target, what, mode = case[:3]
        ratios = [b / r for b, r in zip(rates[0], rates[i])]
        cratios = [c / b for b, c in zip(cpus[0], cpus[i])]
        rate = statistics.median(rates[i])
        floor = ["", ""]
        key = (target, what.split()[-1])
        if mode == "async" and key in floors:
            for j in range(2):
                vals = [f[j] for f in floors[key]]
                base = rates[0] if j == 0 else [1e9 / c for c in cpus[0]]
                floor[j] = "%6.0f (%.2f)" % (statistics.median(vals), statistics.median(
                    [v * b / 1e9 for v, b in zip(vals, base)]))
        print("%-11s %-22s %-5s %9.0f %7.0f %6.2f %11s %7.0f %6.2f %13s %13s" % (
            target, what, mode, rate, 1e9 / rate, statistics.median(ratios),
            "(%.2f-%.2f)" % (min(ratios), max(ratios)), statistics.median(cpus[i]),
            statistics.median(cratios), floor[0], floor[1]))


def cpu_time():
    """User + system CPU seconds of this process (all its threads)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def c_floor(binary, case, seconds):
    """(wall, CPU) ns per command of the C floor (qd32_floor.c) for an async case, one
    round."""
    out = subprocess.run([binary, case[4], case[1].split()[-1], str(seconds), "1"],
                         check=True, capture_output=True, text=True).stdout
    fields = out.split(", ")
    return float(fields[1].split()[0]) * 1e3, float(fields[2].split()[0]) * 1e3

if __name__ == "__main__":
    main()
