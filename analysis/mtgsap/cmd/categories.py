# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap categories: a `dist behaviour` TG's records split by the
category of actions each packet was sent in, worked out again from the
TG's parameters and seed (mtgsap/behaviour.py): per category the time
spent in it, the packets and their rate beside the model's; -o writes
each category's records to a recording of its own."""

import numpy as np

from .. import behaviour as bh
from .. import meter as fl
from ..common import add_json, add_selection, answer, open_input, selected
from ..recording import write
from ..stats import AnalysisError


def configure(parser):
    parser.add_argument("recording")
    add_selection(parser, where=False)
    parser.add_argument("-o", "--output", metavar="PREFIX",
                        help="write each category's records to "
                             "PREFIX-CATEGORY.rec")
    parser.add_argument("--force", action="store_true",
                        help="overwrite those files if they exist")
    add_json(parser)


def command(args):
    with open_input(args) as rec:
        mask = selected(rec, args) & fl.sound(rec.records)
        ids = sorted({int(t) for t in rec.records["tg_id"][mask]})
        ids = [i for i in ids if (rec.tg_meta(i) or {}).get("behaviour")]
        if not ids:
            raise AnalysisError("no 'dist behaviour' TG among the records "
                                "selected")
        rows, split = [], {}
        for tg_id in ids:
            take = mask & (rec.records["tg_id"] == tg_id)
            r = rec.records[take]
            line, cat = bh.categories(rec, tg_id, r)
            begin = bh.tg_begin(rec, rec.tg_meta(tg_id))
            span = int(r["sched_ns"].max()) - begin + 1 if len(r) else 0
            spent = line.time_in(span)
            where = np.flatnonzero(take)
            for c, name in enumerate(line.names):
                n = int((cat == c).sum())
                split.setdefault(name, []).append(where[cat == c])
                rows.append(dict(
                    tg=tg_id, behaviour=line.name, category=name,
                    time_ns=spent[c],
                    time_share=spent[c] / span if span else None,
                    model_share=line.shares[c], records=n,
                    bytes=int(r["len"][cat == c].sum()),
                    rate=n / spent[c] * 1e9 if spent[c] else None,
                    model_rate=1e9 / line.mean_gaps[c]))
        outputs = []
        if args.output:
            h = rec.header
            for name, parts in split.items():
                path = f"{args.output}-{name}.rec"
                keep = np.sort(np.concatenate(parts))
                meta = dict(rec.meta)
                meta["filtered"] = dict(source=rec.path, category=name)
                write(path, meta, rec.records[keep],
                      ring_drops=h["ring_drops"],
                      not_written=h["not_written"], end_ns=h["end_ns"],
                      ifaces_lost=h["ifaces_lost"], force=args.force)
                outputs.append(dict(category=name, output=path,
                                    records=len(keep)))
        answer(args, dict(categories=rows, outputs=outputs), rows,
               [("tg", "tg"), ("category", "category"),
                ("time_share", "time share"), ("model_share", "model"),
                ("records", "records"), ("rate", "pkt/s"),
                ("model_rate", "model pkt/s")])
        if not args.json:
            for o in outputs:
                print(f"mtgsap: {o['records']} records to {o['output']}")
    return 0
