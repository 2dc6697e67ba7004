# SPDX-License-Identifier: GPL-2.0-or-later
"""Random calls on /dev/mtg (tests/fuzz/mtg_fuzz.c) with fixed seeds: the
fuzzer's own checks hold, the kernel reports nothing (the autouse fixture
and tests/vm/run scan the log) and the module unloads afterwards."""

import subprocess

from mtgtest.system import ROOT, load_module, unload_module

FUZZ = ROOT / "tests/fuzz/mtg_fuzz"


def fuzz(seed, calls):
    return subprocess.Popen([FUZZ, "--seed", str(seed), "--calls", str(calls)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def finish(proc):
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    # Every command and mmap succeeded sometimes: the fuzzer got past the
    # argument checks into the code behind them.
    line = [x for x in out.splitlines() if "successes:" in x][0]
    counts = dict(item.split("=") for item in line.split(":", 2)[2].split())
    assert all(int(n) > 0 for n in counts.values()), line
    print(out)
    return out


def test_fuzz_sequential(mtg):
    for seed in (1, 2, 3):
        out = finish(fuzz(seed, 15000))
        assert "0 check failures" in out


def test_fuzz_concurrent(mtg):
    """Two fuzzers at once, so that sessions race in the kernel."""
    procs = [fuzz(seed, 10000) for seed in (11, 12)]
    for proc in procs:
        finish(proc)
    unload_module()  # every session of the fuzzers is gone
    load_module()
