# SPDX-License-Identifier: BSD-3-Clause
"""
Bad input to the command-line tools: a non-zero exit and one message naming the argument, never a
crash; inputs and outputs that are the same file; short inputs and FIFOs; sizes beyond what the
target holds.
"""
import os
import subprocess

import pytest

from tools_util import (
    EXIT_ARGS, EXIT_FAILED, FDP, KV, NZONES, PI_URIS, RAMDISK, RAMDISK_NBYTES, ZONED, ZSZE,
    devfile, run, run_yaml,
)


# ------------------------------------------------------------------------------------------------
# Bad input: a non-zero exit and a message naming the argument, never a crash
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,args,status,needle",
    [
        ("xnvme", ["bogus"], EXIT_ARGS, "bogus"),
        ("lblk", ["bogus", RAMDISK], EXIT_ARGS, "bogus"),
        ("xnvme", ["info", RAMDISK, "--bogus", "1"], EXIT_ARGS, "--bogus"),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 0, "--bogus"], EXIT_ARGS, "--bogus"),
        ("xnvme", ["idfy", RAMDISK], EXIT_ARGS, "--cns"),
        ("lblk", ["read", RAMDISK, "--slba", 0], EXIT_ARGS, "--nlb"),
        ("xdd", ["sync", "--data-input", RAMDISK], EXIT_ARGS, "--data-output"),
        ("xnvme_file", ["write-read", RAMDISK], EXIT_ARGS, "data-nbytes"),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 99999999999], EXIT_ARGS, "--nlb"),
        ("lblk", ["read", RAMDISK, "--slba", "0x1ffffffffffffffff", "--nlb", 0], EXIT_ARGS,
         "--slba"),
        ("xnvme", ["feature-get", RAMDISK, "--fid", "0x1ffffffff"], EXIT_ARGS, "--fid"),
        ("lblk", ["read", RAMDISK, "--slba", "0xZZ", "--nlb", 0], EXIT_ARGS, "--slba"),
        ("lblk", ["read", RAMDISK, "--slba", "xyz", "--nlb", 0], EXIT_ARGS, "--slba"),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", "abc"], EXIT_ARGS, "--nlb"),
        ("xnvme", ["format", RAMDISK, "--lbafl", "0x10"], EXIT_ARGS, "--lbafl"),
        ("xnvme", ["log", RAMDISK, "--lid", "0x2", "--data-nbytes", 6], EXIT_FAILED,
         "--data-nbytes"),
        ("xnvme_file", ["dump-async", "x.bin", "--data-nbytes", 10, "--qdepth", 0],
         EXIT_ARGS, "--qdepth"),
        ("xnvme", ["info", "/nonexistent/device"], EXIT_FAILED, "/nonexistent/device"),
        ("zoned", ["bogus"], EXIT_ARGS, "bogus"),
        ("kvs", ["bogus"], EXIT_ARGS, "bogus"),
        ("zoned", ["mgmt", ZONED, "--slba", "0x0"], EXIT_ARGS, "--zsa"),
        ("zoned", ["mgmt", ZONED, "--slba", "0x0", "--zsa", "0x100"], EXIT_ARGS, "--zsa"),
        ("zoned", ["mgmt-open", ZONED], EXIT_ARGS, "--slba"),
        ("zoned", ["append", ZONED, "--slba", "0x0"], EXIT_ARGS, "--nlb"),
        ("zoned", ["read", ZONED, "--slba", hex(NZONES * ZSZE), "--nlb", 0], EXIT_FAILED,
         "--slba"),
        ("kvs", ["store", KV, "--key", "k"], EXIT_ARGS, "--value"),
        ("kvs", ["retrieve", KV], EXIT_ARGS, "--key"),
        ("xnvme", ["fdp-ruhs", FDP], EXIT_ARGS, "--limit"),
        ("xnvme", ["log-fdp-events", FDP, "--limit", 1, "--lsi", "0x0"], EXIT_ARGS, "--lsp"),
        ("lblk", ["write-read-pi", PI_URIS[0], "--slba", 0, "--nlb", 0, "--pract", "x"],
         EXIT_ARGS, "--pract"),
        ("xnvme", ["info", "1GB?csi=bogus"], EXIT_FAILED, "csi"),
    ],
)
def test_bad_arguments(tmp_path, name, args, status, needle):
    proc = run(name, *args, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == status, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"


def short_file(tmp_path):
    path = tmp_path / "short.bin"
    path.write_bytes(b"\x01" * 100)
    return path


@pytest.mark.parametrize(
    "name,args",
    [
        ("lblk", ["write", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{short}"]),
        ("lblk", ["compare", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{short}"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x9", "--data-nbytes", 4096,
                   "--data-input", "{short}"]),
        ("xnvme", ["pioc", RAMDISK, "--opcode", "0x1", "--data-nbytes", 4096,
                   "--data-input", "{short}"]),
        ("xnvme", ["feature-set", RAMDISK, "--fid", "0x3", "--feat", "0x0",
                   "--data-nbytes", 4096, "--data-input", "{short}"]),
        ("xdd", ["sync", "--data-input", "{short}", "--data-output", "{tmp}/o.bin",
                 "--data-nbytes", 4096]),
        ("xdd", ["async", "--data-input", "{short}", "--data-output", "{tmp}/o.bin",
                 "--data-nbytes", 4096]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_short_data_file(tmp_path, name, args):
    short = short_file(tmp_path)
    args = [str(a).format(short=short, tmp=tmp_path) for a in args]
    proc = run(name, *args, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert str(short) in err, err
    assert args[0] in err, f"subcommand not named: {err}"
    assert not (tmp_path / "o.bin").exists(), "output written despite the short input"


@pytest.mark.parametrize(
    "name,args",
    [
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{bad}"]),
        ("xnvme", ["idfy-ctrlr", RAMDISK, "--data-output", "{bad}"]),
        ("xnvme", ["log-health", RAMDISK, "--data-output", "{bad}"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1", "--data-nbytes", 4096,
                   "--data-output", "{bad}"]),
        ("xdd", ["sync", "--data-input", RAMDISK, "--data-output", "{bad}",
                 "--data-nbytes", 4096]),
        ("xnvme_file", ["dump-sync", "{bad}", "--data-nbytes", 4096]),
        ("xnvme_file", ["copy-async", "{src}", "{bad}"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
@pytest.mark.parametrize("bad", ["{tmp}/missing-dir/out.bin", "{tmp}"], ids=["nodir", "isdir"])
def test_unwritable_output(tmp_path, name, args, bad):
    src = tmp_path / "src.bin"
    src.write_bytes(b"\x02" * 4096)
    bad = bad.format(tmp=tmp_path)
    args = [str(a).format(bad=bad, src=src) for a in args]
    proc = run(name, *args, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode in (EXIT_FAILED, EXIT_ARGS), f"{name} {args}: {proc.returncode}"
    assert bad in err, f"{name} {args}: {bad!r} not named in {err!r}"


# ------------------------------------------------------------------------------------------------
# Inputs and outputs that are the same file, outputs left by failures, FIFO inputs, sizes beyond
# what the target holds (issue 15, items 2 and 8)
# ------------------------------------------------------------------------------------------------

SAME_NBYTES = 1 << 20


def same_file_setup(tmp_path):
    """A 1 MiB file of random bytes (usable as a device), a symbolic and a hard link to it"""
    path = tmp_path / "x.bin"
    data = os.urandom(SAME_NBYTES)
    path.write_bytes(data)
    os.symlink(path, tmp_path / "x-sym.bin")
    os.link(path, tmp_path / "x-hard.bin")
    return path, data


@pytest.mark.parametrize(
    "name,args,labels",
    [
        ("xnvme_file", ["copy-sync", "{x}", "{x}"], ["data-input", "data-output"]),
        ("xnvme_file", ["copy-async", "{x}", "{sym}"], ["data-input", "data-output"]),
        ("xnvme_file", ["copy-sync", "{hard}", "./x.bin"], ["data-input", "data-output"]),
        ("xnvme_file", ["copy-async", "{sym}", "{hard}", "--qdepth", 4],
         ["data-input", "data-output"]),
        ("xdd", ["sync", "--data-input", "{x}", "--data-output", "{x}", "--data-nbytes", 4096],
         ["--data-input", "--data-output"]),
        ("xdd", ["async", "--data-input", "{hard}", "--data-output", "{sym}",
                 "--data-nbytes", 4096], ["--data-input", "--data-output"]),
        ("lblk", ["read", "{x}", "--slba", 0, "--nlb", 7, "--data-output", "{sym}"],
         ["uri", "--data-output"]),
        ("lblk", ["write", "{x}", "--slba", 8, "--nlb", 7, "--data-input", "{hard}"],
         ["uri", "--data-input"]),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{tmp}/o.bin",
                  "--meta-output", "o.bin"], ["--data-output", "--meta-output"]),
        ("xnvme", ["pioc", "{x}", "--opcode", "0x2", "--cdw12", "0x7", "--data-nbytes", 4096,
                   "--data-output", "{hard}"], ["uri", "--data-output"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1", "--data-nbytes", 4096,
                   "--data-input", "{x}", "--data-output", "{sym}"],
         ["--data-input", "--data-output"]),
        ("xnvme", ["idfy-ns", "{sym}", "--data-output", "{x}"], ["uri", "--data-output"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_same_file_refused(tmp_path, name, args, labels):
    """Input and output (or two outputs) naming one file, through any path: refused untouched"""
    path, data = same_file_setup(tmp_path)
    fmt = {"x": path, "sym": tmp_path / "x-sym.bin", "hard": tmp_path / "x-hard.bin",
           "tmp": tmp_path}
    args = [str(a).format(**fmt) for a in args]
    proc = run(name, *args, cwd=tmp_path, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert "same file" in err, err
    for label in labels:
        assert f"{label} " in err, f"{name} {args}: {label!r} not named in {err!r}"
    assert proc.stdout.decode().strip() == "", "refused before doing anything"
    assert path.read_bytes() == data, "the file was modified"
    assert not (tmp_path / "o.bin").exists()


def test_same_file_distinct_files_still_work(tmp_path):
    """Different files with equal content, and a copy through a symlink to another file, run"""
    path, data = same_file_setup(tmp_path)
    other = tmp_path / "other.bin"
    os.symlink(tmp_path / "target.bin", tmp_path / "dangling.bin")
    run_yaml("xnvme_file", "copy-sync", path, other)
    assert other.read_bytes() == data
    run_yaml("xnvme_file", "copy-sync", other, tmp_path / "dangling.bin")
    assert (tmp_path / "target.bin").read_bytes() == data
    # /dev/null twice is not "the same file": character devices are not compared
    proc, _ = run_yaml("xnvme", "padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1",
                       "--data-nbytes", 4096, "--data-input", "/dev/null", "--data-output",
                       "/dev/null", expect=(EXIT_FAILED,))
    err = proc.stderr.decode()  # /dev/null holds no input: the failure is the short read
    assert "same file" not in err and "--data-input /dev/null: ended after 0 bytes" in err, err
    run_yaml("xnvme", "idfy-ns", RAMDISK, "--data-output", "/dev/null")


@pytest.mark.parametrize(
    "name,args,needles",
    [
        # the input holds fewer bytes than --offset + --data-nbytes (here: none at all)
        ("xdd", ["sync", "--data-input", "{empty}", "--data-output", "{out}", "--data-nbytes",
                 10], ["--data-input", "holds 0 bytes"]),
        ("xdd", ["async", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes",
                 10, "--offset", 18446744073709551000], ["--data-input", "--offset"]),
        ("xdd", ["sync", "--data-input", RAMDISK, "--data-output", "{out}", "--data-nbytes",
                 10, "--offset", 18446744073709551000], ["--data-input", "--offset"]),
        # O_DIRECT with a transfer size no device takes: fails after the output is open
        ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes",
                 4000, "--direct", "--iosize", 1000], ["--data-input"]),
        ("xnvme_file", ["dump-sync", "{out}", "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", "data-output", "bytes in all"]),
        ("xnvme_file", ["dump-async-iovec", "{out}", "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", "data-output"]),
        ("xnvme_file", ["write-read", "{out}", 18446744073709551615],
         ["data-nbytes 18446744073709551615", "uri"]),
        # the namespace does not exist: the command fails after --data-output was created
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--nsid", "0x2", "--data-output",
                  "{out}"], ["Read"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_failed_run_leaves_no_output(tmp_path, name, args, needles):
    src = tmp_path / "src.bin"
    data = os.urandom(100000)
    src.write_bytes(data)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    out = tmp_path / "out.bin"
    args = [str(a).format(src=src, empty=empty, out=out) for a in args]
    proc = run(name, *args, cwd=tmp_path, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    for needle in needles:
        assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"
    assert not out.exists(), f"{name} {args}: the failed run left {out} behind"
    assert src.read_bytes() == data and empty.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.bin", "src.bin"]


def test_failed_run_keeps_existing_output(tmp_path):
    """A file that existed before keeps its bytes, whether the run fails before or after it
    began writing (the full matrix is in test_tools_safety.py)"""
    keep = tmp_path / "keep.bin"
    old = b"precious" * 1000
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(100000))

    runs = [
        # refused before anything is written
        ("xnvme_file", "dump-sync", keep, "--data-nbytes", 18446744073709551615),
        ("xnvme_file", "dump-async", keep, "--data-nbytes", 18446744073709551615),
        ("xdd", "sync", "--data-input", src, "--data-output", keep, "--data-nbytes", 4000,
         "--direct", "--iosize", 1000),
        # the command fails after the output was opened
        ("lblk", "read", RAMDISK, "--slba", 0, "--nlb", 7, "--nsid", "0x2", "--data-output",
         keep),
    ]
    for args in runs:
        keep.write_bytes(old)
        proc = run(*args, timeout=60)
        err = proc.stderr.decode()
        assert proc.returncode == EXIT_FAILED, f"{args}: {proc.returncode}\n{err}"
        assert len([l for l in err.splitlines() if l.startswith("# ERR")]) == 1, err
        assert keep.read_bytes() == old, f"{args}: the output was changed"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.bin", "src.bin"]


# Every tool taking a data input: a FIFO without a writer must fail at once, naming it
FIFO_CASES = [
    ("xnvme", ["pioc", RAMDISK, "--opcode", "0x1", "--data-nbytes", 4096,
               "--data-input", "{fifo}"], "--data-input"),
    ("xnvme", ["padc", RAMDISK, "--opcode", "0x9", "--data-nbytes", 4096,
               "--data-input", "{fifo}"], "--data-input"),
    ("xnvme", ["feature-set", RAMDISK, "--fid", "0x3", "--feat", "0x0", "--data-nbytes", 4096,
               "--data-input", "{fifo}"], "--data-input"),
    ("lblk", ["write", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"],
     "--data-input"),
    ("lblk", ["compare", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"],
     "--data-input"),
    ("zoned", ["append", ZONED, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"],
     "--data-input"),
    ("xdd", ["sync", "--data-input", "{fifo}", "--data-output", "{tmp}/o.bin",
             "--data-nbytes", 4096], "--data-input"),
    ("xdd", ["async", "--data-input", RAMDISK, "--data-output", "{fifo}",
             "--data-nbytes", 4096], "--data-output"),
    ("xnvme_file", ["load-sync", "{fifo}"], "data-input"),
    ("xnvme_file", ["copy-async", "{fifo}", "{tmp}/o.bin"], "data-input"),
    ("xnvme_file", ["dump-sync", "{fifo}", "--data-nbytes", 4096], "data-output"),
    ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{fifo}"],
     "--data-output"),
]


@pytest.mark.parametrize(
    "name,args,label", FIFO_CASES,
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_fifo_without_peer_fails_promptly(tmp_path, name, args, label):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    args = [str(a).format(fifo=fifo, tmp=tmp_path) for a in args]
    try:
        proc = run(name, *args, cwd=tmp_path, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name} {args}: hangs on a FIFO without a peer")
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert f"{label} {fifo}" in err, f"{name} {args}: {label} {fifo} not named in {err!r}"
    assert not (tmp_path / "o.bin").exists()


@pytest.mark.parametrize(
    "name,args",
    [
        ("lblk", ["write", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"]),
        ("xnvme", ["pioc", RAMDISK, "--opcode", "0x1", "--cdw12", "0x7", "--data-nbytes",
                   4096, "--data-input", "{fifo}"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_fifo_with_writer_is_read(tmp_path, name, args):
    """A FIFO that has a writer is read as a stream (the data waits in the pipe)"""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR)  # a writer (and reader) that never blocks
    try:
        os.write(fd, os.urandom(4096))
        args = [str(a).format(fifo=fifo) for a in args]
        run_yaml(name, *args)
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    "name,args,needles",
    [
        ("xnvme_file", ["dump-sync", RAMDISK, "--data-nbytes", 2 * RAMDISK_NBYTES],
         [f"--data-nbytes {2 * RAMDISK_NBYTES}", f"holds {RAMDISK_NBYTES} bytes"]),
        ("xnvme_file", ["dump-async", RAMDISK, "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", f"holds {RAMDISK_NBYTES} bytes"]),
        ("xnvme_file", ["write-read", RAMDISK, RAMDISK_NBYTES + 1],
         [f"data-nbytes {RAMDISK_NBYTES + 1}", f"holds {RAMDISK_NBYTES} bytes"]),
        ("xnvme", ["pioc", RAMDISK, "--opcode", "0x2", "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", "4294967295"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--meta-nbytes", 1 << 40],
         [f"--meta-nbytes {1 << 40}", "4294967295"]),
        ("xnvme", ["feature-get", RAMDISK, "--fid", "0x7", "--data-nbytes", 1 << 33],
         [f"--data-nbytes {1 << 33}", "4294967295"]),
        # a file is a namespace of its size, for writes too: refused before any command
        ("lblk", ["write", "{dev}", "--slba", "0xffffffffffffff00", "--nlb", 0],
         ["--slba 0xffffffffffffff00", "beyond the end of the namespace"]),
        ("lblk", ["write-zeros", "{dev}", "--slba", "0x7fffffffffffff", "--nlb", 7],
         ["--slba 0x7fffffffffffff", "beyond the end of the namespace"]),
        ("lblk", ["write", "{dev}", "--slba", "0x1f000", "--nlb", "0x1fff"],
         ["--slba 0x1f000", "beyond the end of the namespace (131072 LBAs)"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_sizes_beyond_the_target_refused(tmp_path, devfile, name, args, needles):
    before = devfile.stat().st_size
    args = [str(a).format(dev=devfile) for a in args]
    proc = run(name, *args, cwd=tmp_path, timeout=30)
    err = proc.stderr.decode()
    # the option limits (4294967295) are usage errors, what the target holds a failure
    status = EXIT_ARGS if "4294967295" in needles else EXIT_FAILED
    assert proc.returncode == status, f"{name} {args}: exit {proc.returncode}\n{err}"
    for needle in needles:
        assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"
    assert devfile.stat().st_size == before
    assert [p.name for p in tmp_path.iterdir()] == [devfile.name], "an output was left"
