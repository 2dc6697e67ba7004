# SPDX-License-Identifier: GPL-2.0-or-later
"""Traffic generators on the wire: what a TG sends is exactly what its
timetable says, as a capture on the receiving side witnesses.

Each test starts TGs through the ABI (kmod/uapi/mtg.h), captures what
arrives in another namespace (tcpdump, zero drops or the witness does not
count) and checks the frames one by one: every sequence number once and in
order, checksums and the MTG header's CRC, the payload pattern, scheduled
departures exactly the table's gaps apart, no TX stamp before its schedule,
and the lateness histogram of the TG's statistics equal, bucket by bucket,
to the one computed from the captured stamps.

No test here judges timing precision (TESTING.md: that is bench/'s job
under software emulation); times only bound the order of events.
"""

import errno
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time

import pytest

from mtgtest import ynl
from mtgtest.system import (DEBUG_KERNEL, PYTHONPATH, Kprobe, kthread_pid,
                            load_module, run, sched_runtime, tai_ns,
                            unload_module)
from mtgtest.tg import (BUDGET, ENDED, LEAD_NS, MAX_LEN, MIN_LEN, MS, RUN_NS,
                        S, TgSession, address_link, expected_count,
                        new_run_id, sleep_until)
from mtgwitness import abi, wire
from mtgwitness.capture import Capture

@pytest.fixture
def tgs(mtg):
    sess = TgSession()
    yield sess
    sess.close()


# --- what the capture must show ---------------------------------------------

def assert_witness(cap):
    assert cap.dropped == 0 and cap.if_dropped == 0, \
        f"the capture dropped {cap.dropped} (+{cap.if_dropped}): no witness"
    bad = [(f.mtg.tg_id, f.mtg.seq, f.errors) for f in cap.frames
           if f.mtg is not None and not f.ok]
    assert not bad, f"damaged MTG frames: {bad[:10]}"


def check_frames(frames, link, started, st, entries=None, count=None,
                 sched_deltas=True, first_slot=True):
    """The frames of one TG against its descriptor, timetable and stats.
    entries[seq % len(entries)] is the entry of packet seq (first_slot:
    and packet 0 left in the first slot; false when slots may be skipped)."""
    assert frames, "no frame of this TG was captured"
    seqs = [f.mtg.seq for f in frames]
    assert seqs == list(range(len(frames))), \
        f"sequence numbers with gaps or repeats: {first_break(seqs)}"
    if count is not None:
        assert len(frames) == count
    assert st.sent == len(frames), "sent but not captured, or the reverse"
    assert st.next_seq == len(frames)
    assert (st.tx_errors, st.early, st.bad_entries) == (0, 0, 0)
    family = link.family
    for f in frames:
        h = f.mtg
        assert f.ok, (h.seq, f.errors)
        assert h.valid and not h.ctrl
        assert (h.run_id, h.tg_id) == (started.run_id, started.tg_id)
        assert (h.patt_kind, h.patt_value) == (started.patt_kind, started.patt_value)
        assert f.body_wrong_bits() == 0, f"payload of seq {h.seq} differs"
        assert h.tp_ns == (0, 0, 0, 0) and h.nut == bytes(started.nut)
        assert f.ip_version == family
        assert (str(f.src), str(f.dst)) == (link.a_addr, link.b_addr)
        assert (f.sport, f.dport) == (started.src_port, started.dst_port)
        assert (f.tos, f.ttl) == (started.tos, started.ttl)
        assert (f.eth_src, f.eth_dst) == (link.a_mac, link.b_mac)
        if family == 4:
            assert f.df
        if entries is not None:
            assert f.orig_len == entries[h.seq % len(entries)][1], h.seq
        assert h.tx_ns >= h.sched_ns, f"seq {h.seq} left before its time"
    if first_slot:
        assert frames[0].mtg.sched_ns == started.start_ns
    if sched_deltas and entries is not None:
        for prev, f in zip(frames, frames[1:]):
            gap = entries[prev.mtg.seq % len(entries)][0]
            assert f.mtg.sched_ns - prev.mtg.sched_ns == gap, \
                f"seq {f.mtg.seq}: {f.mtg.sched_ns - prev.mtg.sched_ns} ns " \
                f"after the previous one, the table says {gap}"
    if started.stop_ns:
        assert frames[-1].mtg.sched_ns < started.stop_ns
    check_lateness(frames, st)
    assert st.bytes == sum(f.orig_len for f in frames)


def check_lateness(frames, st):
    late = [f.mtg.tx_ns - f.mtg.sched_ns for f in frames]
    hist = wire.lat_histogram(late)
    assert hist == st.hist, "lateness histogram differs from the capture's: " \
        + str([(b, hist[b], st.hist[b]) for b in range(abi.LAT_BUCKETS)
               if hist[b] != st.hist[b]][:10])
    assert max(late) == st.lateness_max_ns
    assert sum(late) == st.lateness_sum_ns


def first_break(seqs):
    for i, s in enumerate(seqs):
        if s != i:
            return f"position {i} has seq {s}"
    return "none"


# --- the tests --------------------------------------------------------------

def one_exact_run(link, tgs, flags=0, length=200, gap=MS, nut=bytes(6)):
    run_id = new_run_id()
    entries = [(gap, length)]
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        started = tgs.start(link, 1, run_id, start, entries=entries,
                            stop_ns=start + RUN_NS, flags=flags, nut=nut)
        assert started.mac == link.b_mac, "dst_mac not resolved to the peer's"
        peak_lead, deadline = 0, time.monotonic() + 120
        while (st := tgs.stats(1)).state not in ENDED:
            assert time.monotonic() < deadline, f"TG never finished: {st.sent}"
            peak_lead = max(peak_lead, st.lead_ns)
            time.sleep(0.1)
    assert (st.state, st.error) == (abi.TG_STATE_FINISHED, abi.TG_ERROR_NONE)
    assert_witness(cap)
    frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_frames(frames, link, started, st, entries,
                 count=expected_count(start, start + RUN_NS, gap))
    return st, max(peak_lead, st.lead_ns)


def test_exact_run(link, tgs):
    """1000 packets/s for 2 s: exactly 2000 frames, exactly on the table,
    the descriptor's bytes for the network under test in every header."""
    st, _ = one_exact_run(link, tgs, nut=b"\x01\x02\xfd\xfe\x00\xff")
    assert st.sent == 2000


@pytest.mark.parametrize("virtio_link", [4, 6], ids=["ipv4", "ipv6"],
                         indirect=True)
def test_exact_run_virtio_net(virtio_link, tgs):
    """The same over a real driver that is not lockless."""
    st, _ = one_exact_run(virtio_link, tgs)
    assert st.sent == 2000


def test_precise_mode(make_link, tgs):
    """Precise mode keeps every rule, waits out the last of its lead in the
    CPU's kthread and reports that spin as its CPU cost: real CPU time, as
    the scheduler's own account of the kthread shows."""
    thread = kthread_pid("mtg/0")
    before = sched_runtime(thread)
    # 10 ms apart: room for the lead (at most 2 ms) even where wake-ups
    # are late by milliseconds (a KASAN kernel under emulation).
    st, lead = one_exact_run(make_link(4), tgs, flags=abi.TG_FLAGS_PRECISE,
                             gap=10 * MS)
    after = sched_runtime(thread)
    assert lead > 0
    assert st.spin_ns > 0, "precise mode never spun"
    assert after[0] - before[0] >= st.spin_ns, \
        "spin reported beyond the CPU time the kthread had"


def test_hundred_tgs_at_once(make_link, tgs):
    """100 TGs of different rates, lengths, patterns and CPUs, interleaved
    on one interface: each one exact."""
    link = make_link(4)
    run_id = new_run_id()
    cpus = sorted(os.sched_getaffinity(0))
    plan = {}
    # On the debug kernel the capture lags seconds behind 100 TGs: the
    # last frames arrived after the usual 2 s (87 of 100 captured once).
    with Capture(link.b, ns=link.ns, bpf="udp",
                 drain=30.0 if DEBUG_KERNEL else 2.0) as cap:
        t0 = tai_ns() + LEAD_NS + S  # 100 starts take a while here
        stop = t0 + RUN_NS
        for i in range(100):
            tg_id = 1000 + i
            entries = [(20 * MS + i * 211_000, MIN_LEN[4] + 5 * i)]
            start = t0 + i * 37_000
            started = tgs.start(link, tg_id, run_id, start, entries=entries,
                                stop_ns=stop, dst_port=20000 + i,
                                cpu=cpus[i % len(cpus)],
                                patt_kind=(abi.PATT_FIXED, abi.PATT_INCR,
                                           abi.PATT_RANDOM)[i % 3],
                                patt_value=i, tos=i % 64 * 4)
            plan[tg_id] = (started, entries)
        for tg_id in plan:
            tgs.wait(tg_id, timeout=120)
    assert_witness(cap)
    firsts, lasts = [], []
    for tg_id, (started, entries) in plan.items():
        st = tgs.stats(tg_id)
        assert st.state == abi.TG_STATE_FINISHED
        frames = wire.mtg_frames(cap.frames, run_id, tg_id)
        check_frames(frames, link, started, st, entries,
                     count=expected_count(started.start_ns, stop, entries[0][0]))
        firsts.append(frames[0].mtg.tx_ns)
        lasts.append(frames[-1].mtg.tx_ns)
    assert max(firsts) < min(lasts), "the TGs did not all run at once"


def test_late_policies(make_link, tgs):
    """Departures 1 us apart, more than the timer can keep: catching up
    sends every slot, late, exactly on the table; skipping sends a slot
    only when its successor is not due yet and counts the others, so sent
    + skipped is every slot and the wire's schedule holes are the skips.
    Each on its own CPU (a catch-up keeps its CPU busy), the skipping one
    for half a second: however late its first wake-up, slots remain."""
    link = make_link(4)
    cpus = sorted(os.sched_getaffinity(0))
    run_id, gap, flood, slots = new_run_id(), 1000, 5000, 500_000
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        stop = start + slots * gap
        catch_up = tgs.start(link, 2, run_id, start, entries=[(gap, 200)],
                             stop_count=flood, dst_port=9002, cpu=cpus[0])
        skip = tgs.start(link, 1, run_id, start, entries=[(gap, 200)],
                         stop_ns=stop, flags=abi.TG_FLAGS_LATE_SKIP,
                         cpu=cpus[-1])
        skipped, caught_up = tgs.wait(1), tgs.wait(2)
    assert_witness(cap)

    check_frames(wire.mtg_frames(cap.frames, run_id, 2), link, catch_up,
                 caught_up, [(gap, 200)], count=flood)
    assert caught_up.skipped_late == 0

    frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_frames(frames, link, skip, skipped, [(gap, 200)],
                 sched_deltas=False, first_slot=False)
    assert skipped.state == abi.TG_STATE_FINISHED
    assert skipped.sent + skipped.skipped_late == slots
    # No timer keeps a 1 us cadence (a timer softirq alone costs more).
    assert skipped.skipped_late > 0, "nothing was late: nothing was tested"
    taken = [(f.mtg.sched_ns - start) // gap for f in frames]
    assert all(f.mtg.sched_ns == start + k * gap
               for f, k in zip(frames, taken)), "a departure off the slots"
    assert taken == sorted(set(taken)) and 0 <= taken[0] and taken[-1] < slots
    assert slots - len(taken) == skipped.skipped_late


@pytest.mark.parametrize("virtio_link", [4], ids=["ipv4"], indirect=True)
def test_flood_in_bursts_through_the_kthread(virtio_link, tgs):
    """200 departures all at once (gaps of zero), on a driver that honours
    xmit_more: each timer callback or kthread pass sends at most
    MTG_CPU_BUDGET packets, the driver gets them in bursts (xmit_more on
    all but a burst's last), the timer hands what is left to the CPU's
    kthread, and the wire sees every packet, exactly on the table. (Fewer
    than the receiving virtio_net's 256 ring slots: under emulation the
    receiver cannot keep up with a longer flood and its NIC drops.) Before
    it, a TG 10 ms apart sets xmit_more only when its next packet is due
    already and needs the kthread only if a whole budget fell behind."""
    link = virtio_link
    run_id, thread = new_run_id(), kthread_pid("mtg/0")
    calm, flood, n = (10 * MS, 200), (0, 200), 200
    # One probe for both TGs (setting it up takes seconds on the debug
    # kernel); they run one after the other: the calm TG's 100 calls first.
    with Capture(link.b, ns=link.ns, bpf="udp") as cap, \
            Kprobe("mtg_tx_send", "more=$arg3:u8") as calls:
        start = tai_ns() + LEAD_NS
        calm_tg = tgs.start(link, 1, run_id, start, entries=[calm],
                            stop_count=100)
        while tgs.stats(1).sent == 0:   # the start's re-arm is behind us
            time.sleep(0.01)
        ran = sched_runtime(thread)
        calm_st = tgs.wait(1)
        calm_ran = sched_runtime(thread)
        flood_tg = tgs.start(link, 2, run_id, tai_ns() + LEAD_NS,
                             entries=[flood], stop_count=n, dst_port=9002)
        before = sched_runtime(thread)
        flood_st = tgs.wait(2)
        after = sched_runtime(thread)
    assert_witness(cap)
    calm_frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_frames(calm_frames, link, calm_tg, calm_st, [calm], count=100)
    check_frames(wire.mtg_frames(cap.frames, run_id, 2), link, flood_tg,
                 flood_st, [flood], count=n)

    calm_more, more = calls.values("more")[:100], calls.values("more")[100:]
    # xmit_more only when the next packet was due already: packet k left
    # with it only if packet k + 1's departure had come (on a slow kernel
    # a 10 ms TG falls behind now and then, and rightly bursts).
    for k, m in enumerate(calm_more[:-1]):
        assert not m or \
            calm_frames[k + 1].mtg.sched_ns <= calm_frames[k].mtg.tx_ns, \
            f"xmit_more on seq {k}, but seq {k + 1} was not due yet"
    assert calm_more[-1] == 0
    calm_longest = max(len(r) for r in "".join(map(str, calm_more)).split("0"))
    if calm_longest < BUDGET - 1:
        assert calm_ran == ran, "the kthread ran for a TG never far behind"

    assert len(more) == n, "every packet through mtg_tx_send once"
    assert 1 in more, "no burst: xmit_more never set"
    assert more[-1] == 0, "the last burst's doorbell never rung"
    longest = max(len(run) for run in "".join(map(str, more)).split("0"))
    assert longest <= BUDGET - 1, f"a burst of {longest + 1} packets"
    assert after[1] > before[1] and after[0] > before[0], \
        "the kthread never took over the backlog"


def test_stream_mode_exact(make_link, tgs):
    """A streaming table refilled ahead of the kernel: never repeats, every
    entry used once and in order."""
    link = make_link(4)
    run_id = new_run_id()
    n = 2000
    rng = random.Random(11)
    entries = [(MS + (k % 7) * 10_000, rng.randrange(MIN_LEN[4], MAX_LEN + 1))
               for k in range(n)]
    stream = tgs.stream(1024)
    stream.push(entries[:1024])
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        started = tgs.start(link, 1, run_id, start, stream=stream, stop_count=n)
        fed = 1024
        while fed < n:
            fed += stream.push(entries[fed:fed + min(stream.room(), n - fed)])
            time.sleep(0.01)
        st = tgs.wait(1)
    assert (st.state, st.underruns) == (abi.TG_STATE_FINISHED, 0)
    assert tgs.t.consumer(stream.ring_offset) == n
    assert_witness(cap)
    check_frames(wire.mtg_frames(cap.frames, run_id, 1), link, started, st,
                 entries, count=n)


def test_stream_underrun_is_counted_not_repeated(make_link, tgs):
    link = make_link(4)
    stream = tgs.stream(64)
    stream.push([(MS, 200)] * 20)
    tgs.start(link, 1, new_run_id(), tai_ns() + LEAD_NS, stream=stream,
              stop_count=40)
    deadline = time.monotonic() + 60
    while tgs.stats(1).underruns == 0:
        assert time.monotonic() < deadline, "no underrun counted"
        time.sleep(0.05)
    st = tgs.stats(1)
    assert (st.state, st.sent) == (abi.TG_STATE_RUNNING, 20)
    time.sleep(0.3)
    assert tgs.stats(1).sent == 20, "sent entries it was not given"
    stream.push([(MS, 200)] * 20)
    st = tgs.wait(1)
    assert (st.state, st.sent, st.next_seq) == (abi.TG_STATE_FINISHED, 40, 40)
    assert st.underruns >= 1


def test_suspend_resume_kill(make_link, tgs):
    """Suspending leaves a hole in the schedule as long as the suspension,
    the sequence goes on after it, and nothing leaves after a kill."""
    link = make_link(4)
    run_id, gap = new_run_id(), MS
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        started = tgs.start(link, 1, run_id, start, entries=[(gap, 200)])
        sleep_until(start + 600 * MS)
        s0 = tai_ns()
        tgs.s.tg_suspend(1)
        s1 = tai_ns()
        assert tgs.stats(1).state == abi.TG_STATE_SUSPENDED
        time.sleep(0.2)
        sent = tgs.stats(1).sent
        time.sleep(0.8)
        assert tgs.stats(1).sent == sent, "sent while suspended"
        r0 = tai_ns()
        tgs.s.tg_resume(1)
        r1 = tai_ns()
        time.sleep(0.6)
        tgs.s.tg_kill(1)
        k1 = tai_ns()
        st = tgs.stats(1)
        assert st.state == abi.TG_STATE_KILLED
        time.sleep(1)  # the capture goes on: nothing more may come
    assert tgs.stats(1).sent == st.sent
    assert_witness(cap)
    frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_frames(frames, link, started, st, sched_deltas=False)
    # One hole in the schedule: the suspension (resume moves the rest of
    # the timetable later by the time spent suspended), else the table.
    odd = [(p.mtg.seq, f.mtg.sched_ns - p.mtg.sched_ns)
           for p, f in zip(frames, frames[1:])
           if f.mtg.sched_ns - p.mtg.sched_ns != gap]
    assert len(odd) == 1, f"expected one hole in the schedule, got {odd[:10]}"
    assert gap + (r0 - s1) <= odd[0][1] <= gap + (r1 - s0)
    for f in frames:
        # Scheduled after the suspension took effect: left after resume.
        if f.mtg.sched_ns >= s1:
            assert f.mtg.tx_ns >= r0, f"seq {f.mtg.seq} left while suspended"
        assert f.mtg.tx_ns <= k1, f"seq {f.mtg.seq} left after the kill"


def test_set_rate(make_link, tgs):
    """set_rate(2, 1) halves the gaps from then on."""
    link = make_link(4)
    run_id, gap = new_run_id(), 2 * MS
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        stop = start + RUN_NS
        started = tgs.start(link, 1, run_id, start, entries=[(gap, 300)],
                            stop_ns=stop)
        sleep_until(start + S)
        c0 = tai_ns()
        tgs.s.tg_set_rate(1, 2, 1)
        c1 = tai_ns()
        st = tgs.wait(1)
    assert st.state == abi.TG_STATE_FINISHED
    assert_witness(cap)
    frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_frames(frames, link, started, st, sched_deltas=False)
    deltas = [f.mtg.sched_ns - p.mtg.sched_ns for p, f in zip(frames, frames[1:])]
    assert set(deltas) == {gap, gap // 2}, set(deltas)
    switch = deltas.index(gap // 2)
    assert all(d == gap // 2 for d in deltas[switch:]), "rate went back"
    for k, d in enumerate(deltas):
        # The gap after packet k is scaled when packet k is sent.
        if d == gap:
            assert frames[k].mtg.sched_ns < c1
        else:
            assert frames[k].mtg.tx_ns > c0
    assert frames[-1].mtg.sched_ns + gap // 2 >= stop


def test_set_rate_arguments(make_link, tgs):
    link = make_link(4)
    tgs.start(link, 1, new_run_id(), tai_ns() + 3600 * S, entries=[(MS, 200)])
    e = abi.errno_of
    for num, den in ((0, 1), (1, 0), (65537, 1), (1, 65537)):
        assert e(tgs.s.tg_set_rate, 1, num, den) == errno.EINVAL, (num, den)
    assert e(tgs.s.tg_set_rate, 1, 1, 1, reserved=1) == errno.EINVAL
    assert e(tgs.s.tg_set_rate, 2, 1, 1) == errno.ENOENT
    tgs.s.tg_set_rate(1, 65536, 1)
    tgs.s.tg_set_rate(1, 1, 65536)
    for op in (tgs.s.tg_kill, tgs.s.tg_suspend, tgs.s.tg_resume, tgs.stats):
        assert e(op, 2) == errno.ENOENT
    tgs.s.tg_kill(1)


def test_control_messages(make_link, tgs):
    """Control messages leave at once, whatever the TG's state, with their
    own sequence numbers; not after a kill."""
    link = make_link(6)
    run_id, gap = new_run_id(), 50 * MS
    msgs = [b"hello", b"", bytes(range(256)) * 4, b"after the end"]
    windows = []
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        started = tgs.start(link, 1, run_id, start, entries=[(gap, 400)],
                            stop_ns=start + RUN_NS)

        def ctrl(data):
            t0 = tai_ns()
            tgs.s.tg_ctrlmsg(1, data)
            windows.append((t0, tai_ns()))

        ctrl(msgs[0])                       # before the start
        sleep_until(start + 500 * MS)
        tgs.s.tg_suspend(1)
        ctrl(msgs[1])                       # suspended
        ctrl(msgs[2])
        tgs.s.tg_resume(1)
        tgs.wait(1)
        ctrl(msgs[3])                       # finished
        e = abi.errno_of
        assert e(tgs.s.tg_ctrlmsg, 1, bytes(abi.CTRLMSG_MAX + 1)) != 0
        tgs.s.tg_kill(1)
        assert e(tgs.s.tg_ctrlmsg, 1, b"killed") != 0, "sent after a kill"
    st = tgs.stats(1)
    assert st.ctrl_sent == len(msgs)
    assert_witness(cap)
    ctrls = wire.mtg_frames(cap.frames, run_id, 1, ctrl=True)
    assert [f.mtg.seq for f in ctrls] == list(range(len(msgs)))
    for f, data, (t0, t1) in zip(ctrls, msgs, windows):
        h = f.mtg
        assert f.ok and h.valid and h.ctrl and h.flags == abi.HDR_F_CTRL
        assert h.patt_kind == abi.PATT_CTRL and f.body == data
        assert f.orig_len == MIN_LEN[6] + len(data)
        assert t0 <= h.sched_ns <= h.tx_ns <= t1
        assert (f.sport, f.dport) == (started.src_port, started.dst_port)
    # The data packets did not notice: their own sequence, no gap.
    data_frames = wire.mtg_frames(cap.frames, run_id, 1)
    assert [f.mtg.seq for f in data_frames] == list(range(st.sent))


def test_qdisc_path_goes_through_netem(make_link, tgs):
    """MTG_TG_FLAGS_QDISC frames pass the sending interface's qdisc (netem
    delays them 50 ms); driver-path frames of the same interface do not."""
    link = make_link(4)
    run("tc", "qdisc", "add", "dev", link.a, "root", "netem", "delay", "50ms")
    run_id, gap = new_run_id(), 10 * MS
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        start = tai_ns() + LEAD_NS
        stop = start + RUN_NS
        q = tgs.start(link, 1, run_id, start, entries=[(gap, 200)],
                      stop_ns=stop, flags=abi.TG_FLAGS_QDISC)
        d = tgs.start(link, 2, run_id, start + gap // 2, entries=[(gap, 200)],
                      stop_ns=stop, dst_port=9001)
        tgs.wait(1)
        tgs.wait(2)
        time.sleep(0.2)  # the last ones wait in netem
    # pcap stamps are CLOCK_REALTIME, the MTG header's CLOCK_TAI.
    tai_minus_real = min((tai_ns() - time.time_ns()) for _ in range(5))
    assert_witness(cap)
    delay = {}
    for tg_id, started in ((1, q), (2, d)):
        st = tgs.stats(tg_id)
        frames = wire.mtg_frames(cap.frames, run_id, tg_id)
        check_frames(frames, link, started, st, [(gap, 200)],
                     count=expected_count(started.start_ns, stop, gap))
        delay[tg_id] = statistics.median(
            f.ts_ns + tai_minus_real - f.mtg.tx_ns for f in frames)
    assert delay[1] >= 45 * MS, f"qdisc path not delayed: {delay}"
    assert delay[1] - delay[2] >= 40 * MS, f"driver path delayed too: {delay}"


CONTROLLER = """
import json, sys, time
from mtgtest.system import tai_ns
from mtgwitness import abi
p = json.loads(sys.argv[1])
s = abi.Session()
s.alloc(1 << 16)
t = s.tables()
t.write_table(0, [(p["gap"], 200)])
flags = abi.TG_FLAGS_IPV6 if p["family"] == 6 else 0
st = s.tg_start(tg_id=1, run_id=p["run_id"], ifindex=p["ifindex"],
                src_addr=p["src"], dst_addr=p["dst"], src_port=5000,
                dst_port=9000, ttl=64, table_len=1, flags=flags,
                start_ns=tai_ns() + p["lead"])
print(st.start_ns, s.stats().session_id, flush=True)
time.sleep(3600)
"""


def test_controller_killed(make_link, mtg):
    """SIGKILL of the controller stops its TGs at once: their counters,
    read over netlink while it lived, go with its session once it is
    reaped, nothing more leaves, and the module can be unloaded."""
    link = make_link(4)
    run_id, gap = new_run_id(), 5 * MS
    params = dict(run_id=run_id, gap=gap, ifindex=link.a_ifindex,
                  src=link.a_addr, dst=link.b_addr, family=link.family,
                  lead=LEAD_NS)
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        child = subprocess.Popen([sys.executable, "-c", CONTROLLER,
                                  json.dumps(params)], env=env,
                                 stdout=subprocess.PIPE, text=True)
        try:
            line = child.stdout.readline()
            assert line.strip(), "the controller died before starting its TG"
            start_ns, sid = map(int, line.split())
            sleep_until(start_ns + 500 * MS)
            nl = ynl.family()
            counted = [nl.do("tg-get", {"session-id": sid, "id": 1})["sent"]
                       for _ in range(2)]
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=60)
            child.stdout.close()
        reaped = tai_ns()
        with pytest.raises(ynl.nl_error()):
            nl.do("tg-get", {"session-id": sid, "id": 1})
        assert sid not in [x["id"] for x in nl.dump("session-get", {})]
        time.sleep(2)  # the window in which nothing may come
    assert child.returncode == -signal.SIGKILL
    assert 0 < counted[0] <= counted[1], "the counters were not counting"
    assert_witness(cap)
    frames = wire.mtg_frames(cap.frames, run_id, 1)
    assert frames, "the TG never sent: nothing was tested"
    assert [f.mtg.seq for f in frames] == list(range(len(frames)))
    late = [f.mtg.seq for f in frames if f.mtg.tx_ns > reaped]
    assert not late, f"sent after its controller was gone: seq {late[:10]}"
    unload_module()
    load_module()


def test_tables_overwritten_at_random(make_link, tgs):
    """Userspace scribbling over timetables and rings while TGs run (loop
    and stream) is counted, never trusted: bad entries or a failed ring."""
    link = make_link(4)
    run_id = new_run_id()
    cpus = sorted(os.sched_getaffinity(0))
    start = tai_ns() + LEAD_NS
    loops, streams = [], []
    for i in range(4):
        off, n = tgs.table([(MS, 200 + i)] * 32)
        tgs.start(link, 1 + i, run_id, start, table=(off, n),
                  cpu=cpus[i % len(cpus)])
        loops.append((off, n))
    for i in range(4):
        stream = tgs.stream(64)
        stream.push([(MS, 300 + i)] * 64)
        tgs.start(link, 11 + i, run_id, start, stream=stream,
                  cpu=cpus[i % len(cpus)])
        streams.append(stream)
    used = tgs.free
    rng = random.Random(20240917)
    sleep_until(start + 300 * MS)

    def plausible_entry():
        gap = rng.choice([0, 1, 1000, MS, rng.randrange(10**4, 10**7),
                          2**63 + rng.getrandbits(62), 2**64 - 1])
        length = rng.choice([0, 1, MIN_LEN[4] - 1, MIN_LEN[4], 200, MAX_LEN,
                             MAX_LEN + 1, 65535, rng.getrandbits(32)])
        return gap, length, rng.choice([0, 0, 0, 1, rng.getrandbits(32)])

    end = time.monotonic() + 1.0
    while time.monotonic() < end:       # values near the edges
        for off, n in loops:
            tgs.t.write_entries(off, [plausible_entry() for _ in range(n)])
        for stream in streams:
            tgs.t.write_entries(stream.table_offset,
                                [plausible_entry() for _ in range(64)])
            cons = tgs.t.consumer(stream.ring_offset)
            tgs.t.set_producer(stream.ring_offset, rng.choice(
                [cons + rng.randrange(0, 70), cons - 1, rng.getrandbits(64)])
                % 2**64)
        time.sleep(0.01)
    end = time.monotonic() + 0.5
    while time.monotonic() < end:       # anything at all
        tgs.t.write_bytes(0, rng.randbytes(used))
        time.sleep(0.01)

    ids = [1 + i for i in range(4)] + [11 + i for i in range(4)]
    stats = {i: tgs.stats(i) for i in ids}
    for i, st in stats.items():
        assert st.state in (abi.TG_STATE_RUNNING, abi.TG_STATE_FINISHED, abi.TG_STATE_FAILED), i
        if st.state == abi.TG_STATE_FAILED:
            assert st.error in (abi.TG_ERROR_RING, abi.TG_ERROR_TIME), (i, st.error)
    bad = sum(st.bad_entries for st in stats.values())
    ring_failed = [i for i, st in stats.items()
                   if st.state == abi.TG_STATE_FAILED and st.error == abi.TG_ERROR_RING]
    assert bad > 0 or ring_failed, "random tables went unnoticed"
    for i in ids:
        tgs.s.tg_kill(i)
        assert tgs.stats(i).state in (abi.TG_STATE_KILLED, abi.TG_STATE_FAILED,
                                      abi.TG_STATE_FINISHED)
    t0 = time.monotonic()
    tgs.close()
    assert time.monotonic() - t0 < 30, "closing the session hung"
    # The module is as good as new: a fresh session sends as it should.
    fresh = TgSession()
    try:
        fresh.start(link, 1, new_run_id(), tai_ns() + LEAD_NS,
                    entries=[(MS, 200)], stop_count=10)
        st = fresh.wait(1)
        assert (st.state, st.sent, st.bad_entries) == (abi.TG_STATE_FINISHED, 10, 0)
    finally:
        fresh.close()


# --- descriptors that must be refused, with nothing started -----------------

@pytest.fixture(scope="module")
def static_link():
    """One veth pair for the refusal tests, IPv4 and IPv6 addresses."""
    from mtgtest.system import unique
    ns = unique("mtgns")
    a, b = unique("va"), unique("vb")
    run("ip", "netns", "add", ns)
    try:
        run("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        run("ip", "link", "set", b, "netns", ns)
        run("ip", "-n", ns, "link", "set", b, "up")
        run("ip", "link", "set", a, "up")
        yield {4: address_link(a, b, ns, 4), 6: address_link(a, b, ns, 6)}
    finally:
        run("ip", "link", "del", a, check=False, timeout=60)
        run("ip", "netns", "del", ns, timeout=60)


def refused(tgs, link, want, tg_id=7, entries=((MS, 200),), **kw):
    """TG_START fails with an errno in want and leaves no TG behind."""
    kw.setdefault("start_ns", tai_ns() + 3600 * S)
    entries = list(entries)
    err = abi.errno_of(tgs.start, link, tg_id, new_run_id(), entries=entries, **kw)
    assert err in want, f"got {errno.errorcode.get(err, err)}, " \
        f"want {[errno.errorcode[w] for w in want]}"
    assert abi.errno_of(tgs.stats, tg_id) == errno.ENOENT, "half-started TG"
    return err


@pytest.mark.parametrize("family", [4, 6])
def test_edge_lengths_accepted(static_link, tgs, family):
    link = static_link[family]
    for tg_id, length in ((1, MIN_LEN[family]), (2, MAX_LEN)):
        tgs.start(link, tg_id, new_run_id(), tai_ns() + 3600 * S,
                  entries=[(MS, length)])
        assert tgs.stats(tg_id).state == abi.TG_STATE_RUNNING
        tgs.s.tg_kill(tg_id)


@pytest.mark.parametrize("family", [4, 6])
def test_lengths_outside_the_frame_refused(static_link, tgs, family):
    link = static_link[family]
    # Shorter than the headers: EINVAL; longer than the MTU: EMSGSIZE.
    for length, err in ((0, errno.EINVAL), (MIN_LEN[family] - 1, errno.EINVAL),
                        (MAX_LEN + 1, errno.EMSGSIZE), (65535, errno.EMSGSIZE),
                        (2**32 - 1, errno.EMSGSIZE)):
        refused(tgs, link, {err}, entries=[(MS, length)])
        # A bad entry anywhere in the table counts, not only the first.
        refused(tgs, link, {err},
                entries=[(MS, 200)] * 5 + [(MS, length)] + [(MS, 200)] * 2)
    refused(tgs, link, {errno.EINVAL}, entries=[(MS, 200, 1)])  # reserved


BAD_FIELDS = {
    "unknown ifindex": ({"ifindex": 999999}, {errno.ENODEV}),
    "tg_id 0": ({"tg_id": 0}, {errno.EINVAL}),
    "unknown flag": ({"flags": abi.TG_FLAGS_MASK + 1}, {errno.EINVAL}),
    "flag bit 31": ({"flags": 1 << 31}, {errno.EINVAL}),
    "reserved0": ({"reserved0": 1}, {errno.EINVAL}),
    "reserved1": ({"reserved1": 1}, {errno.EINVAL}),
    "reserved[0]": ({"reserved": [1, 0, 0]}, {errno.EINVAL}),
    "reserved[2]": ({"reserved": [0, 0, 1 << 63]}, {errno.EINVAL}),
    "patt_kind CTRL": ({"patt_kind": abi.PATT_CTRL}, {errno.EINVAL}),
    "patt_kind 200": ({"patt_kind": 200}, {errno.EINVAL}),
    "dst_port 0": ({"dst_port": 0}, {errno.EINVAL}),
    "ttl 0": ({"ttl": 0}, {errno.EINVAL}),
    # The header does not name an errno for a CPU that is not online.
    "cpu not online": ({"cpu": 4096}, {errno.ENXIO, errno.EINVAL}),
    "cpu 2^32-1": ({"cpu": 2**32 - 1}, {errno.ENXIO, errno.EINVAL}),
    "table_len 0": ({"table_len": 0}, {errno.EINVAL}),
    "ring without STREAM": ({"ring_offset": 64}, {errno.EINVAL}),
    # an echo has no port (its identifier is src_port), nor D-ITG's header
    "ICMP with dst_port": ({"flags": abi.TG_FLAGS_ICMP}, {errno.EINVAL}),
    "ICMP with DITG": ({"flags": abi.TG_FLAGS_ICMP | abi.TG_FLAGS_DITG,
                        "dst_port": 0}, {errno.EINVAL}),
}


@pytest.mark.parametrize("case", sorted(BAD_FIELDS))
def test_bad_descriptor_refused(static_link, tgs, case):
    fields, want = BAD_FIELDS[case]
    off, n = tgs.table([(MS, 200)])
    fields = dict(fields)
    tg_id = fields.pop("tg_id", 7)
    table = (off, fields.pop("table_len", n))
    err = abi.errno_of(tgs.start, static_link[4], tg_id, new_run_id(),
                       tai_ns() + 3600 * S, table=table, **fields)
    assert err in want, f"{case}: got {errno.errorcode.get(err, err)}"
    for i in {tg_id, 7}:
        assert abi.errno_of(tgs.stats, i) in (errno.ENOENT, errno.EINVAL)


def test_tables_outside_the_region_refused(static_link, tgs):
    link, size = static_link[4], tgs.t.size
    tgs.t.write_table(0, [(MS, 200)])
    tgs.t.write_table(size - 16, [(MS, 200)])
    ok_stream_ring = size - 128
    cases = [
        dict(table=(size, 1)),                 # starts at the end
        dict(table=(size - 16, 2)),            # runs past the end
        dict(table=(8, 1)),                    # not a multiple of 16
        dict(table=(2**64 - 16, 1)),           # wraps around
        dict(table=(0, 2**32 - 1)),            # far too long
    ]
    for kw in cases:
        err = abi.errno_of(tgs.start, link, 7, new_run_id(),
                           tai_ns() + 3600 * S, **kw)
        assert err == errno.EINVAL, (kw, err)
        assert abi.errno_of(tgs.stats, 7) == errno.ENOENT
    for ring in (size, size - 64, 32, 2**64 - 64):  # outside, or unaligned
        err = abi.errno_of(tgs.start, link, 7, new_run_id(),
                           tai_ns() + 3600 * S, table=(0, 1),
                           ring_offset=ring, flags=abi.TG_FLAGS_STREAM)
        assert err == errno.EINVAL, (ring, err)
        assert abi.errno_of(tgs.stats, 7) == errno.ENOENT
    # The same ring inside the region is fine (its producer count is 0).
    tgs.t.set_producer(ok_stream_ring, 0)
    tgs.start(link, 7, new_run_id(), tai_ns() + 3600 * S, table=(0, 1),
              ring_offset=ok_stream_ring, flags=abi.TG_FLAGS_STREAM)
    tgs.s.tg_kill(7)


def test_start_in_the_past_refused(static_link, tgs):
    for family in (4, 6):
        refused(tgs, static_link[family], {errno.ETIME},
                start_ns=tai_ns() - S)
    refused(tgs, static_link[4], {errno.ETIME}, start_ns=1)


def test_duplicate_tg_id_refused(static_link, tgs):
    link = static_link[4]
    first = tgs.start(link, 5, new_run_id(), tai_ns() + 3600 * S,
                      entries=[(MS, 200)])
    err = abi.errno_of(tgs.start, link, 5, new_run_id(), tai_ns() + 3600 * S,
                       entries=[(MS, 300)], dst_port=1234)
    assert err == errno.EEXIST
    st = tgs.stats(5)
    assert st.state == abi.TG_STATE_RUNNING and st.tg_id == first.tg_id
    tgs.s.tg_kill(5)
    assert tgs.stats(5).state == abi.TG_STATE_KILLED


# --- neighbour resolution ----------------------------------------------------

@pytest.fixture
def fresh_link6(netns):
    """Factory of IPv6 veth links whose a end gets the IPv6 settings given
    (net.ipv6.conf.A.KEY=VALUE) before it comes up, and is used at once."""
    from mtgtest.system import unique
    made = []

    def make(**conf):
        ns = netns()
        a, b = unique("va"), unique("vb")
        run("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        made.append(a)
        run("ip", "link", "set", b, "netns", ns)
        for key, value in conf.items():
            run("sysctl", "-qw", f"net.ipv6.conf.{a}.{key}={value}")
        run("ip", "-n", ns, "link", "set", b, "up")
        run("ip", "link", "set", a, "up")
        return address_link(a, b, ns, 6)

    yield make
    for a in made:
        run("ip", "link", "del", a, check=False, timeout=60)


def link_local_flags(dev):
    return run("ip", "-6", "addr", "show", "dev", dev, "scope", "link").stdout


def test_ipv6_start_waits_for_the_link_local_address(fresh_link6, tgs):
    """IPv6 solicits the next hop from a link-local address of the device,
    and the kernel sends no solicitation while that address is tentative
    (its duplicate address detection runs 1 to 2 s after the device comes
    up, or longer: here 15 probes). A TG started in that time waited 2 s for
    an answer to solicitations never sent (EHOSTUNREACH, issue 17's
    test_pass_through on a fast machine); it now waits out the detection,
    resolves the peer and sends. Setting the link up can take seconds (the
    debug kernel, a busy host): 15 probes, so the detection is still going
    when the test looks. The start time lies past the longest the module
    waits (1 s of solicitation delay and 16 retransmission times), or the
    start would be refused as already past (ETIME)."""
    link = fresh_link6(dad_transmits=15)
    assert "tentative" in link_local_flags(link.a)
    run_id = new_run_id()
    started = tgs.start(link, 1, run_id, tai_ns() + 30 * S,
                        entries=[(MS, 200)], stop_count=20)
    assert "tentative" not in link_local_flags(link.a)
    assert started.mac == link.b_mac
    st = tgs.wait(1)
    assert (st.state, st.sent) == (abi.TG_STATE_FINISHED, 20)


def test_ipv6_without_a_link_local_address(fresh_link6, tgs):
    """A device with no IPv6 link-local address (addr_gen_mode none) cannot
    solicit its neighbours: refused at once with EADDRNOTAVAIL, not after
    2 s of silence; with the neighbour's MAC in the table (or given), the
    TG needs no solicitation and starts."""
    link = fresh_link6(addr_gen_mode=1)
    assert "inet6" not in link_local_flags(link.a)
    err = abi.errno_of(tgs.start, link, 1, new_run_id(), tai_ns() + 10 * S,
                       entries=[(MS, 200)], stop_count=20)
    assert err == errno.EADDRNOTAVAIL
    assert abi.errno_of(tgs.stats, 1) == errno.ENOENT, "half-started TG"
    run("ip", "-6", "neigh", "replace", link.b_addr, "lladdr", link.b_mac,
        "dev", link.a, "nud", "permanent")
    started = tgs.start(link, 1, new_run_id(), tai_ns() + LEAD_NS,
                        entries=[(MS, 200)], stop_count=20)
    assert started.mac == link.b_mac
    assert tgs.wait(1).sent == 20
