# SPDX-License-Identifier: GPL-2.0-or-later
"""The /dev/mtg ABI (kmod/uapi/mtg.h) for Python tests.

Kept in step with the C header by tests/host/test_abi_layout.py, which
compiles the header and compares every size, offset and command number.
"""

import ctypes
import fcntl
import mmap
import os

DEVICE = "/dev/mtg"
ABI_MAJOR = 1
ABI_MINOR = 0
IOC_MAGIC = 0xB9
NETNS_CURRENT = 0xFFFFFFFF
STATUS_MAGIC = 0x4D544753

REGION_TABLES = 0
REGION_STATUS = 1
REGION_MAX = 8
REGION_F_WRITABLE = 1 << 0

SESSION_F_ALLOCATED = 1 << 0
SESSION_F_ENDED = 1 << 1

IFACE_ATTACHED = 1
IFACE_LOST = 2


class Version(ctypes.Structure):
    _fields_ = [("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
                ("max_session_bytes", ctypes.c_uint64),
                ("max_ifaces", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class Alloc(ctypes.Structure):
    _fields_ = [("table_bytes", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32),
                ("reserved2", ctypes.c_uint64 * 2)]


class Region(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("flags", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class MmapOffsets(ctypes.Structure):
    _fields_ = [("region", Region * REGION_MAX)]


class Stats(ctypes.Structure):
    _fields_ = [("session_id", ctypes.c_uint64), ("mem_bytes", ctypes.c_uint64),
                ("flags", ctypes.c_uint32), ("ifaces", ctypes.c_uint32),
                ("ifaces_lost", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("events", ctypes.c_uint64)]


class Status(ctypes.Structure):
    _fields_ = [("magic", ctypes.c_uint32), ("abi_major", ctypes.c_uint32),
                ("seq", ctypes.c_uint64), ("stats", Stats)]


class IfaceAdd(ctypes.Structure):
    _fields_ = [("netns_fd", ctypes.c_uint32), ("ifindex", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("id", ctypes.c_uint32)]


class IfaceInfo(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("state", ctypes.c_uint32),
                ("ifindex", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("netns_cookie", ctypes.c_uint64), ("name", ctypes.c_uint8 * 16)]


def _ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (IOC_MAGIC << 8) | nr


def _iow(nr, ctype):
    return _ioc(1, nr, ctypes.sizeof(ctype))


def _ior(nr, ctype):
    return _ioc(2, nr, ctypes.sizeof(ctype))


def _iowr(nr, ctype):
    return _ioc(3, nr, ctypes.sizeof(ctype))


IOC_VERSION = _ior(0x00, Version)
IOC_ALLOC = _iow(0x01, Alloc)
IOC_MMAP_OFFSETS = _ior(0x02, MmapOffsets)
IOC_STATS = _ior(0x03, Stats)
IOC_IFACE_ADD = _iowr(0x04, IfaceAdd)
IOC_IFACE_DEL = _iow(0x05, ctypes.c_uint32)
IOC_IFACE_INFO = _iowr(0x06, IfaceInfo)

COMMANDS = {
    "MTG_IOC_VERSION": IOC_VERSION, "MTG_IOC_ALLOC": IOC_ALLOC,
    "MTG_IOC_MMAP_OFFSETS": IOC_MMAP_OFFSETS, "MTG_IOC_STATS": IOC_STATS,
    "MTG_IOC_IFACE_ADD": IOC_IFACE_ADD, "MTG_IOC_IFACE_DEL": IOC_IFACE_DEL,
    "MTG_IOC_IFACE_INFO": IOC_IFACE_INFO,
}
STRUCTS = {
    "mtg_version": Version, "mtg_alloc": Alloc, "mtg_region": Region,
    "mtg_mmap_offsets": MmapOffsets, "mtg_stats": Stats, "mtg_status": Status,
    "mtg_iface_add": IfaceAdd, "mtg_iface_info": IfaceInfo,
}


class Session:
    """One open file of /dev/mtg: a session."""

    def __init__(self, path=DEVICE):
        self.fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def ioctl(self, cmd, arg):
        """ioctl with a ctypes object, filled in place."""
        fcntl.ioctl(self.fd, cmd, arg, True)
        return arg

    def version(self):
        return self.ioctl(IOC_VERSION, Version())

    def alloc(self, table_bytes, **fields):
        return self.ioctl(IOC_ALLOC, Alloc(table_bytes=table_bytes, **fields))

    def offsets(self):
        return self.ioctl(IOC_MMAP_OFFSETS, MmapOffsets())

    def stats(self):
        return self.ioctl(IOC_STATS, Stats())

    def iface_add(self, ifindex, netns_fd=NETNS_CURRENT, **fields):
        req = IfaceAdd(netns_fd=netns_fd, ifindex=ifindex, **fields)
        return self.ioctl(IOC_IFACE_ADD, req).id

    def iface_del(self, iface_id):
        self.ioctl(IOC_IFACE_DEL, ctypes.c_uint32(iface_id))

    def iface_info(self, iface_id):
        return self.ioctl(IOC_IFACE_INFO, IfaceInfo(id=iface_id))

    def map_region(self, index, prot=mmap.PROT_READ, flags=mmap.MAP_SHARED,
                   length=None):
        region = self.offsets().region[index]
        return mmap.mmap(self.fd, length or region.size, flags=flags,
                         prot=prot, offset=region.offset)


def status_snapshot(buf):
    """Read struct mtg_status from a mapping the way the ABI says (seqcount)."""
    size = ctypes.sizeof(Status)
    for _ in range(1000):
        before = Status.from_buffer_copy(buf[:size]).seq
        snap = Status.from_buffer_copy(buf[:size])
        after = Status.from_buffer_copy(buf[:size]).seq
        if before == after == snap.seq and not before & 1:
            return snap
    raise RuntimeError("status page never stable")


def errno_of(fn, *args, **kwargs):
    """Call fn and return the errno it failed with, or 0."""
    try:
        fn(*args, **kwargs)
    except OSError as err:
        return err.errno
    return 0
