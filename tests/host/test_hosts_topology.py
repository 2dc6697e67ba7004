# SPDX-License-Identifier: GPL-2.0-or-later
"""examples/hosts.sh, the many-hosts topology (Documentation/hosts.rst),
on the host's own kernel: every sender namespace has its address and MAC
on one segment with the receiver, every MAC known to the bridge and every
address to the ends that need it (no ARP), a datagram from a host reaches
the receiver's
namespace, the IDF it prints names the same namespaces and addresses, a
failed `up` leaves nothing, and `down` removes every namespace it made.
Needs root (namespaces). The thousand-host run with the module is
tests/vm/test_hosts.py (make test-full)."""

import json
import os
import subprocess

import pytest

from test_mtgctl_idf import ROOT

SCRIPT = ROOT / "examples" / "hosts.sh"
PREFIX = "mtgt"

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="network namespaces need root")


def hosts(*args, check=True):
    r = subprocess.run([SCRIPT, *args], capture_output=True, text=True,
                       timeout=300)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r


def namespaces():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines()
            if line.startswith(PREFIX)}


@pytest.fixture
def topo():
    assert not namespaces(), "namespaces of an earlier run are left"
    yield
    hosts("down", "--prefix", PREFIX)
    assert not namespaces()


def addr_of(ns):
    out = subprocess.run(["ip", "-n", ns, "-j", "addr", "show", "dev",
                          "eth0"], capture_output=True, text=True,
                         check=True).stdout
    (link,) = json.loads(out)
    assert link["operstate"] in ("UP", "UNKNOWN"), link
    return [a["local"] for a in link["addr_info"] if a["family"] == "inet"]


RECEIVE = """\
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.255.0.1", 9007))
s.settimeout(20)
print("ready", flush=True)
data, peer = s.recvfrom(100)
print(data.decode(), peer[0])
"""

SEND = """\
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"from host 7", ("10.255.0.1", 9007))
"""


def test_up_send_idf_down(topo, mtgctl, tmp_path):
    n = 30
    r = hosts("up", str(n), "--prefix", PREFIX)
    assert r.stdout.startswith(f"hosts.sh: {n} hosts up in ")
    assert namespaces() == {f"{PREFIX}{i}" for i in range(1, n + 1)} | \
        {f"{PREFIX}-rt", f"{PREFIX}-rx"}
    for i in (1, 7, 30):
        assert addr_of(f"{PREFIX}{i}") == [f"10.{i // 250}.{i % 250}.1"]
    assert addr_of(f"{PREFIX}-rx") == ["10.255.0.1"]
    # quiet on a segment of many: the receiver's MAC fixed and known to
    # the bridge (no ARP needed), no IPv6 autoconfiguration anywhere
    rx_link = json.loads(subprocess.run(
        ["ip", "-n", f"{PREFIX}-rx", "-j", "link", "show", "eth0"],
        capture_output=True, text=True, check=True).stdout)[0]
    fdb = subprocess.run(["bridge", "-n", f"{PREFIX}-rt", "fdb", "show",
                          "dev", "rx"], capture_output=True, text=True,
                         check=True).stdout
    assert f"{rx_link['address']} master br0 static" in fdb
    # and every host's: host n's MAC is 02:6d:74:67:(n/256):(n%256), the
    # bridge knows it, the receiver knows it and each host the receiver's
    for i in (1, 7, 30):
        mac = f"02:6d:74:67:{i // 256:02x}:{i % 256:02x}"
        link = json.loads(subprocess.run(
            ["ip", "-n", f"{PREFIX}{i}", "-j", "link", "show", "eth0"],
            capture_output=True, text=True, check=True).stdout)[0]
        assert link["address"] == mac
        port = subprocess.run(["bridge", "-n", f"{PREFIX}-rt", "fdb", "show",
                               "dev", f"{PREFIX}{i}"], capture_output=True,
                              text=True, check=True).stdout
        assert f"{mac} master br0 static" in port
        rx_neigh = subprocess.run(
            ["ip", "-n", f"{PREFIX}-rx", "neigh", "show", f"10.0.{i}.1"],
            capture_output=True, text=True, check=True).stdout
        assert f"lladdr {mac} PERMANENT" in rx_neigh
        host_neigh = subprocess.run(
            ["ip", "-n", f"{PREFIX}{i}", "neigh", "show", "10.255.0.1"],
            capture_output=True, text=True, check=True).stdout
        assert f"lladdr {rx_link['address']} PERMANENT" in host_neigh
    for ns in (f"{PREFIX}1", f"{PREFIX}-rx", f"{PREFIX}-rt"):
        v6 = subprocess.run(["ip", "-n", ns, "-6", "-j", "addr", "show"],
                            capture_output=True, text=True, check=True).stdout
        assert all(not link.get("addr_info") for link in json.loads(v6)
                   if link["ifname"] != "lo"), ns
    ports = subprocess.run(["ip", "-n", f"{PREFIX}-rt", "-j", "link", "show",
                            "master", "br0"], capture_output=True, text=True,
                           check=True).stdout
    assert len(json.loads(ports)) == n + 1

    # a datagram from host 7 reaches the receiver, from host 7's address
    rx = subprocess.Popen(["ip", "netns", "exec", f"{PREFIX}-rx", "python3",
                           "-c", RECEIVE], stdout=subprocess.PIPE, text=True)
    try:
        assert rx.stdout.readline() == "ready\n"
        subprocess.run(["ip", "netns", "exec", f"{PREFIX}7", "python3", "-c",
                        SEND], check=True, timeout=30)
        assert rx.communicate(timeout=30)[0] == "from host 7 10.0.7.1\n"
    finally:
        rx.kill()
        rx.wait()

    # the IDF it prints is the topology: the same namespaces and addresses
    idf = hosts("idf", str(n), "--prefix", PREFIX).stdout
    (tmp_path / "hosts.idf").write_text(idf)
    r = subprocess.run([mtgctl, "check", "hosts.idf", "--json"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    tgs = json.loads(r.stdout)["tgs"]
    assert [(tg["netns"], tg["src"]["addr"]) for tg in tgs] == \
        [(f"{PREFIX}{i}", addr_of(f"{PREFIX}{i}")[0]) for i in range(1, n + 1)]
    assert {tg["dst"]["addr"] for tg in tgs} == {"10.255.0.1"}
    assert {tg["mac"] for tg in tgs} == {rx_link["address"]}

    r = hosts("down", "--prefix", PREFIX)
    assert r.stdout.startswith(f"hosts.sh: {n + 2} namespaces deleted in ")
    assert not namespaces()


def test_failed_up_leaves_nothing(topo):
    r = hosts("up", "5", "--prefix", PREFIX, "--netem", "no-such-option",
              check=False)
    assert r.returncode != 0
    assert not namespaces(), r.stderr


def test_up_over_an_existing_topology_is_refused(topo):
    hosts("up", "2", "--prefix", PREFIX)
    r = hosts("up", "2", "--prefix", PREFIX, check=False)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == (f"hosts.sh: namespace {PREFIX}-rt or {PREFIX}-rx "
                        f"exists: 'examples/hosts.sh down --prefix {PREFIX}' "
                        "first\n")
    assert len(namespaces()) == 4


@pytest.mark.parametrize("args, message", [
    (["up", "0"], "N must be a number of hosts from 1 to 62500, got '0'"),
    (["up", "many"], "N must be a number of hosts from 1 to 62500, got "
     "'many'"),
    (["up", "3", "--prefix", "9x"], "--prefix must be a letter and up to 7 "
     "letters, digits, - or _ (interface names are short), got '9x'"),
    (["up", "3", "--speed", "1"], "unknown option '--speed'"),
])
def test_bad_arguments(args, message):
    r = hosts(*args, check=False)
    assert (r.returncode, r.stdout, r.stderr) == \
        (1, "", f"hosts.sh: {message}\n")
