# SPDX-License-Identifier: GPL-2.0-or-later
"""The IDF's `ctrl` (Documentation/idf.rst): a TG sends a control message
a given time after its start, as many as written; its text is "quoted"
with escapes, hex: or a word. Without the module: `mtgctl check` shows
them, and every mistake gets its file:line:column. (What the module makes
of them: tests/vm/test_mtgctl_ctrl.py.)"""

import json
import subprocess
import textwrap

import pytest

BASE = "dev eth0 dst 192.0.2.2:9000 dist fixed pkts 200 inta 1\n"


def check(mtgctl, tmp_path, text, *args):
    (tmp_path / "t.idf").write_text(textwrap.dedent(text))
    return subprocess.run([mtgctl, "check", "t.idf", *args], cwd=tmp_path,
                          capture_output=True, text=True)


def test_ctrl_messages_as_written(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, BASE + textwrap.dedent("""\
        tgid 1 ctrl 2s "hello # not a comment" ctrl 500ms hex:00ff7f  # one
            ctrl 1 plain
        tgid 2
            ctrl 0 "tab\\there \\"quoted\\" \\\\ \\x01\\0" ctrl 3ms ""
        """), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    got = [(c["tg"], c["at_ns"], bytes.fromhex(c["hex"]), c["line"])
           for c in out["ctrl"]]
    assert got == [
        (1, 2_000_000_000, b"hello # not a comment", 2),
        (1, 500_000_000, b"\x00\xff\x7f", 2),
        (1, 1_000_000_000, b"plain", 3),
        (2, 0, b'tab\there "quoted" \\ \x01\x00', 5),
        (2, 3_000_000, b"", 5),
    ]
    assert all(c["len"] == len(bytes.fromhex(c["hex"])) for c in out["ctrl"])
    text = check(mtgctl, tmp_path, BASE + 'tgid 1 ctrl 2s "a\\x01"\n').stdout
    assert '  ctrl at +2000000000 ns: 2 bytes "a\\x01"' in text


def test_the_longest_message(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, BASE + f"tgid 1 ctrl 1 hex:{'ab' * 1024}\n",
              "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["ctrl"][0]["len"] == 1024


DATA = ("'ctrl' expects the message: \"TEXT\" (escapes \\n \\t \\xHH ...), "
        "hex:HEX or a word")
TIME = ("'ctrl' expects the time after the TG's start, a time (s, or a "
        "unit: ns, us, ms, s)")
ERRORS = [
    ('ctrl 1s x\n' + BASE + "tgid 1\n",
     "t.idf:1:1: error: 'ctrl' goes in a TG's section (after its 'tgid'): "
     "a control message is sent by one TG"),
    (BASE + "tgid 1 ctrl\n", f"t.idf:2:13: error: {TIME}, got end of line"),
    (BASE + "tgid 1 ctrl soon x\n",
     f"t.idf:2:13: error: {TIME}, got 'soon'"),
    (BASE + "tgid 1 ctrl 1s\n", f"t.idf:2:16: error: {DATA}, got end of line"),
    (BASE + "tgid 1 ctrl 1s ttl 5\n",
     f"t.idf:2:16: error: {DATA}, got keyword 'ttl'"),
    (BASE + 'tgid 1 ctrl 1s "open # still text\n',
     f"t.idf:2:16: error: {DATA}, got '\"open # still text' "
     "(no closing '\"')"),
    (BASE + 'tgid 1 ctrl 1s "a\\q"\n',
     f"t.idf:2:16: error: {DATA}, got '\"a\\q\"' (unknown escape: use "
     "\\\\ \\\" \\n \\r \\t \\0 \\xHH)"),
    (BASE + 'tgid 1 ctrl 1s "\\x4"\n',
     f"t.idf:2:16: error: {DATA}, got '\"\\x4\"' ('\\x' takes two "
     "hexadecimal digits)"),
    (BASE + 'tgid 1 ctrl 1s "a"b\n',
     f"t.idf:2:16: error: {DATA}, got '\"a\"b' (text after the closing "
     "'\"')"),
    (BASE + "tgid 1 ctrl 1s hex:abc\n",
     f"t.idf:2:16: error: {DATA}, got 'hex:abc' ('hex:' takes pairs of "
     "hexadecimal digits)"),
    (BASE + f"tgid 1 ctrl 1s hex:{'00' * 1025}\n",
     f"t.idf:2:16: error: {DATA}, got 'hex:{'00' * 1025}' (longer than the "
     "1024 bytes a control message holds)"),
]


@pytest.mark.parametrize("text, message", ERRORS,
                         ids=["globals", "no time", "bad time", "no data",
                              "keyword", "unterminated", "escape", "\\x",
                              "after quote", "odd hex", "too long"])
def test_ctrl_errors(mtgctl, tmp_path, text, message):
    r = check(mtgctl, tmp_path, text)
    assert r.returncode == 1 and r.stdout == ""
    # A long diagnostic is cut, "..." at its end: compared so far.
    first = r.stderr.splitlines()[0]
    assert first == message or \
        (first.endswith("...") and message.startswith(first[:-3]))
    assert len(r.stderr.splitlines()) == 1, r.stderr


def test_ctrl_repeats_and_other_keywords_do_not(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, BASE + "tgid 1 ctrl 1 a ctrl 2 b ttl 3 ttl 4\n")
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "t.idf:2:32: error: 'ttl' given twice (first at line 2)"]


def test_run_refuses_a_bad_ctrl_before_the_device(mtgctl, tmp_path):
    (tmp_path / "t.idf").write_text(BASE + 'tgid 1 ctrl 1 "x\n')
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "--commands",
                        "--device", str(tmp_path / "none")], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "t.idf:2:15: error:" in r.stderr and "nothing started" in r.stderr


# --- keep: what receivers keep besides the header ---------------------------

@pytest.mark.parametrize("words, payload, bits", [
    ("", False, False), ("keep headers", False, False),
    ("keep payload", True, False), ("keep wrongbits", False, True),
    ("keep payload wrongbits", True, True),
    ("keep wrongbits payload", True, True),
])
def test_keep(mtgctl, tmp_path, words, payload, bits):
    r = check(mtgctl, tmp_path, BASE + f"tgid 1 {words}\n", "--json")
    assert r.returncode == 0, r.stderr
    (tg,) = json.loads(r.stdout)["tgs"]
    assert tg["keep"] == {"payload": payload, "wrong_bits": bits}


def test_keep_in_the_globals_and_overridden(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, "keep payload\n" + BASE +
              "tgid 1\ntgid 2 keep headers\n", "--json")
    tgs = json.loads(r.stdout)["tgs"]
    assert [t["keep"]["payload"] for t in tgs] == [True, False]
    assert "  keep payload\n" in check(mtgctl, tmp_path, "keep payload\n" +
                                       BASE + "tgid 1\n").stdout


@pytest.mark.parametrize("words, message", [
    ("keep", "t.idf:2:13: error: 'keep' expects 'headers', 'payload' or "
             "'wrongbits', got end of line"),
    ("keep all", "t.idf:2:13: error: 'keep' expects 'headers', 'payload' "
                 "or 'wrongbits', got 'all'"),
    ("keep payload payload", "t.idf:2:21: error: 'keep': 'payload' twice"),
])
def test_keep_errors(mtgctl, tmp_path, words, message):
    r = check(mtgctl, tmp_path, BASE + f"tgid 1 {words}\n")
    assert r.returncode == 1
    assert r.stderr.splitlines() == [message]
