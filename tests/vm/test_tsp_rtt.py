# SPDX-License-Identifier: GPL-2.0-or-later
"""Round trips over TSP (Documentation/tsp.rst, "Round trips"): D-ITG's
round-trip meter between three namespaces as three hosts. The sender's
TG says `meter rtt` and names its receiver; `mtgctl recv --rtt` agrees to
send that flow back, through the XDP reflector of the interface it
arrives on, which stamps the turn in slot 3; the sender's run records
what comes back on its own interface. netem delays each direction
differently (FORWARD_MS on the way there, RETURN_MS back), so the
stamps must split the round trip the right way round.

Checked against a capture on the router's side of the receiver's link,
which sees both directions: the receiver's count of reflected frames is
the reflections on the wire, what the sender says came back is the
frames its recording holds; a one-way TG in the same run is measured at
the receiver as before, and not counted lost by the sender."""

import json
import subprocess
import sys

import pytest

from mtgsap.recording import Recording
from mtgwitness import wire
from mtgwitness.capture import Capture
from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.system import run as run_cmd
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst, in_ns

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm

FORWARD_MS, RETURN_MS = 30, 10
COUNT = 300
SLOT = 3
MS = 1_000_000


def idf(loop, port):
    """TG 1 round trips, TG 2 one way, both agreed with the receiver."""
    text = "key tsp.key\n"
    for tg, meter in ((1, "rtt"), (2, "owd")):
        text += (f"tgid {tg}\n\tdev {loop.a}\n\tdst {dst(loop, 9000 + tg)}\n"
                 f"\trcvr {dst(loop, port)}\n\tmeter {meter}\n"
                 "\tdist fixed\n\tpkts fixed 300\n\tinta 5ms\n"
                 f"\tcount {COUNT}\n")
    return text


@pytest.fixture
def hosts(make_loop, tmp_path):
    loop = make_loop(4)
    in_ns(loop.ns_n, "tc", "qdisc", "add", "dev", loop.c, "root", "netem",
          "delay", f"{FORWARD_MS}ms")
    in_ns(loop.ns_n, "tc", "qdisc", "add", "dev", loop.b, "root", "netem",
          "delay", f"{RETURN_MS}ms")
    # XDP_TX on a veth reaches the peer only while the peer has an XDP
    # program (Documentation/ebpf.rst): the router's end gets a reflector
    # that sends nothing back (agreed-only, no flow of the run), which
    # passes the reflections (their slot is set)
    peer = f"{loop.c}@{loop.ns_n}"
    run_cmd(MTGCTL, "reflect", "attach", peer, "--slot", SLOT, "--flows",
            "1:1")
    tspd.key_file(tmp_path / "tsp.key")
    out = tmp_path / "recv"
    out.mkdir()
    yield loop, out
    run_cmd(MTGCTL, "reflect", "detach", peer)


def send(loop, tmp_path, port):
    (tmp_path / "rtt.idf").write_text(idf(loop, port))
    return subprocess.run(
        ["ip", "netns", "exec", loop.ns_s, MTGCTL, "run", "rtt.idf",
         "--batch", "--json", "summary.json", "-o", "back.rec",
         "--start-delay", START_DELAY, "--drain", DRAIN],
        cwd=tmp_path, capture_output=True, text=True, timeout=900)


def test_round_trips(hosts, tmp_path):
    loop, out = hosts
    recv = tspd.Recv(tmp_path / "tsp.key", out, "--rtt", netns=loop.ns_r)
    with Capture(loop.c, ns=loop.ns_n, bpf="udp") as cap:
        res = send(loop, tmp_path, recv.port)
    rc, log = recv.stop()
    assert res.returncode == 0, res.stdout + res.stderr
    assert rc == 0, log
    assert cap.lossless, cap.stderr
    assert "flow 1 to" in log and "reflected in slot 3" in log, log
    s = json.loads((tmp_path / "summary.json").read_text())
    run_id = s["run_id"]
    there, turned = {1: set(), 2: set()}, set()
    for f in cap.frames:
        view = wire.rx_view(f.data)
        if not view or view.ctrl or view.hdr.run_id != run_id:
            continue
        if view.hdr.tp_ns[SLOT]:
            turned.add((view.hdr.tg_id, view.hdr.seq))
        else:
            there[view.hdr.tg_id].add(view.hdr.seq)
    assert {tg for tg, _ in turned} == {1}, "only TG 1 is sent back"
    tg1, tg2 = s["tgs"]
    assert tg1["sent"] == tg2["sent"] == COUNT
    # the receiver reflected what reached it; the wire agrees
    assert tg1["remote"]["meter"] == "rtt"
    assert tg1["remote"]["received"] == len(turned) == len(there[1]) == COUNT
    # the sender recorded what came back, as round trips
    rec = Recording(tmp_path / "back.rec")
    back = rec.records[rec.records["tg_id"] == 1]
    assert tg1["received"] == len(set(back["seq"].tolist())) == COUNT
    assert tg1["lost"] == 0
    assert tg1["owd_ns"]["p50"] is None
    assert tg1["rtt_ns"]["max"] >= tg1["rtt_ns"]["p50"] >= \
        (FORWARD_MS + RETURN_MS) * MS
    assert f"TG 1 at {dst(loop, recv.port)}: {COUNT} reflected, 0 lost " \
        "on the way there" in res.stdout
    # the one-way TG: measured at the receiver, nothing expected back here
    assert tg2["remote"]["meter"] == "owd"
    assert tg2["remote"]["received"] == len(there[2]) == COUNT
    assert tg2["remote"]["owd_ns"]["min"] >= FORWARD_MS * MS
    assert tg2["received"] is None and tg2["lost"] is None
    # the turn stamp splits each round trip: netem never delivers early
    stamps = back["tp_ns"][:, SLOT].astype("int64")
    assert (stamps > 0).all()
    assert ((stamps - back["tx_ns"].astype("int64")) >= FORWARD_MS * MS).all()
    assert ((back["rx_ns"].astype("int64") - stamps) >= RETURN_MS * MS).all()
    # mtgsap finds the slot in the recording's TGs (meter rtt)
    res = run_cmd(sys.executable, "-m", "mtgsap", "rtt",
                  tmp_path / "back.rec", "--shared-clock", "--json")
    (t,) = json.loads(res.stdout)["tgs"]
    assert (t["tg"], t["reflected"]) == (1, COUNT)
    assert t["forward"]["min"] >= FORWARD_MS * MS
    assert t["return"]["min"] >= RETURN_MS * MS
    # the reflector the receiver attached went with the run
    assert " xdp" not in run_cmd("ip", "-n", loop.ns_r, "link", "show",
                                 loop.r).stdout
