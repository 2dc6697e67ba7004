# SPDX-License-Identifier: GPL-2.0-or-later
"""Every reader of a recording against damaged ones: a corpus made here,
with fixed seeds, from a good recording (truncated files, random bytes,
wild values in sound records, bad metadata, things that are not files)
and from a good version 2 one, with an extra section (a damaged section,
entries of wild lengths, headers that contradict it), given to every
mtgsap command and to `mtgctl info`.

A damaged file is refused: exit status 1, one line that names the file and
what is wrong (the same thing for mtgsap and mtgctl), no traceback, and no
output file left behind. A file whose records hold wild but well-formed
values is either analysed (exit 0, nothing on standard error) or refused
in the same way, as Documentation/analysis.rst says for each command.

The mtgsap commands run in a forked child of this process (mtgsap is
imported once) with at most MEMORY_LIMIT more address space than this
process and TIME_LIMIT seconds: the corpus's files are small, so a command
that needs more does work the data does not bound."""

import io
import json
import os
import resource
import signal
import struct
import subprocess
import sys
import traceback

import numpy as np
import pytest

import mtgsap
from mtgsap import cli
from mtgsap.recording import (EXTRA_CTRL, EXTRA_F_CUT, EXTRA_HEAD,
                              EXTRA_HEADER, EXTRA_PAYLOAD, EXTRA_RATE,
                              EXTRA_WRONG_BITS, F_HDR_CORRUPT, F_KEPT,
                              HEADER, MAGIC, NO_RECORD, Extra, empty,
                              rate_extra)
from mtgtest.sample import flow

# Imported once, here, rather than in every forked child.
for _name in cli.COMMANDS:
    cli.module(_name)

T0 = 1_800_000_000 * 10**9
S = 10**9
MS = 10**6
MEMORY_LIMIT = 3 << 30
TIME_LIMIT = 60

IDF = """listen lr0@lab-rx
netns lab-tx
dev la0
time relative 1s 6s
tgid 1 dst 10.0.1.2:9001 pkts fixed 200 200 dist fixed thro 160k patt incremental 0
tgid 2 dst 10.0.1.2:9002 pkts fixed 250 250 dist poisson thro 62500 patt random seed 7
"""
# Record flags as mtgctl's metadata spells them (ctl/rx/recformat.c).
RECORD_FLAGS = {"stamp_mask": 3, "stamp_hook": 0, "stamp_sw": 1,
                "stamp_hw": 2, "ipv6": 4, "hdr_corrupt": 8, "csum_bad": 16,
                "kept": 32, "keep_lost": 64}


def good_records(seed=17):
    """TG 1: 100 packets/s for 5 s (seq 200 lost, 300 twice, 3 wrong bits
    in each of five others); TG 2: Poisson, mean gap 32 ms; two records
    whose header failed its CRC."""
    rng = np.random.default_rng(seed)
    r1 = flow(rng, 1, T0 + S + np.arange(500) * 10 * MS, 70, 5, 0.5)
    r1["wrong_bits"][[10, 120, 310, 400, 450]] = 3
    r1 = np.concatenate([r1[r1["seq"] != 200], r1[r1["seq"] == 300]])
    r1["rx_ns"][-1] += 50_000
    gaps = rng.exponential(32 * MS, 400).astype(np.int64)
    sched2 = T0 + S + np.cumsum(gaps)
    r2 = flow(rng, 2, sched2[sched2 < T0 + 6 * S], 120, 8, 0.5)
    bad = empty(2)
    bad["flags"] = 1 | F_HDR_CORRUPT
    bad["rx_ns"] = T0 + np.array([2, 4]) * S
    bad["len"], bad["iface"] = 200, 1
    r = np.concatenate([r1, r2, bad])
    return r[np.argsort(r["rx_ns"], kind="stable")]


@pytest.fixture(scope="module")
def good(mtgctl, tmp_path_factory):
    """A recording as `mtgctl run` writes it (its TGs as `mtgctl check
    --json` gives them): (path, metadata, records)."""
    d = tmp_path_factory.mktemp("good")
    (d / "t.idf").write_text(IDF)
    res = subprocess.run([mtgctl, "check", "--json", "t.idf"], cwd=d,
                         capture_output=True, text=True, check=True)
    meta = dict(
        command="run", mtgctl="0.1.0", abi={"major": 1, "minor": 2},
        run_id=7, start_ns=T0,
        host={"name": "lab-1", "kernel": "6.1.0-56-amd64",
              "kernel_version": "#1 SMP", "machine": "x86_64"},
        clock={"id": "CLOCK_TAI", "synchronised": True, "tai_offset_s": 37,
               "maxerror_us": 16000, "esterror_us": 0},
        record={"flags": RECORD_FLAGS}, ring_records=65536,
        passthrough=False,
        interfaces=[{"id": 1, "dev": "lr0", "netns": "lab-rx",
                     "ifindex": 7}],
        idf={"file": "t.idf", "text": IDF, "includes": []},
        tgs=json.loads(res.stdout)["tgs"])
    for tg in meta["tgs"]:
        del tg["table"]["entries"]      # a recording leaves them out
    path = d / "good.rec"
    recs = good_records()
    mtgsap.write(path, meta, recs, end_ns=T0 + 7 * S)
    with mtgsap.open(path) as rec:
        return path, dict(rec.meta), np.array(rec.records)


def good_extras(recs):
    """What a version 2 recording of the good records holds after them:
    two control messages, TG 1's first payload, the wrong bits'
    positions of its five packets that had some (the last list cut) and
    a change of TG 1's throughput (x2, by a command)."""
    def kept(i, typ, data, count, flags=0):
        r = recs[i]
        return Extra(typ, flags, i, int(r["rx_ns"]), int(r["seq"]), 0, 7,
                     int(r["tg_id"]), 0, 0, count, data)

    out = [Extra(EXTRA_CTRL, 0, NO_RECORD, T0 + 2 * S, 0, T0 + 2 * S - MS,
                 7, 1, 1, 1, 5, b"hello"),
           Extra(EXTRA_CTRL, 0, NO_RECORD, T0 + 3 * S, 0, T0 + 3 * S - MS,
                 7, 2, 1, 1, 3, b"\x00\xff\n")]
    first = int(np.flatnonzero(recs["tg_id"] == 1)[0])
    out.append(kept(first, EXTRA_PAYLOAD, bytes(range(70)), 70))
    wrong = np.flatnonzero(recs["wrong_bits"] > 0)
    for k, i in enumerate(wrong):
        n = 2 if k == len(wrong) - 1 else 3         # the last one cut
        out.append(kept(int(i), EXTRA_WRONG_BITS,
                        np.array([8 * k, 8 * k + 3, 500][:n],
                                 "<u4").tobytes(), 3,
                        EXTRA_F_CUT if n < 3 else 0))
    out.append(rate_extra(1, T0 + 4 * S, 2, 1, "command", 7))
    return sorted(out, key=lambda e: e.rx_ns)


@pytest.fixture(scope="module")
def good2(good, tmp_path_factory):
    """The good recording as version 2: its records (those kept marked),
    then an extra section; an interface went away. (path, metadata,
    records)."""
    path, meta, recs = good
    recs = recs.copy()
    extras = good_extras(recs)
    for e in extras:
        if e.record != NO_RECORD:
            recs["flags"][e.record] |= F_KEPT
    p = tmp_path_factory.mktemp("good2") / "good2.rec"
    mtgsap.write(p, meta, recs, end_ns=T0 + 7 * S, extras=extras,
                 ctrl_drops=1, keep_drops=2, extras_lost=3, ifaces_lost=1)
    with mtgsap.open(p) as rec:
        assert rec.header["version"] == 2 and rec.extras == extras
        return p, dict(rec.meta), np.array(rec.records)


# --- making damaged files ----------------------------------------------------------

def assemble(meta, recs, *, meta_raw=None, version=1, record_bytes=96,
             flags=1, records=None, header_bytes=None, meta_bytes=None):
    """A recording's bytes from its parts; the header's fields can lie."""
    raw = meta_raw if meta_raw is not None else \
        json.dumps(meta, separators=(",", ":")).encode()
    hb = header_bytes or -(-(64 + len(raw)) // 4096) * 4096
    body = recs.tobytes() if isinstance(recs, np.ndarray) else recs
    head = HEADER.pack(MAGIC, version, hb, record_bytes, flags,
                       len(body) // 96 if records is None else records,
                       0, 0, T0 + 7 * S,
                       len(raw) if meta_bytes is None else meta_bytes, 0)
    return (head + raw).ljust(hb, b"\0")[:max(hb, 64 + len(raw))] + body


def where(recs, tg, seq):
    return int(np.flatnonzero((recs["tg_id"] == tg) &
                              (recs["seq"] == seq))[0])


def with_record(field, value, tg=1, seq=250):
    """TG 1's packet 250 (its neighbours were received) with field set."""
    def make(data, meta, recs):
        recs = recs.copy()
        recs[field][where(recs, tg, seq)] = value
        return assemble(meta, recs)
    return make


def with_meta(change):
    def make(data, meta, recs):
        m = json.loads(json.dumps(meta))
        change(m)
        return assemble(m, recs)
    return make


def setter(*path_value):
    *path, value = path_value

    def change(m):
        node = m
        for k in path[:-1]:
            node = node[k]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return with_meta(change)


DELETE = object()


def raw_meta(edit):
    """The metadata's bytes edited (edit(bytes) -> bytes), meta_bytes
    following them."""
    def make(data, meta, recs):
        raw = json.dumps(meta, separators=(",", ":")).encode()
        return assemble(None, recs, meta_raw=edit(raw))
    return make


def header_field(offset, fmt, value):
    def make(data, meta, recs):
        data = bytearray(data)
        struct.pack_into(fmt, data, offset, value)
        return bytes(data)
    return make


def random_bytes(lo, hi, seed):
    """Bytes lo..hi of the file (hi < 0: from the end) replaced by random
    ones (rng seed)."""
    def make(data, meta, recs):
        data = bytearray(data)
        end = hi if hi > 0 else len(data) + hi
        data[lo:end] = np.random.default_rng(seed).bytes(end - lo)
        return bytes(data)
    return make


def random_records(seed):
    def make(data, meta, recs):
        r = np.frombuffer(np.random.default_rng(seed).bytes(recs.nbytes),
                          recs.dtype).copy()
        return assemble(meta, r)
    return make


def one_random_record(seed):
    """TG 1's packet 250 replaced by random bytes with a sound header
    and a sequence number that is plausible but far beyond the rest."""
    def make(data, meta, recs):
        recs = recs.copy()
        i = where(recs, 1, 250)
        rng = np.random.default_rng(seed)
        recs[i:i + 1] = np.frombuffer(rng.bytes(96), recs.dtype)
        recs["flags"][i] &= ~np.uint16(F_HDR_CORRUPT)
        recs["seq"][i] = rng.integers(2**40, 2**62)
        return assemble(meta, recs)
    return make


def all_seq_huge(tg):
    def make(data, meta, recs):
        recs = recs.copy()
        mine = (recs["tg_id"] == tg) & (recs["flags"] & F_HDR_CORRUPT == 0)
        recs["seq"][mine] += np.uint64(2**63)
        return assemble(meta, recs)
    return make


def cut(n):
    return lambda data, meta, recs: data[:n] if n >= 0 else data[:n]


class V2:
    """A damage done to the good version 2 recording (make(data, meta,
    recs) with its bytes, metadata and records)."""

    def __init__(self, make):
        self.make = make

    def __call__(self, data, meta, recs):
        return self.make(data, meta, recs)


def section_at(data):
    """Where a version 2 file's extra section starts."""
    h = HEADER.unpack_from(data)
    return h[2] + h[5] * h[3]


def in_section(offset, fmt, value):
    """A field of the extra section (offset from its header's start; its
    first entry's head is at 64) set to value."""
    def make(data, meta, recs):
        data = bytearray(data)
        struct.pack_into(fmt, data, section_at(data) + offset, value)
        return bytes(data)
    return V2(make)


def cut_section(n):
    """The version 2 file cut n bytes into its extra section."""
    return V2(lambda data, meta, recs: data[:section_at(data) + n])


def random_section(seed):
    """The extra section's entries replaced by random bytes."""
    def make(data, meta, recs):
        data = bytearray(data)
        at = section_at(data) + EXTRA_HEADER.size
        data[at:] = np.random.default_rng(seed).bytes(len(data) - at)
        return bytes(data)
    return V2(make)


def with_entry(of=EXTRA_WRONG_BITS, data_at=None, **fields):
    """The head of the first entry of type `of` (a wrong-bit list's) with
    these fields (bytes, type, record, data_len, ...) set; its data as it
    was but from data_at on (offset, struct format, value)."""
    names = ("bytes", "type", "flags", "record", "rx_ns", "seq", "tx_ns",
             "run_id", "tg_id", "iface", "rx_flags", "count", "data_len",
             "reserved")

    def make(data, meta, recs):
        data = bytearray(data)
        pos = section_at(data) + EXTRA_HEADER.size
        while EXTRA_HEAD.unpack_from(data, pos)[1] != of:
            pos += EXTRA_HEAD.unpack_from(data, pos)[0]
        head = dict(zip(names, EXTRA_HEAD.unpack_from(data, pos)))
        head.update(fields)
        EXTRA_HEAD.pack_into(data, pos, *head.values())
        if data_at:
            offset, fmt, value = data_at
            struct.pack_into(fmt, data, pos + EXTRA_HEAD.size + offset,
                             value)
        return bytes(data)
    return V2(make)


def with_rate(data_at=None, **fields):
    """The rate change's entry, as with_entry() changes it."""
    return with_entry(EXTRA_RATE, data_at, **fields)


def v2_header(version, flags):
    def make(data, meta, recs):
        data = bytearray(data)
        struct.pack_into("<I", data, 8, version)
        struct.pack_into("<I", data, 20, flags)
        return bytes(data)
    return V2(make)


def v2_meta(change):
    """The version 2 file with its metadata changed, the rest as it was."""
    def make(data, meta, recs):
        m = json.loads(json.dumps(meta))
        change(m)
        raw = json.dumps(m, separators=(",", ":")).encode()
        h = HEADER.unpack_from(data)
        assert 64 + len(raw) <= h[2]
        head = bytearray(data[:64])
        struct.pack_into("<I", head, 56, len(raw))
        return (bytes(head) + raw).ljust(h[2], b"\0") + data[h[2]:]
    return V2(make)


def foreign_dtype(meta):
    meta["record"]["dtype"] = [[f"f{i}", "<u8"] for i in range(12)]


def dtype_type(name, new):
    def change(meta):
        for f in meta["record"]["dtype"]:
            if f[0] == name:
                f[1] = new
    return with_meta(change)


class Refused:
    """Refused by every reader; `what` is in every message."""

    def __init__(self, what):
        self.what = what


class Wild:
    """Well-formed records: analysed, except by the commands of refuse
    (command -> what the message says)."""

    def __init__(self, **refuse):
        self.refuse = refuse


SPAN = "more than 1048576"
PLACE = "too few to place the lost ones"

CASES = {
    # truncated, or more than the header says
    "empty": (cut(0), Refused("not an mtg recording")),
    "cut in the header": (cut(40), Refused("truncated")),
    "cut in the metadata": (cut(1000), Refused("truncated")),
    "cut mid-record": (cut(-50), Refused("truncated")),
    "cut at a record": (cut(-96), Refused("truncated")),
    "trailing bytes": (lambda d, m, r: d + b"\0" * 10,
                       Refused("10 bytes")),
    # the fixed header
    "magic": (random_bytes(0, 8, 1), Refused("not an mtg recording")),
    "header random": (random_bytes(8, 64, 2), Refused("version")),
    "version 2": (header_field(8, "<I", 2), Refused("version 2")),
    "header_bytes": (header_field(12, "<I", 4097),
                     Refused("damaged header")),
    "record_bytes": (header_field(16, "<I", 95), Refused("95")),
    "meta_bytes": (header_field(56, "<I", 100000), Refused("damaged header")),
    "more records": (header_field(24, "<Q", 10**6), Refused("truncated")),
    # the metadata's bytes
    "metadata random": (random_bytes(64, 300, 3),
                        Refused("damaged metadata")),
    "metadata cut": (raw_meta(lambda b: b[:-10]),
                     Refused("damaged metadata")),
    "not UTF-8": (raw_meta(lambda b: b.replace(b"lab-1", b"lab\xff1")),
                  Refused("damaged metadata")),
    "NaN": (raw_meta(lambda b: b.replace(b'"run_id":7', b'"run_id":NaN')),
            Refused("damaged metadata")),
    "key twice": (raw_meta(lambda b: b.replace(b'"run_id":7',
                                               b'"run_id":7,"run_id":8')),
                  Refused("damaged metadata")),
    "a list": (raw_meta(lambda b: b"[" + b + b"]"),
               Refused("damaged metadata")),
    "a string": (raw_meta(lambda b: b'"mtg-recording"'),
                 Refused("damaged metadata")),
    # the metadata's values
    "start_ns yesterday": (setter("start_ns", "yesterday"),
                           Refused("damaged metadata: start_ns")),
    "start_ns 1e300": (setter("start_ns", 1e300),
                       Refused("damaged metadata: start_ns")),
    "start_ns negative": (setter("start_ns", -5),
                          Refused("damaged metadata: start_ns")),
    "start_ns 2^63": (setter("start_ns", 2**63),
                      Refused("damaged metadata: start_ns")),
    "start_ns true": (setter("start_ns", True),
                      Refused("damaged metadata: start_ns")),
    "run_id 2^32": (setter("run_id", 2**32),
                    Refused("damaged metadata: run_id")),
    "command 5": (setter("command", 5), Refused("damaged metadata: command")),
    "tgs nope": (setter("tgs", "nope"), Refused("damaged metadata: tgs")),
    "tgs of numbers": (setter("tgs", [1]),
                       Refused("damaged metadata: tgs[0]")),
    "tg id a string": (setter("tgs", 0, "id", "x"),
                       Refused("damaged metadata: tgs[0].id")),
    "tg without id": (setter("tgs", 1, "id", DELETE),
                      Refused("damaged metadata: tgs[1].id")),
    "tg pkts": (setter("tgs", 0, "pkts", "max", "big"),
                Refused("damaged metadata: tgs[0].pkts.max")),
    "tg patt": (setter("tgs", 1, "patt", "value", "x"),
                Refused("damaged metadata: tgs[1].patt.value")),
    "tg thro": (setter("tgs", 0, "thro", "req", -1),
                Refused("damaged metadata: tgs[0].thro.req")),
    "tg table": (setter("tgs", 0, "table", "mean_gap_ns", "num", "x"),
                 Refused("damaged metadata: tgs[0].table.mean_gap_ns.num")),
    "tg dist": (setter("tgs", 0, "dist", 3),
                Refused("damaged metadata: tgs[0].dist")),
    "tg dist_params": (setter("tgs", 0, "dist_params", [1]),
                       Refused("damaged metadata: tgs[0].dist_params")),
    "tg src": (setter("tgs", 0, "src", 5),
               Refused("damaged metadata: tgs[0].src")),
    "interfaces": (setter("interfaces", {"a": 1}),
                   Refused("damaged metadata: interfaces")),
    "interface id": (setter("interfaces", 0, "id", 70000),
                     Refused("damaged metadata: interfaces[0].id")),
    "interface dev": (setter("interfaces", 0, "dev", 5),
                      Refused("damaged metadata: interfaces[0].dev")),
    "host": (setter("host", "x"), Refused("damaged metadata: host")),
    "clock": (setter("clock", "tai_offset_s", "37"),
              Refused("damaged metadata: clock.tai_offset_s")),
    "idf": (setter("idf", 5), Refused("damaged metadata: idf")),
    "filtered": (setter("filtered", 5), Refused("damaged metadata: filtered")),
    "format": (setter("format", "other"), Refused("damaged metadata: format")),
    "no format": (setter("format", DELETE),
                  Refused("damaged metadata: format")),
    "meta version": (setter("version", 2),
                     Refused("damaged metadata: version")),
    "no record": (setter("record", DELETE),
                  Refused("damaged metadata: record")),
    "dtype a string": (setter("record", "dtype", "x"),
                       Refused("damaged metadata: record.dtype")),
    "foreign dtype": (with_meta(foreign_dtype),
                      Refused("damaged metadata: record.dtype")),
    "seq signed": (dtype_type("seq", "<i8"),
                   Refused("damaged metadata: record.dtype")),
    "record bytes": (setter("record", "bytes", 95),
                     Refused("damaged metadata: record.bytes")),
    "record flags": (setter("record", "flags", "hdr_corrupt", 16),
                     Refused("damaged metadata: record.flags.hdr_corrupt")),
    "record flag kept": (setter("record", "flags", "kept", 1),
                         Refused("damaged metadata: record.flags.kept")),
    "tg keep": (setter("tgs", 0, "keep", "payload", "yes"),
                Refused("damaged metadata: tgs[0].keep.payload")),
    "tg keep a list": (setter("tgs", 1, "keep", [1]),
                       Refused("damaged metadata: tgs[1].keep")),
    # version 2: its header, its metadata
    "v2 without EXTRAS": (v2_header(2, 1),
                          Refused("version 2 without the EXTRAS flag")),
    "v2 unfinished": (v2_header(2, 2),
                      Refused("version 2 without the COMPLETE flag")),
    "v2 said version 1": (v2_header(1, 3),
                          Refused("version 1 with the EXTRAS flag")),
    "v2 as version 1": (v2_header(1, 1), Refused("damaged metadata: version")),
    "v2 meta version 1": (v2_meta(lambda m: m.update(version=1)),
                          Refused("damaged metadata: version is 1, but the "
                                  "header says 2")),
    "v2 meta flag keep_lost": (
        v2_meta(lambda m: m["record"]["flags"].update(keep_lost="x")),
        Refused("damaged metadata: record.flags.keep_lost")),
    # version 2: its extra section
    "v2 cut after the records": (cut_section(0), Refused("truncated")),
    "v2 cut in the section header": (cut_section(30), Refused("truncated")),
    "v2 cut in an entry": (cut_section(100),
                           Refused("truncated: the extra section says")),
    "v2 trailing bytes": (V2(lambda d, m, r: d + b"\0" * 8),
                          Refused("damaged: the extra section says")),
    "v2 section magic": (in_section(0, "8s", b"\x89MTGXXX\n"),
                         Refused("damaged: no extra section")),
    "v2 section bytes": (in_section(16, "<Q", 10),
                         Refused("damaged: the extra section says 10 "
                                 "bytes")),
    "v2 section bytes 2^64-1": (in_section(16, "<Q", 2**64 - 1),
                                Refused("truncated: the extra section "
                                        "says")),
    "v2 entries": (in_section(8, "<Q", 99),
                   Refused("the extra section says 99 entries, it holds 9")),
    "v2 entry length 0": (with_entry(bytes=0),
                          Refused(": its length is 0, not a multiple of 8 "
                                  "from 64")),
    "v2 entry length 12": (with_entry(bytes=12),
                           Refused(": its length is 12, not a multiple of 8 "
                                   "from 64")),
    "v2 entry past the end": (with_entry(bytes=2**32 - 8),
                              Refused(": its length 4294967288 goes past the "
                                      "section's end")),
    "v2 entry data_len": (with_entry(data_len=2**32 - 1),
                          Refused(": 4294967295 bytes of data do not make "
                                  "its length 80")),
    "v2 entry padding": (with_entry(data_len=0),
                         Refused(": 0 bytes of data do not make its length "
                                 "80")),
    "v2 entry of no record": (with_entry(record=2**64 - 2),
                              Refused(": it is of record "
                                      "18446744073709551614, the file has")),
    "v2 positions": (with_entry(data_len=10),
                     Refused(": 10 bytes of wrong bits' positions, not a "
                             "multiple of 4")),
    "v2 random entries": (random_section(6),
                          Refused("damaged extra entry at byte 0 of the "
                                  "section")),
    # version 2: a rate change's entry
    "v2 rate num 0": (with_rate((0, "<I", 0)),
                      Refused(": a rate change of x0/1, not num/den from 1 "
                              "to 65536")),
    "v2 rate den 65537": (with_rate((4, "<I", 65537)),
                          Refused(": a rate change of x2/65537, not num/den "
                                  "from 1 to 65536")),
    "v2 rate by 9": (with_rate((8, "<H", 9)),
                     Refused(": a rate change by 9, not 1 (key), 2 "
                             "(command) or 3 (restart)")),
    "v2 rate reserved": (with_rate((10, "<H", 1)),
                         Refused(": a rate change whose reserved bytes are "
                                 "not 0")),
    "v2 rate reserved2": (with_rate((12, "<I", 1)),
                          Refused(": a rate change whose reserved bytes are "
                                  "not 0")),
    "v2 rate of a record": (with_rate(record=0),
                            Refused(": a rate change of record 0, not of "
                                    "none (2^64 - 1)")),
    "v2 rate of 12 bytes": (with_rate(data_len=12),
                            Refused(": a rate change of 12 bytes of data, "
                                    "not 16")),
    # not a file
    "a FIFO": ("fifo", Refused("not a regular file")),
    "a directory": ("dir", Refused("not a regular file")),
    # wild values in well-formed records
    "seq 2^64-1": (with_record("seq", 2**64 - 1), Wild()),
    "seq 2^63+5000": (with_record("seq", 2**63 + 5000), Wild()),
    "every seq of TG 2 huge": (all_seq_huge(2), Wild()),
    "rx_ns 0": (with_record("rx_ns", 0),
                Wild(windows=SPAN, plot=SPAN)),
    "rx_ns 2^64-1": (with_record("rx_ns", 2**64 - 1),
                     Wild(windows=SPAN, plot=SPAN)),
    "sched_ns 2^64-1": (with_record("sched_ns", 2**64 - 1),
                        Wild(g821=SPAN)),
    "tx_ns 0": (with_record("tx_ns", 0), Wild()),
    "stamp source 3": (with_record("flags", 3), Wild()),
    "payload 0": (with_record("payload_len", 0), Wild()),
    "one random record": (one_random_record(4),
                          Wild(g821=PLACE, windows=PLACE, plot=PLACE)),
    "random records": (random_records(5),
                       Wild(g821=PLACE, windows=PLACE, plot=PLACE,
                            fit="no records of TG 1")),
    # an extra entry of a type a later version may bring: skipped
    "v2 entry of an unknown type": (with_entry(type=9), Wild()),
}


@pytest.fixture(scope="module")
def corpus(good, good2, tmp_path_factory):
    """The damaged files, by case: c0.rec, c1.rec, ..."""
    d = tmp_path_factory.mktemp("corpus")
    files = {}
    for k, (name, (make, _)) in enumerate(CASES.items()):
        path, meta, recs = good2 if isinstance(make, V2) else good
        p = d / f"c{k}.rec"
        if make == "fifo":
            os.mkfifo(p)
        elif make == "dir":
            p.mkdir()
        else:
            p.write_bytes(make(path.read_bytes(), meta, recs))
        files[name] = p
    return files


# --- running the readers ---------------------------------------------------------------

def vm_size():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def limited(fn, cwd):
    """fn() in a forked child in cwd, within MEMORY_LIMIT and TIME_LIMIT,
    its standard output and error caught; its exit status is what fn
    returns, or 1 after an uncaught exception, whose traceback it prints
    (as Python does). Returns (exit status or "killed by signal N",
    stdout, stderr)."""
    out, err = cwd / ".stdout", cwd / ".stderr"
    limit = vm_size() + MEMORY_LIMIT
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(cwd)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            signal.alarm(TIME_LIMIT)
            for fd, name in ((1, out), (2, err)):
                f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(f, fd)
                os.close(f)
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False))
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False))
            try:
                code = fn()
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)
    _, status = os.waitpid(pid, 0)
    texts = [p.read_text(errors="replace") for p in (out, err)]
    out.unlink()
    err.unlink()
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}", *texts
    return os.WEXITSTATUS(status), *texts


def mtgsap_run(argv, cwd):
    """`mtgsap argv`, as the command line runs it, within the limits."""
    return limited(lambda: cli.main([str(a) for a in argv]), cwd)


COMMANDS = {
    "info": lambda f: ["info", f],
    "copy": lambda f: ["copy", f, "out.rec"],
    "filter": lambda f: ["filter", f, "--where", "owd > 5ms", "-o",
                         "out.rec"],
    "stats": lambda f: ["stats", f, "owd", "jitter_owd", "seq", "t"],
    "flows": lambda f: ["flows", f],
    "ber": lambda f: ["ber", f, "--window", "1s"],
    "g821": lambda f: ["g821", f],
    "windows": lambda f: ["windows", f, "--window", "1s"],
    "fit": lambda f: ["fit", f, "--tg", "1", "--model",
                      "constant:value=10ms"],
    "plot": lambda f: ["plot", f, "windows", "--window", "1s", "-o",
                       "out.png"],
    "export": lambda f: ["export", f, "-o", "out.pcapng"],
    "ctrl": lambda f: ["ctrl", f],
    "kept": lambda f: ["kept", f],
}


def check_refusal(code, out, err, prefix, names, what):
    assert code == 1, (code, err)
    assert out == ""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), err
    assert names in lines[0], err
    assert what in lines[0], err


@pytest.mark.parametrize("version", [1, 2])
def test_the_good_recording_is_analysed(good, good2, mtgctl, tmp_path,
                                        version):
    """Every command reads the good ones (the corpus's references)."""
    path = good[0] if version == 1 else good2[0]
    for command, argv in COMMANDS.items():
        (tmp_path / command).mkdir()
        code, out, err = mtgsap_run(argv(path), tmp_path / command)
        assert (code, err) == (0, ""), command
        assert out
    res = subprocess.run([mtgctl, "info", path, "--json"],
                         capture_output=True, text=True)
    assert (res.returncode, res.stderr) == (0, "")
    info = json.loads(res.stdout)
    assert (info["version"], info["ifaces_lost"]) == (version, version - 1)
    if version == 2:
        assert {k: info["extras"][k] for k in
                ("entries", "payloads", "wrong_bit_lists", "not_written",
                 "ctrl_drops", "keep_drops")} == \
            dict(entries=9, payloads=1, wrong_bit_lists=5, not_written=3,
                 ctrl_drops=1, keep_drops=2)
        assert [(c["tg_id"], c["at_ns"], c["num"], c["den"], c["by"])
                for c in info["extras"]["rate_changes"]] == \
            [(1, T0 + 4 * S, 2, 1, "command")]
        assert [bytes.fromhex(c["hex"]) for c in info["extras"]["ctrl"]] == \
            [b"hello", b"\x00\xff\n"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CASES)
def test_mtgsap_on_the_corpus(corpus, tmp_path, case, command):
    path = corpus[case]
    expect = CASES[case][1]
    code, out, err = mtgsap_run(COMMANDS[command](path), tmp_path)
    what = expect.what if isinstance(expect, Refused) else \
        expect.refuse.get(command)
    if what is None:
        assert (code, err) == (0, ""), err
        return
    # --tg names the file as given on the command line; the rest by path.
    names = path.name if what.startswith("no records of TG") else str(path)
    check_refusal(code, out, err, f"mtgsap {command}: ", names, what)
    assert os.listdir(tmp_path) == [], "an output was left behind"


@pytest.mark.parametrize("case", CASES)
def test_mtgctl_info_on_the_corpus(mtgctl, corpus, case):
    path = corpus[case]
    expect = CASES[case][1]
    for extra in ((), ("--json",)):
        res = subprocess.run([mtgctl, "info", path, *extra],
                             capture_output=True, text=True, timeout=60)
        if isinstance(expect, Wild):
            assert (res.returncode, res.stderr) == (0, "")
            continue
        check_refusal(res.returncode, res.stdout, res.stderr, "mtgctl: ",
                      str(path), expect.what)


# --- what the wild values give -------------------------------------------------------

def flows_json(path, tmp_path):
    code, out, err = mtgsap_run(["flows", path, "--json"], tmp_path)
    assert code == 0, err
    return {f["tg"]: f for f in json.loads(out)["flows"]}


def info_json(mtgctl, path):
    res = subprocess.run([mtgctl, "info", path, "--json"],
                         capture_output=True, text=True, check=True)
    return {f["tg_id"]: f for f in json.loads(res.stdout)["flows"]}


def json_of(argv, tmp_path):
    code, out, err = mtgsap_run([*argv, "--json"], tmp_path)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("seq", [2**63, 2**63 + 5000, 2**64 - 1])
def test_an_implausible_sequence_number_is_counted_apart(good, mtgctl,
                                                          tmp_path, seq):
    """A sender cannot have sent 2^63 packets: a record whose sound header
    says so is counted as implausible and is otherwise as if it had not
    come (its packet is lost), in mtgsap and in mtgctl alike; nothing
    wraps."""
    path, meta, recs = good
    i = where(recs, 1, 250)
    wild, absent = recs.copy(), np.delete(recs, i)
    wild["seq"][i] = seq
    (tmp_path / "wild.rec").write_bytes(assemble(meta, wild))
    (tmp_path / "absent.rec").write_bytes(assemble(meta, absent))
    a, b = (flows_json(tmp_path / f"{n}.rec", tmp_path)
            for n in ("wild", "absent"))
    assert (a[1]["implausible"], b[1]["implausible"]) == (1, 0)
    assert a[1]["records"] == b[1]["records"] + 1
    for k in ("received", "lost", "duplicates", "reordered", "bit_errors",
              "bits", "bytes", "owd_mean", "owd_max"):
        assert a[1][k] == b[1][k], k
    assert (a[1]["received"], a[1]["lost"]) == (498, 2)
    assert a[2] == b[2]
    # mtgctl counts the same.
    ca, cb = (info_json(mtgctl, tmp_path / f"{n}.rec")
              for n in ("wild", "absent"))
    assert (ca[1]["implausible"], ca[1]["received"], ca[1]["gaps"]) == \
        (1, a[1]["received"], a[1]["lost"])
    assert {k: v for k, v in ca[1].items() if k not in
            ("records", "implausible")} == \
        {k: v for k, v in cb[1].items() if k not in
         ("records", "implausible")}
    text = subprocess.run([mtgctl, "info", tmp_path / "wild.rec"],
                          capture_output=True, text=True).stdout
    assert "run 7 tg 1: 498 received, 2 lost (gaps), 1 duplicates, " \
        "0 reordered, 15 bit_errors, 1 implausible" in text
    # G.821 and the windows: as without the record.
    for argv in (["g821"], ["windows", "--window", "1s"]):
        assert json_of([argv[0], tmp_path / "wild.rec", *argv[1:]],
                       tmp_path) == \
            json_of([argv[0], tmp_path / "absent.rec", *argv[1:]], tmp_path)


def test_a_flow_of_implausible_records_only(good, mtgctl, tmp_path):
    path, meta, recs = good
    p = tmp_path / "huge.rec"
    p.write_bytes(all_seq_huge(2)(None, meta, recs))
    n2 = int(((recs["tg_id"] == 2) & (recs["flags"] & F_HDR_CORRUPT == 0))
             .sum())
    f = flows_json(p, tmp_path)[2]
    assert (f["records"], f["implausible"], f["received"], f["lost"],
            f["bits"]) == (n2, n2, 0, 0, 0)
    c = info_json(mtgctl, p)[2]
    assert (c["records"], c["implausible"], c["received"], c["gaps"]) == \
        (n2, n2, 0, 0)
    g = json_of(["g821", p, "--tg", "2"], tmp_path)["tgs"]
    assert [(t["tg"], t["seconds"]) for t in g] == [(2, 0)]


def test_where_compares_large_values_exactly(good, tmp_path):
    """seq 2^64 - 1 is greater than 100 (no cast through int64)."""
    path, meta, recs = good
    wild = recs.copy()
    wild["seq"][where(recs, 1, 250)] = 2**64 - 1
    p = tmp_path / "w.rec"
    p.write_bytes(assemble(meta, wild))
    data = json_of(["filter", p, "--where", "seq > 1000", "-o",
                    tmp_path / "f.rec"], tmp_path)
    assert data["records"] == 1
    with mtgsap.open(tmp_path / "f.rec") as rec:
        assert rec.records["seq"].tolist() == [2**64 - 1]


def test_unknown_stamp_source_is_named(good, tmp_path):
    p = tmp_path / "s.rec"
    p.write_bytes(with_record("flags", 3)(None, good[1], good[2]))
    stamps = json_of(["info", p], tmp_path)["stamps"]
    assert stamps == {"sw": len(good[2]) - 1, "unknown": 1}


def test_a_flow_from_other_records_is_refused(good, tmp_path):
    """g821, windows and ber_windows index the records with the flow's
    indices: records of another array are refused, not misread."""
    _, _, recs = good
    other = recs[::-1].copy()

    def calls():
        f = next(f for f in mtgsap.flows(recs) if f.tg_id == 1)
        for call in (lambda r: mtgsap.g821(r, f, T0),
                     lambda r: mtgsap.windows(r, [f], S, T0),
                     lambda r: mtgsap.meter.ber_windows(r, f, S, T0)):
            with pytest.raises(mtgsap.meter.AnalysisError,
                               match="TG 1: the flow was found in other "
                                     "records"):
                call(other)
            call(recs)              # its own records: fine
        return 0

    code, out, err = limited(calls, tmp_path)
    assert (code, err) == (0, ""), err


# --- limits: the work is bounded by the data ---------------------------------------

@pytest.mark.parametrize("argv, what", [
    (["windows", "--window", "1ns"], "--window 1ns: "),
    (["plot", "windows", "--window", "1us", "-o", "x.png"], "--window 1us: "),
    (["fit", "--hurst", "--bin", "1ns"], "--bin 1ns: "),
    (["stats", "rx_ns", "--pmf", "--bin-width", "1"], "--bin-width 1: "),
    (["stats", "owd", "--pmf", "--bins", "1000000000"],
     "--bins 1000000000: "),
    (["plot", "sending", "--tg", "1", "--bins", "1000000000", "-o",
      "x.png"], "--bins 1000000000: "),
])
def test_too_many_bins_are_refused(good, tmp_path, argv, what):
    """A window, bin or bin width that would make more than 2^20 of them
    is refused, saying how many it would make."""
    code, out, err = mtgsap_run([argv[0], good[0], *argv[1:]], tmp_path)
    check_refusal(code, out, err, f"mtgsap {argv[0]}: ", "", what)
    assert "more than 1048576" in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("command", [
    ["filter", "-o", "x.rec"], ["stats", "owd"], ["flows"], ["ber"],
    ["g821"], ["windows", "--window", "1s"], ["fit"],
    ["plot", "delay", "-o", "x.png"], ["export", "-o", "x.csv"], ["ctrl"],
    ["kept"]])
def test_a_tg_not_in_the_recording(good, tmp_path, command):
    """Every command that takes --tg says the same of a TG the recording
    does not have, and makes nothing."""
    path = good[0]
    code, out, err = mtgsap_run([command[0], path, "--tg", "1,9",
                                 *command[1:]], tmp_path)
    check_refusal(code, out, err, f"mtgsap {command[0]}: ",
                  "--tg 1,9: no records of TG 9 in good.rec", "")
    assert os.listdir(tmp_path) == []


def test_not_a_regular_file_does_not_block(mtgctl, tmp_path):
    """Opening a FIFO would wait for a writer: it is refused first."""
    fifo = tmp_path / "f.rec"
    os.mkfifo(fifo)
    res = subprocess.run([sys.executable, "-m", "mtgsap", "info", fifo],
                         capture_output=True, text=True, timeout=60)
    assert (res.returncode, res.stderr) == \
        (1, f"mtgsap info: {fifo}: not a regular file\n")
    res = subprocess.run([mtgctl, "info", fifo], capture_output=True,
                         text=True, timeout=60)
    assert (res.returncode, res.stderr) == \
        (1, f"mtgctl: {fifo}: not a regular file\n")

