# SPDX-License-Identifier: GPL-2.0-or-later
"""The dashboard's s starts any TG, as MTG's operator could (its paper,
§3.1), in the loop of test_mtgctl_rx, in tmux: a TG that finished (a
streaming table) starts again, one that was killed starts again, one
waiting for its start time goes at once, a suspended one resumes, a
running one stays as it is. The recording (the packets that came back)
is the witness: every TG's sequence numbers are 0 .. sent - 1, each
once (a start again goes on with them: the receiver counts neither
duplicates nor losses), and the summary says how many times each TG
started."""

import numpy as np
import pytest

from mtgsap.recording import Recording
from mtgtest.ctl import MTGCTL, summary_of, write_idf
from mtgtest.system import DEBUG_KERNEL
from mtgtest.term import Terminal
import test_mtgctl_rx
from test_mtgctl_rx import DRAIN, START_DELAY, dst
from test_dashboard import rows

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm
SLOW = 4 if DEBUG_KERNEL else 1


def test_s_starts_any_tg(make_loop, tmp_path):
    loop = make_loop(4)
    write_idf(tmp_path, f"listen {loop.listen()}\n"
              f"netns {loop.ns_s} dev {loop.a}\n"
              "pkts fixed 200 200 inta 20ms patt random\n"
              f"tgid 1 dst {dst(loop, 9001)} time relative 0 600s\n"
              f"tgid 2 dst {dst(loop, 9002)} dist exponential table stream "
              "count 50\n"
              f"tgid 3 dst {dst(loop, 9003)} time relative 500s 600s\n"
              f"tgid 4 dst {dst(loop, 9004)} time relative 0 600s\n")
    argv = ["sh", "-c", f"cd {tmp_path} && exec {MTGCTL} run run.idf "
            f"-o run.rec --json summary.json --start-delay {START_DELAY} "
            f"--drain {DRAIN}"]
    with Terminal(tmp_path, argv, cols=160, lines=40) as t:
        def select(tg):
            t.keys("Home")
            for _ in range(tg - 1):
                t.keys("Down")
            t.wait_for(lambda s: f"\n>    {tg} " in s)

        def state(tg, want, timeout=60):
            t.wait_for(lambda s: rows(s).get(tg, {}).get("state") == want,
                       timeout=timeout * SLOW, what=f"TG {tg} {want}")

        def press(key, event):
            t.keys(key)
            t.wait_for(lambda s: event in s, timeout=30 * SLOW, what=event)

        state(2, "done")
        state(3, "waiting")
        select(2)
        press("s", "TG 2 started again: sequence numbers go on from 50")
        state(2, "done")
        select(3)
        press("s", "TG 3 started now, before its start time")
        state(3, "running")
        select(4)
        press("k", "TG 4 killed")
        state(4, "killed")
        press("s", "TG 4 started again: sequence numbers go on from")
        state(4, "running")
        select(1)
        press("s", "TG 1 is running already")
        press("p", "TG 1 suspended")
        state(1, "suspended")
        press("s", "TG 1 resumed")
        state(1, "running")
        t.keys("q")
        assert t.wait_exit(timeout=120 * SLOW) == 2     # TGs were killed
        assert t.sane()
    s = summary_of(tmp_path)
    by_id = {x["id"]: x for x in s["tgs"]}
    assert {i: by_id[i]["starts"] for i in by_id} == {1: 1, 2: 2, 3: 1, 4: 2}
    assert by_id[2]["sent"] == 100
    assert (by_id[2]["underruns"], by_id[2]["bad_entries"]) == (0, 0)
    r = Recording(tmp_path / "run.rec").records
    for i, tg in by_id.items():
        seqs = np.sort(r["seq"][r["tg_id"] == i])
        assert list(seqs) == list(range(tg["sent"])), i
        assert (tg["received"], tg["lost"], tg["duplicates"]) == \
            (tg["sent"], 0, 0), i
