"""Python bindings of xNVMe: one API over NVMe devices, block devices, files and the ramdisk.

    import xnvme
    with xnvme.open("1GB", async_="thrpool") as dev:
        dev.write(0, b"x" * dev.geo.lba_nbytes)
        buf = dev.read(0, 1)                 # an xnvme.Buffer (buffer protocol, no copy)

The whole C API is in :mod:`xnvme.ctypes_bindings` (also :mod:`xnvme.capi`).
"""
from . import ctypes_bindings
from . import ctypes_bindings as capi
from ._library import load_library as _load_library
from .device import (Buffer, Completion, Device, Geometry, Ident, IdentifyController,
                     IdentifyNamespace, LbaFormat, Queue, Zone, open)
from .errors import SCT_NAMES, XnvmeError, status_name

__all__ = [
    "Buffer", "Completion", "Device", "Geometry", "Ident", "IdentifyController",
    "IdentifyNamespace", "LbaFormat", "Queue", "Zone", "XnvmeError", "SCT_NAMES", "capi",
    "ctypes_bindings", "library_version", "open", "status_name",
]

__version__ = "0.7.5"


def library_version() -> str:
    """Version of the loaded libxnvme, e.g. '0.7.5'."""
    c = ctypes_bindings
    return "%d.%d.%d" % (c.xnvme_ver_major(), c.xnvme_ver_minor(), c.xnvme_ver_patch())
