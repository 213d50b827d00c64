"""``python -m xnvme info <uri> [--async MECH ...]``: what the library sees of a device.

A closed pipe on stdout (``python -m xnvme info 1GB | head -5``) ends the command quietly
with exit status 141 (128 + SIGPIPE), as a C tool stopped by SIGPIPE would; nothing on stderr.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import List, Optional

# 128 + SIGPIPE: the exit status of a command stopped by a closed pipe
EXIT_SIGPIPE = 128 + int(getattr(signal, "SIGPIPE", 13))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m xnvme",
                                 description="xNVMe from Python: device information")
    sub = ap.add_subparsers(dest="cmd", required=True)
    info = sub.add_parser("info", help="geometry, identity and identify data of a device")
    info.add_argument("uri", help='device URI, e.g. 1GB, /dev/ng0n1, /tmp/file')
    for opt in ("be", "mem", "sync", "async", "admin"):
        info.add_argument("--" + opt, default=None, help="%s mechanism" % opt)
    info.add_argument("--nsid", type=int, default=None)
    sub.add_parser("version", help="library version and location")
    args = ap.parse_args(argv)

    import xnvme  # pylint: disable=import-outside-toplevel
    from xnvme import _library  # pylint: disable=import-outside-toplevel

    if args.cmd == "version":
        print("xnvme: %s (%s)" % (xnvme.library_version(), _library.LIBRARY_PATH))
        return 0
    opts = {k: getattr(args, k) for k in ("be", "mem", "sync", "async", "admin", "nsid")}
    try:
        with xnvme.open(args.uri, **opts) as dev:
            print("xnvme_dev:")
            print("  uri: %r" % dev.ident.uri)
            print("  nsid: %d" % dev.nsid)
            print("  csi: %d" % dev.csi)
            print("  subnqn: %r" % dev.ident.subnqn)
            print("xnvme_geo:")
            for key, val in vars(dev.geo).items():
                print("  %s: %s" % (key, int(val)))
            try:
                ctrlr = dev.identify_ctrlr()
                print("idfy_ctrlr: {vid: 0x%04x, sn: %r, mn: %r, fr: %r, ver: %s, mdts: %d}"
                      % (ctrlr.vid, ctrlr.sn, ctrlr.mn, ctrlr.fr, ctrlr.version, ctrlr.mdts))
                ns = dev.identify_ns()
                print("idfy_ns: {nsze: %d, ncap: %d, nuse: %d, lba_nbytes: %d, ms: %d}"
                      % (ns.nsze, ns.ncap, ns.nuse, ns.lba_format.nbytes, ns.lba_format.ms))
            except xnvme.XnvmeError as exc:
                print("identify: %s" % exc)
    except xnvme.XnvmeError as exc:
        print("python -m xnvme: %s" % exc, file=sys.stderr)
        return 1
    return 0


def run(argv: Optional[List[str]] = None) -> int:
    """main(), ending quietly when the reader of stdout went away"""
    try:
        status = main(argv)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # the interpreter flushes stdout again at exit: point it somewhere that takes it
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_SIGPIPE


if __name__ == "__main__":
    sys.exit(run())
