# SPDX-License-Identifier: GPL-2.0-or-later
"""The recording format's extra section (version 2,
Documentation/recording-format.rst): control messages received, payloads
and wrong-bit positions kept, after the records. Written here by mtgsap
(the C writer is tested against the module, tests/vm/test_mtgctl_ctrl.py
and test_mtgctl_keep.py); read by `mtgctl info` and mtgsap alike. A file
without extras stays version 1, as every version 1 reader reads it; a
damaged section is refused by both readers, saying what is wrong."""

import json
import os
import subprocess

import numpy as np
import pytest

from mtgsap import cli
from mtgsap.recording import (EXTRA_CTRL, EXTRA_F_CUT, EXTRA_PAYLOAD,
                              EXTRA_WRONG_BITS, HEADER, NO_RECORD, Extra,
                              Recording, RecordingError, copy, empty, write)


def ctrl(tg, seq, data, rx_ns=2_000_000_000):
    return Extra(EXTRA_CTRL, 0, NO_RECORD, rx_ns, seq, rx_ns - 1000, 7, tg,
                 1, 0, len(data), data)


def payload(record, tg, data):
    return Extra(EXTRA_PAYLOAD, 0, record, 0, record, 0, 7, tg, 1, 0,
                 len(data), data)


def bits(record, tg, positions, count=None):
    data = np.array(positions, "<u4").tobytes()
    n = len(positions) if count is None else count
    return Extra(EXTRA_WRONG_BITS, EXTRA_F_CUT if n > len(positions) else 0,
                 record, 0, record, 0, 7, tg, 1, 0, n, data)


def recs(n=6):
    r = empty(n)
    r["run_id"] = 7
    r["tg_id"] = [1, 2] * (n // 2)
    r["seq"] = np.arange(n) // 2
    r["rx_ns"] = 1_000_000_000 + np.arange(n) * 1000
    r["tx_ns"] = r["rx_ns"] - 500
    return r


EXTRAS = [ctrl(1, 0, b"hello \"world\"\n"), payload(2, 1, b"\x00\x01\xfe"),
          bits(3, 2, [5, 700]), bits(5, 2, [1, 2], count=9),
          ctrl(2, 0, bytes(range(256)) * 4)]


def save(tmp_path, extras=EXTRAS, **kw):
    path = tmp_path / "x.rec"
    write(path, {"start_ns": 1_000_000_000}, recs(), extras=extras, **kw)
    return path


def info(mtgctl, path, *args):
    return subprocess.run([mtgctl, "info", str(path), *args],
                          capture_output=True, text=True)


def test_without_extras_a_file_stays_version_1(tmp_path):
    """What every reader of version 1 reads: version 1, no flag, nothing
    after the records."""
    path = save(tmp_path, extras=())
    head = HEADER.unpack(path.read_bytes()[:64])
    assert head[1] == 1 and head[4] == 1        # version, flags: COMPLETE
    assert os.path.getsize(path) == head[2] + 6 * 96
    assert Recording(path).extras == []


def test_both_readers_read_the_extras(mtgctl, tmp_path):
    path = save(tmp_path, ctrl_drops=3, keep_drops=4, extras_lost=5)
    rec = Recording(path)
    assert rec.header["version"] == 2 and rec.meta["version"] == 2
    assert rec.extras == EXTRAS
    assert len(rec) == 6 and list(rec.records["seq"]) == [0, 0, 1, 1, 2, 2]
    assert rec.extras[3].cut and list(rec.extras[2].positions) == [5, 700]
    assert [m.data for m in rec.control_messages({2})] == \
        [bytes(range(256)) * 4]

    r = info(mtgctl, path, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["version"] == 2 and out["records"] == 6
    x = out["extras"]
    assert (x["entries"], x["payloads"], x["wrong_bit_lists"],
            x["not_written"], x["ctrl_drops"], x["keep_drops"]) == \
        (5, 1, 2, 5, 3, 4)
    assert [(c["tg_id"], bytes.fromhex(c["hex"])) for c in x["ctrl"]] == \
        [(1, b'hello "world"\n'), (2, bytes(range(256)) * 4)]
    # the flows are counted from the records alone
    assert [f["received"] for f in out["flows"]] == [3, 3]
    text = info(mtgctl, path).stdout
    assert "format 2, complete" in text
    assert 'tg 1 seq 0, received 2000000000 (CLOCK_TAI), 14 bytes ' \
        '"hello \\"world\\"\\n"' in text
    assert "extra entries: 5 (2 control messages, 1 payloads, 2 wrong-bit " \
        "lists, 0 rate changes), 5 not written" in text


def test_interfaces_lost_and_entries_not_written_are_both_kept(
        mtgctl, tmp_path, capsys):
    """The header's word at offset 60 counts the interfaces that went
    away; the entries not written are the extra section's count: a
    version 2 file says both, and a copy keeps both."""
    path = save(tmp_path, extras_lost=5, ifaces_lost=2)
    head = HEADER.unpack(path.read_bytes()[:64])
    assert head[10] == 2
    for p in (path, tmp_path / "c.rec"):
        if p != path:
            copy(path, p)
        out = json.loads(info(mtgctl, p, "--json").stdout)
        assert (out["ifaces_lost"], out["extras"]["not_written"]) == (2, 5)
        assert cli.main(["info", str(p), "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert (got["ifaces_lost"], got["extras"]["not_written"]) == (2, 5)


def test_a_version_1_file_has_no_extras_in_info(mtgctl, tmp_path):
    out = json.loads(info(mtgctl, save(tmp_path, extras=()), "--json").stdout)
    assert out["version"] == 1 and out["extras"] is None


def test_copy_and_filter_keep_the_extras(tmp_path, capsys):
    path = save(tmp_path)
    assert copy(path, tmp_path / "c.rec") == 6
    assert Recording(tmp_path / "c.rec").extras == EXTRAS
    # TG 2's records are 1, 3, 5 of the source: 0, 1, 2 of the filtered
    # file; TG 1's payload and control message are left behind.
    assert cli.main(["filter", str(path), "--tg", "2", "-o",
                     str(tmp_path / "f.rec")]) == 0
    f = Recording(tmp_path / "f.rec")
    assert list(f.records["tg_id"]) == [2, 2, 2]
    assert [(e.type, e.record) for e in f.extras] == \
        [(EXTRA_WRONG_BITS, 1), (EXTRA_WRONG_BITS, 2),
         (EXTRA_CTRL, NO_RECORD)]
    capsys.readouterr()


def test_mtgsap_lists_the_control_messages(tmp_path, capsys):
    path = save(tmp_path)
    assert cli.main(["ctrl", str(path), "--tg", "1"]) == 0
    out = capsys.readouterr().out
    assert '"hello \\"world\\"\\n"' in out and "1 control messages" in out
    assert cli.main(["ctrl", str(path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [bytes.fromhex(c["hex"]) for c in got["ctrl"]] == \
        [e.data for e in EXTRAS if e.type == EXTRA_CTRL]


def test_ctrl_takes_a_tg_of_control_messages_only(tmp_path, capsys):
    """--tg of ctrl and kept: a TG with control messages but no records
    is the recording's; one with neither is refused, as by every
    command."""
    path = save(tmp_path, extras=EXTRAS + [ctrl(5, 0, b"only")])
    assert cli.main(["ctrl", str(path), "--tg", "5", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [bytes.fromhex(c["hex"]) for c in got["ctrl"]] == [b"only"]
    for command in ("ctrl", "kept"):
        assert cli.main([command, str(path), "--tg", "5,9"]) == 1
        assert capsys.readouterr().err == \
            f"mtgsap {command}: --tg 5,9: no records of TG 9 in x.rec\n"


def damage_section(path, offset, data):
    """Overwrite bytes of the extra section (offset from its start)."""
    rec = Recording(path)
    start = rec.extras_header["offset"] - 64
    with open(path, "r+b") as f:
        f.seek(start + offset)
        f.write(data)


@pytest.mark.parametrize("damage, c_says, py_says", [
    (lambda p: os.truncate(p, os.path.getsize(p) - 8),
     "truncated: the extra section says", "truncated: the extra section says"),
    (lambda p: open(p, "ab").write(b"\0" * 8),
     "damaged: the extra section says", "damaged: the extra section says"),
    (lambda p: damage_section(p, 0, b"\x89MTGXXX\n"),
     "damaged: no extra section", "damaged: no extra section"),
    (lambda p: damage_section(p, 64, (12).to_bytes(4, "little")),
     "damaged extra entry at byte 0 of the section",
     "damaged extra entry at byte 0 of the section"),
    (lambda p: damage_section(p, 64 + 56, (100).to_bytes(4, "little")),
     "damaged extra entry at byte 0 of the section",
     "damaged extra entry at byte 0 of the section"),
], ids=["cut", "trailing", "magic", "entry size", "data length"])
def test_a_damaged_section_is_refused(mtgctl, tmp_path, damage, c_says,
                                      py_says):
    path = save(tmp_path)
    damage(path)
    r = info(mtgctl, path)
    assert r.returncode == 1 and r.stdout == ""
    assert c_says in r.stderr, r.stderr
    with pytest.raises(RecordingError, match=py_says):
        Recording(path).extras


@pytest.mark.parametrize("version, flags, says", [
    (2, 0, "format version 2 without the COMPLETE flag"),
    (2, 1, "format version 2 without the EXTRAS flag"),
    (1, 3, "format version 1 with the EXTRAS flag"),
])
def test_inconsistent_headers_are_refused(mtgctl, tmp_path, version, flags,
                                          says):
    path = save(tmp_path)
    with open(path, "r+b") as f:
        f.seek(8)
        f.write(version.to_bytes(4, "little"))
        f.seek(20)
        f.write(flags.to_bytes(4, "little"))
    r = info(mtgctl, path)
    assert r.returncode == 1 and says in r.stderr, r.stderr
    with pytest.raises(RecordingError, match=says):
        Recording(path)
