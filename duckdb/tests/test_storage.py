# SPDX-License-Identifier: BSD-3-Clause
"""Databases on the ramdisk and on a file: create, insert, checkpoint, detach, re-attach"""
import os
import re

from conftest import DEVICE, NO_RAW, RAMDISK, connect, detail_value, device_nbytes, info, region, run_child


def fill(con, db, n=200_000):
    con.execute(f"CREATE TABLE {db}.t AS SELECT range AS i, 'row-' || range AS s FROM range({n})")


def check(con, db, n=200_000):
    assert con.execute(f"SELECT count(*), sum(i), max(s) FROM {db}.t").fetchall() == [
        (n, n * (n - 1) // 2, max(f"row-{i}" for i in range(n)))]


def test_ramdisk_roundtrip(ramdisk):
    con = ramdisk
    con.execute("ATTACH 'nvmefs://one.db' AS one")
    fill(con, "one")
    con.execute("INSERT INTO one.t VALUES (-1, 'extra')")
    con.execute("CHECKPOINT one")
    con.execute("INSERT INTO one.t VALUES (-2, 'in the wal')")
    con.execute("DETACH one")
    con.execute("ATTACH 'nvmefs://one.db' AS one")
    assert con.execute("SELECT count(*) FROM one.t").fetchall() == [(200_002,)]
    assert con.execute("SELECT s FROM one.t WHERE i < 0 ORDER BY i").fetchall() == [("in the wal",), ("extra",)]
    files = {r["name"]: r for r in info(con, "file")}
    assert files["nvmefs://one.db"]["region"] == "db"
    assert files["nvmefs://one.db"]["size_bytes"] > 0


def test_ramdisk_survives_new_connection(extension, ramdisk):
    ramdisk.execute("ATTACH 'nvmefs://keep.db' AS keep")
    fill(ramdisk, "keep", 1000)
    ramdisk.execute("DETACH keep")
    # a second database instance in the same process sees the same ramdisk
    other = connect(extension, f"DEVICE '{RAMDISK}'")
    other.execute("ATTACH 'nvmefs://keep.db' AS keep")
    check(other, "keep", 1000)
    other.close()


def test_file_roundtrip_across_processes(extension, device_file):
    run_child(extension, f"""
        con = connect(EXT, "DEVICE '{device_file}'")
        con.execute("SELECT * FROM nvmefs_format()")
        con.execute("ATTACH 'nvmefs://data/f.db' AS f")
        con.execute("CREATE TABLE f.t AS SELECT range AS i, 'row-' || range AS s FROM range(200000)")
        con.execute("CHECKPOINT f")
        con.execute("INSERT INTO f.t VALUES (-1, 'wal only')")
        con.close()
    """)
    con = connect(extension, f"DEVICE '{device_file}'")
    con.execute("ATTACH 'nvmefs://data/f.db' AS f")
    assert con.execute("SELECT count(*), sum(i) FROM f.t").fetchall() == [(200_001, 200_000 * 199_999 // 2 - 1)]
    con.close()


def test_several_databases_and_reuse(ramdisk):
    con = ramdisk
    for name in ["a", "b", "c"]:
        con.execute(f"ATTACH 'nvmefs://{name}.db' AS {name}")
        fill(con, name, 50_000)
    for name in ["a", "b", "c"]:
        check(con, name, 50_000)
    names = {r["name"] for r in info(con, "file")}
    assert {"nvmefs://a.db", "nvmefs://b.db", "nvmefs://c.db"} <= names
    used = region(con, "db")["allocated_bytes"]
    assert used >= 3 * 256 * 1024
    # files written through COPY live on the device as well, and are read back
    con.execute("COPY (SELECT * FROM a.t WHERE i < 100) TO 'nvmefs://export/a.csv'")
    assert con.execute("SELECT count(*) FROM read_csv('nvmefs://export/a.csv')").fetchall() == [(100,)]
    assert con.execute("SELECT count(*) FROM glob('nvmefs://export/*.csv')").fetchall() == [(1,)]
    # a file replaced by a new one of the same name gives its space back
    before = region(con, "db")["free_bytes"]
    for _ in range(3):
        con.execute("COPY (SELECT * FROM range(100000)) TO 'nvmefs://export/a.csv'")
    assert region(con, "db")["free_bytes"] >= before - 4 * 1024 * 1024


def test_many_small_commits_unaligned_wal(ramdisk):
    con = ramdisk
    con.execute("ATTACH 'nvmefs://w.db' AS w")
    con.execute("CREATE TABLE w.t(i INTEGER, s VARCHAR)")
    for i in range(300):
        con.execute("INSERT INTO w.t VALUES (?, ?)", [i, "x" * (i % 37)])
    wal = next(r for r in info(con, "file") if r["name"] == "nvmefs://w.db.wal")
    assert wal["region"] == "wal" and wal["size_bytes"] % 512 != 0
    # appends reuse the cached partial LBA instead of reading it back
    assert int(detail_value(region(con, "wal"), "rmw_reads")) < 10
    con.execute("DETACH w")
    con.execute("ATTACH 'nvmefs://w.db' AS w")
    assert con.execute("SELECT count(*), sum(i), sum(length(s)) FROM w.t").fetchall() == [
        (300, sum(range(300)), sum(i % 37 for i in range(300)))]


def test_info_layout(ramdisk):
    dev = info(ramdisk, "device")[0]
    # without a raw view (vfio) only the extension's own view of the size is there to check
    nbytes = dev["size_bytes"] if DEVICE and NO_RAW else device_nbytes(RAMDISK)
    assert dev["name"] == RAMDISK and dev["size_bytes"] == nbytes and nbytes > 0
    # a device path opens through the linux backend, a PCI address through vfio, a
    # "host:port" URI through tcp
    if not DEVICE:
        be = "be=ramdisk"
    elif DEVICE.startswith("/"):
        be = "be=linux"
    elif re.fullmatch(r"([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]", DEVICE):
        be = "be=vfio"
    else:
        be = "be=tcp"
    assert "state=mounted" in dev["detail"] and be in dev["detail"]
    regions = {r["name"]: r for r in info(ramdisk, "region")}
    assert set(regions) == {"db", "wal", "temp"}
    starts = sorted(int(detail_value(r, "start_lba")) for r in regions.values())
    assert starts[0] > 0  # LBA 0 and the metadata copies come first
    total = sum(r["size_bytes"] for r in regions.values())
    assert 0.95 * nbytes < total <= nbytes


def test_directories(ramdisk):
    con = ramdisk
    con.execute("COPY (SELECT 1 AS x) TO 'nvmefs://d1/d2/f.parquet'")
    assert con.execute("SELECT x FROM 'nvmefs://d1/d2/f.parquet'").fetchall() == [(1,)]
    assert con.execute("SELECT count(*) FROM glob('nvmefs://d1/*/*.parquet')").fetchall() == [(1,)]


def test_block_device(extension, tmp_path):
    """A loop device over a file: the library's block device path (needs root and loop devices)"""
    import shutil
    import subprocess

    import pytest
    if os.geteuid() != 0 or not shutil.which("losetup"):
        pytest.skip("needs root and losetup")
    image = tmp_path / "block.img"
    with open(image, "wb") as f:
        f.truncate(256 << 20)
    proc = subprocess.run(["losetup", "-f", "--show", str(image)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        pytest.skip(f"no loop device: {proc.stderr.strip()}")
    loop = proc.stdout.strip()
    try:
        con = connect(extension, f"DEVICE '{loop}'")
        con.execute("SELECT * FROM nvmefs_format()")
        con.execute("ATTACH 'nvmefs://blk.db' AS blk")
        fill(con, "blk", 100_000)
        con.execute("DETACH blk")
        con.execute("ATTACH 'nvmefs://blk.db' AS blk")
        check(con, "blk", 100_000)
        dev = info(con, "device")[0]
        assert dev["size_bytes"] == 256 << 20
        con.close()
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)
