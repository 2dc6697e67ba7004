# SPDX-License-Identifier: GPL-2.0-or-later
"""The eBPF programs on the VM's kernel, Debian 12's 6.1: the host tests
of the probe and the reflector (tests/host/test_ebpf_*.py, root, their own
namespaces) run here as they are, so the verifier of 6.1 loads every
program, and the round trip through netem, which the host's kernel may
lack, runs: here nothing may be skipped.

Not the XDP receiver's (test_ebpf_rx.py): 6.1's verifier refuses its
program (lengths whose bounds it does not carry through the stack;
Documentation/ebpf.rst), which listen --xdp says with the verifier's
log."""

import sys

import pytest

from mtgtest.system import ROOT, run

# make test-full: ten minutes under emulation, and its reflector test met
# a reflection stamp 9 us before the send stamp (the BPF clock read against
# the test's, in an emulated guest): to be understood before it joins
# make test.
pytestmark = [pytest.mark.vm, pytest.mark.full]


def test_ebpf_host_tests_pass_on_6_1():
    res = run(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
              "-rs", "tests/host/test_ebpf_probe.py",
              "tests/host/test_ebpf_reflect.py", check=False, timeout=1800,
              cwd=ROOT)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    assert "passed" in summary and "skipped" not in summary, out
