# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings (Documentation/recording-format.rst): opened as a numpy
structured array mapped from the file, or a pandas DataFrame over the same
memory; written (by copy and filter) the way mtgctl writes them, never over
an existing file unless asked."""

import contextlib
import json
import os
import stat
import struct
import tempfile

import numpy as np

MAGIC = b"\x89MTGREC\n"
HEADER = struct.Struct("<8sIIIIQQQQII")
VERSION = 1
F_COMPLETE = 1
PAGE = 4096

# Record flags (struct mtg_rx_rec.flags); the metadata spells them too.
STAMP_MASK = 0x3
STAMP_NAMES = ("hook", "sw", "hw", "unknown")   # 3: no source has it
F_IPV6 = 0x4
F_HDR_CORRUPT = 0x8
F_CSUM_BAD = 0x10
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


class RecordingError(ValueError):
    """A file that is not a recording this reader can trust, or a write
    that could not be done; the message names the file and what is wrong."""


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
# below, where present, have these types (unknown keys are ignored); ctl/
# recording.c checks the same. A type is a tuple: ("int", lo, hi), ("num",),
# ("str",), ("bool",), ("const", value), ("obj", {key: (type, required)}),
# ("list", item type), ("map",) (an object of anything), ("any",),
# ("null", type) (that or null), ("or", a, b).

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
    patt=_obj(kind=STR, value=UINT, seed=UINT), mac=("null", STR))
RECORD_FLAGS = {"stamp_mask": STAMP_MASK, "stamp_hook": 0, "stamp_sw": 1,
                "stamp_hw": 2, "ipv6": F_IPV6, "hdr_corrupt": F_HDR_CORRUPT,
                "csum_bad": F_CSUM_BAD}
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
    tgs=("list", TG_META), filtered=MAP, copied_from_partial=BOOL)


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
        if self.complete and n < h["records"]:
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

    def _check_header(self, head, size):
        if not head or not head.startswith(MAGIC[:len(head)]):
            raise RecordingError(f"{self.path}: not an mtg recording (no "
                                 f"\\x89MTGREC magic)")
        if len(head) < HEADER.size:
            raise RecordingError(f"{self.path}: truncated in its "
                                 f"{HEADER.size}-byte header")
        (_, version, header_bytes, record_bytes, flags, records, not_written,
         ring_drops, end_ns, meta_bytes, ifaces_lost) = HEADER.unpack(head)
        if version != VERSION:
            raise RecordingError(f"{self.path}: format version {version}; "
                                 f"this mtgsap reads version {VERSION}")
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
    """Opens a recording; RecordingError says why it cannot be."""
    return Recording(path)


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


def write(path, meta, records, *, ring_drops=0, not_written=0, end_ns=0,
          ifaces_lost=0, force=False):
    """Writes a complete recording of `records` (a structured array of the
    current dtype, in memory or mapped: it is written in slices) with
    `meta`, whole or not at all (new_file)."""
    path = os.fspath(path)
    if records.dtype != RECORD_DTYPE:
        raise RecordingError(f"{path}: records must have the version "
                             f"{VERSION} dtype")
    meta = dict(meta, format="mtg-recording", version=VERSION)
    meta["record"] = dict(meta.get("record") or {}, bytes=RECORD_DTYPE.itemsize,
                          dtype=DTYPE_V1)
    meta_raw = json.dumps(meta, separators=(",", ":")).encode()
    header_bytes = -(-(HEADER.size + len(meta_raw)) // PAGE) * PAGE
    head = HEADER.pack(MAGIC, VERSION, header_bytes, RECORD_DTYPE.itemsize,
                       F_COMPLETE, len(records), not_written, ring_drops,
                       end_ns, len(meta_raw), ifaces_lost)
    with new_file(path, force) as (f, _):
        f.write(head + meta_raw)
        f.write(b"\0" * (header_bytes - len(head) - len(meta_raw)))
        # Large writes; the little-endian dtype is the file's layout.
        step = 1 << 16
        for i in range(0, len(records), step):
            f.write(records[i:i + step].tobytes())
    return path


def copy(src, dst, *, force=False, partial=False):
    """Copies a recording after checking it: a complete one as it is; one the
    recorder did not finish only with partial (then its whole records, and
    the copy marked complete). Returns the number of records copied."""
    with Recording(src) as rec:
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
              end_ns=h["end_ns"], ifaces_lost=h["ifaces_lost"], force=force)
        return len(rec)
