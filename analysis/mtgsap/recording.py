# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings (Documentation/recording-format.rst): opened as a numpy
structured array mapped from the file, or a pandas DataFrame over the same
memory; written (by copy and filter) the way mtgctl writes them, never over
an existing file unless asked."""

import contextlib
import dataclasses
import json
import os
import stat
import struct
import tempfile

import numpy as np

MAGIC = b"\x89MTGREC\n"
HEADER = struct.Struct("<8sIIIIQQQQII")
VERSION = 1             # records only
VERSION_EXTRAS = 2      # records, then the extra section
F_COMPLETE = 1
F_EXTRAS = 2
PAGE = 4096

# The extra section (version 2): its header, then entries of a 64-byte
# head and data, each padded to a multiple of 8 bytes.
EXTRA_MAGIC = b"\x89MTGEXT\n"
EXTRA_HEADER = struct.Struct("<8sQQQQQ16x")
EXTRA_HEAD = struct.Struct("<IHHQQQQIIHHIII")
EXTRA_CTRL, EXTRA_PAYLOAD, EXTRA_WRONG_BITS, EXTRA_RATE = 1, 2, 3, 4
EXTRA_F_CUT = 1
NO_RECORD = (1 << 64) - 1
# EXTRA_RATE's data: num, den (the throughput num/den times the
# timetable's), by (RATE_BY), 6 reserved zero bytes.
RATE_DATA = struct.Struct("<IIH2xI")
RATE_MAX = 65536
RATE_BY = {1: "key", 2: "command", 3: "restart"}

# Record flags (struct mtg_rx_rec.flags); the metadata spells them too.
STAMP_MASK = 0x3
STAMP_NAMES = ("hook", "sw", "hw", "unknown")   # 3: no source has it
F_IPV6 = 0x4
F_HDR_CORRUPT = 0x8
F_CSUM_BAD = 0x10
F_KEPT = 0x20           # extra entries of the record (payload, wrong bits)
F_KEEP_LOST = 0x40      # one asked for, lost: the module had no room
F_DITG = 0x80           # D-ITG's payload: no CRC, pattern or schedule
F_CSUM_PARTIAL = 0x100  # a local sender's checksum, left to offload: unchecked
F_ICMP = 0x200          # an ICMP echo reply: tx_ns the request's, a round trip
# A sequence number at or above this was never sent (a sender would have
# sent 2^63 packets): the record is implausible, counted apart.
SEQ_LIMIT = 1 << 63

# The dtype of version 1, for recordings built from scratch; a file's own
# metadata is what its records are read with.
DTYPE_V1 = [["rx_ns", "<u8"], ["seq", "<u8"], ["sched_ns", "<u8"],
            ["tx_ns", "<u8"], ["tp_ns", "<u8", [4]],
            ["run_id", "<u4"], ["tg_id", "<u4"],
            ["wrong_bits", "<u4"], ["len", "<u2"], ["iface", "<u2"],
            ["flags", "<u2"], ["nut", "u1", [6]], ["ttl", "u1"],
            ["tos", "u1"], ["payload_len", "<u2"], ["reserved", "<u4"]]


@dataclasses.dataclass(frozen=True)
class Extra:
    """An entry of the extra section: a control message received (CTRL), or
    a packet's payload (PAYLOAD) or its wrong bits' positions (WRONG_BITS,
    bit k is byte k // 8's bit 7 - k % 8, counted from the first payload
    byte after the MTG header) kept for the record of index `record`."""
    type: int
    flags: int
    record: int             # PAYLOAD, WRONG_BITS; NO_RECORD for CTRL
    rx_ns: int
    seq: int
    tx_ns: int
    run_id: int
    tg_id: int
    iface: int
    rx_flags: int
    count: int              # WRONG_BITS: the packet's wrong bits;
                            # PAYLOAD: its payload bytes; CTRL: data bytes
    data: bytes

    @property
    def positions(self):
        """WRONG_BITS: the positions, a numpy array of uint32."""
        return np.frombuffer(self.data, dtype="<u4")

    @property
    def cut(self):
        """WRONG_BITS: fewer positions than wrong bits (the list was cut)."""
        return bool(self.flags & EXTRA_F_CUT)

    @property
    def rate(self):
        """RATE: (num, den, by): from rx_ns on (CLOCK_TAI ns), TG tg_id
        sends num/den times its timetable's throughput (each gap times
        den/num), as `by` ("key", "command", "restart") asked."""
        num, den, by, _ = RATE_DATA.unpack(self.data)
        return num, den, RATE_BY[by]


def rate_extra(tg_id, at_ns, num, den, by, run_id=0):
    """A RATE entry: TG tg_id at num/den of its timetable's throughput from
    at_ns (CLOCK_TAI) on, as `by` (a name of RATE_BY) asked."""
    code = {v: k for k, v in RATE_BY.items()}[by]
    return Extra(EXTRA_RATE, 0, NO_RECORD, at_ns, 0, 0, run_id, tg_id, 0, 0,
                 0, RATE_DATA.pack(num, den, code, 0))


def _rate_wrong(head, data):
    """What is wrong with a RATE entry (its head's fields, its data); None
    if nothing. ctl/rx/recread.c's rec_rate_read() says the same."""
    record, data_len = head[3], head[12]
    if record != NO_RECORD:
        return f"a rate change of record {record}, not of none (2^64 - 1)"
    if data_len != RATE_DATA.size:
        return (f"a rate change of {data_len} bytes of data, not "
                f"{RATE_DATA.size}")
    num, den, by, reserved = RATE_DATA.unpack(bytes(data))
    if not (1 <= num <= RATE_MAX and 1 <= den <= RATE_MAX):
        return (f"a rate change of x{num}/{den}, not num/den from 1 to "
                f"{RATE_MAX}")
    if by not in RATE_BY:
        return (f"a rate change by {by}, not 1 (key), 2 (command) or 3 "
                f"(restart)")
    if reserved or bytes(data)[10:12] != b"\0\0":
        return "a rate change whose reserved bytes are not 0"
    return None


def _extra_wrong(head, left, records):
    """What is wrong with an extra entry's head (its fields), left bytes of
    the section from it on, in a file of `records` records; None if
    nothing. ctl/rx/recread.c's extra_wrong() says the same."""
    nbytes, typ, _, record, *_, data_len, _ = head
    if nbytes < EXTRA_HEAD.size or nbytes % 8:
        return (f"its length is {nbytes}, not a multiple of 8 from "
                f"{EXTRA_HEAD.size}")
    if nbytes > left:
        return (f"its length {nbytes} goes past the section's end, {left} "
                f"bytes on")
    if (data_len > nbytes - EXTRA_HEAD.size or
            nbytes - EXTRA_HEAD.size - data_len >= 8):
        return f"{data_len} bytes of data do not make its length {nbytes}"
    if typ in (EXTRA_PAYLOAD, EXTRA_WRONG_BITS) and record >= records:
        return f"it is of record {record}, the file has {records}"
    if typ == EXTRA_WRONG_BITS and data_len % 4:
        return (f"{data_len} bytes of wrong bits' positions, not a "
                f"multiple of 4")
    return None


class RecordingError(ValueError):
    """A file that is not a recording this reader can trust, or a write
    that could not be done; the message names the file and what is wrong."""


class NotRecording(RecordingError):
    """A file without the recording's magic: open_recording() tries it as
    a D-ITG log."""


def dtype_of(spec):
    """The numpy dtype of a metadata "dtype" list."""
    try:
        return np.dtype([(f[0], f[1]) if len(f) == 2 else
                         (f[0], f[1], tuple(f[2])) for f in spec])
    except (TypeError, ValueError, IndexError) as e:
        raise RecordingError(f"the record dtype is not valid: {e}") from None


RECORD_DTYPE = dtype_of(DTYPE_V1)
RECORD_BYTES = RECORD_DTYPE.itemsize


# --- the metadata: what a reader checks ----------------------------------------
#
# Documentation/recording-format.rst, "What a reader checks": the keys
# below, where present, have these types (unknown keys are ignored);
# ctl/rx/recmeta.c checks the same. A type is a tuple: ("int", lo, hi),
# ("num",), ("str",), ("bool",), ("const", value), ("obj", {key: (type,
# required)}), ("list", item type), ("map",) (an object of anything),
# ("any",), ("null", type) (that or null), ("or", a, b).

def _obj(*required, **keys):
    return ("obj", {k: (t, k in required) for k, t in keys.items()})


UINT = ("int", 0, (1 << 64) - 1)
U32 = ("int", 0, (1 << 32) - 1)
U16 = ("int", 0, (1 << 16) - 1)
TIME = ("int", 0, SEQ_LIMIT - 1)        # CLOCK_TAI ns before 2262
INT = ("int", -(1 << 63), (1 << 64) - 1)
NUM, STR, BOOL, MAP, ANY = ("num",), ("str",), ("bool",), ("map",), ("any",)
ENDPOINT = ("or", _obj(addr=("null", STR), port=U16), STR)
PAIR = {"thro": ("req", "min"), "inta_ns": ("min", "max"),
        "mean_gap_ns": ("num", "den")}
TG_META = _obj(
    "id", id=U32, dist=("null", STR), dist_params=MAP,
    pkts=_obj(min=UINT, max=UINT),
    thro=("null", _obj("req", "min", req=UINT, min=UINT)),
    inta_ns=("null", _obj("min", "max", min=UINT, max=UINT)),
    table=_obj(mean_gap_ns=_obj("num", "den", num=UINT, den=UINT)),
    src=ENDPOINT, dst=ENDPOINT,
    patt=_obj(kind=STR, value=UINT, seed=UINT), mac=("null", STR),
    keep=_obj(payload=BOOL, wrong_bits=BOOL))
RECORD_FLAGS = {"stamp_mask": STAMP_MASK, "stamp_hook": 0, "stamp_sw": 1,
                "stamp_hw": 2, "ipv6": F_IPV6, "hdr_corrupt": F_HDR_CORRUPT,
                "csum_bad": F_CSUM_BAD, "kept": F_KEPT,
                "keep_lost": F_KEEP_LOST, "ditg": F_DITG,
                "csum_partial": F_CSUM_PARTIAL, "icmp": F_ICMP}
META = _obj(
    "format", "version", "record",
    format=("const", "mtg-recording"), version=UINT, command=STR,
    mtgctl=STR, abi=_obj(major=UINT, minor=UINT), run_id=("null", U32),
    start_ns=("null", TIME), host=_obj(name=STR, kernel=STR,
                                       kernel_version=STR, machine=STR),
    clock=_obj(id=STR, synchronised=BOOL, tai_offset_s=INT,
               maxerror_us=UINT, esterror_us=UINT),
    record=_obj("dtype", bytes=("const", RECORD_BYTES), dtype=("list", ANY),
                flags=_obj(**{k: ("const", v)
                              for k, v in RECORD_FLAGS.items()})),
    ring_records=UINT, passthrough=BOOL,
    interfaces=("list", _obj("id", id=U16, dev=("null", STR),
                             netns=("null", STR), ifindex=UINT)),
    idf=("null", _obj(file=STR, text=STR,
                      includes=("list", _obj(file=STR, text=STR)))),
    tgs=("list", TG_META), filtered=MAP, copied_from_partial=BOOL,
    tsp=_obj(sender=STR, key=("null", STR),
             clock=("null", _obj("offset_ns", "uncertainty_ns",
                                 offset_ns=INT, uncertainty_ns=UINT))),
    receiver=_obj("source", source=STR, stamp=STR, payload_compared=BOOL),
    logd=_obj("transport", "records", "lost", "complete", transport=STR,
              peer=STR, host=STR, log_id=U32, records=UINT, lost=UINT,
              batches_lost=UINT, late=UINT, not_sent=("null", UINT),
              complete=BOOL, why=("null", STR)))


def _says(t):
    """What a value of type t is, in words."""
    kind = t[0]
    if kind == "int":
        return (f"an integer from {t[1]} to {t[2]}" if t[1] >= 0 else
                "an integer")
    if kind == "null":
        return f"{_says(t[1])} or null"
    if kind == "or":
        return f"{_says(t[1])} or {_says(t[2])}"
    if kind == "const":
        return json.dumps(t[1])
    return {"num": "a number", "str": "a string", "bool": "true or false",
            "obj": "an object", "map": "an object",
            "list": "a list"}[kind]


def _fits(v, t):
    """Whether v has the type t (not looking inside objects and lists)."""
    kind = t[0]
    if kind == "null":
        return v is None or _fits(v, t[1])
    if kind == "or":
        return _fits(v, t[1]) or _fits(v, t[2])
    if kind == "int":
        return type(v) is int and t[1] <= v <= t[2]
    if kind == "num":
        return type(v) in (int, float)
    if kind == "const":
        return type(v) is type(t[1]) and v == t[1]
    if kind == "any":
        return True
    return isinstance(v, {"str": str, "bool": bool, "obj": dict,
                          "map": dict, "list": list}[kind])


class _MetaError(ValueError):
    pass


def _shown(v):
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(v, t, where):
    """v against t, inside objects and lists too; _MetaError says where
    and what is wrong."""
    if not _fits(v, t):
        raise _MetaError(f"{where} is {_shown(v)}, not {_says(t)}")
    while t[0] in ("null", "or"):
        if v is None:
            return
        t = t[1] if _fits(v, t[1]) else t[2]
    if t[0] == "obj":
        for key, (kt, required) in t[1].items():
            inner = f"{where}.{key}" if where else key
            if key in v:
                _check(v[key], kt, inner)
            elif required:
                raise _MetaError(f"{inner} is missing")
    elif t[0] == "list":
        for i, item in enumerate(v):
            _check(item, t[1], f"{where}[{i}]")


def _check_dtype(spec):
    """The record's dtype must be version 1's: the same fields, in the same
    order, of the same types (a one-byte type may be spelt |u1)."""
    if len(spec) != len(DTYPE_V1):
        raise _MetaError(f"record.dtype has {len(spec)} fields, not the "
                         f"{len(DTYPE_V1)} of version 1")
    for i, (got, want) in enumerate(zip(spec, DTYPE_V1)):
        same = (isinstance(got, list) and len(got) == len(want) and
                got[0] == want[0] and
                (got[1] == want[1] or got[1] == "|" + want[1] == "|u1") and
                got[2:] == want[2:])
        if not same:
            raise _MetaError(f"record.dtype[{i}] is {_shown(got)}, not "
                             f"{json.dumps(want)} (version 1's records)")


def _no_twice(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _MetaError(f"not JSON: the key {json.dumps(key)} appears "
                             f"twice in an object")
        seen.add(key)
    return dict(pairs)


def _no_constant(name):
    raise _MetaError(f"not JSON: {name} is not a JSON number")


def check_meta(raw, version):
    """The metadata (bytes) of a recording whose header says `version`,
    parsed and checked (META, the record's dtype); _MetaError says what is
    wrong."""
    try:
        meta = json.loads(raw.decode(), object_pairs_hook=_no_twice,
                          parse_constant=_no_constant)
    except UnicodeDecodeError as e:
        raise _MetaError(f"not UTF-8: {e}") from None
    except json.JSONDecodeError as e:
        raise _MetaError(f"not JSON: {e}") from None
    except RecursionError:
        raise _MetaError("not JSON: nested too deep") from None
    if not isinstance(meta, dict):
        raise _MetaError("not a JSON object")
    _check(meta, META, "")
    if meta["version"] != version:
        raise _MetaError(f"version is {meta['version']}, but the header "
                         f"says {version}")
    _check_dtype(meta["record"]["dtype"])
    return meta


def empty(n=0):
    """n zeroed records of the current version's dtype."""
    return np.zeros(n, dtype=RECORD_DTYPE)


class Recording:
    """An opened recording.

    path, header (the fixed header's fields as a dict), meta (the JSON
    metadata), complete (the recorder finished it), records (a read-only
    numpy structured array mapped from the file), start_ns (T0)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        try:
            # Not blocking: a FIFO would wait for a writer before fstat().
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK |
                         os.O_CLOEXEC)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise RecordingError(f"{self.path}: not a regular file")
                f = os.fdopen(fd, "rb")
            except BaseException:
                os.close(fd)
                raise
            with f:
                self._read(f, st.st_size)
        except OSError as e:
            raise RecordingError(f"{self.path}: {e.strerror}") from None

    def _read(self, f, size):
        head = f.read(HEADER.size)
        self._check_header(head, size)
        h = self.header
        try:
            self.meta = check_meta(f.read(h["meta_bytes"]), h["version"])
        except _MetaError as e:
            raise RecordingError(f"{self.path}: damaged metadata: {e}") \
                from None
        dtype = RECORD_DTYPE
        body = size - h["header_bytes"]
        n, self.partial_bytes = divmod(body, h["record_bytes"])
        self.complete = bool(h["flags"] & F_COMPLETE)
        self.extras_header = None
        self._extras = None
        self._section = b""
        if h["flags"] & F_EXTRAS:
            n = self._check_extras(f, body)
            self.partial_bytes = 0
        elif self.complete and n < h["records"]:
            raise RecordingError(f"{self.path}: truncated: the header counts "
                                 f"{h['records']} records, the file holds "
                                 f"{n}")
        if self.complete and (n, self.partial_bytes) != (h["records"], 0):
            raise RecordingError(f"{self.path}: damaged: {body - h['records'] * h['record_bytes']}"
                                 f" bytes after the {h['records']} records "
                                 f"the header counts")
        self.records = (np.memmap(f, dtype=dtype, mode="r",
                                  offset=h["header_bytes"], shape=(n,))
                        if n else np.zeros(0, dtype=dtype))
        self.start_ns = int(self.meta.get("start_ns") or
                            (self.records["rx_ns"].min() if n else 0))

    def correct_clock(self):
        """Receive stamps brought to the sender's clock: minus the offset
        of the receiver's clock the sender estimated over TSP (metadata
        "tsp"."clock", Documentation/tsp.rst), so that one-way delays
        across hosts hold without synchronised clocks, within the
        estimate's uncertainty. The records are copied into memory."""
        clock = (self.meta.get("tsp") or {}).get("clock")
        if not clock:
            raise RecordingError(
                f"{self.path}: no estimate of the clocks' offset: only a "
                f"recording of mtgctl recv from a sender of TSP 1.0 holds one")
        records = np.array(self.records)
        rx = records["rx_ns"].astype(np.int64) - int(clock["offset_ns"])
        records["rx_ns"] = rx.astype(records.dtype["rx_ns"])
        self.records = records
        self.clock_offset_ns = int(clock["offset_ns"])
        self.clock_uncertainty_ns = int(clock["uncertainty_ns"])

    def _check_extras(self, f, body):
        """Version 2: the records the header counts, then the section, every
        entry's head checked (as ctl/rx/recread.c does, in its words)."""
        h = self.header
        n = h["records"]
        end = h["header_bytes"] + n * h["record_bytes"]
        if n * h["record_bytes"] + EXTRA_HEADER.size > body:
            raise RecordingError(f"{self.path}: truncated: the header says "
                                 f"{n} records and an extra section, the "
                                 f"file holds {body} bytes of them")
        f.seek(end)
        magic, entries, nbytes, ctrl_drops, keep_drops, extras_lost = \
            EXTRA_HEADER.unpack(f.read(EXTRA_HEADER.size))
        if magic != EXTRA_MAGIC:
            raise RecordingError(f"{self.path}: damaged: no extra section "
                                 f"(\\x89MTGEXT\\n) after the {n} records")
        held = body - n * h["record_bytes"] - EXTRA_HEADER.size
        if held != nbytes:
            raise RecordingError(f"{self.path}: "
                                 f"{'truncated' if held < nbytes else 'damaged'}"
                                 f": the extra section says {nbytes} bytes "
                                 f"of entries, the file holds {held}")
        self.extras_header = dict(entries=entries, bytes=nbytes,
                                  ctrl_drops=ctrl_drops,
                                  keep_drops=keep_drops,
                                  extras_lost=extras_lost,
                                  offset=end + EXTRA_HEADER.size)
        self._section = (np.memmap(f, dtype=np.uint8, mode="r",
                                   offset=end + EXTRA_HEADER.size,
                                   shape=(nbytes,)) if nbytes else b"")
        held = sum(1 for _ in self._entry_heads(n))
        if held != entries:
            raise RecordingError(f"{self.path}: damaged: the extra section "
                                 f"says {entries} entries, it holds {held}")
        return n

    def _entry_heads(self, records):
        """The extra entries' heads, checked: (offset in the section, the
        head's fields) each."""
        raw = self._section
        pos = 0
        while pos < len(raw):
            left = len(raw) - pos
            if left < EXTRA_HEAD.size:
                why = (f"{left} bytes left, less than an entry's "
                       f"{EXTRA_HEAD.size}-byte head")
            else:
                head = EXTRA_HEAD.unpack_from(raw, pos)
                why = _extra_wrong(head, left, records)
                if not why and head[1] == EXTRA_RATE:
                    at = pos + EXTRA_HEAD.size
                    why = _rate_wrong(head, raw[at:at + head[12]])
            if why:
                raise RecordingError(f"{self.path}: damaged extra entry at "
                                     f"byte {pos} of the section: {why}")
            yield pos, head
            pos += head[0]

    @property
    def extras(self):
        """The extra entries (version 2), in the order written: a list of
        Extra; empty for version 1 (and once closed)."""
        if self._extras is None:
            self._extras = list(self._read_extras())
        return self._extras

    def _read_extras(self):
        raw = self._section
        for pos, head in self._entry_heads(self.header["records"]):
            (_, typ, flags, record, rx_ns, seq, tx_ns, run_id, tg_id,
             iface, rx_flags, count, data_len, _) = head
            start = pos + EXTRA_HEAD.size
            yield Extra(typ, flags, record, rx_ns, seq, tx_ns, run_id, tg_id,
                        iface, rx_flags, count,
                        bytes(raw[start:start + data_len]))

    def control_messages(self, tgs=None):
        """The control messages received (Extra, type CTRL), of the TGs in
        `tgs` (ids) or all."""
        return [e for e in self.extras if e.type == EXTRA_CTRL and
                (tgs is None or e.tg_id in tgs)]

    def rate_changes(self, tg=None):
        """The TGs' throughput changes during the run (Extra, type RATE;
        .rate gives num, den, by), of TG `tg` or all, in time order."""
        return sorted((e for e in self.extras if e.type == EXTRA_RATE and
                       (tg is None or e.tg_id == tg)),
                      key=lambda e: e.rx_ns)

    def kept(self, kind=None, tgs=None):
        """What the receiver kept of packets besides their records (the
        IDF's `keep`): {record index: Extra} of type `kind` (EXTRA_PAYLOAD
        or EXTRA_WRONG_BITS), of the TGs in `tgs` or all. The record is
        self.records[index]."""
        if kind not in (EXTRA_PAYLOAD, EXTRA_WRONG_BITS):
            raise ValueError("kind: EXTRA_PAYLOAD or EXTRA_WRONG_BITS")
        return {e.record: e for e in self.extras if e.type == kind and
                (tgs is None or e.tg_id in tgs)}

    def _check_header(self, head, size):
        if not head or not head.startswith(MAGIC[:len(head)]):
            raise NotRecording(f"{self.path}: not an mtg recording (no "
                                 f"\\x89MTGREC magic)")
        if len(head) < HEADER.size:
            raise RecordingError(f"{self.path}: truncated in its "
                                 f"{HEADER.size}-byte header")
        (_, version, header_bytes, record_bytes, flags, records, not_written,
         ring_drops, end_ns, meta_bytes, ifaces_lost) = HEADER.unpack(head)
        if version not in (VERSION, VERSION_EXTRAS):
            raise RecordingError(f"{self.path}: format version {version}; "
                                 f"this mtgsap reads versions {VERSION} and "
                                 f"{VERSION_EXTRAS}")
        if record_bytes != RECORD_BYTES:
            raise RecordingError(f"{self.path}: damaged header: records of "
                                 f"{record_bytes} bytes, the format has "
                                 f"{RECORD_BYTES}")
        if header_bytes % PAGE or header_bytes < HEADER.size + meta_bytes:
            raise RecordingError(f"{self.path}: damaged header: records at "
                                 f"byte {header_bytes}, metadata of "
                                 f"{meta_bytes} bytes")
        if size < header_bytes:
            raise RecordingError(f"{self.path}: truncated: {size} bytes, the "
                                 f"records start at {header_bytes}")
        if version == VERSION_EXTRAS and not flags & F_COMPLETE:
            raise RecordingError(f"{self.path}: damaged header: format "
                                 f"version 2 without the COMPLETE flag")
        if version == VERSION_EXTRAS and not flags & F_EXTRAS:
            raise RecordingError(f"{self.path}: damaged header: format "
                                 f"version 2 without the EXTRAS flag")
        if version == VERSION and flags & F_EXTRAS:
            raise RecordingError(f"{self.path}: damaged header: format "
                                 f"version 1 with the EXTRAS flag")
        self.header = dict(version=version, header_bytes=header_bytes,
                           record_bytes=record_bytes, flags=flags,
                           records=records, not_written=not_written,
                           ring_drops=ring_drops, end_ns=end_ns,
                           meta_bytes=meta_bytes, ifaces_lost=ifaces_lost)

    def __len__(self):
        return len(self.records)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Let go of the mapping (the file can be removed, its file system
        unmounted)."""
        self.records = np.zeros(0, dtype=self.records.dtype)
        self._section = b""

    def frame(self, records=None):
        """The records as a pandas DataFrame over the mapped memory (no copy):
        one column per scalar field, tp0_ns..tp3_ns for the test points and
        nut as six columns nut0..nut5."""
        import pandas as pd

        r = self.records if records is None else records
        cols = {}
        for name in r.dtype.names:
            if name == "reserved":
                continue
            col = r[name]
            if col.ndim == 1:
                cols[name] = col
                continue
            stem = name[:-3] if name.endswith("_ns") else name
            suffix = "_ns" if name.endswith("_ns") else ""
            for i in range(col.shape[1]):
                cols[f"{stem}{i}{suffix}"] = col[:, i]
        return pd.DataFrame(cols, copy=False)

    def tg_meta(self, tg_id):
        """The TG's parameters from the metadata (None when it has none)."""
        for tg in self.meta.get("tgs") or ():
            if tg.get("id") == tg_id:
                return tg
        return None


def open_recording(path):
    """Opens a recording, or a D-ITG binary log as one (mtgsap/ditg.py:
    a file without the recording's magic whose first record is D-ITG's);
    RecordingError says why it cannot be."""
    try:
        return Recording(path)
    except NotRecording as e:
        from .ditg import NotDitg, open_log
        try:
            return open_log(path)
        except NotDitg as d:
            raise RecordingError(f"{e} nor a D-ITG binary log ({d})") \
                from None


@contextlib.contextmanager
def new_file(path, force, binary=True):
    """A file object to write `path` through: a temporary file beside it,
    synced and moved into place when the block ends (never over an existing
    file unless force); removed if the block fails."""
    path = os.fspath(path)
    if os.path.exists(path) and not force:
        raise RecordingError(f"{path}: exists (--force to overwrite)")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mtgsap-", dir=directory)
    except OSError as e:
        raise RecordingError(f"{path}: {e.strerror}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", encoding="utf-8", newline="")) as f:
            yield f, tmp
            f.flush()
            os.fsync(f.fileno())
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise RecordingError(f"{path}: exists (--force to "
                                     f"overwrite)") from None
    except OSError as e:
        raise RecordingError(f"{path}: {e.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _extra_bytes(e):
    size = -(-(EXTRA_HEAD.size + len(e.data)) // 8) * 8
    head = EXTRA_HEAD.pack(size, e.type, e.flags, e.record, e.rx_ns, e.seq,
                           e.tx_ns, e.run_id, e.tg_id, e.iface, e.rx_flags,
                           e.count, len(e.data), 0)
    return head + e.data + b"\0" * (size - EXTRA_HEAD.size - len(e.data))


def select_extras(extras, mask, tgs=None):
    """The extra entries that go with the records `mask` selects, their
    record indexes renumbered for those records; control messages of the
    TGs in `tgs` (all if None)."""
    index = np.cumsum(mask, dtype=np.int64) - 1
    out = []
    for e in extras:
        if e.record == NO_RECORD:
            if tgs is None or e.tg_id in tgs:
                out.append(e)
        elif e.record < len(mask) and mask[e.record]:
            out.append(dataclasses.replace(e, record=int(index[e.record])))
    return out


def write(path, meta, records, *, ring_drops=0, not_written=0, end_ns=0,
          ifaces_lost=0, force=False, extras=(), extras_lost=0, ctrl_drops=0,
          keep_drops=0):
    """Writes a complete recording of `records` (a structured array of the
    current dtype, in memory or mapped: it is written in slices) with
    `meta`, whole or not at all (new_file). With extra entries (Extra) or
    counts of them lost it is a version 2 file, else version 1."""
    path = os.fspath(path)
    if records.dtype != RECORD_DTYPE:
        raise RecordingError(f"{path}: records must have the version "
                             f"{VERSION} dtype")
    extras = list(extras)
    for e in extras:
        if e.record != NO_RECORD and e.record >= len(records):
            raise RecordingError(f"{path}: an extra entry of record "
                                 f"{e.record}, of {len(records)}")
    v2 = bool(extras or extras_lost or ctrl_drops or keep_drops)
    version = VERSION_EXTRAS if v2 else VERSION
    meta = dict(meta, format="mtg-recording", version=version)
    meta["record"] = dict(meta.get("record") or {}, bytes=RECORD_DTYPE.itemsize,
                          dtype=DTYPE_V1)
    meta_raw = json.dumps(meta, separators=(",", ":")).encode()
    header_bytes = -(-(HEADER.size + len(meta_raw)) // PAGE) * PAGE
    head = HEADER.pack(MAGIC, version, header_bytes, RECORD_DTYPE.itemsize,
                       F_COMPLETE | (F_EXTRAS if v2 else 0), len(records),
                       not_written, ring_drops, end_ns, len(meta_raw),
                       ifaces_lost)
    with new_file(path, force) as (f, _):
        f.write(head + meta_raw)
        f.write(b"\0" * (header_bytes - len(head) - len(meta_raw)))
        # Large writes; the little-endian dtype is the file's layout.
        step = 1 << 16
        for i in range(0, len(records), step):
            f.write(records[i:i + step].tobytes())
        if v2:
            body = b"".join(_extra_bytes(e) for e in extras)
            f.write(EXTRA_HEADER.pack(EXTRA_MAGIC, len(extras), len(body),
                                      ctrl_drops, keep_drops, extras_lost))
            f.write(body)
    return path


def extra_counts(rec):
    """The keywords of write() that keep a recording's counts of extra
    entries lost."""
    x = rec.extras_header or {}
    return dict(extras_lost=x.get("extras_lost", 0),
                ctrl_drops=x.get("ctrl_drops", 0),
                keep_drops=x.get("keep_drops", 0))


def copy(src, dst, *, force=False, partial=False):
    """Copies a recording after checking it: a complete one as it is; one the
    recorder did not finish only with partial (then its whole records, and
    the copy marked complete). Returns the number of records copied."""
    with open_recording(src) as rec:
        if not rec.complete and not partial:
            raise RecordingError(f"{rec.path}: the recorder did not finish "
                                 f"it (partial to copy its "
                                 f"{len(rec)} whole records)")
        meta = dict(rec.meta)
        if not rec.complete:
            meta["copied_from_partial"] = True
        h = rec.header
        write(dst, meta, rec.records,
              ring_drops=h["ring_drops"], not_written=h["not_written"],
              end_ns=h["end_ns"], ifaces_lost=h["ifaces_lost"], force=force,
              extras=rec.extras, **extra_counts(rec))
        return len(rec)
