# SPDX-License-Identifier: GPL-2.0-or-later
"""The XDP reflector (ebpf/reflect.bpf.c, `mtgctl reflect`) on real frames.

Frames built by the witness (scripts/mtgwitness/wire.py) leave a sender
namespace through a packet socket, with no module anywhere; a reflector
sends the MTG frames back, and packet sockets capture what comes back on
the sender's side and what passed on the reflector's.

On veth, XDP_TX hands the frame to the peer's XDP receive queue, which
exists only while the peer has an XDP program (or GRO on): without one the
reflection is dropped by veth. test_veth_peer_needs_an_xdp_program shows
it; elsewhere the peer carries a reflector too, which passes what it
already stamped (a reflection comes back once, never twice).

Needs root and ebpf/ built: skipped with the reason otherwise, as
test_ebpf_probe.py.
"""

import json
import os
import re
import socket
import statistics
import struct
import time

import pytest

from mtgwitness import abi, wire
from test_ebpf_probe import (ETH_P_8021Q, ETH_P_IP, ETH_P_IPV6, MTGCTL,
                             UNTOUCHED, Pair, _missing, addrs, frame,
                             mtg_payload, run, set_udp_checksum_zero,
                             socket_in, untagged)

pytestmark = pytest.mark.skipif(_missing() is not None,
                                reason=str(_missing()))

COUNTERS = ("reflected", "already_set", "not_mtg", "unparsed", "not_agreed",
            "csum_bad")
SLOT = 3
SO_TIMESTAMPNS = 35


def reflect(*args, check=True):
    res = run(MTGCTL, "reflect", *args, check=False)
    if check and res.returncode:
        pytest.fail(f"mtgctl reflect {' '.join(args)} exited "
                    f"{res.returncode}:\n{res.stdout}{res.stderr}")
    return res


def reflectors(*args, ns=None):
    found = json.loads(reflect("list", "--json", *args).stdout)["reflectors"]
    return [r for r in found if ns is None or r["netns"] in ns]


def counters(where):
    found = reflectors(where)
    assert len(found) == 1, found
    return found[0]["counters"]


def rx_sockets(ns, dev):
    """Packet sockets on dev for IPv4, IPv6 and what keeps a VLAN tag,
    with the kernel's receive stamps (CLOCK_REALTIME)."""
    out = []
    for proto in (ETH_P_IP, ETH_P_IPV6, ETH_P_8021Q):
        s = socket_in(ns, socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(proto))
        s.bind((dev, proto))
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.setblocking(False)
        out.append(s)
    return out


def receive(socks, n, timeout=10, keep=lambda data: True):
    """n frames from socks that keep accepts, each with its receive stamp
    in CLOCK_TAI."""
    tai = time.clock_gettime_ns(time.CLOCK_TAI) - time.time_ns()
    got, deadline = [], time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        for s in socks:
            try:
                data, anc, _, _ = s.recvmsg(65536, 64)
            except BlockingIOError:
                continue
            sec, nsec = struct.unpack("qq", anc[0][2][:16])
            if keep(data):
                got.append((data, sec * 10**9 + nsec + tai))
        time.sleep(0.0005)
    return got


def expected_reflection(sent, stamp):
    """What a reflection of sent is: MACs, IPs and ports swapped, the slot
    stamped, the UDP checksum made anew by the witness."""
    fr = wire.parse_frame(untagged(sent))
    h = fr.mtg
    tp = list(h.tp_ns)
    tp[SLOT] = stamp
    payload = wire.MtgHeader(**{**h.__dict__, "tp_ns": tuple(tp)}).encode() \
        + fr.body
    f = wire.build_frame(str(fr.dst), str(fr.src), fr.dport, fr.sport,
                         payload, src_mac=fr.eth_dst, dst_mac=fr.eth_src,
                         ttl=fr.ttl, tos=fr.tos, ip_id=fr.ip_id, df=fr.df)
    if fr.udp_csum == 0:
        f = set_udp_checksum_zero(f)
    return f


class Mirror(Pair):
    """Pair, with a reflector on b and one on a (for veth, see above), and
    capture on a too."""

    def __init__(self, tag):
        super().__init__(tag)
        self.back = rx_sockets(self.ns_a, self.a)

    def close(self):
        for s in self.back:
            s.close()
        for where in (self.where_a, self.where_b):
            reflect("detach", where, check=False)
        super().close()


@pytest.fixture
def mirror(mtgctl):
    m = Mirror(os.getpid() % 10000)
    try:
        yield m
    finally:
        m.close()


@pytest.mark.parametrize("vlan", [None, 100], ids=["untagged", "vlan"])
@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_reflection_is_the_frame_turned_round(mirror, family, vlan):
    """Byte for byte: the returning frame is the sent one with MACs, IP
    addresses and ports swapped, the slot stamped between send and
    receive, and a UDP checksum equal to one computed from scratch."""
    reflect("attach", mirror.where_b, "--slot", str(SLOT))
    reflect("attach", mirror.where_a, "--slot", str(SLOT))
    sent = frame(family, mtg_payload(tp_ns=(11, 0, 33, 0)), vlan=vlan)
    before = time.clock_gettime_ns(time.CLOCK_TAI)
    mirror.tx.send(sent)
    ((got, _),) = receive(mirror.back, 1)
    after = time.clock_gettime_ns(time.CLOCK_TAI)
    fr = wire.parse_frame(got)
    assert fr.ok and fr.mtg.crc_ok, fr.errors
    assert before <= fr.mtg.tp_ns[SLOT] <= after
    assert got == untagged(expected_reflection(sent, fr.mtg.tp_ns[SLOT]))
    assert counters(mirror.where_b) == dict.fromkeys(COUNTERS, 0) | \
        {"reflected": 1}
    # the peer's reflector passed it: its slot was set
    assert counters(mirror.where_a) == dict.fromkeys(COUNTERS, 0) | \
        {"already_set": 1}


def test_zero_udp_checksum_stays_zero(mirror):
    reflect("attach", mirror.where_b, "--slot", str(SLOT))
    reflect("attach", mirror.where_a, "--slot", str(SLOT))
    sent = set_udp_checksum_zero(frame())
    mirror.tx.send(sent)
    ((got, _),) = receive(mirror.back, 1)
    fr = wire.parse_frame(got)
    assert fr.udp_csum == 0 and fr.mtg.crc_ok
    assert got == expected_reflection(sent, fr.mtg.tp_ns[SLOT])


def test_veth_peer_needs_an_xdp_program(mirror):
    """Without an XDP program on the peer (and GRO off, veth's default),
    veth drops what XDP_TX sends: the reflector counts it reflected, and
    nothing comes back. Documentation/ebpf.rst says so."""
    reflect("attach", mirror.where_b, "--slot", str(SLOT))
    mirror.tx.send(frame())
    assert counters(mirror.where_b)["reflected"] == 1
    assert receive(mirror.back, 1, timeout=1) == []


@pytest.mark.parametrize("name", list(UNTOUCHED))
def test_frames_not_its_own_pass_untouched(mirror, name):
    """What the reflector does not reflect goes up the reflector's stack
    byte for byte as it came, counted once under the right counter."""
    build, counter = UNTOUCHED[name]
    reflect("attach", mirror.where_b, "--slot", "1")
    sent = build()
    got, _, _ = mirror.send(sent)
    expected = sent[:12] + sent[16:] if name == "two-vlan-tags" else sent
    assert got == expected
    assert counters(mirror.where_b) == dict.fromkeys(COUNTERS, 0) | \
        {counter: 1}


def test_list_and_errors(mirror):
    reflect("attach", mirror.where_b, "--slot", "2")
    (r,) = reflectors(ns=(mirror.ns_a, mirror.ns_b))
    assert r == {"dev": mirror.b, "netns": mirror.ns_b, "slot": 2,
                 "state": "attached", "prog_id": r["prog_id"],
                 "counters": dict.fromkeys(COUNTERS, 0),
                 "agreed_only": False, "flows": []}
    assert reflect("list", mirror.where_b).stdout == (
        f"{mirror.where_b} slot 2: attached, reflected 0, already_set 0, "
        "not_mtg 0, unparsed 0, not_agreed 0, csum_bad 0\n")
    cases = [
        (["attach", mirror.where_b, "--slot", "1"],
         f"reflect: {mirror.where_b} has mtg's reflector already"),
        (["attach", f"nosuch@{mirror.ns_a}", "--slot", "1"],
         f"reflect: no interface 'nosuch' in namespace {mirror.ns_a}"),
        (["attach", mirror.where_a], "reflect attach: --slot K needed"),
        (["attach", mirror.where_a, "--slot", "4"],
         "reflect: --slot expects a number from 0 to 3, got '4'"),
        (["detach", mirror.where_a, "--slot", "1"],
         "reflect detach: --slot is for 'reflect attach'"),
        (["detach", mirror.where_a],
         f"reflect detach: no reflector of mtg on {mirror.where_a}"),
        (["attach", "bad/name", "--slot", "1"],
         "reflect attach: 'bad/name' is not DEV or DEV@NETNS"),
        (["spin", mirror.where_a], "reflect: no action 'spin'"),
        (["agree", mirror.where_b, "--flows", "7:3"],
         f"reflect: the reflector on {mirror.where_b} sends every MTG "
         "frame back: attach it with --flows"),
        (["agree", mirror.where_a, "--flows", "7:3"],
         f"reflect: no reflector of mtg on {mirror.where_a}"),
        (["agree", mirror.where_b], "reflect agree: --flows RUN:TG"),
        (["list", "--flows", "7:3"], "reflect list: --flows is for"),
        (["detach", mirror.where_b, "--flows", "7:3"],
         "reflect detach: --flows is for"),
    ] + [(["attach", mirror.where_a, "--slot", "1", "--flows", bad],
          f"reflect attach: --flows expects RUN:TG[,RUN:TG...] (a run id "
          f"0 to 4294967295, a TG id 1 to 4294967295), got '{bad}'")
         for bad in ("7", "7:0", "7:3,", ":3", "7:3:1", "4294967296:1",
                     "7:x", "-1:2", "7:3;8:1")]
    for args, message in cases:
        res = reflect(*args, check=False)
        assert res.returncode == 1, (args, res.stdout, res.stderr)
        assert message in res.stderr, (args, res.stderr)
        assert "Traceback" not in res.stderr
    (r2,) = reflectors(ns=(mirror.ns_a, mirror.ns_b))
    assert r2 == r
    # Another program's XDP hook is left alone.
    run("ip", "netns", "exec", mirror.ns_b, "ip", "link", "set", mirror.b,
        "xdp", "off")
    (r3,) = reflectors(ns=(mirror.ns_a, mirror.ns_b))
    assert r3["state"] == "detached"
    res = reflect("detach", mirror.where_b)
    assert "was no longer attached (detached)" in res.stderr
    assert reflectors(ns=(mirror.ns_a, mirror.ns_b)) == []
    res = run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              MTGCTL, "reflect", "list", check=False)
    assert res.returncode == 1 and "reflect list: needs root" in res.stderr


def mtg_flow(run_id, tg_id, seq=0):
    """An IPv4 MTG frame of flow (run_id, tg_id)."""
    h = wire.MtgHeader(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION, flags=0,
                       hdr_len=abi.HDR_LEN, run_id=run_id, tg_id=tg_id,
                       seq=seq, sched_ns=1_800_000_000_000_000_000,
                       nut=bytes(6), patt_kind=abi.PATT_INCR, patt_value=5,
                       patt_seed=0, crc=0, tx_ns=1_800_000_000_000_000_123,
                       tp_ns=(0, 0, 0, 0))
    return frame(4, h.encode(crc="auto") +
                 wire.pattern_bytes(abi.PATT_INCR, 5, 0, 64))


def test_agreed_flows_only(mirror):
    """Attached with --flows, a reflector sends back the frames of those
    flows only, counting each flow's; the frames of other flows (another
    TG, another run) go up its stack as they came, counted not_agreed.
    agree and forget change the flows as it runs; detach takes them
    all."""
    reflect("attach", mirror.where_b, "--slot", str(SLOT), "--flows",
            "7:1,7:2")
    reflect("attach", mirror.where_a, "--slot", str(SLOT))
    sent = {(7, 1): 3, (7, 2): 1, (7, 3): 2, (8, 1): 1}
    for (run_id, tg), n in sent.items():
        for seq in range(n):
            mirror.tx.send(mtg_flow(run_id, tg, seq))
    back = receive(mirror.back, 4)
    got = sorted((wire.parse_frame(f).mtg.run_id, wire.parse_frame(f).mtg.tg_id)
                 for f, _ in back)
    assert got == [(7, 1)] * 3 + [(7, 2)]
    (r,) = reflectors(mirror.where_b)
    assert r["agreed_only"] is True
    assert r["counters"] == dict.fromkeys(COUNTERS, 0) | \
        {"reflected": 4, "not_agreed": 3}
    assert sorted((f["run_id"], f["tg_id"], f["reflected"])
                  for f in r["flows"]) == [(7, 1, 3), (7, 2, 1)]
    assert f"{mirror.where_b} slot {SLOT} agreed flows only: attached" in \
        reflect("list", mirror.where_b).stdout
    assert "  flow 7:1 reflected 3\n" in reflect("list", mirror.where_b).stdout
    # what passed is what was sent: the not-agreed frames reach b's stack
    passed = []
    deadline = time.monotonic() + 10
    while len(passed) < 3 and time.monotonic() < deadline:
        for sock in mirror.rx:
            try:
                passed.append(sock.recv(65536))
            except BlockingIOError:
                time.sleep(0.001)
    assert sorted(passed) == sorted([mtg_flow(7, 3, 0), mtg_flow(7, 3, 1),
                                     mtg_flow(8, 1, 0)])
    # agree and forget as it runs
    assert reflect("agree", mirror.where_b, "--flows", "8:1").stdout == \
        f"agreed 1 flow on {mirror.where_b}\n"
    reflect("forget", mirror.where_b, "--flows", "7:1,7:2")
    res = reflect("forget", mirror.where_b, "--flows", "7:1", check=False)
    assert res.returncode == 1 and "flow 7:1 is not agreed" in res.stderr
    res = reflect("agree", mirror.where_b, "--flows", "8:1", check=False)
    assert res.returncode == 1 and "flow 8:1 is agreed already" in res.stderr
    mirror.tx.send(mtg_flow(7, 1, 9))
    mirror.tx.send(mtg_flow(8, 1, 9))
    ((f, _),) = receive(mirror.back, 1)
    assert (wire.parse_frame(f).mtg.run_id, wire.parse_frame(f).mtg.seq) == \
        (8, 9)
    (r,) = reflectors(mirror.where_b)
    assert [(f["run_id"], f["tg_id"], f["reflected"]) for f in r["flows"]] \
        == [(8, 1, 1)]
    reflect("detach", mirror.where_b)
    assert reflectors(mirror.where_b) == []


# --- round trips through netem ------------------------------------------------

FORWARD_MS, RETURN_MS = 300, 100
# The median round trip beyond the two netem delays: veth hops, forwarding
# in the router and softirq scheduling cost microseconds on an idle host,
# and tens of milliseconds in an emulated VM beside another (33 ms seen);
# the bound is the smaller delay, so that a direction's delay missed or
# counted twice could not pass, and a loaded emulated machine still does.
TOLERANCE_MS = RETURN_MS
# The three stamps come from three clock readers (this process's
# clock_gettime, the BPF helper's fast accessor, the stack's receive
# stamp): all CLOCK_TAI, but in an emulated guest two CPUs' readings were
# seen 9 us apart (the reflection "before" the send). Their order is
# checked to within this.
CLOCKS_NS = 100_000
FRAMES = 20


class Path:
    """sender S --s0/r0-- router R --r1/x0-- reflector X. netem delays
    what S sends (s0 egress, FORWARD_MS) and what R sends back to S (r0
    egress, RETURN_MS); XDP_TX on x0 passes no qdisc. r1 carries a
    reflector too (the veth peer's XDP program)."""

    def __init__(self, tag, delays, loss_pct=0):
        self.ns = {k: f"mtgrf{tag}{k}" for k in "srx"}
        self.tx, self.back = None, []
        s, r, x = self.ns["s"], self.ns["r"], self.ns["x"]
        for ns in self.ns.values():
            run("ip", "netns", "add", ns)
        # (with loss, the router's own IPv6 frames would meet netem too)
        for ns in (s, x, r) if loss_pct else (s, x):
            run("ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1")
        run("ip", "netns", "exec", r, "sysctl", "-q", "-w",
            "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
        run("ip", "-n", s, "link", "add", "s0", "type", "veth", "peer",
            "name", "r0", "netns", r)
        run("ip", "-n", x, "link", "add", "x0", "type", "veth", "peer",
            "name", "r1", "netns", r)
        for ns, dev in ((s, "s0"), (r, "r0"), (r, "r1"), (x, "x0")):
            run("ip", "-n", ns, "link", "set", dev, "up")
        self.mac = {dev: json.loads(run("ip", "-j", "-n", ns, "link", "show",
                                        dev).stdout)[0]["address"]
                    for ns, dev in ((s, "s0"), (r, "r0"), (r, "r1"),
                                    (x, "x0"))}
        self.addr = {4: ("198.18.1.1", "198.18.2.1"),
                     6: ("2001:db8:1::1", "2001:db8:2::1")}
        families = (4,) if loss_pct else (4, 6)
        for cmd in (["addr", "add", "198.18.1.254/24", "dev", "r0"],
                    ["addr", "add", "198.18.2.254/24", "dev", "r1"],
                    ["addr", "add", "2001:db8:1::fe/64", "dev", "r0",
                     "nodad"],
                    ["addr", "add", "2001:db8:2::fe/64", "dev", "r1",
                     "nodad"])[:2 * len(families)]:
            run("ip", "-n", r, *cmd)
        for fam in families:
            snd, refl = self.addr[fam]
            run("ip", "-n", r, "neigh", "replace", snd, "lladdr",
                self.mac["s0"], "dev", "r0", "nud", "permanent")
            run("ip", "-n", r, "neigh", "replace", refl, "lladdr",
                self.mac["x0"], "dev", "r1", "nud", "permanent")
        for ns, dev, ms in ((s, "s0", FORWARD_MS), (r, "r0", RETURN_MS)):
            if not delays:
                break
            res = run("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev",
                      dev, "root", "netem", "delay", f"{ms}ms", "limit",
                      "10000", *(("loss", f"{loss_pct}%") if loss_pct else
                                 ()), check=False)
            if "qdisc kind is unknown" in res.stderr:
                self.close()
                pytest.skip("this kernel has no netem (CONFIG_NET_SCH_NETEM):"
                            " the VM's has (Documentation/ebpf.rst)")
            assert res.returncode == 0, res.stderr
        self.tx = socket_in(s, socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind(("s0", 0))
        self.back = rx_sockets(s, "s0")

    def close(self):
        for sock in [self.tx, *self.back]:
            if sock:
                sock.close()
        for where in (f"x0@{self.ns['x']}", f"r1@{self.ns['r']}"):
            reflect("detach", where, check=False)
        for ns in self.ns.values():
            run("ip", "netns", "del", ns, check=False)


@pytest.fixture
def path(mtgctl, request):
    p = Path(os.getpid() % 10000, request.param)
    try:
        yield p
    finally:
        p.close()


def round_trips(path, family):
    """FRAMES MTG frames, each stamped tx_ns when sent, come back once
    each: checksums and CRC right, addresses and ports turned round, both
    reflectors' counters right; their (tx, reflection, rx) stamps."""
    snd, refl = path.addr[family]
    reflect("attach", f"x0@{path.ns['x']}", "--slot", str(SLOT))
    reflect("attach", f"r1@{path.ns['r']}", "--slot", str(SLOT))
    sent = {}
    for seq in range(FRAMES):
        tx = time.clock_gettime_ns(time.CLOCK_TAI)
        h = wire.MtgHeader(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION,
                           flags=0, hdr_len=abi.HDR_LEN, run_id=7, tg_id=3,
                           seq=seq, sched_ns=tx, nut=bytes(6),
                           patt_kind=abi.PATT_INCR, patt_value=5,
                           patt_seed=0, crc=0, tx_ns=tx, tp_ns=(0,) * 4)
        payload = h.encode(crc="auto") + \
            wire.pattern_bytes(abi.PATT_INCR, 5, 0, 100)
        f = wire.build_frame(snd, refl, 40000, 5001, payload,
                             src_mac=path.mac["s0"], dst_mac=path.mac["r0"])
        path.tx.send(f)
        sent[seq] = tx
    # (the router's own IPv6 frames, MLD, come too: not MTG, left out)
    mtg = lambda data: wire.parse_frame(data).mtg is not None  # noqa: E731
    got = receive(path.back, FRAMES, keep=mtg)
    time.sleep(0.2)             # anything more (a reflection twice) too
    got += receive(path.back, 1, timeout=0.1, keep=mtg)
    assert len(got) == FRAMES
    stamps = []
    for data, rx in got:
        fr = wire.parse_frame(data)
        assert fr.ok and fr.mtg.crc_ok, fr.errors
        assert (str(fr.src), str(fr.dst), fr.sport, fr.dport) == \
            (refl, snd, 5001, 40000)
        assert fr.eth_dst == path.mac["s0"]
        tx, tp = sent.pop(fr.mtg.seq), fr.mtg.tp_ns[SLOT]
        assert fr.mtg.tx_ns == tx
        assert tx - CLOCKS_NS <= tp <= rx + CLOCKS_NS
        stamps.append((tx, tp, rx))
    assert not sent
    # (the router's MLD, with its hop-by-hop header, counts as unparsed)
    x0, r1 = counters(f"x0@{path.ns['x']}"), counters(f"r1@{path.ns['r']}")
    assert (x0["reflected"], x0["already_set"]) == (FRAMES, 0)
    assert (r1["reflected"], r1["already_set"]) == (0, FRAMES)
    return stamps


@pytest.mark.parametrize("path", [False], indirect=True, ids=["no-delay"])
@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_round_trip_through_a_router(path, family):
    """The round trip without delays (this host's kernel has no netem):
    everything but the delays' sizes."""
    round_trips(path, family)


@pytest.mark.parametrize("path", [True], indirect=True, ids=["netem"])
@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_round_trip_through_netem(path, family):
    """With netem's delays: forward >= FORWARD_MS, return >= RETURN_MS
    (netem never delivers early; so the reflection stamp splits the round
    trip where it should), the round trip's median within TOLERANCE_MS
    of the sum."""
    stamps = round_trips(path, family)
    for tx, tp, rx in stamps:
        assert tp - tx >= FORWARD_MS * 10**6
        assert rx - tp >= RETURN_MS * 10**6
    excess = statistics.median(rx - tx for tx, _, rx in stamps) - \
        (FORWARD_MS + RETURN_MS) * 10**6
    assert 0 <= excess < TOLERANCE_MS * 10**6


LOSS_PCT = 30
LOSSY_FRAMES = 60


def netem_dropped(ns, dev):
    out = run("ip", "netns", "exec", ns, "tc", "-s", "qdisc", "show", "dev",
              dev).stdout
    return int(re.search(r"\(dropped (\d+),", out).group(1))


def test_lost_both_ways(mtgctl):
    """netem loses 30% each way (IPv4 only, nothing else on the links):
    the reflector reflects what the way out did not lose, and what comes
    back is that less what the way back lost; netem's own drop counters
    say how many each way lost (P(a way loses none of 60) = 0.7^60 <
    1e-9)."""
    p = Path(os.getpid() % 10000, True, loss_pct=LOSS_PCT)
    try:
        snd, refl = p.addr[4]
        reflect("attach", f"x0@{p.ns['x']}", "--slot", str(SLOT))
        # (r1's passes the reflections on: veth's XDP_TX needs a program
        # on the peer, Documentation/ebpf.rst)
        reflect("attach", f"r1@{p.ns['r']}", "--slot", str(SLOT))
        for seq in range(LOSSY_FRAMES):
            tx = time.clock_gettime_ns(time.CLOCK_TAI)
            h = wire.MtgHeader(magic=abi.HDR_MAGIC, version=abi.HDR_VERSION,
                               flags=0, hdr_len=abi.HDR_LEN, run_id=7,
                               tg_id=3, seq=seq, sched_ns=tx, nut=bytes(6),
                               patt_kind=abi.PATT_INCR, patt_value=5,
                               patt_seed=0, crc=0, tx_ns=tx, tp_ns=(0,) * 4)
            p.tx.send(wire.build_frame(
                snd, refl, 40000, 5001, h.encode(crc="auto"),
                src_mac=p.mac["s0"], dst_mac=p.mac["r0"]))
        mtg = lambda data: wire.parse_frame(data).mtg is not None  # noqa: E731
        time.sleep((FORWARD_MS + RETURN_MS) / 1000 + 1)
        got = receive(p.back, LOSSY_FRAMES, timeout=2, keep=mtg)
        lost_out = netem_dropped(p.ns["s"], "s0")
        lost_back = netem_dropped(p.ns["r"], "r0")
        x0 = counters(f"x0@{p.ns['x']}")
        assert lost_out > 0 and lost_back > 0
        assert x0["reflected"] == LOSSY_FRAMES - lost_out
        assert len(got) == x0["reflected"] - lost_back
        assert len({wire.parse_frame(d).mtg.seq for d, _ in got}) == len(got)
    finally:
        p.close()


def turned(sent):
    """A datagram sent back as it came: MACs, IPs and ports swapped, the
    rest the same (the witness makes the UDP checksum anew: the one it
    had, since the sum does not depend on the order of its terms)."""
    fr = wire.parse_frame(sent)
    return wire.build_frame(str(fr.dst), str(fr.src), fr.dport, fr.sport,
                            fr.payload, src_mac=fr.eth_dst,
                            dst_mac=fr.eth_src, ttl=fr.ttl, tos=fr.tos,
                            ip_id=fr.ip_id, df=fr.df)


def test_ditg_port_sends_datagrams_back_as_they_came(mirror):
    """A port agreed as D-ITG's (run 0: --flows 0:PORT): each UDP datagram
    to it that is no MTG frame goes back as it came, addresses and ports
    swapped, nothing stamped (what ITGRecv does for ITGSend's -m rttm),
    counted for the port; a datagram to another port passes untouched,
    and so does one to the port once it is forgotten."""
    reflect("attach", mirror.where_b, "--slot", str(SLOT), "--flows",
            "0:5001")
    reflect("attach", mirror.where_a, "--slot", str(SLOT))
    # D-ITG's standard header (flow id, sequence number, send time) and
    # filler
    ditg = struct.pack("!IIII", 1, 7, 3600, 250) + bytes(84)
    sent = [frame(4, ditg), frame(6, ditg)]
    for f in sent:
        mirror.tx.send(f)
    back = receive(mirror.back, 2)
    assert sorted(f for f, _ in back) == sorted(turned(f) for f in sent)
    (r,) = reflectors(mirror.where_b)
    assert r["counters"] == dict.fromkeys(COUNTERS, 0) | {"reflected": 2}
    assert [(f["run_id"], f["tg_id"], f["reflected"]) for f in r["flows"]] \
        == [(0, 5001, 2)]
    assert "  D-ITG port 5001 reflected 2\n" in \
        reflect("list", mirror.where_b).stdout
    # the echoes pass the sender's reflector: it takes every MTG frame,
    # and no D-ITG port
    assert counters(mirror.where_a)["not_mtg"] == 2
    src, dst = addrs(4)
    other = wire.build_frame(src, dst, 40000, 5002, ditg)
    got, _, _ = mirror.send(other)
    assert got == other
    reflect("forget", mirror.where_b, "--flows", "0:5001")
    got, _, _ = mirror.send(sent[0])
    assert got == sent[0]
    assert counters(mirror.where_b) == dict.fromkeys(COUNTERS, 0) | \
        {"reflected": 2, "not_mtg": 2}


def with_udp_checksum(f, check):
    """Frame f (untagged) with its UDP checksum field set to check."""
    fr = wire.parse_frame(f)
    at = 14 + (20 if fr.src.version == 4 else 40) + 6
    return f[:at] + struct.pack("!H", check) + f[at + 2:]


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_ditg_checksums(mirror, family):
    """A D-ITG datagram written by a socket on this host over a veth has a
    partial UDP checksum (the pseudo-header's sum alone: CHECKSUM_PARTIAL,
    left to a NIC there is none of): it goes back with the whole one, as
    ITGRecv's socket would send it. One odd in length too. A datagram
    whose checksum is wrong passes, counted csum_bad, as the stack would
    drop it before ITGRecv read it."""
    reflect("attach", mirror.where_b, "--slot", str(SLOT), "--flows",
            "0:5001")
    reflect("attach", mirror.where_a, "--slot", str(SLOT))
    sent = []
    for size in (84, 85, 1200):
        whole = frame(family, (struct.pack("!IIII", 1, size, 3600, 9) +
                               bytes(range(256)) * 5)[:size])
        fr = wire.parse_frame(whole)
        partial = wire.ones_complement_sum(wire.pseudo_header(
            fr.src.packed, fr.dst.packed, 8 + len(fr.payload)))
        sent.append((with_udp_checksum(whole, partial), whole))
    for f, _ in sent:
        mirror.tx.send(f)
    back = receive(mirror.back, len(sent))
    assert sorted(f for f, _ in back) == sorted(turned(w) for _, w in sent)
    fr = wire.parse_frame(sent[0][1])
    bad = with_udp_checksum(sent[0][1], fr.udp_csum ^ 0x0100)
    got, _, _ = mirror.send(bad)
    assert got == bad
    assert counters(mirror.where_b) == dict.fromkeys(COUNTERS, 0) | \
        {"reflected": len(sent), "csum_bad": 1}
