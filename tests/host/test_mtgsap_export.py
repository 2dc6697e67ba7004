# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap export on recordings built here: CSV, JSON and Parquet hold the
records field by field; the pcapng file has Wireshark's structure and its
frames, decoded by scripts/mtgwitness/wire.py, carry the records' fields with
valid checksums and CRC (damage reproduced where the record reports it)
and payloads that regenerate from their pattern; outputs are never
overwritten without --force; the selection options are honoured."""

import csv
import ipaddress
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mtgsap
from mtgsap import cli, export
from mtgsap.recording import F_CSUM_BAD, F_HDR_CORRUPT, F_IPV6, empty
from mtgwitness import abi, wire

T0 = 1_800_000_000 * 10**9
MS = 10**6
HDRS4 = 14 + 20 + 8 + 88
HDRS6 = 14 + 40 + 8 + 88
GOLDEN = 0x9E3779B9
N_SOUND = 60


def tg(id, family, src, sport, dst, dport, patt, **extra):
    """A TG as mtgctl check --json shows it (ctl/traffic/tg_json.c), no
    table."""
    return dict(id=id, line=id, dev="la0", netns="lab-tx", cpu=None,
                family=family, src=dict(addr=src, port=sport),
                dst=dict(addr=dst, port=dport), tos=0, ttl=64,
                dist="constant", pkts=dict(max=1000, min=1000), thro=None,
                inta_ns=None, start_ns=0, duration_ns=10**10, count=0,
                patt=patt, seed=id, path="driver", mode="loop", late="catchup",
                mac=extra.pop("mac", None), threshold_ns=0, **extra)


TGS = [
    tg(1, "ipv4", "10.0.0.1", 5001, "10.0.1.2", 9001,
       dict(kind="random", value=0, seed=950706376), mac="02:00:5e:00:53:01"),
    tg(2, "ipv6", None, 5002, "fd00::2", 9002,
       dict(kind="incremental", value=250, seed=123)),
    tg(3, "ipv4", "10.0.0.1", 5003, "10.0.1.3", 9003,
       dict(kind="fixed", value=0xA5, seed=7)),
]


def meta(**extra):
    return dict(command="run", mtgctl="0.1.0", run_id=7, start_ns=T0,
                host={"name": "lab-1", "kernel": "6.1.0", "machine": "x86_64"},
                clock={"id": "CLOCK_TAI", "synchronised": True,
                       "tai_offset_s": 37},
                ring_records=65536, passthrough=False,
                interfaces=[{"id": 1, "dev": "lr0", "netns": "lab-rx",
                             "ifindex": 7},
                            {"id": 2, "dev": "lr1", "netns": None,
                             "ifindex": 8}],
                idf={"file": "t.idf", "text": "listen lr0@lab-rx\n"},
                tgs=TGS, **extra)


def records(seed=1):
    """N_SOUND sound records of TGs 1-4 (4 unknown to the metadata) with
    every field varied, then one header-corrupt, one csum_bad and one with
    wrong bits."""
    rng = np.random.default_rng(seed)
    n = N_SOUND + 3
    r = empty(n)
    r["tg_id"] = np.resize([1, 2, 3, 4], n)
    r["run_id"] = 7
    r["seq"] = rng.integers(0, 2**40, n)
    r["seq"][0] = 2**64 - 1             # the seed's arithmetic wraps
    r["sched_ns"] = T0 + np.sort(rng.integers(0, 10**10, n))
    r["tx_ns"] = r["sched_ns"] + rng.integers(0, 10**5, n)
    r["rx_ns"] = r["tx_ns"] + rng.integers(MS, 10 * MS, n)
    r["tp_ns"][::5, 1] = r["tx_ns"][::5] + 1000
    r["payload_len"] = rng.integers(0, 1400, n)
    r["payload_len"][1] = 1                 # odd lengths, tiny payloads
    r["payload_len"][2] = 0
    r["iface"] = np.resize([1, 1, 2], n)
    r["flags"] = rng.integers(0, 3, n)      # stamp: hook, sw, hw
    v6 = r["tg_id"] == 2
    r["flags"][v6] |= F_IPV6
    r["len"] = r["payload_len"] + np.where(v6, HDRS6, HDRS4)
    r["nut"] = rng.integers(0, 256, (n, 6))
    r["ttl"] = rng.integers(1, 256, n)
    r["tos"] = rng.integers(0, 256, n)
    bad = N_SOUND
    r["tg_id"][bad] = 0xDEADBEEF
    r["flags"][bad] |= F_HDR_CORRUPT
    r["wrong_bits"][bad] = 0
    r["flags"][bad + 1] |= F_CSUM_BAD
    r["wrong_bits"][bad + 2] = 17
    r["rx_ns"][bad + 2] = r["tx_ns"][bad + 2] + 9 * MS
    return r


@pytest.fixture
def rec_path(tmp_path):
    path = tmp_path / "t.rec"
    mtgsap.write(path, meta(), records())
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def export_to(capsys, rec_path, name, *opts):
    out = rec_path.parent / name
    code, stdout, err = run(capsys, "export", rec_path, "-o", out, *opts)
    assert code == 0, err
    return out, stdout


def sound(r):
    return (r["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) == 0


STAMPS = {0: "hook", 1: "sw", 2: "hw"}
SCALARS = ("rx_ns", "seq", "sched_ns", "tx_ns", "run_id", "tg_id",
           "wrong_bits", "len", "iface", "flags", "ttl", "tos", "payload_len")
COLUMNS = ["rx_ns", "seq", "sched_ns", "tx_ns", "tp0_ns", "tp1_ns", "tp2_ns",
           "tp3_ns", "run_id", "tg_id", "wrong_bits", "len", "iface", "flags",
           "nut", "ttl", "tos", "payload_len", "owd_ns", "hdr_corrupt",
           "csum_bad", "ipv6", "stamp"]


def expected(r):
    """A record's row as Python values (owd_ns None when it has none)."""
    row = {k: int(r[k]) for k in SCALARS}
    row.update({f"tp{i}_ns": int(r["tp_ns"][i]) for i in range(4)})
    row["nut"] = bytes(r["nut"]).hex()
    ok = not r["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)
    row["owd_ns"] = int(r["rx_ns"]) - int(r["tx_ns"]) if ok else None
    row["hdr_corrupt"] = bool(r["flags"] & F_HDR_CORRUPT)
    row["csum_bad"] = bool(r["flags"] & F_CSUM_BAD)
    row["ipv6"] = bool(r["flags"] & F_IPV6)
    row["stamp"] = STAMPS[int(r["flags"]) & 3]
    return row


# --- CSV, JSON, Parquet -----------------------------------------------------------

def test_csv_holds_the_records(capsys, rec_path):
    recs = records()
    out, stdout = export_to(capsys, rec_path, "t.csv")
    assert stdout == f"mtgsap: {len(recs)} of {len(recs)} records to " \
                     f"{out} (csv)\n"
    rows = csv_rows(out)
    assert list(rows[0]) == COLUMNS
    assert len(rows) == len(recs)
    for row, r in zip(rows, recs):
        want = expected(r)
        for k, v in want.items():
            if v is None:
                assert row[k] == "", k
            elif isinstance(v, bool):
                assert row[k] == str(int(v)), k
            elif isinstance(v, int):
                assert int(row[k]) == v, k
            else:
                assert row[k] == v, k


def test_json_holds_the_records_and_metadata(capsys, rec_path):
    recs = records()
    out, _ = export_to(capsys, rec_path, "t.json")
    doc = json.loads(out.read_text())
    assert set(doc) == {"meta", "header", "records"}
    assert doc["meta"] == mtgsap.open(rec_path).meta
    assert doc["header"]["records"] == len(recs) and doc["header"]["complete"]
    assert len(doc["records"]) == len(recs)
    for row, r in zip(doc["records"], recs):
        assert list(row) == COLUMNS
        want = expected(r)
        assert row == want
        # ints stay ints (no floats, exact at 2**64 - 1)
        assert all(type(row[k]) is int for k in SCALARS)


def test_parquet_holds_the_records_with_their_types(capsys, rec_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    recs = records()
    out, _ = export_to(capsys, rec_path, "t.parquet")
    table = pq.read_table(out)
    assert table.column_names == COLUMNS
    types = table.schema
    for k in ("rx_ns", "seq", "sched_ns", "tx_ns", "tp0_ns", "tp3_ns"):
        assert types.field(k).type == pa.uint64()
    assert types.field("run_id").type == pa.uint32()
    assert types.field("len").type == pa.uint16()
    assert types.field("ttl").type == pa.uint8()
    assert types.field("owd_ns").type == pa.int64()
    assert types.field("hdr_corrupt").type == pa.bool_()
    assert json.loads(types.metadata[b"mtg.meta"]) == \
        mtgsap.open(rec_path).meta
    assert table.to_pylist() == [expected(r) for r in recs]


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "pcapng"])
def test_chunks_change_nothing(capsys, rec_path, monkeypatch, fmt):
    """Written a few records at a time, the file is the same."""
    whole, _ = export_to(capsys, rec_path, f"whole.{fmt}")
    monkeypatch.setattr(export, "STEP", 7)
    monkeypatch.setattr(export, "FRAME_STEP", 5)
    parts, _ = export_to(capsys, rec_path, f"parts.{fmt}")
    if fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        assert pq.read_table(whole).equals(pq.read_table(parts))
    else:
        assert whole.read_bytes() == parts.read_bytes()


def test_write_csv_is_filters_csv(capsys, rec_path, tmp_path):
    with mtgsap.open(rec_path) as rec:
        mask = rec.records["tg_id"] == 3
        n = export.write_csv(rec, mask, tmp_path / "api.csv")
        assert n == int(mask.sum())
        with pytest.raises(mtgsap.RecordingError, match="exists"):
            export.write_csv(rec, mask, tmp_path / "api.csv")
    code, out, err = run(capsys, "filter", rec_path, "--tg", "3", "-o",
                         tmp_path / "f.csv")
    assert code == 0, err
    assert (tmp_path / "f.csv").read_bytes() == \
        (tmp_path / "api.csv").read_bytes()


# --- pcapng ------------------------------------------------------------------------

def read_frames(path):
    ifaces, packets = wire.read_pcapng(path)
    return ifaces, packets, [wire.parse_frame(p.data, p.ts_ns, p.orig_len)
                             for p in packets]


def test_pcapng_structure(capsys, rec_path):
    out, stdout = export_to(capsys, rec_path, "t.pcapng")
    assert stdout.endswith("(pcapng)\n")
    buf = out.read_bytes()
    # Every block: a multiple of 4 bytes, its length at both ends.
    pos, kinds = 0, []
    while pos < len(buf):
        kind, length = np.frombuffer(buf, "<u4", 2, pos)
        assert length % 4 == 0 and length >= 12
        assert np.frombuffer(buf, "<u4", 1, pos + length - 4)[0] == length
        kinds.append(int(kind))
        pos += int(length)
    assert pos == len(buf)
    assert kinds == [0x0A0D0D0A, 1, 1] + [6] * len(records())
    ifaces, packets = wire.read_pcapng(out)
    assert [i.linktype for i in ifaces] == [wire.LINKTYPE_ETHERNET] * 2
    assert [i.name for i in ifaces] == ["lr0", "lr1"]
    assert all(i.tsresol_ns == 1 and i.tsoffset_s == -37 for i in ifaces)


def test_pcapng_frames_are_the_records(capsys, rec_path):
    recs = records()
    out, _ = export_to(capsys, rec_path, "t.pcapng")
    ifaces, packets, frames = read_frames(out)
    assert len(frames) == len(recs)
    by_id = {t["id"]: t for t in TGS}
    for k, (p, fr, r) in enumerate(zip(packets, frames, recs)):
        what = f"record {k}"
        assert p.ts_ns == r["rx_ns"], what
        assert len(p.data) == p.orig_len == r["len"], what
        assert ifaces[p.iface].name == ("lr0", "lr1")[r["iface"] - 1], what
        h = fr.mtg
        assert h is not None, what
        assert (h.run_id, h.tg_id, h.seq, h.sched_ns, h.tx_ns) == \
            (r["run_id"], r["tg_id"], r["seq"], r["sched_ns"],
             r["tx_ns"]), what
        assert h.tp_ns == tuple(int(x) for x in r["tp_ns"]), what
        assert h.nut == bytes(r["nut"]), what
        assert h.magic == abi.HDR_MAGIC and h.version == abi.HDR_VERSION
        assert (fr.ttl, fr.tos) == (r["ttl"], r["tos"]), what
        assert fr.ip_version == (6 if r["flags"] & F_IPV6 else 4), what
        assert len(fr.body) == r["payload_len"], what
        # What the receive path would make of the frame is the record.
        view = wire.rx_view(p.data)
        assert view.flags == r["flags"] & (F_IPV6 | F_HDR_CORRUPT |
                                           F_CSUM_BAD), what
        t = by_id.get(int(r["tg_id"]))
        if r["flags"] & F_HDR_CORRUPT:
            assert fr.errors == ["bad MTG header CRC"], what
            assert p.comment == "mtg: hdr_corrupt"
            continue
        if r["flags"] & F_CSUM_BAD:
            assert fr.errors == ["bad UDP checksum"], what
            assert p.comment == "mtg: csum_bad"
        else:
            assert fr.ok, (what, fr.errors)
            assert h.crc_ok and h.valid, what
        assert view.wrong_bits == 0 and fr.body_wrong_bits() == 0, what
        if r["wrong_bits"]:
            assert p.comment == f"mtg: {r['wrong_bits']} wrong bits " \
                                f"(not reproduced)"
        elif not r["flags"] & F_CSUM_BAD:
            assert p.comment is None
        if t is None:           # unknown TG: the defaults, a zero payload
            v = 6 if r["flags"] & F_IPV6 else 4
            assert (str(fr.src), str(fr.dst)) == \
                export.DEFAULT_ADDR[v], what
            assert (fr.sport, fr.dport) == (9, 9)
            assert (h.patt_kind, h.patt_value) == (abi.PATT_FIXED, 0)
            assert fr.body == bytes(len(fr.body))
            assert fr.eth_dst == "02:00:00:00:00:02"
            continue
        src = t["src"]["addr"] or export.DEFAULT_ADDR[
            6 if t["family"] == "ipv6" else 4][0]
        assert fr.src == ipaddress.ip_address(src), what
        assert fr.dst == ipaddress.ip_address(t["dst"]["addr"]), what
        assert (fr.sport, fr.dport) == (t["src"]["port"],
                                        t["dst"]["port"]), what
        assert fr.eth_src == "02:00:00:00:00:01"
        assert fr.eth_dst == (t["mac"] or "02:00:00:00:00:02"), what
        kind = {"fixed": abi.PATT_FIXED, "random": abi.PATT_RANDOM,
                "incremental": abi.PATT_INCR}[t["patt"]["kind"]]
        assert (h.patt_kind, h.patt_value) == (kind, t["patt"]["value"])
        if kind == abi.PATT_RANDOM:
            # The packet's seed as kmod/mtg_tx.c derives it.
            assert h.patt_seed == (t["patt"]["seed"] + (int(r["seq"]) &
                                   0xFFFFFFFF) * GOLDEN) & 0xFFFFFFFF
        else:
            assert h.patt_seed == 0


def test_pcapng_random_payload_regenerates(capsys, tmp_path):
    """A long random payload, as the module's pattern would make it."""
    r = empty(3)
    r["tg_id"], r["run_id"], r["iface"] = 1, 7, 1
    r["seq"] = [0, 1, 12345]
    r["payload_len"] = [1450, 8950, 3]
    r["len"] = r["payload_len"] + HDRS4
    r["rx_ns"] = T0 + np.arange(3) * MS
    mtgsap.write(tmp_path / "r.rec", meta(), r)
    out, _ = export_to(capsys, tmp_path / "r.rec", "r.pcapng")
    _, packets, frames = read_frames(out)
    for fr, x in zip(frames, r):
        assert fr.ok, fr.errors
        assert fr.mtg.patt_kind == abi.PATT_RANDOM
        assert fr.body == wire.pattern_bytes(abi.PATT_RANDOM, 0,
                                             fr.mtg.patt_seed,
                                             int(x["payload_len"]))
        assert fr.body_wrong_bits() == 0


def test_pcapng_frame_takes_the_record_length(capsys, tmp_path):
    """len longer than the headers and payload_len: zeros after the
    pattern; shorter than the headers: the frame is cut."""
    r = empty(2)
    r["tg_id"], r["iface"] = 3, 1
    r["payload_len"] = [100, 100]
    r["len"] = [HDRS4 + 110, HDRS4 - 30]
    mtgsap.write(tmp_path / "l.rec", meta(), r)
    out, _ = export_to(capsys, tmp_path / "l.rec", "l.pcapng")
    _, packets, frames = read_frames(out)
    assert [len(p.data) for p in packets] == list(r["len"])
    assert frames[0].ok, frames[0].errors
    assert frames[0].body == b"\xa5" * 100 + bytes(10)
    cut, whole = packets[1].data, packets[0].data
    assert cut[:14] == whole[:14]                       # Ethernet
    assert cut[26:34] == whole[26:34]                   # IPv4 addresses
    assert wire.ones_complement_sum(cut[14:34]) == 0xFFFF


def test_pcapng_tg_addresses_as_strings(capsys, tmp_path):
    """TGs whose src and dst are "addr:port" strings (older metadata)."""
    r = empty(1)
    r["tg_id"], r["iface"], r["len"] = 1, 1, HDRS4
    m = meta()
    m["tgs"] = [{"id": 1, "src": "10.9.0.1:5001", "dst": "10.9.1.2:9001"}]
    mtgsap.write(tmp_path / "s.rec", m, r)
    out, _ = export_to(capsys, tmp_path / "s.rec", "s.pcapng")
    _, _, (fr,) = read_frames(out)
    assert fr.ok, fr.errors
    assert (str(fr.src), fr.sport, str(fr.dst), fr.dport) == \
        ("10.9.0.1", 5001, "10.9.1.2", 9001)


def test_pcapng_of_nothing(capsys, rec_path):
    # (--tg 99 is refused: the recording has no TG 99.)
    out, stdout = export_to(capsys, rec_path, "n.pcapng", "--where",
                            "tg_id == 99")
    assert stdout.startswith("mtgsap: 0 of ")
    assert wire.read_pcapng(out) == ([], [])


def test_crc32c_and_checksum_helpers():
    rows = np.frombuffer(b"123456789", np.uint8).reshape(1, 9)
    assert export.crc32c(rows)[0] == 0xE3069283
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, (20, 44), dtype=np.uint8)
    assert export.crc32c(data).tolist() == \
        [wire.crc32c(bytes(d)) for d in data]
    data = rng.integers(0, 256, (20, 100), dtype=np.uint8)
    assert export.inet_checksum(data[:, :40], data[:, 40:]).tolist() == \
        [wire.inet_checksum(bytes(d)) for d in data]


def test_pcapng_tshark_reads_it(capsys, rec_path):
    """Wireshark's own reader and dissectors (tshark, which make deps
    installs): every frame whole, UDP to the TG's port, the UDP checksum
    good but where the record says it was bad, nothing malformed."""
    out, _ = export_to(capsys, rec_path, "t.pcapng")
    res = subprocess.run(["tshark", "-r", out, "-o", "udp.check_checksum:TRUE",
                          "-T", "fields", "-E", "separator=,", "-e",
                          "frame.len", "-e", "udp.dstport", "-e",
                          "udp.checksum.status", "-e", "_ws.malformed"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    r = records()
    ports = {t["id"]: t["dst"]["port"] for t in TGS}
    want = [f"{n},{ports.get(tg, 9) if not f & F_HDR_CORRUPT else '*'},"
            f"{0 if f & F_CSUM_BAD else 1},"
            for n, tg, f in zip(r["len"].tolist(), r["tg_id"].tolist(),
                                r["flags"].tolist())]
    got = res.stdout.splitlines()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w if "*" not in w else g.split(",")[0] == w.split(",")[0]


# --- options -----------------------------------------------------------------------

def test_never_overwrites_without_force(capsys, rec_path, tmp_path):
    for ext in ("csv", "json", "parquet", "pcapng"):
        out = tmp_path / f"x.{ext}"
        out.write_bytes(b"keep")
        code, stdout, err = run(capsys, "export", rec_path, "-o", out)
        assert code == 1 and "exists" in err and "--force" in err
        assert out.read_bytes() == b"keep" and not stdout
        code, _, err = run(capsys, "export", rec_path, "-o", out, "--force")
        assert code == 0, err
        assert out.read_bytes() != b"keep"
    # No temporary file left behind.
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def test_parquet_without_pyarrow_is_a_clear_error(capsys, rec_path,
                                                  tmp_path, monkeypatch):
    """Debian 12 packages no pyarrow: python3-mtgsap says what is missing
    instead of a traceback, and writes nothing."""
    for mod in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, mod, None)     # import fails
    out = tmp_path / "x.parquet"
    code, stdout, err = run(capsys, "export", rec_path, "-o", out)
    assert code == 1 and not stdout
    assert err == ("mtgsap export: --format parquet needs pyarrow, which is "
                   "not installed (Debian 12 has no python3-pyarrow: pip "
                   "install pyarrow)\n")
    assert sorted(os.listdir(tmp_path)) == ["t.rec"]


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_selection_options(capsys, rec_path, tmp_path):
    recs = records()
    out, stdout = export_to(capsys, rec_path, "tg.csv", "--tg", "2,3")
    want = recs[np.isin(recs["tg_id"], [2, 3])]
    assert stdout == f"mtgsap: {len(want)} of {len(recs)} records to " \
                     f"{out} (csv)\n"
    assert [int(r["seq"]) for r in csv_rows(out)] == want["seq"].tolist()
    out, _ = export_to(capsys, rec_path, "w.csv", "--where",
                       "owd > 5ms and tg_id != 4")
    owd = recs["rx_ns"].astype(np.int64) - recs["tx_ns"].astype(np.int64)
    want = recs[sound(recs) & (owd > 5 * MS) & (recs["tg_id"] != 4)]
    assert 0 < len(want) < len(recs)
    assert [int(r["seq"]) for r in csv_rows(out)] == want["seq"].tolist()
    out, _ = export_to(capsys, rec_path, "w.json", "--where", "tg_id == 1")
    doc = json.loads(out.read_text())
    assert doc["meta"]["filtered"]["where"] == "tg_id == 1"
    assert [x["tg_id"] for x in doc["records"]] == \
        [1] * int((recs["tg_id"] == 1).sum())
    out, _ = export_to(capsys, rec_path, "w.pcapng", "--tg", "1")
    _, packets, frames = read_frames(out)
    assert {f.mtg.tg_id for f in frames} == {1}
    assert [p.ts_ns for p in packets] == \
        recs["rx_ns"][recs["tg_id"] == 1].tolist()


def test_format_from_extension_or_option(capsys, rec_path, tmp_path):
    code, _, err = run(capsys, "export", rec_path, "-o", tmp_path / "x.txt")
    assert code == 1 and "--format" in err
    assert not (tmp_path / "x.txt").exists()
    out, stdout = export_to(capsys, rec_path, "x.txt", "--format", "json")
    assert stdout.endswith("(json)\n")
    assert len(json.loads(out.read_text())["records"]) == len(records())
    out, _ = export_to(capsys, rec_path, "X.PCAPNG")
    assert out.read_bytes()[:4] == b"\x0a\x0d\x0d\x0a"
