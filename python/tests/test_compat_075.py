"""Scripts written for PyPI's xnvme 0.7.5 package run unchanged: its three import forms

    import xnvme.ctypes_bindings.api as xnvme
    from xnvme.ctypes_bindings.api import char_pointer_cast
    from xnvme.ctypes_bindings import capi

and the behaviours its own python/ tests check that need no hardware, here on the ramdisk and a
file: the library loads and answers, devices open with no options, default options and options
set through char_pointer_cast, identifiers and pointers are what they say, buffers, enumeration
with a Python callback, synchronous I/O read back, and the key-value commands with their
NVMe statuses.
"""
import ctypes
import errno
import os
import struct
from ctypes import CFUNCTYPE, POINTER, byref, c_int, c_void_p, pointer

import pytest

import xnvme.ctypes_bindings as bindings
import xnvme.ctypes_bindings.api as xnvme
from xnvme.ctypes_bindings import capi
from xnvme.ctypes_bindings.api import char_pointer_cast

KEY_NBYTES = 16  # the largest key of the NVMe KV command set


def test_three_import_forms_are_one_api():
    assert xnvme.xnvme_dev_open is capi.xnvme_dev_open is bindings.xnvme_dev_open
    assert xnvme.char_pointer_cast is char_pointer_cast is capi.char_pointer_cast
    assert xnvme.xnvme_opts is bindings.xnvme_opts is xnvme.struct_xnvme_opts
    assert capi.XNVME_PR_DEF == xnvme.XNVME_PR_DEF == 0


def test_loaded_and_callable():
    assert xnvme.is_loaded and bindings.is_loaded
    xnvme.guard_unloadable()  # returns: the library is loaded
    assert xnvme.xnvme_enumerate
    assert capi.xnvme_libconf_pr(xnvme.XNVME_PR_DEF) > 0


def test_version():
    assert xnvme.xnvme_ver_major() == 0
    assert xnvme.xnvme_ver_minor() >= 6
    assert xnvme.xnvme_ver_patch() >= 0
    assert xnvme.xnvme_ver_pr(xnvme.XNVME_PR_DEF) > 0


def test_char_pointer_cast():
    for value in ("1GB", b"1GB"):
        ptr = char_pointer_cast(value)
        assert ptr.value == b"1GB" and ptr[0] == b"1" and ptr[3] == b"\x00"
    assert char_pointer_cast("pä", "latin-1").value == b"p\xe4"


def test_dev_open_without_options():
    dev = xnvme.xnvme_dev_open(char_pointer_cast("1GB"), None)
    assert dev
    assert xnvme.xnvme_dev_get_opts(dev).contents.be == b"ramdisk"
    xnvme.xnvme_dev_close(dev)


def test_dev_open_with_default_options():
    opts = xnvme.xnvme_opts()
    xnvme.xnvme_opts_set_defaults(byref(opts))
    dev = xnvme.xnvme_dev_open(char_pointer_cast("1GB"), byref(opts))
    assert dev
    xnvme.xnvme_dev_close(dev)


def dev_from_params(uri, nsid=1, **be_opts):
    """Options set the way the 0.7.5 tests set them: char_pointer_cast strings, nsid"""
    opts = xnvme.xnvme_opts()
    xnvme.xnvme_opts_set_defaults(ctypes.byref(opts))
    for key, val in be_opts.items():
        setattr(opts, key, char_pointer_cast(val))
    opts.nsid = nsid
    return xnvme.xnvme_dev_open(char_pointer_cast(uri), ctypes.byref(opts))


@pytest.mark.parametrize("be_opts", [
    {"be": "ramdisk"},
    {"be": "ramdisk", "admin": "ramdisk", "sync": "ramdisk", "async": "thrpool"},
    {"be": "ramdisk", "async": "emu", "mem": "posix"},
])
def test_dev_open_with_options(be_opts):
    dev = dev_from_params("1GB", **be_opts)
    assert dev, xnvme.xnvme_last_error()
    used = xnvme.xnvme_dev_get_opts(dev).contents
    for key, val in be_opts.items():
        assert getattr(used, key) == val.encode()
    xnvme.xnvme_dev_close(dev)


def test_dev_open_failure_is_null():
    assert not dev_from_params("1GB", be="ramdisk", sync="no-such")
    assert ctypes.get_errno() in (0, errno.ENOSYS)  # ctypes keeps errno only when asked
    assert b"has no sync mechanism named 'no-such'" in xnvme.xnvme_last_error()


def test_ident_nsid():
    opts = xnvme.xnvme_opts()
    xnvme.xnvme_opts_set_defaults(byref(opts))
    opts.nsid = 1
    dev = xnvme.xnvme_dev_open(char_pointer_cast("1GB"), byref(opts))
    assert dev
    ident = xnvme.xnvme_dev_get_ident(dev)
    assert ident.contents.nsid == 1 and ident.contents.uri == b"1GB"
    xnvme.xnvme_dev_close(dev)


def pointer_equal(ptr1, ptr2):
    return ctypes.cast(ptr1, c_void_p).value == ctypes.cast(ptr2, c_void_p).value


def test_pointers():
    dev = xnvme.xnvme_dev_open(char_pointer_cast("1GB"), None)
    assert dev
    ctx = xnvme.xnvme_cmd_ctx_from_dev(dev)
    assert pointer_equal(pointer(ctx), pointer(ctx))
    assert pointer_equal(ctx.dev, ctx.dev)  # a stable pointer, not made at each access
    assert pointer_equal(ctx.dev, dev)      # the device the context was made from
    xnvme.xnvme_dev_close(dev)


def test_buffers():
    dev = dev_from_params("1GB", be="ramdisk")
    assert dev
    for i in range(5):
        buf = xnvme.xnvme_buf_alloc(dev, 1 << i)
        assert buf
        ctypes.memset(buf, 0xAB, 1 << i)
        xnvme.xnvme_buf_free(dev, buf)
        vbuf = xnvme.xnvme_buf_virt_alloc(0x1000, 1 << i)
        assert vbuf and vbuf % 0x1000 == 0
        xnvme.xnvme_buf_virt_free(vbuf)
    xnvme.xnvme_dev_close(dev)


def test_enumerate_with_a_python_callback():
    seen = []

    @CFUNCTYPE(c_int, POINTER(xnvme.xnvme_dev), c_void_p)
    def callback(dev, cb_args):
        seen.append(xnvme.xnvme_dev_get_ident(dev).contents.uri)
        return xnvme.XNVME_ENUMERATE_DEV_CLOSE

    # the devices found depend on the machine (none here is fine); the call and callback work
    assert xnvme.xnvme_enumerate(None, None, callback, None) == 0
    assert all(isinstance(uri, bytes) for uri in seen)


def buf_and_view(dev, nbytes):
    """A device buffer and a writable view of its bytes, zeroed"""
    buf = xnvme.xnvme_buf_alloc(dev, nbytes)
    assert buf
    view = memoryview((ctypes.c_uint8 * nbytes).from_address(buf)).cast("B")
    view[:] = bytes(nbytes)
    return buf, view


@pytest.mark.parametrize("uri,sync", [("1GB", "ramdisk"), ("file", "psync")])
def test_io_sync(tmp_path, uri, sync):
    if uri == "file":
        uri = str(tmp_path / "dev.img")
        with open(uri, "wb") as f:
            f.truncate(1 << 20)
    dev = dev_from_params(uri, sync=sync)
    assert dev, xnvme.xnvme_last_error()
    nsid = xnvme.xnvme_dev_get_nsid(dev)
    lba_nbytes = xnvme.xnvme_dev_get_geo(dev).contents.lba_nbytes
    ctx = xnvme.xnvme_cmd_ctx_from_dev(dev)
    data, data_view = buf_and_view(dev, lba_nbytes)
    data_view[:] = bytes([42]) * lba_nbytes
    err = xnvme.xnvme_nvm_write(byref(ctx), nsid, 0x0, 0, data, None)
    assert not err and not xnvme.xnvme_cmd_ctx_cpl_status(pointer(ctx))
    buf, buf_view = buf_and_view(dev, lba_nbytes)
    err = xnvme.xnvme_nvm_read(byref(ctx), nsid, 0x0, 0, buf, None)
    assert not err and not xnvme.xnvme_cmd_ctx_cpl_status(pointer(ctx))
    assert bytes(buf_view) == bytes(data_view) == bytes([42]) * lba_nbytes
    xnvme.xnvme_buf_free(dev, buf)
    xnvme.xnvme_buf_free(dev, data)
    xnvme.xnvme_dev_close(dev)


class KVError(Exception):
    def __init__(self, err, sc, sct):
        super().__init__(os.strerror(abs(err)) if err else "status sct=%d sc=0x%x" % (sct, sc))
        self.err, self.sc, self.sct = abs(err), sc, sct


def kv(dev, fn, *args):
    """One KV command the way the 0.7.5 tests issue them; raises KVError on any error"""
    ctx = xnvme.xnvme_cmd_ctx_from_dev(dev)
    err = fn(byref(ctx), xnvme.xnvme_dev_get_nsid(dev), *args)
    if err or xnvme.xnvme_cmd_ctx_cpl_status(pointer(ctx)):
        raise KVError(err, ctx.cpl.status.sc, ctx.cpl.status.sct)
    return ctx


@pytest.fixture
def kvdev():
    dev = dev_from_params("1GB?csi=kv", be="ramdisk")
    assert dev, xnvme.xnvme_last_error()
    vbuf, vview = buf_and_view(dev, 4096)
    kbuf, kview = buf_and_view(dev, KEY_NBYTES)

    def put(key, value, opts=0):
        kview[:len(key)] = key
        vview[:len(value)] = value
        kv(dev, xnvme.xnvme_kvs_store, kbuf, len(key), vbuf, len(value), opts)

    def get(key, nbytes):
        kview[:len(key)] = key
        vview[:] = bytes(len(vview))
        kv(dev, xnvme.xnvme_kvs_retrieve, kbuf, len(key), vbuf, nbytes, 0)
        return bytes(vview[:nbytes])

    def exist(key):
        kview[:len(key)] = key
        kv(dev, xnvme.xnvme_kvs_exist, kbuf, len(key))

    def delete(key):
        kview[:len(key)] = key
        kv(dev, xnvme.xnvme_kvs_delete, kbuf, len(key))

    def keys():
        kview[:] = bytes(KEY_NBYTES)  # from the first key
        vview[:] = bytes(len(vview))
        kv(dev, xnvme.xnvme_kvs_list, kbuf, 0, vbuf, len(vview))
        data = bytes(vview)
        count, off, out = struct.unpack_from("<I", data)[0], 4, []
        for _ in range(count):
            klen = struct.unpack_from("<H", data, off)[0]
            assert 0 < klen <= KEY_NBYTES
            out.append(data[off + 2:off + 2 + klen])
            off += (2 + klen + 3) // 4 * 4  # each key ends on a 4-byte boundary
        return out

    yield put, get, exist, delete, keys
    xnvme.xnvme_buf_free(dev, vbuf)
    xnvme.xnvme_buf_free(dev, kbuf)
    xnvme.xnvme_dev_close(dev)


def test_kv_store_retrieve(kvdev):
    put, get, _, _, _ = kvdev
    put(b"marco", b"polo")
    assert get(b"marco", 4) == b"polo"


# The KV command set's status codes are generic command status values (SCT 0) in the NVMe KV
# Command Set specification; the ramdisk answers with those
def test_kv_delete_exist(kvdev):
    put, _, exist, delete, _ = kvdev
    put(b"deleteme", b"x" * 128)
    exist(b"deleteme")
    delete(b"deleteme")
    with pytest.raises(KVError) as info:
        exist(b"deleteme")
    assert info.value.sct == xnvme.XNVME_STATUS_CODE_TYPE_GENERIC
    assert info.value.sc == xnvme.XNVME_SPEC_KV_SC_KEY_NOT_EXISTS


def test_kv_store_options(kvdev):
    put, get, _, delete, _ = kvdev
    put(b"compressme", b"x" * 128, xnvme.XNVME_KVS_STORE_OPT_COMPRESS)
    assert get(b"compressme", 128) == b"x" * 128

    put(b"Ipreexist", b"a" * 128)
    with pytest.raises(KVError) as info:
        put(b"Ipreexist", b"b" * 128, xnvme.XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS)
    assert (info.value.sct, info.value.sc) == (xnvme.XNVME_STATUS_CODE_TYPE_GENERIC,
                                               xnvme.XNVME_SPEC_KV_SC_KEY_EXISTS)
    assert get(b"Ipreexist", 128) == b"a" * 128
    put(b"Ipreexist", b"c" * 128, xnvme.XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS)
    assert get(b"Ipreexist", 128) == b"c" * 128
    delete(b"Ipreexist")
    with pytest.raises(KVError) as info:
        put(b"Ipreexist", b"d" * 128, xnvme.XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS)
    assert (info.value.sct, info.value.sc) == (xnvme.XNVME_STATUS_CODE_TYPE_GENERIC,
                                               xnvme.XNVME_SPEC_KV_SC_KEY_NOT_EXISTS)
    put(b"Ipreexist", b"e" * 128, xnvme.XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS)


def test_kv_many_keys_and_list(kvdev):
    put, get, _, _, keys = kvdev
    for n in range(128):
        put(b"marco_%d" % n, b"polo_%d" % n)
    for n in range(128):
        assert get(b"marco_%d" % n, len(b"polo_%d" % n)) == b"polo_%d" % n
    assert set(keys()) >= {b"marco_%d" % n for n in range(128)}
