# SPDX-License-Identifier: GPL-2.0-or-later
"""The /dev/mtg ABI (kmod/uapi/mtg.h) in Python, for the tests and tools.

Kept in step with the C header by tests/host/test_abi_layout.py, which
compiles the header and compares every size, offset and command number.
"""

import ctypes
import fcntl
import ipaddress
import mmap
import os
import struct

DEVICE = "/dev/mtg"
ABI_MAJOR = 1
ABI_MINOR = 7
IOC_MAGIC = 0xB9
NETNS_CURRENT = 0xFFFFFFFF
STATUS_MAGIC = 0x4D544753

REGION_TABLES = 0
REGION_STATUS = 1
REGION_RX = 2
REGION_RX_CONS = 3
REGION_MAX = 8
REGION_F_WRITABLE = 1 << 0

SESSION_FLAGS_ALLOCATED = 1 << 0
SESSION_FLAGS_ENDED = 1 << 1

IFACE_STATE_ATTACHED = 1
IFACE_STATE_LOST = 2

IFACE_F_RX = 1 << 0
IFACE_F_RX_PASS = 1 << 1
IFACE_F_ALL = 0x3

# The receive path (MTG_RX_*, MTG_CTRL_*).
RX_RECORDS_MIN = 16
RX_RECORDS_MAX = 1 << 24
CTRL_RECORDS = 32
RX_STAMP_HOOK = 0
RX_STAMP_SW = 1
RX_STAMP_HW = 2
RX_F_STAMP = 0x3
RX_F_IPV6 = 1 << 2
RX_F_HDR_CORRUPT = 1 << 3
RX_F_CSUM_BAD = 1 << 4
RX_F_KEPT = 1 << 5
RX_F_KEEP_LOST = 1 << 6
RX_F_DITG = 1 << 7
RX_F_CSUM_PARTIAL = 1 << 8
RX_F_ICMP = 1 << 9
CTRL_MSG = 1
CTRL_TG_EVENT = 2
CTRL_RX_DROPS = 3
# The keep ring (ABI 1.4).
KEEP_BYTES_MIN = 1 << 16
KEEP_BYTES_MAX = 1 << 28
KEEP_BITS_MAX = 1024
KEEP_PAD = 0
KEEP_PAYLOAD = 1
KEEP_BITS = 2
KEEP_F_CUT = 1 << 0

# Traffic generators (MTG_TG_FLAGS_*, MTG_PATT_*, MTG_TG_* states, MTG_TG_ERROR_*).
TG_FLAGS_IPV6 = 1 << 0
TG_FLAGS_STREAM = 1 << 1
TG_FLAGS_LATE_SKIP = 1 << 2
TG_FLAGS_QDISC = 1 << 3
TG_FLAGS_PRECISE = 1 << 4
TG_FLAGS_DST_MAC = 1 << 5
TG_FLAGS_RESTART = 1 << 6
TG_FLAGS_KEEP_PAYLOAD = 1 << 7
TG_FLAGS_KEEP_BITS = 1 << 8
TG_FLAGS_DITG = 1 << 9
TG_FLAGS_ICMP = 1 << 10
TG_FLAGS_TCP = 1 << 11
TG_FLAGS_SCTP = 1 << 12
TG_FLAGS_DCCP = 1 << 13
TG_FLAGS_MASK = 0x3FFF
SOCK_CONNECT_S = 5
SOCK_QUEUE = 4096

PATT_FIXED = 0
PATT_RANDOM = 1
PATT_INCR = 2
PATT_CTRL = 3

CTRLMSG_MAX = 1024

TG_STATE_RUNNING = 1
TG_STATE_SUSPENDED = 2
TG_STATE_FINISHED = 3
TG_STATE_KILLED = 4
TG_STATE_FAILED = 5

TG_ERROR_NONE = 0
TG_ERROR_DEV_GONE = 1
TG_ERROR_CPU_OFFLINE = 2
TG_ERROR_RING = 3
TG_ERROR_TIME = 4
TG_ERROR_SOCKET = 5

LAT_BUCKETS = 368

# The on-wire MTG header (MTG_HDR_*).
HDR_MAGIC = 0x4D544731
HDR_VERSION = 1
HDR_LEN = 88
HDR_CRC_LEN = 44
HDR_F_CTRL = 1 << 0
HDR_F_KEEP_PAYLOAD = 1 << 1
HDR_F_KEEP_BITS = 1 << 2
# D-ITG's payload header (ABI 1.5) and its ports (MTG_IOC_RX_DITG).
DITG_HDR_LEN = 16
DITG_PORTS = 64
DITG_ADD = 1
DITG_DEL = 2


class Version(ctypes.Structure):
    _fields_ = [("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
                ("max_session_bytes", ctypes.c_uint64),
                ("max_ifaces", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class Alloc(ctypes.Structure):
    _fields_ = [("table_bytes", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32), ("rx_records", ctypes.c_uint64),
                ("keep_bytes", ctypes.c_uint64)]


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


class RingOffsets(ctypes.Structure):
    _fields_ = [("producer", ctypes.c_uint64), ("consumer", ctypes.c_uint64),
                ("records", ctypes.c_uint64), ("nr", ctypes.c_uint32),
                ("size", ctypes.c_uint32)]


class RxOffsets(ctypes.Structure):
    _fields_ = [("data", RingOffsets), ("ctrl", RingOffsets),
                ("stats", ctypes.c_uint64), ("reserved", ctypes.c_uint64 * 3)]


RX_COUNTERS = ("packets", "bytes", "ring_drops", "hdr_corrupt", "csum_bad",
               "wrong_bits", "foreign", "ctrl", "ctrl_drops", "bad_consumer",
               "kept", "keep_drops", "ditg_short")


class RxStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in RX_COUNTERS] + \
        [("reserved", ctypes.c_uint64 * 3)]

    def as_dict(self):
        return {name: getattr(self, name) for name in RX_COUNTERS}


class RxDitg(ctypes.Structure):
    _fields_ = [("run_id", ctypes.c_uint32), ("port", ctypes.c_uint16),
                ("op", ctypes.c_uint16), ("reserved", ctypes.c_uint64)]


class RxRec(ctypes.Structure):
    _fields_ = [("rx_ns", ctypes.c_uint64), ("seq", ctypes.c_uint64),
                ("sched_ns", ctypes.c_uint64), ("tx_ns", ctypes.c_uint64),
                ("tp_ns", ctypes.c_uint64 * 4), ("run_id", ctypes.c_uint32),
                ("tg_id", ctypes.c_uint32), ("wrong_bits", ctypes.c_uint32),
                ("len", ctypes.c_uint16), ("iface", ctypes.c_uint16),
                ("flags", ctypes.c_uint16), ("nut", ctypes.c_uint8 * 6),
                ("ttl", ctypes.c_uint8), ("tos", ctypes.c_uint8),
                ("payload_len", ctypes.c_uint16), ("reserved", ctypes.c_uint32)]


class CtrlRec(ctypes.Structure):
    _fields_ = [("time_ns", ctypes.c_uint64), ("type", ctypes.c_uint32),
                ("tg_id", ctypes.c_uint32), ("run_id", ctypes.c_uint32),
                ("len", ctypes.c_uint32), ("seq", ctypes.c_uint64),
                ("tx_ns", ctypes.c_uint64), ("events", ctypes.c_uint32),
                ("state", ctypes.c_uint32), ("error", ctypes.c_uint32),
                ("iface", ctypes.c_uint16), ("flags", ctypes.c_uint16),
                ("count", ctypes.c_uint64),
                ("data", ctypes.c_uint8 * 1024)]


class KeepRec(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint32), ("type", ctypes.c_uint16),
                ("flags", ctypes.c_uint16), ("record", ctypes.c_uint64),
                ("rx_ns", ctypes.c_uint64), ("seq", ctypes.c_uint64),
                ("run_id", ctypes.c_uint32), ("tg_id", ctypes.c_uint32),
                ("count", ctypes.c_uint32), ("data_len", ctypes.c_uint32)]


class KeepOffsets(ctypes.Structure):
    _fields_ = [("producer", ctypes.c_uint64), ("consumer", ctypes.c_uint64),
                ("area", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("reserved", ctypes.c_uint64 * 4)]


class TtEntry(ctypes.Structure):
    _fields_ = [("gap_ns", ctypes.c_uint64), ("len", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


class TtRing(ctypes.Structure):
    _fields_ = [("producer", ctypes.c_uint64), ("pad0", ctypes.c_uint8 * 56),
                ("consumer", ctypes.c_uint64), ("pad1", ctypes.c_uint8 * 56)]


class TgStart(ctypes.Structure):
    _fields_ = [("tg_id", ctypes.c_uint32), ("run_id", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("netns_fd", ctypes.c_uint32),
                ("ifindex", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                ("src_addr", ctypes.c_uint8 * 16),
                ("dst_addr", ctypes.c_uint8 * 16),
                ("src_port", ctypes.c_uint16), ("dst_port", ctypes.c_uint16),
                ("tos", ctypes.c_uint8), ("ttl", ctypes.c_uint8),
                ("dst_mac", ctypes.c_uint8 * 6),
                ("patt_kind", ctypes.c_uint8), ("patt_value", ctypes.c_uint8),
                ("reserved0", ctypes.c_uint16),
                ("patt_seed", ctypes.c_uint32), ("table_len", ctypes.c_uint32),
                ("table_offset", ctypes.c_uint64),
                ("ring_offset", ctypes.c_uint64),
                ("start_ns", ctypes.c_uint64), ("stop_count", ctypes.c_uint64),
                ("stop_ns", ctypes.c_uint64),
                ("late_threshold_ns", ctypes.c_uint64),
                ("nut", ctypes.c_uint8 * 6), ("reserved1", ctypes.c_uint16),
                ("reserved", ctypes.c_uint64 * 3)]

    @property
    def mac(self):
        """dst_mac as "aa:bb:cc:dd:ee:ff"."""
        return ":".join(f"{b:02x}" for b in self.dst_mac)


class TgRate(ctypes.Structure):
    _fields_ = [("tg_id", ctypes.c_uint32), ("num", ctypes.c_uint32),
                ("den", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class TgCtrlmsg(ctypes.Structure):
    _fields_ = [("tg_id", ctypes.c_uint32), ("len", ctypes.c_uint32),
                ("data", ctypes.c_uint64)]


class TgStats(ctypes.Structure):
    _fields_ = [("tg_id", ctypes.c_uint32), ("state", ctypes.c_uint32),
                ("error", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                ("sent", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("tx_errors", ctypes.c_uint64),
                ("skipped_late", ctypes.c_uint64),
                ("bad_entries", ctypes.c_uint64),
                ("underruns", ctypes.c_uint64),
                ("late_packets", ctypes.c_uint64), ("events", ctypes.c_uint64),
                ("ctrl_sent", ctypes.c_uint64), ("next_seq", ctypes.c_uint64),
                ("next_ns", ctypes.c_uint64),
                ("lateness_max_ns", ctypes.c_uint64),
                ("lateness_sum_ns", ctypes.c_uint64), ("early", ctypes.c_uint64),
                ("lead_ns", ctypes.c_uint64), ("spin_ns", ctypes.c_uint64),
                ("sock_error", ctypes.c_uint32), ("reserved2", ctypes.c_uint32),
                ("retrans", ctypes.c_uint64), ("write_waits", ctypes.c_uint64),
                ("reserved", ctypes.c_uint64 * 1),
                ("lateness_hist", ctypes.c_uint64 * LAT_BUCKETS)]

    @property
    def hist(self):
        """The lateness histogram as a list of LAT_BUCKETS counts."""
        return list(self.lateness_hist)


class MtgHdr(ctypes.BigEndianStructure):
    """struct mtg_hdr, as on the wire (network byte order)."""
    _fields_ = [("magic", ctypes.c_uint32), ("version", ctypes.c_uint8),
                ("flags", ctypes.c_uint8), ("hdr_len", ctypes.c_uint16),
                ("run_id", ctypes.c_uint32), ("tg_id", ctypes.c_uint32),
                ("seq", ctypes.c_uint64), ("sched_ns", ctypes.c_uint64),
                ("nut", ctypes.c_uint8 * 6), ("patt_kind", ctypes.c_uint8),
                ("patt_value", ctypes.c_uint8), ("patt_seed", ctypes.c_uint32),
                ("crc", ctypes.c_uint32), ("tx_ns", ctypes.c_uint64),
                ("tp_ns", ctypes.c_uint64 * 4)]


class DitgHdr(ctypes.BigEndianStructure):
    """struct mtg_ditg_hdr: D-ITG's payload header, as on the wire."""
    _fields_ = [("flow_id", ctypes.c_uint32), ("seq", ctypes.c_uint32),
                ("tx_sec", ctypes.c_uint32), ("tx_usec", ctypes.c_uint32)]


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
IOC_TG_START = _iowr(0x10, TgStart)
IOC_TG_KILL = _iow(0x11, ctypes.c_uint32)
IOC_TG_SUSPEND = _iow(0x12, ctypes.c_uint32)
IOC_TG_RESUME = _iow(0x13, ctypes.c_uint32)
IOC_TG_SET_RATE = _iow(0x14, TgRate)
IOC_TG_CTRLMSG = _iow(0x15, TgCtrlmsg)
IOC_TG_STATS = _iowr(0x16, TgStats)
IOC_RX_OFFSETS = _ior(0x30, RxOffsets)
IOC_RX_STATS = _ior(0x31, RxStats)
IOC_RX_SET_RUN = _iow(0x32, ctypes.c_uint32)
IOC_RX_KEEP_OFFSETS = _ior(0x33, KeepOffsets)
IOC_RX_DITG = _iow(0x34, RxDitg)

COMMANDS = {
    "MTG_IOC_VERSION": IOC_VERSION, "MTG_IOC_ALLOC": IOC_ALLOC,
    "MTG_IOC_MMAP_OFFSETS": IOC_MMAP_OFFSETS, "MTG_IOC_STATS": IOC_STATS,
    "MTG_IOC_IFACE_ADD": IOC_IFACE_ADD, "MTG_IOC_IFACE_DEL": IOC_IFACE_DEL,
    "MTG_IOC_IFACE_INFO": IOC_IFACE_INFO,
    "MTG_IOC_TG_START": IOC_TG_START, "MTG_IOC_TG_KILL": IOC_TG_KILL,
    "MTG_IOC_TG_SUSPEND": IOC_TG_SUSPEND, "MTG_IOC_TG_RESUME": IOC_TG_RESUME,
    "MTG_IOC_TG_SET_RATE": IOC_TG_SET_RATE,
    "MTG_IOC_TG_CTRLMSG": IOC_TG_CTRLMSG, "MTG_IOC_TG_STATS": IOC_TG_STATS,
    "MTG_IOC_RX_OFFSETS": IOC_RX_OFFSETS, "MTG_IOC_RX_STATS": IOC_RX_STATS,
    "MTG_IOC_RX_SET_RUN": IOC_RX_SET_RUN,
    "MTG_IOC_RX_KEEP_OFFSETS": IOC_RX_KEEP_OFFSETS,
    "MTG_IOC_RX_DITG": IOC_RX_DITG,
}
STRUCTS = {
    "mtg_version": Version, "mtg_alloc": Alloc, "mtg_region": Region,
    "mtg_mmap_offsets": MmapOffsets, "mtg_stats": Stats, "mtg_status": Status,
    "mtg_iface_add": IfaceAdd, "mtg_iface_info": IfaceInfo,
    "mtg_tt_entry": TtEntry, "mtg_tt_ring": TtRing, "mtg_tg_start": TgStart,
    "mtg_tg_rate": TgRate, "mtg_tg_ctrlmsg": TgCtrlmsg,
    "mtg_tg_stats": TgStats, "mtg_hdr": MtgHdr,
    "mtg_ring_offsets": RingOffsets, "mtg_rx_offsets": RxOffsets,
    "mtg_rx_stats": RxStats, "mtg_rx_rec": RxRec, "mtg_ctrl_rec": CtrlRec,
    "mtg_keep_rec": KeepRec, "mtg_keep_offsets": KeepOffsets,
    "mtg_rx_ditg": RxDitg, "mtg_ditg_hdr": DitgHdr,
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

    def rx_offsets(self):
        return self.ioctl(IOC_RX_OFFSETS, RxOffsets())

    def rx_stats(self):
        return self.ioctl(IOC_RX_STATS, RxStats())

    def rx_set_run(self, run_id):
        self.ioctl(IOC_RX_SET_RUN, ctypes.c_uint32(run_id))

    def rx_keep_offsets(self):
        return self.ioctl(IOC_RX_KEEP_OFFSETS, KeepOffsets())

    def rx_ditg(self, port, run_id=0, op=DITG_ADD, reserved=0):
        """D-ITG's packets to port recorded as run_id (or no longer)."""
        self.ioctl(IOC_RX_DITG, RxDitg(run_id=run_id, port=port, op=op,
                                       reserved=reserved))

    def rx(self):
        """The receive rings, mapped (see Rx)."""
        return Rx(self)

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

    # Traffic generators.

    def tg_start(self, **fields):
        """MTG_IOC_TG_START; returns the descriptor as the kernel left it
        (dst_mac resolved, src_addr filled in). Addresses may be given as
        text or ipaddress objects, dst_mac as "aa:bb:..." or bytes."""
        fields.setdefault("netns_fd", NETNS_CURRENT)
        for key in ("src_addr", "dst_addr"):
            if key in fields:
                fields[key] = _u8_array(_addr_bytes(fields[key]), 16)
        if "dst_mac" in fields:
            mac = fields["dst_mac"]
            if isinstance(mac, str):
                mac = bytes.fromhex(mac.replace(":", ""))
            fields["dst_mac"] = _u8_array(mac, 6)
        if "reserved" in fields and not isinstance(fields["reserved"],
                                                   ctypes.Array):
            fields["reserved"] = (ctypes.c_uint64 * 3)(*fields["reserved"])
        if "nut" in fields and not isinstance(fields["nut"], ctypes.Array):
            fields["nut"] = _u8_array(bytes(fields["nut"]), 6)
        return self.ioctl(IOC_TG_START, TgStart(**fields))

    def tg_kill(self, tg_id):
        self.ioctl(IOC_TG_KILL, ctypes.c_uint32(tg_id))

    def tg_suspend(self, tg_id):
        self.ioctl(IOC_TG_SUSPEND, ctypes.c_uint32(tg_id))

    def tg_resume(self, tg_id):
        self.ioctl(IOC_TG_RESUME, ctypes.c_uint32(tg_id))

    def tg_set_rate(self, tg_id, num, den, **fields):
        self.ioctl(IOC_TG_SET_RATE, TgRate(tg_id=tg_id, num=num, den=den,
                                           **fields))

    def tg_ctrlmsg(self, tg_id, data, length=None):
        """Send bytes data as a control message (length: override len)."""
        buf = ctypes.create_string_buffer(bytes(data), max(len(data), 1))
        msg = TgCtrlmsg(tg_id=tg_id,
                        len=len(data) if length is None else length,
                        data=ctypes.addressof(buf))
        self.ioctl(IOC_TG_CTRLMSG, msg)

    def tg_stats(self, tg_id):
        return self.ioctl(IOC_TG_STATS, TgStats(tg_id=tg_id))

    def tables(self):
        """The tables region, mapped writable (see Tables)."""
        return Tables(self)


def _addr_bytes(addr):
    if isinstance(addr, (bytes, bytearray)):
        return bytes(addr)
    if isinstance(addr, ctypes.Array):
        return bytes(addr)
    return ipaddress.ip_address(addr).packed


def _u8_array(data, size):
    if len(data) > size:
        raise ValueError(f"{len(data)} bytes do not fit in {size}")
    return (ctypes.c_uint8 * size)(*data.ljust(size, b"\0"))


class Tables:
    """The session's tables region, mapped read-write: timetables
    (struct mtg_tt_entry, host byte order) and stream rings
    (struct mtg_tt_ring). A ring's producer count is written with one
    aligned 8-byte store after the entries (x86 keeps stores in order)."""

    def __init__(self, session):
        self.mm = session.map_region(REGION_TABLES,
                                     prot=mmap.PROT_READ | mmap.PROT_WRITE)
        self.size = len(self.mm)
        self._u64 = memoryview(self.mm).cast("Q")

    def close(self):
        if self.mm is not None:
            self._u64.release()
            self.mm.close()
            self.mm = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def write_entries(self, offset, entries, first=0):
        """Write (gap_ns, len) or (gap_ns, len, reserved) tuples as the
        entries first, first + 1, ... of the table at offset."""
        size = ctypes.sizeof(TtEntry)
        for i, entry in enumerate(entries):
            gap, length, *rest = entry
            e = TtEntry(gap_ns=gap, len=length, reserved=rest[0] if rest else 0)
            pos = offset + (first + i) * size
            self.mm[pos:pos + size] = bytes(e)

    def write_table(self, offset, entries):
        """A whole table at offset (bytes into the region)."""
        self.write_entries(offset, entries)
        return len(entries)

    def read_entry(self, offset, index):
        size = ctypes.sizeof(TtEntry)
        pos = offset + index * size
        return TtEntry.from_buffer_copy(self.mm[pos:pos + size])

    def set_producer(self, ring_offset, count):
        """Publish count entries of the stream ring at ring_offset."""
        assert ring_offset % 8 == 0
        self._u64[(ring_offset + TtRing.producer.offset) // 8] = count

    def producer(self, ring_offset):
        return self._u64[(ring_offset + TtRing.producer.offset) // 8]

    def consumer(self, ring_offset):
        """The kernel's copy of the entries it has consumed."""
        return self._u64[(ring_offset + TtRing.consumer.offset) // 8]

    def write_bytes(self, offset, data):
        self.mm[offset:offset + len(data)] = data


class Stream:
    """Feeds a streaming TG: entries go to slot k mod table_len of the table
    at table_offset, then the ring's producer count moves on."""

    def __init__(self, tables, table_offset, table_len, ring_offset):
        self.t, self.table_offset = tables, table_offset
        self.table_len, self.ring_offset = table_len, ring_offset
        self.produced = tables.producer(ring_offset)

    def room(self):
        return self.table_len - (self.produced - self.t.consumer(self.ring_offset))

    def push(self, entries):
        """Append entries (no more than room()); returns how many."""
        entries = list(entries)
        assert len(entries) <= self.room(), "would overwrite unread entries"
        for entry in entries:
            self.t.write_entries(self.table_offset, [entry],
                                 first=self.produced % self.table_len)
            self.produced += 1
        self.t.set_producer(self.ring_offset, self.produced)
        return len(entries)


class Ring:
    """One receive ring: records of type rec in the read-only RX mapping,
    the producer count there, the consumer count in the writable one."""

    def __init__(self, rx_mm, cons_mm, off, rec):
        assert off.size == ctypes.sizeof(rec)
        self.rx, self.cons_mm, self.off, self.rec = rx_mm, cons_mm, off, rec
        self.consumed = self.consumer()

    def producer(self):
        return int.from_bytes(self.rx[self.off.producer:self.off.producer + 8],
                              "little")

    def consumer(self):
        c = self.off.consumer
        return int.from_bytes(self.cons_mm[c:c + 8], "little")

    def set_consumer(self, count):
        """Write the consumer count (one aligned 8-byte store)."""
        c = self.off.consumer
        memoryview(self.cons_mm).cast("Q")[c // 8] = count & (2**64 - 1)

    def read(self, limit=None):
        """Copy out what the producer count says is there (at most
        limit), then hand the slots back."""
        prod = self.producer()
        if limit is not None:
            prod = min(prod, self.consumed + limit)
        out = []
        for k in range(self.consumed, prod):
            pos = self.off.records + (k % self.off.nr) * self.off.size
            out.append(self.rec.from_buffer_copy(self.rx[pos:pos + self.off.size]))
        self.consumed = prod
        self.set_consumer(prod)
        return out


class KeepRing(Ring):
    """The keep ring (ABI 1.4): entries of variable length in the
    read-only RX mapping; its counts (Ring's) are of bytes."""

    def __init__(self, rx_mm, cons_mm, off):
        self.rx, self.cons_mm, self.off = rx_mm, cons_mm, off
        self.consumed = self.consumer()

    def read(self, pads=False, release=True):
        """[(KeepRec, data bytes)] up to the producer count, checked as a
        reader must (a bad entry is an AssertionError); PAD entries only
        if pads. Then the bytes are handed back (release)."""
        prod, size = self.producer(), self.off.bytes
        out = []
        while self.consumed < prod:
            at = self.off.area + self.consumed % size
            head = self.rx[at:at + 8]
            length, typ = struct.unpack_from("<IH", head)
            assert length >= 8 and length % 8 == 0, (self.consumed, length)
            assert length <= prod - self.consumed, (self.consumed, length)
            assert self.consumed % size + length <= size, "crosses the end"
            if typ == KEEP_PAD:
                if pads:
                    out.append((KeepRec(len=length, type=typ), b""))
            else:
                e = KeepRec.from_buffer_copy(
                    self.rx[at:at + ctypes.sizeof(KeepRec)])
                start = at + ctypes.sizeof(KeepRec)
                assert e.data_len <= length - ctypes.sizeof(KeepRec)
                out.append((e, bytes(self.rx[start:start + e.data_len])))
            self.consumed += length
        if release:
            self.set_consumer(self.consumed)
        return out


class Rx:
    """The receive path's mappings: Rx.data and Rx.ctrl rings, the keep
    ring if the session has one (Rx.keep, else None), the stats copy in
    shared memory."""

    def __init__(self, session):
        self.off = session.rx_offsets()
        self.rx_mm = session.map_region(REGION_RX)
        self.cons_mm = session.map_region(
            REGION_RX_CONS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        self.data = Ring(self.rx_mm, self.cons_mm, self.off.data, RxRec)
        self.ctrl = Ring(self.rx_mm, self.cons_mm, self.off.ctrl, CtrlRec)
        try:
            self.keep = KeepRing(self.rx_mm, self.cons_mm,
                                 session.rx_keep_offsets())
        except OSError:
            self.keep = None

    def shm_stats(self):
        s = self.off.stats
        return RxStats.from_buffer_copy(self.rx_mm[s:s + ctypes.sizeof(RxStats)])

    def close(self):
        for mm in (self.rx_mm, self.cons_mm):
            mm.close()


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
