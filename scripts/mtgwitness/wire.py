# SPDX-License-Identifier: GPL-2.0-or-later
"""What mtg puts on the wire, read back in pure Python.

- pcap files (the classic libpcap format tcpdump -w writes: either byte
  order, micro- or nanosecond timestamps);
- Ethernet, IPv4, IPv6 and UDP, with the IPv4 header checksum and the UDP
  checksum (IPv4 and IPv6 pseudo-headers) verified, and required on every
  MTG frame (mtg always computes it); ICMP and ICMPv6 echoes (an ICMP
  TG's requests and the replies that bring its header back);
- the MTG header of kmod/uapi/mtg.h (all fields) and its CRC32C;
- the payload patterns, regenerated from the header, and a wrong-bit count;
- the lateness histogram's buckets (MTG_LAT_BUCKETS) and their bounds.

Nothing here needs root, the module or a network: tests/host/test_wire.py
checks it on hand-made frames.
"""

import dataclasses
import ipaddress
import struct

from . import abi

ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
ETH_P_8021Q = 0x8100
IPPROTO_ICMP = 1
IPPROTO_TCP = 6
IPPROTO_UDP = 17
IPPROTO_ICMPV6 = 58
ICMP_ECHO_REQUEST = {IPPROTO_ICMP: 8, IPPROTO_ICMPV6: 128}
ICMP_ECHO_REPLY = {IPPROTO_ICMP: 0, IPPROTO_ICMPV6: 129}
LINKTYPE_ETHERNET = 1

# --- pcap -------------------------------------------------------------------

PCAP_MAGIC_US = 0xA1B2C3D4
PCAP_MAGIC_NS = 0xA1B23C4D


@dataclasses.dataclass
class Record:
    """One packet of a pcap file."""
    ts_ns: int          # capture time, ns since the epoch (CLOCK_REALTIME)
    orig_len: int       # length on the wire (L2, without FCS on Linux)
    data: bytes         # the captured bytes (caplen of them)


def read_pcap(source):
    """Read a classic pcap file (path or bytes): (linktype, [Record])."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        buf = bytes(source)
    else:
        with open(source, "rb") as f:
            buf = f.read()
    if len(buf) < 24:
        raise ValueError("pcap: file shorter than its header")
    for order in ("<", ">"):
        magic = struct.unpack_from(order + "I", buf)[0]
        if magic in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
            break
    else:
        raise ValueError(f"pcap: bad magic {buf[:4].hex()} (pcapng is not "
                         "read here: capture with tcpdump -w)")
    scale = 1 if magic == PCAP_MAGIC_NS else 1000
    _, major, _minor, _zone, _sigfigs, _snaplen, linktype = \
        struct.unpack_from(order + "IHHiIII", buf)
    if major != 2:
        raise ValueError(f"pcap: version {major} unknown")
    records = []
    pos = 24
    rec = struct.Struct(order + "IIII")
    while pos < len(buf):
        if pos + 16 > len(buf):
            raise ValueError(f"pcap: truncated record header at {pos}")
        sec, frac, caplen, orig_len = rec.unpack_from(buf, pos)
        pos += 16
        if pos + caplen > len(buf):
            raise ValueError(f"pcap: truncated record at {pos}")
        records.append(Record(sec * 1_000_000_000 + frac * scale, orig_len,
                              buf[pos:pos + caplen]))
        pos += caplen
    return linktype & 0x0FFFFFFF, records


def write_pcap(records, nanoseconds=True, big_endian=False,
               linktype=LINKTYPE_ETHERNET):
    """The bytes of a pcap file holding records (for tests of the reader)."""
    order = ">" if big_endian else "<"
    magic = PCAP_MAGIC_NS if nanoseconds else PCAP_MAGIC_US
    out = [struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 262144, linktype)]
    for r in records:
        sec, rest = divmod(r.ts_ns, 1_000_000_000)
        frac = rest if nanoseconds else rest // 1000
        out.append(struct.pack(order + "IIII", sec, frac, len(r.data),
                               r.orig_len) + r.data)
    return b"".join(out)


# --- checksums --------------------------------------------------------------

def ones_complement_sum(data, start=0):
    """The 16-bit one's complement sum of data (RFC 1071), folded."""
    if len(data) % 2:
        data = bytes(data) + b"\0"
    total = start + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def inet_checksum(data, start=0):
    """The Internet checksum of data: complement of the one's complement sum."""
    return ~ones_complement_sum(data, start) & 0xFFFF


def pseudo_header(src, dst, length, proto=IPPROTO_UDP):
    """The IPv4 or IPv6 pseudo-header of a transport checksum."""
    if len(src) == 4:
        return src + dst + struct.pack("!BBH", 0, proto, length)
    return src + dst + struct.pack("!IxxxB", length, proto)


def udp_checksum(src, dst, segment):
    """The checksum a UDP segment (its checksum field zeroed) must carry;
    0 is sent as 0xffff (RFC 768)."""
    seg = bytes(segment[:6]) + b"\0\0" + bytes(segment[8:])
    csum = inet_checksum(pseudo_header(src, dst, len(seg)) + seg)
    return csum or 0xFFFF


# --- CRC32C (Castagnoli) ----------------------------------------------------

def _crc32c_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC32C = _crc32c_table()


def crc32c(data, crc=0):
    """CRC32C as iSCSI uses it (reflected, init and final xor 0xffffffff):
    crc32c(b"123456789") == 0xe3069283. crc continues an earlier result."""
    crc ^= 0xFFFFFFFF
    table = _CRC32C
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# --- payload patterns -------------------------------------------------------

def xorshift32_bytes(seed, length):
    """The RANDOM pattern: x = seed (1 if 0); per 4 bytes x ^= x << 13,
    x ^= x >> 17, x ^= x << 5 (32 bits), then x little-endian, the last
    word cut to the bytes left."""
    x = seed & 0xFFFFFFFF or 1
    out = bytearray()
    for _ in range((length + 3) // 4):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out += x.to_bytes(4, "little")
    return bytes(out[:length])


def pattern_bytes(kind, value, seed, length):
    """The payload of `length` bytes a header's pattern fields describe."""
    if kind == abi.PATT_FIXED:
        return bytes([value]) * length
    if kind == abi.PATT_INCR:
        return bytes((value + i) & 0xFF for i in range(length))
    if kind == abi.PATT_RANDOM:
        return xorshift32_bytes(seed, length)
    raise ValueError(f"pattern {kind} cannot be regenerated")


def wrong_bits(payload, expected):
    """Bits that differ between payload and expected (same length)."""
    if len(payload) != len(expected):
        raise ValueError("lengths differ")
    diff = int.from_bytes(payload, "big") ^ int.from_bytes(expected, "big")
    return bin(diff).count("1")


# --- lateness buckets -------------------------------------------------------

LAT_BUCKETS = abi.LAT_BUCKETS
_LAT_LAST_FROM = 1 << 48


def lat_bucket(ns):
    """The bucket of a lateness in the TG's histogram (uapi: MTG_LAT_BUCKETS)."""
    if ns < 0:
        raise ValueError("negative lateness")
    if ns < 8:
        return ns
    if ns >= _LAT_LAST_FROM:
        return LAT_BUCKETS - 1
    e = ns.bit_length() - 1
    return 8 + 8 * (e - 3) + ((ns >> (e - 3)) & 7)


def lat_bucket_bounds(bucket):
    """[low, high) of the values that go to bucket; high is None for the
    last bucket, which also takes everything from 2^48 on."""
    if not 0 <= bucket < LAT_BUCKETS:
        raise ValueError(f"no bucket {bucket}")
    if bucket < 8:
        return bucket, bucket + 1
    e, m = divmod(bucket - 8, 8)
    shift = e
    low = (8 + m) << shift
    if bucket == LAT_BUCKETS - 1:
        return low, None
    return low, (9 + m) << shift


def lat_histogram(values):
    """A list of LAT_BUCKETS counts, as MTG_IOC_TG_STATS gives them."""
    hist = [0] * LAT_BUCKETS
    for v in values:
        hist[lat_bucket(v)] += 1
    return hist


def hist_summary(values, keys=("p50", "p99", "p999")):
    """Percentiles as mtgctl summarizes a histogram of these buckets
    (lateness, one-way delay): percentile p is the largest value of the
    bucket holding the value of rank ceil(count * p), capped at the
    maximum; with the exact maximum and the mean rounded down. All None
    without values."""
    if not values:
        return dict.fromkeys((*keys, "max", "mean"))
    values = sorted(values)
    top = values[-1]
    out = {}
    for key in keys:
        rank = max(1, -(-len(values) * int(key[1:].ljust(3, "0")) // 1000))
        high = lat_bucket_bounds(lat_bucket(values[rank - 1]))[1]
        out[key] = top if high is None else min(high - 1, top)
    out["max"] = top
    out["mean"] = sum(values) // len(values)
    return out


# --- frames -----------------------------------------------------------------

HDR_STRUCT = struct.Struct("!IBBHIIQQ6sBBII QQQQQ".replace(" ", ""))
assert HDR_STRUCT.size == abi.HDR_LEN


@dataclasses.dataclass
class MtgHeader:
    """struct mtg_hdr, decoded. raw: the 88 bytes as received."""
    magic: int
    version: int
    flags: int
    hdr_len: int
    run_id: int
    tg_id: int
    seq: int
    sched_ns: int
    nut: bytes
    patt_kind: int
    patt_value: int
    patt_seed: int
    crc: int
    tx_ns: int
    tp_ns: tuple
    raw: bytes = dataclasses.field(repr=False, default=b"")

    @classmethod
    def decode(cls, data):
        if len(data) < abi.HDR_LEN:
            raise ValueError(f"MTG header needs {abi.HDR_LEN} bytes, "
                             f"got {len(data)}")
        f = HDR_STRUCT.unpack_from(data)
        return cls(*f[:14], tp_ns=tuple(f[14:]), raw=bytes(data[:abi.HDR_LEN]))

    def encode(self, crc=None):
        """The 88 bytes; crc=None keeps self.crc, "auto" computes it."""
        fields = [self.magic, self.version, self.flags, self.hdr_len,
                  self.run_id, self.tg_id, self.seq, self.sched_ns, self.nut,
                  self.patt_kind, self.patt_value, self.patt_seed, 0,
                  self.tx_ns, *self.tp_ns]
        raw = HDR_STRUCT.pack(*fields)
        value = self.crc if crc is None else \
            crc32c(raw[:abi.HDR_CRC_LEN]) if crc == "auto" else crc
        return raw[:44] + struct.pack("!I", value) + raw[48:]

    @property
    def crc_ok(self):
        return crc32c(self.raw[:abi.HDR_CRC_LEN]) == self.crc

    @property
    def valid(self):
        """Magic, version, length and CRC as the uapi header says."""
        return (self.magic == abi.HDR_MAGIC and self.version == abi.HDR_VERSION
                and self.hdr_len == abi.HDR_LEN and self.crc_ok)

    @property
    def ctrl(self):
        return bool(self.flags & abi.HDR_F_CTRL)


@dataclasses.dataclass
class Frame:
    """A captured Ethernet frame, decoded as far as it goes.

    Anything wrong is listed in errors (empty: a good UDP frame, with a good
    MTG header if it carries one)."""
    ts_ns: int
    orig_len: int
    data: bytes
    eth_dst: str = ""
    eth_src: str = ""
    ethertype: int = 0
    ip_version: int = 0
    src: object = None          # ipaddress.IPv4Address / IPv6Address
    dst: object = None
    tos: int = 0                # TOS or traffic class
    ttl: int = 0                # TTL or hop limit
    ip_id: int = 0
    df: bool = False
    sport: int = 0
    dport: int = 0
    udp_len: int = 0
    udp_csum: int = 0
    payload: bytes = b""        # after the UDP header
    mtg: MtgHeader = None
    body: bytes = b""           # after the MTG header
    errors: list = dataclasses.field(default_factory=list)

    @property
    def ok(self):
        return not self.errors

    def body_wrong_bits(self):
        """Wrong bits of the payload after the MTG header, against the
        pattern the header describes (None for control messages)."""
        h = self.mtg
        if h is None or h.patt_kind == abi.PATT_CTRL:
            return None
        return wrong_bits(self.body, pattern_bytes(h.patt_kind, h.patt_value,
                                                   h.patt_seed, len(self.body)))


def _mac(b):
    return ":".join(f"{x:02x}" for x in b)


def parse_frame(data, ts_ns=0, orig_len=None):
    """Decode an Ethernet frame down to the MTG header; verifies the IPv4
    header checksum, the UDP checksum and length, and the MTG header."""
    fr = Frame(ts_ns=ts_ns, orig_len=len(data) if orig_len is None else orig_len,
               data=bytes(data))
    err = fr.errors
    if fr.orig_len != len(data):
        err.append(f"truncated capture: {len(data)} of {fr.orig_len} bytes")
    if len(data) < 14:
        err.append("shorter than an Ethernet header")
        return fr
    fr.eth_dst, fr.eth_src = _mac(data[0:6]), _mac(data[6:12])
    fr.ethertype = struct.unpack_from("!H", data, 12)[0]
    pos = 14
    if fr.ethertype == ETH_P_IP:
        if len(data) < pos + 20:
            err.append("short IPv4 header")
            return fr
        vihl, tos, tot_len, ip_id, frag, ttl, proto = \
            struct.unpack_from("!BBHHHBB", data, pos)
        ihl = (vihl & 15) * 4
        fr.ip_version, fr.tos, fr.ttl, fr.ip_id = vihl >> 4, tos, ttl, ip_id
        fr.df = bool(frag & 0x4000)
        if fr.ip_version != 4 or ihl < 20 or len(data) < pos + ihl:
            err.append("bad IPv4 version or header length")
            return fr
        if ones_complement_sum(data[pos:pos + ihl]) != 0xFFFF:
            err.append("bad IPv4 header checksum")
        if frag & 0x3FFF:
            err.append("IPv4 fragment")
        if pos + tot_len > len(data) or tot_len < ihl:
            err.append(f"IPv4 total length {tot_len} does not fit the frame")
            return fr
        if pos + tot_len != len(data):
            err.append(f"frame has {len(data) - pos - tot_len} bytes after IP")
        src, dst = data[pos + 12:pos + 16], data[pos + 16:pos + 20]
        fr.src, fr.dst = ipaddress.IPv4Address(src), ipaddress.IPv4Address(dst)
        l4 = data[pos + ihl:pos + tot_len]
    elif fr.ethertype == ETH_P_IPV6:
        if len(data) < pos + 40:
            err.append("short IPv6 header")
            return fr
        vtcfl, plen, nxt, hlim = struct.unpack_from("!IHBB", data, pos)
        fr.ip_version, fr.tos, fr.ttl = vtcfl >> 28, (vtcfl >> 20) & 0xFF, hlim
        proto = nxt
        if fr.ip_version != 6:
            err.append("bad IPv6 version")
            return fr
        if pos + 40 + plen > len(data):
            err.append(f"IPv6 payload length {plen} does not fit the frame")
            return fr
        if pos + 40 + plen != len(data):
            err.append(f"frame has {len(data) - pos - 40 - plen} bytes after IP")
        src, dst = data[pos + 8:pos + 24], data[pos + 24:pos + 40]
        fr.src, fr.dst = ipaddress.IPv6Address(src), ipaddress.IPv6Address(dst)
        l4 = data[pos + 40:pos + 40 + plen]
    else:
        err.append(f"ethertype {fr.ethertype:#06x} is neither IPv4 nor IPv6")
        return fr
    if proto != IPPROTO_UDP:
        err.append(f"IP protocol {proto} is not UDP")
        return fr
    if len(l4) < 8:
        err.append("short UDP header")
        return fr
    fr.sport, fr.dport, fr.udp_len, fr.udp_csum = struct.unpack_from("!HHHH", l4)
    if fr.udp_len != len(l4):
        err.append(f"UDP length {fr.udp_len} but {len(l4)} bytes")
        return fr
    if fr.udp_csum == 0:
        if fr.ip_version == 6:
            err.append("UDP over IPv6 without checksum")
    elif ones_complement_sum(pseudo_header(src, dst, len(l4)) + l4) != 0xFFFF:
        err.append("bad UDP checksum")
    fr.payload = l4[8:]
    if len(fr.payload) >= abi.HDR_LEN and \
            struct.unpack_from("!I", fr.payload)[0] == abi.HDR_MAGIC:
        fr.mtg = MtgHeader.decode(fr.payload)
        fr.body = fr.payload[abi.HDR_LEN:]
        if fr.udp_csum == 0:
            # Optional over IPv4, but mtg always computes one (0 is sent
            # as 0xffff): a zero here means the checksum was never made.
            err.append("MTG frame without UDP checksum")
        if not fr.mtg.crc_ok:
            err.append("bad MTG header CRC")
        if fr.mtg.version != abi.HDR_VERSION or fr.mtg.hdr_len != abi.HDR_LEN:
            err.append(f"MTG header version {fr.mtg.version} "
                       f"length {fr.mtg.hdr_len}")
    return fr


def frames_of_pcap(source):
    """Every frame of a pcap file (Ethernet link type), parsed."""
    linktype, records = read_pcap(source)
    if linktype != LINKTYPE_ETHERNET:
        raise ValueError(f"pcap link type {linktype} is not Ethernet")
    return [parse_frame(r.data, r.ts_ns, r.orig_len) for r in records]


def mtg_frames(frames, run_id=None, tg_id=None, ctrl=False):
    """The frames with an MTG header (of run_id, tg_id; data or control
    messages), ordered by sequence number."""
    out = [f for f in frames if f.mtg is not None
           and (run_id is None or f.mtg.run_id == run_id)
           and (tg_id is None or f.mtg.tg_id == tg_id)
           and f.mtg.ctrl == ctrl]
    return sorted(out, key=lambda f: f.mtg.seq)


# --- building frames (for host tests and hand-made references) -------------

def _ip_frame(src, dst, proto, segment, src_mac, dst_mac, ttl, tos, ip_id,
              df):
    """Ethernet and IPv4 or IPv6 (by src's version) around segment."""
    macs = bytes.fromhex(dst_mac.replace(":", "")) + \
        bytes.fromhex(src_mac.replace(":", ""))
    if src.version == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(segment),
                         ip_id, 0x4000 if df else 0, ttl, proto, 0,
                         src.packed, dst.packed)
        ip = ip[:10] + struct.pack("!H", inet_checksum(ip)) + ip[12:]
        return macs + struct.pack("!H", ETH_P_IP) + ip + segment
    ip = struct.pack("!IHBB16s16s", (6 << 28) | (tos << 20), len(segment),
                     proto, ttl, src.packed, dst.packed)
    return macs + struct.pack("!H", ETH_P_IPV6) + ip + segment


def build_frame(src, dst, sport, dport, payload, src_mac="02:00:00:00:00:01",
                dst_mac="02:00:00:00:00:02", ttl=64, tos=0, ip_id=0, df=True):
    """An Ethernet/IP/UDP frame with correct checksums, built with struct."""
    src, dst = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    csum = udp_checksum(src.packed, dst.packed, udp)
    udp = udp[:6] + struct.pack("!H", csum) + udp[8:]
    return _ip_frame(src, dst, IPPROTO_UDP, udp, src_mac, dst_mac, ttl, tos,
                     ip_id, df)


def build_icmp_echo(src, dst, ident, seq, data, reply=False,
                    src_mac="02:00:00:00:00:01", dst_mac="02:00:00:00:00:02",
                    ttl=64):
    """An Ethernet/IP/ICMP (ICMPv6 over IPv6) echo request or reply with
    correct checksums, built with struct."""
    src, dst = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    proto = IPPROTO_ICMP if src.version == 4 else IPPROTO_ICMPV6
    kind = (ICMP_ECHO_REPLY if reply else ICMP_ECHO_REQUEST)[proto]
    icmp = struct.pack("!BBHHH", kind, 0, 0, ident, seq) + data
    pseudo = b"" if proto == IPPROTO_ICMP else \
        pseudo_header(src.packed, dst.packed, len(icmp), proto)
    csum = inet_checksum(pseudo + icmp)
    icmp = icmp[:2] + struct.pack("!H", csum) + icmp[4:]
    return _ip_frame(src, dst, proto, icmp, src_mac, dst_mac, ttl, 0, 0,
                     True)


TCP_FIN, TCP_SYN, TCP_PSH, TCP_ACK = 0x01, 0x02, 0x08, 0x10


def build_tcp_frame(src, dst, sport, dport, seq, ack, flags, payload=b"",
                    src_mac="02:00:00:00:00:01", dst_mac="02:00:00:00:00:02",
                    ttl=64, window=65535):
    """An Ethernet/IP/TCP segment (no options) with correct checksums, for
    hand-made captures of a TCP stream."""
    src, dst = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF,
                      ack & 0xFFFFFFFF, 5 << 4, flags, window, 0, 0) + payload
    csum = inet_checksum(pseudo_header(src.packed, dst.packed, len(tcp),
                                       IPPROTO_TCP) + tcp)
    tcp = tcp[:16] + struct.pack("!H", csum) + tcp[18:]
    return _ip_frame(src, dst, IPPROTO_TCP, tcp, src_mac, dst_mac, ttl, 0, 0,
                     True)


# --- what the receive path makes of a frame (kmod/mtg_rx.c) ----------------

@dataclasses.dataclass
class RxView:
    """What mtg's receive hook records of a frame: see rx_view()."""
    ctrl: bool              # a control message (control queue)
    flags: int              # abi.RX_F_IPV6, RX_F_HDR_CORRUPT, RX_F_CSUM_BAD
    wrong_bits: int         # payload bits not as the pattern (0 if corrupt)
    hdr: MtgHeader          # as received
    payload: bytes          # after the MTG header


def _l4(data):
    """(protocol, src, dst, L4 bytes, flags) of an IPv4 (not a later
    fragment) or IPv6 frame carrying UDP, ICMP or ICMPv6, else None;
    flags: RX_F_IPV6, and RX_F_CSUM_BAD for a wrong IPv4 header checksum
    or IP length."""
    if len(data) < 14:
        return None
    ethertype = struct.unpack_from("!H", data, 12)[0]
    net = data[14:]
    flags = 0
    if ethertype == ETH_P_IP:
        if len(net) < 20:
            return None
        vihl, _, tot_len, _, frag, _, proto = struct.unpack_from("!BBHHHBB", net)
        ihl = (vihl & 15) * 4
        if vihl >> 4 != 4 or ihl < 20 or \
                proto not in (IPPROTO_UDP, IPPROTO_ICMP) or \
                frag & 0x1FFF or len(net) < ihl:
            return None
        if ones_complement_sum(net[:ihl]) != 0xFFFF or tot_len != len(net):
            flags |= abi.RX_F_CSUM_BAD
        return proto, net[12:16], net[16:20], net[ihl:], flags
    if ethertype == ETH_P_IPV6:
        if len(net) < 40:
            return None
        vtcfl, plen, proto = struct.unpack_from("!IHB", net)
        if vtcfl >> 28 != 6 or proto not in (IPPROTO_UDP, IPPROTO_ICMPV6):
            return None
        flags |= abi.RX_F_IPV6
        if plen + 40 != len(net):
            flags |= abi.RX_F_CSUM_BAD
        return proto, net[8:24], net[24:40], net[40:], flags
    return None


def _icmp_checksum_ok(proto, src, dst, l4):
    """ICMP's checksum over the message, ICMPv6's with the pseudo-header."""
    pseudo = b"" if proto == IPPROTO_ICMP else \
        pseudo_header(src, dst, len(l4), proto)
    return ones_complement_sum(pseudo + l4) == 0xFFFF


@dataclasses.dataclass
class IcmpEcho:
    """An ICMP or ICMPv6 echo: see icmp_echo()."""
    reply: bool
    ident: int
    seq: int                # the ICMP header's, 16 bits
    hdr: MtgHeader | None   # the MTG header its data starts with, if any
    csum_ok: bool           # the ICMP checksum (ICMPv6's: pseudo-header)


def icmp_echo(data):
    """The echo request or reply an Ethernet frame holds, else None."""
    got = _l4(data)
    if not got or got[0] == IPPROTO_UDP or len(got[3]) < 8:
        return None
    proto, src, dst, l4, _ = got
    kind, code, _, ident, seq = struct.unpack_from("!BBHHH", l4)
    if code or kind not in (ICMP_ECHO_REQUEST[proto], ICMP_ECHO_REPLY[proto]):
        return None
    hdr = None
    if len(l4) >= 8 + abi.HDR_LEN and \
            struct.unpack_from("!I", l4, 8)[0] == abi.HDR_MAGIC:
        hdr = MtgHeader.decode(l4[8:])
    return IcmpEcho(kind == ICMP_ECHO_REPLY[proto], ident, seq, hdr,
                    _icmp_checksum_ok(proto, src, dst, l4))


def rx_view(data):
    """The receive path's rules (Documentation/abi.rst, "The receive
    path"), applied to an Ethernet frame: None if the hook leaves it alone
    (not an MTG packet, or another version's), else an RxView."""
    got = _l4(data)
    if not got:
        return None
    proto, src, dst, l4, flags = got
    if proto != IPPROTO_UDP:
        # of ICMP, the echo replies only: a request is the stack's
        if len(l4) < 8 or l4[0] != ICMP_ECHO_REPLY[proto] or l4[1]:
            return None
        flags |= abi.RX_F_ICMP
    if len(l4) < 8 + abi.HDR_LEN or \
            struct.unpack_from("!I", l4, 8)[0] != abi.HDR_MAGIC:
        return None
    hdr = MtgHeader.decode(l4[8:])
    if not hdr.crc_ok:
        flags |= abi.RX_F_HDR_CORRUPT
    elif hdr.version != abi.HDR_VERSION or hdr.hdr_len != abi.HDR_LEN:
        return None
    csum = struct.unpack_from("!H", l4, 6)[0]
    if proto != IPPROTO_UDP:
        if not _icmp_checksum_ok(proto, src, dst, l4):
            flags |= abi.RX_F_CSUM_BAD
    elif (csum or len(src) == 16) and \
            ones_complement_sum(pseudo_header(src, dst, len(l4)) + l4) != 0xFFFF:
        flags |= abi.RX_F_CSUM_BAD
    payload = bytes(l4[8 + abi.HDR_LEN:])
    ctrl = not flags & abi.RX_F_HDR_CORRUPT and hdr.ctrl
    bits = 0
    if not flags & abi.RX_F_HDR_CORRUPT and not ctrl and \
            hdr.patt_kind <= abi.PATT_INCR:
        bits = wrong_bits(payload, pattern_bytes(
            hdr.patt_kind, hdr.patt_value, hdr.patt_seed, len(payload)))
    return RxView(ctrl, flags, bits, hdr, payload)


# --- pcapng (what mtgsap export writes) ------------------------------------

@dataclasses.dataclass
class PcapngInterface:
    """An Interface Description Block."""
    linktype: int
    snaplen: int
    options: dict           # option code -> [raw values]
    tsresol_ns: float = 1000.0      # ns per timestamp unit (default µs)
    tsoffset_s: int = 0             # if_tsoffset (not applied to ts_ns)

    @property
    def name(self):
        v = self.options.get(2)
        return v[0].decode() if v else None


@dataclasses.dataclass
class PcapngPacket:
    """An Enhanced Packet Block; ts_ns in ns of the interface's clock
    (if_tsresol applied, if_tsoffset not)."""
    iface: int
    ts_ns: int
    orig_len: int
    data: bytes
    options: dict

    @property
    def comment(self):
        v = self.options.get(1)
        return v[0].decode() if v else None


def _pcapng_options(order, buf, path):
    opts = {}
    pos = 0
    while pos + 4 <= len(buf):
        code, length = struct.unpack_from(order + "HH", buf, pos)
        pos += 4
        if code == 0:
            break
        if pos + length > len(buf):
            raise ValueError(f"{path}: option {code} overruns its block")
        opts.setdefault(code, []).append(bytes(buf[pos:pos + length]))
        pos += length + (-length % 4)
    return opts


def read_pcapng(source):
    """Read a pcapng file (path or bytes) with one section: ([interface],
    [packet]). Checks the structure Wireshark relies on: every block's
    length a multiple of 4 and repeated at its end, the byte-order magic,
    version 1.0, interface ids of packets declared before them."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        buf, path = bytes(source), "pcapng"
    else:
        with open(source, "rb") as f:
            buf, path = f.read(), str(source)
    if len(buf) < 28 or buf[:4] != b"\x0a\x0d\x0d\x0a":
        raise ValueError(f"{path}: no section header block")
    magic = buf[8:12]
    order = {b"\x4d\x3c\x2b\x1a": "<", b"\x1a\x2b\x3c\x4d": ">"}.get(magic)
    if order is None:
        raise ValueError(f"{path}: bad byte-order magic {magic.hex()}")
    ifaces, packets = [], []
    pos = 0
    while pos < len(buf):
        if pos + 12 > len(buf):
            raise ValueError(f"{path}: truncated block at {pos}")
        kind, length = struct.unpack_from(order + "II", buf, pos)
        if length % 4 or length < 12 or pos + length > len(buf):
            raise ValueError(f"{path}: block at {pos}: bad length {length}")
        if struct.unpack_from(order + "I", buf, pos + length - 4)[0] != length:
            raise ValueError(f"{path}: block at {pos}: trailing length "
                             "differs from the leading one")
        body = buf[pos + 8:pos + length - 4]
        if kind == 0x0A0D0D0A:
            if pos:
                raise ValueError(f"{path}: a second section at {pos}")
            major, minor = struct.unpack_from(order + "HH", body, 4)
            if (major, minor) != (1, 0):
                raise ValueError(f"{path}: pcapng version {major}.{minor}")
        elif kind == 1:
            linktype, _, snaplen = struct.unpack_from(order + "HHI", body)
            opts = _pcapng_options(order, body[8:], path)
            itf = PcapngInterface(linktype, snaplen, opts)
            if 9 in opts:
                r = opts[9][0][0]
                itf.tsresol_ns = 1e9 / (2 ** (r & 0x7F) if r & 0x80
                                        else 10 ** r)
            if 14 in opts:
                itf.tsoffset_s = struct.unpack(order + "q", opts[14][0])[0]
            ifaces.append(itf)
        elif kind == 6:
            iface, hi, lo, caplen, orig_len = \
                struct.unpack_from(order + "IIIII", body)
            if iface >= len(ifaces):
                raise ValueError(f"{path}: packet at {pos} on undeclared "
                                 f"interface {iface}")
            if 20 + caplen > len(body):
                raise ValueError(f"{path}: packet at {pos} overruns its block")
            ticks = (hi << 32) | lo
            res = ifaces[iface].tsresol_ns
            ts = ticks if res == 1 else round(ticks * res)
            opts = _pcapng_options(order, body[20 + caplen + (-caplen % 4):],
                                   path)
            packets.append(PcapngPacket(iface, ts, orig_len,
                                        bytes(body[20:20 + caplen]), opts))
        pos += length
    return ifaces, packets
