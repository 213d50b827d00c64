#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A fixed set of xnvmeperf runs, collected into one JSON list for bench/report.py.

    perf_runs.py host|guest <xnvmeperf> <runtime seconds> <out.json>

host: the ramdisk with nil, sync, emu and thrpool, one and two devices. guest (QEMU NVMe rig):
/dev/nvme0n1 with io_uring and libaio, /dev/ng0n1 with io_uring_cmd, QD1 and QD16, and two
threads on two queues.
"""
import json
import os
import subprocess
import sys


def main():
    where, perf, rt, out = sys.argv[1:5]
    if where == "host":
        runs = [
            ("nil QD1", ["--async", "nil", "--qdepth", "1", "1GB"]),
            ("nil QD16", ["--async", "nil", "--qdepth", "16", "1GB"]),
            ("nil QD16, 2 devices", ["--async", "nil", "--qdepth", "16", "--threads", "2",
                                     "1GB", "2GB"]),
            ("sync (QD0)", ["--qdepth", "0", "1GB"]),
            ("emu QD16", ["--async", "emu", "--qdepth", "16", "1GB"]),
            ("thrpool QD16", ["--async", "thrpool", "--qdepth", "16", "1GB"]),
            ("thrpool QD16 randrw", ["--async", "thrpool", "--qdepth", "16", "--rw", "randrw",
                                     "1GB"]),
        ]
    else:
        blk = os.environ.get("XNVME_QEMU_NVM_BLK", "/dev/nvme0n1")
        chr_ = os.environ.get("XNVME_QEMU_NVM_CHR", "/dev/ng0n1")
        runs = [
            ("guest nvme0n1 io_uring QD1", ["--async", "io_uring", "--direct", blk]),
            ("guest nvme0n1 io_uring QD16", ["--async", "io_uring", "--direct", "--qdepth", "16",
                                             blk]),
            ("guest nvme0n1 libaio QD16", ["--async", "libaio", "--direct", "--qdepth", "16",
                                           blk]),
            ("guest ng0n1 io_uring_cmd QD1", ["--async", "io_uring_cmd", chr_]),
            ("guest ng0n1 io_uring_cmd QD16", ["--async", "io_uring_cmd", "--qdepth", "16",
                                               chr_]),
            ("guest ng0n1 io_uring_cmd QD16, 2 threads",
             ["--async", "io_uring_cmd", "--qdepth", "16", "--threads", "2", chr_]),
        ]
    res = []
    for label, args in runs:
        cmd = [perf, "--json", "--no-progress", "--runtime", rt] + args
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            res.append({"label": label, "cmd": cmd, "error": r.stderr.strip()[-300:]})
            print("  xnvmeperf %s: %s" % (label, r.stderr.strip()[-200:]), file=sys.stderr)
            continue
        doc = json.loads(r.stdout)
        res.append({"label": label, "cmd": cmd, "doc": doc})
        t = doc["total"]
        print("  xnvmeperf %-40s %12.0f IOPS  p50 %9.0f ns  p99 %9.0f ns" % (
            label, t["iops"], t["lat_ns"]["p50"], t["lat_ns"]["p99"]), file=sys.stderr)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
