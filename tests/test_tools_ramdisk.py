# SPDX-License-Identifier: BSD-3-Clause
"""
Tests of the command-line tools on the in-memory device "1GB": every subcommand of xnvme, lblk,
xdd and xnvme_file has a case (COVERED in tools_util.py), usage works everywhere, and stdout is
YAML (parsed with yaml.safe_load) carrying the expected values.
"""
import os

import pytest

from tools_util import (
    COVERED, EXIT_ARGS, EXIT_OK, LBA_NBYTES, OK_OR_UNSUPPORTED, RAMDISK, RAMDISK_NBYTES, TOOLS,
    ctrlr_str, pattern, ramdisk_info, run, run_yaml, subcommands,
)


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
    for args in (["--help"], ["-h"]):
        proc = run(name, *args)
        out = proc.stdout.decode()
        assert proc.returncode == EXIT_OK, f"{name} {args}: exit {proc.returncode}"
        assert proc.stderr == b""
        assert "ver: {major: 0, minor: 7, patch: 5}" in out
        for sub in COVERED[name]:
            assert sub in out
    # no subcommand: a usage error, the usage where errors go
    proc = run(name)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_ARGS, f"{name}: exit {proc.returncode}"
    assert proc.stdout == b"", proc.stdout
    assert "ver: {major: 0, minor: 7, patch: 5}" in err
    assert [l for l in err.splitlines() if l.startswith("# ERR")] == [
        f"# ERR: '{name}': {{errno: -22, msg: 'missing the subcommand'}}"
    ], err
    for sub in COVERED[name]:
        assert sub in err


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
    assert set(names) == {
        "spdk", "linux", "fbsd", "macos", "windows", "ramdisk", "vfio", "tcp", "rdma"
    }


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

    # a fresh ramdisk holds zeros, the generated pattern does not match: one line names the
    # status, nothing on stdout is about the failure
    proc, doc = run_yaml("lblk", "compare", RAMDISK, "--slba", 0, "--nlb", 7, expect=(1,))
    assert not doc or "xnvme_cmd_ctx" not in doc, doc
    err = [l for l in proc.stderr.decode().splitlines() if l.startswith("# ERR")]
    assert len(err) == 1 and "Compare Failure (sct 0x2, sc 0x85" in err[0], err


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
