# SPDX-License-Identifier: BSD-3-Clause
"""
Tests of the command-line tools (tools/): xnvme, lblk, zoned, kvs, xdd and xnvme_file.

Every subcommand runs against the in-memory device "1GB" (zoned, key-value, FDP and protection
information namespaces through ramdisk URI options such as "1GB?csi=zoned,...") and against a
regular file; stdout must be YAML (parsed with yaml.safe_load) and carry the expected values.
Bad input must fail with a message naming the argument (and a refused command with the NVMe
status named), usage must work everywhere, and the generated man pages and bash completions must
be usable.

A ramdisk lives in the memory of one process: every invocation starts from a fresh zeroed device,
so data written by one invocation cannot be read by the next. Write-then-read checks on the
ramdisk therefore run inside one invocation (`xnvme_file write-read`, `lblk write-read-pi`, the
zone descriptor that `zoned write/append/mgmt-*` print after acting) or compare against the
known fresh content; persistent write-then-read checks use a regular file. The key-value
subcommands cannot see each other's effects at all: each is checked for its result on a fresh
namespace (store succeeds, retrieve/exist/delete of a key fail with KV Key Does Not Exist).

The build directory comes from XNVME_BUILD_DIR (default: build/ in the source tree).
"""
import os
import pty
import re
import shutil
import subprocess

import pytest
import yaml

BUILD_DIR = os.environ.get(
    "XNVME_BUILD_DIR", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build")
)
TOOLS_DIR = os.path.join(BUILD_DIR, "tools")
COMPLETIONS_DIR = os.path.join(TOOLS_DIR, "completions")
TOOLS = ["xnvme", "lblk", "zoned", "kvs", "xdd", "xnvme_file"]

RAMDISK = "1GB"
RAMDISK_NBYTES = 1 << 30
LBA_NBYTES = 512
FILE_NBYTES = 64 << 20

# Exit statuses of the tools
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ARGS = 2

# Subcommands the ramdisk or the file shim does not implement fail with status 1; they must
# still report properly (YAML on stdout, a message on stderr).
OK = (EXIT_OK,)
OK_OR_UNSUPPORTED = (EXIT_OK, EXIT_FAILED)


def tool_path(name):
    return os.path.join(TOOLS_DIR, name)


def run(name, *args, cwd=None, stderr=subprocess.PIPE, timeout=300):
    """Runs a tool; no invocation may die from a signal, whatever its arguments"""
    path = tool_path(name)
    if not os.path.exists(path):
        pytest.skip(f"{path} is not built")
    proc = subprocess.run(
        [path] + [str(a) for a in args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=stderr,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode >= 0, f"{name} {args} killed by signal {-proc.returncode}"
    return proc


def run_yaml(name, *args, expect=OK, cwd=None):
    """Runs a tool, checks the exit status and returns (process, parsed stdout)"""
    proc = run(name, *args, cwd=cwd)
    out = proc.stdout.decode()
    err = proc.stderr.decode()
    assert proc.returncode in expect, (
        f"{name} {' '.join(map(str, args))}: exit {proc.returncode}\n"
        f"stdout:\n{out}\nstderr:\n{err}"
    )
    try:
        doc = yaml.safe_load(out)
    except yaml.YAMLError as exc:
        pytest.fail(f"{name} {args}: stdout is not YAML: {exc}\n{out}")
    if proc.returncode != EXIT_OK:
        assert "ERR" in err, f"{name} {args}: failed without an error message: {err!r}"
    return proc, doc


def subcommands(name):
    """The subcommands listed by the tool usage"""
    proc = run(name, "--help")
    assert proc.returncode == EXIT_OK
    subs = re.findall(r"^\s{2}(\S+)\s+\|", proc.stdout.decode(), re.MULTILINE)
    assert subs, f"{name} --help lists no subcommand"
    return subs


def pattern(nbytes, pos=0):
    """The data the tools generate: byte k of a transfer is 'A' + k % 26"""
    period = bytes(range(ord("A"), ord("A") + 26))
    start = pos % 26
    reps = (nbytes + start) // 26 + 1
    return (period * reps)[start : start + nbytes]


def ctrlr_str(value):
    """Identify Controller strings are space padded"""
    return str(value).strip()


@pytest.fixture
def devfile(tmp_path):
    """A 64 MiB regular file used as a device"""
    path = tmp_path / "dev.img"
    with open(path, "wb") as f:
        f.truncate(FILE_NBYTES)
    return path


@pytest.fixture(scope="module")
def ramdisk_info():
    _, doc = run_yaml("xnvme", "info", RAMDISK)
    return doc["xnvme_dev"]


# ------------------------------------------------------------------------------------------------
# Every subcommand has a test case; a subcommand added to a tool must be added here too.
# ------------------------------------------------------------------------------------------------

COVERED = {
    "xnvme": {
        "list", "enum", "info", "idfy", "idfy-ns", "idfy-ctrlr", "idfy-cs", "log", "log-erri",
        "log-health", "feature-get", "feature-set", "format", "sanitize", "pioc", "padc",
        "library-info", "dsm", "subsystem-reset", "show-regs", "ctrlr-reset", "ns-rescan",
        "log-fdp-config", "log-ruhu", "log-fdp-stats", "log-fdp-events", "set-fdp-events",
        "fdp-ruhs", "fdp-ruhu",
    },
    "lblk": {
        "enum", "info", "idfy", "dir-send", "dir-receive", "read", "write", "write-zeros",
        "write-uncor", "compare", "scopy", "write-dir", "write-read-pi",
    },
    "zoned": {
        "enum", "info", "idfy-ctrlr", "idfy-ns", "changes", "errors", "read", "write", "append",
        "mgmt-open", "mgmt-close", "mgmt-finish", "mgmt-reset", "mgmt", "report",
    },
    "kvs": {"enum", "idfy-ns", "retrieve", "store", "delete", "exist", "list"},
    "xdd": {"sync", "async"},
    "xnvme_file": {
        "write-read", "dump-sync", "dump-sync-iovec", "dump-async", "dump-async-iovec",
        "load-sync", "load-async", "copy-sync", "copy-async",
    },
}


@pytest.mark.parametrize("name", TOOLS)
def test_every_subcommand_is_covered(name):
    subs = set(subcommands(name))
    assert subs == COVERED[name], (
        f"{name}: untested {sorted(subs - COVERED[name])}, "
        f"missing {sorted(COVERED[name] - subs)}"
    )


# ------------------------------------------------------------------------------------------------
# Usage
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOOLS)
def test_tool_usage(name):
    for args in ([], ["--help"], ["-h"]):
        proc = run(name, *args)
        out = proc.stdout.decode() + proc.stderr.decode()
        assert proc.returncode == EXIT_OK, f"{name} {args}: exit {proc.returncode}"
        assert "ver: {major: 0, minor: 7, patch: 5}" in out
        for sub in COVERED[name]:
            assert sub in out


@pytest.mark.parametrize(
    "name,sub", [(name, sub) for name in TOOLS for sub in sorted(COVERED[name])]
)
def test_subcommand_help(name, sub):
    proc = run(name, sub, "--help")
    out = proc.stdout.decode() + proc.stderr.decode()
    assert proc.returncode == EXIT_OK, f"{name} {sub} --help: exit {proc.returncode}\n{out}"
    assert sub in out
    assert "--help" in out


# ------------------------------------------------------------------------------------------------
# xnvme against the ramdisk
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,sub", [("xnvme", "list"), ("xnvme", "enum"), ("lblk", "enum")])
def test_enumeration(name, sub):
    _, doc = run_yaml(name, sub)
    entries = doc["xnvme_cli_enumeration"]
    assert entries is None or isinstance(entries, list)
    for entry in entries or []:
        assert "uri" in entry
    if sub == "list" and entries:
        uris = [e["uri"] for e in entries]
        assert len(uris) == len(set(uris)) or all(len(e) == 1 for e in entries)


def test_info_ramdisk(ramdisk_info):
    assert ramdisk_info["xnvme_ident"]["uri"] == RAMDISK
    assert ramdisk_info["xnvme_ident"]["dtype"] == 0x5
    assert ramdisk_info["xnvme_ident"]["nsid"] == 0x1
    geo = ramdisk_info["xnvme_geo"]
    assert geo["type"] == "XNVME_GEO_CONVENTIONAL"
    assert geo["tbytes"] == RAMDISK_NBYTES
    assert geo["nbytes"] == LBA_NBYTES
    assert geo["lba_nbytes"] == LBA_NBYTES
    assert geo["nsect"] == RAMDISK_NBYTES // LBA_NBYTES
    assert geo["mdts_nbytes"] > 0


def test_idfy_ctrlr(tmp_path):
    out = tmp_path / "ctrlr.bin"
    _, doc = run_yaml("xnvme", "idfy-ctrlr", RAMDISK, "--data-output", out)
    ctrlr = doc["xnvme_spec_idfy_ctrlr"]
    data = out.read_bytes()
    assert len(data) == 4096
    # serial number at byte 4, model number at byte 24 (NVMe Identify Controller)
    assert ctrlr_str(ctrlr["sn"]) == data[4:24].decode().strip()
    assert ctrlr_str(ctrlr["mn"]) == data[24:64].decode().strip()
    assert ctrlr_str(ctrlr["sn"]) and ctrlr_str(ctrlr["mn"])

    # the same through the generic identify and the raw admin passthrough
    _, generic = run_yaml("xnvme", "idfy", RAMDISK, "--cns", "0x1")
    assert generic == doc
    raw = tmp_path / "padc.bin"
    _, cpl = run_yaml(
        "xnvme", "padc", RAMDISK, "--opcode", "0x06", "--cdw10", "0x1", "--data-nbytes",
        4096, "--data-output", raw,
    )
    assert cpl["xnvme_cmd_ctx"]["sc"] == 0 and cpl["xnvme_cmd_ctx"]["sct"] == 0
    assert raw.read_bytes() == data


def test_idfy_ns(tmp_path):
    out = tmp_path / "ns.bin"
    _, doc = run_yaml("xnvme", "idfy-ns", RAMDISK, "--data-output", out)
    ns = doc["xnvme_spec_idfy_ns"]
    assert ns["nsze"] == RAMDISK_NBYTES // LBA_NBYTES
    assert ns["ncap"] == ns["nsze"]
    assert int.from_bytes(out.read_bytes()[0:8], "little") == ns["nsze"]
    _, generic = run_yaml("xnvme", "idfy", RAMDISK, "--cns", "0x0")
    assert generic == doc
    _, lblk = run_yaml("lblk", "idfy", RAMDISK)
    assert lblk == doc


def test_idfy_raw_cns():
    # the active namespace list has no printer: raw rows of bytes, nsid 1 first
    _, doc = run_yaml("xnvme", "idfy", RAMDISK, "--cns", "0x2")
    assert doc["xnvme_spec_idfy"]["cns"] == 0x2
    rows = doc["data"]
    assert sum(len(r) for r in rows) == 4096
    assert rows[0][:4] == [1, 0, 0, 0]


def test_idfy_cs():
    proc, doc = run_yaml("xnvme", "idfy-cs", RAMDISK, expect=OK_OR_UNSUPPORTED)
    if proc.returncode == EXIT_OK:
        assert "xnvme_spec_idfy_cs" in doc


def test_log_health(tmp_path):
    out = tmp_path / "health.bin"
    _, doc = run_yaml("xnvme", "log-health", RAMDISK, "--data-output", out)
    health = doc["xnvme_spec_log_health_entry"]
    for key in (
        "crit_warn", "comp_temp", "avail_spare", "avail_spare_thresh", "pct_used",
        "data_units_read", "data_units_written", "host_read_cmds", "host_write_cmds",
        "pwr_cycles", "pwr_on_hours", "unsafe_shutdowns", "mdi_errs", "nr_err_logs",
    ):
        assert key in health, key
    assert health["comp_temp"] > 0  # Kelvin
    assert 0 <= health["avail_spare"] <= 100
    assert health["crit_warn"] == 0
    data = out.read_bytes()
    assert len(data) == 512
    assert int.from_bytes(data[1:3], "little") == health["comp_temp"]
    assert data[3] == health["avail_spare"]

    # the generic log dumps the same page
    raw = tmp_path / "log.bin"
    _, log = run_yaml(
        "xnvme", "log", RAMDISK, "--lid", "0x2", "--data-nbytes", 512, "--data-output", raw
    )
    assert log["xnvme_adm_log"]["lid"] == 0x2
    assert log["xnvme_adm_log"]["nbytes"] == 512
    assert raw.read_bytes()[0:8] == data[0:8]


def test_log_raw_print():
    _, doc = run_yaml("xnvme", "log", RAMDISK, "--lid", "0x2", "--data-nbytes", 64)
    assert sum(len(r) for r in doc["data"]) == 64


def test_log_erri():
    _, doc = run_yaml("xnvme", "log-erri", RAMDISK, "--limit", 4)
    entries = doc["xnvme_spec_log_erri_entry"]
    assert isinstance(entries, list) and len(entries) == 4
    _, doc = run_yaml("xnvme", "log-erri", RAMDISK)
    assert doc["xnvme_spec_log_erri_entry"]


def test_features():
    _, doc = run_yaml("xnvme", "feature-get", RAMDISK, "--fid", "0x7")
    assert doc["feat"] == {"nsqa": 63, "ncqa": 63}
    _, doc = run_yaml("xnvme", "feature-get", RAMDISK, "--fid", "0x7", "--sel", "0x3")
    assert doc["xnvme_spec_feat_capabilities"]["fid"] == 0x7
    _, doc = run_yaml("xnvme", "feature-set", RAMDISK, "--fid", "0x6", "--feat", "0x1")
    assert doc is not None


@pytest.mark.parametrize(
    "args",
    [
        ["format", RAMDISK],
        ["sanitize", RAMDISK, "--sanact", "0x1"],
        ["subsystem-reset", RAMDISK],
        ["show-regs", RAMDISK],
        ["ctrlr-reset", RAMDISK],
        ["ns-rescan", RAMDISK],
        ["idfy-cs", RAMDISK],
    ],
    ids=lambda a: a[0],
)
def test_optional_admin(args):
    """Commands a device may lack: success, or a reported failure; YAML either way"""
    run_yaml("xnvme", *args, expect=OK_OR_UNSUPPORTED)


def test_show_regs():
    proc, doc = run_yaml("xnvme", "show-regs", RAMDISK, expect=OK_OR_UNSUPPORTED)
    if proc.returncode == EXIT_OK:
        assert "cap" in doc["xnvme_spec_ctrlr_bar"]


def test_pioc_read(tmp_path):
    out = tmp_path / "pioc.bin"
    _, doc = run_yaml(
        "xnvme", "pioc", RAMDISK, "--opcode", "0x02", "--cdw10", "0x0", "--cdw12", "0x7",
        "--data-nbytes", 4096, "--data-output", out, "--verbose",
    )
    assert doc["xnvme_cmd_ctx"]["sc"] == 0
    assert out.read_bytes() == bytes(4096)


def test_library_info():
    _, doc = run_yaml("xnvme", "library-info")
    assert doc["ver"] == {"major": 0, "minor": 7, "patch": 5}
    assert isinstance(doc["xnvme_libconf"], list)
    attrs = doc["xnvme_be_attr_list"]
    assert attrs["count"] == 9
    names = {item["name"]: item["enabled"] for item in attrs["items"]}
    assert names["ramdisk"] == 1
    assert set(names) == {"spdk", "linux", "fbsd", "macos", "windows", "ramdisk", "vfio", "tcp", "rdma"}


def test_dsm():
    _, doc = run_yaml(
        "xnvme", "dsm", RAMDISK, "--nsid", "0x1", "--slba", "0x10", "--llb", 8, "--ad"
    )
    rng = doc["xnvme_spec_dsm_range"]
    assert rng["llb"] == 8 and rng["slba"] == 0x10 and rng["ad"] == 1


# ------------------------------------------------------------------------------------------------
# lblk against the ramdisk
# ------------------------------------------------------------------------------------------------


def test_lblk_info(ramdisk_info):
    _, doc = run_yaml("lblk", "info", RAMDISK)
    assert doc["xnvme_dev"]["xnvme_geo"] == ramdisk_info["xnvme_geo"]


def test_lblk_read_fresh_ramdisk(tmp_path):
    out = tmp_path / "read.bin"
    _, doc = run_yaml("lblk", "read", RAMDISK, "--slba", "0x10", "--nlb", 7, "--data-output", out)
    io = doc["xnvme_lblk_io"]
    assert io["nbytes"] == 8 * LBA_NBYTES
    assert io["slba"] == 0x10 and io["elba"] == 0x17
    assert "wall-clock" in doc
    assert out.read_bytes() == bytes(8 * LBA_NBYTES)


def test_lblk_split_by_mdts(tmp_path, ramdisk_info):
    """A range larger than MDTS is read in MDTS-sized commands"""
    mdts = ramdisk_info["xnvme_geo"]["mdts_nbytes"]
    nbytes = 4 * mdts + 3 * LBA_NBYTES
    nlb = nbytes // LBA_NBYTES - 1
    out = tmp_path / "big.bin"
    _, doc = run_yaml("lblk", "read", RAMDISK, "--slba", 0, "--nlb", nlb, "--data-output", out)
    assert doc["xnvme_lblk_io"]["ncmds"] == 5
    assert doc["xnvme_lblk_io"]["nbytes"] == nbytes
    assert out.stat().st_size == nbytes

    _, doc = run_yaml("lblk", "write", RAMDISK, "--slba", 0, "--nlb", nlb)
    assert doc["xnvme_lblk_io"]["ncmds"] == 5


def test_lblk_write_ramdisk(tmp_path):
    data = os.urandom(16 * LBA_NBYTES)
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    _, doc = run_yaml("lblk", "write", RAMDISK, "--slba", "0x0", "--nlb", 15, "--data-input", src)
    assert doc["xnvme_lblk_io"]["nbytes"] == len(data)
    _, doc = run_yaml("lblk", "write", RAMDISK, "--slba", "0x0", "--nlb", 0)
    assert doc["xnvme_lblk_io"]["nbytes"] == LBA_NBYTES


def test_lblk_write_zeros_uncor():
    _, doc = run_yaml("lblk", "write-zeros", RAMDISK, "--slba", 0, "--nlb", 100000)
    assert doc["xnvme_lblk_io"]["ncmds"] >= 2  # NLB is a 16-bit field
    _, doc = run_yaml("lblk", "write-uncor", RAMDISK, "--slba", "0x8", "--nlb", 7)
    assert doc["xnvme_lblk_io"]["elba"] == 0xF


def test_lblk_compare(tmp_path):
    zeros = tmp_path / "zeros.bin"
    zeros.write_bytes(bytes(8 * LBA_NBYTES))
    run_yaml("lblk", "compare", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", zeros)

    # a fresh ramdisk holds zeros, the generated pattern does not match
    proc, doc = run_yaml("lblk", "compare", RAMDISK, "--slba", 0, "--nlb", 7, expect=(1,))
    assert doc["xnvme_cmd_ctx"]["sct"] == 0x2 and doc["xnvme_cmd_ctx"]["sc"] == 0x85
    assert "compare" in proc.stderr.decode()


def test_lblk_scopy():
    _, doc = run_yaml(
        "lblk", "scopy", RAMDISK, "--slba", 0, "--nlb", 999, "--sdlba", "0x100"
    )
    assert doc["xnvme_lblk_scopy"]["ncmds"] >= 1


@pytest.mark.parametrize(
    "args",
    [
        ["dir-send", RAMDISK, "--endir", "0x1"],
        ["dir-receive", RAMDISK],
        ["dir-receive", RAMDISK, "--dtype", "0x1", "--doper", "0x1"],
    ],
    ids=lambda a: "-".join(a[:1] + a[2:]),
)
def test_lblk_directives(args):
    run_yaml("lblk", *args, expect=OK_OR_UNSUPPORTED)


def test_lblk_out_of_range():
    nlbas = RAMDISK_NBYTES // LBA_NBYTES
    proc, _ = run_yaml("lblk", "read", RAMDISK, "--slba", hex(nlbas - 1), "--nlb", 1, expect=(1,))
    assert "--slba" in proc.stderr.decode()


# ------------------------------------------------------------------------------------------------
# xdd and xnvme_file against the ramdisk
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sub", ["sync", "async"])
def test_xdd_from_ramdisk(tmp_path, sub):
    out = tmp_path / "out.bin"
    nbytes = 3 * 131072 + 100
    _, doc = run_yaml(
        "xdd", sub, "--data-input", RAMDISK, "--data-output", out, "--data-nbytes", nbytes
    )
    assert doc["wall-clock"]["elapsed"] >= 0
    assert out.read_bytes() == bytes(nbytes)


@pytest.mark.parametrize("nbytes", [8, 4096, 3 * 1024 * 1024 + 5])
def test_write_read_ramdisk(tmp_path, nbytes):
    _, doc = run_yaml("xnvme_file", "write-read", RAMDISK, nbytes, cwd=tmp_path)
    assert doc["xnvme_file_write_read"] == {"nbytes": nbytes, "ndiff": 0}
    assert not (tmp_path / RAMDISK).exists(), "the ramdisk URI became a file"


# ------------------------------------------------------------------------------------------------
# Command sets on the ramdisk: zoned, key-value, FDP and protection information namespaces
# ------------------------------------------------------------------------------------------------

ZSZE = 8192
ZCAP = 6144
ZONED = f"1GB?csi=zoned,zsze={ZSZE},zcap={ZCAP},mor=4,mar=6"
NZONES = RAMDISK_NBYTES // LBA_NBYTES // ZSZE
KV = "1GB?csi=kv"
FDP_NRUH = 8
FDP = f"1GB?fdp=1,nruh={FDP_NRUH}"

KEY_NOT_EXISTS = "KV Key Does Not Exist"


def run_fail(name, *args, status=EXIT_FAILED, needles=()):
    """Runs a tool that must fail with `status`; stderr must name every needle"""
    proc = run(name, *args)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == status, (
        f"{name} {' '.join(map(str, args))}: exit {proc.returncode}\n{out}\n{err}"
    )
    assert "ERR" in err, err
    for needle in needles:
        assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"
    yaml.safe_load(out)
    return proc


def zone(doc):
    """The zone descriptor printed after a zoned write/append/mgmt-*"""
    return doc["xnvme_spec_znd_descr"]


def test_zoned_info():
    _, doc = run_yaml("zoned", "info", ZONED)
    dev = doc["xnvme_dev"]
    assert dev["xnvme_ident"]["csi"] == 0x2
    geo = dev["xnvme_geo"]
    assert geo["type"] == "XNVME_GEO_ZONED"
    assert geo["nsect"] == ZSZE
    assert geo["nzone"] == NZONES
    assert geo["nbytes"] == LBA_NBYTES


def test_zoned_idfy():
    _, doc = run_yaml("zoned", "idfy-ns", ZONED)
    zns = doc["xnvme_spec_znd_idfy_ns"]
    # mor/mar are zero-based in the identify data, one-based in the URI
    assert zns["mor"] == 3 and zns["mar"] == 5
    assert zns["lbafe"][0]["zsze"] == ZSZE
    _, doc = run_yaml("zoned", "idfy-ctrlr", ZONED)
    assert "zasl" in doc["xnvme_spec_znd_idfy_ctrlr"]


def test_zoned_report_fresh(tmp_path):
    out = tmp_path / "report.bin"
    _, doc = run_yaml("zoned", "report", ZONED, "--data-output", out)
    rep = doc["xnvme_znd_report"]
    assert rep["nzones"] == NZONES and rep["nentries"] == NZONES
    assert rep["zslba"] == 0 and rep["zelba"] == (NZONES - 1) * ZSZE
    assert len(rep["entries"]) == NZONES
    for idx, entry in enumerate(rep["entries"]):
        assert entry["zslba"] == idx * ZSZE
        assert entry["wp"] == entry["zslba"]
        assert entry["zcap"] == ZCAP
        assert entry["zs"] == "ZND_STATE_EMPTY"
        assert entry["zt"] == 0x2
    data = out.read_bytes()
    assert len(data) == rep["report_nbytes"] == 64 + 64 * NZONES
    # the descriptors follow the 64-byte header: zcap at byte 8, zslba at byte 16 of each
    entry1 = data[64 + 64 : 64 + 128]
    assert int.from_bytes(entry1[8:16], "little") == ZCAP
    assert int.from_bytes(entry1[16:24], "little") == ZSZE


def test_zoned_report_range():
    _, doc = run_yaml("zoned", "report", ZONED, "--slba", hex(3 * ZSZE + 5), "--limit", 4)
    rep = doc["xnvme_znd_report"]
    assert rep["nentries"] == 4
    assert [e["zslba"] for e in rep["entries"]] == [z * ZSZE for z in range(3, 7)]
    run_fail("zoned", "report", ZONED, "--slba", hex((NZONES - 2) * ZSZE), "--limit", 3,
             status=EXIT_ARGS, needles=["--limit"])
    run_fail("zoned", "report", ZONED, "--slba", hex(NZONES * ZSZE), needles=["--slba"])


def test_zoned_write_moves_the_write_pointer():
    _, doc = run_yaml("zoned", "write", ZONED, "--slba", hex(ZSZE), "--nlb", 7)
    assert doc["xnvme_lblk_io"]["nbytes"] == 8 * LBA_NBYTES
    descr = zone(doc)
    assert descr["zslba"] == ZSZE and descr["wp"] == ZSZE + 8
    assert descr["zs"] == "ZND_STATE_IOPEN"


def test_zoned_write_off_the_write_pointer():
    # an empty zone accepts writes at its start only
    run_fail("zoned", "write", ZONED, "--slba", hex(ZSZE + 8), "--nlb", 0,
             needles=["Zone Invalid Write"])


def test_zoned_append():
    zslba = 2 * ZSZE
    _, doc = run_yaml("zoned", "append", ZONED, "--slba", hex(zslba), "--nlb", 15)
    app = doc["xnvme_znd_append"]
    assert app["zslba"] == zslba
    assert app["lba"] == zslba, "the first append to an empty zone lands at its start"
    assert app["elba"] == zslba + 15
    descr = zone(doc)
    assert descr["wp"] == zslba + 16 and descr["zs"] == "ZND_STATE_IOPEN"


def test_zoned_append_split(ramdisk_info):
    """An append larger than one command: every command appends to the same zone"""
    mdts_nlbas = ramdisk_info["xnvme_geo"]["mdts_nbytes"] // LBA_NBYTES
    nlbas = 2 * mdts_nlbas + 3
    _, doc = run_yaml("zoned", "append", ZONED, "--slba", "0x0", "--nlb", nlbas - 1)
    app = doc["xnvme_znd_append"]
    assert app["ncmds"] >= 3
    assert app["lba"] == 0 and app["elba"] == nlbas - 1
    assert zone(doc)["wp"] == nlbas


def test_zoned_read_fresh(tmp_path):
    out = tmp_path / "zone.bin"
    _, doc = run_yaml("zoned", "read", ZONED, "--slba", "0x0", "--nlb", 7, "--data-output", out)
    assert doc["xnvme_lblk_io"]["nbytes"] == 8 * LBA_NBYTES
    assert out.read_bytes() == bytes(8 * LBA_NBYTES)


@pytest.mark.parametrize(
    "sub,extra,state",
    [
        ("mgmt-open", [], "ZND_STATE_EOPEN"),
        ("mgmt-finish", [], "ZND_STATE_FULL"),
        ("mgmt-reset", [], "ZND_STATE_EMPTY"),
        ("mgmt", ["--zsa", "0x3"], "ZND_STATE_EOPEN"),
        ("mgmt", ["--zsa", "0x2"], "ZND_STATE_FULL"),
        ("mgmt-open", ["--all"], "ZND_STATE_EMPTY"),  # select-all opens closed zones only
        ("mgmt-reset", ["--all"], "ZND_STATE_EMPTY"),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(v),
)
def test_zoned_mgmt(sub, extra, state):
    zslba = 5 * ZSZE
    _, doc = run_yaml("zoned", sub, ZONED, "--slba", hex(zslba), *extra)
    send = doc["xnvme_znd_mgmt_send"]
    assert send["zslba"] == zslba
    assert send["select_all"] == (1 if "--all" in extra else 0)
    descr = zone(doc)
    assert descr["zslba"] == zslba
    assert descr["zs"] == state
    if state == "ZND_STATE_EMPTY":
        assert descr["wp"] == zslba


@pytest.mark.parametrize(
    "sub,extra",
    [("mgmt-close", []), ("mgmt", ["--zsa", "0x5"])],
    ids=["close-empty", "offline-empty"],
)
def test_zoned_mgmt_invalid_transition(sub, extra):
    """An empty zone can neither be closed nor taken offline"""
    run_fail("zoned", sub, ZONED, "--slba", hex(ZSZE), *extra,
             needles=["Invalid Zone State Transition", "sct 0x1", "sc 0xbf"])


def test_zoned_descriptor_extension():
    """Setting a descriptor extension (zeros) makes an empty zone closed, with ZDEV set"""
    _, doc = run_yaml("zoned", "mgmt", ZONED + ",zdes=1", "--slba", hex(ZSZE), "--zsa", "0x10")
    assert doc["xnvme_znd_mgmt_send"]["zsa"] == 0x10
    descr = zone(doc)
    assert descr["zs"] == "ZND_STATE_CLOSED"
    assert descr["za"] == "0b10000000"
    run_fail("zoned", "mgmt", ZONED, "--slba", hex(ZSZE), "--zsa", "0x10",
             needles=["--zsa", "descriptor extension"])


def test_zoned_mgmt_not_a_zone_start():
    run_fail("zoned", "mgmt-open", ZONED, "--slba", hex(ZSZE + 1))


def test_zoned_logs(tmp_path):
    out = tmp_path / "changes.bin"
    _, doc = run_yaml("zoned", "changes", ZONED, "--data-output", out)
    assert doc["xnvme_spec_znd_log_changes"]["nidents"] == 0
    assert len(out.read_bytes()) == 4096
    _, doc = run_yaml("zoned", "errors", ZONED)
    assert isinstance(doc["xnvme_spec_log_erri_entry"], list)


def test_zoned_enum():
    _, doc = run_yaml("zoned", "enum")
    assert "xnvme_cli_enumeration" in doc


@pytest.mark.parametrize(
    "args,status",
    [
        (["mgmt-open", RAMDISK, "--slba", "0x0"], "Invalid Command Opcode"),
        (["mgmt-reset", RAMDISK, "--slba", "0x0", "--all"], "Invalid Command Opcode"),
        (["mgmt", RAMDISK, "--slba", "0x0", "--zsa", "0x4"], "Invalid Command Opcode"),
        (["append", RAMDISK, "--slba", "0x0", "--nlb", 0], "Invalid Command Opcode"),
        (["idfy-ns", RAMDISK], "Invalid Field in Command"),
        (["changes", RAMDISK], "Invalid Log Page"),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else None,
)
def test_zoned_on_conventional(args, status):
    """Zone commands on an NVM namespace: the device refuses, the status is named"""
    run_fail("zoned", *args, needles=[status, args[0]])


def test_zoned_report_on_conventional():
    run_fail("zoned", "report", RAMDISK, needles=["not a zoned namespace"])


def test_kvs_idfy_ns():
    _, doc = run_yaml("kvs", "idfy-ns", KV)
    ns = doc["xnvme_spec_kvs_idfy_ns"]
    assert ns["kvf"][0]["kml"] == 16
    assert ns["kvf"][0]["vml"] > 0
    assert ns["nuse"] == 0


def test_kvs_store():
    _, doc = run_yaml("kvs", "store", KV, "--key", "hello", "--value", "world")
    st = doc["xnvme_kvs_store"]
    assert st["key"] == "hello" and st["value_nbytes"] == 5
    assert st["only_add"] == 0 and st["only_update"] == 0
    # a fresh namespace holds no key: adding is fine, updating is not
    _, doc = run_yaml("kvs", "store", KV, "--key", "k" * 16, "--value", "v", "--only-add")
    assert doc["xnvme_kvs_store"]["only_add"] == 1
    run_fail("kvs", "store", KV, "--key", "hello", "--value", "w", "--only-update",
             needles=[KEY_NOT_EXISTS])


def test_kvs_store_compress():
    proc, doc = run_yaml("kvs", "store", KV, "--key", "c", "--value", "x" * 100, "--compress",
                         expect=OK_OR_UNSUPPORTED)
    if proc.returncode == EXIT_OK:
        assert doc["xnvme_kvs_store"]["compress"] == 1


@pytest.mark.parametrize(
    "sub,extra",
    [("retrieve", []), ("retrieve", ["--data-output", "{tmp}/v.bin"]), ("exist", []),
     ("delete", [])],
    ids=["retrieve", "retrieve-to-file", "exist", "delete"],
)
def test_kvs_key_not_found(tmp_path, sub, extra):
    extra = [str(a).format(tmp=tmp_path) for a in extra]
    run_fail("kvs", sub, KV, "--key", "missing", *extra,
             needles=[KEY_NOT_EXISTS, "missing", sub])
    assert not (tmp_path / "v.bin").exists()


def test_kvs_list_fresh():
    _, doc = run_yaml("kvs", "list", KV, "--key", "a")
    assert doc["xnvme_kvs_list"]["nkeys"] == 0
    assert doc["keys"] == []


def test_kvs_enum():
    _, doc = run_yaml("kvs", "enum")
    assert "xnvme_cli_enumeration" in doc


@pytest.mark.parametrize(
    "args,needles",
    [
        (["store", KV, "--key", "k" * 17, "--value", "v"], ["--key", "17 bytes"]),
        (["retrieve", KV, "--key", ""], ["--key"]),
        (["store", KV, "--key", "k", "--value", "v", "--only-add", "--only-update"],
         ["--only-add", "--only-update"]),
        (["store", RAMDISK, "--key", "k", "--value", "v"], ["not a key-value namespace"]),
        (["retrieve", RAMDISK, "--key", "k"], ["not a key-value namespace"]),
        (["list", RAMDISK, "--key", "k"], ["not a key-value namespace"]),
    ],
    ids=["key-too-long", "key-empty", "add-and-update", "store-nvm", "retrieve-nvm",
         "list-nvm"],
)
def test_kvs_bad_input(args, needles):
    run_fail("kvs", *args, needles=needles)


def test_fdp_ruhs():
    _, doc = run_yaml("xnvme", "fdp-ruhs", FDP, "--limit", 16)
    ruhs = doc["xnvme_spec_ruhs"]
    assert ruhs["nruhsd"] == FDP_NRUH
    assert len(ruhs["desc"]) == FDP_NRUH
    assert [d["pi"] for d in ruhs["desc"]] == list(range(FDP_NRUH))
    assert all(d["ruamw"] > 0 for d in ruhs["desc"])
    # --limit bounds what is printed
    _, doc = run_yaml("xnvme", "fdp-ruhs", FDP, "--limit", 2)
    assert len(doc["xnvme_spec_ruhs"]["desc"]) == 2


def test_fdp_config(tmp_path):
    out = tmp_path / "conf.bin"
    uri = "1GB?fdp=1,nruh=4,runs=16M"
    _, doc = run_yaml("xnvme", "log-fdp-config", uri, "--data-nbytes", 4096, "--lsi", "0x0",
                      "--data-output", out)
    conf = doc["xnvme_spec_log_fdp_conf"]
    assert conf["ncfg"] == 0
    desc = conf["conf_desc"][0]
    assert desc["nruh"] == 4
    assert desc["runs"] == 16 << 20
    assert len(desc["ruh_desc"]) == 4
    assert len(out.read_bytes()) == 4096


def test_fdp_config_partial(tmp_path):
    """--data-nbytes shorter than the log: the file gets what was asked, the print all"""
    out = tmp_path / "conf.bin"
    proc, doc = run_yaml("xnvme", "log-fdp-config", FDP, "--data-nbytes", 96, "--lsi", "0x0",
                         "--data-output", out)
    desc = doc["xnvme_spec_log_fdp_conf"]["conf_desc"][0]
    assert desc["nruh"] == FDP_NRUH and len(desc["ruh_desc"]) == FDP_NRUH
    assert len(out.read_bytes()) == 96
    assert "printing all of it" in proc.stdout.decode()


def test_fdp_logs():
    _, doc = run_yaml("xnvme", "log-ruhu", FDP, "--limit", 16, "--lsi", "0x0")
    ruhu = doc["xnvme_spec_log_ruhu"]
    assert ruhu["nruh"] == FDP_NRUH and len(ruhu["ruhu_desc"]) == FDP_NRUH
    _, doc = run_yaml("xnvme", "log-fdp-stats", FDP, "--lsi", "0x0")
    stats = doc["xnvme_spec_log_fdp_stats"]
    assert set(stats) == {"hbmw", "mbmw", "mbe"}
    _, doc = run_yaml("xnvme", "log-fdp-events", FDP, "--limit", 4, "--lsi", "0x0", "--lsp",
                      "0x0")
    assert doc["xnvme_spec_log_fdp_events"]["nevents"] == 0
    _, doc = run_yaml("xnvme", "log-fdp-events", FDP, "--limit", 4, "--lsi", "0x0", "--lsp",
                      "0x1")
    assert "nevents" in doc["xnvme_spec_log_fdp_events"]


@pytest.mark.parametrize("enable", [1, 0])
def test_fdp_set_events(enable):
    _, doc = run_yaml("xnvme", "set-fdp-events", FDP, "--fid", "0x1e", "--feat", "0x0",
                      "--cdw12", hex(enable))
    events = doc["xnvme_spec_feat_fdp_events"]
    assert events["nevents"] > 0
    assert all(e["ee"] == enable for e in events["event_desc"])


def test_fdp_events_feature_get():
    """feature-get decodes the FDP event descriptors; on a fresh device none is enabled"""
    _, doc = run_yaml("xnvme", "feature-get", FDP, "--fid", "0x1e", "--cdw11", "0xff0000",
                      "--data-nbytes", 512)
    events = doc["xnvme_spec_feat_fdp_events"]
    assert events["nevents"] == len(events["event_desc"]) > 0
    assert all(e["ee"] == 0 for e in events["event_desc"])


def test_fdp_ruhu():
    _, doc = run_yaml("xnvme", "fdp-ruhu", FDP, "--pid", "0x1")
    assert doc["xnvme_nvm_mgmt_send"]["pid"] == 0x1
    run_fail("xnvme", "fdp-ruhu", FDP, "--pid", hex(FDP_NRUH),
             needles=["fdp-ruhu", "Invalid Field in Command"])


def test_fdp_write_dir():
    for dspec in (0, FDP_NRUH - 1):
        _, doc = run_yaml("lblk", "write-dir", FDP, "--slba", "0x0", "--nlb", 7, "--dtype",
                          "0x2", "--dspec", hex(dspec))
        assert doc["xnvme_lblk_io"]["nbytes"] == 8 * LBA_NBYTES
        assert doc["xnvme_lblk_dir"] == {"dtype": 0x2, "dspec": dspec}


def test_write_dir_without_fdp():
    """The data placement directive on a namespace without FDP: the device refuses"""
    run_fail("lblk", "write-dir", RAMDISK, "--slba", "0x0", "--nlb", 0, "--dtype", "0x2",
             "--dspec", "0x1", needles=["Invalid Field in Command", "write-dir"])


@pytest.mark.parametrize(
    "args,status",
    [
        (["fdp-ruhs", RAMDISK, "--limit", 4], "Invalid Command Opcode"),
        (["log-fdp-config", RAMDISK, "--data-nbytes", 4096, "--lsi", "0x0"], "Invalid Log Page"),
        (["log-fdp-stats", RAMDISK, "--lsi", "0x0"], "Invalid Log Page"),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else None,
)
def test_fdp_on_plain_namespace(args, status):
    """Without FDP the device refuses; the failure names the status"""
    run_fail("xnvme", *args, needles=[args[0], status])


@pytest.mark.parametrize(
    "args,needles",
    [
        (["set-fdp-events", FDP, "--fid", "0x7", "--feat", "0x0", "--cdw12", "0x1"], ["--fid"]),
        (["log-fdp-events", FDP, "--limit", 4, "--lsi", "0x0", "--lsp", "0x2"], ["--lsp"]),
        (["log-ruhu", FDP, "--limit", 0, "--lsi", "0x0"], ["--limit"]),
        (["log-fdp-config", FDP, "--data-nbytes", 6, "--lsi", "0x0"], ["--data-nbytes"]),
        (["fdp-ruhu", FDP, "--pid", "0x10000"], ["--pid"]),
    ],
    ids=["fid", "lsp", "limit", "data-nbytes", "pid"],
)
def test_fdp_bad_input(args, needles):
    # a value out of the option's range is a usage error; fid is refused by the device
    status = EXIT_FAILED if "--fid" in needles else EXIT_ARGS
    run_fail("xnvme", *args, status=status, needles=needles)


# Protection information: (URI, PI tuple bytes, extended LBA)
PI_URIS = [
    "1GB?ms=8,pi=1,mset=0",
    "1GB?ms=8,pi=1,mset=1",
    "1GB?ms=16,pi=1,pil=1,mset=0",
    "1GB?ms=16,pi=2,pil=0,mset=1",
    "1GB?ms=8,pi=3,mset=0",
    "1GB?lbads=12,ms=16,pi=1,pif=2,mset=0",
    "1GB?ms=16,pi=1,pif=2,mset=1",
]


@pytest.mark.parametrize("uri", PI_URIS)
@pytest.mark.parametrize("pract", [0, 1])
def test_write_read_pi(uri, pract):
    _, info = run_yaml("lblk", "info", uri)
    geo = info["xnvme_dev"]["xnvme_geo"]
    assert geo["pi_type"] > 0
    _, doc = run_yaml("lblk", "write-read-pi", uri, "--slba", "0x20", "--nlb", 15, "--pract",
                      pract, "--apptag", "0x1234")
    pi = doc["xnvme_lblk_pi"]
    assert pi["ndiff"] == 0 and pi["nverified"] == 16
    assert pi["pi_type"] == geo["pi_type"] and pi["pi_format"] == geo["pi_format"]
    assert pi["extended"] == geo["lba_extended"]
    assert pi["pract"] == pract and pi["apptag"] == 0x1234
    assert pi["prchk"] == (0x6 if geo["pi_type"] == 3 else 0x7)


def test_write_read_pi_split(ramdisk_info):
    uri = PI_URIS[0]
    nlbas = 3 * ramdisk_info["xnvme_geo"]["mdts_nbytes"] // LBA_NBYTES + 5
    _, doc = run_yaml("lblk", "write-read-pi", uri, "--slba", "0x0", "--nlb", nlbas - 1,
                      "--prchk", "0x4", "--apptag_mask", "0x0")
    pi = doc["xnvme_lblk_pi"]
    assert pi["ncmds"] >= 4 and pi["nverified"] == nlbas and pi["prchk"] == 0x4


def test_write_read_pi_data_input(tmp_path):
    data = os.urandom(8 * LBA_NBYTES)
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    meta = tmp_path / "meta.bin"
    meta.write_bytes(os.urandom(8 * 16))
    _, doc = run_yaml("lblk", "write-read-pi", PI_URIS[0], "--slba", "0x0", "--nlb", 7,
                      "--data-input", src)
    assert doc["xnvme_lblk_pi"]["ndiff"] == 0
    # separate metadata beyond the PI tuple comes from --meta-input
    _, doc = run_yaml("lblk", "write-read-pi", PI_URIS[2], "--slba", "0x0", "--nlb", 7,
                      "--data-input", src, "--meta-input", meta)
    assert doc["xnvme_lblk_pi"]["ndiff"] == 0
    # interleaved metadata has no file of its own
    run_fail("lblk", "write-read-pi", PI_URIS[1], "--slba", "0x0", "--nlb", 7,
             "--meta-input", meta, needles=["--meta-input"])


@pytest.mark.parametrize(
    "args,needles",
    [
        (["write-read-pi", RAMDISK, "--slba", 0, "--nlb", 0],
         ["not formatted with protection information"]),
        (["write-read-pi", "1GB?ms=8,pi=3", "--slba", 0, "--nlb", 0, "--prchk", "0x1"],
         ["--prchk", "type 3"]),
        (["write-read-pi", PI_URIS[0], "--slba", 0, "--nlb", 0, "--prchk", "0x8"],
         ["--prchk"]),
        (["write-read-pi", PI_URIS[0], "--slba", 0, "--nlb", 0, "--apptag", "0xffff"],
         ["--apptag"]),
        (["write-read-pi", PI_URIS[0], "--slba", 0, "--nlb", 0, "--apptag", "0x10000"],
         ["--apptag"]),
        (["write-dir", FDP, "--slba", 0, "--nlb", 0, "--dtype", "0x10"], ["--dtype"]),
        (["write-dir", FDP, "--slba", 0, "--nlb", 0, "--dspec", "0x10000"], ["--dspec"]),
    ],
    ids=["no-pi", "type3-reftag", "prchk-range", "apptag-escape", "apptag-range", "dtype",
         "dspec"],
)
def test_lblk_pi_dir_bad_input(args, needles):
    # values out of the option's range are usage errors, the others fail on the namespace
    out_of_range = {"0x8", "0x10000", "0x10"}
    status = EXIT_ARGS if out_of_range & {str(a) for a in args} else EXIT_FAILED
    run_fail("lblk", *args, status=status, needles=needles)


# ------------------------------------------------------------------------------------------------
# Regular files: data persists between invocations
# ------------------------------------------------------------------------------------------------


def test_info_file(devfile):
    _, doc = run_yaml("xnvme", "info", devfile)
    assert doc["xnvme_dev"]["xnvme_ident"]["dtype"] == 0x4
    assert doc["xnvme_dev"]["xnvme_geo"]["tbytes"] == FILE_NBYTES


@pytest.mark.parametrize(
    "args",
    [
        ["idfy-ctrlr"], ["idfy-ns"], ["idfy", "--cns", "0x1"], ["idfy-cs"],
        ["log-health"], ["log-erri", "--limit", 1], ["log", "--lid", "0x2", "--data-nbytes", 512],
        ["feature-get", "--fid", "0x7"], ["feature-set", "--fid", "0x6", "--feat", "0x0"],
        ["show-regs"], ["dsm", "--nsid", "0x1", "--slba", 0, "--llb", 1],
        ["pioc", "--opcode", "0x02", "--data-nbytes", LBA_NBYTES],
        ["padc", "--opcode", "0x06", "--cdw10", "0x1", "--data-nbytes", 4096],
        ["format"], ["sanitize", "--sanact", "0x1"], ["subsystem-reset"], ["ctrlr-reset"],
        ["ns-rescan"],
    ],
    ids=lambda a: a[0],
)
def test_xnvme_on_file(devfile, args):
    run_yaml("xnvme", args[0], devfile, *args[1:], expect=OK_OR_UNSUPPORTED)


def test_idfy_ctrlr_file(devfile):
    _, doc = run_yaml("xnvme", "idfy-ctrlr", devfile)
    assert ctrlr_str(doc["xnvme_spec_idfy_ctrlr"]["mn"])


@pytest.mark.parametrize(
    "args",
    [
        ["dir-send", "--endir", "0x1"], ["dir-receive"],
        ["write-zeros", "--slba", 0, "--nlb", 7], ["write-uncor", "--slba", 0, "--nlb", 7],
        ["compare", "--slba", 0, "--nlb", 7], ["scopy", "--slba", 0, "--nlb", 7, "--sdlba", 8],
    ],
    ids=lambda a: a[0],
)
def test_lblk_on_file(devfile, args):
    run_yaml("lblk", args[0], devfile, *args[1:], expect=OK_OR_UNSUPPORTED)


def test_lblk_write_read_file(tmp_path, devfile):
    """lblk write from a data file, then lblk read into another: the bytes must match"""
    nbytes = 3 * 1024 * 1024 + 7 * LBA_NBYTES  # several MDTS-sized commands
    slba = 5
    data = os.urandom(nbytes)
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    nlb = nbytes // LBA_NBYTES - 1

    _, doc = run_yaml("lblk", "write", devfile, "--slba", hex(slba), "--nlb", nlb,
                      "--data-input", src)
    assert doc["xnvme_lblk_io"]["ncmds"] > 1

    out = tmp_path / "out.bin"
    _, doc = run_yaml("lblk", "read", devfile, "--slba", hex(slba), "--nlb", nlb,
                      "--data-output", out)
    assert doc["xnvme_lblk_io"]["nbytes"] == nbytes
    assert out.read_bytes() == data

    raw = devfile.read_bytes()
    assert raw[slba * LBA_NBYTES : slba * LBA_NBYTES + nbytes] == data
    assert raw[: slba * LBA_NBYTES] == bytes(slba * LBA_NBYTES)


def test_lblk_write_pattern_file(tmp_path, devfile):
    """Without --data-input the written data is the documented pattern"""
    nlb = 4100
    run_yaml("lblk", "write", devfile, "--slba", "0x3", "--nlb", nlb)
    out = tmp_path / "out.bin"
    run_yaml("lblk", "read", devfile, "--slba", "0x3", "--nlb", nlb, "--data-output", out)
    assert out.read_bytes() == pattern((nlb + 1) * LBA_NBYTES)


@pytest.mark.parametrize("sub,extra", [("sync", []), ("async", ["--qdepth", 4])])
def test_xdd_file_copy(tmp_path, sub, extra):
    data = os.urandom(5 * 1024 * 1024 + 123)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    dst = tmp_path / "dst.bin"
    _, doc = run_yaml("xdd", sub, "--data-input", src, "--data-output", dst,
                      "--data-nbytes", len(data), "--iosize", 65536, *extra)
    assert "wall-clock" in doc
    assert dst.read_bytes() == data

    # a range from an offset lands at the same offset
    dst2 = tmp_path / "dst2.bin"
    run_yaml("xdd", sub, "--data-input", src, "--data-output", dst2, "--data-nbytes", 4096,
             "--offset", 8192, *extra)
    assert dst2.read_bytes()[8192:] == data[8192 : 8192 + 4096]


@pytest.mark.parametrize(
    "sub,extra",
    [
        ("dump-sync", []),
        ("dump-sync-iovec", ["--vec-cnt", 3, "--iosize", 4097]),
        ("dump-async", ["--qdepth", 5, "--iosize", 7000]),
        ("dump-async-iovec", ["--vec-cnt", 7]),
    ],
)
def test_xnvme_file_dump(tmp_path, sub, extra):
    nbytes = 1000003
    out = tmp_path / "dump.bin"
    _, doc = run_yaml("xnvme_file", sub, out, "--data-nbytes", nbytes, *extra)
    assert "wall-clock" in doc
    assert out.read_bytes() == pattern(nbytes)


@pytest.mark.parametrize("sub,extra", [("load-sync", []), ("load-async", ["--qdepth", 4])])
def test_xnvme_file_load(tmp_path, sub, extra):
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(777777))
    _, doc = run_yaml("xnvme_file", sub, src, *extra)
    assert doc["wall-clock"]["mib"] >= 0


@pytest.mark.parametrize(
    "sub,extra", [("copy-sync", []), ("copy-async", ["--qdepth", 32, "--iosize", 4096])]
)
def test_xnvme_file_copy(tmp_path, sub, extra):
    data = os.urandom(1000003)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    dst = tmp_path / "dst.bin"
    dst.write_bytes(b"x" * 2000000)  # longer: the copy truncates
    run_yaml("xnvme_file", sub, src, dst, *extra)
    assert dst.read_bytes() == data


def test_write_read_file(tmp_path):
    path = tmp_path / "wr.bin"
    _, doc = run_yaml("xnvme_file", "write-read", path, 1000000)
    assert doc["xnvme_file_write_read"]["ndiff"] == 0
    assert path.read_bytes() == pattern(1000000)


# ------------------------------------------------------------------------------------------------
# Bad input: a non-zero exit and a message naming the argument, never a crash
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,args,status,needle",
    [
        ("xnvme", ["bogus"], EXIT_ARGS, "bogus"),
        ("lblk", ["bogus", RAMDISK], EXIT_ARGS, "bogus"),
        ("xnvme", ["info", RAMDISK, "--bogus", "1"], EXIT_ARGS, "--bogus"),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 0, "--bogus"], EXIT_ARGS, "--bogus"),
        ("xnvme", ["idfy", RAMDISK], EXIT_ARGS, "--cns"),
        ("lblk", ["read", RAMDISK, "--slba", 0], EXIT_ARGS, "--nlb"),
        ("xdd", ["sync", "--data-input", RAMDISK], EXIT_ARGS, "--data-output"),
        ("xnvme_file", ["write-read", RAMDISK], EXIT_ARGS, "data-nbytes"),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 99999999999], EXIT_ARGS, "--nlb"),
        ("lblk", ["read", RAMDISK, "--slba", "0x1ffffffffffffffff", "--nlb", 0], EXIT_ARGS,
         "--slba"),
        ("xnvme", ["feature-get", RAMDISK, "--fid", "0x1ffffffff"], EXIT_ARGS, "--fid"),
        ("lblk", ["read", RAMDISK, "--slba", "0xZZ", "--nlb", 0], EXIT_ARGS, "--slba"),
        ("lblk", ["read", RAMDISK, "--slba", "xyz", "--nlb", 0], EXIT_ARGS, "--slba"),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", "abc"], EXIT_ARGS, "--nlb"),
        ("xnvme", ["format", RAMDISK, "--lbafl", "0x10"], EXIT_ARGS, "--lbafl"),
        ("xnvme", ["log", RAMDISK, "--lid", "0x2", "--data-nbytes", 6], EXIT_FAILED,
         "--data-nbytes"),
        ("xnvme_file", ["dump-async", "x.bin", "--data-nbytes", 10, "--qdepth", 0],
         EXIT_ARGS, "--qdepth"),
        ("xnvme", ["info", "/nonexistent/device"], EXIT_FAILED, "/nonexistent/device"),
        ("zoned", ["bogus"], EXIT_ARGS, "bogus"),
        ("kvs", ["bogus"], EXIT_ARGS, "bogus"),
        ("zoned", ["mgmt", ZONED, "--slba", "0x0"], EXIT_ARGS, "--zsa"),
        ("zoned", ["mgmt", ZONED, "--slba", "0x0", "--zsa", "0x100"], EXIT_ARGS, "--zsa"),
        ("zoned", ["mgmt-open", ZONED], EXIT_ARGS, "--slba"),
        ("zoned", ["append", ZONED, "--slba", "0x0"], EXIT_ARGS, "--nlb"),
        ("zoned", ["read", ZONED, "--slba", hex(NZONES * ZSZE), "--nlb", 0], EXIT_FAILED,
         "--slba"),
        ("kvs", ["store", KV, "--key", "k"], EXIT_ARGS, "--value"),
        ("kvs", ["retrieve", KV], EXIT_ARGS, "--key"),
        ("xnvme", ["fdp-ruhs", FDP], EXIT_ARGS, "--limit"),
        ("xnvme", ["log-fdp-events", FDP, "--limit", 1, "--lsi", "0x0"], EXIT_ARGS, "--lsp"),
        ("lblk", ["write-read-pi", PI_URIS[0], "--slba", 0, "--nlb", 0, "--pract", "x"],
         EXIT_ARGS, "--pract"),
        ("xnvme", ["info", "1GB?csi=bogus"], EXIT_FAILED, "csi"),
    ],
)
def test_bad_arguments(tmp_path, name, args, status, needle):
    proc = run(name, *args, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == status, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"


def short_file(tmp_path):
    path = tmp_path / "short.bin"
    path.write_bytes(b"\x01" * 100)
    return path


@pytest.mark.parametrize(
    "name,args",
    [
        ("lblk", ["write", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{short}"]),
        ("lblk", ["compare", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{short}"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x9", "--data-nbytes", 4096,
                   "--data-input", "{short}"]),
        ("xnvme", ["pioc", RAMDISK, "--opcode", "0x1", "--data-nbytes", 4096,
                   "--data-input", "{short}"]),
        ("xnvme", ["feature-set", RAMDISK, "--fid", "0x3", "--feat", "0x0",
                   "--data-nbytes", 4096, "--data-input", "{short}"]),
        ("xdd", ["sync", "--data-input", "{short}", "--data-output", "{tmp}/o.bin",
                 "--data-nbytes", 4096]),
        ("xdd", ["async", "--data-input", "{short}", "--data-output", "{tmp}/o.bin",
                 "--data-nbytes", 4096]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_short_data_file(tmp_path, name, args):
    short = short_file(tmp_path)
    args = [str(a).format(short=short, tmp=tmp_path) for a in args]
    proc = run(name, *args, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert str(short) in err, err
    assert args[0] in err, f"subcommand not named: {err}"
    assert not (tmp_path / "o.bin").exists(), "output written despite the short input"


@pytest.mark.parametrize(
    "name,args",
    [
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{bad}"]),
        ("xnvme", ["idfy-ctrlr", RAMDISK, "--data-output", "{bad}"]),
        ("xnvme", ["log-health", RAMDISK, "--data-output", "{bad}"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1", "--data-nbytes", 4096,
                   "--data-output", "{bad}"]),
        ("xdd", ["sync", "--data-input", RAMDISK, "--data-output", "{bad}",
                 "--data-nbytes", 4096]),
        ("xnvme_file", ["dump-sync", "{bad}", "--data-nbytes", 4096]),
        ("xnvme_file", ["copy-async", "{src}", "{bad}"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
@pytest.mark.parametrize("bad", ["{tmp}/missing-dir/out.bin", "{tmp}"], ids=["nodir", "isdir"])
def test_unwritable_output(tmp_path, name, args, bad):
    src = tmp_path / "src.bin"
    src.write_bytes(b"\x02" * 4096)
    bad = bad.format(tmp=tmp_path)
    args = [str(a).format(bad=bad, src=src) for a in args]
    proc = run(name, *args, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode in (EXIT_FAILED, EXIT_ARGS), f"{name} {args}: {proc.returncode}"
    assert bad in err, f"{name} {args}: {bad!r} not named in {err!r}"


# ------------------------------------------------------------------------------------------------
# Inputs and outputs that are the same file, outputs left by failures, FIFO inputs, sizes beyond
# what the target holds (issue 15, items 2 and 8)
# ------------------------------------------------------------------------------------------------

SAME_NBYTES = 1 << 20


def same_file_setup(tmp_path):
    """A 1 MiB file of random bytes (usable as a device), a symbolic and a hard link to it"""
    path = tmp_path / "x.bin"
    data = os.urandom(SAME_NBYTES)
    path.write_bytes(data)
    os.symlink(path, tmp_path / "x-sym.bin")
    os.link(path, tmp_path / "x-hard.bin")
    return path, data


@pytest.mark.parametrize(
    "name,args,labels",
    [
        ("xnvme_file", ["copy-sync", "{x}", "{x}"], ["data-input", "data-output"]),
        ("xnvme_file", ["copy-async", "{x}", "{sym}"], ["data-input", "data-output"]),
        ("xnvme_file", ["copy-sync", "{hard}", "./x.bin"], ["data-input", "data-output"]),
        ("xnvme_file", ["copy-async", "{sym}", "{hard}", "--qdepth", 4],
         ["data-input", "data-output"]),
        ("xdd", ["sync", "--data-input", "{x}", "--data-output", "{x}", "--data-nbytes", 4096],
         ["--data-input", "--data-output"]),
        ("xdd", ["async", "--data-input", "{hard}", "--data-output", "{sym}",
                 "--data-nbytes", 4096], ["--data-input", "--data-output"]),
        ("lblk", ["read", "{x}", "--slba", 0, "--nlb", 7, "--data-output", "{sym}"],
         ["uri", "--data-output"]),
        ("lblk", ["write", "{x}", "--slba", 8, "--nlb", 7, "--data-input", "{hard}"],
         ["uri", "--data-input"]),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{tmp}/o.bin",
                  "--meta-output", "o.bin"], ["--data-output", "--meta-output"]),
        ("xnvme", ["pioc", "{x}", "--opcode", "0x2", "--cdw12", "0x7", "--data-nbytes", 4096,
                   "--data-output", "{hard}"], ["uri", "--data-output"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1", "--data-nbytes", 4096,
                   "--data-input", "{x}", "--data-output", "{sym}"],
         ["--data-input", "--data-output"]),
        ("xnvme", ["idfy-ns", "{sym}", "--data-output", "{x}"], ["uri", "--data-output"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_same_file_refused(tmp_path, name, args, labels):
    """Input and output (or two outputs) naming one file, through any path: refused untouched"""
    path, data = same_file_setup(tmp_path)
    fmt = {"x": path, "sym": tmp_path / "x-sym.bin", "hard": tmp_path / "x-hard.bin",
           "tmp": tmp_path}
    args = [str(a).format(**fmt) for a in args]
    proc = run(name, *args, cwd=tmp_path, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert "same file" in err, err
    for label in labels:
        assert f"{label} " in err, f"{name} {args}: {label!r} not named in {err!r}"
    assert proc.stdout.decode().strip() == "", "refused before doing anything"
    assert path.read_bytes() == data, "the file was modified"
    assert not (tmp_path / "o.bin").exists()


def test_same_file_distinct_files_still_work(tmp_path):
    """Different files with equal content, and a copy through a symlink to another file, run"""
    path, data = same_file_setup(tmp_path)
    other = tmp_path / "other.bin"
    os.symlink(tmp_path / "target.bin", tmp_path / "dangling.bin")
    run_yaml("xnvme_file", "copy-sync", path, other)
    assert other.read_bytes() == data
    run_yaml("xnvme_file", "copy-sync", other, tmp_path / "dangling.bin")
    assert (tmp_path / "target.bin").read_bytes() == data
    # /dev/null twice is not "the same file": character devices are not compared
    proc, _ = run_yaml("xnvme", "padc", RAMDISK, "--opcode", "0x6", "--cdw10", "0x1",
                       "--data-nbytes", 4096, "--data-input", "/dev/null", "--data-output",
                       "/dev/null", expect=(EXIT_FAILED,))
    err = proc.stderr.decode()  # /dev/null holds no input: the failure is the short read
    assert "same file" not in err and "--data-input /dev/null: ended after 0 bytes" in err, err
    run_yaml("xnvme", "idfy-ns", RAMDISK, "--data-output", "/dev/null")


@pytest.mark.parametrize(
    "name,args,needles",
    [
        # the input holds fewer bytes than --offset + --data-nbytes (here: none at all)
        ("xdd", ["sync", "--data-input", "{empty}", "--data-output", "{out}", "--data-nbytes",
                 10], ["--data-input", "holds 0 bytes"]),
        ("xdd", ["async", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes",
                 10, "--offset", 18446744073709551000], ["--data-input", "--offset"]),
        ("xdd", ["sync", "--data-input", RAMDISK, "--data-output", "{out}", "--data-nbytes",
                 10, "--offset", 18446744073709551000], ["--data-input", "--offset"]),
        # O_DIRECT with a transfer size no device takes: fails after the output is open
        ("xdd", ["sync", "--data-input", "{src}", "--data-output", "{out}", "--data-nbytes",
                 4000, "--direct", "--iosize", 1000], ["--data-input"]),
        ("xnvme_file", ["dump-sync", "{out}", "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", "data-output", "bytes in all"]),
        ("xnvme_file", ["dump-async-iovec", "{out}", "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", "data-output"]),
        ("xnvme_file", ["write-read", "{out}", 18446744073709551615],
         ["data-nbytes 18446744073709551615", "uri"]),
        # the namespace does not exist: the command fails after --data-output was created
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--nsid", "0x2", "--data-output",
                  "{out}"], ["Read"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_failed_run_leaves_no_output(tmp_path, name, args, needles):
    src = tmp_path / "src.bin"
    data = os.urandom(100000)
    src.write_bytes(data)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    out = tmp_path / "out.bin"
    args = [str(a).format(src=src, empty=empty, out=out) for a in args]
    proc = run(name, *args, cwd=tmp_path, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    for needle in needles:
        assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"
    assert not out.exists(), f"{name} {args}: the failed run left {out} behind"
    assert src.read_bytes() == data and empty.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.bin", "src.bin"]


def test_failed_run_keeps_existing_output(tmp_path):
    """A file that existed before is never removed; a partial result is reported as such"""
    keep = tmp_path / "keep.bin"
    old = b"precious" * 1000
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(100000))

    # refused before the truncating open: the file is intact
    for sub in ("dump-sync", "dump-async"):
        keep.write_bytes(old)
        proc = run("xnvme_file", sub, keep, "--data-nbytes", 18446744073709551615, timeout=60)
        assert proc.returncode == EXIT_FAILED
        assert "--data-nbytes" in proc.stderr.decode()
        assert keep.read_bytes() == old

    # xdd does not truncate: a failure before the first write leaves the file as it was
    keep.write_bytes(old)
    proc = run("xdd", "sync", "--data-input", src, "--data-output", keep, "--data-nbytes", 4000,
               "--direct", "--iosize", 1000, timeout=60)
    assert proc.returncode == EXIT_FAILED
    assert keep.read_bytes() == old

    # lblk truncates its output when opening it: the failure says what is left
    keep.write_bytes(old)
    proc = run("lblk", "read", RAMDISK, "--slba", 0, "--nlb", 7, "--nsid", "0x2",
               "--data-output", keep, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED
    assert keep.exists(), "an output that existed before was removed"
    assert f"--data-output {keep}" in err and "existed before" in err, err
    assert keep.stat().st_size == 0


# Every tool taking a data input: a FIFO without a writer must fail at once, naming it
FIFO_CASES = [
    ("xnvme", ["pioc", RAMDISK, "--opcode", "0x1", "--data-nbytes", 4096,
               "--data-input", "{fifo}"], "--data-input"),
    ("xnvme", ["padc", RAMDISK, "--opcode", "0x9", "--data-nbytes", 4096,
               "--data-input", "{fifo}"], "--data-input"),
    ("xnvme", ["feature-set", RAMDISK, "--fid", "0x3", "--feat", "0x0", "--data-nbytes", 4096,
               "--data-input", "{fifo}"], "--data-input"),
    ("lblk", ["write", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"],
     "--data-input"),
    ("lblk", ["compare", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"],
     "--data-input"),
    ("zoned", ["append", ZONED, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"],
     "--data-input"),
    ("xdd", ["sync", "--data-input", "{fifo}", "--data-output", "{tmp}/o.bin",
             "--data-nbytes", 4096], "--data-input"),
    ("xdd", ["async", "--data-input", RAMDISK, "--data-output", "{fifo}",
             "--data-nbytes", 4096], "--data-output"),
    ("xnvme_file", ["load-sync", "{fifo}"], "data-input"),
    ("xnvme_file", ["copy-async", "{fifo}", "{tmp}/o.bin"], "data-input"),
    ("xnvme_file", ["dump-sync", "{fifo}", "--data-nbytes", 4096], "data-output"),
    ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", 7, "--data-output", "{fifo}"],
     "--data-output"),
]


@pytest.mark.parametrize(
    "name,args,label", FIFO_CASES,
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_fifo_without_peer_fails_promptly(tmp_path, name, args, label):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    args = [str(a).format(fifo=fifo, tmp=tmp_path) for a in args]
    try:
        proc = run(name, *args, cwd=tmp_path, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name} {args}: hangs on a FIFO without a peer")
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, f"{name} {args}: exit {proc.returncode}\n{err}"
    assert f"{label} {fifo}" in err, f"{name} {args}: {label} {fifo} not named in {err!r}"
    assert not (tmp_path / "o.bin").exists()


@pytest.mark.parametrize(
    "name,args",
    [
        ("lblk", ["write", RAMDISK, "--slba", 0, "--nlb", 7, "--data-input", "{fifo}"]),
        ("xnvme", ["pioc", RAMDISK, "--opcode", "0x1", "--cdw12", "0x7", "--data-nbytes",
                   4096, "--data-input", "{fifo}"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_fifo_with_writer_is_read(tmp_path, name, args):
    """A FIFO that has a writer is read as a stream (the data waits in the pipe)"""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR)  # a writer (and reader) that never blocks
    try:
        os.write(fd, os.urandom(4096))
        args = [str(a).format(fifo=fifo) for a in args]
        run_yaml(name, *args)
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    "name,args,needles",
    [
        ("xnvme_file", ["dump-sync", RAMDISK, "--data-nbytes", 2 * RAMDISK_NBYTES],
         [f"--data-nbytes {2 * RAMDISK_NBYTES}", f"holds {RAMDISK_NBYTES} bytes"]),
        ("xnvme_file", ["dump-async", RAMDISK, "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", f"holds {RAMDISK_NBYTES} bytes"]),
        ("xnvme_file", ["write-read", RAMDISK, RAMDISK_NBYTES + 1],
         [f"data-nbytes {RAMDISK_NBYTES + 1}", f"holds {RAMDISK_NBYTES} bytes"]),
        ("xnvme", ["pioc", RAMDISK, "--opcode", "0x2", "--data-nbytes", 18446744073709551615],
         ["--data-nbytes 18446744073709551615", "4294967295"]),
        ("xnvme", ["padc", RAMDISK, "--opcode", "0x6", "--meta-nbytes", 1 << 40],
         [f"--meta-nbytes {1 << 40}", "4294967295"]),
        ("xnvme", ["feature-get", RAMDISK, "--fid", "0x7", "--data-nbytes", 1 << 33],
         [f"--data-nbytes {1 << 33}", "4294967295"]),
        # a file device grows, but (slba + nlb + 1) * 512 overflows 64 bits: refused
        ("lblk", ["write", "{dev}", "--slba", "0xffffffffffffff00", "--nlb", 0],
         ["--slba 0xffffffffffffff00", "largest file size"]),
        ("lblk", ["write-zeros", "{dev}", "--slba", "0x7fffffffffffff", "--nlb", 7],
         ["--slba 0x7fffffffffffff", "largest file size"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_sizes_beyond_the_target_refused(tmp_path, devfile, name, args, needles):
    before = devfile.stat().st_size
    args = [str(a).format(dev=devfile) for a in args]
    proc = run(name, *args, cwd=tmp_path, timeout=30)
    err = proc.stderr.decode()
    # the option limits (4294967295) are usage errors, what the target holds a failure
    status = EXIT_ARGS if "4294967295" in needles else EXIT_FAILED
    assert proc.returncode == status, f"{name} {args}: exit {proc.returncode}\n{err}"
    for needle in needles:
        assert needle in err, f"{name} {args}: {needle!r} not named in {err!r}"
    assert devfile.stat().st_size == before
    assert [p.name for p in tmp_path.iterdir()] == [devfile.name], "an output was left"


# ------------------------------------------------------------------------------------------------
# Progress lines: on a terminal only
# ------------------------------------------------------------------------------------------------


def run_with_tty_stderr(name, *args, cwd=None):
    """Runs a tool with stderr on a pseudo-terminal; returns (exit status, stdout, stderr)"""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [tool_path(name)] + [str(a) for a in args],
            cwd=cwd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
        )
    finally:
        os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the tool has exited and closed the terminal
            break
        if not chunk:
            break
        err += chunk
    out = proc.stdout.read()
    proc.wait(timeout=300)
    os.close(master)
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize(
    "name,args",
    [
        ("xdd", ["async", "--data-input", RAMDISK, "--data-output", "{tmp}/o.bin",
                 "--data-nbytes", 64 << 20]),
        ("lblk", ["read", RAMDISK, "--slba", 0, "--nlb", (64 << 20) // LBA_NBYTES - 1]),
        ("xnvme_file", ["dump-sync", "{tmp}/d.bin", "--data-nbytes", 64 << 20]),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(str(a) for a in v[:1]),
)
def test_progress_only_on_terminal(tmp_path, name, args):
    if not os.path.exists(tool_path(name)):
        pytest.skip(f"{name} is not built")
    args = [str(a).format(tmp=tmp_path) for a in args]

    status, out, err = run_with_tty_stderr(name, *args, cwd=tmp_path)
    assert status == EXIT_OK, err
    assert "\r" in err and "MiB/s" in err and "100%" in err, repr(err)
    assert "\r" not in out
    yaml.safe_load(out)

    proc = run(name, *args, cwd=tmp_path)
    assert proc.returncode == EXIT_OK
    assert proc.stderr == b"", proc.stderr


# ------------------------------------------------------------------------------------------------
# Generated man pages and bash completion
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOOLS)
def test_man_page(name):
    page = os.path.join(TOOLS_DIR, name + ".1")
    assert os.path.exists(page), f"{page} was not generated"
    if not shutil.which("man"):
        pytest.skip("man is not installed")
    env = dict(os.environ, MANWIDTH="100", LC_ALL="C.UTF-8", MANPAGER="cat", PAGER="cat")
    proc = subprocess.run(
        ["man", "--warnings", "-l", page],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60, check=False,
    )
    text = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr.decode().strip() == "", f"man warnings: {proc.stderr.decode()}"
    for sub in COVERED[name]:
        assert sub in text, f"{sub} missing from the man page of {name}"
    assert "EXIT STATUS" in text


def completion_file(name):
    path = os.path.join(COMPLETIONS_DIR, name)
    assert os.path.exists(path), f"{path} was not generated"
    return path


def complete(name, words, cwd):
    """Sources the completion of `name` in bash and completes `words` (the last is current)"""
    path = completion_file(name)
    with open(path, encoding="utf-8") as f:
        match = re.search(r"^complete -F (\S+) ", f.read(), re.MULTILINE)
    assert match, f"{path} registers no completion function"
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in [name] + words)
    script = (
        f"source '{path}' || exit 3\n"
        f"COMP_WORDS=({quoted})\n"
        f"COMP_CWORD={len(words)}\n"
        f"COMP_LINE=\"${{COMP_WORDS[*]}}\"\n"
        f"COMP_POINT=${{#COMP_LINE}}\n"
        f"{match.group(1)}\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script], cwd=cwd,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return set(proc.stdout.decode().split())


@pytest.mark.parametrize("name", TOOLS)
def test_bash_completion_subcommands(tmp_path, name):
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")
    assert COVERED[name] <= complete(name, [""], tmp_path)


def test_bash_completion_details(tmp_path):
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")
    assert complete("xnvme", ["idfy"], tmp_path) == {"idfy", "idfy-ns", "idfy-ctrlr", "idfy-cs"}
    assert complete("xnvme", ["log-h"], tmp_path) == {"log-health"}

    opts = complete("lblk", ["read", RAMDISK, "--"], tmp_path)
    assert {"--slba", "--nlb", "--data-output", "--nsid", "--help"} <= opts
    assert "--data-input" not in opts

    opts = complete("xdd", ["async", "--q"], tmp_path)
    assert opts == {"--qdepth"}

    opts = complete("kvs", ["store", RAMDISK, "--"], tmp_path)
    assert {"--key", "--value", "--only-add", "--only-update", "--compress"} <= opts
    assert complete("zoned", ["mgmt-"], tmp_path) == {
        "mgmt-open", "mgmt-close", "mgmt-finish", "mgmt-reset"
    }
    assert complete("xnvme", ["log-fdp"], tmp_path) == {
        "log-fdp-config", "log-fdp-stats", "log-fdp-events"
    }
    opts = complete("lblk", ["write-read-pi", RAMDISK, "--"], tmp_path)
    assert {"--pract", "--prchk", "--apptag", "--apptag_mask"} <= opts

    (tmp_path / "afile.bin").write_bytes(b"")
    assert "afile.bin" in complete("lblk", ["read", RAMDISK, "--data-output", "af"], tmp_path)
    assert complete("lblk", ["read", RAMDISK, "--slba", ""], tmp_path) == set()
