# SPDX-License-Identifier: GPL-2.0-or-later
"""The TSP dissector (mtgtsp, in scripts/wireshark/mtg.lua) under tshark,
against ctl/tsp's own decoder (tests/tools/tsp_tool, through
tests/mtgtest/tsp.py) on the same bytes, message by message and field by
field:

- a capture of real exchanges between `mtgctl run` and `mtgctl recv` on
  loopback (tcpdump on lo; no module: the flow is refused `bind`): the
  hellos, the challenge and both proofs, the clock exchanges, the flow
  request and its refusal, the release; a wrong key's TSP_ERROR; D-ITG's
  opening, which recv closes on;
- hand-made captures of every message type of D-ITG 2.8.1 and of mtg from
  the end that sends it (the bytes made by ctl/tsp's encoder), cut into
  TCP segments every way the stream may come: two messages in one
  segment, one across two, one cut inside its header or before the byte
  that gives its length; D-ITG's passive mode; the port preference and
  Decode As;
- malformed messages: each flagged with its expert item, never a Lua
  error, the messages after it still read where the stream can be
  followed."""

import random
import re
import signal
import struct
import subprocess

import pytest

from mtgtest import tsp, tspd
from mtgtest import wireshark as ws
from mtgtest.ctl import MTGCTL

ROOT = ws.ROOT

pytestmark = pytest.mark.skipif(ws.TSHARK is None,
                                reason="tshark is not installed: run 'make deps'")

SENDER, RECEIVER = ("10.0.0.1", 40000), ("10.0.0.2", 9000)
# the expert items of a message ctl/tsp refuses
MALFORMED = ("mtgtsp.bad_length", "mtgtsp.bad_value", "mtgtsp.unknown_type",
             "mtgtsp.wrong_end")
SENDER6, RECEIVER6 = ("fd00:23::1", 40001), ("fd00:23::2", 9000)


@pytest.fixture(scope="module", autouse=True)
def tool():
    tsp.build()


def by_direction(msgs):
    """{(tcp.stream, from): [messages]} of a dissection."""
    out = {}
    for m in msgs:
        key = (m.stream, m.fields["mtgtsp.from"][0])
        out.setdefault(key, []).append(m)
    return out


def segments(pieces, merge=(), split=()):
    """The messages' bytes (pieces) as TCP segments: each message its own
    segment, but message i joined to the segment before it for i in merge,
    and message i cut after split[i] bytes (its rest a segment that the
    next message joins if merged). [(segment, the messages that end in
    it)]."""
    out, cur, ends = [], b"", []
    for i, p in enumerate(pieces):
        if cur and i not in merge:
            out.append((cur, ends))
            cur, ends = b"", []
        if i in split:
            out.append((cur + p[:split[i]], ends))
            cur, ends = p[split[i]:], []
        else:
            cur += p
        ends = ends + [i]
    out.append((cur, ends))
    return out


def send_all(conn, plans):
    """Each end's segments, the sender's and the receiver's alternating:
    {(from): [frame number (from 1, in conn.frames) where each message's
    last byte is]}."""
    where = {"sender": [], "receiver": []}
    for k in range(max(len(p) for p in plans.values())):
        for frm in ("sender", "receiver"):
            if k < len(plans[frm]):
                seg, ends = plans[frm][k]
                conn.send(frm == "receiver", seg)
                where[frm] += [len(conn.frames)] * len(ends)
    return where


def samples(kind):
    """The encoded samples of D-ITG ('ditg') or mtg ('mtg') types, by end:
    {from: [bytes]} and {from: [message]}."""
    data, msgs = {"sender": [], "receiver": []}, {"sender": [], "receiver": []}
    for frm, m in tsp.SAMPLES:
        if (m["type"] >= 0x80) == (kind == "mtg"):
            msgs[frm].append(m)
            data[frm] += tsp.encode([m], frm)
    return data, msgs


@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    """Every type of tsp.SAMPLES over two connections, mtg's over IPv4
    and D-ITG's over IPv6, cut into segments as described above: the pcap,
    each connection's bytes by end, where each message must be dissected
    and the plans (to check the cases)."""
    frames, streams, where, plans = [], [], [], []
    for kind, (snd, rcv) in (("mtg", (SENDER, RECEIVER)),
                             ("ditg", (SENDER6, RECEIVER6))):
        data, _ = samples(kind)
        if kind == "mtg":
            # sender: hello, auth, flow_req (JSON) x2, error, start x2,
            # time_req, log_open x2, log_batch x2, log_close; receiver:
            # hello, challenge, auth_ok, flow_ack x2, result, error,
            # time_resp, log_ack x2, log_done, error (refused)
            plan = {"sender": segments(data["sender"], merge={6, 9, 12},
                                       split={2: 100, 7: 3, 11: 40}),
                    "receiver": segments(data["receiver"],
                                         merge={1, 3, 4, 9, 11},
                                         split={2: 17, 10: 30})}
        else:
            # sender: 1, 3, 3 (v6), 4, 9, 11, 12, 12 (v6), 14, 17, 19;
            # receiver: 2, 5, 6, 7, 8, 13, 15, 16, 18, 21, 22
            plan = {"sender": segments(data["sender"], merge={4, 5},
                                       split={1: 3, 7: 2, 10: 150}),
                    "receiver": segments(data["receiver"], merge={1, 2},
                                         split={6: 1})}
        conn = ws.TcpConnection(snd[0], rcv[0], snd[1], rcv[1])
        w = send_all(conn, plan)
        conn.close()
        where.append({frm: [n + len(frames) for n in w[frm]] for frm in w})
        frames += conn.frames
        streams.append({frm: b"".join(data[frm]) for frm in data})
        plans.append(plan)
    path = tmp_path_factory.mktemp("tsp") / "crafted.pcap"
    ws.write_frames(path, frames)
    return path, streams, where, plans


def test_the_cases_are_what_they_claim(crafted):
    """Every type from each end that sends it; segments with two and
    three messages; messages across two segments, one cut inside its
    frame header, one before its length byte."""
    _, streams, _, plans = crafted
    types = set()
    for stream in streams:
        for frm, data in stream.items():
            got, err = tsp.decode(data, frm)
            assert err is None
            types |= {(frm, m["type"]) for m in got}
    assert types == {(frm, m["type"]) for frm, m in tsp.SAMPLES}
    ends = [len(e) for plan in plans for p in plan.values() for _, e in p]
    assert 2 in ends and 3 in ends
    assert ends.count(0) >= 5           # a segment that ends no message
    # cut inside an mtg frame's header; before D-ITG's l3_proto, family
    assert (b"\x89M\x00", []) in plans[0]["sender"]
    assert (b"\x03\x02\x00", []) in plans[1]["sender"]
    assert (b"\x0c\x00", []) in plans[1]["sender"]


def test_every_message_is_ctl_tsps(crafted):
    """Message by message, each field equals what ctl/tsp's decoder reads
    from the same end's bytes, and each message is shown in the frame
    that holds its last byte."""
    path, streams, where, _ = crafted
    got = by_direction(ws.tsp_dissect(path))
    assert len(got) == 4
    for i, stream in enumerate(streams):
        for frm, data in stream.items():
            decoded, err = tsp.decode(data, frm)
            assert err is None
            ws.tsp_check(got[(i, frm)], decoded, frm)
            assert [m.frame for m in got[(i, frm)]] == where[i][frm]


def test_info_column(crafted):
    path, _, _, _ = crafted
    info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info")
    lines = info.splitlines()
    assert "TSP_HELLO 1.999; TSP_CHALLENGE lifetime 10000 ms" in lines
    assert "TSP_FLOW_REQ flow 3 run 77 UDP to 10.0.0.2 port 9000" in info
    assert ("TSP_FLOW_ACK flow 4 refused (rate): rate 8 Mbit/s over this "
            "receiver's 1 Mbit/s \u2014 refus\u00e9") in info
    assert "TSP_ERROR version: TSP 2.0 here; 1.0 asked" in info
    # a frame with a reassembled message's end, then two more
    assert ("TSP_AUTH_OK; TSP_FLOW_ACK flow 3 accepted, port 9000; "
            "TSP_FLOW_ACK flow 4 refused (rate)") in info
    assert "TSP_CONNECT (D-ITG's opening)" in lines
    assert "TSP_SEND_FLOW flow 7 to 2001:db8::1 port 65535" in info
    assert ("TSP_LOG_OPEN run 7 host host-a, batches over TCP; "
            "TSP_LOG_OPEN run 0 host " + "a" * 64 + ", batches over UDP"
            in lines)
    assert "TSP_LOG_ACK log 4294967295, batches to UDP port 9001" in info
    assert "TSP_LOG_BATCH log 3 batch 0: 1 record from 0" in lines
    assert ("TSP_LOG_BATCH log 3 batch 9223372036854775807: 2 records from "
            "4611686018427387904; TSP_LOG_CLOSE 500 records in 36 batches, "
            "0 not sent") in lines
    assert ("TSP_LOG_DONE 486 records in 7-host-a.mtgrec, 14 lost "
            "(1 batch), 0 late; TSP_ERROR refused: run 8 here, not 7"
            in lines)


def test_filters(crafted):
    """Display filters on the fields select the frames of those
    messages."""
    path, _, where, _ = crafted
    msgs = ws.tsp_dissect(path)

    def frames_of(pred):
        return sorted({m.frame for m in msgs if pred(m.fields)})

    def value(f, name):
        return int(f[name][0], 0) if name in f else None

    tried = {
        "mtgtsp.type == 0x88": frames_of(
            lambda f: value(f, "mtgtsp.type") == 0x88),
        "mtgtsp.type == 0x85 && mtgtsp.refusal > 0": frames_of(
            lambda f: value(f, "mtgtsp.refusal") not in (None, 0)),
        "mtgtsp.flow == 3": frames_of(
            lambda f: value(f, "mtgtsp.flow") == 3),
        "mtgtsp.run == 77": frames_of(lambda f: value(f, "mtgtsp.run") == 77),
        'mtgtsp.from == "receiver" && mtgtsp.type < 0x80': frames_of(
            lambda f: f["mtgtsp.from"][0] == "receiver" and
            value(f, "mtgtsp.type") < 0x80),
        "mtgtsp.error == 1": frames_of(lambda f: value(f, "mtgtsp.error") == 1),
        'mtgtsp.tg_json contains "caf"': frames_of(
            lambda f: "caf" in f.get("mtgtsp.tg_json", ("",))[0]),
        "mtgtsp.addr6 == 2001:db8::1": frames_of(
            lambda f: f.get("mtgtsp.addr6", ("",))[0] == "2001:db8::1"),
        "mtgtsp.ditg": frames_of(lambda f: value(f, "mtgtsp.type") == 1),
        "mtgtsp.log.log_id == 3": frames_of(
            lambda f: value(f, "mtgtsp.log.log_id") == 3),
        "mtgtsp.log.lost > 0": frames_of(
            lambda f: value(f, "mtgtsp.log.lost") not in (None, 0)),
        "mtgtsp.log.transport == 2": frames_of(
            lambda f: value(f, "mtgtsp.log.transport") == 2),
        'mtgtsp.log.meta contains "h\u00f4te"': frames_of(
            lambda f: "h\u00f4te" in f.get("mtgtsp.log.meta", ("",))[0]),
        "mtgtsp.error == 9": frames_of(lambda f: value(f, "mtgtsp.error") == 9),
    }
    for flt, want in tried.items():
        assert want, flt
        assert ws.selected(path, flt) == want, flt
    assert len(tried["mtgtsp.type == 0x88"]) == 1      # two in one segment
    assert tried["mtgtsp.ditg"] == where[1]["sender"][:1]


def one_connection(tmp_path, plan, port=9000):
    """A pcap of one connection on port: plan, [(from, bytes)], each a
    segment."""
    conn = ws.TcpConnection(SENDER[0], RECEIVER[0], SENDER[1], port)
    for frm, data in plan:
        conn.send(frm == "receiver", data)
    conn.close()
    path = tmp_path / "one.pcap"
    ws.write_frames(path, conn.frames)
    return path


def test_port_preference_and_decode_as(tmp_path, crafted):
    """On another port, nothing is TSP until the preference names it, or
    Decode As; then the receiver is the end on that port either way."""
    data, _ = samples("mtg")
    path = one_connection(tmp_path, [("sender", data["sender"][0]),
                                     ("receiver", data["receiver"][0])],
                          port=9123)
    assert ws.tsp_dissect(path) == []
    for args in (("-o", "mtgtsp.tcp_ports:9100-9200"),
                 ("-d", "tcp.port==9123,mtgtsp")):
        msgs = ws.tsp_dissect(path, *args)
        assert [m.fields["mtgtsp.hello"][0] for m in msgs] == \
            ["MTG-TSP 001.000S", "MTG-TSP 001.999R"], args
        assert [m.fields["mtgtsp.from"][0] for m in msgs] == \
            ["sender", "receiver"], args
        assert all(not m.experts for m in msgs), args
    # and the default port is the preference's: off when it is changed
    assert ws.tsp_dissect(crafted[0], "-o", "mtgtsp.tcp_ports:9100") == []


def test_ditg_passive_mode(tmp_path):
    """ITGSend -H: its TSP_SEND_FLOW has the passive fields and it sends
    TSP_ACK_SEND_FLOW; read so under the preference, flagged without."""
    snd = tsp.encode([tsp.flow(passive=True, passive_port=19121,
                               src_specified=255),
                      tsp.flow(passive=True, flow_id=2, l3_proto=6,
                               addr="::1", passive_port=1, src_specified=0),
                      {"type": 5, "flow_id": 1, "passive": True}], "sender")
    path = one_connection(tmp_path, [("sender", snd[0] + snd[1][:4]),
                                     ("sender", snd[1][4:] + snd[2])])
    decoded, err = tsp.decode(b"".join(snd), "sender", passive=True)
    assert err is None
    msgs = ws.tsp_dissect(path, "-o", "mtgtsp.ditg_passive:TRUE")
    ws.tsp_check(msgs, decoded, "sender")
    assert msgs[0].fields["mtgtsp.passive_port"][0] == "19121"
    # without it, the sender's 5 is not a sender's
    path = one_connection(tmp_path, [("sender", snd[2])])
    (msg,) = ws.tsp_dissect(path)
    assert msg.experts == ["mtgtsp.wrong_end"]
    assert "mtgtsp.port" not in msg.fields


def test_malformed(tmp_path):
    """Each malformed message flagged with its expert item, no Lua error;
    a message that can be framed (an mtg type and marker, a length within
    its type's bounds) is skipped whole and the next one read; one that
    cannot ends what is read of the segment, and the next segment is read
    afresh."""
    enc = {"sender": {"time": tsp.encode([{"type": 0x89, "t1": 5}],
                                         "sender")[0]},
           "receiver": {"time": tsp.encode([{"type": 0x8A, "t1": 5, "t2": 6,
                                             "t3": 7}], "receiver")[0]}}
    ack = tspd.frame(0x85, bytes.fromhex("00000001" "002a" "0000" "0000"))
    # FLOW_ACKs whose lengths are within the type's bounds, but one byte
    # over its fields; and short of the text_len's 20 bytes
    ack_long = tspd.frame(0x85, bytes.fromhex("00000001" "0000" "2328"
                                              "0002") + b"ok" + b"?")
    ack_short = tspd.frame(0x85, bytes.fromhex("00000001" "0000" "2328"
                                               "0014") + b"ok")
    err = tspd.frame(0x87, bytes.fromhex("0001" "00" "00" "012c") +
                     b"x" * 300)
    bad_text = tspd.frame(0x87, bytes.fromhex("0007" "00" "00" "0003") +
                          b"a\nb")
    cases = [
        # (from, bytes, the expert items of its messages, in order)
        # a length outside the type's bounds: the stream is not followed
        ("sender", tspd.frame(0x80, b"MTG-TSP 001.000S!") +
         enc["sender"]["time"], [["mtgtsp.bad_length"]]),
        # within them, not the fields' bytes: the next message is read
        ("receiver", ack_long + enc["receiver"]["time"],
         [["mtgtsp.bad_length"], []]),
        ("receiver", ack_short + enc["receiver"]["time"],
         [["mtgtsp.bad_length"], []]),
        ("sender", tspd.frame(0x80, b"MTG-TSP 0x1.000R") +
         enc["sender"]["time"], [["mtgtsp.bad_value"] * 2, []]),
        ("sender", ack, [["mtgtsp.wrong_end", "mtgtsp.bad_value",
                          "mtgtsp.refused"]]),
        ("receiver", ack, [["mtgtsp.bad_value", "mtgtsp.refused"]]),
        ("receiver", err + enc["receiver"]["time"],
         [["mtgtsp.bad_length"]]),
        ("receiver", bad_text, [["mtgtsp.bad_value", "mtgtsp.error_sent"]]),
        ("receiver", tspd.frame(0x86, bytes(90)),
         [["mtgtsp.bad_length"]]),
        ("receiver", tspd.frame(0x9f, b"later") + enc["receiver"]["time"],
         [["mtgtsp.unknown_type"], []]),
        ("sender", b"\x84M\xff\xff\xff\xff" + enc["sender"]["time"],
         [["mtgtsp.bad_length"]]),
        ("sender", b"\x80X" + bytes(20), [["mtgtsp.bad_value"]]),
        ("sender", b"\x42" + enc["sender"]["time"],
         [["mtgtsp.unknown_type"]]),
        ("receiver", b"\xc5M" + enc["receiver"]["time"],
         [["mtgtsp.unknown_type"]]),
        ("sender", b"\x0a\x01", [["mtgtsp.unknown_type"]]),
        ("sender", b"\x03\x02\x00\x01\x00\x05" + bytes(30),
         [["mtgtsp.bad_value"]]),
        ("sender", b"\x0c\x00\x00\x00\x07" + bytes(10),
         [["mtgtsp.bad_value"]]),
        ("receiver", b"\x03\x02\x00\x01\x00\x04" + bytes(21),
         [["mtgtsp.wrong_end"]]),
        ("sender", enc["sender"]["time"], [[]]),
    ]
    path = one_connection(tmp_path, [(frm, data) for frm, data, _ in cases])
    msgs = ws.tsp_dissect(path)
    got = {}
    for m in msgs:
        got.setdefault(m.frame, []).append(sorted(m.experts))
    # frames 1-3: the handshake; then one segment a case
    assert [got.get(4 + i) for i in range(len(cases))] == \
        [[sorted(e) for e in want] for _, _, want in cases]
    # the framed ones after a bad length: read right
    for m in msgs:
        if m.fields["mtgtsp.type"][0] in ("0x89", "0x8a"):
            assert m.fields["mtgtsp.t1"][0] == "5" and not m.experts
    info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info").splitlines()
    assert info[4 + 12 - 1] == "type 0x42 [malformed, stream not followed]"
    assert info[4] == "TSP_FLOW_ACK flow 1 accepted, port 9000 [malformed]; " \
        "TSP_TIME_RESP"
    assert ws.selected(path, " || ".join(MALFORMED)) == \
        [4 + i for i, (_, _, e) in enumerate(cases)
         if set(MALFORMED) & set(sum(e, []))]


def flagged_as_ctl_tsp(tmp_path, cases):
    """cases, [(from, bytes, ctl/tsp's error code or None, the expert
    items)], each its own segment of one connection: ctl/tsp gives each
    its code, and the dissector flags each with its items."""
    for frm, data, code, _ in cases:
        _, err = tsp.decode(data, frm)
        assert (err and err["code"]) == code, (frm, data.hex(), err)
    path = one_connection(tmp_path, [(frm, data) for frm, data, _, _ in
                                     cases])
    got = {m.frame: sorted(m.experts) for m in ws.tsp_dissect(path)}
    # frames 1-3: the handshake; then one segment a case
    assert [got.get(4 + i) for i in range(len(cases))] == \
        [sorted(e) for _, _, _, e in cases]


def log_open(run=7, transport=1, reserved=0, name=b"host-a", meta=b"{}"):
    """TSP_LOG_OPEN's bytes, any of its fields as given."""
    return tspd.frame(0x8B, struct.pack(">IBBH", run, transport, reserved,
                                        len(name)) + name +
                      struct.pack(">I", len(meta)) + meta)


def test_malformed_logs(tmp_path):
    """The log server's messages, each with one value ctl/tsp refuses:
    flagged with the expert item of the kind of error ctl/tsp gives, and
    the next message read (each one's length is within its type's
    bounds); a refusal (error 9) is an error, not a malformed one."""
    batch = struct.pack(">IQQHH", 3, 0, 0, 0, 0) + bytes(96)
    cases = [
        # (from, bytes, ctl/tsp's error code, the expert items)
        ("sender", log_open(name=b"a/b"), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", log_open(name=b".x"), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", log_open(name=b""), "bad length", ["mtgtsp.bad_length"]),
        ("sender", log_open(name=b"a" * 65), "bad length",
         ["mtgtsp.bad_length"]),
        ("sender", log_open(name=b"ab", meta=b""), "bad length",
         ["mtgtsp.bad_length"]),
        ("sender", log_open(meta=b"{\0}"), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", log_open(transport=3), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", log_open(reserved=1), "out of range",
         ["mtgtsp.bad_value"]),
        ("receiver", tspd.frame(0x8C, bytes(6)), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x8D, batch), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x8D, batch[:20] + b"\x02\x01\x00\x00" +
                              bytes(96 * 2)), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x8D, batch[:20] + b"\x00\x02\x00\x00" +
                              bytes(96)), "truncated",
         ["mtgtsp.bad_length"]),
        ("sender", tspd.frame(0x8D, batch[:20] + b"\x00\x01\x00\x00" +
                              bytes(97)), "bad length",
         ["mtgtsp.bad_length"]),
        ("receiver", tspd.frame(0x8F, bytes(32) + b"\x00\x03a\nb"),
         "out of range", ["mtgtsp.bad_value"]),
        ("receiver", tspd.frame(0x87, b"\x00\x0a\x8b\x00\x00\x00"),
         "out of range", ["mtgtsp.bad_value", "mtgtsp.error_sent"]),
        ("receiver", tspd.frame(0x87, b"\x00\x09\x8b\x00\x00\x00"), None,
         ["mtgtsp.error_sent"]),
        ("sender", log_open(), None, []),
    ]
    flagged_as_ctl_tsp(tmp_path, cases)


def test_log_datagrams(tmp_path):
    """logd's UDP datagrams (protocol mtglog, on its port 9001 by the
    preference): a TSP_LOG_BATCH, read as ctl/tsp reads it, and its MAC;
    what logd refuses outright (not a batch, not a batch's length and a
    MAC, too short for one) flagged mtglog.not_batch; a bad value inside
    flagged as on TCP; another port only by the preference; MTG traffic
    to that port left to mtg."""
    samples = [m for frm, m in tsp.SAMPLES if m["type"] == 0x8D]
    batches = tsp.encode(samples, "sender")
    close = tsp.encode([m for f, m in tsp.SAMPLES if m["type"] == 0x8E],
                       "sender")[0]
    count0 = batches[0][:26] + b"\x00\x00" + batches[0][28:]
    mac = bytes(range(32))
    cases = [
        # (datagram, its message's bytes if it is a batch and a MAC, the
        # experts of the frame)
        (batches[0] + mac, batches[0], []),
        (batches[1] + mac, batches[1], []),
        (count0 + mac, None, ["mtgtsp.bad_value"]),
        (close + mac, None, ["mtglog.not_batch"]),
        (batches[0] + mac[:31], None, ["mtglog.not_batch"]),
        (batches[0] + mac + b"x", None, ["mtglog.not_batch"]),
        (batches[0][:5], None, ["mtglog.not_batch"]),
    ]
    path = tmp_path / "logd-udp.pcap"

    def capture(port):
        ws.write_frames(path, [ws.wire.build_frame("10.0.0.1", "10.0.0.2",
                                                   40000, port, d)
                               for d, _, _ in cases])

    capture(9001)
    msgs = ws.tsp_dissect(path)
    for i, (_, msg, _) in enumerate(cases):
        if msg:
            decoded, err = tsp.decode(msg, "sender")
            assert err is None
            ws.tsp_check([m for m in msgs if m.frame == i + 1], decoded,
                         "sender")
    macs = ws.tshark(path, "-T", "fields", "-e", "mtglog.mac").splitlines()
    assert [m.replace(":", "") for m in macs] == \
        ["" if "mtglog.not_batch" in e else mac.hex() for _, _, e in cases]
    for flt in ("mtglog.not_batch", "mtgtsp.bad_value"):
        assert ws.selected(path, flt) == \
            [i + 1 for i, (_, _, e) in enumerate(cases) if flt in e], flt
    assert ws.selected(path, "mtglog") == list(range(1, len(cases) + 1))
    info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info").splitlines()
    assert info[0] == "TSP_LOG_BATCH log 3 batch 0: 1 record from 0 " \
        "(datagram)"
    capture(9123)
    assert ws.selected(path, "mtglog") == []
    assert len(ws.selected(path, "mtglog", "-o",
                           "mtglog.udp_ports:9100-9200")) == len(cases)
    # MTG traffic to that port is mtg's
    hdr = ws.wire.MtgHeader(magic=ws.abi.HDR_MAGIC,
                            version=ws.abi.HDR_VERSION, flags=0,
                            hdr_len=ws.abi.HDR_LEN, run_id=1, tg_id=2, seq=3,
                            sched_ns=0, nut=bytes(6), patt_kind=0,
                            patt_value=0, patt_seed=0, crc=0, tx_ns=0,
                            tp_ns=(0, 0, 0, 0))
    ws.write_frames(path, [ws.wire.build_frame("10.0.0.1", "10.0.0.2",
                                               40000, 9001,
                                               hdr.encode("auto"))])
    assert ws.selected(path, "mtg.seq == 3 && !mtglog") == [1]


def test_damaged_messages_never_raise(tmp_path):
    """Every sample with one byte changed at a random place (seeded), five
    times each, each damaged message alone on its own connection: no Lua
    error on any frame (tsp_dissect checks); a message ctl/tsp refuses is
    flagged, one it takes is not, and one it finds cut short is waited
    for (a length that asks for bytes the capture does not have)."""
    rng = random.Random(23)
    frames, cases = [], []
    for frm, m in tsp.SAMPLES:
        (data,) = tsp.encode([m], frm)
        for _ in range(5):
            bad = bytearray(data)
            i = rng.randrange(len(bad))
            bad[i] ^= rng.randrange(1, 256)
            conn = ws.TcpConnection(SENDER[0], RECEIVER[0],
                                    20000 + len(cases), RECEIVER[1])
            conn.send(frm == "receiver", bytes(bad))
            conn.close()
            frames += conn.frames
            cases.append((frm, bytes(bad)))
    path = tmp_path / "damaged.pcap"
    ws.write_frames(path, frames)
    msgs = ws.tsp_dissect(path)
    first = {}
    for m in msgs:
        first.setdefault(m.stream, m)
    flagged = waiting = 0
    for stream, (frm, bad) in enumerate(cases):
        _, err = tsp.decode(bad, frm)
        if stream not in first:
            # waiting for bytes the capture does not have: the rest of a
            # D-ITG message, of an mtg frame's header, or of a body whose
            # length is within its type's bounds (ctl/tsp refuses no
            # length of it)
            if bad[0] < 0x80:
                assert err["code"] == "truncated", (frm, bad.hex())
            elif len(bad) >= 6:
                assert 6 + int.from_bytes(bad[2:6], "big") > len(bad)
                _, head = tsp.decode(bad[:6], frm)
                assert head["code"] != "bad length", (frm, bad.hex())
            waiting += 1
            continue
        wrong = set(first[stream].experts) & set(MALFORMED)
        if err and err["code"] != "truncated":
            assert wrong, (frm, bad.hex(), err)
            flagged += 1
        elif err is None:
            assert not wrong, (frm, bad.hex(), first[stream].experts)
    assert flagged > 60 and waiting <= 25, (flagged, waiting)


def test_capture_cut_short(tmp_path):
    """A capture that kept part of a segment (tcpdump -s): what is there
    is read, the rest flagged, no Lua error."""
    (req,) = tsp.encode([m for f, m in tsp.SAMPLES if m["type"] == 0x84][:1],
                        "sender")
    (hello,) = tsp.encode([{"type": 0x80, "major": 1, "minor": 0}],
                          "sender")
    conn = ws.TcpConnection(SENDER[0], RECEIVER[0], SENDER[1], RECEIVER[1])
    conn.send(False, hello + req)
    path = tmp_path / "cut.pcap"
    path.write_bytes(ws.wire.write_pcap(
        [ws.wire.Record(i, len(d), d[:len(d) - 40] if i == 3 else d)
         for i, d in enumerate(conn.frames)]))
    msgs = ws.tsp_dissect(path)
    assert [m.experts for m in msgs] == [[], ["mtgtsp.cut_short"]]
    assert msgs[0].fields["mtgtsp.hello"][0] == "MTG-TSP 001.000S"


# --- a real exchange -------------------------------------------------------

IDF = """\
key {key}
tgid 1
	dist fixed
	pkts fixed 200
	thro 1M
	time relative 0 1s
	dev lo
	dst 127.0.0.1:5000
	rcvr 127.0.0.1:{port}
"""


def tcp_payloads(pcap, port):
    """The bytes of each TCP connection to port in a capture, each way:
    {tcp.stream: {"sender": bytes, "receiver": bytes}}."""
    out = {}
    for line in ws.tshark(pcap, "-Y", f"tcp.len > 0 && tcp.port == {port}",
                          "-T", "fields", "-e", "tcp.stream", "-e",
                          "tcp.srcport", "-e", "tcp.payload").splitlines():
        stream, sport, payload = line.split("\t")
        ends = out.setdefault(int(stream), {"sender": b"", "receiver": b""})
        ends["receiver" if int(sport) == port else "sender"] += \
            bytes.fromhex(payload)
    return out


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """tcpdump on lo while mtgctl run is refused by mtgctl recv (no
    module: bind), then refused for a wrong key, then a D-ITG opening
    is sent by hand: the pcap and the receiver's port."""
    tmp = tmp_path_factory.mktemp("real")
    tspd.key_file(tmp / "a.key")
    tspd.key_file(tmp / "b.key")
    recv = tspd.Recv(tmp / "a.key", tmp, "--device", "/nonexistent/mtg")
    pcap = tmp / "tsp.pcap"
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "--immediate-mode",
                             "-n", "-w", pcap,
                             f"tcp port {recv.port}"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert "listening on" in dump.stderr.readline()
        for key, said in (("a.key", "refused the flow (bind)"),
                          ("b.key", "refused: auth-failed")):
            idf = tmp / "remote.idf"
            idf.write_text(IDF.format(key=key, port=recv.port))
            res = subprocess.run([MTGCTL, "run", idf, "--batch"], cwd=tmp,
                                 capture_output=True, text=True,
                                 timeout=120)
            assert res.returncode == 1 and said in res.stderr, res
        p = tspd.Peer(recv.port)
        p.send(b"\x01")
        assert p.closed()
        p.close()
    finally:
        rc, log = recv.stop()
        dump.send_signal(signal.SIGINT)
        dump.wait(timeout=30)
    assert rc == 0, log
    return pcap, recv.port


def test_real_exchange_is_ctl_tsps(real):
    """Every message of the three connections, read by tshark with the
    plugin, equals ctl/tsp's decoding of the same connection's bytes."""
    pcap, port = real
    streams = tcp_payloads(pcap, port)
    assert len(streams) == 3
    got = by_direction(ws.tsp_dissect(pcap, "-o",
                                      f"mtgtsp.tcp_ports:{port}"))
    seen = set()
    for stream, ends in streams.items():
        for frm, data in ends.items():
            decoded, err = tsp.decode(data, frm)
            assert err is None
            ws.tsp_check(got.get((stream, frm), []), decoded, frm)
            seen |= {(frm, m["name"]) for m in decoded}
    assert seen == {("sender", n) for n in (
        "TSP_HELLO", "TSP_AUTH", "TSP_TIME_REQ", "TSP_FLOW_REQ",
        "TSP_RELEASE", "TSP_CONNECT")} | {("receiver", n) for n in (
            "TSP_HELLO", "TSP_CHALLENGE", "TSP_AUTH_OK", "TSP_TIME_RESP",
            "TSP_FLOW_ACK", "TSP_ACK_RELEASE", "TSP_ERROR")}
    refusal = [m for m in got.values() for m in m
               if "mtgtsp.refusal" in m.fields]
    assert [m.fields["mtgtsp.refusal"][0] for m in refusal] == ["8"]
    assert "mtgtsp.refused" in refusal[0].experts
    errors = [m for m in got.values() for m in m if "mtgtsp.error" in m.fields]
    assert [m.fields["mtgtsp.error"][0] for m in errors] == ["2"]


def test_real_exchange_filters(real):
    """The clock exchanges and the refusal by filter."""
    pcap, port = real
    pref = ("-o", f"mtgtsp.tcp_ports:{port}")
    msgs = ws.tsp_dissect(pcap, *pref)
    for t in (0x89, 0x8a, 0x85, 0x87, 0x01):
        want = sorted({m.frame for m in msgs
                       if int(m.fields["mtgtsp.type"][0], 0) == t})
        assert want and ws.selected(pcap, f"mtgtsp.type == {t:#x}",
                                    *pref) == want
    # the set-up estimate's 8 exchanges (the wrong key stops before)
    assert len([m for m in msgs if m.fields["mtgtsp.type"][0] == "0x89"]) \
        == 8
    assert ws.selected(pcap, "mtgtsp.ditg", *pref) == \
        ws.selected(pcap, "mtgtsp.type == 1", *pref)


def test_the_page_lists_every_field():
    """Documentation/wireshark.rst names every field, expert item and
    preference of mtgtsp, and none that the plugin does not have."""
    page = (ROOT / "Documentation" / "wireshark.rst").read_text()
    documented = set(re.findall(r"``(mtg(?:tsp|log)\.[a-z0-9_.]+)``", page))
    fields = {line.split("\t")[2] for line in ws.glossary("fields")
              .splitlines() if line.startswith(("F\t", "P\t")) and
              line.split("\t")[2].startswith(("mtgtsp.", "mtglog."))}
    prefs = set(re.findall(r"^#(mtg(?:tsp|log)\.\w+):",
                           ws.glossary("defaultprefs"), re.M))
    assert prefs == {"mtgtsp.tcp_ports", "mtgtsp.ditg_passive",
                     "mtglog.udp_ports"}
    assert set(ws.TSP_EXPERTS) <= fields
    assert documented == fields | prefs


def test_the_pages_filters_work(crafted):
    """Each filter of the page's TSP section is one tshark takes (a
    wrong one exits 2: TsharkError); most select frames of the hand-made
    capture (it has no malformed message, no wrong key, not that run)."""
    page = (ROOT / "Documentation" / "wireshark.rst").read_text()
    section = page.split("\nTSP, the signalling\n")[1]
    block = section.split("Filters::\n\n")[1].split("\n\n")[0]
    filters = [line.split("  #")[0].strip() for line in block.splitlines()]
    assert len(filters) >= 10
    some = [flt for flt in filters if ws.selected(crafted[0], flt)]
    assert len(some) == len(filters) - 3, some


# --- the manager's and daemons' messages (0x90..0x96) ---------------------

def test_job_messages_are_ctl_tsps(tmp_path):
    """Every sample of tsp.JOB_SAMPLES, each end's on one connection (a
    manager's and a daemon's messages alternating, some joined in one
    segment, one cut across two): field by field what ctl/tsp's decoder
    reads, a progress row's fields once a row, none flagged; the Info
    column says what each is."""
    data = {"sender": [], "receiver": []}
    for frm, m in tsp.JOB_SAMPLES:
        data[frm] += tsp.encode([m], frm)
    plan = {"sender": segments(data["sender"], merge={1}, split={3: 100}),
            "receiver": segments(data["receiver"], merge={4})}
    conn = ws.TcpConnection(SENDER[0], RECEIVER[0], SENDER[1], RECEIVER[1])
    send_all(conn, plan)
    conn.close()
    path = tmp_path / "jobs.pcap"
    ws.write_frames(path, conn.frames)
    got = by_direction(ws.tsp_dissect(path))
    for frm in ("sender", "receiver"):
        decoded, err = tsp.decode(b"".join(data[frm]), frm)
        assert err is None
        ws.tsp_check(got[(0, frm)], decoded, frm)
    info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info")
    assert "TSP_JOB_OFFER run 77 host alpha of two-hosts.idf" in info
    assert "TSP_JOB_DATA the IDF bytes 0..20" in info
    assert "TSP_JOB_DATA the summary bytes 16384..16408" in info
    assert "TSP_JOB_READY run 77 ready, 3 TGs" in info
    assert "TSP_JOB_PROGRESS run 77: 2 TGs" in info
    assert "TSP_JOB_END run 77 ended, exit status 143: dropped by the " \
        "manager: the manager got SIGINT" in info
    assert "TSP_JOB_DROP run 77: another host is not ready" in info
    assert ws.selected(path, "mtgtsp.job.row.state == 5")
    assert ws.selected(path, "mtgtsp.job.flags.killed")


def test_malformed_jobs(tmp_path):
    """The job messages, each with one value ctl/tsp refuses: flagged
    with the expert item of ctl/tsp's kind of error, the next one read."""
    row = struct.pack(">IB3xQQQ", 1, 1, 2, 3, 4)
    cases = [
        ("sender", tspd.frame(0x90, struct.pack(">IIH", 0, 1, 1) + b"a" +
                              b"\x00\x00"), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x90, struct.pack(">IIH", 1, 1, 2) + b"a/" +
                              b"\x00\x00"), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x91, struct.pack(">BBIH", 2, 0, 0, 1) +
                              b"x"), "out of range", ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x91, struct.pack(">BBIH", 1, 0, 0, 2) +
                              b"x"), "truncated", ["mtgtsp.bad_length"]),
        ("receiver", tspd.frame(0x94, struct.pack(">IQHH", 1, 0, 1, 0) +
                                row[:4] + b"\x06" + row[5:]),
         "out of range", ["mtgtsp.bad_value"]),
        ("receiver", tspd.frame(0x94, struct.pack(">IQHH", 1, 0, 1, 0) +
                                row[:5] + b"\x01" + row[6:]),
         "out of range", ["mtgtsp.bad_value"]),
        ("receiver", tspd.frame(0x95, struct.pack(">IBBHI", 1, 0, 2, 0, 0)
                                + b"\x00\x00"), "out of range",
         ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x93, struct.pack(">IQ", 1, 0)),
         "out of range", ["mtgtsp.bad_value"]),
        ("sender", tspd.frame(0x96, struct.pack(">I", 1) + b"\x00\x00"),
         None, []),
    ]
    flagged_as_ctl_tsp(tmp_path, cases)
