# SPDX-License-Identifier: GPL-2.0-or-later
"""Experiments across hosts (Documentation/tsp.rst): three namespaces as
three hosts, each with its own mtgctl processes. The sender's namespace
runs `mtgctl run` with TGs naming their receiver (`rcvr`); the middle one
forwards with netem on its way out; the receiver's runs `mtgctl recv`,
which agrees to each flow over TSP, records the run and reports each flow
back. The sender's summary reports the receiver's figures, which equal the
receiver's recording and a capture on the receiver's interface.

Also: a refused flow sends nothing (a capture on the sender's interface
sees no UDP frame), a receiver killed mid-run stops its TGs, a sender
killed mid-run leaves the receiver's recording finished and marked
incomplete."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from mtgsap.recording import Recording
from mtgwitness import wire
from mtgwitness.capture import Capture
from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.system import DEBUG_KERNEL, ROOT, run as run_cmd
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm

NETEM_MS = 5


def remote_idf(loop, port, count, inta="2ms", duration=None):
    text = "key tsp.key\n"
    for tg in (1, 2):
        text += (f"tgid {tg}\n\tdev {loop.a}\n\tdst {dst(loop, 9000 + tg)}\n"
                 f"\trcvr {dst(loop, port)}\n\tdist fixed\n"
                 f"\tpkts fixed 300 300\n\tinta {inta}\n")
        text += f"\tcount {count}\n" if count else \
            f"\ttime relative 0 {duration}\n"
    return text


def sender(loop, tmp_path, text, *extra):
    """mtgctl run in the sender's namespace (Popen)."""
    (tmp_path / "run.idf").write_text(text)
    return subprocess.Popen(
        ["ip", "netns", "exec", loop.ns_s, MTGCTL, "run", "run.idf", "--batch",
         "--json", "summary.json", "--start-delay", START_DELAY, "--drain",
         DRAIN, *extra], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


@pytest.fixture
def hosts(make_loop, tmp_path):
    loop = make_loop(4)
    loop.netem("delay", f"{NETEM_MS}ms")
    tspd.key_file(tmp_path / "tsp.key")
    out = tmp_path / "recv"
    out.mkdir()
    return loop, out


def by_tg(recording):
    rec = Recording(recording)
    return rec, {int(t): len(set(rec.records["seq"][rec.records["tg_id"] == t]))
                 for t in set(rec.records["tg_id"].tolist())}


def test_three_hosts(hosts, tmp_path):
    loop, out = hosts
    recv = tspd.Recv(tmp_path / "tsp.key", out, netns=loop.ns_r)
    count = 500
    with Capture(loop.r, ns=loop.ns_r, bpf="udp") as cap:
        run = sender(loop, tmp_path, remote_idf(loop, recv.port, count))
        stdout, stderr = run.communicate(timeout=900)
    rc, log = recv.stop()
    assert run.returncode == 0, stdout + stderr
    assert rc == 0, log
    assert cap.lossless, cap.stderr
    assert "2 TGs agreed with 1 receiver over TSP" in stdout
    s = json.loads((tmp_path / "summary.json").read_text())
    run_id = s["run_id"]
    recordings = list(out.glob(f"run-{run_id}-*.mtgrec"))
    assert len(recordings) == 1, list(out.iterdir())
    assert f"run {run_id} from {loop.dst.rsplit('.', 1)[0]}.1:" in log or \
        f"run {run_id} from " in log
    assert "complete, " in log and "incomplete" not in log, log
    rec, received = by_tg(recordings[0])
    assert rec.complete
    assert rec.meta["command"] == "recv"
    assert rec.meta["tsp"]["sender"].startswith(
        loop.dst.rsplit(".", 2)[0] + ".1.1:")
    assert sorted(t["id"] for t in rec.meta["tgs"]) == [1, 2]
    wire_seqs = {1: set(), 2: set()}
    for f in cap.frames:
        view = wire.rx_view(f.data)
        if view and not view.ctrl and view.hdr.run_id == run_id:
            wire_seqs[view.hdr.tg_id].add(view.hdr.seq)
    rsum = json.loads(recordings[0].with_suffix(".json").read_text())
    assert not rsum["interrupted"]
    for tg in s["tgs"]:
        remote = tg["remote"]
        assert remote["rcvr"] == dst(loop, recv.port)
        assert remote["error"] is None
        assert tg["sent"] == count
        assert remote["received"] == received[tg["id"]] == \
            len(wire_seqs[tg["id"]]), (tg, received, len(wire_seqs[tg["id"]]))
        assert remote["lost"] == count - remote["received"]
        assert remote["owd_ns"]["min"] >= NETEM_MS * 1_000_000
        assert remote["incomplete"] is False
    assert f"TG 1 at {dst(loop, recv.port)}: " in stdout


@pytest.mark.parametrize("why", ["rate", "key"])
def test_refused_flow_sends_nothing(hosts, tmp_path, why):
    loop, out = hosts
    key = tmp_path / "tsp.key"
    if why == "key":
        key = tmp_path / "other.key"
        tspd.key_file(key)
    recv = tspd.Recv(key, out, "--max-rate", "100k", netns=loop.ns_r)
    with Capture(loop.a, ns=loop.ns_s, bpf="udp") as cap:
        run = sender(loop, tmp_path, remote_idf(loop, recv.port, 100))
        stdout, stderr = run.communicate(timeout=300)
    rc, log = recv.stop()
    assert run.returncode == 1, stdout + stderr
    assert "run.idf: nothing started" in stderr
    assert ("refused the flow (rate)" if why == "rate" else
            "refused: auth-failed") in stderr
    assert cap.lossless and cap.captured == 0, "a data packet was sent"
    assert not list(out.glob("run-*")), "the receiver kept files"


def wait_for(pred, what, timeout=600):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_receiver_killed_mid_run(hosts, tmp_path):
    """The receiver's end of TSP closes when it dies: the sender stops
    that receiver's TGs at once (it looks every 100 ms) and says so;
    the run ends long before the TGs' 120 s, exit 2."""
    loop, out = hosts
    recv = tspd.Recv(tmp_path / "tsp.key", out, netns=loop.ns_r)
    run = sender(loop, tmp_path,
                 remote_idf(loop, recv.port, 0, inta="10ms", duration="120s"))
    wait_for(lambda: "recording" in recv.text() and "start at" in recv.text(),
             "the receiver never saw the start: " + recv.text())
    time.sleep(float(START_DELAY) + 2)
    killed = time.monotonic()
    recv.stop(signal.SIGKILL)
    stdout, stderr = run.communicate(timeout=300)
    took = time.monotonic() - killed
    assert run.returncode == 2, stdout + stderr
    assert "TG 1 stopped: its receiver " in stdout + stderr
    assert took < 60 + float(DRAIN), took
    s = json.loads((tmp_path / "summary.json").read_text())
    for tg in s["tgs"]:
        assert tg["state"] == "killed"
        assert tg["remote"]["error"], tg["remote"]


def test_sender_killed_mid_run(hosts, tmp_path):
    """The sender's end closes when it dies: the receiver ends its run,
    finishes the recording and marks the run incomplete."""
    loop, out = hosts
    recv = tspd.Recv(tmp_path / "tsp.key", out, netns=loop.ns_r)
    run = sender(loop, tmp_path,
                 remote_idf(loop, recv.port, 0, inta="10ms", duration="120s"))
    wait_for(lambda: "start at" in recv.text(),
             "the receiver never saw the start: " + recv.text())
    time.sleep(float(START_DELAY) + (20 if DEBUG_KERNEL else 3))
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=120)
    wait_for(lambda: "incomplete" in recv.text(),
             "the receiver did not end the run: " + recv.text())
    rc, log = recv.stop()
    assert rc == 0, log
    recording, = out.glob("run-*.mtgrec")
    rec, received = by_tg(recording)
    assert rec.complete, "the recorder did not finish the recording"
    assert sum(received.values()) > 0
    rsum = json.loads(recording.with_suffix(".json").read_text())
    assert rsum["interrupted"] is True


def test_two_hosts_example():
    """examples/two-hosts.sh, as a user runs it: both hosts' commands, the
    receiver's recording and the sender's remote figures."""

    env = None
    if DEBUG_KERNEL:
        env = dict(os.environ, MTG_TWO_HOSTS_RUN_OPTS="--start-delay 10 "
                   "--drain 30")
    res = run_cmd(ROOT / "examples/two-hosts.sh", check=False, timeout=900,
                  env=env)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "2 TGs agreed with 1 receiver over TSP" in out
    assert "mtgctl run exit status 0" in out
    assert ": complete, " in out
    for tg in (1, 2):
        assert f"TG {tg}: sent 2000, at 10.98.2.2:9000: received " in out


SHIFT_MS = 20


def test_clock_offset_injected(hosts, tmp_path):
    """The namespaces share one clock: the receiver acts as if its own
    were SHIFT_MS ahead (--clock-shift: its time answers and every receive
    stamp). The sender's estimate is within its stated uncertainty of the
    shift; the receiver's delays carry it, the corrected ones do not, in
    the summary and through mtgsap --correct-clock on the recording."""
    loop, out = hosts
    # a process named as chrony's daemon: the recording names it
    shutil.copy("/bin/sleep", tmp_path / "chronyd")
    daemon = subprocess.Popen([tmp_path / "chronyd", "600"])
    recv = tspd.Recv(tmp_path / "tsp.key", out, "--clock-shift",
                     f"{SHIFT_MS}ms", netns=loop.ns_r)
    try:
        run = sender(loop, tmp_path, remote_idf(loop, recv.port, 200))
        stdout, stderr = run.communicate(timeout=900)
    finally:
        rc, log = recv.stop()
        daemon.kill()
        daemon.wait()
    assert run.returncode == 0, stdout + stderr
    s = json.loads((tmp_path / "summary.json").read_text())
    shift = SHIFT_MS * 1_000_000
    for tg in s["tgs"]:
        r = tg["remote"]
        clock = r["clock"]
        assert abs(clock["offset_ns"] - shift) <= clock["uncertainty_ns"], r
        assert r["owd_ns"]["min"] >= shift + NETEM_MS * 1_000_000
        assert r["owd_corrected_ns"]["min"] >= \
            NETEM_MS * 1_000_000 - clock["uncertainty_ns"]
        assert r["owd_corrected_ns"]["mean"] == \
            r["owd_ns"]["mean"] - clock["offset_ns"]
    recording, = out.glob("run-*.mtgrec")
    rec = Recording(recording)
    assert "chronyd" in rec.meta["clock"]["daemons"]
    assert rec.meta["tsp"]["clock"]["offset_ns"] == \
        s["tgs"][0]["remote"]["clock"]["offset_ns"]
    res = run_cmd(sys.executable, "-m", "mtgsap", "flows", recording,
                  "--json", "--correct-clock")
    for f in json.loads(res.stdout)["flows"]:
        assert NETEM_MS * 1_000_000 - clock["uncertainty_ns"] <= \
            f["owd_mean"] < shift
