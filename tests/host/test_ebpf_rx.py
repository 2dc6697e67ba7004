# SPDX-License-Identifier: GPL-2.0-or-later
"""The XDP receiver (ebpf/rx.bpf.c, `mtgctl listen --xdp`) on real frames.

As test_ebpf_probe.py: frames built by the witness (scripts/mtgwitness/
wire.py) leave a sender namespace through a packet socket, with no module
anywhere, and `mtgctl listen --xdp` records them on the veth peer in the
receiver's namespace. What the recording holds is compared with what was
sent, and, frame by frame, with what the module's receive path makes of
the same frame (wire.rx_view, its rules in Python).

Needs root and ebpf/ built: skipped with the reason otherwise.
"""

import json
import signal
import socket
import struct
import subprocess
import time

import numpy as np
import pytest

from mtgsap.recording import open_recording
from mtgwitness import abi, wire
import test_ebpf_probe
from test_ebpf_probe import (ETH_P_8021Q, MTGCTL, _missing, addrs, run,
                             socket_in)

pytestmark = pytest.mark.skipif(_missing() is not None,
                                reason=str(_missing()))

RUN = 7
pair = test_ebpf_probe.pair     # the fixture: two namespaces, a veth pair
FLAGS = abi.RX_F_IPV6 | abi.RX_F_HDR_CORRUPT | abi.RX_F_CSUM_BAD


def header(tg, seq, run_id=RUN, **kw):
    fields = dict(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION, flags=0,
                  hdr_len=abi.HDR_LEN, run_id=run_id, tg_id=tg, seq=seq,
                  sched_ns=1_800_000_000_000_000_000 + seq,
                  nut=bytes(range(6)), patt_kind=abi.PATT_INCR,
                  patt_value=5, patt_seed=0, crc=0,
                  tx_ns=1_800_000_000_000_000_123 + seq, tp_ns=(0, 0, 0, 0))
    fields.update(kw)
    return wire.MtgHeader(**fields)


def payload(h, crc="auto", body=64):
    return h.encode(crc=crc) + wire.pattern_bytes(abi.PATT_INCR, 5, 0, body)


def mtg_frame(tg, seq, family=4, vlan=None, run_id=RUN, tos=0):
    src, dst = addrs(family)
    f = wire.build_frame(src, dst, 40000, 5001,
                         payload(header(tg, seq, run_id)), tos=tos)
    return tagged(f, vlan)


def tagged(f, vlan):
    if vlan is None:
        return f
    return f[:12] + struct.pack("!HH", ETH_P_8021Q, vlan) + f[12:]


def xdp_attached(ns, dev):
    return "prog/xdp" in run("ip", "-d", "-n", ns, "link", "show",
                             dev).stdout


class Listener:
    """mtgctl listen --xdp on the pair's b, recording into tmp."""

    def __init__(self, pair, tmp, *args):
        self.pair, self.rec, self.summary = pair, tmp / "x.rec", tmp / "s.json"
        self.p = subprocess.Popen(
            [MTGCTL, "listen", "--xdp", pair.where_b, "--batch", "-o",
             self.rec, "--json", self.summary, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not xdp_attached(pair.ns_b, pair.b):
            if self.p.poll() is not None or time.monotonic() > deadline:
                out, err = self.finish()
                pytest.fail(f"listen --xdp never attached:\n{out}{err}")
            time.sleep(0.05)
        self.lines = []

    def wait_for(self, n):
        """Until a progress line counts n records and ring drops."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.p.stdout.readline()
            self.lines.append(line)
            if "rx: " in line and "records" in line:
                got = line.split("rx: ")[1].split(",")
                if int(got[0].split()[0]) + int(got[2].split()[0]) >= n:
                    return
        pytest.fail(f"never counted {n}:\n{''.join(self.lines)}")

    def finish(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        out, err = self.p.communicate(timeout=60)
        return "".join(getattr(self, "lines", [])) + out, err

    def results(self):
        out, err = self.finish()
        assert not xdp_attached(self.pair.ns_b, self.pair.b), \
            "the receiver stayed attached after mtgctl exited"
        summary = json.loads(self.summary.read_text())
        return out, err, summary, open_recording(self.rec)


def test_a_run_is_recorded_every_packet_once(pair, tmp_path):
    """Four TGs (IPv4, IPv6, each with and without a VLAN tag),
    interleaved: every packet is recorded once, as the module would record
    it, and mtgctl info agrees with what was sent."""
    tgs = {1: (4, None, 40), 2: (6, None, 30), 3: (4, 100, 20),
           4: (6, 200, 10)}
    sent = []
    for seq in range(40):
        for tg, (family, vlan, n) in tgs.items():
            if seq < n:
                sent.append((tg, seq, mtg_frame(tg, seq, family, vlan,
                                                tos=4 * tg)))
    ls = Listener(pair, tmp_path)
    before = time.clock_gettime_ns(time.CLOCK_TAI)
    for _, _, f in sent:
        pair.tx.send(f)
    ls.wait_for(len(sent))
    after = time.clock_gettime_ns(time.CLOCK_TAI)
    out, err, summary, rec = ls.results()
    assert ls.p.returncode == 0, out + err

    r = rec.records
    assert len(r) == len(sent) == summary["rx"]["packets"]
    got = sorted(zip(r["tg_id"].tolist(), r["seq"].tolist()))
    assert got == sorted((tg, seq) for tg, seq, _ in sent)
    assert (r["run_id"] == RUN).all()
    by_key = {(int(x["tg_id"]), int(x["seq"])): x for x in r}
    for tg, seq, f in sent:
        x, untagged = by_key[(tg, seq)], f if tgs[tg][1] is None else \
            f[:12] + f[16:]
        view = wire.rx_view(untagged)
        assert int(x["flags"]) & FLAGS == view.flags
        assert int(x["len"]) == len(untagged)
        assert int(x["payload_len"]) == len(view.payload)
        assert int(x["tx_ns"]) == view.hdr.tx_ns
        assert bytes(x["nut"]) == view.hdr.nut
        assert (int(x["ttl"]), int(x["tos"])) == (64, 4 * tg)
        stamp = int(x["flags"]) & abi.RX_F_STAMP
        assert stamp in (abi.RX_STAMP_HOOK, abi.RX_STAMP_HW)
        if stamp == abi.RX_STAMP_HOOK:
            assert before <= int(x["rx_ns"]) <= after
    assert rec.meta["receiver"]["source"] == "xdp"
    assert rec.meta["interfaces"][0]["dev"] == pair.b

    info = json.loads(run(MTGCTL, "info", "--json", ls.rec).stdout)
    flows = {f["tg_id"]: f for f in info["flows"]}
    assert sorted(flows) == sorted(tgs)
    for tg, (_, _, n) in tgs.items():
        f = flows[tg]
        assert (f["records"], f["received"], f["gaps"], f["duplicates"],
                f["reordered"], f["csum_bad"]) == (n, n, 0, 0, 0, 0)
    assert summary["ring_drops"] == 0
    assert summary["rx"]["xdp"] == {"not_mtg": 0, "unparsed": 0}


def ip4_with_options(f):
    """f (IPv4, untagged) with 4 bytes of IP options (NOPs)."""
    ip = bytearray(f[14:34]) + b"\x01\x01\x01\x01"
    ip[0] = 0x46
    struct.pack_into("!H", ip, 2, len(f) - 14 + 4)
    struct.pack_into("!H", ip, 10, 0)
    struct.pack_into("!H", ip, 10, wire.inet_checksum(bytes(ip)))
    return f[:14] + bytes(ip) + f[34:]


def ip4_set(f, at, fmt, value, fix=True):
    """f with the IPv4 header's field at `at` set (checksum made anew)."""
    b = bytearray(f)
    struct.pack_into(fmt, b, 14 + at, value)
    if fix:
        struct.pack_into("!H", b, 24, 0)
        struct.pack_into("!H", b, 24, wire.inet_checksum(bytes(b[14:34])))
    return bytes(b)


def ipv6_hop_by_hop(tg, seq):
    """An IPv6 frame whose UDP datagram follows a hop-by-hop header."""
    f = mtg_frame(tg, seq, 6)
    ext = bytes([17, 0, 1, 4, 0, 0, 0, 0])      # next UDP, PadN
    b = bytearray(f[:54] + ext + f[54:])
    b[20] = 0                                   # next header: hop-by-hop
    struct.pack_into("!H", b, 18, len(b) - 54)
    return bytes(b)


def bad_frames():
    """(name, frame, what the XDP receiver counts it as if it passes it)."""
    good = mtg_frame(10, 0)
    src, dst = addrs(4)
    flip = bytearray(mtg_frame(10, 10))
    flip[-1] ^= 0xff                            # payload: UDP checksum wrong
    return [
        ("good", good, None),
        ("good_ipv6", mtg_frame(10, 1, 6), None),
        ("truncated", good[:14 + 20 + 8 + 50], "unparsed"),
        ("wrong_magic", wire.build_frame(src, dst, 1, 2, b"MTG2" + payload(
            header(10, 2))[4:]), "not_mtg"),
        ("wrong_crc", wire.build_frame(src, dst, 1, 2, payload(
            header(10, 3), crc=0x12345678)), None),
        ("ip_options", ip4_with_options(mtg_frame(10, 4)), None),
        ("fragment", ip4_set(mtg_frame(10, 5), 6, "!H", 0x0100), "unparsed"),
        ("ipv6_ext_header", ipv6_hop_by_hop(10, 6), "unparsed"),
        ("udp_checksum", bytes(flip), None),
        ("ip_checksum", ip4_set(mtg_frame(10, 7), 8, "!B", 9, fix=False),
         None),
        ("other_version", wire.build_frame(src, dst, 1, 2, payload(
            header(10, 8, version=2))), "not_mtg"),
        ("not_udp", ip4_set(good, 9, "!B", 1), "not_mtg"),
        ("vlan", mtg_frame(10, 9, vlan=5), None),
    ]


# Where mtg_parse.h (shared with the probe and the reflector) stops before
# the module's rules do: the module records these flagged, the XDP
# receiver counts and passes them (Documentation/ebpf.rst says so).
def known_differences():
    src, dst = addrs(4)
    f = mtg_frame(11, 0)
    return [
        ("ip_length_longer", ip4_set(f, 2, "!H", len(f) - 14 + 4),
         "unparsed", abi.RX_F_CSUM_BAD),
        ("other_version_bad_crc", wire.build_frame(src, dst, 1, 2, payload(
            header(11, 1, version=2), crc=1)), "not_mtg",
         abi.RX_F_HDR_CORRUPT),
    ]


def test_bad_frames_counted_and_skipped_or_flagged_as_the_module(pair,
                                                                 tmp_path):
    frames = bad_frames()
    ls = Listener(pair, tmp_path)
    for _, f, *_ in frames + known_differences():
        pair.tx.send(f)
    recorded = [v for name, f, v in frames if v is None]
    ls.wait_for(len(recorded))
    out, err, summary, rec = ls.results()
    assert ls.p.returncode == 0, out + err
    by_key = {(int(x["tg_id"]), int(x["seq"])): x for x in rec.records}
    flagged = {abi.RX_F_HDR_CORRUPT: 0, abi.RX_F_CSUM_BAD: 0}
    for name, f, passed in frames:
        untagged = f[:12] + f[16:] if name == "vlan" else f
        view = wire.rx_view(untagged)
        if passed is not None:
            assert view is None, name
            continue
        assert view is not None, name
        x = by_key.pop((view.hdr.tg_id, view.hdr.seq))
        assert int(x["flags"]) & FLAGS == view.flags, name
        for flag in flagged:
            flagged[flag] += bool(view.flags & flag)
    assert not by_key, f"records of no frame sent: {by_key}"
    for name, f, passed, module_flags in known_differences():
        assert wire.rx_view(f).flags & FLAGS == module_flags, name
    expect = {"not_mtg": 0, "unparsed": 0}
    for _, _, passed, *_ in frames + known_differences():
        if passed:
            expect[passed] += 1
    assert summary["rx"]["xdp"] == expect
    assert summary["rx"]["packets"] == len(recorded)
    assert summary["rx"]["hdr_corrupt"] == flagged[abi.RX_F_HDR_CORRUPT] == 1
    assert summary["rx"]["csum_bad"] == flagged[abi.RX_F_CSUM_BAD] == 2
    assert rec.meta["receiver"]["payload_compared"] is False


def test_a_plain_udp_socket_is_recorded(pair, tmp_path):
    """What a host without the module receives from a sender that is no
    mtg either: MTG headers the test makes, sent by the sending
    namespace's own UDP socket through its stack (addresses, ARP, the
    stack's checksums); every datagram recorded once, as sent."""
    src, dst = addrs(4)
    run("ip", "-n", pair.ns_a, "addr", "add", f"{src}/24", "dev", pair.a)
    run("ip", "-n", pair.ns_b, "addr", "add", f"{dst}/24", "dev", pair.b)
    # A local socket's datagrams leave a veth with the UDP checksum to be
    # completed (tx checksum offload, CHECKSUM_PARTIAL), and XDP sees the
    # bytes as they are: a NIC's wire never carries such a frame, so the
    # sender computes its checksums, as a real host's NIC would.
    run("ip", "netns", "exec", pair.ns_a, "ethtool", "-K", pair.a, "tx",
        "off")
    ls = Listener(pair, tmp_path)
    with socket_in(pair.ns_a, socket.AF_INET, socket.SOCK_DGRAM) as s:
        for seq in range(100):
            s.sendto(payload(header(12, seq), body=seq), (dst, 5001))
    ls.wait_for(100)
    out, err, summary, rec = ls.results()
    assert ls.p.returncode == 0, out + err
    r = rec.records
    assert sorted(r["seq"].tolist()) == list(range(100))
    assert (r["tg_id"] == 12).all() and (r["run_id"] == RUN).all()
    assert (r["flags"] & FLAGS == 0).all()      # IPv4, header, checksum ok
    # (the payload after the header: seq bytes of each)
    assert (r["payload_len"] == r["seq"]).all()
    assert summary["ring_drops"] == 0


def test_ring_full_is_counted(pair, tmp_path):
    """A tiny ring (--ring 16: one page) and a stopped reader: what does
    not fit is counted, and recorded + dropped = sent."""
    ls = Listener(pair, tmp_path, "--ring", "16")
    ls.p.send_signal(signal.SIGSTOP)
    try:
        for seq in range(200):
            pair.tx.send(mtg_frame(1, seq))
    finally:
        ls.p.send_signal(signal.SIGCONT)
    ls.wait_for(200)
    out, err, summary, rec = ls.results()
    assert ls.p.returncode == 2, out + err       # EXIT_COUNTED
    drops = summary["ring_drops"]
    assert drops > 0
    assert len(rec.records) + drops == 200 == summary["rx"]["packets"] + drops
    assert np.all(np.diff(rec.records["seq"].astype(np.int64)) > 0)


def test_run_filter_and_consume_or_pass(pair, tmp_path):
    """--run-id records one run and passes the others on; recorded frames
    are consumed (the stack never sees them) unless --passthrough; a frame
    that is not MTG always passes."""
    src, dst = addrs(4)
    other = wire.build_frame(src, dst, 1, 2, b"not mtg" * 20)
    for passthrough in (False, True):
        args = ["--run-id", str(RUN), "--force"] + \
            (["--passthrough"] if passthrough else [])
        ls = Listener(pair, tmp_path, *args)
        frames = [mtg_frame(1, 0), mtg_frame(1, 1, run_id=RUN + 1), other]
        for f in frames:
            pair.tx.send(f)
        ls.wait_for(1)
        seen = []
        deadline = time.monotonic() + 10
        want = 3 if passthrough else 2
        while len(seen) < want and time.monotonic() < deadline:
            for s in pair.rx:
                try:
                    seen.append(s.recv(65536))
                except BlockingIOError:
                    pass
            time.sleep(0.001)
        out, err, summary, rec = ls.results()
        assert ls.p.returncode == 0, out + err
        assert [int(x["run_id"]) for x in rec.records] == [RUN]
        assert summary["rx"]["foreign"] == 1
        assert summary["rx"]["xdp"]["not_mtg"] == 1
        expect = frames if passthrough else frames[1:]
        assert sorted(seen) == sorted(expect), passthrough


def test_errors_leave_nothing_attached(pair, tmp_path):
    """No such device; an XDP program already there (the reflector's):
    an error, exit 1, nothing attached by listen, not even on the device
    it could attach to before the other failed."""
    res = run(MTGCTL, "listen", "--xdp", f"nosuch@{pair.ns_b}",
              "--duration", "1", check=False)
    assert res.returncode == 1 and "nosuch" in res.stderr, res.stderr
    run(MTGCTL, "reflect", "attach", pair.where_b, "--slot", "2")
    try:
        res = run(MTGCTL, "listen", "--xdp", pair.where_a, pair.where_b,
                  "-o", tmp_path / "no.rec", "--duration", "1", check=False)
        assert res.returncode == 1, res.stdout + res.stderr
        assert "has an XDP program already" in res.stderr
        assert not xdp_attached(pair.ns_a, pair.a)
        assert "name reflect" in run("ip", "-n", pair.ns_b, "link", "show",
                                     pair.b).stdout
        assert not (tmp_path / "no.rec").exists()
    finally:
        run(MTGCTL, "reflect", "detach", pair.where_b, check=False)


def test_needs_root():
    res = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                          "--clear-groups", "--inh-caps=-all", MTGCTL,
                          "listen", "--xdp", "lo", "--duration", "1"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "needs root" in res.stderr, res.stderr
