# SPDX-License-Identifier: GPL-2.0-or-later
"""D-ITG's binary logs in mtgsap (mtgsap/ditg.py; Documentation/
analysis.rst, "D-ITG's logs"), against Debian's D-ITG 2.8.1:

- a real session (ITGRecv -l, ITGSend with four flows, one of them IPv6
  and two with the flow id 1, in the test's own network namespace when
  root, else on loopback): ITGDec's figures of its log equal mtgsap's on
  the same log, as far as the two define the same thing; the log's times
  are UTC whatever the time zone; mtgsap's export of the log is the log;
- a recording built here, exported with --format ditg: the real ITGDec's
  totals equal mtgsap's on the recording, the log read back holds the
  fields that survive, and a run across midnight UTC reads back whole
  (ITGDec makes the packets that crossed it a day early);
- damaged logs and what a log cannot hold: clear errors, no traceback,
  no file written."""

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import mtgsap
from mtgsap import cli, ditg
from mtgsap.recording import (F_CSUM_BAD, F_HDR_CORRUPT, F_IPV6,
                              RecordingError, empty)
from mtgtest.ditg import itgdec, need
from mtgtest.sample import flow, run_meta
from test_mtgsap import corrupt

S = 10**9
MS = 10**6
DAY = 86400 * S
TAI = 37
OVER4, OVER6 = 14 + 20 + 8, 14 + 40 + 8


def sap(*argv):
    """mtgsap ARGV in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def sap_json(*argv):
    code, out, err = sap(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def endpoint(end):
    return f"{end['addr']}:{end['port']}"


# --- a real session ----------------------------------------------------------

def free_port(kind=socket.SOCK_DGRAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SESSION = """\
set -e
{up}
ITGRecv -Sp {sig} -l recv.log > recv.out 2>&1 &
recv=$!
i=0
until ss -Hltn "sport = :{sig}" | grep -q .; do
    i=$((i + 1)); [ $i -lt 400 ] || exit 9; sleep 0.05
done
ITGSend flows -l send.log > send.out 2>&1
ITGSend -a 127.0.0.1 -Sdp {sig} -rp {p4} -T UDP -C 20 -c 100 -t 1000 \
    -l send2.log > send2.out 2>&1
# every packet logged by the senders is in ITGRecv's log (its buffers go
# out when a flow ends), or 30 s went by
i=0
while [ $(stat -c %s recv.log) -lt \
        $(( $(stat -c %s send.log) + $(stat -c %s send2.log) )) ]; do
    i=$((i + 1)); [ $i -lt 600 ] || break; sleep 0.05
done
kill $recv
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A D-ITG session as its users run one: ITGRecv logging, ITGSend
    with a script of three flows (constant; exponential gaps and uniform
    sizes from a fixed seed; constant over IPv6), then a second ITGSend
    whose one flow also has the id 1. Time zone Asia/Tokyo (UTC + 9 h)."""
    need("ITGSend", "ITGRecv", "ITGDec")
    d = tmp_path_factory.mktemp("ditg")
    sig = free_port(socket.SOCK_STREAM)
    p1, p2, p3, p4 = (free_port() for _ in range(4))
    (d / "flows").write_text(
        f"-a 127.0.0.1 -Sdp {sig} -rp {p1} -T UDP -C 100 -c 200 -t 3000\n"
        f"-a 127.0.0.1 -Sdp {sig} -rp {p2} -T UDP -E 50 -u 100 400 -s 0.25 "
        f"-t 3000\n"
        f"-a ::1 -Sdp {sig} -rp {p3} -T UDP -C 50 -c 300 -t 3000\n")
    root = os.geteuid() == 0
    script = SESSION.format(up="ip link set lo up" if root else "",
                            sig=sig, p4=p4)
    argv = (["unshare", "-n"] if root else []) + ["sh", "-c", script]
    began = time.time()
    subprocess.run(argv, cwd=d, check=True, timeout=120,
                   env=dict(os.environ, TZ="Asia/Tokyo"))
    return dict(dir=d, recv=d / "recv.log", send=d / "send.log",
                send2=d / "send2.log", began=began, ports=(p1, p2, p3, p4))


def test_itgdec_and_mtgsap_agree_on_a_real_log(session):
    """ITGDec's per-flow figures of ITGRecv's log and mtgsap's:

    - packets: ITGDec's count equals mtgsap's records; bytes: ITGDec's
      are the UDP payloads, mtgsap's the frames (+42 or +62 each);
    - dropped: the highest sequence number minus the packets (equal to
      mtgsap's lost when nothing was duplicated);
    - minimum, maximum, average delay and the flow's time: the same
      microseconds, ITGDec printing 6 decimals of seconds;
    - the delays' standard deviation: ITGDec's is the population's,
      mtgsap's the sample's (n - 1);
    - average jitter: ITGDec's is the mean |change of delay| between the
      flow's consecutive records in the log, mtgsap's windows the mean
      |IPDV| of consecutive sequence numbers: the same when the log has
      the flow's packets in sequence, which this test checks first.
    Flows are ITGDec's (flow id, addresses, ports): two ITGSend both
    numbered theirs 1, and mtgsap makes the later TG 4, its first free id."""
    dec, total = itgdec(session["recv"])
    with mtgsap.open(session["recv"]) as rec:
        tgs = {(endpoint(t["src"]), endpoint(t["dst"])): t
               for t in rec.meta["tgs"]}
        records = np.array(rec.records)
    assert sorted(tgs) == sorted(dec) and len(dec) == 4
    assert sorted((t["id"], t["ditg_flow"]) for t in tgs.values()) == \
        [(1, 1), (2, 2), (3, 3), (4, 1)]
    later = next(t for t in tgs.values() if t["id"] == 4)
    assert later["dst"]["port"] == session["ports"][3]
    flows = {f["tg"]: f for f in sap_json("flows", session["recv"])["flows"]}
    half_us = 0.5e-6 + 1e-9
    for key, d in dec.items():
        tg = tgs[key]["id"]
        f = flows[tg]
        assert d["flow"] == tgs[key]["ditg_flow"]
        mine = records[records["tg_id"] == tg]
        over = OVER6 if key[0].startswith("::1") else OVER4
        assert ((mine["flags"] & F_IPV6) != 0).all() == (over == OVER6)
        assert d["Total packets"] == f["records"] == len(mine)
        assert d["Bytes received"] == f["bytes"] - over * len(mine)
        assert f["duplicates"] == 0
        assert d["Packets dropped"] == f["lost"]
        st = sap_json("stats", session["recv"], "owd", "rx_ns", "--tg", tg,
                      "--basic")
        owd, rx = st["owd"], st["rx_ns"]
        assert abs(d["Minimum delay"] - owd["min"] / S) <= half_us
        assert abs(d["Maximum delay"] - owd["max"] / S) <= half_us
        assert abs(d["Average delay"] - owd["mean"] / S) <= half_us
        assert abs(d["Total time"] - (rx["max"] - rx["min"]) / S) <= half_us
        n = owd["count"]
        assert abs(d["Delay standard deviation"] -
                   owd["sd"] * ((n - 1) / n) ** 0.5 / S) <= half_us
        # in sequence in the log: ITGDec's pairs are mtgsap's
        assert (np.diff(mine["seq"].astype(np.int64)) == 1).all(), \
            f"TG {tg}: the log has its packets out of sequence"
        w = sap_json("windows", session["recv"], "--tg", tg, "--window",
                     "10min")["windows"]
        assert w["packets"] == [len(mine)]
        assert abs(d["Average jitter"] - w["jitter_ns"][0] / S) <= half_us
    assert total["Number of flows"] == 4
    assert total["Total packets"] == len(records)
    assert total["Bytes received"] == sum(f["bytes"] for f in flows.values()) \
        - sum(np.where((records["flags"] & F_IPV6) != 0, OVER6, OVER4))


def test_real_log_times_are_utc(session):
    """ITGRecv and ITGSend ran in Asia/Tokyo (UTC + 9 h): the log's
    times are of the UTC day (gettimeofday's seconds modulo 86400), as
    the docs say; mtgsap's stamps are ns from that day's midnight."""
    with mtgsap.open(session["recv"]) as rec:
        first = int(rec.records["rx_ns"].min())
    began = session["began"] % 86400
    late = (first / S - began) % 86400
    assert late < 600, f"the log's first packet {late} s after the start"


def test_sender_log_reads_as_its_packets_sent(session):
    """ITGSend's own log (-l) has each packet's send time as both times:
    mtgsap reads it as flows of one-way delay 0, the sequence numbers those
    ITGRecv logged."""
    with mtgsap.open(session["send"]) as snd, \
            mtgsap.open(session["recv"]) as rcv:
        assert (snd.records["rx_ns"] == snd.records["tx_ns"]).all()
        assert len(snd.meta["tgs"]) == 3
        tgs = {(endpoint(t["src"]), endpoint(t["dst"])): t["id"]
               for t in rcv.meta["tgs"]}
        for t in snd.meta["tgs"]:
            mine = snd.records[snd.records["tg_id"] == t["id"]]
            tg = tgs[(endpoint(t["src"]), endpoint(t["dst"]))]
            theirs = rcv.records[rcv.records["tg_id"] == tg]
            assert t["id"] == t["ditg_flow"] == tg
            assert sorted(mine["seq"]) == sorted(theirs["seq"])
            assert sorted(mine["len"]) == sorted(theirs["len"])


def test_real_log_exported_is_the_log(session, tmp_path):
    """mtgsap export --format ditg of ITGRecv's log gives the same records
    (every number; each address up to its NUL) and ITGDec the same
    output."""
    out = tmp_path / "again.log"
    assert sap("export", session["recv"], "--format", "ditg", "-o",
               out)[0] == 0
    a = np.fromfile(session["recv"], ditg.LOG_DTYPE)
    b = np.fromfile(out, ditg.LOG_DTYPE)
    assert len(a) == len(b) > 0
    for name in ditg.LOG_DTYPE.names:
        if name in ("src", "dst"):
            for x, y in zip(a[name], b[name]):
                assert bytes(x).split(b"\0")[0] == bytes(y).split(b"\0")[0]
        else:
            assert (a[name] == b[name]).all(), name
    assert itgdec(session["recv"]) == itgdec(out)


def test_real_log_copies_to_a_recording(session, tmp_path):
    """mtgsap copy of a D-ITG log is a recording with the same records and
    metadata (which the recording's reader checks)."""
    out = tmp_path / "recv.rec"
    assert sap("copy", session["recv"], out)[0] == 0
    with mtgsap.open(out) as rec, mtgsap.open(session["recv"]) as log:
        assert isinstance(log, ditg.DitgLog)
        assert not isinstance(rec, ditg.DitgLog)
        assert (rec.records == log.records).all()
        assert rec.meta["tgs"] == log.meta["tgs"]
        assert rec.meta["receiver"] == {"source": "ditg",
                                        "stamp": "gettimeofday",
                                        "payload_compared": False}


# --- a recording exported ----------------------------------------------------

def recording(path, t0, tai=TAI):
    """A run as mtgctl records it, from t0 (CLOCK_TAI): TG 1, 100 packets/s
    of 1000 bytes over IPv4, 0.5% lost; TG 5, 50 packets/s of 200 bytes
    over IPv6; for 5 s. Then a record whose header failed its CRC and,
    in TG 1, two whose UDP checksum was wrong. Fixed seed."""
    rng = np.random.default_rng(20)
    r1 = flow(rng, 1, t0 + S + np.arange(500) * (S // 100), 1000, 5, 0.5,
              lost=0.005)
    r5 = flow(rng, 5, t0 + S + np.arange(250) * (S // 50), 200, 8, 1)
    r5["flags"] |= F_IPV6
    r5["len"] += OVER6 - OVER4
    r1["flags"][[40, 41]] |= F_CSUM_BAD
    bad = empty(1)
    bad["flags"] = 1 | F_HDR_CORRUPT
    bad["rx_ns"], bad["len"] = t0 + 2 * S, 600
    recs = np.concatenate([r1, r5, bad])
    recs = recs[np.argsort(recs["rx_ns"], kind="stable")]
    meta = run_meta(start_ns=t0, clock={"id": "CLOCK_TAI",
                                        "synchronised": True,
                                        "tai_offset_s": tai},
                    tgs=[{"id": 1, "src": "10.0.0.1:5001",
                          "dst": "10.0.1.2:9001"},
                         {"id": 5, "src": {"addr": "fd00::1", "port": 5005},
                          "dst": {"addr": "fd00::2", "port": 9005}}])
    mtgsap.write(path, meta, recs, end_ns=t0 + 7 * S)
    return recs


def utc_us(ns, tai=TAI):
    return (ns.astype(np.int64) - tai * S) // 1000


T0 = 1_800_000_000 * S


def test_export_read_by_itgdec(tmp_path):
    """The real ITGDec's figures of the exported log equal mtgsap's of the
    recording: flows, packets, bytes (the UDP payloads), dropped (the
    damaged records count as lost in D-ITG, whose kernel drops them), and
    the average delay within the microsecond the log cuts."""
    rec_path, log = tmp_path / "run.rec", tmp_path / "run.log"
    recs = recording(rec_path, T0)
    code, out, err = sap("export", rec_path, "--format", "ditg", "-o", log,
                         "--json")
    assert code == 0, err
    said = json.loads(out)
    assert said["left_out"] == {"hdr_corrupt": 1, "csum_bad": 2}
    assert said["records"] == len(recs) - 3 == os.path.getsize(log) // 144
    dec, total = itgdec(log)
    flows = {f["tg"]: f for f in sap_json("flows", rec_path)["flows"]}
    assert total["Number of flows"] == 2
    assert dec.keys() == {("10.0.0.1:5001", "10.0.1.2:9001"),
                          ("fd00::1:5005", "fd00::2:9005")}
    for key, tg, over, bad in ((("10.0.0.1:5001", "10.0.1.2:9001"), 1, OVER4,
                                2),
                               (("fd00::1:5005", "fd00::2:9005"), 5, OVER6,
                                0)):
        d, f = dec[key], flows[tg]
        assert d["flow"] == tg
        assert f["duplicates"] == 0
        assert d["Total packets"] == f["records"] - bad
        mine = recs[(recs["tg_id"] == tg) &
                    ((recs["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) == 0)]
        assert d["Bytes received"] == int(mine["len"].sum()) - over * len(mine)
        assert d["Packets dropped"] == f["lost"] + bad
        assert abs(d["Average delay"] - f["owd_mean"] / S) <= 1.5e-6
    assert total["Total packets"] == len(recs) - 3


def test_export_reads_back(tmp_path):
    """The exported log read by mtgsap: TG ids, sequence numbers, lengths
    and families as recorded; stamps in UTC (the recording's TAI offset
    taken off), cut to the microsecond, from midnight of the first day;
    flows' figures as the recording's but for the damaged records."""
    rec_path, log = tmp_path / "run.rec", tmp_path / "run.log"
    recs = recording(rec_path, T0)
    assert sap("export", rec_path, "-o", log, "--format", "ditg")[0] == 0
    kept = recs[(recs["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) == 0]
    with mtgsap.open(log) as back:
        r = back.records
        assert len(r) == len(kept)
        for name in ("tg_id", "seq", "len"):
            assert (r[name] == kept[name]).all(), name
        assert ((r["flags"] & F_IPV6) == (kept["flags"] & F_IPV6)).all()
        day0 = utc_us(kept["tx_ns"]).min() // (86400 * 10**6) * 86400 * 10**6
        assert (r["rx_ns"] == (utc_us(kept["rx_ns"]) - day0) * 1000).all()
        assert (r["tx_ns"] == (utc_us(kept["tx_ns"]) - day0) * 1000).all()
        assert (r["run_id"] == 0).all() and (r["tp_ns"] == 0).all()
        assert (r["payload_len"] == r["len"] - np.where(
            (r["flags"] & F_IPV6) != 0, OVER6, OVER4)).all()
        assert back.meta["clock"]["tai_offset_s"] == 0
    mine = {f["tg"]: f for f in sap_json("flows", log)["flows"]}
    theirs = {f["tg"]: f for f in sap_json("flows", rec_path)["flows"]}
    assert mine.keys() == theirs.keys() == {1, 5}
    assert mine[1]["received"] == theirs[1]["received"] - 2
    assert mine[5]["received"] == theirs[5]["received"]
    assert mine[1]["lost"] == theirs[1]["lost"] + 2


def test_run_across_midnight(tmp_path):
    """A run that crosses midnight UTC: mtgsap reads its log back whole
    (each time of day on the day nearest the one before it), delays as
    recorded to the microsecond; ITGDec takes the packets sent before
    midnight and received after it as received a day before they were
    sent, as it does with D-ITG's own logs."""
    midnight = 1_800_000_000 // 86400 * 86400 * S + TAI * S
    rec_path, log = tmp_path / "run.rec", tmp_path / "run.log"
    recs = recording(rec_path, midnight - 4 * S - 3 * MS)
    assert sap("export", rec_path, "-o", log, "--format", "ditg")[0] == 0
    kept = recs[(recs["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) == 0]
    with mtgsap.open(log) as back:
        r = back.records
        owd = r["rx_ns"].astype(np.int64) - r["tx_ns"].astype(np.int64)
        want = (utc_us(kept["rx_ns"]) - utc_us(kept["tx_ns"])) * 1000
        assert (owd == want).all()
        assert (np.diff(r["rx_ns"].astype(np.int64)) ==
                np.diff(utc_us(kept["rx_ns"])) * 1000).all()
        assert r["rx_ns"].min() // DAY == 0 and r["rx_ns"].max() // DAY == 1
    crossed = (utc_us(kept["tx_ns"]) < (midnight - TAI * S) // 1000) & \
        (utc_us(kept["rx_ns"]) >= (midnight - TAI * S) // 1000)
    assert crossed.any()
    dec, _ = itgdec(log)
    least = min(d["Minimum delay"] for d in dec.values())
    assert -86400 < least < -86399


# --- what cannot be read or written ------------------------------------------

def loggable(recs):
    """How many of recording()'s records its log holds."""
    return int(((recs["flags"] & (F_HDR_CORRUPT | F_CSUM_BAD)) == 0).sum())


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "run.log"
    n = loggable(recording(tmp_path / "run.rec", T0))
    assert sap("export", tmp_path / "run.rec", "-o", path, "--format",
               "ditg")[0] == 0
    assert os.path.getsize(path) == n * 144
    return path, n


@pytest.mark.parametrize("damage, message", [
    (lambda p: os.truncate(p, os.path.getsize(p) - 50),
     "truncated D-ITG log: {size} bytes, {last} records of 144 and 94 "
     "bytes of record {last}"),
    (lambda p: corrupt(p, 5 * 144 + 28, (77).to_bytes(4, "little")),
     "damaged D-ITG log: record 5 (byte 720): its rx minute is 77, not 0 "
     "to 59"),
    (lambda p: corrupt(p, 9 * 144 + 128, np.float64(61.5).tobytes()),
     "damaged D-ITG log: record 9 (byte 1296): its tx seconds are 61.5, "
     "not from 0 to less than 60"),
    (lambda p: corrupt(p, 3 * 144 + 36, b"1" * 46),
     "damaged D-ITG log: record 3 (byte 432): its source address has no "
     "NUL in its 46 bytes"),
    (lambda p: corrupt(p, 7 * 144 + 82, b"10.0.1.x\0"),
     "damaged D-ITG log: record 7 (byte 1008): its destination address "
     "'10.0.1.x' is not an IP address"),
    (lambda p: corrupt(p, 8 * 144 + 4, bytes(4)),
     "damaged D-ITG log: record 8 (byte 1152): its sequence number is 0"),
    (lambda p: corrupt(p, 2 * 144 + 12, (70000).to_bytes(4, "little")),
     "damaged D-ITG log: record 2 (byte 288): its destination port is "
     "70000, not 0 to 65535"),
    (lambda p: corrupt(p, 0 * 144 + 16, (24).to_bytes(4, "little")),
     "not an mtg recording (no \\x89MTGREC magic) nor a D-ITG binary log "
     "(its first 144 bytes are not a D-ITG record: its tx hour is 24, not "
     "0 to 23)"),
    (lambda p: os.truncate(p, 100),
     "not an mtg recording (no \\x89MTGREC magic) nor a D-ITG binary log "
     "(100 bytes, less than a record's 144)"),
    (lambda p: os.truncate(p, 0),
     "not an mtg recording (no \\x89MTGREC magic) nor a D-ITG binary log "
     "(the file is empty)"),
    (lambda p: p.write_bytes(np.random.default_rng(3).bytes(1440)),
     "not an mtg recording (no \\x89MTGREC magic) nor a D-ITG binary log "
     "(its first 144 bytes are not a D-ITG record: "),
], ids=["truncated", "minute", "seconds", "no NUL", "address", "seq 0",
        "port", "first record", "short", "empty", "garbage"])
def test_damaged_logs_are_refused(log, damage, message):
    log, n = log
    damage(log)
    message = message.format(size=n * 144 - 50, last=n - 1)
    with pytest.raises(RecordingError) as e:
        mtgsap.open(log)
    assert str(e.value).startswith(f"{log}: {message}")
    for command in ("flows", "info", "stats"):
        code, out, err = sap(command, log, *(["owd"] if command == "stats"
                                             else []))
        assert (code, out) == (1, "")
        assert err.startswith(f"mtgsap {command}: {log}: {message}")
        assert err.count("\n") == 1


def test_damaged_log_no_traceback(log):
    """As a program: one line, exit status 1."""
    log, _ = log
    corrupt(log, 5 * 144 + 28, (77).to_bytes(4, "little"))
    p = subprocess.run([sys.executable, "-m", "mtgsap", "flows", str(log)],
                       capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == (f"mtgsap flows: {log}: damaged D-ITG log: record 5 "
                        f"(byte 720): its rx minute is 77, not 0 to 59\n")


def refused(rec_path, message):
    """export --format ditg of rec_path fails saying message, writing
    nothing."""
    d = os.path.dirname(rec_path)
    before = sorted(os.listdir(d))
    code, out, err = sap("export", rec_path, "--format", "ditg", "-o",
                         os.path.join(d, "x.log"))
    assert (code, out, err) == (1, "", f"mtgsap export: {rec_path}: "
                                f"{message}\n")
    assert sorted(os.listdir(d)) == before


def test_what_a_log_cannot_hold(tmp_path):
    """Several runs (a log has no run id: their flows would merge), a
    sequence number beyond D-ITG's 32 bits: refused before anything is
    written, saying what to select."""
    rec_path = tmp_path / "run.rec"
    recs = recording(rec_path, T0)
    recs["run_id"][recs["tg_id"] == 5] = 8
    mtgsap.write(rec_path, run_meta(run_id=None), recs, force=True)
    refused(rec_path, "records of 2 runs (7, 8): a D-ITG log has no run "
            "id, their flows would merge; --where 'run_id == 7' exports one")
    assert sap("export", rec_path, "--format", "ditg", "--where",
               "run_id == 8", "-o", tmp_path / "run8.log")[0] == 0

    recs["run_id"] = 7
    i = int(np.flatnonzero(recs["tg_id"] == 5)[3])
    recs["seq"][i] = 2**32 - 1
    mtgsap.write(rec_path, run_meta(), recs, force=True)
    refused(rec_path, f"record {i} (TG 5): sequence number 4294967295 does "
            f"not fit D-ITG's (from 1 to 4294967295, mtg's plus 1); --where "
            f"'seq < 4294967295' leaves such records out")


def test_extension_and_overwrite(tmp_path):
    """.ditg says the format; an existing file is kept without --force."""
    rec_path = tmp_path / "run.rec"
    n = loggable(recording(rec_path, T0))
    out = tmp_path / "run.ditg"
    assert sap("export", rec_path, "-o", out)[0] == 0
    first = out.read_bytes()
    assert len(first) == n * 144
    code, _, err = sap("export", rec_path, "-o", out, "--tg", "5")
    assert code == 1 and "exists (--force to overwrite)" in err
    assert out.read_bytes() == first
    assert sap("export", rec_path, "-o", out, "--tg", "5", "--force")[0] == 0
    assert len(out.read_bytes()) == 250 * 144
