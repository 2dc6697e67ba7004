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
# Where a Python child of a test imports from: the tests' helpers and the
# witness (scripts/mtgwitness).
PYTHONPATH = os.pathsep.join(str(ROOT / d) for d in ("tests", "scripts"))
KO = ROOT / "kmod" / "mtg.ko"
KMSG_PATTERNS = re.compile(subprocess.run(
    [str(ROOT / "scripts/vm/scan-kmsg"), "--patterns"],
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
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    return run(*prefix, sys.executable, "-c", code, *args, check=check,
               timeout=timeout, env=env, **kwargs)


def virtio_nets():
    """virtio_net devices of this namespace (scripts/vm/run with
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


def kthread_pid(comm):
    """The pid of the kernel thread named comm (as mtg/0, the CPU 0 thread
    of the dispatcher)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as f:
                if f.read().strip() == comm:
                    return int(entry)
        except FileNotFoundError:
            continue
    pytest.fail(f"no kernel thread named {comm}")


def sched_runtime(pid):
    """(ns on the CPU, times scheduled in) of a task, from schedstat: the
    scheduler's own accounting, independent of the module's counters."""
    with open(f"/proc/{pid}/schedstat") as f:
        runtime, _, slices = (int(x) for x in f.read().split())
    return runtime, slices


TRACEFS = "/sys/kernel/tracing"


class Kprobe:
    """A kprobe event (tracefs) on a kernel or module function, fetching
    its arguments: what the code under test passes, seen from outside it.

        with Kprobe("mtg_tx_send", "more=$arg3:u8") as probe:
            ...
        probe.values("more")  # one int per call, in trace order

    The trace buffer is enlarged for the duration and any overrun fails
    the test: a probe that lost calls witnesses nothing.
    """

    def __init__(self, symbol, fetch="", buffer_kib=16384):
        self.symbol, self.fetch, self.buffer_kib = symbol, fetch, buffer_kib
        self.event = f"mtgtest/{symbol}"
        self.lines = []

    def _write(self, name, text, append=False):
        # Not open(): its append mode seeks to the end, which tracefs
        # files refuse (EINVAL).
        fd = os.open(f"{TRACEFS}/{name}", os.O_WRONLY | (
            os.O_APPEND if append else os.O_TRUNC))
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def _read(self, name):
        with open(f"{TRACEFS}/{name}") as f:
            return f.read()

    def __enter__(self):
        if not os.path.exists(f"{TRACEFS}/kprobe_events"):
            run("mount", "-t", "tracefs", "nodev", TRACEFS)
        self.saved_kib = self._read("buffer_size_kb").split()[0]
        self._write("buffer_size_kb", str(self.buffer_kib))
        self._write("trace", "")
        try:
            self._write("kprobe_events", f"p:{self.event} {self.symbol} "
                        f"{self.fetch}\n", append=True)
        except OSError as e:
            self._write("buffer_size_kb", self.saved_kib)
            pytest.fail(f"kprobe on {self.symbol} {self.fetch} refused: {e}:"
                        f" {self._read('error_log')}")
        self._write(f"events/{self.event}/enable", "1")
        return self

    def __exit__(self, *exc):
        self._write(f"events/{self.event}/enable", "0")
        overruns = [int(m) for cpu in os.listdir(f"{TRACEFS}/per_cpu")
                    for m in re.findall(r"^overrun: (\d+)", self._read(
                        f"per_cpu/{cpu}/stats"), re.M)]
        self.lines = [line for line in self._read("trace").splitlines()
                      if not line.startswith("#")]
        self._write("kprobe_events", f"-:{self.event}\n", append=True)
        self._write("trace", "")
        self._write("buffer_size_kb", self.saved_kib)
        if exc[0] is None and any(overruns):
            pytest.fail(f"the trace buffer overran {overruns}: calls lost")

    def cpus(self):
        """The CPU of every call, in trace order."""
        return [int(m.group(1)) for line in self.lines
                if (m := re.search(r"\[(\d+)\]", line))]

    def values(self, name):
        """The fetched argument `name` of every call, in trace order."""
        pattern = re.compile(rf"\b{re.escape(name)}=(\S+)")
        return [int(m.group(1), 0) for line in self.lines
                if (m := pattern.search(line))]
