# SPDX-License-Identifier: GPL-2.0-or-later
"""`tgid LO-HI` ranges and their {EXPR} templates (Documentation/idf.rst,
"Many TGs from one block"): a range makes exactly the TGs the same file
written out TG by TG makes (the written-out file is read by the parser's
ordinary path, the values in it computed here by Python), a thousand
hosts among them; its errors say where, once, naming the TGs."""

import json

import pytest

from test_mtgctl_idf import check, check_json, write

HEAD = """\
dev eth0
dist exponential
pkts 130
inta 1ms
time relative 0 10s
"""


def without_place(tgs):
    """The TGs as check --json gives them, less where they were written."""
    for tg in tgs:
        tg.pop("line")
        tg.pop("range", None)
    return tgs


def written_out(ids, lines):
    """The file a range stands for: every TG on its own, each value
    computed here."""
    text = HEAD
    for n in ids:
        text += f"tgid {n}\n" + "".join(f"    {line(n)}\n" for line in lines)
    return text


HOSTS = [lambda n: f"netns h{n}",
         lambda n: f"src 10.{n // 250}.{n % 250}.1",
         lambda n: f"dst 10.255.0.1:{9000 + n}"]
HOSTS_RANGE = """\
tgid 1-1000
    netns h{n}
    src 10.{n / 250}.{n % 250}.1
    dst 10.255.0.1:{9000 + n}
"""


def test_a_thousand_hosts_are_the_file_written_out(mtgctl, tmp_path):
    ranged = check_json(mtgctl, tmp_path, HEAD + HOSTS_RANGE)
    assert [tg["id"] for tg in ranged] == list(range(1, 1001))
    assert all(tg["range"] == [1, 1000] and tg["line"] == 6 for tg in ranged)
    plain = check_json(mtgctl, tmp_path, written_out(range(1, 1001), HOSTS))
    assert "range" not in plain[0]
    assert without_place(ranged) == without_place(plain)
    # spot checks of what the comparison rests on
    assert ranged[249]["netns"] == "h250"
    assert ranged[249]["src"]["addr"] == "10.1.0.1"
    assert ranged[999]["dst"]["port"] == 10000


def test_hosts_draw_their_own_gaps(mtgctl, tmp_path):
    """Each TG of a range has its own seed (its tgid), so no two hosts'
    timetables are the same: the hosts are not lock-stepped."""
    tgs = check_json(mtgctl, tmp_path, HEAD + HOSTS_RANGE.replace(
        "1-1000", "1-50") + "    count 20\n")
    assert [tg["seed"] for tg in tgs] == list(range(1, 51))
    tables = {json.dumps(tg["table"]["entries"]) for tg in tgs}
    assert len(tables) == 50


def test_expressions(mtgctl, tmp_path):
    """Precedence, parentheses, a leading minus, division toward zero and
    the remainder's sign as C has them, blanks inside the braces."""
    exprs = ["n", "2 + 3 * n", "(2 + 3) * n", "-n + 100", "(n - 10) / 3",
             "(n - 10) % 3", "n*n%97", "100 - -n", "((n))"]

    def c_div(a, b):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q

    py = {"n": lambda n: n, "2 + 3 * n": lambda n: 2 + 3 * n,
          "(2 + 3) * n": lambda n: 5 * n, "-n + 100": lambda n: 100 - n,
          "(n - 10) / 3": lambda n: c_div(n - 10, 3),
          "(n - 10) % 3": lambda n: (n - 10) - 3 * c_div(n - 10, 3),
          "n*n%97": lambda n: n * n % 97, "100 - -n": lambda n: 100 + n,
          "((n))": lambda n: n}
    for expr in exprs:
        # the value lands in a port: 9000 + (value + 100) keeps it valid
        tgs = check_json(mtgctl, tmp_path, HEAD + f"tgid 1-20 dst "
                         f"10.0.0.1:{{9100 + ({expr})}}\n")
        got = [tg["dst"]["port"] for tg in tgs]
        assert got == [9100 + py[expr](n) for n in range(1, 21)], expr


def test_range_ends_at_the_next_tgid_line(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, HEAD + """\
        tgid 1-3 dst 10.0.0.1:{9000 + n}   # a comment
            # blank lines and comments belong to the range too

            ttl {n + 10}
        tgid 7 dst 10.0.0.2:9000
        """.replace("        ", ""))
    assert [(tg["id"], tg["dst"]["port"], tg["ttl"]) for tg in tgs] == \
        [(1, 9001, 11), (2, 9002, 12), (3, 9003, 13), (7, 9000, 64)]
    assert "range" not in tgs[3]


def test_quoted_braces_are_kept(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, HEAD + 'tgid 1-2 dst 10.0.0.1:{n}\n'
                     '    ctrl 1s "{n} as written"\n')
    assert [tg["dst"]["port"] for tg in tgs] == [1, 2]
    r = check(mtgctl, tmp_path, HEAD + 'tgid 1 dst 10.0.0.1:9\n'
              '    ctrl 1s "{n}"\n')
    assert r.returncode == 0, r.stderr


def test_a_range_in_an_included_file_ends_with_it(mtgctl, tmp_path):
    write(tmp_path, "tgid 1-2 dst 10.0.0.1:{9000 + n}\n", "hosts.idf")
    tgs = check_json(mtgctl, tmp_path, HEAD + "include hosts.idf\n"
                     "tgid 3 dst 10.0.0.1:9\n")
    assert [(tg["id"], tg["dst"]["port"]) for tg in tgs] == \
        [(1, 9001), (2, 9002), (3, 9)]


@pytest.mark.parametrize("body, message", [
    ("tgid 5-2 dst 10.0.0.1:9\n",
     "t.idf:6:6: error: the range '5-2' ends before it starts\n"),
    ("tgid 1-x dst 10.0.0.1:9\n",
     "t.idf:6:6: error: 'tgid' expects a TG number or a range LO-HI of them "
     "(1 to 4294967295), got '1-x'\n"),
    ("tgid 0-3 dst 10.0.0.1:9\n",
     "t.idf:6:6: error: 'tgid' expects a TG number or a range LO-HI of them "
     "(1 to 4294967295), got '0-3'\n"),
    ("tgid 1-2000000 dst 10.0.0.1:9\n",
     "t.idf:6:6: error: the range '1-2000000' makes 2000000 TGs; at most "
     "1048576\n"),
    ("tgid 1-3 dst 10.0.0.1:{n + }\n",
     "t.idf:6:28: error: TGs 1..3: in the template of '10.0.0.1:{n + }': "
     "expected a whole number, 'n' or '('\n"),
    ("tgid 1-3 dst 10.0.0.1:{(n}\n",
     "t.idf:6:26: error: TGs 1..3: in the template of '10.0.0.1:{(n}': "
     "expected ')'\n"),
    ("tgid 1-3 dst 10.0.0.1:{n:9\n",
     "t.idf:6:25: error: TGs 1..3: in the template of '10.0.0.1:{n:9': "
     "expected an operator or '}'\n"),
    ("tgid 1-3 dst 10.0.0.1:n}\n",
     "t.idf:6:24: error: TGs 1..3: '}' without its '{' in '10.0.0.1:n}'\n"),
    ("tgid 1-3 dst 10.0.0.1:{99999999999999999999}\n",
     "t.idf:6:42: error: TGs 1..3: in the template of "
     "'10.0.0.1:{99999999999999999999}': the number is too large\n"),
    ("tgid 1-3 dst 10.0.0.1:{9000 + 100 / (n - 1)}\n",
     "t.idf:6:35: error: TG 1: in the template of "
     "'10.0.0.1:{9000 + 100 / (n - 1)}': divides by zero\n"),
    ("tgid 1-3 dst 10.0.0.1:9 ttl {n + 253}\n",
     "t.idf:6:29: error: TG 3: 'ttl' expects a number from 1 to 255, "
     "got '256'\n"),
    ("tgid 1-3 dst 10.0.0.1:9 foo\n",
     "t.idf:6:25: error: TGs 1..3: unknown keyword 'foo'; did you mean "
     "'cos'?\n"),
    ("tgid 1 dst 10.0.0.1:{n}\n",
     "t.idf:6:12: error: '10.0.0.1:{n}': a template {...} is only read in "
     "the lines of a 'tgid LO-HI' range\n"),
    ("tgid 1-3 dst 10.0.0.1:9\n    ttl 9 tgid 7\n",
     "t.idf:7:11: error: TGs 1..3: 'tgid' inside the range of line 6: a TG "
     "starts a line of its own\n"),
    ("tgid 1-3 dst 10.0.0.1:9\n    include x.idf\n",
     "t.idf:7:5: error: TGs 1..3: 'include' inside the range of line 6: "
     "include the file before the range, or write the range in it\n"),
    ("tgid 1 dst 10.0.0.1:9 tgid 2-3\n",
     "t.idf:6:28: error: a range 'tgid 2-3' starts a line of its own\n"),
    ("tgid 2 dst 10.0.0.1:9\ntgid 1-3 dst 10.0.0.1:9\n",
     "t.idf:7:6: error: TG 2: duplicate tgid 2 (first at line 6)\n"),
])
def test_errors(mtgctl, tmp_path, body, message):
    """Each error once, at its place (a template's column is the
    character that is wrong), naming the TGs it is about; the keyword
    whose value is in error is not also reported missing."""
    r = check(mtgctl, tmp_path, HEAD + body)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", message)
