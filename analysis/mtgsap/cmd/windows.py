# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap windows: D-ITG's throughput, delay, jitter and loss over
windows."""

from .. import meter as fl
from ..common import (UsageError, add_input, answer, asked_by, interval,
                      open_input, selected, without_interval)
from ..fields import parse_duration


def configure(parser):
    add_input(parser)
    parser.add_argument("--window", metavar="DURATION", required=True,
                        help="window length, e.g. 1s, 100ms")


def command(args):
    with open_input(args) as rec:
        win = parse_duration(args.window, "--window")
        if win <= 0:
            raise UsageError("--window must be positive")
        start, end = interval(args)
        flows = fl.flows(rec.records, selected(rec, without_interval(args)))
        with asked_by("--window", args.window):
            w = fl.windows(rec.records, flows, win, rec.start_ns, start, end)
        rows = [dict(t=w["start_ns"][i] / 1e9, packets=w["packets"][i],
                     bytes=w["bytes"][i], bps=w["bps"][i],
                     delay=w["delay_ns"][i], jitter=w["jitter_ns"][i],
                     lost=w["lost"][i]) for i in range(len(w["packets"]))]
        answer(args, dict(window_ns=win, tgs=[f.tg_id for f in flows],
                          windows=w), rows,
               [("t", "from s"), ("packets", "packets"), ("bytes", "bytes"),
                ("bps", "bit/s"), ("delay", "delay ns"),
                ("jitter", "jitter ns"), ("lost", "lost")])
    return 0
