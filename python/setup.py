"""Builds the optional compiled fast path xnvme._fastq (metadata is in pyproject.toml).

The extension needs only Python.h and a C compiler: it includes no libxnvme header and does
not link libxnvme (the Python side hands it the function addresses of the loaded library).
When it cannot be built, the install still succeeds and xnvme.Queue uses pure ctypes.
Set XNVME_PY_NO_EXT=1 to skip building it.
"""
import os

from setuptools import Extension, setup

ext = []
if not os.environ.get("XNVME_PY_NO_EXT"):
    ext.append(Extension("xnvme._fastq", ["xnvme/_fastq.c"], optional=True,
                         extra_compile_args=["-Wall", "-Wextra", "-O2"]))

setup(ext_modules=ext)
