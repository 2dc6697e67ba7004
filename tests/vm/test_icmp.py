# SPDX-License-Identifier: GPL-2.0-or-later
"""ICMP echo TGs (`proto icmp`; Documentation/abi.rst, "ICMP echoes"):
three namespaces as three hosts (test_mtgctl_rx's loop), the destination
running nothing of mtg: its kernel answers. netem delays each direction
in the network between; the run records the replies on the sender's own
interface, as round trips.

Checked against a capture on the network's side of the destination's
link, which sees both directions: every request and every reply on the
wire, with the identifier and sequence numbers the ABI gives them, and
the recording holds exactly the replies that came back; under loss on
the way back, what the run says is lost is what the wire lost."""

import json
import subprocess

import numpy as np
import pytest

from mtgsap.recording import F_CSUM_BAD, F_ICMP, Recording
from mtgwitness import wire
from mtgwitness.capture import Capture
from mtgtest.ctl import MTGCTL
from test_mtgctl_rx import DRAIN, START_DELAY, in_ns
import test_mtgctl_rx

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm

FORWARD_MS, RETURN_MS = 20, 10
COUNT = 300
MS = 1_000_000
IDENT = 4001                            # the source port's default, TG 1


def send(loop, tmp_path, extra=""):
    dst = loop.dst if loop.family == 4 else f"[{loop.dst}]"
    (tmp_path / "icmp.idf").write_text(
        f"tgid 1 dev {loop.a} dst {dst} proto icmp dist fixed "
        f"pkts fixed 300 inta 2ms count {COUNT}{extra}\n")
    return subprocess.run(
        ["ip", "netns", "exec", loop.ns_s, MTGCTL, "run", "icmp.idf",
         "--batch", "--json", "summary.json", "-o", "back.rec",
         "--start-delay", START_DELAY, "--drain", DRAIN],
        cwd=tmp_path, capture_output=True, text=True, timeout=900)


def echoes(frames, run_id):
    """The run's requests and replies on the wire: {seq: IcmpEcho}."""
    req, rep = {}, {}
    for f in frames:
        e = wire.icmp_echo(f.data)
        if e and e.hdr and e.hdr.run_id == run_id:
            assert e.hdr.crc_ok and e.csum_ok and e.ident == IDENT
            assert e.seq == e.hdr.seq & 0xFFFF     # the MTG one's low bits
            (rep if e.reply else req)[e.hdr.seq] = e
    return req, rep


def captured_run(loop, tmp_path):
    """send() while the destination's link is captured in the network:
    the run's summary and frames. The wire has each request once, and the
    destination's reply to each (whatever becomes of it on its way back)."""
    with Capture(loop.c, ns=loop.ns_n, bpf="icmp or icmp6") as cap:
        res = send(loop, tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    s = json.loads((tmp_path / "summary.json").read_text())
    req, rep = echoes(cap.frames, s["run_id"])
    assert sorted(req) == sorted(rep) == list(range(COUNT))
    return s, cap.frames


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_icmp_round_trips(make_loop, tmp_path, family):
    loop = make_loop(family)
    in_ns(loop.ns_n, "tc", "qdisc", "add", "dev", loop.c, "root", "netem",
          "delay", f"{FORWARD_MS}ms")
    in_ns(loop.ns_n, "tc", "qdisc", "add", "dev", loop.b, "root", "netem",
          "delay", f"{RETURN_MS}ms")
    s, frames = captured_run(loop, tmp_path)
    (tg,) = s["tgs"]
    assert (tg["sent"], tg["received"], tg["lost"]) == (COUNT, COUNT, 0)
    assert tg["owd_ns"]["p50"] is None          # round trips, not one way
    assert tg["rtt_ns"]["max"] >= tg["rtt_ns"]["p50"] >= \
        (FORWARD_MS + RETURN_MS) * MS
    rec = Recording(tmp_path / "back.rec")
    r = rec.records[rec.records["tg_id"] == 1]
    assert sorted(r["seq"].tolist()) == list(range(COUNT))
    assert (r["flags"] & F_ICMP).all() and not (r["flags"] & F_CSUM_BAD).any()
    assert (r["wrong_bits"] == 0).all() and (r["len"] == 300).all()
    rtt = r["rx_ns"].astype(np.int64) - r["tx_ns"].astype(np.int64)
    assert (rtt >= (FORWARD_MS + RETURN_MS) * MS).all()
    # the destination answered each request once: no more on the wire
    assert len([f for f in frames if wire.icmp_echo(f.data)]) == 2 * COUNT


def test_icmp_replies_lost_are_counted(make_loop, tmp_path):
    """netem drops a fifth of the replies on their way back: the run's
    lost are the requests the wire saw answered but the sender never got
    back, sequence numbers the recording lacks."""
    loop = make_loop(4)
    in_ns(loop.ns_n, "tc", "qdisc", "add", "dev", loop.b, "root", "netem",
          "loss", "20%")
    s, _ = captured_run(loop, tmp_path)
    rec = Recording(tmp_path / "back.rec")
    got = set(rec.records["seq"].tolist())
    (tg,) = s["tgs"]
    assert tg["received"] == len(got)
    assert 0 < COUNT - len(got) < COUNT // 2
    missing = sorted(set(range(COUNT)) - got)
    # a loss at the end is still a loss: the run knows what it sent
    assert tg["lost"] == len(missing), (tg, missing[-5:])


def test_somebody_elses_ping_is_left_alone(make_loop, tmp_path):
    """While the run listens on its interface for its echoes, an ordinary
    ping from the same namespace still gets its replies: the hook takes
    only replies carrying the MTG header."""
    loop = make_loop(4)
    ping = subprocess.Popen(
        ["ip", "netns", "exec", loop.ns_s, "ping", "-c", "20", "-i", "0.2",
         "-W", "5", loop.dst], stdout=subprocess.PIPE, text=True)
    res = send(loop, tmp_path)
    out, _ = ping.communicate(timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert ping.returncode == 0 and "20 received" in out, out
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["tgs"][0]["received"] == COUNT
