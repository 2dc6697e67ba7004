# SPDX-License-Identifier: GPL-2.0-or-later
"""The quantities every command speaks of, by name: the record's fields,
the delays between any two time points, and the jitter of any of them.

A Column carries a value for every record and whether the record has one:
a header that failed its CRC vouches for nothing in it; stamps the UDP
checksum does not vouch for (csum_bad) are not used; a test point that no
probe stamped is 0. Documentation/analysis.rst lists the names."""

import dataclasses
import re

import numpy as np

from .recording import (F_CSUM_BAD, F_HDR_CORRUPT, F_IPV6, SEQ_LIMIT,
                        STAMP_MASK)

# Where a packet is timed, in path order.
TIME_POINTS = ("sched", "tx", "tp0", "tp1", "tp2", "tp3", "rx")
ALIASES = {"owd": "delay_tx_rx", "lateness": "delay_sched_tx"}
# Fields a corrupt header still has: they are the module's, not the header's.
OWN_FIELDS = ("rx_ns", "len", "iface", "flags", "ttl", "tos", "stamp",
              "hdr_corrupt", "csum_bad", "ipv6", "t")
HEADER_FIELDS = ("seq", "sched_ns", "run_id", "tg_id", "wrong_bits",
                 "payload_len") + tuple(f"nut{i}" for i in range(6))
FLAG_FIELDS = {"hdr_corrupt": F_HDR_CORRUPT, "csum_bad": F_CSUM_BAD,
               "ipv6": F_IPV6}
UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
         "min": 60_000_000_000}


class FieldError(ValueError):
    pass


@dataclasses.dataclass
class Column:
    name: str
    values: np.ndarray      # one per record
    valid: np.ndarray       # bool, one per record
    time: bool = False      # nanoseconds (absolute or a duration)

    def taken(self, mask=None):
        """The values the records have (of those in mask)."""
        keep = self.valid if mask is None else self.valid & mask
        return self.values[keep]


def names():
    """Every name column() knows, for help and error messages."""
    points = ", ".join(TIME_POINTS)
    return ("rx_ns, seq, sched_ns, tx_ns, tp0_ns..tp3_ns, run_id, tg_id, "
            "wrong_bits, len, iface, flags, ttl, tos, payload_len, "
            "nut0..nut5, stamp, hdr_corrupt, csum_bad, ipv6, t, owd, "
            f"lateness, delay_A_B and jitter_X (A, B, X: {points}; X also "
            "owd, lateness or delay_A_B)")


def parse_duration(text, what="duration"):
    """'10ms', '1.5s', '250us', '42' (ns) → integer ns."""
    m = re.fullmatch(r"\s*(-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
                     r"\s*(ns|us|ms|s|min)?\s*", str(text))
    if not m:
        raise FieldError(f"{what} '{text}': a number with a unit "
                         f"(ns, us, ms, s, min)")
    return int(round(float(m.group(1)) * UNITS[m.group(2) or "ns"]))


def since(stamps, start_ns):
    """CLOCK_TAI stamps (uint64 ns) as int64 ns after start_ns: their
    difference modulo 2^64, as delay() takes it, so that no stamp, however
    wild, overflows."""
    start = np.uint64(int(start_ns) % (1 << 64))
    return (np.asarray(stamps, np.uint64) - start).view(np.int64)


def _sound(r):
    return (r["flags"] & F_HDR_CORRUPT) == 0


def _stamps_sound(r):
    return (r["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) == 0


def point(records, name):
    """A time point's stamps (uint64 ns) and which records have it."""
    if name == "sched":
        return records["sched_ns"], _sound(records)
    if name == "rx":
        return records["rx_ns"], np.ones(len(records), bool)
    if name == "tx":
        # 0: a D-ITG packet whose time was no time of day (abi.rst)
        v = records["tx_ns"]
        return v, _stamps_sound(records) & (v != 0)
    if name in ("tp0", "tp1", "tp2", "tp3"):
        v = records["tp_ns"][:, int(name[2])]
        return v, _stamps_sound(records) & (v != 0)
    raise FieldError(f"'{name}' is not a time point ({', '.join(TIME_POINTS)})")


def delay(records, a, b):
    """b − a in ns (int64), for records that have both points."""
    if a == "rx" or b == "rx":     # every record has rx: no mask to and
        (vo, k), vr = point(records, b if a == "rx" else a), \
            records["rx_ns"]
        va, vb = (vr, vo) if a == "rx" else (vo, vr)
        return (vb - va).view(np.int64), k
    va, ka = point(records, a)
    vb, kb = point(records, b)
    # uint64 arithmetic wraps: the same bits as subtracting in int64, in
    # one pass instead of three.
    d = (vb - va).view(np.int64)
    return d, ka & kb


def flow_order(records):
    """Indices that sort the records by flow (run id, TG id) then sequence
    number, arrival order kept among equals."""
    return np.lexsort((records["seq"], records["tg_id"], records["run_id"]))


def jitter(records, values, valid):
    """IPDV (RFC 3393) of a delay: its change from the previous packet of
    the same flow, for consecutive sequence numbers (below SEQ_LIMIT); on
    the later packet."""
    order = flow_order(records)
    r = records[order]
    v = values[order]
    k = valid[order] & _sound(r) & (r["seq"] < SEQ_LIMIT)
    out = np.zeros(len(records), np.int64)
    ok = np.zeros(len(records), bool)
    if len(r) > 1:
        pair = ((r["run_id"][1:] == r["run_id"][:-1]) &
                (r["tg_id"][1:] == r["tg_id"][:-1]) &
                (r["seq"][1:] == r["seq"][:-1] + 1) & k[1:] & k[:-1])
        d = v[1:].astype(np.int64) - v[:-1].astype(np.int64)
        out[order[1:]] = np.where(pair, d, 0)
        ok[order[1:]] = pair
    return out, ok


def column(records, name, start_ns=0):
    """The named quantity of every record (see names())."""
    n = len(records)
    name = ALIASES.get(name, name)
    if name.startswith("jitter_"):
        inner = name[len("jitter_"):]
        inner = ALIASES.get(inner, inner)
        if inner in TIME_POINTS:
            if inner == "sched":
                raise FieldError("jitter_sched: the schedule has no jitter; "
                                 "jitter_tx is the sending jitter")
            inner = f"delay_sched_{inner}"
        if not inner.startswith("delay_"):
            raise FieldError(f"'{name}': jitter of a time point or a delay")
        c = column(records, inner, start_ns)
        v, k = jitter(records, c.values, c.valid)
        return Column(name, v, k, time=True)
    if name.startswith("delay_"):
        parts = name.split("_")
        if len(parts) != 3:
            raise FieldError(f"'{name}': delay_A_B, A and B among "
                             f"{', '.join(TIME_POINTS)}")
        v, k = delay(records, parts[1], parts[2])
        return Column(name, v, k, time=True)
    if name in FLAG_FIELDS:
        v = (records["flags"] & FLAG_FIELDS[name]) != 0
        return Column(name, v.astype(np.int64), np.ones(n, bool))
    if name == "stamp":
        return Column(name, (records["flags"] & STAMP_MASK).astype(np.int64),
                      np.ones(n, bool))
    if name == "t":
        v = since(records["rx_ns"], start_ns)
        return Column(name, v, np.ones(n, bool), time=True)
    m = re.fullmatch(r"(tp)([0-3])_ns|(nut)([0-5])", name)
    if m and m.group(1):
        v, k = point(records, f"tp{m.group(2)}")
        return Column(name, v, k, time=True)
    if m and m.group(3):
        return Column(name, records["nut"][:, int(m.group(4))].astype(np.int64),
                      _sound(records))
    if name in ("tx_ns",):
        v, k = point(records, "tx")
        return Column(name, v, k, time=True)
    if name in HEADER_FIELDS:
        return Column(name, records[name], _sound(records),
                      time=name.endswith("_ns"))
    if name in OWN_FIELDS and name in (records.dtype.names or ()):
        return Column(name, records[name], np.ones(n, bool),
                      time=name.endswith("_ns"))
    raise FieldError(f"unknown field '{name}'; fields: {names()}")
