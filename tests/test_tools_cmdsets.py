# SPDX-License-Identifier: BSD-3-Clause
"""
Tests of the command-line tools on the command sets of the ramdisk: zoned ("1GB?csi=zoned,..."),
key-value, Flexible Data Placement and protection information namespaces. The key-value
subcommands cannot see each other's effects (a ramdisk lives for one invocation): each is
checked for its result on a fresh namespace.
"""
import os

import pytest

from tools_util import (
    EXIT_ARGS, EXIT_FAILED, EXIT_OK, FDP, FDP_NRUH, KEY_NOT_EXISTS, KV, LBA_NBYTES, NZONES,
    OK_OR_UNSUPPORTED, PI_URIS, RAMDISK, ZCAP, ZONED, ZSZE, ramdisk_info, run_fail, run_yaml,
    zone,
)


# ------------------------------------------------------------------------------------------------
# Command sets on the ramdisk: zoned, key-value, FDP and protection information namespaces
# ------------------------------------------------------------------------------------------------

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


@pytest.mark.parametrize(
    "sub,extra,needle",
    [
        ("write", ["--slba", 0, "--nlb", ZCAP], "cross the writable end of the zone at 0x0"),
        ("write", ["--slba", hex(ZCAP - 8), "--nlb", 8], "capacity 6144 LBAs"),
        ("append", ["--slba", 0, "--nlb", ZCAP], "has room for 6144 more LBAs"),
        ("append", ["--slba", "0x10", "--nlb", 7], "not the start of a zone"),
    ],
    ids=["write-past-zcap", "write-tail", "append-past-zcap", "append-not-zslba"],
)
def test_zoned_write_that_cannot_fit_refused_before_any_command(sub, extra, needle):
    """A write or append that would land its first commands and fail later is refused first"""
    proc = run_fail("zoned", sub, ZONED, *extra, needles=[needle])
    out = proc.stdout.decode()
    assert "xnvme_lblk_io" not in out and "xnvme_znd_append" not in out and "# Write" not in out
    assert len([l for l in proc.stderr.decode().splitlines() if l.startswith("# ERR")]) == 1
