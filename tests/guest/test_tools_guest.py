# SPDX-License-Identifier: BSD-3-Clause
"""
The command-line tools on the QEMU guest's NVMe devices (tests/guest/run_suite.sh runs this
inside the guest): identify data and logs against what nvme-cli reports for the same device,
data written through one device node read back through the other (/dev/nvmeXnY and
/dev/ngXnY are the same namespace), statuses of refused commands, zoned, PI and FDP
subcommands on QEMU's namespaces, and xdd copies between files and devices.

The device nodes come from the rig's XNVME_QEMU_* variables, the tools from
$XNVME_BUILD_DIR/tools; the helpers are those of tests/tools_util.py.
"""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tools_util import EXIT_FAILED, run, run_yaml, tool_path  # noqa: E402

ENV = os.environ
if "XNVME_QEMU_GUEST" not in ENV:
    pytest.skip("runs inside the QEMU guest (tests/qemu/rig.sh)", allow_module_level=True)

if not os.path.exists(tool_path("xnvme")):  # a wrong build directory must fail, not skip
    raise RuntimeError(f"{tool_path('xnvme')} is missing: set XNVME_BUILD_DIR")

CTRLR = ENV["XNVME_QEMU_CTRLR"]
NVM_BLK, NVM_CHR = ENV["XNVME_QEMU_NVM_BLK"], ENV["XNVME_QEMU_NVM_CHR"]
NVM4K_BLK, NVM4K_CHR = ENV["XNVME_QEMU_NVM4K_BLK"], ENV["XNVME_QEMU_NVM4K_CHR"]
ZNS_CHR, PI_CHR = ENV["XNVME_QEMU_ZNS_CHR"], ENV["XNVME_QEMU_PI_CHR"]
FDP_CHR = ENV.get("XNVME_QEMU_FDP_CHR", "")


def nvme_cli(*args):
    out = subprocess.run(["nvme", *args, "-o", "json"], stdout=subprocess.PIPE, check=True, text=True)
    return json.loads(out.stdout)


def hexint(v):
    return int(str(v), 0)


@pytest.mark.parametrize("uri", [NVM_BLK, NVM_CHR, CTRLR])
def test_idfy_ctrlr_matches_nvme_cli(uri):
    ref = nvme_cli("id-ctrl", CTRLR)
    _, doc = run_yaml("xnvme", "idfy-ctrlr", uri)
    ctrlr = doc["xnvme_spec_idfy_ctrlr"]
    assert ctrlr["sn"].strip() == ref["sn"].strip()
    assert ctrlr["mn"].strip() == ref["mn"].strip()
    assert ctrlr["fr"].strip() == ref["fr"].strip()
    assert hexint(ctrlr["vid"]) == ref["vid"]
    assert ctrlr["mdts"] == ref["mdts"]
    assert hexint(ctrlr["oacs"]) == ref["oacs"]


@pytest.mark.parametrize("uri, nsid", [(NVM_BLK, 1), (NVM_CHR, 1), (NVM4K_CHR, 2)])
def test_idfy_ns_matches_nvme_cli(uri, nsid):
    ref = nvme_cli("id-ns", CTRLR, "--namespace-id", str(nsid))
    _, doc = run_yaml("xnvme", "idfy-ns", uri, "--nsid", hex(nsid))
    ns = doc["xnvme_spec_idfy_ns"]
    assert ns["nsze"] == ref["nsze"] and ns["ncap"] == ref["ncap"]


@pytest.mark.parametrize("uri, lba_nbytes", [(NVM_BLK, 512), (NVM_CHR, 512), (NVM4K_CHR, 4096)])
def test_info_geometry_and_mechanisms(uri, lba_nbytes):
    _, doc = run_yaml("xnvme", "info", uri)
    dev = doc["xnvme_dev"]
    assert dev["xnvme_geo"]["lba_nbytes"] == lba_nbytes
    assert dev["xnvme_ident"]["uri"] == uri
    assert dev["xnvme_opts"]["be"] == "linux"
    if "/ng" in uri:  # the generic char device defaults to passthrough over io_uring
        assert dev["xnvme_opts"]["async"] == "io_uring_cmd"


def test_enum_lists_the_namespaces():
    proc = run("xnvme", "enum")
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    for node in (NVM_BLK, NVM_CHR, NVM4K_BLK, NVM4K_CHR):
        assert node in out, f"{node} missing from xnvme enum:\n{out}"


def test_log_health_matches_nvme_cli():
    ref = nvme_cli("smart-log", CTRLR)
    _, doc = run_yaml("xnvme", "log-health", NVM_CHR, "--nsid", "0xffffffff")
    log = doc["xnvme_spec_log_health_entry"]
    assert hexint(log["crit_warn"]) == ref["critical_warning"]
    assert log["avail_spare"] == ref["avail_spare"]
    assert log["avail_spare_thresh"] == ref["spare_thresh"]


def test_feature_number_of_queues():
    _, doc = run_yaml("xnvme", "feature-get", NVM_CHR, "--fid", "0x7")
    feat = doc["feat"]
    out = subprocess.run(["nvme", "get-feature", CTRLR, "-f", "7"], stdout=subprocess.PIPE,
                         check=True, text=True).stdout
    value = int(out.split("Current value:")[1].split()[0], 16)
    assert feat["nsqa"] == value & 0xFFFF and feat["ncqa"] == value >> 16


def test_write_through_block_node_read_through_char_node(tmp_path):
    data = os.urandom(8 * 512)
    src, dst = tmp_path / "in.bin", tmp_path / "out.bin"
    src.write_bytes(data)
    slba = "0x1000"
    run_yaml("lblk", "write", NVM_BLK, "--slba", slba, "--nlb", 7, "--data-input", src)
    run_yaml("lblk", "read", NVM_CHR, "--slba", slba, "--nlb", 7, "--data-output", dst)
    assert dst.read_bytes() == data
    # and zeroes written through the char node read back as zeroes through the block node
    run_yaml("lblk", "write-zeros", NVM_CHR, "--slba", slba, "--nlb", 3)
    run_yaml("lblk", "read", NVM_BLK, "--slba", slba, "--nlb", 7, "--data-output", dst)
    assert dst.read_bytes() == bytes(4 * 512) + data[4 * 512:]


@pytest.mark.parametrize("uri", [NVM_BLK, NVM_CHR])
def test_read_beyond_the_namespace_fails_with_its_status(uri, tmp_path):
    _, doc = run_yaml("xnvme", "idfy-ns", uri)
    nsze = doc["xnvme_spec_idfy_ns"]["nsze"]
    # lblk refuses the range itself, naming it
    proc = run("lblk", "read", uri, "--slba", hex(nsze), "--nlb", 0,
               "--data-output", tmp_path / "x.bin")
    err = proc.stderr.decode()
    assert proc.returncode != 0 and "--slba" in err and "beyond the end" in err, err
    # the raw command reaches the device, which answers LBA Out of Range
    proc = run("xnvme", "pioc", uri, "--opcode", "0x02", "--nsid", "0x1", "--cdw10",
               hex(nsze & 0xFFFFFFFF), "--cdw11", hex(nsze >> 32), "--cdw12", "0x0",
               "--data-nbytes", 512, "--data-output", tmp_path / "y.bin")
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED, err
    assert "LBA Out of Range (sct 0x0, sc 0x80, cdw0 0x0)" in err, err


def test_zoned_reset_append_report():
    # every zone empty, whatever earlier programs of the suite left behind
    run_yaml("zoned", "mgmt-reset", ZNS_CHR, "--slba", "0x0", "--all")
    _, doc = run_yaml("zoned", "append", ZNS_CHR, "--slba", "0x0", "--nlb", 1)
    assert hexint(doc["xnvme_znd_append"]["lba"]) == 0
    assert hexint(doc["xnvme_spec_znd_descr"]["wp"]) == 2
    _, doc = run_yaml("zoned", "append", ZNS_CHR, "--slba", "0x0", "--nlb", 0)
    assert hexint(doc["xnvme_znd_append"]["lba"]) == 2  # the device assigned the LBA
    # the rig's zoned namespace: 4 KiB LBAs, 16 MiB zones of 12 MiB capacity
    _, doc = run_yaml("zoned", "report", ZNS_CHR, "--slba", "0x0", "--limit", 2)
    zones = doc["xnvme_znd_report"]["entries"]
    zsze, zcap = (16 << 20) // 4096, (12 << 20) // 4096
    assert [hexint(z["zslba"]) for z in zones] == [0, zsze]
    assert [z["zcap"] for z in zones] == [zcap, zcap]
    assert hexint(zones[0]["wp"]) == 3 and zones[0]["zs"] != "ZND_STATE_EMPTY"
    assert zones[1]["zs"] == "ZND_STATE_EMPTY"
    run_yaml("zoned", "mgmt-reset", ZNS_CHR, "--slba", "0x0")


def test_write_read_pi():
    _, doc = run_yaml("lblk", "write-read-pi", PI_CHR, "--slba", "0x10", "--nlb", 7)
    pi = doc["xnvme_lblk_pi"]
    assert pi["pi_type"] == 1 and pi["md_nbytes"] == 8  # the rig's namespace: ms=8, pi=1
    assert pi["nverified"] == 8 and pi["ndiff"] == 0


@pytest.mark.skipif(not FDP_CHR, reason="the rig was booted without --fdp")
def test_fdp_handles_and_config():
    # the rig's FDP subsystem: fdp.nruh=8, fdp.runs=32M, handles 0-7 on the namespace
    _, doc = run_yaml("xnvme", "fdp-ruhs", FDP_CHR, "--limit", 8)
    ruhs = doc["xnvme_spec_ruhs"]
    assert ruhs["nruhsd"] == 8 and [hexint(d["pi"]) for d in ruhs["desc"]] == list(range(8))
    assert all(0 < d["ruamw"] <= (32 << 20) // 512 for d in ruhs["desc"])
    _, doc = run_yaml("xnvme", "log-fdp-config", FDP_CHR, "--data-nbytes", 4096, "--lsi", "0x1")
    conf = doc["xnvme_spec_log_fdp_conf"]["conf_desc"][0]
    assert conf["nruh"] == 8 and conf["runs"] == 32 << 20


def test_xdd_file_to_device_and_back(tmp_path):
    data = os.urandom(4 << 20)
    src, back = tmp_path / "src.bin", tmp_path / "back.bin"
    src.write_bytes(data)
    offset = 64 << 20
    # the source file is only as large as the data: copy its own range, placed on the device
    # through a file holding it at the device offset
    padded = tmp_path / "padded.bin"
    with open(padded, "wb") as f:
        f.seek(offset)
        f.write(data)
    run_yaml("xdd", "sync", "--data-input", padded, "--data-output", NVM_CHR,
             "--data-nbytes", len(data), "--offset", offset)
    run_yaml("xdd", "async", "--data-input", NVM_BLK, "--data-output", back,
             "--data-nbytes", len(data), "--offset", offset)
    with open(back, "rb") as f:
        f.seek(offset)
        assert f.read(len(data)) == data
    # a passthrough namespace is moved in whole LBAs: an unaligned range is refused, naming it
    proc = run("xdd", "sync", "--data-input", padded, "--data-output", NVM4K_CHR,
               "--data-nbytes", 4096, "--offset", offset + 512)
    err = proc.stderr.decode()
    assert proc.returncode != 0 and "whole 4096-byte LBAs" in err, err
