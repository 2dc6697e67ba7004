# SPDX-License-Identifier: GPL-2.0-or-later
"""The Debian packages installed on the guest's root, as a user would
(issue 23): `dpkg -i ./mtg-dkms_*.deb ./mtgctl_*.deb
./python3-mtgsap_*.deb` from build/deb (`make deb`; make test-deb builds
them first), with no network and nothing of the source tree on PATH or
PYTHONPATH; DKMS builds mtg.ko for the running kernel, `modprobe mtg`
loads it, the installed mtgctl runs the installed demo.idf and the
installed mtgsap reads its recording; purging the packages removes the
module and every file they installed.

The guest's root is the host's, read-only under throwaway overlays
(/usr, /var, /etc, /lib, /tmp: Documentation/testing.rst), so dpkg
installs for real and the host never sees it. What the packages depend on
(dkms, the kernel's headers, numpy...) is installed on the host by
scripts/deps --packaging, so nothing needs a download (apt itself
cannot run here: its `file` method dies of SIGILL on the emulated CPU;
`apt install ./*.deb` on a real machine does what dpkg -i does here). Marked `deb`: it runs
in a boot of its own (make test-deb), not in make test-vm's."""

import json
import os
import re
import shutil
import subprocess

import pytest

from mtgtest.system import ROOT, module_loaded, run, unload_module

PACKAGES = ("mtg-dkms", "mtgctl", "python3-mtgsap")
# No tree, no venv: what a user's root shell has.
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
       "HOME": "/root", "DEBIAN_FRONTEND": "noninteractive"}
pytestmark = pytest.mark.deb
SENT = 2000             # examples/demo.idf: 1000 packets/s for 2 s, each TG


def sh(*cmd, timeout=120, check=True):
    return run(*cmd, timeout=timeout, check=check, env=ENV, cwd="/")


def demo_network():
    """examples/demo.idf's ends, demo-tx veth0 10.99.1.1 and demo-rx veth3
    10.99.2.2, on one veth pair (no forwarder: what is tested here is the
    packages, not a network under test)."""
    for ns in ("demo-tx", "demo-rx"):
        sh("ip", "netns", "add", ns)
    sh("ip", "-n", "demo-tx", "link", "add", "veth0", "type", "veth",
       "peer", "name", "veth3", "netns", "demo-rx")
    sh("ip", "-n", "demo-tx", "addr", "add", "10.99.1.1/24", "dev", "veth0")
    sh("ip", "-n", "demo-rx", "addr", "add", "10.99.2.2/24", "dev", "veth3")
    for ns, dev in (("demo-tx", "veth0"), ("demo-rx", "veth3")):
        sh("ip", "-n", ns, "link", "set", dev, "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    sh("ip", "-n", "demo-tx", "route", "add", "10.99.2.0/24", "dev", "veth0")
    sh("ip", "-n", "demo-rx", "route", "add", "10.99.1.0/24", "dev", "veth3")


def remove_demo_network():
    for ns in ("demo-tx", "demo-rx"):
        if os.path.exists(f"/run/netns/{ns}"):
            sh("ip", "netns", "del", ns, timeout=60)


def packaged_files(deb):
    """The files (not folders) a .deb installs."""
    out = sh("dpkg-deb", "-c", deb).stdout
    return [line.split(None, 5)[5].split(" -> ")[0].lstrip(".")
            for line in out.splitlines() if not line.startswith("d")]


def test_packages_install_build_run_and_purge(tmp_path):
    built = {p: sorted((ROOT / "build/deb").glob(f"{p}_*.deb"))
             for p in PACKAGES}
    assert all(len(d) == 1 for d in built.values()), \
        f"build/deb must hold one .deb of each package (make deb): {built}"
    for p in PACKAGES:
        assert sh("dpkg-query", "-W", "-f", "${Status}", p,
                  check=False).stdout.strip() in ("", "unknown ok not-installed",
                                                  "deinstall ok config-files"), p
    assert not os.path.exists("/usr/src/mtg-" + built["mtgctl"][0]
                              .name.split("_")[1])
    unload_module()
    release = os.uname().release
    debs = []
    for p, (deb,) in built.items():
        shutil.copy(deb, tmp_path)
        debs.append(f"./{deb.name}")
    files = {p: packaged_files(tmp_path / built[p][0].name) for p in PACKAGES}

    # dpkg, as apt would call it: apt's own `file` method dies of SIGILL
    # on the emulated CPU (software emulation's -cpu max), and every
    # dependency is there already (scripts/deps --packaging); dpkg refuses
    # a missing one, as apt would
    r = run("dpkg", "-i", *debs,
            timeout=1800, check=False, env=ENV, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout + r.stderr
    ko = f"/lib/modules/{release}/updates/dkms/mtg.ko"
    assert os.path.exists(ko), f"DKMS built no {ko}:\n{out}"
    status = sh("dkms", "status", "mtg").stdout
    assert re.search(rf"^mtg/\S+, {re.escape(release)}, \S+: installed",
                     status, re.M), status
    try:
        sh("modprobe", "mtg")
        assert module_loaded() and os.path.exists("/dev/mtg")
        assert sh("modinfo", "-n", "mtg").stdout.strip() == ko
        assert shutil.which("mtgctl", path=ENV["PATH"]) == "/usr/sbin/mtgctl"
        assert shutil.which("mtgsap", path=ENV["PATH"]) == "/usr/bin/mtgsap"

        demo_network()
        idf = "/usr/share/doc/mtgctl/examples/demo.idf"
        rec, summary = tmp_path / "demo.rec", tmp_path / "demo.json"
        sh("mtgctl", "run", idf, "--batch", "-o", rec, "--json", summary,
           timeout=600)
        s = json.loads(summary.read_text())
        assert [(t["id"], t["sent"]) for t in s["tgs"]] == \
            [(1, SENT), (2, SENT)]
        assert s["recording"]["records"] == s["rx"]["packets"] > 0

        r = sh("mtgsap", "flows", rec, "--json")
        sap = {f["tg"]: f for f in json.loads(r.stdout)["flows"]}
        for tg in s["tgs"]:
            assert sap[tg["id"]]["received"] == tg["received"] > 0, (sap, tg)
        where = sh("python3", "-c", "import mtgsap; print(mtgsap.__file__)")
        assert where.stdout.strip() == \
            "/usr/lib/python3/dist-packages/mtgsap/__init__.py"
    finally:
        remove_demo_network()
        if module_loaded():
            sh("modprobe", "-r", "mtg")

    r = run("dpkg", "--purge", *PACKAGES, timeout=600, check=False,
            env=ENV, cwd="/")
    assert r.returncode == 0, r.stdout + r.stderr
    for p in PACKAGES:
        assert sh("dpkg-query", "-W", "-f", "${Status}", p,
                  check=False).stdout.strip() in ("", "unknown ok not-installed"), p
    left = [f for fs in files.values() for f in fs if os.path.lexists(f)]
    assert not left, f"purge left {left}"
    dkms_left = [p for p in ("/var/lib/dkms/mtg",) if os.path.exists(p)]
    assert not dkms_left
    modules = subprocess.run(["find", "/lib/modules", "-name", "mtg.ko*"],
                             capture_output=True, text=True).stdout.split()
    assert not modules, f"purge left {modules}"
    assert sh("modinfo", "mtg", check=False).returncode != 0

