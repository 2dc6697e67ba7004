# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap fit: goodness of fit of a TG's sending process; Hurst parameter
(the method: mtgsap/fit.py)."""

import os

from ..common import (UsageError, add_json, add_selection, answer,
                      asked_by, open_input, selected, tg_list)
from ..fields import FieldError, parse_duration
from ..fit import (FIELDS, FitError, chi_square, deviations, fmt_duration,
                   hurst_aggvar, hurst_rs, ks, models_help, narrowed,
                   sample_and_model, sent_counts, stretches, tgs_present)


def configure(parser):
    parser.add_argument("recording")
    add_selection(parser)
    parser.add_argument("--model", metavar="SPEC",
                        help="the model of the inter-departure time, e.g. "
                             "exponential:mean=32ms (default: the TG's "
                             "dist in the metadata); NAME alone: estimated "
                             "from the sample. " + models_help())
    parser.add_argument("--test", choices=("chi2", "ks", "both"),
                        default="both", help="the test (default both)")
    parser.add_argument("--alpha", type=float, default=0.1,
                        help="significance level (default 0.1, MTG's)")
    parser.add_argument("--bins", type=int, metavar="N",
                        help="chi-square bins of equal probability "
                             "(default: Mann-Wald's rule, at most n/5)")
    parser.add_argument("--field", choices=FIELDS, default="tx",
                        help="the departures: tx (TX stamps, default) or "
                             "sched (the schedule)")
    parser.add_argument("--hurst", action="store_true",
                        help="the Hurst parameter of the packets sent per "
                             "bin, of the TGs of --tg together (default: "
                             "all), instead of the test")
    parser.add_argument("--bin", metavar="DURATION", default="10ms",
                        help="--hurst: the bin (default 10ms)")
    add_json(parser)


def _summary(x):
    return dict(n=len(x), mean_ns=float(x.mean()) if len(x) else None,
                sd_ns=float(x.std(ddof=1)) if len(x) > 1 else None,
                min_ns=int(x.min()) if len(x) else None,
                max_ns=int(x.max()) if len(x) else None)


def _fit(rec, args, mask):
    tg, field, x, model = sample_and_model(rec, args, mask, estimate=False)
    parts, across = stretches(rec, tg, field, mask, model)
    if len(parts) == 1:
        if not model.params:
            model = model.fitted(x)
        data = dict(tg=tg, field=field, sample=_summary(x),
                    model=model.as_dict(), rate_changes=0)
        return _judge(args, data, x, model, f"TG {tg}: ")
    # The rate changed: each stretch against the model at its own rate.
    data = dict(tg=tg, field=field, sample=_summary(x),
                model=model.as_dict(), rate_changes=len(parts) - 1,
                across_changes=across, stretches=[])
    if not args.json:
        print(f"TG {tg}: its throughput changed {len(parts) - 1} time(s): "
              f"each of the {len(parts)} stretches judged against the "
              f"model at its rate; {across} inter-departure time(s) "
              f"spanning a change left out")
    failed = 0
    for i, part in enumerate(parts, 1):
        since = ("the start" if part.from_ns is None else
                 f"{(part.from_ns - rec.start_ns) / 1e9:.6g} s after T0")
        until = ("the end" if part.to_ns is None else
                 f"{(part.to_ns - rec.start_ns) / 1e9:.6g} s")
        by = f", by {part.by}" if part.by else ""
        entry = dict(stretch=i, from_ns=part.from_ns, to_ns=part.to_ns,
                     num=part.num, den=part.den, by=part.by,
                     sample=_summary(part.x))
        data["stretches"].append(entry)
        title = (f"stretch {i}, from {since} to {until}, throughput "
                 f"x{part.num}/{part.den} of the timetable's{by}: ")
        try:
            if len(part.x) < 2:
                raise FitError(f"{len(part.x)} inter-departure times (too "
                               f"few consecutive packets received)")
            m = part.model if part.model.params else \
                part.model.fitted(part.x)
            entry["model"] = m.as_dict()
            _judge(args, entry, part.x, m, title, whole=False)
        except FitError as e:
            failed += 1
            entry["error"] = str(e)
            if not args.json:
                print(f"{title}not judged: {e}")
    if failed == len(parts):
        raise FitError(f"TG {tg}: no stretch between its rate changes "
                       f"could be judged")
    if args.json:
        answer(args, data)
    return 0


def _judge(args, data, x, model, title, whole=True):
    """The sample x against the model: the tests (or the deviations from a
    constant) into data, and printed; with --json, data printed if whole
    (a stretch's is part of the whole's)."""
    stamps = "TX stamps" if args.field == "tx" else "scheduled departures"
    head = (f"{title}{len(x)} inter-departure times of the {stamps}, mean "
            f"{fmt_duration(x.mean())}, sd {fmt_duration(x.std(ddof=1))}\n"
            f"model: {model.text()}, from {model.source}\n")
    if model.constant:
        d = deviations(x, model.params["value"])
        data["deviations"] = d
        data["tests"] = []
        data["note"] = ("no test against a constant (a degenerate "
                        "distribution): the deviations from it")
        if args.json:
            if whole:
                answer(args, data)
            return 0
        print(head + "a test against a constant is meaningless (a "
              "degenerate distribution); the deviations from it:")
        row = dict(n=d["n"], value=d["value"], mean=d["mean"], sd=d["sd"],
                   mdev=d["mean_deviation"], maxdev=d["max_abs_deviation"])
        answer(args, data, [row],
               [("n", "n"), ("value", "constant ns"), ("mean", "mean ns"),
                ("mdev", "mean deviation ns"), ("sd", "sd ns"),
                ("maxdev", "max |deviation| ns")])
        return 0
    dist = model.dist
    tests = []
    if args.test in ("chi2", "both"):
        tests.append(chi_square(x, dist, args.alpha, args.bins,
                                model.estimated))
    if args.test in ("ks", "both"):
        if not 0 < args.alpha < 1:
            raise FitError(f"--alpha {args.alpha}: between 0 and 1")
        tests.append(ks(x, dist, args.alpha))
    data["tests"] = tests
    if args.json:
        if whole:
            answer(args, data)
        return 0
    rows = [dict(test=t["test"], n=t["n"], bins=t.get("bins"),
                 df=t.get("df"), statistic=t["statistic"], p=t["p"],
                 alpha=t["alpha"], verdict=t["verdict"]) for t in tests]
    print(head, end="")
    answer(args, data, rows,
           [("test", "test"), ("n", "n"), ("bins", "bins"), ("df", "df"),
            ("statistic", "statistic"), ("p", "p"), ("alpha", "alpha"),
            ("verdict", "verdict")])
    if model.estimated:
        notes = []
        if args.test in ("chi2", "both"):
            notes.append("the chi-square's df lose them")
        if args.test in ("ks", "both"):
            notes.append("the KS p-value does not account for them (it is "
                         "too large)")
        print(f"{model.estimated} parameter(s) estimated from the sample: "
              f"{'; '.join(notes)}")
    return 0


def _hurst(rec, args, mask):
    tgs = tg_list(args)
    present = tgs_present(rec, mask)
    missing = sorted(set(tgs or ()) - present)
    if missing:
        raise UsageError(f"--tg {args.tg}: no records of TG "
                         f"{', '.join(map(str, missing))} in "
                         f"{os.path.basename(rec.path)}{narrowed(args)}")
    try:
        bin_ns = parse_duration(args.bin, "--bin")
    except FieldError as e:
        raise UsageError(str(e)) from None
    if bin_ns <= 0:
        raise UsageError("--bin must be positive")
    with asked_by("--bin", args.bin):
        counts, t0 = sent_counts(rec.records, bin_ns, tgs, args.field, mask)
    results = [hurst_aggvar(counts), hurst_rs(counts)]
    who = (f"TG {', '.join(map(str, tgs))}" if tgs else
           f"all TGs ({', '.join(map(str, sorted(present)))})")
    data = dict(tgs=tgs or sorted(present), field=args.field, bin_ns=bin_ns,
                bins=len(counts), start_ns=t0 - rec.start_ns,
                mean=float(counts.mean()), methods=results)
    if args.json:
        answer(args, data)
        return 0
    print(f"Hurst parameter of the packets sent per {fmt_duration(bin_ns)} "
          f"by {who}: {len(counts)} bins, mean {counts.mean():.6g} packets "
          f"per bin")
    rows = [dict(method=r["method"], H=r["H"],
                 scales=f"{r['scales'][0]}..{r['scales'][-1]}",
                 points=len(r["scales"])) for r in results]
    answer(args, data, rows, [("method", "method"), ("H", "H"),
                              ("scales", "scales (bins)"),
                              ("points", "points")])
    return 0


def command(args):
    with open_input(args) as rec:
        mask = selected(rec, args)
        if args.hurst:
            return _hurst(rec, args, mask)
        return _fit(rec, args, mask)
