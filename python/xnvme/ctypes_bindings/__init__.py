"""The whole C API of libxnvme through ctypes, laid out as in PyPI's xnvme 0.7.5 package.

* :mod:`xnvme.ctypes_bindings.api`: the generated module (python/gen_bindings.py): every
  struct, union, enum, constant and exported function of include/libxnvme*.h under its C name,
  the headers' static inline functions as Python, and ``char_pointer_cast``, ``is_loaded`` and
  ``guard_unloadable``;
* this package re-exports all of it, so ``import xnvme.ctypes_bindings as xnvme`` and
  ``import xnvme.ctypes_bindings.api as xnvme`` give the same names;
* :mod:`xnvme.ctypes_bindings.capi`: the same functions, for ``from xnvme.ctypes_bindings
  import capi`` and ``capi.xnvme_dev_open(...)``.

Importing any of them loads libxnvme (see xnvme._library for where it is looked for) and raises
ImportError naming every place tried when it cannot be loaded.
"""
from . import api
from .api import *  # noqa: F401,F403
from .api import FUNCTIONS, STRUCTS, VARIABLES, _lib  # noqa: F401  (xnvme.device uses _lib)
from . import capi  # noqa: E402
