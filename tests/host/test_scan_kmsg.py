# SPDX-License-Identifier: GPL-2.0-or-later
"""The VM lane's log scanner catches every kind of kernel report it must,
and passes a clean boot log, so its strictness cannot rot unnoticed."""

import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCAN = f"{ROOT}/scripts/vm/scan-kmsg"

CLEAN = """\
[    0.000000] Linux version 6.1.0-56-amd64 (debian-kernel@lists.debian.org)
[    3.141592] mtg: ABI 1.0, /dev/mtg ready
[    4.000000] IPv6: ADDRCONF(NETDEV_CHANGE): vb1: link becomes ready
"""

REPORTS = [
    "WARNING: CPU: 1 PID: 123 at kmod/mtg_main.c:42 mtg_open+0x1/0x2 [mtg]",
    "BUG: KASAN: slab-use-after-free in mtg_release+0x10/0x20 [mtg]",
    "BUG: kernel NULL pointer dereference, address: 0000000000000000",
    "Oops: 0000 [#1] PREEMPT SMP NOPTI",
    "WARNING: possible circular locking dependency detected",
    "BUG: scheduling while atomic: kworker/0:1/12/0x00000002",
    "BUG: sleeping function called from invalid context at mm/slab.c:1",
    "unreferenced object 0xffff888003c1e000 (size 64):",
    "refcount_t: underflow; use-after-free.",
    "unregister_netdevice: waiting for va1 to become free. Usage count = 2",
    "ref_tracker: netdev@00000000 has 1/1 users at",
    "INFO: task ip:321 blocked for more than 120 seconds.",
    "UBSAN: array-index-out-of-bounds in kmod/mtg_shm.c:10:2",
    "general protection fault, probably for non-canonical address 0xdead",
]


def scan(tmp_path, text):
    log = tmp_path / "dmesg"
    log.write_text(text)
    return subprocess.run([SCAN, log], capture_output=True, text=True)


def test_clean_log_passes(tmp_path):
    assert scan(tmp_path, CLEAN).returncode == 0


@pytest.mark.parametrize("line", REPORTS)
def test_report_fails(tmp_path, line):
    res = scan(tmp_path, CLEAN + f"[    5.000000] {line}\n")
    assert res.returncode == 1 and line in res.stderr


def test_missing_log_fails(tmp_path):
    assert subprocess.run([SCAN, tmp_path / "none"]).returncode == 1
