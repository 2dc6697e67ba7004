# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl run --batch` against the real module, over a veth pair from one
network namespace into another (the IDF names them: they are unique per
test).

What is checked, with a lossless capture on the receiving side as the
witness where the wire can tell:

- a run that succeeds: exit 0, every field of the JSON summary, and the
  summary equal to what the wire saw (packets, bytes, sequence numbers,
  headers, the lateness percentiles recomputed from the frames' own
  stamps, late packets above the threshold) and, for `events`, to the
  notifications a netlink listener got;
- a start that fails (a destination nobody answers ARP for: EHOSTUNREACH
  after the module's 2 s wait) kills the TGs already started: exit 1, the
  failing TG named, no summary, no frame even after the start time;
- a start time already passed (ETIME): exit 1 and what to do about it;
- SIGINT and SIGTERM during a run without end: exit 130/143, every TG
  killed, the summary written with "interrupted": true, and not one frame
  of the run on the wire beyond the counts the summary gives;
- exit 2: TX errors counted (a veth whose peer is down has no carrier), and
  a TG that failed (its interface deleted under it);
- the summary replaced by rename, never seen half-written; a summary that
  cannot be written;
- progress lines: per TG up to 4 TGs, one aggregate line beyond.

No timing thresholds (TESTING.md): under software emulation only counts
and the order of events are judged.
"""

import errno
import itertools
import json
import os
import re
import signal
import stat
import threading
import time

import pytest

from mtgtest import ynl
from mtgtest.ctl import (act_when, mtgctl_run, mtgctl_start, summary_of,
                         write_idf)
from mtgtest.system import run, tai_ns
from mtgwitness import abi, wire
from mtgwitness.capture import Capture

MS = 1_000_000
S = 1_000_000_000
START_DELAY = "3"           # s: ARP resolution under emulation, with margin
MODULUS = 2**31 - 1
MULTIPLIER = 950706376
LAT_KEYS = ("p50", "p99", "p999", "max", "mean")
EHOSTUNREACH_MSG = (
    "No route to host: the destination's MAC address could not be resolved "
    "(no ARP/ND answer): check 'dst' and the route, or give 'mac'")
ETIME_MSG = ("Timer expired: its start time had passed when the module got "
             "it: raise --start-delay")

_subnets = itertools.count(1)


# --- the link: a (sender, namespace ns_a or ours) -> b (namespace ns_b) ----

def link_info(dev, ns=None):
    cmd = ["ip"] + (["-n", ns] if ns else []) + ["-j", "link", "show", dev]
    return json.loads(run(*cmd).stdout)[0]


@pytest.fixture
def make_link(mtg, netns, veth):
    def make(sender_ns=True):
        n = next(_subnets)
        ns_b = netns()
        a, b = veth(b_ns=ns_b)
        ns_a = None
        if sender_ns:
            ns_a = netns()
            run("ip", "link", "set", a, "netns", ns_a)
            run("ip", "-n", ns_a, "link", "set", a, "up")
        ip_a = ["ip", "-n", ns_a] if ns_a else ["ip"]
        run(*ip_a, "addr", "add", f"10.77.{n}.1/24", "dev", a)
        run("ip", "-n", ns_b, "addr", "add", f"10.77.{n}.2/24", "dev", b)
        return {
            "a": a, "b": b, "ns_a": ns_a, "ns_b": ns_b,
            "a_addr": f"10.77.{n}.1", "b_addr": f"10.77.{n}.2",
            # on the subnet, owned by nobody: no ARP answer
            "nobody": f"10.77.{n}.99",
            "a_mac": link_info(a, ns_a)["address"],
            "b_mac": link_info(b, ns_b)["address"],
            # the IDF's globals for a TG sending from a
            "globals": f"dev {a}" + (f" netns {ns_a}" if ns_a else ""),
        }
    return make


@pytest.fixture
def link(make_link):
    return make_link()


# --- what mtgctl prints ----------------------------------------------------

FIRST_LINE = re.compile(
    r"run_id (\d+): (\d+) TGs? from (\S+), T0 (\d+) \(CLOCK_TAI\), in (\d+) ms$")
ELAPSED = r"\s*(\d+)\.(\d)s"
TG_PROGRESS = r"tg (\d+): (\d+) sent, (\d+) tx_errors, (\w+)"
PER_TG_LINE = re.compile(ELAPSED + " " + TG_PROGRESS + r"((?: \| " +
                         TG_PROGRESS + r")*)$")
AGGREGATE_LINE = re.compile(
    ELAPSED + r" (\d+) TGs: (\d+) running, (\d+) finished, (\d+) killed, "
    r"(\d+) failed; (\d+) sent, (\d+) tx_errors$")
REPORT_LINE = re.compile(r"tg (\d+): (\w+)( \w+)?, (\d+) sent \((\d+) bytes\), "
                         r"(\d+) tx_errors")


def first_line(stdout):
    m = FIRST_LINE.match(stdout.splitlines()[0])
    assert m, stdout
    return {"run_id": int(m[1]), "ntgs": int(m[2]), "file": m[3],
            "t0": int(m[4]), "delay_ms": int(m[5])}


def progress_lines(stdout):
    """The progress lines: (tenths of seconds since T0, [(tg, sent,
    tx_errors, state)]) for per-TG lines, or the aggregate's numbers."""
    out = []
    for line in stdout.splitlines():
        m = PER_TG_LINE.match(line)
        if m:
            tgs = [tuple(int(x) if x.isdigit() else x for x in t)
                   for t in re.findall(TG_PROGRESS, line)]
            out.append(("tgs", int(m[1]) * 10 + int(m[2]), tgs))
            continue
        m = AGGREGATE_LINE.match(line)
        if m:
            out.append(("aggregate", int(m[1]) * 10 + int(m[2]),
                        [int(x) for x in m.groups()[2:]]))
    return out


def report_lines(stdout):
    """The final line per TG: {tg: (state, error, sent, bytes, tx_errors,
    the whole line)}."""
    out = {}
    for line in stdout.splitlines():
        m = REPORT_LINE.match(line)
        if m:
            out[int(m[1])] = (m[2], (m[3] or "").strip() or None, int(m[4]),
                              int(m[5]), int(m[6]), line)
    return out


def check_stdout_shape(stdout, ntgs):
    """Nothing but the first line, progress lines, the report (and the
    interruption line)."""
    lines = stdout.splitlines()
    assert FIRST_LINE.match(lines[0]), stdout
    for line in lines[1:]:
        assert (PER_TG_LINE.match(line) or AGGREGATE_LINE.match(line) or
                REPORT_LINE.match(line) or
                re.fullmatch(r"interrupted by SIG(INT|TERM): every TG killed",
                             line)), f"unexpected line {line!r} in\n{stdout}"
    assert len(report_lines(stdout)) == ntgs, stdout


# --- lateness, as the summary computes it from the module's histogram -------

def lateness_ordered(lat):
    assert lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"], lat
    assert lat["mean"] <= lat["max"], lat


def check_against_wire(tg, frames, link, cpu=None):
    """One TG of the summary against its frames on the wire."""
    assert len(frames) == tg["sent"], (tg, len(frames))
    bad = [f.errors for f in frames if not f.ok]
    assert not bad, bad[:5]
    assert [f.mtg.seq for f in frames] == list(range(tg["sent"]))
    assert tg["bytes"] == sum(f.orig_len for f in frames)
    lat = [f.mtg.tx_ns - f.mtg.sched_ns for f in frames]
    assert min(lat) >= 0 and tg["early"] == 0
    # The histogram's percentiles, the exact maximum and mean, all equal to
    # what the headers' own stamps give.
    assert tg["lateness_ns"] == wire.hist_summary(lat)
    lateness_ordered(tg["lateness_ns"])
    for f in frames:
        assert (f.eth_src, f.eth_dst) == (link["a_mac"], link["b_mac"])
        assert (str(f.src), str(f.dst)) == (link["a_addr"], link["b_addr"])
        assert f.mtg.tg_id == tg["id"]
    assert tg["dst_mac"] == link["b_mac"]
    assert (tg["dev"], tg["netns"]) == (link["a"], link["ns_a"])
    assert (tg["tx_errors"], tg["bad_entries"], tg["underruns"],
            tg["ctrl_sent"]) == (0, 0, 0, 0)


# --- a run that succeeds -----------------------------------------------------

def test_summary_agrees_with_the_wire(link, tmp_path):
    """Three TGs: a count, 1000 pkt/s for `time relative 0 1s` (precise,
    qdisc path, a threshold), and a late start with `late skip` and a given
    MAC address."""
    b = link["b_addr"]
    write_idf(tmp_path, f"""\
{link['globals']} dst {b}:9000 dist fixed
tgid 1 pkts fixed 200 200 inta 1ms count 500 patt incremental 3 tos 0x10 cpu 0
tgid 2 dst {b}:9002 pkts fixed 250 250 thro 2M time relative 0 1s
       patt random seed 7 ttl 9 mode precise path qdisc threshold 1ms
tgid 3 dst {b}:9003 pkts fixed 200 200 inta 1ms time relative 0.5 0.5s
       late skip mac {link['b_mac']}
""")
    nl = ynl.family()
    nl.ntf_subscribe("events")    # the witness of each TG's `events`
    with Capture(link["b"], ns=link["ns_b"], bpf="udp") as cap:
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stderr == ""
    assert cap.lossless, cap.stderr
    notes = [e["msg"] for e in ynl.notifications(nl, lambda got: sum(
        "finished" in e["msg"]["event"] for e in got) >= 3,
        name="tg-event-ntf")]

    head = first_line(res.stdout)
    s = summary_of(tmp_path)
    assert (s["format"], s["version"], s["file"]) == \
        ("mtgctl-summary", 1, "run.idf")
    assert s["interrupted"] is False
    assert (head["run_id"], head["ntgs"], head["file"], head["t0"],
            head["delay_ms"]) == (s["run_id"], 3, "run.idf", s["start_ns"],
                                  3000)
    t0 = s["start_ns"]
    assert [t["id"] for t in s["tgs"]] == [1, 2, 3]
    one, two, three = s["tgs"]
    for tg in s["tgs"]:
        assert (tg["state"], tg["error"]) == ("finished", None)
    # `count 500`; 250 B at 2 Mbit/s for 1 s is 1000 pkt/s: 1000 packets;
    # late skip: every slot of the half second sent or skipped.
    assert (one["sent"], two["sent"]) == (500, 1000)
    assert three["sent"] + three["skipped_late"] == 500
    assert (one["skipped_late"], two["skipped_late"]) == (0, 0)

    ours = wire.mtg_frames(cap.frames, run_id=s["run_id"])
    assert len(ours) == one["sent"] + two["sent"] + three["sent"]
    frames = {t: [f for f in ours if f.mtg.tg_id == t] for t in (1, 2, 3)}
    for tg in s["tgs"]:
        check_against_wire(tg, frames[tg["id"]], link)
    assert s["end_ns"] >= max(f.mtg.tx_ns for f in ours)

    # `events`: the notifications each TG raised, as a listener got them;
    # TG 2 (its threshold) was late at least once only if late_packets.
    for tg in s["tgs"]:
        mine = [n for n in notes if n["id"] == tg["id"]]
        assert tg["events"] == len(mine) >= 1, (tg["id"], mine)
        kinds = set().union(*(n["event"] for n in mine))
        assert kinds == ({"late", "finished"} if tg["late_packets"]
                         else {"finished"}), (tg["id"], kinds)

    # TG 1: every parameter on the wire; departures 1 ms apart from T0.
    f1 = frames[1]
    assert [f.mtg.sched_ns for f in f1] == [t0 + i * MS for i in range(500)]
    assert {(f.orig_len, f.sport, f.dport, f.tos, f.ttl) for f in f1} == \
        {(200, 4001, 9000, 0x10, 64)}
    assert {(f.mtg.patt_kind, f.mtg.patt_value) for f in f1} == \
        {(abi.PATT_INCR, 3)}
    assert all(f.body_wrong_bits() == 0 for f in f1)
    assert one["bytes"] == 500 * 200
    assert (one["mode"], one["path"], one["cpu"]) == ("plain", "driver", 0)
    assert (one["spin_ns"], one["lead_ns"], one["late_packets"]) == (0, 0, 0)

    # TG 2: 1000 pkt/s from T0 for 1 s, through the qdisc, precise mode.
    f2 = frames[2]
    assert [f.mtg.sched_ns for f in f2] == [t0 + i * MS for i in range(1000)]
    assert {(f.orig_len, f.sport, f.dport, f.tos, f.ttl) for f in f2} == \
        {(250, 4002, 9002, 0, 9)}
    # `seed 7`: the payload seed is x(1) of the TG's Lehmer stream, and
    # each packet's seed follows from it (abi.rst).
    seed = 7 * MULTIPLIER % MODULUS
    assert [(f.mtg.patt_kind, f.mtg.patt_seed) for f in f2] == \
        [(abi.PATT_RANDOM, (seed + f.mtg.seq * 0x9E3779B9) % 2**32)
         for f in f2]
    assert all(f.body_wrong_bits() == 0 for f in f2)
    assert two["bytes"] == 1000 * 250
    assert (two["mode"], two["path"]) == ("precise", "qdisc")
    assert two["lead_ns"] > 0
    assert two["late_packets"] == \
        sum(f.mtg.tx_ns - f.mtg.sched_ns > MS for f in f2)

    # TG 3: slots from T0 + 0.5 s, 1 ms apart, before T0 + 1 s.
    f3 = frames[3]
    slots = [(f.mtg.sched_ns - t0 - 500 * MS) for f in f3]
    assert all(x % MS == 0 and 0 <= x < 500 * MS for x in slots)
    assert slots == sorted(set(slots))
    assert {(f.orig_len, f.dport) for f in f3} == {(200, 9003)}
    assert (three["mode"], three["path"]) == ("plain", "driver")

    # TGs without `cpu` go round the CPUs mtgctl may use, in file order.
    cpus = sorted(os.sched_getaffinity(0))
    assert (two["cpu"], three["cpu"]) == (cpus[0], cpus[1 % len(cpus)])

    # The text: progress lines per TG, then a line per TG.
    check_stdout_shape(res.stdout, 3)
    for kind, _, tgs in progress_lines(res.stdout):
        assert kind == "tgs" and [t[0] for t in tgs] == [1, 2, 3]
    report = report_lines(res.stdout)
    for tg in s["tgs"]:
        lat = tg["lateness_ns"]
        assert report[tg["id"]][:5] == ("finished", None, tg["sent"],
                                         tg["bytes"], 0)
        assert report[tg["id"]][5].endswith(
            f", lateness p50 {lat['p50']} p99 {lat['p99']} "
            f"max {lat['max']} ns")


# --- starts that fail --------------------------------------------------------

def test_failed_start_kills_the_started(link, tmp_path):
    """TG 2's destination is on the subnet but nobody owns it: the module
    waits 2 s for ARP and refuses (EHOSTUNREACH). TG 1, started before it,
    must be killed: nothing of the run ever reaches the wire, not even
    after the start time; TG 3 is never started."""
    b = link["b_addr"]
    write_idf(tmp_path, f"""\
{link['globals']} dist fixed pkts fixed 200 200 inta 1ms
tgid 1 dst {b}:9001
tgid 2 dst {link['nobody']}:9002
tgid 3 dst {b}:9003
""")
    with Capture(link["b"], ns=link["ns_b"], bpf="udp") as cap:
        res = mtgctl_run(tmp_path, "--start-delay", "10")
        t0 = first_line(res.stdout)["t0"]
        # Past the start time TG 1 would have had, and a little more.
        while tai_ns() < t0 + 2 * S:
            time.sleep(0.2)
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stderr == \
        f"mtgctl: cannot start TG 2 (run.idf:3): {EHOSTUNREACH_MSG}\n"
    assert not (tmp_path / "summary.json").exists()
    assert cap.lossless, cap.stderr
    assert not wire.mtg_frames(cap.frames)
    assert not wire.mtg_frames(cap.frames, ctrl=True)
    assert not report_lines(res.stdout)
    # The neighbour entry the module asked for was never answered.
    neigh = run("ip", "-n", link["ns_a"], "neigh", "show", link["nobody"],
                "dev", link["a"]).stdout
    assert "lladdr" not in neigh, neigh


@pytest.mark.parametrize("delay", ["0", "0.000001", "1ns"])
def test_start_time_passed(link, tmp_path, delay):
    write_idf(tmp_path, f"""\
{link['globals']} dst {link['b_addr']}:9001 dist fixed pkts fixed 200 200
tgid 1 inta 1ms count 10
tgid 2 inta 1ms count 10
""")
    res = mtgctl_run(tmp_path, "--start-delay", delay)
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stderr == f"mtgctl: cannot start TG 1 (run.idf:2): {ETIME_MSG}\n"
    assert not (tmp_path / "summary.json").exists()


# --- signals -----------------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM],
                         ids=["SIGINT", "SIGTERM"])
def test_signal_kills_every_tg(link, tmp_path, sig):
    """Two TGs without an end. After the first progress line, a signal:
    every TG killed, the summary written with "interrupted": true, exit
    128 + signal. The capture keeps running after mtgctl is gone: it sees
    exactly the packets the summary counts, not one more."""
    b = link["b_addr"]
    write_idf(tmp_path, f"""\
{link['globals']} dist fixed pkts fixed 200 200
tgid 1 dst {b}:9001 inta 1ms
tgid 2 dst {b}:9002 inta 2ms
""")
    with Capture(link["b"], ns=link["ns_b"], bpf="udp") as cap:
        proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY)
        out, err = act_when(proc, PER_TG_LINE.match,
                            lambda: proc.send_signal(sig))
        # More than a second of capture after mtgctl ended (and the drain).
        time.sleep(1)
    assert proc.returncode == 128 + sig, out + err
    assert err == ""
    name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
    assert out.splitlines()[-1] == f"interrupted by {name}: every TG killed"
    check_stdout_shape(out, 2)
    _, _, tgs = progress_lines(out)[0]
    assert [(t[0], t[3]) for t in tgs] == [(1, "running"), (2, "running")]

    s = summary_of(tmp_path)
    assert s["interrupted"] is True
    assert [(t["state"], t["error"]) for t in s["tgs"]] == \
        [("killed", None)] * 2
    assert all(t["sent"] > 0 for t in s["tgs"])
    report = report_lines(out)
    assert [report[t][:3] for t in (1, 2)] == \
        [("killed", None, s["tgs"][i]["sent"]) for i in (0, 1)]

    assert cap.lossless, cap.stderr
    ours = wire.mtg_frames(cap.frames, run_id=s["run_id"])
    for tg in s["tgs"]:
        check_against_wire(tg, [f for f in ours if f.mtg.tg_id == tg["id"]],
                           link)
    assert len(ours) == sum(t["sent"] for t in s["tgs"])
    assert s["end_ns"] >= max(f.mtg.tx_ns for f in ours)


# --- exit status 2 -----------------------------------------------------------

def test_tx_errors_exit_2(link, tmp_path):
    """b is down, so a has no carrier: the driver path refuses every packet
    (ENETDOWN), counted as a TX error. `mac` spares the ARP that could not
    be answered. The TG still finishes (its count covers failed packets):
    exit 2, and the summary says why."""
    run("ip", "-n", link["ns_b"], "link", "set", link["b"], "down")
    write_idf(tmp_path, f"""\
{link['globals']} dist fixed pkts fixed 200 200 inta 1ms
tgid 1 dst {link['b_addr']}:9001 count 20 mac {link['b_mac']}
""")
    res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr == ""
    (tg,) = summary_of(tmp_path)["tgs"]
    assert (tg["state"], tg["error"], tg["sent"], tg["bytes"],
            tg["tx_errors"]) == ("finished", None, 0, 0, 20)
    assert tg["lateness_ns"] == {k: None for k in LAT_KEYS}
    assert tg["dst_mac"] == link["b_mac"]
    assert report_lines(res.stdout)[1][5] == \
        "tg 1: finished, 0 sent (0 bytes), 20 tx_errors"


def test_failed_tg_exits_2(make_link, tmp_path):
    """TG 1's interface is deleted mid-run: TG 1 fails (dev_gone), TG 2 on
    another link finishes; exit 2, and the summary says which and why."""
    gone, stays = make_link(), make_link()
    write_idf(tmp_path, f"""\
dist fixed pkts fixed 200 200 inta 1ms
tgid 1 {gone['globals']} dst {gone['b_addr']}:9001
tgid 2 {stays['globals']} dst {stays['b_addr']}:9002 count 1500
""")
    proc = mtgctl_start(tmp_path, "--start-delay", START_DELAY)
    out, err = act_when(proc, PER_TG_LINE.match,
                        lambda: run("ip", "-n", gone["ns_a"], "link", "del",
                                    gone["a"], timeout=60))
    assert proc.returncode == 2, out + err
    assert err == ""
    check_stdout_shape(out, 2)
    s = summary_of(tmp_path)
    assert s["interrupted"] is False
    one, two = s["tgs"]
    assert (one["state"], one["error"]) == ("failed", "dev_gone"), one
    assert one["sent"] > 0
    assert (two["state"], two["error"], two["sent"]) == \
        ("finished", None, 1500), two
    report = report_lines(out)
    assert report[1][:3] == ("failed", "dev_gone", one["sent"])
    assert report[2][:3] == ("finished", None, 1500)


# --- the summary file --------------------------------------------------------

def test_summary_replaced_never_half_written(link, tmp_path):
    """An old summary is replaced by rename: a reader that has it open
    keeps the old one whole, readers polling the name see the old or the
    new one, complete, and no temporary file is left."""
    write_idf(tmp_path, f"""\
{link['globals']} dst {link['b_addr']}:9001 dist fixed pkts fixed 200 200
tgid 1 inta 1ms count 200
""")
    path = tmp_path / "summary.json"
    old = '{"old": true}\n'
    path.write_text(old)
    old_inode = path.stat().st_ino
    seen, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            text = path.read_text()
            try:
                got = json.loads(text)
            except ValueError:
                seen.append(("bad", text))
                continue
            seen.append(("old" if got == {"old": True} else "new", None))
            time.sleep(0.002)

    thread = threading.Thread(target=reader)
    with open(path) as held:
        thread.start()
        try:
            res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
        finally:
            stop.set()
            thread.join()
        assert held.read() == old
    assert res.returncode == 0, res.stdout + res.stderr
    assert not [x for x in seen if x[0] == "bad"], seen[:3]
    kinds = [k for k, _ in seen]
    assert "old" in kinds
    assert kinds == sorted(kinds, key=lambda k: k == "new")
    assert path.stat().st_ino != old_inode
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["run.idf", "summary.json"]
    assert summary_of(tmp_path)["tgs"][0]["sent"] == 200


def test_summary_that_cannot_be_written(link, tmp_path):
    """The run takes place, but its summary cannot be written: exit 1."""
    write_idf(tmp_path, f"""\
{link['globals']} dst {link['b_addr']}:9001 dist fixed pkts fixed 200 200
tgid 1 inta 1ms count 10
""")
    res = mtgctl_run(tmp_path, "--start-delay", START_DELAY,
                     summary="no-such-dir/summary.json")
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stderr == ("mtgctl: cannot write the summary "
                          "no-such-dir/summary.json: "
                          f"{os.strerror(errno.ENOENT)}\n")
    assert report_lines(res.stdout)[1][:3] == ("finished", None, 10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.idf"]


# --- progress ----------------------------------------------------------------

@pytest.mark.parametrize("ntgs", [4, 5])
def test_progress_lines(make_link, tmp_path, ntgs):
    """Up to 4 TGs, a progress line shows each; beyond, how many TGs are in
    each state and the totals. From mtgctl's own namespace this time (the
    summary's netns is null). 100 pkt/s each for 2.5 s."""
    link = make_link(sender_ns=False)
    write_idf(tmp_path, f"""\
{link['globals']} dist fixed pkts fixed 200 200 inta 10ms time relative 0 2.5s
""" + "".join(f"tgid {i} dst {link['b_addr']}:{9000 + i}\n"
              for i in range(1, ntgs + 1)))
    res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
    assert res.returncode == 0, res.stdout + res.stderr
    check_stdout_shape(res.stdout, ntgs)
    s = summary_of(tmp_path)
    assert [t["sent"] for t in s["tgs"]] == [250] * ntgs
    cpus = sorted(os.sched_getaffinity(0))
    for i, tg in enumerate(s["tgs"]):
        assert (tg["netns"], tg["dev"], tg["state"]) == \
            (None, link["a"], "finished")
        assert tg["cpu"] == cpus[i % len(cpus)]
        lateness_ordered(tg["lateness_ns"])

    lines = progress_lines(res.stdout)
    # The run lasts 2.5 s past T0: a line a second from T0 + 1 s.
    assert lines, res.stdout
    times = [t for _, t, _ in lines]
    assert times[0] >= 10 and times == sorted(set(times))
    if ntgs <= 4:
        assert {k for k, _, _ in lines} == {"tgs"}
        sent = [[t[1] for t in tgs] for _, _, tgs in lines]
        for tgs in (tgs for _, _, tgs in lines):
            assert [t[0] for t in tgs] == list(range(1, ntgs + 1))
            assert {t[2] for t in tgs} == {0}
            assert {t[3] for t in tgs} <= {"running", "finished"}
    else:
        assert {k for k, _, _ in lines} == {"aggregate"}
        sent = []
        for _, _, (n, running, finished, killed, failed, total,
                   errors) in lines:
            assert n == ntgs and running + finished == ntgs
            assert (killed, failed, errors) == (0, 0, 0)
            assert running > 0
            sent.append([total])
    # Counts only grow, and never beyond the end's.
    for before, after in zip(sent, sent[1:]):
        assert all(x <= y for x, y in zip(before, after))
    assert sum(sent[-1]) <= 250 * ntgs
