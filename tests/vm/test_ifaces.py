# SPDX-License-Identifier: GPL-2.0-or-later
"""Interfaces a session holds: checked arguments, namespaces, and deletion
of an interface or a namespace in use, which must complete and be reported."""

import errno
import os
import time

import pytest

from mtgtest.system import ifindex, python, run
from mtgwitness import abi


@pytest.fixture
def session(mtg):
    with abi.Session() as s:
        yield s


def test_add_info_del(session, veth):
    a, _ = veth()
    iface = session.iface_add(ifindex(a))
    assert iface >= 1
    info = session.iface_info(iface)
    assert info.state == abi.IFACE_STATE_ATTACHED and info.ifindex == ifindex(a)
    assert bytes(info.name).rstrip(b"\0").decode() == a
    assert info.netns_cookie != 0
    st = session.stats()
    assert (st.ifaces, st.ifaces_lost) == (1, 0)
    session.iface_del(iface)
    assert abi.errno_of(session.iface_info, iface) == errno.ENOENT
    assert session.stats().ifaces == 0


def test_bad_arguments(session, veth, tmp_path):
    a, _ = veth()
    good = ifindex(a)
    e = abi.errno_of
    assert e(session.iface_add, 0) == errno.EINVAL
    assert e(session.iface_add, 2**31) == errno.EINVAL
    assert e(session.iface_add, 999999) == errno.ENODEV
    assert e(session.iface_add, good, flags=1 << 2) == errno.EINVAL
    assert e(session.iface_add, good, flags=1 << 31) == errno.EINVAL
    # Pass-through means nothing without receiving.
    assert e(session.iface_add, good, flags=2) == errno.EINVAL
    assert e(session.iface_add, good, id=5) == errno.EINVAL
    assert e(session.iface_add, good, netns_fd=987) == errno.EBADF
    assert e(session.iface_add, good, netns_fd=2**31) == errno.EBADF
    with open(tmp_path / "plain", "w") as f:
        assert e(session.iface_add, good, netns_fd=f.fileno()) == errno.EINVAL
    assert e(session.iface_del, 12345) == errno.ENOENT
    info = abi.IfaceInfo(id=1, reserved=1)
    assert e(session.ioctl, abi.IOC_IFACE_INFO, info) == errno.EINVAL
    assert session.stats().ifaces == 0, "nothing half-done"


def test_cap_on_ifaces(mtg, veth):
    a, _ = veth()
    run("rmmod", "mtg")
    run("insmod", "kmod/mtg.ko", "max_ifaces=3")
    with abi.Session() as s:
        ids = [s.iface_add(ifindex(a)) for _ in range(3)]
        assert sorted(ids) == [1, 2, 3]
        assert abi.errno_of(s.iface_add, ifindex(a)) == errno.ENOSPC
        s.iface_del(ids[1])
        assert s.iface_add(ifindex(a)) == ids[1]
    run("rmmod", "mtg")
    run("insmod", "kmod/mtg.ko")


def test_device_in_another_namespace(session, netns, veth):
    ns = netns()
    _, b = veth(b_ns=ns)
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        iface = session.iface_add(ifindex(b, ns), netns_fd=fd)
    finally:
        os.close(fd)
    info = session.iface_info(iface)
    assert bytes(info.name).rstrip(b"\0").decode() == b
    own = session.iface_add(1)  # lo of our namespace
    assert session.iface_info(own).netns_cookie != info.netns_cookie


def wait_lost(session, iface, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if session.iface_info(iface).state == abi.IFACE_STATE_LOST:
            return
        time.sleep(0.05)
    pytest.fail("the session never reported the interface lost")


def test_interface_deleted_while_held(session, veth):
    a, b = veth()
    ia, ib = session.iface_add(ifindex(a)), session.iface_add(ifindex(b))
    start = time.monotonic()
    run("ip", "link", "del", a, timeout=30)  # takes b with it
    assert time.monotonic() - start < 20, "deletion waited for mtg"
    for iface in (ia, ib):
        wait_lost(session, iface)
    st = session.stats()
    assert (st.ifaces, st.ifaces_lost) == (0, 2)
    session.iface_del(ia)  # a lost iface can still be forgotten
    assert session.stats().ifaces_lost == 2


def test_namespace_deleted_while_held(session, netns, veth):
    ns = netns()
    a, b = veth(b_ns=ns)
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    iface = session.iface_add(ifindex(b, ns), netns_fd=fd)
    os.close(fd)
    run("ip", "netns", "del", ns, timeout=30)
    # The namespace is really gone when its veth end was destroyed, which
    # takes our peer end with it.
    deadline = time.monotonic() + 30
    while os.path.exists(f"/sys/class/net/{a}"):
        assert time.monotonic() < deadline, "the namespace never went away"
        time.sleep(0.05)
    wait_lost(session, iface)
    assert session.stats().ifaces_lost == 1


def test_interface_moved_away_is_lost(session, netns, veth):
    ns = netns()
    a, _ = veth()
    iface = session.iface_add(ifindex(a))
    run("ip", "link", "set", a, "netns", ns)
    wait_lost(session, iface)
    run("ip", "-n", ns, "link", "del", a)


USERNS = """
import errno, sys
from mtgwitness import abi
s = abi.Session()            # CAP_NET_ADMIN over this (new) namespace: ok
print('own', errno.errorcode.get(abi.errno_of(s.iface_add, 1), 'OK'))
fd = int(sys.argv[1])        # the initial namespace, inherited
print('init', errno.errorcode.get(abi.errno_of(s.iface_add, 1, netns_fd=fd), 'OK'))
"""


def test_capability_checked_in_target_namespace(mtg):
    # Root in a new user namespace owns a new network namespace, but has no
    # CAP_NET_ADMIN over the initial one, whose fd it inherited.
    fd = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        res = python(USERNS, str(fd), pass_fds=(fd,),
                     prefix=("unshare", "--user", "--map-root-user", "--net"))
    finally:
        os.close(fd)
    assert res.stdout.split() == ["own", "OK", "init", "EPERM"], \
        res.stdout + res.stderr


def virtio_nets():
    """virtio_net devices (scripts/vm/run with MTG_VM_NETWORK=loop) by name."""
    found = {}
    for dev in sorted(os.listdir("/sys/class/net")):
        driver = f"/sys/class/net/{dev}/device/driver"
        if os.path.exists(driver) and os.path.basename(os.readlink(driver)) == "virtio_net":
            found[dev] = os.path.basename(os.readlink(f"/sys/class/net/{dev}/device"))
    return found


def test_real_driver_unbound_while_held(session):
    """A real, non-lockless driver (virtio_net) lets go of its device while
    a session holds it: unbinding completes and the session reports it."""
    nets = virtio_nets()
    if not nets:
        pytest.skip("no virtio_net device: boot with MTG_VM_NETWORK=loop "
                    "(make test-vm does)")
    dev, virtio = next(iter(nets.items()))
    iface = session.iface_add(ifindex(dev))
    drv = "/sys/bus/virtio/drivers/virtio_net"
    with open(f"{drv}/unbind", "w") as f:
        f.write(virtio)
    try:
        wait_lost(session, iface)
        assert not os.path.exists(f"/sys/class/net/{dev}")
    finally:
        with open(f"{drv}/bind", "w") as f:
            f.write(virtio)
