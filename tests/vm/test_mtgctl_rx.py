# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgctl's receiving side against the module, in MTG's loop-back
configuration: TGs send from a sender namespace, through a namespace
acting as the network under test (forwarding, netem on its way out), back
to an interface the same mtgctl listens on.

A capture on the receiving interface sees every frame just before mtg's
hook does and is the witness: the recording holds the same frames in the
same order, and the summary's counts are what the capture shows under the
same definitions (received: distinct sequence numbers; duplicates;
reordered as RFC 4737 has it). Where netem's randomness decides (loss,
duplication, corruption; it cannot be seeded), the counts are tested
against the binomial distribution netem's parameters give, two-sided at
significance ALPHA each. Those checks test the setup (that netem did what
it was asked), not mtg, whose counts are compared exactly with the
capture's: ALPHA is small, so the four of them fail a correct setup about
once in 25,000 runs rather than once in 250 (CI met a 1-in-6,000 draw). No timing thresholds: the one-way delays are only checked against
the delay netem adds, with a wide margin.
"""

import dataclasses
import itertools
import json
import math
import os
import re
import signal
import stat
import subprocess
import threading
import time

import numpy as np
import pytest

from mtgwitness import abi, wire
from mtgwitness.capture import Capture
from mtgsap.recording import Recording
from mtgtest.ctl import (MTGCTL, act_when, mtgctl_run, mtgctl_start,
                         summary_of, write_idf)
from mtgtest.system import DEBUG_KERNEL, ROOT, no_port_counters, run, unique

ALPHA = 1e-5
MS = 1_000_000
START_DELAY = "3"
# Listening goes on this long after the TGs end: more than netem's delay,
# and on the debug kernel more than the receive path's lag behind.
DRAIN = "30" if DEBUG_KERNEL else "2"
BPF = ("udp or (icmp and icmp[icmptype] == icmp-unreach) "
       "or (icmp6 and ip6[40] == 1)")

_nets = itertools.count(1)


# --- the loop: sender -> network under test -> receiver ------------------------

@dataclasses.dataclass
class Loop:
    ns_s: str           # the sender's namespace, interface a
    ns_n: str           # the network under test: b (from a), c (to r)
    ns_r: str           # the receiver's namespace (None: mtgctl's own)
    a: str
    b: str
    c: str
    r: str
    family: int
    dst: str            # r's address

    def listen(self):
        return f"{self.r}@{self.ns_r}" if self.ns_r else self.r

    def netem(self, *args):
        run("ip", "netns", "exec", self.ns_n, "tc", "qdisc", "add", "dev",
            self.c, "root", "netem", *args)

    def capture(self):
        return Capture(self.r, ns=self.ns_r, bpf=BPF)


def in_ns(ns, *cmd):
    run(*(["ip", "netns", "exec", ns] if ns else []), *cmd)


@pytest.fixture
def make_loop(mtg, netns):
    def make(family=4, receiver_in_root=False):
        n = 100 + next(_nets)
        ns_s, ns_n = netns(), netns()
        ns_r = None if receiver_in_root else netns()
        a, b, c, r = (unique(x) for x in ("la", "lb", "lc", "lr"))
        run("ip", "link", "add", a, "netns", ns_s, "type", "veth", "peer",
            "name", b, "netns", ns_n)
        run("ip", "link", "add", c, "netns", ns_n, "type", "veth", "peer",
            "name", r, *(["netns", ns_r] if ns_r else []))
        if family == 4:
            net = [f"10.{n}.1.1/24", f"10.{n}.1.2/24", f"10.{n}.2.1/24",
                   f"10.{n}.2.2/24"]
            routes = [(ns_s, f"10.{n}.2.0/24", f"10.{n}.1.2"),
                      (ns_r, f"10.{n}.1.0/24", f"10.{n}.2.1")]
            in_ns(ns_n, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            extra = []
        else:
            net = [f"fd00:{n}:1::1/64", f"fd00:{n}:1::2/64",
                   f"fd00:{n}:2::1/64", f"fd00:{n}:2::2/64"]
            routes = [(ns_s, f"fd00:{n}:2::/64", f"fd00:{n}:1::2"),
                      (ns_r, f"fd00:{n}:1::/64", f"fd00:{n}:2::1")]
            in_ns(ns_n, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
            extra = ["nodad"]
        for ns, dev, addr in ((ns_s, a, net[0]), (ns_n, b, net[1]),
                              (ns_n, c, net[2]), (ns_r, r, net[3])):
            in_ns(ns, "ip", "addr", "add", addr, "dev", dev, *extra)
            in_ns(ns, "ip", "link", "set", dev, "up")
        for ns, prefix, via in routes:
            in_ns(ns, "ip", "route", "add", prefix, "via", via)
        # The network under test knows r's MAC address from the start:
        # while it resolves one, it queues packets and flushes them from
        # one CPU as later ones come through the other: reordering that
        # a test of a clean network does not want.
        r_mac = run(*(["ip", "netns", "exec", ns_r] if ns_r else []), "cat",
                    f"/sys/class/net/{r}/address").stdout.strip()
        in_ns(ns_n, "ip", "neigh", "replace", net[3].split("/")[0],
              "lladdr", r_mac, "dev", c, "nud", "permanent")
        # One CPU takes every packet r receives (RPS): the capture and the
        # hook, which run one after the other for each packet, then see
        # them in the same order whichever CPU netem sent them from.
        in_ns(ns_r, "sh", "-c",
              f"echo 1 > /sys/class/net/{r}/queues/rx-0/rps_cpus")
        return Loop(ns_s, ns_n, ns_r, a, b, c, r, family,
                    net[3].split("/")[0])
    return make


# --- what the witness says -------------------------------------------------------

def witness(frames, run_id):
    """The frames the hook records, as the module's rules see them (in
    capture order): [(frame, RxView)], and any other frame."""
    ours, others = [], []
    for f in frames:
        view = wire.rx_view(f.data)
        if view and not view.ctrl and (view.flags & abi.RX_F_HDR_CORRUPT or
                                       view.hdr.run_id == run_id):
            ours.append((f, view))
        else:
            others.append(f)
    return ours, others


def rfc4737(seqs):
    """received (distinct), duplicates, reordered (below the next expected
    sequence number, duplicates aside), in arrival order."""
    seen, next_exp, reordered = set(), None, 0
    for s in seqs:
        if s in seen:
            continue
        if next_exp is not None and s < next_exp:
            reordered += 1
        else:
            next_exp = s + 1
        seen.add(s)
    return len(seen), len(seqs) - len(seen), reordered


def binomial_interval(n, p, alpha=ALPHA):
    """[lo, hi]: a Binomial(n, p) count falls below lo, or above hi, with
    probability at most alpha / 2 each."""
    logs = [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p) for k in range(n + 1)]
    pmf = [math.exp(x) for x in logs]
    lo, tail = 0, 0.0
    while tail + pmf[lo] <= alpha / 2:
        tail += pmf[lo]
        lo += 1
    hi, tail = n, 0.0
    while tail + pmf[hi] <= alpha / 2:
        tail += pmf[hi]
        hi -= 1
    return lo, hi


def tai_offset_ns():
    diff = time.clock_gettime_ns(time.CLOCK_TAI) - time.time_ns()
    return round(diff / 1e9) * 1_000_000_000


def globals_idf(loop, count, length, listen=True, out=None, tg_netns=None):
    """The globals of a run from loop.a; the TGs' namespace global, or
    (tg_netns) left for each TG to give."""
    text = f"dev {loop.a}\n" if tg_netns else f"netns {loop.ns_s} dev {loop.a}\n"
    if listen:
        text = f"listen {loop.listen()}\n" + text
    if out:
        text = f"out {out}\n" + text
    return text + (f"dist fixed pkts fixed {length} {length} inta 1ms "
                   f"count {count} patt random\n")


def dst(loop, port):
    return (f"{loop.dst}:{port}" if loop.family == 4
            else f"[{loop.dst}]:{port}")


def check_recording(path, s, idf_text, ours):
    """The recording: complete, what the summary says, the frames of the
    witness in the same order, its metadata the run's."""
    rec = Recording(path)
    assert rec.complete
    assert rec.records.dtype == np.dtype(abi.RxRec), \
        "the metadata's dtype is not the uapi header's struct mtg_rx_rec"
    assert len(rec) == s["recording"]["records"] == s["rx"]["packets"]
    assert (rec.header["not_written"], rec.header["ring_drops"]) == \
        (s["recording"]["not_written"], s["ring_drops"])
    meta = rec.meta
    assert (meta["format"], meta["command"], meta["run_id"]) == \
        ("mtg-recording", "run", s["run_id"])
    assert meta["idf"]["text"] == idf_text
    assert [t["id"] for t in meta["tgs"]] == [t["id"] for t in s["tgs"]]
    assert meta["clock"]["id"] == "CLOCK_TAI"
    if ours is not None:
        r = rec.records
        assert len(r) == len(ours), (s["rx"], s["tgs"])
        assert [(int(a), int(b)) for a, b in zip(r["tg_id"], r["seq"])] == \
            [(v.hdr.tg_id, v.hdr.seq) for _, v in ours]
        stamp = r["flags"] & abi.RX_F_STAMP
        assert set(stamp) == {abi.RX_STAMP_SW}
        off = tai_offset_ns()
        assert list(r["rx_ns"]) == [f.ts_ns + off for f, _ in ours]
        assert list(r["flags"] & (0xFFFF ^ abi.RX_F_STAMP)) == \
            [v.flags for _, v in ours]
        assert list(r["wrong_bits"]) == [v.wrong_bits for _, v in ours]
    return rec


def owd_of_records(records, tg_id):
    """One-way delays (rx_ns - tx_ns) as RFC 7679 and mtgctl take them,
    computed here from the records: each packet's first arrival, sound
    header and checksums, summarized as the summary's owd_ns."""
    seen, owd = set(), []
    for r in records[records["tg_id"] == tg_id]:
        if r["flags"] & abi.RX_F_HDR_CORRUPT or int(r["seq"]) in seen:
            continue
        seen.add(int(r["seq"]))
        if not r["flags"] & abi.RX_F_CSUM_BAD and r["rx_ns"] >= r["tx_ns"]:
            owd.append(int(r["rx_ns"]) - int(r["tx_ns"]))
    return wire.hist_summary(owd, keys=("p50", "p99"))


def check_info(path, s):
    """mtgctl info and mtgsap count the recording's flows as the run
    counted them; the one-way delays are those the records give."""
    res = subprocess.run([MTGCTL, "info", path, "--json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    flows = {f["tg_id"]: f for f in json.loads(res.stdout)["flows"]}
    res = subprocess.run([ROOT / ".venv/bin/mtgsap", "flows", path, "--json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    sap = {f["tg"]: f for f in json.loads(res.stdout)["flows"]}
    r = Recording(path).records
    r = r[(r["flags"] & abi.RX_F_HDR_CORRUPT) == 0]
    for tg in s["tgs"]:
        f = sap.get(tg["id"])
        if f is not None:
            assert (f["received"], f["duplicates"], f["reordered"],
                    f["bit_errors"], f["bits"]) == \
                (tg["received"], tg["duplicates"], tg["reordered"],
                 tg["bit_errors"], tg["bits"])
            # mtgsap counts the gaps below the highest sequence number
            # received; the run knows what was sent after it too.
            assert f["lost"] <= tg["lost"]
            assert f["lost"] + f["received"] == \
                1 + int(r["seq"][r["tg_id"] == tg["id"]].max())
    for tg in s["tgs"]:
        f = flows.get(tg["id"])
        if f is None:
            assert tg["received"] == 0
            continue
        assert (f["received"], f["duplicates"], f["reordered"],
                f["bit_errors"], f["bits"]) == \
            (tg["received"], tg["duplicates"], tg["reordered"],
             tg["bit_errors"], tg["bits"])
        assert f["owd_ns"] == {k: tg["owd_ns"][k]
                               for k in ("p50", "p99", "max", "mean")}
    everything = Recording(path).records
    for tg in s["tgs"]:
        assert tg["owd_ns"] == owd_of_records(everything, tg["id"]), tg["id"]


# --- the tests --------------------------------------------------------------------

def test_loss_duplicates_reordering(make_loop, tmp_path):
    """netem on the way back: loss 1%, duplicate 0.5%, a delay of 10 ms
    plus up to 2 ms of jitter (which reorders). 4 TGs of 5000 packets:
    per TG, sent = received + lost, and duplicates and reorderings as the
    capture shows them; loss and duplication within the binomial
    interval; one-way delays at or above 10 ms and close to it; no ICMP
    error comes back."""
    loop = make_loop(4)
    loop.netem("delay", "11ms", "1ms", "loss", "1%", "duplicate", "0.5%")
    text = (globals_idf(loop, 5000, 200) +
            "".join(f"tgid {i} dst {dst(loop, 9000 + i)}\n"
                    for i in range(1, 5)))
    write_idf(tmp_path, text)
    before = no_port_counters(loop.ns_r)
    with loop.capture() as cap:
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "-o",
                         "run.rec", "--drain", DRAIN)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    s = summary_of(tmp_path)
    ours, others = witness(cap.frames, s["run_id"])
    assert others == [], "frames that are not this run's (ICMP errors?)"
    # Packets that got past the hook (arriving after listening ended?).
    assert no_port_counters(loop.ns_r) == before, (s["rx"], res.stdout)

    for tg in s["tgs"]:
        assert tg["sent"] == 5000
        seqs = [v.hdr.seq for _, v in ours if v.hdr.tg_id == tg["id"]]
        assert (tg["received"], tg["duplicates"], tg["reordered"]) == \
            rfc4737(seqs)
        assert tg["received"] + tg["lost"] == tg["sent"]
        assert (tg["bit_errors"], tg["ber"], tg["csum_bad"]) == (0, 0, 0)
        assert tg["owd_ns"]["p50"] >= 10 * MS
        # Stamped near the wire: little more than netem's delay. Not on the
        # debug kernel, whose receive path lags seconds behind (the delay
        # it measures is real, and that long).
        assert DEBUG_KERNEL or tg["owd_ns"]["p50"] < (10 + 2 + 50) * MS
    sent = sum(t["sent"] for t in s["tgs"])
    lost = sum(t["lost"] for t in s["tgs"])
    dups = sum(t["duplicates"] for t in s["tgs"])
    # netem drops a packet (and then makes no copy) with p_loss; a copy
    # goes through the loss test again.
    qdisc = run("ip", "netns", "exec", loop.ns_n, "tc", "-s", "qdisc",
                "show", "dev", loop.c).stdout
    lo, hi = binomial_interval(sent, 0.01 * (1 - 0.005))
    assert lo <= lost <= hi, (lost, lo, hi, qdisc)
    lo, hi = binomial_interval(sent, 0.005 * 0.99 * 0.99)
    assert lo <= dups <= hi, (dups, lo, hi, qdisc)
    assert sum(t["reordered"] for t in s["tgs"]) > 0, "the jitter reordered nothing"
    assert (s["ring_drops"], s["rx"]["hdr_corrupt"], s["rx"]["foreign"]) == \
        (0, 0, 0)

    rec = check_recording(tmp_path / "run.rec", s, text, ours)
    owd = rec.records["rx_ns"] - rec.records["tx_ns"]
    assert owd.min() >= 10 * MS
    check_info(tmp_path / "run.rec", s)
    # The report says it too.
    assert "rx: %d records (0 header-corrupt" % len(rec) in res.stdout
    assert f"recording run.rec: {len(rec)} records written, 0 not written" \
        in res.stdout


def test_clean_loop_ipv6(make_loop, tmp_path):
    """No netem, IPv6, the receiver in mtgctl's own namespace, the
    recording named by the IDF's `out`: nothing lost, duplicated,
    reordered or damaged."""
    loop = make_loop(6, receiver_in_root=True)
    # A bare `listen` device is in the global namespace: here none is
    # global, each TG names its own, and r is in mtgctl's namespace.
    text = (globals_idf(loop, 1000, 300, out="clean.rec", tg_netns=True) +
            "".join(f"tgid {i} netns {loop.ns_s} dst {dst(loop, 9000 + i)}\n"
                    for i in (1, 2)))
    write_idf(tmp_path, text)
    before = no_port_counters()
    with loop.capture() as cap:
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "--drain",
                         DRAIN)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    s = summary_of(tmp_path)
    ours, others = witness(cap.frames, s["run_id"])
    assert others == []
    assert no_port_counters() == before
    for tg in s["tgs"]:
        seqs = [v.hdr.seq for _, v in ours if v.hdr.tg_id == tg["id"]]
        assert (tg["received"], tg["duplicates"], tg["reordered"]) == \
            rfc4737(seqs)
        assert (tg["sent"], tg["received"], tg["lost"], tg["duplicates"],
                tg["reordered"], tg["bit_errors"], tg["ber"]) == \
            (1000, 1000, 0, 0, 0, 0, 0.0)
        assert tg["bits"] == 1000 * (300 - 150) * 8
        assert tg["owd_ns"]["p50"] <= tg["owd_ns"]["max"]
    check_recording(tmp_path / "clean.rec", s, text, ours)
    check_info(tmp_path / "clean.rec", s)


def test_corruption_counts(make_loop, tmp_path):
    """netem corrupt 5% with 1400-byte frames: it flips one bit at a
    uniformly random place of a frame. Every record as the capture shows
    its frame (flags, wrong bits); the bit errors (a flip in the 1270
    bytes of payload) and the corrupt headers (a flip in the 44 bytes
    after the magic that the CRC covers, the CRC included; a flipped magic
    makes a frame that is no MTG frame) within the binomial interval."""
    loop = make_loop(4)
    loop.netem("corrupt", "5%")
    text = (globals_idf(loop, 2000, 1400) +
            "".join(f"tgid {i} dst {dst(loop, 9000 + i)}\n" for i in (1, 2)))
    write_idf(tmp_path, text)
    with loop.capture() as cap:
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "-o",
                         "bad.rec", "--drain", DRAIN)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    s = summary_of(tmp_path)
    ours, _ = witness(cap.frames, s["run_id"])
    check_recording(tmp_path / "bad.rec", s, text, ours)
    sent = sum(t["sent"] for t in s["tgs"])
    hits = [v.wrong_bits for _, v in ours]
    assert set(hits) <= {0, 1}, "netem flips one bit a frame"
    bit_errors = sum(t["bit_errors"] for t in s["tgs"])
    assert bit_errors == sum(hits) == s["rx"]["wrong_bits"]
    corrupt = sum(bool(v.flags & abi.RX_F_HDR_CORRUPT) for _, v in ours)
    assert corrupt == s["rx"]["hdr_corrupt"]
    lo, hi = binomial_interval(sent, 0.05 * 1270 / 1400)
    assert lo <= bit_errors <= hi, (bit_errors, lo, hi)
    magic, crc = 4, 4       # the CRC covers the magic, but see above
    lo, hi = binomial_interval(sent, 0.05 * (abi.HDR_CRC_LEN - magic + crc)
                               / 1400)
    assert lo <= corrupt <= hi, (corrupt, lo, hi)
    for tg in s["tgs"]:
        assert tg["ber"] == tg["bit_errors"] / tg["bits"]
        assert tg["received"] + tg["lost"] == tg["sent"]
    check_info(tmp_path / "bad.rec", s)


def test_tiny_ring_slow_consumer(make_loop, tmp_path):
    """A ring of 16 records and mtgctl stopped (SIGSTOP) for a second and
    a half while 2000 packets arrive: sent = recorded + ring drops,
    exactly; the drops are in the summary, the recording's header and an
    event line, and the exit status says something was lost."""
    loop = make_loop(4)
    text = globals_idf(loop, 2000, 200) + f"tgid 1 dst {dst(loop, 9001)}\n"
    write_idf(tmp_path, text)
    proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY, "--ring",
                        "16", "-o", "tiny.rec")

    def pause():
        os.kill(proc.pid, signal.SIGSTOP)
        time.sleep(1.5)
        os.kill(proc.pid, signal.SIGCONT)

    out, err = act_when(proc, lambda line: " rx: " in line, pause)
    assert proc.returncode == 2, out + err
    s = summary_of(tmp_path)
    (tg,) = s["tgs"]
    rec = Recording(tmp_path / "tiny.rec")
    assert s["ring_drops"] > 0
    assert tg["sent"] == 2000 == len(rec) + s["ring_drops"]
    assert rec.header["ring_drops"] == s["ring_drops"]
    assert (tg["received"], tg["lost"]) == (len(rec), s["ring_drops"])
    assert "event: the receive ring is full: 1 packets dropped so far" in out


def test_disk_full(make_loop, tmp_path):
    """The recording on a 256 KiB tmpfs fills it: the run stops with a
    message, the file holds whole records only and says how many could not
    be written, and what was written and not adds up to what the module
    recorded."""
    loop = make_loop(4)
    small = tmp_path / "small"
    small.mkdir()
    run("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small)
    try:
        text = globals_idf(loop, 20000, 200) + \
            f"tgid 1 dst {dst(loop, 9001)}\n"
        write_idf(tmp_path, text)
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "-o",
                         "small/full.rec")
        assert res.returncode == 1, res.stdout + res.stderr
        assert res.stderr.startswith(
            "mtgctl: cannot write the recording small/full.rec: No space "
            "left on device: stopping the run\n"), res.stderr
        s = summary_of(tmp_path)
        (tg,) = s["tgs"]
        assert tg["state"] == "killed" and tg["sent"] < 20000
        rec = Recording(small / "full.rec")
        size = (small / "full.rec").stat().st_size
        assert size == rec.header["header_bytes"] + 96 * len(rec) <= 256 << 10
        assert rec.complete and len(rec) > 0
        assert rec.header["not_written"] == s["recording"]["not_written"] > 0
        assert len(rec) == s["recording"]["records"]
        assert len(rec) + rec.header["not_written"] == s["rx"]["packets"]
        assert list(rec.records["seq"]) == list(range(len(rec)))
        rec.close()
        info = subprocess.run([MTGCTL, "info", small / "full.rec"],
                              capture_output=True, text=True)
        assert info.returncode == 0, info.stderr
    finally:
        run("umount", small)


def strace_counts(cmd, cwd, timeout=600):
    """Run cmd under strace -f -c: (its result, {system call: calls})."""
    res = subprocess.run(["strace", "-f", "-c", "-o", "strace.txt", *cmd],
                         cwd=cwd, capture_output=True, text=True,
                         timeout=timeout)
    counts = {}
    for line in (cwd / "strace.txt").read_text().splitlines():
        f = line.split()
        if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
            counts[f[-1]] = int(f[3])
    assert counts, (cwd / "strace.txt").read_text()
    return res, counts


# Waiting and reading the clock (a system call where the clocksource has no
# vDSO, as under emulation) are not the receive path's.
WAITING = {"nanosleep", "clock_nanosleep", "clock_gettime", "poll", "ppoll"}


def test_no_system_call_per_packet(make_loop, tmp_path):
    """mtgctl reads received packets from the shared ring: a run that
    receives 10 times as many packets (20,000 against 2,000, in the same
    second) makes hardly more system calls besides waiting (strace counts
    them). And idle it backs off: sleeps of 20 us doubling to 1 ms, so 2 s
    of listening to nothing cost at most about 2,000 sleeps (at 20 us each
    it would be 100,000)."""
    loop = make_loop(4)
    calls, received = {}, {}
    for count, gap in ((1000, "1ms"), (10000, "100us")):
        write_idf(tmp_path, globals_idf(loop, count, 200).replace(
            "inta 1ms", f"inta {gap}") + "".join(
            f"tgid {i} dst {dst(loop, 9000 + i)}\n" for i in (1, 2)))
        res, counts = strace_counts(
            [MTGCTL, "run", "run.idf", "--batch", "--json", "summary.json",
             "--start-delay", START_DELAY, "--drain", DRAIN], tmp_path)
        assert res.returncode in (0, 2), res.stdout + res.stderr
        received[count] = sum(t["received"] for t in summary_of(
            tmp_path)["tgs"])
        calls[count] = sum(n for name, n in counts.items()
                           if name not in WAITING)
    more_packets = received[10000] - received[1000]
    assert more_packets >= 10000, received
    assert calls[10000] - calls[1000] <= more_packets // 100, \
        (calls, received)

    res, counts = strace_counts(
        [MTGCTL, "listen", loop.listen(), "--batch", "--duration", "2"],
        tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    sleeps = counts.get("nanosleep", 0) + counts.get("clock_nanosleep", 0)
    # 2 s of 1 ms sleeps, the ramp from 20 us, and the progress lines.
    assert 0 < sleeps <= 2000 + 10, counts


def test_listen_command(make_loop, tmp_path):
    """A receive-only session records a sender's run: every run's packets,
    counted per (run, TG), until SIGINT (exit 0)."""
    loop = make_loop(4)
    listener = subprocess.Popen(
        [MTGCTL, "listen", loop.listen(), "--batch", "-o", "listen.rec",
         "--json", "listen.json"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        first = listener.stdout.readline()
        assert first.startswith("listening on 1 interface for every run, "
                                "recording listen.rec, from "), \
            first + listener.stderr.read()
        text = globals_idf(loop, 500, 200, listen=False) + "".join(
            f"tgid {i} dst {dst(loop, 9000 + i)}\n" for i in (1, 2))
        write_idf(tmp_path, text)
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
        assert res.returncode == 0, res.stdout + res.stderr
        time.sleep(1)
        listener.send_signal(signal.SIGINT)
        out, err = listener.communicate(timeout=120)
    finally:
        if listener.poll() is None:
            listener.kill()
            listener.wait()
    assert listener.returncode == 0, out + err
    sender = summary_of(tmp_path)
    got = json.loads((tmp_path / "listen.json").read_text())
    assert (got["command"], got["run_id"], got["file"]) == \
        ("listen", None, None)
    # Flows in the order they were first met: either TG may come first.
    assert sorted((t["run_id"], t["id"], t["received"], t["lost"],
                   t["duplicates"], t["reordered"]) for t in got["tgs"]) == \
        [(sender["run_id"], i, 500, 0, 0, 0) for i in (1, 2)]
    assert got["recording"]["records"] == 1000 and got["ring_drops"] == 0
    rec = Recording(tmp_path / "listen.rec")
    assert len(rec) == 1000
    assert (rec.meta["command"], rec.meta["run_id"], rec.meta["idf"]) == \
        ("listen", None, None)
    assert f"run {sender['run_id']} tg 1: 500 received, 0 lost" in out


def test_listen_for_a_while(make_loop, tmp_path):
    """--duration ends a receive-only session by itself; nothing arrived,
    and the recording is complete and empty. --force replaced an older
    file of that name (as open() would have made it: 0666 less the
    umask), leaving nothing else beside it."""
    loop = make_loop(4)
    (tmp_path / "quiet.rec").write_text("an older recording")
    res = subprocess.run([MTGCTL, "listen", loop.listen(), "--batch",
                          "--duration", "1", "-o", "quiet.rec", "--force"],
                         cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    rec = Recording(tmp_path / "quiet.rec")
    assert rec.complete and len(rec) == 0
    assert "rx: 0 records" in res.stdout
    assert "recording quiet.rec, from " in res.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["quiet.rec"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "quiet.rec").st_mode) == \
        0o666 & ~umask


def test_long_streaming_run(make_loop, tmp_path):
    """A Poisson TG streamed for 20 s at 2,000 packets/s: its table holds
    4096 entries (2 s of traffic, the least), so mtgctl refills it about
    ten times behind the module. No underrun, nothing lost on the clean
    loop, and every packet left at the time `mtgctl table` gives for it:
    the sequence drawn on, never the table repeated (the gaps after the
    first 4096 are not those before)."""
    loop = make_loop(4)
    count = 40000
    text = (f"listen {loop.listen()}\nnetns {loop.ns_s} dev {loop.a}\n"
            f"pkts 200 thro 3.2M dist poisson table stream count {count}\n"
            f"tgid 1 dst {dst(loop, 9001)}\n")
    write_idf(tmp_path, text)
    res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "-o", "run.rec",
                     "--drain", DRAIN)
    assert res.returncode == 0, res.stdout + res.stderr
    s = summary_of(tmp_path)
    (tg,) = s["tgs"]
    check = subprocess.run([MTGCTL, "check", "run.idf", "--json"],
                           cwd=tmp_path, capture_output=True, check=True)
    table = json.loads(check.stdout)["tgs"][0]["table"]
    assert (table["mode"], table["len"]) == ("stream", 4096)
    assert (tg["sent"], tg["received"], tg["lost"], tg["underruns"],
            tg["bad_entries"]) == (count, count, 0, 0, 0), tg
    table = subprocess.run([MTGCTL, "table", "run.idf", "--count", str(count),
                            "--format", "bin"], cwd=tmp_path,
                           capture_output=True, check=True).stdout
    planned = np.frombuffer(table, [("tg", "<u4"), ("len", "<u4"),
                                    ("departure_ns", "<u8"),
                                    ("gap_ns", "<u8")])
    rec = Recording(tmp_path / "run.rec").records
    rec = rec[np.argsort(rec["seq"], kind="stable")]
    assert (rec["seq"] == np.arange(count)).all()
    sched = rec["sched_ns"] - rec["sched_ns"][0]
    assert (sched == planned["departure_ns"]).all()
    gaps = planned["gap_ns"]
    assert (gaps[4096:8192] == gaps[:4096]).mean() < 0.01


def test_time_absolute_start(make_loop, tmp_path):
    """time absolute (MTG's local time; UTC here, with Z): the first
    packet is scheduled at the wall-clock time written, in CLOCK_TAI on
    the wire, five seconds after the run's T0. And MTG's qlen and rpol
    reach the network under test in every header's six bytes for it."""
    import datetime
    loop = make_loop(4)
    start = (time.time_ns() // 10**9 + 8) * 10**9
    when = datetime.datetime.fromtimestamp(
        start // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = (globals_idf(loop, 200, 200) +
            f"tgid 1 dst {dst(loop, 9001)} time absolute {when} "
            "thro 1.6M 400k rpol 50 qlen 50\n")
    write_idf(tmp_path, text)
    res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "-o", "run.rec",
                     "--drain", DRAIN)
    assert res.returncode == 0, res.stdout + res.stderr
    (tg,) = summary_of(tmp_path)["tgs"]
    assert (tg["sent"], tg["received"]) == (200, 200)
    rec = Recording(tmp_path / "run.rec").records
    assert int(rec["sched_ns"].min()) == start + tai_offset_ns()
    # qlen 50; 400k + 50% of (1.6M - 400k) = 1000 kbit/s
    assert {bytes(n) for n in rec["nut"]} == {bytes.fromhex("0032000003e8")}


def test_time_user_waits_for_the_operator(make_loop, tmp_path):
    """time user (MTG's start on the operator's command): the TG is not
    started with the others; mtgctl says how to start it, and SIGUSR1
    (the dashboard's key, in batch mode) starts it then; the run ends
    when it has finished too."""
    loop = make_loop(4)
    text = (globals_idf(loop, 200, 200) +
            f"tgid 1 dst {dst(loop, 9001)}\n"
            f"tgid 2 dst {dst(loop, 9002)} time user\n")
    write_idf(tmp_path, text)
    proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY, "-o",
                        "run.rec", "--drain", DRAIN)
    sent = []

    def operator():
        time.sleep(2)
        sent.append(time.clock_gettime_ns(time.CLOCK_TAI))
        os.kill(proc.pid, signal.SIGUSR1)

    out, err = act_when(proc, lambda line: "kill -USR1" in line, operator)
    assert proc.returncode == 0, out + err
    assert "TG 2 (run.idf:5) waits for the operator" in out
    assert f"start them with 'kill -USR1 {proc.pid}'" in out
    s = summary_of(tmp_path)
    assert [(t["id"], t["sent"], t["received"]) for t in s["tgs"]] == \
        [(1, 200, 200), (2, 200, 200)]
    rec = Recording(tmp_path / "run.rec").records
    first = int(rec["sched_ns"][rec["tg_id"] == 2].min())
    assert first >= sent[0] + 100_000_000, "started before the operator said"


def test_addr_broadcast_and_myself(make_loop, tmp_path):
    """MTG's addr: broadcast sends to the sending interface's IPv4
    broadcast address and Ethernet broadcast, which the network under
    test's near side receives; myself sends to our own address through
    the network under test (mac: its first hop), which routes the packets
    back to us, one hop fewer in their TTL. Two runs: the hook that
    records on the near side would take myself's packets there."""
    loop = make_loop(4)
    b_mac = run("ip", "netns", "exec", loop.ns_n, "cat",
                f"/sys/class/net/{loop.b}/address").stdout.strip()
    common = (f"netns {loop.ns_s} dev {loop.a}\n"
              "dist fixed pkts 200 inta 1ms count 100\n")
    for name, listen, tg, ttl in (
            ("broadcast", f"{loop.b}@{loop.ns_n}", "addr broadcast 9000", 64),
            ("myself", f"{loop.a}@{loop.ns_s}",
             f"addr myself 9001 mac {b_mac}", 63)):
        d = tmp_path / name
        d.mkdir()
        write_idf(d, f"listen {listen}\n{common}tgid 1 {tg}\n")
        res = mtgctl_run(d, "--start-delay", START_DELAY, "-o", "run.rec",
                         "--drain", DRAIN)
        assert res.returncode == 0, res.stdout + res.stderr
        (t,) = summary_of(d)["tgs"]
        assert (t["sent"], t["received"]) == (100, 100), name
        r = Recording(d / "run.rec").records
        assert set(r["ttl"]) == {ttl}, name


# --- nothing lost silently: devices, namespaces, a killed mtgctl ---------------

PROGRESS_RX = r"tg 1: (\d+) sent, \d+ tx_errors, \w+, (\d+) received"


def lines_until(proc, ready, timeout=300):
    """proc's stdout lines up to the first that ready() accepts. proc is
    killed, and the test fails, if none comes within timeout."""
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    seen = []
    try:
        while True:
            line = proc.stdout.readline()
            if not line:
                proc.kill()
                proc.wait()
                pytest.fail("no line came that was waited for:\n" +
                            "".join(seen) + proc.stderr.read())
            seen.append(line)
            if ready(line):
                return seen
    finally:
        timer.cancel()


def ends_by_itself(proc, timeout=300):
    """(stdout, stderr) of proc once it ends; killed (the test fails) if it
    runs on past timeout."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running after {timeout} s:\n{out}{err}")


def receiving(line):
    m = re.search(PROGRESS_RX, line)
    return bool(m) and int(m[2]) > 0


def check_lost_iface(s, rec_path, dev, ns):
    """The summary, the recording's header, mtgctl info and mtgsap info
    all say that dev went away, and nothing of it was recorded after."""
    rec = Recording(rec_path)
    iface = rec.meta["interfaces"][0]
    (gone,) = s["ifaces_lost"]
    assert (gone["id"], gone["dev"], gone["netns"]) == (iface["id"], dev, ns)
    assert s["start_ns"] <= gone["lost_ns"] <= s["end_ns"]
    assert rec.complete and rec.header["ifaces_lost"] == 1
    assert len(rec) > 0 and int(rec.records["rx_ns"].max()) <= \
        gone["lost_ns"]
    res = subprocess.run([MTGCTL, "info", rec_path, "--json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["ifaces_lost"] == 1
    res = subprocess.run([ROOT / ".venv/bin/mtgsap", "info", rec_path,
                          "--json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["ifaces_lost"] == 1
    return rec


def test_receive_interface_deleted_under_a_run(make_loop, tmp_path):
    """The interface a run records on is deleted while its TG sends: an
    event line says so at once, the progress lines and the report name it,
    the summary and the recording's header count it, and the exit status
    is 2; what the TG sent after that counts as lost (sent = received +
    lost), and every record is from before mtgctl saw it go."""
    loop = make_loop(4)
    # The interface must go while the TG still sends: on the debug kernel
    # the first received count shows seconds late, so the TG is longer.
    count = 30000 if DEBUG_KERNEL else 4000
    text = globals_idf(loop, count, 200) + f"tgid 1 dst {dst(loop, 9001)}\n"
    write_idf(tmp_path, text)
    name = f"{loop.r}@{loop.ns_r}"
    proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY, "-o",
                        "run.rec", "--drain", DRAIN)
    seen = lines_until(proc, receiving)
    sent_before = int(re.search(PROGRESS_RX, seen[-1])[1])
    assert sent_before < count, "the TG ended before anything was " \
        "seen received: no interface to delete under a run\n" + "".join(seen)
    run("ip", "-n", loop.ns_r, "link", "del", loop.r, timeout=60)
    out, err = ends_by_itself(proc)
    out = "".join(seen) + out
    assert proc.returncode == 2, out + err
    assert re.search(r"\d+\.\ds event: receive interface " + re.escape(name) +
                     r" went away: nothing more is received on it\n", out), out
    assert f"rx: interface {name} went away at " in out
    s = summary_of(tmp_path)
    (tg,) = s["tgs"]
    assert (tg["state"], tg["sent"]) == ("finished", count), out
    assert 0 < tg["received"] < tg["sent"] == tg["received"] + tg["lost"], out
    rec = check_lost_iface(s, tmp_path / "run.rec", loop.r, loop.ns_r)
    assert len(rec) == s["rx"]["packets"] == tg["received"]
    # the progress lines said it too, from the loss on
    after = out[out.index("went away: nothing more"):]
    assert re.search(r"ring drops, interfaces gone: " + re.escape(name) +
                     "; run.rec: ", after), out


@pytest.mark.parametrize("how", ["link", "netns"])
def test_listen_ends_when_its_device_goes(make_loop, tmp_path, how):
    """`mtgctl listen` on one interface, which goes away (deleted, or its
    namespace deleted: mtgctl holds the namespace no longer than it needs
    to): nothing more can arrive, so it ends by itself, exit status 2,
    with the event in the stream, the interface named in the stream's
    rx, the summary and the recording, which keeps what came before."""
    loop = make_loop(4)
    name = f"{loop.r}@{loop.ns_r}"
    listener = subprocess.Popen(
        [MTGCTL, "listen", loop.listen(), "--json-stream", "-o",
         "listen.rec", "--json", "listen.json"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = listener.stderr.readline()
        assert first.startswith("listening on 1 interface"), first
        write_idf(tmp_path, globals_idf(loop, 500, 200, listen=False) +
                  f"tgid 1 dst {dst(loop, 9001)}\n")
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
        assert res.returncode == 0, res.stdout + res.stderr
        time.sleep(1)
        if how == "link":
            run("ip", "-n", loop.ns_r, "link", "del", loop.r, timeout=60)
        else:
            run("ip", "netns", "del", loop.ns_r, timeout=60)
    except BaseException:
        listener.kill()
        listener.wait()
        raise
    out, err = ends_by_itself(listener, timeout=120)
    assert listener.returncode == 2, out + err
    lines = [json.loads(x) for x in out.splitlines()]
    assert lines[-1]["type"] == "end"
    assert lines[-1]["rx"]["ifaces_lost"] == [name]
    assert all(x["rx"]["ifaces_lost"] in ([], [name]) for x in lines)
    events = [e for x in lines for e in x["events"]]
    assert any(f"receive interface {name} went away" in e for e in events)
    assert ("every interface listened on went away: nothing more can "
            "arrive, listening ends") in events
    assert f"rx: interface {name} went away at " in err
    sender = summary_of(tmp_path)
    got = json.loads((tmp_path / "listen.json").read_text())
    assert [(t["run_id"], t["id"], t["received"]) for t in got["tgs"]] == \
        [(sender["run_id"], 1, 500)]
    assert got["interrupted"] is False
    rec = check_lost_iface(got, tmp_path / "listen.rec", loop.r, loop.ns_r)
    assert len(rec) == 500


def test_sender_namespace_deleted_under_a_run(make_loop, tmp_path):
    """`ip netns del` of the namespace a TG without end sends from: mtgctl
    does not keep it alive, so it really goes, its interface with it; the
    TG fails (dev_gone) and the run ends by itself, exit status 2, saying
    that the namespace was deleted. What came back is what the capture
    saw, and the TG sent at least that."""
    loop = make_loop(4)
    write_idf(tmp_path, f"listen {loop.listen()}\n"
              f"netns {loop.ns_s} dev {loop.a}\n"
              "dist fixed pkts fixed 200 200 inta 1ms patt random\n"
              f"tgid 1 dst {dst(loop, 9001)}\n")
    with loop.capture() as cap:
        proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY, "-o",
                            "run.rec", "--drain", DRAIN)
        seen = lines_until(proc, receiving)
        run("ip", "netns", "del", loop.ns_s, timeout=60)
        out, err = ends_by_itself(proc)
    out = "".join(seen) + out
    assert proc.returncode == 2, out + err
    assert cap.lossless, cap.stderr
    assert not os.path.exists(f"/run/netns/{loop.ns_s}")
    assert re.search(r"\d+\.\ds event: tg 1: failed: its namespace " +
                     re.escape(loop.ns_s) + " was deleted\n", out), out
    s = summary_of(tmp_path)
    (tg,) = s["tgs"]
    assert (tg["state"], tg["error"], tg["netns_deleted"]) == \
        ("failed", "dev_gone", True), tg
    assert s["interrupted"] is False
    (report,) = [x for x in out.splitlines() if x.startswith("tg 1: ")]
    assert report.startswith("tg 1: failed dev_gone, ")
    assert report.endswith(f"; its namespace {loop.ns_s} was deleted")
    ours, _ = witness(cap.frames, s["run_id"])
    assert 0 < len(ours) == tg["received"] <= tg["sent"]
    assert len(Recording(tmp_path / "run.rec")) == len(ours)


@pytest.mark.parametrize("again", [False, True], ids=["deleted", "remade"])
def test_time_user_tg_whose_namespace_was_deleted(make_loop, tmp_path, again):
    """A `time user` TG opens its namespace when the operator starts it:
    deleted in the meantime (or deleted and made again under its name, a
    namespace the run never resolved anything in), the start is refused,
    naming the TG and the namespace, and nothing is sent into it."""
    loop = make_loop(4)
    text = (f"listen {loop.listen()}\n"
            f"netns {loop.ns_s} dev {loop.a}\n"
            "dist fixed pkts fixed 200 200 inta 1ms count 200 patt random\n"
            f"tgid 2 dst {dst(loop, 9002)} time user\n")
    write_idf(tmp_path, text)
    proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY, "--drain",
                        DRAIN)
    seen = lines_until(proc, lambda line: "kill -USR1" in line)
    run("ip", "netns", "del", loop.ns_s, timeout=60)
    if again:
        run("ip", "netns", "add", loop.ns_s)
    proc.send_signal(signal.SIGUSR1)
    out, err = ends_by_itself(proc)
    out = "".join(seen) + out
    assert proc.returncode == 1, out + err
    assert (f"mtgctl: cannot start TG 2 (run.idf:4): its namespace "
            f"{loop.ns_s} was deleted since the run began" +
            (" (the name is another namespace's now)" if again else "") +
            "\n") in err
    (tg,) = summary_of(tmp_path)["tgs"]
    assert (tg["state"], tg["sent"], tg["received"], tg["netns_deleted"]) \
        == ("not started", 0, 0, True)


def test_sigkill_keeps_what_the_progress_line_counted(make_loop, tmp_path):
    """mtgctl killed with SIGKILL while it records: the recording is
    unfinished but readable (mtgctl info, mtgsap), holds whole records
    only, at least as many as the last progress line counted in it (what
    a line counts is on the disk), and they are the frames the capture
    saw, in its order, with none missing before the last."""
    loop = make_loop(4)
    write_idf(tmp_path, globals_idf(loop, 20000, 200) +
              f"tgid 1 dst {dst(loop, 9001)}\n")
    counted = []

    def rec_line(line):
        m = re.search(r"rx: \d+ records, .*; run\.rec: (\d+) records", line)
        if m and int(m[1]):
            counted.append(int(m[1]))
        return len(counted) >= 3

    with loop.capture() as cap:
        proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY, "-o",
                            "run.rec")
        lines_until(proc, rec_line)
        proc.kill()
        proc.wait()
    assert cap.lossless, cap.stderr
    rec = Recording(tmp_path / "run.rec")
    assert not rec.complete and rec.partial_bytes == 0
    assert len(rec) >= counted[-1] > 0, counted
    run_id = int(rec.records["run_id"][0])
    ours, _ = witness(cap.frames, run_id)
    got = [(int(a), int(b)) for a, b in zip(rec.records["tg_id"],
                                            rec.records["seq"])]
    assert got == [(v.hdr.tg_id, v.hdr.seq) for _, v in ours[:len(rec)]]
    # What the kill cost, for the record (Documentation/recording-format.rst)
    print(f"killed: {len(ours) - len(rec)} of {len(ours)} frames captured "
          f"were not in the recording")
    res = subprocess.run([MTGCTL, "info", tmp_path / "run.rec"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and "not finished" in res.stdout, res.stderr
    res = subprocess.run([ROOT / ".venv/bin/mtgsap", "flows",
                          tmp_path / "run.rec", "--json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    (flow,) = json.loads(res.stdout)["flows"]
    assert (flow["tg"], flow["received"], flow["lost"]) == (1, len(rec), 0)
