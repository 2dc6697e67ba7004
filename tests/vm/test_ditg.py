# SPDX-License-Identifier: GPL-2.0-or-later
"""D-ITG's payload and signalling (Documentation/ditg.rst,
Documentation/abi.rst "D-ITG's header", Documentation/tsp.rst "D-ITG's
senders"):

- through the ABI: a TG with MTG_TG_FLAGS_DITG sends D-ITG's standard
  header (flow id, sequence number + 1, the TX stamp as a UTC time of
  day), a session records D-ITG's packets by the port MTG_IOC_RX_DITG
  gave it, each record against its frame on the wire; the ioctl's
  errors; datagrams too short for the header counted and passed on,
  random ones recorded or counted, never more;
- with D-ITG's own programs: mtgctl run (`header ditg`, `rcvr ditg`) to
  an unmodified ITGRecv, whose log ITGDec reads with the counts of a
  capture and of mtg's summary; an unmodified ITGSend to `mtgctl recv
  --allow-ditg`, whose recording holds every packet the sender's own log
  says it sent, as ITGDec says."""

import contextlib
import errno
import json
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import time

import pytest

from mtgsap.recording import Recording
from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.ditg import itgdec, need
from mtgtest.system import DEBUG_KERNEL, ROOT, run
from mtgtest.tg import LEAD_NS, MS, S, TgSession, new_run_id
from mtgwitness import abi, wire
from mtgwitness.capture import Capture
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst
import test_rx
from test_rx import listen, read_until

make_loop = test_mtgctl_rx.make_loop    # the fixtures, shared
rxs = test_rx.rxs

pytestmark = pytest.mark.vm

PORT = 9400
DAY = 86400 * S


def tai_offset():
    diff = time.clock_gettime_ns(time.CLOCK_TAI) - time.time_ns()
    return round(diff / S) * S


def tod_tai(tx_sec, tx_usec, near):
    """D-ITG's time of day on the day that puts it nearest near (TAI)."""
    off = tai_offset()
    real = near - off
    t = real - real % DAY + tx_sec * S + tx_usec * 1000
    if t > real + DAY // 2:
        t -= DAY
    elif t + DAY // 2 < real:
        t += DAY
    return t + off


def ditg_hdr(payload):
    return abi.DitgHdr.from_buffer_copy(payload[:abi.DITG_HDR_LEN])


def test_rx_ditg_errors(link, rxs, mtg):
    sess = rxs()
    s = sess.s
    cases = [dict(port=0), dict(op=3), dict(reserved=1), dict(run_id=0)]
    for kw in cases:
        args = {**dict(port=PORT, run_id=7, op=abi.DITG_ADD), **kw}
        with pytest.raises(OSError) as e:
            s.rx_ditg(**args)
        assert e.value.errno == errno.EINVAL, kw
    with pytest.raises(OSError) as e:
        s.rx_ditg(PORT, op=abi.DITG_DEL)
    assert e.value.errno == errno.ENOENT
    for port in range(1, abi.DITG_PORTS + 1):
        s.rx_ditg(port, run_id=7)
    with pytest.raises(OSError) as e:
        s.rx_ditg(PORT, run_id=7)
    assert e.value.errno == errno.ENOSPC
    with pytest.raises(OSError) as e:
        s.rx_ditg(1, run_id=8)
    assert e.value.errno == errno.EEXIST
    s.rx_ditg(1, op=abi.DITG_DEL)
    s.rx_ditg(PORT, run_id=7)
    # no receive path: nothing to record with
    bare = abi.Session()
    try:
        bare.alloc(1 << 16)
        with pytest.raises(OSError) as e:
            bare.rx_ditg(PORT, run_id=7)
        assert e.value.errno == errno.ENODATA
    finally:
        bare.close()
    # D-ITG's header has no flags to ask for keeping, nor says "control"
    t = TgSession()
    try:
        for flag in (abi.TG_FLAGS_KEEP_PAYLOAD, abi.TG_FLAGS_KEEP_BITS):
            with pytest.raises(OSError) as e:
                t.start(link, 1, 5, time.clock_gettime_ns(time.CLOCK_TAI) +
                        LEAD_NS, entries=[(MS, 200)],
                        flags=abi.TG_FLAGS_DITG | flag)
            assert e.value.errno == errno.EINVAL
        t.start(link, 2, 5, time.clock_gettime_ns(time.CLOCK_TAI) + LEAD_NS,
                entries=[(MS, 200)], flags=abi.TG_FLAGS_DITG, stop_count=1)
        with pytest.raises(OSError) as e:
            t.s.tg_ctrlmsg(2, b"hello")
        assert e.value.errno == errno.EOPNOTSUPP
    finally:
        t.close()


def test_ditg_records_agree_with_the_wire(link, rxs):
    """A TG sending D-ITG's header, from a to b where a session records
    D-ITG's packets to its port: every frame carries flow id, sequence
    number + 1 and a time of day that is the TX stamp (between the
    schedule and the capture); every record has what its frame says."""
    sess = rxs()
    iface = listen(sess.s, link)
    run_id = new_run_id()
    sess.s.rx_set_run(run_id)
    sess.s.rx_ditg(PORT, run_id=run_id)
    count, tg, length = 300, 77, 120
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = time.clock_gettime_ns(time.CLOCK_TAI) + LEAD_NS
        sess.start(link, tg, 1, start, entries=[(2 * MS, length)],
                   stop_count=count, dst_port=PORT,
                   flags=abi.TG_FLAGS_DITG)
        assert sess.wait(tg).sent == count
        recs = read_until(sess.rx.data, count)
    assert cap.lossless, cap.stderr
    frames = [wire.parse_frame(f.data, f.ts_ns) for f in cap.frames]
    frames = [f for f in frames if f.dport == PORT]
    assert len(frames) == len(recs) == count
    by_seq = {r.seq: r for r in recs}
    assert sorted(by_seq) == list(range(count))
    over = 14 + (40 if link.family == 6 else 20) + 8
    for k, f in enumerate(frames):
        assert f.ok, f.errors
        assert f.mtg is None and len(f.data) == length
        h = ditg_hdr(f.payload)
        assert (h.flow_id, h.seq) == (tg, k + 1)
        r = by_seq[k]
        sched = start + k * 2 * MS
        tx = tod_tai(h.tx_sec, h.tx_usec, f.ts_ns)
        assert sched <= tx + 1000 and tx <= f.ts_ns, (k, sched, tx, f.ts_ns)
        flags = abi.RX_F_DITG | abi.RX_STAMP_SW | \
            (abi.RX_F_IPV6 if link.family == 6 else 0)
        assert (r.run_id, r.tg_id, r.iface, r.len, r.flags) == \
            (run_id, tg, iface, length, flags), k
        assert (r.tx_ns, r.sched_ns) == (tx, tx), k
        assert (r.wrong_bits, tuple(r.tp_ns)) == (0, (0, 0, 0, 0))
        assert r.payload_len == length - over - abi.DITG_HDR_LEN
    st = sess.s.rx_stats()
    assert (st.packets, st.ditg_short, st.csum_bad) == (count, 0, 0)


def test_ditg_port_takes_what_comes(link, rxs):
    """Datagrams of every length from 0 to 60 bytes to a D-ITG port, and
    random payloads: those of at least 16 bytes are recorded, each with
    what its bytes say (no time of day: tx_ns 0), the shorter counted
    (ditg_short) and passed on; nothing else happens."""
    sess = rxs()
    listen(sess.s, link)
    run_id = new_run_id()
    sess.s.rx_set_run(run_id)
    sess.s.rx_ditg(PORT, run_id=run_id)
    rng = random.Random(20)
    payloads = [rng.randbytes(n) for n in range(61)]
    payloads += [struct.pack("!IIII", 5, 9, 86400, 0),      # no time of day
                 struct.pack("!IIII", 5, 0, 10, 1000000)]   # seq 0, usec
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((link.a, 0))
    for p in payloads:
        sock.send(wire.build_frame(link.a_addr, link.b_addr, 5555, PORT, p,
                                   dst_mac=link.b_mac))
    sock.close()
    long_ = [p for p in payloads if len(p) >= 16]
    recs = read_until(sess.rx.data, len(long_))
    assert len(recs) == len(long_)
    for r, p in zip(recs, long_):
        h = ditg_hdr(p)
        assert (r.tg_id, r.seq) == (h.flow_id, (h.seq - 1) % 2**32)
        assert r.flags & abi.RX_F_DITG
        if h.tx_sec >= 86400 or h.tx_usec >= 10**6:
            assert r.tx_ns == 0
    st = sess.s.rx_stats()
    assert (st.packets, st.ditg_short) == (len(long_), 16)


SIG = 9000


def idf_to_itgrecv(loop, count):
    text = ""
    for tg in (1, 2):
        text += (f"tgid {tg}\n\tdev {loop.a}\n\tdst {dst(loop, 9400 + tg)}\n"
                 f"\theader ditg\n\trcvr ditg {dst(loop, SIG)}\n"
                 f"\tdist fixed\n\tpkts fixed {100 + 50 * tg}\n"
                 f"\tinta 5ms\n\tcount {count}\n")
    return text


@contextlib.contextmanager
def itgrecv(loop, log, cwd):
    """An unmodified ITGRecv in the receiver's namespace, logging to log,
    listening on SIG when the block starts; SIGINT ends it after."""
    recv = subprocess.Popen(
        ["ip", "netns", "exec", loop.ns_r, "ITGRecv", "-l", str(log)],
        cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not run("ip", "netns", "exec", loop.ns_r, "ss", "-Hltn",
                      f"sport = :{SIG}").stdout.strip():
            assert time.monotonic() < deadline, "ITGRecv does not listen"
            time.sleep(0.1)
        yield recv
    finally:
        recv.send_signal(signal.SIGINT)
        recv.wait(timeout=60)


def test_mtg_to_itgrecv(make_loop, tmp_path):
    """mtgctl run with two `header ditg` TGs whose receiver is an
    unmodified ITGRecv: the flows are set up over D-ITG's signalling,
    ITGRecv logs the packets, and ITGDec's summary of its log has the
    packets a capture saw on ITGRecv's interface, each flow's highest
    sequence number less its packets as dropped, and delays no shorter
    than netem's; mtg's summary says how many it sent."""
    need("ITGRecv", "ITGDec")
    loop = make_loop(4)
    loop.netem("delay", "5ms", "loss", "10%")
    log = tmp_path / "recv.log"
    with itgrecv(loop, log, tmp_path):
        count = 400
        (tmp_path / "d.idf").write_text(idf_to_itgrecv(loop, count))
        with Capture(loop.r, ns=loop.ns_r, bpf="udp") as cap:
            res = subprocess.run(
                ["ip", "netns", "exec", loop.ns_s, MTGCTL, "run", "d.idf",
                 "--batch", "--json", "s.json", "--start-delay",
                 START_DELAY, "--drain", DRAIN], cwd=tmp_path,
                capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    dec, total = itgdec(log)
    seqs = {1: [], 2: []}
    for f in cap.frames:
        fr = wire.parse_frame(f.data)
        if fr.dport in (9401, 9402):
            h = ditg_hdr(fr.payload)
            assert h.flow_id == fr.dport - 9400
            seqs[h.flow_id].append(h.seq)
    assert len(dec) == 2
    for tg in s["tgs"]:
        assert tg["sent"] == count
        remote = tg["remote"]
        assert (remote["signalling"], remote["error"]) == ("ditg", None)
        got = seqs[tg["id"]]
        assert len(got) == len(set(got)) < count      # netem dropped some
        (d,) = [d for d in dec.values() if d["flow"] == tg["id"]]
        assert d["Total packets"] == len(got)
        assert d["Packets dropped"] == max(got) - len(got)
        assert d["Bytes received"] == len(got) * (100 + 50 * tg["id"] - 42)
        assert 0.005 <= d["Minimum delay"] <= d["Maximum delay"] < 1
    assert "2 TGs agreed with 1 receiver" in res.stdout


def test_round_trips_with_itgrecv(make_loop, tmp_path):
    """A `header ditg` TG with `meter rtt` and an unmodified ITGRecv: the
    flow is set up in D-ITG's round-trip mode, ITGRecv sends each payload
    back to the TG's source port, and the run records them on its own
    interface. netem delays both ways and drops a fifth of the way back:
    the run's received and lost are the echoes a capture saw come back
    and those it did not, each recorded once with its sequence number and
    a round trip no shorter than the two delays; ITGRecv's log (ITGDec)
    has every packet sent; mtgsap rtt takes the echoes."""
    need("ITGRecv", "ITGDec")
    loop = make_loop(4)
    forward_ms, back_ms, count = 5, 3, 300
    loop.netem("delay", f"{forward_ms}ms")
    run("ip", "netns", "exec", loop.ns_n, "tc", "qdisc", "add", "dev",
        loop.b, "root", "netem", "delay", f"{back_ms}ms", "loss", "20%")
    log = tmp_path / "recv.log"
    with itgrecv(loop, log, tmp_path):
        (tmp_path / "rtt.idf").write_text(
            f"tgid 1\n\tdev {loop.a}\n\tdst {dst(loop, 9401)}\n"
            f"\theader ditg\n\tmeter rtt\n\trcvr ditg {dst(loop, SIG)}\n"
            f"\tdist fixed\n\tpkts fixed 150\n\tinta 5ms\n"
            f"\tcount {count}\n")
        with Capture(loop.a, ns=loop.ns_s, bpf="udp") as cap:
            res = subprocess.run(
                ["ip", "netns", "exec", loop.ns_s, MTGCTL, "run", "rtt.idf",
                 "--batch", "--json", "s.json", "-o", "back.rec",
                 "--start-delay", START_DELAY, "--drain", DRAIN],
                cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 TG agreed with 1 receiver" in res.stdout
    assert cap.lossless, cap.stderr
    back = []
    for f in cap.frames:
        fr = wire.parse_frame(f.data)
        if (fr.sport, fr.dport) == (9401, 4001):   # the TG's source port
            h = ditg_hdr(fr.payload)
            assert h.flow_id == 1
            back.append(h.seq - 1)
    assert len(back) == len(set(back)) and 0 < len(back) < count
    (tg,) = json.loads((tmp_path / "s.json").read_text())["tgs"]
    assert tg["owd_ns"]["p50"] is None          # round trips, not one way
    assert tg["remote"]["signalling"] == "ditg"
    assert (tg["sent"], tg["received"], tg["lost"]) == \
        (count, len(back), count - len(back))
    assert tg["rtt_ns"]["p50"] >= (forward_ms + back_ms) * MS
    rec = Recording(tmp_path / "back.rec")
    r = rec.records[rec.records["tg_id"] == 1]
    assert sorted(r["seq"].tolist()) == sorted(back)
    assert ((r["flags"] & abi.RX_F_DITG) != 0).all()
    rtt = r["rx_ns"].astype(int) - r["tx_ns"].astype(int)
    assert (rtt >= (forward_ms + back_ms) * MS).all()
    (d,) = itgdec(log)[0].values()
    assert d["Total packets"] == count
    (t,) = json.loads(run(sys.executable, "-m", "mtgsap", "rtt",
                          tmp_path / "back.rec", "--json").stdout)["tgs"]
    assert (t["echo"], t["reflected"]) == ("ditg", len(back))


def itgrecv_logs_of_a_run(loop, tmp_path, name, count, drain):
    """A fresh ITGRecv, mtgctl run of idf_to_itgrecv with --drain drain:
    (ITGDec's packets per flow, the capture's per flow)."""
    log = tmp_path / f"{name}.log"
    with itgrecv(loop, log, tmp_path):
        (tmp_path / f"{name}.idf").write_text(idf_to_itgrecv(loop, count))
        with Capture(loop.r, ns=loop.ns_r, bpf="udp") as cap:
            res = subprocess.run(
                ["ip", "netns", "exec", loop.ns_s, MTGCTL, "run",
                 f"{name}.idf", "--batch", "--start-delay", START_DELAY,
                 "--drain", drain], cwd=tmp_path, capture_output=True,
                text=True, timeout=900)
            # what netem still holds reaches the capture, not ITGRecv's log
            time.sleep(1)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    wire_count = {1: 0, 2: 0}
    for f in cap.frames:
        fr = wire.parse_frame(f.data)
        if fr.dport in (9401, 9402):
            wire_count[fr.dport - 9400] += 1
    dec, _ = itgdec(log)
    return {d["flow"]: d["Total packets"] for d in dec.values()}, wire_count


def test_mtg_drains_before_closing_at_itgrecv(make_loop, tmp_path):
    """ITGRecv writes its log when a flow is closed and drops what arrives
    after. With the data 400 ms behind the signalling (netem on UDP only,
    as a management network beside a slow path under test), a run with no
    drain leaves ITGRecv's log short of what reached its interface, and
    one with the drain (run's default) has every packet in it."""
    need("ITGRecv", "ITGDec")
    loop = make_loop(4)
    ns = ["ip", "netns", "exec", loop.ns_n, "tc"]
    run(*ns, "qdisc", "add", "dev", loop.c, "root", "handle", "1:", "prio")
    run(*ns, "qdisc", "add", "dev", loop.c, "parent", "1:3", "handle", "30:",
        "netem", "delay", "400ms")
    run(*ns, "filter", "add", "dev", loop.c, "parent", "1:", "protocol",
        "ip", "prio", "1", "u32", "match", "ip", "protocol", "17", "0xff",
        "flowid", "1:3")
    # 5 ms a packet: 80 in flight at the end, not a multiple of ITGRecv's
    # batches of 50 records, which it writes whenever one fills
    logged, wire_count = itgrecv_logs_of_a_run(loop, tmp_path, "nodrain",
                                               200, "0")
    assert wire_count == {1: 200, 2: 200}
    assert all(logged[tg] < wire_count[tg] for tg in (1, 2)), logged
    logged, wire_count = itgrecv_logs_of_a_run(loop, tmp_path, "drain",
                                               200, DRAIN)
    assert wire_count == {1: 200, 2: 200}
    assert logged == {1: 200, 2: 200}


def test_itgsend_to_recv(make_loop, tmp_path):
    """An unmodified ITGSend to `mtgctl recv --allow-ditg`: recv lets the
    sender in by its address, records the flow as a run of its own by its
    port, and ends it when ITGSend closes the flow. The recording holds
    every packet of ITGSend's own log (sequence numbers 0..N-1 as mtg
    counts), D-ITG's send times a netem delay or more before the driver
    stamped their arrival; mtgsap's figures are ITGDec's of the sender's
    log: packets, bytes (its UDP payloads), and the flow's time within a
    millisecond (the log's send times are ITGSend's own, the packets'
    the times it read before each send)."""
    need("ITGSend", "ITGDec")
    loop = make_loop(4)
    loop.netem("delay", "5ms")
    tspd.key_file(tmp_path / "k")
    out = tmp_path / "runs"
    out.mkdir()
    sender = loop.dst.rsplit(".", 2)[0] + ".1.1"
    recv = tspd.Recv(tmp_path / "k", out, "--allow-ditg", sender,
                     netns=loop.ns_r)
    log = tmp_path / "send.log"
    res = subprocess.run(
        ["ip", "netns", "exec", loop.ns_s, "ITGSend", "-a", loop.dst,
         "-Sdp", str(recv.port), "-rp", "9501", "-T", "UDP", "-C", "200",
         "-c", "120", "-t", "2000", "-l", str(log)], cwd=tmp_path,
        capture_output=True, text=True, timeout=300)
    rc, text = recv.stop()
    assert res.returncode == 0, res.stdout + res.stderr
    assert rc == 0, text
    assert "a D-ITG sender, let in by --allow-ditg" in text
    assert "D-ITG flow 1 to " in text and " accepted as run " in text
    (recording,) = out.glob("run-*.mtgrec")
    rec = Recording(recording)
    r = rec.records
    dec, total = itgdec(log)
    (d,) = dec.values()
    n = int(d["Total packets"])
    # ITGSend's 400 a flow at -C 200 for 2 s; fewer under the sanitizers
    assert n > (100 if DEBUG_KERNEL else 300)
    assert sorted(r["seq"].tolist()) == list(range(n))
    assert set(r["tg_id"].tolist()) == {1}
    assert ((r["flags"] & abi.RX_F_DITG) != 0).all()
    owd = r["rx_ns"].astype("int64") - r["tx_ns"].astype("int64")
    assert (r["tx_ns"] > 0).all() and (owd >= 5 * MS).all()
    flows = json.loads(run(sys.executable, "-m", "mtgsap", "flows",
                           recording, "--json").stdout)["flows"]
    (f,) = flows
    assert (f["received"], f["lost"], f["duplicates"]) == (n, 0, 0)
    assert f["bytes"] - 42 * n == d["Bytes received"] == 120 * n
    span = (int(r["tx_ns"].max()) - int(r["tx_ns"].min())) / S
    assert abs(span - d["Total time"]) <= 1e-3
    assert rec.meta["tgs"][0]["header"] == "ditg"


def test_itgsend_round_trips_at_recv(make_loop, tmp_path):
    """An unmodified ITGSend with -m rttm to `mtgctl recv --allow-ditg
    --rtt`: recv takes the flow as a round trip, its XDP reflector sends
    each datagram back as it came (ITGRecv's way, without the socket),
    counted, and goes with the run. ITGSend's own log (ITGDec) has every
    datagram recv says it sent back. ITGSend's datagrams leave its veth
    with partial UDP checksums (CHECKSUM_PARTIAL): the reflector makes
    them whole, or ITGSend's stack would drop every one. (ITGDec's delays
    of the log are not checked: ITGSend 2.8.1 logs the microseconds of
    the packet it last sent, not the echo's, for what comes back while it
    sends.)"""
    need("ITGSend", "ITGDec")
    loop = make_loop(4)
    loop.netem("delay", "5ms")
    run("ip", "netns", "exec", loop.ns_n, "tc", "qdisc", "add", "dev",
        loop.b, "root", "netem", "delay", "3ms")
    # XDP_TX on a veth reaches the peer only while the peer has an XDP
    # program (Documentation/ebpf.rst): the router's end gets a reflector
    # that sends nothing back (agreed-only, no flow or port of the test)
    peer = f"{loop.c}@{loop.ns_n}"
    run(MTGCTL, "reflect", "attach", peer, "--slot", "3", "--flows", "1:1")
    try:
        tspd.key_file(tmp_path / "k")
        out = tmp_path / "runs"
        out.mkdir()
        sender = loop.dst.rsplit(".", 2)[0] + ".1.1"
        recv = tspd.Recv(tmp_path / "k", out, "--allow-ditg", sender,
                         "--rtt", netns=loop.ns_r)
        log = tmp_path / "send.log"
        with Capture(loop.a, ns=loop.ns_s, bpf="udp port 9501") as cap:
            res = subprocess.run(
                ["ip", "netns", "exec", loop.ns_s, "ITGSend", "-a",
                 loop.dst, "-Sdp", str(recv.port), "-rp", "9501", "-T",
                 "UDP", "-C", "100", "-c", "120", "-t", "2000", "-m",
                 "rttm", "-l", str(log)], cwd=tmp_path,
                capture_output=True, text=True, timeout=300)
        rc, text = recv.stop()
    finally:
        run(MTGCTL, "reflect", "detach", peer)
    assert res.returncode == 0, res.stdout + res.stderr
    assert rc == 0, text
    assert "round trips (-m rttm), each datagram sent back by the " \
        f"reflector on {loop.r}" in text, text
    sent_back = re.search(r"D-ITG flow 1: (\d+) datagrams sent back on ",
                          text)
    assert sent_back, text
    (d,) = itgdec(log)[0].values()
    n = int(d["Total packets"])
    # ITGSend's 200 at -C 100 for 2 s; fewer under the sanitizers
    assert n > (50 if DEBUG_KERNEL else 150)
    assert n == int(sent_back.group(1))
    assert d["Packets dropped"] == 0
    # on the sender's wire: each echo the datagram sent, turned round,
    # with a right checksum (those sent were partial, left to an offload)
    assert cap.lossless, cap.stderr
    there, back = [], []
    for f in cap.frames:
        fr = wire.parse_frame(f.data)
        if fr.dport == 9501:
            there.append(fr.payload)
        else:
            assert fr.sport == 9501
            seg = struct.pack("!HHHH", fr.sport, fr.dport,
                              8 + len(fr.payload), 0) + fr.payload
            assert fr.udp_csum == wire.udp_checksum(fr.src.packed,
                                                    fr.dst.packed, seg)
            back.append(fr.payload)
    assert len(back) == n and sorted(back) == sorted(there)
    assert " xdp" not in run("ip", "-n", loop.ns_r, "link", "show",
                             loop.r).stdout


def test_with_ditg_example():
    """examples/with-ditg.sh, as a user runs it: mtg to ITGRecv (ITGDec
    reads the packets of both flows), ITGSend to mtgctl recv (its
    recording read by mtgsap)."""
    need("ITGSend", "ITGRecv", "ITGDec")
    res = run(ROOT / "examples/with-ditg.sh", check=False,
              timeout=900)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "2 TGs agreed with 1 receiver over TSP" in out
    assert "mtgctl run exit status 0" in out
    assert "a D-ITG sender, let in by --allow-ditg" in out
    assert " accepted as run " in out and ": complete, " in out
