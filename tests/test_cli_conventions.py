"""The conventions every command-line tool follows, checked over every tool and subcommand:

* exit status 0 success, 1 the command failed (one '# ERR' line naming the reason, nothing about
  the failure on stdout), 2 usage error; a missing subcommand or argument prints the usage on
  stderr;
* --version on every tool;
* reading subcommands open read-only: they work on a 0444 file for a user who may only read it;
* options that cannot be honoured are refused, not clamped; nothing found is an empty YAML list;
* the Python CLI (python -m xnvme) exits quietly on a closed pipe;
* docs/tools.md lists every subcommand and option as --help does, and the backends;
* one option vocabulary: every subcommand that opens a device or file takes the backend options
  (--be, --admin, --sync, --async, --mem, --direct, --dev-nsid), --direct is a flag everywhere;
* the xNVMe number syntax: HEX options hexadecimal with 0x optional, NUM options decimal or
  0x-prefixed hexadecimal (bare hex digits refused there), binary units on sizes only;
* open failures name the backend, what was wrong and what is accepted; `info` lists the
  mechanisms per kind; --help, man pages and completion list the valid mechanism names;
* man pages have EXIT STATUS and EXAMPLES, and the ramdisk examples run.

The build directory comes from XNVME_BUILD_DIR (default: build/ in the source tree).
"""
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import tempfile

import pytest
import yaml

BUILD_DIR = os.environ.get(
    "XNVME_BUILD_DIR",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"),
)
TOOLS_DIR = os.path.join(BUILD_DIR, "tools")
SRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL_TOOLS = ["xnvme", "lblk", "zoned", "kvs", "xdd", "xnvme_file", "xnvmeperf"]
BACKEND_OPTS = {"--be", "--admin", "--sync", "--async", "--mem", "--direct", "--dev-nsid"}
SIZE_OPTS = {"--data-nbytes", "--meta-nbytes", "--lpo-nbytes", "--iosize", "--offset", "--size"}
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
    """From the tool usage, which the bare tool prints (on stderr: a subcommand is missing)"""
    _, _, err = run(name)
    subs = re.findall(r"^  (\S+)\s+\|", err, re.M)
    assert subs, f"{name}: no subcommands in its usage:\n{err}"
    return subs


def sub_options(name, sub):
    """{'--opt': 'TYPE' or None for flags} from `<tool> <sub> --help`, and the positionals"""
    _, out, _ = run(name, sub, "--help")
    opts = {}
    for m in re.finditer(r"^  (?:\[ )?--([\w-]+)(?: (\w+))?(?: \])?\s+;", out, re.M):
        opts["--" + m.group(1)] = m.group(2)
    posa = re.match(r"Usage: \S+ \S+((?: <[\w-]+>(?:\.\.\.)?)*)", out)
    return opts, out, (posa.group(1).split() if posa else [])


SUBS = [(t, s) for t in ALL_TOOLS for s in subcommands(t)]


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
    if name == "xnvmeperf":  # one subcommand, run, which "xnvmeperf <args>" means
        usage = [["--bogus", "1GB"], ["1GB", "--qdepth", "x"], ["run", "--count", 1]]
        failed = [missing, "--count", 1]
    else:
        usage = [["bogus-subcommand"], [subcommands(name)[0], "--bogus"]]
        sub = {"xdd": "sync", "xnvme_file": "load-sync", "kvs": "idfy-ns"}.get(name, "info")
        failed = {"xdd": [sub, "--data-input", missing, "--data-output", tmp_path / "o",
                          "--data-nbytes", 512],
                  "xnvme_file": [sub, missing]}.get(name, [sub, missing])
        usage.append(failed + ["--dev-nsid", "zz"])
    for args in usage + [[]]:
        status, _, err = run(name, *args, cwd=tmp_path)
        assert status == EXIT_USAGE, f"{name} {args}: exit {status}\n{err}"
        assert len(err_lines(err)) == 1, err
    status, _, err = run(name, *failed, cwd=tmp_path)
    assert status == EXIT_FAILED, f"{name} {failed}: exit {status}\n{err}"
    assert len(err_lines(err)) == 1, f"one error line per failure:\n{err}"
    assert "missing" in err_lines(err)[0]


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_missing_subcommand_prints_usage_on_stderr(name):
    status, out, err = run(name)
    assert status == EXIT_USAGE and out == "", out
    assert f"Usage: {name} <command>" in err and "missing the subcommand" in err, err
    for sub in subcommands(name):
        assert f"  {sub} " in err, f"{sub} not in the usage:\n{err}"


@pytest.mark.parametrize("name,sub", SUBS)
def test_missing_argument_prints_usage_on_stderr(name, sub):
    """A subcommand without its required arguments: one error line naming the first missing
    one, then the usage of the subcommand, all on stderr; exit 2"""
    _, out, posa = sub_options(name, sub)
    required = re.findall(r"^  --([\w-]+) \w+\s+;", out, re.M)
    if not posa and not required:
        return  # nothing can be missing
    status, stdout, err = run(name, sub)
    assert status == EXIT_USAGE, f"{name} {sub}: exit {status}\n{err}"
    assert stdout == "", stdout
    lines = err_lines(err)
    assert len(lines) == 1 and "missing" in lines[0], err
    assert f"Usage: {name} {sub}" in err and "Where <args> include:" in err, err


# Subcommands whose failure comes from the device: (tool, arguments), each must fail with one
# error line naming the NVMe status and print nothing about the failure on stdout
DEVICE_FAILURES = [
    ("lblk", ["compare", "1GB", "--slba", 0, "--nlb", 7], "Compare Failure"),
    ("xnvme", ["pioc", "1GB", "--opcode", "0xff"], "Invalid Command Opcode"),
    ("xnvme", ["padc", "1GB", "--opcode", "0xfe"], "Invalid Command Opcode"),
    ("xnvme", ["idfy", "1GB", "--cns", "0x99"], "Invalid Field in Command"),
    ("kvs", ["retrieve", "1GB?csi=kv", "--key", "nokey"], "KV Key Does Not Exist"),
    ("zoned", ["mgmt-close", "1GB?csi=zoned,zsze=8192,zcap=6144", "--slba", "0x2000"],
     "Invalid Zone State Transition"),
    ("xnvme", ["feature-get", "1GB", "--fid", "0xee"], "Invalid Field in Command"),
]


@pytest.mark.parametrize("name,args,status_name", DEVICE_FAILURES,
                         ids=[f"{n}-{a[0]}" for n, a, _ in DEVICE_FAILURES])
def test_failed_command_no_dump_on_stdout(name, args, status_name):
    status, out, err = run(name, *args)
    assert status == EXIT_FAILED, f"{name} {args}: exit {status}\n{err}"
    lines = err_lines(err)
    assert len(lines) == 1 and status_name in lines[0] and "(sct 0x" in lines[0], err
    assert "xnvme_cmd_ctx" not in out and "cdw0" not in out, f"a dump on stdout:\n{out}"
    yaml.safe_load(out)


def test_options_not_honoured_are_refused():
    """xnvmeperf does not cut --size to what a device holds, nor round it to LBAs"""
    for size, needle in (("2g", "1GB holds 1073741824 bytes"),
                         ("1000", "not a multiple of the LBA size")):
        status, out, err = run("xnvmeperf", "1GB", "--size", size, "--count", 8, "--no-progress")
        assert status == EXIT_FAILED and out == "", f"--size {size}: {status}\n{out}{err}"
        assert len(err_lines(err)) == 1 and needle in err and f"--size" in err, err
    status, _, err = run("xnvmeperf", "1GB", "--size", "1g", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err


@pytest.mark.parametrize("args", [["xnvme", "enum"], ["xnvme", "list"], ["lblk", "enum"],
                                  ["zoned", "enum"], ["kvs", "enum"]],
                         ids=lambda a: "-".join(a))
def test_nothing_found_is_an_empty_list(args):
    status, out, err = run(*args, "--be", "ramdisk")  # the ramdisk enumerates nothing
    assert status == EXIT_OK, err
    assert yaml.safe_load(out) == {"xnvme_cli_enumeration": []}, out


def test_python_cli_quiet_on_a_closed_pipe(tmp_path):
    lib = os.path.join(BUILD_DIR, "lib", "libxnvme.so")
    ldd = subprocess.run(["ldd", lib], capture_output=True, text=True, check=False).stdout
    if "libasan" in ldd or "libtsan" in ldd:
        pytest.skip("a sanitizer build of the library: python cannot load it without preloading")
    env = dict(os.environ, PYTHONPATH=os.path.join(SRC_DIR, "python"),
               XNVME_LIBRARY_PATH=os.path.join(BUILD_DIR, "lib"))
    cmd = [shutil.which("python3") or "python3", "-m", "xnvme", "info", "1GB"]
    # the reader is gone before the first line is written
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=tmp_path)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert err == "", err
    # and when all goes through, the same command prints its YAML
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=tmp_path, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    assert yaml.safe_load(proc.stdout.decode())["xnvme_geo"]["tbytes"] == 1 << 30


# ------------------------------------------------------------------------------------------------
# Reading subcommands open read-only: they work on a 0444 file for a user who may only read it
# ------------------------------------------------------------------------------------------------

# The subcommands that write the device (tools/<tool>.c g_writers): every other subcommand with
# a <uri> opens it read-only
WRITERS = {
    "xnvme": {"feature-set", "set-fdp-events", "format", "sanitize", "fdp-ruhu", "pioc", "padc",
              "dsm", "subsystem-reset", "ctrlr-reset", "ns-rescan"},
    "lblk": {"write", "write-zeros", "write-uncor", "write-dir", "write-read-pi", "scopy",
             "dir-send"},
    "zoned": {"write", "append", "mgmt-open", "mgmt-close", "mgmt-finish", "mgmt-reset", "mgmt"},
    "kvs": {"store", "delete"},
}
# The arguments a reading subcommand needs besides the uri
READER_ARGS = {
    ("xnvme", "idfy"): ["--cns", "0x1"],
    ("xnvme", "log"): ["--lid", "0x2"],
    ("xnvme", "log-fdp-config"): ["--lsi", "0", "--data-nbytes", "512"],
    ("xnvme", "log-ruhu"): ["--lsi", "0", "--limit", "1"],
    ("xnvme", "log-fdp-stats"): ["--lsi", "0"],
    ("xnvme", "log-fdp-events"): ["--lsi", "0", "--limit", "1", "--lsp", "0"],
    ("xnvme", "feature-get"): ["--fid", "0x7"],
    ("xnvme", "fdp-ruhs"): ["--limit", "1"],
    ("lblk", "read"): ["--slba", "0", "--nlb", "7"],
    ("lblk", "compare"): ["--slba", "0", "--nlb", "7", "--data-input", "{zeros}"],
    ("zoned", "read"): ["--slba", "0", "--nlb", "7"],
    ("kvs", "retrieve"): ["--key", "k"],
    ("kvs", "exist"): ["--key", "k"],
    ("kvs", "list"): ["--key", "k"],
}
READERS = [(t, s) for t in WRITERS for s in subcommands(t)
           if s not in WRITERS[t] and "<uri>" in sub_options(t, s)[2]]


@pytest.fixture(scope="module")
def readonly_tree():
    """The tools and the library in a directory anyone may read, a 0444 file device, and a user
    (nobody) that may only read it; None when the test cannot switch users"""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        yield None
        return
    top = tempfile.mkdtemp(prefix="xnvme-ro-")
    try:
        os.chmod(top, 0o755)
        for name in list(WRITERS) + ["xnvmeperf"]:
            shutil.copy(os.path.join(TOOLS_DIR, name), top)
        lib = os.path.join(BUILD_DIR, "lib")
        for entry in ("libxnvme.so", "libxnvme.so.0"):
            shutil.copy(os.path.join(lib, entry), top, follow_symlinks=True)
        dev = os.path.join(top, "ro.img")
        with open(dev, "wb") as f:
            f.write(bytes(range(256)) * (64 << 12))  # 64 MiB
        os.chmod(dev, 0o444)
        zeros = os.path.join(top, "zeros.bin")
        with open(zeros, "wb") as f:
            f.write(bytes(4096))
        os.chmod(zeros, 0o444)
        yield {"top": top, "dev": dev, "zeros": zeros,
               "prefix": [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]}
    finally:
        shutil.rmtree(top)


def test_every_reader_has_arguments():
    """A reading subcommand added to a tool gets its arguments above (or needs none)"""
    for name, sub in READERS:
        _, out, _ = sub_options(name, sub)
        required = re.findall(r"^  --([\w-]+) \w+\s+;", out, re.M)
        assert not required or (name, sub) in READER_ARGS, (name, sub, required)


@pytest.mark.parametrize("name,sub", READERS)
def test_readers_open_read_only(readonly_tree, name, sub):
    """As a user who may only read the file, a reading subcommand ends as it does for root
    (who may write it): never with a permission error"""
    if readonly_tree is None:
        pytest.skip("needs root and setpriv to run as a user that may only read the file")
    t = readonly_tree
    args = [a.format(zeros=t["zeros"]) for a in READER_ARGS.get((name, sub), [])]
    argv = [os.path.join(t["top"], name), sub, t["dev"]] + args
    env = dict(os.environ, LD_LIBRARY_PATH=t["top"])
    as_root = subprocess.run(argv, capture_output=True, env=env, cwd=t["top"], timeout=60,
                             check=False)
    as_user = subprocess.run(t["prefix"] + argv, capture_output=True, env=env, cwd=t["top"],
                             timeout=60, check=False)
    err = as_user.stderr.decode()
    assert "ermission denied" not in err and "EACCES" not in err, f"{name} {sub}: {err}"
    assert as_user.returncode == as_root.returncode, (
        f"{name} {sub}: exit {as_user.returncode} as nobody, {as_root.returncode} as root\n"
        f"{err}\n{as_root.stderr.decode()}")
    # the same data (info's mechanism list may differ: some need privileges)
    untimed = lambda out: [l for l in out.decode().splitlines() if not l.startswith("wall-clock")]
    if sub != "info":
        assert untimed(as_user.stdout) == untimed(as_root.stdout), f"{name} {sub}: output differs"
    if (name, sub) in (("lblk", "read"), ("xnvme", "info"), ("xnvme", "idfy-ns")):
        assert as_user.returncode == EXIT_OK, err


def test_writers_still_refused_on_a_read_only_file(readonly_tree):
    """The other side: a writing subcommand on the same file fails for that user, naming why"""
    if readonly_tree is None:
        pytest.skip("needs root and setpriv to run as a user that may only read the file")
    t = readonly_tree
    env = dict(os.environ, LD_LIBRARY_PATH=t["top"])
    proc = subprocess.run(t["prefix"] + [os.path.join(t["top"], "lblk"), "write", t["dev"],
                                         "--slba", "0", "--nlb", "0"],
                          capture_output=True, env=env, cwd=t["top"], timeout=60, check=False)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED and len(err_lines(err)) == 1, err
    assert "ermission denied" in err, err
    assert stat.S_IMODE(os.stat(t["dev"]).st_mode) == 0o444


@pytest.mark.parametrize("rw", ["randread", "read"])
def test_xnvmeperf_reads_open_read_only(readonly_tree, rw):
    """xnvmeperf's reading patterns measure a file its user may only read; its writing ones
    still open read-write and are refused there"""
    if readonly_tree is None:
        pytest.skip("needs root and setpriv to run as a user that may only read the file")
    t = readonly_tree
    env = dict(os.environ, LD_LIBRARY_PATH=t["top"])
    perf = [os.path.join(t["top"], "xnvmeperf"), t["dev"], "--count", "64", "--no-progress",
            "--json"]
    proc = subprocess.run(t["prefix"] + perf + ["--rw", rw], capture_output=True, env=env,
                          cwd=t["top"], timeout=60, check=False)
    assert proc.returncode == EXIT_OK, proc.stderr.decode()
    assert json.loads(proc.stdout.decode())["total"]["ios"] == 64
    proc = subprocess.run(t["prefix"] + perf + ["--rw", "randwrite"], capture_output=True,
                          env=env, cwd=t["top"], timeout=60, check=False)
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_FAILED and len(err_lines(err)) == 1, err
    assert "ermission denied" in err, err


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
    def errs(*args):
        status, _, err = run(name, sub, *args)
        return status, "\n".join(err_lines(err)).replace("option ", "")

    for opt, vtype in opts.items():
        if vtype not in ("NUM", "HEX"):
            continue
        # bare hex digits: hexadecimal on HEX options, refused (never guessed) on NUM options
        status, err = errs(opt, "ff")
        if vtype == "HEX":
            assert opt + ":" not in err, f"{name} {sub} {opt} ff: {err}"
        else:
            assert status == EXIT_USAGE and "0x prefix" in err, f"{name} {sub} {opt} ff: {err}"
        # plain digits and 0x-prefixed hex parse for every numeric option
        for val in ("1", "0x1"):
            _, err = errs(opt, val)
            assert opt + ":" not in err, f"{name} {sub} {opt} {val}: {err}"
        # units on sizes only
        status, err = errs(opt, "1k")
        if opt in SIZE_OPTS:
            assert f"{opt}:" not in err, f"{name} {sub} {opt} 1k: {err}"
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
    """{backend: [names]} of every enabled backend, from the library's registry
    (tests/registry_dump); the ramdisk's also from its message for an unknown mechanism"""
    dump = subprocess.run([os.path.join(BUILD_DIR, "tests", "registry_dump")],
                          stdout=subprocess.PIPE, check=True, timeout=60)
    names = {be["name"]: be[kind] for be in json.loads(dump.stdout)["backends"]
             if be["enabled"]}
    _, _, err = run("xnvme", "info", "1GB", f"--{kind}", "no-such-mechanism")
    found = re.findall(r"(\w+): has no \w+ mechanism named '+no-such-mechanism'+ \(valid: ([^)]*)\)",
                       err)
    assert found, err
    for be, listed in found:
        assert [n.strip() for n in listed.split(",")] == names[be], (kind, be, listed)
    return names


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


def test_xnvmeperf_on_the_cli_builder(tmp_path):
    """xnvmeperf's options come from its tables: help, man page and completion agree"""
    opts, out, posa = sub_options("xnvmeperf", "run")
    assert posa == ["<uri>..."], posa
    text = man_text("xnvmeperf").replace("\\-", "-")
    comp = open(os.path.join(TOOLS_DIR, "completions", "xnvmeperf"), encoding="utf-8").read()
    for opt in opts:
        assert opt in text, f"{opt} missing from the man page"
        assert opt in comp, f"{opt} missing from the completion"
    assert re.search(r"--rw\)\n\s+COMPREPLY=\( \$\(compgen -W \"randread randwrite", comp)
    # "xnvmeperf <args>" is "xnvmeperf run <args>": --help of the tool is that of run
    for flag in ("--help", "-h"):
        status, out, _ = run("xnvmeperf", flag)
        assert status == EXIT_OK and out.startswith("Usage: xnvmeperf run <uri>... [<args>]")
    for argv in (["1GB", "--count", 8, "--json"], ["run", "1GB", "--count", 8, "--json"]):
        status, out, err = run("xnvmeperf", *argv)
        assert status == EXIT_OK, err
        assert yaml.safe_load(out)["total"]["ios"] == 8
    # several devices: a repeated positional
    status, out, err = run("xnvmeperf", "1GB", "2GB", "--threads", 3, "--count", 4, "--json")
    assert status == EXIT_OK, err
    assert [d["uri"] for d in yaml.safe_load(out)["devices"]] == ["1GB", "2GB"]
    # --direct is a flag: a URI after it is a URI, a 0/1 after it its value
    status, _, err = run("xnvmeperf", "1GB", "--direct", "0", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err
    status, _, err = run("xnvmeperf", "--direct", "1GB", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err
    # the same number syntax as the other tools
    status, _, err = run("xnvmeperf", "1GB", "--iosize", "0x1000", "--qdepth", "0x4",
                         "--size", "1m", "--count", 8, "--no-progress")
    assert status == EXIT_OK, err
    for args in (["--count", "ff"], ["--iosize", "1e3"], ["--size", "1.5g"], ["--rw", "bogus"],
                 ["--runtime", "-1"], ["--output", "xml"], ["--threads", "0"],
                 ["--threads", "257"], ["--rwmixread", "101"], ["--runtime", "1", "--count", "5"],
                 ["--rw", "randwrite", "--rdonly"], ["--json", "--output", "text"],
                 ["--iosize", "0"], ["--qdepth", "4097"]):
        status, _, err = run("xnvmeperf", "1GB", *args, "--no-progress")
        assert status == EXIT_USAGE and len(err_lines(err)) == 1, f"{args}: {status} {err}"
    # a run that fails: one line, the first failure named with its status
    status, out, err = run("xnvmeperf", "1GB?csi=kv", "--count", 4, "--no-progress")
    assert status == EXIT_FAILED and len(err_lines(err)) == 1, err
    assert "xnvme_cmd_ctx" not in out


# ------------------------------------------------------------------------------------------------
# docs/tools.md: the convention, the backends, and tables of every subcommand's arguments that
# agree with what --help lists
# ------------------------------------------------------------------------------------------------

BACKEND_GROUP = ["--subnqn", "--hostnqn", "--be", "--shm_id", "--dev-nsid", "--admin", "--mem",
                 "--direct", "--sync", "--async"]


def doc_table(name):
    """The table of `name`'s subcommands as docs/tools.md must hold it, from --help"""
    rows = ["| subcommand | positional | required | optional |", "|---|---|---|---|"]
    for sub in subcommands(name):
        _, out, posa = sub_options(name, sub)
        required, optional = [], []
        for m in re.finditer(r"^  (\[ )?--([\w-]+)(?: (\w+))?(?: \])?\s+;", out, re.M):
            if m.group(2) == "help":
                continue
            arg = f"--{m.group(2)}" + (f" {m.group(3)}" if m.group(3) else "")
            (optional if m.group(1) else required).append(arg)
        names = [a.split()[0] for a in optional]
        if all(b in names for b in BACKEND_GROUP):
            optional = [a for a in optional if a.split()[0] not in BACKEND_GROUP] + ["*backend*"]
        cell = lambda items: ", ".join(i if i == "*backend*" else f"`{i}`" for i in items)
        pos = ", ".join(f"`{p.strip('<>').replace('>', '')}`" for p in posa)
        rows.append(f"| `{sub}` | {pos} | {cell(required)} | {cell(optional)} |")
    return rows


def doc_text():
    return open(os.path.join(SRC_DIR, "docs/tools.md"), encoding="utf-8").read()


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_tools_doc_tables_match_help(name):
    text = doc_text()
    head = f"### `{name}`\n"
    assert head in text, f"docs/tools.md has no section {head.strip()}"
    table = []
    for line in text[text.index(head) + len(head):].splitlines():
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    want = doc_table(name)
    assert table == want, ("docs/tools.md: the table of %s differs from --help; it should be:\n"
                           % name) + "\n".join(want)


# A URI of each backend's own form: naming the backend, its refusal lists its mechanisms
BACKEND_URIS = {"linux": "{file}", "ramdisk": "1GB", "vfio": "0000:99:00.0",
                "tcp": "127.0.0.1:1", "rdma": "127.0.0.1:1"}


def test_tools_doc_backends_match_the_library(tmp_path):
    """The backends and mechanisms table of docs/tools.md is what the library accepts"""
    text = doc_text()
    header = re.search(r"^\| Kind \|(.*)\|\s*$", text, re.M)
    rows = dict(re.findall(r"^\| `--(mem|admin|sync|async)` \|(.*)\|\s*$", text, re.M))
    assert header and sorted(rows) == sorted(KINDS), "docs/tools.md has no backends table"
    bes = [c.strip().strip("`") for c in header.group(1).split("|")]
    assert sorted(bes) == sorted(BACKEND_URIS), bes
    (tmp_path / "f.img").write_bytes(bytes(4096))
    for kind in KINDS:
        for be, cell in zip(bes, rows[kind].split("|")):
            uri = BACKEND_URIS[be].format(file=tmp_path / "f.img")
            _, _, err = run("xnvme", "info", uri, "--be", be, f"--{kind}", "no-such")
            if f"{be}: backend is not built into this library" in err:
                # rdma without rdma-core: known by name, refused as a whole
                assert be == "rdma" and "errno: -38" in err, err
                continue
            m = re.search(rf"{be}: has no {kind} mechanism named '+no-such'+ \(valid: ([^)]*)\)",
                          err)
            assert m, f"--be {be} --{kind}: {err}"
            valid = {n.strip() for n in m.group(1).split(",")}
            assert set(re.findall(r"`(\w+)`", cell)) == valid, (kind, be, cell, valid)


def test_tools_doc_states_the_convention():
    text = " ".join(doc_text().split())
    for needle in ("usage on stderr", "exit status 2", "# ERR:", "nothing on stdout",
                   "read-only", "refused, not clamped", "xnvme_cli_enumeration: []", "`130`",
                   "`143`", "`141`", "`tcp`", "`vfio`", "renamed over it only", "mode, owner and group"):
        assert needle in text, f"docs/tools.md does not say {needle!r}"
