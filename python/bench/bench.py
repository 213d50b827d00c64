#!/usr/bin/env python3
"""Commands per second through the Python layer (not a test).

    XNVME_LIBRARY_PATH=build/lib python3 python/bench/bench.py [--seconds 0.4] [--rounds 5]

Measures 4 KiB reads: synchronous (dev.read into a reused Buffer), asynchronous at QD32
(Queue.submit_read + poke, a Python callback per command; a poke that reaped nothing yields
the CPU, as the C floor in qd32_floor.c does), and the same sync loop through
the raw ctypes API, on the ramdisk and on a file in tmpfs, next to os.preadv/os.pread on the
same file. Prints one row per case: commands/s, microseconds per command, and the ratio to
os.preadv.
"""
import argparse
import os
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


def bench_async(dev, qd=32):
    nlb = NBYTES // dev.geo.lba_nbytes
    nslots = SPAN // NBYTES
    bufs = [dev.buffer(NBYTES) for _ in range(qd)]
    queue = dev.queue(qd)
    state = {"done": 0}
    sched_yield = os.sched_yield

    def cb(cpl):
        if not cpl.ok:
            raise cpl.error
        state["done"] += 1

    def run(n):
        state["done"] = 0
        submitted = 0
        free = list(bufs)
        inflight = {}
        submit = queue.submit_read

        def done(cpl):
            cb(cpl)
            free.append(cpl.buffer)

        while state["done"] < n:
            while free and submitted < n:
                submit((submitted % nslots) * nlb, nlb, done, buf=free.pop())
                submitted += 1
            if not queue.poke():
                # nothing was ready: give the CPU to whoever completes the I/O (thrpool's
                # workers, io_uring's io-wq) instead of spinning through our time slice
                sched_yield()
        del inflight
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
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default="/dev/shm", help="tmpfs directory for the file")
    args = ap.parse_args()
    path = os.path.join(args.dir, "xnvme-py-bench.%d" % os.getpid())
    with open(path, "wb") as f:
        f.write(os.urandom(1 << 20) * (SPAN >> 20))
    cases = []  # (target, what, mode, run)
    opened = []
    try:
        run_v, run_p, fd = bench_preadv(path)
        cases.append(("tmpfs file", "os.preadv", "sync", run_v))
        cases.append(("tmpfs file", "os.pread", "sync", run_p))
        targets = [("ramdisk", "1GB", {}, ["thrpool", "emu"]),
                   ("tmpfs file", path, {"rdwr": True}, ["io_uring", "libaio", "thrpool",
                                                         "emu"])]
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
                run, _queue = bench_async(dev)
                cases.append((name, "Queue QD32 %s" % mech, "async", run))
        # calibrate each case to one round of --seconds, then run the rounds interleaved
        # (every case once per round) and keep each case's best round: the machine's load
        # hits all cases alike and the best round is the least disturbed one
        sizes = []
        for case in cases:
            rate = timed(case[3], args.seconds / 4)
            sizes.append(max(256, int(rate * args.seconds)))
        best = [0.0] * len(cases)
        for _ in range(args.rounds):
            for i, case in enumerate(cases):
                t0 = time.perf_counter()
                case[3](sizes[i])
                best[i] = max(best[i], sizes[i] / (time.perf_counter() - t0))
        os.close(fd)
    finally:
        for dev in opened:
            dev.close()
        os.unlink(path)
    print("# best of %d interleaved rounds of %.1f s per case; load %s" % (
        args.rounds, args.seconds, " ".join("%.2f" % x for x in os.getloadavg())))
    print("# Queue path: %s" % ("compiled (xnvme._fastq)" if xnvme.device.fast_path() else
                                "pure ctypes (xnvme._fastq not built, or XNVME_PY_NO_FASTQ)"))
    print("%-11s %-24s %-5s %12s %9s %10s" % ("target", "path", "mode", "cmds/s", "us/cmd",
                                              "x preadv"))
    base = best[0]
    for (target, what, mode, _), rate in zip(cases, best):
        print("%-11s %-24s %-5s %12.0f %9.2f %10.2f" % (target, what, mode, rate, 1e6 / rate,
                                                         base / rate))



if __name__ == "__main__":
    main()
