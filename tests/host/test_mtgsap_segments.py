# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap segments: the delay of each segment of a path that test-point
probes stamped, on a recording made here with known segment delays."""

import json

import numpy as np
import pytest

from mtgsap import cli, paths
from mtgsap.recording import F_CSUM_BAD, F_HDR_CORRUPT
from mtgtest.sample import MS, T0, path_recording


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_segments_add_up_to_the_one_way_delay(tmp_path, capsys):
    path = tmp_path / "path.rec"
    r = path_recording(path)
    code, out, err = run(capsys, "segments", path, "--json")
    assert code == 0, err
    tg1, tg2 = json.loads(out)["tgs"]
    # TG 1 passed probes in slots 0 and 1: three segments.
    assert tg1["path"] == ["tx", "tp0", "tp1", "rx"]
    one = r[(r["tg_id"] == 1) & ((r["flags"] & F_HDR_CORRUPT) == 0)]
    every = ((one["flags"] & F_CSUM_BAD) == 0) & (one["tp_ns"][:, 0] != 0) \
        & (one["tp_ns"][:, 1] != 0)
    assert tg1["records"] == len(one)
    assert tg1["complete"] == every.sum() > 1000
    assert tg1["partial"] == (~every).sum() > 0
    c = one[every]
    stamps = [c["tx_ns"], c["tp_ns"][:, 0], c["tp_ns"][:, 1], c["rx_ns"]]
    stamps = [s.astype(np.int64) for s in stamps]
    for seg, a, b in zip(tg1["segments"], stamps[:-1], stamps[1:]):
        want = b - a
        assert seg["records"] == len(want)
        assert (seg["min"], seg["max"]) == (want.min(), want.max())
        assert seg["mean"] == np.mean(want)
        assert seg["p50"] == np.percentile(want, 50)
    # The segments' means add up to the end-to-end mean of the same packets.
    e2e = tg1["end_to_end"]
    assert e2e["records"] == tg1["complete"]
    assert e2e["mean"] == np.mean(stamps[-1] - stamps[0])
    assert sum(s["mean"] for s in tg1["segments"]) == \
        pytest.approx(e2e["mean"], rel=1e-12)
    # And each is the delay the recording was made with (2, 3 and 1 ms,
    # ± 0.1 ms, normal: the sample mean of > 1000 is within 0.05 ms).
    for seg, ms in zip(tg1["segments"], (2, 3, 1)):
        assert abs(seg["mean"] - ms * MS) < 0.05 * MS
    # TG 2 passed no probe: its path is the sender and the receiver.
    assert tg2["path"] == ["tx", "rx"] and tg2["partial"] == 0
    assert tg2["segments"] == [dict(tg2["end_to_end"])]


def test_segments_table_and_api(tmp_path, capsys):
    path = tmp_path / "path.rec"
    r = path_recording(path)
    code, out, _ = run(capsys, "segments", path, "--tg", "1")
    assert code == 0
    lines = out.splitlines()
    assert [ln.split()[1] for ln in lines[1:5]] == \
        ["tx->tp0", "tp0->tp1", "tp1->rx", "tx->rx"]
    assert lines[-1].startswith("TG 1: path tx -> tp0 -> tp1 -> rx; ")
    (p,) = [p for p in paths(r) if p.tg_id == 1]
    assert p.segments == [("tx", "tp0"), ("tp0", "tp1"), ("tp1", "rx")]
    assert np.array_equal(sum(p.delays[s] for s in p.segments),
                          p.delays[("tx", "rx")])
    assert T0 < r["rx_ns"].min()


def test_segments_plot_draws_each_segment(tmp_path, capsys):
    """mtgsap plot REC segments: a panel per TG, in it the CDF of each
    segment's delay (the same values as `segments` takes) and, when the
    path has several, the end-to-end delay of the same packets."""
    import mtgsap
    from mtgsap import plot

    path = tmp_path / "path.rec"
    path_recording(path)
    code, out, err = run(capsys, "plot", path, "segments", "-o",
                         tmp_path / "s.png")
    assert code == 0, err
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    rec = mtgsap.open(path)
    args = cli.parser("plot").parse_args(["plot", str(path), "segments",
                                          "-o", "x.png"])
    fig = plot.figure(rec, "segments", args)
    one, two = fig.axes
    assert one.get_ylabel() == "TG 1: P(delay \u2264 x)"
    assert one.get_xlabel() == "" and two.get_xlabel() == "delay (ms)"
    (p1, p2) = paths(rec.records)
    n = len(p1.complete)
    assert [t.get_text() for t in one.get_legend().get_texts()] == [
        f"tx \u2192 tp0 (n = {n})", f"tp0 \u2192 tp1 (n = {n})",
        f"tp1 \u2192 rx (n = {n})", f"end to end (n = {n})"]
    for line, seg in zip(one.get_lines(), p1.segments + [("tx", "rx")]):
        want = np.sort(p1.delays[seg]) / MS
        assert line.get_xdata()[1:] == pytest.approx(want)
    assert "miss a stamp" in one.get_title()
    # TG 2's path is one segment, tx -> rx: drawn once.
    assert [t.get_text() for t in two.get_legend().get_texts()] == [
        f"tx \u2192 rx (n = {len(p2.complete)})"]
