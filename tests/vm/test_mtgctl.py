# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl run --batch` against the real module: the JSON summary agrees
with what a lossless capture on the receiving side saw; a start that fails
leaves nothing running; SIGINT and SIGTERM kill the TGs, still write the
summary, and no frame of the run follows."""

import json
import signal
import subprocess
import time

import pytest

from mtgtest import wire
from mtgtest.capture import Capture
from mtgtest.system import ROOT, run

MTGCTL = ROOT / "ctl/mtgctl"


@pytest.fixture
def net(mtg, netns, veth):
    """veth a (root namespace, 10.66.0.1) -> b (namespace ns, 10.66.0.2)."""
    ns = netns()
    a, b = veth(ns)
    run("ip", "addr", "add", "10.66.0.1/24", "dev", a)
    run("ip", "-n", ns, "addr", "add", "10.66.0.2/24", "dev", b)
    mac = run("ip", "-n", ns, "-j", "link", "show", b).stdout
    return {"ns": ns, "a": a, "b": b, "b_mac": json.loads(mac)[0]["address"]}


def idf(tmp_path, text):
    path = tmp_path / "run.idf"
    path.write_text(text)
    return path


def mtgctl_run(path, summary, *extra, timeout=300):
    return subprocess.run([MTGCTL, "run", path, "--batch", "--json", summary,
                           *extra], capture_output=True, text=True,
                          timeout=timeout)


def test_summary_agrees_with_the_wire(net, tmp_path):
    path = idf(tmp_path, f"""
dev {net['a']}
dist fixed
pkts fixed 200 200
tgid 1 dst 10.66.0.2:9001 inta 1ms count 500
tgid 2 dst 10.66.0.2:9002 thro 1.6M time relative 0 1s   # 200 B at 1.6 Mbit/s: 1 ms
""")
    summary = tmp_path / "summary.json"
    with Capture(net["b"], ns=net["ns"], bpf="udp") as cap:
        res = mtgctl_run(path, summary)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless
    got = json.loads(summary.read_text())
    assert got["interrupted"] is False
    tgs = {t["id"]: t for t in got["tgs"]}
    assert (tgs[1]["sent"], tgs[2]["sent"]) == (500, 1000)
    ours = wire.mtg_frames(cap.frames, run_id=got["run_id"])
    for tg_id, tg in tgs.items():
        frames = [f for f in ours if f.mtg.tg_id == tg_id]
        assert len(frames) == tg["sent"] and all(f.ok for f in frames)
        assert sorted(f.mtg.seq for f in frames) == list(range(tg["sent"]))
        assert tg["bytes"] == 200 * tg["sent"] and tg["tx_errors"] == 0
        assert tg["state"] == "finished" and tg["error"] is None
        assert tg["dst_mac"] == net["b_mac"]
        lat = tg["lateness_ns"]
        assert lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"]
        # max is exact: the latest packet on the wire says the same.
        assert lat["max"] == max(f.mtg.tx_ns - f.mtg.sched_ns for f in frames)


def test_failed_start_leaves_nothing(net, tmp_path):
    """TG 2's destination answers no ARP: nothing may keep running."""
    path = idf(tmp_path, f"""
dev {net['a']}
dist fixed pkts fixed 200 200 inta 1ms
tgid 1 dst 10.66.0.2:9001
tgid 2 dst 10.66.0.99:9002
""")
    summary = tmp_path / "summary.json"
    with Capture(net["b"], ns=net["ns"], bpf="udp") as cap:
        res = mtgctl_run(path, summary, "--start-delay", "5")
        time.sleep(1)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "TG 2" in res.stderr and "MAC" in res.stderr, res.stderr
    # TG 1 had started and was killed, before its start time came.
    assert not wire.mtg_frames(cap.frames)
    assert not summary.exists()


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130),
                                        (signal.SIGTERM, 143)])
def test_signal_kills_and_reports(net, tmp_path, sig, status):
    path = idf(tmp_path, f"""
dev {net['a']}
tgid 1 dst 10.66.0.2:9001 dist fixed pkts fixed 200 200 inta 1ms
""")
    summary = tmp_path / "summary.json"
    proc = subprocess.Popen([MTGCTL, "run", path, "--batch", "--json", summary],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        # The first progress line comes a second after the start.
        line = proc.stdout.readline()
        while line and " sent" not in line:
            line = proc.stdout.readline()
        assert line, proc.stderr.read()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, out + err
    got = json.loads(summary.read_text())
    assert got["interrupted"] is True
    assert [t["state"] for t in got["tgs"]] == ["killed"]
    assert got["tgs"][0]["sent"] > 0
    with Capture(net["b"], ns=net["ns"], bpf="udp") as cap:
        time.sleep(1)
    assert cap.lossless
    assert not wire.mtg_frames(cap.frames, run_id=got["run_id"])


def test_start_time_passed(net, tmp_path):
    path = idf(tmp_path, f"""
dev {net['a']}
tgid 1 dst 10.66.0.2:9001 dist fixed pkts fixed 200 200 inta 1ms count 10
""")
    res = mtgctl_run(path, tmp_path / "summary.json", "--start-delay", "1ns")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "--start-delay" in res.stderr, res.stderr


def test_failed_tg_exits_2(net, tmp_path):
    """The sending interface goes away mid-run: the TG fails, mtgctl ends
    with status 2 and says why in the summary."""
    path = idf(tmp_path, f"""
dev {net['a']}
tgid 1 dst 10.66.0.2:9001 dist fixed pkts fixed 200 200 inta 1ms
""")
    summary = tmp_path / "summary.json"
    proc = subprocess.Popen([MTGCTL, "run", path, "--batch", "--json", summary],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stdout.readline()
        while line and " sent" not in line:
            line = proc.stdout.readline()
        run("ip", "link", "del", net["a"], timeout=60)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, out + err
    tg = json.loads(summary.read_text())["tgs"][0]
    assert tg["state"] == "failed" and tg["error"], tg
