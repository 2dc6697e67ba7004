# SPDX-License-Identifier: GPL-2.0-or-later
"""What the commands share: opening the input, the selection options
(--tg, --from, --to, --where) and answering as a table or as JSON."""

import argparse
import contextlib
import os
import sys

import numpy as np

from .fields import parse_duration
from .recording import F_HDR_CORRUPT, open_recording
from .select import selection
from .stats import TooManyBins
from .table import render, to_json


class UsageError(ValueError):
    """A bad option value: said with the option's name."""


def add_selection(parser, where=True):
    g = parser.add_argument_group("selection")
    g.add_argument("--tg", metavar="ID[,ID...]",
                   help="only these TGs (default: all)")
    g.add_argument("--from", dest="start", metavar="TIME",
                   help="only records that arrived at least TIME after T0 "
                        "(e.g. 10s, 250ms)")
    g.add_argument("--to", dest="end", metavar="TIME",
                   help="only records that arrived less than TIME after T0")
    if where:
        g.add_argument("--where", metavar="EXPR",
                       help="only records the condition selects, e.g. "
                            "'owd > 5ms and not csum_bad'")


def add_json(parser):
    parser.add_argument("--json", action="store_true",
                        help="answer in JSON instead of a table")


def add_input(parser):
    """What most commands take first: the recording, the selection and
    --json."""
    parser.add_argument("recording")
    parser.add_argument("--correct-clock", action="store_true",
                        help="bring receive stamps to the sender's clock "
                             "by the offset TSP estimated (a recording of "
                             "mtgctl recv)")
    add_selection(parser)
    add_json(parser)


def tg_list(args):
    if not getattr(args, "tg", None):
        return None
    try:
        return sorted({int(x, 0) for x in args.tg.split(",")})
    except ValueError:
        raise UsageError(f"--tg {args.tg}: TG ids separated by commas") \
            from None


def interval(args):
    """(start, end) ns after T0 from --from and --to, None where absent."""
    out = []
    for opt, value in (("--from", getattr(args, "start", None)),
                       ("--to", getattr(args, "end", None))):
        try:
            out.append(None if value is None else
                       parse_duration(value, opt))
        except ValueError as e:
            raise UsageError(str(e)) from None
        if out[-1] is not None and abs(out[-1]) >= 1 << 62:
            raise UsageError(f"{opt} {value}: more than 146 years from T0")
    if None not in out and out[1] <= out[0]:
        raise UsageError("--to must come after --from")
    return tuple(out)


def check_tgs(rec, args, also=()):
    """The TGs of --tg (None: all); one that the recording does not have
    is an error, whatever the command. Besides the records' TGs, those in
    `also` count as had (the TGs of extra entries, for the commands that
    read them)."""
    tgs = tg_list(args)
    if tgs:
        r = rec.records
        mine = np.isin(r["tg_id"], tgs) & ((r["flags"] & F_HDR_CORRUPT) == 0)
        missing = sorted(set(tgs) - set(np.unique(r["tg_id"][mine])
                                        .tolist()) - set(also))
        if missing:
            raise UsageError(f"--tg {args.tg}: no records of TG "
                             f"{', '.join(map(str, missing))} in "
                             f"{os.path.basename(rec.path)}")
    return tgs


def selected(rec, args):
    """The mask of the records the selection options take. A TG of --tg
    that the recording does not have is an error (check_tgs)."""
    start, end = interval(args)
    tgs = check_tgs(rec, args)
    return selection(rec.records, tgs=tgs, start=start, end=end,
                     where=getattr(args, "where", None),
                     start_ns=rec.start_ns)


def without_interval(args):
    """The selection without --from/--to (which g821 and windows apply to
    scheduled times themselves)."""
    return argparse.Namespace(**dict(vars(args), start=None, end=None))


@contextlib.contextmanager
def asked_by(option, value):
    """Too many bins, windows or seconds are said with the option that
    asked for them: "--window 1ns: 6000000000 windows ..."."""
    try:
        yield
    except TooManyBins as e:
        raise TooManyBins(f"{option} {value}: {e}") from None


def open_input(args):
    rec = open_recording(args.recording)
    if getattr(args, "correct_clock", False):
        rec.correct_clock()
    return rec


def answer(args, data, rows=None, columns=None, title=None, out=None):
    """Print `data` as JSON with --json, else rows as an aligned table."""
    out = out or sys.stdout
    if getattr(args, "json", False):
        out.write(to_json(data))
    elif rows is not None:
        out.write(render(rows, columns, title))


def wrote(args, text, **data):
    """Says what a command wrote: the line `text`, or with --json `data`."""
    if getattr(args, "json", False):
        sys.stdout.write(to_json(data))
    else:
        print(text)
