# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap ber: bit error rate per TG with its standard deviation, and
over windows."""

import numpy as np

from .. import meter as fl
from ..common import UsageError, add_input, answer, open_input, selected
from ..fields import parse_duration


def configure(parser):
    add_input(parser)
    parser.add_argument("--window", metavar="DURATION",
                        help="window length, e.g. 1s, 100ms")


def command(args):
    with open_input(args) as rec:
        flows = fl.flows(rec.records, selected(rec, args))
        rows, data = [], dict(tgs=[])
        win = parse_duration(args.window, "--window") if args.window else None
        if win is not None and win <= 0:
            raise UsageError("--window must be positive")
        for f in flows:
            row = dict(run_id=f.run_id, tg=f.tg_id, bits=f.bits,
                       bit_errors=f.bit_errors, ber=f.ber, ber_sd=f.ber_sd)
            rows.append(row)
            item = dict(row)
            if win:
                t, b, e = fl.ber_windows(rec.records, f, win, rec.start_ns)
                item["windows"] = dict(
                    start_ns=t, bits=b, bit_errors=e,
                    ber=np.divide(e, b, out=np.zeros(len(b)), where=b > 0))
            data["tgs"].append(item)
        answer(args, data, rows, [("tg", "tg"), ("bits", "bits"),
                                  ("bit_errors", "bit errors"),
                                  ("ber", "BER"), ("ber_sd", "sd")])
        if win and not args.json:
            for item in data["tgs"]:
                w = item["windows"]
                wrows = [dict(t=w["start_ns"][i] / 1e9, bits=w["bits"][i],
                              e=w["bit_errors"][i], ber=w["ber"][i])
                         for i in range(len(w["bits"]))]
                print()
                answer(args, data, wrows, [("t", "from s"), ("bits", "bits"),
                                           ("e", "bit errors"),
                                           ("ber", "BER")],
                       title=f"TG {item['tg']} over windows of {args.window}")
    return 0
