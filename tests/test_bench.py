# SPDX-License-Identifier: BSD-3-Clause
"""Keeps the benchmark programs and scripts working: xnvmeperf's options and output, nil_loop,
churn, the instruction table (without the original: the suite never measures it) and
bench/run_all.sh --smoke (every bench script for about a second on the ramdisk). These are not
timing assertions: only structure and plausibility are checked.

Environment: XNVME_BENCH_NIL_LOOP, XNVME_BENCH_XNVMEPERF, XNVME_BENCH_CHURN and
XNVME_BENCH_LIBDIR (set by tests/meson.build).
"""
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERF = os.environ.get("XNVME_BENCH_XNVMEPERF")
NIL_LOOP = os.environ.get("XNVME_BENCH_NIL_LOOP")
CHURN = os.environ.get("XNVME_BENCH_CHURN")
LIBDIR = os.environ.get("XNVME_BENCH_LIBDIR")


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def perf_json(*args):
    r = run([PERF, "--json", "--no-progress"] + list(args))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(autouse=True)
def need_programs():
    if not PERF or not NIL_LOOP or not CHURN or not LIBDIR:
        pytest.skip("XNVME_BENCH_XNVMEPERF / _NIL_LOOP / _CHURN / _LIBDIR not set")


def check_lat(lat):
    assert lat["min"] <= lat["p50"] <= lat["p99"] <= lat["p99_9"] <= lat["max"]
    assert lat["min"] <= lat["mean"] <= lat["max"]


def test_xnvmeperf_count_nil():
    doc = perf_json("--async", "nil", "--count", "5000", "--qdepth", "8", "1GB")
    t = doc["total"]
    assert t["ios"] == 5000 and t["reads"] == 5000 and t["writes"] == 0 and t["errors"] == 0
    assert t["iops"] > 0 and t["mib_s"] > 0
    check_lat(t["lat_ns"])
    assert doc["config"]["async"] == "nil" and doc["config"]["qdepth"] == 8


def test_xnvmeperf_threads_devices_mix():
    doc = perf_json("--async", "thrpool", "--count", "2000", "--qdepth", "4", "--threads", "3",
                    "--rw", "randrw", "--rwmixread", "70", "--iosize", "8k", "1GB", "2GB")
    assert len(doc["threads"]) == 3 and len(doc["devices"]) == 2
    assert [d["threads"] for d in doc["devices"]] == [2, 1]
    t = doc["total"]
    assert t["ios"] == 6000 and t["reads"] + t["writes"] == 6000
    assert t["reads"] > t["writes"] > 0
    check_lat(t["lat_ns"])


def test_xnvmeperf_sync_sequential_write_and_runtime():
    doc = perf_json("--qdepth", "0", "--rw", "write", "--runtime", "0.2", "1GB")
    t = doc["total"]
    assert t["writes"] == t["ios"] > 0 and 0.15 < t["elapsed_s"] < 5
    assert doc["config"]["async"] == "(sync)"


def test_xnvmeperf_file_and_text(tmp_path):
    f = tmp_path / "perf.img"
    f.write_bytes(b"\0" * (4 << 20))
    r = run([PERF, "--count", "500", "--qdepth", "4", "--rw", "randrw", str(f)])
    assert r.returncode == 0, r.stderr
    for key in ("iops:", "mib_s:", "lat_ns:", "p99_9:", "cpu:"):
        assert key in r.stdout


def test_xnvmeperf_bad_input():
    assert run([PERF, "--rw", "sideways", "1GB"]).returncode == 2
    assert run([PERF, "--qdepth", "5000", "1GB"]).returncode == 2
    assert run([PERF, "--runtime", "1", "--count", "5", "1GB"]).returncode == 2
    assert run([PERF]).returncode == 2
    r = run([PERF, "--count", "10", "--iosize", "700", "1GB"])
    assert r.returncode == 1 and "multiple of the LBA size" in r.stderr
    r = run([PERF, "--count", "10", "/nonexistent/xnvmeperf.img"])
    assert r.returncode == 1 and "cannot open" in r.stderr and "does not exist" in r.stderr
    r = run([PERF, "--count", "10", "--async", "nosuchmech", "1GB"])
    assert r.returncode == 1


def test_nil_loop():
    r = run([NIL_LOOP, "-n", "100000", "-q", "4", "-j"])
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["ios"] == 100000 and doc["async"] == "nil" and doc["ns_per_io"] > 0


def test_churn():
    r = run([CHURN, "-n", "50", "-g", "1GB"], env=dict(os.environ, LD_LIBRARY_PATH=LIBDIR))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["cycles"] == 50 and doc["geo"] == 1 and doc["cycles_per_s"] > 0
    assert run([CHURN, "-n", "5", "/nonexistent/churn.img"]).returncode == 1
    assert run([CHURN]).returncode == 2


def test_instr_table_without_original(tmp_path):
    """bench/instr_table.py: no --original, no original column; the nil loop row counted"""
    out = tmp_path / "t.json"
    r = run(["python3", os.path.join(ROOT, "bench", "instr_table.py"), "--lib", LIBDIR,
             "--nil-loop", NIL_LOOP, "--rows", "nil-loop", "--smoke", "--json", str(out)])
    if r.returncode == 77:
        pytest.skip("valgrind missing")
    assert r.returncode == 0, r.stderr
    assert "original's column is skipped" in r.stderr
    doc = json.loads(out.read_text())
    assert [n for n, _ in doc["libs"]] == ["this"]
    assert 50 < doc["rows"]["nil-loop"]["this"] < 1000
    r = run(["python3", os.path.join(ROOT, "bench", "instr_table.py"), "--lib", LIBDIR,
             "--original", str(tmp_path / "no-such-prefix")])
    assert r.returncode == 2 and "no libxnvme.so.0" in r.stderr


def test_run_all_smoke(tmp_path):
    env = dict(os.environ, XNVME_BENCH_NIL_LOOP=NIL_LOOP, XNVME_BENCH_XNVMEPERF=PERF,
               XNVME_BENCH_CHURN=CHURN, XNVME_BENCH_LIBDIR=LIBDIR)
    r = run(["bash", os.path.join(ROOT, "bench", "run_all.sh"), "--smoke", "--outdir",
             str(tmp_path)], env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    md = (tmp_path / "README.md").read_text()
    assert "xnvmeperf" in md
    perf = json.loads((tmp_path / "xnvmeperf.json").read_text())
    assert perf and all("doc" in p for p in perf if p["label"].startswith("nil"))
    if (tmp_path / "instructions.json").exists():
        instr = json.loads((tmp_path / "instructions.json").read_text())
        assert instr["nil_loop"][0]["library_per_io"] > 0
    if (tmp_path / "instr_table.json").exists():
        itab = json.loads((tmp_path / "instr_table.json").read_text())
        assert [n for n, _ in itab["libs"]] == ["this"]  # never the original in the suite
        assert "Instructions per I/O, this library" in md
    churn = json.loads((tmp_path / "churn.json").read_text())
    assert all(r["median"]["this"] > 0 for r in churn["uris"].values())
    assert "Open/close churn" in md
    if (tmp_path / "suite-host.json").exists():
        suite = json.loads((tmp_path / "suite-host.json").read_text())
        assert suite["cells"] and suite["cells"][0]["target"] == "ramdisk"


def test_suite_smoke(tmp_path):
    """bench/suite.py end to end on the ramdisk (fio null vs xnvme nil): table, JSON and SVG"""
    fio = os.environ.get("XNVME_FIO") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "xnvme-fio", "fio-3.33", "fio")
    if not os.access(fio, os.X_OK):
        pytest.skip("no fio with the xnvme engine (XNVME_FIO)")
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(NIL_LOOP))), "lib")
    r = run(["python3", os.path.join(ROOT, "bench", "suite.py"), "--fio", fio, "--lib", lib,
             "--targets", "ramdisk", "--pairs", "nil,emu", "--qds", "1,4", "--reps", "1",
             "--runtime", "0.2", "--workdir", str(tmp_path / "w"), "--outdir", str(tmp_path)])
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads((tmp_path / "suite.json").read_text())
    assert [(c["pair"], c["qd"]) for c in doc["cells"]] == [("nil", 1), ("nil", 4), ("emu", 1),
                                                            ("emu", 4)]
    for c in doc["cells"]:
        assert c["A"]["iops"] > 0 and c["B"]["iops"] > 0 and c["B"]["ios_per_cpu_s"] > 0
        assert c["ratio_iops"] > 0 and c["ratio_eff"] > 0
    assert "| ramdisk | nil | 1 |" in (tmp_path / "suite.md").read_text()
    assert (tmp_path / "suite_ratio.svg").read_text().startswith("<svg")
