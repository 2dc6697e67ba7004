# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap plot: figures: delay over time, CDF, PMF, windows, sending times
(the figures: mtgsap/plot.py)."""

import os

from ..common import add_json, add_selection, open_input, wrote
from ..plot import (FORMATS, KINDS, PlotError, check_kind, figure,
                    format_of, save)


def configure(parser):
    parser.add_argument("recording")
    parser.add_argument("kind", metavar="KIND",
                        help=f"one of {', '.join(KINDS)}")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the figure; its extension gives the format: "
                             f"{', '.join(FORMATS)}")
    add_selection(parser)
    parser.add_argument("--field", metavar="NAME",
                        help="delay, delay-cdf, pmf: the field (default "
                             "owd); sending: tx or sched")
    parser.add_argument("--window", metavar="DURATION",
                        help="windows: their length (default 1s)")
    parser.add_argument("--model", metavar="SPEC",
                        help="sending: the model (as fit's --model; "
                             "default the TG's in the metadata)")
    parser.add_argument("--bins", type=int, metavar="N",
                        help="pmf, sending: equal bins (default: exact "
                             "values or 50; sending 50)")
    parser.add_argument("--title", metavar="T",
                        help="the title (default: the file and the kind)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite the output if it exists")
    add_json(parser)


def command(args):
    check_kind(args.kind)
    format_of(args.output)
    if os.path.exists(args.output) and not args.force:
        raise PlotError(f"{args.output}: exists (--force to overwrite)")
    with open_input(args) as rec:
        fig = figure(rec, args.kind, args)
        save(fig, args.output, force=args.force)
    wrote(args, f"mtgsap: {args.kind} plot to {args.output}",
          kind=args.kind, output=args.output)
    return 0
