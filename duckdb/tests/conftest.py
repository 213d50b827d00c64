# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the nvmefs extension tests.

The extension comes from $NVMEFS_EXTENSION, or is built by duckdb/build.sh (with the libxnvme
install prefix in $XNVME_PREFIX, or the library built from this tree when unset).

Ramdisk devices ("<N>GB") live in process memory: a ramdisk keeps its data while the test
process runs (across connections, DETACH and ATTACH), never across processes. Cross-process
tests (crash recovery) use a regular file as the device.

Device mode (the QEMU guest suite runs the same tests on NVMe namespaces): with
$NVMEFS_TEST_DEVICE set (e.g. /dev/ng0n1), that device replaces both the shared ramdisk and the
per-test device file, and $NVMEFS_TEST_OPTS (e.g. "ASYNC 'io_uring_cmd'") is added to every
secret naming it. Tests that damage bytes on purpose go through raw_open(): for a generic char
device that is the block device of the same namespace ($NVMEFS_TEST_RAW), with the page cache
dropped around each use so the passthrough path and Python agree on what is on the media. The
device may be any URI the library opens, e.g. an NVMe/TCP target "127.0.0.1:4420?subnqn=NQN",
with $NVMEFS_TEST_RAW naming the block device the target exports. A device with no kernel view
(a PCI function bound to vfio-pci) takes NVMEFS_TEST_RAW=none: the tests that damage or read
raw bytes skip, and the per-test erase runs the command in $NVMEFS_TEST_ERASE instead.
"""
import os
import pathlib
import shlex
import stat
import subprocess
import sys
import textwrap

import duckdb
import pytest

HERE = pathlib.Path(__file__).resolve().parent
DUCKDB_DIR = HERE.parent

# The ramdisk every test shares (always opened with the same secret settings: a device can only
# be open with one configuration per process)
DEVICE = os.environ.get("NVMEFS_TEST_DEVICE", "")
DEVICE_OPTS = os.environ.get("NVMEFS_TEST_OPTS", "")
RAW_DEVICE = os.environ.get("NVMEFS_TEST_RAW", "") or DEVICE
RAMDISK = DEVICE or "1GB"
NO_RAW = RAW_DEVICE == "none"


def dev_params(path):
    """The secret parameters that open `path`: in device mode the test device's options too"""
    params = f"DEVICE '{path}'"
    if DEVICE and path == DEVICE and DEVICE_OPTS:
        params += ", " + DEVICE_OPTS
    return params


def device_nbytes(path):
    """Capacity of a ramdisk URI ("<N>GB"), a file or a device"""
    if not path.startswith("/") and path != DEVICE:
        return int(path.split("GB")[0]) << 30
    with raw_open(path, "rb") as f:
        return f.seek(0, os.SEEK_END)


class raw_open:
    """open() for bytes of a device file, a block device or (through $NVMEFS_TEST_RAW) the
    namespace behind a generic char device, bypassing stale page-cache contents"""

    def __init__(self, path, mode):
        if DEVICE and path == DEVICE and NO_RAW:
            pytest.skip("no raw view of the test device (NVMEFS_TEST_RAW=none)")
        self.path = RAW_DEVICE if DEVICE and path == DEVICE else path
        self.mode = mode
        self.block = stat.S_ISBLK(os.stat(self.path).st_mode)

    def _drop(self, f):
        if self.block:
            f.flush()
            os.fsync(f.fileno())
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)

    def __enter__(self):
        self.f = open(self.path, self.mode)
        self._drop(self.f)
        return self.f

    def __exit__(self, *exc):
        self._drop(self.f)
        self.f.close()
        return False


def read_raw(path, nbytes):
    with raw_open(path, "rb") as f:
        return f.read(nbytes)


def _build_extension():
    path = os.environ.get("NVMEFS_EXTENSION")
    if path:
        return path
    cmd = ["bash", str(DUCKDB_DIR / "build.sh")]
    if os.environ.get("XNVME_PREFIX"):
        cmd.append(os.environ["XNVME_PREFIX"])
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def extension():
    return _build_extension()


def connect(extension, secret=None, **config):
    """A new DuckDB instance with nvmefs loaded and, given `secret` (the inside of the secret's
    parameter list after TYPE), an nvmefs secret named nv."""
    cfg = {"allow_unsigned_extensions": True}
    cfg.update(config)
    con = duckdb.connect(config=cfg)
    con.execute(f"LOAD '{extension}'")
    if secret:
        if DEVICE and secret == f"DEVICE '{DEVICE}'":
            secret = dev_params(DEVICE)
        con.execute(f"CREATE SECRET nv (TYPE nvmefs, {secret})")
    return con


def info(con, kind=None):
    rows = con.execute("SELECT * FROM nvmefs_info()").fetchall()
    cols = [d[0] for d in con.description]
    rows = [dict(zip(cols, r)) for r in rows]
    return [r for r in rows if kind is None or r["kind"] == kind]


def region(con, name):
    return next(r for r in info(con, "region") if r["name"] == name)


def detail_value(row, key):
    for part in row["detail"].split():
        if part.startswith(key + "="):
            return part.split("=", 1)[1]
    return None


@pytest.fixture
def ramdisk(extension):
    """A connection on the shared ramdisk, freshly formatted"""
    con = connect(extension, f"DEVICE '{RAMDISK}'")
    con.execute("SELECT * FROM nvmefs_format(force := true)")
    yield con
    con.close()


@pytest.fixture
def device_file(tmp_path):
    """A 512 MiB file to use as a device (sparse); in device mode the test device, its
    superblock and metadata area erased"""
    if DEVICE and NO_RAW:
        subprocess.run(shlex.split(os.environ["NVMEFS_TEST_ERASE"]), check=True, stdout=subprocess.DEVNULL)
        return DEVICE
    if DEVICE:
        with raw_open(DEVICE, "r+b") as f:
            f.write(bytes(8 << 20))
        return DEVICE
    path = tmp_path / "device.img"
    with open(path, "wb") as f:
        f.truncate(512 << 20)
    return str(path)


def run_child(extension, code, check=True):
    """Runs `code` in a fresh Python process with `connect` and the extension available"""
    prelude = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(HERE)!r})
        from conftest import connect, info
        EXT = {extension!r}
    """)
    proc = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc
