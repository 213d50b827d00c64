"""The tools show the reason of a failed open that the library chose (tests/test_open_errors.c):
the error of the backend owning the URI's form, in the one '# ERR' line with its errno, never
ENOSYS of a backend that does not take such URIs.

The build directory comes from XNVME_BUILD_DIR (default: build/ in the source tree).
"""
import os
import subprocess

import pytest

BUILD_DIR = os.environ.get(
    "XNVME_BUILD_DIR",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"),
)


def err_line(tool, *args, cwd=None):
    """The one '# ERR' line of a failed run (exit status 1)"""
    proc = subprocess.run([os.path.join(BUILD_DIR, "tools", tool)] + list(args), cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, timeout=60, check=False)
    lines = [l for l in proc.stderr.decode().splitlines() if l.startswith("# ERR")]
    assert proc.returncode == 1, (proc.returncode, proc.stderr.decode())
    assert len(lines) == 1, proc.stderr.decode()
    return lines[0]


@pytest.mark.parametrize("mech", [["--async", "io_uring"], ["--async", "libaio"],
                                  ["--async", "posix"], ["--async", "thrpool"],
                                  ["--async", "emu"], ["--async", "nil"], ["--sync", "psync"],
                                  ["--admin", "file_as_ns"]])
def test_missing_path_with_a_mechanism(tmp_path, mech):
    line = err_line("lblk", "read", "./nope.img", "--slba", "0", "--nlb", "0", *mech,
                    cwd=tmp_path)
    assert "linux: ''./nope.img'' does not exist" in line and "errno: -2" in line, line
    assert "has no" not in line and "ramdisk" not in line, line


def test_missing_char_device_with_io_uring_cmd():
    line = err_line("xnvme", "info", "/dev/ng9n1", "--async", "io_uring_cmd")
    assert "linux: ''/dev/ng9n1'' does not exist" in line and "errno: -2" in line, line


def test_named_backend_says_what_it_takes(tmp_path):
    line = err_line("xnvme", "info", "data.img", "--be", "ramdisk", cwd=tmp_path)
    assert "ramdisk: ''data.img'' is not a ramdisk URI: it takes <N>GB" in line, line


@pytest.mark.parametrize("uri,owner", [("1GB", "ramdisk"), ("0000:ff:1f.7", "vfio")])
def test_mechanism_the_owner_lacks(uri, owner):
    line = err_line("xnvme", "info", uri, "--async", "io_uring")
    assert f"{owner}: has no async mechanism named ''io_uring''" in line, line
    assert "errno: -38" in line and "linux" not in line, line
