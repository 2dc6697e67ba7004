# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings (Documentation/recording-format.rst): opened as a numpy
structured array mapped from the file, or a pandas DataFrame over the same
memory; written (by copy and filter) the way mtgctl writes them, never over
an existing file unless asked."""

import contextlib
import json
import os
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
STAMP_NAMES = ("hook", "sw", "hw")
F_IPV6 = 0x4
F_HDR_CORRUPT = 0x8
F_CSUM_BAD = 0x10

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
            size = os.path.getsize(self.path)
            with open(self.path, "rb") as f:
                head = f.read(HEADER.size)
                self._check_header(head, size)
                meta_raw = f.read(self.header["meta_bytes"])
        except OSError as e:
            raise RecordingError(f"{self.path}: {e.strerror}") from None
        try:
            self.meta = json.loads(meta_raw.decode())
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise RecordingError(f"{self.path}: damaged metadata: {e}") \
                from None
        if not isinstance(self.meta, dict) or \
                self.meta.get("format") != "mtg-recording":
            raise RecordingError(f"{self.path}: the metadata does not say "
                                 f"format \"mtg-recording\"")
        try:
            dtype = dtype_of(self.meta["record"]["dtype"])
        except (KeyError, TypeError):
            raise RecordingError(f"{self.path}: the metadata has no record "
                                 f"dtype") from None
        h = self.header
        if dtype.itemsize != h["record_bytes"]:
            raise RecordingError(f"{self.path}: records of "
                                 f"{h['record_bytes']} bytes, but the dtype "
                                 f"has {dtype.itemsize}")
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
        self.records = (np.memmap(self.path, dtype=dtype, mode="r",
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
         ring_drops, end_ns, meta_bytes, _) = HEADER.unpack(head)
        if version != VERSION:
            raise RecordingError(f"{self.path}: format version {version}; "
                                 f"this mtgsap reads version {VERSION}")
        if (header_bytes % PAGE or header_bytes < HEADER.size + meta_bytes or
                not record_bytes):
            raise RecordingError(f"{self.path}: damaged header "
                                 f"(header_bytes {header_bytes}, meta_bytes "
                                 f"{meta_bytes}, record_bytes {record_bytes})")
        if size < header_bytes:
            raise RecordingError(f"{self.path}: truncated: {size} bytes, the "
                                 f"records start at {header_bytes}")
        self.header = dict(version=version, header_bytes=header_bytes,
                           record_bytes=record_bytes, flags=flags,
                           records=records, not_written=not_written,
                           ring_drops=ring_drops, end_ns=end_ns,
                           meta_bytes=meta_bytes)

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
          force=False):
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
                       end_ns, len(meta_raw), 0)
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
              end_ns=h["end_ns"], force=force)
        return len(rec)
