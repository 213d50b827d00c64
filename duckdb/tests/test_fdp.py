# SPDX-License-Identifier: BSD-3-Clause
"""Flexible Data Placement: on a namespace with FDP enabled, database, WAL and temporary data
are written with different placement handles (checked through the ramdisk's FDP emulation, or on
QEMU's FDP namespace named by $NVMEFS_TEST_FDP_DEVICE: each handle's reclaim unit fills up only
with the data sent to it)."""
import os

import pytest

from conftest import connect, detail_value, info, region

# 8 handles, 1 GiB reclaim units (no reclaim unit fills up during the test)
FDP_RAMDISK = "1GB?fdp=1,nruh=8,runs=1073741824"
# QEMU's namespace has smaller reclaim units: a handle that wrote more than one unit has moved to
# a fresh one, so there only "changed" and "unchanged" are exact
FDP_DEVICE = os.environ.get("NVMEFS_TEST_FDP_DEVICE", "")
FDP_OPTS = os.environ.get("NVMEFS_TEST_FDP_OPTS", "")


def ruamw(con):
    return [int(x) for x in detail_value(info(con, "device")[0], "ruamw").strip("[]").split(",")]


@pytest.fixture
def fdp(extension):
    if FDP_DEVICE:
        params = f"DEVICE '{FDP_DEVICE}'" + (f", {FDP_OPTS}" if FDP_OPTS else "")
    else:
        params = f"DEVICE '{FDP_RAMDISK}'"
    con = connect(extension, params)
    try:
        dev = info(con, "device")[0]
    except Exception as e:  # noqa: BLE001
        if FDP_DEVICE:  # a real FDP namespace was named: nothing to skip
            raise
        pytest.skip(f"this libxnvme's ramdisk has no FDP emulation: {e}")
    if "fdp=on" not in dev["detail"]:
        assert not FDP_DEVICE, f"{FDP_DEVICE}: FDP is not enabled on the namespace: {dev['detail']}"
        pytest.skip("this libxnvme's ramdisk has no FDP emulation")
    con.execute("SELECT * FROM nvmefs_format(force := true)")
    yield con
    con.close()


def test_placement_handles(fdp):
    con = fdp
    handles = {r["name"]: r["placement_handle"] for r in info(con, "region")}
    assert len(set(handles.values())) == 3, handles  # db, wal and temp each their own
    start = ruamw(con)

    con.execute("ATTACH 'nvmefs://p.db' AS p")
    con.execute("CREATE TABLE p.t AS SELECT range AS i, md5(range::VARCHAR) AS h FROM range(300000)")
    con.execute("INSERT INTO p.t VALUES (-1, 'wal')")
    files = {r["name"]: r for r in info(con, "file")}
    assert files["nvmefs://p.db"]["placement_handle"] == handles["db"]
    assert files["nvmefs://p.db.wal"]["placement_handle"] == handles["wal"]
    con.execute("CHECKPOINT p")
    con.execute("SET memory_limit = '64MB'; SET threads = 2; SET temp_directory = 'nvmefs://tmp'")
    con.execute("SELECT h, i FROM p.t, range(8) ORDER BY h || range LIMIT 1 OFFSET 1000000").fetchall()
    assert int(detail_value(region(con, "temp"), "write_bytes")) > 0
    now = ruamw(con)
    unused = set(range(len(now))) - set(handles.values())
    if FDP_DEVICE:
        for name in ("db", "wal", "temp"):
            assert now[handles[name]] != start[handles[name]], (name, start, now)
        assert all(now[i] == start[i] for i in unused), (start, now)
        return
    used = [a - b for a, b in zip(start, now)]
    for name in ("db", "wal", "temp"):
        assert used[handles[name]] > 0, (name, used)
    assert all(used[i] == 0 for i in unused), used
    # the temp data went to its own handle: far more than the metadata and WAL
    assert used[handles["temp"]] * 512 > 8 << 20


def test_no_fdp_no_directive(ramdisk):
    dev = info(ramdisk, "device")[0]
    assert "fdp=off" in dev["detail"]
    assert all(r["placement_handle"] is None for r in info(ramdisk, "region"))
