# SPDX-License-Identifier: GPL-2.0-or-later
"""Sessions come and go cleanly: open/close, many at once, module reload,
who may open, and a session that dies with its owner, not with its heirs."""

import errno
import mmap
import os
import subprocess
import sys

from mtgtest.system import (PYTHONPATH, ifindex, load_module, module_loaded,
                            python, run, unload_module)
from mtgwitness import abi


def test_open_close_cycles(mtg):
    ids = set()
    for _ in range(300):
        with abi.Session() as s:
            ids.add(s.stats().session_id)
    assert len(ids) == 300, "every session gets its own id"


def test_many_sessions_at_once(mtg):
    sessions = [abi.Session() for _ in range(500)]
    try:
        for i, s in enumerate(sessions):
            if i % 10 == 0:
                s.alloc(4096)
        ids = {s.stats().session_id for s in sessions}
        assert len(ids) == 500
        allocated = [s.stats().flags & abi.SESSION_FLAGS_ALLOCATED for s in sessions]
        assert sum(1 for a in allocated if a) == 50
    finally:
        for s in sessions:
            s.close()


def test_module_pinned_while_open_then_reloads(mtg):
    s = abi.Session()
    s.alloc(1 << 20)
    m = s.map_region(abi.REGION_TABLES, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    assert run("rmmod", "mtg", check=False).returncode != 0, \
        "the module must stay while a session is open"
    s.close()
    assert run("rmmod", "mtg", check=False).returncode != 0, \
        "a mapping keeps the session's file, so the module stays"
    m.close()
    unload_module()
    load_module()


def test_reload_repeatedly(mtg):
    for _ in range(10):
        unload_module()
        assert not module_loaded()
        assert not os.path.exists("/dev/mtg")
        load_module()
        with abi.Session() as s:
            s.alloc(64 << 10)
            assert s.version().abi_major == abi.ABI_MAJOR


def test_module_parameters_are_checked(mtg):
    unload_module()
    try:
        res = run("insmod", "kmod/mtg.ko", "max_session_mb=0", check=False)
        assert res.returncode != 0 and not module_loaded()
        run("insmod", "kmod/mtg.ko", "max_session_mb=1", "max_ifaces=2")
        with abi.Session() as s:
            v = s.version()
            assert (v.max_session_bytes, v.max_ifaces) == (1 << 20, 2)
            assert abi.errno_of(s.alloc, 1 << 20) == errno.E2BIG
            s.alloc((1 << 20) - 4096)
    finally:
        unload_module()
        load_module()


OPEN_WITHOUT_CAP = """
import os, sys
caps = [l for l in open('/proc/self/status') if l.startswith('CapEff')][0]
eff = int(caps.split()[1], 16)
assert os.getuid() == 0 and not eff & (1 << 12), caps  # CAP_NET_ADMIN is 12
try:
    os.open('/dev/mtg', os.O_RDWR)
except PermissionError:
    print('refused')
else:
    print('opened')
"""


def test_open_needs_cap_net_admin(mtg):
    # Still root, so the file mode would let it in: only the capability
    # check can refuse. capsh hands "-c SCRIPT ARG0 ARG1" to bash.
    res = run("capsh", "--drop=cap_net_admin", "--", "-c", 'exec "$0" -c "$1"',
              sys.executable, OPEN_WITHOUT_CAP)
    assert res.stdout.strip() == "refused", res.stdout + res.stderr


FORKED_CHILD = """
import errno, mmap, os, sys, time
from mtgwitness import abi
ifx = int(sys.argv[1])
s = abi.Session()
s.alloc(1 << 20)
m = s.map_region(abi.REGION_TABLES, prot=mmap.PROT_READ | mmap.PROT_WRITE)
iface = s.iface_add(ifx)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w)
    os.read(r, 1)            # wait for the parent to be gone
    time.sleep(0.2)
    st = s.stats()
    maps = open('/proc/self/maps').read()
    print('ended', bool(st.flags & abi.SESSION_FLAGS_ENDED))
    print('ifaces', st.ifaces)
    print('mapped', '/dev/mtg' in maps)
    print('add', errno.errorcode.get(abi.errno_of(s.iface_add, ifx), 'OK'))
    print('mmap', errno.errorcode.get(abi.errno_of(s.map_region, abi.REGION_STATUS), 'OK'))
    print('stats-ok', st.session_id > 0)
    sys.stdout.flush()
    os._exit(0)
os.close(r)
# The parent exits, taking its descriptor with it; the child still has one.
os._exit(0)
"""


def test_forked_child_does_not_keep_session(mtg, veth):
    a, _ = veth()
    res = python(FORKED_CHILD, str(ifindex(a)))
    # The child prints after the parent exited; the pipe closing wakes it.
    out = dict(line.split(" ", 1) for line in res.stdout.split("\n") if line)
    assert out == {"ended": "True", "ifaces": "0", "mapped": "False",
                   "add": "ESHUTDOWN", "mmap": "ESHUTDOWN",
                   "stats-ok": "True"}, res.stdout


def test_killed_owner_ends_session_and_frees_device(mtg, veth):
    a, _ = veth()
    code = ("import sys, time\nfrom mtgwitness import abi\n"
            "s = abi.Session(); s.alloc(1 << 20); s.iface_add(int(sys.argv[1]))\n"
            "print('ready', flush=True); time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(ifindex(a))],
                            stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=PYTHONPATH))
    assert proc.stdout.readline().strip() == "ready"
    proc.kill()
    proc.wait()
    # The device is free again: deleting it completes at once.
    run("ip", "link", "del", a, timeout=30)
    unload_module()
    load_module()
