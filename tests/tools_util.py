# SPDX-License-Identifier: BSD-3-Clause
"""
Helpers shared by the tests of the command-line tools (tests/test_tools_*.py): running a tool,
parsing its YAML, the data the tools generate, the ramdisk URIs of the command sets, and the
subcommands every tool has (each must have a test).

A ramdisk lives in the memory of one process: every invocation starts from a fresh zeroed device,
so data written by one invocation cannot be read by the next. Write-then-read checks on the
ramdisk therefore run inside one invocation (`xnvme_file write-read`, `lblk write-read-pi`, the
zone descriptor that `zoned write/append/mgmt-*` print after acting) or compare against the
known fresh content; persistent write-then-read checks use a regular file.

The build directory comes from XNVME_BUILD_DIR (default: build/ in the source tree).
"""
import json
import os
import re
import select
import subprocess
import threading
import time

import pytest
import yaml

BUILD_DIR = os.environ.get(
    "XNVME_BUILD_DIR", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build")
)
TOOLS_DIR = os.path.join(BUILD_DIR, "tools")
COMPLETIONS_DIR = os.path.join(TOOLS_DIR, "completions")
TOOLS = ["xnvme", "lblk", "zoned", "kvs", "xdd", "xnvme_file"]

RAMDISK = "1GB"
RAMDISK_NBYTES = 1 << 30
LBA_NBYTES = 512
FILE_NBYTES = 64 << 20

# Exit statuses of the tools
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ARGS = 2

# Subcommands the ramdisk or the file shim does not implement fail with status 1; they must
# still report properly (YAML on stdout, a message on stderr).
OK = (EXIT_OK,)
OK_OR_UNSUPPORTED = (EXIT_OK, EXIT_FAILED)


def tool_path(name):
    return os.path.join(TOOLS_DIR, name)


def registry():
    """The library's backends in registry order, each {name, enabled} and, when built, its
    mechanism names per kind: tests/registry_dump walks the registry, so no test keeps a list
    of backend or mechanism names that adding one would trip"""
    dump = subprocess.run([os.path.join(BUILD_DIR, "tests", "registry_dump")],
                          stdout=subprocess.PIPE, check=True, timeout=60)
    return json.loads(dump.stdout)["backends"]


def run(name, *args, cwd=None, stderr=subprocess.PIPE, timeout=300):
    """Runs a tool; no invocation may die from a signal, whatever its arguments"""
    path = tool_path(name)
    if not os.path.exists(path):
        pytest.skip(f"{path} is not built")
    proc = subprocess.run(
        [path] + [str(a) for a in args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=stderr,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode >= 0, f"{name} {args} killed by signal {-proc.returncode}"
    return proc


def run_yaml(name, *args, expect=OK, cwd=None):
    """Runs a tool, checks the exit status and returns (process, parsed stdout)"""
    proc = run(name, *args, cwd=cwd)
    out = proc.stdout.decode()
    err = proc.stderr.decode()
    assert proc.returncode in expect, (
        f"{name} {' '.join(map(str, args))}: exit {proc.returncode}\n"
        f"stdout:\n{out}\nstderr:\n{err}"
    )
    try:
        doc = yaml.safe_load(out)
    except yaml.YAMLError as exc:
        pytest.fail(f"{name} {args}: stdout is not YAML: {exc}\n{out}")
    if proc.returncode != EXIT_OK:
        assert "ERR" in err, f"{name} {args}: failed without an error message: {err!r}"
    return proc, doc


def subcommands(name):
    """The subcommands listed by the tool usage"""
    proc = run(name, "--help")
    assert proc.returncode == EXIT_OK
    subs = re.findall(r"^\s{2}(\S+)\s+\|", proc.stdout.decode(), re.MULTILINE)
    assert subs, f"{name} --help lists no subcommand"
    return subs


def pattern(nbytes, pos=0):
    """The data the tools generate: byte k of a transfer is 'A' + k % 26"""
    period = bytes(range(ord("A"), ord("A") + 26))
    start = pos % 26
    reps = (nbytes + start) // 26 + 1
    return (period * reps)[start : start + nbytes]


class FifoFeeder:
    """Writes `data` into the FIFO `path` for a tool to read, then closes it: the tool reads
    the end there. Made before the tool starts, the FIFO has a writer whatever the timing, so
    a tool opening it without blocking never finds it writerless. Never blocks the test: what
    a tool that stops reading early leaves is not written, and the feeding stops at the end of
    the `with` block, when the tool exited (wait(proc)) or after `timeout` seconds.

        with FifoFeeder(fifo, data) as feeder:
            proc = start the tool
            feeder.wait(proc)
    """

    def __init__(self, path, data, timeout=120):
        self.data = memoryview(data)
        self.deadline = time.monotonic() + timeout
        self.stop = threading.Event()
        self.fed = 0
        # read-write: the open never blocks, and the tool finds a writer at once
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.thread = threading.Thread(target=self._feed)

    def _feed(self):
        try:
            while self.fed < len(self.data) and not self.stop.is_set() and \
                    time.monotonic() < self.deadline:
                if select.select([], [self.fd], [], 0.05)[1]:
                    try:
                        self.fed += os.write(self.fd, self.data[self.fed:self.fed + 65536])
                    except BlockingIOError:
                        pass
        finally:
            os.close(self.fd)

    def __enter__(self):
        self.thread.start()
        return self

    def wait(self, proc):
        """Until everything was written and the FIFO closed, or `proc` exited"""
        while self.thread.is_alive():
            if proc.poll() is not None:
                self.stop.set()
            self.thread.join(0.05)

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def ctrlr_str(value):
    """Identify Controller strings are space padded"""
    return str(value).strip()


@pytest.fixture
def devfile(tmp_path):
    """A 64 MiB regular file used as a device"""
    path = tmp_path / "dev.img"
    with open(path, "wb") as f:
        f.truncate(FILE_NBYTES)
    return path


@pytest.fixture(scope="module")
def ramdisk_info():
    _, doc = run_yaml("xnvme", "info", RAMDISK)
    return doc["xnvme_dev"]


# Every subcommand has a test case; a subcommand added to a tool must be added here too.
COVERED = {
    "xnvme": {
        "list", "enum", "info", "idfy", "idfy-ns", "idfy-ctrlr", "idfy-cs", "log", "log-erri",
        "log-health", "feature-get", "feature-set", "format", "sanitize", "pioc", "padc",
        "library-info", "dsm", "subsystem-reset", "show-regs", "ctrlr-reset", "ns-rescan",
        "log-fdp-config", "log-ruhu", "log-fdp-stats", "log-fdp-events", "set-fdp-events",
        "fdp-ruhs", "fdp-ruhu",
    },
    "lblk": {
        "enum", "info", "idfy", "dir-send", "dir-receive", "read", "write", "write-zeros",
        "write-uncor", "compare", "scopy", "write-dir", "write-read-pi",
    },
    "zoned": {
        "enum", "info", "idfy-ctrlr", "idfy-ns", "changes", "errors", "read", "write", "append",
        "mgmt-open", "mgmt-close", "mgmt-finish", "mgmt-reset", "mgmt", "report",
    },
    "kvs": {"enum", "idfy-ns", "retrieve", "store", "delete", "exist", "list"},
    "xdd": {"sync", "async"},
    "xnvme_file": {
        "write-read", "dump-sync", "dump-sync-iovec", "dump-async", "dump-async-iovec",
        "load-sync", "load-async", "copy-sync", "copy-async",
    },
}


# Command sets on the ramdisk: zoned, key-value, FDP and protection information namespaces
ZSZE = 8192
ZCAP = 6144
ZONED = f"1GB?csi=zoned,zsze={ZSZE},zcap={ZCAP},mor=4,mar=6"
NZONES = RAMDISK_NBYTES // LBA_NBYTES // ZSZE
KV = "1GB?csi=kv"
FDP_NRUH = 8
FDP = f"1GB?fdp=1,nruh={FDP_NRUH}"

KEY_NOT_EXISTS = "KV Key Does Not Exist"


def run_fail(name, *args, status=EXIT_FAILED, needles=()):
    """Runs a tool that must fail with `status`; stderr must name every needle"""
    proc = run(name, *args)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == status, (
        f"{name} {' '.join(map(str, args))}: exit {proc.returncode}\n{out}\n{err}"
    )
    assert "ERR" in err, err
    for needle in needles:
        assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"
    yaml.safe_load(out)
    return proc


def zone(doc):
    """The zone descriptor printed after a zoned write/append/mgmt-*"""
    return doc["xnvme_spec_znd_descr"]


# Protection information: (URI, PI tuple bytes, extended LBA)
PI_URIS = [
    "1GB?ms=8,pi=1,mset=0",
    "1GB?ms=8,pi=1,mset=1",
    "1GB?ms=16,pi=1,pil=1,mset=0",
    "1GB?ms=16,pi=2,pil=0,mset=1",
    "1GB?ms=8,pi=3,mset=0",
    "1GB?lbads=12,ms=16,pi=1,pif=2,mset=0",
    "1GB?ms=16,pi=1,pif=2,mset=1",
]
