# SPDX-License-Identifier: GPL-2.0-or-later
"""A TG's throughput changed during a run, in the loop of test_mtgctl_rx
(sender -> network under test -> receiver, mtgctl listening), the ways a
user changes it:

- `--commands`' `rate TG FACTOR`: the recording holds each change (when,
  which TG, the factor, by a command), `mtgctl info` and mtgsap show them,
  and `mtgsap fit` judges each stretch between them against the TG's
  model at that stretch's rate: a Poisson TG of mean gap 4 ms sent at x4,
  then at x1/2, is accepted stretch by stretch (chi-square and KS at
  alpha = 0.01, the schedule drawn from the IDF's fixed seed), while its
  x4 stretch is rejected against the unscaled model;
- the dashboard's + (tests/mtgtest/term.py's terminal): a change by key.
"""

import json
import subprocess
import time

import pytest

from mtgsap import fit
from mtgsap.recording import Recording
from mtgtest.ctl import (MTGCTL, act_when, mtgctl_commands, summary_of,
                         write_idf)
from mtgtest.system import DEBUG_KERNEL, ROOT
from mtgtest.term import Terminal
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm
SLOW = 4 if DEBUG_KERNEL else 1
ALPHA = 0.01
MS = 1_000_000


def idf(loop):
    return (f"listen {loop.listen()}\n"
            f"netns {loop.ns_s} dev {loop.a}\n"
            "dist poisson pkts fixed 200 200 inta 4ms patt random seed 11\n"
            "time relative 0 600s\n"
            f"tgid 1 dst {dst(loop, 9001)}\n")


def mtgsap(cwd, *argv):
    res = subprocess.run([ROOT / ".venv/bin/mtgsap", *map(str, argv)],
                         cwd=cwd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_rate_commands_recorded_and_fit_by_stretch(make_loop, tmp_path):
    loop = make_loop(4)
    write_idf(tmp_path, idf(loop))
    proc = mtgctl_commands(tmp_path, "--start-delay", START_DELAY,
                           "--drain", DRAIN)

    def act():
        # Each stretch long enough for some thousand gaps at its rate.
        for line, wait in (("rate 1 4", 3), ("rate 1 3", 0),
                           ("rate 1 1/2", 8), ("kill 1", 0)):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            time.sleep(wait * SLOW)
        # the end of the input: when communicate() closes it
    out, err = act_when(proc, lambda line: "tg 1:" in line and
                        " 0 sent" not in line, act, timeout=300 * SLOW)
    assert proc.returncode == 2, out + err      # TG 1 killed
    for said in ("TG 1: throughput x4 of the requested",
                 "commands:2: 'rate' expects a factor N or 1/N after the TG "
                 "number, N a power of two from 1 to 65536, got '3'",
                 "TG 1: throughput x0.5 of the requested", "TG 1 killed"):
        assert said in out, said + "\n" + out
    summary = summary_of(tmp_path)
    assert summary["tgs"][0]["state"] == "killed"
    assert summary["recording"]["extras"] == 2

    rec = Recording(tmp_path / "run.rec")
    changes = rec.rate_changes()
    assert [(c.tg_id, c.run_id) + c.rate for c in changes] == \
        [(1, rec.meta["run_id"], 4, 1, "command"),
         (1, rec.meta["run_id"], 1, 2, "command")]
    t = [c.rx_ns for c in changes]
    sent = rec.records[rec.records["tg_id"] == 1]
    assert sent["tx_ns"].min() < t[0] < t[1] < sent["tx_ns"].max()

    info = json.loads(subprocess.run(
        [MTGCTL, "info", "--json", "run.rec"], cwd=tmp_path, check=True,
        capture_output=True, text=True).stdout)
    assert [(c["tg_id"], c["at_ns"], c["num"], c["den"], c["by"])
            for c in info["extras"]["rate_changes"]] == \
        [(1, t[0], 4, 1, "command"), (1, t[1], 1, 2, "command")]
    sap = json.loads(mtgsap(tmp_path, "info", "run.rec", "--json"))
    assert [(c["at_ns"], c["factor"]) for c in sap["rate_changes"]] == \
        [(t[0], 4.0), (t[1], 0.5)]

    # The schedule the module kept (its gaps the timetable's, drawn from
    # the IDF's seed, times den/num): each stretch against the model at
    # its own rate, both tests at ALPHA.
    data = json.loads(mtgsap(tmp_path, "fit", "run.rec", "--tg", 1,
                             "--field", "sched", "--alpha", ALPHA,
                             "--json"))
    assert data["rate_changes"] == 2
    means = [4 * MS, 1 * MS, 8 * MS]
    for part, mean, (num, den) in zip(data["stretches"], means,
                                      ((1, 1), (4, 1), (1, 2))):
        assert (part["num"], part["den"]) == (num, den)
        assert part["model"]["params"] == {"mean_ns": mean}
        assert part["sample"]["n"] >= 200, part
        for test in part["tests"]:
            assert test["verdict"] == "accepted", (part, test)
    # Against the model as the run began, the x4 stretch is rejected: the
    # stretches are what makes the verdicts above.
    model = fit.parse_model("exponential:mean=4ms")
    parts, _ = fit.stretches(rec, 1, "sched", None, model)
    x4, wrong = parts[1].x, model.dist
    assert fit.ks(x4, wrong, ALPHA)["p"] < 1e-6
    assert fit.chi_square(x4, wrong, ALPHA)["p"] < 1e-6


def test_dashboard_key_recorded(make_loop, tmp_path):
    loop = make_loop(4)
    write_idf(tmp_path, idf(loop))
    argv = ["sh", "-c", f"cd {tmp_path} && exec {MTGCTL} run run.idf "
            f"-o run.rec --json summary.json --start-delay {START_DELAY} "
            f"--drain {DRAIN}"]
    with Terminal(tmp_path, argv, cols=160, lines=40) as t:
        t.wait_for(lambda s: "running" in s, timeout=60 * SLOW)
        t.keys("+")
        t.wait_for(lambda s: "TG 1: throughput x2 of the requested" in s,
                   timeout=30 * SLOW)
        t.keys("q")
        assert t.wait_exit(timeout=120 * SLOW) == 2     # TG 1 killed
    rec = Recording(tmp_path / "run.rec")
    assert [(c.tg_id,) + c.rate for c in rec.rate_changes()] == \
        [(1, 2, 1, "key")]
