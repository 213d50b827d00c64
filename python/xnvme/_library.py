"""Locating and loading libxnvme.

Order: the XNVME_LIBRARY_PATH environment variable (a library file, or a directory holding
libxnvme.so), then pkg-config (``pkg-config --variable=libdir xnvme``), then the system
loader (ctypes.util.find_library / plain ``libxnvme.so.0``).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import subprocess
from typing import Any, List, Optional

_LIB: Optional[ctypes.CDLL] = None
LIBRARY_PATH: Optional[str] = None  # the file that was loaded, for `python -m xnvme info`


def _candidates() -> List[str]:
    out: List[str] = []
    env = os.environ.get("XNVME_LIBRARY_PATH")
    if env:
        for entry in env.split(os.pathsep):
            if os.path.isdir(entry):
                out += [os.path.join(entry, n) for n in ("libxnvme.so", "libxnvme.so.0")]
            elif entry:
                out.append(entry)
        return out  # explicit: nothing else is tried
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "xnvme"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    check=True, timeout=10).stdout.decode().strip()
        except (subprocess.SubprocessError, OSError):
            libdir = ""
        if libdir:
            out += [os.path.join(libdir, n) for n in ("libxnvme.so", "libxnvme.so.0")]
    found = ctypes.util.find_library("xnvme")
    if found:
        out.append(found)
    out += ["libxnvme.so.0", "libxnvme.so"]
    return out


def load_library() -> ctypes.CDLL:
    """Load libxnvme once; raise ImportError naming every place tried."""
    global _LIB, LIBRARY_PATH  # pylint: disable=global-statement
    if _LIB is not None:
        return _LIB
    errors = []
    for cand in _candidates():
        if os.sep in cand and not os.path.exists(cand):
            errors.append("%s: no such file" % cand)
            continue
        try:
            _LIB = ctypes.CDLL(cand, use_errno=True)
        except OSError as exc:
            errors.append(str(exc))
            continue
        LIBRARY_PATH = cand
        return _LIB
    raise ImportError(
        "xnvme: cannot load libxnvme (tried XNVME_LIBRARY_PATH, pkg-config, the system "
        "loader): %s. Install the C library, or set XNVME_LIBRARY_PATH to libxnvme.so or "
        "the directory holding it." % "; ".join(errors))


def _missing(name: str):
    def stub(*_args: Any, **_kw: Any) -> Any:
        raise NotImplementedError("%s is declared in the headers but not exported by the "
                                  "loaded libxnvme (%s)" % (name, LIBRARY_PATH))
    stub.__name__ = name
    stub.missing = True  # type: ignore[attr-defined]
    return stub


def bind(lib: ctypes.CDLL, name: str, restype: Any, argtypes: List[Any],
         variadic: bool = False) -> Any:
    """Return the C function `name` with its prototype set (a raising stub if absent)."""
    try:
        func = getattr(lib, name)
    except AttributeError:
        return _missing(name)
    func.restype = restype
    func.argtypes = argtypes
    func.variadic = variadic
    return func
