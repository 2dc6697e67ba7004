# SPDX-License-Identifier: GPL-2.0-or-later
"""The dashboard's keys for control messages and starting TGs, drawn by
`mtgctl replay` (which reports what a key would do) in tmux on the host:
the help screen lists them, 'c' opens a line to type the message on,
whose keys are text (q does not quit), Backspace, Enter (the message
would go) and Esc (nothing goes). What the keys do to the module:
tests/vm/test_mtgctl_ctrl.py and test_mtgctl_start.py."""

import pathlib

from mtgtest.term import Terminal
from test_dashboard import selected_id

FEED = pathlib.Path(__file__).resolve().parents[1] / "dash" / "run.jsonl"


def replay(mtgctl, tmp_path):
    t = Terminal(tmp_path, [mtgctl, "replay", FEED], 150, 40, still=True)
    t.wait_for(lambda s: "replay 1/" in s, what="the first frame")
    return t


def test_help_lists_the_keys(mtgctl, tmp_path):
    with replay(mtgctl, tmp_path) as t:
        t.keys("h")
        s = t.wait_for(lambda s: "keys " in s and "replay: n or ]" in s)
        assert "c   type a control message for the selected TG: Enter " \
            "sends it, Esc cancels" in s
        assert "s   start the selected TG now: waiting, it goes; ended, it " \
            "starts again; suspended, it resumes" in s


def test_typing_a_control_message(mtgctl, tmp_path):
    with replay(mtgctl, tmp_path) as t:
        first = selected_id(t.screen())
        t.keys("Down")
        # the screen may still show the first row selected: wait for the
        # move, or 'c' would be for another TG than the one read
        tg = selected_id(t.wait_for(lambda s: selected_id(s) not in
                                    (None, first)))
        t.keys("c")
        t.wait_for(lambda s: f"ctrl to TG {tg} (Enter sends, Esc cancels):"
                   in s.splitlines()[-1])
        t.keys("-l", "q is text, ")
        t.keys("BSpace", "BSpace")
        t.wait_for(lambda s: s.splitlines()[-1].endswith("q is text"))
        t.keys("Enter")
        t.wait_for(lambda s: f"replay: would send a control message from "
                   f"TG {tg}" in s)
        assert "ctrl to TG" not in t.screen().splitlines()[-1]
        t.keys("c", "x", "Escape")
        t.wait_for(lambda s: f"TG {tg}: control message cancelled" in s)
        t.keys("q")
        assert t.wait_exit() == 0
        assert t.sane()
