#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Writes the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/seed-*. Findings that
joined a corpus (any other file name) are left alone. Run from anywhere; re-running rewrites
the seeds identically.

  dev_open     every URI form the library accepts or refuses: ramdisk sizes and the options of
               docs/ramdisk.md, files, device nodes, PCI addresses, host:port, with mechanisms
  ramdisk_cmd  every opcode the ramdisk implements, per namespace kind, with good and bad buffers
  printers     structs of zeroes, ones, text with YAML indicators, large counts
  pi           every PI type x format x layout x location, plus refused argument sets
  tcp_pdu      NVMe/TCP PDU streams a target may send: responses, data, R2T, termination,
               with and without digests, and the violations the parser must refuse
  tcp_rx       whole target streams for the receive path, in pieces of 61 bytes to 15 KiB:
               every command answered, large payloads, digests, truncation and termination
  rdma_rx      NVMe/RDMA accept and reject private data; work completions of a connection:
               every command answered (with and without memory windows, invalidated by the
               target or locally), and the faults: unknown CID, wrong length, an answer twice,
               the wrong key invalidated, error and unknown completions
"""
import os
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write(target, name, data):
    d = HERE / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / f"seed-{name}").write_bytes(data)


def clear(target):
    d = HERE / "corpus" / target
    if d.is_dir():
        for f in d.glob("seed-*"):
            f.unlink()


# ------------------------------------------------------------------------------ dev_open
def dev_open():
    t = "dev_open"
    clear(t)
    seeds = {
        "ramdisk-1gb": "1GB\nio=1",
        "ramdisk-2gb-twice": "2GB\nio=1\ntwice=1\norder=1",
        "ramdisk-1000gb": "1000GB\nio=1",
        "ramdisk-huge": "8589934591GB",
        "ramdisk-too-large": "99999999999999999999GB",
        "ramdisk-zero": "0GB",
        "ramdisk-lower": "1gb",
        "ramdisk-zoned-doc": "1GB?csi=zoned,zsze=4096,zcap=3072,mor=4,mar=6\nio=1",
        "ramdisk-zoned-2gb": "2GB?csi=zoned\nio=1\ntwice=1",
        "ramdisk-zoned-dext": "1GB?csi=zoned,zsze=8192,zdes=2,mar=3\nio=1",
        "ramdisk-zoned-4k": "1GB?csi=zoned,lbads=12,zsze=1024,zcap=1000",
        "ramdisk-kv": "1GB?csi=kv\nio=1",
        "ramdisk-kv-opts": "1GB?csi=kv,kmax=8,vmax=4096,nkeys=100",
        "ramdisk-fdp": "1GB?fdp=1\nio=1",
        "ramdisk-fdp-opts": "1GB?fdp=1,nruh=16,runs=64M,nrg=1,lbads=12",
        "ramdisk-4k": "1GB?lbads=12\nio=1",
        "ramdisk-pi1": "1GB?ms=8,pi=1\nio=1",
        "ramdisk-pi2-ext": "1GB?ms=16,mset=1,pi=2,pil=1\nio=1",
        "ramdisk-pi3-64": "1GB?lbads=12,ms=64,pi=3,pif=2\nio=1",
        "ramdisk-meta-ext": "1GB?ms=8,mset=1\nio=1",
        "ramdisk-bad-csi": "1GB?csi=foo",
        "ramdisk-bad-pi": "1GB?pi=1",
        "ramdisk-bad-scope": "1GB?zsze=4096",
        "ramdisk-bad-twice": "1GB?lbads=9,lbads=9",
        "ramdisk-bad-empty": "1GB?",
        "ramdisk-bad-eq": "1GB?=,",
        "ramdisk-bad-trailing": "1GB?csi=nvm,",
        "ramdisk-mechs": "1GB\nbe=ramdisk\nmem=posix\nadmin=ramdisk\nsync=ramdisk\nasync=emu\nio=1",
        "ramdisk-nil": "1GB\nasync=nil\nmem=hugepage",
        "ramdisk-thrpool-create": "1GB\nbe=ramdisk\nasync=thrpool\ncreate=1\ntruncate=1",
        "ramdisk-wrong-mech": "1GB\nasync=io_uring",
        "ramdisk-unknown-be": "1GB\nbe=bogus",
        "ramdisk-linux-be": "1GB\nbe=linux",
        "ramdisk-strings": "1GB\nsubnqn=nqn.2019-08.org.qemu:x\nhostnqn=nqn.h\ncore_mask=0x1\n"
                           "adrfam=IPv4\nnsid=2\ncss=0x41\nadmin_timeout=1",
        "ramdisk-long-string": "1GB\nsubnqn=" + "n" * 300,
        "file": "@file\nio=1",
        "file-rdonly": "@file\nrdonly=1\nio=1\ntwice=1",
        "file-wronly-direct": "@file\nwronly=1\ndirect=1",
        "file-create": "/tmp/some.file\ncreate=1\ntruncate=1\nio=1\ncreate_mode=0644",
        "file-relative-create": "newfile\ncreate=1\nasync=posix\nsync=psync",
        "dev-nvme": "/dev/nvme0n1\nio=1",
        "dev-ng": "/dev/ng0n1\nasync=io_uring_cmd",
        "dev-ctrlr": "/dev/nvme0\nadmin=nvme",
        "dev-null": "/dev/null",
        "pci": "0000:01:00.0",
        "pci-vfio": "0000:01:00.0\nbe=vfio\nnsid=1",
        "tcp": "127.0.0.1:4420\nbe=spdk",
        "tcp6": "[::1]:4420",
        "empty": "",
    }
    for name, text in seeds.items():
        write(t, name, text)


# ------------------------------------------------------------------------------ ramdisk_cmd
NS = {"nvm": 0, "nvm4k": 1, "zoned": 2, "kv": 3, "fdp": 4, "pi1": 5, "pi2ext": 6, "pi3g64": 7,
      "metaext": 8, "pi1g64ext": 9}


def cmd(opc, nsid=1, cdw2=0, cdw3=0, cdw10=0, cdw11=0, cdw12=0, cdw13=0, cdw14=0, cdw15=0):
    return struct.pack("<BBHIIIQQQIIIIII", opc, 0, 0, nsid, cdw2, cdw3, 0, 0, 0,
                       cdw10, cdw11, cdw12, cdw13, cdw14, cdw15)


def rec(c, dlen=0, mlen=0, admin=False, dmode=0, meta=False, x16=False, mnull=False, init=b""):
    flags = (1 if admin else 0) | (dmode << 1) | (8 if meta else 0) | (0x10 if x16 else 0) | \
            (0x20 if mnull else 0)
    assert len(c) == 64 and len(init) < 256
    return struct.pack("<BHHB", flags, dlen, mlen, len(init)) + c + init


def rw(opc, slba, nlb, prinfo=0, dtype=0, dspec=0, ilbrt=None, lbat=0, lbatm=0):
    ilbrt = slba & 0xFFFFFFFF if ilbrt is None else ilbrt
    return cmd(opc, cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32,
               cdw12=nlb | (dtype << 20) | (prinfo << 26), cdw13=dspec << 16, cdw14=ilbrt,
               cdw15=lbat | (lbatm << 16))


def idfy(cns, csi=0, nsid=1):
    return cmd(0x06, nsid=nsid, cdw10=cns, cdw11=csi << 24)


def log(lid, nbytes, nsid=0xFFFFFFFF, lsi=0, lsp=0, off=0, csi=0):
    numd = nbytes // 4 - 1
    return cmd(0x02, nsid=nsid, cdw10=lid | (lsp << 8) | ((numd & 0xFFFF) << 16),
               cdw11=(numd >> 16) | (lsi << 16), cdw12=off & 0xFFFFFFFF, cdw13=off >> 32,
               cdw14=csi << 24)


def admin_set():
    """Identify, logs, features and directives every namespace answers"""
    r = b""
    for cns in (0x00, 0x01, 0x02, 0x05, 0x06, 0x08, 0x1C):
        r += rec(idfy(cns), 4096, admin=True)
    r += rec(idfy(0x05, csi=2), 4096, admin=True)
    r += rec(idfy(0x01), 100, admin=True)                     # short buffer: refused
    for lid, n in ((0x01, 256), (0x02, 512), (0x05, 4096), (0x03, 512)):
        r += rec(log(lid, n), n, admin=True)
    r += rec(log(0x02, 4096), 512, admin=True)                # buffer shorter than NUMD
    for fid in (0x01, 0x02, 0x04, 0x05, 0x06, 0x07, 0x1D):
        r += rec(cmd(0x0A, nsid=0, cdw10=fid), admin=True)
    r += rec(cmd(0x09, nsid=0, cdw10=0x06, cdw11=1), admin=True)
    r += rec(cmd(0x09, nsid=0, cdw10=0x04, cdw11=0x150), admin=True)
    r += rec(cmd(0x1A, cdw10=4096 // 4 - 1, cdw11=0x01), 4096, admin=True)  # drecv identify
    r += rec(cmd(0x19, cdw11=0x01 | (0x00 << 8), cdw12=0x2 << 8), admin=True)
    r += rec(cmd(0x80, cdw10=0), admin=True)                  # format: skipped by the harness
    r += rec(cmd(0xC0), 64, admin=True)                       # vendor: invalid opcode
    return r


def nvm_set(lba, nlbas=1 << 21):
    """Every NVM opcode, in range and out of it, with good and bad buffers"""
    r = b""
    r += rec(rw(0x01, 0, 7), 8 * lba, init=bytes(range(200)))
    r += rec(rw(0x02, 0, 7), 8 * lba)
    r += rec(rw(0x05, 0, 7), 8 * lba, init=bytes(range(200)))
    r += rec(rw(0x02, 0, 7), 8 * lba, dmode=1)                # three iovecs
    r += rec(rw(0x01, 64, 7), 8 * lba, dmode=1)
    r += rec(rw(0x02, 0, 7), 4 * lba)                         # buffer too short
    r += rec(rw(0x02, 0, 7), 8 * lba, dmode=2)                # NULL with a length
    r += rec(rw(0x02, 0, 0xFFFF), 8 * lba)                    # over MDTS
    r += rec(rw(0x02, nlbas - 4, 7), 8 * lba)                 # past the end
    r += rec(rw(0x02, (1 << 64) - 2, 7), 8 * lba)            # wraps
    r += rec(rw(0x08, 16, 31))                                # write zeroes
    r += rec(rw(0x04, 128, 3))                                # write uncorrectable
    r += rec(rw(0x02, 128, 0), lba)                           # unrecovered read
    r += rec(rw(0x01, 128, 0), lba)                           # clears it
    dsm = struct.pack("<IIQ", 0, 8, 0) + struct.pack("<IIQ", 0, 16, 1000)
    r += rec(cmd(0x09, cdw10=1, cdw11=1 << 2), len(dsm), init=dsm)
    r += rec(cmd(0x09, cdw10=255, cdw11=1 << 2), 16, init=dsm[:16])  # nr larger than the buffer
    cp = struct.pack("<8xQHHIII", 0, 7, 0, 0, 0, 0) + struct.pack("<8xQHHIII", 64, 3, 0, 0, 0, 0)
    r += rec(cmd(0x19, cdw10=4096, cdw12=1), len(cp), init=cp)
    r += rec(cmd(0x19, cdw10=nlbas - 4, cdw12=1), len(cp), init=cp)  # destination past the end
    r += rec(cmd(0x00))                                       # flush
    r += rec(cmd(0x00, nsid=0xFFFFFFFF))
    r += rec(cmd(0xAC, cdw10=100), 300, init=b"file write" * 10)  # file opcodes: byte offsets
    r += rec(cmd(0xDC, cdw10=100), 300)
    end = nlbas * lba - 10
    r += rec(cmd(0xDC, cdw10=end & 0xFFFFFFFF, cdw11=end >> 32), 300)  # short read at the end
    r += rec(cmd(0xAD))
    r += rec(cmd(0x12, cdw10=1, cdw11=4096 // 4 - 1), 4096)   # I/O mgmt recv without FDP
    r += rec(rw(0x01, 256, 0, dtype=2, dspec=1), lba)         # placement without FDP
    r += rec(cmd(0x7F), 16)                                   # unknown opcode
    return r


def ramdisk_cmd():
    t = "ramdisk_cmd"
    clear(t)
    lbas = {"nvm": 512, "nvm4k": 4096, "fdp": 512}
    for ns in ("nvm", "nvm4k", "fdp"):
        write(t, f"{ns}-admin", bytes([NS[ns]]) + admin_set())
        write(t, f"{ns}-io", bytes([NS[ns]]) + nvm_set(lbas[ns]))
    # FDP: placement, handle status and update, logs, features
    r = rec(rw(0x01, 0, 7, dtype=2, dspec=3), 8 * 512)
    r += rec(rw(0x01, 8, 7, dtype=2, dspec=200), 8 * 512)     # unknown placement identifier
    r += rec(rw(0x01, 16, 0, dtype=1, dspec=0), 512)          # streams: invalid field
    r += rec(cmd(0x12, cdw10=1, cdw11=4096 // 4 - 1), 4096)   # reclaim unit handle status
    r += rec(cmd(0x12, cdw10=1, cdw11=4096 // 4 - 1), 64)     # buffer shorter than NUMD
    r += rec(cmd(0x1D, cdw10=1 | (1 << 16)), 4, init=struct.pack("<HH", 0, 1))  # RUH update
    r += rec(cmd(0x1D, cdw10=1 | (0 << 16)), 2, init=struct.pack("<H", 77))     # unknown id
    for lid in (0x20, 0x21, 0x22, 0x23):
        r += rec(log(lid, 4096, nsid=0xFFFFFFFF, lsi=1), 4096, admin=True)
    r += rec(cmd(0x0A, nsid=0, cdw10=0x1D, cdw11=1), admin=True)
    r += rec(cmd(0x09, nsid=1, cdw10=0x1E, cdw11=(1 << 16) | 1, cdw12=1), 2,
             init=bytes([0x80, 0x01]), admin=True)
    r += rec(cmd(0x0A, nsid=1, cdw10=0x1E, cdw11=(8 << 16)), 16, admin=True)
    write(t, "fdp-placement", bytes([NS["fdp"]]) + r)

    # zoned: zones of 4096 LBAs, capacity 3072, open limit 4, active 6, extensions of 64 bytes
    z = 4096
    r = rec(cmd(0x7A, cdw12=4096 // 4 - 1, cdw13=0), 4096)    # report all
    r += rec(cmd(0x7A, cdw12=4096 // 4 - 1, cdw13=1 | (1 << 16)), 4096)  # extended, partial
    r += rec(cmd(0x7A, cdw12=4096 // 4 - 1, cdw13=0 | (2 << 8)), 100)    # buffer too short
    r += rec(rw(0x01, 0, 7), 8 * 512)                         # at the write pointer
    r += rec(rw(0x01, 4, 7), 8 * 512)                         # not at it
    r += rec(cmd(0x7D, cdw10=0, cdw12=15), 16 * 512)          # append
    r += rec(cmd(0x7D, cdw10=z, cdw12=0xFF), 256 * 512 // 16, x16=True)  # append over ZASL
    r += rec(rw(0x08, 24, 7))                                 # write zeroes at the pointer
    r += rec(rw(0x02, z - 8, 15), 16 * 512)                   # read across a zone boundary
    for zsa in (0x3, 0x1, 0x2, 0x4):                          # open, close, finish, reset
        r += rec(cmd(0x79, cdw10=z, cdw13=zsa))
    r += rec(cmd(0x79, cdw10=2 * z, cdw13=0x10), 64, init=b"descriptor extension" * 3)
    r += rec(cmd(0x79, cdw13=0x3 | (1 << 8)))                 # open all closed
    r += rec(cmd(0x79, cdw13=0x2 | (1 << 8)))                 # finish all
    r += rec(cmd(0x79, cdw13=0x4 | (1 << 8)))                 # reset all: skipped
    r += rec(cmd(0x79, cdw10=z, cdw13=0x5))                   # offline
    r += rec(cmd(0x79, cdw10=z, cdw13=0x11))                  # ZRWA flush: invalid
    for i in range(7):                                        # over the open/active limits
        r += rec(rw(0x01, (3 + i) * z, 0), 512)
    r += rec(log(0xBF, 4096, nsid=1, csi=2), 4096, admin=True)
    r += rec(idfy(0x05, csi=2), 4096, admin=True)
    r += rec(idfy(0x06, csi=2), 4096, admin=True)
    write(t, "zoned", bytes([NS["zoned"]]) + r)
    write(t, "zoned-admin", bytes([NS["zoned"]]) + admin_set())

    # key-value: store (options), retrieve (short buffer), exist, list, delete
    def kv(opc, key, vlen=0, ro=0):
        k = key.ljust(16, b"\0")
        lo, hi = struct.unpack("<QQ", k)
        return cmd(opc, cdw2=lo & 0xFFFFFFFF, cdw3=lo >> 32, cdw10=vlen,
                   cdw11=len(key) | (ro << 8), cdw14=hi & 0xFFFFFFFF, cdw15=hi >> 32)
    r = rec(kv(0x01, b"key-a", 100), 100, init=b"value-a" * 14)
    r += rec(kv(0x01, b"key-b", 4000), 4000)
    r += rec(kv(0x01, b"key-a", 100, ro=1), 100)              # only add: exists
    r += rec(kv(0x01, b"key-c", 100, ro=2), 100)              # only update: does not exist
    r += rec(kv(0x01, b"key-d", 100), 50)                     # value larger than the buffer
    r += rec(kv(0x01, b"k" * 16, 70000), 16)                  # over vmax
    r += rec(kv(0x01, b"", 10), 10)                           # empty key
    r += rec(kv(0x02, b"key-a", 100), 100)
    r += rec(kv(0x02, b"key-b", 10), 10)                      # short buffer
    r += rec(kv(0x14, b"key-b"))
    r += rec(kv(0x14, b"nope"))
    r += rec(kv(0x06, b"", 4096), 4096)                       # list from the first key
    r += rec(kv(0x06, b"key-b", 64), 64)
    r += rec(kv(0x10, b"key-a"))
    r += rec(kv(0x10, b"key-a"))                              # gone
    r += rec(kv(0x01, b"\xA5shadow-key-0", 10), 10)          # a shadow key: skipped
    r += rec(rw(0x02, 0, 0), 512)                             # LBA read: invalid opcode
    r += rec(idfy(0x05, csi=1), 4096, admin=True)
    r += rec(idfy(0x06, csi=1), 4096, admin=True)
    write(t, "kv", bytes([NS["kv"]]) + r)

    # metadata and protection information
    def pi_set(ms, mset, lba, pif64=False):
        ext = lba + (ms if mset else 0)
        mlen = 0 if mset else 8 * ms
        r = rec(rw(0x01, 0, 7, prinfo=0x8), 8 * ext, 8 * ms, meta=True)           # PRACT
        r += rec(rw(0x02, 0, 7, prinfo=0x7), 8 * ext, mlen, meta=not mset)        # PRCHK all
        r += rec(rw(0x02, 0, 7, prinfo=0x8 | 0x4), 8 * ext, mlen, meta=not mset)  # stripped
        r += rec(rw(0x02, 0, 7, prinfo=0x1, ilbrt=5), 8 * ext, mlen, meta=not mset)  # bad ref
        r += rec(rw(0x01, 8, 7, prinfo=0x4), 8 * ext, mlen, meta=not mset)        # host PI: bad
        r += rec(rw(0x01, 16, 3), 4 * ext)                                        # no meta buf
        r += rec(rw(0x02, 16, 3), 4 * ext, 4 * ms, meta=True, mnull=True)         # meta NULL
        r += rec(rw(0x02, 16, 3), 4 * ext, 2 * ms, meta=True)                     # meta short
        r += rec(rw(0x08, 32, 7, prinfo=0x8, lbat=0x1234, lbatm=0xFFFF))          # zeroes + PI
        r += rec(rw(0x02, 32, 7, prinfo=0x6, lbat=0x1234, lbatm=0xFFFF), 8 * ext, mlen,
                 meta=not mset)
        r += rec(rw(0x05, 0, 7, prinfo=0x8), 8 * ext, mlen, meta=not mset)        # compare
        cp = struct.pack("<8xQHHIII", 0, 7, 0, 0, 0, 0)
        r += rec(cmd(0x19, cdw10=512, cdw12=0), len(cp), init=cp)                 # copy w/ meta
        r += rec(rw(0x02, 512, 7), 8 * ext, mlen, meta=not mset, dmode=1)
        r += rec(cmd(0x09, cdw10=0, cdw11=1 << 2), 16, init=struct.pack("<IIQ", 0, 4, 512))
        if pif64:
            r += rec(rw(0x02, 0, 0, prinfo=0x1) [:12] + struct.pack("<I", 0x1) +
                     rw(0x02, 0, 0, prinfo=0x1)[16:], ext, ms, meta=not mset)     # ref hi bits
        return r
    write(t, "pi1", bytes([NS["pi1"]]) + pi_set(8, False, 512))
    write(t, "pi2ext", bytes([NS["pi2ext"]]) + pi_set(16, True, 512))
    write(t, "pi3g64", bytes([NS["pi3g64"]]) + pi_set(64, False, 4096, True))
    write(t, "metaext", bytes([NS["metaext"]]) + pi_set(8, True, 512))
    write(t, "pi1g64ext", bytes([NS["pi1g64ext"]]) + pi_set(16, True, 4096, True))
    write(t, "pi1-admin", bytes([NS["pi1"]]) + admin_set())
    # the shadow region: commands addressing it are skipped, neighbours are not
    nl = 1 << 21
    r = rec(rw(0x01, nl - 9, 0), 512)                          # just below the shadow
    r += rec(rw(0x01, nl - 9, 1), 1024)                        # into it: skipped
    r += rec(rw(0x08, nl - 16, 7))
    r += rec(cmd(0xAC, cdw10=(nl - 8) * 512 - 10), 10)         # file write right below
    r += rec(cmd(0x19, cdw10=nl - 16, cdw12=0), 32,
             init=struct.pack("<8xQHHIII", nl - 8, 7, 0, 0, 0, 0))  # copy out of the shadow
    r += rec(rw(0x02, nl - 8, 7), 8 * 512)
    write(t, "nvm-shadow-edges", bytes([NS["nvm"]]) + r)
    write(t, "nvm-x16", bytes([NS["nvm"]]) + rec(rw(0x02, 0, 1023), 512 * 1024 // 16, x16=True))
    write(t, "empty", bytes([NS["nvm"]]))


# ------------------------------------------------------------------------------ printers
def printers():
    t = "printers"
    clear(t)
    ALL = b"\xff"  # byte 1: every printer in turn
    nasty = b" it's: #1 - [x] {y} &a *b !c %d @e `f | > ? \x01\x7f,'' "
    write(t, "zeroes", bytes(1) + ALL + bytes(4096))
    write(t, "ones", bytes(1) + ALL + b"\xff" * 8192)
    write(t, "yaml-mode", bytes([1]) + ALL + bytes(range(256)) * 16)
    write(t, "terse", bytes([3]) + ALL + bytes(range(256)) * 4)
    write(t, "nasty-text", bytes(1) + ALL + (nasty * 200)[:8192])
    write(t, "spaces", bytes(1) + ALL + b" " * 4096)
    write(t, "counts", bytes(1) + ALL + struct.pack("<BBBBIIIIII", 63, 63, 127, 127, 4096, 0x1E,
                                                   0x1D, 0xFF, 0xFF, 0) + bytes(range(256)) * 8)
    # FDP configuration (printer 12): one descriptor of two handles, then one that claims more
    conf = struct.pack("<HBBI8x", 1, 0, 0, 16 + 64 + 8 + 64)
    desc = struct.pack("<HBBHHHH4xQI36x", 64 + 8, 1, 0, 1, 2, 8, 1, 1 << 20, 0) + \
        b"\x01\0\0\0\x02\0\0\0"
    write(t, "fdp-conf", bytes([0, 12]) + conf + desc + desc[:16] + bytes(48))
    write(t, "fdp-conf-big-ds", bytes([0, 12]) + conf +
          struct.pack("<HBBHHHH", 0xFFFF, 0, 0, 1, 0xFFFF, 8, 1) + bytes(64))
    write(t, "fdp-conf-nosize", bytes([0, 12]) + struct.pack("<HBBI8x", 3, 0, 0, 0) +
          (desc + bytes(8)) * 3 + bytes(72))
    write(t, "sgs-max", bytes(1) + ALL + b"\xff\x01" + bytes(64))
    write(t, "enum-values", bytes(1) + ALL + bytes(42) + b"\x7f" + bytes(64))
    # one seed per printer (byte 1: its index in fuzz_printers.c), so that most inputs run one
    names = ("idfy_ctrlr idfy_ns idfy_cs nvm_idfy_ctrlr nvm_idfy_ns znd_idfy_ctrlr znd_idfy_ns "
             "znd_idfy_lbafe kvs_idfy_ns log_health log_erri znd_log_changes fdp_conf fdp_stats "
             "fdp_events ruhu ruhs feat feat_fdp_events spec_cmd drecv drecv_sgs scopy_fmt_zero "
             "scopy_range znd_descr znd_descr_flow znd_report_hdr znd_report ctrlr_bar ident "
             "ident_yaml geo lba_range lba be_attr_list opts enumeration enum_strs").split()
    fills = (bytes(range(1, 256)) * 16, nasty * 40, b"\xff" * 4096, b"\x05\x00\x20" * 1000)
    for idx, name in enumerate(names):
        if name == "fdp_conf":
            continue
        write(t, f"p{idx:02d}-{name}", bytes([idx % 2, idx]) + fills[idx % len(fills)][:1024])


# ------------------------------------------------------------------------------ pi
def pi():
    t = "pi"
    clear(t)
    # header: flags (interleave, loc, type, pi flags), type override, pif/bsize selector,
    # raw block size, md size, ref tag, apptag mask, apptag, nblocks; then block contents
    def hdr(il, loc, ptype, flags, pif_sel, bs_sel, ms, nblocks, raw_bs=0, ref=0x1234,
            mask=0xFFFF, app=0xBEEF, type_raw=None):
        b0 = il | (loc << 1) | (ptype << 2) | (flags << 4)
        b1 = 0x80 | type_raw if type_raw is not None else 0
        b2 = pif_sel | (bs_sel << 3)
        return struct.pack("<BBBHBBIHHB", b0, b1, b2, raw_bs, ms & 0xFF, ms >> 8, ref, mask,
                           app, nblocks)
    body = bytes((i * 37) & 0xFF for i in range(512))
    n = 0
    for pif_sel, g in ((0, 8), (1, 16)):
        for il in (0, 1):
            for loc in (0, 1):
                for ptype in (1, 2, 3):
                    flags = 0x7 if ptype != 3 else 0x6
                    bs_sel = (0 if g == 8 else 1) if not il else (2 if g == 8 else 5)
                    ms = g if not il else (8 if g == 8 else 64)
                    write(t, f"g{g * 2}-il{il}-loc{loc}-type{ptype}",
                          hdr(il, loc, ptype, flags, pif_sel, bs_sel, ms, 4) + body)
                    n += 1
    write(t, "type0", hdr(1, 0, 0, 0x7, 0, 2, 8, 3) + body)
    write(t, "type3-reftag-refused", hdr(0, 0, 3, 0x1, 0, 0, 8, 2) + body)
    write(t, "pif32-refused", hdr(0, 0, 1, 0x7, 6, 0, 8, 2) + body)
    write(t, "type-out-of-range", hdr(0, 0, 1, 0x7, 0, 0, 8, 2, type_raw=9) + body)
    write(t, "ms-too-small", hdr(0, 0, 1, 0x7, 1, 1, 8, 2) + body)
    write(t, "separate-unaligned", hdr(0, 0, 1, 0x7, 0, 7, 8, 2, raw_bs=1000) + body)
    write(t, "interleave-block-eq-ms", hdr(1, 1, 1, 0x7, 0, 7, 16, 5, raw_bs=16) + body)
    write(t, "escape-apptag", hdr(1, 0, 1, 0x5, 0, 2, 8, 4, app=0xFFFF) + b"\xff" * 600)
    write(t, "escape-type3", hdr(0, 1, 3, 0x0, 0, 0, 8, 2) + b"\xff" * 1100)
    write(t, "no-flags", hdr(0, 0, 2, 0, 1, 1, 16, 2) + body)
    write(t, "zero-blocks", hdr(1, 0, 1, 0x7, 0, 2, 8, 0) + body)
    write(t, "ms-300", hdr(1, 1, 2, 0x7, 1, 7, 300, 3, raw_bs=4396) + body)


# ------------------------------------------------------------------------------ tcp_pdu
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def ch(ptype, flags, hlen, pdo, plen):
    return struct.pack("<BBBBI", ptype, flags, hlen, pdo, plen)

def dg(hdr, on):
    return struct.pack("<I", crc32c(hdr)) if on else b""

def resp(cid, hd=False, status=0):
    h = ch(5, 1 if hd else 0, 24, 0, 24 + (4 if hd else 0))
    h += struct.pack("<IIHHHH", 0, 0, 1, 1, cid, status)
    return h + dg(h, hd)

def c2h(cid, off, data, hd=False, dd=False, flags=0x4):
    pdo = 24 + (4 if hd else 0)
    h = ch(7, flags | (1 if hd else 0) | (2 if dd else 0), 24, pdo,
           pdo + len(data) + (4 if dd else 0))
    h += struct.pack("<HHIII", cid, 0, off, len(data), 0)
    return h + dg(h, hd) + data + (struct.pack("<I", crc32c(data)) if dd else b"")

def r2t(cid, off, ln, hd=False):
    h = ch(9, 1 if hd else 0, 24, 0, 24 + (4 if hd else 0))
    h += struct.pack("<HHIII", cid, 5, off, ln, 0)
    return h + dg(h, hd)


def tcp_pdu():
    t = "tcp_pdu"
    clear(t)

    def cmds(slots):
        # (flags, nbytes/512, done/512) per slot, eight slots
        out = b""
        for i in range(8):
            f, n, d = slots[i] if i < len(slots) else (0, 0, 0)
            out += struct.pack("<BHB", f, n, d)
        return out

    rd = (1 | 2 << 1, 8, 0)   # active read of 4 KiB
    wr = (1 | 1 << 1, 16, 0)  # active write of 8 KiB, data via R2T
    data = bytes(range(256)) * 16
    write(t, "resp", b"\x00" + cmds([rd]) + resp(0))
    write(t, "read-data-resp", b"\x00" + cmds([rd]) + c2h(0, 0, data) + resp(0))
    write(t, "read-two-pdus", b"\x00" + cmds([rd]) + c2h(0, 0, data[:2048], flags=0)
          + c2h(0, 2048, data[2048:]) + resp(0))
    write(t, "read-success", b"\x00" + cmds([rd]) + c2h(0, 0, data, flags=0xC))
    write(t, "digests", b"\x07" + cmds([rd, wr]) + c2h(0, 0, data, True, True)
          + r2t(1, 0, 8192, True) + resp(0, True) + resp(1, True))
    write(t, "r2t", b"\x00" + cmds([rd, wr]) + r2t(1, 0, 4096) + resp(1))
    term = ch(3, 0, 24, 0, 24 + 8) + struct.pack("<H", 1) + b"\x00" * 14 + b"\x05" * 8
    write(t, "term", b"\x00" + cmds([rd]) + term)
    write(t, "unknown-cid", b"\x00" + cmds([rd]) + resp(6))
    write(t, "oversized-data", b"\x00" + cmds([rd]) + c2h(0, 0, data + data[:512]))
    write(t, "out-of-order", b"\x00" + cmds([rd]) + c2h(0, 512, data[:512]))
    write(t, "success-not-last", b"\x00" + cmds([rd]) + c2h(0, 0, data[:512], flags=0x8))
    write(t, "r2t-for-read", b"\x00" + cmds([rd]) + r2t(0, 0, 512))
    write(t, "bad-hdgst", b"\x01" + cmds([rd]) + resp(0, True)[:-1] + b"\x00")
    write(t, "truncated", b"\x00" + cmds([rd]) + ch(5, 0, 24, 0, 20) + b"\x00" * 16)
    write(t, "digest-flag-missing", b"\x01" + cmds([rd]) + resp(0, False) + b"\x00" * 4)


# ------------------------------------------------------------------------------ tcp_rx
def tcp_rx():
    t = "tcp_rx"
    clear(t)
    # byte 0 digests, byte 1 piece size ((b + 1) * 61 bytes), CIDs 0-7: 0 read 4 KiB,
    # 1 read 64 KiB, 2 write 4 KiB in capsule, 3 write 64 KiB via R2T
    kinds = bytes([0, 1, 2, 3, 0, 1, 2, 3])
    d4 = bytes(range(256)) * 16
    d64 = bytes((i * 7) & 0xFF for i in range(65536))

    def good(hd, dd):
        s = c2h(0, 0, d4, hd, dd) + resp(0, hd)
        s += c2h(1, 0, d64[:20000], hd, dd, flags=0) + c2h(1, 20000, d64[20000:], hd, dd, flags=0xC)
        s += resp(2, hd) + r2t(3, 0, 16384, hd)
        s += c2h(4, 0, d4, hd, dd, flags=0xC) + c2h(5, 0, d64, hd, dd) + resp(5, hd) + resp(6, hd)
        return s

    for piece in (0, 255):
        write(t, f"all-ok-piece{piece}", bytes([0, piece]) + kinds + good(False, False))
    write(t, "all-ok-digests", bytes([3, 16]) + kinds + good(True, True))
    write(t, "bad-ddgst-large", bytes([2, 255]) + kinds
          + c2h(1, 0, d64, dd=True)[:-1] + b"\x00")
    write(t, "short-data-then-resp", bytes([0, 7]) + kinds + c2h(1, 0, d64)[:30000] + resp(0))
    write(t, "resp-mid-data", bytes([0, 1]) + kinds + c2h(0, 0, d4)[:1000] + resp(0) * 200)
    write(t, "r2t-then-resp", bytes([0, 0]) + kinds + r2t(3, 0, 16384) + resp(3))
    term = ch(3, 0, 24, 0, 24 + 8) + struct.pack("<H", 1) + b"\x00" * 14 + b"\x05" * 8
    write(t, "term-split", bytes([1, 0]) + kinds + c2h(0, 0, d4, True) + term)


# ------------------------------------------------------------------------------ rdma_rx
def rdma_rx():
    t = "rdma_rx"
    clear(t)
    # private data mode: byte 0 bit 0
    write(t, "accept", b"\x01" + struct.pack("<HH", 0, 32) + b"\x00" * 28)
    write(t, "accept-short", b"\x01" + struct.pack("<H", 0))
    write(t, "accept-recfmt", b"\x01" + struct.pack("<HH", 1, 32) + b"\x00" * 28)
    write(t, "reject-hsqsize", b"\x01" + struct.pack("<HH", 0, 4))
    write(t, "sgl-roundtrip", b"\x01" + struct.pack("<QII", 0x7f0012345000, 0xABCDEF, 0x800010e))
    # connection mode: byte 0 bit 1 memory windows; CIDs 0-7: 0 flush, 1 write 512 B in the
    # capsule, 2 read 4 KiB, 3 write 8 KiB keyed; then 8-byte work completions
    kinds = bytes([0, 1, 2, 3, 0, 1, 2, 3])

    def wc(kind, idx, blen=16, cid=0, status=0, err=False, winv=False, csum=False, key=None):
        b0 = kind | (8 if err else 0) | (16 if winv else 0) | (32 if csum else 0)
        b0 |= 64 if key is not None else 0
        return bytes([b0, idx, blen, cid]) + struct.pack("<HH", status, key or 0)

    def answer(cid, ri, inv=None, csum=False):
        # the send's completion, then the response in receive buffer ri
        return wc(2, cid) + wc(1, ri, cid=cid, winv=inv, csum=csum)

    def all_ok(mw, inv, csum=False):
        s = b""
        for cid in range(8):
            keyed = kinds[cid] in (2, 3)
            s += answer(cid, cid, inv=(inv and mw and keyed), csum=(csum and mw and keyed))
            if mw and keyed and not inv and not csum:
                s += wc(4, cid)  # the local invalidation's completion
        return s

    write(t, "all-ok", b"\x00" + kinds + all_ok(False, False))
    write(t, "all-ok-mw-remote-inv", b"\x02" + kinds + all_ok(True, True))
    write(t, "all-ok-mw-rxe-inv-bit", b"\x02" + kinds + all_ok(True, False, csum=True))
    write(t, "all-ok-mw-local-inv", b"\x02" + kinds + all_ok(True, False))
    write(t, "response-before-send", b"\x00" + kinds
          + wc(1, 0, cid=3) + wc(2, 3) + wc(1, 1, cid=0) + wc(2, 0))
    write(t, "unknown-cid", b"\x00" + kinds + answer(0, 0) + wc(1, 1, cid=200))
    write(t, "cid-not-outstanding", b"\x00" + kinds + answer(0, 0) + wc(1, 1, cid=0))
    write(t, "length-8", b"\x00" + kinds + wc(2, 2) + wc(1, 0, blen=8, cid=2))
    write(t, "length-32", b"\x00" + kinds + wc(2, 2) + wc(1, 0, blen=32, cid=2))
    write(t, "wrong-key-invalidated", b"\x02" + kinds + wc(2, 2) + wc(1, 0, cid=2, winv=True, key=0x1234))
    write(t, "invalidation-not-offered", b"\x00" + kinds + wc(2, 1) + wc(1, 0, cid=1, winv=True))
    write(t, "status-sgl-type-invalid", b"\x00" + kinds + answer(2, 0) + wc(2, 3)
          + wc(1, 1, cid=3, status=0x11 << 1))
    write(t, "error-completion", b"\x00" + kinds + answer(0, 0) + wc(2, 1, err=True))
    write(t, "unknown-kind", b"\x00" + kinds + wc(6, 0) + answer(1, 1))
    write(t, "receive-index-out-of-range", b"\x00" + kinds + wc(1, 99, cid=0))


if __name__ == "__main__":
    dev_open()
    ramdisk_cmd()
    printers()
    pi()
    tcp_pdu()
    tcp_rx()
    rdma_rx()
