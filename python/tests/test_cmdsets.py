"""Zoned, FDP and key-value helpers on the ramdisk's namespaces (docs/ramdisk.md)."""
import asyncio

import pytest

import xnvme
from xnvme import capi as C

ZONED = "1GB?csi=zoned,zsze=4096,zcap=3072"
FDP = "1GB?fdp=1,nruh=4"
KV = "1GB?csi=kv"


def test_zoned_report_append_reset():
    with xnvme.open(ZONED) as dev:
        assert dev.csi == C.XNVME_SPEC_CSI_ZONED
        dev.zone_reset(0, select_all=True)
        zones = dev.zone_report(0, limit=4)
        assert len(zones) == 4
        assert [z.zslba for z in zones] == [0, 4096, 8192, 12288]
        assert all(z.zcap == 3072 and z.wp == z.zslba and z.state == "EMPTY" for z in zones)
        lbas = dev.geo.lba_nbytes
        alba = dev.zone_append(4096, b"\x11" * lbas * 2)
        assert alba == 4096
        alba = dev.zone_append(4096, b"\x22" * lbas)
        assert alba == 4098
        z = dev.zone_report(4096, limit=1)[0]
        assert z.wp == 4099 and z.state == "IOPEN"
        assert bytes(dev.read(4098, 1)) == b"\x22" * lbas
        dev.zone_finish(4096)
        assert dev.zone_report(4096, limit=1)[0].state == "FULL"
        # a write to a full zone is a zoned status
        with pytest.raises(xnvme.XnvmeError) as info:
            dev.write(4096 + 5, b"\0" * lbas)
        assert info.value.sct == 1 and info.value.sc == C.XNVME_SPEC_ZND_SC_IS_FULL
        assert info.value.name == "Zone Is Full"
        dev.zone_reset(4096)
        assert dev.zone_report(4096, limit=1)[0].wp == 4096
        # sequential write at the write pointer through asyncio
        dev.zone_open(8192)

        async def main():
            for i in range(4):
                await dev.awrite(8192 + i, bytes([i]) * lbas)

        asyncio.run(main())
        assert dev.zone_report(8192, limit=1)[0].wp == 8196


def test_fdp_placement_and_status():
    with xnvme.open(FDP) as dev:
        ruhs = dev.fdp_ruh_status()
        assert len(ruhs) == 4
        assert [r["pi"] for r in ruhs] == [0, 1, 2, 3]
        before = ruhs[2]["ruamw"]
        lbas = dev.geo.lba_nbytes
        dev.fdp_write(0, b"\x33" * lbas * 8, pid=2)
        assert bytes(dev.read(0, 8)) == b"\x33" * lbas * 8
        after = dev.fdp_ruh_status()[2]["ruamw"]
        assert after == before - 8
        assert dev.get_feature(0x1D) & 1       # FDP mode enabled
        conf = dev.get_log(C.XNVME_SPEC_LOG_FDPCONF, 512, nsid=0xFFFFFFFF)
        assert int.from_bytes(conf[0:2], "little") == 0   # ncfg: one configuration


def test_fdp_without_fdp_is_invalid_field():
    with xnvme.open("1GB") as dev:
        with pytest.raises(xnvme.XnvmeError) as info:
            dev.fdp_write(0, b"\0" * dev.geo.lba_nbytes, pid=0)
        assert (info.value.sct, info.value.sc) == (0, 0x02)
        assert info.value.name == "Invalid Field in Command"


def test_kv_store_retrieve_list_delete():
    with xnvme.open(KV) as dev:
        assert dev.csi == C.XNVME_SPEC_CSI_KV
        for key in (b"alpha", b"beta", b"gamma"):
            if dev.kv_exist(key):
                dev.kv_delete(key)
        dev.kv_store("alpha", b"first value")
        dev.kv_store(b"beta", b"2" * 5000)
        assert dev.kv_exist("alpha") and not dev.kv_exist("gamma")
        assert dev.kv_retrieve("alpha") == b"first value"
        assert dev.kv_retrieve(b"beta", nbytes=8192) == b"2" * 5000
        keys = dev.kv_list(b"")
        assert b"alpha" in keys and b"beta" in keys
        # only-add on an existing key: Key Exists
        with pytest.raises(xnvme.XnvmeError) as info:
            dev.kv_store("alpha", b"x", opt=C.XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS)
        assert (info.value.sct, info.value.sc) == (0, 0x89)
        assert info.value.name == "Key Exists"
        dev.kv_delete("alpha")
        with pytest.raises(xnvme.XnvmeError) as info:
            dev.kv_retrieve("alpha")
        assert info.value.sc == C.XNVME_SPEC_KV_SC_KEY_NOT_EXISTS
        assert info.value.name == "KV Key Does Not Exist"
