# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for the tests that run in the VM: commands, the module, names."""

import itertools
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

# The debug lane's kernel (the one with kmemleak) runs KASAN under TCG:
# the receive path of a netem loop falls seconds behind the senders there.
DEBUG_KERNEL = os.path.exists("/sys/kernel/debug/kmemleak")
ROOT = pathlib.Path(__file__).resolve().parents[2]
KO = ROOT / "kmod" / "mtg.ko"
KMSG_PATTERNS = re.compile(subprocess.run(
    [str(ROOT / "tests/vm/scan-kmsg"), "--patterns"],
    check=True, capture_output=True, text=True).stdout.strip())


def run(*cmd, check=True, timeout=120, **kwargs):
    """Run a command, failing the test with its output if it fails."""
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                         timeout=timeout, **kwargs)
    if check and res.returncode:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {res.returncode}:\n"
                    f"{res.stdout}{res.stderr}")
    return res


def module_loaded():
    return pathlib.Path("/sys/module/mtg").exists()


def load_module(*params):
    if not module_loaded():
        run("insmod", KO, *params)
    for _ in range(200):
        if os.path.exists("/dev/mtg"):
            return
        time.sleep(0.01)
    pytest.fail("/dev/mtg did not appear after insmod")


def unload_module():
    if module_loaded():
        run("rmmod", "mtg")


def kmsg_lines():
    return subprocess.run(["dmesg"], capture_output=True, text=True,
                          check=True).stdout.splitlines()


_names = itertools.count()


def unique(prefix):
    """A short name no other test uses (interface names: 15 chars max)."""
    return f"{prefix}{os.getpid() % 1000}x{next(_names)}"


def ifindex(name, ns=None):
    cmd = ["cat", f"/sys/class/net/{name}/ifindex"]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    return int(run(*cmd).stdout)


def python(code, *args, check=True, timeout=120, prefix=(), **kwargs):
    """Run Python code in a new process (optionally under a prefix command)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests"))
    return run(*prefix, sys.executable, "-c", code, *args, check=check,
               timeout=timeout, env=env, **kwargs)


def virtio_nets():
    """virtio_net devices of this namespace (tests/vm/run with
    MTG_VM_NETWORK=loop gives two, wired back to back), by name, with their
    virtio device (as tests/vm/test_ifaces.py finds them)."""
    found = {}
    for dev in sorted(os.listdir("/sys/class/net")):
        driver = f"/sys/class/net/{dev}/device/driver"
        if os.path.exists(driver) and \
                os.path.basename(os.readlink(driver)) == "virtio_net":
            found[dev] = os.path.basename(os.readlink(f"/sys/class/net/{dev}/device"))
    return found


def tai_ns():
    """Now, CLOCK_TAI ns: the clock of every timestamp of the ABI."""
    return time.clock_gettime_ns(time.CLOCK_TAI)


def no_port_counters(ns=None):
    """In namespace ns (None: ours), datagrams to no socket (UDP, UDP6)
    and ICMP destination-unreachables sent (ICMP, ICMPv6)."""
    cat = ["ip", "netns", "exec", ns, "cat"] if ns else ["cat"]
    snmp = run(*cat, "/proc/net/snmp").stdout
    rows = [line.split() for line in snmp.splitlines()]
    table = {}
    for names, values in zip(rows[::2], rows[1::2]):
        table.update({(names[0], n): v for n, v in zip(names[1:], values[1:])})
    snmp6 = dict(line.split() for line in run(
        *cat, "/proc/net/snmp6").stdout.splitlines())
    return (int(table[("Udp:", "NoPorts")]),
            int(table[("Icmp:", "OutDestUnreachs")]),
            int(snmp6["Udp6NoPorts"]), int(snmp6["Icmp6OutDestUnreachs"]))
