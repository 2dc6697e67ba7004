# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap g821: CCITT G.821: available time, ES, SES, degraded minutes
per TG."""

from .. import meter as fl
from ..common import (add_input, answer, interval, open_input,
                      selected, without_interval)


def configure(parser):
    add_input(parser)


def command(args):
    with open_input(args) as rec:
        start, end = interval(args)
        flows = fl.flows(rec.records, selected(rec, without_interval(args)))
        rows = []
        for f in flows:
            g = fl.g821(rec.records, f, rec.start_ns, start, end)
            rows.append(dict(run_id=g.run_id, tg=g.tg_id, start_s=g.start_s,
                             seconds=g.seconds, available=g.available,
                             unavailable=g.unavailable, es=g.es, ses=g.ses,
                             minutes=g.minutes, dm=g.dm, es_pct=g.es_pct,
                             ses_pct=g.ses_pct, dm_pct=g.dm_pct))
        answer(args, dict(edition=fl.G821_EDITION, tgs=rows), rows,
               [("tg", "tg"), ("start_s", "from s"), ("seconds", "seconds"),
                ("available", "available s"), ("es_pct", "ES %"),
                ("ses_pct", "SES %"), ("dm_pct", "DM %"), ("es", "ES"),
                ("ses", "SES"), ("dm", "DM"), ("minutes", "minutes")],
               title=f"G.821 ({fl.G821_EDITION})")
    return 0
