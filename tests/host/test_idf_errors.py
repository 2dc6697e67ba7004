# SPDX-License-Identifier: GPL-2.0-or-later
"""Errors that say the right thing: every message of the IDF parser names
the keyword being read, with file:line:column; negative values, lengths
above the largest frame and rates faster than any link are refused with
the numbers, and `mtgctl run` checks the interface's MTU before the
module is opened; a mistake in the globals is reported once with the TGs
it affects; what a message quotes of a file is escaped; `include`, trace
and pcap files must be regular files; a trace's errors point at its
`dist`; `mtgctl check` shows what a model that draws its own lengths and
gaps puts in the table. Exact messages throughout."""

import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASE = "dev eth0 dst 192.0.2.2:9000\n"
WHY_LEN_MAX = ("a 9000-byte jumbo MTU + Ethernet 14 + VLAN 4; the "
               "interface's MTU + 14 may allow less")
WIRE = ("is faster than any link carries: a frame is {wire} bytes on the "
        "wire (+ FCS 4, preamble 8, inter-frame gap 12), {ns} ns at 800 "
        "Gbit/s, the fastest Ethernet; ")


def run(mtgctl, tmp_path, text, *args, command="check", name="t.idf",
        binary=False):
    path = tmp_path / name
    if binary:
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text))
    return subprocess.run([mtgctl, command, name, *args], cwd=tmp_path,
                          capture_output=True, text=not binary, timeout=60)


def errors(mtgctl, tmp_path, text, *args, **kw):
    r = run(mtgctl, tmp_path, text, *args, **kw)
    assert r.returncode == 1
    assert r.stdout == ""
    return r.stderr.splitlines()


def keywords():
    """The keywords, from ctl/idf/idf.h's one list."""
    text = (ROOT / "ctl" / "idf" / "idf.h").read_text()
    block = text.split("#define IDF_KEYWORDS(K)", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"K\((\w+),", block)


# The keyword being read

@pytest.mark.parametrize("text, message", [
    (BASE.strip() + " tgid\n",
     "t.idf:1:34: error: 'tgid' expects a TG number from 1 to 4294967295, "
     "got end of line"),
    ("dst 192.0.2.2:9000 tgid pkts 200\n",
     "t.idf:1:25: error: 'tgid' expects a TG number from 1 to 4294967295, "
     "got keyword 'pkts'"),
    ("listen rx0 rx1 rx0\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:16: error: 'listen' names 'rx0' twice (first at line 1)"),
    (BASE + "tgid 1 pkts 200 inta 1 include none.idf\n",
     "t.idf:2:32: error: 'include' cannot read 'none.idf': No such file or "
     "directory"),
], ids=["tgid-at-end", "tgid-before-keyword", "listen", "include"])
def test_the_keyword_being_read(mtgctl, tmp_path, text, message):
    """`tgid` after `dst ADDR` was reported as "'dst' expects a TG number"."""
    assert errors(mtgctl, tmp_path, text) == [message]


# Keywords that only go in a TG's section (elsewhere that is the error).
TG_ONLY = {"ctrl"}
# Keywords that only go in a behaviour's definition.
BEHAVIOUR_ONLY = {"category", "next"}


@pytest.mark.parametrize("kw", keywords())
def test_every_keyword_names_itself(mtgctl, tmp_path, kw):
    """Each keyword, its value missing after another keyword's group: the
    message is about it, at the end of its line."""
    line = f"{'tos' if kw == 'ttl' else 'ttl'} 9 {kw}"
    head, n = "", 1
    if kw in TG_ONLY:
        head, n = BASE, 2
        line = "tgid 1 pkts 200 inta 1 " + line
    if kw in BEHAVIOUR_ONLY:
        head, n = "behaviour b\ncategory c 1s pkts 200 inta 1\n", 3
    first = errors(mtgctl, tmp_path, head + line + "\n")[0]
    assert first.startswith(f"t.idf:{n}:{len(line) + 2}: error: '{kw}' "
                            f"expects ")
    assert first.endswith(", got end of line")


# Negative values

NEG = "negative values are not allowed"


@pytest.mark.parametrize("text, message", [
    ("tgid 1 pkts 200 thro -1M",
     f"t.idf:2:22: error: 'thro' expects a throughput in bit/s (suffixes k, "
     f"M, G), got '-1M' ({NEG})"),
    ("tgid 1 pkts 200 thro 1M -500k",
     f"t.idf:2:25: error: 'thro' expects a throughput in bit/s (suffixes k, "
     f"M, G), got '-500k' ({NEG})"),
    ("tgid 1 pkts 200 inta -5",
     f"t.idf:2:22: error: 'inta' expects a time (ms, or a unit: ns, us, ms, "
     f"s), got '-5' ({NEG})"),
    ("tgid 1 pkts 200 inta 1 -0.5",
     f"t.idf:2:24: error: 'inta' expects a time (ms, or a unit: ns, us, ms, "
     f"s), got '-0.5' ({NEG})"),
    ("tgid 1 pkts -200 inta 1",
     f"t.idf:2:13: error: 'pkts' expects a length in bytes, got '-200' "
     f"({NEG})"),
    ("tgid 1 pkts 200 inta 1 count -5",
     f"t.idf:2:30: error: 'count' expects a number of packets (suffixes k, "
     f"M, G), got '-5' ({NEG})"),
    ("tgid 1 pkts 200 inta 1 time relative -1s",
     f"t.idf:2:38: error: 'time' expects the start, a time (s, or a unit: "
     f"ns, us, ms, s), got '-1s' ({NEG})"),
    ("tgid 1 pkts 200 inta 1 ttl -1",
     f"t.idf:2:28: error: 'ttl' expects a number from 1 to 255, got '-1' "
     f"({NEG})"),
    ("tgid 1 pkts 200 inta 1 dist normal -1ms 1ms",
     f"t.idf:2:36: error: 'dist' expects normal's MEAN, a time (ms, or a "
     f"unit: ns, us, ms, s), got '-1ms' ({NEG})"),
])
def test_negative_values(mtgctl, tmp_path, text, message):
    """`thro -1M` and `inta -5` said 'not a number'."""
    assert errors(mtgctl, tmp_path, BASE + text + "\n") == [message]


@pytest.mark.parametrize("args, message", [
    (["table", "t.idf", "--count", "-5"],
     f"mtgctl: table: --count expects a number from 1 to "
     f"18446744073709551615, got '-5' ({NEG})"),
    (["table", "t.idf", "--tg", "-1"],
     f"mtgctl: table: --tg expects a number from 1 to 4294967295, got '-1' "
     f"({NEG})"),
    (["run", "t.idf", "--start-delay", "-1"],
     f"mtgctl: run: --start-delay expects a time (seconds, or ns/us/ms/s), "
     f"got '-1' ({NEG})"),
    (["listen", "lo", "--duration", "-2s"],
     f"mtgctl: listen: --duration expects a time (seconds, or ns/us/ms/s), "
     f"got '-2s' ({NEG})"),
], ids=["count", "tg", "start-delay", "duration"])
def test_negative_options(mtgctl, tmp_path, args, message):
    """The command line shares the IDF's units, and says the same."""
    (tmp_path / "t.idf").write_text(BASE + "tgid 1 pkts 200 inta 1\n")
    r = subprocess.run([mtgctl, *args], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [message]


# The largest length

@pytest.mark.parametrize("value", ["99999999", "9019", "0x2400",
                                   "123456789012345678901234567890"])
def test_largest_length(mtgctl, tmp_path, value):
    """`pkts 99999999` said only that it expects a length in bytes."""
    assert errors(mtgctl, tmp_path, BASE + f"tgid 1 pkts {value} inta 1\n") \
        == [f"t.idf:2:13: error: 'pkts' {value} is above the largest frame, "
            f"9018 bytes ({WHY_LEN_MAX})"]


def test_largest_length_in_the_globals_once(mtgctl, tmp_path):
    assert errors(mtgctl, tmp_path, BASE + "pkts variable 10000 200 inta 1\n"
                  + "".join(f"tgid {i}\n" for i in range(1, 11))) == [
        f"t.idf:2:15: error: 'pkts' 10000 is above the largest frame, 9018 "
        f"bytes ({WHY_LEN_MAX})"]


def test_length_above_the_interface_mtu(mtgctl, tmp_path):
    """At run time, before the device: the interface's MTU + 14 is the
    largest frame, and the message says so with the numbers. lo's MTU is
    lowered in a network namespace of a user namespace of our own."""
    if not shutil.which("unshare") or subprocess.run(
            ["unshare", "-rn", "true"], capture_output=True).returncode:
        pytest.skip("no user and network namespaces here (unshare -rn)")
    (tmp_path / "t.idf").write_text(
        "tgid 1 dev lo src 127.0.0.1 dst 127.0.0.1:9 pkts 1295 thro 1M\n"
        "tgid 2 dev lo src 127.0.0.1 dst 127.0.0.1:9 pkts 1294 thro 1M\n")
    device = tmp_path / "no-such-device"
    r = subprocess.run(["unshare", "-rn", "sh", "-c",
                        'ip link set lo mtu 1280 && exec "$@"', "sh",
                        mtgctl, "run", "t.idf", "--batch", "--device",
                        device], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "mtgctl: TG 1: 'pkts' 1295 is above the largest frame 'lo' in this "
        "namespace sends, 1294 bytes (its MTU 1280 + Ethernet 14)",
        "t.idf: nothing started"]


# The fastest rate

@pytest.mark.parametrize("text, message", [
    ("pkts 200 thro 1000G",
     "t.idf:2:17: error: TG 1: a 200-byte frame every 1.6 ns ('thro' "
     "1000000000000 bit/s) " + WIRE.format(wire=224, ns=2.24)
     + "'thro' can be 714285714285 bit/s at most"),
    ("pkts 200 thro 714285714286",
     "t.idf:2:17: error: TG 1: a 200-byte frame every 2.24 ns ('thro' "
     "714285714286 bit/s) " + WIRE.format(wire=224, ns=2.24)
     + "'thro' can be 714285714285 bit/s at most"),
    ("pkts 200 inta 2ns",
     "t.idf:2:17: error: TG 1: a 200-byte frame every 2 ns ('inta') "
     + WIRE.format(wire=224, ns=2.24) + "'inta' must be 2.24 ns at least"),
    ("pkts 1500 inta 1ns 10ns dist uniform",
     "t.idf:2:18: error: TG 1: a 1500-byte frame every 5.5 ns ('inta', on "
     "average) " + WIRE.format(wire=1524, ns=15.24)
     + "'inta' must be 15.24 ns at least"),
    ("pkts variable 200 131 thro 800G",
     "t.idf:2:30: error: TG 1: a frame of 165.5 bytes on average every "
     "1.655 ns ('thro' 800000000000 bit/s) "
     + WIRE.format(wire=189.5, ns=1.895)
     + "'thro' can be 698680738786 bit/s at most"),
    ("pkts computed thro 800G inta 2ns",
     "t.idf:2:32: error: TG 1: a 200-byte frame every 2 ns ('inta') "
     + WIRE.format(wire=224, ns=2.24) + "'inta' must be 2.24 ns at least"),
], ids=["thro", "thro-by-one", "inta", "inta-mean", "variable", "computed"])
def test_faster_than_any_link(mtgctl, tmp_path, text, message):
    """`thro 1000G` with 200-byte frames was accepted (a gap of 8/5 ns)."""
    assert errors(mtgctl, tmp_path, BASE + f"tgid 1 {text}\n") == [message]


@pytest.mark.parametrize("text", [
    "pkts 200 thro 714285714285",          # 2.24 ns exactly
    "pkts 200 inta 3ns",
    "pkts 9018 thro 10G",
    "pkts 200 thro 1000G dist pareto 1.5 1ms",   # the model sets the gaps
])
def test_as_fast_as_a_link(mtgctl, tmp_path, text):
    r = run(mtgctl, tmp_path, BASE + f"tgid 1 {text}\n", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["errors"] == []


# One global mistake, one error

def test_global_mistake_reported_once(mtgctl, tmp_path):
    """Was one identical error per TG, "10 more errors or warnings not
    shown"; a TG that overrides the global is not named."""
    ids = [*range(1, 31), 40, 41, *range(50, 120, 10)]
    lines = errors(mtgctl, tmp_path, BASE + "pkts 50 inta 1\n" + "".join(
        f"tgid {i}\n" + ("pkts 200\n" if i == 35 else "") for i in
        [*ids, 35]))
    assert lines == [
        "t.idf:2:1: error: TGs 1..30, 40..41, 50, 60, 70, 80, 90, 100 and 1 "
        "more: 'pkts' 50 is below the smallest IPv4 frame, 130 bytes "
        "(Ethernet 14 + IPv4 20 + UDP 8 + MTG header 88)"]


def test_global_mistake_once_in_json(mtgctl, tmp_path):
    r = run(mtgctl, tmp_path, BASE + "pkts 200 thro 1000G\n"
            "tgid 1\ntgid 2\ntgid 3 pkts 1500\ntgid 4\n", "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["errors"] == [
        {"line": 2, "col": 10, "message":
         "TGs 1..2, 4: a 200-byte frame every 1.6 ns ('thro' 1000000000000 "
         "bit/s) " + WIRE.format(wire=224, ns=2.24)
         + "'thro' can be 714285714285 bit/s at most"},
        {"line": 2, "col": 10, "message":
         "TG 3: a 1500-byte frame every 12 ns ('thro' 1000000000000 bit/s) "
         + WIRE.format(wire=1524, ns=15.24)
         + "'thro' can be 787401574803 bit/s at most"}]


def test_missing_keyword_reported_once(mtgctl, tmp_path):
    """Forgetting `dev` in the globals: one error, not one per TG."""
    assert errors(mtgctl, tmp_path, "dst 192.0.2.2:9 pkts 200 inta 1\n"
                  + "".join(f"tgid {i}\n" for i in range(1, 81))) == [
        "t.idf:2:1: error: TGs 1..80 have no 'dev' (the interface to send "
        "from)"]


def test_own_mistakes_stay_apart(mtgctl, tmp_path):
    """The same mistake written in each TG is reported in each."""
    assert errors(mtgctl, tmp_path, BASE + "inta 1\n"
                  "tgid 1 pkts 50\ntgid 2 pkts 50\n") == [
        f"t.idf:{n}:8: error: TG {n - 2}: 'pkts' 50 is below the smallest "
        "IPv4 frame, 130 bytes (Ethernet 14 + IPv4 20 + UDP 8 + MTG header "
        "88)" for n in (3, 4)]


# Escaped

def test_control_characters_escaped(mtgctl, tmp_path):
    """An escape sequence (clear the screen, set the title, CSI as C1),
    bytes that are not UTF-8 and a right-to-left override come out as
    \\xNN; UTF-8 text is kept."""
    text = (b"tgid 1 \x1b[2J\x1b]0;pwned\x07 dev eth0\n"
            b"pkts \xff\xfe\xc2\x9b31m inta 1\n"
            b"dst caf\xc3\xa9\xe2\x80\xaeabc\n"
            b"pkts\x7f 1\n")
    r = run(mtgctl, tmp_path, text, binary=True)
    assert r.returncode == 1
    assert r.stderr.decode().splitlines() == [
        r"t.idf:1:8: error: expected a keyword, got '\x1b[2J\x1b]0;pwned\x07'"
        r" (too many values for 'tgid'?)",
        r"t.idf:2:6: error: 'pkts' expects a length in bytes, got "
        r"'\xff\xfe\xc2\x9b31m'",
        "t.idf:3:5: error: 'dst' expects ADDR:PORT (IPv6 in brackets: "
        "[2001:db8::1]:5000), got 'caf\u00e9\\xe2\\x80\\xaeabc' (not an IPv4 address)",
        r"t.idf:4:1: error: unknown keyword 'pkts\x7f'; did you mean 'pkts'?",
    ]


def test_random_bytes_escaped(mtgctl, tmp_path):
    """A file of random bytes (fixed seeds): every message is printable
    UTF-8, nothing a terminal would act on but the newlines."""
    for seed in range(20):
        data = random.Random(seed).randbytes(4096)
        for command in ("check", "table", "run"):
            r = run(mtgctl, tmp_path, data, "--device", "/nonexistent",
                    command=command, binary=True) if command == "run" else \
                run(mtgctl, tmp_path, data, command=command, binary=True)
            assert r.returncode == 1 and r.stdout == b""
            text = r.stderr.decode("utf-8")      # valid UTF-8
            assert text.startswith("t.idf:")
            assert all(c == "\n" or (ord(c) >= 0x20 and c != "\x7f" and
                                     not 0x80 <= ord(c) <= 0x9f)
                       for c in text), (seed, command)


def test_trace_content_escaped_at_its_dist(mtgctl, tmp_path):
    """A trace file's error: at the `dist` that names it, the keyword and
    the file's words escaped, from check, table and run alike."""
    (tmp_path / "tr.txt").write_bytes(b"0 200\n1ms \x1b[31mred\n")
    for command in ("check", "table", "run"):
        lines = errors(mtgctl, tmp_path, BASE + "tgid 1 dist trace tr.txt\n",
                       *(["--device", "/nonexistent"] if command == "run"
                         else []), command=command)
        assert lines[0] == (
            "t.idf:2:8: error: TG 1: 'dist trace': tr.txt:2:5: expected a "
            r"frame length, 130 .. 9018 bytes, got '\x1b[31mred'")


def test_names_escaped_in_check(mtgctl, tmp_path):
    """Names a valid file gives (an interface, a namespace, a trace file)
    are shown escaped by `mtgctl check`."""
    (tmp_path / "t\x1bx.txt").write_text("0 200\n1ms 300\n")
    r = run(mtgctl, tmp_path, "listen r\x1b[2J@n\x07s\n"
            "tgid 1 dev e\x1b[31m netns n\x07 dst 192.0.2.2:9 "
            "dist trace t\x1bx.txt\n")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == r"listen r\x1b[2J@n\x07s  out (none)  passthrough no"
    assert lines[2] == r"  dev e\x1b[31m  netns n\x07  cpu (spread)"
    assert lines[4].startswith(r"  dist trace t\x1bx.txt  pkts 200..300 bytes")
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout


# include: regular files only

@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_include_refuses_what_is_not_a_file(mtgctl, tmp_path, kind):
    """`include` of a FIFO hung `mtgctl check`."""
    target, what = {"fifo": ("p.fifo", "a FIFO"),
                    "directory": ("sub", "a directory"),
                    "device": ("/dev/zero", "a character device")}[kind]
    if kind == "fifo":
        os.mkfifo(tmp_path / target)
    elif kind == "directory":
        (tmp_path / target).mkdir()
    assert errors(mtgctl, tmp_path, BASE + "pkts 200 inta 1\n"
                  f"tgid 1 include {target}\n") == [
        f"t.idf:3:16: error: 'include' cannot read '{target}': {what}, not "
        "a regular file"]


def test_trace_refuses_a_fifo(mtgctl, tmp_path):
    os.mkfifo(tmp_path / "times.fifo")
    assert errors(mtgctl, tmp_path, BASE + "tgid 1 dist trace times.fifo\n") \
        == ["t.idf:2:8: error: TG 1: 'dist trace': cannot read times.fifo: "
            "a FIFO, not a regular file"]


# mtgctl check: what a model draws

def dist_line(mtgctl, tmp_path, text):
    r = run(mtgctl, tmp_path, text)
    assert r.returncode == 0, r.stderr
    return [line for line in r.stdout.splitlines()
            if line.startswith("  dist ")]


def test_check_shows_what_presets_draw(mtgctl, tmp_path):
    """D-ITG's presets set lengths and gaps: check showed `pkts 0 bytes
    inta 0 ns`, or a global `pkts` and `thro` the preset ignores."""
    voip, dns, pareto, plain = dist_line(mtgctl, tmp_path, BASE + """\
        tgid 1 dist voip G.711.1
        tgid 2 dist dns
        tgid 3 dist pareto 1.5 5ms pkts 200 thro 1M
        tgid 4 pkts 200 thro 1M
        """)
    # 80-byte frame + RTP 12 + 130 of headers, 100 packets/s
    assert voip == ("  dist voip G.711.1 rtp  pkts 222 bytes  gaps mean "
                    "10000000 ns (in the table)")
    # payload uniform on 100 .. 319 bytes, 0.56 packets/s
    m = re.fullmatch(r"  dist dns  pkts (\d+)\.\.(\d+) bytes, mean "
                     r"([\d.]+)  gaps mean 1785714286 ns \(in the table\)",
                     dns)
    assert m and 230 <= int(m[1]) < int(m[2]) <= 449
    assert int(m[1]) <= float(m[3]) <= int(m[2])
    assert pareto.startswith("  dist pareto 1.5 5ms  pkts 200 bytes  "
                             "gaps mean ") and "thro" not in pareto
    assert plain == "  dist fixed  pkts 200 bytes  thro 1000000 bit/s"


def test_check_shows_a_presets_lengths_not_the_globals(mtgctl, tmp_path):
    (line,) = dist_line(mtgctl, tmp_path, BASE + "pkts 1500 thro 10M\n"
                        "tgid 1 dist voip G.729.3 crtp vad\n")
    # 0.65 * 3 frames of 10 bytes + cRTP 2 = 21.5, cut to 21; 33 packets/s
    assert line == ("  dist voip G.729.3 crtp vad  pkts 151 bytes  gaps mean "
                    "30303030 ns (in the table)")
