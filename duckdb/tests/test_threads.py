# SPDX-License-Identifier: BSD-3-Clause
"""Several client threads and DuckDB worker threads doing I/O at once: every thread gets its own
library queue, and the data stays consistent."""
import threading

from conftest import connect, detail_value, info


def test_concurrent_clients(ramdisk):
    con = ramdisk
    con.execute("SET threads = 4")
    con.execute("ATTACH 'nvmefs://mt1.db' AS mt1")
    con.execute("ATTACH 'nvmefs://mt2.db' AS mt2")
    con.execute("CREATE TABLE mt1.base AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(500000)")
    nthreads, rounds = 6, 15
    for t in range(nthreads):
        con.execute(f"CREATE TABLE mt{1 + t % 2}.w{t}(t INTEGER, r INTEGER, payload VARCHAR)")
    errors = []

    def worker(t):
        try:
            cur = con.cursor()
            for r in range(rounds):
                cur.execute(f"INSERT INTO mt{1 + t % 2}.w{t} SELECT {t}, {r}, repeat('x', range % 300) "
                            f"FROM range({1000 + t * 100})")
                n = cur.execute("SELECT count(*), sum(i) FROM mt1.base").fetchall()
                assert n == [(500000, 500000 * 499999 // 2)]
                if r % 5 == 4:
                    try:
                        cur.execute(f"CHECKPOINT mt{1 + t % 2}")
                    except Exception as e:  # noqa: BLE001 - another client is writing: fine
                        if "other write transactions" not in str(e):
                            raise
            cur.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(nthreads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    dev = info(con, "device")[0]
    assert int(detail_value(dev, "queues")) >= 2
    con.execute("DETACH mt1")
    con.execute("DETACH mt2")
    con.execute("ATTACH 'nvmefs://mt1.db' AS mt1")
    con.execute("ATTACH 'nvmefs://mt2.db' AS mt2")
    for t in range(nthreads):
        got = con.execute(f"SELECT count(*), count(DISTINCT r), sum(length(payload)) FROM mt{1 + t % 2}.w{t}").fetchall()
        n = 1000 + t * 100
        assert got == [(rounds * n, rounds, rounds * sum(i % 300 for i in range(n)))]


def test_parallel_scan_and_spill(ramdisk):
    con = ramdisk
    con.execute("SET threads = 4; SET memory_limit = '96MB'; SET temp_directory = 'nvmefs://tmp'")
    con.execute("ATTACH 'nvmefs://scan.db' AS s")
    con.execute("CREATE TABLE s.t AS SELECT range AS i, md5(range::VARCHAR) AS h FROM range(2000000)")
    con.execute("CHECKPOINT s")
    con.execute("DETACH s")
    con.execute("ATTACH 'nvmefs://scan.db' AS s")  # cold: everything is read back from the device
    got = con.execute("SELECT count(DISTINCT h), sum(i) FROM s.t").fetchall()
    assert got == [(2000000, 2000000 * 1999999 // 2)]
