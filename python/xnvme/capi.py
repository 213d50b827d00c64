"""Alias of :mod:`xnvme.ctypes_bindings` (the complete low-level C API)."""
from .ctypes_bindings import *  # noqa: F401,F403
