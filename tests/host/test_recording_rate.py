# SPDX-License-Identifier: GPL-2.0-or-later
"""A TG's throughput changed during the run (the dashboard's +/-, --commands'
`rate`): the recording's RATE entries (Documentation/recording-format.rst,
"Extra entries"), written here by mtgsap's writer (mtgctl's: tests/vm/
test_mtgctl_rate.py), read alike by `mtgctl info` and mtgsap; `mtgsap fit`
judges each stretch between changes against the TG's model at that
stretch's rate. (Damaged RATE entries: test_recording_damaged.py.)

The statistical checks draw the gaps with fixed seeds; the level is
ALPHA."""

import json
import subprocess

import numpy as np
import pytest

import mtgsap
from mtgsap import fit
from mtgsap.recording import Recording, rate_extra
from test_mtgsap_fit import (MS, S, T0, TG_POISSON, US, exp_gaps, meta,
                             run, sent)

ALPHA = 0.01


def module_schedule(gaps, changes, lateness):
    """The departures the module schedules for a table of `gaps` (ns) when
    the rate changes at `changes` [(at_ns, num, den)]: each gap times
    den/num of the rate in force when its first packet leaves (its TX
    stamp, `lateness` after its schedule, and after the packet before
    it). (sched, tx), int64 ns."""
    sched, tx = [T0 + S], []
    for g, late in zip(gaps, lateness):
        tx.append(max(sched[-1] + late, tx[-1] + US if tx else 0))
        num, den = 1, 1
        for at, n, d in changes:
            if tx[-1] >= at:
                num, den = n, d
        sched.append(sched[-1] + g * den // num)
    tx.append(max(sched[-1], tx[-1] + US))
    return np.array(sched, np.int64), np.array(tx, np.int64)


def recording(tmp_path, changes, said=None, name="r.rec", late=None):
    """A Poisson TG of mean gap 32 ms (TG_POISSON), 3000 + 3000 + 1000
    gaps, its rate changed after the 3000th and the 6000th (changes: the
    factors), the changes as `said` tells (default: as they were; None in
    it: left out)."""
    gaps = exp_gaps(7000, 32 * MS, 2027)
    lateness = np.random.default_rng(5).integers(500, 3000, 7000)
    if late is not None:        # that packet leaves after the change
        lateness[late] = gaps[late]
    # Each change takes effect 100 us before the packet it is timed for.
    at, when = [], []
    for i, (num, den) in zip((3000, 6000), changes):
        part = module_schedule(gaps, when, lateness)[0]
        at.append(int(part[i]) - 100 * US)
        when.append((at[-1], num, den))
    sched, tx = module_schedule(gaps, when, lateness)
    r = sent(np.diff(sched), tg=2)
    r["sched_ns"], r["tx_ns"] = sched, tx
    r["rx_ns"] = tx + 5 * MS
    extras = [rate_extra(2, a, n, d, by, 7) for a, (n, d), by in
              zip(at, said or changes, ("command", "key")) if n is not None]
    path = tmp_path / name
    order = np.argsort(r["rx_ns"], kind="stable")
    mtgsap.write(path, meta([dict(TG_POISSON, id=2)]), r[order],
                 extras=extras)
    return path, at


def test_both_readers_show_the_changes(mtgctl, tmp_path, capsys):
    path, at = recording(tmp_path, [(2, 1), (1, 4)])
    assert [(e.tg_id, e.rx_ns) + e.rate for e in
            Recording(path).rate_changes()] == \
        [(2, at[0], 2, 1, "command"), (2, at[1], 1, 4, "key")]
    res = subprocess.run([mtgctl, "info", path], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    assert ("extra entries: 2 (0 control messages, 0 payloads, 0 wrong-bit "
            "lists, 2 rate changes)") in res.stdout
    assert (f"rate change: run 7 tg 2 from {at[0]} (CLOCK_TAI): x2/1 of its "
            f"timetable's throughput (by command)\n"
            f"rate change: run 7 tg 2 from {at[1]} (CLOCK_TAI): x1/4 of its "
            f"timetable's throughput (by key)\n") in res.stdout
    res = subprocess.run([mtgctl, "info", "--json", path],
                         capture_output=True, text=True, check=True)
    assert json.loads(res.stdout)["extras"]["rate_changes"] == [
        dict(run_id=7, tg_id=2, at_ns=at[0], num=2, den=1, by="command"),
        dict(run_id=7, tg_id=2, at_ns=at[1], num=1, den=4, by="key")]
    code, out, err = run(capsys, "info", path, "--json")
    assert code == 0, err
    assert [(c["tg_id"], c["at_ns"], c["factor"], c["by"])
            for c in json.loads(out)["rate_changes"]] == \
        [(2, at[0], 2.0, "command"), (2, at[1], 0.25, "key")]
    code, out, _ = run(capsys, "info", path)
    assert "tg 2 x2/1 from " in out and "tg 2 x1/4 from " in out


@pytest.mark.parametrize("field", ["tx", "sched"])
def test_fit_judges_each_stretch_at_its_own_rate(tmp_path, capsys, field):
    """x2 after 3000 gaps, x1/4 after 6000: each stretch accepted at ALPHA
    by both tests against exponential(32 ms) scaled to its rate (under
    the model each test would reject 1% of the seeds; this one is
    fixed). The same departures judged without the changes, or with a
    wrong factor, are rejected."""
    path, at = recording(tmp_path, [(2, 1), (1, 4)])
    code, out, err = run(capsys, "fit", path, "--tg", 2, "--field", field,
                         "--alpha", ALPHA, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["rate_changes"], data["across_changes"]) == (2, 2)
    parts = data["stretches"]
    assert [(p["from_ns"], p["to_ns"], p["num"], p["den"], p["by"],
             p["sample"]["n"]) for p in parts] == \
        [(None, at[0], 1, 1, None, 2999), (at[0], at[1], 2, 1, "command",
                                           2999),
         (at[1], None, 1, 4, "key", 1000)]
    assert [p["model"]["params"]["mean_ns"] for p in parts] == \
        [32 * MS, 16 * MS, 128 * MS]
    for p in parts:
        assert [t["verdict"] for t in p["tests"]] == ["accepted"] * 2, p
    # The text: one table per stretch.
    code, out, _ = run(capsys, "fit", path, "--tg", 2, "--field", field)
    assert out.startswith("TG 2: its throughput changed 2 time(s): each of "
                          "the 3 stretches judged against the model at its "
                          "rate; 2 inter-departure time(s) spanning a "
                          "change left out\nstretch 1, from the start to ")
    assert "model: exponential(mean=16 ms), from metadata, its gaps x1/2" \
        in out
    assert out.count("accepted") == 6
    # Without the changes: one model for all, rejected.
    bare, _ = recording(tmp_path, [(2, 1), (1, 4)], said=[(None, None)] * 2,
                        name="bare.rec")
    code, out, _ = run(capsys, "fit", bare, "--tg", 2, "--field", field,
                       "--alpha", ALPHA, "--json")
    data = json.loads(out)
    assert "stretches" not in data and data["rate_changes"] == 0
    assert all(t["p"] < 1e-6 for t in data["tests"])
    # A factor the run did not have (x4 said, x2 sent): that stretch only.
    wrong, _ = recording(tmp_path, [(2, 1), (1, 4)], said=[(4, 1), (1, 4)],
                         name="wrong.rec")
    code, out, _ = run(capsys, "fit", wrong, "--tg", 2, "--field", field,
                       "--alpha", ALPHA, "--json")
    verdicts = [[t["verdict"] for t in p["tests"]]
                for p in json.loads(out)["stretches"]]
    assert verdicts == [["accepted"] * 2, ["rejected"] * 2,
                        ["accepted"] * 2]


def test_a_late_first_packet_takes_its_gap_into_the_new_rate(tmp_path):
    """The packet before the change left late, after the change: the
    module scaled its gap by the new rate, and the gap is in the new
    stretch (by the TX stamps, also when the schedule is judged); the one
    before it spans the change."""
    path, at = recording(tmp_path, [(2, 1), (1, 4)], late=2999)
    rec = Recording(path)
    r = rec.records[np.argsort(rec.records["seq"])]
    assert r["sched_ns"][2999] < at[0] < r["tx_ns"][2999]
    assert r["sched_ns"][3000] < at[0]      # scheduled before the change
    gap = int(r["sched_ns"][3000] - r["sched_ns"][2999])
    model = fit.parse_model("exponential:mean=32ms")
    parts, across = fit.stretches(rec, 2, "sched", None, model)
    assert across == 2
    assert parts[1].x[0] == gap
    assert (len(parts[0].x), len(parts[1].x)) == (2998, 3000)


def test_scaled_models():
    """Gaps times den/num: durations scale, shapes do not."""
    m = fit.scaled(fit.parse_model("pareto:shape=1.5,scale=10ms"), 4, 1)
    assert m.params == {"shape": 1.5, "scale": 2.5 * MS}
    m = fit.scaled(fit.parse_model("uniform:min=1ms,max=3ms"), 1, 2)
    assert m.params == {"min": 2 * MS, "max": 6 * MS}
    m = fit.parse_model("exponential")
    assert fit.scaled(m, 2, 1) is m          # estimated per stretch


def test_plot_of_the_sending_asks_for_a_stretch(tmp_path, capsys):
    """One model drawn over gaps sent at three rates would mislead: the
    sending plot refuses it without --model."""
    path, _ = recording(tmp_path, [(2, 1), (1, 4)])
    code, out, err = run(capsys, "plot", path, "sending", "--tg", 2, "-o",
                         tmp_path / "s.png")
    assert code == 1 and out == ""
    assert "TG 2's throughput changed 2 time(s) during the run" in err
    assert not (tmp_path / "s.png").exists()
    code, _, err = run(capsys, "plot", path, "sending", "--tg", 2, "--from",
                       "150s", "--model", "exponential:mean=128ms", "-o",
                       tmp_path / "s.png")
    assert code == 0, err
    assert (tmp_path / "s.png").stat().st_size > 0
