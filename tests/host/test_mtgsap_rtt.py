# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap rtt: round trips through an XDP reflector, on a recording made
here with known forward, dwell and return delays (mtgtest.sample)."""

import json

import numpy as np
import pytest

from mtgsap import cli
from mtgsap.recording import F_CSUM_BAD, F_DITG, F_HDR_CORRUPT, F_ICMP
from mtgtest.sample import (MS, S, T0, flow, loop_recording,
                            reflect_recording, write_run)


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def rec(tmp_path):
    path = tmp_path / "reflect.rec"
    return path, reflect_recording(path)


def test_rtt_split_and_dwell(rec, capsys):
    path, r = rec
    code, out, err = run(capsys, "rtt", path, "--slot", 3, "--arrival-slot",
                         0, "--shared-clock", "--json")
    assert code == 0, err
    res = json.loads(out)
    tg1, tg2 = res["tgs"]
    one = r[(r["tg_id"] == 1) & ((r["flags"] & F_HDR_CORRUPT) == 0)]
    ok = ((one["flags"] & F_CSUM_BAD) == 0) & (one["tp_ns"][:, 3] != 0)
    c = one[ok]
    tx, tp0, tp3, rx = (v.astype(np.int64) for v in
                        (c["tx_ns"], c["tp_ns"][:, 0], c["tp_ns"][:, 3],
                         c["rx_ns"]))
    assert tg1["records"] == len(one)
    assert tg1["reflected"] == ok.sum() > 1800
    assert tg1["unreflected"] == (~ok).sum() > 0
    for what, want in (("rtt", rx - tx), ("forward", tp3 - tx),
                       ("return", rx - tp3), ("dwell", tp3 - tp0)):
        got = tg1[what]
        assert got["records"] == len(want)
        assert (got["min"], got["max"]) == (want.min(), want.max())
        assert got["mean"] == np.mean(want)
        assert got["p99"] == np.percentile(want, 99)
    assert tg1["forward"]["mean"] + tg1["return"]["mean"] == \
        pytest.approx(tg1["rtt"]["mean"], rel=1e-12)
    # The delays the recording was made with: 4.05, 6 and 10.05 ms, 0.05
    # ms (normal, sd <= 0.15 ms: the mean of > 1800 is within 0.015 ms
    # at 5 sigma).
    for what, ms in (("forward", 4.05), ("return", 6), ("rtt", 10.05),
                     ("dwell", 0.05)):
        assert abs(tg1[what]["mean"] - ms * MS) < 0.015 * MS, what
    assert tg2["reflected"] == 0 and tg2["rtt"]["records"] == 0


def test_rtt_without_a_shared_clock(rec, capsys):
    path, _ = rec
    code, out, err = run(capsys, "rtt", path, "--slot", 3, "--json")
    assert code == 0, err
    tg1 = json.loads(out)["tgs"][0]
    assert "forward" not in tg1 and "return" not in tg1 and \
        "dwell" not in tg1
    code, out, _ = run(capsys, "rtt", path, "--slot", 3, "--tg", 1)
    lines = out.splitlines()
    assert lines[1].split()[:2] == ["1", "rtt"] and len(lines) == 4
    assert lines[-2] == f"TG 1: {tg1['reflected']} of {tg1['records']} " \
        "records have the reflection stamp tp3 (and a right UDP checksum)"
    assert lines[-1].startswith("forward and return: not without "
                                "--shared-clock")


def test_rtt_slot_from_the_meter_rtt_tgs(rec, capsys):
    """Without --slot: the slot of the recording's `meter rtt` TGs, whose
    records alone are taken (TG 2 measured one way)."""
    path, _ = rec
    code, out, err = run(capsys, "rtt", path, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got["slot"] == 3
    assert [t["tg"] for t in got["tgs"]] == [1]
    _, full, _ = run(capsys, "rtt", path, "--slot", 3, "--tg", 1, "--json")
    assert json.loads(full)["tgs"] == got["tgs"]


def test_rtt_slot_needed_without_meter_rtt_tgs(tmp_path, capsys):
    path = tmp_path / "loop.rec"
    loop_recording(path)
    code, _, err = run(capsys, "rtt", path)
    assert code == 1 and "Traceback" not in err
    assert "--slot K is needed: the recording has no 'meter rtt' TG" in err


@pytest.mark.parametrize("argv,message", [
    (["--slot", "4"], "--slot 4: a test-point slot, 0 to 3"),
    (["--slot", "3", "--arrival-slot", "3"],
     "--arrival-slot 3: the reflector's own slot"),
])
def test_rtt_errors(rec, capsys, argv, message):
    path, _ = rec
    code, _, err = run(capsys, "rtt", path, *argv)
    assert code == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("echo,flag,meta,says", [
    ("icmp", F_ICMP, {"proto": "icmp"},
     "are echo replies (ICMP: the round trip alone, answered by a kernel "
     "that stamps nothing)"),
    ("ditg", F_DITG, {"header": "ditg"},
     "are D-ITG's payloads sent back (the round trip alone, its send time "
     "in microseconds; the far end stamps nothing)"),
])
def test_rtt_of_echoes(tmp_path, capsys, echo, flag, meta, says):
    """An echoed TG's records (an ICMP TG's echo replies, the flag icmp;
    a header ditg TG's payloads sent back, the flag ditg) beside a
    reflector's TG in one recording: without --slot, each taken its own
    way; the echoes' round trip is rx - tx, never split (no turn stamp),
    and a record that is no echo (here: a wrong UDP checksum, so no
    trusted tx) is counted, not taken."""
    rng = np.random.default_rng(5)
    r1 = flow(rng, 1, T0 + S + np.arange(500) * (S // 100), 200, 10, 0.1)
    r1["tp_ns"][:, 3] = r1["tx_ns"] + 4 * MS
    r2 = flow(rng, 2, T0 + S + np.arange(300) * (S // 100), 200, 7, 0.1)
    r2["flags"] |= flag
    r2["flags"][::50] = 1 | F_CSUM_BAD
    path = tmp_path / "echo.rec"
    write_run(path, [r1, r2], (), 200, 10, "10.0.3.2",
              {1: {"meter": "rtt", "rtt_slot": 3},
               2: {"meter": "rtt", "rtt_slot": None, **meta}})
    code, out, err = run(capsys, "rtt", path, "--json", "--shared-clock")
    assert code == 0, err
    got = json.loads(out)
    assert got["slot"] == 3
    tg1, tg2 = got["tgs"]
    assert (tg1["tg"], tg1["echo"], tg1["reflected"]) == (1, None, 500)
    assert "forward" in tg1
    echoes = r2[(r2["flags"] & flag) != 0]
    want = echoes["rx_ns"].astype(np.int64) - echoes["tx_ns"].astype(np.int64)
    assert (tg2["tg"], tg2["echo"], tg2["records"]) == (2, echo, 300)
    assert (tg2["reflected"], tg2["unreflected"]) == (294, 6)
    assert (tg2["rtt"]["min"], tg2["rtt"]["max"]) == (want.min(), want.max())
    assert "forward" not in tg2 and "dwell" not in tg2
    code, out, _ = run(capsys, "rtt", path, "--tg", 2)
    assert f"TG 2: 294 of 300 records {says}" in out
    assert "forward and return: not without" not in out
