"""The idiomatic layer: Device, Buffer, Queue, typed geometry and identify data."""
from __future__ import annotations

import asyncio
import ctypes
import errno as _errno
import os
import threading
import time
import types
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import ctypes_bindings as C
from .errors import XnvmeError

BytesLike = Union[bytes, bytearray, memoryview, "Buffer"]


def _fast(name: str, restype: Any, *argtypes: Any) -> Any:
    """A private handle of C function `name` taking plain addresses (ints) for pointers:
    the hot paths avoid building ctypes pointer objects per command."""
    func = C._lib[name]  # pylint: disable=protected-access
    func.restype = restype
    func.argtypes = argtypes
    return func


_VP = ctypes.c_void_p
_nvm_read = _fast("xnvme_nvm_read", ctypes.c_int, _VP, ctypes.c_uint32, ctypes.c_uint64,
                  ctypes.c_uint16, _VP, _VP)
_nvm_write = _fast("xnvme_nvm_write", ctypes.c_int, _VP, ctypes.c_uint32, ctypes.c_uint64,
                   ctypes.c_uint16, _VP, _VP)
_get_cmd_ctx = _fast("xnvme_queue_get_cmd_ctx", _VP, _VP)
_put_cmd_ctx = _fast("xnvme_queue_put_cmd_ctx", ctypes.c_int, _VP, _VP)
_queue_poke = _fast("xnvme_queue_poke", ctypes.c_int, _VP, ctypes.c_uint32)
_CB_TYPE = ctypes.CFUNCTYPE(None, _VP, _VP)  # ABI of xnvme_queue_cb, with address args
_CTX = C.struct_xnvme_cmd_ctx
_CTX_SIZE = ctypes.sizeof(_CTX)
_CPL_OFF = _CTX.cpl.offset
_STATUS_OFF = _CPL_OFF + C.struct_xnvme_spec_cpl.status.offset
_RESULT_OFF = _CPL_OFF + C.struct_xnvme_spec_cpl.result.offset
_U16 = ctypes.c_uint16
_U32 = ctypes.c_uint32
_sizeof = ctypes.sizeof
_addressof = ctypes.addressof


def _load_fastq() -> Any:
    """The compiled fast path (xnvme._fastq), or None: not built, or XNVME_PY_NO_FASTQ set."""
    if os.environ.get("XNVME_PY_NO_FASTQ"):
        return None
    try:
        from . import _fastq  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return _fastq


_FASTQ = _load_fastq()
_sync_io: Any = None
if _FASTQ is not None:
    _FASTQ.init_sync(ctypes.cast(_nvm_read, ctypes.c_void_p).value,
                     ctypes.cast(_nvm_write, ctypes.c_void_p).value, _CTX_SIZE, _STATUS_OFF,
                     _RESULT_OFF)
    _sync_io = _FASTQ.sync_io


def _fn_addr(func: Any) -> int:
    return ctypes.cast(func, ctypes.c_void_p).value


def _fastq_args() -> tuple:
    """Function addresses and context offsets handed to xnvme._fastq.FastQueue."""
    return (_fn_addr(_nvm_read), _fn_addr(_nvm_write), _fn_addr(_get_cmd_ctx),
            _fn_addr(_put_cmd_ctx), _fn_addr(_queue_poke),
            _fn_addr(C._lib["xnvme_queue_set_cb"]),  # pylint: disable=protected-access
            _STATUS_OFF, _RESULT_OFF)


def fast_path() -> bool:
    """True when new Queues use the compiled fast path (xnvme._fastq)."""
    return _FASTQ is not None


def _check(ret: int, what: str) -> int:
    if ret < 0:
        raise XnvmeError(-ret, what)
    return ret


def _cpl_error(ctx: Any, ret: int, what: str) -> XnvmeError:
    st = ctx.cpl.status
    return XnvmeError(-ret if ret < 0 else _errno.EIO, what, sct=st.sct, sc=st.sc,
                      result=ctx.cpl.result)


# ---------------------------------------------------------------------------------------------
# Buffer
# ---------------------------------------------------------------------------------------------
class Buffer:
    """A DMA-capable buffer of a device (xnvme_buf_alloc), exposing the buffer protocol.

    ``memoryview(buf)``, ``bytes(buf)``, ``numpy.frombuffer(buf, dtype)`` and slicing see the
    device memory itself, without a copy (a Buffer is a ctypes array of unsigned bytes).
    Create with ``dev.buffer(nbytes)`` or get one from ``dev.read()``.

    ``close()`` (or leaving a ``with`` block) makes the Buffer unusable through this API; the
    memory goes back to the device's allocator with xnvme_buf_free once no view (memoryview,
    numpy array) refers to it any more, so a view can never see freed memory, and always
    before the device handle itself is closed.
    """

    _dev: "Device"
    _addr: int
    _closed: bool

    __slots__ = ()

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        return ctypes.sizeof(self)

    @property
    def address(self) -> int:
        """Virtual address (for the low-level module)."""
        self._check()
        return ctypes.addressof(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def _check(self) -> None:
        if self._closed:
            raise ValueError("operation on a closed xnvme.Buffer")

    @property
    def view(self) -> memoryview:
        """A writable memoryview of format 'B' over the buffer (no copy)."""
        self._check()
        return memoryview(self).cast("B")

    def tobytes(self) -> bytes:
        """A copy of the contents."""
        self._check()
        return ctypes.string_at(ctypes.addressof(self), ctypes.sizeof(self))

    def fill(self, data: Union[bytes, int], offset: int = 0) -> None:
        """Copy `data` in at `offset`, or set every byte to the int `data`."""
        self._check()
        if isinstance(data, int):
            ctypes.memset(ctypes.addressof(self), data, ctypes.sizeof(self))
            return
        mv = memoryview(data).cast("B")
        if offset + len(mv) > ctypes.sizeof(self):
            raise ValueError("data does not fit the buffer")
        memoryview(self).cast("B")[offset:offset + len(mv)] = mv

    def close(self) -> None:
        """Mark closed; the memory is freed as soon as nothing refers to it."""
        self._closed = True

    def __enter__(self) -> "Buffer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<xnvme.Buffer %d bytes%s>" % (ctypes.sizeof(self),
                                               " closed" if self._closed else "")


_BUFFER_TYPES: Dict[int, type] = {}


def _buffer_type(nbytes: int) -> type:
    typ = _BUFFER_TYPES.get(nbytes)
    if typ is None:
        typ = type("Buffer", (Buffer, ctypes.c_ubyte * nbytes), {"__slots__": ()})
        _BUFFER_TYPES[nbytes] = typ
    return typ


def _free_buffer(dev: "Device", addr: int) -> None:
    dev._buffer_freed(addr)  # pylint: disable=protected-access


# ---------------------------------------------------------------------------------------------
# Typed data
# ---------------------------------------------------------------------------------------------
def _struct_dict(obj: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for fdesc in obj._fields_:
        name = fdesc[0]
        if name.startswith("_anon"):
            out.update(_struct_dict(getattr(obj, name)))
            continue
        val = getattr(obj, name)
        if isinstance(val, bytes):
            out[name] = val
        elif isinstance(val, ctypes.Array) and val._type_ in (ctypes.c_byte, ctypes.c_ubyte,
                                                              ctypes.c_char):
            out[name] = bytes(val)
        elif isinstance(val, ctypes.Array):
            out[name] = list(val) if not isinstance(val[0], ctypes.Structure) else [
                _struct_dict(v) for v in val]
        elif isinstance(val, (ctypes.Structure, ctypes.Union)):
            out[name] = _struct_dict(val)
        else:
            out[name] = val
    return out


@dataclass(frozen=True)
class Geometry:
    """struct xnvme_geo as a typed object."""
    type: int
    npugrp: int
    npunit: int
    nzone: int
    nsect: int
    nbytes: int
    nbytes_oob: int
    tbytes: int
    ssw: int
    mdts_nbytes: int
    lba_nbytes: int
    lba_extended: bool
    pi_type: int
    pi_loc: int
    pi_format: int

    @property
    def nlbas(self) -> int:
        """Number of LBAs (of lba_nbytes data bytes each) of the namespace."""
        return self.tbytes >> self.ssw

    @property
    def type_name(self) -> str:
        return C.xnvme_geo_type__enumvalues.get(self.type, str(self.type))


@dataclass(frozen=True)
class Ident:
    """struct xnvme_ident: what the device is."""
    uri: str
    subnqn: str
    dtype: int
    nsid: int
    csi: int


@dataclass(frozen=True)
class LbaFormat:
    ms: int
    ds: int
    rp: int

    @property
    def nbytes(self) -> int:
        return 1 << self.ds


def _s(raw: bytes) -> str:
    return bytes(raw).split(b"\0", 1)[0].decode("ascii", "replace").strip()


@dataclass(frozen=True)
class IdentifyController:
    """Identify Controller data (selected fields typed; all of them in ``raw``)."""
    vid: int
    ssvid: int
    sn: str
    mn: str
    fr: str
    mdts: int
    cntlid: int
    ver: int
    nn: int
    raw: Any = field(repr=False, compare=False)  # struct xnvme_spec_idfy_ctrlr copy

    @property
    def version(self) -> str:
        """VER as 'major.minor.tertiary'."""
        return "%d.%d.%d" % (self.ver >> 16, (self.ver >> 8) & 0xFF, self.ver & 0xFF)

    def asdict(self) -> Dict[str, Any]:
        return _struct_dict(self.raw)


@dataclass(frozen=True)
class IdentifyNamespace:
    """Identify Namespace data (selected fields typed; all of them in ``raw``)."""
    nsze: int
    ncap: int
    nuse: int
    nlbaf: int
    flbas: int
    lbaf: List[LbaFormat]
    raw: Any = field(repr=False, compare=False)  # struct xnvme_spec_idfy_ns copy

    @property
    def lba_format(self) -> LbaFormat:
        """The format in use (FLBAS)."""
        return self.lbaf[(self.flbas & 0xF) | ((self.flbas >> 5) & 0x3) << 4]

    @property
    def extended(self) -> bool:
        """FLBAS bit 4: metadata interleaved with the data."""
        return bool(self.flbas & 0x10)

    def asdict(self) -> Dict[str, Any]:
        return _struct_dict(self.raw)


@dataclass(frozen=True)
class Zone:
    """A zone descriptor of a zone report."""
    zslba: int
    zcap: int
    wp: int
    zs: int
    zt: int

    @property
    def state(self) -> str:
        return C.xnvme_spec_znd_state__enumvalues.get(self.zs, str(self.zs)).replace(
            "XNVME_SPEC_ZND_STATE_", "")


class Completion:
    """What a Queue callback receives: ok, sct, sc, result (completion dword 0), the buffer
    of the command, error (an XnvmeError when not ok) and the submitter's tag."""

    __slots__ = ("ok", "sct", "sc", "result", "buffer", "error", "tag")

    def __init__(self, ok: bool, sct: int, sc: int, result: int, buffer: Optional[Buffer],
                 error: Optional[XnvmeError], tag: Any = None) -> None:
        self.ok = ok
        self.sct = sct
        self.sc = sc
        self.result = result
        self.buffer = buffer
        self.error = error
        self.tag = tag

    def __repr__(self) -> str:
        return "<xnvme.Completion ok=%s sct=0x%x sc=0x%02x tag=%r>" % (self.ok, self.sct,
                                                                       self.sc, self.tag)


# ---------------------------------------------------------------------------------------------
# Device
# ---------------------------------------------------------------------------------------------
_OPT_STRINGS = ("be", "dev", "mem", "sync", "async", "admin")


class Device:
    """An open xNVMe device: ``xnvme.open(uri, **options)`` or ``Device(uri, ...)``.

    Options are those of struct xnvme_opts: ``be``, ``mem``, ``sync``, ``async_`` (or
    ``**{"async": ...}``), ``admin`` (mechanism names), ``nsid``, and the flags ``rdonly``,
    ``wronly``, ``rdwr``, ``create``, ``truncate``, ``direct``, ``create_mode``,
    ``poll_io``, ``poll_sq``.
    """

    def __init__(self, uri: Union[str, bytes, os.PathLike], **options: Any) -> None:
        if "async_" in options:
            options["async"] = options.pop("async_")
        self._opts = C.xnvme_opts_default()
        self._keep = []  # bytes referenced by the opts struct
        for key, val in options.items():
            if val is None:
                continue
            if key in _OPT_STRINGS:
                raw = val.encode() if isinstance(val, str) else bytes(val)
                self._keep.append(raw)
                setattr(self._opts, key, raw)
            elif hasattr(self._opts, key):
                setattr(self._opts, key, int(val))
            else:
                raise TypeError("unknown device option %r" % key)
        path = os.fsencode(uri)
        self.uri = os.fsdecode(path)
        ctypes.set_errno(0)
        handle = C.xnvme_dev_open(path, ctypes.byref(self._opts))
        if not handle:
            err = ctypes.get_errno() or _errno.EINVAL
            why = C.xnvme_last_error()  # the library's reason: backend, what, what is accepted
            raise XnvmeError(err, "xnvme_dev_open(%r)%s" % (
                self.uri, ": " + why.decode(errors="replace") if why else ""))
        self._handle: Any = handle
        self._closing = False
        try:
            self._setup(handle)
        except BaseException:
            C.xnvme_dev_close(handle)
            self._handle = None
            self._closing = True
            raise

    def _setup(self, handle: Any) -> None:
        self._buffers: Dict[int, Any] = {}  # address -> weakref.finalize
        self._lock = threading.Lock()
        self._aio: Dict[Any, "_AsyncDriver"] = {}
        self._queues: "weakref.WeakSet[Queue]" = weakref.WeakSet()
        self.geo = self._geometry()
        self._lba_nbytes = self.geo.lba_nbytes
        self._ctx_template = bytes(C.xnvme_cmd_ctx_from_dev(handle))
        self.nsid: int = C.xnvme_dev_get_nsid(handle)
        self.csi: int = C.xnvme_dev_get_csi(handle)
        idp = C.xnvme_dev_get_ident(handle).contents
        self.ident = Ident(uri=_s(idp.uri), subnqn=_s(idp.subnqn), dtype=idp.dtype,
                           nsid=idp.nsid, csi=idp.csi)

    # -- lifetime ------------------------------------------------------------------------
    @property
    def handle(self) -> Any:
        """The struct xnvme_dev pointer, for the low-level module."""
        if self._closing:
            raise ValueError("operation on a closed xnvme.Device")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Close the device: its queues (and asyncio queues) are drained and terminated and
        no further command can be issued.

        The C handle is released once the last Buffer memory of the device has been freed
        (immediately when no Buffer or view of one is alive), so buffers are always freed
        before their device and stay readable until then.
        """
        if self._closing:
            return
        for drv in list(self._aio.values()):
            drv.close()
        self._aio.clear()
        for q in list(self._queues):
            q.close()
        self._closing = True
        with self._lock:
            pending = bool(self._buffers)
        if not pending:
            self._release()

    def _release(self) -> None:
        if self._handle is not None:
            C.xnvme_dev_close(self._handle)
            self._handle = None

    def _buffer_freed(self, addr: int) -> None:
        C.xnvme_buf_free(self._handle, addr)
        with self._lock:
            self._buffers.pop(addr, None)
            last = self._closing and not self._buffers
        if last:
            self._release()

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if not self._closing and getattr(self, "_handle", None):
                self.close()
        except Exception:  # pylint: disable=broad-except
            pass

    def __repr__(self) -> str:
        return "<xnvme.Device %r nsid=%d%s>" % (self.uri, getattr(self, "nsid", 0),
                                                 " closed" if self._closing else "")

    # -- data --------------------------------------------------------------------------------
    def _geometry(self) -> Geometry:
        g = C.xnvme_dev_get_geo(self._handle).contents
        return Geometry(type=g.type, npugrp=g.npugrp, npunit=g.npunit, nzone=g.nzone,
                        nsect=g.nsect, nbytes=g.nbytes, nbytes_oob=g.nbytes_oob,
                        tbytes=g.tbytes, ssw=g.ssw, mdts_nbytes=g.mdts_nbytes,
                        lba_nbytes=g.lba_nbytes, lba_extended=bool(g.lba_extended),
                        pi_type=g.pi_type, pi_loc=g.pi_loc, pi_format=g.pi_format)

    def buffer(self, nbytes: int) -> Buffer:
        """Allocate a DMA buffer of `nbytes` from the device's memory mechanism."""
        if nbytes <= 0:
            raise ValueError("nbytes must be positive")
        addr = C.xnvme_buf_alloc(self.handle, nbytes)
        if not addr:
            raise XnvmeError(ctypes.get_errno() or _errno.ENOMEM, "xnvme_buf_alloc")
        buf = _buffer_type(nbytes).from_address(addr)
        buf._dev = self
        buf._addr = addr
        buf._closed = False
        with self._lock:
            self._buffers[addr] = weakref.finalize(buf, _free_buffer, self, addr)
        return buf

    def _as_buffer(self, data: BytesLike, nbytes: Optional[int] = None) -> Buffer:
        if isinstance(data, Buffer) and data._dev is self:  # pylint: disable=protected-access
            data._check()  # pylint: disable=protected-access
            return data
        if isinstance(data, bytes):
            buf = self.buffer(max(len(data), nbytes or 0))
            ctypes.memmove(ctypes.addressof(buf), data, len(data))
            return buf
        mv = memoryview(data).cast("B")
        buf = self.buffer(max(len(mv), nbytes or 0))
        memoryview(buf).cast("B")[:len(mv)] = mv
        return buf

    def ctx(self) -> Any:
        """A synchronous command context (struct xnvme_cmd_ctx) for this device."""
        if self._closing:
            raise ValueError("operation on a closed xnvme.Device")
        return _CTX.from_buffer_copy(self._ctx_template)

    def _sync(self, what: str, func: Callable, *args: Any) -> Any:
        ctx = self.ctx()
        ret = func(ctypes.byref(ctx), *args)
        if ret or ctx.cpl.status.sc or ctx.cpl.status.sct:
            raise _cpl_error(ctx, ret, what)
        return ctx

    def _rw(self, func: Any, what: str, slba: int, nlb: int, addr: int) -> None:
        """Hot path of read/write: one context copy and one C call."""
        if self._closing:
            raise ValueError("operation on a closed xnvme.Device")
        ctx = _CTX.from_buffer_copy(self._ctx_template)
        ret = func(ctypes.addressof(ctx), self.nsid, slba, nlb - 1, addr, None)
        if ret:
            raise _cpl_error(ctx, ret, "%s slba=0x%x nlb=%d" % (what, slba, nlb))

    def _nlb_bytes(self, nlb: int) -> int:
        if not 0 < nlb <= 0x10000:
            raise ValueError("nlb must be 1..65536")
        return nlb * self._lba_nbytes

    # -- I/O ---------------------------------------------------------------------------------
    def read(self, slba: int, nlb: int = 1, buf: Optional[Buffer] = None) -> Buffer:
        """Read `nlb` LBAs from `slba` into a new (or the given) Buffer, and return it."""
        if not 0 < nlb <= 0x10000:
            raise ValueError("nlb must be 1..65536")
        nbytes = nlb * self._lba_nbytes
        if buf is None:
            buf = self.buffer(nbytes)
        elif buf._closed or ctypes.sizeof(buf) < nbytes:  # pylint: disable=protected-access
            raise ValueError("buffer closed or too small")
        if self._closing:
            raise ValueError("operation on a closed xnvme.Device")
        if _sync_io is not None:  # compiled: the context lives on the C stack
            err = _sync_io(False, self._ctx_template, self.nsid, slba, nlb, _addressof(buf))
            if err is not None:
                ret, status, result = err
                raise XnvmeError(-ret if ret < 0 else _errno.EIO,
                                 "read slba=0x%x nlb=%d" % (slba, nlb), sct=(status >> 9) & 0x7,
                                 sc=(status >> 1) & 0xFF, result=result)
            return buf
        # the hot path, inlined: one context copy and one C call
        ctx = _CTX.from_buffer_copy(self._ctx_template)
        ret = _nvm_read(ctypes.addressof(ctx), self.nsid, slba, nlb - 1, ctypes.addressof(buf),
                        None)
        if ret:
            raise _cpl_error(ctx, ret, "read slba=0x%x nlb=%d" % (slba, nlb))
        return buf

    def write(self, slba: int, data: BytesLike) -> None:
        """Write `data` (a whole number of LBAs) at `slba`."""
        nbytes = memoryview(data).nbytes
        lbas = self.geo.lba_nbytes
        if nbytes == 0 or nbytes % lbas:
            raise ValueError("data must be a non-empty multiple of %d bytes" % lbas)
        buf = self._as_buffer(data)
        self._rw(_nvm_write, "write", slba, nbytes // lbas, ctypes.addressof(buf))

    def write_zeroes(self, slba: int, nlb: int = 1) -> None:
        self._sync("write_zeroes", C.xnvme_nvm_write_zeroes, self.nsid, slba, nlb - 1)

    def flush(self) -> None:
        ctx = self.ctx()
        C.xnvme_prep_nvm(ctypes.byref(ctx), C.XNVME_SPEC_NVM_OPC_FLUSH, self.nsid, 0, 0)
        ret = C.xnvme_cmd_pass(ctypes.byref(ctx), None, 0, None, 0)
        if ret:
            raise _cpl_error(ctx, ret, "flush")

    # -- admin -------------------------------------------------------------------------------
    def identify_ctrlr(self) -> IdentifyController:
        """Identify Controller, issued now (not the copy cached at open)."""
        buf = self.buffer(4096)
        self._sync("identify controller", C.xnvme_adm_idfy_ctrlr,
                   ctypes.cast(buf.address, ctypes.POINTER(C.struct_xnvme_spec_idfy)))
        raw = C.struct_xnvme_spec_idfy_ctrlr.from_buffer_copy(buf.tobytes())
        return IdentifyController(vid=raw.vid, ssvid=raw.ssvid, sn=_s(raw.sn), mn=_s(raw.mn),
                                  fr=_s(raw.fr), mdts=raw.mdts, cntlid=raw.cntlid,
                                  ver=raw.ver.val, nn=raw.nn, raw=raw)

    def identify_ns(self, nsid: Optional[int] = None) -> IdentifyNamespace:
        """Identify Namespace of `nsid` (default: the device's)."""
        buf = self.buffer(4096)
        self._sync("identify namespace", C.xnvme_adm_idfy_ns,
                   self.nsid if nsid is None else nsid,
                   ctypes.cast(buf.address, ctypes.POINTER(C.struct_xnvme_spec_idfy)))
        raw = C.struct_xnvme_spec_idfy_ns.from_buffer_copy(buf.tobytes())
        lbaf = [LbaFormat(ms=f.ms, ds=f.ds, rp=f.rp) for f in raw.lbaf[:raw.nlbaf + 1]]
        flbas = bytes(raw)[C.struct_xnvme_spec_idfy_ns.flbas.offset]
        return IdentifyNamespace(nsze=raw.nsze, ncap=raw.ncap, nuse=raw.nuse,
                                 nlbaf=raw.nlbaf, flbas=flbas, lbaf=lbaf, raw=raw)

    def get_log(self, lid: int, nbytes: int, nsid: Optional[int] = None, lsp: int = 0,
                offset: int = 0) -> bytes:
        """Get Log Page `lid`: `nbytes` bytes from byte `offset`."""
        buf = self.buffer(nbytes)
        self._sync("get log page 0x%x" % lid, C.xnvme_adm_log, lid, lsp, offset,
                   0xFFFFFFFF if nsid is None else nsid, 0, buf.address, nbytes)
        return buf.tobytes()

    def get_feature(self, fid: int, sel: int = 0, nsid: Optional[int] = None) -> int:
        """Get Features `fid`: completion dword 0."""
        ctx = self._sync("get feature 0x%x" % fid, C.xnvme_adm_gfeat,
                         self.nsid if nsid is None else nsid, fid, sel, None, 0)
        return ctx.cpl.result

    def set_feature(self, fid: int, value: int, save: bool = False,
                    nsid: Optional[int] = None) -> int:
        ctx = self._sync("set feature 0x%x" % fid, C.xnvme_adm_sfeat,
                         self.nsid if nsid is None else nsid, fid, value, int(save), None, 0)
        return ctx.cpl.result

    # -- zoned -------------------------------------------------------------------------------
    def zone_report(self, slba: int = 0, limit: int = 0) -> List[Zone]:
        """Zone descriptors from the zone holding `slba`, at most `limit` (0: all)."""
        rep = C.xnvme_znd_report_from_dev(self.handle, slba, limit, 0)
        if not rep:
            raise XnvmeError(ctypes.get_errno() or _errno.EIO, "zone report")
        try:
            r = rep.contents
            base = ctypes.addressof(r) + C.struct_xnvme_znd_report.storage.offset
            out = []
            for i in range(r.nentries):
                d = C.struct_xnvme_spec_znd_descr.from_address(base + i * r.zrent_nbytes)
                out.append(Zone(zslba=d.zslba, zcap=d.zcap, wp=d.wp, zs=d.zs, zt=d.zt))
            return out
        finally:
            C.xnvme_buf_virt_free(rep)

    def _zone_send(self, zslba: int, action: int, select_all: bool) -> None:
        self._sync("zone management send", C.xnvme_znd_mgmt_send, self.nsid, zslba,
                   select_all, action, 0, None)

    def zone_reset(self, zslba: int = 0, select_all: bool = False) -> None:
        self._zone_send(zslba, C.XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, select_all)

    def zone_open(self, zslba: int, select_all: bool = False) -> None:
        self._zone_send(zslba, C.XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, select_all)

    def zone_close(self, zslba: int, select_all: bool = False) -> None:
        self._zone_send(zslba, C.XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, select_all)

    def zone_finish(self, zslba: int, select_all: bool = False) -> None:
        self._zone_send(zslba, C.XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, select_all)

    def zone_append(self, zslba: int, data: BytesLike) -> int:
        """Zone Append `data` to the zone at `zslba`; returns the LBA it was written at."""
        nbytes = memoryview(data).nbytes
        buf = self._as_buffer(data)
        ctx = self._sync("zone append", C.xnvme_znd_append, self.nsid, zslba,
                         nbytes // self.geo.lba_nbytes - 1, buf.address, None)
        return ctx.cpl.result

    # -- FDP ---------------------------------------------------------------------------------
    def fdp_write(self, slba: int, data: BytesLike, pid: int) -> None:
        """Write with the data placement directive (DTYPE 2) and placement identifier."""
        nbytes = memoryview(data).nbytes
        buf = self._as_buffer(data)
        ctx = self.ctx()
        C.xnvme_prep_nvm(ctypes.byref(ctx), C.XNVME_SPEC_NVM_OPC_WRITE, self.nsid, slba,
                         nbytes // self.geo.lba_nbytes - 1)
        ctx.cmd.nvm.dtype = 2
        ctx.cmd.nvm.cdw13.dspec = pid
        ret = C.xnvme_cmd_pass(ctypes.byref(ctx), buf.address, nbytes, None, 0)
        if ret:
            raise _cpl_error(ctx, ret, "fdp write")

    def fdp_ruh_status(self) -> List[Dict[str, int]]:
        """Reclaim Unit Handle Status (I/O Management Receive): one dict per handle."""
        nbytes = 4096
        buf = self.buffer(nbytes)
        self._sync("io management receive", C.xnvme_nvm_mgmt_recv, self.nsid,
                   C.XNVME_SPEC_IO_MGMT_RECV_RUHS, 0, buf.address, nbytes)
        hdr = C.struct_xnvme_spec_ruhs.from_buffer(buf)
        base = C.struct_xnvme_spec_ruhs.desc.offset
        out = []
        for i in range(hdr.nruhsd):
            d = C.struct_xnvme_spec_ruhs_desc.from_buffer(buf, base + i * 32)
            out.append({"pi": d.pi, "ruhi": d.ruhi, "earutr": d.earutr, "ruamw": d.ruamw})
        return out

    # -- key-value ---------------------------------------------------------------------------
    @staticmethod
    def _key(key: Union[str, bytes]) -> bytes:
        return key.encode() if isinstance(key, str) else bytes(key)

    def kv_store(self, key: Union[str, bytes], value: BytesLike, opt: int = 0) -> None:
        k = self._key(key)
        nbytes = memoryview(value).nbytes
        buf = self._as_buffer(value) if nbytes else self.buffer(1)
        self._sync("kv store", C.xnvme_kvs_store, self.nsid, k, len(k), buf.address,
                   nbytes, opt)

    def kv_retrieve(self, key: Union[str, bytes], nbytes: int = 4096) -> bytes:
        """The value of `key` (at most `nbytes` of it)."""
        k = self._key(key)
        buf = self.buffer(nbytes)
        ctx = self._sync("kv retrieve", C.xnvme_kvs_retrieve, self.nsid, k, len(k),
                         buf.address, nbytes, 0)
        return buf.tobytes()[:min(nbytes, ctx.cpl.result)]

    def kv_delete(self, key: Union[str, bytes]) -> None:
        k = self._key(key)
        self._sync("kv delete", C.xnvme_kvs_delete, self.nsid, k, len(k))

    def kv_exist(self, key: Union[str, bytes]) -> bool:
        k = self._key(key)
        try:
            self._sync("kv exist", C.xnvme_kvs_exist, self.nsid, k, len(k))
        except XnvmeError as exc:
            if exc.sct == 0 and exc.sc == C.XNVME_SPEC_KV_SC_KEY_NOT_EXISTS:
                return False
            raise
        return True

    def kv_list(self, start: Union[str, bytes] = b"", nbytes: int = 4096) -> List[bytes]:
        """Keys >= `start` in byte order (as many as fit `nbytes`)."""
        k = self._key(start)
        buf = self.buffer(nbytes)
        self._sync("kv list", C.xnvme_kvs_list, self.nsid, k, len(k), buf.address, nbytes)
        raw = buf.tobytes()
        count = int.from_bytes(raw[0:4], "little")
        keys, off = [], 4
        for _ in range(count):
            if off + 2 > len(raw):
                break
            klen = int.from_bytes(raw[off:off + 2], "little")
            keys.append(raw[off + 2:off + 2 + klen])
            off += 2 + klen
            off = (off + 3) & ~3
        return keys

    # -- queues / asyncio --------------------------------------------------------------------
    def queue(self, depth: int = 32, opts: int = 0) -> "Queue":
        """A new asynchronous Queue of capacity `depth` on this device."""
        return Queue(self, depth, opts)

    def _driver(self) -> "_AsyncDriver":
        loop = asyncio.get_running_loop()
        for other in [lp for lp in self._aio if lp is not loop and lp.is_closed()]:
            self._aio.pop(other).close()  # queues of finished asyncio.run() calls
        drv = self._aio.get(loop)
        if drv is None or drv.queue.closed:
            drv = _AsyncDriver(self, loop)
            self._aio[loop] = drv
        return drv

    async def aread(self, slba: int, nlb: int = 1, buf: Optional[Buffer] = None) -> Buffer:
        """``await dev.aread(slba, nlb)``: read through the device's asynchronous mechanism."""
        return await self._driver().submit("read", slba, nlb, buf)

    async def awrite(self, slba: int, data: BytesLike) -> None:
        """``await dev.awrite(slba, data)``."""
        await self._driver().submit("write", slba, 0, data)


def open(uri: Union[str, bytes, os.PathLike], **options: Any) -> Device:  # noqa: A001
    """Open a device: ``with xnvme.open("1GB", async_="thrpool") as dev: ...``."""
    # pylint: disable=redefined-builtin
    return Device(uri, **options)


# ---------------------------------------------------------------------------------------------
# Queue
# ---------------------------------------------------------------------------------------------
class Queue:
    """An asynchronous queue (xnvme_queue) with Python completion callbacks.

    ``submit_read``/``submit_write`` take a callback ``cb(completion)``; callbacks run inside
    ``poke()``/``drain()`` on the calling thread. A callback must not poke or drain this queue
    (the queue does that for you); an exception raised by a callback is re-raised by the
    poke/drain that ran it, after the remaining completions of that poke were delivered.
    Submitting on a full queue pokes it until a slot frees (not from inside a callback:
    there, a full queue raises XnvmeError EBUSY).
    """

    def __init__(self, dev: Device, depth: int = 32, opts: int = 0) -> None:
        self.dev = dev
        qp = ctypes.POINTER(C.struct_xnvme_queue)()
        _check(C.xnvme_queue_init(dev.handle, depth, opts, ctypes.byref(qp)),
               "xnvme_queue_init(depth=%d)" % depth)
        self._q: Any = qp
        self._qaddr = ctypes.cast(qp, ctypes.c_void_p).value
        self.depth = depth
        self.opts = opts
        self._pending: Dict[int, tuple] = {}
        self._views: Dict[int, tuple] = {}
        self._errors: List[BaseException] = []
        self._in_cb = False
        self._fq: Any = None
        self._cb: Any = None
        if _FASTQ is not None:
            # completions recorded by a C callback, reaped in batches (xnvme._fastq); the
            # FastQueue is referenced for the queue's life (it is the callback's argument)
            try:
                self._fq = _FASTQ.FastQueue(self._qaddr, dev.nsid, *_fastq_args(), depth,
                                            self._pending, Completion, self._errors)
            except BaseException:
                C.xnvme_queue_term(qp)
                self._q = None
                raise
        else:
            # one C trampoline per queue, referenced for the queue's life (a collected ctypes
            # callback would leave the C library calling freed memory)
            self._cb = _CB_TYPE(self._trampoline)
            _check(C.xnvme_queue_set_cb(qp, ctypes.cast(self._cb, C.xnvme_queue_cb), None),
                   "xnvme_queue_set_cb")
        self._cfd: Any = False  # completion fd, asked for on first use (see completion_fd)
        self._lba_nbytes = dev._lba_nbytes  # pylint: disable=protected-access
        if self._fq is not None:
            # submit_read of the common case without a Python frame: the extension's method
            # shadows the class's, which it calls for every other case
            self._fq.set_fast(self._lba_nbytes, types.MethodType(Queue.submit_read, self),
                              self._read_failed)
            self.submit_read = self._fq.submit_read  # type: ignore[method-assign]
        dev._queues.add(self)  # pylint: disable=protected-access

    @property
    def closed(self) -> bool:
        return self._q is None

    @property
    def handle(self) -> Any:
        """The struct xnvme_queue pointer, for the low-level module."""
        if self._q is None:
            raise ValueError("operation on a closed xnvme.Queue")
        return self._q

    @property
    def completion_fd(self) -> Optional[int]:
        """The queue's completion fd (xnvme_queue_get_completion_fd), or None.

        Asked for on first access only: io_uring registers an eventfd with the ring when the
        fd is requested, and signalling it costs time on every completion."""
        if self._cfd is False:
            if self._q is None:
                return None
            fd = C.xnvme_queue_get_completion_fd(self._q)
            self._cfd = fd if fd >= 0 else None
        return self._cfd

    @property
    def outstanding(self) -> int:
        """Commands submitted and not yet completed."""
        return len(self._pending)

    def _trampoline(self, addr: int, _opaque: Any) -> None:
        entry = self._pending.pop(addr, None)
        views = self._views.get(addr)
        if views is None:  # first use of this pooled context: cache views of its completion
            views = self._views[addr] = (_U16.from_address(addr + _STATUS_OFF),
                                         _U32.from_address(addr + _RESULT_OFF))
        status = views[0].value
        _put_cmd_ctx(self._qaddr, addr)
        if entry is None or entry[0] is None:
            return
        callback, buf, what, tag = entry
        if status & 0xFFE:
            sc = (status >> 1) & 0xFF
            sct = (status >> 9) & 0x7
            result = views[1].value
            cpl = Completion(False, sct, sc, result, buf,
                             XnvmeError(_errno.EIO, what, sct=sct, sc=sc, result=result), tag)
        else:
            cpl = Completion(True, 0, 0, views[1].value, buf, None, tag)
        self._in_cb = True
        try:
            callback(cpl)
        except BaseException as exc:  # pylint: disable=broad-except
            self._errors.append(exc)
        self._in_cb = False

    @property
    def fast(self) -> bool:
        """True when this queue uses the compiled fast path (xnvme._fastq)."""
        return self._fq is not None

    def _dispatch(self, done: list) -> None:
        """Run the callbacks of completions reaped by the fast path (after the C poke)."""
        self._in_cb = True
        try:
            for entry, status, result in done:
                if entry is None or entry[0] is None:
                    continue
                callback, buf, what, tag = entry
                if status & 0xFFE:
                    sc = (status >> 1) & 0xFF
                    sct = (status >> 9) & 0x7
                    cpl = Completion(False, sct, sc, result, buf,
                                     XnvmeError(_errno.EIO, what, sct=sct, sc=sc,
                                                result=result), tag)
                else:
                    cpl = Completion(True, 0, 0, result, buf, None, tag)
                try:
                    callback(cpl)
                except BaseException as exc:  # pylint: disable=broad-except
                    self._errors.append(exc)
        finally:
            self._in_cb = False

    def _raise_callback_errors(self) -> None:
        if self._errors:
            exc = self._errors[0]
            self._errors.clear()
            raise exc

    def _submit(self, func: Any, what: str, slba: int, nlb: int, buf: Buffer,
                callback: Optional[Callable], tag: Any) -> None:
        if self._q is None:
            raise ValueError("operation on a closed xnvme.Queue")
        pending = self._pending
        while len(pending) >= self.depth:
            if self._in_cb:
                raise XnvmeError(_errno.EBUSY, "submit on a full queue from a callback")
            self.poke()
        if self._fq is not None:
            err = self._fq.submit(func is _nvm_write, slba, nlb, ctypes.addressof(buf),
                                  (callback, buf, what, tag))
            if err is not None:
                self._submit_failed(err, what)
            return
        addr = _get_cmd_ctx(self._qaddr)
        if not addr:
            raise XnvmeError(ctypes.get_errno() or _errno.ENOMEM, "xnvme_queue_get_cmd_ctx")
        pending[addr] = (callback, buf, what, tag)
        ret = func(addr, self.dev.nsid, slba, nlb - 1, ctypes.addressof(buf), None)
        if ret:
            del pending[addr]
            status = _U16.from_address(addr + _STATUS_OFF).value
            _put_cmd_ctx(self._qaddr, addr)
            raise XnvmeError(-ret if ret < 0 else _errno.EIO, what,
                             sct=(status >> 9) & 0x7, sc=(status >> 1) & 0xFF)

    @classmethod
    def _read_failed(cls, stage: int, ret: int, status: int) -> None:
        cls._submit_failed((stage, ret, status), "read")

    @staticmethod
    def _submit_failed(err: tuple, what: str) -> None:
        stage, ret, status = err
        if stage == 0:
            raise XnvmeError(-ret, "xnvme_queue_get_cmd_ctx")
        raise XnvmeError(-ret if ret < 0 else _errno.EIO, what,
                         sct=(status >> 9) & 0x7, sc=(status >> 1) & 0xFF)

    def submit_read(self, slba: int, nlb: int = 1, callback: Optional[Callable] = None,
                    buf: Optional[Buffer] = None, tag: Any = None) -> Buffer:
        """Submit a read; the Buffer it fills is returned now and passed to the callback."""
        fq = self._fq
        if (fq is not None and buf is not None and 0 < nlb <= 0x10000 and not buf._closed
                and len(self._pending) < self.depth):  # the common case, inline
            if _sizeof(buf) < nlb * self._lba_nbytes:
                raise ValueError("buffer closed or too small")
            err = fq.submit(False, slba, nlb, _addressof(buf), (callback, buf, "read", tag))
            if err is not None:
                self._submit_failed(err, "read")
            return buf
        nbytes = self.dev._nlb_bytes(nlb)  # pylint: disable=protected-access
        if buf is None:
            buf = self.dev.buffer(nbytes)
        elif buf._closed or ctypes.sizeof(buf) < nbytes:  # pylint: disable=protected-access
            raise ValueError("buffer closed or too small")
        fq = self._fq
        if fq is not None and len(self._pending) < self.depth:  # the common case, inline
            err = fq.submit(False, slba, nlb, ctypes.addressof(buf), (callback, buf, "read", tag))
            if err is not None:
                self._submit_failed(err, "read")
            return buf
        self._submit(_nvm_read, "read", slba, nlb, buf, callback, tag)
        return buf

    def submit_write(self, slba: int, data: BytesLike, callback: Optional[Callable] = None,
                     tag: Any = None) -> Buffer:
        """Submit a write of `data` (copied into a device Buffer unless it is one)."""
        buf = self.dev._as_buffer(data)  # pylint: disable=protected-access
        nlb = ctypes.sizeof(buf) // self.dev._lba_nbytes  # pylint: disable=protected-access
        self._submit(_nvm_write, "write", slba, nlb, buf, callback, tag)
        return buf

    def submit_reads(self, slbas: Sequence[int], nlb: int, bufs: Sequence[Buffer],
                     callback: Optional[Callable] = None,
                     tags: Optional[Sequence[Any]] = None) -> None:
        """Submit one read of `nlb` LBAs per entry of `slbas`, into the Buffer of the same
        index in `bufs`; each completes through `callback` with the tag of the same index in
        `tags` (or None). The batched form of submit_read: with the compiled fast path the
        commands go out in one C call per free stretch of the queue, without a Python call
        per command. A full queue is poked until there is room, as submit_read does."""
        self._submit_batch(False, "read", slbas, nlb, bufs, callback, tags)

    def submit_writes(self, slbas: Sequence[int], nlb: int, bufs: Sequence[Buffer],
                      callback: Optional[Callable] = None,
                      tags: Optional[Sequence[Any]] = None) -> None:
        """Submit one write of `nlb` LBAs per entry of `slbas`, from the Buffer of the same
        index in `bufs` (device Buffers: no copy is made); see submit_reads."""
        self._submit_batch(True, "write", slbas, nlb, bufs, callback, tags)

    def _submit_batch(self, write: bool, what: str, slbas: Sequence[int], nlb: int,
                      bufs: Sequence[Buffer], callback: Optional[Callable],
                      tags: Optional[Sequence[Any]]) -> None:
        count = len(slbas)
        if len(bufs) != count or (tags is not None and len(tags) != count):
            raise ValueError("slbas, bufs and tags differ in length")
        nbytes = self.dev._nlb_bytes(nlb)  # pylint: disable=protected-access
        func = _nvm_write if write else _nvm_read
        start = 0
        while start < count:
            if self._q is None:
                raise ValueError("operation on a closed xnvme.Queue")
            room = self.depth - len(self._pending)
            if room <= 0:
                if self._in_cb:
                    raise XnvmeError(_errno.EBUSY, "submit on a full queue from a callback")
                self.poke()
                continue
            end = min(count, start + room)
            if self._fq is None:
                for i in range(start, end):
                    buf = bufs[i]
                    if not isinstance(buf, Buffer) or buf._closed or _sizeof(buf) < nbytes:
                        raise ValueError("buffer closed or too small")
                    self._submit(func, what, slbas[i], nlb, buf, callback,
                                 None if tags is None else tags[i])
                start = end
                continue
            whole = start == 0 and end == count  # the common case: no slicing
            done, stage, ret, status = self._fq.submit_batch(
                write, slbas if whole else slbas[start:end], nlb, nbytes,
                bufs if whole else bufs[start:end], callback,
                tags if whole or tags is None else tags[start:end], what)
            start += done
            if start < end:
                self._submit_failed((stage, ret, status), what)

    def poke(self, max_completions: int = 0) -> int:
        """Reap up to `max_completions` (0: all available); returns how many."""
        if self._q is None:
            raise ValueError("operation on a closed xnvme.Queue")
        if self._fq is not None:
            # the C poke runs the callbacks of successful completions itself; the rest (error
            # statuses) come back for _dispatch
            self._in_cb = True
            try:
                ret, _reaped, rest = self._fq.poke_dispatch(max_completions)
            finally:
                self._in_cb = False
            if rest:
                self._dispatch(rest)
        else:
            ret = _queue_poke(self._qaddr, max_completions)
        if ret < 0:
            raise XnvmeError(-ret, "xnvme_queue_poke")
        if self._errors:
            self._raise_callback_errors()
        return ret

    def drain(self, timeout: Optional[float] = None) -> int:
        """Wait for every outstanding command (busy-polling); returns how many completed.

        With `timeout` (seconds), give up after that long with XnvmeError ETIMEDOUT; the
        commands not completed stay outstanding (xnvme_queue_drain_timeout)."""
        if self._fq is not None:
            return self._drain_fast(timeout)
        if timeout is None:
            ret = C.xnvme_queue_drain(self.handle)
        else:
            ret = C.xnvme_queue_drain_timeout(self.handle, max(0, int(timeout * 1e6)))
        self._raise_callback_errors()
        return _check(ret, "xnvme_queue_drain")

    def _drain_fast(self, timeout: Optional[float]) -> int:
        # the library drains (GIL released, the C callback only records); the Python
        # callbacks run afterwards and may submit more, so repeat until nothing is pending
        handle = self.handle
        deadline = None if timeout is None else time.monotonic() + timeout
        total = 0
        while True:
            if deadline is None:
                ret = C.xnvme_queue_drain(handle)
            else:
                left = max(0.0, deadline - time.monotonic())
                ret = C.xnvme_queue_drain_timeout(handle, int(left * 1e6))
            done = self._fq.collect()
            if done:
                total += len(done)
                self._dispatch(done)
            if ret < 0:
                self._raise_callback_errors()
                raise XnvmeError(-ret, "xnvme_queue_drain")
            if not self._pending or self._q is None:
                break
            if deadline is not None and time.monotonic() >= deadline:
                self._raise_callback_errors()
                raise XnvmeError(_errno.ETIMEDOUT, "xnvme_queue_drain")
        self._raise_callback_errors()
        return total

    def close(self) -> None:
        """Drain and terminate the queue."""
        if self._q is None:
            return
        try:
            C.xnvme_queue_drain(self._q)
            if self._fq is not None:
                done = self._fq.collect()  # as with ctypes, callbacks run during close()
                if done:
                    self._dispatch(done)
        finally:
            C.xnvme_queue_term(self._q)
            self._q = None
            self._pending.clear()
            if self._fq is not None:
                self._fq.collect()
                self._fq.detach()
                self.__dict__.pop("submit_read", None)
                self._fq = None  # its queue is gone: submissions now take the checked path

    def __enter__(self) -> "Queue":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            pass

    def __repr__(self) -> str:
        return "<xnvme.Queue depth=%d outstanding=%d>" % (self.depth, self.outstanding)


def _is_eventfd(fd: int) -> bool:
    """Whether `fd` is an eventfd, which the application reads to clear (io_uring, io_uring_cmd,
    libaio, vfio). Other completion fds belong to the library, whose poke consumes their
    readiness (tcp: an epoll fd, where a read fails; rdma: the completion channel, where a read
    would steal the event the library must acknowledge). Decided by what the fd is (Linux names
    it in /proc), not by a list of mechanisms that could miss a new one; without /proc nothing
    is read (an eventfd left set only makes the loop poke more often)."""
    try:
        return os.readlink("/proc/self/fd/%d" % fd) == "anon_inode:[eventfd]"
    except OSError:
        return False


class _AsyncDriver:
    """Drives one Queue from an asyncio loop (one per device and loop).

    With a completion fd the loop watches it (add_reader) and pokes when it is readable,
    reading it first only when it is an eventfd (see _is_eventfd); without one (thrpool, emu,
    nil, posix: no fd) a callback re-scheduled with call_soon pokes while commands are
    outstanding, i.e. the loop polls. The queue is made with
    XNVME_QUEUE_POKE_SPIN: an idle poke would otherwise wait in the kernel (1 ms, up to 16 ms on
    a slow device) and stall every other task of the loop (with a completion fd pokes never wait anyway).
    """

    def __init__(self, dev: Device, loop: asyncio.AbstractEventLoop, depth: int = 64) -> None:
        self.dev = dev
        self.loop = loop
        self.queue = Queue(dev, depth, C.XNVME_QUEUE_POKE_SPIN)
        self.fd = self.queue.completion_fd
        self.eventfd = self.fd is not None and _is_eventfd(self.fd)
        self.polling = False
        if self.fd is not None:
            loop.add_reader(self.fd, self._readable)

    def close(self) -> None:
        if self.fd is not None and not self.loop.is_closed():
            self.loop.remove_reader(self.fd)
        self.fd = None
        self.queue.close()

    def _reap(self) -> None:
        try:
            self.queue.poke()
        except XnvmeError as exc:
            # a fatal poke error: fail every command still waiting, so no await hangs
            pending = list(self.queue._pending.values())  # pylint: disable=protected-access
            self.queue._pending.clear()  # pylint: disable=protected-access
            for callback, buf, _what, tag in pending:
                if callback is not None:
                    callback(Completion(False, 0, 0, 0, buf, exc, tag))

    def _readable(self) -> None:
        if self.eventfd:
            try:
                os.read(self.fd, 8)  # type: ignore[arg-type]
            except OSError:
                pass
        self._reap()

    def _poll(self) -> None:
        if self.queue.closed:
            self.polling = False
            return
        self._reap()
        if self.queue.outstanding:
            self.loop.call_soon(self._poll)
        else:
            self.polling = False

    async def submit(self, op: str, slba: int, nlb: int, arg: Any) -> Any:
        fut = self.loop.create_future()

        def done(cpl: Completion) -> None:
            if fut.done():
                return
            if cpl.error is not None:
                fut.set_exception(cpl.error)
            else:
                fut.set_result(cpl.buffer if op == "read" else None)

        while self.queue.outstanding >= self.queue.depth:
            await asyncio.sleep(0)
            self._reap()
        if op == "read":
            self.queue.submit_read(slba, nlb, done, buf=arg)
        else:
            self.queue.submit_write(slba, arg, done)
        if self.fd is None and not self.polling:
            self.polling = True
            self.loop.call_soon(self._poll)
        elif self.fd is not None:
            # completions may already be in; the fd stays readable until read
            self._reap()
        return await fut
