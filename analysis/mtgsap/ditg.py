# SPDX-License-Identifier: GPL-2.0-or-later
"""D-ITG's binary logs: what ITGRecv -l and ITGSend -l write and ITGDec
reads. mtgsap reads one as if it were a recording (DitgLog, which
open_recording returns for a file that is one), and writes a recording's
records as one (mtgsap export --format ditg). Documentation/analysis.rst,
"D-ITG's logs", says what maps to what and what is lost.

The layout was learnt from D-ITG 2.8.1's sources (struct info in
src/common/ITG.h, filled by writeInBufferStandard() there; ITGRecv's
data.cpp and ITGSend.cpp write it to a local log as it is in memory;
ITGDec's readline() reads it back the same way). No file header; each
record 144 bytes, in the writing host's byte order (little-endian: this
reads and writes x86's and ARM's logs), without padding:

  offset  type       field
  0       u32        flow id
  4       u32        sequence number (ITGSend counts from 1)
  8       u32        source port
  12      u32        destination port
  16      u32        tx hour        } the time of day, UTC: D-ITG takes
  20      u32        tx minute      } gettimeofday()'s seconds modulo
  24      u32        rx hour        } 86400 and its microseconds
  28      u32        rx minute      }
  32      u32        size: the bytes of the datagram's payload (UDP's)
  36      char[46]   source address, text, NUL-terminated
  82      char[46]   destination address, text, NUL-terminated
  128     double     tx seconds: second + microseconds / 1e6
  136     double     rx seconds

(bytes after an address's NUL are whatever an earlier, longer address left
in D-ITG's buffer: they mean nothing.)
"""

import ipaddress

import numpy as np

from .recording import (DTYPE_V1, F_COMPLETE, F_CSUM_BAD, F_DITG,
                        F_HDR_CORRUPT, F_IPV6, RECORD_BYTES, RECORD_FLAGS, Recording,
                        RecordingError, empty, new_file)

ADDR = 46                       # INET6_ADDRSTRLEN
_FIELDS = [("flow", "<u4"), ("seq", "<u4"), ("sport", "<u4"),
           ("dport", "<u4"), ("tx_h", "<u4"), ("tx_m", "<u4"),
           ("rx_h", "<u4"), ("rx_m", "<u4"), ("size", "<u4"),
           ("src", "u1", (ADDR,)), ("dst", "u1", (ADDR,)),
           ("tx_s", "<f8"), ("rx_s", "<f8")]
LOG_DTYPE = np.dtype(_FIELDS)
LOG_BYTES = LOG_DTYPE.itemsize
assert LOG_BYTES == 144

# What the log does not say: the frame around the payload it counts. mtg's
# len is the frame at L2 without FCS; D-ITG's size the UDP payload.
UDP_OVER = {False: 14 + 20 + 8, True: 14 + 40 + 8}   # Ethernet, IP, UDP
SEQ_MAX = (1 << 32) - 1
US = 1_000_000
DAY_US = 86400 * US
HALF_DAY_US = DAY_US // 2
STAMP_UNKNOWN = 3               # the receive stamp is none of mtg's
# The receiver key of the metadata (recording-format.rst): D-ITG's.
RECEIVER = {"source": "ditg", "stamp": "gettimeofday",
            "payload_compared": False}


class NotDitg(RecordingError):
    """A file whose first record is not D-ITG's: the message says why."""


# --- reading -----------------------------------------------------------------

def _nul(field):
    """Where each (n, ADDR) address's first NUL is (ADDR: none)."""
    zero = field == 0
    return np.where(zero.any(axis=1), zero.argmax(axis=1), ADDR)


def _addresses(field, nul):
    """The addresses as text: (the distinct texts, each record's index
    into them, each distinct text's parsed address or None)."""
    clean = np.where(np.arange(ADDR) < nul[:, None], field, 0)
    uniq, inv = np.unique(np.ascontiguousarray(clean).view(f"S{ADDR}")
                          .ravel(), return_inverse=True)
    texts, parsed = [], []
    for raw in uniq.tolist():
        try:
            text = raw.decode("ascii")
            ip = ipaddress.ip_address(text)
        except (UnicodeDecodeError, ValueError):
            text, ip = raw.decode("ascii", "backslashreplace"), None
        texts.append(text)
        parsed.append(ip)
    return texts, inv.ravel(), parsed


def _problem(r):
    """The first record of r (a LOG_DTYPE array) that is not one D-ITG
    writes, and what is wrong with it: (index, words), or None."""
    found = []

    def check(bad, say):
        idx = np.flatnonzero(bad)
        if len(idx):
            found.append((int(idx[0]), say))

    for end in ("tx", "rx"):
        h, m, s = r[f"{end}_h"], r[f"{end}_m"], r[f"{end}_s"]
        check(h > 23, lambda i, h=h, n=end:
              f"its {n} hour is {h[i]}, not 0 to 23")
        check(m > 59, lambda i, m=m, n=end:
              f"its {n} minute is {m[i]}, not 0 to 59")
        with np.errstate(invalid="ignore"):
            odd = ~((s >= 0) & (s < 60))
        check(odd, lambda i, s=s, n=end:
              f"its {n} seconds are {float(s[i])!r}, not from 0 to less "
              f"than 60")
    for key, name in (("sport", "source port"),
                      ("dport", "destination port")):
        v = r[key]
        check(v > 0xFFFF, lambda i, v=v, n=name:
              f"its {n} is {v[i]}, not 0 to 65535")
    family = {}
    for key, name in (("src", "source"), ("dst", "destination")):
        nul = _nul(r[key])
        check(nul == ADDR, lambda i, n=name:
              f"its {n} address has no NUL in its {ADDR} bytes")
        texts, inv, ips = _addresses(r[key], nul)
        check(np.array([ip is None for ip in ips], bool)[inv] & (nul < ADDR),
              lambda i, t=texts, inv=inv, n=name:
              f"its {n} address '{t[inv[i]]}' is not an IP address")
        family[key] = np.array([ip.version if ip else 0 for ip in ips],
                               np.int8)[inv]
    both = (family["src"] > 0) & (family["dst"] > 0)
    check(both & (family["src"] != family["dst"]),
          lambda i: "its source and destination addresses are of two "
          "families (IPv4 and IPv6)")
    v6 = family["dst"] == 6
    over = np.where(v6, UDP_OVER[True], UDP_OVER[False])
    check(r["size"].astype(np.int64) + over > 0xFFFF,
          lambda i: f"its size {r['size'][i]} with the {over[i]} bytes of "
          f"Ethernet, IP and UDP headers is more than a record's len holds "
          f"(65535)")
    check(r["seq"] == 0, lambda i: "its sequence number is 0: D-ITG numbers "
          "packets from 1 (a log without sequence numbers)")
    if not found:
        return None
    i, say = min(found, key=lambda x: x[0])
    return i, say(i)


def _unwrap(rx_tod, tx_tod):
    """Times of day (int64 µs) as µs on one line: each receive time the
    nearest to the one before it in the log (a step back of more than 12
    hours is the next day: midnight passed), each send time the nearest to
    its receive time; then shifted by whole days so that the earliest falls
    on day 0."""
    step = np.diff(rx_tod)
    days = np.concatenate([[0], np.cumsum(
        (step < -HALF_DAY_US).astype(np.int64) -
        (step > HALF_DAY_US))]).astype(np.int64)
    rx = rx_tod + days * DAY_US
    d = tx_tod - rx_tod
    tx = tx_tod + days * DAY_US - (d > HALF_DAY_US) * DAY_US + \
        (d < -HALF_DAY_US) * DAY_US
    base = min(int(rx.min()), int(tx.min())) // DAY_US * DAY_US
    return rx - base, tx - base


def _tod_us(h, m, s):
    """A time of day (hour, minute, seconds with microseconds) in µs."""
    return (h.astype(np.int64) * 3600 + m.astype(np.int64) * 60) * US + \
        np.rint(s * US).astype(np.int64)


def _meta(path, tgs, n):
    return {
        "format": "mtg-recording", "version": 1, "command": "ditg",
        "run_id": 0, "start_ns": None,
        "clock": {"id": "CLOCK_REALTIME", "tai_offset_s": 0},
        "record": {"bytes": RECORD_BYTES, "dtype": DTYPE_V1,
                   "flags": dict(RECORD_FLAGS)},
        "interfaces": [], "tgs": tgs, "receiver": dict(RECEIVER),
        "ditg": {"file": path, "records": n, "record_bytes": LOG_BYTES,
                 "layout": "D-ITG 2.8.1 struct info, little-endian"}}


class DitgLog(Recording):
    """A D-ITG binary log opened as a recording: the same attributes
    (records in memory, in the log's order; meta as Documentation/
    analysis.rst, "D-ITG's logs", describes it; complete; no extra
    entries)."""

    def _read(self, f, size):
        path = self.path
        head = f.read(LOG_BYTES)
        if not head:
            raise NotDitg("the file is empty")
        if len(head) < LOG_BYTES:
            raise NotDitg(f"{len(head)} bytes, less than a record's "
                          f"{LOG_BYTES}")
        wrong = _problem(np.frombuffer(head, LOG_DTYPE))
        if wrong:
            raise NotDitg(f"its first {LOG_BYTES} bytes are not a D-ITG "
                          f"record: {wrong[1]}")
        n, part = divmod(size, LOG_BYTES)
        if part:
            raise RecordingError(f"{path}: truncated D-ITG log: {size} "
                                 f"bytes, {n} records of {LOG_BYTES} and "
                                 f"{part} bytes of record {n}")
        f.seek(0)
        data = f.read(n * LOG_BYTES)
        if len(data) != n * LOG_BYTES:
            raise RecordingError(f"{path}: truncated D-ITG log: {size} "
                                 f"bytes said, {len(data)} read")
        raw = np.frombuffer(data, LOG_DTYPE)
        wrong = _problem(raw)
        if wrong:
            i, why = wrong
            raise RecordingError(f"{path}: damaged D-ITG log: record {i} "
                                 f"(byte {i * LOG_BYTES}): {why}")
        self._records_of(raw)
        self.header = dict(version=1, header_bytes=0, record_bytes=LOG_BYTES,
                           flags=F_COMPLETE, records=n, not_written=0,
                           ring_drops=0,
                           end_ns=int(self.records["rx_ns"].max()),
                           meta_bytes=0, ifaces_lost=0)
        self.partial_bytes = 0
        self.complete = True
        self.extras_header = None
        self._extras = None
        self._section = b""
        self.start_ns = int(self.records["rx_ns"].min())

    def _records_of(self, raw):
        n = len(raw)
        src, si, sip = _addresses(raw["src"], _nul(raw["src"]))
        dst, di, _ = _addresses(raw["dst"], _nul(raw["dst"]))
        v6 = np.array([ip.version == 6 for ip in sip], bool)[si]
        # A flow is ITGDec's: flow id, addresses and ports.
        key = np.zeros(n, [("flow", "<u4"), ("src", "<i8"), ("dst", "<i8"),
                           ("sport", "<u4"), ("dport", "<u4")])
        key["flow"], key["src"], key["dst"] = raw["flow"], si, di
        key["sport"], key["dport"] = raw["sport"], raw["dport"]
        flows, first, inv = np.unique(key, return_index=True,
                                      return_inverse=True)
        inv = inv.ravel()
        order = np.argsort(first, kind="stable")
        # A flow's TG is its flow id; a flow id that a flow seen before has
        # (two ITGSend each with a flow 1) takes the next id above them all.
        tg_of = np.empty(len(flows), np.int64)
        taken, spare = set(), int(flows["flow"].max(initial=0)) + 1
        for k in order.tolist():
            fid = int(flows["flow"][k])
            if fid in taken:
                fid, spare = spare, spare + 1
            taken.add(fid)
            tg_of[k] = fid
        tgs = [{"id": int(tg_of[k]), "ditg_flow": int(flows["flow"][k]),
                "src": {"addr": src[int(flows["src"][k])],
                        "port": int(flows["sport"][k])},
                "dst": {"addr": dst[int(flows["dst"][k])],
                        "port": int(flows["dport"][k])}}
               for k in order.tolist()]
        rx, tx = _unwrap(_tod_us(raw["rx_h"], raw["rx_m"], raw["rx_s"]),
                         _tod_us(raw["tx_h"], raw["tx_m"], raw["tx_s"]))
        r = empty(n)
        r["rx_ns"] = rx * 1000
        r["tx_ns"] = tx * 1000
        r["sched_ns"] = r["tx_ns"]
        r["seq"] = raw["seq"].astype(np.uint64) - 1
        r["tg_id"] = tg_of[inv]
        r["payload_len"] = raw["size"]
        r["len"] = raw["size"] + np.where(v6, UDP_OVER[True],
                                          UDP_OVER[False])
        r["flags"] = STAMP_UNKNOWN | F_DITG | np.where(v6, F_IPV6, 0)
        self.records = r
        self.meta = _meta(self.path, tgs, n)


def open_log(path):
    """A D-ITG binary log as a recording; NotDitg when the file is not
    one, RecordingError when it is damaged."""
    return DitgLog(path)


# --- writing -----------------------------------------------------------------

def left_out(records, mask):
    """What of the selected records D-ITG's log cannot say: those whose
    header failed its CRC (no flow, no sequence number to trust) and those
    whose UDP checksum was wrong (no send stamp to trust; the kernel drops
    such a datagram before ITGRecv sees it, so ITGDec counts it lost).
    Returns (the mask of the records to write, {why: how many left})."""
    flags = records["flags"]
    corrupt = mask & ((flags & F_HDR_CORRUPT) != 0)
    bad = mask & ~corrupt & ((flags & F_CSUM_BAD) != 0)
    return mask & ~corrupt & ~bad, {"hdr_corrupt": int(corrupt.sum()),
                                    "csum_bad": int(bad.sum())}


def _tod(ns, tai_s):
    """CLOCK_TAI ns as D-ITG's time of day: (hour, minute, seconds), UTC,
    the microseconds cut as gettimeofday() cuts them."""
    us = (ns.astype(np.int64) - tai_s * 10**9) // 1000 % DAY_US
    sec, usec = us // US, us % US
    return sec // 3600, sec % 3600 // 60, (sec % 60) + usec / 1e6


def _check(rec, r, index):
    """What a D-ITG log cannot hold among records r (rec's of `index`):
    RecordingError naming the first."""
    path = rec.path
    runs = np.unique(r["run_id"])
    if len(runs) > 1:
        shown = ", ".join(map(str, runs[:4].tolist())) + \
            (", ..." if len(runs) > 4 else "")
        raise RecordingError(
            f"{path}: records of {len(runs)} runs ({shown}): a D-ITG log "
            f"has no run id, their flows would merge; --where 'run_id == "
            f"{runs[0]}' exports one")
    big = np.flatnonzero(r["seq"] >= SEQ_MAX)
    if len(big):
        i = big[0]
        raise RecordingError(
            f"{path}: record {index[i]} (TG {r['tg_id'][i]}): sequence "
            f"number {r['seq'][i]} does not fit D-ITG's (from 1 to "
            f"{SEQ_MAX}, mtg's plus 1); --where 'seq < {SEQ_MAX}' leaves "
            f"such records out")
    over = np.where((r["flags"] & F_IPV6) != 0, UDP_OVER[True],
                    UDP_OVER[False])
    short = np.flatnonzero(r["len"] < over)
    if len(short):
        i = short[0]
        raise RecordingError(
            f"{path}: record {index[i]} (TG {r['tg_id'][i]}): len "
            f"{r['len'][i]} is less than the {over[i]} bytes of Ethernet, "
            f"IP and UDP headers: it has no UDP payload to log")


def _endpoints(rec, tg, ipv6):
    """(flow id, source address, source port, destination address,
    destination port) of TG tg's records in the log."""
    from .export import tg_frame_params
    src, dst, sport, dport, *_ = tg_frame_params(rec, tg, ipv6)
    text = [str(ipaddress.ip_address(a if ipv6 else a[:4])).encode()
            for a in (src, dst)]
    meta = rec.tg_meta(tg) or {}
    flow = meta.get("ditg_flow")
    flow = flow if isinstance(flow, int) and 0 <= flow <= SEQ_MAX else tg
    return flow, text[0], sport, text[1], dport


def _log_records(rec, c, tai_s):
    out = np.zeros(len(c), np.dtype(
        [(name, "S46") if name in ("src", "dst") else (name, t)
         for name, t, *_ in _FIELDS]))
    v6 = (c["flags"] & F_IPV6) != 0
    key = c["tg_id"].astype(np.int64) * 2 + v6
    keys, inv = np.unique(key, return_inverse=True)
    ends = [_endpoints(rec, int(k) >> 1, bool(k & 1)) for k in keys]
    for j, name in enumerate(("flow", "src", "sport", "dst", "dport")):
        out[name] = np.array([e[j] for e in ends])[inv.ravel()]
    out["seq"] = c["seq"] + 1
    out["size"] = c["len"] - np.where(v6, UDP_OVER[True], UDP_OVER[False])
    for end in ("tx", "rx"):
        out[f"{end}_h"], out[f"{end}_m"], out[f"{end}_s"] = \
            _tod(c[f"{end}_ns"], tai_s)
    assert out.dtype.itemsize == LOG_BYTES
    return out


def write_log(rec, mask, path, force=False, meta=None):
    """The selected records of rec that D-ITG's log can say (left_out())
    as D-ITG's binary log, in the recording's order; whole or not at all.
    Returns how many were written."""
    from .export import _chunks
    mask, _ = left_out(rec.records, mask)
    index = np.flatnonzero(mask)
    _check(rec, rec.records[index], index)
    tai = (rec.meta.get("clock") or {}).get("tai_offset_s") or 0
    tai = tai if isinstance(tai, int) else 0
    n = 0
    with new_file(path, force) as (f, _):
        for c in _chunks(rec, mask):
            f.write(_log_records(rec, c, tai).tobytes())
            n += len(c)
    return n

