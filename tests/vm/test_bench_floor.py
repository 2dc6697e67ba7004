# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/floor/mtg_floor.ko, the bare hrtimer `make bench` measures mtg
against: it refuses bad parameters, records one lateness per expiry, never
a negative one, and unloads cleanly in the middle of a run."""

import pathlib
import time

import numpy as np
import pytest

from mtgtest.system import ROOT, run

KO = ROOT / "bench" / "floor" / "mtg_floor.ko"
DIR = pathlib.Path("/sys/kernel/debug/mtg_floor")


@pytest.fixture
def floor():
    if not KO.exists():
        pytest.fail(f"{KO} not built: make test-vm builds it")
    yield
    if pathlib.Path("/sys/module/mtg_floor").exists():
        run("rmmod", "mtg_floor")


# "Invalid parameters" is how insmod words EINVAL.
@pytest.mark.parametrize("params, error", [
    (["period_ns=999"], "Invalid parameters"),
    (["period_ns=1000000001"], "Invalid parameters"),
    (["count=0"], "Invalid parameters"),
    (["count=10000001"], "Invalid parameters"),
    (["cpu=4096"], "No such device"),
])
def test_bad_parameters_refused(floor, params, error):
    res = run("insmod", KO, *params, check=False)
    assert res.returncode != 0 and error in res.stderr
    assert not pathlib.Path("/sys/module/mtg_floor").exists()
    assert not DIR.exists()


@pytest.mark.parametrize("hard", [0, 1])
def test_one_lateness_per_expiry(floor, hard):
    count = 3000
    run("insmod", KO, "period_ns=100000", f"count={count}", "cpu=1",
        f"hard={hard}")
    deadline = time.monotonic() + 120
    while (DIR / "done").read_text().strip() != "1":
        assert time.monotonic() < deadline, "3000 expiries took over 120 s"
        time.sleep(0.1)
    late = np.frombuffer((DIR / "lateness").read_bytes(), dtype="<i8")
    assert len(late) == count
    assert (late >= 0).all(), "a callback ran before its expiry"
    assert (late < 10**10).all()
    run("rmmod", "mtg_floor")
    assert not DIR.exists()


def test_unload_mid_run(floor):
    run("insmod", KO, "period_ns=1000", "count=10000000")
    time.sleep(0.5)
    assert (DIR / "done").read_text().strip() == "0"
    assert (DIR / "lateness").read_bytes() == b"", "nothing before the end"
    run("rmmod", "mtg_floor")
