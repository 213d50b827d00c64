#!/usr/bin/env python3
"""man(1) page of an example program from the comment at the top of its source:

    /*
     * <summary: one sentence, also the second line of --help>
     * Usage: <synopsis, also the first line of --help>
     * Example: <command line, also the last line of --help>
     *
     * <description: paragraphs>
     */

  gen_man.py SOURCE.c OUTPUT.1 VERSION

The NAME line is "<program> - <summary>": the line `man -k` and apropos show. Only the standard
library: the page is text, so cross builds generate it too. tests/check_install.sh compares
each installed program's --help with its page.
"""
import pathlib
import re
import sys


def parse(source):
    """(summary, usage, example, [paragraphs]) of the first block comment"""
    text = pathlib.Path(source).read_text(encoding="utf-8")
    m = re.search(r"^/\*\n((?: \*.*\n)+?) \*/", text, re.M)
    if not m:
        raise SystemExit(f"{source}: no leading /* ... */ comment")
    lines = [re.sub(r"^ \* ?", "", l) for l in m.group(1).splitlines()]
    if len(lines) < 3 or not lines[1].startswith("Usage: ") or \
            not lines[2].startswith("Example: "):
        raise SystemExit(f"{source}: the comment must start with the summary, 'Usage: ' and "
                         "'Example: ' lines")
    paragraphs, cur = [], []
    for line in lines[3:] + [""]:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paragraphs.append(" ".join(cur))
            cur = []
    return lines[0].rstrip("."), lines[1][len("Usage: "):], lines[2][len("Example: "):], \
        paragraphs


def roff(s):
    """Escapes text for a roff line"""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s.startswith((".", "'")) else s


def main(source, output, version):
    summary, usage, example, paragraphs = parse(source)
    name = usage.split()[0]
    out = [
        f".\\\" Generated from the comment at the top of {name}.c; do not edit.",
        f'.TH "{name.upper()}" 1 "" "xnvme {version}" "xNVMe Manual"',
        ".nh",
        ".SH NAME",
        f"{roff(name)} \\- {roff(summary)}",
        ".SH SYNOPSIS",
        f"\\fB{roff(name)}\\fR {roff(usage[len(name):].strip())}",
        ".br",
        f"\\fB{roff(name)}\\fR \\fB\\-\\-help\\fR",
        ".SH DESCRIPTION",
    ]
    for para in paragraphs or [summary + "."]:
        out += [".PP", roff(para)]
    out += [
        ".PP",
        "An example program of the xnvme library, installed so that a device can be tried "
        "without writing code; its source is in the examples/ directory of the source tree.",
        ".SH EXIT STATUS",
        ".TP", ".B 0", "Success.",
        ".TP", ".B 1", "The device, a command or the verification failed (the reason is printed).",
        ".TP", ".B 2", "Missing arguments: the usage is printed on stderr.",
        ".SH EXAMPLES",
        ".PP",
        f"\\fB{roff(example)}\\fR",
        ".SH SEE ALSO",
        "\\fBxnvme\\fR(1), \\fBlibxnvme\\fR(3)",
    ]
    pathlib.Path(output).write_text("\n".join(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
