#!/usr/bin/env python3
"""Generate xnvme/ctypes_bindings/api.py from the public C headers.

Usage: gen_bindings.py [--include DIR] [--clang CLANG] [--output FILE | --check FILE]

The headers are parsed by clang itself (``clang -Xclang -ast-dump=json`` for declarations,
``clang -E -dD`` for object-like macros), so the Python module sees exactly the types the C
compiler sees. Every struct, union, enum, enum constant, typedef, integer/string macro and
non-inline function declared in include/libxnvme*.h is emitted under its C name. The output
does not depend on where the tree lives, so ``--check`` (used by the test-suite) fails on any
drift between the committed module and the headers.

Only the standard library and the clang binary are needed.
"""
import argparse
import json
import keyword
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INCLUDE = os.path.join(os.path.dirname(HERE), "include")

BUILTINS = {
    "void": "None",
    "char": "ctypes.c_char",
    "signed char": "ctypes.c_byte",
    "unsigned char": "ctypes.c_ubyte",
    "short": "ctypes.c_short",
    "unsigned short": "ctypes.c_ushort",
    "int": "ctypes.c_int",
    "unsigned int": "ctypes.c_uint",
    "long": "ctypes.c_long",
    "unsigned long": "ctypes.c_ulong",
    "long long": "ctypes.c_longlong",
    "unsigned long long": "ctypes.c_ulonglong",
    "_Bool": "ctypes.c_bool",
    "bool": "ctypes.c_bool",
    "float": "ctypes.c_float",
    "double": "ctypes.c_double",
    "long double": "ctypes.c_longdouble",
    # system typedefs used by the headers
    "int8_t": "ctypes.c_int8",
    "int16_t": "ctypes.c_int16",
    "int32_t": "ctypes.c_int32",
    "int64_t": "ctypes.c_int64",
    "uint8_t": "ctypes.c_uint8",
    "uint16_t": "ctypes.c_uint16",
    "uint32_t": "ctypes.c_uint32",
    "uint64_t": "ctypes.c_uint64",
    "uintptr_t": "ctypes.c_size_t",
    "size_t": "ctypes.c_size_t",
    "ssize_t": "ctypes.c_ssize_t",
    "off_t": "ctypes.c_int64",
    "FILE": "FILE",
    "struct iovec": "struct_iovec",
}

INT_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")


class Gen:
    def __init__(self, include):
        self.include = os.path.abspath(include)
        self.records = {}  # id -> dict(kind, tag, pyname, fields, packed)
        self.record_order = []
        self.tag_to_py = {}  # "struct xnvme_x" -> pyname
        self.enums = []  # (cname, pyname, ctype, [(name, value)])
        self.typedefs = []  # (name, pytype)
        self.functions = []  # (name, restype, [argtypes], variadic)
        self.variables = []  # (name, pytype)
        self.macros = []  # (name, pyvalue)
        self.names = set()
        self.unknown = set()
        self.curfile = None
        self.ntop_anon = 0
        self.last_top_anon = None

    # -- parsing -----------------------------------------------------------------------
    def clang(self, args):
        clang = os.environ.get("CLANG", "clang")
        cmd = [clang, "-x", "c", "-std=gnu11", "-I", self.include] + args + ["-"]
        out = subprocess.run(cmd, input=b"#include <libxnvme.h>\n", stdout=subprocess.PIPE,
                             check=True)
        return out.stdout.decode()

    def ours(self, fname):
        if fname is None:
            return False
        fname = os.path.normpath(os.path.join(self.include, fname)) if not os.path.isabs(
            fname) else fname
        return (os.path.dirname(fname) == self.include
                and os.path.basename(fname).startswith("libxnvme"))

    def track(self, node):
        """Follow the dumper's "file only when it changes" rule, in document order."""
        if isinstance(node, dict):
            for key, val in node.items():
                if key in ("loc", "begin", "end", "spellingLoc", "expansionLoc"):
                    if isinstance(val, dict):
                        if "spellingLoc" in val or "expansionLoc" in val:
                            self.track(val)
                        elif "file" in val:
                            self.curfile = val["file"]
                elif key == "range":
                    self.track(val)
                elif key == "inner":
                    for child in val:
                        self.track(child)

    def loc_file(self, node):
        """File of a top-level node, after consuming its own locations."""
        loc = node.get("loc", {})
        if "spellingLoc" in loc:
            loc = loc.get("expansionLoc", loc["spellingLoc"])
        if "file" in loc:
            self.curfile = loc["file"]
        here = self.curfile
        self.track({"range": node.get("range", {}), "inner": node.get("inner", [])})
        return here

    def run(self):
        ast = json.loads(self.clang(["-fsyntax-only", "-Xclang", "-ast-dump=json"]))
        for node in ast["inner"]:
            fname = self.loc_file(node)
            if not self.ours(fname):
                continue
            kind = node["kind"]
            if kind == "RecordDecl":
                rec = self.record(node, None)
                self.last_top_anon = None if node.get("name") else rec
            elif kind == "EnumDecl":
                self.enum(node)
            elif kind == "TypedefDecl":
                self.typedef(node)
            elif kind == "FunctionDecl":
                self.function(node)
            elif kind == "VarDecl":
                self.variables.append((node["name"], node["type"]["qualType"]))
        self.parse_macros(self.clang(["-E", "-dD"]))

    def record(self, node, parent):
        tag = node["tagUsed"]
        name = node.get("name")
        if name:
            key = "%s %s" % (tag, name)
            pyname = "%s_%s" % (tag, name)
        elif parent is None:
            self.ntop_anon += 1
            pyname = "%s_anon%d" % (tag, self.ntop_anon)
            key = None
        else:
            parent["nanon"] += 1
            pyname = "%s_%s_anon%d" % (tag, parent["pyname"].split("_", 1)[1], parent["nanon"])
            key = None
        rec = self.tag_to_py.get(key) if key else None
        if rec is None:
            rec = {"tag": tag, "name": name, "pyname": pyname, "fields": None, "packed": False,
                   "nanon": 0, "anon_members": []}
            self.records[pyname] = rec
            self.record_order.append(pyname)
            if key:
                self.tag_to_py[key] = rec
        if not node.get("completeDefinition"):
            return rec
        rec["fields"] = []
        last_anon = None
        for child in node.get("inner", []):
            k = child["kind"]
            if k == "PackedAttr":
                rec["packed"] = True
            elif k == "RecordDecl":
                sub = self.record(child, rec)
                if not child.get("name"):
                    last_anon = sub
            elif k == "FieldDecl":
                qt = child["type"]["qualType"]
                fname = child.get("name")
                bits = None
                if child.get("isBitfield"):
                    bits = int(self.const_value(child))
                if not fname:
                    fname = "_anon%d" % len(rec["anon_members"])
                    rec["anon_members"].append(fname)
                rec["fields"].append((fname, self.ctype(qt, last_anon), bits))
        return rec

    def const_value(self, node):
        for c in node.get("inner", []):
            if "value" in c:
                return c["value"]
            v = self.const_value(c)
            if v is not None:
                return v
        return None

    def enum(self, node):
        name = node.get("name")
        consts = []
        nxt = 0
        for c in node.get("inner", []):
            if c["kind"] != "EnumConstantDecl":
                continue
            v = self.const_value(c)
            val = int(v) if v is not None else nxt
            consts.append((c["name"], val))
            nxt = val + 1
        vals = [v for _, v in consts] or [0]
        if min(vals) >= 0:
            ct = "ctypes.c_uint" if max(vals) <= 0xFFFFFFFF else "ctypes.c_uint64"
        else:
            ct = "ctypes.c_int" if max(vals) <= 0x7FFFFFFF else "ctypes.c_int64"
        self.enums.append((name, ct, consts))
        if name:
            self.tag_to_py["enum " + name] = {"pyname": "enum_" + name}

    def typedef(self, node):
        name = node["name"]
        qt = node["type"]["qualType"]
        self.typedefs.append((name, self.ctype(qt, self.last_top_anon)))
        self.names.add(name)

    def function(self, node):
        if node.get("storageClass") == "static" or node.get("inline"):
            return
        name = node["name"]
        qt = node["type"]["qualType"]
        ret = self.split_fn(qt)[0]
        args = [self.ctype(c["type"]["qualType"], None, param=True)
                for c in node.get("inner", []) if c["kind"] == "ParmVarDecl"]
        variadic = qt.rstrip().endswith("...)")
        self.functions.append((name, self.ctype(ret, None, param=True), args, variadic))

    # -- C type strings -> ctypes expressions --------------------------------------------
    @staticmethod
    def split_fn(qt):
        """'RET (ARGS)' -> (RET, [ARGS]) at the outermost parentheses."""
        depth = 0
        for i, ch in enumerate(qt):
            if ch == "(":
                if depth == 0 and qt[i + 1:i + 2] != "*":
                    start = i
                    break
                depth += 1
            elif ch == ")":
                depth -= 1
        ret = qt[:start].strip()
        inner = qt[start + 1:qt.rindex(")")]
        return ret, Gen.split_args(inner)

    @staticmethod
    def split_args(s):
        args, depth, cur = [], 0, ""
        for ch in s:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            if ch == "," and depth == 0:
                args.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            args.append(cur.strip())
        return [a for a in args if a not in ("void", "...")]

    def ctype(self, qt, anon, param=False):
        qt = re.sub(r"\b(const|volatile|restrict|__restrict)\b", " ", qt)
        qt = re.sub(r"\s+", " ", qt).strip()
        # function pointer: RET (*)(ARGS)
        m = re.match(r"^(.*?)\(\*\)\((.*)\)$", qt)
        if m:
            ret = self.ctype(m.group(1), None, param=True)
            args = [self.ctype(a, None, param=True) for a in self.split_args(m.group(2))]
            return "ctypes.CFUNCTYPE(%s)" % ", ".join([ret] + args)
        m = re.match(r"^(.*?)\s*((?:\[\d*\])+)$", qt)
        if m:
            dims = re.findall(r"\[(\d*)\]", m.group(2))
            base = self.ctype(m.group(1), anon)
            if param:
                return "ctypes.POINTER(%s)" % base
            for d in reversed(dims):
                base = "(%s * %d)" % (base, int(d or 0))
            return base
        if qt.endswith("*"):
            inner = qt[:-1].strip()
            if inner == "char":
                return "ctypes.c_char_p"
            if inner == "void":
                return "ctypes.c_void_p"
            return "ctypes.POINTER(%s)" % self.ctype(inner, anon)
        if "(unnamed" in qt or "(anonymous" in qt:
            if anon is None:
                self.unknown.add(qt)
                return "ctypes.c_int"
            return anon["pyname"]
        if qt in BUILTINS:
            return BUILTINS[qt]
        m = re.match(r"^(struct|union|enum) (\w+)$", qt)
        if m:
            if qt not in self.tag_to_py:
                if m.group(1) == "enum":
                    self.unknown.add(qt)
                    return "ctypes.c_int"
                rec = {"tag": m.group(1), "name": m.group(2), "pyname": "%s_%s" % (
                    m.group(1), m.group(2)), "fields": None, "packed": False, "nanon": 0,
                    "anon_members": []}
                self.records[rec["pyname"]] = rec
                self.record_order.append(rec["pyname"])
                self.tag_to_py[qt] = rec
            return self.tag_to_py[qt]["pyname"]
        if re.match(r"^\w+$", qt) and qt in self.names:
            return qt
        self.unknown.add(qt)
        return "ctypes.c_int"

    # -- macros ----------------------------------------------------------------------------
    def parse_macros(self, text):
        cur = None
        known = {}
        for line in text.splitlines():
            m = re.match(r'^# \d+ "([^"]*)"', line)
            if m:
                cur = m.group(1)
                continue
            m = re.match(r"^#define (\w+)(\(?)\s*(.*)$", line)
            if not m or not self.ours(cur):
                continue
            name, fnlike, body = m.groups()
            if fnlike or not body.strip():
                continue
            val = self.eval_macro(body.strip(), known)
            if val is None:
                continue
            known[name] = val
            self.macros.append((name, repr(val)))

    @staticmethod
    def eval_macro(body, known):
        if re.match(r'^"([^"\\]|\\.)*"$', body):
            return body[1:-1].encode().decode("unicode_escape").encode()
        m = re.match(r"^'(.)'$", body)
        if m:
            return ord(m.group(1))
        expr = INT_SUFFIX.sub(r"\1", body)
        expr = re.sub(r"\((?:u?int\d+_t|unsigned|int|long|unsigned long|unsigned long long|"
                      r"size_t)\)", "", expr)
        if not re.match(r"^[\w\s()+\-*/<>|&~^]*$", expr) or "/" in expr:
            return None
        try:
            val = eval(expr, {"__builtins__": {}}, dict(known))
        except Exception:
            return None
        return val if isinstance(val, int) else None

    # -- output ----------------------------------------------------------------------------
    def deps(self, rec):
        out = []
        for _, t, _ in rec["fields"] or []:
            for m in re.findall(r"\b((?:struct|union)_\w+)", re.sub(
                    r"ctypes\.POINTER\((?:[^()]|\([^()]*\))*\)", "", t)):
                out.append(m)
        return out

    def emit(self):
        o = []
        w = o.append
        w('"""Low-level ctypes bindings of the xNVMe C API (libxnvme 0.7.5).')
        w("")
        w("GENERATED by python/gen_bindings.py from include/libxnvme*.h: do not edit; run")
        w("`python3 python/gen_bindings.py` after changing a public header (the test-suite")
        w("fails when this file and the headers differ).")
        w("")
        w("Every struct/union is a ctypes class named struct_<tag>/union_<tag>, also reachable")
        w("as <tag> when that name is free; enums are enum_<tag> (and <tag>) with their")
        w("constants at module level and <tag>__enumvalues; functions carry argtypes/restype.")
        w('"""')
        w("# pylint: skip-file")
        w("# flake8: noqa")
        w("import ctypes")
        w("")
        w("from .._library import bind as _bind, load_library as _load_library")
        w("")
        w("_lib = _load_library()")
        w("")
        w("")
        w("class FILE(ctypes.Structure):")
        w('    """Opaque stdio FILE (pass a pointer obtained from the C library)."""')
        w("")
        w("")
        w("class struct_iovec(ctypes.Structure):")
        w('    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]')
        w("")
        w("")
        w("# -- enums " + "-" * 80)
        anon_enum = 0
        enum_names = {}
        for name, ct, consts in self.enums:
            if name:
                w("")
                w("# enum %s" % name)
                w("enum_%s = %s" % (name, ct))
                enum_names[name] = consts
            else:
                anon_enum += 1
                w("")
                w("# anonymous enum")
            for cname, val in consts:
                w("%s = %d" % (cname, val))
            if name:
                w("%s__enumvalues = {" % name)
                for cname, val in consts:
                    w("    %d: %r," % (val, cname))
                w("}")
        w("")
        w("# -- structs and unions " + "-" * 66)
        all_names = set(self.names) | {f[0] for f in self.functions} | set(enum_names)
        for pyname in self.record_order:
            rec = self.records[pyname]
            base = "ctypes.Union" if rec["tag"] == "union" else "ctypes.Structure"
            w("")
            w("")
            w("class %s(%s):" % (pyname, base))
            if rec["name"]:
                w('    """%s %s%s"""' % (rec["tag"], rec["name"], "" if rec["fields"] is not None
                                         else " (opaque)"))
            else:
                w('    """anonymous %s member"""' % rec["tag"])
            if rec["packed"]:
                w("    _pack_ = 1")
        w("")
        w("")
        w("# -- typedefs " + "-" * 76)
        for name, t in self.typedefs:
            w("%s = %s" % (name, t))
        w("")
        w("# -- struct and union members " + "-" * 60)
        done = set()
        order = []

        def visit(p):
            if p in done:
                return
            done.add(p)
            for d in self.deps(self.records[p]):
                if d in self.records:
                    visit(d)
            order.append(p)

        for p in self.record_order:
            visit(p)
        for p in order:
            rec = self.records[p]
            if rec["fields"] is None:
                continue
            if rec["anon_members"]:
                w("%s._anonymous_ = (%s)" % (p, "".join("%r, " % a for a in rec["anon_members"])))
            w("%s._fields_ = [" % p)
            for fname, t, bits in rec["fields"]:
                if bits is not None:
                    w("    (%r, %s, %d)," % (fname, t, bits))
                else:
                    w("    (%r, %s)," % (fname, t))
            w("]")
            for fname, _, _ in rec["fields"]:
                if keyword.iskeyword(fname):
                    w("%s.%s_ = property(lambda self: getattr(self, %r), "
                      "lambda self, v: setattr(self, %r, v))" % (p, fname, fname, fname))
        w("")
        w("# aliases under the plain tag name")
        for p in self.record_order:
            rec = self.records[p]
            if rec["name"] and rec["name"] not in all_names:
                w("%s = %s" % (rec["name"], p))
                all_names.add(rec["name"])
        for name in enum_names:
            if name not in self.names and not any(f[0] == name for f in self.functions):
                w("%s = enum_%s" % (name, name))
        w("")
        w("# -- macros " + "-" * 78)
        for name, val in self.macros:
            w("%s = %s" % (name, val))
        w("")
        w("# -- functions " + "-" * 75)
        for name, ret, args, variadic in self.functions:
            w("%s = _bind(_lib, %r, %s, [%s]%s)" % (name, name, ret, ", ".join(args),
                                                   ", variadic=True" if variadic else ""))
        w("")
        w("# the headers' static inline functions, as Python (hand-written in _inline.py)")
        w("from .._inline import *  # noqa: E402,F401,F403")
        w("# the helpers PyPI's xnvme 0.7.5 module also had (hand-written in _compat.py)")
        w("from ._compat import char_pointer_cast, guard_unloadable, is_loaded  # noqa: E402,F401")
        w("")
        w("# -- variables " + "-" * 75)
        for name, qt in self.variables:
            t = self.ctype(qt, None)
            if qt.endswith("[]"):
                # an array of unknown size: a pointer to its first element, index it
                elem = self.ctype(qt[:-2], None)
                w("try:")
                w("    %s = ctypes.cast(ctypes.addressof(%s.in_dll(_lib, %r)), "
                  "ctypes.POINTER(%s))" % (name, elem, name, elem))
            else:
                w("try:")
                w("    %s = %s.in_dll(_lib, %r)" % (name, t, name))
            w("except ValueError:")
            w("    %s = None" % name)
        w("")
        w("STRUCTS = {")
        for p in self.record_order:
            rec = self.records[p]
            if rec["name"] and rec["fields"] is not None:
                w("    %r: %r," % (p, "%s %s" % (rec["tag"], rec["name"])))
        w("}")
        w("VARIABLES = (")
        for name, _ in self.variables:
            w("    %r," % name)
        w(")")
        w("FUNCTIONS = (")
        for f in self.functions:
            w("    %r," % f[0])
        w(")")
        w("")
        return "\n".join(o)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", default=DEFAULT_INCLUDE)
    ap.add_argument("--output",
                    default=os.path.join(HERE, "xnvme", "ctypes_bindings", "api.py"))
    ap.add_argument("--check", action="store_true",
                    help="compare with --output instead of writing it; exit 1 on a difference")
    args = ap.parse_args()
    gen = Gen(args.include)
    gen.run()
    if gen.unknown:
        sys.exit("gen_bindings: unmapped C types: %s" % ", ".join(sorted(gen.unknown)))
    text = gen.emit()
    if args.check:
        with open(args.output, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit("gen_bindings: %s differs from the headers; regenerate it" % args.output)
        return
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
