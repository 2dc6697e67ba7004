# SPDX-License-Identifier: GPL-2.0-or-later
"""The recording format (Documentation/recording-format.rst) without the
module: files written here by the format's description are read by
`mtgctl info` and by numpy alike; truncated, foreign and damaged files are
refused with a message that says what is wrong."""

import json
import pathlib
import struct
import subprocess

import numpy as np
import pytest

from mtgwitness import abi
from mtgsap.recording import (HEADER, MAGIC, Recording, RecordingError,
                              copy)

DTYPE = np.dtype(abi.RxRec)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def meta(**extra):
    fields = []
    for name in DTYPE.names:
        base, shape = DTYPE.fields[name][0].base, DTYPE.fields[name][0].shape
        fields.append([name, base.str] + ([list(shape)] if shape else []))
    return dict(format="mtg-recording", version=1,
                record={"bytes": DTYPE.itemsize, "dtype": fields}, **extra)


def records(flows):
    """Records for (run, tg, [seq...]) flows, 1 ms apart, 200 bytes."""
    out = []
    t = 10**15
    for run_id, tg, seqs in flows:
        for seq in seqs:
            r = np.zeros(1, DTYPE)[0]
            r["seq"], r["run_id"], r["tg_id"] = seq, run_id, tg
            r["tx_ns"], r["rx_ns"] = t, t + 5_000 + seq
            r["len"], r["payload_len"] = 200, 70
            r["flags"] = abi.RX_STAMP_SW
            out.append(r)
            t += 1_000_000
    return np.array(out, DTYPE)


def write_recording(path, recs, complete=True, version=1, extra=b"",
                    header_records=None, ifaces_lost=0):
    body = json.dumps(meta()).encode()
    header_bytes = -(-(64 + len(body)) // 4096) * 4096
    head = HEADER.pack(MAGIC, version, header_bytes, 96,
                       1 if complete else 0,
                       len(recs) if header_records is None else header_records,
                       0, 0, 0, len(body), ifaces_lost)
    data = (head + body).ljust(header_bytes, b"\0") + recs.tobytes() + extra
    path.write_bytes(data)
    return data


def info(mtgctl, path, *args):
    return subprocess.run([mtgctl, "info", str(path), *args],
                          capture_output=True, text=True)


def test_info_counts_as_a_run_does(mtgctl, tmp_path):
    """Two flows: one with a gap, a duplicate and a late arrival."""
    path = tmp_path / "a.rec"
    write_recording(path, records([(7, 1, [0, 1, 3, 2, 3, 4]),
                                   (7, 2, [0, 1, 2])]))
    r = info(mtgctl, path, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["complete"], out["records"], out["partial_bytes"],
            out["hdr_corrupt"]) == (True, 9, 0, 0)
    one, two = out["flows"]
    assert (one["tg_id"], one["received"], one["duplicates"],
            one["reordered"], one["gaps"]) == (1, 5, 1, 1, 0)
    assert (two["received"], two["duplicates"], two["reordered"]) == (3, 0, 0)
    assert one["bits"] == 6 * 70 * 8
    # One-way delays 5 us and some: the mean is exact.
    assert one["owd_ns"]["mean"] == 5_000 + sum([0, 1, 3, 2, 4]) // 5
    # numpy reads the same file with nothing but the metadata's dtype.
    rec = Recording(path)
    assert len(rec) == 9 and rec.complete
    assert list(rec.records["seq"][:6]) == [0, 1, 3, 2, 3, 4]
    text = info(mtgctl, path).stdout
    assert "mtg recording, format 1, complete" in text
    assert "run 7 tg 1: 5 received, 0 lost (gaps), 1 duplicates, 1 reordered" in text


def test_unfinished_recording_is_read_as_far_as_it_goes(mtgctl, tmp_path):
    """No COMPLETE flag (the recorder died): the whole records count."""
    path = tmp_path / "a.rec"
    write_recording(path, records([(1, 1, range(4))]), complete=False,
                    header_records=0, extra=b"x" * 50)
    out = json.loads(info(mtgctl, path, "--json").stdout)
    assert (out["complete"], out["records"], out["partial_bytes"]) == \
        (False, 4, 50)
    assert out["not_written"] is None
    assert "not finished" in info(mtgctl, path).stdout
    assert len(Recording(path)) == 4


@pytest.mark.parametrize("complete", [True, False],
                         ids=["finished", "unfinished"])
def test_interfaces_gone(mtgctl, tmp_path, complete):
    """The header's ifaces_lost (reserved, 0, in older files): mtgctl info
    and mtgsap read it, finished or not (the recorder writes it when an
    interface goes), and a copy keeps it."""
    path = tmp_path / "a.rec"
    write_recording(path, records([(1, 1, range(4))]), complete=complete,
                    ifaces_lost=2)
    out = json.loads(info(mtgctl, path, "--json").stdout)
    assert (out["complete"], out["ifaces_lost"]) == (complete, 2)
    assert "interfaces that went away while it recorded: 2 " in \
        info(mtgctl, path).stdout
    assert Recording(path).header["ifaces_lost"] == 2
    copy(path, tmp_path / "b.rec", partial=True)
    assert Recording(tmp_path / "b.rec").header["ifaces_lost"] == 2
    write_recording(path, records([(1, 1, range(4))]), complete=complete)
    assert json.loads(info(mtgctl, path, "--json").stdout)["ifaces_lost"] == 0
    assert "went away" not in info(mtgctl, path).stdout


def cut(tmp_path, n):
    path = tmp_path / "a.rec"
    data = write_recording(path, records([(1, 1, range(3))]))
    path.write_bytes(data[:n])
    return path


@pytest.mark.parametrize("make, message", [
    (lambda p: cut(p, 4096 + 2 * 96 + 50),
     "truncated: the header says 3 records, the file holds 2 and part of another"),
    (lambda p: cut(p, 4096 + 96),
     "truncated: the header says 3 records, the file holds 1"),
    (lambda p: cut(p, 30),
     "truncated: 30 bytes, not even the 64-byte header"),
    (lambda p: cut(p, 500),
     "truncated: 500 bytes, the header and metadata alone take 4096"),
    (lambda p: cut(p, 0), "empty: not an mtg recording"),
    (lambda p: cut(p, 3), None),
    (lambda p: (p / "a.rec").write_bytes(b"\xd4\xc3\xb2\xa1" + bytes(60)),
     "not an mtg recording (no \\x89MTGREC\\n at its start)"),
    (lambda p: (p / "a.rec").write_text("tgid 1 dev eth0\n" * 10),
     "not an mtg recording (no \\x89MTGREC\\n at its start)"),
    (lambda p: write_recording(p / "a.rec", records([]), version=3),
     "a recording of format version 3; this mtgctl reads versions 1 and 2"),
    (lambda p: write_recording(p / "a.rec", records([(1, 1, [0])]),
                               extra=b"\0" * 10),
     "10 bytes follow the 1 records the header counts"),
], ids=["mid-record", "record boundary", "in the header",
        "in the metadata", "empty", "three bytes", "pcap", "text",
        "version 3", "trailing bytes"])
def test_bad_files_are_refused(mtgctl, tmp_path, make, message):
    make(tmp_path)
    path = tmp_path / "a.rec"
    r = info(mtgctl, path)
    assert r.returncode == 1 and r.stdout == ""
    if message is None:
        # Three bytes of the magic: too short to be anything.
        message = "truncated: 3 bytes, not even the 64-byte header"
    assert r.stderr == f"mtgctl: {path}: {message}\n"
    with pytest.raises(RecordingError):
        Recording(path)


def test_not_a_file(mtgctl, tmp_path):
    r = info(mtgctl, tmp_path)
    assert (r.returncode, r.stderr) == \
        (1, f"mtgctl: {tmp_path}: not a regular file\n")
    r = info(mtgctl, tmp_path / "none.rec")
    assert r.returncode == 1
    assert r.stderr == (f"mtgctl: cannot open {tmp_path / 'none.rec'}: "
                        "No such file or directory\n")


def test_header_is_64_bytes():
    assert HEADER.size == 64 and struct.calcsize("<8s") == len(MAGIC)
    assert DTYPE.itemsize == 96


def test_the_documented_reader_runs(tmp_path, monkeypatch):
    """Documentation/recording-format.rst's numpy example, as written,
    on a recording of five packets."""
    page = (ROOT / "Documentation/recording-format.rst").read_text()
    block = page.split(".. code-block:: python\n", 1)[1]
    code = "\n".join(line[3:] for line in
                     block.split("\n\n(")[0].splitlines()).strip()
    write_recording(tmp_path / "loop.rec", records([(3, 1, range(5))]))
    monkeypatch.chdir(tmp_path)
    printed = []
    exec(compile(code, "recording-format.rst", "exec"),
         {"print": printed.append})
    assert len(printed) == 1
    assert list(printed[0]) == [5_002.0, 5_003.96]
