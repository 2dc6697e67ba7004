# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl logd`, the log server, on the host (no module): two "hosts",
each a `mtgctl listen --xdp` on a veth pair of its own (frames sent as
in test_ebpf_rx.py), log their records to one logd over TCP while they
record them locally too; logd's two files hold each host's records, one
for one, with its metadata plus "logd", and nothing lost. A wrong key is
refused before anything is recorded. Then a malicious client (truncated,
garbage and out-of-order streams, a client that vanishes, metadata that
is not a recording's, too many connections) against logd under valgrind:
each gets its clear error, logd serves on, finishes every file it began
and leaks nothing.

UDP with losses needs netem, which the host kernel lacks:
tests/vm/test_logd.py."""

import hashlib
import hmac
import json
import os
import signal
import socket
import struct
import subprocess
import time

import numpy as np
import pytest

from mtgsap.recording import DTYPE_V1, open_recording
from mtgtest import tspd
import test_ebpf_probe
import test_ebpf_rx
from test_ebpf_probe import MTGCTL, _missing
from test_ebpf_rx import mtg_frame, xdp_attached

RUN = test_ebpf_rx.RUN


@pytest.fixture
def key(tmp_path):
    return tspd.key_file(tmp_path / "log.key")


class Host:
    """A "host": listen --xdp on its own veth pair, recording locally and
    logging to logd as NAME."""

    def __init__(self, pair, tmp, name, port, key_path, *args):
        self.pair, self.name = pair, name
        self.rec = tmp / f"{name}.rec"
        self.summary = tmp / f"{name}.json"
        self.p = subprocess.Popen(
            [MTGCTL, "listen", "--xdp", pair.where_b, "--batch",
             "--run-id", str(RUN), "-o", self.rec, "--json", self.summary,
             "--log", f"127.0.0.1:{port}", "--log-key", key_path,
             "--log-name", name, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not xdp_attached(pair.ns_b, pair.b):
            if self.p.poll() is not None or time.monotonic() > deadline:
                out, err = self.p.communicate(timeout=60)
                pytest.fail(f"listen --xdp never attached:\n{out}{err}")
            time.sleep(0.05)

    def send(self, tg, n):
        for seq in range(n):
            self.pair.tx.send(mtg_frame(tg, seq))

    def wait_for(self, n):
        """Until a progress line counts n records."""
        deadline = time.monotonic() + 60
        lines = []
        while time.monotonic() < deadline:
            line = self.p.stdout.readline()
            lines.append(line)
            if "rx: " in line and int(line.split("rx: ")[1].split()[0]) >= n:
                return
        pytest.fail(f"{self.name} never counted {n}:\n{''.join(lines)}")

    def finish(self):
        self.p.send_signal(signal.SIGINT)
        out, err = self.p.communicate(timeout=60)
        return self.p.returncode, out, err


def pairs(n):
    made = []
    try:
        for i in range(n):
            made.append(test_ebpf_probe.Pair((os.getpid() + 17 * i) % 10000))
    except BaseException:
        for p in made:
            p.close()
        raise
    return made


@pytest.fixture
def two_pairs(mtgctl):
    if _missing():
        pytest.skip(_missing())
    made = pairs(2)
    try:
        yield made
    finally:
        for p in made:
            p.close()


def meta_without_logd(rec):
    m = dict(rec.meta)
    m.pop("logd")
    return m


@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_two_hosts_nothing_lost(two_pairs, tmp_path, key, transport):
    """Host a sends 1,300 packets (three TCP batches, 93 datagrams), host
    b 40; each logd file equals that host's own recording: every record,
    the header's counts, the metadata (with "logd" saying the transport,
    nothing lost, complete); each client's summary says what logd wrote.
    (Over UDP on loopback nothing is lost: logd's socket holds them.)"""
    out = tmp_path / "logs"
    out.mkdir()
    udp = ["--log-udp"] if transport == "udp" else []
    logd = tspd.Logd(tmp_path / "log.key", out, *(["--udp"] if udp else []))
    hosts = []
    try:
        hosts = [Host(p, tmp_path, name, logd.port, tmp_path / "log.key",
                      *udp)
                 for p, name in zip(two_pairs, ("host-a", "host-b"))]
        counts = {"host-a": 1300, "host-b": 40}
        for h in hosts:
            h.send(3, counts[h.name])
        for h in hosts:
            h.wait_for(counts[h.name])
        results = {h.name: h.finish() for h in hosts}
    finally:
        for h in hosts:
            if h.p.poll() is None:
                h.p.kill()
        rc, log = logd.stop()
    assert rc == 0, log
    for h in hosts:
        hrc, hout, herr = results[h.name]
        assert hrc == 0, hout + herr
        n = counts[h.name]
        path = out / f"{RUN}-{h.name}.mtgrec"
        assert sorted(p.name for p in out.glob(f"*{h.name}*")) == [path.name]
        local, logged = open_recording(h.rec), open_recording(path)
        assert len(local.records) == len(logged.records) == n
        assert local.records.tobytes() == logged.records.tobytes()
        assert sorted(logged.records["seq"].tolist()) == list(range(n))
        for f in ("records", "not_written", "ring_drops", "end_ns", "flags"):
            assert logged.header[f] == local.header[f], f
        assert meta_without_logd(logged) == local.meta
        ld = logged.meta["logd"]
        assert ld["transport"] == transport and ld["host"] == h.name
        assert (ld["records"], ld["lost"], ld["batches_lost"], ld["late"],
                ld["not_sent"], ld["complete"], ld["why"]) == \
            (n, 0, 0, 0, 0, True, None)
        summary = json.loads(h.summary.read_text())["log"]
        assert (summary["sent"], summary["written"], summary["lost"],
                summary["not_sent"], summary["done"], summary["file"]) == \
            (n, n, 0, 0, True, path.name)
        per = 14 if udp else 512
        assert summary["batches"] >= -(-n // per)  # and a flush each 100 ms
        assert f"log 127.0.0.1:{logd.port} ({transport.upper()}, log " in hout
        assert f"logd wrote {n} to {path.name}, 0 lost" in hout
        assert f"(run {RUN}, host {h.name}): complete, {n} records" in log


def test_wrong_key_records_nothing(two_pairs, tmp_path, key):
    """A client without logd's key: listen says why and exits 1 before it
    records anything; logd writes nothing and serves on."""
    out = tmp_path / "logs"
    out.mkdir()
    logd = tspd.Logd(tmp_path / "log.key", out)
    try:
        tspd.key_file(tmp_path / "other.key")
        pair = two_pairs[0]
        res = subprocess.run(
            [MTGCTL, "listen", "--xdp", pair.where_b, "--batch", "-o",
             tmp_path / "x.rec", "--duration", "5", "--log",
             f"127.0.0.1:{logd.port}", "--log-key", tmp_path / "other.key"],
            capture_output=True, text=True, timeout=60)
    finally:
        rc, log = logd.stop()
    assert res.returncode == 1, res
    assert "refused: auth-failed: the sender's proof is wrong" in res.stderr
    assert not (tmp_path / "x.rec").exists(), "a recording was left"
    assert not xdp_attached(pair.ns_b, pair.b)
    assert rc == 0 and not list(out.glob("*.mtgrec")), log
    assert "auth-failed" in log


# --- a malicious client, by hand (Documentation/tsp.rst) -------------------

def meta(run_id=RUN, **extra):
    m = {"format": "mtg-recording", "version": 1, "command": "listen",
         "run_id": run_id, "record": {"bytes": 96, "dtype": DTYPE_V1}}
    m.update(extra)
    return json.dumps(m)


def log_open(name="evil", run_id=RUN, transport=1, metadata=None):
    m = (meta(run_id) if metadata is None else metadata).encode()
    body = struct.pack(">IBBH", run_id, transport, 0, len(name)) + \
        name.encode() + struct.pack(">I", len(m)) + m
    return tspd.frame(0x8B, body)


def records(first, count):
    r = np.zeros(count, dtype=[(f[0], f[1], *f[2:]) for f in DTYPE_V1])
    r["seq"] = np.arange(first, first + count)
    r["run_id"], r["tg_id"] = RUN, 9
    return r.tobytes()


def batch(log_id, seq, first, count):
    return tspd.frame(0x8D, struct.pack(">IQQHH", log_id, seq, first, count,
                                        0) + records(first, count))


def opened(port, key, name, **kw):
    """An authenticated client with an open log: (peer, log_id)."""
    p = tspd.Peer(port)
    p.authenticate(key)
    p.send(log_open(name, **kw))
    t, body = p.read()
    assert t == 0x8C, (t, body)
    log_id, udp_port = struct.unpack(">IH", body)
    return p, log_id


def until(cond):
    deadline = time.monotonic() + 60
    while not cond():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def logged(out, name):
    (path,) = out.glob(f"{RUN}-{name}.mtgrec")
    return open_recording(path)


def test_malicious_clients(tmp_path, key):
    """Every malformed, forged or out-of-order stream gets its TSP_ERROR
    and ends its connection; a log begun is finished, marked incomplete,
    with the records that came; logd serves a good client after all of
    it, and valgrind finds no error and no leak in it."""
    out = tmp_path / "logs"
    out.mkdir()
    logd = tspd.Logd(tmp_path / "log.key", out, "--max-clients", "4",
                     valgrind=True)
    port = logd.port
    try:
        # a log before authentication
        p = tspd.Peer(port)
        p.hello()
        p.send(log_open())
        assert p.error() == (5, "a log before authentication")
        assert p.closed()

        # metadata that is not a recording's; a name that is a path;
        # UDP from a logd without --udp
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(log_open(metadata='{"format":"mtg-recording"}'))
        assert p.error() == (9, "the metadata is not a recording's: "
                             "version is missing")
        assert p.closed()
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(log_open(name="../x"))
        code, text = p.error()
        assert code == 6 and "field name at byte" in text, text
        assert p.closed()
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(log_open(run_id=8, metadata=meta(RUN)))
        assert p.error() == (9, "the metadata's run_id is not the log's 8")
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(log_open(transport=2))
        assert p.error() == (9, "this log server takes no UDP logs (it runs "
                             "without --udp)")

        # a batch, then a truncated one and the end: malformed; the file
        # keeps the first batch, finished and marked incomplete
        p, log_id = opened(port, key, "cut")
        p.send(batch(log_id, 0, 0, 3))
        p.send(batch(log_id, 1, 3, 2)[:100])
        p.s.shutdown(socket.SHUT_WR)
        code, text = p.error()
        assert code == 6 and text.startswith("truncated: TSP_LOG_BATCH (141)"), text
        assert p.closed()

        # garbage after a batch
        p, log_id = opened(port, key, "garbage")
        p.send(batch(log_id, 0, 0, 1))
        p.send(b"\x8dM\xff\xff\xff\xff")
        code, text = p.error()
        assert code == 6 and "bad length" in text, text
        assert p.closed()

        # batches out of order
        p, log_id = opened(port, key, "order")
        p.send(batch(log_id, 0, 0, 2))
        p.send(batch(log_id, 2, 2, 2))
        assert p.error() == (7, f"log {log_id}'s batch 2 (records from 2) "
                             "where batch 1 (from 2) was due")
        assert p.closed()

        # a client that vanishes after two batches
        p, log_id = opened(port, key, "vanished")
        p.send(batch(log_id, 0, 0, 5) + batch(log_id, 1, 5, 5))
        time.sleep(0.5)
        p.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                       struct.pack("ii", 1, 0))
        p.close()                                   # a reset
        p, log_id = opened(port, key, "quit")
        p.send(batch(log_id, 0, 0, 4))
        p.s.shutdown(socket.SHUT_WR)                # the end, unclosed
        assert p.error()[0] == 6 and p.closed()

        # more connections than --max-clients: refused and counted
        held = [socket.create_connection(("127.0.0.1", port), timeout=20)
                for _ in range(6)]
        until(lambda: "refused: already 4 connections" in logd.text())
        ended = logd.text().count(" closed the connection")
        for s in held:
            s.close()
        # dropped: room again
        until(lambda: logd.text().count(" closed the connection") >=
              ended + 4)

        # and a good client is served: 600 records, closed, done
        p, log_id = opened(port, key, "good")
        p.send(batch(log_id, 0, 0, 512) + batch(log_id, 1, 512, 88))
        p.send(tspd.frame(0x8E, struct.pack(">QQQQQ", 600, 2, 0, 0,
                                            1_800_000_000_000_000_000)))
        t, body = p.read()
        assert t == 0x8F, (t, body)
        got = struct.unpack(">QQQQH", body[:34])
        assert got[:4] == (600, 0, 0, 0)
        assert body[34:].decode() == f"{RUN}-good.mtgrec"
        assert p.closed()
    finally:
        rc, log = logd.stop()
    assert rc == 0, log
    assert "refused: already 4 connections" in log

    for name, n, why in (
            ("cut", 3, "truncated: TSP_LOG_BATCH (141)"),
            ("garbage", 1, "bad length: TSP_LOG_BATCH (141)"),
            ("order", 2, "unexpected: log "),
            ("vanished", 10, "connection lost: Connection reset by peer"),
            ("quit", 4, "127.0.0.1:")):
        r = logged(out, name)
        assert r.complete, f"{name}: not finished"
        assert r.records["seq"].tolist() == list(range(n)), name
        ld = r.meta["logd"]
        assert (ld["complete"], ld["records"], ld["not_sent"]) == \
            (False, n, None), name
        assert ld["why"].startswith(why), (name, ld)
        if name == "quit":
            assert ld["why"].endswith(" closed the connection"), ld
        assert f"host {name}): incomplete, {n} records" in log
    r = logged(out, "good")
    assert r.records["seq"].tolist() == list(range(600))
    assert r.header["end_ns"] == 1_800_000_000_000_000_000
    assert r.meta["logd"]["complete"] is True
    assert sorted(p.name for p in out.glob("*.mtgrec")) == sorted(
        f"{RUN}-{n}.mtgrec" for n in ("cut", "garbage", "order", "vanished",
                                      "quit", "good"))


def datagram(log_key, log_id, seq, first, count):
    d = batch(log_id, seq, first, count)
    return d + hmac.new(log_key, d, hashlib.sha256).digest()


def test_udp_log_by_hand(tmp_path, key):
    """A UDP log: batches lost on the way are counted from the gaps (in
    batches and records, the tail from TSP_LOG_CLOSE), a replayed
    datagram is late and not written twice, a forged or foreign one is
    refused; the file holds what came, in order."""
    out = tmp_path / "logs"
    out.mkdir()
    logd = tspd.Logd(tmp_path / "log.key", out, "--udp", valgrind=True)
    try:
        p, log_id = opened(logd.port, key, "udp", transport=2)
        k = p.log_key(key, log_id)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.connect(("127.0.0.1", logd.port))
        sent = [datagram(k, log_id, 0, 0, 3), datagram(k, log_id, 1, 3, 2),
                datagram(k, log_id, 2, 5, 4), datagram(k, log_id, 3, 9, 1),
                datagram(k, log_id, 4, 10, 7)]
        for i in (0, 1, 3):                     # 2 and 4 "lost"
            u.send(sent[i])
        u.send(sent[1])                         # a replay: late
        forged = bytearray(sent[4])
        forged[40] ^= 1
        u.send(bytes(forged))                   # its MAC is wrong
        u.send(datagram(bytes(32), log_id + 1, 0, 0, 1))  # no such log
        u.send(b"\x8d")                         # too short
        p.send(tspd.frame(0x8E, struct.pack(">QQQQQ", 17, 5, 0, 0, 1)))
        t, body = p.read()
        assert t == 0x8F, (t, body)
        assert struct.unpack(">QQQQ", body[:32]) == (6, 11, 2, 1)
        assert p.closed()
        u.close()
    finally:
        rc, log = logd.stop()
    assert rc == 0, log
    r = logged(out, "udp")
    assert r.records["seq"].tolist() == [0, 1, 2, 3, 4, 9]
    ld = r.meta["logd"]
    assert (ld["transport"], ld["records"], ld["lost"], ld["batches_lost"],
            ld["late"], ld["complete"]) == ("udp", 6, 11, 2, 1, True)
    assert "datagram refused: its MAC is wrong (1 refused so far)" in log
    assert "(run 7, host udp): complete, 6 records" in log
    assert "11 lost (2 batches), 1 late" in log
    assert "3 datagrams and 0 connections refused" in log


def test_logd_needs_key_and_dir(tmp_path, key):
    res = subprocess.run([MTGCTL, "logd", "--out", tmp_path],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 1
    assert "--key FILE is needed" in res.stderr
    res = subprocess.run([MTGCTL, "logd", "--key", tmp_path / "log.key",
                          "--out", tmp_path / "none"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 1
    assert f"--out {tmp_path / 'none'}: No such file or directory" in \
        res.stderr


def test_no_logd_listening(two_pairs, tmp_path, key):
    """--log to a port nobody serves: a clear error, nothing recorded."""
    pair = two_pairs[0]
    res = subprocess.run(
        [MTGCTL, "listen", "--xdp", pair.where_b, "--batch", "-o",
         tmp_path / "x.rec", "--duration", "5", "--log",
         f"127.0.0.1:{tspd.free_port()}", "--log-key", tmp_path / "log.key"],
        capture_output=True, text=True, timeout=60)
    assert res.returncode == 1
    assert "Connection refused" in res.stderr
    assert not (tmp_path / "x.rec").exists()
