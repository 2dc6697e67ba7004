# SPDX-License-Identifier: GPL-2.0-or-later
"""The manager and its daemons (Documentation/tsp.rst, "The manager and
its daemons"): three namespaces as hosts and a router between them. Two
sending hosts each run `mtgctl daemon`; the receiving host runs `mtgctl
recv`; `mtgctl manage` of one file, from the router's namespace, sends
each daemon its host's TGs, which agree their flows with the receiver
over TSP and start at one T0. Every TG's counts are exact against a
capture on the receiver's interface: what the merged summary says each
TG sent, the receiver's figures in it, and the receiver's recordings.

Also: a manager killed mid-run has both daemons kill their runs (the
TGs stop sending) and serve the next manager."""

import json
import signal
import subprocess
import time

import pytest

from mtgsap.recording import Recording
from mtgwitness import wire
from mtgwitness.capture import Capture
from mtgtest import tspd
from mtgtest.ctl import MTGCTL
from mtgtest.system import run, unique
import test_mtgctl_rx
from test_mtgctl_rx import START_DELAY, dst, in_ns

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm

COUNT = 400


@pytest.fixture
def hosts(make_loop, netns, tmp_path):
    """The loop's sender (alpha), a second sender (beta) on the router,
    the receiver: (loop, beta's namespace, alpha's and beta's addresses)."""
    loop = make_loop(4)
    n = loop.dst.split(".")[1]
    beta = netns()
    b0, b1 = unique("mb"), unique("mc")
    run("ip", "link", "add", b0, "netns", beta, "type", "veth", "peer",
        "name", b1, "netns", loop.ns_n)
    in_ns(beta, "ip", "addr", "add", f"10.{n}.3.1/24", "dev", b0)
    in_ns(beta, "ip", "link", "set", b0, "up")
    in_ns(loop.ns_n, "ip", "addr", "add", f"10.{n}.3.2/24", "dev", b1)
    in_ns(loop.ns_n, "ip", "link", "set", b1, "up")
    in_ns(beta, "ip", "route", "add", f"10.{n}.2.0/24", "via", f"10.{n}.3.2")
    in_ns(loop.ns_r, "ip", "route", "add", f"10.{n}.3.0/24", "via",
          f"10.{n}.2.1")
    tspd.key_file(tmp_path / "tsp.key")
    return loop, beta, b0, f"10.{n}.1.1", f"10.{n}.3.1"


def managed_idf(tmp_path, loop, b0, a_addr, b_addr, ports, rport, count):
    pa, pb = ports
    text = (f"key {tmp_path}/tsp.key\n"
            f"host alpha {a_addr}:{pa}\nhost beta {b_addr}:{pb}\n"
            f"rcvr {dst(loop, rport)}\ndist fixed\npkts fixed 300\n"
            f"inta 2ms\n")
    for tg, host, dev in ((1, "alpha", loop.a), (2, "beta", b0),
                          (3, "alpha", loop.a)):
        text += (f"tgid {tg}\n\thost {host}\n\tdev {dev}\n"
                 f"\tdst {dst(loop, 9000 + tg)}\n")
        text += f"\tcount {count}\n" if count else \
            "\ttime relative 0 600s\n"
    (tmp_path / "managed.idf").write_text(text)


def manage(loop, tmp_path, *extra):
    return subprocess.Popen(
        ["ip", "netns", "exec", loop.ns_n, MTGCTL, "manage", "managed.idf",
         "--batch", "--json", "all.json", "--start-delay", START_DELAY,
         *extra], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def daemons(tmp_path, loop, beta):
    """mtgctl recv in the receiver's namespace, mtgctl daemon in each
    sender's: (recv, alpha's, beta's), and recv's directory."""
    out = tmp_path / "recv"
    out.mkdir()
    key = tmp_path / "tsp.key"
    return (tspd.Recv(key, out, netns=loop.ns_r),
            tspd.SendDaemon(key, tmp_path, netns=loop.ns_s),
            tspd.SendDaemon(key, tmp_path, netns=beta)), out


def test_three_hosts_from_one_file(hosts, tmp_path):
    loop, beta, b0, a_addr, b_addr = hosts
    (recv, da, db), out = daemons(tmp_path, loop, beta)
    try:
        managed_idf(tmp_path, loop, b0, a_addr, b_addr, (da.port, db.port),
                    recv.port, COUNT)
        with Capture(loop.r, ns=loop.ns_r, bpf="udp") as cap:
            m = manage(loop, tmp_path)
            stdout, stderr = m.communicate(timeout=1200)
    finally:
        logs = [d.stop() for d in (da, db, recv)]
    assert m.returncode == 0, stdout + stderr
    for rc, log in logs:
        assert rc == 0, log
    assert cap.lossless, cap.stderr
    s = json.loads((tmp_path / "all.json").read_text())
    run_id = s["run_id"]
    assert [(h["name"], h["state"], h["exit_status"]) for h in s["hosts"]] \
        == [("alpha", "ended", 0), ("beta", "ended", 0)]
    # every host's run had its own run id, the manager's and the next
    # (the receiver's module gives a run's packets to one session), and
    # the manager's T0
    runs = {"alpha": run_id, "beta": run_id + 1}
    for h in s["hosts"]:
        assert h["summary"]["run_id"] == h["run_id"] == runs[h["name"]]
        assert h["summary"]["start_ns"] == s["start_ns"]
    assert sorted((t["id"], t["host"]) for t in s["tgs"]) == \
        [(1, "alpha"), (2, "beta"), (3, "alpha")]
    host_run = {1: run_id, 2: run_id + 1, 3: run_id}
    wire_seqs = {1: set(), 2: set(), 3: set()}
    for f in cap.frames:
        view = wire.rx_view(f.data)
        if view and not view.ctrl and view.hdr.tg_id in host_run and \
                view.hdr.run_id == host_run[view.hdr.tg_id]:
            wire_seqs[view.hdr.tg_id].add(view.hdr.seq)
    recorded = {}
    for part in (run_id, run_id + 1):
        for path in out.glob(f"run-{part}-*.mtgrec"):
            rec = Recording(path)
            assert rec.complete
            for t in set(rec.records["tg_id"].tolist()):
                assert host_run[int(t)] == part
                recorded[int(t)] = len(set(
                    rec.records["seq"][rec.records["tg_id"] == t]))
    for tg in s["tgs"]:
        assert tg["sent"] == COUNT, tg
        assert tg["remote"]["received"] == recorded[tg["id"]] == \
            len(wire_seqs[tg["id"]]), (tg, recorded, wire_seqs.keys())
        assert tg["remote"]["lost"] == COUNT - tg["remote"]["received"]
    assert f"host beta tg 2: done, sent {COUNT}" in stdout


def test_manager_killed_mid_run(hosts, tmp_path):
    """The daemons kill their runs when the manager vanishes, and serve
    the next manager."""
    loop, beta, b0, a_addr, b_addr = hosts
    (recv, da, db), _ = daemons(tmp_path, loop, beta)
    try:
        managed_idf(tmp_path, loop, b0, a_addr, b_addr, (da.port, db.port),
                    recv.port, 0)
        m = manage(loop, tmp_path)
        deadline = time.monotonic() + 600
        while "host beta tg 2: running" not in (m.stdout.readline() or ""):
            assert m.poll() is None and time.monotonic() < deadline
        m.send_signal(signal.SIGKILL)
        m.wait(timeout=60)
        for d in (da, db):
            deadline = time.monotonic() + 120
            while "its TGs stopped" not in d.text():
                assert time.monotonic() < deadline, d.text()
                time.sleep(0.2)
        # nothing is sent once both runs ended
        with Capture(loop.r, ns=loop.ns_r, bpf="udp") as cap:
            time.sleep(3)
        assert not [f for f in cap.frames if wire.rx_view(f.data)]
        # and the next manager is served
        managed_idf(tmp_path, loop, b0, a_addr, b_addr, (da.port, db.port),
                    recv.port, 50)
        m = manage(loop, tmp_path)
        stdout, stderr = m.communicate(timeout=1200)
        assert m.returncode == 0, stdout + stderr
    finally:
        logs = [d.stop() for d in (da, db, recv)]
    for rc, log in logs:
        assert rc == 0, log
