"""Data round trips, sync and async, on every target x mechanism; errors; buffers."""
import asyncio
import errno
import gc
import os

import pytest

import xnvme

NLB = 8


def pattern(nbytes, seed):
    return bytes((i * 7 + seed) & 0xFF for i in range(nbytes))


def test_open_geometry_ident(dev):
    geo = dev.geo
    assert isinstance(geo, xnvme.Geometry)
    assert geo.lba_nbytes in (512, 4096)
    assert geo.tbytes > 0 and geo.nlbas << geo.ssw == geo.tbytes
    assert dev.ident.uri
    assert dev.nsid >= 1


def test_sync_round_trip(target):
    dev, mech = target
    nbytes = NLB * dev.geo.lba_nbytes
    data = pattern(nbytes, 3)
    dev.write(16, data)
    got = dev.read(16, NLB)
    assert isinstance(got, xnvme.Buffer)
    assert got.nbytes == nbytes
    assert bytes(got) == data
    # into a caller's buffer, and from a Buffer
    buf = dev.buffer(nbytes)
    buf.fill(pattern(nbytes, 9))
    dev.write(16, buf)
    dev.read(16, NLB, buf=got)
    assert got.tobytes() == pattern(nbytes, 9)


def test_queue_callbacks_round_trip(target):
    dev, mech = target
    lbas = dev.geo.lba_nbytes
    ncmds = 96
    done = []
    with dev.queue(32) as q:
        for i in range(ncmds):
            q.submit_write(i * NLB, pattern(NLB * lbas, i), callback=done.append, tag=i)
        q.drain()
        assert sorted(c.tag for c in done) == list(range(ncmds))
        assert all(c.ok and c.error is None for c in done)
        reads = []
        for i in range(ncmds):
            q.submit_read(i * NLB, NLB, callback=reads.append, tag=i)
        while q.outstanding:
            q.poke()
        assert len(reads) == ncmds
    if mech == "nil":
        return  # nil completes every command without I/O
    for cpl in reads:
        assert bytes(cpl.buffer) == pattern(NLB * lbas, cpl.tag), "tag %d" % cpl.tag


def test_queue_batched_round_trip(target):
    """submit_writes/submit_reads: more commands than the queue holds, each completing with
    its own tag and buffer; the data read back is what was written; an LBA out of range in a
    batch fails only its own command; a closed or short buffer is refused."""
    dev, mech = target
    lbas = dev.geo.lba_nbytes
    ncmds = 20  # > depth: the batch is split, the queue poked in between
    slbas = [i * NLB for i in range(ncmds)]
    wbufs = [dev.buffer(NLB * lbas) for _ in range(ncmds)]
    for i, buf in enumerate(wbufs):
        buf.fill(i + 1)
    done = []
    with dev.queue(8) as q:
        q.submit_writes(slbas, NLB, wbufs, done.append, tags=list(range(ncmds)))
        q.drain()
        assert sorted(c.tag for c in done) == list(range(ncmds))
        assert all(c.ok for c in done)
        rbufs = [dev.buffer(NLB * lbas) for _ in range(ncmds)]
        got = {}
        q.submit_reads(slbas, NLB, rbufs, lambda c: got.__setitem__(c.tag, c))
        q.drain()
        assert len(got) == 1 and None in got  # no tags: every completion has tag None
        got = {}
        q.submit_reads(slbas, NLB, rbufs, lambda c: got.__setitem__(c.tag, c),
                       tags=range(ncmds))
        q.drain()
        assert sorted(got) == list(range(ncmds))
        for i in range(ncmds):
            assert got[i].ok and got[i].buffer is rbufs[i]
            if mech != "nil":
                assert rbufs[i].tobytes() == bytes([i + 1]) * NLB * lbas, i
        if mech != "nil":
            res = []
            try:
                q.submit_reads([0, dev.geo.nlbas, 8], 1, rbufs[:3], res.append, tags=[0, 1, 2])
            except xnvme.XnvmeError as exc:  # refused at submission: the status in the error
                assert (exc.sct, exc.sc) == (0, 0x80)
                res.append(exc)
            q.drain()
            bad = [c for c in res if not getattr(c, "ok", False)]
            assert len(bad) == 1
            err = getattr(bad[0], "error", bad[0])
            assert (err.sct, err.sc, err.name) == (0, 0x80, "LBA Out of Range")
        short = dev.buffer(lbas)
        with pytest.raises(ValueError):
            q.submit_reads([0], NLB, [short])
        short.close()
        with pytest.raises(ValueError):
            q.submit_reads([0], 1, [short])
        with pytest.raises(ValueError):
            q.submit_reads([0, 1], 1, [rbufs[0]])
        q.drain()
        assert q.outstanding == 0


def test_queue_callback_submits_follow_up(target):
    """A callback may submit (never poke): a chain of reads, each started by the previous."""
    dev, mech = target
    seen = []
    with dev.queue(4) as q:
        def chain(cpl):
            seen.append(cpl.tag)
            assert cpl.ok
            if cpl.tag < 20:
                q.submit_read(cpl.tag + 1, 1, callback=chain, tag=cpl.tag + 1)

        q.submit_read(0, 1, callback=chain, tag=0)
        while q.outstanding:
            q.poke()
    assert seen == list(range(21))


def test_asyncio_repeated_runs_reuse_nothing_stale(target):
    dev, mech = target
    for _ in range(3):
        asyncio.run(dev.aread(0, 1))
    assert len(dev._aio) == 1


def test_queue_drain_timeout(target):
    dev, mech = target
    got = []
    with dev.queue(8) as q:
        for i in range(8):
            q.submit_read(i, 1, callback=got.append)
        try:
            q.drain(timeout=10.0)
        except xnvme.XnvmeError as exc:   # only on a machine stalled for 10 s
            assert exc.errno == errno.ETIMEDOUT
            q.drain()
        assert len(got) == 8 and q.outstanding == 0
        assert q.drain(timeout=0) == 0


def test_queue_callback_exception_propagates(target):
    dev, mech = target

    def boom(cpl):
        raise RuntimeError("from callback")

    with dev.queue(4) as q:
        q.submit_read(0, 1, callback=boom)
        with pytest.raises(RuntimeError, match="from callback"):
            q.drain()
        assert q.outstanding == 0


def test_asyncio_round_trip(target):
    dev, mech = target
    lbas = dev.geo.lba_nbytes

    async def main():
        await asyncio.gather(*[dev.awrite(i * NLB, pattern(NLB * lbas, 50 + i))
                               for i in range(48)])
        return await asyncio.gather(*[dev.aread(i * NLB, NLB) for i in range(48)])

    bufs = asyncio.run(main())
    assert len(bufs) == 48
    if mech != "nil":
        for i, buf in enumerate(bufs):
            assert bytes(buf) == pattern(NLB * lbas, 50 + i)


def test_completion_fd(target):
    """Mechanisms with a completion fd expose it; the asyncio path works either way."""
    dev, mech = target
    with dev.queue(8) as q:
        if mech in ("io_uring", "io_uring_cmd", "libaio"):
            assert q.completion_fd is not None and q.completion_fd >= 0
        elif mech in ("thrpool", "emu", "nil", "posix"):
            assert q.completion_fd is None


def test_asyncio_queue_never_waits_in_poke(target):
    """The asyncio driver's queue spins: a waiting poke would stall the event loop."""
    dev, _mech = target

    async def main():
        await dev.aread(0, 1)
        return dev._driver()  # pylint: disable=protected-access

    drv = asyncio.run(main())
    assert drv.queue.opts & xnvme.capi.XNVME_QUEUE_POKE_SPIN


def test_error_lba_out_of_range_sync(dev):
    with pytest.raises(xnvme.XnvmeError) as info:
        dev.read(dev.geo.nlbas, 1)
    exc = info.value
    assert exc.errno == errno.EIO
    assert (exc.sct, exc.sc) == (0x0, 0x80)
    assert exc.name == "LBA Out of Range"
    assert exc.sct_name == "Generic Command Status"
    assert exc.is_nvme_status
    assert isinstance(exc, OSError)


def test_error_lba_out_of_range_async(target):
    dev, mech = target
    if mech == "nil":
        pytest.skip("nil completes every command successfully")
    got = []
    with dev.queue(4) as q:
        q.submit_read(dev.geo.nlbas, 1, callback=got.append)
        q.drain()
    assert len(got) == 1 and not got[0].ok
    assert (got[0].sct, got[0].sc) == (0, 0x80)
    assert got[0].error.name == "LBA Out of Range"

    async def main():
        await dev.aread(dev.geo.nlbas, 1)

    with pytest.raises(xnvme.XnvmeError) as info:
        asyncio.run(main())
    assert (info.value.sct, info.value.sc) == (0, 0x80)


def test_error_open(tmp_path):
    with pytest.raises(xnvme.XnvmeError) as info:
        xnvme.open(str(tmp_path / "does-not-exist"))
    assert info.value.errno == errno.ENOENT
    assert info.value.sct is None and not info.value.is_nvme_status
    with pytest.raises(xnvme.XnvmeError) as info:
        xnvme.open("1GB", async_="no-such-mechanism")
    assert info.value.errno > 0
    # the library's reason (xnvme_last_error) travels with the exception: valid names listed
    assert "no-such-mechanism" in str(info.value) and "thrpool" in str(info.value)
    with pytest.raises(xnvme.XnvmeError) as info:
        xnvme.open("512MB")
    assert "<N>GB" in str(info.value)


@pytest.mark.parametrize("mech", [{"async_": "io_uring"}, {"async_": "libaio"},
                                  {"async_": "thrpool"}, {"sync": "psync"},
                                  {"admin": "file_as_ns"}])
def test_error_open_names_the_path(tmp_path, mech):
    """A missing path opened with a mechanism only the path backend has: ENOENT naming the
    path, not ENOSYS of the backends (ramdisk, vfio, tcp) whose URIs look otherwise"""
    path = str(tmp_path / "nope.img")
    with pytest.raises(xnvme.XnvmeError) as info:
        xnvme.open(path, **mech)
    assert info.value.errno == errno.ENOENT, str(info.value)
    assert "linux: '%s' does not exist" % path in str(info.value)
    assert "ramdisk" not in str(info.value) and "has no" not in str(info.value)


def test_error_open_named_backend_takes(tmp_path):
    """A backend named for a URI it does not take says which URIs it takes"""
    with pytest.raises(xnvme.XnvmeError) as info:
        xnvme.open(str(tmp_path / "data.img"), be="ramdisk")
    assert "ramdisk:" in str(info.value) and "is not a ramdisk URI" in str(info.value)
    assert "<N>GB" in str(info.value)


def test_status_names():
    assert xnvme.status_name(0, 0x02) == "Invalid Field in Command"
    assert xnvme.status_name(1, 0xB9) == "Zone Is Full"
    assert xnvme.status_name(2, 0x82) == "End-to-end Guard Check Error"
    assert "Unknown" in xnvme.status_name(5, 0x42)


def test_buffer_protocol_no_copy(dev):
    buf = dev.read(0, 1)
    mv = memoryview(buf).cast("B")   # ctypes reports format '<B'; cast gives plain bytes
    assert mv.nbytes == dev.geo.lba_nbytes and not mv.readonly
    view = buf.view
    view[0:4] = b"\x01\x02\x03\x04"
    assert bytes(buf)[:4] == b"\x01\x02\x03\x04"   # same memory
    buf[5] = 0xAB
    assert mv[5] == 0xAB
    # the device reads into the very memory a view sees
    dev.write(0, b"\x5a" * dev.geo.lba_nbytes)
    dev.read(0, 1, buf=buf)
    assert mv[0] == 0x5A and view[100] == 0x5A
    del mv, view


def test_buffer_numpy(dev):
    np = pytest.importorskip("numpy")
    buf = dev.buffer(dev.geo.lba_nbytes)
    arr = np.frombuffer(buf, dtype=np.uint8)
    arr2 = np.asarray(buf)
    assert arr.ctypes.data == buf.address       # no copy
    assert arr2.ctypes.data == buf.address
    dev.write(0, bytes(range(256)) * (dev.geo.lba_nbytes // 256))
    dev.read(0, 1, buf=buf)
    assert int(arr[255]) == 255 and int(arr2[1]) == 1
    u32 = np.frombuffer(buf, dtype="<u4")
    assert int(u32[0]) == 0x03020100


def test_buffer_lifetime(tmpfile):
    dev = xnvme.open("1GB")
    buf = dev.read(0, 1)
    mv = memoryview(buf)
    buf.close()
    with pytest.raises(ValueError):
        buf.tobytes()
    with pytest.raises(ValueError):
        dev.read(0, 1, buf=buf) if False else buf.address
    assert mv.nbytes == dev.geo.lba_nbytes   # the view still holds valid memory
    dev.close()
    assert dev.closed
    with pytest.raises(ValueError):
        dev.read(0, 1)
    assert len(bytes(mv)) == dev.geo.lba_nbytes  # memory outlives the closed device handle
    del mv, buf
    gc.collect()
    assert dev._handle is None   # released once its last buffer went


def test_context_manager_and_options(tmpfile):
    with xnvme.open(tmpfile, rdwr=True, sync="psync", async_="emu") as dev:
        dev.write(0, b"z" * dev.geo.lba_nbytes)
    assert dev.closed
    with open(tmpfile, "rb") as f:
        assert f.read(4) == b"zzzz"
    with pytest.raises(TypeError):
        xnvme.open("1GB", bogus=1)


def test_python_m_xnvme_info():
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(xnvme.__file__)))
    out = subprocess.run([sys.executable, "-m", "xnvme", "info", "1GB"], check=True, env=env,
                         stdout=subprocess.PIPE).stdout.decode()
    assert "lba_nbytes: 512" in out and "idfy_ns:" in out


def test_identify(dev):
    ctrlr = dev.identify_ctrlr()
    assert isinstance(ctrlr, xnvme.IdentifyController)
    assert ctrlr.mn and ctrlr.sn
    assert ctrlr.version.count(".") == 2
    assert ctrlr.asdict()["mn"] == bytes(ctrlr.raw.mn)
    assert ctrlr.asdict()["mn"].startswith(ctrlr.mn.encode())
    ns = dev.identify_ns()
    # a regular file is a byte-addressed namespace (nsze in bytes), others count LBAs
    assert ns.nsze in (dev.geo.nlbas, dev.geo.tbytes)
    assert ns.lba_format.nbytes == dev.geo.lba_nbytes
    assert ns.lba_format.ms == dev.geo.nbytes_oob


def test_get_log_and_feature():
    with xnvme.open("1GB") as dev:
        health = dev.get_log(0x02, 512)   # SMART / health information
        assert len(health) == 512
        nq = dev.get_feature(0x07)        # number of queues
        assert isinstance(nq, int)
