"""The compiled fast path of Queue (xnvme._fastq) and the pure-ctypes fallback."""
import ctypes
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

import xnvme
from xnvme import device as D
from xnvme import ctypes_bindings as C

from conftest import open_target

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(xnvme.__file__)))
FORCED_OFF = bool(os.environ.get("XNVME_PY_NO_FASTQ"))


def _source_file(source_root):
    return os.path.join(source_root, "python", "xnvme", "_fastq.c")


def _need_fast():
    if FORCED_OFF:
        pytest.skip("XNVME_PY_NO_FASTQ is set: the fallback is under test")
    if not D.fast_path() and os.environ.get("XNVME_PY_NO_INSTALL"):
        pytest.skip("package used from the source tree: xnvme._fastq is not built there")
    if not D.fast_path():
        pytest.fail("xnvme._fastq was not built/importable (pip install log: "
                    "<dir>/python-venv/pip-install.log)")


def test_fast_path_in_use(tmpfile):
    _need_fast()
    with xnvme.open(tmpfile, rdwr=True, async_="emu") as dev, dev.queue(8) as q:
        assert q.fast


def test_fastq_source_warning_free(source_root, tmp_path):
    """The extension compiles with -Wall -Wextra -Werror (as the C library's own code)."""
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        pytest.skip("no C compiler")
    inc = sysconfig.get_paths()["include"]
    proc = subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", "-fPIC",
                           "-shared", "-I" + inc, _source_file(source_root), "-o",
                           str(tmp_path / "fq.so")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.returncode == 0, proc.stdout.decode()


def test_fastq_offsets_match_c(include_dir, tmp_path):
    """The offsets handed to the extension (from ctypes) are those the C compiler uses."""
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc) or not os.path.exists(os.path.join(include_dir, "libxnvme.h")):
        pytest.skip("no C compiler or headers")
    prog = tmp_path / "off.c"
    prog.write_text('#include <stdio.h>\n#include <stddef.h>\n#include <libxnvme.h>\n'
                    'int main(void) { printf("%zu %zu %zu\\n", '
                    'sizeof(struct xnvme_cmd_ctx), '
                    'offsetof(struct xnvme_cmd_ctx, cpl.status), '
                    'offsetof(struct xnvme_cmd_ctx, cpl.result)); return 0; }\n')
    exe = tmp_path / "off"
    subprocess.run([cc, "-I", include_dir, str(prog), "-o", str(exe)], check=True)
    size, status_off, result_off = map(int, subprocess.check_output([str(exe)]).split())
    args = D._fastq_args()  # pylint: disable=protected-access
    assert args[6:] == (status_off, result_off)
    assert D._CTX_SIZE == size  # pylint: disable=protected-access
    assert all(args[:6])


@pytest.mark.parametrize("kind,mech", [("ramdisk", "thrpool"), ("ramdisk", "emu"),
                                       ("file", "thrpool"), ("file", "io_uring"),
                                       ("file", "libaio")])
def test_batched_submit_and_order_independence(kind, mech, tmpfile):
    """submit_reads puts many commands in flight in one call; completions arrive in any order
    (thrpool: 4 workers) and each reaches the callback with its own tag and buffer, also
    when callbacks submit follow-ups that reuse the contexts reaped in the same poke."""
    _need_fast()
    dev = open_target(kind, mech, tmpfile)
    try:
        lba = dev.geo.lba_nbytes
        n = 256
        dev.write(0, b"".join(i.to_bytes(4, "little") * (lba // 4) for i in range(n)))
        got = {}
        order = []
        with dev.queue(32) as q:
            def cb(cpl):
                assert cpl.ok, cpl.error
                assert type(cpl) is xnvme.Completion  # pylint: disable=unidiomatic-typecheck
                assert (cpl.sct, cpl.sc, cpl.error) == (0, 0, None)
                assert isinstance(cpl.result, int) and "ok=True" in repr(cpl)
                got[cpl.tag] = int.from_bytes(cpl.buffer.tobytes()[:4], "little")
                order.append(cpl.tag)
                if cpl.tag < n // 2:  # follow-up from inside a callback
                    q.submit_read(cpl.tag + n // 2, 1, cb, tag=cpl.tag + n // 2)

            bufs = [dev.buffer(lba) for _ in range(n // 2)]
            done = 0
            while done < n // 2:
                room = min(q.depth - q.outstanding, n // 2 - done)
                idx = list(range(done, done + room))
                q.submit_reads(idx, 1, [bufs[i] for i in idx], cb, tags=idx)
                assert q.outstanding >= room
                done += room
                q.poke()
            q.drain()
        assert got == {i: i for i in range(n)}
        assert sorted(order) == list(range(n))
    finally:
        dev.close()


@pytest.mark.parametrize("kind,mech", [("ramdisk", "thrpool"), ("ramdisk", "emu"),
                                       ("file", "io_uring"), ("file", "libaio")])
def test_fast_path_error_status(kind, mech, tmpfile):
    """An NVMe error status reaches the callback and asyncio through the fast path."""
    _need_fast()
    dev = open_target(kind, mech, tmpfile)
    try:
        seen = []
        with dev.queue(8) as q:
            assert q.fast
            q.submit_read(0, 1, seen.append, tag="ok")
            try:
                q.submit_read(dev.geo.nlbas, 1, seen.append, tag="bad")
            except xnvme.XnvmeError as exc:  # refused at submission: status in the error
                seen.append(exc)
            q.drain()
        by = {getattr(c, "tag", "bad"): c for c in seen}
        assert by["ok"].ok
        bad = by["bad"]
        err = bad if isinstance(bad, xnvme.XnvmeError) else bad.error
        assert not getattr(bad, "ok", False)
        assert (err.sct, err.sc) == (0, 0x80), err
    finally:
        dev.close()


def test_fast_path_callback_exception_and_close(tmpfile):
    _need_fast()
    with xnvme.open(tmpfile, rdwr=True, async_="emu") as dev:
        q = dev.queue(4)
        calls = []

        def boom(cpl):
            calls.append(cpl.tag)
            raise RuntimeError("cb %s" % cpl.tag)
        q.submit_read(0, 1, boom, tag=1)
        q.submit_read(1, 1, boom, tag=2)
        with pytest.raises(RuntimeError):
            q.drain()
        assert sorted(calls) == [1, 2] and q.outstanding == 0
        q.submit_read(2, 1, calls.append, tag=3)
        q.close()  # callbacks run during close, as with ctypes
        assert len(calls) == 3


def test_fallback_forced_by_env():
    """XNVME_PY_NO_FASTQ=1 selects pure ctypes; the sync, Queue, asyncio and error tests pass."""
    if FORCED_OFF:
        pytest.skip("already running in fallback mode")
    env = dict(ENV, XNVME_PY_NO_FASTQ="1")
    out = subprocess.check_output(
        [sys.executable, "-c", "import xnvme.device as d, xnvme; print(d.fast_path()); "
         "dev = xnvme.open('1GB', async_='emu'); q = dev.queue(4); print(q.fast); "
         "dev.close()"], env=env).decode().split()
    assert out == ["False", "False"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "-k", "queue or async or error or sync", "test_io.py",
                           "test_fastq.py"],
                          cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.returncode == 0, proc.stdout.decode()[-4000:]


def test_fast_queue_cycle_is_collected(tmpfile):
    """A Queue dropped with commands in flight whose callbacks refer to it is collected
    (FastQueue takes part in the cycle GC) and closed by its finalizer."""
    import gc  # pylint: disable=import-outside-toplevel
    import weakref  # pylint: disable=import-outside-toplevel
    _need_fast()
    with xnvme.open(tmpfile, rdwr=True, async_="thrpool") as dev:
        q = dev.queue(8)
        q.submit_read(0, 1, lambda cpl, q=q: q.outstanding, tag=1)
        ref = weakref.ref(q)
        del q
        gc.collect()
        assert ref() is None


def test_fast_submit_read_arguments_and_fallbacks(tmpfile):
    """Queue.submit_read in C (the common case) and every case it hands to the Python method:
    the same results and errors either way."""
    _need_fast()
    with xnvme.open(tmpfile, rdwr=True, async_="emu") as dev:
        lba = dev.geo.lba_nbytes
        dev.write(0, b"".join(bytes([i + 1]) * lba for i in range(8)))
        q = dev.queue(4)
        assert type(q.submit_read).__name__ == "builtin_function_or_method"
        got = []
        bufs = [dev.buffer(lba) for _ in range(6)]
        assert q.submit_read(0, 1, got.append, bufs[0], "pos") is bufs[0]   # positional
        assert q.submit_read(1, callback=got.append, buf=bufs[1], tag="kw") is bufs[1]
        assert q.submit_read(slba=2, nlb=1, buf=bufs[2], callback=got.append) is bufs[2]
        new = q.submit_read(3, 1, got.append, tag="alloc")        # no buffer: Python path
        assert isinstance(new, xnvme.Buffer) and new.nbytes == lba
        assert q.outstanding == 4
        q.submit_read(4, 1, got.append, bufs[4], "full")  # full: the Python path pokes
        q.drain()
        data = {c.tag: c.buffer.tobytes() for c in got}
        assert data["pos"] == b"\x01" * lba and data["kw"] == b"\x02" * lba
        assert data[None] == b"\x03" * lba and data["alloc"] == b"\x04" * lba
        assert data["full"] == b"\x05" * lba
        with pytest.raises(TypeError):
            q.submit_read(0, 1, None, bufs[0], None, 9)
        with pytest.raises(TypeError):
            q.submit_read(0, bogus=1)
        with pytest.raises(TypeError):
            q.submit_read(0, 1, slba=0)
        with pytest.raises(ValueError):
            q.submit_read(0, 2, buf=bufs[5])                  # too small
        with pytest.raises(ValueError):
            q.submit_read(0, 0, buf=bufs[5])                  # nlb 0
        bufs[5].close()
        with pytest.raises(ValueError):
            q.submit_read(0, 1, buf=bufs[5])                  # closed
        res = []
        try:                                                  # refused or failed: status kept
            q.submit_read(dev.geo.nlbas, 1, res.append, bufs[0])
        except xnvme.XnvmeError as exc:
            res.append(exc)
        q.drain()
        assert len(res) == 1
        err = res[0] if isinstance(res[0], xnvme.XnvmeError) else res[0].error
        assert (err.sct, err.sc) == (0, 0x80)
        assert q.outstanding == 0
        stale = q.submit_read
        q.close()
        with pytest.raises(ValueError):
            stale(0, 1, buf=bufs[0])                          # the C method after close
        with pytest.raises(ValueError):
            q.submit_read(0, 1, buf=bufs[0])
