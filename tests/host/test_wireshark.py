# SPDX-License-Identifier: GPL-2.0-or-later
"""The Wireshark dissector (scripts/wireshark/mtg.lua) under tshark, on
pcaps of frames built with the wire decoder the tests trust
(scripts/mtgwitness/wire.py): IPv4 and IPv6, three TGs of two runs,
control messages, test-point stamps, a header corrupted inside its CRC, bad
and absent UDP checksums, UDP that is not MTG, a datagram too short for a
header, a capture cut short. Every field of every frame equals what the
decoder reads from the same file, display filters select exactly the
frames the decoder selects, and what is wrong is flagged. The same checks
run on real captures in tests/vm/test_wireshark.py."""

import random
import shutil
import struct
import subprocess

import pytest

from mtgwitness import abi, wire
from mtgtest import wireshark as ws

pytestmark = pytest.mark.skipif(ws.TSHARK is None,
                                reason="tshark is not installed: run 'make deps'")

RUNS = (0x2864A3DD, 0xFEDC0001)
ADDRS = {4: ("198.18.0.1", "198.18.1.2"), 6: ("fd00:23::1", "fd00:23::2")}
T0 = 1_700_000_000_000_000_000


def header(run, tg, seq, rng, **kw):
    fields = dict(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION, flags=0,
                  hdr_len=abi.HDR_LEN, run_id=run, tg_id=tg, seq=seq,
                  sched_ns=T0 + seq * 1_000_000 + tg, nut=rng.randbytes(6),
                  patt_kind=seq % 3, patt_value=rng.randrange(256),
                  patt_seed=rng.getrandbits(32), crc=0,
                  tx_ns=T0 + seq * 1_000_000 + rng.randrange(1, 50_000),
                  tp_ns=(0, 0, 0, 0))
    fields.update(kw)
    return wire.MtgHeader(**fields)


def frame(family, hdr, body=b"", dport=9000, crc="auto"):
    payload = hdr.encode(crc) + body
    return wire.build_frame(*ADDRS[family], 4000 + hdr.tg_id, dport, payload)


def set_udp_checksum(data, value=None, flip=0):
    """data with its UDP checksum field replaced by value, or with the
    bits of flip flipped (IPv4 or IPv6)."""
    off = 14 + (20 if data[12:14] == b"\x08\x00" else 40) + 6
    if value is None:
        value = struct.unpack_from("!H", data, off)[0] ^ flip
    return data[:off] + struct.pack("!H", value) + data[off + 2:]


def frames_of_runs(rng):
    """Data frames of TGs 1..3 of both runs: IPv4 and IPv6, every pattern,
    bodies of 0 to 60 bytes, stamps of every test point on some."""
    out = []
    for run in RUNS:
        for tg in (1, 2, 3):
            for seq in range(5):
                tp = tuple(T0 + seq * 1_000_000 + 60_000 + 1000 * i
                           if (seq + i) % 2 else 0 for i in range(4))
                h = header(run, tg, seq, rng, tp_ns=tp,
                           flags=abi.HDR_F_KEEP_PAYLOAD if seq == 3 else 0)
                body = wire.pattern_bytes(h.patt_kind, h.patt_value,
                                          h.patt_seed, rng.randrange(61))
                out.append(frame(6 if (tg + seq) % 2 else 4, h, body))
    return out


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    """A pcap of every case; what the decoder reads of it; the numbers
    (from 1) of the special frames."""
    rng = random.Random(23)
    frames = frames_of_runs(rng)
    special = {}

    def add(name, data):
        frames.append(data)
        special[name] = len(frames)

    ctl = dict(flags=abi.HDR_F_CTRL, patt_kind=abi.PATT_CTRL, nut=bytes(6),
               patt_value=0, patt_seed=0)
    add("ctrl6", frame(6, header(RUNS[0], 2, 0, rng, **ctl), b"hello, world"))
    add("ctrl4", frame(4, header(RUNS[1], 3, 1, rng, **ctl),
                       bytes(range(250, 256)) + b"\0\n"))
    add("ctrl_empty", frame(4, header(RUNS[1], 1, 2, rng, **ctl)))
    add("unstamped", frame(4, header(RUNS[0], 1, 7, rng, tx_ns=0)))
    h = header(RUNS[0], 3, 8, rng)
    add("early", frame(6, header(RUNS[0], 3, 8, rng,
                                 tx_ns=h.sched_ns - 5)))
    add("keep_bits", frame(4, header(RUNS[0], 2, 9, rng,
                                     flags=abi.HDR_F_KEEP_BITS | 0x80)))
    add("version2", frame(6, header(RUNS[1], 1, 17, rng, version=2)))
    add("hdr_len", frame(4, header(RUNS[1], 1, 18, rng, hdr_len=96)))
    # A byte inside the CRC changed after the CRC was made, the UDP
    # checksum then computed over it: only the header CRC is wrong.
    h = header(RUNS[0], 1, 10, rng)
    raw = bytearray(h.encode("auto"))
    raw[21] ^= 0x10                         # in seq
    add("bad_crc", frame(4, wire.MtgHeader.decode(raw), crc=None))
    add("bad_udp6", set_udp_checksum(frame(6, header(RUNS[1], 2, 11, rng),
                                           b"\x55" * 9), flip=0x0101))
    add("bad_udp4", set_udp_checksum(frame(4, header(RUNS[0], 2, 12, rng),
                                           b"\x66" * 3), flip=0x8000))
    add("no_udp4", set_udp_checksum(frame(4, header(RUNS[1], 3, 13, rng)), 0))
    add("no_udp6", set_udp_checksum(frame(6, header(RUNS[1], 1, 14, rng)), 0))
    add("not_mtg", wire.build_frame(*ADDRS[4], 5000, 9000,
                                    b"MTG0" + rng.randbytes(120)))
    add("not_mtg6", wire.build_frame(*ADDRS[6], 5000, 9001,
                                     rng.randbytes(100)))
    add("short", wire.build_frame(*ADDRS[4], 4001, 9000,
                                  header(RUNS[0], 1, 15, rng)
                                  .encode("auto")[:abi.HDR_LEN - 1]))
    # Every case but the one to 9005 goes to 9000 or 9001 (the port test).
    add("port9005", frame(4, header(RUNS[1], 2, 16, rng), dport=9005))
    path = tmp_path_factory.mktemp("ws") / "cases.pcap"
    path.write_bytes(wire.write_pcap([wire.Record(T0 + i * 1000, len(d), d)
                                      for i, d in enumerate(frames)]))
    return path, wire.frames_of_pcap(path), special


def test_the_cases_are_what_they_claim(capture):
    """The wire decoder sees the cases as built (so the checks against it
    below test each case)."""
    _, frames, sp = capture
    mtg = ws.numbers(frames, lambda f: True)
    assert len(mtg) == len(frames) - 3
    assert {sp["not_mtg"], sp["not_mtg6"], sp["short"]}.isdisjoint(mtg)
    assert ws.numbers(frames, lambda f: not f.mtg.crc_ok) == [sp["bad_crc"]]
    assert [i for i, f in enumerate(frames, 1)
            if "bad UDP checksum" in f.errors] == [sp["bad_udp6"],
                                                    sp["bad_udp4"]]
    assert frames[sp["no_udp4"] - 1].udp_csum == 0
    assert ws.numbers(frames, lambda f: f.mtg.ctrl) == \
        [sp["ctrl6"], sp["ctrl4"], sp["ctrl_empty"]]
    assert {f.ip_version for f in frames} == {4, 6}
    assert any(f.mtg.tp_ns[3] for f in frames if f.mtg)
    assert all(ws.comparable(f) for f in frames)


def test_every_field_is_the_wire_decoders(capture):
    path, frames, sp = capture
    rows = ws.check_fields(path, frames)
    # The fields of the cases, as the dissector shows them.
    assert rows[sp["ctrl6"] - 1]["mtg.ctrl.data"] == b"hello, world".hex()
    assert "mtg.ctrl.data" not in rows[sp["ctrl_empty"] - 1]
    assert "mtg.late" not in rows[sp["unstamped"] - 1]
    assert rows[sp["early"] - 1]["mtg.late"] == "-5"
    assert rows[sp["bad_crc"] - 1]["mtg.crc.status"] == "0"
    assert rows[sp["bad_udp4"] - 1]["mtg.udp_checksum.status"] == "0"
    assert rows[sp["no_udp4"] - 1]["mtg.udp_checksum.status"] == "3"
    assert rows[sp["no_udp6"] - 1]["mtg.udp_checksum.status"] == "4"


def test_filters_select_what_the_wire_decoder_selects(capture):
    path, frames, sp = capture
    tried = ws.check_filters(path, frames)
    assert tried["mtg.crc.bad"] == [sp["bad_crc"]]
    assert tried["mtg.udp_checksum.bad"] == \
        [sp["bad_udp6"], sp["bad_udp4"], sp["no_udp6"]]
    assert tried["mtg.udp_checksum.absent"] == [sp["no_udp4"]]
    assert tried["mtg.version.unknown"] == [sp["version2"], sp["hdr_len"]]
    assert len(tried["mtg.tg == 2"]) > 5
    assert len(tried[f"mtg.run == {RUNS[1]:#x}"]) > 5


def test_info_column_names_what_is_wrong(capture):
    path, _, sp = capture
    info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info").splitlines()
    assert info[0] == f"TG 1 seq 0 run {RUNS[0]}"
    assert info[sp["ctrl6"] - 1] == \
        f'Control TG 2 seq 0 run {RUNS[0]} "hello, world"'
    assert info[sp["bad_crc"] - 1].endswith("[bad header CRC]")
    assert info[sp["bad_udp4"] - 1].endswith("[bad UDP checksum]")
    flagged = [i for i, s in enumerate(info, 1) if "[bad" in s]
    assert flagged == sorted([sp["bad_crc"], sp["bad_udp6"], sp["bad_udp4"],
                              sp["no_udp6"]])


def test_port_preference(capture):
    """Without the heuristic, nothing is MTG until the ports preference
    names a port; then every frame to those ports is, a payload without
    the magic flagged as such."""
    path, frames, sp = capture
    off = ("--disable-heuristic", "mtg_udp")
    assert ws.selected(path, "mtg", *off) == []
    on = off + ("-o", "mtg.udp_ports:9000,9003-9005")
    to_ports = [i for i, f in enumerate(frames, 1) if f.dport in (9000, 9005)]
    assert ws.selected(path, "mtg", *on) == to_ports
    assert ws.selected(path, "mtg.magic.bad", *on) == [sp["not_mtg"]]
    # Either port, as for every UDP port preference: TGs 2 and 3 send
    # from 4002 and 4003.
    assert ws.selected(path, "mtg", "-o", "mtg.udp_ports:4002-4003", *off) \
        == [i for i, f in enumerate(frames, 1) if f.sport in (4002, 4003)]
    # Too short for a header, on an MTG port: flagged, not decoded.
    assert ws.selected(path, "mtg.short", *on) == [sp["short"]]


@pytest.mark.parametrize("cut", [2, 4, 30, 47, 48, 60, 87, 88, 100])
def test_capture_cut_short(tmp_path, cut):
    """A capture that kept `cut` bytes of the UDP payload (tcpdump -s):
    MTG from 4 bytes on; the fields whose bytes are there, equal to the
    whole frame's; the CRC verified once its bytes are all there, the UDP
    checksum never; the frame marked as cut."""
    rng = random.Random(cut)
    data = frame(4, header(RUNS[0], 3, 42, rng, tp_ns=(1, 2, 3, 4)),
                 b"\xaa" * 20)
    path = tmp_path / "cut.pcap"
    path.write_bytes(wire.write_pcap([wire.Record(T0, len(data),
                                                  data[:42 + cut])]))
    whole = ws.expected(wire.parse_frame(data))
    row = ws.dissect(path)[0]
    assert "_ws.lua.error" not in row
    assert ("mtg" in row["frame.protocols"].split(":")) == (cut >= 4)
    if cut < 4:
        # Not enough for the heuristic; on an MTG port, MTG cut short.
        row = ws.dissect(path, "-o", "mtg.udp_ports:9000")
        assert "_ws.lua.error" not in row[0]
        assert row[0]["frame.protocols"].endswith(":udp:mtg")
        assert "size limited" in row[0]["_ws.short"]
        return
    got = {n: ws.value(n, v) for n, v in row.items() if n.startswith("mtg.")}
    offsets = {"mtg.magic": 4, "mtg.version": 5, "mtg.flags": 6,
               "mtg.hdr_len": 8, "mtg.run": 12, "mtg.tg": 16, "mtg.seq": 24,
               "mtg.sched": 32, "mtg.nut": 38, "mtg.patt.kind": 39,
               "mtg.patt.value": 40, "mtg.patt.seed": 44, "mtg.crc": 48,
               "mtg.crc.computed": 48, "mtg.tx": 56, "mtg.late": 56,
               "mtg.tp0": 64, "mtg.tp1": 72, "mtg.tp2": 80, "mtg.tp3": 88,
               "mtg.payload": 89}
    for name, end in offsets.items():
        assert (name in got) == (cut >= end), name
        if name in got and name != "mtg.payload":
            assert got[name] == whole[name], name
    flags = [n for n in whole if n.startswith("mtg.flags.")]
    assert all((n in got) == (cut >= 6) for n in flags)
    assert got["mtg.crc.status"] == (ws.GOOD if cut >= 48 else ws.UNVERIFIED)
    assert got["mtg.udp_checksum.status"] == ws.UNVERIFIED
    assert "mtg.udp_checksum.computed" not in got
    assert "size limited" in row["_ws.short"]
    if cut >= 24:
        info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info")
        assert f"TG 3 seq 42 run {RUNS[0]}" in info


def test_installed_in_the_users_plugin_folder(capture, tmp_path):
    """Where Documentation/wireshark.rst says to put it: tshark finds it
    there without -X (and lists it among its plugins)."""
    path, frames, _ = capture
    folder = tmp_path / ".local/lib/wireshark/plugins"
    folder.mkdir(parents=True)
    shutil.copy(ws.PLUGIN, folder)
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    res = subprocess.run([ws.TSHARK, "-G", "plugins"], env=env,
                         capture_output=True, text=True)
    assert str(folder / "mtg.lua") in res.stdout, res.stdout + res.stderr
    res = subprocess.run([ws.TSHARK, "-n", "-r", str(path), "-Y", "mtg.tg == 2",
                          "-T", "fields", "-e", "frame.number"], env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert [int(n) for n in res.stdout.split()] == \
        ws.numbers(frames, lambda f: f.mtg.tg_id == 2)


def test_udp_checksum_as_wiresharks_own_check(capture):
    """The dissector's UDP checksum status is Wireshark's own (the UDP
    dissector's, when udp.check_checksum is on: it is off by default)."""
    path, frames, sp = capture
    out = ws.tshark(path, "-o", "udp.check_checksum:TRUE", "-T", "fields",
                    "-e", "udp.checksum.status", "-e",
                    "mtg.udp_checksum.status")
    pairs = [line.split("\t") for line in out.splitlines()]
    mtg = [p for p in pairs if p[1]]
    assert len(mtg) == len(ws.numbers(frames, lambda f: True))
    assert all(ours == theirs for theirs, ours in mtg), mtg
    assert {ours for _, ours in mtg} == {"0", "1", "3", "4"}


def test_single_bit_flips_anywhere(tmp_path):
    """What netem corrupt does in tests/vm/test_wireshark.py, with a fixed
    seed: one bit flipped at a random place of a quarter of 400 frames.
    Every frame the two decoders take the same way (ws.comparable) agrees
    field by field and under the filters; no Lua error on any frame."""
    rng = random.Random(4)
    frames = []
    for seq in range(400):
        tg = 1 + seq % 2
        h = header(RUNS[0], tg, seq // 2, rng)
        body = wire.pattern_bytes(h.patt_kind, h.patt_value, h.patt_seed,
                                  200 - 130)
        data = bytearray(frame(4, h, body, dport=9000 + tg))
        if rng.random() < 0.25:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        frames.append(bytes(data))
    path = tmp_path / "flips.pcap"
    path.write_bytes(wire.write_pcap([wire.Record(T0 + i, len(d), d)
                                      for i, d in enumerate(frames)]))
    decoded = wire.frames_of_pcap(path)
    skip = {i for i, f in enumerate(decoded, 1) if not ws.comparable(f)}
    assert 0 < len(skip) < 40
    ws.check_fields(path, decoded, skip=skip)
    tried = ws.check_filters(path, decoded, skip=skip)
    assert len([i for i in tried["mtg.crc.bad"] if i not in skip]) > 5


def test_icmp_echoes(tmp_path):
    """An ICMP TG's echoes (proto icmp): the request's data and the reply
    that brings it back are MTG, over IPv4 and IPv6, by the heuristics
    mtg_icmp and mtg_icmpv6 (the ICMP checksum left to Wireshark's own
    dissectors, which find it good); somebody's ping is not MTG."""
    rng = random.Random(5)
    h = header(RUNS[0], 3, 70000, rng)
    data = h.encode("auto") + wire.pattern_bytes(h.patt_kind, h.patt_value,
                                                  h.patt_seed, 20)
    frames = []
    for family in (4, 6):
        a, b = ADDRS[family]
        frames += [wire.build_icmp_echo(a, b, 4003, 70000 & 0xFFFF, data),
                   wire.build_icmp_echo(b, a, 4003, 70000 & 0xFFFF, data,
                                        reply=True)]
    frames.append(wire.build_icmp_echo(*ADDRS[4], 1, 1, b"MTG" * 40))
    path = tmp_path / "icmp.pcap"
    ws.write_frames(path, frames)
    out = ws.tshark(path, "-T", "fields", "-E", "separator=,",
                    "-e", "frame.protocols", "-e", "mtg.tg", "-e", "mtg.seq",
                    "-e", "mtg.run", "-e", "mtg.crc.status",
                    "-e", "mtg.udp_checksum.status",
                    "-e", "icmp.checksum.status",
                    "-e", "icmpv6.checksum.status").splitlines()
    mtg = f"3,70000,{RUNS[0]},1,"
    assert out == [f"eth:ethertype:ip:icmp:mtg,{mtg},1,"] * 2 + \
        [f"eth:ethertype:ipv6:icmpv6:mtg,{mtg},,1"] * 2 + \
        ["eth:ethertype:ip:icmp:data,,,,,,1,"]
    for off in ("mtg_icmp", "mtg_icmpv6"):
        assert len(ws.selected(path, "mtg", "--disable-heuristic", off)) == 2


def test_tcp_messages(tmp_path):
    """A TCP TG's stream (proto tcp): each message after its 2-byte length
    is MTG by the heuristic mtg_tcp, over IPv4 and IPv6: a message in one
    segment, one cut across two (reassembled, shown in the second), two in
    one segment (both). The stream's checksums are TCP's to verify (good
    here); a stream that is not MTG is not dissected as MTG."""
    rng = random.Random(7)
    frames, lens = [], []
    for family in (4, 6):
        c = ws.TcpConnection(*ADDRS[family], 40001, 7100)
        msgs = []
        for seq in range(4):
            h = header(RUNS[1], 5, seq, rng)
            body = h.encode("auto") + wire.pattern_bytes(
                h.patt_kind, h.patt_value, h.patt_seed, 30 + seq)
            msgs.append(struct.pack("!H", len(body)) + body)
        lens.append([len(m) - 2 for m in msgs])
        c.send(False, msgs[0])
        c.send(False, msgs[1][:50])
        c.send(False, msgs[1][50:])
        c.send(False, msgs[2] + msgs[3])
        c.close()
        frames += c.frames
    other = ws.TcpConnection(*ADDRS[4], 40002, 7101)
    other.send(False, b"\x00\x80" + b"GET " * 40)
    other.close()
    frames += other.frames
    path = tmp_path / "tcp.pcap"
    ws.write_frames(path, frames)
    out = ws.tshark(path, "-T", "fields", "-E", "separator=;",
                    "-e", "frame.number", "-e", "mtg.seq",
                    "-e", "mtg.msg_len", "-e", "mtg.run", "-e", "mtg.tg",
                    "-e", "mtg.crc.status", "-e", "mtg.udp_checksum.status",
                    "-Y", "mtg").splitlines()
    want = []
    for first, n in ((4, lens[0]), (4 + 10, lens[1])):
        want += [f"{first};0;{n[0]};{RUNS[1]};5;1;",
                 f"{first + 2};1;{n[1]};{RUNS[1]};5;1;",
                 f"{first + 3};2,3;{n[2]},{n[3]};{RUNS[1]},{RUNS[1]};5,5;"
                 "1,1;"]
    assert out == want
    assert ws.selected(path, "mtg", "--disable-heuristic", "mtg_tcp") == []
