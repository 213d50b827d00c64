"""Fixtures of the xnvme Python suite.

Targets: the ramdisk ("1GB"), a regular file in a temporary directory, and, when
XNVME_PY_TEST_URI is set (e.g. /dev/ng0n1 in the QEMU guest), that device. Each target is
tried with every asynchronous mechanism the build offers for it; a mechanism the kernel or
the device does not support is skipped with the library's reason.
"""
import errno
import os

import pytest

import xnvme

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("XNVME_SOURCE_ROOT", os.path.dirname(os.path.dirname(HERE)))

RAMDISK_ASYNC = ["thrpool", "emu", "nil"]
FILE_ASYNC = ["emu", "thrpool", "posix", "nil", "io_uring", "libaio"]
ENV_URI = os.environ.get("XNVME_PY_TEST_URI")
if os.environ.get("XNVME_PY_TEST_ASYNC"):
    ENV_ASYNC = os.environ["XNVME_PY_TEST_ASYNC"].split(",")
elif ENV_URI and os.path.basename(ENV_URI).startswith("ng"):
    # a generic char device: the passthrough mechanisms (docs/guest-matrix.md)
    ENV_ASYNC = ["io_uring_cmd", "thrpool", "emu", "nil"]
else:
    ENV_ASYNC = ["io_uring", "libaio", "posix", "thrpool", "emu", "nil"]

# errnos with which an open reports "this mechanism is not available here"
UNAVAILABLE = {errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL, errno.ENXIO,
               errno.EPERM, errno.ENODEV, errno.ENOTTY}

FILE_NBYTES = 8 << 20


def _targets():
    out = [("ramdisk", m) for m in RAMDISK_ASYNC] + [("file", m) for m in FILE_ASYNC]
    if ENV_URI:
        out += [("env", m) for m in ENV_ASYNC]
    return out


def target_ids():
    return ["%s-%s" % t for t in _targets()]


@pytest.fixture(scope="session")
def source_root():
    return SOURCE_ROOT


@pytest.fixture(scope="session")
def include_dir():
    return os.environ.get("XNVME_INCLUDE", os.path.join(SOURCE_ROOT, "include"))


@pytest.fixture
def tmpfile(tmp_path):
    path = tmp_path / "xnvme-py.bin"
    with open(path, "wb") as f:
        f.truncate(FILE_NBYTES)
    return str(path)


def open_target(kind, mech, tmpfile):
    if kind == "ramdisk":
        uri, opts = "1GB", {}
    elif kind == "file":
        uri, opts = tmpfile, {"rdwr": True}
    else:
        uri, opts = ENV_URI, {}
    try:
        return xnvme.open(uri, async_=mech, **opts)
    except xnvme.XnvmeError as exc:
        if exc.errno in UNAVAILABLE:
            pytest.skip("%s with async=%s unavailable: %s" % (uri, mech, exc))
        raise


@pytest.fixture(params=_targets(), ids=target_ids())
def target(request, tmpfile):
    """(device, mechanism name) for every target x asynchronous mechanism."""
    kind, mech = request.param
    dev = open_target(kind, mech, tmpfile)
    yield dev, mech
    dev.close()


@pytest.fixture(params=["ramdisk", "file"] + (["env"] if ENV_URI else []))
def dev(request, tmpfile):
    """One device per target with its default mechanisms."""
    kind = request.param
    if kind == "ramdisk":
        d = xnvme.open("1GB")
    elif kind == "file":
        d = xnvme.open(tmpfile, rdwr=True)
    else:
        d = xnvme.open(ENV_URI)
    yield d
    d.close()
