# SPDX-License-Identifier: GPL-2.0-or-later
"""The wire decoder the VM tests trust (scripts/mtgwitness/wire.py): checksums,
CRC32C, the MTG header, payload patterns, lateness buckets and pcap files,
each checked against an independent computation or a hand-made value."""

import random
import struct

import pytest

from mtgwitness import abi, wire


def crc32c_bitwise(data):
    """CRC32C one bit at a time (no table): a second method."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def test_crc32c_vector():
    assert wire.crc32c(b"123456789") == 0xE3069283
    assert wire.crc32c(b"") == 0
    # RFC 3720 B.4: 32 bytes of zeros, of ones, incrementing.
    assert wire.crc32c(bytes(32)) == 0x8A9136AA
    assert wire.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert wire.crc32c(bytes(range(32))) == 0x46DD794E


def test_crc32c_against_bitwise():
    rng = random.Random(3)
    for n in (1, 3, 44, 100):
        data = rng.randbytes(n)
        assert wire.crc32c(data) == crc32c_bitwise(data)
    assert wire.crc32c(b"6789", wire.crc32c(b"12345")) == 0xE3069283


def test_checksum_rfc1071_example():
    # RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2.
    data = bytes.fromhex("0001f203f4f5f6f7")
    assert wire.ones_complement_sum(data) == 0xDDF2
    assert wire.inet_checksum(data) == 0x220D


def test_ipv4_header_checksum_known_packet():
    # A well-known IPv4 header with checksum b861 (Wikipedia's example).
    hdr = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    assert wire.inet_checksum(hdr) == 0xB861
    good = hdr[:10] + bytes.fromhex("b861") + hdr[12:]
    assert wire.ones_complement_sum(good) == 0xFFFF


def mtg_header(**kw):
    fields = dict(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION, flags=0,
                  hdr_len=abi.HDR_LEN, run_id=0x01020304, tg_id=7, seq=42,
                  sched_ns=1_700_000_000_123_456_789, nut=bytes(6),
                  patt_kind=abi.PATT_INCR, patt_value=250, patt_seed=0,
                  crc=0, tx_ns=1_700_000_000_123_460_000, tp_ns=(0, 0, 0, 0))
    fields.update(kw)
    return wire.MtgHeader(**fields)


def hand_header(run_id, tg_id, seq, sched, kind, value, seed, tx):
    """An MTG header packed field by field with struct, CRC by bits."""
    head = struct.pack("!IBBHIIQQ6sBBI", 0x4D544731, 1, 0, 88, run_id, tg_id,
                       seq, sched, bytes(6), kind, value, seed)
    assert len(head) == 44
    return head + struct.pack("!I", crc32c_bitwise(head)) + \
        struct.pack("!QQQQQ", tx, 0, 0, 0, 0)


@pytest.mark.parametrize("family", [4, 6])
def test_hand_built_frame_parses_and_verifies(family):
    body = wire.pattern_bytes(abi.PATT_INCR, 250, 0, 20)
    payload = hand_header(0x01020304, 7, 42, 1_700_000_000_123_456_789,
                          abi.PATT_INCR, 250, 0, 1_700_000_000_123_460_000) + body
    src, dst = ("198.18.0.1", "198.18.0.2") if family == 4 else \
        ("2001:db8::1", "2001:db8::2")
    frame = wire.build_frame(src, dst, 4000, 5000, payload, ttl=17, tos=0x28,
                             ip_id=0x1234)
    # Independent check of the checksums the builder wrote: the one's
    # complement sum over the covered bytes, checksum included, is 0xffff.
    if family == 4:
        ip = frame[14:34]
        assert wire.ones_complement_sum(ip) == 0xFFFF
        l4, srcb, dstb = frame[34:], ip[12:16], ip[16:20]
        pseudo = srcb + dstb + struct.pack("!HH", 17, len(l4))
    else:
        ip = frame[14:54]
        l4, srcb, dstb = frame[54:], ip[8:24], ip[24:40]
        pseudo = srcb + dstb + struct.pack("!IHH", len(l4), 0, 17)
    assert wire.ones_complement_sum(pseudo + l4) == 0xFFFF

    fr = wire.parse_frame(frame, ts_ns=5)
    assert fr.ok, fr.errors
    assert fr.ip_version == family and str(fr.src) == src and str(fr.dst) == dst
    assert (fr.sport, fr.dport, fr.ttl, fr.tos) == (4000, 5000, 17, 0x28)
    assert fr.eth_dst == "02:00:00:00:00:02" and fr.eth_src == "02:00:00:00:00:01"
    if family == 4:
        assert fr.df and fr.ip_id == 0x1234
    h = fr.mtg
    assert h.valid and h.crc_ok and not h.ctrl
    assert (h.run_id, h.tg_id, h.seq) == (0x01020304, 7, 42)
    assert h.sched_ns == 1_700_000_000_123_456_789
    assert h.tx_ns == 1_700_000_000_123_460_000
    assert (h.patt_kind, h.patt_value, h.patt_seed) == (abi.PATT_INCR, 250, 0)
    assert h.tp_ns == (0, 0, 0, 0) and h.nut == bytes(6)
    assert fr.body == body and fr.body_wrong_bits() == 0
    # The ctypes mirror of struct mtg_hdr reads the same bytes the same way.
    c = abi.MtgHdr.from_buffer_copy(fr.payload[:abi.HDR_LEN])
    assert (c.magic, c.seq, c.sched_ns, c.crc) == (h.magic, h.seq, h.sched_ns, h.crc)
    assert bytes(c) == fr.payload[:abi.HDR_LEN]


@pytest.mark.parametrize("family", [4, 6])
def test_every_corrupted_byte_is_detected(family):
    payload = mtg_header().encode(crc="auto") + bytes(10)
    src, dst = ("10.0.0.1", "10.0.0.2") if family == 4 else ("fd00::1", "fd00::2")
    frame = wire.build_frame(src, dst, 1, 2, payload)
    assert wire.parse_frame(frame).ok
    # The Ethernet header has no checksum; IPv6 has no header checksum, and
    # its traffic class, flow label and hop limit are not in the pseudo-header.
    uncovered = set(range(14)) | ({15, 16, 17, 21} if family == 6 else set())
    for i in sorted(set(range(len(frame))) - uncovered):
        bad = bytearray(frame)
        bad[i] ^= 0x10
        fr = wire.parse_frame(bytes(bad))
        assert not fr.ok, f"flipped bit in byte {i} went unnoticed"


def test_header_crc_detects_corruption_of_covered_fields():
    raw = mtg_header().encode(crc="auto")
    h = wire.MtgHeader.decode(raw)
    assert h.crc_ok and h.crc == crc32c_bitwise(raw[:44])
    for i in range(abi.HDR_CRC_LEN + 4):  # covered bytes and the crc itself
        bad = bytearray(raw)
        bad[i] ^= 1
        assert not wire.MtgHeader.decode(bytes(bad)).crc_ok, i
    for i in range(48, 88):  # tx_ns and the test points: not covered
        bad = bytearray(raw)
        bad[i] ^= 1
        assert wire.MtgHeader.decode(bytes(bad)).crc_ok, i


def test_udp_over_ipv6_needs_a_checksum():
    frame = bytearray(wire.build_frame("fd00::1", "fd00::2", 1, 2, b"x" * 100))
    frame[54 + 6:54 + 8] = b"\0\0"
    assert "UDP over IPv6 without checksum" in wire.parse_frame(bytes(frame)).errors
    frame = bytearray(wire.build_frame("10.0.0.1", "10.0.0.2", 1, 2, b"x" * 100))
    frame[34 + 6:34 + 8] = b"\0\0"  # optional over IPv4
    assert wire.parse_frame(bytes(frame)).ok


def test_mtg_frames_always_carry_a_udp_checksum():
    """Over IPv4 a zero UDP checksum is legal, but mtg always computes one:
    an MTG frame without it is an error, not a pass."""
    frame = bytearray(wire.build_frame("10.0.0.1", "10.0.0.2", 1, 2,
                                       mtg_header().encode(crc="auto")))
    assert wire.parse_frame(bytes(frame)).ok
    frame[34 + 6:34 + 8] = b"\0\0"
    fr = wire.parse_frame(bytes(frame))
    assert fr.mtg is not None
    assert fr.errors == ["MTG frame without UDP checksum"]


def test_udp_checksum_zero_is_sent_as_ffff():
    # Search a payload whose checksum computes to 0: it must be sent as ffff.
    for n in range(70000):
        payload = n.to_bytes(4, "big")
        seg = struct.pack("!HHHH", 1, 2, 12, 0) + payload
        pseudo = wire.pseudo_header(bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]), 12)
        if wire.inet_checksum(pseudo + seg) == 0:
            break
    else:
        pytest.fail("no payload with checksum 0 found")
    assert wire.udp_checksum(bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]), seg) == 0xFFFF
    frame = wire.build_frame("10.0.0.1", "10.0.0.2", 1, 2, payload)
    fr = wire.parse_frame(frame)
    assert fr.ok and fr.udp_csum == 0xFFFF


def test_truncated_and_foreign_frames():
    frame = wire.build_frame("10.0.0.1", "10.0.0.2", 1, 2, bytes(120))
    assert wire.parse_frame(frame[:60], orig_len=len(frame)).errors
    arp = bytes(12) + b"\x08\x06" + bytes(28)
    assert wire.parse_frame(arp).errors
    fr = wire.parse_frame(frame)
    assert fr.ok and fr.mtg is None  # UDP, but no MTG header


def test_patterns_by_hand():
    assert wire.pattern_bytes(abi.PATT_FIXED, 0xAB, 99, 5) == b"\xab" * 5
    assert wire.pattern_bytes(abi.PATT_INCR, 254, 0, 4) == b"\xfe\xff\x00\x01"
    assert wire.pattern_bytes(abi.PATT_INCR, 0, 0, 300)[256:259] == b"\x00\x01\x02"
    # xorshift32 from 1: 0x00042021, then 0x04080601 (worked by hand:
    # 1 ^ 1<<13 = 0x2001, >>17 adds nothing, ^ <<5 gives 0x42021, ...).
    assert wire.pattern_bytes(abi.PATT_RANDOM, 0, 1, 8) == \
        bytes.fromhex("21200400" "01060804")
    assert wire.pattern_bytes(abi.PATT_RANDOM, 0, 1, 6) == bytes.fromhex("212004000106")
    assert wire.pattern_bytes(abi.PATT_RANDOM, 0, 0, 8) == \
        wire.pattern_bytes(abi.PATT_RANDOM, 0, 1, 8), "seed 0 counts as 1"
    assert wire.pattern_bytes(abi.PATT_RANDOM, 0, 1, 0) == b""
    with pytest.raises(ValueError):
        wire.pattern_bytes(abi.PATT_CTRL, 0, 0, 4)


def test_xorshift_known_sequence():
    # The first outputs of Marsaglia's xorshift32 (13, 17, 5) from 1.
    words = wire.pattern_bytes(abi.PATT_RANDOM, 0, 1, 16)
    assert [int.from_bytes(words[i:i + 4], "little") for i in range(0, 16, 4)] == \
        [270369, 67634689, 2647435461, 307599695]


def test_wrong_bits():
    good = wire.pattern_bytes(abi.PATT_RANDOM, 0, 77, 64)
    bad = bytearray(good)
    bad[0] ^= 0x81
    bad[63] ^= 0x10
    assert wire.wrong_bits(good, good) == 0
    assert wire.wrong_bits(bytes(bad), good) == 3


def test_lateness_buckets():
    b = wire.lat_bucket
    assert [b(v) for v in range(17)] == list(range(17))
    for k in range(3, 48):
        assert b(2 ** k) == 8 * k - 16, k
        assert b(2 ** k - 1) == 8 * k - 17, k
    assert b(2 ** 47 + 7 * 2 ** 44) == 367
    assert b(2 ** 48 - 1) == 367
    assert b(2 ** 48) == 367 == abi.LAT_BUCKETS - 1
    assert b(2 ** 64 - 1) == 367
    # 1 ms: e = 19, (1e6 >> 16) & 7 = 15 & 7 = 7: 8 + 128 + 7.
    assert b(1_000_000) == 143


def test_hist_summary_by_hand():
    # 1..100: rank 50 is 50, in bucket [48, 52): 51; rank 99 is 99, in
    # [96, 104): 103, capped at the maximum 100; mean 5050 // 100.
    assert wire.hist_summary(list(range(100, 0, -1))) == \
        {"p50": 51, "p99": 100, "p999": 100, "max": 100, "mean": 50}
    assert wire.hist_summary([7], keys=("p50",)) == \
        {"p50": 7, "max": 7, "mean": 7}
    assert wire.hist_summary([]) == dict.fromkeys(
        ("p50", "p99", "p999", "max", "mean"))


def test_lateness_bucket_bounds_invert():
    prev_high = 0
    for bucket in range(abi.LAT_BUCKETS):
        low, high = wire.lat_bucket_bounds(bucket)
        assert low == prev_high, bucket  # contiguous, no gap, no overlap
        assert wire.lat_bucket(low) == bucket
        if high is None:
            assert bucket == abi.LAT_BUCKETS - 1
            break
        assert wire.lat_bucket(high - 1) == bucket
        assert high - low <= max(1, low // 8), "at most 12.5% wide"
        prev_high = high
    assert wire.lat_histogram([0, 1, 8, 15, 16, 2 ** 50])[:17] == \
        [1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1]


@pytest.mark.parametrize("big_endian", [False, True])
@pytest.mark.parametrize("nanoseconds", [False, True])
def test_pcap_round_trip(big_endian, nanoseconds):
    frames = [wire.build_frame("10.0.0.1", "10.0.0.2", 1, 2, bytes(n))
              for n in (0, 10, 200)]
    ts = [1_700_000_000_123_456_789, 1_700_000_001_000_000_001, 5]
    recs = [wire.Record(t if nanoseconds else t // 1000 * 1000, len(f), f)
            for t, f in zip(ts, frames)]
    raw = wire.write_pcap(recs, nanoseconds, big_endian)
    linktype, back = wire.read_pcap(raw)
    assert linktype == wire.LINKTYPE_ETHERNET and back == recs
    parsed = wire.frames_of_pcap(raw)
    assert [f.ts_ns for f in parsed] == [r.ts_ns for r in recs]
    assert all(f.ok for f in parsed)


def test_pcap_known_bytes():
    # A little-endian microsecond file written by hand: one 60-byte record
    # at 1.000002 s.
    raw = (bytes.fromhex("d4c3b2a1" "0200" "0400" "00000000" "00000000"
                         "ffff0000" "01000000")
           + struct.pack("<IIII", 1, 2, 60, 64) + bytes(60))
    linktype, recs = wire.read_pcap(raw)
    assert linktype == 1 and len(recs) == 1
    assert (recs[0].ts_ns, recs[0].orig_len, len(recs[0].data)) == \
        (1_000_002_000, 64, 60)
    with pytest.raises(ValueError):
        wire.read_pcap(raw[:-1])
    with pytest.raises(ValueError):
        wire.read_pcap(b"\x0a\x0d\x0d\x0a" + raw[4:])  # pcapng


@pytest.mark.parametrize("family", [4, 6])
def test_icmp_echoes(family):
    """An ICMP TG's request and the reply that brings its header back:
    the checksum written as a hand computation says (ICMPv6's over the
    pseudo-header), the receive path's rules take the reply only (the
    request is the stack's, which answers it), and a flipped bit in the
    ICMP message or the MTG header is a bad checksum."""
    payload = mtg_header().encode(crc="auto") + bytes(10)
    src, dst = ("10.0.0.1", "10.0.0.2") if family == 4 else ("fd00::1", "fd00::2")
    request = wire.build_icmp_echo(src, dst, 4001, 42, payload)
    reply = wire.build_icmp_echo(dst, src, 4001, 42, payload, reply=True)
    off = 34 if family == 4 else 54
    for frame, kind in ((request, 8 if family == 4 else 128),
                        (reply, 0 if family == 4 else 129)):
        icmp = frame[off:]
        assert icmp[0] == kind and icmp[1] == 0
        pseudo = b"" if family == 4 else (
            frame[22:38] + frame[38:54] +
            struct.pack("!IHH", len(icmp), 0, 58))
        assert wire.ones_complement_sum(pseudo + icmp) == 0xFFFF
        echo = wire.icmp_echo(frame)
        assert (echo.reply, echo.ident, echo.seq) == (kind in (0, 129), 4001, 42)
        assert echo.csum_ok
        assert echo.hdr.crc_ok and echo.hdr.seq == mtg_header().seq
        assert wire.parse_frame(frame).mtg is None     # not UDP
    assert wire.rx_view(request) is None
    view = wire.rx_view(reply)
    assert view.flags == abi.RX_F_ICMP | (abi.RX_F_IPV6 if family == 6 else 0)
    assert view.hdr.crc_ok and view.payload == bytes(10)
    bad = bytearray(reply)
    bad[off + 8 + abi.HDR_LEN] ^= 1                    # the payload's
    assert wire.rx_view(bytes(bad)).flags & abi.RX_F_CSUM_BAD
    assert not wire.icmp_echo(bytes(bad)).csum_ok
    ping = wire.build_icmp_echo(dst, src, 1, 1, b"abcdefgh" * 12, reply=True)
    assert wire.rx_view(ping) is None                  # somebody's ping
