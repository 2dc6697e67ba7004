# SPDX-License-Identifier: GPL-2.0-or-later
"""The keep ring (ABI 1.4) through the ABI: what MTG kept of a packet
besides its header, its whole payload or the list of its wrong bits.

Frames made by hand (test_rx's) go from a to b, where the session
listens: the payload kept is the frame's payload byte for byte, the
positions kept are the bits flipped by hand, a header that failed its
CRC gets nothing kept whatever its flags say. The ring's rules are the
data ring's, for entries of variable length: a full ring drops and
counts (the record says KEEP_LOST), never overwrites what was not
handed back, fills its end with a PAD rather than cut an entry; consumer
counts that make no sense (unaligned, backwards, ahead of the producer)
are ignored and counted. The allocation refuses bad sizes. A TG's
MTG_TG_FLAGS_KEEP_* flags put the request in its packets' headers."""

import ctypes
import errno
import mmap
import socket
import time

import numpy as np
import pytest

from mtgtest.system import tai_ns
from mtgtest.tg import LEAD_NS, MS, TgSession, new_run_id
from mtgwitness import abi, wire
from test_rx import flip, listen, mtg_frame, read_until

pytestmark = pytest.mark.vm
PAGE = mmap.PAGESIZE
HEAD = ctypes.sizeof(abi.KeepRec)
BOTH = abi.HDR_F_KEEP_PAYLOAD | abi.HDR_F_KEEP_BITS


@pytest.fixture
def keeps(mtg):
    made = []

    def make(keep_bytes=abi.KEEP_BYTES_MIN, rx_records=1024):
        s = abi.Session()
        s.alloc(0, rx_records=rx_records, keep_bytes=keep_bytes)
        made.append((s, s.rx()))
        return made[-1]
    yield make
    for s, rx in made:
        rx.close()
        s.close()


def send(link, frames):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((link.a, 0))
    for frame in frames:
        sock.send(frame)
    sock.close()


def payload_of(frame, link):
    return frame[14 + (40 if link.family == 6 else 20) + 8 + abi.HDR_LEN:]


def positions(got, want):
    """Wrong bits' positions as the ABI numbers them (MSB of byte 0 is 0)."""
    diff = np.unpackbits(np.frombuffer(got, np.uint8) ^
                         np.frombuffer(want, np.uint8))
    return [int(p) for p in np.flatnonzero(diff)]


def test_alloc_refuses_bad_keep_sizes(mtg):
    for fields in ({"keep_bytes": abi.KEEP_BYTES_MIN},     # no rx_records
                   {"rx_records": 64, "keep_bytes": abi.KEEP_BYTES_MIN - 1},
                   {"rx_records": 64, "keep_bytes": abi.KEEP_BYTES_MIN // 2},
                   {"rx_records": 64, "keep_bytes": 3 << 16},
                   {"rx_records": 64, "keep_bytes": abi.KEEP_BYTES_MAX * 2},
                   {"rx_records": 64, "keep_bytes": 2**64 - 1}):
        with abi.Session() as s:
            assert abi.errno_of(s.alloc, PAGE, **fields) == errno.EINVAL, \
                fields
            assert not s.stats().flags & abi.SESSION_FLAGS_ALLOCATED
    with abi.Session() as s:        # 16 Mi records and 256 MiB: the cap
        assert abi.errno_of(s.alloc, 0, rx_records=abi.RX_RECORDS_MAX // 2,
                            keep_bytes=abi.KEEP_BYTES_MAX) == errno.E2BIG


def test_keep_layout(mtg):
    with abi.Session() as s:
        s.alloc(0, rx_records=64)
        assert abi.errno_of(s.rx_keep_offsets) == errno.ENODATA
    with abi.Session() as s:
        assert abi.errno_of(s.rx_keep_offsets) == errno.ENODATA
        s.alloc(0, rx_records=64, keep_bytes=1 << 17)
        regions = s.offsets().region
        rx, cons = regions[abi.REGION_RX], regions[abi.REGION_RX_CONS]
        off, k = s.rx_offsets(), s.rx_keep_offsets()
        ctrl_end = off.ctrl.records + off.ctrl.nr * off.ctrl.size
        assert k.bytes == 1 << 17 and k.area % PAGE == 0
        assert k.area >= ctrl_end and k.area + k.bytes == rx.size
        assert s.stats().mem_bytes == 2 * PAGE + rx.size
        counts = [off.data.producer, off.ctrl.producer, off.stats, k.producer]
        assert len({c // 64 for c in counts}) == 4 and k.producer < PAGE
        assert k.producer >= off.stats + ctypes.sizeof(abi.RxStats)
        conss = [off.data.consumer, off.ctrl.consumer, k.consumer]
        assert len({c // 64 for c in conss}) == 3 and k.consumer < cons.size
        assert tuple(k.reserved) == (0, 0, 0, 0)
        r = s.rx()
        assert r.keep.producer() == 0 and r.keep.read() == []
        r.close()


def test_payloads_and_wrong_bits_kept(link, keeps):
    s, rx = keeps()
    listen(s, link)
    run_id = new_run_id()
    f = lambda seq, **kw: mtg_frame(link, seq, run_id, **kw)  # noqa: E731
    payload_at = 14 + (40 if link.family == 6 else 20) + 8 + abi.HDR_LEN
    cases = [
        # (frame, what the header asks, the bits flipped in the payload)
        (f(1, flags=abi.HDR_F_KEEP_PAYLOAD, length=1000), []),
        (flip(f(2, flags=abi.HDR_F_KEEP_BITS, length=300),
              payload_at + 3, 6), [3 * 8 + 1]),
        (flip(flip(flip(f(3, flags=BOTH, length=203), payload_at), -1, 0),
              payload_at + 100, 7), [7, 100 * 8, 202 * 8 + 7]),
        (f(4, flags=BOTH, length=130), []),                      # all right
        (f(5, length=400), None),                                # asks nothing
        # A corrupt header: its flags are noise, nothing kept.
        (flip(f(6, flags=BOTH), 14 + (40 if link.family == 6 else 20) +
              8 + 27, 2), None),
        # A whole payload not as the pattern: more than MTG_KEEP_BITS_MAX.
        (f(7, flags=abi.HDR_F_KEEP_BITS, body=bytes(1200)), "many"),
        # An empty payload.
        (f(8, flags=BOTH, body=b""), []),
    ]
    send(link, [frame for frame, _ in cases])
    # In the order sent: each entry names its record by its count in the
    # data ring, which starts at 0 in this session.
    recs = read_until(rx.data, len(cases))
    assert [r.seq for r in recs] == list(range(1, len(cases) + 1))
    kept = rx.keep.read()
    by = {}
    for e, data in kept:
        by.setdefault(e.record, []).append((e, data))
    assert set(by) <= set(range(len(recs)))
    for i, (frame, flipped) in enumerate(cases):
        view = wire.rx_view(frame)
        r, seq = recs[i], recs[i].seq
        asks = frame[payload_at - abi.HDR_LEN + 5]
        entries = by.get(i, [])
        if flipped is None:
            assert not r.flags & (abi.RX_F_KEPT | abi.RX_F_KEEP_LOST), seq
            assert entries == [], seq
            continue
        assert r.flags & abi.RX_F_KEPT and not r.flags & abi.RX_F_KEEP_LOST
        types = [e.type for e, _ in entries]
        assert types == [t for bit, t in ((abi.HDR_F_KEEP_PAYLOAD,
                                           abi.KEEP_PAYLOAD),
                                          (abi.HDR_F_KEEP_BITS, abi.KEEP_BITS))
                         if asks & bit], seq
        for e, data in entries:
            assert (e.seq, e.run_id, e.tg_id, e.rx_ns) == \
                (r.seq, r.run_id, r.tg_id, r.rx_ns), seq
            assert e.len % 8 == 0 and e.len >= HEAD + e.data_len
            if e.type == abi.KEEP_PAYLOAD:
                assert data == payload_of(frame, link), seq
                assert e.count == e.data_len == r.payload_len
            else:
                pos = list(np.frombuffer(data, "<u4"))
                assert e.count == r.wrong_bits == view.wrong_bits, seq
                want = wire.pattern_bytes(view.hdr.patt_kind,
                                          view.hdr.patt_value,
                                          view.hdr.patt_seed,
                                          len(view.payload))
                every = positions(view.payload, want)
                if flipped == "many":
                    assert e.count > abi.KEEP_BITS_MAX
                    assert e.flags == abi.KEEP_F_CUT
                    assert pos == every[:abi.KEEP_BITS_MAX]
                else:
                    assert pos == every == sorted(flipped), seq
                    assert e.flags == 0
    st = s.rx_stats()
    assert (st.kept, st.keep_drops) == (len(kept), 0)
    assert bytes(rx.shm_stats()) == bytes(st)


def test_a_full_keep_ring_drops_and_counts(make_link, keeps):
    """64 KiB: payloads of 1300 bytes fill it; nothing is handed back, so
    the rest is lost and counted; what was kept is intact. Then handing
    back lets it go on, with a PAD at the end where an entry would cross
    it."""
    link = make_link(4)
    s, rx = keeps()
    listen(s, link)
    run_id = new_run_id()
    big = lambda seq: mtg_frame(link, seq, run_id, length=1300,  # noqa: E731
                                flags=abi.HDR_F_KEEP_PAYLOAD)
    entry = -(-(HEAD + 1300) // 8) * 8
    fit = abi.KEEP_BYTES_MIN // entry
    send(link, [big(i) for i in range(fit + 10)])
    recs = read_until(rx.data, fit + 10)
    st = s.rx_stats()
    assert (st.kept, st.keep_drops) == (fit, 10)
    lost = [r.seq for r in recs if r.flags & abi.RX_F_KEEP_LOST]
    assert lost == list(range(fit, fit + 10))
    kept = rx.keep.read(pads=True)
    assert [e.seq for e, _ in kept] == list(range(fit))
    for e, data in kept:
        assert data == payload_of(big(e.seq), link)
    # Handed back: room again; the next entry does not fit before the
    # end, so a PAD fills it and the entry starts at byte 0.
    send(link, [big(i) for i in range(fit + 10, fit + 12)])
    read_until(rx.data, 2)
    more = rx.keep.read(pads=True)
    assert [e.type for e, _ in more] == \
        [abi.KEEP_PAD, abi.KEEP_PAYLOAD, abi.KEEP_PAYLOAD]
    assert more[0][0].len == abi.KEEP_BYTES_MIN - fit * entry
    assert [data for _, data in more[1:]] == \
        [payload_of(big(i), link) for i in (fit + 10, fit + 11)]
    assert s.rx_stats().keep_drops == 10


def test_bad_consumer_counts_are_ignored(make_link, keeps):
    link = make_link(4)
    s, rx = keeps()
    listen(s, link)
    run_id = new_run_id()
    frame = lambda seq: mtg_frame(link, seq, run_id, length=500,  # noqa: E731
                                  flags=abi.HDR_F_KEEP_PAYLOAD)
    send(link, [frame(0)])
    read_until(rx.data, 1)
    (first,) = rx.keep.read(release=False)
    end = rx.keep.producer()
    bad = 0
    for claim in (end + 8, end - 4, 2**64 - 8, 3):
        rx.keep.set_consumer(claim)
        send(link, [frame(1 + bad)])
        bad += 1
        read_until(rx.data, 1)
        assert s.rx_stats().bad_consumer == bad, claim
    # Nothing was overwritten: every entry is there, in order.
    rx.keep.consumed = 0
    assert [e.seq for e, _ in rx.keep.read()] == list(range(1 + bad))
    assert s.rx_stats().keep_drops == 0


def test_tg_flags_ask_receivers_to_keep(make_link, mtg):
    """MTG_TG_FLAGS_KEEP_*: the TG's packets carry the request, its control
    messages do not."""
    link = make_link(4)
    sess = TgSession(rx_records=1024, keep_bytes=1 << 20)
    try:
        listen(sess.s, link)
        run_id = new_run_id()
        sess.start(link, 1, run_id, tai_ns() + LEAD_NS,
                   entries=[(MS, 300)], stop_count=20,
                   flags=abi.TG_FLAGS_KEEP_PAYLOAD | abi.TG_FLAGS_KEEP_BITS)
        sess.s.tg_ctrlmsg(1, b"not kept")
        assert sess.wait(1).state == abi.TG_STATE_FINISHED
        recs = read_until(sess.rx.data, 20)
        time.sleep(0.2)
        kept = sess.rx.keep.read()
        assert all(r.flags & abi.RX_F_KEPT for r in recs)
        assert len(kept) == 40
        for e, data in kept:
            if e.type == abi.KEEP_BITS:
                assert (e.count, data) == (0, b"")
            else:
                assert len(data) == 300 - 130
    finally:
        sess.close()
