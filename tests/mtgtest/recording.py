# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings (Documentation/recording-format.rst), read the way the
format promises a reader can: the 64-byte header with struct, the metadata
with json, and the records mapped by numpy with the dtype the metadata
spells out; nothing else of mtg is needed."""

import json
import os
import struct

import numpy as np

MAGIC = b"\x89MTGREC\n"
HEADER = struct.Struct("<8sIIIIQQQQII")
F_COMPLETE = 1


class RecordingError(ValueError):
    pass


def dtype_of(meta):
    """The numpy dtype of the records, from the metadata."""
    fields = []
    for f in meta["record"]["dtype"]:
        fields.append((f[0], f[1]) if len(f) == 2 else
                      (f[0], f[1], tuple(f[2])))
    return np.dtype(fields)


class Recording:
    """header: dict of the fixed header's fields; meta: the metadata;
    records: a numpy structured array mapped from the file (read-only)."""

    def __init__(self, path):
        self.path = str(path)
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(HEADER.size)
            if not head.startswith(MAGIC[:len(head)]) or not head:
                raise RecordingError(f"{path}: not an mtg recording")
            if len(head) < HEADER.size:
                raise RecordingError(f"{path}: truncated header")
            (magic, version, header_bytes, record_bytes, flags, records,
             not_written, ring_drops, end_ns, meta_bytes, _) = \
                HEADER.unpack(head)
            if version != 1:
                raise RecordingError(f"{path}: format version {version}")
            if size < header_bytes or header_bytes < 64 + meta_bytes:
                raise RecordingError(f"{path}: truncated")
            self.meta = json.loads(f.read(meta_bytes).decode())
        self.header = dict(version=version, header_bytes=header_bytes,
                           record_bytes=record_bytes, flags=flags,
                           records=records, not_written=not_written,
                           ring_drops=ring_drops, end_ns=end_ns,
                           meta_bytes=meta_bytes)
        self.complete = bool(flags & F_COMPLETE)
        body = size - header_bytes
        self.partial = body % record_bytes
        n = body // record_bytes
        if self.complete and (n, self.partial) != (records, 0):
            raise RecordingError(f"{path}: the header counts {records} "
                                 f"records, the file holds {n}")
        dtype = dtype_of(self.meta)
        if dtype.itemsize != record_bytes:
            raise RecordingError(f"{path}: records of {record_bytes} bytes, "
                                 f"the dtype has {dtype.itemsize}")
        self.records = (np.memmap(path, dtype=dtype, mode="r",
                                  offset=header_bytes, shape=(n,))
                        if n else np.zeros(0, dtype=dtype))

    def __len__(self):
        return len(self.records)

    def close(self):
        """Let go of the mapping (the file can then be removed, its file
        system unmounted)."""
        self.records = np.zeros(0, dtype=self.records.dtype)
