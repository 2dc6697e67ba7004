# SPDX-License-Identifier: GPL-2.0-or-later
"""Control messages (MTG §3.2's ctrlmsg) from mtgctl, in the loop of
test_mtgctl_rx (sender -> network under test -> receiver, mtgctl
listening):

- the IDF's `ctrl`: each message goes when its time after its TG's start
  has come, never before (its TX stamp and its arrival are after it), the
  run waits for one due after its TG finished; the capture on the
  receiving interface (the witness) holds each as the control message the
  module sent, and the recording holds each as received, in the extra
  section that `mtgctl info` and mtgsap read;
- `--commands`: a script's lines on standard input send a control
  message, kill a TG, and bad lines are said (with their line number)
  while the run goes on; a `ctrl` still due when its TG was killed is
  counted as not sent;
- the dashboard's c: the text typed goes when Enter is pressed, nothing
  goes on Esc.
"""

import json
import subprocess
import time

import pytest

from mtgsap.recording import Recording
from mtgtest.ctl import (MTGCTL, act_when, mtgctl_commands, mtgctl_run,
                         summary_of, witnessed_run, write_idf)
from mtgtest.system import DEBUG_KERNEL, ROOT
from mtgtest.term import Terminal
from mtgwitness import wire
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst, globals_idf

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm
SLOW = 4 if DEBUG_KERNEL else 1
S = 1_000_000_000


def ctrl_frames(frames, run_id):
    """The control messages on the wire: (tg, seq, sched_ns, tx_ns, data)."""
    out = []
    for f in frames:
        v = wire.rx_view(f.data)
        if v and v.ctrl and v.hdr.run_id == run_id:
            out.append((v.hdr.tg_id, v.hdr.seq, v.hdr.sched_ns, v.hdr.tx_ns,
                        v.payload))
    return out


def test_idf_ctrl_messages_go_at_their_time(make_loop, tmp_path):
    """TG 1 (3 s of packets) sends three messages, one due after it
    finished; TG 2 starts 1 s after T0 and sends one 0.5 s after its own
    start."""
    loop = make_loop(4)
    text = (globals_idf(loop, 3000, 200) +
            f"tgid 1 dst {dst(loop, 9001)}\n"
            '    ctrl 2s "second"  ctrl 1s "first # of tg 1"\n'
            "    ctrl 4s hex:00ff00ff\n"
            f"tgid 2 dst {dst(loop, 9002)} count 100 time relative 1\n"
            '    ctrl 500ms "tg 2\\n"\n')
    write_idf(tmp_path, text)
    res, cap, s = witnessed_run(tmp_path, loop.capture(), "--start-delay",
                                START_DELAY, "-o", "run.rec", "--drain",
                                DRAIN)
    t0 = s["start_ns"]
    assert [(t["id"], t["ctrl_sent"], t["ctrl_unsent"]) for t in s["tgs"]] \
        == [(1, 3, 0), (2, 1, 0)]
    assert s["rx"]["ctrl"] == 4 and s["rx"]["ctrl_drops"] == 0
    assert s["recording"]["extras"] == 4
    assert 'TG 1: control message "first # of tg 1" sent (run.idf:5, ' \
        '15 bytes)' in res.stdout

    # Due: T0 + the TG's start + its time; by the order of the times.
    due = [(1, 0, 1 * S, b"first # of tg 1"), (1, 1, 2 * S, b"second"),
           (1, 2, 4 * S, b"\x00\xff\x00\xff"), (2, 0, S + S // 2, b"tg 2\n")]
    wire_msgs = sorted(ctrl_frames(cap.frames, s["run_id"]))
    assert [(tg, seq, data) for tg, seq, _, _, data in wire_msgs] == \
        [(tg, seq, data) for tg, seq, _, data in due]
    for (tg, seq, sched, tx, _), (_, _, at, _) in zip(wire_msgs, due):
        # sched_ns is when mtgctl asked: never before the message was due
        assert sched >= t0 + at and tx >= sched, (tg, seq)

    rec = Recording(tmp_path / "run.rec")
    assert rec.header["version"] == 2 and rec.meta["version"] == 2
    assert len(rec) == s["recording"]["records"]
    got = sorted((m.tg_id, m.seq, m.data, m.tx_ns, m.run_id)
                 for m in rec.control_messages())
    assert got == [(tg, seq, data, tx, s["run_id"])
                   for tg, seq, _, tx, data in wire_msgs]
    for m in rec.control_messages():
        assert m.rx_ns >= m.tx_ns and m.count == len(m.data)

    out = json.loads(subprocess.run([MTGCTL, "info", "run.rec", "--json"],
                                    cwd=tmp_path, capture_output=True,
                                    text=True, check=True).stdout)
    assert out["extras"]["entries"] == 4 and out["extras"]["ctrl_drops"] == 0
    assert sorted((c["tg_id"], c["seq"], bytes.fromhex(c["hex"]))
                  for c in out["extras"]["ctrl"]) == \
        [(tg, seq, data) for tg, seq, _, data in due]
    sap = subprocess.run([ROOT / ".venv/bin/mtgsap", "ctrl", "run.rec",
                          "--tg", "2"], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert '"tg 2\\n"' in sap and "1 control messages" in sap


def test_a_run_without_control_messages_records_version_1(make_loop,
                                                         tmp_path):
    """What readers of version 1 read: nothing of the extras."""
    loop = make_loop(4)
    write_idf(tmp_path, globals_idf(loop, 50, 200) +
              f"tgid 1 dst {dst(loop, 9001)}\n")
    res = mtgctl_run(tmp_path, "--start-delay", START_DELAY, "-o", "run.rec",
                     "--drain", DRAIN)
    assert res.returncode == 0, res.stdout + res.stderr
    rec = Recording(tmp_path / "run.rec")
    assert (rec.header["version"], rec.meta["version"], len(rec)) == (1, 1, 50)
    assert summary_of(tmp_path)["recording"]["extras"] == 0


def test_commands_from_a_script(make_loop, tmp_path):
    """--commands: a control message, mistakes said by line, a kill; the
    `ctrl` due after the kill is counted as not sent (exit status 2)."""
    loop = make_loop(4)
    write_idf(tmp_path, f"listen {loop.listen()}\n"
              f"netns {loop.ns_s} dev {loop.a}\n"
              "dist fixed pkts fixed 200 200 inta 20ms patt random\n"
              "time relative 0 600s\n"
              f"tgid 1 dst {dst(loop, 9001)} ctrl 500s never\n"
              f"tgid 2 dst {dst(loop, 9002)} count 20\n")
    proc = mtgctl_commands(tmp_path, "--start-delay", START_DELAY,
                           "--drain", DRAIN)

    def act():
        proc.stdin.write('ctrl 1 "from a script"\n'
                         "frobnicate 1\n"
                         "ctrl 7 x\n"
                         "ctrl 1 hex:zz\n"
                         "kill 1 now\n"
                         "ctrl 1 hex:0102\n")
        proc.stdin.flush()
        time.sleep(2)
        proc.stdin.write("kill 1\n")
        proc.stdin.flush()             # the end of the input: when it ends
    out, err = act_when(proc, lambda line: "tg 1:" in line and
                        " 0 sent" not in line, act, timeout=300 * SLOW)
    assert proc.returncode == 2, out + err
    for said in ('TG 1: control message "from a script" sent (command, '
                 "13 bytes)",
                 "commands:2: unknown command 'frobnicate' (ctrl, start, "
                 "kill, suspend, resume, rate, quit)",
                 "commands:3: no TG 7 in run.idf",
                 "commands:4: 'ctrl': the message 'hex:' takes pairs of "
                 "hexadecimal digits",
                 "commands:5: 'kill' takes a TG number only, got 'now' "
                 "after it",
                 'TG 1: control message "\\x01\\x02" sent (command, 2 bytes)',
                 "TG 1 killed",
                 "TG 1: 1 control message not sent: the TG ended first"):
        assert said in out, said + "\n" + out
    s = summary_of(tmp_path)
    tg1, tg2 = s["tgs"]
    assert (tg1["state"], tg1["ctrl_sent"], tg1["ctrl_unsent"]) == \
        ("killed", 2, 1)
    assert (tg2["state"], tg2["ctrl_sent"]) == ("finished", 0)
    msgs = Recording(tmp_path / "run.rec").control_messages()
    assert [(m.tg_id, m.seq, m.data) for m in msgs] == \
        [(1, 0, b"from a script"), (1, 1, b"\x01\x02")]


def test_dashboard_key_sends_what_is_typed(make_loop, tmp_path):
    loop = make_loop(4)
    write_idf(tmp_path, f"listen {loop.listen()}\n"
              f"netns {loop.ns_s} dev {loop.a}\n"
              "dist fixed pkts fixed 200 200 inta 20ms patt random\n"
              "time relative 0 600s\n"
              f"tgid 1 dst {dst(loop, 9001)}\n"
              f"tgid 2 dst {dst(loop, 9002)}\n")
    argv = ["sh", "-c", f"cd {tmp_path} && exec {MTGCTL} run run.idf "
            f"-o run.rec --json summary.json --start-delay {START_DELAY} "
            f"--drain {DRAIN}"]
    with Terminal(tmp_path, argv, cols=160, lines=40) as t:
        t.wait_for(lambda s: "running" in s, timeout=60 * SLOW)
        t.keys("Down")
        t.wait_for(lambda s: "\n>    2 " in s)
        t.keys("c")
        t.wait_for(lambda s: "ctrl to TG 2 (Enter sends, Esc cancels):" in s)
        t.keys("-l", "hello, q k ")         # keys that act, typed as text
        t.keys("BSpace")
        t.keys("Enter")
        t.wait_for(lambda s: 'TG 2: control message "hello, q k" sent '
                   "(from the keyboard, 10 bytes)" in s, timeout=30 * SLOW)
        t.keys("c")
        t.wait_for(lambda s: "ctrl to TG 2" in s)
        t.keys("-l", "never")
        t.keys("Escape")
        t.wait_for(lambda s: "TG 2: control message cancelled" in s,
                   timeout=30 * SLOW)
        t.keys("q")
        assert t.wait_exit(timeout=120 * SLOW) == 2     # TGs killed
        assert t.sane()
    s = summary_of(tmp_path)
    assert [t["ctrl_sent"] for t in s["tgs"]] == [0, 1]
    msgs = Recording(tmp_path / "run.rec").control_messages()
    assert [(m.tg_id, m.data) for m in msgs] == [(2, b"hello, q k")]
