"""The conventions every command-line tool follows, checked over every tool and subcommand:

* exit status 0 success, 1 the command failed (one '# ERR' line naming the reason), 2 usage error;
* --version on every tool;
* one option vocabulary: every subcommand that opens a device or file takes the backend options
  (--be, --admin, --sync, --async, --mem, --direct, --dev-nsid), --direct is a flag everywhere;
* the xNVMe number syntax: HEX options hexadecimal with 0x optional, NUM options decimal or
  0x-prefixed hexadecimal (bare hex digits refused there), binary units on sizes only;
* open failures name the backend, what was wrong and what is accepted; `info` lists the
  mechanisms per kind; --help, man pages and completion list the valid mechanism names;
* man pages have EXIT STATUS and EXAMPLES, and the ramdisk examples run.

The build directory comes from XNVME_BUILD_DIR (default: build/ in the source tree).
"""
import os
import re
import shlex
import subprocess

import pytest
import yaml

BUILD_DIR = os.environ.get(
    "XNVME_BUILD_DIR",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"),
)
TOOLS_DIR = os.path.join(BUILD_DIR, "tools")
BUILDER_TOOLS = ["xnvme", "lblk", "zoned", "kvs", "xdd", "xnvme_file"]
ALL_TOOLS = BUILDER_TOOLS + ["xnvmeperf"]
BACKEND_OPTS = {"--be", "--admin", "--sync", "--async", "--mem", "--direct", "--dev-nsid"}
SIZE_OPTS = {"--data-nbytes", "--meta-nbytes", "--lpo-nbytes", "--iosize", "--offset"}
KINDS = ["mem", "admin", "sync", "async"]
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run(name, *args, cwd=None):
    proc = subprocess.run(
        [os.path.join(TOOLS_DIR, name)] + [str(a) for a in args], cwd=cwd,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        timeout=120, check=False,
    )
    assert proc.returncode >= 0, f"{name} {args}: killed by signal {-proc.returncode}"
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def err_lines(err):
    return [l for l in err.splitlines() if l.startswith("# ERR")]


def subcommands(name):
    _, out, _ = run(name, "--help")
    return re.findall(r"^  (\S+)\s+\|", out, re.M)


def sub_options(name, sub):
    """{'--opt': 'TYPE' or None for flags} from `<tool> <sub> --help`, and the positionals"""
    _, out, _ = run(name, sub, "--help")
    opts = {}
    for m in re.finditer(r"^  (?:\[ )?--([\w-]+)(?: (\w+))?(?: \])?\s+;", out, re.M):
        opts["--" + m.group(1)] = m.group(2)
    posa = re.match(r"Usage: \S+ \S+((?: <[\w-]+>)*)", out)
    return opts, out, (posa.group(1).split() if posa else [])


SUBS = [(t, s) for t in BUILDER_TOOLS for s in subcommands(t)]


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_version(name):
    status, out, err = run(name, "--version")
    assert status == EXIT_OK, err
    assert re.fullmatch(rf"{name} \d+\.\d+\.\d+\n", out), out


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_exit_status(name, tmp_path):
    """0 on help, 2 on usage errors, 1 with one error line when the device cannot be opened"""
    status, _, _ = run(name, "--help")
    assert status == EXIT_OK
    missing = str(tmp_path / "missing")
    if name == "xnvmeperf":
        usage = [["--bogus", "1GB"], ["1GB", "--qdepth", "x"], []]
        failed = [missing, "--count", 1]
    else:
        usage = [["bogus-subcommand"], [subcommands(name)[0], "--bogus"]]
        sub = {"xdd": "sync", "xnvme_file": "load-sync", "kvs": "idfy-ns"}.get(name, "info")
        failed = {"xdd": [sub, "--data-input", missing, "--data-output", tmp_path / "o",
                          "--data-nbytes", 512],
                  "xnvme_file": [sub, missing]}.get(name, [sub, missing])
        usage.append(failed + ["--dev-nsid", "zz"])
    for args in usage:
        status, _, err = run(name, *args, cwd=tmp_path)
        assert status == EXIT_USAGE, f"{name} {args}: exit {status}\n{err}"
        assert len(err_lines(err)) == 1, err
    status, _, err = run(name, *failed, cwd=tmp_path)
    assert status == EXIT_FAILED, f"{name} {failed}: exit {status}\n{err}"
    assert len(err_lines(err)) == 1, f"one error line per failure:\n{err}"
    assert "missing" in err_lines(err)[0]


@pytest.mark.parametrize("name,sub", SUBS)
def test_option_vocabulary(name, sub):
    opts, out, posa = sub_options(name, sub)
    # enumeration opens every device it finds, with the same options
    opens = "<uri>" in posa or name in ("xdd", "xnvme_file") or sub in ("enum", "list")
    if opens:
        missing = BACKEND_OPTS - set(opts)
        assert not missing, f"{name} {sub} lacks {sorted(missing)}"
    if "--direct" in opts:
        assert opts["--direct"] is None, f"{name} {sub}: --direct must be a flag"
    if "--nlb" in opts:
        assert "zero-based" in out, f"{name} {sub}: --nlb must say it is zero-based"
    if "--llb" in opts:
        assert "one-based" in out, f"{name} {sub}: --llb must say it is one-based"
    for mech in ("--async", "--sync", "--admin", "--mem"):
        if mech in opts:
            assert "posix" in out or "nvme" in out, f"{name} {sub}: {mech} lists no values"


@pytest.mark.parametrize("name,sub", SUBS)
def test_number_syntax(name, sub):
    """Value errors are found while parsing, before missing arguments: each value is judged alone"""
    opts, _, _ = sub_options(name, sub)
    for opt, vtype in opts.items():
        if vtype not in ("NUM", "HEX"):
            continue
        # bare hex digits: hexadecimal on HEX options, refused (never guessed) on NUM options
        status, _, err = run(name, sub, opt, "ff")
        if vtype == "HEX":
            assert opt + ":" not in err.replace("option ", ""), f"{name} {sub} {opt} ff: {err}"
        else:
            assert status == EXIT_USAGE and "0x prefix" in err, f"{name} {sub} {opt} ff: {err}"
        # plain digits and 0x-prefixed hex parse for every numeric option
        for val in ("1", "0x1"):
            _, _, err = run(name, sub, opt, val)
            assert opt + ":" not in err.replace("option ", ""), f"{name} {sub} {opt} {val}: {err}"
        # units on sizes only
        status, _, err = run(name, sub, opt, "1k")
        if opt in SIZE_OPTS:
            assert f"{opt}:" not in err.replace("option ", ""), f"{name} {sub} {opt} 1k: {err}"
        else:
            assert status == EXIT_USAGE and opt in err, f"{name} {sub} {opt} 1k: {err}"


def test_hex_and_num_values(tmp_path):
    """HEX --slba is hexadecimal with 0x optional (10 and 0x10 are block 16), NUM --nlb is
    decimal or 0x-prefixed: checked on a file, where the data outlives each tool run"""
    dev = tmp_path / "dev.img"
    blocks = b"".join(bytes([i]) * 512 for i in range(64))  # 64 distinct 512-byte blocks
    dev.write_bytes(blocks)
    reads = {}
    for slba, nlb in (("10", "1"), ("0x10", "0x1"), ("16", "1")):
        out = tmp_path / f"r-{slba}-{nlb}"
        status, _, err = run("lblk", "read", dev, "--slba", slba, "--nlb", nlb,
                             "--data-output", out)
        assert status == EXIT_OK, err
        reads[slba] = out.read_bytes()
    assert reads["10"] == reads["0x10"] == bytes([0x10]) * 512 + bytes([0x11]) * 512
    assert reads["16"] == bytes([0x16]) * 512 + bytes([0x17]) * 512
    # a size positional takes a unit
    status, _, err = run("xnvme_file", "write-read", "1GB", "64k")
    assert status == EXIT_OK, err


def test_open_errors_name_backend_and_accepted_forms():
    for uri in ("512MB", "1G", "2GiB", "1TB", "0GB"):
        status, _, err = run("xnvme", "info", uri)
        assert status == EXIT_FAILED
        assert len(err_lines(err)) == 1, err
        assert "ramdisk:" in err and "<N>GB" in err, err
    status, _, err = run("xnvme", "info", "1GB", "--async", "thrpol")
    assert status == EXIT_FAILED and "thrpool" in err and "valid" in err, err
    status, _, err = run("xnvme", "info", "1GB", "--be", "bogus")
    assert status == EXIT_FAILED and "ramdisk" in err and "linux" in err, err


def test_direct_alignment_is_named(tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(b"\x5a" * 8192)
    status, _, err = run("xdd", "sync", "--data-input", src, "--data-output",
                         tmp_path / "out.bin", "--data-nbytes", 1000, "--direct")
    if status == EXIT_OK:
        pytest.skip("this file system accepts unaligned O_DIRECT")
    assert status == EXIT_FAILED
    assert len(err_lines(err)) == 1, err
    assert "alignment" in err and "Vendor Specific" not in err, err


def library_valid_names(kind):
    """{backend: [names]} from the library's own message for an unknown mechanism"""
    _, _, err = run("xnvme", "info", "1GB", f"--{kind}", "no-such-mechanism")
    found = re.findall(r"(\w+): has no \w+ mechanism named '+no-such-mechanism'+ \(valid: ([^)]*)\)",
                       err)
    assert found, err
    return {be: [n.strip() for n in names.split(",")] for be, names in found}


def test_info_lists_mechanisms_per_kind():
    status, out, err = run("xnvme", "info", "1GB")
    assert status == EXIT_OK, err
    mech = yaml.safe_load(out)["xnvme_mechanisms"]
    assert mech["be"] == "ramdisk"
    for kind in KINDS:
        listed = {e["name"]: e for e in mech[kind]}
        assert set(listed) == set(library_valid_names(kind)["ramdisk"]), (kind, listed)
        assert sum(e["status"] == "in use" for e in listed.values()) == 1, listed
        for e in listed.values():
            assert e["status"] in ("in use", "available", "refused"), e
            if e["status"] == "refused":
                assert e["reason"], e


def test_mechanism_values_in_help_and_completion(tmp_path):
    _, help_out, _ = run("xnvme", "info", "--help")
    for kind in KINDS:
        names = {n for names in library_valid_names(kind).values() for n in names}
        line = next(l for l in help_out.splitlines() if f"--{kind} " in l)
        for name in names:
            assert re.search(rf"\b{name}\b", line), f"--{kind} help lacks {name}: {line}"
        for tool in ("xnvme", "xnvmeperf"):
            comp = os.path.join(TOOLS_DIR, "completions", tool)
            text = open(comp, encoding="utf-8").read()
            m = re.search(rf"--{kind}\)\n\s+COMPREPLY=\( \$\(compgen -W \"([^\"]*)\"", text)
            assert m, f"{tool} completion has no values for --{kind}"
            assert names <= set(m.group(1).split()), (tool, kind, names, m.group(1))


def man_text(name):
    page = os.path.join(TOOLS_DIR, name + ".1")
    assert os.path.exists(page), page
    return open(page, encoding="utf-8").read()


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_man_page_sections(name):
    text = man_text(name)
    assert ".SH EXIT STATUS" in text and ".SH EXAMPLES" in text
    status = text[text.index(".SH EXIT STATUS"):]
    for code in ("0", "1", "2"):
        assert f".B {code}\n" in status
    assert ".B 255" not in text
    assert "version" in text


def man_examples(name):
    text = man_text(name)
    sec = text[text.index(".SH EXAMPLES"):text.index(".SH SEE ALSO")]
    return [l[3:].replace("\\-", "-").replace("\\\\", "\\")
            for l in sec.splitlines() if l.startswith(".B ")]


EXAMPLES = [(n, e) for n in ALL_TOOLS for e in man_examples(n)]


@pytest.mark.parametrize("name,example", EXAMPLES)
def test_man_examples_run(tmp_path, name, example):
    argv = shlex.split(example)
    assert argv[0] == name
    if not any(a.startswith("1GB") for a in argv) and argv[1:] != ["library-info"]:
        pytest.skip("needs hardware")
    if "copy-sync" in argv:  # runs on the file a previous example dumps
        (tmp_path / "dump.bin").write_bytes(b"x" * 65536 * 3)
    status, _, err = run(name, *argv[1:], cwd=tmp_path)
    assert status == EXIT_OK, f"{example}: exit {status}\n{err}"


def test_xnvmeperf_options_documented(tmp_path):
    _, out, _ = run("xnvmeperf", "--help")
    opts = set(re.findall(r"(--[a-z][\w-]*)", out))
    text = man_text("xnvmeperf").replace("\\-", "-")
    comp = open(os.path.join(TOOLS_DIR, "completions", "xnvmeperf"), encoding="utf-8").read()
    for opt in opts - {"--bs", "--iodepth"}:
        assert opt in text, f"{opt} missing from the man page"
        assert opt in comp, f"{opt} missing from the completion"
    # --direct is a flag: a URI after it is a URI, a 0/1 after it its value
    status, _, err = run("xnvmeperf", "1GB", "--direct", "0", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err
    status, _, err = run("xnvmeperf", "--direct", "1GB", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err
    # the same number syntax as the other tools
    status, _, err = run("xnvmeperf", "1GB", "--iosize", "0x1000", "--qdepth", "0x4",
                         "--size", "1m", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err
    for opt, val in (("--count", "ff"), ("--iosize", "1e3"), ("--size", "1.5g")):
        status, _, err = run("xnvmeperf", "1GB", opt, val, "--no-progress")
        assert status == EXIT_USAGE and len(err_lines(err)) == 1, f"{opt} {val}: {err}"
