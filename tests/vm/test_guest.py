# SPDX-License-Identifier: GPL-2.0-or-later
"""The guest computes what the host computes. Under software emulation the
guest's CPU is QEMU's, and QEMU 7.2's TCG (Debian 12) got AVX2 code wrong:
numpy's sort, which dispatches to AVX2, returned unsorted arrays in the VM,
and `make demo` crashed in mtgsap when netem had reordered a few packets
(scripts/vm/lib.sh now boots a CPU without AVX2). These tests would have
caught it: numpy against pure Python on the shape of data mtgsap sorts,
then mtgsap end to end on a recording shaped like the demo's."""

import json
import subprocess

import numpy as np
import pytest

import mtgsap
from mtgsap.recording import empty
from mtgsap.cli import main as mtgsap_main

from mtgtest.system import ROOT

T0 = 1_800_000_000 * 10**9
MS = 10**6


def reorder_shaped(rng, n=2000, swaps=5, loss=0.015):
    """0..n-1 with a few neighbours swapped and some lost: what a netem
    link with 1 % loss delivers of a flow, in arrival order."""
    seq = np.arange(n, dtype=np.int64)
    for i in rng.integers(0, n - 3, swaps):
        seq[i], seq[i + 2] = seq[i + 2], seq[i]
    return seq[rng.random(n) > loss]


def test_numpy_sorts_as_python_does():
    """np.sort, argsort and unique of 400 reorder-shaped arrays equal
    Python's sorted(); under the old lane 9 in 10 were wrong."""
    rng = np.random.default_rng(2026)
    wrong = []
    for trial in range(400):
        seq = reorder_shaped(rng)
        want = sorted(seq.tolist())
        got = {"sort": np.sort(seq).tolist(),
               "argsort": seq[np.argsort(seq)].tolist(),
               "unique": np.unique(seq).tolist()}
        wrong += [(trial, k) for k, v in got.items() if v != want]
    assert not wrong, (
        f"numpy sorts wrongly in this guest ({len(wrong)} of 1200, first "
        f"{wrong[:3]}): the emulated CPU is broken; see scripts/vm/lib.sh")


def demo_shaped(path, seed=1999):
    """TG 1 of examples/demo.sh as the failing run recorded it: 2000
    packets 1 ms apart, about 30 lost (the last one received), 5
    reordered."""
    rng = np.random.default_rng(seed)
    seq = reorder_shaped(rng, 2000, swaps=5, loss=0.015)
    seq = np.append(seq[seq != 1999], 1999).astype(np.uint64)
    r = empty(len(seq))
    r["seq"] = seq
    r["run_id"], r["tg_id"] = 7, 1
    r["sched_ns"] = T0 + seq * MS
    r["tx_ns"] = r["sched_ns"] + 1000
    r["rx_ns"] = r["tx_ns"] + 5 * MS
    r["payload_len"], r["len"], r["flags"], r["iface"] = 100, 250, 1, 1
    mtgsap.write(path, dict(command="run", start_ns=T0, run_id=7,
                            tgs=[{"id": 1}]), r)
    return seq


@pytest.mark.parametrize("seed", [1999, 7, 2024])
def test_mtgsap_windows_on_a_demo_shaped_recording(tmp_path, capsys, seed):
    """The demo's crash: `mtgsap windows` on reordered packets with loss.
    Every window's packets and lost packets (placed by their scheduled
    departure, seq ms after T0) equal what plain Python counts; on the old
    lane the lost ones landed in the wrong windows, or mtgsap crashed."""
    path = tmp_path / "demo.rec"
    seq = demo_shaped(path, seed).tolist()
    lost = sorted(set(range(2000)) - set(seq))
    assert mtgsap_main(["windows", str(path), "--window", "500ms",
                        "--json"]) == 0
    w = json.loads(capsys.readouterr().out)["windows"]
    rx_window = [(s * MS + 1000 + 5 * MS) // (500 * MS) for s in seq]
    assert w["packets"] == [rx_window.count(k) for k in range(5)]
    assert w["lost"] == [sum(1 for s in lost if s // 500 == k)
                         for k in range(5)]
    assert mtgsap_main(["flows", str(path), "--json"]) == 0
    flow, = json.loads(capsys.readouterr().out)["flows"]
    reordered = sum(1 for i, s in enumerate(seq)
                    if i and s < max(seq[:i]))
    assert (flow["received"], flow["lost"], flow["reordered"]) == \
        (len(seq), len(lost), reordered)


@pytest.mark.parametrize("command", ["g821", "windows"])
def test_mtgsap_command_line_in_the_guest(tmp_path, command):
    """The installed command, as examples/demo.sh runs it."""
    path = tmp_path / "demo.rec"
    demo_shaped(path)
    extra = ["--window", "500ms"] if command == "windows" else []
    res = subprocess.run([str(ROOT / ".venv/bin/mtgsap"), command,
                          str(path), *extra], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
