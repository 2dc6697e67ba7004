# SPDX-License-Identifier: GPL-2.0-or-later
"""The eBPF programs on the VM's kernel, Debian 12's 6.1: the host tests
of the probe, the reflector and the XDP receiver (tests/host/
test_ebpf_*.py, root, their own namespaces) run here as they are, so the
verifier of 6.1 loads every program, and the round trip through netem,
which the host's kernel may lack, runs: here nothing may be skipped.
(make test's own VM test of them with the module: test_ebpf_paths.py.)"""

import sys

import pytest

from mtgtest.system import ROOT, run

# make test-full: twelve minutes under emulation.
pytestmark = [pytest.mark.vm, pytest.mark.full]


def test_ebpf_host_tests_pass_on_6_1():
    res = run(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
              "-rs", "tests/host/test_ebpf_probe.py",
              "tests/host/test_ebpf_reflect.py", "tests/host/test_ebpf_rx.py",
              check=False, timeout=1800,
              cwd=ROOT)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    assert "passed" in summary and "skipped" not in summary, out
