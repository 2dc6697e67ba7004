# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl recv`, the receiver daemon, on the host (no module): the
consent a sender must pass before a flow is opened, shown end to end with
the real sender (`mtgctl run` with `rcvr`), and a malicious peer that
sends truncated, oversized, out-of-order and forged messages and opens
1,000 connections it abandons, while the daemon runs under valgrind and
must keep serving, answer each with a clear error and leak nothing.

The host cannot load mtg.ko: a flow that passes every check is refused
`bind` (the daemon is pointed at a device file that does not exist, so
this holds on any host). What is received once a flow is accepted is
tests/vm/test_tsp_hosts.py's."""

import os
import re
import socket
import subprocess
import time

import pytest

from mtgtest import tspd
from mtgtest.ctl import MTGCTL

NO_DEVICE = "/nonexistent/mtg"

IDF = """\
key {key}
tgid 1
	dist fixed
	pkts fixed 200
	thro {thro}
	time relative 0 1s
	dev lo
	dst {dst}
	rcvr 127.0.0.1:{port}
"""


def run_idf(tmp_path, port, key, dst="127.0.0.1:5000", thro="1M"):
    idf = tmp_path / "remote.idf"
    idf.write_text(IDF.format(key=key, port=port, dst=dst, thro=thro))
    return subprocess.run([MTGCTL, "run", idf, "--batch"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def keys(tmp_path):
    return (tspd.key_file(tmp_path / "a.key"),
            tspd.key_file(tmp_path / "b.key"))


def test_recv_needs_a_private_key(tmp_path):
    res = subprocess.run([MTGCTL, "recv", "--port", "1"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 1
    assert "--key FILE is needed" in res.stderr
    key = tmp_path / "open.key"
    tspd.key_file(key)
    os.chmod(key, 0o644)
    res = subprocess.run([MTGCTL, "recv", "--key", key, "--port", "1"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 1
    assert "chmod 600" in res.stderr


def test_rcvr_needs_a_key_in_the_idf(tmp_path):
    idf = tmp_path / "nokey.idf"
    idf.write_text(IDF.format(key="k", port=9, dst="127.0.0.1:5000",
                              thro="1M").replace("key k\n", ""))
    res = subprocess.run([MTGCTL, "check", idf], capture_output=True,
                         text=True, timeout=30)
    assert res.returncode == 1
    assert "nokey.idf:8:2: error: TG 1: 'rcvr' needs the global 'key FILE'" \
        in res.stderr


# (what the IDF or the receiver changes, the refusal, the sender's words)
REFUSALS = [
    ("wrong-key", {"key": "b.key"}, [],
     "refused: auth-failed: the sender's proof is wrong"),
    ("port", {"dst": "127.0.0.1:80"}, [],
     "refused the flow (port): port 80 is outside the 1024-65535"),
    ("ports-option", {}, ["--ports", "6000-6100"],
     "refused the flow (port): port 5000 is outside the 6000-6100"),
    ("rate", {"thro": "2M"}, ["--max-rate", "1M"],
     "refused the flow (rate): 2000000 bit/s is over the 1000000 bit/s"),
    ("address-offered", {}, ["--addr", "127.0.0.2"],
     "refused the flow (address): 127.0.0.1 is not an address this receiver offers"),
    ("address-of-host", {"dst": "192.0.2.1:5000"}, [],
     "refused the flow (address): 192.0.2.1 is not an address of this host"),
    ("receive-path", {}, [],
     "refused the flow (bind): the receive path could not be opened: "
     + NO_DEVICE),
]


@pytest.mark.parametrize("case,idf,opts,said", REFUSALS,
                         ids=[r[0] for r in REFUSALS])
def test_refusals_reach_the_sender(tmp_path, keys, case, idf, opts, said):
    """The real sender is refused with the receiver's reason, starts
    nothing (exit 1, before the module is even opened), and the daemon
    logs the same refusal and keeps serving."""
    recv = tspd.Recv(tmp_path / "a.key", tmp_path, "--device", NO_DEVICE,
                     *opts)
    try:
        args = {"key": "a.key", **idf}
        # twice: the daemon serves on after a refusal
        for _ in range(2):
            res = run_idf(tmp_path, recv.port, **args)
            assert res.returncode == 1, res
            assert said in res.stderr
            assert "remote.idf: nothing started" in res.stderr
            assert "run_id" not in res.stdout, "a run was started"
    finally:
        rc, log = recv.stop()
    assert rc == 0, log
    assert said.split(": ", 1)[-1].split(" (")[0].split(":")[0] in log
    assert not list(tmp_path.glob("run-*")), "a run left files"


def test_no_receiver_listening(tmp_path, keys):
    res = run_idf(tmp_path, tspd.free_port(), "a.key")
    assert res.returncode == 1
    assert "cannot connect to the receiver 127.0.0.1:" in res.stderr
    assert "Connection refused (is `mtgctl recv` running there?)" in res.stderr


def test_malicious_peers(tmp_path, keys):
    """Every malformed, forged or out-of-order opening gets its TSP_ERROR
    and the connection ends; abandoned connections cost nothing kept;
    the daemon serves a good sender after all of it, and valgrind finds no
    error and no leak in it."""
    key, _ = keys
    recv = tspd.Recv(tmp_path / "a.key", tmp_path, "--device", NO_DEVICE,
                     valgrind=True)
    port = recv.port
    try:
        # truncated: half a hello, then the end
        p = tspd.Peer(port)
        p.send(tspd.frame(0x80, tspd.HELLO_S)[:9])
        p.s.shutdown(socket.SHUT_WR)
        code, text = p.error()
        assert code == 6 and "truncated" in text, text
        assert p.closed()

        # an absurd length: refused before anything is held
        p = tspd.Peer(port)
        p.send(b"\x84M\xff\xff\xff\xff")
        code, text = p.error()
        assert code == 6 and "bad length" in text, text
        assert p.closed()

        # an unknown type
        p = tspd.Peer(port)
        p.send(b"\x99")
        assert p.error() == (6, "bad type: a message at byte 0, field type "
                             "at byte 0: mtg type 0x99 is not one of TSP 1.0")
        assert p.closed()

        # a flow before the hello; then one before the proof
        p = tspd.Peer(port)
        p.send(tspd.flow_req(1, 7, 5000))
        assert p.error() == (7, "a connection opens with TSP_HELLO")
        assert p.closed()
        p = tspd.Peer(port)
        p.hello()
        p.send(tspd.flow_req(1, 7, 5000))
        assert p.error() == (5, "a flow before authentication")
        assert p.closed()

        # a wrong key; then a proof replayed on another connection
        p = tspd.Peer(port)
        nonce_r, lifetime = p.hello()
        assert lifetime == 10000
        p.send(tspd.frame(0x82, p.auth_body(bytes(32), nonce_r)))
        code, text = p.error()
        assert code == 2, text
        assert p.closed()
        p = tspd.Peer(port)
        nonce_r, _ = p.hello()
        good = p.auth_body(key, nonce_r)
        p.send(tspd.frame(0x82, good))
        assert p.read()[0] == 0x83
        p.close()
        p = tspd.Peer(port)
        p.hello()
        p.send(tspd.frame(0x82, good))
        code, text = p.error()
        assert code == 2, text
        assert p.closed()

        # the sender's nonce equal to the receiver's: a reflection
        p = tspd.Peer(port)
        nonce_r, _ = p.hello()
        p.send(tspd.frame(0x82, p.auth_body(key, nonce_r, nonce_r)))
        code, text = p.error()
        assert code == 3, text
        assert p.closed()

        # D-ITG's opening: closed without a word (ITGSend reads no error)
        p = tspd.Peer(port)
        p.send(b"\x01")
        assert p.closed()

        # after authentication: a close of a flow never opened, a TG
        # whose JSON disagrees with the request (refused, served on)
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(tspd.flow_req(3, 7, 5000, tg='{"id":4,"dst":{"port":5000}}'))
        assert tspd.flow_ack(p.read()) == (
            3, 9, 0, 'the TG\'s JSON has an "id" other than the flow id 3')
        p.send(tspd.flow_req(3, 7, 5000, tg="not json"))
        fid, code, _, reason = tspd.flow_ack(p.read())
        assert (fid, code) == (3, 9) and "does not parse" in reason
        p.send(tspd.flow_req(3, 7, 5000))
        assert tspd.flow_ack(p.read())[1] == 8       # bind: no module here
        p.send(b"\x04\x00\x00\x00\x03")
        assert p.error() == (7, "flow 3 is not open")
        assert p.closed()

        # 1,000 connections opened and abandoned, 300 held at once
        tspd.abandon(port, 1000, 300)

        # and a good sender is served
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(tspd.flow_req(1, 8, 5000))
        assert tspd.flow_ack(p.read())[1] == 8
        p.send(b"\x0b")
        assert p.read() == (7, b"")
        assert p.closed()
    finally:
        rc, log = recv.stop()
    assert rc == 0, log
    assert "refused: already 256 connections" in log


def test_expired_challenge(tmp_path, keys):
    """A proof sent after the challenge's 10 s is refused auth-expired."""
    key, _ = keys
    recv = tspd.Recv(tmp_path / "a.key", tmp_path, "--device", NO_DEVICE)
    try:
        p = tspd.Peer(recv.port)
        nonce_r, lifetime = p.hello()
        time.sleep(lifetime / 1000 + 0.3)
        p.send(tspd.frame(0x82, p.auth_body(key, nonce_r)))
        code, text = p.error()
        assert code == 4, text
    finally:
        rc, log = recv.stop()
    assert rc == 0 and "auth-expired" in log


@pytest.mark.parametrize("shift_ms", [0, 7, 250])
def test_clock_estimate_finds_an_injected_offset(tmp_path, keys, shift_ms):
    """The receiver acts as if its clock were SHIFT ahead (--clock-shift:
    its TSP time answers; its receive stamps too): the sender's estimate,
    made before any flow is requested, is within its stated uncertainty
    of it."""
    recv = tspd.Recv(tmp_path / "a.key", tmp_path, "--device", NO_DEVICE,
                     "--clock-shift", f"{shift_ms}ms")
    try:
        res = run_idf(tmp_path, recv.port, "a.key")
    finally:
        recv.stop()
    m = re.search(r"receiver 127\.0\.0\.1:\d+: its clock ([+-]\d+) ns from "
                  r"ours, \+- (\d+) ns \(best of 8 exchanges\)", res.stdout)
    assert m, res.stdout + res.stderr
    offset, uncertainty = int(m.group(1)), int(m.group(2))
    assert abs(offset - shift_ms * 10**6) <= uncertainty, m.group(0)


def test_two_receivers(tmp_path, keys):
    """TGs of one run to two receivers: each is asked for its own flow
    (the sender, under valgrind, reads nothing freed), and both refusals
    (bind: no module here) are said."""
    a = tspd.Recv(tmp_path / "a.key", tmp_path, "--device", NO_DEVICE)
    b = tspd.Recv(tmp_path / "a.key", tmp_path, "--device", NO_DEVICE)
    try:
        text = "key a.key\n"
        for tg, port in ((1, a.port), (2, b.port), (3, a.port)):
            text += (f"tgid {tg}\n\tdist fixed\n\tpkts fixed 200\n"
                     f"\tthro 1M\n\ttime relative 0 1s\n\tdev lo\n"
                     f"\tdst 127.0.0.1:{5000 + tg}\n"
                     f"\trcvr 127.0.0.1:{port}\n")
        (tmp_path / "two.idf").write_text(text)
        res = subprocess.run(
            ["valgrind", "-q", "--error-exitcode=99", MTGCTL, "run",
             "two.idf", "--batch"], cwd=tmp_path, capture_output=True,
            text=True, timeout=300)
    finally:
        a.stop()
        b.stop()
    assert res.returncode == 1, res.stderr
    for tg, port in ((1, a.port), (2, b.port)):
        assert f"TG {tg}: receiver 127.0.0.1:{port} refused the flow " \
            "(bind)" in res.stderr, res.stderr
