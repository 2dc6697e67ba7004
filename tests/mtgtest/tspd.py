# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl recv` for tests: the daemon started on a free port (under
valgrind when asked) and stopped with its log, a key file, and a TSP peer
written from Documentation/tsp.rst for the malicious-peer tests: it sends
what it is told, well formed or not, and computes the proofs a sender
holding the key would."""

import hashlib
import hmac
import os
import pathlib
import secrets
import signal
import socket
import struct
import subprocess
import time

from mtgtest.ctl import MTGCTL

HELLO_S = b"MTG-TSP 001.000S"


def key_file(path, key=None):
    """A key file (mode 0600) and its 32 bytes."""
    key = key or secrets.token_bytes(32)
    path.write_text(key.hex() + "\n")
    os.chmod(path, 0o600)
    return key


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """mtgctl COMMAND --key KEY --port PORT --out OUT ARGS on a free port,
    once it says READY; stop() returns (rc, log). before: a shell command
    run first in the daemon's namespaces (`ip netns exec` gives each
    process its own bpffs: what the daemon must see, before makes)."""

    COMMAND, READY = None, None
    OUT = True          # it takes --out OUT (else OUT only holds its log)

    def __init__(self, key, out, *args, valgrind=False, netns=None,
                 before=None):
        self.port = free_port()
        cmd = [str(MTGCTL), self.COMMAND, "--key", str(key), "--port",
               str(self.port), *(["--out", str(out)] if self.OUT else []),
               *map(str, args)]
        if valgrind:
            cmd = ["valgrind", "-q", "--leak-check=full",
                   "--show-leak-kinds=definite,indirect",
                   "--errors-for-leak-kinds=definite,indirect",
                   "--error-exitcode=99", *cmd]
        if before:
            cmd = ["sh", "-c", f'{before} && exec "$@"', "sh", *cmd]
        if netns:
            cmd = ["ip", "netns", "exec", netns, *cmd]
        self.log = out / f"{self.COMMAND}-{self.port}.log"
        self.proc = subprocess.Popen(cmd, stdout=open(self.log, "w"),
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while self.READY not in self.text():
            assert self.proc.poll() is None, self.text()
            assert time.monotonic() < deadline, self.text()
            time.sleep(0.05)

    def text(self):
        return self.log.read_text()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=120)
        return rc, self.text()


class Recv(Daemon):
    """mtgctl recv ARGS on a free port; stop() returns (rc, log)."""

    COMMAND, READY = "recv", "receiving TSP"


class Logd(Daemon):
    """mtgctl logd ARGS on a free port (TCP, and UDP with --udp)."""

    COMMAND, READY = "logd", "logging on TCP"


class SendDaemon(Daemon):
    """mtgctl daemon ARGS on a free port (a sending host's, for manage);
    its log in OUT."""

    COMMAND, READY, OUT = "daemon", "waiting for a manager", False


def abandon(port, n, held):
    """n connections to port opened and abandoned, held at once in groups
    of held; every third sends a piece of a hello first."""
    group = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        if i % 3 == 0:
            s.send(frame(0x80, HELLO_S)[:3])
        group.append(s)
        if len(group) == held:
            for s in group:
                s.close()
            group = []
    for s in group:
        s.close()


def frame(mtype, body):
    return bytes([mtype, 0x4D]) + struct.pack(">I", len(body)) + body


class Peer:
    """A TCP connection to a receiver, speaking TSP by hand."""

    def __init__(self, port, host="127.0.0.1"):
        self.s = socket.create_connection((host, port), timeout=20)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def read(self):
        """The next message (type, body), or None at the end."""
        while True:
            if self.buf[:1] and self.buf[0] >= 0x80 and len(self.buf) >= 6:
                n = struct.unpack(">I", self.buf[2:6])[0]
                if len(self.buf) >= 6 + n:
                    msg = (self.buf[0], self.buf[6:6 + n])
                    self.buf = self.buf[6 + n:]
                    return msg
            elif self.buf[:1] and self.buf[0] < 0x80:
                t = self.buf[0]
                size = {6: 5, 7: 1}.get(t, 1)
                if len(self.buf) >= size:
                    msg = (t, self.buf[1:size])
                    self.buf = self.buf[size:]
                    return msg
            try:
                data = self.s.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                return None
            self.buf += data

    def error(self):
        """The TSP_ERROR that must come next: (code, text)."""
        msg = self.read()
        assert msg and msg[0] == 0x87, msg
        code, _about, _res, n = struct.unpack(">HBBH", msg[1][:6])
        return code, msg[1][6:6 + n].decode()

    def closed(self):
        return self.read() is None

    def hello(self):
        """Hellos exchanged; the receiver's challenge: (nonce, lifetime)."""
        self.send(frame(0x80, HELLO_S))
        t, body = self.read()
        assert (t, body) == (0x80, b"MTG-TSP 001.000R"), (t, body)
        t, body = self.read()
        assert t == 0x81
        return body[:32], struct.unpack(">I", body[32:])[0]

    @staticmethod
    def proof(key, label, nonce_r, nonce_s):
        versions = struct.pack(">HHHH", 1, 0, 1, 0)
        return hmac.new(key, label + b"\0" + versions + nonce_r + nonce_s,
                        hashlib.sha256).digest()

    def auth_body(self, key, nonce_r, nonce_s=None):
        nonce_s = nonce_s or secrets.token_bytes(32)
        self.nonces = (nonce_r, nonce_s)
        return nonce_s + self.proof(key, b"mtg-tsp auth sender", nonce_r,
                                    nonce_s)

    def authenticate(self, key):
        nonce_r, _ = self.hello()
        self.send(frame(0x82, self.auth_body(key, nonce_r)))
        t, _ = self.read()
        assert t == 0x83

    def log_key(self, key, log_id):
        """A UDP log's datagram key, from this connection's handshake."""
        return hmac.new(key, b"mtg-tsp log udp\0" +
                        struct.pack(">HHHH", 1, 0, 1, 0) + self.nonces[0] +
                        self.nonces[1] + struct.pack(">I", log_id),
                        hashlib.sha256).digest()

    def close(self):
        self.s.close()


def flow_req(flow_id, run_id, port, addr="127.0.0.1", bit_rate=1_000_000,
             tg=None, l4=2):
    """TSP_FLOW_REQ's frame; tg: the TG's JSON (a matching one if None)."""
    tg = tg if tg is not None else (
        '{"id":%d,"dst":{"addr":"%s","port":%d}}' % (flow_id, addr, port))
    a = socket.inet_aton(addr) + bytes(12)
    body = struct.pack(">IIBBH", flow_id, run_id, l4, 4, port) + a + \
        struct.pack(">HHQQQI", 40000, 0, bit_rate, 1000_000, 0,
                    len(tg.encode())) + tg.encode()
    return frame(0x84, body)


def flow_ack(msg):
    """(flow_id, code, port, reason) of a TSP_FLOW_ACK."""
    t, body = msg
    assert t == 0x85, msg
    fid, code, port, n = struct.unpack(">IHHH", body[:10])
    return fid, code, port, body[10:10 + n].decode()


ROOT = pathlib.Path(__file__).resolve().parents[2]
