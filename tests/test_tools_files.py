# SPDX-License-Identifier: BSD-3-Clause
"""
Tests of the command-line tools on regular files, where data persists between invocations, of
the progress lines (on a terminal only), and of the generated man pages and bash completions.
"""
import os
import pty
import re
import shutil
import subprocess

import pytest
import yaml

from tools_util import (
    COMPLETIONS_DIR, COVERED, EXIT_FAILED, EXIT_OK, FILE_NBYTES, LBA_NBYTES, OK_OR_UNSUPPORTED,
    RAMDISK, TOOLS, TOOLS_DIR, FifoFeeder, ctrlr_str, devfile, pattern, run, run_yaml, tool_path,
)


# ------------------------------------------------------------------------------------------------
# Regular files: data persists between invocations
# ------------------------------------------------------------------------------------------------


def test_info_file(devfile):
    _, doc = run_yaml("xnvme", "info", devfile)
    assert doc["xnvme_dev"]["xnvme_ident"]["dtype"] == 0x4
    assert doc["xnvme_dev"]["xnvme_geo"]["tbytes"] == FILE_NBYTES


@pytest.mark.parametrize(
    "args",
    [
        ["idfy-ctrlr"], ["idfy-ns"], ["idfy", "--cns", "0x1"], ["idfy-cs"],
        ["log-health"], ["log-erri", "--limit", 1], ["log", "--lid", "0x2", "--data-nbytes", 512],
        ["feature-get", "--fid", "0x7"], ["feature-set", "--fid", "0x6", "--feat", "0x0"],
        ["show-regs"], ["dsm", "--nsid", "0x1", "--slba", 0, "--llb", 1],
        ["pioc", "--opcode", "0x02", "--data-nbytes", LBA_NBYTES],
        ["padc", "--opcode", "0x06", "--cdw10", "0x1", "--data-nbytes", 4096],
        ["format"], ["sanitize", "--sanact", "0x1"], ["subsystem-reset"], ["ctrlr-reset"],
        ["ns-rescan"],
    ],
    ids=lambda a: a[0],
)
def test_xnvme_on_file(devfile, args):
    run_yaml("xnvme", args[0], devfile, *args[1:], expect=OK_OR_UNSUPPORTED)


def test_idfy_ctrlr_file(devfile):
    _, doc = run_yaml("xnvme", "idfy-ctrlr", devfile)
    assert ctrlr_str(doc["xnvme_spec_idfy_ctrlr"]["mn"])


@pytest.mark.parametrize(
    "args",
    [
        ["dir-send", "--endir", "0x1"], ["dir-receive"],
        ["write-zeros", "--slba", 0, "--nlb", 7], ["write-uncor", "--slba", 0, "--nlb", 7],
        ["compare", "--slba", 0, "--nlb", 7], ["scopy", "--slba", 0, "--nlb", 7, "--sdlba", 8],
    ],
    ids=lambda a: a[0],
)
def test_lblk_on_file(devfile, args):
    run_yaml("lblk", args[0], devfile, *args[1:], expect=OK_OR_UNSUPPORTED)


def test_lblk_write_read_file(tmp_path, devfile):
    """lblk write from a data file, then lblk read into another: the bytes must match"""
    nbytes = 3 * 1024 * 1024 + 7 * LBA_NBYTES  # several MDTS-sized commands
    slba = 5
    data = os.urandom(nbytes)
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    nlb = nbytes // LBA_NBYTES - 1

    _, doc = run_yaml("lblk", "write", devfile, "--slba", hex(slba), "--nlb", nlb,
                      "--data-input", src)
    assert doc["xnvme_lblk_io"]["ncmds"] > 1

    out = tmp_path / "out.bin"
    _, doc = run_yaml("lblk", "read", devfile, "--slba", hex(slba), "--nlb", nlb,
                      "--data-output", out)
    assert doc["xnvme_lblk_io"]["nbytes"] == nbytes
    assert out.read_bytes() == data

    raw = devfile.read_bytes()
    assert raw[slba * LBA_NBYTES : slba * LBA_NBYTES + nbytes] == data
    assert raw[: slba * LBA_NBYTES] == bytes(slba * LBA_NBYTES)


def test_lblk_write_pattern_file(tmp_path, devfile):
    """Without --data-input the written data is the documented pattern"""
    nlb = 4100
    run_yaml("lblk", "write", devfile, "--slba", "0x3", "--nlb", nlb)
    out = tmp_path / "out.bin"
    run_yaml("lblk", "read", devfile, "--slba", "0x3", "--nlb", nlb, "--data-output", out)
    assert out.read_bytes() == pattern((nlb + 1) * LBA_NBYTES)


@pytest.mark.parametrize("sub,extra", [("sync", []), ("async", ["--qdepth", 4])])
def test_xdd_file_copy(tmp_path, sub, extra):
    data = os.urandom(5 * 1024 * 1024 + 123)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    dst = tmp_path / "dst.bin"
    _, doc = run_yaml("xdd", sub, "--data-input", src, "--data-output", dst,
                      "--data-nbytes", len(data), "--iosize", 65536, *extra)
    assert "wall-clock" in doc
    assert dst.read_bytes() == data

    # a range from an offset lands at the same offset
    dst2 = tmp_path / "dst2.bin"
    run_yaml("xdd", sub, "--data-input", src, "--data-output", dst2, "--data-nbytes", 4096,
             "--offset", 8192, *extra)
    assert dst2.read_bytes()[8192:] == data[8192 : 8192 + 4096]


@pytest.mark.parametrize(
    "sub,extra",
    [
        ("dump-sync", []),
        ("dump-sync-iovec", ["--vec-cnt", 3, "--iosize", 4097]),
        ("dump-async", ["--qdepth", 5, "--iosize", 7000]),
        ("dump-async-iovec", ["--vec-cnt", 7]),
    ],
)
def test_xnvme_file_dump(tmp_path, sub, extra):
    nbytes = 1000003
    out = tmp_path / "dump.bin"
    _, doc = run_yaml("xnvme_file", sub, out, "--data-nbytes", nbytes, *extra)
    assert "wall-clock" in doc
    assert out.read_bytes() == pattern(nbytes)


@pytest.mark.parametrize("sub,extra", [("load-sync", []), ("load-async", ["--qdepth", 4])])
def test_xnvme_file_load(tmp_path, sub, extra):
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(777777))
    _, doc = run_yaml("xnvme_file", sub, src, *extra)
    assert doc["wall-clock"]["mib"] >= 0


@pytest.mark.parametrize(
    "sub,extra", [("copy-sync", []), ("copy-async", ["--qdepth", 32, "--iosize", 4096])]
)
def test_xnvme_file_copy(tmp_path, sub, extra):
    data = os.urandom(1000003)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    dst = tmp_path / "dst.bin"
    dst.write_bytes(b"x" * 2000000)  # longer: the copy truncates
    run_yaml("xnvme_file", sub, src, dst, *extra)
    assert dst.read_bytes() == data


def test_write_read_file(tmp_path):
    path = tmp_path / "wr.bin"
    _, doc = run_yaml("xnvme_file", "write-read", path, 1000000)
    assert doc["xnvme_file_write_read"]["ndiff"] == 0
    assert path.read_bytes() == pattern(1000000)


# ------------------------------------------------------------------------------------------------
# Progress lines: on a terminal only
# ------------------------------------------------------------------------------------------------


def run_with_tty_stderr(name, *args, cwd=None):
    """Runs a tool with stderr on a pseudo-terminal; returns (exit status, stdout, stderr)"""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [tool_path(name)] + [str(a) for a in args],
            cwd=cwd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
        )
    finally:
        os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the tool has exited and closed the terminal
            break
        if not chunk:
            break
        err += chunk
    out = proc.stdout.read()
    proc.wait(timeout=300)
    os.close(master)
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize(
    "name,args",
    [
        ("xdd", ["async", "--data-input", RAMDISK, "--data-output", "{tmp}/o.bin",
                 "--data-nbytes", 64 << 20]),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", (64 << 20) // LBA_NBYTES - 1]),
        ("xnvme_file", ["dump-sync", "{tmp}/d.bin", "--data-nbytes", 64 << 20]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_progress_only_on_terminal(tmp_path, name, args):
    if not os.path.exists(tool_path(name)):
        pytest.skip(f"{name} is not built")
    args = [str(a).format(tmp=tmp_path) for a in args]

    status, out, err = run_with_tty_stderr(name, *args, cwd=tmp_path)
    assert status == EXIT_OK, err
    assert "\r" in err and "MiB/s" in err and "100%" in err, repr(err)
    assert "\r" not in out
    yaml.safe_load(out)

    proc = run(name, *args, cwd=tmp_path)
    assert proc.returncode == EXIT_OK
    assert proc.stderr == b"", proc.stderr


def test_error_line_below_the_progress_line(tmp_path):
    """A transfer failing after its progress line was drawn (its input ends at 4 of 64 MiB):
    the error line starts a line of its own, and the progress line is not drawn again"""
    dev = tmp_path / "dev.img"
    with open(dev, "wb") as f:
        f.truncate(64 << 20)
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    with FifoFeeder(fifo, os.urandom(4 << 20)):
        status, _, err = run_with_tty_stderr(
            "lblk", "write", dev, "--slba", 0, "--nlb", (64 << 20) // LBA_NBYTES - 1,
            "--data-input", fifo, cwd=tmp_path)
    assert status == EXIT_FAILED, err
    before, sep, after = err.partition("# ERR:")
    assert sep and "MiB/s" in before, repr(err)  # a progress line, then the error
    assert before.endswith("\n"), f"the error line continues the progress line: {err!r}"
    assert "MiB/s" not in after and after.count("# ERR:") == 0, repr(err)


# ------------------------------------------------------------------------------------------------
# Generated man pages and bash completion
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOOLS)
def test_man_page(name):
    page = os.path.join(TOOLS_DIR, name + ".1")
    assert os.path.exists(page), f"{page} was not generated"
    if not shutil.which("man"):
        pytest.skip("man is not installed")
    env = dict(os.environ, MANWIDTH="100", LC_ALL="C.UTF-8", MANPAGER="cat", PAGER="cat")
    proc = subprocess.run(
        ["man", "--warnings", "-l", page],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60, check=False,
    )
    text = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr.decode().strip() == "", f"man warnings: {proc.stderr.decode()}"
    for sub in COVERED[name]:
        assert sub in text, f"{sub} missing from the man page of {name}"
    assert "EXIT STATUS" in text


def completion_file(name):
    path = os.path.join(COMPLETIONS_DIR, name)
    assert os.path.exists(path), f"{path} was not generated"
    return path


def complete(name, words, cwd):
    """Sources the completion of `name` in bash and completes `words` (the last is current)"""
    path = completion_file(name)
    with open(path, encoding="utf-8") as f:
        match = re.search(r"^complete -F (\S+) ", f.read(), re.MULTILINE)
    assert match, f"{path} registers no completion function"
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in [name] + words)
    script = (
        f"source '{path}' || exit 3\n"
        f"COMP_WORDS=({quoted})\n"
        f"COMP_CWORD={len(words)}\n"
        f"COMP_LINE=\"${{COMP_WORDS[*]}}\"\n"
        f"COMP_POINT=${{#COMP_LINE}}\n"
        f"{match.group(1)}\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script], cwd=cwd,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return set(proc.stdout.decode().split())


@pytest.mark.parametrize("name", TOOLS)
def test_bash_completion_subcommands(tmp_path, name):
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")
    assert COVERED[name] <= complete(name, [""], tmp_path)


def test_bash_completion_details(tmp_path):
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")
    assert complete("xnvme", ["idfy"], tmp_path) == {"idfy", "idfy-ns", "idfy-ctrlr", "idfy-cs"}
    assert complete("xnvme", ["log-h"], tmp_path) == {"log-health"}

    opts = complete("lblk", ["read", RAMDISK, "--"], tmp_path)
    assert {"--slba", "--nlb", "--data-output", "--nsid", "--help"} <= opts
    assert "--data-input" not in opts

    opts = complete("xdd", ["async", "--q"], tmp_path)
    assert opts == {"--qdepth"}

    opts = complete("kvs", ["store", RAMDISK, "--"], tmp_path)
    assert {"--key", "--value", "--only-add", "--only-update", "--compress"} <= opts
    assert complete("zoned", ["mgmt-"], tmp_path) == {
        "mgmt-open", "mgmt-close", "mgmt-finish", "mgmt-reset"
    }
    assert complete("xnvme", ["log-fdp"], tmp_path) == {
        "log-fdp-config", "log-fdp-stats", "log-fdp-events"
    }
    opts = complete("lblk", ["write-read-pi", RAMDISK, "--"], tmp_path)
    assert {"--pract", "--prchk", "--apptag", "--apptag_mask"} <= opts

    (tmp_path / "afile.bin").write_bytes(b"")
    assert "afile.bin" in complete("lblk", ["read", RAMDISK, "--data-output", "af"], tmp_path)
    assert complete("lblk", ["read", RAMDISK, "--slba", ""], tmp_path) == set()
