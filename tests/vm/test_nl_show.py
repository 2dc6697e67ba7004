# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl show` and `mtgctl monitor` (issue 23): what they print of two
sessions at once equals what each session's own ioctls report (the
session's counters, each TG's state, counters and lateness histogram), and
monitor prints the notifications the sessions cause, in order, until
SIGINT. The words of states and flags are the spec's (test_nl_ids.py
checks mtgctl's lists; here they are taken from the spec again)."""

import json
import os
import queue
import signal
import subprocess
import threading
import time

import pytest
import yaml

from mtgtest.ctl import MTGCTL
from mtgtest.system import (ROOT, ifindex, load_module, run, tai_ns,
                            unload_module)
from mtgtest.tg import LEAD_NS, MS, S, TgSession, new_run_id
from mtgwitness import abi

SPEC = yaml.safe_load(
    (ROOT / "Documentation/netlink/specs/mtg.yaml").read_text())


def words(definition):
    """{value: word} of an enum, {bit: word} of flags, from the spec."""
    (d,) = [d for d in SPEC["definitions"] if d["name"] == definition]
    start = d.get("value-start", 0)
    return {(1 << (start + i) if d["type"] == "flags" else start + i):
            e["name"].replace("-", "_") for i, e in enumerate(d["entries"])}


def flag_words(definition, bits):
    return [w for bit, w in words(definition).items() if bits & bit]


# The ioctl's field of each counter show prints (the spec's name, '_').
COUNTERS = {"sent": "sent", "bytes": "bytes", "tx_errors": "tx_errors",
            "skipped_late": "skipped_late", "bad_entries": "bad_entries",
            "underruns": "underruns", "late_packets": "late_packets",
            "events": "events", "ctrl_sent": "ctrl_sent",
            "next_seq": "next_seq", "next_ns": "next_ns",
            "lateness_max": "lateness_max_ns",
            "lateness_sum": "lateness_sum_ns", "early": "early",
            "lead": "lead_ns", "spin": "spin_ns", "cpu": "cpu",
            "sock_error": "sock_error", "retrans": "retrans",
            "write_waits": "write_waits"}


def mtgctl(*args, check=True):
    res = subprocess.run([MTGCTL, *args], capture_output=True, text=True,
                         timeout=120)
    if check:
        assert (res.returncode, res.stderr) == (0, ""), res
    return res


def show_json(*args):
    return json.loads(mtgctl("show", *args, "--json").stdout)


def tg_as_ioctl_says(sess, tg_id, started):
    """The TG as show --json should print it, from MTG_IOC_TG_STATS and
    what the test started it with."""
    st = sess.stats(tg_id)
    want = {key: getattr(st, field) for key, field in COUNTERS.items()}
    error = words("tg-error")[st.error]
    want.update(session_id=sess.s.stats().session_id, id=tg_id,
                state=words("tg-state")[st.state],
                error=None if error == "none" else error,
                flags=flag_words("tg-flags", started["flags"]),
                ifindex=started["ifindex"], run_id=started["run_id"],
                lateness_hist=st.hist)
    return want


def session_as_ioctl_says(sess, ntgs):
    st = sess.s.stats()
    with open("/proc/self/comm") as comm:
        name = comm.read().strip()
    ifaces = []
    for iface_id in sess.iface_ids:
        info = sess.s.iface_info(iface_id)
        ifaces.append({"id": iface_id, "ifindex": info.ifindex,
                       "name": bytes(info.name).rstrip(b"\0").decode(),
                       "state": words("iface-state")[info.state],
                       "netns_cookie": info.netns_cookie})
    return {"id": st.session_id, "pid": os.getpid(), "comm": name,
            "flags": flag_words("session-flags", st.flags),
            "mem_bytes": st.mem_bytes, "ifaces": st.ifaces,
            "ifaces_lost": st.ifaces_lost, "events": st.events,
            "tgs": ntgs, "iface": ifaces}


class Sessions:
    """Two sessions with TGs in every state show can meet, each ended
    TG's counters final: A on an IPv4 link, two TGs finished after
    sending, one waiting an hour for its start (running, nothing sent),
    an interface added (the sending end of a link of its own, self.lx);
    B on an IPv6 link, one TG finished (late slots skipped), one
    killed."""

    def __init__(self, make_link):
        self.a, self.b = TgSession(), TgSession()
        try:
            self.setup(make_link)
        except BaseException:
            self.close()
            raise

    def setup(self, make_link):
        self.started = {}       # (session, tg) -> what tg_start was given
        la, lb, self.lx = make_link(4), make_link(6), make_link(4)
        self.a.iface_ids = [self.a.s.iface_add(ifindex(self.lx.a))]
        self.b.iface_ids = []
        now = tai_ns()
        self.start(self.a, la, 1, now + LEAD_NS, stop_count=20)
        self.start(self.a, la, 2, now + LEAD_NS, stop_count=7)
        self.start(self.a, la, 3, now + 3600 * S, stop_count=5)
        self.start(self.b, lb, 5, now + LEAD_NS, stop_count=12,
                   flags=abi.TG_FLAGS_LATE_SKIP)
        self.start(self.b, lb, 6, now + 3600 * S, stop_count=5)
        self.b.s.tg_kill(6)
        for sess, tg in ((self.a, 1), (self.a, 2), (self.b, 5)):
            sess.wait(tg)

    def start(self, sess, link, tg_id, start_ns, **kw):
        run_id = new_run_id()
        sess.start(link, tg_id, run_id, start_ns, entries=[(MS, 200)], **kw)
        flags = kw.get("flags", 0) | \
            (abi.TG_FLAGS_IPV6 if link.family == 6 else 0)
        self.started[(sess, tg_id)] = dict(run_id=run_id, flags=flags,
                                           ifindex=link.a_ifindex)

    def tgs(self, sess):
        return sorted(tg for s, tg in self.started if s is sess)

    def close(self):
        self.a.close()
        self.b.close()


@pytest.fixture
def two(mtg, make_link):
    sessions = Sessions(make_link)
    yield sessions
    sessions.close()


def test_show_json_agrees_with_each_sessions_ioctls(two):
    got = {s["id"]: s for s in show_json()}
    for sess in (two.a, two.b):
        sid = sess.s.stats().session_id
        tgs = two.tgs(sess)
        mine = dict(got[sid])
        shown_tgs = mine.pop("tg")
        assert mine == session_as_ioctl_says(sess, len(tgs))
        assert [t["id"] for t in shown_tgs] == tgs
        for shown in shown_tgs:
            assert shown == tg_as_ioctl_says(sess, shown["id"],
                                             two.started[(sess, shown["id"])])
    states = {(t["session_id"], t["id"]): t["state"]
              for s in got.values() for t in s["tg"]}
    sa, sb = two.a.s.stats().session_id, two.b.s.stats().session_id
    assert [states[k] for k in ((sa, 1), (sa, 2), (sa, 3), (sb, 5), (sb, 6))] \
        == ["finished", "finished", "running", "finished", "killed"]
    assert got[sa]["tg"][0]["sent"] == 20 and sum(got[sa]["tg"][0]
                                                  ["lateness_hist"]) == 20


def test_show_selects_one_session_or_tgs(two):
    sa, sb = two.a.s.stats().session_id, two.b.s.stats().session_id
    (one,) = show_json("session", str(sb))
    assert one["id"] == sb and [t["id"] for t in one["tg"]] == [5, 6]
    assert one["tg"] == [t for s in show_json() if s["id"] == sb
                         for t in s["tg"]]
    assert [t["id"] for t in show_json("tg", str(sa))] == [1, 2, 3]
    everything = show_json("tg")
    assert {(t["session_id"], t["id"]) for t in everything} >= {
        (sa, 1), (sa, 2), (sa, 3), (sb, 5), (sb, 6)}
    (tg,) = show_json("tg", f"{sa}:2")
    assert tg == tg_as_ioctl_says(two.a, 2, two.started[(two.a, 2)])


def test_show_text_is_the_same(two):
    """The text says the same numbers: a block per session, a line per
    interface and a block per TG under it."""
    sa = two.a.s.stats().session_id
    text = mtgctl("show", "session", str(sa)).stdout
    lines = text.splitlines()
    st = two.a.s.stats()
    assert lines[0].startswith(f"session {sa}: pid {os.getpid()} ")
    assert f" mem_bytes {st.mem_bytes} ifaces 1 ifaces_lost 0 " \
        f"events {st.events} tgs 3" in lines[0]
    assert lines[1].startswith(f"    iface {two.a.iface_ids[0]}: "
                               f"{two.lx.a} ifindex {two.lx.a_ifindex} "
                               "attached netns_cookie ")
    t = two.a.stats(1)
    i = lines.index(next(x for x in lines if x.startswith(f"    tg {sa}:1: ")))
    assert lines[i] == (f"    tg {sa}:1: finished <none> run_id "
                        f"{two.started[(two.a, 1)]['run_id']} cpu {t.cpu} "
                        f"ifindex {two.started[(two.a, 1)]['ifindex']}")
    assert lines[i + 1] == (
        f"        sent {t.sent} bytes {t.bytes} tx_errors {t.tx_errors} "
        f"skipped_late {t.skipped_late} bad_entries {t.bad_entries} "
        f"underruns {t.underruns} late_packets {t.late_packets}")
    assert lines[i + 2] == (
        f"        events {t.events} ctrl_sent {t.ctrl_sent} "
        f"next_seq {t.next_seq} next_ns {t.next_ns} early {t.early} "
        f"lead {t.lead_ns} spin {t.spin_ns}")
    assert lines[i + 3].startswith("        lateness p50 ")
    hist = lines[i + 4].split()
    assert hist[0] == "lateness_hist"
    assert sum(int(x.split(":")[1]) for x in hist[1:]) == t.sent == 20


def test_show_says_what_is_not_there(mtg):
    with abi.Session() as s:
        sid = s.stats().session_id
    res = mtgctl("show", "session", str(sid), check=False)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == (f"mtgctl: show: no session {sid} in this network "
                          "namespace\n")
    with abi.Session() as s:
        sid = s.stats().session_id
        res = mtgctl("show", "tg", f"{sid}:4", "--json", check=False)
    assert res.returncode == 1
    assert f"no traffic generator {sid}:4" in res.stderr


def test_show_without_the_module(mtg):
    unload_module()
    try:
        for cmd in (["show"], ["monitor"]):
            res = mtgctl(*cmd, check=False)
            assert (res.returncode, res.stdout) == (1, "")
            assert res.stderr == (f"mtgctl: {cmd[0]}: no generic netlink "
                                  "family 'mtg' here: is mtg.ko loaded? "
                                  "(modprobe mtg)\n")
    finally:
        load_module()


class Monitor:
    """mtgctl monitor --json running, its lines gathered by a thread."""

    def __init__(self):
        self.proc = subprocess.Popen([MTGCTL, "monitor", "--json"],
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def until(self, done, seconds=60):
        """The lines so far, once done(lines) holds (a failure after
        seconds: a guard against a hang, not a measure)."""
        deadline = time.monotonic() + seconds
        while not done(self.seen):
            left = deadline - time.monotonic()
            assert left > 0, self.seen
            try:
                self.seen.append(self.lines.get(timeout=left))
            except queue.Empty:
                pass
        return self.seen

    def subscribed(self):
        """Sessions opened and closed until monitor hears one: from then
        on it hears everything."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with abi.Session() as s:
                sid = s.stats().session_id
            try:
                self.until(lambda seen: any(m["ntf"] == "session_end_ntf" and
                                            m["session"]["id"] == sid
                                            for m in seen), seconds=2)
                return
            except AssertionError:
                pass
        pytest.fail("mtgctl monitor heard nothing: " + self.stop()[1])

    def stop(self, sig=signal.SIGINT):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode, self.proc.stderr.read()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_monitor_prints_the_events_of_two_sessions(mtg, make_link, sig):
    """Each session's notifications in order: opened, its TGs' events
    (the last of a finished TG says finished, with the counters its
    ioctl reports at the end), the interface lost (A), ended; then the
    signal ends monitor cleanly."""
    mon, two = Monitor(), None
    try:
        mon.subscribed()
        two = Sessions(make_link)
        sa, sb = two.a.s.stats().session_id, two.b.s.stats().session_id
        finished = {(sa, 1): two.a, (sa, 2): two.a, (sb, 5): two.b}
        final = {key: tg_as_ioctl_says(sess, key[1],
                                       two.started[(sess, key[1])])
                 for key, sess in finished.items()}
        mon.until(lambda seen: {
            (m["tg"]["session_id"], m["tg"]["id"]) for m in seen
            if m["ntf"] == "tg_event_ntf" and "finished" in m["tg"]["event"]}
            >= set(finished))
        run("ip", "link", "del", two.lx.a, timeout=30)
        before = {sa: session_as_ioctl_says(two.a, 3),
                  sb: session_as_ioctl_says(two.b, 2)}
        two.close()
        got = mon.until(lambda seen: {m["session"]["id"] for m in seen
                                      if m["ntf"] == "session_end_ntf"}
                        >= {sa, sb})
        code, err = mon.stop(sig)
    finally:
        if mon.proc.poll() is None:
            mon.stop()
        if two:
            two.close()
    assert (code, err) == (0, "")

    def sid_of(m):
        return m["session"]["id"] if "session" in m else m["tg"]["session_id"]

    for sid in (sa, sb):
        mine = [m for m in got if sid_of(m) == sid]
        names = [m["ntf"] for m in mine]
        ntgs = names.count("tg_event_ntf")
        lost = ["iface_lost_ntf"] if sid == sa else []
        assert names == ["session_new_ntf"] + ["tg_event_ntf"] * ntgs + \
            lost + ["session_end_ntf"]
        new, end = mine[0]["session"], mine[-1]["session"]
        assert new == dict(before[sid], flags=[], mem_bytes=0, ifaces=0,
                           ifaces_lost=0, events=0, tgs=0, iface=[])
        assert "ended" in end["flags"] and end["tgs"] == before[sid]["tgs"]
        last = {}
        for m in mine[1:1 + ntgs]:
            last[m["tg"]["id"]] = dict(m["tg"])
        # no notification of a TG that did not finish (killed, waiting)
        assert sorted(last) == sorted(tg for s, tg in finished if s == sid)
        for tg_id, tg in last.items():
            assert "finished" in tg.pop("event")
            assert tg == final[(sid, tg_id)]
    (lost,) = [m for m in got if m["ntf"] == "iface_lost_ntf"]
    assert lost["session"] == {"id": sa, "iface": [
        dict(before[sa]["iface"][0], state="lost")]}
