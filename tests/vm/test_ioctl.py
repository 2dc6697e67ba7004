# SPDX-License-Identifier: GPL-2.0-or-later
"""Every ioctl argument is checked, the shared memory keeps its rules."""

import ctypes
import errno
import fcntl
import mmap
import os
import pathlib

import pytest

from mtgtest.system import python
from mtgwitness import abi

PAGE = mmap.PAGESIZE


@pytest.fixture
def session(mtg):
    with abi.Session() as s:
        yield s


def test_version(session):
    v = session.version()
    assert (v.abi_major, v.abi_minor) == (abi.ABI_MAJOR, abi.ABI_MINOR)
    assert v.max_session_bytes == 256 << 20 and v.max_ifaces == 64
    assert v.reserved == 0


def test_unknown_commands_are_enotty(session):
    for cmd in (0, 0xFFFFFFFF, abi.IOC_VERSION + 1, abi.IOC_VERSION ^ (1 << 16),
                (abi.IOC_MAGIC << 8) | 0x10, (abi.IOC_MAGIC << 8) | 0xFF):
        assert abi.errno_of(fcntl.ioctl, session.fd, cmd, bytearray(4096)) == \
            errno.ENOTTY, hex(cmd)


@pytest.mark.parametrize("fields", [
    {"flags": 1}, {"flags": 1 << 31}, {"reserved": 1}, {"keep_bytes": 1},
    {"keep_bytes": 1 << 63},
])
def test_alloc_rejects_reserved_fields(session, fields):
    assert abi.errno_of(session.alloc, PAGE, **fields) == errno.EINVAL
    assert not session.stats().flags & abi.SESSION_FLAGS_ALLOCATED


@pytest.mark.parametrize("records", [
    1, 8, abi.RX_RECORDS_MIN - 1, abi.RX_RECORDS_MIN + 1, 48, 1000,
    abi.RX_RECORDS_MAX + 1, abi.RX_RECORDS_MAX * 2, 2**63, 2**64 - 1,
])
def test_alloc_rejects_bad_ring_sizes(session, records):
    """rx_records: a power of two within the limits, else EINVAL."""
    assert abi.errno_of(session.alloc, PAGE, rx_records=records) == \
        errno.EINVAL
    assert not session.stats().flags & abi.SESSION_FLAGS_ALLOCATED


def test_alloc_ring_beyond_the_cap(session):
    """The largest ring (2^24 records of 96 bytes) exceeds 256 MiB."""
    assert abi.errno_of(session.alloc, 0, rx_records=abi.RX_RECORDS_MAX) == \
        errno.E2BIG


def test_alloc_rx_layout(session):
    """A receive-only session (no tables): the rings' regions and the
    offsets query, records on their own pages, counts on their own cache
    lines, the consumer counts alone in the writable region."""
    assert abi.errno_of(session.rx_offsets) == errno.ENODATA
    session.alloc(0, rx_records=64)
    regions = session.offsets().region
    assert regions[abi.REGION_TABLES].size == 0
    rx, cons = regions[abi.REGION_RX], regions[abi.REGION_RX_CONS]
    data_bytes = -(-64 * ctypes.sizeof(abi.RxRec) // PAGE) * PAGE
    ctrl_bytes = -(-abi.CTRL_RECORDS * ctypes.sizeof(abi.CtrlRec) // PAGE) * PAGE
    assert rx.size == PAGE + data_bytes + ctrl_bytes and rx.flags == 0
    assert cons.size == PAGE and cons.flags == abi.REGION_F_WRITABLE
    assert session.stats().mem_bytes == 2 * PAGE + rx.size
    off = session.rx_offsets()
    assert (off.data.nr, off.data.size) == (64, ctypes.sizeof(abi.RxRec))
    assert (off.ctrl.nr, off.ctrl.size) == \
        (abi.CTRL_RECORDS, ctypes.sizeof(abi.CtrlRec))
    assert off.data.records == PAGE and off.ctrl.records == PAGE + data_bytes
    counts = [off.data.producer, off.ctrl.producer, off.stats]
    assert len({c // 64 for c in counts}) == 3 and max(counts) < PAGE
    assert off.data.consumer // 64 != off.ctrl.consumer // 64
    assert max(off.data.consumer, off.ctrl.consumer) < PAGE
    assert tuple(off.reserved) == (0, 0, 0)
    # The rings can only be read; the consumer counts written.
    assert abi.errno_of(session.map_region, abi.REGION_RX,
                        prot=mmap.PROT_READ | mmap.PROT_WRITE) == errno.EPERM
    r = session.rx()
    assert r.data.producer() == r.ctrl.producer() == 0
    assert bytes(r.shm_stats()) == bytes(session.rx_stats())
    assert session.rx_stats().as_dict() == dict.fromkeys(abi.RX_COUNTERS, 0)
    r.close()


def test_rx_commands_need_a_ring(session):
    session.alloc(PAGE)
    for fn in (session.rx_offsets, session.rx_stats):
        assert abi.errno_of(fn) == errno.ENODATA
    assert abi.errno_of(session.rx_set_run, 7) == errno.ENODATA


@pytest.mark.parametrize("size,err", [
    (0, errno.EINVAL), ((256 << 20) - PAGE + 1, errno.E2BIG),
    (256 << 20, errno.E2BIG), (2**63, errno.E2BIG), (2**64 - 1, errno.E2BIG),
])
def test_alloc_rejects_impossible_sizes(session, size, err):
    assert abi.errno_of(session.alloc, size) == err


def test_alloc_once_and_layout(session):
    assert abi.errno_of(session.offsets) == errno.ENODATA
    session.alloc(10 * PAGE + 1)
    assert abi.errno_of(session.alloc, PAGE) == errno.EBUSY
    regions = session.offsets().region
    tables, status = regions[abi.REGION_TABLES], regions[abi.REGION_STATUS]
    assert tables.size == 11 * PAGE and tables.flags == abi.REGION_F_WRITABLE
    assert status.size == PAGE and status.flags == 0
    assert tables.offset % PAGE == 0 and status.offset % PAGE == 0
    assert all(regions[i].size == 0 for i in range(2, abi.REGION_MAX))
    st = session.stats()
    assert st.mem_bytes == 12 * PAGE and st.flags == abi.SESSION_FLAGS_ALLOCATED


def test_largest_allowed_alloc(session):
    session.alloc((256 << 20) - PAGE)
    assert session.stats().mem_bytes == 256 << 20


def test_bad_pointers_are_efault(session):
    session.alloc(PAGE, rx_records=16)
    for cmd in (abi.IOC_VERSION, abi.IOC_ALLOC, abi.IOC_STATS,
                abi.IOC_IFACE_ADD, abi.IOC_IFACE_DEL, abi.IOC_IFACE_INFO,
                abi.IOC_RX_OFFSETS, abi.IOC_RX_STATS, abi.IOC_RX_SET_RUN):
        assert abi.errno_of(fcntl.ioctl, session.fd, cmd, 0) == errno.EFAULT
        assert abi.errno_of(fcntl.ioctl, session.fd, cmd, 8) == errno.EFAULT


def test_tables_are_shared_both_ways(session):
    session.alloc(4 * PAGE)
    a = session.map_region(abi.REGION_TABLES, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    b = session.map_region(abi.REGION_TABLES, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    assert a[:] == bytes(len(a)), "the memory starts zeroed"
    a[100:104] = b"mtg!"
    a[-1:] = b"x"
    assert b[100:104] == b"mtg!" and b[-1:] == b"x"


def test_status_page_mirrors_stats(session, veth):
    session.alloc(PAGE)
    m = session.map_region(abi.REGION_STATUS)
    snap = abi.status_snapshot(m)
    assert snap.magic == abi.STATUS_MAGIC and snap.abi_major == abi.ABI_MAJOR
    assert bytes(snap.stats) == bytes(session.stats())
    a, _ = veth()
    session.iface_add(int(pathlib.Path(f"/sys/class/net/{a}/ifindex").read_text()))
    snap2 = abi.status_snapshot(m)
    assert snap2.seq > snap.seq and snap2.stats.ifaces == 1
    assert bytes(snap2.stats) == bytes(session.stats())


def test_read_only_region_cannot_be_written(session):
    session.alloc(PAGE)
    assert abi.errno_of(session.map_region, abi.REGION_STATUS,
                        prot=mmap.PROT_READ | mmap.PROT_WRITE) == errno.EPERM
    m = session.map_region(abi.REGION_STATUS)
    assert m[:4] == abi.STATUS_MAGIC.to_bytes(4, "little")
    m.close()
    # mprotect cannot make it writable later either.
    res = python(MPROTECT_CHECK)
    assert res.stdout.strip() == "EACCES", res.stdout + res.stderr


MPROTECT_CHECK = """
import ctypes, errno, mmap
from mtgwitness import abi
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
s = abi.Session(); s.alloc(mmap.PAGESIZE)
r = s.offsets().region[abi.REGION_STATUS]
p = libc.mmap(None, r.size, mmap.PROT_READ, mmap.MAP_SHARED, s.fd, r.offset)
assert p not in (None, ctypes.c_void_p(-1).value)
rc = libc.mprotect(p, r.size, mmap.PROT_READ | mmap.PROT_WRITE)
print(errno.errorcode[ctypes.get_errno()] if rc else 'allowed')
"""


def test_mapping_rules(session):
    assert abi.errno_of(mmap.mmap, session.fd, PAGE, flags=mmap.MAP_SHARED,
                        prot=mmap.PROT_READ, offset=0) == errno.ENODATA
    session.alloc(4 * PAGE)
    tables = session.offsets().region[abi.REGION_TABLES]
    rw = mmap.PROT_READ | mmap.PROT_WRITE
    # private mappings would copy on write and hide changes
    assert abi.errno_of(mmap.mmap, session.fd, PAGE, flags=mmap.MAP_PRIVATE,
                        prot=mmap.PROT_READ, offset=tables.offset) == errno.EINVAL
    # beyond the region, across regions, past the end
    for offset, length in ((tables.offset, tables.size + PAGE),
                           (tables.offset + tables.size, PAGE),
                           (0, 2 * PAGE), (1 << 40, PAGE)):
        assert abi.errno_of(mmap.mmap, session.fd, length, flags=mmap.MAP_SHARED,
                            prot=rw, offset=offset) == errno.EINVAL, (offset, length)
    # a part of a region is fine
    m = mmap.mmap(session.fd, PAGE, flags=mmap.MAP_SHARED, prot=rw,
                  offset=tables.offset + 2 * PAGE)
    m[0:1] = b"z"
    whole = session.map_region(abi.REGION_TABLES)
    assert whole[2 * PAGE:2 * PAGE + 1] == b"z"


def test_mapping_cannot_grow(session):
    session.alloc(2 * PAGE)
    m = session.map_region(abi.REGION_TABLES, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    with pytest.raises(OSError):
        m.resize(4 * PAGE)


def test_alloc_charged_to_cgroup(mtg):
    root = pathlib.Path("/sys/fs/cgroup")
    if not (root / "cgroup.controllers").exists() or \
            "memory" not in (root / "cgroup.controllers").read_text():
        pytest.skip("the guest has no cgroup v2 memory controller mounted")
    (root / "cgroup.subtree_control").write_text("+memory")
    cg = root / f"mtgtest{os.getpid()}"
    cg.mkdir()
    try:
        (cg / "memory.max").write_text(str(32 << 20))
        code = ("import os, sys, errno\nfrom mtgwitness import abi\n"
                "open(sys.argv[1] + '/cgroup.procs', 'w').write(str(os.getpid()))\n"
                "s = abi.Session()\n"
                "print(errno.errorcode.get(abi.errno_of(s.alloc, 128 << 20), 'OK'))\n"
                "t = abi.Session()\n"
                "print(errno.errorcode.get(abi.errno_of(t.alloc, 4 << 20), 'OK'))\n")
        res = python(code, str(cg))
        assert res.stdout.split() == ["ENOMEM", "OK"], res.stdout + res.stderr
    finally:
        cg.rmdir()
