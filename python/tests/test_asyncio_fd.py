"""The asyncio driver and completion fds: only an eventfd is read by the application.

An epoll fd (tcp) or a completion channel (rdma) belongs to the library, whose poke consumes
its readiness; reading it fails (epoll) or steals the event the library must acknowledge
(rdma). The tcp tests need tests/tcp_target_serve of a meson build: its path in
XNVME_TCP_TARGET_SERVE (scripts/test.sh sets it), else they skip.
"""
import asyncio
import os
import select
import subprocess

import pytest
from conftest import open_target

import xnvme
from xnvme import device as xdev


def test_is_eventfd_tells_eventfd_from_other_fds():
    efd = os.eventfd(0)
    ep = select.epoll()
    rd, wr = os.pipe()
    try:
        assert xdev._is_eventfd(efd)  # pylint: disable=protected-access
        for fd in (ep.fileno(), rd, wr):
            assert not xdev._is_eventfd(fd)  # pylint: disable=protected-access
    finally:
        os.close(efd)
        ep.close()
        os.close(rd)
        os.close(wr)
    assert not xdev._is_eventfd(efd)  # pylint: disable=protected-access


@pytest.fixture
def fd_reads(monkeypatch):
    """The fds os.read is called on while the test runs."""
    seen = []
    real = os.read

    def spy(fd, n):
        seen.append(fd)
        return real(fd, n)

    monkeypatch.setattr(os, "read", spy)
    return seen


def pattern(nbytes, seed):
    return bytes((i * 13 + seed) & 0xFF for i in range(nbytes))


async def round_trips(dev, rounds):
    """Many one-command write/read round trips, then a batch in flight; data compared."""
    lbas = dev.geo.lba_nbytes
    for i in range(rounds):
        slba = (i * 7) % 4096
        await dev.awrite(slba, pattern(lbas, i))
        assert bytes(await dev.aread(slba, 1)) == pattern(lbas, i), "round trip %d" % i
    await asyncio.gather(*[dev.awrite(8192 + i, pattern(lbas, 200 + i)) for i in range(48)])
    bufs = await asyncio.gather(*[dev.aread(8192 + i, 1) for i in range(48)])
    for i, buf in enumerate(bufs):
        assert bytes(buf) == pattern(lbas, 200 + i)
    return dev._driver()  # pylint: disable=protected-access


@pytest.fixture
def tcp_target():
    """tests/tcp_target_serve: the address of a test NVMe/TCP target on the loopback."""
    exe = os.environ.get("XNVME_TCP_TARGET_SERVE")
    if not exe or not os.access(exe, os.X_OK):
        pytest.skip("no tcp test target (XNVME_TCP_TARGET_SERVE=%r)" % exe)
    with subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        try:
            addr = proc.stdout.readline().decode().strip()
            assert addr, "tcp_target_serve printed no address"
            yield addr
        finally:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_asyncio_tcp_never_reads_the_epoll_fd(tcp_target, fd_reads):
    """tcp: the loop pokes on readiness and never reads the fd; no wakeup is lost (a round
    trip left waiting would end the run at the timeout)."""
    with xnvme.open(tcp_target + "?subnqn=nqn.2024-01.io.xnvme:fdwait", be="tcp") as dev:
        drv = asyncio.run(asyncio.wait_for(round_trips(dev, 500), timeout=60))
        assert drv.fd is not None
        assert drv.fd not in fd_reads, "the epoll fd was read"
        assert not drv.eventfd


@pytest.mark.parametrize("mech", ["io_uring", "libaio"])
def test_asyncio_eventfd_is_read(mech, tmpfile, fd_reads):
    """io_uring, libaio: an eventfd, read by the loop to clear it (add_reader is
    level-triggered: left set, the loop would poke on every iteration)."""
    with open_target("file", mech, tmpfile) as dev:
        drv = asyncio.run(asyncio.wait_for(round_trips(dev, 20), timeout=60))
        assert drv.fd is not None and drv.eventfd
        assert drv.fd in fd_reads
