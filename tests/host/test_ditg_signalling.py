# SPDX-License-Identifier: GPL-2.0-or-later
"""D-ITG's header and signalling on the host (no module; Documentation/
ditg.rst): the IDF's `header ditg` and `rcvr ditg`, and their errors;
`mtgctl run` setting its flows up with an unmodified ITGRecv (it then
stops at the module, which the host cannot load, and releases them);
`mtgctl recv --allow-ditg` answering an unmodified ITGSend, refusing
what it does not take in D-ITG's own words, and keeping out the D-ITG
senders it was not told to let in. What flows once set up is
tests/vm/test_ditg.py's."""

import json
import resource
import socket
import subprocess
import time

import pytest

from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.ditg import need

NO_DEVICE = "/nonexistent/mtg"


def check(tmp_path, text, *args):
    (tmp_path / "d.idf").write_text(text)
    return subprocess.run([MTGCTL, "check", "d.idf", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=30)


TG = ("tgid 1\n\tdev lo\n\tdst 127.0.0.1:9401\n\theader ditg\n"
      "\tdist fixed\n\tinta 10ms\n\tpkts fixed {len}\n")


def test_header_ditg_in_check(tmp_path):
    res = check(tmp_path, TG.format(len=58) + "\trcvr ditg 127.0.0.1\n")
    assert res.returncode == 0, res.stderr
    assert "header ditg: D-ITG's (flow id 1" in res.stdout
    assert "rcvr 127.0.0.1:9000 (agreed over D-ITG's signalling: an " \
        "ITGRecv, no key)" in res.stdout
    res = check(tmp_path, TG.format(len=58) + "\trcvr ditg 127.0.0.1\n",
                "--json")
    (tg,) = json.loads(res.stdout)["tgs"]
    assert (tg["header"], tg["rcvr_signalling"]) == ("ditg", "ditg")
    assert tg["pkts"]["min"] == 58


@pytest.mark.parametrize("rcvr,by", [
    ("\trcvr ditg 127.0.0.1\n", "ITGRecv's -m rttm"),
    ("", "a UDP echo at the destination"),
])
def test_ditg_round_trips_in_check(tmp_path, rcvr, by):
    """header ditg with meter rtt: the far end sends each payload back to
    the TG's source port, unstamped (no reflector slot)."""
    res = check(tmp_path, TG.format(len=100) + "\tmeter rtt\n" + rcvr)
    assert res.returncode == 0, res.stderr
    assert "meter rtt: D-ITG's payloads sent back to port 4001 as they " \
        f"came ({by}), recorded on lo" in res.stdout
    res = check(tmp_path, TG.format(len=100) + "\tmeter rtt\n" + rcvr,
                "--json")
    (tg,) = json.loads(res.stdout)["tgs"]
    assert (tg["meter"], tg["rtt_slot"]) == ("rtt", None)


ERRORS = [
    (TG.format(len=57),
     "d.idf:7:2: error: TG 1: 'pkts' 57 is below the smallest IPv4 frame, "
     "58 bytes (Ethernet 14 + IPv4 20 + UDP 8 + D-ITG header 16)"),
    (TG.format(len=200) + "\tkeep payload\n",
     "d.idf:4:2: error: TG 1: 'header ditg' has no flags to ask receivers "
     "to keep anything"),
    (TG.format(len=200) + "\tmeter rtt\n\trcvr 127.0.0.1\n",
     "d.idf:4:2: error: TG 1: 'header ditg' with 'meter rtt' and an mtgctl "
     "recv: its reflector sends back MTG headers only"),
    (TG.format(len=200) + "\tctrl 1s hello\n",
     "d.idf:8:2: error: TG 1: 'ctrl' needs the MTG header"),
    (TG.format(len=200).replace("\theader ditg\n", "") +
     "\trcvr ditg 127.0.0.1\n",
     "d.idf:7:2: error: TG 1: 'rcvr ditg' is an ITGRecv, which reads "
     "D-ITG's header only: give 'header ditg'"),
    (TG.format(len=200).replace("header ditg", "header d-itg"),
     "d.idf:4:9: error: 'header' expects 'mtg' or 'ditg', got 'd-itg'"),
]


@pytest.mark.parametrize("text,message", ERRORS)
def test_errors(tmp_path, text, message):
    res = check(tmp_path, text)
    assert res.returncode == 1
    assert message in res.stderr, res.stderr


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as s:
            if not s.connect_ex(("127.0.0.1", port)):
                return
        assert proc.poll() is None, "it exited"
        assert time.monotonic() < deadline, f"nothing listens on {port}"
        time.sleep(0.05)


def test_run_sets_flows_up_with_itgrecv(tmp_path):
    """Both TGs' flows are set up over D-ITG's signalling: the real
    ITGRecv binds their ports (it says so); then the run stops at the
    module, having sent nothing, and releases the connection."""
    need("ITGRecv")
    sig = free_port()
    p1, p2 = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_DGRAM)
    out = tmp_path / "recv.out"
    recv = subprocess.Popen(["ITGRecv", "-Sp", str(sig)], cwd=tmp_path,
                            stdout=open(out, "w"), stderr=subprocess.STDOUT)
    try:
        # ITGRecv's signalling takes one connection at a time: the probe's
        # (closed at once) must be over before the sender's
        wait_listening(sig, recv)
        time.sleep(0.5)
        text = ""
        for tg, port in ((1, p1), (2, p2)):
            text += (f"tgid {tg}\n\tdev lo\n\tdst 127.0.0.1:{port}\n"
                     f"\theader ditg\n\trcvr ditg 127.0.0.1:{sig}\n"
                     "\tdist fixed\n\tinta 10ms\n\tpkts fixed 100\n"
                     "\tcount 10\n")
        (tmp_path / "d.idf").write_text(text)
        res = subprocess.run([MTGCTL, "run", "d.idf", "--batch", "--device",
                              NO_DEVICE], cwd=tmp_path, capture_output=True,
                             text=True, timeout=120)
        deadline = time.monotonic() + 10
        while out.read_text().count("Listening on UDP port") < 2:
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.1)
    finally:
        recv.terminate()
        recv.wait(timeout=30)
    assert res.returncode == 1, res
    assert "2 TGs agreed with 1 receiver over TSP" in res.stdout
    assert "cannot open " + NO_DEVICE in res.stderr
    said = out.read_text()
    assert f"Listening on UDP port : {p1}" in said
    assert f"Listening on UDP port : {p2}" in said


def many_flows(tmp_path, n, rcvr):
    (tmp_path / "d.idf").write_text(
        "dev lo\ndist fixed\ninta 10ms\npkts fixed 100\ncount 10\n"
        f"header ditg\ntgid 1-{n}\n    dst 127.0.0.1:{{20000 + n}}\n"
        f"    rcvr ditg {rcvr}\n")
    return subprocess.run([MTGCTL, "run", "d.idf", "--batch", "--device",
                           NO_DEVICE], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


def test_an_itgrecv_takes_400_connections(tmp_path):
    """An ITGRecv dies at its 401st signalling connection (a fixed table
    it never reuses), and each flow is one: more than 400 flows to one
    ITGRecv are refused before any is asked; split by a template, each
    ITGRecv gets its share. Nothing listens here: the refusal comes first,
    and an ITGRecv that cannot be reached is said once, not once a flow."""
    port = free_port()
    res = many_flows(tmp_path, 401, f"127.0.0.1:{port}")
    assert res.returncode == 1
    assert res.stderr.startswith(
        f"mtgctl: 401 flows to the ITGRecv at 127.0.0.1:{port}: an ITGRecv "
        "takes at most 400 signalling connections in its life"), res.stderr
    assert "cannot connect" not in res.stderr
    # no wildcard listener has the port (free_port bound it): none on
    # 127.0.0.2 and .3 either
    res = many_flows(tmp_path, 401, "127.0.0.{2 + (n - 1) / 201}:%d" % port)
    assert res.returncode == 1
    assert res.stderr.splitlines()[:3] == [
        f"mtgctl: cannot connect to the receiver 127.0.0.2:{port}: "
        "Connection refused (is ITGRecv running there?) (and 200 more "
        "flows to it, not tried)",
        f"mtgctl: cannot connect to the receiver 127.0.0.3:{port}: "
        "Connection refused (is ITGRecv running there?) (and 199 more "
        "flows to it, not tried)",
        "d.idf: nothing started"], res.stderr


def test_more_flows_than_the_soft_file_limit(tmp_path):
    """A connection a flow: with a soft limit of 64 files (the hard one
    higher), 100 flows still agree with a real ITGRecv: mtgctl raises its
    soft limit as far as the hard one lets it."""
    need("ITGRecv")
    sig = free_port()
    recv = subprocess.Popen(["ITGRecv", "-Sp", str(sig)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == resource.RLIM_INFINITY or hard > 400
    try:
        wait_listening(sig, recv)
        time.sleep(0.5)
        (tmp_path / "d.idf").write_text(
            "dev lo\ndist fixed\ninta 10ms\npkts fixed 100\ncount 10\n"
            f"header ditg\ntgid 1-100\n    dst 127.0.0.1:{{20000 + n}}\n"
            f"    rcvr ditg 127.0.0.1:{sig}\n")
        res = subprocess.run(
            [MTGCTL, "run", "d.idf", "--batch", "--device", NO_DEVICE],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                  (64, hard)))
    finally:
        recv.terminate()
        recv.wait(timeout=30)
    assert res.returncode == 1, res
    assert "100 TGs agreed with 1 receiver over TSP" in res.stdout, res
    assert "cannot open " + NO_DEVICE in res.stderr


def itgsend(port, *args):
    return subprocess.run(["ITGSend", "-a", "127.0.0.1", "-Sdp", str(port),
                           "-rp", "9401", "-C", "10", "-c", "100", "-t",
                           "500", *args], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("allowed,args,said", [
    (None, ["-T", "UDP"],
     "a D-ITG sender (TSP_CONNECT): not taken, D-ITG has no authentication"
     " (mtgctl recv --allow-ditg)"),
    ("127.0.0.2", ["-T", "UDP"], "a D-ITG sender (TSP_CONNECT): not taken"),
    ("127.0.0.1", ["-T", "TCP"],
     "D-ITG flow 1 to 127.0.0.1:9401 refused: protocol 1: this receiver "
     "takes UDP (2) only"),
    ("127.0.0.1", ["-T", "UDP", "-m", "rttm"],
     "D-ITG flow 1 to 127.0.0.1:9401 refused: D-ITG's round trips (-m "
     "rttm): this receiver sends nothing back (mtgctl recv --rtt)"),
    # consented: the reflector is attached, then let go with the run
    ("127.0.0.1 --rtt", ["-T", "UDP", "-m", "rttm"],
     "D-ITG flow 1 to 127.0.0.1:9401 refused: the receive path could not "
     "be opened: " + NO_DEVICE),
    ("127.0.0.1", ["-T", "UDP", "-p", "1"],
     "D-ITG flow 1 to 127.0.0.1:9401 refused: payload type 1"),
    ("127.0.0.1", ["-T", "UDP"],
     "D-ITG flow 1 to 127.0.0.1:9401 refused: the receive path could not "
     "be opened: " + NO_DEVICE),
], ids=["not-allowed", "other-address", "tcp", "rttm", "rttm-consented",
        "short", "no-module"])
def test_itgsend_at_recv(tmp_path, allowed, args, said):
    """What recv says to an unmodified ITGSend: a sender it was not told
    to let in is closed on without a word (ITGSend reads none); a flow it
    does not take gets D-ITG's only refusal, TSP_ERR_MSG_2 (ITGSend: an
    error on bind at the receiver); recv logs why, under valgrind, and
    serves on, and lets go of what it took for the flow (the reflector of
    a round trip)."""
    need("ITGSend")
    tspd.key_file(tmp_path / "k")
    opts = ["--device", NO_DEVICE] + \
        (["--allow-ditg", *allowed.split()] if allowed else [])
    # valgrind cannot tell what the bpf() syscall reads: not where recv
    # loads the reflector
    recv = tspd.Recv(tmp_path / "k", tmp_path, *opts,
                     valgrind="--rtt" not in opts)
    try:
        for _ in range(2):
            res = itgsend(recv.port, *args)
            assert "Finished sending" not in res.stdout or \
                "Error" in res.stdout + res.stderr, res
    finally:
        rc, log = recv.stop()
    assert rc == 0, log
    assert log.count(said) == 2, log
    if allowed and allowed.startswith("127.0.0.1"):
        assert "a D-ITG sender, let in by --allow-ditg" in log
    assert not list(tmp_path.glob("run-*")), "a run left files"
    listed = subprocess.run([MTGCTL, "reflect", "list", "lo"],
                            capture_output=True, text=True)
    assert listed.stdout == "no reflectors\n", listed


def test_ditg_session_out_of_order(tmp_path):
    """A D-ITG session that says what D-ITG never would, or bytes that are
    no message: each ends it without a word (D-ITG has no error message),
    and recv serves the next."""
    tspd.key_file(tmp_path / "k")
    recv = tspd.Recv(tmp_path / "k", tmp_path, "--device", NO_DEVICE,
                     "--allow-ditg", "127.0.0.1", valgrind=True)
    try:
        for body in (b"\x04\x00\x00\x00\x09",     # close of no flow
                     b"\x11\x00\x00\x00\x01",     # CLOSED_ERR
                     tspd.frame(0x80, tspd.HELLO_S),   # mtg's hello, now
                     b"\xfe" * 64):                   # no message at all
            p = tspd.Peer(recv.port)
            p.send(b"\x01")
            assert p.read() == (2, b"")
            p.send(body)
            assert p.closed(), body
        p = tspd.Peer(recv.port)
        p.send(b"\x01")
        assert p.read() == (2, b"")
        p.send(b"\x0b")
        assert p.read() == (7, b"")
        assert p.closed()
    finally:
        rc, log = recv.stop()
    assert rc == 0, log
    assert "D-ITG sender closed flow 9, which is not open" in log
    # undecodable: logged, and closed on without mtg's TSP_ERROR
    assert "field type at byte 1: unknown type 0xfe" in log
