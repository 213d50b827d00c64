"""The low-level module: generated from the headers, matching the C layouts and exports."""
import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

import xnvme
from xnvme import ctypes_bindings as C

HERE = os.path.dirname(os.path.abspath(__file__))
# subprocesses import the same xnvme package as this test
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(xnvme.__file__)))


def test_generated_module_matches_headers(source_root):
    """Regenerating python/xnvme/ctypes_bindings/api.py from include/ gives the same bytes."""
    gen = os.path.join(source_root, "python", "gen_bindings.py")
    committed = os.path.join(source_root, "python", "xnvme", "ctypes_bindings", "api.py")
    if not shutil.which(os.environ.get("CLANG", "clang")):
        pytest.fail("clang is needed to check the bindings against the headers")
    proc = subprocess.run([sys.executable, gen, "--include",
                           os.path.join(source_root, "include"), "--output", committed,
                           "--check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.returncode == 0, proc.stdout.decode()
    # and the installed copy is the committed one
    with open(committed, "rb") as f, open(C.api.__file__, "rb") as g:
        assert f.read() == g.read(), "installed ctypes_bindings differs from the source tree"


def test_every_exported_symbol_has_a_binding(source_root):
    with open(os.path.join(source_root, "lib", "libxnvme.map")) as f:
        exported = set(re.findall(r"^\s*(xnvme_\w+);", f.read(), re.M))
    assert exported, "no symbols in lib/libxnvme.map"
    bound = set(C.FUNCTIONS) | set(C.VARIABLES)
    assert sorted(exported - bound) == [], "exported without a prototype"
    missing = [n for n in C.FUNCTIONS if getattr(getattr(C, n), "missing", False)]
    assert missing == [], "declared in the headers, not exported by the library"
    assert C.xnvme_libconf is not None and C.xnvme_libconf[0] is not None
    for name in exported - set(C.VARIABLES):
        func = getattr(C, name)
        assert func.argtypes is not None, name
    assert xnvme.capi.xnvme_dev_open is C.xnvme_dev_open


def _leaves(cls, cpath, off, out):
    """(C member path, offset, ctypes type, bits) of the members of cls, recursing into
    anonymous members and anonymous-typed named members."""
    anon = getattr(cls, "_anonymous_", ())
    for fdesc in cls._fields_:
        name, typ = fdesc[0], fdesc[1]
        bits = fdesc[2] if len(fdesc) > 2 else None
        desc = getattr(cls, name)
        foff = off + desc.offset
        if name in anon:
            _leaves(typ, cpath, foff, out)
            continue
        path = cpath + [name]
        out.append((path, foff, typ, bits))
        if bits is None and isinstance(typ, type) and issubclass(
                typ, (ctypes.Structure, ctypes.Union)) and "_anon" in typ.__name__:
            _leaves(typ, path, foff, out)


def _py_bitfield_image(cls, path, typ, bits):
    inst = cls()
    obj = inst
    for name in path[:-1]:
        obj = getattr(obj, name)
    signed = typ in (ctypes.c_int8, ctypes.c_int16, ctypes.c_int32, ctypes.c_int64,
                     ctypes.c_int, ctypes.c_long, ctypes.c_longlong, ctypes.c_short,
                     ctypes.c_byte)
    setattr(obj, path[-1], -1 if signed else (1 << bits) - 1)
    return bytes(inst).hex()


def test_struct_layouts_match_c(include_dir, tmp_path):
    """sizeof, alignment, every member offset and size, and every bit-field's bits, as the C
    compiler lays them out, for every struct and union of the headers."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which(
        "clang")
    if not cc:
        pytest.fail("a C compiler is needed for the layout check")
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <string.h>",
             "#include <libxnvme.h>", "int main(void) {"]
    expect = {}
    for pyname, ctag in sorted(C.STRUCTS.items()):
        cls = getattr(C, pyname)
        lines.append('printf("%s size %%zu align %%zu\\n", sizeof(%s), _Alignof(%s));'
                     % (pyname, ctag, ctag))
        expect["%s size" % pyname] = "%d align %d" % (ctypes.sizeof(cls),
                                                      ctypes.alignment(cls))
        leaves = []
        _leaves(cls, [], 0, leaves)
        for path, off, typ, bits in leaves:
            member = ".".join(path)
            key = "%s %s" % (pyname, member)
            if bits is None and issubclass(typ, ctypes.Array) and typ._length_ == 0:
                lines.append('printf("%s off %%zu size 0\\n", offsetof(%s, %s));'
                             % (key, ctag, member))
                expect[key] = "off %d size 0" % off
            elif bits is None:
                lines.append('printf("%s off %%zu size %%zu\\n", offsetof(%s, %s), '
                             'sizeof(((%s *)0)->%s));' % (key, ctag, member, ctag, member))
                expect[key] = "off %d size %d" % (off, ctypes.sizeof(typ))
            else:
                lines.append('{ %s s; unsigned char *p = (unsigned char *)&s; '
                             'memset(&s, 0, sizeof(s)); s.%s = -1; printf("%s bits ");'
                             ' for (size_t i = 0; i < sizeof(s); i++) printf("%%02x", p[i]);'
                             ' printf("\\n"); }' % (ctag, member, key))
                expect[key] = "bits " + _py_bitfield_image(cls, path, typ, bits)
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=gnu11", "-w", "-I", include_dir, str(src), "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe)], check=True, stdout=subprocess.PIPE).stdout.decode()
    got = {}
    for line in out.splitlines():
        parts = line.split(" ")
        got[" ".join(parts[:2])] = " ".join(parts[2:])
    bad = ["%s: C %s, ctypes %s" % (k, got.get(k), v) for k, v in expect.items()
           if got.get(k) != v]
    assert len(expect) > 1000
    assert bad == [], "\n".join(bad[:40])


def test_legacy_script_runs_unchanged():
    proc = subprocess.run([sys.executable, os.path.join(HERE, "legacy_script.py")], env=ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.returncode == 0, proc.stdout.decode()
    assert b"legacy script: ok" in proc.stdout


def test_library_discovery_error_message(tmp_path):
    env = dict(ENV, XNVME_LIBRARY_PATH=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", "import xnvme"], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.returncode != 0
    assert b"ImportError" in proc.stdout and b"XNVME_LIBRARY_PATH" in proc.stdout


def test_constants_and_enums():
    assert C.XNVME_SPEC_CSI_ZONED == 2
    assert C.enum_xnvme_spec_csi is C.xnvme_spec_csi
    assert C.XNVME_IDENT_URI_LEN == 384
    assert C.XNVME_REFTAG_MASK_32 == 0xFFFFFFFFFFFFFFFF
    assert ctypes.sizeof(C.struct_xnvme_spec_idfy_ctrlr) == 4096
    opts = C.xnvme_opts_default()
    opts.async_ = b"emu"
    assert getattr(opts, "async") == b"emu"


def test_library_discovery_pkg_config(tmp_path):
    """Without XNVME_LIBRARY_PATH the library is found through pkg-config's libdir."""
    if not shutil.which("pkg-config"):
        pytest.skip("no pkg-config")
    from xnvme import _library
    libdir = os.path.dirname(os.path.realpath(_library.LIBRARY_PATH))
    (tmp_path / "xnvme.pc").write_text(
        "libdir=%s\nName: xnvme\nDescription: test\nVersion: 0.7.5\nLibs: -L${libdir} -lxnvme\n"
        % libdir)
    env = dict(ENV, PKG_CONFIG_PATH=str(tmp_path))
    env.pop("XNVME_LIBRARY_PATH", None)
    proc = subprocess.run([sys.executable, "-c", "import xnvme, xnvme._library as L; "
                           "print(L.LIBRARY_PATH)"], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    assert proc.returncode == 0, proc.stdout.decode()
    assert proc.stdout.decode().strip().startswith(libdir)
