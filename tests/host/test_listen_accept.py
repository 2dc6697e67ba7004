# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgctl listen --accept on the host (no module: connections only): the
messages of TGs over TCP, written here as the module writes them
(Documentation/abi.rst, "TGs over a connection"), become records as the
module's receive path makes them of datagrams: every field from the
header, the kernel's receive stamp, the length a UDP datagram of the same
message would have, wrong bits counted against the pattern, a corrupted
header flagged, other runs passed by; a stream that is not MTG, or that
ends inside a message, is counted and closed. The VM's tests/vm/
test_sock.py has the module's own TGs sending."""

import json
import socket
import struct
import subprocess
import time

import pytest

import mtgsap
from mtgtest.ctl import MTGCTL
from mtgwitness import abi, wire

RUN, OTHER_RUN = 0x5EED0001, 0x5EED0002
T0 = 1_800_000_000_000_000_000


def free_port(family):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
        return s.getsockname()[1]


def message(tg, seq, body_len, run=RUN, corrupt=False, flip=0):
    h = wire.MtgHeader(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION, flags=0,
                       hdr_len=abi.HDR_LEN, run_id=run, tg_id=tg, seq=seq,
                       sched_ns=T0 + seq * 1000, nut=b"nutnut",
                       patt_kind=seq % 3, patt_value=7,
                       patt_seed=seq * 2654435761 % 2**32, crc=0,
                       tx_ns=T0 + seq * 1000 + 5, tp_ns=(0, 0, 0, 0))
    raw = bytearray(h.encode("auto") + wire.pattern_bytes(
        h.patt_kind, h.patt_value, h.patt_seed, body_len))
    if corrupt:
        raw[20] ^= 1                # the sequence number: inside the CRC
    if flip:
        raw[-1] ^= flip
    return struct.pack("!H", len(raw)) + bytes(raw)


def listen(tmp_path, accept, *extra):
    p = subprocess.Popen([MTGCTL, "listen", "--accept", accept, "--batch",
                          "-o", "rx.rec", "--json", "rx.json", *extra],
                         cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert "accepting on" in line, line + p.stderr.read()
    return p


def stop(p):
    time.sleep(0.5)                 # what was sent is read
    p.send_signal(2)
    out, err = p.communicate(timeout=30)
    return out, err


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6],
                         ids=["ipv4", "ipv6"])
def test_messages_become_records(tmp_path, family):
    port = free_port(family)
    addr = "::1" if family == socket.AF_INET6 else "127.0.0.1"
    spec = f"tcp:[{addr}]:{port}" if family == socket.AF_INET6 else \
        f"tcp:{addr}:{port}"
    p = listen(tmp_path, spec, "--run-id", str(RUN))
    try:
        msgs = [message(1, k, 20 + 37 * k) for k in range(6)]
        msgs += [message(1, 6, 50, flip=0x81),           # 2 wrong bits
                 message(1, 7, 50, corrupt=True),
                 message(1, 8, 50, run=OTHER_RUN)]
        stream = b"".join(msgs)
        with socket.create_connection((addr, port)) as s:
            # cut anywhere: the receiver finds the messages again
            for k in range(0, len(stream), 97):
                s.sendall(stream[k:k + 97])
                time.sleep(0.005)
        with socket.create_connection((addr, port)) as s:
            s.sendall(message(2, 0, 10)[:60])            # cut short
        with socket.create_connection((addr, port)) as s:
            s.sendall(b"\x00\x10" + b"GET / HTTP/1.0\r\n")   # not MTG
        out, err = stop(p)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert ("rx (connections): 3 accepted, 1 ended by their senders, 1 cut "
            "inside a message, 0 ended by an error; 1 messages not MTG, 1 "
            "of other runs") in out, out

    now = time.clock_gettime_ns(time.CLOCK_TAI)
    r = mtgsap.open(tmp_path / "rx.rec").records
    # the corrupted header's fields are as received (seq among them)
    assert len(r) == 8 and list(r["seq"][:7]) == list(range(7))
    over = 62 if family == socket.AF_INET6 else 42
    ipv6 = abi.RX_F_IPV6 if family == socket.AF_INET6 else 0
    for rec, m in zip(r, msgs):
        assert rec["len"] == len(m) - 2 + over
        assert rec["payload_len"] == len(m) - 2 - abi.HDR_LEN
        assert rec["iface"] == 0xFFFF and rec["ttl"] == 0
        assert int(rec["flags"]) & ~abi.RX_F_HDR_CORRUPT == \
            abi.RX_STAMP_SW | ipv6
        assert now - 60 * 10**9 < rec["rx_ns"] <= now
    good = r[:7]
    assert list(good["run_id"]) == [RUN] * 7
    assert list(good["tg_id"]) == [1] * 7
    assert list(good["sched_ns"]) == [T0 + k * 1000 for k in range(7)]
    assert list(good["tx_ns"]) == [T0 + k * 1000 + 5 for k in range(7)]
    assert bytes(good["nut"][0]) == b"nutnut"
    assert list(good["wrong_bits"]) == [0] * 6 + [2]
    assert not any(good["flags"] & abi.RX_F_HDR_CORRUPT)
    assert r[7]["flags"] & abi.RX_F_HDR_CORRUPT
    assert list(r["rx_ns"]) == sorted(r["rx_ns"])

    rx = json.loads((tmp_path / "rx.json").read_text())["rx"]
    assert rx["connections"] == dict(accepted=3, ended=1, cut=1, errors=0,
                                     not_mtg=1, other_runs=1)
    assert rx["hdr_corrupt"] == 0 and rx["packets"] == 0   # the module's


def test_nothing_to_listen_on(tmp_path):
    res = subprocess.run([MTGCTL, "listen", "--batch"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=30)
    assert res.returncode != 0
    assert "nothing to listen on" in res.stderr


@pytest.mark.parametrize("spec, why", [
    ("udp:127.0.0.1:9", "expected PROTO:ADDR:PORT (PROTO tcp, sctp or dccp)"),
    ("tcp:127.0.0.1", "no port"),
    ("tcp:[::1:9", "no ']'"),
])
def test_bad_accept(tmp_path, spec, why):
    res = subprocess.run([MTGCTL, "listen", "--accept", spec, "--batch"],
                         cwd=tmp_path, capture_output=True, text=True,
                         timeout=30)
    assert res.returncode != 0
    assert f"listen --accept: '{spec}': {why}\n" in res.stderr
