# SPDX-License-Identifier: GPL-2.0-or-later
"""Round trips over TSP on the host (Documentation/tsp.rst, "Round
trips"): the IDF's `meter rtt`, and what `mtgctl recv` does with a flow
that asks to be sent back before any packet may leave: refused unless the
receiver was started with --rtt; refused when the interface's reflector
cannot serve it (one for every flow, or another slot); and the reflector
it attached for a flow it then refused is gone again.

The host cannot load mtg.ko, so every flow is refused in the end (`bind`,
the receive path, which comes after the reflector); the round trips
themselves are tests/vm/test_tsp_rtt.py's."""

import json
import subprocess

import pytest

from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.system import run, unique
from test_ebpf_probe import _missing

NO_DEVICE = "/nonexistent/mtg"

IDF = """\
key {key}
tgid 1
	dist fixed
	pkts fixed 200
	inta 10ms
	count 10
	dev {dev}
	dst {dst}:5000
	rcvr {dst}:{port}
	meter rtt{slot}
"""


def check(tmp_path, text):
    idf = tmp_path / "t.idf"
    idf.write_text(text)
    return subprocess.run([MTGCTL, "check", idf], capture_output=True,
                          text=True, timeout=30, cwd=tmp_path)


def test_meter_in_check(tmp_path):
    tspd.key_file(tmp_path / "k")
    res = check(tmp_path, IDF.format(key="k", dev="lo", dst="127.0.0.1",
                                     port=9000, slot=" slot 1"))
    assert res.returncode == 0, res.stderr
    assert "meter rtt: reflected back, stamped in slot 1, recorded on lo" \
        in res.stdout
    out = subprocess.run([MTGCTL, "check", tmp_path / "t.idf", "--json"],
                         capture_output=True, text=True, timeout=30)
    tg = json.loads(out.stdout)["tgs"][0]
    assert (tg["meter"], tg["rtt_slot"]) == ("rtt", 1)
    res = check(tmp_path, IDF.format(key="k", dev="lo", dst="127.0.0.1",
                                     port=9000, slot="").replace(
                                         "meter rtt", "meter owd"))
    assert res.returncode == 0, res.stderr
    assert "meter rtt" not in res.stdout


BASE = "tgid 1\n\tdev lo\n\tdst 127.0.0.1:5000\n\tpkts fixed 200\n"
ERRORS = [
    (BASE + "\tmeter rtt slot 4\n", "t.idf:5:17: error: 'meter' expects a slot, 0 to 3"),
    (BASE + "\tmeter owd slot 1\n", "t.idf:5:12: error: 'meter' expects nothing after 'owd', got 'slot'"),
    (BASE + "\tmeter rtt 2\n", "t.idf:5:12: error: 'meter' expects 'slot K', got '2'"),
    (BASE + "\tmeter both\n", "t.idf:5:8: error: 'meter' expects 'owd' or 'rtt', got 'both'"),
    ("probe lo slot 3\n" + BASE + "\tmeter rtt\n",
     "t.idf:6:2: error: TG 1: 'meter rtt' has the reflector stamp slot 3, which the probe on lo (line 1) writes"),
    (BASE.replace("\tdst 127.0.0.1:5000\n", "\taddr broadcast 5000\n")
     + "\tmeter rtt\n",
     "error: TG 1: 'meter rtt' measures round trips to one station"),
]


@pytest.mark.parametrize("text,message", ERRORS)
def test_meter_errors(tmp_path, text, message):
    res = check(tmp_path, text)
    assert res.returncode == 1
    assert message in res.stderr, res.stderr


needs_root = pytest.mark.skipif(_missing() is not None,
                                reason=str(_missing()))


@pytest.fixture
def host(tmp_path):
    """A namespace with a veth pair: the sender's end (a) and the
    receiver's (b, 10.77.0.2), and the key."""
    ns, a, b = unique("rttns"), unique("ra"), unique("rb")
    run("ip", "netns", "add", ns)
    try:
        run("ip", "-n", ns, "link", "add", a, "type", "veth", "peer",
            "name", b)
        run("ip", "-n", ns, "addr", "add", "10.77.0.1/24", "dev", a)
        run("ip", "-n", ns, "addr", "add", "10.77.0.2/24", "dev", b)
        for dev in (a, b, "lo"):
            run("ip", "-n", ns, "link", "set", dev, "up")
        tspd.key_file(tmp_path / "k")
        yield ns, a, b
    finally:
        run("ip", "netns", "del", ns)


def send(tmp_path, ns, a, port, slot=""):
    (tmp_path / "r.idf").write_text(IDF.format(
        key="k", dev=a, dst="10.77.0.2", port=port, slot=slot))
    return subprocess.run(["ip", "netns", "exec", ns, MTGCTL, "run", "r.idf",
                           "--batch"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


def has_xdp(ns, dev):
    return " xdp" in run("ip", "-n", ns, "link", "show", dev).stdout


# (recv's options, what runs before it, the refusal the sender reads)
REFUSALS = [
    ("no-consent", [], None,
     "refused the flow (protocol): round trips (meter rtt): this receiver "
     "sends nothing back (mtgctl recv --rtt)"),
    ("every-flow", ["--rtt"], "{mtgctl} reflect attach {b} --slot 3",
     "refused the flow (bind): {b} has mtg's reflector for every flow"),
    ("other-slot", ["--rtt"],
     "{mtgctl} reflect attach {b} --slot 2 --flows 7:7",
     "refused the flow (tg): the reflector on {b} stamps slot 2, not the "
     "slot 3 the TG asks for"),
    ("receive-path", ["--rtt"], None,
     "refused the flow (bind): the receive path could not be opened"),
]


@needs_root
@pytest.mark.parametrize("case,opts,before,said", REFUSALS,
                         ids=[r[0] for r in REFUSALS])
def test_refused_round_trips(tmp_path, host, case, opts, before, said):
    """Each refusal reaches the real sender, which starts nothing; the
    receiver leaves no reflector of its own behind, and one that was
    there before stays."""
    ns, a, b = host
    if before:
        before = before.format(mtgctl=MTGCTL, b=b)
    recv = tspd.Recv(tmp_path / "k", tmp_path, "--device", NO_DEVICE, *opts,
                     netns=ns, before=before)
    try:
        res = send(tmp_path, ns, a, recv.port)
        assert res.returncode == 1, res
        assert said.format(b=b) in res.stderr, res.stderr
        assert "r.idf: nothing started" in res.stderr
        assert has_xdp(ns, b) == bool(before), \
            run("ip", "-n", ns, "link", "show", b).stdout
    finally:
        rc, log = recv.stop()
    assert rc == 0, log
    assert has_xdp(ns, b) == bool(before)
    assert not list(tmp_path.glob("run-*")), "a run left files"
