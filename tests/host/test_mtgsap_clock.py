# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap --correct-clock: a recording of mtgctl recv holds the sender's
estimate of the receiver's clock (metadata tsp.clock); the receive stamps
brought back to the sender's clock give the one-way delay the network
added, whatever the clocks' offset."""

import json

import numpy as np

from mtgsap import cli, write
from mtgsap.recording import empty
from mtgtest.sample import MS, S, T0, run_meta

OFFSET_NS = 7_000_123   # the receiver's clock ahead of the sender's
DELAY_NS = 1 * MS       # what the network added


def recording(path, clock):
    n = 100
    r = empty(n)
    r["seq"] = np.arange(n)
    r["run_id"], r["tg_id"] = 7, 1
    r["tx_ns"] = T0 + S + np.arange(n) * MS
    r["sched_ns"] = r["tx_ns"]
    r["rx_ns"] = r["tx_ns"] + DELAY_NS + OFFSET_NS
    r["len"] = 200
    r["flags"] = 1
    meta = run_meta(command="recv", tgs=[{"id": 1}],
                    tsp={"sender": "10.0.1.1:40000", "key": "tsp.key",
                         "clock": clock})
    write(path, meta, r, end_ns=T0 + 2 * S)
    return path


def flows(capsys, *argv):
    code = cli.main(["flows", *map(str, argv), "--json"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_correct_clock_removes_the_offset(tmp_path, capsys):
    path = recording(tmp_path / "r.mtgrec",
                     {"offset_ns": OFFSET_NS, "uncertainty_ns": 5000})
    code, out, _ = flows(capsys, path)
    assert code == 0
    assert json.loads(out)["flows"][0]["owd_mean"] == DELAY_NS + OFFSET_NS
    code, out, _ = flows(capsys, path, "--correct-clock")
    assert code == 0
    assert json.loads(out)["flows"][0]["owd_mean"] == DELAY_NS


def test_correct_clock_needs_an_estimate(tmp_path, capsys):
    path = recording(tmp_path / "r.mtgrec", None)
    code, _, err = flows(capsys, path, "--correct-clock")
    assert code != 0
    assert "no estimate of the clocks' offset" in err
    assert "Traceback" not in err
