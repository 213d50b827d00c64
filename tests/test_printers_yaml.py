# SPDX-License-Identifier: BSD-3-Clause
"""
Printer output is YAML: runs the pp_dump helper (every printer on the in-memory device "1GB"
and on synthetic structures), parses each section with yaml.safe_load and checks keys, their
order and values.

The helper is found through the environment variable XNVME_PP_DUMP (set by meson), else in
the usual build directories.
"""
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

NASTY = " it's: #1 - [x] {y} &a *b !c %d @e `f | > ? ??,''"


def find_pp_dump():
    env = os.environ.get("XNVME_PP_DUMP")
    if env:
        return env
    root = Path(__file__).resolve().parent.parent
    for cand in (root / "build" / "tests" / "pp_dump", root / "builddir" / "tests" / "pp_dump"):
        if cand.exists():
            return str(cand)
    pytest.skip("pp_dump not found; set XNVME_PP_DUMP")
    return None


@pytest.fixture(scope="module")
def raw():
    """The sections of pp_dump's output as text: {name: text}"""
    proc = subprocess.run([find_pp_dump()], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    sections = {}
    name = None
    for line in proc.stdout.splitlines(keepends=True):
        match = re.match(r"^=== (\S+)\n$", line)
        if match:
            name = match.group(1)
            assert name not in sections, f"duplicate section {name}"
            sections[name] = ""
            continue
        assert name is not None, f"output before the first section: {line!r}"
        sections[name] += line
    return sections


@pytest.fixture(scope="module")
def doc(raw):
    """Every section parsed with yaml.safe_load"""
    parsed = {}
    for name, text in raw.items():
        try:
            parsed[name] = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            pytest.fail(f"section {name} is not YAML: {exc}\n{text}")
    return parsed


def test_every_section_parses(doc):
    # the set of sections pp_dump prints; a missing one means the helper stopped early
    expected = {
        "ident", "ident_flow", "dev", "geo", "opts", "idfy_ctrlr", "idfy_ns", "nvm_idfy_ctrlr",
        "nvm_idfy_ns", "lba_range", "health", "erri", "feat_nqueues", "cmd_ctx", "spec_cmd",
        "ctrlr_bar", "be_attr_list", "be_attr_item", "lba", "lbas", "lbas_empty", "opts_nasty",
        "ident_nasty", "ident_nasty_flow", "null_geo", "null_dev", "null_cmd_ctx", "terse_geo",
        "idfy_ctrlr_nasty", "idfy_ns_ff", "idfy_cs", "znd_idfy_ctrlr", "znd_idfy_ns",
        "znd_idfy_lbafe", "znd_descr", "znd_descr_flow", "znd_report_hdr", "znd_log_changes",
        "kvs_idfy_ns", "fdp_conf", "fdp_stats", "fdp_events", "ruhu", "ruhs",
        "feat_fdp_events", "drecv_idfy", "drecv_srp", "drecv_sgs", "drecv_sar",
        "scopy_fmt_zero", "scopy_source_range", "enumeration", "enumeration_pp",
        "enumeration_pp_empty",
    }
    assert expected <= set(doc), sorted(expected - set(doc))


def test_struct_sections_have_one_top_key(doc, raw):
    # every printer of a struct prints "<name>:" first; no tabs, no trailing blanks
    for name, text in raw.items():
        assert "\t" not in text, name
        for line in text.splitlines():
            assert line == line.rstrip(), f"{name}: trailing blank in {line!r}"
        value = doc[name]
        if isinstance(value, dict) and not name.endswith("_flow"):
            assert len(value) >= 1, name
            if name not in ("lbas", "lbas_empty", "feat_nqueues"):
                assert len(value) == 1, f"{name}: {list(value)}"


def test_ident(doc):
    ident = doc["ident"]["xnvme_ident"]
    assert list(ident) == ["uri", "dtype", "nsid", "csi", "subnqn"]
    assert ident["uri"] == "1GB"
    assert ident["dtype"] == 5
    assert ident["nsid"] == 1
    assert ident["csi"] == 0
    assert isinstance(ident["subnqn"], str)
    assert doc["ident_flow"] == ident


def test_dev(doc):
    dev = doc["dev"]["xnvme_dev"]
    assert list(dev) == ["xnvme_ident", "xnvme_be", "xnvme_opts", "xnvme_geo"]
    assert dev["xnvme_ident"] == doc["ident"]["xnvme_ident"]

    be = dev["xnvme_be"]
    assert list(be) == ["admin", "sync", "async", "attr"]
    opts = dev["xnvme_opts"]
    assert list(opts) == ["be", "mem", "dev", "admin", "sync", "async"]
    assert opts["be"] == "ramdisk"
    assert be["attr"] == {"name": opts["be"]}
    for mech in ("admin", "sync", "async"):
        assert be[mech] == {"id": opts[mech]}
        assert isinstance(opts[mech], str) and opts[mech]
    assert isinstance(opts["mem"], str) and opts["mem"]

    assert dev["xnvme_geo"] == doc["geo"]["xnvme_geo"]


def test_geo(doc):
    geo = doc["geo"]["xnvme_geo"]
    assert list(geo) == ["type", "npugrp", "npunit", "nzone", "nsect", "nbytes", "nbytes_oob",
                         "tbytes", "mdts_nbytes", "lba_nbytes", "lba_extended", "ssw",
                         "pi_type", "pi_loc", "pi_format"]
    assert geo["type"] == "XNVME_GEO_CONVENTIONAL"
    assert geo["nbytes"] == 512
    assert geo["tbytes"] == 1 << 30
    assert geo["nsect"] == (1 << 30) // 512
    assert geo["ssw"] == 9
    assert geo["npugrp"] * geo["npunit"] * geo["nzone"] == 1


def test_opts(doc):
    opts = doc["opts"]["xnvme_opts"]
    assert list(opts) == ["be", "dev", "mem", "sync", "async", "admin", "nsid", "rdonly",
                          "wronly", "rdwr", "create", "truncate", "direct", "create_mode",
                          "poll_io", "poll_sq", "register_files", "register_buffers",
                          "css.given", "css.value", "use_cmb_sqs", "shm_id", "main_core",
                          "core_mask", "adrfam", "spdk_fabrics"]
    assert opts["be"] == "ramdisk"
    assert opts["rdwr"] == 1
    assert opts["create_mode"] == 0o600
    dev_opts = doc["dev"]["xnvme_dev"]["xnvme_opts"]
    for key, val in dev_opts.items():
        assert opts[key] == val

    nasty = doc["opts_nasty"]["xnvme_opts"]
    assert nasty["be"] == NASTY
    assert nasty["adrfam"] == "'"
    assert nasty["dev"] is None


def test_idfy_ctrlr(doc):
    ctrlr = doc["idfy_ctrlr"]["xnvme_spec_idfy_ctrlr"]
    keys = list(ctrlr)
    assert keys[:5] == ["vid", "ssvid", "sn", "mn", "fr"]
    assert keys.index("mdts") < keys.index("oacs") < keys.index("sqes") < keys.index("subnqn")
    assert keys[-2:] == ["nvmf_specific", "psd"]
    for key in ("sn", "mn", "fr", "subnqn"):
        assert isinstance(ctrlr[key], str)
        assert ctrlr[key] == ctrlr[key].rstrip(" ")
    assert ctrlr["mn"]
    assert ctrlr["subnqn"] == doc["ident"]["xnvme_ident"]["subnqn"]
    assert len(ctrlr["psd"]) == ctrlr["npss"] + 1
    assert set(ctrlr["psd"][0]) >= {"mp", "enlat", "exlat", "actp"}
    assert len(ctrlr["ieee"]) == 3 and len(ctrlr["fguid"]) == 16
    assert len(ctrlr["tnvmcap"]) == 2

    nasty = doc["idfy_ctrlr_nasty"]["xnvme_spec_idfy_ctrlr"]
    assert nasty["sn"] == "'#: x"
    assert nasty["mn"] == NASTY[:40].rstrip(" ")
    assert nasty["fr"] == "- [1]: {"
    assert nasty["subnqn"] == NASTY.rstrip(" ")
    assert len(nasty["psd"]) == 32


def test_idfy_ns(doc):
    ns = doc["idfy_ns"]["xnvme_spec_idfy_ns"]
    keys = list(ns)
    assert keys[:6] == ["nsze", "ncap", "nuse", "nsfeat", "nlbaf", "flbas"]
    assert keys[-1] == "lbaf"
    assert ns["nsze"] == (1 << 30) // 512
    assert len(ns["lbaf"]) == ns["nlbaf"] + 1
    fmt = ns["flbas"]["format"] + (ns["flbas"]["format_msb"] << 4)
    assert 1 << ns["lbaf"][fmt]["ds"] == 512
    assert set(ns["nsfeat"]) >= {"thin_prov"}
    assert len(ns["nvmcap"]) == 2 and len(ns["nguid"]) == 16

    ff_ns = doc["idfy_ns_ff"]["xnvme_spec_idfy_ns"]
    assert ff_ns["nsze"] == (1 << 64) - 1
    assert len(ff_ns["lbaf"]) == 64
    assert ff_ns["eui64"] == (1 << 64) - 1


def test_idfy_css(doc):
    nvm_ctrlr = doc["nvm_idfy_ctrlr"]["xnvme_spec_nvm_idfy_ctrlr"]
    assert list(nvm_ctrlr) == ["vsl", "wzsl", "wusl", "dmrl", "dmrsl", "dmsl"]
    nvm_ns = doc["nvm_idfy_ns"]["xnvme_spec_nvm_idfy_ns"]
    assert list(nvm_ns) == ["lbstm", "pic", "elbaf"]
    assert len(nvm_ns["elbaf"]) == 64

    cs = doc["idfy_cs"]["xnvme_spec_idfy_cs"]
    assert cs["iocsc"] == [
        {"index": 0, "val": 5, "nvm": 1, "kv": 0, "zns": 1},
        {"index": 1, "val": 2, "nvm": 0, "kv": 1, "zns": 0},
    ]

    zctrlr = doc["znd_idfy_ctrlr"]["xnvme_spec_znd_idfy_ctrlr"]
    assert zctrlr == {"zasl": 5}
    zns = doc["znd_idfy_ns"]["xnvme_spec_znd_idfy_ns"]
    assert zns["mar"] == 0xFFFFFFFF and zns["mor"] == 13
    assert len(zns["lbafe"]) == 16
    assert zns["lbafe"][0] == {"zsze": 32768, "zdes": 1}
    assert doc["znd_idfy_lbafe"]["xnvme_spec_znd_idfy_lbafe"] == {"zsze": 32768, "zdes": 1}

    kvs = doc["kvs_idfy_ns"]["xnvme_spec_kvs_idfy_ns"]
    assert kvs["nsze"] == 1 << 30
    assert kvs["kvf"] == [{"kml": 16, "fopt": 0, "vml": 4096, "mnk": 1000}]


def test_logs(doc):
    health = doc["health"]["xnvme_spec_log_health_entry"]
    keys = list(health)
    assert keys[0] == "crit_warn" and keys[-1] == "tttmt2"
    assert len(health["temp_sens"]) == 8
    for key in ("data_units_read", "host_write_cmds", "pwr_on_hours", "nr_err_logs"):
        assert isinstance(health[key], int) and health[key] >= 0

    erri = doc["erri"]["xnvme_spec_log_erri_entry"]
    assert isinstance(erri, list) and len(erri) == 4
    assert list(erri[0]) == ["ecnt", "sqid", "cid", "status", "eloc", "lba", "nsid", "ven_si",
                             "trtype", "cmd_si", "trtype_si"]
    assert set(erri[0]["status"]) == {"val", "sc", "sct", "m", "dnr"}

    changes = doc["znd_log_changes"]["xnvme_spec_znd_log_changes"]
    assert changes == {"nidents": 2, "idents": [0, 0x8000]}


def test_fdp(doc):
    conf = doc["fdp_conf"]["xnvme_spec_log_fdp_conf"]
    assert conf["ncfg"] == 0
    assert len(conf["conf_desc"]) == 1
    desc = conf["conf_desc"][0]
    assert desc["nruh"] == 2 and desc["runs"] == 1 << 20 and desc["fdpa"] == 0x80
    assert desc["ruh_desc"] == [{"ruht": 1}, {"ruht": 2}]

    stats = doc["fdp_stats"]["xnvme_spec_log_fdp_stats"]
    assert stats == {"hbmw": [4096, 0], "mbmw": [0, 0], "mbe": [0, 1]}

    events = doc["fdp_events"]["xnvme_spec_log_fdp_events"]
    assert events["nevents"] == 2
    assert [ev["type"] for ev in events["event"]] == [0x80, 0x1]
    assert events["event"][0]["pid"] == 1
    assert len(events["event"][0]["type_specific"]) == 16

    assert doc["ruhu"]["xnvme_spec_log_ruhu"] == {"nruh": 2,
                                                   "ruhu_desc": [{"ruha": 1}, {"ruha": 0}]}
    assert doc["ruhs"]["xnvme_spec_ruhs"] == {
        "nruhsd": 1, "desc": [{"pi": 1, "ruhi": 0, "earutr": 0, "ruamw": 1000}]}

    fevents = doc["feat_fdp_events"]["xnvme_spec_feat_fdp_events"]
    assert fevents["nevents"] == 2
    assert fevents["event_desc"] == [{"type": 0, "fdpeta": 1, "ee": 1},
                                     {"type": 0x80, "fdpeta": 0, "ee": 0}]


def test_cmd_feat_dirs(doc):
    assert doc["feat_nqueues"] == {"feat": {"nsqa": 63, "ncqa": 63}} or \
        set(doc["feat_nqueues"]["feat"]) == {"nsqa", "ncqa"}

    ctx = doc["cmd_ctx"]["xnvme_cmd_ctx"]
    assert list(ctx) == ["cdw0", "sc", "sct"]

    cmd = doc["spec_cmd"]["xnvme_spec_cmd"]
    assert cmd["opcode"] == 0x2 and cmd["nsid"] == 1
    assert cmd["ndt"] == 0x10 and cmd["cdw12"] == 7
    assert cmd["dptr"] == {"prp1": 0, "prp2": 0}

    bar = doc["ctrlr_bar"]["xnvme_spec_ctrlr_bar"]
    assert list(bar)[:3] == ["cap", "vs", "intms"]
    assert list(bar)[-1] == "pmrmscu"

    rp = doc["drecv_idfy"]["xnvme_spec_idfy_dir_rp"]
    assert rp["directives_supported"] == {"identify": 1, "streams": 1, "data_placement": 0}
    assert rp["directives_enabled"] == {"identify": 1, "streams": 0, "data_placement": 0}
    srp = doc["drecv_srp"]["xnvme_spec_streams_dir_rp"]
    assert srp["msl"] == 16 and srp["nssa"] == 8 and srp["sws"] == 4096
    assert doc["drecv_sgs"]["xnvme_spec_streams_dir_gs"] == {"open_sc": 2, "sid": [1, 2]}
    assert doc["drecv_sar"]["xnvme_spec_alloc_resource"] == {"nsa": 4}

    entry = doc["scopy_fmt_zero"]["xnvme_spec_nvm_scopy_fmt_zero"]
    assert entry == {"slba": 0x20, "nlb": 7, "eilbrt": 0, "elbatm": 0, "elbat": 0}
    srange = doc["scopy_source_range"]["xnvme_spec_nvm_scopy_source_range"]
    assert srange["nr"] == 1
    assert [e["slba"] for e in srange["entry"]] == [0x20, 0x40]


def test_znd(doc):
    descr = doc["znd_descr"]["xnvme_spec_znd_descr"]
    assert list(descr) == ["zslba", "wp", "zcap", "zt", "zs", "za"]
    assert descr == {"zslba": 0x8000, "wp": 0x8010, "zcap": 28672, "zt": 2,
                     "zs": "ZND_STATE_IOPEN", "za": "0b10000000"}
    assert doc["znd_descr_flow"] == [descr]
    assert doc["znd_report_hdr"]["xnvme_spec_znd_report_hdr"] == {"nzones": 32}


def test_library_objects(doc):
    attrs = doc["be_attr_list"]["xnvme_be_attr_list"]
    assert list(attrs) == ["count", "capacity", "items"]
    assert attrs["count"] == 9 and len(attrs["items"]) == 9
    names = [item["name"] for item in attrs["items"]]
    assert names == ["spdk", "linux", "fbsd", "macos", "windows", "ramdisk", "vfio", "tcp", "rdma"]
    assert all(item["enabled"] in (0, 1) for item in attrs["items"])
    assert next(i for i in attrs["items"] if i["name"] == "ramdisk")["enabled"] == 1
    assert doc["be_attr_item"] == [attrs["items"][0]]

    assert doc["lba"] == {"lba": 0x1000}
    assert doc["lbas"] == {"nlbas": 3, "lbas": [0, 0x1000, (1 << 64) - 1]}
    assert doc["lbas_empty"] == {"nlbas": 0, "lbas": []}

    rng = doc["lba_range"]["xnvme_lba_range"]
    assert rng == {"slba": 0x10, "elba": 0x17, "naddrs": 8, "nbytes": 8 * 512,
                   "attr": {"is_zones": 0, "is_valid": 1}}


def test_nasty_strings(doc):
    ident = doc["ident_nasty"]["xnvme_ident"]
    assert ident["uri"] == NASTY
    assert ident["subnqn"] == "nqn: # it's"
    assert ident["nsid"] == 0xFFFFFFFF and ident["csi"] == 0xFF
    assert doc["ident_nasty_flow"] == [ident]


def test_null_and_terse(doc, raw):
    assert doc["null_geo"] == {"xnvme_geo": None}
    assert doc["null_dev"] == {"xnvme_dev": None}
    assert doc["null_cmd_ctx"] == {"xnvme_cmd_ctx": None}
    assert raw["terse_geo"] == "# ENOSYS: opts(0x2)\n"
    assert doc["terse_geo"] is None


def test_enumeration(doc):
    enum = doc["enumeration"]["xnvme_cli_enumeration"]
    assert list(enum) == ["capacity", "nentries", "entries"]
    assert enum["nentries"] == 3 and len(enum["entries"]) == 3
    assert enum["entries"][0] == {"uri": "/dev/nvme0n1", "dtype": 2, "nsid": 1, "csi": 0,
                                  "subnqn": ""}
    assert enum["entries"][2]["uri"] == NASTY

    assert doc["enumeration_pp"]["xnvme_cli_enumeration"] == enum["entries"]
    assert doc["enumeration_pp_empty"] == {"xnvme_cli_enumeration": None}
