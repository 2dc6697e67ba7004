# SPDX-License-Identifier: GPL-2.0-or-later
"""The IDF's keep: MTG's "registration on disk of ... the whole packet"
and "recording on disk the list of wrong bits" (its paper, §3.1), in the
loop of test_mtgctl_rx, with netem corrupting frames on the way back.

The capture on the receiving interface (before mtg's hook) is the
witness, frame by frame in the recording's order: TG 1's kept payloads
are its frames' payloads, TG 2's kept positions are the bits where its
frames' payloads differ from the pattern their headers describe,
computed here from the capture. A frame whose header failed its CRC has
nothing kept; every other frame of the two TGs has. mtgctl info and
mtgsap read the same entries.

netem corrupts with probability 2% per frame: that none of TG 2's 2000
frames has a wrong payload bit has a probability below 1e-15, which is
what the check that some have assumes."""

import json
import subprocess

import numpy as np
import pytest

from mtgsap.recording import EXTRA_PAYLOAD, EXTRA_WRONG_BITS, Recording
from mtgtest.ctl import MTGCTL, witnessed_run, write_idf
from mtgtest.system import ROOT
from mtgwitness import abi, wire
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst, witness

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm
COUNT = 2000


def positions(got, want):
    diff = np.unpackbits(np.frombuffer(got, np.uint8) ^
                         np.frombuffer(want, np.uint8))
    return [int(p) for p in np.flatnonzero(diff)]


def test_kept_payloads_and_wrong_bits_are_the_wire_s(make_loop, tmp_path):
    loop = make_loop(4)
    loop.netem("corrupt", "2%")
    write_idf(tmp_path, f"listen {loop.listen()}\n"
              f"netns {loop.ns_s} dev {loop.a}\n"
              f"dist fixed pkts fixed 1400 1400 inta 1ms count {COUNT} "
              "patt random\n"
              f"tgid 1 dst {dst(loop, 9001)} keep payload\n"
              f"tgid 2 dst {dst(loop, 9002)} keep wrongbits\n"
              f"tgid 3 dst {dst(loop, 9003)} count 100\n")
    _, cap, s = witnessed_run(tmp_path, loop.capture(), "--start-delay",
                              START_DELAY, "-o", "run.rec", "--drain", DRAIN)
    ours, _ = witness(cap.frames, s["run_id"])
    rec = Recording(tmp_path / "run.rec")
    r = rec.records
    assert len(r) == len(ours)
    payloads = rec.kept(EXTRA_PAYLOAD)
    bits = rec.kept(EXTRA_WRONG_BITS)
    corrupt_bits = 0
    for i, (frame, view) in enumerate(ours):
        assert (int(r["tg_id"][i]), int(r["seq"][i])) == \
            (view.hdr.tg_id, view.hdr.seq)
        sound = not view.flags & abi.RX_F_HDR_CORRUPT
        tg = view.hdr.tg_id if sound else None
        kept = bool(r["flags"][i] & abi.RX_F_KEPT)
        assert kept == (tg in (1, 2)), i
        assert not r["flags"][i] & abi.RX_F_KEEP_LOST
        if tg == 1:
            assert payloads[i].data == view.payload, i
            assert payloads[i].count == len(view.payload)
            assert i not in bits
        elif tg == 2:
            want = wire.pattern_bytes(view.hdr.patt_kind,
                                      view.hdr.patt_value,
                                      view.hdr.patt_seed, len(view.payload))
            e = bits[i]
            assert list(e.positions) == positions(view.payload, want), i
            assert e.count == view.wrong_bits == int(r["wrong_bits"][i])
            assert not e.cut and i not in payloads
            corrupt_bits += e.count
        else:
            assert i not in payloads and i not in bits
    assert corrupt_bits > 0, "netem corrupted no payload of TG 2"
    assert set(payloads) | set(bits) == \
        {i for i in range(len(r)) if r["flags"][i] & abi.RX_F_KEPT}
    assert s["rx"]["kept"] == len(payloads) + len(bits)
    assert (s["rx"]["keep_drops"], s["recording"]["extras"]) == \
        (0, len(payloads) + len(bits))

    out = json.loads(subprocess.run([MTGCTL, "info", "run.rec", "--json"],
                                    cwd=tmp_path, capture_output=True,
                                    text=True, check=True).stdout)
    assert (out["extras"]["payloads"], out["extras"]["wrong_bit_lists"]) == \
        (len(payloads), len(bits))
    sap = json.loads(subprocess.run(
        [ROOT / ".venv/bin/mtgsap", "kept", "run.rec", "--tg", "2",
         "--json"], cwd=tmp_path, capture_output=True, text=True,
        check=True).stdout)
    assert {k["record"]: k["positions"] for k in sap["kept"]} == \
        {i: list(map(int, e.positions)) for i, e in bits.items()}
