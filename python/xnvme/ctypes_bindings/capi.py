"""The C API's functions (and every other name of :mod:`xnvme.ctypes_bindings.api`), for
scripts written as ``from xnvme.ctypes_bindings import capi; capi.xnvme_dev_open(...)``."""
from .api import *  # noqa: F401,F403
