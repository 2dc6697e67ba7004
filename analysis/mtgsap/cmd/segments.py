# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap segments: per TG, the delay of each segment of the path the
test-point probes stamped (sender, tp0..tp3, receiver)."""

from .. import stats as st
from ..common import add_input, answer, open_input, selected
from ..segments import paths


def configure(parser):
    add_input(parser)


def command(args):
    with open_input(args) as rec:
        rows, tgs = [], []
        for p in paths(rec.records, selected(rec, args)):
            segs = []
            # tx->rx last: the segments' sum (a row of its own when the
            # path has more than one segment)
            for a, b in p.segments + [("tx", "rx")]:
                d = st.describe(p.delays[(a, b)], (50, 99))
                seg = dict(tg=p.tg_id, segment=f"{a}->{b}",
                           records=d["count"], mean=d.get("mean"),
                           min=d.get("min"), p50=d.get("p50"),
                           p99=d.get("p99"), max=d.get("max"))
                segs.append(dict(seg, **{"from": a, "to": b}))
                if len(segs) <= len(p.segments) or len(p.segments) > 1:
                    rows.append(seg)
            tgs.append(dict(run_id=p.run_id, tg=p.tg_id, path=list(p.points),
                            records=p.records, complete=len(p.complete),
                            partial=p.partial, segments=segs[:-1],
                            end_to_end=segs[-1]))
        answer(args, dict(tgs=tgs), rows,
               [("tg", "tg"), ("segment", "segment"), ("records", "records"),
                ("mean", "mean ns"), ("min", "min"), ("p50", "p50"),
                ("p99", "p99"), ("max", "max")])
        if not args.json:
            for t in tgs:
                print(f"TG {t['tg']}: path {' -> '.join(t['path'])}; "
                      f"{t['partial']} of {t['records']} records miss a "
                      f"stamp of it")
    return 0
