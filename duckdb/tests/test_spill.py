# SPDX-License-Identifier: BSD-3-Clause
"""Spill-heavy queries under a small memory limit give the same results with temporary files on
nvmefs as on DuckDB's local file system, and the temporary space is given back afterwards."""
import json
import os

import pytest

from conftest import RAMDISK, connect, detail_value, info, region

QUERIES = {
    "aggregate": """SELECT k % 150000 AS g, count(*) AS n, sum(v) AS s, min(t) AS m
                    FROM (SELECT range AS k, hash(range) % 1000 AS v, md5(range::VARCHAR) AS t FROM range(3000000))
                    GROUP BY g ORDER BY g""",
    "sort": """SELECT md5(range::VARCHAR) AS h, range AS i FROM range(2000000) ORDER BY h LIMIT 5 OFFSET 1000000""",
    "join": """SELECT count(*), sum(a.i * b.j) FROM
                 (SELECT range AS i, md5(range::VARCHAR) AS k FROM range(1500000)) a
                 JOIN (SELECT range AS j, md5(range::VARCHAR) AS k FROM range(1500000)) b USING (k)""",
    "window": """SELECT sum(r) FROM (SELECT row_number() OVER (PARTITION BY range % 1000 ORDER BY md5(range::VARCHAR)) AS r
                 FROM range(2000000))""",
}

SETTINGS = "SET memory_limit = '64MB'; SET threads = 2; SET preserve_insertion_order = false"


@pytest.fixture(scope="module")
def local_results(extension, tmp_path_factory):
    # $NVMEFS_TEST_LOCAL_RESULTS caches them between runs of the suite on several devices
    cache = os.environ.get("NVMEFS_TEST_LOCAL_RESULTS")
    if cache and os.path.exists(cache):
        with open(cache) as f:
            return {name: [tuple(row) for row in rows] for name, rows in json.load(f).items()}
    con = connect(extension)
    con.execute(SETTINGS)
    con.execute(f"SET temp_directory = '{tmp_path_factory.mktemp('spill')}'")
    results = {name: con.execute(q).fetchall() for name, q in QUERIES.items()}
    con.close()
    if cache:
        with open(cache, "w") as f:
            json.dump(results, f)
    return results


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_spill_matches_local(extension, ramdisk, local_results, name):
    con = ramdisk
    con.execute(SETTINGS)
    con.execute("SET temp_directory = 'nvmefs://tmp'")
    before = int(detail_value(region(con, "temp"), "write_bytes"))
    assert con.execute(QUERIES[name]).fetchall() == local_results[name]
    temp = region(con, "temp")
    assert int(detail_value(temp, "write_bytes")) - before > 16 << 20, "the query did not spill"
    # every temporary file of the query is gone and its space free again
    assert temp["free_bytes"] == temp["size_bytes"]
    leftover = [r for r in info(con, "file") if r["region"] == "temp" and r["size_bytes"]]
    assert not leftover


def test_spill_on_file_device(extension, device_file, local_results):
    con = connect(extension, f"DEVICE '{device_file}'")
    con.execute("SELECT * FROM nvmefs_format(temp_percent := 70)")
    con.execute(SETTINGS)
    con.execute("SET temp_directory = 'nvmefs://spill'")
    assert con.execute(QUERIES["aggregate"]).fetchall() == local_results["aggregate"]
    names = [r["name"] for r in info(con, "file")]
    assert any(n.startswith("nvmefs://spill/duckdb_temp_") for n in names)  # the owner marker
    con.close()
    # temporary files are not part of the persisted file table
    con = connect(extension, f"DEVICE '{device_file}'")
    assert not [r for r in info(con, "file") if r["region"] == "temp"]
    con.close()
