# SPDX-License-Identifier: GPL-2.0-or-later
"""The dashboard and --json-stream against the module, in the loop of
test_mtgctl_rx (sender -> network under test -> receiver, mtgctl
listening).

Few and robust (TCG is slow; the drawing and the keys are tested in depth
on the host, tests/host/test_dashboard.py):

- in tmux, a run of four TGs: a row appears for each, counters advance;
  from the keyboard, TG 2 is suspended then resumed, TG 3's throughput
  doubled, TG 1 killed, TG 4 (time user) started; the recording (the
  wire, after the network under test) shows each of them where the key
  was pressed; 'q' ends the run, the recording is complete and the
  terminal is as it was;
- --json-stream: one JSON object a line, counters that never go back,
  and the last object's totals equal the JSON summary's sums; likewise
  for `mtgctl listen --json-stream` on the network's near side, which
  hears every packet sent. With MTG_RECORD_FEED=PATH the run's stream is
  kept there and the listener's beside it as listen.jsonl
  (tests/dash/record makes the host tests' feeds so).
"""

import json
import os
import pathlib
import signal
import subprocess
import time

import numpy as np
import pytest

from mtgsap.recording import Recording
from mtgtest.ctl import MTGCTL, summary_of, write_idf
from mtgtest.system import DEBUG_KERNEL, run
from mtgtest.term import Terminal
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm
GAP_NS = 20_000_000          # 50 packets/s a TG
SLOW = 4 if DEBUG_KERNEL else 1


def rows(screen):
    out = {}
    heads = None
    for line in screen.splitlines():
        cells = line.lstrip(">").split()
        if cells[:1] == ["TG"]:
            heads = cells
        elif heads and cells and cells[0].isdigit():
            out[int(cells[0])] = dict(zip(heads, cells))
    return out


def count(cell):
    """A count as the dashboard prints it: 812, 1.23k, 45.6k."""
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(cell[-1:], 1)
    return float(cell.rstrip("kMG")) * scale


def tai():
    return time.clock_gettime_ns(time.CLOCK_TAI)


def test_dashboard_drives_the_tgs(make_loop, tmp_path):
    loop = make_loop(4)
    text = (f"listen {loop.listen()}\n"
            f"netns {loop.ns_s} dev {loop.a}\n"
            "dist fixed pkts fixed 200 200 inta 20ms patt random\n"
            "time relative 0 600s\n"
            f"tgid 1 dst {dst(loop, 9001)}\n"
            f"tgid 2 dst {dst(loop, 9002)}\n"
            f"tgid 3 dst {dst(loop, 9003)}\n"
            f"tgid 4 dst {dst(loop, 9004)} time user\n")
    write_idf(tmp_path, text)
    argv = ["sh", "-c", f"cd {tmp_path} && exec {MTGCTL} run run.idf "
            f"-o run.rec --json summary.json --start-delay {START_DELAY} "
            f"--drain {DRAIN}"]
    t = Terminal(tmp_path, argv, cols=160, lines=40)
    try:
        # The event's line in the same condition: the pane is drawn after
        # the table, and the terminal can be read between the two.
        s = t.wait_for(lambda s: set(rows(s)) == {1, 2, 3, 4} and
                       rows(s)[1]["state"] == "running" and
                       "'u' (all)" in s, timeout=60 * SLOW,
                       what="a row for every TG, running, and how to start "
                       "the waiting one")
        assert rows(s)[4]["state"] == "waiting"
        first = count(rows(s)[1]["sent"])
        t.wait_for(lambda s: count(rows(s)[1]["sent"]) >= first + 50,
                   timeout=30 * SLOW, what="TG 1's sent count moving")

        def press(key, event):
            before = tai()
            t.keys(key)
            t.wait_for(lambda s: event in s, timeout=30 * SLOW, what=event)
            return before, tai()

        t.keys("Down")
        t.wait_for(lambda s: s.count(">") and "\n>    2 " in s)
        suspended = press("p", "TG 2 suspended")
        t.wait_for(lambda s: rows(s)[2]["state"] == "suspended")
        time.sleep(2)
        resumed = press("r", "TG 2 resumed")
        t.keys("Down")
        t.wait_for(lambda s: "\n>    3 " in s)
        doubled = press("+", "TG 3: throughput x2 of the requested")
        t.keys("Home")
        t.wait_for(lambda s: "\n>    1 " in s)
        killed = press("k", "TG 1 killed")
        t.keys("End")
        t.wait_for(lambda s: "\n>    4 " in s)
        started = press("s", "TG 4 started")
        t.wait_for(lambda s: rows(s)[4]["state"] == "running" and
                   rows(s)[1]["state"] == "killed", timeout=30 * SLOW)
        time.sleep(3)
        t.resize(80, 24)
        s = t.wait_for(lambda s: set(rows(s)) == {1, 2, 3, 4})
        assert max(len(x) for x in s.splitlines()) <= 80
        t.keys("q")
        status = t.wait_exit(timeout=120 * SLOW)
        assert not t.alternate_screen()
        assert t.sane(), t.stty.read_text()
        after = t.screen()
    finally:
        t.close()
    # Killed TGs: counted, not clean (exit status 2), said after curses.
    assert status == 2, after
    assert "quit from the dashboard: every TG killed" in after
    s = summary_of(tmp_path)
    assert s["interrupted"] is True
    state = {x["id"]: x["state"] for x in s["tgs"]}
    assert state == {1: "killed", 2: "killed", 3: "killed", 4: "killed"}

    rec = Recording(tmp_path / "run.rec")
    assert rec.complete
    assert len(rec) == s["recording"]["records"] > 0
    r = rec.records

    def sched(tg):
        return np.sort(r["sched_ns"][r["tg_id"] == tg].astype(np.int64))

    # TG 1: nothing scheduled after the kill came back
    assert sched(1).max() < killed[1]
    # TG 2: no departure between the two keys, departures on each side
    s2 = sched(2)
    assert not ((s2 > suspended[1]) & (s2 < resumed[0])).any()
    assert (s2 < suspended[0]).any() and (s2 > resumed[1]).any()
    assert np.diff(s2).max() >= resumed[0] - suspended[1]
    # TG 3: gaps of 20 ms, then of 10 ms
    s3 = np.diff(sched(3))
    t3 = sched(3)[1:]
    before = s3[t3 < doubled[0]]
    after_ = s3[t3 > doubled[1] + 2 * GAP_NS]
    assert np.median(before) == GAP_NS
    assert np.median(after_) == GAP_NS // 2
    # TG 4: waited for the key
    assert sched(4).min() >= started[0]
    assert len(sched(4)) > 0


def test_json_stream_totals_agree(make_loop, tmp_path):
    loop = make_loop(4)
    loop.netem("loss", "5%", "delay", "5ms")
    text = (f"listen {loop.listen()}\n"
            f"netns {loop.ns_s} dev {loop.a}\n"
            "patt random seed 7 threshold 1us\n"
            f"tgid 1 dst {dst(loop, 9001)} dist fixed pkts fixed 200 200 "
            "inta 10ms count 400\n"
            f"tgid 2 dst {dst(loop, 9002)} dist exponential pkts fixed 300 "
            "300 inta 5ms count 800\n"
            f"tgid 3 dst {dst(loop, 9003)} dist voice pkts 200 thro 80k time relative 1s 3s\n"
            f"tgid 4 dst {dst(loop, 9004)} dist fixed pkts fixed 1000 1000 "
            "thro 2M count 300 nowb 10\n")
    write_idf(tmp_path, text)
    # A receiving host on the network's near side, passing the packets on.
    listener = subprocess.Popen(
        [MTGCTL, "listen", f"{loop.b}@{loop.ns_n}", "--passthrough",
         "--json-stream", "--json", "listen.json"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert "listening on" in listener.stderr.readline()
    p = subprocess.run([MTGCTL, "run", "run.idf", "--json-stream", "-o",
                        "run.rec", "--json", "summary.json", "--start-delay",
                        START_DELAY, "--drain", DRAIN], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    # losses in the network under test are measurements, not errors
    assert p.returncode == 0, p.stdout + p.stderr
    # stdout is JSON lines only; the human lines went to stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert "run_id" in p.stderr and "tg 1:" in p.stderr
    assert len(lines) >= 4
    assert {x["format"] for x in lines} == {"mtgctl-stream"}
    assert [x["type"] for x in lines] == ["interval"] * (len(lines) - 1) + \
        ["end"]
    assert lines[-1]["phase"] == "ended"
    for a, b in zip(lines, lines[1:]):
        for k in ("sent", "received", "bytes"):
            assert b["totals"][k] >= a["totals"][k]
        assert b["time_ns"] > a["time_ns"]
    s = summary_of(tmp_path)
    end = lines[-1]
    assert end["run_id"] == s["run_id"]
    for k in ("sent", "bytes", "received", "lost", "duplicates",
              "reordered", "bit_errors", "late_packets"):
        assert end["totals"][k] == sum(t[k] for t in s["tgs"]), k
    assert end["rx"]["ring_drops"] == s["ring_drops"]
    assert end["rx"]["recorded"] == s["recording"]["records"]
    by_id = {t["id"]: t for t in end["tgs"]}
    for t in s["tgs"]:
        assert by_id[t["id"]]["sent"] == t["sent"]
        assert by_id[t["id"]]["received"] == t["received"]
        assert by_id[t["id"]]["state"] == "done"
    # netem dropped some: the gaps were shown while they happened
    assert any(t["gaps"] for x in lines for t in x["tgs"])
    # every TG's event (finished) reached the stream
    events = [e for x in lines for e in x["events"]]
    assert sum("finished" in e for e in events) >= 4, events

    listener.send_signal(signal.SIGINT)
    out, err = listener.communicate(timeout=120 * SLOW)
    assert listener.returncode == 0, out + err
    heard = [json.loads(x) for x in out.splitlines()]
    assert heard and heard[-1]["type"] == "end"
    assert {x["command"] for x in heard} == {"listen"}
    ls = json.loads((tmp_path / "listen.json").read_text())
    mine = {t["id"]: t for t in heard[-1]["tgs"] if t["run_id"] == s["run_id"]}
    # before netem: everything sent arrived, and the stream says what the
    # listener's summary says
    assert {i: t["received"] for i, t in mine.items()} == \
        {t["id"]: t["sent"] for t in s["tgs"]}
    assert {i: (t["tx"], t["rx"]) for i, t in mine.items()} == \
        {i: (False, True) for i in mine}
    for k in ("received", "lost", "duplicates", "reordered", "bit_errors"):
        assert heard[-1]["totals"][k] == sum(t[k] for t in ls["tgs"]), k

    keep = os.environ.get("MTG_RECORD_FEED")
    if keep:
        pathlib.Path(keep).write_text(p.stdout)
        pathlib.Path(keep).with_name("listen.jsonl").write_text(out)


def test_dashboard_line_for_a_receive_interface_gone(make_loop, tmp_path):
    """The interface a run records on is deleted while the dashboard
    shows the run: a red line under the receiving side names it, the
    event pane says it, and after the run (which ends by itself) the
    terminal gets the report's line and the exit status is 2."""
    loop = make_loop(4)
    name = f"{loop.r}@{loop.ns_r}"
    write_idf(tmp_path, f"listen {loop.listen()}\n"
              f"netns {loop.ns_s} dev {loop.a}\n"
              "dist fixed pkts fixed 200 200 inta 20ms count 300\n"
              f"tgid 1 dst {dst(loop, 9001)}\n")
    argv = ["sh", "-c", f"cd {tmp_path} && exec {MTGCTL} run run.idf "
            f"-o run.rec --json summary.json --start-delay {START_DELAY} "
            f"--drain {DRAIN}"]
    with Terminal(tmp_path, argv, cols=160, lines=40) as t:
        t.wait_for(lambda s: 1 in rows(s) and count(rows(s)[1]["rcvd"]) > 0,
                   timeout=60 * SLOW, what="TG 1 receiving")
        run("ip", "-n", loop.ns_r, "link", "del", loop.r, timeout=60)
        # Both in one condition: curses draws the header before the event
        # pane, and the terminal can be read between the two.
        s = t.wait_for(lambda s: f"receive interface gone: {name}: nothing "
                       "more is received on it" in s and
                       f"event: receive interface {name} went away" in s,
                       timeout=30 * SLOW,
                       what="the line of the interface gone and its event")
        assert s.splitlines()[3].startswith("receive interface gone: ")
        status = t.wait_exit(timeout=120 * SLOW)
        after = t.screen()
    assert status == 2, after
    assert f"rx: interface {name} went away at " in after
    s = summary_of(tmp_path)
    assert [(x["dev"], x["netns"]) for x in s["ifaces_lost"]] == \
        [(loop.r, loop.ns_r)]
