# SPDX-License-Identifier: GPL-2.0-or-later
"""MTG_TG_FLAGS_RESTART (ABI 1.4): a TG that ended starts again, as MTG's
operator starts any TG. The capture on the receiving end is the witness:
the sequence numbers go on from the first start's (no repeat, no gap),
the second start leaves from the table's first slot at its start time,
the payload pattern follows the sequence number, and the counters go on
(the lateness histogram equals the capture's over both starts). Refusals
leave the old TG as it was: unknown TG, a TG still running or suspended,
a start in the past, a bad table, a bad device."""

import errno
import time

import pytest

from mtgtest import ynl
from mtgtest.system import tai_ns
from mtgtest.tg import (ENDED, LEAD_NS, MS, S, TgSession, new_run_id,
                        sleep_until)
from mtgwitness import abi, wire
from mtgwitness.capture import Capture
from test_tg import assert_witness, check_lateness

pytestmark = pytest.mark.vm
ENTRIES = [(MS, 200), (2 * MS, 300), (MS, 1000)]


@pytest.fixture
def tgs(mtg):
    sess = TgSession(rx_records=1024)
    yield sess
    sess.close()


def restart(tgs, link, tg_id, run_id, start_ns, **kw):
    return tgs.start(link, tg_id, run_id, start_ns, entries=ENTRIES,
                     flags=abi.TG_FLAGS_RESTART, **kw)


def check_both(frames, link, run_id, st, starts):
    """Every frame once, seq 0..n-1; each start's first frame in slot 0 at
    its start time; payloads as the pattern of their seq; counters as the
    capture's."""
    seqs = [f.mtg.seq for f in frames]
    assert seqs == list(range(len(frames))), seqs[:20]
    for f in frames:
        assert f.ok and f.mtg.valid and not f.mtg.ctrl, f.errors
        assert (f.mtg.run_id, f.mtg.tg_id) == (run_id, 1)
        assert f.body_wrong_bits() == 0, f.mtg.seq
        assert f.mtg.tx_ns >= f.mtg.sched_ns
    for first_seq, start_ns in starts:
        f = frames[first_seq]
        assert f.mtg.sched_ns == start_ns and f.orig_len == ENTRIES[0][1]
        if first_seq:
            assert frames[first_seq - 1].mtg.sched_ns < start_ns
    assert (st.sent, st.next_seq) == (len(frames), len(frames))
    assert st.bytes == sum(f.orig_len for f in frames)
    check_lateness(frames, st)


def test_a_finished_tg_starts_again(make_link, tgs):
    link = make_link(4)
    run_id = new_run_id()
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        first = tai_ns() + LEAD_NS
        tgs.start(link, 1, run_id, first, entries=ENTRIES, stop_count=40)
        st = tgs.wait(1)
        assert (st.state, st.sent, st.next_seq) == (abi.TG_STATE_FINISHED, 40, 40)
        again = tai_ns() + LEAD_NS
        # stop_count counts the packets of this start
        restart(tgs, link, 1, run_id, again, stop_count=25)
        assert tgs.stats(1).state == abi.TG_STATE_RUNNING
        st = tgs.wait(1)
    assert (st.state, st.error) == (abi.TG_STATE_FINISHED, abi.TG_ERROR_NONE)
    assert_witness(cap)
    frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_both(frames, link, run_id, st, [(0, first), (40, again)])
    assert len(frames) == 65
    # Each start's end was told, the first one's before it was replaced.
    deadline = time.monotonic() + 30
    events = []
    while len(events) < 2 and time.monotonic() < deadline:
        events += [c for c in tgs.rx.ctrl.read()
                   if c.type == abi.CTRL_TG_EVENT]
        time.sleep(0.05)
    assert [(c.tg_id, c.state) for c in events] == \
        [(1, abi.TG_STATE_FINISHED)] * 2
    assert tgs.stats(1).events == 2


def test_netlink_names_every_flag_of_a_restarted_tg(make_link, tgs):
    """tg-get gives a TG's flags as it was started, the ioctl-only ones
    (restart, keep) included: the spec names every bit, so the kernel's ynl
    decodes them (it failed on a bit the spec did not name)."""
    link = make_link(4)
    run_id = new_run_id()
    tgs.start(link, 1, run_id, tai_ns() + LEAD_NS, entries=ENTRIES,
              stop_count=5)
    tgs.wait(1)
    flags = abi.TG_FLAGS_RESTART | abi.TG_FLAGS_KEEP_PAYLOAD | abi.TG_FLAGS_KEEP_BITS
    tgs.start(link, 1, run_id, tai_ns() + LEAD_NS, entries=ENTRIES,
              stop_count=5, flags=flags)
    st = tgs.wait(1)
    got = ynl.family().do("tg-get", {"session-id": tgs.s.stats().session_id,
                                     "id": 1})
    assert got["sent"] == st.sent == 10
    assert set(got["flags"]) == {"restart", "keep-payload", "keep-bits"}


def test_a_killed_tg_starts_again(make_link, tgs):
    link = make_link(6)
    run_id = new_run_id()
    with Capture(link.b, ns=link.ns, bpf="udp") as cap:
        first = tai_ns() + LEAD_NS
        tgs.start(link, 1, run_id, first, entries=ENTRIES)
        sleep_until(first + S // 2)
        tgs.s.tg_kill(1)
        killed = tgs.stats(1)
        assert killed.state == abi.TG_STATE_KILLED and killed.next_seq > 0
        again = tai_ns() + LEAD_NS
        restart(tgs, link, 1, run_id, again, stop_ns=again + S // 2)
        st = tgs.wait(1)
    assert st.state == abi.TG_STATE_FINISHED
    assert_witness(cap)
    frames = wire.mtg_frames(cap.frames, run_id, 1)
    check_both(frames, link, run_id, st,
               [(0, first), (killed.next_seq, again)])
    assert frames[-1].mtg.sched_ns < again + S // 2


def test_restart_refusals_leave_the_tg_as_it_was(make_link, tgs):
    link = make_link(4)
    run_id = new_run_id()
    later = tai_ns() + 3600 * S

    def refused(want, tg_id=1, **kw):
        before = bytes(tgs.stats(tg_id)) if tg_id == 1 else None
        kw.setdefault("start_ns", later)
        fields = dict(tg_id=tg_id, run_id=run_id, **kw)
        err = abi.errno_of(lambda: tgs.start(
            link, fields.pop("tg_id"), fields.pop("run_id"),
            fields.pop("start_ns"), entries=fields.pop("entries", ENTRIES),
            flags=abi.TG_FLAGS_RESTART | fields.pop("flags", 0), **fields))
        assert err == want, (errno.errorcode.get(err, err), kw)
        if before is not None:
            assert bytes(tgs.stats(1)) == before, "the TG changed"

    refused(errno.ENOENT, tg_id=2)                  # no such TG
    assert abi.errno_of(tgs.stats, 2) == errno.ENOENT
    tgs.start(link, 1, run_id, later, entries=ENTRIES)
    refused(errno.EBUSY)                            # waiting to start
    tgs.s.tg_suspend(1)
    refused(errno.EBUSY)                            # suspended
    tgs.s.tg_kill(1)
    assert tgs.stats(1).state == abi.TG_STATE_KILLED
    refused(errno.ETIME, start_ns=tai_ns() - S)     # in the past
    refused(errno.EINVAL, start_ns=2**63)           # beyond 2262
    refused(errno.EINVAL, table_offset=1 << 40)     # outside the region
    refused(errno.EINVAL, table_offset=8)           # misaligned
    refused(errno.EINVAL, reserved=(0, 1, 0))
    refused(errno.EINVAL, flags=1 << 31)            # unknown flag
    refused(errno.ENODEV, ifindex=999999)
    refused(errno.EMSGSIZE, entries=[(MS, 65535)])
    refused(errno.EINVAL, entries=[(MS, 10)])
    refused(errno.ENXIO, cpu=4096)
    # and it still starts again, once asked properly
    restart(tgs, link, 1, run_id, tai_ns() + LEAD_NS, stop_count=5)
    st = tgs.wait(1, states=ENDED)
    assert (st.state, st.sent) == (abi.TG_STATE_FINISHED, 5)
