# SPDX-License-Identifier: BSD-3-Clause
"""Crash consistency on a file-backed device: a child process commits, then dies with os._exit
(no checkpoint, no close); the next ATTACH replays the WAL and sees exactly the committed data."""
import pytest

from conftest import connect, info, raw_open, read_raw, run_child

CHILD_SETUP = """
    con = connect(EXT, "DEVICE '{dev}'")
    if {fmt}:
        con.execute("SELECT * FROM nvmefs_format()")
    con.execute("ATTACH 'nvmefs://crash.db' AS c")
    con.execute("USE c")
    con.execute("SET wal_autocheckpoint = '1GB'")
"""


def child(extension, dev, body, fmt=True):
    run_child(extension, CHILD_SETUP.format(dev=dev, fmt=fmt) + body)


def reopen(extension, dev):
    con = connect(extension, f"DEVICE '{dev}'")
    con.execute("ATTACH 'nvmefs://crash.db' AS c")
    return con


def test_crash_after_commits(extension, device_file):
    child(extension, device_file, """
    con.execute("CREATE TABLE t(i INTEGER, s VARCHAR)")
    for k in range(20):
        con.execute("INSERT INTO t SELECT range + ?, 'v' || range FROM range(500)", [k * 500])
    con.execute("UPDATE t SET s = 'updated' WHERE i % 100 = 0")
    con.execute("DELETE FROM t WHERE i >= 9900")
    os._exit(0)
    """)
    con = reopen(extension, device_file)
    assert con.execute("SELECT count(*), sum(i), count(*) FILTER (WHERE s = 'updated') FROM c.t").fetchall() == [
        (9900, sum(range(9900)), 99)]
    con.close()


def test_crash_mid_transaction(extension, device_file):
    child(extension, device_file, """
    con.execute("CREATE TABLE t(i INTEGER)")
    con.execute("INSERT INTO t SELECT range FROM range(1000)")
    con.execute("BEGIN")
    con.execute("INSERT INTO t SELECT range FROM range(100000)")
    con.execute("DELETE FROM t WHERE i < 500")
    os._exit(0)
    """)
    con = reopen(extension, device_file)
    assert con.execute("SELECT count(*), sum(i) FROM c.t").fetchall() == [(1000, sum(range(1000)))]
    con.close()


def test_crash_after_checkpoint_and_large_transaction(extension, device_file):
    # a checkpointed base, a large transaction written straight to database blocks, small
    # transactions in the WAL, and an uncommitted large one
    child(extension, device_file, """
    con.execute("CREATE TABLE t AS SELECT range AS i FROM range(300000)")
    con.execute("CHECKPOINT")
    con.execute("INSERT INTO t SELECT range + 300000 FROM range(500000)")
    con.execute("INSERT INTO t VALUES (-1), (-2)")
    con.execute("BEGIN")
    con.execute("INSERT INTO t SELECT range FROM range(700000)")
    os._exit(0)
    """)
    con = reopen(extension, device_file)
    assert con.execute("SELECT count(*), sum(i) FROM c.t").fetchall() == [(800_002, sum(range(800_000)) - 3)]
    # the recovered database keeps working and checkpoints
    con.execute("INSERT INTO c.t VALUES (5)")
    con.execute("CHECKPOINT c")
    con.close()
    con = reopen(extension, device_file)
    assert con.execute("SELECT count(*) FROM c.t").fetchall() == [(800_003,)]
    con.close()


def test_repeated_crashes(extension, device_file):
    child(extension, device_file, """
    con.execute("CREATE TABLE t(k INTEGER)")
    con.execute("INSERT INTO t VALUES (0)")
    os._exit(0)
    """)
    for k in range(1, 4):
        child(extension, device_file, f"""
    con.execute("INSERT INTO t VALUES ({k})")
    if {k} == 2:
        con.execute("CHECKPOINT")
    os._exit(0)
    """, fmt=False)
    con = reopen(extension, device_file)
    assert con.execute("SELECT list(k ORDER BY k) FROM c.t").fetchall() == [([0, 1, 2, 3],)]
    con.close()


def corrupt_newest_metadata_copy(path):
    """Damages the metadata copy with the higher generation (a torn metadata write)"""
    import struct
    with raw_open(path, "r+b") as f:
        copies = []
        for slot in range(2):
            off = 4096 + slot * 256 * 4096
            f.seek(off)
            hdr = f.read(64)
            if hdr[:8] == b"NVMEFSMD":
                copies.append((struct.unpack_from("<Q", hdr, 24)[0], off))
        seq, off = max(copies)
        f.seek(off + 64)
        f.write(b"\xff" * 16)
        return seq


def test_torn_metadata_write_falls_back_to_older_copy(extension, device_file):
    con = connect(extension, f"DEVICE '{device_file}'")
    con.execute("SELECT * FROM nvmefs_format()")
    con.execute("ATTACH 'nvmefs://a.db' AS a")
    con.execute("CREATE TABLE a.t AS SELECT range AS i FROM range(1000)")
    con.execute("DETACH a")
    con.close()
    # an extra commit whose copy then gets damaged: mount must take the previous generation
    con = connect(extension, f"DEVICE '{device_file}'")
    con.execute("COPY (SELECT 1) TO 'nvmefs://extra.csv'")
    gen = int(next(p.split("=")[1] for p in info(con, "device")[0]["detail"].split() if p.startswith("generation=")))
    con.close()
    assert corrupt_newest_metadata_copy(device_file) == gen
    con = connect(extension, f"DEVICE '{device_file}'")
    names = {r["name"] for r in info(con, "file")}
    assert "nvmefs://a.db" in names and "nvmefs://extra.csv" not in names
    con.execute("ATTACH 'nvmefs://a.db' AS a")
    assert con.execute("SELECT count(*) FROM a.t").fetchall() == [(1000,)]
    con.close()


@pytest.mark.parametrize("mode", ["superblock", "both_copies"])
def test_corruption_is_refused(extension, device_file, mode):
    con = connect(extension, f"DEVICE '{device_file}'")
    con.execute("SELECT * FROM nvmefs_format()")
    con.execute("ATTACH 'nvmefs://a.db' AS a")
    con.execute("CREATE TABLE a.t AS SELECT 1 AS x")
    con.close()
    with raw_open(device_file, "r+b") as f:
        if mode == "superblock":
            f.seek(200)
            f.write(b"\x01")
        else:
            for slot in range(2):
                f.seek(4096 + slot * 256 * 4096 + 64)
                f.write(b"\xee" * 8)
    before = read_raw(device_file, 4 << 20)
    con = connect(extension, f"DEVICE '{device_file}'")
    with pytest.raises(Exception, match="refusing to use device"):
        con.execute("ATTACH 'nvmefs://a.db' AS a")
    with pytest.raises(Exception, match="refusing to format"):
        con.execute("SELECT * FROM nvmefs_format()")
    row = info(con, "device")[0]
    assert "state=refused" in row["detail"]
    assert ("checksum mismatch" if mode == "superblock" else "metadata copies are damaged") in row["detail"]
    con.close()
    assert read_raw(device_file, 4 << 20) == before  # never overwritten
