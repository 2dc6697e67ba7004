# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap stats: min, max, mean, variance, percentiles, PMF and CDF of
fields, delays and jitter."""

from .. import stats as st
from ..common import (UsageError, add_input, answer, asked_by, open_input,
                      selected)
from ..fields import column, parse_duration


def configure(parser):
    add_input(parser)
    parser.add_argument("fields", nargs="+", metavar="FIELD",
                        help="fields, delays or jitters (see "
                             "Documentation/analysis.rst)")
    parser.add_argument("--percentiles", metavar="P[,P...]")
    parser.add_argument("--basic", action="store_true",
                        help="count, min, max, mean, variance and sd "
                             "only, in one pass at about the speed of "
                             "reading the records")
    parser.add_argument("--pmf", action="store_true",
                        help="the PMF (and CDF) of each field")
    parser.add_argument("--cdf", action="store_true",
                        help="as --pmf, listing empty bins too")
    parser.add_argument("--bins", type=int, metavar="N")
    parser.add_argument("--bin-width", metavar="WIDTH")


def command(args):
    with open_input(args) as rec:
        mask = selected(rec, args)
        percentiles = st.PERCENTILES
        if args.basic and (args.percentiles or args.pmf or args.cdf):
            raise UsageError("--basic computes no percentiles, PMF or CDF")
        _check_bins(args.bins)
        if args.basic:
            percentiles = ()
        elif args.percentiles:
            try:
                percentiles = tuple(float(p) for p in
                                    args.percentiles.split(","))
            except ValueError:
                raise UsageError("--percentiles: numbers separated by "
                                 "commas") from None
            if not all(0 <= p <= 100 for p in percentiles):
                raise UsageError("--percentiles: between 0 and 100")
        results, rows = {}, []
        for name in args.fields:
            if args.basic:
                d = st.basic(rec.records, name, mask, rec.start_ns)
                d["unit"] = "ns" if column(rec.records[:0], name).time \
                    else ""
                results[name] = d
                rows.append(dict(field=name, **d))
                continue
            col = column(rec.records, name, rec.start_ns)
            sample = col.taken(mask)
            d = st.describe(sample, percentiles)
            d["unit"] = "ns" if col.time else ""
            if args.pmf or args.cdf:
                width = (parse_duration(args.bin_width, "--bin-width")
                         if args.bin_width and col.time else
                         _number(args.bin_width, "--bin-width")
                         if args.bin_width else None)
                if width is not None and not width > 0:
                    raise UsageError("--bin-width must be positive")
                with asked_by("--bin-width", args.bin_width):
                    x, w, p, c = st.pmf(sample, args.bins, width)
                d["pmf"] = dict(value=x, width=w, p=p, cdf=c)
            results[name] = d
            rows.append(dict(field=name, **d))
        if args.json:
            answer(args, results)
            return 0
        keys = ["count", "min", "max", "mean", "variance", "sd"] + \
            [f"p{p:g}" for p in percentiles]
        answer(args, results, rows, [("field", "field")] +
               [(k, k) for k in keys] + [("unit", "unit")])
        for name, d in results.items():
            if "pmf" not in d:
                continue
            pm = d["pmf"]
            prow = [dict(value=pm["value"][i], width=pm["width"][i],
                         p=pm["p"][i], cdf=pm["cdf"][i])
                    for i in range(len(pm["p"])) if args.cdf or pm["p"][i]]
            cols = [("value", "value" if not pm["width"].any() else "from"),
                    ("width", "width"), ("p", "P"), ("cdf", "CDF")]
            if not pm["width"].any():
                cols.pop(1)
            print()
            answer(args, d, prow, cols, title=f"PMF and CDF of {name}")
    return 0


def _number(text, option):
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{option} {text}: a number") from None


def _check_bins(bins):
    """--bins N: at least 1, at most MAX_BINS."""
    if bins is not None and bins < 1:
        raise UsageError(f"--bins {bins}: at least 1")
    if bins is not None and bins > st.MAX_BINS:
        raise UsageError(f"--bins {bins}: more than {st.MAX_BINS} bins")
