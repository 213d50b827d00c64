"""Python versions of the static inline functions of the headers (not in the shared library).

Hand-written; ctypes_bindings re-exports them so scripts calling them work unchanged.
"""
import ctypes
from typing import Any


def _struct(ctx: Any) -> Any:
    """A struct xnvme_cmd_ctx from a pointer (POINTER(...)), byref() or the struct itself."""
    if isinstance(ctx, ctypes._Pointer):  # pylint: disable=protected-access
        return ctx.contents
    if type(ctx).__name__ == "CArgObject":  # byref(ctx)
        return ctx._obj  # pylint: disable=protected-access
    return ctx


def xnvme_cmd_ctx_set_cb(ctx: Any, cb: Any, cb_arg: Any) -> None:
    """Sets the completion callback and argument of one context."""
    c = _struct(ctx)
    a = getattr(c, "async")
    a.cb = cb
    a.cb_arg = cb_arg


def xnvme_cmd_ctx_cpl_status(ctx: Any) -> int:
    """Non-zero iff the completion carries an error status."""
    st = _struct(ctx).cpl.status
    return int(bool(st.sc or st.sct))


def xnvme_is_pow2(val: int) -> bool:
    return bool(val) and not val & (val - 1)


def XNVME_ILOG2(x: int) -> int:  # pylint: disable=invalid-name
    return x.bit_length() - 1 if x else 0


def XNVME_MIN(x: int, y: int) -> int:  # pylint: disable=invalid-name
    return min(x, y)


def XNVME_MAX(x: int, y: int) -> int:  # pylint: disable=invalid-name
    return max(x, y)


XNVME_MIN_U64 = XNVME_MIN_S64 = XNVME_MIN

__all__ = ["xnvme_cmd_ctx_set_cb", "xnvme_cmd_ctx_cpl_status", "xnvme_is_pow2", "XNVME_ILOG2",
           "XNVME_MIN", "XNVME_MAX", "XNVME_MIN_U64", "XNVME_MIN_S64"]
