# SPDX-License-Identifier: GPL-2.0-or-later
"""The Wireshark dissector (scripts/wireshark/mtg.lua) on captures of real
runs, in the loop of test_mtgctl_rx (sender namespace, a namespace as the
network under test, the receiver): the capture on the receiving interface,
kept as a pcap, is read by the wire decoder (scripts/mtgwitness/wire.py)
and by tshark with the plugin, and they must agree frame by frame, display
filters included (tests/mtgtest/wireshark.py, as
tests/host/test_wireshark.py does on hand-made frames).

A run of three TGs, one sending a control message, over IPv4 and over
IPv6; and a run through netem corrupting 25% of the frames (one bit at a
uniformly random place of each, kernel randomness: it cannot be seeded).
Of 400 frames of 200 bytes, the chance that none has a bit flipped in the
44 bytes the header CRC covers is (1 - 0.25 * 44 / 200)^400 < 1e-9: the
test needs a corrupted header and says so if netem made none.

In make test-full: tshark under software emulation takes a minute and a
half a capture, five minutes for the three, which make test cannot
spend; tests/host/test_wireshark.py checks the same agreement on frames
made by hand in every make test."""

import os

import pytest

from mtgtest import wireshark as ws
from mtgtest.ctl import witnessed_run, write_idf
from mtgwitness import wire
from mtgwitness.capture import Capture
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst, globals_idf

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = [pytest.mark.vm, pytest.mark.full,
              pytest.mark.skipif(ws.TSHARK is None,
                                 reason="tshark is not installed: run "
                                 "'make deps'")]


def kept_capture(loop):
    """The loop's witness, its pcap kept (cap.path) rather than parsed;
    UDP only (an ICMP error quoting an MTG packet is MTG to Wireshark, not
    to the wire decoder)."""
    return Capture(loop.r, ns=loop.ns_r, bpf="udp", parse=False)


@pytest.fixture
def pcap_of():
    """Runs a run under a kept capture; removes the pcaps after the test."""
    paths = []

    def run(tmp_path, loop):
        _, cap, s = witnessed_run(tmp_path, kept_capture(loop),
                                  "--start-delay", START_DELAY,
                                  "--drain", DRAIN)
        paths.append(cap.path)
        frames = wire.frames_of_pcap(cap.path)
        assert len(frames) == cap.captured
        return cap.path, frames, s
    yield run
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


@pytest.mark.parametrize("family", [4, 6])
def test_a_run_of_several_tgs(make_loop, pcap_of, tmp_path, family):
    loop = make_loop(family)
    write_idf(tmp_path, globals_idf(loop, 60, 200) +
              "".join(f"tgid {i} dst {dst(loop, 9000 + i)}\n"
                      for i in (1, 2, 3)) +
              '    ctrl 20ms "hello, wireshark"\n')
    path, frames, s = pcap_of(tmp_path, loop)
    mtg = [f for f in frames if f.mtg]
    assert sorted((f.mtg.tg_id, f.mtg.ctrl) for f in mtg) == \
        sorted([(tg, False) for tg in (1, 2, 3) for _ in range(60)] +
               [(3, True)])
    assert {f.mtg.run_id for f in mtg} == {s["run_id"]}
    assert all(f.ok for f in mtg), [f.errors for f in mtg if not f.ok]
    rows = ws.check_fields(path, frames)
    tried = ws.check_filters(path, frames)
    assert tried["mtg.crc.bad"] == tried["mtg.udp_checksum.bad"] == []
    (ctrl,) = tried["mtg.flags.ctrl == 1"]
    assert rows[ctrl - 1]["mtg.ctrl.data"] == b"hello, wireshark".hex()
    assert len(tried[f"mtg.run == {s['run_id']:#x}"]) == len(mtg)


def test_a_header_corrupted_by_netem(make_loop, pcap_of, tmp_path):
    loop = make_loop(4)
    loop.netem("corrupt", "25%")
    write_idf(tmp_path, globals_idf(loop, 200, 200) +
              "".join(f"tgid {i} dst {dst(loop, 9000 + i)}\n"
                      for i in (1, 2)))
    path, frames, s = pcap_of(tmp_path, loop)
    # Frames whose IP or UDP structure netem damaged go different ways
    # in the two decoders (see ws.SAME_PATH_ERRORS): not compared, and
    # few: a flip in IPv4's version and header length, total length,
    # fragment offset or UDP's length, 7 of 200 bytes (under 1% of the
    # frames).
    skip = {i for i, f in enumerate(frames, 1) if not ws.comparable(f)}
    assert len(skip) < len(frames) // 10, len(skip)
    ws.check_fields(path, frames, skip=skip)
    tried = ws.check_filters(path, frames, skip=skip)
    bad_crc = [i for i in tried["mtg.crc.bad"] if i not in skip]
    assert bad_crc, "netem corrupted no MTG header: see the docstring"
    assert set(bad_crc) <= set(tried["mtg.udp_checksum.bad"]), \
        "a bit flipped in the header breaks the UDP checksum too"
    good = set(ws.numbers(frames, lambda f: f.ok))
    assert good and not good & set(tried["mtg.udp_checksum.bad"])
    info = ws.tshark(path, "-T", "fields", "-e", "_ws.col.Info").splitlines()
    assert all(info[i - 1].endswith("[bad header CRC] [bad UDP checksum]")
               for i in bad_crc)
