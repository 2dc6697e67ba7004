# SPDX-License-Identifier: GPL-2.0-or-later
"""Hosts in the IDF, `mtgctl daemon` and `mtgctl manage` on the host (no
module; Documentation/tsp.rst "The manager and its daemons"):

- `host NAME ADDR[:PORT]` and a TG's `host NAME`: check shows them, each
  mistake is an error at its line:col, run refuses such a file and points
  to manage (or runs one host's TGs with --host);
- the daemon: the key checked (wrong key, none), a part that does not
  validate refused with the file's line:col, a second manager refused
  while one is served, malformed, truncated and out-of-order messages
  each answered with a clear error while the daemon, under valgrind,
  keeps serving and leaks nothing;
- manage against real daemons (whose runs cannot open a module: the
  device they are given does not exist, so this holds on any host) and
  against daemons written here from Documentation/tsp.rst (a TSP peer,
  not a mock of the kernel: the manager's side of the protocol is what is
  tested): nothing starts anywhere unless every host is ready, every
  host said with its reason; every host started at one T0; progress one
  line per TG with its host; one merged summary; a daemon that vanishes
  mid-run reported while the others go on, the exit status non-zero.

Running the TGs for real on three hosts is tests/vm/test_manage.py's."""

import hashlib
import hmac
import json
import os
import secrets
import socket
import struct
import subprocess
import threading
import time

import pytest

from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.term import Terminal

NO_DEVICE = "/nonexistent/mtg"
# what a TG needs besides its model
TG_REST = "dev lo dst 127.0.0.1:9 thro 1k pkts fixed 200\n"

HOSTS_IDF = """\
key {key}
host alpha 127.0.0.1:{pa}
host beta 127.0.0.1:{pb}
dev lo
dist fixed
pkts fixed 200
thro 100k
time relative 0 1s
tgid 1
	host alpha
	dst 127.0.0.1:5001
tgid 2
	host beta
	dst 127.0.0.1:5002
tgid 3
	host alpha
	dst 127.0.0.1:5003
"""


def mtgctl(*args, cwd=None, timeout=120):
    return subprocess.run([MTGCTL, *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def key(tmp_path):
    return tspd.key_file(tmp_path / "k.key")


def hosts_file(tmp_path, pa, pb, name="two.idf"):
    path = tmp_path / name
    path.write_text(HOSTS_IDF.format(key="k.key", pa=pa, pb=pb))
    return path


# --- the IDF ---------------------------------------------------------------

def test_check_shows_each_tgs_host(tmp_path, key):
    path = hosts_file(tmp_path, 19998, 9998)
    res = mtgctl("check", path, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("host alpha (mtgctl daemon at 127.0.0.1:19998)") == 2
    assert res.stdout.count("host beta (mtgctl daemon at 127.0.0.1:9998)") == 1
    res = mtgctl("check", path, "--json", cwd=tmp_path)
    tgs = json.loads(res.stdout)["tgs"]
    assert [(t["id"], t["host"]) for t in tgs] == \
        [(1, "alpha"), (2, "beta"), (3, "alpha")]
    # the default port: ITGSend's daemon mode's
    path.write_text("host a [::1]\ntgid 1 host a dev lo dst 127.0.0.1:9 "
                    "thro 1k pkts fixed 200\n")
    assert "host a (mtgctl daemon at [::1]:9998)" in \
        mtgctl("check", path).stdout


def test_host_mistakes_are_errors_at_their_place(tmp_path):
    path = tmp_path / "bad.idf"
    path.write_text(
        "host alpha 127.0.0.1\n"
        "host alpha 10.0.0.1\n"
        "host gamma\n"
        "host delta 300.1.1.1\n"
        "host ../x 10.0.0.1\n"
        "dev lo pkts fixed 200 thro 1k\n"
        "tgid 1 host alpah dst 127.0.0.1:5000\n"
        "tgid 2 dst 127.0.0.1:5000\n"
        "tgid 3 host alpha dst 127.0.0.1:5000\n")
    res = mtgctl("check", path)
    assert res.returncode == 1
    err = res.stderr.splitlines()
    assert err == [
        f"{path}:2:6: error: host 'alpha' declared twice (first at line 1)",
        f"{path}:3:6: error: 'host gamma' in the globals declares a host: "
        "give its address, 'host gamma ADDR[:PORT]' (a TG names its host "
        "after its 'tgid')",
        f"{path}:4:12: error: 'host' expects ADDR[:PORT] (IPv6 in "
        "brackets: [2001:db8::1]:5000), got '300.1.1.1' (not an IPv4 "
        "address)",
        f"{path}:5:6: error: 'host' expects a host name (1 to 64 letters, "
        "digits, '-', '_', '.' not first), got '../x'",
        f"{path}:7:13: error: unknown host 'alpah' (declared: alpha): "
        "declare it in the globals, 'host alpah ADDR[:PORT]'",
        f"{path}:8:1: error: TG 2: names no host, where others do: give it "
        "'host NAME' (mtgctl manage runs each TG on its host)",
    ], res.stderr


def test_run_refuses_a_file_of_hosts(tmp_path, key):
    path = hosts_file(tmp_path, 19998, 19997)
    res = mtgctl("run", path, "--batch", "--device", NO_DEVICE,
                 cwd=tmp_path)
    assert res.returncode == 1
    assert f"{path}:10: TG 1 runs on host 'alpha': a file whose TGs name " \
        f"hosts runs with 'mtgctl manage {path}'" in res.stderr
    res = mtgctl("run", path, "--batch", "--host", "gamma", cwd=tmp_path)
    assert res.returncode == 1
    assert "--host gamma: the file declares no host 'gamma'" in res.stderr
    # one host's TGs: on to the module, which is not here
    res = mtgctl("run", path, "--batch", "--host", "beta", "--device",
                 NO_DEVICE, cwd=tmp_path)
    assert res.returncode == 1
    assert f"cannot open {NO_DEVICE}" in res.stderr


# --- a TSP peer that plays a manager or a daemon ----------------------------

def frame(t, body):
    return tspd.frame(t, body)


def text(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def offer(run_id, idf, host, file="part.idf"):
    h = host.encode()
    return frame(0x90, struct.pack(">IIH", run_id, len(idf), len(h)) + h +
                 text(file))


def data(kind, offset, chunk):
    return frame(0x91, struct.pack(">BBIH", kind, 0, offset, len(chunk)) +
                 chunk)


def send_part(p, run_id, idf, host, file="part.idf"):
    idf = idf.encode()
    p.send(offer(run_id, idf, host, file))
    for off in range(0, len(idf), 16384):
        p.send(data(1, off, idf[off:off + 16384]))


class FakeDaemon(threading.Thread):
    """A host's daemon, written from Documentation/tsp.rst: it opens as a
    TSP receiver (hello, challenge, its proof), takes the part, says it
    is ready; then, as told: 'run' (its TGs' progress, its summary, the
    end), 'vanish' (the connection closed after the start). What the
    manager sent is kept in .got."""

    def __init__(self, key, mode):
        super().__init__(daemon=True)
        self.key, self.mode, self.got = key, mode, []
        self.ls = socket.create_server(("127.0.0.1", 0))
        self.port = self.ls.getsockname()[1]
        self.ls.settimeout(60)
        self.start()

    def read(self):
        msg = self.p.read()
        if msg:
            self.got.append(msg)
        return msg

    def run(self):
        s, _ = self.ls.accept()
        self.p = tspd.Peer.__new__(tspd.Peer)
        self.p.s, self.p.buf = s, b""
        s.settimeout(60)
        t, body = self.read()
        assert (t, body) == (0x80, tspd.HELLO_S)
        nonce_r = secrets.token_bytes(32)
        self.p.send(frame(0x80, b"MTG-TSP 001.000R") +
                    frame(0x81, nonce_r + struct.pack(">I", 10000)))
        t, body = self.read()
        assert t == 0x82
        nonce_s = body[:32]
        versions = struct.pack(">HHHH", 1, 0, 1, 0)
        proof = hmac.new(self.key, b"mtg-tsp auth receiver\0" + versions +
                         nonce_r + nonce_s, hashlib.sha256).digest()
        self.p.send(frame(0x83, proof))
        t, body = self.read()
        assert t == 0x90
        run_id, idf_len, n = struct.unpack(">IIH", body[:10])
        self.run_id, self.host = run_id, body[10:10 + n].decode()
        idf = b""
        while len(idf) < idf_len:
            t, body = self.read()
            assert t == 0x91
            idf += body[8:]
        self.idf = idf.decode()
        tgids = [int(line.split()[1]) for line in self.idf.splitlines()
                 if line.startswith("tgid")]
        # its TGs: those whose next 'host' line is ours
        lines = self.idf.splitlines()
        self.tgids = [tg for i, tg in zip(
            [k for k, x in enumerate(lines) if x.startswith("tgid")], tgids)
            if lines[i + 1].split()[1] == self.host]
        self.p.send(frame(0x92, struct.pack(">II", run_id,
                                            len(self.tgids))))
        t, body = self.read() or (None, b"")
        if t != 0x93:
            return              # dropped (0x96) or gone
        if self.mode == "vanish":
            time.sleep(0.5)
            s.close()
            return
        if self.mode == "until_drop":
            rows = b"".join(struct.pack(">IB3xQQQ", tg, 1, 7 * tg,
                                        1400 * tg, 2**64 - 1)
                            for tg in self.tgids)
            self.p.send(frame(0x94, struct.pack(">IQHH", run_id, 10**9,
                                                len(self.tgids), 0) + rows))
            t, _ = self.read()
            assert t == 0x96
            self.p.send(frame(0x95, struct.pack(">IBBHI", run_id, 143, 1, 0,
                                                0) + text("dropped")))
            self.read()
            s.close()
            return
        start_ns = struct.unpack(">IQ", body)[1]
        while time.clock_gettime_ns(time.CLOCK_TAI) < start_ns + 1.5e9:
            time.sleep(0.1)
        rows = b"".join(struct.pack(">IB3xQQQ", tg, 3, 100 * tg,
                                    20000 * tg, 5000) for tg in self.tgids)
        self.p.send(frame(0x94, struct.pack(">IQHH", run_id, 10**9,
                                            len(self.tgids), 0) + rows))
        summary = json.dumps({"format": "mtg-summary", "tgs": [
            {"id": tg, "sent": 100 * tg} for tg in self.tgids]}).encode()
        self.p.send(data(2, 0, summary) +
                    frame(0x95, struct.pack(">IBBHI", run_id, 0, 0, 0,
                                            len(summary)) + text("")))
        self.read()             # the manager closes
        s.close()

    def types(self):
        return [t for t, _ in self.got]


def test_manage_dashboard(tmp_path, key):
    """On a terminal: run's dashboard, a row per TG with its host (model
    column HOST:MODEL), as the daemons' progress says; q drops every
    part, the daemons end their runs, and manage says so."""
    a, b = FakeDaemon(key, "until_drop"), FakeDaemon(key, "until_drop")
    hosts_file(tmp_path, a.port, b.port)
    with Terminal(tmp_path, ["sh", "-c", f"cd {tmp_path} && exec {MTGCTL} "
                             "manage two.idf --start-delay 100ms"]) as term:
        def rows_of(screen):
            return {line.lstrip("> ").split()[0]: line
                    for line in screen.splitlines()
                    if line.lstrip("> ").split()[:1] in (["1"], ["2"], ["3"])}

        # Every row in the condition: curses sends a frame in pieces, and
        # the terminal can be read between two of them.
        screen = term.wait_for(lambda s: "running" in s and
                               set(rows_of(s)) == {"1", "2", "3"} and
                               "alpha:fixed" in rows_of(s)["1"] and
                               "beta:fixed" in rows_of(s)["2"],
                               timeout=60, what="the rows")
        assert "mtg manage" in screen, screen
        rows = rows_of(screen)
        assert "21" in rows["3"]
        assert "127.0.0.1:5002" in rows["2"]
        term.keys("q")
        assert term.wait_exit() == 2
        assert term.sane()
        screen = term.screen()
    a.join(60)
    b.join(60)
    assert a.types()[-1] == 0x96 and b.types()[-1] == 0x96
    assert "quit from the dashboard: every host's part dropped" in screen
    assert "ended, exit status 143, stopped: dropped" in screen


def manage(tmp_path, path, *args):
    return mtgctl("manage", path, "--batch", *args, cwd=tmp_path,
                  timeout=300)


# --- manage ----------------------------------------------------------------

def test_manage_starts_every_host_at_one_t0_and_merges(tmp_path, key):
    a, b = FakeDaemon(key, "run"), FakeDaemon(key, "run")
    path = hosts_file(tmp_path, a.port, b.port)
    res = manage(tmp_path, path, "--json", tmp_path / "all.json")
    a.join(60)
    b.join(60)
    assert res.returncode == 0, res.stdout + res.stderr
    # each was sent the whole file and its own host's name
    assert (a.host, b.host) == ("alpha", "beta")
    assert a.idf == b.idf == path.read_text()
    assert (a.tgids, b.tgids) == ([1, 3], [2])
    starts = {struct.unpack(">IQ", body)[1] for d in (a, b)
              for t, body in d.got if t == 0x93}
    assert len(starts) == 1          # one T0 for every host
    # a run id each (the manager's, then the next): one receiver's module
    # gives a run's packets to one session
    assert b.run_id == a.run_id + 1
    out = res.stdout
    assert f"run_id {a.run_id}: 3 TGs on 2 hosts from {path}" in out
    assert "host alpha tg 3: done, sent 300, 60000 bytes, lateness p99 5 us" in out
    assert "host beta tg 2: done, sent 200, 40000 bytes" in out
    assert "host alpha (127.0.0.1:%d): ended, exit status 0" % a.port in out
    merged = json.loads((tmp_path / "all.json").read_text())
    assert merged["format"] == "mtgctl-manage"
    assert merged["run_id"] == a.run_id
    assert [(h["name"], h["run_id"]) for h in merged["hosts"]] == \
        [("alpha", a.run_id), ("beta", b.run_id)]
    assert [(t["host"], t["id"], t["sent"]) for t in merged["tgs"]] == \
        [("alpha", 1, 100), ("alpha", 3, 300), ("beta", 2, 200)]
    assert [(h["name"], h["state"], h["exit_status"])
            for h in merged["hosts"]] == [("alpha", "ended", 0),
                                          ("beta", "ended", 0)]


def test_manage_a_host_lost_mid_run(tmp_path, key):
    a, b = FakeDaemon(key, "run"), FakeDaemon(key, "vanish")
    path = hosts_file(tmp_path, a.port, b.port)
    res = manage(tmp_path, path, "--json", tmp_path / "all.json")
    a.join(60)
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"host beta (127.0.0.1:{b.port}): lost mid-run: " \
        "127.0.0.1:%d closed the connection; the other hosts go on" % b.port \
        in res.stderr
    assert "host alpha tg 3: done, sent 300" in res.stdout
    merged = json.loads((tmp_path / "all.json").read_text())
    assert [(h["name"], h["state"]) for h in merged["hosts"]] == \
        [("alpha", "ended"), ("beta", "lost")]
    assert [t["host"] for t in merged["tgs"]] == ["alpha", "alpha"]


def test_manage_nothing_starts_unless_every_host_is_ready(tmp_path, key):
    """alpha's daemon cannot open a module; beta's is ready: beta is told
    to drop its part and never to start; both are reported."""
    real = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device",
                           NO_DEVICE)
    b = FakeDaemon(key, "run")
    try:
        path = hosts_file(tmp_path, real.port, b.port)
        res = manage(tmp_path, path, "--json", tmp_path / "all.json")
        b.join(60)
    finally:
        rc, log = real.stop()
    assert res.returncode == 1, res.stdout + res.stderr
    assert b.types()[-1] == 0x96 and 0x93 not in b.types()
    err = res.stderr
    assert f"{path}: run {b.run_id - 1}: nothing started: a host is not " \
        "ready" in err
    assert f"host alpha (127.0.0.1:{real.port}): refused: cannot open " \
        f"{NO_DEVICE}" in err
    assert f"host beta (127.0.0.1:{b.port}): was ready (1 TG): dropped, " \
        "nothing started" in err
    assert not (tmp_path / "all.json").exists()
    assert rc == 0, log
    # the daemon's private directory is gone with the part
    assert "preparing host alpha's part (mtgctl run /tmp/mtgctl-daemon-" in log
    d = log.split("(mtgctl run ")[1].split("/two.idf")[0]
    assert not os.path.exists(d)


def test_manage_wrong_key_no_key_no_daemon(tmp_path, key):
    real = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device",
                           NO_DEVICE)
    try:
        path = hosts_file(tmp_path, real.port, tspd.free_port())
        tspd.key_file(tmp_path / "other.key")
        path.write_text(path.read_text().replace("key k.key",
                                                 "key other.key"))
        res = manage(tmp_path, path)
        assert res.returncode == 1
        assert f"host alpha (127.0.0.1:{real.port}): the receiver " \
            f"127.0.0.1:{real.port} refused: auth-failed" in res.stderr
        assert "host beta (127.0.0.1:%s): cannot connect" % \
            path.read_text().split("127.0.0.1:")[2].split()[0] in res.stderr
        path.write_text(path.read_text().replace("key other.key\n", ""))
        res = manage(tmp_path, path)
        assert res.returncode == 1
        assert "no 'key FILE' in the globals: the key the daemons check" \
            in res.stderr
    finally:
        rc, log = real.stop()
    assert rc == 0, log
    assert "auth-failed" in log


# --- the daemon ------------------------------------------------------------

def test_daemon_needs_a_private_key(tmp_path):
    res = mtgctl("daemon", "--port", "1")
    assert res.returncode == 1
    assert "--key FILE is needed" in res.stderr
    k = tmp_path / "open.key"
    tspd.key_file(k)
    os.chmod(k, 0o644)
    res = mtgctl("daemon", "--key", k, "--port", "1")
    assert res.returncode == 1
    assert "open.key: mode 0644" in res.stderr and "a key must be private" in res.stderr


def test_daemon_refuses_a_bad_part_with_its_line_and_column(tmp_path, key):
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE)
    try:
        p = tspd.Peer(d.port)
        p.authenticate(key)
        send_part(p, 9, "host a 127.0.0.1\ntgid 1 host a dev lo\n"
                  "  dist fixd\n" + TG_REST, "a", "mine.idf")
        code, msg = p.error()
        assert code == 9, msg
        assert msg.startswith("mine.idf:3:8: error: 'dist' expects a model"), msg
        assert p.closed()
        # a host the file does not declare
        p = tspd.Peer(d.port)
        p.authenticate(key)
        send_part(p, 10, "host a 127.0.0.1\ntgid 1 host a dev lo "
                  "dst 127.0.0.1:9 thro 1k pkts fixed 200\n", "b")
        code, msg = p.error()
        assert code == 9 and msg.startswith(
            "part.idf: --host b: the file declares no host 'b'"), msg
    finally:
        rc, log = d.stop()
    assert rc == 0, log
    assert "run 9: refused: mine.idf:3:8: error: 'dist' expects" in log


def test_daemon_serves_one_manager_at_a_time(tmp_path, key):
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE)
    try:
        first = tspd.Peer(d.port)
        first.authenticate(key)
        first.send(offer(5, b"x" * 100, "a"))
        second = tspd.Peer(d.port)
        second.authenticate(key)
        second.send(offer(6, b"x" * 100, "a"))
        code, msg = second.error()
        assert code == 9 and msg.startswith(
            "busy: this daemon serves run 5 of the manager 127.0.0.1:"), msg
        assert second.closed()
        first.close()           # the first manager goes: served again
        deadline = time.monotonic() + 30
        while "run 5: " not in d.text().split("offered")[-1]:
            assert time.monotonic() < deadline, d.text()
            time.sleep(0.05)
        third = tspd.Peer(d.port)
        third.authenticate(key)
        send_part(third, 7, "tgid 1 dist fixd " + TG_REST, "a", "t.idf")
        code, msg = third.error()
        assert code == 9 and msg.startswith("t.idf:1:13: error:"), msg
    finally:
        rc, log = d.stop()
    assert rc == 0, log


def test_daemon_malicious_managers(tmp_path, key):
    """Each malformed, truncated or out-of-order message gets its
    TSP_ERROR and the connection ends; abandoned connections cost nothing
    held; the daemon serves a manager after all of it, and valgrind finds
    no error and no leak in it."""
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE,
                        valgrind=True)
    port = d.port
    try:
        # truncated: half a hello, then the end
        p = tspd.Peer(port)
        p.send(tspd.frame(0x80, tspd.HELLO_S)[:9])
        p.s.shutdown(socket.SHUT_WR)
        code, msg = p.error()
        assert code == 6 and "truncated" in msg, msg
        assert p.closed()
        # an absurd length, before anything is held
        p = tspd.Peer(port)
        p.send(b"\x91M\xff\xff\xff\xff")
        code, msg = p.error()
        assert code == 6 and "bad length" in msg, msg
        assert p.closed()
        # a part before the hello; one before the proof; a wrong key
        p = tspd.Peer(port)
        p.send(offer(1, b"x", "a"))
        assert p.error() == (7, "a connection opens with TSP_HELLO")
        p = tspd.Peer(port)
        p.hello()
        p.send(offer(1, b"x", "a"))
        assert p.error() == (5, "a part before authentication")
        p = tspd.Peer(port)
        nonce_r, _ = p.hello()
        p.send(tspd.frame(0x82, p.auth_body(bytes(32), nonce_r)))
        assert p.error()[0] == 2
        # out of order: a start before any part; a piece out of its place;
        # a start before the part is ready
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(frame(0x93, struct.pack(">IQ", 1, 1)))
        assert p.error() == (7, "TSP_JOB_OFFER is due")
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(offer(2, b"0123456789", "a") + data(1, 4, b"456789"))
        assert p.error() == (7, "the IDF's bytes 4..10 where 0..10 were due")
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(offer(3, b"0123456789", "a") +
               frame(0x93, struct.pack(">IQ", 3, 1)))
        assert p.error() == (7, "the IDF's TSP_JOB_DATA is due")
        # a daemon's message from a manager: the summary's piece, a ready
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(data(2, 0, b"{}"))
        code, msg = p.error()
        assert code == 6 and "field kind" in msg, msg
        p = tspd.Peer(port)
        p.authenticate(key)
        p.send(frame(0x92, bytes(8)))
        code, msg = p.error()
        assert code == 6 and "bad type" in msg, msg
        # 300 connections opened and abandoned, 100 held at once
        tspd.abandon(port, 300, 100)
        # and a manager is served, once the daemon has seen them go
        deadline = time.monotonic() + 60
        while True:
            p = tspd.Peer(port)
            try:
                p.authenticate(key)
                break
            except (AssertionError, TypeError, OSError):
                assert time.monotonic() < deadline
                time.sleep(0.2)
        send_part(p, 4, "tgid 1 dist fixd " + TG_REST, "a", "last.idf")
        code, msg = p.error()
        assert code == 9 and msg.startswith("last.idf:1:13: error:"), msg
    finally:
        rc, log = d.stop()
    assert rc == 0, log
    assert "refused: already 64 connections" in log


def test_daemon_drops_a_part_whose_pieces_stop(tmp_path, key):
    """A manager that offers a part and sends no more of it is told so
    after 30 s and dropped: it does not keep the daemon busy."""
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE)
    try:
        p = tspd.Peer(d.port)
        p.s.settimeout(120)
        p.authenticate(key)
        p.send(offer(11, b"x" * 100, "a") + data(1, 0, b"x" * 10))
        assert p.error() == (7, "the IDF's pieces stopped coming (30 s "
                             "without one)")
        assert p.closed()
        q = tspd.Peer(d.port)
        q.authenticate(key)
        send_part(q, 12, "tgid 1 dist fixd " + TG_REST, "a", "n.idf")
        code, msg = q.error()
        assert code == 9 and msg.startswith("n.idf:1:13: error:"), msg
    finally:
        rc, log = d.stop()
    assert rc == 0, log


def test_daemon_kills_the_run_of_a_vanished_manager(tmp_path, key):
    """A manager that goes away while its part's run prepares: the daemon
    kills the run (here held in its TSP opening with a receiver that
    never answers) and serves the next manager."""
    silent = socket.create_server(("127.0.0.1", 0))
    silent.settimeout(60)
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE)
    try:
        p = tspd.Peer(d.port)
        p.authenticate(key)
        send_part(p, 21, f"key {tmp_path}/k.key\nhost a 127.0.0.1\n"
                  f"tgid 1 host a rcvr 127.0.0.1:{silent.getsockname()[1]} "
                  + TG_REST, "a")
        run_conn, _ = silent.accept()     # the run, in its opening
        run_conn.settimeout(60)
        assert run_conn.recv(4096) != b""   # its hello, never answered
        p.close()
        assert run_conn.recv(4096) == b""   # then its end: killed
        deadline = time.monotonic() + 30
        while "run 21: " not in d.text() or "its TGs stopped" not in d.text():
            assert time.monotonic() < deadline, d.text()
            time.sleep(0.05)
        q = tspd.Peer(d.port)
        q.authenticate(key)
        send_part(q, 22, "tgid 1 dist fixd " + TG_REST, "a", "n.idf")
        code, msg = q.error()
        assert code == 9 and msg.startswith("n.idf:1:13: error:"), msg
    finally:
        rc, log = d.stop()
        silent.close()
    assert rc == 0, log
    assert "run 21: 127.0.0.1:" in log and \
        "closed the connection: its TGs stopped" in log


def test_daemon_takes_managers_from_allow_only(tmp_path, key):
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE,
                        "--allow", "192.0.2.1,::1")
    try:
        p = tspd.Peer(d.port)
        p.send(tspd.frame(0x80, tspd.HELLO_S))
        assert p.closed()           # not a word: not one of --allow
    finally:
        rc, log = d.stop()
    assert rc == 0, log
    assert "managers from 192.0.2.1,::1" in log
    assert "127.0.0.1:" in log and "refused: not an --allow address" in log
    d = tspd.SendDaemon(tmp_path / "k.key", tmp_path, "--device", NO_DEVICE,
                        "--allow", "127.0.0.1")
    try:
        p = tspd.Peer(d.port)
        p.authenticate(key)
    finally:
        rc, log = d.stop()
    assert rc == 0, log
