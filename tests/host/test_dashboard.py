# SPDX-License-Identifier: GPL-2.0-or-later
"""The dashboard's drawing and keys, in a real terminal (tmux), on the host.

`mtgctl replay` draws the JSON lines of a real run (tests/dash/run.jsonl,
recorded in the VM by tests/dash/record) with the same code as a live
run, and reports the keys that would act on a TG instead of carrying them
out; so everything but the module is tested here in depth:

- a row per TG of each frame, with the frame's counters, and the header's
  clock, totals, ring and recording; frames advance and go back;
- selection, sort (and reverse), help, and each TG key naming the selected
  TG; the event pane shows the run's events up to the frame;
- 80x24 and smaller terminals (40x10, 30x4) keep a usable view;
- quitting, SIGTERM and SIGHUP leave the terminal as it was (no alternate
  screen, canonical input, echo), with the right exit status;
- a bad stream is refused with its file, line and column; off a terminal
  replay says so.
"""

import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from mtgtest.term import Terminal

FEED = pathlib.Path(__file__).resolve().parents[1] / "dash" / "run.jsonl"


def frames():
    return [json.loads(line) for line in FEED.read_text().splitlines()]


def si(v):
    """dash_si(): what the dashboard prints for a count or a rate."""
    units, u = " kMGTP", 0
    while abs(v) >= 999.5 and u < len(units) - 2:
        v /= 1000.0
        u += 1
    if u == 0 and v == int(v):
        return f"{v:.0f}"
    fmt = "%.0f" if v >= 99.95 else "%.1f" if v >= 9.995 else "%.2f"
    return (fmt % v) + (units[u] if u else "")


def rows_of(screen):
    """{TG id: cells} of the table (lines starting with the id)."""
    heads = None
    rows = {}
    for line in screen.splitlines():
        cells = line.lstrip(">").split()
        if cells[:2] == ["TG", "state"] or cells[:2] == ["TG", "model"]:
            heads = cells
            continue
        if heads and cells and cells[0].isdigit():
            rows[int(cells[0])] = dict(zip(heads, cells))
    return heads, rows


def selected_id(screen):
    for line in screen.splitlines():
        if line.startswith(">"):
            return int(line[1:].split()[0])
    return None


@pytest.fixture
def replay(mtgctl, tmp_path):
    terms = []

    def start(*args, cols=150, lines=40):
        t = Terminal(tmp_path, [mtgctl, "replay", FEED, *args], cols, lines,
                     still=True)
        terms.append(t)
        t.wait_for(lambda s: "replay 1/" in s, what="the first frame")
        return t
    yield start
    for t in terms:
        t.close()


def test_feed_is_a_real_multi_tg_run():
    """The recorded feed has what the tests below need to mean something."""
    f = frames()
    assert len(f) >= 4
    assert {x["format"] for x in f} == {"mtgctl-stream"}
    assert f[-1]["type"] == "end"
    assert len(f[-1]["tgs"]) >= 3
    assert f[-1]["totals"]["sent"] > f[1]["totals"]["sent"] > 0
    assert f[-1]["rx"]["recording"]
    # counters never go back from one interval to the next
    for a, b in zip(f, f[1:]):
        assert b["totals"]["sent"] >= a["totals"]["sent"]
        assert b["time_ns"] > a["time_ns"]


def check_frame(screen, frame, k, n):
    heads, rows = rows_of(screen)
    assert f"replay {k + 1}/{n}" in screen
    assert f"T+{frame['elapsed_ns'] / 1e9:.1f}s" in screen
    assert f"run {frame['run_id']}" in screen
    assert set(rows) == {t["id"] for t in frame["tgs"]}
    for t in frame["tgs"]:
        row = rows[t["id"]]
        assert row["state"] == t["state"]
        assert row["sent"] == si(t["sent"])
        assert row["rcvd"] == si(t["received"])
        assert row["lost"] == si(t["lost"])
    tot = frame["totals"]
    assert f"sent {si(tot['sent'])} " in screen
    assert f"rcvd {si(tot['received'])} " in screen
    assert f"drops {frame['rx']['ring_drops']} " in screen


def test_every_frame_and_back(replay):
    f = frames()
    t = replay()
    check_frame(t.screen(), f[0], 0, len(f))
    for k in range(1, len(f)):
        t.keys("n")
        s = t.wait_for(lambda s: f"replay {k + 1}/" in s)
        check_frame(s, f[k], k, len(f))
    t.keys("n")    # past the last: stays
    time.sleep(0.3)
    check_frame(t.screen(), f[-1], len(f) - 1, len(f))
    t.keys("b")
    s = t.wait_for(lambda s: f"replay {len(f) - 1}/" in s)
    check_frame(s, f[-2], len(f) - 2, len(f))


def test_events_up_to_the_frame(replay):
    f = frames()
    t = replay()
    for _ in f[1:]:
        t.keys("n")
    s = t.wait_for(lambda s: f"replay {len(f)}/" in s)
    every = [e for x in f for e in x["events"]]
    assert f"events ({len(every)})" in s
    # the latest ones that fit, each on its line
    shown = [e for e in every if e[:60] in s]
    assert every[-1][:60] in s
    assert shown == every[len(every) - len(shown):]


def test_selection_and_tg_keys(replay):
    f = frames()
    ids = sorted(t["id"] for t in f[0]["tgs"])
    t = replay()
    assert selected_id(t.screen()) == ids[0]
    t.keys("Down")
    t.wait_for(lambda s: selected_id(s) == ids[1])
    t.keys("p")
    t.wait_for(lambda s: f"replay: would suspend TG {ids[1]}" in s)
    t.keys("r")
    t.wait_for(lambda s: f"replay: would resume TG {ids[1]}" in s)
    t.keys("k")
    t.wait_for(lambda s: f"replay: would kill TG {ids[1]}" in s)
    t.keys("s")
    t.wait_for(lambda s: f"replay: would start TG {ids[1]}" in s)
    t.keys("+")
    t.wait_for(lambda s: f"TG {ids[1]}'s throughput to x2 " in s)
    t.keys("-")
    t.wait_for(lambda s: f"TG {ids[1]}'s throughput to x0.5 " in s)
    t.keys("u")
    t.wait_for(lambda s: "would start every TG waiting" in s)
    t.keys("End")
    t.wait_for(lambda s: selected_id(s) == ids[-1])
    t.keys("Up", "Home")
    t.wait_for(lambda s: selected_id(s) == ids[0])
    t.keys("Up")    # at the top: stays
    time.sleep(0.3)
    assert selected_id(t.screen()) == ids[0]


def test_sort_keys(replay):
    f = frames()
    t = replay()
    for _ in f[1:-1]:
        t.keys("n")
    frame = f[-2]
    t.wait_for(lambda s: f"replay {len(f) - 1}/" in s)

    def order(s):
        return [int(line.lstrip(">").split()[0]) for line in s.splitlines()
                if line.lstrip(">").split()[:1] and
                line.lstrip(">").split()[0].isdigit()]

    by_id = sorted(x["id"] for x in frame["tgs"])
    assert order(t.screen()) == by_id
    t.keys("o")
    s = t.wait_for(lambda s: "sort: rate" in s)
    by_rate = [x["id"] for x in sorted(frame["tgs"],
                                       key=lambda x: (-x["pps"], x["id"]))]
    assert order(s) == by_rate
    t.keys("O")
    s = t.wait_for(lambda s: "sort: rate (rev)" in s)
    assert order(s) == by_rate[::-1]
    # the selection follows its TG, not its line
    sel = selected_id(s)
    t.keys("o")
    s = t.wait_for(lambda s: "sort: lost (rev)" in s)
    assert selected_id(s) == sel


def test_help_toggles(replay):
    t = replay()
    t.keys("h")
    s = t.wait_for(lambda s: "keys " in s and "double its throughput" in s)
    assert "events (" not in s
    t.keys("h")
    t.wait_for(lambda s: "events (" in s)


@pytest.mark.parametrize("cols,lines", [(80, 24), (40, 10), (30, 4)])
def test_small_terminals(replay, cols, lines):
    f = frames()
    t = replay()
    t.keys("Down")
    t.resize(cols, lines)
    ids = sorted(x["id"] for x in f[0]["tgs"])

    def usable(s):
        ls = s.splitlines()
        return (ls and ls[0].startswith("mtg run  T+") and
                "q" in ls[-1] and selected_id(s) == ids[1])
    s = t.wait_for(usable, what=f"a usable {cols}x{lines} view")
    assert max(len(x) for x in s.splitlines()) <= cols
    _, rows = rows_of(s)
    if lines >= 24:
        # the whole table and the columns that matter most
        heads, rows = rows_of(s)
        assert {"TG", "state", "pkt/s", "sent", "rcvd", "lost"} <= set(heads)
        assert set(rows) == set(ids)
        assert "ring " in s and "events (" in s
        assert "s:start" in s.splitlines()[-1]
    # and back to a large one: everything again
    t.resize(150, 40)
    s = t.wait_for(lambda s: "destination" in s and "events (" in s)


def test_quit_restores_the_terminal(replay):
    t = replay()
    assert t.alternate_screen()
    t.keys("q")
    assert t.wait_exit() == 0
    assert not t.alternate_screen()
    assert t.sane(), t.stty.read_text()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP,
                                 signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_signals_restore_the_terminal(replay, sig):
    t = replay()
    children = subprocess.run(["pgrep", "-P", str(t.pid()), "mtgctl"],
                              capture_output=True, text=True).stdout.split()
    assert len(children) == 1
    os.kill(int(children[0]), sig)
    assert t.wait_exit() == 128 + sig
    assert not t.alternate_screen()
    assert t.sane(), t.stty.read_text()


def test_bad_stream_says_where(mtgctl, tmp_path):
    bad = tmp_path / "bad.jsonl"
    lines = FEED.read_text().splitlines()
    bad.write_text(lines[0] + "\n" + lines[1][:40] + "\n")
    with Terminal(tmp_path, [mtgctl, "replay", bad], still=True) as t:
        assert t.wait_exit() == 1
        err = t.stderr.read_text()
        assert f"{bad}:2:" in err, err
        assert t.sane()
        assert not t.alternate_screen()
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "mtgctl-summary"}\n')
    with Terminal(tmp_path, [mtgctl, "replay", other], still=True) as t:
        assert t.wait_exit() == 1
        assert f"{other}:1: not a line of 'mtgctl run --json-stream'" in \
            t.stderr.read_text()


LISTEN = FEED.parent / "listen.jsonl"


def test_a_listeners_view(mtgctl, tmp_path):
    """mtgctl listen's stream: rows per flow heard, no sending side (the
    header has no 'sent', the rows '-'), and keys that would act on a TG
    say that it is not this run's."""
    heard = [json.loads(x) for x in LISTEN.read_text().splitlines()]
    last = heard[-1]
    with Terminal(tmp_path, [mtgctl, "replay", LISTEN], still=True) as t:
        t.wait_for(lambda s: "replay 1/" in s)
        for _ in heard[1:]:
            t.keys("n")
        s = t.wait_for(lambda s: f"replay {len(heard)}/" in s)
        assert s.startswith("mtg listen  T+")
        assert "sent " not in s.splitlines()[1]
        assert f"rcvd {si(last['totals']['received'])} " in s
        _, rows = rows_of(s)
        assert set(rows) == {x["id"] for x in last["tgs"]}
        for x in last["tgs"]:
            assert rows[x["id"]]["sent"] == "-"
            assert rows[x["id"]]["rcvd"] == si(x["received"])
            assert rows[x["id"]]["state"] in ("receiving", "quiet")
        t.keys("p")
        t.wait_for(lambda s: "is not this run's" in s)
        t.keys("q")
        assert t.wait_exit() == 0


def test_replay_needs_a_terminal(mtgctl):
    p = subprocess.run([mtgctl, "replay", FEED], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 1
    assert "needs a terminal" in p.stderr


SCREEN = FEED.parent / "screen.txt"
README = FEED.parents[2] / "README.md"


def test_the_documented_capture_is_what_replay_draws(replay):
    """Documentation/mtgctl.rst and the README show tests/dash/screen.txt:
    the fourth frame of the feed at 100x24, as replay draws it now
    (MTG_REGEN_SCREEN=1 writes it anew after a change to the drawing)."""
    t = replay(cols=100, lines=24)
    for _ in range(3):
        t.keys("n")
    s = t.wait_for(lambda s: "replay 4/" in s)
    drawn = "\n".join(line.rstrip() for line in s.splitlines()).rstrip() + "\n"
    if os.environ.get("MTG_REGEN_SCREEN"):
        SCREEN.write_text(drawn)
    assert SCREEN.read_text() == drawn
    readme = README.read_text()
    block = readme.split("<!-- dashboard -->\n```\n", 1)[1].split("```", 1)[0]
    assert block == drawn, "README's capture is not tests/dash/screen.txt"
