"""A script in the style of the PyPI xnvme 0.7.5 package's xnvme.ctypes_bindings users.

Run unchanged by test_bindings.py: the C API only, through ctypes, sync and async.
"""
import ctypes
from ctypes import POINTER, byref

from xnvme.ctypes_bindings import *  # noqa: F401,F403
import xnvme.ctypes_bindings as capi

opts = xnvme_opts_default()
dev = xnvme_dev_open(b"1GB", byref(opts))
assert dev, "xnvme_dev_open failed"
geo = xnvme_dev_get_geo(dev)
nsid = xnvme_dev_get_nsid(dev)
nbytes = geo.contents.lba_nbytes

buf = xnvme_buf_alloc(dev, nbytes)
ctypes.memset(buf, 0xA5, nbytes)
ctx = xnvme_cmd_ctx_from_dev(dev)
err = xnvme_nvm_write(byref(ctx), nsid, 0x0, 0, buf, None)
assert err == 0, err
ctypes.memset(buf, 0, nbytes)
ctx = xnvme_cmd_ctx_from_dev(dev)
err = xnvme_nvm_read(byref(ctx), nsid, 0x0, 0, buf, None)
assert err == 0 and ctypes.string_at(buf, 4) == b"\xa5" * 4

# an NVMe error: read beyond the namespace
ctx = xnvme_cmd_ctx_from_dev(dev)
err = xnvme_nvm_read(byref(ctx), nsid, geo.contents.tbytes // nbytes, 0, buf, None)
assert err != 0 and ctx.cpl.status.sc == 0x80 and ctx.cpl.status.sct == 0
assert xnvme_cmd_ctx_cpl_status(byref(ctx)) and xnvme_cmd_ctx_cpl_status(ctx)

# asynchronous, with a C callback built from a Python function
queue = POINTER(xnvme_queue)()
assert xnvme_queue_init(dev, 16, 0, byref(queue)) == 0
completed = []


def callback(cctx, opaque):
    completed.append(cctx.contents.cpl.status.sc)
    xnvme_queue_put_cmd_ctx(getattr(cctx.contents, "async").queue, cctx)


cb = xnvme_queue_cb(callback)
assert xnvme_queue_set_cb(queue, cb, None) == 0
for i in range(8):
    actx = xnvme_queue_get_cmd_ctx(queue)
    xnvme_cmd_ctx_set_cb(actx, cb, None)          # a static inline of the headers
    assert xnvme_nvm_read(actx, nsid, i, 0, buf, None) == 0
xnvme_queue_drain(queue)
assert completed == [0] * 8, completed
xnvme_queue_term(queue)

# enums and constants under their C names
assert XNVME_SPEC_NVM_OPC_READ == 0x02
assert capi.xnvme_spec_nvm_opc__enumvalues[0x01] == "XNVME_SPEC_NVM_OPC_WRITE"
assert ctypes.sizeof(xnvme_spec_cmd) == 64 and ctypes.sizeof(xnvme_cmd_ctx) == 128
xnvme_buf_free(dev, buf)
xnvme_dev_close(dev)
print("legacy script: ok")
