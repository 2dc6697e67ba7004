# SPDX-License-Identifier: GPL-2.0-or-later
"""TGs over a connection (MTG_TG_FLAGS_TCP, _SCTP, _DCCP; ABI 1.7): the
module connects, a worker writes a message per slot, and a plain socket
receiver in the other namespace (mtgwitness.sink) reads them. Every
message arrives whole and in order, every byte is accounted for against a
capture, a full send buffer is waited out and counted, netem's losses show
as TCP retransmissions, and the connection is closed cleanly however the
TG ends."""

import errno
import ipaddress
import json
import os
import struct
import subprocess
import sys
import time

import pytest

import mtgsap
from mtgtest.ctl import MTGCTL
from mtgtest.system import PYTHONPATH, run, tai_ns
from mtgtest.tg import LEAD_NS, MIN_LEN, MS, S, TgSession, new_run_id
from mtgwitness import abi
from mtgwitness.capture import Capture

PORT = 7100
PROTO_FLAG = {"tcp": abi.TG_FLAGS_TCP, "sctp": abi.TG_FLAGS_SCTP,
              "dccp": abi.TG_FLAGS_DCCP}
UDP_OVER = {4: 14 + 20 + 8, 6: 14 + 40 + 8}   # a slot's length less these


@pytest.fixture
def tgs(mtg):
    sess = TgSession()
    yield sess
    sess.close()


class Sink:
    """mtgwitness.sink in the link's far namespace."""

    def __init__(self, link, proto, tmp_path, hold=0):
        self.path = tmp_path / f"sink-{proto}.jsonl"
        cmd = ["ip", "netns", "exec", link.ns, sys.executable, "-m",
               "mtgwitness.sink", proto, link.b_addr, str(PORT),
               str(self.path)]
        if hold:
            cmd += ["--hold", str(hold)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ,
                                              PYTHONPATH=PYTHONPATH))
        line = self.proc.stdout.readline()
        if line.strip() != "listening":
            self.proc.kill()
            pytest.fail(f"sink did not listen: {line!r} "
                        f"{self.proc.stderr.read()}")

    def result(self, timeout=120):
        """The messages and the summary, once the sender has closed."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            pytest.fail("the sink saw no end of the connection")
        assert self.proc.returncode == 0, self.proc.stderr.read()
        lines = [json.loads(x) for x in self.path.read_text().splitlines()]
        return lines[:-1], lines[-1]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def need_protocol(proto):
    """SCTP and DCCP (over IPv4) are modules: a kernel without them is a
    skip, said here rather than as the start's EPROTONOSUPPORT."""
    if proto == "tcp":
        return
    res = run("modprobe", {"sctp": "sctp", "dccp": "dccp_ipv4"}[proto],
              check=False)
    if res.returncode:
        pytest.skip(f"no {proto} in this kernel: {res.stderr.strip()}")


def start(tgs, link, tg_id, proto, entries, **kw):
    kw.setdefault("stop_count", 100)
    return tgs.start(link, tg_id, kw.pop("run_id", new_run_id()),
                     kw.pop("start_ns", tai_ns() + LEAD_NS), entries=entries,
                     dst_port=PORT, src_port=0,
                     flags=PROTO_FLAG[proto] | kw.pop("flags", 0), **kw)


def tcp_segments(frames, src, dst):
    """(first, end) sequence numbers of one direction's TCP data segments
    in a capture, in capture order."""
    ranges = []
    for f in frames:
        d = f.data
        if len(d) < 14:
            continue
        ethertype = struct.unpack_from("!H", d, 12)[0]
        if ethertype == 0x0800:
            ihl = (d[14] & 15) * 4
            proto, total = d[23], struct.unpack_from("!H", d, 16)[0]
            s, t = d[26:30], d[30:34]
            l4, l4_len = 14 + ihl, total - ihl
        elif ethertype == 0x86DD:
            proto, l4_len = d[20], struct.unpack_from("!H", d, 18)[0]
            s, t = d[22:38], d[38:54]
            l4 = 54
        else:
            continue
        if proto != 6 or (s, t) != (src, dst):
            continue
        seq = struct.unpack_from("!I", d, l4 + 4)[0]
        off = (d[l4 + 12] >> 4) * 4
        n = l4_len - off
        if n > 0:
            ranges.append((seq, seq + n))
    return ranges


def tcp_payload_bytes(frames, src, dst):
    """Bytes of one direction's TCP stream in a capture, each counted once
    however often it was sent (retransmissions), SYN and FIN not."""
    ranges = tcp_segments(frames, src, dst)
    if not ranges:
        return 0
    # relative to the first segment's start (the ISN may wrap)
    base = ranges[0][0]
    covered, end = 0, None
    for a, b in sorted(((a - base) % 2**32, (b - base) % 2**32)
                       for a, b in ranges):
        if end is None or a > end:
            covered += b - a
            end = b
        elif b > end:
            covered += b - end
            end = b
    return covered


def addr_bytes(link):
    return (ipaddress.ip_address(link.a_addr).packed,
            ipaddress.ip_address(link.b_addr).packed)


def check_messages(msgs, end, started, st, run_id, entries, count, family,
                   proto, slots=True):
    """Every message whole and in order, as the TG counted them; slots:
    each on its own slot in turn (else on slots in order, the ones
    missing the TG's tx_errors)."""
    assert end["error"] is None, end["error"]
    assert len(msgs) == count == st.sent, (len(msgs), count, st.sent)
    assert [m["seq"] for m in msgs] == list(range(count))
    assert all(m["valid"] and m["pattern_ok"] for m in msgs)
    assert {(m["run_id"], m["tg_id"]) for m in msgs} == {(run_id,
                                                          started.tg_id)}
    lens = [entries[k % len(entries)][1] - UDP_OVER[family]
            for k in range(count)]
    assert [m["len"] for m in msgs] == lens
    prefix = 2 if proto == "tcp" else 0
    assert st.bytes == end["bytes"] == sum(n + prefix for n in lens)
    gaps = [e[0] for e in entries]
    if slots:
        sched = started.start_ns
        for k, m in enumerate(msgs):
            assert m["sched_ns"] == sched, f"message {k} off its slot"
            sched += gaps[k % len(gaps)]
        assert st.tx_errors == 0
    else:
        (gap,) = set(gaps)
        taken = [(m["sched_ns"] - started.start_ns) // gap for m in msgs]
        assert all(m["sched_ns"] == started.start_ns + j * gap
                   for m, j in zip(msgs, taken))
        assert taken == sorted(set(taken))
        assert taken[-1] + 1 - len(taken) == st.tx_errors
    for m in msgs:
        assert m["tx_ns"] >= m["sched_ns"] and m["rx_ns"] >= m["tx_ns"]
    late = [m["tx_ns"] - m["sched_ns"] for m in msgs]
    assert st.lateness_max_ns == max(late)
    assert st.lateness_sum_ns == sum(late)
    assert sum(st.lateness_hist) == count
    assert st.state == abi.TG_STATE_FINISHED and st.error == 0
    assert st.sock_error == 0 and st.next_seq == count
    assert end["peer_port"] == started.src_port != 0


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_tcp_every_byte(make_link, tgs, tmp_path, family):
    """100 messages of two lengths, 10 ms apart, over TCP: the receiver
    reads each whole, in order, on its slot's schedule as the header says;
    the TG counts what it wrote, and the capture carried exactly that
    many bytes of stream. The connection is half-closed once the last
    message is written."""
    link = make_link(family)
    run_id = new_run_id()
    entries = [(10 * MS, MIN_LEN[family]), (10 * MS, 1514)]
    sink = Sink(link, "tcp", tmp_path)
    try:
        with Capture(link.b, ns=link.ns, bpf="tcp") as cap:
            started = start(tgs, link, 1, "tcp", entries, run_id=run_id)
            st = tgs.wait(1)
            msgs, end = sink.result()
    finally:
        sink.kill()
    check_messages(msgs, end, started, st, run_id, entries, 100, family,
                   "tcp")
    assert cap.lossless
    src, dst = addr_bytes(link)
    assert tcp_payload_bytes(cap.frames, src, dst) == st.bytes
    # a loaded emulator may delay an ACK past the RTO: what TCP sent
    # again is on the wire, a segment that starts below what was seen
    segments = tcp_segments(cap.frames, src, dst)
    base = segments[0][0]
    seen, again = 0, 0
    for a, b in segments:
        a, b = (a - base) % 2**32, (b - base) % 2**32   # the ISN may wrap
        again += a < seen
        seen = max(seen, b)
    assert st.retrans == again
    assert st.write_waits == 0


@pytest.mark.parametrize("proto", ["sctp", "dccp"])
def test_message_protocols(make_link, mtg, tmp_path, proto):
    """SCTP and DCCP keep messages apart themselves: no length before
    them, one message per receive, each whole and in order. DCCP has no
    half-close: its connection ends with the session."""
    need_protocol(proto)
    link = make_link(4)
    run_id = new_run_id()
    # DCCP's largest message is its path's MPS: below a full frame
    entries = [(10 * MS, MIN_LEN[4]), (10 * MS, 1000)]
    sink = Sink(link, proto, tmp_path)
    sess = TgSession()
    try:
        started = start(sess, link, 2, proto, entries, run_id=run_id,
                        stop_count=50)
        st = sess.wait(2)
        sess.close()
        msgs, end = sink.result()
    finally:
        sink.kill()
    check_messages(msgs, end, started, st, run_id, entries, 50, 4, proto)


def test_full_send_buffer(make_link, tgs, tmp_path):
    """A receiver that reads nothing for 3 s: the send buffer fills, the
    worker waits for room (counted once per message that waited) and the
    messages go late; slots that find MTG_SOCK_QUEUE messages unwritten
    are lost, counted (tx_errors); every message written arrives once the
    receiver reads."""
    link = make_link(4)
    run_id = new_run_id()
    entries = [(100_000, 1514)]       # 10k/s of 1472-byte messages
    sink = Sink(link, "tcp", tmp_path, hold=3)
    try:
        # a fixed pattern: the sink checks 29 MB in Python
        started = start(tgs, link, 3, "tcp", entries, run_id=run_id,
                        stop_count=20_000, patt_kind=abi.PATT_FIXED,
                        patt_value=0x5A)
        st = tgs.wait(3, timeout=300)
        msgs, end = sink.result(timeout=300)
    finally:
        sink.kill()
    check_messages(msgs, end, started, st, run_id, entries, 20_000, 4,
                   "tcp", slots=False)
    assert st.write_waits > 0, "the buffer never filled: nothing was tested"
    assert st.lateness_max_ns > 1 * S


def test_netem_loss_retransmitted(make_link, tgs, tmp_path):
    """10 % loss on the way (netem): every message still arrives, in
    order, and the retransmissions are in the TG's counters."""
    link = make_link(4)
    # ARP through the loss could fail the start: the neighbour is known
    run("ip", "neigh", "replace", link.b_addr, "lladdr", link.b_mac, "dev",
        link.a, "nud", "permanent")
    run("tc", "qdisc", "add", "dev", link.a, "root", "netem", "loss", "10%")
    run_id = new_run_id()
    entries = [(5 * MS, 400)]
    sink = Sink(link, "tcp", tmp_path)
    try:
        # the connection is made before the start: a lost SYN costs 1 s
        started = start(tgs, link, 4, "tcp", entries, run_id=run_id,
                        stop_count=200, start_ns=tai_ns() + 12 * S)
        st = tgs.wait(4, timeout=300)
        msgs, end = sink.result(timeout=300)
    finally:
        sink.kill()
    check_messages(msgs, end, started, st, run_id, entries, 200, 4, "tcp")
    # P(no loss in 200 data segments at 10 %) = 0.9^200 < 1e-9
    assert st.retrans > 0


def test_connect_errors(make_link, tgs):
    """Nothing listens: the start fails with the connection's error and
    nothing is left. Bad combinations are refused before any connection."""
    link = make_link(4)
    with pytest.raises(OSError) as e:
        start(tgs, link, 5, "tcp", [(MS, 200)])
    assert e.value.errno == errno.ECONNREFUSED
    with pytest.raises(OSError) as e:
        tgs.stats(5)
    assert e.value.errno == errno.ENOENT
    for flags in (abi.TG_FLAGS_ICMP, abi.TG_FLAGS_SCTP, abi.TG_FLAGS_DITG):
        with pytest.raises(OSError) as e:
            start(tgs, link, 5, "tcp", [(MS, 200)], flags=flags)
        assert e.value.errno == errno.EINVAL


def test_endings_close_the_connection(make_link, tgs, tmp_path):
    """Killed, or its session closed: the TG's connection closes and the
    receiver sees its end (a reset if a message was cut short). The
    receiver gone (killed, its namespace deleted): the TG fails with the
    connection's error."""
    link = make_link(4)
    entries = [(10 * MS, 300)]

    after_start = LEAD_NS / S + 1
    sink = Sink(link, "tcp", tmp_path)
    try:
        start(tgs, link, 6, "tcp", entries, stop_count=0)
        time.sleep(after_start)
        with pytest.raises(OSError) as e:
            tgs.s.tg_ctrlmsg(6, b"x")
        assert e.value.errno == errno.EOPNOTSUPP
        tgs.s.tg_kill(6)
        msgs, end = sink.result()
    finally:
        sink.kill()
    st = tgs.stats(6)
    assert end["error"] is None and st.state == abi.TG_STATE_KILLED
    assert 0 < len(msgs) <= st.next_seq and len(msgs) == st.sent

    sess = TgSession()
    sink = Sink(link, "tcp", tmp_path)
    try:
        start(sess, link, 7, "tcp", entries, stop_count=0)
        time.sleep(after_start)
        sess.close()
        msgs, end = sink.result()
    finally:
        sink.kill()
    assert end["error"] is None and len(msgs) > 0

    sink = Sink(link, "tcp", tmp_path)
    start(tgs, link, 8, "tcp", entries, stop_count=0)
    time.sleep(after_start)
    sink.kill()
    run("ip", "netns", "del", link.ns, timeout=60)
    deadline = time.monotonic() + 30
    while tgs.stats(8).state == abi.TG_STATE_RUNNING:
        assert time.monotonic() < deadline, "the TG outlived its receiver"
        time.sleep(0.1)
    st = tgs.stats(8)
    assert (st.state, st.error) == (abi.TG_STATE_FAILED,
                                    abi.TG_ERROR_SOCKET)
    assert st.sock_error in (errno.ECONNRESET, errno.EPIPE), st.sock_error
    # the namespace really goes, and the veth pair with it (the TG lets go
    # of its end when it is unregistered)
    deadline = time.monotonic() + 60
    while os.path.exists(f"/sys/class/net/{link.a}"):
        assert time.monotonic() < deadline, "the namespace never went"
        time.sleep(0.1)


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_listen_accept_records_a_tcp_tg(make_link, tgs, tmp_path, family):
    """mtgctl listen --accept in the far namespace records a TCP TG's
    messages as the module records datagrams: every one, in order, with
    the table's length, its pattern intact, stamped by the kernel after
    it was written."""
    link = make_link(family)
    addr = f"[{link.b_addr}]" if family == 6 else link.b_addr
    p = subprocess.Popen(["ip", "netns", "exec", link.ns, str(MTGCTL),
                          "listen", "--accept", f"tcp:{addr}:{PORT}",
                          "--batch", "-o", "rx.rec", "--json", "rx.json"],
                         cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert "accepting on" in line, line + p.stderr.read()
        run_id = new_run_id()
        entries = [(10 * MS, MIN_LEN[family]), (10 * MS, 1514)]
        started = start(tgs, link, 9, "tcp", entries, run_id=run_id,
                        stop_count=60)
        st = tgs.wait(9)
        time.sleep(2)
        p.send_signal(2)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert st.state == abi.TG_STATE_FINISHED and st.sent == 60
    r = mtgsap.open(tmp_path / "rx.rec").records
    assert list(r["seq"]) == list(range(60))
    assert set(r["run_id"]) == {run_id} and set(r["tg_id"]) == {9}
    assert list(r["len"]) == [entries[k % 2][1] for k in range(60)]
    assert not any(r["wrong_bits"])
    assert not any(r["flags"] & abi.RX_F_HDR_CORRUPT)
    assert all(r["rx_ns"] >= r["tx_ns"]) and all(r["tx_ns"] >= r["sched_ns"])
    assert r["sched_ns"][0] == started.start_ns
    rx = json.loads((tmp_path / "rx.json").read_text())["rx"]
    assert rx["connections"]["accepted"] == 1
    assert rx["connections"]["ended"] == 1
