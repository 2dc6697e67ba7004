# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap's core on recordings built here: the reader refuses what it
cannot trust; per-TG counts, BER, G.821 and the windows come out as
computed by hand on constructed patterns; statistics agree with numpy
computed directly; filters select what numpy's masks select."""

import json
import math
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import mtgsap
from mtgsap import cli, meter as fl
from mtgsap.recording import (F_COMPLETE, F_CSUM_BAD, F_HDR_CORRUPT, HEADER,
                              MAGIC, Recording, RecordingError, empty)

T0 = 1_800_000_000 * 10**9
S = 10**9
MS = 10**6


def meta(**extra):
    return dict(command="run", start_ns=T0, run_id=7,
                interfaces=[{"id": 1, "dev": "rx0", "netns": None,
                             "ifindex": 3}],
                tgs=[{"id": 1}, {"id": 2}], **extra)


def packets(seqs, tg=1, rate=10, payload=1000, owd=5 * MS, start=0):
    """Records of TG `tg` for the sequence numbers seqs, in that order:
    scheduled at `rate` per second from T0 + start, sent on time, received
    owd later."""
    seqs = np.asarray(list(seqs), np.uint64)
    r = empty(len(seqs))
    r["seq"] = seqs
    r["run_id"], r["tg_id"] = 7, tg
    r["sched_ns"] = T0 + start + seqs * (S // rate)
    r["tx_ns"] = r["sched_ns"] + 1000
    r["rx_ns"] = r["tx_ns"] + owd
    r["payload_len"] = payload
    r["len"] = payload + 14 + 20 + 8 + 88
    r["flags"] = 1
    r["iface"] = 1
    return r


def save(tmp_path, records, name="a.rec", **kw):
    path = tmp_path / name
    mtgsap.write(path, meta(**kw), records)
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# --- the reader ------------------------------------------------------------------

def test_written_recording_reads_back_mapped(tmp_path):
    recs = packets(range(100))
    path = save(tmp_path, recs)
    rec = mtgsap.open(path)
    assert rec.complete and len(rec) == 100
    assert isinstance(rec.records, np.memmap)
    assert (rec.records == recs).all()
    assert rec.header["header_bytes"] % 4096 == 0
    assert os.path.getsize(path) == rec.header["header_bytes"] + 96 * 100
    df = rec.frame()
    # The DataFrame's columns are the mapped file's memory, not copies.
    assert np.shares_memory(df["seq"].to_numpy(), rec.records)
    assert np.shares_memory(df["tp2_ns"].to_numpy(), rec.records)
    assert list(df["seq"]) == list(range(100))
    rec.close()


def corrupt(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


@pytest.mark.parametrize("damage, message", [
    (lambda p: os.truncate(p, os.path.getsize(p) - 96),
     "truncated: the header counts 3 records, the file holds 2"),
    (lambda p: os.truncate(p, 40), "truncated in its 64-byte header"),
    (lambda p: os.truncate(p, 0), "not an mtg recording"),
    (lambda p: os.truncate(p, 1000), "truncated: 1000 bytes, the records "
                                     "start at 4096"),
    (lambda p: corrupt(p, 8, (3).to_bytes(4, "little")),
     "format version 3; this mtgsap reads versions 1 and 2"),
    (lambda p: corrupt(p, 0, b"\xd4\xc3\xb2\xa1"), "not an mtg recording"),
    (lambda p: corrupt(p, 64, b"}"), "damaged metadata"),
    (lambda p: open(p, "ab").write(b"x" * 10),
     "damaged: 10 bytes after the 3 records the header counts"),
], ids=["record", "header", "empty", "metadata", "version", "pcap",
        "json", "trailing"])
def test_damaged_files_are_refused(tmp_path, capsys, damage, message):
    path = save(tmp_path, packets(range(3)))
    damage(path)
    with pytest.raises(RecordingError, match="^" + str(path) + ": " +
                       message.replace("(", r"\(")):
        Recording(path)
    code, out, err = run(capsys, "flows", path)
    assert (code, out) == (1, "")
    assert err.startswith(f"mtgsap flows: {path}: {message}")


def test_text_file_is_not_a_recording(tmp_path):
    path = tmp_path / "x.idf"
    path.write_text("tgid 1\n" * 20)
    with pytest.raises(RecordingError, match="not an mtg recording"):
        Recording(path)


def unfinish(path, cut=0):
    """As a recorder killed mid-run leaves it: flags and counts 0."""
    corrupt(path, 20, bytes(12))
    if cut:
        os.truncate(path, os.path.getsize(path) - cut)


def test_unfinished_recording_reads_whole_records(tmp_path):
    path = save(tmp_path, packets(range(5)))
    unfinish(path, cut=40)
    rec = Recording(path)
    assert not rec.complete and len(rec) == 4 and rec.partial_bytes == 56


def test_copy_checks_and_never_overwrites(tmp_path, capsys):
    src = save(tmp_path, packets(range(50)))
    dst = tmp_path / "b.rec"
    code, out, _ = run(capsys, "copy", src, dst)
    assert code == 0 and "copied 50 records" in out
    a, b = Recording(src), Recording(dst)
    assert (a.records == b.records).all() and a.meta == b.meta
    assert a.header == b.header
    before = dst.read_bytes()
    code, _, err = run(capsys, "copy", src, dst)
    assert code == 1 and "exists (--force to overwrite)" in err
    assert dst.read_bytes() == before
    code, out, _ = run(capsys, "copy", src, dst, "--force", "--json")
    assert code == 0 and json.loads(out) == dict(records=50, output=str(dst))
    # An unfinished recording only with --partial; the copy is complete.
    unfinish(src, cut=10)
    code, _, err = run(capsys, "copy", src, tmp_path / "c.rec")
    assert code == 1 and "did not finish it" in err
    assert not (tmp_path / "c.rec").exists()
    assert run(capsys, "copy", src, tmp_path / "c.rec", "--partial")[0] == 0
    c = Recording(tmp_path / "c.rec")
    assert c.complete and len(c) == 49 and c.header["flags"] == F_COMPLETE
    # Nothing half-written is left beside the files.
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["a.rec", "b.rec", "c.rec"]
    # A finished recording cut short (records lost in transit) is refused
    # even with --partial: its header promises more than it holds.
    cut = save(tmp_path, packets(range(50)), name="cut.rec")
    os.truncate(cut, os.path.getsize(cut) - 3 * 96)
    for extra in ((), ("--partial",)):
        code, _, err = run(capsys, "copy", cut, tmp_path / "d.rec", *extra)
        assert code == 1 and "truncated" in err
        assert not (tmp_path / "d.rec").exists()


def test_header_layout():
    assert HEADER.size == 64 and MAGIC == b"\x89MTGREC\n"


# --- per-TG counts ------------------------------------------------------------------

def with_corrupt(recs, n=1):
    bad = packets(range(n), tg=99)
    bad["flags"] |= F_HDR_CORRUPT
    return np.concatenate([recs, bad])


def test_flow_counts_by_hand(tmp_path, capsys):
    # 0 1 2 4 3 3 6 9: 3 came late (reordered), came twice (one duplicate),
    # 5, 7 and 8 never came (lost).
    r1 = packets([0, 1, 2, 4, 3, 3, 6, 9])
    r2 = packets(range(4), tg=2)
    r1["wrong_bits"][[1, 4]] = 5, 3
    recs = with_corrupt(np.concatenate([r1, r2]), 2)
    path = save(tmp_path, recs)
    f1, f2 = mtgsap.flows(Recording(path).records)
    assert (f1.tg_id, f1.records, f1.received, f1.duplicates, f1.reordered,
            f1.lost) == (1, 8, 7, 1, 1, 3)
    assert (f1.bit_errors, f1.bits) == (8, 8 * 8000)
    assert (f2.received, f2.lost, f2.duplicates, f2.reordered) == (4, 0, 0, 0)
    code, out, _ = run(capsys, "flows", path, "--json")
    data = json.loads(out)
    assert data["hdr_corrupt"] == 2
    row = data["flows"][0]
    assert (row["received"], row["lost"], row["duplicates"],
            row["reordered"], row["bit_errors"]) == (7, 3, 1, 1, 8)
    assert row["owd_p50"] == row["owd_max"] == 5 * MS
    code, out, _ = run(capsys, "flows", path)
    assert code == 0 and out.splitlines()[2].split()[:3] == ["2", "4", "0"]
    assert "header-corrupt records: 2" in out
    # Their TG ids cannot be trusted: no TG selection takes them.
    code, out, _ = run(capsys, "flows", path, "--tg", "2")
    assert len(out.splitlines()) == 3 and "header-corrupt records: 0" in out


def test_ber_by_hand(tmp_path, capsys):
    r = packets(range(1000), payload=125)           # 1000 bits each
    r["wrong_bits"][10] = 7
    r["wrong_bits"][500:503] = 1
    path = save(tmp_path, r)
    code, out, _ = run(capsys, "ber", path, "--json", "--window", "50s")
    assert code == 0
    tg = json.loads(out)["tgs"][0]
    p = 10 / 1_000_000
    assert (tg["bits"], tg["bit_errors"]) == (1_000_000, 10)
    assert tg["ber"] == p
    assert tg["ber_sd"] == pytest.approx(math.sqrt(p * (1 - p) / 1e6))
    # 10 packets a second: windows of 50 s hold 500 packets each.
    w = tg["windows"]
    assert w["bits"] == [500_000, 500_000]
    assert w["bit_errors"] == [7, 3]
    assert w["ber"] == [7 / 500_000, 3 / 500_000]


# --- G.821 ------------------------------------------------------------------------

def g821_recording():
    """200 s of 10 packets/s, 8000 payload bits each (80 kbit/s), errors
    placed by second: see test_g821_by_hand."""
    seqs = np.arange(2000)
    lost = {1000, 1001}                         # second 100
    r = packets([s for s in seqs if s not in lost])
    second = (r["sched_ns"] - T0) // S

    def put(sec, bits):
        i = np.flatnonzero(second == sec)[0]
        r["wrong_bits"][i] = bits

    put(5, 1)                                   # ES
    put(6, 4)                                   # ES
    put(7, 100)                                 # BER 1.25e-3: SES
    for s in range(20, 35):                     # 15 SES: unavailable
        put(s, 1000)
    for s in range(50, 59):                     # 9 SES: still available
        put(s, 1000)
    put(120, 3)                                 # ES
    put(170, 10)                                # ES
    return r


def test_g821_by_hand(tmp_path, capsys):
    path = save(tmp_path, g821_recording())
    code, out, _ = run(capsys, "g821", path, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["edition"] == ("CCITT Rec. G.821, Blue Book (1988), which "
                               "keeps the Red Book's (1984) degraded minutes")
    g = data["tgs"][0]
    # Unavailable: the 15 SES from second 20 (10 in a row start it and are
    # part of it; the 10 good seconds from 35 end it and are available).
    assert (g["seconds"], g["unavailable"], g["available"]) == (200, 15, 185)
    # SES in available time: 7, 50..58 and 100 (2 of 10 packets lost:
    # 16000 of 80000 bits).
    assert g["ses"] == 11
    # ES: those and 5, 6, 120, 170.
    assert g["es"] == 15
    # Minutes from the 174 available seconds that are not SES, in order:
    # 0-6, 8-19, 35-49, 59-84 (5 wrong bits in 4.8e6: 1.04e-6, degraded);
    # 85-99, 101-145 (3 bits: 6.3e-7, not); the last 54 s are no minute.
    assert (g["minutes"], g["dm"]) == (2, 1)
    assert g["es_pct"] == pytest.approx(100 * 15 / 185)
    assert g["ses_pct"] == pytest.approx(100 * 11 / 185)
    assert g["dm_pct"] == 50.0
    code, out, _ = run(capsys, "g821", path)
    assert "G.821" in out.splitlines()[0] and "8.10811" in out


def test_g821_header_corrupt_packet_counts_as_lost(tmp_path, capsys):
    """analysis.rst: a header-corrupt packet vouches for nothing (not even
    its sequence number): its second lost its bits, as if it were lost."""
    r = g821_recording()
    i = np.flatnonzero((r["sched_ns"] - T0) // S == 130)[4]
    r["flags"][i] |= F_HDR_CORRUPT
    r["seq"][i] = 987654321                     # garbage, not to be trusted
    path = save(tmp_path, r)
    code, out, _ = run(capsys, "g821", path, "--json")
    g = json.loads(out)["tgs"][0]
    # test_g821_by_hand's figures, second 130 now an SES (1 packet of 10:
    # 8000 of 80000 bits, far above 1e-3) and so an ES too.
    assert (g["seconds"], g["unavailable"], g["available"]) == (200, 15, 185)
    assert (g["ses"], g["es"]) == (12, 16)


def test_g821_interval(tmp_path, capsys):
    """--from 10s --to 60s: seconds 10 to 59 of test_g821_by_hand's
    recording, worked out again by hand."""
    path = save(tmp_path, g821_recording())
    code, out, _ = run(capsys, "g821", path, "--json", "--from", "10s",
                       "--to", "60s")
    g = json.loads(out)["tgs"][0]
    # 20..34: 15 SES, unavailable; 50..58: 9 SES in available time; the 26
    # available seconds that are not SES make no whole minute.
    assert (g["start_s"], g["seconds"]) == (10, 50)
    assert (g["unavailable"], g["available"]) == (15, 35)
    assert (g["ses"], g["es"], g["minutes"], g["dm"]) == (9, 9, 0, 0)


@pytest.mark.parametrize("ses, unavailable", [
    ("S" * 9 + "." * 5, "." * 14),
    ("S" * 10 + "." * 9, "U" * 19),
    ("." + "S" * 12 + "." * 9 + "S" + "." * 10,
     "." + "U" * 12 + "U" * 9 + "U" + "." * 10),
    ("S" * 10 + "." * 10 + "S" * 3, "U" * 10 + "." * 10 + "." * 3),
    ("S" * 11 + "." * 3 + "S" * 2 + "." * 10,
     "U" * 11 + "U" * 3 + "U" * 2 + "." * 10),
])
def test_unavailability_rule(ses, unavailable):
    got = fl.unavailable_seconds(np.array([c == "S" for c in ses]))
    assert "".join("U" if u else "." for u in got) == unavailable


# --- windows ------------------------------------------------------------------------

def test_windows_by_hand(tmp_path, capsys):
    r = packets(range(30), owd=2 * MS)           # 3 s at 10/s
    r = r[~np.isin(r["seq"], [12, 13, 25])]      # 2 lost in s 1, 1 in s 2
    r["rx_ns"][r["seq"] == 5] += 4 * MS          # owd 6 ms on seq 5
    path = save(tmp_path, r)
    code, out, _ = run(capsys, "windows", path, "--window", "1s", "--json")
    assert code == 0
    w = json.loads(out)["windows"]
    assert w["packets"] == [10, 8, 9]
    assert w["lost"] == [0, 2, 1]
    size = 1000 + 130
    assert w["bytes"] == [10 * size, 8 * size, 9 * size]
    assert w["bps"] == [10 * size * 8, 8 * size * 8, 9 * size * 8]
    assert w["delay_ns"][0] == pytest.approx((9 * 2 + 6) * MS / 10)
    # |IPDV| of consecutive pairs: (4->5) 4 ms and (5->6) 4 ms of 9 pairs
    # in second 0; none in 1 and 2 but between 1 ms-apart neighbours.
    assert w["jitter_ns"][0] == pytest.approx(8 * MS / 9)
    assert w["jitter_ns"][1] == 0 and w["jitter_ns"][2] == 0
    code, out, _ = run(capsys, "windows", path, "--window", "1s")
    assert out.splitlines()[0].split()[:3] == ["from", "s", "packets"]


# --- statistics -----------------------------------------------------------------------

def random_recording(tmp_path, n=5000, seed=42):
    rng = np.random.default_rng(seed)
    r = packets(range(n))
    r["rx_ns"] = r["tx_ns"] + rng.integers(1 * MS, 20 * MS, n)
    r["tp_ns"][:, 1] = r["tx_ns"] + rng.integers(0, MS, n)
    r["tp_ns"][::7, 1] = 0                       # not stamped
    r["flags"][::11] |= F_CSUM_BAD
    r["len"] = rng.integers(100, 1500, n)
    return save(tmp_path, r), r


def test_stats_agree_with_numpy(tmp_path, capsys):
    path, r = random_recording(tmp_path)
    code, out, _ = run(capsys, "stats", path, "owd", "delay_tp1_rx", "len",
                       "jitter_owd", "--json", "--from", "100s")
    assert code == 0
    got = json.loads(out)
    late = r["rx_ns"] - T0 >= 100 * S
    ok = (r["flags"] & F_CSUM_BAD) == 0
    owd = (r["rx_ns"].astype(np.int64) - r["tx_ns"].astype(np.int64))
    tp1 = r["tp_ns"][:, 1]
    expect = {
        "owd": owd[late & ok],
        "delay_tp1_rx": (r["rx_ns"].astype(np.int64) -
                         tp1.astype(np.int64))[late & ok & (tp1 != 0)],
        "len": r["len"][late],
    }
    # IPDV: consecutive packets both sound, on the later one.
    pair = ok[1:] & ok[:-1] & late[1:]
    expect["jitter_owd"] = np.diff(owd)[pair]
    for name, v in expect.items():
        d = got[name]
        assert d["count"] == len(v)
        assert (d["min"], d["max"]) == (v.min(), v.max())
        assert d["mean"] == pytest.approx(v.mean(), rel=1e-12)
        assert d["variance"] == pytest.approx(v.var(ddof=1), rel=1e-9)
        for p in (1, 50, 99, 99.9):
            assert d[f"p{p:g}"] == pytest.approx(np.percentile(v, p))


@pytest.mark.parametrize("chunk", [1000, 16384])
def test_basic_stats_agree_with_numpy(tmp_path, capsys, monkeypatch, chunk):
    """--basic streams the records a slice at a time (small slices here,
    so slices end mid-way, some wholly outside --from); its figures are
    numpy's on the whole sample, and those of the default path."""
    from mtgsap import stats
    monkeypatch.setattr(stats, "CHUNK", chunk)
    path, r = random_recording(tmp_path)
    fields = ("owd", "delay_tp1_rx", "len", "jitter_owd", "lateness", "t")
    code, out, _ = run(capsys, "stats", path, *fields, "--json", "--from",
                       "100s", "--basic")
    assert code == 0
    basic = json.loads(out)
    code, out, _ = run(capsys, "stats", path, *fields, "--json", "--from",
                       "100s")
    full = json.loads(out)
    late = r["rx_ns"] - T0 >= 100 * S
    ok = (r["flags"] & F_CSUM_BAD) == 0
    owd = r["rx_ns"].astype(np.int64) - r["tx_ns"].astype(np.int64)
    for name in fields:
        b, f = basic[name], full[name]
        assert not [k for k in b if k.startswith("p")]
        assert (b["count"], b["min"], b["max"], b["unit"]) == \
            (f["count"], f["min"], f["max"], f["unit"])
        assert b["mean"] == pytest.approx(f["mean"], rel=1e-12)
        assert b["variance"] == pytest.approx(f["variance"], rel=1e-9)
    v = owd[late & ok]
    assert basic["owd"]["count"] == len(v)
    assert basic["owd"]["variance"] == pytest.approx(v.var(ddof=1), rel=1e-9)


def test_basic_variance_survives_a_large_offset():
    """Slices merged by their own means (Chan et al.), not sums of
    squares: values 1e15 with a spread of 1 keep their variance, to what
    float64 holds of values of 1e15 (an eighth: numpy's two-pass variance
    is as far off); the sum of squares would lose it all."""
    from mtgsap import stats
    r = empty(50_000)
    rng = np.random.default_rng(3)
    r["seq"] = 10**15 + rng.integers(0, 3, len(r))
    r["flags"] = 1
    got = stats.basic(r, "seq")
    v = r["seq"].astype(np.float64) - 10**15
    assert got["variance"] == pytest.approx(v.var(ddof=1), rel=1e-2)
    assert got["variance"] == pytest.approx(
        stats.describe(r["seq"], ())["variance"], rel=1e-2)
    assert got["mean"] == pytest.approx(10**15 + v.mean(), rel=1e-15)
    f = r["seq"].astype(np.float64)
    naive = (f @ f - f.sum() ** 2 / len(f)) / (len(f) - 1)
    assert naive != pytest.approx(v.var(ddof=1), rel=0.5)


def test_basic_refuses_percentiles(tmp_path, capsys):
    path, _ = random_recording(tmp_path, n=10)
    code, _, err = run(capsys, "stats", path, "owd", "--basic", "--pmf")
    assert code == 1 and "--basic computes no percentiles" in err


def test_test_points_jitter_and_selection_agree_with_numpy(tmp_path,
                                                            capsys):
    """The delay between two test points neither of which is rx, the
    jitter of a time point other than rx, for one TG of two and an
    interval closed on both sides, against numpy computed here."""
    rng = np.random.default_rng(7)
    n = 4000
    r = np.concatenate([packets(range(n), tg=1), packets(range(n), tg=2)])
    r = r[np.argsort(r["rx_ns"], kind="stable")]
    r["tx_ns"] += rng.integers(0, 50_000, len(r)).astype(np.uint64)
    r["rx_ns"] = r["tx_ns"] + rng.integers(MS, 9 * MS, len(r)).astype(np.uint64)
    r["tp_ns"][:, 0] = r["tx_ns"] + rng.integers(1, 1000, len(r)).astype(np.uint64)
    r["tp_ns"][:, 2] = r["tp_ns"][:, 0] + rng.integers(-500, MS, len(r))
    r["tp_ns"][::5, 0] = 0                       # not stamped
    r["tp_ns"][::13, 2] = 0
    r["flags"][::17] |= F_CSUM_BAD
    r["flags"][::29] |= F_HDR_CORRUPT
    path = save(tmp_path, r)
    code, out, _ = run(capsys, "stats", path, "delay_tp0_tp2", "jitter_tx",
                       "--tg", "2", "--from", "50s", "--to", "300s",
                       "--json", "--percentiles", "50,99")
    assert code == 0
    got = json.loads(out)
    t = r["rx_ns"].astype(np.int64) - T0
    sound = (r["flags"] & F_HDR_CORRUPT) == 0
    stamps = sound & ((r["flags"] & F_CSUM_BAD) == 0)
    chosen = (r["tg_id"] == 2) & sound & (t >= 50 * S) & (t < 300 * S)
    tp0, tp2 = (r["tp_ns"][:, k].astype(np.int64) for k in (0, 2))
    delay = (tp2 - tp0)[chosen & stamps & (tp0 != 0) & (tp2 != 0)]
    # jitter_tx: the change of (tx - sched) from the previous packet of the
    # same TG, for consecutive sequence numbers, both sound; on the later.
    late = r["tx_ns"].astype(np.int64) - r["sched_ns"].astype(np.int64)
    jit = []
    for tg in (1, 2):
        idx = np.flatnonzero(r["tg_id"] == tg)
        idx = idx[np.argsort(r["seq"][idx], kind="stable")]
        for a, b in zip(idx[:-1], idx[1:]):
            if r["seq"][b] == r["seq"][a] + 1 and stamps[a] and stamps[b] \
                    and chosen[b]:
                jit.append(late[b] - late[a])
    for name, v in (("delay_tp0_tp2", delay), ("jitter_tx", np.array(jit))):
        d = got[name]
        assert d["count"] == len(v) > 100
        assert (d["min"], d["max"]) == (v.min(), v.max())
        assert d["mean"] == pytest.approx(v.mean(), rel=1e-12)
        assert d["variance"] == pytest.approx(v.var(ddof=1), rel=1e-9)
        for p in (50, 99):
            assert d[f"p{p:g}"] == pytest.approx(np.percentile(v, p))


def test_cdf_lists_every_bin(tmp_path, capsys):
    """--cdf: the empty bins too, the CDF the running sum of the PMF and
    numpy's empirical CDF at every bin's end."""
    rng = np.random.default_rng(5)
    r = packets(range(3000))
    gap = rng.integers(0, 2, len(r)) * 8 * MS     # two clusters, a hole
    r["rx_ns"] = r["tx_ns"] + MS + gap + rng.integers(0, MS, len(r))
    path = save(tmp_path, r)
    code, out, _ = run(capsys, "stats", path, "owd", "--cdf", "--bins",
                       "10", "--json")
    pm = json.loads(out)["owd"]["pmf"]
    v = np.sort((r["rx_ns"] - r["tx_ns"]).astype(np.int64))
    assert len(pm["p"]) == 10 and 0 in pm["p"]    # the hole's bins
    assert pm["cdf"] == pytest.approx(list(np.cumsum(pm["p"])))
    ends = np.array(pm["value"][1:] + [v.max()], dtype=np.float64)
    emp = np.searchsorted(v, ends, side="right") / len(v)
    # the last bin is closed; the others end just before the next start
    assert pm["cdf"][-1] == pytest.approx(1.0)
    assert pm["cdf"][:-1] == pytest.approx(list(
        np.searchsorted(v, ends[:-1], side="left") / len(v)))
    assert emp[-1] == 1.0
    code, out, _ = run(capsys, "stats", path, "owd", "--cdf", "--bins", "10")
    assert code == 0 and out.count("\n") >= 10 + 2


def test_pmf_and_cdf(tmp_path, capsys):
    path, r = random_recording(tmp_path, n=2000)
    code, out, _ = run(capsys, "stats", path, "ttl", "owd", "--pmf",
                       "--bins", "20", "--json")
    got = json.loads(out)
    owd = got["owd"]["pmf"]
    v = (r["rx_ns"].astype(np.int64) -
         r["tx_ns"].astype(np.int64))[(r["flags"] & F_CSUM_BAD) == 0]
    counts, edges = np.histogram(v, 20)
    assert owd["p"] == pytest.approx(list(counts / len(v)))
    assert owd["value"] == pytest.approx(list(edges[:-1]))
    assert owd["cdf"][-1] == pytest.approx(1.0)
    # An integer field with one value, without --bins... but --bins given:
    code, out, _ = run(capsys, "stats", path, "tos", "--pmf", "--json")
    assert json.loads(out)["tos"]["pmf"] == dict(value=[0], width=[0.0],
                                                 p=[1.0], cdf=[1.0])
    code, out, _ = run(capsys, "stats", path, "owd", "--pmf",
                       "--bin-width", "1ms")
    assert code == 0 and "PMF and CDF of owd" in out


def test_unknown_field_is_named(tmp_path, capsys):
    path, _ = random_recording(tmp_path, n=10)
    code, _, err = run(capsys, "stats", path, "owdd")
    assert code == 1 and "unknown field 'owdd'" in err
    code, _, err = run(capsys, "stats", path, "jitter_sched")
    assert code == 1 and "the schedule has no jitter" in err
    code, _, err = run(capsys, "stats", path, "owd", "--from", "5 parsecs")
    assert code == 1 and "--from '5 parsecs'" in err


# --- filter ---------------------------------------------------------------------------

def test_filter_selects_what_numpy_selects(tmp_path, capsys):
    path, r = random_recording(tmp_path)
    r = with_corrupt(r, 3)
    path = save(tmp_path, r, name="b.rec")
    expr = "(owd > 15ms or len < 200) and not (tg_id == 2 or csum_bad)"
    out_path = tmp_path / "sel.rec"
    code, out, _ = run(capsys, "filter", path, "--where", expr, "-o",
                       out_path)
    assert code == 0
    owd = r["rx_ns"].astype(np.int64) - r["tx_ns"].astype(np.int64)
    sound = (r["flags"] & F_HDR_CORRUPT) == 0
    csum = (r["flags"] & F_CSUM_BAD) != 0
    # Kleene: owd unknown for corrupt headers and bad checksums; tg_id
    # unknown for corrupt headers, so the not(...) is unknown there.
    want = sound & ~csum & ((owd > 15 * MS) | (r["len"] < 200)) & \
        (r["tg_id"] != 2)
    sel = Recording(out_path)
    assert (sel.records == r[want]).all() and want.sum() > 100
    assert f"{want.sum()} of {len(r)} records" in out
    assert sel.meta["filtered"]["where"] == expr
    # A field alone: not zero; a time window on arrival.
    mask = mtgsap.selection(r, where="csum_bad", start=10 * S, end=20 * S,
                            start_ns=T0)
    t = r["rx_ns"] - T0
    assert (mask == (csum & (t >= 10 * S) & (t < 20 * S))).all()
    # The output is never overwritten without --force.
    code, _, err = run(capsys, "filter", path, "--where", "owd>0", "-o",
                       out_path)
    assert code == 1 and "exists" in err


@pytest.mark.parametrize("expr, message", [
    ("owd >", "column 6: expected a field or a number, found 'the end'"),
    ("owd > 5 parsecs", "column 9: unexpected 'parsecs'"),
    ("(owd > 5", "column 9: expected ')'"),
    ("tg == 1", "column 1: unknown field 'tg'"),
    ("5 > 3", "column 1: compare a field, not two numbers"),
    ("owd $ 3", "column 5: cannot read '$ 3'"),
    ("", "filter: empty expression"),
])
def test_filter_errors_say_where(tmp_path, capsys, expr, message):
    path, _ = random_recording(tmp_path, n=10)
    code, out, err = run(capsys, "filter", path, "--where", expr, "-o",
                         tmp_path / "x.rec")
    assert code == 1 and message in err, err
    assert not (tmp_path / "x.rec").exists()


def test_sparse_sequence_numbers_are_refused(tmp_path, capsys):
    r = packets([0, 1, 2, 1 << 40])
    path = save(tmp_path, r)
    code, out, err = run(capsys, "g821", path)
    assert code == 1 and "too few to place the lost ones" in err
    # What needs no placing still works.
    assert run(capsys, "flows", path)[0] == 0


def test_commands_that_write_answer_in_json(tmp_path, capsys):
    path = save(tmp_path, packets(range(100)))
    out_of = {}
    for argv in (["filter", path, "--tg", "1", "-o", tmp_path / "f.rec"],
                 ["export", path, "-o", tmp_path / "e.csv"],
                 ["plot", path, "delay", "-o", tmp_path / "p.svg"]):
        code, out, err = run(capsys, *argv, "--json")
        assert code == 0, err
        out_of[argv[0]] = json.loads(out)
    assert out_of["filter"] == dict(records=100, of=100, format="rec",
                                    output=str(tmp_path / "f.rec"))
    assert out_of["export"] == dict(records=100, of=100, format="csv",
                                    output=str(tmp_path / "e.csv"))
    assert out_of["plot"] == dict(kind="delay",
                                  output=str(tmp_path / "p.svg"))


# --- the command line ------------------------------------------------------------

PACKAGE = pathlib.Path(mtgsap.__file__).parent


def test_every_command_has_one_shape():
    """Every command is the module mtgsap.cmd.NAME with configure(parser)
    and command(args), and no library imports a command."""
    assert sorted(p.stem for p in (PACKAGE / "cmd").glob("*.py")
                  if p.stem != "__init__") == sorted(cli.COMMANDS)
    for name in cli.COMMANDS:
        m = cli.module(name)
        assert callable(m.configure) and callable(m.command), name
    for p in PACKAGE.glob("*.py"):
        if p.name not in ("cli.py", "__main__.py"):
            assert not re.search(r"^\s*(from|import) (\.|mtgsap\.)cmd",
                                 p.read_text(), re.M), p.name


@pytest.mark.parametrize("command, loaded, not_loaded", [
    (["info"], {"mtgsap.cmd.info"}, {"scipy", "matplotlib", "pandas"}),
    (["fit", "--tg", "1", "--model", "exponential:mean=100ms"],
     {"mtgsap.cmd.fit", "scipy"}, {"matplotlib", "pandas"}),
])
def test_python_m_mtgsap_imports_only_its_command(tmp_path, command, loaded,
                                                  not_loaded):
    """`python -m mtgsap` runs the command line; a command imports its own
    module and no other command's (info neither scipy nor matplotlib):
    checked by the modules loaded, not by a time."""
    path = save(tmp_path, packets(range(100)))
    code = ("import runpy, sys\n"
            "sys.argv = ['mtgsap', *sys.argv[1:]]\n"
            "try:\n"
            "    runpy.run_module('mtgsap', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert e.code == 0, e.code\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    res = subprocess.run([sys.executable, "-c", code, command[0], path,
                          *command[1:]], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    modules = set(res.stderr.split())
    commands = {m for m in modules if m.startswith("mtgsap.cmd.")}
    assert commands == {f"mtgsap.cmd.{command[0]}"}
    assert loaded <= modules and not not_loaded & modules
    assert res.stdout.startswith("field " if command[0] == "info" else
                                 "TG 1: 99 inter-departure times")
    # And `python -m mtgsap` itself.
    res = subprocess.run([sys.executable, "-m", "mtgsap", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.startswith(
        "usage: mtgsap [-h] COMMAND ...")
