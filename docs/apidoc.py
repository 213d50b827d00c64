#!/usr/bin/env python3
"""API reference from the public headers: the doc comment (/** ... */) right above each
function declaration in include/libxnvme*.h is its documentation.

  apidoc.py check INCDIR MAPFILE      every symbol of the version script is declared with a doc
                                      comment, in the one prototype style (return type on its own
                                      line, name at the start of the next)
  apidoc.py html INCDIR MAPFILE OUT   one browsable HTML page (index per header)
  apidoc.py man INCDIR MAPFILE OUTDIR one man(3) page per exported function, plus libxnvme(3)
  apidoc.py both INCDIR MAPFILE HTML OUTDIR   html and man in one run (the build uses this)

Only the standard library: runs wherever python3 does (no doxygen needed).
"""
import html
import pathlib
import re
import sys

# A file-scope declaration: optional doc comment, then the prototype ending in ';'. The return
# type may sit on the line above the name (the project style) or before it on the same line.
DECL = re.compile(
    r"(?P<doc>/\*\*(?:(?!\*/).)*\*/\s*)?"
    r"^(?P<ret>(?:const |struct |enum |unsigned |static inline )*[A-Za-z_][\w ]*?[\s*]+)"
    r"(?P<name>xnvme_\w+)\s*\((?P<args>[^;{)]*(?:\([^)]*\)[^;{)]*)*)\)\s*;",
    re.M | re.S)
VAR = re.compile(r"(?P<doc>/\*\*(?:(?!\*/).)*\*/\s*)?^extern (?P<ret>[^;]*?)\b(?P<name>xnvme_\w+)(?:\[\])?\s*;",
                 re.M | re.S)


def map_symbols(mapfile):
    return re.findall(r"^\s+(xnvme_\w+);", pathlib.Path(mapfile).read_text(), re.M)


def doc_text(raw):
    """The comment's text without the comment markers and leading stars"""
    if not raw:
        return ""
    body = raw.strip()[3:-2]
    lines = [re.sub(r"^\s*\* ?", "", l) for l in body.splitlines()]
    return "\n".join(lines).strip()


def parse(incdir):
    """{name: dict(header, ret, args, doc, style_ok)} of every function declared in the headers"""
    decls = {}
    for hdr in sorted(pathlib.Path(incdir).glob("libxnvme*.h")):
        text = hdr.read_text()
        summary = doc_text(re.search(r"/\*\*(?:(?!\*/).)*\*/", text, re.S).group(0)) \
            if text.lstrip().startswith("/* SPDX") and "/**" in text[:400] else ""
        # plain /* */ comments at the start of a line: notes shared by the declarations below
        groups = [(m.end(), doc_text("/**" + m.group(0)[2:]))
                  for m in re.finditer(r"^/\*(?![*])(?:(?!\*/).)*\*/", text, re.M | re.S)
                  if "SPDX" not in m.group(0)]
        for pat in (DECL, VAR):
            for m in pat.finditer(text):
                before = [g for end, g in groups if end <= m.start()]
                ret = " ".join(m.group("ret").split())
                args = " ".join(m.group("args").split()) if "args" in m.groupdict() else None
                decls[m.group("name")] = {
                    "header": hdr.name,
                    "header_doc": summary,
                    "ret": ret,
                    "args": args,
                    "doc": doc_text(m.group("doc")),
                    "group_doc": before[-1] if before else "",
                    # project style: return type alone on the line above the name
                    "style_ok": pat is VAR or m.group("ret").endswith("\n")
                    or m.group("ret").rstrip(" ").endswith("\n"),
                }
    return decls


def check(incdir, mapfile):
    decls = parse(incdir)
    errors = []
    for name in map_symbols(mapfile):
        d = decls.get(name)
        if not d:
            errors.append(f"{name}: no declaration found in {incdir}/libxnvme*.h")
        elif not d["doc"]:
            errors.append(f"{d['header']}: {name}: no /** doc comment */ at its declaration")
        elif not d["style_ok"]:
            errors.append(f"{d['header']}: {name}: put the return type on its own line")
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} problem(s)")
        return 1
    print(f"apidoc: {len(map_symbols(mapfile))} exported symbols documented")
    return 0


def prototype(d, name):
    if d["args"] is None:
        return f"extern {d['ret']} {name};"
    sep = "" if d["ret"].endswith("*") else " "
    return f"{d['ret']}{sep}{name}({d['args']});"


def by_header(incdir, mapfile):
    decls = parse(incdir)
    groups = {}
    for name in sorted(map_symbols(mapfile)):
        if name in decls:
            groups.setdefault(decls[name]["header"], []).append(name)
    return decls, dict(sorted(groups.items()))


def gen_html(incdir, mapfile, out):
    decls, groups = by_header(incdir, mapfile)
    esc = html.escape
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>libxnvme API reference"
             "</title><style>body{font-family:sans-serif;max-width:60em;margin:auto}"
             "pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}"
             "h3{margin-bottom:.2em}</style></head><body>",
             "<h1>libxnvme API reference</h1>",
             "<p>Generated from the comments in the public headers. Counts named <code>nlb"
             "</code> are zero-based (0 means one block). Functions returning <code>int</code> "
             "return 0 (or a count) on success and a negative errno on failure; see "
             "libxnvme(3).</p><h2>Headers</h2><ul>"]
    for hdr, names in groups.items():
        parts.append(f"<li><a href='#{esc(hdr)}'>{esc(hdr)}</a>: " +
                     ", ".join(f"<a href='#{n}'>{n}</a>" for n in names) + "</li>")
    parts.append("</ul>")
    for hdr, names in groups.items():
        parts.append(f"<h2 id='{esc(hdr)}'>{esc(hdr)}</h2>")
        if decls[names[0]]["header_doc"]:
            parts.append(f"<pre>{esc(decls[names[0]]['header_doc'])}</pre>")
        shown = set()
        for n in names:
            d = decls[n]
            if d["group_doc"] and d["group_doc"] not in shown:
                shown.add(d["group_doc"])
                parts.append(f"<h4>Notes</h4><pre>{esc(d['group_doc'])}</pre>")
            parts.append(f"<h3 id='{n}'>{n}</h3><pre><code>#include &lt;libxnvme.h&gt;\n\n"
                         f"{esc(prototype(d, n))}</code></pre><pre>{esc(d['doc'])}</pre>")
    parts.append("</body></html>\n")
    pathlib.Path(out).write_text("\n".join(parts))
    return 0


def roff(text):
    """Plain text as man body: escape backslashes and lines starting with a control char"""
    out = []
    for line in text.replace("\\", "\\e").splitlines():
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line if line.strip() else ".PP")
    return "\n".join(out)


def first_sentence(doc):
    """The NAME line: the doc's first sentence (a period followed by a space ends it)"""
    para = " ".join(doc.split("\n\n")[0].split())
    if para.startswith("@return "):
        para = "Returns " + para[len("@return "):]
    m = re.match(r"(.+?\.)(\s|$)", para)
    line = (m.group(1) if m else para).rstrip(".")
    if len(line) > 120:
        line = line[:117].rsplit(" ", 1)[0] + "..."
    return line


def notes(d):
    """The shared text the doc comment refers to ("see above", "the header comment")"""
    out = []
    if d["group_doc"]:
        out += [".SH NOTES", ".nf", roff(d["group_doc"]), ".fi"]
    if d["header_doc"]:
        out += [f'.SH "{d["header"]}"', ".nf", roff(d["header_doc"]), ".fi"]
    return out


def gen_man(incdir, mapfile, outdir):
    decls, groups = by_header(incdir, mapfile)
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    head = '.TH {name} 3 "" "libxnvme" "libxnvme API"\n'
    for hdr, names in groups.items():
        for n in names:
            d = decls[n]
            summary = first_sentence(d["doc"])
            page = [head.format(name=n.upper()), ".SH NAME", f"{n} \\- {roff(summary)}",
                    ".SH SYNOPSIS", ".nf", "#include <libxnvme.h>", "",
                    roff(prototype(d, n)), ".fi", ".PP", "Link with \\fI\\-lxnvme\\fP.",
                    ".SH DESCRIPTION", ".nf", roff(d["doc"]), ".fi"] + notes(d) + [
                    ".SH SEE ALSO", f"libxnvme(3), {hdr}"]
            (outdir / f"{n}.3").write_text("\n".join(page) + "\n")
    index = [head.format(name="LIBXNVME"), ".SH NAME", "libxnvme \\- user-space NVMe library",
             ".SH SYNOPSIS", ".nf", "#include <libxnvme.h>", ".fi", ".PP",
             "Link with \\fI\\-lxnvme\\fP (pkg-config: xnvme).",
             ".SH CONVENTIONS",
             "Functions returning int return 0 (or a count) on success and a negative errno "
             "on failure; when a command completed with an NVMe status they return -EIO and "
             "the status is in ctx->cpl. Functions returning a pointer return NULL and set "
             "errno. Counts named nlb are zero-based: nlb=7 transfers 8 blocks, and the "
             "buffers must hold (nlb + 1) * lba_nbytes bytes.",
             "Thread safety is stated at each function or in the notes of its header.",
             ".SH EXAMPLE", ".nf",
             "struct xnvme_opts opts = xnvme_opts_default();",
             "struct xnvme_dev *dev = xnvme_dev_open(\"1GB\", &opts);  /* a ramdisk */",
             "const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);",
             "void *buf = xnvme_buf_alloc(dev, 8 * geo->lba_nbytes);",
             "struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);",
             "/* nlb = 7: eight blocks */",
             "int err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), 0, 7, buf, NULL);",
             "xnvme_buf_free(dev, buf);",
             "xnvme_dev_close(dev);",
             ".fi",
             ".SH FUNCTIONS"]
    for hdr, names in groups.items():
        index += [f".SS {hdr}", ".nf"] + [f"{n}(3)" for n in names] + [".fi"]
    (outdir / "libxnvme.3").write_text("\n".join(index) + "\n")
    return 0


def gen_both(incdir, mapfile, html_out, man_outdir):
    return gen_html(incdir, mapfile, html_out) or gen_man(incdir, mapfile, man_outdir)


def main(argv):
    cmds = {"check": (check, 2), "html": (gen_html, 3), "man": (gen_man, 3),
            "both": (gen_both, 4)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) != cmds[argv[1]][1] + 2:
        print(__doc__, file=sys.stderr)
        return 2
    return cmds[argv[1]][0](*argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
