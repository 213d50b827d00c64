"""Names the generated module of PyPI's xnvme 0.7.5 package had besides the C API, for scripts
written against it. Hand-written; xnvme.ctypes_bindings.api re-exports them.
"""
import ctypes
import sys
from typing import Union


class CharPointer(ctypes.c_char_p):
    """A NUL-terminated string for a ``const char *`` argument or struct member (a c_char_p,
    so struct xnvme_opts' string members take it), also indexable like ``POINTER(c_char)``."""

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return ctypes.cast(self, ctypes.POINTER(ctypes.c_char))[index]


def char_pointer_cast(string: Union[str, bytes], encoding: str = "utf-8") -> CharPointer:
    """`string` (str, encoded with `encoding`, or bytes) as a ``char *`` for the C API, e.g.
    ``xnvme_dev_open(char_pointer_cast("1GB"), None)`` or ``opts.be =
    char_pointer_cast("ramdisk")``. The result owns its bytes: keep it (or the struct it was
    stored in) alive while the C side may read them."""
    if isinstance(string, str):
        string = string.encode(encoding)
    return CharPointer(bytes(string))


# Importing the bindings fails (ImportError naming where libxnvme was looked for) when the
# library cannot be loaded, so once they are imported it is loaded.
is_loaded = True


def guard_unloadable() -> None:
    """Exits with a message when the library is not loaded. It always is once the bindings are
    imported (their import raises ImportError otherwise), so this returns."""
    if not is_loaded:  # pragma: no cover
        print("xnvme: libxnvme is not loaded; set XNVME_LIBRARY_PATH to the library")
        sys.exit(1)
