# SPDX-License-Identifier: GPL-2.0-or-later
"""A thousand emulated hosts from one module (Documentation/hosts.rst):
examples/hosts.sh builds the namespaces, its `idf` output is the run, one
TG per host namespace; every host's packets reach the receiver, the
counts exact against a capture on the receiver's interface; the teardown
leaves no namespace behind and nothing that keeps the module loaded.

In make test-full: under software emulation it takes minutes (the
namespaces, the TGs' starts), beyond what make test may spend."""

import collections
import ipaddress
import json
import subprocess
import time

import pytest

from mtgtest.ctl import mtgctl_run, summary_of, write_idf
from mtgtest.system import DEBUG_KERNEL, ROOT, load_module, run
from mtgwitness.capture import Capture

SCRIPT = ROOT / "examples" / "hosts.sh"
PREFIX = "mh"
# the debug kernel builds a namespace ten times slower: fewer hosts there
HOSTS = 200 if DEBUG_KERNEL else 1000
COUNT = 5

pytestmark = [pytest.mark.vm, pytest.mark.full]


def namespaces():
    out = subprocess.run(["ip", "-j", "netns", "list"], capture_output=True,
                         text=True, check=True).stdout
    return [ns["name"] for ns in json.loads(out or "[]")
            if ns["name"].startswith(PREFIX)]


def test_a_thousand_hosts(mtg, tmp_path):
    assert not namespaces()
    began = time.monotonic()
    run(SCRIPT, "up", str(HOSTS), "--prefix", PREFIX, timeout=900)
    print(f"up {HOSTS}: {time.monotonic() - began:.1f} s")
    try:
        idf = run(SCRIPT, "idf", str(HOSTS), "--prefix", PREFIX).stdout
        # 5 packets a host, 200 ms apart: HOSTS * 5 pkt/s in all
        write_idf(tmp_path, idf.replace(
            "inta 10ms\ntime relative 0 5s\n", f"inta 200ms\ncount {COUNT}\n"))
        with Capture("eth0", ns=f"{PREFIX}-rx", bpf="udp") as cap:
            began = time.monotonic()
            # a thousand TGs start, each in its namespace: ahead enough
            res = mtgctl_run(tmp_path, "--start-delay", "20", timeout=1800)
            print(f"run: {time.monotonic() - began:.1f} s")
        # A thousand TGs ending at once raise a thousand end events: the
        # control queue (MTG_CTRL_RECORDS, 32) drops most, and the run
        # says so; no control message was sent, so nothing of the data
        # is lost (below) and the exit status is 0.
        assert res.returncode == 0, res.stdout + res.stderr
        assert "control records lost (TG events only" in res.stdout, \
            res.stdout
        assert cap.lossless, cap.stderr
    finally:
        began = time.monotonic()
        run(SCRIPT, "down", "--prefix", PREFIX, timeout=900)
        print(f"down: {time.monotonic() - began:.1f} s")
    assert not namespaces()

    s = summary_of(tmp_path)
    assert (s["ring_drops"], s["rx"]["ctrl"]) == (0, 0)
    assert s["rx"]["ctrl_drops"] > 0
    assert len(s["tgs"]) == HOSTS
    for tg in s["tgs"]:
        assert (tg["state"], tg["sent"], tg["received"], tg["lost"]) == \
            ("finished", COUNT, COUNT, 0), tg
    # the wire: COUNT frames from each host's address, each with its TG
    seen = collections.Counter()
    for f in cap.frames:
        assert f.ok, f.errors
        seen[(str(f.src), f.mtg.tg_id, f.dport)] += 1
    assert seen == {(str(ipaddress.IPv4Address(f"10.{n // 250}.{n % 250}.1")),
                     n, 9000 + n): COUNT for n in range(1, HOSTS + 1)}
    # nothing of the run holds the module: it unloads (and is loaded again
    # for the tests after this one)
    run("rmmod", "mtg")
    load_module()
