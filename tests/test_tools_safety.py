# SPDX-License-Identifier: BSD-3-Clause
"""
No combination of arguments, input sizes, output states or signals makes a tool truncate,
shorten or half-write an output that existed before the run (issue 26, docs/reliability.md).

* The matrix: every subcommand that writes an output x each failing argument (the refusals the
  tools have: sizes, alignment under --direct, ranges beyond the end, missing, FIFO, directory
  or same-file inputs, a device too small, values out of range, a device that cannot be opened,
  commands the device refuses) x each state of the output: absent, an existing file smaller or
  larger than the run would write, a symbolic link to a file, and a device (a loop device;
  skipped with a message where none can be set up). Afterwards: the exit status and the one
  '# ERR:' line are as documented, nothing about the failure is on stdout, a pre-existing
  output has its original bytes (hash compared; a link is still the same link), and no file is
  left behind.
* The device a subcommand writes (its uri: lblk, zoned, kvs, xnvme, xnvme_file write-read),
  a regular file or a loop device of random bytes, x each refusal of those subcommands: the
  device keeps every byte (hash compared) and nothing is created.
* A successful run through a symbolic link replaces the file it names and keeps the link; a
  replaced file keeps its mode, owner and group.
* Signals: SIGINT, SIGTERM, SIGPIPE and SIGHUP sent at random points of long copies (xnvme_file,
  xdd): either the run completed (exit 0, the output holds the copy) or it stopped (exit 128 +
  the signal, one line naming it, the output as before, nothing left behind). A block write to
  a device stopped midway names exactly the LBAs it wrote; a reader of a stream output that
  goes away stops the run the same way (SIGPIPE, one line).
"""
import hashlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import time

import pytest
import yaml

from tools_util import (
    EXIT_ARGS, EXIT_FAILED, EXIT_OK, KV, RAMDISK, ZONED, FifoFeeder, pattern, run, tool_path,
)

MIB = 1 << 20
OLD_SMALL = 3000  # an existing output smaller than what a run would write
OLD_LARGE = 3 * MIB  # and one larger
LOOP_NBYTES = 8 * MIB
STATES = ["absent", "smaller", "larger", "symlink", "device"]
# Random points of the signal tests: XNVME_TEST_SEED repeats a run
SEED = int(os.environ.get("XNVME_TEST_SEED", random.randrange(1 << 30)))


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def err_lines(err):
    return [l for l in err.splitlines() if l.startswith("# ERR")]


@pytest.fixture(scope="module")
def loopdev(tmp_path_factory):
    """A loop device over an 8 MiB file of random bytes, or the reason there is none"""
    if os.geteuid() != 0 or not shutil.which("losetup") or not os.path.exists("/dev/loop-control"):
        yield None, "loop devices need root, losetup and /dev/loop-control"
        return
    backing = tmp_path_factory.mktemp("loop") / "backing.img"
    backing.write_bytes(os.urandom(LOOP_NBYTES))
    proc = subprocess.run(["losetup", "-f", "--show", str(backing)], capture_output=True,
                          text=True, timeout=30, check=False)
    if proc.returncode:
        yield None, f"losetup failed: {proc.stderr.strip()}"
        return
    dev = proc.stdout.strip()
    try:
        yield dev, None
    finally:
        subprocess.run(["losetup", "-d", dev], timeout=30, check=False)


class Out:
    """An output in one of STATES, and what it held before the run"""

    def __init__(self, tmp_path, state, loop):
        self.dir = tmp_path
        self.state = state
        self.path = str(tmp_path / "out.bin")
        self.target = None  # the file behind a symbolic link
        if state == "smaller":
            (tmp_path / "out.bin").write_bytes(os.urandom(OLD_SMALL))
        elif state == "larger":
            (tmp_path / "out.bin").write_bytes(os.urandom(OLD_LARGE))
        elif state == "symlink":
            self.target = tmp_path / "target.bin"
            self.target.write_bytes(os.urandom(OLD_SMALL))
            os.symlink("target.bin", self.path)
        elif state == "device":
            self.path = loop
        self.before = self.snapshot()
        self.names = sorted(os.listdir(tmp_path))

    def snapshot(self):
        if self.state == "absent":
            return os.path.lexists(self.path)
        if self.state == "symlink":
            return (os.readlink(self.path), sha(self.target), os.stat(self.target).st_mode)
        st = os.stat(self.path)
        return (sha(self.path), st.st_mode, st.st_size if self.state != "device" else None)

    def check_unchanged(self, what):
        assert self.snapshot() == self.before, f"{what}: the {self.state} output was changed"
        assert sorted(os.listdir(self.dir)) == self.names, (
            f"{what}: files left behind: {sorted(set(os.listdir(self.dir)) - set(self.names))}")


def inputs(tmp_path):
    """The inputs the cases name"""
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(MIB))
    src3 = tmp_path / "src3.bin"
    src3.write_bytes(os.urandom(MIB + 1))  # not a multiple of any block size
    short = tmp_path / "short.bin"
    short.write_bytes(os.urandom(100))
    dev = tmp_path / "dev.img"
    with open(dev, "wb") as f:
        f.truncate(64 * MIB)
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    return {"src": src, "src3": src3, "short": short, "dev": dev, "fifo": fifo,
            "missing": tmp_path / "missing.bin"}


# (tool, arguments with {out} and the inputs, exit status, a needle of the error line, states)
# A case fails in every state unless it names its states: "device too small" is one.
CASES = [
    # xnvme_file: the rows of issue 26, and its other refusals
    ("xnvme_file", ["copy-sync", "{src}", "{out}", "--direct", "--iosize", 1000], EXIT_FAILED,
     "--iosize 1000"),
    ("xnvme_file", ["copy-async", "{src}", "{out}", "--direct", "--iosize", 1000], EXIT_FAILED,
     "--iosize 1000"),
    ("xnvme_file", ["copy-sync", "{src3}", "{out}", "--direct"], EXIT_FAILED, "the size"),
    ("xnvme_file", ["copy-async", "{src3}", "{out}", "--direct"], EXIT_FAILED, "the size"),
    ("xnvme_file", ["copy-sync", "{missing}", "{out}"], EXIT_FAILED, "missing.bin"),
    ("xnvme_file", ["copy-async", "{src}", "{out}", "--qdepth", 5000], EXIT_ARGS, "--qdepth"),
    ("xnvme_file", ["dump-sync", "{out}", "--data-nbytes", 18446744073709551615], EXIT_FAILED,
     "--data-nbytes 18446744073709551615"),
    ("xnvme_file", ["dump-async", "{out}", "--data-nbytes", 4000, "--direct"], EXIT_FAILED,
     "the size"),
    ("xnvme_file", ["dump-sync-iovec", "{out}", "--data-nbytes", 8192, "--iosize", 4096,
                    "--vec-cnt", 3, "--direct"], EXIT_FAILED, "vector element"),
    ("xnvme_file", ["dump-async-iovec", "{out}", "--data-nbytes", 4096, "--vec-cnt", 0],
     EXIT_ARGS, "--vec-cnt"),
    ("xnvme_file", ["dump-sync", "{out}", "--data-nbytes", 16 * MIB], EXIT_FAILED, "holds",
     ["device"]),
    ("xnvme_file", ["copy-sync", "{fifo}", "{out}"], EXIT_FAILED, "is a FIFO"),
    ("xnvme_file", ["copy-async", "{tmp}", "{out}"], EXIT_FAILED, "is a directory"),
    ("xnvme_file", ["dump-sync", "{out}", "--data-nbytes", 4096, "--iosize", 0], EXIT_ARGS,
     "--iosize"),
    ("xnvme_file", ["dump-sync-iovec", "{out}", "--data-nbytes", 4096, "--vec-cnt", 5000],
     EXIT_ARGS, "--vec-cnt"),
    ("xnvme_file", ["dump-sync", "{out}", "--data-nbytes", 0], EXIT_ARGS, "--data-nbytes"),
    # xdd
    ("xdd", ["sync", "--data-input", "{src3}", "--data-output", "{out}", "--data-nbytes",
             MIB + 1, "--direct"], EXIT_FAILED, "the size"),
    ("xdd", ["async", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes", 4096,
             "--offset", 100, "--direct"], EXIT_FAILED, "the offset"),
    ("xdd", ["sync", "--data-input", "{short}", "--data-output", "{out}", "--data-nbytes",
             MIB], EXIT_FAILED, "holds 100 bytes"),
    ("xdd", ["sync", "--data-input", "{missing}", "--data-output", "{out}", "--data-nbytes",
             4096], EXIT_FAILED, "missing.bin"),
    ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes", 10,
             "--offset", 18446744073709551610], EXIT_FAILED, "overflows"),
    ("xdd", ["async", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes", 4096,
             "--qdepth", 0], EXIT_ARGS, "--qdepth"),
    ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes", 4096,
             "--offset", 16 * MIB], EXIT_FAILED, "holds", ["device"]),
    ("xdd", ["sync", "--data-input", "{fifo}", "--data-output", "{out}", "--data-nbytes",
             4096], EXIT_FAILED, "is a FIFO"),
    ("xdd", ["async", "--data-input", "{tmp}", "--data-output", "{out}", "--data-nbytes",
             4096], EXIT_FAILED, "is a directory"),
    ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes", 0],
     EXIT_ARGS, "--data-nbytes"),
    ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes", 4096,
             "--iosize", 0], EXIT_ARGS, "--iosize"),
    # lblk: a refused range, a command the device refuses after the output was opened
    ("lblk", ["read", RAMDISK, "--slba", "0x1ffffff", "--nlb", 7, "--data-output", "{out}"],
     EXIT_FAILED, "beyond the end of the namespace"),
    ("lblk", ["read", "{dev}", "--slba", "0x1f000", "--nlb", "0x1fff", "--data-output", "{out}"],
     EXIT_FAILED, "beyond the end of the namespace"),
    ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--nsid", "0x2", "--data-output",
              "{out}"], EXIT_FAILED, "Invalid Namespace or Format"),
    ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{out}",
              "--meta-output", "{tmp}/meta.bin"], EXIT_FAILED, "no separate metadata"),
    ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 99999999999, "--data-output", "{out}"],
     EXIT_ARGS, "--nlb"),
    ("lblk", ["read", "{missing}", "--slba", 0, "--nlb", 7, "--data-output", "{out}"],
     EXIT_FAILED, "missing.bin"),
    ("lblk", ["idfy", RAMDISK, "--nsid", "0x5", "--data-output", "{out}"], EXIT_FAILED,
     "Invalid Namespace or Format"),
    # zoned, kvs
    ("zoned", ["read", ZONED, "--slba", "0xfffffff", "--nlb", 0, "--data-output", "{out}"],
     EXIT_FAILED, "--slba"),
    ("zoned", ["report", ZONED, "--slba", "0xfffffff", "--data-output", "{out}"], EXIT_FAILED,
     "beyond the last zone"),
    ("zoned", ["read", ZONED, "--slba", 0, "--nlb", 7, "--data-output", "{out}",
               "--meta-output", "{tmp}/meta.bin"], EXIT_FAILED, "no separate metadata"),
    ("zoned", ["changes", RAMDISK, "--data-output", "{out}"], EXIT_FAILED, "Invalid Log Page"),
    ("zoned", ["errors", "{missing}", "--data-output", "{out}"], EXIT_FAILED, "missing.bin"),
    ("kvs", ["retrieve", KV, "--key", "nokey", "--data-output", "{out}"], EXIT_FAILED,
     "KV Key Does Not Exist"),
    ("kvs", ["retrieve", RAMDISK, "--key", "k", "--data-output", "{out}"], EXIT_FAILED,
     "not a key-value namespace"),
    # xnvme
    ("xnvme", ["idfy", RAMDISK, "--cns", "0x1ff", "--data-output", "{out}"], EXIT_ARGS, "--cns"),
    ("xnvme", ["idfy", RAMDISK, "--cns", "0x99", "--data-output", "{out}"], EXIT_FAILED,
     "Invalid Field in Command"),
    ("xnvme", ["log", RAMDISK, "--lid", "0x2", "--data-nbytes", 6, "--data-output", "{out}"],
     EXIT_FAILED, "--data-nbytes"),
    ("xnvme", ["pioc", RAMDISK, "--opcode", "0xff", "--data-nbytes", 4096, "--data-output",
               "{out}"], EXIT_FAILED, "Invalid Command Opcode"),
    ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1", "--data-nbytes", 4096,
               "--data-output", "{out}", "--meta-output", "{tmp}/sub/meta.bin"], EXIT_FAILED,
     "no directory"),
    ("xnvme", ["log-erri", RAMDISK, "--limit", 0, "--data-output", "{out}"], EXIT_ARGS,
     "--limit"),
    ("xnvme", ["idfy-ns", RAMDISK, "--nsid", "0x5", "--data-output", "{out}"], EXIT_FAILED,
     "Invalid Namespace or Format"),
    ("xnvme", ["idfy-ctrlr", "{missing}", "--data-output", "{out}"], EXIT_FAILED,
     "missing.bin"),
    ("xnvme", ["idfy-cs", "{missing}", "--data-output", "{out}"], EXIT_FAILED, "missing.bin"),
    ("xnvme", ["log-health", RAMDISK, "--nsid", "0x5", "--data-output", "{out}"], EXIT_FAILED,
     "Invalid Namespace or Format"),
    ("xnvme", ["log-fdp-config", RAMDISK, "--lsi", 0, "--data-nbytes", 3, "--data-output",
               "{out}"], EXIT_ARGS, "--data-nbytes 3"),
    ("xnvme", ["log-ruhu", RAMDISK, "--lsi", 0, "--limit", 0, "--data-output", "{out}"],
     EXIT_ARGS, "--limit"),
    ("xnvme", ["log-fdp-stats", RAMDISK, "--lsi", 0, "--data-output", "{out}"], EXIT_FAILED,
     "Invalid Log Page"),
    ("xnvme", ["log-fdp-events", RAMDISK, "--lsi", 0, "--limit", 1, "--lsp", "0x2",
               "--data-output", "{out}"], EXIT_ARGS, "--lsp"),
    ("xnvme", ["feature-get", RAMDISK, "--fid", "0x7", "--data-output", "{out}"], EXIT_FAILED,
     "non-zero --data-nbytes"),
    ("xnvme", ["padc", RAMDISK, "--opcode", "0xff", "--data-nbytes", 4096, "--data-output",
               "{out}"], EXIT_FAILED, "Invalid Command Opcode"),
]


def direct_io_works(path):
    """Whether the file system of `path` takes O_DIRECT (tmpfs of older kernels does not)"""
    probe = os.path.join(path, ".direct-probe")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_RDWR | getattr(os, "O_DIRECT", 0), 0o600)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


def matrix(cases, states):
    """(index, case, state) for each case in each of its states (its fifth item, or `states`)"""
    return [(i, c, s) for i, c in enumerate(cases) for s in (c[4] if len(c) > 4 else states)]


def matrix_ids(m):
    return [f"{c[0]}-{c[1][0]}-{i}-{s}" for i, c, s in m]


def run_refused(tmp_path, loopdev, idx, case, state, names):
    """Runs a failing case (skipped where its state or --direct cannot be had here), its
    {placeholders} from `names`: checks the exit status, the one error line naming the needle,
    nothing about the failure on stdout. Returns the command line, for messages."""
    name, args, status, needle = case[:4]
    if state == "device" and not loopdev[0]:
        pytest.skip(f"device state: {loopdev[1]}")
    if "--direct" in args and state != "device" and not direct_io_works(tmp_path):
        pytest.skip(f"case {idx}: {tmp_path} does not take O_DIRECT")
    argv = [str(a).format(**names) for a in args]
    proc = run(name, *argv, cwd=tmp_path, timeout=120)
    what = f"{name} {' '.join(argv)} ({state})"
    err, stdout = proc.stderr.decode(), proc.stdout.decode()
    assert proc.returncode == status, f"{what}: exit {proc.returncode}\n{err}"
    lines = err_lines(err)
    assert len(lines) == 1, f"{what}: one error line expected:\n{err}"
    assert needle in lines[0], f"{what}: {needle!r} not in {lines[0]!r}"
    assert "xnvme_cmd_ctx" not in stdout, f"{what}: a failure dumped on stdout:\n{stdout}"
    return what, lines[0]


MATRIX = matrix(CASES, STATES)


@pytest.mark.parametrize("idx,case,state", MATRIX, ids=matrix_ids(MATRIX))
def test_failing_run_keeps_outputs(tmp_path, loopdev, idx, case, state):
    ins = inputs(tmp_path)
    out = Out(tmp_path, state, loopdev[0]) if state != "device" or loopdev[0] else None
    names = dict(ins, out=out.path if out else "", tmp=tmp_path)
    what, _ = run_refused(tmp_path, loopdev, idx, case, state, names)
    out.check_unchanged(what)


# The subcommands that write their uri device x their refusals: (tool, arguments with {dev} and
# the inputs, exit status, a needle of the error line, states). {tail} is the LBA 4096 blocks
# before the end of the device, {end} 4 blocks before it: ranges of 8192 or 8 blocks from there
# end beyond it. "file": a regular file named as the device; "device": the loop device.
DEV_STATES = ["file", "device"]
DEV_CASES = [
    # issue 26: a range beyond the end of a file was written up to its end, then refused
    ("lblk", ["write", "{dev}", "--slba", "{tail}", "--nlb", "0x1fff"], EXIT_FAILED,
     "beyond the end of the namespace"),
    ("lblk", ["write-zeros", "{dev}", "--slba", "{tail}", "--nlb", "0x1fff"], EXIT_FAILED,
     "beyond the end of the namespace"),
    ("lblk", ["write-uncor", "{dev}", "--slba", "{tail}", "--nlb", "0x1fff"], EXIT_FAILED,
     "beyond the end of the namespace"),
    ("lblk", ["write-dir", "{dev}", "--slba", "{tail}", "--nlb", "0x1fff"], EXIT_FAILED,
     "beyond the end of the namespace"),
    ("lblk", ["write", "{dev}", "--slba", "0xffffffffffffff00", "--nlb", 0], EXIT_FAILED,
     "beyond the end of the namespace"),
    ("lblk", ["write-dir", "{dev}", "--slba", 0, "--nlb", 7, "--dtype", "0x10"], EXIT_ARGS,
     "--dtype"),
    ("lblk", ["write", "{dev}", "--slba", 0, "--nlb", "0x1fff", "--data-input", "{short}"],
     EXIT_FAILED, "holds 100 bytes"),
    ("lblk", ["write", "{dev}", "--slba", 0, "--nlb", 7, "--data-input", "{missing}"],
     EXIT_FAILED, "missing.bin"),
    ("lblk", ["write", "{dev}", "--slba", 0, "--nlb", 7, "--meta-input", "{short}"],
     EXIT_FAILED, "no separate metadata"),
    ("lblk", ["write", "{dev}", "--slba", 0, "--nlb", 7, "--data-input", "{dev}"], EXIT_FAILED,
     "same file"),
    ("lblk", ["scopy", "{dev}", "--slba", 0, "--nlb", 7, "--sdlba", "{end}"], EXIT_FAILED,
     "--sdlba"),
    ("lblk", ["write-read-pi", "{dev}", "--slba", 0, "--nlb", 7], EXIT_FAILED,
     "not formatted with protection information"),
    ("zoned", ["write", "{dev}", "--slba", "{tail}", "--nlb", "0x1fff"], EXIT_FAILED,
     "beyond the end of the namespace"),
    ("zoned", ["append", "{dev}", "--slba", 0, "--nlb", 7], EXIT_FAILED,
     "Invalid Command Opcode"),
    ("kvs", ["store", "{dev}", "--key", "k", "--value", "v"], EXIT_FAILED,
     "not a key-value namespace"),
    ("xnvme", ["pioc", "{dev}", "--opcode", "0x1", "--data-nbytes", 4096, "--data-input",
               "{short}"], EXIT_FAILED, "holds 100 bytes"),
    ("xnvme", ["pioc", "{dev}", "--opcode", "0x2", "--data-nbytes", 4096, "--data-output",
               "{dev}"], EXIT_FAILED, "same file"),
    ("xnvme", ["format", "{dev}"], EXIT_FAILED, "Invalid Command Opcode"),
    ("xnvme_file", ["write-read", "{dev}", 1000, "--direct"], EXIT_FAILED, "the size"),
    ("xnvme_file", ["write-read", "{dev}", 2 * LOOP_NBYTES], EXIT_FAILED, "holds", ["device"]),
    # a file or a block device that is no NVMe namespace has one namespace (1): another is
    # refused by the library before any I/O (it used to write a block device's own LBAs)
    ("lblk", ["write", "{dev}", "--slba", 0, "--nlb", 7, "--nsid", "0x2"], EXIT_FAILED,
     "Invalid Namespace or Format"),
    ("lblk", ["write-zeros", "{dev}", "--slba", 0, "--nlb", 7, "--nsid", "0x2"], EXIT_FAILED,
     "Invalid Namespace or Format", ["device"]),
]
DEV_MATRIX = matrix(DEV_CASES, DEV_STATES)


@pytest.mark.parametrize("idx,case,state", DEV_MATRIX, ids=matrix_ids(DEV_MATRIX))
def test_failing_run_keeps_the_device(tmp_path, loopdev, idx, case, state):
    ins = inputs(tmp_path)
    dev = loopdev[0] if state == "device" else str(tmp_path / "random.img")
    if state == "file":
        with open(dev, "wb") as f:
            f.write(os.urandom(LOOP_NBYTES))
    before = sha(dev) if dev else None
    names = sorted(os.listdir(tmp_path))
    nlbas = LOOP_NBYTES // 512
    what, line = run_refused(tmp_path, loopdev, idx, case, state,
                             dict(ins, dev=dev, tail=hex(nlbas - 4096), end=hex(nlbas - 4)))
    assert "were written" not in line, f"{what}: refused after a write: {line}"
    assert sha(dev) == before, f"{what}: the device was written"
    assert sorted(os.listdir(tmp_path)) == names, f"{what}: files left behind"


@pytest.mark.parametrize("state", ["smaller", "larger", "symlink", "device"])
def test_same_file_input_refused(tmp_path, loopdev, state):
    """The output named as the input too (through a link for the symlink state)"""
    loop, why = loopdev
    if state == "device" and not loop:
        pytest.skip(f"device state: {why}")
    out = Out(tmp_path, state, loop)
    for name, args in (("xnvme_file", ["copy-sync", out.path, out.path]),
                       ("xdd", ["async", "--data-input", out.path, "--data-output", out.path,
                                "--data-nbytes", 512])):
        proc = run(name, *args, cwd=tmp_path, timeout=60)
        err = proc.stderr.decode()
        assert proc.returncode == EXIT_FAILED and "same file" in err, err
        assert len(err_lines(err)) == 1, err
        out.check_unchanged(f"{name} {args}")


def test_success_replaces_through_the_link_keeping_mode_and_owner(tmp_path):
    src = tmp_path / "src.bin"
    data = os.urandom(MIB)
    src.write_bytes(data)
    target = tmp_path / "target.bin"
    target.write_bytes(b"old" * 1000)
    os.chmod(target, 0o640)
    uid, gid = os.getuid(), os.getgid()
    if os.geteuid() == 0:
        uid, gid = 65534, 65534
        os.chown(target, uid, gid)
    link = tmp_path / "link.bin"
    os.symlink("target.bin", link)
    for name, args in (("xnvme_file", ["copy-async", src, link]),
                       ("xdd", ["sync", "--data-input", src, "--data-output", link,
                                "--data-nbytes", MIB])):
        proc = run(name, *args, cwd=tmp_path, timeout=60)
        assert proc.returncode == EXIT_OK, proc.stderr.decode()
        assert os.path.islink(link) and os.readlink(link) == "target.bin"
        assert target.read_bytes() == data
        st = os.stat(target)
        assert stat.S_IMODE(st.st_mode) == 0o640 and (st.st_uid, st.st_gid) == (uid, gid)
        assert sorted(os.listdir(tmp_path)) == ["link.bin", "src.bin", "target.bin"]
        target.write_bytes(b"old" * 1000)


def test_xdd_keeps_the_bytes_outside_its_range(tmp_path):
    """xdd writes a range of an existing output: the rest of it is kept, byte for byte"""
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(MIB))
    old = os.urandom(OLD_LARGE)
    out = tmp_path / "out.bin"
    out.write_bytes(old)
    proc = run("xdd", "async", "--data-input", src, "--data-output", out, "--data-nbytes",
               65536, "--offset", 131072, cwd=tmp_path, timeout=60)
    assert proc.returncode == EXIT_OK, proc.stderr.decode()
    new = out.read_bytes()
    assert len(new) == len(old)
    assert new[:131072] == old[:131072] and new[196608:] == old[196608:]
    assert new[131072:196608] == src.read_bytes()[131072:196608]


# ------------------------------------------------------------------------------------------------
# Signals at random points of long copies
# ------------------------------------------------------------------------------------------------

COPY_NBYTES = 32 * MIB
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGHUP]
SIG_NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGPIPE: "SIGPIPE",
             signal.SIGHUP: "SIGHUP"}
COPIES = [
    ("xnvme_file", ["copy-async", "{src}", "{out}", "--iosize", 4096, "--qdepth", 8]),
    ("xnvme_file", ["copy-sync", "{src}", "{out}", "--iosize", 8192]),
    ("xdd", ["async", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes",
             COPY_NBYTES, "--iosize", 4096]),
    ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes",
             COPY_NBYTES, "--iosize", 8192]),
]


@pytest.mark.parametrize("name,args", COPIES, ids=[f"{c[0]}-{c[1][0]}" for c in COPIES])
def test_signals_during_a_long_copy(tmp_path, name, args):
    rng = random.Random(SEED)
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(COPY_NBYTES))
    want = sha(src)
    argv_of = lambda out: [str(a).format(src=src, out=out) for a in args]

    # how long an uninterrupted run takes here, to spread the signals over it
    start = time.monotonic()
    proc = run(name, *argv_of(tmp_path / "full.bin"), cwd=tmp_path, timeout=120)
    duration = time.monotonic() - start
    assert proc.returncode == EXIT_OK, proc.stderr.decode()
    assert sha(tmp_path / "full.bin") == want
    os.unlink(tmp_path / "full.bin")

    # until enough signals arrived mid-copy (timings vary with the load of the machine)
    stopped = completed = 0
    for i in range(12):
        if i >= 5 and stopped >= 4:
            break
        state = ["absent", "smaller", "larger", "symlink"][i % 4]
        sig = SIGNALS[(i + i // 4) % len(SIGNALS)]  # every signal with every state
        sub = tmp_path / f"run{i}"
        sub.mkdir()
        out = Out(sub, state, None)
        proc = subprocess.Popen([tool_path(name)] + argv_of(out.path), cwd=sub,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        start = time.monotonic()
        time.sleep(rng.uniform(0, duration * 0.8))
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
        err = stderr.decode()
        what = f"{name} {args[0]} {SIG_NAMES[sig]} ({state}, XNVME_TEST_SEED={SEED})"
        if proc.returncode == -sig:
            # the signal came before the tool caught signals (its first milliseconds): the
            # default action ended it before it opened anything
            out.check_unchanged(what)
        elif proc.returncode == EXIT_OK:
            # the signal came after the outputs were in place: the run completed
            assert sha(out.target or out.path) == want, what
            assert err_lines(err) == [], f"{what}: {err}"
            duration = min(duration, time.monotonic() - start)
            completed += 1
        else:
            stopped += 1
            assert proc.returncode == 128 + sig, f"{what}: exit {proc.returncode}\n{err}"
            lines = err_lines(err)
            assert len(lines) == 1 and f"interrupted by {SIG_NAMES[sig]}" in lines[0], \
                f"{what}: {err}"
            out.check_unchanged(what)
            yaml.safe_load(stdout.decode())
        shutil.rmtree(sub)
    # most signals must arrive while the copy runs, or this proves nothing
    assert stopped >= 3, f"only {stopped} signals of {stopped + completed} arrived mid-copy"


def written_lbas(line):
    """The LBA range an error line says was written to the uri device, as a byte range"""
    m = re.search(r"uri \S+: LBAs 0x([0-9a-f]+)-0x([0-9a-f]+) were written", line)
    assert m, line
    return int(m.group(1), 16) * 512, (int(m.group(2), 16) + 1) * 512


def test_failure_during_a_device_write_names_the_blocks_written(tmp_path):
    """A device is written in place: a write that fails midway (its input ends early) says
    which LBAs it wrote, exactly"""
    dev = tmp_path / "dev.img"
    nbytes = 16 * MIB
    with open(dev, "wb") as f:
        f.truncate(nbytes)
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    data = os.urandom(3 * MIB + 4096)  # three commands of 1 MiB, then it ends
    with FifoFeeder(fifo, data) as feeder:
        proc = subprocess.Popen([tool_path("lblk"), "write", str(dev), "--slba", "0", "--nlb",
                                 str(nbytes // 512 - 1), "--data-input", str(fifo)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        feeder.wait(proc)
        _, stderr = proc.communicate(timeout=120)
    assert feeder.fed == len(data)
    err = stderr.decode()
    assert proc.returncode == EXIT_FAILED, err
    lines = err_lines(err)
    assert len(lines) == 1 and "--data-input" in lines[0], err
    lo, hi = written_lbas(lines[0])
    assert (lo, hi) == (0, 3 * MIB), lines[0]
    got = dev.read_bytes()
    assert got[:hi] == data[:hi] and got[hi:] == bytes(nbytes - hi)


def test_signal_during_a_device_write_names_the_blocks_written(tmp_path):
    """The same for a write stopped by a signal"""
    dev = tmp_path / "dev.img"
    nbytes = 128 * MIB
    with open(dev, "wb") as f:
        f.truncate(nbytes)
    proc = subprocess.Popen([tool_path("lblk"), "write", str(dev), "--slba", "0", "--nlb",
                             str(nbytes // 512 - 1)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    time.sleep(0.03)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    err = stderr.decode()
    if proc.returncode in (EXIT_OK, -signal.SIGINT):
        pytest.skip("the signal came after the write completed or before the tool started")
    assert proc.returncode == 130, err
    lines = err_lines(err)
    assert len(lines) == 1 and "interrupted by SIGINT" in lines[0], err
    lo, hi = written_lbas(lines[0])
    assert lo == 0
    got = dev.read_bytes()
    assert got[:hi] == pattern(hi), "the LBAs named as written do not hold the data"
    assert got[hi:] == bytes(nbytes - hi), "LBAs beyond those named were written"


def test_reader_of_a_stream_output_gone(tmp_path):
    """The reader of a pipe the data goes to goes away: the run stops as for any SIGPIPE, with
    one line naming it and the bytes that reached the pipe, exit 141"""
    dev = tmp_path / "dev.img"
    with open(dev, "wb") as f:
        f.truncate(64 * MIB)
    proc = subprocess.Popen([tool_path("lblk"), "read", str(dev), "--slba", "0", "--nlb",
                             str(64 * MIB // 512 - 1), "--data-output", "/dev/stdout"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(proc.stdout.read(4096)) == 4096  # the info line, then data
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 128 + signal.SIGPIPE, err
    lines = err_lines(err)
    assert len(lines) == 1, err
    assert "interrupted by SIGPIPE" in lines[0] and "--data-output /dev/stdout: bytes 0-" in \
        lines[0], err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: SIG_NAMES[s])
def test_xnvmeperf_stopped_by_a_signal(tmp_path, sig):
    """The threads stop between two commands; the report shows what ran; exit 128 + signal"""
    proc = subprocess.Popen([tool_path("xnvmeperf"), "1GB", "--runtime", "30", "--json",
                             "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, stderr.decode()
    lines = err_lines(stderr.decode())
    assert len(lines) == 1 and f"interrupted by {SIG_NAMES[sig]}" in lines[0], stderr.decode()
    report = json.loads(stdout.decode())
    assert report["total"]["ios"] > 0 and report["total"]["elapsed_s"] < 30
