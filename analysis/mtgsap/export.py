# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap export: the selected records as CSV, JSON, Parquet, pcapng or
D-ITG's binary log (mtgsap/ditg.py).

CSV, JSON and Parquet have one row per record: its fields (tp_ns as
tp0_ns..tp3_ns, nut as 12 hex digits, without the reserved field), then
owd_ns (none when the record has no valid one-way delay), hdr_corrupt,
csum_bad, ipv6 and stamp (hook, sw, hw, or unknown for the value 3 no
source has). JSON wraps them as {"meta",
"header", "records"}; Parquet keeps the metadata in its schema's key-value
metadata under b"mtg.meta" (and the fixed header under b"mtg.header").

pcapng rebuilds each record's frame for Wireshark and the like; a record
is not a capture, so the frame is *synthetic*:

- Ethernet from 02:00:00:00:00:01 to the TG's "mac" (else
  02:00:00:00:00:02); IPv4 or IPv6 as the record's flags say, with the
  TG's addresses and ports from the metadata (else 192.0.2.1 → 192.0.2.2
  or 2001:db8::1 → 2001:db8::2, ports 9), the record's TTL and TOS, IPv4
  identification 0 and DF; the IPv4 and UDP checksums computed;
- the MTG header rebuilt from the record's fields, with the TG's pattern
  (kind, value, and the packet's seed derived from the TG's payload seed
  as the module does), its CRC32C computed;
- the payload is what the pattern says was *sent* (zeros when the TG is
  unknown: the header then says pattern fixed 0): the record keeps only the
  count of wrong bits, not which bits, so bit errors are not reproduced;
  a damaged record's packet has a comment (opt_comment) saying what the
  record says: "mtg: 17 wrong bits (not reproduced)", "mtg: hdr_corrupt",
  "mtg: csum_bad";
- the frame is cut or padded (zeros in the payload) to the record's len.

Damage the record reports is reproduced where the frame can say it, so
that a reader checking the frame as the receive path does flags it the
same way: a header-corrupt record's header carries its fields as recorded
and the complement of the right CRC (a wrong CRC: the real one is not
known); a csum_bad record's UDP checksum is wrong (the complement of the
right one). Timestamps are the records' rx_ns in ns (if_tsresol 9),
CLOCK_TAI as recorded; the interface's if_tsoffset says −tai_offset_s
for readers that apply it.

The CRC32C and the Internet checksum are computed here (vectorised with
numpy), as scripts/mtgwitness/wire.py also does for the tests: neither
imports the other.
"""

import ipaddress
import json
import os
import struct

import numpy as np

from .common import UsageError
from .fields import column
from .recording import (F_CSUM_BAD, F_HDR_CORRUPT, F_IPV6, STAMP_MASK,
                        STAMP_NAMES, new_file)

FORMATS = ("csv", "json", "parquet", "pcapng", "ditg")
STEP = 1 << 16          # records per chunk (CSV, JSON, Parquet)
FRAME_STEP = 1 << 12    # records per chunk of frames (pcapng)
FRAME_BYTES = 32 << 20  # at most so many bytes of frames per chunk


def format_of(path, fmt=None):
    if fmt:
        return fmt
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise UsageError(f"-o {path}: the extension does not say the "
                         f"format ({', '.join('.' + f for f in FORMATS)}); "
                         f"give --format")
    return ext


# --- the output file -----------------------------------------------------------

def _chunks(rec, mask, step=STEP):
    """The selected records, a chunk at a time (copies of at most step)."""
    index = np.flatnonzero(mask)
    for i in range(0, len(index), step):
        yield rec.records[index[i:i + step]]


# --- columns ---------------------------------------------------------------------

def columns(c):
    """The export's columns of records c: (dict name → numpy array, the
    validity of owd_ns)."""
    cols = {}
    for name in c.dtype.names:
        if name == "reserved":
            continue
        if name == "tp_ns":
            for i in range(c["tp_ns"].shape[1]):
                cols[f"tp{i}_ns"] = c["tp_ns"][:, i]
        elif name == "nut":
            cols["nut"] = np.array([c["nut"].tobytes().hex()]).view("U12") \
                if len(c) else np.zeros(0, "U12")
        else:
            cols[name] = c[name]
    owd = column(c, "owd")
    cols["owd_ns"] = owd.values
    flags = c["flags"]
    cols["hdr_corrupt"] = (flags & F_HDR_CORRUPT) != 0
    cols["csum_bad"] = (flags & F_CSUM_BAD) != 0
    cols["ipv6"] = (flags & F_IPV6) != 0
    cols["stamp"] = np.array(STAMP_NAMES)[flags & STAMP_MASK]
    return cols, owd.valid


def _frame(c, csv):
    import pandas as pd

    cols, valid = columns(c)
    cols["owd_ns"] = pd.arrays.IntegerArray(cols["owd_ns"].astype(np.int64),
                                            ~valid)
    if csv:
        for k in ("hdr_corrupt", "csum_bad", "ipv6"):
            cols[k] = cols[k].astype(np.uint8)
    return pd.DataFrame(cols)


def write_csv(rec, mask, path, force=False, meta=None):
    """The selected records (mask) of rec to a CSV file with a header line;
    owd_ns empty where a record has none, flags as 0/1. Returns how many."""
    n = 0
    with new_file(path, force, binary=False) as (f, _):
        first = True
        for c in _chunks(rec, mask):
            _frame(c, True).to_csv(f, header=first, index=False,
                                   lineterminator="\n")
            first = False
            n += len(c)
        if first:
            _frame(rec.records[:0], True).to_csv(f, index=False,
                                                 lineterminator="\n")
    return n


def _header(rec):
    return dict(rec.header, complete=rec.complete)


def write_json(rec, mask, path, force=False, meta=None):
    """{"meta", "header", "records": [{column: value}, ...]}, written a
    chunk of records at a time."""
    n = 0
    meta = rec.meta if meta is None else meta
    with new_file(path, force, binary=False) as (f, _):
        f.write('{"meta": ' + json.dumps(meta) + ',\n "header": ' +
                json.dumps(_header(rec)) + ',\n "records": [')
        for c in _chunks(rec, mask):
            rows = _frame(c, False).to_json(orient="records")
            f.write((",\n" if n else "\n") + rows[1:-1].replace("},{",
                                                                 "},\n{"))
            n += len(c)
        f.write("\n]}\n")
    return n


def _arrow(c, schema=None):
    import pyarrow as pa

    cols, valid = columns(c)
    arrays = [pa.array(v, mask=~valid, type=pa.int64()) if k == "owd_ns"
              else pa.array(v) for k, v in cols.items()]
    if schema is not None:
        return pa.Table.from_arrays(arrays, schema=schema)
    return pa.Table.from_arrays(arrays, names=list(cols))


def write_parquet(rec, mask, path, force=False, meta=None):
    """Parquet through pyarrow: the columns with their integer types, the
    metadata under b"mtg.meta" in the schema."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("--format parquet needs pyarrow, which is not "
                         "installed (Debian 12 has no python3-pyarrow: "
                         "pip install pyarrow)") from None

    meta = rec.meta if meta is None else meta
    schema = _arrow(rec.records[:0]).schema.with_metadata(
        {b"mtg.meta": json.dumps(meta).encode(),
         b"mtg.header": json.dumps(_header(rec)).encode()})
    n = 0
    with new_file(path, force) as (f, _):
        with pq.ParquetWriter(f, schema) as w:
            for c in _chunks(rec, mask):
                w.write_table(_arrow(c, schema))
                n += len(c)
            if not n:
                w.write_table(_arrow(rec.records[:0], schema))
    return n


# --- pcapng --------------------------------------------------------------------

HDR_MAGIC, HDR_VERSION, HDR_LEN, HDR_CRC_LEN = 0x4D544731, 1, 88, 44
PATT = {"fixed": 0, "random": 1, "incremental": 2}
PATT_RANDOM, PATT_INCR = 1, 2
ETH_P_IP, ETH_P_IPV6, IPPROTO_UDP = 0x0800, 0x86DD, 17
DEFAULT_SRC_MAC, DEFAULT_DST_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
DEFAULT_ADDR = {4: ("192.0.2.1", "192.0.2.2"), 6: ("2001:db8::1",
                                                   "2001:db8::2")}
DEFAULT_PORT = 9

# struct mtg_hdr (kmod/uapi/mtg.h), network byte order.
HDR_DTYPE = np.dtype([("magic", ">u4"), ("version", "u1"), ("flags", "u1"),
                      ("hdr_len", ">u2"), ("run_id", ">u4"),
                      ("tg_id", ">u4"), ("seq", ">u8"), ("sched_ns", ">u8"),
                      ("nut", "u1", (6,)), ("patt_kind", "u1"),
                      ("patt_value", "u1"), ("patt_seed", ">u4"),
                      ("crc", ">u4"), ("tx_ns", ">u8"),
                      ("tp_ns", ">u8", (4,))])
assert HDR_DTYPE.itemsize == HDR_LEN
IP4_DTYPE = np.dtype([("vihl", "u1"), ("tos", "u1"), ("tot_len", ">u2"),
                      ("id", ">u2"), ("frag", ">u2"), ("ttl", "u1"),
                      ("proto", "u1"), ("csum", ">u2"),
                      ("src", "u1", (4,)), ("dst", "u1", (4,))])
IP6_DTYPE = np.dtype([("vtcfl", ">u4"), ("plen", ">u2"), ("nxt", "u1"),
                      ("hlim", "u1"), ("src", "u1", (16,)),
                      ("dst", "u1", (16,))])


def _crc32c_table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(0x82F63B78), t >> 1)
    return t.astype(np.uint32)


CRC32C_TABLE = _crc32c_table()


def crc32c(b):
    """CRC32C (Castagnoli, as iSCSI) of each row of a uint8 array (n, k)."""
    crc = np.full(len(b), 0xFFFFFFFF, np.uint32)
    for j in range(b.shape[1]):
        crc = CRC32C_TABLE[(crc ^ b[:, j]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


def inet_checksum(*parts):
    """The Internet checksum (RFC 1071) of each row of the uint8 arrays
    parts (each (n, even k)), taken one after the other."""
    s = 0
    for p in parts:
        s = s + np.ascontiguousarray(p).view(">u2").sum(axis=1,
                                                        dtype=np.uint64)
    for _ in range(3):
        s = (s & 0xFFFF) + (s >> 16)
    return (~s & 0xFFFF).astype(np.uint16)


def _rows(a):
    """A structured array as its bytes, one row per element."""
    return np.ascontiguousarray(a).view(np.uint8).reshape(len(a), -1)


def _endpoint(value):
    """(address or None, port or None) of a TG's "src" or "dst": an object
    {"addr", "port"} as mtgctl check --json gives it, or "addr:port"."""
    if isinstance(value, dict):
        return value.get("addr"), value.get("port")
    if isinstance(value, str):
        host, sep, port = value.rpartition(":")
        if sep and port.isdigit() and (host.startswith("[") or
                                       ":" not in host):
            return host.strip("[]"), int(port)
        return value, None
    return None, None


def _mac(text, default):
    try:
        b = bytes.fromhex(str(text).replace(":", "").replace("-", ""))
    except ValueError:
        b = b""
    return b if len(b) == 6 else bytes.fromhex(default.replace(":", ""))


def tg_frame_params(rec, tg_id, ipv6):
    """What the frames of TG tg_id take from the metadata: (src and dst
    addresses as 16 bytes, IPv4 in the first 4; src and dst ports; dst MAC;
    pattern kind, value and the TG's payload seed)."""
    tg = rec.tg_meta(tg_id) or {}
    version = 6 if ipv6 else 4
    addrs, ports = [], []
    for key, default in zip(("src", "dst"), DEFAULT_ADDR[version]):
        addr, port = _endpoint(tg.get(key))
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            ip = None
        if ip is None or ip.version != version:
            ip = ipaddress.ip_address(default)
        addrs.append(ip.packed.ljust(16, b"\0"))
        ports.append(port if isinstance(port, int) and 0 < port < 65536
                     else DEFAULT_PORT)
    patt = tg.get("patt") if isinstance(tg.get("patt"), dict) else {}
    kind = PATT.get(patt.get("kind"), None)
    if kind is None:
        kind, value, seed = 0, 0, 0        # unknown: zeros, said as fixed 0
    else:
        value = int(patt.get("value") or 0) & 0xFF
        seed = int(patt.get("seed") or 0) & 0xFFFFFFFF
    return (*addrs, *ports, _mac(tg.get("mac"), DEFAULT_DST_MAC),
            kind, value, seed)


def _payloads(kind, value, seed, length, width):
    """(n, width) uint8: each row's pattern for its first length bytes,
    zeros after (kmod's mtg_patt: FIXED, RANDOM's xorshift32, INCR)."""
    out = np.empty((len(kind), width), np.uint8)
    out[:] = value.astype(np.uint8)[:, None]
    incr = np.flatnonzero(kind == PATT_INCR)
    out[incr] += np.arange(width).astype(np.uint8)     # mod 256
    rnd = np.flatnonzero(kind == PATT_RANDOM)
    if len(rnd) and width:
        x = seed[rnd].astype(np.uint32)
        x[x == 0] = 1
        words = np.empty((len(rnd), -(-width // 4)), "<u4")
        for k in range(words.shape[1]):
            x ^= x << np.uint32(13)
            x ^= x >> np.uint32(17)
            x ^= x << np.uint32(5)
            words[:, k] = x
        out[rnd] = words.view(np.uint8).reshape(len(rnd), -1)[:, :width]
    short = np.flatnonzero(length < width)
    if len(short):
        out[short] *= np.arange(width) < length[short, None]
    return out


def frames(rec, c):
    """The synthetic frames of records c (see the module's docstring), as
    a list of bytes."""
    n = len(c)
    v6 = (c["flags"] & F_IPV6) != 0
    key = c["tg_id"].astype(np.int64) * 2 + v6
    keys, inv = np.unique(key, return_inverse=True)
    params = [tg_frame_params(rec, int(k) >> 1, bool(k & 1)) for k in keys]
    (src, dst, sport, dport, dmac, kind, value, seed) = (
        np.array([p[i] if not isinstance(p[i], bytes) else list(p[i])
                  for p in params])[inv] for i in range(8))
    src, dst, dmac = (a.astype(np.uint8) for a in (src, dst, dmac))
    length = c["len"].astype(np.int64)
    out = [b""] * n
    for six in (False, True):
        g = np.flatnonzero(v6 == six)
        if not len(g):
            continue
        r, m = c[g], len(g)
        iphl = 40 if six else 20
        hdrs = 14 + iphl + 8 + HDR_LEN
        plen = np.maximum(length[g] - hdrs, 0)
        width = int(plen.max())
        width += width & 1
        ulen = 8 + HDR_LEN + plen

        h = np.zeros(m, HDR_DTYPE)
        h["magic"], h["version"], h["hdr_len"] = HDR_MAGIC, HDR_VERSION, \
            HDR_LEN
        for f in ("run_id", "tg_id", "seq", "sched_ns", "nut", "tx_ns",
                  "tp_ns"):
            h[f] = r[f]
        h["patt_kind"], h["patt_value"] = kind[g], value[g]
        pseed = (seed[g].astype(np.uint64) + (r["seq"] & 0xFFFFFFFF) *
                 np.uint64(0x9E3779B9)) & 0xFFFFFFFF
        h["patt_seed"] = np.where(kind[g] == PATT_RANDOM, pseed, 0)
        crc = crc32c(_rows(h)[:, :HDR_CRC_LEN])
        corrupt = (r["flags"] & F_HDR_CORRUPT) != 0
        h["crc"] = np.where(corrupt, ~crc, crc)
        pay = _payloads(kind[g], value[g], h["patt_seed"],
                        np.minimum(r["payload_len"], plen), width)

        udp = np.zeros((m, 4), ">u2")
        udp[:, 0], udp[:, 1], udp[:, 2] = sport[g], dport[g], ulen
        l4 = np.concatenate([_rows(udp), _rows(h), pay], axis=1)
        if six:
            pseudo = np.concatenate([src[g], dst[g], _rows(np.stack(
                [ulen, np.full(m, IPPROTO_UDP)], 1).astype(">u4"))], axis=1)
        else:
            pseudo = np.concatenate([src[g, :4], dst[g, :4], _rows(np.stack(
                [np.full(m, IPPROTO_UDP), ulen], 1).astype(">u2"))], axis=1)
        csum = inet_checksum(pseudo, l4)
        csum[csum == 0] = 0xFFFF
        bad = (r["flags"] & F_CSUM_BAD) != 0
        csum = np.where(bad, np.where(csum == 0xFFFF, 1, ~csum), csum)
        l4[:, 6], l4[:, 7] = csum >> 8, csum & 0xFF

        if six:
            ip = np.zeros(m, IP6_DTYPE)
            ip["vtcfl"] = (6 << 28) | (r["tos"].astype(np.uint32) << 20)
            ip["plen"], ip["nxt"], ip["hlim"] = ulen, IPPROTO_UDP, r["ttl"]
            ip["src"], ip["dst"] = src[g], dst[g]
        else:
            ip = np.zeros(m, IP4_DTYPE)
            ip["vihl"], ip["tos"], ip["tot_len"] = 0x45, r["tos"], 20 + ulen
            ip["frag"], ip["ttl"], ip["proto"] = 0x4000, r["ttl"], IPPROTO_UDP
            ip["src"], ip["dst"] = src[g, :4], dst[g, :4]
            ip["csum"] = inet_checksum(_rows(ip))
        smac_type = np.frombuffer(_mac(DEFAULT_SRC_MAC, DEFAULT_SRC_MAC) +
                                  struct.pack("!H", ETH_P_IPV6 if six else
                                              ETH_P_IP), np.uint8)
        eth = np.concatenate([dmac[g], np.tile(smac_type, (m, 1))], axis=1)
        fr = np.concatenate([eth, _rows(ip), l4], axis=1)
        for j, i in enumerate(g):
            out[i] = fr[j, :length[i]].tobytes()
    return out


def _block(kind, body):
    """A pcapng block: type, total length, body padded to 32 bits, total
    length again."""
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", kind, len(body) + 12) + body + \
        struct.pack("<I", len(body) + 12)


def _options(opts):
    out = b""
    for code, value in opts:
        out += struct.pack("<HH", code, len(value)) + value + \
            b"\0" * (-len(value) % 4)
    return out + (struct.pack("<HH", 0, 0) if opts else b"")


def _idb(rec, iface):
    info = next((i for i in rec.meta.get("interfaces") or ()
                 if isinstance(i, dict) and i.get("id") == iface), {})
    opts = [(9, b"\x09")]                      # if_tsresol: ns
    if info.get("dev"):
        opts.append((2, str(info["dev"]).encode()))        # if_name
    desc = f"mtg interface {iface}"
    if info.get("netns"):
        desc += f" in netns {info['netns']}"
    opts.append((3, desc.encode()))                        # if_description
    tai = ((rec.meta.get("clock") or {}).get("tai_offset_s") or 0)
    if isinstance(tai, int) and tai:
        opts.append((14, struct.pack("<q", -tai)))         # if_tsoffset
    return _block(1, struct.pack("<HHI", 1, 0, 0) + _options(opts))


def _comment(r):
    """What an EPB's comment says of a damaged record."""
    what = [f"{r['wrong_bits']} wrong bits (not reproduced)"] \
        if r["wrong_bits"] else []
    what += [k for k, f in (("hdr_corrupt", F_HDR_CORRUPT),
                            ("csum_bad", F_CSUM_BAD)) if r["flags"] & f]
    return "mtg: " + ", ".join(what)


def write_pcapng(rec, mask, path, force=False, meta=None):
    """pcapng: a section, an interface per iface of the selected records, a
    synthetic frame per record (see the module's docstring)."""
    ifaces = np.unique(rec.records["iface"][mask]).tolist()
    index = {iface: k for k, iface in enumerate(ifaces)}
    n = 0
    with new_file(path, force) as (f, _):
        f.write(_block(0x0A0D0D0A, struct.pack(
            "<IHHq", 0x1A2B3C4D, 1, 0, -1) + _options(
                [(4, b"mtgsap export")])))            # shb_userappl
        for iface in ifaces:
            f.write(_idb(rec, iface))
        longest = int(rec.records["len"][mask].max()) if len(ifaces) else 1
        step = max(1, min(FRAME_STEP, FRAME_BYTES // max(longest, 1)))
        for c in _chunks(rec, mask, step):
            damaged = (c["wrong_bits"] != 0) | \
                ((c["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) != 0)
            notes = {i: _options([(1, _comment(c[i]).encode())])  # opt_comment
                     for i in np.flatnonzero(damaged).tolist()}
            blocks = []
            for i, (t, iface, fr) in enumerate(zip(
                    c["rx_ns"].tolist(), c["iface"].tolist(), frames(rec, c))):
                blocks.append(_block(6, struct.pack(
                    "<IIIII", index[iface], t >> 32, t & 0xFFFFFFFF,
                    len(fr), len(fr)) + fr + b"\0" * (-len(fr) % 4) +
                    notes.get(i, b"")))
            f.write(b"".join(blocks))
            n += len(c)
    return n


def write_ditg(rec, mask, path, force=False, meta=None):
    """D-ITG's binary log, as ITGDec reads it (mtgsap/ditg.py)."""
    from .ditg import write_log
    return write_log(rec, mask, path, force)


WRITERS = {"csv": write_csv, "json": write_json, "parquet": write_parquet,
           "pcapng": write_pcapng, "ditg": write_ditg}
