# SPDX-License-Identifier: GPL-2.0-or-later
"""Random calls on /dev/mtg (tests/fuzz/mtg_fuzz.c) with fixed seeds: the
fuzzer's own checks hold, the kernel reports nothing (the autouse fixture
and scripts/vm/run scan the log) and the module unloads afterwards. Traffic
generators are started, steered and fed random tables on a veth pair into
a namespace, where sessions listen while random bytes land on their
receive rings' consumer counts."""

import subprocess

import pytest

from mtgtest.system import ROOT, ifindex, load_module, run, unload_module

FUZZ = ROOT / "tests/fuzz/mtg_fuzz"


@pytest.fixture
def target(netns, veth):
    """Where the fuzzer's TGs send, and where it listens: (ifindex,
    destination address, the destination's namespace and ifindex)."""
    ns = netns()
    a, b = veth(ns)
    run("ip", "addr", "add", "10.88.0.1/24", "dev", a)
    run("ip", "-n", ns, "addr", "add", "10.88.0.2/24", "dev", b)
    return ifindex(a), "10.88.0.2", f"/run/netns/{ns}", ifindex(b, ns)


def fuzz(seed, calls, target):
    return subprocess.Popen([FUZZ, "--seed", str(seed), "--calls", str(calls),
                             "--ifindex", str(target[0]), "--dst", target[1],
                             "--rx-netns", target[2],
                             "--rx-ifindex", str(target[3])],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def run_fuzzer(proc):
    out, _ = proc.communicate(timeout=900)
    print(out)
    assert proc.returncode == 0, out
    assert " 0 check failures" in out, out
    return out


# Successes over this file's runs: a command that steers a live TG
# (suspend, resume, set_rate, ctrlmsg) succeeds only when one is still
# alive when it comes, which is timing, not only the seed; under the debug
# kernel's sanitizers the TGs end sooner against the calls, and one test's
# runs can miss one. Each test checks what any run reaches; the steering
# commands are checked over the file (test_fuzz_concurrent runs last).
STEERING = {"tg_suspend", "tg_resume", "tg_set_rate", "tg_ctrlmsg"}
file_successes = {}


def check_successes(outs, steering=False):
    """Every command and mmap succeeded in some run: the fuzzers got past
    the argument checks into the code behind them (with steering, the
    steering commands over every run of the file so far)."""
    successes = {}
    for out in outs:
        line = [x for x in out.splitlines() if "successes:" in x][0]
        for item in line.split(":", 2)[2].split():
            name, n = item.split("=")
            successes[name] = successes.get(name, 0) + int(n)
            file_successes[name] = file_successes.get(name, 0) + int(n)
    assert all(n > 0 for name, n in successes.items()
               if name not in STEERING), successes
    if steering:
        assert all(file_successes[name] > 0 for name in STEERING), \
            file_successes


def test_fuzz_sequential(mtg, target):
    check_successes([run_fuzzer(fuzz(seed, 25000, target))
                     for seed in (1, 2, 3)])


def test_fuzz_concurrent(mtg, target):
    """Two fuzzers at once, so that sessions race in the kernel."""
    procs = [fuzz(seed, 20000, target) for seed in (11, 12)]
    check_successes([run_fuzzer(proc) for proc in procs], steering=True)
    unload_module()  # every session of the fuzzers is gone
    load_module()
