# SPDX-License-Identifier: GPL-2.0-or-later
"""The test-point probe (ebpf/tp.bpf.c, `mtgctl probe`) on real frames.

Two namespaces joined by a veth pair, made and deleted by each test:
frames built by the witness (scripts/mtgwitness/wire.py) leave the sender
through a packet socket, with no module anywhere, and are captured on the
receiver by packet sockets bound to IPv4 and IPv6: those see a frame after
the receiver's tc ingress (the probe), unlike ETH_P_ALL taps, which see it
before. Each frame is compared byte by byte with what was sent.

Needs root (namespaces, BPF, tc) and ebpf/ built (clang, bpftool,
libbpf-dev): skipped with the reason otherwise. Nothing here needs the host
kernel rather than another: the same file runs in the VM (6.1), see
Documentation/ebpf.rst.
"""

import ctypes
import ipaddress
import json
import os
import pathlib
import socket
import struct
import subprocess
import time

import pytest

from mtgwitness import abi, wire

ROOT = pathlib.Path(__file__).resolve().parents[2]
MTGCTL = ROOT / "ctl" / "mtgctl"
PIN_DIR = pathlib.Path("/sys/fs/bpf/mtg/probe")
ETH_P_IP, ETH_P_IPV6, ETH_P_8021Q = 0x0800, 0x86DD, 0x8100
CLONE_NEWNET = 0x40000000
COUNTERS = ("stamped", "already_set", "not_mtg", "unparsed", "failed")
SLOT = 1
# Where slot k lies in the frame's UDP payload, and what the CRC covers.
SLOT_AT = abi.MtgHdr.tp_ns.offset
CRC_AT = abi.MtgHdr.crc.offset


def _missing():
    if os.geteuid():
        return "needs root: namespaces, BPF programs, tc filters"
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C",
                          ROOT / "ebpf", "missing"], capture_output=True,
                         text=True, check=True).stdout.strip()
    return f"ebpf/ cannot be built here: missing {out}" if out else None


pytestmark = pytest.mark.skipif(_missing() is not None,
                                reason=str(_missing()))


def run(*cmd, check=True):
    res = subprocess.run([str(c) for c in cmd], capture_output=True,
                         text=True, timeout=60)
    if check and res.returncode:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {res.returncode}:\n"
                    f"{res.stdout}{res.stderr}")
    return res


def probe(*args, check=True):
    """mtgctl probe ARGS; a kernel without the TAI helper is a skip."""
    res = run(MTGCTL, "probe", *args, check=False)
    if "no bpf_ktime_get_tai_ns" in res.stderr:
        pytest.skip(res.stderr.strip())
    if check and res.returncode:
        pytest.fail(f"mtgctl probe {' '.join(args)} exited "
                    f"{res.returncode}:\n{res.stdout}{res.stderr}")
    return res


def probes(*args, ns=None):
    """The probes list shows (of namespaces ns only, if given)."""
    found = json.loads(probe("list", "--json", *args).stdout)["probes"]
    return [p for p in found if ns is None or p["netns"] in ns]


def counters(where):
    found = probes(where)
    assert len(found) == 1, found
    return found[0]["counters"]


_libc = ctypes.CDLL(None, use_errno=True)


def socket_in(ns, *args):
    """A socket of namespace ns (it stays there; we come back)."""
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(there, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), f"setns {ns}")
        try:
            return socket.socket(*args)
        finally:
            if _libc.setns(here, CLONE_NEWNET):
                os.abort()      # in the wrong namespace for good
    finally:
        os.close(here)
        os.close(there)


class Pair:
    """veth a in namespace ns_a, its peer b in ns_b; IPv6 off in both, so
    that nothing but the test's frames passes (no router solicitations,
    no MLD), and the counters count only those."""

    def __init__(self, tag):
        self.ns_a, self.ns_b = f"mtgtp{tag}a", f"mtgtp{tag}b"
        self.a, self.b = "tpa", "tpb"
        for ns in (self.ns_a, self.ns_b):
            run("ip", "netns", "add", ns)
            run("ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1")
        run("ip", "-n", self.ns_a, "link", "add", self.a, "type", "veth",
            "peer", "name", self.b, "netns", self.ns_b)
        run("ip", "-n", self.ns_a, "link", "set", self.a, "up")
        run("ip", "-n", self.ns_b, "link", "set", self.b, "up")
        self.tx = socket_in(self.ns_a, socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind((self.a, 0))
        self.rx = []
        # (802.1Q: what still has a tag once the receiver took one out)
        for proto in (ETH_P_IP, ETH_P_IPV6, ETH_P_8021Q):
            s = socket_in(self.ns_b, socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(proto))
            s.bind((self.b, proto))
            s.setblocking(False)
            self.rx.append(s)

    @property
    def where_a(self):
        return f"{self.a}@{self.ns_a}"

    @property
    def where_b(self):
        return f"{self.b}@{self.ns_b}"

    def send(self, frame):
        """Send frame from a; the frame b received, and the CLOCK_TAI
        times before the send and after the capture."""
        before = time.clock_gettime_ns(time.CLOCK_TAI)
        self.tx.send(frame)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for s in self.rx:
                try:
                    got = s.recv(65536)
                except BlockingIOError:
                    continue
                return got, before, time.clock_gettime_ns(time.CLOCK_TAI)
            time.sleep(0.001)
        pytest.fail("the frame never arrived on the receiving side")

    def close(self):
        for s in [self.tx, *self.rx]:
            s.close()
        for where in (self.where_a, self.where_b):
            probe("detach", where, check=False)
        for ns in (self.ns_a, self.ns_b):
            run("ip", "netns", "del", ns, check=False)


@pytest.fixture
def pair(mtgctl):
    p = Pair(os.getpid() % 10000)
    try:
        yield p
    finally:
        p.close()


# --- frames ----------------------------------------------------------------

def mtg_payload(tp_ns=(0, 0, 0, 0), body=64, version=abi.HDR_VERSION):
    h = wire.MtgHeader(magic=abi.HDR_MAGIC, version=version, flags=0,
                       hdr_len=abi.HDR_LEN, run_id=7, tg_id=3, seq=42,
                       sched_ns=1_800_000_000_000_000_000, nut=bytes(6),
                       patt_kind=abi.PATT_INCR, patt_value=5, patt_seed=0,
                       crc=0, tx_ns=1_800_000_000_000_000_123, tp_ns=tp_ns)
    return h.encode(crc="auto") + wire.pattern_bytes(abi.PATT_INCR, 5, 0, body)


def addrs(family):
    return ("198.18.0.1", "198.18.0.2") if family == 4 else \
        ("2001:db8::1", "2001:db8::2")


def frame(family=4, payload=None, vlan=None, **kw):
    src, dst = addrs(family)
    f = wire.build_frame(src, dst, 40000, 5001,
                         mtg_payload() if payload is None else payload, **kw)
    if vlan is not None:
        f = f[:12] + struct.pack("!HH", 0x8100, vlan) + f[12:]
    return f


def untagged(f):
    """The frame as the receiver's packet socket shows it: the kernel takes
    a VLAN tag out of the data (into metadata)."""
    return f[:12] + f[16:] if f[12:14] == b"\x81\x00" else f


def set_udp_checksum_zero(f):
    """An IPv4 frame whose UDP checksum is 0: none (allowed over IPv4)."""
    return f[:14 + 20 + 6] + b"\0\0" + f[14 + 20 + 8:]


def ipv4_with_options(payload):
    """IPv4 with 4 bytes of options (NOPs and End), checksums right."""
    src, dst = (ipaddress.ip_address(a).packed for a in addrs(4))
    udp = struct.pack("!HHHH", 40000, 5001, 8 + len(payload), 0) + payload
    udp = udp[:6] + struct.pack("!H", wire.udp_checksum(src, dst, udp)) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x46, 0, 24 + len(udp), 0, 0x4000, 64,
                     17, 0, src, dst) + b"\x01\x01\x01\x00"
    ip = ip[:10] + struct.pack("!H", wire.inet_checksum(ip)) + ip[12:]
    return frame()[:14] + ip + udp


def ipv4_fragment(payload):
    """The first fragment of a datagram (more fragments follow)."""
    f = frame(payload=payload, df=False)
    ip = bytearray(f[14:34])
    ip[6:8] = struct.pack("!H", 0x2000)
    ip[10:12] = b"\0\0"
    ip[10:12] = struct.pack("!H", wire.inet_checksum(bytes(ip)))
    return f[:14] + bytes(ip) + f[34:]


def ipv6_with_hop_by_hop(payload):
    """IPv6, a hop-by-hop options header (PadN), then UDP."""
    src, dst = (ipaddress.ip_address(a).packed for a in addrs(6))
    udp = struct.pack("!HHHH", 40000, 5001, 8 + len(payload), 0) + payload
    udp = udp[:6] + struct.pack("!H", wire.udp_checksum(src, dst, udp)) + udp[8:]
    hbh = bytes([17, 0, 1, 4, 0, 0, 0, 0])
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(hbh) + len(udp), 0, 64,
                     src, dst)
    return frame()[:12] + struct.pack("!H", ETH_P_IPV6) + ip + hbh + udp


def udp_payload_at(f):
    """Where the UDP payload begins in an untagged frame."""
    if struct.unpack_from("!H", f, 12)[0] == ETH_P_IP:
        return 14 + (f[14] & 15) * 4 + 8
    return 14 + 40 + 8


def assert_only_slot_changed(sent, got, slot, before, after):
    """got is sent with tp_ns[slot] stamped (CLOCK_TAI, between before and
    after) and the UDP checksum fixed: every other byte the same, the
    header's CRC and the UDP checksum right."""
    sent = untagged(sent)
    assert len(got) == len(sent)
    start = udp_payload_at(sent) + SLOT_AT + 8 * slot
    csum = udp_payload_at(sent) - 2
    changed = {i for i in range(len(sent)) if sent[i] != got[i]}
    assert changed <= set(range(start, start + 8)) | {csum, csum + 1}
    fr = wire.parse_frame(got)
    assert fr.ok, fr.errors
    assert fr.mtg.crc_ok
    assert before <= fr.mtg.tp_ns[slot] <= after
    sent_hdr = wire.parse_frame(sent).mtg
    assert [t for i, t in enumerate(fr.mtg.tp_ns) if i != slot] == \
        [t for i, t in enumerate(sent_hdr.tp_ns) if i != slot]


# --- the tests ---------------------------------------------------------------

def test_the_slots_lie_outside_the_crc():
    """The header's CRC covers bytes 0..HDR_CRC_LEN-1, the fields fixed when
    a packet is built; the CRC itself follows, then tx_ns, then the slots.
    abi.MtgHdr's offsets are the uapi header's (test_abi_layout.py)."""
    assert CRC_AT == abi.HDR_CRC_LEN
    assert SLOT_AT >= CRC_AT + 4
    h = wire.MtgHeader.decode(mtg_payload())
    stamped = wire.MtgHeader.decode(mtg_payload(tp_ns=(1, 2, 3, 4)))
    assert h.crc_ok and stamped.crc_ok and h.crc == stamped.crc


@pytest.mark.parametrize("vlan", [None, 100], ids=["untagged", "vlan"])
@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
@pytest.mark.parametrize("side", ["ingress", "egress"])
def test_probe_stamps_its_slot(pair, side, family, vlan):
    """On the receiver's ingress or the sender's egress (where a VLAN tag
    is still in the frame's data), an MTG frame gets tp_ns[1] and nothing
    else changes; the other slots keep what they held."""
    where = pair.where_b if side == "ingress" else pair.where_a
    probe("attach", where, "--slot", str(SLOT), f"--{side}")
    sent = frame(family, mtg_payload(tp_ns=(11, 0, 33, 44)), vlan=vlan)
    got, before, after = pair.send(sent)
    assert_only_slot_changed(sent, got, SLOT, before, after)
    assert counters(where) == dict.fromkeys(COUNTERS, 0) | {"stamped": 1}


def test_two_probes_on_the_path(pair):
    """Slot 0 on the sender's egress, slot 2 on the receiver's ingress:
    both stamped, in the order the frame passed them."""
    probe("attach", pair.where_a, "--slot", "0", "--egress")
    probe("attach", pair.where_b, "--slot", "2")
    got, before, after = pair.send(frame())
    h = wire.parse_frame(got).mtg
    assert h.crc_ok and wire.parse_frame(got).ok
    assert before <= h.tp_ns[0] <= h.tp_ns[2] <= after
    assert h.tp_ns[1] == h.tp_ns[3] == 0


def test_zero_udp_checksum_stays_zero(pair):
    """IPv4 without a UDP checksum: stamped, and still without one."""
    probe("attach", pair.where_b, "--slot", str(SLOT))
    sent = set_udp_checksum_zero(frame())
    got, before, after = pair.send(sent)
    fr = wire.parse_frame(got)
    assert fr.udp_csum == 0
    assert fr.errors == ["MTG frame without UDP checksum"]
    assert fr.mtg.crc_ok and before <= fr.mtg.tp_ns[SLOT] <= after
    start = udp_payload_at(sent) + SLOT_AT + 8 * SLOT
    assert got[:start] == sent[:start] and got[start + 8:] == sent[start + 8:]


def test_ipv4_options_are_stepped_over(pair):
    probe("attach", pair.where_b, "--slot", str(SLOT))
    sent = ipv4_with_options(mtg_payload())
    got, before, after = pair.send(sent)
    assert_only_slot_changed(sent, got, SLOT, before, after)


# Frames the probe must pass as they came, and the counter each goes to.
UNTOUCHED = {
    "slot-already-set": (lambda: frame(payload=mtg_payload(
        tp_ns=(0, 123456789, 0, 0))), "already_set"),
    "not-mtg-udp": (lambda: frame(payload=bytes(range(200))), "not_mtg"),
    "short-udp": (lambda: frame(payload=b"ab"), "not_mtg"),
    "other-version": (lambda: frame(payload=mtg_payload(version=2)),
                      "not_mtg"),
    "truncated-mtg": (lambda: frame(payload=mtg_payload()[:60]), "unparsed"),
    "truncated-mtg-ipv6": (lambda: frame(6, payload=mtg_payload()[:87]),
                           "unparsed"),
    "ipv4-fragment": (lambda: ipv4_fragment(mtg_payload()), "unparsed"),
    "ipv6-extension-header": (lambda: ipv6_with_hop_by_hop(mtg_payload()),
                              "unparsed"),
    "two-vlan-tags": (lambda: frame(vlan=5)[:12] + b"\x81\x00\x00\x06" +
                      frame(vlan=5)[12:], "unparsed"),
}


@pytest.mark.parametrize("name", list(UNTOUCHED))
def test_frames_not_its_own_pass_untouched(pair, name):
    """Whatever the probe does not stamp leaves it byte for byte as it came
    and is counted once, under the right counter. (Two VLAN tags: the
    probe is on the sender's egress, where both are still in the data.)"""
    build, counter = UNTOUCHED[name]
    side = "egress" if name == "two-vlan-tags" else "ingress"
    where = pair.where_a if side == "egress" else pair.where_b
    probe("attach", where, "--slot", str(SLOT), f"--{side}")
    sent = build()
    got, _, _ = pair.send(sent)
    expected = sent
    if name == "two-vlan-tags":
        expected = sent[:12] + sent[16:]    # the receiver takes one tag out
    assert got == expected
    assert counters(where) == dict.fromkeys(COUNTERS, 0) | {counter: 1}


def test_probe_outlives_mtgctl_and_lists(pair):
    """attach returns; the probe goes on stamping; list shows it with its
    counters, as text and JSON."""
    probe("attach", pair.where_b, "--slot", "3")
    for _ in range(3):
        pair.send(frame())
    pair.send(frame(payload=b"not mtg at all"))
    (p,) = probes(ns=(pair.ns_a, pair.ns_b))
    assert p == {"dev": pair.b, "netns": pair.ns_b, "direction": "ingress",
                 "slot": 3, "state": "attached", "prog_id": p["prog_id"],
                 "counters": dict.fromkeys(COUNTERS, 0) |
                 {"stamped": 3, "not_mtg": 1}}
    text = probe("list", pair.where_b).stdout
    assert text == (f"{pair.where_b} ingress slot 3: attached, stamped 3, "
                    "already_set 0, not_mtg 1, unparsed 0, failed 0\n")


def tc_filters(ns, dev, side):
    return run("ip", "netns", "exec", ns, "tc", "filter", "show", "dev", dev,
               side).stdout


def test_detach_removes_only_what_mtg_attached(pair):
    """Another bpf filter on the same hook (classic BPF, after mtg's) stays;
    mtg's goes, with its pins."""
    probe("attach", pair.where_b, "--slot", str(SLOT))
    run("ip", "netns", "exec", pair.ns_b, "tc", "filter", "add", "dev",
        pair.b, "ingress", "pref", "50000", "bpf", "bytecode",
        "1,6 0 0 4294967295,")
    assert " tp:[" in tc_filters(pair.ns_b, pair.b, "ingress")
    assert any(PIN_DIR.iterdir())
    res = probe("detach", pair.where_b)
    assert res.stdout == "detached 1 probe\n"
    left = tc_filters(pair.ns_b, pair.b, "ingress")
    assert "pref 50000 bpf" in left and " tp:[" not in left
    assert f"pref {0x4d54} " not in left
    assert not [p for p in PIN_DIR.iterdir() if pair.ns_b in p.name]
    assert probes(pair.where_b) == []
    # nothing stamps any more
    sent = frame()
    got, _, _ = pair.send(sent)
    assert got == sent


def test_probe_of_a_deleted_namespace(pair):
    """The namespace goes, and the filter with it: list says so, detach
    removes the pins."""
    probe("attach", pair.where_b, "--slot", str(SLOT))
    run("ip", "netns", "del", pair.ns_b)
    (p,) = probes(pair.where_b)
    assert p["state"] == "no namespace"
    res = probe("detach", pair.where_b)
    assert "was no longer attached (no namespace)" in res.stderr
    assert probes(pair.where_b) == []


def test_errors_are_clear_and_leave_nothing(pair):
    cases = [
        (["attach", f"nosuch@{pair.ns_b}", "--slot", "1"],
         f"probe: no interface 'nosuch' in namespace {pair.ns_b}"),
        (["attach", f"{pair.b}@mtgtp-no-such-ns", "--slot", "1"],
         "cannot open namespace /run/netns/mtgtp-no-such-ns"),
        (["attach", pair.where_b, "--slot", "4"],
         "probe: --slot expects a number from 0 to 3, got '4'"),
        (["attach", pair.where_b],
         "probe attach: --slot K needed"),
        (["attach", pair.where_b, "--slot", "1", "--ingress", "--egress"],
         "probe attach: --ingress or --egress, not both"),
        (["detach", pair.where_b],
         f"probe detach: no probe of mtg on {pair.where_b}"),
        (["attach", "bad/name", "--slot", "1"],
         "probe attach: 'bad/name' is not DEV or DEV@NETNS"),
        (["list", "--slot", "1", "--json", pair.where_b, pair.where_a],
         "probe list: one DEV at a time"),
    ]
    for args, message in cases:
        res = probe(*args, check=False)
        assert res.returncode == 1, (args, res.stdout, res.stderr)
        assert message in res.stderr, (args, res.stderr)
        assert "Traceback" not in res.stderr
        assert probes(ns=(pair.ns_a, pair.ns_b)) == [], args
    # Already attached: the first one stays, unchanged.
    probe("attach", pair.where_b, "--slot", str(SLOT))
    res = probe("attach", pair.where_b, "--slot", str(SLOT), check=False)
    assert res.returncode == 1
    assert f"probe: {pair.where_b} ingress slot {SLOT} is attached already" \
        in res.stderr
    (p,) = probes(ns=(pair.ns_a, pair.ns_b))
    assert p["state"] == "attached"
    # Not root.
    res = run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              MTGCTL, "probe", "list", check=False)
    assert res.returncode == 1
    assert "probe list: needs root" in res.stderr
