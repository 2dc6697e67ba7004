# SPDX-License-Identifier: GPL-2.0-or-later
"""TSP on the wire (ctl/tsp/, Documentation/tsp.rst), through the library
itself (tests/tools/tsp_tool): every message type round-trips in any
split of the stream; every malformed input gets its exact error (which
message, which field, which byte, what); the bytes of a real D-ITG 2.8.1
session (Debian's ITGSend and ITGRecv on loopback, captured with tcpdump)
decode to what ITGSend was told, and our encoder makes ITGSend's and
ITGRecv's very bytes; the challenge-response refuses a wrong key, a
replayed nonce and an expired challenge each with its own error; a key
file others may read is refused."""

import json
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from mtgtest import tsp


@pytest.fixture(scope="module", autouse=True)
def tool():
    tsp.build()


def hello(frm):
    return tsp.encode([{"type": 0x80, "major": 1, "minor": 0}], frm)[0]


# --- every message ---------------------------------------------------------

@pytest.mark.parametrize("frm,msg", tsp.SAMPLES + tsp.JOB_SAMPLES,
                         ids=[f"{f}-{m['type']:#x}" for f, m in
                              tsp.SAMPLES + tsp.JOB_SAMPLES])
def test_message_round_trips(frm, msg):
    """encode, decode: the same fields; and the decoded message encodes
    to the same bytes."""
    (data,) = tsp.encode([msg], frm)
    (out,), err = tsp.decode(data, frm)
    assert err is None
    assert {k: out[k] for k in msg} == msg
    assert out["len"] == len(data) and out["offset"] == 0
    assert tsp.encode([out], frm) == [data]


def test_passive_layouts_round_trip():
    """D-ITG's passive mode: TSP_SEND_FLOW carries the sender's data port
    (LE) and a flag before the port, and the sender acknowledges with 5
    bytes."""
    msgs = [tsp.flow(passive=True, passive_port=19121, src_specified=255),
            {"type": 5, "flow_id": 4, "passive": True}]
    data = tsp.encode(msgs, "sender")
    assert [len(d) for d in data] == [30, 5]
    assert data[0][21:24] == bytes([19121 & 255, 19121 >> 8, 255])
    out, err = tsp.decode(b"".join(data), "sender", passive=True)
    assert err is None
    assert [{k: o[k] for k in m} for o, m in zip(out, msgs)] == msgs
    # the same bytes outside passive mode are not the same messages
    _, err = tsp.decode(data[1], "sender")
    assert err["code"] == "bad type" and err["field"] == "type"


def test_any_split_gives_the_same_messages():
    """The stream decoder fed 1, 2, 3, ... bytes at a time: the same
    messages at the same offsets as fed at once."""
    for frm in ("sender", "receiver"):
        msgs = [m for f, m in tsp.SAMPLES + tsp.JOB_SAMPLES if f == frm]
        data = b"".join(tsp.encode(msgs, frm))
        whole, err = tsp.decode(data, frm)
        assert err is None and len(whole) == len(msgs)
        assert [o["offset"] for o in whole] == \
            [sum(o["len"] for o in whole[:i]) for i in range(len(whole))]
        for split in (1, 2, 3, 5, 7, 64, 1000):
            assert tsp.decode(data, frm, split=split) == (whole, None)


def test_d_itg_and_mtg_peers_are_told_apart_on_the_first_byte():
    """A D-ITG sender opens with TSP_CONNECT (0x01), an mtg sender with its
    hello (0x80 'M'); the hello has no 0x01 byte, which ITGRecv would take
    for TSP_CONNECT (test_itgrecv_ignores_mtg_hello shows it)."""
    h = hello("sender")
    assert h[:2] == b"\x80M" and 1 not in h
    assert h[6:] == b"MTG-TSP 001.000S"
    (out,), _ = tsp.decode(b"\x01", "sender")
    assert out["name"] == "TSP_CONNECT"
    (out,), _ = tsp.decode(h, "sender")
    assert out["name"] == "TSP_HELLO"


# --- malformed input: each its exact error ---------------------------------

def ditg_flow():
    return tsp.encode([tsp.flow()], "sender")[0]


def mtg(type_, body):
    return bytes([type_, 0x4D]) + len(body).to_bytes(4, "big") + body


def ack(reason=b"", code=0):
    return mtg(0x85, bytes(4) + code.to_bytes(2, "big") + bytes(2) +
               len(reason).to_bytes(2, "big") + reason)


def req(tg=b"{}", l3=4, addr=b"\x0a\x00\x00\x02" + bytes(12), tglen=None):
    body = (bytes(8) + bytes([2, l3]) + bytes(2) + addr + bytes(4) +
            bytes(24) + (len(tg) if tglen is None else tglen)
            .to_bytes(4, "big") + tg)
    return mtg(0x84, body)


BAD = [
    # (name, from, bytes, code, type, field, offset, what)
    ("ditg-truncated", "sender", b"\x04\x00\x00\x01", "truncated", 4,
     "flow_id", 1, "needs 4 bytes, only 3 left in the input"),
    ("ditg-truncated-addr", "sender", ditg_flow()[:25], "truncated", 3,
     "addr", 23, "needs 4 bytes, only 2 left in the input"),
    ("ditg-name-truncated", "sender", b"\x13/tmp/x\x00", "truncated", 19,
     "log_name", 1, "needs 200 bytes, only 7 left in the input"),
    ("mtg-header-truncated", "receiver", b"\x87M\x00\x00", "truncated",
     0x87, "length", 2, "needs 4 bytes, only 2 left in the input"),
    ("mtg-body-truncated", "sender", hello("sender")[:12], "truncated",
     0x80, "magic", 6, "needs 8 bytes, only 6 left in the input"),
    ("field-past-frame", "receiver", mtg(0x85, bytes(8) + b"\x00\x05ab"),
     "truncated", 0x85, "reason", 16,
     "needs 5 bytes, only 2 left in the frame"),
    ("absurd-frame-length", "sender", b"\x84M\xff\xff\xff\xff",
     "bad length", 0x84, "length", 2,
     "4294967295 bytes; TSP_FLOW_REQ's body is 60 to 65596"),
    ("fixed-frame-length", "sender", mtg(0x80, bytes(17)), "bad length",
     0x80, "length", 2, "17 bytes; TSP_HELLO's body is 16"),
    ("absurd-json-length", "sender", req(tglen=65537), "bad length", 0x84,
     "tg_json_len", 62, "65537 bytes, over the 65536 a TG's JSON may have"),
    ("absurd-text-length", "receiver",
     mtg(0x85, bytes(8) + (257).to_bytes(2, "big") + b"x" * 10), "bad length", 0x85,
     "text_len", 14, "257 bytes, over the 256 a text may have"),
    ("bytes-after-fields", "receiver", mtg(0x87, b"\x00\x01\x00\x00\x00\x00"
                                           b"xy"), "bad length", 0x87,
     "length", 2, "the frame's body is 8 bytes, its fields end after 6"),
    ("type-0", "sender", b"\x00", "bad type", None, "type", 0,
     "unknown type 0x00"),
    ("type-23", "receiver", b"\x17", "bad type", None, "type", 0,
     "unknown type 0x17"),
    ("type-mtg-undefined", "sender", b"\x97M\x00\x00\x00\x00", "bad type",
     None, "type", 0, "mtg type 0x97 is not one of TSP 1.0"),
    ("log-name-path", "sender", mtg(0x8B, b"\x00\x00\x00\x07\x01\x00\x00\x04"
                                     b"../x\x00\x00\x00\x02{}"),
     "out of range", 0x8B, "name", 14,
     "not a letter, digit, '-', '_' or a '.' after the first"),
    ("log-transport", "sender", mtg(0x8B, b"\x00\x00\x00\x07\x03\x00\x00\x01"
                                    b"a\x00\x00\x00\x02{}"),
     "out of range", 0x8B, "transport", 10,
     "3 is not a log's transport (1..2)"),
    ("log-batch-count", "sender", mtg(0x8D, bytes(20) + b"\x00\x02\x00\x00" +
                                      bytes(96)),
     "truncated", 0x8D, "records", 30,
     "needs 192 bytes, only 96 left in the frame"),
    ("log-batch-empty", "sender", mtg(0x8D, bytes(24)), "bad length", 0x8D,
     "length", 2, "24 bytes; TSP_LOG_BATCH's body is 120 to 49176"),
    ("log-ack-id", "receiver", mtg(0x8C, bytes(6)), "out of range", 0x8C,
     "log_id", 6, "0 is not a log id (1..4294967295)"),
    ("log-open-from-receiver", "receiver", mtg(0x8B, bytes(14)), "bad type",
     0x8B, "type", 0, "TSP_LOG_OPEN comes from a sender, not from the "
     "receiver"),
    ("start-short", "sender", b"\x88M\x00\x00\x00\x0c" + bytes(12),
     "bad length", 0x88, "length", 2, "12 bytes; TSP_START's body is 28"),
    ("time-resp-from-sender", "sender", b"\x8aM\x00\x00\x00\x18" + bytes(24),
     "bad type", 0x8A, "type", 0,
     "TSP_TIME_RESP comes from a receiver, not from the sender"),
    ("type-crypto", "sender", b"\x0a", "bad type", 10, "type", 0,
     "TSP_CRYPTO_RSA is defined by D-ITG 2.8.1 but never sent: no layout"),
    ("type-sender-down", "receiver", b"\x14", "bad type", 20, "type", 0,
     "TSP_SENDER_DOWN is ITGRecv's own, never on the wire"),
    ("wrong-end", "sender", b"\x02", "bad type", 2, "type", 0,
     "TSP_ACK_CONNECT comes from a receiver, not from the sender"),
    ("wrong-end-mtg", "receiver", req(), "bad type", 0x84, "type", 0,
     "TSP_FLOW_REQ comes from a sender, not from the receiver"),
    ("l4", "sender", ditg_flow()[:1] + b"\x09" + ditg_flow()[2:],
     "out of range", 3, "l4_proto", 1, "9 is not a D-ITG L4 protocol (1..5)"),
    ("l3", "sender", ditg_flow()[:5] + b"\x05" + ditg_flow()[6:],
     "out of range", 3, "l3_proto", 5, "5 is not an IP version (4 or 6)"),
    ("meter", "sender", ditg_flow()[:3] + b"\x03" + ditg_flow()[4:],
     "out of range", 3, "meter", 3, "3 is not a D-ITG meter (1..2)"),
    ("log-family", "sender", b"\x0c\x00\x00\x00\x03", "out of range", 12,
     "family", 1, "3 is not an address family (2 or 10)"),
    ("log-name-no-nul", "sender", b"\x13" + b"a" * 200, "out of range", 19,
     "log_name", 1, "no NUL ends the name in its bytes"),
    ("marker", "sender", b"\x80N\x00\x00\x00\x10", "out of range", 0x80,
     "marker", 1, "0x4e is not 'M', an mtg frame's second byte"),
    ("hello-digit", "sender", mtg(0x80, b"MTG-TSP 0x1.000S"), "out of range",
     0x80, "major", 15, "not a decimal digit"),
    ("hello-role", "sender", mtg(0x80, b"MTG-TSP 001.000R"), "out of range",
     0x80, "role", 21, "not 'S', a sender's"),
    ("refusal-code", "receiver", ack(code=99), "out of range", 0x85, "code",
     10, "99 is not a refusal code (0..9)"),
    ("text-control", "receiver", ack(b"ok\x1b[2J"), "out of range", 0x85,
     "reason", 18, "a control character or a byte that is not UTF-8"),
    ("text-not-utf8", "receiver", ack(b"caf\xe9"), "out of range", 0x85,
     "reason", 19, "a control character or a byte that is not UTF-8"),
    ("json-nul", "sender", req(b'{"a":\x001}'), "out of range", 0x84,
     "tg_json", 71, "a NUL or a byte that is not UTF-8"),
    ("ipv4-tail", "sender", req(addr=b"\x0a\x00\x00\x02" + b"\x01" +
                                bytes(11)), "out of range", 0x84, "addr", 22,
     "an IPv4 address with bytes beyond its 4"),
    ("result-flags", "receiver", mtg(0x86, bytes(4) + b"\x00\x00\x00\x10" +
                                     bytes(88)), "out of range", 0x86,
     "flags", 10, "unknown flag bits"),
    ("error-code", "sender", mtg(0x87, bytes(6)), "out of range", 0x87,
     "code", 6, "0 is not an error code (1..9)"),
    ("challenge-lifetime", "receiver", mtg(0x81, bytes(36)), "out of range",
     0x81, "lifetime_ms", 38, "0 is not a lifetime in ms (1..600000)"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_malformed_input_gets_its_exact_error(case):
    """After a good message, so that offsets count from the stream's
    start: the error names the message (its type and first byte), the
    field, the field's byte, and what is wrong; in any split."""
    name, frm, data, code, type_, field, offset, what = case
    first = b"\x01" if frm == "sender" else b"\x02"
    for split in (0, 1, 3):
        out, err = tsp.decode(first + data, frm, split=split)
        assert [o["type"] for o in out] == [first[0]]
        assert err["code"] == code
        assert err["type"] == type_
        assert (err["field"], err["offset"], err["msg_offset"]) == \
            (field, offset + 1, 1)
        assert err["what"] == what
        assert what in err["text"] and f"byte {offset + 1}" in err["text"]


def test_encoder_refuses_what_the_decoder_refuses():
    err = tsp.encode([tsp.flow(l4_proto=9)], "sender")
    assert (err["code"], err["field"], err["offset"]) == \
        ("out of range", "l4_proto", 1)
    err = tsp.encode([{"type": 2}], "sender")
    assert (err["code"], err["field"]) == ("bad type", "type")
    err = tsp.encode([{"type": 0x85, "flow_id": 1, "code": 0, "port": 0,
                       "reason": "x" * 300}], "receiver")
    assert (err["code"], err["field"]) == ("bad length", "text_len")


# --- the real D-ITG ---------------------------------------------------------

def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc):
    for _ in range(200):
        assert proc.poll() is None, "ITGRecv ended"
        out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"],
                             capture_output=True, text=True).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise AssertionError(f"ITGRecv does not listen on {port}")


@pytest.fixture
def itgrecv(tmp_path):
    if not shutil.which("ITGRecv"):
        pytest.fail("D-ITG is not installed (scripts/deps installs d-itg)")
    port = free_port()
    proc = subprocess.Popen(["ITGRecv", "-Sp", str(port)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, proc)
        yield port, proc
    finally:
        proc.kill()
        proc.wait()


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        assert chunk, f"closed after {data!r}"
        data += chunk
    return data


def test_itgrecv_ignores_mtg_hello(itgrecv):
    """A real ITGRecv reads an mtg hello as bytes to skip before
    TSP_CONNECT: after it, 01 gets 02 and 0b gets 07, nothing else, and
    ITGRecv goes on."""
    port, proc = itgrecv
    connect, release = tsp.encode([{"type": 1}, {"type": 11}], "sender")
    ack_connect, ack_release = tsp.encode([{"type": 2}, {"type": 7}],
                                          "receiver")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(hello("sender"))
        s.sendall(connect)
        assert recv_exact(s, 1) == ack_connect
        s.sendall(release)
        assert recv_exact(s, 1) == ack_release
        assert s.recv(16) == b""        # ITGRecv closed: nothing more
    assert proc.poll() is None


def tcp_streams(pcap, sig, check=True):
    """The signalling's bytes each way: (sender's, receiver's). Without
    check, of a capture still being written."""
    out = subprocess.run(
        ["tshark", "-r", pcap, "-Y", "tcp.len > 0", "-T", "fields",
         "-e", "tcp.srcport", "-e", "tcp.payload"],
        check=check, capture_output=True, text=True).stdout
    snd, rcv = b"", b""
    for line in out.splitlines():
        sport, payload = line.split("\t")
        if int(sport) == sig:
            rcv += bytes.fromhex(payload)
        else:
            snd += bytes.fromhex(payload)
    return snd, rcv


def test_real_d_itg_session(itgrecv, tmp_path):
    """ITGSend with two flows (UDP, and TCP with a DS byte) and a receiver
    log name, to ITGRecv on unusual ports; tcpdump on lo. Our decoder reads
    what ITGSend was told; our encoder makes the same bytes both ends
    sent."""
    sig, _ = itgrecv
    p1, p2 = free_port(socket.SOCK_DGRAM), free_port()
    pcap = tmp_path / "tsp.pcap"
    # --immediate-mode: each packet handed over as it comes, not when a
    # buffer's timeout passes (test_wireshark_tsp.py does the same)
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "--immediate-mode",
                             "-n", "-w", pcap, f"tcp port {sig}"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert "listening on" in dump.stderr.readline()
        script = tmp_path / "flows"
        script.write_text(
            f"-a 127.0.0.1 -Sdp {sig} -rp {p1} -T UDP -C 10 -c 100 -t 400\n"
            f"-a 127.0.0.1 -Sdp {sig} -rp {p2} -T TCP -C 10 -c 100 -t 400 "
            f"-b 32\n")
        log = str(tmp_path / "recv.log")
        subprocess.run(["ITGSend", script, "-x", log], cwd=tmp_path,
                       check=True, timeout=120, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        # ITGRecv answers each close a second after it, ITGSend there or
        # not: the capture is whole once both answers are in it
        for _ in range(120):
            time.sleep(0.25)
            back, _ = tsp.decode(tcp_streams(pcap, sig, check=False)[1],
                                 "receiver")
            if [m["type"] for m in back].count(6) == 2:
                break
    finally:
        dump.send_signal(signal.SIGINT)
        dump.wait(timeout=30)
    snd, rcv = tcp_streams(pcap, sig)

    told = {1: tsp.flow(flow_id=1, l4_proto=2, port=p1),
            2: tsp.flow(flow_id=2, l4_proto=1, port=p2, ds_byte=32)}
    got, err = tsp.decode(snd, "sender", split=1)
    assert err is None
    names = [m["name"] for m in got]
    # ITGSend may exit before the last TSP_ACK_CLOSED_FLOW, and then sends
    # no TSP_RELEASE: test_itgrecv_ignores_mtg_hello has those two
    assert names[:2] == ["TSP_CONNECT", "TSP_SEND_NAME_LOG"]
    assert sorted(names[2:6]) == ["TSP_CLOSED_FLOW"] * 2 + \
        ["TSP_SEND_FLOW"] * 2
    assert names[6:] in ([], ["TSP_RELEASE"])
    assert got[1]["log_name"] == log
    flows = {m["flow_id"]: m for m in got if m["type"] == 3}
    for fid, msg in told.items():
        assert {k: flows[fid][k] for k in msg} == msg
    closed = [m["flow_id"] for m in got if m["type"] == 4]
    assert sorted(closed) == [1, 2]

    # our encoder: the same bytes for the same requests
    ours = tsp.encode([{"type": 1}, {"type": 19, "log_name": log},
                       told[1], told[2], {"type": 4, "flow_id": 1},
                       {"type": 4, "flow_id": 2}], "sender")
    pieces = {(m["type"], m.get("flow_id")):
              snd[m["offset"]:m["offset"] + m["len"]] for m in got}
    assert ours == [pieces[(1, None)], pieces[(19, None)], pieces[(3, 1)],
                    pieces[(3, 2)], pieces[(4, 1)], pieces[(4, 2)]]

    back, err = tsp.decode(rcv, "receiver", split=1)
    assert err is None
    names = [m["name"] for m in back]
    assert names[:2] == ["TSP_ACK_CONNECT", "TSP_ACK_SEND_NAME_LOG"]
    acks = {m["flow_id"]: m["port"] for m in back if m["type"] == 5}
    assert acks == {1: p1, 2: p2}       # the port bound, big-endian here
    # ITGRecv answers the closes in their order, a second apart
    acked = [m["flow_id"] for m in back if m["type"] == 6]
    assert acked == closed
    ours = tsp.encode([{"type": 2}, {"type": 18},
                       {"type": 5, "flow_id": 1, "port": p1},
                       {"type": 5, "flow_id": 2, "port": p2},
                       {"type": 6, "flow_id": acked[0]}], "receiver")
    pieces = {(m["type"], m.get("flow_id")):
              rcv[m["offset"]:m["offset"] + m["len"]] for m in back}
    assert ours == [pieces[(2, None)], pieces[(18, None)], pieces[(5, 1)],
                    pieces[(5, 2)], pieces[(6, acked[0])]]


# --- keys and the challenge-response ----------------------------------------

def key_file(path, text, mode=0o600):
    path.write_text(text)
    os.chmod(path, mode)
    return path


def run_tool(*args):
    res = subprocess.run([tsp.TOOL, *map(str, args)], capture_output=True,
                         text=True, timeout=60)
    return res


def steps(ks, kr, *args):
    res = run_tool("auth", ks, kr, *args)
    assert res.returncode == 0, res.stderr
    return [json.loads(x) for x in res.stdout.splitlines()]


@pytest.fixture
def keys(tmp_path):
    return (key_file(tmp_path / "a.key", "0123456789abcdef" * 4 + "\n"),
            key_file(tmp_path / "b.key", "0123456789ABCDEF" * 3 +
                     "0123456789abcdee"))


def test_right_key_passes_both_ways(keys):
    a, _ = keys
    out = steps(a, a, "challenge@0", "answer", "verify@9999", "confirm")
    assert [s["ok"] for s in out] == [True] * 4
    assert out[-1]["sender_authenticated"] and \
        out[-1]["receiver_authenticated"]


def test_wrong_key_is_refused(keys):
    a, b = keys
    out = steps(a, b, "challenge@0", "answer", "verify@1")
    assert out[2]["code_name"] == "auth-failed"
    assert "not the receiver's key" in out[2]["why"]
    assert not out[2]["receiver_authenticated"]


def test_receiver_without_the_key_is_refused_by_the_sender(keys):
    """A receiver's proof changed on the way (as one made without the
    key would be): the sender refuses to go on."""
    a, _ = keys
    out = steps(a, a, "challenge@0", "answer", "verify@1", "tamper",
                "confirm")
    assert out[4]["code_name"] == "auth-failed"
    assert not out[4]["sender_authenticated"]


def test_replayed_nonce_is_refused(keys):
    """The sender's first answer, recorded and sent again to a new
    challenge on the same connection; and a receiver repeating its
    challenge's nonce."""
    a, _ = keys
    out = steps(a, a, "challenge@0", "answer", "verify@1", "confirm",
                "challenge@2", "replay-auth", "verify@3")
    assert out[6]["code_name"] == "auth-replay"
    assert "a replay" in out[6]["why"]
    out = steps(a, a, "challenge@0", "answer", "verify@1", "confirm",
                "replay-challenge", "answer")
    assert out[5]["code_name"] == "auth-replay"
    assert "receiver's challenge repeats a nonce" in out[5]["why"]


def test_a_challenge_is_answered_once(keys):
    a, _ = keys
    out = steps(a, a, "challenge@0", "answer", "verify@1", "verify@2")
    assert out[3]["code_name"] == "unexpected"


def test_expired_challenge_is_refused(keys):
    """A challenge lives 10 s: answered at 10.001 s, it is refused; at
    exactly 10 s, taken."""
    a, _ = keys
    out = steps(a, a, "challenge@0", "answer", "verify@10001")
    assert out[2]["code_name"] == "auth-expired"
    assert "1 ms after its 10000 ms lifetime" in out[2]["why"]
    out = steps(a, a, "challenge@0", "answer", "verify@10000")
    assert out[2]["ok"]


def test_key_file_mode(tmp_path):
    k = key_file(tmp_path / "k", "ab" * 32 + "\n", 0o644)
    res = run_tool("key", k)
    assert res.returncode == 1
    assert json.loads(res.stdout)["error"] == (
        f"key file {k}: mode 0644 lets group or others at it; a key must "
        f"be private: chmod 600 {k}")
    for mode in (0o640, 0o604, 0o620, 0o602):
        os.chmod(k, mode)
        assert run_tool("key", k).returncode == 1, oct(mode)
    for mode in (0o600, 0o400):
        os.chmod(k, mode)
        res = run_tool("key", k)
        assert res.returncode == 0 and json.loads(res.stdout) == {"ok": True}


@pytest.mark.parametrize("text,why", [
    ("ab" * 31 + "\n", "62 hexadecimal digits, not 64"),
    ("ab" * 31 + "zz\n", "byte 63 is not a hexadecimal digit"),
    ("ab" * 33 + "\n", "byte 65: more than 64 hexadecimal digits"),
    ("ab" * 32 + "\n\n", "byte 65: more than 64 hexadecimal digits"),
    ("", "0 hexadecimal digits, not 64"),
])
def test_key_file_format(tmp_path, text, why):
    k = key_file(tmp_path / "k", text)
    res = run_tool("key", k)
    assert res.returncode == 1
    err = json.loads(res.stdout)["error"]
    assert err.startswith(f"key file {k}: {why}")
    assert "64 hexadecimal digits (32 bytes)" in err
