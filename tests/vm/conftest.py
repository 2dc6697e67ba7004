# SPDX-License-Identifier: GPL-2.0-or-later
"""Fixtures for the tests that need the module: they run inside the VM.

Every test here is marked `vm`. They run through scripts/vm/run (one boot for
the whole suite, `make test-vm`); outside a VM they refuse to run rather
than load a module into the host.
"""

import os
import pathlib

import pytest

from mtgtest.system import (kmsg_lines, load_module, run, unique,
                            unload_module, virtio_nets, KMSG_PATTERNS)
from mtgtest.tg import address_link


def pytest_collection_modifyitems(config, items):
    here = pathlib.Path(__file__).parent
    for item in items:
        if here in pathlib.Path(item.fspath).parents:
            item.add_marker(pytest.mark.vm)


def pytest_configure(config):
    if os.environ.get("MTG_IN_VM") != "1":
        raise pytest.UsageError(
            "tests/vm needs the VM lane: run 'make test-vm' "
            "(or scripts/vm/run .venv/bin/pytest tests/vm)")


@pytest.fixture(scope="session")
def mtg_module():
    """mtg.ko loaded for the session; unloading it at the end must work."""
    load_module()
    yield
    unload_module()


@pytest.fixture
def mtg(mtg_module):
    """The module, loaded (tests that reload it leave it loaded)."""
    load_module()


@pytest.fixture(autouse=True)
def kernel_log_names_the_test(request):
    """Each test's name in the kernel log, as an error so that the console
    (loglevel 4) shows it: if the guest dies, scripts/vm/run says which
    test was running."""
    with open("/dev/kmsg", "w") as kmsg:
        kmsg.write(f"<3>mtg-test: {request.node.nodeid}\n")


@pytest.fixture(autouse=True)
def kernel_log_clean():
    """Fail the test that made the kernel report anything (see scan-kmsg)."""
    before = len(kmsg_lines())
    yield
    new = kmsg_lines()[before:]
    bad = [line for line in new if KMSG_PATTERNS.search(line)]
    if bad:
        pytest.fail("kernel reported during the test:\n" + "\n".join(new[-80:]))


@pytest.fixture
def netns():
    """Factory of network namespaces, all deleted after the test."""
    made = []

    def make():
        name = unique("mtgns")
        run("ip", "netns", "add", name)
        made.append(name)
        run("ip", "-n", name, "link", "set", "lo", "up")
        return name

    yield make
    for name in made:
        if os.path.exists(f"/run/netns/{name}"):
            # A leaked device reference would hang here: bounded.
            run("ip", "netns", "del", name, timeout=60)


@pytest.fixture
def veth():
    """Factory of veth pairs (a end, b end in namespace b_ns if given)."""
    made = []

    def make(b_ns=None):
        a, b = unique("va"), unique("vb")
        run("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        made.append(a)
        if b_ns:
            run("ip", "link", "set", b, "netns", b_ns)
            run("ip", "-n", b_ns, "link", "set", b, "up")
        run("ip", "link", "set", a, "up")
        return a, b

    yield make
    for a in made:
        if os.path.exists(f"/sys/class/net/{a}"):
            run("ip", "link", "del", a, timeout=60)


@pytest.fixture
def make_link(netns, veth):
    """Factory of mtgtest.tg.Link: a veth pair, a here, b in a new
    namespace, addressed (IPv4 or IPv6). test_mtgctl.py has its own."""
    def make(family=4):
        ns = netns()
        a, b = veth(b_ns=ns)
        return address_link(a, b, ns, family)
    return make


@pytest.fixture(params=[4, 6], ids=["ipv4", "ipv6"])
def link(request, make_link):
    """A Link of each family."""
    return make_link(request.param)


@pytest.fixture
def virtio_link(request, netns):
    """The two virtio_net devices wired back to back (MTG_VM_NETWORK=loop):
    one moves into a namespace for the test, and everything is put back
    afterwards so other tests find the pair as they expect."""
    nets = virtio_nets()
    if len(nets) != 2:
        pytest.skip("no virtio_net pair: boot with MTG_VM_NETWORK=loop "
                    f"(make test-vm does); found {sorted(nets) or 'none'}")
    a, b = sorted(nets)
    ns = netns()
    run("ip", "link", "set", b, "netns", ns)
    try:
        run("ip", "-n", ns, "link", "set", b, "up")
        run("ip", "link", "set", a, "up")
        yield address_link(a, b, ns, request.param)
    finally:
        if run("ip", "-n", ns, "link", "show", b, check=False).returncode == 0:
            run("ip", "-n", ns, "link", "set", b, "netns", "1")
        for dev in (a, b):
            run("ip", "addr", "flush", "dev", dev, check=False)
            run("ip", "link", "set", dev, "down", check=False)
        assert set(virtio_nets()) == set(nets), "virtio_net pair not restored"
